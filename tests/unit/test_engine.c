/* The memory engine on the reference models' configs (config.c loads
 * them): hand-computed components per recipe and optimizer, and
 * monotonicity. The seeds' formulas and the usage errors, which need no
 * config, are in test_engine_core.c. */
#include <cJSON.h>
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "fileio.h"
#include "config.h"
#include "engine.h"
#include "engine_run.h"

#define REF "tests/fixtures/models-reference/"

/* A config by its path from the repository root. */
static gs_arch gs_arch_from(const char *path)
{
	gs_arch a;
	gs_error e = {0};
	if (gs_config_load(path, &a, &e) != GS_OK) {
		printf("FAIL load %s: %s\n", path, e.msg);
		exit(1);
	}
	return a;
}

/* A reference config (tests/fixtures/models-reference, copies of
 * ../shared/models-reference) by its file name. */
static gs_arch load(const char *file)
{
	char path[512];
	snprintf(path, sizeof path, REF "%s", file);
	return gs_arch_from(path);
}

static gs_settings base(const char *method, const char *prec, const char *opt)
{
	gs_settings s;
	gs_error e = {0};
	gs_settings_default(&s);
	gs_settings_set(&s, "method", method, &e);
	if (prec)
		gs_settings_set(&s, "precision", prec, &e);
	if (opt)
		gs_settings_set(&s, "optimizer", opt, &e);
	gs_settings_set(&s, "seq", "1", &e); /* tiny activations: the peak is the optimizer step */
	if (e.code) {
		printf("FAIL settings: %s\n", e.msg);
		exit(1);
	}
	return s;
}

/* Apply "key=value key=value ..." to s; a rejected pair ends the test. */
static void set(gs_settings *s, const char *pairs)
{
	char buf[512], *save = NULL;
	snprintf(buf, sizeof buf, "%s", pairs);
	for (char *kv = strtok_r(buf, " ", &save); kv != NULL; kv = strtok_r(NULL, " ", &save)) {
		gs_error e = {0};
		char *eq = strchr(kv, '=');
		if (eq == NULL) {
			printf("FAIL settings: '%s' is not key=value\n", kv);
			exit(1);
		}
		*eq = '\0';
		if (gs_settings_set(s, kv, eq + 1, &e) != GS_OK) {
			printf("FAIL settings %s=%s: %s\n", kv, eq + 1, e.msg);
			exit(1);
		}
	}
}

static int near(double a, double b, double tol)
{
	return fabs(a - b) <= tol * fmax(fabs(b), 1e-12);
}

/* Parameters of the decoder-layer linears of a (for quantised storage). */
static double linear_params(const gs_arch *a)
{
	double n = 0;
	for (int i = 0; i < a->n_kinds; i++)
		for (int j = 0; j < a->kind[i].n_lin; j++)
			n += (double)a->kind[i].n_layers * (double)gs_linear_params(&a->kind[i].lin[j]);
	return n;
}

static void recipes(void)
{
	gs_arch a = load("meta-llama--Llama-3.2-1B.config.json");
	double P = (double)a.params_total;
	struct { const char *prec, *opt; double w, g, o; } t[] = {
		{"fp32", "adamw", 4, 4, 8},
		{"amp-bf16", "adamw", 4, 4, 8},
		{"amp-fp16", "adamw-fused", 4, 4, 8},
		{"mixed-bf16", "adamw", 2, 2, 12},
		{"mixed-fp16", "adamw", 2, 2, 12},
		{"bf16", "adamw", 2, 2, 4},
		{"fp16", "adamw", 2, 2, 4},
		{"bf16", "adamw-fused", 2, 2, 4},
		{"bf16", "adamw-8bit", 2, 2, 2 * (1 + 4.0 / 2048)},
		{"bf16", "paged-adamw-8bit", 2, 2, 2 * (1 + 4.0 / 2048)},
		{"bf16", "paged-adamw-32bit", 2, 2, 8},
		{"bf16", "sgd", 2, 2, 0},
		{"bf16", "sgd-momentum", 2, 2, 2},
		{"bf16", "lion", 2, 2, 2},
		{"fp32", "sgd-momentum", 4, 4, 4},
		{"fp32", "lion", 4, 4, 4},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		gs_settings s = base("full", t[i].prec, t[i].opt);
		gs_estimate x = run(&a, &s);
		CHECK(x.params_trainable == a.params_total, "engine: full %s trains every parameter", t[i].prec);
		CHECK(near(x.bpp_G, t[i].g, 1e-9), "engine: full %s %s grads %.2f B/param (got %.4f)", t[i].prec, t[i].opt, t[i].g, x.bpp_G);
		CHECK(near(x.bpp_O, t[i].o, 1e-9), "engine: full %s %s states %.4f B/param (got %.4f)", t[i].prec, t[i].opt, t[i].o, x.bpp_O);
		/* paged states are on the device but not in torch's allocated */
		bool paged = !strncmp(t[i].opt, "paged", 5);
		double ostate = t[i].o * P;
		CHECK(near((double)x.O, ostate, 1e-6), "engine: full %s %s O = %.3g bytes", t[i].prec, t[i].opt, ostate);
		double tmp = 0;
		if (!strcmp(t[i].opt, "adamw") && strncmp(t[i].prec, "mixed", 5))
			tmp = t[i].o / 2 * P; /* foreach AdamW: one state-sized temporary */
		if (!strcmp(t[i].opt, "lion"))
			tmp = t[i].o * P;
		if (!strncmp(t[i].prec, "mixed", 5))
			tmp = 4 * P; /* fp32 gradient partition */
		double want_alloc = t[i].w * P + t[i].g * P + (paged ? 0 : ostate) + tmp;
		if (tmp > 0) {
			/* A step temporary makes the optimizer step the peak. */
			CHECK(x.peak_phase == GS_PH_OPTIMIZER, "engine: full %s %s at seq 1 peaks in the optimizer step", t[i].prec, t[i].opt);
			CHECK(near((double)x.W, t[i].w * P, 1e-9), "engine: full %s weights %.0f B/param at the optimizer step", t[i].prec, t[i].w);
			CHECK(near((double)x.G, t[i].g * P, 1e-6), "engine: full %s %s all grads live in the step", t[i].prec, t[i].opt);
			CHECK(near((double)x.allocated, want_alloc, 1e-9), "engine: full %s %s allocated = W+G+O+temporary (%.4g, got %.4g)",
			      t[i].prec, t[i].opt, want_alloc, (double)x.allocated);
		} else {
			/* Without one, the end of backward (all grads but the embedding's,
			 * plus one layer's seq-1 activations) or the step is the peak. */
			CHECK(x.allocated >= want_alloc - 2 * 128256.0 * 2048 * t[i].g && x.allocated <= want_alloc * 1.02,
			      "engine: full %s %s allocated ~ W+G+O (%.4g, got %.4g)", t[i].prec, t[i].opt, want_alloc, (double)x.allocated);
		}
		CHECK(x.device > x.reserved && x.reserved > x.allocated, "engine: device > reserved > allocated (%s %s)", t[i].prec, t[i].opt);
		CHECK(x.W + x.G + x.O + x.A + x.B == x.device, "engine: W+G+O+A+B = device (%s %s)", t[i].prec, t[i].opt);
	}

	/* fp8-mixed: bf16 weights plus fp8 copies of the layer linears. */
	{
		gs_settings s = base("full", "fp8-mixed", "adamw-fused");
		gs_estimate x = run(&a, &s);
		CHECK(near((double)x.W, 2 * P + linear_params(&a), 1e-9), "engine: fp8-mixed W = 2 B/param + 1 B per linear param");
		CHECK(near(x.bpp_G, 4, 1e-9) && near(x.bpp_O, 12, 1e-9), "engine: fp8-mixed fp32 main grads, master + states 12 B");
	}

	/* LoRA r16 on q,v of Llama-3.2-1B: 16 layers x 16 x ((2048+2048) + (2048+512)). */
	{
		gs_settings s = base("lora", "bf16", "adamw");
		gs_estimate x = run(&a, &s);
		double want = 16.0 * 16 * ((2048 + 2048) + (2048 + 512));
		CHECK_EQ_U64(x.params_trainable, (uint64_t)want, "engine: LoRA r16 qv trainable params by hand");
		CHECK(near((double)x.W, 2 * P, 1e-9), "engine: LoRA bf16 base weights 2 B/param");
		CHECK(near(x.bpp_G, 4, 1e-9) && near(x.bpp_O, 8, 1e-9), "engine: LoRA fp32 adapters: grads 4, AdamW 8 B/param");
		gs_error e = {0};
		gs_settings_set(&s, "adapter-dtype", "bf16", &e);
		x = run(&a, &s);
		CHECK(near(x.bpp_G, 2, 1e-9) && near(x.bpp_O, 4, 1e-9), "engine: LoRA bf16 adapters: grads 2, AdamW 4 B/param");
		gs_settings_set(&s, "lora-targets", "all-linear", &e);
		x = run(&a, &s);
		want = 16.0 * 16 * ((2048 + 2048) + 2 * (2048 + 512) + (2048 + 2048) + 2 * (2048 + 8192) + (8192 + 2048));
		CHECK_EQ_U64(x.params_trainable, (uint64_t)want, "engine: LoRA all-linear trainable params by hand");
		gs_settings_set(&s, "lora-targets", "q_proj,k_proj", &e);
		x = run(&a, &s);
		want = 16.0 * 16 * ((2048 + 2048) + (2048 + 512));
		CHECK_EQ_U64(x.params_trainable, (uint64_t)want, "engine: LoRA by module names q_proj,k_proj");
	}

	/* QLoRA NF4: linears 0.5 + 4/64 B/param; embeddings, head, norms bf16
	 * (loaded as they are: PEFT's k-bit preparation off). */
	{
		gs_settings s = base("qlora", NULL, "adamw");
		set(&s, "kbit-prep=off");
		gs_estimate x = run(&a, &s);
		double lin = linear_params(&a);
		double want = lin * (0.5 + 4.0 / 64) + (P - lin) * 2;
		CHECK(near((double)x.W, want, 1e-9), "engine: QLoRA nf4 weights by hand (%.4g, got %.4g)", want, (double)x.W);
		gs_error e = {0};
		gs_settings_set(&s, "precision", "nf4-dq", &e);
		x = run(&a, &s);
		want = lin * (0.5 + 1.0 / 64 + 4.0 / (64 * 256)) + (P - lin) * 2;
		CHECK(near((double)x.W, want, 1e-9), "engine: QLoRA nf4 double-quant weights by hand");
	}

	/* Inference: weights + KV cache (GQA: 2 * 8 kv heads * 64) + prefill. */
	{
		gs_settings s = base("inference", "bf16", NULL);
		gs_error e = {0};
		gs_settings_set(&s, "seq", "4096", &e);
		gs_estimate x = run(&a, &s);
		double kv = 2.0 * 8 * 64 * 16 * 4096 * 2;
		CHECK(x.A >= kv && x.A < kv + 4096.0 * 128256 * 2 + 4096.0 * 2048 * 2 * 16, "engine: inference A holds the GQA KV cache (%.4g) and prefill", kv);
		CHECK(x.G == 0 && x.O == 0 && x.params_trainable == 0, "engine: inference has no gradients or states");
		gs_settings_set(&s, "kv-dtype", "fp8", &e);
		gs_estimate y = run(&a, &s);
		CHECK(near((double)(x.A - y.A), kv / 2, 1e-9), "engine: fp8 KV cache halves the cache");
	}
}

static void lora_names(void)
{
	gs_arch a = load("openai-community--gpt2.config.json");
	gs_settings s = base("lora", "bf16", "adamw");
	gs_error e = {0};
	gs_estimate x;
	gs_settings_set(&s, "lora-targets", "attn.c_proj", &e);
	CHECK_EQ_U64(run(&a, &s).params_trainable, 12 * 16 * (768 + 768), "engine: LoRA target attn.c_proj matches only the attention projection");
	gs_settings_set(&s, "lora-targets", "c_proj", &e);
	CHECK_EQ_U64(run(&a, &s).params_trainable, 12 * 16 * ((768 + 768) + (3072 + 768)), "engine: LoRA target c_proj matches both projections (PEFT suffix rule)");
	gs_settings_set(&s, "lora-targets", "transformer.h.mlp.c_fc", &e);
	CHECK_EQ_U64(run(&a, &s).params_trainable, 12 * 16 * (768 + 3072), "engine: a longer target path ending in a module name matches it");
	gs_settings_set(&s, "lora-targets", "fc1,dense", &e);
	memset(&e, 0, sizeof e);
	CHECK(gs_estimate_run(&a, &s, &x, &e) == GS_EUSAGE && strstr(e.msg, "matches no module") && strstr(e.msg, "c_attn"),
	      "engine: LoRA targets matching nothing are a usage error listing the model's modules");
}

static void compiled(void)
{
	/* torch.compile: a fused RMSNorm keeps its bf16 input and 1/rms instead
	 * of an fp32 copy and the normalised value (4h bytes less per norm);
	 * act(gate)*up keeps gate and up (one I-wide tensor less); the compiled
	 * cross-entropy keeps no log-probabilities. Checked by hand on the saved
	 * activations of Llama-3.2-1B, full bf16, b1 s2048, at the loss. */
	gs_arch a = load("meta-llama--Llama-3.2-1B.config.json");
	gs_settings s = base("full", "bf16", "adamw-fused");
	gs_error e = {0};
	gs_settings_set(&s, "seq", "2048", &e);
	gs_estimate x = run(&a, &s);
	s.compile = true;
	gs_estimate y = run(&a, &s);
	double T = 2048, h = 2048, I = 8192, V = 128256, L = 16;
	double want = L * T * (2 * (4 * h - 4) + 2 * I) + 4 * V * T - 4 * T;
	CHECK(y.device < x.device, "engine: --compile lowers a full fine-tune's peak");
	CHECK(x.peak_phase == y.peak_phase && near((double)(x.A - y.A), want, 1e-9),
	      "engine: --compile saves 2 norms x (4h - 4) + 2I bytes per token-layer and the fp32 log-probs (%.4g, got %.4g)",
	      want, (double)x.A - (double)y.A);
	char l[256];
	gs_settings_label(&s, l, sizeof l);
	CHECK(strstr(l, " compile") != NULL, "settings: the row label says compile (%s)", l);
	/* torchao NF4: nf4-dq storage, and its matmul saves no input, as
	 * bitsandbytes' does from 0.43.2 and did not before */
	gs_settings q = base("qlora", "nf4-dq", "adamw");
	set(&q, "seq=2048 kbit-prep=off bnb-saves=input");
	gs_estimate bnb = run(&a, &q);
	set(&q, "bnb-saves=weight");
	gs_estimate bnb_now = run(&a, &q);
	gs_settings_set(&q, "precision", "nf4-torchao", &e);
	gs_estimate tao = run(&a, &q);
	CHECK(bnb.W == tao.W && tao.A < bnb.A && tao.A == bnb_now.A,
	      "engine: nf4-torchao stores like nf4-dq, saves less than bitsandbytes before 0.43.2 and as much as after");
}

