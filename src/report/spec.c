/* gpusizer: the sweep spec parser and validator (cJSON). Every error names
 * the file, the line and the key. */
#define _POSIX_C_SOURCE 200809L
#include "spec.h"
#include "jsoncheck.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numfmt.h"
#include "paths.h"
#include "plan_view.h"
#include "report.h"
#include "timing.h"
#include "util.h"
#include "fileio.h"

#define SPEC_FILE_MAX (4 * 1024 * 1024)
#define LIST_MAX 4096

/* The axes are the settings table's (gs_settings_axis, in nesting
 * order): axis k's list is sp->axis[k], under the spec key its row names;
 * its value type is the setting's ('i' integer, 'b' boolean, 's' text). */
static char axis_type(const gs_setting *d)
{
	return d->type == GS_ST_INT ? 'i' : d->type == GS_ST_BOOL && d->values == NULL ? 'b' : 's';
}

/* Whether axis d has a list of its own under "axes" (not the per-method
 * precision lists, not the GPU layouts). */
static bool own_list(const gs_setting *d)
{
	return !(d->axis.flags & (GS_AXF_PER_METHOD | GS_AXF_COUNTS));
}

static const char *const top_keys[] = {
	"version", "date", "models", "gpus", "gpu_counts", "axes", "settings", "formats", "rank",
	"eligible", "plan", "time", "commit", "out", "publish_dir", "models_dir", "gpus_dir", NULL,
};
const gs_spec_list *gs_spec_axis(const gs_spec *sp, const char *setting)
{
	const gs_setting *d;

	for (size_t k = 0; (d = gs_settings_axis(k)) != NULL; k++)
		if (strcmp(d->name, setting) == 0)
			return own_list(d) ? &sp->axis[k] : NULL;
	return NULL;
}

static bool in_list(const char *const *l, const char *s)
{
	for (int i = 0; l[i] != NULL; i++)
		if (strcmp(l[i], s) == 0)
			return true;
	return false;
}

bool gs_spec_committed(const gs_spec *sp, const char *format)
{
	if (sp->commit.n == 0)
		return true;
	for (size_t i = 0; i < sp->commit.n; i++)
		if (strcmp(sp->commit.v[i], format) == 0)
			return true;
	return false;
}

/* ---- line numbers: a small JSON walker that follows a key path ---- */

typedef struct walker {
	const char *p;
	int line;
	char comp[8][64];
	int n;
	int index;
	int depth;
} walker;

static void w_ws(walker *w)
{
	while (*w->p == ' ' || *w->p == '\t' || *w->p == '\r' || *w->p == '\n') {
		if (*w->p == '\n')
			w->line++;
		w->p++;
	}
}

/* Reads a string at w->p (which is '"'); copies up to n-1 bytes to buf. */
static void w_string(walker *w, char *buf, size_t n)
{
	size_t k = 0;

	w->p++;
	while (*w->p && *w->p != '"') {
		if (*w->p == '\\' && w->p[1])
			w->p++;
		if (*w->p == '\n')
			w->line++;
		if (buf && k + 1 < n)
			buf[k++] = *w->p;
		w->p++;
	}
	if (*w->p == '"')
		w->p++;
	if (buf)
		buf[k] = '\0';
}

static int w_value(walker *w, int level);

/* Walks one value; returns the target's line when found inside it, else 0. */
static int w_value1(walker *w, int level)
{
	w_ws(w);
	if (++w->depth > 64) /* deeper than any spec: stop looking (w_value undoes ++) */
		return 0;
	if (*w->p == '{') {
		w->p++;
		for (;;) {
			char key[64];
			int key_line, found;
			w_ws(w);
			if (*w->p == '}') {
				w->p++;
				return 0;
			}
			if (*w->p != '"')
				return 0;
			key_line = w->line;
			w_string(w, key, sizeof key);
			w_ws(w);
			if (*w->p != ':')
				return 0;
			w->p++;
			if (level < w->n && strcmp(key, w->comp[level]) == 0) {
				if (level == w->n - 1 && w->index < 0)
					return key_line;
				if (level == w->n - 1) {
					w_ws(w);
					if (*w->p != '[')
						return key_line;
					w->p++;
					for (int i = 0;; i++) {
						w_ws(w);
						if (*w->p == ']' || *w->p == '\0')
							return key_line;
						if (i == w->index)
							return w->line;
						w_value(w, INT_MAX);
						w_ws(w);
						if (*w->p == ',')
							w->p++;
						else
							return key_line;
					}
				}
				found = w_value(w, level + 1);
				if (found)
					return found;
			} else {
				w_value(w, INT_MAX);
			}
			w_ws(w);
			if (*w->p == ',')
				w->p++;
			else if (*w->p == '}') {
				w->p++;
				return 0;
			} else
				return 0;
		}
	}
	if (*w->p == '[') {
		w->p++;
		for (;;) {
			const char *before;
			w_ws(w);
			if (*w->p == ']') {
				w->p++;
				return 0;
			}
			before = w->p;
			w_value(w, INT_MAX);
			if (w->p == before)
				return 0;
			w_ws(w);
			if (*w->p == ',')
				w->p++;
			else if (*w->p == ']') {
				w->p++;
				return 0;
			} else
				return 0;
		}
	}
	if (*w->p == '"') {
		w_string(w, NULL, 0);
		return 0;
	}
	while (*w->p && !strchr(",]} \t\r\n", *w->p))
		w->p++;
	return 0;
}

static int w_value(walker *w, int level)
{
	int r = w_value1(w, level);

	w->depth--;
	return r;
}

int gs_spec_line(const char *text, const char *path, int index)
{
	walker w;
	const char *s = path;

	if (text == NULL || path == NULL)
		return 0;
	memset(&w, 0, sizeof w);
	w.p = text;
	w.line = 1;
	w.index = index;
	while (*s && w.n < 8) {
		const char *dot = strchr(s, '.');
		size_t len = dot ? (size_t)(dot - s) : strlen(s);
		if (len >= sizeof w.comp[0])
			len = sizeof w.comp[0] - 1;
		memcpy(w.comp[w.n], s, len);
		w.comp[w.n][len] = '\0';
		w.n++;
		s += len;
		if (*s == '.')
			s++;
	}
	return w_value(&w, 0);
}

/* ---- errors ---- */

