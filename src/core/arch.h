/* gpusizer: a model's architecture as the sizing core sees it, with an exact
 * per-module parameter tally. Pure: no cJSON, curl or FILE* here. */
#ifndef GS_ARCH_H
#define GS_ARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

#define GS_MAX_LIN 16        /* linear modules per decoder layer kind */
#define GS_MAX_LAYER_KINDS 8 /* distinct layer kinds: e.g. dense + MoE (DeepSeek); sliding + full
                                attention (gpt-oss, Gemma 3); Mamba-2 + attention, each with or
                                without experts (Granite 4.0 H, Nemotron-H) */

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

/* A layer's token mixer (docs/engine.md, "Layer kinds", gives each one's
 * source). The attention kinds cache keys and values per token; the state
 * kinds keep a fixed state per sequence whatever the context. */
typedef enum gs_mixer {
	GS_MIX_FULL = 0, /* softmax attention over every token (NoPE layers too: nope) */
	GS_MIX_SLIDING,  /* attention over the last `window` tokens (Mistral, Gemma 2/3,
	                    gpt-oss): the cache holds at most the window */
	GS_MIX_CHUNKED,  /* attention within chunks of `window` tokens (Llama 4's
	                    attention_chunk_size): cached as a sliding layer */
	GS_MIX_MLA,      /* DeepSeek's multi-head latent attention: kv_dim is the
	                    compressed latent plus the rope key */
	GS_MIX_LINEAR,   /* Gated DeltaNet (Qwen3-Next): a recurrent state and a conv
	                    state per sequence */
	GS_MIX_MAMBA2,   /* Mamba-2 (Granite 4.0 H, Nemotron-H): an SSM state and a
	                    conv state per sequence */
	GS_MIX_NONE,     /* no token mixer: an MLP-only block (Nemotron-H's - and E) */
	GS_MIX_MAX
} gs_mixer;

/* A layer's feed-forward part. */
typedef enum gs_mlp_kind {
	GS_MLP_DENSE = 0, /* one MLP (gated or plain: gs_act) */
	GS_MLP_MOE,       /* routed experts (n_experts, top-k), a router, and any shared
	                     (always-on) expert among the linears */
	GS_MLP_NONE,      /* no MLP: a mixer-only block (Nemotron-H's M and *) */
	GS_MLP_MAX
} gs_mlp_kind;

/* The widths of a state mixer (GS_MIX_LINEAR, GS_MIX_MAMBA2), for its
 * activations and its state. */
typedef struct gs_state_shape {
	int64_t heads;      /* value heads (GDN) / SSM heads (Mamba-2) */
	int64_t k_heads;    /* GDN: key heads; Mamba-2: groups (B and C per group) */
	int64_t k_dim;      /* GDN: key head dim; Mamba-2: d_state */
	int64_t v_dim;      /* GDN: value head dim; Mamba-2: head dim */
	int64_t conv_dim;   /* channels of the depthwise causal conv */
	int64_t conv_kernel;
	int64_t proj_out;   /* the input projection's width (Mamba-2: 2I + 2gN + heads;
	                       GDN: in_proj_qkvz + in_proj_ba) */
	int64_t chunk;      /* the chunked scan's chunk length (Mamba-2 chunk_size; GDN 64) */
	int state_bytes;    /* bytes per recurrent-state element in the cache: 4 where the
	                       kernel keeps fp32 (fla's final state), 0 = the compute dtype */
} gs_state_shape;

/* A group of identical decoder layers: a model is the list of its layers,
 * each with its mixer and MLP kind; layers of the same kind (the same
 * modules, the same mixer and window) are one group. The order of the
 * layers within the model does not change the peak, except where layers
 * are split over GPUs in order (--sharding pipeline: layers_here). */
