/* gpusizer: the time model. See timing.h for the mechanisms, constants.h
 * (the GS_TIME_* block) and docs/time.md for the figures. Pure. */
#include "timing.h"

#include <stdio.h>

#include <math.h>
#include <string.h>
#include <strings.h>

#include "constants.h"
#include "stacks.h"

/* ---- Runtimes ------------------------------------------------------------ */

/* How a runtime keeps its KV cache: transformers' DynamicCache and the
 * legacy tuple cache torch.cat each layer's cache every step (CACHE_SETTING:
 * what --kv-cache says); the others write the new token in place. */
typedef enum rt_cache { CACHE_SETTING = 0, CACHE_INPLACE } rt_cache;

/* How a runtime all-reduces across tensor-parallel GPUs: NCCL (its ring,
 * the protocol its model gives the least time), or the engine's own
 * one-kernel all-reduce over the node's peer links. */
typedef enum rt_ar { AR_NCCL = 0, AR_CUSTOM } rt_ar;

typedef struct rt_info {
	const char *name;
	gs_rt_class cls;
	rt_cache cache;
	int64_t awq_dequant_at; /* gs_time_opts.dequant_at's default (0: never) */
	rt_ar ar;
} rt_info;

/* The runtime table (timing.h, gs_runtime). Caches: transformers
 * generate() per --kv-cache (cache_utils.py DynamicCache.update: torch.cat;
 * StaticCache: index_copy_); gpt-fast and torchao a static KVCache
 * (index_put); llama.cpp its ring of cells; vLLM, SGLang, TensorRT-LLM,
 * TurboMind and TGI paged blocks; AutoAWQ, ExLlama and DeepSpeed-Inference
 * preallocated caches written at the position. The AWQ GEMM kernel's
 * dequantize threshold: AutoAWQ's WQLinear_GEMM (gemm.py since 0.2.0,
 * AutoAWQ #316: batch x tokens >= 1024), which transformers' AWQ
 * integration runs, and vLLM's awq.py (since 0.3.0, vLLM #2566: tokens >=
 * 256); the others run their own int4 kernels. All-reduces: vLLM
 * (custom_all_reduce.cuh, default since 0.3 on NVLink), SGLang (its
 * custom_all_reduce) and TensorRT-LLM (its allReduce plugin) run their
 * own; the others, and every training stack, NCCL's (TurboMind's
 * TurbomindEngineConfig.communicator is 'nccl'; its 2023 releases read
 * enable_custom_all_reduce with a default of 0). */
static const rt_info runtimes[GS_RT_MAX] = {
	[GS_RT_HF] = { "hf", GS_RTC_HF, CACHE_SETTING, 1024, AR_NCCL },
	[GS_RT_COMPILED] = { "compiled", GS_RTC_COMPILED, CACHE_INPLACE, 0, AR_NCCL },
	[GS_RT_LLAMACPP] = { "llama.cpp", GS_RTC_LLAMACPP, CACHE_INPLACE, 0, AR_NCCL },
	[GS_RT_SERVING] = { "serving", GS_RTC_SERVING, CACHE_INPLACE, 0, AR_CUSTOM },
	[GS_RT_AUTOAWQ] = { "autoawq", GS_RTC_FUSED, CACHE_INPLACE, 1024, AR_NCCL },
	[GS_RT_VLLM] = { "vllm", GS_RTC_SERVING, CACHE_INPLACE, 256, AR_CUSTOM },
	[GS_RT_SGLANG] = { "sglang", GS_RTC_SERVING, CACHE_INPLACE, 0, AR_CUSTOM },
	[GS_RT_TRTLLM] = { "tensorrt-llm", GS_RTC_SERVING, CACHE_INPLACE, 0, AR_CUSTOM },
	[GS_RT_LMDEPLOY] = { "lmdeploy", GS_RTC_SERVING, CACHE_INPLACE, 0, AR_NCCL },
	[GS_RT_TGI] = { "tgi", GS_RTC_CUSTOM, CACHE_INPLACE, 0, AR_NCCL },
	[GS_RT_EXLLAMA] = { "exllama", GS_RTC_EXLLAMA, CACHE_INPLACE, 0, AR_NCCL },
	[GS_RT_DEEPSPEED] = { "deepspeed", GS_RTC_CUSTOM, CACHE_INPLACE, 0, AR_NCCL },
};

static const char *const rtc_names[GS_RTC_MAX] = { "hf", "compiled", "llama.cpp", "serving", "fused", "exllama", "custom" };
/* Classes whose host launches each layer's kernels from Python while the
 * GPU runs the previous ones: a pass takes the larger of the two times. The
 * others' per-layer time (launches and small kernels) adds to the GPU's. */
static const bool rtc_overlaps[GS_RTC_MAX] = { [GS_RTC_HF] = true, [GS_RTC_CUSTOM] = true };
/* Classes whose 16-bit GEMMs accumulate in FP16, at a GeForce card's
 * FP16-accumulate rate (gs_gpu_fp16_acc16_tflops): llama.cpp's cuBLAS path
 * for F16 weights and for quantized ones dequantized to F16
 * (ggml-cuda.cu, batched_mul_mat_traits<GGML_TYPE_F16>: CUBLAS_COMPUTE_16F;
 * its BF16 path computes in FP32), and ExLlama's prompt GEMMs (weights
 * reconstructed to fp16, then cublasHgemm). */
static const bool rtc_acc16[GS_RTC_MAX] = { [GS_RTC_LLAMACPP] = true, [GS_RTC_EXLLAMA] = true };

/* ---- Kernels -------------------------------------------------------------- */

/* How a kernel moves its weights: FUSED reads the packed weights once and
 * dequantizes in registers; DEQUANT_ABOVE1 is a fused GEMV at one token and
 * dequantize-to-16-bit + a dense GEMM above it (bitsandbytes 4-bit:
 * autograd/_functions.py matmul_4bit, gemv_4bit when A.numel() ==
 * A.shape[-1], else MatMul4Bit's F.dequantize_4bit then linear); DEQUANT
 * always dequantizes (the whole weight is written in 16 bits and read back
 * by the GEMM: 4 more bytes a parameter). */
typedef enum k_mode { K_FUSED = 0, K_DEQUANT_ABOVE1, K_DEQUANT } k_mode;
/* Which tensor cores its GEMMs run on. */
typedef enum k_peak { PEAK_16 = 0, PEAK_8, PEAK_4 } k_peak;

typedef struct k_info {
	const char *name;
	k_mode mode;
	k_peak peak;
	double bpp; /* bytes a linear weight when the kernel fixes them (0: the precision's) */
} k_info;

static const k_info kernels[GS_K_MAX] = {
	[GS_K_AUTO] = { "auto", K_FUSED, PEAK_16, 0 },
	[GS_K_DENSE] = { "dense", K_FUSED, PEAK_16, 0 },
	[GS_K_FP8] = { "fp8", K_FUSED, PEAK_8, 1 },
	[GS_K_FP8_WO] = { "fp8-wo", K_FUSED, PEAK_16, 1 },
	/* NVFP4: 4-bit codes and an fp8 scale per 16 weights (NVIDIA's NVFP4 format) */
	[GS_K_FP4] = { "fp4", K_FUSED, PEAK_4, 0.5 + 1.0 / 16 },
	[GS_K_W8A8] = { "w8a8", K_FUSED, PEAK_8, 1 },
	[GS_K_INT8_WO] = { "int8-wo", K_FUSED, PEAK_16, 0 },
	[GS_K_INT4_WO] = { "int4-wo", K_FUSED, PEAK_16, 0 },
	[GS_K_W4A8] = { "w4a8", K_FUSED, PEAK_8, 0 },
	[GS_K_MARLIN] = { "marlin", K_FUSED, PEAK_16, 0 },
	[GS_K_EXLLAMA] = { "exllama", K_FUSED, PEAK_16, 0 },
	[GS_K_EXLLAMAV2] = { "exllamav2", K_FUSED, PEAK_16, 0 },
	[GS_K_GPTQ_TRITON] = { "gptq-triton", K_FUSED, PEAK_16, 0 },
	[GS_K_AWQ_GEMM] = { "awq-gemm", K_FUSED, PEAK_16, 0 },
	[GS_K_AWQ_GEMV] = { "awq-gemv", K_FUSED, PEAK_16, 0 },
	[GS_K_BNB_NF4] = { "bnb-nf4", K_DEQUANT_ABOVE1, PEAK_16, 0 },
	[GS_K_BNB_INT8] = { "bnb-int8", K_FUSED, PEAK_16, 1 },
	[GS_K_BNB_INT8_DECOMP] = { "bnb-int8-decomp", K_FUSED, PEAK_16, 1 },
	[GS_K_BNB_INT8_COL32] = { "bnb-int8-col32", K_FUSED, PEAK_16, 1 },
	[GS_K_BNB_INT8_COL32_DECOMP] = { "bnb-int8-col32-decomp", K_FUSED, PEAK_16, 1 },
	/* DeepSpeed-Inference's int8 (0.7): the weights dequantized to fp16 before each GEMM */
	[GS_K_DS_INT8] = { "ds-int8", K_DEQUANT, PEAK_16, 1 },
	[GS_K_DEQUANT] = { "dequant", K_DEQUANT, PEAK_16, 0 },
};

