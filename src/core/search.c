/* gpusizer: planning searches over the engine (see search.h). */
#include "search.h"

#include <math.h>
#include <string.h>

#include "stacks.h"

#define PLAN_MAX_BATCH 65536
#define PLAN_MAX_SEQ (16LL * 1024 * 1024) /* the seq setting's own limit */

bool gs_plan_try(const gs_arch *a, const gs_settings *s, const gs_gpu *g, gs_plan_fit *f)
{
	gs_error e = { 0 };

	memset(f, 0, sizeof *f);
	f->s = *s;
	if (gs_settings_check(s, &e) != GS_OK || gs_estimate_run(a, s, &f->est, &e) != GS_OK)
		return false;
	f->v = gs_verdict_of(f->est.device, gs_settings_needs(s), g, &f->headroom);
	f->found = f->v == GS_FITS || f->v == GS_TIGHT;
	return f->found;
}

/* t with the settings named (gs_setting_bit's) now given, and its stack's
 * choices redone over the change (a ZeRO layout's buckets, Unsloth's
 * offload at 512 tokens); an error leaves t as it was. */
static void given(const gs_arch *a, gs_settings *t, uint64_t bits)
{
	gs_settings u = *t;
	gs_error e = { 0 };

	u.given |= bits;
	if (gs_stack_reapply(&u, a, &e) == GS_OK)
		*t = u;
	else
		t->given |= bits;
}

static uint64_t layout_bits(void)
{
	static _Thread_local uint64_t bits;

	if (bits == 0)
		bits = gs_setting_bit("gpus") | gs_setting_bit("sharding") | gs_setting_bit("tp") | gs_setting_bit("pp") |
		       gs_setting_bit("ep");
	return bits;
}

/* The layouts tried at n GPUs, in order of preference (least traffic and
 * fewest framework changes first). */
static size_t raw_layouts(const gs_settings *s, int64_t n, gs_settings *out);

static size_t layouts(const gs_arch *a, const gs_settings *s, int64_t n, gs_settings *out)
{
	size_t k = raw_layouts(s, n, out);

	for (size_t i = 0; i < k; i++)
		given(a, &out[i], layout_bits());
	return k;
}

static size_t raw_layouts(const gs_settings *s, int64_t n, gs_settings *out)
{
	static const gs_shard train[] = { GS_SH_DDP, GS_SH_ZERO1, GS_SH_ZERO2, GS_SH_FSDP2,
	                                  GS_SH_ZERO3, GS_SH_FSDP };
	size_t k = 0;
	gs_settings b = *s;

	b.pp = b.ep = 1; /* the layouts searched: data parallel, sharding, tensor parallel, a layer split */
	s = &b;
	if (n == 1) {
		out[k] = *s;
		out[k].gpus = 1;
		out[k].tp = 1;
		out[k++].sharding = GS_SH_DDP;
		return k;
	}
	if (s->method == GS_INFER) {
		out[k] = *s;
		out[k].gpus = n;
		out[k].tp = n;
		out[k++].sharding = GS_SH_DDP;
		out[k] = *s;
		out[k].gpus = n;
		out[k].tp = 1;
		out[k++].sharding = GS_SH_PIPELINE;
		return k;
	}
	for (size_t i = 0; i < sizeof train / sizeof train[0]; i++) {
		out[k] = *s;
		out[k].gpus = n;
		out[k].tp = 1;
		out[k++].sharding = train[i];
	}
	return k;
}

/* The fewest GPUs, lo to hi, at which layout t fits; 0 when it does not fit
 * at hi. Whether a training layout fits is monotone in the count: its
 * per-GPU memory never rises with more GPUs (the shards shrink; ddp's
 * buckets do not depend on the count), which test_engine's sharded_counts
 * and test_plan's scan comparison hold. So a bisection finds what trying
 * every count in turn would. */
