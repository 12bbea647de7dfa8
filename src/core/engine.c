/* gpusizer: the memory engine. One training step (or one inference
 * forward) is simulated as a timeline of allocations and frees, per GPU;
 * the peak is the maximum over it, with what is live at that moment.
 * Pure: no I/O, no allocation. See docs/engine.md for the model and the
 * measurements each constant rests on. */
#include "engine.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "constants.h"

/* ------------------------------------------------------------------ */
/* The timeline: live bytes per component, and the peak snapshot.      */

enum { C_W, C_G, C_O, C_A, C_B, C_N };

typedef struct tl {
	double live[C_N];   /* torch-allocated bytes live now, by component */
	double paged;       /* paged optimizer states (device, not torch)   */
	double peak;        /* max over the timeline of sum(live)           */
	double at[C_N];     /* live[] at the peak                           */
	double paged_at;
	gs_phase phase;
	int step;
} tl;

static double sum(const double *v)
{
	return v[C_W] + v[C_G] + v[C_O] + v[C_A] + v[C_B];
}

/* Record a moment: live plus `extra` (transients by component). */
static void mark(tl *t, const double *extra, gs_phase ph, int step)
{
	double v[C_N];
	for (int c = 0; c < C_N; c++)
		v[c] = t->live[c] + (extra ? extra[c] : 0.0);
	double total = sum(v);
	/* Compare with the paged states too: "device" decides fits. */
	if (total + t->paged > t->peak + t->paged_at + 0.5) {
		t->peak = total;
		memcpy(t->at, v, sizeof v);
		t->paged_at = t->paged;
		t->phase = ph;
		t->step = step;
	}
}

/*
 * n identical layers, each: at its mark, live + trans; afterwards live
 * changes by delta. Live after j layers is live + j*delta, so the largest
 * mark is at j = 0 or j = n-1 (delta's sign decides): exact, in O(1).
 */
static void run_layers(tl *t, int64_t n, const double *delta, const double *trans, gs_phase ph, int step)
{
	double d = sum(delta);
	int64_t j = d > 0 ? n - 1 : 0;
	double extra[C_N];

	if (n <= 0)
		return;
	for (int c = 0; c < C_N; c++)
		extra[c] = (double)j * delta[c] + trans[c];
	mark(t, extra, ph, step);
	for (int c = 0; c < C_N; c++)
		t->live[c] += (double)n * delta[c];
}

/* ------------------------------------------------------------------ */
/* Bytes per element of the formats involved (a dtype's: gs_dtype_bytes). */

/* Bytes of all instances of a decoder-layer linear stored at precision p
 * (the precision table's layout: gs_prec_weight_bytes), its bias at the
 * compute dtype cb: a plain dtype stores both as they are; a format that
 * stores only the routed experts (MXFP4) keeps the other linears at cb.
 * A checkpoint whose quantization_config gives another fp8 block
 * (weight_block_size) has its scales counted per that block. */
static double linear_bytes(const gs_arch *a, gs_prec p, const gs_linear *l, double cb)
{
	const gs_prec_info *r = gs_prec_info_of(p);
	double w = (double)l->in * (double)l->out, bias = l->bias ? (double)l->out : 0, one;

	if (r->cls == GS_PC_PLAIN || r->cls == GS_PC_RECIPE)
		return (w + bias) * r->value_bytes * (double)l->count;
	if (r->experts_only && !l->expert)
		return (w + bias) * cb * (double)l->count;
	one = gs_prec_weight_bytes(p, l->in, l->out);
	if (p == GS_P_FP8_BLOCK && a->quant == GS_QUANT_FP8_BLOCK && a->quant_group > 0 && a->quant_group_in > 0)
		one = w + r->scale_bytes * ceil((double)l->out / (double)a->quant_group) *
		              ceil((double)l->in / (double)a->quant_group_in);
	return (one + bias * cb) * (double)l->count;
}

static bool bnb_quant(gs_prec p)
{
	return p == GS_P_INT8 || p == GS_P_NF4 || p == GS_P_NF4_DQ || p == GS_P_NF4_LITGPT || p == GS_P_NF4_DQ_LITGPT;
}

/* Lightning Fabric's BitsandbytesPrecision (litgpt --quantize bnb.nf4*):
 * it replaces every nn.Linear, the output head included, and quantizes
 * from fp16 (weight.to(dtype=torch.half)), so bitsandbytes dequantizes
 * each weight to fp16 and casts it to the bf16 compute dtype: two
 * transient copies, 4 bytes per parameter of the unit. */
static bool fabric_bnb(gs_prec p)
{
	return p == GS_P_NF4_LITGPT || p == GS_P_NF4_DQ_LITGPT;
}

/* bitsandbytes' 4-bit matmul (autograd/_functions.py MatMul4Bit) keeps
 * its input for backward: only before 0.43.2 (PR #1270 stopped it, the
 * input being unused with a frozen weight), and then as a ctx attribute
 * (ctx.tensors = (A, B)), not a saved tensor: the autograd engine frees
 * saved tensors as each node's backward runs, but an attribute lives as
 * long as the node, that is as long as the graph. The 8-bit matmul
 * (MatMul8bitLt) is sized as it was: its input saved. */
static bool bnb_keeps_input(const gs_settings *s, gs_prec p)
{
	return p == GS_P_INT8 || (bnb_quant(p) && s->bnb_saves == GS_BNB_INPUT);
}

static bool gptq(gs_prec p)
{
	return p == GS_P_GPTQ_INT4 || p == GS_P_GPTQ_INT8;
}

/* Bytes per parameter of the transient dequantized weight. Training
 * through GPTQ's torch path unpacks the codes by shifting the expanded
 * qweight (an int32 tensor a weight element) and casting it (int8 for
 * 4 bits, int16 for 8): both live at the cast; its fp16 result is the
 * saved copy (layer_cost.wcopy). */
static double deq_bytes(gs_prec p, double cb, bool training)
{
	if (training && gptq(p))
		return 4 + (p == GS_P_GPTQ_INT8 ? 2 : 1);
	return fabric_bnb(p) ? 2 + cb : cb;
}

/* ------------------------------------------------------------------ */
/* LoRA targets.                                                        */

/* PEFT matches a target against the end of a module's path. Our names are
 * the family's short paths ("q_proj", "mlp.c_proj"), so a target matches
 * when equal, when the name ends with ".target", or when the target ends
 * with ".name" (a longer path such as "ffn.lin1" for "lin1"). */
static bool ends_with_dotted(const char *s, size_t n, const char *suffix, size_t k)
{
	return n > k && s[n - k - 1] == '.' && strncmp(s + n - k, suffix, k) == 0;
}

static bool name_in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while (*p) {
		const char *q = strchr(p, ',');
		size_t len = q ? (size_t)(q - p) : strlen(p);
		if ((len == n && strncmp(p, name, n) == 0) || ends_with_dotted(name, n, p, len) ||
		    ends_with_dotted(p, len, name, n))
			return true;
		if (!q)
			break;
		p = q + 1;
	}
	return false;
}

static bool lora_targeted(const char *targets, const gs_linear *l)
{
	if (strcmp(targets, "qv") == 0)
		return l->role == GS_ROLE_Q || l->role == GS_ROLE_V || l->role == GS_ROLE_QKV;
	if (strcmp(targets, "attn") == 0)
		return l->role <= GS_ROLE_ATTN_OTHER;
	if (strcmp(targets, "all-linear") == 0)
		return l->role != GS_ROLE_ROUTER;
	return name_in_list(targets, l->name);
}

/* ------------------------------------------------------------------ */
/* The recipe: bytes per parameter and per activation, by precision.   */

typedef struct recipe {
	const char *text;
	double w;          /* weight bytes/param (non-linear params and, unless quantized, linears) */
	double g;          /* grad bytes per trainable param */
	double master;     /* fp32 master copy bytes per trainable param (counted in O) */
	double state;      /* bytes per optimizer state element */
	double cb;         /* compute (activation) bytes */
	double rb;         /* residual stream bytes */
	bool amp;          /* autocast over fp32 weights: bf16 weight copies, casts per linear */
	double fp8_copy;   /* fp8 weight copies (bytes per linear param) */
} recipe;

static void make_recipe(const gs_settings *s, gs_prec p, recipe *r)
{
	memset(r, 0, sizeof *r);
	r->cb = 2;
	r->rb = 2;
	if (s->method == GS_FULL) {
		switch (p) {
		case GS_P_FP32:
			*r = (recipe){"fp32: fp32 weights, grads and optimizer states", 4, 4, 0, 4, 4, 4, false, 0};
			break;
		case GS_P_AMP_BF16: case GS_P_AMP_FP16:
			*r = (recipe){p == GS_P_AMP_BF16
			                  ? "amp-bf16: fp32 weights, bf16 autocast (bf16 weight copies live until backward), fp32 grads and states"
			                  : "amp-fp16: fp32 weights, fp16 autocast (fp16 weight copies live until backward), fp32 grads and states",
			              4, 4, 0, 4, 2, 4, true, 0};
			break;
		case GS_P_MIXED_BF16: case GS_P_MIXED_FP16:
			*r = (recipe){"mixed: 16-bit weights and grads, fp32 master copy and fp32 states (ZeRO paper: 2+2+12 bytes/param)",
			              2, 2, 4, 4, 2, 2, false, 0};
			break;
		case GS_P_FP8_MIXED:
			*r = (recipe){"fp8-mixed: bf16 weights + fp8 copies of linear weights, fp32 main grads, fp32 master and states (Transformer Engine/Megatron)",
			              2, 4, 4, 4, 2, 2, false, 1};
			break;
		default: /* pure bf16 / fp16 */
			*r = (recipe){p == GS_P_BF16 ? "bf16: pure bf16 weights, grads and optimizer states (torchtune dtype bf16, litgpt bf16-true)"
			                             : "fp16: pure fp16 weights, grads and optimizer states",
			              2, 2, 0, 2, 2, 2, false, 0};
		}
		return;
	}
	if (p == GS_P_AMP_BF16 || p == GS_P_AMP_FP16) {
		/* fp32 base weights under autocast. Inference: autocast's cache
		 * keeps a 16-bit copy of every linear weight until the region ends.
		 * LoRA: frozen weights are not cached (only leaves that require
		 * grad are), each matmul casts one transiently. */
		*r = (recipe){s->method == GS_INFER
		                  ? "inference amp: fp32 weights, 16-bit autocast copies of the linear weights cached for the forward"
		                  : "lora amp: fp32 frozen base, 16-bit autocast compute (each linear's weight cast is saved for backward), adapters at --adapter-dtype",
		              4, gs_dtype_bytes(s->adapter_dtype), 0, gs_dtype_bytes(s->adapter_dtype), 2, 4, true, 0};
		return;
	}
	/* LoRA / QLoRA / inference: base storage; compute in 16 bits unless fp32. */
	r->w = p == GS_P_FP32 ? 4 : 2; /* non-linear params (embeddings, norms, head) */
	r->cb = r->rb = p == GS_P_FP32 ? 4 : 2;
	r->g = r->state = gs_dtype_bytes(s->adapter_dtype);
	if (s->method == GS_INFER)
		r->text = fabric_bnb(p) ? "inference: linear weights and the head quantized (Lightning Fabric), the rest and compute in bf16"
		          : gs_prec_info_of(p)->cls == GS_PC_FP4 && gs_prec_info_of(p)->experts_only
		                ? "inference: routed experts in the checkpoint's 4-bit block format (scales included), the rest and compute in bf16"
		          : gs_prec_quantized(p) || gs_prec_info_of(p)->cls == GS_PC_FP8 || gs_prec_info_of(p)->cls == GS_PC_FP4
		                ? "inference: quantized linear weights, the rest and compute in bf16"
		                                        : "inference: weights and compute at the storage dtype";
	else if (s->method == GS_QLORA && fabric_bnb(p))
		r->text = s->adapter_dtype == GS_DT_FP32
		              ? "qlora: frozen linear weights and the head quantized (Lightning Fabric), bf16 rest and compute, fp32 adapters with their grads and states"
		              : "qlora: frozen linear weights and the head quantized (Lightning Fabric), bf16 rest and compute, bf16 adapters (litgpt) with their grads and states";
	else if (s->method == GS_QLORA)
		r->text = s->adapter_dtype == GS_DT_FP32
		              ? "qlora: quantized frozen linear weights, bf16 rest and compute, fp32 adapters (PEFT default) with their grads and states"
		              : "qlora: quantized frozen linear weights, bf16 rest and compute, bf16 adapters with their grads and states";
	else
		r->text = s->adapter_dtype == GS_DT_FP32
		              ? "lora: frozen base at its dtype, fp32 adapters (PEFT default) with their grads and states"
		              : "lora: frozen base at its dtype, bf16 adapters (litgpt) with their grads and states";
}

/* Optimizer: states per trainable element, and the step's temporaries. */
static double optim_states(gs_optim o, double state_bytes, bool *paged)
{
	*paged = o == GS_O_PAGED_ADAMW_8BIT || o == GS_O_PAGED_ADAMW_32BIT;
	switch (o) {
	case GS_O_ADAMW: case GS_O_ADAMW_FUSED: return 2 * state_bytes;
	case GS_O_ADAMW_8BIT: case GS_O_PAGED_ADAMW_8BIT: return 2 * (1 + 4.0 / GS_BNB_BLOCK);
	case GS_O_PAGED_ADAMW_32BIT: return 8; /* bnb 32-bit states are fp32 whatever the param dtype */
	case GS_O_SGD: return 0;
	case GS_O_SGD_MOMENTUM: case GS_O_LION: return state_bytes;
	case GS_O_ADAFACTOR: return 0; /* factored: computed from shapes */
	default: return 0;
	}
}

/* ------------------------------------------------------------------ */
/* Per-layer activations.                                               */

typedef struct layer_cost {
	double saved;      /* bytes saved for backward (no checkpointing) */
	double ckpt;       /* bytes kept per layer under checkpointing */
	double fwd_tmp;    /* forward temporaries on top of saved */
	double bwd_tmp;    /* backward temporaries (activation grads) */
	double wcopy;      /* 16-bit weight copies saved until the layer's backward:
	                      autocast's casts, GPTQ's dequantized weights */
	double deq;        /* quantized: one dequantized weight at a time */
	double wgrad;      /* gradient bytes of this layer's trainable params */
	double lin_params; /* linear params of this layer (all instances) */
	double params;     /* all params of this layer */
	double max_unit;   /* largest single weight (elements) */
	double ctxin;      /* of saved: 4-bit matmul inputs kept on ctx (bnb_keeps_input),
	                      freed with the graph, not by the layer's backward */
	double ada;        /* adafactor state elements for this layer */
	double trainable;  /* trainable params of this layer */
	double exp_trainable; /* of trainable: the routed experts' (--ep splits them) */
	double fwd_act;    /* inference: live activations while computing it */
} layer_cost;

typedef struct ctx {
	const gs_arch *a;
	const gs_settings *s;
	gs_prec p;
	recipe r;
	bool full, lora, infer;
	double T;      /* tokens per micro-batch per GPU */
	double tp;     /* tensor-parallel degree */
	double ab;     /* adapter bytes */
	double lb;     /* the loss buffers' bytes per element (loss_bytes) */
	bool kcast;    /* PEFT's k-bit preparation casts the unquantized parameters to fp32 */
	double eb;     /* bytes of the linears' elementwise outputs (gate, up) */
} ctx;

