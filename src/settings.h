/* gpusizer: the settings of one sizing row (method, precision, optimizer,
 * batch, context, ...), their names, defaults and parsing from strings.
 * Shared by `estimate` flags and the sweep spec's axes. Pure. */
#ifndef GS_SETTINGS_H
#define GS_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

typedef enum gs_method { GS_FULL = 0, GS_LORA, GS_QLORA, GS_INFER, GS_METHOD_MAX } gs_method;

/* Full fine-tuning recipes (MEMORY-MODEL.md section 3) and base-weight
 * storage for LoRA/QLoRA/inference share one namespace. */
typedef enum gs_prec {
	GS_P_FP32 = 0,
	GS_P_AMP_BF16,   /* fp32 weights, bf16 autocast                      */
	GS_P_AMP_FP16,
	GS_P_MIXED_BF16, /* bf16 weights + fp32 master + fp32 states (ZeRO)  */
	GS_P_MIXED_FP16,
	GS_P_BF16,       /* pure bf16: weights, grads, states                */
	GS_P_FP16,
	GS_P_FP8_MIXED,  /* fp8 compute, bf16 weights, fp32 master + states  */
	GS_P_FP8,        /* storage only (LoRA/inference)                    */
	/* quantized storage from here on (gs_prec_quantized) */
	GS_P_INT8,       /* LLM.int8                                         */
	GS_P_NF4,
	GS_P_NF4_DQ,
	GS_P_GPTQ_INT4,
	GS_P_GPTQ_INT8,
	GS_P_AWQ_INT4,
	GS_P_NF4_TORCHAO, /* torchao NF4 (torchtune): nf4-dq storage, no saved input */
	GS_P_NF4_LITGPT,  /* Lightning Fabric's bitsandbytes plugin (litgpt --quantize
	                     bnb.nf4): every nn.Linear, the head too, quantized from
	                     fp16; each matmul dequantizes to fp16, then casts */
	GS_P_NF4_DQ_LITGPT, /* the same with double quantization (bnb.nf4-dq) */
	GS_P_MAX
} gs_prec;

typedef enum gs_optim {
	GS_O_ADAMW = 0, GS_O_ADAMW_FUSED, GS_O_ADAMW_8BIT, GS_O_PAGED_ADAMW_8BIT,
	GS_O_PAGED_ADAMW_32BIT, GS_O_SGD, GS_O_SGD_MOMENTUM, GS_O_LION,
	GS_O_ADAFACTOR, GS_O_MAX
} gs_optim;

typedef enum gs_attn { GS_ATTN_SDPA = 0, GS_ATTN_EAGER, GS_ATTN_FLASH, GS_ATTN_MAX } gs_attn;
typedef enum gs_loss { GS_LOSS_STANDARD = 0, GS_LOSS_CHUNKED, GS_LOSS_MAX } gs_loss;
typedef enum gs_shard { GS_SH_DDP = 0, GS_SH_ZERO1, GS_SH_ZERO2, GS_SH_ZERO3, GS_SH_FSDP, GS_SH_FSDP2, GS_SH_PIPELINE, GS_SH_MAX } gs_shard;
typedef enum gs_offload { GS_OFF_NONE = 0, GS_OFF_OPTIMIZER, GS_OFF_PARAMS, GS_OFF_ACTIVATIONS, GS_OFF_MAX } gs_offload;
typedef enum gs_dtype { GS_DT_FP32 = 0, GS_DT_BF16, GS_DT_FP16, GS_DT_FP8, GS_DT_MAX } gs_dtype;
typedef enum gs_formula {
	GS_F_DETAILED = 0, GS_F_COOKBOOK, GS_F_RULE_OF_THUMB, GS_F_ZERO1_RULE, GS_F_MAX
} gs_formula;

#define GS_LORA_NAMES_MAX 256

