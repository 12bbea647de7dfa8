/* Unit tests for arch.c: gs_linear_params, gs_arch_tally on hand-built
 * architectures (total / active / linear, overflow), gs_arch_manual. */
#include <stdint.h>
#include <string.h>

#include "arch.h"
#include "check.h"

static gs_linear mk(const char *name, gs_role role, int64_t in, int64_t out, int64_t count,
                    int64_t active, int bias, int expert)
{
	gs_linear l;

	memset(&l, 0, sizeof l);
	strcpy(l.name, name);
	l.role = role;
	l.in = in;
	l.out = out;
	l.count = count;
	l.active = active;
	l.bias = bias;
	l.expert = expert;
	return l;
}

static void test_linear_params(void)
{
	gs_linear l = mk("q_proj", GS_ROLE_Q, 4096, 4096, 1, 1, 0, 0);

	CHECK_EQ_U64(gs_linear_params(&l), 16777216, "linear: 4096x4096 no bias");
	l.bias = true;
	CHECK_EQ_U64(gs_linear_params(&l), 16777216 + 4096, "linear: bias adds out");
	l = mk("w1", GS_ROLE_GATE, 4096, 14336, 8, 2, 0, 1);
	CHECK_EQ_U64(gs_linear_params(&l), 8ull * 4096 * 14336, "linear: experts count all instances");
	l = mk("big", GS_ROLE_UP, INT64_C(1) << 40, INT64_C(1) << 30, 1, 1, 0, 0);
	CHECK(gs_linear_params(&l) == UINT64_MAX, "linear: 2^70 saturates to UINT64_MAX");
	l = mk("neg", GS_ROLE_UP, -5, 10, 1, 1, 0, 0);
	CHECK(gs_linear_params(&l) == UINT64_MAX, "linear: negative shape saturates");
}

/* A two-kind toy model: numbers small enough to check by hand. */
static void test_tally_toy(void)
{
	gs_arch a;
	gs_error e = { 0 };
	gs_layer_kind *k;

	memset(&a, 0, sizeof a);
	strcpy(a.source, "toy");
	a.p_embed = 100 * 8;      /* vocab 100 x hidden 8 */
	a.p_embed_other = 16;     /* positions */
	a.p_head = 800;           /* untied */
	a.p_final = 8;
	a.n_kinds = 2;
	k = &a.kind[0]; /* 1 dense layer */
	k->n_layers = 1;
	k->n_lin = 2;
	k->lin[0] = mk("up", GS_ROLE_UP, 8, 32, 1, 1, 1, 0);    /* 256 + 32 = 288 */
	k->lin[1] = mk("down", GS_ROLE_DOWN, 32, 8, 1, 1, 0, 0); /* 256 */
	k->other_params = 16;
	k = &a.kind[1]; /* 3 MoE layers, 4 experts, top-1 */
	k->n_layers = 3;
	k->n_lin = 2;
	k->lin[0] = mk("gate", GS_ROLE_ROUTER, 8, 4, 1, 1, 0, 0); /* 32 */
	k->lin[1] = mk("w", GS_ROLE_UP, 8, 16, 4, 1, 0, 1);       /* 4 x 128 = 512, active 128 */
	k->other_params = 16;
	CHECK(gs_arch_tally(&a, &e) == GS_OK, "tally toy: ok");
	/* fixed 800+16+800+8 = 1624; dense 288+256+16 = 560;
	 * MoE per layer 32+512+16 = 560, x3 = 1680 */
	CHECK_EQ_U64(a.params_total, 1624 + 560 + 1680, "tally toy: total");
	/* active MoE per layer 32+128+16 = 176, x3 = 528 */
	CHECK_EQ_U64(a.params_active, 1624 + 560 + 528, "tally toy: active counts top-k experts");
	/* linear: dense 544 + MoE 3 x 544 */
	CHECK_EQ_U64(a.params_linear, 544 + 3 * 544, "tally toy: linear excludes norms/embeddings");

	/* Overflow: 2^31 x 2^31 x 2^2 instances = 2^64 */
	a.kind[1].lin[1] = mk("w", GS_ROLE_UP, INT64_C(1) << 31, INT64_C(1) << 31, 4, 1, 0, 1);
	memset(&e, 0, sizeof e);
	CHECK(gs_arch_tally(&a, &e) == GS_EOVERFLOW, "tally: module overflow -> GS_EOVERFLOW");
	CHECK(strstr(e.msg, "toy") && strstr(e.msg, "\"w\""), "tally: overflow names source and module (%s)",
	      e.msg);
	/* Layers x per-layer overflow */
	a.kind[1].lin[1] = mk("w", GS_ROLE_UP, 8, 16, 4, 1, 0, 1);
	a.kind[1].n_layers = INT64_C(1) << 61;
	memset(&e, 0, sizeof e);
	CHECK(gs_arch_tally(&a, &e) == GS_EOVERFLOW, "tally: layers overflow -> GS_EOVERFLOW");
	CHECK(a.params_total == 0, "tally: totals zeroed on failure");
	/* Just under the 2^62 limit is fine; just over is not. */
	memset(&a, 0, sizeof a);
	a.p_embed = INT64_C(1) << 62;
	memset(&e, 0, sizeof e);
	CHECK(gs_arch_tally(&a, &e) == GS_OK, "tally: exactly 2^62 accepted");
	a.p_final = 1;
	memset(&e, 0, sizeof e);
	CHECK(gs_arch_tally(&a, &e) == GS_EOVERFLOW, "tally: 2^62 + 1 refused");
	a.p_final = -1;
	memset(&e, 0, sizeof e);
	CHECK(gs_arch_tally(&a, &e) == GS_EINTERNAL, "tally: negative part refused");
}

