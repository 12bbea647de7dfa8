/* gpusizer: the exact per-module parameter tally and the manual (seed) shape.
 * Pure arithmetic on gs_arch: no cJSON, curl or FILE* here. */
#include "arch.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Every intermediate count stays at or below 2^62 (arch.h contract).
 * The checks are the compiler's overflow builtins, as util.h's
 * gs_mul_u64/gs_add_u64, so that the sizing core needs no header beyond
 * its own (util.h declares file I/O). */
#define ARCH_LIMIT (UINT64_C(1) << 62)

static bool mul62(uint64_t a, uint64_t b, uint64_t *r)
{
	return !__builtin_mul_overflow(a, b, r) && *r <= ARCH_LIMIT;
}

static bool add62(uint64_t a, uint64_t b, uint64_t *r)
{
	return !__builtin_add_overflow(a, b, r) && *r <= ARCH_LIMIT;
}

/* Parameters of `n` instances of l (weights and bias); false on overflow
 * or a negative shape. */
static bool linear_params_n(const gs_linear *l, int64_t n, uint64_t *r)
{
	uint64_t one, bias;

	if (l->in < 0 || l->out < 0 || n < 0)
		return false;
	if (!mul62((uint64_t)l->in, (uint64_t)l->out, &one))
		return false;
	bias = l->bias ? (uint64_t)l->out : 0;
	if (!add62(one, bias, &one))
		return false;
	return mul62(one, (uint64_t)n, r);
}

/* All `count` instances; UINT64_MAX when the count overflows 2^62 or the
 * shape is negative (gs_arch_tally reports those as errors). */
uint64_t gs_linear_params(const gs_linear *l)
{
	uint64_t r;

	if (l == NULL || !linear_params_n(l, l->count, &r))
		return UINT64_MAX;
	return r;
}

gs_err gs_arch_tally(gs_arch *a, gs_error *e)
{
	const char *src = a->source[0] ? a->source : "model";
	uint64_t total = 0, active = 0, linear = 0, fixed = 0;
	const int64_t fixed_parts[5] = { a->p_embed, a->p_embed_other, a->p_head, a->p_final,
		                         a->p_vision };
	static const char *const fixed_names[5] = { "embedding", "other embeddings", "output head",
		                                    "final norm", "vision tower" };

	a->params_total = a->params_active = a->params_linear = a->params_vision = 0;
	for (int i = 0; i < 5; i++) {
		if (fixed_parts[i] < 0)
			return gs_fail(e, GS_EINTERNAL, "%s: negative %s parameter count %" PRId64, src,
			               fixed_names[i], fixed_parts[i]);
		if (!add62(fixed, (uint64_t)fixed_parts[i], &fixed))
			return gs_fail(e, GS_EOVERFLOW, "%s: parameter count overflows 2^62 (%s)", src,
			               fixed_names[i]);
	}
	if (a->n_kinds < 0 || a->n_kinds > GS_MAX_LAYER_KINDS)
		return gs_fail(e, GS_EINTERNAL, "%s: %d layer kinds (at most %d)", src, a->n_kinds,
		               GS_MAX_LAYER_KINDS);
	total = fixed;
	active = fixed - (uint64_t)a->p_vision; /* the text model a token goes through */

	for (int k = 0; k < a->n_kinds; k++) {
		const gs_layer_kind *lk = &a->kind[k];
		uint64_t lt = 0, la = 0, ll = 0, t;

		if (lk->n_lin < 0 || lk->n_lin > GS_MAX_LIN || lk->n_layers < 0 || lk->other_params < 0)
			return gs_fail(e, GS_EINTERNAL, "%s: layer kind %d is malformed", src, k);
		for (int j = 0; j < lk->n_lin; j++) {
			const gs_linear *l = &lk->lin[j];
			uint64_t pt, pa;

			if (l->count < 0 || l->active < 0 || l->active > l->count || l->in < 0 || l->out < 0)
				return gs_fail(e, GS_EINTERNAL,
				               "%s: layer kind %d module \"%s\": malformed shape", src, k,
				               l->name);
			if (!linear_params_n(l, l->count, &pt) ||
			    !linear_params_n(l, l->expert ? l->active : l->count, &pa) ||
			    !add62(lt, pt, &lt) || !add62(la, pa, &la) || !add62(ll, pt, &ll))
				return gs_fail(e, GS_EOVERFLOW,
				               "%s: parameter count overflows 2^62 (module \"%s\": %" PRId64
				               " x %" PRId64 " x %" PRId64 ")",
				               src, l->name, l->count, l->in, l->out);
		}
		if (!add62(lt, (uint64_t)lk->other_params, &lt) ||
		    !add62(la, (uint64_t)lk->other_params, &la))
			return gs_fail(e, GS_EOVERFLOW, "%s: parameter count overflows 2^62 (layer norms)",
			               src);
		/* Multiply the per-layer counts by the number of layers. */
		if (!mul62(lt, (uint64_t)lk->n_layers, &t) || !add62(total, t, &total) ||
		    !mul62(la, (uint64_t)lk->n_layers, &t) || !add62(active, t, &active) ||
		    !mul62(ll, (uint64_t)lk->n_layers, &t) || !add62(linear, t, &linear))
			return gs_fail(e, GS_EOVERFLOW,
			               "%s: parameter count overflows 2^62 (%" PRId64
			               " layers x %" PRIu64 " parameters)",
			               src, lk->n_layers, lt);
	}
	{
		int64_t nl = 0;
		for (int k = 0; k < a->n_kinds; k++)
			nl += a->kind[k].n_layers;
		if (a->layers > 0 && nl != a->layers)
			return gs_fail(e, GS_EINTERNAL, "%s: the layer kinds hold %lld layers, not %lld", src,
			               (long long)nl, (long long)a->layers);
	}
	a->params_total = total;
	a->params_active = active;
	a->params_linear = linear;
	a->params_vision = (uint64_t)a->p_vision;
	return GS_OK;
}

