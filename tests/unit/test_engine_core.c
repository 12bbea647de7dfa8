/* The memory engine with hand-built architectures only (gs_arch_manual):
 * the seeds' formulas, the usage errors, and the detailed engine's
 * bookkeeping. Core only: links arch.c, engine.c, settings.c and err.c
 * (make check-core builds it with nothing but -lm). */
#include <math.h>
#include <stdlib.h>

#include "arch.h"
#include "check.h"
#include "engine.h"
#include "engine_run.h"

static int near(double a, double b, double tol)
{
	return fabs(a - b) <= tol * fmax(fabs(b), 1e-12);
}

static void seeds(void)
{
	/* seeds/000: estimate_budget(n_params=8_030_000_000) with its defaults:
	 * nf4, adamw_8bit, batch 1, seq 4096, 32 layers, hidden 4096,
	 * checkpointing on, trainable fraction 0.007. */
	gs_arch a;
	gs_error e = {0};
	gs_settings s;
	CHECK(gs_arch_manual(&a, 8030000000LL, 32, 4096, 0, 0, 0, 0, &e) == GS_OK, "seed: manual 8.03B model");
	gs_settings_default(&s);
	gs_settings_set(&s, "method", "qlora", &e);
	gs_settings_set(&s, "optimizer", "adamw-8bit", &e);
	gs_settings_set(&s, "seq", "4096", &e);
	gs_settings_set(&s, "formula", "cookbook", &e);
	s.grad_ckpt = true;
	gs_estimate x = run(&a, &s);
	double G = 1024.0 * 1024 * 1024;
	double W = 8.03e9 * 0.5, Gr = 8.03e9 * 0.007 * 2, O = 8.03e9 * 0.007 * 2;
	double A = 1.0 * 4096 * 32 * 4096 * 2 * 10 / sqrt(32) * 2.5, B = 3 * G;
	CHECK(near((double)x.W / G, 3.74, 0.002), "seed cookbook: W 3.74 GiB as printed");
	CHECK(near((double)x.G / G, 0.10, 0.05) && near((double)x.O / G, 0.10, 0.05), "seed cookbook: G and O 0.10 GiB as printed");
	CHECK(near((double)x.W, W, 1e-9) && near((double)x.G, Gr, 1e-6) && near((double)x.O, O, 1e-6), "seed cookbook: W, G, O exactly as the code");
	CHECK(near((double)x.A, A, 1e-9), "seed cookbook: A = 10 GiB / sqrt(32) * 2.5 = %.3f GiB (the seed's comment prints 5.21)", A / G);
	CHECK(near((double)x.B, B, 1e-12), "seed cookbook: B 3 GiB");
	CHECK(near((double)x.device, W + Gr + O + A + B, 1e-9), "seed cookbook: total %.2f GiB from the code (the comment prints 12.15)", (W + Gr + O + A + B) / G);
	gs_settings_set(&s, "trainable-fraction", "1", &e);
	x = run(&a, &s);
	CHECK(near((double)x.G, 8.03e9 * 2, 1e-9), "seed cookbook: --trainable-fraction 1 trains everything");

	/* The two byte-a-parameter rules size a full fine-tune only: on this
	 * QLoRA row they are refused, naming the method. */
	gs_settings_set(&s, "formula", "zero1-rule", &e);
	memset(&e, 0, sizeof e);
	CHECK(gs_estimate_run(&a, &s, &x, &e) == GS_EUSAGE && strstr(e.msg, "qlora") && strstr(e.msg, "full fine-tune"),
	      "seed zero1-rule: refused for QLoRA, naming the method (%s)", e.msg);
	gs_settings_set(&s, "method", "inference", &e);
	gs_settings_set(&s, "formula", "rule-of-thumb", &e);
	memset(&e, 0, sizeof e);
	CHECK(gs_estimate_run(&a, &s, &x, &e) == GS_EUSAGE && strstr(e.msg, "inference"),
	      "seed rule-of-thumb: refused for inference (%s)", e.msg);
	gs_settings_set(&s, "method", "full", &e);
	gs_settings_set(&s, "formula", "zero1-rule", &e);
	x = run(&a, &s);
	double z = (8.03e9 * 2 / 1e9 * 18 + 4096.0 * 4096 * 32 * 2 * 4 / 1e9) * 1e9;
	CHECK(near((double)x.device, z, 1e-9), "seed zero1-rule: calc_vram exactly");
	gs_settings_set(&s, "formula", "rule-of-thumb", &e);
	gs_settings_set(&s, "optimizer", "adamw", &e);
	x = run(&a, &s);
	double r = (8.03e9 * 4 / 1e9 * (1 + 12) + 4096.0 * 4096 * 32 * 2 * 4 / 1e9) * 1.2 * 1e9;
	CHECK(near((double)x.device, r, 1e-9), "seed rule-of-thumb: step 3 with Adam's multiplier 12 and a 20%% buffer");
}

