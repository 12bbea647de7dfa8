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

enum { OPT_GPU = GS_OPT_OWN, OPT_GPUS_DIR, OPT_MAX_GPUS, OPT_ALL, OPT_LONG_CONTEXT, OPT_RANK, OPT_USERS,
       OPT_NODE_GPUS };

static const gs_opt plan_opts[] = {
	{ "gpu", 0, "ID,...", 0, OPT_GPU, "only these GPU classes (ids as in gpusizer list gpus);\n"
	  "each gets its alternatives with fewer GPUs and the\n"
	  "remedy ladder when the settings do not fit one GPU" },
	{ "max-gpus", 0, "N", 0, OPT_MAX_GPUS, "the most GPUs of a class to search (64)" },
	{ "node-gpus", 0, "N", 0, OPT_NODE_GPUS, "GPUs a server: a count past one server rounds up\n"
	  "to whole servers (9 of 8: 16); 1 asks not to round\n"
	  "(default: 8 for data-centre classes, 1 for the\n"
	  "others, by the GPU file's segment)" },
	{ "all", 0, NULL, 0, OPT_ALL, "every class's alternatives and the ladder's every step" },
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
	"gpusizer plan MODEL [SETTINGS] [--gpu ID,...] [--max-gpus N] [--node-gpus N] [--all] [--rank R] [--json]",
	"Answer for every GPU class how to run the settings given: the first setup of the\n"
	"remedy ladder that fits (the settings as given, then gradient checkpointing,\n"
	"micro-batch 1 with accumulation, an 8-bit optimizer, a fused loss, 16-bit weights,\n"
	"offloaded checkpoints, CPU offload, and last a method change), each rung on top of\n"
	"the ones before and judged at its fewest GPUs over the sharded layouts (ddp, ZeRO,\n"
	"FSDP; inference: tensor parallel, pipeline); past one server the count rounds up to\n"
	"whole servers (--node-gpus). Each answer names the flags it adds to the question,\n"
	"its layout, GiB (2^30 bytes) per GPU and headroom (\"tight\" under 10%), and the\n"
	"time model's step there against the question's (not with CPU offload, which the\n"
	"time model leaves out); then the alternatives further down\n"
	"the ladder that need fewer GPUs. Then the largest micro-batch and longest context\n"
	"that fit, and, for classes named with --gpu, the ladder itself. Fits means the\n"
	"verdict fits or tight. --rank orders the classes by their answers.",
	plan_groups,
	"Exit status: 0 ok (also when nothing fits: the answer says so), 2 usage, 3 a bad\n"
	"config.json or GPU file, 10 offline and the model not cached, 16 a local file or\n"
	"directory missing (--config, --gpus-dir).\n",
};

/* The answers for one class. */
typedef struct cls_plan {
	const gs_gpu *g;
	int64_t node;                   /* GPUs a server, for rounding */
	gs_plan_fit count;              /* the question as given: its fewest GPUs (not rounded) */
	gs_plan_answer ans[GS_PLAN_ANSWERS_MAX]; /* [0] the answer, then the alternatives */
	size_t n_ans;                   /* 0: nothing runs up to --max-gpus */
	gs_plan_step ladder[GS_RUNG_MAX];
	size_t n_ladder;
	int64_t batch1, seq1;           /* largest at 1 GPU as given (0: none) */
	bool seq1_bound, batch1_bound;
	int64_t batchn, seqn;           /* at the answer */
	bool seqn_bound, batchn_bound;
	/* --users: replicas of the answer's layout serving them (serve_per 0: none can) */
	gs_settings serve_s;            /* a replica's layout */
	int64_t serve_per, serve_reps;  /* sequences a replica's pool holds; replicas */
	int64_t serve_gpus;             /* GPUs in all, whole servers */
	bool served;                    /* serve_t holds the time model at a replica's load */
	gs_time serve_t;
} cls_plan;

/* No --rank: the classes in their file order. */
#define RANK_NONE (-1)

/* The classes ranked by the one rule (gs_offers_rank) over their answers:
 * what runs before what does not, then --rank, then class order. */
