/* gpusizer: `gpusizer report`: reads the sweep spec, resolves models and GPU
 * classes, streams every row to the output writers into a temporary
 * directory beside out/, then moves the files into place (or, with
 * --check, compares them with out/). */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "config.h"
#include "err.h"
#include "gpu.h"
#include "models.h"
#include "report.h"
#include "spec.h"
#include "sweep.h"
#include "util.h"

static const char *const ASSUMPTIONS =
	"- **device** memory (what `nvidia-smi` shows for the process: PyTorch's reserved pool, "
	"the CUDA context and library workspaces) decides the verdict; it is compared with the "
	"GPU's *usable* memory (what one process can allocate: the driver's total minus its "
	"reservations), per GPU.\n"
	"- **fits**: device <= usable with at least 10% headroom; **tight**: fits with under 10% "
	"headroom; **does not fit**: device > usable; **not runnable**: the row needs bf16 or fp8 "
	"the GPU lacks (V100 and T4 have no bf16; fp8 needs Ada, Hopper, Blackwell or MI300X). "
	"Quantised bases (nf4, int8, GPTQ, AWQ) compute in bf16.\n"
	"- headroom = 1 - device / usable. GiB = 2^30 bytes.\n"
	"- Multi-GPU rows give per-GPU memory under the named sharding (ddp replicates; "
	"ZeRO/FSDP shard), on GPUs of one class. With LoRA and QLoRA under ZeRO-3 the frozen "
	"base is sharded and gathered a layer at a time at its stored size (4-bit stays 4-bit), "
	"and only the adapters have gradients and optimizer states.\n"
	"- Rows follow transformers + PEFT + bitsandbytes conventions: LoRA adapters in fp32 "
	"(PEFT's default), the output head and embeddings unquantised, standard cross-entropy "
	"over fp32 logits, AdamW (torch's multi-tensor step); inference rows keep the prompt's "
	"last-position logits, as generate() does. litgpt, torchtune and DeepSpeed "
	"differ; `gpusizer estimate` has flags for their conventions (docs/engine.md).\n"
	"- Where a row was run on a real GPU with `gpusizer verify` (measurements/verified.jsonl), "
	"the measured peak is shown beside today's prediction: device memory as NVML reports it for "
	"the process, or where no device reading was taken torch's reserved (else allocated) peak, "
	"named as such.\n"
	"- Estimates come from the detailed step simulation; the seeds' closed formulas "
	"(cookbook, rule of thumb, ZeRO-1 rule) are shown beside it for comparison.\n"
	"- Combinations the settings reject (e.g. a storage format such as nf4 for full "
	"fine-tuning) and contexts longer than a model's maximum positions are not swept; rows "
	"whose estimate fails are listed with the error.\n"
	"- GPU figures come from the files in gpus/, each with its sources. Where the driver's "
	"own reservation was not found for a GPU, usable memory assumes 512 MiB of it (an idle "
	"A10 showed 517 MiB); a few totals are not confirmed from a quoted readout (their "
	"sources say so).\n";

static volatile sig_atomic_t g_stop;

static void on_stop(int sig)
{
	g_stop = sig;
}

enum {
	OPT_SPEC = GS_OPT_OWN, OPT_OUT, OPT_CHECK, OPT_FORMAT, OPT_MODELS_DIR, OPT_GPUS_DIR,
	OPT_OFFLINE, OPT_MEASUREMENTS, OPT_OVERRIDE,
};

