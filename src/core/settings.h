/* gpusizer: the settings of one sizing row (method, precision, optimizer,
 * batch, context, ...), their names, defaults and parsing from strings.
 * Shared by the command line, the sweep spec, the writers and verify. Pure. */
#ifndef GS_SETTINGS_H
#define GS_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch.h"
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
	GS_P_MXFP4,      /* OCP MXFP4 (gpt-oss's experts): E2M1 + a UE8 scale per 32 */
	GS_P_NVFP4,      /* NVFP4: E2M1 + an FP8 scale per 16 + an FP32 scale per tensor */
	GS_P_FP8_BLOCK,  /* fp8 e4m3 + an fp32 scale per 128 x 128 block (DeepSeek-V3) */
	GS_P_MAX
} gs_prec;

/* What a precision is (the precision table, settings.c, is the one list:
 * the --precision values, their help text, the settings' error lists and
 * the verdict's needs all come from it). */
typedef enum gs_prec_class {
	GS_PC_RECIPE = 0, /* a full fine-tuning recipe (amp-*, mixed-*, fp8-mixed) */
	GS_PC_PLAIN,      /* a plain dtype: a recipe and a base's storage (fp32, bf16, fp16) */
	GS_PC_FP8,        /* fp8 weights with scales, fp8 GEMMs (fp8, fp8-block) */
	GS_PC_QUANT,      /* quantized storage dequantized to bf16 for each matmul (int8, nf4
	                     and its variants, GPTQ, AWQ): gs_prec_quantized */
	GS_PC_FP4,        /* 4-bit block-scaled storage that fused kernels read as it is
	                     (mxfp4, nvfp4) */
} gs_prec_class;

/* A precision's properties and, for a base (LoRA, QLoRA, inference), how
 * a linear weight [out x in] is stored: value_bytes a weight, scale_bytes
 * a scale per block of scale_in x scale_out weights (0: the whole
 * dimension) or, with scale_flat, per scale_flat weights of the flattened
 * tensor (bitsandbytes' blocks, GPTQ's groups), a second level of scales
 * (double quantization), in_bytes per input feature (GPTQ's g_idx),
 * tensor_bytes per tensor. Biases stay at the compute dtype. */
typedef struct gs_prec_info {
	const char *name;
	gs_prec_class cls;
	unsigned methods;     /* GS_M() of the methods that take it */
	bool needs_bf16;      /* computes in bf16: not runnable without it */
	bool needs_fp8;       /* fp8 GEMMs: not runnable without fp8 */
	double value_bytes;
	double scale_bytes;
	int64_t scale_in, scale_out, scale_flat;
	double scale2_bytes;  /* nf4-dq: an fp32 scale per scale2_flat weights */
	int64_t scale2_flat;
	double in_bytes, tensor_bytes;
	bool experts_only;    /* only routed experts are stored so, the rest at the compute dtype
	                         (transformers' Mxfp4 integration replaces only the experts) */
	const char *not_for;  /* why the methods it lacks cannot take it, where that needs saying */
} gs_prec_info;

/* The row of p (NULL past the table). */
const gs_prec_info *gs_prec_info_of(gs_prec p);

/* Bytes of one [out x in] linear weight, biases aside, stored at p. */
double gs_prec_weight_bytes(gs_prec p, int64_t in, int64_t out);

typedef enum gs_optim {
	GS_O_ADAMW = 0, GS_O_ADAMW_FUSED, GS_O_ADAMW_8BIT, GS_O_PAGED_ADAMW_8BIT,
	GS_O_PAGED_ADAMW_32BIT, GS_O_SGD, GS_O_SGD_MOMENTUM, GS_O_LION,
	GS_O_ADAFACTOR, GS_O_MAX
} gs_optim;

