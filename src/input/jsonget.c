/* gpusizer: typed, sticky, file-and-key-naming getters over cJSON. */
#include "jsonget.h"

#include <cJSON.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "redact.h"

#define MIB 1048576ULL

const cJSON *gs_jget_item(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;

	return cJSON_IsNull(v) ? NULL : v;
}

void gs_json_describe(const cJSON *v, char *buf, size_t n)
{
	if (v == NULL)
		snprintf(buf, n, "nothing");
	else if (cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) &&
	         fabs(v->valuedouble) < 1e19)
		snprintf(buf, n, "%.0f", v->valuedouble); /* exact integers */
	else if (cJSON_IsNumber(v))
		snprintf(buf, n, "%.15g", v->valuedouble);
	else if (cJSON_IsString(v))
		snprintf(buf, n, "\"%.40s%s\"", v->valuestring, strlen(v->valuestring) > 40 ? "..." : "");
	else if (cJSON_IsTrue(v))
		snprintf(buf, n, "true");
	else if (cJSON_IsFalse(v))
		snprintf(buf, n, "false");
	else if (cJSON_IsNull(v))
		snprintf(buf, n, "null");
	else if (cJSON_IsArray(v))
		snprintf(buf, n, "an array");
	else if (cJSON_IsObject(v))
		snprintf(buf, n, "an object");
	else
		snprintf(buf, n, "an invalid value");
}

gs_err gs_jget_vfail(gs_jget *g, gs_err code, const char *key, const char *fmt, va_list ap)
{
	char detail[400];

	vsnprintf(detail, sizeof detail, fmt, ap);
	gs_fail(g->e, code, "%s: field \"%s%s\": %s", g->file, g->pfx ? g->pfx : "", key, detail);
	if (g->rc == GS_OK)
		g->rc = code;
	return g->rc;
}

gs_err gs_jget_fail(gs_jget *g, gs_err code, const char *key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gs_jget_vfail(g, code, key, fmt, ap);
	va_end(ap);
	return g->rc;
}

/* "must be WHAT (got V)". */
static void wrong(gs_jget *g, const char *key, const char *what, const cJSON *v)
{
	char got[64];

	gs_json_describe(v, got, sizeof got);
	gs_jget_fail(g, g->code, key, "must be %s (got %s)", what, got);
}

typedef cJSON_bool (*is_fn)(const cJSON *v);

static cJSON_bool is_finite(const cJSON *v)
{
	return cJSON_IsNumber(v) && isfinite(v->valuedouble);
}

static cJSON_bool is_text(const cJSON *v)
{
	return cJSON_IsString(v) && v->valuestring[0] != '\0';
}

/* The field's value when it passes ok, else NULL: after a failure, when
 * absent or null (an error when required: "missing (must be WHAT)", or
 * "(got null)"), or when ok refuses it ("must be WHAT (got V)"). */
static const cJSON *typed(gs_jget *g, const cJSON *obj, const char *key, bool required,
                          const char *what, is_fn ok)
{
	const cJSON *v;

	if (g->rc != GS_OK)
		return NULL;
	v = gs_jget_item(obj, key);
	if (v == NULL && required) {
		if (cJSON_IsObject(obj) && cJSON_GetObjectItemCaseSensitive(obj, key) != NULL)
			gs_jget_fail(g, g->code, key, "must be %s (got null)", what);
		else
			gs_jget_fail(g, g->code, key, "missing (must be %s)", what);
	}
	if (v == NULL || ok(v))
		return v;
	wrong(g, key, what, v);
	return NULL;
}

int64_t gs_jget_int(gs_jget *g, const cJSON *obj, const char *key, int64_t min, int64_t max,
                    int64_t def, bool required)
{
	int64_t bad = def >= 1 ? def : 1;
	char what[96];
	const cJSON *v;
	double d;

	if (max > GS_JSON_INT_MAX)
		max = GS_JSON_INT_MAX;
	if (max < GS_JSON_INT_MAX)
		snprintf(what, sizeof what, "an integer from %" PRId64 " to %" PRId64, min, max);
	else
		snprintf(what, sizeof what, "%s",
		         min == 1 ? "a positive integer" : min == 0 ? "a non-negative integer" : "an integer");
	v = typed(g, obj, key, required, what, is_finite);
	if (v == NULL)
		return g->rc != GS_OK ? bad : def;
	d = v->valuedouble;
	if (d != floor(d) || d < (double)min) {
		wrong(g, key, what, v);
		return bad;
	}
	if (d > (double)max) {
		char got[64];
		gs_json_describe(v, got, sizeof got);
		if (max == GS_JSON_INT_MAX)
			gs_jget_fail(g, g->code, key, "must be %s below 2^53 (got %s: too large)", what, got);
		else
			gs_jget_fail(g, g->code, key, "must be %s (got %s)", what, got);
		return bad;
	}
	return (int64_t)d;
}