static void softcap(void)
{
	/* Gemma 2: four residual-stream norms a layer, and tanh soft-capping.
	 * Hand-computed on gemma-2-9b (42 layers, h 3584, 16 heads, vocab
	 * 256000), LoRA on a bf16 base, b1 s512, at the peak: each extra norm
	 * saves its fp32 input (4h bytes a token); the capped scores save
	 * tanh's bf16 output (2 bytes a score) under eager attention only; the
	 * capped logits save tanh's bf16 output (2V bytes a token). */
	gs_arch a = load("google--gemma-2-9b.config.json");
	CHECK(a.layer_norms == 4 && a.attn_softcap == 50.0 && a.final_softcap == 30.0,
	      "config: gemma2 reads 4 norms a layer and both soft caps (%d, %g, %g)", a.layer_norms,
	      a.attn_softcap, a.final_softcap);
	gs_settings s = base("lora", "bf16", "adamw");
	set(&s, "seq=512 attn=eager");
	double L = 42, h = 3584, nh = 16, V = 256000, T = 512;
	gs_arch plain = a;
	plain.attn_softcap = plain.final_softcap = 0;
	gs_estimate x = run(&a, &s), y = run(&plain, &s);
	double want = L * 2 * nh * T * T + 2 * V * T;
	CHECK(x.peak_phase == y.peak_phase && near((double)(x.A - y.A), want, 1e-9),
	      "engine: eager soft caps save 2 bytes a score and 2V bytes a token (%.6g, got %.6g)", want,
	      (double)x.A - (double)y.A);
	set(&s, "attn=sdpa");
	x = run(&a, &s);
	y = run(&plain, &s);
	CHECK(near((double)(x.A - y.A), 2 * V * T, 1e-9),
	      "engine: under sdpa only the logit cap costs (HF's sdpa path drops the score cap) (%.6g, got %.6g)",
	      2 * V * T, (double)x.A - (double)y.A);
	/* q_norm/k_norm (Qwen3-30B-A3B: 48 layers, 32 query and 4 key heads
	 * of 128): each saves its fp32 input, 4 bytes per query and key
	 * element a token */
	gs_arch q3 = load("Qwen--Qwen3-30B-A3B.config.json");
	gs_arch q3n = q3;
	q3n.qk_norm = false;
	gs_estimate qa = run(&q3, &s), qb = run(&q3n, &s);
	CHECK(q3.qk_norm && qa.peak_phase == qb.peak_phase && near((double)(qa.A - qb.A), 48.0 * 4 * 4608 * T, 1e-9),
	      "engine: Qwen3's q/k norms save 4 bytes per query and key element (%.6g, got %.6g)", 48.0 * 4 * 4608 * T,
	      (double)qa.A - (double)qb.A);
	gs_arch two = plain;
	two.layer_norms = 2;
	gs_estimate z = run(&two, &s);
	CHECK(near((double)(y.A - z.A), L * 2 * 4 * h * T, 1e-9),
	      "engine: gemma2's post-attention and post-feedforward norms save 4h bytes a token each (%.6g, got %.6g)",
	      L * 2 * 4 * h * T, (double)y.A - (double)z.A);
}

static void fabric_nf4(void)
{
	/* nf4-litgpt: Lightning Fabric's plugin also quantizes the (untied)
	 * head and dequantizes each weight to fp16 before casting it to bf16.
	 * Hand-computed on Llama-3.1-8B (V 128256, h 4096, untied), QLoRA with
	 * bf16 adapters, b2 s512, chunked loss: against nf4 the head stores at
	 * 0.5625 instead of 2 bytes/param, bitsandbytes saves the head's input
	 * (2h bytes a token), and the peak moves to the head's backward with
	 * its two dequantized copies (4 bytes/param) live. */
	gs_arch a = load("meta-llama--Llama-3.1-8B.config.json");
	gs_settings s = base("qlora", "nf4", "adamw");
	set(&s, "adapter-dtype=bf16 batch=2 seq=512 loss=chunked kbit-prep=off");
	gs_estimate x = run(&a, &s);
	set(&s, "precision=nf4-litgpt");
	gs_estimate y = run(&a, &s);
	double VH = 128256.0 * 4096, T = 1024, h = 4096;
	double dW = (0.5 + 4.0 / 64 - 2) * VH;
	CHECK(near((double)y.W - (double)x.W, dW, 1e-9), "engine: nf4-litgpt stores the head in nf4 (%.6g, got %.6g)", dW,
	      (double)y.W - (double)x.W);
	double want = dW + 2 * h * T + 4 * VH;
	CHECK(x.peak_phase == GS_PH_LOSS && y.peak_phase == GS_PH_BACKWARD &&
	          near((double)y.allocated - (double)x.allocated, want, 1e-9),
	      "engine: nf4-litgpt peaks at the head's backward with fp16 + bf16 copies of it (%.6g, got %.6g)", want,
	      (double)y.allocated - (double)x.allocated);
	/* inference: same storage; the peak holds both copies of the head */
	gs_settings i = base("inference", "nf4-dq-litgpt", NULL);
	gs_estimate z = run(&a, &i);
	set(&i, "precision=nf4-dq");
	gs_estimate w = run(&a, &i);
	double dq = 0.5 + 1.0 / 64 + 4.0 / (64 * 256);
	CHECK(near((double)z.W - (double)w.W, (dq - 2) * VH, 1e-9) && (double)z.allocated - (double)z.W >= 4 * VH &&
	          (double)w.allocated - (double)w.W < 4 * VH,
	      "engine: nf4-dq-litgpt inference: head in nf4-dq, its two dequantized copies at the peak");
	/* a tied head is the embedding: not a linear, not quantized; each
	 * layer weight's dequantized fp16 + bf16 copies are 2 bytes/param more
	 * than nf4's one (Llama-3.2-1B: widest unit 8192 x 2048) */
	gs_arch t = load("meta-llama--Llama-3.2-1B.config.json");
	gs_settings ti = base("inference", "nf4", NULL);
	gs_estimate t1 = run(&t, &ti);
	set(&ti, "precision=nf4-litgpt");
	gs_estimate t2 = run(&t, &ti);
	CHECK(t1.W == t2.W && near((double)t2.allocated - (double)t1.allocated, 2.0 * 8192 * 2048, 1e-9),
	      "engine: nf4-litgpt on a tied model: same weights, one more 16-bit copy of the widest layer weight (got %.6g)",
	      (double)t2.allocated - (double)t1.allocated);
	char l[256];
	gs_settings_label(&s, l, sizeof l);
	CHECK(strstr(l, "nf4-litgpt") != NULL, "settings: the row label names nf4-litgpt (%s)", l);
}

static void sharded_lora(void)
{
	/* ZeRO-3/FSDP with a frozen base, by hand on Llama-3.1-8B over 8 GPUs,
	 * b1 s512, bf16 adapters r16 on q and v. A decoder layer has
	 * 218,112,000 parameters (2*4096^2 + 2*4096*1024 + 3*4096*14336 +
	 * 2*4096), 212,992 of them trainable (16*(4096+4096) + 16*(4096+1024)).
	 * fsdp (FSDP1, whole layers as units) allocates the unit's unsharded
	 * gradient for all of it; fsdp2 and zero3 only for the adapters. */
	gs_arch a = load("meta-llama--Llama-3.1-8B.config.json");
	gs_settings s = base("lora", "bf16", "adamw");
	set(&s, "adapter-dtype=bf16 seq=512 gpus=8 sharding=fsdp");
	gs_estimate f1 = run(&a, &s);
	set(&s, "sharding=fsdp2");
	gs_estimate f2 = run(&a, &s);
	set(&s, "sharding=zero3 zero-bucket=1"); /* DeepSpeed's own bucket (deepspeed_zero12) out of the way */
	gs_estimate z3 = run(&a, &s);
	double want = (218112000.0 - 212992.0) * 2;
	CHECK(f1.peak_phase == f2.peak_phase && near((double)f1.allocated - (double)f2.allocated, want, 1e-9) &&
	          near((double)z3.allocated, (double)f2.allocated, 1e-9),
	      "engine: fsdp1 units allocate frozen weights' gradients, fsdp2/zero3 only the adapters' (%.6g, got %.6g)",
	      want, (double)f1.allocated - (double)f2.allocated);
	/* QLoRA: gathered units keep their 4-bit storage. A bf16 base against
	 * torchao's NF4 (stored at 0.5 + 1/64 + 4/16384 bytes, all of it
	 * sharded, no saved input), same bf16 adapters, few activations so the
	 * peak is in a layer's backward: the 1/8 shard of 32 layers' linear
	 * weights and the two gathered layers differ by 2 - that many bytes per
	 * weight, less NF4's one dequantized weight (14336 x 4096 in bf16). */
	gs_settings q = base("lora", "bf16", "adamw");
	set(&q, "adapter-dtype=bf16 seq=16 gpus=8 sharding=fsdp2");
	gs_estimate bf = run(&a, &q);
	set(&q, "method=qlora precision=nf4-torchao");
	gs_estimate tao = run(&a, &q);
	double lin = 218103808.0, dqb = 0.5 + 1.0 / 64 + 4.0 / (64 * 256);
	double want2 = (2 - dqb) * (32 * lin / 8 + 2 * lin) - 2 * 14336.0 * 4096;
	CHECK(bf.peak_phase == GS_PH_BACKWARD && tao.peak_phase == GS_PH_BACKWARD &&
	          near((double)bf.allocated - (double)tao.allocated, want2, 1e-9),
	      "engine: zero3/fsdp gather a QLoRA layer at its stored size (%.6g, got %.6g)", want2,
	      (double)bf.allocated - (double)tao.allocated);
	/* bitsandbytes keeps each layer's absmax (4 bytes per 64 weights) on
	 * the module, whole on every rank; torchao's NF4 shards it with the
	 * codes. Llama-3.1-70B: 80 layers x 855,638,016 linear weights. */
	gs_arch b = load("meta-llama--Llama-3.1-70B.config.json");
	gs_settings z = base("qlora", "nf4", "adamw");
	set(&z, "kbit-prep=off");
	gs_estimate z1 = run(&b, &z);
	set(&z, "gpus=8 sharding=zero3");
	gs_estimate z8 = run(&b, &z);
	double meta = 80 * 855638016.0 * 4 / 64;
	CHECK(near((double)z8.W, ((double)z1.W - meta) / 8 + meta, 1e-9),
	      "engine: zero3 shards nf4 codes but not bitsandbytes' absmax (%.6g, got %.6g)", ((double)z1.W - meta) / 8 + meta,
	      (double)z8.W);
	/* GPTQ keeps qweight/qzeros/scales/g_idx in buffers: ZeRO-3 shards only
	 * the embedding, head and norms, 2 x (2 x 128256 x 8192 + 8192 + 80 x 2
	 * x 8192) bytes in bf16 */
	set(&z, "precision=gptq-int4 gpus=1 sharding=ddp");
	gs_estimate g1 = run(&b, &z);
	set(&z, "gpus=8 sharding=zero3");
	gs_estimate g8 = run(&b, &z);
	double rest = 2 * (2 * 128256.0 * 8192 + 8192 + 80 * 2 * 8192.0);
	CHECK(near((double)g8.W, (double)g1.W - rest + rest / 8, 1e-9),
	      "engine: zero3 cannot shard GPTQ's buffers (%.6g, got %.6g)", (double)g1.W - rest + rest / 8, (double)g8.W);
	set(&z, "precision=nf4-torchao gpus=1 sharding=ddp");
	gs_estimate t1 = run(&b, &z);
	set(&z, "gpus=8 sharding=fsdp2");
	gs_estimate t8 = run(&b, &z);
	CHECK(near((double)t8.W, (double)t1.W / 8, 1e-9), "engine: fsdp2 shards torchao NF4 whole (%.6g, got %.6g)",
	      (double)t1.W / 8, (double)t8.W);
}

static void offload_activations(void)
{
	/* --offload activations, by hand on Llama-3.2-3B (28 layers, h 3072),
	 * full bf16, b2 s4096, checkpointing: the saved layer inputs (2 bytes
	 * x h a token each) go to the host; at the loss the GPU holds none. */
	gs_arch a = load("meta-llama--Llama-3.2-3B.config.json");
	gs_settings s = base("full", "bf16", "adamw");
	gs_error e = {0};
	/* optimizer in backward: no step peak, the loss is the peak */
	set(&s, "batch=2 seq=4096 grad-ckpt=true loss=chunked optimizer-in-bwd=true");
	gs_estimate x = run(&a, &s);
	set(&s, "offload=activations");
	gs_estimate y = run(&a, &s);
	double want = 28.0 * 2 * 3072 * 8192;
	CHECK(near((double)y.host, want, 1e-9), "engine: --offload activations puts every layer's saved input on the host (%.6g, got %.6g)",
	      want, (double)y.host);
	CHECK(x.peak_phase == GS_PH_LOSS && y.peak_phase == GS_PH_LOSS &&
	          near((double)x.allocated - (double)y.allocated, want, 1e-9),
	      "engine: ... and takes them off the GPU at the loss (%.6g, got %.6g)", want,
	      (double)x.allocated - (double)y.allocated);
	gs_settings i = base("inference", "bf16", NULL);
	CHECK(gs_settings_set(&i, "offload", "activations", &e) == GS_OK && gs_settings_check(&i, &e) == GS_EUSAGE &&
	          strstr(e.msg, "--offload activations"),
	      "settings: --offload activations with inference is a usage error naming it");
}

