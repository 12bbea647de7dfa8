/* gpusizer: Hugging Face Hub client: model info, config.json and safetensors
 * headers for many models at once (libcurl multi), written to the model
 * cache atomically per model. Protocol facts: shared/HUB-API.md. The
 * response parsers (hub_on_*, hub_http_error, hub_build_meta) are declared
 * in hub_parse.h, internal to this file and tests/fuzz/fuzz_hub.c. */
#define _POSIX_C_SOURCE 200809L
#include "hub.h"
#include "hub_parse.h"
#include "jsonget.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "arch.h"
#include "config.h"
#include "modelid.h"
#include "safetensors.h"
#include "paths.h"
#include "redact.h"
#include "util.h"
#include "fileio.h"
#include "fault.h"

#define HUB_DEFAULT "https://huggingface.co"
#define MAX_REDIRS 5
#define MAX_SHARDS 4096
#define BODY_MAX_SMALL (16u << 20)     /* model info, config.json */
#define BODY_MAX_INDEX (64u << 20)     /* model.safetensors.index.json */
/* Connection-level failures (host not resolved, connection refused): the
 * network or HF_ENDPOINT is wrong, and waiting seldom helps, so at most
 * CONN_RETRIES retries after CONN_RETRY_WAIT s (x 0.5-1 jitter, capped by
 * GPUSIZER_MAX_RETRY_WAIT), and none at all once one request of the run has
 * used them up; GPUSIZER_RETRIES=0 still means none. */
#define CONN_RETRIES 1
#define CONN_RETRY_WAIT 1.0

static const char *const kind_name[] = {"model info", "config.json",
                                        "model.safetensors.index.json", "safetensors header"};

static double env_double(const char *name, double def, double lo, double hi)
{
	const char *v = getenv(name);
	char *end;
	double d;

	if (v == NULL || v[0] == '\0')
		return def;
	errno = 0;
	d = strtod(v, &end);
	if (errno != 0 || *end != '\0' || !(d >= lo && d <= hi)) {
		fprintf(stderr, "gpusizer: %s=\"%s\" is not a number in [%g, %g]; using %g\n", name, v,
		        lo, hi, def);
		return def;
	}
	return d;
}

void gs_hub_endpoint(char *buf, size_t n)
{
	const char *v = getenv("HF_ENDPOINT");
	size_t l;

	snprintf(buf, n, "%s", (v != NULL && v[0] != '\0') ? v : HUB_DEFAULT);
	l = strlen(buf);
	while (l > 0 && buf[l - 1] == '/')
		buf[--l] = '\0';
}

/* Token: HF_TOKEN, HUGGING_FACE_HUB_TOKEN, then the token file (HF_TOKEN_PATH,
 * HF_HOME/token, XDG_CACHE_HOME/huggingface/token, ~/.cache/huggingface/token).
 * Whitespace stripped; anything but printable ASCII rejected (never echoed). */
static void load_token(char *tok, size_t n)
{
	const char *v = getenv("HF_TOKEN");
	char path[4096] = "", buf[1024];
	size_t len = 0;

	tok[0] = '\0';
	if (v == NULL || v[0] == '\0')
		v = getenv("HUGGING_FACE_HUB_TOKEN");
	if (v != NULL && v[0] != '\0') {
		snprintf(buf, sizeof buf, "%s", v);
	} else {
		const char *p;
		char *text = NULL;
		gs_error re = {0};
		gs_err rc;
		if ((p = getenv("HF_TOKEN_PATH")) != NULL && p[0])
			snprintf(path, sizeof path, "%s", p);
		else if ((p = getenv("HF_HOME")) != NULL && p[0])
			snprintf(path, sizeof path, "%s/token", p);
		else if ((p = getenv("XDG_CACHE_HOME")) != NULL && p[0])
			snprintf(path, sizeof path, "%s/huggingface/token", p);
		else if ((p = getenv("HOME")) != NULL && p[0])
			snprintf(path, sizeof path, "%s/.cache/huggingface/token", p);
		if (path[0] == '\0')
			return;
		/* a regular file only: a FIFO (or a device) would block the
		 * fetch forever; gs_read_file refuses it without reading */
		rc = gs_read_file(path, sizeof buf - 1, &text, &len, &re);
		if (rc != GS_OK) {
			if (rc != GS_ENOFILE)
				fprintf(stderr, "gpusizer: warning: the token file %s; sending no token\n", re.msg);
			return;
		}
		memcpy(buf, text, len + 1);
		memset(text, 0, len);
		free(text);
	}
	/* trim */
	{
		char *s = buf, *e;
		while (*s && isspace((unsigned char)*s))
			s++;
		e = s + strlen(s);
		while (e > s && isspace((unsigned char)e[-1]))
			*--e = '\0';
		for (char *c = s; *c; c++)
			if ((unsigned char)*c <= 0x20 || (unsigned char)*c >= 0x7f) {
				fputs("gpusizer: warning: the Hugging Face token holds characters that "
				      "cannot go in an HTTP header; sending no token\n", stderr);
				memset(buf, 0, sizeof buf);
				return;
			}
		if (strlen(s) + 1 <= n)
			memcpy(tok, s, strlen(s) + 1);
	}
	memset(buf, 0, sizeof buf);
}

/* ---- requests ---------------------------------------------------------- */

size_t hub_on_body(char *p, size_t sz, size_t nm, void *ud)
{
	hub_req *r = ud;
	size_t n = sz * nm, take = n;

	r->m->res->body_bytes += n;
	if (r->kind == RQ_HEADER) {
		/* keep only the bytes asked for, even if the server ignored Range */
		size_t room = r->len < r->want ? (size_t)(r->want - r->len) : 0;
		if (take > room)
			take = room;
	} else if (r->len + n > r->max_body) {
		r->too_big = true;
		return 0;
	}
	if (r->len + take + 1 > r->cap) {
		size_t c = r->cap ? r->cap : 16384;
		while (c < r->len + take + 1)
			c *= 2;
		r->body = gs_xrealloc(r->body, c);
		r->cap = c;
	}
	memcpy(r->body + r->len, p, take);
	r->len += take;
	r->body[r->len] = '\0';
	if (r->kind == RQ_HEADER && r->len >= r->want) {
		r->got_enough = true;
		return take == n ? n : 0; /* stop a server that sends more */
	}
	return n;
}

static void copy_value(char *dst, size_t n, const char *v, size_t vl)
{
	if (vl >= n)
		vl = n - 1;
	memcpy(dst, v, vl);
	dst[vl] = '\0';
}

size_t hub_on_header(char *p, size_t sz, size_t nm, void *ud)
{
	hub_req *r = ud;
	size_t n = sz * nm, nl, vl;
	const char *colon, *v;

	if (n >= 5 && strncmp(p, "HTTP/", 5) == 0) {
		/* a new hop: reset what belongs to one response */
		const char *sp = memchr(p, ' ', n);
		r->status = sp ? strtol(sp + 1, NULL, 10) : 0;
		r->etag[0] = r->err_code[0] = r->err_msg[0] = r->ctype[0] = '\0';
		r->retry_after = -1;
		r->has_rl = false;
		r->crange_total = 0;
		return n;
	}
	colon = memchr(p, ':', n);
	if (colon == NULL)
		return n;
	nl = (size_t)(colon - p);
	v = colon + 1;
	vl = n - nl - 1;
	while (vl > 0 && (*v == ' ' || *v == '\t'))
		v++, vl--;
	while (vl > 0 && (v[vl - 1] == '\r' || v[vl - 1] == '\n' || v[vl - 1] == ' '))
		vl--;
#define IS(name) (nl == sizeof(name) - 1 && strncasecmp(p, name, nl) == 0)
	if (IS("ETag"))
		copy_value(r->etag, sizeof r->etag, v, vl);
	else if (IS("X-Linked-Etag") && !r->linked_etag[0])
		copy_value(r->linked_etag, sizeof r->linked_etag, v, vl);
	else if (IS("X-Repo-Commit") && !r->repo_commit[0])
		copy_value(r->repo_commit, sizeof r->repo_commit, v, vl);
	else if (IS("X-Error-Code"))
		copy_value(r->err_code, sizeof r->err_code, v, vl);
	else if (IS("X-Error-Message")) {
		/* the server's text may echo a secret: redacted whole, then cut */
		char *all = gs_xmalloc(2 * vl + 16);
		memcpy(all, v, vl);
		all[vl] = '\0';
		gs_redact(all, 2 * vl + 16);
		copy_value(r->err_msg, sizeof r->err_msg, all, strlen(all));
		memset(all, 0, vl);
		free(all);
	}
	else if (IS("Content-Type"))
		copy_value(r->ctype, sizeof r->ctype, v, vl);
	else if (IS("Retry-After")) {
		char tmp[64];
		char *end;
		double d;
		copy_value(tmp, sizeof tmp, v, vl);
		d = strtod(tmp, &end);
		if (end != tmp && *end == '\0' && d >= 0)
			r->retry_after = d; /* HTTP-date form: ignored, backoff applies */
	} else if (IS("RateLimit")) {
		/* "api";r=0;t=55 (draft-ietf-httpapi-ratelimit-headers) */
		char tmp[256];
		const char *q;
		copy_value(tmp, sizeof tmp, v, vl);
		if ((q = strstr(tmp, ";r=")) != NULL)
			r->rl_r = strtol(q + 3, NULL, 10);
		else
			r->rl_r = -1;
		if ((q = strstr(tmp, ";t=")) != NULL) {
			r->rl_t = strtod(q + 3, NULL);
			r->has_rl = r->rl_t >= 0;
		}
	} else if (IS("Content-Range")) {
		char tmp[128];
		const char *slash;
		copy_value(tmp, sizeof tmp, v, vl);
		slash = strchr(tmp, '/');
		if (slash != NULL && isdigit((unsigned char)slash[1]))
			r->crange_total = strtoull(slash + 1, NULL, 10);
	}
#undef IS
	return n;
}

void hub_free_req(hub_req *r)
{
	if (r == NULL)
		return;
	if (r->h != NULL)
		curl_easy_cleanup(r->h);
	curl_slist_free_all(r->hdrs);
	free(r->body);
	free(r);
}

/* Queue a request. Follow-up requests of models already started go before
 * the first model-info request still waiting, so started models finish
 * first and the pipeline stays full (FIFO within each group). */
static void enqueue(hub_run *R, hub_req *r)
{
	hub_req **pp = &R->queue;
	while (*pp != NULL && (r->kind == RQ_API || (*pp)->kind != RQ_API))
		pp = &(*pp)->next;
	r->next = *pp;
	*pp = r;
}