static int64_t fewest(const gs_arch *a, gs_settings t, const gs_gpu *g, int64_t lo, int64_t hi)
{
	gs_plan_fit f;

	t.gpus = hi;
	if (lo > hi || !gs_plan_try(a, &t, g, &f))
		return 0;
	while (lo < hi) {
		t.gpus = lo + (hi - lo) / 2;
		if (gs_plan_try(a, &t, g, &f))
			hi = t.gpus;
		else
			lo = t.gpus + 1;
	}
	return hi;
}

void gs_plan_count(const gs_arch *a, const gs_settings *base, const gs_gpu *g, int64_t max_gpus,
                   gs_plan_fit *out)
{
	gs_settings cand[8];
	int64_t best = 0;
	size_t bi = 0, k;

	memset(out, 0, sizeof *out);
	if (max_gpus < 1)
		return;
	layouts(a, base, 1, cand); /* one: ddp on one GPU */
	if (gs_plan_try(a, &cand[0], g, out))
		return;
	if (base->method != GS_INFER) {
		/* Each layout's fewest count; a later layout wins only with fewer
		 * GPUs (the order is the preference), so its search stops below
		 * the best so far. */
		k = layouts(a, base, 2, cand);
		for (size_t i = 0; i < k; i++) {
			int64_t n = fewest(a, cand[i], g, 2, best ? best - 1 : max_gpus);
			if (n > 0) {
				best = n;
				bi = i;
			}
		}
		memset(out, 0, sizeof *out);
		if (best > 0) {
			cand[bi].gpus = best;
			gs_plan_try(a, &cand[bi], g, out);
		}
		return;
	}
	/* Inference: tensor parallel needs a count the heads divide, so the
	 * counts are tried in turn. One replica per GPU does not lower the
	 * memory of one: past one GPU, ddp inference is never the answer
	 * (layouts has none). */
	for (int64_t n = 2; n <= max_gpus; n++) {
		k = layouts(a, base, n, cand);
		for (size_t i = 0; i < k; i++)
			if (gs_plan_try(a, &cand[i], g, out))
				return;
	}
	memset(out, 0, sizeof *out);
}

static void set_axis(const gs_arch *a, gs_settings *s, gs_plan_axis axis, int64_t v)
{
	if (axis == GS_PLAN_BATCH)
		s->batch = v;
	else
		s->seq = v;
	given(a, s, gs_setting_bit(axis == GS_PLAN_BATCH ? "batch" : "seq"));
}

int64_t gs_plan_max(const gs_arch *a, const gs_settings *s, const gs_gpu *g, gs_plan_axis axis,
                    bool *bounded, gs_plan_fit *out)
{
	int64_t lo = 1, hi = axis == GS_PLAN_BATCH ? PLAN_MAX_BATCH
	                     : (a->max_pos > 0 && a->max_pos < PLAN_MAX_SEQ ? a->max_pos : PLAN_MAX_SEQ);
	gs_settings t = *s;
	gs_plan_fit f;

	*bounded = false;
	memset(out, 0, sizeof *out);
	set_axis(a, &t, axis, lo);
	if (!gs_plan_try(a, &t, g, &f))
		return 0;
	*out = f;
	set_axis(a, &t, axis, hi);
	if (gs_plan_try(a, &t, g, &f)) {
		*bounded = true;
		*out = f;
		return hi;
	}
	/* fits at lo, not at hi (memory does not fall as the axis grows) */
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;
		set_axis(a, &t, axis, mid);
		if (gs_plan_try(a, &t, g, &f)) {
			lo = mid;
			*out = f;
		} else {
			hi = mid;
		}
	}
	return lo;
}