static void pipeline(void)
{
	/* --sharding pipeline: layers split in order, ceil(80 / 3) = 27 of
	 * Llama-3.1-70B's 80 on the most loaded of 3 GPUs, with (as a bound)
	 * the embedding, head and final norm: 2 x (2 x 128256 x 8192 + 8192)
	 * bytes in bf16. */
	gs_arch a = load("meta-llama--Llama-3.1-70B.config.json");
	gs_settings s = base("inference", "bf16", NULL);
	gs_estimate one = run(&a, &s);
	set(&s, "gpus=3 sharding=pipeline");
	gs_estimate three = run(&a, &s);
	double rest = 2 * (2 * 128256.0 * 8192 + 8192);
	CHECK(near((double)three.W - rest, ((double)one.W - rest) * 27 / 80, 1e-9),
	      "engine: pipeline holds 27 of 80 layers plus embedding and head (%.6g, got %.6g)",
	      ((double)one.W - rest) * 27 / 80 + rest, (double)three.W);
	gs_settings f = base("full", "bf16", "adamw");
	gs_estimate f1 = run(&a, &f);
	set(&f, "gpus=4 sharding=pipeline");
	gs_estimate f4 = run(&a, &f);
	CHECK(f1.params_trainable == f4.params_trainable && f4.W < f1.W / 3,
	      "engine: pipeline reports the model's trainable parameters and a quarter of the layers' weights");
	gs_error e = {0};
	set(&f, "tp=2");
	CHECK(gs_settings_check(&f, &e) == GS_EUSAGE && strstr(e.msg, "--sharding pipeline"),
	      "settings: pipeline with --tp is a usage error naming it");
}

/* --pp: Megatron-Core's 1F1B stages, the first and the last sized apart. */
static void pipeline_1f1b(void)
{
	gs_error e = {0};
	/* Weights at the optimizer step (seq 1): Llama-3.1-70B (80 layers, h
	 * 8192, V 128256, untied) over 4 stages. The first holds 20 layers
	 * and the embedding, the last 20 layers, the head and the final norm
	 * (8192 more): the last is the larger, 2 x (Lw / 4 + Vh + h) bytes. */
	gs_arch a = load("meta-llama--Llama-3.1-70B.config.json");
	gs_settings f = base("full", "bf16", "adamw");
	double V = 128256, h = 8192, Lw = (double)a.params_total - 2 * V * h - h;
	set(&f, "gpus=4 pp=4");
	gs_estimate x = run(&a, &f);
	CHECK(near((double)x.W, 2 * (Lw / 4 + V * h + h), 1e-9) && x.params_trainable == a.params_total,
	      "engine: --pp 4 holds 20 of 80 layers and the head, and reports the model's parameters (%.6g, got %.6g)",
	      2 * (Lw / 4 + V * h + h), (double)x.W);
	CHECK(strstr(x.note, "--pp 4") != NULL, "engine: --pp says which stage it sized (%s)", x.note);
	/* Tied (Llama-3.2-1B, h 2048): the last stage's head is a copy of the
	 * embedding, so the two ends hold it twice. */
	gs_arch t = load("meta-llama--Llama-3.2-1B.config.json");
	double th = 2048, tLw = (double)t.params_total - V * th - th;
	gs_settings ft = base("full", "bf16", "adamw");
	set(&ft, "gpus=2 pp=2");
	gs_estimate xt = run(&t, &ft);
	CHECK(near((double)xt.W, 2 * (tLw / 2 + V * th + th), 1e-9),
	      "engine: --pp 2 of a tied model: the last stage holds a copy of the embedding (%.6g, got %.6g)",
	      2 * (tLw / 2 + V * th + th), (double)xt.W);
	/* In flight: Llama-3.1-8B over 8 stages, long sequences, no
	 * checkpointing, so the first stage peaks in its backward from 3
	 * micro-batches a step on. It holds min(8, m) of them: one more from m
	 * 3 to 4, five more from 3 to 8, none from 8 to 16 (the accumulated
	 * gradients live in all four). */
	gs_arch b = load("meta-llama--Llama-3.1-8B.config.json");
	gs_settings m = base("full", "bf16", "adamw");
	set(&m, "seq=8192 batch=2 grad-ckpt=false gpus=8 pp=8 grad-accum=3");
	gs_estimate m3 = run(&b, &m);
	set(&m, "grad-accum=4");
	gs_estimate m4 = run(&b, &m);
	set(&m, "grad-accum=8");
	gs_estimate m8 = run(&b, &m);
	set(&m, "grad-accum=16");
	gs_estimate m16 = run(&b, &m);
	double one = (double)m4.allocated - (double)m3.allocated;
	CHECK(one > 0 && strstr(m3.note, "first stage peaks") != NULL &&
	          near((double)m8.allocated - (double)m3.allocated, 5 * one, 1e-9) && m16.allocated == m8.allocated,
	      "engine: --pp 8's first stage holds min(8, m) micro-batches (one %.4g bytes; 3 to 8: %.4g; 8 to 16: %.4g)",
	      one, (double)m8.allocated - (double)m3.allocated, (double)m16.allocated - (double)m8.allocated);
	/* Interleaved (--vpp 2) over 4 stages, 8 micro-batches: the first
	 * stage runs 2 x 3 + 1 x 4 warm-up chunk forwards, so 11 chunks of 4
	 * layers are in flight against 1F1B's 4 micro-batches of 8 layers:
	 * 1.5 more micro-batches of the stage's layers (Megatron's 1 + (pp -
	 * 1) / (pp x vpp) = 1.375 of them) and 7 more chunk inputs (2 x 4096 x
	 * 16384 bytes each). A micro-batch of the stage's layers with its
	 * input is what one more in flight adds (m 2 to 3). */
	set(&m, "gpus=4 pp=4 grad-accum=2");
	gs_estimate v2 = run(&b, &m);
	set(&m, "grad-accum=3");
	gs_estimate v3 = run(&b, &m);
	set(&m, "grad-accum=8");
	gs_estimate v8 = run(&b, &m);
	set(&m, "vpp=2");
	gs_estimate vi = run(&b, &m);
	double in = 2.0 * 4096 * 16384, mb = (double)v3.allocated - (double)v2.allocated;
	CHECK(near((double)vi.allocated - (double)v8.allocated, 1.5 * (mb - in) + 7 * in, 1e-9),
	      "engine: --vpp 2 over 4 stages holds 11 chunks in flight, 1.5 stage micro-batches and 7 inputs more "
	      "(%.6g, got %.6g)", 1.5 * (mb - in) + 7 * in, (double)vi.allocated - (double)v8.allocated);
	set(&m, "vpp=1");
	/* one micro-batch in flight and 128256 logits a token: the last stage
	 * (the head, the logits and the loss) is the larger */
	set(&m, "pp=2 grad-accum=1");
	gs_estimate last = run(&b, &m);
	CHECK(strstr(last.note, "last stage peaks") != NULL, "engine: --pp 2, one micro-batch: the last stage peaks (%s)",
	      last.note);
	/* more stages than layers */
	gs_arch g2 = load("openai-community--gpt2.config.json");
	gs_settings sg = base("full", "bf16", "adamw");
	gs_estimate xg;
	set(&sg, "gpus=16 pp=16");
	CHECK(gs_estimate_run(&g2, &sg, &xg, &e) == GS_EUSAGE && strstr(e.msg, "12 layers"),
	      "engine: --pp 16 of GPT-2's 12 layers is a usage error (%s)", e.msg);
	e = (gs_error){0};
	/* what does not combine */
	set(&m, "pp=1 vpp=2");
	CHECK(gs_settings_check(&m, &e) == GS_EUSAGE && strstr(e.msg, "--vpp 2") && strstr(e.msg, "--pp"),
	      "settings: --vpp without --pp is a usage error (%s)", e.msg);
	e = (gs_error){0};
	set(&m, "vpp=1 pp=2 gpus=8");
	set(&m, "grad-accum=1 sharding=zero3");
	CHECK(gs_settings_check(&m, &e) == GS_EUSAGE && strstr(e.msg, "--pp") && strstr(e.msg, "zero3"),
	      "settings: --pp under zero3 is a usage error naming both (%s)", e.msg);
	set(&m, "sharding=ddp gpus=6 pp=4");
	e = (gs_error){0};
	CHECK(gs_settings_check(&m, &e) == GS_EUSAGE && strstr(e.msg, "--pp 4") && strstr(e.msg, "--gpus 6"),
	      "settings: --pp that does not divide --gpus is a usage error (%s)", e.msg);
	gs_settings i = base("inference", "bf16", NULL);
	set(&i, "gpus=2 pp=2");
	e = (gs_error){0};
	CHECK(gs_settings_check(&i, &e) == GS_EUSAGE && strstr(e.msg, "--sharding pipeline"),
	      "settings: --pp for inference is a usage error pointing to --sharding pipeline (%s)", e.msg);
	/* the key: pp only where it is not 1, so that every other row keeps its id */
	char k1[GS_KEY_MAX], k2[GS_KEY_MAX];
	gs_settings_key(&f, k2, sizeof k2);
	set(&f, "pp=1");
	gs_settings_key(&f, k1, sizeof k1);
	CHECK(strstr(k1, "pp=") == NULL && strstr(k2, ";pp=4;") != NULL, "settings: the key names pp only when not 1");
}

/* --ep: a rank holds 1/ep of the routed experts; what a sharding splits
 * stays its share. */
static void expert_parallel(void)
{
	gs_error e = {0};
	/* Qwen3-30B-A3B: 48 layers of 128 experts, gate, up and down of 2048 x
	 * 768 each: 48 x 128 x 3 x 2048 x 768 routed parameters. Full bf16
	 * training at seq 1 over 8 GPUs. */
	gs_arch a = load("Qwen--Qwen3-30B-A3B.config.json");
	double routed = 48.0 * 128 * 3 * 2048 * 768;
	gs_settings s = base("full", "bf16", "adamw");
	set(&s, "gpus=8");
	gs_estimate d1 = run(&a, &s);
	set(&s, "ep=8");
	gs_estimate d8 = run(&a, &s);
	/* under ddp every copy is a rank's own: weights, gradients and the two
	 * bf16 AdamW states lose 7/8 of the experts, 2 bytes each */
	CHECK(near((double)d1.W - (double)d8.W, 2 * routed * 7 / 8, 1e-9) &&
	          near((double)d1.O - (double)d8.O, 4 * routed * 7 / 8, 1e-9) && d8.params_trainable == d1.params_trainable,
	      "engine: --ep 8 under ddp holds 1/8 of the experts' weights and states, and reports the model's "
	      "parameters (%.6g, got %.6g)", 2 * routed * 7 / 8, (double)d1.W - (double)d8.W);
	/* zero3: the experts' shards are over 8 / 8 = 1 rank of the same
	 * experts, not 8: a rank's share is unchanged */
	set(&s, "sharding=zero3 ep=1");
	gs_estimate z1 = run(&a, &s);
	set(&s, "ep=8");
	gs_estimate z8 = run(&a, &s);
	CHECK(z1.W == z8.W && z1.G == z8.G && z1.O == z8.O,
	      "engine: --ep 8 under zero3: weights, gradients and states per GPU as without it");
	set(&s, "sharding=zero1 ep=1");
	gs_estimate o1 = run(&a, &s);
	set(&s, "ep=4");
	gs_estimate o4 = run(&a, &s);
	CHECK(o1.O == o4.O && near((double)o1.W - (double)o4.W, 2 * routed * 3 / 4, 1e-9),
	      "engine: --ep 4 under zero1: the states' shard as before, 3/4 of the experts' weights gone");
	/* what does not divide */
	set(&s, "gpus=6 ep=3 sharding=ddp");
	gs_estimate x;
	CHECK(gs_estimate_run(&a, &s, &x, &e) == GS_EUSAGE && strstr(e.msg, "128 routed experts"),
	      "engine: --ep 3 of 128 experts is a usage error naming them (%s)", e.msg);
	gs_arch d = load("meta-llama--Llama-3.1-8B.config.json");
	set(&s, "gpus=2 ep=2");
	e = (gs_error){0};
	CHECK(gs_estimate_run(&d, &s, &x, &e) == GS_EUSAGE && strstr(e.msg, "no routed experts"),
	      "engine: --ep on a dense model is a usage error (%s)", e.msg);
	set(&s, "gpus=8 tp=2 pp=2 ep=4");
	e = (gs_error){0};
	CHECK(gs_settings_check(&s, &e) == GS_EUSAGE && strstr(e.msg, "--ep 4") && strstr(e.msg, "= 2"),
	      "settings: --ep beyond the data-parallel ranks is a usage error (%s)", e.msg);
}

static void ddp_inference(void)
{
	/* Inference has nothing to shard under DDP: two GPUs hold two whole
	 * copies (the same device figure as one), and the estimate says so;
	 * a layer split or tensor parallel is not a copy, and says nothing. */
	gs_arch a = load("meta-llama--Llama-3.1-70B.config.json");
	gs_settings s = base("inference", "bf16", NULL);
	gs_estimate one = run(&a, &s);
	set(&s, "gpus=2");
	gs_estimate two = run(&a, &s);
	CHECK(two.W == one.W && two.device == one.device && strstr(two.note, "whole copy") != NULL &&
	      strstr(two.note, "--tp 2") != NULL && strstr(two.note, "--sharding pipeline") != NULL,
	      "engine: inference on 2 GPUs under ddp is two whole copies, and the note says how to split (%s)",
	      two.note);
	set(&s, "sharding=pipeline");
	gs_estimate pp = run(&a, &s);
	CHECK(pp.note[0] == '\0' && pp.W < one.W, "engine: pipeline inference splits the model, no note");
	set(&s, "sharding=ddp tp=2");
	gs_estimate tp = run(&a, &s);
	CHECK(tp.note[0] == '\0' && tp.W < one.W, "engine: tensor-parallel inference splits the model, no note");
}