/* ---- per-layer accessors ---- */

const char *gs_mixer_name(gs_mixer m)
{
	static const char *const names[GS_MIX_MAX] = { "full", "sliding", "chunked", "mla",
		                                       "linear", "mamba2", "none" };
	return (unsigned)m < GS_MIX_MAX ? names[m] : "?";
}

const char *gs_mlp_kind_name(gs_mlp_kind m)
{
	static const char *const names[GS_MLP_MAX] = { "dense", "moe", "none" };
	return (unsigned)m < GS_MLP_MAX ? names[m] : "?";
}

bool gs_kind_has_kv(const gs_layer_kind *k)
{
	return k->mixer == GS_MIX_FULL || k->mixer == GS_MIX_SLIDING || k->mixer == GS_MIX_CHUNKED ||
	       k->mixer == GS_MIX_MLA;
}

double gs_kind_kv_tokens(const gs_layer_kind *k, double ctx, bool is_static)
{
	double cap;

	if (!gs_kind_has_kv(k) || ctx <= 0)
		return 0;
	if ((k->mixer != GS_MIX_SLIDING && k->mixer != GS_MIX_CHUNKED) || k->window <= 0)
		return ctx;
	cap = (double)k->window - (is_static ? 0 : 1);
	return ctx < cap ? ctx : cap;
}

double gs_kind_kv_elements(const gs_layer_kind *k, double ctx, bool is_static)
{
	return (double)k->kv_dim * gs_kind_kv_tokens(k, ctx, is_static);
}

double gs_kind_state_elements(const gs_layer_kind *k)
{
	const gs_state_shape *st = &k->st;

	switch (k->mixer) {
	case GS_MIX_LINEAR: /* [value heads, key dim, value dim] */
		return (double)st->heads * (double)st->k_dim * (double)st->v_dim;
	case GS_MIX_MAMBA2: /* [heads, head dim, d_state] */
		return (double)st->heads * (double)st->v_dim * (double)st->k_dim;
	default:
		return 0;
	}
}

double gs_kind_conv_elements(const gs_layer_kind *k)
{
	if (k->mixer != GS_MIX_LINEAR && k->mixer != GS_MIX_MAMBA2)
		return 0;
	return (double)k->st.conv_dim * (double)k->st.conv_kernel;
}

