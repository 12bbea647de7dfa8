/* gpusizer: settings of one sizing row: names, defaults, parsing. Pure. */
#include "settings.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const method_names[] = {"full", "lora", "qlora", "inference"};
static const char *const prec_names[] = {
	"fp32", "amp-bf16", "amp-fp16", "mixed-bf16", "mixed-fp16", "bf16", "fp16",
	"fp8-mixed", "fp8", "int8", "nf4", "nf4-dq", "gptq-int4", "gptq-int8", "awq-int4", "nf4-torchao",
	"nf4-litgpt", "nf4-dq-litgpt",
};
static const char *const optim_names[] = {
	"adamw", "adamw-fused", "adamw-8bit", "paged-adamw-8bit", "paged-adamw-32bit",
	"sgd", "sgd-momentum", "lion", "adafactor",
};
static const char *const attn_names[] = {"sdpa", "eager", "flash"};
static const char *const loss_names[] = {"standard", "chunked"};
static const char *const shard_names[] = {"ddp", "zero1", "zero2", "zero3", "fsdp", "fsdp2", "pipeline"};
static const char *const offload_names[] = {"none", "optimizer", "params", "activations"};
static const char *const dtype_names[] = {"fp32", "bf16", "fp16", "fp8"};
static const char *const formula_names[] = {"detailed", "cookbook", "rule-of-thumb", "zero1-rule"};
static const char *const load_names[] = {"sharded", "full"};   /* state-dict-load: index = full_state_dict_load */
static const char *const logits_names[] = {"last", "all"};     /* logits: index = logits_all */

#define NAMES(a) (sizeof(a) / sizeof((a)[0]))

static int lookup(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return (int)i;
	return -1;
}

static const char *name_of(const char *const *names, size_t n, int i)
{
	return i >= 0 && (size_t)i < n ? names[i] : "?";
}

const char *gs_method_name(gs_method m) { return name_of(method_names, NAMES(method_names), m); }
const char *gs_prec_name(gs_prec p) { return name_of(prec_names, NAMES(prec_names), p); }
const char *gs_optim_name(gs_optim o) { return name_of(optim_names, NAMES(optim_names), o); }
const char *gs_attn_name(gs_attn a) { return name_of(attn_names, NAMES(attn_names), a); }
const char *gs_loss_name(gs_loss l) { return name_of(loss_names, NAMES(loss_names), l); }
const char *gs_shard_name(gs_shard s) { return name_of(shard_names, NAMES(shard_names), s); }
const char *gs_offload_name(gs_offload o) { return name_of(offload_names, NAMES(offload_names), o); }
const char *gs_dtype_name(gs_dtype d) { return name_of(dtype_names, NAMES(dtype_names), d); }
const char *gs_formula_name(gs_formula f) { return name_of(formula_names, NAMES(formula_names), f); }
const char *gs_state_dict_load_name(const gs_settings *s) { return load_names[s->full_state_dict_load ? 1 : 0]; }
const char *gs_logits_name(const gs_settings *s) { return logits_names[s->logits_all ? 1 : 0]; }
int gs_method_parse(const char *s) { return lookup(method_names, NAMES(method_names), s); }
int gs_prec_parse(const char *s) { return lookup(prec_names, NAMES(prec_names), s); }
int gs_optim_parse(const char *s) { return lookup(optim_names, NAMES(optim_names), s); }
int gs_formula_parse(const char *s) { return lookup(formula_names, NAMES(formula_names), s); }

bool gs_prec_quantized(gs_prec p)
{
	return p >= GS_P_INT8 && p < GS_P_MAX; /* the enum keeps them last */
}

void gs_settings_default(gs_settings *s)
{
	memset(s, 0, sizeof *s);
	s->method = GS_FULL;
	s->precision = GS_P_AMP_BF16;
	s->adapter_dtype = GS_DT_FP32;
	s->optimizer = GS_O_ADAMW;
	s->lora_r = 16;
	snprintf(s->lora_targets, sizeof s->lora_targets, "qv");
	s->lora_dropout = 0.05;
	s->batch = 1;
	s->seq = 2048;
	s->grad_accum = 1;
	s->attn = GS_ATTN_SDPA;
	s->loss = GS_LOSS_STANDARD;
	s->gpus = 1;
	s->sharding = GS_SH_DDP;
	s->tp = 1;
	s->offload = GS_OFF_NONE;
	s->kv_dtype = GS_DT_BF16;
	s->cuda_context_mib = 1343;
	s->formula = GS_F_DETAILED;
	s->trainable_fraction = -1.0;
}

