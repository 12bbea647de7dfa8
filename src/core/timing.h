/* gpusizer: the time model (issue 17), beside the memory engine: how long a
 * training step takes on a GPU class, how fast a model prefills and
 * decodes. Pure: a gs_arch, gs_settings and gs_gpu in, numbers out; no
 * cJSON, curl or FILE*. Mechanisms and constants: docs/engine.md has the
 * memory side; the time side's constants are the GS_TIME_* block at the end
 * of constants.h, each with the records of speed.jsonl it is calibrated on
 * (tests/speed/, `make speed-accuracy`).
 *
 * Training, per optimizer step, summed over the GPUs:
 *   forward   2 * N_mm * tokens + attention (4 * s * d_attn * L per token,
 *             halved for causal flash/sdpa), N_mm = the active matmul
 *             parameters (decoder linears with routed experts at top-k, and
 *             the output head);
 *   backward  2 x the forward for full training; LoRA/QLoRA skip the frozen
 *             weights' gradient GEMMs: 1 x the linear part (activation
 *             gradients only; adapters are ignored: < 1% of the FLOPs) plus
 *             2 x attention;
 *   recompute + 1 forward under --grad-ckpt.
 * Compute time = FLOPs / (GPUs * peak * eff), peak = bf16_tflops, or
 * fp8_tflops for fp8-mixed (an fp8 base under LoRA, fp8 inference weights)
 * on a GPU with fp8;
 * eff = EFF_MAX * x / (x + X_HALF), x = tokens of one micro-batch
 * (batch * seq), X_HALF proportional to the GPU's ridge point (peak FLOPs
 * per byte of bandwidth: small GEMMs are weight-read bound); attention runs
 * at ATTN_EFF of the GEMM rate; the non-GEMM kernels (norms, activations,
 * rotary, softmax, loss) are memory-bound: ELEM_BYTES per hidden element,
 * layer and token over the bandwidth. QLoRA/int8 bases multiply the time by
 * the dequantisation factor. The optimizer step is memory-bound (bytes of
 * weights, grads and states read and written over the bandwidth); sharding
 * adds communication (ZeRO-3/FSDP: 2 all-gathers of the weights and a
 * reduce-scatter of the gradients per micro-batch; DDP and ZeRO-1/2: an
 * all-reduce, 2 (n-1)/n of the gradients, per step) over the GPU-to-GPU
 * link (link_gbs) within a node, the PCIe host link where there is none,
 * and GS_TIME_NET_GBS between nodes. Communication is overlapped with
 * compute: step = max(compute, comm) + optimizer. Tensor and pipeline
 * parallel communication and pipeline bubbles are not modelled.
 *
 * Inference: prefill is compute-bound with the same throughput model (and
 * the runtime's prefill factor); a decode step reads the weights (routed
 * experts: those a batch touches) and the KV cache once, over bandwidth x
 * the runtime's efficiency, and is at least its compute time; the runtime's
 * fixed cost per layer is added to it, or under HF (transformers generate(),
 * whose host launches a layer while the GPU runs the last) the pass takes the
 * larger of the two: at batch 1 the host decides. A pipeline (--sharding pipeline: HF device_map, litgpt's
 * generate_sequentially) runs its stages one after the other: one GPU's
 * speed, the whole model read over one GPU's bandwidth. Tensor parallel
 * divides the compute and the reads by tp; its all-reduces (two a layer)
 * are not modelled, so the time under --tp is a bound from below
 * (tp_unmodelled says so), loosest over PCIe.
 *
 * Cost, where the GPU has a price (price_usd_hour): a token budget's
 * GPU-hours (its time x the GPUs) at that price; in inference, the GPUs'
 * price an hour over the tokens they decode an hour, per million.
 */
#ifndef GS_TIMING_H
#define GS_TIMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch.h"
#include "engine.h"
#include "err.h"
#include "gpu.h"
#include "settings.h"

