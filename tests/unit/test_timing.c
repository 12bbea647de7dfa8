/* Unit tests for timing.c (issue 17): hand-computed FLOPs of a dense toy
 * model, an MoE, LoRA against full training, checkpointing; the step's
 * parts (communication, optimizer, overlap), MFU, the token budget, decode
 * bytes; errors. Toy shape (gs_arch_manual): 2 layers, hidden 64, 4 heads
 * (head_dim 16), MLP 128, vocab 100. */
#include <math.h>
#include <string.h>

#include "arch.h"
#include "check.h"
#include "constants.h"
#include "settings.h"
#include "verdict.h"
#include "timing.h"

static int close_to(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1);
}

static gs_gpu toy_gpu(void)
{
	gs_gpu g;

	memset(&g, 0, sizeof g);
	strcpy(g.id, "toy");
	g.bf16_tflops = 100;
	g.fp8_tflops = 200;
	g.fp8 = true;
	g.bandwidth_gbs = 1000;
	g.link_gbs = 100;
	strcpy(g.interconnect, "nvlink4");
	g.pcie_gen = 4;
	g.pcie_lanes = 16;
	return g;
}

/* Per layer: q, k, v, o 64x64 (16384), gate and up 64x128 (16384), down
 * 128x64 (8192): 40960; 2 layers 81920; head 100 x 64 = 6400. */
#define TOY_NMM 88320.0

static void toy(gs_arch *a)
{
	gs_error e = { 0 };
	CHECK(gs_arch_manual(a, 0, 2, 64, 4, 4, 128, 100, &e) == GS_OK, "toy shape (%s)", e.msg);
}

static void train(gs_settings *s, gs_method m, int64_t batch, int64_t seq, bool ckpt)
{
	gs_settings_default(s);
	s->method = m;
	s->batch = batch;
	s->seq = seq;
	s->grad_ckpt = ckpt;
}

static void test_dense_flops(void)
{
	gs_arch a;
	gs_settings s;
	gs_gpu g = toy_gpu();
	gs_time t;
	gs_error e = { 0 };
	/* attention per token, one forward, seq 32: 2 * s * heads * (hd + hd)
	 * * L = 2 * 32 * 4 * 32 * 2 = 16384, causal sdpa halves it: 8192. */
	double attn = 8192, fwd = 2 * TOY_NMM + attn;

	toy(&a);
	train(&s, GS_FULL, 2, 32, false);
	CHECK(gs_time_estimate(&a, &s, &g, NULL, &t, &e) == GS_OK, "dense: estimate (%s)", e.msg);
	CHECK(close_to(t.n_mm, TOY_NMM), "dense: matmul params %g, want %g", t.n_mm, TOY_NMM);
	CHECK(close_to(t.flops_attn_tok, attn), "dense: attention FLOPs/token %g, want %g", t.flops_attn_tok, attn);
	CHECK(close_to(t.flops_fwd_tok, fwd), "dense: forward FLOPs/token %g, want %g", t.flops_fwd_tok, fwd);
	CHECK(close_to(t.tokens_step, 64), "dense: 2 x 32 tokens a step (%g)", t.tokens_step);
	/* full: backward = 2 x forward: 3 x 184832 x 64 = 35487744 */
	CHECK(close_to(t.flops_step, 3 * fwd * 64), "dense: full step FLOPs %g, want %g", t.flops_step, 3 * fwd * 64);
	CHECK(close_to(t.model_flops_step, t.flops_step), "dense: no recompute: model FLOPs = FLOPs");
	CHECK(t.peak_tflops == 100, "dense: bf16 peak");
	s.attn = GS_ATTN_EAGER;
	gs_time_estimate(&a, &s, &g, NULL, &t, &e);
	CHECK(close_to(t.flops_attn_tok, 2 * attn), "dense: eager attention computes the masked half (%g)",
	      t.flops_attn_tok);
	s.attn = GS_ATTN_SDPA;
	s.precision = GS_P_FP8_MIXED;
	s.precision_set = true;
	gs_time_estimate(&a, &s, &g, NULL, &t, &e);
	CHECK(t.peak_tflops == 200, "dense: fp8-mixed uses fp8_tflops (%g)", t.peak_tflops);
	{
		/* the training stack scales fp8's efficiency, and only fp8's */
		gs_time_opts o;
		gs_time tm;
		double pyt = t.eff;
		gs_time_opts_default(&o);
		o.train_runtime = GS_TRT_MEGATRON;
		gs_time_estimate(&a, &s, &g, &o, &tm, &e);
		CHECK(close_to(tm.eff / pyt, GS_TIME_FP8_EFF_SCALE_MEGATRON / GS_TIME_FP8_EFF_SCALE),
		      "dense: fp8 under megatron: efficiency x %g/%g (%g)", GS_TIME_FP8_EFF_SCALE_MEGATRON,
		      GS_TIME_FP8_EFF_SCALE, tm.eff / pyt);
		s.precision = GS_P_AMP_BF16;
		gs_time_estimate(&a, &s, &g, NULL, &t, &e);
		gs_time_estimate(&a, &s, &g, &o, &tm, &e);
		CHECK(tm.eff == t.eff && tm.step_s == t.step_s, "dense: bf16: the stacks share one efficiency");
		/* a Hopper GPU: the pytorch stack takes Hopper's figure, Megatron-Core
		 * the all-records one; a GPU without an architecture, that one too */
		g.uarch = GS_UARCH_HOPPER;
		{
			gs_time th, tmh;
			gs_time_estimate(&a, &s, &g, NULL, &th, &e);
			gs_time_estimate(&a, &s, &g, &o, &tmh, &e);
			CHECK(close_to(th.eff / t.eff, GS_TIME_TRAIN_EFF_MAX_HOPPER / GS_TIME_TRAIN_EFF_MAX),
			      "dense: pytorch on hopper: efficiency x %g/%g (%g)", GS_TIME_TRAIN_EFF_MAX_HOPPER,
			      GS_TIME_TRAIN_EFF_MAX, th.eff / t.eff);
			CHECK(tmh.eff == tm.eff, "dense: megatron on hopper: the all-records efficiency");
		}
		g.uarch = GS_UARCH_VOLTA;
		gs_time_estimate(&a, &s, &g, NULL, &tm, &e);
		CHECK(tm.eff == t.eff, "dense: an architecture no record covers: the all-records efficiency");
		g.uarch = GS_UARCH_NONE;
		s.precision = GS_P_FP8_MIXED;
	}
	g.fp8_tflops = 0;
	gs_time_estimate(&a, &s, &g, NULL, &t, &e);
	CHECK(t.peak_tflops == 100, "dense: fp8-mixed on a GPU without fp8 falls back to bf16");
}