/* The loss buffers' bytes per element (--loss-dtype): fp32 where the loop
 * autocasts or the head up-casts; the compute dtype where a full fine-tune
 * runs no autocast (pure 16-bit and mixed recipes: DeepSpeed's engine and
 * pure 16-bit loops cast the model) and the family's head hands 16-bit
 * logits to cross-entropy (torch's log_softmax and nll_loss then keep and
 * return their input's dtype). */
static double loss_bytes(const gs_settings *s, const gs_arch *a, gs_prec p, const recipe *r)
{
	switch (s->loss_dtype) {
	case GS_LD_FP32: return 4;
	case GS_LD_COMPUTE: return r->cb;
	default:
		return s->method == GS_FULL && !r->amp && p != GS_P_FP8_MIXED && r->cb < 4 && a->loss_16bit ? r->cb : 4;
	}
}

/* Norms and gated activations run as kernels that save only their inputs
 * (and a norm's statistics): torch.compile's inductor, or the hand-written
 * kernels Liger (LigerRMSNorm: X, W, RSTD; LigerSiLUMulFunction: a, b;
 * src/liger_kernel/ops/rms_norm.py and swiglu.py, v0.8.2) and Unsloth
 * (fast_rms_layernorm, swiglu_fg_kernel) swap in. */
static bool fused_saves(const gs_settings *s)
{
	return s->compile || s->fused_kernels;
}

/* Bytes a norm over a width w saves per token. RMSNorm up-casts and saves
 * an fp32 copy; LayerNorm saves its input and, per normalised vector, an
 * fp32 mean and 1/std. A trainable norm weight also saves the normalised
 * value (fp32 under AMP). Compiled, one fused kernel saves only its input
 * and the statistics of each of the `rows` normalised vectors per token;
 * the normalised value is recomputed. */
static double norm_saved(const ctx *c, bool rms, double w, double rows)
{
	double per = rms ? 4 * w : c->r.rb * w + 8 * rows;

	if (fused_saves(c->s))
		return c->r.rb * w + (rms ? 4 : 8) * rows;
	if (c->full)
		per += (rms ? c->r.cb : c->r.rb) * w;
	if (c->full && c->r.amp)
		per += 4 * w - c->r.cb * w; /* AMP: the normalised fp32 value */
	return per;
}

/* One layer's widths on one GPU (tensor-parallel shares) and the step's
 * token counts, as the activation stages below use them. */
typedef struct layer_dims {
	double h, T, tp;        /* hidden width, tokens per micro-batch, TP degree */
	double cb, rb;          /* compute and residual bytes */
	double nh, nkv, hd;     /* attention heads, key/value heads, head width */
	double q_dim, kv_dim;   /* query and key widths on this GPU */
	double vhd, v_dim;      /* value head width, value width on this GPU */
	double o_in;            /* the input width of the mixer's output projection, saved for
	                           its weight gradient (0: a fused kernel's, Mamba-2) */
	double seqs, sq;        /* sequences per micro-batch, their length */
	double inner;           /* the MLP's inner width on this GPU */
	gs_mixer mixer;
} layer_dims;

/* The widths of layer kind k under c's settings: the kind's own attention
 * shape where it has one (gs_layer_kind.heads...), else the arch's. */
static void layer_dims_of(const ctx *c, const gs_layer_kind *k, layer_dims *d)
{
	const gs_arch *a = c->a;

	d->h = (double)a->hidden;
	d->T = c->T;
	d->tp = c->tp;
	d->cb = c->r.cb;
	d->rb = c->r.rb;
	d->mixer = k->mixer;
	d->nh = (double)(k->heads ? k->heads : a->heads);
	d->nkv = (double)(k->kv_heads ? k->kv_heads : a->kv_heads);
	d->hd = (double)(k->head_dim ? k->head_dim : a->head_dim);
	d->q_dim = d->nh * d->hd / d->tp;
	d->kv_dim = d->nkv * d->hd / d->tp;
	d->vhd = k->head_dim ? d->hd : (double)(a->v_head_dim ? a->v_head_dim : a->head_dim);
	d->v_dim = d->nh * d->vhd / d->tp;
	d->o_in = d->v_dim;
	if (k->mixer == GS_MIX_LINEAR)
		d->o_in = (double)k->st.heads * (double)k->st.v_dim / d->tp;
	else if (k->mixer == GS_MIX_MAMBA2)
		d->o_in = 0; /* out_proj runs inside mamba_split_conv1d_scan_combined */
	else if (k->mixer == GS_MIX_NONE)
		d->o_in = 0;
	d->seqs = (double)c->s->batch;
	d->sq = (double)c->s->seq;
	d->inner = (double)k->mlp_inner / d->tp;
}

/* ---- the state mixers (Gated DeltaNet, Mamba-2) ---- */

/* One state mixer's widths on this GPU (heads split by TP). */
typedef struct state_dims {
	double nv, nk, dk, dv, conv, proj, chunk;
	double inner;  /* value width: GDN heads x dv, Mamba-2 heads x head dim */
	double key;    /* GDN key width; Mamba-2 groups x d_state (B, and C again) */
	double state;  /* recurrent-state elements per sequence */
} state_dims;

static void state_dims_of(const gs_layer_kind *k, double tp, state_dims *s)
{
	const gs_state_shape *st = &k->st;

	s->nv = (double)st->heads / tp;
	s->nk = (double)st->k_heads / tp;
	s->dk = (double)st->k_dim;
	s->dv = (double)st->v_dim;
	s->conv = (double)st->conv_dim / tp;
	s->proj = (double)st->proj_out / tp;
	s->chunk = (double)(st->chunk > 0 ? st->chunk : 64);
	s->inner = s->nv * s->dv;
	s->key = s->nk * s->dk;
	s->state = gs_kind_state_elements(k) / tp;
}

/* The chunked scan's working set for `seqs` sequences of sq tokens
 * (transient, never saved): Mamba-2's per-chunk states, fp32 from
 * _chunk_state_fwd and their _state_passing_fwd copy at the compute dtype,
 * and the fp32 C.B products per chunk (mamba_ssm/ops/triton/
 * ssd_combined.py, _mamba_chunk_scan_combined_fwd); Gated DeltaNet's
 * per-chunk states h at the compute dtype and the w, u representation
 * (fla/ops/common/chunk_delta_h.py, chunk_gated_delta_rule_fwd_h:
 * k.new_empty(B, NT, H, K, V)). */
static double scan_work(const layer_dims *d, const state_dims *s)
{
	double chunks = ceil(d->sq / s->chunk) * d->seqs;

	if (d->mixer == GS_MIX_MAMBA2)
		return chunks * s->state * (4 + d->cb) + 4 * d->T * s->chunk * s->nk;
	return chunks * s->state * d->cb + d->T * s->nv * (s->dk + s->dv) * d->cb;
}

/* Bytes per token a state mixer saves for backward, beyond its
 * projections' inputs (saved_linear_inputs). Mamba-2 through
 * mamba_split_conv1d_scan_combined (the training path of
 * transformers' Mamba-2 mixers; MambaSplitConv1dScanCombinedFn saves the
 * in_proj output zxbcdt, the scan output out_x and the gated norm's fp32
 * rstd per group; the conv and out_proj are recomputed). Gated DeltaNet
 * through causal_conv1d_fn (its input) and fla's chunk_gated_delta_rule
 * (ChunkGatedDeltaRuleFunction saves the l2-normalised q and k with their
 * fp32 rstd, v, the fp32 gate cumsum g, beta and the intra-chunk A at the
 * compute dtype, 64 per token and head), the gate's fp32 softplus
 * inputs, and the gated norm's input, gate and rstd
 * (FusedRMSNormGated). */
static double saved_state_mixer(const layer_dims *d, const state_dims *s)
{
	double cb = d->cb;

	if (d->mixer == GS_MIX_MAMBA2)
		return (s->proj + s->inner) * cb + 4 * s->nk;
	return (s->conv + 2 * s->key + s->inner + 2 * s->inner + 64 * s->nv + s->nv) * cb +
	       4 * (2 * s->nk + s->nv) + 4 * 3 * s->nv + 4 * s->nv;
}

/* Inference: a state mixer's widest moment over a prompt (no autograd):
 * the projections, the conv output, the kernel's normalised copies and
 * its output, with the scan's working set. */
static double infer_state_mixer(const layer_dims *d, const state_dims *s)
{
	double widths = d->mixer == GS_MIX_MAMBA2 ? s->proj + s->conv + 2 * s->inner
	                                          : s->proj + s->conv + 2 * s->key + 2 * s->inner;
	return widths * d->cb * d->T + scan_work(d, s);
}

/* Bytes per token one adapted module saves for its input: the cast (or
 * dropped-out) copy, at the adapter's dtype, and the dropout mask. */
static double lora_input_copies(const ctx *c, double in)
{
	double copies = 0;

	if (c->ab != c->r.cb || c->s->lora_dropout > 0)
		copies = c->ab * in;
	if (c->s->lora_dropout > 0)
		copies += 1.0 * in; /* dropout mask */
	return copies;
}

/* How many of the query, key and value slices (and of what width on this
 * GPU) an adapter on an attention-input linear trains: a fused QKV
 * module named in the targets trains all three; "qv" trains the query
 * and value slices (litgpt's enable_lora). Returns the slices. */
static int qkv_slices(const ctx *c, const gs_linear *l, double *width)
{
	const gs_arch *a = c->a;

	if (l->role == GS_ROLE_QKV && strcmp(c->s->lora_targets, "qv") == 0) {
		*width = (double)((a->heads + a->kv_heads) * a->head_dim) / c->tp;
		return 2;
	}
	*width = (double)l->out / c->tp;
	return l->role == GS_ROLE_QKV ? 3 : 1;
}

/* One layer's parameters, what of them trains (and adafactor's state
 * elements), and for LoRA the bytes per token its adapters save: the
 * input copies they cast or drop out (*lora_in) and their A outputs and
 * B inputs (*lora_tok). */
static void cost_params(const ctx *c, const gs_layer_kind *k, layer_cost *o, double *lora_in, double *lora_tok)
{
	const gs_settings *s = c->s;
	double tp = c->tp;
	/* --fused-qkv: the query, key and value adapters as litgpt's
	 * LoRAQKVLinear runs them, one module on the fused linear */
	double fused_in = 0, fused_width = 0;
	int fused_slices = 0;

	for (int i = 0; i < k->n_lin; i++) {
		const gs_linear *l = &k->lin[i];
		double p = (double)gs_linear_params(l) / tp;
		double inst = (double)(l->in * l->out) / tp;
		o->lin_params += p;
		if (inst > o->max_unit)
			o->max_unit = inst;
		if (c->full) {
			o->trainable += p;
			o->exp_trainable += l->expert ? p : 0;
			o->ada += ((double)l->in + (double)l->out / tp) * (double)l->count;
		} else if (c->lora && lora_targeted(s->lora_targets, l)) {
			double ad = (double)s->lora_r * ((double)l->in + (double)l->out) * (double)l->count;
			o->trainable += ad;
			o->exp_trainable += l->expert ? ad : 0;
			o->ada += ad; /* small vectors: unfactored */
			if (s->fused_qkv && l->role <= GS_ROLE_QKV) {
				double w;
				fused_slices += qkv_slices(c, l, &w);
				fused_width += w;
				fused_in = (double)l->in;
				continue;
			}
			/* Each adapted module casts (and drops out) its own input copy
			 * for every token routed through it. */
			double routed = l->expert ? (double)l->active : 1.0;
			*lora_in += lora_input_copies(c, (double)l->in) * routed;
			*lora_tok += (double)s->lora_r * c->ab * routed * 2; /* A output, B input */
		}
	}
	if (fused_slices > 0) {
		/* litgpt's LoRAQKVLinear (lit_gpt/lora.py): one dropout over the
		 * shared input, lora_A's output for every trained slice (conv1d
		 * saves it), and, unless all three slices train, zero_pad's
		 * index_copy, which saves its source (the adapters' output, the
		 * trained slices' width) for the backward (derivatives.yaml:
		 * index_copy's source gradient is expand_as(source)). */
		*lora_in += lora_input_copies(c, fused_in);
		*lora_tok += (double)s->lora_r * c->ab * fused_slices;
		if (fused_slices < 3)
			*lora_tok += fused_width * c->ab;
	}
	o->params = o->lin_params + (double)k->other_params;
	if (c->full)
		o->trainable += (double)k->other_params;
}

/* Whether a layer kind's gate and up projections are one fused linear
 * (Phi-3's gate_up_proj, ChatGLM's dense_h_to_4h). */
static bool fused_gate_up(const gs_layer_kind *k)
{
	for (int i = 0; i < k->n_lin; i++)
		if (k->lin[i].role == GS_ROLE_GATE_UP)
			return true;
	return false;
}

/* SDPA's math backend (PyTorch >= 2.5, aten/native/transformers/
 * attention.cpp, _scaled_dot_product_attention_math): how many fp32
 * tensors at the query width it makes beside its fp32 scores. 16-bit
 * inputs are up-cast (query_acc, key_acc, value_acc), and the query and
 * the transposed key are scaled into further copies; a one-token decode
 * step's query is negligible (with_query false). */
static double math_fp32_copies(double cb, bool with_query)
{
	double upcast = cb < 4 ? 1 : 0;

	return 2 * upcast + 1 + (with_query ? upcast + 1 : 0);
}

/* Inference: what is live while one layer is computed without autograd
 * (the residual, q/k/v, attention output and the MLP's widest moment),
 * and a quantized layer's one dequantized weight. */
static void cost_infer(const ctx *c, const gs_layer_kind *k, const layer_dims *d, layer_cost *o)
{
	const gs_arch *a = c->a;
	double cb = d->cb, T = d->T, nh = d->nh, tp = d->tp, sq = d->sq;

	double att = (d->q_dim + 2 * d->kv_dim + d->v_dim) * cb * T;
	/* eager's widest moment per score: transformers' eager attention
	 * (softmax(scores, dtype=torch.float32).to(dtype)) holds the masked
	 * 16-bit scores, the fp32 probabilities and their 16-bit cast;
	 * softmax(scores.float()) holds the scores, their fp32 copy and the
	 * fp32 probabilities */
	if (c->s->attn == GS_ATTN_EAGER)
		att += (cb + 4 + cb) * nh / tp * sq * sq * d->seqs;
	else if (c->s->attn == GS_ATTN_EAGER_UPCAST)
		att += (cb + 4 + 4) * nh / tp * sq * sq * d->seqs;
	else if (c->s->attn == GS_ATTN_MATH_LEGACY)
		/* the math backend before PyTorch 2.5: 16-bit scores, then their
		 * 16-bit softmax */
		att += 2 * cb * nh / tp * sq * sq * d->seqs;
	else if (c->s->attn == GS_ATTN_MATH)
		/* SDPA's math backend: fp32 scores and their fp32 softmax, beside
		 * its fp32 copies (k and v at the query width: expanded first
		 * where heads are grouped) */
		att += 8 * nh / tp * sq * sq * d->seqs + math_fp32_copies(cb, true) * 4 * d->q_dim * T;
	/* the gated MLP's widest moment: act(gate) and its product with up
	 * beside up (3I), or beside the fused gate_up output both are chunks
	 * of (2I + I + I: Phi3MLP, ChatGLM's swiglu) */
	double mlp = (a->act == GS_ACT_GATED ? (fused_gate_up(k) ? 4 : 3) : 2) * d->inner * cb * T;
	if (d->mixer == GS_MIX_LINEAR || d->mixer == GS_MIX_MAMBA2) {
		state_dims sd;
		state_dims_of(k, tp, &sd);
		att = infer_state_mixer(d, &sd);
	} else if (d->mixer == GS_MIX_NONE) {
		att = 0;
	}
	o->fwd_act = 2 * d->rb * d->h * T + (att > mlp ? att : mlp);
	if (gs_prec_quantized(c->p))
		o->deq = o->max_unit * deq_bytes(c->p, cb, false);
}

