/* Unit tests: the Markdown and HTML writers (src/report/md.c, html.c)
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
#include "html.h"
#include "mdgen.h"
#include "report.h"
#include "settings.h"
#include "svg.h"
#include "template.h"
#include "util.h"
#include "fileio.h"

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

	/* A Llama-3.1-8B shape, so that the plan view's searches have an
	 * engine estimate to work on. */
	gs_arch_manual(&arch1, 0, 32, 4096, 32, 8, 14336, 128256, &(gs_error){ 0 });
	arch1.max_pos = 131072;
	arch1.warning[0] = '\0';
	snprintf(arch1.model_type, sizeof arch1.model_type, "llama");
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
	r->settings.given = ~(uint64_t)0; /* a report's row is resolved: no stack moves it */
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
		if (f != GS_F_COOKBOOK && strcmp(method, "full") != 0)
			continue; /* the byte-a-parameter rules: a full fine-tune only (the engine refuses) */
		r->seeds[f].recipe = seed_text[f];
		r->seeds[f].device = r->est.device + (uint64_t)f * GIB / 2;
		/* what each rule counts a parameter: 4 + 4 x 12 (Adam), 2 x 18 */
		r->seeds[f].bpp_W = f == GS_F_ZERO1_RULE ? 36 : f == GS_F_RULE_OF_THUMB ? 4 : 2;
		r->seeds[f].bpp_O = f == GS_F_RULE_OF_THUMB ? 48 : 0;
	}
}

static int drive(gs_writer *w, gs_eval *ev, const gs_report_meta *m, gs_error *e);

static int feed(gs_writer *w, gs_eval *ev, gs_row *r, gs_error *e)
{
	gs_row_eval(ev, r);
	return w->row(w, r, e);
}

static int run(gs_writer *w, const char *out, gs_error *e)
{
	gs_report_meta meta;

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
	gs_eval *ev = gs_eval_new(&meta);
	int rc = drive(w, ev, &meta, e);
	gs_eval_free(ev);
	return rc;
}

/* The writer over the fixture's models and rows, each evaluated first
 * (gs_row_eval), as the report driver does. */
static int drive(gs_writer *w, gs_eval *ev, const gs_report_meta *m, gs_error *e)
{
	gs_row r;
	const double seqs[] = { 512, 2048, 8192 };
	int i;

	if (w->begin(w, m, e))
		return 1;
	gs_eval_model_begin(ev, &models[0]);
	if (w->model_begin(w, &models[0], e))
		return 1;
	for (i = 0; i < 3; i++) {
		double s = seqs[i] / 2048;
		if (i == 1) { /* first at the middle context, fits nowhere: not the chart's pick */
			mkrow(&r, &models[0], "full", NULL, (int64_t)seqs[i], 1, 14.96, 14.96, 29.92, 150, 1);
			gs_settings_set(&r.settings, "batch", "8", e);
			gs_settings_label(&r.settings, r.label, sizeof r.label);
			if (feed(w, ev, &r, e))
				return 1;
		}
		mkrow(&r, &models[0], "full", NULL, (int64_t)seqs[i], 1, 14.96, 14.96, 29.92, 3 * s, 1);
		if (feed(w, ev, &r, e))
			return 1;
		mkrow(&r, &models[0], "full", NULL, (int64_t)seqs[i], 4, 3.74, 3.74, 7.48, 3 * s, 1);
		if (feed(w, ev, &r, e))
			return 1;
		mkrow(&r, &models[0], "lora", NULL, (int64_t)seqs[i], 1, 14.96, 0.05, 0.1, 2 * s, 1);
		if (feed(w, ev, &r, e))
			return 1;
		mkrow(&r, &models[0], "lora", "fp16", (int64_t)seqs[i], 1, 14.96, 0.05, 0.1, 2 * s, 1);
		if (feed(w, ev, &r, e))
			return 1;
	}
	mkrow(&r, &models[0], "lora", NULL, 32768, 1, 0, 0, 0, 0, 0);
	r.err = GS_EOVERFLOW;
	snprintf(r.err_msg, sizeof r.err_msg, "activations | overflow <64 bits>");
	memset(&r.est, 0, sizeof r.est);
	if (feed(w, ev, &r, e))
		return 1;
	gs_eval_model_end(ev);
	if (w->model_end(w, &models[0], e))
		return 1;
	gs_eval_model_begin(ev, &models[1]);
	if (w->model_begin(w, &models[1], e))
		return 1;
	for (i = 0; i < 3; i++) { /* the last one only fits tight, on the largest GPU */
		mkrow(&r, &models[1], "inference", NULL, (int64_t)seqs[i], 1, i == 2 ? 73.5 : 0.23, 0, 0,
		      0.1 * (i + 1), 0.5);
		if (feed(w, ev, &r, e))
			return 1;
	}
	gs_eval_model_end(ev);
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
		                            "<tbody>", "</tbody>", "<tr>", "<tr id=\"t1r1\">",
		                            "</tr>", "<th>", "</th>", "<td>",
		                            "<td class=\"v-fits\">", "<td class=\"v-tight\">",
		                            "<td class=\"v-nofit\">", "<td class=\"v-norun\">",
		                            "</td>" };
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
		gs_html_page(&html, NULL, "t", md.p, md.len, NULL, 0);
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

