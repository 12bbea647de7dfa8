/* Unit tests: the Markdown and HTML writers (report_md.c, report_html.c)
 * on hand-built rows, against golden files in tests/golden/ (set
 * UPDATE_GOLDEN=1 to rewrite them; review with git diff). Runs from the
 * repository root (tests/run.sh does) so templates/ is found. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "mdesc.h"
#include "report_html.h"
#include "report_mdgen.h"
#include "report.h"
#include "settings.h"
#include "template.h"
#include "util.h"

#define GIB (UINT64_C(1) << 30)

static gs_gpu gpus[3];
static gs_arch arch1, arch2;
static gs_model models[2];

static void setup(void)
{
	memset(gpus, 0, sizeof gpus);
	snprintf(gpus[0].id, sizeof gpus[0].id, "t4");
	snprintf(gpus[0].name, sizeof gpus[0].name, "Tesla T4");
	snprintf(gpus[0].klass, sizeof gpus[0].klass, "16 GB");
	gpus[0].total_bytes = 15360 * (UINT64_C(1) << 20);
	gpus[0].usable_bytes = 14 * GIB + GIB / 2;
	gpus[0].bf16 = false;
	gpus[0].bandwidth_gbs = 320;
	gpus[0].bf16_tflops = 65;
	snprintf(gpus[0].source, sizeof gpus[0].source, "test data");
	snprintf(gpus[1].id, sizeof gpus[1].id, "l4");
	snprintf(gpus[1].name, sizeof gpus[1].name, "NVIDIA L4");
	snprintf(gpus[1].klass, sizeof gpus[1].klass, "24 GB");
	gpus[1].total_bytes = 23034 * (UINT64_C(1) << 20);
	gpus[1].usable_bytes = 22 * GIB;
	gpus[1].bf16 = gpus[1].fp8 = true;
	gpus[1].bandwidth_gbs = 300;
	gpus[1].bf16_tflops = 121;
	snprintf(gpus[1].source, sizeof gpus[1].source, "test data");
	snprintf(gpus[2].id, sizeof gpus[2].id, "a100-80gb");
	snprintf(gpus[2].name, sizeof gpus[2].name, "NVIDIA A100 80GB");
	snprintf(gpus[2].klass, sizeof gpus[2].klass, "80 GB");
	gpus[2].total_bytes = 81920 * (UINT64_C(1) << 20);
	gpus[2].usable_bytes = 79 * GIB;
	gpus[2].bf16 = true;
	gpus[2].bandwidth_gbs = 2039;
	gpus[2].bf16_tflops = 312;
	snprintf(gpus[2].source, sizeof gpus[2].source, "test data");

	memset(&arch1, 0, sizeof arch1);
	snprintf(arch1.model_type, sizeof arch1.model_type, "llama");
	arch1.params_total = UINT64_C(8030261248);
	memset(&arch2, 0, sizeof arch2);
	snprintf(arch2.model_type, sizeof arch2.model_type, "gpt2");
	snprintf(arch2.warning, sizeof arch2.warning, "generic decoder | assumed <b>");
	arch2.params_total = UINT64_C(124439808);

	/* Names from outside: table-breaking, HTML, newlines, a formula. */
	models[0].id = "acme/Evil|Model <script>alert(1)</script>\nline2";
	models[0].slug = "acme--Evil-Model";
	models[0].arch = &arch1;
	models[0].param_source = "config tally | Hub safetensors 8030261248";
	models[1].id = "=HYPERLINK(\"http://x\")";
	models[1].slug = "formula";
	models[1].arch = &arch2;
	models[1].param_source = "config tally";
}

static size_t row_counter;
static const char *const seed_text[GS_F_MAX] = {
	"", "cookbook (test): W=n*bpp", "rule-of-thumb (test): GB = params*4/1e9",
	"zero1-rule (test): 18 bytes/param"
};

