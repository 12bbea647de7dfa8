/* gpusizer: planning searches over the engine (see search.h). */
#include "search.h"

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
		bits = gs_setting_bit("gpus") | gs_setting_bit("sharding") | gs_setting_bit("tp");
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
		"start", "batch-1", "fp16-compute", "16-bit", "grad-ckpt", "fused-loss", "8-bit-optimizer", "qlora",
		"sharding", "ckpt-offload", "offload",
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
		if (!training(s) || s->loss == GS_LOSS_FUSED || s->loss == GS_LOSS_FUSED_CHUNKS)
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

size_t gs_plan_ladder(const gs_arch *a, const gs_settings *base, const gs_gpu *g, int64_t max_gpus,
                      bool all, gs_plan_step *steps)
{
	size_t n = 0;
	gs_plan_fit cur;

	memset(steps, 0, GS_RUNG_MAX * sizeof *steps);
	gs_plan_try(a, base, g, &cur);
	steps[n].rung = GS_RUNG_START;
	steps[n].what = "as given";
	steps[n].cost = "";
	steps[n].applied = true;
	steps[n++].fit = cur;
	if (cur.found && !all)
		return n;
	for (int r = GS_RUNG_BATCH1; r < GS_RUNG_MAX; r++) {
		gs_plan_step *st = &steps[n];
		gs_settings t;
		const char *what = "", *cost = "";
		gs_plan_fit f;

		if (r == GS_RUNG_SHARD) {
			if (cur.s.gpus > 1)
				continue;
			gs_plan_count(a, &cur.s, g, max_gpus, &f);
			what = "sharding over more GPUs";
			cost = "more GPUs, and the traffic between them every step";
			if (!f.found)
				f.s = cur.s;
		} else {
			if (!rung(a, (gs_plan_rung)r, &cur.s, g, &t, &what, &cost))
				continue;
			gs_plan_try(a, &t, g, &f);
		}
		st->rung = (gs_plan_rung)r;
		st->what = what;
		st->cost = cost;
		/* Kept only when the engine ran it and the peak per GPU fell, or
		 * a row that could not run on the class can (for sharding: when a
		 * count fits at all). */
		bool runs_now = cur.v == GS_NOT_RUNNABLE && f.v != GS_NOT_RUNNABLE;
		st->applied = f.est.device > 0 &&
		              (cur.est.device == 0 || f.est.device < cur.est.device || (runs_now && f.est.device <= cur.est.device)) &&
		              (r != GS_RUNG_SHARD || f.found);
		st->skipped = !st->applied;
		st->fit = st->applied ? f : cur;
		if (st->applied)
			cur = f;
		n++;
		if (cur.found && !all)
			break;
	}
	return n;
}
