/* libFuzzer target: the Hub's responses as src/hub.c interprets them.
 *
 * Through the Hub client's internal interface (src/hub_parse.h; linked
 * with hub.o like the other targets): hub_on_header (ETag, X-Linked-Etag,
 * X-Repo-Commit, X-Error-*, Content-Type, Retry-After, RateLimit,
 * Content-Range), hub_on_body, hub_on_api (model info JSON),
 * hub_on_config, hub_on_index (model.safetensors.index.json),
 * hub_on_header_done (safetensors range responses), hub_http_error and
 * hub_build_meta. No network: no request is started; requests the
 * handlers queue are freed unstarted.
 *
 * Input: byte 0 picks the request kind (bits 0-1: model info, config.json,
 * index, safetensors header) and the status when no "HTTP/" line is given
 * (bits 2-3: 200, 206, 304, 404); then header lines ('\n'-separated) up to
 * an empty line; the rest is the body.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "hub_parse.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const long statuses[] = {200, 206, 304, 404};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gs_hub_opts o;
	gs_hub_result res;
	hub_run R;
	hub_model m;
	hub_req *r;
	const uint8_t *p, *end = data + size, *body;
	cJSON *cfg_json, *meta;
	char *text;

	if (size < 1)
		return 0;
	memset(&o, 0, sizeof o);
	memset(&res, 0, sizeof res);
	memset(&R, 0, sizeof R);
	memset(&m, 0, sizeof m);
	R.o = &o;
	R.jobs = 1;
	R.n_models = 1;
	snprintf(R.endpoint, sizeof R.endpoint, "http://127.0.0.1:9");
	snprintf(m.id, sizeof m.id, "org/name");
	snprintf(m.repo, sizeof m.repo, "org/name");
	snprintf(m.slug, sizeof m.slug, "org--name");
	snprintf(m.dir, sizeof m.dir, "/nonexistent-gpusizer-fuzz/org--name");
	m.res = &res;
	hub_add_shard(&m, "model.safetensors");

	r = hub_new_req(&m, (hub_rq_kind)(data[0] & 3), "http://127.0.0.1:9/x", NULL);
	if (r->kind == RQ_HEADER)
		r->want = PROBE_BYTES;
	r->status = statuses[(data[0] >> 2) & 3];
	r->retry_after = -1;

	/* header lines up to an empty line */
	p = data + 1;
	body = end;
	while (p < end) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		char line[1024];
		if (n == 1 || (n == 2 && p[0] == '\r')) {
			body = p + n;
			break;
		}
		if (n >= sizeof line)
			n = sizeof line - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		(void)hub_on_header(line, 1, n, r);
		p = nl ? nl + 1 : end;
	}
	if (body < end)
		(void)hub_on_body((char *)body, 1, (size_t)(end - body), r);
	if (r->body == NULL) { /* an empty body: handlers expect a buffer */
		r->body = gs_xcalloc(1, 1);
		r->cap = 1;
	}

	if (r->status >= 400 || (r->status < 200 && r->status != 0))
		hub_http_error(&R, &m, r);
	else if (r->kind == RQ_API)
		hub_on_api(&R, &m, r);
	else if (r->kind == RQ_CONFIG)
		hub_on_config(&m, r);
	else if (r->kind == RQ_INDEX)
		hub_on_index(&R, &m, r);
	else
		hub_on_header_done(&R, &m, r);

	/* the metadata fetch would write, from what was parsed */
	cfg_json = cJSON_ParseWithLength((const char *)r->body, r->len);
	meta = hub_build_meta(&R, &m, cfg_json, (const char *)m.cfg, m.cfg_len);
	text = cJSON_Print(meta);
	free(text);
	cJSON_Delete(meta);
	cJSON_Delete(cfg_json);

	hub_free_req(r);
	while (R.queue != NULL) {
		hub_req *q = R.queue;
		R.queue = q->next;
		hub_free_req(q);
	}
	hub_free_model(&m);
	return 0;
}
