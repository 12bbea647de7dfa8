/* gpusizer: `gpusizer report`: reads the sweep spec, resolves models and GPU
 * classes, streams every row to the output writers into the staging
 * directory of an output-directory transaction (outdir.h), then commits it
 * (or, with --check, compares it with out/). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "numfmt.h"
#include "config.h"
#include "err.h"
#include "gpu_file.h"
#include "models.h"
#include "outdir.h"
#include "plan_view.h"
#include "report.h"
#include "timing.h"
#include "resolve.h"
#include "spec.h"
#include "sweep.h"
#include "template.h"
#include "util.h"
#include "jw.h"
#include "paths.h"

enum {
	OPT_SPEC = GS_OPT_OWN, OPT_OUT, OPT_PUBLISH_DIR, OPT_CHECK, OPT_FORMAT, OPT_MODELS_DIR, OPT_GPUS_DIR,
	OPT_OFFLINE, OPT_MEASUREMENTS, OPT_OVERRIDE, OPT_MAX_ROWS, OPT_FORCE,
};

static const gs_opt report_opts[] = {
	{ "spec", 0, "FILE", 0, OPT_SPEC, "the sweep spec (docs/spec.md); paths inside it are\n"
	  "relative to its directory. Default: ./sizing.json, else\n"
	  "the default spec installed with gpusizer (the committed\n"
	  "sizing.json), its out/ and publish/ in the current\n"
	  "directory and its models in the model cache" },
	{ "out", 0, "DIR", 0, OPT_OUT, "output directory for every format (default: the\n"
	  "spec's \"out\" for the formats of its \"commit\", its\n"
	  "\"publish_dir\" for the others)" },
	{ "publish-dir", 0, "DIR", 0, OPT_PUBLISH_DIR, "where the formats the spec does not \"commit\" go\n"
	  "(default: --out, else the spec's \"publish_dir\")" },
	{ "check", 0, NULL, 0, OPT_CHECK, "regenerate what goes into the output directory in a\n"
	  "staging directory in $TMPDIR and compare: exit 0 when\n"
	  "current, 5 and the stale files when not (the formats\n"
	  "built for publishing are not built)" },
	{ "force", 0, NULL, 0, OPT_FORCE, "replace a file at an output's path that gpusizer did\n"
	  "not write, or that was changed since (without it: exit 4\n"
	  "naming the file, nothing changed)" },
	{ "format", 0, "LIST", 0, OPT_FORMAT, NULL /* the registry's names: report_opts_make */ },
	{ "models-dir", 0, "DIR", 0, OPT_MODELS_DIR, "model cache (default: the spec's, else the default cache)" },
	{ "gpus-dir", 0, "DIR", 0, OPT_GPUS_DIR, "GPU class files (default: the spec's, else the installed gpus/)" },
	{ "offline", 0, NULL, 0, OPT_OFFLINE, "never fetch a model (also HF_HUB_OFFLINE=1,\n"
	  "GPUSIZER_OFFLINE=1); not cached: exit 10" },
	{ "measurements", 0, "FILE", 0, OPT_MEASUREMENTS, "gpusizer verify's store, shown beside the rows it\n"
	  "measured (default $GPUSIZER_MEASUREMENTS, else\n"
	  "measurements/verified.jsonl; a missing file is empty)" },
	{ "max-rows", 0, "N", 0, OPT_MAX_ROWS, "refuse a sweep of more than N rows (models x every\n"
	  "axis, counted before anything is fetched or written;\n"
	  "default 1000000)" },
	{ "json", 0, NULL, 0, GS_OPT_JSON, "the outcome as JSON on stdout (with --check: every\n"
	  "stale, missing or extra file)" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

/* Axis overrides: the models and the GPU classes, then the settings
 * table's axes in sweep order (gs_axis.option; override_opts_make). The
 * option's name is gs_spec_override's key ("gpu": "gpus"). */
static const gs_opt own_overrides[] = {
	{ "models", 0, "ID,...", 0, OPT_OVERRIDE, "model ids or config paths" },
	{ "gpu", 0, "ID,...", 0, OPT_OVERRIDE, "GPU classes (ids as in gpusizer list gpus)" },
};

static const gs_opt *override_opts_make(void)
{
	static gs_opt opts[sizeof own_overrides / sizeof own_overrides[0] + GS_AXES_MAX + 1];
	const gs_setting *d;
	size_t n = 0;

	if (opts[0].name != NULL)
		return opts;
	for (; n < sizeof own_overrides / sizeof own_overrides[0]; n++)
		opts[n] = own_overrides[n];
	for (size_t k = 0; (d = gs_settings_axis(k)) != NULL && k < GS_AXES_MAX; k++)
		opts[n++] = (gs_opt){ d->axis.option, 0, d->axis.arg, 0, OPT_OVERRIDE, d->axis.help };
	return opts;
}

/* report_opts with --format's help naming the registry's formats. */
static const gs_opt *report_opts_make(void)
{
	static gs_opt opts[sizeof report_opts / sizeof report_opts[0]];
	static char help[320];

	if (opts[0].name != NULL)
		return opts;
	memcpy(opts, report_opts, sizeof opts);
	snprintf(help, sizeof help, "comma list of formats (default: the spec's):\n");
	gs_writer_names(help + strlen(help), sizeof help - strlen(help));
	for (size_t i = 0; opts[i].name != NULL; i++)
		if (opts[i].id == OPT_FORMAT)
			opts[i].help = help;
	return opts;
}

static const gs_opt_group report_groups[] = {
	{ "options", NULL, report_opts_make },
	{ "axis overrides (comma lists; they replace the spec's)", NULL, override_opts_make },
	{ "common", gs_opt_common, NULL },
	{ NULL, NULL, NULL },
};

const gs_opt_cmd gs_cmd_report = {
	"report",
	"gpusizer report [--spec FILE] [--out DIR] [--check] [OPTIONS] [AXIS OVERRIDES]",
	"Sweep the spec across GPU classes and write the sizing reports (Markdown, HTML,\n"
	"XLSX, JSON, CSV) into the output directory. Identical inputs give byte-identical\n"
	"files. Files are generated in DIR/.gpusizer and installed as one transaction, one\n"
	"run at a time (a lock on DIR): a failure or a kill leaves the previous reports.\n"
	"DIR/.gpusizer-manifest lists the files written with their SHA-256; a later run\n"
	"replaces or removes only files whose bytes are still those. DIR may not be the\n"
	"current directory or the spec's, nor gpus/, models/ or templates/.\n"
	"A spec with \"commit\" splits the formats: those it lists go into \"out\" (the\n"
	"directory a repository commits), the others into \"publish_dir\" (published\n"
	"beside it), each directory its own transaction.",
	report_groups,
	"Environment: SOURCE_DATE_EPOCH fixes the XLSX creation date (else the spec's\n"
	"\"date\"). Exit status: 0 ok, 2 usage, 3 bad spec, config, GPU file, template\n"
	"or measurements store, a sweep of no rows or over --max-rows, 4 write failed\n"
	"(previous reports kept), a file in the way (not written by gpusizer; --force)\n"
	"or stdout failed, 5 stale (--check), 6-9 model fetch,\n"
	"10 offline and a model not cached, 15 another run held DIR past\n"
	"GPUSIZER_LOCK_WAIT seconds, 16 a local file or directory missing (the spec,\n"
	"a config path, the GPU directory).\n",
};

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
	bool w_pub[8];              /* writer i writes into pd (built for publishing) */
	int n_w;
	char *assumptions;          /* gs_report_assumptions */
	gs_outdir od;               /* the writers write into od.tmp ... */
	gs_outdir pd;               /* ... or, with split, those w_pub marks into pd.tmp */
	bool check, force, offline, quiet, verbose, json, progress, shown;
	bool split;                 /* the spec's "commit" sends some formats to pub, not out */
	bool to_out, to_pub;        /* some writer writes into od, into pd */
	const char *out, *pub;
	bool out_given, pub_given;  /* --out, --publish-dir: not the spec's */
	uint64_t max_rows;          /* --max-rows */
	int64_t epoch;
	size_t rows, skipped;
	gs_measured_store measured; /* our verified runs, shown beside their rows */
	size_t *plan_classes;       /* the plan view's classes: indexes into gpus */
	gs_plan_opts plan;
	gs_time_opts time;          /* the spec's "time", for the writers */
	gs_eval *ev;                /* every row evaluated once, for every writer */
} run;