/* Attention kernels. eager-upcast: eager attention that up-casts the
 * scores before the softmax (softmax(scores.float()): Meta's reference
 * Llama, AutoAWQ's fused attention, Qwen v1's remote code without
 * flash-attn), so the 16-bit scores, their fp32 copy and the fp32
 * probabilities live together. math: SDPA's math backend (inference
 * only), which since PyTorch 2.5 up-casts 16-bit q, k and v to fp32 and
 * scales fp32 copies of q and k before its fp32 scores and softmax
 * (aten/native/transformers/attention.cpp,
 * _scaled_dot_product_attention_math; gpt-fast's and torchao's
 * generate.py force it for every decode step). math-legacy: the same
 * backend before PyTorch 2.5: 16-bit scaled q and k, 16-bit scores and
 * softmax, keys and values broadcast to the query heads rather than
 * expanded; it is what SDPA falls back to when its fused kernels refuse
 * the inputs (2.0 to 2.4: unequal query and key/value head counts). */
typedef enum gs_attn {
	GS_ATTN_SDPA = 0, GS_ATTN_EAGER, GS_ATTN_FLASH, GS_ATTN_EAGER_UPCAST, GS_ATTN_MATH,
	GS_ATTN_MATH_LEGACY, GS_ATTN_MAX
} gs_attn;
/* The loss: transformers' since 4.46 (16-bit logits, up-cast inside the
 * loss), chunked (litgpt, torchtune), or legacy: heads that return
 * logits.float() and take the loss on a shifted fp32 copy (transformers
 * before 4.46, ChatGLM's remote code), so fp32 logits are what lives.
 * The fused losses never hold every token's logits: the head and the loss
 * run over chunks of the hidden states and compute their gradients in the
 * forward. fused: Liger's LigerFusedLinearCrossEntropy (chunks of about
 * tokens x hidden / vocab rows, the chunk's 16-bit logits turned into
 * their gradient in place); fused-chunks: Unsloth's unsloth_fused_ce_loss
 * (chunks whose fp32 logits stay under 4 GiB, torch.func per chunk). */
typedef enum gs_loss {
	GS_LOSS_STANDARD = 0, GS_LOSS_CHUNKED, GS_LOSS_LEGACY, GS_LOSS_FUSED, GS_LOSS_FUSED_CHUNKS, GS_LOSS_MAX
} gs_loss;
/* The 16-bit type the row computes in. auto: bf16 where the GPU has it,
 * fp16 where it does not (the two take the same bytes, so the estimate is
 * one; the verdict resolves it per GPU class); bf16 or fp16: that type
 * everywhere (a GPU without bf16 cannot run a bf16 row). */
typedef enum gs_compute { GS_CD_AUTO = 0, GS_CD_BF16, GS_CD_FP16, GS_CD_MAX } gs_compute;
/* The precision of the loss's buffers (log-probabilities and their
 * gradients). auto: fp32, unless the loop runs no autocast (the pure 16-bit
 * and mixed recipes of full fine-tuning: DeepSpeed's engine and pure 16-bit
 * loops cast the model) and the family's head hands its 16-bit logits to
 * cross-entropy as they are (gs_arch.loss_16bit: Qwen v1's remote code);
 * fp32: up-cast (autocast, transformers' heads); compute: at the compute
 * dtype. */
typedef enum gs_loss_dtype { GS_LD_AUTO = 0, GS_LD_FP32, GS_LD_COMPUTE, GS_LD_MAX } gs_loss_dtype;
/* PEFT's prepare_model_for_kbit_training on a quantized base (LoRA/QLoRA):
 * every 16-bit parameter that is not quantized (embeddings, norms, head,
 * biases) cast to fp32 (never on a GPTQ base: PEFT skips the cast). auto:
 * on for bitsandbytes int8/nf4/nf4-dq and AWQ on one GPU, ddp or pipeline;
 * off under zero1/zero2 (DeepSpeed casts the module back to 16 bits),
 * zero3/fsdp/fsdp2 (TRL skips it for sharded QLoRA) and for the Lightning
 * Fabric and torchao variants, which never call it. */
typedef enum gs_kbit_prep { GS_KP_AUTO = 0, GS_KP_ON, GS_KP_OFF, GS_KP_MAX } gs_kbit_prep;
/* What bitsandbytes' 4-bit matmul (MatMul4Bit) keeps for backward: from
 * 0.43.2 (PR #1270) only the packed weight; before, its input too, as a
 * ctx attribute, so that input lives as long as the autograd graph. */