typedef struct gs_layer_kind {
	int64_t n_layers;
	int n_lin;
	gs_linear lin[GS_MAX_LIN];
	int64_t other_params; /* norms, q/k norms, conv weights, sinks etc. per layer */
	int64_t mlp_inner;    /* width of the MLP's hidden activation per token
	                         (dense: intermediate; MoE: top-k * moe_inter
	                         + shared inter) for activation sizing; 0: no MLP */
	int64_t n_experts;    /* 0 for dense layers */
	int64_t experts_per_tok;

	gs_mixer mixer;       /* GS_MIX_FULL unless a family says otherwise */
	gs_mlp_kind mlp;      /* GS_MLP_DENSE, or GS_MLP_MOE when n_experts > 0 */
	int64_t window;       /* GS_MIX_SLIDING / GS_MIX_CHUNKED: tokens attended (and cached) */
	bool sinks;           /* learned per-head attention sinks (gpt-oss): in other_params */
	bool nope;            /* no rotary on this layer (Llama 4's full layers, SmolLM3) */
	/* This kind's attention shape, where it differs from the arch's
	 * (Qwen3-Next's gated attention); 0: the arch's heads, kv_heads,
	 * head_dim and v_head_dim. */
	int64_t heads, kv_heads, head_dim;
	int64_t kv_dim;       /* elements cached per token by one layer (attention kinds);
	                         0 for the state kinds and GS_MIX_NONE */
	int norms;            /* residual-stream norms per layer; 0: the arch's rule */
	gs_state_shape st;    /* GS_MIX_LINEAR / GS_MIX_MAMBA2 only */
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
	GS_QUANT_FP8,       /* fp8 weights, one scale per row or tensor */
	GS_QUANT_FP8_BLOCK, /* fp8 e4m3 with an fp32 scale per weight_block_size block (DeepSeek) */
	GS_QUANT_MXFP4,     /* OCP MXFP4: E2M1 with a UE8 scale per 32 values (gpt-oss experts) */
	GS_QUANT_NVFP4,     /* NVFP4: E2M1, an FP8 scale per 16, an FP32 scale per tensor */
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
	bool interleaved;     /* some kind's layers are not contiguous in the model (gpt-oss's
	                         alternating windows, a hybrid's pattern): the kinds' order is
	                         not the layers' order */

	int64_t p_embed;       /* token embedding (vocab x hidden) */
	int64_t p_embed_other; /* position / token-type embeddings, embedding norms */
	int64_t p_head;        /* output head when untied (0 when tied), incl. bias */
	int64_t p_final;       /* final norm, pooler */
	int64_t p_vision;      /* vision tower and its projector (multimodal wrappers: loaded with
	                          the model; counted in params_total, reported apart) */
	char vision[32];       /* the vision tower's kind ("siglip", "pixtral", ...) or "" */

	gs_quant quant;
	int quant_bits;        /* 4, 8 (0 when none) */
	int64_t quant_group;   /* GPTQ/AWQ group size (128 typical; -1 = per column);
	                          fp8-block: the block's rows (weight_block_size[0]) */
	int64_t quant_group_in; /* fp8-block: the block's columns (weight_block_size[1]) */

	/* Filled by gs_arch_tally: */
	uint64_t params_total;  /* every parameter once (tied once) */
	uint64_t params_active; /* per token: routed experts counted top-k */
	uint64_t params_linear; /* in decoder-layer linear modules (quantisable) */
	uint64_t params_vision; /* p_vision (in params_total, not in params_active) */
} gs_arch;

/* Compute params_total/active/linear from the fields above. Returns
 * GS_EOVERFLOW (detail in e) if any product passes 2^62. */
gs_err gs_arch_tally(gs_arch *a, gs_error *e);

/* Parameters of one linear kind (all instances, with bias). */
uint64_t gs_linear_params(const gs_linear *l);

/* ---- per-layer accessors (the engine and the time model read layers
 * through these; each takes one layer of a kind) ---- */

const char *gs_mixer_name(gs_mixer m); /* "full", "sliding", "chunked", "mla", "linear",
                                          "mamba2", "none" */
const char *gs_mlp_kind_name(gs_mlp_kind m); /* "dense", "moe", "none" */

/* Whether a kind caches keys and values per token (full, sliding,
 * chunked, MLA). */
bool gs_kind_has_kv(const gs_layer_kind *k);

/* Tokens one layer's cache holds for one sequence at a context of ctx
 * tokens: every token for full and MLA layers; min(ctx, window - 1) for
 * sliding and chunked ones under transformers' DynamicCache
 * (DynamicSlidingWindowLayer keeps the last sliding_window - 1 tokens;
 * chunked layers use the same class), min(ctx, window) where the cache is
 * preallocated (static: StaticSlidingWindowLayer keeps the window); 0 for
 * the state kinds. */
double gs_kind_kv_tokens(const gs_layer_kind *k, double ctx, bool is_static);

/* Cache elements of one layer for one sequence at ctx tokens
 * (kv_dim x gs_kind_kv_tokens). */
double gs_kind_kv_elements(const gs_layer_kind *k, double ctx, bool is_static);

/* Recurrent-state and conv-state elements of one layer for one sequence,
 * whatever the context (0 for the attention kinds). */
double gs_kind_state_elements(const gs_layer_kind *k);
double gs_kind_conv_elements(const gs_layer_kind *k);

/* Bytes of one layer's recurrent and conv state for one sequence: the
 * recurrent state at st.state_bytes (or cb), the conv state at cb. */
double gs_kind_state_bytes(const gs_layer_kind *k, double cb);

/* Parameters of one layer of the kind (linears with biases and the rest). */
uint64_t gs_kind_params(const gs_layer_kind *k);

/* Multiply-add FLOPs x 2 of the token mixer's core (not its linears) for
 * one query token at a context of ctx tokens: attention kinds 2 x heads x
 * (head_dim + v_head_dim) x the tokens attended (the window caps sliding
 * and chunked layers); the state kinds a constant per token from their
 * state (the recurrent update of docs/engine.md, "Layer kinds"). */
double gs_kind_mixer_flops_token(const gs_arch *a, const gs_layer_kind *k, double ctx);

/* Query heads that share one cached KV head in a layer of kind k: the
 * GQA group (heads / kv_heads); 1 for multi-head attention, MLA (its
 * latent is one cache for every head) and the kinds that cache no keys. */
double gs_kind_q_per_kv(const gs_arch *a, const gs_layer_kind *k);

/* Cache elements of all layers for one sequence at ctx tokens. */
double gs_arch_kv_elements(const gs_arch *a, double ctx, bool is_static);

/* Bytes of every layer's recurrent and conv state for one sequence
 * (constant in the context): recurrent states at their kernel's dtype
 * (gs_state_shape.state_bytes) or cb, conv states at cb (the compute
 * dtype's bytes). */
double gs_arch_state_bytes(const gs_arch *a, double cb);

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
