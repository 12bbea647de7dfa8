/* Unit tests for the report driver's pure parts: verdicts, spec line
 * lookup, spec parsing and overrides, sweep counting. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "report.h"
#include "spec.h"
#include "sweep.h"

static gs_gpu gpu(uint64_t usable, bool bf16, bool fp8)
{
	gs_gpu g;
	memset(&g, 0, sizeof g);
	strcpy(g.id, "g");
	g.usable_bytes = usable;
	g.total_bytes = usable;
	g.bf16 = bf16;
	g.fp8 = fp8;
	return g;
}

static void verdicts(void)
{
	gs_row r;
	gs_gpu g = gpu(1000, true, false), v100 = gpu(1000, false, false);
	double h;

	memset(&r, 0, sizeof r);
	gs_settings_default(&r.settings);
	r.est.device = 900;
	CHECK(gs_row_verdict(&r, &g, &h) == GS_FITS && h > 0.099 && h < 0.101, "900 of 1000: fits (10%% headroom)");
	r.est.device = 901;
	CHECK(gs_row_verdict(&r, &g, &h) == GS_TIGHT, "901 of 1000: tight");
	r.est.device = 1000;
	CHECK(gs_row_verdict(&r, &g, &h) == GS_TIGHT && h == 0, "1000 of 1000: tight, no headroom");
	r.est.device = 1001;
	CHECK(gs_row_verdict(&r, &g, &h) == GS_NO_FIT && h < 0, "1001 of 1000: does not fit");
	r.est.device = 10;
	CHECK(gs_row_verdict(&r, &v100, &h) == GS_NOT_RUNNABLE, "amp-bf16 on a GPU without bf16: not runnable");
	gs_settings_set(&r.settings, "precision", "fp16", NULL);
	CHECK(gs_row_verdict(&r, &v100, &h) == GS_FITS, "fp16 on a GPU without bf16: runnable");
	gs_settings_set(&r.settings, "precision", "fp8-mixed", NULL);
	CHECK(gs_row_verdict(&r, &g, &h) == GS_NOT_RUNNABLE, "fp8 on a GPU without fp8: not runnable");
	gs_settings_default(&r.settings);
	gs_settings_set(&r.settings, "method", "qlora", NULL);
	CHECK(gs_row_verdict(&r, &v100, &h) == GS_NOT_RUNNABLE, "QLoRA nf4 (bf16 compute) on V100: not runnable");
	gs_settings_default(&r.settings);
	r.err = GS_EUSAGE;
	CHECK(gs_row_verdict(&r, &g, &h) == GS_NOT_RUNNABLE, "a row with an error: not runnable");
	CHECK(strcmp(gs_verdict_name(GS_TIGHT), "tight") == 0 &&
	      strcmp(gs_verdict_name(GS_NO_FIT), "does not fit") == 0, "verdict names");
}

static const char *TEXT =
	"{\n"
	"  \"version\": 1,\n"
	"  \"models\": [\n"
	"    \"a/b\",\n"
	"    \"c/d\"\n"
	"  ],\n"
	"  \"axes\": {\"method\": [\"full\", \"lora\"],\n"
	"    \"batch\": [1, 2],\n"
	"    \"seq\": [\n"
	"      512,\n"
	"      \"x,\\\"y\"\n"
	"    ]\n"
	"  }\n"
	"}\n";

static void lines(void)
{
	CHECK(gs_spec_line(TEXT, "version", -1) == 2, "line of a top-level key");
	CHECK(gs_spec_line(TEXT, "models", 1) == 5, "line of an array element");
	CHECK(gs_spec_line(TEXT, "axes.batch", -1) == 8, "line of a nested key");
	CHECK(gs_spec_line(TEXT, "axes.seq", 1) == 11, "line of a nested element after an escaped string");
	CHECK(gs_spec_line(TEXT, "axes.colour", -1) == 0, "absent key: 0");
	CHECK(gs_spec_line("{\"a\": [", "a", 3) == 1, "truncated text: the key's line");
	CHECK(gs_spec_line("{\"a\": {\"b\"", "a.b", -1) == 0, "truncated object: not found");
}

static void parse(void)
{
	gs_spec sp;
	gs_error e = { 0 };
	gs_settings base;
	size_t skipped = 0, n;
	const char *good = "{\"version\": 1, \"models\": [\"a/b\"],\n"
	                   "\"gpu_counts\": [{\"count\": 1}, {\"count\": 2, \"sharding\": \"fsdp\"}],\n"
	                   "\"axes\": {\"method\": [\"full\", \"qlora\"],\n"
	                   "  \"precision\": [\"amp-bf16\", \"nf4\"], \"batch\": [1, 2], \"seq\": [512],\n"
	                   "  \"grad_ckpt\": [true, false]}}";

	CHECK(gs_spec_parse(good, "t.json", &sp, &e) == GS_OK, "a good spec parses (%s)", e.msg);
	CHECK(sp.n_counts == 2 && strcmp(sp.counts[0].sharding, "ddp") == 0 &&
	      strcmp(sp.counts[1].sharding, "fsdp") == 0, "gpu counts with default sharding");
	CHECK(sp.formats.n == 5 && strcmp(sp.out, "out") == 0, "default formats and out");
	CHECK(sp.epoch == 1767225600, "default date 2026-01-01 = 1767225600");
	gs_sweep_base(&sp, &base, &e);
	n = gs_sweep_count(&sp, &base, &skipped);
	/* full: amp-bf16 only (nf4 is a storage format) x 2 ckpt x 2 batch x
	 * 2 counts = 8; qlora: nf4 only (amp-bf16 skipped) x 2 x 2 x 2 = 8 */
	CHECK_EQ_U64(n, 16, "rows of the sweep");
	CHECK(skipped > 0, "invalid combinations counted as skipped");
	CHECK(gs_spec_override(&sp, "seqs", "512,1024,2048", &e) == GS_OK && sp.axis[GS_AX_SEQ].n == 3,
	      "override an axis");
	CHECK(gs_spec_override(&sp, "gpu-counts", "1,8:zero3:2", &e) == GS_OK && sp.n_counts == 2 &&
	      sp.counts[1].tp == 2, "override gpu counts");
	memset(&e, 0, sizeof e);
	CHECK(gs_spec_override(&sp, "batches", "1,zero", &e) == GS_EUSAGE && strstr(e.msg, "--batches"),
	      "bad override value: usage error naming the flag");
	gs_spec_free(&sp);

	memset(&e, 0, sizeof e);
	CHECK(gs_spec_parse("{\"version\": 1,\n \"models\": [\"a/b\"],\n \"axes\": {\"seq\": [512, -4]}}", "t.json",
	                    &sp, &e) == GS_ESPEC &&
	      strstr(e.msg, "t.json:3: axes.seq[1]") != NULL, "negative seq: key, element and line (%s)", e.msg);
	memset(&e, 0, sizeof e);
	CHECK(gs_spec_parse("{\"version\": 1, \"models\": []}", "t.json", &sp, &e) == GS_ESPEC &&
	      strstr(e.msg, "models") && strstr(e.msg, "empty"), "empty models: error");
	memset(&e, 0, sizeof e);
	CHECK(gs_spec_parse("{\"version\": 1, \"models\": [\"a/b\"], \"date\": \"2026-02-30\"}", "t.json", &sp, &e) ==
	              GS_ESPEC && strstr(e.msg, "date"), "impossible date: error");
	memset(&e, 0, sizeof e);
	CHECK(gs_spec_parse("[1]", "t.json", &sp, &e) == GS_ESPEC, "not an object: error");
	memset(&e, 0, sizeof e);
	CHECK(gs_spec_parse("{\"version\": 1,\n \"models\": [\"a/b\"],\n \"axes\": {\"seq\": [1],\n \"seq\": [2]}}",
	                    "t.json", &sp, &e) == GS_ESPEC &&
	              strstr(e.msg, "t.json:4: axes.seq: duplicate key \"seq\"") != NULL,
	      "duplicate key: error with line and path (%s)", e.msg);
	memset(&e, 0, sizeof e);
	CHECK(gs_spec_parse("{\"version\": 1,\n \"models\": [\"a/\xc0\xaf\"]}", "t.json", &sp, &e) == GS_ESPEC &&
	              strstr(e.msg, "t.json:2: not valid UTF-8") != NULL,
	      "overlong UTF-8: error with line (%s)", e.msg);
	memset(&e, 0, sizeof e);
	CHECK(gs_spec_parse("{\"version\": 1, \"models\": [\"a/\xc3\xa9\"]}", "t.json", &sp, &e) == GS_OK,
	      "valid UTF-8 accepted (%s)", e.msg);
	gs_spec_free(&sp);
}

int main(void)
{
	verdicts();
	lines();
	parse();
	CHECK_DONE();
}
