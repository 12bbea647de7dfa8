/* gpusizer: `plan`: the buyer's questions answered by search over the
 * engine (core/search.h): the fewest GPUs per class, the largest micro-batch and
 * the longest context that fit, and the remedy ladder. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "numfmt.h"
#include "cmd.h"
#include "constants.h"
#include "plan_view.h"
#include "gpu_file.h"
#include "opt.h"
#include "paths.h"
#include "search.h"
#include "timefields.h"
#include "util.h"
#include "jw.h"

enum { OPT_GPU = GS_OPT_OWN, OPT_GPUS_DIR, OPT_MAX_GPUS, OPT_ALL, OPT_LONG_CONTEXT, OPT_RANK, OPT_USERS };

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
	{ "users", 0, "N", 0, OPT_USERS, "inference: serve N concurrent users of --seq +\n"
	  "--new-tokens tokens: per class, the replicas of its\n"
	  "fewest count (or a doubling of it: the fewest\n"
	  "GPUs in all) whose KV pools (0.9 of each GPU, as\n"
	  "vLLM sizes them) hold them all, and the time to\n"
	  "first token, time per output token and tokens/s\n"
	  "at that load (the time model's runtime)" },
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
	/* --users: replicas of a layout serving them (serve_per 0: none can) */
	gs_settings serve_s;            /* a replica's layout */
	int64_t serve_per, serve_reps;  /* sequences a replica's pool holds; replicas */
	bool served;                    /* serve_t holds the time model at a replica's load */
	gs_time serve_t;
} cls_plan;

/* No --rank: the classes in their file order. */
#define RANK_NONE (-1)

/* The classes ranked by the one rule (gs_offers_rank): what fits before
 * what does not, then --rank, then class order. */
static void rank_classes(cls_plan *c, size_t n, gs_plan_rank rank, bool infer)
{
	gs_offer *o = gs_xcalloc(n ? n : 1, sizeof *o);
	cls_plan *was = gs_xcalloc(n ? n : 1, sizeof *was);

	for (size_t i = 0; i < n; i++) {
		o[i] = (gs_offer){ c[i].count.found, i, c[i].g->usable_bytes, c[i].count.s.gpus,
		                   c[i].count.v == GS_TIGHT,
		                   gs_rank_key(rank, c[i].timed ? &c[i].t : NULL, infer, c[i].count.s.gpus,
		                               c[i].g->price_usd_hour) };
		was[i] = c[i];
	}
	gs_offers_rank(rank, o, n);
	for (size_t i = 0; i < n; i++)
		c[i] = was[o[i].order];
	free(o);
	free(was);
}

/* --users N: replicas of one layout, the fewest count or a doubling of it
 * up to --max-gpus (tensor parallel over the larger counts), each replica's
 * KV pool holding serve_per sequences of seq + new tokens (gs_serving_seqs),
 * so N take ceil(N / serve_per) replicas, each serving its share at once.
 * The layout with the fewest GPUs in all wins (the larger replica on a tie:
 * fewer replicas to run). */
static void plan_serving(const gs_arch *a, const gs_gpu *g, const gs_time_opts *to, int64_t max_gpus,
                         int64_t users, cls_plan *c)
{
	gs_time_opts o = *to;
	int64_t best = 0;

	for (int64_t k = c->count.s.gpus; k <= max_gpus; k *= 2) {
		gs_settings s = c->count.s;
		gs_estimate est;
		gs_error sub = { 0 };
		double pool;
		int64_t per, reps;

		s.gpus = k;
		if (s.sharding != GS_SH_PIPELINE)
			s.tp = k;
		if (gs_estimate_run(a, &s, &est, &sub) != GS_OK)
			continue;
		per = gs_serving_seqs(&est, gs_settings_needs(&s), g, GS_SERVE_MEM_FRACTION, s.seq + s.new_tokens,
		                      GS_SERVE_BLOCK_TOKENS, &pool);
		if (per < 1)
			continue;
		reps = (users + per - 1) / per;
		if (best != 0 && reps * k > best)
			continue;
		best = reps * k;
		c->serve_s = s;
		c->serve_per = per;
		c->serve_reps = reps;
		o.concurrency = (users + reps - 1) / reps;
		c->served = gs_time_row(a, &s, &est, g, &o, &c->serve_t, &sub) == GS_OK;
	}
}

static void plan_class(const gs_arch *a, const gs_settings *s, const gs_gpu *g, int64_t max_gpus,
                       bool ladder, bool all, const gs_time_opts *to, int64_t users, cls_plan *c)
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
		if (users > 0 && s->method == GS_INFER)
			plan_serving(a, g, to, max_gpus, users, c);
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

