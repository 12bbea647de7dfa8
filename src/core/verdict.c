/* gpusizer: verdicts, what a row needs of a GPU, serving capacity and the
 * rank rules (pure; see verdict.h). */
#include "verdict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "timing.h"
/* What asks for bf16, or NULL: a named bf16 recipe or storage (the HF
 * Trainer refuses bf16=True on a GPU without it, training_args.py:
 * "Your setup doesn't support bf16/gpu"), --compute-dtype bf16 (which a
 * stack may choose: torchtune's recipes refuse fp16), a bf16 KV cache.
 * A default precision, a quantized base's compute and 16-bit adapters
 * follow the compute dtype. */
static const char *bf16_reason(const gs_settings *s)
{
	gs_prec p = gs_settings_precision(s);

	if (s->compute_dtype == GS_CD_BF16)
		return "--compute-dtype bf16";
	if (p == GS_P_FP8_MIXED)
		return "--precision fp8-mixed (bf16 outside the fp8 GEMMs)";
	if (s->precision_set && gs_prec_16bit(p) == GS_CD_BF16) {
		switch (p) {
		case GS_P_AMP_BF16: return "--precision amp-bf16";
		case GS_P_MIXED_BF16: return "--precision mixed-bf16";
		default: return "--precision bf16";
		}
	}
	if (s->method == GS_INFER && s->kv_dtype_set && s->kv_dtype == GS_DT_BF16)
		return "--kv-dtype bf16";
	/* the block-scaled formats' kernels (the precision table's) */
	if (gs_prec_info_of(p)->cls == GS_PC_FP4 && gs_prec_info_of(p)->needs_bf16)
		return p == GS_P_MXFP4 ? "--precision mxfp4 (its kernels compute in bf16)"
		                       : "--precision nvfp4 (its kernels compute in bf16)";
	if (p == GS_P_FP8_BLOCK && gs_prec_info_of(p)->needs_bf16)
		return "--precision fp8-block (bf16 outside the fp8 GEMMs)";
	return NULL;
}

static const char *fp8_reason(const gs_settings *s)
{
	gs_prec p = gs_settings_precision(s);

	if (p == GS_P_FP8_MIXED)
		return "--precision fp8-mixed";
	if (p == GS_P_FP8)
		return "--precision fp8";
	if (p == GS_P_FP8_BLOCK && gs_prec_info_of(p)->needs_fp8)
		return "--precision fp8-block";
	if (s->method == GS_INFER && s->kv_dtype_set && s->kv_dtype == GS_DT_FP8)
		return "--kv-dtype fp8";
	return NULL;
}

gs_needs gs_settings_needs(const gs_settings *s)
{
	gs_needs n;

	memset(&n, 0, sizeof n);
	n.bf16_why = bf16_reason(s);
	n.fp8_why = fp8_reason(s);
	n.bf16 = n.bf16_why != NULL;
	n.fp8 = n.fp8_why != NULL;
	n.fp16_fallback = !n.bf16 && s->compute_dtype == GS_CD_AUTO && s->formula == GS_F_DETAILED;
	/* flash-attn 2 (csrc/flash_attn/flash_api.cpp): "FlashAttention only
	 * supports Ampere GPUs or newer." */
	if (s->attn == GS_ATTN_FLASH) {
		n.min_uarch = GS_UARCH_AMPERE;
		n.uarch_why = "--attn flash (flash-attn 2 runs on Ampere or newer)";
	}
	return n;
}

/* Whether g's architecture is older than min: known NVIDIA ones only (an
 * unknown architecture, or AMD's, is not refused). */
static bool older_than(const gs_gpu *g, gs_uarch min)
{
	return min != GS_UARCH_NONE && (g->uarch == GS_UARCH_VOLTA || g->uarch == GS_UARCH_TURING) &&
	       g->uarch < min;
}