static void rank_classes(cls_plan *c, size_t n, gs_plan_rank rank, bool infer)
{
	gs_offer *o = gs_xcalloc(n ? n : 1, sizeof *o);
	cls_plan *was = gs_xcalloc(n ? n : 1, sizeof *was);

	for (size_t i = 0; i < n; i++) {
		const gs_plan_answer *x = &c[i].ans[0];
		bool found = c[i].n_ans > 0;
		o[i] = (gs_offer){ found, i, c[i].g->usable_bytes, found ? x->fit.s.gpus : 0,
		                   found && x->fit.v == GS_TIGHT,
		                   gs_rank_key(rank, found && x->timed ? &x->t : NULL, infer,
		                               found ? x->fit.s.gpus : 0, c[i].g->price_usd_hour) };
		was[i] = c[i];
	}
	gs_offers_rank(rank, o, n);
	for (size_t i = 0; i < n; i++)
		c[i] = was[o[i].order];
	free(o);
	free(was);
}

/* --users N: replicas of the answer's layout, its count or a doubling of
 * it up to --max-gpus (tensor parallel over the larger counts), each
 * replica's KV pool holding serve_per sequences of seq + new tokens
 * (gs_serving_seqs), so N take ceil(N / serve_per) replicas; the GPUs in
 * all round up to whole servers, which run as many replicas as they hold,
 * the users shared among them. The layout with the fewest GPUs in all
 * wins (the larger replica on a tie: fewer replicas to run). */
static void plan_serving(const gs_arch *a, const gs_gpu *g, const gs_time_opts *to, int64_t max_gpus,
                         int64_t users, cls_plan *c)
{
	gs_time_opts o = *to;
	int64_t best = 0;

	for (int64_t k = c->ans[0].fit.s.gpus; k <= max_gpus; k *= 2) {
		gs_settings s = c->ans[0].fit.s;
		gs_estimate est;
		gs_error sub = { 0 };
		double pool;
		int64_t per, reps, all;

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
		all = gs_node_round(reps * k, c->node);
		if (best != 0 && all > best)
			continue;
		best = all;
		c->serve_s = s;
		c->serve_per = per;
		c->serve_reps = all / k;
		c->serve_gpus = all;
		o.concurrency = (users + c->serve_reps - 1) / c->serve_reps;
		c->served = gs_plan_untimed(&s) == NULL && gs_time_row(a, &s, &est, g, &o, &c->serve_t, &sub) == GS_OK;
	}
}