hub_req *hub_new_req(hub_model *m, hub_rq_kind kind, const char *url, const char *inm)
{
	hub_req *r = gs_xcalloc(1, sizeof *r);
	r->m = m;
	r->kind = kind;
	snprintf(r->url, sizeof r->url, "%s", url);
	if (inm != NULL)
		snprintf(r->inm, sizeof r->inm, "%s", inm);
	r->max_body = kind == RQ_INDEX ? BODY_MAX_INDEX : BODY_MAX_SMALL;
	m->pending++;
	return r;
}

static bool start_req(hub_run *R, hub_req *r)
{
	char line[600];
	double timeout = R->timeout_s;

	r->attempt++;
	r->m->res->requests++;
	r->len = 0;
	r->too_big = r->got_enough = false;
	r->status = 0;
	r->etag[0] = r->linked_etag[0] = r->repo_commit[0] = '\0';
	r->err_code[0] = r->err_msg[0] = r->ctype[0] = '\0';
	r->retry_after = -1;
	r->has_rl = false;
	r->crange_total = 0;
	r->deadline_capped = false;
	if (R->deadline > 0 && R->deadline - gs_mono_s() < timeout) {
		timeout = fmax(R->deadline - gs_mono_s(), 0.001);
		r->deadline_capped = true;
	}
	curl_slist_free_all(r->hdrs);
	r->hdrs = NULL;
	if (r->h == NULL)
		r->h = curl_easy_init();
	else
		curl_easy_reset(r->h);
	if (r->h == NULL)
		return false;
	/* The token goes in a custom header; libcurl does not send it to a host
	 * other than the first one after a redirect (no CURLOPT_UNRESTRICTED_AUTH),
	 * so a CDN or a foreign mirror never sees it. */
	if (R->auth[0] != '\0')
		r->hdrs = curl_slist_append(r->hdrs, R->auth);
	r->hdrs = curl_slist_append(r->hdrs, "Accept-Encoding: identity");
	if (r->inm[0] != '\0') {
		snprintf(line, sizeof line, "If-None-Match: %s", r->inm);
		r->hdrs = curl_slist_append(r->hdrs, line);
	}
	curl_easy_setopt(r->h, CURLOPT_URL, r->url);
	curl_easy_setopt(r->h, CURLOPT_HTTPHEADER, r->hdrs);
	curl_easy_setopt(r->h, CURLOPT_USERAGENT, "gpusizer/0.1 (libcurl)");
	curl_easy_setopt(r->h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(r->h, CURLOPT_MAXREDIRS, (long)MAX_REDIRS);
	curl_easy_setopt(r->h, CURLOPT_UNRESTRICTED_AUTH, 0L);
	curl_easy_setopt(r->h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(r->h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(r->h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(r->h, CURLOPT_TIMEOUT_MS, (long)ceil(timeout * 1000));
	curl_easy_setopt(r->h, CURLOPT_CONNECTTIMEOUT_MS, (long)ceil(fmin(timeout, 10.0) * 1000));
	curl_easy_setopt(r->h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)r->max_body);
	curl_easy_setopt(r->h, CURLOPT_WRITEFUNCTION, hub_on_body);
	curl_easy_setopt(r->h, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(r->h, CURLOPT_HEADERFUNCTION, hub_on_header);
	curl_easy_setopt(r->h, CURLOPT_HEADERDATA, r);
	curl_easy_setopt(r->h, CURLOPT_PRIVATE, r);
	if (r->kind == RQ_HEADER) {
		snprintf(line, sizeof line, "0-%llu", (unsigned long long)(r->want - 1));
		curl_easy_setopt(r->h, CURLOPT_RANGE, line);
		curl_easy_setopt(r->h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)0);
	}
	if (curl_multi_add_handle(R->multi, r->h) != CURLM_OK)
		return false;
	R->active++;
	return true;
}

/* ---- helpers ----------------------------------------------------------- */

static cJSON *jget(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* Strip W/ and quotes from an ETag value. */
static void norm_etag(char *dst, size_t n, const char *src)
{
	size_t l;
	if (strncmp(src, "W/", 2) == 0)
		src += 2;
	snprintf(dst, n, "%s", src);
	l = strlen(dst);
	if (l >= 2 && dst[0] == '"' && dst[l - 1] == '"') {
		memmove(dst, dst + 1, l - 2);
		dst[l - 2] = '\0';
	}
}

/* The If-None-Match value for a stored ETag (stored as received). */
static void quote_etag(char *dst, size_t n, const char *et)
{
	snprintf(dst, n, "%s", et);
}

/* The request URL without its query string, for messages (valid until the
 * next call). */
static const char *short_url(const hub_req *r)
{
	static char buf[sizeof r->url * 2 + 16];

	/* credentials redacted before the query is cut off: a password may
	 * hold a '?' (redact.h) */
	snprintf(buf, sizeof buf, "%s", r->url);
	gs_redact(buf, sizeof buf);
	buf[strcspn(buf, "?")] = '\0';
	return buf;
}

static bool looks_html(const hub_req *r)
{
	size_t i = 0;
	if (strncasecmp(r->ctype, "text/html", 9) == 0)
		return true;
	while (i < r->len && isspace(r->body[i]))
		i++;
	return i < r->len && r->body[i] == '<';
}

static bool is_hex(const char *s, size_t min)
{
	size_t n = strlen(s);
	if (n < min || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

static void fail_model(hub_model *m, gs_err code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail_model(hub_model *m, gs_err code, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int n;

	m->failed = true;
	if (m->res->err.code != GS_OK)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	msg = gs_xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(msg, (size_t)n + 1, fmt, ap);
	va_end(ap);
	/* whole: gs_fail's one pass (redact.h) redacts what servers echo (the
	 * token, the endpoint's password) and escapes their control
	 * characters before the message is cut */
	gs_fail(&m->res->err, code, "%s: %s", m->id, msg);
	memset(msg, 0, (size_t)n);
	free(msg);
}

/* What a failed fetch leaves in the cache, for the end of its message: say
 * "previous cached copy kept" only when there is one. */
static const char *kept(const hub_model *m)
{
	return m->have_cfg_file ? "previous cached copy kept" : "nothing is cached for it";
}

/* The same for a network failure, with what to try when nothing is cached. */
static const char *kept_net(const hub_model *m)
{
	return m->have_cfg_file ? "previous cached copy kept"
	                        : "nothing is cached for it: check the network and HF_ENDPOINT, "
	                          "or use --offline to work from what is cached";
}

/* Percent-encode a revision with no safe characters (refs/pr/1 -> refs%2Fpr%2F1). */
static void quote_rev(char *dst, size_t n, const char *rev)
{
	size_t o = 0;
	for (const char *p = rev; *p && o + 4 < n; p++) {
		unsigned char c = (unsigned char)*p;
		if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~')
			dst[o++] = (char)c;
		else
			o += (size_t)snprintf(dst + o, n - o, "%%%02X", c);
	}
	dst[o] = '\0';
}

static const char *rev_for_files(const hub_model *m)
{
	return m->sha[0] ? m->sha : (m->rev[0] ? m->rev : "main");
}

/* ---- per-model steps --------------------------------------------------- */

static void queue_header(hub_run *R, hub_model *m, int shard, uint64_t want)
{
	char url[2400], rq[300];
	hub_req *r;

	quote_rev(rq, sizeof rq, rev_for_files(m));
	snprintf(url, sizeof url, "%s/%s/resolve/%s/%s", R->endpoint, m->repo, rq, m->shards[shard]);
	r = hub_new_req(m, RQ_HEADER, url, NULL);
	r->shard = shard;
	r->want = want;
	enqueue(R, r);
}

void hub_add_shard(hub_model *m, const char *name)
{
	for (int i = 0; i < m->n_shards; i++)
		if (strcmp(m->shards[i], name) == 0)
			return;
	m->shards = gs_xrealloc(m->shards, sizeof *m->shards * (size_t)(m->n_shards + 1));
	m->shard_size = gs_xrealloc(m->shard_size, sizeof *m->shard_size * (size_t)(m->n_shards + 1));
	m->shards[m->n_shards] = gs_xstrdup(name);
	m->shard_size[m->n_shards] = 0;
	m->n_shards++;
}

static bool shard_name_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 200 || s[0] == '/' || strstr(s, "..") != NULL)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._-/", s[i]))
			return false;
	return n > 12 && strcmp(s + n - 12, ".safetensors") == 0;
}

/* Previous header tally is reusable: same commit, fetched by us. */
static bool reuse_header(hub_model *m)
{
	const cJSON *h = jget(jget(m->old, "params"), "header");
	if (m->old == NULL || !m->old_sha[0] || strcmp(m->old_sha, m->sha) != 0 || !cJSON_IsObject(h))
		return false;
	m->old_header = cJSON_Duplicate(h, 1);
	m->tally_reused = true;
	return true;
}

static void after_api(hub_run *R, hub_model *m)
{
	char url[2400], rq[300], inm[260];

	quote_rev(rq, sizeof rq, rev_for_files(m));
	snprintf(url, sizeof url, "%s/%s/resolve/%s/config.json", R->endpoint, m->repo, rq);
	quote_etag(inm, sizeof inm, m->have_cfg_file ? m->old_cfg_etag : "");
	enqueue(R, hub_new_req(m, RQ_CONFIG, url, inm));
	if (reuse_header(m))
		return;
	if (m->st_single) {
		hub_add_shard(m, "model.safetensors");
		queue_header(R, m, 0, PROBE_BYTES);
	} else if (m->st_sharded) {
		snprintf(url, sizeof url, "%s/%s/resolve/%s/model.safetensors.index.json", R->endpoint,
		         m->repo, rq);
		quote_etag(inm, sizeof inm, m->old_index_etag);
		enqueue(R, hub_new_req(m, RQ_INDEX, url, inm));
	}
}

static void api_from_old(hub_model *m)
{
	const cJSON *o = m->old;
	const char *s;

	if ((s = gs_json_string(jget(o, "sha"))) != NULL)
		snprintf(m->sha, sizeof m->sha, "%s", s);
	if ((s = gs_json_string(jget(o, "canonical_id"))) != NULL)
		snprintf(m->canonical, sizeof m->canonical, "%s", s);
	m->gated = cJSON_Duplicate(jget(o, "gated"), 1);
	m->is_private = cJSON_IsTrue(jget(o, "private"));
	m->hub_st = cJSON_Duplicate(jget(jget(o, "params"), "hub_safetensors"), 1);
	if (m->hub_st != NULL)
		cJSON_DeleteItemFromObjectCaseSensitive(m->hub_st, "source");
	m->hub_total = gs_json_u64(jget(m->hub_st, "total"), 0);
	m->api_quant = cJSON_Duplicate(jget(jget(o, "quantization"), "api_quantization_config"), 1);
	s = gs_json_string(jget(o, "safetensors_layout"));
	m->st_single = s != NULL && strcmp(s, "single") == 0;
	m->st_sharded = s != NULL && strcmp(s, "sharded") == 0;
}

void hub_on_api(hub_run *R, hub_model *m, hub_req *r)
{
	cJSON *root, *sib, *it, *st, *cfg;
	const char *s;

	if (r->status == 304) {
		m->api_304 = true;
		snprintf(m->api_etag, sizeof m->api_etag, "%s", m->old_api_etag);
		api_from_old(m);
		after_api(R, m);
		return;
	}
	if (looks_html(r)) {
		fail_model(m, GS_ENET, "%s: got an HTML page instead of JSON (a proxy or mirror error "
		           "page?); %s", short_url(r), kept_net(m));
		return;
	}
	root = cJSON_ParseWithLength((const char *)r->body, r->len);
	if (root == NULL || !cJSON_IsObject(root)) {
		cJSON_Delete(root);
		fail_model(m, GS_ENET, "%s: model info is not a valid JSON object (%zu bytes, truncated "
		           "or malformed); %s", short_url(r), r->len, kept_net(m));
		return;
	}
	s = gs_json_string(jget(root, "sha"));
	if (s == NULL || !is_hex(s, 7)) {
		cJSON_Delete(root);
		fail_model(m, GS_ENET, "%s: model info has no commit \"sha\"; %s", short_url(r),
		           kept_net(m));
		return;
	}
	snprintf(m->sha, sizeof m->sha, "%s", s);
	if ((s = gs_json_string(jget(root, "id"))) != NULL && strcmp(s, m->repo) != 0)
		snprintf(m->canonical, sizeof m->canonical, "%s", s);
	snprintf(m->api_etag, sizeof m->api_etag, "%s", r->etag); /* raw, echoed in If-None-Match */
	m->gated = cJSON_Duplicate(jget(root, "gated"), 1);
	m->is_private = cJSON_IsTrue(jget(root, "private"));
	st = jget(root, "safetensors");
	if (cJSON_IsObject(st)) {
		m->hub_st = cJSON_CreateObject();
		cJSON_AddItemToObject(m->hub_st, "parameters",
		                      cJSON_Duplicate(jget(st, "parameters"), 1));
		m->hub_total = gs_json_u64(jget(st, "total"), 0);
		if (m->hub_total == 0) {
			cJSON_ArrayForEach(it, jget(st, "parameters"))
				m->hub_total += gs_json_u64(it, 0);
		}
		cJSON_AddNumberToObject(m->hub_st, "total", (double)m->hub_total);
	}
	cfg = jget(root, "config");
	if (cJSON_IsObject(jget(cfg, "quantization_config")))
		m->api_quant = cJSON_Duplicate(jget(cfg, "quantization_config"), 1);
	sib = jget(root, "siblings");
	cJSON_ArrayForEach(it, sib) {
		s = gs_json_string(jget(it, "rfilename"));
		if (s == NULL)
			continue;
		if (strcmp(s, "model.safetensors") == 0)
			m->st_single = true;
		else if (strcmp(s, "model.safetensors.index.json") == 0)
			m->st_sharded = true;
	}
	if (m->st_single)
		m->st_sharded = false;
	cJSON_Delete(root);
	after_api(R, m);
}

void hub_on_config(hub_model *m, hub_req *r)
{
	cJSON *root;

	if (r->status == 304) {
		if (!m->have_cfg_file) {
			fail_model(m, GS_ENET, "%s: 304 Not Modified for a file not in the cache", short_url(r));
			return;
		}
		const char *b = gs_json_string(jget(jget(jget(m->old, "files"), "config.json"), "blob"));
		m->cfg_304 = true;
		snprintf(m->cfg_etag, sizeof m->cfg_etag, "%s", m->old_cfg_etag);
		snprintf(m->cfg_blob, sizeof m->cfg_blob, "%s", b ? b : "");
		return;
	}
	if (looks_html(r)) {
		fail_model(m, GS_ENET, "%s: got an HTML page instead of config.json (a proxy or mirror "
		           "error page?); %s", short_url(r), kept_net(m));
		return;
	}
	root = cJSON_ParseWithLength((const char *)r->body, r->len);
	if (root == NULL || !cJSON_IsObject(root)) {
		cJSON_Delete(root);
		fail_model(m, GS_ECONFIG, "%s: config.json is not a valid JSON object (%zu bytes, "
		           "truncated or malformed); %s", short_url(r), r->len, kept(m));
		return;
	}
	cJSON_Delete(root);
	m->cfg = r->body;
	m->cfg_len = r->len;
	r->body = NULL;
	snprintf(m->cfg_etag, sizeof m->cfg_etag, "%s", r->etag);
	norm_etag(m->cfg_blob, sizeof m->cfg_blob, r->linked_etag[0] ? r->linked_etag : r->etag);
	if (!m->sha[0] && is_hex(r->repo_commit, 40))
		snprintf(m->sha, sizeof m->sha, "%.40s", r->repo_commit);
}

void hub_on_index(hub_run *R, hub_model *m, hub_req *r)
{
	cJSON *root, *it;
	const cJSON *st;

	if (r->status == 304) {
		m->index_304 = true;
		snprintf(m->index_etag, sizeof m->index_etag, "%s", m->old_index_etag);
		st = jget(m->old, "safetensors_files");
		cJSON_ArrayForEach(it, st)
			if (cJSON_IsString(it) && shard_name_ok(it->valuestring))
				hub_add_shard(m, it->valuestring);
		if (m->n_shards == 0) {
			fail_model(m, GS_ENET, "%s: 304 Not Modified but no shard list is cached", short_url(r));
			return;
		}
	} else {
		if (looks_html(r)) {
			fail_model(m, GS_ENET, "%s: got an HTML page instead of JSON; %s", short_url(r),
			           kept_net(m));
			return;
		}
		root = cJSON_ParseWithLength((const char *)r->body, r->len);
		if (root == NULL || !cJSON_IsObject(jget(root, "weight_map"))) {
			cJSON_Delete(root);
			fail_model(m, GS_ENET, "%s: not a safetensors index (no \"weight_map\" object; "
			           "truncated or malformed); %s", short_url(r), kept_net(m));
			return;
		}
		cJSON_ArrayForEach(it, jget(root, "weight_map")) {
			if (!cJSON_IsString(it) || !shard_name_ok(it->valuestring)) {
				fail_model(m, GS_ENET, "%s: weight_map entry \"%.100s\" is not a safetensors "
				           "file name", short_url(r), it->string ? it->string : "");
				cJSON_Delete(root);
				return;
			}
			hub_add_shard(m, it->valuestring);
			if (m->n_shards > MAX_SHARDS) {
				cJSON_Delete(root);
				fail_model(m, GS_ENET, "%s: more than %d shards", short_url(r), MAX_SHARDS);
				return;
			}
		}
		cJSON_Delete(root);
		snprintf(m->index_etag, sizeof m->index_etag, "%s", r->etag);
	}
	for (int i = 0; i < m->n_shards; i++)
		queue_header(R, m, i, PROBE_BYTES);
}

/* A safetensors header the Hub served is broken: the remote's fault, not
 * a local input's, so GS_ENET (exit 6) naming the repository (fail_model's
 * prefix) and the file (e's message). */
static void bad_remote_header(hub_model *m, const gs_error *e)
{
	fail_model(m, GS_ENET, "the Hub served a bad safetensors header: %s; %s", e->msg, kept(m));
}

void hub_on_header_done(hub_run *R, hub_model *m, hub_req *r)
{
	uint64_t hlen;
	const char *name = m->shards[r->shard];
	char where[600];
	gs_error e = {0};

	snprintf(where, sizeof where, "%.200s (%.390s)", name, short_url(r));
	if (r->status != 206 && r->status != 200) {
		fail_model(m, GS_ENET, "%s: unexpected HTTP %ld for a range request", where, r->status);
		return;
	}
	if (gs_st_header_len(where, r->body, r->len, &hlen, &e) != GS_OK) {
		bad_remote_header(m, &e);
		return;
	}
	if (r->crange_total != 0)
		m->shard_size[r->shard] = r->crange_total;
	if (hlen + 8 > r->len && r->len >= r->want && r->want == PROBE_BYTES &&
	    (m->shard_size[r->shard] == 0 || hlen + 8 <= m->shard_size[r->shard])) {
		/* header longer than the probe: ask for exactly 8 + N bytes */
		queue_header(R, m, r->shard, hlen + 8);
		return;
	}
	if (gs_st_parse(where, r->body, r->len, m->shard_size[r->shard], &m->tally, &e) != GS_OK)
		bad_remote_header(m, &e);
}

/* Map an HTTP error response to an error code and message. */
void hub_http_error(hub_run *R, hub_model *m, hub_req *r)
{
	const char *target = r->kind == RQ_API ? "model info" : kind_name[r->kind];
	bool gated = strcasecmp(r->err_code, "GatedRepo") == 0;
	bool token = R->auth[0] != '\0';

	if (gated || (r->status == 403 && strstr(r->err_msg, "gated") != NULL)) {
		char extra[160] = "";
		if (m->hub_total)
			snprintf(extra, sizeof extra, " (the Hub reports %llu stored parameters for it)",
			         (unsigned long long)m->hub_total);
		fail_model(m, GS_EGATED,
		           "gated repository: access must be requested on https://huggingface.co/%s "
		           "and a token set (HF_TOKEN or the token file); %s%s",
		           m->repo,
		           token ? "the token sent is not (yet) approved for it"
		                 : "no token was sent",
		           extra);
	} else if (r->status == 404 && (strcasecmp(r->err_code, "EntryNotFound") == 0)) {
		fail_model(m, GS_ENOTFOUND, "%s: file not found in the repository (%s)", short_url(r),
		           target);
	} else if (r->status == 404 && strcasecmp(r->err_code, "RevisionNotFound") == 0) {
		fail_model(m, GS_ENOTFOUND, "revision \"%s\" not found", m->rev[0] ? m->rev : "main");
	} else if (r->status == 404) {
		fail_model(m, GS_ENOTFOUND, "repository not found on %s (HTTP 404%s%s)%s", R->endpoint_shown,
		           r->err_code[0] ? ", " : "", r->err_code,
		           token ? "; if it is private, the token has no access to it" : "");
	} else if (r->status == 401 && strstr(r->err_msg, "Invalid credentials") != NULL) {
		fail_model(m, GS_EAUTH, "the Hub refused the token (invalid credentials); check "
		           "HF_TOKEN or the token file");
	} else if (r->status == 401) {
		fail_model(m, GS_EAUTH, "repository is private (or does not exist): HTTP 401 %s; %s",
		           token ? "with the token sent" : "without a token",
		           token ? "the token cannot read it"
		                 : "set HF_TOKEN or the token file if you have access");
	} else if (r->status == 403) {
		fail_model(m, GS_EAUTH, "access refused (HTTP 403%s%s)", r->err_msg[0] ? ": " : "",
		           r->err_msg);
	} else {
		fail_model(m, GS_ENET, "%s: HTTP %ld%s%s", short_url(r), r->status, r->err_msg[0] ? ": " : "",
		           r->err_msg);
	}
}

static bool past_deadline(const hub_run *R)
{
	return R->deadline > 0 && gs_mono_s() >= R->deadline;
}

/* The run's deadline came before r was done: m fails, its entry kept. */
static void fail_deadline(hub_run *R, hub_model *m, const hub_req *r)
{
	fail_model(m, GS_ENET, "the fetch stopped at its deadline of %g s (--deadline) before the %s "
	           "(%s) was fetched; %s", R->deadline_s, kind_name[r->kind], short_url(r),
	           kept_net(m));
}

/* The host part of a URL, for messages (n bytes; "?" when there is none). */
static void url_host(const char *url, char *host, size_t n)
{
	const char *a = url != NULL ? strstr(url, "://") : NULL;
	size_t l;

	if (a == NULL) {
		snprintf(host, n, "?");
		return;
	}
	a += 3;
	/* the host follows the last '@' (RFC 3986; a password may hold '/',
	 * '?' or '#'), and never shows the credentials before it */
	if (strrchr(a, '@') != NULL)
		a = strrchr(a, '@') + 1;
	l = strcspn(a, "/?#");
	snprintf(host, n, "%.*s", (int)l, a);
}

static bool retryable(CURLcode cc, long status)
{
	switch (cc) {
	case CURLE_OK:
		return status == 408 || status == 429 || status == 500 || status == 502 ||
		       status == 503 || status == 504;
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_PARTIAL_FILE:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return true;
	default:
		return false;
	}
}

/* The host could not be reached at all: no network, or a wrong HF_ENDPOINT. */
static bool conn_level(CURLcode cc)
{
	return cc == CURLE_COULDNT_RESOLVE_HOST || cc == CURLE_COULDNT_RESOLVE_PROXY ||
	       cc == CURLE_COULDNT_CONNECT;
}

static void finish_model(hub_run *R, hub_model *m);

/* A request completed (cc = libcurl result). */
static void req_done(hub_run *R, hub_req *r, CURLcode cc)
{
	hub_model *m = r->m;
	char why[400];
	int limit = R->retries;

	curl_multi_remove_handle(R->multi, r->h);
	R->active--;
	if (r->status == 304)
		m->res->not_modified++;
	if (cc == CURLE_WRITE_ERROR && r->got_enough)
		cc = CURLE_OK;
	if (conn_level(cc)) {
		/* fail fast: one short retry, none once a request has used it up */
		limit = R->unreachable ? 0 : R->retries < CONN_RETRIES ? R->retries : CONN_RETRIES;
		if (r->attempt > limit)
			R->unreachable = true;
	}
	if (!m->failed && cc == CURLE_OPERATION_TIMEDOUT && r->deadline_capped)
		fail_deadline(R, m, r);
	if (!m->failed && retryable(cc, r->status) && r->attempt <= limit) {
		double wait, cap = R->max_wait;
		const char *basis;
		if (conn_level(cc)) {
			wait = CONN_RETRY_WAIT * (0.5 + 0.5 * (double)rand() / RAND_MAX);
			basis = "host unreachable: one short retry";
		} else if (cc == CURLE_OK && r->status == 429 && r->has_rl && r->rl_r == 0) {
			wait = r->rl_t + (double)rand() / RAND_MAX * 0.25;
			basis = "RateLimit reset time";
		} else if (r->retry_after >= 0) {
			wait = r->retry_after;
			basis = "Retry-After";
		} else {
			wait = ldexp(1.0, r->attempt - 1) * (0.5 + 0.5 * (double)rand() / RAND_MAX);
			basis = "exponential backoff with jitter";
		}
		if (wait > cap)
			wait = cap;
		if (R->deadline > 0 && gs_mono_s() + wait >= R->deadline) {
			fail_deadline(R, m, r); /* the retry would start past the deadline */
		} else {
			if (cc == CURLE_OK)
				snprintf(why, sizeof why, "HTTP %ld", r->status);
			else
				snprintf(why, sizeof why, "%s", curl_easy_strerror(cc));
			fprintf(stderr, "gpusizer: %s: %s: %s; retry %d/%d in %.2f s (%s%s)\n", m->id,
			        kind_name[r->kind], why, r->attempt, limit, wait, basis,
			        wait == cap ? ", capped by GPUSIZER_MAX_RETRY_WAIT" : "");
			r->not_before = gs_mono_s() + wait;
			enqueue(R, r);
			return;
		}
	}
	if (!m->failed) {
		if (cc != CURLE_OK) {
			char host[300];
			const char *eff = NULL;
			curl_easy_getinfo(r->h, CURLINFO_EFFECTIVE_URL, &eff);
			url_host(eff != NULL ? eff : r->url, host, sizeof host);
			if (cc == CURLE_OUT_OF_MEMORY)
				/* what libcurl 7.x returns for a header line over
				 * CURL_MAX_HTTP_HEADER (newer ones: CURLE_TOO_LARGE) */
				fail_model(m, GS_ENET, "%s: the response from %s has a header over libcurl's "
				           "limit (100 KB for one header line, 300 KB for all; or host memory "
				           "ran out): a broken server or proxy; %s", short_url(r), host,
				           kept_net(m));
			else if (r->too_big || cc == CURLE_FILESIZE_EXCEEDED)
				fail_model(m, GS_ENET, "%s: response larger than the %zu-byte limit; %s",
				           short_url(r), r->max_body, kept_net(m));
			else if (cc == CURLE_TOO_MANY_REDIRECTS)
				fail_model(m, GS_ENET, "%s: more than %d redirects", short_url(r), MAX_REDIRS);
			else
				fail_model(m, GS_ENET, "%s: %s%s (after %d attempt%s); %s", short_url(r),
				           curl_easy_strerror(cc),
				           cc == CURLE_OPERATION_TIMEDOUT ? " (GPUSIZER_TIMEOUT)" : "",
				           r->attempt, r->attempt == 1 ? "" : "s", kept_net(m));
		} else if (r->status == 304 && r->inm[0] == '\0') {
			fail_model(m, GS_ENET, "%s: 304 without a conditional request", short_url(r));
		} else if (r->status != 200 && r->status != 206 && r->status != 304) {
			hub_http_error(R, m, r);
		} else {
			switch (r->kind) {
			case RQ_API:
				hub_on_api(R, m, r);
				break;
			case RQ_CONFIG:
				hub_on_config(m, r);
				break;
			case RQ_INDEX:
				hub_on_index(R, m, r);
				break;
			case RQ_HEADER:
				hub_on_header_done(R, m, r);
				break;
			}
		}
	}
	m->pending--;
	hub_free_req(r);
	if (m->pending == 0)
		finish_model(R, m);
}

/* ---- writing the cache ------------------------------------------------- */

static int cmp_count(const void *a, const void *b)
{
	return strcmp(((const gs_st_count *)a)->name, ((const gs_st_count *)b)->name);
}

static cJSON *count_obj(gs_st_count *rows, int n)
{
	cJSON *o = cJSON_CreateObject();
	qsort(rows, (size_t)n, sizeof *rows, cmp_count);
	for (int i = 0; i < n; i++)
		cJSON_AddNumberToObject(o, rows[i].name, (double)rows[i].params);
	return o;
}

static void now_iso(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void add_diff(cJSON *diffs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_diff(cJSON *diffs, const char *fmt, ...)
{
	char buf[700];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	cJSON_AddItemToArray(diffs, cJSON_CreateString(buf));
}

static bool head_like(const char *mod)
{
	static const char *const pre[] = {"cls.", "cls", "lm_head", "score", "classifier",
	                                  "qa_outputs", "pooler", "embed_out", "output"};
	for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
		if (strncmp(mod, pre[i], strlen(pre[i])) == 0)
			return true;
	return strstr(mod, ".lm_head") != NULL || strstr(mod, "predictions") != NULL;
}

/* The largest gap between the config's tally and the checkpoint's stored
 * parameters that is not an error (issue 30): 0.5%. */
#define TALLY_TOLERANCE 0.005

/* Where the headers give the checkpoint's parameters, the config's tally
 * must agree within TALLY_TOLERANCE, else the config does not describe
 * the weights and the model is not cached (GS_ECONFIG). Compared: the
 * header total less the non-parameter buffers and the modules the built
 * model leaves out (BERT's cls pre-training heads, next-token mtp.*
 * modules). Not compared where the headers do not count parameters:
 * quantized storage (packed elements and scales), a config whose
 * num_nextn_predict_layers stores extra layers among model.layers.* that
 * transformers does not build (their size is not in the per-module
 * tally), or a reused tally (no per-module counts). */
static void tally_agrees(hub_model *m, const char *cfg, size_t cfg_len, const gs_arch *a, uint64_t header_total)
{
	cJSON *root = cJSON_ParseWithLength(cfg, cfg_len);
	const cJSON *nx = jget(root, "num_nextn_predict_layers");
	bool mtp_layers = cJSON_IsNumber(nx) && nx->valuedouble > 0;
	double stored = (double)header_total - (double)m->tally.buffers, diff;

	cJSON_Delete(root);
	if (m->tally_reused || a->quant != GS_QUANT_NONE || m->tally.quant_hint[0] || mtp_layers ||
	    a->params_total == 0)
		return;
	for (int i = 0; i < m->tally.n_modules; i++) {
		const char *n = m->tally.module[i].name;
		if (strncmp(n, "mtp.", 4) == 0 || strncmp(n, "cls.", 4) == 0 || strstr(n, ".cls.") != NULL)
			stored -= (double)m->tally.module[i].params;
	}
	diff = (stored - (double)a->params_total) / (double)a->params_total;
	if (fabs(diff) > TALLY_TOLERANCE)
		fail_model(m, GS_ECONFIG,
		           "%s: config.json's tally of model_type \"%s\" (%llu parameters) disagrees with the "
		           "safetensors headers (%.0f parameters, buffers and unbuilt heads aside) by %+.2f%%, over "
		           "0.5%%: the config does not describe these weights, so the model is not sized",
		           m->repo, a->model_type, (unsigned long long)a->params_total, stored, diff * 100);
}

/* Cross-check the stored-tensor tally against the config-derived count
 * (src/config.c) and say where any difference comes from. */
static void cross_check(hub_model *m, const char *cfg, size_t cfg_len, uint64_t header_total,
                        cJSON *params, cJSON *diffs, uint64_t *config_total)
{
	static gs_arch a;
	gs_error e = {0};
	cJSON *o = cJSON_AddObjectToObject(params, "config");
	char path[300];
	int64_t d;

	*config_total = 0;
	snprintf(path, sizeof path, "%s config.json", m->repo);
	if (gs_config_parse(cfg, cfg_len, path, &a, &e) != GS_OK) {
		cJSON_AddStringToObject(o, "error", e.msg);
		add_diff(diffs, "the config-derived count is not available: %s", e.msg);
		return;
	}
	*config_total = a.params_total;
	cJSON_AddNumberToObject(o, "total", (double)a.params_total);
	if (a.params_active != a.params_total)
		cJSON_AddNumberToObject(o, "active", (double)a.params_active);
	snprintf(path, sizeof path, "config-derived tally of model_type \"%s\" (src/config.c)%s",
	         a.model_type, a.generic ? ", sized as a generic decoder" : "");
	cJSON_AddStringToObject(o, "source", path);
	if (header_total == 0)
		return;
	d = (int64_t)(header_total - a.params_total);
	if (d == 0) {
		add_diff(diffs, "safetensors headers and the config-derived tally agree exactly "
		         "(%llu)", (unsigned long long)header_total);
		return;
	}
	if (m->tally_reused) {
		add_diff(diffs, "header total %llu - config-derived %llu = %lld (tally reused from the "
		         "previous fetch at the same commit)", (unsigned long long)header_total,
		         (unsigned long long)a.params_total, (long long)d);
		return;
	}
	tally_agrees(m, cfg, cfg_len, &a, header_total);
	{
		char heads[400] = "";
		int64_t rest = d - (int64_t)m->tally.buffers;
		for (int i = 0; i < m->tally.n_modules; i++)
			if (head_like(m->tally.module[i].name)) {
				size_t l = strlen(heads);
				if (l + 100 < sizeof heads)
					snprintf(heads + l, sizeof heads - l, "%s%s %llu", l ? ", " : "",
					         m->tally.module[i].name,
					         (unsigned long long)m->tally.module[i].params);
			}
		add_diff(diffs, "header total %llu - config-derived %llu = %lld: buffers %llu, "
		         "remaining %lld%s%s%s", (unsigned long long)header_total,
		         (unsigned long long)a.params_total, (long long)d,
		         (unsigned long long)m->tally.buffers, (long long)rest,
		         rest == 0 ? " (fully explained by the buffers)"
		         : a.quant != GS_QUANT_NONE || m->tally.quant_hint[0]
		                 ? " (quantized storage: packed elements and scales differ from logical "
		                   "parameters)"
		         : rest < 0 ? " (the checkpoint stores fewer elements than the config implies: "
		                      "weights tied or omitted in the file)"
		                    : " (tensors the config-derived model leaves out, e.g. task heads)",
		         heads[0] ? "; head-like modules in the headers: " : "", heads);
	}
}

/* What the stages of one hub_build_meta call share. */
typedef struct meta_ctx {
	hub_run *R;
	hub_model *m;
	cJSON *meta;   /* the document being built */
	cJSON *params; /* its "params" object */
	cJSON *diffs;  /* "differences", added to meta last */
	uint64_t header_total, config_total;
	const char *cfg; /* config.json's bytes (borrowed) */
	size_t cfg_len;
} meta_ctx;

/* The model's identity and provenance: id, revision, commit, endpoint,
 * source, fetch time, gated and private. */
static void meta_identity(meta_ctx *c)
{
	hub_model *m = c->m;
	char ts[32], line[1400];

	now_iso(ts, sizeof ts);
	cJSON_AddStringToObject(c->meta, "id", m->repo);
	if (m->canonical[0])
		cJSON_AddStringToObject(c->meta, "canonical_id", m->canonical);
	cJSON_AddStringToObject(c->meta, "revision", m->rev[0] ? m->rev : "main");
	cJSON_AddStringToObject(c->meta, "sha", m->sha);
	cJSON_AddStringToObject(c->meta, "endpoint", c->R->endpoint_shown);
	snprintf(line, sizeof line, "fetched from %s (model info, config.json%s) at commit %s",
	         c->R->endpoint_shown, m->n_shards || m->tally_reused ? ", safetensors headers" : "", m->sha);
	cJSON_AddStringToObject(c->meta, "source", line);
	cJSON_AddStringToObject(c->meta, "fetched_at", ts);
	cJSON_AddItemToObject(c->meta, "gated",
	                      m->gated ? cJSON_Duplicate(m->gated, 1) : cJSON_CreateNull());
	cJSON_AddBoolToObject(c->meta, "private", m->is_private);
}

/* The files fetched with their ETags, the safetensors layout and file list. */
static void meta_files(meta_ctx *c)
{
	hub_model *m = c->m;
	cJSON *files, *o;

	files = cJSON_AddObjectToObject(c->meta, "files");
	o = cJSON_AddObjectToObject(files, "api");
	cJSON_AddStringToObject(o, "etag", m->api_etag);
	o = cJSON_AddObjectToObject(files, "config.json");
	cJSON_AddStringToObject(o, "etag", m->cfg_etag);
	if (m->cfg_blob[0])
		cJSON_AddStringToObject(o, "blob", m->cfg_blob);
	if (c->cfg != NULL) {
		char digest[17];
		gs_model_config_digest(c->cfg, c->cfg_len, digest);
		cJSON_AddNumberToObject(o, "bytes", (double)c->cfg_len);
		cJSON_AddStringToObject(o, "fnv1a64", digest);
	}
	if (m->st_sharded) {
		o = cJSON_AddObjectToObject(files, "model.safetensors.index.json");
		cJSON_AddStringToObject(o, "etag", m->index_etag);
	}
	cJSON_AddStringToObject(c->meta, "safetensors_layout",
	                        m->st_single ? "single" : m->st_sharded ? "sharded" : "none");
	o = cJSON_AddArrayToObject(c->meta, "safetensors_files");
	if (m->tally_reused) {
		cJSON *it;
		cJSON_ArrayForEach(it, jget(m->old, "safetensors_files"))
			cJSON_AddItemToArray(o, cJSON_Duplicate(it, 1));
	} else {
		for (int i = 0; i < m->n_shards; i++)
			cJSON_AddItemToArray(o, cJSON_CreateString(m->shards[i]));
	}
}

/* The stored-tensor counts: the Hub's safetensors field and the header
 * tally (new or reused); sets c->header_total. */
static void meta_counts(meta_ctx *c)
{
	hub_model *m = c->m;
	cJSON *o;

	if (m->hub_st != NULL) {
		o = cJSON_Duplicate(m->hub_st, 1);
		cJSON_AddStringToObject(o, "source", "Hub model info (GET /api/models/{id}) "
		                        "safetensors field: stored tensor elements by dtype");
		cJSON_AddItemToObject(c->params, "hub_safetensors", o);
	}
	if (m->tally_reused) {
		cJSON_AddItemToObject(c->params, "header", cJSON_Duplicate(m->old_header, 1));
		c->header_total = gs_json_u64(jget(m->old_header, "total"), 0);
	} else if (m->tally.files > 0) {
		gs_st_tally *t = &m->tally;
		c->header_total = t->total;
		o = cJSON_AddObjectToObject(c->params, "header");
		cJSON_AddNumberToObject(o, "total", (double)t->total);
		cJSON_AddNumberToObject(o, "bytes", (double)t->bytes);
		cJSON_AddNumberToObject(o, "tensors", (double)t->tensors);
		cJSON_AddNumberToObject(o, "files", (double)t->files);
		cJSON_AddItemToObject(o, "by_dtype", count_obj(t->dtype, t->n_dtypes));
		cJSON_AddItemToObject(o, "by_module", count_obj(t->module, t->n_modules));
		cJSON_AddNumberToObject(o, "buffers", (double)t->buffers);
		cJSON_AddNumberToObject(o, "buffer_tensors", (double)t->buffer_tensors);
		if (t->quant_hint[0])
			cJSON_AddStringToObject(o, "quantized_storage", t->quant_hint);
		cJSON_AddStringToObject(o, "source", "safetensors headers read with HTTP Range "
		                        "requests: per-tensor shape products summed");
	}
}

/* "quantization": config.json's quantization_config (qc, may be NULL) first,
 * then what the tensors and the model info show, or null; a quantized
 * checkpoint also gets its difference line. */
static void meta_quantization(meta_ctx *c, const cJSON *qc)
{
	hub_model *m = c->m;
	const char *qmethod = NULL;
	cJSON *q = cJSON_CreateObject();

	if (cJSON_IsObject(qc)) {
		qmethod = gs_json_string(jget(qc, "quant_method"));
		cJSON_AddStringToObject(q, "method", qmethod ? qmethod : "unknown");
		if (cJSON_IsNumber(jget(qc, "bits")))
			cJSON_AddNumberToObject(q, "bits", jget(qc, "bits")->valuedouble);
		else if (cJSON_IsTrue(jget(qc, "load_in_4bit")))
			cJSON_AddNumberToObject(q, "bits", 4);
		else if (cJSON_IsTrue(jget(qc, "load_in_8bit")))
			cJSON_AddNumberToObject(q, "bits", 8);
		cJSON_AddStringToObject(q, "from", "config.json quantization_config");
	}
	if (m->tally.quant_hint[0])
		cJSON_AddStringToObject(q, "tensors", m->tally.quant_hint);
	if (m->api_quant != NULL)
		cJSON_AddItemToObject(q, "api_quantization_config", cJSON_Duplicate(m->api_quant, 1));
	if (cJSON_GetArraySize(q) > 0) {
		cJSON_AddItemToObject(c->meta, "quantization", q);
		add_diff(c->diffs, "quantized checkpoint (%s%s%s): stored element counts are packed "
		         "storage (e.g. 8 4-bit values per int32) plus scales/zero points, not logical "
		         "parameters; size it from the config, not from these counts",
		         qmethod ? qmethod : "", qmethod && m->tally.quant_hint[0] ? "; " : "",
		         m->tally.quant_hint);
	} else {
		cJSON_Delete(q);
		cJSON_AddNullToObject(c->meta, "quantization");
	}
}

/* The remaining difference lines (Hub vs header totals, buffers, the
 * config-derived cross-check, no safetensors, those kept from a reused
 * tally), then "differences" itself; sets c->config_total. */
static void meta_differences(meta_ctx *c, const char *cfg, size_t cfg_len)
{
	hub_model *m = c->m;

	if (m->hub_total && c->header_total && m->hub_total != c->header_total)
		add_diff(c->diffs, "Hub model info total %llu differs from the header tally %llu by "
		         "%lld (the Hub figure may be computed at another commit)",
		         (unsigned long long)m->hub_total, (unsigned long long)c->header_total,
		         (long long)(c->header_total - m->hub_total));
	if (!m->tally_reused && m->tally.buffers)
		add_diff(c->diffs, "%llu stored elements are in %llu non-parameter buffers (e.g. %s: "
		         "causal masks / position ids); they count in the safetensors totals but are "
		         "not parameters", (unsigned long long)m->tally.buffers,
		         (unsigned long long)m->tally.buffer_tensors, m->tally.buffer_example);
	cross_check(m, cfg, cfg_len, c->header_total, c->params, c->diffs, &c->config_total);
	if (!m->st_single && !m->st_sharded)
		add_diff(c->diffs, "no model.safetensors or model.safetensors.index.json in the "
		         "repository: no header tally (pickle-only checkpoints are not read)");
	if (m->tally_reused) {
		cJSON *it;
		cJSON_ArrayForEach(it, jget(m->old, "differences"))
			if (cJSON_IsString(it) && strstr(it->valuestring, "non-parameter buffers"))
				cJSON_AddItemToArray(c->diffs, cJSON_Duplicate(it, 1));
	}
	cJSON_AddItemToObject(c->meta, "differences", c->diffs);
}

/* "param_source": the one line that says where the counts come from. */
static void meta_param_source(meta_ctx *c)
{
	hub_model *m = c->m;
	char line[1400];

	if (c->header_total)
		snprintf(line, sizeof line, "safetensors headers at %.12s: %llu stored elements%s%s",
		         m->sha, (unsigned long long)c->header_total,
		         m->hub_total == c->header_total ? " (equal to the Hub model info total)"
		         : m->hub_total ? " (Hub model info total differs, see differences)" : "",
		         m->tally_reused ? ", tally reused (same commit)" : "");
	else if (m->hub_total)
		snprintf(line, sizeof line, "Hub model info safetensors total at %.12s: %llu stored "
		         "elements (headers not read)", m->sha, (unsigned long long)m->hub_total);
	else
		snprintf(line, sizeof line, "config.json at %.12s only (no safetensors counts)", m->sha);
	if (c->config_total) {
		size_t l = strlen(line);
		snprintf(line + l, sizeof line - l, "; config-derived %llu",
		         (unsigned long long)c->config_total);
	}
	cJSON_AddStringToObject(c->meta, "param_source", line);
}

cJSON *hub_build_meta(hub_run *R, hub_model *m, cJSON *cfg_json, const char *cfg, size_t cfg_len)
{
	meta_ctx c = {.R = R, .m = m, .meta = cJSON_CreateObject(), .cfg = cfg, .cfg_len = cfg_len};

	meta_identity(&c);
	meta_files(&c);
	c.params = cJSON_AddObjectToObject(c.meta, "params");
	c.diffs = cJSON_CreateArray();
	meta_counts(&c);
	meta_quantization(&c, jget(cfg_json, "quantization_config"));
	meta_differences(&c, cfg, cfg_len);
	meta_param_source(&c);
	m->res->params_config = c.config_total;
	return c.meta;
}

/* Write config.json (when changed) then meta.json, each atomically. */
static void write_model(hub_run *R, hub_model *m)
{
	char path[4200];
	char *cfgbuf = NULL, *text;
	cJSON *cfg_json, *meta;
	gs_error e = {0};

	snprintf(path, sizeof path, "%s/config.json", m->dir);
	if (m->cfg_304) {
		size_t len;
		if (gs_read_file(path, BODY_MAX_SMALL, &cfgbuf, &len, &e) != GS_OK) {
			fail_model(m, e.code, "%s", e.msg);
			return;
		}
		cfg_json = cJSON_ParseWithLength(cfgbuf, len);
		meta = hub_build_meta(R, m, cfg_json, cfgbuf, len);
	} else {
		cfg_json = cJSON_ParseWithLength((const char *)m->cfg, m->cfg_len);
		meta = hub_build_meta(R, m, cfg_json, (const char *)m->cfg, m->cfg_len);
	}
	cJSON_Delete(cfg_json);
	free(cfgbuf);
	if (m->failed) { /* the headers refute the config (tally_agrees): nothing cached */
		cJSON_Delete(meta);
		return;
	}
	text = cJSON_Print(meta);
	cJSON_Delete(meta);
	{
		/* what servers sent is stored too: the one redaction rule over all
		 * of it (room for "a@" growing to "***@") */
		size_t room = strlen(text) * 2 + 16;
		text = gs_xrealloc(text, room);
		gs_redact(text, room);
	}
	{
		/* Both files are written and flushed to temporaries first; only
		 * then renamed (config.json, then meta.json), so a full disk or an
		 * I/O error leaves the previous pair as it was. */
		gs_atomic wc, wm;
		size_t tl = strlen(text);
		bool ok = true;
		int err = 0;

		memset(&wc, 0, sizeof wc);
		text = gs_xrealloc(text, tl + 2);
		text[tl] = '\n';
		text[tl + 1] = '\0';
		if (!m->cfg_304 && gs_atomic_open(&wc, path, &e) != GS_OK) {
			free(text);
			fail_model(m, e.code, "%s", e.msg);
			return;
		}
		snprintf(path, sizeof path, "%s/meta.json", m->dir);
		if (gs_atomic_open(&wm, path, &e) != GS_OK) {
			gs_atomic_abort(&wc);
			free(text);
			fail_model(m, e.code, "%s", e.msg);
			return;
		}
		errno = 0;
		if (!m->cfg_304)
			ok = fwrite(m->cfg, 1, m->cfg_len, wc.fp) == m->cfg_len && fflush(wc.fp) == 0 &&
			     fsync(fileno(wc.fp)) == 0;
		if (ok)
			ok = fwrite(text, 1, tl + 1, wm.fp) == tl + 1 && fflush(wm.fp) == 0 &&
			     fsync(fileno(wm.fp)) == 0;
		if (!ok)
			err = errno ? errno : EIO;
		free(text);
		if (!ok) {
			gs_atomic_abort(&wc);
			gs_atomic_abort(&wm);
			fail_model(m, GS_EIO, "%s: write failed: %s (%s)", m->dir, strerror(err), kept(m));
			return;
		}
		if (!m->cfg_304 && gs_atomic_commit(&wc, &e) != GS_OK) {
			gs_atomic_abort(&wm);
			fail_model(m, e.code, "%s", e.msg);
			return;
		}
		/* Killed here, the entry holds the new config.json and the old
		 * meta.json, whose check value no longer matches: readers and the
		 * next fetch see it (entry_consistent in models.c, load_old). */
		(void)gs_fault("fetch-config-renamed"); /* tests: a kill between the renames */
		if (gs_atomic_commit(&wm, &e) != GS_OK)
			fail_model(m, e.code, "%s", e.msg);
	}
}

/* Two counts of the same thing disagree (0 = not known: no disagreement). */
static bool count_differs(uint64_t fetched, uint64_t cached)
{
	return fetched != 0 && cached != 0 && fetched != cached;
}

/*
 * Did this fetch bring nothing new? True when the cache holds config.json
 * and meta.json for the revision asked for (a meta.json without a revision,
 * such as a copied reference, stands for main), the config.json fetched is
 * byte-identical to the cached one, every parameter count both sides know
 * agrees (Hub model info total, safetensors header total, config-derived
 * total, and a copied reference's total where it says it is config-derived)
 * and the safetensors layout is the one meta.json records, if it records
 * one. Volatile fields (sha, ETags, fetched_at) are not compared: when this
 * holds, neither file is rewritten and they keep the values of the fetch
 * that last brought a change (or stay absent in a copied reference).
 * *config_total gets the config-derived count of the cached config.json.
 */
static bool same_as_cached(const hub_model *m, uint64_t header_total, uint64_t *config_total)
{
	static gs_arch a;
	const cJSON *c = m->cached, *p = jget(c, "params"), *ref = jget(p, "reference");
	const char *rev = m->rev[0] ? m->rev : "main", *s;
	const char *layout = m->st_single ? "single" : m->st_sharded ? "sharded" : "none";
	char path[4200];
	char *buf = NULL;
	size_t len = 0;
	bool same;
	gs_error e = {0};

	*config_total = 0;
	if (!cJSON_IsObject(c) || !m->have_cfg_file)
		return false;
	s = gs_json_string(jget(c, "revision"));
	if (strcmp(s != NULL ? s : "main", rev) != 0)
		return false;
	snprintf(path, sizeof path, "%s/config.json", m->dir);
	if (gs_read_file(path, BODY_MAX_SMALL, &buf, &len, &e) != GS_OK)
		return false;
	same = m->cfg_304 || (m->cfg != NULL && m->cfg_len == len && memcmp(m->cfg, buf, len) == 0);
	if (same) {
		snprintf(path, sizeof path, "%s config.json", m->repo);
		if (gs_config_parse(buf, len, path, &a, &e) == GS_OK)
			*config_total = a.params_total;
		if (count_differs(m->hub_total, gs_json_u64(jget(jget(p, "hub_safetensors"), "total"), 0)) ||
		    count_differs(header_total, gs_json_u64(jget(jget(p, "header"), "total"), 0)) ||
		    count_differs(*config_total, gs_json_u64(jget(jget(p, "config"), "total"), 0)) ||
		    (cJSON_IsTrue(jget(ref, "config_derived_matches")) &&
		     count_differs(*config_total, gs_json_u64(jget(ref, "total"), 0))))
			same = false;
		s = gs_json_string(jget(c, "safetensors_layout"));
		if (s != NULL && strcmp(s, layout) != 0)
			same = false;
	}
	free(buf);
	return same;
}

/* A new config.json is stored only when gpusizer can size it, parsed as
 * estimate parses it: else the model fails GS_ECONFIG, its entry kept. */
static void check_sizable(hub_model *m)
{
	static gs_arch a;
	char name[600];
	gs_error e = {0};

	if (m->failed || m->cfg_304 || m->cfg == NULL)
		return;
	snprintf(name, sizeof name, "%s config.json at %.12s", m->repo, m->sha[0] ? m->sha : "?");
	if (gs_config_parse((const char *)m->cfg, m->cfg_len, name, &a, &e) != GS_OK)
		fail_model(m, GS_ECONFIG, "the Hub's config.json cannot be sized by gpusizer, so it "
		           "was not stored: %s; %s", e.msg, kept(m));
}

/* Let go of m's entry: its folder removed again when this run made it and
 * nothing was stored in it, then the lock released. */
static void release_entry(hub_model *m)
{
	if (m->made_dir && m->lock.held)
		rmdir(m->dir); /* fails, as it should, unless empty */
	m->made_dir = false;
	gs_lock_release(&m->lock);
}

static void finish_model(hub_run *R, hub_model *m)
{
	gs_hub_result *res = m->res;
	uint64_t header_total = m->tally_reused ? gs_json_u64(jget(m->old_header, "total"), 0) : m->tally.total;
	uint64_t config_total = 0;

	check_sizable(m);
	if (!m->failed) {
		/* all 304 (ETags from a previous fetch): the cache is current */
		res->unchanged = m->api_304 && m->cfg_304 && (m->tally_reused || (!m->st_single && !m->st_sharded));
		if (res->unchanged)
			config_total = gs_json_u64(jget(jget(jget(m->old, "params"), "config"), "total"), 0);
		else
			res->unchanged = same_as_cached(m, header_total, &config_total);
		if (!res->unchanged)
			write_model(R, m);
	}
	snprintf(res->sha, sizeof res->sha, "%s", m->sha);
	res->params_hub = m->hub_total;
	res->params_header = header_total;
	if (res->unchanged)
		res->params_config = config_total;
	release_entry(m);
	R->done_models++;
	if (R->o->progress)
		fprintf(stderr, "gpusizer: fetch [%d/%d] %s: %s\n", R->done_models, R->n_models, m->id,
		        res->err.code == GS_OK ? (res->unchanged ? "unchanged" : "ok") : "failed");
}

/* ---- the run ----------------------------------------------------------- */

/* Whether m->cached (meta.json) belongs with the config.json beside it:
 * true when it records no check value (a copied reference) or the one of
 * that file. */
static bool pair_consistent(const hub_model *m)
{
	const char *want = gs_json_string(jget(jget(jget(m->cached, "files"), "config.json"), "fnv1a64"));
	char path[4200];
	char *buf = NULL;
	size_t len = 0;
	bool ok;

	if (want == NULL)
		return true;
	snprintf(path, sizeof path, "%s/config.json", m->dir);
	ok = gs_read_file(path, BODY_MAX_SMALL, &buf, &len, NULL) == GS_OK &&
	     gs_model_config_matches(want, buf, len);
	free(buf);
	return ok;
}

/* Remove the temporaries (gs_atomic's "<file>.tmp.<pid>.XXXXXX") a killed
 * run left in m's entry; called with the entry locked, so no live run is
 * writing them. */
static void remove_orphans(const hub_model *m)
{
	DIR *d = opendir(m->dir);
	struct dirent *de;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		char path[4400];
		struct stat st;
		if (strncmp(de->d_name, "config.json.tmp.", 16) != 0 &&
		    strncmp(de->d_name, "meta.json.tmp.", 14) != 0)
			continue;
		/* a regular file of this user's only (never another's, never a link's target) */
		if (snprintf(path, sizeof path, "%s/%s", m->dir, de->d_name) < (int)sizeof path &&
		    lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
			unlink(path);
	}
	closedir(d);
}

/* Lock m's entry folder (created when missing, noted in m->made_dir): the
 * lock is on the folder itself, so after the wait it checks that the
 * folder it holds is still the one at m->dir (a run that made it may have
 * removed it again), else locks the new one. Then removes orphans. */
static gs_err lock_entry(const char *models_dir, hub_model *m, gs_error *e)
{
	gs_err rc = gs_mkdirs(models_dir, e);

	for (int tries = 0; rc == GS_OK && tries < 8; tries++) {
		struct stat held, now;
		if (mkdir(m->dir, 0777) == 0)
			m->made_dir = true;
		else if (errno != EEXIST)
			return gs_fail(e, GS_EIO, "%s: cannot create the cache entry: %s", m->dir,
			               strerror(errno));
		rc = gs_lock_acquire(&m->lock, m->dir, gs_lock_wait_default(), e);
		if (rc != GS_OK)
			return rc;
		if (fstat(m->lock.fd, &held) == 0 && stat(m->dir, &now) == 0 &&
		    held.st_dev == now.st_dev && held.st_ino == now.st_ino) {
			remove_orphans(m);
			return GS_OK;
		}
		gs_lock_release(&m->lock);
	}
	if (rc != GS_OK)
		return rc;
	return gs_fail(e, GS_EBUSY, "%s: the cache entry kept being replaced while waiting for its "
	               "lock", m->dir);
}

static void load_old(hub_model *m)
{
	char path[4200];
	char *buf = NULL;
	const char *s;

	snprintf(path, sizeof path, "%s/config.json", m->dir);
	m->have_cfg_file = gs_is_file(path);
	snprintf(path, sizeof path, "%s/meta.json", m->dir);
	if (gs_read_file(path, 1 << 24, &buf, NULL, NULL) != GS_OK)
		return;
	m->cached = cJSON_Parse(buf);
	free(buf);
	if (!cJSON_IsObject(m->cached) || !pair_consistent(m)) {
		/* no usable meta.json, or one left from an update that was killed
		 * before it renamed meta.json: fetched afresh, no ETags reused */
		cJSON_Delete(m->cached);
		m->cached = NULL;
		return;
	}
	/* not written by fetch (e.g. a copied reference): compared with what is
	 * fetched (same_as_cached), but no ETags or tally to reuse */
	if (!cJSON_IsObject(jget(m->cached, "files")))
		return;
	m->old = m->cached;
	if ((s = gs_json_string(jget(m->old, "sha"))) != NULL)
		snprintf(m->old_sha, sizeof m->old_sha, "%s", s);
	if ((s = gs_json_string(jget(jget(jget(m->old, "files"), "api"), "etag"))) != NULL)
		snprintf(m->old_api_etag, sizeof m->old_api_etag, "%s", s);
	if ((s = gs_json_string(jget(jget(jget(m->old, "files"), "config.json"), "etag"))) != NULL)
		snprintf(m->old_cfg_etag, sizeof m->old_cfg_etag, "%s", s);
	if ((s = gs_json_string(jget(jget(jget(m->old, "files"), "model.safetensors.index.json"), "etag"))) != NULL)
		snprintf(m->old_index_etag, sizeof m->old_index_etag, "%s", s);
	/* a different requested revision: start afresh */
	s = gs_json_string(jget(m->old, "revision"));
	if (s == NULL || strcmp(s, m->rev[0] ? m->rev : "main") != 0)
		m->old_api_etag[0] = '\0';
}

void hub_free_model(hub_model *m)
{
	gs_lock_release(&m->lock);
	cJSON_Delete(m->cached); /* m->old is the same tree or NULL */
	cJSON_Delete(m->gated);
	cJSON_Delete(m->hub_st);
	cJSON_Delete(m->api_quant);
	cJSON_Delete(m->old_header);
	free(m->cfg);
	for (int i = 0; i < m->n_shards; i++)
		free(m->shards[i]);
	free(m->shards);
	free(m->shard_size);
}

/* Offline: no request; each model is GS_EOFFLINE unless o->cached finds it. */
static gs_err offline_run(const gs_hub_opts *o, hub_model *ms, int n)
{
	for (int i = 0; i < n; i++) {
		gs_error e = {0};
		if (ms[i].skip)
			continue;
		gs_err rc = o->cached != NULL ? o->cached(o->models_dir, ms[i].id, &e)
		                              : gs_fail(&e, GS_ENOTFOUND, "no cache to look in");
		if (rc != GS_OK)
			gs_fail(&ms[i].res->err, GS_EOFFLINE, "%s: offline and not cached (%s); run "
			        "`gpusizer fetch %s` while online", ms[i].id, e.msg, ms[i].id);
	}
	return GS_OK;
}

/* Validate every id and fill ms[] (id, repo, revision, slug, cache entry
 * and its folder, results slot) before any network use; a later id that
 * names an earlier one's entry (the same repository at the same revision)
 * is marked skip. */
static gs_err init_models(const gs_hub_opts *o, const char *const *ids, int n,
                          gs_hub_result *res, hub_model *ms, gs_error *e)
{
	char mdir_buf[4096];
	const char *mdir = o->models_dir;

	if (mdir == NULL) {
		gs_models_dir_default(mdir_buf, sizeof mdir_buf);
		mdir = mdir_buf;
	}
	for (int i = 0; i < n; i++) {
		hub_model *m = &ms[i];
		gs_err rc;
		m->res = &res[i];
		snprintf(m->id, sizeof m->id, "%s", ids[i]);
		rc = gs_model_parse_id(ids[i], m->repo, sizeof m->repo, m->rev, sizeof m->rev, &res[i].err);
		if (rc == GS_OK)
			rc = gs_model_slug(ids[i], m->slug, sizeof m->slug, &res[i].err);
		if (rc == GS_OK)
			rc = gs_model_entry(ids[i], o->revision, m->entry, sizeof m->entry, &res[i].err);
		if (rc != GS_OK)
			return gs_fail(e, rc, "%s", res[i].err.msg);
		if (!m->rev[0] && o->revision != NULL && o->revision[0] != '\0')
			snprintf(m->rev, sizeof m->rev, "%s", o->revision);
		if (snprintf(m->dir, sizeof m->dir, "%s/%s", mdir, m->entry) >= (int)sizeof m->dir)
			return gs_fail(e, GS_EUSAGE, "%s: models dir path too long", mdir);
		m->lock.fd = -1;
		for (int j = 0; j < i; j++)
			if (!ms[j].skip && strcmp(ms[j].entry, m->entry) == 0) {
				m->skip = true; /* the same cache entry: fetched once */
				break;
			}
	}
	return GS_OK;
}

/* Credentials in the endpoint ("http://user:pass@host"): libcurl sends them
 * (as HTTP Basic auth), and they are secrets like the token: the password
 * and "user:pass" are registered for redaction. */
static void endpoint_secrets(const char *ep)
{
	const char *a = strstr(ep, "://"), *end, *at = NULL, *colon;
	char ui[1024];

	if (a == NULL)
		return;
	a += 3;
	/* the userinfo ends at the last '@' before the host (RFC 3986), and
	 * a password may hold an unencoded '/', '?' or '#': the last '@' of
	 * the endpoint counts, not the first '/' */
	end = a + strlen(a);
	for (const char *p = a; p < end; p++)
		if (*p == '@')
			at = p;
	if (at == NULL || (size_t)(at - a) >= sizeof ui)
		return;
	memcpy(ui, a, (size_t)(at - a));
	ui[at - a] = '\0';
	gs_redact_secret(ui);
	colon = strchr(ui, ':');
	if (colon != NULL)
		gs_redact_secret(colon + 1);
	memset(ui, 0, sizeof ui);
}

/* Set up the run: endpoint, limits from the environment, the token, the
 * retry jitter's seed, libcurl (once per process) and the multi handle. */
static gs_err init_run(hub_run *R, const gs_hub_opts *o, int n, gs_error *e)
{
	static bool curl_ready;
	char token[1024];

	memset(R, 0, sizeof *R);
	R->o = o;
	R->jobs = o->jobs > 0 ? o->jobs : 16;
	R->n_models = n;
	gs_hub_endpoint(R->endpoint, sizeof R->endpoint);
	endpoint_secrets(R->endpoint);
	snprintf(R->endpoint_shown, sizeof R->endpoint_shown, "%s", R->endpoint);
	gs_redact(R->endpoint_shown, sizeof R->endpoint_shown);
	R->deadline_s = o->deadline_s == 0 ? GS_HUB_DEADLINE_DEFAULT : o->deadline_s;
	R->timeout_s = env_double("GPUSIZER_TIMEOUT", 60, 0.05, 86400);
	R->max_wait = env_double("GPUSIZER_MAX_RETRY_WAIT", 60, 0, 3600);
	R->retries = (int)env_double("GPUSIZER_RETRIES", 5, 0, 20);
	load_token(token, sizeof token);
	gs_redact_secret(token); /* kept (in redact.c) until exit: messages are redacted late too */
	if (token[0])
		snprintf(R->auth, sizeof R->auth, "Authorization: Bearer %s", token);
	memset(token, 0, sizeof token);
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	if (!curl_ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
			return gs_fail(e, GS_ENET, "libcurl initialisation failed");
		curl_ready = true;
		atexit(curl_global_cleanup);
	}
	R->multi = curl_multi_init();
	if (R->multi == NULL)
		return gs_fail(e, GS_ENET, "libcurl initialisation failed");
	return GS_OK;
}

/* Read each model's previous meta.json and queue its model-info request
 * (conditional on the cached ETag); a model whose entry could not be
 * locked is done at once. */
static int cmp_dir(const void *a, const void *b)
{
	return strcmp((*(hub_model *const *)a)->dir, (*(hub_model *const *)b)->dir);
}

/* Lock every entry to fetch, in the order of their folder names (so two
 * runs that share entries never wait on each other in a circle); a model
 * whose entry cannot be locked fails (GS_EBUSY, GS_EIO) and is done. */
static void lock_entries(hub_model *ms, int n)
{
	hub_model **order = gs_xcalloc((size_t)n, sizeof *order);
	char parent[4096];
	int k = 0;

	for (int i = 0; i < n; i++)
		if (!ms[i].skip)
			order[k++] = &ms[i];
	qsort(order, (size_t)k, sizeof *order, cmp_dir);
	for (int i = 0; i < k; i++) {
		hub_model *m = order[i];
		gs_error e = {0};
		char *slash;
		snprintf(parent, sizeof parent, "%s", m->dir);
		slash = strrchr(parent, '/');
		if (slash != NULL)
			*slash = '\0';
		if (lock_entry(slash != NULL ? parent : ".", m, &e) != GS_OK) {
			fail_model(m, e.code, "%s", e.msg);
			release_entry(m);
		}
	}
	free(order);
}

static void queue_model_info(hub_run *R, hub_model *ms, int n)
{
	for (int i = 0; i < n; i++) {
		hub_model *m = &ms[i];
		char url[2400], rq[300], inm[260];
		if (m->skip)
			continue;
		if (m->failed) {
			finish_model(R, m); /* its entry could not be locked */
			continue;
		}
		load_old(m);
		if (m->rev[0]) {
			quote_rev(rq, sizeof rq, m->rev);
			snprintf(url, sizeof url, "%s/api/models/%s/revision/%s", R->endpoint, m->repo, rq);
		} else {
			snprintf(url, sizeof url, "%s/api/models/%s", R->endpoint, m->repo);
		}
		strncat(url, "?expand=sha&expand=gated&expand=private&expand=safetensors"
		        "&expand=siblings&expand=config", sizeof url - strlen(url) - 1);
		quote_etag(inm, sizeof inm, m->old_api_etag);
		enqueue(R, hub_new_req(m, RQ_API, url, inm));
	}
}

/* Start the queued requests that are due, up to R->jobs at once; returns
 * the earliest start time of those left waiting (-1 when none). */
static double start_due(hub_run *R)
{
	double t = gs_mono_s(), next = -1;
	hub_req **pp = &R->queue;

	while (*pp != NULL && R->active < R->jobs) {
		hub_req *r = *pp;
		if (past_deadline(R)) {
			hub_model *m = r->m;
			*pp = r->next;
			r->next = NULL;
			fail_deadline(R, m, r);
			m->pending--;
			hub_free_req(r);
			if (m->pending == 0)
				finish_model(R, m);
		} else if (r->not_before <= t) {
			*pp = r->next;
			r->next = NULL;
			if (!start_req(R, r)) {
				hub_model *m = r->m;
				fail_model(m, GS_ENET, "%s: cannot start the request", short_url(r));
				m->pending--;
				hub_free_req(r);
				if (m->pending == 0)
					finish_model(R, m);
			}
		} else {
			if (next < 0 || r->not_before < next)
				next = r->not_before;
			pp = &r->next;
		}
	}
	if (next > 0 && R->deadline > 0 && R->deadline < next)
		next = R->deadline; /* wake up to fail them at the deadline */
	return next;
}

/* Hand each transfer libcurl reports finished to req_done. */
static void collect_done(hub_run *R)
{
	CURLMsg *msg;
	int left;

	while ((msg = curl_multi_info_read(R->multi, &left)) != NULL) {
		if (msg->msg == CURLMSG_DONE) {
			hub_req *r = NULL;
			CURLcode cc = msg->data.result;
			CURL *h = msg->easy_handle;
			curl_easy_getinfo(h, CURLINFO_PRIVATE, (char **)&r);
			curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status);
			req_done(R, r, cc);
		}
	}
}

/* Wait for transfer activity or until next (the earliest waiting request's
 * start time, -1 for none), at most 200 ms; not at all when a queued
 * request can start now. */
static void wait_for_work(hub_run *R, double next)
{
	int ms_wait = 200;

	/* requests queued while handling completions start at once */
	for (hub_req *q = R->queue; q != NULL && R->active < R->jobs; q = q->next)
		if (q->not_before <= gs_mono_s()) {
			ms_wait = 0;
			break;
		}
	if (next >= 0) {
		double d = (next - gs_mono_s()) * 1000;
		if (d < ms_wait)
			ms_wait = d < 0 ? 0 : (int)d + 1;
	}
	if (ms_wait == 0) {
		/* loop: start the ready requests */
	} else if (R->active > 0) {
		curl_multi_poll(R->multi, NULL, 0, ms_wait, NULL);
	} else if (ms_wait > 0) {
		struct timespec ts = {ms_wait / 1000, (long)(ms_wait % 1000) * 1000000L};
		nanosleep(&ts, NULL);
	}
}

/* Run the transfers until the queue is empty and none is active. */
static void run_transfers(hub_run *R)
{
	while (R->queue != NULL || R->active > 0) {
		double next = start_due(R);
		int running;

		curl_multi_perform(R->multi, &running);
		collect_done(R);
		if (R->active == 0 && R->queue == NULL)
			break;
		wait_for_work(R, next);
	}
}

/* Online: fetch every model not skipped, then release the run. */
static gs_err online_run(const gs_hub_opts *o, hub_model *ms, int n, gs_error *e)
{
	hub_run R;
	gs_err rc;

	rc = init_run(&R, o, n, e);
	if (rc != GS_OK)
		return rc;
	lock_entries(ms, n);
	if (R.deadline_s > 0) /* from here: waiting for a lock has its own limit */
		R.deadline = gs_mono_s() + R.deadline_s;
	queue_model_info(&R, ms, n);
	run_transfers(&R);
	curl_multi_cleanup(R.multi);
	memset(R.auth, 0, sizeof R.auth);
	return GS_OK;
}

/* Fill the skipped ids' results from the model fetched for their cache
 * folder (with no traffic of their own), free the models and ms, and return
 * the worst error; e keeps the first message with the worst code. */
static gs_err gather_results(hub_model *ms, int n, gs_hub_result *res, gs_error *e)
{
	gs_err worst = GS_OK;

	for (int i = 0; i < n; i++) {
		if (ms[i].skip) {
			for (int j = 0; j < i; j++)
				if (!ms[j].skip && strcmp(ms[j].entry, ms[i].entry) == 0) {
					res[i] = res[j];
					res[i].requests = 0;
					res[i].body_bytes = 0;
					res[i].not_modified = 0;
					break;
				}
		}
		if (res[i].err.code != GS_OK) {
			if (gs_exit_code(res[i].err.code) > gs_exit_code(worst))
				worst = res[i].err.code;
			if (e != NULL && e->code == GS_OK)
				gs_fail(e, res[i].err.code, "%s", res[i].err.msg);
		}
		hub_free_model(&ms[i]);
	}
	free(ms);
	if (worst != GS_OK && e != NULL && e->code != worst) {
		/* keep the first message but report the worst code */
		e->code = worst;
	}
	return worst;
}

gs_err gs_hub_fetch(const gs_hub_opts *o, const char *const *ids, int n, gs_hub_result *res,
                    gs_error *e)
{
	hub_model *ms;
	gs_err rc;

	memset(res, 0, sizeof *res * (size_t)(n > 0 ? n : 0));
	if (n <= 0)
		return GS_OK;
	ms = gs_xcalloc((size_t)n, sizeof *ms);
	rc = init_models(o, ids, n, res, ms, e);
	if (rc == GS_OK) {
		if (gs_offline(o->offline))
			offline_run(o, ms, n);
		else
			rc = online_run(o, ms, n, e);
	}
	if (rc != GS_OK) {
		free(ms);
		return rc;
	}
	return gather_results(ms, n, res, e);
}
