/* gpusizer: the verdict of one sizing row on one GPU class (pure). */
#include "report.h"
#include "timing.h"

#include <string.h>

static bool prec_needs_bf16(gs_prec p)
{
	switch (p) {
	case GS_P_AMP_BF16:
	case GS_P_MIXED_BF16:
	case GS_P_BF16:
	case GS_P_FP8_MIXED: /* fp8 GEMMs, bf16 everything else */
		return true;
	default:
		return false;
	}
}

static bool row_needs_bf16(const gs_settings *s)
{
	gs_prec p = gs_settings_precision(s);

	if (prec_needs_bf16(p))
		return true;
	/* quantised bases compute in bf16 in the engine's recipes
	 * (bnb_4bit_compute_dtype=bfloat16, the QLoRA default) */
	if (s->method != GS_FULL && gs_prec_quantized(p))
		return true;
	if ((s->method == GS_LORA || s->method == GS_QLORA) && s->adapter_dtype == GS_DT_BF16)
		return true;
	if (s->kv_dtype_set && s->kv_dtype == GS_DT_BF16)
		return true;
	return false;
}

static bool row_needs_fp8(const gs_settings *s)
{
	gs_prec p = gs_settings_precision(s);

	return p == GS_P_FP8_MIXED || p == GS_P_FP8 ||
	       (s->method != GS_FULL && s->adapter_dtype == GS_DT_FP8) ||
	       (s->kv_dtype_set && s->kv_dtype == GS_DT_FP8);
}

gs_needs gs_settings_needs(const gs_settings *s)
{
	gs_needs n = { row_needs_bf16(s), row_needs_fp8(s) };

	return n;
}

gs_verdict gs_verdict_of(uint64_t device, gs_needs need, const gs_gpu *g, double *headroom)
{
	double h;
	unsigned pct;

	if (headroom != NULL)
		*headroom = 0;
	if (g->usable_bytes == 0 || (need.bf16 && !g->bf16) || (need.fp8 && !g->fp8))
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
	if (!(x->kv_bytes_token > 0) || ctx < 1 || block < 1 || !(mem_frac > 0) || mem_frac > 1 ||
	    gs_verdict_of(0, need, g, NULL) == GS_NOT_RUNNABLE)
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
	return (int64_t)(budget / per_block) / blocks;
}

bool gs_row_step(const struct gs_report_meta *m, const gs_row *r, const gs_gpu *g, bool fits_only,
                 double *step_s, double *tokens)
{
	gs_time t;
	gs_error sub = { 0 };
	gs_verdict v = gs_row_verdict(r, g, NULL);

	if ((fits_only ? v != GS_FITS && v != GS_TIGHT : v == GS_NOT_RUNNABLE) || r->model == NULL || r->model->arch == NULL ||
	    gs_time_row(r->model->arch, &r->settings, &r->est, g, m->time, &t, &sub) != GS_OK)
		return false;
	if (r->settings.method == GS_INFER) {
		*step_s = t.decode_step_s;
		*tokens = (double)r->settings.batch;
	} else {
		*step_s = t.step_s;
		*tokens = t.tokens_step;
	}
	return true;
}

gs_verdict gs_row_verdict(const gs_row *r, const gs_gpu *g, double *headroom)
{
	if (r->err != GS_OK) {
		if (headroom != NULL)
			*headroom = 0;
		return GS_NOT_RUNNABLE;
	}
	return gs_verdict_of(r->est.device, gs_settings_needs(&r->settings), g, headroom);
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

const gs_measured *gs_row_measured(const gs_report_meta *m, const gs_row *r)
{
	if (m->measured == NULL || m->measured->n == 0 || r->err != GS_OK)
		return NULL;
	return gs_measured_find(m->measured, r->model->id, r->key);
}

void gs_measured_row_text(const gs_measured *mr, const gs_estimate *x, char *buf, size_t n)
{
	uint64_t now[GS_MK_MAX];

	now[GS_MK_ALLOCATED] = x->allocated;
	now[GS_MK_RESERVED] = x->reserved;
	now[GS_MK_DEVICE] = x->device;
	gs_measured_text(mr, GS_MK_DEVICE, now, buf, n);
}

/* The GPU files' named values: index 0 is "none" (""), names[1..n-1] the
 * values; a lookup of s returns n when it names none. */
static const char *const segment_names[GS_SEG_MAX] = { "", "consumer", "workstation", "datacenter" };
static const char *const uarch_names[GS_UARCH_MAX] = {
	"", "volta", "turing", "ampere", "ada", "hopper", "blackwell", "cdna3",
};

static int name_index(const char *const *names, int n, const char *s)
{
	for (int i = 1; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return n;
}

const char *gs_segment_name(gs_segment s)
{
	return (unsigned)s < GS_SEG_MAX ? segment_names[s] : "";
}

gs_segment gs_segment_parse(const char *s)
{
	return (gs_segment)name_index(segment_names, GS_SEG_MAX, s);
}

const char *gs_uarch_name(gs_uarch u)
{
	return (unsigned)u < GS_UARCH_MAX ? uarch_names[u] : "";
}

gs_uarch gs_uarch_parse(const char *s)
{
	return (gs_uarch)name_index(uarch_names, GS_UARCH_MAX, s);
}