char *gs_needs_why(gs_needs need, const gs_gpu *g, char *buf, size_t n)
{
	if (n == 0)
		return buf;
	buf[0] = '\0';
	if (need.bf16 && !g->bf16)
		snprintf(buf, n, "needs bf16 (%s), which the %s lacks", need.bf16_why, g->name);
	else if (need.fp8 && !g->fp8)
		snprintf(buf, n, "needs fp8 (%s), which the %s lacks", need.fp8_why, g->name);
	else if (older_than(g, need.min_uarch))
		snprintf(buf, n, "needs %s or newer (%s); the %s is %s", gs_uarch_name(need.min_uarch),
		         need.uarch_why, g->name, gs_uarch_name(g->uarch));
	else if (g->usable_bytes == 0)
		snprintf(buf, n, "the %s has no usable memory in its GPU file", g->name);
	return buf;
}

bool gs_needs_fp16_on(gs_needs need, const gs_gpu *g)
{
	return need.fp16_fallback && !g->bf16;
}

gs_verdict gs_verdict_of(uint64_t device, gs_needs need, const gs_gpu *g, double *headroom)
{
	double h;
	unsigned pct;

	if (headroom != NULL)
		*headroom = 0;
	if (g->usable_bytes == 0 || (need.bf16 && !g->bf16) || (need.fp8 && !g->fp8) ||
	    older_than(g, need.min_uarch))
		return GS_NOT_RUNNABLE;
	h = 1.0 - (double)device / (double)g->usable_bytes;
	if (headroom != NULL)
		*headroom = h;
	if (device > g->usable_bytes)
		return GS_NO_FIT;
	/* Exact: device <= usable * (1 - headroom), in integers (900 of 1000
	 * is a fit at 10%, which 1 - 0.9 in doubles would miss). */
	pct = (unsigned)(GS_TIGHT_HEADROOM * 100.0 + 0.5);
	return (unsigned __int128)device * 100u <= (unsigned __int128)g->usable_bytes * (100u - pct)
		       ? GS_FITS
		       : GS_TIGHT;
}

int64_t gs_serving_seqs(const gs_estimate *x, gs_needs need, const gs_gpu *g, double mem_frac, int64_t ctx,
                        int64_t block, double *pool)
{
	double budget, rest, per_block;
	int64_t blocks;

	if (pool != NULL)
		*pool = 0;
	if (!(x->kv_bytes_token > 0 || x->kv_win_bytes_token > 0 || x->state_bytes_seq > 0) || ctx < 1 ||
	    block < 1 || !(mem_frac > 0) || mem_frac > 1 || gs_verdict_of(0, need, g, NULL) == GS_NOT_RUNNABLE)
		return -1;
	budget = mem_frac * (double)g->total_bytes;
	if (budget > (double)g->usable_bytes)
		budget = (double)g->usable_bytes;
	/* x's peak without its cache: the weights, the prefill's activations,
	 * the allocator's share and the CUDA context, as vLLM's profiling run */
	rest = (double)x->device - (double)x->kv_at_peak;
	budget -= rest;
	if (pool != NULL)
		*pool = budget;
	if (budget <= 0)
		return 0;
	/* whole blocks in the pool; a sequence holds whole blocks */
	per_block = x->kv_bytes_token * (double)block;
	blocks = (ctx + block - 1) / block;
	if (x->kv_win_bytes_token <= 0 && x->state_bytes_seq <= 0)
		return (int64_t)(budget / per_block) / blocks;
	/* windowed layers hold at most their window's blocks, state layers
	 * their fixed state (vLLM's hybrid allocator and its Mamba state
	 * slots): a sequence takes those beside its growing blocks */
	{
		double win = x->kv_win_bytes_token * (double)(blocks * block);
		double seq = per_block * (double)blocks + (win < x->kv_win_bytes_seq ? win : x->kv_win_bytes_seq) +
		             x->state_bytes_seq;
		return (int64_t)(budget / seq);
	}
}

const char *gs_verdict_name(gs_verdict v)
{
	static const char *const names[GS_VERDICT_MAX] = {
		[GS_FITS] = "fits",
		[GS_TIGHT] = "tight",
		[GS_NO_FIT] = "does not fit",
		[GS_NOT_RUNNABLE] = "not runnable",
	};
	return (unsigned)v < GS_VERDICT_MAX ? names[v] : "unknown";
}