static void prefill_logits(void)
{
	/* Inference prefill of 32768 tokens on Llama-3.1-8B (V 128256, h 4096,
	 * 32 layers of 8 KV heads x 128): a plain forward (--logits all) peaks
	 * with the weights, the bf16 KV cache (32 x 2 x 1024 x 2 bytes a token),
	 * every position's bf16 logits and the last hidden states; generate()
	 * keeps one position's logits and peaks lower. */
	gs_arch a = load("meta-llama--Llama-3.1-8B.config.json");
	gs_settings s = base("inference", "bf16", NULL);
	set(&s, "seq=32768 logits=all");
	gs_estimate all = run(&a, &s);
	double T = 32768, want = (double)all.W + 32 * 2 * 1024 * 2 * T + T * 128256 * 2 + 2 * 4096 * T;
	CHECK(near((double)all.allocated, want, 1e-9), "engine: --logits all keeps every prompt position's logits (%.6g, got %.6g)",
	      want, (double)all.allocated);
	set(&s, "logits=last");
	gs_estimate last = run(&a, &s);
	CHECK(last.W == all.W && (double)last.allocated < want - 0.5 * T * 128256 * 2,
	      "engine: --logits last (generate) drops them: %.4g GiB against %.4g", (double)last.allocated / 1073741824.0,
	      (double)all.allocated / 1073741824.0);
	char l[256];
	gs_settings_label(&s, l, sizeof l);
	CHECK(strstr(l, "logits") == NULL, "settings: the default --logits last leaves the label alone (%s)", l);
	set(&s, "logits=all");
	gs_settings_label(&s, l, sizeof l);
	CHECK(strstr(l, " logits-all") != NULL, "settings: --logits all is in the label (%s)", l);
	/* older transformers' heads: logits.float(), 2 + 4 bytes an element */
	set(&s, "logits=all-fp32");
	gs_estimate f32 = run(&a, &s);
	CHECK(near((double)f32.allocated, want + T * 128256 * 4, 1e-9),
	      "engine: --logits all-fp32 holds the bf16 logits and their fp32 copy (%.6g, got %.6g)",
	      want + T * 128256 * 4, (double)f32.allocated);
}

static void generation(void)
{
	/* Llama-3.1-8B, batch 8, a 4096-token prompt and 4096 new tokens: the
	 * cache reaches 8 x 8192 = 65536 tokens of 32 layers x 2 x 1024 x 2
	 * bytes, 8 GiB. DynamicCache's last step holds the cache before it
	 * (65528 tokens) and one layer's keys rebuilt at 65536 (128 MiB); a
	 * legacy tuple cache holds the old and the new whole caches; a static
	 * cache is allocated full before the prefill. */
	gs_arch a = load("meta-llama--Llama-3.1-8B.config.json");
	gs_settings s = base("inference", "bf16", NULL);
	set(&s, "seq=4096 batch=8 new-tokens=4096");
	gs_estimate dyn = run(&a, &s);
	double tok = 32 * 2 * 1024 * 2.0, total = 65536, layer_half = 1024 * 2.0 * total;
	set(&s, "kv-cache=legacy");
	gs_estimate leg = run(&a, &s);
	CHECK(dyn.peak_phase == GS_PH_DECODE && leg.peak_phase == GS_PH_DECODE &&
	      near((double)leg.A - (double)dyn.A, tok * total - layer_half, 1e-9),
	      "engine: a legacy cache holds two whole caches at the last step, DynamicCache one and half a "
	      "layer (difference %.6g, got %.6g)", tok * total - layer_half, (double)leg.A - (double)dyn.A);
	/* sdpa expands one layer's keys and values to the 32 query heads for
	 * the step (repeat_kv): 2 x 32 x 128 x 65536 x 2 bytes */
	double expand = 2.0 * 32 * 128 * total * 2;
	CHECK((double)dyn.A >= tok * (total - 8) + layer_half + expand &&
	          (double)dyn.A < tok * total + layer_half + expand + 64e6,
	      "engine: DynamicCache at the last step: the cache and half a layer, one layer's keys and values "
	      "expanded to every head, plus one step's logits (%.6g)", (double)dyn.A);
	gs_settings f = s;
	set(&f, "kv-cache=dynamic attn=flash");
	gs_estimate fl = run(&a, &f);
	CHECK(near((double)dyn.A - (double)fl.A, expand, 1e-9),
	      "engine: flash-attn reads grouped keys and values as they are, sdpa expands them (%.6g, got %.6g)",
	      expand, (double)dyn.A - (double)fl.A);
	set(&s, "kv-cache=static");
	gs_estimate st = run(&a, &s);
	CHECK(st.peak_phase == GS_PH_PREFILL && (double)st.A > tok * total,
	      "engine: a static cache is full from the prefill on (peak in prefill, A %.6g > %.6g)",
	      (double)st.A, tok * total);
	set(&s, "kv-cache=dynamic new-tokens=0");
	gs_estimate none = run(&a, &s);
	CHECK(none.peak_phase == GS_PH_PREFILL && none.A < dyn.A, "engine: no new tokens: the prefill's peak");
	char l[256];
	set(&s, "new-tokens=4096 kv-cache=legacy");
	gs_settings_label(&s, l, sizeof l);
	CHECK(strstr(l, " +4096 new") && strstr(l, " legacy-cache"), "settings: new tokens and the cache in the label (%s)", l);
}

/* gpt-fast / torchao generate.py (torchao/_models/llama): Llama-3.1-8B,
 * bf16, a 6-token prompt and 131066 new tokens, so a static cache of
 * L = 131072 positions, which every decode step attends over whole.
 * static-mask adds setup_caches' [L, L] bool causal mask (L^2 bytes, 2 L^2
 * while tril(ones) builds it). SDPA's math backend (forced for decode)
 * adds, over the keys and values already expanded to the 32 query heads,
 * fp32 copies of both and a scaled fp32 key (3 x 4 x 32 x 128 x L bytes)
 * and fp32 scores and probabilities (2 x 4 x 32 x L). An int8 cache
 * stores 1 byte a value and a bf16 scale per token and head (2/128 a
 * value): 32 layers x 2048 x L x (2 - 1 - 2/128) bytes fewer than bf16;
 * its dequantized layer copy is freed once expanded, so the step's
 * widest moment is the same. */
static void gpt_fast_decode(void)
{
	gs_arch a = load("meta-llama--Llama-3.1-8B.config.json");
	gs_settings s = base("inference", "bf16", NULL);
	double L = 131072;
	set(&s, "seq=6 new-tokens=131066 kv-cache=static");
	gs_estimate sd = run(&a, &s);
	set(&s, "attn=math");
	gs_estimate ma = run(&a, &s);
	double mathx = 3 * 4 * 32 * 128 * L + 2 * 4 * 32 * L;
	/* (plus the step's one-token share of a layer's working tensors, which
	 * math widens by a few KB: 1e-5 of the figure) */
	CHECK(ma.peak_phase == GS_PH_DECODE && near((double)ma.allocated - (double)sd.allocated, mathx, 1e-5),
	      "engine: SDPA's math backend holds fp32 copies of the expanded keys and values and a scaled fp32 key "
	      "over the whole cache (%.6g more, got %.6g)", mathx, (double)ma.allocated - (double)sd.allocated);
	set(&s, "kv-cache=static-mask");
	gs_estimate mk = run(&a, &s);
	CHECK(near((double)mk.allocated - (double)ma.allocated, L * L, 1e-9) && (double)mk.allocated >= (double)mk.W + 2 * L * L,
	      "engine: gpt-fast's causal-mask buffer is L^2 bytes beside the static cache, 2 L^2 while it is built "
	      "(%.6g more, got %.6g)", L * L, (double)mk.allocated - (double)ma.allocated);
	set(&s, "kv-cache=static kv-dtype=int8");
	gs_estimate i8 = run(&a, &s);
	double cache_less = 32 * 2048 * L * (2 - 1 - 2.0 / 128);
	CHECK(near((double)ma.allocated - (double)i8.allocated, cache_less, 1e-9),
	      "engine: an int8 KV cache with a bf16 scale per token and head (%.6g fewer bytes, got %.6g)", cache_less,
	      (double)ma.allocated - (double)i8.allocated);
	/* the math backend is modelled for inference only */
	gs_settings t = base("full", "amp-bf16", "adamw");
	gs_error e = {0};
	set(&t, "attn=math");
	CHECK(gs_settings_check(&t, &e) == GS_EUSAGE && strstr(e.msg, "--attn math") != NULL,
	      "settings: --attn math for training is refused, naming the flag (%s)", e.msg);
	char l[256];
	set(&s, "kv-cache=static-mask");
	gs_settings_label(&s, l, sizeof l);
	CHECK(strstr(l, " math") && strstr(l, " static-mask-cache"), "settings: the math backend and the mask in the label (%s)", l);
}

/* --fused-qkv: litgpt's CausalSelfAttention and LoRAQKVLinear
 * (lit_gpt/lora.py), per token and layer, LoRA r 8 on a bf16 base with
 * bf16 adapters and dropout, b1 s512, at the loss (every layer's saved
 * activations live). Separate PEFT modules on q_proj and v_proj each keep
 * a dropped-out input copy and its bool mask (2 x 3h) and their A outputs
 * (2 x 2r x 2). The fused adapter keeps one copy (3h), lora_A's output
 * (2 slices x r x 2), and zero_pad's index_copy source: the q and v
 * slices' output (2 x (q + kv)). Under MHA the value reaches SDPA as a
 * view of the fused output, whose q and k parts stay alive too
 * (2 x (q + kv)); GQA expands (copies) the value, so nothing stays. The
 * CPU probe of these saved tensors (torch 1.13, saved_tensors_hooks) is
 * described in docs/engine.md. */
static void fused_qkv(void)
{
	gs_arch mha = gs_arch_from("tests/accuracy/models/meta-llama--Llama-2-7b-hf.config.json");
	gs_settings s = base("lora", "bf16", "adamw");
	set(&s, "adapter-dtype=bf16 lora-r=8 lora-targets=qv lora-dropout=0.05 seq=512 loss=chunked");
	gs_estimate sep = run(&mha, &s);
	set(&s, "fused-qkv=true");
	gs_estimate fu = run(&mha, &s);
	double h = 4096, T = 512, L = 32, r = 8;
	double want = L * T * ((3 * h + 2 * r * 2 + 2 * (h + h) + 2 * (h + h)) - (2 * 3 * h + 2 * 2 * r * 2));
	CHECK(sep.peak_phase == GS_PH_LOSS && fu.peak_phase == GS_PH_LOSS && near((double)fu.A - (double)sep.A, want, 1e-12),
	      "engine: litgpt's fused qkv adapter on Llama-2-7B (MHA): one dropout copy, the zero-pad source and the "
	      "fused output a value view keeps (%.6g more, got %.6g)", want, (double)fu.A - (double)sep.A);
	CHECK(fu.params_trainable == sep.params_trainable,
	      "engine: the fused adapter trains as many parameters as the separate ones");

	gs_arch gqa = load("TinyLlama--TinyLlama-1.1B-Chat-v1.0.config.json");
	double th = 2048, kv = 256, TL = 22;
	gs_settings t = base("lora", "bf16", "adamw");
	set(&t, "adapter-dtype=bf16 lora-r=8 lora-targets=qv lora-dropout=0.05 seq=512 loss=chunked");
	gs_estimate tsep = run(&gqa, &t);
	set(&t, "fused-qkv=true");
	gs_estimate tfu = run(&gqa, &t);
	double twant = TL * T * ((3 * th + 2 * r * 2 + 2 * (th + kv)) - (2 * 3 * th + 2 * 2 * r * 2));
	CHECK(tsep.peak_phase == tfu.peak_phase && near((double)tfu.A - (double)tsep.A, twant, 1e-12),
	      "engine: TinyLlama (GQA) expands its value, so only the adapter changes (%.6g, got %.6g)", twant,
	      (double)tfu.A - (double)tsep.A);
	/* all three slices: no zero_pad (litgpt returns the adapters' output as
	 * it is), one copy against three */
	set(&t, "lora-targets=q_proj,k_proj,v_proj fused-qkv=false");
	gs_estimate asep = run(&gqa, &t);
	set(&t, "fused-qkv=true");
	gs_estimate afu = run(&gqa, &t);
	double awant = TL * T * ((3 * th + 3 * r * 2) - 3 * (3 * th + r * 2 * 2));
	CHECK(asep.peak_phase == afu.peak_phase && near((double)afu.A - (double)asep.A, awant, 1e-12),
	      "engine: q, k and v all adapted: one fused adapter, no zero-pad source (%.6g, got %.6g)", awant,
	      (double)afu.A - (double)asep.A);
	char l[256];
	gs_settings_label(&t, l, sizeof l);
	CHECK(strstr(l, " fused-qkv") != NULL, "settings: the row label says fused-qkv (%s)", l);
}

/* --bnb-saves and --held-logits: how long bitsandbytes' 4-bit matmul
 * keeps its input. Llama-3.1-8B QLoRA (nf4, no k-bit cast, bf16 q/v
 * adapters with dropout), one 512-token sequence, no checkpointing; the
 * loss is the peak. Before 0.43.2 every quantized linear keeps its input
 * (q/k/v's, o_proj's, gate/up's and down's): 2 x (3h + i) bytes a token
 * and layer more. --held-logits: the previous micro-batch's logits and
 * those ctx-held inputs live until this one's model returns, so the end
 * of the forward (before the fp32 log-probs of the chunked loss) is the
 * peak, ctx + logits - 4 x V x T above the loss. */