void gs_time_params_default(gs_time_params *p)
{
	static const gs_time_params def = {
		.eff_max = GS_TIME_TRAIN_EFF_MAX,
		.eff_max_uarch = { [GS_UARCH_AMPERE] = GS_TIME_TRAIN_EFF_MAX_AMPERE,
		                   [GS_UARCH_ADA] = GS_TIME_TRAIN_EFF_MAX_ADA,
		                   [GS_UARCH_HOPPER] = GS_TIME_TRAIN_EFF_MAX_HOPPER },
		.x_half_ridge = GS_TIME_X_HALF_RIDGE,
		.elem_bytes = GS_TIME_ELEM_BYTES,
		.attn_eff = GS_TIME_ATTN_EFF,
		.attn_fa2 = { [GS_UARCH_HOPPER] = GS_TIME_ATTN_FA2_HOPPER },
		.eager_attn_bytes = GS_TIME_EAGER_ATTN_BYTES,
		.fp8_scale = { GS_TIME_FP8_EFF_SCALE, GS_TIME_FP8_EFF_SCALE_MEGATRON },
		.dequant_train = GS_TIME_DEQUANT_TRAIN,
		.mem_frac = { [GS_UARCH_NONE] = GS_TIME_MEM_READ_OTHER,
		              [GS_UARCH_VOLTA] = GS_TIME_MEM_READ_VOLTA,
		              [GS_UARCH_TURING] = GS_TIME_MEM_READ_OTHER,
		              [GS_UARCH_AMPERE] = GS_TIME_MEM_READ_AMPERE,
		              [GS_UARCH_ADA] = GS_TIME_MEM_READ_ADA,
		              [GS_UARCH_HOPPER] = GS_TIME_MEM_READ_HOPPER,
		              [GS_UARCH_BLACKWELL] = GS_TIME_MEM_READ_OTHER,
		              [GS_UARCH_CDNA3] = GS_TIME_MEM_READ_OTHER },
		.ar_base_us = GS_TIME_AR_BASE_US,
		.ar_hop_us = { GS_TIME_AR_HOP_US_NVLINK, GS_TIME_AR_HOP_US_PCIE, GS_TIME_AR_HOP_US_NET },
		.host_desktop = GS_TIME_HOST_DESKTOP,
		.dec_bw_eff = { GS_TIME_DECODE_BW_EFF_HF, GS_TIME_DECODE_BW_EFF_COMPILED,
		                GS_TIME_DECODE_BW_EFF_LLAMACPP, GS_TIME_DECODE_BW_EFF_SERVING,
		                GS_TIME_DECODE_BW_EFF_FUSED, GS_TIME_DECODE_BW_EFF_EXLLAMA, GS_TIME_DECODE_BW_EFF_CUSTOM },
		.dec_layer_s = { GS_TIME_DECODE_LAYER_S_HF, GS_TIME_DECODE_LAYER_S_COMPILED,
		                 GS_TIME_DECODE_LAYER_S_LLAMACPP, GS_TIME_DECODE_LAYER_S_SERVING,
		                 GS_TIME_DECODE_LAYER_S_FUSED, GS_TIME_DECODE_LAYER_S_EXLLAMA,
		                 GS_TIME_DECODE_LAYER_S_CUSTOM },
		.prefill_eff = { GS_TIME_PREFILL_EFF_HF, GS_TIME_PREFILL_EFF_COMPILED,
		                 GS_TIME_PREFILL_EFF_LLAMACPP, GS_TIME_PREFILL_EFF_SERVING,
		                 GS_TIME_PREFILL_EFF_FUSED, GS_TIME_PREFILL_EFF_EXLLAMA, GS_TIME_PREFILL_EFF_CUSTOM },
		/* kernels: at one token, and (below) above it where it differs; 1 =
		 * the runtime's dense rate */
		.k_eff1 = { [GS_K_AUTO] = 1, [GS_K_DENSE] = 1, [GS_K_FP8] = GS_TIME_K_FP8,
		            [GS_K_FP8_WO] = GS_TIME_K_FP8, [GS_K_FP4] = GS_TIME_K_FP8,
		            [GS_K_W8A8] = GS_TIME_K_W8A8, [GS_K_INT8_WO] = GS_TIME_K_INT8_WO,
		            [GS_K_INT4_WO] = GS_TIME_K_INT4_WO, [GS_K_W4A8] = GS_TIME_K_INT4_WO,
		            [GS_K_MARLIN] = GS_TIME_K_MARLIN, [GS_K_EXLLAMA] = GS_TIME_K_EXLLAMA,
		            [GS_K_EXLLAMAV2] = GS_TIME_K_EXLLAMAV2, [GS_K_GPTQ_TRITON] = GS_TIME_K_GPTQ_TRITON,
		            [GS_K_AWQ_GEMM] = GS_TIME_K_AWQ_GEMM_B1, [GS_K_AWQ_GEMV] = GS_TIME_K_AWQ_GEMV,
		            [GS_K_BNB_NF4] = GS_TIME_K_BNB_NF4_B1, [GS_K_BNB_INT8] = GS_TIME_K_BNB_INT8,
		            [GS_K_BNB_INT8_DECOMP] = GS_TIME_K_BNB_INT8, [GS_K_BNB_INT8_COL32] = GS_TIME_K_BNB_INT8,
		            [GS_K_BNB_INT8_COL32_DECOMP] = GS_TIME_K_BNB_INT8, [GS_K_DS_INT8] = GS_TIME_K_DEQUANT,
		            [GS_K_DEQUANT] = GS_TIME_K_DEQUANT },
		.k_host_s = { [GS_K_EXLLAMA] = GS_TIME_K_HOST_S_EXLLAMA, [GS_K_EXLLAMAV2] = GS_TIME_K_HOST_S_EXLLAMAV2,
		              [GS_K_BNB_NF4] = GS_TIME_K_HOST_S_BNB_NF4,
		              [GS_K_BNB_INT8] = GS_TIME_K_HOST_S_BNB_INT8,
		              [GS_K_BNB_INT8_DECOMP] = GS_TIME_K_HOST_S_BNB_INT8_DECOMP,
		              [GS_K_BNB_INT8_COL32] = GS_TIME_K_HOST_S_BNB_INT8_COL32,
		              [GS_K_BNB_INT8_COL32_DECOMP] = GS_TIME_K_HOST_S_BNB_INT8_COL32_DECOMP },
		.k_gemm = { [GS_K_AUTO] = 1, [GS_K_DENSE] = 1, [GS_K_FP8] = 1, [GS_K_FP8_WO] = 1, [GS_K_FP4] = 1,
		            [GS_K_W8A8] = 1, [GS_K_INT8_WO] = 1, [GS_K_INT4_WO] = GS_TIME_K_INT4_WO_PREFILL,
		            [GS_K_W4A8] = GS_TIME_K_INT4_WO_PREFILL,
		            [GS_K_MARLIN] = 1, [GS_K_EXLLAMA] = 1, [GS_K_EXLLAMAV2] = 1, [GS_K_GPTQ_TRITON] = 1,
		            [GS_K_AWQ_GEMM] = GS_TIME_K_AWQ_GEMM_PREFILL, [GS_K_AWQ_GEMV] = GS_TIME_K_AWQ_GEMV_PREFILL,
		            [GS_K_BNB_NF4] = 1, [GS_K_BNB_INT8] = 1, [GS_K_BNB_INT8_DECOMP] = 1,
		            [GS_K_BNB_INT8_COL32] = 1, [GS_K_BNB_INT8_COL32_DECOMP] = 1, [GS_K_DS_INT8] = 1,
		            [GS_K_DEQUANT] = GS_TIME_K_DEQUANT_PREFILL },
	};
	*p = def;
	/* above one token a kernel keeps its rate, but AWQ's GEMM has its own
	 * and bitsandbytes 4-bit dequantizes (K_DEQUANT_ABOVE1) */
	memcpy(p->k_effn, p->k_eff1, sizeof p->k_effn);
	p->k_effn[GS_K_AWQ_GEMM] = GS_TIME_K_AWQ_GEMM_BN;
	p->k_effn[GS_K_BNB_NF4] = GS_TIME_K_DEQUANT;
}

/* Names and their aliases, matched case-insensitively. */
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

const char *gs_runtime_name(gs_runtime r)
{
	return r >= 0 && r < GS_RT_MAX ? runtimes[r].name : "";
}

