/* gpusizer: the time model. See timing.h for the mechanisms, constants.h
 * (the GS_TIME_* block) for the calibrated figures. Pure. */
#include "timing.h"

#include <stdio.h>

#include <math.h>
#include <string.h>
#include <strings.h>

#include "constants.h"
#include "stacks.h"

static const char *const rt_names[GS_RT_MAX] = { "hf", "compiled", "llama.cpp", "serving", "autoawq" };
/* Runtimes whose host launches each layer's kernels while the GPU runs the
 * previous ones: a pass takes the larger of the two times (timing.h). */
static const bool rt_host_overlaps[GS_RT_MAX] = { true, false, false, false, false };

void gs_time_params_default(gs_time_params *p)
{
	static const gs_time_params def = {
		.eff_max = GS_TIME_TRAIN_EFF_MAX,
		.eff_max_uarch = { [GS_UARCH_AMPERE] = GS_TIME_TRAIN_EFF_MAX_AMPERE,
		                   [GS_UARCH_ADA] = GS_TIME_TRAIN_EFF_MAX_ADA,
		                   [GS_UARCH_HOPPER] = GS_TIME_TRAIN_EFF_MAX_HOPPER },
		.x_half_ridge = GS_TIME_X_HALF_RIDGE,
		.h_half = GS_TIME_H_HALF,
		.elem_bytes = GS_TIME_ELEM_BYTES,
		.attn_eff = GS_TIME_ATTN_EFF,
		.fp8_scale = { GS_TIME_FP8_EFF_SCALE, GS_TIME_FP8_EFF_SCALE_MEGATRON },
		.dequant_train = GS_TIME_DEQUANT_TRAIN,
		.dequant_prefill = GS_TIME_DEQUANT_PREFILL,
		.dequant_decode = GS_TIME_DEQUANT_DECODE,
		.dec_bw_eff = { GS_TIME_DECODE_BW_EFF_HF, GS_TIME_DECODE_BW_EFF_COMPILED,
		                GS_TIME_DECODE_BW_EFF_LLAMACPP, GS_TIME_DECODE_BW_EFF_SERVING,
		                GS_TIME_DECODE_BW_EFF_AUTOAWQ },
		.dec_layer_s = { GS_TIME_DECODE_LAYER_S_HF, GS_TIME_DECODE_LAYER_S_COMPILED,
		                 GS_TIME_DECODE_LAYER_S_LLAMACPP, GS_TIME_DECODE_LAYER_S_SERVING,
		                 GS_TIME_DECODE_LAYER_S_AUTOAWQ },
		.prefill_eff = { GS_TIME_PREFILL_EFF_HF, GS_TIME_PREFILL_EFF_COMPILED,
		                 GS_TIME_PREFILL_EFF_LLAMACPP, GS_TIME_PREFILL_EFF_SERVING,
		                 GS_TIME_PREFILL_EFF_AUTOAWQ },
	};
	*p = def;
}

const char *gs_runtime_name(gs_runtime r)
{
	return r >= 0 && r < GS_RT_MAX ? rt_names[r] : "";
}

/* Runtime names and their aliases, matched case-insensitively. */
typedef struct rt_alias {
	const char *name;
	int rt;
} rt_alias;

static int alias_find(const rt_alias *t, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(s, t[i].name) == 0)
			return t[i].rt;
	return -1;
}

int gs_runtime_parse(const char *s)
{
	static const rt_alias alias[] = {
		{ "hf", GS_RT_HF }, { "transformers", GS_RT_HF }, { "compiled", GS_RT_COMPILED },
		{ "gpt-fast", GS_RT_COMPILED }, { "llama.cpp", GS_RT_LLAMACPP }, { "llamacpp", GS_RT_LLAMACPP },
		{ "serving", GS_RT_SERVING }, { "vllm", GS_RT_SERVING }, { "sglang", GS_RT_SERVING },
		{ "tensorrt-llm", GS_RT_SERVING }, { "trt-llm", GS_RT_SERVING }, { "autoawq", GS_RT_AUTOAWQ },
	};
	return alias_find(alias, sizeof alias / sizeof alias[0], s);
}

const char *gs_train_runtime_name(gs_train_runtime r)
{
	static const char *const names[GS_TRT_MAX] = { "pytorch", "megatron" };
	return r >= 0 && r < GS_TRT_MAX ? names[r] : "";
}

