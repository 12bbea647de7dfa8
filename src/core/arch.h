/* gpusizer: a model's architecture as the sizing core sees it, with an exact
 * per-module parameter tally. Pure: no cJSON, curl or FILE* here. */
#ifndef GS_ARCH_H
#define GS_ARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

#define GS_MAX_LIN 16        /* linear modules per decoder layer kind */
#define GS_MAX_LAYER_KINDS 2 /* e.g. dense layers + MoE layers (DeepSeek) */

/* What a linear module does; LoRA presets and tensor parallelism use it. */
typedef enum gs_role {
	GS_ROLE_Q,        /* query projection (MLA: q_b_proj, or q_proj)    */
	GS_ROLE_K,
	GS_ROLE_V,
	GS_ROLE_QKV,      /* fused query+key+value (Phi-3, GPT-2, NeoX...)  */
	GS_ROLE_O,        /* attention output                              */
	GS_ROLE_ATTN_OTHER, /* MLA down-projections (q_a_proj, kv_a_proj...) */
	GS_ROLE_GATE,     /* gated MLP gate                                */
	GS_ROLE_UP,
	GS_ROLE_GATE_UP,  /* fused gate+up (Phi-3)                         */
	GS_ROLE_DOWN,
	GS_ROLE_ROUTER,   /* MoE router / shared-expert gate               */
	GS_ROLE_MAX
} gs_role;

/* One kind of linear module in a layer; `count` instances of in x out. */
typedef struct gs_linear {
	char name[40];   /* the family's module name, e.g. "q_proj", "shared_experts.gate_proj" */
	gs_role role;
	int64_t in, out; /* features */
	int64_t count;   /* instances per layer (experts: num_experts) */
	int64_t active;  /* instances a token goes through (experts: top-k) */
	bool bias;
	bool expert;     /* routed expert weight (sharded/counted as MoE) */
} gs_linear;

/* A group of identical decoder layers. */
typedef struct gs_layer_kind {
	int64_t n_layers;
	int n_lin;
	gs_linear lin[GS_MAX_LIN];
	int64_t other_params; /* norms, q/k norms, etc. per layer */
	int64_t mlp_inner;    /* width of the MLP's hidden activation per token
	                         (dense: intermediate; MoE: top-k * moe_inter
	                         + shared inter) for activation sizing */
	int64_t n_experts;    /* 0 for dense layers */
	int64_t experts_per_tok;
} gs_layer_kind;

typedef enum gs_act { GS_ACT_GATED = 0, GS_ACT_PLAIN } gs_act; /* SwiGLU/GeGLU vs GELU/ReLU MLP */
typedef enum gs_norm { GS_NORM_RMS = 0, GS_NORM_LAYER } gs_norm;

/* Checkpoint quantisation read from a config's quantization_config. */
typedef enum gs_quant {
	GS_QUANT_NONE = 0,
	GS_QUANT_GPTQ,
	GS_QUANT_AWQ,
	GS_QUANT_BNB4,
	GS_QUANT_BNB8,
	GS_QUANT_FP8,
	GS_QUANT_OTHER,
} gs_quant;

typedef struct gs_arch {
	char model_type[32];  /* as in config.json ("llama"), or "manual" */
	char source[256];     /* file the config came from, for messages */
	bool generic;         /* unknown model_type sized as a generic decoder */
	char warning[256];    /* what was assumed, when generic or defaulted */
	bool encoder;         /* bidirectional encoder (BERT): no causal LM head */

	int64_t hidden, layers, heads, kv_heads, head_dim, intermediate, vocab;
	int64_t max_pos;
	int64_t v_head_dim;   /* MLA: value head dim; else head_dim */
	int64_t kv_cache_dim; /* elements cached per token per layer
	                         (GQA: 2*kv_heads*head_dim; MLA: kv_lora_rank+rope) */
	int64_t sliding_window; /* 0 = none */

	gs_act act;
	gs_norm norm;
	bool parallel_attn;   /* attention and MLP read the same input (Falcon, NeoX) */
	bool rotary;
	bool tied;            /* output head shares the input embedding */
	double dropout;       /* hidden/attention dropout applied in training */
	int layer_norms;      /* residual-stream norms per layer (Gemma 2/3: 4);
	                         0 = the usual 2, or 1 when parallel_attn */
	bool qk_norm;         /* RMSNorm over queries and keys (Qwen3, Gemma 3, OLMo 2) */
	double attn_softcap;  /* Gemma 2: tanh cap on attention scores (0 = none) */
	double final_softcap; /* Gemma 2: tanh cap on the final logits (0 = none) */
	bool loss_16bit;      /* the head hands its 16-bit logits to cross-entropy with no
	                         .float() (Qwen v1's remote code) */

	int n_kinds;
	gs_layer_kind kind[GS_MAX_LAYER_KINDS];

	int64_t p_embed;       /* token embedding (vocab x hidden) */
	int64_t p_embed_other; /* position / token-type embeddings, embedding norms */
	int64_t p_head;        /* output head when untied (0 when tied), incl. bias */
	int64_t p_final;       /* final norm, pooler */

	gs_quant quant;
	int quant_bits;        /* 4, 8 (0 when none) */
	int64_t quant_group;   /* GPTQ/AWQ group size (128 typical; -1 = per column) */

	/* Filled by gs_arch_tally: */
	uint64_t params_total;  /* every parameter once (tied once) */
	uint64_t params_active; /* per token: routed experts counted top-k */
	uint64_t params_linear; /* in decoder-layer linear modules (quantisable) */
} gs_arch;

/* Compute params_total/active/linear from the fields above. Returns
 * GS_EOVERFLOW (detail in e) if any product passes 2^62. */
gs_err gs_arch_tally(gs_arch *a, gs_error *e);

/* Parameters of one linear kind (all instances, with bias). */
uint64_t gs_linear_params(const gs_linear *l);

/*
 * Build a generic LLaMA-style decoder from the seed's manual inputs.
 * Zero means "not given": heads default to hidden/128, kv_heads to heads,
 * intermediate to the value that makes the total match params (when given)
 * or 8/3*hidden rounded up to 256, vocab to 32000. When params is given,
 * it overrides the tally's total (and a warning says by how much the shape
 * differs).
 */
gs_err gs_arch_manual(gs_arch *a, int64_t params, int64_t layers, int64_t hidden,
                      int64_t heads, int64_t kv_heads, int64_t intermediate,
                      int64_t vocab, gs_error *e);

#endif