/* A row with a hand-filled estimate: device = W+G+O+A+B (per GPU). */
static void mkrow(gs_row *r, const gs_model *m, const char *method, const char *prec, int64_t seq,
                  int64_t gpus_n, double w, double g, double o, double a, double b)
{
	gs_error e = { 0 };
	char buf[32];
	int f;

	memset(r, 0, sizeof *r);
	r->index = row_counter++;
	r->model = m;
	gs_settings_default(&r->settings);
	gs_settings_set(&r->settings, "method", method, &e);
	if (prec)
		gs_settings_set(&r->settings, "precision", prec, &e);
	snprintf(buf, sizeof buf, "%lld", (long long)seq);
	gs_settings_set(&r->settings, "seq", buf, &e);
	snprintf(buf, sizeof buf, "%lld", (long long)gpus_n);
	gs_settings_set(&r->settings, "gpus", buf, &e);
	if (gpus_n > 1)
		gs_settings_set(&r->settings, "sharding", "zero3", &e);
	gs_settings_label(&r->settings, r->label, sizeof r->label);
	snprintf(r->id, sizeof r->id, "%s-r%04zu", m->slug, r->index);
	r->est.W = (uint64_t)(w * GIB);
	r->est.G = (uint64_t)(g * GIB);
	r->est.O = (uint64_t)(o * GIB);
	r->est.A = (uint64_t)(a * GIB);
	r->est.B = (uint64_t)(b * GIB);
	r->est.allocated = r->est.W + r->est.G + r->est.O + r->est.A;
	r->est.reserved = r->est.allocated + GIB / 4;
	r->est.device = r->est.W + r->est.G + r->est.O + r->est.A + r->est.B;
	r->est.bpp_W = 2;
	r->est.bpp_G = g > 0 ? 2 : 0;
	r->est.bpp_O = o > 0 ? 8 : 0;
	r->est.recipe = strcmp(method, "full") == 0 ? "amp-bf16: fp32 weights, bf16 autocast | test"
	                                            : "bf16 base weights, fp32 adapters";
	r->est.peak_phase = strcmp(method, "inference") == 0 ? GS_PH_PREFILL : GS_PH_BACKWARD;
	r->est.peak_step = 2;
	r->est.gpus = gpus_n;
	if (seq >= 8192)
		snprintf(r->est.note, sizeof r->est.note, "long context: activations dominate");
	for (f = 1; f < GS_F_MAX; f++) {
		r->seeds[f].formula = (gs_formula)f;
		if (f == GS_F_ZERO1_RULE && strcmp(method, "full") != 0)
			continue; /* n/a */
		r->seeds[f].recipe = seed_text[f];
		r->seeds[f].device = r->est.device + (uint64_t)f * GIB / 2;
	}
}