int gs_train_runtime_parse(const char *s)
{
	static const rt_alias alias[] = {
		{ "pytorch", GS_TRT_PYTORCH }, { "hf", GS_TRT_PYTORCH }, { "transformers", GS_TRT_PYTORCH },
		{ "torchtune", GS_TRT_PYTORCH }, { "megatron", GS_TRT_MEGATRON }, { "nemo", GS_TRT_MEGATRON },
		{ "megatron-core", GS_TRT_MEGATRON }, { "megatron-lm", GS_TRT_MEGATRON },
		{ "megatron-bridge", GS_TRT_MEGATRON },
	};
	return alias_find(alias, sizeof alias / sizeof alias[0], s);
}

void gs_time_opts_default(gs_time_opts *o)
{
	memset(o, 0, sizeof *o);
	o->runtime = GS_RT_HF;
	o->train_runtime = GS_TRT_PYTORCH;
	o->gpus_per_node = 8;
}

void gs_time_opts_stack(gs_time_opts *o, const char *stack)
{
	const char *rt = NULL, *trt = NULL;
	int r;

	gs_stack_runtimes(stack, &rt, &trt);
	if (!o->runtime_given && rt != NULL && (r = gs_runtime_parse(rt)) >= 0)
		o->runtime = (gs_runtime)r;
	if (!o->train_runtime_given && trt != NULL && (r = gs_train_runtime_parse(trt)) >= 0)
		o->train_runtime = (gs_train_runtime)r;
}

double gs_time_eff(const gs_time_params *p, double x, double ridge, double h)
{
	return x <= 0 || h <= 0 ? 0 : p->eff_max * x / (x + p->x_half_ridge * ridge) * h / (h + p->h_half);
}

/* Active matmul parameters per token, and those a decode step of `batch`
 * sequences reads (routed experts: the ones the batch can touch). */
static void matmul_params(const gs_arch *a, double batch, double *active, double *read)
{
	double act = 0, rd = 0;

	for (int k = 0; k < a->n_kinds; k++) {
		const gs_layer_kind *lk = &a->kind[k];
		double la = 0, lr = 0;
		for (int i = 0; i < lk->n_lin; i++) {
			const gs_linear *l = &lk->lin[i];
			double one = (double)l->in * (double)l->out;
			double touched = (double)l->active * batch;
			la += one * (double)l->active;
			lr += one * (touched < (double)l->count ? touched : (double)l->count);
		}
		act += la * (double)lk->n_layers;
		rd += lr * (double)lk->n_layers;
	}
	/* The output head: vocab x hidden whether tied or not. */
	act += (double)a->vocab * (double)a->hidden;
	rd += (double)a->vocab * (double)a->hidden;
	*active = act;
	*read = rd;
}

/* Bytes per stored weight of an inference/adapter base. */
static double weight_bytes_per_param(gs_prec p)
{
	switch (p) {
	case GS_P_FP32:
	case GS_P_AMP_BF16:
	case GS_P_AMP_FP16:
		return 4;
	case GS_P_FP8:
	case GS_P_INT8:
		return 1;
	case GS_P_GPTQ_INT8:
		return 1 + 4.0 / 128;    /* fp16 scale + zero per group of 128 */
	case GS_P_GPTQ_INT4:
	case GS_P_AWQ_INT4:
		return 0.5 + 4.0 / 128;  /* 4 bits + fp16 scale and zero per group of 128 */
	case GS_P_NF4:
	case GS_P_NF4_LITGPT:
		return 0.5 + 4.0 / 64;   /* 4 bits + an fp32 absmax per block of 64 */
	case GS_P_NF4_DQ:
	case GS_P_NF4_TORCHAO:
	case GS_P_NF4_DQ_LITGPT:
		return 0.5 + 1.0 / 64 + 4.0 / (64 * 256); /* 8-bit absmax, fp32 per 256 blocks */
	default:
		return 2;
	}
}

/* GB/s one direction between GPUs: the link within a node, else PCIe, and
 * the network across nodes. */
static double comm_gbs(const gs_gpu *g, int64_t n, int64_t per_node)
{
	double pcie = g->pcie_gen > 0 && g->pcie_lanes > 0
	                  ? GS_TIME_PCIE_GBS_PER_LANE_GEN3 * pow(2, g->pcie_gen - 3) * g->pcie_lanes
	                  : GS_TIME_PCIE_GBS_PER_LANE_GEN3 * 2 * 16;
	double in_node = g->link_gbs > 0 ? g->link_gbs : pcie;
	if (n > per_node)
		return in_node < GS_TIME_NET_GBS ? in_node : GS_TIME_NET_GBS;
	return in_node;
}

/* Seconds of one pass over `tokens` tokens (all GPUs together): the GEMMs
 * at the efficiency of their size, attention at attn_eff of it, and the
 * memory-bound non-GEMM kernels (elem_bytes per hidden element, layer and
 * token; passes = 1 forward, 3 forward + backward, ...). */