uint64_t gs_kind_params(const gs_layer_kind *k)
{
	uint64_t t = (uint64_t)(k->other_params > 0 ? k->other_params : 0), p;

	for (int i = 0; i < k->n_lin && i < GS_MAX_LIN; i++) {
		p = gs_linear_params(&k->lin[i]);
		if (p == UINT64_MAX || !add62(t, p, &t))
			return UINT64_MAX;
	}
	return t;
}

double gs_kind_q_per_kv(const gs_arch *a, const gs_layer_kind *k)
{
	double heads = (double)(k->heads ? k->heads : a->heads);
	double kvh = (double)(k->kv_heads ? k->kv_heads : a->kv_heads);

	if (k->kv_dim <= 0 || k->mixer == GS_MIX_MLA || kvh <= 0 || heads <= kvh)
		return 1;
	return heads / kvh;
}

double gs_kind_mixer_flops_token(const gs_arch *a, const gs_layer_kind *k, double ctx)
{
	double heads = (double)(k->heads ? k->heads : a->heads);
	double hd = (double)(k->head_dim ? k->head_dim : a->head_dim);
	double vhd = k->head_dim ? hd : (double)(a->v_head_dim ? a->v_head_dim : a->head_dim);
	double seen = ctx;

	switch (k->mixer) {
	case GS_MIX_NONE:
		return 0;
	case GS_MIX_LINEAR:
		/* the delta rule per token and value head: decay the state,
		 * read it with the key, write the corrected outer product,
		 * read it with the query: about 4 multiply-adds per element */
		return 2 * 4 * gs_kind_state_elements(k);
	case GS_MIX_MAMBA2:
		/* the SSM step per token: decay plus the dt x B outer product,
		 * then the read with C: about 3 multiply-adds per element */
		return 2 * 3 * gs_kind_state_elements(k);
	case GS_MIX_SLIDING:
	case GS_MIX_CHUNKED:
		if (k->window > 0 && seen > (double)k->window)
			seen = (double)k->window;
		break;
	default:
		break;
	}
	return 2 * heads * (hd + vhd) * seen;
}

double gs_arch_kv_elements(const gs_arch *a, double ctx, bool is_static)
{
	double t = 0;

	for (int i = 0; i < a->n_kinds; i++)
		t += (double)a->kind[i].n_layers * gs_kind_kv_elements(&a->kind[i], ctx, is_static);
	return t;
}

double gs_kind_state_bytes(const gs_layer_kind *k, double cb)
{
	double sb = k->st.state_bytes > 0 ? (double)k->st.state_bytes : cb;

	return gs_kind_state_elements(k) * sb + gs_kind_conv_elements(k) * cb;
}

double gs_arch_state_bytes(const gs_arch *a, double cb)
{
	double t = 0;

	for (int i = 0; i < a->n_kinds; i++)
		t += (double)a->kind[i].n_layers * gs_kind_state_bytes(&a->kind[i], cb);
	return t;
}

/* ---- manual shape (--params/--layers/--hidden ...) ---- */

static void add_lin(gs_layer_kind *k, const char *name, gs_role role, int64_t in, int64_t out)
{
	gs_linear *l = &k->lin[k->n_lin++];

	memset(l, 0, sizeof *l);
	snprintf(l->name, sizeof l->name, "%s", name);
	l->role = role;
	l->in = in;
	l->out = out;
	l->count = l->active = 1;
}

/* Checked int64 product for the manual shape (limit 2^62). */
static bool mul_i(int64_t a, int64_t b, int64_t *r)
{
	uint64_t u;

	if (a < 0 || b < 0 || !mul62((uint64_t)a, (uint64_t)b, &u))
		return false;
	*r = (int64_t)u;
	return true;
}

