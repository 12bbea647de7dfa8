/* safetensors header parsing: counts, module grouping, buffers, and every
 * lie a header can tell (length, offsets, shapes, overflow). */
#include <stdlib.h>

#include "check.h"
#include "safetensors.h"

/* Build "8-byte length + json" into buf; returns total bytes. */
static size_t mk(unsigned char *buf, const char *json, unsigned long long declared)
{
	size_t n = strlen(json);
	unsigned long long d = declared ? declared : n;
	for (int i = 0; i < 8; i++)
		buf[i] = (unsigned char)(d >> (8 * i));
	memcpy(buf + 8, json, n);
	return n + 8;
}

static unsigned char buf[4096];

int main(void)
{
	gs_st_tally t;
	gs_error e;
	size_t n;
	uint64_t hl;

	memset(&t, 0, sizeof t);
	n = mk(buf, "{\"__metadata__\":{\"format\":\"pt\"},"
	            "\"model.layers.0.mlp.up_proj.weight\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]},"
	            "\"model.layers.11.mlp.up_proj.weight\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[24,48]},"
	            "\"h.0.attn.bias\":{\"dtype\":\"F32\",\"shape\":[1,1,2,2],\"data_offsets\":[48,64]},"
	            "\"scale\":{\"dtype\":\"BF16\",\"shape\":[],\"data_offsets\":[64,66]}}  ", 0);
	e = (gs_error){0};
	CHECK(gs_st_parse("a.safetensors", buf, n, n + 66, &t, &e) == GS_OK, "st: valid header parses (%s)", e.msg);
	CHECK_EQ_U64(t.total, 6 + 6 + 4 + 1, "st: total elements, scalar counts 1");
	CHECK_EQ_U64(t.bytes, 66, "st: data bytes");
	CHECK_EQ_U64(t.tensors, 4, "st: tensors, __metadata__ skipped");
	CHECK(t.n_dtypes == 2, "st: two dtypes");
	CHECK(t.n_modules == 3 && strcmp(t.module[0].name, "model.layers.*.mlp.up_proj") == 0 &&
	      t.module[0].params == 12, "st: numeric segments grouped as '*'");
	CHECK_EQ_U64(t.buffers, 4, "st: rank-4 attn.bias counted as a buffer");
	CHECK(gs_st_parse("a.safetensors", buf, n, 0, &t, &e) == GS_OK && t.total == 34 && t.files == 2,
	      "st: a second file adds up");

	/* lies */
	gs_st_tally before = t;
	n = mk(buf, "{\"x\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 5000);
	e = (gs_error){0};
	CHECK(gs_st_parse("b", buf, n, 0, &t, &e) == GS_EINPUT && strstr(e.msg, "declares 5000 bytes but only"),
	      "st: declared length past the received bytes: %s", e.msg);
	e = (gs_error){0};
	CHECK(gs_st_parse("b", buf, n, 100, &t, &e) == GS_EINPUT && strstr(e.msg, "file has only 100"),
	      "st: declared length past the file size: %s", e.msg);
	n = mk(buf, "{\"x\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 0);
	e = (gs_error){0};
	CHECK(gs_st_parse("b", buf, n, n + 2, &t, &e) == GS_EINPUT && strstr(e.msg, "past the file"),
	      "st: data_offsets past the end of the file: %s", e.msg);
	n = mk(buf, "{\"x\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,2],\"data_offsets\":[0,4]}}", 0);
	e = (gs_error){0};
	CHECK(gs_st_parse("b", buf, n, 0, &t, &e) == GS_EOVERFLOW, "st: shape product overflow: %s", e.msg);
	n = mk(buf, "{\"x\":{\"dtype\":\"F32\",\"shape\":[1152921504606846976],\"data_offsets\":[0,4]}}", 0);
	e = (gs_error){0};
	CHECK(gs_st_parse("b", buf, n, 0, &t, &e) != GS_OK, "st: huge dim rejected: %s", e.msg);
	n = mk(buf, "{\"x\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,4]}}", 0);
	e = (gs_error){0};
	CHECK(gs_st_parse("b", buf, n, 0, &t, &e) == GS_EINPUT && strstr(e.msg, "span"),
	      "st: offsets span disagrees with shape x dtype: %s", e.msg);
	n = mk(buf, "{\"x\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 0);
	e = (gs_error){0};
	CHECK(gs_st_parse("b", buf, n, 0, &t, &e) == GS_EINPUT, "st: negative dim: %s", e.msg);
	n = mk(buf, "{\"x\":{\"dtype\":\"Q9\",\"shape\":[1],\"data_offsets\":[0,4]}}", 0);
	e = (gs_error){0};
	CHECK(gs_st_parse("b", buf, n, 0, &t, &e) == GS_EINPUT && strstr(e.msg, "unknown dtype"),
	      "st: unknown dtype: %s", e.msg);
	n = mk(buf, "[1,2,3]", 0);
	e = (gs_error){0};
	CHECK(gs_st_parse("b", buf, n, 0, &t, &e) == GS_EINPUT, "st: header not an object: %s", e.msg);
	n = mk(buf, "{\"x\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]", 0);
	e = (gs_error){0};
	CHECK(gs_st_parse("b", buf, n, 0, &t, &e) == GS_EINPUT, "st: truncated JSON: %s", e.msg);
	e = (gs_error){0};
	CHECK(gs_st_header_len("b", buf, 5, &hl, &e) == GS_EINPUT, "st: fewer than 8 bytes: %s", e.msg);
	mk(buf, "{}", 200000000ull);
	e = (gs_error){0};
	CHECK(gs_st_header_len("b", buf, 16, &hl, &e) == GS_EINPUT, "st: header length over 100 MB: %s", e.msg);
	CHECK(memcmp(&before, &t, sizeof t) == 0, "st: tally unchanged by failed parses");

	/* quantised storage */
	memset(&t, 0, sizeof t);
	n = mk(buf, "{\"l.0.q_proj.qweight\":{\"dtype\":\"I32\",\"shape\":[8,64],\"data_offsets\":[0,2048]}}", 0);
	CHECK(gs_st_parse("q", buf, n, 0, &t, &e) == GS_OK && strstr(t.quant_hint, "GPTQ"),
	      "st: GPTQ qweight recognised (%s)", t.quant_hint);
	CHECK(gs_st_dtype_bits("BF16") == 16 && gs_st_dtype_bits("F4") == 4 && gs_st_dtype_bits("nope") == 0,
	      "st: dtype sizes");
	CHECK_DONE();
}