/* Bytes per token the layer's norms save (norm_saved); q_norm/k_norm
 * (Qwen3, Gemma 3, OLMo 2) are RMSNorms over the query and key widths,
 * before rotary, with one statistic per head. Added to *tok. */
static void saved_norms(const ctx *c, const gs_layer_kind *k, const layer_dims *d, double *tok)
{
	const gs_arch *a = c->a;
	bool rms = a->norm == GS_NORM_RMS;
	double n_norms = k->norms > 0 ? k->norms : a->layer_norms > 0 ? a->layer_norms : a->parallel_attn ? 1 : 2;

	*tok += n_norms * norm_saved(c, rms, d->h, 1);
	if (a->qk_norm && gs_kind_has_kv(k))
		*tok += norm_saved(c, true, d->q_dim + d->kv_dim, (d->nh + d->nkv) / d->tp);
}

/* Bytes per token saved as linear inputs for backward, added to *tok.
 * Full fine-tuning saves them for the weight gradients: without AMP the
 * q/k/v (and gate/up) share one saved input; AMP casts a separate 16-bit
 * copy for each linear. LoRA saves its adapters' (cost_params) and,
 * through bitsandbytes' matmuls, the frozen linears' inputs; *ctx_tok
 * gets those a 4-bit matmul keeps on ctx (all of them, the one an
 * adapter shares too: the ctx reference keeps its storage). */
static void saved_linear_inputs(const ctx *c, const gs_layer_kind *k, const layer_dims *d, double lora_in,
                                double lora_tok, double *tok, double *ctx_tok)
{
	const gs_arch *a = c->a;
	double h = d->h, cb = d->cb, inner = d->inner;

	if (c->full) {
		int n_in_attn = 0, n_in_mlp = 0;
		for (int i = 0; i < k->n_lin; i++) {
			gs_role r = k->lin[i].role;
			if (r == GS_ROLE_Q || r == GS_ROLE_K || r == GS_ROLE_V || r == GS_ROLE_QKV)
				n_in_attn++;
			else if (r == GS_ROLE_GATE || r == GS_ROLE_UP || r == GS_ROLE_GATE_UP)
				n_in_mlp++;
		}
		if (k->n_experts > 0)
			n_in_mlp = 1; /* experts read gathered copies (saved_mlp) */
		double share_attn = c->r.amp ? n_in_attn : (n_in_attn ? 1 : 0);
		double share_mlp = c->r.amp ? n_in_mlp : (n_in_mlp ? 1 : 0);
		double lin_b = c->r.fp8_copy > 0 ? 1 : cb; /* fp8: inputs saved in fp8 */
		*tok += (share_attn + (a->parallel_attn ? 0 : share_mlp)) * h * lin_b;
		*tok += d->o_in * lin_b;         /* o_proj input (contiguous copy) */
		*tok += inner * lin_b;           /* down_proj input */
		return;
	}
	/* LoRA: frozen linears save nothing; a 16-bit adapter without
	 * dropout saves the shared normalised input once. */
	*tok += lora_in + lora_tok;
	bool shared_in = c->ab == cb && c->s->lora_dropout <= 0 && lora_tok > 0;
	if (shared_in)
		*tok += cb * h;
	/* bitsandbytes' matmuls that keep their input (bnb_keeps_input) keep
	 * it whenever it requires grad, though the weight is frozen: the
	 * attention input (unless counted above), o_proj's, the MLP's and
	 * down's. */
	if (!bnb_keeps_input(c->s, c->p))
		return;
	double kept = cb * ((d->mixer == GS_MIX_NONE ? 0 : h) + d->o_in + (a->parallel_attn || inner == 0 ? 0 : h) + inner);
	*tok += kept - (shared_in ? cb * h : 0);
	if (c->p != GS_P_INT8)
		*ctx_tok = kept;
}

/* What the attention core saves: bytes per token into *tok and, under
 * eager attention, bytes per (head x s^2) score into *sqr. */
static void saved_attention(const ctx *c, const layer_dims *d, double *tok, double *sqr)
{
	const gs_arch *a = c->a;
	const gs_settings *s = c->s;
	double cb = d->cb, q_dim = d->q_dim, kv_dim = d->kv_dim, v_dim = d->v_dim;
	/* flash: native GQA; math-legacy: the matmuls broadcast */
	bool expand = s->attn != GS_ATTN_FLASH && s->attn != GS_ATTN_MATH_LEGACY && kv_dim < q_dim;
	double kv_saved = expand ? q_dim : kv_dim;
	double vv = expand ? v_dim : kv_dim * d->vhd / d->hd;

	if (gs_attn_eager(s->attn)) {
		/* q, k for QK^T; fp32 softmax output and its 16-bit cast;
		 * v and the probabilities for PV; dropout mask and output. */
		*tok += (q_dim + kv_saved + vv) * cb + v_dim * cb;
		/* math-legacy (PyTorch < 2.5, aten/native/transformers/
		 * attention.cpp): the 16-bit softmax output, which its backward
		 * and the PV matmul share, is all it keeps per score; q and k
		 * are its scaled copies */
		double per_el = s->attn == GS_ATTN_MATH_LEGACY ? cb : 4 + cb;
		/* soft-capped scores (Gemma 2): tanh saves its 16-bit output.
		 * Flash applies the cap in-kernel; HF's sdpa path drops it. */
		if (a->attn_softcap > 0)
			per_el += cb;
		if (a->dropout > 0)
			per_el += 1 + cb;
		*sqr += per_el;
	} else {
		/* SDPA (flash / efficient kernels): q, k, v, output, logsumexp.
		 * sdpa: GQA keys/values are expanded to all heads first (HF's
		 * repeat_kv, litgpt, torchtune); flash: native GQA. */
		*tok += (q_dim + kv_saved + vv + v_dim) * cb + 4 * d->nh / d->tp;
	}
	/* --fused-qkv (litgpt's CausalSelfAttention): q, k and v are views
	 * of the one qkv output. Rotary makes q and k new tensors, but a
	 * value that is not expanded (every head its own: MHA, or a kernel
	 * with native GQA) reaches attention as a view, and the saved view
	 * keeps the whole fused output alive: its query and key parts too. */
	if (s->fused_qkv && a->rotary && !expand)
		*tok += (q_dim + kv_dim) * cb;
}

/* Bytes per token the MLP (its experts' gathered copies and router
 * probabilities too) and the residual dropout masks save, added to *tok. */
static void saved_mlp(const ctx *c, const gs_layer_kind *k, const layer_dims *d, double *tok)
{
	const gs_arch *a = c->a;
	double h = d->h, cb = d->cb, inner = d->inner;

	if (a->act == GS_ACT_GATED)
		/* gate (the activation's input), activation output, up; compiled
		 * or a fused kernel, act(gate)*up saves only gate and up */
		*tok += (fused_saves(c->s) ? 2 : 3) * inner * c->eb;
	else
		*tok += inner * c->eb * (strcmp(a->model_type, "gpt2") == 0 ? 4 : 1); /* gelu_new saves 4 tensors */
	if (k->n_experts > 0) {
		double kx = (double)k->experts_per_tok;
		*tok += 2 * kx * h * cb + 4 * (double)k->n_experts; /* gathered input, weighted output, router probs */
	}
	/* Residual dropout masks. */
	if (a->dropout > 0)
		*tok += 2 * h;
}

/* One layer's temporaries: forward: eager QK^T scores and their masked
 * copy; backward: the residual gradient twice plus the widest of the
 * MLP's and attention's activation gradients. */
static void layer_temporaries(const ctx *c, const gs_layer_kind *k, const layer_dims *d, layer_cost *o)
{
	double cb = d->cb, nh = d->nh, tp = d->tp, sq = d->sq, seqs = d->seqs, q_dim = d->q_dim;
	bool eager = gs_attn_eager(c->s->attn);

	/* the scores and their masked copy; up-cast, the masked scores and
	 * their fp32 copy (the softmax's input); math-legacy masks its
	 * 16-bit scores in place */
	bool legacy = c->s->attn == GS_ATTN_MATH_LEGACY;
	double fwd_el = c->s->attn == GS_ATTN_EAGER_UPCAST ? cb + 4 : legacy ? cb : 2 * cb;
	if (!gs_kind_has_kv(k))
		eager = false; /* no attention scores in this layer */
	o->fwd_tmp = eager ? fwd_el * (nh / tp) * sq * sq * seqs : 0;
	double mlp_b = 2 * d->inner * cb;
	double att_b = d->mixer == GS_MIX_NONE ? 0 : (3 * q_dim * cb + 4 * q_dim);
	if (d->mixer == GS_MIX_LINEAR || d->mixer == GS_MIX_MAMBA2) {
		/* the mixer's input gradients (its projection's width) beside the
		 * recomputed conv output, and the scan's working set again */
		state_dims sd;
		state_dims_of(k, tp, &sd);
		att_b = (sd.proj + sd.conv) * cb;
		o->fwd_tmp = scan_work(d, &sd);
		eager = false;
	}
	/* the probability and score gradients: fp32 and a 16-bit cast under
	 * eager, 16-bit under math-legacy */
	double eager_b = eager ? (legacy ? 3 * cb : 4 + 4 + cb) * (nh / tp) * sq * sq * seqs : 0;
	o->bwd_tmp = 2 * d->rb * d->h * d->T + (mlp_b > att_b ? mlp_b : att_b) * d->T + eager_b;
}

/* Everything one layer of kind k costs: parameters, what trains, what it
 * saves for backward (or, inference, keeps live), its temporaries. */
static void cost_layer(const ctx *c, const gs_layer_kind *k, layer_cost *o)
{
	const gs_arch *a = c->a;
	layer_dims d;
	double tok = 0, sqr = 0; /* saved per token, per (head * s^2) */
	double lora_in = 0, lora_tok = 0, ctx_tok = 0;

	layer_dims_of(c, k, &d);
	memset(o, 0, sizeof *o);
	cost_params(c, k, o, &lora_in, &lora_tok);
	if (c->infer) {
		cost_infer(c, k, &d, o);
		return;
	}
	saved_norms(c, k, &d, &tok);
	saved_linear_inputs(c, k, &d, lora_in, lora_tok, &tok, &ctx_tok);
	/* Autocast over fp32 weights: every linear's 16-bit weight cast is
	 * saved for the input gradient (frozen or not) until its backward. */
	o->wcopy = c->r.amp ? 2 * o->lin_params : 0;
	/* GPTQ (auto-gptq's qlinear_cuda_old torch path, which trainable
	 * layers and inputs of 128 rows or more take): each linear dequantizes
	 * its weight to fp16 and matmuls the input with it, so autograd saves
	 * that fp16 weight for the input's gradient until the layer's
	 * backward (the recomputed layer's under checkpointing). */
	if (gptq(c->p))
		o->wcopy = 2 * o->lin_params;
	if (d.mixer == GS_MIX_LINEAR || d.mixer == GS_MIX_MAMBA2) {
		state_dims sd;
		state_dims_of(k, d.tp, &sd);
		tok += saved_state_mixer(&d, &sd);
	} else if (d.mixer != GS_MIX_NONE) {
		saved_attention(c, &d, &tok, &sqr);
	}
	if (k->mlp_inner > 0 || k->n_experts > 0)
		saved_mlp(c, k, &d, &tok);
	else if (a->dropout > 0)
		tok += 2 * d.h; /* residual dropout masks (saved_mlp's) */
	o->saved = tok * d.T + sqr * (d.nh / d.tp) * d.sq * d.sq * d.seqs;
	o->ckpt = d.rb * d.h * d.T;
	/* kept on ctx past the layer's backward: not under checkpointing
	 * (the recomputed layer's graph goes after its backward) nor, here,
	 * under activation offload */
	if (!c->s->grad_ckpt && c->s->offload != GS_OFF_ACTIVATIONS)
		o->ctxin = ctx_tok * d.T;
	layer_temporaries(c, k, &d, o);
	if (gs_prec_quantized(c->p))
		o->deq = o->max_unit * deq_bytes(c->p, d.cb, true); /* one dequantised weight at a time */
	o->wgrad = o->trainable * c->r.g;
}

/* ------------------------------------------------------------------ */

static gs_err too_big(gs_error *e, const gs_arch *a)
{
	return gs_fail(e, GS_EOVERFLOW, "%s: the estimate passes 2^62 bytes; check the model shape and settings",
	               a->source[0] ? a->source : "model");
}

/* Bytes as an integer, saturating: negative is 0; NaN, infinity and
 * anything past 2^63 are UINT64_MAX (llround is undefined there), which the
 * plausibility bound in gs_estimate_run then refuses. */
static uint64_t u64(double x)
{
	if (x <= 0)
		return 0;
	if (!(x < 9.2e18))
		return UINT64_MAX;
	return (uint64_t)llround(x);
}

/* The bound on what one GPU (or the host) is predicted to hold:
 * GS_ESTIMATE_MAX_BYTES; past it the estimate is refused, not printed. */
static gs_err implausible(const gs_arch *a, const gs_settings *s, const gs_estimate *x, gs_error *e)
{
	static const char *const what[] = { "device", "allocated", "host" };
	const uint64_t v[] = { x->device, x->allocated, x->host };
	char amount[64];

	for (int i = 0; i < 3; i++) {
		if ((double)v[i] <= GS_ESTIMATE_MAX_BYTES)
			continue;
		if (v[i] == UINT64_MAX)
			snprintf(amount, sizeof amount, "past 2^63 bytes (overflow)");
		else
			snprintf(amount, sizeof amount, "%.3g bytes (%.0f PiB)", (double)v[i],
			         (double)v[i] / GS_ESTIMATE_MAX_BYTES);
		return gs_fail(e, GS_EOVERFLOW,
		               "%s: the %s estimate of %s memory per GPU is %s, above the plausibility "
		               "bound of 1 PiB (2^50 bytes): check the model shape and the settings "
		               "(--batch %lld, --seq %lld, --gpus %lld)",
		               a->source[0] ? a->source : "model", gs_formula_name(x->formula), what[i],
		               amount, (long long)s->batch, (long long)s->seq, (long long)s->gpus);
	}
	return GS_OK;
}

/* Allocator rounding and caching on top of the allocated peak. */
static double reserved_of(double allocated)
{
	return allocated * (1.0 + GS_RESERVED_FRAC) + (allocated > 0 ? GS_RESERVED_FIXED : 0);
}