static const gs_opt report_opts[] = {
	{ "spec", 0, "FILE", 0, OPT_SPEC, "the sweep spec (default sizing.json; docs/spec.md);\n"
	  "paths inside it are relative to its directory" },
	{ "out", 0, "DIR", 0, OPT_OUT, "output directory (default: the spec's \"out\")" },
	{ "check", 0, NULL, 0, OPT_CHECK, "regenerate into a temporary directory and compare with\n"
	  "DIR: exit 0 when current, 5 and the stale files when not" },
	{ "format", 0, "LIST", 0, OPT_FORMAT, "comma list of md, html, xlsx, json, csv (default: spec)" },
	{ "models-dir", 0, "DIR", 0, OPT_MODELS_DIR, "model cache (default: the spec's, else the default cache)" },
	{ "gpus-dir", 0, "DIR", 0, OPT_GPUS_DIR, "GPU class files (default: the spec's, else the installed gpus/)" },
	{ "offline", 0, NULL, 0, OPT_OFFLINE, "never fetch a model (also HF_HUB_OFFLINE=1,\n"
	  "GPUSIZER_OFFLINE=1); not cached: exit 10" },
	{ "measurements", 0, "FILE", 0, OPT_MEASUREMENTS, "gpusizer verify's store, shown beside the rows it\n"
	  "measured (default $GPUSIZER_MEASUREMENTS, else\n"
	  "measurements/verified.jsonl; a missing file is empty)" },
	{ "json", 0, NULL, 0, GS_OPT_JSON, "the outcome as JSON on stdout (with --check: every\n"
	  "stale, missing or extra file)" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

/* Axis overrides: the option name, and the gs_spec_override key. */
static const gs_opt override_opts[] = {
	{ "models", 0, "ID,...", 0, OPT_OVERRIDE, "model ids or config paths" },
	{ "gpu", 0, "ID,...", 0, OPT_OVERRIDE, "GPU classes (ids as in gpusizer list gpus)" },
	{ "gpu-counts", 0, "C[:S[:TP]],...", 0, OPT_OVERRIDE, "GPU counts, each with a sharding and\n"
	  "tensor-parallel degree: 1,2:zero3,8:fsdp" },
	{ "methods", 0, "M,...", 0, OPT_OVERRIDE, "full lora qlora inference" },
	{ "precisions", 0, "P,...", 0, OPT_OVERRIDE, "for every method (combinations a method\n"
	  "rejects are skipped)" },
	{ "optimizers", 0, "O,...", 0, OPT_OVERRIDE, "optimizers" },
	{ "batches", 0, "N,...", 0, OPT_OVERRIDE, "micro-batches per GPU" },
	{ "seqs", 0, "N,...", 0, OPT_OVERRIDE, "contexts (tokens per sequence)" },
	{ "grad-ckpt", 0, "true,false", 0, OPT_OVERRIDE, "checkpointing on, off or both" },
	{ "lora-r", 0, "N,...", 0, OPT_OVERRIDE, "LoRA ranks" },
	{ "lora-targets", 0, "T,...", 0, OPT_OVERRIDE, "LoRA targets" },
	{ "attn", 0, "A,...", 0, OPT_OVERRIDE, "attention kernels" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

static const gs_opt_group report_groups[] = {
	{ "options", report_opts },
	{ "axis overrides (comma lists; they replace the spec's)", override_opts },
	{ "common", gs_opt_common },
	{ NULL, NULL },
};

const gs_opt_cmd gs_cmd_report = {
	"report",
	"gpusizer report [--spec FILE] [--out DIR] [--check] [OPTIONS] [AXIS OVERRIDES]",
	"Sweep the spec across GPU classes and write the sizing reports (Markdown, HTML,\n"
	"XLSX, JSON, CSV) into the output directory. Identical inputs give byte-identical\n"
	"files. Files are generated in a temporary directory beside it and renamed into\n"
	"place; a failure leaves the previous reports.",
	report_groups,
	"Environment: SOURCE_DATE_EPOCH fixes the XLSX creation date (else the spec's\n"
	"\"date\"). Exit status: 0 ok, 2 usage, 3 bad spec, config, GPU file, template\n"
	"or measurements store, 4 write failed (previous reports kept), 5 stale\n"
	"(--check), 6-9 model fetch, 10 offline and a model not cached.\n",
};

/* ---- temporary tree ---- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void rm_tree(const char *dir)
{
	if (dir != NULL && dir[0] != '\0')
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

typedef struct file_list {
	char **v;
	size_t n, cap;
} file_list;

static void fl_free(file_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof *l);
}

static void fl_add(file_list *l, const char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = gs_xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = gs_xstrdup(s);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static file_list *g_walk_list;
static size_t g_walk_root;

static int walk_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_F && strlen(path) > g_walk_root)
		fl_add(g_walk_list, path + g_walk_root + 1);
	return 0;
}

/* Files under dir (relative paths, sorted). */
static void list_files(const char *dir, file_list *l)
{
	g_walk_list = l;
	g_walk_root = strlen(dir);
	nftw(dir, walk_entry, 16, FTW_PHYS);
	if (l->n > 1)
		qsort(l->v, l->n, sizeof *l->v, cmp_str);
}

static bool same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	bool same = fa != NULL && fb != NULL;
	char ba[65536], bb[65536];

	while (same) {
		size_t na = fread(ba, 1, sizeof ba, fa), nb = fread(bb, 1, sizeof bb, fb);
		if (na != nb || memcmp(ba, bb, na) != 0)
			same = false;
		if (na == 0 || na < sizeof ba)
			break;
	}
	if (same && (ferror(fa) || ferror(fb)))
		same = false;
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/* Directory part of a relative path ("" for a top-level file). */
static size_t dir_len(const char *rel)
{
	const char *s = strrchr(rel, '/');

	return s ? (size_t)(s - rel) : 0;
}

/* An out/ file counts as ours (stale when not generated now) when it sits
 * in a subdirectory the writers fill now (models/, html/models/...) and
 * has an extension of a file generated there: never a model cache file
 * such as models/<org>--<name>/config.json, never a top-level file. */
static bool generated_dir(const file_list *gen, const char *rel)
{
	size_t dl = dir_len(rel);
	const char *ext = strrchr(rel + dl, '.');

	if (dl == 0 || ext == NULL)
		return false;
	for (size_t i = 0; i < gen->n; i++) {
		const char *g = gen->v[i], *gext;
		if (dir_len(g) != dl || strncmp(g, rel, dl) != 0)
			continue;
		gext = strrchr(g + dl, '.');
		if (gext != NULL && strcmp(gext, ext) == 0)
			return true;
	}
	return false;
}

static bool in_files(const file_list *l, const char *rel)
{
	return bsearch(&rel, l->v, l->n, sizeof *l->v, cmp_str) != NULL;
}

/* Files in out/ that look like ours (generated_dir) but were not produced now. */
static void extras(const char *out, const file_list *gen, file_list *extra)
{
	file_list have = { 0 };

	list_files(out, &have);
	for (size_t i = 0; i < have.n; i++)
		if (generated_dir(gen, have.v[i]) && !in_files(gen, have.v[i]) &&
		    strstr(have.v[i], ".tmp.") == NULL)
			fl_add(extra, have.v[i]);
	fl_free(&have);
}

static gs_err path_join(char *buf, size_t n, const char *a, const char *b, gs_error *e)
{
	if (snprintf(buf, n, "%s/%s", a, b) >= (int)n)
		return gs_fail(e, GS_EIO, "%s/%s: path too long", a, b);
	return GS_OK;
}

static gs_err parent_dirs(const char *path, gs_error *e)
{
	char dir[4096];
	char *slash;

	snprintf(dir, sizeof dir, "%s", path);
	slash = strrchr(dir, '/');
	if (slash == NULL || slash == dir)
		return GS_OK;
	*slash = '\0';
	return gs_mkdirs(dir, e);
}

/* Moves every generated file into out/ (each rename atomic), after checking
 * that nothing stands in the way; then removes out/ files under generated
 * directories that this run did not produce. */
static gs_err install(const char *tmp, const char *out, const file_list *gen, size_t *n_removed,
                      gs_error *e)
{
	char src[4096], dst[4096];
	file_list extra = { 0 };
	struct stat st;
	gs_err rc;

	if ((rc = gs_mkdirs(out, e)) != GS_OK)
		return rc;
	for (size_t i = 0; i < gen->n; i++) {
		if ((rc = path_join(dst, sizeof dst, out, gen->v[i], e)) != GS_OK)
			return rc;
		if (stat(dst, &st) == 0 && S_ISDIR(st.st_mode))
			return gs_fail(e, GS_EIO, "%s: is a directory; nothing was replaced", dst);
		if ((rc = parent_dirs(dst, e)) != GS_OK)
			return rc;
		if (access(dst, F_OK) == 0 && access(dst, W_OK) != 0 && errno == EROFS)
			return gs_fail(e, GS_EIO, "%s: read-only file system; nothing was replaced", dst);
	}
	for (size_t i = 0; i < gen->n; i++) {
		if ((rc = path_join(src, sizeof src, tmp, gen->v[i], e)) != GS_OK ||
		    (rc = path_join(dst, sizeof dst, out, gen->v[i], e)) != GS_OK)
			return rc;
		if (rename(src, dst) != 0)
			return gs_fail(e, GS_EIO, "%s: cannot move into place: %s (%zu of %zu files replaced)",
			               dst, strerror(errno), i, gen->n);
	}
	extras(out, gen, &extra);
	for (size_t i = 0; i < extra.n; i++)
		if (path_join(dst, sizeof dst, out, extra.v[i], e) == GS_OK && unlink(dst) == 0)
			(*n_removed)++;
	fl_free(&extra);
	return GS_OK;
}

/* ---- the run ---- */

typedef struct run {
	gs_spec sp;
	gs_gpu *all_gpus;
	size_t n_all_gpus;
	gs_gpu *gpus;
	size_t n_gpus;
	gs_model *models;
	gs_arch *archs;
	size_t n_models;
	gs_writer *w[8];
	int n_w;
	char tmp[4096];
	bool check, offline, quiet, verbose, json, progress, shown;
	const char *out;
	int64_t epoch;
	size_t rows, skipped;
	gs_measured_store measured; /* our verified runs, shown beside their rows */
} run;

static gs_err each_row(void *ctx, const gs_row *r, gs_error *e)
{
	run *R = ctx;
	gs_err rc;

	if (g_stop)
		return gs_fail(e, GS_EIO, "interrupted by signal %d; previous reports kept", (int)g_stop);
	for (int i = 0; i < R->n_w; i++)
		if ((rc = R->w[i]->row(R->w[i], r, e)) != GS_OK)
			return rc;
	R->rows++;
	return GS_OK;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Where model i was named: "spec.json:LINE: models[i]" or "--models". */
static void model_where(const run *R, size_t i, char *buf, size_t n)
{
	if (R->sp.models.line > 0)
		snprintf(buf, n, "%s:%d: models[%zu]", R->sp.path,
		         gs_spec_line(R->sp.text, "models", (int)i), i);
	else
		snprintf(buf, n, "--models");
}

static gs_err spec_model_error(const run *R, size_t i, gs_error *sub, gs_error *e)
{
	char where[512];
	gs_err code = sub->code;

	/* Offline and not cached is exit 10 here as in estimate and fetch. */
	if (code == GS_EUSAGE || code == GS_ENOTFOUND)
		code = GS_ESPEC;
	model_where(R, i, where, sizeof where);
	return gs_fail(e, code, "%s: \"%s\": %s", where, R->sp.models.v[i], sub->msg);
}

/* A model given as a config path (what gs_model_resolve takes as one). */
static bool is_path(const char *id)
{
	size_t n = strlen(id);
	struct stat st;

	return (n > 5 && strcmp(id + n - 5, ".json") == 0) || id[0] == '/' || id[0] == '.' ||
	       (strchr(id, '/') != NULL && stat(id, &st) == 0);
}

/* Slug of a config path: "dir/config.json" -> "dir", "x.config.json" -> "x". */
static void path_slug(const char *path, char *slug, size_t n)
{
	char buf[4096];
	char *base, *dot;
	size_t k = 0;

	snprintf(buf, sizeof buf, "%s", path);
	for (size_t len = strlen(buf); len > 1 && buf[len - 1] == '/'; len--)
		buf[len - 1] = '\0';
	base = strrchr(buf, '/');
	base = base ? base + 1 : buf;
	if (strcmp(base, "config.json") == 0 && base > buf) {
		base[-1] = '\0';
		base = strrchr(buf, '/');
		base = base ? base + 1 : buf;
	}
	if ((dot = strstr(base, ".config.json")) != NULL && dot[12] == '\0')
		*dot = '\0';
	else if ((dot = strrchr(base, '.')) != NULL && strcmp(dot, ".json") == 0)
		*dot = '\0';
	for (const char *p = base; *p && k + 1 < n; p++)
		slug[k++] = (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *p) != NULL)
		                    ? *p
		                    : '-';
	if (k == 0)
		slug[k++] = 'm';
	slug[k] = '\0';
}

static gs_err load_models(run *R, gs_error *e)
{
	R->n_models = R->sp.models.n;
	R->models = gs_xcalloc(R->n_models, sizeof *R->models);
	R->archs = gs_xcalloc(R->n_models, sizeof *R->archs);
	for (size_t i = 0; i < R->n_models; i++) {
		const char *id = R->sp.models.v[i];
		char cfg[4096], slug[256];
		gs_error sub = { 0 };
		gs_model_meta meta;
		gs_err rc;

		char where[512];

		model_where(R, i, where, sizeof where);
		for (size_t k = 0; k < i; k++)
			if (strcmp(R->sp.models.v[k], id) == 0)
				return gs_fail(e, GS_ESPEC, "%s: \"%s\" listed twice", where, id);
		rc = gs_model_ensure(R->sp.models_dir, id, R->offline, cfg, sizeof cfg, &sub);
		if (rc != GS_OK)
			return spec_model_error(R, i, &sub, e);
		if ((rc = gs_config_load(cfg, &R->archs[i], e)) != GS_OK)
			return rc;
		if (is_path(id) || gs_model_slug(id, slug, sizeof slug, &sub) != GS_OK)
			path_slug(id, slug, sizeof slug);
		for (size_t k = 0; k < i; k++)
			if (strcmp(R->models[k].slug, slug) == 0)
				return gs_fail(e, GS_ESPEC, "%s: \"%s\" and \"%s\" would share the report name \"%s\"",
				               where, R->models[k].id, id, slug);
		R->models[i].id = id;
		R->models[i].slug = gs_xstrdup(slug);
		R->models[i].arch = &R->archs[i];
		memset(&meta, 0, sizeof meta);
		sub.code = GS_OK;
		sub.msg[0] = '\0';
		if (gs_model_meta_load(R->sp.models_dir, id, &meta, &sub) == GS_OK && meta.param_source[0])
			R->models[i].param_source = gs_xstrdup(meta.param_source);
		else
			R->models[i].param_source = gs_xstrdup("config.json tally");
	}
	return GS_OK;
}

static gs_err load_gpus(run *R, gs_error *e)
{
	gs_err rc = gs_gpus_load(R->sp.gpus_dir, &R->all_gpus, &R->n_all_gpus, e);

	if (rc != GS_OK)
		return rc;
	R->gpus = gs_xcalloc(R->n_all_gpus, sizeof *R->gpus);
	if (R->sp.gpus.n == 0) {
		memcpy(R->gpus, R->all_gpus, R->n_all_gpus * sizeof *R->gpus);
		R->n_gpus = R->n_all_gpus;
		return GS_OK;
	}
	for (size_t i = 0; i < R->sp.gpus.n; i++) {
		const gs_gpu *g = gs_gpu_find(R->all_gpus, R->n_all_gpus, R->sp.gpus.v[i]);
		int line = R->sp.gpus.line ? gs_spec_line(R->sp.text, "gpus", (int)i) : 0;
		if (g == NULL) {
			if (line > 0)
				return gs_fail(e, GS_ESPEC, "%s:%d: gpus[%zu]: unknown GPU \"%s\" (no %s/%s.json)",
				               R->sp.path, line, i, R->sp.gpus.v[i], R->sp.gpus_dir,
				               R->sp.gpus.v[i]);
			return gs_fail(e, GS_EUSAGE, "--gpus: unknown GPU \"%s\" (no %s/%s.json)",
			               R->sp.gpus.v[i], R->sp.gpus_dir, R->sp.gpus.v[i]);
		}
		for (size_t k = 0; k < R->n_gpus; k++) {
			if (strcmp(R->gpus[k].id, g->id) != 0)
				continue;
			if (line > 0)
				return gs_fail(e, GS_ESPEC, "%s:%d: gpus[%zu]: \"%s\" listed twice", R->sp.path,
				               line, i, R->sp.gpus.v[i]);
			return gs_fail(e, GS_EUSAGE, "--gpus: \"%s\" listed twice", R->sp.gpus.v[i]);
		}
		R->gpus[R->n_gpus++] = *g;
	}
	/* Columns in capacity order, whatever the spec's order. */
	for (size_t i = 1; i < R->n_gpus; i++)
		for (size_t k = i; k > 0; k--) {
			gs_gpu *a = &R->gpus[k - 1], *b = &R->gpus[k];
			if (a->usable_bytes < b->usable_bytes ||
			    (a->usable_bytes == b->usable_bytes && strcmp(a->id, b->id) <= 0))
				break;
			gs_gpu t = *a;
			*a = *b;
			*b = t;
		}
	return GS_OK;
}

static gs_err make_writers(run *R, gs_error *e)
{
	static const char *const order[] = { "md", "html", "xlsx", "json", "csv" };
	gs_writer *(*ctor[])(void) = { gs_writer_md, gs_writer_html, gs_writer_xlsx, gs_writer_json,
		                       gs_writer_csv };

	(void)e;
	for (int k = 0; k < 5; k++) {
		bool want = false;
		for (size_t i = 0; i < R->sp.formats.n; i++)
			want = want || strcmp(R->sp.formats.v[i], order[k]) == 0;
		if (!want)
			continue;
		R->w[R->n_w++] = ctor[k]();
	}
	return GS_OK;
}

/* Removes temporary directories a killed run (SIGKILL, power loss) left
 * beside out/: ".<base>.tmp.<pid>.XXXXXX" whose process is gone. */
static void sweep_stale_tmp(const char *parent, const char *base)
{
	DIR *d = opendir(parent);
	struct dirent *de;
	char prefix[512];
	size_t pl;

	if (d == NULL)
		return;
	snprintf(prefix, sizeof prefix, ".%.*s.tmp.", (int)strcspn(base, "/"), base);
	pl = strlen(prefix);
	while ((de = readdir(d)) != NULL) {
		char *end;
		long pid;
		char path[4096];
		if (strncmp(de->d_name, prefix, pl) != 0)
			continue;
		pid = strtol(de->d_name + pl, &end, 10);
		if (pid <= 0 || *end != '.' || pid == (long)getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if (snprintf(path, sizeof path, "%s/%s", parent, de->d_name) < (int)sizeof path)
			rm_tree(path);
	}
	closedir(d);
}

static gs_err make_tmp(run *R, gs_error *e)
{
	char parent[4096];
	const char *base, *slash;
	gs_err rc;

	if (R->check) {
		const char *td = getenv("TMPDIR");
		if (td == NULL || td[0] == '\0')
			td = "/tmp";
		snprintf(R->tmp, sizeof R->tmp, "%s/gpusizer-check.XXXXXX", td);
	} else {
		slash = strrchr(R->out, '/');
		if (slash == NULL) {
			snprintf(parent, sizeof parent, ".");
			base = R->out;
		} else {
			size_t n = (size_t)(slash - R->out);
			snprintf(parent, sizeof parent, "%.*s", (int)(n ? n : 1), R->out);
			base = slash + 1;
		}
		if ((rc = gs_mkdirs(parent, e)) != GS_OK)
			return rc;
		sweep_stale_tmp(parent, base);
		if (snprintf(R->tmp, sizeof R->tmp, "%s/.%.*s.tmp.%ld.XXXXXX", parent,
		             (int)strcspn(base, "/"), base, (long)getpid()) >= (int)sizeof R->tmp)
			return gs_fail(e, GS_EIO, "%s: path too long", R->out);
	}
	if (mkdtemp(R->tmp) == NULL) {
		int err = errno;
		char msg[4096];
		snprintf(msg, sizeof msg, "%s", R->tmp);
		R->tmp[0] = '\0';
		return gs_fail(e, GS_EIO, "%s: cannot create the temporary directory: %s", msg,
		               strerror(err));
	}
	return GS_OK;
}

static void install_signals(run *R)
{
	struct sigaction sa;
	gs_atomic probe;
	gs_error ignore = { 0 };
	char path[4096];

	/* util.c installs its own handlers on the first atomic open; open one
	 * first so that ours, installed after, are the ones in force. */
	if (snprintf(path, sizeof path, "%s/.probe", R->tmp) < (int)sizeof path &&
	    gs_atomic_open(&probe, path, &ignore) == GS_OK)
		gs_atomic_abort(&probe);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static gs_err generate(run *R, gs_error *e)
{
	gs_report_meta meta;
	gs_settings base;
	size_t index = 0;
	double t0 = now_s();
	gs_err rc;

	if ((rc = gs_sweep_base(&R->sp, &base, e)) != GS_OK)
		return rc;
	memset(&meta, 0, sizeof meta);
	meta.spec_path = R->sp.path;
	meta.out_dir = R->tmp;
	meta.gpus = R->gpus;
	meta.n_gpus = R->n_gpus;
	meta.models = R->models;
	meta.n_models = R->n_models;
	meta.epoch = R->epoch;
	meta.tool_version = GS_VERSION;
	meta.assumptions = ASSUMPTIONS;
	meta.measured = &R->measured;
	for (int i = 0; i < R->n_w; i++)
		if ((rc = R->w[i]->begin(R->w[i], &meta, e)) != GS_OK)
			return rc;
	for (size_t m = 0; m < R->n_models; m++) {
		const gs_model *md = &R->models[m];
		for (int i = 0; i < R->n_w; i++)
			if ((rc = R->w[i]->model_begin(R->w[i], md, e)) != GS_OK)
				return rc;
		rc = gs_sweep_model(&R->sp, &base, md, &index, &R->skipped, each_row, R, e);
		if (rc != GS_OK)
			return rc;
		for (int i = 0; i < R->n_w; i++)
			if ((rc = R->w[i]->model_end(R->w[i], md, e)) != GS_OK)
				return rc;
		if (R->progress) {
			double el = now_s() - t0, left = el / (double)(m + 1) * (double)(R->n_models - m - 1);
			fprintf(stderr, "\rgpusizer: report: %zu/%zu models, %zu rows, about %.0f s left   ",
			        m + 1, R->n_models, R->rows, left);
			R->shown = true;
		}
		if (g_stop)
			return gs_fail(e, GS_EIO, "interrupted by signal %d; previous reports kept", (int)g_stop);
	}
	if (R->progress)
		fprintf(stderr, "\rgpusizer: report: %zu/%zu models, %zu rows; writing files...        ",
		        R->n_models, R->n_models, R->rows);
	for (int i = 0; i < R->n_w; i++)
		if ((rc = R->w[i]->end(R->w[i], e)) != GS_OK)
			return rc;
	if (R->progress) {
		fputc('\n', stderr);
		R->shown = false;
	}
	if (g_stop)
		return gs_fail(e, GS_EIO, "interrupted by signal %d; previous reports kept", (int)g_stop);
	return GS_OK;
}

/* One finding of --check: text "stale: PATH", or a JSON object. */
static void check_line(const run *R, const char *kind, const char *path, size_t *bad)
{
	if (R->json) {
		fputs(*bad ? ",\n {\"status\":" : "\n {\"status\":", stdout);
		gs_json_str(stdout, kind);
		fputs(",\"path\":", stdout);
		gs_json_str(stdout, path);
		fputc('}', stdout);
	} else {
		printf("%s: %s\n", kind, path);
	}
	(*bad)++;
}

static gs_err compare(run *R, const file_list *gen, gs_error *e)
{
	file_list extra = { 0 };
	size_t bad = 0;
	char a[4096], b[4096];
	struct stat st;

	if (R->json) {
		fputs("{\"command\":\"report\",\"check\":true,\"out\":", stdout);
		gs_json_str(stdout, R->out);
		fputs(",\"files\":[", stdout);
	}
	for (size_t i = 0; i < gen->n; i++) {
		if (path_join(a, sizeof a, R->tmp, gen->v[i], e) != GS_OK ||
		    path_join(b, sizeof b, R->out, gen->v[i], e) != GS_OK)
			return GS_EIO;
		if (stat(b, &st) != 0)
			check_line(R, "missing", b, &bad);
		else if (!same_file(a, b))
			check_line(R, "stale", b, &bad);
	}
	extras(R->out, gen, &extra);
	for (size_t i = 0; i < extra.n; i++) {
		if (path_join(b, sizeof b, R->out, extra.v[i], e) != GS_OK)
			return GS_EIO;
		check_line(R, "extra", b, &bad);
	}
	fl_free(&extra);
	if (R->json)
		printf("%s],\"generated\":%zu,\"not_current\":%zu,\"current\":%s}\n", bad ? "\n" : "",
		       gen->n, bad, bad ? "false" : "true");
	if (bad)
		return gs_fail(e, GS_ESTALE, "report --check: %zu of the files in %s are stale, missing or extra (run gpusizer report to regenerate)",
		               bad, R->out);
	if (!R->json)
		printf("%s: %zu files current\n", R->out, gen->n);
	return GS_OK;
}

static void run_free(run *R)
{
	for (int i = 0; i < R->n_w; i++)
		if (R->w[i] != NULL && R->w[i]->free != NULL)
			R->w[i]->free(R->w[i]);
	R->n_w = 0;
	if (R->tmp[0] != '\0')
		rm_tree(R->tmp);
	R->tmp[0] = '\0';
	for (size_t i = 0; i < R->n_models; i++) {
		free((char *)R->models[i].slug);
		free((char *)R->models[i].param_source);
	}
	free(R->models);
	free(R->archs);
	free(R->all_gpus);
	free(R->gpus);
	gs_measured_free(&R->measured);
	gs_spec_free(&R->sp);
}

int cmd_report(int argc, char **argv)
{
	static run R;
	static char out_buf[4096];
	gs_error e = { 0 };
	gs_err rc = GS_OK;
	const char *spec_path = "sizing.json", *out = NULL, *models_dir = NULL, *gpus_dir = NULL;
	const char *measurements = getenv("GPUSIZER_MEASUREMENTS");
	const char *format = NULL;
	const char *ov_name[32], *ov_val[32];
	int n_ov = 0, k;
	file_list gen = { 0 };
	const char *sde, *val;
	sigset_t block, old_mask;
	gs_opt_iter it;
	const gs_opt *o;

	memset(&R, 0, sizeof R);
	R.offline = gs_offline(false);
	gs_opt_begin(&it, argc, argv);
	while ((k = gs_opt_next(&gs_cmd_report, &it, &o, &val, &e)) > 0) {
		if (k == 2) {
			gs_fail(&e, GS_EUSAGE, "report: unexpected argument '%s' (models go in the spec or "
			        "--models; try 'gpusizer report --help')", val);
			return gs_cmd_usage_error(&e);
		}
		switch (o->id) {
		case GS_OPT_HELP:
			gs_opt_usage(&gs_cmd_report, stdout);
			return 0;
		case GS_OPT_QUIET: R.quiet = true; R.verbose = false; break;
		case GS_OPT_VERBOSE: R.verbose = true; R.quiet = false; break;
		case GS_OPT_JSON: R.json = true; break;
		case OPT_CHECK: R.check = true; break;
		case OPT_OFFLINE: R.offline = true; break;
		case OPT_SPEC: spec_path = val; break;
		case OPT_OUT: out = val; break;
		case OPT_MODELS_DIR: models_dir = val; break;
		case OPT_GPUS_DIR: gpus_dir = val; break;
		case OPT_MEASUREMENTS: measurements = val; break;
		case OPT_FORMAT: format = val; break;
		case OPT_OVERRIDE:
			if (n_ov >= 32) {
				gs_fail(&e, GS_EUSAGE, "report: more than 32 axis overrides");
				return gs_cmd_usage_error(&e);
			}
			/* The spec's name for the GPU classes axis is "gpus". */
			ov_name[n_ov] = strcmp(o->name, "gpu") == 0 ? "gpus" : o->name;
			ov_val[n_ov++] = val;
			break;
		}
	}
	if (k < 0)
		return gs_cmd_usage_error(&e);

	if ((rc = gs_spec_load(spec_path, &R.sp, &e)) != GS_OK)
		goto out;
	for (int i = 0; i < n_ov; i++)
		if ((rc = gs_spec_override(&R.sp, ov_name[i], ov_val[i], &e)) != GS_OK)
			goto out;
	if (format != NULL && (rc = gs_spec_override(&R.sp, "formats", format, &e)) != GS_OK)
		goto out;
	if (models_dir != NULL) {
		free(R.sp.models_dir);
		R.sp.models_dir = gs_xstrdup(models_dir);
	}
	if (gpus_dir != NULL) {
		free(R.sp.gpus_dir);
		R.sp.gpus_dir = gs_xstrdup(gpus_dir);
	}
	snprintf(out_buf, sizeof out_buf, "%s", out ? out : R.sp.out);
	for (size_t n = strlen(out_buf); n > 1 && out_buf[n - 1] == '/'; n--)
		out_buf[n - 1] = '\0';
	R.out = out_buf;
	R.epoch = R.sp.epoch;
	sde = getenv("SOURCE_DATE_EPOCH");
	if (sde != NULL && sde[0] != '\0') {
		char *end;
		long long v;
		errno = 0;
		v = strtoll(sde, &end, 10);
		if (errno || *end != '\0' || v < 315532800LL || v > 4102444799LL) {
			rc = gs_fail(&e, GS_EUSAGE, "SOURCE_DATE_EPOCH=\"%s\": expected seconds since 1970 (1980-2099)",
			             sde);
			goto out;
		}
		R.epoch = v;
	}
	if (measurements != NULL && measurements[0] == '\0')
		measurements = NULL;
	if ((rc = load_gpus(&R, &e)) != GS_OK || (rc = load_models(&R, &e)) != GS_OK ||
	    (rc = gs_measured_load(measurements, &R.measured, &e)) != GS_OK ||
	    (rc = make_writers(&R, &e)) != GS_OK)
		goto out;
	if (R.n_w == 0) {
		rc = gs_fail(&e, GS_EUSAGE, "report: no output format available");
		goto out;
	}
	R.progress = !R.quiet && isatty(2);
	if (R.verbose)
		fprintf(stderr, "gpusizer: report: spec %s; models %s; GPU classes %s; output %s%s\n",
		        R.sp.path, R.sp.models_dir, R.sp.gpus_dir, R.out, R.check ? " (--check)" : "");
	/* Signals wait while the temporary directory appears and our handlers
	 * go in, so that a stop at any moment removes it. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old_mask);
	rc = make_tmp(&R, &e);
	if (rc == GS_OK)
		install_signals(&R);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	if (rc != GS_OK)
		goto out;
	if ((rc = generate(&R, &e)) != GS_OK)
		goto out;
	for (int i = 0; i < R.n_w; i++)
		R.w[i]->free(R.w[i]);
	R.n_w = 0;
	list_files(R.tmp, &gen);
	if (R.check) {
		rc = compare(&R, &gen, &e);
	} else {
		size_t removed = 0;
		rc = install(R.tmp, R.out, &gen, &removed, &e);
		if (rc == GS_OK && R.verbose)
			for (size_t i = 0; i < gen.n; i++)
				fprintf(stderr, "gpusizer: report: wrote %s/%s\n", R.out, gen.v[i]);
		if (rc == GS_OK && R.json) {
			fputs("{\"command\":\"report\",\"check\":false,\"out\":", stdout);
			gs_json_str(stdout, R.out);
			printf(",\"files\":%zu,\"models\":%zu,\"rows\":%zu,\"gpu_classes\":%zu,"
			       "\"skipped\":%zu,\"removed\":%zu}\n", gen.n, R.n_models, R.rows, R.n_gpus,
			       R.skipped, removed);
		} else if (rc == GS_OK) {
			printf("%s: %zu files (%zu models, %zu rows x %zu GPU classes",
			       R.out, gen.n, R.n_models, R.rows, R.n_gpus);
			if (R.skipped)
				printf("; %zu combinations skipped", R.skipped);
			if (removed)
				printf("; %zu old files removed", removed);
			printf(")\n");
		}
	}
out:
	fl_free(&gen);
	run_free(&R);
	if (g_stop) {
		int sig = (int)g_stop;
		signal(sig, SIG_DFL);
		raise(sig);
	}
	if (rc != GS_OK) {
		if (R.shown)
			fputc('\n', stderr); /* end the progress line */
		gs_report_error(&e);
		return gs_exit_code(rc);
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		return gs_exit_code(GS_EIO);
	return 0;
}
