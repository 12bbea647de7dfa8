/* gpusizer: the row flags shared by estimate and verify. */
#include "cli.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "models.h"
#include "paths.h"
#include "util.h"

void gs_cli_row_init(gs_cli_row *r)
{
	memset(r, 0, sizeof *r);
	gs_settings_default(&r->s);
	gs_models_dir_default(r->models_dir_buf, sizeof r->models_dir_buf);
	r->models_dir = r->models_dir_buf;
	r->offline = gs_offline(false);
}

const gs_opt gs_cli_model_opts[] = {
	{ "config", 0, "FILE", 0, GS_CLI_CONFIG, "a Hugging Face config.json (instead of a model id)" },
	{ "params", 0, "N", 0, GS_CLI_MANUAL, "manual shape (with --layers and --hidden): a generic\n"
	  "LLaMA-style decoder of N parameters" },
	{ "layers", 0, "N", 0, GS_CLI_MANUAL, "manual shape: decoder layers" },
	{ "hidden", 0, "N", 0, GS_CLI_MANUAL, "manual shape: hidden size" },
	{ "heads", 0, "N", 0, GS_CLI_MANUAL, "manual shape: attention heads (optional)" },
	{ "kv-heads", 0, "N", 0, GS_CLI_MANUAL, "manual shape: key/value heads (optional)" },
	{ "intermediate", 0, "N", 0, GS_CLI_MANUAL, "manual shape: MLP intermediate size (optional)" },
	{ "vocab", 0, "N", 0, GS_CLI_MANUAL, "manual shape: vocabulary size (optional)" },
	{ "models-dir", 0, "DIR", 0, GS_CLI_MODELS_DIR, "the model cache (default: the checkout's models/,\n"
	  "else $GPUSIZER_HOME/models)" },
	{ "offline", 0, NULL, 0, GS_CLI_OFFLINE, "never touch the network (also HF_HUB_OFFLINE=1,\n"
	  "GPUSIZER_OFFLINE=1); not cached: exit 10" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

/* Each setting's option is its gs_settings_set name. */
const gs_opt gs_cli_setting_opts[] = {
	{ "method", 0, "M", 0, GS_CLI_SETTING, "full lora qlora inference (full)" },
	{ "precision", 0, "P", 0, GS_CLI_SETTING,
	  "full: fp32 amp-bf16 amp-fp16 mixed-bf16 mixed-fp16 bf16 fp16\n"
	  "fp8-mixed (amp-bf16); lora/qlora/inference base storage:\n"
	  "fp32 bf16 fp16 fp8 int8 nf4 nf4-dq nf4-torchao nf4-litgpt\n"
	  "nf4-dq-litgpt gptq-int4 gptq-int8 awq-int4, and for\n"
	  "lora/inference amp-bf16 amp-fp16 (bf16; qlora nf4)" },
	{ "adapter-dtype", 0, "D", 0, GS_CLI_SETTING, "fp32 bf16 (fp32, PEFT's default)" },
	{ "optimizer", 0, "O", 0, GS_CLI_SETTING,
	  "adamw adamw-fused adamw-8bit paged-adamw-8bit\n"
	  "paged-adamw-32bit sgd sgd-momentum lion adafactor (adamw)" },
	{ "optimizer-in-bwd", 0, NULL, GS_OPT_BOOL, GS_CLI_SETTING,
	  "step each parameter inside backward and free its\n"
	  "gradient at once (torchtune optimizer_in_bwd) (off)" },
	{ "lora-r", 0, "N", 0, GS_CLI_SETTING, "LoRA rank (16)" },
	{ "lora-targets", 0, "T", 0, GS_CLI_SETTING, "qv attn all-linear, or module names q_proj,v_proj (qv)" },
	{ "lora-dropout", 0, "F", 0, GS_CLI_SETTING, "LoRA dropout (0.05)" },
	{ "train-embeddings", 0, NULL, GS_OPT_BOOL, GS_CLI_SETTING,
	  "embeddings and head fully trained (modules_to_save) (off)" },
	{ "batch", 0, "N", 0, GS_CLI_SETTING, "micro-batch per GPU (1)" },
	{ "seq", 0, "N", 0, GS_CLI_SETTING, "tokens per sequence (2048)" },
	{ "grad-accum", 0, "N", 0, GS_CLI_SETTING, "micro-batches per optimizer step (1)" },
	{ "grad-ckpt", 0, NULL, GS_OPT_BOOL, GS_CLI_SETTING, "per-layer activation checkpointing (off)" },
	{ "compile", 0, NULL, GS_OPT_BOOL, GS_CLI_SETTING,
	  "torch.compile: fused norms and gated activations save\nless (off)" },
	{ "attn", 0, "A", 0, GS_CLI_SETTING, "sdpa eager flash (sdpa)" },
	{ "loss", 0, "L", 0, GS_CLI_SETTING, "standard chunked cross-entropy (standard)" },
	{ "gpus", 0, "N", 0, GS_CLI_SETTING, "how many GPUs (1): a count, never a GPU class" },
	{ "sharding", 0, "S", 0, GS_CLI_SETTING,
	  "ddp zero1 zero2 zero3 fsdp fsdp2 pipeline (ddp)" },
	{ "tp", 0, "N", 0, GS_CLI_SETTING, "tensor-parallel degree (1)" },
	{ "offload", 0, "O", 0, GS_CLI_SETTING,
	  "none optimizer params activations (none; host memory\nreported)" },
	{ "state-dict-load", 0, "L", 0, GS_CLI_SETTING,
	  "sharded full: zero3/fsdp/fsdp2 full = every rank keeps\n"
	  "the full loaded weights beside its shard (sharded)" },
	{ "kv-dtype", 0, "D", 0, GS_CLI_SETTING, "inference KV cache: fp32 bf16 fp16 fp8 (compute dtype)" },
	{ "logits", 0, "L", 0, GS_CLI_SETTING,
	  "inference prefill: last (generate()) or all positions\n(a plain forward) (last)" },
	{ "cuda-context", 0, "MIB", 0, GS_CLI_SETTING, "CUDA context outside torch, MiB (1343)" },
	{ "formula", 0, "F", 0, GS_CLI_SETTING,
	  "detailed (the engine), or the seeds' cookbook\nrule-of-thumb zero1-rule (detailed)" },
	{ "trainable-fraction", 0, "F", 0, GS_CLI_SETTING,
	  "cookbook only (seed default 0.007 LoRA/QLoRA, 1 full)" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

static gs_err manual_int(const char *flag, const char *v, int64_t *out, gs_error *e)
{
	char *end = NULL;
	long long x;

	errno = 0;
	x = strtoll(v, &end, 10);
	if (v[0] == '\0' || *end != '\0' || errno == ERANGE || x <= 0 || x > (1LL << 50))
		return gs_fail(e, GS_EUSAGE, "--%s: '%s' must be a positive integer up to 2^50", flag, v);
	*out = x;
	return GS_OK;
}

/* A value for --gpus that names a GPU class rather than a count. */
static bool looks_like_class(const char *v)
{
	return (v[0] >= 'a' && v[0] <= 'z') || (v[0] >= 'A' && v[0] <= 'Z');
}

int gs_cli_row_apply(gs_cli_row *r, const gs_opt_cmd *c, const gs_opt *opt, const char *val,
                     gs_error *e)
{
	static const struct {
		const char *name;
		size_t off;
	} manual[] = {
		{ "params", offsetof(gs_cli_row, m_params) },
		{ "layers", offsetof(gs_cli_row, m_layers) },
		{ "hidden", offsetof(gs_cli_row, m_hidden) },
		{ "heads", offsetof(gs_cli_row, m_heads) },
		{ "kv-heads", offsetof(gs_cli_row, m_kv_heads) },
		{ "intermediate", offsetof(gs_cli_row, m_intermediate) },
		{ "vocab", offsetof(gs_cli_row, m_vocab) },
	};

	if (opt == NULL) {
		if (r->model_id != NULL) {
			gs_fail(e, GS_EUSAGE, "%s: more than one model given ('%s' and '%s')", c->name,
			        r->model_id, val);
			return -1;
		}
		r->model_id = val;
		return 1;
	}
	switch (opt->id) {
	case GS_CLI_CONFIG:
		r->config_path = val;
		return 1;
	case GS_CLI_MODELS_DIR:
		r->models_dir = val;
		return 1;
	case GS_CLI_OFFLINE:
		r->offline = true;
		return 1;
	case GS_CLI_MANUAL:
		for (size_t k = 0; k < sizeof manual / sizeof manual[0]; k++)
			if (!strcmp(opt->name, manual[k].name))
				return manual_int(opt->name, val, (int64_t *)((char *)r + manual[k].off), e) == GS_OK
				               ? 1 : -1;
		gs_fail(e, GS_EINTERNAL, "%s: --%s: no manual field", c->name, opt->name);
		return -1;
	case GS_CLI_SETTING:
		if (gs_settings_set(&r->s, opt->name, val, e) != GS_OK) {
			if (!strcmp(opt->name, "gpus") && looks_like_class(val)) {
				gs_error hint = { 0 };
				gs_fail(&hint, GS_EUSAGE, "%s: --gpus is a count of GPUs; '%s' looks like a GPU "
				        "class: name classes with --gpu %s", c->name, val, val);
				*e = hint;
			}
			return -1;
		}
		return 1;
	default:
		return 0;
	}
}

gs_err gs_cli_row_arch(gs_cli_row *r, gs_arch *a, gs_error *e)
{
	bool manual = r->m_params || r->m_layers || r->m_hidden;
	int given = (r->config_path != NULL) + (r->model_id != NULL) + manual;
	char path[4096];
	gs_err rc;

	if (given == 0)
		return gs_fail(e, GS_EUSAGE, "no model: give a model id, --config FILE, or --params N --layers N --hidden N");
	if (given > 1)
		return gs_fail(e, GS_EUSAGE, "give only one of: a model id, --config FILE, manual --params/--layers/--hidden");
	if (r->config_path != NULL) {
		snprintf(r->resolved, sizeof r->resolved, "%s", r->config_path);
		return gs_config_load(r->config_path, a, e);
	}
	if (r->model_id != NULL) {
		rc = gs_model_ensure(r->models_dir, r->model_id, r->offline, path, sizeof path, e);
		if (rc != GS_OK)
			return rc;
		snprintf(r->resolved, sizeof r->resolved, "%s", path);
		return gs_config_load(path, a, e);
	}
	if (!r->m_layers || !r->m_hidden)
		return gs_fail(e, GS_EUSAGE, "manual model: --layers and --hidden are required (with --params, optional --heads --kv-heads --intermediate --vocab)");
	return gs_arch_manual(a, r->m_params, r->m_layers, r->m_hidden, r->m_heads, r->m_kv_heads,
	                      r->m_intermediate, r->m_vocab, e);
}
