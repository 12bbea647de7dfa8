/* Unit tests for config.c: every model in tests/fixtures/models-reference
 * (exact totals, MoE active counts), fixture configs for the other
 * families (hand computations written out below), module names,
 * quantization_config, and the error paths. Run from the repository root
 * (tests/run.sh does; GS_TOP overrides). */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "config.h"
#include "util.h"
#include "fileio.h"

static char top[4096] = ".";

static void path_of(char *buf, size_t n, const char *rel)
{
	snprintf(buf, n, "%s/%s", top, rel);
}

static const gs_linear *find_mod(const gs_arch *a, int kind, const char *name)
{
	if (kind >= a->n_kinds)
		return NULL;
	for (int i = 0; i < a->kind[kind].n_lin; i++) {
		if (strcmp(a->kind[kind].lin[i].name, name) == 0)
			return &a->kind[kind].lin[i];
	}
	return NULL;
}

/* Module `name` in kind `kind` with this role and shape. */
static int mod_is(const gs_arch *a, int kind, const char *name, gs_role role, int64_t in, int64_t out)
{
	const gs_linear *l = find_mod(a, kind, name);

	return l != NULL && l->role == role && l->in == in && l->out == out;
}

/* The names of kind k, space-separated, for failure messages. */
static const char *names(const gs_arch *a, int k)
{
	static char buf[512];
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; k < a->n_kinds && i < a->kind[k].n_lin && n < sizeof buf; i++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s ", a->kind[k].lin[i].name);
	return buf;
}

static int load(const char *rel, gs_arch *a)
{
	char p[4200];
	gs_error e = { 0 };
	gs_err rc;

	path_of(p, sizeof p, rel);
	rc = gs_config_load(p, a, &e);
	if (rc != GS_OK)
		printf("  %s: %s\n", rel, e.msg);
	return rc == GS_OK;
}

/* ---- models-reference: exact totals for every file in index.json ---- */

static void test_reference(void)
{
	char p[4200], *buf = NULL;
	size_t len = 0;
	gs_error e = { 0 };
	cJSON *idx, *models;
	int n = 0;

	path_of(p, sizeof p, "tests/fixtures/models-reference/index.json");
	if (gs_read_file(p, 1 << 20, &buf, &len, &e) != GS_OK) {
		CHECK(0, "reference: read %s (%s)", p, e.msg);
		return;
	}
	idx = cJSON_ParseWithLength(buf, len);
	free(buf);
	models = cJSON_GetObjectItemCaseSensitive(idx, "models");
	CHECK(cJSON_IsArray(models), "reference: index.json has a models array");
	for (const cJSON *m = models ? models->child : NULL; m != NULL; m = m->next) {
		const cJSON *file = cJSON_GetObjectItemCaseSensitive(m, "file");
		const cJSON *tot = cJSON_GetObjectItemCaseSensitive(m, "params_total");
		const cJSON *act = cJSON_GetObjectItemCaseSensitive(m, "params_active");
		char rel[512];
		gs_arch a;

		if (!cJSON_IsString(file) || !cJSON_IsNumber(tot))
			continue;
		n++;
		snprintf(rel, sizeof rel, "tests/fixtures/models-reference/%s", file->valuestring);
		if (!load(rel, &a)) {
			CHECK(0, "reference %s: parses", file->valuestring);
			continue;
		}
		CHECK_EQ_U64(a.params_total, (uint64_t)tot->valuedouble, "reference %s: params_total exact",
		             file->valuestring);
		if (cJSON_IsNumber(act))
			CHECK_EQ_U64(a.params_active, (uint64_t)act->valuedouble,
			             "reference %s: params_active exact", file->valuestring);
		else
			CHECK_EQ_U64(a.params_active, a.params_total, "reference %s: dense: active = total",
			             file->valuestring);
		CHECK(!a.generic, "reference %s: known family (%s)", file->valuestring, a.model_type);
	}
	CHECK(n == 17, "reference: all 17 models checked (got %d)", n);
	cJSON_Delete(idx);
}

/* ---- what the reference files say beyond the totals ---- */

static void test_reference_shapes(void)
{
	gs_arch a;

	if (load("tests/fixtures/models-reference/meta-llama--Llama-3.1-8B.config.json", &a)) {
		CHECK(mod_is(&a, 0, "q_proj", GS_ROLE_Q, 4096, 4096) &&
		              mod_is(&a, 0, "k_proj", GS_ROLE_K, 4096, 1024) &&
		              mod_is(&a, 0, "v_proj", GS_ROLE_V, 4096, 1024) &&
		              mod_is(&a, 0, "o_proj", GS_ROLE_O, 4096, 4096) &&
		              mod_is(&a, 0, "gate_proj", GS_ROLE_GATE, 4096, 14336) &&
		              mod_is(&a, 0, "up_proj", GS_ROLE_UP, 4096, 14336) &&
		              mod_is(&a, 0, "down_proj", GS_ROLE_DOWN, 14336, 4096) && a.kind[0].n_lin == 7,
		      "llama modules: %s", names(&a, 0));
		CHECK(a.kv_heads == 8 && a.head_dim == 128 && a.kv_cache_dim == 2048 && !a.tied &&
		              a.p_head == 128256LL * 4096 && a.act == GS_ACT_GATED && a.norm == GS_NORM_RMS &&
		              a.rotary && a.dropout == 0 && a.max_pos == 131072 && a.quant == GS_QUANT_NONE,
		      "llama 3.1 8b scalars");
		CHECK_EQ_U64(a.params_linear, 32ull * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3ull * 4096 * 14336),
		             "llama 3.1 8b: params_linear = layers x linear weights");
	}
	if (load("tests/fixtures/models-reference/meta-llama--Llama-3.2-1B.config.json", &a))
		CHECK(a.tied && a.p_head == 0 && a.head_dim == 64, "llama 3.2 1b: tied, head_dim 64");
	if (load("tests/fixtures/models-reference/Qwen--Qwen2.5-7B.config.json", &a)) {
		const gs_linear *q = find_mod(&a, 0, "q_proj"), *o = find_mod(&a, 0, "o_proj");
		CHECK(q && q->bias && o && !o->bias && a.sliding_window == 0,
		      "qwen2: q/k/v bias, o without, sliding window off (use_sliding_window false)");
	}
	if (load("tests/fixtures/models-reference/mistralai--Mistral-7B-v0.1.config.json", &a))
		CHECK(a.sliding_window == 4096, "mistral: sliding_window 4096");
	if (load("tests/fixtures/models-reference/microsoft--Phi-3-mini-4k-instruct.config.json", &a))
		CHECK(mod_is(&a, 0, "qkv_proj", GS_ROLE_QKV, 3072, 9216) &&
		              mod_is(&a, 0, "o_proj", GS_ROLE_O, 3072, 3072) &&
		              mod_is(&a, 0, "gate_up_proj", GS_ROLE_GATE_UP, 3072, 16384) &&
		              mod_is(&a, 0, "down_proj", GS_ROLE_DOWN, 8192, 3072) && a.kind[0].n_lin == 4,
		      "phi3 modules: %s", names(&a, 0));
	if (load("tests/fixtures/models-reference/openai-community--gpt2.config.json", &a)) {
		CHECK(mod_is(&a, 0, "c_attn", GS_ROLE_QKV, 768, 2304) &&
		              mod_is(&a, 0, "attn.c_proj", GS_ROLE_O, 768, 768) &&
		              mod_is(&a, 0, "c_fc", GS_ROLE_UP, 768, 3072) &&
		              mod_is(&a, 0, "mlp.c_proj", GS_ROLE_DOWN, 3072, 768) && a.kind[0].n_lin == 4,
		      "gpt2 modules: %s", names(&a, 0));
		CHECK(a.tied && a.act == GS_ACT_PLAIN && a.norm == GS_NORM_LAYER && !a.rotary &&
		              a.dropout == 0.1 && a.max_pos == 1024 && a.p_embed_other == 1024 * 768,
		      "gpt2 scalars: tied, GELU, LayerNorm, dropout 0.1, wpe");
	}
	if (load("tests/fixtures/models-reference/google-bert--bert-base-uncased.config.json", &a)) {
		CHECK(mod_is(&a, 0, "query", GS_ROLE_Q, 768, 768) && mod_is(&a, 0, "key", GS_ROLE_K, 768, 768) &&
		              mod_is(&a, 0, "value", GS_ROLE_V, 768, 768) &&
		              mod_is(&a, 0, "attention.output.dense", GS_ROLE_O, 768, 768) &&
		              mod_is(&a, 0, "intermediate.dense", GS_ROLE_UP, 768, 3072) &&
		              mod_is(&a, 0, "output.dense", GS_ROLE_DOWN, 3072, 768),
		      "bert modules: %s", names(&a, 0));
		CHECK(a.encoder && a.p_head == 0 && a.dropout == 0.1, "bert: encoder, no head, dropout 0.1");
	}
	if (load("tests/fixtures/models-reference/mistralai--Mixtral-8x7B-v0.1.config.json", &a)) {
		const gs_linear *w1 = find_mod(&a, 0, "w1"), *g = find_mod(&a, 0, "gate");
		CHECK(mod_is(&a, 0, "gate", GS_ROLE_ROUTER, 4096, 8) && mod_is(&a, 0, "w1", GS_ROLE_GATE, 4096, 14336) &&
		              mod_is(&a, 0, "w3", GS_ROLE_UP, 4096, 14336) &&
		              mod_is(&a, 0, "w2", GS_ROLE_DOWN, 14336, 4096) && w1 && w1->expert &&
		              w1->count == 8 && w1->active == 2 && g && !g->expert,
		      "mixtral modules: %s", names(&a, 0));
		CHECK(a.kind[0].n_experts == 8 && a.kind[0].experts_per_tok == 2 &&
		              a.kind[0].mlp_inner == 2 * 14336,
		      "mixtral: experts 8, top-2, mlp_inner 2 x 14336");
	}
	if (load("tests/fixtures/models-reference/Qwen--Qwen3-30B-A3B.config.json", &a))
		CHECK(a.n_kinds == 1 && a.kind[0].n_layers == 48 && mod_is(&a, 0, "gate", GS_ROLE_ROUTER, 2048, 128) &&
		              find_mod(&a, 0, "gate_proj") && find_mod(&a, 0, "gate_proj")->expert &&
		              a.head_dim == 128 && a.kind[0].other_params == 2 * 2048 + 2 * 128,
		      "qwen3_moe: 48 MoE layers, router, experts, q/k norms: %s", names(&a, 0));
	if (load("tests/fixtures/models-reference/google--gemma-2-9b.config.json", &a))
		CHECK(a.tied && a.head_dim == 256 && a.kind[0].other_params == 4 * 3584 && a.sliding_window == 0,
		      "gemma2: tied, head_dim 256, four norms per layer, hybrid window not applied to all");
}

/* ---- fixtures: README "Missing" table figures ---- */