typedef enum gs_bnb_saves { GS_BNB_WEIGHT = 0, GS_BNB_INPUT, GS_BNB_MAX } gs_bnb_saves;
typedef enum gs_shard { GS_SH_DDP = 0, GS_SH_ZERO1, GS_SH_ZERO2, GS_SH_ZERO3, GS_SH_FSDP, GS_SH_FSDP2, GS_SH_PIPELINE, GS_SH_MAX } gs_shard;
typedef enum gs_offload { GS_OFF_NONE = 0, GS_OFF_OPTIMIZER, GS_OFF_PARAMS, GS_OFF_ACTIVATIONS, GS_OFF_MAX } gs_offload;
/* Storage dtypes (adapters: the first two; the KV cache: all). int8 is a
 * KV cache only: int8 values with a 16-bit scale per token and head
 * (torchao's AffineQuantizedKVCache). */
typedef enum gs_dtype { GS_DT_FP32 = 0, GS_DT_BF16, GS_DT_FP16, GS_DT_FP8, GS_DT_INT8, GS_DT_MAX } gs_dtype;
/* Inference: which prefill logits live (the last position per sequence, as
 * generate() keeps them; every prompt position, as a plain forward; every
 * position upcast to fp32, as older transformers' heads did: 16-bit and
 * fp32 copies both live at the cast). */
typedef enum gs_logits { GS_LOGITS_LAST = 0, GS_LOGITS_ALL, GS_LOGITS_ALL_FP32, GS_LOGITS_MAX } gs_logits;
/* Inference: the KV cache as the runtime allocates it while generating. */
typedef enum gs_kvcache {
	GS_KVC_DYNAMIC = 0, /* transformers' DynamicCache: each layer grown by torch.cat in turn */
	GS_KVC_LEGACY,      /* tuple caches rebuilt each step: the old and new caches both live */
	GS_KVC_STATIC,      /* StaticCache: preallocated at prompt + new tokens */
	GS_KVC_STATIC_MASK, /* static, plus gpt-fast's [L, L] bool causal-mask buffer beside it */
	GS_KVC_MAX
} gs_kvcache;
typedef enum gs_formula {
	GS_F_DETAILED = 0, GS_F_COOKBOOK, GS_F_RULE_OF_THUMB, GS_F_ZERO1_RULE, GS_F_MAX
} gs_formula;

#define GS_LORA_NAMES_MAX 256

