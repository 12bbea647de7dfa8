/* gpusizer: the measurements store (measurements/verified.jsonl): load,
 * look up by (model, settings label), format, append atomically. */
#define _POSIX_C_SOURCE 200809L
#include "measured.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

static void copy_str(char *dst, size_t n, const cJSON *item)
{
	if (cJSON_IsString(item) && item->valuestring != NULL)
		snprintf(dst, n, "%s", item->valuestring);
	else
		dst[0] = '\0';
}

/* A non-negative integral byte count, else 0 (null / missing / bad). */
static uint64_t get_bytes(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	double d;

	if (!cJSON_IsNumber(v))
		return 0;
	d = v->valuedouble;
	if (!(d >= 0) || d >= 18446744073709551616.0)
		return 0;
	return (uint64_t)d;
}

static gs_err parse_line(const char *path, size_t lineno, const char *line, gs_measured *m,
                         gs_error *e)
{
	cJSON *root = cJSON_Parse(line);
	const cJSON *gpu, *meas, *pred, *model, *label, *status;

	memset(m, 0, sizeof *m);
	if (root == NULL || !cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return gs_fail(e, GS_EINPUT, "%s:%zu: not a JSON object", path, lineno);
	}
	model = cJSON_GetObjectItemCaseSensitive(root, "model");
	label = cJSON_GetObjectItemCaseSensitive(root, "label");
	if (!cJSON_IsString(model) || !cJSON_IsString(label)) {
		cJSON_Delete(root);
		return gs_fail(e, GS_EINPUT, "%s:%zu: missing string \"model\" or \"label\"", path, lineno);
	}
	copy_str(m->model, sizeof m->model, model);
	copy_str(m->label, sizeof m->label, label);
	copy_str(m->date, sizeof m->date, cJSON_GetObjectItemCaseSensitive(root, "date"));
	gpu = cJSON_GetObjectItemCaseSensitive(root, "gpu");
	copy_str(m->gpu_name, sizeof m->gpu_name, cJSON_GetObjectItemCaseSensitive(gpu, "name"));
	copy_str(m->gpu_class, sizeof m->gpu_class, cJSON_GetObjectItemCaseSensitive(gpu, "class"));
	status = cJSON_GetObjectItemCaseSensitive(root, "status");
	m->oom = cJSON_IsString(status) && strcmp(status->valuestring, "oom") == 0;
	meas = cJSON_GetObjectItemCaseSensitive(root, "measured");
	m->allocated = get_bytes(meas, "allocated");
	m->reserved = get_bytes(meas, "reserved");
	m->device = get_bytes(meas, "device");
	pred = cJSON_GetObjectItemCaseSensitive(root, "predicted");
	m->pred_allocated = get_bytes(pred, "allocated");
	m->pred_reserved = get_bytes(pred, "reserved");
	m->pred_device = get_bytes(pred, "device");
	cJSON_Delete(root);
	return GS_OK;
}

gs_err gs_measured_load(const char *path, gs_measured_store *st, gs_error *e)
{
	char *buf = NULL, *p, *nl;
	size_t len = 0, cap = 0, lineno = 0;
	gs_error rerr = {0};
	gs_err rc;

	st->rec = NULL;
	st->n = 0;
	if (path == NULL)
		path = GS_MEASURED_STORE_DEFAULT;
	rc = gs_read_file(path, GS_MEASURED_MAX_BYTES, &buf, &len, &rerr);
	if (rc == GS_ENOTFOUND)
		return GS_OK; /* no store yet: nothing verified */
	if (rc != GS_OK)
		return gs_fail(e, rc, "%s", rerr.msg);
	for (p = buf; p < buf + len; p = nl + 1) {
		char *q;
		nl = memchr(p, '\n', (size_t)(buf + len - p));
		if (nl == NULL)
			nl = buf + len;
		*nl = '\0';
		lineno++;
		for (q = p; *q == ' ' || *q == '\t' || *q == '\r'; q++)
			;
		if (*q == '\0')
			continue;
		if (st->n == cap) {
			cap = cap ? cap * 2 : 16;
			st->rec = gs_xrealloc(st->rec, cap * sizeof *st->rec);
		}
		rc = parse_line(path, lineno, q, &st->rec[st->n], e);
		if (rc != GS_OK) {
			free(buf);
			gs_measured_free(st);
			return rc;
		}
		st->n++;
	}
	free(buf);
	return GS_OK;
}

void gs_measured_free(gs_measured_store *st)
{
	if (st == NULL)
		return;
	free(st->rec);
	st->rec = NULL;
	st->n = 0;
}

const gs_measured *gs_measured_find(const gs_measured_store *st, const char *model,
                                    const char *label)
{
	for (size_t i = st->n; i-- > 0;)
		if (strcmp(st->rec[i].model, model) == 0 && strcmp(st->rec[i].label, label) == 0)
			return &st->rec[i];
	return NULL;
}

