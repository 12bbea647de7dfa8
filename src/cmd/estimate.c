/* gpusizer: `estimate`: one configuration's peak memory, as a readable
 * breakdown or as one JSON object (the contract in gpusizer.1). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "search.h"
#include "constants.h"
#include "cmd.h"
#include "engine.h"
#include "gpu_file.h"
#include "jw.h"
#include "opt.h"
#include "paths.h"
#include "models.h"
#include "report.h"
#include "sweep.h"
#include "timefields.h"
#include "timing.h"
#include "util.h"

enum { OPT_GPU = GS_OPT_OWN, OPT_GPUS_DIR, OPT_LONG_CONTEXT, OPT_MEM_FRACTION };

static const gs_opt estimate_opts[] = {
	{ "json", 0, NULL, 0, GS_OPT_JSON, "one JSON document, the schema of out/sizing.json\n"
	  "with one model and one row (gpusizer(1))" },
	{ "gpu", 0, "ID,...", 0, OPT_GPU, "only these GPU classes in the fits list (ids as in\n"
	  "gpusizer list gpus)" },
	{ "gpus-dir", 0, "DIR", 0, OPT_GPUS_DIR, "GPU class files (default: the installed gpus/)" },
	{ "allow-long-context", 0, NULL, 0, OPT_LONG_CONTEXT, "size a --seq past the model's\n"
	  "max_position_embeddings (a RoPE-scaled context), with a warning;\n"
	  "without it such a --seq is exit 2" },
	{ "mem-fraction", 0, "F", 0, OPT_MEM_FRACTION, "inference: a serving engine's share of each\n"
	  "GPU's memory (vLLM gpu_memory_utilization), for\n"
	  "the serving capacity (0.9)" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

static const gs_opt_group estimate_groups[] = {
	{ "model (one of: an id org/name[@rev], --config FILE, or the manual shape)", gs_cli_model_opts, NULL },
	{ "settings (defaults in parentheses)", NULL, gs_cli_setting_opts },
	{ "output", estimate_opts, NULL },
	{ "time and cost", gs_cli_time_opts, NULL },
	{ "common", gs_opt_common, NULL },
	{ NULL, NULL, NULL },
};

const gs_opt_cmd gs_cmd_estimate = {
	"estimate",
	"gpusizer estimate MODEL [OPTIONS]\n"
	"       gpusizer estimate --config FILE [OPTIONS]\n"
	"       gpusizer estimate --params N --layers N --hidden N [OPTIONS]",
	"Predict the peak GPU memory of one training step (or inference forward), per GPU,\n"
	"with what is live at the peak: W weights, G gradients, O optimizer states,\n"
	"A activations, B everything else (temporaries, allocator cache, CUDA context),\n"
	"and the verdict on every GPU class.",
	estimate_groups,
	"Exit status: 0 ok (also when nothing fits: the verdicts say so), 2 usage, 3 a bad\n"
	"config.json or GPU file (named), 6-9 model fetch, 10 offline and the model not\n"
	"cached, 16 a local file or directory missing (--config, --gpus-dir).\n",
};

static double gib(uint64_t b)
{
	return (double)b / GS_GIB;
}

/* What the command line asks for, and what it loads. */
typedef struct est {
	gs_cli_row r;
	gs_arch a;
	gs_estimate x;
	gs_gpu *g;
	size_t ng;
	bool json, verbose, quiet, long_ctx, mem_frac_given, gpus_dir_given;
	char gpus_buf[4096];
	const char *gpus_dir, *only;
	double mem_frac;
	gs_cli_time ct;
	/* the estimate as a report row, evaluated on every class: the verdicts
	 * and the time model, once per class, for the text and the JSON alike */
	gs_model m;
	char slug[256];
	gs_model_meta mm;
	gs_measured_store none;
	gs_report_meta meta;
	gs_row row;
	gs_eval *ev;
} est;

/* The estimate as the one row of a one-model report (gs_sweep_row: its
 * label, key and id), its estimate the formula asked for, evaluated
 * (gs_row_eval) on every class with the time block's runtime. */