static void plan_class(const gs_arch *a, const gs_settings *s, const gs_gpu *g, int64_t max_gpus, int64_t node,
                       const gs_time_opts *to, int64_t users, cls_plan *c)
{
	gs_settings one = *s;
	gs_plan_fit f;

	memset(c, 0, sizeof *c);
	c->g = g;
	c->node = node > 0 ? node : gs_gpu_node_gpus(g);
	one.gpus = 1;
	one.tp = 1;
	one.sharding = GS_SH_DDP;
	gs_plan_count(a, s, g, max_gpus, &c->count);
	c->n_ladder = gs_plan_ladder(a, s, g, max_gpus, c->ladder);
	c->n_ans = gs_plan_answers(a, s, g, max_gpus, c->node, to, c->ladder, c->n_ladder, c->ans);
	c->batch1 = gs_plan_max(a, &one, g, GS_PLAN_BATCH, &c->batch1_bound, &f);
	c->seq1 = gs_plan_max(a, &one, g, GS_PLAN_SEQ, &c->seq1_bound, &f);
	if (c->n_ans > 0) {
		c->batchn = gs_plan_max(a, &c->ans[0].fit.s, g, GS_PLAN_BATCH, &c->batchn_bound, &f);
		c->seqn = gs_plan_max(a, &c->ans[0].fit.s, g, GS_PLAN_SEQ, &c->seqn_bound, &f);
		if (users > 0 && s->method == GS_INFER)
			plan_serving(a, g, to, max_gpus, users, c);
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

/* An answer's time as a time-field cell, and what its fields' texts and
 * nulls depend on (timefields.h). */
static gs_cell time_cell(const gs_plan_answer *x)
{
	gs_cell cell;

	memset(&cell, 0, sizeof cell);
	cell.timed = x->timed;
	cell.t = x->t;
	return cell;
}

static gs_time_ctx time_ctx(const cls_plan *c, const gs_settings *s, const gs_time_opts *to)
{
	gs_time_ctx x = { c->g->price_usd_hour, to->tokens_budget, s->new_tokens };
	return x;
}

/* A setting's flag with its value in s: "--grad-ckpt", "--no-fused-kernels",
 * "--optimizer adamw-8bit". */
static void flag_text(const gs_setting *d, const gs_settings *s, char *buf, size_t n)
{
	gs_setting_value v;

	gs_setting_get(d, s, &v);
	if (d->type == GS_ST_BOOL && d->values == NULL)
		snprintf(buf, n, "--%s%s", v.b ? "" : "no-", d->name);
	else
		snprintf(buf, n, "--%s %s", d->name, v.text);
}

/* What an answer adds to the question: its flags (or "as given"), and an
 * automatic k-bit preparation its layout leaves out. */
static void print_changes(FILE *fp, const gs_plan_answer *x)
{
	const gs_setting *d = gs_settings_table();
	char flag[GS_LORA_NAMES_MAX + 80];
	int k = 0;

	if (x->method_change)
		fputs("a different method: ", fp);
	for (size_t i = 0; i < gs_settings_count(); i++) {
		if (!(x->turned_on & gs_setting_bit(d[i].name)))
			continue;
		flag_text(&d[i], &x->fit.s, flag, sizeof flag);
		fprintf(fp, "%s%s", k++ ? " " : "turns on ", flag);
	}
	if (k == 0)
		fputs("as given", fp);
	k = 0;
	for (size_t i = 0; i < gs_settings_count(); i++) {
		if (!(x->by_stack & gs_setting_bit(d[i].name)))
			continue;
		flag_text(&d[i], &x->fit.s, flag, sizeof flag);
		fprintf(fp, "%s%s", k++ ? " " : " (its stack's then: ", flag);
	}
	if (k > 0)
		fputc(')', fp);
	if (x->kbit_by_layout)
		fprintf(fp, "; under %s no k-bit preparation (--kbit-prep auto runs it only under ddp or pipeline)",
		        gs_shard_name(x->fit.s.sharding));
}

/* One answer: its count and layout (whole servers said), memory and
 * headroom ("tight"), then what it turns on and the time model there. */
static void print_answer(FILE *fp, const char *id, const gs_settings *s, const cls_plan *c,
                         const gs_plan_answer *x, const gs_time_opts *to)
{
	char lay[64];
	gs_cell cell = time_cell(x);
	gs_time_ctx tx = time_ctx(c, s, to);

	layout_text(&x->fit.s, lay, sizeof lay);
	/* the headroom rounded down to 0.1%: never overstated, so a tight fit
	 * (under 10%) never reads "+10.0%" */
	fprintf(fp, "  %-18s %3" PRId64 " x %-18s %7.2f GiB  headroom %+6.1f%%%s", id, x->fit.s.gpus, lay,
	        gib(x->fit.est.device), floor(x->fit.headroom * 1000) / 10, x->fit.v == GS_TIGHT ? " tight" : "");
	if (x->fit.s.gpus > x->fewest)
		fprintf(fp, "  (%" PRId64 " servers of %" PRId64 "; %" PRId64 " would run it)",
		        x->fit.s.gpus / x->node, x->node, x->fewest);
	fputs("\n      ", fp);
	print_changes(fp, x);
	if (x->timed) {
		gs_time_texts(fp, GS_TT_PLAN, x->fit.s.method, &cell, &tx);
		if (isfinite(x->vs_question) && x->turned_on != 0)
			fprintf(fp, "; %.2fx the question's %s there", x->vs_question,
			        s->method == GS_INFER ? "decode step" : "step");
	} else if (gs_plan_untimed(&x->fit.s) != NULL) {
		fprintf(fp, "; not timed: %s", gs_plan_untimed(&x->fit.s));
	}
	fputc('\n', fp);
}

/* A class without an answer: why. */
static void print_none(FILE *fp, const gs_settings *s, const cls_plan *c, int64_t max_gpus)
{
	char why[256];

	gs_needs_why(gs_settings_needs(s), c->g, why, sizeof why);
	if (why[0] && c->ladder[c->n_ladder - 1].fit.v == GS_NOT_RUNNABLE)
		fprintf(fp, "  %-18s not runnable: %s\n", c->g->id, why);
	else
		fprintf(fp, "  %-18s none up to %" PRId64 ", whatever the rungs\n", c->g->id, max_gpus);
}

/* The answers of every class: the first; the alternatives where asked. */
static void print_answers(FILE *fp, const gs_settings *s, const cls_plan *c, size_t n, int64_t max_gpus,
                          bool alts, const gs_time_opts *to)
{
	for (size_t i = 0; i < n; i++) {
		if (c[i].n_ans == 0) {
			print_none(fp, s, &c[i], max_gpus);
			continue;
		}
		print_answer(fp, c[i].g->id, s, &c[i], &c[i].ans[0], to);
		for (size_t k = 1; k < c[i].n_ans && alts; k++)
			print_answer(fp, "  or", s, &c[i], &c[i].ans[k], to);
		if (c[i].n_ans > 1 && !alts)
			fprintf(fp, "      (%zu more with fewer GPUs: --gpu %s or --all)\n", c[i].n_ans - 1, c[i].g->id);
	}
}

/* --users: each class's replicas and the time at their load. */
static void print_serving(FILE *fp, const gs_settings *s, const cls_plan *c, size_t n, int64_t users,
                          const gs_time_opts *to)
{
	fprintf(fp, "\nserving %" PRId64 " concurrent users of %" PRId64 " tokens (runtime %s; replicas of the "
	        "answer's count or a doubling\nof it, the fewest GPUs in all, whole servers; each KV pool %.2f of "
	        "each GPU's memory as vLLM\nsizes it; time to first token, time per output token and output "
	        "tokens/s a replica at its share):\n%s",
	        users, s->seq + s->new_tokens, gs_runtime_name(to->runtime), GS_SERVE_MEM_FRACTION,
	        gs_cli_serve_note(s));
	for (size_t i = 0; i < n; i++) {
		const cls_plan *p = &c[i];
		if (p->n_ans == 0 || p->serve_per < 1) {
			fprintf(fp, "  %-18s none: %s\n", p->g->id,
			        p->n_ans > 0 ? "no room for one sequence's cache" : "no count fits");
			continue;
		}
		fprintf(fp, "  %-18s %4" PRId64 " x %" PRId64 " GPU%s = %5" PRId64 " GPUs  (%" PRId64 " sequences a replica)",
		        p->g->id, p->serve_reps, p->serve_s.gpus, p->serve_s.gpus > 1 ? "s" : " ", p->serve_gpus,
		        p->serve_per);
		if (p->served)
			gs_cli_print_serve(fp, &p->serve_t);
		fputc('\n', fp);
	}
}

/* The largest micro-batch and longest context on one GPU and at the answer. */
static void print_limits(FILE *fp, const cls_plan *c, size_t n)
{
	fputs("\nlargest micro-batch and longest context that fit, the other settings held\n"
	      "(0: not even 1 fits):\n", fp);
	fprintf(fp, "  %-18s %11s %11s   %12s %11s\n", "", "1 GPU batch", "context", "answer batch",
	        "context");
	for (size_t i = 0; i < n; i++) {
		fprintf(fp, "  %-18s %10" PRId64 "%s %10" PRId64 "%s", c[i].g->id, c[i].batch1,
		        c[i].batch1_bound ? "*" : " ", c[i].seq1, c[i].seq1_bound ? "*" : " ");
		if (c[i].n_ans > 0)
			fprintf(fp, "   %11" PRId64 "%s %10" PRId64 "%s\n", c[i].batchn, c[i].batchn_bound ? "*" : " ",
			        c[i].seqn, c[i].seqn_bound ? "*" : " ");
		else
			fprintf(fp, "   %12s %11s\n", "-", "-");
	}
	fputs("  (* = the limit: 65536 sequences, or the model's max_position_embeddings)\n", fp);
}

/* A class's ladder: each rung at its fewest count, kept or not. */
static void print_ladder(FILE *fp, const cls_plan *c, int64_t max_gpus, bool all)
{
	char label[256], lay[64];

	fprintf(fp, "\nremedy ladder on %s (%s, %.1f GiB usable), each rung on top of the ones kept, at its "
	        "fewest GPUs:\n", c->g->id, c->g->name, gib(c->g->usable_bytes));
	for (size_t k = 0; k < c->n_ladder; k++) {
		const gs_plan_step *st = &c->ladder[k];
		const gs_plan_fit *f = &st->fit;
		char why[256];
		fprintf(fp, "  %zu. %-62s ", k, st->what);
		if (st->skipped)
			fputs("skipped: no fewer GPUs\n", fp);
		else if (f->found)
			fprintf(fp, "%s at %" PRId64 "\n", gs_verdict_name(f->v), f->s.gpus);
		else if (f->est.device == 0)
			fputs("no estimate\n", fp);
		else if (f->v == GS_NOT_RUNNABLE)
			fprintf(fp, "not runnable\n     %s\n", gs_needs_why(gs_settings_needs(&f->s), c->g, why, sizeof why));
		else
			fprintf(fp, "none up to %" PRId64 "\n", max_gpus);
		if (!st->skipped && f->est.device > 0) {
			gs_settings_label(&f->s, label, sizeof label);
			layout_text(&f->s, lay, sizeof lay);
			fprintf(fp, "     %.2f GiB per GPU at %" PRId64 " x %s, %s%s%s\n", gib(f->est.device), f->s.gpus,
			        lay, label, st->cost[0] ? "; cost: " : "", st->cost);
			if (f->est.host > 0)
				fprintf(fp, "     host memory %.2f GiB\n", gib(f->est.host));
		}
		if (f->found && !all && k + 1 < c->n_ladder) {
			fprintf(fp, "  (%zu more rung%s: --all)\n", c->n_ladder - k - 1, c->n_ladder - k - 1 > 1 ? "s" : "");
			break;
		}
	}
}

static void print_text(FILE *fp, const char *model, const gs_settings *s, const cls_plan *c, size_t n,
                       int64_t max_gpus, int rank, int64_t users, bool named, bool all, const gs_time_opts *to)
{
	char label[256];

	gs_settings_label(s, label, sizeof label);
	fprintf(fp, "model      %s\nsettings   %s\n\n", model, label);
	fprintf(fp, "answers per class: the first setup of the remedy ladder that fits, at its fewest GPUs (up to "
	        "%" PRId64 ")\nover the sharded layouts, whole servers past one; device GiB per GPU", max_gpus);
	if (rank != RANK_NONE)
		fprintf(fp, ", ranked by %s", gs_plan_rank_name((gs_plan_rank)rank));
	if (s->method != GS_INFER) {
		fprintf(fp, ";\nwhat it turns on, and the time per optimizer step there (%s stack)",
		        gs_train_runtime_name(to->train_runtime));
		if (to->tokens_budget > 0) {
			fputs(" and for ", fp);
			gs_cli_print_count(fp, to->tokens_budget);
			fputs(" tokens", fp);
		}
	} else {
		fprintf(fp, ";\nwhat it turns on, and the time there (runtime %s)", gs_runtime_name(to->runtime));
	}
	fputs(":\n", fp);
	print_answers(fp, s, c, n, max_gpus, named || all, to);
	if (rank == GS_RANK_COST)
		fputs("  (cost ranks the classes with a price: --price ID=USD or price_usd_per_hour in a GPU file)\n", fp);
	if (users > 0)
		print_serving(fp, s, c, n, users, to);
	print_limits(fp, c, n);
	for (size_t i = 0; i < n; i++)
		if ((named || all) && !(c[i].count.found && c[i].count.s.gpus == 1))
			print_ladder(fp, &c[i], max_gpus, all);
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

/* A fit's members, without the braces: gpus, sharding, tp, label, bytes,
 * headroom, verdict and tight. */
static void json_fit_members(FILE *fp, const gs_plan_fit *f)
{
	char label[256];

	gs_settings_label(&f->s, label, sizeof label);
	fprintf(fp, "\"gpus\":%" PRId64 ",\"sharding\":", f->s.gpus);
	gs_json_str(fp, gs_shard_name(f->s.sharding));
	fprintf(fp, ",\"tp\":%" PRId64 ",\"label\":", f->s.tp);
	gs_json_str(fp, label);
	fprintf(fp, ",\"device_bytes\":%" PRIu64 ",\"host_bytes\":%" PRIu64 ",\"headroom\":%.4f,\"verdict\":",
	        f->est.device, f->est.host, f->headroom);
	gs_json_str(fp, gs_verdict_name(f->v));
	fprintf(fp, ",\"tight\":%s", f->v == GS_TIGHT ? "true" : "false");
}

static void json_fit_body(FILE *fp, const gs_plan_fit *f)
{
	fputc('{', fp);
	json_fit_members(fp, f);
	fputc('}', fp);
}

/* ",\"key\":v" (null when not finite, jw.h). */
static void jkey_num(FILE *fp, const char *key, double v, int digits)
{
	fprintf(fp, ",\"%s\":", key);
	gs_json_num(fp, v, digits);
}

/* The "time" member of an answer: the time model there, its price and
 * the time fields plan writes (timefields.h). */
static void json_time(FILE *fp, const gs_settings *s, const cls_plan *c, const gs_plan_answer *x,
                      const gs_time_opts *to)
{
	gs_cell cell;
	gs_time_ctx tx = time_ctx(c, s, to);

	fputs(",\"time\":", fp);
	if (x == NULL || !x->timed) {
		fputs("null", fp);
		return;
	}
	cell = time_cell(x);
	fputs("{\"price_usd_per_hour\":", fp);
	gs_json_num(fp, c->g->price_usd_hour > 0 ? c->g->price_usd_hour : NAN, 6);
	gs_time_fields_json(fp, GS_TF_PLAN, x->fit.s.method, &cell, &tx, ",", ":");
	fputc('}', fp);
}

/* A list of settings of bits, with their values in s:
 * [{"setting":"grad-ckpt","value":"true","flag":"--grad-ckpt"}, ...]. */
static void json_settings(FILE *fp, const char *key, uint64_t bits, const gs_settings *s)
{
	const gs_setting *d = gs_settings_table();
	char flag[GS_LORA_NAMES_MAX + 80];
	int k = 0;

	fprintf(fp, ",\"%s\":[", key);
	for (size_t i = 0; i < gs_settings_count(); i++) {
		gs_setting_value v;
		if (!(bits & gs_setting_bit(d[i].name)))
			continue;
		gs_setting_get(&d[i], s, &v);
		flag_text(&d[i], s, flag, sizeof flag);
		fputs(k++ ? ",{\"setting\":" : "{\"setting\":", fp);
		gs_json_str(fp, d[i].name);
		fputs(",\"value\":", fp);
		gs_json_str(fp, v.text);
		fputs(",\"flag\":", fp);
		gs_json_str(fp, flag);
		fputc('}', fp);
	}
	fputc(']', fp);
}

/* One answer: its fit, count before rounding, servers, rungs, what it
 * turns on, what its layout changes, the time there and its price. */
static void json_answer(FILE *fp, const gs_settings *s, const cls_plan *c, const gs_plan_answer *x,
                        const gs_time_opts *to)
{
	int k = 0;

	fputc('{', fp);
	json_fit_members(fp, &x->fit);
	fprintf(fp, ",\"fewest_gpus\":%" PRId64 ",\"node_gpus\":%" PRId64 ",\"servers\":", x->fewest, x->node);
	if (x->node > 1)
		fprintf(fp, "%" PRId64, (x->fit.s.gpus + x->node - 1) / x->node);
	else
		fputs("null", fp);
	fprintf(fp, ",\"method_change\":%s,\"rungs\":[", x->method_change ? "true" : "false");
	for (int r = GS_RUNG_START + 1; r < GS_RUNG_MAX; r++)
		if (x->rungs & (1u << r)) {
			fputs(k++ ? "," : "", fp);
			gs_json_str(fp, gs_plan_rung_name((gs_plan_rung)r));
		}
	fputc(']', fp);
	json_settings(fp, "turns_on", x->turned_on, &x->fit.s);
	json_settings(fp, "by_stack", x->by_stack, &x->fit.s);
	json_settings(fp, "by_layout", x->by_layout, &x->fit.s);
	fprintf(fp, ",\"kbit_prep_by_layout\":%s", x->kbit_by_layout ? "true" : "false");
	json_time(fp, s, c, x, to);
	fputs(",\"untimed\":", fp);
	if (gs_plan_untimed(&x->fit.s) != NULL)
		gs_json_str(fp, gs_plan_untimed(&x->fit.s));
	else
		fputs("null", fp);
	jkey_num(fp, "step_vs_question", x->vs_question, 6);
	fputc('}', fp);
}

/* The "serving" member of a class under --users (null where none serves). */
static void json_serving(FILE *fp, const cls_plan *c)
{
	fputs(",\"serving\":", fp);
	if (c->n_ans == 0 || c->serve_per < 1) {
		fputs("null", fp);
		return;
	}
	fprintf(fp, "{\"replica_gpus\":%" PRId64 ",\"replica_tp\":%" PRId64 ",\"sequences_per_replica\":%" PRId64
	        ",\"replicas\":%" PRId64 ",\"gpus\":%" PRId64, c->serve_s.gpus, c->serve_s.tp, c->serve_per, c->serve_reps,
	        c->serve_gpus);
	jkey_num(fp, "concurrency", c->served ? c->serve_t.concurrency : NAN, 6);
	jkey_num(fp, "ttft_s", c->served ? c->serve_t.ttft_s : NAN, 6);
	jkey_num(fp, "tpot_s", c->served && c->serve_t.tpot_s > 0 ? c->serve_t.tpot_s : NAN, 6);
	jkey_num(fp, "tokens_per_s", c->served && c->serve_t.tpot_s > 0 ? c->serve_t.serve_tok_s : NAN, 6);
	fputc('}', fp);
}

/* A class's "answer", "alternatives" and "time" (the answer's). */
static void json_answers(FILE *fp, const gs_settings *s, const cls_plan *c, const gs_time_opts *to)
{
	fputs(",\"answer\":", fp);
	if (c->n_ans == 0)
		fputs("null", fp);
	else
		json_answer(fp, s, c, &c->ans[0], to);
	fputs(",\"alternatives\":[", fp);
	for (size_t k = 1; k < c->n_ans; k++) {
		fputs(k > 1 ? "," : "", fp);
		json_answer(fp, s, c, &c->ans[k], to);
	}
	fputc(']', fp);
	json_time(fp, s, c, c->n_ans ? &c->ans[0] : NULL, to);
}

static void json_ladder(FILE *fp, const cls_plan *c)
{
	fputs(",\"ladder\":[", fp);
	for (size_t k = 0; k < c->n_ladder; k++) {
		const gs_plan_step *st = &c->ladder[k];
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
	fputc(']', fp);
}

static void json_limits(FILE *fp, const cls_plan *c)
{
	fprintf(fp, ",\"one_gpu\":{\"max_batch\":%" PRId64 ",\"batch_at_limit\":%s,\"max_seq\":%" PRId64
	        ",\"seq_at_limit\":%s}", c->batch1, c->batch1_bound ? "true" : "false", c->seq1,
	        c->seq1_bound ? "true" : "false");
	if (c->n_ans > 0)
		fprintf(fp, ",\"at_answer\":{\"max_batch\":%" PRId64 ",\"batch_at_limit\":%s,\"max_seq\":%" PRId64
		        ",\"seq_at_limit\":%s}", c->batchn, c->batchn_bound ? "true" : "false", c->seqn,
		        c->seqn_bound ? "true" : "false");
	else
		fputs(",\"at_answer\":null", fp);
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
	fprintf(fp, ",\"max_gpus\":%" PRId64 ",\"tight_headroom\":%.2f,\"classes\":[", max_gpus, GS_TIGHT_HEADROOM);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n {\"gpu\":" : "\n {\"gpu\":", fp);
		gs_json_str(fp, c[i].g->id);
		fprintf(fp, ",\"usable_bytes\":%" PRIu64 ",\"node_gpus\":%" PRId64, c[i].g->usable_bytes, c[i].node);
		json_answers(fp, s, &c[i], to);
		json_fit(fp, "fewest", &c[i].count);
		json_why(fp, s, c[i].g);
		if (users > 0)
			json_serving(fp, &c[i]);
		json_limits(fp, &c[i]);
		json_ladder(fp, &c[i]);
		fputc('}', fp);
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
	int64_t max_gpus = 64, users = 0, node = 0;
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
		case OPT_NODE_GPUS:
			if (!count_arg(val, 1024, &node)) {
				gs_opt_bad_value(&gs_cmd_plan, o, val, "a count of GPUs a server from 1 to 1024", &e);
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
	if (node > 1)
		ct.to.gpus_per_node = node; /* the time model's servers are the ones counted */
	gs_cli_row_ddp_print(&r, quiet);
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
		plan_class(&a, &r.s, &g[i], max_gpus, node, &ct.to, users, &c[i]);
	}
	if (rank != RANK_NONE)
		rank_classes(c, ng, (gs_plan_rank)rank, r.s.method == GS_INFER);
	const char *model = r.config_path ? r.config_path : r.model_id ? r.model_id : "manual";
	if (json)
		print_json(stdout, model, &r.s, c, ng, max_gpus, rank, users, &ct.to);
	else
		print_text(stdout, model, &r.s, c, ng, max_gpus, rank, users, only != NULL, all, &ct.to);
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
