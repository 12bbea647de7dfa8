/* gpusizer: the measurement record (one field list, written and read by
 * the same walk) and the store of them, measurements/verified.jsonl: load,
 * look up by (model, row key), format, check before a run, append
 * atomically under the store's lock. */
#define _POSIX_C_SOURCE 200809L
#include "measured.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "util.h"

/* ------------------------------------------------------------ the fields */

typedef enum mkind {
	MF_OBJ,   /* a nested object, fields up to its MF_END */
	MF_END,
	MF_STR,   /* char[size] */
	MF_PSTR,  /* char *, owned; NULL absent */
	MF_JSON,  /* char *: JSON text kept as a subtree; NULL absent */
	MF_U64,   /* uint64_t byte count */
	MF_INT,   /* int */
	MF_UINT,  /* unsigned */
	MF_DBL,   /* double */
	MF_BOOL,  /* bool */
	MF_SETTINGS, /* gs_settings: an object of every setting of the settings table */
} mkind;

/* How an absent value is written (the reader maps each back). */
enum {
	MF_NULL_IF_ZERO = 1u << 0,   /* 0 / "" is written as null */
	MF_NULL_UNLESS = 1u << 1,    /* null unless the bool at flag is set */
	MF_OMIT_UNLESS = 1u << 2,    /* left out unless the bool at flag is set */
	MF_OMIT_IF_FALSE = 1u << 3,  /* a bool written only when true */
	MF_OMIT_IF_NULL = 1u << 4,   /* a char * left out when NULL */
};

typedef struct mfield {
	const char *key;
	mkind kind;
	unsigned how;
	size_t off, size;            /* of the value in gs_measured */
	size_t flag;                 /* offset of the bool for MF_NULL_UNLESS / MF_OMIT_UNLESS */
} mfield;

#define OFF(f) offsetof(gs_measured, f)
#define SZ(f) sizeof(((gs_measured *)0)->f)
#define F(key, kind, f, how) { key, kind, how, OFF(f), SZ(f), 0 }
#define FU(key, kind, f, how, fl) { key, kind, how, OFF(f), SZ(f), OFF(fl) }
#define OBJ(key) { key, MF_OBJ, 0, 0, 0, 0 }
#define OBJ_UNLESS(key, fl) { key, MF_OBJ, MF_OMIT_UNLESS, 0, 0, OFF(fl) }
#define END { NULL, MF_END, 0, 0, 0, 0 }
#define CMP(key, c)                                                                               \
	OBJ_UNLESS(key, have_figures),                                                            \
	F("predicted", MF_U64, c.predicted, 0),                                                   \
	FU("measured", MF_U64, c.measured, MF_NULL_UNLESS, c.have),                               \
	FU("error_pct", MF_DBL, c.error_pct, MF_NULL_UNLESS, c.have),                             \
	FU("within", MF_BOOL, c.within, MF_NULL_UNLESS, c.have), END
#define PART(key, c, fl)                                                                          \
	OBJ_UNLESS(key, fl), F("predicted", MF_U64, c.predicted, 0),                              \
	F("measured", MF_U64, c.measured, 0), F("error_pct", MF_DBL, c.error_pct, 0), END