/* The HTML page frame: verdict cells coloured by their text (matrix cells
 * and the cells under a context column), row ids for fragment links,
 * tables in a scroll box with sticky header and first column, the date
 * of the report (not the clock) and the downloads. */
static void html_frame(void)
{
	static const char md[] =
		"# T\n\n| configuration | GPU a | GPU b | GPU c | GPU d |\n|---|---|---|---|---|\n"
		"| x | fits 22% | tight 8% | does not fit (2.1 GiB over) | not runnable |\n"
		"| y | fits 50% | fits 40% | fits 30% | fits 20% |\n\n"
		"| method | GPU class | 2048 | 8192 | longest context, 1 GPU |\n|---|---|---|---|---|\n"
		"| full | consumer (L4) | **1** | 4 (zero3, tight) | 131072 |\n"
		"| lora | consumer (L4) | none up to 64 | needs bf16 | none |\n\n"
		"| configuration | a | b | c | d | e |\n|---|---|---|---|---|---|\n"
		"| z | \u2713 22% | \u2248 8% | \u2717 2.1 | \u2717 | — |\n\n"
		"| method / context | 512 | 4096 |\n|---|---|---|\n| full | — | none fits |\n\n"
		"| method | context | GPUs | configuration |\n|---|---|---|---|\n"
		"| lora | 512 | 1 x 24 GB (NVIDIA L4) | lora 1x |\n"
		"| lora | 4096 | 2 x 24 GB (NVIDIA L4), tight | lora 2x |\n";
	const char *dl[] = { "gpusizer.xlsx", "sizing.csv", NULL };
	gs_html_frame f = { "../../", 1700000000, dl };
	gs_tbuf h = { 0 };

	gs_html_page(&h, &f, "T", md, sizeof md - 1, NULL, 0);
	CHECK(has(h.p, "<td class=\"v-fits\">fits 22%</td>") && has(h.p, "<td class=\"v-tight\">tight 8%</td>") &&
	          has(h.p, "<td class=\"v-nofit\">does not fit (2.1 GiB over)</td>") &&
	          has(h.p, "<td class=\"v-norun\">not runnable</td>"),
	      "html: verdict cells carry the class of their verdict");
	CHECK(has(h.p, "<td class=\"v-fits\"><strong>1</strong></td>") &&
	          has(h.p, "<td class=\"v-tight\">4 (zero3, tight)</td>") &&
	          has(h.p, "<td class=\"v-nofit\">none up to 64</td>") &&
	          has(h.p, "<td class=\"v-norun\">needs bf16</td>") && has(h.p, "<td>131072</td>") &&
	          has(h.p, "<td>x</td>") && has(h.p, "<td>consumer (L4)</td>"),
	      "html: plan cells under a context column coloured; other columns not");
	CHECK(has(h.p, "<td class=\"v-fits\">\u2713 22%</td>") && has(h.p, "<td class=\"v-tight\">\u2248 8%</td>") &&
	          has(h.p, "<td class=\"v-nofit\">\u2717 2.1</td>") && has(h.p, "<td class=\"v-nofit\">\u2717</td>") &&
	          has(h.p, "<td class=\"v-norun\">—</td>") && has(h.p, "<td>—</td>") &&
	          has(h.p, "<td class=\"v-nofit\">none fits</td>"),
	      "html: short verdict cells (symbols) coloured; a summary's — (nothing swept) not");
	CHECK(has(h.p, "<td class=\"v-fits\">1 x 24 GB (NVIDIA L4)</td>") &&
	          has(h.p, "<td class=\"v-tight\">2 x 24 GB (NVIDIA L4), tight</td>") &&
	          has(h.p, "<td>512</td>") && has(h.p, "<td>lora 1x</td>"),
	      "html: the answers (count x class) coloured, fits or tight");
	CHECK(has(h.p, "<tr id=\"t1r1\">") && has(h.p, "<tr id=\"t1r2\">") && has(h.p, "<tr id=\"t2r2\">"),
	      "html: body rows have ids t<table>r<row> for fragment links");
	CHECK(has(h.p, "<div class=\"tw\"><table>") && has(h.p, "</table></div>") &&
	          has(h.p, ".tw{overflow:auto;max-height:80vh") && has(h.p, "thead th{position:sticky;top:0") &&
	          has(h.p, "td:first-child{position:sticky;left:0") && !has(h.p, "display:block;overflow"),
	      "html: tables in a bounded scroll box, header row and first column sticky");
	CHECK(has(h.p, "#C6EFCE;color:#006100") && has(h.p, "#FFEB9C;color:#9C5700") &&
	          has(h.p, "#FFC7CE;color:#9C0006") && has(h.p, "#D9D9D9;color:#404040"),
	      "html: the workbook's verdict palette");
	CHECK(has(h.p, "</h1>\n<p class=\"gen\">Generated 2023-11-14. Every configuration: <a ") &&
	          has(h.p, "href=\"../../gpusizer.xlsx\"") && has(h.p, "href=\"../../sizing.csv\""),
	      "html: the report's date (from its epoch) and links to the workbook and the CSV");
	gs_tbuf_free(&h);
}