static void evaluate(est *s, const char *model)
{
	const gs_cli_row *r = &s->r;
	gs_error sub = { 0 };

	s->m.id = model;
	s->m.arch = &s->a;
	if (r->model_id == NULL || gs_model_slug(r->model_id, s->slug, sizeof s->slug, &sub) != GS_OK)
		snprintf(s->slug, sizeof s->slug, "%s", r->config_path ? "config" : "manual");
	s->m.slug = s->slug;
	s->m.param_source = "config.json tally";
	if (r->model_id != NULL && gs_model_meta_load(r->models_dir, r->model_id, &s->mm, &sub) == GS_OK &&
	    s->mm.param_source[0])
		s->m.param_source = s->mm.param_source;
	if (r->config_path == NULL && r->model_id == NULL)
		s->m.param_source = "the manual shape";
	s->meta.gpus = s->g;
	s->meta.n_gpus = s->ng;
	s->meta.models = &s->m;
	s->meta.n_models = 1;
	s->meta.tool_version = GS_VERSION;
	s->meta.measured = &s->none;
	s->meta.time = &s->ct.to;
	gs_sweep_row(&s->row, &s->m, &r->s);
	s->row.est = s->x; /* the formula asked for (the detailed one by default) */
	s->row.err = GS_OK;
	s->row.err_msg[0] = '\0';
	s->ev = gs_eval_new(&s->meta);
	gs_eval_model_begin(s->ev, &s->m);
	gs_row_eval(s->ev, &s->row);
}

/* What the time fields' texts and nulls depend on, on class i. */
static gs_time_ctx time_ctx(const est *s, size_t i)
{
	gs_time_ctx x = { s->g[i].price_usd_hour, s->ct.to.tokens_budget, s->r.s.new_tokens };
	return x;
}

static void print_time_json(FILE *fp, const est *s);

/* --json: the document of out/sizing.json with this one model and row, so
 * that a row means the same thing wherever it is read (gs_json_doc_begin),
 * plus the time model's member. */
static void print_json(FILE *fp, const est *s)
{
	gs_json_doc_begin(fp, &s->meta);
	gs_json_row(fp, &s->meta, &s->row, true);
	/* gs_json_doc_end's "]}" with the time model's member between: the
	 * document of out/sizing.json plus "time" (estimate only). */
	fputs("\n],\n", fp);
	print_time_json(fp, s);
	fputs("}\n", fp);
}

/* The widest GPU name, for one column of names (at most 40). */
static int name_width(const gs_gpu *g, size_t ng)
{
	int w = 8;
	for (size_t i = 0; i < ng; i++) {
		int n = (int)strlen(g[i].name);
		w = n > w ? n : w;
	}
	return w > 40 ? 40 : w;
}

static void print_prices(FILE *fp, const gs_gpu *g, size_t ng, int w);

/* The time model serving n sequences at once on class i (the sequences its
 * KV pool holds): false where it has no answer. */
static bool serve_at(const est *s, size_t i, int64_t n, gs_time *t)
{
	gs_time_opts o = s->ct.to;
	gs_error sub = { 0 };

	if (n < 1 || !s->row.cell[i].timed || gs_plan_untimed(&s->r.s) != NULL)
		return false;
	o.concurrency = n;
	return gs_time_row(&s->a, &s->r.s, &s->x, &s->g[i], &o, t, &sub) == GS_OK;
}

/* The serving capacity of an inference estimate on every class. */
static void print_serving(FILE *fp, const est *s, int w)
{
	const gs_settings *st = &s->r.s;
	gs_needs need = gs_settings_needs(st);
	int64_t ctx = st->seq + st->new_tokens;

	fprintf(fp, "\nserving capacity (a KV-cache pool of %.2f of each GPU's memory less the weights and "
	        "activations,\nin %d-token blocks, as vLLM sizes it): sequences of %" PRId64 " tokens at once,\n"
	        "and the time model serving that many (time to first token, time per output token,\n"
	        "output tokens/s in all; runtime %s)\n%s",
	        s->mem_frac, GS_SERVE_BLOCK_TOKENS, ctx, gs_runtime_name(s->ct.to.runtime), gs_cli_serve_note(st));
	for (size_t i = 0; i < s->ng; i++) {
		double pool;
		int64_t n = gs_serving_seqs(&s->x, need, &s->g[i], s->mem_frac, ctx, GS_SERVE_BLOCK_TOKENS, &pool);
		fprintf(fp, "  %-*s  ", w, s->g[i].name);
		if (n < 0)
			fputs("not runnable\n", fp);
		else if (pool <= 0)
			fprintf(fp, "none: the weights and activations alone pass %.2f of the memory\n", s->mem_frac);
		else {
			gs_time t;
			fprintf(fp, "pool %7.2f GiB  %" PRId64 " sequence%s", pool / GS_GIB, n, n == 1 ? "" : "s");
			if (serve_at(s, i, n, &t))
				gs_cli_print_serve(fp, &t);
			fputc('\n', fp);
		}
	}
}