/* The record, in the order it is written. */
static const mfield fields[] = {
	F("schema", MF_INT, schema, 0),
	F("date", MF_STR, date, 0),
	F("gpusizer", MF_STR, gpusizer, 0),
	F("row", MF_STR, row, 0),
	F("model", MF_PSTR, model, 0),
	F("config", MF_PSTR, config, 0),
	F("label", MF_STR, label, 0),
	F("status", MF_STR, status, 0),
	F("verdict", MF_STR, verdict, 0),
	F("tolerance_pct", MF_DBL, tolerance_pct, 0),
	F("command", MF_PSTR, command, 0),
	F("settings", MF_SETTINGS, settings, 0),
	OBJ("machine"),
		FU("os", MF_STR, os, MF_OMIT_UNLESS, have_uname),
		FU("kernel", MF_STR, kernel, MF_OMIT_UNLESS, have_uname),
		FU("arch", MF_STR, arch, MF_OMIT_UNLESS, have_uname),
		F("cpu", MF_PSTR, cpu, MF_OMIT_IF_NULL),
		FU("host_memory_bytes", MF_U64, host_memory_bytes, MF_OMIT_UNLESS, have_host_memory),
	END,
	OBJ("gpu"),
		F("name", MF_STR, gpu_name, 0),
		F("class", MF_STR, gpu_class, MF_NULL_IF_ZERO),
		F("index", MF_UINT, gpu_index, 0),
		F("total_bytes", MF_U64, gpu_total_bytes, 0),
		F("free_bytes_at_start", MF_U64, gpu_free_bytes_at_start, 0),
		F("usable_bytes", MF_U64, gpu_usable_bytes, 0),
		F("usable_from", MF_STR, gpu_usable_from, 0),
		F("driver", MF_STR, gpu_driver, 0),
		F("cuda", MF_STR, gpu_cuda, 0),
		F("fake", MF_BOOL, gpu_fake, MF_OMIT_IF_FALSE),
	END,
	OBJ("predicted"),
		F("formula", MF_STR, pred_formula, 0),
		F("recipe", MF_PSTR, pred_recipe, 0),
		F("allocated", MF_U64, pred_allocated, 0),
		F("reserved", MF_U64, pred_reserved, 0),
		F("device", MF_U64, pred_device, 0),
		F("W", MF_U64, pred_W, 0),
		F("G", MF_U64, pred_G, 0),
		F("O", MF_U64, pred_O, 0),
		F("A", MF_U64, pred_A, 0),
		F("B", MF_U64, pred_B, 0),
		F("peak_phase", MF_STR, pred_peak_phase, 0),
		F("peak_step", MF_INT, pred_peak_step, 0),
		F("params_total", MF_U64, pred_params_total, 0),
		F("params_trainable", MF_U64, pred_params_trainable, 0),
	END,
	OBJ("measured"),
		F("allocated", MF_U64, allocated, MF_NULL_IF_ZERO),
		F("reserved", MF_U64, reserved, MF_NULL_IF_ZERO),
		F("device", MF_U64, device, MF_NULL_IF_ZERO),
		F("device_method", MF_STR, device_method, MF_NULL_IF_ZERO),
		F("nvml_samples", MF_UINT, nvml_samples, 0),
		F("device_peak_including_other_processes", MF_U64, device_peak_including_other_processes,
		  MF_NULL_IF_ZERO),
	END,
	OBJ("comparison"),
		CMP("allocated", cmp_allocated),
		CMP("reserved", cmp_reserved),
		CMP("device", cmp_device),
		PART("W", cmp_W, have_cmp_W),
		PART("O", cmp_O, have_cmp_O),
	END,
	F("harness_result", MF_JSON, harness_result, MF_OMIT_IF_NULL),
	F("harness_path", MF_PSTR, harness_path, 0),
};
#define N_FIELDS (sizeof fields / sizeof fields[0])

static void *at(gs_measured *m, size_t off)
{
	return (char *)m + off;
}

static const void *cat(const gs_measured *m, size_t off)
{
	return (const char *)m + off;
}

static bool flag_set(const gs_measured *m, const mfield *f)
{
	return *(const bool *)cat(m, f->flag);
}

/* The index of the MF_END closing the object at fields[i]. */
static size_t obj_end(size_t i)
{
	int depth = 0;

	for (; i < N_FIELDS; i++) {
		if (fields[i].kind == MF_OBJ)
			depth++;
		else if (fields[i].kind == MF_END && --depth == 0)
			break;
	}
	return i;
}

static void *json_oom(void)
{
	fputs("gpusizer: host memory exhausted (this machine's RAM, not the GPU's)\n", stderr);
	exit(gs_exit_code(GS_ENOMEM));
}

/* ------------------------------------------------------------ writing */

/* The row's settings, keyed by name in table order: text for a named value,
 * a boolean, a number, or null for one derived and not given. */
