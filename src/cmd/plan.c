/* gpusizer: `plan`: the buyer's questions answered by search over the
 * engine (core/search.h): the fewest GPUs per class, the largest micro-batch and
 * the longest context that fit, and the remedy ladder. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "plan_view.h"
#include "gpu_file.h"
#include "opt.h"
#include "paths.h"
#include "search.h"
#include "util.h"
#include "jw.h"

enum { OPT_GPU = GS_OPT_OWN, OPT_GPUS_DIR, OPT_MAX_GPUS, OPT_ALL, OPT_LONG_CONTEXT, OPT_RANK };

static const gs_opt plan_opts[] = {
	{ "gpu", 0, "ID,...", 0, OPT_GPU, "only these GPU classes (ids as in gpusizer list gpus);\n"
	  "each gets the remedy ladder when the settings do not fit it" },
	{ "max-gpus", 0, "N", 0, OPT_MAX_GPUS, "the most GPUs of a class to consider (64)" },
	{ "all", 0, NULL, 0, OPT_ALL, "the ladder's every step, not only up to the first that fits" },
	{ "rank", 0, "R", 0, OPT_RANK, "order the classes: fewest-gpus, least-memory (as a\n"
	  "report's spec), time (the fastest at its fewest count:\n"
	  "training tokens/s in all, inference a sequence's\n"
	  "decode step) or cost (the cheapest a token; unpriced\n"
	  "last); what fits first (by class, from the smallest)" },
	{ "json", 0, NULL, 0, GS_OPT_JSON, "one JSON document (gpusizer(1), PLAN)" },
	{ "gpus-dir", 0, "DIR", 0, OPT_GPUS_DIR, "GPU class files (default: the installed gpus/)" },
	{ "allow-long-context", 0, NULL, 0, OPT_LONG_CONTEXT, "start from a --seq past the model's\n"
	  "max_position_embeddings (a RoPE-scaled context), with a warning;\n"
	  "without it such a --seq is exit 2" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

static const gs_opt_group plan_groups[] = {
	{ "model (as for estimate)", gs_cli_model_opts, NULL },
	{ "settings: the starting point (as for estimate)", NULL, gs_cli_setting_opts },
	{ "plan", plan_opts, NULL },
	{ "time and cost", gs_cli_time_opts, NULL },
	{ "common", gs_opt_common, NULL },
	{ NULL, NULL, NULL },
};

const gs_opt_cmd gs_cmd_plan = {
	"plan",
	"gpusizer plan MODEL [SETTINGS] [--gpu ID,...] [--max-gpus N] [--all] [--rank R] [--json]",
	"Search instead of the user, from the settings given: for every GPU class the fewest\n"
	"GPUs that run them (and the sharding), the largest micro-batch and the longest\n"
	"context that fit on one GPU and at that count, and, for each class named with --gpu\n"
	"that they do not fit, the remedy ladder of the seed articles: micro-batch 1 with\n"
	"accumulation, 16-bit weights, gradient checkpointing, an 8-bit optimizer, QLoRA,\n"
	"sharding over more GPUs, CPU offload, each on top of the ones before. Fits means\n"
	"the verdict fits or tight. Memory in GiB (2^30 bytes) per GPU. Beside each fewest\n"
	"count, the time model's step time and throughput there (with --tokens, the\n"
	"budget's hours, GPU-hours and, priced, cost); --rank orders the classes by them.",
	plan_groups,
	"Exit status: 0 ok (also when nothing fits: the answer says so), 2 usage, 3 a bad\n"
	"config.json or GPU file, 10 offline and the model not cached.\n",
};

/* The answers for one class. */
typedef struct cls_plan {
	const gs_gpu *g;
	gs_plan_fit count;              /* the fewest GPUs */
	int64_t batch1, seq1;           /* largest at 1 GPU (0: none) */
	bool seq1_bound, batch1_bound;
	int64_t batchn, seqn;           /* at the smallest count */
	bool seqn_bound, batchn_bound;
	gs_plan_step ladder[GS_RUNG_MAX];
	size_t n_ladder;                /* 0: no ladder asked for, or it fits as given */
	bool timed;                     /* t holds the time model at the fewest count */
	gs_time t;
	size_t order;                   /* class order, for ties */
} cls_plan;

