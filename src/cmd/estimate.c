/* gpusizer: `estimate`: one configuration's peak memory, as a readable
 * breakdown or as one JSON object (the contract in gpusizer.1). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "constants.h"
#include "cmd.h"
#include "engine.h"
#include "gpu_file.h"
#include "opt.h"
#include "paths.h"
#include "models.h"
#include "report.h"
#include "sweep.h"
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
	NULL,
};

static double gib(uint64_t b)
{
	return (double)b / GS_GIB;
}

static void print_time_json(FILE *fp, const gs_settings *s, const gs_estimate *x, const gs_gpu *g, size_t ng,
                            const gs_time_opts *to, double mem_frac, const gs_time *t, const bool *ok);
static void print_prices(FILE *fp, const gs_gpu *g, size_t ng, int w);

/* --json: the document of out/sizing.json with this one model and row, so
 * that a row means the same thing wherever it is read (gs_json_doc_begin). */
static void print_json(FILE *fp, const gs_cli_row *r, const char *model, const gs_arch *a,
                       const gs_estimate *x, const gs_gpu *g, size_t ng, const gs_time_opts *to,
                       double mem_frac, const gs_time *t, const bool *ok)
{
	static gs_row row; /* large: keep it off the stack */
	gs_measured_store none = { 0 };
	gs_report_meta meta;
	gs_model m;
	gs_model_meta mm;
	char slug[256];
	gs_error sub = { 0 };

	memset(&m, 0, sizeof m);
	m.id = model;
	m.arch = a;
	if (r->model_id == NULL || gs_model_slug(r->model_id, slug, sizeof slug, &sub) != GS_OK)
		snprintf(slug, sizeof slug, "%s", r->config_path ? "config" : "manual");
	m.slug = slug;
	m.param_source = "config.json tally";
	if (r->model_id != NULL && gs_model_meta_load(r->models_dir, r->model_id, &mm, &sub) == GS_OK &&
	    mm.param_source[0])
		m.param_source = mm.param_source;
	if (r->config_path == NULL && r->model_id == NULL)
		m.param_source = "the manual shape";
	memset(&meta, 0, sizeof meta);
	meta.gpus = g;
	meta.n_gpus = ng;
	meta.models = &m;
	meta.n_models = 1;
	meta.tool_version = GS_VERSION;
	meta.measured = &none;
	meta.time = to; /* the row's step times with the time block's runtime */
	gs_sweep_row(&row, &m, &r->s);
	row.est = *x; /* the formula asked for (the detailed one by default) */
	row.err = GS_OK;
	row.err_msg[0] = '\0';
	gs_json_doc_begin(fp, &meta);
	gs_json_row(fp, &meta, &row, true);
	/* gs_json_doc_end's "]}" with the time model's member between: the
	 * document of out/sizing.json plus "time" (estimate only). */
	fputs("\n],\n", fp);
	print_time_json(fp, &r->s, x, g, ng, to, mem_frac, t, ok);
	fputs("}\n", fp);
}

/* The time model (timing.h) per GPU class; ok[i] false where it has no
 * answer (a figure missing). */
