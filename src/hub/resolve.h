/* gpusizer: a model id to a config.json, fetching what is missing: the
 * model cache (models.h) first, else the Hugging Face Hub (hub.h). The one
 * module that uses both; neither of them knows the other. */
#ifndef GS_RESOLVE_H
#define GS_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "hub.h"

/*
 * Like gs_model_resolve (models.h), but when the model is not cached and
 * !offline (and HF_HUB_OFFLINE / GPUSIZER_OFFLINE are not set), fetch it
 * first (one model, gs_hub_fetch), then resolve again. A config path that
 * does not exist is not fetched. Offline and missing: GS_EOFFLINE naming
 * the model and the command to fetch it. config_path gets n bytes.
 */
gs_err gs_model_ensure(const char *models_dir, const char *id, bool offline, char *config_path,
                       size_t n, gs_error *e);

/*
 * What `gpusizer fetch` runs: gs_hub_fetch (hub.h; same arguments, same
 * results) with the cache's answer for offline runs: offline, each model
 * counts as fetched when gs_model_resolve finds it in o->models_dir, the
 * reference configs or the huggingface_hub cache, and GS_EOFFLINE when not.
 * o->cached is set to that lookup unless the caller set one.
 */
gs_err gs_models_fetch(const gs_hub_opts *o, const char *const *ids, int n, gs_hub_result *res,
                       gs_error *e);

#endif