/* What --rank names: the report ranks, or time or cost. */
enum { RANK_NONE = -1, RANK_TIME = GS_RANK_MAX + 1, RANK_COST };

/* The time and cost keys of a class (lower first; HUGE_VAL: none). */
static double rank_key(const cls_plan *c, int rank, bool infer)
{
	if (!c->timed)
		return HUGE_VAL;
	double n = (double)c->count.s.gpus;
	if (rank == RANK_TIME)
		return infer ? c->t.decode_step_s : 1 / c->t.tok_s_total;
	if (!(c->g->price_usd_hour > 0))
		return HUGE_VAL;
	return infer ? c->t.usd_per_mtok : c->g->price_usd_hour * n / c->t.tok_s_total;
}

/* Whether class a ranks strictly before b: what fits before what does not,
 * then the rule, then class order. */
static bool ranks_before(const cls_plan *a, const cls_plan *b, int rank, bool infer)
{
	if (a->count.found != b->count.found)
		return a->count.found;
	if (a->count.found) {
		if (rank == RANK_TIME || rank == RANK_COST) {
			double ka = rank_key(a, rank, infer), kb = rank_key(b, rank, infer);
			if (ka != kb)
				return ka < kb;
		} else {
			bool ta = a->count.v == GS_TIGHT, tb = b->count.v == GS_TIGHT;
			if (gs_rank_before((gs_plan_rank)rank, ta, a->count.s.gpus, a->g->usable_bytes, tb,
			                   b->count.s.gpus, b->g->usable_bytes))
				return true;
			if (gs_rank_before((gs_plan_rank)rank, tb, b->count.s.gpus, b->g->usable_bytes, ta,
			                   a->count.s.gpus, a->g->usable_bytes))
				return false;
		}
	}
	return a->order < b->order;
}

/* Insertion sort (a few dozen classes), stable by construction. */
static void rank_classes(cls_plan *c, size_t n, int rank, bool infer)
{
	for (size_t i = 1; i < n; i++) {
		cls_plan x = c[i];
		size_t j = i;
		for (; j > 0 && ranks_before(&x, &c[j - 1], rank, infer); j--)
			c[j] = c[j - 1];
		c[j] = x;
	}
}

static const char *rank_name(int rank)
{
	return rank == RANK_TIME ? "time" : rank == RANK_COST ? "cost" : gs_plan_rank_name((gs_plan_rank)rank);
}

static void plan_class(const gs_arch *a, const gs_settings *s, const gs_gpu *g, int64_t max_gpus,
                       bool ladder, bool all, const gs_time_opts *to, cls_plan *c)
{
	gs_settings one = *s;
	gs_plan_fit f;

	memset(c, 0, sizeof *c);
	c->g = g;
	one.gpus = 1;
	one.tp = 1;
	one.sharding = GS_SH_DDP;
	gs_plan_count(a, s, g, max_gpus, &c->count);
	c->batch1 = gs_plan_max(a, &one, g, GS_PLAN_BATCH, &c->batch1_bound, &f);
	c->seq1 = gs_plan_max(a, &one, g, GS_PLAN_SEQ, &c->seq1_bound, &f);
	if (c->count.found) {
		c->batchn = gs_plan_max(a, &c->count.s, g, GS_PLAN_BATCH, &c->batchn_bound, &f);
		c->seqn = gs_plan_max(a, &c->count.s, g, GS_PLAN_SEQ, &c->seqn_bound, &f);
		gs_error sub = { 0 };
		c->timed = gs_time_row(a, &c->count.s, &c->count.est, g, to, &c->t, &sub) == GS_OK;
	}
	if (ladder) { /* none where the settings fit as given (the ladder's first step) */
		size_t n = gs_plan_ladder(a, s, g, max_gpus, all, c->ladder);
		c->n_ladder = c->ladder[0].fit.found ? 0 : n;
	}
}

static double gib(uint64_t b)
{
	return (double)b / GS_GIB;
}

static void layout_text(const gs_settings *s, char *buf, size_t n)
{
	if (s->gpus == 1)
		snprintf(buf, n, "1 GPU");
	else if (s->tp > 1)
		snprintf(buf, n, "tensor parallel %" PRId64, s->tp);
	else
		snprintf(buf, n, "%s", gs_shard_name(s->sharding));
}