const char *gs_plan_rung_name(gs_plan_rung r)
{
	static const char *const names[GS_RUNG_MAX] = {
		[GS_RUNG_START] = "start",
		[GS_RUNG_FP16] = "fp16-compute",
		[GS_RUNG_CKPT] = "grad-ckpt",
		[GS_RUNG_BATCH1] = "batch-1",
		[GS_RUNG_OPT8] = "8-bit-optimizer",
		[GS_RUNG_FUSED_LOSS] = "fused-loss",
		[GS_RUNG_HALF] = "16-bit",
		[GS_RUNG_CKPT_OFFLOAD] = "ckpt-offload",
		[GS_RUNG_OFFLOAD] = "offload",
		[GS_RUNG_QLORA] = "qlora",
	};
	return (unsigned)r < GS_RUNG_MAX ? names[r] : "?";
}

static bool training(const gs_settings *s)
{
	return s->method != GS_INFER;
}

/* The fp16 twin of a precision that names bf16 (the same bytes). */
static gs_prec fp16_twin(gs_prec p)
{
	switch (p) {
	case GS_P_AMP_BF16: return GS_P_AMP_FP16;
	case GS_P_MIXED_BF16: return GS_P_MIXED_FP16;
	case GS_P_BF16: return GS_P_FP16;
	default: return p;
	}
}

/* The 16-bit rung over s: 16-bit weights (bf16, else fp16); over a
 * quantized base whose k-bit preparation runs, that preparation's fp32
 * cast left out. False when neither applies. */
static bool rung_half(const gs_settings *s, const gs_gpu *g, gs_settings *t, const char **what,
                      const char **cost, uint64_t *bits)
{
	gs_prec p = gs_settings_precision(s);

	if (gs_settings_kbit_prep(s)) {
		/* over a quantized base the 16-bit step is the k-bit
		 * preparation's fp32 cast left out (peft utils/other.py,
		 * v0.20: prepare_model_for_kbit_training casts every
		 * fp16/bf16 parameter to fp32; TRL 0.26 on no longer calls it) */
		t->kbit_prep = GS_KP_OFF;
		*bits = gs_setting_bit("kbit-prep");
		*what = "no fp32 cast of the unquantized weights (prepare_model_for_kbit_training not "
		        "called, as TRL 0.26 on does)";
		*cost = "numerical: norms, embeddings and head stay 16-bit";
		return true;
	}
	if (s->method == GS_QLORA || gs_prec_quantized(p) || p == GS_P_BF16 || p == GS_P_FP16 ||
	    p == GS_P_FP8 || p == GS_P_FP8_MIXED)
		return false;
	t->precision = g->bf16 ? GS_P_BF16 : GS_P_FP16;
	t->precision_set = true;
	*bits = gs_setting_bit("precision");
	*what = s->method == GS_FULL ? "pure 16-bit weights, gradients and optimizer states"
	                             : "16-bit base weights";
	*cost = s->method == GS_FULL ? "numerical: no fp32 master weights (updates may round away)"
	                             : "numerical: the base in 16 bits";
	return true;
}

/* The settings of rung r over s, with what it does and costs, and the bits
 * of the settings it changes; false when the rung does not apply or is
 * already in place. */
