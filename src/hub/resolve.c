/* gpusizer: resolve-or-fetch: a model id to a config.json path from the
 * model cache (models.c), fetching from the Hub (hub.c) when missing. */
#define _POSIX_C_SOURCE 200809L
#include "resolve.h"

#include <string.h>
#include <unistd.h>

#include "models.h"
#include "paths.h"
#include "util.h"

/* gs_hub_opts.cached: the model cache's answer (any config path found). */
static gs_err cache_has(const char *models_dir, const char *id, gs_error *e)
{
	char path[4096];

	return gs_model_resolve(models_dir, id, path, sizeof path, e);
}

gs_err gs_models_fetch(const gs_hub_opts *o, const char *const *ids, int n, gs_hub_result *res,
                       gs_error *e)
{
	gs_hub_opts with = *o;

	if (with.cached == NULL)
		with.cached = cache_has;
	return gs_hub_fetch(&with, ids, n, res, e);
}

gs_err gs_model_ensure(const char *models_dir, const char *id, bool offline, char *config_path,
                       size_t n, gs_error *e)
{
	gs_error tmp = {0};
	char dflt[4096];
	gs_err rc;
	gs_hub_opts o;
	gs_hub_result r;
	const char *ids[1];

	gs_models_dir_default(dflt, sizeof dflt);
	if (models_dir == NULL)
		models_dir = dflt;
	rc = gs_model_resolve(models_dir, id, config_path, n, &tmp);
	if (rc != GS_ENOTFOUND) {
		if (rc != GS_OK)
			return gs_fail(e, rc, "%s", tmp.msg);
		return GS_OK;
	}
	/* A missing config path is not something to fetch. */
	if (strlen(id) > 5 && strcmp(id + strlen(id) - 5, ".json") == 0)
		return gs_fail(e, rc, "%s", tmp.msg);
	if (gs_offline(offline)) {
		bool other_dir = strcmp(models_dir, dflt) != 0;
		return gs_fail(e, GS_EOFFLINE,
		               "offline: %s; run `gpusizer fetch%s%s %s` while online",
		               tmp.msg, other_dir ? " --models-dir " : "", other_dir ? models_dir : "",
		               id);
	}
	memset(&o, 0, sizeof o);
	o.models_dir = models_dir;
	o.jobs = 1;
	o.progress = isatty(2);
	ids[0] = id;
	rc = gs_models_fetch(&o, ids, 1, &r, e);
	if (rc != GS_OK)
		return rc;
	return gs_model_resolve(models_dir, id, config_path, n, e);
}