typedef struct gs_settings {
	gs_method method;
	char stack[GS_LORA_NAMES_MAX]; /* the stack profiles the row follows, "NAME[@VERSION],..." (stacks.h) */
	gs_compute compute_dtype; /* the 16-bit compute type (gs_compute) */
	gs_prec precision;       /* see gs_settings_default for per-method defaults */
	bool precision_set;      /* false: default for the method */
	gs_prec native;          /* the checkpoint's own storage (its quantization_config), the
	                            inference default; GS_P_MAX: unquantized (bf16). Set by whoever
	                            pairs the row with its model (gs_settings_native) */
	gs_dtype adapter_dtype;  /* LoRA adapter storage (PEFT default fp32) */
	gs_optim optimizer;
	bool optimizer_in_bwd;   /* step each parameter inside backward, free its grad (torchtune) */
	int64_t lora_r;
	char lora_targets[GS_LORA_NAMES_MAX]; /* "qv", "attn", "all-linear" or names */
	double lora_dropout;
	bool train_embeddings;   /* embeddings + head fully trained (modules_to_save) */
	gs_kbit_prep kbit_prep;  /* quantized base: PEFT's fp32 cast of the unquantized parameters */
	gs_bnb_saves bnb_saves;  /* bitsandbytes 4-bit matmuls: the weight only, or the input too (gs_bnb_saves) */
	int64_t batch, seq;
	int64_t grad_accum;      /* micro-batches per optimizer step (grads live across them) */
	bool grad_ckpt;
	bool ckpt_offload;       /* checkpointed layer inputs go to host memory (Unsloth's offloaded checkpointing) */
	bool compile;            /* torch.compile (inductor): fused norms and gated activations */
	bool fused_kernels;      /* norms and gated activations through kernels that save only their inputs (Liger, Unsloth) */
	gs_attn attn;
	bool fused_qkv;          /* the stack runs q, k, v as one linear (litgpt's attention and LoRA) */
	bool held_logits;        /* the loop keeps the last micro-batch's logits (and graph) into the next forward */
	gs_loss loss;
	gs_loss_dtype loss_dtype; /* the loss buffers' precision (gs_loss_dtype) */
	int64_t gpus;
	gs_shard sharding;
	int64_t tp;
	int64_t pp;              /* training: 1F1B pipeline stages (Megatron-Core's schedule) */
	int64_t vpp;             /* training: model chunks a stage (the interleaved schedule; 1: none) */
	int64_t ep;              /* training: expert-parallel ranks among the data-parallel ones */
	gs_offload offload;
	bool full_state_dict_load; /* zero3/fsdp: every rank keeps a full weight copy (loaded state dict) beside its shard */
	int64_t zero_bucket;     /* DeepSpeed reduce_bucket_size, elements; 0: "auto" (hidden_size^2) */
	bool overlap_comm;       /* DeepSpeed ZeRO-2 overlap_comm: a second ipg buffer */
	gs_dtype kv_dtype;
	bool kv_dtype_set;       /* false: the compute dtype */
	gs_kvcache kv_cache;     /* inference: how the cache grows while generating */
	int64_t new_tokens;      /* inference: tokens generated after the --seq prompt tokens */
	gs_logits logits;        /* inference prefill logits (gs_logits) */
	bool awq_fuse;           /* inference: AutoAWQ loads with fuse_layers=True (q/k/v held twice while fusing) */
	int64_t cuda_context_mib; /* CUDA context + library handles outside torch's allocator */
	gs_formula formula;
	double trainable_fraction; /* cookbook only; < 0 = the seed's default */
	/* Not a setting: those given beside the stack (a flag, the spec, a
	 * planner's step), as gs_setting_bit's; no stack changes them
	 * (gs_stack_apply). Not in the key: it says who chose, not what. */
	uint64_t given;
} gs_settings;

/*
 * The settings table: one description per setting, in the fixed order of
 * the row writers' columns (every setting is a column of CSV, JSON and
 * XLSX) and of the canonical key. The command line and
 * its --help, the sweep spec's axes and fixed settings, every writer's
 * columns, the label, the key and verify's harness arguments all read it;
 * adding a setting means a row here, its field in gs_settings and the
 * engine's use of it (then the docs: `make docs`).
 */
typedef enum gs_setting_type {
	GS_ST_ENUM = 0, /* one of values[] (stored as its index in an enum field)   */
	GS_ST_BOOL,     /* bool field; values {off, on} names it, else true/false */
	GS_ST_INT,      /* int64_t in [lo, hi]                                    */
	GS_ST_REAL,     /* double in [lo, hi]                                     */
	GS_ST_TEXT,     /* char[GS_LORA_NAMES_MAX] checked by the setting's rule   */
} gs_setting_type;

/* When a setting's label fragment is printed. */
typedef enum gs_label_when {
	GS_LW_NEVER = 0, /* not in the label                         */
	GS_LW_ALWAYS,
	GS_LW_CHANGED,   /* value differs from the default (bool: on) */
	GS_LW_MULTI,     /* more than one GPU                         */
} gs_label_when;

#define GS_M(m) (1u << (m))
#define GS_M_ALL (GS_M(GS_FULL) | GS_M(GS_LORA) | GS_M(GS_QLORA) | GS_M(GS_INFER))
#define GS_M_TRAIN (GS_M(GS_FULL) | GS_M(GS_LORA) | GS_M(GS_QLORA))
#define GS_M_ADAPTER (GS_M(GS_LORA) | GS_M(GS_QLORA))

