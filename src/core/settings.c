/* gpusizer: settings of one sizing row: names, defaults, parsing. Pure. */
#include "settings.h"
#include "numfmt.h"
#include "stacks.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const method_names[] = {"full", "lora", "qlora", "inference", NULL};
#define M_BASE (GS_M(GS_LORA) | GS_M(GS_QLORA) | GS_M(GS_INFER))
#define M_STORE (GS_M(GS_LORA) | GS_M(GS_INFER))

/*
 * The precision table: every --precision value, in gs_prec order, with
 * what it is. A full fine-tuning recipe (bytes per parameter: engine.c's
 * make_recipe) or a base's storage, bytes per linear weight with its scales
 * (docs/engine.md, "Recipes"): fp8 and int8 (LLM.int8) one fp32 scale a
 * row; nf4 0.5 + an fp32 absmax per 64 (bitsandbytes), nf4-dq with 8-bit
 * absmax and an fp32 constant per 256 blocks; GPTQ/AWQ an fp16 scale and a
 * 4-bit zero per group of 128 and an int32 g_idx per input feature; MXFP4
 * (OCP MX spec: E2M1 values, a UE8 E8M0 scale per 32 along the input),
 * gpt-oss's experts only (transformers integrations/mxfp4.py replaces the
 * experts; its modules_to_not_convert keeps attention, router, embeddings
 * and head bf16); NVFP4 (E2M1, an FP8 E4M3 scale per 16, an FP32 scale per
 * tensor: NVIDIA ModelOpt); fp8-block (DeepSeek-V3: e4m3 with an fp32
 * weight_scale_inv per 128 x 128 block).
 */
static const gs_prec_info prec_table[GS_P_MAX] = {
	[GS_P_FP32] = { "fp32", GS_PC_PLAIN, GS_M_ALL & ~GS_M(GS_QLORA), false, false, 4, 0, 0, 0, 0, 0, 0, 0, 0, false, NULL },
	[GS_P_AMP_BF16] = { "amp-bf16", GS_PC_RECIPE, GS_M(GS_FULL) | M_STORE, true, false, 4, 0, 0, 0, 0, 0, 0, 0, 0,
	                    false, NULL },
	[GS_P_AMP_FP16] = { "amp-fp16", GS_PC_RECIPE, GS_M(GS_FULL) | M_STORE, false, false, 4, 0, 0, 0, 0, 0, 0, 0,
	                    0, false, NULL },
	[GS_P_MIXED_BF16] = { "mixed-bf16", GS_PC_RECIPE, GS_M(GS_FULL), true, false, 2, 0, 0, 0, 0, 0, 0, 0, 0,
	                      false, NULL },
	[GS_P_MIXED_FP16] = { "mixed-fp16", GS_PC_RECIPE, GS_M(GS_FULL), false, false, 2, 0, 0, 0, 0, 0, 0, 0, 0,
	                      false, NULL },
	[GS_P_BF16] = { "bf16", GS_PC_PLAIN, GS_M_ALL & ~GS_M(GS_QLORA), true, false, 2, 0, 0, 0, 0, 0, 0, 0, 0,
	                false, NULL },
	[GS_P_FP16] = { "fp16", GS_PC_PLAIN, GS_M_ALL & ~GS_M(GS_QLORA), false, false, 2, 0, 0, 0, 0, 0, 0, 0, 0,
	                false, NULL },
	[GS_P_FP8_MIXED] = { "fp8-mixed", GS_PC_RECIPE, GS_M(GS_FULL), true, true, 2, 0, 0, 0, 0, 0, 0, 0, 0, false,
	                     NULL },
	[GS_P_FP8] = { "fp8", GS_PC_FP8, M_BASE, false, true, 1, 4, 0, 1, 0, 0, 0, 0, 0, false, NULL },
	[GS_P_INT8] = { "int8", GS_PC_QUANT, M_BASE, true, false, 1, 4, 0, 1, 0, 0, 0, 0, 0, false, NULL },
	[GS_P_NF4] = { "nf4", GS_PC_QUANT, M_BASE, true, false, 0.5, 4, 0, 0, 64, 0, 0, 0, 0, false, NULL },
	[GS_P_NF4_DQ] = { "nf4-dq", GS_PC_QUANT, M_BASE, true, false, 0.5, 1, 0, 0, 64, 4, 64 * 256, 0, 0, false,
	                  NULL },
	[GS_P_GPTQ_INT4] = { "gptq-int4", GS_PC_QUANT, M_BASE, true, false, 0.5, 2.5, 0, 0, 128, 0, 0, 4, 0, false,
	                     NULL },
	[GS_P_GPTQ_INT8] = { "gptq-int8", GS_PC_QUANT, M_BASE, true, false, 1, 2.5, 0, 0, 128, 0, 0, 4, 0, false,
	                     NULL },
	[GS_P_AWQ_INT4] = { "awq-int4", GS_PC_QUANT, M_BASE, true, false, 0.5, 2.5, 0, 0, 128, 0, 0, 4, 0, false,
	                    NULL },
	[GS_P_NF4_TORCHAO] = { "nf4-torchao", GS_PC_QUANT, M_BASE, true, false, 0.5, 1, 0, 0, 64, 4, 64 * 256, 0,
	                       0, false, NULL },
	[GS_P_NF4_LITGPT] = { "nf4-litgpt", GS_PC_QUANT, M_BASE, true, false, 0.5, 4, 0, 0, 64, 0, 0, 0, 0, false,
	                      NULL },
	[GS_P_NF4_DQ_LITGPT] = { "nf4-dq-litgpt", GS_PC_QUANT, M_BASE, true, false, 0.5, 1, 0, 0, 64, 4, 64 * 256,
	                         0, 0, false, NULL },
	[GS_P_MXFP4] = { "mxfp4", GS_PC_FP4, GS_M(GS_INFER), true, false, 0.5, 1, 32, 1, 0, 0, 0, 0, 0, true,
	                 "training dequantizes an MXFP4 checkpoint to bf16 first (TRL's gpt-oss recipe in the "
	                 "OpenAI cookbook: Mxfp4Config(dequantize=True)): give --precision bf16, or nf4 for QLoRA" },
	[GS_P_NVFP4] = { "nvfp4", GS_PC_FP4, GS_M(GS_INFER), true, false, 0.5, 1, 16, 1, 0, 0, 0, 0, 4, false,
	                 "NVFP4 checkpoints are served, not trained, by the stacks gpusizer models: give "
	                 "--precision bf16 for a dequantized base" },
	[GS_P_FP8_BLOCK] = { "fp8-block", GS_PC_FP8, GS_M(GS_INFER), true, true, 1, 4, 128, 128, 0, 0, 0, 0, 0,
	                     false,
	                     "training on a block-scaled FP8 checkpoint is modelled on its bf16 dequantization: "
	                     "give --precision bf16" },
};

/* The names, in gs_prec order, for the setting's values (prec_ready
 * fills them from the table). */
static const char *prec_names[GS_P_MAX + 1];

const gs_prec_info *gs_prec_info_of(gs_prec p)
{
	return (unsigned)p < GS_P_MAX ? &prec_table[p] : NULL;
}

static double blocks(int64_t n, int64_t b)
{
	return b > 0 ? ceil((double)n / (double)b) : 1;
}

double gs_prec_weight_bytes(gs_prec p, int64_t in, int64_t out)
{
	const gs_prec_info *r = gs_prec_info_of(p);
	double n = (double)in * (double)out, b;

	if (r == NULL)
		return 0;
	b = n * r->value_bytes + (double)in * r->in_bytes + r->tensor_bytes;
	if (r->scale_flat > 0)
		b += r->scale_bytes * ceil(n / (double)r->scale_flat);
	else if (r->scale_bytes > 0)
		b += r->scale_bytes * blocks(in, r->scale_in) * blocks(out, r->scale_out);
	if (r->scale2_flat > 0)
		b += r->scale2_bytes * ceil(n / (double)r->scale2_flat);
	return b;
}