static void test_missing_table(void)
{
	gs_arch a;

	if (load("tests/fixtures/configs/deepseek-v2-lite-shaped.json", &a)) {
		CHECK_EQ_U64(a.params_total, 15706484224ull, "DeepSeek-V2-Lite shape: total");
		CHECK(a.n_kinds == 2 && a.kind[0].n_layers == 1 && a.kind[0].n_experts == 0 &&
		              a.kind[1].n_layers == 26 && a.kind[1].n_experts == 64 &&
		              a.kind[1].experts_per_tok == 6,
		      "DeepSeek-V2-Lite shape: 1 dense + 26 MoE layers");
		CHECK(mod_is(&a, 0, "q_proj", GS_ROLE_Q, 2048, 16 * 192) &&
		              mod_is(&a, 0, "kv_a_proj_with_mqa", GS_ROLE_ATTN_OTHER, 2048, 576) &&
		              mod_is(&a, 0, "kv_b_proj", GS_ROLE_ATTN_OTHER, 512, 16 * 256) &&
		              mod_is(&a, 0, "o_proj", GS_ROLE_O, 16 * 128, 2048) &&
		              mod_is(&a, 0, "gate_proj", GS_ROLE_GATE, 2048, 10944) && !find_mod(&a, 0, "q_a_proj"),
		      "DeepSeek-V2-Lite shape: MLA without q compression: %s", names(&a, 0));
		CHECK(mod_is(&a, 1, "gate", GS_ROLE_ROUTER, 2048, 64) &&
		              find_mod(&a, 1, "gate_proj")->expert && find_mod(&a, 1, "gate_proj")->count == 64 &&
		              a.kv_cache_dim == 512 + 64 && a.v_head_dim == 128 && a.head_dim == 192,
		      "DeepSeek-V2-Lite shape: router, routed experts, MLA cache dim: %s", names(&a, 1));
		/* shared experts: 2 x 1408 wide, not routed, under their full
		 * module names (mlp.shared_experts.gate_proj ...) */
		{
			const gs_linear *sg = find_mod(&a, 1, "shared_experts.gate_proj");
			const gs_linear *su = find_mod(&a, 1, "shared_experts.up_proj");
			const gs_linear *sd = find_mod(&a, 1, "shared_experts.down_proj");
			CHECK(mod_is(&a, 1, "shared_experts.gate_proj", GS_ROLE_GATE, 2048, 2816) &&
			              mod_is(&a, 1, "shared_experts.up_proj", GS_ROLE_UP, 2048, 2816) &&
			              mod_is(&a, 1, "shared_experts.down_proj", GS_ROLE_DOWN, 2816, 2048) &&
			              !sg->expert && !su->expert && !sd->expert && sg->count == 1 &&
			              find_mod(&a, 1, "gate_proj")->expert && a.kind[1].n_lin == 11,
			      "DeepSeek-V2-Lite shape: shared experts 2 x 1408 under full names, not routed: %s",
			      names(&a, 1));
		}
	}
	if (load("tests/fixtures/configs/pythia-1b-shaped.json", &a)) {
		CHECK_EQ_U64(a.params_total, 1011781632ull, "pythia-1b shape: total");
		CHECK(mod_is(&a, 0, "query_key_value", GS_ROLE_QKV, 2048, 6144) &&
		              mod_is(&a, 0, "dense", GS_ROLE_O, 2048, 2048) &&
		              mod_is(&a, 0, "dense_h_to_4h", GS_ROLE_UP, 2048, 8192) &&
		              mod_is(&a, 0, "dense_4h_to_h", GS_ROLE_DOWN, 8192, 2048) && a.parallel_attn &&
		              !a.tied && a.rotary,
		      "gpt_neox modules: %s", names(&a, 0));
	}
	if (load("tests/fixtures/configs/falcon-7b-shaped.json", &a)) {
		CHECK_EQ_U64(a.params_total, 6921720704ull, "falcon-7b shape: total (tied)");
		CHECK(mod_is(&a, 0, "query_key_value", GS_ROLE_QKV, 4544, 4544 + 2 * 64) &&
		              mod_is(&a, 0, "dense", GS_ROLE_O, 4544, 4544) &&
		              mod_is(&a, 0, "dense_h_to_4h", GS_ROLE_UP, 4544, 4 * 4544) &&
		              mod_is(&a, 0, "dense_4h_to_h", GS_ROLE_DOWN, 4 * 4544, 4544) && a.kv_heads == 1 &&
		              a.kv_cache_dim == 128 && a.tied && a.parallel_attn,
		      "falcon modules (multi-query): %s", names(&a, 0));
	}
	if (load("tests/fixtures/configs/gemma-2-27b-shaped.json", &a))
		CHECK_EQ_U64(a.params_total, 27227128320ull, "gemma-2-27b shape: total (dtype key accepted)");
}

/* ---- fixtures checked against hand computations ---- */

static void test_hand_computed(void)
{
	gs_arch a;

	if (load("tests/fixtures/configs/qwen2-moe-a2.7b-shaped.json", &a)) {
		/* H 2048, 24 layers, 16 heads of 128, 60 experts top-4 of 1408,
		 * shared expert 5632, vocab 151936, untied. */
		uint64_t attn = 3 * (2048ull * 2048 + 2048) /* q,k,v with bias */ + 2048ull * 2048 /* o */;
		uint64_t router = 2048ull * 60;               /* gate */
		uint64_t expert = 3ull * 2048 * 1408;         /* gate/up/down of one expert */
		uint64_t shared = 3ull * 2048 * 5632 + 2048;  /* shared_expert + shared_expert_gate */
		uint64_t norms = 2 * 2048;
		uint64_t emb = 2ull * 151936 * 2048 + 2048;   /* embed + lm_head + final norm */
		CHECK_EQ_U64(a.params_total, 24 * (attn + router + 60 * expert + shared + norms) + emb,
		             "qwen2_moe shape: total (hand)");
		CHECK_EQ_U64(a.params_active, 24 * (attn + router + 4 * expert + shared + norms) + emb,
		             "qwen2_moe shape: active, 4 of 60 experts (hand)");
		CHECK(mod_is(&a, 0, "shared_expert.gate_proj", GS_ROLE_GATE, 2048, 5632) &&
		              mod_is(&a, 0, "shared_expert.up_proj", GS_ROLE_UP, 2048, 5632) &&
		              mod_is(&a, 0, "shared_expert.down_proj", GS_ROLE_DOWN, 5632, 2048) &&
		              mod_is(&a, 0, "shared_expert_gate", GS_ROLE_ROUTER, 2048, 1) &&
		              mod_is(&a, 0, "gate", GS_ROLE_ROUTER, 2048, 60) &&
		              !find_mod(&a, 0, "shared_expert.gate_proj")->expert &&
		              find_mod(&a, 0, "gate_proj")->expert && a.kind[0].mlp_inner == 4 * 1408 + 5632,
		      "qwen2_moe modules: %s", names(&a, 0));
	}
	if (load("tests/fixtures/configs/qwen3-8b-shaped.json", &a)) {
		/* H 4096, 36 layers, 32 heads / 8 kv heads of 128, I 12288, vocab 151936 */
		uint64_t attn = 2 * 4096ull * 4096 /* q, o */ + 2 * 4096ull * 1024 /* k, v */;
		uint64_t mlp = 3 * 4096ull * 12288;
		uint64_t norms = 2 * 4096 + 2 * 128; /* input/post-attention + q_norm/k_norm */
		CHECK_EQ_U64(a.params_total, 36 * (attn + mlp + norms) + 2ull * 151936 * 4096 + 4096,
		             "qwen3 shape: total (hand)");
	}
	if (load("tests/fixtures/configs/gemma-7b-shaped.json", &a)) {
		/* H 3072, 28 layers, 16 heads of 256 (4096 wide), I 24576, tied */
		uint64_t attn = 4 * 3072ull * 4096, mlp = 3 * 3072ull * 24576, norms = 2 * 3072;
		CHECK_EQ_U64(a.params_total, 28 * (attn + mlp + norms) + 256000ull * 3072 + 3072,
		             "gemma shape: total (hand, tied by default)");
		CHECK(a.tied, "gemma: tied by default");
	}
	if (load("tests/fixtures/configs/gemma-3-4b-shaped.json", &a)) {
		/* text_config: H 2560, 34 layers, I 10240; defaults 8 heads, 4 kv heads,
		 * head_dim 256, vocab 262208, tied. */
		uint64_t attn = 2 * 2560ull * 2048 /* q, o */ + 2 * 2560ull * 1024 /* k, v */;
		uint64_t mlp = 3 * 2560ull * 10240;
		uint64_t norms = 4 * 2560 + 2 * 256; /* four layer norms + q_norm/k_norm */
		/* vision_config gives only hidden_size 1152: SiglipVisionConfig's
		 * defaults for the rest (12 layers, intermediate 3072, 224 px in
		 * 16 px patches: 196 positions, the pooling head on), and Gemma 3's
		 * projector (an RMSNorm of 1152 and a 1152 x 2560 matrix) */
		uint64_t H = 1152, I = 3072, lin = H * H + H;
		uint64_t layer = 4 * H + 4 * lin + (H * I + I) + (I * H + H);
		uint64_t head = H + (3 * H * H + 3 * H) + lin + 2 * H + (H * I + I) + (I * H + H);
		uint64_t vision = (3 * 16 * 16 * H + H) + 196 * H + 12 * layer + 2 * H + head + H + H * 2560;
		CHECK_EQ_U64(a.params_total, 34 * (attn + mlp + norms) + 262208ull * 2560 + 2560 + vision,
		             "gemma3 (text_config) shape: total (hand), its SigLIP tower at the class defaults");
		CHECK_EQ_U64(a.params_vision, vision, "gemma3: the vision tower reported apart");
		CHECK(strstr(a.warning, "siglip vision tower") && strstr(a.warning, "num_attention_heads 8"),
		      "gemma3: warning names the defaults and the counted vision tower (%s)", a.warning);
	}
	if (load("tests/fixtures/configs/bloom-560m-shaped.json", &a)) {
		/* H 1024, 24 layers, vocab 250880, 4H MLP, all linears with bias, tied */
		uint64_t lin = (1024ull * 3072 + 3072) + (1024ull * 1024 + 1024) + (1024ull * 4096 + 4096) +
		               (4096ull * 1024 + 1024);
		uint64_t norms = 2 * 2 * 1024;                   /* input + post-attention LayerNorm */
		uint64_t emb = 250880ull * 1024 + 2 * 1024;      /* embeddings + their LayerNorm */
		CHECK_EQ_U64(a.params_total, 24 * (lin + norms) + emb + 2 * 1024 /* ln_f */,
		             "bloom shape: total (hand)");
		CHECK(mod_is(&a, 0, "query_key_value", GS_ROLE_QKV, 1024, 3072) && !a.rotary && a.tied,
		      "bloom modules: %s", names(&a, 0));
	}
	if (load("tests/fixtures/configs/deepseek-v3-shaped.json", &a)) {
		/* H 7168, 61 layers (3 dense), 128 heads; MLA q_lora 1536, kv_lora 512,
		 * nope 128 + rope 64, v 128; 256 experts top-8 of 2048, 1 shared. */
		uint64_t attn = 7168ull * 1536            /* q_a_proj */
		              + 1536ull * 128 * 192       /* q_b_proj */
		              + 7168ull * (512 + 64)      /* kv_a_proj_with_mqa */
		              + 512ull * 128 * (128 + 128) /* kv_b_proj */
		              + 128ull * 128 * 7168;      /* o_proj */
		uint64_t norms = 2 * 7168 + 1536 + 512;   /* layer norms + q_a/kv_a norms */
		uint64_t dense = 3ull * 7168 * 18432;
		uint64_t expert = 3ull * 7168 * 2048, router = 256ull * 7168, shared = expert;
		uint64_t emb = 2ull * 129280 * 7168 + 7168;
		CHECK_EQ_U64(a.params_total,
		             3 * (attn + norms + dense) + 58 * (attn + norms + router + 256 * expert + shared) + emb,
		             "deepseek_v3 shape: total (hand)");
		CHECK_EQ_U64(a.params_active,
		             3 * (attn + norms + dense) + 58 * (attn + norms + router + 8 * expert + shared) + emb,
		             "deepseek_v3 shape: active, 8 of 256 experts (hand)");
		CHECK(mod_is(&a, 1, "q_a_proj", GS_ROLE_ATTN_OTHER, 7168, 1536) &&
		              mod_is(&a, 1, "q_b_proj", GS_ROLE_Q, 1536, 128 * 192) && a.quant == GS_QUANT_FP8_BLOCK &&
		              a.quant_bits == 8 && a.quant_group == 128 && a.quant_group_in == 128 &&
		              strstr(a.warning, "multi-token"),
		      "deepseek_v3: q_a/q_b, fp8 with 128 x 128 weight blocks, MTP warning: %s", names(&a, 1));
	}
	if (load("tests/fixtures/configs/qwen3-moe-mixed-layers.json", &a)) {
		/* H 64, 6 layers, mlp_only_layers [0,5,0] -> 2 dense + 4 MoE;
		 * 4 heads / 2 kv heads of 32, I 256, 8 experts top-2 of 32, tied. */
		uint64_t attn = 2 * 64ull * 128 + 2 * 64ull * 64, norms = 2 * 64 + 2 * 32;
		uint64_t dense = 3 * 64ull * 256, expert = 3 * 64ull * 32, router = 64 * 8;
		uint64_t emb = 500ull * 64 + 64;
		CHECK(a.n_kinds == 2 && a.kind[0].n_layers == 2 && a.kind[1].n_layers == 4,
		      "qwen3_moe mlp_only_layers: 2 dense + 4 MoE layers (duplicates once)");
		CHECK_EQ_U64(a.params_total, 2 * (attn + norms + dense) + 4 * (attn + norms + router + 8 * expert) + emb,
		             "qwen3_moe mixed: total (hand)");
		CHECK_EQ_U64(a.params_active, 2 * (attn + norms + dense) + 4 * (attn + norms + router + 2 * expert) + emb,
		             "qwen3_moe mixed: active (hand)");
	}
}

/* Falcon variants: new decoder architecture (GQA, two LayerNorms), ALiBi,
 * bias; classic sequential blocks. Inline configs, hand computations. */