static bool rung_settings(gs_plan_rung r, const gs_settings *s, const gs_gpu *g, gs_settings *t,
                          const char **what, const char **cost, uint64_t *bits)
{
	gs_prec p = gs_settings_precision(s);
	gs_needs need = gs_settings_needs(s);

	*t = *s;
	switch (r) {
	case GS_RUNG_FP16:
		/* a bf16 recipe on a GPU without bf16 (T4, V100): fp16 compute,
		 * the precision's fp16 twin, the same bytes */
		if (g->bf16 || !need.bf16 || gs_prec_16bit(p) == GS_CD_FP16 || p == GS_P_FP8_MIXED)
			return false;
		t->compute_dtype = GS_CD_FP16;
		if (s->precision_set)
			t->precision = fp16_twin(p);
		*bits = gs_setting_bit("compute-dtype") | gs_setting_bit("precision");
		*what = "fp16 compute (the GPU has no bf16): the same bytes, with a loss scaler";
		*cost = "numerical: fp16's narrower range (dynamic loss scaling)";
		return true;
	case GS_RUNG_FUSED_LOSS:
		if (!training(s) || gs_loss_fused(s->loss))
			return false;
		t->loss = GS_LOSS_FUSED;
		*bits = gs_setting_bit("loss");
		*what = "a fused linear cross-entropy (Liger): the head and loss a chunk at a time, no logits kept";
		*cost = "a kernel library patched into the model (liger-kernel)";
		return true;
	case GS_RUNG_CKPT_OFFLOAD:
		if (!training(s) || !s->grad_ckpt || s->ckpt_offload || s->offload == GS_OFF_ACTIVATIONS)
			return false;
		t->ckpt_offload = true;
		*bits = gs_setting_bit("ckpt-offload");
		*what = "checkpointed layer inputs offloaded to CPU memory (Unsloth's gradient checkpointing)";
		*cost = "host memory (the figure shown) and a copy over PCIe each layer, each way";
		return true;
	case GS_RUNG_BATCH1:
		if (s->batch <= 1)
			return false;
		t->batch = 1;
		*bits = gs_setting_bit("batch") | gs_setting_bit("grad-accum");
		if (training(s) && !s->optimizer_in_bwd) {
			t->grad_accum = s->grad_accum * s->batch;
			*what = "micro-batch 1, gradient accumulation keeps the effective batch";
			*cost = "the same samples per step in more, smaller passes: slower steps";
		} else {
			*what = "micro-batch 1";
			*cost = "fewer sequences at a time: lower throughput";
		}
		return true;
	case GS_RUNG_HALF:
		return rung_half(s, g, t, what, cost, bits);
	case GS_RUNG_CKPT:
		if (!training(s) || s->grad_ckpt)
			return false;
		t->grad_ckpt = true;
		*bits = gs_setting_bit("grad-ckpt");
		*what = "gradient checkpointing";
		*cost = "about a third more compute per step (the forward runs again in backward)";
		return true;
	case GS_RUNG_OPT8:
		if (!training(s) || (s->optimizer != GS_O_ADAMW && s->optimizer != GS_O_ADAMW_FUSED &&
		                     s->optimizer != GS_O_PAGED_ADAMW_32BIT))
			return false;
		t->optimizer = GS_O_ADAMW_8BIT;
		*bits = gs_setting_bit("optimizer");
		*what = "8-bit AdamW states (bitsandbytes)";
		*cost = "numerical: block-wise 8-bit moments";
		return true;
	case GS_RUNG_QLORA:
		if (s->method == GS_QLORA || gs_prec_quantized(p))
			return false;
		*bits = gs_setting_bit("method") | gs_setting_bit("precision");
		if (s->method == GS_INFER) {
			t->precision = GS_P_NF4;
			t->precision_set = true;
			*what = "4-bit weights (bitsandbytes nf4)";
			*cost = "numerical: a 4-bit base; dequantized per matmul";
		} else {
			t->method = GS_QLORA;
			t->precision = GS_P_NF4;
			t->precision_set = true;
			*what = "QLoRA: a 4-bit base with LoRA adapters";
			*cost = s->method == GS_FULL ? "a different method: only adapters train, over a 4-bit base"
			                             : "numerical: a 4-bit base";
		}
		return true;
	case GS_RUNG_OFFLOAD:
		if (s->offload != GS_OFF_NONE)
			return false;
		t->offload = training(s) ? GS_OFF_OPTIMIZER : GS_OFF_PARAMS;
		*bits = gs_setting_bit("offload");
		*what = training(s) ? "optimizer states offloaded to CPU memory"
		                    : "weights offloaded to CPU memory";
		*cost = "host memory (the figure shown) and PCIe traffic every step";
		return true;
	default:
		return false;
	}
}