int gs_runtime_parse(const char *s)
{
	static const rt_alias alias[] = {
		{ "transformers", GS_RT_HF }, { "gpt-fast", GS_RT_COMPILED }, { "torchao", GS_RT_COMPILED },
		{ "llamacpp", GS_RT_LLAMACPP }, { "trt-llm", GS_RT_TRTLLM }, { "turbomind", GS_RT_LMDEPLOY },
		{ "text-generation-inference", GS_RT_TGI }, { "exllamav2", GS_RT_EXLLAMA },
		{ "deepspeed-inference", GS_RT_DEEPSPEED },
	};
	for (int r = 0; r < GS_RT_MAX; r++)
		if (strcasecmp(s, runtimes[r].name) == 0)
			return r;
	return alias_find(alias, sizeof alias / sizeof alias[0], s);
}

gs_rt_class gs_runtime_class(gs_runtime r)
{
	return r >= 0 && r < GS_RT_MAX ? runtimes[r].cls : GS_RTC_MAX;
}

const char *gs_rt_class_name(gs_rt_class c)
{
	return c >= 0 && c < GS_RTC_MAX ? rtc_names[c] : "";
}

int gs_rt_class_parse(const char *s)
{
	for (int c = 0; c < GS_RTC_MAX; c++)
		if (strcasecmp(s, rtc_names[c]) == 0)
			return c;
	return -1;
}

const char *gs_kernel_name(gs_kernel k)
{
	return k >= 0 && k < GS_K_MAX ? kernels[k].name : "";
}