static void bnb_lifetime(void)
{
	gs_arch a = load("meta-llama--Llama-3.1-8B.config.json");
	gs_settings s = base("qlora", "nf4", "adamw");
	set(&s, "kbit-prep=off adapter-dtype=bf16 lora-r=8 lora-targets=qv lora-dropout=0.05 seq=512 loss=chunked");
	gs_estimate w = run(&a, &s);
	set(&s, "bnb-saves=input");
	gs_estimate in = run(&a, &s);
	double L = 32, T = 512, h = 4096, i = 14336, V = 128256;
	double ctx = L * T * 2 * (3 * h + i);
	CHECK(w.peak_phase == GS_PH_LOSS && in.peak_phase == GS_PH_LOSS && near((double)in.A - (double)w.A, ctx, 1e-12),
	      "engine: bitsandbytes before 0.43.2 keeps every 4-bit linear's input (%.6g more, got %.6g)", ctx,
	      (double)in.A - (double)w.A);
	set(&s, "held-logits=true");
	gs_estimate held = run(&a, &s);
	double want = ctx + 2 * V * T - 4 * V * T;
	CHECK(held.peak_phase == GS_PH_FORWARD && held.peak_step == 2 && near((double)held.A - (double)in.A, want, 1e-12),
	      "engine: the held logits and their graph's ctx inputs make the forward's end the peak (%.6g above the "
	      "loss, got %.6g)", want, (double)held.A - (double)in.A);
	set(&s, "bnb-saves=weight");
	gs_estimate lo = run(&a, &s);
	CHECK(lo.peak_phase == GS_PH_LOSS && lo.A == w.A,
	      "engine: held 16-bit logits alone stay under the fp32 log-probabilities (peak %s)", gs_phase_name(lo.peak_phase));
	set(&s, "grad-ckpt=true bnb-saves=input held-logits=false");
	gs_estimate ck_in = run(&a, &s);
	set(&s, "held-logits=true");
	gs_estimate ck_held = run(&a, &s);
	CHECK(ck_held.allocated <= ck_in.allocated + 2 * V * T && ck_held.allocated >= ck_in.allocated,
	      "engine: under checkpointing the recomputed layers' graphs go, so at most the logits are held (%.6g, got %.6g)",
	      2 * V * T, (double)ck_held.allocated - (double)ck_in.allocated);
	char l[256];
	gs_settings_label(&s, l, sizeof l);
	CHECK(strstr(l, "bnb-saves-input") != NULL && strstr(l, "held-logits") != NULL,
	      "settings: the row label names both (%s)", l);
}

/* The fused losses, by hand, on a manual shape whose vocabulary dwarfs one
 * 64-wide layer (1 layer, 1 head, MLP 128, vocabulary 10^6), checkpointed:
 * the loss is the peak, and what is live there is the embeddings' output,
 * the layer's checkpoint (each bf16, h x T), the final RMSNorm's fp32
 * copy (4 h T), the hidden states' gradient with the per-token losses
 * (2 h T + 4 T) and one chunk: Liger's rows = next_power_of_2(ceil(T /
 * ceil(V / h))), its 16-bit logits and input gradient (2 V + 2 h a row);
 * Unsloth's chunk count makes its fp32 logits fit 4 GiB, a multiple of 4,
 * and a row holds 16-bit logits and an fp32 gradient (6 V + 2 h). */
static void fused_losses(void)
{
	gs_arch a;
	gs_error e = {0};
	const double h = 64, V = 1e6;

	if (gs_arch_manual(&a, 0, 1, 64, 1, 1, 128, 1000000, &e) != GS_OK) {
		CHECK(0, "manual arch: %s", e.msg);
		return;
	}
	gs_settings s = base("lora", "bf16", "adamw");
	set(&s, "lora-r=8 lora-dropout=0 grad-ckpt=true loss=fused seq=16");
	gs_estimate x = run(&a, &s);
	double T = 16, rows = 1; /* ceil(16 / ceil(1e6 / 64)) = 1 */
	double live = 2 * h * T + 2 * h * T + 4 * h * T + (2 * h * T + 4 * T);
	CHECK(x.peak_phase == GS_PH_LOSS && near((double)x.A, live + rows * (2 * V + 2 * h), 1e-12),
	      "engine: Liger's fused loss holds one row of logits, no more (A %.6g, got %.6g at %s)",
	      live + rows * (2 * V + 2 * h), (double)x.A, gs_phase_name(x.peak_phase));
	set(&s, "loss=fused-chunks seq=16");
	x = run(&a, &s);
	T = 16;
	live = 2 * h * T + 2 * h * T + 4 * h * T + (2 * h * T + 4 * T);
	CHECK(x.peak_phase == GS_PH_LOSS && near((double)x.A, live + T * (6 * V + 2 * h), 1e-12),
	      "engine: Unsloth's fused loss in one chunk where its fp32 logits fit 4 GiB (A %.6g, got %.6g)",
	      live + T * (6 * V + 2 * h), (double)x.A);
	set(&s, "seq=2048");
	x = run(&a, &s);
	T = 2048; /* 2048 x 10^6 x 4 bytes = 1.91 x 4 GiB: 4 chunks of 512 rows */
	live = 2 * h * T + 2 * h * T + 4 * h * T + (2 * h * T + 4 * T);
	CHECK(x.peak_phase == GS_PH_LOSS && near((double)x.A, live + 512 * (6 * V + 2 * h), 1e-12),
	      "engine: Unsloth's chunk count rounds up to a multiple of 4 (A %.6g, got %.6g)",
	      live + 512 * (6 * V + 2 * h), (double)x.A);
	/* Full fine-tuning: the head's gradient exists from the loss on (4 V h
	 * bytes under amp-bf16), and Liger's torch.mm(...).float() makes a
	 * 16-bit and an fp32 copy of it for a moment. */
	gs_settings f = base("full", "amp-bf16", "adamw-fused");
	set(&f, "grad-ckpt=true loss=fused seq=16");
	x = run(&a, &f);
	CHECK(x.peak_phase == GS_PH_LOSS && near((double)x.G, 4 * V * h, 1e-12),
	      "engine: a trained head's gradient is made by the fused loss's forward (G %.6g, got %.6g at %s)",
	      4 * V * h, (double)x.G, gs_phase_name(x.peak_phase));
}

/* --ckpt-offload (Unsloth's offloaded checkpointing) on Llama-3.2-1B LoRA,
 * 4096 tokens: each of the 16 layers' checkpoint (bf16, 2 h T = 16 MiB)
 * goes to the host; the GPU keeps the last layer's and two buffers of one.
 * At the peak, the same moment either way, that is 16 - 3 checkpoints
 * less. */
static void ckpt_offload(void)
{
	gs_arch a = load("meta-llama--Llama-3.2-1B.config.json");
	gs_settings s = base("lora", "bf16", "adamw");
	set(&s, "lora-dropout=0 grad-ckpt=true seq=4096");
	gs_estimate on_gpu = run(&a, &s);
	set(&s, "ckpt-offload=true");
	gs_estimate off = run(&a, &s);
	double ck = 2.0 * 2048 * 4096, L = 16;
	CHECK(near((double)off.host, L * ck, 1e-12), "engine: the checkpoints on the host (%.6g, got %.6g)", L * ck,
	      (double)off.host);
	CHECK(on_gpu.peak_phase == off.peak_phase && on_gpu.peak_step == 2 && off.peak_step == 2 &&
	      near((double)on_gpu.allocated - (double)off.allocated, (L - 3) * ck, 1e-12),
	      "engine: the GPU keeps the last checkpoint and two buffers (%.6g less, got %.6g, at the %s of step %d)",
	      (L - 3) * ck, (double)on_gpu.allocated - (double)off.allocated, gs_phase_name(off.peak_phase),
	      off.peak_step);
	set(&s, "grad-ckpt=false");
	gs_error e = {0};
	gs_estimate x;
	CHECK(gs_estimate_run(&a, &s, &x, &e) == GS_EUSAGE, "engine: --ckpt-offload without checkpointing is refused (%s)",
	      e.msg);
}

/* --awq-fuse: AutoAWQ's from_quantized(fuse_layers=True) concatenates
 * each layer's q, k and v into one WQLinear while the unfused modules are
 * still held, so loading peaks with every q, k and v twice. Mistral-7B
 * (GQA: k and v 4096 x 1024), awq-int4 (4-bit codes, a group-128 scale and
 * zero at 2.5 bytes, a 4-byte entry per output): at a 64-token prompt the
 * load is the peak, the weights plus that copy; at 2048 the prefill is,
 * unchanged. */
static void awq_fuse(void)
{
	gs_arch a = load("mistralai--Mistral-7B-v0.1.config.json");
	gs_settings s = base("inference", "awq-int4", NULL);
	set(&s, "seq=64 logits=all attn=eager-upcast");
	gs_estimate plain = run(&a, &s);
	set(&s, "awq-fuse=true");
	gs_estimate fused = run(&a, &s);
	double L = 32, h = 4096, kv = 1024, g = 2.5 / 128;
	double want = L * (h * h * (0.5 + g + 4 / h) + 2 * h * kv * (0.5 + g + 4 / kv));
	double got = (double)fused.allocated - (double)fused.W;
	CHECK(fused.peak_phase == GS_PH_LOAD && near(got, want, 1e-12) && fused.W == plain.W &&
	      fused.allocated > plain.allocated,
	      "engine: AutoAWQ's fuser holds every layer's q, k and v twice at load (%.6g above the weights, got %.6g, "
	      "peak %s)", want, got, gs_phase_name(fused.peak_phase));
	set(&s, "seq=2048 awq-fuse=false");
	gs_estimate long_plain = run(&a, &s);
	set(&s, "awq-fuse=true");
	gs_estimate long_fused = run(&a, &s);
	CHECK(long_fused.allocated == long_plain.allocated && long_fused.peak_phase == long_plain.peak_phase,
	      "engine: a 2048-token prefill stays above the fused load");
	gs_error e = {0};
	gs_settings_set(&s, "precision", "bf16", &e);
	CHECK(gs_settings_check(&s, &e) == GS_EUSAGE && strstr(e.msg, "--awq-fuse") != NULL,
	      "settings: --awq-fuse refuses a precision that is not awq-int4 (%s)", e.msg);
}

/* --attn math-legacy: SDPA's math backend before PyTorch 2.5, where SDPA
 * falls back when its fused kernels refuse unequal head counts (2023
 * lit-gpt handed Falcon-7B's one key/value head to it unexpanded). Per
 * layer and sequence of s tokens, LoRA on a bf16 base, at the loss:
 * sdpa saves q, k and v expanded to the 71 query heads, the output and a
 * log-sum-exp a head; math-legacy saves the scaled q, the one-head k
 * and v, the output, and the 16-bit softmax of every score. */
static void math_legacy(void)
{
	gs_arch a = gs_arch_from("tests/accuracy/models/tiiuae--falcon-7b-litgpt-untied.config.json");
	gs_settings s = base("lora", "bf16", "adamw");
	set(&s, "adapter-dtype=bf16 lora-r=8 seq=256 loss=chunked");
	gs_estimate sd = run(&a, &s);
	set(&s, "attn=math-legacy");
	gs_estimate ml = run(&a, &s);
	double q = 71 * 64, kv = 64, nh = 71, S = 256, L = 32;
	double want = L * (S * ((2 * kv - 2 * q) * 2 - 4 * nh) + 2 * nh * S * S);
	CHECK(sd.peak_phase == GS_PH_LOSS && ml.peak_phase == GS_PH_LOSS && near((double)ml.A - (double)sd.A, want, 1e-12),
	      "engine: math-legacy on Falcon-7B keeps 16-bit scores and unexpanded keys and values (%.6g more, got %.6g)",
	      want, (double)ml.A - (double)sd.A);
	gs_error e = {0};
	CHECK(gs_settings_check(&s, &e) == GS_OK, "settings: math-legacy is modelled for training (%s)", e.msg);
}

/* Issue 13 item 4: the loss buffers' precision. Qwen2.5-0.5B (vocab
 * 151,936), full bf16, one 8192-token sequence: the loss's backward is the
 * peak, where the 16-bit logits, the saved log-probabilities and their two
 * gradients live: 2 + 4 + 2 x 4 bytes an element up-cast to fp32, 2 + 2 +
 * 2 x 2 at the compute dtype, 6 x V x T apart. transformers' heads up-cast,
 * so auto is fp32 there; Qwen v1's head does not, so a full bf16 run with
 * no autocast gets 16-bit buffers, and amp-bf16 (autocast) fp32 again. */
static void loss_dtype(void)
{
	gs_arch a = load("Qwen--Qwen2.5-0.5B.config.json");
	gs_settings s = base("full", "bf16", "adamw");
	set(&s, "seq=8192");
	gs_estimate au = run(&a, &s);
	set(&s, "loss-dtype=fp32");
	gs_estimate f32 = run(&a, &s);
	set(&s, "loss-dtype=compute");
	gs_estimate c16 = run(&a, &s);
	double want = 6.0 * 151936 * 8192;
	CHECK(au.allocated == f32.allocated && f32.peak_phase == GS_PH_BACKWARD && c16.peak_phase == GS_PH_BACKWARD &&
	          near((double)f32.A - (double)c16.A, want, 1e-9),
	      "engine: fp32 loss buffers hold 6 x V x T bytes more than 16-bit ones at the loss's backward (%.6g, "
	      "got %.6g); auto is fp32 for transformers' heads",
	      want, (double)f32.A - (double)c16.A);

	/* transformers before 4.46 return logits.float(): fp32 logits live
	 * where 16-bit ones did, 2 x V x T bytes more at the same moment */
	set(&s, "loss-dtype=auto loss=legacy");
	gs_estimate lg = run(&a, &s);
	CHECK(lg.peak_phase == GS_PH_BACKWARD && near((double)lg.A - (double)au.A, 2.0 * 151936 * 8192, 1e-9),
	      "engine: --loss legacy holds the logits in fp32 (%.6g, got %.6g)", 2.0 * 151936 * 8192,
	      (double)lg.A - (double)au.A);

	gs_arch q = gs_arch_from("tests/accuracy/models/set2/Qwen--Qwen-1_8B-Chat.json");
	gs_settings t = base("full", "bf16", "adamw");
	set(&t, "seq=4096");
	gs_estimate qa = run(&q, &t);
	set(&t, "loss-dtype=compute");
	gs_estimate qc = run(&q, &t);
	set(&t, "loss-dtype=auto precision=amp-bf16");
	gs_estimate qm = run(&q, &t);
	set(&t, "loss-dtype=fp32");
	gs_estimate qf = run(&q, &t);
	CHECK(q.loss_16bit && qa.allocated == qc.allocated && qm.allocated == qf.allocated,
	      "engine: Qwen v1's head hands 16-bit logits to the loss: auto is 16-bit with no autocast (bf16), "
	      "fp32 under autocast (amp-bf16)");
}

