/* Unit tests for the report driver's parts: verdicts, spec line lookup,
 * spec parsing and overrides, sweep counting, the output-directory
 * transaction (outdir.c). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "outdir.h"
#include "report.h"
#include "spec.h"
#include "sweep.h"
#include "util.h"
#include "fileio.h"

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
	CHECK(gs_row_verdict(&r, &v100, &h) == GS_FITS,
	      "the default amp precision on a GPU without bf16: runnable (compute dtype auto: fp16 there)");
	gs_settings_set(&r.settings, "precision", "amp-bf16", NULL);
	CHECK(gs_row_verdict(&r, &v100, &h) == GS_NOT_RUNNABLE, "--precision amp-bf16 on a GPU without bf16: not runnable");
	gs_settings_set(&r.settings, "precision", "fp16", NULL);
	CHECK(gs_row_verdict(&r, &v100, &h) == GS_FITS, "fp16 on a GPU without bf16: runnable");
	gs_settings_set(&r.settings, "precision", "fp8-mixed", NULL);
	CHECK(gs_row_verdict(&r, &g, &h) == GS_NOT_RUNNABLE, "fp8 on a GPU without fp8: not runnable");
	gs_settings_default(&r.settings);
	gs_settings_set(&r.settings, "method", "qlora", NULL);
	CHECK(gs_row_verdict(&r, &v100, &h) == GS_FITS, "QLoRA nf4 on V100: runnable (fp16 compute)");
	gs_settings_set(&r.settings, "compute-dtype", "bf16", NULL);
	CHECK(gs_row_verdict(&r, &v100, &h) == GS_NOT_RUNNABLE, "QLoRA nf4 with --compute-dtype bf16 on V100: not runnable");
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

static void commit_key(void);

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
	{
		size_t nw, defaults = 0, in_order = 0;
		const gs_writer_ops *w = gs_writer_registry(&nw);
		for (size_t i = 0; i < nw; i++)
			if (w[i].by_default)
				in_order += defaults < sp.formats.n && strcmp(sp.formats.v[defaults++], w[i].name) == 0;
		CHECK(sp.formats.n == defaults && in_order == defaults && defaults >= 5 && strcmp(sp.out, "out") == 0,
		      "default formats (the writer registry's %zu, in its order) and out", defaults);
	}
	CHECK(sp.epoch == 1767225600, "default date 2026-01-01 = 1767225600");
	gs_sweep_base(&sp, &base, &e);
	n = gs_sweep_count(&sp, &base, &skipped);
	/* full: amp-bf16 only (nf4 is a storage format) x 2 ckpt x 2 batch x
	 * 2 counts = 8; qlora: nf4 only (amp-bf16 skipped) x 2 x 2 x 2 = 8 */
	CHECK_EQ_U64(n, 16, "rows of the sweep");
	CHECK(skipped > 0, "invalid combinations counted as skipped");
	CHECK(gs_spec_override(&sp, "seqs", "512,1024,2048", &e) == GS_OK && gs_spec_axis(&sp, "seq")->n == 3,
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
	CHECK(gs_spec_parse("{\"version\": 1, \"models\": [\"a/b\"],\n \"rank\": \"time\"}", "t.json", &sp, &e) ==
	              GS_ESPEC && strstr(e.msg, "t.json:2: rank") && strstr(e.msg, "least-memory"),
	      "rank: time is plan's alone, a spec names a memory rank (%s)", e.msg);
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
	commit_key();
}