static void time_all(const gs_arch *a, const gs_settings *s, const gs_estimate *x, const gs_gpu *g, size_t ng,
                     const gs_time_opts *to, gs_time *t, bool *ok)
{
	for (size_t i = 0; i < ng; i++) {
		gs_error sub = { 0 };
		ok[i] = gs_time_row(a, s, x, &g[i], to, &t[i], &sub) == GS_OK;
	}
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

static void print_time_text(FILE *fp, const gs_settings *s, const gs_estimate *x, const gs_gpu *g, size_t ng,
                            const gs_time_opts *to, double mem_frac, const gs_time *t, const bool *ok)
{
	int w = name_width(g, ng);

	if (ng == 0)
		return;
	if (s->method == GS_INFER)
		fprintf(fp, "\ntime (time model, runtime %s; batch %" PRId64 ", prompt %" PRId64 ", %" PRId64
		        " new tokens):\n", gs_runtime_name(to->runtime), s->batch, s->seq, s->new_tokens);
	else
		fprintf(fp, "\ntime per optimizer step (time model, %s stack; %" PRId64 " GPU%s):\n",
		        gs_train_runtime_name(to->train_runtime), s->gpus, s->gpus > 1 ? "s" : "");
	for (size_t i = 0; i < ng; i++) {
		fprintf(fp, "  %-*s  ", w, g[i].name);
		if (!ok[i]) {
			fputs("no estimate (the GPU file lacks a figure)\n", fp);
			continue;
		}
		if (s->method == GS_INFER) {
			fputs("prefill ", fp);
			gs_cli_print_secs(fp, t[i].prefill_s);
			fprintf(fp, "  decode %.1f tokens/s a sequence, %.1f total", t[i].decode_tok_s_seq,
			        t[i].decode_tok_s_total);
			if (s->new_tokens > 0) {
				fputs("  generate ", fp);
				gs_cli_print_secs(fp, t[i].generate_s);
			}
			if (t[i].usd_per_mtok > 0) {
				fputs("  ", fp);
				gs_cli_print_usd(fp, t[i].usd_per_mtok);
				fputs(" per M tokens", fp);
			}
		} else {
			fputs("step ", fp);
			gs_cli_print_secs(fp, t[i].step_s);
			fprintf(fp, "  %.0f tokens/s/GPU, %.0f total  MFU %.0f%%", t[i].tok_s_gpu, t[i].tok_s_total,
			        t[i].mfu * 100);
			if (to->tokens_budget > 0) {
				fputs("  ", fp);
				gs_cli_print_count(fp, to->tokens_budget);
				fputs(" tokens in ", fp);
				gs_cli_print_secs(fp, t[i].budget_s);
				fprintf(fp, ", %.3g GPU-h", t[i].gpu_hours);
				if (t[i].cost_usd > 0) {
					fputs(" = ", fp);
					gs_cli_print_usd(fp, t[i].cost_usd);
				}
			}
		}
		fputc('\n', fp);
	}
	fputs("  (efficiencies calibrated on published measured speeds; their errors: make speed-accuracy)\n", fp);
	if (s->tp > 1)
		gs_cli_print_tp_note(fp);
	print_prices(fp, g, ng, w);
	if (s->method != GS_INFER)
		return;
	gs_needs need = gs_settings_needs(s);
	int64_t ctx = s->seq + s->new_tokens;
	fprintf(fp, "\nserving capacity (a KV-cache pool of %.2f of each GPU's memory less the weights and "
	        "activations,\nin %d-token blocks, as vLLM sizes it): sequences of %" PRId64 " tokens at once\n",
	        mem_frac, GS_SERVE_BLOCK_TOKENS, ctx);
	for (size_t i = 0; i < ng; i++) {
		double pool;
		int64_t n = gs_serving_seqs(x, need, &g[i], mem_frac, ctx, GS_SERVE_BLOCK_TOKENS, &pool);
		fprintf(fp, "  %-*s  ", w, g[i].name);
		if (n < 0)
			fputs("not runnable\n", fp);
		else if (pool <= 0)
			fprintf(fp, "none: the weights and activations alone pass %.2f of the memory\n", mem_frac);
		else
			fprintf(fp, "pool %7.2f GiB  %" PRId64 " sequence%s\n", pool / GS_GIB, n, n == 1 ? "" : "s");
	}
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

/* A number, or null where there is none. */
static void print_num_or_null(FILE *fp, const char *key, double v, bool have)
{
	if (have)
		fprintf(fp, ", \"%s\": %.6g", key, v);
	else
		fprintf(fp, ", \"%s\": null", key);
}

/* The "time" member of --json: one object per GPU class, in column order. */
static void print_time_json(FILE *fp, const gs_settings *s, const gs_estimate *x, const gs_gpu *g, size_t ng,
                            const gs_time_opts *to, double mem_frac, const gs_time *t, const bool *ok)
{
	gs_needs need = gs_settings_needs(s);

	fprintf(fp, "\"time\": {\"runtime\": \"%s\", \"train_runtime\": \"%s\", \"tokens_budget\": %.17g",
	        gs_runtime_name(to->runtime), gs_train_runtime_name(to->train_runtime), to->tokens_budget);
	if (s->method == GS_INFER)
		fprintf(fp, ", \"mem_fraction\": %.6g, \"block_tokens\": %d, \"kv_bytes_per_token\": %.17g",
		        mem_frac, GS_SERVE_BLOCK_TOKENS, x->kv_bytes_token);
	fputs(", \"gpus\": [", fp);
	for (size_t i = 0; i < ng; i++) {
		bool priced = g[i].price_usd_hour > 0;
		fprintf(fp, "%s\n    {\"id\": \"%s\"", i ? "," : "", g[i].id);
		print_num_or_null(fp, "price_usd_per_hour", g[i].price_usd_hour, priced);
		if (priced && g[i].price_cli)
			fputs(", \"price_from\": \"--price\"", fp);
		else if (priced)
			fprintf(fp, ", \"price_from\": \"file\", \"price_date\": \"%s\"", g[i].price_date);
		if (s->method == GS_INFER) {
			double pool;
			int64_t n = gs_serving_seqs(x, need, &g[i], mem_frac, s->seq + s->new_tokens,
			                            GS_SERVE_BLOCK_TOKENS, &pool);
			print_num_or_null(fp, "serving_pool_bytes", pool > 0 ? pool : 0, n >= 0);
			if (n >= 0)
				fprintf(fp, ", \"serving_sequences\": %" PRId64, n);
			else
				fputs(", \"serving_sequences\": null", fp);
		}
		if (!ok[i]) {
			fputs(", \"error\": \"the GPU file lacks a figure\"}", fp);
			continue;
		}
		fprintf(fp, ", \"peak_tflops\": %.6g, \"gemm_efficiency\": %.4g, \"tp_comm_modelled\": %s",
		        t[i].peak_tflops, t[i].eff, t[i].tp_unmodelled ? "false" : "true");
		if (s->method == GS_INFER) {
			fprintf(fp, ", \"prefill_s\": %.6g, \"decode_step_s\": %.6g, \"decode_tokens_per_s_seq\": %.6g, "
			        "\"decode_tokens_per_s_total\": %.6g, \"generate_s\": %.6g",
			        t[i].prefill_s, t[i].decode_step_s, t[i].decode_tok_s_seq, t[i].decode_tok_s_total,
			        t[i].generate_s);
			print_num_or_null(fp, "usd_per_million_tokens", t[i].usd_per_mtok, priced);
		} else {
			fprintf(fp, ", \"step_s\": %.6g, \"compute_s\": %.6g, \"comm_s\": %.6g, \"optimizer_s\": %.6g, "
			        "\"tokens_per_step\": %.6g, \"tokens_per_s_per_gpu\": %.6g, \"tokens_per_s_total\": %.6g, "
			        "\"mfu\": %.4g, \"budget_s\": %.6g, \"gpu_hours\": %.6g",
			        t[i].step_s, t[i].compute_s, t[i].comm_s, t[i].optim_s, t[i].tokens_step, t[i].tok_s_gpu,
			        t[i].tok_s_total, t[i].mfu, t[i].budget_s, t[i].gpu_hours);
			print_num_or_null(fp, "cost_usd", t[i].cost_usd, priced && to->tokens_budget > 0);
		}
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

static void print_text(FILE *fp, const char *model, const gs_arch *a, const gs_settings *s, const gs_estimate *x,
                       const gs_gpu *g, size_t ng)
{
	char label[256];

	gs_settings_label(s, label, sizeof label);
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
	if (ng == 0)
		return;
	fputs("\nfits on:\n", fp);
	gs_needs need = gs_settings_needs(s);
	int w = name_width(g, ng);
	for (size_t i = 0; i < ng; i++) {
		double head;
		gs_verdict v = gs_verdict_of(x->device, need, &g[i], &head);
		char why[256];
		fprintf(fp, "  %-*s  %-7s usable %6.1f GiB  %-13s", w, g[i].name, g[i].klass, gib(g[i].usable_bytes),
		        gs_verdict_name(v));
		if (v == GS_FITS || v == GS_TIGHT || v == GS_NO_FIT)
			print_headroom(fp, head);
		if (v == GS_NOT_RUNNABLE)
			fprintf(fp, " %s", gs_needs_why(need, &g[i], why, sizeof why));
		else if (gs_needs_fp16_on(need, &g[i]))
			fputs(" (fp16 compute: no bf16; the same bytes)", fp);
		fputc('\n', fp);
	}
}

int cmd_estimate(int argc, char **argv)
{
	gs_cli_row r;
	gs_error e = {0};
	gs_arch a;
	gs_estimate x;
	gs_gpu *g = NULL;
	size_t ng = 0;
	bool json = false, verbose = false, quiet = false, long_ctx = false;
	char gpus_buf[4096];
	const char *gpus_dir = gpus_buf, *only = NULL;
	double mem_frac = GS_SERVE_MEM_FRACTION;
	bool mem_frac_given = false;
	bool gpus_dir_given = false;
	gs_opt_iter it;
	const gs_opt *o;
	const char *val;
	int k;
	gs_cli_time ct;
	gs_time *tm = NULL;
	bool *tok = NULL;

	gs_cli_time_init(&ct);

	gs_cli_row_init(&r);
	gs_data_path(GS_DATA_GPUS, gpus_buf, sizeof gpus_buf);
	gs_opt_begin(&it, argc, argv);
	while ((k = gs_opt_next(&gs_cmd_estimate, &it, &o, &val, &e)) > 0) {
		int m = gs_cli_row_apply(&r, &gs_cmd_estimate, k == 2 ? NULL : o, val, &e);
		if (m == 0)
			m = gs_cli_time_apply(&ct, &gs_cmd_estimate, k == 2 ? NULL : o, val, &e);
		if (m < 0)
			goto fail;
		if (m > 0)
			continue;
		switch (o->id) {
		case GS_OPT_HELP:
			gs_opt_usage(&gs_cmd_estimate, stdout);
			return 0;
		case GS_OPT_JSON:
			json = true;
			break;
		case GS_OPT_QUIET:
			verbose = false;
			quiet = true;
			break;
		case OPT_LONG_CONTEXT:
			long_ctx = true;
			break;
		case GS_OPT_VERBOSE:
			verbose = true;
			break;
		case OPT_GPU:
			only = val;
			break;
		case OPT_GPUS_DIR:
			gpus_dir = val;
			gpus_dir_given = true;
			break;
		case OPT_MEM_FRACTION: {
			char *end = NULL;
			double v = strtod(val, &end);
			if (end == val || *end != '\0' || !(v > 0) || v > 1) {
				gs_fail(&e, GS_EUSAGE, "estimate: --mem-fraction: expected a fraction of the GPU's "
				        "memory, above 0 and at most 1 (got \"%s\")", val);
				goto fail;
			}
			mem_frac = v;
			mem_frac_given = true;
			break;
		}
		}
	}
	if (k < 0)
		goto fail;
	if (gs_cli_row_check(&r, &e) != GS_OK)
		goto fail;
	if (mem_frac_given && r.s.method != GS_INFER) {
		gs_fail(&e, GS_EUSAGE, "estimate: --mem-fraction: sizes a serving engine's KV cache; only with "
		        "--method inference");
		goto fail;
	}
	if (gs_cli_row_arch(&r, &a, &e) != GS_OK)
		goto fail;
	gs_time_opts_stack(&ct.to, r.s.stack);
	if (gs_cli_row_context(&r, &a, long_ctx, quiet, &e) != GS_OK)
		goto fail;
	if (gs_estimate_run(&a, &r.s, &x, &e) != GS_OK)
		goto fail;
	if (gs_gpus_load(gpus_dir, &g, &ng, &e) != GS_OK) {
		if (gpus_dir_given || only != NULL || e.code != GS_ENOTFOUND)
			goto fail;
		memset(&e, 0, sizeof e); /* no GPU directory: no fits list */
		g = NULL;
		ng = 0;
	}
	if (gs_cli_time_price(&ct, g, ng, "estimate", &e) != GS_OK)
		goto fail;
	if (only != NULL && gs_gpus_select(g, &ng, only, gpus_dir, "estimate", &e) != GS_OK)
		goto fail;
	if (verbose)
		fprintf(stderr, "gpusizer: estimate: model %s; GPU classes %s (%zu); model cache %s\n",
		        r.resolved[0] ? r.resolved : "manual shape", ng ? gpus_dir : "none", ng, r.models_dir);
	const char *model = r.config_path ? r.config_path : r.model_id ? r.model_id : "manual";
	tm = gs_xcalloc(ng ? ng : 1, sizeof *tm);
	tok = gs_xcalloc(ng ? ng : 1, sizeof *tok);
	time_all(&a, &r.s, &x, g, ng, &ct.to, tm, tok);
	if (json) {
		print_json(stdout, &r, model, &a, &x, g, ng, &ct.to, mem_frac, tm, tok);
	} else {
		print_text(stdout, model, &a, &r.s, &x, g, ng);
		print_time_text(stdout, &r.s, &x, g, ng, &ct.to, mem_frac, tm, tok);
	}
	free(tm);
	free(tok);
	free(g);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		gs_fail(&e, GS_EIO, "estimate: cannot write the output");
		gs_report_error(&e);
		return gs_exit_code(GS_EIO);
	}
	return 0;
fail:
	free(tm);
	free(tok);
	free(g);
	gs_report_error(&e);
	return gs_exit_code(e.code);
}
