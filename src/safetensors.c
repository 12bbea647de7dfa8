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

gs_err gs_st_parse(const char *name, const unsigned char *buf, size_t len, uint64_t file_size,
                   gs_st_tally *out, gs_error *e)
{
	static gs_st_tally t; /* large; copied to out only on success */
	uint64_t hlen, need, data_size = 0;
	cJSON *root = NULL, *it;
	gs_err rc;
	bool has_absmax = false;

	rc = gs_st_header_len(name, buf, len, &hlen, e);
	if (rc != GS_OK)
		return rc;
	need = hlen + 8;
	if (file_size != 0 && need > file_size)
		return gs_fail(e, GS_EINPUT, "%s: safetensors header declares %llu bytes but the file "
		               "has only %llu", name, (unsigned long long)hlen,
		               (unsigned long long)file_size);
	if ((uint64_t)len < need)
		return gs_fail(e, GS_EINPUT, "%s: safetensors header declares %llu bytes but only %llu "
		               "were received", name, (unsigned long long)hlen,
		               (unsigned long long)(len >= 8 ? len - 8 : 0));
	if (file_size != 0)
		data_size = file_size - need;
	if (buf[8] != '{')
		return gs_fail(e, GS_EINPUT, "%s: safetensors header does not start with '{'", name);
	root = cJSON_ParseWithLength((const char *)buf + 8, (size_t)hlen);
	if (root == NULL || !cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return gs_fail(e, GS_EINPUT, "%s: safetensors header is not a valid JSON object", name);
	}
	t = *out;
	rc = GS_OK;
	cJSON_ArrayForEach(it, root) {
		const cJSON *dt, *shape, *offs, *d;
		const char *tn = it->string ? it->string : "";
		unsigned bits;
		uint64_t elems = 1, bytes, b0, b1;
		char mod[80];

		if (strcmp(tn, "__metadata__") == 0)
			continue;
		if (!cJSON_IsObject(it)) {
			rc = gs_fail(e, GS_EINPUT, "%s: tensor \"%s\" is not an object", name, tn);
			break;
		}
		dt = cJSON_GetObjectItemCaseSensitive(it, "dtype");
		shape = cJSON_GetObjectItemCaseSensitive(it, "shape");
		offs = cJSON_GetObjectItemCaseSensitive(it, "data_offsets");
		if (!cJSON_IsString(dt) || !cJSON_IsArray(shape) || !cJSON_IsArray(offs) ||
		    cJSON_GetArraySize(offs) != 2) {
			rc = gs_fail(e, GS_EINPUT, "%s: tensor \"%s\" lacks dtype, shape or data_offsets",
			             name, tn);
			break;
		}
		bits = gs_st_dtype_bits(dt->valuestring);
		if (bits == 0) {
			rc = gs_fail(e, GS_EINPUT, "%s: tensor \"%s\": unknown dtype \"%s\"", name, tn,
			             dt->valuestring);
			break;
		}
		cJSON_ArrayForEach(d, shape) {
			double v = cJSON_IsNumber(d) ? d->valuedouble : -1;
			if (v < 0 || v != floor(v) || v > 9007199254740992.0) {
				rc = gs_fail(e, GS_EINPUT, "%s: tensor \"%s\": shape entry is not a "
				             "non-negative integer", name, tn);
				break;
			}
			if (!gs_mul_u64(elems, (uint64_t)v, &elems)) {
				rc = gs_fail(e, GS_EOVERFLOW, "%s: tensor \"%s\": shape product overflows "
				             "64 bits", name, tn);
				break;
			}
		}
		if (rc != GS_OK)
			break;
		{
			double v0 = cJSON_GetArrayItem(offs, 0)->valuedouble;
			double v1 = cJSON_GetArrayItem(offs, 1)->valuedouble;
			if (!cJSON_IsNumber(cJSON_GetArrayItem(offs, 0)) ||
			    !cJSON_IsNumber(cJSON_GetArrayItem(offs, 1)) || v0 < 0 || v1 < v0 ||
			    v0 != floor(v0) || v1 != floor(v1) || v1 > 9007199254740992.0) {
				rc = gs_fail(e, GS_EINPUT, "%s: tensor \"%s\": bad data_offsets", name, tn);
				break;
			}
			b0 = (uint64_t)v0;
			b1 = (uint64_t)v1;
		}
		if (!gs_mul_u64(elems, bits, &bytes)) {
			rc = gs_fail(e, GS_EOVERFLOW, "%s: tensor \"%s\": byte size overflows 64 bits",
			             name, tn);
			break;
		}
		bytes = bytes / 8 + (bytes % 8 != 0);
		if (b1 - b0 != bytes) {
			rc = gs_fail(e, GS_EINPUT, "%s: tensor \"%s\": data_offsets span %llu bytes but "
			             "%s x %llu elements need %llu", name, tn,
			             (unsigned long long)(b1 - b0), dt->valuestring,
			             (unsigned long long)elems, (unsigned long long)bytes);
			break;
		}
		if (file_size != 0 && b1 > data_size) {
			rc = gs_fail(e, GS_EINPUT, "%s: tensor \"%s\": data_offsets end %llu is past the "
			             "file's %llu data bytes", name, tn, (unsigned long long)b1,
			             (unsigned long long)data_size);
			break;
		}
		if (!gs_add_u64(t.total, elems, &t.total) || !gs_add_u64(t.bytes, bytes, &t.bytes)) {
			rc = gs_fail(e, GS_EOVERFLOW, "%s: parameter tally overflows 64 bits", name);
			break;
		}
		t.tensors++;
		add_count(t.dtype, &t.n_dtypes, GS_ST_MAX_DTYPES, dt->valuestring, elems, bytes, e, &rc);
		module_of(tn, mod, sizeof mod);
		add_count(t.module, &t.n_modules, GS_ST_MAX_MODULES, mod, elems, bytes, e, &rc);
		if (rc != GS_OK)
			break;
		/* Non-parameter buffers stored in the checkpoint. */
		if (((ends_with(tn, ".attn.bias") || ends_with(tn, ".attn.masked_bias")) &&
		     cJSON_GetArraySize(shape) == 4) ||
		    ends_with(tn, ".masked_bias") || ends_with(tn, "position_ids") ||
		    (ends_with(tn, "token_type_ids") && bits == 64)) {
			t.buffers += elems;
			t.buffer_tensors++;
			if (!t.buffer_example[0])
				snprintf(t.buffer_example, sizeof t.buffer_example, "%s", tn);
		}
		/* Quantised storage. */
		if (ends_with(tn, ".qweight") || ends_with(tn, ".qzeros")) {
			t.quant_packed_tensors++;
			if (!t.quant_hint[0])
				snprintf(t.quant_hint, sizeof t.quant_hint,
				         "GPTQ/AWQ packed %s qweight/qzeros", dt->valuestring);
		} else if (ends_with(tn, ".absmax") || ends_with(tn, ".quant_map")) {
			has_absmax = true;
		} else if (ends_with(tn, ".weight") && (strcmp(dt->valuestring, "U8") == 0) &&
		           cJSON_GetArraySize(shape) == 2) {
			t.quant_packed_tensors++;
		} else if (strncmp(dt->valuestring, "F8_", 3) == 0 && ends_with(tn, ".weight") &&
		           !t.quant_hint[0]) {
			snprintf(t.quant_hint, sizeof t.quant_hint, "FP8 (%s) weights", dt->valuestring);
		}
	}
	cJSON_Delete(root);
	if (rc != GS_OK)
		return rc;
	if (has_absmax && !t.quant_hint[0])
		snprintf(t.quant_hint, sizeof t.quant_hint,
		         "bitsandbytes packed U8 weights with absmax/quant_map");
	else if (t.quant_packed_tensors > 0 && !t.quant_hint[0])
		snprintf(t.quant_hint, sizeof t.quant_hint, "packed U8 2-D weights (likely 4-bit)");
	t.files++;
	*out = t;
	return GS_OK;
}