/* "commit": the formats written into out; the others go into publish_dir. */
static void commit_key(void)
{
	gs_spec sp;
	gs_error e = { 0 };

	CHECK(gs_spec_parse("{\"version\": 1, \"models\": [\"a/b\"]}", "d/t.json", &sp, &e) == GS_OK &&
	              sp.commit.n == 0 && gs_spec_committed(&sp, "xlsx") && gs_spec_committed(&sp, "md") &&
	              strcmp(sp.publish_dir, "d/publish") == 0,
	      "no commit: every format committed, publish_dir beside the spec (%s)", e.msg);
	gs_spec_free(&sp);
	CHECK(gs_spec_parse("{\"version\": 1, \"models\": [\"a/b\"], \"formats\": [\"md\", \"xlsx\", \"csv.gz\"],\n"
	                    " \"commit\": [\"md\"], \"publish_dir\": \"../dist\"}", "d/t.json", &sp, &e) == GS_OK &&
	              gs_spec_committed(&sp, "md") && !gs_spec_committed(&sp, "xlsx") &&
	              !gs_spec_committed(&sp, "csv.gz") && strcmp(sp.publish_dir, "d/../dist") == 0,
	      "commit md: the workbook and csv.gz published into publish_dir (%s)", e.msg);
	gs_spec_free(&sp);
	memset(&e, 0, sizeof e);
	CHECK(gs_spec_parse("{\"version\": 1, \"models\": [\"a/b\"], \"formats\": [\"md\"],\n \"commit\": [\"xlsx\"]}",
	                    "t.json", &sp, &e) == GS_ESPEC &&
	              strstr(e.msg, "t.json:2: commit[0]") && strstr(e.msg, "not one of the spec's formats"),
	      "commit of a format not built: error with line and element (%s)", e.msg);
	memset(&e, 0, sizeof e);
	CHECK(gs_spec_parse("{\"version\": 1, \"models\": [\"a/b\"], \"commit\": [\"md\", \"pdf\"]}", "t.json",
	                    &sp, &e) == GS_ESPEC && strstr(e.msg, "commit[1]") && strstr(e.msg, "unknown format \"pdf\""),
	      "commit of an unknown format: error (%s)", e.msg);
	memset(&e, 0, sizeof e);
	CHECK(gs_spec_parse("{\"version\": 1, \"models\": [\"a/b\"], \"commit\": []}", "t.json", &sp, &e) ==
	              GS_ESPEC && strstr(e.msg, "commit: empty"),
	      "empty commit: error (%s)", e.msg);
	memset(&e, 0, sizeof e);
	CHECK(gs_spec_parse("{\"version\": 1, \"models\": [\"a/b\"], \"publish_dir\": \"\"}", "t.json", &sp, &e) ==
	              GS_ESPEC && strstr(e.msg, "publish_dir"),
	      "empty publish_dir: error (%s)", e.msg);
}

static void put(const char *dir, const char *rel, const char *text)
{
	char path[600], parent[600];
	gs_error e = { 0 };
	char *slash;

	snprintf(path, sizeof path, "%s/%s", dir, rel);
	snprintf(parent, sizeof parent, "%s", path);
	slash = strrchr(parent, '/');
	*slash = '\0';
	gs_mkdirs(parent, &e);
	gs_write_file_atomic(path, text, strlen(text), &e);
}

static bool exists(const char *dir, const char *rel)
{
	char path[600];
	struct stat st;

	snprintf(path, sizeof path, "%s/%s", dir, rel);
	return stat(path, &st) == 0;
}

static void found(void *ud, const char *kind, const char *path)
{
	char *log = ud;
	size_t l = strlen(log);

	snprintf(log + l, 1024 - l, "%s %s\n", kind, strrchr(path, '/') + 1);
}