static void finish(gs_estimate *out, const tl *t, double context, double host, double params_total,
                   const char *recipe_text)
{
	double alloc = t->peak;
	double reserved = reserved_of(alloc);
	double device = reserved + context + t->paged_at;

	out->W = u64(t->at[C_W]);
	out->G = u64(t->at[C_G]);
	out->O = u64(t->at[C_O] + t->paged_at);
	out->A = u64(t->at[C_A]);
	out->allocated = u64(alloc);
	out->reserved = u64(reserved);
	out->device = u64(device);
	/* B: everything else on the device at the peak: temporaries, the
	 * allocator's cache and rounding, the CUDA context. */
	uint64_t wgoa = out->W + out->G + out->O + out->A;
	out->B = out->device > wgoa ? out->device - wgoa : 0;
	out->host = u64(host);
	out->peak_phase = t->phase;
	out->peak_step = t->step;
	out->recipe = recipe_text;
	out->bpp_W = params_total > 0 ? t->at[C_W] / params_total : 0;
}

/* The stages a model's layers are split over, in order: under --sharding
 * pipeline its GPUs (HF's device_map and litgpt's generate_sequentially
 * place them so), under --pp (training) its stages; 1: none. */
static int64_t stages_of(const gs_settings *s)
{
	if (s->sharding == GS_SH_PIPELINE)
		return s->gpus > 1 ? s->gpus : 1;
	return s->method != GS_INFER && s->pp > 1 ? s->pp : 1;
}

/* Layers of kind k on the most loaded GPU: all of them, or split over
 * stages, ceil(n / stages). */
static double layers_here(const gs_layer_kind *k, const gs_settings *s)
{
	int64_t n = k->n_layers, g = stages_of(s);

	return g > 1 ? (double)((n + g - 1) / g) : (double)n;
}

/* Which pipeline stage a plan sizes (--pp): the whole model (no stages, or
 * the naive pipeline's bound), the first stage (the embedding; under 1F1B
 * the most micro-batches in flight) or the last (the head and the loss). */
typedef enum stage_kind { STAGE_ALL = 0, STAGE_FIRST, STAGE_LAST } stage_kind;

/* The detailed model's working state: the recipe, each layer kind's
 * cost, the whole model's sizes, then their shares on one GPU. The
 * stages below fill it in order; the timelines read it. */
typedef struct plan {
	ctx c;
	stage_kind stage;
	layer_cost lc[GS_MAX_LAYER_KINDS];
	double n_dp;            /* data-parallel degree */
	double emb, head;       /* embedding and output-head parameters */
	/* The decoder layers on this GPU (all of them unless pipelined). */
	double layers_gpu;      /* how many */
	double W;               /* weights at their storage (embeddings and head too, plan_embeddings) */
	double trainable;       /* trainable parameters on this GPU */
	double trainable_model; /* whole model, for the report (pipeline: trainable is this GPU's) */
	double lin_total;       /* linear parameters */
	double ada;             /* adafactor state elements */
	double max_unit;        /* largest single weight (elements) */
	double layer_store_max; /* one layer's weights at their storage (FSDP gathers these) */
	double exp_W, exp_T;    /* --ep: this rank's routed experts, their weights at storage (what
	                           ZeRO-3/FSDP shard) and trainable parameters */
	double qmeta;           /* weight bytes ZeRO-3/FSDP cannot shard: bitsandbytes' quantization state
	                           (module attributes), GPTQ/AWQ tensors (buffers, not parameters) */
	double emb_w;           /* embeddings, head and final norm (parameters on this GPU) */
	double emb_w_model;     /* the same, whole model (--pp: both ends) */
	double head_deq;        /* Lightning Fabric: the quantized head's dequantized copies */
	double qkv_dup;         /* --awq-fuse: the separate q, k and v linears at their storage,
	                           which AutoAWQ's fuser holds beside their fused copy */
	double ctx_held;        /* bitsandbytes inputs on ctx, all layers: freed with the graph
	                           (none under checkpointing: each recomputed layer's graph goes) */
	double extra_train;     /* LoRA --train-embeddings: trainable embedding and head copies */
	double extra_model;     /* the same, whole model (--pp: both ends) */
	/* Gradients and optimizer states, whole model (before sharding). */
	double grad_total, O_total, params_trainable;
	bool paged;             /* paged optimizer states (CUDA unified memory) */
	double opt_tmp;         /* the optimizer step's temporaries */
	/* Per GPU, after sharding and offload. */
	double W_gpu, G_gpu, O_gpu;
	double bucket;          /* gradient reduce buckets kept across steps (DDP) */
	double ipg;             /* DeepSpeed ZeRO-2: the contiguous-gradient buffer, live through backward */
	double zbuf;            /* DeepSpeed ZeRO-3: the contiguous-gradient bucket, live from the start */
	double flat_tmp;        /* DeepSpeed ZeRO-1: a bucket flattened for its reduce */
	double gather;          /* ZeRO-3/FSDP: gathered units */
	double host;            /* bytes on the host */
	double ckbuf;           /* --ckpt-offload: the GPU buffers checkpoints come back through */
	double ck_last;         /* --ckpt-offload: the last layer's checkpoint, kept on the GPU */
	double grad_frac;       /* the share of each gradient this GPU keeps */
} plan;

/* The recipe and the run's shape: method, tokens per GPU, parallel degrees. */
static void plan_init(plan *P, const gs_arch *a, const gs_settings *s, stage_kind stage)
{
	ctx *c = &P->c;

	memset(P, 0, sizeof *P);
	P->stage = stage;
	c->a = a;
	c->s = s;
	c->p = gs_settings_precision(s);
	make_recipe(s, c->p, &c->r);
	c->full = s->method == GS_FULL;
	c->lora = s->method == GS_LORA || s->method == GS_QLORA;
	c->infer = s->method == GS_INFER;
	c->ab = gs_dtype_bytes(s->adapter_dtype);
	/* DeepSpeed (engine.py) casts the whole module, adapters included,
	 * to the 16-bit dtype, and its stage 1/2 optimizer keeps an fp32
	 * master partition of the trainable parameters (requires_grad only)
	 * with fp32 Adam states: --adapter-dtype gives way. */
	if (c->lora && c->r.cb < 4 && (s->sharding == GS_SH_ZERO1 || s->sharding == GS_SH_ZERO2)) {
		c->ab = c->r.g = c->r.cb;
		c->r.state = c->r.master = 4;
		c->r.text = "lora under DeepSpeed ZeRO-1/2: the module cast to 16 bits, adapters too; an fp32 master "
		            "partition of the adapters with fp32 states";
	}
	c->T = (double)s->batch * (double)s->seq;
	c->tp = (double)s->tp;
	c->lb = loss_bytes(s, a, c->p, &c->r);
	/* PEFT's k-bit preparation: the embeddings' output is fp32, so is
	 * the residual stream (and each checkpointed layer input); a
	 * bitsandbytes linear returns its input's dtype (Linear4bit:
	 * out.to(inp_dtype)), so gate and up come out fp32 too. */
	/* (gs_settings_kbit_prep: peft/utils/other.py casts every fp16/bf16
	 * parameter unless the model is GPTQ-quantized; auto is off when
	 * zero3/fsdp/fsdp2 shard the weights, as TRL's SFTTrainer skips it for
	 * sharded QLoRA, under zero1/zero2, whose engine casts the module back
	 * to 16 bits, and for torchao's NF4 and Lightning Fabric's plugin,
	 * whose stacks never call it) */
	c->kcast = gs_settings_kbit_prep(s);
	if (c->kcast)
		c->r.rb = 4;
	c->eb = c->kcast && bnb_quant(c->p) ? 4 : c->r.cb;
	P->n_dp = s->sharding == GS_SH_PIPELINE ? 1 : (double)s->gpus / c->tp / (double)stages_of(s);
	P->emb = (double)a->p_embed;
	P->head = (double)a->p_head;
}

/* Each layer kind's cost, and the decoder layers' weights at their
 * storage, trainable parameters and what sharding cannot split. */
static void plan_layers(plan *P)
{
	const ctx *c = &P->c;
	const gs_arch *a = c->a;
	double tp = c->tp;

	for (int i = 0; i < a->n_kinds; i++) {
		const gs_layer_kind *k = &a->kind[i];
		layer_cost *lc = &P->lc[i];
		double nl = layers_here(k, c->s);
		cost_layer(c, k, lc);
		P->layers_gpu += nl;
		P->trainable_model += (double)k->n_layers * lc->trainable;
		P->trainable += nl * lc->trainable;
		P->lin_total += nl * lc->lin_params;
		P->ada += nl * lc->ada;
		P->ctx_held += nl * lc->ctxin;
		if (lc->max_unit > P->max_unit)
			P->max_unit = lc->max_unit;
		/* Weights of the layers at their storage. */
		double lw = 0, local = 0;
		for (int j = 0; j < k->n_lin; j++) {
			const gs_linear *l = &k->lin[j];
			double n_el = (double)gs_linear_params(l) / tp;
			double bytes = c->full || c->r.amp ? c->r.w * n_el : linear_bytes(a, c->p, l, c->r.cb) / tp;
			lw += bytes;
			if (c->s->awq_fuse && (l->role == GS_ROLE_Q || l->role == GS_ROLE_K || l->role == GS_ROLE_V))
				P->qkv_dup += nl * bytes;
			/* what ZeRO-3/FSDP cannot shard of a quantized base */
			double meta = 0;
			if (!c->full && !c->r.amp) {
				if (bnb_quant(c->p)) /* beyond the packed 4- or 8-bit codes */
					meta = bytes - gs_prec_info_of(c->p)->value_bytes * n_el;
				else if (gptq(c->p) || c->p == GS_P_AWQ_INT4)
					meta = bytes; /* qweight, qzeros, scales, g_idx: registered buffers */
			}
			local += meta;
			if (l->expert)
				P->exp_W += nl * (bytes - meta);
		}
		/* --ep: the arch holds a rank's experts; the model's count has
		 * the other ranks' too */
		P->exp_T += nl * lc->exp_trainable;
		P->trainable_model += (double)k->n_layers * lc->exp_trainable * (double)(c->s->ep > 1 ? c->s->ep - 1 : 0);
		lw += (c->kcast ? 4 : c->r.w) * (double)k->other_params + c->r.fp8_copy * lc->lin_params;
		P->W += nl * lw;
		P->qmeta += nl * local;
		if (lw - local > P->layer_store_max) /* what a gather moves */
			P->layer_store_max = lw - local;
	}
}

/* A quantity at P's stage: the first's, the last's, or the whole model's. */
static double by_stage(const plan *P, double first, double last, double whole)
{
	return P->stage == STAGE_FIRST ? first : P->stage == STAGE_LAST ? last : whole;
}

/* Embeddings (vocab-parallel under TP), head and final norm: their
 * weights at the compute dtype even when the linears are quantized, what
 * of them trains, and Lightning Fabric's quantized head. */
static void plan_embeddings(plan *P)
{
	const ctx *c = &P->c;
	const gs_arch *a = c->a;
	double tp = c->tp, emb = P->emb, head = P->head;
	double emb_other = (double)a->p_embed_other, fin = (double)a->p_final;
	/* a multimodal wrapper's vision tower and projector: loaded with the
	 * model, whole on every GPU, at the compute dtype (trained in a full
	 * fine-tune, frozen under LoRA) */
	double vis = (double)a->p_vision;
	/* --pp: the first stage holds the embedding (and a vision tower), the
	 * last the head and the final norm; a tied head is a copy of the
	 * embedding there (Megatron-Core's shared_embedding_or_output_weight,
	 * its gradient all-reduced with the first stage's) */
	double first = emb / tp + emb_other + vis, last = (head > 0 ? head : emb) / tp + fin;
	double ada_one = (double)a->vocab / tp + (double)a->hidden;

	P->emb_w_model = (emb + head) / tp + emb_other + fin + vis;
	P->emb_w = by_stage(P, first, last, P->emb_w_model);
	P->W += (c->kcast ? 4 : c->r.w) * P->emb_w; /* k-bit preparation: fp32 */
	/* Lightning Fabric's plugin quantizes an untied head like the other
	 * linears; it dequantizes it (fp16, then cast) at its forward and
	 * backward, and bitsandbytes saves the head's input. */
	if (fabric_bnb(c->p) && head > 0 && P->stage != STAGE_FIRST) {
		P->W -= (c->r.w - gs_prec_weight_bytes(c->p, a->hidden, a->vocab) / ((double)a->hidden * (double)a->vocab)) *
		        head / tp;
		P->head_deq = deq_bytes(c->p, c->r.cb, false) * head / tp;
	}
	if (c->full) {
		P->trainable += P->emb_w;
		P->ada += by_stage(P, ada_one + emb_other + vis, ada_one + fin,
		                   ada_one * (head > 0 ? 2 : 1) + emb_other + fin + vis);
		if (emb > P->max_unit)
			P->max_unit = emb / tp;
	}
	/* LoRA --train-embeddings: PEFT modules_to_save keeps a trainable copy
	 * of the embedding and the head at the compute dtype. */
	if (c->lora && c->s->train_embeddings) {
		P->extra_model = (emb + (head > 0 ? head : emb)) / tp;
		P->extra_train = by_stage(P, emb / tp, (head > 0 ? head : emb) / tp, P->extra_model);
		P->W += c->r.cb * P->extra_train;
	}
}

/* Gradients and optimizer states of the whole model, before sharding. */
static void plan_states(plan *P)
{
	const ctx *c = &P->c;
	const gs_settings *s = c->s;
	double trainable = P->trainable, extra_train = P->extra_train;
	double st_el = optim_states(s->optimizer, c->r.state, &P->paged);

	P->grad_total = trainable * c->r.g + extra_train * c->r.cb;
	if (s->optimizer == GS_O_ADAFACTOR)
		P->O_total = 4 * (c->full ? P->ada : trainable) + (c->full ? 0 : 4 * extra_train);
	else
		P->O_total = trainable * st_el + extra_train * optim_states(s->optimizer, c->r.cb, &P->paged);
	P->O_total += (trainable + extra_train) * c->r.master;
	P->params_trainable = trainable + extra_train;
	/* the whole model's, for the report (the naive pipeline's GPU holds
	 * its layers plus, as a bound, the embedding and the head; --pp sizes
	 * the first and the last stage apart) */
	if (c->full)
		P->trainable_model += P->emb_w_model;
}

/* --ep under a sharding: an expert's state is shared by the n_dp / ep
 * ranks that hold that expert (Megatron-Core's expert data-parallel group),
 * so a rank's shard of its experts' state is ep / n_dp of it, not 1 / n_dp:
 * (ep - 1) / n_dp more (0 without --ep). */
static double ep_spread(const plan *P)
{
	double ep = P->c.s->ep > 1 ? (double)P->c.s->ep : 1;

	return P->n_dp > 1 ? (ep - 1) / P->n_dp : 0;
}