/* The time model at a class's fewest count, after its memory. */
static void print_time(FILE *fp, const gs_settings *s, const cls_plan *c, const gs_time_opts *to)
{
	if (!c->timed)
		return;
	if (s->method == GS_INFER) {
		fputs("  prefill ", fp);
		gs_cli_print_secs(fp, c->t.prefill_s);
		fprintf(fp, ", decode %s%.1f tokens/s a sequence", c->t.tp_unmodelled ? "up to " : "",
		        c->t.decode_tok_s_seq);
		if (c->t.usd_per_mtok > 0) {
			fputs(", ", fp);
			gs_cli_print_usd(fp, c->t.usd_per_mtok);
			fputs(" per M tokens", fp);
		}
		return;
	}
	fputs("  step ", fp);
	gs_cli_print_secs(fp, c->t.step_s);
	fprintf(fp, ", %s%.0f tokens/s", c->t.tp_unmodelled ? "up to " : "", c->t.tok_s_total);
	if (to->tokens_budget > 0) {
		fputs(", budget in ", fp);
		gs_cli_print_secs(fp, c->t.budget_s);
		fprintf(fp, ", %.3g GPU-h", c->t.gpu_hours);
		if (c->t.cost_usd > 0) {
			fputs(" = ", fp);
			gs_cli_print_usd(fp, c->t.cost_usd);
		}
	}
}

static void print_text(FILE *fp, const char *model, const gs_settings *s, const cls_plan *c,
                       size_t n, int64_t max_gpus, int rank, const gs_time_opts *to)
{
	char label[256], lay[64];

	gs_settings_label(s, label, sizeof label);
	fprintf(fp, "model      %s\nsettings   %s\n\n", model, label);
	fprintf(fp, "fewest GPUs per class (up to %" PRId64 "), device GiB per GPU", max_gpus);
	if (rank != RANK_NONE)
		fprintf(fp, ", ranked by %s", rank_name(rank));
	if (s->method != GS_INFER) {
		fprintf(fp, ";\ntime per optimizer step there (%s stack)", gs_train_runtime_name(to->train_runtime));
		if (to->tokens_budget > 0) {
			fputs(" and for ", fp);
			gs_cli_print_count(fp, to->tokens_budget);
			fputs(" tokens", fp);
		}
	} else {
		fprintf(fp, ";\ntime there (runtime %s)", gs_runtime_name(to->runtime));
	}
	fputs(":\n", fp);
	for (size_t i = 0; i < n; i++) {
		char why[256];
		if (!c[i].count.found) {
			gs_needs_why(gs_settings_needs(s), c[i].g, why, sizeof why);
			if (why[0])
				fprintf(fp, "  %-18s not runnable: %s\n", c[i].g->id, why);
			else
				fprintf(fp, "  %-18s none up to %" PRId64 "\n", c[i].g->id, max_gpus);
			continue;
		}
		layout_text(&c[i].count.s, lay, sizeof lay);
		fprintf(fp, "  %-18s %3" PRId64 " x %-18s %7.2f GiB  headroom %+6.1f%%", c[i].g->id,
		        c[i].count.s.gpus, lay, gib(c[i].count.est.device), c[i].count.headroom * 100);
		print_time(fp, s, &c[i], to);
		fputc('\n', fp);
	}
	bool tp_note = false;
	for (size_t i = 0; i < n; i++)
		tp_note = tp_note || (c[i].timed && c[i].t.tp_unmodelled);
	if (tp_note)
		gs_cli_print_tp_note(fp);
	if (rank == RANK_COST)
		fputs("  (cost ranks the classes with a price: --price ID=USD or price_usd_per_hour in a GPU file)\n", fp);
	fputs("\nlargest micro-batch and longest context that fit, the other settings held\n"
	      "(0: not even 1 fits):\n", fp);
	fprintf(fp, "  %-18s %11s %11s   %11s %11s\n", "", "1 GPU batch", "context", "fewest batch",
	        "context");
	for (size_t i = 0; i < n; i++) {
		fprintf(fp, "  %-18s %10" PRId64 "%s %10" PRId64 "%s", c[i].g->id, c[i].batch1,
		        c[i].batch1_bound ? "*" : " ", c[i].seq1, c[i].seq1_bound ? "*" : " ");
		if (c[i].count.found)
			fprintf(fp, "   %10" PRId64 "%s %10" PRId64 "%s\n", c[i].batchn, c[i].batchn_bound ? "*" : " ",
			        c[i].seqn, c[i].seqn_bound ? "*" : " ");
		else
			fprintf(fp, "   %11s %11s\n", "-", "-");
	}
	fputs("  (* = the limit: 65536 sequences, or the model's max_position_embeddings)\n", fp);
	for (size_t i = 0; i < n; i++) {
		if (c[i].n_ladder == 0)
			continue;
		fprintf(fp, "\nremedy ladder on %s (%s, %.1f GiB usable), each step on top of the ones before:\n",
		        c[i].g->id, c[i].g->name, gib(c[i].g->usable_bytes));
		for (size_t k = 0; k < c[i].n_ladder; k++) {
			const gs_plan_step *st = &c[i].ladder[k];
			char why[256];
			gs_settings_label(&st->fit.s, label, sizeof label);
			fprintf(fp, "  %zu. %-62s %s\n", k, st->what,
			        st->skipped ? (st->rung == GS_RUNG_SHARD ? "skipped: no count fits"
			                                                 : "skipped: does not lower the peak")
			        : st->fit.est.device == 0 ? "no estimate" : gs_verdict_name(st->fit.v));
			if (!st->skipped && st->fit.est.device > 0 && st->fit.v == GS_NOT_RUNNABLE)
				fprintf(fp, "     %s\n", gs_needs_why(gs_settings_needs(&st->fit.s), c[i].g, why, sizeof why));
			if (!st->skipped)
				fprintf(fp, "     %.2f GiB per GPU, %s%s%s\n", gib(st->fit.est.device), label,
				        st->cost[0] ? "; cost: " : "", st->cost);
			if (!st->skipped && st->fit.est.host > 0)
				fprintf(fp, "     host memory %.2f GiB\n", gib(st->fit.est.host));
		}
	}
}