static void test_falcon_variants(void)
{
	const char *nd = "{\"model_type\":\"falcon\",\"hidden_size\":256,\"num_hidden_layers\":2,"
	                 "\"num_attention_heads\":8,\"num_kv_heads\":2,\"new_decoder_architecture\":true,"
	                 "\"parallel_attn\":true,\"bias\":true,\"alibi\":true,\"vocab_size\":1000}";
	const char *seq = "{\"model_type\":\"falcon\",\"hidden_size\":256,\"n_layer\":2,\"n_head\":8,"
	                  "\"multi_query\":false,\"parallel_attn\":false,\"vocab_size\":1000,"
	                  "\"tie_word_embeddings\":false}";
	const char *par1 = "{\"model_type\":\"falcon\",\"hidden_size\":256,\"n_layer\":2,\"n_head\":8,"
	                   "\"multi_query\":false,\"vocab_size\":1000}";
	gs_arch a;
	gs_error e = { 0 };
	/* head size 32; MLP 4H = 1024 */
	uint64_t mlp = 2 * 256ull * 1024, emb = 1000ull * 256, lnf = 2 * 256;

	CHECK(gs_config_parse(nd, strlen(nd), "falcon-nd.json", &a, &e) == GS_OK, "falcon new arch parses (%s)",
	      e.msg);
	/* qkv (8 + 2x2) heads x 32 = 384 wide, all linears with bias, ln_attn + ln_mlp */
	CHECK_EQ_U64(a.params_total,
	             2 * ((256ull * 384 + 384) + (256ull * 256 + 256) + (mlp + 1024 + 256) + 2 * 2 * 256) + emb + lnf,
	             "falcon new arch + bias: total (hand, tied)");
	CHECK(a.kv_heads == 2 && a.kv_cache_dim == 2 * 2 * 32 && !a.rotary && a.parallel_attn &&
	              find_mod(&a, 0, "query_key_value")->bias,
	      "falcon new arch: 2 kv heads, ALiBi (no rotary), parallel, bias");
	memset(&e, 0, sizeof e);
	CHECK(gs_config_parse(seq, strlen(seq), "falcon-seq.json", &a, &e) == GS_OK, "falcon sequential parses");
	/* qkv 3H, no bias, input + post-attention LayerNorm, untied head */
	CHECK_EQ_U64(a.params_total, 2 * (256ull * 768 + 256ull * 256 + mlp + 2 * 2 * 256) + 2 * emb + lnf,
	             "falcon sequential, untied: total (hand)");
	CHECK(!a.parallel_attn && a.kv_heads == 8 && a.rotary, "falcon sequential: not parallel, MHA, rotary");
	memset(&e, 0, sizeof e);
	CHECK(gs_config_parse(par1, strlen(par1), "falcon-par.json", &a, &e) == GS_OK, "falcon parallel MHA parses");
	CHECK_EQ_U64(a.params_total, 2 * (256ull * 768 + 256ull * 256 + mlp + 2 * 256) + emb + lnf,
	             "falcon parallel MHA: one LayerNorm per layer (hand)");
}

/* ---- Phi, GPT-J: real configs in tests/accuracy/models (read only) ---- */

static void test_phi_gptj(void)
{
	gs_arch a;

	/* Exact totals: figures given with the task as the public counts
	 * (microsoft/phi-2 model card "2.7 billion", the widely quoted exact
	 * 2,779,683,840; phi-1_5 1,418,270,720; gpt-j-6B 6,050,882,784). The
	 * comments below show the same figures term by term. */
	if (load("tests/accuracy/models/microsoft--phi-2.config.json", &a)) {
		/* H 2560, 32 layers, I 10240, vocab 51200: per layer q,k,v,dense
		 * 4 x (2560^2 + 2560) + fc1 (2560 x 10240 + 10240) + fc2 (10240 x
		 * 2560 + 2560) + input_layernorm 2 x 2560 = 78,671,360; x 32 +
		 * embed 51200 x 2560 + lm_head (51200 x 2560 + 51200) + final
		 * LayerNorm 5120 = 2,779,683,840 */
		CHECK_EQ_U64(a.params_total, 2779683840ull, "phi-2: total = the public count 2,779,683,840");
		CHECK(mod_is(&a, 0, "q_proj", GS_ROLE_Q, 2560, 2560) && mod_is(&a, 0, "k_proj", GS_ROLE_K, 2560, 2560) &&
		              mod_is(&a, 0, "v_proj", GS_ROLE_V, 2560, 2560) &&
		              mod_is(&a, 0, "dense", GS_ROLE_O, 2560, 2560) &&
		              mod_is(&a, 0, "fc1", GS_ROLE_UP, 2560, 10240) &&
		              mod_is(&a, 0, "fc2", GS_ROLE_DOWN, 10240, 2560) && a.kind[0].n_lin == 6 &&
		              find_mod(&a, 0, "q_proj")->bias && find_mod(&a, 0, "dense")->bias &&
		              find_mod(&a, 0, "fc2")->bias,
		      "phi modules, all with bias: %s", names(&a, 0));
		CHECK(a.act == GS_ACT_PLAIN && a.norm == GS_NORM_LAYER && a.parallel_attn && a.rotary && !a.tied &&
		              a.p_head == 51200ll * 2560 + 51200 && a.p_final == 2 * 2560 &&
		              a.kind[0].other_params == 2 * 2560 && a.kind[0].mlp_inner == 10240 &&
		              a.kv_cache_dim == 2 * 2560 && a.dropout == 0.1 && a.max_pos == 2048 && !a.generic,
		      "phi-2 scalars: GELU, LayerNorm, parallel, rotary, untied head with bias, resid_pdrop 0.1");
	}
	if (load("tests/accuracy/models/microsoft--phi-1_5.config.json", &a)) {
		/* H 2048, 24 layers, I 8192: per layer 4 x (2048^2 + 2048) +
		 * (2048 x 8192 + 8192) + (8192 x 2048 + 2048) + 4096 = 50,354,176;
		 * x 24 + 51200 x 2048 + (51200 x 2048 + 51200) + 4096 */
		CHECK_EQ_U64(a.params_total, 1418270720ull, "phi-1_5: total = the public count 1,418,270,720");
		CHECK(a.kv_heads == 32 && a.head_dim == 64 && a.dropout == 0,
		      "phi-1_5: num_key_value_heads null -> 32 heads of 64, no dropout");
	}
	if (load("tests/accuracy/models/EleutherAI--gpt-j-6B.config.json", &a)) {
		/* n_embd 4096, 28 layers, n_inner null -> 16384, vocab 50400: per
		 * layer q,k,v,out 4 x 4096^2 + fc_in (4096 x 16384 + 16384) +
		 * fc_out (16384 x 4096 + 4096) + ln_1 8192 = 201,355,264; x 28 +
		 * wte 50400 x 4096 + lm_head (50400 x 4096 + 50400) + ln_f 8192 */
		CHECK_EQ_U64(a.params_total, 6050882784ull, "gpt-j-6B: total = the public count 6,050,882,784");
		CHECK(mod_is(&a, 0, "q_proj", GS_ROLE_Q, 4096, 4096) && mod_is(&a, 0, "k_proj", GS_ROLE_K, 4096, 4096) &&
		              mod_is(&a, 0, "v_proj", GS_ROLE_V, 4096, 4096) &&
		              mod_is(&a, 0, "out_proj", GS_ROLE_O, 4096, 4096) &&
		              mod_is(&a, 0, "fc_in", GS_ROLE_UP, 4096, 16384) &&
		              mod_is(&a, 0, "fc_out", GS_ROLE_DOWN, 16384, 4096) && a.kind[0].n_lin == 6 &&
		              !find_mod(&a, 0, "q_proj")->bias && !find_mod(&a, 0, "out_proj")->bias &&
		              find_mod(&a, 0, "fc_in")->bias && find_mod(&a, 0, "fc_out")->bias,
		      "gptj modules: attention without bias, MLP with: %s", names(&a, 0));
		CHECK(a.act == GS_ACT_PLAIN && a.norm == GS_NORM_LAYER && a.parallel_attn && a.rotary && !a.tied &&
		              a.p_head == 50400ll * 4096 + 50400 && a.p_embed_other == 0 && a.max_pos == 2048 &&
		              a.kind[0].mlp_inner == 16384 && a.kv_cache_dim == 2 * 4096 && a.dropout == 0 &&
		              a.hidden == 4096 && a.layers == 28 && a.heads == 16,
		      "gpt-j scalars: n_embd/n_layer/n_head, parallel, rotary, no position table, head bias");
	}
}

/* Phi and GPT-J variants the real configs do not exercise (hand). */
static void test_phi_gptj_variants(void)
{
	const char *phi = "{\"model_type\":\"phi\",\"hidden_size\":256,\"num_hidden_layers\":2,"
	                  "\"num_attention_heads\":8,\"num_key_value_heads\":2,\"intermediate_size\":1024,"
	                  "\"vocab_size\":1000,\"qk_layernorm\":true,\"tie_word_embeddings\":true,"
	                  "\"partial_rotary_factor\":0.5}";
	const char *gj = "{\"model_type\":\"gptj\",\"n_embd\":256,\"n_layer\":2,\"n_head\":4,\"n_inner\":512,"
	                 "\"rotary_dim\":64,\"n_positions\":128,\"vocab_size\":1000}";
	gs_arch a;
	gs_error e = { 0 };

	CHECK(gs_config_parse(phi, strlen(phi), "phi.json", &a, &e) == GS_OK, "phi GQA + qk_layernorm parses (%s)",
	      e.msg);
	{
		/* head 32; q 256 wide, k/v 2 x 32 = 64 wide; all with bias */
		uint64_t attn = (256ull * 256 + 256) + 2 * (256ull * 64 + 64) + (256ull * 256 + 256);
		uint64_t mlp = (256ull * 1024 + 1024) + (1024ull * 256 + 256);
		uint64_t norms = 2 * 256 + 2 * 2 * 32; /* input_layernorm + q/k LayerNorm(32) */
		/* tied: lm_head weight is the embedding, its bias (1000) remains */
		CHECK_EQ_U64(a.params_total, 2 * (attn + mlp + norms) + 1000ull * 256 + 1000 + 2 * 256,
		             "phi tied, GQA, qk_layernorm: total (hand)");
		CHECK(a.tied && a.p_head == 1000 && a.kv_cache_dim == 2 * 2 * 32 &&
		              mod_is(&a, 0, "k_proj", GS_ROLE_K, 256, 64),
		      "phi tied: head bias kept, 2 kv heads");
	}
	memset(&e, 0, sizeof e);
	CHECK(gs_config_parse(gj, strlen(gj), "gptj.json", &a, &e) == GS_OK, "gptj small parses (%s)", e.msg);
	CHECK_EQ_U64(a.params_total,
	             2 * (4 * 256ull * 256 + (256ull * 512 + 512) + (512ull * 256 + 256) + 2 * 256) +
	                     1000ull * 256 + (1000ull * 256 + 1000) + 2 * 256,
	             "gptj n_inner 512: total (hand)");
	CHECK(a.kind[0].mlp_inner == 512 && a.max_pos == 128, "gptj: n_inner and n_positions read");
}

/* ---- the other new families: fixtures and inline configs (hand) ---- */