/* A signal came (outdir.h): stop, keeping the previous reports. */
static gs_err interrupted(gs_error *e)
{
	int sig = gs_outdir_stopped();

	if (sig == 0)
		return GS_OK;
	return gs_fail(e, GS_EIO, "interrupted by signal %d; previous reports kept", sig);
}

static gs_err each_row(void *ctx, gs_row *r, gs_error *e)
{
	run *R = ctx;
	gs_err rc;

	if ((rc = interrupted(e)) != GS_OK)
		return rc;
	gs_row_eval(R->ev, r);
	for (int i = 0; i < R->n_w; i++)
		if ((rc = R->w[i]->row(R->w[i], r, e)) != GS_OK)
			return rc;
	R->rows++;
	return GS_OK;
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
		R->models[i].methods = R->sp.model_methods ? R->sp.model_methods[i] : 0;
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
			const char *id = R->sp.gpus.v[i];
			char near[256];
			gs_gpus_suggest(R->all_gpus, R->n_all_gpus, id, strlen(id), near, sizeof near);
			if (line > 0)
				return gs_fail(e, GS_ESPEC, "%s:%d: gpus[%zu]: unknown GPU \"%s\"%s (no %s/%s.json)",
				               R->sp.path, line, i, id, near, R->sp.gpus_dir, id);
			return gs_fail(e, GS_EUSAGE, "--gpu: unknown GPU \"%s\"%s (no %s/%s.json)", id, near,
			               R->sp.gpus_dir, id);
		}
		for (size_t k = 0; k < R->n_gpus; k++) {
			if (strcmp(R->gpus[k].id, g->id) != 0)
				continue;
			if (line > 0)
				return gs_fail(e, GS_ESPEC, "%s:%d: gpus[%zu]: \"%s\" listed twice", R->sp.path,
				               line, i, R->sp.gpus.v[i]);
			return gs_fail(e, GS_EUSAGE, "--gpu: \"%s\" listed twice", R->sp.gpus.v[i]);
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

/* The spec's "plan" over the report's classes: an id that names no GPU
 * file is an error; one the --gpu override left out is left out of the
 * view too (all of them: the view shows every class of the report). */
static gs_err plan_classes(run *R, gs_error *e)
{
	R->plan_classes = gs_xcalloc(R->sp.plan_gpus.n ? R->sp.plan_gpus.n : 1, sizeof *R->plan_classes);
	for (size_t i = 0; i < R->sp.plan_gpus.n; i++) {
		const char *id = R->sp.plan_gpus.v[i];
		const gs_gpu *g = gs_gpu_find(R->all_gpus, R->n_all_gpus, id);
		size_t k;

		if (g == NULL) {
			char near[256];
			return gs_fail(e, GS_ESPEC, "%s:%d: plan.gpus[%zu]: unknown GPU \"%s\"%s (no %s/%s.json)",
			               R->sp.path, gs_spec_line(R->sp.text, "plan.gpus", (int)i), i, id,
			               gs_gpus_suggest(R->all_gpus, R->n_all_gpus, id, strlen(id), near, sizeof near),
			               R->sp.gpus_dir, id);
		}
		for (k = 0; k < R->n_gpus && strcmp(R->gpus[k].id, g->id) != 0; k++)
			;
		if (k == R->n_gpus)
			continue;
		if (R->sp.eligible != 0 && (g->segment == GS_SEG_NONE || !(R->sp.eligible & (1u << g->segment))))
			return gs_fail(e, GS_ESPEC, "%s:%d: plan.gpus[%zu]: \"%s\" (segment: %s) is not in the spec's \"eligible\"",
			               R->sp.path, gs_spec_line(R->sp.text, "plan.gpus", (int)i), i, id,
			               g->segment == GS_SEG_NONE ? "none in its file" : gs_segment_name(g->segment));
		for (size_t j = 0; j < R->plan.n_classes; j++)
			if (R->plan_classes[j] == k)
				return gs_fail(e, GS_ESPEC, "%s:%d: plan.gpus[%zu]: \"%s\" listed twice",
				               R->sp.path, gs_spec_line(R->sp.text, "plan.gpus", (int)i), i, id);
		R->plan_classes[R->plan.n_classes++] = k;
	}
	R->plan.classes = R->plan_classes;
	R->plan.rank = (gs_plan_rank)R->sp.plan_rank;
	R->plan.max_gpus = R->sp.plan_max_gpus;
	R->plan.segments = R->sp.eligible;
	return GS_OK;
}

/* The writers of the spec's formats, each marked for out or (split) for
 * pub; --check makes only those of out. */
static gs_err make_writers(run *R, gs_error *e)
{
	size_t n;
	const gs_writer_ops *ops = gs_writer_registry(&n);

	for (size_t k = 0; k < n; k++) {
		bool want = false, pub = R->split && !gs_spec_committed(&R->sp, ops[k].name);
		for (size_t i = 0; i < R->sp.formats.n; i++)
			want = want || strcmp(R->sp.formats.v[i], ops[k].name) == 0;
		if (!want || (pub && R->check))
			continue;
		if (R->n_w == (int)(sizeof R->w / sizeof R->w[0]))
			return gs_fail(e, GS_EINTERNAL, "report: more formats than writers (%zu)", n);
		R->w_pub[R->n_w] = pub;
		R->w[R->n_w++] = ops[k].make();
	}
	for (int i = 0; i < R->n_w; i++) {
		R->to_pub = R->to_pub || R->w_pub[i];
		R->to_out = R->to_out || !R->w_pub[i];
	}
	if (R->n_w == 0 && R->check && R->split)
		return gs_fail(e, GS_EUSAGE, "report --check: none of the formats asked for is one the "
		               "spec commits into %s (its \"commit\"); --check compares only what %s holds",
		               R->out, R->out);
	return GS_OK;
}

static gs_err generate(run *R, gs_error *e)
{
	gs_report_meta meta, meta_pub;
	gs_settings base;
	size_t index = 0;
	double t0 = gs_mono_s();
	gs_err rc;

	if ((rc = gs_sweep_base(&R->sp, &base, e)) != GS_OK)
		return rc;
	memset(&meta, 0, sizeof meta);
	/* the default spec is the committed sizing.json wherever it lies: its
	 * reports say so, the same bytes from any directory */
	meta.spec_path = R->sp.tool_default ? GS_DEFAULT_SPEC : R->sp.path;
	meta.out_dir = R->od.tmp;
	meta.gpus = R->gpus;
	meta.n_gpus = R->n_gpus;
	meta.models = R->models;
	meta.n_models = R->n_models;
	meta.epoch = R->epoch;
	meta.tool_version = GS_VERSION;
	meta.assumptions = R->assumptions;
	meta.measured = &R->measured;
	meta.plan = &R->plan;
	gs_time_opts_default(&R->time);
	R->time.runtime = (gs_runtime)R->sp.time_runtime;
	R->time.train_runtime = (gs_train_runtime)R->sp.time_train_runtime;
	R->time.runtime_given = R->sp.time_runtime_given;
	R->time.train_runtime_given = R->sp.time_train_runtime_given;
	R->time.tokens_budget = R->sp.time_tokens;
	meta.time = &R->time;
	R->ev = gs_eval_new(&meta);
	/* The writers keep their meta until end: both live to the end of this call. */
	meta_pub = meta;
	meta_pub.out_dir = R->pd.tmp;
	for (int i = 0; i < R->n_w; i++)
		if ((rc = R->w[i]->begin(R->w[i], R->w_pub[i] ? &meta_pub : &meta, e)) != GS_OK)
			return rc;
	for (size_t m = 0; m < R->n_models; m++) {
		gs_model *md = &R->models[m];
		gs_eval_model_begin(R->ev, md);
		for (int i = 0; i < R->n_w; i++)
			if ((rc = R->w[i]->model_begin(R->w[i], md, e)) != GS_OK)
				return rc;
		rc = gs_sweep_model(&R->sp, &base, md, &index, &R->skipped, each_row, R, e);
		if (rc != GS_OK)
			return rc;
		gs_eval_model_end(R->ev);
		for (int i = 0; i < R->n_w; i++)
			if ((rc = R->w[i]->model_end(R->w[i], md, e)) != GS_OK)
				return rc;
		if (R->progress) {
			double el = gs_mono_s() - t0, left = el / (double)(m + 1) * (double)(R->n_models - m - 1);
			fprintf(stderr, "\rgpusizer: report: %zu/%zu models, %zu rows, about %.0f s left   ",
			        m + 1, R->n_models, R->rows, left);
			R->shown = true;
		}
		if ((rc = interrupted(e)) != GS_OK)
			return rc;
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
	return interrupted(e);
}

/* The findings of --check so far. */
typedef struct check_state {
	const run *R;
	size_t n;
} check_state;

/* One finding of --check: text "stale: PATH", or a JSON object. */
static void check_line(void *ud, const char *kind, const char *path)
{
	check_state *cs = ud;

	if (cs->R->json) {
		fputs(cs->n ? ",\n {\"status\":" : "\n {\"status\":", stdout);
		gs_json_str(stdout, kind);
		fputs(",\"path\":", stdout);
		gs_json_str(stdout, path);
		fputc('}', stdout);
	} else {
		printf("%s: %s\n", kind, path);
	}
	cs->n++;
}

/* --check: compare the staged files with out/ and say which are not current. */
static gs_err compare(run *R, gs_error *e)
{
	check_state cs = { R, 0 };
	size_t bad = 0;
	gs_err rc;

	if (R->json) {
		fputs("{\"command\":\"report\",\"check\":true,\"out\":", stdout);
		gs_json_str(stdout, R->out);
		fputs(",\"files\":[", stdout);
	}
	if ((rc = gs_outdir_compare(&R->od, check_line, &cs, &bad, e)) != GS_OK)
		return rc;
	if (R->json)
		printf("%s],\"generated\":%zu,\"not_current\":%zu,\"current\":%s}\n", bad ? "\n" : "",
		       R->od.n_files + 1, bad, bad ? "false" : "true");
	if (bad)
		return gs_fail(e, GS_ESTALE, "report --check: %zu of the files in %s are stale, missing or extra (run gpusizer report to regenerate)",
		               bad, R->out);
	if (!R->json)
		printf("%s: %zu files current\n", R->out, R->od.n_files + 1);
	return GS_OK;
}

/* Install one directory's staged files; with --verbose, name them. */
static gs_err install(const run *R, gs_outdir *od, const char *dir, gs_error *e)
{
	gs_err rc = gs_outdir_commit(od, e);

	if (rc == GS_OK && R->verbose)
		for (size_t i = 0; i <= od->n_files; i++)
			fprintf(stderr, "gpusizer: report: wrote %s/%s\n", dir,
			        i < od->n_files ? od->files[i] : GS_OUTDIR_MANIFEST);
	return rc;
}

/* Move the staged files into out/ (then, split, into the publish
 * directory) and say what was written. */
static gs_err commit(run *R, gs_error *e)
{
	const gs_outdir *od = &R->od, *pd = &R->pd;
	bool to_out = R->to_out, to_pub = R->to_pub;
	gs_err rc;

	if (to_out && (rc = install(R, &R->od, R->out, e)) != GS_OK)
		return rc;
	if (to_pub && (rc = install(R, &R->pd, R->pub, e)) != GS_OK) {
		/* out/ is installed: say so beside the publish directory's failure. */
		if (to_out) {
			char msg[sizeof e->msg];
			int k = snprintf(msg, sizeof msg, "%.200s was written; ", R->out);
			snprintf(msg + k, sizeof msg - (size_t)k, "%.*s", (int)(sizeof msg - (size_t)k - 1), e->msg);
			snprintf(e->msg, sizeof e->msg, "%s", msg);
		}
		return rc;
	}
	if (R->json) {
		fputs("{\"command\":\"report\",\"check\":false,\"out\":", stdout);
		gs_json_str(stdout, to_out ? R->out : R->pub);
		printf(",\"files\":%zu,\"models\":%zu,\"rows\":%zu,\"gpu_classes\":%zu,"
		       "\"skipped\":%zu,\"removed\":%zu,\"kept\":%zu", to_out ? od->n_files + 1 : pd->n_files + 1,
		       R->n_models, R->rows, R->n_gpus, R->skipped, to_out ? od->removed : pd->removed,
		       to_out ? od->kept : pd->kept);
		if (to_out && to_pub) {
			fputs(",\"publish_dir\":", stdout);
			gs_json_str(stdout, R->pub);
			printf(",\"publish_files\":%zu,\"publish_removed\":%zu,\"publish_kept\":%zu", pd->n_files + 1,
			       pd->removed, pd->kept);
		}
		fputs("}\n", stdout);
		return GS_OK;
	}
	printf("%s: %zu files (%zu models, %zu rows x %zu GPU classes", to_out ? R->out : R->pub,
	       to_out ? od->n_files + 1 : pd->n_files + 1, R->n_models, R->rows, R->n_gpus);
	if (R->skipped)
		printf("; %zu combinations skipped", R->skipped);
	if (to_out ? od->removed : pd->removed)
		printf("; %zu old files removed", to_out ? od->removed : pd->removed);
	if (to_out ? od->kept : pd->kept)
		printf("; %zu old files kept: changed since gpusizer wrote them", to_out ? od->kept : pd->kept);
	printf(")\n");
	if (to_out && to_pub) {
		printf("%s: %zu files built for publishing (not committed)", R->pub, pd->n_files + 1);
		if (pd->removed)
			printf("; %zu old files removed", pd->removed);
		printf("\n");
	}
	return GS_OK;
}

static void run_free(run *R)
{
	for (int i = 0; i < R->n_w; i++)
		if (R->w[i] != NULL && R->w[i]->free != NULL)
			R->w[i]->free(R->w[i]);
	R->n_w = 0;
	gs_outdir_abort(&R->pd);
	gs_outdir_abort(&R->od);
	free(R->assumptions);
	R->assumptions = NULL;
	gs_eval_free(R->ev);
	R->ev = NULL;
	free(R->plan_classes);
	R->plan_classes = NULL;
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

/* What the command line asks for besides R's flags (strings borrowed from argv). */
typedef struct args {
	const char *spec_path, *out, *publish_dir, *models_dir, *gpus_dir, *measurements, *format;
	const char *ov_name[32], *ov_val[32]; /* axis overrides, in order */
	int n_ov;
} args;

/* The options into R's flags and a. Returns 1 to go on, 0 when done
 * (--help printed), -1 on a usage error (in e). */
static int parse_args(run *R, args *a, int argc, char **argv, gs_error *e)
{
	gs_opt_iter it;
	const gs_opt *o;
	const char *val;
	int k;

	memset(a, 0, sizeof *a);
	a->measurements = getenv("GPUSIZER_MEASUREMENTS");
	R->offline = gs_offline(false);
	R->max_rows = GS_SWEEP_MAX_ROWS_DEFAULT;
	gs_opt_begin(&it, argc, argv);
	while ((k = gs_opt_next(&gs_cmd_report, &it, &o, &val, e)) > 0) {
		if (k == 2) {
			gs_fail(e, GS_EUSAGE, "report: unexpected argument '%s' (models go in the spec or "
			        "--models; try 'gpusizer report --help')", val);
			return -1;
		}
		switch (o->id) {
		case GS_OPT_HELP:
			gs_opt_usage(&gs_cmd_report, stdout);
			return 0;
		case GS_OPT_QUIET: R->quiet = true; R->verbose = false; break;
		case GS_OPT_VERBOSE: R->verbose = true; R->quiet = false; break;
		case GS_OPT_JSON: R->json = true; break;
		case OPT_CHECK: R->check = true; break;
		case OPT_FORCE: R->force = true; break;
		case OPT_OFFLINE: R->offline = true; break;
		case OPT_SPEC: a->spec_path = val; break;
		case OPT_OUT: a->out = val; break;
		case OPT_PUBLISH_DIR: a->publish_dir = val; break;
		case OPT_MODELS_DIR: a->models_dir = val; break;
		case OPT_GPUS_DIR: a->gpus_dir = val; break;
		case OPT_MEASUREMENTS: a->measurements = val; break;
		case OPT_FORMAT: a->format = val; break;
		case OPT_MAX_ROWS: {
			int64_t x = 0;
			if (!gs_parse_i64(val, SIZE_MAX, &x) || x < 1) {
				gs_fail(e, GS_EUSAGE, "--max-rows: \"%s\": expected a whole number of rows, 1 or more",
				        val);
				return -1;
			}
			R->max_rows = (uint64_t)x;
			break;
		}
		case OPT_OVERRIDE:
			if (a->n_ov >= 32) {
				gs_fail(e, GS_EUSAGE, "report: more than 32 axis overrides");
				return -1;
			}
			/* The spec's name for the GPU classes axis is "gpus". */
			a->ov_name[a->n_ov] = strcmp(o->name, "gpu") == 0 ? "gpus" : o->name;
			a->ov_val[a->n_ov++] = val;
			break;
		}
	}
	if (a->measurements != NULL && a->measurements[0] == '\0')
		a->measurements = NULL;
	return k < 0 ? -1 : 1;
}

/* SOURCE_DATE_EPOCH, when set, for the XLSX creation date (else the spec's). */
static gs_err source_date(run *R, gs_error *e)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	char *end;
	long long v;

	R->epoch = R->sp.epoch;
	if (sde == NULL || sde[0] == '\0')
		return GS_OK;
	errno = 0;
	v = strtoll(sde, &end, 10);
	if (errno || *end != '\0' || v < 315532800LL || v > 4102444799LL)
		return gs_fail(e, GS_EUSAGE, "SOURCE_DATE_EPOCH=\"%s\": expected seconds since 1970 (1980-2099)",
		               sde);
	R->epoch = v;
	return GS_OK;
}

/* path made absolute with its links resolved as far as it exists (the
 * rest appended as written) into buf[n]; false when even that fails. */
static bool resolve_lax(const char *path, char *buf, size_t n)
{
	char *real = realpath(path, NULL), parent[4096];
	const char *slash;
	bool ok;

	if (real != NULL) {
		ok = snprintf(buf, n, "%s", real) < (int)n;
		free(real);
		return ok;
	}
	if (errno != ENOENT || path[0] == '\0')
		return false;
	slash = strrchr(path, '/');
	if (slash == NULL)
		snprintf(parent, sizeof parent, ".");
	else if (slash == path)
		snprintf(parent, sizeof parent, "/");
	else if ((size_t)(slash - path) >= sizeof parent)
		return false;
	else
		snprintf(parent, sizeof parent, "%.*s", (int)(slash - path), path);
	if (!resolve_lax(parent, buf, n))
		return false;
	return snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", strcmp(buf, "/") == 0 ? "" : "/",
	                slash ? slash + 1 : path) < (int)(n - strlen(buf));
}

/* Whether the resolved path a is b or a directory above it. */
static bool holds(const char *a, const char *b)
{
	size_t n = strlen(a);

	return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/' || strcmp(a, "/") == 0);
}

/* An output directory (out, or the publish directory) may not be the
 * current directory, the spec's directory or one above it, nor gpus/,
 * models/ or templates/, one above them or one inside them: a report there
 * would mix its files with the inputs (sizing.json, the GPU files, the
 * model cache, the templates). dir is named by option opt when given, else
 * by the spec's key. */
static gs_err check_out(const run *R, const char *dir, bool given, const char *opt, const char *key,
                        gs_error *e)
{
	char out[4096], other[4096], tmpl[4096], spec_dir[4096], cwd[4096];
	const char *what = NULL;
	const char *slash = strrchr(R->sp.path, '/');

	if (!resolve_lax(dir, out, sizeof out))
		return GS_OK; /* begin names what is wrong with it */
	if (getcwd(cwd, sizeof cwd) != NULL && resolve_lax(cwd, other, sizeof other) && strcmp(out, other) == 0)
		what = "the current directory";
	if (what == NULL) {
		if (slash == NULL)
			snprintf(spec_dir, sizeof spec_dir, ".");
		else
			snprintf(spec_dir, sizeof spec_dir, "%.*s", slash == R->sp.path ? 1 : (int)(slash - R->sp.path),
			         R->sp.path);
		if (resolve_lax(spec_dir, other, sizeof other) && holds(out, other))
			what = "the spec's directory or one above it";
	}
	gs_data_path(GS_DATA_TEMPLATES, tmpl, sizeof tmpl);
	const char *data[3][2] = { { R->sp.gpus_dir, "the GPU class directory, one inside it or above it" },
	                           { R->sp.models_dir, "the model cache, one inside it or above it" },
	                           { tmpl, "the templates directory, one inside it or above it" } };
	for (int i = 0; what == NULL && i < 3; i++)
		if (data[i][0] != NULL && data[i][0][0] != '\0' && resolve_lax(data[i][0], other, sizeof other) &&
		    (holds(out, other) || holds(other, out)))
			what = data[i][1];
	if (what == NULL)
		return GS_OK;
	if (given)
		return gs_fail(e, GS_EUSAGE, "--%s %s: the output directory may not be %s (%s); name a "
		               "directory of its own, as out/", opt, dir, what, out);
	return gs_fail(e, GS_ESPEC, "%s: \"%s\": %s may not be %s (%s); name a directory of its own, "
	               "as \"out\"", R->sp.path, key, dir, what, out);
}


/* A directory named without trailing slashes into buf. */
static const char *dir_name(char *buf, size_t n, const char *dir)
{
	snprintf(buf, n, "%s", dir);
	for (size_t k = strlen(buf); k > 1 && buf[k - 1] == '/'; k--)
		buf[k - 1] = '\0';
	return buf;
}

/* Whether two directory names name one directory (the same text, or both
 * exist and are one). */
static bool same_dir(const char *a, const char *b)
{
	struct stat sa, sb;

	if (strcmp(a, b) == 0)
		return true;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The spec: --spec FILE; else ./sizing.json; else the default spec, the
 * committed sizing.json installed in the data directory, read with its
 * outputs in the current directory (gs_spec_load_default). Nothing
 * there: GS_ENOFILE naming both places. */
static gs_err open_spec(run *R, const char *path, gs_error *e)
{
	char dflt[4096];
	struct stat st;

	if (path != NULL || lstat(GS_DEFAULT_SPEC, &st) == 0)
		return gs_spec_load(path != NULL ? path : GS_DEFAULT_SPEC, &R->sp, e);
	gs_data_path(GS_DATA_SPEC, dflt, sizeof dflt);
	if (strcmp(dflt, GS_DEFAULT_SPEC) == 0 || !gs_is_file(dflt))
		return gs_fail(e, GS_ENOFILE, "report: no spec: no --spec FILE, no ./%s here, and no default spec "
		               "installed (%s)", GS_DEFAULT_SPEC, dflt);
	if (!R->quiet)
		fprintf(stderr, "gpusizer: report: spec: the default, %s (no --spec, no ./%s)\n", dflt,
		        GS_DEFAULT_SPEC);
	return gs_spec_load_default(dflt, &R->sp, e);
}

/* The spec with the command line's changes, and the output directories:
 * --out names one for every format (unless --publish-dir names another for
 * the formats the spec does not commit); else the spec's out and
 * publish_dir. */
static gs_err load_spec(run *R, const args *a, gs_error *e)
{
	static char out_buf[4096], pub_buf[4096];
	gs_err rc;

	if ((rc = open_spec(R, a->spec_path, e)) != GS_OK)
		return rc;
	for (int i = 0; i < a->n_ov; i++)
		if ((rc = gs_spec_override(&R->sp, a->ov_name[i], a->ov_val[i], e)) != GS_OK)
			return rc;
	if (a->format != NULL && (rc = gs_spec_override(&R->sp, "formats", a->format, e)) != GS_OK)
		return rc;
	if (a->models_dir != NULL) {
		free(R->sp.models_dir);
		R->sp.models_dir = gs_xstrdup(a->models_dir);
	}
	if (a->gpus_dir != NULL) {
		free(R->sp.gpus_dir);
		R->sp.gpus_dir = gs_xstrdup(a->gpus_dir);
	}
	R->out = dir_name(out_buf, sizeof out_buf, a->out ? a->out : R->sp.out);
	R->pub = dir_name(pub_buf, sizeof pub_buf,
	                  a->publish_dir ? a->publish_dir : a->out ? a->out : R->sp.publish_dir);
	R->split = R->sp.commit.n > 0 && !same_dir(R->out, R->pub);
	R->out_given = a->out != NULL;
	R->pub_given = a->publish_dir != NULL || a->out != NULL;
	if ((rc = check_out(R, R->out, R->out_given, "out", "out", e)) != GS_OK)
		return rc;
	if (R->split && (rc = check_out(R, R->pub, R->pub_given, a->publish_dir ? "publish-dir" : "out",
	                                "publish_dir", e)) != GS_OK)
		return rc;
	return source_date(R, e);
}

/* The sweep's size from the spec alone, before any model is fetched or
 * anything written: over R->max_rows rows is GS_ESPEC naming the spec. */
static gs_err check_size(run *R, gs_error *e)
{
	gs_settings base;
	uint64_t per_model, rows;
	gs_err rc;

	if ((rc = gs_sweep_base(&R->sp, &base, e)) != GS_OK)
		return rc;
	per_model = gs_sweep_combinations(&R->sp, &base);
	if (!gs_mul_u64(per_model, (uint64_t)R->sp.models.n, &rows))
		rows = UINT64_MAX;
	if (rows <= R->max_rows)
		return GS_OK;
	return gs_fail(e, GS_ESPEC, "%s: the sweep has %s%" PRIu64 " rows (%zu model%s x %" PRIu64
	               " combinations of the axes and GPU counts), over the limit of %" PRIu64
	               " (--max-rows N raises it); nothing was written", R->sp.path,
	               rows == UINT64_MAX ? "over " : "", rows, R->sp.models.n,
	               R->sp.models.n == 1 ? "" : "s", per_model, R->max_rows);
}

/* Every model's rows counted before anything is written: a sweep of no
 * rows at all is GS_ESPEC naming the spec. */
static gs_err check_rows(run *R, gs_error *e)
{
	gs_settings base;
	size_t rows = 0, skipped = 0;
	gs_err rc;

	if ((rc = gs_sweep_base(&R->sp, &base, e)) != GS_OK)
		return rc;
	for (size_t m = 0; m < R->n_models; m++) {
		size_t sk = 0;
		rows += gs_sweep_count_model(&R->sp, &base, &R->models[m], &sk);
		skipped += sk;
	}
	if (rows > 0)
		return GS_OK;
	return gs_fail(e, GS_ESPEC, "%s: the sweep has no rows: all %zu combinations are skipped "
	               "(settings a method rejects, or contexts beyond each model's "
	               "max_position_embeddings); nothing was written", R->sp.path, skipped);
}

/* The GPU classes, the models, the measurements, the writers and the
 * assumptions they show. */
static gs_err load_inputs(run *R, const char *measurements, gs_error *e)
{
	gs_err rc;

	if ((rc = load_gpus(R, e)) != GS_OK || (rc = plan_classes(R, e)) != GS_OK ||
	    (rc = load_models(R, e)) != GS_OK ||
	    (rc = gs_measured_load(measurements, &R->measured, e)) != GS_OK ||
	    (rc = make_writers(R, e)) != GS_OK)
		return rc;
	if (R->n_w == 0)
		return gs_fail(e, GS_EUSAGE, "report: no output format available");
	/* What the store's load skipped (a cut-off last line): said once. */
	if (R->measured.warning[0] != '\0' && !R->quiet)
		fprintf(stderr, "gpusizer: report: warning: %s\n", R->measured.warning);
	if ((rc = check_rows(R, e)) != GS_OK)
		return rc;
	return gs_report_assumptions(&R->assumptions, e);
}

/* Generate into the staging directory, then commit it or, with --check,
 * compare it with out/. */
static gs_err write_reports(run *R, gs_error *e)
{
	gs_err rc;

	R->progress = !R->quiet && isatty(2);
	if (R->verbose)
		fprintf(stderr, "gpusizer: report: spec %s; models %s; GPU classes %s; output %s%s%s%s\n",
		        R->sp.path, R->sp.models_dir, R->sp.gpus_dir, R->out,
		        R->split && !R->check ? "; built for publishing " : "",
		        R->split && !R->check ? R->pub : "", R->check ? " (--check)" : "");
	gs_outdir_opts oo = { .check = R->check, .force = R->force }, po = { .force = R->force };
	if (R->to_out && (rc = gs_outdir_begin(&R->od, R->out, &oo, e)) != GS_OK)
		return rc;
	if (R->to_pub && (rc = gs_outdir_begin(&R->pd, R->pub, &po, e)) != GS_OK)
		return rc;
	/* A signal stops a page being rendered too (a template of many includes). */
	gs_tmpl_set_stop(gs_outdir_stopped);
	rc = generate(R, e);
	gs_tmpl_set_stop(NULL);
	if (rc != GS_OK)
		return rc;
	for (int i = 0; i < R->n_w; i++)
		R->w[i]->free(R->w[i]);
	R->n_w = 0;
	return R->check ? compare(R, e) : commit(R, e);
}

/* A message naming a file in a staging directory names it where it goes. */
static void name_out(const run *R, gs_error *e)
{
	const char *tmp[2] = { R->od.tmp, R->pd.tmp }, *dir[2] = { R->out, R->pub }, *at;
	char msg[sizeof e->msg];

	for (int k = 0; k < 2; k++) {
		size_t tl = strlen(tmp[k]);
		if (tl == 0 || dir[k] == NULL || (at = strstr(e->msg, tmp[k])) == NULL)
			continue;
		snprintf(msg, sizeof msg, "%.*s%s%s", (int)(at - e->msg), e->msg, dir[k], at + tl);
		snprintf(e->msg, sizeof e->msg, "%s", msg);
	}
}

/* Standard output flushed; when that fails the message says what is true:
 * the reports are written (or checked), only stdout failed (exit 4). */
static int stdout_done(const run *R)
{
	int err = 0;

	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout))
		err = errno ? errno : EIO;
	if (err == 0)
		return 0;
	if (R->check)
		fprintf(stderr, "gpusizer: report --check: %s was compared, but standard output failed: %s\n",
		        R->out, strerror(err));
	else
		fprintf(stderr, "gpusizer: report: the reports were written to %s, but standard output "
		        "failed: %s\n", R->out, strerror(err));
	return gs_exit_code(GS_EIO);
}

int cmd_report(int argc, char **argv)
{
	static run R;
	gs_error e = { 0 };
	gs_err rc;
	args a;
	int k;

	memset(&R, 0, sizeof R);
	k = parse_args(&R, &a, argc, argv, &e);
	if (k <= 0)
		return k < 0 ? gs_cmd_usage_error(&e) : 0;
	rc = load_spec(&R, &a, &e);
	if (rc == GS_OK)
		rc = check_size(&R, &e);
	if (rc == GS_OK)
		rc = load_inputs(&R, a.measurements, &e);
	if (rc == GS_OK)
		rc = write_reports(&R, &e);
	if (rc != GS_OK)
		name_out(&R, &e);
	run_free(&R);
	gs_outdir_reraise();
	if (rc != GS_OK) {
		if (R.shown)
			fputc('\n', stderr); /* end the progress line */
		gs_report_error(&e);
		return gs_exit_code(rc);
	}
	return stdout_done(&R);
}
