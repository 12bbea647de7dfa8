/* XLSX writer: builds workbooks from hand-built models, rows and GPUs.
 *
 *   test_report_xlsx                 unit checks (PASS/FAIL lines)
 *   test_report_xlsx write DIR [N]   write the fixture workbook to
 *                                    DIR/gpusizer.xlsx for tests/t_xlsx.py;
 *                                    N > 0: at most N rows per sheet
 *   test_report_xlsx big DIR ROWS    one model with ROWS rows (timing)
 *   test_report_xlsx verify FILE     gs_xlsx_verify on FILE (exit 0 if whole)
 *
 * The estimates are filled by hand (no engine): device sizes chosen to land
 * on each verdict of the fixture GPUs. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "report.h"
#include "xlsx.h"
#include "util.h"
#include "fileio.h"

#define GIB (1024ULL * 1024 * 1024)
#define FIXTURE_EPOCH 1700000000 /* 2023-11-14T22:13:20Z */

static gs_gpu gpus[4];

static void make_gpu(gs_gpu *g, const char *id, const char *name, const char *klass,
                     double total_gib, double usable_gib, bool bf16, bool fp8, double bw,
                     double tflops, const char *source)
{
	memset(g, 0, sizeof *g);
	snprintf(g->id, sizeof g->id, "%s", id);
	snprintf(g->name, sizeof g->name, "%s", name);
	snprintf(g->klass, sizeof g->klass, "%s", klass);
	g->total_bytes = (uint64_t)(total_gib * (double)GIB);
	g->usable_bytes = (uint64_t)(usable_gib * (double)GIB);
	g->bf16 = bf16;
	g->fp8 = fp8;
	g->bandwidth_gbs = bw;
	g->bf16_tflops = tflops;
	snprintf(g->source, sizeof g->source, "%s", source);
}

static void make_gpus(void)
{
	make_gpu(&gpus[0], "t4", "NVIDIA T4", "16 GB", 15.0, 14.5, false, false, 320, 65,
	         "fixture: not a measurement");
	make_gpu(&gpus[1], "rtx-4090", "NVIDIA GeForce RTX 4090", "24 GB", 23.99, 23.5, true, true,
	         1008, 165, "fixture: not a measurement");
	make_gpu(&gpus[2], "a100-80gb", "NVIDIA A100-SXM4-80GB", "80 GB", 79.25, 79.0, true, false,
	         2039, 312, "fixture: not a measurement");
	make_gpu(&gpus[3], "evil", "=1+1", "=A1", 140.0, 139.0, true, true, 4800, 989,
	         "<script>alert(1)</script> & \"quotes\" =HYPERLINK(\"http://x\")");
}

/* A row with a hand-filled estimate: device bytes per GPU, components
 * summing to it (W 50%, G 10%, O 20%, A 15%, B 5%). */
static void make_row(gs_row *r, const gs_model *m, size_t index, gs_method method, gs_prec prec,
                     int64_t seq, int64_t n_gpus, double device_gib)
{
	uint64_t dev = (uint64_t)(device_gib * (double)GIB);

	memset(r, 0, sizeof *r);
	r->index = index;
	r->model = m;
	gs_settings_default(&r->settings);
	r->settings.method = method;
	r->settings.precision = prec;
	r->settings.precision_set = true;
	r->settings.seq = seq;
	r->settings.gpus = n_gpus;
	if (n_gpus > 1)
		r->settings.sharding = GS_SH_ZERO3;
	gs_settings_label(&r->settings, r->label, sizeof r->label);
	snprintf(r->id, sizeof r->id, "%s-r%04zu", m->slug, index);
	r->est.formula = GS_F_DETAILED;
	r->est.recipe = "fixture recipe (hand-filled)";
	r->est.params_total = 8030261248ULL;
	r->est.params_trainable = method == GS_FULL ? r->est.params_total : 3407872;
	r->est.params_active = r->est.params_total;
	r->est.W = dev / 2;
	r->est.G = dev / 10;
	r->est.O = dev / 5;
	r->est.A = dev / 20 * 3;
	r->est.B = dev - r->est.W - r->est.G - r->est.O - r->est.A;
	r->est.bpp_W = 2.0;
	r->est.bpp_G = 4.0;
	r->est.bpp_O = 8.0;
	r->est.allocated = dev - dev / 8;
	r->est.reserved = dev - dev / 16;
	r->est.device = dev;
	r->est.peak_phase = GS_PH_BACKWARD;
	r->est.peak_step = 2;
	r->est.gpus = n_gpus;
	snprintf(r->est.note, sizeof r->est.note, "fixture note");
	for (int f = GS_F_COOKBOOK; f < GS_F_MAX; f++) {
		r->seeds[f].formula = (gs_formula)f;
		r->seeds[f].device = dev + (uint64_t)f * GIB;
	}
}