static cJSON *settings_to_json(const gs_settings *s)
{
	cJSON *o = cJSON_CreateObject();
	const gs_setting *t = gs_settings_table();

	if (o == NULL)
		json_oom();
	for (size_t i = 0; i < gs_settings_count(); i++) {
		gs_setting_value v;
		cJSON *x;

		gs_setting_get(&t[i], s, &v);
		if (v.named)
			x = cJSON_CreateString(v.text);
		else if (v.unset)
			x = cJSON_CreateNull();
		else if (v.type == GS_ST_BOOL)
			x = cJSON_CreateBool(v.b);
		else
			x = cJSON_CreateNumber(v.d);
		if (x == NULL || !cJSON_AddItemToObject(o, t[i].name, x))
			json_oom();
	}
	return o;
}

/* Field f of m as a new cJSON value; false to leave it out. */
static bool value_to_json(const gs_measured *m, const mfield *f, cJSON **out)
{
	const void *p = cat(m, f->off);
	const char *s;

	*out = NULL;
	if ((f->how & MF_NULL_UNLESS) && !flag_set(m, f)) {
		*out = cJSON_CreateNull();
		return true;
	}
	switch (f->kind) {
	case MF_STR:
		s = p;
		*out = (f->how & MF_NULL_IF_ZERO) && !*s ? cJSON_CreateNull() : cJSON_CreateString(s);
		break;
	case MF_PSTR:
	case MF_JSON:
		s = *(char *const *)p;
		if (s == NULL && (f->how & MF_OMIT_IF_NULL))
			return false;
		if (s == NULL)
			*out = cJSON_CreateNull();
		else if (f->kind == MF_PSTR)
			*out = cJSON_CreateString(s);
		else if ((*out = cJSON_Parse(s)) == NULL)
			*out = cJSON_CreateNull(); /* not JSON: recorded as absent */
		break;
	case MF_U64: {
		uint64_t v = *(const uint64_t *)p;
		*out = (f->how & MF_NULL_IF_ZERO) && v == 0 ? cJSON_CreateNull() : cJSON_CreateNumber((double)v);
		break;
	}
	case MF_INT: *out = cJSON_CreateNumber(*(const int *)p); break;
	case MF_UINT: *out = cJSON_CreateNumber(*(const unsigned *)p); break;
	case MF_DBL: *out = cJSON_CreateNumber(*(const double *)p); break;
	case MF_BOOL:
		if ((f->how & MF_OMIT_IF_FALSE) && !*(const bool *)p)
			return false;
		*out = cJSON_CreateBool(*(const bool *)p);
		break;
	case MF_SETTINGS: *out = settings_to_json(p); break;
	case MF_OBJ:
	case MF_END: return false;
	}
	if (*out == NULL)
		json_oom();
	return true;
}

cJSON *gs_measured_to_json(const gs_measured *m)
{
	cJSON *stack[8];
	int depth = 0;

	stack[0] = cJSON_CreateObject();
	if (stack[0] == NULL)
		json_oom();
	for (size_t i = 0; i < N_FIELDS; i++) {
		const mfield *f = &fields[i];
		cJSON *v;

		if (f->kind == MF_END) {
			depth--;
		} else if ((f->how & MF_OMIT_UNLESS) && !flag_set(m, f)) {
			if (f->kind == MF_OBJ)
				i = obj_end(i);
		} else if (f->kind == MF_OBJ) {
			stack[depth + 1] = cJSON_AddObjectToObject(stack[depth], f->key);
			if (stack[++depth] == NULL)
				json_oom();
		} else if (value_to_json(m, f, &v)) {
			if (!cJSON_AddItemToObject(stack[depth], f->key, v))
				json_oom();
		}
	}
	return stack[0];
}

char *gs_measured_format(const gs_measured *m, bool pretty)
{
	cJSON *j = gs_measured_to_json(m);
	char *txt = pretty ? cJSON_Print(j) : cJSON_PrintUnformatted(j);
	size_t len;

	cJSON_Delete(j);
	if (txt == NULL)
		json_oom();
	if (!pretty)
		return txt;
	len = strlen(txt);
	txt = gs_xrealloc(txt, len + 2);
	txt[len] = '\n';
	txt[len + 1] = '\0';
	return txt;
}

/* ------------------------------------------------------------ reading */