static const struct {
	const char *name, *text;
} ranks[GS_RANK_MAX] = {
	[GS_RANK_LEAST_MEMORY] = { "least-memory",
	                           "least total usable memory (GPUs x usable memory per GPU), then "
	                           "fewer GPUs" },
	[GS_RANK_FEWEST_GPUS] = { "fewest-gpus",
	                          "fewest GPUs, then least total usable memory (GPUs x usable memory "
	                          "per GPU)" },
	[GS_RANK_TIME] = { "time", "the fastest at its fewest count: training tokens a second in all, "
	                           "inference a sequence's decode step" },
	[GS_RANK_COST] = { "cost", "the cheapest a token at its fewest count (unpriced classes last)" },
};

const char *gs_plan_rank_name(gs_plan_rank r)
{
	return (unsigned)r < GS_RANK_MAX ? ranks[r].name : "?";
}

const char *gs_plan_rank_text(gs_plan_rank r)
{
	return (unsigned)r < GS_RANK_MAX ? ranks[r].text : "?";
}

gs_plan_rank gs_plan_rank_parse(const char *s)
{
	for (int r = 0; r < GS_RANK_MAX; r++)
		if (s != NULL && strcmp(s, ranks[r].name) == 0)
			return (gs_plan_rank)r;
	return GS_RANK_MAX;
}

bool gs_rank_before(gs_plan_rank r, bool tight_a, int64_t count_a, uint64_t usable_a, bool tight_b,
                    int64_t count_b, uint64_t usable_b)
{
	uint64_t ta, tb;

	if (tight_a != tight_b)
		return tight_b;
	if (__builtin_mul_overflow(usable_a, (uint64_t)count_a, &ta))
		ta = UINT64_MAX;
	if (__builtin_mul_overflow(usable_b, (uint64_t)count_b, &tb))
		tb = UINT64_MAX;
	if (r == GS_RANK_FEWEST_GPUS && count_a != count_b)
		return count_a < count_b;
	if (ta != tb)
		return ta < tb;
	return count_a < count_b;
}


bool gs_offer_before(gs_plan_rank r, const gs_offer *a, const gs_offer *b)
{
	if (a->found != b->found)
		return a->found;
	if (a->found) {
		if (r == GS_RANK_TIME || r == GS_RANK_COST) {
			if (a->key != b->key)
				return a->key < b->key;
		} else {
			if (gs_rank_before(r, a->tight, a->count, a->usable, b->tight, b->count, b->usable))
				return true;
			if (gs_rank_before(r, b->tight, b->count, b->usable, a->tight, a->count, a->usable))
				return false;
			if (a->key != b->key)
				return a->key < b->key;
		}
	}
	return a->order < b->order;
}

bool gs_best_offer(gs_plan_rank r, gs_offer *best, const gs_offer *cand)
{
	if (!cand->found || (best->found && !gs_offer_before(r, cand, best)))
		return false;
	*best = *cand;
	return true;
}

void gs_offers_rank(gs_plan_rank r, gs_offer *o, size_t n)
{
	/* insertion sort: a few dozen classes, stable by construction */
	for (size_t i = 1; i < n; i++) {
		gs_offer x = o[i];
		size_t j = i;
		for (; j > 0 && gs_offer_before(r, &x, &o[j - 1]); j--)
			o[j] = o[j - 1];
		o[j] = x;
	}
}

double gs_rank_key(gs_plan_rank r, const struct gs_time *t, bool infer, int64_t count, double price)
{
	if (r != GS_RANK_TIME && r != GS_RANK_COST)
		return 0;
	if (t == NULL)
		return HUGE_VAL;
	if (r == GS_RANK_TIME)
		return infer ? t->decode_step_s : 1 / t->tok_s_total;
	if (!(price > 0))
		return HUGE_VAL;
	return infer ? t->usd_per_mtok : price * (double)count / t->tok_s_total;
}
