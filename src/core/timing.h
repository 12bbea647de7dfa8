/* gpusizer: the time model (issues 17 and 32), beside the memory engine: how
 * long a training step takes on a GPU class, how fast a model prefills,
 * decodes and serves. Pure: a gs_arch, gs_settings and gs_gpu in, numbers
 * out; no cJSON, curl or FILE*. docs/time.md has the mechanisms, each
 * constant (the GS_TIME_* block of constants.h) with its source and the
 * records of ../shared/measurements/speed.jsonl and speed2.jsonl it is
 * calibrated on (tests/speed/, `make speed-accuracy`).
 *
 * Training, per optimizer step, summed over the GPUs:
 *   forward   2 * N_mm * tokens + attention (2 * s * d_attn per token and
 *             layer, halved for causal flash/sdpa), N_mm = the active matmul
 *             parameters (decoder linears with routed experts at top-k, and
 *             the output head);
 *   backward  2 x the forward for full training; LoRA/QLoRA skip the frozen
 *             weights' gradient GEMMs: 1 x the linear part plus 2 x attention;
 *   recompute + 1 forward under --grad-ckpt.
 * Compute time = FLOPs / (GPUs * peak * eff), peak = bf16_tflops, or
 * fp8_tflops for fp8; eff = EFF_MAX * x / (x + ridge) (the sum of a GEMM's
 * compute and its weight read), per GPU architecture for the pytorch stack;
 * attention at ATTN_EFF of the GEMM rate; the non-GEMM kernels are memory
 * bound (ELEM_BYTES per hidden element, layer and token), and eager
 * attention (--attn eager, the remote-code families' own attention) also
 * writes and reads its score matrix (EAGER_ATTN_BYTES an element).
 * Communication: tensor parallel (--tp) adds two all-reduces of the
 * activations per layer in the forward and two in the backward, not
 * overlapped (Megatron-LM); data parallel all-reduces the gradients once a
 * step (DDP, ZeRO-1/2), overlapped with the last micro-batch's backward;
 * ZeRO-3/FSDP all-gather the weights twice and reduce-scatter the gradients
 * every micro-batch, overlapped with its compute. A collective takes NCCL's
 * latency (a base plus a hop per ring step, per link kind) plus its bytes
 * over the link (link_gbs, else PCIe). Across nodes a ring collective's bus
 * bandwidth is the node's NICs together (GS_TIME_NET_GBS a GPU), bounded
 * by the node's link, and only the steps that cross the network pay its
 * hop; an all-to-all goes through each GPU's own NIC.
 * Expert parallelism (--ep: Megatron-Core's and NeMo
 * Automodel's EP) keeps each routed expert on one of ep data-parallel ranks:
 * the experts are gathered (FSDP) or reduced (DDP) among dp / ep ranks only,
 * and every MoE layer sends each token's top-k copies to the experts' ranks
 * and back (dispatch and combine all-to-alls, forward and backward, again
 * under recompute), not overlapped; DeepEP (ep_dedup) sends a token once a
 * rank and, across nodes, once a node.
 * Pipeline stages (--pp, 1F1B, interleaved over --vpp model chunks) idle for
 * (pp - 1) / (vpp * micro-batches) of the step (Narayanan et al. 2021); the
 * naive pipeline (--sharding pipeline: one stage works at a time) runs at
 * one GPU's speed.
 *
 * Inference: a pass reads and computes, per GPU (tensor-parallel share):
 *   weights   the linears a step touches at their kernel's bytes (routed
 *             experts: those the batch reaches), the head at 16 bits;
 *   KV cache  every sequence's cache, layer by layer (layer_kv_*): once per
 *             KV head, or once per query head of each GQA group under a
 *             kernel that loads it per query head (kv_per_qhead);
 *   copies    transformers' DynamicCache and legacy tuple cache rebuild each
 *             layer's cache with torch.cat every step (read and write it);
 *             static and paged caches write one token;
 *   compute   2 * N_mm per token plus attention over the context;
 *   all-reduces two per layer under --tp.
 * Memory time is bytes over the bandwidth a read stream reaches on the GPU's
 * architecture (MEM_READ_*) times the runtime's and the kernel's share of
 * it (at one token and at more: GEMV kernels and dequantize-then-GEMM paths
 * differ); compute adds its time at the runtime's GEMM efficiency. The
 * runtime's host cost per layer (and per quantized linear) is added, or
 * under an eager host that launches ahead (transformers generate()) the
 * pass takes the larger of the GPU's time and the host's.
 * Serving at a concurrency c: time per output token = a decode step at
 * batch c plus c prompts' prefills shared over the new tokens; time to
 * first token = one prompt's prefill and a step; throughput = c / that.
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

/* Inference runtimes (the stacks of issue 31 name them), each a row of the
 * runtime table in timing.c: its engine class, its KV cache. The first five
 * keep their numbers. */