/* A class's time at its fewest count as a time-field cell, and what its
 * fields' texts and nulls depend on (timefields.h). */
static gs_cell time_cell(const cls_plan *c)
{
	gs_cell x;

	memset(&x, 0, sizeof x);
	x.timed = c->timed;
	x.t = c->t;
	return x;
}

static gs_time_ctx time_ctx(const cls_plan *c, const gs_settings *s, const gs_time_opts *to)
{
	gs_time_ctx x = { c->g->price_usd_hour, to->tokens_budget, s->new_tokens };
	return x;
}

/* The time model at a class's fewest count, after its memory: the time
 * fields' plan texts. */
static void print_time(FILE *fp, const gs_settings *s, const cls_plan *c, const gs_time_opts *to)
{
	gs_cell x = time_cell(c);
	gs_time_ctx tx = time_ctx(c, s, to);

	if (c->timed)
		gs_time_texts(fp, GS_TT_PLAN, s->method, &x, &tx);
}

/* --users: each class's replicas and the time at their load. */
static void print_serving(FILE *fp, const gs_settings *s, const cls_plan *c, size_t n, int64_t users,
                          const gs_time_opts *to)
{
	fprintf(fp, "\nserving %" PRId64 " concurrent users of %" PRId64 " tokens (runtime %s; replicas of the "
	        "fewest count or a doubling\nof it, the fewest GPUs in all; each KV pool %.2f of each GPU's memory "
	        "as vLLM sizes it; time to\nfirst token, time per output token and output tokens/s a replica at its "
	        "share of the users):\n",
	        users, s->seq + s->new_tokens, gs_runtime_name(to->runtime), GS_SERVE_MEM_FRACTION);
	for (size_t i = 0; i < n; i++) {
		const cls_plan *p = &c[i];
		if (!p->count.found || p->serve_per < 1) {
			fprintf(fp, "  %-18s none: %s\n", p->g->id,
			        p->count.found ? "no room for one sequence's cache" : "no count fits");
			continue;
		}
		fprintf(fp, "  %-18s %4" PRId64 " x %" PRId64 " GPU%s = %5" PRId64 " GPUs  (%" PRId64 " sequences a replica)",
		        p->g->id, p->serve_reps, p->serve_s.gpus, p->serve_s.gpus > 1 ? "s" : " ",
		        p->serve_reps * p->serve_s.gpus, p->serve_per);
		if (p->served) {
			fputs("  TTFT ", fp);
			gs_cli_print_secs(fp, p->serve_t.ttft_s);
			fputs("  TPOT ", fp);
			gs_cli_print_secs(fp, p->serve_t.tpot_s);
			fprintf(fp, "  %.0f tokens/s", p->serve_t.serve_tok_s);
		}
		fputc('\n', fp);
	}
}