/* The time block: per class the time fields' estimate texts (timefields.h). */
static void print_time_text(FILE *fp, const est *s)
{
	const gs_settings *st = &s->r.s;
	const gs_time_opts *to = &s->ct.to;
	int w = name_width(s->g, s->ng);

	if (s->ng == 0)
		return;
	if (st->method == GS_INFER)
		fprintf(fp, "\ntime (time model, runtime %s, kernel %s; batch %" PRId64 ", prompt %" PRId64 ", %" PRId64
		        " new tokens):\n", gs_runtime_name(to->runtime),
		        gs_kernel_name(s->ng > 0 && s->row.cell[0].timed ? s->row.cell[0].t.kernel : to->kernel),
		        st->batch, st->seq, st->new_tokens);
	else
		fprintf(fp, "\ntime per optimizer step (time model, %s stack; %" PRId64 " GPU%s):\n",
		        gs_train_runtime_name(to->train_runtime), st->gpus, st->gpus > 1 ? "s" : "");
	for (size_t i = 0; i < s->ng; i++) {
		gs_time_ctx x = time_ctx(s, i);
		gs_verdict v = s->row.cell[i].v;
		fprintf(fp, "  %-*s  ", w, s->g[i].name);
		/* a time only where the row runs: a step that cannot happen is no answer */
		if (v != GS_FITS && v != GS_TIGHT)
			fprintf(fp, "not timed: %s", gs_verdict_name(v));
		else if (gs_plan_untimed(st) != NULL)
			fprintf(fp, "not timed: %s", gs_plan_untimed(st));
		else if (!s->row.cell[i].timed)
			fputs("no estimate (the GPU file lacks a figure)", fp);
		else
			gs_time_texts(fp, GS_TT_ESTIMATE, st->method, &s->row.cell[i], &x);
		fputc('\n', fp);
	}
	fputs("  (efficiencies calibrated on published measured speeds; their errors: make speed-accuracy)\n", fp);
	if (st->tp > 1)
		fprintf(fp, "  (tensor parallel %" PRId64 ": two all-reduces a layer, at NCCL's latency and over each\n"
		        "  class's link, are in the time)\n", st->tp);
	if (st->method != GS_INFER && st->pp > 1) {
		int64_t m = st->grad_accum > 1 ? st->grad_accum : 1, v = st->vpp > 1 ? st->vpp : 1;
		char vm[48];
		if (v > 1)
			snprintf(vm, sizeof vm, "(%" PRId64 " x %" PRId64 ")", v, m);
		else
			snprintf(vm, sizeof vm, "%" PRId64, m);
		fprintf(fp, "  (pipeline %" PRId64 " stages%s, 1F1B over %" PRId64 " micro-batch%s: (%" PRId64 " - 1) / %s"
		        " = %.0f%% of the\n  ideal step idle, in the time)\n", st->pp, v > 1 ? " interleaved" : "", m,
		        m == 1 ? "" : "es", st->pp, vm, 100.0 * (double)(st->pp - 1) / (double)(m * v));
	}
	if (st->method != GS_INFER && st->ep > 1)
		fprintf(fp, "  (expert parallel %" PRId64 ": each MoE layer's dispatch and combine all-to-alls, over the\n"
		        "  link the ranks share, are in the time, not overlapped)\n", st->ep);
	print_prices(fp, s->g, s->ng, w);
	if (st->method == GS_INFER)
		print_serving(fp, s, w);
}

/* Where each price comes from, under the time block. */
static void print_prices(FILE *fp, const gs_gpu *g, size_t ng, int w)
{
	bool any = false;
	for (size_t i = 0; i < ng; i++) {
		if (!(g[i].price_usd_hour > 0))
			continue;
		if (!any)
			fputs("  prices (USD per GPU-hour):\n", fp);
		any = true;
		fprintf(fp, "    %-*s  ", w, g[i].name);
		gs_cli_print_usd(fp, g[i].price_usd_hour);
		if (g[i].price_cli)
			fputs("  --price\n", fp);
		else
			fprintf(fp, "  the GPU file, quoted %s\n", g[i].price_date);
	}
}