/* The optimizer step's temporaries. */
static void plan_opt_tmp(plan *P)
{
	const ctx *c = &P->c;

	switch (c->s->optimizer) {
	case GS_O_ADAMW:
		/* torch's multi-tensor AdamW materialises sqrt(exp_avg_sq) for the
		 * whole group; DeepSpeed's fused Adam (mixed recipes) does not. */
		P->opt_tmp = c->r.master > 0 ? 0 : P->params_trainable * c->r.state;
		break;
	case GS_O_LION:
		P->opt_tmp = P->params_trainable * c->r.state;
		break;
	case GS_O_ADAFACTOR:
		P->opt_tmp = 3 * 4 * P->max_unit; /* fp32 grad copy, update, its square: largest tensor */
		break;
	default:
		break;
	}
	/* The step runs on each rank's own states: sharded, they are 1/n_dp;
	 * replicated (DDP, pipeline), every rank steps all of them, so the
	 * fp32 gradient below is the whole model's on each replica (DeepSpeed
	 * stage 0's FP16_Optimizer.step flattens every gradient of the group
	 * into one fp32 tensor) whatever the replica count. */
	double part = c->s->sharding == GS_SH_DDP || c->s->sharding == GS_SH_PIPELINE ? 1 : P->n_dp;
	P->opt_tmp /= part;
	if (c->r.master > 0)
		P->opt_tmp += 4 * P->params_trainable / part; /* fp32 gradient (partition) */
	/* DeepSpeed stage 1/2's step: single_grad_partition =
	 * flatten(averaged_gradients).to(fp32), the 16-bit flat copy of the
	 * rank's gradient partition beside its fp32 conversion */
	if (c->r.master > 0 && (c->s->sharding == GS_SH_ZERO1 || c->s->sharding == GS_SH_ZERO2))
		P->opt_tmp += c->r.g * P->params_trainable / part;
	/* --ep: the experts' share steps over the expert-data-parallel ranks,
	 * n_dp / ep of them, not n_dp */
	if (part > 1 && P->params_trainable > 0)
		P->opt_tmp *= 1 + ep_spread(P) * P->exp_T / P->params_trainable;
}

/* Per-GPU shares of weights, gradients and states under --sharding, with
 * the reduce buckets and gathered units it adds. */
static void plan_sharding(plan *P)
{
	const ctx *c = &P->c;
	const gs_arch *a = c->a;
	const gs_settings *s = c->s;
	double n_dp = P->n_dp, grad_total = P->grad_total;
	double layer_params_max = 0, layer_train_max = 0;
	/* DeepSpeed's reduce_bucket_size; "auto" is hidden_size^2 (transformers'
	 * integrations/deepspeed.py, accelerate's deepspeed plugin) */
	double zb = s->zero_bucket > 0 ? (double)s->zero_bucket : (double)a->hidden * (double)a->hidden;

	P->W_gpu = P->W;
	P->G_gpu = grad_total;
	P->O_gpu = P->O_total;
	for (int i = 0; i < a->n_kinds; i++) {
		if (P->lc[i].params > layer_params_max)
			layer_params_max = P->lc[i].params;
		if (P->lc[i].trainable > layer_train_max)
			layer_train_max = P->lc[i].trainable;
	}
	if (s->gpus <= 1 && s->sharding == GS_SH_DDP)
		return;
	switch (s->sharding) {
	case GS_SH_DDP:
		/* DDP's reducer keeps flat gradient buckets as large as the
		 * gradients (gradient_as_bucket_view=False, the default). */
		if (n_dp > 1)
			P->bucket = grad_total;
		break;
	case GS_SH_ZERO1:
		/* DeepSpeed stage 1 (runtime/zero/stage_1_and_2.py): no gradient
		 * hooks (the engine turns overlap_comm and contiguous_gradients
		 * off for stage 1), so whole 16-bit gradients build up; after
		 * backward, reduce_gradients flattens them a bucket of
		 * reduce_bucket_size elements at a time (allreduce_bucket) */
		P->O_gpu /= n_dp;
		if (!c->infer)
			P->flat_tmp = fmin(grad_total, zb * c->r.g);
		break;
	case GS_SH_ZERO2:
		/* stage 2: backward() allocates the ipg_buffer, reduce_bucket_size
		 * elements of the gradient dtype whatever the model's size, and
		 * a second one with overlap_comm (off by default for stages 1
		 * and 2: zero/config.py); gradients are copied into it and
		 * reduced from it (newer releases' allreduce_bucket also
		 * flattens a copy for the reduce, older ones reduced views: not
		 * counted) */
		P->O_gpu /= n_dp;
		P->G_gpu /= n_dp;
		if (!c->infer)
			P->ipg = (s->overlap_comm ? 2 : 1) * zb * c->r.g;
		break;
	case GS_SH_ZERO3: case GS_SH_FSDP: case GS_SH_FSDP2:
		P->O_gpu /= n_dp;
		P->G_gpu /= n_dp;
		/* DeepSpeed stage 3 (runtime/zero/stage3.py) allocates its
		 * __ipg_bucket_flat_buffer, reduce_bucket_size elements of the
		 * 16-bit dtype, when the optimizer is built (contiguous_gradients,
		 * on by default) and keeps it: one whatever overlap_comm says */
		if (s->sharding == GS_SH_ZERO3 && !c->infer)
			P->zbuf = zb * c->r.g;
		/* ZeRO-3/FSDP shard parameters; bitsandbytes keeps each layer's
		 * quantization state (absmax; int8's row scales) on the module,
		 * whole on every rank (Linear4bit: "the quant state got lost ...
		 * for fsdp ... we can recover the state here"), and GPTQ/AWQ
		 * layers hold their weights in buffers, which are not sharded */
		P->W_gpu = (P->W - P->qmeta) / n_dp + P->qmeta;
		/* the unit being computed and the prefetched next one, gathered
		 * at compute dtype (full fine-tuning's mixed-precision param
		 * dtype) or, for a frozen base, as stored (FSDP2 gathers
		 * torchao NF4 and bitsandbytes' packed 4-bit storage as is);
		 * the unit's unsharded gradients before reduce-scatter: only
		 * trainable parameters have them (ZeRO-3, FSDP2), except that
		 * an FSDP1 unit mixing frozen and trainable parameters (a
		 * whole decoder layer, as Lightning wraps) allocates them for
		 * all of it (PyTorch's FSDP notes on use_orig_params) */
		P->gather = 2 * (c->full ? layer_params_max * c->r.cb : P->layer_store_max);
		if (!c->infer)
			P->bucket = (s->sharding == GS_SH_FSDP ? layer_params_max : layer_train_max) * c->r.g;
		break;
	default:
		break;
	}
	/* --ep: what a sharding split over n_dp ranks is split over n_dp / ep
	 * for this rank's experts (ep_spread) */
	if (P->exp_T > 0 || P->exp_W > 0) {
		double f = ep_spread(P), st = P->params_trainable > 0 ? P->O_total / P->params_trainable : 0;
		bool w_sh = s->sharding == GS_SH_ZERO3 || s->sharding == GS_SH_FSDP || s->sharding == GS_SH_FSDP2;
		bool g_sh = w_sh || s->sharding == GS_SH_ZERO2;
		if (s->sharding != GS_SH_DDP && s->sharding != GS_SH_PIPELINE)
			P->O_gpu += f * st * P->exp_T;
		if (g_sh)
			P->G_gpu += f * c->r.g * P->exp_T;
		if (w_sh)
			P->W_gpu += f * P->exp_W;
	}
}

/* What --offload optimizer/params moves to the host, a full state dict
 * loaded beside the shard, and the share of each gradient this GPU keeps. */
static void plan_offload(plan *P)
{
	const ctx *c = &P->c;
	const gs_settings *s = c->s;

	if (s->offload == GS_OFF_OPTIMIZER) {
		P->host = P->O_total;
		P->O_gpu = 0;
		P->opt_tmp = 0; /* the step runs on the CPU */
		P->host += P->grad_total; /* ZeRO-Offload keeps fp32 gradient partitions on the host */
	} else if (s->offload == GS_OFF_PARAMS) {
		/* FSDP/ZeRO-3 CPU offload: weights, gradients and states on the
		 * host; a GPU holds the gathered units and one unit's gradients. */
		P->host = P->O_total + P->W + (c->infer ? 0 : P->grad_total);
		P->O_gpu = 0;
		P->opt_tmp = 0;
		P->W_gpu = 0;
		P->G_gpu = 0;
	}
	/* A full copy of the weights beside the shard on every rank: what the
	 * litgpt@8641822 FSDP LoRA runs measure (Lightning 2.1 loads the full
	 * state dict on each rank; per-GPU memory = full + shard + activations). */
	if (s->full_state_dict_load && P->W_gpu < P->W)
		P->W_gpu += P->W;
	P->grad_frac = s->offload == GS_OFF_PARAMS ? 1.0 / P->n_dp : P->G_gpu / (P->grad_total > 0 ? P->grad_total : 1);
}

/* The KV cache of this GPU's layers for one sequence of n tokens: each
 * layer's keys and values for the tokens its kind keeps
 * (gs_kind_kv_tokens: every token, or the window), at kvb bytes. */
static double kv_bytes_at(const plan *P, double n, bool stat, double kvb)
{
	const gs_arch *a = P->c.a;
	double t = 0;

	for (int i = 0; i < a->n_kinds; i++)
		t += layers_here(&a->kind[i], P->c.s) * (double)a->kind[i].kv_dim / P->c.tp * kvb *
		     gs_kind_kv_tokens(&a->kind[i], n, stat);
	return t;
}

/* What the inference timeline's stages share. */
typedef struct infer_tl {
	tl t;
	double kvb;          /* bytes a cached element (its scale included) */
	bool int8kv, stat;   /* an int8 cache; a static cache (allocated at full length) */
	double ctx_all, seqs; /* a sequence's tokens (prompt and new ones); sequences */
	double kv_tok, win_tok, win_cap; /* cache a token of the layers that keep every
	                      token and of those that keep a window; the window's */
	double state;        /* the state layers' fixed state, all sequences */
	double kv;           /* the cache when the prefill's last layer runs */
	double ctx_attn;     /* tokens one attention layer reads at the last decode step */
	double lbytes, logits; /* bytes a logit; the prefill's logits */
	double layer_tmp, deq; /* the widest layer's transients; its dequantized weights */
	double kv_at, seen;  /* the cache's bytes at the peak, and the peak they were taken at */
} infer_tl;

/* The cache: a token's bytes per kind of layer, the state layers' state,
 * what the prefill leaves and what the last decode step reads. */
static void infer_cache(const plan *P, infer_tl *x)
{
	const ctx *c = &P->c;
	const gs_arch *a = c->a;
	const gs_settings *s = c->s;
	double tp = c->tp;

	x->kvb = s->kv_dtype_set ? gs_dtype_bytes(s->kv_dtype) : c->r.cb;
	x->int8kv = s->kv_dtype_set && s->kv_dtype == GS_DT_INT8;
	/* torchao's AffineQuantizedKVCache: a scale in the compute dtype per
	 * token and head beside the int8 values (_models/llama/model.py) */
	if (x->int8kv)
		x->kvb += c->r.cb / (double)a->head_dim;
	/* a sequence's tokens: the prompt (--seq) and, generating, the new
	 * tokens after it */
	x->ctx_all = (double)s->seq + (double)s->new_tokens;
	x->seqs = (double)s->batch;
	/* StaticCache is allocated at its maximum length before the prefill */
	x->stat = s->kv_cache == GS_KVC_STATIC || s->kv_cache == GS_KVC_STATIC_MASK;
	/* the cache per token of the layers that keep every token (full and
	 * MLA: one layer's keys and values, this GPU's layers), of those that
	 * keep a window, and the state layers' fixed state per sequence */
	for (int i = 0; i < a->n_kinds; i++) {
		const gs_layer_kind *k = &a->kind[i];
		double nl = layers_here(k, s), per = (double)k->kv_dim / tp * x->kvb;
		if (!gs_kind_has_kv(k)) {
			x->state += nl * gs_kind_state_bytes(k, c->r.cb) / tp;
			continue;
		}
		if (gs_kind_kv_tokens(k, 1e18, x->stat) < 1e18) {
			x->win_tok += nl * per;
			x->win_cap += nl * per * gs_kind_kv_tokens(k, 1e18, x->stat);
		} else {
			x->kv_tok += nl * per;
		}
	}
	x->state *= x->seqs;
	x->kv = kv_bytes_at(P, x->stat ? x->ctx_all : (double)s->seq, x->stat, x->kvb) * x->seqs + x->state;
	/* the tokens one attention layer reads at the last decode step: the
	 * whole context, or the window where every layer keeps one */
	for (int i = 0; i < a->n_kinds; i++)
		if (gs_kind_has_kv(&a->kind[i]) && gs_kind_kv_tokens(&a->kind[i], x->ctx_all, x->stat) > x->ctx_attn)
			x->ctx_attn = gs_kind_kv_tokens(&a->kind[i], x->ctx_all, x->stat);
}

/* The load: the weights, AutoAWQ's fused copies, gpt-fast's mask, an
 * autocast's cached 16-bit weights. */
static void infer_load(const plan *P, infer_tl *x)
{
	const ctx *c = &P->c;
	const gs_settings *s = c->s;
	tl *t = &x->t;

	/* gpt-fast's setup_caches keeps a [L, L] bool causal mask for the
	 * cache's length, built as tril(ones(L, L)): two of them at once */
	double seq_len = (double)s->seq + (double)s->new_tokens;
	double mask = s->kv_cache == GS_KVC_STATIC_MASK ? seq_len * seq_len : 0;

	t->live[C_W] = P->W_gpu + P->gather;
	mark(t, NULL, GS_PH_LOAD, 1);
	/* --awq-fuse: AutoAWQ's fuser (awq/models/llama.py and its kin)
	 * builds each layer's qkv WQLinear by torch.cat of q, k and v's
	 * qweight, qzeros and scales, while its module list (or the unfused
	 * model, until it is replaced) still holds them: when the last layer
	 * is fused, every layer's q, k and v exist twice. Configs with a
	 * fused qkv already (Falcon, Phi-3) concatenate nothing. */
	if (P->qkv_dup > 0) {
		double exf[C_N] = {0};
		exf[C_B] = P->qkv_dup;
		mark(t, exf, GS_PH_LOAD, 1);
	}
	if (mask > 0) {
		double ex0[C_N] = {0};
		ex0[C_B] = 2 * mask;
		mark(t, ex0, GS_PH_LOAD, 1);
		t->live[C_B] = mask;
	}
	if (c->r.amp) /* every linear (and the head) cast once, cached */
		t->live[C_W] += 2 * (P->lin_total + (P->head > 0 ? P->head : P->emb) / c->tp);
}

/* The prefill: its widest layer over the full cache, then its logits and
 * last hidden states. */