gs_prec gs_settings_precision(const gs_settings *s)
{
	if (s->precision_set)
		return s->precision;
	switch (s->method) {
	case GS_FULL: return GS_P_AMP_BF16;
	case GS_QLORA: return GS_P_NF4;
	default: return GS_P_BF16;
	}
}

/* Integer in [lo, hi]; the limits keep every byte product inside 64 bits. */
static gs_err parse_int(const char *name, const char *v, int64_t lo, int64_t hi, int64_t *out, gs_error *e)
{
	char *end = NULL;
	long long x;

	errno = 0;
	x = strtoll(v, &end, 10);
	if (v[0] == '\0' || end == v || *end != '\0' || errno == ERANGE)
		return gs_fail(e, GS_EUSAGE, "--%s: '%s' is not an integer", name, v);
	if (x < lo || x > hi)
		return gs_fail(e, GS_EUSAGE, "--%s: %lld is out of range [%lld, %lld]", name, x, (long long)lo, (long long)hi);
	*out = x;
	return GS_OK;
}

static gs_err parse_double(const char *name, const char *v, double lo, double hi, double *out, gs_error *e)
{
	char *end = NULL;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (v[0] == '\0' || end == v || *end != '\0' || errno == ERANGE || !isfinite(x))
		return gs_fail(e, GS_EUSAGE, "--%s: '%s' is not a number", name, v);
	if (x < lo || x > hi)
		return gs_fail(e, GS_EUSAGE, "--%s: %g is out of range [%g, %g]", name, x, lo, hi);
	*out = x;
	return GS_OK;
}

static gs_err parse_bool(const char *name, const char *v, bool *out, gs_error *e)
{
	if (!strcmp(v, "true") || !strcmp(v, "on") || !strcmp(v, "1") || !strcmp(v, "yes")) {
		*out = true;
		return GS_OK;
	}
	if (!strcmp(v, "false") || !strcmp(v, "off") || !strcmp(v, "0") || !strcmp(v, "no")) {
		*out = false;
		return GS_OK;
	}
	return gs_fail(e, GS_EUSAGE, "--%s: '%s' is not a boolean (true/false)", name, v);
}

static gs_err parse_enum(const char *name, const char *v, const char *const *names, size_t n, int *out, gs_error *e)
{
	char list[256] = "";
	int i = lookup(names, n, v);

	if (i >= 0) {
		*out = i;
		return GS_OK;
	}
	for (size_t k = 0; k < n; k++) {
		strncat(list, names[k], sizeof list - strlen(list) - 1);
		if (k + 1 < n)
			strncat(list, "|", sizeof list - strlen(list) - 1);
	}
	return gs_fail(e, GS_EUSAGE, "--%s: unknown value '%s' (one of %s)", name, v, list);
}