static gs_err spec_fail(gs_error *e, const gs_spec *sp, const char *key, int index,
                        const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static gs_err spec_fail(gs_error *e, const gs_spec *sp, const char *key, int index,
                        const char *fmt, ...)
{
	char detail[400];
	va_list ap;
	int line = gs_spec_line(sp->text, key, index);

	if (line == 0 && index >= 0)
		line = gs_spec_line(sp->text, key, -1);
	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	if (index >= 0)
		return gs_fail(e, GS_ESPEC, "%s:%d: %s[%d]: %s", sp->path, line, key, index, detail);
	return gs_fail(e, GS_ESPEC, "%s:%d: %s: %s", sp->path, line, key, detail);
}

/* An optional object member of the spec ("plan", "time"): an object whose
 * keys are all in keys; the errors name the member and list the keys. */
static gs_err check_object(gs_spec *sp, const cJSON *v, const char *name, const char *const *keys, gs_error *e)
{
	char known[160] = "";
	size_t k = 0;

	for (int i = 0; keys[i] != NULL && k < sizeof known; i++)
		k += (size_t)snprintf(known + k, sizeof known - k, "%s%s", i ? ", " : "", keys[i]);
	if (!cJSON_IsObject(v))
		return spec_fail(e, sp, name, -1, "expected an object {%s}", known);
	for (const cJSON *it = v->child; it != NULL; it = it->next)
		if (!in_list(keys, it->string))
			return spec_fail(e, sp, name, -1, "unknown key \"%.60s\" (known: %s)", it->string, known);
	return GS_OK;
}

/* ---- lists ---- */

static void list_free(gs_spec_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof *l);
}

static void list_add(gs_spec_list *l, const char *s)
{
	l->v = gs_xrealloc(l->v, (l->n + 1) * sizeof *l->v);
	l->v[l->n++] = gs_xstrdup(s);
}

static void list_copy(gs_spec_list *dst, const gs_spec_list *src)
{
	list_free(dst);
	for (size_t i = 0; i < src->n; i++)
		list_add(dst, src->v[i]);
	dst->line = src->line;
}

/* Text of a scalar: string as is, integer, or boolean. type 's', 'i', 'b'
 * or 'a' (any scalar). Returns false on a type mismatch. */
static bool scalar_text(const cJSON *v, char type, char *buf, size_t n)
{
	if (cJSON_IsString(v) && (type == 's' || type == 'a')) {
		if (v->valuestring[0] == '\0' || strlen(v->valuestring) >= n)
			return false;
		snprintf(buf, n, "%s", v->valuestring);
		return true;
	}
	if (cJSON_IsBool(v) && (type == 'b' || type == 'a')) {
		snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
		return true;
	}
	if (cJSON_IsNumber(v) && (type == 'i' || type == 'a')) {
		double d = v->valuedouble;
		if (!isfinite(d))
			return false;
		if (d == floor(d) && fabs(d) < 9.0e15)
			snprintf(buf, n, "%lld", (long long)d);
		else if (type == 'i')
			return false;
		else
			snprintf(buf, n, "%.17g", d);
		if (type == 'i' && d < 1)
			return false;
		return true;
	}
	return false;
}

static const char *type_words(char type)
{
	switch (type) {
	case 'i': return "positive integers";
	case 'b': return "true/false";
	case 'a': return "strings, numbers or booleans";
	default: return "non-empty strings";
	}
}

/* Reads an array of scalars of `type` at key (dotted, for messages). */
static gs_err read_list(const gs_spec *sp, const cJSON *v, const char *key, char type,
                        gs_spec_list *out, gs_error *e)
{
	const cJSON *it;
	int i = 0;

	list_free(out);
	out->line = gs_spec_line(sp->text, key, -1);
	if (!cJSON_IsArray(v))
		return spec_fail(e, sp, key, -1, "expected an array of %s", type_words(type));
	if (cJSON_GetArraySize(v) == 0)
		return spec_fail(e, sp, key, -1, "empty (an axis needs at least one value)");
	if (cJSON_GetArraySize(v) > LIST_MAX)
		return spec_fail(e, sp, key, -1, "more than %d values", LIST_MAX);
	cJSON_ArrayForEach(it, v)
	{
		char buf[GS_LORA_NAMES_MAX];
		if (!scalar_text(it, type, buf, sizeof buf))
			return spec_fail(e, sp, key, i, "expected %s", type_words(type));
		for (size_t k = 0; k < out->n; k++)
			if (strcmp(out->v[k], buf) == 0)
				return spec_fail(e, sp, key, i, "\"%s\" listed twice", buf);
		list_add(out, buf);
		i++;
	}
	return GS_OK;
}

/* Checks each value of a list with gs_settings_set(name). */
static gs_err check_setting_values(const gs_spec *sp, const char *key, const char *name,
                                   const gs_spec_list *l, gs_error *e)
{
	for (size_t i = 0; i < l->n; i++) {
		gs_settings s;
		gs_error sub = { 0 };
		gs_settings_default(&s);
		if (gs_settings_set(&s, name, l->v[i], &sub) != GS_OK)
			return spec_fail(e, sp, key, (int)i, "\"%s\": %s", l->v[i], sub.msg);
	}
	return GS_OK;
}

/* ---- paths: relative to the spec file's directory ---- */

/* The directory of the spec file, "" when its path has no directory part
 * or it is "." (relative paths then stay as written, relative to the
 * current directory, which is that directory). */
static void spec_dir(const char *path, char *buf, size_t n)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	buf[0] = '\0';
	if (s == NULL)
		return;
	if (s == path)
		snprintf(buf, n, "/");
	else if (!(s - path == 1 && path[0] == '.'))
		snprintf(buf, n, "%.*s", (int)(s - path), path);
}

/* dir/rel (rel as is when absolute or dir is ""); the caller frees it. */
static char *spec_join(const char *dir, const char *rel)
{
	size_t n;
	char *p;

	if (rel[0] == '/' || dir[0] == '\0')
		return gs_xstrdup(rel);
	n = strlen(dir) + strlen(rel) + 2;
	p = gs_xmalloc(n);
	snprintf(p, n, "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", rel);
	return p;
}

static bool path_has_config(const char *p)
{
	char cfg[4200];

	return gs_is_dir(p) &&
	       snprintf(cfg, sizeof cfg, "%s/config.json", p) < (int)sizeof cfg && gs_is_file(cfg);
}

/* A "models" entry that names a config file rather than a Hub id, as
 * gs_model_resolve tells them apart, but seen from the spec's directory:
 * ends in ".json", starts with "./" or "../", or names a file or a
 * directory holding config.json there. */
static bool model_entry_is_path(const char *dir, const char *v)
{
	size_t n = strlen(v);
	char *joined;
	bool yes;

	if ((n > 5 && strcmp(v + n - 5, ".json") == 0) || strncmp(v, "./", 2) == 0 ||
	    strncmp(v, "../", 3) == 0)
		return true;
	joined = spec_join(dir, v);
	yes = gs_is_file(joined) || path_has_config(joined);
	free(joined);
	return yes;
}