enum { /* gs_setting.flags */
	GS_SF_SWEPT = 1u << 0,    /* the spec sweeps it (axes, gpu_counts): not under "settings" */
	GS_SF_HARNESS = 1u << 2,  /* verify passes it to the harness as --NAME VALUE            */
	GS_SF_NO_HARNESS = 1u << 3, /* the harness cannot build a changed value: verify refuses */
	GS_SF_XLSX_MATRIX = 1u << 4, /* XLSX shows it beside the verdicts, not in the details   */
	GS_SF_OWN_LIST = 1u << 5, /* the help text lists the values itself                    */
	GS_SF_LAYOUT = 1u << 6,   /* the GPU layout: the count, sharding, tensor and pipeline
	                             parallel, and what a stack derives from them (ZeRO's buckets) */
	GS_SF_KEY_CHANGED = 1u << 7, /* in the key and the hashes only when changed: a setting
	                             added after row ids were published (pp), so that every row
	                             at its default keeps its id */
};

/* A swept setting: an axis of the sweep spec (docs/spec.md). The table's
 * axes, in `order`, are the sweep's nesting (report/sweep.c), the spec's
 * "axes" keys and report's axis overrides (report --help). */
typedef struct gs_axis {
	int order;            /* nesting order, 1 outermost (after the model); 0: not an axis */
	const char *spec_key; /* its key under the spec's "axes" (GS_AXF_COUNTS: a top-level key) */
	const char *option;   /* report's override: --OPTION LIST (a comma list) */
	const char *arg;      /* the option's placeholder in --help ("N,...") */
	const char *help;     /* the option's help ('\n' continues a line) */
	unsigned flags;       /* GS_AXF_* */
} gs_axis;

enum { /* gs_axis.flags */
	GS_AXF_PER_METHOD = 1u << 0, /* the spec may give one list per method (precision) */
	GS_AXF_COUNTS = 1u << 1,     /* the GPU layouts: COUNT[:SHARDING[:TP[:PP]]] set gpus, sharding,
	                                tp, pp */
	GS_AXF_SEMICOLON = 1u << 2,  /* its override lists values with ';' (a value holds commas:
	                                a stack, "hf,trl") */
};

/* At most this many axes (test_settings checks the table). */
#define GS_AXES_MAX 16

typedef struct gs_setting {
	const char *name;     /* flag without "--"; CSV header; JSON key; spec key with '_' */
	gs_setting_type type;
	const char *const *values; /* ENUM: names by index; BOOL: {off, on} or NULL; NULL-ended */
	double lo, hi;        /* INT and REAL: the accepted range */
	const char *def;      /* default value text; NULL: derived (see the setting's help) */
	const char *arg;      /* value placeholder in --help ("N"); NULL for a boolean */
	const char *help;     /* what it is, for --help and the docs (values and default appended) */
	unsigned methods;     /* GS_M() of the methods whose estimate it can change */
	unsigned flags;       /* GS_SF_* */
	const char *title;    /* XLSX column header */
	int width;            /* XLSX column width (characters) */
	const char *label;    /* label fragment: printf format, %s = the value text */
	gs_label_when when;   /* when the fragment is printed */
	int label_at;         /* order in the label (fragments print in rising order) */
	size_t off;           /* offsetof(gs_settings, field) */
	size_t set_off;       /* offsetof the field's "given" flag (precision, kv-dtype); 0: none */
	int (*derive)(const gs_settings *s); /* ENUM not given: its value (precision: the
	                                        method's); NULL: "auto" (kv-dtype) */
	gs_axis axis;         /* the spec sweeps it (axis.order > 0): how */
} gs_setting;

/* The table (gs_settings_count() rows, static). */
const gs_setting *gs_settings_table(void);
size_t gs_settings_count(void);
/* A setting by name, NULL if none. */
const gs_setting *gs_setting_find(const char *name);
/* The k-th axis of the sweep (0: the outermost, the method), NULL past the
 * last. The sweep iterates the settings the spec may name a list of,
 * whose methods mask says for which methods it is swept. */
