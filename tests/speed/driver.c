/* tests/speed/driver: the time model (src/core/timing.c) over the cases that
 * tests/speed/cases.py maps from speed.jsonl and speed2.jsonl. Reads lines
 *   id \t model \t gpu \t runtime \t weight_bytes \t settings \t time options
 * model: "cfg:PATH" (a config.json) or "manual:params,layers,hidden,heads,
 * kv_heads,intermediate,vocab" (gs_arch_manual; 0 = derived); settings:
 * "name=value;..." by gpusizer estimate's flag names; time options:
 * "kernel=NAME;ep-dispatch=deepep;concurrency=N;dequant-at=N;
 * weight-bpp=X;allreduce=nccl|custom;kv-per-qhead=1;attn-kernel=fa2|native"
 * or "-". Writes per line
 *   id \t status \t the gs_time fields as name=value (or the error). */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "config.h"
#include "engine.h"
#include "gpu_file.h"
#include "settings.h"
#include "timing.h"

static int load_model(const char *spec, gs_arch *a, gs_error *e)
{
	long long v[7] = { 0 };
	if (strncmp(spec, "cfg:", 4) == 0)
		return gs_config_load(spec + 4, a, e);
	if (strncmp(spec, "manual:", 7) != 0 ||
	    sscanf(spec + 7, "%lld,%lld,%lld,%lld,%lld,%lld,%lld", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
	           &v[6]) != 7)
		return gs_fail(e, GS_EUSAGE, "bad model spec %s", spec);
	return gs_arch_manual(a, v[0], v[1], v[2], v[3], v[4], v[5], v[6], e);
}

/* GS_TIME_PARAMS="name=value,...": override the model's figures (for
 * tests/speed/fit.py); names as gs_time_params; per engine class
 * NAME.CLASS (dec_bw_eff.serving), per kernel NAME.KERNEL (k_eff1.marlin),
 * per architecture NAME.ARCH (eff_max.ampere, mem_frac.hopper), per
 * training stack fp8_scale.pytorch|megatron. */
static int params_env(gs_time_params *P)
{
	const char *env = getenv("GS_TIME_PARAMS");
	char buf[4096];
	static const struct { const char *name; size_t off; } f[] = {
		{ "eff_max", offsetof(gs_time_params, eff_max) },
		{ "x_half_ridge", offsetof(gs_time_params, x_half_ridge) },
		{ "elem_bytes", offsetof(gs_time_params, elem_bytes) },
		{ "attn_eff", offsetof(gs_time_params, attn_eff) },
		{ "eager_attn_bytes", offsetof(gs_time_params, eager_attn_bytes) },
		{ "fp8_scale.pytorch", offsetof(gs_time_params, fp8_scale[GS_TRT_PYTORCH]) },
		{ "fp8_scale.megatron", offsetof(gs_time_params, fp8_scale[GS_TRT_MEGATRON]) },
		{ "dequant_train", offsetof(gs_time_params, dequant_train) },
		{ "ar_base_us", offsetof(gs_time_params, ar_base_us) },
		{ "host_desktop", offsetof(gs_time_params, host_desktop) },
	};
	static const struct { const char *name; size_t off; } per_class[] = {
		{ "dec_bw_eff", offsetof(gs_time_params, dec_bw_eff) },
		{ "dec_layer_s", offsetof(gs_time_params, dec_layer_s) },
		{ "prefill_eff", offsetof(gs_time_params, prefill_eff) },
	}, per_kernel[] = {
		{ "k_eff1", offsetof(gs_time_params, k_eff1) },
		{ "k_effn", offsetof(gs_time_params, k_effn) },
		{ "k_host_s", offsetof(gs_time_params, k_host_s) },
		{ "k_gemm", offsetof(gs_time_params, k_gemm) },
	}, per_arch[] = {
		{ "eff_max", offsetof(gs_time_params, eff_max_uarch) },
		{ "mem_frac", offsetof(gs_time_params, mem_frac) },
		{ "attn_fa2", offsetof(gs_time_params, attn_fa2) },
	};

	gs_time_params_default(P);
	if (env == NULL)
		return 0;
	snprintf(buf, sizeof buf, "%s", env);
	for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
		char *eq = strchr(tok, '='), *dot;
		double v;
		int hit = 0, i;
		if (eq == NULL)
			return -1;
		*eq = '\0';
		v = atof(eq + 1);
		for (size_t j = 0; j < sizeof f / sizeof f[0]; j++)
			if (strcmp(tok, f[j].name) == 0) {
				*(double *)((char *)P + f[j].off) = v;
				hit = 1;
			}
		if (hit)
			continue;
		dot = strchr(tok, '.');
		if (dot == NULL)
			return -1;
		*dot = '\0';
		for (size_t j = 0; j < sizeof per_class / sizeof per_class[0] && !hit; j++)
			if (strcmp(tok, per_class[j].name) == 0 && (i = gs_rt_class_parse(dot + 1)) >= 0) {
				((double *)((char *)P + per_class[j].off))[i] = v;
				hit = 1;
			}
		for (size_t j = 0; j < sizeof per_kernel / sizeof per_kernel[0] && !hit; j++)
			if (strcmp(tok, per_kernel[j].name) == 0 && (i = gs_kernel_parse(dot + 1)) >= 0) {
				((double *)((char *)P + per_kernel[j].off))[i] = v;
				hit = 1;
			}
		for (size_t j = 0; j < sizeof per_arch / sizeof per_arch[0] && !hit; j++) {
			i = strcmp(dot + 1, "other") == 0 ? (int)GS_UARCH_NONE : (int)gs_uarch_parse(dot + 1);
			if (strcmp(tok, per_arch[j].name) == 0 && i < (int)GS_UARCH_MAX) {
				((double *)((char *)P + per_arch[j].off))[i] = v;
				hit = 1;
			}
		}
		if (strcmp(tok, "ar_hop_us") == 0 && !hit) {
			int k = strcmp(dot + 1, "nvlink") == 0 ? 0 : strcmp(dot + 1, "pcie") == 0 ? 1
			        : strcmp(dot + 1, "net") == 0 ? 2 : -1;
			if (k >= 0) {
				P->ar_hop_us[k] = v;
				hit = 1;
			}
		}
		if (!hit)
			return -1;
	}
	return 0;
}