/* A number attribute name="..." at or after p, or -1. */
static double attr(const char *p, const char *name)
{
	char key[40];
	const char *q;

	snprintf(key, sizeof key, " %s=\"", name);
	q = p ? strstr(p, key) : NULL;
	return q ? strtod(q + strlen(key), NULL) : -1;
}

/* Capacity lines that crowd: every label joined by its leader to its own
 * line, in the lines' order, at least 16 units apart. */
static void svg_crowded_caps(void)
{
	gs_svg_bar bar = { "full", "full x: 30.00 GiB", { 10ull << 30, 5ull << 30, 10ull << 30, 4ull << 30, 1ull << 30 } };
	gs_svg_cap caps[] = { { "12 GB", 11ull << 30 }, { "16 GB", 12ull << 30 },
		              { "20 GB", 13ull << 30 }, { "24 GB", 14ull << 30 },
		              { "32 GB", 31ull << 30 }, { "40 GB", 32ull << 30 } };
	gs_tbuf o = { 0 };
	const char *p;
	double prev_label = -1, prev_line = -1;
	int n = 0, ok = 1;

	gs_svg_stacked(&o, "crowded", &bar, 1, caps, sizeof caps / sizeof caps[0]);
	/* Labels are drawn from the top (the largest capacity) down. */
	for (p = strstr(o.p, "stroke-dasharray"); p; p = strstr(p + 1, "stroke-dasharray")) {
		const char *ln = p, *pl = strstr(p, "<polyline"), *tx = strstr(p, "<text");
		double y_line, y_lab, lx, ly0, ly1;
		char pts[200];
		while (ln > o.p && strncmp(ln, "<line", 5) != 0)
			ln--;
		y_line = attr(ln, "y1");
		y_lab = attr(tx, "y");
		if (pl == NULL || tx == NULL || sscanf(strstr(pl, "points=\"") + 8, "%199[^\"]", pts) != 1 ||
		    sscanf(pts, "%lf,%lf %*f,%lf", &lx, &ly0, &ly1) != 3) {
			ok = 0;
			break;
		}
		if (ly0 != y_line || ly1 != y_lab - 5 || (prev_line >= 0 && y_line <= prev_line) ||
		    (prev_label >= 0 && y_lab - prev_label < 15.9))
			ok = 0;
		prev_label = y_lab;
		prev_line = y_line;
		n++;
	}
	CHECK(ok && n == 6, "svg: crowded capacity labels each joined to their own line, in order, apart (%d)", n);
	CHECK(has(o.p, "<text x=\"398.0\"") && has(o.p, ">40 GB</text>") && has(o.p, ">12 GB</text>"),
	      "svg: capacity labels at the right of the plot");
	gs_tbuf_free(&o);
}