/* Inference runtimes, each with its calibrated efficiency profile. */
typedef enum gs_runtime {
	GS_RT_HF = 0,   /* transformers generate(), eager modules: each layer's kernels are
	                   launched from Python, and at small batches the host is the
	                   bottleneck: a step is the larger of the GPU's time and the host's
	                   (layers x DECODE_LAYER_S_HF), not their sum */
	GS_RT_COMPILED, /* torch.compile + CUDA graphs (gpt-fast, torchao generate) */
	GS_RT_LLAMACPP, /* llama.cpp (GGUF) */
	GS_RT_SERVING,  /* vLLM, SGLang, TensorRT-LLM */
	GS_RT_AUTOAWQ,  /* AutoAWQ's fused modules (fuse_layers=True) in its own loop */
	GS_RT_MAX
} gs_runtime;

const char *gs_runtime_name(gs_runtime r);  /* "hf", "compiled", "llama.cpp", "serving", "autoawq" */
int gs_runtime_parse(const char *s);         /* also vllm, sglang, tensorrt-llm; -1: none */

/* Training stacks, each with its calibrated fp8 efficiency: PyTorch loops
 * that swap their Linear layers for fp8 ones (HF Trainer, torchtune,
 * llm-foundry/Composer with Transformer Engine's te.Linear, torchao float8,
 * NeMo-Automodel, Answer.AI fsdp_qlora) cast and scale around each GEMM in
 * eager code; Megatron-Core (Megatron-LM, NeMo 2, Megatron-Bridge) runs
 * Transformer Engine's fused fp8 layers (norm + linear fused, fp8 kept
 * between them), which keeps more of fp8's doubled peak. In bf16 the
 * pytorch stack takes its GPU architecture's efficiency (eff_max_uarch),
 * Megatron-Core the all-records one: one bf16 Megatron record is all the
 * data has. */
typedef enum gs_train_runtime {
	GS_TRT_PYTORCH = 0,
	GS_TRT_MEGATRON,
	GS_TRT_MAX
} gs_train_runtime;

const char *gs_train_runtime_name(gs_train_runtime r); /* "pytorch", "megatron" */
int gs_train_runtime_parse(const char *s);  /* also hf, transformers, torchtune, nemo, megatron-core,
                                               megatron-lm, megatron-bridge; -1: none */

/* The calibrated figures (constants.h, GS_TIME_*), as one struct so that
 * tests/speed/fit.py can refit them through the driver. */
typedef struct gs_time_params {
	double eff_max;        /* GEMM fraction of peak at large sizes */
	double eff_max_uarch[GS_UARCH_MAX]; /* the same for the pytorch training stack on
	                                       each GPU architecture; 0: eff_max */
	double x_half_ridge;   /* x_half in units of the GPU's ridge point */
	double h_half;         /* GEMM width (hidden) at which the efficiency halves */
	double elem_bytes;     /* non-GEMM bytes per hidden element, layer and token (training) */
	double attn_eff;       /* attention kernels' rate relative to the GEMMs' */
	double fp8_scale[GS_TRT_MAX]; /* fp8 GEMMs' efficiency relative to bf16's, per stack */
	double dequant_train;  /* QLoRA time factor */
	double dequant_prefill, dequant_decode; /* quantized bases, inference */
	double dec_bw_eff[GS_RT_MAX], dec_layer_s[GS_RT_MAX], prefill_eff[GS_RT_MAX];
} gs_time_params;

/* The calibrated constants. */
void gs_time_params_default(gs_time_params *p);

typedef struct gs_time_opts {
	const gs_time_params *params; /* NULL: gs_time_params_default */
	gs_runtime runtime;               /* inference */
	gs_train_runtime train_runtime;   /* training */
	bool runtime_given, train_runtime_given; /* named (--runtime, the spec's time); else the
	                                    row's --stack decides (gs_time_opts_stack) */
	double tokens_budget;       /* training: tokens to process (0: none) */
	double weight_bytes;        /* inference: stored weight bytes, e.g. a GGUF file (0: from
	                               the precision) */
	uint64_t params_trainable;  /* from the engine (gs_estimate); 0: params_total for full,
	                               0.5% of it for LoRA/QLoRA */
	int64_t gpus_per_node;      /* 0: 8 */
} gs_time_opts;