static double pass_s(const gs_time_params *P, const gs_gpu *g, double n, double peak, double eff,
                     double gemm_flops, double attn_flops, double elem_units)
{
	double cmp = (gemm_flops + attn_flops / P->attn_eff) / (n * peak * 1e12 * eff);
	double mem = elem_units * P->elem_bytes / (n * g->bandwidth_gbs * 1e9);
	return cmp + mem;
}

/* A pass (prefill or a decode step) with the runtime's host time: the
 * larger of the two where the host overlaps the GPU (hf), else their sum. */
static double with_host(double gpu_s, double host_s, bool overlap)
{
	return overlap ? (gpu_s > host_s ? gpu_s : host_s) : gpu_s + host_s;
}

/* Never an absurd figure printed as an answer: a time that is not a
 * positive finite number (a degenerate shape) is refused, *t zeroed. */
static gs_err sane(gs_time *t, double key, gs_error *e)
{
	if (key > 0 && isfinite(key) && key < 1e12)
		return GS_OK;
	memset(t, 0, sizeof *t);
	return gs_fail(e, GS_EUSAGE, "time: the time model gives no finite time for this shape");
}

gs_err gs_time_estimate(const gs_arch *a, const gs_settings *s, const gs_gpu *g, const gs_time_opts *o,
                        gs_time *t, gs_error *e)
{
	gs_time_opts def;
	gs_time_params pdef;
	const gs_time_params *P;
	gs_prec prec = gs_settings_precision(s);
	double n_act, n_read, causal, d_attn, peak, n, tp, dp, ridge, L;
	bool adapter = s->method == GS_LORA || s->method == GS_QLORA;

	memset(t, 0, sizeof *t);
	if (o == NULL) {
		gs_time_opts_default(&def);
		o = &def;
	}
	if (o->params == NULL) {
		gs_time_params_default(&pdef);
		P = &pdef;
	} else {
		P = o->params;
	}
	if (!(g->bf16_tflops > 0) || !(g->bandwidth_gbs > 0))
		return gs_fail(e, GS_EUSAGE, "%s: the time model needs bf16_tflops and bandwidth_gbs", g->id);
	if (o->runtime < 0 || o->runtime >= GS_RT_MAX)
		return gs_fail(e, GS_EUSAGE, "time: unknown runtime %d", (int)o->runtime);
	if (o->train_runtime < 0 || o->train_runtime >= GS_TRT_MAX)
		return gs_fail(e, GS_EUSAGE, "time: unknown training runtime %d", (int)o->train_runtime);
	if (s->batch < 1 || s->seq < 1 || s->gpus < 1 || s->tp < 1)
		return gs_fail(e, GS_EUSAGE, "time: batch, seq, gpus and tp must be positive");

	n = (double)s->gpus;
	tp = (double)s->tp;
	dp = n / tp;
	L = (double)a->layers;
	matmul_params(a, (double)s->batch, &n_act, &n_read);
	t->n_mm = n_act;
	if (!(n_act > 0) || !(L > 0) || !(a->hidden > 0))
		return gs_fail(e, GS_EUSAGE, "time: the model's shape has no matmul work (%g parameters in "
		               "%g layers): no time to give", n_act, L);
	/* Score (q.k) and value GEMMs, 2 FLOPs a multiply-add: 2 * s * heads *
	 * (head_dim + v_head_dim) per token per layer, = 4 * s * h for MHA.
	 * Causal flash/sdpa kernels skip the masked half; eager computes it. */
	d_attn = (double)a->heads * (double)(a->head_dim + (a->v_head_dim > 0 ? a->v_head_dim : a->head_dim));
	causal = (!a->encoder && !gs_attn_eager(s->attn)) ? 0.5 : 1.0;

	if (s->method != GS_INFER) {
		double seq = (double)s->seq;
		double attn = 2 * seq * d_attn * L * causal;
		double fwd = 2 * n_act + attn;
		double bwd = adapter ? 2 * n_act + 2 * attn : 2 * fwd;
		/* passes of the forward's cost: 1 forward, 2 backward, 1 recompute */
		double passes = 3 + (s->grad_ckpt ? 1 : 0);
		double gemm_passes = (adapter ? 2 : 3) + (s->grad_ckpt ? 1 : 0);
		double micro = (double)s->batch * seq;     /* one micro-batch, one DP rank */
		double accum = (double)(s->grad_accum > 0 ? s->grad_accum : 1);
		double trainable = o->params_trainable > 0 ? (double)o->params_trainable
		                   : adapter ? 0.005 * (double)a->params_total : (double)a->params_total;
		double wbytes = adapter ? weight_bytes_per_param(prec) : 2;
		double gbs, shard = 1, optb;
		/* fp8 GEMMs: fp8-mixed full training, or an fp8 base under LoRA
		 * (Transformer Engine's fp8 LoRA, as NeMo's) */
		bool fp8 = (prec == GS_P_FP8_MIXED || (adapter && prec == GS_P_FP8)) && g->fp8_tflops > 0;

		t->flops_attn_tok = attn;
		t->flops_fwd_tok = fwd;
		t->tokens_step = micro * accum * dp;
		t->flops_step = (fwd + bwd + (s->grad_ckpt ? fwd : 0)) * t->tokens_step;
		t->model_flops_step = (fwd + bwd) * t->tokens_step;
		peak = fp8 ? g->fp8_tflops : g->bf16_tflops;
		t->peak_tflops = peak;
		ridge = peak * 1e12 / (g->bandwidth_gbs * 1e9) * (fp8 ? 1 : 2) / 2;
		t->eff = gs_time_eff(P, micro, ridge, (double)a->hidden) * (fp8 ? P->fp8_scale[o->train_runtime] : 1);
		/* PyTorch stacks reach a different share of each architecture's
		 * datasheet peak (constants.h); Megatron-Core, and a GPU of an
		 * architecture no record covers, take the all-records figure. */
		if (o->train_runtime == GS_TRT_PYTORCH && g->uarch > GS_UARCH_NONE && g->uarch < GS_UARCH_MAX &&
		    P->eff_max_uarch[g->uarch] > 0 && P->eff_max > 0)
			t->eff *= P->eff_max_uarch[g->uarch] / P->eff_max;
		t->compute_s = pass_s(P, g, n, peak, t->eff, 2 * n_act * gemm_passes * t->tokens_step,
		                      attn * 3 * t->tokens_step * (s->grad_ckpt ? 4.0 / 3 : 1),
		                      passes * t->tokens_step * L * (double)a->hidden);
		if (s->method == GS_QLORA || (adapter && gs_prec_quantized(prec)))
			t->compute_s *= P->dequant_train;
		/* Communication per GPU, one direction, overlapped with compute. */
		gbs = comm_gbs(g, s->gpus, o->gpus_per_node > 0 ? o->gpus_per_node : 8) * 1e9;
		if (dp > 1) {
			double ring = (dp - 1) / dp;
			double pw = (double)a->params_total / tp;
			if (s->sharding == GS_SH_ZERO3 || s->sharding == GS_SH_FSDP || s->sharding == GS_SH_FSDP2) {
				/* all-gather weights (forward and backward) and reduce-scatter
				 * gradients, every micro-batch */
				t->comm_s = accum * ring * (2 * pw * wbytes + trainable / tp * 2) / gbs;
				shard = dp;
			} else {
				/* all-reduce (reduce-scatter + all-gather) of the gradients */
				t->comm_s = 2 * ring * trainable / tp * 2 / gbs;
				if (s->sharding == GS_SH_ZERO1 || s->sharding == GS_SH_ZERO2)
					shard = dp;
			}
		}
		/* Optimizer step: AdamW-like, read weight, grad, 2 states (fp32) and
		 * write weight and states: 28 bytes a trainable parameter. */
		optb = (s->optimizer == GS_O_SGD ? 12 : 28) * trainable / tp / shard;
		t->optim_s = optb / (g->bandwidth_gbs * 1e9 * P->dec_bw_eff[GS_RT_COMPILED]);
		t->step_s = (t->compute_s > t->comm_s ? t->compute_s : t->comm_s) + t->optim_s;
		t->tp_unmodelled = s->tp > 1 ? (int)s->tp : 0;
		t->tok_s_total = t->tokens_step / t->step_s;
		t->tok_s_gpu = t->tok_s_total / n;
		t->mfu = t->model_flops_step / t->step_s / (n * peak * 1e12);
		if (o->tokens_budget > 0) {
			t->budget_s = o->tokens_budget / t->tok_s_total;
			t->gpu_hours = t->budget_s * n / 3600;
			t->cost_usd = t->gpu_hours * g->price_usd_hour;
		}
		return sane(t, t->step_s, e);
	}

	/* Inference: prefill of batch x seq prompt tokens, then new_tokens steps.
	 * A pipeline's stages run in turn: one GPU at a time works. */
	t->tp_unmodelled = s->tp > 1 ? (int)s->tp : 0;
	double paid = n;
	if (s->sharding == GS_SH_PIPELINE)
		n = 1;
	{
		double b = (double)s->batch, p = (double)s->seq, gen = (double)s->new_tokens;
		double bpp = weight_bytes_per_param(prec);
		double kvb = gs_dtype_bytes(s->kv_dtype_set ? s->kv_dtype : GS_DT_BF16);
		double ctx = p + gen / 2, attn_p = 2 * p * d_attn * L * causal;
		double mem_s, cmp_s, kv, gpu_s, rt_eff = P->prefill_eff[o->runtime];
		double host_s = L * P->dec_layer_s[o->runtime]; /* per pass: prefill or a decode step */
		bool overlap = rt_host_overlaps[o->runtime];
		bool fp8c = (prec == GS_P_FP8) && g->fp8_tflops > 0;

		peak = fp8c ? g->fp8_tflops : g->bf16_tflops;
		t->peak_tflops = peak;
		t->flops_fwd_tok = 2 * n_act + attn_p;
		t->flops_attn_tok = attn_p;
		ridge = peak * 1e12 / (g->bandwidth_gbs * 1e9) * (bpp < 2 ? bpp : 2) / 2;
		t->eff = gs_time_eff(P, b * p, ridge, (double)a->hidden) * rt_eff;
		if (gs_prec_quantized(prec))
			t->eff /= P->dequant_prefill;
		gpu_s = pass_s(P, g, n, peak, t->eff, 2 * n_act * b * p, attn_p * b * p, b * p * L * (double)a->hidden);
		t->prefill_s = with_host(gpu_s, host_s, overlap);
		t->weight_bytes = (o->weight_bytes > 0 ? o->weight_bytes * n_read / n_act : n_read * bpp) / tp;
		/* The KV cache of every sequence, at the mean context. */
		kv = b * ctx * (double)a->kv_cache_dim * L * kvb / tp;
		t->decode_bytes = t->weight_bytes + kv;
		mem_s = t->decode_bytes / (g->bandwidth_gbs * 1e9 * P->dec_bw_eff[o->runtime]);
		if (gs_prec_quantized(prec))
			mem_s *= P->dequant_decode;
		/* Compute floor of a step: b tokens at the saturated efficiency. */
		cmp_s = b * (2 * n_act + 2 * ctx * d_attn * L / P->attn_eff) / (n * peak * 1e12 * P->eff_max * rt_eff);
		t->decode_step_s = with_host(mem_s > cmp_s ? mem_s : cmp_s, host_s, overlap);
		t->decode_tok_s_seq = 1 / t->decode_step_s;
		t->decode_tok_s_total = b / t->decode_step_s;
		t->generate_s = t->prefill_s + gen * t->decode_step_s;
		t->usd_per_mtok = g->price_usd_hour * paid / 3600 / t->decode_tok_s_total * 1e6;
		return sane(t, t->prefill_s + t->decode_step_s, e);
	}
}