static void manual_fill(gs_arch *a, int64_t layers, int64_t hidden, int64_t heads, int64_t kv,
                        int64_t inter, int64_t vocab)
{
	gs_layer_kind *k = &a->kind[0];
	int64_t hd = hidden / heads;

	a->hidden = hidden;
	a->layers = layers;
	a->heads = heads;
	a->kv_heads = kv;
	a->head_dim = a->v_head_dim = hd;
	a->intermediate = inter;
	a->vocab = vocab;
	a->kv_cache_dim = 2 * kv * hd;
	a->act = GS_ACT_GATED;
	a->norm = GS_NORM_RMS;
	a->rotary = true;
	a->tied = false;
	a->n_kinds = 1;
	memset(k, 0, sizeof *k);
	k->n_layers = layers;
	add_lin(k, "q_proj", GS_ROLE_Q, hidden, heads * hd);
	add_lin(k, "k_proj", GS_ROLE_K, hidden, kv * hd);
	add_lin(k, "v_proj", GS_ROLE_V, hidden, kv * hd);
	add_lin(k, "o_proj", GS_ROLE_O, heads * hd, hidden);
	add_lin(k, "gate_proj", GS_ROLE_GATE, hidden, inter);
	add_lin(k, "up_proj", GS_ROLE_UP, hidden, inter);
	add_lin(k, "down_proj", GS_ROLE_DOWN, inter, hidden);
	k->other_params = 2 * hidden;
	k->mlp_inner = inter;
	k->kv_dim = a->kv_cache_dim;
	a->p_embed = vocab * hidden;
	a->p_head = vocab * hidden;
	a->p_final = hidden;
}

/* The manual shape as given, then with its defaults filled in; defaults
 * says which were assumed (", heads 32 (hidden/128)"). */
typedef struct manual_shape {
	int64_t params, layers, hidden, heads, kv_heads, inter, vocab;
	char defaults[160];
	size_t dl;
} manual_shape;

/* Every value present is a positive integer well inside 2^62. */
static gs_err manual_check(const manual_shape *m, gs_error *e)
{
	const struct {
		const char *flag;
		int64_t v;
		bool required;
	} in[] = {
		{ "--params", m->params, false },   { "--layers", m->layers, true },
		{ "--hidden", m->hidden, true },    { "--heads", m->heads, false },
		{ "--kv-heads", m->kv_heads, false }, { "--intermediate", m->inter, false },
		{ "--vocab", m->vocab, false },
	};

	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
		if (in[i].v < 0 || (in[i].required && in[i].v == 0))
			return gs_fail(e, GS_EUSAGE, "manual shape: %s must be a positive integer (got %" PRId64 ")",
			               in[i].flag, in[i].v);
	}
	/* Keep every single value well inside the 2^62 budget so that the
	 * sums below cannot wrap; the tally reports real overflow. */
	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
		if (in[i].v > (INT64_C(1) << 53))
			return gs_fail(e, GS_EOVERFLOW, "manual shape: %s %" PRId64 " is too large",
			               in[i].flag, in[i].v);
	}
	return GS_OK;
}

/* The attention heads (hidden/128 by default; they must divide hidden),
 * the key/value heads (all of them by default; they must divide the
 * heads) and the vocabulary (32000 by default). */
static gs_err manual_heads_vocab(manual_shape *m, gs_error *e)
{
	if (m->heads == 0) {
		m->heads = m->hidden / 128;
		if (m->heads == 0)
			return gs_fail(e, GS_EUSAGE,
			               "manual shape: --hidden %" PRId64
			               " is below 128, so the default head count (hidden/128) is 0: give --heads",
			               m->hidden);
		m->dl += (size_t)snprintf(m->defaults + m->dl, sizeof m->defaults - m->dl,
		                          ", heads %" PRId64 " (hidden/128)", m->heads);
	}
	if (m->hidden % m->heads != 0)
		return gs_fail(e, GS_EUSAGE,
		               "manual shape: --hidden %" PRId64 " is not divisible by the head count %" PRId64,
		               m->hidden, m->heads);
	if (m->kv_heads == 0)
		m->kv_heads = m->heads;
	if (m->kv_heads > m->heads || m->heads % m->kv_heads != 0)
		return gs_fail(e, GS_EUSAGE,
		               "manual shape: --kv-heads %" PRId64 " must divide the head count %" PRId64,
		               m->kv_heads, m->heads);
	if (m->vocab == 0) {
		m->vocab = 32000;
		if (m->dl < sizeof m->defaults)
			m->dl += (size_t)snprintf(m->defaults + m->dl, sizeof m->defaults - m->dl, ", vocab 32000");
	}
	return GS_OK;
}

/* The MLP's intermediate size when not given: LLaMA's rule without
 * --params, else solved from --params. */
