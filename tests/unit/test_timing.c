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

/* An NCCL ring by hand (constants.h, NCCL 2.21.5 tuning.cc): `steps` steps
 * over the node's link (pcie: else NVLink) and `inter` over the network,
 * `moved` bytes a rank over a bus of `bus` GB/s, under the least-time
 * protocol: LL (half the bus, at most ll_cap), LL128 where `ll128`, Simple. */
static double nccl_by_hand(int steps, int inter, bool pcie, double moved, double bus, double ll_cap, bool ll128)
{
	double hop_ll = pcie ? GS_TIME_AR_HOP_US_PCIE : GS_TIME_AR_HOP_US_NVLINK;
	double hop_128 = pcie ? GS_TIME_AR_LL128_HOP_US_PCIE : GS_TIME_AR_LL128_HOP_US_NVLINK;
	double hop_s = pcie ? GS_TIME_AR_SIMPLE_HOP_US_PCIE : GS_TIME_AR_SIMPLE_HOP_US_NVLINK;
	double ll = (GS_TIME_AR_BASE_US + (steps - inter) * hop_ll + inter * GS_TIME_AR_HOP_US_NET) * 1e-6 +
	            moved / (fmin(ll_cap, 0.5 * bus) * 1e9);
	double simple = (GS_TIME_AR_SIMPLE_BASE_US + (steps - inter) * hop_s + inter * GS_TIME_AR_SIMPLE_HOP_US_NET) *
	                        1e-6 +
	                moved / (bus * 1e9);
	double l128 = (GS_TIME_AR_LL128_BASE_US + (steps - inter) * hop_128 + inter * GS_TIME_AR_LL128_HOP_US_NET) *
	                      1e-6 +
	              moved / (0.92 * bus * 1e9);
	return fmin(fmin(ll, simple), ll128 ? l128 : INFINITY);
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
	/* attention per token, one forward, seq 32: 2 * keys * heads * (hd +
	 * hd) * L; a causal query attends (32 + 1) / 2 keys on average:
	 * 2 * 16.5 * 4 * 32 * 2 = 8448 (eager computes all 32: 16384). */
	double attn = 8448, fwd = 2 * TOY_NMM + attn;

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
	CHECK(close_to(t.flops_attn_tok, 16384), "dense: eager attention computes the masked half (%g)",
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

/* The attention kernel on Hopper: a FlashAttention-2-class kernel runs
 * attn_fa2 of the architecture's own kernel's rate; the stack picks one
 * (SDPA: cuDNN first on sm90, flash-attn 2: FA2, Megatron-Core: TE's cuDNN);
 * elsewhere FA2 is the architecture's own. Toy, 2 x 32 tokens, full, one
 * GPU: the attention's 8448 x 3 x 64 FLOPs a step at attn_eff x eff. */
static void test_attn_kernel(void)
{
	gs_arch a;
	gs_settings s;
	gs_gpu g = toy_gpu();
	gs_time_opts o;
	gs_time auto_sdpa, auto_flash, fa2, native, mg;
	gs_error e = { 0 };
	double attn = 8448.0 * 3 * 64, extra;

	toy(&a);
	train(&s, GS_FULL, 2, 32, false);
	g.uarch = GS_UARCH_HOPPER;
	gs_time_opts_default(&o);
	gs_time_estimate(&a, &s, &g, &o, &auto_sdpa, &e);
	o.attn_kernel = GS_AK_NATIVE;
	gs_time_estimate(&a, &s, &g, &o, &native, &e);
	o.attn_kernel = GS_AK_FA2;
	gs_time_estimate(&a, &s, &g, &o, &fa2, &e);
	CHECK(auto_sdpa.compute_s == native.compute_s, "attn kernel: sdpa on hopper runs cuDNN's (native)");
	extra = attn / (100e12 * fa2.eff) * (1 / (GS_TIME_ATTN_EFF * GS_TIME_ATTN_FA2_HOPPER) - 1 / GS_TIME_ATTN_EFF);
	CHECK(fa2.eff == native.eff && close_to(fa2.compute_s - native.compute_s, extra),
	      "attn kernel: FA2 on hopper: the attention at %g of the native rate (+%g s, want %g)",
	      GS_TIME_ATTN_FA2_HOPPER, fa2.compute_s - native.compute_s, extra);
	o.attn_kernel = GS_AK_AUTO;
	s.attn = GS_ATTN_FLASH;
	gs_time_estimate(&a, &s, &g, &o, &auto_flash, &e);
	CHECK(auto_flash.compute_s == fa2.compute_s, "attn kernel: --attn flash (flash-attn 2) on hopper is FA2");
	o.train_runtime = GS_TRT_MEGATRON;
	gs_time_estimate(&a, &s, &g, &o, &mg, &e);
	o.attn_kernel = GS_AK_NATIVE;
	gs_time_estimate(&a, &s, &g, &o, &native, &e);
	CHECK(mg.compute_s == native.compute_s, "attn kernel: megatron runs TE's (native) under --attn flash");
	o.train_runtime = GS_TRT_PYTORCH;
	g.uarch = GS_UARCH_AMPERE;
	gs_time_estimate(&a, &s, &g, &o, &native, &e);
	o.attn_kernel = GS_AK_FA2;
	gs_time_estimate(&a, &s, &g, &o, &fa2, &e);
	CHECK(fa2.compute_s == native.compute_s, "attn kernel: on ampere FA2 is the architecture's own");
	o.attn_kernel = (gs_attn_kernel)7;
	CHECK(gs_time_estimate(&a, &s, &g, &o, &fa2, &e) == GS_EUSAGE && strstr(e.msg, "attention kernel") != NULL,
	      "attn kernel: an unknown one is a usage error (%s)", e.msg);
}

static void test_ckpt_and_lora(void)
{
	gs_arch a;
	gs_settings s;
	gs_gpu g = toy_gpu();
	gs_time full, ck, lora;
	gs_error e = { 0 };
	double attn = 8448, fwd = 2 * TOY_NMM + attn;

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

/* The toy with its MLP made 8 routed experts, 2 active: per layer 8 x
 * (8192 + 8192 + 8192) routed parameters. */
static void toy_moe(gs_arch *a)
{
	gs_error e = { 0 };
	int made = 0;

	toy(a);
	for (int i = 0; i < a->kind[0].n_lin; i++) {
		gs_linear *l = &a->kind[0].lin[i];
		if (l->role == GS_ROLE_GATE || l->role == GS_ROLE_UP || l->role == GS_ROLE_DOWN) {
			l->count = 8;
			l->active = 2;
			l->expert = true;
			made++;
		}
	}
	a->kind[0].n_experts = 8;
	a->kind[0].experts_per_tok = 2;
	CHECK(made == 3 && gs_arch_tally(a, &e) == GS_OK, "moe: toy experts (%d, %s)", made, e.msg);
}

static void test_moe_flops(void)
{
	gs_arch a;
	gs_settings s;
	gs_gpu g = toy_gpu();
	gs_time t;
	gs_error e = { 0 };

	toy_moe(&a);
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

/* The stream a memory-bound kernel reaches on the toy GPU (no
 * architecture: the lowest measured share). */
static double toy_stream(void)
{
	return 1000e9 * GS_TIME_MEM_READ_OTHER;
}

static void test_step_parts(void)
{
	gs_arch a;
	gs_settings s;
	gs_gpu g = toy_gpu();
	gs_time t, t8;
	gs_time_opts o;
	gs_error e = { 0 };
	double P_ = 0, lat_nv;

	toy(&a);
	P_ = (double)a.params_total;
	train(&s, GS_FULL, 2, 32, false);
	gs_time_opts_default(&o);
	o.tokens_budget = 1e6;
	gs_time_estimate(&a, &s, &g, &o, &t, &e);
	CHECK(t.comm_s == 0 && t.tp_comm_s == 0 && t.bubble == 0, "1 GPU: no communication, no bubble");
	CHECK(close_to(t.step_s, t.compute_s + t.optim_s), "1 GPU: step = compute + optimizer");
	/* optimizer: 28 bytes a parameter over the read stream */
	CHECK(close_to(t.optim_s, 28.0 * P_ / toy_stream()), "optimizer: 28 bytes a parameter over the stream (%g)",
	      t.optim_s);
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
	/* ZeRO-3: per micro-batch and layer, two all-gathers of the layer's
	 * P / 2 x 2 bytes and a reduce-scatter of its gradients, each an NCCL
	 * ring of 7 steps moving 7/8 of them over 100 GB/s (the toy GPU's
	 * architecture is unknown: LL's cap is Volta's, no LL128) */
	lat_nv = nccl_by_hand(7, 0, false, 7.0 / 8 * P_, 100, GS_TIME_AR_LL_MAX_GBS_VOLTA, false);
	CHECK(close_to(t8.comm_s, 2 * 3 * lat_nv), "zero3: comm %g, want %g", t8.comm_s, 2 * 3 * lat_nv);
	CHECK(close_to(t8.step_s, fmax(t8.compute_s, t8.comm_s) + t8.optim_s),
	      "zero3: each micro-batch's gathers overlap its compute: max(compute, comm) + optimizer");
	CHECK(close_to(t8.tokens_step, 8 * t.tokens_step), "8 GPUs: 8 x the tokens a step");
	s.sharding = GS_SH_DDP;
	gs_time_estimate(&a, &s, &g, &o, &t8, &e);
	/* DDP: all-reduce 2 (n-1)/n of the 2-byte gradients, one 25 MB bucket,
	 * 14 ring steps */
	CHECK(close_to(t8.comm_s, nccl_by_hand(14, 0, false, 2 * 7.0 / 8 * 2 * P_, 100, GS_TIME_AR_LL_MAX_GBS_VOLTA, false)),
	      "ddp: all-reduce 2 (n-1)/n in one bucket (%g)", t8.comm_s);
	CHECK(t8.step_s >= t8.compute_s + t8.optim_s && t8.step_s <= t8.compute_s + t8.comm_s + t8.optim_s,
	      "ddp: the all-reduce hides behind the last backward, at most all of it exposed");
	g.link_gbs = 0;
	strcpy(g.interconnect, "none");
	gs_time_estimate(&a, &s, &g, &o, &t8, &e);
	CHECK(close_to(t8.comm_s, nccl_by_hand(14, 0, true, 2 * 7.0 / 8 * 2 * P_, 0.985 * 2 * 16,
	                                       GS_TIME_AR_LL_MAX_GBS_VOLTA, false)),
	      "no link: PCIe Gen4 x16 and PCIe's latencies (%g)", t8.comm_s);
}

/* The loss over the logits, one micro-batch of the toy (2 x 32 tokens,
 * vocab 100), at the read stream: PyTorch's cross-entropy on bf16 logits
 * 36 bytes a logit (up-cast 2 + 4, log_softmax 4 + 4, NLL's gradient 4,
 * log_softmax's backward 4 + 4 + 4, down-cast 4 + 2); transformers' legacy
 * loss 16 more (its shifted fp32 copy and the copy's gradient); the loss in
 * bf16 (--loss-dtype compute) 6 x 2; a fused loss 3 x 2. */
static void test_loss_bytes(void)
{
	gs_arch a;
	gs_settings s;
	gs_gpu g = toy_gpu();
	gs_time std, legacy, compute, fused;
	gs_error e = { 0 };
	double logits = 100.0 * 64;

	toy(&a);
	train(&s, GS_FULL, 2, 32, false);
	gs_time_estimate(&a, &s, &g, NULL, &std, &e);
	s.loss = GS_LOSS_LEGACY;
	gs_time_estimate(&a, &s, &g, NULL, &legacy, &e);
	s.loss = GS_LOSS_FUSED;
	gs_time_estimate(&a, &s, &g, NULL, &fused, &e);
	s.loss = GS_LOSS_STANDARD;
	s.loss_dtype = GS_LD_COMPUTE;
	gs_time_estimate(&a, &s, &g, NULL, &compute, &e);
	CHECK(close_to(std.compute_s - fused.compute_s, (36.0 - 6) * logits / toy_stream()),
	      "loss: standard - fused = 30 bytes a logit over the stream (%g s)", std.compute_s - fused.compute_s);
	CHECK(close_to(legacy.compute_s - std.compute_s, 16.0 * logits / toy_stream()),
	      "loss: legacy - standard = 16 bytes a logit (%g s)", legacy.compute_s - std.compute_s);
	CHECK(close_to(std.compute_s - compute.compute_s, (36.0 - 12) * logits / toy_stream()),
	      "loss: in bf16 12 bytes a logit, no casts (%g s)", std.compute_s - compute.compute_s);
}

/* The GEMMs' arithmetic intensity by hand: 1 / (1/M + 1/K + 1/N) a linear,
 * FLOP-weighted (timing.c gemm_intensity). */
static double intensity(const double *f, const double *m, const double *k, const double *n, int count)
{
	double fs = 0, ts = 0;

	for (int i = 0; i < count; i++) {
		fs += f[i];
		ts += f[i] * (1 / m[i] + 1 / k[i] + 1 / n[i]);
	}
	return fs / ts;
}

/* The efficiency curve's x is the GEMMs' intensity: the toy at 2 x 32
 * tokens, dense, then with experts under EP (each expert's M: 64 tokens x
 * top-2 / 8 experts x ep); the toy GPU's ridge is 100e12 / 1000e9 = 100. */
static void test_gemm_intensity(void)
{
	gs_arch a;
	gs_settings s;
	gs_gpu g = toy_gpu();
	gs_time t;
	gs_time_opts o;
	gs_error e = { 0 };
	/* per layer q, k, v, o 64x64; gate, up 64x128; down 128x64; the head 64x100 (x 64 tokens, 2 layers) */
	double f[] = { 2 * 4 * 4096, 2 * 2 * 8192, 2 * 8192, 6400 }, m[] = { 64, 64, 64, 64 };
	double k[] = { 64, 64, 128, 64 }, n[] = { 64, 128, 64, 100 };
	double x;

	toy(&a);
	train(&s, GS_FULL, 2, 32, false);
	gs_time_opts_default(&o);
	CHECK(gs_time_estimate(&a, &s, &g, &o, &t, &e) == GS_OK, "intensity: dense toy (%s)", e.msg);
	x = intensity(f, m, k, n, 4);
	CHECK(close_to(t.eff, GS_TIME_TRAIN_EFF_MAX * x / (x + 100)), "intensity: dense toy x = %g: eff %g", x,
	      t.eff);
	/* experts: 2 active of 8, 64 x 2 / 8 = 16 tokens each; under EP 4
	 * each rank's experts take 4 ranks' tokens: 64 */
	toy_moe(&a);
	f[1] = 2 * 2 * 2 * 8192;
	f[2] = 2 * 2 * 8192;
	s.gpus = 4;
	s.sharding = GS_SH_FSDP;
	for (int ep = 1; ep <= 4; ep *= 4) {
		s.ep = ep;
		m[1] = m[2] = 16.0 * ep;
		CHECK(gs_time_estimate(&a, &s, &g, &o, &t, &e) == GS_OK, "intensity: moe toy ep %d (%s)", ep, e.msg);
		x = intensity(f, m, k, n, 4);
		CHECK(close_to(t.eff, GS_TIME_TRAIN_EFF_MAX * x / (x + 100)), "intensity: moe toy ep %d: x = %g, eff %g",
		      ep, x, t.eff);
	}
}

/* Expert parallelism by hand on the MoE toy, 4 GPUs, FSDP, 2 x 32 tokens:
 * the all-to-alls and the experts left out of the gathers. */
static void test_expert_parallel(void)
{
	gs_arch a, d;
	gs_settings s;
	gs_gpu g = toy_gpu();
	gs_time t1, t4, tn, dd;
	gs_time_opts o;
	gs_error e = { 0 };
	double lat_nv = (GS_TIME_AR_BASE_US + 3 * GS_TIME_AR_HOP_US_NVLINK) * 1e-6, round, r, gl;

	toy_moe(&a);
	train(&s, GS_FULL, 2, 32, false);
	s.gpus = 4;
	s.sharding = GS_SH_FSDP;
	gs_time_opts_default(&o);
	CHECK(gs_time_estimate(&a, &s, &g, &o, &t1, &e) == GS_OK && t1.ep_comm_s == 0, "ep 1: no all-to-all (%s)",
	      e.msg);
	s.ep = 4;
	CHECK(gs_time_estimate(&a, &s, &g, &o, &t4, &e) == GS_OK, "ep 4 (%s)", e.msg);
	/* one round: 2 MoE layers' latency + 3/4 of 64 tokens x (2 layers x
	 * top-2) copies x 64 x 2 bytes over NVLink's 100 GB/s; 4 rounds */
	round = 2 * lat_nv + 3.0 / 4 * 64 * 4 * 64 * 2 / 100e9;
	CHECK(close_to(t4.ep_comm_s, 4 * round), "ep 4: 4 all-to-alls of %g s (%g)", round, t4.ep_comm_s);
	CHECK(close_to(t4.step_s, t4.compute_s + t4.ep_comm_s + t4.optim_s + (t4.comm_s > t4.compute_s ?
	                                                                            t4.comm_s - t4.compute_s : 0)),
	      "ep 4: the all-to-alls are in the step, not overlapped");
	/* FSDP gathers only the shared parameters: the experts live on one rank of 4 */
	r = 2 * 8 * 24576.0 / (double)a.params_total;
	gl = 3 * 2 * lat_nv;
	CHECK(close_to(t4.comm_s - gl, (1 - r) * (t1.comm_s - gl)), "ep 4 = dp: the experts are not gathered (%g, %g)",
	      t4.comm_s, t1.comm_s);
	/* recompute: two more all-to-alls; across nodes: the network */
	s.grad_ckpt = true;
	gs_time_estimate(&a, &s, &g, &o, &tn, &e);
	CHECK(close_to(tn.ep_comm_s, 6 * round), "ep 4, recompute: 6 all-to-alls (%g)", tn.ep_comm_s);
	s.grad_ckpt = false;
	o.gpus_per_node = 2;
	gs_time_estimate(&a, &s, &g, &o, &tn, &e);
	round = 2 * (GS_TIME_AR_BASE_US + 3 * GS_TIME_AR_HOP_US_NET) * 1e-6 + 3.0 / 4 * 64 * 4 * 64 * 2 / 50e9;
	CHECK(close_to(tn.ep_comm_s, 4 * round), "ep 4 over 2 nodes: the network's 50 GB/s (%g)", tn.ep_comm_s);
	/* DeepEP: a token goes once to each other rank holding one of its 2
	 * experts (2 of the 8 on each of 4 ranks: 3 x (1 - 6/8 x 5/7) = 1.393
	 * ranks a layer, against Megatron's 3/4 x 2 copies); across 2 nodes,
	 * once over the network to the other node (1 - 4/8 x 3/7 = 0.786 a
	 * layer) while NVLink forwards, the slower of the two */
	o.ep_dedup = true;
	gs_time_estimate(&a, &s, &g, &o, &tn, &e);
	round = 2 * (GS_TIME_AR_BASE_US + 3 * GS_TIME_AR_HOP_US_NET) * 1e-6 +
	        fmax(64 * 2 * (1 - 4.0 / 8 * 3 / 7) * 64 * 2 / 50e9, 64 * 2 * 3 * (1 - 6.0 / 8 * 5 / 7) * 64 * 2 / 100e9);
	CHECK(close_to(tn.ep_comm_s, 4 * round), "DeepEP over 2 nodes: a token once a node (%g, %g)", tn.ep_comm_s,
	      4 * round);
	o.gpus_per_node = 8;
	gs_time_estimate(&a, &s, &g, &o, &tn, &e);
	round = 2 * lat_nv + 64 * 2 * 3 * (1 - 6.0 / 8 * 5 / 7) * 64 * 2 / 100e9;
	CHECK(close_to(tn.ep_comm_s, 4 * round) && tn.ep_comm_s < t4.ep_comm_s,
	      "DeepEP in a node: a token once a rank, less than a copy an expert (%g < %g)", tn.ep_comm_s, t4.ep_comm_s);
	o.ep_dedup = false;
	/* errors and no-ops */
	s.ep = 3;
	CHECK(gs_time_estimate(&a, &s, &g, &o, &tn, &e) == GS_EUSAGE, "ep 3 of 4 data-parallel ranks: refused");
	toy(&d);
	s.ep = 4;
	CHECK(gs_time_estimate(&d, &s, &g, &o, &dd, &e) == GS_OK && dd.ep_comm_s == 0, "ep on a dense model: nothing");
}

/* Megatron-style layouts: tensor parallel all-reduces and 1F1B bubbles. */
static void test_train_layouts(void)
{
	gs_arch a;
	gs_settings s;
	gs_gpu g = toy_gpu();
	gs_time t1, tp, pp;
	gs_time_opts o;
	gs_error e = { 0 };

	toy(&a);
	train(&s, GS_FULL, 2, 32, false);
	s.grad_accum = 8;
	gs_time_opts_default(&o);
	gs_time_estimate(&a, &s, &g, &o, &t1, &e);
	/* TP 2: 4 all-reduces a layer a micro-batch of 2 x 32 tokens x 64 x 2 bytes */
	s.gpus = 2;
	s.tp = 2;
	CHECK(gs_time_estimate(&a, &s, &g, &o, &tp, &e) == GS_OK, "tp 2 (%s)", e.msg);
	{
		double ar = nccl_by_hand(2, 0, false, 2.0 * 1 / 2 * 64 * 64 * 2, 100, GS_TIME_AR_LL_MAX_GBS_VOLTA, false);
		CHECK(close_to(tp.tp_comm_s, 8 * 4 * 2 * ar), "tp 2: 8 micro-batches x 4 x 2 layers x %g s (%g)", ar,
		      tp.tp_comm_s);
		CHECK(close_to(gs_time_allreduce_s(NULL, &g, 2, 8, 64 * 64 * 2), ar), "one all-reduce, by hand");
	}
	CHECK(tp.step_s >= t1.step_s / 2, "tp 2: never faster than half of one GPU's step (%g, %g)", tp.step_s,
	      t1.step_s);
	/* 1F1B over 4 stages, 8 micro-batches: (4 - 1) / 8 idle; with 2
	 * virtual stages (4 - 1) / 16 */
	s.gpus = 4;
	s.tp = 1;
	s.pp = 4;
	CHECK(gs_time_estimate(&a, &s, &g, &o, &pp, &e) == GS_OK, "pp 4 (%s)", e.msg);
	CHECK(close_to(pp.bubble, 3.0 / 8) && close_to(pp.compute_s, t1.compute_s / 4 * (1 + 3.0 / 8)),
	      "pp 4: bubble 3/8, compute a quarter of one GPU's x 11/8 (%g, %g)", pp.bubble, pp.compute_s);
	CHECK(close_to(pp.tokens_step, t1.tokens_step), "pp 4 on 4 GPUs: one data-parallel rank's tokens");
	s.vpp = 2;
	gs_time_estimate(&a, &s, &g, &o, &pp, &e);
	CHECK(close_to(pp.bubble, 3.0 / 16), "pp 4, 2 virtual stages: bubble 3/16 (%g)", pp.bubble);
	s.pp = 3;
	s.vpp = 1;
	memset(&e, 0, sizeof e);
	CHECK(gs_time_estimate(&a, &s, &g, &o, &pp, &e) == GS_EUSAGE && strstr(e.msg, "pipeline") != NULL,
	      "4 GPUs do not split into 3 stages: refused (%s)", e.msg);
	/* the naive pipeline (HF device_map): one GPU at a time */
	s.pp = 1;
	s.sharding = GS_SH_PIPELINE;
	gs_time_estimate(&a, &s, &g, &o, &pp, &e);
	CHECK(close_to(pp.compute_s, t1.compute_s) && close_to(pp.tokens_step, t1.tokens_step),
	      "naive pipeline on 4 GPUs: one GPU's compute and tokens");
	/* eager attention writes and reads its score matrices */
	{
		gs_time_params P;
		gs_time te, tz;
		gs_time_params_default(&P);
		train(&s, GS_FULL, 2, 32, false);
		s.attn = GS_ATTN_EAGER;
		gs_time_opts_default(&o);
		o.params = &P;
		gs_time_estimate(&a, &s, &g, &o, &te, &e);
		P.eager_attn_bytes = 0;
		gs_time_estimate(&a, &s, &g, &o, &tz, &e);
		/* 3 passes x 20 bytes x 4 heads x 32^2 x 2 layers x 2 sequences */
		CHECK(close_to(te.compute_s - tz.compute_s, 3 * 20.0 * 4 * 32 * 32 * 2 * 2 / toy_stream()),
		      "eager attention: 20 bytes a score, 3 passes (%g s)", te.compute_s - tz.compute_s);
	}
}

/* Inference settings: b prompts of p tokens, gen new tokens each. */
static void infer_settings(gs_settings *s, int64_t b, int64_t p, int64_t gen)
{
	gs_settings_default(s);
	s->method = GS_INFER;
	s->batch = b;
	s->seq = p;
	s->new_tokens = gen;
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
	infer_settings(&s, 1, 10, 10);
	CHECK(gs_time_estimate(&a, &s, &g, NULL, &t, &e) == GS_OK, "inference (%s)", e.msg);
	/* bf16 weights, the KV cache at the mean context 15 (15 x 2 x 64 x 2
	 * layers x 2 bytes), and DynamicCache's torch.cat rebuild of it (read
	 * and written: twice) */
	CHECK(close_to(t.decode_bytes, TOY_NMM * 2 + 3 * 15 * 128 * 2 * 2.0), "decode bytes %g", t.decode_bytes);
	CHECK(close_to(t.generate_s, t.prefill_s + 10 * t.decode_step_s), "generate = prefill + steps");
	CHECK(close_to(t.decode_tok_s_seq, 1 / t.decode_step_s), "decode tokens/s");
	CHECK(t.usd_per_mtok == 0, "no price: no cost a token");
	CHECK(t.kernel == GS_K_DENSE, "bf16 under hf: the dense kernel");
	{
		/* hf: the host's time and the GPU's overlap (the larger decides);
		 * autoawq, with the same figures, adds them. Both orders. */
		gs_time_params P;
		gs_time_opts o;
		gs_time th, tg, ta;
		gs_time_params_default(&P);
		gs_time_opts_default(&o);
		o.params = &P;
		P.dec_layer_s[GS_RTC_HF] = 0;
		P.dec_bw_eff[GS_RTC_FUSED] = P.dec_bw_eff[GS_RTC_HF];
		P.prefill_eff[GS_RTC_FUSED] = P.prefill_eff[GS_RTC_HF];
		s.kv_cache = GS_KVC_STATIC; /* autoawq's own cache writes in place: compare like with like */
		gs_time_estimate(&a, &s, &g, &o, &tg, &e); /* the GPU's time alone */
		for (int k = 0; k < 2; k++) {
			double host = k == 0 ? tg.decode_step_s / 2 : tg.decode_step_s * 3; /* the toy's 2 layers */
			P.dec_layer_s[GS_RTC_HF] = P.dec_layer_s[GS_RTC_FUSED] = host / 2;
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
		/* a desktop card's host runs HOST_DESKTOP of a server's time */
		g.segment = GS_SEG_CONSUMER;
		o.runtime = GS_RT_AUTOAWQ;
		gs_time_estimate(&a, &s, &g, &o, &ta, &e);
		CHECK(close_to(ta.host_s, GS_TIME_HOST_DESKTOP * P.dec_layer_s[GS_RTC_FUSED] * 2),
		      "desktop host: %g of the server's (%g s)", GS_TIME_HOST_DESKTOP, ta.host_s);
		g.segment = GS_SEG_NONE;
		s.kv_cache = GS_KVC_DYNAMIC;
	}
	g.price_usd_hour = 3.6;
	s.gpus = 2;
	s.tp = 2;
	gs_time_estimate(&a, &s, &g, NULL, &t, &e);
	/* 2 GPUs at $3.60 an hour = $0.002 a second, over the tokens a second */
	CHECK(close_to(t.usd_per_mtok, 0.002 / t.decode_tok_s_total * 1e6), "USD per M tokens (%g)", t.usd_per_mtok);
	CHECK(t.tp_comm_s > 0, "tp 2: the all-reduces are in the step (%g s)", t.tp_comm_s);
	g.price_usd_hour = 0;
	s.gpus = 1;
	s.tp = 1;
	s.precision = GS_P_AWQ_INT4;
	s.precision_set = true;
	gs_time_estimate(&a, &s, &g, NULL, &t, &e);
	/* the precision table's AWQ layout, as the engine sizes it: per linear
	 * 0.5 bytes a weight, 2.5 bytes (fp16 scale, 4-bit zero) a group of
	 * 128 and 4 bytes (g_idx) an input feature. q, k, v, o (64 x 64):
	 * 2048 + 80 + 256 = 2384 each; gate, up (64 in, 128 out): 4096 + 160
	 * + 256 = 4512 each; down (128 in): 4096 + 160 + 512 = 4768; 23,328 a
	 * layer, 46,656 both; the head at 16 bits, 12,800 */
	CHECK(close_to(t.weight_bytes, 2 * (4 * 2384.0 + 2 * 4512.0 + 4768.0) + 6400 * 2.0) &&
	              t.kernel == GS_K_AWQ_GEMM,
	      "int4: 4 bits, a group's scale and zero and the g_idx a linear weight, the head at 16 bits, "
	      "AWQ's GEMM under hf (%g)", t.weight_bytes);
	rt = gs_runtime_parse("vLLM");
	CHECK(rt == GS_RT_VLLM && gs_runtime_class(GS_RT_VLLM) == GS_RTC_SERVING && gs_runtime_parse("nope") == -1 &&
	      gs_runtime_parse("AutoAWQ") == GS_RT_AUTOAWQ && gs_runtime_parse("trt-llm") == GS_RT_TRTLLM,
	      "runtime names");
	CHECK(strcmp(gs_runtime_name(GS_RT_LLAMACPP), "llama.cpp") == 0 && gs_kernel_parse("Marlin") == GS_K_MARLIN &&
	      gs_kernel_parse("nope") == -1 && strcmp(gs_kernel_name(GS_K_BNB_NF4), "bnb-nf4") == 0,
	      "runtime and kernel names");
	CHECK(gs_train_runtime_parse("NeMo") == GS_TRT_MEGATRON && gs_train_runtime_parse("hf") == GS_TRT_PYTORCH &&
	      gs_train_runtime_parse("vllm") == -1 && strcmp(gs_train_runtime_name(GS_TRT_MEGATRON), "megatron") == 0,
	      "training stack names");
	{
		gs_time_opts o;
		gs_time_opts_default(&o);
		o.train_runtime = GS_TRT_MAX;
		memset(&e, 0, sizeof e);
		CHECK(gs_time_estimate(&a, &s, &g, &o, &t, &e) == GS_EUSAGE, "an unknown training stack is refused");
		gs_time_opts_default(&o);
		o.kernel = GS_K_MAX;
		memset(&e, 0, sizeof e);
		CHECK(gs_time_estimate(&a, &s, &g, &o, &t, &e) == GS_EUSAGE, "an unknown kernel is refused");
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

/* The decode cases' settings: 3 sequences of a 10-token prompt and 10 new
 * tokens (the mean context 15). */
static void decode_toy(gs_settings *s)
{
	gs_settings_default(s);
	s->method = GS_INFER;
	s->batch = 3;
	s->seq = 10;
	s->new_tokens = 10;
}

/* Hand-computed: the KV read, each cache's copy, the kernels' bytes. */
static void test_decode_bytes(void)
{
	gs_arch a;
	gs_settings s;
	gs_gpu g = toy_gpu();
	gs_time t;
	gs_time_opts o;
	gs_error e = { 0 };
	/* 3 sequences at the mean context 10 + 10 / 2 = 15; 128 cached
	 * elements a token and layer (2 x 4 heads x 16), 2 layers, 2 bytes */
	double kv = 3 * 15 * 128 * 2 * 2.0;

	toy(&a);
	decode_toy(&s);
	gs_time_opts_default(&o);
	gs_time_estimate(&a, &s, &g, &o, &t, &e);
	CHECK(close_to(t.kv_read_bytes, kv), "KV read: 3 x 15 x 128 x 2 layers x 2 bytes = %g (%g)", kv,
	      t.kv_read_bytes);
	CHECK(close_to(t.cache_copy_bytes, 2 * kv), "DynamicCache: torch.cat reads and writes the cache: %g (%g)",
	      2 * kv, t.cache_copy_bytes);
	s.kv_cache = GS_KVC_LEGACY;
	gs_time_estimate(&a, &s, &g, &o, &t, &e);
	CHECK(close_to(t.cache_copy_bytes, 2 * kv), "legacy tuple cache: the same copy (%g)", t.cache_copy_bytes);
	s.kv_cache = GS_KVC_STATIC;
	gs_time_estimate(&a, &s, &g, &o, &t, &e);
	CHECK(t.cache_copy_bytes == 0 && close_to(t.kv_read_bytes, kv), "static cache: no copy, the same read");
	s.kv_cache = GS_KVC_DYNAMIC;
	o.runtime = GS_RT_VLLM;
	gs_time_estimate(&a, &s, &g, &o, &t, &e);
	CHECK(t.cache_copy_bytes == 0, "vllm's paged cache: no copy, whatever --kv-cache says");
	s.kv_dtype = GS_DT_FP8;
	s.kv_dtype_set = true;
	gs_time_estimate(&a, &s, &g, &o, &t, &e);
	CHECK(close_to(t.kv_read_bytes, kv / 2), "fp8 KV: half the read (%g)", t.kv_read_bytes);
	s.kv_dtype_set = false;
	s.tp = 2;
	s.gpus = 2;
	gs_time_estimate(&a, &s, &g, &o, &t, &e);
	CHECK(close_to(t.kv_read_bytes, kv / 2), "tp 2: each GPU reads its heads' half (%g)", t.kv_read_bytes);
	s.tp = 1;
	s.gpus = 1;
	/* bitsandbytes 4-bit: the GEMV reads the packed weights at one token;
	 * above, each step writes and reads a 16-bit copy (4 bytes a weight) */
	o.runtime = GS_RT_HF;
	s.precision = GS_P_NF4;
	s.precision_set = true;
	s.kv_cache = GS_KVC_STATIC;
	s.batch = 1;
	gs_time_estimate(&a, &s, &g, &o, &t, &e);
	CHECK(t.kernel == GS_K_BNB_NF4 && t.dequant_bytes == 0 &&
	      close_to(t.weight_bytes, 81920 * GS_NF4_BYTES + 6400 * 2.0),
	      "nf4 at one token: the packed linears, the head at 16 bits (%g)", t.weight_bytes);
	s.batch = 2;
	gs_time_estimate(&a, &s, &g, &o, &t, &e);
	CHECK(close_to(t.dequant_bytes, 81920 * 4.0), "nf4 at 2 tokens: dequantize + GEMM, 4 more bytes a weight (%g)",
	      t.dequant_bytes);
	/* EXL2 at 2.5 bits a weight */
	o.runtime = GS_RT_EXLLAMA;
	o.weight_bpp = 2.5 / 8;
	s.precision = GS_P_GPTQ_INT4;
	gs_time_estimate(&a, &s, &g, &o, &t, &e);
	CHECK(t.kernel == GS_K_EXLLAMAV2 && close_to(t.weight_bytes, 81920 * 2.5 / 8 + 6400 * 2.0),
	      "exl2 2.5 bpw: ExLlamaV2's kernel and its bytes (%g)", t.weight_bytes);
	/* fp4 on a GPU with fp4 tensor cores; fp8 without; bf16 without either */
	o.weight_bpp = 0;
	o.runtime = GS_RT_TRTLLM;
	o.kernel = GS_K_FP4;
	g.fp4_tflops = 400;
	gs_time_estimate(&a, &s, &g, &o, &t, &e);
	CHECK(t.peak_tflops == 400 && close_to(t.weight_bytes, 81920 * (0.5 + 1.0 / 16) + 6400 * 2.0),
	      "fp4: the fp4 peak and NVFP4's bytes (%g, %g)", t.peak_tflops, t.weight_bytes);
	g.fp4_tflops = 0;
	gs_time_estimate(&a, &s, &g, &o, &t, &e);
	CHECK(t.peak_tflops == 200, "fp4 without fp4_tflops: fp8's peak (%g)", t.peak_tflops);
	g.fp8_tflops = 0;
	gs_time_estimate(&a, &s, &g, &o, &t, &e);
	CHECK(t.peak_tflops == 100, "fp4 without fp4 or fp8: bf16's peak (%g)", t.peak_tflops);
}

/* Hand-computed: a decode kernel that streams each KV head once per query
 * head of its group (TensorRT-LLM's masked MHA before XQA) reads a GQA
 * cache heads / kv_heads times; multi-head attention's once. */
static void test_kv_per_qhead(void)
{
	gs_arch a;
	gs_settings s;
	gs_gpu g = toy_gpu();
	gs_time t, t1;
	gs_time_opts o;
	gs_error e = { 0 };
	/* the toy with 1 KV head for its 4 query heads: 2 x 1 x 16 = 32 cached
	 * elements a token and layer; 3 sequences at the mean context 15 */
	double kv = 3 * 15 * 32 * 2 * 2.0;

	CHECK(gs_arch_manual(&a, 0, 2, 64, 4, 1, 128, 100, &e) == GS_OK, "GQA toy (%s)", e.msg);
	decode_toy(&s);
	gs_time_opts_default(&o);
	o.runtime = GS_RT_TRTLLM;
	gs_time_estimate(&a, &s, &g, &o, &t1, &e);
	CHECK(close_to(t1.kv_read_bytes, kv), "XQA: each KV head read once: 3 x 15 x 32 x 2 x 2 = %g (%g)", kv,
	      t1.kv_read_bytes);
	o.kv_per_qhead = true;
	gs_time_estimate(&a, &s, &g, &o, &t, &e);
	CHECK(close_to(t.kv_read_bytes, 4 * kv), "masked MHA: once per query head, 4 x %g (%g)", kv, t.kv_read_bytes);
	CHECK(t.decode_step_s > t1.decode_step_s && close_to(t.weight_bytes, t1.weight_bytes),
	      "the step is slower by the reads alone (%g > %g s)", t.decode_step_s, t1.decode_step_s);
	CHECK(gs_kind_q_per_kv(&a, &a.kind[0]) == 4, "the group: 4 query heads a KV head");
	a.kind[0].mixer = GS_MIX_MLA;
	CHECK(gs_kind_q_per_kv(&a, &a.kind[0]) == 1, "MLA: one latent cache for every head");
	toy(&a);
	gs_time_estimate(&a, &s, &g, &o, &t, &e);
	CHECK(close_to(t.kv_read_bytes, 3 * 15 * 128 * 2 * 2.0), "multi-head attention: no group, one read (%g)",
	      t.kv_read_bytes);
}

/* Hand-computed all-reduces: NCCL's ring latency and the bytes over the link. */
static void test_allreduce(void)
{
	gs_gpu g = toy_gpu();
	double mib = 1048576;
	/* 4 GPUs on the toy's 100 GB/s NVLink, 1 MiB, 6 steps: LL 10.2 us +
	 * 1.5 MiB at 39 GB/s (Volta's cap: the toy's architecture is unknown)
	 * = 50.5 us; Simple 8.4 + 6 x 3.4 = 28.8 us + 1.5 MiB at 100 GB/s =
	 * 44.5 us: Simple */
	double nv = (8.4 + 6 * 3.4) * 1e-6 + 2.0 * 3 / 4 * mib / 100e9;
	/* two nodes of 8: 30 steps, 4 of them (2 x nodes) over the network; the
	 * bus is the node's NVLink (100) under its NICs' 400; LL's cap across
	 * two nodes 39 GB/s: LL (6.6 + 26 x 0.6 + 4 x 2.7 = 33.0 us + 50.4) wins
	 * over Simple (152.8 + 19.7) */
	double net = (6.6 + 26 * 0.6 + 4 * 2.7) * 1e-6 + 2.0 * 15 / 16 * mib / 39e9;
	/* one GPU a node: every step crosses, one NIC's 50 GB/s, LL's cap on
	 * more than two nodes 20.4 GB/s */
	double net1 = (6.6 + 30 * 2.7) * 1e-6 + 2.0 * 15 / 16 * mib / 20.4e9;
	/* PCIe Gen4 x16 (31.52 GB/s): LL 12.6 + 99.8 us, Simple 42.6 + 49.9 us */
	double pcie = (8.4 + 6 * 5.7) * 1e-6 + 2.0 * 3 / 4 * mib / (0.985 * 2 * 16 * 1e9);

	CHECK(close_to(gs_time_allreduce_s(NULL, &g, 4, 8, mib), nv), "1 MiB over 4 GPUs on NVLink: Simple, %.3g us",
	      nv * 1e6);
	CHECK(close_to(gs_time_allreduce_s(NULL, &g, 16, 8, mib), net),
	      "16 GPUs span two nodes: LL, 4 network hops, 100 GB/s capped at 39 (%.3g us)", net * 1e6);
	CHECK(close_to(gs_time_allreduce_s(NULL, &g, 16, 1, mib), net1),
	      "16 nodes of one GPU: LL, 30 network hops, capped at 20.4 GB/s (%.3g us)", net1 * 1e6);
	/* an Ampere node (300 GB/s NVLink): each protocol where it is least,
	 * LL at 64 KiB (capped at 87.7 GB/s), LL128 at 4 MiB (0.92 of the bus,
	 * 14 + 6 x 1.9 us), Simple at 16 MiB */
	g.uarch = GS_UARCH_AMPERE;
	g.link_gbs = 300;
	CHECK(close_to(gs_time_allreduce_s(NULL, &g, 4, 8, 65536), 10.2e-6 + 1.5 * 65536 / 87.7e9),
	      "Ampere, 64 KiB: LL (%.3g us)", gs_time_allreduce_s(NULL, &g, 4, 8, 65536) * 1e6);
	CHECK(close_to(gs_time_allreduce_s(NULL, &g, 4, 8, 4 * mib), 25.4e-6 + 1.5 * 4 * mib / (0.92 * 300e9)),
	      "Ampere, 4 MiB: LL128 (%.3g us)", gs_time_allreduce_s(NULL, &g, 4, 8, 4 * mib) * 1e6);
	CHECK(close_to(gs_time_allreduce_s(NULL, &g, 4, 8, 16 * mib), 28.8e-6 + 1.5 * 16 * mib / 300e9),
	      "Ampere, 16 MiB: Simple (%.3g us)", gs_time_allreduce_s(NULL, &g, 4, 8, 16 * mib) * 1e6);
	g = toy_gpu();
	g.link_gbs = 0;
	strcpy(g.interconnect, "none");
	CHECK(close_to(gs_time_allreduce_s(NULL, &g, 4, 8, mib), pcie), "1 MiB over 4 GPUs on PCIe Gen4 x16: Simple, %.3g us",
	      pcie * 1e6);
	CHECK(gs_time_allreduce_s(NULL, &g, 1, 8, mib) == 0, "one GPU: no all-reduce");
}

/* An engine's own all-reduce (vLLM, SGLang, TensorRT-LLM): LL's latency
 * at the link's full bandwidth; NCCL's under the others, or when named. */
static void test_allreduce_runtime(void)
{
	gs_arch a;
	gs_settings s;
	gs_gpu g = toy_gpu();
	gs_time t;
	gs_time_opts o;
	gs_error e = { 0 };
	/* 2 layers x 2 all-reduces of 3 sequences' 64 x 2 bytes over 2 GPUs */
	double bytes = 3 * 64 * 2, custom = 4 * ((6.6 + 2 * 0.6) * 1e-6 + bytes / 100e9);
	double nccl = 4 * nccl_by_hand(2, 0, false, bytes, 100, GS_TIME_AR_LL_MAX_GBS_VOLTA, false);

	toy(&a);
	decode_toy(&s);
	s.gpus = 2;
	s.tp = 2;
	gs_time_opts_default(&o);
	o.runtime = GS_RT_VLLM;
	gs_time_estimate(&a, &s, &g, &o, &t, &e);
	CHECK(close_to(t.tp_comm_s, custom), "vllm: its custom all-reduce, %g s (%g)", custom, t.tp_comm_s);
	o.allreduce = GS_AR_NCCL;
	gs_time_estimate(&a, &s, &g, &o, &t, &e);
	CHECK(close_to(t.tp_comm_s, nccl), "vllm before 0.3: NCCL's, %g s (%g)", nccl, t.tp_comm_s);
	o.allreduce = GS_AR_RUNTIME;
	o.runtime = GS_RT_LMDEPLOY;
	gs_time_estimate(&a, &s, &g, &o, &t, &e);
	CHECK(close_to(t.tp_comm_s, nccl) && nccl > custom, "lmdeploy: NCCL's, slower at this size (%g)", t.tp_comm_s);
	/* across nodes an engine's own all-reduce falls back to NCCL's */
	o.runtime = GS_RT_VLLM;
	o.gpus_per_node = 1;
	gs_time_estimate(&a, &s, &g, &o, &t, &e);
	CHECK(close_to(t.tp_comm_s, 4 * nccl_by_hand(2, 2, false, bytes, 50, GS_TIME_AR_LL_MAX_GBS_2NODES, false)),
	      "vllm over two nodes: NCCL's ring, both steps over the network (%g)", t.tp_comm_s);
}

/* A Llama-2-7B-like shape on an A100-like GPU, for the properties. */
static void seven_b(gs_arch *a)
{
	gs_error e = { 0 };
	CHECK(gs_arch_manual(a, 6738415616LL, 32, 4096, 32, 32, 0, 32000, &e) == GS_OK, "7B shape (%s)", e.msg);
}

static gs_gpu a100_like(void)
{
	gs_gpu g = toy_gpu();
	g.bf16_tflops = 312;
	g.fp8_tflops = 0;
	g.fp8 = false;
	g.bandwidth_gbs = 2039;
	g.link_gbs = 300;
	g.uarch = GS_UARCH_AMPERE;
	return g;
}

/* The runtimes the properties hold over. */
static const gs_runtime prop_runtimes[] = {
	GS_RT_HF, GS_RT_COMPILED, GS_RT_LLAMACPP, GS_RT_VLLM, GS_RT_TRTLLM, GS_RT_LMDEPLOY, GS_RT_AUTOAWQ,
	GS_RT_EXLLAMA, GS_RT_TGI, GS_RT_DEEPSPEED,
};

/* Properties: a decode step rises with the batch and the context; no
 * speed beats the bytes over the datasheet bandwidth or the FLOPs over the
 * datasheet peak. */
static void test_properties(void)
{
	gs_arch a;
	gs_settings s;
	gs_gpu g = a100_like();
	gs_time t, prev;
	gs_time_opts o;
	gs_error e = { 0 };
	static const gs_prec precs[] = { GS_P_BF16, GS_P_FP8, GS_P_INT8, GS_P_NF4, GS_P_GPTQ_INT4, GS_P_AWQ_INT4 };
	int rises_b = 1, rises_c = 1, bound = 1, n = 0;
	double first = 0;

	seven_b(&a);
	gs_settings_default(&s);
	s.method = GS_INFER;
	for (size_t r = 0; r < sizeof prop_runtimes / sizeof prop_runtimes[0]; r++)
		for (size_t q = 0; q < sizeof precs / sizeof precs[0]; q++) {
			gs_time_opts_default(&o);
			o.runtime = prop_runtimes[r];
			s.precision = precs[q];
			s.precision_set = true;
			s.seq = 512;
			s.new_tokens = 128;
			memset(&prev, 0, sizeof prev);
			for (int64_t b = 1; b <= 256; b *= 2) {
				s.batch = b;
				if (gs_time_estimate(&a, &s, &g, &o, &t, &e) != GS_OK)
					continue;
				n++;
				/* never falls; the bytes it moves rise (a host-bound step, as
				 * transformers' at small batches, is flat until the GPU's time
				 * passes the host's) */
				if (b > 1 && !(t.decode_step_s >= prev.decode_step_s && t.decode_bytes > prev.decode_bytes)) {
					if (rises_b)
						printf("  not rising with the batch: %s %s b %lld: %g after %g\n",
						       gs_runtime_name(prop_runtimes[r]), gs_kernel_name(t.kernel), (long long)b,
						       t.decode_step_s, prev.decode_step_s);
					rises_b = 0;
				}
				if (b == 1)
					first = t.decode_step_s;
				if (b == 256 && !(t.decode_step_s > first)) {
					printf("  batch 256 not over batch 1: %s %s: %g, %g\n", gs_runtime_name(prop_runtimes[r]),
					       gs_kernel_name(t.kernel), t.decode_step_s, first);
					rises_b = 0;
				}
				if (t.decode_step_s < t.decode_bytes / (g.bandwidth_gbs * 1e9) * (1 - 1e-12) ||
				    t.decode_step_s < t.decode_flops / (t.peak_tflops * 1e12) * (1 - 1e-12) ||
				    t.prefill_s < 2 * (t.n_mm - 32000.0 * 4096) * (double)(b * s.seq) /
				                      (t.peak_tflops * 1e12) * (1 - 1e-12)) {
					if (bound)
						printf("  under a bound: %s %s b %lld: step %g bytes %g flops %g prefill %g\n",
						       gs_runtime_name(prop_runtimes[r]), gs_kernel_name(t.kernel), (long long)b,
						       t.decode_step_s, t.decode_bytes, t.decode_flops, t.prefill_s);
					bound = 0;
				}
				prev = t;
			}
			s.batch = 8;
			memset(&prev, 0, sizeof prev);
			for (int64_t c = 128; c <= 32768; c *= 4) {
				if (c == 128 && gs_time_estimate(&a, &s, &g, &o, &t, &e) == GS_OK)
					first = t.decode_step_s;
				s.seq = c;
				if (gs_time_estimate(&a, &s, &g, &o, &t, &e) != GS_OK)
					continue;
				if (c > 128 && !(t.decode_step_s >= prev.decode_step_s && t.decode_bytes > prev.decode_bytes &&
				                 t.prefill_s > prev.prefill_s)) {
					if (rises_c)
						printf("  not rising with the context: %s %s c %lld: %g after %g, prefill %g "
						       "after %g\n", gs_runtime_name(prop_runtimes[r]), gs_kernel_name(t.kernel),
						       (long long)c, t.decode_step_s, prev.decode_step_s, t.prefill_s,
						       prev.prefill_s);
					rises_c = 0;
				}
				if (c == 32768 && !(t.decode_step_s > first)) {
					printf("  context 32768 not over 128: %s %s: %g, %g\n", gs_runtime_name(prop_runtimes[r]),
					       gs_kernel_name(t.kernel), t.decode_step_s, first);
					rises_c = 0;
				}
				prev = t;
			}
		}
	CHECK(n > 400, "properties: %d configurations estimated", n);
	CHECK(rises_b, "every runtime and kernel: a decode step never falls as the batch doubles, its bytes rise, "
	      "and batch 256 takes longer than batch 1");
	CHECK(rises_c, "every runtime and kernel: a decode step never falls as the context grows, its bytes and the "
	      "prefill rise, and 32768 tokens take longer than 128");
	CHECK(bound, "no decode step beats its bytes over the datasheet bandwidth or its FLOPs over the peak, "
	      "no prefill its GEMM FLOPs over the peak");
}

/* Properties of many GPUs: tensor parallel never beats the single GPU's
 * bounds split; training never beats its FLOPs over the GPUs' peak. */
static void test_parallel_bounds(void)
{
	gs_arch a;
	gs_settings s;
	gs_gpu g = a100_like();
	gs_time_opts o;
	gs_error e = { 0 };
	int tp_ok = 1;

	seven_b(&a);
	/* tensor parallel: tp GPUs never beat one GPU's compute and memory
	 * bounds split tp ways, nor one GPU's whole step split tp ways */
	infer_settings(&s, 1, 1024, 256);
	s.precision = GS_P_BF16;
	s.precision_set = true;
	for (size_t r = 0; r < sizeof prop_runtimes / sizeof prop_runtimes[0]; r++)
		for (int64_t b = 1; b <= 64; b *= 8) {
			gs_time one, tpn;
			gs_time_opts_default(&o);
			o.runtime = prop_runtimes[r];
			s.batch = b;
			s.tp = s.gpus = 1;
			gs_time_estimate(&a, &s, &g, &o, &one, &e);
			for (int64_t k = 2; k <= 8; k *= 2) {
				s.tp = s.gpus = k;
				gs_time_estimate(&a, &s, &g, &o, &tpn, &e);
				if (tpn.decode_step_s < one.decode_flops / (k * one.peak_tflops * 1e12) ||
				    tpn.decode_step_s < one.decode_bytes / (k * g.bandwidth_gbs * 1e9) ||
				    tpn.decode_step_s < one.decode_step_s / k || !(tpn.tp_comm_s > 0))
					tp_ok = 0;
			}
		}
	CHECK(tp_ok, "tensor parallel 2-8: a step never under one GPU's bounds or step split tp ways, "
	      "and its all-reduces are in it");
	/* training: never faster than its FLOPs over the GPUs' peak */
	{
		gs_time tt;
		int ok = 1;
		train(&s, GS_FULL, 4, 2048, false);
		for (int64_t n2 = 1; n2 <= 64; n2 *= 4) {
			s.gpus = n2;
			s.sharding = n2 > 1 ? GS_SH_FSDP : GS_SH_DDP;
			gs_time_estimate(&a, &s, &g, NULL, &tt, &e);
			if (tt.step_s < tt.flops_step / (n2 * tt.peak_tflops * 1e12))
				ok = 0;
		}
		CHECK(ok, "training on 1-64 GPUs: a step never under its FLOPs over the GPUs' peak");
	}
}

/* Serving at a concurrency: a step of c sequences and c prompts' prefills
 * shared over the new tokens. */
static void test_serving_time(void)
{
	gs_arch a;
	gs_settings s;
	gs_gpu g = a100_like();
	gs_time t, one, at_c;
	gs_time_opts o;
	gs_error e = { 0 };

	seven_b(&a);
	gs_settings_default(&s);
	s.method = GS_INFER;
	s.seq = 512;
	s.new_tokens = 128;
	gs_time_opts_default(&o);
	o.runtime = GS_RT_VLLM;
	o.concurrency = 32;
	gs_time_estimate(&a, &s, &g, &o, &t, &e);
	gs_time_estimate(&a, &s, &g, NULL, &one, &e); /* batch 1 under hf: only its prefill... */
	o.concurrency = 0;
	gs_time_estimate(&a, &s, &g, &o, &one, &e);   /* ...vllm's prefill of one prompt */
	s.batch = 32;
	gs_time_estimate(&a, &s, &g, &o, &at_c, &e); /* a step of 32 sequences */
	CHECK(close_to(t.ttft_s, one.prefill_s + at_c.decode_step_s), "TTFT: one prompt's prefill and a step of 32");
	CHECK(close_to(t.tpot_s, at_c.decode_step_s + 32 * one.prefill_s / 128),
	      "TPOT: a step of 32 plus 32 prefills over 128 tokens (%g s)", t.tpot_s);
	CHECK(close_to(t.serve_tok_s, 32 / t.tpot_s), "throughput: 32 / TPOT (%g tokens/s)", t.serve_tok_s);
	CHECK(t.serve_tok_s > one.serve_tok_s, "32 at once serve more tokens a second than 1");
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

/* The accumulate mode: a GeForce Ampere/Ada/Blackwell card runs FP16
 * accumulate at twice its file's (FP32-accumulate) figure, a professional
 * or data-centre part at the same; llama.cpp's and ExLlama's 16-bit GEMMs
 * run at that rate, every other runtime's (and llama.cpp's BF16 path) at
 * the file's; a prompt never beats its GEMM FLOPs over the rate it runs at. */
static void test_acc16(void)
{
	gs_arch a;
	gs_settings s;
	gs_gpu g = a100_like(), pro;
	gs_time t;
	gs_error e = { 0 };
	static const struct { gs_runtime rt; gs_prec p; double want; } cases[] = {
		{ GS_RT_LLAMACPP, GS_P_FP16, 330.4 }, { GS_RT_EXLLAMA, GS_P_GPTQ_INT4, 330.4 },
		{ GS_RT_LLAMACPP, GS_P_BF16, 165.2 }, { GS_RT_HF, GS_P_FP16, 165.2 }, { GS_RT_VLLM, GS_P_FP16, 165.2 },
	};
	int ok = 1;

	g.bf16_tflops = 165.2; /* RTX 4090 */
	g.bandwidth_gbs = 1008;
	g.segment = GS_SEG_CONSUMER;
	g.uarch = GS_UARCH_ADA;
	pro = g;
	pro.segment = GS_SEG_WORKSTATION;
	CHECK(gs_gpu_fp16_acc16_tflops(&g) == 2 * 165.2 && gs_gpu_fp16_acc16_tflops(&pro) == 165.2,
	      "FP16 accumulate: a GeForce Ada card 2 x its file's 165.2 (330.4), a workstation one the same");
	g.uarch = GS_UARCH_TURING;
	CHECK(gs_gpu_fp16_acc16_tflops(&g) == 165.2, "FP16 accumulate: a consumer Turing card at its file's rate");
	g.uarch = GS_UARCH_ADA;
	seven_b(&a);
	infer_settings(&s, 1, 512, 1);
	s.precision_set = true;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		gs_time_opts o;
		gs_time_opts_default(&o);
		o.runtime = cases[i].rt;
		s.precision = cases[i].p;
		if (gs_time_estimate(&a, &s, &g, &o, &t, &e) != GS_OK || fabs(t.peak_tflops - cases[i].want) > 1e-9 ||
		    t.prefill_s < 2 * (t.n_mm - 32000.0 * 4096) * 512 / (t.peak_tflops * 1e12)) {
			printf("  %s %s: peak %g, want %g\n", gs_runtime_name(cases[i].rt), gs_prec_name(cases[i].p),
			       t.peak_tflops, cases[i].want);
			ok = 0;
		}
	}
	CHECK(ok, "GeForce Ada: llama.cpp F16 and ExLlama GEMMs at 330.4 TFLOPS, llama.cpp BF16, transformers "
	      "and vLLM at 165.2; no prompt under its FLOPs over that peak");
}

/* prefill seconds of b prompts of p tokens under runtime rt, kernel k, the
 * AWQ GEMM's dequantize threshold at (0: the runtime's) */
static double awq_prefill(gs_runtime rt, gs_kernel k, int64_t at, int64_t b, int64_t p)
{
	gs_arch a;
	gs_settings s;
	gs_gpu g = a100_like();
	gs_time_opts o;
	gs_time t;
	gs_error e = { 0 };

	seven_b(&a);
	infer_settings(&s, b, p, 1);
	s.precision = GS_P_AWQ_INT4;
	s.precision_set = true;
	gs_time_opts_default(&o);
	o.runtime = rt;
	o.kernel = k;
	o.dequant_at = at;
	return gs_time_estimate(&a, &s, &g, &o, &t, &e) == GS_OK ? t.prefill_s : -1;
}

/* The AWQ GEMM kernel dequantizes at and above its runtime's threshold of
 * tokens a call (AutoAWQ's gemm.py batch x tokens >= 1024, vLLM's awq.py
 * >= 256): there it times as the dequant kernel, below it as the kernel
 * at every size (dequant_at < 0), and the packed kernel's prompts are the
 * slower (K_AWQ_GEMM_PREFILL under K_DEQUANT_PREFILL). */
static void test_awq_dequant(void)
{
	const gs_kernel A = GS_K_AWQ_GEMM, D = GS_K_DEQUANT, AUTO = GS_K_AUTO;

	CHECK(awq_prefill(GS_RT_AUTOAWQ, AUTO, 0, 1, 1024) == awq_prefill(GS_RT_AUTOAWQ, D, 0, 1, 1024) &&
	      awq_prefill(GS_RT_AUTOAWQ, AUTO, 0, 4, 256) == awq_prefill(GS_RT_AUTOAWQ, D, 0, 4, 256) &&
	      awq_prefill(GS_RT_AUTOAWQ, AUTO, 0, 1, 1023) == awq_prefill(GS_RT_AUTOAWQ, A, -1, 1, 1023) &&
	      awq_prefill(GS_RT_AUTOAWQ, AUTO, 0, 1, 1023) != awq_prefill(GS_RT_AUTOAWQ, D, 0, 1, 1023),
	      "AutoAWQ: 1 x 1024 and 4 x 256 prompt tokens dequantize, 1 x 1023 run the AWQ GEMM");
	CHECK(awq_prefill(GS_RT_VLLM, A, 0, 1, 256) == awq_prefill(GS_RT_VLLM, D, 0, 1, 256) &&
	      awq_prefill(GS_RT_VLLM, A, 0, 1, 255) == awq_prefill(GS_RT_VLLM, A, -1, 1, 255) &&
	      awq_prefill(GS_RT_VLLM, A, 512, 1, 511) == awq_prefill(GS_RT_VLLM, A, -1, 1, 511),
	      "vLLM: the AWQ GEMM dequantizes at 256 tokens, or at a threshold given");
	CHECK(awq_prefill(GS_RT_AUTOAWQ, A, -1, 1, 4096) > awq_prefill(GS_RT_AUTOAWQ, D, 0, 1, 4096),
	      "4096 prompt tokens: the packed AWQ GEMM slower than dequantize + a dense GEMM");
}

int main(void)
{
	test_acc16();
	test_awq_dequant();
	test_serving();
	test_dense_flops();
	test_attn_kernel();
	test_loss_bytes();
	test_ckpt_and_lora();
	test_moe_flops();
	test_step_parts();
	test_train_layouts();
	test_gemm_intensity();
	test_expert_parallel();
	test_inference_and_errors();
	test_decode_bytes();
	test_kv_per_qhead();
	test_allreduce_runtime();
	test_allreduce();
	test_properties();
	test_parallel_bounds();
	test_serving_time();
	CHECK_DONE();
}
