/* gpusizer: the local model cache (<cache>/<org>--<name>/{config.json,meta.json}):
 * resolving an id to a config.json path (our cache first, then the
 * reference configs that come with gpusizer, then an existing
 * huggingface_hub cache) and reading the parameter-count metadata that
 * `fetch` stores. It never touches the network: fetching on demand is
 * resolve.h's, one level up. Ids follow modelid.h's grammar (included here:
 * every function below takes one). The default cache is
 * gs_models_dir_default() (paths.h). */
#ifndef GS_MODELS_H
#define GS_MODELS_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "modelid.h"

/*
 * Resolve a model id ("org/name", optional "@rev") or a path to a config.json
 * file (anything ending in ".json", or an existing file or directory holding
 * config.json) to the config path to load; validates the id (GS_EUSAGE).
 * Looks in models_dir (NULL = gs_models_dir_default()), then in the
 * reference configs that come with gpusizer (gs_models_dir_shipped()), then
 * in the huggingface_hub cache (HF_HUB_CACHE, HF_HOME/hub,
 * ~/.cache/huggingface/hub). With "@rev" other than "@main", the
 * revision's own entry (gs_model_entry: "<slug>@rev") is looked for first;
 * then, as with "@main", the entry <slug> counts when its meta.json
 * records that revision or a sha it prefixes (7+ characters); "@main"
 * also takes an entry that records no revision. A meta.json whose
 * config.json check value is not that of the config.json beside it (an
 * update killed half-way) matches no revision. Not cached:
 * GS_ENOTFOUND naming the model, and where a cached id differs only in case,
 * "did you mean ORG/Name?". config_path is written (n bytes) on success.
 */
gs_err gs_model_resolve(const char *models_dir, const char *id, char *config_path, size_t n,
                        gs_error *e);

/* Optional metadata from meta.json: Hub safetensors total (0 if unknown),
 * safetensors-header total (0 if not read), commit sha ("" if unknown), a
 * one-line text saying where the parameter counts came from. */
typedef struct gs_model_meta {
	uint64_t hub_safetensors_total;
	uint64_t header_total;
	char sha[48];
	char param_source[256];
} gs_model_meta;

/* Read the meta.json beside the config.json gs_model_resolve picks among
 * models_dir (NULL = the default) and the reference configs:
 * models_dir/<slug>/meta.json unless only the reference configs hold the
 * model. No meta.json: GS_ENOFILE; one that does not belong with its
 * config.json (an update killed half-way): GS_ENOTFOUND (m zeroed either
 * way); bad JSON: GS_EINPUT naming the file. */
gs_err gs_model_meta_load(const char *models_dir, const char *id, gs_model_meta *m, gs_error *e);

#endif