/* Issue 13 item 5: DeepSpeed ZeRO-1/2 as stage_1_and_2.py allocates. */
static void deepspeed_zero12(void)
{
	/* The step of stage 1 on N ranks holds the fp32 master and Adam states
	 * of its partition (12 bytes a parameter), and converts the partition's
	 * gradients: flatten(...) (16-bit, 2) .to(fp32) (4): 18 P / N in all,
	 * so 4 ranks hold 18 P / 8 more than 8 ranks. Llama-3.1-8B full
	 * mixed-bf16, seq 1: the step is the peak. */
	gs_arch a = load("meta-llama--Llama-3.1-8B.config.json");
	gs_settings s = base("full", "mixed-bf16", "adamw-fused");
	set(&s, "sharding=zero1 gpus=4");
	gs_estimate z4 = run(&a, &s);
	set(&s, "gpus=8");
	gs_estimate z8 = run(&a, &s);
	double P = (double)a.params_total;
	CHECK(z4.peak_phase == GS_PH_OPTIMIZER && z8.peak_phase == GS_PH_OPTIMIZER &&
	          near((double)z4.allocated - (double)z8.allocated, 18 * P / 8, 1e-6),
	      "engine: zero1's step holds 12 + 2 + 4 bytes a parameter of its partition (%.6g, got %.6g)",
	      18 * P / 8, (double)z4.allocated - (double)z8.allocated);
	/* Stage 2 shards the 16-bit gradients too: 2 P - 2 P / 8 fewer. */
	set(&s, "sharding=zero2");
	gs_estimate s8 = run(&a, &s);
	CHECK(s8.peak_phase == GS_PH_OPTIMIZER && near((double)z8.allocated - (double)s8.allocated, 2 * P - 2 * P / 8, 1e-6),
	      "engine: zero2's step holds a gradient partition, zero1's every gradient (%.6g, got %.6g)",
	      2 * P - 2 * P / 8, (double)z8.allocated - (double)s8.allocated);

	/* Stage 2's backward() allocates the ipg buffer at reduce_bucket_size
	 * (5e8 elements, 1e9 bytes in bf16) whatever the model's size: GPT-2
	 * (124 M parameters, 248 MB of bf16 gradients) on 8 ranks peaks in
	 * backward with that buffer on top of the weights and, from the second
	 * step on, its master and states shard (12 bytes / 8); its gradient
	 * shard (31 MB) is still filling. */
	gs_arch g = load("openai-community--gpt2.config.json");
	gs_settings z = base("full", "mixed-bf16", "adamw-fused");
	set(&z, "sharding=zero2 gpus=8");
	gs_estimate ge = run(&g, &z);
	double gp = (double)g.params_total, floor_ = 2 * gp + 12 * gp / 8 + 1e9;
	CHECK(ge.peak_phase == GS_PH_BACKWARD && (double)ge.allocated >= floor_ && (double)ge.allocated < floor_ + 64e6,
	      "engine: zero2's ipg buffer is reduce_bucket_size elements whatever the model (allocated %.6g, want "
	      "%.6g to +64 MB)", (double)ge.allocated, floor_);

	/* overlap_comm: a second ipg buffer (another 1e9 bytes); "auto"
	 * (--zero-bucket 0) is hidden_size^2 = 768^2 elements instead of 5e8 */
	set(&z, "overlap-comm=true");
	gs_estimate go = run(&g, &z);
	CHECK(go.peak_phase == GS_PH_BACKWARD && near((double)go.allocated - (double)ge.allocated, 1e9, 1e-9),
	      "engine: zero2 with overlap_comm holds two ipg buffers (1e9 bytes more, got %.6g)",
	      (double)go.allocated - (double)ge.allocated);
	set(&z, "overlap-comm=false zero-bucket=0");
	gs_estimate ga = run(&g, &z);
	/* backward loses that much; the peak may move to the step */
	double less = (5e8 - 768.0 * 768) * 2, got = (double)ge.allocated - (double)ga.allocated;
	CHECK(got <= less * (1 + 1e-9) && (ga.peak_phase != GS_PH_BACKWARD || near(got, less, 1e-9)) && got > 0.5 * less,
	      "engine: reduce_bucket_size \"auto\" is hidden_size^2 (backward %.6g fewer bytes, peak %.6g fewer)",
	      less, got);
	/* Stage 3 keeps its contiguous gradient bucket from the optimizer's
	 * construction on: the whole 5e8 - 4096^2 elements of 16 bits apart at
	 * any peak of Llama-3.1-8B, whatever overlap_comm says. */
	set(&s, "sharding=zero3 gpus=8 seq=2048 grad-ckpt=true");
	gs_estimate d3 = run(&a, &s);
	set(&s, "zero-bucket=0");
	gs_estimate a3 = run(&a, &s);
	set(&s, "overlap-comm=true");
	gs_estimate o3 = run(&a, &s);
	CHECK(near((double)d3.allocated - (double)a3.allocated, (5e8 - 4096.0 * 4096) * 2, 1e-9) && o3.allocated == a3.allocated,
	      "engine: zero3's bucket is reduce_bucket_size elements from the start, one with overlap_comm "
	      "(%.6g, got %.6g)", (5e8 - 4096.0 * 4096) * 2, (double)d3.allocated - (double)a3.allocated);

	/* DeepSpeed casts the module, adapters included, to 16 bits and keeps
	 * an fp32 master partition with fp32 states: 2 bytes of gradient, 4 + 8
	 * of state a trainable parameter, whatever --adapter-dtype says. */
	gs_settings l = base("lora", "bf16", "adamw");
	set(&l, "adapter-dtype=fp32 sharding=zero2 gpus=2");
	gs_estimate le = run(&a, &l);
	set(&l, "sharding=ddp");
	gs_estimate ld = run(&a, &l);
	CHECK(le.bpp_G == 2 && le.bpp_O == 12 && ld.bpp_G == 4 && ld.bpp_O == 8,
	      "engine: LoRA under zero2 has 16-bit adapters with fp32 master and states (G %.2f O %.2f; ddp %.2f %.2f)",
	      le.bpp_G, le.bpp_O, ld.bpp_G, ld.bpp_O);
}

/* Issue 13 item 6: quantized bases per backend. */
static void quantized_backends(void)
{
	/* PEFT's prepare_model_for_kbit_training casts what is not quantized
	 * to fp32: on Qwen2.5-7B (untied, 544,997,376 parameters each in the
	 * embedding and the head) 2 more bytes for each of them and the norms,
	 * and under the HF Trainer's autocast the head's 16-bit cast is saved
	 * until its backward, where a one-token step peaks. auto is on for
	 * bitsandbytes on one GPU, off under fsdp. */
	gs_arch a = load("Qwen--Qwen2.5-7B.config.json");
	gs_settings s = base("qlora", "nf4", "adamw");
	gs_estimate au = run(&a, &s);
	set(&s, "kbit-prep=off");
	gs_estimate off = run(&a, &s);
	double norms = 0;
	for (int i = 0; i < a.n_kinds; i++)
		norms += (double)a.kind[i].n_layers * (double)a.kind[i].other_params;
	norms += (double)a.p_final;
	double want = 2 * (2 * 544997376.0 + norms) + 2 * 544997376.0;
	CHECK(near((double)au.W - (double)off.W, want, 1e-6),
	      "engine: k-bit preparation: fp32 embeddings, norms and head, and the head's saved 16-bit cast (%.6g, "
	      "got %.6g)", want, (double)au.W - (double)off.W);
	set(&s, "kbit-prep=auto gpus=2 sharding=fsdp");
	gs_estimate fa = run(&a, &s);
	set(&s, "kbit-prep=off");
	gs_estimate fo = run(&a, &s);
	CHECK(fa.allocated == fo.allocated, "engine: k-bit preparation is off by default when fsdp shards the base");
	set(&s, "kbit-prep=auto gpus=1 sharding=ddp precision=nf4-torchao");
	gs_estimate ta = run(&a, &s);
	set(&s, "kbit-prep=off");
	gs_estimate to = run(&a, &s);
	CHECK(ta.allocated == to.allocated, "engine: k-bit preparation is off by default for torchao's NF4 (torchtune)");

	/* GPTQ trains through auto-gptq's torch path, whose matmul with the
	 * fp16 dequantized weight saves that weight for the input's gradient:
	 * without checkpointing every layer's until its backward. Against
	 * AWQ of the same storage (kbit-prep off), the first backward moment
	 * holds 2 bytes a linear weight of all 28 layers more. */
	gs_settings g = base("qlora", "gptq-int4", "adamw");
	set(&g, "seq=16 kbit-prep=off");
	gs_estimate gq = run(&a, &g);
	set(&g, "precision=awq-int4");
	gs_estimate aw = run(&a, &g);
	double lin = linear_params(&a);
	CHECK(gq.peak_phase == GS_PH_BACKWARD && near((double)gq.W - (double)aw.W, 2 * lin, 1e-6),
	      "engine: GPTQ training keeps each layer's fp16 dequantized weight for backward (%.6g, got %.6g)",
	      2 * lin, (double)gq.W - (double)aw.W);
}

/* Eager prefill's widest moment per score: transformers' eager attention
 * holds the masked 16-bit scores, the fp32 softmax and its 16-bit cast (2 +
 * 4 + 2 bytes); softmax(scores.float()) (AutoAWQ's fused attention) the
 * scores, their fp32 copy and the fp32 softmax (2 + 4 + 4). TinyLlama
 * (32 heads), one 4096-token prompt, last-position logits: the layer is the
 * peak, 2 x 32 x 4096^2 bytes apart. Training never needs less up-cast. */
static void eager_upcast(void)
{
	gs_arch a = load("TinyLlama--TinyLlama-1.1B-Chat-v1.0.config.json");
	gs_settings s = base("inference", "bf16", NULL);
	set(&s, "seq=4096 attn=eager");
	gs_estimate e = run(&a, &s);
	set(&s, "attn=eager-upcast");
	gs_estimate u = run(&a, &s);
	double want = 2.0 * 32 * 4096 * 4096;
	CHECK(e.peak_phase == GS_PH_PREFILL && u.peak_phase == GS_PH_PREFILL &&
	          near((double)u.allocated - (double)e.allocated, want, 1e-9),
	      "engine: softmax(scores.float()) holds 2 bytes a score more than transformers' eager prefill "
	      "(%.6g, got %.6g)", want, (double)u.allocated - (double)e.allocated);
	int worse = 0;
	const char *m[][2] = {{"full", "bf16"}, {"lora", "bf16"}, {"qlora", "nf4"}};
	for (int i = 0; i < 3; i++)
		for (int ck = 0; ck < 2; ck++) {
			gs_settings t = base(m[i][0], m[i][1], "adamw");
			set(&t, "seq=2048 attn=eager");
			t.grad_ckpt = ck;
			uint64_t de = run(&a, &t).device;
			set(&t, "attn=eager-upcast");
			worse += run(&a, &t).device < de;
		}
	CHECK(worse == 0, "engine: eager-upcast never needs less than eager in training (%d of 6 cases)", worse);
}

/* Phi-3's fused gate_up_proj: at inference its 2I-wide output lives while
 * act(gate) and the product are made from its chunks (Phi3MLP), 4I in all
 * where separate gate and up peak at 3I. Phi-3-mini (h 3072, I 8192, 32
 * layers, MHA), one 4096-token prompt, last logits: the layer peaks, over
 * the cache (32 x 2 x 3072 x 2 bytes a token) and the residual twice. Its
 * config's sliding_window 2047 makes every layer a sliding one
 * (DynamicCache(config): no layer_types, so all sliding_attention), whose
 * DynamicSlidingWindowLayer keeps the last 2046 tokens. */
static void fused_mlp_inference(void)
{
	gs_arch a = load("microsoft--Phi-3-mini-4k-instruct.config.json");
	gs_settings s = base("inference", "bf16", NULL);
	set(&s, "seq=4096");
	gs_estimate x = run(&a, &s);
	double T = 4096, h = 3072, I = 8192;
	double want = 32 * 2 * h * 2 * 2046 + 2 * 2 * h * T + 4 * I * 2 * T;
	CHECK(x.peak_phase == GS_PH_PREFILL && near((double)x.A, want, 1e-9),
	      "engine: a fused gate_up MLP peaks at 4I at inference (A %.6g, want %.6g)", (double)x.A, want);
}

static uint64_t dev(const gs_arch *a, gs_settings s, const char *k, const char *v)
{
	gs_error e = {0};
	if (gs_settings_set(&s, k, v, &e) != GS_OK) {
		printf("FAIL set %s=%s: %s\n", k, v, e.msg);
		exit(1);
	}
	return run(a, &s).device;
}

