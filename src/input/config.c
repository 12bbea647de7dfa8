/* gpusizer: Hugging Face config.json (cJSON) -> gs_arch, one builder per
 * model family, then the exact tally (arch.c). */
#include "config.h"
#include "jsoncheck.h"
#include "jsonget.h"

#include <cJSON.h>
#include <ctype.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "util.h"

/* Integers above 2^53 are not exact in JSON doubles: refused as fields. */
#define CFG_INT_MAX ((int64_t)1 << 53)
/* Products (shapes, counts) stay at or below 2^62 (arch.h contract). */
#define CFG_PROD_MAX ((int64_t)1 << 62)

/* Reading state. Errors are sticky: the first one fills e and rc, and
 * every later read returns a harmless default, so builders read a batch of
 * fields and test c->rc once. */
typedef struct cfg {
	const char *path;   /* for messages (borrowed) */
	const cJSON *root;  /* top-level object */
	const cJSON *obj;   /* object the model fields are read from */
	const char *pfx;    /* "" or "text_config." in field names */
	gs_arch *a;
	gs_error *e;
	gs_err rc;
	/* The first field over its plausibility bound (config.h), if any. */
	const char *big_key, *big_pfx;
	int64_t big_v, big_max;
} cfg;

/* ---- messages ---- */

/* The jsonget.h reader over c's messages and error; callers hand its rc
 * back to c->rc. */
static gs_jget reader(const cfg *c)
{
	gs_jget g = { c->path, c->pfx, GS_ECONFIG, c->e, c->rc };

	return g;
}

/* "<path>: field \"<pfx><key>\": <detail>" (first error wins). */
static gs_err field_fail(cfg *c, gs_err code, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static gs_err field_fail(cfg *c, gs_err code, const char *key, const char *fmt, ...)
{
	gs_jget g = reader(c);
	va_list ap;

	va_start(ap, fmt);
	gs_jget_vfail(&g, code, key, fmt, ap);
	va_end(ap);
	return c->rc = g.rc;
}

/* Append "; text" to the arch's warning (truncated to fit). */
static void note(cfg *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(cfg *c, const char *fmt, ...)
{
	char *w = c->a->warning;
	size_t n = strlen(w), cap = sizeof c->a->warning;
	va_list ap;

	if (n + 3 >= cap)
		return;
	if (n > 0) {
		w[n++] = ';';
		w[n++] = ' ';
		w[n] = '\0';
	}
	va_start(ap, fmt);
	vsnprintf(w + n, cap - n, fmt, ap);
	va_end(ap);
}

/* ---- field readers (jsonget.h; null counts as absent) ---- */

static bool has(cfg *c, const char *key)
{
	return gs_jget_item(c->obj, key) != NULL;
}

/* The plausibility bound of a shape field (config.h), else CFG_INT_MAX. */
static int64_t bound_of(const char *key)
{
	static const struct {
		const char *key;
		int64_t max;
	} bounds[] = {
		{ "hidden_size", GS_CFG_MAX_HIDDEN },
		{ "n_embd", GS_CFG_MAX_HIDDEN },
		{ "n_embed", GS_CFG_MAX_HIDDEN },
		{ "dim", GS_CFG_MAX_HIDDEN },
		{ "num_hidden_layers", GS_CFG_MAX_LAYERS },
		{ "n_layer", GS_CFG_MAX_LAYERS },
		{ "n_layers", GS_CFG_MAX_LAYERS },
		{ "num_attention_heads", GS_CFG_MAX_HEADS },
		{ "n_head", GS_CFG_MAX_HEADS },
		{ "n_heads", GS_CFG_MAX_HEADS },
		{ "num_key_value_heads", GS_CFG_MAX_HEADS },
		{ "intermediate_size", GS_CFG_MAX_INTERMEDIATE },
		{ "n_inner", GS_CFG_MAX_INTERMEDIATE },
		{ "ffn_hidden_size", GS_CFG_MAX_INTERMEDIATE },
		{ "hidden_dim", GS_CFG_MAX_INTERMEDIATE },
		{ "moe_intermediate_size", GS_CFG_MAX_INTERMEDIATE },
		{ "shared_expert_intermediate_size", GS_CFG_MAX_INTERMEDIATE },
		{ "vocab_size", GS_CFG_MAX_VOCAB },
		{ "num_experts", GS_CFG_MAX_EXPERTS },
		{ "num_local_experts", GS_CFG_MAX_EXPERTS },
		{ "n_routed_experts", GS_CFG_MAX_EXPERTS },
		{ "n_shared_experts", GS_CFG_MAX_EXPERTS },
		{ "num_experts_per_tok", GS_CFG_MAX_EXPERTS },
	};

	for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++)
		if (strcmp(bounds[i].key, key) == 0)
			return bounds[i].max;
	return CFG_INT_MAX;
}

/* Integer field >= min, at most its plausibility bound. Absent or null:
 * def, or an error when required. */
static int64_t get_int(cfg *c, const char *key, int64_t min, int64_t def, bool required)
{
	gs_jget g = reader(c);
	int64_t v = gs_jget_int(&g, c->obj, key, min, CFG_INT_MAX, def, required);
	int64_t max = bound_of(key);

	c->rc = g.rc;
	if (c->rc == GS_OK && v > max && c->big_key == NULL) {
		/* Reported after the build and the tally (implausible_field),
		 * so that sizes which overflow are named as such first. */
		c->big_key = key;
		c->big_pfx = c->pfx;
		c->big_v = v;
		c->big_max = max;
	}
	return v;
}

/* The first field above its plausibility bound, if the build and the
 * tally found nothing worse. */
static void implausible_field(cfg *c)
{
	if (c->rc != GS_OK || c->big_key == NULL)
		return;
	c->pfx = c->big_pfx;
	field_fail(c, GS_ECONFIG, c->big_key,
	           "too large: %" PRId64 " is implausible (at most %" PRId64
	           ", far above any released model)",
	           c->big_v, c->big_max);
}

/* First present key of a NULL-terminated alias list (GPT-2 n_embd /
 * hidden_size ...); messages name the key found, or keys[0] if none. */
static int64_t get_int_alias(cfg *c, const char *const *keys, int64_t min, int64_t def,
                             bool required)
{
	for (int i = 0; keys[i] != NULL; i++) {
		if (cJSON_GetObjectItemCaseSensitive(c->obj, keys[i]) != NULL &&
		    (gs_jget_item(c->obj, keys[i]) != NULL || keys[i + 1] == NULL))
			return get_int(c, keys[i], min, def, required);
	}
	return get_int(c, keys[0], min, def, required);
}

static bool get_bool(cfg *c, const char *key, bool def)
{
	gs_jget g = reader(c);
	bool v = gs_jget_bool(&g, c->obj, key, def, false);

	c->rc = g.rc;
	return v;
}

/* Optional string; NULL when absent. The pointer lives as long as the tree. */
static const char *get_str(cfg *c, const char *key)
{
	gs_jget g = reader(c);
	const char *v = gs_jget_str(&g, c->obj, key, false);

	c->rc = g.rc;
	return v;
}

/* An optional number in [lo, hi] (what names it); def when absent. */
static double get_num(cfg *c, const char *key, double lo, double hi, const char *what, double def)
{
	gs_jget g = reader(c);
	double v = gs_jget_num(&g, c->obj, key, lo, hi, what, def, false);

	c->rc = g.rc;
	return v;
}

/* Dropout probability: max over the declared keys (each in [0, 1]). */
static double get_dropout(cfg *c)
{
	static const char *const keys[] = {
		"attention_dropout", "hidden_dropout",  "attention_probs_dropout_prob",
		"hidden_dropout_prob", "resid_pdrop",   "embd_pdrop",
		"attn_pdrop",        "dropout",         "activation_dropout",
		"residual_dropout",  "embedding_dropout",
		NULL,
	};
	double mx = 0;

	for (int i = 0; keys[i] != NULL && c->rc == GS_OK; i++) {
		double v = get_num(c, keys[i], 0, 1, "a probability between 0 and 1", 0);
		if (c->rc != GS_OK)
			return 0;
		if (v > mx)
			mx = v;
	}
	return mx;
}

/* Optional positive number (soft-capping thresholds); 0 when absent or null. */
static double get_positive(cfg *c, const char *key)
{
	return get_num(c, key, DBL_TRUE_MIN, DBL_MAX, "a positive number or null", 0);
}

/* ---- checked arithmetic naming the field that made it too large ---- */

static int64_t mul(cfg *c, int64_t x, int64_t y, const char *key)
{
	int64_t r;

	if (c->rc != GS_OK)
		return 1;
	if (x < 0 || y < 0 || __builtin_mul_overflow(x, y, &r) || r > CFG_PROD_MAX) {
		field_fail(c, GS_EOVERFLOW, key, "too large: sizes derived from it overflow 64-bit arithmetic");
		return 1;
	}
	return r;
}

static int64_t add(cfg *c, int64_t x, int64_t y, const char *key)
{
	int64_t r;

	if (c->rc != GS_OK)
		return 1;
	if (x < 0 || y < 0 || __builtin_add_overflow(x, y, &r) || r > CFG_PROD_MAX) {
		field_fail(c, GS_EOVERFLOW, key, "too large: sizes derived from it overflow 64-bit arithmetic");
		return 1;
	}
	return r;
}

/* ---- building layers ---- */

/* Every module name the builders use fits gs_linear.name (arch.h: 40
 * bytes); the longest is "shared_experts.gate_proj" (DeepSeek). */
_Static_assert(sizeof(((gs_linear *)0)->name) >= sizeof "shared_experts.down_proj",
               "gs_linear.name must hold the full DeepSeek shared-expert names");

static void set_name(gs_linear *l, const char *full)
{
	if (strlen(full) >= sizeof l->name)
		abort(); /* the builders below only use names that fit */
	snprintf(l->name, sizeof l->name, "%s", full);
}

static gs_linear *lin(gs_layer_kind *k, const char *name, gs_role role, int64_t in, int64_t out,
                      bool bias)
{
	gs_linear *l;

	if (k->n_lin >= GS_MAX_LIN)
		abort(); /* the builders below never add more than GS_MAX_LIN */
	l = &k->lin[k->n_lin++];
	memset(l, 0, sizeof *l);
	set_name(l, name);
	l->role = role;
	l->in = in;
	l->out = out;
	l->count = l->active = 1;
	l->bias = bias;
	return l;
}

/* Routed experts: `n` instances, `top` of them per token. */
static void as_experts(gs_linear *l, int64_t n, int64_t top)
{
	l->count = n;
	l->active = top;
	l->expert = true;
}

/* Decoder dimensions most families share. */
typedef struct dims {
	int64_t H, L, nh, nkv, hd, I, V;
} dims;

/* q/k/v/o projections of a LLaMA-style attention block. */
static void add_attn(cfg *c, gs_layer_kind *k, const dims *d, bool qkv_bias, bool o_bias)
{
	int64_t q = mul(c, d->nh, d->hd, "head_dim"), kv = mul(c, d->nkv, d->hd, "head_dim");

	lin(k, "q_proj", GS_ROLE_Q, d->H, q, qkv_bias);
	lin(k, "k_proj", GS_ROLE_K, d->H, kv, qkv_bias);
	lin(k, "v_proj", GS_ROLE_V, d->H, kv, qkv_bias);
	lin(k, "o_proj", GS_ROLE_O, q, d->H, o_bias);
}

/* Gated MLP gate/up/down with the given names (prefix "" or e.g.
 * "shared_expert."). Returns the first of the three. */
static gs_linear *add_gated(gs_layer_kind *k, const char *pfx, int64_t H, int64_t I, bool bias)
{
	char n1[48], n2[48], n3[48];
	gs_linear *first;

	snprintf(n1, sizeof n1, "%sgate_proj", pfx);
	snprintf(n2, sizeof n2, "%sup_proj", pfx);
	snprintf(n3, sizeof n3, "%sdown_proj", pfx);
	first = lin(k, n1, GS_ROLE_GATE, H, I, bias);
	lin(k, n2, GS_ROLE_UP, H, I, bias);
	lin(k, n3, GS_ROLE_DOWN, I, H, bias);
	return first;
}

static void experts3(gs_layer_kind *k, gs_linear *first, int64_t n, int64_t top)
{
	for (gs_linear *l = first; l < k->lin + k->n_lin; l++)
		as_experts(l, n, top);
}

/* Read H, L, heads, kv heads, head_dim, intermediate, vocab for a
 * LLaMA-style decoder. hd_default: head_dim when absent (0: H/heads). */
/* The key/value heads (the field key) must divide the attention heads:
 * false, with the field named, when they do not. */
static bool kv_divides(cfg *c, const dims *d, const char *key)
{
	if (d->nkv >= 1 && d->nkv <= d->nh && d->nh % d->nkv == 0)
		return true;
	field_fail(c, GS_ECONFIG, key, "must divide num_attention_heads (got %" PRId64 " for %" PRId64 " heads)",
	           d->nkv, d->nh);
	return false;
}

static void read_dims(cfg *c, dims *d, int64_t hd_default, bool need_inter)
{
	d->H = get_int(c, "hidden_size", 1, 0, true);
	d->L = get_int(c, "num_hidden_layers", 1, 0, true);
	d->nh = get_int(c, "num_attention_heads", 1, 0, true);
	d->nkv = get_int(c, "num_key_value_heads", 1, d->nh, false);
	d->I = get_int(c, "intermediate_size", 1, 0, need_inter);
	d->V = get_int(c, "vocab_size", 1, 0, true);
	d->hd = get_int(c, "head_dim", 1, 0, false);
	if (c->rc != GS_OK)
		return;
	if (d->hd == 0 && hd_default > 0)
		d->hd = hd_default;
	if (d->hd == 0) {
		if (d->H % d->nh != 0) {
			field_fail(c, GS_ECONFIG, "num_attention_heads",
			           "must divide hidden_size when head_dim is absent (got %" PRId64
			           " heads for hidden_size %" PRId64 ")",
			           d->nh, d->H);
			return;
		}
		d->hd = d->H / d->nh;
	}
	kv_divides(c, d, "num_key_value_heads");
}

/* Scalars every family sets from dims; embeddings and the untied head. */
static void set_common(cfg *c, const dims *d, bool tied)
{
	gs_arch *a = c->a;

	a->hidden = d->H;
	a->layers = d->L;
	a->heads = d->nh;
	a->kv_heads = d->nkv;
	a->head_dim = a->v_head_dim = d->hd;
	a->intermediate = d->I;
	a->vocab = d->V;
	a->kv_cache_dim = mul(c, mul(c, 2, d->nkv, "num_key_value_heads"), d->hd, "head_dim");
	a->tied = tied;
	a->p_embed = mul(c, d->V, d->H, "vocab_size");
	a->p_head = tied ? 0 : a->p_embed;
	a->max_pos = get_int(c, "max_position_embeddings", 1, 0, false);
	a->dropout = get_dropout(c);
}

/* ---- families ---- */

typedef enum llama_kind {
	LK_LLAMA, LK_MISTRAL, LK_QWEN2, LK_QWEN3, LK_GEMMA, LK_GEMMA2, LK_GEMMA3, LK_PHI3, LK_OLMO,
	LK_OLMO2, LK_QWEN1, LK_GENERIC
} llama_kind;

/* Sliding window when every layer uses it; 0 otherwise. */
static int64_t sliding(cfg *c, llama_kind lk, int64_t layers)
{
	int64_t w = get_int(c, "sliding_window", 1, 0, false), mwl;

	if (c->rc != GS_OK || w == 0)
		return 0;
	switch (lk) {
	case LK_MISTRAL:
	case LK_PHI3:
		return w;
	case LK_QWEN2:
	case LK_QWEN3:
		if (!get_bool(c, "use_sliding_window", false))
			return 0;
		/* Layers from max_window_layers on use the window. */
		mwl = get_int(c, "max_window_layers", 0, 28, false);
		if (mwl == 0)
			return w;
		if (mwl < layers)
			note(c, "sliding window on some layers only: KV cache sized as full attention");
		return 0;
	default:
		return 0; /* Gemma 2/3 alternate local and global layers */
	}
}

/* Gemma 3 text configs often leave fields at Gemma3TextConfig defaults. */
static void gemma3_defaults(cfg *c)
{
	static const struct {
		const char *key;
		int64_t def;
	} defs[] = {
		{ "num_attention_heads", 8 }, { "num_key_value_heads", 4 },
		{ "head_dim", 256 },          { "vocab_size", 262208 },
	};
	char list[160] = "";
	size_t n = 0;

	for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++) {
		if (!has(c, defs[i].key) && n < sizeof list)
			n += (size_t)snprintf(list + n, sizeof list - n, "%s%s %" PRId64, n ? ", " : "",
			                      defs[i].key, defs[i].def);
	}
	if (n > 0)
		note(c, "Gemma3TextConfig defaults used for absent %s", list);
}