static void infer_prefill(const plan *P, infer_tl *x)
{
	const ctx *c = &P->c;
	const gs_arch *a = c->a;
	const gs_settings *s = c->s;
	tl *t = &x->t;

	/* prefill logits: every prompt position for a plain forward; the
	 * last one per sequence for generate() (transformers >= 4.45
	 * passes logits_to_keep=1; serving engines do the same); older
	 * transformers' heads returned logits.float(): the 16-bit logits
	 * and their fp32 copy both live at the cast */
	x->lbytes = c->r.cb + (s->logits == GS_LOGITS_ALL_FP32 ? 4 : 0);
	x->logits = (s->logits != GS_LOGITS_LAST ? c->T : (double)s->batch) * (double)a->vocab / c->tp * x->lbytes;
	for (int i = 0; i < a->n_kinds; i++) {
		if (P->lc[i].fwd_act > x->layer_tmp)
			x->layer_tmp = P->lc[i].fwd_act;
		if (P->lc[i].deq > x->deq)
			x->deq = P->lc[i].deq;
	}
	double ex[C_N] = {0};
	t->live[C_A] = x->kv; /* the cache is full by the last layer */
	ex[C_A] = x->layer_tmp;
	ex[C_B] = x->deq;
	/* the cache's bytes at the peak: at each moment that raises it */
	x->seen = t->peak;
	mark(t, ex, GS_PH_PREFILL, 1);
	double ex2[C_N] = {0};
	ex2[C_A] = x->logits + c->r.rb * (double)a->hidden * c->T;
	ex2[C_B] = P->head_deq;
	if (t->peak != x->seen)
		x->kv_at = x->kv, x->seen = t->peak;
	mark(t, ex2, GS_PH_PREFILL, 1);
	if (t->peak != x->seen)
		x->kv_at = x->kv, x->seen = t->peak;
}

/* The last decode step, the cache at its longest (transformers'
 * cache_utils): DynamicCache.update replaces one layer's keys, then its
 * values, by torch.cat, so half a layer's cache of the new length is the
 * extra; a legacy tuple cache is rebuilt layer by layer while the caller
 * still holds the previous step's, so both whole caches live as the
 * forward returns; a static cache is already full. Each step's logits
 * are one position per sequence (fp32-cast too, where the head upcasts). */
static void infer_decode(const plan *P, infer_tl *x)
{
	const ctx *c = &P->c;
	const gs_arch *a = c->a;
	const gs_settings *s = c->s;
	double tp = c->tp, seqs = x->seqs;
	tl *t = &x->t;
	double ex3[C_N] = {0};

	/* the largest layer's cache at the new length (a window caps it) */
	double layer_max = 0;
	for (int i = 0; i < a->n_kinds; i++) {
		const gs_layer_kind *k = &a->kind[i];
		double b = (double)k->kv_dim / tp * x->kvb * gs_kind_kv_tokens(k, x->ctx_all, x->stat);
		if (b > layer_max)
			layer_max = b;
	}
	switch (s->kv_cache) {
	case GS_KVC_LEGACY:
		t->live[C_A] = kv_bytes_at(P, x->ctx_all - 1, false, x->kvb) * seqs + x->state;
		ex3[C_A] = kv_bytes_at(P, x->ctx_all, false, x->kvb) * seqs;
		break;
	case GS_KVC_STATIC:
	case GS_KVC_STATIC_MASK:
		t->live[C_A] = kv_bytes_at(P, x->ctx_all, true, x->kvb) * seqs + x->state;
		break;
	default:
		t->live[C_A] = kv_bytes_at(P, x->ctx_all - 1, false, x->kvb) * seqs + x->state;
		ex3[C_A] = 0.5 * layer_max * seqs;
		break;
	}
	double kv_dec = t->live[C_A] + ex3[C_A];
	/* sdpa and eager attention over grouped key/value heads expand
	 * one layer's cached keys and values to every query head for
	 * the step (transformers' repeat_kv, ChatGLM's expand +
	 * contiguous, gpt-fast's repeat_interleave); flash-attn reads
	 * the groups as they are. An int8 cache is read through a
	 * 16-bit copy of the layer (torchao: k_cache * k_cache_scale),
	 * freed once expanded: the keys' expansion, the values' copy and
	 * theirs live together. SDPA's math backend adds fp32 copies of
	 * the keys and values and a scaled fp32 key (attention.cpp) and
	 * its fp32 scores and probabilities. */
	double qkv = (double)a->heads * (double)a->head_dim / tp * seqs * x->ctx_attn; /* one layer's keys at query width */
	double expand = 0, kv_deq = x->int8kv ? (double)a->kv_cache_dim / tp * seqs * x->ctx_attn * c->r.cb : 0;
	if (s->attn != GS_ATTN_FLASH && a->kv_heads < a->heads &&
	    a->kv_cache_dim == 2 * a->kv_heads * a->head_dim)
		expand = 2.0 * qkv * c->r.cb;
	double attn_in = expand > 0 ? expand : kv_deq;
	if (s->attn == GS_ATTN_MATH)
		attn_in += math_fp32_copies(c->r.cb, false) * 4 * qkv + 8 * (double)a->heads / tp * seqs * x->ctx_attn;
	if (expand > 0 && expand + 0.5 * kv_deq > attn_in)
		attn_in = expand + 0.5 * kv_deq;
	ex3[C_A] += (double)s->batch * (double)a->vocab / tp * x->lbytes + attn_in +
	            x->layer_tmp * (double)s->batch / (c->T > 0 ? c->T : 1);
	ex3[C_B] = x->deq;
	mark(t, ex3, GS_PH_DECODE, 1);
	if (t->peak != x->seen)
		x->kv_at = kv_dec;
}

/* Inference: the weights, then the prefill's widest layer over a full KV
 * cache, then its logits and last hidden states, then the last decode
 * step when it generates. */
static gs_err infer_timeline(const plan *P, gs_estimate *out, gs_error *e)
{
	const ctx *c = &P->c;
	const gs_arch *a = c->a;
	const gs_settings *s = c->s;
	infer_tl x;

	memset(&x, 0, sizeof x);
	infer_cache(P, &x);
	infer_load(P, &x);
	infer_prefill(P, &x);
	if (s->new_tokens > 0)
		infer_decode(P, &x);
	finish(out, &x.t, (double)s->cuda_context_mib * 1048576.0, P->host, (double)a->params_total, c->r.text);
	out->kv_bytes_token = x.kv_tok;
	out->kv_win_bytes_token = x.win_tok;
	out->kv_win_bytes_seq = x.win_cap;
	out->state_bytes_seq = x.state / x.seqs;
	out->kv_at_peak = u64(x.kv_at);
	out->params_trainable = 0;
	out->bpp_G = out->bpp_O = 0;
	return x.t.peak > 4.6e18 ? too_big(e, a) : GS_OK;
}

/* One training step of the timeline, what its stages share. */
typedef struct step_info {
	int n;           /* 1: no states yet; 2: the steady state */
	bool accum;      /* gradients accumulate (step 2 under --grad-accum) */
	bool act_off;    /* --offload activations */
	bool ckpt_off;   /* --ckpt-offload: checkpointed layer inputs on the host */
	bool head_trains;
	bool in_bwd;     /* gradients leave the GPU as soon as they are produced */
	bool head_here;  /* this GPU runs the head and the loss (all but --pp's earlier stages) */
	double head_in;  /* the head's saved input */
	double held;     /* left live by the previous micro-batch until this one's logits exist */
	double inflight[C_N]; /* --pp's first stage: the other micro-batches in flight, what
	                    each keeps for its backward (activations, autocast's weight casts) */
} step_info;

/* The start of a step: the weights, and on step 2 the states, the
 * accumulated gradients, the buckets and what the previous micro-batch
 * left live (--held-logits). */
static void train_load(const plan *P, const step_info *st, tl *t)
{
	memset(t->live, 0, sizeof t->live);
	t->paged = 0;
	t->live[C_W] = P->W_gpu;
	t->live[C_G] = st->accum ? P->G_gpu : 0;
	if (st->n == 2) {
		if (P->paged)
			t->paged = P->O_gpu;
		else
			t->live[C_O] = P->O_gpu;
	}
	if (st->n == 2 || st->accum)
		t->live[C_B] = P->bucket;
	t->live[C_B] += P->zbuf + (st->n == 2 ? P->ckbuf : 0);
	t->live[C_A] = st->held + st->inflight[C_A];
	t->live[C_W] += st->inflight[C_W];
	mark(t, NULL, GS_PH_LOAD, st->n);
}

/* The layers' input for one micro-batch: the embeddings' output (the
 * residual stream) and, with dropout, its mask. */
static double layers_input(const ctx *c)
{
	double h = (double)c->a->hidden;

	return c->r.rb * h * c->T + (c->a->dropout > 0 ? h * c->T : 0);
}

/* What one layer of kind l keeps on the GPU for its backward: its saved
 * tensors (under checkpointing its input; none where they go to the host)
 * in d[C_A], autocast's 16-bit weight casts (none under checkpointing) in
 * d[C_W]. */
static void layer_keeps(const layer_cost *l, const step_info *st, bool ckpt, double d[C_N])
{
	d[C_A] = st->act_off || st->ckpt_off ? 0 : ckpt ? l->ckpt : l->saved;
	d[C_W] = ckpt ? 0 : l->wcopy;
}

/* Forward: the embeddings' output, then layer after layer. */
static void train_forward(const plan *P, const step_info *st, tl *t)
{
	const ctx *c = &P->c;
	const gs_arch *a = c->a;
	const gs_settings *s = c->s;

	t->live[C_A] += layers_input(c);
	if (st->ckpt_off && st->n == 1)
		t->live[C_B] += P->ckbuf; /* made at the first checkpoint, kept for the run */
	for (int i = 0; i < a->n_kinds; i++) {
		const layer_cost *l = &P->lc[i];
		double d[C_N] = {0}, tr[C_N] = {0};
		double kept = s->grad_ckpt ? l->ckpt : l->saved;
		layer_keeps(l, st, s->grad_ckpt, d);
		tr[C_A] = l->fwd_tmp + l->saved; /* the layer being computed: its tensors and temporaries */
		if (st->act_off)
			tr[C_A] += kept; /* the previous layer's, still copying out */
		tr[C_W] = l->wcopy;
		tr[C_B] = l->deq + P->gather;
		run_layers(t, (int64_t)layers_here(&a->kind[i], s), d, tr, GS_PH_FORWARD, st->n);
	}
	/* Kinds whose layers interleave (alternating windows, a hybrid's
	 * pattern) run grouped above, so an early kind's last layer was seen
	 * with only its own kind's activations before it; in the model it
	 * comes near the end, over nearly all of them: its transients again
	 * over all but its own last layer's. */
	if (a->interleaved)
		for (int i = 0; i < a->n_kinds; i++) {
			const layer_cost *l = &P->lc[i];
			double tr[C_N] = {0};
			double kept = s->grad_ckpt ? l->ckpt : l->saved;
			tr[C_A] = l->fwd_tmp + l->saved - (st->act_off || st->ckpt_off ? 0 : kept) +
			          (st->act_off ? kept : 0);
			tr[C_W] = l->wcopy - (s->grad_ckpt ? 0 : l->wcopy);
			tr[C_B] = l->deq + P->gather;
			mark(t, tr, GS_PH_FORWARD, st->n);
		}
	/* Unsloth offloads every checkpoint on the first pass and, from then
	 * on, keeps the last layer's on the GPU (LAST_GC_INDEX) */
	if (st->ckpt_off && st->n == 2)
		t->live[C_A] += P->ck_last;
}

/* The logits of one micro-batch. Legacy heads return logits.float():
 * the fp32 logits live (the 16-bit ones are dropped). A fused loss keeps
 * none. */
static double logits_bytes(const ctx *c)
{
	const gs_arch *a = c->a;
	double el = c->s->loss == GS_LOSS_LEGACY ? fmax(4, c->r.cb) : c->r.cb;

	return a->encoder || gs_loss_fused(c->s->loss) ? 0 : el * (double)a->vocab / c->tp * c->T;
}

/* The tokens of one chunk of a fused loss.
 * Liger (src/liger_kernel/ops/fused_linear_cross_entropy.py, v0.8.2,
 * fused_linear_cross_entropy_forward): inc_factor = ceil(V / H),
 * chunk_size = next_power_of_2(ceil(BT / inc_factor)), so that a chunk's
 * logits weigh about what the hidden states do.
 * Unsloth (unsloth_zoo fused_losses/cross_entropy_loss.py, 2026.8.13,
 * get_chunk_size): the chunk count makes one chunk's fp32 logits fit the
 * target (GS_UNSLOTH_CE_TARGET_BYTES), rounded up to a multiple of 4, and
 * torch.chunk gives ceil(BT / n) rows a chunk. */
static double fused_chunk_rows(const ctx *c)
{
	double T = c->T, V = (double)c->a->vocab / c->tp, h = (double)c->a->hidden;

	if (c->s->loss == GS_LOSS_FUSED) {
		double rows = ceil(T / ceil(V / h)), p2 = 1;
		while (p2 < rows)
			p2 *= 2;
		return fmin(p2, T);
	}
	double exact = T * V * 4 / GS_UNSLOTH_CE_TARGET_BYTES;
	double n = exact <= 1 ? 1 : ceil(exact / GS_UNSLOTH_CE_CHUNK_MULTIPLE) * GS_UNSLOTH_CE_CHUNK_MULTIPLE;
	return ceil(T / n);
}

/* The final norm and a fused loss (--loss fused, fused-chunks), then their
 * backward down to the last layer's output. The loss runs the head over
 * one chunk of the hidden states at a time and computes the gradients in
 * the forward: it holds the gradient of the hidden states (Liger's
 * grad_input = zeros_like(_input), Unsloth's grad_inputs =
 * empty_like(hidden_states); saved on ctx until the backward hands them
 * on) and, when the head trains, its gradient from the forward on; one
 * chunk's 16-bit logits exist at a time (Liger computes their gradient in
 * place; Unsloth's compiled chunk holds them with an fp32 gradient), with
 * the chunk's input gradient and, for a trained head, the chunk's head
 * gradient (Liger: torch.mm(...).float(), a 16-bit and an fp32 copy;
 * Unsloth: one at the head's dtype). Nothing of the head is saved for
 * the backward. */
static void train_head_fused(const plan *P, const step_info *st, tl *t)
{
	const ctx *c = &P->c;
	const gs_arch *a = c->a;
	const gs_settings *s = c->s;
	double V = (double)a->vocab / c->tp, T = c->T, h = (double)a->hidden, cb = c->r.cb;
	double head = (P->head > 0 ? P->head : P->emb) / c->tp;
	bool liger = s->loss == GS_LOSS_FUSED;
	double norm = (a->norm == GS_NORM_RMS ? 4 : c->r.rb) * h * T;
	/* autocast's 16-bit head cast, cached for the forward only: nothing
	 * keeps it for the backward */
	double cast = c->r.amp || c->kcast ? 2 * head : 0;
	double gin = c->r.rb * h * T + 4 * T; /* the hidden states' gradient, the per-token losses */
	double rows = fused_chunk_rows(c);
	double hgb = c->full ? c->r.g : c->r.cb;
	double hg = st->head_trains && !st->accum ? head * hgb * P->grad_frac : 0;
	double ex[C_N] = {0};

	t->live[C_A] += norm;
	t->live[C_W] += cast;
	t->live[C_A] += gin;
	t->live[C_G] += hg;
	ex[C_A] = rows * V * (liger ? cb : cb + 4) + rows * h * cb;
	if (st->head_trains)
		ex[C_B] = (liger ? cb + 4 : hgb) * head;
	ex[C_B] += P->head_deq;
	mark(t, ex, GS_PH_LOSS, st->n);
	t->live[C_A] -= st->held;
	t->live[C_W] -= cast;
	memset(ex, 0, sizeof ex);
	ex[C_B] = P->ipg;
	mark(t, ex, GS_PH_BACKWARD, st->n);
	if (st->in_bwd) /* stepped as soon as the backward reaches it */
		t->live[C_G] -= hg;
	t->live[C_A] -= norm + gin;
}