/* Rung r over s: its settings, given, with the stack's choices redone
 * over them (QLoRA takes the stack's QLoRA choices). */
static bool rung(const gs_arch *a, gs_plan_rung r, const gs_settings *s, const gs_gpu *g, gs_settings *t,
                 const char **what, const char **cost)
{
	uint64_t bits = 0;

	if (!rung_settings(r, s, g, t, what, cost, &bits))
		return false;
	given(a, t, bits);
	return true;
}

const char *gs_plan_untimed(const gs_settings *s)
{
	if (s->offload != GS_OFF_NONE || s->ckpt_offload)
		return "CPU offload (its PCIe traffic, a host-side optimizer step) is left out of the time model";
	return NULL;
}

/* The fit of s at exactly n GPUs in the layout there that ranks first by
 * the one rule (gs_offers_rank: comfortable before tight; with to, then
 * the time model's step; then the layouts' order of preference). None
 * fits: found false, with the estimate of the layout of least memory a GPU
 * (est.device 0: the engine sized none). *t and *timed (may be NULL): the
 * time model at the fit, with to. */
static void best_at(const gs_arch *a, const gs_settings *s, const gs_gpu *g, int64_t n, const gs_time_opts *to,
                    gs_plan_fit *out, gs_time *t, bool *timed)
{
	gs_settings cand[8];
	gs_plan_fit f[8];
	gs_time tt[8];
	bool ok_t[8];
	gs_offer o[8];
	size_t k = layouts(a, s, n, cand), nf = 0, least = SIZE_MAX;

	memset(out, 0, sizeof *out);
	out->s = *s;
	if (timed != NULL)
		*timed = false;
	for (size_t i = 0; i < k; i++) {
		gs_error e = { 0 };
		gs_plan_try(a, &cand[i], g, &f[i]);
		ok_t[i] = false;
		if (f[i].est.device > 0 && (least == SIZE_MAX || f[i].est.device < f[least].est.device))
			least = i;
		if (!f[i].found)
			continue;
		if (to != NULL && gs_plan_untimed(&f[i].s) == NULL)
			ok_t[i] = gs_time_row(a, &f[i].s, &f[i].est, g, to, &tt[i], &e) == GS_OK;
		o[nf++] = (gs_offer){ true, i, g->usable_bytes, n, f[i].v == GS_TIGHT,
		                      ok_t[i] ? gs_rank_key(GS_RANK_TIME, &tt[i], s->method == GS_INFER, n,
		                                            g->price_usd_hour)
		                              : HUGE_VAL };
	}
	if (nf == 0) {
		if (least != SIZE_MAX)
			*out = f[least];
		return;
	}
	gs_offers_rank(GS_RANK_DEFAULT, o, nf);
	*out = f[o[0].order];
	if (t != NULL && ok_t[o[0].order])
		*t = tt[o[0].order];
	if (timed != NULL)
		*timed = ok_t[o[0].order];
}

/* Whether a step's fit f improves on cur: fewer GPUs, a comfortable fit
 * where cur was tight at the same count, or it runs where nothing ran;
 * while nothing runs, less memory a GPU at max_gpus or a row made
 * runnable. */
static bool better(const gs_plan_fit *f, const gs_plan_fit *cur)
{
	if (f->found != cur->found)
		return f->found;
	if (f->found)
		return f->s.gpus < cur->s.gpus ||
		       (f->s.gpus == cur->s.gpus && cur->v == GS_TIGHT && f->v == GS_FITS);
	if (f->est.device == 0)
		return false;
	if (cur->v == GS_NOT_RUNNABLE && f->v != GS_NOT_RUNNABLE)
		return true;
	return cur->est.device == 0 || f->est.device < cur->est.device;
}