/* Stage, compare, commit, abort: what reaches out/ and what is left behind. */
static void outdir(void)
{
	char root[] = "/tmp/gs-outdir-XXXXXX", out[300], stale[300], log[1024] = "", tmp[4096];
	gs_outdir t;
	gs_error e = { 0 };
	size_t n = 99;

	if (mkdtemp(root) == NULL) {
		CHECK(0, "outdir: mkdtemp");
		return;
	}
	snprintf(out, sizeof out, "%s/out", root);
	/* No manifest yet (an older gpusizer's output): a page that says it was
	 * generated is ours, the user's own page is not. */
	put(out, "models/old.md", "old\n\nGenerated by gpusizer 0.1.0 from s.json.\n"); /* ours, not produced now: removed */
	put(out, "models/mine.md", "my notes");          /* the user's: kept */
	put(out, "models/org--x/config.json", "{}");     /* a model cache file: kept */
	put(out, "notes.txt", "mine");                   /* top level: kept */
	put(out, "index.md", "previous\n\nGenerated by gpusizer 0.1.0 from s.json.\n");
	snprintf(stale, sizeof stale, "%s/out/.gpusizer/run.tmp.abcdef", root);
	put(stale, "new/index.md", "left by a killed run");

	CHECK(gs_outdir_begin(&t, out, NULL, &e) == GS_OK && strncmp(t.tmp, root, strlen(root)) == 0 &&
	          strstr(t.tmp, "/out/.gpusizer/run.tmp.") != NULL && !exists(stale, ""),
	      "outdir: staging inside out/.gpusizer, a killed run's staging removed (%s)", e.msg);
	put(t.tmp, "index.md", "new");
	put(t.tmp, "models/a.md", "a");
	put(t.tmp, "models/a-context.svg", "<svg/>");
	CHECK(gs_outdir_compare(&t, found, log, &n, &e) == GS_OK && n == 5 && t.n_files == 3 &&
	          strcmp(log, "missing .gpusizer-manifest\nstale index.md\nmissing a-context.svg\n"
	                      "missing a.md\nextra old.md\n") == 0 &&
	          exists(out, "models/old.md") && !exists(out, "models/a.md"),
	      "outdir: compare finds stale, missing and extra files, changes nothing (%zu)", n);
	snprintf(tmp, sizeof tmp, "%s", t.tmp);
	CHECK(gs_outdir_commit(&t, &e) == GS_OK && t.n_files == 3 && t.removed == 1 &&
	          strcmp(t.files[0], "index.md") == 0 && exists(out, "models/a.md") &&
	          !exists(out, "models/old.md") && exists(out, "models/mine.md") &&
	          exists(out, "models/org--x/config.json") && exists(out, "notes.txt") &&
	          exists(out, ".gpusizer-manifest"),
	      "outdir: commit moves the files in, removes only stale files of ours (%s)", e.msg);
	gs_outdir_abort(&t);
	CHECK(t.tmp[0] == '\0' && t.files == NULL && !exists(tmp, ""), "outdir: abort removes the staging directory");
	gs_outdir_abort(&t); /* twice is fine */

	/* --check: staged in $TMPDIR, nothing differs after the commit. */
	setenv("TMPDIR", root, 1);
	CHECK(gs_outdir_begin(&t, out, &(gs_outdir_opts){ .check = true }, &e) == GS_OK && strstr(t.tmp, "/gpusizer-check.") != NULL,
	      "outdir: a check stages in $TMPDIR (%s)", e.msg);
	put(t.tmp, "index.md", "new");
	put(t.tmp, "models/a.md", "a");
	put(t.tmp, "models/a-context.svg", "<svg/>");
	log[0] = '\0';
	CHECK(gs_outdir_compare(&t, found, log, &n, &e) == GS_OK && n == 0,
	      "outdir: current after the commit (%zu findings)", n);
	snprintf(tmp, sizeof tmp, "%s", t.tmp);
	gs_outdir_abort(&t);
	CHECK(!exists(tmp, "") && exists(out, "index.md"), "outdir: abort after a check leaves out as it was");
	unsetenv("TMPDIR");
	CHECK(gs_outdir_stopped() == 0, "outdir: no signal caught");
	{
		char cmd[400];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
		CHECK(system(cmd) == 0, "outdir: cleanup");
	}
}

int main(void)
{
	verdicts();
	lines();
	parse();
	outdir();
	CHECK_DONE();
}