/* The final norm, head and loss, then their backward down to the last
 * layer's output: the logits and their gradients, the head's gradient. */
static void train_head(const plan *P, const step_info *st, tl *t)
{
	const ctx *c = &P->c;
	const gs_arch *a = c->a;
	const gs_settings *s = c->s;
	double V = (double)a->vocab / c->tp, T = c->T, h = (double)a->hidden;
	double head = P->head, emb = P->emb;
	double ex[C_N];

	if (gs_loss_fused(s->loss) && !a->encoder) {
		train_head_fused(P, st, t);
		return;
	}
	/* Final norm and the head's saved input. */
	t->live[C_A] += (a->norm == GS_NORM_RMS ? 4 : c->r.rb) * h * T + st->head_in;
	/* autocast casts the fp32 head (AMP; a k-bit-prepared base under the
	 * HF Trainer's autocast) to 16 bits, and the matmul saves that cast
	 * for the input's gradient until the head's backward */
	if (c->r.amp || c->kcast)
		t->live[C_W] += 2 * (head > 0 ? head : emb) / c->tp;

	/* Loss. A legacy loss reads a shifted fp32 copy of the logits (the
	 * transient below). */
	double logits = logits_bytes(c);
	/* the loss's up-cast copy (transient) and saved log-probabilities,
	 * at --loss-dtype (loss_bytes) */
	double up = c->r.cb < c->lb ? c->lb * V * T : 0;
	double lsm = a->encoder ? 0 : c->lb * V * T;
	if (s->loss == GS_LOSS_CHUNKED) {
		/* chunked CE: 16-bit logits and fp32 log-probs, chunk by chunk */
		up = 0;
	}
	if (s->compile && !a->encoder) {
		/* compiled cross-entropy (torchtune compiles the loss with the
		 * model): up-cast, log-softmax and NLL fuse into kernels that
		 * save the logits and one log-sum-exp per token */
		up = 0;
		lsm = 4 * T;
	}
	/* soft-capped logits (Gemma 2: tanh(x / cap) * cap): tanh saves
	 * its 16-bit output until the head's backward */
	double cap = a->final_softcap > 0 && !a->encoder ? c->r.cb * V * T : 0;
	t->live[C_A] += logits + cap;
	/* the head's forward: a quantized head's dequantized copies (the
	 * last chunk's); then the model returns and the loop's rebinding
	 * frees the previous micro-batch's logits (--held-logits) */
	memset(ex, 0, sizeof ex);
	ex[C_B] = P->head_deq;
	mark(t, ex, GS_PH_FORWARD, st->n);
	t->live[C_A] -= st->held;
	t->live[C_A] += lsm;
	memset(ex, 0, sizeof ex);
	ex[C_A] = a->encoder ? 0 : up;
	mark(t, ex, GS_PH_LOSS, st->n);

	/* Backward: loss gradients (the log-softmax grad and its input's
	 * grad in fp32), then the head. */
	memset(ex, 0, sizeof ex);
	ex[C_A] = s->loss == GS_LOSS_CHUNKED || a->encoder ? 0 : 2 * c->lb * V * T;
	/* chunked: the head's backward runs chunk by chunk while the
	 * other chunks' logits are live */
	ex[C_B] = (s->loss == GS_LOSS_CHUNKED ? P->head_deq : 0) + P->ipg;
	mark(t, ex, GS_PH_BACKWARD, st->n);
	t->live[C_A] -= (s->held_logits ? 0 : logits) + lsm + cap;
	if (st->head_trains && !st->accum) {
		double hg = (head > 0 ? head : emb) / c->tp * (c->full ? c->r.g : c->r.cb) * P->grad_frac;
		if (st->in_bwd) {
			memset(ex, 0, sizeof ex);
			ex[C_G] = hg;
			mark(t, ex, GS_PH_BACKWARD, st->n);
		} else {
			t->live[C_G] += hg;
		}
	}
	memset(ex, 0, sizeof ex);
	/* 16-bit logits grad; through a soft cap, tanh's input grad too */
	ex[C_A] = c->r.cb * V * T * (cap > 0 ? 2 : 1);
	ex[C_B] = P->head_deq + P->ipg;
	mark(t, ex, GS_PH_BACKWARD, st->n);
	t->live[C_A] -= (a->norm == GS_NORM_RMS ? 4 : c->r.rb) * h * T + st->head_in;
	if (c->r.amp || c->kcast)
		t->live[C_W] -= 2 * (head > 0 ? head : emb) / c->tp;
}

/* --pp, a stage before the last: no head; its output's gradient comes from
 * the next stage (Megatron-Core's recv_backward) into a buffer of the
 * output's shape, which its last layer's backward reads. */
static void train_recv_grad(const plan *P, const step_info *st, tl *t)
{
	double ex[C_N] = {0};

	ex[C_A] = P->c.r.cb * (double)P->c.a->hidden * P->c.T;
	ex[C_B] = P->ipg;
	mark(t, ex, GS_PH_BACKWARD, st->n);
}

/* The forward chunks a --pp stage has run and not yet run backward at
 * its peak, in model chunks of layers / (pp x vpp) layers and one
 * micro-batch (megatron/core/pipeline_parallel/schedules.py,
 * get_pp_rank_microbatches: num_warmup_microbatches before the first
 * backward, then one more forward). 1F1B: pp - rank - 1 warm-up
 * micro-batches of the whole stage (vpp 1); interleaved: 2 (pp - rank -
 * 1) + (vpp - 1) pp chunk forwards (microbatch_group_size_per_vp_stage
 * defaults to pp); both capped by the step's m x vpp chunk forwards, m =
 * --grad-accum. The first stage (rank 0) holds the most; the last holds
 * one micro-batch under 1F1B, (vpp - 1) pp + 1 chunks interleaved. */
static double pp_chunks(const plan *P)
{
	const gs_settings *s = P->c.s;
	double m = (double)(s->grad_accum > 1 ? s->grad_accum : 1), pp = (double)stages_of(s);
	double vpp = s->vpp > 1 ? (double)s->vpp : 1, later = P->stage == STAGE_FIRST ? pp - 1 : 0;
	double warm = vpp > 1 ? 2 * later + (vpp - 1) * pp : later;

	return fmin(warm + 1, m * vpp);
}

/* --pp: the saved tensors of the chunks in flight beside the micro-batch
 * the timeline follows (its vpp chunks, the stage's layers): each chunk's
 * input and what its layers keep (with deallocate_pipeline_outputs, as
 * Megatron-LM's training sets it, a sent output's data is freed). */
static void pp_inflight(const plan *P, step_info *st)
{
	const ctx *c = &P->c;
	const gs_arch *a = c->a;
	const gs_settings *s = c->s;
	double vpp = s->vpp > 1 ? (double)s->vpp : 1, chunks = P->stage == STAGE_ALL ? vpp : pp_chunks(P);
	double layers[C_N] = {0};

	memset(st->inflight, 0, sizeof st->inflight);
	if (chunks <= vpp)
		return;
	layers[C_A] = P->ctx_held;
	for (int i = 0; i < a->n_kinds; i++) {
		double d[C_N], nl = layers_here(&a->kind[i], s);
		layer_keeps(&P->lc[i], st, s->grad_ckpt, d);
		layers[C_A] += nl * d[C_A];
		layers[C_W] += nl * d[C_W];
	}
	st->inflight[C_A] = (chunks - vpp) / vpp * layers[C_A] + (chunks - 1) * layers_input(c);
	st->inflight[C_W] = (chunks - vpp) / vpp * layers[C_W];
}

/* Backward through the layers in reverse, then the embeddings' gradients;
 * at its end every gradient exists (or, stepped in backward, is gone). */
static void train_backward(const plan *P, const step_info *st, tl *t)
{
	const ctx *c = &P->c;
	const gs_arch *a = c->a;
	const gs_settings *s = c->s;

	/* Interleaved kinds (train_forward): each kind's first layer in
	 * backward comes before most others are freed: its transients over
	 * everything still live. */
	if (a->interleaved)
		for (int i = 0; i < a->n_kinds; i++) {
			const layer_cost *l = &P->lc[i];
			double tr[C_N] = {0};
			double kept = s->grad_ckpt ? l->ckpt : l->saved;
			tr[C_G] = st->accum ? 0 : l->wgrad * P->grad_frac;
			tr[C_A] = l->bwd_tmp + (s->grad_ckpt ? l->saved : 0) + (st->act_off ? 2 * kept : 0);
			tr[C_W] = s->grad_ckpt ? l->wcopy : 0;
			tr[C_B] = l->deq + P->gather + P->ipg;
			mark(t, tr, GS_PH_BACKWARD, st->n);
		}
	for (int i = a->n_kinds - 1; i >= 0; i--) {
		const layer_cost *l = &P->lc[i];
		double d[C_N] = {0}, tr[C_N] = {0};
		double wg = st->accum ? 0 : l->wgrad * P->grad_frac;
		double kept = s->grad_ckpt ? l->ckpt : l->saved;
		d[C_A] = st->act_off || st->ckpt_off ? 0 : -(kept - l->ctxin); /* ctx-held inputs stay */
		d[C_W] = s->grad_ckpt ? 0 : -l->wcopy;
		d[C_G] = st->in_bwd ? 0 : wg; /* stepped and freed at once */
		tr[C_G] = wg;
		tr[C_A] = l->bwd_tmp + (s->grad_ckpt ? l->saved : 0);
		if (st->act_off)
			tr[C_A] += 2 * kept; /* this layer's, back from the host, and the next one prefetched */
		tr[C_W] = s->grad_ckpt ? l->wcopy : 0;
		tr[C_B] = l->deq + P->gather + P->ipg; /* ZeRO-2: its ipg buffer */
		run_layers(t, (int64_t)layers_here(&a->kind[i], s), d, tr, GS_PH_BACKWARD, st->n);
	}
	/* 1F1B's last backward of a step: no micro-batch is left in flight */
	t->live[C_A] -= layers_input(c) + st->inflight[C_A];
	t->live[C_W] -= st->inflight[C_W];
	if (st->ckpt_off && st->n == 2)
		t->live[C_A] -= P->ck_last;
	/* the graph goes with the loss, unless the loop holds its logits */
	if (!s->held_logits)
		t->live[C_A] -= P->ctx_held;
	/* the embedding's gradient (tied and on the head's GPU: it was the
	 * head's; --pp's last stage holds no embedding) */
	double emb_g = P->stage == STAGE_LAST ? 0 : P->head > 0 || !st->head_here ? P->emb / c->tp : 0;
	if (c->full && !st->accum)
		t->live[C_G] += (emb_g + (P->stage == STAGE_LAST ? 0 : (double)a->p_embed_other)) * c->r.g * P->grad_frac;
	if (c->lora && s->train_embeddings && !st->accum)
		t->live[C_G] += emb_g * c->r.cb * P->grad_frac;
	if (t->live[C_A] < 0)
		t->live[C_A] = 0;
	if (st->in_bwd) {
		mark(t, NULL, GS_PH_BACKWARD, st->n);
		t->live[C_G] = 0;
	} else if (t->live[C_G] < P->G_gpu) {
		t->live[C_G] = P->G_gpu; /* norms, biases: all gradients exist now */
	}
	if (P->flat_tmp > 0) {
		/* ZeRO-1's reduce after backward: a bucket flattened while
		 * every gradient is live */
		double ex[C_N] = {0};
		ex[C_B] = P->flat_tmp;
		mark(t, ex, GS_PH_BACKWARD, st->n);
	}
	t->live[C_B] = P->bucket + P->zbuf + P->ckbuf;
}

/* The optimizer step: the states appear on step 1; its temporaries. */
static void train_optimizer(const plan *P, const step_info *st, tl *t)
{
	double ex[C_N];

	if (st->n == 1) {
		if (P->paged)
			t->paged = P->O_gpu;
		else
			t->live[C_O] = P->O_gpu;
	}
	memset(ex, 0, sizeof ex);
	ex[C_B] = st->in_bwd ? 0 : P->opt_tmp;
	mark(t, ex, st->in_bwd ? GS_PH_BACKWARD : GS_PH_OPTIMIZER, st->n);
}

/* Training: step 1 (no states yet, lazily created in the step) and the
 * steady state (states resident; with accumulation, gradients too). */
static gs_err train_timeline(plan *P, gs_estimate *out, gs_error *e)
{
	const ctx *c = &P->c;
	const gs_arch *a = c->a;
	const gs_settings *s = c->s;
	step_info st = {0};
	tl t;

	memset(&t, 0, sizeof t);
	double context = (double)s->cuda_context_mib * 1048576.0;
	/* --offload activations (torchtune's OffloadActivations): every
	 * decoder layer's saved tensors go to the host as they are saved and
	 * come back, one layer ahead, in backward; the GPU holds the layer
	 * being computed and one more in flight. The head and loss stay. */
	st.act_off = s->offload == GS_OFF_ACTIVATIONS;
	if (st.act_off)
		for (int i = 0; i < a->n_kinds; i++)
			P->host += layers_here(&a->kind[i], s) * (s->grad_ckpt ? P->lc[i].ckpt : P->lc[i].saved);
	/* --ckpt-offload (unsloth_zoo gradient_checkpointing.py, 2026.8.13,
	 * UnslothCheckpointFunction): each checkpointed layer input is copied
	 * into a pinned host buffer on a side stream and not saved; backward
	 * copies it back into a GPU buffer and recomputes the layer. */
	st.ckpt_off = s->ckpt_offload && s->grad_ckpt && !st.act_off;
	if (st.ckpt_off) {
		double ckmax = 0;
		for (int i = 0; i < a->n_kinds; i++) {
			P->host += layers_here(&a->kind[i], s) * P->lc[i].ckpt;
			ckmax = fmax(ckmax, P->lc[i].ckpt);
		}
		P->ckbuf = GS_UNSLOTH_GC_BUFFERS * ckmax;
		P->ck_last = P->lc[a->n_kinds - 1].ckpt;
	}
	st.head_here = P->stage != STAGE_FIRST;
	st.head_trains = st.head_here && (c->full || (c->lora && s->train_embeddings));
	st.in_bwd = s->optimizer_in_bwd || s->offload == GS_OFF_PARAMS;
	st.head_in = st.head_here && (st.head_trains || P->head_deq > 0) && !gs_loss_fused(s->loss)
	             ? c->r.cb * (double)a->hidden * c->T : 0;
	pp_inflight(P, &st);
	for (st.n = 1; st.n <= 2; st.n++) {
		st.accum = s->grad_accum > 1 && st.n == 2;
		/* --held-logits: the previous micro-batch's logits and graph */
		st.held = s->held_logits && st.head_here && st.n == 2 ? logits_bytes(c) + P->ctx_held : 0;
		train_load(P, &st, &t);
		train_forward(P, &st, &t);
		if (st.head_here)
			train_head(P, &st, &t);
		else
			train_recv_grad(P, &st, &t);
		train_backward(P, &st, &t);
		train_optimizer(P, &st, &t);
	}
	finish(out, &t, context, P->host, (double)a->params_total, c->r.text);
	out->params_trainable = u64(P->trainable_model + P->extra_model);
	if (P->paged)
		snprintf(out->note, sizeof out->note,
		         "paged optimizer states (%.2f GiB) live in CUDA unified memory: counted in device, not in torch's allocated",
		         (double)out->O / (1024.0 * 1024 * 1024));
	out->bpp_G = P->params_trainable > 0 ? P->grad_total / P->params_trainable : 0;
	out->bpp_O = P->params_trainable > 0 ? P->O_total / P->params_trainable : 0;
	return t.peak > 4.6e18 ? too_big(e, a) : GS_OK;
}