static void json_fit_body(FILE *fp, const gs_plan_fit *f);

static void json_fit(FILE *fp, const char *key, const gs_plan_fit *f)
{
	fprintf(fp, ",\"%s\":", key);
	if (!f->found) {
		fputs("null", fp);
		return;
	}
	json_fit_body(fp, f);
}

/* A class where nothing runs says why ("needs bf16 (...)"): null when it can run. */
static void json_why(FILE *fp, const gs_settings *s, const gs_gpu *g)
{
	char why[256];

	fputs(",\"not_runnable\":", fp);
	gs_needs_why(gs_settings_needs(s), g, why, sizeof why);
	if (why[0])
		gs_json_str(fp, why);
	else
		fputs("null", fp);
}

static void json_fit_body(FILE *fp, const gs_plan_fit *f)
{
	char label[256];

	gs_settings_label(&f->s, label, sizeof label);
	fprintf(fp, "{\"gpus\":%" PRId64 ",\"sharding\":", f->s.gpus);
	gs_json_str(fp, gs_shard_name(f->s.sharding));
	fprintf(fp, ",\"tp\":%" PRId64 ",\"label\":", f->s.tp);
	gs_json_str(fp, label);
	fprintf(fp, ",\"device_bytes\":%" PRIu64 ",\"host_bytes\":%" PRIu64 ",\"headroom\":%.4f,\"verdict\":",
	        f->est.device, f->est.host, f->headroom);
	gs_json_str(fp, gs_verdict_name(f->v));
	fputc('}', fp);
}