static void errors(void)
{
	gs_arch a;
	gs_settings s;
	gs_estimate x;
	gs_error e = {0};
	/* Llama-3.2-1B's shape, untied */
	CHECK(gs_arch_manual(&a, 0, 16, 2048, 32, 8, 8192, 128256, &e) == GS_OK, "engine: manual Llama-3.2-1B shape");
	gs_settings_default(&s);
	gs_settings_set(&s, "method", "lora", &e);
	gs_settings_set(&s, "precision", "mixed-bf16", &e);
	CHECK(gs_estimate_run(&a, &s, &x, &e) == GS_EUSAGE && strstr(e.msg, "mixed-bf16"), "engine: a full-FT recipe with LoRA is a usage error naming it");
	memset(&e, 0, sizeof e);
	gs_settings_default(&s);
	gs_settings_set(&s, "gpus", "8", &e);
	gs_settings_set(&s, "tp", "3", &e);
	CHECK(gs_estimate_run(&a, &s, &x, &e) == GS_EUSAGE && strstr(e.msg, "--tp"), "engine: tp must divide gpus");
	memset(&e, 0, sizeof e);
	gs_settings_default(&s);
	CHECK(gs_settings_set(&s, "batch", "0", &e) == GS_EUSAGE && strstr(e.msg, "--batch"), "settings: batch 0 rejected");
	memset(&e, 0, sizeof e);
	CHECK(gs_settings_set(&s, "seq", "1e3", &e) == GS_EUSAGE, "settings: fractional/exponent seq rejected");
	memset(&e, 0, sizeof e);
	CHECK(gs_settings_set(&s, "lora-dropout", "nan", &e) == GS_EUSAGE, "settings: NaN dropout rejected");
	memset(&e, 0, sizeof e);
	CHECK(gs_settings_set(&s, "optimizer", "adam", &e) == GS_EUSAGE && strstr(e.msg, "adamw-fused"), "settings: unknown optimizer lists the choices");
}

static void bookkeeping(void)
{
	/* Every method and sharding on a manual 8-layer shape: the components
	 * add up to the device total, which holds the allocator's cache and
	 * the CUDA context on top of what torch allocated. */
	static const char *const methods[] = {"full", "lora", "qlora", "inference"};
	static const char *const shardings[] = {"ddp", "zero2", "zero3", "fsdp", "pipeline"};
	gs_arch a;
	gs_error e = {0};
	int bad_sum = 0, bad_order = 0, n = 0;

	CHECK(gs_arch_manual(&a, 0, 8, 1024, 16, 4, 0, 0, &e) == GS_OK, "engine: manual 8-layer shape");
	for (size_t m = 0; m < sizeof methods / sizeof *methods; m++)
		for (size_t k = 0; k < sizeof shardings / sizeof *shardings; k++) {
			gs_settings s;
			gs_settings_default(&s);
			if (gs_settings_set(&s, "method", methods[m], &e) != GS_OK ||
			    gs_settings_set(&s, "gpus", "4", &e) != GS_OK ||
			    gs_settings_set(&s, "sharding", shardings[k], &e) != GS_OK) {
				printf("FAIL settings: %s\n", e.msg);
				exit(1);
			}
			gs_estimate x = run(&a, &s);
			n++;
			bad_sum += x.W + x.G + x.O + x.A + x.B != x.device;
			bad_order += !(x.device > x.reserved && x.reserved >= x.allocated && x.allocated > x.W);
		}
	CHECK(bad_sum == 0, "engine: W+G+O+A+B = device (%d of %d cases violated)", bad_sum, n);
	CHECK(bad_order == 0, "engine: device > reserved >= allocated > W (%d of %d cases violated)", bad_order, n);
}

int main(void)
{
	seeds();
	errors();
	bookkeeping();
	CHECK_DONE();
}