/* Reads a path key: a non-empty string, resolved against the spec's
 * directory; absent, dflt (used as is, NULL: dflt_rel resolved). */
static gs_err read_path(const gs_spec *sp, const cJSON *root, const char *key, const char *dir,
                        char **dst, const char *dflt, const char *dflt_rel, gs_error *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);

	if (v == NULL) {
		*dst = dflt ? gs_xstrdup(dflt) : spec_join(dir, dflt_rel);
		return GS_OK;
	}
	if (!cJSON_IsString(v) || v->valuestring[0] == '\0')
		return spec_fail(e, sp, key, -1, "expected a non-empty string (a directory; relative "
		                 "paths are relative to the spec file's directory)");
	*dst = spec_join(dir, v->valuestring);
	return GS_OK;
}

/* Days since 1970-01-01 of a civil date (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static gs_err read_date(gs_spec *sp, const cJSON *root, gs_error *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "date");
	int y, m, d, n = 0;
	static const int mdays[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	snprintf(sp->date, sizeof sp->date, "2026-01-01");
	if (v != NULL) {
		if (!cJSON_IsString(v))
			return spec_fail(e, sp, "date", -1, "expected a string YYYY-MM-DD");
		if (sscanf(v->valuestring, "%4d-%2d-%2d%n", &y, &m, &d, &n) != 3 ||
		    (size_t)n != strlen(v->valuestring) || n != 10 || y < 1980 || y > 2099 || m < 1 ||
		    m > 12 || d < 1 || d > mdays[m - 1])
			return spec_fail(e, sp, "date", -1, "\"%s\": expected a date YYYY-MM-DD (1980-2099)",
			                 v->valuestring);
		snprintf(sp->date, sizeof sp->date, "%s", v->valuestring);
	}
	sscanf(sp->date, "%4d-%2d-%2d", &y, &m, &d);
	sp->epoch = days_from_civil(y, m, d) * 86400;
	return GS_OK;
}

/* An entry's "methods" (absent: NULL, *mask untouched): a non-empty array
 * of method names into a bit set (1u << gs_method). */
static gs_err read_methods(const gs_spec *sp, const cJSON *f, const char *key, int i, unsigned *mask,
                           gs_error *e)
{
	const cJSON *mv;

	if (f == NULL)
		return GS_OK;
	if (!cJSON_IsArray(f) || cJSON_GetArraySize(f) == 0)
		return spec_fail(e, sp, key, i, "methods: expected a non-empty array of method names");
	cJSON_ArrayForEach(mv, f)
	{
		int m = cJSON_IsString(mv) ? gs_method_parse(mv->valuestring) : -1;
		if (m < 0 || m >= GS_METHOD_MAX)
			return spec_fail(e, sp, key, i, "methods: expected full, lora, qlora or inference");
		*mask |= 1u << m;
	}
	return GS_OK;
}

/* "models": ids or config paths, each a string or {"id": ..., "methods":
 * [...]}, the methods sized for that model (DeepSeek-V3: inference only);
 * sp->model_methods[i] is 0 for every method. */
static gs_err read_models(gs_spec *sp, const cJSON *v, gs_error *e)
{
	cJSON *flat;
	const cJSON *it;
	int i = 0;
	gs_err rc;

	if (!cJSON_IsArray(v))
		return read_list(sp, v, "models", 's', &sp->models, e); /* its message */
	flat = cJSON_CreateArray();
	free(sp->model_methods);
	sp->model_methods = gs_xcalloc((size_t)cJSON_GetArraySize(v) + 1, sizeof *sp->model_methods);
	cJSON_ArrayForEach(it, v)
	{
		const cJSON *f, *id = it;
		if (cJSON_IsObject(it)) {
			cJSON_ArrayForEach(f, it)
			{
				if (strcmp(f->string, "id") != 0 && strcmp(f->string, "methods") != 0) {
					cJSON_Delete(flat);
					return spec_fail(e, sp, "models", i, "unknown key \"%s\" (known: id, methods)", f->string);
				}
			}
			id = cJSON_GetObjectItemCaseSensitive(it, "id");
			if (!cJSON_IsString(id)) {
				cJSON_Delete(flat);
				return spec_fail(e, sp, "models", i, "id: expected a model id or config path");
			}
			if ((rc = read_methods(sp, cJSON_GetObjectItemCaseSensitive(it, "methods"), "models", i,
			                       &sp->model_methods[i], e)) != GS_OK) {
				cJSON_Delete(flat);
				return rc;
			}
		}
		cJSON_AddItemToArray(flat, cJSON_Duplicate(id, 0));
		i++;
	}
	rc = read_list(sp, flat, "models", 's', &sp->models, e);
	cJSON_Delete(flat);
	return rc;
}