void gs_time_opts_default(gs_time_opts *o);
/* The runtimes of a stack text (gs_stack_runtimes) into o, each one that
 * was not given. */
void gs_time_opts_stack(gs_time_opts *o, const char *stack);

typedef struct gs_time {
	/* FLOPs, per token of forward pass */
	double n_mm;            /* active matmul parameters (linears + head) */
	double flops_fwd_tok;   /* 2 * n_mm + attention, per token, one forward */
	double flops_attn_tok;  /* the attention part of it */
	double peak_tflops;     /* the peak used: bf16 or fp8 */
	double eff;             /* fraction of the peak the GEMMs reach */

	/* Training (zero for inference) */
	double tokens_step;     /* tokens of one optimizer step, all GPUs */
	double flops_step;      /* FLOPs of one step, all GPUs, recompute included */
	double model_flops_step; /* the same without recompute (MFU's numerator) */
	double compute_s, comm_s, optim_s, step_s;
	double tok_s_gpu, tok_s_total;
	double mfu;             /* model FLOPs rate / (GPUs * peak) */
	double budget_s;        /* time for opts.tokens_budget (0: none) */
	double gpu_hours;       /* budget_s x GPUs / 3600 (0: no budget) */
	double cost_usd;        /* gpu_hours x the GPU's price (0: no budget or no price) */

	/* Inference (zero for training): batch s->batch, prompt s->seq,
	 * s->new_tokens generated */
	double prefill_s;       /* the whole batch's prompt = time to first token */
	double decode_step_s;   /* one step at the mean context of the generation */
	double decode_tok_s_seq, decode_tok_s_total;
	double weight_bytes;    /* weights read per decode step, per GPU */
	double decode_bytes;    /* weights + KV cache read per decode step, per GPU */
	double generate_s;      /* prefill + new_tokens decode steps */
	double usd_per_mtok;    /* the GPUs' price per million tokens decoded at
	                           decode_tok_s_total (0: no price) */
	int tp_unmodelled;      /* the tensor-parallel degree whose all-reduces
	                           the time leaves out (0: none): an upper bound */
} gs_time;

/* Fill *t. The arch must be tallied (gs_arch_tally). GS_EUSAGE when the GPU
 * lacks a figure the model needs (bandwidth, TFLOPS), naming it. */
gs_err gs_time_estimate(const gs_arch *a, const gs_settings *s, const gs_gpu *g, const gs_time_opts *o,
                        gs_time *t, gs_error *e);

/* The time of a configuration the engine sized: gs_time_estimate with the
 * estimate's trainable count and the runtimes of the row's stack where o
 * names none (o NULL: the defaults). Every place that
 * times an estimated row (estimate, plan, the reports) asks this. */
gs_err gs_time_row(const gs_arch *a, const gs_settings *s, const gs_estimate *x, const gs_gpu *g,
                   const gs_time_opts *o, gs_time *t, gs_error *e);

/* The time model's figures as readers get them, into buf (n bytes): a
 * duration ("243.2 ms", "1.37 s", "12.5 min", "4.1 h", "23.2 days"), a
 * token count ("1 B", "250 M", "3.5 T", "5000"), dollars ("$2.49",
 * "$82"). Each returns buf. */
char *gs_time_fmt_secs(char *buf, size_t n, double sec);
char *gs_time_fmt_count(char *buf, size_t n, double v);
char *gs_time_fmt_usd(char *buf, size_t n, double usd);

/* The GEMM efficiency curve, eff_max * x / (x + x_half_ridge * ridge) *
 * h / (h + h_half), x tokens per micro-step per GPU, ridge = the tokens at
 * which a GEMM's compute equals its weight read (peak / bandwidth * weight
 * bytes / 2), h the model's hidden size (narrow GEMMs fill the GPU less). */
double gs_time_eff(const gs_time_params *p, double x, double ridge, double h);

#endif
