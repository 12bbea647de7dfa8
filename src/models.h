/* gpusizer: the local model cache (<cache>/<org>--<name>/{config.json,meta.json}):
 * model id validation, slugs, resolving an id to a config.json path (our
 * cache first, then the reference configs that come with gpusizer, then an
 * existing huggingface_hub cache), fetching on demand, and reading the
 * parameter-count metadata that `fetch` stores. The default cache is
 * gs_models_dir_default() (paths.h). */
#ifndef GS_MODELS_H
#define GS_MODELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* The cache's name relative to a checkout, for code that has not moved to
 * gs_models_dir_default() (paths.h), which is the default every function
 * here uses for a NULL models_dir. */

/*
 * Resolve a model id ("org/name", optional "@rev") or a path to a config.json
 * file (anything ending in ".json", or an existing file or directory holding
 * config.json) to the config path to load; validates the id (GS_EUSAGE).
 * Looks in models_dir (NULL = gs_models_dir_default()), then in the
 * reference configs that come with gpusizer (gs_models_dir_shipped()), then
 * in the huggingface_hub cache (HF_HUB_CACHE, HF_HOME/hub,
 * ~/.cache/huggingface/hub). With "@rev", a cached entry counts when its
 * meta.json records that revision or a sha it prefixes (7+ characters);
 * "@main" also takes an entry that records no revision. Not cached:
 * GS_ENOTFOUND naming the model, and where a cached id differs only in case,
 * "did you mean ORG/Name?". config_path is written (n bytes) on success.
 */
gs_err gs_model_resolve(const char *models_dir, const char *id, char *config_path, size_t n,
                        gs_error *e);

/*
 * Like resolve, but when the model is not cached and !offline (and
 * HF_HUB_OFFLINE is not set), fetch it first (one model, see hub.h).
 * Offline and missing: GS_EOFFLINE naming the model and the command to fetch it.
 */
gs_err gs_model_ensure(const char *models_dir, const char *id, bool offline, char *config_path,
                       size_t n, gs_error *e);

/* Slug "org--name" for an id ("name" for a namespace-less id); any "@rev"
 * is dropped. Validates the id (GS_EUSAGE). */
gs_err gs_model_slug(const char *id, char *slug, size_t n, gs_error *e);

/*
 * Split and validate an id: repo ("org/name", n_repo bytes) and revision
 * ("" when none, n_rev bytes). Each segment must be 1-96 characters of
 * [A-Za-z0-9._-], not "." or "..", with at most one '/'; the revision may
 * hold [A-Za-z0-9._/-] (branch, tag, sha). GS_EUSAGE with the reason.
 */
gs_err gs_model_parse_id(const char *id, char *repo, size_t n_repo, char *rev, size_t n_rev,
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
 * model. No meta.json: GS_ENOTFOUND (m zeroed); bad JSON: GS_EINPUT naming
 * the file. */
gs_err gs_model_meta_load(const char *models_dir, const char *id, gs_model_meta *m, gs_error *e);

#endif