static gs_err read_counts(gs_spec *sp, const cJSON *v, gs_error *e)
{
	gs_err rc;
	const cJSON *it;
	int i = 0;

	sp->counts_line = gs_spec_line(sp->text, "gpu_counts", -1);
	if (!cJSON_IsArray(v))
		return spec_fail(e, sp, "gpu_counts", -1,
		                 "expected an array of {\"count\": N, \"sharding\": NAME}");
	if (cJSON_GetArraySize(v) == 0)
		return spec_fail(e, sp, "gpu_counts", -1, "empty (an axis needs at least one value)");
	if (cJSON_GetArraySize(v) > 64)
		return spec_fail(e, sp, "gpu_counts", -1, "more than 64 entries");
	sp->counts = gs_xcalloc((size_t)cJSON_GetArraySize(v), sizeof *sp->counts);
	cJSON_ArrayForEach(it, v)
	{
		const cJSON *f;
		gs_spec_count *c = &sp->counts[i];
		gs_settings s;
		gs_error sub = { 0 };
		char buf[32];

		if (!cJSON_IsObject(it))
			return spec_fail(e, sp, "gpu_counts", i,
			                 "expected an object {\"count\": N, \"sharding\": NAME}");
		cJSON_ArrayForEach(f, it)
		{
			if (strcmp(f->string, "count") != 0 && strcmp(f->string, "sharding") != 0 &&
			    strcmp(f->string, "tp") != 0 && strcmp(f->string, "pp") != 0 && strcmp(f->string, "methods") != 0)
				return spec_fail(e, sp, "gpu_counts", i,
				                 "unknown key \"%s\" (known: count, sharding, tp, pp, methods)", f->string);
		}
		f = cJSON_GetObjectItemCaseSensitive(it, "count");
		if (f == NULL || !scalar_text(f, 'i', buf, sizeof buf) || f->valuedouble > 4096)
			return spec_fail(e, sp, "gpu_counts", i, "count: expected an integer 1-4096");
		c->count = (int64_t)f->valuedouble;
		f = cJSON_GetObjectItemCaseSensitive(it, "sharding");
		if (f == NULL)
			snprintf(c->sharding, sizeof c->sharding, "%s", c->count == 1 ? "ddp" : "zero3");
		else if (!cJSON_IsString(f) || strlen(f->valuestring) >= sizeof c->sharding)
			return spec_fail(e, sp, "gpu_counts", i, "sharding: expected a name");
		else
			snprintf(c->sharding, sizeof c->sharding, "%s", f->valuestring);
		f = cJSON_GetObjectItemCaseSensitive(it, "tp");
		c->tp = 1;
		if (f != NULL) {
			if (!scalar_text(f, 'i', buf, sizeof buf) || f->valuedouble > c->count)
				return spec_fail(e, sp, "gpu_counts", i,
				                 "tp: expected an integer from 1 to count");
			c->tp = (int64_t)f->valuedouble;
		}
		f = cJSON_GetObjectItemCaseSensitive(it, "pp");
		c->pp = 1;
		if (f != NULL) {
			if (!scalar_text(f, 'i', buf, sizeof buf) || f->valuedouble * (double)c->tp > (double)c->count)
				return spec_fail(e, sp, "gpu_counts", i,
				                 "pp: expected an integer from 1 to count / tp");
			c->pp = (int64_t)f->valuedouble;
		}
		/* A layout for some methods only: training shards (ZeRO, FSDP),
		 * inference splits the model (tp, pipeline). */
		if ((rc = read_methods(sp, cJSON_GetObjectItemCaseSensitive(it, "methods"), "gpu_counts", i,
		                       &c->methods, e)) != GS_OK)
			return rc;
		gs_settings_default(&s);
		snprintf(buf, sizeof buf, "%lld", (long long)c->count);
		if (gs_settings_set(&s, "gpus", buf, &sub) != GS_OK ||
		    gs_settings_set(&s, "sharding", c->sharding, &sub) != GS_OK)
			return spec_fail(e, sp, "gpu_counts", i, "%s", sub.msg);
		for (int k = 0; k < i; k++)
			if (sp->counts[k].count == c->count && sp->counts[k].tp == c->tp && sp->counts[k].pp == c->pp &&
			    strcmp(sp->counts[k].sharding, c->sharding) == 0 &&
			    (sp->counts[k].methods == 0 || c->methods == 0 || (sp->counts[k].methods & c->methods)))
				return spec_fail(e, sp, "gpu_counts", i, "listed twice");
		sp->n_counts = (size_t)++i;
	}
	return GS_OK;
}

/* gs_spec_method_lists, writable: the spec fills them. */
static gs_spec_list *method_lists(gs_spec *sp, const gs_setting *d, bool **named)
{
	const bool *n;
	gs_spec_list *l = gs_spec_method_lists(sp, d, &n);

	*named = (bool *)n;
	return l;
}

/* A per-method axis (axes.precision, axes.stack): one array for every
 * method, or an object {method: [values]}; given[m] (may be NULL) set for
 * each method named. */
static gs_err read_per_method(gs_spec *sp, const cJSON *v, const char *name, gs_spec_list *lists, bool *given,
                              gs_error *e)
{
	char key[64];
	gs_err rc;

	snprintf(key, sizeof key, "axes.%s", name);
	if (cJSON_IsArray(v)) {
		if ((rc = read_list(sp, v, key, 's', &lists[0], e)) != GS_OK)
			return rc;
		if ((rc = check_setting_values(sp, key, name, &lists[0], e)) != GS_OK)
			return rc;
		for (int m = 1; m < GS_METHOD_MAX; m++)
			list_copy(&lists[m], &lists[0]);
		for (int m = 0; m < GS_METHOD_MAX && given != NULL; m++)
			given[m] = true;
		return GS_OK;
	}
	if (!cJSON_IsObject(v))
		return spec_fail(e, sp, key, -1, "expected an object {method: [%ss]} or an array of %ss", name, name);
	for (const cJSON *it = v->child; it != NULL; it = it->next) {
		int m = gs_method_parse(it->string);
		snprintf(key, sizeof key, "axes.%s.%s", name, it->string);
		if (m < 0)
			return spec_fail(e, sp, key, -1, "unknown method \"%s\" (full, lora, qlora, inference)",
			                 it->string);
		if ((rc = read_list(sp, it, key, 's', &lists[m], e)) != GS_OK)
			return rc;
		if ((rc = check_setting_values(sp, key, name, &lists[m], e)) != GS_OK)
			return rc;
		if (given != NULL)
			given[m] = true;
	}
	return GS_OK;
}

/* A method without a precision list sweeps its default precision. */
static void fill_precisions(gs_spec *sp)
{
	const gs_spec_list *ml = gs_spec_axis(sp, "method");

	for (size_t i = 0; ml != NULL && i < ml->n; i++) {
		int m = gs_method_parse(ml->v[i]);
		if (m >= 0 && sp->prec[m].n == 0)
			list_add(&sp->prec[m], gs_prec_default_text((gs_method)m));
	}
}

/* The keys "axes" knows, for its error: "method, precision, ...". */
static void axis_keys(char *buf, size_t n)
{
	const gs_setting *d;
	size_t used = 0;

	buf[0] = '\0';
	for (size_t k = 0; (d = gs_settings_axis(k)) != NULL && used < n; k++) {
		int w;
		if (d->axis.flags & GS_AXF_COUNTS)
			continue;
		w = snprintf(buf + used, n - used, "%s%s", used ? ", " : "", d->axis.spec_key);
		used += w > 0 ? (size_t)w : 0;
	}
}