static int run(gs_writer *w, const char *out, gs_error *e)
{
	gs_report_meta meta;
	gs_row r;
	const double seqs[] = { 512, 2048, 8192 };
	int i;

	memset(&meta, 0, sizeof meta);
	meta.spec_path = "sizing.json";
	meta.out_dir = out;
	meta.gpus = gpus;
	meta.n_gpus = 3;
	meta.models = models;
	meta.n_models = 2;
	meta.epoch = 0;
	meta.tool_version = "0.0-test";
	meta.assumptions = "- AdamW states in fp32.\n- CUDA context: 0.5 GiB.\n";
	row_counter = 0;
	if (w->begin(w, &meta, e))
		return 1;
	if (w->model_begin(w, &models[0], e))
		return 1;
	for (i = 0; i < 3; i++) {
		double s = seqs[i] / 2048;
		if (i == 1) { /* first at the middle context, fits nowhere: not the chart's pick */
			mkrow(&r, &models[0], "full", NULL, (int64_t)seqs[i], 1, 14.96, 14.96, 29.92, 150, 1);
			gs_settings_set(&r.settings, "batch", "8", e);
			gs_settings_label(&r.settings, r.label, sizeof r.label);
			if (w->row(w, &r, e))
				return 1;
		}
		mkrow(&r, &models[0], "full", NULL, (int64_t)seqs[i], 1, 14.96, 14.96, 29.92, 3 * s, 1);
		if (w->row(w, &r, e))
			return 1;
		mkrow(&r, &models[0], "full", NULL, (int64_t)seqs[i], 4, 3.74, 3.74, 7.48, 3 * s, 1);
		if (w->row(w, &r, e))
			return 1;
		mkrow(&r, &models[0], "lora", NULL, (int64_t)seqs[i], 1, 14.96, 0.05, 0.1, 2 * s, 1);
		if (w->row(w, &r, e))
			return 1;
		mkrow(&r, &models[0], "lora", "fp16", (int64_t)seqs[i], 1, 14.96, 0.05, 0.1, 2 * s, 1);
		if (w->row(w, &r, e))
			return 1;
	}
	mkrow(&r, &models[0], "lora", NULL, 32768, 1, 0, 0, 0, 0, 0);
	r.err = GS_EOVERFLOW;
	snprintf(r.err_msg, sizeof r.err_msg, "activations | overflow <64 bits>");
	memset(&r.est, 0, sizeof r.est);
	if (w->row(w, &r, e))
		return 1;
	if (w->model_end(w, &models[0], e))
		return 1;
	if (w->model_begin(w, &models[1], e))
		return 1;
	for (i = 0; i < 3; i++) { /* the last one only fits tight, on the largest GPU */
		mkrow(&r, &models[1], "inference", NULL, (int64_t)seqs[i], 1, i == 2 ? 73.5 : 0.23, 0, 0,
		      0.1 * (i + 1), 0.5);
		if (w->row(w, &r, e))
			return 1;
	}
	if (w->model_end(w, &models[1], e))
		return 1;
	return w->end(w, e) ? 1 : 0;
}

static char *slurp(const char *path, size_t *len)
{
	gs_error e = { 0 };
	char *p = NULL;
	if (gs_read_file(path, 64u << 20, &p, len, &e) != GS_OK)
		return NULL;
	return p;
}

/* Compare out/rel with tests/golden/md/rel (or rewrite the golden). */
static void golden(const char *out, const char *rel)
{
	char got_path[512], want_path[512];
	char *got, *want;
	size_t gl = 0, wl = 0;
	gs_error e = { 0 };

	snprintf(got_path, sizeof got_path, "%s/%s", out, rel);
	snprintf(want_path, sizeof want_path, "tests/golden/md/%s", rel);
	got = slurp(got_path, &gl);
	if (getenv("UPDATE_GOLDEN") && got) {
		char dir[512], *slash;
		snprintf(dir, sizeof dir, "%s", want_path);
		slash = strrchr(dir, '/');
		*slash = '\0';
		gs_mkdirs(dir, &e);
		gs_write_file_atomic(want_path, got, gl, &e);
		printf("updated %s\n", want_path);
	}
	want = slurp(want_path, &wl);
	CHECK(got && want && gl == wl && memcmp(got, want, gl) == 0,
	      "golden %s (diff -u %s %s)", rel, want_path, got_path);
	free(got);
	free(want);
}

static int has(const char *hay, const char *needle)
{
	return hay && strstr(hay, needle) != NULL;
}

static int same_file(const char *a, const char *b)
{
	size_t la = 0, lb = 0;
	char *x = slurp(a, &la), *y = slurp(b, &lb);
	int r = x && y && la == lb && memcmp(x, y, la) == 0;
	free(x);
	free(y);
	return r;
}

/* Property: any string, escaped, stays inside its GFM table cell and
 * brings no HTML of its own through cmark-gfm (deterministic random). */