static void test_more_families(void)
{
	gs_arch a;
	gs_error e = { 0 };

	if (load("tests/fixtures/configs/starcoder-shaped.json", &a)) {
		/* n_embd 6144, 40 layers, 48 heads of 128, multi-query: c_attn
		 * 6144 + 2 x 128 = 6400 wide; n_inner 24576; wpe 8192; vocab
		 * 49152, tied; every linear with bias; ln_1, ln_2 per layer. */
		uint64_t lin = (6144ull * 6400 + 6400) + (6144ull * 6144 + 6144) + (6144ull * 24576 + 24576) +
		               (24576ull * 6144 + 6144);
		uint64_t norms = 2 * 2 * 6144;
		uint64_t emb = 49152ull * 6144 + 8192ull * 6144; /* wte + wpe */
		CHECK_EQ_U64(a.params_total, 40 * (lin + norms) + emb + 2 * 6144, "starcoder shape: total (hand)");
		CHECK(mod_is(&a, 0, "c_attn", GS_ROLE_QKV, 6144, 6400) &&
		              mod_is(&a, 0, "attn.c_proj", GS_ROLE_O, 6144, 6144) &&
		              mod_is(&a, 0, "c_fc", GS_ROLE_UP, 6144, 24576) &&
		              mod_is(&a, 0, "mlp.c_proj", GS_ROLE_DOWN, 24576, 6144) && a.kind[0].n_lin == 4,
		      "gpt_bigcode modules: %s", names(&a, 0));
		CHECK(a.kv_heads == 1 && a.kv_cache_dim == 2 * 128 && a.tied && a.p_head == 0 &&
		              a.act == GS_ACT_PLAIN && a.norm == GS_NORM_LAYER && !a.rotary && !a.parallel_attn &&
		              a.max_pos == 8192 && a.dropout == 0.1 && a.kind[0].mlp_inner == 24576,
		      "gpt_bigcode scalars: one kv head, tied, learned positions, dropout 0.1");
	}
	{
		const char *mha = "{\"model_type\":\"gpt_bigcode\",\"n_embd\":256,\"n_layer\":2,\"n_head\":4,"
		                  "\"n_positions\":64,\"vocab_size\":1000,\"multi_query\":false,\"n_inner\":null}";
		CHECK(gs_config_parse(mha, strlen(mha), "bc.json", &a, &e) == GS_OK, "gpt_bigcode MHA parses (%s)",
		      e.msg);
		/* c_attn 3 x 256, n_inner null -> 1024 */
		CHECK_EQ_U64(a.params_total,
		             2 * ((256ull * 768 + 768) + (256ull * 256 + 256) + (256ull * 1024 + 1024) +
		                  (1024ull * 256 + 256) + 4 * 256) +
		                     1000ull * 256 + 64ull * 256 + 2 * 256,
		             "gpt_bigcode multi_query false: total (hand)");
		CHECK(a.kv_heads == 4 && a.kv_cache_dim == 2 * 256, "gpt_bigcode MHA: kv cache 2 x n_embd");
	}
	if (load("tests/fixtures/configs/stablelm-2-1_6b-shaped.json", &a)) {
		/* H 2048, 24 layers, 32 heads of 64, I 5632, vocab 100352,
		 * q/k/v with bias, o_proj without; gated MLP without bias;
		 * input + post_attention LayerNorm (weight + bias); untied. */
		uint64_t attn = 3 * (2048ull * 2048 + 2048) + 2048ull * 2048;
		uint64_t mlp = 3 * 2048ull * 5632, norms = 2 * 2 * 2048;
		CHECK_EQ_U64(a.params_total, 24 * (attn + mlp + norms) + 2 * 100352ull * 2048 + 2 * 2048,
		             "stablelm-2-1_6b shape: total (hand)");
		CHECK(mod_is(&a, 0, "q_proj", GS_ROLE_Q, 2048, 2048) && mod_is(&a, 0, "o_proj", GS_ROLE_O, 2048, 2048) &&
		              mod_is(&a, 0, "gate_proj", GS_ROLE_GATE, 2048, 5632) &&
		              mod_is(&a, 0, "up_proj", GS_ROLE_UP, 2048, 5632) &&
		              mod_is(&a, 0, "down_proj", GS_ROLE_DOWN, 5632, 2048) && a.kind[0].n_lin == 7 &&
		              find_mod(&a, 0, "v_proj")->bias && !find_mod(&a, 0, "o_proj")->bias,
		      "stablelm modules: %s", names(&a, 0));
		CHECK(a.act == GS_ACT_GATED && a.norm == GS_NORM_LAYER && !a.parallel_attn && a.rotary && !a.tied &&
		              a.kv_cache_dim == 2 * 2048 && a.kind[0].mlp_inner == 5632,
		      "stablelm scalars: gated, LayerNorm, sequential, rotary, untied");
	}
	{
		/* stablelm-2-12b style: parallel residual, per-head q/k LayerNorm, GQA */
		const char *par = "{\"model_type\":\"stablelm\",\"hidden_size\":256,\"num_hidden_layers\":2,"
		                  "\"num_attention_heads\":8,\"num_key_value_heads\":2,\"intermediate_size\":512,"
		                  "\"vocab_size\":1000,\"use_parallel_residual\":true,\"qk_layernorm\":true,"
		                  "\"tie_word_embeddings\":true}";
		memset(&e, 0, sizeof e);
		CHECK(gs_config_parse(par, strlen(par), "slm.json", &a, &e) == GS_OK, "stablelm parallel parses (%s)",
		      e.msg);
		/* head 32: q, o 256 x 256; k, v 256 x 64; one LayerNorm (2 x 256);
		 * q_layernorm 8 heads x 32, k_layernorm 2 heads x 32 (weights only) */
		CHECK_EQ_U64(a.params_total,
		             2 * (2 * 256ull * 256 + 2 * 256ull * 64 + 3 * 256ull * 512 + 2 * 256 + (8 + 2) * 32) +
		                     1000ull * 256 + 2 * 256,
		             "stablelm parallel + qk_layernorm, tied: total (hand)");
		CHECK(a.parallel_attn && a.tied && a.p_head == 0, "stablelm: use_parallel_residual -> parallel");
	}
	if (load("tests/fixtures/configs/starcoder2-3b-shaped.json", &a)) {
		/* H 3072, 30 layers, 24 heads of 128, 2 kv heads; I 12288; vocab
		 * 49152, tied; every linear with bias; two LayerNorms per layer. */
		uint64_t attn = 2 * (3072ull * 3072 + 3072) + 2 * (3072ull * 256 + 256);
		uint64_t mlp = (3072ull * 12288 + 12288) + (12288ull * 3072 + 3072);
		uint64_t norms = 2 * 2 * 3072;
		CHECK_EQ_U64(a.params_total, 30 * (attn + mlp + norms) + 49152ull * 3072 + 2 * 3072,
		             "starcoder2-3b shape: total (hand)");
		CHECK(mod_is(&a, 0, "q_proj", GS_ROLE_Q, 3072, 3072) && mod_is(&a, 0, "k_proj", GS_ROLE_K, 3072, 256) &&
		              mod_is(&a, 0, "v_proj", GS_ROLE_V, 3072, 256) &&
		              mod_is(&a, 0, "o_proj", GS_ROLE_O, 3072, 3072) &&
		              mod_is(&a, 0, "c_fc", GS_ROLE_UP, 3072, 12288) &&
		              mod_is(&a, 0, "c_proj", GS_ROLE_DOWN, 12288, 3072) && a.kind[0].n_lin == 6 &&
		              find_mod(&a, 0, "o_proj")->bias && find_mod(&a, 0, "c_proj")->bias,
		      "starcoder2 modules: %s", names(&a, 0));
		CHECK(a.act == GS_ACT_PLAIN && a.norm == GS_NORM_LAYER && a.rotary && a.tied && !a.parallel_attn &&
		              a.kv_cache_dim == 2 * 2 * 128 && a.sliding_window == 4096 && a.dropout == 0.1,
		      "starcoder2 scalars: GELU MLP, LayerNorm, GQA cache, sliding window, residual_dropout");
	}
	if (load("tests/fixtures/configs/distilbert-base-uncased-shaped.json", &a)) {
		/* dim 768, 6 layers, hidden_dim 3072, vocab 30522, 512 positions;
		 * no token types, no pooler. */
		uint64_t lin = 4 * (768ull * 768 + 768) + (768ull * 3072 + 3072) + (3072ull * 768 + 768);
		uint64_t norms = 2 * 2 * 768; /* sa_layer_norm, output_layer_norm */
		uint64_t emb = 30522ull * 768 + 512ull * 768 + 2 * 768; /* word, position, LayerNorm */
		CHECK_EQ_U64(a.params_total, 6 * (lin + norms) + emb, "distilbert shape: total (hand)");
		CHECK(mod_is(&a, 0, "q_lin", GS_ROLE_Q, 768, 768) && mod_is(&a, 0, "k_lin", GS_ROLE_K, 768, 768) &&
		              mod_is(&a, 0, "v_lin", GS_ROLE_V, 768, 768) &&
		              mod_is(&a, 0, "out_lin", GS_ROLE_O, 768, 768) &&
		              mod_is(&a, 0, "lin1", GS_ROLE_UP, 768, 3072) &&
		              mod_is(&a, 0, "lin2", GS_ROLE_DOWN, 3072, 768) && a.kind[0].n_lin == 6,
		      "distilbert modules: %s", names(&a, 0));
		CHECK(a.encoder && a.p_head == 0 && a.p_final == 0 && a.dropout == 0.1 && a.max_pos == 512 &&
		              a.hidden == 768 && a.layers == 6 && a.heads == 12 && a.intermediate == 3072 &&
		              a.warning[0] == '\0',
		      "distilbert scalars: encoder, no head or pooler, dropout 0.1");
	}
	{
		const char *sin = "{\"model_type\":\"distilbert\",\"dim\":64,\"n_layers\":1,\"n_heads\":4,"
		                  "\"hidden_dim\":128,\"vocab_size\":100,\"max_position_embeddings\":32,"
		                  "\"sinusoidal_pos_embds\":true}";
		memset(&e, 0, sizeof e);
		CHECK(gs_config_parse(sin, strlen(sin), "db.json", &a, &e) == GS_OK && a.p_embed_other == 32 * 64 + 2 * 64 &&
		              strstr(a.warning, "sinusoidal"),
		      "distilbert sinusoidal: table still counted, warning says fixed (%s)", a.warning);
	}
	if (load("tests/fixtures/configs/roberta-base-shaped.json", &a)) {
		/* BertModel's modules: H 768, 12 layers, I 3072, vocab 50265,
		 * 514 positions, 1 token type, pooler. */
		uint64_t lin = 4 * (768ull * 768 + 768) + (768ull * 3072 + 3072) + (3072ull * 768 + 768);
		uint64_t emb = 50265ull * 768 + 514ull * 768 + 1ull * 768 + 2 * 768;
		uint64_t pooler = 768ull * 768 + 768;
		CHECK_EQ_U64(a.params_total, 12 * (lin + 2 * 2 * 768) + emb + pooler, "roberta shape: total (hand)");
		CHECK(a.encoder && mod_is(&a, 0, "query", GS_ROLE_Q, 768, 768) &&
		              mod_is(&a, 0, "output.dense", GS_ROLE_DOWN, 3072, 768) && a.max_pos == 514 && !a.generic,
		      "roberta: BERT modules, encoder, 514 positions: %s", names(&a, 0));
	}
	{
		/* Qwen v1 (model_type qwen, QWenLMHeadModel's remote code),
		 * Qwen-7B's fields: c_attn 4096 -> 3 x 4096 with a bias, c_proj
		 * 4096 -> 4096, w1 and w2 4096 -> 22016 / 2, c_proj back, two
		 * RMSNorms; untied 151936 x 4096 embedding and head; final norm:
		 * 7,721,324,544 (the published 7.72B; a generic decoder read it
		 * as 12.05B). */
		const char *q1 = "{\"model_type\":\"qwen\",\"hidden_size\":4096,\"num_hidden_layers\":32,"
		                 "\"num_attention_heads\":32,\"kv_channels\":128,\"intermediate_size\":22016,"
		                 "\"vocab_size\":151936,\"no_bias\":true,\"seq_length\":8192,"
		                 "\"tie_word_embeddings\":false}";
		uint64_t layer = 4096ull * 12288 + 12288 + 4096ull * 4096 + 3 * 4096ull * 11008 + 2 * 4096;
		memset(&e, 0, sizeof e);
		CHECK(gs_config_parse(q1, strlen(q1), "qwen1.json", &a, &e) == GS_OK, "qwen v1 parses (%s)", e.msg);
		CHECK_EQ_U64(a.params_total, 32 * layer + 2 * 151936ull * 4096 + 4096, "qwen v1 (Qwen-7B): total (hand)");
		CHECK_EQ_U64(a.params_total, 7721324544ull, "qwen v1 (Qwen-7B): 7,721,324,544");
		CHECK(mod_is(&a, 0, "c_attn", GS_ROLE_QKV, 4096, 12288) && mod_is(&a, 0, "w1", GS_ROLE_UP, 4096, 11008) &&
		              mod_is(&a, 0, "mlp.c_proj", GS_ROLE_DOWN, 11008, 4096) && a.kind[0].n_lin == 5 &&
		              !a.tied && a.max_pos == 8192 && !a.generic && a.kv_cache_dim == 2 * 4096,
		      "qwen v1: c_attn, attn.c_proj, w1, w2, mlp.c_proj; untied; seq_length as the context: %s",
		      names(&a, 0));
		const char *odd = "{\"model_type\":\"qwen\",\"hidden_size\":64,\"num_hidden_layers\":1,"
		                  "\"num_attention_heads\":2,\"intermediate_size\":127,\"vocab_size\":100}";
		memset(&e, 0, sizeof e);
		CHECK(gs_config_parse(odd, strlen(odd), "qwen1-odd.json", &a, &e) == GS_ECONFIG &&
		              strstr(e.msg, "intermediate_size") != NULL,
		      "qwen v1: an odd intermediate_size is a config error naming the field (%s)", e.msg);
	}
	{
		/* ChatGLM3-6B's fields (model_type chatglm): query_key_value
		 * 4096 -> 32 x 128 + 2 x 2 x 128 with its bias, dense 4096 ->
		 * 4096, dense_h_to_4h 4096 -> 2 x 13696, dense_4h_to_h back, two
		 * RMSNorms; untied 65024 x 4096 embedding and output_layer; final
		 * RMSNorm: 6,243,584,000 (the record's 6.24B). */
		const char *glm = "{\"model_type\":\"chatglm\",\"add_bias_linear\":false,\"add_qkv_bias\":true,"
		                  "\"ffn_hidden_size\":13696,\"hidden_size\":4096,\"kv_channels\":128,"
		                  "\"multi_query_attention\":true,\"multi_query_group_num\":2,"
		                  "\"num_attention_heads\":32,\"num_layers\":28,\"padded_vocab_size\":65024,"
		                  "\"post_layer_norm\":true,\"rmsnorm\":true,\"seq_length\":8192,"
		                  "\"tie_word_embeddings\":false}";
		uint64_t layer = 4096ull * 4608 + 4608 + 4096ull * 4096 + 4096ull * 27392 + 13696ull * 4096 + 2 * 4096;
		memset(&e, 0, sizeof e);
		CHECK(gs_config_parse(glm, strlen(glm), "chatglm.json", &a, &e) == GS_OK, "chatglm parses (%s)", e.msg);
		CHECK_EQ_U64(a.params_total, 28 * layer + 2 * 65024ull * 4096 + 4096, "chatglm (ChatGLM3-6B): total (hand)");
		CHECK_EQ_U64(a.params_total, 6243584000ull, "chatglm (ChatGLM3-6B): 6,243,584,000");
		CHECK(mod_is(&a, 0, "query_key_value", GS_ROLE_QKV, 4096, 4608) &&
		              mod_is(&a, 0, "dense_h_to_4h", GS_ROLE_GATE_UP, 4096, 27392) && a.kind[0].n_lin == 4 &&
		              a.max_pos == 8192 && a.kv_cache_dim == 2 * 2 * 128 && a.norm == GS_NORM_RMS && !a.generic,
		      "chatglm: fused qkv of 2 key/value groups, fused gate/up, RMSNorm, seq_length: %s", names(&a, 0));
		const char *bad = "{\"model_type\":\"chatglm\",\"ffn_hidden_size\":64,\"hidden_size\":64,"
		                  "\"multi_query_attention\":true,\"multi_query_group_num\":3,\"num_attention_heads\":4,"
		                  "\"num_layers\":1,\"padded_vocab_size\":100}";
		memset(&e, 0, sizeof e);
		CHECK(gs_config_parse(bad, strlen(bad), "chatglm-bad.json", &a, &e) == GS_ECONFIG &&
		              strstr(e.msg, "multi_query_group_num") != NULL,
		      "chatglm: groups that do not divide the heads are a config error naming the field (%s)", e.msg);
	}
	if (load("tests/fixtures/configs/olmo-1b-shaped.json", &a)) {
		/* H 2048, 16 layers, 16 heads of 128, I 8192, vocab 50304, tied;
		 * no biases; LayerNorms without parameters (none in the tally). */
		uint64_t layer = 4 * 2048ull * 2048 + 3 * 2048ull * 8192;
		CHECK_EQ_U64(a.params_total, 16 * layer + 50304ull * 2048, "olmo-1b shape: total (hand, norms have no parameters)");
		CHECK(mod_is(&a, 0, "q_proj", GS_ROLE_Q, 2048, 2048) && mod_is(&a, 0, "gate_proj", GS_ROLE_GATE, 2048, 8192) &&
		              mod_is(&a, 0, "down_proj", GS_ROLE_DOWN, 8192, 2048) && a.kind[0].n_lin == 7 &&
		              a.norm == GS_NORM_LAYER && a.act == GS_ACT_GATED && a.tied && a.p_final == 0 &&
		              a.kind[0].other_params == 0 && !a.generic,
		      "olmo: LLaMA modules, parameter-free LayerNorm, tied: %s", names(&a, 0));
	}
	if (load("tests/fixtures/configs/olmo2-7b-shaped.json", &a)) {
		/* H 4096, 32 layers, 32 heads of 128, I 11008, vocab 100352,
		 * untied; post_attention + post_feedforward RMSNorm, q_norm and
		 * k_norm over 32 x 128 each. */
		uint64_t layer = 4 * 4096ull * 4096 + 3 * 4096ull * 11008 + 2 * 4096 + 4096 + 4096;
		CHECK_EQ_U64(a.params_total, 32 * layer + 2 * 100352ull * 4096 + 4096, "olmo2-7b shape: total (hand)");
		CHECK(a.norm == GS_NORM_RMS && !a.tied && a.kind[0].n_lin == 7 && !a.generic,
		      "olmo2: RMSNorm, untied, LLaMA modules: %s", names(&a, 0));
	}
}