/* The time options field: "name=value;..." or "-". */
static int topts(gs_time_opts *o, char *list, gs_error *e)
{
	if (strcmp(list, "-") == 0 || list[0] == '\0')
		return GS_OK;
	for (char *tok = strtok(list, ";"); tok != NULL; tok = strtok(NULL, ";")) {
		char *eq = strchr(tok, '=');
		int k;
		if (eq == NULL)
			return gs_fail(e, GS_EUSAGE, "bad time option %s", tok);
		*eq++ = '\0';
		if (strcmp(tok, "kernel") == 0 && (k = gs_kernel_parse(eq)) >= 0)
			o->kernel = (gs_kernel)k;
		else if (strcmp(tok, "concurrency") == 0)
			o->concurrency = atoll(eq);
		else if (strcmp(tok, "allreduce") == 0 && (strcmp(eq, "nccl") == 0 || strcmp(eq, "custom") == 0))
			o->allreduce = strcmp(eq, "nccl") == 0 ? GS_AR_NCCL : GS_AR_CUSTOM;
		else if (strcmp(tok, "ep-dispatch") == 0 && strcmp(eq, "deepep") == 0)
			o->ep_dedup = true;
		else if (strcmp(tok, "attn-kernel") == 0 && (strcmp(eq, "fa2") == 0 || strcmp(eq, "native") == 0))
			o->attn_kernel = strcmp(eq, "fa2") == 0 ? GS_AK_FA2 : GS_AK_NATIVE;
		else if (strcmp(tok, "kv-per-qhead") == 0)
			o->kv_per_qhead = atoi(eq) != 0;
		else if (strcmp(tok, "dequant-at") == 0)
			o->dequant_at = atoll(eq);
		else if (strcmp(tok, "weight-bpp") == 0)
			o->weight_bpp = atof(eq);
		else
			return gs_fail(e, GS_EUSAGE, "bad time option %s=%s", tok, eq);
	}
	return GS_OK;
}

static int apply(gs_settings *s, char *list, gs_error *e)
{
	for (char *tok = strtok(list, ";"); tok != NULL; tok = strtok(NULL, ";")) {
		char *eq = strchr(tok, '=');
		if (eq == NULL)
			return gs_fail(e, GS_EUSAGE, "bad setting %s", tok);
		*eq = '\0';
		if (gs_settings_set(s, tok, eq + 1, e) != GS_OK)
			return e->code;
	}
	return gs_settings_check(s, e);
}