bool gs_jget_bool(gs_jget *g, const cJSON *obj, const char *key, bool def, bool required)
{
	const cJSON *v = typed(g, obj, key, required, "true or false", cJSON_IsBool);

	return v != NULL ? cJSON_IsTrue(v) : def;
}

/* Strings we read are shown (a terminal, a page, a cell): one holding a
 * control character (redact.h gs_has_control) is refused; NULL then. */
static const cJSON *clean(gs_jget *g, const char *key, const char *what, const cJSON *v)
{
	char w[96];

	if (v == NULL || !gs_has_control(v->valuestring))
		return v;
	snprintf(w, sizeof w, "%s without control characters", what);
	wrong(g, key, w, v);
	return NULL;
}

const char *gs_jget_str(gs_jget *g, const cJSON *obj, const char *key, bool required)
{
	const cJSON *v = clean(g, key, "a string", typed(g, obj, key, required, "a string", cJSON_IsString));

	return v != NULL ? v->valuestring : NULL;
}

bool gs_jget_strcpy(gs_jget *g, const cJSON *obj, const char *key, char *dst, size_t n,
                    bool required)
{
	const cJSON *v = clean(g, key, "a non-empty string",
	                       typed(g, obj, key, required, "a non-empty string", is_text));
	size_t len;

	if (v == NULL)
		return false;
	len = strlen(v->valuestring);
	if (len >= n) {
		gs_jget_fail(g, g->code, key, "longer than %zu bytes", n ? n - 1 : 0);
		return false;
	}
	memcpy(dst, v->valuestring, len + 1);
	return true;
}

double gs_jget_pos(gs_jget *g, const cJSON *obj, const char *key, double def, bool required)
{
	return gs_jget_num(g, obj, key, DBL_TRUE_MIN, DBL_MAX,
	                   required ? "a positive number" : "a positive number or null", def, required);
}

double gs_jget_num(gs_jget *g, const cJSON *obj, const char *key, double lo, double hi,
                   const char *what, double def, bool required)
{
	const cJSON *v = typed(g, obj, key, required, what, is_finite);

	if (v == NULL)
		return def;
	if (v->valuedouble >= lo && v->valuedouble <= hi)
		return v->valuedouble;
	wrong(g, key, what, v);
	return def;
}

uint64_t gs_jget_bytes(gs_jget *g, const cJSON *obj, const char *base, bool required)
{
	static const char what[] = "a positive whole number";
	char kb[64], km[64];
	const cJSON *vb, *vm, *v;
	const char *key;
	uint64_t r;
	double d;

	if (g->rc != GS_OK)
		return 0;
	snprintf(kb, sizeof kb, "%s_bytes", base);
	snprintf(km, sizeof km, "%s_mib", base);
	vb = gs_jget_item(obj, kb);
	vm = gs_jget_item(obj, km);
	if (vb == NULL && vm == NULL) {
		if (required)
			gs_jget_fail(g, g->code, km, "missing (or give \"%s\"; must be %s)", kb, what);
		return 0;
	}
	if (vb != NULL && vm != NULL) {
		gs_jget_fail(g, g->code, kb, "give it or \"%s\", not both", km);
		return 0;
	}
	v = vb ? vb : vm;
	key = vb ? kb : km;
	d = v->valuedouble;
	if (!cJSON_IsNumber(v) || !(d >= 1) || d != floor(d) || d > 9.0e15) {
		wrong(g, key, what, v);
		return 0;
	}
	r = (uint64_t)d;
	if (vm != NULL && __builtin_mul_overflow(r, MIB, &r)) {
		gs_jget_fail(g, g->code, km, "too large");
		return 0;
	}
	return r;
}

const char *gs_json_string(const cJSON *v)
{
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

uint64_t gs_json_u64(const cJSON *v, uint64_t def)
{
	double d;

	if (!cJSON_IsNumber(v))
		return def;
	d = v->valuedouble;
	if (!(d >= 0) || d >= 18446744073709551616.0)
		return def;
	return (uint64_t)d;
}