/* ", \"key\": v" (%.<digits>g; null when not finite, jw.h). */
static void print_num(FILE *fp, const char *key, double v, int digits)
{
	fprintf(fp, ", \"%s\": ", key);
	gs_json_num(fp, v, digits);
}

/* A number, or null where there is none. */
static void print_num_or_null(FILE *fp, const char *key, double v, bool have)
{
	print_num(fp, key, have ? v : NAN, 6);
}

/* The "time" member of --json: one object per GPU class, in column order:
 * its price, the serving capacity (inference), then the time fields
 * estimate writes (timefields.h). */
static void print_time_json(FILE *fp, const est *s)
{
	const gs_settings *st = &s->r.s;
	const gs_time_opts *to = &s->ct.to;
	gs_needs need = gs_settings_needs(st);

	fprintf(fp, "\"time\": {\"runtime\": \"%s\", \"train_runtime\": \"%s\"",
	        gs_runtime_name(to->runtime), gs_train_runtime_name(to->train_runtime));
	print_num(fp, "tokens_budget", to->tokens_budget, 17);
	if (st->method == GS_INFER) {
		print_num(fp, "mem_fraction", s->mem_frac, 6);
		fprintf(fp, ", \"block_tokens\": %d", GS_SERVE_BLOCK_TOKENS);
		print_num(fp, "kv_bytes_per_token", s->x.kv_bytes_token, 17);
	}
	fputs(", \"gpus\": [", fp);
	for (size_t i = 0; i < s->ng; i++) {
		const gs_gpu *g = &s->g[i];
		bool priced = g->price_usd_hour > 0;
		gs_time_ctx x = time_ctx(s, i);
		fprintf(fp, "%s\n    {\"id\": \"%s\"", i ? "," : "", g->id);
		print_num_or_null(fp, "price_usd_per_hour", g->price_usd_hour, priced);
		if (priced && g->price_cli)
			fputs(", \"price_from\": \"--price\"", fp);
		else if (priced)
			fprintf(fp, ", \"price_from\": \"file\", \"price_date\": \"%s\"", g->price_date);
		if (st->method == GS_INFER) {
			double pool;
			int64_t n = gs_serving_seqs(&s->x, need, g, s->mem_frac, st->seq + st->new_tokens,
			                            GS_SERVE_BLOCK_TOKENS, &pool);
			print_num_or_null(fp, "serving_pool_bytes", pool > 0 ? pool : 0, n >= 0);
			if (n >= 0)
				fprintf(fp, ", \"serving_sequences\": %" PRId64, n);
			else
				fputs(", \"serving_sequences\": null", fp);
			gs_time t;
			bool served = serve_at(s, i, n, &t);
			print_num_or_null(fp, "serving_ttft_s", served ? t.ttft_s : 0, served);
			print_num_or_null(fp, "serving_tpot_s", served ? t.tpot_s : 0, served && t.tpot_s > 0);
			print_num_or_null(fp, "serving_tokens_per_s", served ? t.serve_tok_s : 0, served && t.tpot_s > 0);
		}
		if (gs_plan_untimed(st) != NULL) {
			fprintf(fp, ", \"error\": \"%s\"}", gs_plan_untimed(st));
			continue;
		}
		if (!s->row.cell[i].timed) {
			fputs(", \"error\": \"the GPU file lacks a figure\"}", fp);
			continue;
		}
		gs_time_fields_json(fp, GS_TF_ESTIMATE, st->method, &s->row.cell[i], &x, ", ", ": ");
		fputc('}', fp);
	}
	fputs("]}", fp);
}

/* "headroom -57%"; past -999% the ratio reads better: "headroom -12345%"
 * would be "needs 124x the usable memory". */
static void print_headroom(FILE *fp, double head)
{
	if (head >= -9.99)
		fprintf(fp, " headroom %+.0f%%", head * 100);
	else
		fprintf(fp, " needs %.0fx the usable memory", 1 - head);
}