/* Which layers are MoE: DeepSeek first_k_dense_replace + moe_layer_freq,
 * Qwen decoder_sparse_step + mlp_only_layers. Inline configs. */
static void test_moe_layer_rules(void)
{
	const char *ds = "{\"model_type\":\"deepseek_v2\",\"hidden_size\":64,\"num_hidden_layers\":5,"
	                 "\"num_attention_heads\":2,\"q_lora_rank\":null,\"kv_lora_rank\":16,"
	                 "\"qk_nope_head_dim\":8,\"qk_rope_head_dim\":4,\"v_head_dim\":8,"
	                 "\"n_routed_experts\":4,\"num_experts_per_tok\":2,\"moe_intermediate_size\":16,"
	                 "\"n_shared_experts\":1,\"intermediate_size\":128,\"first_k_dense_replace\":1,"
	                 "\"moe_layer_freq\":2,\"vocab_size\":100}";
	const char *qw = "{\"model_type\":\"qwen2_moe\",\"hidden_size\":64,\"num_hidden_layers\":4,"
	                 "\"num_attention_heads\":2,\"intermediate_size\":128,\"moe_intermediate_size\":16,"
	                 "\"shared_expert_intermediate_size\":32,\"num_experts\":4,\"num_experts_per_tok\":1,"
	                 "\"decoder_sparse_step\":2,\"mlp_only_layers\":[1],\"vocab_size\":100}";
	gs_arch a;
	gs_error e = { 0 };

	CHECK(gs_config_parse(ds, strlen(ds), "ds.json", &a, &e) == GS_OK, "deepseek small parses (%s)", e.msg);
	/* MoE layers: i >= 1 and i % 2 == 0 -> {2, 4}; dense {0, 1, 3} */
	CHECK(a.n_kinds == 2 && a.kind[0].n_layers == 3 && a.kind[1].n_layers == 2,
	      "deepseek: first_k_dense_replace 1, moe_layer_freq 2 -> 3 dense + 2 MoE");
	{
		uint64_t attn = 64ull * 2 * 12 /* q_proj */ + 64ull * 20 /* kv_a */ + 16ull * 2 * 16 /* kv_b */ +
		                2ull * 8 * 64 /* o_proj */;
		uint64_t norms = 2 * 64 + 16; /* layer norms + kv_a_layernorm */
		uint64_t expert = 3 * 64ull * 16;
		CHECK_EQ_U64(a.params_total,
		             3 * (attn + norms + 3 * 64ull * 128) +
		                     2 * (attn + norms + 4 * 64 /* router */ + 4 * expert + expert /* shared */) +
		                     2 * 100ull * 64 + 64,
		             "deepseek small: total (hand)");
	}
	memset(&e, 0, sizeof e);
	CHECK(gs_config_parse(qw, strlen(qw), "qw.json", &a, &e) == GS_OK, "qwen2_moe small parses (%s)", e.msg);
	/* (i+1) % 2 == 0 -> {1, 3}; mlp_only_layers removes 1 -> MoE {3} */
	CHECK(a.n_kinds == 2 && a.kind[0].n_layers == 3 && a.kind[1].n_layers == 1,
	      "qwen2_moe: decoder_sparse_step 2 and mlp_only_layers [1] -> 3 dense + 1 MoE");
}

/* ---- quantization_config ---- */

static void test_quant(void)
{
	gs_arch a;
	/* tiny llama: H 256, 2 layers, 4 heads of 64, I 512, vocab 1000 */
	uint64_t attn_gqa = 2 * 256ull * 256 + 2 * 256ull * 128; /* 2 kv heads */
	uint64_t mlp = 3 * 256ull * 512, norms = 2 * 256, emb = 1000ull * 256;

	if (load("tests/fixtures/configs/tiny-llama-gptq.json", &a)) {
		CHECK(a.quant == GS_QUANT_GPTQ && a.quant_bits == 4 && a.quant_group == 128, "gptq: 4-bit, group 128");
		CHECK_EQ_U64(a.params_total, 2 * (attn_gqa + mlp + norms) + 2 * emb + 256,
		             "gptq tiny llama: total (hand, untied)");
	}
	if (load("tests/fixtures/configs/tiny-llama-awq.json", &a)) {
		CHECK(a.quant == GS_QUANT_AWQ && a.quant_bits == 4 && a.quant_group == 64, "awq: 4-bit, group 64");
		CHECK_EQ_U64(a.params_total, 2 * (attn_gqa + mlp + norms) + emb + 256,
		             "awq tiny llama: total (hand, tied)");
	}
	if (load("tests/fixtures/configs/tiny-llama-bnb4.json", &a)) {
		uint64_t bias = (256 + 128 + 128 + 256) /* q,k,v,o */ + (512 + 512 + 256) /* gate,up,down */;
		CHECK(a.quant == GS_QUANT_BNB4 && a.quant_bits == 4, "bnb: load_in_4bit -> BNB4");
		CHECK_EQ_U64(a.params_total, 2 * (attn_gqa + mlp + norms + bias) + 2 * emb + 256,
		             "bnb4 tiny llama with attention_bias and mlp_bias: total (hand)");
	}
	if (load("tests/fixtures/configs/tiny-llama-bnb8.json", &a)) {
		CHECK(a.quant == GS_QUANT_BNB8 && a.quant_bits == 8, "bnb: load_in_8bit -> BNB8");
		CHECK_EQ_U64(a.params_total, 2 * (4 * 256ull * 256 + mlp + norms) + 2 * emb + 256,
		             "bnb8 tiny llama (kv heads default to heads): total (hand)");
	}
	if (load("tests/fixtures/configs/tiny-llama-ct-fp8.json", &a))
		CHECK(a.quant == GS_QUANT_FP8 && a.quant_bits == 8, "compressed-tensors fp8 weights -> FP8");
}

/* ---- errors ---- */

#define LLAMA_OK                                                                                 \
	"\"model_type\":\"llama\",\"num_hidden_layers\":2,\"num_attention_heads\":4,"            \
	"\"intermediate_size\":512,\"vocab_size\":1000"

/* Parse json; expect code and a message containing the file name and each
 * of the (up to two) substrings. */
static void expect_err(const char *label, const char *json, gs_err code, const char *s1, const char *s2)
{
	gs_arch a;
	gs_error e = { 0 };
	gs_err rc = gs_config_parse(json, strlen(json), "models/x/config.json", &a, &e);

	CHECK(rc == code && strstr(e.msg, "models/x/config.json") && (!s1 || strstr(e.msg, s1)) &&
	              (!s2 || strstr(e.msg, s2)) && a.params_total == 0,
	      "error %s: code %d, message \"%s\"", label, (int)rc, e.msg);
}