/* Text legible on a phone: a 460-unit viewBox, no text under 14 units (at
 * 358 px of a 390 px screen: 10.9 px); the caption names the configuration
 * and the GPU count. */
static void svg_phone_and_caption(const char *out)
{
	char path[600];
	size_t n, i;
	const char *names[] = { "models/acme--Evil-Model-components.svg", "models/acme--Evil-Model-context.svg" };

	for (i = 0; i < 2; i++) {
		char *t;
		const char *p;
		double minf = 1e9;
		snprintf(path, sizeof path, "%s/%s", out, names[i]);
		t = slurp(path, &n);
		for (p = t ? strstr(t, "font-size=\"") : NULL; p; p = strstr(p + 1, "font-size=\"")) {
			double f = strtod(p + 11, NULL);
			if (f < minf)
				minf = f;
		}
		CHECK(t && has(t, "viewBox=\"0 0 460 ") && minf >= 14 && minf * 358 / 460 >= 10.8,
		      "svg: %s: text at least 14 of 460 units (%.1f px at 390 px)", names[i], minf * 358 / 460);
		if (i == 0)
			CHECK(t && has(t, "s2048 sdpa on 1 GPU: 63.84 GiB</text>"),
			      "svg: the components chart names each bar's configuration and GPU count");
		free(t);
	}
}

/* A model swept at one context: a bar per method, not dots on one x. */
static void svg_one_context(void)
{
	int64_t x[1] = { 512 };
	uint64_t y1[1] = { 3ull << 30 }, y2[1] = { 2ull << 30 };
	gs_svg_series s[2] = { { "full", 1, x, y1 }, { "lora", 1, x, y2 } };
	const char *cfg[2] = { "full amp-bf16 b1 sdpa", "lora bf16 b1 sdpa 2xzero3" };
	gs_svg_cap cap = { "12 GB", 11ull << 30 };
	gs_tbuf o = { 0 };
	size_t rects = 0;

	gs_svg_lines_ex(&o, "one", "ctx", s, cfg, 2, &cap, 1);
	for (const char *p = strstr(o.p, "<rect x="); p; p = strstr(p + 1, "<rect x="))
		rects++;
	CHECK(rects == 2 && !has(o.p, "<circle") && !has(o.p, "<polyline fill=\"none\" stroke=\"#4e79a7\"") &&
	          has(o.p, "One context swept: 512 tokens"),
	      "svg: one context: a bar per method, no dots (%zu bars)", rects);
	CHECK(has(o.p, "full: full amp-bf16 b1 sdpa on 1 GPU</text>") &&
	          has(o.p, "lora: lora bf16 b1 sdpa 2xzero3 on 2 GPUs</text>"),
	      "svg: the context chart names each line's configuration and GPU count");
	gs_tbuf_free(&o);
}