static void print_text(FILE *fp, const est *s, const char *model)
{
	const gs_arch *a = &s->a;
	const gs_estimate *x = &s->x;
	char label[256];

	gs_settings_label(&s->r.s, label, sizeof label);
	fprintf(fp, "model      %s (%s", model, a->model_type);
	if (a->generic)
		fputs(", sized as a generic decoder", fp);
	fprintf(fp, ")\nparams     %.3f B total", (double)x->params_total / 1e9);
	if (x->params_active != x->params_total)
		fprintf(fp, ", %.3f B active per token", (double)x->params_active / 1e9);
	fprintf(fp, ", %.3f M trainable\n", (double)x->params_trainable / 1e6);
	fprintf(fp, "settings   %s\n", label);
	fprintf(fp, "formula    %s\nrecipe     %s\n", gs_formula_name(x->formula), x->recipe ? x->recipe : "");
	if (a->warning[0])
		fprintf(fp, "warning    %s\n", a->warning);
	fprintf(fp, "\nper GPU at the peak (GiB = 2^30 bytes), %s of the %s step:\n", gs_phase_name(x->peak_phase),
	        x->peak_step == 1 ? "first" : "steady-state");
	fprintf(fp, "  W weights            %9.2f GiB   %.2f bytes/param\n", gib(x->W), x->bpp_W);
	fprintf(fp, "  G gradients          %9.2f GiB   %.2f bytes/trainable param\n", gib(x->G), x->bpp_G);
	fprintf(fp, "  O optimizer states   %9.2f GiB   %.2f bytes/trainable param\n", gib(x->O), x->bpp_O);
	fprintf(fp, "  A activations        %9.2f GiB\n", gib(x->A));
	fprintf(fp, "  B other              %9.2f GiB   temporaries, allocator cache, CUDA context\n", gib(x->B));
	fprintf(fp, "  allocated            %9.2f GiB   torch max_memory_allocated\n", gib(x->allocated));
	fprintf(fp, "  reserved             %9.2f GiB   torch max_memory_reserved\n", gib(x->reserved));
	fprintf(fp, "  device               %9.2f GiB   nvidia-smi; decides fits\n", gib(x->device));
	if (x->host)
		fprintf(fp, "  host (offload)       %9.2f GiB\n", gib(x->host));
	if (x->note[0])
		fprintf(fp, "note       %s\n", x->note);
	if (s->ng == 0)
		return;
	fputs("\nfits on:\n", fp);
	gs_needs need = gs_settings_needs(&s->r.s);
	int w = name_width(s->g, s->ng);
	for (size_t i = 0; i < s->ng; i++) {
		const gs_gpu *g = &s->g[i];
		gs_verdict v = s->row.cell[i].v;
		char why[256];
		fprintf(fp, "  %-*s  %-7s usable %6.1f GiB  %-13s", w, g->name, g->klass, gib(g->usable_bytes),
		        gs_verdict_name(v));
		if (v == GS_FITS || v == GS_TIGHT || v == GS_NO_FIT)
			print_headroom(fp, s->row.cell[i].headroom);
		if (v == GS_NOT_RUNNABLE)
			fprintf(fp, " %s", gs_needs_why(need, g, why, sizeof why));
		else if (gs_needs_fp16_on(need, g))
			fputs(" (fp16 compute: no bf16; the same bytes)", fp);
		fputc('\n', fp);
	}
}

/* --mem-fraction's value: a share of the GPU's memory. */
static gs_err mem_fraction(est *s, const char *val, gs_error *e)
{
	char *end = NULL;
	double v = strtod(val, &end);

	if (end == val || *end != '\0' || !(v > 0) || v > 1)
		return gs_fail(e, GS_EUSAGE, "estimate: --mem-fraction: expected a fraction of the GPU's "
		               "memory, above 0 and at most 1 (got \"%s\")", val);
	s->mem_frac = v;
	s->mem_frac_given = true;
	return GS_OK;
}

/* The options into s. Returns 1 to go on, 0 when done (--help printed),
 * -1 on a usage error (in e). */