typedef enum gs_runtime {
	GS_RT_HF = 0,   /* transformers generate(), eager modules; cache per --kv-cache */
	GS_RT_COMPILED, /* torch.compile + CUDA graphs (gpt-fast, torchao generate); static cache */
	GS_RT_LLAMACPP, /* llama.cpp (GGUF) */
	GS_RT_SERVING,  /* a serving engine (vLLM-like): paged cache, CUDA graphs */
	GS_RT_AUTOAWQ,  /* AutoAWQ's fused modules (fuse_layers=True) in its own loop */
	GS_RT_VLLM,
	GS_RT_SGLANG,
	GS_RT_TRTLLM,   /* TensorRT-LLM */
	GS_RT_LMDEPLOY, /* LMDeploy TurboMind */
	GS_RT_TGI,      /* text-generation-inference (Python model code, flash/paged attention) */
	GS_RT_EXLLAMA,  /* ExLlama v1/v2 */
	GS_RT_DEEPSPEED, /* DeepSpeed-Inference kernel injection */
	GS_RT_MAX
} gs_runtime;

/* The engine classes the runtimes share calibrated figures by. */
typedef enum gs_rt_class {
	GS_RTC_HF = 0,   /* eager PyTorch modules, host launches ahead */
	GS_RTC_COMPILED, /* CUDA graphs over inductor kernels */
	GS_RTC_LLAMACPP,
	GS_RTC_SERVING,  /* C++/CUDA-graph engines: vLLM, SGLang, TensorRT-LLM, TurboMind */
	GS_RTC_FUSED,    /* fused CUDA modules under transformers' generate(): AutoAWQ */
	GS_RTC_EXLLAMA,  /* ExLlama's own lean generator over its CUDA extension */
	GS_RTC_CUSTOM,   /* Python model code over custom kernels, host launching ahead:
	                    TGI 1.x, DeepSpeed-Inference */
	GS_RTC_MAX
} gs_rt_class;

const char *gs_runtime_name(gs_runtime r);  /* "hf", "compiled", "llama.cpp", "serving", "autoawq", "vllm", ... */
int gs_runtime_parse(const char *s);         /* names and aliases (transformers, gpt-fast, trt-llm, ...); -1: none */
gs_rt_class gs_runtime_class(gs_runtime r);  /* GS_RTC_MAX for an unknown runtime */
const char *gs_rt_class_name(gs_rt_class c); /* "hf", "compiled", "llama.cpp", "serving", "fused", "exllama", "custom" */
int gs_rt_class_parse(const char *s);        /* -1: none */

/* Matmul kernels of quantized (and 16-bit) weights, each a row of the
 * kernel table in timing.c: how it moves the weights (fused in the GEMM, or
 * dequantized to 16 bits first), its calibrated share of the memory-bound
 * rate at one token and at more, its host cost per call under an eager
 * loop, its GEMM rate at prompt sizes. GS_K_AUTO: the runtime's default for
 * the precision. */