static void escape_property(void)
{
	static const char alphabet[] = "|<>&\\`*_[]~#=-+.!()\n\r\t\"' a1:/";
	static const char *const tags[] = { "<table>", "</table>", "<thead>", "</thead>",
		                            "<tbody>", "</tbody>", "<tr>", "</tr>", "<th>",
		                            "</th>", "<td>", "</td>" };
	unsigned long seed = 12345;
	int i, bad = 0, first_bad = -1;

	for (i = 0; i < 2000 && bad == 0; i++) {
		gs_tbuf md = { 0 }, html = { 0 };
		char s[40], *p;
		int n, k;
		size_t t;

		seed = seed * 6364136223846793005ul + 1442695040888963407ul;
		n = (int)((seed >> 33) % 24);
		for (k = 0; k < n; k++) {
			seed = seed * 6364136223846793005ul + 1442695040888963407ul;
			if ((seed >> 60) == 0) /* now and then any byte */
				s[k] = (char)(1 + (seed >> 35) % 255);
			else
				s[k] = alphabet[(seed >> 33) % (sizeof alphabet - 1)];
		}
		s[n] = '\0';
		gs_tbuf_puts(&md, "| a | b |\n|---|---|\n| ");
		gs_md_escape(&md, s);
		gs_tbuf_puts(&md, " | z |\n");
		gs_html_page(&html, "t", md.p, md.len, NULL, 0);
		p = strstr(html.p, "<table>");
		if (p == NULL || strstr(p, "<td>z</td>") == NULL) {
			bad++;
		} else {
			/* Drop our table tags; no other markup may remain in the table. */
			char *end = strstr(p, "</table>");
			if (end)
				end[8] = '\0';
			for (t = 0; t < sizeof tags / sizeof tags[0]; t++) {
				char *q;
				while ((q = strstr(p, tags[t])) != NULL)
					memset(q, ' ', strlen(tags[t]));
			}
			if (strchr(p, '<') || strchr(p, '>'))
				bad++;
		}
		if (bad && first_bad < 0) {
			first_bad = i;
			printf("  string: [%s]\n  markdown: %s\n", s, md.p);
		}
		gs_tbuf_free(&md);
		gs_tbuf_free(&html);
	}
	CHECK(bad == 0, "escape property: 2000 hostile strings stay in their table cell, no markup");
}

/* A sink that keeps what it is given (report_mdgen.h): the generator's
 * pages without any file. */
static struct {
	int begins, pages, charts[4];
	char rel[4][64];
	char *md[4];
} cap;

static gs_err cap_begin(const gs_mdsink *s, const char *out_dir, gs_error *e)
{
	(void)s;
	(void)out_dir;
	(void)e;
	cap.begins++;
	return GS_OK;
}

static gs_err cap_page(const gs_mdsink *s, const char *out_dir, const char *rel, const char *title,
                       const char *md, size_t len, const gs_mdchart *charts, size_t ncharts,
                       gs_error *e)
{
	(void)s;
	(void)out_dir;
	(void)title;
	(void)charts;
	if (cap.pages >= 4)
		return gs_fail(e, GS_EINTERNAL, "more pages than expected");
	snprintf(cap.rel[cap.pages], sizeof cap.rel[0], "%s", rel);
	cap.md[cap.pages] = gs_xcalloc(len + 1, 1);
	memcpy(cap.md[cap.pages], md, len);
	cap.charts[cap.pages++] = (int)ncharts;
	return GS_OK;
}

static const gs_mdsink cap_sink = { "cap", "md", cap_begin, cap_page };

/* The generator over another sink gives the same Markdown as the .md
 * writer wrote into out (run before), page by page. */