/* A sink that keeps what it is given (mdgen.h): the generator's
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
	html_frame();
	svg_crowded_caps();
	svg_one_context();
	svg_phone_and_caption(out1);

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
	CHECK(has(idx, "| model | context | full | lora | inference |\n"),
	      "index: one table, a row per model and context, a column per method");
	CHECK(has(idx, "|  | 8192 | 4 x A100 80GB · zero3 b1 | 1 x A100 80GB · bf16 | — |"),
	      "index: smallest fitting GPU per context (a comfortable fit before a smaller tight one; no row), "
	      "each cell naming its configuration: its layout and what differs among the method's rows");
	CHECK(has(idx, "|  | 32768 | — | none fits | — |"), "index: lora, none fits at 32768");
	CHECK(has(idx, "|  | 8192 | — | — | 1 x A100 80GB, tight · bf16 b1 sdpa |"),
	      "index: a tight fit is named, marked, when nothing fits comfortably (the default precision runs in "
	      "fp16 on the T4, which has no bf16)");
	CHECK(has(idx, "shares: full: amp-bf16 adamw sdpa; lora: adamw r16 qv b1 sdpa; inference: bf16 b1 sdpa."),
	      "index: what every configuration of a method shares, listed once under the table");
	CHECK(!has(idx, "GPU class |") && has(page, "## The fewest GPUs of each class"),
	      "the plan view is on the model's page, not the index");
	CHECK(has(idx, "- AdamW states in fp32.\n"), "index: assumptions (raw Markdown)");
	CHECK(has(page, "| — |") && has(page, "| ✗ 2.1 |") && has(page, "| ✓ 25% |") && has(page, "| ≈ 8% |"),
	      "model page: short verdict cells (not runnable, GiB over, headroom, tight)");
	CHECK(has(page, "| full amp-bf16 adamw b1 s512 sdpa | 61.59 | ✗ 47.1 | ✗ 39.6 | ✓ 22% |"),
	      "model page: device GiB and one cell per plan class in the matrix (the T4 sized at fp16)");
	CHECK(has(page, "| full | 8192 | 4 x 80 GB (NVIDIA A100 80GB) | full amp-bf16 adamw b1 s8192 sdpa 4xzero3 | 27.96 |") &&
	          has(page, "| lora | 32768 | none fits |"),
	      "model page: the answer first, with the configuration that achieves it");
	{
		size_t n4 = 0;
		for (const char *p = page; (p = strstr(p, "4xzero3 |")) != NULL; p++)
			n4++;
		CHECK(n4 == 1, "model page: the matrices show one-GPU rows only (the 4-GPU row in the answer, "
		               "%zu times in all)", n4);
	}
	CHECK(has(page, "| full amp-bf16 adamw b1 s512 sdpa | 14.96 | 14.96 | 29.92 | 0.75 | 1.00 | 61.59 | 62.09 | 62.59 | 63.09 |"),
	      "model page: weights, gradients, optimizer states, activations, other, device, the rules of thumb beside");
	CHECK(has(page, "- amp-bf16: fp32 weights, bf16 autocast \\| test\n"), "model page: recipes listed");
	CHECK(has(page, "so they are shown for full\nfine-tunes only.\n\n- cookbook (test): W=n\\*bpp\n- rule-of-thumb (test): GB = params\\*4/1e9\n- zero1-rule (test): 18 bytes/param\n"), "model page: the rules of thumb listed");
	CHECK(has(page, "| device | cookbook rule | 52 bytes per param rule | 36 bytes per param rule |\n") &&
	          has(page, "| device | cookbook rule |\n") && !has(page, "| 4 bytes per param") && !has(page, "| 18 bytes per param"),
	      "model page: the rules of thumb beside the detailed estimate, named by the bytes a parameter "
	      "they count, the byte-a-parameter ones on full fine-tune rows only");
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
			gs_eval *ev = gs_eval_new(&meta);
			gs_eval_model_begin(ev, &models[1]);
			rc = w->begin(w, &meta, &e);
			if (!rc)
				rc = w->model_begin(w, &models[1], &e);
			gs_eval_model_end(ev);
			if (!rc)
				rc = w->model_end(w, &models[1], &e);
			if (!rc)
				rc = w->end(w, &e);
			w->free(w);
			gs_eval_free(ev);
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