static gs_err parse_targets(const char *v, char *out, gs_error *e)
{
	size_t n = strlen(v);

	if (n == 0 || n >= GS_LORA_NAMES_MAX)
		return gs_fail(e, GS_EUSAGE, "--lora-targets: must be qv, attn, all-linear or module names (1 to %d characters)",
		               GS_LORA_NAMES_MAX - 1);
	for (size_t i = 0; i < n; i++) {
		char c = v[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		          c == '_' || c == '-' || c == '.' || c == ',';
		if (!ok)
			return gs_fail(e, GS_EUSAGE, "--lora-targets: invalid character in '%s'", v);
		if (c == ',' && (i == 0 || i + 1 == n || v[i + 1] == ','))
			return gs_fail(e, GS_EUSAGE, "--lora-targets: empty module name in '%s'", v);
	}
	memcpy(out, v, n + 1);
	return GS_OK;
}

/* Limits: tokens per step up to 2^31, layers etc. are checked by the arch;
 * these keep batch*seq*vocab*bytes far inside 64 bits for vocab < 2^24. */
#define MAX_BATCH 65536
#define MAX_SEQ (16LL * 1024 * 1024)
#define MAX_GPUS 65536

gs_err gs_settings_set(gs_settings *s, const char *name, const char *v, gs_error *e)
{
	int i = 0;
	gs_err rc;

	if (v == NULL)
		return gs_fail(e, GS_EUSAGE, "--%s: missing value", name);
	if (!strcmp(name, "method")) {
		rc = parse_enum(name, v, method_names, NAMES(method_names), &i, e);
		s->method = (gs_method)i;
	} else if (!strcmp(name, "precision")) {
		rc = parse_enum(name, v, prec_names, NAMES(prec_names), &i, e);
		s->precision = (gs_prec)i;
		s->precision_set = rc == GS_OK;
	} else if (!strcmp(name, "adapter-dtype")) {
		rc = parse_enum(name, v, dtype_names, 2, &i, e);
		s->adapter_dtype = (gs_dtype)i;
	} else if (!strcmp(name, "optimizer")) {
		rc = parse_enum(name, v, optim_names, NAMES(optim_names), &i, e);
		s->optimizer = (gs_optim)i;
	} else if (!strcmp(name, "optimizer-in-bwd")) {
		rc = parse_bool(name, v, &s->optimizer_in_bwd, e);
	} else if (!strcmp(name, "lora-r")) {
		rc = parse_int(name, v, 1, 65536, &s->lora_r, e);
	} else if (!strcmp(name, "lora-targets")) {
		rc = parse_targets(v, s->lora_targets, e);
	} else if (!strcmp(name, "lora-dropout")) {
		rc = parse_double(name, v, 0.0, 0.99, &s->lora_dropout, e);
	} else if (!strcmp(name, "train-embeddings")) {
		rc = parse_bool(name, v, &s->train_embeddings, e);
	} else if (!strcmp(name, "batch")) {
		rc = parse_int(name, v, 1, MAX_BATCH, &s->batch, e);
	} else if (!strcmp(name, "seq")) {
		rc = parse_int(name, v, 1, MAX_SEQ, &s->seq, e);
	} else if (!strcmp(name, "grad-accum")) {
		rc = parse_int(name, v, 1, 1 << 20, &s->grad_accum, e);
	} else if (!strcmp(name, "grad-ckpt")) {
		rc = parse_bool(name, v, &s->grad_ckpt, e);
	} else if (!strcmp(name, "compile")) {
		rc = parse_bool(name, v, &s->compile, e);
	} else if (!strcmp(name, "attn")) {
		rc = parse_enum(name, v, attn_names, NAMES(attn_names), &i, e);
		s->attn = (gs_attn)i;
	} else if (!strcmp(name, "loss")) {
		rc = parse_enum(name, v, loss_names, NAMES(loss_names), &i, e);
		s->loss = (gs_loss)i;
	} else if (!strcmp(name, "gpus")) {
		rc = parse_int(name, v, 1, MAX_GPUS, &s->gpus, e);
	} else if (!strcmp(name, "sharding")) {
		rc = parse_enum(name, v, shard_names, NAMES(shard_names), &i, e);
		s->sharding = (gs_shard)i;
	} else if (!strcmp(name, "tp")) {
		rc = parse_int(name, v, 1, 1024, &s->tp, e);
	} else if (!strcmp(name, "offload")) {
		rc = parse_enum(name, v, offload_names, NAMES(offload_names), &i, e);
		s->offload = (gs_offload)i;
	} else if (!strcmp(name, "state-dict-load")) {
		rc = parse_enum(name, v, load_names, NAMES(load_names), &i, e);
		s->full_state_dict_load = i == 1;
	} else if (!strcmp(name, "kv-dtype")) {
		rc = parse_enum(name, v, dtype_names, NAMES(dtype_names), &i, e);
		s->kv_dtype = (gs_dtype)i;
		s->kv_dtype_set = rc == GS_OK;
	} else if (!strcmp(name, "logits")) {
		rc = parse_enum(name, v, logits_names, NAMES(logits_names), &i, e);
		s->logits_all = i == 1;
	} else if (!strcmp(name, "cuda-context")) {
		rc = parse_int(name, v, 0, 1 << 20, &s->cuda_context_mib, e);
	} else if (!strcmp(name, "formula")) {
		rc = parse_enum(name, v, formula_names, NAMES(formula_names), &i, e);
		s->formula = (gs_formula)i;
	} else if (!strcmp(name, "trainable-fraction")) {
		rc = parse_double(name, v, 0.0, 1.0, &s->trainable_fraction, e);
	} else {
		rc = gs_fail(e, GS_EUSAGE, "unknown setting '%s'", name);
	}
	return rc;
}

static bool full_recipe(gs_prec p)
{
	return p <= GS_P_FP8_MIXED;
}

static bool storage_prec(gs_prec p)
{
	return p == GS_P_FP32 || p == GS_P_BF16 || p == GS_P_FP16 || p >= GS_P_FP8;
}

gs_err gs_settings_check(const gs_settings *s, gs_error *e)
{
	gs_prec p = gs_settings_precision(s);

	if (s->method == GS_FULL && !full_recipe(p))
		return gs_fail(e, GS_EUSAGE, "--precision %s is a storage format; full fine-tuning takes fp32, amp-bf16, amp-fp16, mixed-bf16, mixed-fp16, bf16, fp16 or fp8-mixed",
		               gs_prec_name(p));
	bool amp_infer = (s->method == GS_INFER || s->method == GS_LORA) && (p == GS_P_AMP_BF16 || p == GS_P_AMP_FP16);
	if (s->method != GS_FULL && !storage_prec(p) && !amp_infer)
		return gs_fail(e, GS_EUSAGE, "--precision %s is a full fine-tuning recipe; --method %s takes fp32, bf16, fp16, fp8, int8, nf4, nf4-dq, nf4-torchao, nf4-litgpt, nf4-dq-litgpt, gptq-int4, gptq-int8 or awq-int4 (inference and lora also amp-bf16, amp-fp16: fp32 base under autocast)",
		               gs_prec_name(p), gs_method_name(s->method));
	if (s->method == GS_QLORA && !(gs_prec_quantized(p) || p == GS_P_FP8))
		return gs_fail(e, GS_EUSAGE, "--method qlora needs a quantized base (--precision nf4, nf4-dq, nf4-torchao, nf4-litgpt, nf4-dq-litgpt, int8, fp8, gptq-int4, gptq-int8 or awq-int4), not %s",
		               gs_prec_name(p));
	if (s->optimizer_in_bwd && s->grad_accum > 1)
		return gs_fail(e, GS_EUSAGE, "--optimizer-in-bwd frees each gradient at once: it cannot accumulate (--grad-accum %lld)",
		               (long long)s->grad_accum);
	if (s->tp > s->gpus || s->gpus % s->tp != 0)
		return gs_fail(e, GS_EUSAGE, "--tp %lld must divide --gpus %lld", (long long)s->tp, (long long)s->gpus);
	if (s->sharding == GS_SH_PIPELINE && s->tp > 1)
		return gs_fail(e, GS_EUSAGE, "--sharding pipeline splits the layers over the GPUs; it does not combine with --tp %lld",
		               (long long)s->tp);
	if (s->method == GS_INFER && (s->offload == GS_OFF_OPTIMIZER || s->offload == GS_OFF_ACTIVATIONS))
		return gs_fail(e, GS_EUSAGE, "--offload %s does not apply to --method inference", gs_offload_name(s->offload));
	if (s->offload == GS_OFF_PARAMS && s->method != GS_INFER && s->sharding != GS_SH_ZERO3 && s->sharding != GS_SH_FSDP &&
	    s->sharding != GS_SH_FSDP2)
		return gs_fail(e, GS_EUSAGE, "--offload params needs --sharding zero3, fsdp or fsdp2");
	return GS_OK;
}

/* Append to buf (n bytes) at *k, printf-style; stops quietly when full. */
__attribute__((format(printf, 4, 5)))
static void label_add(char *buf, size_t n, int *k, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*k < 0 || (size_t)*k >= n)
		return;
	va_start(ap, fmt);
	w = vsnprintf(buf + *k, n - (size_t)*k, fmt, ap);
	va_end(ap);
	*k = w < 0 ? -1 : *k + w;
}