/* The "time" member of a class: the time model at its fewest count. */
static void json_time(FILE *fp, const gs_settings *s, const cls_plan *c, const gs_time_opts *to)
{
	const gs_time *t = &c->t;
	bool priced = c->g->price_usd_hour > 0;

	fputs(",\"time\":", fp);
	if (!c->timed) {
		fputs("null", fp);
		return;
	}
	if (priced)
		fprintf(fp, "{\"price_usd_per_hour\":%.6g", c->g->price_usd_hour);
	else
		fputs("{\"price_usd_per_hour\":null", fp);
	fprintf(fp, ",\"tp_comm_modelled\":%s", t->tp_unmodelled ? "false" : "true");
	if (s->method == GS_INFER) {
		fprintf(fp, ",\"prefill_s\":%.6g,\"decode_step_s\":%.6g,\"decode_tokens_per_s_seq\":%.6g,"
		        "\"decode_tokens_per_s_total\":%.6g", t->prefill_s, t->decode_step_s, t->decode_tok_s_seq,
		        t->decode_tok_s_total);
		if (priced)
			fprintf(fp, ",\"usd_per_million_tokens\":%.6g}", t->usd_per_mtok);
		else
			fputs(",\"usd_per_million_tokens\":null}", fp);
		return;
	}
	fprintf(fp, ",\"step_s\":%.6g,\"tokens_per_s_total\":%.6g,\"mfu\":%.4g,\"budget_s\":%.6g,\"gpu_hours\":%.6g",
	        t->step_s, t->tok_s_total, t->mfu, t->budget_s, t->gpu_hours);
	if (priced && to->tokens_budget > 0)
		fprintf(fp, ",\"cost_usd\":%.6g}", t->cost_usd);
	else
		fputs(",\"cost_usd\":null}", fp);
}

static void print_json(FILE *fp, const char *model, const gs_settings *s, const cls_plan *c,
                       size_t n, int64_t max_gpus, int rank, const gs_time_opts *to)
{
	char label[256];

	gs_settings_label(s, label, sizeof label);
	fputs("{\"command\":\"plan\",\"model\":", fp);
	gs_json_str(fp, model);
	fputs(",\"label\":", fp);
	gs_json_str(fp, label);
	fputs(",\"rank\":", fp);
	if (rank == RANK_NONE)
		fputs("null", fp);
	else
		gs_json_str(fp, rank_name(rank));
	fprintf(fp, ",\"runtime\":\"%s\",\"train_runtime\":\"%s\",\"tokens_budget\":%.17g",
	        gs_runtime_name(to->runtime), gs_train_runtime_name(to->train_runtime), to->tokens_budget);
	fprintf(fp, ",\"max_gpus\":%" PRId64 ",\"classes\":[", max_gpus);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n {\"gpu\":" : "\n {\"gpu\":", fp);
		gs_json_str(fp, c[i].g->id);
		fprintf(fp, ",\"usable_bytes\":%" PRIu64, c[i].g->usable_bytes);
		json_fit(fp, "fewest", &c[i].count);
		json_why(fp, s, c[i].g);
		json_time(fp, s, &c[i], to);
		fprintf(fp, ",\"one_gpu\":{\"max_batch\":%" PRId64 ",\"batch_at_limit\":%s,\"max_seq\":%" PRId64
		        ",\"seq_at_limit\":%s}", c[i].batch1, c[i].batch1_bound ? "true" : "false", c[i].seq1,
		        c[i].seq1_bound ? "true" : "false");
		if (c[i].count.found)
			fprintf(fp, ",\"at_fewest\":{\"max_batch\":%" PRId64 ",\"batch_at_limit\":%s,\"max_seq\":%" PRId64
			        ",\"seq_at_limit\":%s}", c[i].batchn, c[i].batchn_bound ? "true" : "false", c[i].seqn,
			        c[i].seqn_bound ? "true" : "false");
		else
			fputs(",\"at_fewest\":null", fp);
		fputs(",\"ladder\":[", fp);
		for (size_t k = 0; k < c[i].n_ladder; k++) {
			const gs_plan_step *st = &c[i].ladder[k];
			fputs(k ? ",{\"step\":" : "{\"step\":", fp);
			gs_json_str(fp, gs_plan_rung_name(st->rung));
			fputs(",\"what\":", fp);
			gs_json_str(fp, st->what);
			fputs(",\"cost\":", fp);
			gs_json_str(fp, st->cost);
			fprintf(fp, ",\"applied\":%s", st->applied ? "true" : "false");
			json_fit(fp, "fits", &st->fit);
			fprintf(fp, ",\"device_bytes\":%" PRIu64 "}", st->fit.est.device);
		}
		fputs("]}", fp);
	}
	fputs(n ? "\n]}\n" : "]}\n", fp);
}