/* s at its fewest count up to max_gpus; none: at max_gpus, least memory. */
static void at_count(const gs_arch *a, const gs_settings *s, const gs_gpu *g, int64_t max_gpus, gs_plan_fit *out)
{
	gs_plan_count(a, s, g, max_gpus, out);
	if (!out->found)
		best_at(a, s, g, max_gpus, NULL, out, NULL, NULL);
}

size_t gs_plan_ladder(const gs_arch *a, const gs_settings *base, const gs_gpu *g, int64_t max_gpus,
                      gs_plan_step *steps)
{
	size_t n = 0;
	gs_plan_fit cur;
	gs_settings kept = *base; /* the rungs kept, at the question's layout */

	memset(steps, 0, GS_RUNG_MAX * sizeof *steps);
	at_count(a, base, g, max_gpus, &cur);
	steps[n].rung = GS_RUNG_START;
	steps[n].what = "as given";
	steps[n].cost = "";
	steps[n].applied = true;
	steps[n++].fit = cur;
	for (int r = GS_RUNG_START + 1; r < GS_RUNG_MAX && !(cur.found && cur.s.gpus <= 1 && cur.v == GS_FITS);
	     r++) {
		gs_plan_step *st = &steps[n];
		gs_settings t;
		const char *what = "", *cost = "";
		gs_plan_fit f;

		if (!rung(a, (gs_plan_rung)r, &kept, g, &t, &what, &cost))
			continue;
		at_count(a, &t, g, max_gpus, &f);
		st->rung = (gs_plan_rung)r;
		st->what = what;
		st->cost = cost;
		st->applied = better(&f, &cur);
		st->skipped = !st->applied;
		st->fit = st->applied ? f : cur;
		if (st->applied) {
			cur = f;
			kept = t;
		}
		n++;
	}
	return n;
}

/* ---- answers ---- */

/* The question with the rungs of set applied in the ladder's order (those
 * that do not apply left out), at the question's layout; *bits (may be
 * NULL) the settings they set. */
static gs_settings build(const gs_arch *a, const gs_settings *q, const gs_gpu *g, unsigned set, uint64_t *bits)
{
	gs_settings cur = *q;

	if (bits != NULL)
		*bits = 0;
	for (int r = GS_RUNG_START + 1; r < GS_RUNG_MAX; r++) {
		gs_settings t;
		const char *what, *cost;
		uint64_t b = 0;
		if (!(set & (1u << r)) || !rung_settings((gs_plan_rung)r, &cur, g, &t, &what, &cost, &b))
			continue;
		given(a, &t, b);
		cur = t;
		if (bits != NULL)
			*bits |= b;
	}
	return cur;
}

/* The settings (gs_setting_bit) whose values differ between x and y, of
 * those that apply to either (gs_settings_differ), the layout's own (gpus,
 * sharding, tp) aside. */
static uint64_t differ(const gs_settings *x, const gs_settings *y)
{
	return gs_settings_differ(x, y) & ~layout_bits();
}

gs_settings gs_plan_settings(const gs_arch *a, const gs_settings *q, const gs_gpu *g, unsigned set)
{
	return build(a, q, g, set, NULL);
}

/* q at the layout of s (its count, sharding and tp), its stack's choices
 * for that layout redone. */
static gs_settings at_layout(const gs_arch *a, const gs_settings *q, const gs_settings *s)
{
	gs_settings t = *q;

	t.gpus = s->gpus;
	t.sharding = s->sharding;
	t.tp = s->tp;
	given(a, &t, layout_bits());
	return t;
}

/* What answer x turns on against q (its rungs set the settings rung_bits),
 * and its price in time: q's step at x's layout. */