static gs_err read_axes(gs_spec *sp, const cJSON *axes, gs_error *e)
{
	const gs_setting *d;
	gs_err rc;

	if (axes != NULL && !cJSON_IsObject(axes))
		return spec_fail(e, sp, "axes", -1, "expected an object");
	for (const cJSON *it = axes ? axes->child : NULL; it != NULL; it = it->next) {
		bool ok = false;
		for (size_t k = 0; (d = gs_settings_axis(k)) != NULL && !ok; k++)
			ok = !(d->axis.flags & GS_AXF_COUNTS) && strcmp(it->string, d->axis.spec_key) == 0;
		if (!ok) {
			char key[96], known[256];
			snprintf(key, sizeof key, "axes.%.60s", it->string);
			axis_keys(known, sizeof known);
			return spec_fail(e, sp, key, -1, "unknown key (known: %s)", known);
		}
	}
	for (size_t k = 0; (d = gs_settings_axis(k)) != NULL; k++) {
		const cJSON *v = axes ? cJSON_GetObjectItemCaseSensitive(axes, d->axis.spec_key) : NULL;
		char key[64];

		if (!own_list(d))
			continue; /* "gpu_counts": read_counts; precision: below */
		snprintf(key, sizeof key, "axes.%s", d->axis.spec_key);
		if (v == NULL) {
			/* Missing axis: the setting's default, one value. */
			gs_settings s;
			gs_setting_value dv;
			gs_settings_default(&s);
			gs_setting_get(d, &s, &dv);
			list_add(&sp->axis[k], dv.text);
			continue;
		}
		if ((rc = read_list(sp, v, key, axis_type(d), &sp->axis[k], e)) != GS_OK)
			return rc;
		if ((rc = check_setting_values(sp, key, d->name, &sp->axis[k], e)) != GS_OK)
			return rc;
		sp->given |= gs_setting_bit(d->name);
	}
	/* the per-method lists after the others (their errors come after theirs) */
	for (size_t k = 0; (d = gs_settings_axis(k)) != NULL; k++) {
		const cJSON *v = axes ? cJSON_GetObjectItemCaseSensitive(axes, d->axis.spec_key) : NULL;
		bool *named = NULL;
		gs_spec_list *lists = (d->axis.flags & GS_AXF_PER_METHOD) ? method_lists(sp, d, &named) : NULL;
		if (lists != NULL && v != NULL && (rc = read_per_method(sp, v, d->name, lists, named, e)) != GS_OK)
			return rc;
	}
	fill_precisions(sp);
	return GS_OK;
}

static gs_err read_settings(gs_spec *sp, const cJSON *v, gs_error *e)
{
	if (v == NULL)
		return GS_OK;
	if (!cJSON_IsObject(v))
		return spec_fail(e, sp, "settings", -1, "expected an object {setting: value}");
	for (const cJSON *it = v->child; it != NULL; it = it->next) {
		char key[96], buf[GS_LORA_NAMES_MAX];
		gs_settings s;
		gs_error sub = { 0 };
		snprintf(key, sizeof key, "settings.%.60s", it->string);
		const gs_setting *d = gs_setting_find(it->string);
		if (d != NULL && (d->flags & GS_SF_SWEPT))
			return spec_fail(e, sp, key, -1, "swept by the spec: use \"axes\" or \"gpu_counts\"");
		if (!scalar_text(it, 'a', buf, sizeof buf))
			return spec_fail(e, sp, key, -1, "expected a string, number or boolean");
		gs_settings_default(&s);
		if (gs_settings_set(&s, it->string, buf, &sub) != GS_OK)
			return spec_fail(e, sp, key, -1, "%s", sub.msg);
		list_add(&sp->set_names, it->string);
		list_add(&sp->set_values, buf);
		sp->given |= gs_setting_bit(it->string);
	}
	return GS_OK;
}

void gs_spec_free(gs_spec *sp)
{
	if (sp == NULL)
		return;
	free(sp->path);
	free(sp->text);
	list_free(&sp->models);
	free(sp->model_methods);
	list_free(&sp->gpus);
	free(sp->counts);
	for (int a = 0; a < GS_AXES_MAX; a++)
		list_free(&sp->axis[a]);
	for (int m = 0; m < GS_METHOD_MAX; m++) {
		list_free(&sp->prec[m]);
		list_free(&sp->stack[m]);
	}
	list_free(&sp->set_names);
	list_free(&sp->set_values);
	list_free(&sp->formats);
	list_free(&sp->commit);
	list_free(&sp->plan_gpus);
	free(sp->out);
	free(sp->publish_dir);
	free(sp->models_dir);
	free(sp->gpus_dir);
	memset(sp, 0, sizeof *sp);
}

/* "rank": the rule naming the smallest GPU; "plan": {"gpus": [ids],
 * "max_gpus": N}, every key optional. */
static gs_err read_plan(gs_spec *sp, const cJSON *root, gs_error *e)
{
	static const char *const keys[] = { "gpus", "max_gpus", NULL };
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "rank"), *it;
	gs_err rc;

	sp->plan_rank = GS_RANK_DEFAULT;
	sp->plan_max_gpus = GS_PLAN_VIEW_MAX_GPUS;
	if (v != NULL) {
		gs_plan_rank r = cJSON_IsString(v) ? gs_plan_rank_parse(v->valuestring) : GS_RANK_MAX;
		if (r >= GS_RANK_MEMORY_MAX) /* time and cost are plan's alone */
			return spec_fail(e, sp, "rank", -1, "expected \"%s\" or \"%s\"",
			                 gs_plan_rank_name(GS_RANK_FEWEST_GPUS),
			                 gs_plan_rank_name(GS_RANK_LEAST_MEMORY));
		sp->plan_rank = (int)r;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "eligible");
	if (v != NULL) {
		int i = 0;
		if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0)
			return spec_fail(e, sp, "eligible", -1,
			                 "expected a non-empty array of \"consumer\", \"workstation\", \"datacenter\"");
		for (it = v->child; it != NULL; it = it->next, i++) {
			gs_segment s = cJSON_IsString(it) ? gs_segment_parse(it->valuestring) : GS_SEG_MAX;
			if (s == GS_SEG_MAX)
				return spec_fail(e, sp, "eligible", i,
				                 "expected \"consumer\", \"workstation\" or \"datacenter\"");
			sp->eligible |= 1u << s;
		}
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "plan");
	if (v == NULL)
		return GS_OK;
	if ((rc = check_object(sp, v, "plan", keys, e)) != GS_OK)
		return rc;
	it = cJSON_GetObjectItemCaseSensitive(v, "gpus");
	if (it != NULL && (rc = read_list(sp, it, "plan.gpus", 's', &sp->plan_gpus, e)) != GS_OK)
		return rc;
	it = cJSON_GetObjectItemCaseSensitive(v, "max_gpus");
	if (it != NULL) {
		if (!cJSON_IsNumber(it) || it->valuedouble != (double)(int64_t)it->valuedouble ||
		    it->valuedouble < 1 || it->valuedouble > 4096)
			return spec_fail(e, sp, "plan.max_gpus", -1, "expected an integer 1-4096");
		sp->plan_max_gpus = (int64_t)it->valuedouble;
	}
	return GS_OK;
}