int main(int argc, char **argv)
{
	gs_gpu *g = NULL, *g2 = NULL;
	size_t ng = 0, ng2 = 0;
	gs_error e = { 0 };
	char line[4096];
	gs_time_params P;

	if (argc < 2) {
		fprintf(stderr, "usage: driver GPUS_DIR [EXTRA_GPUS_DIR] < cases\n");
		return 2;
	}
	if (gs_gpus_load(argv[1], &g, &ng, &e) != GS_OK ||
	    (argc > 2 && gs_gpus_load(argv[2], &g2, &ng2, &e) != GS_OK)) {
		fprintf(stderr, "driver: %s\n", e.msg);
		free(g);
		return 3;
	}
	if (params_env(&P) != 0) {
		fprintf(stderr, "driver: bad GS_TIME_PARAMS\n");
		free(g);
		free(g2);
		return 2;
	}
	while (fgets(line, sizeof line, stdin) != NULL) {
		char *f[7] = { 0 };
		char *p = line;
		gs_arch a;
		gs_settings s;
		gs_time_opts o;
		gs_time t;
		gs_estimate est;
		const gs_gpu *gpu;
		int k = 0, rt, trt;

		line[strcspn(line, "\n")] = '\0';
		for (; k < 7 && p != NULL; k++) {
			f[k] = p;
			p = strchr(p, '\t');
			if (p != NULL)
				*p++ = '\0';
		}
		if (k < 7) {
			printf("%s\terror\tbad line\n", f[0]);
			continue;
		}
		memset(&e, 0, sizeof e);
		gs_settings_default(&s);
		gs_time_opts_default(&o);
		gpu = gs_gpu_find(g, ng, f[2]);
		if (gpu == NULL)
			gpu = gs_gpu_find(g2, ng2, f[2]);
		if (gpu == NULL) {
			printf("%s\terror\tunknown gpu %s\n", f[0], f[2]);
			continue;
		}
		if (load_model(f[1], &a, &e) != GS_OK || apply(&s, f[5], &e) != GS_OK) {
			printf("%s\terror\t%s\n", f[0], e.msg);
			continue;
		}
		/* an inference runtime, or a training stack (pytorch, megatron) */
		rt = gs_runtime_parse(f[3]);
		trt = gs_train_runtime_parse(f[3]);
		if (rt >= 0)
			o.runtime = (gs_runtime)rt;
		else if (trt >= 0)
			o.train_runtime = (gs_train_runtime)trt;
		else {
			printf("%s\terror\tunknown runtime %s\n", f[0], f[3]);
			continue;
		}
		o.weight_bytes = atof(f[4]);
		o.params = &P;
		if (topts(&o, f[6], &e) != GS_OK) {
			printf("%s\terror\t%s\n", f[0], e.msg);
			continue;
		}
		if (gs_estimate_run(&a, &s, &est, &e) == GS_OK)
			o.params_trainable = est.params_trainable;
		memset(&e, 0, sizeof e);
		if (gs_time_estimate(&a, &s, gpu, &o, &t, &e) != GS_OK) {
			printf("%s\terror\t%s\n", f[0], e.msg);
			continue;
		}
		printf("%s\tok\tn_mm=%.6g\tflops_fwd_tok=%.6g\tpeak=%.6g\teff=%.6g\ttokens_step=%.6g\t"
		       "flops_step=%.6g\tcompute_s=%.6g\tcomm_s=%.6g\ttp_comm_s=%.6g\tep_comm_s=%.6g\toptim_s=%.6g\tstep_s=%.6g\t"
		       "tok_s_gpu=%.6g\ttok_s_total=%.6g\tmfu=%.6g\tprefill_s=%.6g\tdecode_step_s=%.6g\t"
		       "decode_tok_s_seq=%.6g\tdecode_tok_s_total=%.6g\tdecode_bytes=%.6g\tkv_read_bytes=%.6g\t"
		       "cache_copy_bytes=%.6g\tdecode_flops=%.6g\thost_s=%.6g\tgenerate_s=%.6g\tttft_s=%.6g\t"
		       "tpot_s=%.6g\tserve_tok_s=%.6g\tlayers=%lld\tbw=%.6g\tgpus=%lld\n",
		       f[0], t.n_mm, t.flops_fwd_tok, t.peak_tflops, t.eff, t.tokens_step, t.flops_step,
		       t.compute_s, t.comm_s, t.tp_comm_s, t.ep_comm_s, t.optim_s, t.step_s, t.tok_s_gpu, t.tok_s_total, t.mfu,
		       t.prefill_s, t.decode_step_s, t.decode_tok_s_seq, t.decode_tok_s_total, t.decode_bytes,
		       t.kv_read_bytes, t.cache_copy_bytes, t.decode_flops, t.host_s, t.generate_s, t.ttft_s,
		       t.tpot_s, t.serve_tok_s, (long long)a.layers, gpu->bandwidth_gbs, (long long)s.gpus);
	}
	free(g);
	free(g2);
	return 0;
}