static gs_err manual_intermediate(manual_shape *m, gs_error *e)
{
	int64_t t;

	if (m->inter != 0)
		return GS_OK;
	if (m->params == 0) {
		/* 8/3 * hidden, rounded up to a multiple of 256 (LLaMA's rule). */
		if (!mul_i(m->hidden, 8, &t))
			return gs_fail(e, GS_EOVERFLOW, "manual shape: --hidden %" PRId64 " is too large", m->hidden);
		m->inter = (t + 2) / 3;
		m->inter = (m->inter + 255) / 256 * 256;
		if (m->dl < sizeof m->defaults)
			m->dl += (size_t)snprintf(m->defaults + m->dl, sizeof m->defaults - m->dl,
			                          ", intermediate %" PRId64 " (8/3 x hidden rounded up to 256)", m->inter);
		return GS_OK;
	}
	/* Solve params = fixed + 3*hidden*layers*inter for inter. */
	gs_arch probe;
	int64_t per, rest;
	uint64_t fixed;
	gs_err rc;

	memset(&probe, 0, sizeof probe);
	manual_fill(&probe, m->layers, m->hidden, m->heads, m->kv_heads, 0, m->vocab);
	snprintf(probe.source, sizeof probe.source, "manual shape");
	rc = gs_arch_tally(&probe, e);
	if (rc != GS_OK)
		return rc;
	fixed = probe.params_total;
	if (!mul_i(m->hidden, m->layers, &per) || !mul_i(per, 3, &per))
		return gs_fail(e, GS_EOVERFLOW, "manual shape: --hidden x --layers is too large");
	if ((uint64_t)m->params <= fixed)
		return gs_fail(e, GS_EUSAGE,
		               "manual shape: --params %" PRId64 " is too small for this shape: embeddings, "
		               "attention and norms alone take %" PRIu64,
		               m->params, fixed);
	rest = m->params - (int64_t)fixed;
	m->inter = (rest + per / 2) / per;
	if (m->inter < 1)
		m->inter = 1;
	if (m->dl < sizeof m->defaults)
		m->dl += (size_t)snprintf(m->defaults + m->dl, sizeof m->defaults - m->dl,
		                          ", intermediate %" PRId64 " (solved from --params)", m->inter);
	return GS_OK;
}

gs_err gs_arch_manual(gs_arch *a, int64_t params, int64_t layers, int64_t hidden, int64_t heads,
                      int64_t kv_heads, int64_t intermediate, int64_t vocab, gs_error *e)
{
	manual_shape m = { .params = params, .layers = layers, .hidden = hidden, .heads = heads,
		           .kv_heads = kv_heads, .inter = intermediate, .vocab = vocab };
	gs_err rc;

	memset(a, 0, sizeof *a);
	snprintf(a->model_type, sizeof a->model_type, "manual");
	snprintf(a->source, sizeof a->source, "manual shape");
	rc = manual_check(&m, e);
	if (rc == GS_OK)
		rc = manual_heads_vocab(&m, e);
	if (rc == GS_OK)
		rc = manual_intermediate(&m, e);
	if (rc != GS_OK)
		return rc;
	{
		/* Validate products before filling (the fill uses plain products). */
		int64_t p;
		if (!mul_i(m.vocab, m.hidden, &p) || !mul_i(m.hidden, m.inter, &p) ||
		    !mul_i(m.kv_heads * 2, m.hidden / m.heads, &p))
			return gs_fail(e, GS_EOVERFLOW, "manual shape: sizes too large (products overflow 2^62)");
	}
	manual_fill(a, m.layers, m.hidden, m.heads, m.kv_heads, m.inter, m.vocab);
	a->generic = true;
	rc = gs_arch_tally(a, e);
	if (rc != GS_OK)
		return rc;
	snprintf(a->warning, sizeof a->warning,
	         "manual shape: generic LLaMA-style decoder (gated MLP, RMSNorm, rotary, untied "
	         "head)%s",
	         m.defaults);
	if (params > 0) {
		double diff = ((double)a->params_total - (double)params) * 100.0 / (double)params;
		size_t wl = strlen(a->warning);

		snprintf(a->warning + wl, sizeof a->warning - wl,
		         "; --params %" PRId64 " used; the shape tallies %" PRIu64 " (%+.3f%%)", params,
		         a->params_total, diff);
		a->params_total = (uint64_t)params;
		a->params_active = (uint64_t)params;
	}
	return GS_OK;
}