static void test_errors(void)
{
	expect_err("negative hidden_size", "{" LLAMA_OK ",\"hidden_size\":-4}", GS_ECONFIG,
	           "field \"hidden_size\": must be a positive integer (got -4)", NULL);
	expect_err("zero hidden_size", "{" LLAMA_OK ",\"hidden_size\":0}", GS_ECONFIG, "\"hidden_size\"", "got 0");
	expect_err("fractional hidden_size", "{" LLAMA_OK ",\"hidden_size\":256.5}", GS_ECONFIG,
	           "\"hidden_size\"", "got 256.5");
	expect_err("string hidden_size", "{" LLAMA_OK ",\"hidden_size\":\"256\"}", GS_ECONFIG,
	           "\"hidden_size\"", "got \"256\"");
	expect_err("null hidden_size", "{" LLAMA_OK ",\"hidden_size\":null}", GS_ECONFIG, "\"hidden_size\"",
	           "null");
	expect_err("infinite hidden_size", "{" LLAMA_OK ",\"hidden_size\":1e999}", GS_ECONFIG,
	           "\"hidden_size\"", "inf");
	expect_err("missing hidden_size", "{" LLAMA_OK "}", GS_ECONFIG, "\"hidden_size\"", "missing");
	expect_err("hidden_size above 2^53", "{" LLAMA_OK ",\"hidden_size\":1e20}", GS_ECONFIG,
	           "\"hidden_size\"", "too large");
	expect_err("vocab x hidden overflows",
	           "{\"model_type\":\"llama\",\"num_hidden_layers\":2,\"num_attention_heads\":4,"
	           "\"intermediate_size\":512,\"vocab_size\":1048576,\"hidden_size\":4503599627370496}",
	           GS_EOVERFLOW, "\"vocab_size\"", "overflow");
	expect_err("layers x layer size overflows",
	           "{\"model_type\":\"llama\",\"num_hidden_layers\":9007199254740992,\"num_attention_heads\":32,"
	           "\"intermediate_size\":14336,\"vocab_size\":32000,\"hidden_size\":4096}",
	           GS_EOVERFLOW, "\"num_hidden_layers\"", "overflows");
	expect_err("heads do not divide hidden",
	           "{" LLAMA_OK ",\"hidden_size\":258}", GS_ECONFIG, "\"num_attention_heads\"", "258");
	expect_err("kv heads do not divide heads",
	           "{" LLAMA_OK ",\"hidden_size\":256,\"num_key_value_heads\":3}", GS_ECONFIG,
	           "\"num_key_value_heads\"", NULL);
	expect_err("tie_word_embeddings not bool",
	           "{" LLAMA_OK ",\"hidden_size\":256,\"tie_word_embeddings\":\"yes\"}", GS_ECONFIG,
	           "\"tie_word_embeddings\"", "true or false");
	expect_err("dtype not a string", "{" LLAMA_OK ",\"hidden_size\":256,\"dtype\":16}", GS_ECONFIG,
	           "\"dtype\"", NULL);
	expect_err("dropout above 1", "{" LLAMA_OK ",\"hidden_size\":256,\"attention_dropout\":1.5}",
	           GS_ECONFIG, "\"attention_dropout\"", NULL);
	expect_err("experts_per_tok > experts",
	           "{\"model_type\":\"mixtral\",\"hidden_size\":256,\"num_hidden_layers\":2,"
	           "\"num_attention_heads\":4,\"intermediate_size\":512,\"vocab_size\":1000,"
	           "\"num_local_experts\":8,\"num_experts_per_tok\":9}",
	           GS_ECONFIG, "\"num_experts_per_tok\"", "8");
	expect_err("deepseek experts_per_tok > routed",
	           "{\"model_type\":\"deepseek_v2\",\"hidden_size\":256,\"num_hidden_layers\":2,"
	           "\"num_attention_heads\":4,\"intermediate_size\":512,\"vocab_size\":1000,"
	           "\"q_lora_rank\":null,\"kv_lora_rank\":64,\"qk_nope_head_dim\":32,\"qk_rope_head_dim\":16,"
	           "\"v_head_dim\":32,\"n_routed_experts\":4,\"num_experts_per_tok\":6,"
	           "\"moe_intermediate_size\":64}",
	           GS_ECONFIG, "\"num_experts_per_tok\"", NULL);
	expect_err("deepseek missing kv_lora_rank",
	           "{\"model_type\":\"deepseek_v3\",\"hidden_size\":256,\"num_hidden_layers\":2,"
	           "\"num_attention_heads\":4,\"intermediate_size\":512,\"vocab_size\":1000,"
	           "\"q_lora_rank\":null,\"qk_nope_head_dim\":32,\"qk_rope_head_dim\":16,\"v_head_dim\":32}",
	           GS_ECONFIG, "\"kv_lora_rank\"", "missing");
	expect_err("mlp_only_layers out of range",
	           "{\"model_type\":\"qwen3_moe\",\"hidden_size\":64,\"num_hidden_layers\":2,"
	           "\"num_attention_heads\":4,\"intermediate_size\":128,\"vocab_size\":100,"
	           "\"num_experts\":4,\"num_experts_per_tok\":2,\"moe_intermediate_size\":32,"
	           "\"mlp_only_layers\":[7]}",
	           GS_ECONFIG, "\"mlp_only_layers[0]\"", "got 7");
	expect_err("gemma3 without text_config", "{\"model_type\":\"gemma3\"}", GS_ECONFIG, "\"text_config\"",
	           NULL);
	expect_err("gemma3 bad text field",
	           "{\"model_type\":\"gemma3\",\"text_config\":{\"hidden_size\":-1,\"num_hidden_layers\":2,"
	           "\"intermediate_size\":8}}",
	           GS_ECONFIG, "\"text_config.hidden_size\"", "got -1");
	expect_err("gptq bits 16",
	           "{" LLAMA_OK ",\"hidden_size\":256,\"quantization_config\":{\"quant_method\":\"gptq\","
	           "\"bits\":16}}",
	           GS_ECONFIG, "\"quantization_config.bits\"", NULL);
	expect_err("phi partial_rotary_factor above 1",
	           "{\"model_type\":\"phi\",\"hidden_size\":256,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
	           "\"intermediate_size\":512,\"vocab_size\":1000,\"partial_rotary_factor\":1.5}",
	           GS_ECONFIG, "\"partial_rotary_factor\"", "got 1.5");
	expect_err("gptj rotary_dim above the head size",
	           "{\"model_type\":\"gptj\",\"n_embd\":256,\"n_layer\":2,\"n_head\":4,\"vocab_size\":1000,"
	           "\"rotary_dim\":128}",
	           GS_ECONFIG, "\"rotary_dim\"", "64");
	expect_err("gpt_bigcode n_head does not divide n_embd",
	           "{\"model_type\":\"gpt_bigcode\",\"n_embd\":250,\"n_layer\":2,\"n_head\":4,\"n_positions\":64,"
	           "\"vocab_size\":1000}",
	           GS_ECONFIG, "\"n_head\"", "250");
	expect_err("stablelm use_qkv_bias not bool",
	           "{\"model_type\":\"stablelm\",\"hidden_size\":256,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
	           "\"intermediate_size\":512,\"vocab_size\":1000,\"use_qkv_bias\":1}",
	           GS_ECONFIG, "\"use_qkv_bias\"", "true or false");
	expect_err("distilbert missing dim",
	           "{\"model_type\":\"distilbert\",\"n_layers\":6,\"n_heads\":12,\"hidden_dim\":3072,"
	           "\"vocab_size\":30522}",
	           GS_ECONFIG, "\"dim\"", "missing");
	expect_err("starcoder2 residual_dropout above 1",
	           "{\"model_type\":\"starcoder2\",\"hidden_size\":256,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
	           "\"intermediate_size\":512,\"vocab_size\":1000,\"residual_dropout\":2}",
	           GS_ECONFIG, "\"residual_dropout\"", "got 2");
	expect_err("missing model_type", "{\"hidden_size\":256}", GS_ECONFIG, "\"model_type\"", "missing");
	expect_err("unknown family without usual fields", "{\"model_type\":\"mamba\",\"hidden_size\":256}",
	           GS_ECONFIG, "\"num_hidden_layers\"", "mamba");
	expect_err("invalid JSON", "{\n  \"model_type\": \"llama\",\n  \"hidden_size\": ,\n}", GS_ECONFIG,
	           "invalid JSON", "line 3");
	expect_err("trailing text", "{\"model_type\":\"llama\"}\n}", GS_ECONFIG, "invalid JSON", "line 2");
	expect_err("NaN literal", "{" LLAMA_OK ",\"hidden_size\":NaN}", GS_ECONFIG, "invalid JSON", "line 1");
	expect_err("top level array", "[1,2]", GS_ECONFIG, "JSON object", NULL);
	expect_err("empty", "", GS_ECONFIG, "invalid JSON", NULL);
}

static void test_generic_and_files(void)
{
	const char *js = "{\"model_type\":\"frobnicator\",\"hidden_size\":256,\"num_hidden_layers\":2,"
	                 "\"num_attention_heads\":4,\"intermediate_size\":512,\"vocab_size\":1000}";
	gs_arch a;
	gs_error e = { 0 };
	char tmp[] = "/tmp/gs_test_config_XXXXXX";
	int fd;

	CHECK(gs_config_parse(js, strlen(js), "models/f/config.json", &a, &e) == GS_OK,
	      "generic: unknown model_type with the usual fields parses (%s)", e.msg);
	CHECK(a.generic && strstr(a.warning, "frobnicator") && strstr(a.warning, "generic"),
	      "generic: flagged, warning names the model_type (%s)", a.warning);
	/* H 256, 2 layers, 4 heads of 64, I 512, vocab 1000, untied */
	CHECK_EQ_U64(a.params_total, 2 * (4 * 256ull * 256 + 3 * 256ull * 512 + 2 * 256) + 2 * 256000ull + 256,
	             "generic: LLaMA-style total (hand)");
	CHECK(strcmp(a.source, "models/f/config.json") == 0, "generic: source recorded");
	js = "{\"model_type\":\"frob_moe\",\"hidden_size\":256,\"num_hidden_layers\":2,"
	     "\"num_attention_heads\":4,\"intermediate_size\":512,\"vocab_size\":1000,"
	     "\"tie_word_embeddings\":true,\"num_experts\":8}";
	memset(&e, 0, sizeof e);
	CHECK(gs_config_parse(js, strlen(js), "f.json", &a, &e) == GS_ECONFIG && strstr(e.msg, "f.json") &&
	              strstr(e.msg, "num_experts") && strstr(e.msg, "frob_moe") && strstr(e.msg, "not sized"),
	      "generic: an unknown family with experts is refused, naming the file and field, not sized "
	      "as dense (%s)", e.msg);
	js = "{\"model_type\":\"frobnicator\",\"hidden_size\":256,\"num_hidden_layers\":2,"
	     "\"num_attention_heads\":4,\"intermediate_size\":512,\"vocab_size\":1000,"
	     "\"tie_word_embeddings\":true,\"num_experts\":1}";
	memset(&e, 0, sizeof e);
	CHECK(gs_config_parse(js, strlen(js), "f.json", &a, &e) == GS_OK && a.tied && a.p_head == 0 &&
	              strstr(a.warning, "tied head"),
	      "generic: honours tie_word_embeddings; one expert is dense (%s)", a.warning);
	js = "{\"model_type\":\"LLaMA\",\"hidden_size\":256,\"num_hidden_layers\":2,"
	     "\"num_attention_heads\":4,\"intermediate_size\":512,\"vocab_size\":1000}";
	memset(&e, 0, sizeof e);
	CHECK(gs_config_parse(js, strlen(js), "f.json", &a, &e) == GS_OK && !a.generic &&
	              strcmp(a.model_type, "LLaMA") == 0,
	      "model_type matched case-insensitively: \"LLaMA\" is llama, not generic (%s)", e.msg);

	memset(&e, 0, sizeof e);
	CHECK(gs_config_load("/nonexistent/gpusizer/config.json", &a, &e) == GS_ENOFILE &&
	              strstr(e.msg, "/nonexistent/gpusizer/config.json"),
	      "load: missing file -> GS_ENOFILE (exit 16) naming it (%s)", e.msg);

	/* A config over the 16 MiB limit: GS_ECONFIG "file too large". */
	fd = mkstemp(tmp);
	if (fd >= 0) {
		static char blk[65536];
		FILE *fp = fdopen(fd, "w");
		memset(blk, ' ', sizeof blk);
		for (unsigned i = 0; fp && i <= GS_CONFIG_MAX_BYTES / sizeof blk; i++)
			fwrite(blk, 1, sizeof blk, fp);
		if (fp)
			fclose(fp);
		memset(&e, 0, sizeof e);
		CHECK(gs_config_load(tmp, &a, &e) == GS_ECONFIG && strstr(e.msg, "too large") && strstr(e.msg, tmp),
		      "load: over 16 MiB -> GS_ECONFIG file too large (%s)", e.msg);
		unlink(tmp);
	} else {
		CHECK(0, "load: could not create a temporary file");
	}
}

/* Issue 16: plausibility bounds on shape fields, the context check, the
 * nesting message. */
#define QWEN3_MOE                                                                                \
	"\"model_type\":\"qwen3_moe\",\"hidden_size\":2048,\"num_hidden_layers\":48,"           \
	"\"num_attention_heads\":32,\"num_key_value_heads\":4,\"head_dim\":128,"                   \
	"\"intermediate_size\":6144,\"moe_intermediate_size\":768,\"num_experts_per_tok\":8,"     \
	"\"vocab_size\":151936,\"max_position_embeddings\":40960"