static void monotonic(void)
{
	const char *models[] = {"meta-llama--Llama-3.2-1B.config.json", "Qwen--Qwen2.5-0.5B.config.json",
	                        "openai-community--gpt2.config.json", "Qwen--Qwen3-30B-A3B.config.json",
	                        "microsoft--Phi-3-mini-4k-instruct.config.json"};
	const char *methods[][2] = {{"full", "amp-bf16"}, {"full", "bf16"}, {"lora", "bf16"}, {"qlora", "nf4"}, {"inference", "bf16"}};
	const char *attn[] = {"sdpa", "eager", "flash"};
	int bad_b = 0, bad_s = 0, bad_r = 0, bad_c = 0, bad_z = 0, bad_compile = 0, n = 0;

	for (size_t m = 0; m < sizeof models / sizeof *models; m++) {
		gs_arch a = load(models[m]);
		for (size_t k = 0; k < sizeof methods / sizeof *methods; k++)
			for (size_t at = 0; at < 3; at++)
				for (int ck = 0; ck < 2; ck++) {
					gs_settings s = base(methods[k][0], methods[k][1], "adamw");
					gs_error e = {0};
					gs_settings_set(&s, "attn", attn[at], &e);
					s.grad_ckpt = ck;
					const char *seqs[] = {"128", "512", "2048", "8192"};
					const char *bs[] = {"1", "2", "4", "8"};
					for (int i = 0; i + 1 < 4; i++) {
						n++;
						gs_settings_set(&s, "batch", "1", &e);
						if (dev(&a, s, "seq", seqs[i]) > dev(&a, s, "seq", seqs[i + 1]))
							bad_s++;
						gs_settings_set(&s, "seq", "1024", &e);
						if (dev(&a, s, "batch", bs[i]) > dev(&a, s, "batch", bs[i + 1]))
							bad_b++;
						if (k == 2 || k == 3) {
							const char *rs[] = {"4", "8", "64", "256"};
							if (dev(&a, s, "lora-r", rs[i]) > dev(&a, s, "lora-r", rs[i + 1]))
								bad_r++;
						}
						{
							gs_settings c = s;
							c.compile = true;
							if (run(&a, &c).device > run(&a, &s).device)
								bad_compile++;
						}
						if (k != 4) {
							gs_settings c = s;
							gs_settings_set(&c, "seq", seqs[i + 1], &e);
							c.grad_ckpt = false;
							uint64_t off = run(&a, &c).device;
							c.grad_ckpt = true;
							if (run(&a, &c).device > off)
								bad_c++;
						}
					}
					if (k != 4) {
						gs_settings z = s;
						/* DeepSpeed's default reduce_bucket_size preallocates
						 * 5e8 elements (zero2's ipg buffer, zero3's bucket)
						 * even for a model whose gradients are smaller
						 * (deepspeed_zero12 checks it): compared at "auto",
						 * hidden_size^2, the stages order as they shard,
						 * but for zero2's ipg buffer itself (at most 4
						 * bytes an element, plus the allocator's 5%) */
						gs_settings_set(&z, "gpus", "4", &e);
						gs_settings_set(&z, "zero-bucket", "0", &e);
						double ipg = 4 * 1.06 * (double)a.hidden * (double)a.hidden;
						const char *st[] = {"ddp", "zero1", "zero2", "zero3"};
						for (int i = 0; i + 1 < 4; i++)
							if ((double)dev(&a, z, "sharding", st[i]) + (i == 1 ? ipg : 0) <
							    (double)dev(&a, z, "sharding", st[i + 1]))
								bad_z++;
					}
				}
	}
	CHECK(bad_s == 0, "engine: more context never lowers the peak (%d of %d cases violated)", bad_s, n);
	CHECK(bad_b == 0, "engine: more batch never lowers the peak (%d violated)", bad_b);
	CHECK(bad_r == 0, "engine: higher LoRA rank never lowers the peak (%d violated)", bad_r);
	CHECK(bad_c == 0, "engine: gradient checkpointing never raises the peak (%d violated)", bad_c);
	CHECK(bad_z == 0, "engine: a higher ZeRO stage never raises per-GPU memory beyond zero2's ipg buffer "
	                  "(reduce buckets at \"auto\"; %d violated)", bad_z);
	CHECK(bad_compile == 0, "engine: --compile never raises the peak (%d violated)", bad_compile);
}

/* Under ZeRO-3 and FSDP every term a rank holds of the weights, gradients,
 * optimizer states and the step's temporaries is a shard: per-GPU memory
 * never rises with the GPU count, and for full fine-tuning it falls from 2
 * to 64 GPUs (the step's foreach temporaries were once sized from the
 * unsharded trainable count: 64 GiB per GPU for an 8B model at any count). */
static void sharded_counts(void)
{
	const char *models[] = {"meta-llama--Llama-3.1-8B.config.json", "Qwen--Qwen2.5-0.5B.config.json",
	                        "Qwen--Qwen3-30B-A3B.config.json"};
	const char *recipes_[][2] = {{"amp-bf16", "adamw"}, {"bf16", "adamw"}, {"mixed-bf16", "adamw"},
	                             {"bf16", "lion"}, {"amp-bf16", "sgd"}};
	const char *shard[] = {"zero3", "fsdp", "fsdp2"};
	const char *counts[] = {"2", "4", "8", "16", "32", "64"};
	int rises = 0, flat = 0, n = 0;

	for (size_t m = 0; m < sizeof models / sizeof *models; m++) {
		gs_arch a = load(models[m]);
		for (size_t r = 0; r < sizeof recipes_ / sizeof *recipes_; r++)
			for (size_t h = 0; h < 3; h++) {
				gs_settings s = base("full", recipes_[r][0], recipes_[r][1]);
				uint64_t prev = 0, first = 0;
				set(&s, "seq=2048 grad-ckpt=true");
				gs_error e = {0};
				gs_settings_set(&s, "sharding", shard[h], &e);
				for (size_t c = 0; c < 6; c++) {
					uint64_t d = dev(&a, s, "gpus", counts[c]);
					n++;
					rises += prev && d > prev;
					if (c == 0)
						first = d;
					prev = d;
				}
				flat += prev >= first;
			}
	}
	CHECK(rises == 0 && flat == 0,
	      "engine: under zero3/fsdp/fsdp2 per-GPU memory never rises with the GPU count and falls "
	      "from 2 to 64 GPUs (%d points; %d rises, %d flat)", n, rises, flat);

	/* Fewer bytes per parameter never need more per GPU at the same count:
	 * pure bf16 (2 + 2 + 4 bytes with AdamW) against mixed-bf16 and
	 * amp-bf16 (fp32 states and master weights or weights: 16 and more). */
	int worse = 0, pairs = 0;
	for (size_t m = 0; m < sizeof models / sizeof *models; m++) {
		gs_arch a = load(models[m]);
		for (size_t h = 0; h < 3; h++)
			for (size_t c = 0; c < 6; c++) {
				gs_settings p16 = base("full", "bf16", "adamw");
				set(&p16, "seq=2048 grad-ckpt=true");
				gs_error e = {0};
				gs_settings_set(&p16, "sharding", shard[h], &e);
				gs_settings_set(&p16, "gpus", counts[c], &e);
				uint64_t d16 = run(&a, &p16).device;
				const char *more[] = {"mixed-bf16", "amp-bf16"};
				for (int k = 0; k < 2; k++) {
					gs_settings q = p16;
					gs_settings_set(&q, "precision", more[k], &e);
					pairs++;
					worse += d16 > run(&a, &q).device;
				}
			}
	}
	CHECK(worse == 0 && pairs > 0,
	      "engine: pure bf16 never needs more per GPU than mixed-bf16 or amp-bf16 at the same "
	      "count under zero3/fsdp/fsdp2 (%d pairs, %d violated)", pairs, worse);
}


/* ---- issue 30: the layer kinds' caches and states, the block formats ---- */

#define REF2 "tests/fixtures/models-reference2/"

/* An inference row of a at seq tokens, its precision the checkpoint's own. */
static gs_estimate infer_at(const gs_arch *a, const char *extra)
{
	gs_settings s = base("inference", NULL, NULL);
	set(&s, extra);
	gs_settings_native(&s, a);
	return run(a, &s);
}

/* gpt-oss-20b: 12 full layers keep every token, 12 sliding ones their
 * window of 128 (2 x 8 KV heads x 64 = 1024 elements, 2048 bytes, a token
 * and layer). transformers' DynamicSlidingWindowLayer keeps the last
 * sliding_window - 1 = 127 tokens (cache_utils.py), StaticSlidingWindowLayer
 * the window. Llama-4-Scout: 36 chunked layers keep at most the 8192-token
 * chunk, 12 NoPE full layers every token (4096 bytes a token and layer). */
static void window_caches(void)
{
	gs_arch a = gs_arch_from(REF2 "openai--gpt-oss-20b.config.json");
	double L = 2048; /* bytes a token in one layer */

	CHECK(near(gs_arch_kv_elements(&a, 128, true) * 2 / 128, 24 * L, 1e-12),
	      "gpt-oss-20b at 128 tokens: 49,152 bytes a token, every layer holding all 128 (%.0f)",
	      gs_arch_kv_elements(&a, 128, true) * 2 / 128);
	CHECK(near(gs_arch_kv_elements(&a, 32768, true) * 2 / 32768, 12 * L + 12 * L * 128 / 32768, 1e-12),
	      "gpt-oss-20b at 32,768 tokens: 24,672 bytes a token, the sliding layers capped at 128 (%.1f)",
	      gs_arch_kv_elements(&a, 32768, true) * 2 / 32768);
	CHECK(near(gs_arch_kv_elements(&a, 32768, false) * 2, 12 * L * 32768 + 12 * L * 127, 1e-12) &&
	              near(gs_arch_kv_elements(&a, 128, false) * 2, 12 * L * 128 + 12 * L * 127, 1e-12),
	      "gpt-oss-20b under DynamicCache: the sliding layers keep 127 tokens");
	gs_estimate x = infer_at(&a, "seq=32768");
	CHECK(x.kv_bytes_token == 12 * L && x.kv_win_bytes_token == 12 * L &&
	              x.kv_win_bytes_seq == 12 * L * 127 && x.state_bytes_seq == 0 &&
	              x.kv_at_peak == (uint64_t)(12 * L * 32768 + 12 * L * 127),
	      "gpt-oss-20b inference at 32,768: the engine's cache is the full layers' 24,576 a token and "
	      "the sliding layers' 127 tokens (at peak %llu)", (unsigned long long)x.kv_at_peak);
	x = infer_at(&a, "seq=32768 kv-cache=static");
	CHECK(x.kv_win_bytes_seq == 12 * L * 128, "gpt-oss-20b, static cache: the sliding layers keep 128");

	a = gs_arch_from(REF2 "unsloth--Llama-4-Scout-17B-16E-Instruct.config.json");
	L = 4096;
	CHECK(near(gs_arch_kv_elements(&a, 8192, true) * 2, 48 * L * 8192, 1e-12) &&
	              near(gs_arch_kv_elements(&a, 16384, true) * 2, 36 * L * 8192 + 12 * L * 16384, 1e-12),
	      "llama4 scout: at 8,192 tokens every layer holds all of them; at 16,384 the 36 chunked ones stay "
	      "at 8,192");
	CHECK(near(gs_arch_kv_elements(&a, 8192, false) * 2, 36 * L * 8191 + 12 * L * 8192, 1e-12),
	      "llama4 scout under DynamicCache: chunked layers as sliding ones, 8,191 tokens");
	x = infer_at(&a, "seq=16384");
	CHECK(x.kv_bytes_token == 12 * L && x.kv_win_bytes_token == 36 * L && x.kv_win_bytes_seq == 36 * L * 8191,
	      "llama4 scout inference: 49,152 bytes a token in the full layers, 147,456 in the chunked ones "
	      "up to a chunk");
}

/* The state layers' state per sequence, the same at any context.
 * Qwen3-Next: 36 Gated DeltaNet layers, each a recurrent state of 32
 * value heads x 128 x 128 in fp32 (fla's final_state) and a conv state of
 * 8192 channels x 4 at bf16; 12 attention layers of 2 x 2 x 256 elements
 * a token. Granite 4.0 H small: 36 Mamba-2 layers, an SSM state of 128
 * heads x 64 x 128 and a conv state of 8448 x 4, both at the model's
 * dtype (HybridMambaAttentionDynamicCache); 4 attention layers of 2 x 8 x
 * 128 a token. */
static void recurrent_states(void)
{
	struct {
		const char *file;
		double state, kv_tok;
	} m[] = {
		{ "Qwen--Qwen3-Next-80B-A3B-Instruct.config.json", 36 * (32.0 * 128 * 128 * 4 + 8192 * 4 * 2),
		  12 * 2 * 2 * 256 * 2.0 },
		{ "ibm-granite--granite-4.0-h-small.config.json", 36 * (128.0 * 64 * 128 * 2 + 8448 * 4 * 2),
		  4 * 2 * 8 * 128 * 2.0 },
	};
	for (int i = 0; i < 2; i++) {
		char path[256];
		snprintf(path, sizeof path, REF2 "%s", m[i].file);
		gs_arch a = gs_arch_from(path);
		gs_estimate x1 = infer_at(&a, "seq=1024"), x2 = infer_at(&a, "seq=32768");
		CHECK(x1.state_bytes_seq == m[i].state && x2.state_bytes_seq == m[i].state &&
		              x1.kv_bytes_token == m[i].kv_tok && x1.kv_win_bytes_token == 0,
		      "%s: a sequence's state %.0f bytes at 1,024 and at 32,768 tokens (got %.0f, %.0f); its "
		      "attention layers %.0f bytes a token", m[i].file, m[i].state, x1.state_bytes_seq,
		      x2.state_bytes_seq, m[i].kv_tok);
		CHECK(x1.kv_at_peak == (uint64_t)(m[i].state + 1024 * m[i].kv_tok) &&
		              x2.kv_at_peak == (uint64_t)(m[i].state + 32768 * m[i].kv_tok),
		      "%s: the cache at the peak is the state plus the attention layers' tokens only", m[i].file);
		gs_estimate x4 = infer_at(&a, "seq=1024 batch=4");
		CHECK(x4.kv_at_peak == (uint64_t)(4 * (m[i].state + 1024 * m[i].kv_tok)),
		      "%s: four sequences, four states", m[i].file);
	}
}