/* "time": {"tokens": N, "runtime": NAME, "train_runtime": NAME}, every key optional. */
static gs_err read_time(gs_spec *sp, const cJSON *root, gs_error *e)
{
	static const char *const keys[] = { "tokens", "runtime", "train_runtime", NULL };
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "time"), *it;
	gs_err rc;

	sp->time_tokens = 0;
	sp->time_runtime = GS_RT_HF;
	sp->time_train_runtime = GS_TRT_PYTORCH;
	sp->time_runtime_given = sp->time_train_runtime_given = false;
	if (v == NULL)
		return GS_OK;
	if ((rc = check_object(sp, v, "time", keys, e)) != GS_OK)
		return rc;
	it = cJSON_GetObjectItemCaseSensitive(v, "tokens");
	if (it != NULL) {
		if (!cJSON_IsNumber(it) || !(it->valuedouble >= 1) || it->valuedouble > 1e18)
			return spec_fail(e, sp, "time.tokens", -1, "expected a token budget, a number from 1 to 1e18");
		sp->time_tokens = it->valuedouble;
	}
	it = cJSON_GetObjectItemCaseSensitive(v, "runtime");
	if (it != NULL) {
		int rt = cJSON_IsString(it) ? gs_runtime_parse(it->valuestring) : -1;
		if (rt < 0)
			return spec_fail(e, sp, "time.runtime", -1, "expected \"hf\", \"compiled\", \"llama.cpp\", "
			                 "\"serving\" (or \"vllm\", \"sglang\", \"tensorrt-llm\"), \"autoawq\"");
		sp->time_runtime = rt;
		sp->time_runtime_given = true;
	}
	it = cJSON_GetObjectItemCaseSensitive(v, "train_runtime");
	if (it != NULL) {
		int rt = cJSON_IsString(it) ? gs_train_runtime_parse(it->valuestring) : -1;
		if (rt < 0)
			return spec_fail(e, sp, "time.train_runtime", -1, "expected \"pytorch\" or \"megatron\" "
			                 "(or \"hf\", \"torchtune\", \"nemo\", \"megatron-core\", \"megatron-lm\", "
			                 "\"megatron-bridge\")");
		sp->time_train_runtime = rt;
		sp->time_train_runtime_given = true;
	}
	return GS_OK;
}

/* "commit": the formats committed (written into out), each one of the
 * spec's formats; the others are built for publishing (publish_dir). */
static gs_err read_commit(gs_spec *sp, const cJSON *root, gs_error *e)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "commit");
	gs_err rc;

	if (v == NULL)
		return GS_OK;
	if (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 0)
		return spec_fail(e, sp, "commit", -1, "empty: name the formats a repository commits, or leave "
		                 "the key out to commit every format");
	if ((rc = read_list(sp, v, "commit", 's', &sp->commit, e)) != GS_OK)
		return rc;
	for (size_t i = 0; i < sp->commit.n; i++) {
		bool built = false;
		for (size_t k = 0; k < sp->formats.n; k++)
			built = built || strcmp(sp->formats.v[k], sp->commit.v[i]) == 0;
		if (gs_writer_find(sp->commit.v[i]) == NULL) {
			char names[256];
			gs_writer_names(names, sizeof names);
			return spec_fail(e, sp, "commit", (int)i, "unknown format \"%s\" (%s)", sp->commit.v[i], names);
		}
		if (!built)
			return spec_fail(e, sp, "commit", (int)i, "\"%s\" is not one of the spec's formats",
			                 sp->commit.v[i]);
	}
	return GS_OK;
}

static gs_err parse(gs_spec *sp, const cJSON *root, gs_error *e)
{
	const cJSON *v;
	gs_err rc;

	if (!cJSON_IsObject(root))
		return gs_fail(e, GS_ESPEC, "%s:1: expected a JSON object", sp->path);
	for (v = root->child; v != NULL; v = v->next) {
		if (!in_list(top_keys, v->string)) {
			char key[96];
			snprintf(key, sizeof key, "%.60s", v->string);
			return spec_fail(e, sp, key, -1,
			                 "unknown key (known: version, date, models, gpus, gpu_counts, axes, "
			                 "settings, formats, rank, eligible, plan, time, commit, out, publish_dir, "
			                 "models_dir, gpus_dir)");
		}
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "version");
	if (v == NULL)
		return gs_fail(e, GS_ESPEC, "%s:1: version: missing (write \"version\": 1)", sp->path);
	if (!cJSON_IsNumber(v) || v->valuedouble != 1)
		return spec_fail(e, sp, "version", -1, "expected 1 (the only version this gpusizer reads)");
	sp->version = 1;
	if ((rc = read_date(sp, root, e)) != GS_OK)
		return rc;
	v = cJSON_GetObjectItemCaseSensitive(root, "models");
	if (v == NULL)
		return gs_fail(e, GS_ESPEC, "%s:1: models: missing (an array of model ids or config paths)",
		               sp->path);
	if ((rc = read_models(sp, v, e)) != GS_OK)
		return rc;
	v = cJSON_GetObjectItemCaseSensitive(root, "gpus");
	if (v != NULL && (rc = read_list(sp, v, "gpus", 's', &sp->gpus, e)) != GS_OK)
		return rc;
	v = cJSON_GetObjectItemCaseSensitive(root, "gpu_counts");
	if (v != NULL) {
		if ((rc = read_counts(sp, v, e)) != GS_OK)
			return rc;
	} else {
		sp->counts = gs_xcalloc(1, sizeof *sp->counts);
		sp->counts[0].count = 1;
		sp->counts[0].tp = 1;
		sp->counts[0].pp = 1;
		snprintf(sp->counts[0].sharding, sizeof sp->counts[0].sharding, "ddp");
		sp->n_counts = 1;
	}
	if ((rc = read_axes(sp, cJSON_GetObjectItemCaseSensitive(root, "axes"), e)) != GS_OK)
		return rc;
	if ((rc = read_settings(sp, cJSON_GetObjectItemCaseSensitive(root, "settings"), e)) != GS_OK)
		return rc;
	if ((rc = read_time(sp, root, e)) != GS_OK)
		return rc;
	if ((rc = read_plan(sp, root, e)) != GS_OK)
		return rc;
	v = cJSON_GetObjectItemCaseSensitive(root, "formats");
	if (v != NULL) {
		if ((rc = read_list(sp, v, "formats", 's', &sp->formats, e)) != GS_OK)
			return rc;
		for (size_t i = 0; i < sp->formats.n; i++)
			if (gs_writer_find(sp->formats.v[i]) == NULL) {
				char names[256];
				gs_writer_names(names, sizeof names);
				return spec_fail(e, sp, "formats", (int)i, "unknown format \"%s\" (%s)",
				                 sp->formats.v[i], names);
			}
	} else {
		/* the registry's defaults, in its order */
		size_t n;
		const gs_writer_ops *w = gs_writer_registry(&n);
		for (size_t i = 0; i < n; i++)
			if (w[i].by_default)
				list_add(&sp->formats, w[i].name);
	}
	if ((rc = read_commit(sp, root, e)) != GS_OK)
		return rc;
	{
		/* Paths in the spec are relative to its directory; absent
		 * directories are the tool's defaults (paths.h). */
		char dir[4096], here[4096], models_dflt[4096], gpus_dflt[4096];
		spec_dir(sp->path, dir, sizeof dir);
		/* the tool's own spec: its outputs and configs are the current
		 * directory's (gs_spec_load_default) */
		snprintf(here, sizeof here, "%s", sp->tool_default ? "" : dir);
		gs_models_dir_default(models_dflt, sizeof models_dflt);
		gs_data_path(GS_DATA_GPUS, gpus_dflt, sizeof gpus_dflt);
		if ((rc = read_path(sp, root, "out", here, &sp->out, NULL, "out", e)) != GS_OK ||
		    (rc = read_path(sp, root, "publish_dir", here, &sp->publish_dir, NULL, "publish", e)) !=
		            GS_OK ||
		    (rc = read_path(sp, root, "models_dir", dir, &sp->models_dir, models_dflt, NULL, e)) !=
		            GS_OK ||
		    (rc = read_path(sp, root, "gpus_dir", dir, &sp->gpus_dir, gpus_dflt, NULL, e)) != GS_OK)
			return rc;
		if (sp->tool_default) {
			free(sp->models_dir);
			sp->models_dir = gs_xstrdup(models_dflt);
		}
		snprintf(dir, sizeof dir, "%s", here);
		for (size_t i = 0; dir[0] != '\0' && i < sp->models.n; i++) {
			if (sp->models.v[i][0] == '/' || !model_entry_is_path(dir, sp->models.v[i]))
				continue;
			char *joined = spec_join(dir, sp->models.v[i]);
			free(sp->models.v[i]);
			sp->models.v[i] = joined;
		}
	}
	return GS_OK;
}