void gs_settings_label(const gs_settings *s, char *buf, size_t n)
{
	int k = 0;
	gs_prec p = gs_settings_precision(s);

	if (n > 0)
		buf[0] = '\0';
	if (s->method == GS_INFER) {
		label_add(buf, n, &k, "inference %s b%lld s%lld %s", gs_prec_name(p), (long long)s->batch,
		          (long long)s->seq, gs_attn_name(s->attn));
	} else {
		label_add(buf, n, &k, "%s %s %s", gs_method_name(s->method), gs_prec_name(p), gs_optim_name(s->optimizer));
		if (s->method == GS_LORA || s->method == GS_QLORA)
			label_add(buf, n, &k, " r%lld %s", (long long)s->lora_r, s->lora_targets);
		label_add(buf, n, &k, " b%lld s%lld%s %s", (long long)s->batch, (long long)s->seq,
		          s->grad_ckpt ? " ckpt" : "", gs_attn_name(s->attn));
		if (s->grad_accum > 1)
			label_add(buf, n, &k, " ga%lld", (long long)s->grad_accum);
		if (s->compile)
			label_add(buf, n, &k, " compile");
		if (s->optimizer_in_bwd)
			label_add(buf, n, &k, " opt-in-bwd");
		if (s->loss == GS_LOSS_CHUNKED)
			label_add(buf, n, &k, " chunked-loss");
	}
	if (s->gpus > 1 || s->tp > 1)
		label_add(buf, n, &k, " %lldx%s%s", (long long)s->gpus, gs_shard_name(s->sharding), s->tp > 1 ? " tp" : "");
	if (s->tp > 1)
		label_add(buf, n, &k, "%lld", (long long)s->tp);
	if (s->full_state_dict_load)
		label_add(buf, n, &k, " full-load");
	if (s->offload != GS_OFF_NONE)
		label_add(buf, n, &k, " offload-%s", gs_offload_name(s->offload));
	if (s->logits_all && s->method == GS_INFER)
		label_add(buf, n, &k, " all-logits");
}