/* A number in [lo, hi], else false. */
static bool number_in(const cJSON *v, double lo, double hi, double *d)
{
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo) || !(v->valuedouble <= hi))
		return false;
	*d = v->valuedouble;
	return true;
}

gs_err gs_settings_from_json(const cJSON *o, gs_settings *s, gs_error *e)
{
	const gs_setting *t = gs_settings_table();

	gs_settings_default(s);
	if (!cJSON_IsObject(o))
		return gs_fail(e, GS_EINPUT, "\"settings\": not an object");
	for (size_t i = 0; i < gs_settings_count(); i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, t[i].name);
		char buf[GS_LORA_NAMES_MAX];
		gs_err rc;

		/* "auto" is how a derived setting not given is written
		 * (gs_setting_value.unset); for any other it is a value. */
		if (v == NULL || cJSON_IsNull(v) ||
		    (t[i].def == NULL && cJSON_IsString(v) && strcmp(v->valuestring, "auto") == 0))
			continue;
		if (cJSON_IsString(v))
			snprintf(buf, sizeof buf, "%s", v->valuestring);
		else if (cJSON_IsBool(v))
			snprintf(buf, sizeof buf, "%s", cJSON_IsTrue(v) ? "true" : "false");
		else if (cJSON_IsNumber(v) && isfinite(v->valuedouble))
			snprintf(buf, sizeof buf, t[i].type == GS_ST_INT ? "%.0f" : "%.10g", v->valuedouble);
		else
			return gs_fail(e, GS_EINPUT, "\"settings\".\"%s\": not a string, boolean or number", t[i].name);
		if ((rc = gs_settings_set(s, t[i].name, buf, e)) != GS_OK)
			return rc;
		s->given |= gs_setting_bit(t[i].name); /* a recorded row: no stack moves it */
	}
	return GS_OK;
}

static bool settings_from_json(gs_settings *s, const cJSON *o)
{
	gs_error e = { 0 };

	return gs_settings_from_json(o, s, &e) == GS_OK;
}

/* Field f of m from item v (NULL when missing); true when v held one. */
static bool value_from_json(gs_measured *m, const mfield *f, const cJSON *v)
{
	void *p = at(m, f->off);
	double d;

	switch (f->kind) {
	case MF_STR:
		if (!cJSON_IsString(v) || v->valuestring == NULL)
			return false;
		snprintf(p, f->size, "%s", v->valuestring);
		return true;
	case MF_PSTR:
		if (!cJSON_IsString(v) || v->valuestring == NULL)
			return false;
		*(char **)p = gs_xstrdup(v->valuestring);
		return true;
	case MF_JSON:
		if (v == NULL)
			return false;
		if ((*(char **)p = cJSON_PrintUnformatted(v)) == NULL)
			json_oom();
		return true;
	case MF_U64:
		/* a non-negative byte count below 2^64 (null / missing / bad: 0) */
		if (!number_in(v, 0, 18446744073709549568.0, &d))
			return false;
		*(uint64_t *)p = (uint64_t)d;
		return true;
	case MF_INT:
		if (!number_in(v, -2147483648.0, 2147483647.0, &d))
			return false;
		*(int *)p = (int)d;
		return true;
	case MF_UINT:
		if (!number_in(v, 0, 4294967295.0, &d))
			return false;
		*(unsigned *)p = (unsigned)d;
		return true;
	case MF_DBL:
		/* the record's reals are percentages (an error, the tolerance):
		 * finite (an infinity would be written back as null) and within
		 * +-1e9, far past any error a measurement gives */
		if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || fabs(v->valuedouble) > 1e9)
			return false;
		*(double *)p = v->valuedouble;
		return true;
	case MF_BOOL:
		if (!cJSON_IsBool(v))
			return false;
		*(bool *)p = cJSON_IsTrue(v);
		return true;
	case MF_SETTINGS:
		return m->have_settings = settings_from_json(p, v);
	case MF_OBJ:
	case MF_END: break;
	}
	return false;
}