static gs_err spec_parse(const char *text, const char *path, bool tool, gs_spec *sp, gs_error *e)
{
	cJSON *root;
	const char *end = NULL;
	gs_err rc;

	memset(sp, 0, sizeof *sp);
	sp->tool_default = tool;
	sp->path = gs_xstrdup(path);
	sp->text = gs_xstrdup(text);
	rc = gs_utf8_check(sp->text, strlen(sp->text), path, GS_ESPEC, e);
	if (rc != GS_OK) {
		gs_spec_free(sp);
		return rc;
	}
	root = cJSON_ParseWithOpts(sp->text, &end, 1);
	if (root == NULL && gs_json_depth_check(sp->text, strlen(sp->text), path, GS_ESPEC, e) != GS_OK) {
		gs_spec_free(sp);
		return GS_ESPEC;
	}
	if (root == NULL) {
		const char *err = cJSON_GetErrorPtr();
		int line = 1, col = 1;
		if (err == NULL || err < sp->text || err > sp->text + strlen(sp->text))
			err = sp->text;
		for (const char *p = sp->text; p < err; p++) {
			col = *p == '\n' ? 1 : col + 1;
			line += *p == '\n';
		}
		/* The file's text is never quoted: a spec path may name any file. */
		rc = gs_fail(e, GS_ESPEC, "%s:%d:%d: not valid JSON (a sweep spec is a JSON object; "
		             "docs/spec.md)", path, line, col);
		gs_spec_free(sp);
		return rc;
	}
	{
		gs_json_dup d;
		if (gs_json_find_dup(sp->text, strlen(sp->text), &d)) {
			rc = gs_fail(e, GS_ESPEC, "%s:%zu: %s: duplicate key \"%s\" (JSON readers disagree on which one counts)",
			             path, d.line, d.path, d.key);
			cJSON_Delete(root);
			gs_spec_free(sp);
			return rc;
		}
	}
	rc = parse(sp, root, e);
	cJSON_Delete(root);
	if (rc != GS_OK)
		gs_spec_free(sp);
	return rc;
}

static gs_err spec_load(const char *path, bool tool, gs_spec *sp, gs_error *e)
{
	char *text = NULL;
	gs_err rc;

	memset(sp, 0, sizeof *sp);
	rc = gs_read_file(path, SPEC_FILE_MAX, &text, NULL, e);
	if (rc != GS_OK) {
		if (e != NULL && rc == GS_EINPUT)
			e->code = GS_ESPEC;
		return rc == GS_EINPUT ? GS_ESPEC : rc;
	}
	if (strlen(text) == 0) {
		free(text);
		return gs_fail(e, GS_ESPEC, "%s:1: empty file", path);
	}
	rc = spec_parse(text, path, tool, sp, e);
	free(text);
	return rc;
}

gs_err gs_spec_parse(const char *text, const char *path, gs_spec *sp, gs_error *e)
{
	return spec_parse(text, path, false, sp, e);
}

gs_err gs_spec_load(const char *path, gs_spec *sp, gs_error *e)
{
	return spec_load(path, false, sp, e);
}

gs_err gs_spec_load_default(const char *path, gs_spec *sp, gs_error *e)
{
	return spec_load(path, true, sp, e);
}

/* ---- overrides from flags ---- */

static gs_err split_list(const char *flag, const char *csv, char sep, gs_spec_list *out, gs_error *e)
{
	const char *s = csv;

	list_free(out);
	for (;;) {
		const char *c = strchr(s, sep);
		size_t len = c ? (size_t)(c - s) : strlen(s);
		char buf[GS_LORA_NAMES_MAX];
		if (len == 0 || len >= sizeof buf) {
			list_free(out);
			return gs_fail(e, GS_EUSAGE, "--%s: empty or overlong value in \"%s\"", flag, csv);
		}
		memcpy(buf, s, len);
		buf[len] = '\0';
		list_add(out, buf);
		if (c == NULL)
			break;
		s = c + 1;
	}
	return GS_OK;
}

/* One --gpu-counts entry, COUNT[:SHARDING[:TP[:PP]]], strictly: COUNT, TP and PP
 * whole numbers (gs_parse_i64: no blank, no sign, no exponent),
 * SHARDING lower-case letters and digits; nothing else anywhere ("8
 * :pipeline" and "1e3" are errors, never 8 GPUs under zero3 or 1 GPU). */