static void sink_pages(const char *out)
{
	gs_writer *w = gs_mdgen_writer(&cap_sink);
	gs_error e = { 0 };
	int rc = run(w, "/nonexistent-gpusizer-sink", &e), i;
	char path[600];

	w->free(w);
	CHECK(rc == 0 && cap.begins == 1 && cap.pages == 3, "sink: begin once, three pages (%s)", e.msg);
	CHECK(strcmp(cap.rel[0], "models/acme--Evil-Model") == 0 && strcmp(cap.rel[1], "models/formula") == 0 &&
	          strcmp(cap.rel[2], "index") == 0 && cap.charts[0] == 2 && cap.charts[1] == 2 && cap.charts[2] == 0,
	      "sink: model pages with their two charts, then the index without");
	for (i = 0; i < cap.pages && i < 3; i++) {
		size_t n;
		char *md;
		snprintf(path, sizeof path, "%s/%s.md", out, cap.rel[i]);
		md = slurp(path, &n);
		CHECK(md != NULL && strcmp(md, cap.md[i]) == 0, "sink: %s is the Markdown the .md writer wrote", cap.rel[i]);
		free(md);
		free(cap.md[i]);
	}
}

/* The assumptions come from templates/partials/assumptions.md.tmpl. */
static void assumptions(void)
{
	gs_error e = { 0 };
	char *text = NULL, *tmpl;
	size_t n;

	tmpl = slurp("templates/partials/assumptions.md.tmpl", &n);
	CHECK(gs_report_assumptions(&text, &e) == GS_OK && text != NULL && tmpl != NULL &&
	          strchr(tmpl, '\n') != NULL && strcmp(text, strchr(tmpl, '\n') + 1) == 0 &&
	          strncmp(text, "- **device** memory", 19) == 0,
	      "assumptions: the template's text after its comment line (%s)", e.msg);
	free(text);
	free(tmpl);
}