/* Walk the field list over root: what each field names, where it is. */
static void fields_from_json(gs_measured *m, const cJSON *root)
{
	const cJSON *stack[8];
	int depth = 0;

	stack[0] = root;
	for (size_t i = 0; i < N_FIELDS; i++) {
		const mfield *f = &fields[i];
		const cJSON *v;
		bool got;

		if (f->kind == MF_END) {
			depth--;
			continue;
		}
		v = stack[depth] ? cJSON_GetObjectItemCaseSensitive(stack[depth], f->key) : NULL;
		if (f->kind == MF_OBJ) {
			stack[++depth] = cJSON_IsObject(v) ? v : NULL;
			got = stack[depth] != NULL;
		} else {
			got = value_from_json(m, f, v);
		}
		if (got && (f->how & (MF_NULL_UNLESS | MF_OMIT_UNLESS)))
			*(bool *)at(m, f->flag) = true;
	}
}

gs_err gs_measured_parse(const char *text, gs_measured *m, gs_error *e)
{
	cJSON *root = cJSON_Parse(text);
	const cJSON *model, *label;

	memset(m, 0, sizeof *m);
	if (root == NULL || !cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return gs_fail(e, GS_EINPUT, "not a JSON object");
	}
	model = cJSON_GetObjectItemCaseSensitive(root, "model");
	label = cJSON_GetObjectItemCaseSensitive(root, "label");
	if (!cJSON_IsString(model) || !cJSON_IsString(label)) {
		cJSON_Delete(root);
		return gs_fail(e, GS_EINPUT, "missing string \"model\" or \"label\"");
	}
	fields_from_json(m, root);
	m->oom = strcmp(m->status, "oom") == 0;
	if (m->have_settings)
		gs_settings_key(&m->settings, m->key, sizeof m->key);
	cJSON_Delete(root);
	return GS_OK;
}