static void test_ckpt_and_lora(void)
{
	gs_arch a;
	gs_settings s;
	gs_gpu g = toy_gpu();
	gs_time full, ck, lora;
	gs_error e = { 0 };
	double attn = 8192, fwd = 2 * TOY_NMM + attn;

	toy(&a);
	train(&s, GS_FULL, 2, 32, false);
	gs_time_estimate(&a, &s, &g, NULL, &full, &e);
	train(&s, GS_FULL, 2, 32, true);
	gs_time_estimate(&a, &s, &g, NULL, &ck, &e);
	/* checkpointing: + 1 forward: 4 x 184832 x 64 */
	CHECK(close_to(ck.flops_step, 4 * fwd * 64), "ckpt: step FLOPs %g, want %g", ck.flops_step, 4 * fwd * 64);
	CHECK(close_to(ck.model_flops_step, full.flops_step), "ckpt: MFU's FLOPs leave the recompute out");
	CHECK(ck.compute_s > full.compute_s, "ckpt: slower");
	train(&s, GS_LORA, 2, 32, false);
	gs_time_estimate(&a, &s, &g, NULL, &lora, &e);
	/* LoRA: forward + activation gradients only (2 N) + attention backward (2 x attn) */
	CHECK(close_to(lora.flops_step, (fwd + 2 * TOY_NMM + 2 * attn) * 64), "lora: step FLOPs %g, want %g",
	      lora.flops_step, (fwd + 2 * TOY_NMM + 2 * attn) * 64);
	CHECK(lora.flops_step < full.flops_step && lora.flops_step > 0.6 * full.flops_step,
	      "lora: ~2/3 of full's FLOPs (%g / %g)", lora.flops_step, full.flops_step);
}