const gs_setting *gs_settings_axis(size_t k);
/* The axis whose report override option is s, NULL if none. */
const gs_setting *gs_settings_axis_option(const char *s);
/* The setting's bit in a set of settings (1 << its row; the table has at
 * most 64 rows): what a caller gave beside a stack, for gs_stack_apply.
 * 0 for no such setting. */
uint64_t gs_setting_bit(const char *name);

/* A setting's value in a row, typed. text is the canonical text (what
 * gs_settings_set takes back): the enum or boolean name, "true"/"false",
 * the integer, the real in %.10g, the text; "auto" for a derived value
 * that was not given and has no name (kv-dtype). */
typedef struct gs_setting_value {
	gs_setting_type type;
	bool named;       /* ENUM, TEXT or a BOOL with value names: write text as a string */
	bool unset;       /* derived and not given: text "auto" (a number column: empty) */
	bool b;
	int64_t i;
	double d;
	char text[GS_LORA_NAMES_MAX];
} gs_setting_value;
void gs_setting_get(const gs_setting *d, const gs_settings *s, gs_setting_value *v);

/* Whether a setting can change the estimate of s's method. */
bool gs_setting_applies(const gs_setting *d, const gs_settings *s);
/* Whether s holds a value other than the setting's default. */
bool gs_setting_changed(const gs_setting *d, const gs_settings *s);

/* Defaults (each setting's def): full, stack "hf" (applied by
 * gs_stack_apply, not here), compute dtype auto, precision by method (full
 * amp-bf16, lora bf16, qlora nf4, inference bf16; the fp16 twins under
 * --compute-dtype fp16), adamw, r 16, targets qv, dropout
 * 0.05, batch 1, seq 2048, grad-accum 1, no checkpointing, sdpa, standard
 * loss, 1 GPU ddp, tp 1, no offload, adapters fp32, kv cache at compute
 * dtype, last-position logits, CUDA context 1343 MiB, detailed formula. */
void gs_settings_default(gs_settings *s);

/* Every setting not in keep (gs_setting_bit's) back to its default, its
 * "given" flag too; the rest, and s->given, left as they are. */
void gs_settings_reset_except(gs_settings *s, uint64_t keep);

/* Set one setting by its table name from its text value (booleans:
 * true/false, on/off, 1/0, yes/no). Unknown name or bad value: GS_EUSAGE
 * with a detail naming both. */
gs_err gs_settings_set(gs_settings *s, const char *name, const char *value, gs_error *e);
/* The same for a row of the table (gs_setting_find's). */
gs_err gs_setting_set(const gs_setting *d, gs_settings *s, const char *value, gs_error *e);

/* Check cross-setting consistency (precision valid for method, tp divides,
 * etc.). Call after all sets. */
gs_err gs_settings_check(const gs_settings *s, gs_error *e);

/* The effective precision (resolves the per-method default: full
 * amp-bf16, qlora nf4, lora bf16 (an MXFP4 or FP8 checkpoint is
 * dequantized to bf16 first, as TRL's gpt-oss recipe does), inference the
 * checkpoint's own storage (s->native), else bf16). */
gs_prec gs_settings_precision(const gs_settings *s);

/* The text of a method's default precision, as a sweep lists it: "native"
 * for inference (the checkpoint's own storage, resolved per model), else
 * the default's name. --precision native (the spec's "native") leaves the
 * precision to that default. */
const char *gs_prec_default_text(gs_method m);

/* The checkpoint storage a config's quantization_config names, or
 * GS_P_MAX where it names none (or one gpusizer does not model); the
 * second puts a's into s->native. */
gs_prec gs_prec_of_checkpoint(const gs_arch *a);
void gs_settings_native(gs_settings *s, const gs_arch *a);
/* Whether PEFT's prepare_model_for_kbit_training casts the base's
 * unquantized parameters to fp32 in this row (--kbit-prep; auto: on for
 * bitsandbytes and AWQ bases, LoRA or QLoRA, on one GPU, ddp or pipeline;
 * never for GPTQ). The engine's cast and the stacks' checkpointing that
 * comes with the preparation both follow it. */
bool gs_settings_kbit_prep(const gs_settings *s);