typedef struct fixture {
	gs_model models[8];
	size_t n_models;
	gs_report_meta meta;
} fixture;

static void make_fixture(fixture *fx, const char *dir, bool split)
{
	static const char *const ids[][2] = {
		{"meta-llama/Llama-3.1-8B", "meta-llama--Llama-3.1-8B"},
		{"=cmd|' /C calc'!A0", "cmd-calc"},
		{"<script>alert(1)</script>", "script"},
		{"org/bad\xff\x01name_x0041_", "org--bad-name"},
		{"meta-llama/Llama-3.1-8B-Instruct-with-a-very-long-name-beyond-31", "long"},
		{"other/Llama-3.1-8B", "other--Llama-3.1-8B"},
		{"split/Big", "split--Big"},
	};
	memset(fx, 0, sizeof *fx);
	make_gpus();
	fx->n_models = split ? 7 : 6;
	for (size_t i = 0; i < fx->n_models; i++) {
		fx->models[i].id = ids[i][0];
		fx->models[i].slug = ids[i][1];
		fx->models[i].param_source = i == 0 ? "config tally; Hub safetensors 8030261248" : NULL;
	}
	fx->meta.spec_path = "(hand-built fixture, no spec)";
	fx->meta.out_dir = dir;
	fx->meta.gpus = gpus;
	fx->meta.n_gpus = 4;
	fx->meta.models = fx->models;
	fx->meta.n_models = fx->n_models;
	fx->meta.epoch = FIXTURE_EPOCH;
	fx->meta.tool_version = "test";
	fx->meta.assumptions = "Line one\nLine | two <x>\r\n=SUM(A1)\n- **bold** and `code`\n";
}

/* Rows of model i (the writer copies what it keeps). */
static size_t model_rows(const fixture *fx, size_t i, gs_row *rows)
{
	const gs_model *m = &fx->models[i];
	size_t n = 0;

	switch (i) {
	case 0:
		/* full 512: not runnable on T4 (bf16), no fit 4090, fits A100 */
		make_row(&rows[n++], m, 0, GS_FULL, GS_P_AMP_BF16, 512, 1, 60.0);
		/* full 2048: tight on the A100 (75/79: 5% headroom) */
		make_row(&rows[n++], m, 1, GS_FULL, GS_P_AMP_BF16, 2048, 1, 75.0);
		/* lora 512: fits the 4090 (20/23.5: 15% headroom) */
		make_row(&rows[n++], m, 2, GS_LORA, GS_P_BF16, 512, 1, 20.0);
		/* inference fp16: fits the T4 (no bf16 needed) */
		make_row(&rows[n++], m, 3, GS_INFER, GS_P_FP16, 512, 1, 10.0);
		/* inference fp8: not runnable on the A100 (no fp8) */
		make_row(&rows[n++], m, 4, GS_INFER, GS_P_FP8, 2048, 1, 12.0);
		/* full on 2 GPUs, zero3: 30 GiB per GPU */
		make_row(&rows[n++], m, 5, GS_FULL, GS_P_AMP_BF16, 512, 2, 30.0);
		/* a row without an estimate */
		make_row(&rows[n], m, 6, GS_FULL, GS_P_AMP_BF16, 32768, 1, 0);
		rows[n].err = GS_EOVERFLOW;
		snprintf(rows[n].err_msg, sizeof rows[n].err_msg, "overflow <b>&amp; =1+1");
		n++;
		/* full 8192, 130 GiB: only tight, on the largest class */
		make_row(&rows[n++], m, 7, GS_FULL, GS_P_AMP_BF16, 8192, 1, 130.0);
		break;
	case 6:
		for (size_t k = 0; k < 7; k++)
			make_row(&rows[n++], m, k, GS_LORA, GS_P_BF16, 512 << k, 1, 4.0 + (double)k);
		break;
	default:
		make_row(&rows[n++], m, 0, GS_LORA, GS_P_BF16, 1024, 1, 16.0);
		if (i == 1)
			make_row(&rows[n++], m, 1, GS_QLORA, GS_P_NF4, 1024, 1, 8.0);
		break;
	}
	return n;
}

/* Run the writer over the fixture. stop_after >= 0: free after that many
 * models without calling end (a failure elsewhere mid-run). */