static void test_moe_flops(void)
{
	gs_arch a;
	gs_settings s;
	gs_gpu g = toy_gpu();
	gs_time t;
	gs_error e = { 0 };
	int made = 0;

	toy(&a);
	/* Make the MLP 8 routed experts, 2 active. */
	for (int i = 0; i < a.kind[0].n_lin; i++) {
		gs_linear *l = &a.kind[0].lin[i];
		if (l->role == GS_ROLE_GATE || l->role == GS_ROLE_UP || l->role == GS_ROLE_DOWN) {
			l->count = 8;
			l->active = 2;
			l->expert = true;
			made++;
		}
	}
	a.kind[0].n_experts = 8;
	a.kind[0].experts_per_tok = 2;
	CHECK(made == 3 && gs_arch_tally(&a, &e) == GS_OK, "moe: toy experts (%d, %s)", made, e.msg);
	train(&s, GS_FULL, 1, 32, false);
	gs_time_estimate(&a, &s, &g, NULL, &t, &e);
	/* per layer: attention 16384 + 2 active x (8192 + 8192 + 8192) = 65536; x 2 + 6400 */
	CHECK(close_to(t.n_mm, 137472), "moe: active matmul params %g, want 137472", t.n_mm);
	/* decode reads the experts a batch touches: batch 1 -> 2, batch 8 -> all 8 */
	train(&s, GS_INFER, 1, 32, false);
	s.precision_set = false;
	s.new_tokens = 0;
	gs_time_estimate(&a, &s, &g, NULL, &t, &e);
	CHECK(close_to(t.weight_bytes, 137472 * 2.0), "moe: decode at batch 1 reads 2 experts (%g bytes)",
	      t.weight_bytes);
	s.batch = 8;
	gs_time_estimate(&a, &s, &g, NULL, &t, &e);
	CHECK(close_to(t.weight_bytes, (2 * (16384 + 8 * 24576) + 6400) * 2.0),
	      "moe: decode at batch 8 reads all 8 experts (%g bytes)", t.weight_bytes);
}

static void test_step_parts(void)
{
	gs_arch a;
	gs_settings s;
	gs_gpu g = toy_gpu();
	gs_time t, t8;
	gs_time_opts o;
	gs_error e = { 0 };

	toy(&a);
	train(&s, GS_FULL, 2, 32, false);
	gs_time_opts_default(&o);
	o.tokens_budget = 1e6;
	gs_time_estimate(&a, &s, &g, &o, &t, &e);
	CHECK(t.comm_s == 0, "1 GPU: no communication");
	CHECK(close_to(t.step_s, t.compute_s + t.optim_s), "1 GPU: step = compute + optimizer");
	/* optimizer: 28 bytes x params over bandwidth x the compiled decode efficiency */
	{
		gs_time_params P;
		gs_time_params_default(&P);
		CHECK(close_to(t.optim_s, 28.0 * (double)a.params_total / (1000e9 * P.dec_bw_eff[GS_RT_COMPILED])),
		      "optimizer: 28 bytes a parameter over the bandwidth (%g)", t.optim_s);
	}
	CHECK(close_to(t.budget_s, 1e6 / t.tok_s_total), "budget: tokens / tokens per second");
	CHECK(close_to(t.gpu_hours, t.budget_s / 3600) && t.cost_usd == 0,
	      "1 GPU: GPU-hours = the budget's hours; no price, no cost (%g, %g)", t.gpu_hours, t.cost_usd);
	g.price_usd_hour = 2.5;
	gs_time_estimate(&a, &s, &g, &o, &t, &e);
	CHECK(close_to(t.cost_usd, 2.5 * t.budget_s / 3600), "cost: GPU-hours x price (%g)", t.cost_usd);
	g.price_usd_hour = 0;
	CHECK(t.mfu > 0 && t.mfu < 1, "mfu in (0, 1): %g", t.mfu);
	CHECK(close_to(t.tok_s_gpu * t.step_s, t.tokens_step), "tokens/s x step = tokens");
	s.gpus = 8;
	s.sharding = GS_SH_ZERO3;
	gs_time_estimate(&a, &s, &g, &o, &t8, &e);
	CHECK(close_to(t8.gpu_hours, 8 * t8.budget_s / 3600), "8 GPUs: 8 GPU-hours an hour (%g)", t8.gpu_hours);
	/* ZeRO-3: per micro-batch 7/8 x (2 x P x 2 bytes + P x 2 bytes) over 100 GB/s */
	CHECK(close_to(t8.comm_s, 7.0 / 8 * 6 * (double)a.params_total / 100e9), "zero3: comm %g, want %g",
	      t8.comm_s, 7.0 / 8 * 6 * (double)a.params_total / 100e9);
	CHECK(close_to(t8.step_s, fmax(t8.compute_s, t8.comm_s) + t8.optim_s), "overlap: max(compute, comm) + optimizer");
	CHECK(close_to(t8.tokens_step, 8 * t.tokens_step), "8 GPUs: 8 x the tokens a step");
	s.sharding = GS_SH_DDP;
	gs_time_estimate(&a, &s, &g, &o, &t8, &e);
	CHECK(close_to(t8.comm_s, 2 * 7.0 / 8 * 2 * (double)a.params_total / 100e9), "ddp: all-reduce 2 (n-1)/n");
	g.link_gbs = 0;
	strcpy(g.interconnect, "none");
	gs_time_estimate(&a, &s, &g, &o, &t8, &e);
	CHECK(close_to(t8.comm_s, 2 * 7.0 / 8 * 2 * (double)a.params_total / (0.985 * 2 * 16 * 1e9)),
	      "no link: PCIe Gen4 x16 (%g)", t8.comm_s);
}