static int parse_args(est *s, int argc, char **argv, gs_error *e)
{
	gs_opt_iter it;
	const gs_opt *o;
	const char *val;
	int k;

	gs_opt_begin(&it, argc, argv);
	while ((k = gs_opt_next(&gs_cmd_estimate, &it, &o, &val, e)) > 0) {
		int m = gs_cli_row_apply(&s->r, &gs_cmd_estimate, k == 2 ? NULL : o, val, e);
		if (m == 0)
			m = gs_cli_time_apply(&s->ct, &gs_cmd_estimate, k == 2 ? NULL : o, val, e);
		if (m < 0)
			return -1;
		if (m > 0)
			continue;
		switch (o->id) {
		case GS_OPT_HELP: gs_opt_usage(&gs_cmd_estimate, stdout); return 0;
		case GS_OPT_JSON: s->json = true; break;
		case GS_OPT_QUIET: s->verbose = false; s->quiet = true; break;
		case OPT_LONG_CONTEXT: s->long_ctx = true; break;
		case GS_OPT_VERBOSE: s->verbose = true; break;
		case OPT_GPU: s->only = val; break;
		case OPT_GPUS_DIR: s->gpus_dir = val; s->gpus_dir_given = true; break;
		case OPT_MEM_FRACTION:
			if (mem_fraction(s, val, e) != GS_OK)
				return -1;
			break;
		}
	}
	return k < 0 ? -1 : 1;
}

/* The settings checked, the model's shape, the estimate and the GPU
 * classes (none when the default directory is missing: no fits list). */
static gs_err prepare(est *s, gs_error *e)
{
	gs_err rc;

	if ((rc = gs_cli_row_check(&s->r, e)) != GS_OK)
		return rc;
	if (s->mem_frac_given && s->r.s.method != GS_INFER)
		return gs_fail(e, GS_EUSAGE, "estimate: --mem-fraction: sizes a serving engine's KV cache; only "
		               "with --method inference");
	if ((rc = gs_cli_row_arch(&s->r, &s->a, e)) != GS_OK)
		return rc;
	gs_cli_row_ddp_print(&s->r, s->quiet);
	gs_time_opts_stack(&s->ct.to, s->r.s.stack);
	if ((rc = gs_cli_row_context(&s->r, &s->a, s->long_ctx, s->quiet, e)) != GS_OK ||
	    (rc = gs_estimate_run(&s->a, &s->r.s, &s->x, e)) != GS_OK)
		return rc;
	if (gs_gpus_load(s->gpus_dir, &s->g, &s->ng, e) != GS_OK) {
		if (s->gpus_dir_given || s->only != NULL || e->code != GS_ENOFILE)
			return e->code;
		memset(e, 0, sizeof *e); /* no GPU directory: no fits list */
		s->g = NULL;
		s->ng = 0;
	}
	if ((rc = gs_cli_time_price(&s->ct, s->g, s->ng, "estimate", e)) != GS_OK)
		return rc;
	if (s->only != NULL && (rc = gs_gpus_select(s->g, &s->ng, s->only, s->gpus_dir, "estimate", e)) != GS_OK)
		return rc;
	if (s->verbose)
		fprintf(stderr, "gpusizer: estimate: model %s; GPU classes %s (%zu); model cache %s\n",
		        s->r.resolved[0] ? s->r.resolved : "manual shape", s->ng ? s->gpus_dir : "none", s->ng,
		        s->r.models_dir);
	return GS_OK;
}

int cmd_estimate(int argc, char **argv)
{
	static est s; /* large (a row): off the stack */
	gs_error e = { 0 };
	int k, rc = 0;

	memset(&s, 0, sizeof s);
	s.mem_frac = GS_SERVE_MEM_FRACTION;
	s.gpus_dir = s.gpus_buf;
	gs_cli_time_init(&s.ct);
	gs_cli_row_init(&s.r);
	gs_data_path(GS_DATA_GPUS, s.gpus_buf, sizeof s.gpus_buf);
	k = parse_args(&s, argc, argv, &e);
	if (k == 0)
		return 0;
	if (k < 0 || prepare(&s, &e) != GS_OK) {
		gs_report_error(&e);
		rc = gs_exit_code(e.code);
	} else {
		const gs_cli_row *r = &s.r;
		const char *model = r->config_path ? r->config_path : r->model_id ? r->model_id : "manual";
		evaluate(&s, model);
		if (s.json) {
			print_json(stdout, &s);
		} else {
			print_text(stdout, &s, model);
			print_time_text(stdout, &s);
		}
		if (fflush(stdout) != 0 || ferror(stdout)) {
			gs_fail(&e, GS_EIO, "estimate: cannot write the output");
			gs_report_error(&e);
			rc = gs_exit_code(GS_EIO);
		}
	}
	gs_eval_free(s.ev);
	free(s.g);
	return rc;
}
