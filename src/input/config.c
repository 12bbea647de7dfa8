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
	/* The layers as a list (layers_begin; NULL: the kinds a builder filled
	 * are the layers, with their own n_layers): layer i is the template
	 * a->kind[lt[i]] with the mixer lm[i]; group_layers makes the kinds. */
	uint8_t *lt, *lm;
	int64_t nl;
	int64_t window;          /* the window of the sliding or chunked layers */
	const char *pattern_key; /* the field the layer list came from, for messages */
	const struct family *fam;
	bool fam_tied_default;   /* a wrapper's root says tie_word_embeddings (text_config may not) */
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

/* ---- the layers as a list ---- */

/* Start a per-layer list of L layers, each template 0 with a full
 * attention mixer until the builder says otherwise. */
static bool layers_begin(cfg *c, int64_t L, int64_t H)
{
	uint64_t sz;

	if (c->rc != GS_OK)
		return false;
	if (L > GS_CFG_MAX_LAYERS) {
		/* no list that long: refused here, as the tally would (an
		 * overflow first, else an implausible count) */
		if (__builtin_mul_overflow((uint64_t)L, (uint64_t)H, &sz) ||
		    __builtin_mul_overflow(sz, (uint64_t)H, &sz) || sz > (uint64_t)CFG_PROD_MAX)
			field_fail(c, GS_EOVERFLOW, "num_hidden_layers",
			           "too large: %lld layers of this size overflows 64-bit arithmetic", (long long)L);
		else
			field_fail(c, GS_ECONFIG, "num_hidden_layers",
			           "too large: %lld is implausible (at most %lld, far above any released model)",
			           (long long)L, (long long)GS_CFG_MAX_LAYERS);
		return false;
	}
	free(c->lt);
	free(c->lm);
	c->nl = L;
	c->lt = gs_xcalloc((size_t)L + 1, 1);
	c->lm = gs_xcalloc((size_t)L + 1, 1);
	return true;
}

/* A new layer template (a->kind[n]): zeroed, its mixer full. */
static gs_layer_kind *tmpl_new(cfg *c)
{
	gs_layer_kind *k;

	if (c->a->n_kinds >= GS_MAX_LAYER_KINDS)
		abort(); /* the builders below never make more than GS_MAX_LAYER_KINDS templates */
	k = &c->a->kind[c->a->n_kinds++];
	memset(k, 0, sizeof *k);
	return k;
}

/* The kinds from the list: each (template, mixer) pair that occurs is one
 * kind, in template order, then in order of first occurrence; sliding and
 * chunked kinds take c->window. Attention kinds without their own kv_dim
 * take the arch's; the others cache nothing per token. */
static void group_layers(cfg *c)
{
	gs_arch *a = c->a;
	gs_layer_kind tmpl[GS_MAX_LAYER_KINDS], out[GS_MAX_LAYER_KINDS];
	int key_t[GS_MAX_LAYER_KINDS], key_m[GS_MAX_LAYER_KINDS], nt = a->n_kinds, nk = 0;

	if (c->rc != GS_OK)
		return;
	if (c->lt != NULL) {
		uint8_t *kof = gs_xcalloc((size_t)c->nl + 1, 1); /* each layer's kind */
		memcpy(tmpl, a->kind, sizeof tmpl);
		for (int t = 0; t < nt; t++) {
			for (int64_t i = 0; i < c->nl; i++) {
				int j;
				if (c->lt[i] != t)
					continue;
				for (j = 0; j < nk; j++)
					if (key_t[j] == t && key_m[j] == c->lm[i])
						break;
				if (j == nk) {
					if (nk == GS_MAX_LAYER_KINDS) {
						field_fail(c, GS_ECONFIG, c->pattern_key ? c->pattern_key : "num_hidden_layers",
						           "more than %d distinct layer kinds (mixer and MLP): not modelled",
						           GS_MAX_LAYER_KINDS);
						free(kof);
						return;
					}
					key_t[nk] = t;
					key_m[nk] = c->lm[i];
					out[nk] = tmpl[t];
					out[nk].mixer = (gs_mixer)c->lm[i];
					out[nk].n_layers = 0;
					nk++;
				}
				kof[i] = (uint8_t)j;
				out[j].n_layers++;
			}
		}
		/* the kinds run in the layers' order only when the kind of
		 * each layer never goes back to an earlier one */
		for (int64_t i = 1; i < c->nl; i++)
			if (kof[i] < kof[i - 1])
				a->interleaved = true;
		free(kof);
		memcpy(a->kind, out, sizeof out);
		a->n_kinds = nk;
	}
	for (int i = 0; i < a->n_kinds; i++) {
		gs_layer_kind *k = &a->kind[i];
		if (k->mixer == GS_MIX_SLIDING || k->mixer == GS_MIX_CHUNKED)
			k->window = c->window;
		if (!gs_kind_has_kv(k))
			k->kv_dim = 0;
		else if (k->kv_dim == 0)
			k->kv_dim = a->kv_cache_dim;
		if (k->mlp == GS_MLP_DENSE && k->n_experts > 0)
			k->mlp = GS_MLP_MOE;
	}
}

/* A layer-type name and the mixer it is. */
typedef struct type_name {
	const char *name;
	gs_mixer mix;
} type_name;

static const type_name TN_ATTN[] = { { "full_attention", GS_MIX_FULL },
	                             { "sliding_attention", GS_MIX_SLIDING },
	                             { NULL, 0 } };
static const type_name TN_FULL[] = { { "full_attention", GS_MIX_FULL }, { NULL, 0 } };

/* "a, b, c" of a name list, for messages. */
static void names_text(const type_name *ok, char *buf, size_t n)
{
	size_t k = 0;

	buf[0] = '\0';
	for (int i = 0; ok[i].name != NULL && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? ", " : "", ok[i].name);
}

/* The field key[i] as a message names it ("layer_types[3]"). */
static const char *indexed(char *buf, size_t n, const char *key, int64_t i)
{
	snprintf(buf, n, "%s[%lld]", key, (long long)i);
	return buf;
}

/* A per-layer list of L strings (key: layer_types, layers_block_type),
 * each one of ok's names: their mixers into c->lm (the whole list, or
 * false with the field named). */
static bool read_type_list(cfg *c, const char *key, int64_t L, const type_name *ok)
{
	const cJSON *v = gs_jget_item(c->obj, key);
	char got[64], idx[64], list[160];
	int64_t i = 0;

	if (c->rc != GS_OK || v == NULL)
		return false;
	if (!cJSON_IsArray(v)) {
		gs_json_describe(v, got, sizeof got);
		field_fail(c, GS_ECONFIG, key, "must be an array of layer kinds (got %s)", got);
		return false;
	}
	if ((int64_t)cJSON_GetArraySize(v) != L) {
		field_fail(c, GS_ECONFIG, key, "has %d entries for num_hidden_layers %lld",
		           cJSON_GetArraySize(v), (long long)L);
		return false;
	}
	names_text(ok, list, sizeof list);
	for (const cJSON *x = v->child; x != NULL; x = x->next, i++) {
		int j = 0;
		while (ok[j].name != NULL && !(cJSON_IsString(x) && strcmp(x->valuestring, ok[j].name) == 0))
			j++;
		if (ok[j].name == NULL) {
			gs_json_describe(x, got, sizeof got);
			field_fail(c, GS_ECONFIG, indexed(idx, sizeof idx, key, i),
			           "%s is not a layer kind model_type \"%.32s\" has (it has %s): not sized", got,
			           c->a->model_type, list);
			return false;
		}
		c->lm[i] = (uint8_t)ok[j].mix;
	}
	c->pattern_key = key;
	return true;
}

/* A per-layer list of L integers (Llama 4's no_rope_layers, moe_layers as
 * flags or indices): flags[i] = its value (as_index: 1 where i is listed).
 * Absent or empty: false, flags untouched. */
static bool read_layer_ints(cfg *c, const char *key, int64_t L, bool as_index, uint8_t *flags)
{
	const cJSON *v = gs_jget_item(c->obj, key);
	char got[64], idx[64];
	int64_t i = 0;

	if (c->rc != GS_OK || v == NULL)
		return false;
	if (!cJSON_IsArray(v)) {
		gs_json_describe(v, got, sizeof got);
		field_fail(c, GS_ECONFIG, key, "must be an array (got %s)", got);
		return false;
	}
	if (cJSON_GetArraySize(v) == 0)
		return false;
	if (!as_index && (int64_t)cJSON_GetArraySize(v) != L) {
		field_fail(c, GS_ECONFIG, key, "has %d entries for num_hidden_layers %lld",
		           cJSON_GetArraySize(v), (long long)L);
		return false;
	}
	if (as_index)
		memset(flags, 0, (size_t)L);
	for (const cJSON *x = v->child; x != NULL; x = x->next, i++) {
		double d = cJSON_IsNumber(x) ? x->valuedouble : -1;
		bool ok = isfinite(d) && d == floor(d) && d >= 0 && (as_index ? d < (double)L : d <= 1);
		if (!ok) {
			gs_json_describe(x, got, sizeof got);
			if (as_index)
				field_fail(c, GS_ECONFIG, indexed(idx, sizeof idx, key, i),
				           "must be a layer index from 0 to %lld (got %s)", (long long)(L - 1), got);
			else
				field_fail(c, GS_ECONFIG, indexed(idx, sizeof idx, key, i), "must be 0 or 1 (got %s)",
				           got);
			return false;
		}
		if (as_index)
			flags[(int64_t)d] = 1;
		else
			flags[i] = (uint8_t)d;
	}
	return true;
}

/* ---- families ---- */

typedef enum llama_kind {
	LK_LLAMA, LK_MISTRAL, LK_QWEN2, LK_QWEN3, LK_GEMMA, LK_GEMMA2, LK_GEMMA3, LK_PHI3, LK_OLMO,
	LK_OLMO2, LK_QWEN1, LK_SMOLLM3, LK_GENERIC, LK_MIXTRAL, LK_STARCODER2, LK_GPT_OSS
} llama_kind;

/* Which layers attend through a window, as transformers lays them out
 * (the configuration_*.py classes build layer_types; DynamicCache(config)
 * gives a sliding_attention layer a DynamicSlidingWindowLayer of
 * sliding_window): the config's layer_types when it has one, else the
 * family's rule. Fills c->lm (layers_begin first) and c->window, and
 * a->sliding_window when every layer slides. A family without windows
 * takes only full_attention in layer_types. */
static void attn_pattern(cfg *c, llama_kind lk)
{
	gs_arch *a = c->a;
	int64_t L = c->nl, w = 0, mwl = 0, period = 0;
	bool all = false, from = false, slides = true;

	if (c->rc != GS_OK)
		return;
	switch (lk) {
	case LK_MISTRAL: /* MistralConfig, Phi3Config, MixtralConfig, Starcoder2Config: every layer */
	case LK_PHI3:
	case LK_MIXTRAL:
	case LK_STARCODER2:
		w = get_int(c, "sliding_window", 1, 0, false);
		all = true;
		break;
	case LK_QWEN2: /* Qwen2Config, Qwen3Config, SmolLM3Config: layers from max_window_layers */
	case LK_QWEN3:
	case LK_SMOLLM3:
		if (get_bool(c, "use_sliding_window", false))
			w = get_int(c, "sliding_window", 1, 0, false);
		mwl = get_int(c, "max_window_layers", 0, 28, false);
		from = true;
		break;
	case LK_GEMMA2: /* Gemma2Config: "sliding_attention" if (i + 1) % 2 */
		w = get_int(c, "sliding_window", 1, 4096, false);
		period = 2;
		break;
	case LK_GPT_OSS: /* GptOssConfig: the same alternation, sliding_window 128 */
		w = get_int(c, "sliding_window", 1, 128, false);
		period = 2;
		break;
	case LK_GEMMA3: /* Gemma3TextConfig: sliding unless (i + 1) % sliding_window_pattern == 0 */
		w = get_int(c, "sliding_window", 1, 4096, false);
		period = get_int(c, "sliding_window_pattern", 1, 6, false);
		break;
	default:
		break;
	}
	if (c->rc != GS_OK)
		return;
	c->window = w;
	if (has(c, "layer_types")) {
		if (!read_type_list(c, "layer_types", L, w > 0 ? TN_ATTN : TN_FULL))
			return;
	} else if (w > 0) {
		for (int64_t i = 0; i < L; i++) {
			bool sl = all || (from && i >= mwl) || (period > 0 && (i + 1) % period != 0);
			c->lm[i] = (uint8_t)(sl ? GS_MIX_SLIDING : GS_MIX_FULL);
		}
	}
	for (int64_t i = 0; i < L; i++)
		slides = slides && c->lm[i] == GS_MIX_SLIDING;
	a->sliding_window = slides && L > 0 ? w : 0;
}