static void describe(const gs_arch *a, const gs_settings *q, const gs_gpu *g, const gs_time_opts *to,
                     uint64_t rung_bits, gs_plan_answer *x)
{
	gs_settings ql = at_layout(a, q, &x->fit.s);
	uint64_t changed = differ(&ql, &x->fit.s);
	gs_estimate est;
	gs_time tq;
	gs_error e = { 0 };

	x->method_change = x->fit.s.method != q->method;
	x->turned_on = changed & rung_bits;
	x->by_stack = changed & ~rung_bits;
	x->by_layout = differ(q, &ql);
	x->kbit_by_layout = gs_settings_kbit_prep(q) && !gs_settings_kbit_prep(&ql);
	x->vs_question = NAN;
	if (!x->timed || gs_estimate_run(a, &ql, &est, &e) != GS_OK ||
	    gs_time_row(a, &ql, &est, g, to, &tq, &e) != GS_OK)
		return;
	if (q->method == GS_INFER) {
		if (tq.decode_step_s > 0)
			x->vs_question = x->t.decode_step_s / tq.decode_step_s;
	} else if (tq.step_s > 0) {
		x->vs_question = x->t.step_s / tq.step_s;
	}
}

/* The answer of the rungs set, fewest count fewest: at its count rounded
 * to nodes, the rungs not needed there dropped (the later first). False
 * when it does not run (it always does at fewest, the ladder's count). */
static bool answer(const gs_arch *a, const gs_settings *q, const gs_gpu *g, int64_t max_gpus, int64_t node,
                   const gs_time_opts *to, unsigned set, int64_t fewest, gs_plan_answer *x)
{
	int64_t n = gs_node_round(fewest, node);
	uint64_t bits = 0;
	gs_settings s;
	gs_plan_fit f;
	bool tight;

	memset(x, 0, sizeof *x);
	s = build(a, q, g, set, NULL);
	best_at(a, &s, g, n, NULL, &f, NULL, NULL);
	if (!f.found) {
		n = fewest; /* no layout of the rounded count runs it */
		best_at(a, &s, g, n, NULL, &f, NULL, NULL);
	}
	tight = f.v == GS_TIGHT;
	/* a rung goes when what is left still runs there, as comfortably */
	for (int r = GS_RUNG_MAX - 1; r > GS_RUNG_START; r--) {
		unsigned less = set & ~(1u << r);
		if (!(set & (1u << r)))
			continue;
		s = build(a, q, g, less, NULL);
		best_at(a, &s, g, n, NULL, &f, NULL, NULL);
		if (f.found && (tight || f.v == GS_FITS))
			set = less;
	}
	s = build(a, q, g, set, &bits);
	best_at(a, &s, g, n, to, &x->fit, &x->t, &x->timed);
	if (!x->fit.found)
		return false;
	gs_plan_count(a, &s, g, n < max_gpus ? n : max_gpus, &f);
	x->fewest = f.found ? f.s.gpus : n;
	x->node = node > 1 ? node : 1;
	x->rungs = set;
	describe(a, q, g, to, bits, x);
	return true;
}

size_t gs_plan_answers(const gs_arch *a, const gs_settings *q, const gs_gpu *g, int64_t max_gpus, int64_t node,
                       const gs_time_opts *to, const gs_plan_step *steps, size_t n_steps, gs_plan_answer *out)
{
	size_t k = 0;
	unsigned set = 0;

	for (size_t i = 0; i < n_steps && k < GS_PLAN_ANSWERS_MAX; i++) {
		const gs_plan_step *st = &steps[i];
		int64_t n = st->fit.found ? gs_node_round(st->fit.s.gpus, node) : 0;
		if (!st->applied)
			continue;
		if (st->rung != GS_RUNG_START)
			set |= 1u << st->rung;
		/* the first that runs; then fewer GPUs, or as many comfortably
		 * where the one before was tight */
		if (!st->fit.found ||
		    (k > 0 && !(n < out[k - 1].fit.s.gpus ||
		                (n == out[k - 1].fit.s.gpus && out[k - 1].fit.v == GS_TIGHT && st->fit.v == GS_FITS))))
			continue;
		k += answer(a, q, g, max_gpus, node, to, set, st->fit.s.gpus, &out[k]);
	}
	return k;
}