typedef struct gs_settings {
	gs_method method;
	gs_prec precision;       /* see gs_settings_default for per-method defaults */
	bool precision_set;      /* false: default for the method */
	gs_dtype adapter_dtype;  /* LoRA adapter storage (PEFT default fp32) */
	gs_optim optimizer;
	bool optimizer_in_bwd;   /* step each parameter inside backward, free its grad (torchtune) */
	int64_t lora_r;
	char lora_targets[GS_LORA_NAMES_MAX]; /* "qv", "attn", "all-linear" or names */
	double lora_dropout;
	bool train_embeddings;   /* embeddings + head fully trained (modules_to_save) */
	int64_t batch, seq;
	int64_t grad_accum;      /* micro-batches per optimizer step (grads live across them) */
	bool grad_ckpt;
	bool compile;            /* torch.compile (inductor): fused norms and gated activations */
	gs_attn attn;
	gs_loss loss;
	int64_t gpus;
	gs_shard sharding;
	int64_t tp;
	gs_offload offload;
	bool full_state_dict_load; /* zero3/fsdp: every rank keeps a full weight copy (loaded state dict) beside its shard */
	gs_dtype kv_dtype;
	bool kv_dtype_set;       /* false: the compute dtype */
	bool logits_all;         /* inference prefill: logits for every prompt position (a plain
	                            forward) instead of the last one only (generate()) */
	int64_t cuda_context_mib; /* CUDA context + library handles outside torch's allocator */
	gs_formula formula;
	double trainable_fraction; /* cookbook only; < 0 = the seed's default */
} gs_settings;

/* Defaults: full, precision by method (full amp-bf16, lora bf16, qlora nf4,
 * inference bf16), adamw, r 16, targets qv, dropout 0.05, batch 1, seq 2048,
 * grad-accum 1, no checkpointing, sdpa, standard loss, 1 GPU ddp, tp 1, no offload,
 * adapters fp32, kv cache at compute dtype, last-position logits, CUDA context 1343 MiB (see
 * engine.c, constants), detailed formula. */
void gs_settings_default(gs_settings *s);

/* Set one setting by its flag name without dashes ("method", "precision",
 * "adapter-dtype", "optimizer", "optimizer-in-bwd", "lora-r", "lora-targets", "lora-dropout",
 * "train-embeddings", "batch", "seq", "grad-accum", "grad-ckpt", "compile", "attn", "loss", "gpus",
 * "sharding", "tp", "offload", "state-dict-load", "kv-dtype", "logits", "cuda-context", "formula",
 * "trainable-fraction")
 * from its text value (booleans: "true"/"false"/"on"/"off"/"1"/"0").
 * Unknown name or bad value: GS_EUSAGE with a detail naming both. */
gs_err gs_settings_set(gs_settings *s, const char *name, const char *value, gs_error *e);

/* Check cross-setting consistency (precision valid for method, tp divides,
 * etc.). Call after all sets. */
gs_err gs_settings_check(const gs_settings *s, gs_error *e);

/* The effective precision (resolves the per-method default). */
gs_prec gs_settings_precision(const gs_settings *s);

/* A quantized base storage (int8, nf4 and its variants, GPTQ, AWQ): weights
 * that compute in bf16 after dequantizing. fp8 storage is not counted. */
bool gs_prec_quantized(gs_prec p);

/* Canonical names (static strings) and reverse lookups (-1 if unknown). */
const char *gs_method_name(gs_method m);
const char *gs_prec_name(gs_prec p);
const char *gs_optim_name(gs_optim o);
const char *gs_attn_name(gs_attn a);
const char *gs_loss_name(gs_loss l);
const char *gs_shard_name(gs_shard s);
const char *gs_offload_name(gs_offload o);
const char *gs_dtype_name(gs_dtype d);
const char *gs_formula_name(gs_formula f);
const char *gs_state_dict_load_name(const gs_settings *s); /* "sharded" or "full" */
const char *gs_logits_name(const gs_settings *s);          /* "last" or "all" */
int gs_method_parse(const char *s);
int gs_prec_parse(const char *s);
int gs_optim_parse(const char *s);
int gs_formula_parse(const char *s);

/* A short stable text key for a row, e.g.
 * "full amp-bf16 adamw b1 s2048 ckpt sdpa" (for tables and row ids).
 * Writes at most n bytes (NUL-terminated). */
void gs_settings_label(const gs_settings *s, char *buf, size_t n);

#endif