static void print_text(FILE *fp, const char *model, const gs_settings *s, const cls_plan *c,
                       size_t n, int64_t max_gpus, int rank, int64_t users, const gs_time_opts *to)
{
	char label[256], lay[64];

	gs_settings_label(s, label, sizeof label);
	fprintf(fp, "model      %s\nsettings   %s\n\n", model, label);
	fprintf(fp, "fewest GPUs per class (up to %" PRId64 "), device GiB per GPU", max_gpus);
	if (rank != RANK_NONE)
		fprintf(fp, ", ranked by %s", gs_plan_rank_name((gs_plan_rank)rank));
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
	if (rank == GS_RANK_COST)
		fputs("  (cost ranks the classes with a price: --price ID=USD or price_usd_per_hour in a GPU file)\n", fp);
	if (users > 0)
		print_serving(fp, s, c, n, users, to);
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

/* ",\"key\":v" (null when not finite, jw.h). */
static void jkey_num(FILE *fp, const char *key, double v, int digits)
{
	fprintf(fp, ",\"%s\":", key);
	gs_json_num(fp, v, digits);
}

/* The "time" member of a class: the time model at its fewest count, its
 * price and the time fields plan writes (timefields.h). */
static void json_time(FILE *fp, const gs_settings *s, const cls_plan *c, const gs_time_opts *to)
{
	gs_cell x = time_cell(c);
	gs_time_ctx tx = time_ctx(c, s, to);

	fputs(",\"time\":", fp);
	if (!c->timed) {
		fputs("null", fp);
		return;
	}
	fputs("{\"price_usd_per_hour\":", fp);
	gs_json_num(fp, c->g->price_usd_hour > 0 ? c->g->price_usd_hour : NAN, 6);
	gs_time_fields_json(fp, GS_TF_PLAN, s->method, &x, &tx, ",", ":");
	fputc('}', fp);
}

/* The "serving" member of a class under --users (null where none serves). */
static void json_serving(FILE *fp, const cls_plan *c)
{
	fputs(",\"serving\":", fp);
	if (!c->count.found || c->serve_per < 1) {
		fputs("null", fp);
		return;
	}
	fprintf(fp, "{\"replica_gpus\":%" PRId64 ",\"replica_tp\":%" PRId64 ",\"sequences_per_replica\":%" PRId64
	        ",\"replicas\":%" PRId64 ",\"gpus\":%" PRId64, c->serve_s.gpus, c->serve_s.tp, c->serve_per, c->serve_reps,
	        c->serve_reps * c->serve_s.gpus);
	jkey_num(fp, "concurrency", c->served ? c->serve_t.concurrency : NAN, 6);
	jkey_num(fp, "ttft_s", c->served ? c->serve_t.ttft_s : NAN, 6);
	jkey_num(fp, "tpot_s", c->served ? c->serve_t.tpot_s : NAN, 6);
	jkey_num(fp, "tokens_per_s", c->served ? c->serve_t.serve_tok_s : NAN, 6);
	fputc('}', fp);
}

static void print_json(FILE *fp, const char *model, const gs_settings *s, const cls_plan *c,
                       size_t n, int64_t max_gpus, int rank, int64_t users, const gs_time_opts *to)
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
		gs_json_str(fp, gs_plan_rank_name((gs_plan_rank)rank));
	fprintf(fp, ",\"runtime\":\"%s\",\"train_runtime\":\"%s\"", gs_runtime_name(to->runtime),
	        gs_train_runtime_name(to->train_runtime));
	jkey_num(fp, "tokens_budget", to->tokens_budget, 17);
	fprintf(fp, ",\"max_gpus\":%" PRId64 ",\"classes\":[", max_gpus);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n {\"gpu\":" : "\n {\"gpu\":", fp);
		gs_json_str(fp, c[i].g->id);
		fprintf(fp, ",\"usable_bytes\":%" PRIu64, c[i].g->usable_bytes);
		json_fit(fp, "fewest", &c[i].count);
		json_why(fp, s, c[i].g);
		json_time(fp, s, &c[i], to);
		if (users > 0)
			json_serving(fp, &c[i]);
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

/* A count from 1 to hi, the whole of val; false otherwise. */
static bool count_arg(const char *val, long long hi, int64_t *out)
{
	int64_t x = 0;

	if (!gs_parse_i64(val, SIZE_MAX, &x) || x < 1 || x > hi)
		return false;
	*out = x;
	return true;
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
	int64_t max_gpus = 64, users = 0;
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
			rank = (int)gs_plan_rank_parse(val);
			if (rank == (int)GS_RANK_MAX) {
				gs_opt_bad_value(&gs_cmd_plan, o, val, "fewest-gpus, least-memory, time or cost", &e);
				goto fail;
			}
			break;
		case OPT_MAX_GPUS:
			if (!count_arg(val, 1024, &max_gpus)) {
				gs_opt_bad_value(&gs_cmd_plan, o, val, "a count from 1 to 1024", &e);
				goto fail;
			}
			break;
		case OPT_USERS:
			if (!count_arg(val, 100000000, &users)) {
				gs_opt_bad_value(&gs_cmd_plan, o, val, "a count of users from 1 to 100000000", &e);
				goto fail;
			}
			break;
		}
	}
	if (k < 0 || gs_cli_row_check(&r, &e) != GS_OK || gs_cli_row_arch(&r, &a, &e) != GS_OK ||
	    gs_cli_row_context(&r, &a, long_ctx, quiet, &e) != GS_OK ||
	    gs_gpus_load(gpus_dir, &g, &ng, &e) != GS_OK || gs_cli_time_price(&ct, g, ng, "plan", &e) != GS_OK ||
	    (only != NULL && gs_gpus_select(g, &ng, only, gpus_dir, "plan", &e) != GS_OK))
		goto fail;
	gs_time_opts_stack(&ct.to, r.s.stack);
	if (users > 0 && r.s.method != GS_INFER) {
		gs_fail(&e, GS_EUSAGE, "plan: --users: serving users is inference (--method inference)");
		goto fail;
	}
	if (rank == GS_RANK_COST) {
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
		plan_class(&a, &r.s, &g[i], max_gpus, only != NULL, all, &ct.to, users, &c[i]);
	}
	if (rank != RANK_NONE)
		rank_classes(c, ng, (gs_plan_rank)rank, r.s.method == GS_INFER);
	const char *model = r.config_path ? r.config_path : r.model_id ? r.model_id : "manual";
	if (json)
		print_json(stdout, model, &r.s, c, ng, max_gpus, rank, users, &ct.to);
	else
		print_text(stdout, model, &r.s, c, ng, max_gpus, rank, users, &ct.to);
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