gs_prec gs_prec_of_checkpoint(const gs_arch *a)
{
	switch (a->quant) {
	case GS_QUANT_MXFP4: return GS_P_MXFP4;
	case GS_QUANT_NVFP4: return GS_P_NVFP4;
	case GS_QUANT_FP8_BLOCK: return GS_P_FP8_BLOCK;
	case GS_QUANT_FP8: return GS_P_FP8;
	case GS_QUANT_GPTQ:
		return a->quant_bits == 4 ? GS_P_GPTQ_INT4 : a->quant_bits == 8 ? GS_P_GPTQ_INT8 : GS_P_MAX;
	case GS_QUANT_AWQ: return a->quant_bits == 4 ? GS_P_AWQ_INT4 : GS_P_MAX;
	case GS_QUANT_BNB4: return GS_P_NF4;
	case GS_QUANT_BNB8: return GS_P_INT8;
	default: return GS_P_MAX;
	}
}

void gs_settings_native(gs_settings *s, const gs_arch *a)
{
	s->native = gs_prec_of_checkpoint(a);
}
static const char *const optim_names[] = {
	"adamw", "adamw-fused", "adamw-8bit", "paged-adamw-8bit", "paged-adamw-32bit",
	"sgd", "sgd-momentum", "lion", "adafactor", NULL,
};
static const char *const attn_names[] = {"sdpa", "eager", "flash", "eager-upcast", "math", "math-legacy", NULL};
static const char *const loss_names[] = {"standard", "chunked", "legacy", "fused", "fused-chunks", NULL};
static const char *const shard_names[] = {"ddp", "zero1", "zero2", "zero3", "fsdp", "fsdp2", "pipeline", NULL};
static const char *const offload_names[] = {"none", "optimizer", "params", "activations", NULL};
static const char *const dtype_names[] = {"fp32", "bf16", "fp16", "fp8", "int8", NULL};
static const char *const adapter_names[] = {"fp32", "bf16", NULL}; /* gs_dtype's first two */
static const char *const formula_names[] = {"detailed", "cookbook", "rule-of-thumb", "zero1-rule", NULL};
static const char *const load_names[] = {"sharded", "full", NULL}; /* full_state_dict_load off, on */
static const char *const logits_names[] = {"last", "all", "all-fp32", NULL}; /* gs_logits */
static const char *const kvcache_names[] = {"dynamic", "legacy", "static", "static-mask", NULL}; /* gs_kvcache */
static const char *const loss_dtype_names[] = {"auto", "fp32", "compute", NULL}; /* gs_loss_dtype */
static const char *const kbit_prep_names[] = {"auto", "on", "off", NULL}; /* gs_kbit_prep */
static const char *const bnb_saves_names[] = {"weight", "input", NULL}; /* gs_bnb_saves */
static const char *const compute_names[] = {"auto", "bf16", "fp16", NULL}; /* gs_compute */

/* Every ENUM setting is stored in an enum field read and written as int. */
_Static_assert(sizeof(gs_method) == sizeof(int) && sizeof(gs_prec) == sizeof(int) &&
               sizeof(gs_optim) == sizeof(int) && sizeof(gs_attn) == sizeof(int) &&
               sizeof(gs_loss) == sizeof(int) && sizeof(gs_shard) == sizeof(int) &&
               sizeof(gs_offload) == sizeof(int) && sizeof(gs_dtype) == sizeof(int) &&
               sizeof(gs_formula) == sizeof(int) && sizeof(gs_logits) == sizeof(int) &&
               sizeof(gs_kvcache) == sizeof(int) && sizeof(gs_bnb_saves) == sizeof(int) &&
               sizeof(gs_compute) == sizeof(int),
               "enum settings are int-sized");

static size_t count_names(const char *const *names)
{
	size_t n = 0;

	while (names[n] != NULL)
		n++;
	return n;
}

static int lookup(const char *const *names, const char *s)
{
	for (size_t i = 0; names[i] != NULL; i++)
		if (strcmp(names[i], s) == 0)
			return (int)i;
	return -1;
}

static const char *name_of(const char *const *names, int i)
{
	return i >= 0 && (size_t)i < count_names(names) ? names[i] : "?";
}

const char *gs_method_name(gs_method m) { return name_of(method_names, (int)m); }
const char *gs_prec_name(gs_prec p) { return (unsigned)p < GS_P_MAX ? prec_table[p].name : "?"; }
const char *gs_optim_name(gs_optim o) { return name_of(optim_names, (int)o); }
const char *gs_attn_name(gs_attn a) { return name_of(attn_names, (int)a); }
const char *gs_loss_name(gs_loss l) { return name_of(loss_names, (int)l); }
const char *gs_shard_name(gs_shard s) { return name_of(shard_names, (int)s); }
const char *gs_offload_name(gs_offload o) { return name_of(offload_names, (int)o); }
const char *gs_dtype_name(gs_dtype d) { return name_of(dtype_names, (int)d); }
const char *gs_formula_name(gs_formula f) { return name_of(formula_names, (int)f); }
const char *gs_compute_name(gs_compute c) { return name_of(compute_names, (int)c); }
int gs_method_parse(const char *s) { return lookup(method_names, s); }
int gs_prec_parse(const char *s)
{
	for (int i = 0; i < GS_P_MAX; i++)
		if (strcmp(prec_table[i].name, s) == 0)
			return i;
	return -1;
}
int gs_optim_parse(const char *s) { return lookup(optim_names, s); }
int gs_formula_parse(const char *s) { return lookup(formula_names, s); }

bool gs_prec_quantized(gs_prec p)
{
	return (unsigned)p < GS_P_MAX && prec_table[p].cls == GS_PC_QUANT;
}

gs_compute gs_prec_16bit(gs_prec p)
{
	switch (p) {
	case GS_P_AMP_BF16: case GS_P_MIXED_BF16: case GS_P_BF16: return GS_CD_BF16;
	case GS_P_AMP_FP16: case GS_P_MIXED_FP16: case GS_P_FP16: return GS_CD_FP16;
	default: return GS_CD_AUTO;
	}
}

bool gs_settings_kbit_prep(const gs_settings *s)
{
	gs_prec p = gs_settings_precision(s);
	bool peft_base = p == GS_P_INT8 || p == GS_P_NF4 || p == GS_P_NF4_DQ || p == GS_P_AWQ_INT4;

	if ((s->method != GS_LORA && s->method != GS_QLORA) || !gs_prec_quantized(p) ||
	    p == GS_P_GPTQ_INT4 || p == GS_P_GPTQ_INT8)
		return false;
	switch (s->kbit_prep) {
	case GS_KP_ON: return true;
	case GS_KP_OFF: return false;
	default:
		return peft_base && (s->sharding == GS_SH_DDP || s->sharding == GS_SH_PIPELINE);
	}
}

bool gs_attn_eager(gs_attn a)
{
	return a == GS_ATTN_EAGER || a == GS_ATTN_EAGER_UPCAST || a == GS_ATTN_MATH || a == GS_ATTN_MATH_LEGACY;
}

bool gs_loss_fused(gs_loss l)
{
	return l == GS_LOSS_FUSED || l == GS_LOSS_FUSED_CHUNKS;
}

int64_t gs_settings_dp_ranks(const gs_settings *s)
{
	int64_t split = (s->tp > 1 ? s->tp : 1) * (s->pp > 1 ? s->pp : 1);

	return s->sharding == GS_SH_PIPELINE ? 1 : s->gpus / split;
}

double gs_dtype_bytes(gs_dtype d)
{
	switch (d) {
	case GS_DT_FP32: return 4;
	case GS_DT_FP8:
	case GS_DT_INT8: return 1;
	default: return 2;
	}
}