static bool parse_count(const char *v, int64_t *cnt, char *shard, size_t n, int64_t *tp, int64_t *pp)
{
	const char *c1 = strchr(v, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL, *c3 = c2 ? strchr(c2 + 1, ':') : NULL;
	size_t sl;

	if (!gs_parse_i64(v, c1 ? (size_t)(c1 - v) : SIZE_MAX, cnt) || v[0] == '-')
		return false;
	if (c1 == NULL)
		return true;
	sl = c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1);
	if (sl == 0 || sl >= n)
		return false;
	for (size_t i = 0; i < sl; i++)
		if (!((c1[1 + i] >= 'a' && c1[1 + i] <= 'z') || (c1[1 + i] >= '0' && c1[1 + i] <= '9')))
			return false;
	memcpy(shard, c1 + 1, sl);
	shard[sl] = '\0';
	if (c2 == NULL)
		return true;
	if (!gs_parse_i64(c2 + 1, c3 ? (size_t)(c3 - c2 - 1) : SIZE_MAX, tp) || c2[1] == '-')
		return false;
	return c3 == NULL || (gs_parse_i64(c3 + 1, SIZE_MAX, pp) && c3[1] != '-');
}

static gs_err check_flag_values(const char *flag, const char *name, const gs_spec_list *l,
                                gs_error *e)
{
	for (size_t i = 0; i < l->n; i++) {
		gs_settings s;
		gs_error sub = { 0 };
		gs_settings_default(&s);
		if (gs_settings_set(&s, name, l->v[i], &sub) != GS_OK)
			return gs_fail(e, GS_EUSAGE, "--%s: \"%s\": %s", flag, l->v[i], sub.msg);
	}
	return GS_OK;
}

/* --gpu-counts (the GPU layouts' axis): COUNT[:SHARDING[:TP[:PP]]],... into
 * sp->counts. l is freed. */
static gs_err override_counts(gs_spec *sp, const char *flag, gs_spec_list *l, gs_error *e)
{
	gs_spec_count *c = gs_xcalloc(l->n ? l->n : 1, sizeof *c);
	gs_err rc = GS_OK;

	for (size_t i = 0; i < l->n && rc == GS_OK; i++) {
		char shard[32] = "";
		int64_t cnt = 0, tp = 1, pp = 1;
		gs_settings s;
		gs_error sub = { 0 };
		char buf[32];
		if (!parse_count(l->v[i], &cnt, shard, sizeof shard, &tp, &pp) || cnt < 1 || cnt > 4096 || tp < 1 ||
		    tp > cnt || pp < 1 || tp * pp > cnt || strlen(shard) >= sizeof c[i].sharding) {
			rc = gs_fail(e, GS_EUSAGE, "--%s: \"%s\": expected COUNT[:SHARDING[:TP[:PP]]]", flag, l->v[i]);
			break;
		}
		if (shard[0] == '\0')
			snprintf(shard, sizeof shard, "%s", cnt == 1 ? "ddp" : "zero3");
		gs_settings_default(&s);
		snprintf(buf, sizeof buf, "%lld", (long long)cnt);
		if (gs_settings_set(&s, "gpus", buf, &sub) != GS_OK ||
		    gs_settings_set(&s, "sharding", shard, &sub) != GS_OK) {
			rc = gs_fail(e, GS_EUSAGE, "--%s: \"%s\": %s", flag, l->v[i], sub.msg);
			break;
		}
		c[i].count = cnt;
		c[i].tp = tp;
		c[i].pp = pp;
		snprintf(c[i].sharding, sizeof c[i].sharding, "%s", shard);
	}
	if (rc == GS_OK) {
		free(sp->counts);
		sp->counts = c;
		sp->n_counts = l->n;
		sp->counts_line = 0;
	} else {
		free(c);
	}
	list_free(l);
	return rc;
}

/* An axis's override (its option, flag; its values separated by ',', or
 * ';' for GS_AXF_SEMICOLON): the values checked as the
 * setting's, then they replace the spec's list (a per-method axis: every
 * method's). l is taken. */
static gs_err override_axis(gs_spec *sp, const gs_setting *d, const char *flag, gs_spec_list *l, gs_error *e)
{
	gs_err rc;

	if (d->axis.flags & GS_AXF_COUNTS)
		return override_counts(sp, flag, l, e);
	if ((rc = check_flag_values(flag, d->name, l, e)) != GS_OK) {
		list_free(l);
		return rc;
	}
	if (d->axis.flags & GS_AXF_PER_METHOD) {
		bool *named;
		gs_spec_list *lists = method_lists(sp, d, &named);
		for (int m = 0; m < GS_METHOD_MAX; m++) {
			list_copy(&lists[m], l);
			if (named != NULL)
				named[m] = true;
		}
		list_free(l);
		return GS_OK;
	}
	list_free(&sp->axis[d->axis.order - 1]);
	sp->axis[d->axis.order - 1] = *l;
	sp->given |= gs_setting_bit(d->name);
	fill_precisions(sp); /* a method new to the sweep: its default precision */
	return GS_OK;
}

gs_err gs_spec_override(gs_spec *sp, const char *what, const char *csv, gs_error *e)
{
	const gs_setting *d = gs_settings_axis_option(what);
	gs_spec_list l = { 0 };
	gs_err rc;

	if ((rc = split_list(what, csv, d != NULL && (d->axis.flags & GS_AXF_SEMICOLON) ? ';' : ',', &l, e)) != GS_OK)
		return rc;
	if (d != NULL)
		return override_axis(sp, d, what, &l, e);
	if (strcmp(what, "models") == 0 || strcmp(what, "gpus") == 0) {
		gs_spec_list *dst = what[0] == 'm' ? &sp->models : &sp->gpus;
		list_free(dst);
		*dst = l;
		if (what[0] == 'm') { /* --models: every method for each */
			free(sp->model_methods);
			sp->model_methods = NULL;
		}
		return GS_OK;
	}
	if (strcmp(what, "formats") == 0) {
		for (size_t i = 0; i < l.n; i++)
			if (gs_writer_find(l.v[i]) == NULL) {
				char names[256];
				gs_writer_names(names, sizeof names);
				rc = gs_fail(e, GS_EUSAGE, "--format: unknown format \"%s\" (%s)", l.v[i], names);
				goto out;
			}
		list_free(&sp->formats);
		sp->formats = l;
		return GS_OK;
	}
	rc = gs_fail(e, GS_EINTERNAL, "spec override: unknown axis \"%s\"", what);
out:
	list_free(&l);
	return rc;
}