static void test_limits(void)
{
	gs_arch a;
	gs_error e = { 0 };
	char warn[512];
	const char *ok = "{" QWEN3_MOE ",\"num_experts\":128}";

	expect_err("limits.config_experts_1e9", "{" QWEN3_MOE ",\"num_experts\":1000000000}", GS_ECONFIG,
	           "field \"num_experts\": too large: 1000000000 is implausible", "at most 65536");
	expect_err("limits.config_hidden_bound", "{" LLAMA_OK ",\"hidden_size\":2097152}", GS_ECONFIG,
	           "field \"hidden_size\": too large: 2097152 is implausible", "at most 1048576");
	expect_err("limits.config_vocab_bound", "{\"model_type\":\"llama\",\"num_hidden_layers\":2,\"num_attention_heads\":4,"
	           "\"intermediate_size\":512,\"hidden_size\":256,\"vocab_size\":33554432}", GS_ECONFIG,
	           "field \"vocab_size\"", "implausible");
	CHECK(gs_config_parse(ok, strlen(ok), "q.json", &a, &e) == GS_OK && a.params_total > 0,
	      "limits.config_bound_real_moe_ok: 128 experts size (%s)", e.msg);
	{
		char *deep = malloc(4096);
		size_t n = 0;
		n += (size_t)snprintf(deep, 64, "{\"model_type\":\"llama\",\n\"x\":");
		for (int i = 0; i < 1200; i++)
			deep[n++] = '[';
		deep[n] = '\0';
		memset(&e, 0, sizeof e);
		CHECK(gs_config_parse(deep, n, "models/x/config.json", &a, &e) == GS_ECONFIG &&
		              strstr(e.msg, "models/x/config.json: invalid JSON: nesting deeper than 1000 levels "
		                            "at line 2, column 1004"),
		      "limits.json_nesting_named: %s", e.msg);
		free(deep);
	}
	memset(&e, 0, sizeof e);
	CHECK(gs_config_parse(ok, strlen(ok), "q.json", &a, &e) == GS_OK, "parse for the context checks");
	int64_t q = 40960;
	CHECK(gs_config_check_seq(&a, &q, false, false, warn, sizeof warn, &e) == GS_OK && warn[0] == '\0' &&
	              q == 40960,
	      "limits.seq_at_max_pos_ok");
	q = 40961;
	CHECK(gs_config_check_seq(&a, &q, false, false, warn, sizeof warn, &e) == GS_EUSAGE &&
	              strstr(e.msg, "--seq 40961 is past the model's max_position_embeddings (40960, q.json)") &&
	              strstr(e.msg, "--allow-long-context") && strstr(e.msg, "RoPE"),
	      "limits.seq_past_max_pos_refused: %s", e.msg);
	memset(&e, 0, sizeof e);
	q = 2048 * 64;
	CHECK(gs_config_check_seq(&a, &q, true, true, warn, sizeof warn, &e) == GS_OK &&
	              strstr(warn, "(the default) is past") && strstr(warn, "RoPE scaling") && e.msg[0] == '\0' &&
	              q == 2048 * 64,
	      "limits.seq_past_max_pos_allowed_warns: %s", warn);
	q = 2048 * 64;
	CHECK(gs_config_check_seq(&a, &q, true, false, warn, sizeof warn, &e) == GS_OK && q == 40960 &&
	              strstr(warn, "no --seq given") && e.msg[0] == '\0',
	      "limits.seq_default_lowered_to_max_pos: %s", warn);
	a.max_pos = 0;
	q = 1 << 24;
	CHECK(gs_config_check_seq(&a, &q, false, false, warn, sizeof warn, &e) == GS_OK,
	      "limits.seq_unknown_max_pos_ok");
}


/* ---- models-reference2: the 2025-26 families (issue 30), vendored in
 * tests/fixtures/models-reference2 (README there): every file tallied to
 * the parameter against index.json, the active count where it gives one,
 * the vision tower (and projector) counted and reported apart ---- */

#define REF2 "tests/fixtures/models-reference2/"

/* index.json's integer field `key` of model m, or -1. */
static int64_t jnum(const cJSON *m, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, key);
	return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : -1;
}

static void test_reference2(void)
{
	char p[4200], *buf = NULL;
	size_t len = 0;
	gs_error e = { 0 };
	cJSON *idx, *models;
	int n = 0;

	path_of(p, sizeof p, REF2 "index.json");
	if (gs_read_file(p, 1 << 20, &buf, &len, &e) != GS_OK) {
		CHECK(0, "reference2: read %s (%s)", p, e.msg);
		return;
	}
	idx = cJSON_ParseWithLength(buf, len);
	free(buf);
	models = cJSON_GetObjectItemCaseSensitive(idx, "models");
	for (const cJSON *m = models ? models->child : NULL; m != NULL; m = m->next) {
		const char *file = cJSON_GetObjectItemCaseSensitive(m, "file")->valuestring;
		int64_t tot = jnum(m, "params_total"), act = jnum(m, "params_active");
		int64_t act_text = jnum(m, "params_active_text"), vis = jnum(m, "params_vision_tower");
		int64_t proj = jnum(m, "params_projector"), vis_all = jnum(m, "params_vision_tower_incl_merger");
		char rel[512];
		gs_arch a;

		if (vis_all < 0)
			vis_all = jnum(m, "params_vision_tower_incl_mergers");
		if (vis >= 0)
			vis_all = vis + (proj > 0 ? proj : 0);
		n++;
		snprintf(rel, sizeof rel, REF2 "%s", file);
		if (!load(rel, &a)) {
			CHECK(0, "reference2 %s: parses", file);
			continue;
		}
		CHECK_EQ_U64(a.params_total, (uint64_t)tot, "reference2 %s: params_total exact", file);
		if (act >= 0)
			CHECK_EQ_U64(a.params_active, (uint64_t)act, "reference2 %s: params_active exact", file);
		if (act_text >= 0)
			CHECK_EQ_U64(a.params_active, (uint64_t)act_text,
			             "reference2 %s: params_active (the text model's) exact", file);
		CHECK_EQ_U64(a.params_vision, (uint64_t)(vis_all > 0 ? vis_all : 0),
		             "reference2 %s: the vision tower and projector, reported apart", file);
		CHECK(!a.generic, "reference2 %s: known family (%s)", file, a.model_type);
	}
	CHECK(n == 24, "reference2: all 24 files checked (got %d)", n);
	cJSON_Delete(idx);
}

/* The kind of a's layers with this mixer (and MoE-ness: -1 either), or NULL. */
static const gs_layer_kind *kind_of(const gs_arch *a, gs_mixer mx, int moe)
{
	for (int i = 0; i < a->n_kinds; i++)
		if (a->kind[i].mixer == mx && (moe < 0 || (a->kind[i].n_experts > 0) == moe))
			return &a->kind[i];
	return NULL;
}

/* Layers of a with this mixer, over every kind. */
static int64_t layers_of(const gs_arch *a, gs_mixer mx)
{
	int64_t n = 0;

	for (int i = 0; i < a->n_kinds; i++)
		if (a->kind[i].mixer == mx)
			n += a->kind[i].n_layers;
	return n;
}

/* Each family's layer list, as its config and transformers' config class
 * lay it out (docs/engine.md, "Layer kinds"). */
static void test_layer_kinds(void)
{
	gs_arch a;
	const gs_layer_kind *k;

	/* gpt-oss-20b: layer_types alternate sliding (window 128) and full,
	 * 12 each; sinks (64 per layer) in every layer; MoE everywhere */
	if (load(REF2 "openai--gpt-oss-20b.config.json", &a)) {
		k = kind_of(&a, GS_MIX_SLIDING, 1);
		CHECK(a.n_kinds == 2 && k && k->n_layers == 12 && k->window == 128 && k->sinks &&
		              layers_of(&a, GS_MIX_FULL) == 12 && k->kv_dim == 2 * 8 * 64 && a.interleaved &&
		              a.quant == GS_QUANT_MXFP4 && k->n_experts == 32 && k->experts_per_tok == 4,
		      "gpt-oss-20b: 12 sliding (128) + 12 full layers, sinks, 32 experts top-4, MXFP4");
		CHECK(mod_is(&a, 0, "experts.gate_up_proj", GS_ROLE_GATE_UP, 2880, 5760) &&
		              mod_is(&a, 0, "router", GS_ROLE_ROUTER, 2880, 32) &&
		              find_mod(&a, 0, "router")->bias && find_mod(&a, 0, "experts.down_proj")->expert,
		      "gpt-oss: router with bias, fused expert gate_up and down: %s", names(&a, 0));
	}
	/* Llama-4-Scout: no_rope_layers: every 4th layer NoPE full
	 * attention, the rest chunked (8192); MoE in every layer (moe_layers) */
	if (load(REF2 "unsloth--Llama-4-Scout-17B-16E-Instruct.config.json", &a)) {
		k = kind_of(&a, GS_MIX_CHUNKED, 1);
		CHECK(k && k->n_layers == 36 && k->window == 8192 && !k->nope && layers_of(&a, GS_MIX_FULL) == 12 &&
		              kind_of(&a, GS_MIX_FULL, 1)->nope && a.hidden == 5120 &&
		              strcmp(a.vision, "llama4") == 0 && a.params_vision == 850960896ull + 20971520ull,
		      "llama4 scout: read through text_config; 36 chunked (8192) + 12 NoPE full; the vision "
		      "tower apart");
		CHECK(find_mod(&a, 0, "shared_expert.gate_proj") && find_mod(&a, 0, "experts.gate_up_proj"),
		      "llama4: shared expert beside the fused experts: %s", names(&a, 0));
	}
	/* Maverick: interleave_moe_layer_step 2 (moe_layers odd) */
	if (load(REF2 "unsloth--Llama-4-Maverick-17B-128E-Instruct.config.json", &a)) {
		int64_t moe = 0;
		for (int i = 0; i < a.n_kinds; i++)
			moe += a.kind[i].n_experts > 0 ? a.kind[i].n_layers : 0;
		/* the NoPE layers (3, 7, ...) are all odd, so MoE: dense chunked,
		 * MoE chunked, MoE NoPE */
		CHECK(moe == 24 && a.n_kinds == 3, "llama4 maverick: 24 MoE layers of 48, 3 kinds (%d)", a.n_kinds);
	}
	/* Qwen3-Next: full_attention_interval 4: 12 full, 36 Gated DeltaNet;
	 * the recurrent state [32, 128, 128] in fp32, conv 8192 x 4 */
	if (load(REF2 "Qwen--Qwen3-Next-80B-A3B-Instruct.config.json", &a)) {
		k = kind_of(&a, GS_MIX_LINEAR, -1);
		CHECK(k && k->n_layers == 36 && layers_of(&a, GS_MIX_FULL) == 12 && k->kv_dim == 0 &&
		              k->st.heads == 32 && k->st.k_dim == 128 && k->st.v_dim == 128 && k->st.conv_dim == 8192 &&
		              k->st.conv_kernel == 4 && k->st.state_bytes == 4 &&
		              kind_of(&a, GS_MIX_FULL, -1)->kv_dim == 2 * 2 * 256,
		      "qwen3-next: 12 full + 36 linear-attention layers, GDN state and conv shapes");
	}
	/* Granite 4.0 H small: attention at 5, 15, 25, 35 */
	if (load(REF2 "ibm-granite--granite-4.0-h-small.config.json", &a)) {
		k = kind_of(&a, GS_MIX_MAMBA2, -1);
		CHECK(k && k->n_layers == 36 && layers_of(&a, GS_MIX_FULL) == 4 && k->st.heads == 128 &&
		              k->st.v_dim == 64 && k->st.k_dim == 128 && k->st.conv_dim == 8448 && !a.rotary &&
		              k->n_experts == 72 && a.tied,
		      "granite-4.0-h-small: 36 Mamba-2 + 4 attention layers, NoPE, 72 experts, tied");
	}
	/* Nemotron-H-56B: 54 M, 54 -, 10 * blocks, each one norm */
	if (load(REF2 "nvidia--Nemotron-H-56B-Base-8K.config.json", &a)) {
		k = kind_of(&a, GS_MIX_NONE, 0);
		CHECK(layers_of(&a, GS_MIX_MAMBA2) == 54 && layers_of(&a, GS_MIX_FULL) == 10 && k &&
		              k->n_layers == 54 && k->norms == 1 && kind_of(&a, GS_MIX_MAMBA2, 0)->mlp == GS_MLP_NONE &&
		              strstr(a.warning, "Infinity on line 46"),
		      "nemotron-h 56b: 54 Mamba-2, 54 MLP, 10 attention blocks; its Infinity read (%s)", a.warning);
	}
	/* SmolLM3: NoPE every 4th layer, tied by SmolLM3Config's default */
	if (load(REF2 "HuggingFaceTB--SmolLM3-3B.config.json", &a)) {
		int64_t nope = 0;
		for (int i = 0; i < a.n_kinds; i++)
			nope += a.kind[i].nope ? a.kind[i].n_layers : 0;
		CHECK(a.tied && a.p_head == 0 && nope == 9 && layers_of(&a, GS_MIX_FULL) == 36,
		      "smollm3: tied (the key absent), 9 NoPE of 36 full-attention layers");
	}
	/* Gemma 3 27B: 52 sliding (1024) + 10 full, both files */
	if (load(REF2 "google--gemma-3-27b-it.config.json", &a)) {
		k = kind_of(&a, GS_MIX_SLIDING, -1);
		CHECK(k && k->n_layers == 52 && k->window == 1024 && layers_of(&a, GS_MIX_FULL) == 10 &&
		              strcmp(a.vision, "siglip") == 0,
		      "gemma3 27b (minimal file): 52 sliding (1024) + 10 full layers, SigLIP tower");
	}
	if (load(REF2 "google--gemma-3-27b-it.resaved-4.56.config.json", &a))
		CHECK(layers_of(&a, GS_MIX_SLIDING) == 52 && layers_of(&a, GS_MIX_FULL) == 10,
		      "gemma3 27b (re-saved, explicit layer_types): the same 52 + 10");
	/* DeepSeek-V3: MLA everywhere, 3 dense then 58 MoE; FP8 128 x 128 */
	if (load(REF2 "deepseek-ai--DeepSeek-V3.config.json", &a))
		CHECK(layers_of(&a, GS_MIX_MLA) == 61 && a.kind[0].n_layers == 3 && a.kind[0].kv_dim == 576 &&
		              !a.interleaved && a.quant == GS_QUANT_FP8_BLOCK && a.quant_group == 128,
		      "deepseek-v3: 61 MLA layers (576 cached a token), 3 dense first, fp8 128 x 128 blocks");
	/* Kimi-K2: model_type kimi_k2, sized by its DeepseekV3ForCausalLM class */
	if (load(REF2 "moonshotai--Kimi-K2-Instruct.config.json", &a))
		CHECK(strstr(a.warning, "DeepseekV3ForCausalLM") && !a.generic,
		      "kimi_k2: sized through its architectures class, and said (%s)", a.warning);
	/* Mistral 3 and Qwen3-VL: text_config; Qwen2.5-VL: the text at the top */
	if (load(REF2 "mistralai--Mistral-Small-3.1-24B-Instruct-2503.config.json", &a))
		CHECK(a.hidden == 5120 && a.head_dim == 128 && a.layers == 40 && strcmp(a.vision, "pixtral") == 0 &&
		              layers_of(&a, GS_MIX_FULL) == 40,
		      "mistral3: the text model read through text_config (sliding_window null: full)");
	if (load(REF2 "Qwen--Qwen3-VL-30B-A3B-Instruct.config.json", &a))
		CHECK(a.hidden == 2048 && a.layers == 48 && a.kind[a.n_kinds - 1].n_experts == 128 &&
		              strcmp(a.vision, "qwen3-vl") == 0,
		      "qwen3_vl_moe: the text model read through text_config");
	if (load(REF2 "Qwen--Qwen2.5-VL-7B-Instruct.config.json", &a))
		CHECK(a.hidden == 3584 && find_mod(&a, 0, "q_proj")->bias && strcmp(a.vision, "qwen2.5-vl") == 0,
		      "qwen2_5_vl: the text at the top, q/k/v with biases, the vision tower counted");
}