/* Layers whose no_rope_layers entry is 0 (Llama 4, SmolLM3: 1 = rotary, 0
 * = NoPE) become the NoPE copy of their template; absent or empty: every
 * interval-th layer ((i + 1) % no_rope_layer_interval == 0), the config
 * classes' default. NoPE changes no shape and no cache; the layer is its
 * own kind so that the list says what each layer is. */
static void nope_layers(cfg *c)
{
	gs_arch *a = c->a;
	int64_t L = c->nl, every;
	uint8_t *rope;
	int nt = a->n_kinds, copy[GS_MAX_LAYER_KINDS];

	if (c->rc != GS_OK)
		return;
	rope = gs_xcalloc((size_t)L + 1, 1);
	if (!read_layer_ints(c, "no_rope_layers", L, false, rope) && c->rc == GS_OK) {
		every = get_int(c, "no_rope_layer_interval", 1, 4, false);
		for (int64_t i = 0; i < L; i++)
			rope[i] = (uint8_t)((i + 1) % every != 0);
	}
	for (int t = 0; t < nt; t++)
		copy[t] = -1;
	for (int64_t i = 0; i < L && c->rc == GS_OK; i++) {
		int t = c->lt[i];
		if (rope[i])
			continue;
		if (copy[t] < 0) {
			gs_layer_kind *k = tmpl_new(c);
			*k = a->kind[t];
			k->nope = true;
			copy[t] = a->n_kinds - 1;
		}
		c->lt[i] = (uint8_t)copy[t];
	}
	free(rope);
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

/* A LLaMA-like config's dimensions (Gemma 3's defaults where absent,
 * Qwen v1's kv_channels and half-width MLP halves). */
static void llama_dims(cfg *c, llama_kind lk, dims *d)
{
	int64_t hd_def = 0;

	if (lk == LK_QWEN3)
		hd_def = 128; /* Qwen3Config default */
	if (lk == LK_GEMMA || lk == LK_GEMMA2 || lk == LK_GEMMA3)
		hd_def = 256;
	if (lk == LK_GEMMA3) {
		gemma3_defaults(c);
		d->H = get_int(c, "hidden_size", 1, 0, true);
		d->L = get_int(c, "num_hidden_layers", 1, 0, true);
		d->nh = gemma3_get(c, "num_attention_heads", 8);
		d->nkv = gemma3_get(c, "num_key_value_heads", 4);
		d->hd = gemma3_get(c, "head_dim", 256);
		d->I = get_int(c, "intermediate_size", 1, 0, true);
		d->V = gemma3_get(c, "vocab_size", 262208);
		if (c->rc == GS_OK)
			kv_divides(c, d, "num_key_value_heads");
	} else {
		read_dims(c, d, hd_def, true);
	}
	if (lk == LK_QWEN1 && c->rc == GS_OK) {
		/* Qwen v1's remote code (modeling_qwen.py, QWenAttention and
		 * QWenMLP): heads of kv_channels, and w1 and w2 each
		 * intermediate_size / 2 wide. */
		d->hd = get_int(c, "kv_channels", 1, d->hd, false);
		if (c->rc == GS_OK && d->I % 2 != 0)
			field_fail(c, GS_ECONFIG, "intermediate_size",
			           "must be even: Qwen v1's w1 and w2 are half of it each (got %" PRId64 ")", d->I);
		d->I /= 2;
	}
}

/* Which of a LLaMA-like layer's linears carry a bias: q/k/v, o, the MLP. */
static void llama_biases(cfg *c, llama_kind lk, bool *qkv_bias, bool *o_bias, bool *mlp_bias)
{
	*qkv_bias = *o_bias = *mlp_bias = false;
	switch (lk) {
	case LK_LLAMA:
	case LK_GENERIC:
	case LK_SMOLLM3: /* SmolLM3Config: attention_bias, mlp_bias (LlamaAttention, LlamaMLP) */
		*qkv_bias = *o_bias = get_bool(c, "attention_bias", false);
		*mlp_bias = get_bool(c, "mlp_bias", false);
		break;
	case LK_QWEN2:
		*qkv_bias = true;
		break;
	case LK_QWEN1: /* c_attn always has a bias; c_proj, w1, w2 and the MLP's c_proj not when no_bias */
		*qkv_bias = true;
		*o_bias = *mlp_bias = !get_bool(c, "no_bias", true);
		break;
	case LK_QWEN3:
	case LK_GEMMA:
	case LK_GEMMA2:
	case LK_GEMMA3:
	case LK_OLMO:  /* OlmoAttention = LlamaAttention: q/k/v/o bias */
	case LK_OLMO2:
		*qkv_bias = *o_bias = get_bool(c, "attention_bias", false);
		break;
	default:
		break;
	}
}

/* A LLaMA-like layer's linears: Qwen v1's c_attn/w1/w2, Phi-3's fused
 * qkv_proj and gate_up_proj, else q/k/v/o and gate/up/down. */
static void llama_linears(cfg *c, gs_layer_kind *k, llama_kind lk, const dims *d, bool qkv_bias, bool o_bias,
                          bool mlp_bias)
{
	gs_arch *a = c->a;

	if (lk == LK_QWEN1) {
		int64_t q = mul(c, d->nh, d->hd, "kv_channels");
		lin(k, "c_attn", GS_ROLE_QKV, d->H, mul(c, 3, q, "kv_channels"), qkv_bias);
		lin(k, "attn.c_proj", GS_ROLE_O, q, d->H, o_bias);
		lin(k, "w2", GS_ROLE_GATE, d->H, d->I, mlp_bias);
		lin(k, "w1", GS_ROLE_UP, d->H, d->I, mlp_bias);
		lin(k, "mlp.c_proj", GS_ROLE_DOWN, d->I, d->H, mlp_bias);
		if (a->max_pos == 0) /* older files give the context as seq_length only */
			a->max_pos = get_int(c, "seq_length", 1, 0, false);
	} else if (lk == LK_PHI3) {
		int64_t q = mul(c, d->nh, d->hd, "head_dim");
		int64_t qkv = add(c, q, mul(c, mul(c, 2, d->nkv, "num_key_value_heads"), d->hd, "head_dim"),
		                  "head_dim");
		lin(k, "qkv_proj", GS_ROLE_QKV, d->H, qkv, false);
		lin(k, "o_proj", GS_ROLE_O, q, d->H, false);
		lin(k, "gate_up_proj", GS_ROLE_GATE_UP, d->H, mul(c, 2, d->I, "intermediate_size"), false);
		lin(k, "down_proj", GS_ROLE_DOWN, d->I, d->H, false);
	} else {
		add_attn(c, k, d, qkv_bias, o_bias);
		add_gated(k, "", d->H, d->I, mlp_bias);
	}
}

/* A LLaMA-like layer's norms (Gemma 2/3's four, OLMo's none) and query/key
 * norms, the final norm, Gemma's soft-capping. */
static void llama_norms(cfg *c, gs_layer_kind *k, llama_kind lk, const dims *d)
{
	gs_arch *a = c->a;
	int64_t norms = 2;

	if (lk == LK_GEMMA2 || lk == LK_GEMMA3) {
		norms = 4; /* input, post_attention, pre_ and post_feedforward */
		a->layer_norms = 4;
		/* tanh soft-capping of scores and logits (Gemma 2; null in Gemma 3) */
		a->attn_softcap = get_positive(c, "attn_logit_softcapping");
		a->final_softcap = get_positive(c, "final_logit_softcapping");
	}
	if (lk == LK_OLMO)
		norms = 0; /* OlmoLayerNorm: no weight, no bias */
	k->other_params = mul(c, norms, d->H, "hidden_size");
	a->qk_norm = lk == LK_QWEN3 || lk == LK_GEMMA3 || lk == LK_OLMO2;
	if (lk == LK_QWEN3 || lk == LK_GEMMA3) /* q_norm, k_norm */
		k->other_params = add(c, k->other_params, mul(c, 2, d->hd, "head_dim"), "head_dim");
	if (lk == LK_OLMO2) /* q_norm over all query heads, k_norm over the kv heads */
		k->other_params = add(c, k->other_params,
		                      mul(c, add(c, d->nh, d->nkv, "num_key_value_heads"), d->hd, "head_dim"),
		                      "head_dim");
	a->p_final = lk == LK_OLMO ? 0 : d->H;
	if (lk == LK_OLMO)
		a->norm = GS_NORM_LAYER; /* non-parametric LayerNorm */
}

static void fam_llama(cfg *c, llama_kind lk)
{
	gs_arch *a = c->a;
	gs_layer_kind *k = &a->kind[0];
	dims d;
	bool qkv_bias, o_bias, mlp_bias, tied;

	llama_dims(c, lk, &d);
	llama_biases(c, lk, &qkv_bias, &o_bias, &mlp_bias);
	/* SmolLM3Config defaults tie_word_embeddings to true, as the Gemma
	 * configs do; the key is often left out of the file */
	tied = get_bool(c, "tie_word_embeddings",
	                lk == LK_GEMMA || lk == LK_GEMMA2 || lk == LK_GEMMA3 || lk == LK_SMOLLM3 ||
	                        (c->fam_tied_default && lk != LK_GENERIC));
	if (c->rc != GS_OK)
		return;
	set_common(c, &d, tied);
	a->act = GS_ACT_GATED;
	a->norm = GS_NORM_RMS;
	a->rotary = true;
	a->n_kinds = 1;
	k->n_layers = d.L;
	llama_linears(c, k, lk, &d, qkv_bias, o_bias, mlp_bias);
	llama_norms(c, k, lk, &d);
	k->mlp_inner = d.I;
	if (!layers_begin(c, d.L, d.H))
		return;
	attn_pattern(c, lk);
	if (lk == LK_SMOLLM3)
		nope_layers(c); /* SmolLM3Config: no_rope_layers, every 4th layer NoPE */
	if (lk == LK_GENERIC) {
		note(c,
		     "unknown model_type \"%s\": sized as a generic LLaMA-style decoder (q/k/v/o "
		     "attention, gated MLP gate/up/down, RMSNorm, rotary, %s head)",
		     a->model_type, tied ? "tied" : "untied");
	}
}

/* Qwen-MoE's layer rule (Qwen2MoeDecoderLayer, Qwen3MoeDecoderLayer,
 * Qwen3NextDecoderLayer): layer i is MoE when (i + 1) %
 * decoder_sparse_step == 0 and i is not in mlp_only_layers. moe[i] = 1. */
static void qwen_moe_layers(cfg *c, int64_t L, uint8_t *moe)
{
	int64_t step = get_int(c, "decoder_sparse_step", 1, 1, false);
	uint8_t *only;

	if (c->rc != GS_OK)
		return;
	only = gs_xcalloc((size_t)L + 1, 1);
	read_layer_ints(c, "mlp_only_layers", L, true, only);
	for (int64_t i = 0; i < L; i++)
		moe[i] = (uint8_t)((i + 1) % step == 0 && !only[i]);
	free(only);
}

/* Mixture-of-experts layers of Mixtral, Qwen2-MoE and Qwen3-MoE. */
static void fam_moe(cfg *c, const char *type)
{
	gs_arch *a = c->a;
	bool mixtral = strcmp(type, "mixtral") == 0, qwen2 = strcmp(type, "qwen2_moe") == 0;
	bool qwen3 = !mixtral && !qwen2;
	dims d;
	int64_t E, top, moeI, shI = 0, n_moe = 0, hd_def = 0;
	bool qkv_bias = false, o_bias = false, tied;
	uint8_t *moe;

	if (qwen3)
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
	tied = get_bool(c, "tie_word_embeddings", c->fam_tied_default);
	if (c->rc != GS_OK)
		return;
	if (!layers_begin(c, d.L, d.H))
		return;
	moe = c->lt; /* template 1 (MoE) where the rule says so */
	if (mixtral)
		memset(moe, 1, (size_t)d.L);
	else
		qwen_moe_layers(c, d.L, moe);
	for (int64_t i = 0; i < d.L; i++)
		n_moe += moe[i];
	if (c->rc == GS_OK && n_moe < d.L && d.I == 0)
		get_int(c, "intermediate_size", 1, 0, true); /* fails: dense layers need it */
	if (c->rc != GS_OK)
		return;
	set_common(c, &d, tied);
	a->intermediate = d.I ? d.I : moeI;
	a->act = GS_ACT_GATED;
	a->norm = GS_NORM_RMS;
	a->rotary = true;
	a->p_final = d.H;
	a->n_kinds = 0;
	{
		gs_layer_kind *k = tmpl_new(c); /* template 0: dense */
		add_attn(c, k, &d, qkv_bias, o_bias);
		if (n_moe < d.L)
			add_gated(k, "", d.H, d.I, false);
		k->mlp_inner = d.I;
	}
	{
		gs_layer_kind *k = tmpl_new(c); /* template 1: MoE */
		gs_linear *first;

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
	a->qk_norm = qwen3;
	for (int i = 0; i < a->n_kinds; i++) {
		a->kind[i].other_params = mul(c, 2, d.H, "hidden_size");
		if (qwen3) /* q_norm, k_norm */
			a->kind[i].other_params =
				add(c, a->kind[i].other_params, mul(c, 2, d.hd, "head_dim"), "head_dim");
	}
	attn_pattern(c, mixtral ? LK_MIXTRAL : qwen2 ? LK_QWEN2 : LK_QWEN3);
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
	/* Layer i is MoE when i >= first_k_dense_replace and i % freq == 0. */
	if (!layers_begin(c, d.L, d.H))
		return;
	n_moe = 0;
	for (int64_t i = 0; i < d.L; i++) {
		c->lt[i] = (uint8_t)(E > 0 && i >= firstk && i % freq == 0);
		c->lm[i] = GS_MIX_MLA;
		n_moe += c->lt[i];
	}
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
		gs_layer_kind *k = tmpl_new(c); /* template 0 dense, 1 MoE */

		if ((moe ? n_moe : n_dense) == 0)
			continue; /* a template no layer takes */
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
	if (!layers_begin(c, d.L, d.H))
		return;
	attn_pattern(c, LK_STARCODER2);
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

/* ---- the 2025-26 families ---- */

/* Routed experts stored as one fused gate+up tensor [E, H, 2I] and one
 * down tensor [E, I, H] (gpt-oss, Llama 4's text experts, Granite's
 * input_linear/output_linear): two expert "linears" with `pfx` names. */
static void fused_experts(gs_layer_kind *k, const char *up_name, const char *down_name, int64_t H,
                          int64_t I, int64_t twoI, int64_t E, int64_t top, bool bias)
{
	gs_linear *l = lin(k, up_name, GS_ROLE_GATE_UP, H, twoI, bias);

	as_experts(l, E, top);
	l = lin(k, down_name, GS_ROLE_DOWN, I, H, bias);
	as_experts(l, E, top);
	k->n_experts = E;
	k->experts_per_tok = top;
}

/* The experts' count and top-k, checked against each other. */
static void read_experts(cfg *c, const char *e_key, const char *const *top_keys, int64_t *E,
                         int64_t *top)
{
	*E = get_int(c, e_key, 1, 0, true);
	*top = get_int_alias(c, top_keys, 1, 0, true);
	if (c->rc == GS_OK && *top > *E)
		field_fail(c, GS_ECONFIG, top_keys[0], "must not exceed the %" PRId64 " experts (got %" PRId64 ")",
		           *E, *top);
}

static const char *const K_TOPK[] = { "num_experts_per_tok", "experts_per_token", NULL };

/* gpt-oss (GptOssForCausalLM; transformers models/gpt_oss/modeling_gpt_oss.py,
 * 4.55): GQA attention with q/k/v/o biases and one learned sink logit per
 * head (self_attn.sinks), layers alternating sliding (sliding_window 128)
 * and full attention (layer_types), an MoE in every layer: a router with a
 * bias, experts with a fused gate_up_proj [E, H, 2I] and down_proj
 * [E, I, H], each with its bias, no shared expert; untied head. */
static void fam_gpt_oss(cfg *c, int variant)
{
	gs_arch *a = c->a;
	gs_layer_kind *k;
	dims d;
	int64_t E, top;
	bool ab, tied;

	(void)variant;
	read_dims(c, &d, 64, true); /* GptOssConfig head_dim 64 */
	read_experts(c, "num_local_experts", K_TOPK, &E, &top);
	ab = get_bool(c, "attention_bias", true);
	tied = get_bool(c, "tie_word_embeddings", false);
	if (c->rc != GS_OK)
		return;
	set_common(c, &d, tied);
	a->act = GS_ACT_GATED;
	a->norm = GS_NORM_RMS;
	a->rotary = true;
	a->p_final = d.H;
	k = tmpl_new(c);
	add_attn(c, k, &d, ab, ab);
	lin(k, "router", GS_ROLE_ROUTER, d.H, E, true);
	fused_experts(k, "experts.gate_up_proj", "experts.down_proj", d.H, d.I,
	              mul(c, 2, d.I, "intermediate_size"), E, top, true);
	k->mlp_inner = mul(c, top, d.I, "num_experts_per_tok");
	k->sinks = true;
	k->other_params = add(c, mul(c, 2, d.H, "hidden_size"), d.nh, "num_attention_heads");
	if (!layers_begin(c, d.L, d.H))
		return;
	attn_pattern(c, LK_GPT_OSS);
}

/* Llama 4's text stack (Llama4TextModel; transformers models/llama4/
 * modeling_llama4.py @ 000c33fd, configuration_llama4.py): layer i is MoE
 * when it is in moe_layers (default every interleave_moe_layer_step-th:
 * range(step - 1, L, step)): a router (no bias), experts with a fused
 * gate_up_proj [E, H, 2I] and down_proj [E, I, H] and an always-on shared
 * expert of intermediate_size; the other layers a gated MLP of
 * intermediate_size_mlp. no_rope_layers[i] = 1: RoPE and chunked
 * attention (attention_chunk_size); 0: NoPE full attention (default every
 * 4th). use_qk_norm is a weightless L2 norm. */
static void fam_llama4_text(cfg *c)
{
	gs_arch *a = c->a;
	dims d;
	int64_t E, top, Im, step, chunk;
	bool tied, ab;
	uint8_t *moe;
	static const type_name tn[] = { { "full_attention", GS_MIX_FULL },
		                        { "chunked_attention", GS_MIX_CHUNKED },
		                        { NULL, 0 } };

	read_dims(c, &d, 0, true);
	read_experts(c, "num_local_experts", K_TOPK, &E, &top);
	Im = get_int(c, "intermediate_size_mlp", 1, 0, false);
	step = get_int(c, "interleave_moe_layer_step", 1, 1, false);
	chunk = get_int(c, "attention_chunk_size", 1, 0, false);
	ab = get_bool(c, "attention_bias", false);
	tied = get_bool(c, "tie_word_embeddings", c->fam_tied_default);
	if (c->rc != GS_OK)
		return;
	set_common(c, &d, tied);
	a->act = GS_ACT_GATED;
	a->norm = GS_NORM_RMS;
	a->rotary = true;
	a->p_final = d.H;
	if (!layers_begin(c, d.L, d.H))
		return;
	moe = c->lt;
	if (!read_layer_ints(c, "moe_layers", d.L, true, moe) && c->rc == GS_OK)
		for (int64_t i = step - 1; i < d.L; i += step)
			moe[i] = 1;
	if (c->rc != GS_OK)
		return;
	for (int64_t i = 0; i < d.L; i++)
		if (!moe[i] && Im == 0) {
			get_int(c, "intermediate_size_mlp", 1, 0, true); /* fails: dense layers need it */
			return;
		}
	{
		gs_layer_kind *k = tmpl_new(c); /* 0: dense */
		add_attn(c, k, &d, ab, ab);
		add_gated(k, "feed_forward.", d.H, Im ? Im : 1, false);
		k->mlp_inner = Im;
		k->other_params = mul(c, 2, d.H, "hidden_size");
		k = tmpl_new(c); /* 1: MoE */
		add_attn(c, k, &d, ab, ab);
		lin(k, "router", GS_ROLE_ROUTER, d.H, E, false);
		fused_experts(k, "experts.gate_up_proj", "experts.down_proj", d.H, d.I,
		              mul(c, 2, d.I, "intermediate_size"), E, top, false);
		add_gated(k, "shared_expert.", d.H, d.I, false);
		k->mlp_inner = add(c, mul(c, top, d.I, "num_experts_per_tok"), d.I, "intermediate_size");
		k->other_params = mul(c, 2, d.H, "hidden_size");
	}
	c->window = chunk;
	if (has(c, "layer_types")) {
		read_type_list(c, "layer_types", d.L, tn);
	} else {
		uint8_t *rope = gs_xcalloc((size_t)d.L + 1, 1);
		if (!read_layer_ints(c, "no_rope_layers", d.L, false, rope) && c->rc == GS_OK) {
			int64_t every = get_int(c, "no_rope_layer_interval", 1, 4, false);
			for (int64_t i = 0; i < d.L; i++)
				rope[i] = (uint8_t)((i + 1) % every != 0);
		}
		for (int64_t i = 0; i < d.L; i++)
			c->lm[i] = (uint8_t)(rope[i] && chunk > 0 ? GS_MIX_CHUNKED : GS_MIX_FULL);
		free(rope);
	}
	nope_layers(c);
}

/* The Gated DeltaNet and gated attention of Qwen3-Next
 * (Qwen3NextForCausalLM; transformers models/qwen3_next/
 * modular_qwen3_next.py @ 043bb8dd): layer i is full attention when
 * layer_types says so, else when (i + 1) % full_attention_interval == 0,
 * the others linear attention; each followed by the Qwen-MoE block (router,
 * experts, a shared expert with its sigmoid gate) or, in mlp_only_layers,
 * a dense MLP. Full attention: q_proj twice the query width (query and
 * output gate), q_norm and k_norm. Gated DeltaNet: in_proj_qkvz (2 key + 2
 * value widths), in_proj_ba (2 per value head), a depthwise conv over
 * 2 key + 1 value width without bias, dt_bias and A_log per value head, a
 * gated RMSNorm of the value head dim, out_proj. fla's chunk kernel keeps
 * the final recurrent state in fp32 (chunk_delta_h.py: final_state
 * dtype=torch.float32). */
static void fam_qwen3_next(cfg *c, int variant)
{
	gs_arch *a = c->a;
	dims d;
	int64_t E, top, moeI, shI, every, nv, nk, dk, dv, K, kd, vd, conv;
	bool tied, ab;
	static const type_name tn[] = { { "full_attention", GS_MIX_FULL },
		                        { "linear_attention", GS_MIX_LINEAR },
		                        { NULL, 0 } };
	uint8_t *moe;

	(void)variant;
	read_dims(c, &d, 256, false);
	read_experts(c, "num_experts", K_TOPK, &E, &top);
	moeI = get_int(c, "moe_intermediate_size", 1, 0, true);
	shI = get_int(c, "shared_expert_intermediate_size", 0, 0, false);
	every = get_int(c, "full_attention_interval", 1, 4, false);
	nv = get_int(c, "linear_num_value_heads", 1, 0, true);
	nk = get_int(c, "linear_num_key_heads", 1, 0, true);
	dk = get_int(c, "linear_key_head_dim", 1, 0, true);
	dv = get_int(c, "linear_value_head_dim", 1, 0, true);
	K = get_int(c, "linear_conv_kernel_dim", 1, 4, false);
	ab = get_bool(c, "attention_bias", false);
	tied = get_bool(c, "tie_word_embeddings", false);
	if (c->rc != GS_OK)
		return;
	set_common(c, &d, tied);
	a->act = GS_ACT_GATED;
	a->norm = GS_NORM_RMS;
	a->rotary = true;
	a->qk_norm = true;
	a->p_final = d.H;
	kd = mul(c, nk, dk, "linear_key_head_dim");
	vd = mul(c, nv, dv, "linear_value_head_dim");
	conv = add(c, mul(c, 2, kd, "linear_key_head_dim"), vd, "linear_value_head_dim");
	if (!layers_begin(c, d.L, d.H))
		return;
	moe = gs_xcalloc((size_t)d.L + 1, 1);
	qwen_moe_layers(c, d.L, moe);
	if (has(c, "layer_types"))
		read_type_list(c, "layer_types", d.L, tn);
	else
		for (int64_t i = 0; i < d.L; i++)
			c->lm[i] = (uint8_t)((i + 1) % every == 0 ? GS_MIX_FULL : GS_MIX_LINEAR);
	for (int64_t i = 0; i < d.L; i++) {
		c->lt[i] = (uint8_t)((c->lm[i] == GS_MIX_LINEAR ? 2 : 0) + moe[i]);
		if (!moe[i] && d.I == 0 && c->rc == GS_OK)
			get_int(c, "intermediate_size", 1, 0, true); /* fails: dense layers need it */
	}
	free(moe);
	if (c->rc != GS_OK)
		return;
	for (int t = 0; t < 4; t++) {
		gs_layer_kind *k = tmpl_new(c); /* 0 attention, 1 attention + MoE, 2 GDN, 3 GDN + MoE */
		int64_t q = mul(c, d.nh, d.hd, "head_dim");

		k->other_params = mul(c, 2, d.H, "hidden_size");
		if (t < 2) {
			lin(k, "q_proj", GS_ROLE_Q, d.H, mul(c, 2, q, "head_dim"), ab); /* query and its gate */
			lin(k, "k_proj", GS_ROLE_K, d.H, mul(c, d.nkv, d.hd, "head_dim"), ab);
			lin(k, "v_proj", GS_ROLE_V, d.H, mul(c, d.nkv, d.hd, "head_dim"), ab);
			lin(k, "o_proj", GS_ROLE_O, q, d.H, ab);
			k->other_params = add(c, k->other_params, mul(c, 2, d.hd, "head_dim"), "head_dim");
		} else {
			int64_t po = add(c, mul(c, 2, add(c, kd, vd, "linear_value_head_dim"), "linear_key_head_dim"),
			                 mul(c, 2, nv, "linear_num_value_heads"), "linear_num_value_heads");
			lin(k, "in_proj_qkvz", GS_ROLE_QKV, d.H, add(c, mul(c, 2, kd, "linear_key_head_dim"),
			                                           mul(c, 2, vd, "linear_value_head_dim"),
			                                           "linear_value_head_dim"), false);
			lin(k, "in_proj_ba", GS_ROLE_ATTN_OTHER, d.H, mul(c, 2, nv, "linear_num_value_heads"), false);
			lin(k, "out_proj", GS_ROLE_O, vd, d.H, false);
			/* conv1d (no bias), dt_bias, A_log, the gated norm */
			k->other_params = add(c, add(c, k->other_params, mul(c, conv, K, "linear_conv_kernel_dim"),
			                             "linear_conv_kernel_dim"),
			                      add(c, mul(c, 2, nv, "linear_num_value_heads"), dv, "linear_value_head_dim"),
			                      "linear_value_head_dim");
			k->st = (gs_state_shape){ .heads = nv, .k_heads = nk, .k_dim = dk, .v_dim = dv, .conv_dim = conv,
			                          .conv_kernel = K, .proj_out = po, .chunk = 64, .state_bytes = 4 };
		}
		if (t % 2 == 0) {
			add_gated(k, "mlp.", d.H, d.I ? d.I : 1, false);
			k->mlp_inner = d.I;
		} else {
			lin(k, "gate", GS_ROLE_ROUTER, d.H, E, false);
			experts3(k, add_gated(k, "", d.H, moeI, false), E, top);
			k->mlp_inner = mul(c, top, moeI, "num_experts_per_tok");
			if (shI > 0) {
				add_gated(k, "shared_expert.", d.H, shI, false);
				lin(k, "shared_expert_gate", GS_ROLE_ROUTER, d.H, 1, false);
				k->mlp_inner = add(c, k->mlp_inner, shI, "shared_expert_intermediate_size");
			}
			k->n_experts = E;
			k->experts_per_tok = top;
		}
	}
}

/* A Mamba-2 mixer's modules (transformers' Mamba2Mixer as Granite 4.0 H
 * and Nemotron-H use it): in_proj H -> 2I + 2gN + heads, a depthwise conv
 * over I + 2gN channels (kernel K, optional bias), dt_bias, A_log and D
 * per head, a gated RMSNorm of I, out_proj I -> H. */
static void mamba_mixer(cfg *c, gs_layer_kind *k, int64_t H, int64_t nh, int64_t p, int64_t g, int64_t N,
                        int64_t K, bool conv_bias, bool proj_bias, int64_t chunk, int state_bytes,
                        const char *heads_key)
{
	int64_t I = mul(c, nh, p, heads_key);
	int64_t conv = add(c, I, mul(c, mul(c, 2, g, heads_key), N, heads_key), heads_key);
	int64_t po = add(c, add(c, I, conv, heads_key), nh, heads_key);
	int64_t other = add(c, mul(c, conv, K, heads_key), conv_bias ? conv : 0, heads_key);

	lin(k, "in_proj", GS_ROLE_QKV, H, po, proj_bias);
	lin(k, "out_proj", GS_ROLE_O, I, H, proj_bias);
	other = add(c, other, add(c, mul(c, 3, nh, heads_key), I, heads_key), heads_key);
	k->other_params = add(c, k->other_params, other, heads_key);
	k->st = (gs_state_shape){ .heads = nh, .k_heads = g, .k_dim = N, .v_dim = p, .conv_dim = conv,
	                          .conv_kernel = K, .proj_out = po, .chunk = chunk,
	                          .state_bytes = state_bytes };
}

/* Granite 4.0 H (GraniteMoeHybridForCausalLM; transformers
 * models/granitemoehybrid/modeling_granitemoehybrid.py): layer_types names
 * each layer mamba or attention; every layer has two RMSNorms, its mixer,
 * the shared gated MLP (shared_mlp.input_linear H -> 2 x
 * shared_intermediate_size, output_linear) and, when num_local_experts >
 * 0, an MoE (router, experts input_linear [E, 2I, H] and output_linear).
 * The Mamba mixer's width is mamba_expand x hidden_size
 * (GraniteMoeHybridMambaLayer), its state and conv cache at the model's
 * dtype (HybridMambaAttentionDynamicCache). position_embedding_type
 * "nope": no rotary. */
static void fam_granite_hybrid(cfg *c, int variant)
{
	gs_arch *a = c->a;
	dims d;
	int64_t E, top = 0, sI, nh, p, g, N, K, expand, chunk;
	bool ab, tied, cb, pb;
	const char *pos;
	static const type_name tn[] = { { "attention", GS_MIX_FULL }, { "mamba", GS_MIX_MAMBA2 }, { NULL, 0 } };

	(void)variant;
	read_dims(c, &d, 0, false);
	E = get_int(c, "num_local_experts", 0, 0, false);
	if (E > 0)
		read_experts(c, "num_local_experts", K_TOPK, &E, &top);
	sI = get_int(c, "shared_intermediate_size", 1, 0, true);
	nh = get_int(c, "mamba_n_heads", 1, 128, false);
	p = get_int(c, "mamba_d_head", 1, 0, true);
	g = get_int(c, "mamba_n_groups", 1, 1, false);
	N = get_int(c, "mamba_d_state", 1, 256, false);
	K = get_int(c, "mamba_d_conv", 1, 4, false);
	expand = get_int(c, "mamba_expand", 1, 2, false);
	chunk = get_int(c, "mamba_chunk_size", 1, 256, false);
	cb = get_bool(c, "mamba_conv_bias", true);
	pb = get_bool(c, "mamba_proj_bias", false);
	ab = get_bool(c, "attention_bias", false);
	tied = get_bool(c, "tie_word_embeddings", false);
	pos = get_str(c, "position_embedding_type");
	if (c->rc == GS_OK && E > 0 && d.I == 0)
		get_int(c, "intermediate_size", 1, 0, true); /* fails: the experts need it */
	if (c->rc != GS_OK)
		return;
	if (mul(c, nh, p, "mamba_n_heads") != mul(c, expand, d.H, "mamba_expand")) {
		field_fail(c, GS_ECONFIG, "mamba_n_heads",
		           "x mamba_d_head (%lld x %lld) must equal mamba_expand x hidden_size (%lld x %lld): "
		           "the mixer's width and its state's would differ",
		           (long long)nh, (long long)p, (long long)expand, (long long)d.H);
		return;
	}
	if (pos != NULL && strcmp(pos, "nope") != 0 && strcmp(pos, "rope") != 0) {
		field_fail(c, GS_ECONFIG, "position_embedding_type", "must be \"nope\" or \"rope\" (got \"%.32s\")", pos);
		return;
	}
	set_common(c, &d, tied);
	a->act = GS_ACT_GATED;
	a->norm = GS_NORM_RMS;
	a->rotary = pos != NULL && strcmp(pos, "rope") == 0;
	a->p_final = d.H;
	if (!layers_begin(c, d.L, d.H))
		return;
	if (!has(c, "layer_types")) {
		field_fail(c, GS_ECONFIG, "layer_types", "missing: granitemoehybrid lists each layer's mixer");
		return;
	}
	if (!read_type_list(c, "layer_types", d.L, tn))
		return;
	for (int64_t i = 0; i < d.L; i++)
		c->lt[i] = (uint8_t)(c->lm[i] == GS_MIX_MAMBA2);
	for (int t = 0; t < 2; t++) {
		gs_layer_kind *k = tmpl_new(c); /* 0 attention, 1 Mamba-2 */
		k->other_params = mul(c, 2, d.H, "hidden_size");
		if (t == 0)
			add_attn(c, k, &d, ab, ab);
		else
			mamba_mixer(c, k, d.H, nh, p, g, N, K, cb, pb, chunk, 0, "mamba_n_heads");
		lin(k, "shared_mlp.input_linear", GS_ROLE_GATE_UP, d.H, mul(c, 2, sI, "shared_intermediate_size"), false);
		lin(k, "shared_mlp.output_linear", GS_ROLE_DOWN, sI, d.H, false);
		k->mlp_inner = sI;
		if (E > 0) {
			lin(k, "router", GS_ROLE_ROUTER, d.H, E, false);
			fused_experts(k, "experts.input_linear", "experts.output_linear", d.H, d.I,
			              mul(c, 2, d.I, "intermediate_size"), E, top, false);
			k->mlp_inner = add(c, k->mlp_inner, mul(c, top, d.I, "num_experts_per_tok"), "intermediate_size");
		}
	}
}

/* Nemotron-H's hybrid_override_pattern: one character a block, each of M
 * (Mamba-2), * (attention), - (MLP) or E (MoE), as many as the layers;
 * *n_e and *n_m count the E and - blocks. False (c failed naming the
 * field) otherwise. */
static bool nemotron_pattern(cfg *c, const char *pat, int64_t L, int *n_e, int *n_m)
{
	char idx[64];

	if (pat == NULL) {
		field_fail(c, GS_ECONFIG, "hybrid_override_pattern", "missing: nemotron_h gives each block's kind there");
		return false;
	}
	if ((int64_t)strlen(pat) != L) {
		field_fail(c, GS_ECONFIG, "hybrid_override_pattern", "has %zu blocks for num_hidden_layers %lld",
		           strlen(pat), (long long)L);
		return false;
	}
	for (int64_t i = 0; i < L; i++) {
		if (!strchr("M*-E", pat[i]) || pat[i] == '\0') {
			field_fail(c, GS_ECONFIG, indexed(idx, sizeof idx, "hybrid_override_pattern", i),
			           "'%c' is not a block kind (M Mamba-2, * attention, - MLP, E MoE)", pat[i]);
			return false;
		}
		*n_e += pat[i] == 'E';
		*n_m += pat[i] == '-';
	}
	return true;
}

/* Nemotron-H (NemotronHForCausalLM, NVIDIA's remote code
 * modeling_nemotron_h.py named in auto_map): hybrid_override_pattern has
 * one block per character, each one RMSNorm and one mixer: M Mamba-2
 * (heads x head_dim wide), * attention, - a plain MLP (up, down; relu2),
 * E an MoE of plain experts (router, moe_intermediate_size experts and a
 * shared expert of moe_shared_expert_intermediate_size). in_proj and
 * out_proj take use_bias; mamba_ssm_cache_dtype "float32" keeps the SSM
 * state in fp32. */
static void fam_nemotron_h(cfg *c, int variant)
{
	static const char *const k_hd[] = { "attention_head_dim", "head_dim", NULL };
	gs_arch *a = c->a;
	dims d;
	int64_t E = 0, top = 0, moeI = 0, shI = 0, nsh = 0, nh, p, g, N, K, chunk, hd;
	bool ab, mb, tied, cb, ub;
	const char *pat, *sdt;
	int n_e = 0, n_m = 0;

	(void)variant;
	d.H = get_int(c, "hidden_size", 1, 0, true);
	d.L = get_int(c, "num_hidden_layers", 1, 0, true);
	d.nh = get_int(c, "num_attention_heads", 1, 0, true);
	d.nkv = get_int(c, "num_key_value_heads", 1, d.nh, false);
	d.V = get_int(c, "vocab_size", 1, 0, true);
	d.I = get_int(c, "intermediate_size", 1, 0, false);
	hd = get_int_alias(c, k_hd, 1, 0, false);
	pat = get_str(c, "hybrid_override_pattern");
	nh = get_int(c, "mamba_num_heads", 1, 0, true);
	p = get_int(c, "mamba_head_dim", 1, 0, true);
	g = get_int(c, "n_groups", 1, 1, false);
	N = get_int(c, "ssm_state_size", 1, 0, true);
	K = get_int(c, "conv_kernel", 1, 4, false);
	chunk = get_int(c, "chunk_size", 1, 128, false);
	cb = get_bool(c, "use_conv_bias", true);
	ub = get_bool(c, "use_bias", false);
	ab = get_bool(c, "attention_bias", false);
	mb = get_bool(c, "mlp_bias", false);
	tied = get_bool(c, "tie_word_embeddings", false);
	sdt = get_str(c, "mamba_ssm_cache_dtype");
	if (c->rc != GS_OK)
		return;
	if (!nemotron_pattern(c, pat, d.L, &n_e, &n_m))
		return;
	if (get_bool(c, "mamba_proj_bias", ub) != ub && c->rc == GS_OK) {
		field_fail(c, GS_ECONFIG, "mamba_proj_bias", "disagrees with use_bias, which sizes in_proj and out_proj");
		return;
	}
	if (n_e > 0) {
		read_experts(c, "n_routed_experts", K_TOPK, &E, &top);
		moeI = get_int(c, "moe_intermediate_size", 1, 0, true);
		nsh = get_int(c, "n_shared_experts", 0, 1, false);
		if (nsh > 0)
			shI = get_int(c, "moe_shared_expert_intermediate_size", 1, 0, true);
	}
	if (n_m > 0 && d.I == 0)
		get_int(c, "intermediate_size", 1, 0, true);
	if (c->rc != GS_OK || (hd == 0 && !heads_divide(c, &d, "num_attention_heads")))
		return;
	if (hd > 0)
		d.hd = hd;
	if (!kv_divides(c, &d, "num_key_value_heads"))
		return;
	set_common(c, &d, tied);
	a->act = GS_ACT_PLAIN; /* relu2 MLPs and experts */
	a->norm = GS_NORM_RMS;
	a->rotary = get_num(c, "partial_rotary_factor", 0, 1, "a number from 0 to 1", 1) > 0 && has(c, "rope_theta");
	a->p_final = d.H;
	a->layer_norms = 1;
	if (!layers_begin(c, d.L, d.H))
		return;
	c->pattern_key = "hybrid_override_pattern";
	for (int t = 0; t < 4; t++) {
		gs_layer_kind *k = tmpl_new(c); /* 0 M, 1 *, 2 -, 3 E */
		k->other_params = d.H;
		k->norms = 1;
		switch (t) {
		case 0:
			mamba_mixer(c, k, d.H, nh, p, g, N, K, cb, ub, chunk, sdt && strcmp(sdt, "float32") == 0 ? 4 : 0,
			            "mamba_num_heads");
			k->mlp = GS_MLP_NONE;
			break;
		case 1:
			add_attn(c, k, &d, ab, ab);
			k->mlp = GS_MLP_NONE;
			break;
		case 2:
			lin(k, "up_proj", GS_ROLE_UP, d.H, d.I ? d.I : 1, mb);
			lin(k, "down_proj", GS_ROLE_DOWN, d.I ? d.I : 1, d.H, mb);
			k->mlp_inner = d.I;
			break;
		default:
			if (n_e == 0)
				break;
			lin(k, "gate", GS_ROLE_ROUTER, d.H, E, false);
			as_experts(lin(k, "experts.up_proj", GS_ROLE_UP, d.H, moeI, mb), E, top);
			as_experts(lin(k, "experts.down_proj", GS_ROLE_DOWN, moeI, d.H, mb), E, top);
			k->mlp_inner = mul(c, top, moeI, "num_experts_per_tok");
			if (nsh > 0) {
				lin(k, "shared_experts.up_proj", GS_ROLE_UP, d.H, shI, mb);
				lin(k, "shared_experts.down_proj", GS_ROLE_DOWN, shI, d.H, mb);
				k->mlp_inner = add(c, k->mlp_inner, shI, "moe_shared_expert_intermediate_size");
			}
			k->n_experts = E;
			k->experts_per_tok = top;
		}
	}
	for (int64_t i = 0; i < d.L; i++) {
		int t = pat[i] == 'M' ? 0 : pat[i] == '*' ? 1 : pat[i] == '-' ? 2 : 3;
		c->lt[i] = (uint8_t)t;
		c->lm[i] = (uint8_t)(t == 0 ? GS_MIX_MAMBA2 : t == 1 ? GS_MIX_FULL : GS_MIX_NONE);
	}
}

/* GLM-4.5 (Glm4MoeForCausalLM; transformers models/glm4_moe/
 * modeling_glm4_moe.py): GQA attention with q/k/v biases (attention_bias)
 * and none on o_proj, head_dim wide heads, q_norm/k_norm under use_qk_norm;
 * the first first_k_dense_replace layers a gated MLP, the rest an MoE
 * (router without bias; e_score_correction_bias is a buffer), gated
 * experts and n_shared_experts shared ones of moe_intermediate_size. The
 * next-token (MTP) layers are stored but not built. */
static void fam_glm4_moe(cfg *c, int variant)
{
	gs_arch *a = c->a;
	dims d;
	int64_t E, top, moeI, nsh, firstk, n_moe = 0;
	bool ab, tied, qkn;

	(void)variant;
	read_dims(c, &d, 0, true);
	read_experts(c, "n_routed_experts", K_TOPK, &E, &top);
	moeI = get_int(c, "moe_intermediate_size", 1, 0, true);
	nsh = get_int(c, "n_shared_experts", 0, 1, false);
	firstk = get_int(c, "first_k_dense_replace", 0, 1, false);
	ab = get_bool(c, "attention_bias", false);
	qkn = get_bool(c, "use_qk_norm", false);
	tied = get_bool(c, "tie_word_embeddings", false);
	get_frac(c, "partial_rotary_factor", 0.5);
	if (c->rc != GS_OK)
		return;
	set_common(c, &d, tied);
	a->act = GS_ACT_GATED;
	a->norm = GS_NORM_RMS;
	a->rotary = true;
	a->qk_norm = qkn;
	a->p_final = d.H;
	if (get_int(c, "num_nextn_predict_layers", 0, 0, false) > 0)
		note(c, "multi-token-prediction layers not counted (transformers does not load them)");
	if (!layers_begin(c, d.L, d.H))
		return;
	for (int64_t i = 0; i < d.L; i++) {
		c->lt[i] = (uint8_t)(i >= firstk);
		n_moe += c->lt[i];
	}
	for (int t = 0; t < 2; t++) {
		gs_layer_kind *k = tmpl_new(c);
		add_attn(c, k, &d, ab, false);
		k->other_params = add(c, mul(c, 2, d.H, "hidden_size"), qkn ? mul(c, 2, d.hd, "head_dim") : 0,
		                      "head_dim");
		if (t == 0) {
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
	(void)n_moe;
}

/* ---- vision towers (multimodal wrappers): parameters of the tower and
 * its projector, read from vision_config with its config class's
 * defaults; each formula is the module list of the transformers class
 * named ---- */

/* A reader over vision_config ("vision_config." in messages); NULL
 * vision_config: the config class's defaults throughout. */
static cfg vision_reader(cfg *c)
{
	cfg v = *c;
	const cJSON *vc = gs_jget_item(c->root, "vision_config");

	v.obj = cJSON_IsObject(vc) ? vc : NULL;
	v.pfx = "vision_config.";
	v.big_key = NULL;
	if (vc != NULL && !cJSON_IsObject(vc)) {
		char got[64];
		cfg r = *c; /* named from the top, whatever c reads */
		r.pfx = "";
		gs_json_describe(vc, got, sizeof got);
		field_fail(&r, GS_ECONFIG, "vision_config", "must be an object (got %s)", got);
		v.rc = c->rc = r.rc;
	}
	return v;
}

/* Positive integer field of vision_config with its class default. */
static int64_t vget(cfg *v, const char *key, int64_t def)
{
	if (v->obj == NULL || v->rc != GS_OK)
		return v->rc == GS_OK ? def : 1;
	return get_int(v, key, 1, def, false);
}

/* Linear layer parameters (in x out, and out more with a bias). */
static int64_t linp(cfg *c, int64_t in, int64_t out, bool bias, const char *key)
{
	return add(c, mul(c, in, out, key), bias ? out : 0, key);
}

/* SigLIP (SiglipVisionModel; transformers models/siglip/modeling_siglip.py,
 * SiglipVisionConfig defaults): Conv2d patch embedding with bias, a
 * position table of (image_size / patch_size)^2, layers of two LayerNorms,
 * q/k/v/out and fc1/fc2 all with biases, a post LayerNorm, and the
 * attention-pooling head when vision_use_head. Gemma 3's projector
 * (Gemma3MultiModalProjector): an RMSNorm of the vision width and a vision
 * x text matrix. */
static int64_t vision_siglip_gemma3(cfg *c, int64_t text_h)
{
	cfg v = vision_reader(c);
	int64_t H = vget(&v, "hidden_size", 768), I = vget(&v, "intermediate_size", 3072);
	int64_t L = vget(&v, "num_hidden_layers", 12), C = vget(&v, "num_channels", 3);
	int64_t img = vget(&v, "image_size", 224), P = vget(&v, "patch_size", 16);
	bool head = v.obj ? get_bool(&v, "vision_use_head", true) : true;
	int64_t t, layer, n;

	if (v.rc != GS_OK)
		return c->rc = v.rc, 0;
	n = (img / P) * (img / P);
	t = add(&v, linp(&v, mul(&v, mul(&v, C, P, "patch_size"), P, "patch_size"), H, true, "hidden_size"),
	        mul(&v, n, H, "image_size"), "image_size");
	layer = add(&v, mul(&v, 4, H, "hidden_size"), mul(&v, 4, linp(&v, H, H, true, "hidden_size"), "hidden_size"),
	            "hidden_size");
	layer = add(&v, layer, add(&v, linp(&v, H, I, true, "intermediate_size"), linp(&v, I, H, true, "intermediate_size"),
	                           "intermediate_size"), "intermediate_size");
	t = add(&v, add(&v, t, mul(&v, L, layer, "num_hidden_layers"), "num_hidden_layers"), mul(&v, 2, H, "hidden_size"),
	        "hidden_size");
	if (head) /* probe, MultiheadAttention (in_proj 3H, out_proj), LayerNorm, MLP */
		t = add(&v, t, add(&v, add(&v, H, add(&v, linp(&v, H, mul(&v, 3, H, "hidden_size"), true, "hidden_size"),
		                                       linp(&v, H, H, true, "hidden_size"), "hidden_size"), "hidden_size"),
		                   add(&v, mul(&v, 2, H, "hidden_size"),
		                       add(&v, linp(&v, H, I, true, "intermediate_size"), linp(&v, I, H, true, "intermediate_size"),
		                           "intermediate_size"), "intermediate_size"), "hidden_size"), "hidden_size");
	t = add(&v, t, add(&v, H, mul(&v, H, text_h, "hidden_size"), "hidden_size"), "hidden_size");
	c->rc = v.rc;
	snprintf(c->a->vision, sizeof c->a->vision, "siglip");
	return t;
}

/* Pixtral (PixtralVisionModel; transformers models/pixtral/
 * modeling_pixtral.py, PixtralVisionConfig defaults) and Mistral 3's
 * projector (Mistral3MultiModalProjector): a patch Conv2d without bias, an
 * RMSNorm ln_pre, layers of two RMSNorms, q/k/v/o (H x H, no bias) and a
 * gated MLP; the projector's RMSNorm, the patch merger (H x
 * spatial_merge_size^2 -> H) and linear_1, linear_2 (bias per
 * multimodal_projector_bias). */
static int64_t vision_pixtral(cfg *c, int64_t text_h)
{
	cfg v = vision_reader(c);
	int64_t H = vget(&v, "hidden_size", 1024), I = vget(&v, "intermediate_size", 4096);
	int64_t L = vget(&v, "num_hidden_layers", 24), C = vget(&v, "num_channels", 3);
	int64_t P = vget(&v, "patch_size", 16), m = get_int(c, "spatial_merge_size", 1, 2, false);
	bool pb = get_bool(c, "multimodal_projector_bias", false);
	int64_t t, layer;

	if (v.rc != GS_OK || c->rc != GS_OK)
		return c->rc = v.rc != GS_OK ? v.rc : c->rc, 0;
	t = add(&v, mul(&v, mul(&v, mul(&v, C, P, "patch_size"), P, "patch_size"), H, "hidden_size"), H, "hidden_size");
	layer = add(&v, mul(&v, 2, H, "hidden_size"), add(&v, mul(&v, 4, mul(&v, H, H, "hidden_size"), "hidden_size"),
	                                                   mul(&v, 3, mul(&v, H, I, "intermediate_size"), "intermediate_size"),
	                                                   "intermediate_size"), "intermediate_size");
	t = add(&v, t, mul(&v, L, layer, "num_hidden_layers"), "num_hidden_layers");
	t = add(&v, t, add(&v, H, mul(&v, mul(&v, mul(&v, H, m, "hidden_size"), m, "hidden_size"), H, "hidden_size"),
	                   "hidden_size"), "hidden_size");
	t = add(&v, t, add(&v, linp(&v, H, text_h, pb, "hidden_size"), linp(&v, text_h, text_h, pb, "hidden_size"),
	                   "hidden_size"), "hidden_size");
	c->rc = v.rc;
	snprintf(c->a->vision, sizeof c->a->vision, "pixtral");
	return t;
}

/* Llama 4's vision model (Llama4VisionModel; modeling_llama4.py @
 * 000c33fd): an unfold patch embedding (C x P^2 -> H, no bias), a class
 * embedding, a position table of (image_size / patch_size)^2 + 1,
 * layernorm_pre/post, layers of biased q/k/v/o, a biased GELU MLP and two
 * LayerNorms, the pixel-shuffle adapter's fc1 (intermediate_size ->
 * projector_input_dim) and fc2 (-> projector_output_dim) without bias; the
 * projector Linear(vision_output_dim -> text hidden, no bias). */
static int64_t vision_llama4(cfg *c, int64_t text_h)
{
	cfg v = vision_reader(c);
	int64_t H = vget(&v, "hidden_size", 768), I = vget(&v, "intermediate_size", 5632);
	int64_t L = vget(&v, "num_hidden_layers", 34), C = vget(&v, "num_channels", 3);
	int64_t img = vget(&v, "image_size", 448), P = vget(&v, "patch_size", 14);
	int64_t pin = vget(&v, "projector_input_dim", 4096), pout = vget(&v, "projector_output_dim", 4096);
	int64_t vout = vget(&v, "vision_output_dim", 7680);
	int64_t t, layer, n;

	if (v.rc != GS_OK)
		return c->rc = v.rc, 0;
	n = (img / P) * (img / P) + 1;
	t = add(&v, mul(&v, mul(&v, mul(&v, C, P, "patch_size"), P, "patch_size"), H, "hidden_size"),
	        add(&v, H, mul(&v, n, H, "image_size"), "image_size"), "image_size");
	layer = add(&v, mul(&v, 4, linp(&v, H, H, true, "hidden_size"), "hidden_size"),
	            add(&v, add(&v, linp(&v, H, I, true, "intermediate_size"), linp(&v, I, H, true, "intermediate_size"),
	                        "intermediate_size"), mul(&v, 4, H, "hidden_size"), "hidden_size"), "hidden_size");
	t = add(&v, add(&v, t, mul(&v, L, layer, "num_hidden_layers"), "num_hidden_layers"), mul(&v, 4, H, "hidden_size"),
	        "hidden_size");
	t = add(&v, t, add(&v, mul(&v, I, pin, "projector_input_dim"), mul(&v, pin, pout, "projector_output_dim"),
	                   "projector_output_dim"), "projector_output_dim");
	t = add(&v, t, mul(&v, vout, text_h, "vision_output_dim"), "vision_output_dim");
	c->rc = v.rc;
	snprintf(c->a->vision, sizeof c->a->vision, "llama4");
	return t;
}

/* Qwen2.5-VL's vision transformer (Qwen2_5_VisionTransformerPretrainedModel;
 * models/qwen2_5_vl/modeling_qwen2_5_vl.py): a Conv3d patch embedding
 * (C x temporal_patch_size x P^2 -> H, no bias), blocks of two RMSNorms, a
 * fused biased qkv and proj, a gated biased MLP; Qwen3-VL's
 * (models/qwen3_vl/modeling_qwen3_vl.py): the patch Conv3d with a bias, a
 * learned position table (num_position_embeddings), LayerNorms, a biased
 * plain MLP, and one more merger per deepstack_visual_indexes entry, whose
 * norm follows the merge. Each merger: a norm, Linear(H m^2 -> H m^2) and
 * Linear(H m^2 -> out_hidden_size), with biases. */
static int64_t vision_qwen_vl(cfg *c, bool qwen3)
{
	cfg v = vision_reader(c);
	int64_t H = vget(&v, "hidden_size", qwen3 ? 1152 : 3584), I = vget(&v, "intermediate_size", qwen3 ? 4304 : 3420);
	int64_t L = vget(&v, "depth", qwen3 ? 27 : 32);
	int64_t C = vget(&v, "in_channels", 3), P = vget(&v, "patch_size", qwen3 ? 16 : 14);
	int64_t T = vget(&v, "temporal_patch_size", 2), m = vget(&v, "spatial_merge_size", 2);
	int64_t out = vget(&v, "out_hidden_size", qwen3 ? 3584 : 3584), npos = 0, ndeep = 0;
	int64_t t, layer, Hm, merger, nrm = qwen3 ? 2 : 1; /* LayerNorm: weight and bias */
	const cJSON *deep;

	if (qwen3) {
		npos = vget(&v, "num_position_embeddings", 2304);
		deep = v.obj ? gs_jget_item(v.obj, "deepstack_visual_indexes") : NULL;
		if (deep != NULL && !cJSON_IsArray(deep)) {
			char got[64];
			gs_json_describe(deep, got, sizeof got);
			field_fail(&v, GS_ECONFIG, "deepstack_visual_indexes", "must be an array of layer indices (got %s)", got);
		}
		ndeep = deep ? cJSON_GetArraySize(deep) : 3; /* Qwen3VLVisionConfig default [8, 16, 24] */
	}
	if (v.rc != GS_OK)
		return c->rc = v.rc, 0;
	t = mul(&v, mul(&v, mul(&v, mul(&v, C, T, "temporal_patch_size"), P, "patch_size"), P, "patch_size"), H,
	        "hidden_size");
	if (qwen3)
		t = add(&v, add(&v, t, H, "hidden_size"), mul(&v, npos, H, "num_position_embeddings"), "num_position_embeddings");
	layer = add(&v, mul(&v, 2 * nrm, H, "hidden_size"),
	            add(&v, linp(&v, H, mul(&v, 3, H, "hidden_size"), true, "hidden_size"), linp(&v, H, H, true, "hidden_size"),
	                "hidden_size"), "hidden_size");
	if (qwen3)
		layer = add(&v, layer, add(&v, linp(&v, H, I, true, "intermediate_size"), linp(&v, I, H, true, "intermediate_size"),
		                           "intermediate_size"), "intermediate_size");
	else
		layer = add(&v, layer, add(&v, mul(&v, 2, linp(&v, H, I, true, "intermediate_size"), "intermediate_size"),
		                           linp(&v, I, H, true, "intermediate_size"), "intermediate_size"), "intermediate_size");
	t = add(&v, t, mul(&v, L, layer, "depth"), "depth");
	Hm = mul(&v, mul(&v, H, m, "spatial_merge_size"), m, "spatial_merge_size");
	merger = add(&v, linp(&v, Hm, Hm, true, "spatial_merge_size"), linp(&v, Hm, out, true, "out_hidden_size"),
	             "out_hidden_size");
	t = add(&v, t, add(&v, merger, mul(&v, nrm, H, "hidden_size"), "hidden_size"), "hidden_size");
	if (qwen3) /* deepstack mergers: their norm over the merged width */
		t = add(&v, t, mul(&v, ndeep, add(&v, merger, mul(&v, 2, Hm, "hidden_size"), "hidden_size"),
		                   "deepstack_visual_indexes"), "deepstack_visual_indexes");
	c->rc = v.rc;
	snprintf(c->a->vision, sizeof c->a->vision, qwen3 ? "qwen3-vl" : "qwen2.5-vl");
	return t;
}

enum { /* family properties: what a family's builder reads itself */
	FP_MOE = 1u << 0,    /* expert fields */
	FP_STATE = 1u << 1,  /* state-space / linear-attention fields and layer patterns */
	FP_LTYPES = 1u << 2, /* layer_types (its attention kinds, or its own layer kinds) */
	FP_TEXT = 1u << 3,   /* text_config */
	FP_VISION = 1u << 4, /* vision_config: the tower is counted */
	FP_LOSS16 = 1u << 5, /* the head hands 16-bit logits to cross-entropy (gs_arch.loss_16bit) */
};

/* ---- multimodal wrappers ---- */

/* The wrappers gpusizer reads: the text model through text_config (or,
 * Qwen2.5-VL, at the top), the vision tower and projector apart. */
enum wrapper { W_GEMMA3, W_MISTRAL3, W_LLAMA4, W_QWEN2_5_VL, W_QWEN3_VL, W_QWEN3_VL_MOE };

/* Read the text model from text_config (required unless `optional`); the
 * root's tie_word_embeddings stands where text_config has none
 * (tie_default: the wrapper config class's default). */
static void check_structure(cfg *c, unsigned p, bool known, bool root);

static bool enter_text(cfg *c, bool optional, bool tie_default, unsigned text_props)
{
	const cJSON *tc = gs_jget_item(c->root, "text_config");
	cfg r = *c;
	char got[64];

	r.obj = c->root;
	r.pfx = "";
	c->fam_tied_default = get_bool(&r, "tie_word_embeddings", tie_default);
	c->rc = r.rc;
	if (c->rc != GS_OK || (tc == NULL && optional))
		return c->rc == GS_OK;
	if (!cJSON_IsObject(tc)) {
		gs_json_describe(tc, got, sizeof got);
		if (tc == NULL)
			field_fail(c, GS_ECONFIG, "text_config", "missing (must be an object)");
		else
			field_fail(c, GS_ECONFIG, "text_config", "must be an object (got %s)", got);
		return false;
	}
	c->obj = tc;
	c->pfx = "text_config.";
	check_structure(c, text_props, true, false);
	return c->rc == GS_OK;
}

/* Gemma 3 (Gemma3ForConditionalGeneration; models/gemma3), Mistral 3
 * (Mistral3ForConditionalGeneration), Llama 4
 * (Llama4ForConditionalGeneration), Qwen2.5-VL and Qwen3-VL
 * (Qwen2_5_VLForConditionalGeneration, Qwen3VL(Moe)ForConditionalGeneration):
 * the text stack as its family reads it, then the vision tower and its
 * projector into p_vision. */
static void fam_wrapper(cfg *c, int w)
{
	gs_arch *a = c->a;

	static const unsigned text_props[] = {
		[W_GEMMA3] = FP_LTYPES, [W_MISTRAL3] = FP_LTYPES, [W_LLAMA4] = FP_MOE | FP_LTYPES,
		[W_QWEN2_5_VL] = FP_LTYPES, [W_QWEN3_VL] = FP_LTYPES, [W_QWEN3_VL_MOE] = FP_MOE | FP_LTYPES,
	};

	if (!enter_text(c, w == W_QWEN2_5_VL, w == W_GEMMA3, text_props[w]))
		return;
	switch (w) {
	case W_GEMMA3: fam_llama(c, LK_GEMMA3); break;
	case W_MISTRAL3: fam_llama(c, LK_MISTRAL); break;
	case W_LLAMA4: fam_llama4_text(c); break;
	case W_QWEN2_5_VL: fam_llama(c, LK_QWEN2); break;
	case W_QWEN3_VL: fam_llama(c, LK_QWEN3); break;
	default: fam_moe(c, "qwen3_moe"); break;
	}
	if (c->rc != GS_OK)
		return;
	switch (w) {
	case W_GEMMA3: a->p_vision = vision_siglip_gemma3(c, a->hidden); break;
	case W_MISTRAL3: a->p_vision = vision_pixtral(c, a->hidden); break;
	case W_LLAMA4: a->p_vision = vision_llama4(c, a->hidden); break;
	default: a->p_vision = vision_qwen_vl(c, w != W_QWEN2_5_VL); break;
	}
	if (c->rc == GS_OK)
		note(c, "%s vision tower and projector: %lld parameters, counted in the total and resident "
		     "(weights at the compute dtype); images' activations not sized (text prompts)",
		     a->vision, (long long)a->p_vision);
}

/* ---- the family table ---- */

typedef struct family {
	const char *model_type;
	const char *arch_class; /* architectures[0] that selects it for an unknown model_type
	                           (the class transformers or remote code builds), or NULL */
	void (*build)(cfg *c, int variant);
	int variant;
	unsigned props;
} family;

static void b_llama(cfg *c, int v) { fam_llama(c, (llama_kind)v); }
static void b_moe(cfg *c, int v) { fam_moe(c, v == 0 ? "mixtral" : v == 1 ? "qwen2_moe" : "qwen3_moe"); }
static void b_llama4_text(cfg *c, int v) { (void)v; fam_llama4_text(c); }
#define PLAIN(f) static void b_##f(cfg *c, int v) { (void)v; fam_##f(c); }
PLAIN(deepseek) PLAIN(gpt2) PLAIN(neox) PLAIN(falcon) PLAIN(bloom) PLAIN(bert) PLAIN(phi) PLAIN(gptj)
PLAIN(bigcode) PLAIN(stablelm) PLAIN(starcoder2) PLAIN(chatglm) PLAIN(distilbert)
#undef PLAIN

/* Every family gpusizer sizes, by model_type (matched case-insensitively). */
static const family families[] = {
	{ "llama", NULL, b_llama, LK_LLAMA, FP_LTYPES },
	{ "mistral", NULL, b_llama, LK_MISTRAL, FP_LTYPES },
	{ "qwen2", NULL, b_llama, LK_QWEN2, FP_LTYPES },
	{ "qwen3", NULL, b_llama, LK_QWEN3, FP_LTYPES },
	{ "qwen", NULL, b_llama, LK_QWEN1, FP_LTYPES | FP_LOSS16 },
	{ "gemma", NULL, b_llama, LK_GEMMA, FP_LTYPES },
	{ "gemma2", NULL, b_llama, LK_GEMMA2, FP_LTYPES },
	{ "gemma3_text", NULL, b_llama, LK_GEMMA3, FP_LTYPES },
	{ "phi3", NULL, b_llama, LK_PHI3, FP_LTYPES },
	{ "olmo", NULL, b_llama, LK_OLMO, FP_LTYPES },
	{ "olmo2", NULL, b_llama, LK_OLMO2, FP_LTYPES },
	{ "smollm3", NULL, b_llama, LK_SMOLLM3, FP_LTYPES },
	{ "chatglm", NULL, b_chatglm, 0, 0 },
	{ "phi", NULL, b_phi, 0, 0 },
	{ "gptj", NULL, b_gptj, 0, 0 },
	{ "gpt_bigcode", NULL, b_bigcode, 0, 0 },
	{ "stablelm", NULL, b_stablelm, 0, 0 },
	{ "starcoder2", NULL, b_starcoder2, 0, FP_LTYPES },
	{ "distilbert", NULL, b_distilbert, 0, 0 },
	{ "gpt2", NULL, b_gpt2, 0, 0 },
	{ "gpt_neox", NULL, b_neox, 0, 0 },
	{ "falcon", NULL, b_falcon, 0, 0 },
	{ "bloom", NULL, b_bloom, 0, 0 },
	{ "bert", NULL, b_bert, 0, 0 },
	{ "roberta", NULL, b_bert, 0, 0 }, /* RobertaModel = BertModel's modules and pooler */
	{ "mixtral", NULL, b_moe, 0, FP_MOE | FP_LTYPES },
	{ "qwen2_moe", NULL, b_moe, 1, FP_MOE | FP_LTYPES },
	{ "qwen3_moe", NULL, b_moe, 2, FP_MOE | FP_LTYPES },
	{ "deepseek_v2", "DeepseekV2ForCausalLM", b_deepseek, 0, FP_MOE },
	{ "deepseek_v3", "DeepseekV3ForCausalLM", b_deepseek, 0, FP_MOE },
	{ "gpt_oss", NULL, fam_gpt_oss, 0, FP_MOE | FP_LTYPES },
	{ "glm4_moe", NULL, fam_glm4_moe, 0, FP_MOE },
	{ "qwen3_next", NULL, fam_qwen3_next, 0, FP_MOE | FP_STATE | FP_LTYPES },
	{ "granitemoehybrid", NULL, fam_granite_hybrid, 0, FP_MOE | FP_STATE | FP_LTYPES },
	{ "nemotron_h", NULL, fam_nemotron_h, 0, FP_MOE | FP_STATE },
	{ "llama4_text", NULL, b_llama4_text, 0, FP_MOE | FP_LTYPES },
	{ "llama4", NULL, fam_wrapper, W_LLAMA4, FP_MOE | FP_LTYPES | FP_TEXT | FP_VISION },
	{ "gemma3", NULL, fam_wrapper, W_GEMMA3, FP_LTYPES | FP_TEXT | FP_VISION },
	{ "mistral3", NULL, fam_wrapper, W_MISTRAL3, FP_LTYPES | FP_TEXT | FP_VISION },
	{ "qwen2_5_vl", NULL, fam_wrapper, W_QWEN2_5_VL, FP_LTYPES | FP_TEXT | FP_VISION },
	{ "qwen3_vl", NULL, fam_wrapper, W_QWEN3_VL, FP_LTYPES | FP_TEXT | FP_VISION },
	{ "qwen3_vl_moe", NULL, fam_wrapper, W_QWEN3_VL_MOE, FP_MOE | FP_LTYPES | FP_TEXT | FP_VISION },
};

#define N_FAMILIES (sizeof families / sizeof families[0])

/* "a, b, c" of the families with every property in `props`. */
static void family_list(unsigned props, char *buf, size_t n)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < N_FAMILIES && k < n; i++)
		if ((families[i].props & props) == props)
			k += (size_t)snprintf(buf + k, n - k, "%s%s", k ? ", " : "", families[i].model_type);
}

static const char *const K_EXPERT_COUNTS[] = { "num_local_experts", "num_experts", "n_routed_experts",
	                                       "moe_num_experts", NULL };
/* Fields of state-space and linear-attention layers, and of layer
 * patterns other than attention kinds (Mamba, Mamba-2, Jamba, Falcon-H1,
 * Nemotron-H, Granite 4.0 H, Qwen3-Next, MiniMax). */
static const char *const K_STATE[] = {
	"ssm_state_size", "mamba_d_state", "state_size", "d_state", "mamba_n_heads", "mamba_num_heads",
	"mamba_d_conv", "mamba_expand", "mamba_d_head", "mamba_head_dim", "conv_kernel", "d_conv",
	"time_step_rank", "linear_num_value_heads", "linear_num_key_heads", "linear_key_head_dim",
	"linear_value_head_dim", "linear_conv_kernel_dim", "full_attention_interval",
	"hybrid_override_pattern", "layers_block_type", "layer_block_types", "block_types",
	"attn_type_list", "attn_layer_period", "attn_layer_indices", "expert_layer_period", NULL,
};
static const char *const K_WRAP[] = { "text_config", "vision_config", "audio_config", "vision_tower", NULL };

/* Never a guess: a config whose layers are not what its family (or, for
 * an unknown model_type, a plain decoder) has is refused, naming the
 * field: experts, state-space or linear-attention fields, layer kinds
 * other than full attention, a text or vision sub-config, where the
 * family does not read them. */
static void check_structure(cfg *c, unsigned p, bool known, bool root)
{
	const char *mt = c->a->model_type;
	char fams[512], what[96], idx[64];
	const cJSON *lt;

	snprintf(what, sizeof what, known ? "a family without them in gpusizer" : "not a known family");
	for (int i = 0; root && K_WRAP[i] != NULL && c->rc == GS_OK; i++) {
		const cJSON *x = gs_jget_item(c->root, K_WRAP[i]);
		bool text = i == 0;
		if (x == NULL || (p & (text ? FP_TEXT : FP_VISION)))
			continue;
		family_list(FP_TEXT | FP_VISION, fams, sizeof fams);
		field_fail(c, GS_ECONFIG, K_WRAP[i],
		           "a %s, but model_type \"%.32s\" is %s: %s, so it is not sized (known "
		           "multimodal wrappers: %s)",
		           text ? "multimodal wrapper's text model" : "vision or audio tower", mt, what,
		           text ? "which text model it holds and what else it loads are not known"
		                : "the tower's parameters would go uncounted",
		           fams);
		return;
	}
	if (!(p & FP_MOE)) {
		for (int i = 0; K_EXPERT_COUNTS[i] != NULL; i++) {
			const cJSON *x = gs_jget_item(c->obj, K_EXPERT_COUNTS[i]);
			if (!cJSON_IsNumber(x) || x->valuedouble <= 1)
				continue;
			family_list(FP_MOE, fams, sizeof fams);
			field_fail(c, GS_ECONFIG, K_EXPERT_COUNTS[i],
			           "%.0f experts, but model_type \"%.32s\" is %s: a dense sizing would count one "
			           "expert's MLP per layer and understate the model, so it is not sized (known "
			           "mixture-of-experts families: %s)",
			           x->valuedouble, mt, what, fams);
			return;
		}
	}
	if (!(p & FP_STATE)) {
		for (int i = 0; K_STATE[i] != NULL; i++) {
			if (gs_jget_item(c->obj, K_STATE[i]) == NULL)
				continue;
			family_list(FP_STATE, fams, sizeof fams);
			field_fail(c, GS_ECONFIG, K_STATE[i],
			           "a state-space, linear-attention or hybrid-layer field, but model_type \"%.32s\" "
			           "is %s: sizing its layers as attention would be a guess, so it is not sized "
			           "(known hybrid families: %s)",
			           mt, what, fams);
			return;
		}
	}
	lt = gs_jget_item(c->obj, "layer_types");
	if (!(p & FP_LTYPES) && cJSON_IsArray(lt)) {
		int64_t i = 0;
		for (const cJSON *x = lt->child; x != NULL; x = x->next, i++) {
			char got[64];
			if (cJSON_IsString(x) && strcmp(x->valuestring, "full_attention") == 0)
				continue;
			gs_json_describe(x, got, sizeof got);
			field_fail(c, GS_ECONFIG, indexed(idx, sizeof idx, "layer_types", i),
			           "%s, but model_type \"%.32s\" is %s: only full_attention layers are sized as "
			           "a plain decoder, so it is not sized",
			           got, mt, known ? "a family whose layers gpusizer knows only as full attention" : what);
			return;
		}
	}
}

/* The family of a model_type (lower-cased), else of architectures[0]
 * where a row names that class; NULL: none. *by_class says which. */
static const family *family_of(cfg *c, const char *mt, bool *by_class)
{
	const cJSON *ar = gs_jget_item(c->root, "architectures");
	const char *cls = cJSON_IsArray(ar) && cJSON_IsString(ar->child) ? ar->child->valuestring : NULL;

	*by_class = false;
	for (size_t i = 0; i < N_FAMILIES; i++)
		if (strcmp(families[i].model_type, mt) == 0)
			return &families[i];
	for (size_t i = 0; cls != NULL && i < N_FAMILIES; i++)
		if (families[i].arch_class != NULL && strcmp(families[i].arch_class, cls) == 0) {
			*by_class = true;
			return &families[i];
		}
	return NULL;
}

/* ---- quantization_config ---- */

/* GPTQ and AWQ (AutoGPTQ, AutoAWQ, transformers' configs): bits, group. */
static void quant_gptq_awq(cfg *c, cfg *qc, const cJSON *q, const char *m)
{
	gs_arch *a = c->a;
	char got[64];

	static const char *const kb[] = { "bits", "w_bit", NULL };
	int64_t bits = get_int_alias(qc, kb, 1, 4, m[0] == 'g');
	const cJSON *gv = gs_jget_item(q, has(qc, "group_size") ? "group_size" : "q_group_size");

	a->quant = m[0] == 'g' ? GS_QUANT_GPTQ : GS_QUANT_AWQ;
	if (qc->rc == GS_OK && bits > 8)
		field_fail(qc, GS_ECONFIG, has(qc, "bits") ? "bits" : "w_bit",
		           "must be from 1 to 8 (got %" PRId64 ")", bits);
	a->quant_bits = (int)bits;
	a->quant_group = 128;
	if (gv != NULL && qc->rc == GS_OK) {
		double g = cJSON_IsNumber(gv) ? gv->valuedouble : 0;
		if (g != -1 && (g < 1 || g != floor(g) || g > (double)CFG_INT_MAX)) {
			gs_json_describe(gv, got, sizeof got);
			field_fail(qc, GS_ECONFIG, has(qc, "group_size") ? "group_size" : "q_group_size",
			           "must be a positive integer or -1 (got %s)", got);
		} else {
			a->quant_group = (int64_t)g;
		}
	}
}

/* bitsandbytes: 4 or 8 bits. */
static void quant_bnb(cfg *c, cfg *qc, const cJSON *q, const char *m)
{
	gs_arch *a = c->a;

	(void)m;
	(void)q;
	bool b4 = get_bool(qc, "load_in_4bit", false) || get_bool(qc, "_load_in_4bit", false);
	bool b8 = get_bool(qc, "load_in_8bit", false) || get_bool(qc, "_load_in_8bit", false);

	if (qc->rc == GS_OK && b4 == b8)
		field_fail(qc, GS_ECONFIG, "load_in_4bit",
		           "exactly one of load_in_4bit and load_in_8bit must be true");
	a->quant = b4 ? GS_QUANT_BNB4 : GS_QUANT_BNB8;
	a->quant_bits = b4 ? 4 : 8;
}

/* fp8 weights, with or without block scales. */
static void quant_fp8(cfg *c, cfg *qc, const cJSON *q, const char *m)
{
	gs_arch *a = c->a;
	char got[64];

	(void)m;
	/* transformers' FineGrainedFP8Config (DeepSeek-V3): weight_block_size
	 * [rows, columns] gives an fp32 scale per block; without it, one
	 * scale per row or tensor */
	const cJSON *wb = gs_jget_item(q, "weight_block_size");
	a->quant = GS_QUANT_FP8;
	a->quant_bits = 8;
	if (wb != NULL && qc->rc == GS_OK) {
		const cJSON *r0 = cJSON_IsArray(wb) ? cJSON_GetArrayItem(wb, 0) : NULL;
		const cJSON *r1 = cJSON_IsArray(wb) ? cJSON_GetArrayItem(wb, 1) : NULL;
		bool ok = cJSON_GetArraySize(wb) == 2 && cJSON_IsNumber(r0) && cJSON_IsNumber(r1);
		for (int i = 0; ok && i < 2; i++) {
			double x = (i ? r1 : r0)->valuedouble;
			ok = isfinite(x) && x == floor(x) && x >= 1 && x <= 65536;
		}
		if (!ok) {
			gs_json_describe(wb, got, sizeof got);
			field_fail(qc, GS_ECONFIG, "weight_block_size",
			           "must be two block sizes [rows, columns] from 1 to 65536 (got %s)", got);
		} else {
			a->quant = GS_QUANT_FP8_BLOCK;
			a->quant_group = (int64_t)r0->valuedouble;
			a->quant_group_in = (int64_t)r1->valuedouble;
		}
	}
}

/* MXFP4. */
static void quant_mxfp4(cfg *c, cfg *qc, const cJSON *q, const char *m)
{
	gs_arch *a = c->a;

	(void)m;
	(void)q;
	(void)qc;
	/* gpt-oss (transformers Mxfp4Config): experts in MXFP4, the
	 * modules_to_not_convert (attention, router, embeddings, head) bf16 */
	a->quant = GS_QUANT_MXFP4;
	a->quant_bits = 4;
}

/* NVIDIA ModelOpt. */
static void quant_modelopt(cfg *c, cfg *qc, const cJSON *q, const char *m)
{
	gs_arch *a = c->a;

	(void)m;
	(void)q;
	/* NVIDIA ModelOpt checkpoints: quant_algo NVFP4 or FP8 */
	const char *algo = get_str(qc, "quant_algo");
	if (algo != NULL && strcmp(algo, "NVFP4") == 0) {
		a->quant = GS_QUANT_NVFP4;
		a->quant_bits = 4;
	} else if (algo != NULL && strcmp(algo, "FP8") == 0) {
		a->quant = GS_QUANT_FP8;
		a->quant_bits = 8;
	} else if (qc->rc == GS_OK) {
		a->quant = GS_QUANT_OTHER;
		note(c, "modelopt quant_algo \"%.32s\" not modelled", algo ? algo : "(none)");
	}
}

/* compressed-tensors (llm-compressor). */
static void quant_compressed(cfg *c, cfg *qc, const cJSON *q, const char *m)
{
	gs_arch *a = c->a;

	(void)m;
	(void)qc;
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
	} else if (cJSON_IsNumber(nb) && nb->valuedouble == 4 && cJSON_IsString(ty) &&
	           strcmp(ty->valuestring, "float") == 0 && cJSON_IsNumber(gs_jget_item(w, "group_size")) &&
	           gs_jget_item(w, "group_size")->valuedouble == 16) {
		/* llm-compressor's nvfp4-pack-quantized: 4-bit floats in groups of 16 */
		a->quant = GS_QUANT_NVFP4;
		a->quant_bits = 4;
	} else {
		a->quant = GS_QUANT_OTHER;
		if (cJSON_IsNumber(nb) && nb->valuedouble >= 1 && nb->valuedouble <= 16)
			a->quant_bits = (int)nb->valuedouble;
		note(c, "compressed-tensors quantization other than fp8 weights: not modelled");
	}
}

/* The quant_methods gpusizer reads, one reader each. */
static const struct {
	const char *method;
	void (*read)(cfg *c, cfg *qc, const cJSON *q, const char *m);
} quant_methods[] = {
	{ "gptq", quant_gptq_awq },
	{ "awq", quant_gptq_awq },
	{ "bitsandbytes", quant_bnb },
	{ "fp8", quant_fp8 },
	{ "mxfp4", quant_mxfp4 },
	{ "modelopt", quant_modelopt },
	{ "compressed-tensors", quant_compressed },
};

static void read_quant(cfg *c)
{
	const cJSON *q = gs_jget_item(c->root, "quantization_config");
	gs_arch *a = c->a;
	cfg qc = *c;
	const char *m;
	char got[64];
	size_t i;

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
		return;
	}
	for (i = 0; i < sizeof quant_methods / sizeof quant_methods[0]; i++)
		if (strcmp(m, quant_methods[i].method) == 0)
			break;
	if (i < sizeof quant_methods / sizeof quant_methods[0]) {
		quant_methods[i].read(c, &qc, q, m);
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
	const family *f;
	bool by_class;

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
	f = family_of(c, mt, &by_class);
	c->fam = f;
	check_structure(c, f ? f->props : 0, f != NULL, true);
	if (c->rc != GS_OK)
		return;
	if (f != NULL) {
		if (by_class)
			note(c, "model_type \"%.32s\" is not a known family; sized as its architectures class %s "
			     "(%s)", given, f->arch_class, f->model_type);
		f->build(c, f->variant);
	} else {
		static const char *const usual[] = { "hidden_size", "num_hidden_layers",
			                             "num_attention_heads", "intermediate_size",
			                             "vocab_size", NULL };
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
	group_layers(c);
	/* Remote code whose head hands 16-bit logits to cross-entropy as they
	 * are: Qwen v1 (modeling_qwen.py, QWenLMHeadModel.forward: lm_head,
	 * shifted .contiguous() copy, CrossEntropyLoss, no .float()).
	 * transformers' own heads up-cast (logits.float()); Baichuan's remote
	 * code exists in copies with and without the up-cast, so it keeps
	 * the default. */
	a->loss_16bit = f != NULL && (f->props & FP_LOSS16);
	read_quant(c);
}

gs_err gs_config_parse(const char *json, size_t len, const char *path, gs_arch *out, gs_error *e)
{
	cfg c;
	gs_arch *a = gs_xcalloc(1, sizeof *a);
	cJSON *root = NULL;
	const char *end = NULL;
	char *inf_copy = NULL;
	size_t inf_line = 0;
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
	if (len > 0 && gs_json_infinity(json, len, &inf_copy, &inf_line) > 0) {
		json = inf_copy;
		note(&c, "Infinity on line %zu (Python's json writes float('inf') so) read as an infinite "
		     "number: accepted only where gpusizer reads no size",
		     inf_line);
	}
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
	free(inf_copy);
	free(c.lt);
	free(c.lm);
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