typedef enum gs_kernel {
	GS_K_AUTO = 0,
	GS_K_DENSE,      /* 16-bit cuBLAS/CUTLASS GEMMs */
	GS_K_FP8,        /* fp8 weights and activations on fp8 tensor cores */
	GS_K_FP8_WO,     /* fp8 weights, 16-bit activations */
	GS_K_FP4,        /* fp4 weights and activations (NVFP4/MXFP4), fp4 tensor cores */
	GS_K_W8A8,       /* int8 weights x int8 dynamic activations (CUTLASS, torchao int8dq) */
	GS_K_INT8_WO,    /* int8 weight-only, dequantized inside the GEMM (gpt-fast, torchao) */
	GS_K_INT4_WO,    /* int4 weight-only inside the GEMM (tinygemm, TensorRT-LLM, TurboMind) */
	GS_K_W4A8,       /* TensorRT-LLM W4A8 AWQ (int4 weights x fp8 activations) */
	GS_K_MARLIN,     /* Marlin W4A16/W8A16 (vLLM gptq/awq_marlin) */
	GS_K_EXLLAMA,    /* ExLlama v1 GPTQ kernels */
	GS_K_EXLLAMAV2,  /* ExLlamaV2 GPTQ/EXL2 kernels */
	GS_K_GPTQ_TRITON, /* AutoGPTQ's Triton QuantLinear */
	GS_K_AWQ_GEMM,   /* AutoAWQ/vLLM AWQ GEMM */
	GS_K_AWQ_GEMV,   /* AutoAWQ GEMV (batch 1) */
	GS_K_BNB_NF4,    /* bitsandbytes 4-bit: gemv_4bit at one token, dequantize + GEMM above */
	GS_K_BNB_INT8,   /* bitsandbytes >= 0.45 LLM.int8, threshold 0 */
	GS_K_BNB_INT8_DECOMP, /* the same with threshold 6 (fp16 outlier columns) */
	GS_K_BNB_INT8_COL32,  /* bitsandbytes <= 0.44 LLM.int8: col32/turing layout transforms */
	GS_K_BNB_INT8_COL32_DECOMP,
	GS_K_DS_INT8,    /* DeepSpeed-Inference int8 */
	GS_K_DEQUANT,    /* dequantize to 16 bits every call, then a dense GEMM */
	GS_K_MAX
} gs_kernel;

const char *gs_kernel_name(gs_kernel k); /* "auto", "dense", "fp8", ... */
int gs_kernel_parse(const char *s);      /* -1: none */

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

/* The figures of the model (constants.h, GS_TIME_*), as one struct so that
 * tests/speed/fit.py can refit the calibrated ones through the driver. */
typedef struct gs_time_params {
	double eff_max;        /* GEMM fraction of peak at large sizes */
	double eff_max_uarch[GS_UARCH_MAX]; /* the same for the pytorch training stack on
	                                       each GPU architecture; 0: eff_max */
	double x_half_ridge;   /* x_half in units of the GPU's ridge point */
	double elem_bytes;     /* non-GEMM bytes per hidden element, layer and token (training) */
	double attn_eff;       /* attention kernels' rate relative to the GEMMs' */
	double attn_fa2[GS_UARCH_MAX]; /* a FlashAttention-2-class kernel's rate (training)
	                                  against the architecture's own attention kernel's,
	                                  per architecture; 0: the same */
	double eager_attn_bytes; /* bytes moved per attention score element by eager attention */
	double fp8_scale[GS_TRT_MAX]; /* fp8 GEMMs' efficiency relative to bf16's, per stack */
	double dequant_train;  /* QLoRA time factor */
	double mem_frac[GS_UARCH_MAX]; /* a read stream's share of the datasheet bandwidth,
	                                  per architecture ([GS_UARCH_NONE]: the others) */
	double ar_base_us;     /* a collective's base latency (NCCL ring, LL) */
	double ar_hop_us[3];   /* its latency a ring step: NVLink, PCIe, network */
	double host_desktop;   /* host time on a desktop (consumer/workstation GPU) against a server's */
	/* per engine class */
	double dec_bw_eff[GS_RTC_MAX], dec_layer_s[GS_RTC_MAX], prefill_eff[GS_RTC_MAX];
	/* per kernel: share of the memory-bound rate at one token and at more,
	 * host seconds a call under an eager loop, GEMM rate at prompt sizes
	 * relative to dense */
	double k_eff1[GS_K_MAX], k_effn[GS_K_MAX], k_host_s[GS_K_MAX], k_gemm[GS_K_MAX];
} gs_time_params;

/* The model's figures. */
void gs_time_params_default(gs_time_params *p);

/* The attention kernel a training step runs (gs_time_opts.attn_kernel).
 * FlashAttention-2-class kernels (flash-attn 2, SDPA's flash backend,
 * Triton's fused attention, FlexAttention) are written for Ampere's mma.sync
 * and have no path for Hopper's wgmma/TMA; cuDNN's fused attention
 * (Transformer Engine, SDPA's cuDNN backend) and FlashAttention-3 do. */