void gs_measured_clear(gs_measured *m)
{
	if (m == NULL)
		return;
	for (size_t i = 0; i < N_FIELDS; i++)
		if (fields[i].kind == MF_PSTR || fields[i].kind == MF_JSON)
			free(*(char **)at(m, fields[i].off));
	memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------ the store */

/* Where a line of the store goes wrong, for the messages. */
#define INCOMPLETE_TAIL "incomplete last line (no final newline: a copy or a write was cut off)"

/*
 * The lines of a store's text buf[len] (modified: lines are cut at their
 * newlines) into st (NULL: only checked). An incomplete last line (no
 * final newline, not a record) is skipped with a warning into warn[wn]
 * when tail_ok, else an error; any other bad line is GS_EINPUT path:line.
 */
static gs_err read_lines(const char *path, char *buf, size_t len, gs_measured_store *st,
                         bool tail_ok, char *warn, size_t wn, gs_error *e)
{
	size_t cap = 0, lineno = 0;
	gs_measured one;
	gs_error rerr = {0};
	char *p, *nl;

	for (p = buf; p < buf + len; p = nl + 1) {
		gs_measured *m = &one;
		bool last;
		char *q;

		nl = memchr(p, '\n', (size_t)(buf + len - p));
		last = nl == NULL;
		if (last)
			nl = buf + len;
		*nl = '\0';
		lineno++;
		for (q = p; *q == ' ' || *q == '\t' || *q == '\r'; q++)
			;
		if (*q == '\0')
			continue;
		if (st != NULL && st->n == cap) {
			cap = cap ? cap * 2 : 16;
			st->rec = gs_xrealloc(st->rec, cap * sizeof *st->rec);
		}
		if (st != NULL)
			m = &st->rec[st->n];
		rerr = (gs_error){0};
		if (gs_measured_parse(q, m, &rerr) == GS_OK) {
			if (st != NULL)
				st->n++;
			else
				gs_measured_clear(m);
			continue;
		}
		gs_measured_clear(m);
		if (last && tail_ok) {
			snprintf(warn, wn, "%s:%zu: %s skipped; complete or delete it", path, lineno,
			         INCOMPLETE_TAIL);
			break;
		}
		if (last)
			return gs_fail(e, GS_EINPUT, "%s:%zu: %s; complete or delete it (the store is not "
			               "changed)", path, lineno, INCOMPLETE_TAIL);
		return gs_fail(e, GS_EINPUT, "%s:%zu: %s", path, lineno, rerr.msg);
	}
	return GS_OK;
}

gs_err gs_measured_load(const char *path, gs_measured_store *st, gs_error *e)
{
	char *buf = NULL;
	size_t len = 0;
	gs_error rerr = {0};
	gs_err rc;

	st->rec = NULL;
	st->n = 0;
	st->warning[0] = '\0';
	if (path == NULL)
		path = GS_MEASURED_STORE_DEFAULT;
	rc = gs_read_file(path, GS_MEASURED_MAX_BYTES, &buf, &len, &rerr);
	if (rc == GS_ENOFILE)
		return GS_OK; /* no store yet: nothing verified */
	if (rc != GS_OK)
		return gs_fail(e, rc, "%s", rerr.msg);
	rc = read_lines(path, buf, len, st, true, st->warning, sizeof st->warning, e);
	free(buf);
	if (rc != GS_OK)
		gs_measured_free(st);
	return rc;
}

void gs_measured_free(gs_measured_store *st)
{
	if (st == NULL)
		return;
	for (size_t i = 0; i < st->n; i++)
		gs_measured_clear(&st->rec[i]);
	free(st->rec);
	st->rec = NULL;
	st->n = 0;
}

const gs_measured *gs_measured_find(const gs_measured_store *st, const char *model,
                                    const char *key)
{
	for (size_t i = st->n; i-- > 0;)
		if (st->rec[i].model != NULL && st->rec[i].key[0] != '\0' &&
		    strcmp(st->rec[i].model, model) == 0 && strcmp(st->rec[i].key, key) == 0)
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

/* ------------------------------------------------------------ appending */

/* The file the store path names: a symbolic link's target (the link is
 * kept), else path itself; its directory into dir, created when missing if
 * create, else (a check) its nearest existing ancestor. */
static gs_err store_target(const char *path, bool create, char *target, size_t n, char *dir,
                           size_t dn, gs_error *e)
{
	struct stat sb;
	char *real = NULL, *slash;

	if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
		real = realpath(path, NULL);
		if (real == NULL)
			return gs_fail(e, GS_EIO, "%s: symbolic link to a missing file: %s", path,
			               strerror(errno));
	}
	if ((size_t)snprintf(target, n, "%s", real ? real : path) >= n ||
	    strlen(target) + strlen(GS_MEASURED_LOCK_SUFFIX) >= n) {
		free(real);
		return gs_fail(e, GS_EIO, "%s: path too long", path);
	}
	free(real);
	snprintf(dir, dn, "%s", target);
	for (;;) {
		slash = strrchr(dir, '/');
		if (slash == NULL) {
			snprintf(dir, dn, ".");
			return GS_OK;
		}
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (create)
			return gs_mkdirs(dir, e);
		if (gs_is_dir(dir) || slash == dir)
			return GS_OK;
	}
}

/* The store's lock file, "<target>.lock", into buf. */
#define LOCK_PATH_MAX 4200
static void lock_path(const char *target, char buf[LOCK_PATH_MAX])
{
	snprintf(buf, LOCK_PATH_MAX, "%s%s", target, GS_MEASURED_LOCK_SUFFIX);
}

/* Take the store's lock. */
static gs_err store_lock(gs_lock *l, const char *target, gs_error *e)
{
	char lpath[LOCK_PATH_MAX];

	lock_path(target, lpath);
	return gs_lock_acquire(l, lpath, gs_lock_wait_default(), e);
}

/* The store's text at target (NULL, 0 when missing); room bytes must fit
 * below GS_MEASURED_MAX_BYTES after it. */
static gs_err store_read(const char *path, const char *target, size_t room, char **old,
                         size_t *old_len, gs_error *e)
{
	gs_error rerr = {0};
	gs_err rc;

	*old = NULL;
	*old_len = 0;
	rc = gs_read_file(target, GS_MEASURED_MAX_BYTES, old, old_len, &rerr);
	if (rc == GS_ENOFILE) {
		*old = NULL;
		*old_len = 0;
		return GS_OK;
	}
	if (rc != GS_OK)
		return gs_fail(e, rc, "%s (store not changed)", rerr.msg);
	if (*old_len + room > GS_MEASURED_MAX_BYTES) {
		free(*old);
		*old = NULL;
		return gs_fail(e, GS_EINPUT, "%s: %zu bytes; one more record would pass the store's "
		               "%u-byte limit: start another store (verify --store FILE, report "
		               "--measurements FILE)", path, *old_len, GS_MEASURED_MAX_BYTES);
	}
	return GS_OK;
}

gs_err gs_measured_check(const char *path, gs_error *e)
{
	char target[4096], dir[4096], lpath[LOCK_PATH_MAX], *old = NULL;
	size_t old_len = 0;
	gs_lock lock;
	gs_err rc;

	if (path == NULL)
		path = GS_MEASURED_STORE_DEFAULT;
	if ((rc = store_target(path, false, target, sizeof target, dir, sizeof dir, e)) != GS_OK)
		return rc;
	if (access(dir, W_OK) != 0)
		return gs_fail(e, GS_EIO, "%s: cannot write in its directory %s: %s", path, dir,
		               strerror(errno));
	if ((rc = store_read(path, target, GS_MEASURED_ROOM, &old, &old_len, e)) != GS_OK)
		return rc;
	if (old != NULL)
		rc = read_lines(path, old, old_len, NULL, false, NULL, 0, e);
	free(old);
	if (rc != GS_OK)
		return rc;
	/* An existing lock must be had; a missing one is created by the append
	 * (the directory is writable), not by this check. */
	lock_path(target, lpath);
	if (!gs_is_file(lpath))
		return GS_OK;
	if ((rc = store_lock(&lock, target, e)) != GS_OK)
		return rc;
	gs_lock_release(&lock);
	return GS_OK;
}

/* The line the NUL-terminated store text buf[len] ends with when it has no
 * final newline (NULL when it ends with one, or is empty), and its number;
 * *blank when it holds only blanks. */
static const char *unterminated_tail(const char *buf, size_t len, size_t *lineno, bool *blank)
{
	const char *p = buf;

	*lineno = 1;
	if (len == 0 || buf[len - 1] == '\n')
		return NULL;
	for (const char *q = buf; q < buf + len; q++)
		if (*q == '\n') {
			p = q + 1;
			++*lineno;
		}
	*blank = p[strspn(p, " \t\r")] == '\0';
	return p;
}

gs_err gs_measured_append(const char *path, const char *json_line, gs_error *e)
{
	char target[4096], dir[4096], *old = NULL, *buf;
	size_t old_len = 0, add = strlen(json_line), lineno;
	const char *tail;
	bool blank = false;
	gs_lock lock;
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
	if ((rc = store_target(path, true, target, sizeof target, dir, sizeof dir, e)) != GS_OK ||
	    (rc = store_lock(&lock, target, e)) != GS_OK)
		return rc;
	rc = store_read(path, target, add + 2, &old, &old_len, e);
	tail = rc == GS_OK && old != NULL ? unterminated_tail(old, old_len, &lineno, &blank) : NULL;
	if (tail != NULL && !blank) {
		/* A previous writer's record without its final newline is kept
		 * and ended; a cut-off line is not buried under this one. */
		gs_measured m;
		gs_error perr = {0};
		if (gs_measured_parse(tail, &m, &perr) != GS_OK) /* tail ends at old's NUL */
			rc = gs_fail(e, GS_EINPUT, "%s:%zu: %s; complete or delete it (the store is not "
			             "changed)", path, lineno, INCOMPLETE_TAIL);
		gs_measured_clear(&m);
	}
	if (rc == GS_OK) {
		buf = gs_xmalloc(old_len + add + 2);
		if (old_len)
			memcpy(buf, old, old_len);
		if (tail != NULL)
			buf[old_len++] = '\n';
		memcpy(buf + old_len, json_line, add);
		buf[old_len + add] = '\n';
		rc = gs_write_file_atomic(target, buf, old_len + add + 1, e);
		free(buf);
	}
	gs_lock_release(&lock);
	free(old);
	return rc;
}
