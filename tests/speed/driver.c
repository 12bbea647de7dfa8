/* tests/speed/driver: the time model (src/timing.c) over the cases that
 * tests/speed/cases.py maps from speed.jsonl. Reads lines
 *   id \t model \t gpu \t runtime \t weight_bytes \t settings
 * model: "cfg:PATH" (a config.json) or "manual:params,layers,hidden,heads,
 * kv_heads,intermediate,vocab" (gs_arch_manual; 0 = derived); settings:
 * "name=value;..." by gpusizer estimate's flag names. Writes per line
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

/* GS_TIME_PARAMS="name=value,...": override the calibrated figures (for
 * tests/speed/fit.py); names as gs_time_params, runtime arrays NAME.RUNTIME
 * (fp8_scale.pytorch, fp8_scale.megatron for the training stacks). */
static int params_env(gs_time_params *P)
{
	const char *env = getenv("GS_TIME_PARAMS");
	char buf[2048];
	static const struct { const char *name; size_t off; } f[] = {
		{ "eff_max", offsetof(gs_time_params, eff_max) },
		{ "eff_max.ampere", offsetof(gs_time_params, eff_max_uarch[GS_UARCH_AMPERE]) },
		{ "eff_max.ada", offsetof(gs_time_params, eff_max_uarch[GS_UARCH_ADA]) },
		{ "eff_max.hopper", offsetof(gs_time_params, eff_max_uarch[GS_UARCH_HOPPER]) },
		{ "x_half_ridge", offsetof(gs_time_params, x_half_ridge) },
		{ "h_half", offsetof(gs_time_params, h_half) },
		{ "elem_bytes", offsetof(gs_time_params, elem_bytes) },
		{ "attn_eff", offsetof(gs_time_params, attn_eff) },
		{ "fp8_scale.pytorch", offsetof(gs_time_params, fp8_scale[GS_TRT_PYTORCH]) },
		{ "fp8_scale.megatron", offsetof(gs_time_params, fp8_scale[GS_TRT_MEGATRON]) },
		{ "dequant_train", offsetof(gs_time_params, dequant_train) },
		{ "dequant_prefill", offsetof(gs_time_params, dequant_prefill) },
		{ "dequant_decode", offsetof(gs_time_params, dequant_decode) },
	};

	gs_time_params_default(P);
	if (env == NULL)
		return 0;
	snprintf(buf, sizeof buf, "%s", env);
	for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
		char *eq = strchr(tok, '='), *dot;
		int hit = 0;
		if (eq == NULL)
			return -1;
		*eq = '\0';
		for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
			if (strcmp(tok, f[i].name) == 0) {
				*(double *)((char *)P + f[i].off) = atof(eq + 1);
				hit = 1;
			}
		if (!hit && (dot = strchr(tok, '.')) != NULL) {
			int rt;
			*dot = '\0';
			rt = gs_runtime_parse(dot + 1);
			if (rt < 0)
				return -1;
			if (strcmp(tok, "dec_bw_eff") == 0)
				P->dec_bw_eff[rt] = atof(eq + 1), hit = 1;
			else if (strcmp(tok, "dec_layer_s") == 0)
				P->dec_layer_s[rt] = atof(eq + 1), hit = 1;
			else if (strcmp(tok, "prefill_eff") == 0)
				P->prefill_eff[rt] = atof(eq + 1), hit = 1;
		}
		if (!hit)
			return -1;
	}
	return 0;
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
		char *f[6] = { 0 };
		char *p = line;
		gs_arch a;
		gs_settings s;
		gs_time_opts o;
		gs_time t;
		gs_estimate est;
		const gs_gpu *gpu;
		int k = 0, rt, trt;

		line[strcspn(line, "\n")] = '\0';
		for (; k < 6 && p != NULL; k++) {
			f[k] = p;
			p = strchr(p, '\t');
			if (p != NULL)
				*p++ = '\0';
		}
		if (k < 6) {
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
		if (gs_estimate_run(&a, &s, &est, &e) == GS_OK)
			o.params_trainable = est.params_trainable;
		memset(&e, 0, sizeof e);
		if (gs_time_estimate(&a, &s, gpu, &o, &t, &e) != GS_OK) {
			printf("%s\terror\t%s\n", f[0], e.msg);
			continue;
		}
		printf("%s\tok\tn_mm=%.6g\tflops_fwd_tok=%.6g\tpeak=%.6g\teff=%.6g\ttokens_step=%.6g\t"
		       "flops_step=%.6g\tcompute_s=%.6g\tcomm_s=%.6g\toptim_s=%.6g\tstep_s=%.6g\t"
		       "tok_s_gpu=%.6g\ttok_s_total=%.6g\tmfu=%.6g\tprefill_s=%.6g\tdecode_step_s=%.6g\t"
		       "decode_tok_s_seq=%.6g\tdecode_tok_s_total=%.6g\tdecode_bytes=%.6g\tgenerate_s=%.6g\t"
		       "layers=%lld\tbw=%.6g\tgpus=%lld\n",
		       f[0], t.n_mm, t.flops_fwd_tok, t.peak_tflops, t.eff, t.tokens_step, t.flops_step,
		       t.compute_s, t.comm_s, t.optim_s, t.step_s, t.tok_s_gpu, t.tok_s_total, t.mfu,
		       t.prefill_s, t.decode_step_s, t.decode_tok_s_seq, t.decode_tok_s_total, t.decode_bytes,
		       t.generate_s, (long long)a.layers, gpu->bandwidth_gbs, (long long)s.gpus);
	}
	free(g);
	free(g2);
	return 0;
}
