/* gpusizer: safetensors header parsing and tallying (pure, on a buffer). */
#include "safetensors.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util.h"

static const struct {
	const char *name;
	unsigned bits;
} dtypes[] = {
	{"BOOL", 8},     {"F4", 4},       {"F6_E2M3", 6},     {"F6_E3M2", 6},     {"U8", 8},
	{"I8", 8},       {"F8_E5M2", 8},  {"F8_E4M3", 8},     {"F8_E8M0", 8},     {"F8_E4M3FNUZ", 8},
	{"F8_E5M2FNUZ", 8}, {"I16", 16},  {"U16", 16},        {"F16", 16},        {"BF16", 16},
	{"I32", 32},     {"U32", 32},     {"F32", 32},        {"C64", 64},        {"F64", 64},
	{"I64", 64},     {"U64", 64},
};

unsigned gs_st_dtype_bits(const char *dtype)
{
	for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
		if (strcmp(dtypes[i].name, dtype) == 0)
			return dtypes[i].bits;
	return 0;
}

gs_err gs_st_header_len(const char *name, const unsigned char *buf, size_t len, uint64_t *hlen,
                        gs_error *e)
{
	uint64_t n = 0;

	if (len < 8)
		return gs_fail(e, GS_EINPUT, "%s: safetensors file shorter than its 8-byte header length "
		               "(%zu bytes received)", name, len);
	for (int i = 7; i >= 0; i--)
		n = (n << 8) | buf[i];
	if (n == 0 || n > GS_ST_HEADER_MAX)
		return gs_fail(e, GS_EINPUT, "%s: safetensors header length %llu is out of range "
		               "(1..%u)", name, (unsigned long long)n, GS_ST_HEADER_MAX);
	*hlen = n;
	return GS_OK;
}

/* Add to the named row of a count table (the last row collects overflow). */
static void add_count(gs_st_count *rows, int *n, int max, const char *name, uint64_t params,
                      uint64_t bytes, gs_error *e, gs_err *rc)
{
	int i;

	for (i = 0; i < *n; i++)
		if (strcmp(rows[i].name, name) == 0)
			break;
	if (i == *n) {
		if (*n == max - 1 && strcmp(name, "(other)") != 0) {
			add_count(rows, n, max, "(other)", params, bytes, e, rc);
			return;
		}
		if (*n == max)
			i = max - 1;
		else {
			memset(&rows[i], 0, sizeof rows[i]);
			snprintf(rows[i].name, sizeof rows[i].name, "%s", name);
			(*n)++;
		}
	}
	if (!gs_add_u64(rows[i].params, params, &rows[i].params) ||
	    !gs_add_u64(rows[i].bytes, bytes, &rows[i].bytes))
		*rc = gs_fail(e, GS_EOVERFLOW, "safetensors tally for %s overflows 64 bits", name);
	rows[i].tensors++;
}

