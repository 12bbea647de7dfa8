/* gpusizer: the Hugging Face Hub client (libcurl multi): fetches config.json,
 * model info and safetensors headers for many models at once into the model
 * cache's folders (<models_dir>/<org>--<name>/, named by modelid.h), with
 * auth, mirrors, redirects, retries and conditional requests. It does not
 * resolve ids against the cache: resolve.h does that, one level up. See
 * shared/HUB-API.md for the protocol facts it relies on. */
#ifndef GS_HUB_H
#define GS_HUB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"

#define GS_HUB_DEADLINE_DEFAULT 600.0

/* Options for one fetch run. Strings are borrowed. */
typedef struct gs_hub_opts {
	const char *models_dir; /* NULL = gs_models_dir_default() */
	const char *revision;   /* for ids without "@rev"; NULL = "main" */
	int jobs;               /* requests in flight at once; <= 0 = 16 */
	double deadline_s;      /* the whole fetch's limit, seconds: 0 = GS_HUB_DEADLINE_DEFAULT,
	                         * < 0 = none */
	bool offline;           /* never touch the network (also HF_HUB_OFFLINE) */
	bool progress;          /* progress lines on stderr */
	FILE *out;              /* one result line per model; NULL = none */
	/* Offline: whether a model is cached (GS_OK) or not (why, in e); called
	 * with models_dir as given. NULL = no model counts as cached.
	 * gs_models_fetch (resolve.h) passes the model cache's lookup. */
	gs_err (*cached)(const char *models_dir, const char *id, gs_error *e);
} gs_hub_opts;

/* Outcome for one model (filled by gs_hub_fetch, one per id). */
typedef struct gs_hub_result {
	gs_error err;           /* err.code == GS_OK on success */
	char sha[48];           /* resolved commit, "" when unknown */
	uint64_t params_hub;    /* Hub API safetensors total, 0 unknown */
	uint64_t params_header; /* safetensors headers tally, 0 not read */
	uint64_t params_config; /* config-derived tally (src/config.c), 0 unknown */
	uint64_t body_bytes;    /* response body bytes received for this model */
	int requests;           /* HTTP requests made (retries included) */
	int not_modified;       /* of which answered 304 */
	bool unchanged;         /* nothing new: the cached files were left byte-identical
	                         * (all 304, or the same config.json bytes and no
	                         * parameter count contradicting meta.json's) */
} gs_hub_result;

/*
 * Fetch every id (validated first; "org/name[@rev]") into the model cache,
 * each revision into its own entry (gs_model_entry, modelid.h): ids that
 * name the same entry are fetched once. Each entry is locked (gs_lock on
 * its folder: a concurrent run waits, GS_EBUSY past the lock wait) from
 * before its meta.json is read until it is written, and temporaries a
 * killed run left in it are removed. It is written atomically: files to
 * temporaries, config.json renamed first, then meta.json, which records
 * config.json's check value (gs_model_config_digest), so that a reader can
 * tell a half-written pair. A config.json gpusizer cannot size (parsed as
 * estimate parses it) is not stored: GS_ECONFIG, the previous copy kept. A
 * failing model keeps its previous cached copy and does not stop the
 * others. A model whose fetch brings nothing new (config.json
 * byte-identical to the cached one, at the revision meta.json records, no
 * parameter count contradicting the ones it records) is not rewritten at
 * all: its sha, ETags and fetched_at stay those of the fetch that last
 * brought a change (or stay absent in a copied reference), and it is
 * reported unchanged. HTTP errors and timeouts are retried
 * (GPUSIZER_RETRIES, backoff); a host that cannot be resolved or connected
 * to gets one short retry, and none after the first request that used it
 * up. Past o->deadline_s (counted once the entries are locked) the run
 * stops: every model not done fails GS_ENET naming the deadline, its cached
 * copy unchanged. Every message and meta.json are redacted (redact.h: the
 * token in use, HF_ENDPOINT's credentials). Offline (o->offline or
 * HF_HUB_OFFLINE), no request is made: each model is GS_EOFFLINE unless
 * o->cached finds it. Returns the worst per-model error (by exit code),
 * with e holding the first failure's detail.
 */
gs_err gs_hub_fetch(const gs_hub_opts *o, const char *const *ids, int n, gs_hub_result *res,
                    gs_error *e);

/* Hub endpoint: HF_ENDPOINT without trailing '/', else https://huggingface.co.
 * Written to buf (n bytes). */
void gs_hub_endpoint(char *buf, size_t n);

#endif