int cmd_plan(int argc, char **argv)
{
	gs_cli_row r;
	gs_error e = { 0 };
	gs_arch a;
	gs_gpu *g = NULL;
	cls_plan *c = NULL;
	size_t ng = 0;
	bool json = false, all = false, quiet = false, long_ctx = false;
	int64_t max_gpus = 64;
	int rank = RANK_NONE;
	gs_cli_time ct;
	char gpus_buf[4096];
	const char *gpus_dir = gpus_buf, *only = NULL, *val;
	gs_opt_iter it;
	const gs_opt *o;
	int k;

	gs_cli_row_init(&r);
	gs_cli_time_init(&ct);
	gs_data_path(GS_DATA_GPUS, gpus_buf, sizeof gpus_buf);
	gs_opt_begin(&it, argc, argv);
	while ((k = gs_opt_next(&gs_cmd_plan, &it, &o, &val, &e)) > 0) {
		int m = gs_cli_row_apply(&r, &gs_cmd_plan, k == 2 ? NULL : o, val, &e);
		if (m == 0)
			m = gs_cli_time_apply(&ct, &gs_cmd_plan, k == 2 ? NULL : o, val, &e);
		if (m < 0)
			goto fail;
		if (m > 0)
			continue;
		switch (o->id) {
		case GS_OPT_HELP: gs_opt_usage(&gs_cmd_plan, stdout); return 0;
		case GS_OPT_JSON: json = true; break;
		case OPT_GPU: only = val; break;
		case OPT_GPUS_DIR: gpus_dir = val; break;
		case OPT_ALL: all = true; break;
		case GS_OPT_QUIET: quiet = true; break;
		case OPT_LONG_CONTEXT: long_ctx = true; break;
		case OPT_RANK:
			rank = strcmp(val, "time") == 0 ? RANK_TIME : strcmp(val, "cost") == 0 ? RANK_COST
			       : (int)gs_plan_rank_parse(val);
			if (rank == (int)GS_RANK_MAX) {
				gs_opt_bad_value(&gs_cmd_plan, o, val, "fewest-gpus, least-memory, time or cost", &e);
				goto fail;
			}
			break;
		case OPT_MAX_GPUS: {
			char *end = NULL;
			long long x = strtoll(val, &end, 10);
			if (*val == '\0' || *end != '\0' || x < 1 || x > 1024) {
				gs_opt_bad_value(&gs_cmd_plan, o, val, "a count from 1 to 1024", &e);
				goto fail;
			}
			max_gpus = x;
			break;
		}
		}
	}
	if (k < 0 || gs_cli_row_check(&r, &e) != GS_OK || gs_cli_row_arch(&r, &a, &e) != GS_OK ||
	    gs_cli_row_context(&r, &a, long_ctx, quiet, &e) != GS_OK ||
	    gs_gpus_load(gpus_dir, &g, &ng, &e) != GS_OK || gs_cli_time_price(&ct, g, ng, "plan", &e) != GS_OK ||
	    (only != NULL && gs_gpus_select(g, &ng, only, gpus_dir, "plan", &e) != GS_OK))
		goto fail;
	gs_time_opts_stack(&ct.to, r.s.stack);
	if (rank == RANK_COST) {
		bool priced = false;
		for (size_t i = 0; i < ng; i++)
			priced = priced || g[i].price_usd_hour > 0;
		if (!priced) {
			gs_fail(&e, GS_EUSAGE, "plan: --rank cost: no class has a price (--price ID=USD, or "
			        "price_usd_per_hour in its GPU file)");
			goto fail;
		}
	}
	c = gs_xcalloc(ng ? ng : 1, sizeof *c);
	for (size_t i = 0; i < ng; i++) {
		plan_class(&a, &r.s, &g[i], max_gpus, only != NULL, all, &ct.to, &c[i]);
		c[i].order = i;
	}
	if (rank != RANK_NONE)
		rank_classes(c, ng, rank, r.s.method == GS_INFER);
	const char *model = r.config_path ? r.config_path : r.model_id ? r.model_id : "manual";
	if (json)
		print_json(stdout, model, &r.s, c, ng, max_gpus, rank, &ct.to);
	else
		print_text(stdout, model, &r.s, c, ng, max_gpus, rank, &ct.to);
	free(c);
	free(g);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		gs_fail(&e, GS_EIO, "plan: cannot write the output");
		gs_report_error(&e);
		return gs_exit_code(GS_EIO);
	}
	return 0;
fail:
	free(c);
	free(g);
	gs_report_error(&e);
	return gs_exit_code(e.code);
}