/* The block formats' bytes, from their layouts. MXFP4: E2M1 (half a
 * byte) and a UE8 scale per 32 along the input; gpt-oss's experts only,
 * the rest and every bias bf16: gpt-oss-20b and -120b at rest are their
 * checkpoint indexes' total_size (shared/models-reference2 README).
 * NVFP4: E2M1, an FP8 scale per 16, an FP32 scale per tensor. FP8 block:
 * a byte a weight and an fp32 scale per 128 x 128 block (DeepSeek-V3's
 * weight_scale_inv), or the config's weight_block_size. */
static void block_formats(void)
{
	gs_arch a = gs_arch_from(REF2 "openai--gpt-oss-20b.config.json");
	gs_estimate x = infer_at(&a, "seq=16");

	CHECK(gs_prec_weight_bytes(GS_P_MXFP4, 2880, 5760) == 2880.0 * 5760 / 2 + 5760.0 * 90,
	      "mxfp4: a 2880 x 5760 expert weight is 8,294,400 value bytes and 518,400 scale bytes");
	CHECK(x.W == 13761264768ull, "mxfp4: gpt-oss-20b's weights at rest are its checkpoint's 13,761,264,768 "
	      "bytes (got %llu)", (unsigned long long)x.W);
	a = gs_arch_from(REF2 "openai--gpt-oss-120b.config.json");
	x = infer_at(&a, "seq=16");
	CHECK(x.W == 65248815744ull, "mxfp4: gpt-oss-120b's are its checkpoint's 65,248,815,744 (got %llu)",
	      (unsigned long long)x.W);

	{
		/* training on the MXFP4 checkpoint: LoRA's default is its bf16
		 * dequantization (TRL's gpt-oss recipe); asking for mxfp4 is
		 * refused, naming that recipe */
		gs_settings t = base("lora", NULL, NULL);
		gs_error e = {0};
		gs_settings_native(&t, &a);
		CHECK(gs_settings_precision(&t) == GS_P_BF16, "mxfp4 checkpoint, lora: trained on its bf16 copy");
		set(&t, "precision=mxfp4");
		CHECK(gs_settings_check(&t, &e) == GS_EUSAGE && strstr(e.msg, "dequantize") && strstr(e.msg, "TRL"),
		      "mxfp4 with lora: refused, naming the dequantizing recipe (%s)", e.msg);
	}
	{
		/* a wrapper's vision tower and projector are loaded with the model:
		 * Gemma 3 27B in bf16 is every parameter at 2 bytes, text
		 * 27,009,346,304, tower 416,866,032, projector 6,194,304 */
		gs_arch g = gs_arch_from(REF2 "google--gemma-3-27b-it.config.json");
		gs_estimate xg = infer_at(&g, "seq=16");
		CHECK(xg.W == 2 * 27432406640ull && g.params_vision == 416866032ull + 6194304ull,
		      "gemma3 27b inference: the weights are every parameter, the vision tower too, at 2 bytes "
		      "(W %llu)", (unsigned long long)xg.W);
	}
	CHECK(gs_prec_weight_bytes(GS_P_NVFP4, 4096, 14336) == 4096.0 * 14336 / 2 + 14336.0 * 256 + 4,
	      "nvfp4: a 4096 x 14336 weight is 29,360,128 value bytes, 3,670,016 FP8 scales and one FP32");
	CHECK(gs_prec_weight_bytes(GS_P_FP8_BLOCK, 7168, 576) == 7168.0 * 576 + 4.0 * 5 * 56,
	      "fp8-block: DeepSeek-V3's kv_a_proj_with_mqa (7168 -> 576) is 4,128,768 bytes and 5 x 56 scales");

	/* a tiny llama (H 256, 2 layers, 4 heads of 64, 2 KV heads, I 512,
	 * vocab 1000, untied) stored as each format, from its config */
	static const struct {
		const char *qc;
		gs_prec p;
	} f[] = {
		{ "{\"quant_method\":\"compressed-tensors\",\"config_groups\":{\"group_0\":{\"weights\":"
		  "{\"num_bits\":4,\"type\":\"float\",\"group_size\":16}}}}", GS_P_NVFP4 },
		{ "{\"quant_method\":\"modelopt\",\"quant_algo\":\"NVFP4\"}", GS_P_NVFP4 },
		{ "{\"quant_method\":\"fp8\",\"weight_block_size\":[64,64]}", GS_P_FP8_BLOCK },
	};
	static const int64_t in[7] = { 256, 256, 256, 256, 256, 256, 512 }, out[7] = { 256, 128, 128, 256, 512, 512, 256 };
	for (int i = 0; i < 3; i++) {
		char js[800];
		gs_error e = {0};
		double lin = 0, rest = (2 * 1000.0 * 256 + 2 * 2 * 256 + 256) * 2;
		snprintf(js, sizeof js,
		         "{\"model_type\":\"llama\",\"hidden_size\":256,\"num_hidden_layers\":2,\"num_attention_heads\":4,"
		         "\"num_key_value_heads\":2,\"intermediate_size\":512,\"vocab_size\":1000,"
		         "\"quantization_config\":%s}", f[i].qc);
		if (gs_config_parse(js, strlen(js), "tiny.json", &a, &e) != GS_OK) {
			CHECK(0, "block formats: tiny config %d parses (%s)", i, e.msg);
			continue;
		}
		for (int j = 0; j < 7; j++)
			lin += f[i].p == GS_P_NVFP4
			               ? in[j] * out[j] / 2.0 + out[j] * (double)((in[j] + 15) / 16) + 4
			               : in[j] * out[j] + 4.0 * (double)((out[j] + 63) / 64) * (double)((in[j] + 63) / 64);
		x = infer_at(&a, "seq=16");
		CHECK(x.W == (uint64_t)(2 * lin + rest), "%s from quantization_config %d: the linears as the format "
		      "stores them, the rest bf16 (W %llu, want %.0f)", gs_prec_name(f[i].p), i,
		      (unsigned long long)x.W, 2 * lin + rest);
	}
}

/* The default spec's rows (sizing.json: every model of its list from the
 * committed models/ cache, every combination of its axes) under DDP at 1,
 * 2, 4, 8, 16 and 64 GPUs. DDP replicates the whole model: each replica
 * holds the same weights, gradients, states, reduce buckets and
 * activations whatever the replica count, so from 2 GPUs on (1 GPU is no
 * DDP at all: no reducer, no buckets) per-GPU memory is one figure, and
 * the second GPU never lowers it. Every precision the method takes is
 * swept, beside the spec's other axes: issue 34 found per-GPU memory
 * falling as the count doubled (the fp32 gradient of the master-weight
 * recipes, mixed-* and fp8-mixed, was divided by the replica count). */
typedef struct spec_axis {
	char key[64];
	const cJSON *vals; /* an array, or for precision the object by method */
} spec_axis;

typedef struct ddp_sweep {
	const gs_arch *a;
	spec_axis ax[32];
	int n_ax;
	int rows, refused, changed, fell, mixed;
	char first_bad[512];
} ddp_sweep;

static void ddp_counts(ddp_sweep *w, const gs_settings *s)
{
	static const char *const counts[] = {"1", "2", "4", "8", "16", "64"};
	uint64_t at[6];
	int ok = 0;

	for (int c = 0; c < 6; c++) {
		gs_settings t = *s;
		gs_error e = {0};
		gs_estimate x;
		if (gs_settings_set(&t, "gpus", counts[c], &e) != GS_OK || gs_settings_check(&t, &e) != GS_OK ||
		    gs_estimate_run(w->a, &t, &x, &e) != GS_OK) {
			at[c] = 0;
			continue;
		}
		at[c] = x.device;
		ok++;
	}
	w->rows++;
	if (ok == 0) {
		w->refused++;
		return;
	}
	bool bad = false;
	if (ok != 6) {
		w->mixed++; /* refused at some counts only */
		bad = true;
	}
	for (int c = 2; c < 6 && !bad; c++)
		if (at[c] != at[1]) {
			w->changed++;
			w->fell += at[c] < at[1];
			bad = true;
		}
	if (!bad && at[1] < at[0]) {
		w->fell++;
		bad = true;
	}
	if (bad && w->first_bad[0] == '\0') {
		char l[256];
		gs_settings_label(s, l, sizeof l);
		snprintf(w->first_bad, sizeof w->first_bad, "%.200s %.200s: %llu %llu %llu %llu %llu %llu", w->a->source, l,
		         (unsigned long long)at[0], (unsigned long long)at[1], (unsigned long long)at[2],
		         (unsigned long long)at[3], (unsigned long long)at[4], (unsigned long long)at[5]);
	}
}

/* Every combination of the axes from i on. */
static void ddp_axes(ddp_sweep *w, int i, gs_settings s)
{
	const cJSON *vals, *v;
	char name[64];

	if (i == w->n_ax) {
		ddp_counts(w, &s);
		return;
	}
	vals = w->ax[i].vals;
	if (strcmp(w->ax[i].key, "precision") == 0) {
		/* every precision the method takes, not only the spec's */
		const gs_setting *d = gs_setting_find("precision");
		for (int k = 0; d->values[k] != NULL; k++) {
			gs_settings t = s;
			gs_error e = {0};
			if (gs_settings_set(&t, "precision", d->values[k], &e) == GS_OK &&
			    gs_settings_check(&t, &e) == GS_OK)
				ddp_axes(w, i + 1, t);
		}
		return;
	}
	snprintf(name, sizeof name, "%s", w->ax[i].key);
	for (char *p = name; *p; p++)
		if (*p == '_')
			*p = '-';
	cJSON_ArrayForEach(v, vals) {
		gs_settings t = s;
		gs_error e = {0};
		char text[64];
		if (cJSON_IsBool(v))
			snprintf(text, sizeof text, "%s", cJSON_IsTrue(v) ? "true" : "false");
		else if (cJSON_IsNumber(v))
			snprintf(text, sizeof text, "%.0f", v->valuedouble);
		else
			snprintf(text, sizeof text, "%s", cJSON_IsString(v) ? v->valuestring : "?");
		if (gs_settings_set(&t, name, text, &e) != GS_OK) {
			printf("FAIL ddp sweep: sizing.json axis %s=%s: %s\n", name, text, e.msg);
			exit(1);
		}
		ddp_axes(w, i + 1, t);
	}
}

static void ddp_replicas(void)
{
	char *text = NULL;
	gs_error e = {0};
	cJSON *spec, *axes, *models, *m, *ax;
	ddp_sweep w;
	int n_models = 0, rows = 0, refused = 0, changed = 0, fell = 0, mixed = 0;
	char first[sizeof w.first_bad] = "";

	if (gs_read_file("sizing.json", 1 << 20, &text, NULL, &e) != GS_OK) {
		printf("FAIL ddp sweep: %s\n", e.msg);
		exit(1);
	}
	spec = cJSON_Parse(text);
	free(text);
	axes = cJSON_GetObjectItemCaseSensitive(spec, "axes");
	models = cJSON_GetObjectItemCaseSensitive(spec, "models");
	memset(&w, 0, sizeof w);
	/* method first: precision's values depend on it */
	ax = cJSON_GetObjectItemCaseSensitive(axes, "method");
	snprintf(w.ax[w.n_ax].key, sizeof w.ax[0].key, "method");
	w.ax[w.n_ax++].vals = ax;
	cJSON_ArrayForEach(ax, axes) {
		if (strcmp(ax->string, "method") != 0 && w.n_ax < 32) {
			snprintf(w.ax[w.n_ax].key, sizeof w.ax[0].key, "%s", ax->string);
			w.ax[w.n_ax++].vals = ax;
		}
	}
	cJSON_ArrayForEach(m, models) {
		char path[512], entry[256];
		/* an entry is an id, or {"id": ..., "methods": [...]} (the
		 * invariant holds for every method, so every one is swept) */
		const cJSON *id = cJSON_IsObject(m) ? cJSON_GetObjectItemCaseSensitive(m, "id") : m;
		if (!cJSON_IsString(id))
			continue;
		snprintf(entry, sizeof entry, "%s", id->valuestring);
		char *slash = strchr(entry, '/');
		if (slash == NULL)
			continue;
		*slash = '\0';
		snprintf(path, sizeof path, "models/%s--%s/config.json", entry, slash + 1);
		gs_arch a = gs_arch_from(path);
		gs_settings s;
		gs_settings_default(&s);
		ddp_sweep one = w;
		one.a = &a;
		ddp_axes(&one, 0, s);
		n_models++;
		rows += one.rows;
		refused += one.refused;
		changed += one.changed;
		fell += one.fell;
		mixed += one.mixed;
		if (first[0] == '\0')
			snprintf(first, sizeof first, "%s", one.first_bad);
	}
	int n_spec = cJSON_GetArraySize(models);
	cJSON_Delete(spec);
	CHECK(n_models == n_spec && n_models > 10 && rows > 2000 && refused < rows / 4,
	      "engine: the DDP sweep covers the default spec (%d models, %d rows, %d refused at every count)",
	      n_models, rows, refused);
	CHECK(changed == 0 && fell == 0 && mixed == 0,
	      "engine: per-GPU DDP memory is one figure from 2 to 64 replicas and never below 1 GPU's, for "
	      "every row of the default spec (%d rows x 6 counts; %d changed with the count, %d fell, %d "
	      "refused at some counts only%s%s)", rows, changed, fell, mixed, first[0] ? "; first: " : "", first);
}

int main(void)
{
	fused_losses();
	ckpt_offload();
	recipes();
	lora_names();
	compiled();
	softcap();
	fabric_nf4();
	sharded_lora();
	offload_activations();
	pipeline();
	pipeline_1f1b();
	expert_parallel();
	ddp_inference();
	prefill_logits();
	generation();
	gpt_fast_decode();
	fused_qkv();
	bnb_lifetime();
	awq_fuse();
	math_legacy();
	loss_dtype();
	deepspeed_zero12();
	quantized_backends();
	eager_upcast();
	fused_mlp_inference();
	monotonic();
	sharded_counts();
	window_caches();
	recurrent_states();
	block_formats();
	ddp_replicas();
	CHECK_DONE();
}