/* The 16-bit type a precision names: bf16 (amp-bf16, mixed-bf16, bf16),
 * fp16 (the fp16 three), GS_CD_AUTO for the rest (fp32, fp8, quantized
 * storage: they compute in --compute-dtype). */
gs_compute gs_prec_16bit(gs_prec p);

/* The compute dtype's name ("auto", "bf16", "fp16"). */
const char *gs_compute_name(gs_compute c);

/* A quantized base storage (int8, nf4 and its variants, GPTQ, AWQ): weights
 * that compute in bf16 after dequantizing. fp8 and the 4-bit block formats
 * (read by fused kernels) are not counted. */
bool gs_prec_quantized(gs_prec p);

/* Eager attention (eager, eager-upcast) and SDPA's math backend: the s^2
 * score matrix is computed and held, over the whole causal square. */
bool gs_attn_eager(gs_attn a);

/* A fused loss (fused, fused-chunks): the head and the loss run over
 * chunks of the hidden states; no step holds every token's logits. */
bool gs_loss_fused(gs_loss l);

/* The data-parallel ranks of s's layout: --gpus / (--tp x --pp); 1 under
 * --sharding pipeline (one model split over every GPU). */
int64_t gs_settings_dp_ranks(const gs_settings *s);

/* Bytes per element of a storage dtype (int8: its values; the KV cache's
 * scales are the engine's to add). */
double gs_dtype_bytes(gs_dtype d);

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
const char *gs_logits_name(const gs_settings *s);          /* "last", "all" or "all-fp32" */
/* The tokens a sequence reaches: --seq, plus --new-tokens for inference. */
int64_t gs_settings_context(const gs_settings *s);
int gs_method_parse(const char *s);
int gs_prec_parse(const char *s);
int gs_optim_parse(const char *s);
int gs_formula_parse(const char *s);

/* A short display label for a row, e.g. "full amp-bf16 adamw b1 s2048 ckpt
 * sdpa", from the table's label fragments. Lossy (two rows may share one):
 * for display only; joins and ids use gs_settings_key. Writes at most n
 * bytes (NUL-terminated). */
void gs_settings_label(const gs_settings *s, char *buf, size_t n);
/* The same label without the fragment of the setting named (NULL: none),
 * e.g. "seq" for a label that stands for every context. */
void gs_settings_label_without(const gs_settings *s, const char *name, char *buf, size_t n);
/* The label of only the settings in show (gs_setting_bit's), e.g. "bf16 b1
 * ckpt" for what varies among a method's rows; without a leading space. */
void gs_settings_label_of(const gs_settings *s, uint64_t show, char *buf, size_t n);
/* The settings whose values differ between a and b, of those that apply
 * to either (gs_setting_bit's). */
uint64_t gs_settings_differ(const gs_settings *a, const gs_settings *b);
/* The settings of the GPU layout (GS_SF_LAYOUT), gs_setting_bit's. */
uint64_t gs_settings_layout_bits(void);

/* The canonical row key: "name=value" for every setting that applies to
 * the row's method (gs_setting_applies), in table order, joined by ';'
 * (a GS_SF_KEY_CHANGED setting only where it is not at its default).
 * Rows with equal keys have equal estimates; rows whose applicable
 * settings differ have different keys. Returns the length it needs (the
 * key is complete when that is < n). */
size_t gs_settings_key(const gs_settings *s, char *buf, size_t n);
#define GS_KEY_MAX 2048

/* Whether a and b agree on every setting that applies to either, but the
 * one named (NULL: none), e.g. "seq" for rows that differ in context only. */
bool gs_settings_equal_except(const gs_settings *a, const gs_settings *b, const char *name);

/* A 64-bit FNV-1a hash of a model id and a row key ("model\nkey"), for row
 * ids and file names. */
uint64_t gs_key_hash(const char *model, const char *key);
/* A 64-bit FNV-1a hash of the settings that apply to s's method but those
 * in hide (gs_setting_bit's): equal for rows that differ only there (e.g.
 * the context and the GPU layout: one configuration). */
uint64_t gs_settings_hash_of(const gs_settings *s, uint64_t hide);

#endif