void gs_measured_short_gpu(const char *name, char *buf, size_t n)
{
	const char *p = name;

	if (strncasecmp(p, "NVIDIA ", 7) == 0)
		p += 7;
	if (strncasecmp(p, "GeForce ", 8) == 0)
		p += 8;
	snprintf(buf, n, "%s", *p ? p : name);
}

const char *gs_measured_kind_name(gs_measured_kind k)
{
	static const char *const names[GS_MK_MAX] = {"allocated", "reserved", "device"};

	return (int)k >= 0 && k < GS_MK_MAX ? names[k] : "?";
}

uint64_t gs_measured_bytes(const gs_measured *m, gs_measured_kind k)
{
	switch (k) {
	case GS_MK_ALLOCATED: return m->allocated;
	case GS_MK_RESERVED: return m->reserved;
	case GS_MK_DEVICE: return m->device;
	default: return 0;
	}
}

bool gs_measured_figure(const gs_measured *m, gs_measured_kind kind, gs_measured_kind *shown,
                        uint64_t *bytes)
{
	gs_measured_kind k = (int)kind >= 0 && kind < GS_MK_MAX ? kind : GS_MK_DEVICE;

	if (m->oom)
		return false;
	for (int j = GS_MK_DEVICE; gs_measured_bytes(m, k) == 0 && j >= 0; j--)
		if (gs_measured_bytes(m, (gs_measured_kind)j))
			k = (gs_measured_kind)j;
	if (gs_measured_bytes(m, k) == 0)
		return false;
	*shown = k;
	*bytes = gs_measured_bytes(m, k);
	return true;
}

void gs_measured_text(const gs_measured *m, gs_measured_kind kind, const uint64_t *predicted,
                      char *buf, size_t n)
{
	uint64_t pred[GS_MK_MAX], got;
	gs_measured_kind k;
	char gpu[96];

	if (n == 0)
		return;
	if ((int)kind < 0 || kind >= GS_MK_MAX)
		kind = GS_MK_DEVICE;
	pred[GS_MK_ALLOCATED] = m->pred_allocated;
	pred[GS_MK_RESERVED] = m->pred_reserved;
	pred[GS_MK_DEVICE] = m->pred_device;
	if (predicted != NULL)
		memcpy(pred, predicted, sizeof pred);
	gs_measured_short_gpu(m->gpu_name[0] ? m->gpu_name : "unknown GPU", gpu, sizeof gpu);
	if (m->oom) {
		if (pred[kind])
			snprintf(buf, n, "out of memory on %s (measured), predicted %.1f GiB", gpu,
			         (double)pred[kind] / GS_GIB);
		else
			snprintf(buf, n, "out of memory on %s (measured)", gpu);
		return;
	}
	if (!gs_measured_figure(m, kind, &k, &got)) {
		snprintf(buf, n, "verified on %s, no figure recorded", gpu);
		return;
	}
	snprintf(buf, n, "measured %.1f GiB%s%s on %s, predicted %.1f GiB", (double)got / GS_GIB,
	         k == kind ? "" : " ", k == kind ? "" : gs_measured_kind_name(k), gpu,
	         (double)pred[k] / GS_GIB);
}

gs_err gs_measured_append(const char *path, const char *json_line, gs_error *e)
{
	char *old = NULL, *buf, dir[4096], *slash;
	size_t old_len = 0, add = strlen(json_line), total;
	gs_error rerr = {0};
	cJSON *check;
	gs_err rc;

	if (path == NULL)
		path = GS_MEASURED_STORE_DEFAULT;
	if (strchr(json_line, '\n') != NULL)
		return gs_fail(e, GS_EINTERNAL, "%s: record holds a newline", path);
	check = cJSON_Parse(json_line);
	if (!cJSON_IsObject(check)) {
		cJSON_Delete(check);
		return gs_fail(e, GS_EINTERNAL, "%s: record is not a JSON object", path);
	}
	cJSON_Delete(check);
	snprintf(dir, sizeof dir, "%s", path);
	slash = strrchr(dir, '/');
	if (slash != NULL && slash != dir) {
		*slash = '\0';
		rc = gs_mkdirs(dir, e);
		if (rc != GS_OK)
			return rc;
	}
	rc = gs_read_file(path, GS_MEASURED_MAX_BYTES, &old, &old_len, &rerr);
	if (rc == GS_ENOTFOUND) {
		old = NULL;
		old_len = 0;
	} else if (rc != GS_OK) {
		return gs_fail(e, rc, "%s (store not changed)", rerr.msg);
	}
	total = old_len + add + 2;
	buf = gs_xmalloc(total);
	if (old_len)
		memcpy(buf, old, old_len);
	if (old_len && buf[old_len - 1] != '\n')
		buf[old_len++] = '\n'; /* a previous writer's missing final newline */
	memcpy(buf + old_len, json_line, add);
	buf[old_len + add] = '\n';
	rc = gs_write_file_atomic(path, buf, old_len + add + 1, e);
	free(old);
	free(buf);
	return rc;
}