/* "model.layers.12.mlp.up_proj.weight" -> "model.layers.*.mlp.up_proj". */
static void module_of(const char *tensor, char *out, size_t n)
{
	const char *last = strrchr(tensor, '.');
	size_t end = last ? (size_t)(last - tensor) : strlen(tensor);
	size_t o = 0;

	for (size_t i = 0; i < end && o + 1 < n;) {
		size_t j = i;
		bool digits = true;
		while (j < end && tensor[j] != '.') {
			if (!isdigit((unsigned char)tensor[j]))
				digits = false;
			j++;
		}
		if (digits && j > i) {
			out[o++] = '*';
		} else {
			for (size_t k = i; k < j && o + 1 < n; k++)
				out[o++] = tensor[k];
		}
		if (j < end && o + 1 < n)
			out[o++] = '.';
		i = j + 1;
	}
	out[o] = '\0';
	if (o == 0)
		snprintf(out, n, "%s", tensor);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* What the stages of one gs_st_parse call share. */
typedef struct st_ctx {
	const char *name;   /* the file, for messages */
	uint64_t file_size; /* 0 = unknown */
	uint64_t data_size; /* bytes after the header (file_size known) */
	gs_st_tally *t;     /* the tally being built */
	bool has_absmax;    /* a bitsandbytes absmax/quant_map tensor was seen */
	gs_error *e;
} st_ctx;

/* One tensor entry of the header, as its stages check it. */
typedef struct st_tensor {
	const char *tn;      /* its name */
	const char *dtype;
	const cJSON *shape;  /* borrowed from the header tree */
	const cJSON *offs;
	unsigned bits;       /* per element */
	uint64_t elems, bytes, b0, b1;
} st_tensor;

/* Check the declared header length against the bytes received and the file
 * size, and that the JSON starts with '{'; sets *hlen and c->data_size. */
static gs_err check_lengths(st_ctx *c, const unsigned char *buf, size_t len, uint64_t *hlen)
{
	uint64_t need;
	gs_err rc;

	rc = gs_st_header_len(c->name, buf, len, hlen, c->e);
	if (rc != GS_OK)
		return rc;
	need = *hlen + 8;
	if (c->file_size != 0 && need > c->file_size)
		return gs_fail(c->e, GS_EINPUT, "%s: safetensors header declares %llu bytes but the "
		               "file has only %llu", c->name, (unsigned long long)*hlen,
		               (unsigned long long)c->file_size);
	if ((uint64_t)len < need)
		return gs_fail(c->e, GS_EINPUT, "%s: safetensors header declares %llu bytes but only "
		               "%llu were received", c->name, (unsigned long long)*hlen,
		               (unsigned long long)(len >= 8 ? len - 8 : 0));
	if (c->file_size != 0)
		c->data_size = c->file_size - need;
	if (buf[8] != '{')
		return gs_fail(c->e, GS_EINPUT, "%s: safetensors header does not start with '{'",
		               c->name);
	return GS_OK;
}

/* Check that a tensor entry is an object with a known dtype, a shape array
 * and two data_offsets; fills x's dtype, shape, offs and bits. */
static gs_err tensor_fields(const st_ctx *c, const cJSON *it, st_tensor *x)
{
	const cJSON *dt;

	if (!cJSON_IsObject(it))
		return gs_fail(c->e, GS_EINPUT, "%s: tensor \"%s\" is not an object", c->name, x->tn);
	dt = cJSON_GetObjectItemCaseSensitive(it, "dtype");
	x->shape = cJSON_GetObjectItemCaseSensitive(it, "shape");
	x->offs = cJSON_GetObjectItemCaseSensitive(it, "data_offsets");
	if (!cJSON_IsString(dt) || !cJSON_IsArray(x->shape) || !cJSON_IsArray(x->offs) ||
	    cJSON_GetArraySize(x->offs) != 2)
		return gs_fail(c->e, GS_EINPUT, "%s: tensor \"%s\" lacks dtype, shape or data_offsets",
		               c->name, x->tn);
	x->dtype = dt->valuestring;
	x->bits = gs_st_dtype_bits(x->dtype);
	if (x->bits == 0)
		return gs_fail(c->e, GS_EINPUT, "%s: tensor \"%s\": unknown dtype \"%s\"", c->name,
		               x->tn, x->dtype);
	return GS_OK;
}

/* Multiply the shape out into x->elems, each entry a non-negative integer. */
static gs_err tensor_elems(const st_ctx *c, st_tensor *x)
{
	const cJSON *d;

	x->elems = 1;
	cJSON_ArrayForEach(d, x->shape) {
		double v = cJSON_IsNumber(d) ? d->valuedouble : -1;
		if (v < 0 || v != floor(v) || v > 9007199254740992.0)
			return gs_fail(c->e, GS_EINPUT, "%s: tensor \"%s\": shape entry is not a "
			               "non-negative integer", c->name, x->tn);
		if (!gs_mul_u64(x->elems, (uint64_t)v, &x->elems))
			return gs_fail(c->e, GS_EOVERFLOW, "%s: tensor \"%s\": shape product overflows "
			               "64 bits", c->name, x->tn);
	}
	return GS_OK;
}

/* Check data_offsets against the element count's byte size and the file's
 * data bytes; sets x->b0, x->b1 and x->bytes. */
static gs_err tensor_span(const st_ctx *c, st_tensor *x)
{
	double v0 = cJSON_GetArrayItem(x->offs, 0)->valuedouble;
	double v1 = cJSON_GetArrayItem(x->offs, 1)->valuedouble;

	if (!cJSON_IsNumber(cJSON_GetArrayItem(x->offs, 0)) ||
	    !cJSON_IsNumber(cJSON_GetArrayItem(x->offs, 1)) || v0 < 0 || v1 < v0 ||
	    v0 != floor(v0) || v1 != floor(v1) || v1 > 9007199254740992.0)
		return gs_fail(c->e, GS_EINPUT, "%s: tensor \"%s\": bad data_offsets", c->name, x->tn);
	x->b0 = (uint64_t)v0;
	x->b1 = (uint64_t)v1;
	if (!gs_mul_u64(x->elems, x->bits, &x->bytes))
		return gs_fail(c->e, GS_EOVERFLOW, "%s: tensor \"%s\": byte size overflows 64 bits",
		               c->name, x->tn);
	x->bytes = x->bytes / 8 + (x->bytes % 8 != 0);
	if (x->b1 - x->b0 != x->bytes)
		return gs_fail(c->e, GS_EINPUT, "%s: tensor \"%s\": data_offsets span %llu bytes but "
		               "%s x %llu elements need %llu", c->name, x->tn,
		               (unsigned long long)(x->b1 - x->b0), x->dtype,
		               (unsigned long long)x->elems, (unsigned long long)x->bytes);
	if (c->file_size != 0 && x->b1 > c->data_size)
		return gs_fail(c->e, GS_EINPUT, "%s: tensor \"%s\": data_offsets end %llu is past the "
		               "file's %llu data bytes", c->name, x->tn, (unsigned long long)x->b1,
		               (unsigned long long)c->data_size);
	return GS_OK;
}

/* Add a checked tensor to the totals and to its dtype and module rows. */
static gs_err tally_tensor(const st_ctx *c, const st_tensor *x)
{
	gs_st_tally *t = c->t;
	gs_err rc = GS_OK;
	char mod[80];

	if (!gs_add_u64(t->total, x->elems, &t->total) || !gs_add_u64(t->bytes, x->bytes, &t->bytes))
		return gs_fail(c->e, GS_EOVERFLOW, "%s: parameter tally overflows 64 bits", c->name);
	t->tensors++;
	add_count(t->dtype, &t->n_dtypes, GS_ST_MAX_DTYPES, x->dtype, x->elems, x->bytes, c->e, &rc);
	module_of(x->tn, mod, sizeof mod);
	add_count(t->module, &t->n_modules, GS_ST_MAX_MODULES, mod, x->elems, x->bytes, c->e, &rc);
	return rc;
}

/* Count a non-parameter buffer stored in the checkpoint (causal masks,
 * position and token type ids). */
static void note_buffer(gs_st_tally *t, const st_tensor *x)
{
	const char *tn = x->tn;

	if (((ends_with(tn, ".attn.bias") || ends_with(tn, ".attn.masked_bias")) &&
	     cJSON_GetArraySize(x->shape) == 4) ||
	    ends_with(tn, ".masked_bias") || ends_with(tn, "position_ids") ||
	    (ends_with(tn, "token_type_ids") && x->bits == 64)) {
		t->buffers += x->elems;
		t->buffer_tensors++;
		if (!t->buffer_example[0])
			snprintf(t->buffer_example, sizeof t->buffer_example, "%s", tn);
	}
}

/* Note quantised storage the tensor's name and dtype show (GPTQ/AWQ,
 * bitsandbytes, packed U8, FP8). */
static void note_quant(st_ctx *c, const st_tensor *x)
{
	gs_st_tally *t = c->t;
	const char *tn = x->tn;

	if (ends_with(tn, ".qweight") || ends_with(tn, ".qzeros")) {
		t->quant_packed_tensors++;
		if (!t->quant_hint[0])
			snprintf(t->quant_hint, sizeof t->quant_hint,
			         "GPTQ/AWQ packed %s qweight/qzeros", x->dtype);
	} else if (ends_with(tn, ".absmax") || ends_with(tn, ".quant_map")) {
		c->has_absmax = true;
	} else if (ends_with(tn, ".weight") && (strcmp(x->dtype, "U8") == 0) &&
	           cJSON_GetArraySize(x->shape) == 2) {
		t->quant_packed_tensors++;
	} else if (strncmp(x->dtype, "F8_", 3) == 0 && ends_with(tn, ".weight") &&
	           !t->quant_hint[0]) {
		snprintf(t->quant_hint, sizeof t->quant_hint, "FP8 (%s) weights", x->dtype);
	}
}

/* Check one header entry and add it to the tally ("__metadata__" is skipped). */
static gs_err add_tensor(st_ctx *c, const cJSON *it)
{
	st_tensor x;
	gs_err rc;

	memset(&x, 0, sizeof x);
	x.tn = it->string ? it->string : "";
	if (strcmp(x.tn, "__metadata__") == 0)
		return GS_OK;
	rc = tensor_fields(c, it, &x);
	if (rc == GS_OK)
		rc = tensor_elems(c, &x);
	if (rc == GS_OK)
		rc = tensor_span(c, &x);
	if (rc == GS_OK)
		rc = tally_tensor(c, &x);
	if (rc != GS_OK)
		return rc;
	note_buffer(c->t, &x);
	note_quant(c, &x);
	return GS_OK;
}

/* Say what packed storage the whole file shows when no tensor named it. */
static void finish_quant_hint(gs_st_tally *t, bool has_absmax)
{
	if (has_absmax && !t->quant_hint[0])
		snprintf(t->quant_hint, sizeof t->quant_hint,
		         "bitsandbytes packed U8 weights with absmax/quant_map");
	else if (t->quant_packed_tensors > 0 && !t->quant_hint[0])
		snprintf(t->quant_hint, sizeof t->quant_hint, "packed U8 2-D weights (likely 4-bit)");
}

gs_err gs_st_parse(const char *name, const unsigned char *buf, size_t len, uint64_t file_size,
                   gs_st_tally *out, gs_error *e)
{
	static gs_st_tally t; /* large; copied to out only on success */
	st_ctx c = {.name = name, .file_size = file_size, .t = &t, .e = e};
	uint64_t hlen;
	cJSON *root, *it;
	gs_err rc;

	rc = check_lengths(&c, buf, len, &hlen);
	if (rc != GS_OK)
		return rc;
	root = cJSON_ParseWithLength((const char *)buf + 8, (size_t)hlen);
	if (root == NULL || !cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return gs_fail(e, GS_EINPUT, "%s: safetensors header is not a valid JSON object", name);
	}
	t = *out;
	cJSON_ArrayForEach(it, root) {
		rc = add_tensor(&c, it);
		if (rc != GS_OK)
			break;
	}
	cJSON_Delete(root);
	if (rc != GS_OK)
		return rc;
	finish_quant_hint(&t, c.has_absmax);
	t.files++;
	*out = t;
	return GS_OK;
}