/* One stage's plan: whole-model sizes and their shares on one GPU. */
static void plan_all(plan *P, const gs_arch *a, const gs_settings *s, stage_kind stage)
{
	plan_init(P, a, s, stage);
	plan_layers(P);
	plan_embeddings(P);
	plan_states(P);
	plan_opt_tmp(P);
	plan_sharding(P);
	plan_offload(P);
}

/* --pp: the first and the last stage, each its own timeline; the one whose
 * device figure is larger is the GPU the row needs (the stages between
 * hold fewer micro-batches than the first and no embedding). */
static gs_err train_stages(const gs_arch *a, const gs_settings *s, gs_estimate *out, gs_error *e)
{
	plan P;
	gs_estimate last = *out; /* what the caller filled in (the model's counts) */
	gs_err rc;

	plan_all(&P, a, s, STAGE_FIRST);
	if ((rc = train_timeline(&P, out, e)) != GS_OK)
		return rc;
	plan_all(&P, a, s, STAGE_LAST);
	if ((rc = train_timeline(&P, &last, e)) != GS_OK)
		return rc;
	uint64_t first_dev = out->device, last_dev = last.device;
	bool first_peaks = first_dev >= last_dev;
	if (!first_peaks)
		*out = last;
	double gib = 1024.0 * 1024 * 1024;
	if (out->note[0] != '\0')
		return GS_OK;
	if (fabs((double)first_dev - (double)last_dev) < 0.005 * gib) /* alike to the printed figure */
		snprintf(out->note, sizeof out->note, "--pp %lld: the first and the last stage need the same %.2f GiB",
		         (long long)s->pp, (double)out->device / gib);
	else
		snprintf(out->note, sizeof out->note,
		         "--pp %lld: the %s stage peaks (%s); the %s needs %.2f GiB", (long long)s->pp,
		         first_peaks ? "first" : "last",
		         first_peaks ? "the embedding and the micro-batches in flight" : "the head and the loss",
		         first_peaks ? "last" : "first", (double)(first_peaks ? last_dev : first_dev) / gib);
	return GS_OK;
}

/* --ep: the model as one expert-parallel rank holds it, each routed
 * expert linear with count / ep instances (Megatron-Core's
 * expert_model_parallel_size: a rank's local experts, the router and the
 * rest whole); the totals stay the model's. */
static void local_experts(const gs_arch *a, int64_t ep, gs_arch *out)
{
	*out = *a;
	for (int i = 0; i < out->n_kinds; i++)
		for (int j = 0; j < out->kind[i].n_lin; j++)
			if (out->kind[i].lin[j].expert)
				out->kind[i].lin[j].count /= ep;
}

/* The detailed model: whole-model sizes, their shares on one GPU, then
 * the timeline of one training step or inference forward. */
static gs_err detailed(const gs_arch *a, const gs_settings *s, gs_estimate *out, gs_error *e)
{
	plan P;
	gs_arch local;

	/* pp, ep: training only, and pp not under --sharding pipeline
	 * (gs_settings_check) */
	if (s->ep > 1) {
		local_experts(a, s->ep, &local);
		a = &local;
	}
	if (s->pp > 1)
		return train_stages(a, s, out, e);
	plan_all(&P, a, s, STAGE_ALL);
	if (!P.c.infer)
		return train_timeline(&P, out, e);
	gs_err rc = infer_timeline(&P, out, e);
	/* Inference has no gradients or optimizer states to shard: under DDP
	 * (or ZeRO-1/2) every GPU holds the whole model, as data-parallel
	 * serving does. Said, since one model over several GPUs is what a
	 * user asking for --gpus N usually means. */
	if (rc == GS_OK && s->gpus > 1 && s->tp <= 1 &&
	    (s->sharding == GS_SH_DDP || s->sharding == GS_SH_ZERO1 || s->sharding == GS_SH_ZERO2) &&
	    out->note[0] == '\0')
		snprintf(out->note, sizeof out->note,
		         "inference on %lld GPUs under %s: each GPU holds a whole copy of the model (data-parallel "
		         "serving); to split one model over them use --tp %lld or --sharding pipeline",
		         (long long)s->gpus, gs_shard_name(s->sharding), (long long)s->gpus);
	return rc;
}

/* ------------------------------------------------------------------ */
/* The seeds' formulas, exactly as their code computes them.            */

static gs_err seed_bpp(gs_prec p, double *bpp, gs_error *e)
{
	switch (p) {
	case GS_P_FP32: case GS_P_AMP_BF16: case GS_P_AMP_FP16: *bpp = 4; break;
	case GS_P_BF16: case GS_P_FP16: case GS_P_MIXED_BF16: case GS_P_MIXED_FP16: *bpp = 2; break;
	case GS_P_FP8: case GS_P_FP8_MIXED: case GS_P_INT8: case GS_P_GPTQ_INT8: *bpp = p == GS_P_FP8_MIXED ? 2 : 1; break;
	case GS_P_NF4: case GS_P_NF4_DQ: case GS_P_NF4_TORCHAO: case GS_P_NF4_LITGPT: case GS_P_NF4_DQ_LITGPT:
	case GS_P_GPTQ_INT4: case GS_P_AWQ_INT4: *bpp = 0.5; break;
	default: return gs_fail(e, GS_EUSAGE, "--formula cookbook: precision %s has no bytes/param in the seed", gs_prec_name(p));
	}
	return GS_OK;
}

static gs_err cookbook(const gs_arch *a, const gs_settings *s, gs_estimate *out, gs_error *e)
{
	double bpp = 0, opt_mult;
	gs_err rc = seed_bpp(gs_settings_precision(s), &bpp, e);

	if (rc != GS_OK)
		return rc;
	switch (s->optimizer) {
	case GS_O_SGD: opt_mult = 0; break;
	case GS_O_SGD_MOMENTUM: opt_mult = 4; break;
	case GS_O_ADAMW: case GS_O_ADAMW_FUSED: case GS_O_PAGED_ADAMW_32BIT: opt_mult = 8; break;
	case GS_O_ADAMW_8BIT: case GS_O_PAGED_ADAMW_8BIT: opt_mult = 2; break;
	case GS_O_LION: opt_mult = 4; break;
	default:
		return gs_fail(e, GS_EUSAGE, "--formula cookbook: the seed has no multiplier for optimizer %s",
		               gs_optim_name(s->optimizer));
	}
	double n = (double)a->params_total;
	double tf = s->trainable_fraction >= 0 ? s->trainable_fraction
	            : s->method == GS_FULL     ? 1.0
	            : s->method == GS_INFER    ? 0.0
	                                       : 0.007;
	double W = n * bpp;
	double G = n * tf * 2;
	double O = n * tf * opt_mult;
	double L = (double)a->layers;
	double A = (double)s->batch * (double)s->seq * L * (double)a->hidden * 2 * 10;
	if (s->grad_ckpt)
		A = A / sqrt(L) * 2.5;
	double B = 3.0 * 1024 * 1024 * 1024;
	out->W = u64(W);
	out->G = u64(G);
	out->O = u64(O);
	out->A = u64(A);
	out->B = u64(B);
	out->device = out->reserved = out->allocated = u64(W + G + O + A + B);
	out->params_trainable = u64(n * tf);
	out->recipe = "cookbook (the article \"The Anatomy of GPU Memory Budgeting: W + G + O + A + B\", estimate_budget): W=n*bpp, G=n*f*2, O=n*f*opt_mult, A=b*s*L*h*2*10 (/sqrt(L)*2.5 with checkpointing), B=3 GiB";
	out->bpp_W = bpp;
	out->bpp_G = tf > 0 ? 2 : 0;
	out->bpp_O = tf > 0 ? opt_mult : 0;
	return GS_OK;
}

/* seeds/003 step 3's optimizer multiplier: the article's example is 12 for
 * Adam ("12 times the weights"); others scale by their state bytes. */
static double rot_multiplier(gs_optim o)
{
	switch (o) {
	case GS_O_SGD: case GS_O_ADAFACTOR: return 0;
	case GS_O_SGD_MOMENTUM: case GS_O_LION: return 6;
	case GS_O_ADAMW_8BIT: case GS_O_PAGED_ADAMW_8BIT: return 3;
	default: return 12;
	}
}

/* The two rules of seeds/003 size training that updates every parameter
 * (weights, gradients and optimizer states for all of them): a full
 * fine-tune. For an adapter method or inference they would count states
 * that do not exist, so they do not apply. */
static gs_err full_only(const gs_settings *s, gs_error *e)
{
	if (s->method == GS_FULL)
		return GS_OK;
	return gs_fail(e, GS_EUSAGE, "--formula %s sizes a full fine-tune (every parameter trained, with "
	               "its optimizer states): it does not apply to --method %s",
	               gs_formula_name(s->formula), gs_method_name(s->method));
}

static gs_err rule_of_thumb(const gs_arch *a, const gs_settings *s, gs_estimate *out)
{
	double n = (double)a->params_total, m = rot_multiplier(s->optimizer);
	gs_prec p = gs_settings_precision(s);
	double bpe = p == GS_P_FP32 ? 4 : 2; /* "mixed precision: bytes_per_element 2" */
	double model_gb = n * 4 / 1e9 * (1 + m);
	double act_gb = (double)s->batch * (double)s->seq * (double)a->hidden * (double)a->layers * bpe * 4 / 1e9;
	double total_gb = (model_gb + act_gb) * 1.2;
	out->W = u64(n * 4);
	out->O = u64(n * 4 * m);
	out->A = u64(act_gb * 1e9);
	out->B = u64((model_gb + act_gb) * 0.2 * 1e9);
	out->device = out->reserved = out->allocated = u64(total_gb * 1e9);
	out->params_trainable = u64(n);
	out->recipe = "rule-of-thumb (the article \"AI Modeli için GPU RAM Hesaplama\", step 3): GB = params*4/1e9*(1+m) + b*s*h*L*bpe*4/1e9, plus a 20% buffer";
	out->bpp_W = 4;
	out->bpp_O = 4 * m;
	return GS_OK;
}

static gs_err zero1_rule(const gs_arch *a, const gs_settings *s, gs_estimate *out)
{
	double n = (double)a->params_total;
	double gb = n * 2 / 1e9 * 18 + (double)s->batch * (double)s->seq * (double)a->hidden * (double)a->layers * 2 * 4 / 1e9;
	out->W = u64(n * 2 * 18);
	out->A = u64(gb * 1e9 - n * 2 * 18);
	out->device = out->reserved = out->allocated = u64(gb * 1e9);
	out->params_trainable = u64(n);
	out->recipe = "zero1-rule (the article \"AI Modeli için GPU RAM Hesaplama\", calc_vram): GB = params*2/1e9*18 + b*s*h*L*2*4/1e9 (model states in W)";
	out->bpp_W = 36;
	return GS_OK;
}

const char *gs_phase_name(gs_phase p)
{
	static const char *const names[] = {"load", "forward", "loss", "backward", "optimizer", "prefill", "decode"};
	return (unsigned)p < GS_PH_MAX ? names[p] : "?";
}

gs_err gs_estimate_run(const gs_arch *a, const gs_settings *s, gs_estimate *out, gs_error *e)
{
	gs_err rc = gs_settings_check(s, e);

	memset(out, 0, sizeof *out);
	if (rc != GS_OK)
		return rc;
	if (a->params_total == 0 || a->n_kinds < 1)
		return gs_fail(e, GS_ECONFIG, "%s: model has no layers (not tallied?)", a->source[0] ? a->source : "model");
	if (s->tp > 1 && (a->heads % s->tp != 0 || a->kv_heads % s->tp != 0))
		return gs_fail(e, GS_EUSAGE, "--tp %lld must divide the attention heads (%lld) and key/value heads (%lld)",
		               (long long)s->tp, (long long)a->heads, (long long)a->kv_heads);
	if ((s->method == GS_LORA || s->method == GS_QLORA) && s->formula == GS_F_DETAILED) {
		int hits = 0;
		char names[256] = "";
		for (int i = 0; i < a->n_kinds; i++)
			for (int j = 0; j < a->kind[i].n_lin; j++) {
				const gs_linear *l = &a->kind[i].lin[j];
				hits += lora_targeted(s->lora_targets, l);
				if (!strstr(names, l->name) && strlen(names) + strlen(l->name) + 2 < sizeof names) {
					if (names[0])
						strcat(names, ",");
					strcat(names, l->name);
				}
			}
		if (hits == 0)
			return gs_fail(e, GS_EUSAGE, "--lora-targets %s matches no module of this %s model (its linear modules: %s)",
			               s->lora_targets, a->model_type, names);
	}
	if (s->pp > 1 && s->pp * (s->vpp > 1 ? s->vpp : 1) > a->layers)
		return gs_fail(e, GS_EUSAGE, "--pp %lld x --vpp %lld: this %s model has %lld layers, fewer than the chunks",
		               (long long)s->pp, (long long)(s->vpp > 1 ? s->vpp : 1), a->model_type, (long long)a->layers);
	if (s->ep > 1) {
		int64_t routed = 0;
		for (int i = 0; i < a->n_kinds; i++)
			if (a->kind[i].n_experts > 0) {
				routed = a->kind[i].n_experts;
				if (routed % s->ep != 0)
					return gs_fail(e, GS_EUSAGE, "--ep %lld must divide the %lld routed experts of this %s model",
					               (long long)s->ep, (long long)routed, a->model_type);
			}
		if (routed == 0)
			return gs_fail(e, GS_EUSAGE, "--ep %lld: this %s model has no routed experts to split", (long long)s->ep,
			               a->model_type);
	}
	out->formula = s->formula;
	out->gpus = s->gpus;
	out->params_total = a->params_total;
	out->params_active = a->params_active;
	out->peak_step = 1;
	switch (s->formula) {
	case GS_F_COOKBOOK: rc = cookbook(a, s, out, e); break;
	case GS_F_RULE_OF_THUMB:
		rc = full_only(s, e);
		if (rc == GS_OK)
			rc = rule_of_thumb(a, s, out);
		break;
	case GS_F_ZERO1_RULE:
		rc = full_only(s, e);
		if (rc == GS_OK)
			rc = zero1_rule(a, s, out);
		break;
	default:
		rc = detailed(a, s, out, e);
	}
	if (rc != GS_OK)
		return rc;
	rc = implausible(a, s, out, e);
	if (rc != GS_OK) {
		gs_formula f = out->formula;
		memset(out, 0, sizeof *out); /* nothing absurd left for a caller to print */
		out->formula = f;
	}
	return rc;
}