gs_prec gs_settings_precision(const gs_settings *s)
{
	bool fp16 = s->compute_dtype == GS_CD_FP16;

	if (s->precision_set)
		return s->precision;
	switch (s->method) {
	case GS_FULL: return fp16 ? GS_P_AMP_FP16 : GS_P_AMP_BF16;
	case GS_QLORA: return GS_P_NF4;
	case GS_INFER: return s->native < GS_P_MAX ? s->native : fp16 ? GS_P_FP16 : GS_P_BF16;
	default: return fp16 ? GS_P_FP16 : GS_P_BF16;
	}
}

/* Integer in [lo, hi]; the limits keep every byte product inside 64 bits. */
static gs_err parse_int(const char *name, const char *v, int64_t lo, int64_t hi, int64_t *out, gs_error *e)
{
	int64_t x;

	if (!gs_parse_i64(v, SIZE_MAX, &x))
		return gs_fail(e, GS_EUSAGE, "--%s: '%s' is not an integer", name, v);
	if (x < lo || x > hi)
		return gs_fail(e, GS_EUSAGE, "--%s: %lld is out of range [%lld, %lld]", name, (long long)x,
		               (long long)lo, (long long)hi);
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

static gs_err parse_enum(const char *name, const char *v, const char *const *names, int *out, gs_error *e)
{
	char list[256] = "";
	int i = lookup(names, v);

	if (i >= 0) {
		*out = i;
		return GS_OK;
	}
	for (size_t k = 0; names[k] != NULL; k++) {
		strncat(list, names[k], sizeof list - strlen(list) - 1);
		if (names[k + 1] != NULL)
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
#define MAX_SEQ (16.0 * 1024 * 1024)
#define MAX_GPUS 65536

/* The precision's help text, from the table (prec_ready). */
static char prec_help[600];

/* names of the table's rows with every method of `has` and none of
 * `lacks`, space-separated, appended at *k */
static void prec_list(char *buf, size_t n, size_t *k, unsigned has, unsigned lacks, gs_prec_class only,
                      bool by_class)
{
	for (int i = 0; i < GS_P_MAX; i++) {
		const gs_prec_info *r = &prec_table[i];
		if ((r->methods & has) != has || (r->methods & lacks) || (by_class && r->cls != only))
			continue;
		if (*k < n)
			*k += (size_t)snprintf(buf + *k, n - *k, "%s%s", *k && buf[*k - 1] != ' ' ? " " : "", r->name);
	}
}

/* The names and the help text, made once from the table. */
static void prec_ready(void)
{
	size_t k = 0, n = sizeof prec_help;

	if (prec_names[0] != NULL)
		return;
	for (int i = 0; i < GS_P_MAX; i++)
		prec_names[i] = prec_table[i].name;
	k += (size_t)snprintf(prec_help + k, n - k, "full: ");
	prec_list(prec_help, n, &k, GS_M(GS_FULL), 0, 0, false);
	k += (size_t)snprintf(prec_help + k, n - k, " (amp-bf16); lora/qlora/inference base storage: ");
	prec_list(prec_help, n, &k, M_BASE, 0, 0, false);
	k += (size_t)snprintf(prec_help + k, n - k, ", lora/inference also: ");
	prec_list(prec_help, n, &k, M_STORE, GS_M(GS_QLORA), GS_PC_RECIPE, true);
	k += (size_t)snprintf(prec_help + k, n - k, " (fp32 under autocast), lora and inference: ");
	prec_list(prec_help, n, &k, M_STORE, GS_M(GS_QLORA), GS_PC_PLAIN, true);
	k += (size_t)snprintf(prec_help + k, n - k, ", inference only: ");
	prec_list(prec_help, n, &k, GS_M(GS_INFER), GS_M(GS_LORA) | GS_M(GS_FULL), 0, false);
	if (k < n)
		snprintf(prec_help + k, n - k, "; native: the default (inference: the checkpoint's own storage "
		                               "from its quantization_config, else bf16; lora bf16; qlora nf4)");
}

#define F(field) offsetof(gs_settings, field)

/* The precision when none is given: the method's (gs_settings_precision). */
static int precision_by_method(const gs_settings *s)
{
	return (int)gs_settings_precision(s);
}

/*
 * The settings, in column and key order. Methods: those whose estimate the
 * setting can change (tests/unit/test_settings.c checks it against the
 * engine: two rows whose applicable settings agree get one estimate), and
 * for an axis the methods it is swept for. Label fragments print in
 * label_at order when `when` holds and the setting applies to the row's
 * method. A row gives the members up to derive in order, and names .axis
 * only where the spec sweeps the setting: the members it leaves out are
 * zero, so the warning about them is off for the table.
 */
#define AXIS(order, key, option, arg, help, flags) .axis = { order, key, option, arg, help, flags }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const gs_setting table[] = {
	{ "method", GS_ST_ENUM, method_names, 0, 0, "full", "M",
	  "what the row does: train every weight, LoRA or QLoRA adapters, or serve", GS_M_ALL,
	  GS_SF_SWEPT | GS_SF_HARNESS, "Method", 9, "%s", GS_LW_ALWAYS, 0, F(method), 0, NULL,
	  AXIS(1, "method", "methods", "M,...", "full lora qlora inference", 0) },
	{ "stack", GS_ST_TEXT, NULL, 0, 0, "hf,trl", "NAME",
	  "the frameworks the row runs, NAME[@VERSION],...: each sets the settings as that stack "
	  "does (gpusizer list stacks; later ones win, any setting given beside it wins over them)",
	  GS_M_ALL, GS_SF_SWEPT, "Stack", 14, " [%s]", GS_LW_CHANGED, 30, F(stack), 0, NULL,
	  AXIS(2, "stack", "stacks", "S;...", "stacks, each NAME[@VERSION][,NAME...], for every\nmethod, separated by ';'",
	       GS_AXF_PER_METHOD | GS_AXF_SEMICOLON) },
	{ "precision", GS_ST_ENUM, prec_names, 0, 0, NULL, "P", prec_help, GS_M_ALL,
	  GS_SF_SWEPT | GS_SF_HARNESS | GS_SF_OWN_LIST, "Precision", 12, " %s", GS_LW_ALWAYS, 1,
	  F(precision), F(precision_set), precision_by_method,
	  AXIS(3, "precision", "precisions", "P,...",
	       "for every method (combinations a method\nrejects are skipped)", GS_AXF_PER_METHOD) },
	{ "compute-dtype", GS_ST_ENUM, compute_names, 0, 0, "auto", "D",
	  "the 16-bit type the row computes in (quantized bases' compute dtype too): auto is bf16 "
	  "where the GPU has it and fp16 where not (equal bytes: one estimate; the verdict says "
	  "which), bf16 or fp16 forces it (a GPU without bf16 cannot run bf16)", GS_M_ALL,
	  GS_SF_NO_HARNESS, "Compute dtype", 8, " %s-compute", GS_LW_CHANGED, 29,
	  F(compute_dtype), 0, NULL },
	{ "adapter-dtype", GS_ST_ENUM, adapter_names, 0, 0, "fp32", "D",
	  "LoRA adapter storage (PEFT keeps fp32)", GS_M_ADAPTER,
	  GS_SF_HARNESS, "Adapter dtype", 9, NULL, GS_LW_NEVER, 0, F(adapter_dtype), 0, NULL },
	{ "optimizer", GS_ST_ENUM, optim_names, 0, 0, "adamw", "O", "the optimizer", GS_M_TRAIN,
	  GS_SF_SWEPT | GS_SF_HARNESS, "Optimizer", 16, " %s", GS_LW_ALWAYS, 2, F(optimizer), 0, NULL,
	  AXIS(4, "optimizer", "optimizers", "O,...", "optimizers", 0) },
	{ "optimizer-in-bwd", GS_ST_BOOL, NULL, 0, 0, "false", NULL,
	  "step each parameter inside backward and free its gradient at once (torchtune "
	  "optimizer_in_bwd)", GS_M_TRAIN,
	  GS_SF_NO_HARNESS, "Optimizer in backward", 9, " opt-in-bwd", GS_LW_CHANGED, 11,
	  F(optimizer_in_bwd), 0, NULL },
	{ "lora-r", GS_ST_INT, NULL, 1, 65536, "16", "N", "LoRA rank", GS_M_ADAPTER,
	  GS_SF_SWEPT | GS_SF_HARNESS, "LoRA r", 7, " r%s", GS_LW_ALWAYS, 3, F(lora_r), 0, NULL,
	  AXIS(5, "lora_r", "lora-r", "N,...", "LoRA ranks", 0) },
	{ "lora-targets", GS_ST_TEXT, NULL, 0, 0, "qv", "T",
	  "qv attn all-linear, or module names q_proj,v_proj", GS_M_ADAPTER,
	  GS_SF_SWEPT | GS_SF_HARNESS, "LoRA targets", 12, " %s", GS_LW_ALWAYS, 4, F(lora_targets), 0, NULL,
	  AXIS(6, "lora_targets", "lora-targets", "T,...", "LoRA targets", 0) },
	{ "lora-dropout", GS_ST_REAL, NULL, 0, 0.99, "0.05", "F", "LoRA dropout", GS_M_ADAPTER,
	  GS_SF_HARNESS, "LoRA dropout", 8, NULL, GS_LW_NEVER, 0, F(lora_dropout), 0, NULL },
	{ "train-embeddings", GS_ST_BOOL, NULL, 0, 0, "false", NULL,
	  "embeddings and head fully trained (modules_to_save)", GS_M_ADAPTER,
	  GS_SF_HARNESS, "Train embeddings", 12, NULL, GS_LW_NEVER, 0, F(train_embeddings), 0, NULL },
	{ "kbit-prep", GS_ST_ENUM, kbit_prep_names, 0, 0, "auto", "K",
	  "quantized base (LoRA/QLoRA): PEFT's prepare_model_for_kbit_training casts the unquantized "
	  "parameters (embeddings, norms, head) to fp32; auto: on for bitsandbytes and AWQ bases on one "
	  "GPU, ddp or pipeline, off otherwise (GPTQ bases are never cast)",
	  GS_M_ADAPTER, GS_SF_HARNESS, "k-bit prep", 8, " kbit-prep-%s", GS_LW_CHANGED, 21,
	  F(kbit_prep), 0, NULL },
	{ "bnb-saves", GS_ST_ENUM, bnb_saves_names, 0, 0, "weight", "B",
	  "what bitsandbytes' 4-bit matmul keeps for backward (nf4, nf4-dq and their -litgpt "
	  "variants): weight (bitsandbytes 0.43.2 on: the packed weight only) or input (before "
	  "0.43.2: its input too, as a ctx attribute, so the input lives as long as the autograd "
	  "graph: through the whole backward, and past it where the loop keeps the graph, "
	  "--held-logits)",
	  GS_M_ADAPTER, GS_SF_NO_HARNESS, "bnb saves", 8, " bnb-saves-%s", GS_LW_CHANGED, 26,
	  F(bnb_saves), 0, NULL },
	{ "batch", GS_ST_INT, NULL, 1, MAX_BATCH, "1", "N", "micro-batch per GPU", GS_M_ALL,
	  GS_SF_SWEPT | GS_SF_HARNESS, "Batch", 7, " b%s", GS_LW_ALWAYS, 5, F(batch), 0, NULL,
	  AXIS(9, "batch", "batches", "N,...", "micro-batches per GPU", 0) },
	{ "seq", GS_ST_INT, NULL, 1, MAX_SEQ, "2048", "N", "tokens per sequence", GS_M_ALL,
	  GS_SF_SWEPT | GS_SF_HARNESS, "Context (tokens)", 10, " s%s", GS_LW_ALWAYS, 6, F(seq), 0, NULL,
	  AXIS(10, "seq", "seqs", "N,...", "contexts (tokens per sequence)", 0) },
	{ "grad-accum", GS_ST_INT, NULL, 1, 1 << 20, "1", "N", "micro-batches per optimizer step",
	  GS_M_TRAIN, GS_SF_HARNESS, "Gradient accumulation", 13, " ga%s", GS_LW_CHANGED, 9,
	  F(grad_accum), 0, NULL },
	{ "grad-ckpt", GS_ST_BOOL, NULL, 0, 0, "false", NULL, "per-layer activation checkpointing",
	  GS_M_TRAIN, GS_SF_SWEPT | GS_SF_HARNESS, "Gradient checkpointing", 13, " ckpt",
	  GS_LW_CHANGED, 7, F(grad_ckpt), 0, NULL,
	  AXIS(7, "grad_ckpt", "grad-ckpt", "true,false", "checkpointing on, off or both", 0) },
	{ "ckpt-offload", GS_ST_BOOL, NULL, 0, 0, "false", NULL,
	  "with --grad-ckpt, each checkpointed layer input copied to pinned host memory and back "
	  "for its recompute, through two GPU buffers of one input each, the last layer's kept "
	  "(Unsloth's use_gradient_checkpointing=\"unsloth\")", GS_M_TRAIN,
	  GS_SF_NO_HARNESS, "Checkpoints offloaded", 10, " ckpt-offload", GS_LW_CHANGED, 31,
	  F(ckpt_offload), 0, NULL },
	{ "compile", GS_ST_BOOL, NULL, 0, 0, "false", NULL,
	  "torch.compile: fused norms and gated activations save less", GS_M_TRAIN,
	  GS_SF_NO_HARNESS, "torch.compile", 13, " compile", GS_LW_CHANGED, 10, F(compile), 0, NULL },
	{ "fused-kernels", GS_ST_BOOL, NULL, 0, 0, "false", NULL,
	  "RMSNorm and the gated activation through kernels that save only their inputs and the "
	  "norm's 1/rms (Liger's LigerRMSNorm and LigerSiLUMulFunction, Unsloth's fast_rms_layernorm "
	  "and swiglu), as torch.compile saves", GS_M_TRAIN,
	  GS_SF_NO_HARNESS, "Fused kernels", 8, " fused-kernels", GS_LW_CHANGED, 32,
	  F(fused_kernels), 0, NULL },
	{ "attn", GS_ST_ENUM, attn_names, 0, 0, "sdpa", "A",
	  "attention kernel (eager-upcast: eager with softmax(scores.float()), as AutoAWQ's fused "
	  "attention and Meta's reference Llama; math: SDPA's math backend, fp32 copies of q, k and "
	  "v, inference only, as gpt-fast's decode forces it; math-legacy: that backend before "
	  "PyTorch 2.5, 16-bit scores and softmax, keys and values broadcast, where SDPA falls back "
	  "when its fused kernels refuse unequal head counts)", GS_M_ALL,
	  GS_SF_SWEPT | GS_SF_HARNESS, "Attention", 9, " %s", GS_LW_ALWAYS, 8, F(attn), 0, NULL,
	  AXIS(8, "attn", "attn", "A,...", "attention kernels", 0) },
	{ "fused-qkv", GS_ST_BOOL, NULL, 0, 0, "false", NULL,
	  "the stack runs query, key and value as one linear whatever the config, as litgpt's "
	  "CausalSelfAttention: LoRA on any of them is one adapter with one dropout copy, zero-padded "
	  "(its output saved) unless all three train, and a value that is not expanded reaches "
	  "attention as a view that keeps the whole fused output alive",
	  GS_M_TRAIN, GS_SF_NO_HARNESS, "Fused QKV", 8, " fused-qkv", GS_LW_CHANGED, 25,
	  F(fused_qkv), 0, NULL },
	{ "held-logits", GS_ST_BOOL, NULL, 0, 0, "false", NULL,
	  "the training loop keeps the last micro-batch's logits until the next forward returns "
	  "(litgpt's fit loop): they, and what their autograd graph holds outside saved tensors "
	  "(--bnb-saves input), stay live through backward, the optimizer step and the next forward",
	  GS_M_TRAIN, GS_SF_NO_HARNESS, "Held logits", 8, " held-logits", GS_LW_CHANGED, 27,
	  F(held_logits), 0, NULL },
	{ "loss", GS_ST_ENUM, loss_names, 0, 0, "standard", "L",
	  "cross-entropy over the vocabulary (standard: transformers since 4.46; chunked: litgpt, "
	  "torchtune; legacy: logits.float() returned and a shifted fp32 copy, transformers before 4.46; "
	  "fused: Liger's fused linear cross-entropy, chunks of about tokens x hidden / vocab rows, "
	  "no logits kept; fused-chunks: Unsloth's fused loss, chunks of at most 4 GiB of fp32 logits)",
	  GS_M_TRAIN, GS_SF_HARNESS, "Loss", 9, " %s-loss", GS_LW_CHANGED, 12, F(loss), 0, NULL },
	{ "loss-dtype", GS_ST_ENUM, loss_dtype_names, 0, 0, "auto", "D",
	  "the loss buffers' precision: fp32 (autocast, transformers' heads up-cast), compute (16-bit "
	  "logits into cross-entropy), auto (compute only for a full fine-tune with no autocast, "
	  "bf16/fp16/mixed-*, of a family whose head does not up-cast: Qwen v1)",
	  GS_M_TRAIN, GS_SF_NO_HARNESS, "Loss dtype", 8, " loss-%s", GS_LW_CHANGED, 22,
	  F(loss_dtype), 0, NULL },
	{ "gpus", GS_ST_INT, NULL, 1, MAX_GPUS, "1", "N", "how many GPUs: a count, never a GPU class",
	  GS_M_ALL, GS_SF_SWEPT | GS_SF_NO_HARNESS | GS_SF_XLSX_MATRIX | GS_SF_LAYOUT, "GPUs", 6, " %sx",
	  GS_LW_MULTI, 13, F(gpus), 0, NULL,
	  AXIS(11, "gpu_counts", "gpu-counts", "C[:S[:TP[:PP]]],...",
	       "GPU counts, each with a sharding, tensor-\nand pipeline-parallel degree: 1,2:zero3,8:fsdp,\n"
	       "16:zero1:2:4 (pp: training rows)", GS_AXF_COUNTS) },
	{ "sharding", GS_ST_ENUM, shard_names, 0, 0, "ddp", "S", "how the GPUs share the model",
	  GS_M_ALL, GS_SF_SWEPT | GS_SF_NO_HARNESS | GS_SF_LAYOUT, "Sharding", 9, "%s", GS_LW_MULTI, 14,
	  F(sharding), 0, NULL },
	{ "tp", GS_ST_INT, NULL, 1, 1024, "1", "N", "tensor-parallel degree", GS_M_ALL,
	  GS_SF_SWEPT | GS_SF_NO_HARNESS | GS_SF_LAYOUT, "Tensor parallel", 9, " tp%s", GS_LW_CHANGED, 15, F(tp), 0, NULL },
	{ "pp", GS_ST_INT, NULL, 1, 1024, "1", "N",
	  "pipeline-parallel stages under Megatron-Core's 1F1B schedule: each stage holds its share "
	  "of the layers, the first the embedding and the in-flight micro-batches' activations "
	  "(min(N, --grad-accum)), the last the head and the loss; --gpus / (--tp x N) "
	  "data-parallel ranks under ddp, zero1 or fsdp2",
	  GS_M_TRAIN, GS_SF_SWEPT | GS_SF_NO_HARNESS | GS_SF_LAYOUT | GS_SF_KEY_CHANGED, "Pipeline parallel", 9,
	  " pp%s", GS_LW_CHANGED, 15, F(pp), 0, NULL },
	{ "vpp", GS_ST_INT, NULL, 1, 64, "1", "N",
	  "virtual pipeline stages: model chunks a --pp stage holds under Megatron-Core's interleaved "
	  "schedule, which shrinks the bubble N times and keeps more micro-batches in flight",
	  GS_M_TRAIN, GS_SF_NO_HARNESS | GS_SF_KEY_CHANGED, "Virtual pipeline", 9, " vpp%s", GS_LW_CHANGED, 15, F(vpp), 0,
	  NULL },
	{ "ep", GS_ST_INT, NULL, 1, 1024, "1", "N",
	  "expert-parallel ranks (MoE training, Megatron-Core's expert_model_parallel_size): each "
	  "holds 1/N of every MoE layer's routed experts, their gradients and states; N divides "
	  "the data-parallel ranks, --gpus / (--tp x --pp), and the model's routed experts",
	  GS_M_TRAIN, GS_SF_NO_HARNESS | GS_SF_KEY_CHANGED, "Expert parallel", 9, " ep%s", GS_LW_CHANGED, 15, F(ep), 0,
	  NULL },
	{ "offload", GS_ST_ENUM, offload_names, 0, 0, "none", "O",
	  "what moves to host memory (reported beside the GPU figure)", GS_M_ALL,
	  GS_SF_NO_HARNESS, "Offload", 10, " offload-%s", GS_LW_CHANGED, 17, F(offload), 0, NULL },
	{ "state-dict-load", GS_ST_BOOL, load_names, 0, 0, "sharded", "L",
	  "what each rank loads under zero3/fsdp/fsdp2 (full: the whole weights, kept beside its "
	  "shard)",
	  GS_M_ALL, GS_SF_NO_HARNESS, "State dict load", 9, " full-load", GS_LW_CHANGED, 16,
	  F(full_state_dict_load), 0, NULL },
	{ "zero-bucket", GS_ST_INT, NULL, 0, 1e11, "500000000", "N",
	  "DeepSpeed reduce_bucket_size in elements (zero2: the ipg buffer through backward; zero3: "
	  "the contiguous gradient bucket, from the start); 0 is \"auto\", hidden_size^2, as the HF "
	  "Trainer and Accelerate fill it (their, ms-swift's, LLaMA-Factory's and axolotl's ZeRO-3 "
	  "templates say auto)",
	  GS_M_TRAIN, GS_SF_NO_HARNESS | GS_SF_LAYOUT, "ZeRO bucket (elements; 0 auto)", 12, " bucket-%s",
	  GS_LW_CHANGED, 23, F(zero_bucket), 0, NULL },
	{ "overlap-comm", GS_ST_BOOL, NULL, 0, 0, "false", NULL,
	  "DeepSpeed overlap_comm under zero2: a second ipg buffer of --zero-bucket elements "
	  "(stage 1 turns it off; stage 3 keeps one bucket either way)",
	  GS_M_TRAIN, GS_SF_NO_HARNESS | GS_SF_LAYOUT, "Overlap comm (ZeRO-2)", 10, " overlap-comm", GS_LW_CHANGED, 24,
	  F(overlap_comm), 0, NULL },
	{ "kv-dtype", GS_ST_ENUM, dtype_names, 0, 0, NULL, "D",
	  "inference KV cache: fp32 bf16 fp16 fp8 int8 (the compute dtype; int8: a 16-bit scale "
	  "per token and head, read through a dequantized copy of one layer, as torchao's "
	  "AffineQuantizedKVCache)", GS_M(GS_INFER),
	  GS_SF_HARNESS | GS_SF_OWN_LIST, "KV cache dtype (auto: compute dtype)", 15, NULL,
	  GS_LW_NEVER, 0, F(kv_dtype), F(kv_dtype_set), NULL },
	{ "kv-cache", GS_ST_ENUM, kvcache_names, 0, 0, "dynamic", "C",
	  "inference KV cache while generating: dynamic (DynamicCache, grown a layer at a time), "
	  "legacy (tuples rebuilt each step: two copies at the peak; older transformers, remote-code "
	  "models), static (preallocated at prompt + new tokens), static-mask (static, plus the "
	  "[L, L] bool causal-mask buffer gpt-fast's setup_caches builds beside it)",
	  GS_M(GS_INFER), GS_SF_NO_HARNESS, "KV cache", 9, " %s-cache", GS_LW_CHANGED, 20,
	  F(kv_cache), 0, NULL },
	{ "new-tokens", GS_ST_INT, NULL, 0, 1 << 24, "0", "N",
	  "inference: tokens generated after the --seq prompt (the cache holds both)",
	  GS_M(GS_INFER), GS_SF_HARNESS, "New tokens", 8, " +%s new", GS_LW_CHANGED, 19,
	  F(new_tokens), 0, NULL },
	{ "logits", GS_ST_ENUM, logits_names, 0, 0, "last", "L",
	  "inference prefill logits: last (the last position, generate()), all (every prompt "
	  "position, a plain forward) or all-fp32 (every position upcast to fp32, older transformers)",
	  GS_M(GS_INFER), GS_SF_HARNESS, "Logits", 7, " logits-%s", GS_LW_CHANGED, 18,
	  F(logits), 0, NULL },
	{ "awq-fuse", GS_ST_BOOL, NULL, 0, 0, "false", NULL,
	  "inference on awq-int4: AutoAWQ's from_quantized(fuse_layers=True), whose fuser concatenates "
	  "each layer's q, k and v (packed codes, zeros, scales) into one linear while the unfused "
	  "modules are still referenced, so loading peaks with a second copy of every layer's q, k and v",
	  GS_M(GS_INFER), GS_SF_NO_HARNESS, "AWQ fused load", 8, " awq-fuse", GS_LW_CHANGED, 28,
	  F(awq_fuse), 0, NULL },
	{ "cuda-context", GS_ST_INT, NULL, 0, 1 << 20, "1343", "MIB",
	  "CUDA context and library handles outside torch's allocator, MiB", GS_M_ALL, 0,
	  "CUDA context MiB", 9, NULL, GS_LW_NEVER, 0, F(cuda_context_mib), 0, NULL },
	{ "formula", GS_ST_ENUM, formula_names, 0, 0, "detailed", "F",
	  "what computes the estimate (detailed: the engine; the others: published rules of thumb)", GS_M_ALL, GS_SF_SWEPT, "Formula", 10, NULL,
	  GS_LW_NEVER, 0, F(formula), 0, NULL },
	{ "trainable-fraction", GS_ST_REAL, NULL, 0, 1, NULL, "F",
	  "cookbook formula only (the seed's default: 0.007 LoRA/QLoRA, 1 full)", GS_M_ALL, 0,
	  "Trainable fraction (cookbook)", 11, NULL, GS_LW_NEVER, 0, F(trainable_fraction), 0, NULL },
};

#pragma GCC diagnostic pop
#undef AXIS

#define N_SETTINGS (sizeof table / sizeof table[0])
/* gs_setting_bit and gs_settings.given hold one bit a row */
_Static_assert(N_SETTINGS <= 64, "the settings table holds at most 64 rows");

const gs_setting *gs_settings_table(void)
{
	prec_ready();
	return table;
}

size_t gs_settings_count(void) { return N_SETTINGS; }

const gs_setting *gs_setting_find(const char *name)
{
	prec_ready();
	for (size_t i = 0; i < N_SETTINGS; i++)
		if (strcmp(table[i].name, name) == 0)
			return &table[i];
	return NULL;
}

const gs_setting *gs_settings_axis(size_t k)
{
	for (size_t i = 0; i < N_SETTINGS; i++)
		if (table[i].axis.order > 0 && (size_t)table[i].axis.order == k + 1)
			return &table[i];
	return NULL;
}

const gs_setting *gs_settings_axis_option(const char *s)
{
	for (size_t i = 0; s != NULL && i < N_SETTINGS; i++)
		if (table[i].axis.order > 0 && strcmp(table[i].axis.option, s) == 0)
			return &table[i];
	return NULL;

}

uint64_t gs_setting_bit(const char *name)
{
	const gs_setting *d = gs_setting_find(name);

	return d != NULL && d - table < 64 ? 1ull << (d - table) : 0;
}

#define FIELD(s, d, type) ((type *)(void *)((char *)(s) + (d)->off))
#define CFIELD(s, d, type) ((const type *)(const void *)((const char *)(s) + (d)->off))

/* The field's "given" flag (d->set_off != 0). */
static bool *given_flag(const gs_setting *d, const gs_settings *s)
{
	return (bool *)(void *)((char *)(uintptr_t)s + d->set_off);
}

static bool given(const gs_setting *d, const gs_settings *s)
{
	return d->set_off == 0 || *given_flag(d, s);
}

/* Parse v into the setting's field; marks it given. */
static gs_err set_value(const gs_setting *d, gs_settings *s, const char *v, gs_error *e)
{
	int i = 0;
	bool b = false;
	int64_t x = 0;
	gs_err rc;

	switch (d->type) {
	case GS_ST_ENUM:
		if ((rc = parse_enum(d->name, v, d->values, &i, e)) == GS_OK)
			memcpy(FIELD(s, d, int), &i, sizeof i);
		break;
	case GS_ST_BOOL:
		if (d->values != NULL) {
			rc = parse_enum(d->name, v, d->values, &i, e);
			b = i == 1;
		} else {
			rc = parse_bool(d->name, v, &b, e);
		}
		if (rc == GS_OK)
			*FIELD(s, d, bool) = b;
		break;
	case GS_ST_INT:
		if ((rc = parse_int(d->name, v, (int64_t)d->lo, (int64_t)d->hi, &x, e)) == GS_OK)
			*FIELD(s, d, int64_t) = x;
		break;
	case GS_ST_REAL:
		rc = parse_double(d->name, v, d->lo, d->hi, FIELD(s, d, double), e);
		break;
	case GS_ST_TEXT:
		rc = d->off == offsetof(gs_settings, stack) ? gs_stack_check(v, FIELD(s, d, char), GS_LORA_NAMES_MAX, e)
		                                             : parse_targets(v, FIELD(s, d, char), e);
		break;
	default:
		rc = gs_fail(e, GS_EINTERNAL, "setting '%s': no type", d->name);
	}
	if (rc == GS_OK && d->set_off != 0)
		*given_flag(d, s) = true;
	return rc;
}

gs_err gs_settings_set(gs_settings *s, const char *name, const char *v, gs_error *e)
{
	const gs_setting *d = gs_setting_find(name);

	if (d == NULL)
		return gs_fail(e, GS_EUSAGE, "unknown setting '%s'", name);
	if (v == NULL)
		return gs_fail(e, GS_EUSAGE, "--%s: missing value", name);
	if (d->off == offsetof(gs_settings, precision) && strcmp(v, "native") == 0) {
		s->precision_set = false; /* the method's default: inference, the checkpoint's storage */
		return GS_OK;
	}
	return set_value(d, s, v, e);
}

const char *gs_prec_default_text(gs_method m)
{
	gs_settings s;

	if (m == GS_INFER)
		return "native";
	gs_settings_default(&s);
	s.method = m;
	return gs_prec_name(gs_settings_precision(&s));
}

gs_err gs_setting_set(const gs_setting *d, gs_settings *s, const char *v, gs_error *e)
{
	return set_value(d, s, v, e);
}

void gs_settings_default(gs_settings *s)
{
	/* parsed once (per thread): the planner resets a row to the defaults
	 * for every layout it tries (gs_settings_reset_except) */
	static _Thread_local gs_settings def;
	static _Thread_local bool have;
	gs_error e = { 0 };

	prec_ready();
	if (have) {
		*s = def;
		return;
	}
	memset(s, 0, sizeof *s);
	for (size_t i = 0; i < N_SETTINGS; i++)
		if (table[i].def != NULL)
			(void)set_value(&table[i], s, table[i].def, &e); /* tests check every def parses */
	/* The derived ones: not given, so they follow another setting. */
	s->precision = GS_P_AMP_BF16; /* read through gs_settings_precision() */
	s->native = GS_P_MAX;         /* no checkpoint quantization until a model says so */
	s->kv_dtype = GS_DT_BF16;     /* unused until given: the compute dtype */
	s->trainable_fraction = -1.0; /* the seed's default for the method */
	def = *s;
	have = true;
}

void gs_settings_reset_except(gs_settings *s, uint64_t keep)
{
	gs_settings d;

	gs_settings_default(&d);
	for (size_t i = 0; i < N_SETTINGS && i < 64; i++) {
		const gs_setting *t = &table[i];
		size_t size = t->type == GS_ST_ENUM ? sizeof(int) : t->type == GS_ST_BOOL ? sizeof(bool)
		              : t->type == GS_ST_INT ? sizeof(int64_t) : t->type == GS_ST_REAL ? sizeof(double)
		              : GS_LORA_NAMES_MAX;
		if (keep & (1ull << i))
			continue;
		memcpy((char *)s + t->off, (const char *)&d + t->off, size);
		if (t->set_off != 0)
			*given_flag(t, s) = *given_flag(t, &d);
	}
}

/* Append t to buf (n bytes) at *k, cut where it is full (as snprintf's
 * "%s" cuts); *k grows by t's whole length, so *k >= n says it was cut.
 * Settings' texts and keys are built for every row: no format to parse. */
static void text_add(char *buf, size_t n, size_t *k, const char *t)
{
	size_t m = strlen(t);

	if (*k < n) {
		size_t c = m < n - *k ? m : n - *k - 1;
		memcpy(buf + *k, t, c);
		buf[*k + c] = '\0';
	}
	*k += m;
}

/* v->text = t, cut to its size. */
static void copy_text(gs_setting_value *v, const char *t)
{
	size_t k = 0;

	text_add(v->text, sizeof v->text, &k, t);
}

void gs_setting_get(const gs_setting *d, const gs_settings *s, gs_setting_value *v)
{
	int i = 0;

	memset(v, 0, sizeof *v);
	v->type = d->type;
	switch (d->type) {
	case GS_ST_ENUM:
		v->named = true;
		memcpy(&i, CFIELD(s, d, int), sizeof i);
		if (!given(d, s) && d->derive != NULL)
			i = d->derive(s);
		v->i = i;
		v->unset = !given(d, s) && d->def == NULL && d->derive == NULL;
		copy_text(v, v->unset ? "auto" : name_of(d->values, i));
		break;
	case GS_ST_BOOL:
		v->b = *CFIELD(s, d, bool);
		v->named = d->values != NULL;
		copy_text(v, v->named ? d->values[v->b ? 1 : 0] : v->b ? "true" : "false");
		break;
	case GS_ST_INT:
		v->i = *CFIELD(s, d, int64_t);
		v->d = (double)v->i;
		gs_fmt_i64(v->text, v->i);
		break;
	case GS_ST_REAL:
		v->d = *CFIELD(s, d, double);
		v->unset = v->d < d->lo; /* below the range: not given (trainable-fraction) */
		if (v->unset)
			copy_text(v, "auto");
		else
			snprintf(v->text, sizeof v->text, "%.10g", v->d);
		break;
	case GS_ST_TEXT:
		v->named = true;
		copy_text(v, CFIELD(s, d, char));
		break;
	}
}

bool gs_setting_applies(const gs_setting *d, const gs_settings *s)
{
	return (d->methods & GS_M(s->method)) != 0;
}

bool gs_setting_changed(const gs_setting *d, const gs_settings *s)
{
	gs_setting_value v;

	if (d->def == NULL && d->set_off != 0)
		return given(d, s);
	gs_setting_get(d, s, &v);
	return d->def == NULL ? !v.unset : strcmp(v.text, d->def) != 0;
}

gs_err gs_settings_check(const gs_settings *s, gs_error *e)
{
	gs_prec p = gs_settings_precision(s);
	const gs_prec_info *r = gs_prec_info_of(p);
	char list[400];
	size_t k = 0;

	if (r == NULL)
		return gs_fail(e, GS_EUSAGE, "--precision: no precision %d", (int)p);
	if (!(r->methods & GS_M(s->method))) {
		/* the names this method takes, from the table */
		list[0] = '\0';
		for (int i = 0; i < GS_P_MAX; i++)
			if (prec_table[i].methods & GS_M(s->method))
				k += (size_t)snprintf(list + k, k < sizeof list ? sizeof list - k : 0, "%s%s", k ? ", " : "",
				                      prec_table[i].name);
		if (s->method == GS_FULL)
			return gs_fail(e, GS_EUSAGE, "--precision %s is a storage format; full fine-tuning takes %s",
			               r->name, list);
		if (r->not_for != NULL)
			return gs_fail(e, GS_EUSAGE, "--precision %s is not for --method %s: %s", r->name,
			               gs_method_name(s->method), r->not_for);
		if (s->method == GS_QLORA)
			return gs_fail(e, GS_EUSAGE, "--method qlora needs a quantized base (--precision %s), not %s", list,
			               r->name);
		return gs_fail(e, GS_EUSAGE, "--precision %s is a full fine-tuning recipe; --method %s takes %s "
		               "(amp-bf16 and amp-fp16: an fp32 base under autocast)",
		               r->name, gs_method_name(s->method), list);
	}
	if (s->compute_dtype != GS_CD_AUTO && s->precision_set && gs_prec_16bit(p) != GS_CD_AUTO &&
	    gs_prec_16bit(p) != s->compute_dtype)
		return gs_fail(e, GS_EUSAGE, "--precision %s computes in %s; --compute-dtype %s contradicts it",
		               gs_prec_name(p), gs_compute_name(gs_prec_16bit(p)), gs_compute_name(s->compute_dtype));
	if (s->ckpt_offload && !s->grad_ckpt && s->method != GS_INFER)
		return gs_fail(e, GS_EUSAGE, "--ckpt-offload moves the checkpointed layer inputs to the host: it needs --grad-ckpt");
	if (s->optimizer_in_bwd && s->grad_accum > 1)
		return gs_fail(e, GS_EUSAGE, "--optimizer-in-bwd frees each gradient at once: it cannot accumulate (--grad-accum %lld)",
		               (long long)s->grad_accum);
	if (s->tp < 1)
		return gs_fail(e, GS_EUSAGE, "--tp %lld must be at least 1", (long long)s->tp);
	if (s->tp > s->gpus || s->gpus % s->tp != 0)
		return gs_fail(e, GS_EUSAGE, "--tp %lld must divide --gpus %lld", (long long)s->tp, (long long)s->gpus);
	if (s->sharding == GS_SH_PIPELINE && s->tp > 1)
		return gs_fail(e, GS_EUSAGE, "--sharding pipeline splits the layers over the GPUs; it does not combine with --tp %lld",
		               (long long)s->tp);
	if (s->pp > 1) {
		if (s->method == GS_INFER)
			return gs_fail(e, GS_EUSAGE, "--pp %lld is a training schedule (1F1B); inference splits the layers "
			               "with --sharding pipeline", (long long)s->pp);
		if (s->tp * s->pp > s->gpus || s->gpus % (s->tp * s->pp) != 0)
			return gs_fail(e, GS_EUSAGE, "--tp %lld x --pp %lld must divide --gpus %lld", (long long)s->tp,
			               (long long)s->pp, (long long)s->gpus);
		/* DeepSpeed's PipelineEngine asserts ZeRO stage < 2 ("ZeRO-2 and
		 * ZeRO-3 are incompatible with pipeline parallelism"); Megatron's
		 * distributed optimizer is zero1; torchtitan pipelines FSDP2 */
		if (s->sharding != GS_SH_DDP && s->sharding != GS_SH_ZERO1 && s->sharding != GS_SH_FSDP2)
			return gs_fail(e, GS_EUSAGE, "--pp %lld runs with --sharding ddp, zero1 or fsdp2, not %s "
			               "(DeepSpeed's pipeline engine refuses ZeRO-2 and 3; --sharding pipeline is the "
			               "naive split, one stage at a time)",
			               (long long)s->pp, gs_shard_name(s->sharding));
	}
	if (s->vpp > 1 && (s->pp <= 1 || s->method == GS_INFER))
		return gs_fail(e, GS_EUSAGE, "--vpp %lld interleaves the chunks of a --pp pipeline: it needs --pp 2 or more "
		               "(training)", (long long)s->vpp);
	if (s->ep > 1) {
		int64_t dp = gs_settings_dp_ranks(s);
		if (s->method == GS_INFER)
			return gs_fail(e, GS_EUSAGE, "--ep %lld is for training; inference splits the experts with --tp",
			               (long long)s->ep);
		if (dp % s->ep != 0)
			return gs_fail(e, GS_EUSAGE, "--ep %lld must divide the data-parallel ranks, --gpus / (--tp x --pp) = %lld%s",
			               (long long)s->ep, (long long)dp,
			               s->sharding == GS_SH_PIPELINE ? " (--sharding pipeline has none)" : "");
	}
	if (s->attn == GS_ATTN_MATH && s->method != GS_INFER)
		return gs_fail(e, GS_EUSAGE, "--attn math (SDPA's math backend) is modelled for --method inference only; "
		               "training under it is not (eager-upcast is the nearest: fp32 scores and probabilities)");
	if (s->method == GS_INFER && s->awq_fuse && p != GS_P_AWQ_INT4)
		return gs_fail(e, GS_EUSAGE, "--awq-fuse is AutoAWQ's fused loading of awq-int4 weights, not --precision %s",
		               gs_prec_name(p));
	if (s->method == GS_INFER && (s->offload == GS_OFF_OPTIMIZER || s->offload == GS_OFF_ACTIVATIONS))
		return gs_fail(e, GS_EUSAGE, "--offload %s does not apply to --method inference", gs_offload_name(s->offload));
	if (s->offload == GS_OFF_PARAMS && s->method != GS_INFER && s->sharding != GS_SH_ZERO3 && s->sharding != GS_SH_FSDP &&
	    s->sharding != GS_SH_FSDP2)
		return gs_fail(e, GS_EUSAGE, "--offload params needs --sharding zero3, fsdp or fsdp2");
	return GS_OK;
}

/* Append to buf (n bytes) at *k, printf-style; stops quietly when full. */
__attribute__((format(printf, 4, 5)))
static void label_add(char *buf, size_t n, size_t *k, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*k >= n)
		return;
	va_start(ap, fmt);
	w = vsnprintf(buf + *k, n - *k, fmt, ap);
	va_end(ap);
	*k = w < 0 ? n : *k + (size_t)w;
}

static bool label_shows(const gs_setting *d, const gs_settings *s)
{
	if (!gs_setting_applies(d, s))
		return false;
	switch (d->when) {
	case GS_LW_ALWAYS: return true;
	case GS_LW_CHANGED: return gs_setting_changed(d, s);
	case GS_LW_MULTI: return s->gpus > 1 || s->tp > 1;
	default: return false;
	}
}

void gs_settings_label(const gs_settings *s, char *buf, size_t n)
{
	gs_settings_label_without(s, NULL, buf, n);
}

void gs_settings_label_without(const gs_settings *s, const char *name, char *buf, size_t n)
{
	gs_settings_label_of(s, name != NULL ? ~gs_setting_bit(name) : ~0ull, buf, n);
}

void gs_settings_label_of(const gs_settings *s, uint64_t show, char *buf, size_t n)
{
	size_t k = 0;
	int at_max = 0;

	if (n > 0)
		buf[0] = '\0';
	for (size_t i = 0; i < N_SETTINGS; i++)
		if (table[i].when != GS_LW_NEVER && table[i].label_at > at_max)
			at_max = table[i].label_at;
	for (int at = 0; at <= at_max; at++)
		for (size_t i = 0; i < N_SETTINGS; i++) {
			const gs_setting *d = &table[i];
			gs_setting_value v;

			if (d->when == GS_LW_NEVER || d->label_at != at || !(show & (1ull << i)) ||
			    !label_shows(d, s))
				continue;
			gs_setting_get(d, s, &v);
			label_add(buf, n, &k, k == 0 && d->label[0] == ' ' ? d->label + 1 : d->label, v.text);
		}
}

uint64_t gs_settings_differ(const gs_settings *a, const gs_settings *b)
{
	uint64_t bits = 0;

	for (size_t i = 0; i < N_SETTINGS; i++) {
		const gs_setting *d = &table[i];
		gs_setting_value va, vb;

		if (!gs_setting_applies(d, a) && !gs_setting_applies(d, b))
			continue;
		gs_setting_get(d, a, &va);
		gs_setting_get(d, b, &vb);
		if (strcmp(va.text, vb.text) != 0)
			bits |= 1ull << i;
	}
	return bits;
}

uint64_t gs_settings_layout_bits(void)
{
	uint64_t bits = 0;

	for (size_t i = 0; i < N_SETTINGS; i++)
		if (table[i].flags & GS_SF_LAYOUT)
			bits |= 1ull << i;
	return bits;
}

/* Whether a setting is part of s's key and hashes. */
static bool in_key(const gs_setting *d, const gs_settings *s)
{
	return gs_setting_applies(d, s) && (!(d->flags & GS_SF_KEY_CHANGED) || gs_setting_changed(d, s));
}

size_t gs_settings_key(const gs_settings *s, char *buf, size_t n)
{
	size_t k = 0;

	if (n > 0)
		buf[0] = '\0';
	for (size_t i = 0; i < N_SETTINGS; i++) {
		const gs_setting *d = &table[i];
		gs_setting_value v;

		if (!in_key(d, s))
			continue;
		gs_setting_get(d, s, &v);
		if (k)
			text_add(buf, n, &k, ";");
		text_add(buf, n, &k, d->name);
		text_add(buf, n, &k, "=");
		text_add(buf, n, &k, v.text);
	}
	return k;
}

bool gs_settings_equal_except(const gs_settings *a, const gs_settings *b, const char *name)
{
	return (gs_settings_differ(a, b) & ~(name != NULL ? gs_setting_bit(name) : 0)) == 0;
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		h ^= *p;
		h *= 1099511628211ULL;
	}
	return h;
}

uint64_t gs_key_hash(const char *model, const char *key)
{
	return fnv1a(fnv1a(fnv1a(1469598103934665603ULL, model), "\n"), key);
}

uint64_t gs_settings_hash_of(const gs_settings *s, uint64_t hide)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < N_SETTINGS; i++) {
		const gs_setting *d = &table[i];
		gs_setting_value v;

		if ((hide & (1ull << i)) || !in_key(d, s))
			continue;
		gs_setting_get(d, s, &v);
		h = fnv1a(fnv1a(fnv1a(fnv1a(h, d->name), "="), v.text), ";");
	}
	return h;
}

const char *gs_state_dict_load_name(const gs_settings *s) { return load_names[s->full_state_dict_load ? 1 : 0]; }
const char *gs_logits_name(const gs_settings *s)
{
	return (unsigned)s->logits < GS_LOGITS_MAX ? logits_names[s->logits] : "?";
}

int64_t gs_settings_context(const gs_settings *s)
{
	return s->seq + (s->method == GS_INFER ? s->new_tokens : 0);
}