static void test_inference_and_errors(void)
{
	gs_arch a;
	gs_settings s;
	gs_gpu g = toy_gpu();
	gs_time t;
	gs_error e = { 0 };
	int rt;

	toy(&a);
	gs_settings_default(&s);
	s.method = GS_INFER;
	s.batch = 1;
	s.seq = 10;
	s.new_tokens = 10;
	CHECK(gs_time_estimate(&a, &s, &g, NULL, &t, &e) == GS_OK, "inference (%s)", e.msg);
	/* bf16 weights + KV cache at the mean context 15: 15 x 2 x 64 x 2 layers x 2 bytes */
	CHECK(close_to(t.decode_bytes, TOY_NMM * 2 + 15 * 128 * 2 * 2.0), "decode bytes %g", t.decode_bytes);
	CHECK(close_to(t.generate_s, t.prefill_s + 10 * t.decode_step_s), "generate = prefill + steps");
	CHECK(close_to(t.decode_tok_s_seq, 1 / t.decode_step_s), "decode tokens/s");
	CHECK(t.usd_per_mtok == 0, "no price: no cost a token");
	{
		/* hf: the host's time and the GPU's overlap (the larger decides);
		 * autoawq, with the same figures, adds them. Both orders. */
		gs_time_params P;
		gs_time_opts o;
		gs_time th, tg, ta;
		gs_time_params_default(&P);
		gs_time_opts_default(&o);
		o.params = &P;
		P.dec_layer_s[GS_RT_HF] = 0;
		P.dec_bw_eff[GS_RT_AUTOAWQ] = P.dec_bw_eff[GS_RT_HF];
		P.prefill_eff[GS_RT_AUTOAWQ] = P.prefill_eff[GS_RT_HF];
		gs_time_estimate(&a, &s, &g, &o, &tg, &e); /* the GPU's time alone */
		for (int k = 0; k < 2; k++) {
			double host = k == 0 ? tg.decode_step_s / 2 : tg.decode_step_s * 3; /* the toy's 2 layers */
			P.dec_layer_s[GS_RT_HF] = P.dec_layer_s[GS_RT_AUTOAWQ] = host / 2;
			o.runtime = GS_RT_HF;
			gs_time_estimate(&a, &s, &g, &o, &th, &e);
			o.runtime = GS_RT_AUTOAWQ;
			gs_time_estimate(&a, &s, &g, &o, &ta, &e);
			CHECK(close_to(th.decode_step_s, tg.decode_step_s > host ? tg.decode_step_s : host),
			      "hf: a decode step is max(GPU %g, host %g) = %g", tg.decode_step_s, host, th.decode_step_s);
			CHECK(close_to(ta.decode_step_s, tg.decode_step_s + host), "autoawq: GPU + host (%g)",
			      ta.decode_step_s);
			CHECK(close_to(th.prefill_s, tg.prefill_s > host ? tg.prefill_s : host), "hf: prefill likewise");
		}
		o.runtime = GS_RT_HF;
	}
	g.price_usd_hour = 3.6;
	s.gpus = 2;
	s.tp = 2;
	gs_time_estimate(&a, &s, &g, NULL, &t, &e);
	/* 2 GPUs at $3.60 an hour = $0.002 a second, over the tokens a second */
	CHECK(close_to(t.usd_per_mtok, 0.002 / t.decode_tok_s_total * 1e6), "USD per M tokens (%g)", t.usd_per_mtok);
	g.price_usd_hour = 0;
	s.gpus = 1;
	s.tp = 1;
	s.precision = GS_P_AWQ_INT4;
	s.precision_set = true;
	gs_time_estimate(&a, &s, &g, NULL, &t, &e);
	CHECK(t.weight_bytes < TOY_NMM * 0.6, "int4: about a quarter of bf16's bytes (%g)", t.weight_bytes);
	rt = gs_runtime_parse("vLLM");
	CHECK(rt == GS_RT_SERVING && gs_runtime_parse("nope") == -1 && gs_runtime_parse("AutoAWQ") == GS_RT_AUTOAWQ,
	      "runtime names");
	CHECK(strcmp(gs_runtime_name(GS_RT_LLAMACPP), "llama.cpp") == 0, "runtime name");
	CHECK(gs_train_runtime_parse("NeMo") == GS_TRT_MEGATRON && gs_train_runtime_parse("hf") == GS_TRT_PYTORCH &&
	      gs_train_runtime_parse("vllm") == -1 && strcmp(gs_train_runtime_name(GS_TRT_MEGATRON), "megatron") == 0,
	      "training stack names");
	{
		gs_time_opts o;
		gs_time_opts_default(&o);
		o.train_runtime = GS_TRT_MAX;
		memset(&e, 0, sizeof e);
		CHECK(gs_time_estimate(&a, &s, &g, &o, &t, &e) == GS_EUSAGE, "an unknown training stack is refused");
	}
	{
		gs_arch z;
		memset(&z, 0, sizeof z);
		memset(&e, 0, sizeof e);
		CHECK(gs_time_estimate(&z, &s, &g, NULL, &t, &e) == GS_EUSAGE && t.decode_step_s == 0,
		      "a shape with no matmul work: refused, never an infinite speed (%s)", e.msg);
	}
	g.bandwidth_gbs = 0;
	memset(&e, 0, sizeof e);
	CHECK(gs_time_estimate(&a, &s, &g, NULL, &t, &e) == GS_EUSAGE && strstr(e.msg, "toy") != NULL,
	      "a GPU without bandwidth: GS_EUSAGE naming it (%s)", e.msg);
}