static int64_t gemma3_get(cfg *c, const char *key, int64_t def)
{
	return get_int(c, key, 1, def, false);
}

static void fam_llama(cfg *c, llama_kind lk)
{
	gs_arch *a = c->a;
	gs_layer_kind *k = &a->kind[0];
	dims d;
	bool qkv_bias = false, o_bias = false, mlp_bias = false, tied;
	int64_t norms = 2, hd_def = 0;

	if (lk == LK_QWEN3)
		hd_def = 128; /* Qwen3Config default */
	if (lk == LK_GEMMA || lk == LK_GEMMA2 || lk == LK_GEMMA3)
		hd_def = 256;
	if (lk == LK_GEMMA3) {
		gemma3_defaults(c);
		d.H = get_int(c, "hidden_size", 1, 0, true);
		d.L = get_int(c, "num_hidden_layers", 1, 0, true);
		d.nh = gemma3_get(c, "num_attention_heads", 8);
		d.nkv = gemma3_get(c, "num_key_value_heads", 4);
		d.hd = gemma3_get(c, "head_dim", 256);
		d.I = get_int(c, "intermediate_size", 1, 0, true);
		d.V = gemma3_get(c, "vocab_size", 262208);
		if (c->rc == GS_OK)
			kv_divides(c, &d, "num_key_value_heads");
	} else {
		read_dims(c, &d, hd_def, true);
	}
	if (lk == LK_QWEN1 && c->rc == GS_OK) {
		/* Qwen v1's remote code (modeling_qwen.py, QWenAttention and
		 * QWenMLP): heads of kv_channels, and w1 and w2 each
		 * intermediate_size / 2 wide. */
		d.hd = get_int(c, "kv_channels", 1, d.hd, false);
		if (c->rc == GS_OK && d.I % 2 != 0)
			field_fail(c, GS_ECONFIG, "intermediate_size",
			           "must be even: Qwen v1's w1 and w2 are half of it each (got %" PRId64 ")", d.I);
		d.I /= 2;
	}
	switch (lk) {
	case LK_LLAMA:
	case LK_GENERIC:
		qkv_bias = o_bias = get_bool(c, "attention_bias", false);
		mlp_bias = get_bool(c, "mlp_bias", false);
		break;
	case LK_QWEN2:
		qkv_bias = true;
		break;
	case LK_QWEN1: /* c_attn always has a bias; c_proj, w1, w2 and the MLP's c_proj not when no_bias */
		qkv_bias = true;
		o_bias = mlp_bias = !get_bool(c, "no_bias", true);
		break;
	case LK_QWEN3:
	case LK_GEMMA:
	case LK_GEMMA2:
	case LK_GEMMA3:
	case LK_OLMO:  /* OlmoAttention = LlamaAttention: q/k/v/o bias */
	case LK_OLMO2:
		qkv_bias = o_bias = get_bool(c, "attention_bias", false);
		break;
	default:
		break;
	}
	tied = get_bool(c, "tie_word_embeddings",
	                lk == LK_GEMMA || lk == LK_GEMMA2 || lk == LK_GEMMA3);
	if (c->rc != GS_OK)
		return;
	set_common(c, &d, tied);
	a->act = GS_ACT_GATED;
	a->norm = GS_NORM_RMS;
	a->rotary = true;
	a->sliding_window = sliding(c, lk, d.L);
	a->n_kinds = 1;
	k->n_layers = d.L;
	if (lk == LK_QWEN1) {
		int64_t q = mul(c, d.nh, d.hd, "kv_channels");
		lin(k, "c_attn", GS_ROLE_QKV, d.H, mul(c, 3, q, "kv_channels"), qkv_bias);
		lin(k, "attn.c_proj", GS_ROLE_O, q, d.H, o_bias);
		lin(k, "w2", GS_ROLE_GATE, d.H, d.I, mlp_bias);
		lin(k, "w1", GS_ROLE_UP, d.H, d.I, mlp_bias);
		lin(k, "mlp.c_proj", GS_ROLE_DOWN, d.I, d.H, mlp_bias);
		if (a->max_pos == 0) /* older files give the context as seq_length only */
			a->max_pos = get_int(c, "seq_length", 1, 0, false);
	} else if (lk == LK_PHI3) {
		int64_t q = mul(c, d.nh, d.hd, "head_dim");
		int64_t qkv = add(c, q, mul(c, mul(c, 2, d.nkv, "num_key_value_heads"), d.hd, "head_dim"),
		                  "head_dim");
		lin(k, "qkv_proj", GS_ROLE_QKV, d.H, qkv, false);
		lin(k, "o_proj", GS_ROLE_O, q, d.H, false);
		lin(k, "gate_up_proj", GS_ROLE_GATE_UP, d.H, mul(c, 2, d.I, "intermediate_size"), false);
		lin(k, "down_proj", GS_ROLE_DOWN, d.I, d.H, false);
	} else {
		add_attn(c, k, &d, qkv_bias, o_bias);
		add_gated(k, "", d.H, d.I, mlp_bias);
	}
	if (lk == LK_GEMMA2 || lk == LK_GEMMA3) {
		norms = 4; /* input, post_attention, pre_ and post_feedforward */
		a->layer_norms = 4;
		/* tanh soft-capping of scores and logits (Gemma 2; null in Gemma 3) */
		a->attn_softcap = get_positive(c, "attn_logit_softcapping");
		a->final_softcap = get_positive(c, "final_logit_softcapping");
	}
	if (lk == LK_OLMO)
		norms = 0; /* OlmoLayerNorm: no weight, no bias */
	k->other_params = mul(c, norms, d.H, "hidden_size");
	a->qk_norm = lk == LK_QWEN3 || lk == LK_GEMMA3 || lk == LK_OLMO2;
	if (lk == LK_QWEN3 || lk == LK_GEMMA3) /* q_norm, k_norm */
		k->other_params = add(c, k->other_params, mul(c, 2, d.hd, "head_dim"), "head_dim");
	if (lk == LK_OLMO2) /* q_norm over all query heads, k_norm over the kv heads */
		k->other_params = add(c, k->other_params,
		                      mul(c, add(c, d.nh, d.nkv, "num_key_value_heads"), d.hd, "head_dim"),
		                      "head_dim");
	k->mlp_inner = d.I;
	a->p_final = lk == LK_OLMO ? 0 : d.H;
	if (lk == LK_OLMO)
		a->norm = GS_NORM_LAYER; /* non-parametric LayerNorm */
	if (lk == LK_GENERIC) {
		note(c,
		     "unknown model_type \"%s\": sized as a generic LLaMA-style decoder (q/k/v/o "
		     "attention, gated MLP gate/up/down, RMSNorm, rotary, %s head)",
		     a->model_type, tied ? "tied" : "untied");
	}
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

/* Mixture-of-experts layers of Mixtral, Qwen2-MoE and Qwen3-MoE. */
static void fam_moe(cfg *c, const char *type)
{
	gs_arch *a = c->a;
	bool mixtral = strcmp(type, "mixtral") == 0, qwen2 = strcmp(type, "qwen2_moe") == 0;
	dims d;
	int64_t E, top, moeI, shI = 0, step = 1, n_moe, n_dense, hd_def = 0;
	bool qkv_bias = false, o_bias = false, tied, need_dense;
	const cJSON *only = NULL;

	if (strcmp(type, "qwen3_moe") == 0)
		hd_def = 128;
	read_dims(c, &d, hd_def, mixtral);
	E = get_int(c, mixtral ? "num_local_experts" : "num_experts", 1, 0, true);
	top = get_int(c, "num_experts_per_tok", 1, 0, true);
	if (c->rc == GS_OK && top > E)
		field_fail(c, GS_ECONFIG, "num_experts_per_tok",
		           "must not exceed the %" PRId64 " experts (got %" PRId64 ")", E, top);
	moeI = mixtral ? d.I : get_int(c, "moe_intermediate_size", 1, 0, true);
	if (qwen2) {
		shI = get_int(c, "shared_expert_intermediate_size", 0, 0, true);
		qkv_bias = get_bool(c, "qkv_bias", true);
	} else if (!mixtral) {
		qkv_bias = o_bias = get_bool(c, "attention_bias", false);
	}
	tied = get_bool(c, "tie_word_embeddings", false);
	n_moe = d.L;
	if (!mixtral && c->rc == GS_OK) {
		/* Qwen: layer i is MoE when (i+1) % decoder_sparse_step == 0 and i
		 * is not in mlp_only_layers. */
		step = get_int(c, "decoder_sparse_step", 1, 1, false);
		n_moe = d.L / step;
		only = gs_jget_item(c->obj, "mlp_only_layers");
		if (c->rc == GS_OK && only != NULL) {
			int64_t *idx, m = 0;

			if (!cJSON_IsArray(only)) {
				char got[64];
				gs_json_describe(only, got, sizeof got);
				field_fail(c, GS_ECONFIG, "mlp_only_layers",
				           "must be an array of layer indices (got %s)", got);
				return;
			}
			idx = gs_xcalloc((size_t)cJSON_GetArraySize(only) + 1, sizeof *idx);
			for (const cJSON *v = only->child; v != NULL; v = v->next) {
				double x = cJSON_IsNumber(v) ? v->valuedouble : -1;

				if (!isfinite(x) || x != floor(x) || x < 0 || x >= (double)d.L) {
					char got[64];
					gs_json_describe(v, got, sizeof got);
					field_fail(c, GS_ECONFIG, "mlp_only_layers",
					           "entries must be layer indices from 0 to %" PRId64 " (got %s)",
					           d.L - 1, got);
					free(idx);
					return;
				}
				idx[m++] = (int64_t)x;
			}
			/* Distinct entries that would otherwise be MoE layers become dense. */
			qsort(idx, (size_t)m, sizeof *idx, cmp_i64);
			for (int64_t i = 0; i < m; i++) {
				if ((i == 0 || idx[i] != idx[i - 1]) && (idx[i] + 1) % step == 0)
					n_moe--;
			}
			free(idx);
		}
	}
	n_dense = d.L - n_moe;
	need_dense = n_dense > 0;
	if (c->rc == GS_OK && need_dense && d.I == 0)
		get_int(c, "intermediate_size", 1, 0, true); /* fails: dense layers need it */
	if (c->rc != GS_OK)
		return;
	set_common(c, &d, tied);
	a->intermediate = d.I ? d.I : moeI;
	a->act = GS_ACT_GATED;
	a->norm = GS_NORM_RMS;
	a->rotary = true;
	a->sliding_window = mixtral ? get_int(c, "sliding_window", 1, 0, false)
	                            : sliding(c, qwen2 ? LK_QWEN2 : LK_QWEN3, d.L);
	a->p_final = d.H;
	a->n_kinds = 0;
	if (need_dense) {
		gs_layer_kind *k = &a->kind[a->n_kinds++];
		k->n_layers = n_dense;
		add_attn(c, k, &d, qkv_bias, o_bias);
		add_gated(k, "", d.H, d.I, false);
		k->mlp_inner = d.I;
	}
	if (n_moe > 0) {
		gs_layer_kind *k = &a->kind[a->n_kinds++];
		gs_linear *first;

		k->n_layers = n_moe;
		add_attn(c, k, &d, qkv_bias, o_bias);
		if (mixtral) {
			lin(k, "gate", GS_ROLE_ROUTER, d.H, E, false);
			first = lin(k, "w1", GS_ROLE_GATE, d.H, moeI, false);
			lin(k, "w3", GS_ROLE_UP, d.H, moeI, false);
			lin(k, "w2", GS_ROLE_DOWN, moeI, d.H, false);
		} else {
			lin(k, "gate", GS_ROLE_ROUTER, d.H, E, false);
			first = add_gated(k, "", d.H, moeI, false);
		}
		experts3(k, first, E, top);
		k->mlp_inner = mul(c, top, moeI, "num_experts_per_tok");
		if (qwen2 && shI > 0) {
			add_gated(k, "shared_expert.", d.H, shI, false);
			lin(k, "shared_expert_gate", GS_ROLE_ROUTER, d.H, 1, false);
			k->mlp_inner = add(c, k->mlp_inner, shI, "shared_expert_intermediate_size");
		}
		k->n_experts = E;
		k->experts_per_tok = top;
	}
	a->qk_norm = strcmp(type, "qwen3_moe") == 0;
	for (int i = 0; i < a->n_kinds; i++) {
		a->kind[i].other_params = mul(c, 2, d.H, "hidden_size");
		if (strcmp(type, "qwen3_moe") == 0) /* q_norm, k_norm */
			a->kind[i].other_params =
				add(c, a->kind[i].other_params, mul(c, 2, d.hd, "head_dim"), "head_dim");
	}
}

/* DeepSeek-V2/V3: multi-head latent attention, dense then MoE layers. */
static void fam_deepseek(cfg *c)
{
	gs_arch *a = c->a;
	dims d;
	int64_t qr, kvr, nope, rope, vhd, E, top = 0, moeI = 0, nsh = 0, firstk, freq, n_moe, n_dense;
	int64_t qhd, norms;
	bool ab, tied;

	d.H = get_int(c, "hidden_size", 1, 0, true);
	d.L = get_int(c, "num_hidden_layers", 1, 0, true);
	d.nh = get_int(c, "num_attention_heads", 1, 0, true);
	d.V = get_int(c, "vocab_size", 1, 0, true);
	d.I = get_int(c, "intermediate_size", 1, 0, true);
	if (cJSON_GetObjectItemCaseSensitive(c->obj, "q_lora_rank") == NULL) {
		qr = 1536; /* DeepseekV2Config / DeepseekV3Config default */
		note(c, "q_lora_rank absent: the config class default 1536 used");
	} else {
		qr = get_int(c, "q_lora_rank", 1, 0, false); /* null: no query compression */
	}
	kvr = get_int(c, "kv_lora_rank", 1, 0, true);
	nope = get_int(c, "qk_nope_head_dim", 1, 0, true);
	rope = get_int(c, "qk_rope_head_dim", 1, 0, true);
	vhd = get_int(c, "v_head_dim", 1, 0, true);
	E = get_int(c, "n_routed_experts", 1, 0, false); /* null: dense model */
	if (E > 0) {
		top = get_int(c, "num_experts_per_tok", 1, 0, true);
		moeI = get_int(c, "moe_intermediate_size", 1, 0, true);
		nsh = get_int(c, "n_shared_experts", 0, 0, false);
		if (c->rc == GS_OK && top > E)
			field_fail(c, GS_ECONFIG, "num_experts_per_tok",
			           "must not exceed the %" PRId64 " routed experts (got %" PRId64 ")", E, top);
	}
	firstk = get_int(c, "first_k_dense_replace", 0, 0, false);
	freq = get_int(c, "moe_layer_freq", 1, 1, false);
	ab = get_bool(c, "attention_bias", false);
	tied = get_bool(c, "tie_word_embeddings", false);
	if (c->rc != GS_OK)
		return;
	/* Layer i is MoE when i >= first_k_dense_replace and i % freq == 0:
	 * multiples of freq in [firstk, L) = ceil(L/f) - ceil(firstk/f). */
	n_moe = 0;
	if (E > 0 && firstk < d.L)
		n_moe = (d.L + freq - 1) / freq - (firstk + freq - 1) / freq;
	n_dense = d.L - n_moe;
	qhd = add(c, nope, rope, "qk_rope_head_dim");
	d.nkv = d.nh;
	d.hd = qhd;
	set_common(c, &d, tied);
	a->v_head_dim = vhd;
	a->kv_cache_dim = add(c, kvr, rope, "kv_lora_rank");
	a->act = GS_ACT_GATED;
	a->norm = GS_NORM_RMS;
	a->rotary = true;
	a->p_final = d.H;
	if (get_int(c, "num_nextn_predict_layers", 0, 0, false) > 0)
		note(c, "multi-token-prediction layers not counted (transformers does not load them)");
	norms = add(c, mul(c, 2, d.H, "hidden_size"), kvr, "kv_lora_rank");
	if (qr > 0)
		norms = add(c, norms, qr, "q_lora_rank");
	a->n_kinds = 0;
	for (int moe = 0; moe < 2; moe++) {
		gs_layer_kind *k;
		int64_t n = moe ? n_moe : n_dense;

		if (n == 0)
			continue;
		k = &a->kind[a->n_kinds++];
		k->n_layers = n;
		if (qr > 0) {
			lin(k, "q_a_proj", GS_ROLE_ATTN_OTHER, d.H, qr, ab);
			lin(k, "q_b_proj", GS_ROLE_Q, qr, mul(c, d.nh, qhd, "num_attention_heads"), false);
		} else {
			lin(k, "q_proj", GS_ROLE_Q, d.H, mul(c, d.nh, qhd, "num_attention_heads"), false);
		}
		lin(k, "kv_a_proj_with_mqa", GS_ROLE_ATTN_OTHER, d.H, add(c, kvr, rope, "kv_lora_rank"), ab);
		lin(k, "kv_b_proj", GS_ROLE_ATTN_OTHER, kvr,
		    mul(c, d.nh, add(c, nope, vhd, "v_head_dim"), "num_attention_heads"), false);
		lin(k, "o_proj", GS_ROLE_O, mul(c, d.nh, vhd, "v_head_dim"), d.H, ab);
		k->other_params = norms;
		if (!moe) {
			add_gated(k, "", d.H, d.I, false);
			k->mlp_inner = d.I;
			continue;
		}
		lin(k, "gate", GS_ROLE_ROUTER, d.H, E, false);
		experts3(k, add_gated(k, "", d.H, moeI, false), E, top);
		k->mlp_inner = mul(c, top, moeI, "num_experts_per_tok");
		if (nsh > 0) {
			int64_t shI = mul(c, nsh, moeI, "n_shared_experts");
			add_gated(k, "shared_experts.", d.H, shI, false);
			k->mlp_inner = add(c, k->mlp_inner, shI, "n_shared_experts");
		}
		k->n_experts = E;
		k->experts_per_tok = top;
	}
}

static const char *const K_HIDDEN[] = { "n_embd", "hidden_size", NULL };
static const char *const K_LAYERS[] = { "n_layer", "num_hidden_layers", NULL };
static const char *const K_HEADS[] = { "n_head", "num_attention_heads", NULL };
static const char *const K_POS[] = { "n_positions", "max_position_embeddings", NULL };
static const char *const K_BLOOM_H[] = { "hidden_size", "n_embed", NULL };

/* Plain-MLP LayerNorm families: GPT-2, GPT-NeoX, Falcon, BLOOM, BERT. */
static void plain_common(cfg *c, const dims *d, bool tied)
{
	set_common(c, d, tied);
	c->a->act = GS_ACT_PLAIN;
	c->a->norm = GS_NORM_LAYER;
	c->a->n_kinds = 1;
	c->a->kind[0].n_layers = d->L;
	c->a->kind[0].mlp_inner = d->I;
}

static bool heads_divide(cfg *c, dims *d, const char *heads_key)
{
	if (c->rc != GS_OK)
		return false;
	if (d->H % d->nh != 0) {
		field_fail(c, GS_ECONFIG, heads_key,
		           "must divide the hidden size (got %" PRId64 " heads for hidden size %" PRId64 ")",
		           d->nh, d->H);
		return false;
	}
	d->hd = d->H / d->nh;
	return true;
}

static void fam_gpt2(cfg *c)
{
	gs_arch *a = c->a;
	gs_layer_kind *k = &a->kind[0];
	dims d;
	int64_t P;

	d.H = get_int_alias(c, K_HIDDEN, 1, 0, true);
	d.L = get_int_alias(c, K_LAYERS, 1, 0, true);
	d.nh = get_int_alias(c, K_HEADS, 1, 0, true);
	d.V = get_int(c, "vocab_size", 1, 0, true);
	P = get_int_alias(c, K_POS, 1, 0, true);
	d.I = get_int(c, "n_inner", 1, 0, false);
	if (!heads_divide(c, &d, has(c, "n_head") ? "n_head" : "num_attention_heads"))
		return;
	if (d.I == 0)
		d.I = mul(c, 4, d.H, "n_embd");
	d.nkv = d.nh;
	plain_common(c, &d, true);
	a->max_pos = P;
	a->p_embed_other = mul(c, P, d.H, "n_positions"); /* wpe */
	a->p_final = mul(c, 2, d.H, "n_embd");            /* ln_f */
	lin(k, "c_attn", GS_ROLE_QKV, d.H, mul(c, 3, d.H, "n_embd"), true);
	lin(k, "attn.c_proj", GS_ROLE_O, d.H, d.H, true);
	lin(k, "c_fc", GS_ROLE_UP, d.H, d.I, true);
	lin(k, "mlp.c_proj", GS_ROLE_DOWN, d.I, d.H, true);
	k->other_params = mul(c, 4, d.H, "n_embd"); /* ln_1, ln_2 */
}

static void fam_neox(cfg *c)
{
	gs_arch *a = c->a;
	gs_layer_kind *k = &a->kind[0];
	dims d;
	bool ab, tied;

	d.H = get_int(c, "hidden_size", 1, 0, true);
	d.L = get_int(c, "num_hidden_layers", 1, 0, true);
	d.nh = get_int(c, "num_attention_heads", 1, 0, true);
	d.I = get_int(c, "intermediate_size", 1, 0, true);
	d.V = get_int(c, "vocab_size", 1, 0, true);
	ab = get_bool(c, "attention_bias", true);
	tied = get_bool(c, "tie_word_embeddings", false);
	a->parallel_attn = get_bool(c, "use_parallel_residual", true);
	if (!heads_divide(c, &d, "num_attention_heads"))
		return;
	d.nkv = d.nh;
	plain_common(c, &d, tied);
	a->rotary = true;
	a->p_final = mul(c, 2, d.H, "hidden_size");
	lin(k, "query_key_value", GS_ROLE_QKV, d.H, mul(c, 3, d.H, "hidden_size"), ab);
	lin(k, "dense", GS_ROLE_O, d.H, d.H, ab);
	lin(k, "dense_h_to_4h", GS_ROLE_UP, d.H, d.I, true);
	lin(k, "dense_4h_to_h", GS_ROLE_DOWN, d.I, d.H, true);
	k->other_params = mul(c, 4, d.H, "hidden_size");
}

static void fam_falcon(cfg *c)
{
	static const char *const k_kv[] = { "num_kv_heads", "n_head_kv", NULL };
	gs_arch *a = c->a;
	gs_layer_kind *k = &a->kind[0];
	dims d;
	bool newarch, mq, par, bias, alibi, tied;
	int64_t qkv, nln = 0, norms;

	d.H = get_int(c, "hidden_size", 1, 0, true);
	d.L = get_int_alias(c, K_LAYERS, 1, 0, true);
	d.nh = get_int_alias(c, K_HEADS, 1, 0, true);
	d.V = get_int(c, "vocab_size", 1, 0, true);
	d.I = get_int(c, "ffn_hidden_size", 1, 0, false);
	newarch = get_bool(c, "new_decoder_architecture", false);
	mq = get_bool(c, "multi_query", true);
	par = get_bool(c, "parallel_attn", true);
	bias = get_bool(c, "bias", false);
	alibi = get_bool(c, "alibi", false);
	tied = get_bool(c, "tie_word_embeddings", true);
	d.nkv = get_int_alias(c, k_kv, 1, 0, false);
	if (has(c, "num_ln_in_parallel_attn"))
		nln = get_int(c, "num_ln_in_parallel_attn", 1, 0, false);
	if (!heads_divide(c, &d, has(c, "n_head") ? "n_head" : "num_attention_heads"))
		return;
	if (d.I == 0)
		d.I = mul(c, 4, d.H, "hidden_size");
	/* FalconAttention: kv heads and the fused projection's width. */
	if (newarch) {
		if (d.nkv == 0)
			d.nkv = d.nh;
		qkv = mul(c, add(c, d.nh, mul(c, 2, d.nkv, "num_kv_heads"), "num_kv_heads"), d.hd,
		          "num_kv_heads");
	} else if (mq) {
		d.nkv = 1;
		qkv = add(c, d.H, mul(c, 2, d.hd, "hidden_size"), "hidden_size");
	} else {
		d.nkv = d.nh;
		qkv = mul(c, 3, d.H, "hidden_size");
	}
	if (c->rc == GS_OK && (d.nkv > d.nh || d.nh % d.nkv != 0)) {
		field_fail(c, GS_ECONFIG, "num_kv_heads",
		           "must divide the head count (got %" PRId64 " for %" PRId64 " heads)", d.nkv, d.nh);
		return;
	}
	/* FalconDecoderLayer's LayerNorms. */
	if (nln == 0 && newarch)
		nln = 2;
	norms = !par ? 2 : nln == 2 ? 2 : 1;
	plain_common(c, &d, tied);
	if (c->rc != GS_OK)
		return;
	a->parallel_attn = par || newarch;
	a->rotary = !alibi;
	a->p_final = mul(c, 2, d.H, "hidden_size");
	lin(k, "query_key_value", GS_ROLE_QKV, d.H, qkv, bias);
	lin(k, "dense", GS_ROLE_O, d.H, d.H, bias);
	lin(k, "dense_h_to_4h", GS_ROLE_UP, d.H, d.I, bias);
	lin(k, "dense_4h_to_h", GS_ROLE_DOWN, d.I, d.H, bias);
	k->other_params = mul(c, mul(c, norms, 2, "hidden_size"), d.H, "hidden_size");
}

static void fam_bloom(cfg *c)
{
	gs_arch *a = c->a;
	gs_layer_kind *k = &a->kind[0];
	dims d;
	bool tied;

	d.H = get_int_alias(c, K_BLOOM_H, 1, 0, true);
	d.L = get_int_alias(c, K_LAYERS, 1, 0, true);
	d.nh = get_int_alias(c, K_HEADS, 1, 0, true);
	d.V = get_int(c, "vocab_size", 1, 0, true);
	tied = get_bool(c, "tie_word_embeddings", true);
	if (!heads_divide(c, &d, has(c, "n_head") ? "n_head" : "num_attention_heads"))
		return;
	d.I = mul(c, 4, d.H, "hidden_size");
	d.nkv = d.nh;
	plain_common(c, &d, tied);
	a->rotary = false; /* ALiBi */
	a->p_embed_other = mul(c, 2, d.H, "hidden_size"); /* word_embeddings_layernorm */
	a->p_final = mul(c, 2, d.H, "hidden_size");
	lin(k, "query_key_value", GS_ROLE_QKV, d.H, mul(c, 3, d.H, "hidden_size"), true);
	lin(k, "dense", GS_ROLE_O, d.H, d.H, true);
	lin(k, "dense_h_to_4h", GS_ROLE_UP, d.H, d.I, true);
	lin(k, "dense_4h_to_h", GS_ROLE_DOWN, d.I, d.H, true);
	k->other_params = mul(c, 4, d.H, "hidden_size");
}

static void fam_bert(cfg *c)
{
	gs_arch *a = c->a;
	gs_layer_kind *k = &a->kind[0];
	dims d;
	int64_t P, T;
	const char *pos;

	d.H = get_int(c, "hidden_size", 1, 0, true);
	d.L = get_int(c, "num_hidden_layers", 1, 0, true);
	d.nh = get_int(c, "num_attention_heads", 1, 0, true);
	d.I = get_int(c, "intermediate_size", 1, 0, true);
	d.V = get_int(c, "vocab_size", 1, 0, true);
	P = get_int(c, "max_position_embeddings", 1, 512, false);
	T = get_int(c, "type_vocab_size", 0, 2, false);
	pos = get_str(c, "position_embedding_type");
	if (!heads_divide(c, &d, "num_attention_heads"))
		return;
	d.nkv = d.nh;
	plain_common(c, &d, false);
	a->max_pos = P;
	a->encoder = true;
	a->p_head = 0; /* BertModel: no task head */
	/* position + token type embeddings, embeddings LayerNorm */
	a->p_embed_other = add(c, mul(c, add(c, P, T, "type_vocab_size"), d.H, "max_position_embeddings"),
	                       mul(c, 2, d.H, "hidden_size"), "hidden_size");
	a->p_final = add(c, mul(c, d.H, d.H, "hidden_size"), d.H, "hidden_size"); /* pooler */
	lin(k, "query", GS_ROLE_Q, d.H, d.H, true);
	lin(k, "key", GS_ROLE_K, d.H, d.H, true);
	lin(k, "value", GS_ROLE_V, d.H, d.H, true);
	lin(k, "attention.output.dense", GS_ROLE_O, d.H, d.H, true);
	lin(k, "intermediate.dense", GS_ROLE_UP, d.H, d.I, true);
	lin(k, "output.dense", GS_ROLE_DOWN, d.I, d.H, true);
	k->other_params = mul(c, 4, d.H, "hidden_size"); /* two LayerNorms */
	if (pos != NULL && strcmp(pos, "absolute") != 0) {
		if (strcmp(pos, "relative_key") == 0 || strcmp(pos, "relative_key_query") == 0) {
			/* distance_embedding: (2P - 1) x head size, per layer */
			int64_t rel = mul(c, mul(c, 2, P, "max_position_embeddings") - 1, d.hd,
			                  "max_position_embeddings");
			k->other_params = add(c, k->other_params, rel, "max_position_embeddings");
		} else {
			field_fail(c, GS_ECONFIG, "position_embedding_type",
			           "must be \"absolute\", \"relative_key\" or \"relative_key_query\" (got \"%.40s\")",
			           pos);
		}
	}
}

/* A fraction in (0, 1] (partial_rotary_factor); def when absent. */
static double get_frac(cfg *c, const char *key, double def)
{
	return get_num(c, key, DBL_TRUE_MIN, 1, "a number above 0 and at most 1", def);
}

/* lm_head with a bias (Phi, GPT-J): the bias stays a parameter of its own
 * even when the weight is tied to the embedding. */
static void head_bias(cfg *c, const dims *d)
{
	c->a->p_head = add(c, c->a->p_head, d->V, "vocab_size");
}

/* Phi-1/1.5/2 (PhiForCausalLM): one LayerNorm per layer feeding attention
 * and MLP in parallel; every linear and the lm_head with bias. */
static void fam_phi(cfg *c)
{
	gs_arch *a = c->a;
	gs_layer_kind *k = &a->kind[0];
	dims d;
	bool qk_ln, tied;
	int64_t q, kv;

	read_dims(c, &d, 0, true);
	qk_ln = get_bool(c, "qk_layernorm", false);
	tied = get_bool(c, "tie_word_embeddings", false);
	get_frac(c, "partial_rotary_factor", 0.5); /* rotary on part of each head: no parameters */
	if (c->rc != GS_OK)
		return;
	plain_common(c, &d, tied);
	a->parallel_attn = true;
	a->rotary = true;
	q = mul(c, d.nh, d.hd, "head_dim");
	kv = mul(c, d.nkv, d.hd, "head_dim");
	lin(k, "q_proj", GS_ROLE_Q, d.H, q, true);
	lin(k, "k_proj", GS_ROLE_K, d.H, kv, true);
	lin(k, "v_proj", GS_ROLE_V, d.H, kv, true);
	lin(k, "dense", GS_ROLE_O, q, d.H, true);
	lin(k, "fc1", GS_ROLE_UP, d.H, d.I, true);
	lin(k, "fc2", GS_ROLE_DOWN, d.I, d.H, true);
	k->other_params = mul(c, 2, d.H, "hidden_size"); /* input_layernorm */
	if (qk_ln) /* q_layernorm, k_layernorm: LayerNorm(hidden_size / heads) each */
		k->other_params = add(c, k->other_params, mul(c, 4, d.H / d.nh, "num_attention_heads"),
		                      "num_attention_heads");
	a->p_final = mul(c, 2, d.H, "hidden_size"); /* final_layernorm */
	head_bias(c, &d);
}

/* GPT-J (GPTJForCausalLM): parallel attention and MLP after one ln_1,
 * q/k/v/out_proj without bias, fc_in/fc_out and the lm_head with bias. */
static void fam_gptj(cfg *c)
{
	gs_arch *a = c->a;
	gs_layer_kind *k = &a->kind[0];
	dims d;
	int64_t P, rot;
	bool tied;

	d.H = get_int_alias(c, K_HIDDEN, 1, 0, true);
	d.L = get_int_alias(c, K_LAYERS, 1, 0, true);
	d.nh = get_int_alias(c, K_HEADS, 1, 0, true);
	d.V = get_int(c, "vocab_size", 1, 0, true);
	P = get_int_alias(c, K_POS, 1, 0, false);
	d.I = get_int(c, "n_inner", 1, 0, false); /* null: 4 * n_embd */
	rot = get_int(c, "rotary_dim", 1, 0, false); /* null: the whole head */
	tied = get_bool(c, "tie_word_embeddings", false);
	if (!heads_divide(c, &d, has(c, "n_head") ? "n_head" : "num_attention_heads"))
		return;
	if (rot > d.hd) {
		field_fail(c, GS_ECONFIG, "rotary_dim",
		           "must not exceed the head size %" PRId64 " (got %" PRId64 ")", d.hd, rot);
		return;
	}
	if (d.I == 0)
		d.I = mul(c, 4, d.H, "n_embd");
	d.nkv = d.nh;
	plain_common(c, &d, tied);
	a->max_pos = P;
	a->parallel_attn = true;
	a->rotary = true;
	lin(k, "q_proj", GS_ROLE_Q, d.H, d.H, false);
	lin(k, "k_proj", GS_ROLE_K, d.H, d.H, false);
	lin(k, "v_proj", GS_ROLE_V, d.H, d.H, false);
	lin(k, "out_proj", GS_ROLE_O, d.H, d.H, false);
	lin(k, "fc_in", GS_ROLE_UP, d.H, d.I, true);
	lin(k, "fc_out", GS_ROLE_DOWN, d.I, d.H, true);
	k->other_params = mul(c, 2, d.H, "n_embd"); /* ln_1 */
	a->p_final = mul(c, 2, d.H, "n_embd");      /* ln_f */
	head_bias(c, &d);
}

/* GPT-BigCode (StarCoder, SantaCoder, OctoCoder): GPT-2 blocks with
 * multi-query attention (one key/value head) by default. */
static void fam_bigcode(cfg *c)
{
	gs_arch *a = c->a;
	gs_layer_kind *k = &a->kind[0];
	dims d;
	int64_t P, qkv;
	bool mq, tied;

	d.H = get_int_alias(c, K_HIDDEN, 1, 0, true);
	d.L = get_int_alias(c, K_LAYERS, 1, 0, true);
	d.nh = get_int_alias(c, K_HEADS, 1, 0, true);
	d.V = get_int(c, "vocab_size", 1, 0, true);
	P = get_int_alias(c, K_POS, 1, 0, true);
	d.I = get_int(c, "n_inner", 1, 0, false); /* null: 4 * n_embd */
	mq = get_bool(c, "multi_query", true);
	tied = get_bool(c, "tie_word_embeddings", true);
	if (!heads_divide(c, &d, has(c, "n_head") ? "n_head" : "num_attention_heads"))
		return;
	if (d.I == 0)
		d.I = mul(c, 4, d.H, "n_embd");
	/* c_attn: queries (n_embd) + key and value of kv_dim each, kv_dim =
	 * one head when multi_query, else n_embd. */
	d.nkv = mq ? 1 : d.nh;
	qkv = add(c, d.H, mul(c, 2, mul(c, d.nkv, d.hd, "n_head"), "n_embd"), "n_embd");
	plain_common(c, &d, tied);
	a->max_pos = P;
	a->p_embed_other = mul(c, P, d.H, "n_positions"); /* wpe */
	a->p_final = mul(c, 2, d.H, "n_embd");            /* ln_f */
	lin(k, "c_attn", GS_ROLE_QKV, d.H, qkv, true);
	lin(k, "attn.c_proj", GS_ROLE_O, d.H, d.H, true);
	lin(k, "c_fc", GS_ROLE_UP, d.H, d.I, true);
	lin(k, "mlp.c_proj", GS_ROLE_DOWN, d.I, d.H, true);
	k->other_params = mul(c, 4, d.H, "n_embd"); /* ln_1, ln_2 */
	if (get_bool(c, "add_cross_attention", false))
		note(c, "add_cross_attention: cross-attention blocks not counted");
}

/* StableLM (StableLmForCausalLM): LayerNorm, q/k/v with optional bias,
 * o_proj without, gated MLP, partial rotary, optional parallel residual. */
static void fam_stablelm(cfg *c)
{
	gs_arch *a = c->a;
	gs_layer_kind *k = &a->kind[0];
	dims d;
	bool qkv_bias, qk_ln, par, tied;
	int64_t norms;

	read_dims(c, &d, 0, true);
	qkv_bias = get_bool(c, "use_qkv_bias", false);
	qk_ln = get_bool(c, "qk_layernorm", false);
	par = get_bool(c, "use_parallel_residual", false);
	tied = get_bool(c, "tie_word_embeddings", false);
	get_frac(c, "partial_rotary_factor", 0.25);
	if (c->rc != GS_OK)
		return;
	set_common(c, &d, tied);
	a->act = GS_ACT_GATED;
	a->norm = GS_NORM_LAYER;
	a->parallel_attn = par;
	a->rotary = true;
	a->n_kinds = 1;
	k->n_layers = d.L;
	k->mlp_inner = d.I;
	add_attn(c, k, &d, qkv_bias, false);
	add_gated(k, "", d.H, d.I, false);
	/* input_layernorm, and post_attention_layernorm unless parallel
	 * (LayerNorms with bias); per-head q/k LayerNorms without bias. */
	norms = par ? 1 : 2;
	k->other_params = mul(c, mul(c, norms, 2, "hidden_size"), d.H, "hidden_size");
	if (qk_ln)
		k->other_params = add(c, k->other_params,
		                      mul(c, add(c, d.nh, d.nkv, "num_key_value_heads"), d.hd, "head_dim"),
		                      "head_dim");
	a->p_final = mul(c, 2, d.H, "hidden_size");
}

/* StarCoder2 (Starcoder2ForCausalLM): GQA attention and a plain GELU MLP
 * c_fc/c_proj, all with bias when use_bias, LayerNorms, tied head. */
static void fam_starcoder2(cfg *c)
{
	gs_arch *a = c->a;
	gs_layer_kind *k = &a->kind[0];
	dims d;
	bool bias, tied;

	read_dims(c, &d, 0, true);
	bias = get_bool(c, "use_bias", true);
	tied = get_bool(c, "tie_word_embeddings", true);
	if (c->rc != GS_OK)
		return;
	plain_common(c, &d, tied);
	a->rotary = true;
	a->sliding_window = get_int(c, "sliding_window", 1, 0, false);
	add_attn(c, k, &d, bias, bias);
	lin(k, "c_fc", GS_ROLE_UP, d.H, d.I, bias);
	lin(k, "c_proj", GS_ROLE_DOWN, d.I, d.H, bias);
	k->other_params = mul(c, 4, d.H, "hidden_size"); /* input, post_attention LayerNorm */
	a->p_final = mul(c, 2, d.H, "hidden_size");
}

/* ChatGLM2/3 and GLM-4 (model_type chatglm; THUDM's remote code,
 * modeling_chatglm.py: SelfAttention, MLP, GLMBlock): a fused
 * query_key_value (heads of kv_channels, multi_query_group_num key/value
 * groups under multi_query_attention) with a bias under add_qkv_bias;
 * dense, dense_h_to_4h (gate and up fused, 2 x ffn_hidden_size) and
 * dense_4h_to_h with one under add_bias_linear; RMSNorm or LayerNorm
 * (rmsnorm) before attention and MLP, a final one under post_layer_norm;
 * separate embedding and output_layer of padded_vocab_size. */
static void fam_chatglm(cfg *c)
{
	gs_arch *a = c->a;
	gs_layer_kind *k = &a->kind[0];
	dims d;
	bool qkv_bias, bias, rms, post;
	int64_t q, qkv, per_norm;

	d.H = get_int(c, "hidden_size", 1, 0, true);
	d.L = get_int(c, "num_layers", 1, 0, true);
	d.nh = get_int(c, "num_attention_heads", 1, 0, true);
	d.I = get_int(c, "ffn_hidden_size", 1, 0, true);
	d.V = get_int(c, "padded_vocab_size", 1, 0, true);
	d.hd = get_int(c, "kv_channels", 1, 0, false);
	d.nkv = get_bool(c, "multi_query_attention", false) ? get_int(c, "multi_query_group_num", 1, 1, false) : d.nh;
	qkv_bias = get_bool(c, "add_qkv_bias", false);
	bias = get_bool(c, "add_bias_linear", false);
	rms = get_bool(c, "rmsnorm", true);
	post = get_bool(c, "post_layer_norm", true);
	if (c->rc != GS_OK)
		return;
	if (d.hd == 0 && !heads_divide(c, &d, "num_attention_heads"))
		return;
	if (!kv_divides(c, &d, "multi_query_group_num"))
		return;
	set_common(c, &d, get_bool(c, "tie_word_embeddings", false));
	a->max_pos = get_int(c, "seq_length", 1, 0, false);
	a->act = GS_ACT_GATED;
	a->norm = rms ? GS_NORM_RMS : GS_NORM_LAYER;
	a->rotary = true;
	a->n_kinds = 1;
	k->n_layers = d.L;
	k->mlp_inner = d.I;
	q = mul(c, d.nh, d.hd, "kv_channels");
	qkv = add(c, q, mul(c, mul(c, 2, d.nkv, "multi_query_group_num"), d.hd, "kv_channels"), "kv_channels");
	lin(k, "query_key_value", GS_ROLE_QKV, d.H, qkv, qkv_bias);
	lin(k, "dense", GS_ROLE_O, q, d.H, bias);
	lin(k, "dense_h_to_4h", GS_ROLE_GATE_UP, d.H, mul(c, 2, d.I, "ffn_hidden_size"), bias);
	lin(k, "dense_4h_to_h", GS_ROLE_DOWN, d.I, d.H, bias);
	per_norm = rms ? d.H : mul(c, 2, d.H, "hidden_size");
	k->other_params = mul(c, 2, per_norm, "hidden_size");
	a->p_final = post ? per_norm : 0;
}

/* DistilBERT (DistilBertModel): BERT-like encoder without token types or
 * pooler; position embeddings are a table of max_position_embeddings rows
 * (filled with fixed sinusoids when sinusoidal_pos_embds). */
static void fam_distilbert(cfg *c)
{
	gs_arch *a = c->a;
	gs_layer_kind *k = &a->kind[0];
	dims d;
	int64_t P;
	bool sinus;

	d.H = get_int(c, "dim", 1, 0, true);
	d.L = get_int(c, "n_layers", 1, 0, true);
	d.nh = get_int(c, "n_heads", 1, 0, true);
	d.I = get_int(c, "hidden_dim", 1, 0, true);
	d.V = get_int(c, "vocab_size", 1, 0, true);
	P = get_int(c, "max_position_embeddings", 1, 512, false);
	sinus = get_bool(c, "sinusoidal_pos_embds", false);
	if (!heads_divide(c, &d, "n_heads"))
		return;
	d.nkv = d.nh;
	plain_common(c, &d, false);
	a->max_pos = P;
	a->encoder = true;
	a->p_head = 0; /* DistilBertModel: no task head */
	/* position embeddings + embeddings LayerNorm */
	a->p_embed_other = add(c, mul(c, P, d.H, "max_position_embeddings"), mul(c, 2, d.H, "dim"), "dim");
	lin(k, "q_lin", GS_ROLE_Q, d.H, d.H, true);
	lin(k, "k_lin", GS_ROLE_K, d.H, d.H, true);
	lin(k, "v_lin", GS_ROLE_V, d.H, d.H, true);
	lin(k, "out_lin", GS_ROLE_O, d.H, d.H, true);
	lin(k, "lin1", GS_ROLE_UP, d.H, d.I, true);
	lin(k, "lin2", GS_ROLE_DOWN, d.I, d.H, true);
	k->other_params = mul(c, 4, d.H, "dim"); /* sa_layer_norm, output_layer_norm */
	if (sinus)
		note(c, "sinusoidal_pos_embds: the position table is counted but fixed (not trained)");
}

/* ---- quantization_config ---- */

static void read_quant(cfg *c)
{
	const cJSON *q = gs_jget_item(c->root, "quantization_config");
	gs_arch *a = c->a;
	cfg qc = *c;
	const char *m;
	char got[64];

	if (q == NULL || c->rc != GS_OK)
		return;
	if (!cJSON_IsObject(q)) {
		gs_json_describe(q, got, sizeof got);
		field_fail(c, GS_ECONFIG, "quantization_config", "must be an object (got %s)", got);
		return;
	}
	qc.obj = q;
	qc.pfx = "quantization_config.";
	m = get_str(&qc, "quant_method");
	if (m == NULL && (has(&qc, "load_in_4bit") || has(&qc, "load_in_8bit")))
		m = "bitsandbytes";
	if (qc.rc != GS_OK) {
		c->rc = qc.rc;
		return;
	}
	if (m == NULL) {
		a->quant = GS_QUANT_OTHER;
		note(c, "quantization_config without quant_method: quantization not modelled");
	} else if (strcmp(m, "gptq") == 0 || strcmp(m, "awq") == 0) {
		static const char *const kb[] = { "bits", "w_bit", NULL };
		int64_t bits = get_int_alias(&qc, kb, 1, 4, m[0] == 'g');
		const cJSON *gv = gs_jget_item(q, has(&qc, "group_size") ? "group_size" : "q_group_size");

		a->quant = m[0] == 'g' ? GS_QUANT_GPTQ : GS_QUANT_AWQ;
		if (qc.rc == GS_OK && bits > 8)
			field_fail(&qc, GS_ECONFIG, has(&qc, "bits") ? "bits" : "w_bit",
			           "must be from 1 to 8 (got %" PRId64 ")", bits);
		a->quant_bits = (int)bits;
		a->quant_group = 128;
		if (gv != NULL && qc.rc == GS_OK) {
			double g = cJSON_IsNumber(gv) ? gv->valuedouble : 0;
			if (g != -1 && (g < 1 || g != floor(g) || g > (double)CFG_INT_MAX)) {
				gs_json_describe(gv, got, sizeof got);
				field_fail(&qc, GS_ECONFIG, has(&qc, "group_size") ? "group_size" : "q_group_size",
				           "must be a positive integer or -1 (got %s)", got);
			} else {
				a->quant_group = (int64_t)g;
			}
		}
	} else if (strcmp(m, "bitsandbytes") == 0) {
		bool b4 = get_bool(&qc, "load_in_4bit", false) || get_bool(&qc, "_load_in_4bit", false);
		bool b8 = get_bool(&qc, "load_in_8bit", false) || get_bool(&qc, "_load_in_8bit", false);

		if (qc.rc == GS_OK && b4 == b8)
			field_fail(&qc, GS_ECONFIG, "load_in_4bit",
			           "exactly one of load_in_4bit and load_in_8bit must be true");
		a->quant = b4 ? GS_QUANT_BNB4 : GS_QUANT_BNB8;
		a->quant_bits = b4 ? 4 : 8;
	} else if (strcmp(m, "fp8") == 0) {
		a->quant = GS_QUANT_FP8;
		a->quant_bits = 8;
	} else if (strcmp(m, "compressed-tensors") == 0) {
		const cJSON *groups = gs_jget_item(q, "config_groups"), *w = NULL;
		const cJSON *nb = NULL, *ty = NULL;

		if (cJSON_IsObject(groups) && groups->child != NULL && cJSON_IsObject(groups->child))
			w = gs_jget_item(groups->child, "weights");
		if (cJSON_IsObject(w)) {
			nb = gs_jget_item(w, "num_bits");
			ty = gs_jget_item(w, "type");
		}
		if (cJSON_IsNumber(nb) && nb->valuedouble == 8 && cJSON_IsString(ty) &&
		    strcmp(ty->valuestring, "float") == 0) {
			a->quant = GS_QUANT_FP8;
			a->quant_bits = 8;
		} else {
			a->quant = GS_QUANT_OTHER;
			if (cJSON_IsNumber(nb) && nb->valuedouble >= 1 && nb->valuedouble <= 16)
				a->quant_bits = (int)nb->valuedouble;
			note(c, "compressed-tensors quantization other than fp8 weights: not modelled");
		}
	} else {
		int64_t bits = get_int(&qc, "bits", 1, 0, false);
		a->quant = GS_QUANT_OTHER;
		if (qc.rc == GS_OK && bits <= 16)
			a->quant_bits = (int)bits;
		note(c, "quant_method \"%.32s\" not modelled", m);
	}
	if (qc.rc != GS_OK)
		c->rc = qc.rc;
}

/* ---- entry points ---- */

static void line_col(const char *json, size_t off, size_t *line, size_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (json[i] == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
	}
}

static void build(cfg *c)
{
	gs_arch *a = c->a;
	const char *given = get_str(c, "model_type"), *mt;
	char lower[64];
	const cJSON *dt;

	if (c->rc != GS_OK)
		return;
	if (given == NULL) {
		field_fail(c, GS_ECONFIG, "model_type", "missing (must be a string naming the model family)");
		return;
	}
	snprintf(a->model_type, sizeof a->model_type, "%s", given);
	/* Families are matched case-insensitively ("Qwen2" is qwen2). */
	for (size_t i = 0; i + 1 < sizeof lower; i++) {
		lower[i] = (char)tolower((unsigned char)given[i]);
		if (given[i] == '\0')
			break;
	}
	lower[sizeof lower - 1] = '\0';
	mt = lower;
	/* dtype (transformers >= 4.56) or torch_dtype: a string when present. */
	dt = gs_jget_item(c->root, "dtype");
	if (dt == NULL)
		dt = gs_jget_item(c->root, "torch_dtype");
	if (dt != NULL && !cJSON_IsString(dt)) {
		char got[64];
		gs_json_describe(dt, got, sizeof got);
		field_fail(c, GS_ECONFIG, gs_jget_item(c->root, "dtype") ? "dtype" : "torch_dtype",
		           "must be a string such as \"bfloat16\" (got %s)", got);
		return;
	}
	if (strcmp(mt, "gemma3") == 0) {
		const cJSON *tc = gs_jget_item(c->root, "text_config");
		if (!cJSON_IsObject(tc)) {
			char got[64];
			gs_json_describe(tc, got, sizeof got);
			if (tc == NULL)
				field_fail(c, GS_ECONFIG, "text_config", "missing (must be an object)");
			else
				field_fail(c, GS_ECONFIG, "text_config", "must be an object (got %s)", got);
			return;
		}
		c->obj = tc;
		c->pfx = "text_config.";
		note(c, "gemma3: text decoder only; the vision tower and projector are not counted");
		fam_llama(c, LK_GEMMA3);
	} else if (strcmp(mt, "llama") == 0) {
		fam_llama(c, LK_LLAMA);
	} else if (strcmp(mt, "mistral") == 0) {
		fam_llama(c, LK_MISTRAL);
	} else if (strcmp(mt, "qwen2") == 0) {
		fam_llama(c, LK_QWEN2);
	} else if (strcmp(mt, "qwen3") == 0) {
		fam_llama(c, LK_QWEN3);
	} else if (strcmp(mt, "qwen") == 0) {
		fam_llama(c, LK_QWEN1);
	} else if (strcmp(mt, "chatglm") == 0) {
		fam_chatglm(c);
	} else if (strcmp(mt, "gemma") == 0) {
		fam_llama(c, LK_GEMMA);
	} else if (strcmp(mt, "gemma2") == 0) {
		fam_llama(c, LK_GEMMA2);
	} else if (strcmp(mt, "gemma3_text") == 0) {
		fam_llama(c, LK_GEMMA3);
	} else if (strcmp(mt, "phi3") == 0) {
		fam_llama(c, LK_PHI3);
	} else if (strcmp(mt, "olmo") == 0) {
		fam_llama(c, LK_OLMO);
	} else if (strcmp(mt, "olmo2") == 0) {
		fam_llama(c, LK_OLMO2);
	} else if (strcmp(mt, "phi") == 0) {
		fam_phi(c);
	} else if (strcmp(mt, "gptj") == 0) {
		fam_gptj(c);
	} else if (strcmp(mt, "gpt_bigcode") == 0) {
		fam_bigcode(c);
	} else if (strcmp(mt, "stablelm") == 0) {
		fam_stablelm(c);
	} else if (strcmp(mt, "starcoder2") == 0) {
		fam_starcoder2(c);
	} else if (strcmp(mt, "distilbert") == 0) {
		fam_distilbert(c);
	} else if (strcmp(mt, "mixtral") == 0 || strcmp(mt, "qwen2_moe") == 0 ||
	           strcmp(mt, "qwen3_moe") == 0) {
		fam_moe(c, mt);
	} else if (strcmp(mt, "deepseek_v2") == 0 || strcmp(mt, "deepseek_v3") == 0) {
		fam_deepseek(c);
	} else if (strcmp(mt, "gpt2") == 0) {
		fam_gpt2(c);
	} else if (strcmp(mt, "gpt_neox") == 0) {
		fam_neox(c);
	} else if (strcmp(mt, "falcon") == 0) {
		fam_falcon(c);
	} else if (strcmp(mt, "bloom") == 0) {
		fam_bloom(c);
	} else if (strcmp(mt, "bert") == 0 || strcmp(mt, "roberta") == 0) {
		fam_bert(c); /* RobertaModel = BertModel's modules and pooler */
	} else {
		static const char *const usual[] = { "hidden_size", "num_hidden_layers",
			                             "num_attention_heads", "intermediate_size",
			                             "vocab_size", NULL };
		static const char *const experts[] = { "num_local_experts", "num_experts", "n_routed_experts",
			                               "moe_num_experts", NULL };
		/* A dense sizing of a mixture of experts counts one MLP per layer
		 * (a gpt-oss-like config: 2.4 B parameters against about 21 B) and
		 * would say it fits where it does not: not sized. */
		for (int i = 0; experts[i] != NULL; i++) {
			const cJSON *x = gs_jget_item(c->obj, experts[i]);
			if (cJSON_IsNumber(x) && x->valuedouble > 1) {
				field_fail(c, GS_ECONFIG, experts[i],
				           "%.0f experts, but model_type \"%.32s\" is not a known family: a dense "
				           "sizing would count one expert's MLP per layer and understate the model, so "
				           "it is not sized (known mixture-of-experts families: mixtral, qwen2_moe, "
				           "qwen3_moe, deepseek_v2, deepseek_v3)",
				           x->valuedouble, given);
				return;
			}
		}
		for (int i = 0; usual[i] != NULL; i++) {
			if (!has(c, usual[i])) {
				field_fail(c, GS_ECONFIG, usual[i],
				           "missing: model_type \"%.32s\" is not a known family, and a generic "
				           "decoder needs hidden_size, num_hidden_layers, num_attention_heads, "
				           "intermediate_size and vocab_size",
				           mt);
				return;
			}
		}
		a->generic = true;
		fam_llama(c, LK_GENERIC);
	}
	/* Remote code whose head hands 16-bit logits to cross-entropy as they
	 * are: Qwen v1 (modeling_qwen.py, QWenLMHeadModel.forward: lm_head,
	 * shifted .contiguous() copy, CrossEntropyLoss, no .float()).
	 * transformers' own heads up-cast (logits.float()); Baichuan's remote
	 * code exists in copies with and without the up-cast, so it keeps
	 * the default. */
	a->loss_16bit = strcmp(mt, "qwen") == 0;
	read_quant(c);
}

gs_err gs_config_parse(const char *json, size_t len, const char *path, gs_arch *out, gs_error *e)
{
	cfg c;
	gs_arch *a = gs_xcalloc(1, sizeof *a);
	cJSON *root = NULL;
	const char *end = NULL;
	gs_err rc;

	memset(out, 0, sizeof *out);
	memset(&c, 0, sizeof c);
	c.path = path ? path : "config.json";
	c.pfx = "";
	c.a = a;
	c.e = e;
	snprintf(a->source, sizeof a->source, "%s", c.path);
	if (json == NULL)
		len = 0;
	if (len > 0)
		root = cJSON_ParseWithLengthOpts(json, len, &end, false);
	if (root != NULL) {
		/* valid JSON: also valid UTF-8, and no key twice in an object */
		rc = gs_json_check(json, len, c.path, GS_ECONFIG, e);
		if (rc != GS_OK)
			goto out;
	}
	if (root == NULL && len > 0 && gs_json_depth_check(json, len, c.path, GS_ECONFIG, e) != GS_OK) {
		rc = GS_ECONFIG;
		goto out;
	}
	if (root == NULL) {
		size_t off = (end != NULL && end >= json) ? (size_t)(end - json) : 0, line, col;

		if (off > len)
			off = len;
		line_col(json ? json : "", off, &line, &col);
		/* no excerpt: a file that is not JSON may be anything (a
		 * credentials file named by mistake); its bytes are not shown */
		rc = gs_fail(e, GS_ECONFIG, "%s: invalid JSON at line %zu, column %zu", c.path, line, col);
		goto out;
	}
	/* Only whitespace may follow the value. */
	for (size_t off = (size_t)(end - json); off < len; off++) {
		if (json[off] != ' ' && json[off] != '\t' && json[off] != '\n' && json[off] != '\r') {
			size_t line, col;
			line_col(json, off, &line, &col);
			rc = gs_fail(e, GS_ECONFIG, "%s: invalid JSON: unexpected text after the value at line %zu, column %zu",
			             c.path, line, col);
			goto out;
		}
	}
	if (!cJSON_IsObject(root)) {
		rc = gs_fail(e, GS_ECONFIG, "%s: invalid config: the top level must be a JSON object", c.path);
		goto out;
	}
	c.root = c.obj = root;
	build(&c);
	rc = c.rc;
	if (rc == GS_OK) {
		gs_error te = { 0 };

		rc = gs_arch_tally(a, &te);
		if (rc != GS_OK) {
			/* te.msg starts with "<source>: "; name the fields instead. */
			const char *d = te.msg;
			size_t sl = strlen(a->source);

			if (strncmp(d, a->source, sl) == 0 && strncmp(d + sl, ": ", 2) == 0)
				d += sl + 2;
			rc = gs_fail(e, rc,
			             "%s: fields \"num_hidden_layers\", \"hidden_size\", \"intermediate_size\": "
			             "too large together: %s",
			             c.path, d);
		}
	}
	if (rc == GS_OK) {
		implausible_field(&c);
		rc = c.rc;
	}
	if (rc == GS_OK)
		*out = *a;
out:
	cJSON_Delete(root);
	free(a);
	return rc;
}

gs_err gs_config_load(const char *path, gs_arch *out, gs_error *e)
{
	gs_error re = { 0 };
	char *buf = NULL;
	size_t len = 0;
	gs_err rc;

	memset(out, 0, sizeof *out);
	rc = gs_read_file(path, GS_CONFIG_MAX_BYTES, &buf, &len, &re);
	if (rc == GS_EINPUT && gs_is_file(path)) /* gs_read_file's size-limit error */
		return gs_fail(e, GS_ECONFIG, "%s: file too large (over %u bytes)", path, GS_CONFIG_MAX_BYTES);
	if (rc == GS_EINPUT) /* a FIFO, device or directory: never read */
		return gs_fail(e, GS_ECONFIG, "%s", re.msg);
	if (rc != GS_OK)
		return gs_fail(e, rc, "%s", re.msg);
	rc = gs_config_parse(buf, len, path, out, e);
	free(buf);
	return rc;
}

gs_err gs_config_check_seq(const gs_arch *a, int64_t *seqp, bool is_default, bool allow, char *warn,
                           size_t n, gs_error *e)
{
	const char *src = a->source[0] ? a->source : "model";
	const char *dflt = is_default ? " (the default)" : "";
	int64_t seq = *seqp;

	if (n > 0)
		warn[0] = '\0';
	if (a->max_pos <= 0 || seq <= a->max_pos)
		return GS_OK;
	if (is_default && !allow) {
		/* Nobody asked for this context: size the longest the model has. */
		*seqp = a->max_pos;
		if (n > 0)
			snprintf(warn, n,
			         "no --seq given: sized at the model's max_position_embeddings, %" PRId64
			         " (%s), not the default %" PRId64, a->max_pos, src, seq);
		return GS_OK;
	}
	if (!allow)
		return gs_fail(e, GS_EUSAGE,
		               "--seq %" PRId64 "%s is past the model's max_position_embeddings (%" PRId64
		               ", %s): give --seq %" PRId64 " or less, or --allow-long-context to size it "
		               "anyway (%s)",
		               seq, dflt, a->max_pos, src, a->max_pos,
		               a->rotary ? "a RoPE-scaled context" : "its position embeddings stop there");
	if (n > 0)
		snprintf(warn, n,
		         "--seq %" PRId64 "%s is past the model's max_position_embeddings (%" PRId64
		         ", %s): sized as asked (--allow-long-context); %s",
		         seq, dflt, a->max_pos, src,
		         a->rotary ? "the model needs RoPE scaling there"
		                   : "its learned position embeddings do not reach that far");
	return GS_OK;
}