typedef enum gs_attn_kernel {
	GS_AK_AUTO = 0, /* the stack's: Megatron-Core runs Transformer Engine's (cuDNN); a
	                   PyTorch loop under --attn sdpa SDPA's choice, cuDNN first on
	                   sm90/sm100 (torch >= 2.11), under --attn flash flash-attn 2 */
	GS_AK_FA2,      /* a FlashAttention-2-class kernel */
	GS_AK_NATIVE    /* the architecture's own: cuDNN fused attention, FlashAttention-3 */
} gs_attn_kernel;

/* The all-reduce an inference runtime runs (gs_time_opts.allreduce). */
typedef enum gs_allreduce { GS_AR_RUNTIME = 0, GS_AR_NCCL, GS_AR_CUSTOM } gs_allreduce;

typedef struct gs_time_opts {
	const gs_time_params *params; /* NULL: gs_time_params_default */
	gs_runtime runtime;               /* inference */
	gs_kernel kernel;                 /* inference matmul kernel (GS_K_AUTO: the runtime's) */
	gs_train_runtime train_runtime;   /* training */
	bool runtime_given, train_runtime_given; /* named (--runtime, the spec's time); else the
	                                    row's --stack decides (gs_time_opts_stack) */
	double tokens_budget;       /* training: tokens to process (0: none) */
	double weight_bytes;        /* inference: stored weight bytes, e.g. a GGUF file (0: from
	                               the precision and kernel) */
	double weight_bpp;          /* inference: bytes a quantized linear weight (EXL2's bits / 8;
	                               0: the precision's) */
	uint64_t params_trainable;  /* from the engine (gs_estimate); 0: params_total for full,
	                               0.5% of it for LoRA/QLoRA */
	int64_t gpus_per_node;      /* 0: 8 */
	bool ep_dedup;              /* training under --ep: the dispatcher sends a token once to
	                               each rank, and across nodes once to each node, that holds
	                               one of its experts (DeepEP); false: a copy per routed
	                               expert (Megatron-Core's alltoall dispatcher) */
	gs_attn_kernel attn_kernel; /* training: the attention kernel (GS_AK_AUTO: the stack's) */
	int64_t concurrency;        /* serving: sequences in flight (0: the batch) */
	gs_allreduce allreduce;     /* inference under --tp: GS_AR_RUNTIME (0: the runtime's),
	                               GS_AR_NCCL or GS_AR_CUSTOM (an engine's own kernel) */
	bool kv_per_qhead;          /* decode: the attention kernel streams each KV head's cache
	                               once per query head of its group (TensorRT-LLM's masked
	                               MHA kernel, v0.5-0.6, before XQA); false: once per KV
	                               head, as every current runtime's kernels do */
	int64_t dequant_at;         /* the AWQ GEMM kernel: tokens a call at and above which the
	                               weights are dequantized to fp16 for a dense GEMM (0: the
	                               runtime's: AutoAWQ >= 0.2 and transformers 1024, vLLM >= 0.3
	                               256; < 0: never, as AutoAWQ <= 0.1.8 and vLLM <= 0.2.7) */
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
	double peak_tflops;     /* the peak used: bf16, fp8 or fp4 */
	double eff;             /* fraction of the peak the GEMMs reach */

	/* Training (zero for inference) */
	double tokens_step;     /* tokens of one optimizer step, all GPUs */
	double flops_step;      /* FLOPs of one step, all GPUs, recompute included */
	double model_flops_step; /* the same without recompute (MFU's numerator) */
	double compute_s;       /* the GEMMs and kernels of the step, bubble included */
	double comm_s;          /* data-parallel and sharding traffic (overlapped) */
	double tp_comm_s;       /* tensor-parallel all-reduces (training: of the step; inference:
	                           of a decode step), not overlapped */
	double ep_comm_s;       /* expert-parallel all-to-alls of the step, not overlapped */
	double bubble;          /* pipeline idle share of the step (0: none) */
	double optim_s, step_s;
	double tok_s_gpu, tok_s_total;
	double mfu;             /* model FLOPs rate / (GPUs * peak) */
	double budget_s;        /* time for opts.tokens_budget (0: none) */
	double gpu_hours;       /* budget_s x GPUs / 3600 (0: no budget) */
	double cost_usd;        /* gpu_hours x the GPU's price (0: no budget or no price) */

	/* Inference (zero for training): batch s->batch, prompt s->seq,
	 * s->new_tokens generated */
	gs_kernel kernel;       /* the kernel that ran (GS_K_AUTO resolved) */
	double prefill_s;       /* the whole batch's prompt = time to first token */
	double decode_step_s;   /* one step at the mean context of the generation */
	double decode_tok_s_seq, decode_tok_s_total;
	double weight_bytes;    /* weights read per decode step, per GPU (packed) */
	double kv_read_bytes;   /* KV cache the attention reads per decode step, per GPU */
	double cache_copy_bytes; /* bytes the cache's rebuild moves per step, per GPU (torch.cat) */
	double dequant_bytes;   /* 16-bit copies a dequantizing kernel writes and reads, per step */
	double decode_bytes;    /* all of the above: the bytes a decode step moves, per GPU */
	double decode_flops;    /* FLOPs of a decode step, per GPU */
	double host_s;          /* the runtime's host time a decode step */
	double generate_s;      /* prefill + new_tokens decode steps */
	double usd_per_mtok;    /* the GPUs' price per million tokens decoded at
	                           decode_tok_s_total (0: no price) */
	/* Serving at concurrency sequences in flight (opts.concurrency or the batch) */
	double concurrency;
	double ttft_s;          /* one prompt's prefill and a decode step */
	double tpot_s;          /* time per output token a sequence (0: no output tokens,
	                           --new-tokens 0: there is none to time) */
	double serve_tok_s;     /* output tokens/s of all sequences (0: the same) */
} gs_time;