static void test_manual(void)
{
	gs_arch a;
	gs_error e = { 0 };

	/* LLaMA-7B shape: hidden 4096, 32 layers, defaults heads 32, vocab 32000,
	 * intermediate 8/3*4096 = 10922.67 -> 11008. Hand count:
	 * layer = 4 x 4096^2 (q,k,v,o) + 3 x 4096 x 11008 + 2 x 4096
	 *       = 67,108,864 + 135,266,304 + 8,192 = 202,383,360
	 * total = 32 x layer + 2 x 32000 x 4096 + 4096 = 6,738,415,616 */
	CHECK(gs_arch_manual(&a, 0, 32, 4096, 0, 0, 0, 0, &e) == GS_OK, "manual 7b: ok (%s)", e.msg);
	CHECK_EQ_U64(a.heads, 32, "manual: heads default hidden/128");
	CHECK_EQ_U64(a.kv_heads, 32, "manual: kv heads default heads");
	CHECK_EQ_U64(a.intermediate, 11008, "manual: intermediate 8/3 hidden rounded up to 256");
	CHECK_EQ_U64(a.vocab, 32000, "manual: vocab default 32000");
	CHECK_EQ_U64(a.params_total, 6738415616ull, "manual 7b: total = LLaMA-7B count");
	CHECK(a.generic && strcmp(a.model_type, "manual") == 0, "manual: generic, model_type manual");
	CHECK(strstr(a.warning, "LLaMA-style") != NULL, "manual: warning says what was assumed");

	/* With --params: intermediate solved so that the total matches. */
	memset(&e, 0, sizeof e);
	CHECK(gs_arch_manual(&a, 6738415616ll, 32, 4096, 0, 0, 0, 0, &e) == GS_OK, "manual params: ok");
	CHECK_EQ_U64(a.intermediate, 11008, "manual params: intermediate solved back to 11008");
	CHECK_EQ_U64(a.params_total, 6738415616ull, "manual params: total is --params");
	CHECK(strstr(a.warning, "+0.000%") != NULL, "manual params: warning gives the difference (%s)",
	      a.warning);
	memset(&e, 0, sizeof e);
	CHECK(gs_arch_manual(&a, 7000000000ll, 32, 4096, 32, 8, 0, 128256, &e) == GS_OK,
	      "manual params GQA: ok");
	CHECK_EQ_U64(a.params_total, 7000000000ull, "manual params: --params overrides the tally");
	CHECK(strstr(a.warning, "7000000000") != NULL, "manual params: warning names --params");
	CHECK_EQ_U64(a.kv_cache_dim, 2 * 8 * 128, "manual: kv_cache_dim 2*kv*head_dim");

	memset(&e, 0, sizeof e);
	CHECK(gs_arch_manual(&a, 1000, 32, 4096, 0, 0, 0, 0, &e) == GS_EUSAGE &&
	              strstr(e.msg, "--params"),
	      "manual: --params too small for the shape -> usage error (%s)", e.msg);
	memset(&e, 0, sizeof e);
	CHECK(gs_arch_manual(&a, 0, 0, 4096, 0, 0, 0, 0, &e) == GS_EUSAGE && strstr(e.msg, "--layers"),
	      "manual: --layers 0 refused (%s)", e.msg);
	memset(&e, 0, sizeof e);
	CHECK(gs_arch_manual(&a, 0, 32, -4, 0, 0, 0, 0, &e) == GS_EUSAGE && strstr(e.msg, "--hidden"),
	      "manual: negative --hidden refused (%s)", e.msg);
	memset(&e, 0, sizeof e);
	CHECK(gs_arch_manual(&a, 0, 32, 4096, 32, 5, 0, 0, &e) == GS_EUSAGE && strstr(e.msg, "--kv-heads"),
	      "manual: kv heads must divide heads (%s)", e.msg);
	memset(&e, 0, sizeof e);
	CHECK(gs_arch_manual(&a, 0, 32, 4096, 3, 0, 0, 0, &e) == GS_EUSAGE,
	      "manual: hidden not divisible by heads (%s)", e.msg);
	memset(&e, 0, sizeof e);
	CHECK(gs_arch_manual(&a, 0, 32, 100, 0, 0, 0, 0, &e) == GS_EUSAGE && strstr(e.msg, "--heads"),
	      "manual: hidden < 128 needs --heads (%s)", e.msg);
	memset(&e, 0, sizeof e);
	CHECK(gs_arch_manual(&a, 0, INT64_C(1) << 50, INT64_C(1) << 20, 0, 0, 0, 0, &e) == GS_EOVERFLOW,
	      "manual: huge shape -> GS_EOVERFLOW (%s)", e.msg);
}

int main(void)
{
	test_linear_params();
	test_tally_toy();
	test_manual();
	CHECK_DONE();
}