/* A config from text; GS_OK and the arch, or the error (e.msg). */
static gs_err parse_text(const char *js, gs_arch *a, gs_error *e)
{
	memset(e, 0, sizeof *e);
	return gs_config_parse(js, strlen(js), "p.json", a, e);
}

/* A cJSON tree as text (the caller frees). */
static char *json_text(const cJSON *d)
{
	return cJSON_PrintUnformatted(d);
}

/* Fields whose presence says a config is not a plain decoder. */
static const char *structural_field(const cJSON *d)
{
	static const char *const keys[] = {
		"num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts", "ssm_state_size",
		"mamba_d_state", "mamba_n_heads", "mamba_num_heads", "linear_num_value_heads",
		"hybrid_override_pattern", "full_attention_interval", "text_config", "vision_config", NULL,
	};
	const cJSON *lt = cJSON_GetObjectItemCaseSensitive(d, "layer_types");

	for (int i = 0; keys[i] != NULL; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(d, keys[i]);
		if (v != NULL && !cJSON_IsNull(v) && !(cJSON_IsNumber(v) && v->valuedouble <= 1))
			return keys[i];
	}
	for (const cJSON *x = cJSON_IsArray(lt) ? lt->child : NULL; x != NULL; x = x->next)
		if (!cJSON_IsString(x) || strcmp(x->valuestring, "full_attention") != 0)
			return "layer_types";
	return NULL;
}

/* Never a guess (issue 30 item 3). A config outside the known families
 * gives a number only when it is a plain decoder (and then flagged
 * generic); otherwise it is refused naming a field it holds. Checked on
 * every real 2025-26 config renamed to an unknown model_type, on a real
 * config of a family gpusizer is not given (DeepSeek-V4), and on
 * structural variants of known families (a new layer-type name, a dense
 * family with experts or state fields): each exact or refused naming a
 * field, never a wrong total. */
static void test_never_a_guess(void)
{
	char p[4200], *buf = NULL;
	size_t len = 0;
	gs_error e = { 0 };
	gs_arch a;
	cJSON *idx;
	int renamed = 0, refused = 0, generic = 0;

	path_of(p, sizeof p, REF2 "index.json");
	if (gs_read_file(p, 1 << 20, &buf, &len, &e) != GS_OK) {
		CHECK(0, "never-a-guess: read %s", p);
		return;
	}
	idx = cJSON_ParseWithLength(buf, len);
	free(buf);
	for (const cJSON *m = cJSON_GetObjectItemCaseSensitive(idx, "models")->child; m != NULL; m = m->next) {
		const char *file = cJSON_GetObjectItemCaseSensitive(m, "file")->valuestring;
		char rel[4800], *text, *js;
		cJSON *d;
		const char *field;
		gs_err rc;

		snprintf(rel, sizeof rel, "%s/" REF2 "%s", top, file);
		if (gs_read_file(rel, 1 << 20, &text, &len, &e) != GS_OK)
			continue;
		/* the Nemotron file's Infinity: Python's json writes it */
		for (char *q = strstr(text, "Infinity"); q != NULL; q = strstr(q, "Infinity"))
			memcpy(q, "1e999   ", 8);
		d = cJSON_ParseWithLength(text, len);
		free(text);
		if (d == NULL)
			continue;
		cJSON_ReplaceItemInObjectCaseSensitive(d, "model_type", cJSON_CreateString("frob_unknown"));
		cJSON_DeleteItemFromObjectCaseSensitive(d, "architectures");
		js = json_text(d);
		field = structural_field(d);
		rc = parse_text(js, &a, &e);
		renamed++;
		if (field != NULL) {
			refused += rc == GS_ECONFIG;
			CHECK(rc == GS_ECONFIG && strstr(e.msg, "field \"") && strstr(e.msg, "not sized") &&
			              (strstr(e.msg, field) || strstr(e.msg, "layer_types[")),
			      "never-a-guess: %s as an unknown model_type (it has %s) is refused naming a field (%s)", file,
			      field, e.msg);
		} else {
			generic += rc == GS_OK && a.generic;
			CHECK(rc == GS_OK && a.generic && strstr(a.warning, "generic"),
			      "never-a-guess: %s as an unknown model_type is a plain decoder: sized, flagged generic (%s)",
			      file, rc == GS_OK ? a.warning : e.msg);
		}
		cJSON_free(js);
		cJSON_Delete(d);
	}
	cJSON_Delete(idx);
	CHECK(renamed == 24 && refused + generic == 24 && refused >= 18,
	      "never-a-guess: 24 renamed configs, %d refused, %d plain decoders sized generic", refused, generic);

	/* a real config of a family gpusizer is not given */
	path_of(p, sizeof p, REF2 "other/nvidia--DeepSeek-V4-Flash-NVFP4.config.json");
	memset(&e, 0, sizeof e);
	CHECK(gs_config_load(p, &a, &e) == GS_ECONFIG && strstr(e.msg, "field \"n_routed_experts\"") &&
	              strstr(e.msg, "deepseek_v4") && strstr(e.msg, "not sized") && a.params_total == 0,
	      "never-a-guess: DeepSeek-V4 (deepseek_v4, unknown) is refused naming n_routed_experts (%s)", e.msg);

	/* structural variants: each refused naming the field */
	static const struct {
		const char *what, *json, *field;
	} v[] = {
		{ "a hybrid with a new layer-type name",
		  "{\"model_type\":\"granitemoehybrid\",\"hidden_size\":256,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
		  "\"vocab_size\":100,\"shared_intermediate_size\":512,\"mamba_d_head\":64,\"mamba_n_heads\":8,"
		  "\"layer_types\":[\"mamba\",\"mamba3\"]}",
		  "\"layer_types[1]\"" },
		{ "a dense family with a sliding-window kind it does not have",
		  "{\"model_type\":\"llama\",\"hidden_size\":256,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
		  "\"intermediate_size\":512,\"vocab_size\":100,\"layer_types\":[\"full_attention\",\"sliding_attention\"]}",
		  "\"layer_types[1]\"" },
		{ "gemma3_text with a chunked layer",
		  "{\"model_type\":\"gemma3_text\",\"hidden_size\":256,\"num_hidden_layers\":2,\"intermediate_size\":512,"
		  "\"layer_types\":[\"chunked_attention\",\"full_attention\"]}",
		  "\"layer_types[0]\"" },
		{ "qwen3 with linear-attention fields",
		  "{\"model_type\":\"qwen3\",\"hidden_size\":256,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
		  "\"intermediate_size\":512,\"vocab_size\":100,\"linear_num_value_heads\":8}",
		  "\"linear_num_value_heads\"" },
		{ "mistral with experts",
		  "{\"model_type\":\"mistral\",\"hidden_size\":256,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
		  "\"intermediate_size\":512,\"vocab_size\":100,\"num_local_experts\":8}",
		  "\"num_local_experts\"" },
		{ "phi3 wrapped with a vision tower",
		  "{\"model_type\":\"phi3\",\"hidden_size\":256,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
		  "\"intermediate_size\":512,\"vocab_size\":100,\"vision_config\":{\"hidden_size\":64}}",
		  "\"vision_config\"" },
		{ "a MiniMax-M2-like MoE (unknown)",
		  "{\"model_type\":\"minimax_m2\",\"hidden_size\":3072,\"num_hidden_layers\":62,\"num_attention_heads\":48,"
		  "\"num_key_value_heads\":8,\"head_dim\":128,\"intermediate_size\":1536,\"vocab_size\":200064,"
		  "\"num_local_experts\":256,\"num_experts_per_tok\":8}",
		  "\"num_local_experts\"" },
		{ "a Jamba-like hybrid (unknown)",
		  "{\"model_type\":\"jamba\",\"hidden_size\":4096,\"num_hidden_layers\":32,\"num_attention_heads\":32,"
		  "\"intermediate_size\":14336,\"vocab_size\":65536,\"num_experts\":1,\"mamba_d_state\":16,"
		  "\"attn_layer_period\":8}",
		  "\"mamba_d_state\"" },
		{ "a Nemotron-H pattern with a new block kind",
		  "{\"model_type\":\"nemotron_h\",\"hidden_size\":256,\"num_hidden_layers\":3,\"num_attention_heads\":4,"
		  "\"vocab_size\":100,\"hybrid_override_pattern\":\"M*L\",\"mamba_num_heads\":8,\"mamba_head_dim\":64,"
		  "\"ssm_state_size\":16}",
		  "\"hybrid_override_pattern[2]\"" },
		{ "an unknown wrapper", "{\"model_type\":\"frob_vl\",\"text_config\":{\"model_type\":\"llama\"}}",
		  "\"text_config\"" },
		{ "a gemma3 wrapper whose text has experts",
		  "{\"model_type\":\"gemma3\",\"text_config\":{\"hidden_size\":256,\"num_hidden_layers\":2,"
		  "\"intermediate_size\":512,\"num_experts\":4}}",
		  "\"text_config.num_experts\"" },
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		gs_err rc = parse_text(v[i].json, &a, &e);
		CHECK(rc == GS_ECONFIG && strstr(e.msg, v[i].field) && a.params_total == 0,
		      "never-a-guess: %s is refused naming %s (%s)", v[i].what, v[i].field, e.msg);
	}
	/* and a plain decoder of an unknown family is still sized, flagged */
	CHECK(parse_text("{\"model_type\":\"frob\",\"hidden_size\":256,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
	                 "\"intermediate_size\":512,\"vocab_size\":100,\"layer_types\":[\"full_attention\","
	                 "\"full_attention\"]}", &a, &e) == GS_OK && a.generic,
	      "never-a-guess: an unknown plain decoder (layer_types all full) is sized, flagged generic");
}

int main(void)
{
	const char *t = getenv("GS_TOP");

	if (t != NULL && *t)
		snprintf(top, sizeof top, "%s", t);
	test_reference();
	test_reference_shapes();
	test_missing_table();
	test_hand_computed();
	test_falcon_variants();
	test_phi_gptj();
	test_phi_gptj_variants();
	test_more_families();
	test_moe_layer_rules();
	test_quant();
	test_errors();
	test_generic_and_files();
	test_limits();
	test_reference2();
	test_layer_kinds();
	test_never_a_guess();
	CHECK_DONE();
}