static gs_err write_fixture(const char *dir, bool split, int stop_after, gs_error *e)
{
	fixture fx;
	gs_writer *w = gs_writer_xlsx();
	gs_row rows[12];
	gs_err rc;

	make_fixture(&fx, dir, split);
	gs_eval *ev = gs_eval_new(&fx.meta);
	rc = w->begin(w, &fx.meta, e);
	for (size_t i = 0; rc == GS_OK && i < fx.n_models; i++) {
		size_t n;

		if (stop_after >= 0 && (size_t)stop_after == i)
			goto out;
		n = model_rows(&fx, i, rows);
		gs_eval_model_begin(ev, &fx.models[i]);
		rc = w->model_begin(w, &fx.models[i], e);
		for (size_t k = 0; rc == GS_OK && k < n; k++) {
			gs_row_eval(ev, &rows[k]);
			rc = w->row(w, &rows[k], e);
		}
		gs_eval_model_end(ev);
		if (rc == GS_OK)
			rc = w->model_end(w, &fx.models[i], e);
	}
	if (rc == GS_OK)
		rc = w->end(w, e);
out:
	w->free(w);
	gs_eval_free(ev);
	return rc;
}

static gs_err write_big(const char *dir, size_t n_rows, gs_error *e)
{
	fixture fx;
	gs_writer *w = gs_writer_xlsx();
	gs_row r;
	gs_err rc;

	make_fixture(&fx, dir, false);
	fx.meta.n_models = 1;
	gs_eval *ev = gs_eval_new(&fx.meta);
	gs_eval_model_begin(ev, &fx.models[0]);
	rc = w->begin(w, &fx.meta, e);
	if (rc == GS_OK)
		rc = w->model_begin(w, &fx.models[0], e);
	for (size_t k = 0; rc == GS_OK && k < n_rows; k++) {
		make_row(&r, &fx.models[0], k, (gs_method)(k % 4), k % 4 == 0 ? GS_P_AMP_BF16 : GS_P_BF16,
		         512 << (k % 7), 1 << (k % 4), 1.0 + (double)(k % 200));
		gs_row_eval(ev, &r);
		rc = w->row(w, &r, e);
	}
	gs_eval_model_end(ev);
	if (rc == GS_OK)
		rc = w->model_end(w, &fx.models[0], e);
	if (rc == GS_OK)
		rc = w->end(w, e);
	w->free(w);
	gs_eval_free(ev);
	return rc;
}

/* ---- unit checks -------------------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
	char *buf = NULL;
	gs_error e = {0};

	if (gs_read_file(path, (size_t)1 << 30, &buf, len, &e) != GS_OK)
		return NULL;
	return buf;
}

/* Entries in dir other than "." and ".." and keep; -1 if unreadable. */
static int extra_entries(const char *dir, const char *keep)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (keep != NULL && strcmp(de->d_name, keep) == 0)
			continue;
		printf("  entry: %s\n", de->d_name);
		n++;
	}
	closedir(d);
	return n;
}

static void rm_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[4200];

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		if (rmdir(p) != 0)
			unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