/* Fill *t. The arch must be tallied (gs_arch_tally). GS_EUSAGE when the GPU
 * lacks a figure the model needs (bandwidth, TFLOPS), naming it, or when
 * the layout is impossible (tp x pp not dividing the GPUs). */
gs_err gs_time_estimate(const gs_arch *a, const gs_settings *s, const gs_gpu *g, const gs_time_opts *o,
                        gs_time *t, gs_error *e);

/* The time of a configuration the engine sized: gs_time_estimate with the
 * estimate's trainable count and the runtimes of the row's stack where o
 * names none (o NULL: the defaults). Every place that
 * times an estimated row (estimate, plan, the reports) asks this. */
gs_err gs_time_row(const gs_arch *a, const gs_settings *s, const gs_estimate *x, const gs_gpu *g,
                   const gs_time_opts *o, gs_time *t, gs_error *e);

/* Seconds of one NCCL all-reduce of `bytes` over n GPUs of g (n <=
 * per_node: within a node over its link, else across nodes): its ring
 * under the protocol (LL, LL128, Simple) NCCL's model gives the least
 * time, each a base latency plus one a step and 2 (n-1)/n of the bytes at
 * its share of the bus bandwidth (constants.h). 0 for n <= 1. p NULL: the
 * defaults. */
double gs_time_allreduce_s(const gs_time_params *p, const gs_gpu *g, int64_t n, int64_t per_node, double bytes);

/* The time model's figures as readers get them, into buf (n bytes): a
 * duration ("243.2 ms", "1.37 s", "12.5 min", "4.1 h", "23.2 days"), a
 * token count ("1 B", "250 M", "3.5 T", "5000"), dollars ("$2.49",
 * "$82"). Each returns buf. */
char *gs_time_fmt_secs(char *buf, size_t n, double sec);
char *gs_time_fmt_count(char *buf, size_t n, double v);
char *gs_time_fmt_usd(char *buf, size_t n, double usd);

/* The GEMM efficiency curve, eff_max * x / (x + x_half_ridge * ridge): x the
 * GEMMs' arithmetic intensity (FLOPs a byte of 16-bit operands, FLOP-weighted
 * over a pass's GEMMs: timing.c gemm_intensity), ridge the GPU's (peak /
 * bandwidth, times a weight's bytes / 2). */
double gs_time_eff(const gs_time_params *p, double x, double ridge);

#endif
