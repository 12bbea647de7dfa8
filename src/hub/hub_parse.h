/* gpusizer: INTERNAL to the Hub client (hub.c) and its fuzz target
 * (tests/fuzz/fuzz_hub.c); nothing else includes it. The state of one fetch
 * run and the functions that interpret the Hub's responses: the libcurl
 * header and body callbacks, the handlers of model info, config.json, the
 * safetensors index and the safetensors header ranges, the HTTP error
 * mapping and the meta.json builder. They never start a request: follow-up
 * requests go on the run's queue (hub_run.queue), which hub.c starts.
 * The public interface is hub.h. */
#ifndef GS_HUB_PARSE_H
#define GS_HUB_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "fileio.h"
#include "hub.h"
#include "safetensors.h"

#define PROBE_BYTES 100000u /* first safetensors header request: bytes=0-99999 */

typedef enum hub_rq_kind { RQ_API, RQ_CONFIG, RQ_INDEX, RQ_HEADER } hub_rq_kind;

typedef struct hub_model hub_model;

/* One HTTP request (retried in place). Owned by the run; freed when done. */
typedef struct hub_req {
	hub_model *m;
	hub_rq_kind kind;
	int shard;          /* RQ_HEADER: index into m->shards */
	char url[2400];
	char inm[260];      /* If-None-Match value, "" for none */
	uint64_t want;      /* RQ_HEADER: bytes requested (bytes=0-(want-1)) */
	size_t max_body;
	int attempt;        /* attempts made so far */
	double not_before;  /* monotonic time before which it must not start */
	bool deadline_capped; /* its timeout was cut to what was left of the run's deadline */
	CURL *h;
	struct curl_slist *hdrs;
	/* body */
	unsigned char *body;
	size_t len, cap;
	bool too_big, got_enough;
	/* response (last hop, except the first-seen Hub metadata headers) */
	long status;
	char etag[260], linked_etag[260], repo_commit[64];
	char err_code[64], err_msg[300], ctype[128];
	double retry_after;  /* seconds, < 0 when absent */
	bool has_rl;
	double rl_t;
	long rl_r;
	uint64_t crange_total;
	struct hub_req *next;
} hub_req;

struct hub_model {
	char id[300], repo[256], rev[256], slug[256], entry[300], dir[4096];
	gs_hub_result *res;
	int pending;
	bool failed, skip;
	gs_lock lock;       /* on dir, held from before its meta.json is read until written */
	bool made_dir;      /* dir was created by this run (removed again if left empty) */
	/* previous meta.json: cached = as parsed (any JSON object, also a copied
	 * reference), old = the same when written by fetch (for ETags and reuse) */
	cJSON *cached;
	cJSON *old;
	char old_sha[48], old_api_etag[260], old_cfg_etag[260], old_index_etag[260];
	bool have_cfg_file;
	/* model info */
	bool api_304;
	char sha[48], canonical[256], api_etag[260];
	cJSON *gated;       /* copy: false / "auto" / "manual" */
	bool is_private;
	cJSON *hub_st;      /* copy of the "safetensors" object, or NULL */
	uint64_t hub_total;
	bool st_single, st_sharded;
	cJSON *api_quant;   /* copy of config.quantization_config from model info */
	/* config.json */
	unsigned char *cfg;
	size_t cfg_len;
	bool cfg_304;
	char cfg_etag[260];  /* ETag as received (for If-None-Match) */
	char cfg_blob[260];  /* X-Linked-Etag or ETag, W/ and quotes stripped (git blob sha1) */
	/* safetensors */
	bool index_304;
	char index_etag[260];
	char **shards;
	int n_shards;
	uint64_t *shard_size;
	gs_st_tally tally;
	bool tally_reused;
	cJSON *old_header; /* copy of old params.header when reused */
};

typedef struct hub_run {
	const gs_hub_opts *o;
	CURLM *multi;
	hub_req *queue;          /* not started, FIFO */
	int active, jobs;
	char endpoint[1024];
	char endpoint_shown[1024]; /* endpoint with any user:password@ redacted (messages, meta.json) */
	char auth[1200];     /* "Authorization: Bearer ..." or "" (never printed) */
	double timeout_s, max_wait;
	double deadline_s;   /* the whole run's limit in seconds, <= 0 none */
	double deadline;     /* monotonic time it ends, 0 none */
	int retries;
	bool unreachable;    /* a connection-level failure used up its retries */
	int done_models, n_models;
} hub_run;

/* ---- libcurl callbacks (ud: the hub_req) ---- */

/* CURLOPT_WRITEFUNCTION: append to r->body (RQ_HEADER: at most r->want
 * bytes; others: at most r->max_body, else r->too_big and stop). */
size_t hub_on_body(char *p, size_t sz, size_t nm, void *ud);
/* CURLOPT_HEADERFUNCTION: one header line: status (on "HTTP/"), ETag,
 * X-Linked-Etag, X-Repo-Commit, X-Error-*, Content-Type, Retry-After,
 * RateLimit, Content-Range into r. */
size_t hub_on_header(char *p, size_t sz, size_t nm, void *ud);

/* ---- requests ---- */

/* A new request for m (counted in m->pending), not queued; inm is the
 * If-None-Match value or NULL. Freed with hub_free_req. */
hub_req *hub_new_req(hub_model *m, hub_rq_kind kind, const char *url, const char *inm);
/* Frees r and its handle, headers and body; NULL is a no-op. */
void hub_free_req(hub_req *r);

/* ---- response handlers (a 2xx or 304 response in r) ---- */

void hub_on_api(hub_run *R, hub_model *m, hub_req *r);         /* model info JSON */
void hub_on_config(hub_model *m, hub_req *r);                  /* config.json (keeps r->body) */
void hub_on_index(hub_run *R, hub_model *m, hub_req *r);       /* model.safetensors.index.json */
void hub_on_header_done(hub_run *R, hub_model *m, hub_req *r); /* a safetensors header range */
/* An HTTP error response (>= 400) as m's error: gated, not found, auth... */
void hub_http_error(hub_run *R, hub_model *m, hub_req *r);

/* ---- the model ---- */

/* Add a safetensors file name to m's shards (once). */
void hub_add_shard(hub_model *m, const char *name);
/* meta.json for m from what was fetched; cfg_json is config.json parsed
 * (borrowed, may be NULL), cfg its bytes. The caller frees the result with
 * cJSON_Delete. Also sets m->res->params_config. */
cJSON *hub_build_meta(hub_run *R, hub_model *m, cJSON *cfg_json, const char *cfg, size_t cfg_len);
/* Frees what m owns (not m itself). */
void hub_free_model(hub_model *m);

#endif