static int unit_checks(void)
{
	char tmpl[] = "/tmp/gs-xlsx-XXXXXX";
	char *root = mkdtemp(tmpl);
	char a[4096], b[4096], fa[4200], fb[4200], c[4096], fc[4200], d[4096];
	gs_error e = {0};
	gs_err rc;
	char *x = NULL, *y = NULL;
	size_t nx = 0, ny = 0;

	CHECK(root != NULL, "xlsx: temporary directory");
	if (root == NULL)
		CHECK_DONE();
	snprintf(a, sizeof a, "%s/a", root);
	snprintf(b, sizeof b, "%s/b", root);
	snprintf(c, sizeof c, "%s/c", root);
	snprintf(d, sizeof d, "%s/missing/dir", root);
	mkdir(a, 0755);
	mkdir(b, 0755);
	mkdir(c, 0755);
	snprintf(fa, sizeof fa, "%s/%s", a, GS_XLSX_FILE);
	snprintf(fb, sizeof fb, "%s/%s", b, GS_XLSX_FILE);
	snprintf(fc, sizeof fc, "%s/%s", c, GS_XLSX_FILE);

	/* A whole run writes the file and nothing else. */
	rc = write_fixture(a, false, -1, &e);
	CHECK(rc == GS_OK, "xlsx: fixture workbook written (%s)", e.msg);
	x = slurp(fa, &nx);
	CHECK(x != NULL && nx > 1000 && memcmp(x, "PK\x03\x04", 4) == 0,
	      "xlsx: %s is a zip file (%zu bytes)", fa, nx);
	CHECK(extra_entries(a, GS_XLSX_FILE) == 0, "xlsx: no temporary files left after a run");

	/* Identical inputs, identical bytes. */
	memset(&e, 0, sizeof e);
	rc = write_fixture(b, false, -1, &e);
	y = slurp(fb, &ny);
	CHECK(rc == GS_OK && x != NULL && y != NULL && nx == ny && memcmp(x, y, nx) == 0,
	      "xlsx: two runs give byte-identical workbooks (%zu and %zu bytes)", nx, ny);
	free(y);
	y = NULL;

	/* A run that stops mid-way (another writer failed) keeps the old file. */
	memset(&e, 0, sizeof e);
	rc = write_fixture(a, false, 2, &e);
	y = slurp(fa, &ny);
	CHECK(rc == GS_OK && y != NULL && ny == nx && memcmp(x, y, nx) == 0,
	      "xlsx: a run freed before end leaves the previous workbook intact");
	CHECK(extra_entries(a, GS_XLSX_FILE) == 0, "xlsx: ... and no temporary files");
	free(y);
	y = NULL;

	/* The rename fails (the target is a directory): an error, no temporaries. */
	mkdir(fc, 0755);
	memset(&e, 0, sizeof e);
	rc = write_fixture(c, false, -1, &e);
	CHECK(rc == GS_EIO && strstr(e.msg, GS_XLSX_FILE) != NULL,
	      "xlsx: a failed rename is GS_EIO naming the file (%s)", e.msg);
	CHECK(extra_entries(c, GS_XLSX_FILE) == 0, "xlsx: ... and leaves no temporary files");
	rmdir(fc);

	/* An output directory that cannot be written. */
	memset(&e, 0, sizeof e);
	rc = write_fixture(d, false, -1, &e);
	CHECK(rc == GS_EIO && strstr(e.msg, "missing/dir") != NULL,
	      "xlsx: a missing output directory is GS_EIO naming it (%s)", e.msg);
	if (geteuid() != 0) { /* root writes anywhere: the rename case above covers it */
		gs_error we = {0};
		CHECK(gs_write_file_atomic(fc, "old", 3, &we) == GS_OK, "xlsx: old file in place");
		chmod(c, 0555);
		memset(&e, 0, sizeof e);
		rc = write_fixture(c, false, -1, &e);
		CHECK(rc == GS_EIO, "xlsx: a read-only output directory is GS_EIO (%s)", e.msg);
		y = slurp(fc, &ny);
		CHECK(y != NULL && ny == 3 && memcmp(y, "old", 3) == 0,
		      "xlsx: ... the old file is kept");
		CHECK(extra_entries(c, GS_XLSX_FILE) == 0, "xlsx: ... and nothing else is created");
		free(y);
		y = NULL;
		chmod(c, 0755);
		unlink(fc);
	}

	/* Splitting at a row limit (lowered for the test): the workbook is
	 * still written; the sheets are checked by tests/t_xlsx.py. */
	gs_xlsx_set_data_rows_max(3);
	memset(&e, 0, sizeof e);
	rc = write_fixture(b, true, -1, &e);
	gs_xlsx_set_data_rows_max(0);
	CHECK(rc == GS_OK, "xlsx: a model past the sheet row limit is split, not an error (%s)", e.msg);

	free(x);
	rm_dir(a);
	rm_dir(b);
	rm_dir(c);
	rm_dir(root);
	CHECK_DONE();
}

int main(int argc, char **argv)
{
	gs_error e = {0};
	gs_err rc;

	if (argc == 1)
		return unit_checks();
	if (argc >= 3 && strcmp(argv[1], "write") == 0) {
		long limit = argc >= 4 ? strtol(argv[3], NULL, 10) : 0;
		gs_xlsx_set_data_rows_max(limit > 0 ? (uint32_t)limit : 0);
		rc = write_fixture(argv[2], limit > 0, -1, &e);
	} else if (argc == 3 && strcmp(argv[1], "verify") == 0) {
		rc = gs_xlsx_verify(argv[2], argv[2], &e);
	} else if (argc == 4 && strcmp(argv[1], "big") == 0) {
		rc = write_big(argv[2], (size_t)strtoul(argv[3], NULL, 10), &e);
	} else {
		fprintf(stderr, "usage: test_report_xlsx [write DIR [ROWS_PER_SHEET] | big DIR ROWS | "
		        "verify FILE]\n");
		return 2;
	}
	if (rc != GS_OK) {
		gs_report_error(&e);
		return gs_exit_code(rc);
	}
	return 0;
}