/* Serving capacity, by hand: an 80 GiB GPU (79 usable), an estimate of
 * 20 GiB with 1 GiB of cache at its peak, 128 KiB a cached token (Llama-3
 * 8B: 32 layers x 2 x 8 heads x 128 x 2 bytes). */
static void test_serving(void)
{
	gs_estimate x;
	gs_gpu g = toy_gpu();
	gs_settings bf16_row;
	gs_needs need;
	double pool;
	const double GIB = 1073741824.0;

	gs_settings_default(&bf16_row);
	gs_settings_set(&bf16_row, "compute-dtype", "bf16", NULL);
	need = gs_settings_needs(&bf16_row);
	memset(&x, 0, sizeof x);
	g.total_bytes = 80 * (uint64_t)GIB;
	g.usable_bytes = 79 * (uint64_t)GIB;
	g.bf16 = true;
	x.device = 20 * (uint64_t)GIB;
	x.kv_at_peak = 1 * (uint64_t)GIB;
	x.kv_bytes_token = 131072;
	/* 0.9 x 80 - 19 = 53 GiB = 27136 blocks of 2 MiB; 2560 tokens = 160 blocks */
	CHECK(gs_serving_seqs(&x, need, &g, 0.9, 2560, 16, &pool) == 169 && close_to(pool, 53 * GIB),
	      "0.9 of 80 GiB less 19: 27136 blocks, 169 sequences of 160 (pool %g)", pool);
	CHECK(gs_serving_seqs(&x, need, &g, 0.9, 2561, 16, NULL) == 168, "2561 tokens: 161 blocks, 168 sequences");
	/* the fraction never passes what one process can allocate: 79 - 19 = 60 GiB */
	CHECK(gs_serving_seqs(&x, need, &g, 1.0, 2560, 16, &pool) == 192 && close_to(pool, 60 * GIB),
	      "fraction 1: the usable 79 GiB, 192 sequences (pool %g)", pool);
	CHECK(gs_serving_seqs(&x, need, &g, 0.2, 2560, 16, &pool) == 0 && pool < 0,
	      "0.2 of 80 GiB is below the weights: none (pool %g)", pool);
	g.bf16 = false;
	CHECK(gs_serving_seqs(&x, need, &g, 0.9, 2560, 16, NULL) == -1, "a GPU without bf16: not runnable");
	g.bf16 = true;
	x.kv_bytes_token = 0;
	CHECK(gs_serving_seqs(&x, need, &g, 0.9, 2560, 16, NULL) == -1, "no cache figure (training): -1");
}

int main(void)
{
	test_serving();
	test_dense_flops();
	test_ckpt_and_lora();
	test_moe_flops();
	test_step_parts();
	test_inference_and_errors();
	CHECK_DONE();
}