int main(void)
{
	char out1[] = "/tmp/gs-md-1-XXXXXX", out2[] = "/tmp/gs-md-2-XXXXXX";
	const char *files[] = { "index.md", "models/acme--Evil-Model.md", "models/formula.md",
		                "models/acme--Evil-Model-components.svg",
		                "models/acme--Evil-Model-context.svg", "models/formula-components.svg",
		                "models/formula-context.svg", "html/index.html",
		                "html/models/acme--Evil-Model.html", "html/models/formula.html" };
	gs_writer *w;
	gs_error e = { 0 };
	char path[600];
	char *idx, *page, *html, *hidx;
	size_t i, n;

	setup();
	escape_property();
	if (!mkdtemp(out1) || !mkdtemp(out2)) {
		printf("FAIL mkdtemp\n");
		return 1;
	}
	for (i = 0; i < 2; i++) {
		const char *out = i ? out2 : out1;
		int rc;
		w = gs_writer_md();
		rc = run(w, out, &e);
		w->free(w);
		CHECK(rc == 0, "md writer run %zu: %s", i + 1, e.msg);
		w = gs_writer_html();
		rc = run(w, out, &e);
		w->free(w);
		CHECK(rc == 0, "html writer run %zu: %s", i + 1, e.msg);
	}

	sink_pages(out1);
	assumptions();

	/* Golden Markdown and SVG. */
	for (i = 0; i < 7; i++)
		golden(out1, files[i]);
	/* Two runs byte-identical, every file. */
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		char a[600], b[600];
		snprintf(a, sizeof a, "%s/%s", out1, files[i]);
		snprintf(b, sizeof b, "%s/%s", out2, files[i]);
		CHECK(same_file(a, b), "two runs byte-identical: %s", files[i]);
	}

	snprintf(path, sizeof path, "%s/index.md", out1);
	idx = slurp(path, &n);
	snprintf(path, sizeof path, "%s/models/acme--Evil-Model.md", out1);
	page = slurp(path, &n);
	snprintf(path, sizeof path, "%s/html/models/acme--Evil-Model.html", out1);
	html = slurp(path, &n);
	snprintf(path, sizeof path, "%s/html/index.html", out1);
	hidx = slurp(path, &n);

	/* Escaping of names from outside in Markdown. */
	CHECK(has(page, "# acme/Evil\\|Model &lt;script&gt;alert(1)&lt;/script&gt; line2\n"),
	      "md: model id with | < > newline escaped in the heading");
	CHECK(!has(page, "<script>") && !has(idx, "<script>"), "md: no raw <script>");
	CHECK(has(idx, "[\\=HYPERLINK(\"http://x\")](models/formula.md)"),
	      "md: leading = escaped, link to the model page");
	CHECK(has(page, "config tally \\| Hub safetensors"), "md: | in a cell escaped");
	CHECK(has(page, "activations \\| overflow &lt;64 bits&gt;"), "md: error message escaped");
	/* Content. */
	CHECK(has(idx, "| full | 1 x 80 GB (NVIDIA A100 80GB) | 1 x 80 GB (NVIDIA A100 80GB) | 4 x 80 GB (NVIDIA A100 80GB) | — |"), "index: smallest fitting GPU per context (a comfortable fit before a smaller tight one; no row)");
	CHECK(has(idx, "| lora | 1 x 24 GB (NVIDIA L4) | 1 x 24 GB (NVIDIA L4) | 1 x 80 GB (NVIDIA A100 80GB) | none fits |"), "index: lora row, none fits at 32768");
	CHECK(has(idx, "| inference | 1 x 24 GB (NVIDIA L4) | 1 x 24 GB (NVIDIA L4) | 1 x 80 GB (NVIDIA A100 80GB), tight |"),
	      "index: a tight fit is named, marked, when nothing fits comfortably");
	CHECK(has(idx, "- AdamW states in fp32.\n"), "index: assumptions (raw Markdown)");
	CHECK(has(page, "not runnable") && has(page, "| does not fit (2.1 GiB over) |") && has(page, "| fits ") &&
	          has(page, "| tight 8% |"),
	      "model page: verdicts");
	CHECK(has(page, "| full amp-bf16 adamw b1 s512 sdpa | 61.59 | not runnable | does not fit (39.6 GiB over) | fits 22% |"),
	      "model page: device GiB in the matrix");
	CHECK(has(page, "| full amp-bf16 adamw b1 s512 sdpa | 14.96 | 14.96 | 29.92 | 0.75 | 1.00 | 60.59 | 60.84 | 61.59 | 62.09 | 62.59 | 63.09 | 2.00 / 2.00 / 8.00 | backward (step 2) | amp-bf16 |"), "model page: W G O A B, allocated, reserved, device, the seeds beside, bytes/param, peak, recipe name");
	CHECK(has(page, "- amp-bf16: fp32 weights, bf16 autocast \\| test\n"), "model page: recipes listed");
	CHECK(has(page, "## The seeds' formulas\n\n- cookbook (test): W=n\\*bpp\n- rule-of-thumb (test): GB = params\\*4/1e9\n- zero1-rule (test): 18 bytes/param\n"), "model page: the seeds' formulas listed");
	CHECK(has(page, "| cookbook | rule-of-thumb | zero1-rule |") && has(page, "| n/a |"),
	      "model page: seeds' formulas beside the detailed estimate");
	CHECK(has(page, "- full: full amp-bf16 adamw b1 s2048 sdpa (63.84 GiB device)\n"),
	      "chart: the first row at the middle context that fits somewhere represents its method");
	CHECK(has(page, "![Memory per GPU by component, one configuration per method](acme--Evil-Model-components.svg)"),
	      "model page: components chart referenced");
	/* HTML. */
	CHECK(has(html, "<table>") && has(html, "<th>configuration</th>") && has(html, "<td>"),
	      "html: real tables");
	CHECK(has(html, "<svg xmlns=\"http://www.w3.org/2000/svg\"") && !has(html, "<img"),
	      "html: charts inline");
	CHECK(!has(html, "<script>") && has(html, "&lt;script&gt;"), "html: no raw <script>");
	CHECK(has(html, "acme/Evil|Model &lt;script&gt;"), "html: | shown as text");
	CHECK(has(hidx, "=HYPERLINK(&quot;http://x&quot;)</a>") && has(hidx, "href=\"models/formula.html\""),
	      "html: relative links between pages, = as text");
	CHECK(has(html, "href=\"../index.html\""), "html: link back to the index");
	CHECK(!has(html, "src=\"http") && !has(html, "href=\"http"), "html: self-contained");

	/* Template error: names the file and line; nothing is written. */
	{
		char tdir[] = "/tmp/gs-tpl-XXXXXX", out3[] = "/tmp/gs-md-3-XXXXXX";
		char p[600];
		FILE *fp;
		int rc;
		struct stat st;
		if (mkdtemp(tdir) && mkdtemp(out3)) {
			snprintf(p, sizeof p, "%s/model.md.tmpl", tdir);
			fp = fopen(p, "w");
			fputs("# {{ model.id }}\n\n{{ model.nope }}\n", fp);
			fclose(fp);
			setenv("GPUSIZER_TEMPLATES", tdir, 1);
			memset(&e, 0, sizeof e);
			w = gs_writer_md();
			rc = run(w, out3, &e);
			w->free(w);
			unsetenv("GPUSIZER_TEMPLATES");
			CHECK(rc == 1 && e.code == GS_ETEMPLATE && has(e.msg, "/model.md.tmpl:3: unknown variable 'model.nope'"),
			      "template error names file and line: %s", e.msg);
			snprintf(p, sizeof p, "%s/models/acme--Evil-Model.md", out3);
			CHECK(stat(p, &st) != 0, "nothing written after a template error");
			unlink(tdir[0] ? (snprintf(p, sizeof p, "%s/model.md.tmpl", tdir), p) : p);
			rmdir(tdir);
			snprintf(p, sizeof p, "rm -rf '%s'", out3);
			if (system(p) != 0)
				printf("  (cleanup of %s failed)\n", out3);
		}
	}

	/* A model without rows, and an unwritable output directory. */
	{
		char out4[] = "/tmp/gs-md-4-XXXXXX", p[700];
		gs_report_meta meta;
		struct stat st;
		int k;
		memset(&meta, 0, sizeof meta);
		meta.spec_path = "sizing.json";
		meta.gpus = gpus;
		meta.n_gpus = 3;
		meta.models = models;
		meta.n_models = 1;
		meta.tool_version = "0.0-test";
		meta.assumptions = "";
		for (k = 0; k < 2 && mkdtemp(out4); k++) {
			gs_err rc;
			meta.out_dir = out4;
			memset(&e, 0, sizeof e);
			w = k ? gs_writer_html() : gs_writer_md();
			rc = w->begin(w, &meta, &e);
			if (!rc)
				rc = w->model_begin(w, &models[1], &e);
			if (!rc)
				rc = w->model_end(w, &models[1], &e);
			if (!rc)
				rc = w->end(w, &e);
			w->free(w);
			snprintf(p, sizeof p, "%s/%s", out4, k ? "html/models/formula.html" : "models/formula.md");
			CHECK(rc == GS_OK && stat(p, &st) == 0, "%s: a model without rows: %s", k ? "html" : "md", e.msg);
			snprintf(p, sizeof p, "rm -rf '%s'", out4);
			if (system(p) != 0)
				printf("  (cleanup of %s failed)\n", out4);
			snprintf(out4, sizeof out4, "/tmp/gs-md-4-XXXXXX");
		}
		meta.out_dir = "/dev/null/sub";
		memset(&e, 0, sizeof e);
		w = gs_writer_md();
		CHECK(w->begin(w, &meta, &e) == GS_EIO && has(e.msg, "/dev/null/sub"),
		      "unwritable output directory: GS_EIO naming it: %s", e.msg);
		w->free(w);
	}

	free(idx);
	free(page);
	free(html);
	free(hidx);
	if (!getenv("GS_KEEP_OUT") && !check_failed) {
		char cmd[600];
		snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", out1, out2);
		if (system(cmd) != 0)
			printf("  (cleanup failed)\n");
	} else {
		printf("output kept in %s\n", out1);
	}
	CHECK_DONE();
}