gs_err gs_time_row(const gs_arch *a, const gs_settings *s, const gs_estimate *x, const gs_gpu *g,
                   const gs_time_opts *o, gs_time *t, gs_error *e)
{
	gs_time_opts oo;

	if (o != NULL)
		oo = *o;
	else
		gs_time_opts_default(&oo);
	oo.params_trainable = x->params_trainable;
	gs_time_opts_stack(&oo, s->stack);
	return gs_time_estimate(a, s, g, &oo, t, e);
}

char *gs_time_fmt_secs(char *buf, size_t n, double sec)
{
	if (sec < 1)
		snprintf(buf, n, "%.1f ms", sec * 1e3);
	else if (sec < 120)
		snprintf(buf, n, "%.2f s", sec);
	else if (sec < 7200)
		snprintf(buf, n, "%.1f min", sec / 60);
	else if (sec < 3 * 86400)
		snprintf(buf, n, "%.1f h", sec / 3600);
	else
		snprintf(buf, n, "%.1f days", sec / 86400);
	return buf;
}

char *gs_time_fmt_count(char *buf, size_t n, double v)
{
	if (v >= 1e12)
		snprintf(buf, n, "%.3g T", v / 1e12);
	else if (v >= 1e9)
		snprintf(buf, n, "%.3g B", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, n, "%.3g M", v / 1e6);
	else
		snprintf(buf, n, "%.0f", v);
	return buf;
}

char *gs_time_fmt_usd(char *buf, size_t n, double usd)
{
	if (usd < 10)
		snprintf(buf, n, "$%.2f", usd);
	else
		snprintf(buf, n, "$%.0f", usd);
	return buf;
}