int gs_kernel_parse(const char *s)
{
	for (int k = 0; k < GS_K_MAX; k++)
		if (strcasecmp(s, kernels[k].name) == 0)
			return k;
	return -1;
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
	o->kernel = GS_K_AUTO;
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

double gs_time_eff(const gs_time_params *p, double x, double ridge)
{
	return x <= 0 ? 0 : p->eff_max * x / (x + p->x_half_ridge * ridge);
}

/* ---- Per-layer helpers ---------------------------------------------------
 * The time model reads a model's layers kind by kind (core/arch.h's
 * per-kind accessors, the engine's too): what each layer's attention
 * reads and its cache holds, a state layer's recurrent state, each
 * mixer's FLOPs. A sliding or chunked layer reads its window, a Gated
 * DeltaNet or Mamba-2 layer its state (constant in the context), an
 * attention-free block nothing. */

/* Tokens of one layer of kind k its attention reads at a context of ctx:
 * every token, or the window of a sliding or chunked layer; none for the
 * state kinds. */
static double kind_kv_read(const gs_layer_kind *k, double ctx)
{
	return gs_kind_kv_tokens(k, ctx, true); /* min(ctx, window): what a query attends */
}

/* Mean keys a query of a p-token prompt attends in a layer of kind k:
 * causal flash/sdpa kernels skip the masked half, eager computes it. */
static double kind_prompt_keys(const gs_layer_kind *k, double p, bool causal)
{
	double w = kind_kv_read(k, p);
	if (!causal || w <= 0)
		return w;
	/* mean over positions 1..p of min(pos, w) */
	return w >= p ? (p + 1) / 2 : w - w * (w - 1) / (2 * p);
}

/* The sums over layers the passes need. */
typedef struct layer_sums {
	double kv_read;   /* cache bytes the attention reads, a sequence */
	double kv_read_q; /* the same read once per query head of each GQA group */
	double kv_held;   /* cache bytes held, a sequence (what a rebuild copies: the
	                     default cache keeps a sliding layer's window less one) */
	double state;     /* recurrent and conv state bytes, a sequence (read and written
	                     each step) */
	double attn_flops; /* mixer FLOPs of one query token at the context */
} layer_sums;

static layer_sums layers_at(const gs_arch *a, double ctx, double elem)
{
	layer_sums r = { 0, 0, 0, 0, 0 };

	for (int i = 0; i < a->n_kinds; i++) {
		const gs_layer_kind *k = &a->kind[i];
		double n = (double)k->n_layers, tok = (double)k->kv_dim * elem, read = n * tok * kind_kv_read(k, ctx);
		r.kv_read += read;
		r.kv_read_q += read * gs_kind_q_per_kv(a, k);
		r.kv_held += n * tok * gs_kind_kv_tokens(k, ctx, false);
		r.state += n * gs_kind_state_bytes(k, elem);
		r.attn_flops += n * gs_kind_mixer_flops_token(a, k, ctx);
	}
	return r;
}

/* Mixer FLOPs a prompt token of a p-token prompt costs, all layers (an
 * attention kind at its mean keys; a state kind's FLOPs do not depend on
 * the context). */
static double prompt_attn_flops(const gs_arch *a, double p, bool causal)
{
	double f = 0;

	for (int i = 0; i < a->n_kinds; i++) {
		const gs_layer_kind *k = &a->kind[i];
		f += (double)k->n_layers * gs_kind_mixer_flops_token(a, k, kind_prompt_keys(k, p, causal));
	}
	return f;
}

/* ---- Matmul parameters ---------------------------------------------------- */

typedef struct mm_params {
	double lin_act;   /* decoder-layer linear parameters a token goes through */
	double lin_read;  /* those a step of the batch reads (routed experts it reaches) */
	double lin_calls; /* linear module calls a step (per layer summed) */
	double head;      /* the output head, vocab x hidden, tied or not */
} mm_params;

static mm_params matmul_params(const gs_arch *a, double batch)
{
	mm_params m = { 0, 0, 0, (double)a->vocab * (double)a->hidden };

	for (int k = 0; k < a->n_kinds; k++) {
		const gs_layer_kind *lk = &a->kind[k];
		double la = 0, lr = 0, lc = 0;
		for (int i = 0; i < lk->n_lin; i++) {
			const gs_linear *l = &lk->lin[i];
			double one = (double)l->in * (double)l->out;
			double touched = (double)l->active * batch;
			double reached = touched < (double)l->count ? touched : (double)l->count;
			la += one * (double)l->active;
			lr += one * reached;
			lc += reached;
		}
		m.lin_act += la * (double)lk->n_layers;
		m.lin_read += lr * (double)lk->n_layers;
		m.lin_calls += lc * (double)lk->n_layers;
	}
	return m;
}

/* The GEMMs' arithmetic intensity at `tokens` tokens a call, FLOP-weighted:
 * an (M x K)(K x N) GEMM does 2MKN FLOPs over 2(MK + KN + MN) bytes of
 * 16-bit operands, so MKN / (MK + KN + MN) = 1 / (1/M + 1/K + 1/N) FLOPs a
 * byte (a backward GEMM has the same three sizes). M is the tokens each
 * instance sees (a routed expert: tokens x top-k / experts, at least one,
 * times the ep ranks whose tokens an expert-parallel rank's experts take);
 * under tensor parallelism a column-parallel linear splits its outputs, a
 * row-parallel one (attention output, MLP down) its inputs, the head its
 * vocabulary. The harmonic mean over the GEMMs weighted by their FLOPs puts
 * the curve's x / (x + ridge) at the sum of each GEMM's compute and its
 * operands' traffic. The head runs over head_tokens. */
static double gemm_intensity(const gs_arch *a, double tokens, double head_tokens, double tp, double ep)
{
	double f_sum = 0, t_sum = 0, hv;

	for (int k = 0; k < a->n_kinds; k++) {
		const gs_layer_kind *lk = &a->kind[k];
		for (int i = 0; i < lk->n_lin; i++) {
			const gs_linear *l = &lk->lin[i];
			bool row = l->role == GS_ROLE_O || l->role == GS_ROLE_DOWN;
			double in = (double)l->in / (row ? tp : 1), out = (double)l->out / (row ? 1 : tp);
			double m = tokens * (double)l->active * (l->expert ? ep : 1) /
			           (double)(l->count > 0 ? l->count : 1);
			double f = tokens * (double)lk->n_layers * (double)l->active * in * out;
			if (m < 1)
				m = 1;
			f_sum += f;
			t_sum += f * (1 / m + 1 / in + 1 / out);
		}
	}
	hv = head_tokens * (double)a->hidden * (double)a->vocab / tp;
	if (hv > 0) {
		f_sum += hv;
		t_sum += hv * (1 / head_tokens + 1 / (double)a->hidden + tp / (double)a->vocab);
	}
	return t_sum > 0 ? f_sum / t_sum : tokens;
}

/* Bytes a stored linear weight weighs, on average over the linears a
 * step reaches (batch tokens through the routed experts): the precision
 * table's layout, scales included (gs_prec_weight_bytes, as the engine
 * sizes them), and the compute dtype's two bytes for what a format leaves
 * unquantized (MXFP4 stores only the routed experts so). */
static double linears_bpp(const gs_arch *a, gs_prec p, double batch)
{
	const gs_prec_info *r = gs_prec_info_of(p);
	double bytes = 0, n = 0;

	for (int k = 0; r != NULL && k < a->n_kinds; k++) {
		const gs_layer_kind *lk = &a->kind[k];
		for (int i = 0; i < lk->n_lin; i++) {
			const gs_linear *l = &lk->lin[i];
			double one = (double)l->in * (double)l->out;
			double touched = (double)l->active * batch;
			double reached = (touched < (double)l->count ? touched : (double)l->count) * (double)lk->n_layers;
			double b = r->experts_only && !l->expert ? 2 * one : gs_prec_weight_bytes(p, l->in, l->out);
			bytes += b * reached;
			n += one * reached;
		}
	}
	return n > 0 ? bytes / n : r != NULL ? r->value_bytes : 2;
}

/* The kernel a runtime runs for a precision when none is named: 16-bit
 * weights dense; fp8 on fp8 tensor cores; bitsandbytes' own; GPTQ through
 * ExLlamaV2 under transformers and ExLlama (optimum's default for 4-bit),
 * Marlin in the serving engines (vLLM gptq_marlin/awq_marlin), tinygemm-like
 * int4 under torch.compile, TensorRT-LLM's and TurboMind's weight-only
 * kernels; AWQ's GEMM under transformers and AutoAWQ. */
static gs_kernel kernel_for(gs_kernel asked, gs_runtime r, gs_prec p)
{
	gs_rt_class c = runtimes[r].cls;
	bool serving = c == GS_RTC_SERVING && r != GS_RT_TRTLLM && r != GS_RT_LMDEPLOY;

	if (asked != GS_K_AUTO)
		return asked;
	switch (p) {
	case GS_P_FP8:
		return GS_K_FP8;
	case GS_P_INT8:
		return c == GS_RTC_HF || c == GS_RTC_FUSED ? GS_K_BNB_INT8_DECOMP : GS_K_W8A8;
	case GS_P_NF4:
	case GS_P_NF4_DQ:
	case GS_P_NF4_TORCHAO:
	case GS_P_NF4_LITGPT:
	case GS_P_NF4_DQ_LITGPT:
		return c == GS_RTC_COMPILED ? GS_K_INT4_WO : GS_K_BNB_NF4;
	case GS_P_GPTQ_INT4:
	case GS_P_GPTQ_INT8:
	case GS_P_AWQ_INT4:
		if (serving)
			return GS_K_MARLIN;
		if (c == GS_RTC_COMPILED || c == GS_RTC_SERVING || c == GS_RTC_LLAMACPP)
			return p == GS_P_GPTQ_INT8 ? GS_K_INT8_WO : GS_K_INT4_WO;
		if (p == GS_P_AWQ_INT4)
			return GS_K_AWQ_GEMM;
		return p == GS_P_GPTQ_INT8 ? GS_K_INT8_WO : GS_K_EXLLAMAV2;
	default:
		return GS_K_DENSE;
	}
}

/* ---- Links and collectives ------------------------------------------------ */

enum { LINK_NVLINK = 0, LINK_PCIE, LINK_NET };

static double pcie_gbs(const gs_gpu *g)
{
	return g->pcie_gen > 0 && g->pcie_lanes > 0
	           ? GS_TIME_PCIE_GBS_PER_LANE_GEN3 * pow(2, g->pcie_gen - 3) * g->pcie_lanes
	           : GS_TIME_PCIE_GBS_PER_LANE_GEN3 * 2 * 16;
}

/* The link GPUs of g talk over within a node, and its GB/s one direction:
 * the GPU-to-GPU link where the file gives one, else PCIe. */
static int node_link(const gs_gpu *g, double *gbs)
{
	*gbs = g->link_gbs > 0 ? g->link_gbs : pcie_gbs(g);
	return g->link_gbs > 0 ? LINK_NVLINK : LINK_PCIE;
}

/* The link kind n GPUs of g talk over, and its GB/s one direction: the
 * node's link (node_link), and the network across nodes. */
static int link_of(const gs_gpu *g, int64_t n, int64_t per_node, double *gbs)
{
	double in_node;
	int kind = node_link(g, &in_node);
	if (n > per_node) {
		*gbs = in_node < GS_TIME_NET_GBS ? in_node : GS_TIME_NET_GBS;
		return LINK_NET;
	}
	*gbs = in_node;
	return kind;
}

static double coll_latency_s(const gs_time_params *P, int kind, int64_t steps)
{
	return (P->ar_base_us + (double)steps * P->ar_hop_us[kind]) * 1e-6;
}

/* The bus bandwidth of a ring collective (all-reduce, all-gather,
 * reduce-scatter) whose ranks span `span` GPUs of g. NCCL runs a ring per
 * channel, one or two channels a NIC, so across nodes each channel
 * crosses the network once a node: the ring's bus bandwidth is the node's
 * NICs together (per_node x NET_GBS), bounded by the link within the node
 * (src/graph/tuning.cc: busBw = nChannels x bwInter). A point-to-point
 * exchange (an all-to-all, a stage hand-off) goes through each GPU's own
 * NIC instead: link_of. */
static double ring_gbs(const gs_gpu *g, int64_t span, int64_t per_node)
{
	double gbs, nics = GS_TIME_NET_GBS * (double)per_node;

	node_link(g, &gbs);
	return span <= per_node || gbs < nics ? gbs : nics;
}

/* NCCL's ring protocols (constants.h, tuning.cc v2.21.5): LL takes its
 * latencies from the figures (gs_time_params: the all-to-all's too). */
enum { PROTO_LL = 0, PROTO_LL128, PROTO_SIMPLE, PROTO_MAX };

typedef struct ring_proto {
	double base_us, hop_us[3]; /* NVLink, PCIe, network */
	double share;              /* of the ring's bus bandwidth */
} ring_proto;

static const ring_proto ring_protos[PROTO_MAX] = {
	[PROTO_LL] = { 0, { 0, 0, 0 }, GS_TIME_AR_LL_BW_SHARE },
	[PROTO_LL128] = { GS_TIME_AR_LL128_BASE_US,
	                  { GS_TIME_AR_LL128_HOP_US_NVLINK, GS_TIME_AR_LL128_HOP_US_PCIE, GS_TIME_AR_LL128_HOP_US_NET },
	                  GS_TIME_AR_LL128_BW_SHARE },
	[PROTO_SIMPLE] = { GS_TIME_AR_SIMPLE_BASE_US,
	                   { GS_TIME_AR_SIMPLE_HOP_US_NVLINK, GS_TIME_AR_SIMPLE_HOP_US_PCIE, GS_TIME_AR_SIMPLE_HOP_US_NET },
	                   1 },
};

/* LL's bus-bandwidth cap: one node's by its GPUs' architecture (an
 * unknown one, Volta's, the lowest), across nodes by their count. */
static double ll_max_gbs(const gs_gpu *g, int64_t nodes)
{
	if (nodes > 2)
		return GS_TIME_AR_LL_MAX_GBS_NODES;
	if (nodes == 2)
		return GS_TIME_AR_LL_MAX_GBS_2NODES;
	switch (g->uarch) {
	case GS_UARCH_AMPERE:
	case GS_UARCH_ADA:
		return GS_TIME_AR_LL_MAX_GBS_AMPERE;
	case GS_UARCH_HOPPER:
	case GS_UARCH_BLACKWELL:
		return GS_TIME_AR_LL_MAX_GBS_HOPPER;
	default:
		return GS_TIME_AR_LL_MAX_GBS_VOLTA;
	}
}

/* Seconds of one such ring collective of `ranks` ranks spanning `span`
 * GPUs, `rounds` times round the ring (2 for an all-reduce, 1 for an
 * all-gather or a reduce-scatter), each rank moving `share` of `bytes` a
 * round ((ranks - 1) / ranks), under the protocol NCCL's model gives the
 * least time: a protocol's base latency, a step's over the node's link or,
 * for the steps that cross nodes (2 x nodes for an all-reduce, nodes - 1
 * else), the network's (tuning.cc: (nsteps - nInterSteps) x intraLat +
 * nInterSteps x interLat); its share of the bus bandwidth. An engine's own
 * all-reduce (AR_CUSTOM: one kernel reading its peers' buffers over the
 * links, no protocol staging) takes LL's latency at the full bandwidth;
 * it works within a node only (vLLM's and TensorRT-LLM's fall back to
 * NCCL across nodes). */
static double ring_coll_s(const gs_time_params *P, const gs_gpu *g, int64_t ranks, int64_t span, int64_t per_node,
                          int rounds, double share, double bytes, rt_ar ar)
{
	double gbs, bus = ring_gbs(g, span, per_node), moved = rounds * share * bytes, best = -1;
	int intra = node_link(g, &gbs);
	int64_t nodes = span > per_node ? (span + per_node - 1) / per_node : 1;
	int64_t steps = rounds * (ranks - 1), inter = nodes > 1 ? (rounds == 2 ? 2 * nodes : nodes - 1) : 0;
	bool ll128 = intra == LINK_NVLINK &&
	             (g->uarch == GS_UARCH_VOLTA || g->uarch == GS_UARCH_AMPERE || g->uarch == GS_UARCH_HOPPER);

	if (ranks <= 1)
		return 0;
	if (inter > steps)
		inter = steps;
	if (ar == AR_CUSTOM && nodes == 1)
		return coll_latency_s(P, intra, steps) + moved / (bus * 1e9);
	for (int p = 0; p < PROTO_MAX; p++) {
		const ring_proto *r = &ring_protos[p];
		double base = p == PROTO_LL ? P->ar_base_us : r->base_us;
		const double *hop = p == PROTO_LL ? P->ar_hop_us : r->hop_us;
		double bw = bus * r->share, t;

		if (p == PROTO_LL128 && !ll128)
			continue;
		if (p == PROTO_LL && bw > ll_max_gbs(g, nodes))
			bw = ll_max_gbs(g, nodes);
		t = (base + (double)(steps - inter) * hop[intra] + (double)inter * hop[LINK_NET]) * 1e-6 + moved / (bw * 1e9);
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

static double allreduce_s(const gs_time_params *P, const gs_gpu *g, int64_t n, int64_t per_node, double bytes,
                          rt_ar ar)
{
	return ring_coll_s(P, g, n, n, per_node > 0 ? per_node : 8, 2, n > 1 ? (double)(n - 1) / (double)n : 0, bytes,
	                   ar);
}

double gs_time_allreduce_s(const gs_time_params *p, const gs_gpu *g, int64_t n, int64_t per_node, double bytes)
{
	gs_time_params def;

	if (n <= 1)
		return 0;
	if (p == NULL) {
		gs_time_params_default(&def);
		p = &def;
	}
	return allreduce_s(p, g, n, per_node, bytes, AR_NCCL);
}

/* ---- Shared pieces ---------------------------------------------------------- */

/* A share of a peak, never past it: the time model never beats the
 * datasheet, whatever figures it is given. */
static double unit(double f)
{
	return f < 1 ? f : 1;
}

/* The index of g's architecture in the per-architecture figures
 * (gs_time_params' *_uarch, mem_frac, attn_fa2); GS_UARCH_NONE for none or
 * one out of range. */
static int uarch_of(const gs_gpu *g)
{
	return g->uarch > GS_UARCH_NONE && g->uarch < GS_UARCH_MAX ? (int)g->uarch : GS_UARCH_NONE;
}

/* Bytes a second a memory-bound kernel can stream on g: the datasheet
 * bandwidth times a read stream's share of it on its architecture. */
static double stream_bw(const gs_time_params *P, const gs_gpu *g)
{
	int u = uarch_of(g);
	double f = P->mem_frac[u] > 0 ? P->mem_frac[u] : P->mem_frac[GS_UARCH_NONE];
	return g->bandwidth_gbs * 1e9 * (f > 0 ? unit(f) : 1);
}

/* The peak a kernel's GEMMs run at: fp4 and fp8 tensor cores where the GPU
 * has them (fp4 falls back to fp8, both to bf16); 16-bit GEMMs that
 * accumulate in FP16 (acc16) at that rate (gs_gpu_fp16_acc16_tflops). */
static double kernel_peak(const gs_gpu *g, k_peak k, bool acc16)
{
	if (k == PEAK_4 && g->fp4_tflops > 0)
		return g->fp4_tflops;
	if ((k == PEAK_4 || k == PEAK_8) && g->fp8_tflops > 0)
		return g->fp8_tflops;
	return acc16 && k == PEAK_16 ? gs_gpu_fp16_acc16_tflops(g) : g->bf16_tflops;
}

/* Seconds of one pass over `tokens` tokens (all GPUs together): the GEMMs
 * at the efficiency of their size, attention at attn_eff of it (its
 * kernel's: train_attn_eff), and the memory-bound non-GEMM kernels
 * (elem_bytes per hidden element, layer and token; passes = 1 forward, 3
 * forward + backward, ...) plus `extra` bytes. */
static double pass_s(const gs_time_params *P, const gs_gpu *g, double n, double peak, double eff, double attn_eff,
                     double gemm_flops, double attn_flops, double elem_units, double extra_bytes)
{
	double cmp = (gemm_flops + attn_flops / (attn_eff < 1 ? attn_eff : 1)) / (n * peak * 1e12 * unit(eff));
	double mem = (elem_units * P->elem_bytes + extra_bytes) / (n * stream_bw(P, g));
	return cmp + mem;
}

/* Bytes the loss moves per logit (one vocabulary entry of one token),
 * forward and backward, each tensor written once and read once, with the
 * logits at cb bytes. PyTorch's cross-entropy on 16-bit logits (autocast
 * runs log_softmax and nll_loss in fp32; torchtune's chunked loss
 * up-casts each chunk the same way): the up-cast (read cb, write 4),
 * log_softmax (read and write 4), NLL's backward writing the full gradient
 * (4), log_softmax's backward (read the gradient and the output, write 4),
 * the down-cast of the gradient (read 4, write cb): 36 for bf16. A loss in
 * the compute dtype (--loss-dtype compute) skips both casts. transformers'
 * legacy loss (before 4.46) also writes and reads a shifted fp32 copy of
 * the logits and copies its gradient back (4 x 4 more). A fused loss
 * (Liger's, Unsloth's) or a compiled one reads the 16-bit logits twice
 * (the reduction, then the gradient) and writes the gradient once. */
static double loss_elem_bytes(const gs_settings *s, double cb)
{
	double lb = s->loss_dtype == GS_LD_COMPUTE ? cb : 4;

	if (gs_loss_fused(s->loss) || s->compile)
		return 3 * cb;
	return (cb < lb ? 2 * (cb + lb) : 0) + 6 * lb + (s->loss == GS_LOSS_LEGACY ? 4 * lb : 0);
}

/* A training step's attention rate relative to its GEMMs': the
 * architecture's own kernel's (attn_eff), a FlashAttention-2-class kernel's
 * share of it where that kernel has no path for the architecture
 * (attn_fa2). */
static double train_attn_eff(const gs_time_params *P, const gs_gpu *g, const gs_settings *s,
                             const gs_time_opts *o)
{
	bool fa2 = o->attn_kernel == GS_AK_FA2 ||
	           (o->attn_kernel == GS_AK_AUTO && o->train_runtime == GS_TRT_PYTORCH && s->attn == GS_ATTN_FLASH);
	int u = uarch_of(g);

	return P->attn_eff * (fa2 && P->attn_fa2[u] > 0 ? P->attn_fa2[u] : 1);
}

/* Eager attention's score traffic a layer, one forward, per sequence of s
 * tokens: every (query, key) score of every head written and read back
 * (modeling_*.py eager_attention_forward: matmul, + mask, softmax in fp32,
 * .to(dtype), matmul with v: eager_attn_bytes an element). */
static double eager_attn_bytes(const gs_time_params *P, const gs_arch *a, double s)
{
	return P->eager_attn_bytes * (double)a->heads * s * s;
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

/* ---- Training ---------------------------------------------------------------- */

/* What expert parallelism (--ep) changes in a step. */
typedef struct ep_split {
	double ep;          /* expert-parallel ranks (1: none, or no routed experts) */
	double routed;      /* the routed experts' share of params_total */
	double moe_layers;  /* layers with routed experts */
	double copies;      /* token copies a dispatch sends, per token, summed over those
	                       layers (each layer's top-k) */
	double to_ranks;    /* the other ranks a token's top-k reach, summed the same way */
	double to_nodes;    /* the other nodes they reach (ep ranks over several nodes) */
	bool dedup;         /* gs_time_opts.ep_dedup */
} ep_split;

/* The chance that none of a token's k experts, drawn evenly among e, is
 * one of a given m: C(e - m, k) / C(e, k). The records' routers are
 * balanced (a "fake balanced gate", tokens "force-balanced"); a trained
 * router is balanced in aggregate by its auxiliary loss. */
static double none_of(double e, double m, double k)
{
	double p = 1;

	for (int i = 0; i < (int)k && p > 0; i++)
		p *= e - m - i > 0 ? (e - m - i) / (e - i) : 0;
	return p;
}

static ep_split ep_of(const gs_arch *a, const gs_settings *s, const gs_time_opts *o, int64_t per_node)
{
	ep_split x = { s->ep > 1 ? (double)s->ep : 1, 0, 0, 0, 0, 0, o->ep_dedup };
	double routed = 0, nodes;

	for (int k = 0; k < a->n_kinds; k++) {
		const gs_layer_kind *lk = &a->kind[k];
		for (int i = 0; i < lk->n_lin; i++)
			if (lk->lin[i].expert)
				routed += (double)lk->n_layers * (double)gs_linear_params(&lk->lin[i]);
		if (lk->n_experts > 0) {
			double e = (double)lk->n_experts, topk = (double)lk->experts_per_tok;
			x.moe_layers += (double)lk->n_layers;
			x.copies += (double)lk->n_layers * topk;
			if (!x.dedup || x.ep <= 1)
				continue;
			x.to_ranks += (double)lk->n_layers * (x.ep - 1) * (1 - none_of(e, e / x.ep, topk));
			nodes = ceil(x.ep / (double)per_node);
			if (nodes > 1)
				x.to_nodes += (double)lk->n_layers * (nodes - 1) * (1 - none_of(e, e / nodes, topk));
		}
	}
	x.routed = a->params_total > 0 && routed > 0 ? routed / (double)a->params_total : 0;
	if (x.routed > 1)
		x.routed = 1;
	if (x.routed <= 0 || x.copies <= 0)
		x.ep = 1;
	return x;
}

/* The parameters a GPU keeps when nothing shards them: every one, the
 * routed experts' 1 / ep of them. */
static double ep_local(const ep_split *x)
{
	return 1 - x->routed + x->routed / x->ep;
}

/* The share of the parameters a ring collective among dp ranks moves
 * through a GPU's link: (dp - 1) / dp of each, the routed experts' own
 * 1 / ep among the dp / ep ranks that hold the same experts. */
static double ring_share(const ep_split *x, double dp)
{
	double dpe = dp / x->ep;
	return (1 - x->routed) * (dp - 1) / dp + x->routed / x->ep * (dpe - 1) / dpe;
}

/* Seconds of a step's all-to-alls over a stage's MoE layers: `rounds`
 * rounds (a dispatch and a combine a layer forward, two backward, two more
 * under recompute, every micro-batch), each sending `tokens` tokens'
 * hidden states in 16 bits over the link ep ranks share, with NCCL's
 * latency a layer. Megatron-Core's MoEAlltoAllTokenDispatcher sends a copy
 * per routed expert, (ep - 1) / ep of them to other ranks. DeepEP's normal
 * kernels (x->dedup) send a token once to each other rank that holds one
 * of its experts (get_dispatch_layout's is_token_in_rank) and, across
 * nodes, once over the network to each other node, whose NVLink forwards
 * it to its ranks (internode.cu, SourceMeta's is_token_in_nvl_rank_bits):
 * the network's share and the node links' run at once. A tensor-parallel
 * rank sends its sequence-parallel share of the tokens. */
static double ep_alltoall_s(const gs_time_params *P, const gs_gpu *g, const ep_split *x, int64_t per_node,
                            double rounds, double tokens, double h, double pp)
{
	double gbs, bytes, in_node, nvl;
	int kind;

	if (x->ep <= 1)
		return 0;
	kind = link_of(g, (int64_t)x->ep, per_node, &gbs);
	bytes = tokens * h * 2;
	if (!x->dedup)
		bytes *= (x->ep - 1) / x->ep * x->copies / (gbs * 1e9);
	else if (kind != LINK_NET)
		bytes *= x->to_ranks / (gbs * 1e9);
	else {
		node_link(g, &in_node);
		nvl = bytes * x->to_ranks / (in_node * 1e9);
		bytes *= x->to_nodes / (gbs * 1e9);
		if (nvl > bytes)
			bytes = nvl;
	}
	return rounds * (x->moe_layers * coll_latency_s(P, kind, (int64_t)x->ep - 1) + bytes) / pp;
}

/* What data parallelism moves in a step (dp_exposed). */
typedef struct dp_job {
	double dp, n, tp, pp, layers;     /* data-parallel ranks, GPUs, splits, layers */
	double params, wbytes, trainable; /* all parameters, bytes a weight read, trainable ones */
	double accum, mb_s, bwd_share;    /* micro-batches, one's seconds, the backward's share of it */
	int64_t per_node;
} dp_job;

/* A step's data-parallel traffic per GPU, one direction, into t->comm_s;
 * the optimizer's shard into *shard; returns the part of the traffic that
 * compute does not hide. ZeRO-3/FSDP all-gather the weights (forward and
 * backward) and reduce-scatter the gradients every micro-batch, a layer
 * at a time, each overlapped with that micro-batch's compute; DDP and
 * ZeRO-1/2 all-reduce (reduce-scatter + all-gather) the gradients in
 * buckets (DDP's 25 MB), overlapped with the last micro-batch's backward.
 * Every collective is NCCL's. */
static double dp_exposed(const gs_time_params *P, const gs_gpu *g, const gs_settings *s, const ep_split *x,
                         const dp_job *j, gs_time *t, double *shard)
{
	double ring = ring_share(x, j->dp), lp = j->layers / j->pp, part = j->tp * j->pp, bytes, buckets;
	int64_t dp = (int64_t)j->dp, n = (int64_t)j->n;

	if (j->dp <= 1)
		return 0;
	if (s->sharding == GS_SH_ZERO3 || s->sharding == GS_SH_FSDP || s->sharding == GS_SH_FSDP2) {
		double mb_comm = lp * (2 * ring_coll_s(P, g, dp, n, j->per_node, 1, ring, j->params / part * j->wbytes / lp,
		                                       AR_NCCL) +
		                       ring_coll_s(P, g, dp, n, j->per_node, 1, ring, j->trainable / part * 2 / lp, AR_NCCL));
		t->comm_s = j->accum * mb_comm;
		*shard = j->dp;
		return j->accum * (mb_comm > j->mb_s ? mb_comm - j->mb_s : 0);
	}
	bytes = j->trainable / part * 2;
	buckets = ceil(bytes * ep_local(x) / 25e6);
	if (buckets < 1)
		buckets = 1;
	t->comm_s = buckets * ring_coll_s(P, g, dp, n, j->per_node, 2, ring, bytes / buckets, AR_NCCL);
	if (s->sharding == GS_SH_ZERO1 || s->sharding == GS_SH_ZERO2)
		*shard = j->dp;
	return t->comm_s > j->bwd_share * j->mb_s ? t->comm_s - j->bwd_share * j->mb_s : 0;
}

static gs_err train_time(const gs_arch *a, const gs_settings *s, const gs_gpu *g, const gs_time_opts *o,
                         const gs_time_params *P, double n_act, gs_time *t, gs_error *e)
{
	gs_prec prec = gs_settings_precision(s);
	bool adapter = s->method == GS_LORA || s->method == GS_QLORA;
	bool naive = s->sharding == GS_SH_PIPELINE;
	bool causal = !a->encoder && !gs_attn_eager(s->attn);
	int64_t per_node = o->gpus_per_node > 0 ? o->gpus_per_node : 8;
	double n = (double)s->gpus, tp = (double)s->tp, L = (double)a->layers, h = (double)a->hidden;
	double pp = naive ? n : (s->pp > 1 ? (double)s->pp : 1), vpp = s->vpp > 1 ? (double)s->vpp : 1;
	double dp, seq = (double)s->seq, attn, fwd, bwd, passes, gemm_passes, micro, accum, trainable;
	double wbytes, shard = 1, optb, ridge, peak, work, eager, loss, exposed;
	int u;
	ep_split x = ep_of(a, s, o, per_node);
	/* fp8 GEMMs: fp8-mixed full training, or an fp8 base under LoRA
	 * (Transformer Engine's fp8 LoRA, as NeMo's) */
	bool fp8 = (prec == GS_P_FP8_MIXED || (adapter && prec == GS_P_FP8)) && g->fp8_tflops > 0;

	if (!naive && ((int64_t)(tp * pp) > s->gpus || s->gpus % (s->tp * (int64_t)pp) != 0))
		return gs_fail(e, GS_EUSAGE, "time: %lld GPUs do not split into tensor parallel %lld x pipeline %lld",
		               (long long)s->gpus, (long long)s->tp, (long long)pp);
	dp = naive ? 1 : n / (tp * pp);
	if (x.ep > 1 && (naive || fmod(dp, x.ep) != 0))
		return gs_fail(e, GS_EUSAGE, "time: %g data-parallel ranks do not split into expert parallel %lld",
		               dp, (long long)s->ep);
	attn = prompt_attn_flops(a, seq, causal);
	fwd = 2 * n_act + attn;
	bwd = adapter ? 2 * n_act + 2 * attn : 2 * fwd;
	/* passes of the forward's cost: 1 forward, 2 backward, 1 recompute */
	passes = 3 + (s->grad_ckpt ? 1 : 0);
	gemm_passes = (adapter ? 2 : 3) + (s->grad_ckpt ? 1 : 0);
	micro = (double)s->batch * seq; /* one micro-batch, one DP rank */
	accum = (double)(s->grad_accum > 0 ? s->grad_accum : 1);
	trainable = o->params_trainable > 0 ? (double)o->params_trainable
	            : adapter ? 0.005 * (double)a->params_total : (double)a->params_total;
	wbytes = adapter ? linears_bpp(a, prec, 1e18) : 2; /* a training step reads every weight */

	t->flops_attn_tok = attn;
	t->flops_fwd_tok = fwd;
	t->tokens_step = micro * accum * dp;
	t->flops_step = (fwd + bwd + (s->grad_ckpt ? fwd : 0)) * t->tokens_step;
	t->model_flops_step = (fwd + bwd) * t->tokens_step;
	peak = fp8 ? g->fp8_tflops : g->bf16_tflops;
	t->peak_tflops = peak;
	ridge = peak * 1e12 / (g->bandwidth_gbs * 1e9) * (fp8 ? 1 : 2) / 2;
	t->eff = gs_time_eff(P, gemm_intensity(a, micro, micro, tp, x.ep), ridge) *
	         (fp8 ? P->fp8_scale[o->train_runtime] : 1);
	/* PyTorch stacks reach a different share of each architecture's
	 * datasheet peak (constants.h); Megatron-Core, and a GPU of an
	 * architecture no record covers, take the all-records figure. */
	u = uarch_of(g);
	if (o->train_runtime == GS_TRT_PYTORCH && u != GS_UARCH_NONE && P->eff_max_uarch[u] > 0 && P->eff_max > 0)
		t->eff *= P->eff_max_uarch[u] / P->eff_max;
	/* The GPUs that work at once: a naive pipeline runs one stage at a time. */
	work = naive ? 1 : n;
	/* eager attention's score matrices, every pass, every layer and sequence */
	eager = gs_attn_eager(s->attn) ? passes * eager_attn_bytes(P, a, seq) * L * (double)s->batch * accum * dp : 0;
	/* the loss over every token's logits (vocab-parallel under --tp: the
	 * same bytes over the GPUs) */
	loss = a->encoder ? 0 : loss_elem_bytes(s, prec == GS_P_FP32 ? 4 : 2) * (double)a->vocab * t->tokens_step;
	t->compute_s = pass_s(P, g, work, peak, t->eff, train_attn_eff(P, g, s, o),
	                      2 * n_act * gemm_passes * t->tokens_step,
	                      attn * 3 * t->tokens_step * (s->grad_ckpt ? 4.0 / 3 : 1),
	                      passes * t->tokens_step * L * h, eager + loss);
	if (s->method == GS_QLORA || (adapter && gs_prec_quantized(prec)))
		t->compute_s *= P->dequant_train;
	/* 1F1B: (pp - 1) / (vpp x micro-batches) of the ideal time idle
	 * (Narayanan et al. 2021, "Efficient Large-Scale Language Model
	 * Training on GPU Clusters Using Megatron-LM", section 2.2). */
	if (!naive && pp > 1) {
		t->bubble = (pp - 1) / (vpp * accum);
		t->compute_s *= 1 + t->bubble;
	}
	/* Tensor parallel: two all-reduces of a micro-batch's activations per
	 * layer forward, two backward, two more under recompute; each stage
	 * runs its L / pp layers. Not overlapped. */
	if (tp > 1) {
		double ars = (4 + (s->grad_ckpt ? 2 : 0)) * L / pp;
		t->tp_comm_s = accum * ars * gs_time_allreduce_s(P, g, s->tp, per_node, micro * h * 2);
	}
	/* Data parallel and sharding, per GPU, one direction. */
	{
		dp_job j = { dp, n, tp, pp, L, (double)a->params_total, wbytes, trainable, accum, t->compute_s / accum,
		             (bwd + (s->grad_ckpt ? fwd : 0)) / (fwd + bwd + (s->grad_ckpt ? fwd : 0)), per_node };
		exposed = dp_exposed(P, g, s, &x, &j, t, &shard);
	}
	/* Optimizer step: AdamW-like, read weight, grad, 2 states (fp32) and
	 * write weight and states: 28 bytes a trainable parameter, a stream. */
	optb = (s->optimizer == GS_O_SGD ? 12 : 28) * trainable / tp / pp / shard *
	       (shard > 1 ? 1 : ep_local(&x)); /* unsharded: a rank's experts only */
	t->optim_s = optb / stream_bw(P, g);
	t->ep_comm_s = ep_alltoall_s(P, g, &x, per_node, accum * (4 + (s->grad_ckpt ? 2 : 0)), micro / tp, h, pp);
	t->step_s = t->compute_s + t->tp_comm_s + exposed + t->ep_comm_s + t->optim_s;
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

/* ---- Inference ------------------------------------------------------------------ */

/* What every pass of one inference configuration shares. */
typedef struct inf {
	const gs_arch *a;
	const gs_settings *s;
	const gs_gpu *g;
	const gs_time_params *P;
	gs_rt_class cls;
	gs_kernel k;
	bool overlap, copies, causal;
	bool kv_per_q;    /* gs_time_opts.kv_per_qhead */
	rt_ar ar;         /* the runtime's all-reduce, or gs_time_opts.allreduce's */
	double tp, L, h, bw, peak, peak16, kvb, bpp, gguf, rt_eff, per_node, host_f;
	double dq_at;     /* tokens a call from which the kernel dequantizes (0: never) */
} inf;

/* The kernel a call of `tokens` tokens runs: the AWQ GEMM kernel's
 * dequantize path (weights to fp16, then a dense GEMM: GS_K_DEQUANT's
 * figures) at and above its threshold, else the kernel itself. */
static gs_kernel path_of(const inf *c, double tokens)
{
	return c->dq_at > 0 && tokens >= c->dq_at ? GS_K_DEQUANT : c->k;
}

/* Bytes of a decode step's weights: the decoder linears the batch reaches
 * at the kernel's bytes, the head at 16 bits (transformers, AutoGPTQ,
 * AutoAWQ and bitsandbytes leave lm_head unquantized); a GGUF file's bytes
 * in proportion where the file is given. Per GPU. */
static void step_weights(const inf *c, const mm_params *m, double *lin_b, double *head_b)
{
	double all = m->lin_act + m->head;
	if (c->gguf > 0) {
		*lin_b = c->gguf * m->lin_read / all / c->tp;
		*head_b = c->gguf * m->head / all / c->tp;
		return;
	}
	*lin_b = m->lin_read * c->bpp / c->tp;
	*head_b = m->head * 2 / c->tp;
}

/* One decode step of `b` sequences at a context of ctx tokens, per GPU:
 * its seconds, and its parts into *t where t is not NULL. */
static double decode_step(const inf *c, double b, double ctx, gs_time *t)
{
	const gs_time_params *P = c->P;
	mm_params m = matmul_params(c->a, b);
	layer_sums ls = layers_at(c->a, ctx, c->kvb);
	double lin_b, head_b, keff, deq = 0, kv, copy, flops_lin, flops_attn, ceff, mem_s, cmp_s, ar_s = 0;
	double host, gpu;
	gs_kernel k = path_of(c, b);
	k_mode mode = kernels[k].mode;

	step_weights(c, &m, &lin_b, &head_b);
	keff = b <= 1 ? P->k_eff1[k] : P->k_effn[k];
	if (mode == K_DEQUANT || (mode == K_DEQUANT_ABOVE1 && b > 1))
		deq = m.lin_read * 4 / c->tp; /* a 16-bit copy written and read back */
	kv = b * ((c->kv_per_q ? ls.kv_read_q : ls.kv_read) + 2 * ls.state) / c->tp;
	copy = c->copies ? 2 * b * ls.kv_held / c->tp : 0;
	mem_s = head_b / (c->bw * c->rt_eff) + (lin_b + deq) / (c->bw * unit(c->rt_eff * keff)) +
	        (kv + copy) / (c->bw * c->rt_eff);
	/* compute: b tokens at the saturated GEMM rate, added to the reads */
	ceff = P->eff_max * P->prefill_eff[c->cls];
	flops_lin = 2 * b * (m.lin_act + m.head) / c->tp;
	flops_attn = b * ls.attn_flops / c->tp;
	cmp_s = flops_lin / (c->peak * 1e12 * unit(ceff * P->k_gemm[k])) +
	        flops_attn / (c->peak16 * 1e12 * unit(ceff * P->attn_eff));
	if (c->tp > 1)
		ar_s = 2 * c->L * allreduce_s(P, c->g, (int64_t)c->tp, (int64_t)c->per_node, b * c->h * 2, c->ar);
	if (c->s->sharding == GS_SH_PIPELINE && c->s->gpus > 1) {
		/* a layer split hands the activations on at every stage boundary */
		double gbs;
		int kind = link_of(c->g, 2, (int64_t)c->per_node, &gbs);
		ar_s += (double)(c->s->gpus - 1) * (coll_latency_s(P, kind, 1) + b * c->h * 2 / (gbs * 1e9));
	}
	gpu = mem_s + cmp_s + ar_s;
	host = c->host_f * (c->L * P->dec_layer_s[c->cls] + m.lin_calls * P->k_host_s[k]);
	if (t != NULL) {
		t->weight_bytes = lin_b + head_b;
		t->kv_read_bytes = kv;
		t->cache_copy_bytes = copy;
		t->dequant_bytes = deq;
		t->decode_bytes = lin_b + head_b + kv + copy + deq;
		t->decode_flops = flops_lin + flops_attn;
		t->tp_comm_s = ar_s;
		t->host_s = host;
	}
	return with_host(gpu, host, c->overlap);
}

/* The prefill of b prompts of p tokens: its seconds (efficiency into *eff). */
static double prefill(const inf *c, double b, double p, double *eff)
{
	const gs_time_params *P = c->P;
	const gs_settings *s = c->s;
	mm_params m = matmul_params(c->a, b * p);
	gs_kernel k = path_of(c, b * p);
	double ridge, e, heads, gemm, attn, extra = 0, gpu, host, ar_s = 0;

	ridge = c->peak * 1e12 / (c->g->bandwidth_gbs * 1e9) * (c->bpp < 2 ? c->bpp : 2) / 2;
	/* the head: every prompt position's logits, or the last only
	 * (generate() since transformers 4.45: logits_to_keep) */
	heads = s->logits == GS_LOGITS_LAST ? b : b * p;
	e = gs_time_eff(P, gemm_intensity(c->a, b * p, heads, c->tp, 1), ridge) * P->prefill_eff[c->cls] *
	    P->k_gemm[k];
	gemm = 2 * m.lin_act * b * p + 2 * m.head * heads;
	attn = prompt_attn_flops(c->a, p, c->causal) * b * p;
	if (gs_attn_eager(s->attn))
		extra += eager_attn_bytes(P, c->a, p) * c->L * b;
	if (kernels[k].mode == K_DEQUANT || kernels[k].mode == K_DEQUANT_ABOVE1)
		extra += m.lin_read * (c->bpp + 4); /* one 16-bit copy of each weight */
	gpu = pass_s(P, c->g, c->tp, c->peak, e, P->attn_eff, gemm, attn, b * p * c->L * c->h, extra);
	if (c->tp > 1)
		ar_s = 2 * c->L * allreduce_s(P, c->g, (int64_t)c->tp, (int64_t)c->per_node, b * p * c->h * 2, c->ar);
	host = c->host_f * (c->L * P->dec_layer_s[c->cls] + matmul_params(c->a, 1).lin_calls * P->k_host_s[k]);
	if (eff != NULL)
		*eff = e;
	return with_host(gpu + ar_s, host, c->overlap);
}

static gs_err infer_time(const gs_arch *a, const gs_settings *s, const gs_gpu *g, const gs_time_opts *o,
                         const gs_time_params *P, double n_act, gs_time *t, gs_error *e)
{
	gs_prec prec = gs_settings_precision(s);
	inf c;
	double b = (double)s->batch, p = (double)s->seq, gen = (double)s->new_tokens, ctx, reps, conc, pre1;

	memset(&c, 0, sizeof c);
	c.a = a;
	c.s = s;
	c.g = g;
	c.P = P;
	c.cls = runtimes[o->runtime].cls;
	c.k = kernel_for(o->kernel, o->runtime, prec);
	c.overlap = rtc_overlaps[c.cls];
	/* a consumer or workstation card sits in a desktop, whose CPU runs the
	 * host's Python and launches faster than a server's */
	c.host_f = g->segment == GS_SEG_CONSUMER || g->segment == GS_SEG_WORKSTATION ? P->host_desktop : 1;
	c.copies = runtimes[o->runtime].cache == CACHE_SETTING &&
	           (s->kv_cache == GS_KVC_DYNAMIC || s->kv_cache == GS_KVC_LEGACY);
	c.causal = !a->encoder && !gs_attn_eager(s->attn);
	c.kv_per_q = o->kv_per_qhead;
	c.ar = o->allreduce == GS_AR_NCCL ? AR_NCCL : o->allreduce == GS_AR_CUSTOM ? AR_CUSTOM : runtimes[o->runtime].ar;
	/* A pipeline's stages run in turn: one GPU's speed, the whole model
	 * read through one GPU's bandwidth. Tensor parallel splits each layer. */
	c.tp = s->sharding == GS_SH_PIPELINE ? 1 : (double)s->tp;
	c.L = (double)a->layers;
	c.h = (double)a->hidden;
	c.bw = stream_bw(P, g);
	c.peak = kernel_peak(g, kernels[c.k].peak, rtc_acc16[c.cls] && prec != GS_P_BF16);
	c.peak16 = g->bf16_tflops;
	c.kvb = gs_dtype_bytes(s->kv_dtype_set ? s->kv_dtype : GS_DT_BF16);
	/* a kernel that fixes its weights' bytes, unless the checkpoint is
	 * already in an FP4 format (its own layout: the table's) */
	c.bpp = o->weight_bpp > 0 ? o->weight_bpp
	        : kernels[c.k].bpp > 0 && gs_prec_info_of(prec)->cls != GS_PC_FP4 ? kernels[c.k].bpp
	        : linears_bpp(a, prec, b);
	c.gguf = o->weight_bytes;
	c.rt_eff = unit(P->dec_bw_eff[c.cls]);
	c.per_node = (double)(o->gpus_per_node > 0 ? o->gpus_per_node : 8);
	if (c.k == GS_K_AWQ_GEMM)
		c.dq_at = o->dequant_at < 0 ? 0
		          : (double)(o->dequant_at > 0 ? o->dequant_at : runtimes[o->runtime].awq_dequant_at);
	/* data-parallel replicas (--gpus beyond the tensor-parallel group) each
	 * run their own batch */
	reps = s->sharding == GS_SH_PIPELINE ? 1 : (double)s->gpus / c.tp;
	if (reps < 1)
		reps = 1;

	t->kernel = c.k;
	t->peak_tflops = c.peak;
	t->flops_attn_tok = prompt_attn_flops(a, p, c.causal);
	t->flops_fwd_tok = 2 * n_act + t->flops_attn_tok;
	t->prefill_s = prefill(&c, b, p, &t->eff);
	ctx = p + gen / 2;
	t->decode_step_s = decode_step(&c, b, ctx, t);
	t->decode_tok_s_seq = 1 / t->decode_step_s;
	t->decode_tok_s_total = reps * b / t->decode_step_s;
	t->generate_s = t->prefill_s + gen * t->decode_step_s;
	t->usd_per_mtok = g->price_usd_hour * (double)s->gpus / 3600 / t->decode_tok_s_total * 1e6;
	/* Serving: conc sequences in flight; each new one's prefill stalls the
	 * batch once (TGI, vLLM without chunking), shared over its tokens.
	 * With no new tokens there is no output token to time: a prompt-only
	 * row has its time to first token and nothing else. */
	conc = o->concurrency > 0 ? (double)o->concurrency : b;
	pre1 = conc == b && b == 1 ? t->prefill_s : prefill(&c, 1, p, NULL);
	t->concurrency = conc;
	{
		double step_c = conc == b ? t->decode_step_s : decode_step(&c, conc, ctx, NULL);
		t->ttft_s = pre1 + step_c;
		if (gen >= 1) {
			t->tpot_s = step_c + conc * pre1 / gen;
			t->serve_tok_s = reps * conc / t->tpot_s;
		}
	}
	return sane(t, t->prefill_s + t->decode_step_s + t->tpot_s, e);
}

gs_err gs_time_estimate(const gs_arch *a, const gs_settings *s, const gs_gpu *g, const gs_time_opts *o,
                        gs_time *t, gs_error *e)
{
	gs_time_opts def;
	gs_time_params pdef;
	const gs_time_params *P;
	mm_params m;

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
	if (o->kernel < 0 || o->kernel >= GS_K_MAX)
		return gs_fail(e, GS_EUSAGE, "time: unknown kernel %d", (int)o->kernel);
	if (o->train_runtime < 0 || o->train_runtime >= GS_TRT_MAX)
		return gs_fail(e, GS_EUSAGE, "time: unknown training runtime %d", (int)o->train_runtime);
	if (o->attn_kernel < GS_AK_AUTO || o->attn_kernel > GS_AK_NATIVE)
		return gs_fail(e, GS_EUSAGE, "time: unknown attention kernel %d", (int)o->attn_kernel);
	if (s->batch < 1 || s->seq < 1 || s->gpus < 1 || s->tp < 1)
		return gs_fail(e, GS_EUSAGE, "time: batch, seq, gpus and tp must be positive");
	if (o->concurrency < 0)
		return gs_fail(e, GS_EUSAGE, "time: concurrency must not be negative");

	m = matmul_params(a, 1);
	t->n_mm = m.lin_act + m.head;
	if (!(t->n_mm > 0) || !(a->layers > 0) || !(a->hidden > 0))
		return gs_fail(e, GS_EUSAGE, "time: the model's shape has no matmul work (%g parameters in "
		               "%lld layers): no time to give", t->n_mm, (long long)a->layers);
	if (s->method != GS_INFER)
		return train_time(a, s, g, o, P, t->n_mm, t, e);
	return infer_time(a, s, g, o, P, t->n_mm, t, e);
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
