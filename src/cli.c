/* gpusizer: the row flags shared by estimate and verify. */
#include "cli.h"

#include <errno.h>
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

/* Boolean settings, also "--X=true|false". */
static const char *const switch_flags[] = {"grad-ckpt", "train-embeddings", "compile", "optimizer-in-bwd", NULL};

/* Settings flags taking a value: passed to gs_settings_set by name. */
static const char *const value_flags[] = {
	"method", "precision", "adapter-dtype", "optimizer", "lora-r", "lora-targets",
	"lora-dropout", "batch", "seq", "grad-accum", "attn", "loss", "gpus", "sharding",
	"tp", "offload", "state-dict-load", "kv-dtype", "logits", "cuda-context", "formula", "trainable-fraction",
	NULL,
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

int gs_cli_row_flag(gs_cli_row *r, int argc, char **argv, int *i, gs_error *e)
{
	const char *arg = argv[*i];
	char name[64];
	const char *val = NULL;
	const char *eq;
	size_t n;

	if (arg[0] != '-' || arg[1] != '-') {
		if (arg[0] == '-' && arg[1] != '\0')
			return 0;
		if (r->model_id != NULL) {
			gs_fail(e, GS_EUSAGE, "more than one model given ('%s' and '%s')", r->model_id, arg);
			return -1;
		}
		r->model_id = arg;
		(*i)++;
		return 1;
	}
	eq = strchr(arg + 2, '=');
	n = eq ? (size_t)(eq - (arg + 2)) : strlen(arg + 2);
	if (n == 0 || n >= sizeof name)
		return 0;
	memcpy(name, arg + 2, n);
	name[n] = '\0';

	/* Boolean settings: bare "--X" sets true ("--no-grad-ckpt" false);
	 * "--X=VALUE" goes to gs_settings_set with the value below. */
	bool is_switch = false;
	for (int k = 0; switch_flags[k]; k++)
		if (!strcmp(name, switch_flags[k]))
			is_switch = true;
	if (!eq && (is_switch || !strcmp(name, "no-grad-ckpt"))) {
		gs_err rc = gs_settings_set(&r->s, name[0] == 'n' ? "grad-ckpt" : name, name[0] == 'n' ? "false" : "true", e);
		if (rc != GS_OK)
			return -1;
		(*i)++;
		return 1;
	}
	if (!eq && !strcmp(name, "offline")) {
		r->offline = true;
		(*i)++;
		return 1;
	}

	bool takes = is_switch;
	for (int k = 0; value_flags[k]; k++)
		if (!strcmp(name, value_flags[k]))
			takes = true;
	bool manual = !strcmp(name, "params") || !strcmp(name, "layers") || !strcmp(name, "hidden") ||
	              !strcmp(name, "heads") || !strcmp(name, "kv-heads") || !strcmp(name, "intermediate") ||
	              !strcmp(name, "vocab");
	bool path = !strcmp(name, "config") || !strcmp(name, "models-dir");
	if (!takes && !manual && !path)
		return 0;

	if (eq) {
		val = eq + 1;
	} else if (*i + 1 < argc) {
		val = argv[*i + 1];
	} else {
		gs_fail(e, GS_EUSAGE, "--%s: missing value", name);
		return -1;
	}
	gs_err rc = GS_OK;
	if (!strcmp(name, "config"))
		r->config_path = val;
	else if (!strcmp(name, "models-dir"))
		r->models_dir = val;
	else if (!strcmp(name, "params"))
		rc = manual_int(name, val, &r->m_params, e);
	else if (!strcmp(name, "layers"))
		rc = manual_int(name, val, &r->m_layers, e);
	else if (!strcmp(name, "hidden"))
		rc = manual_int(name, val, &r->m_hidden, e);
	else if (!strcmp(name, "heads"))
		rc = manual_int(name, val, &r->m_heads, e);
	else if (!strcmp(name, "kv-heads"))
		rc = manual_int(name, val, &r->m_kv_heads, e);
	else if (!strcmp(name, "intermediate"))
		rc = manual_int(name, val, &r->m_intermediate, e);
	else if (!strcmp(name, "vocab"))
		rc = manual_int(name, val, &r->m_vocab, e);
	else
		rc = gs_settings_set(&r->s, name, val, e);
	if (rc != GS_OK)
		return -1;
	*i += eq ? 1 : 2;
	return 1;
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
	if (r->config_path != NULL)
		return gs_config_load(r->config_path, a, e);
	if (r->model_id != NULL) {
		rc = gs_model_ensure(r->models_dir, r->model_id, r->offline, path, sizeof path, e);
		if (rc != GS_OK)
			return rc;
		return gs_config_load(path, a, e);
	}
	if (!r->m_layers || !r->m_hidden)
		return gs_fail(e, GS_EUSAGE, "manual model: --layers and --hidden are required (with --params, optional --heads --kv-heads --intermediate --vocab)");
	return gs_arch_manual(a, r->m_params, r->m_layers, r->m_hidden, r->m_heads, r->m_kv_heads,
	                      r->m_intermediate, r->m_vocab, e);
}

void gs_cli_row_usage(FILE *fp)
{
	fputs("model (one of):\n"
	      "  ID                      a model id (org/name[@rev]) resolved in the models dir\n"
	      "  --config FILE           a Hugging Face config.json\n"
	      "  --params N --layers N --hidden N [--heads N --kv-heads N --intermediate N --vocab N]\n"
	      "                          the seed's manual inputs (a generic LLaMA-style decoder)\n"
	      "  --models-dir DIR        where models live (default models)\n"
	      "  --offline               never touch the network (also HF_HUB_OFFLINE=1)\n"
	      "settings:\n"
	      "  --method full|lora|qlora|inference                       (default full)\n"
	      "  --precision P           full: fp32 amp-bf16 amp-fp16 mixed-bf16 mixed-fp16 bf16 fp16\n"
	      "                          fp8-mixed (default amp-bf16); lora/qlora/inference base storage:\n"
	      "                          fp32 bf16 fp16 fp8 int8 nf4 nf4-dq nf4-torchao nf4-litgpt\n"
	      "                          nf4-dq-litgpt gptq-int4 gptq-int8 awq-int4, and for\n"
	      "                          lora/inference amp-bf16 amp-fp16 (default bf16; qlora nf4)\n"
	      "  --adapter-dtype fp32|bf16                                (default fp32, PEFT's)\n"
	      "  --optimizer adamw|adamw-fused|adamw-8bit|paged-adamw-8bit|paged-adamw-32bit|\n"
	      "              sgd|sgd-momentum|lion|adafactor              (default adamw)\n"
	      "  --optimizer-in-bwd      step each parameter inside backward and free its gradient\n"
	      "                          at once (torchtune optimizer_in_bwd)\n"
	      "  --lora-r N  --lora-targets qv|attn|all-linear|NAME,...  --lora-dropout F\n"
	      "                          (defaults 16, qv, 0.05)\n"
	      "  --train-embeddings      embeddings and head fully trained (modules_to_save)\n"
	      "  --batch N --seq N       micro-batch per GPU and tokens per sequence (1, 2048)\n"
	      "  --grad-accum N          micro-batches per optimizer step (1)\n"
	      "  --grad-ckpt | --no-grad-ckpt                             (default off)\n"
	      "  --compile               torch.compile: fused norms and gated activations save less\n"
	      "  --attn sdpa|eager|flash  --loss standard|chunked          (sdpa, standard)\n"
	      "  --gpus N --tp N         GPUs and tensor-parallel degree (1, 1)\n"
	      "  --sharding ddp|zero1|zero2|zero3|fsdp|fsdp2|pipeline     (ddp)\n"
	      "  --offload none|optimizer|params|activations              (none)\n"
	      "  --state-dict-load sharded|full  zero3/fsdp/fsdp2: full = every rank keeps the full\n"
	      "                          loaded weights beside its shard (Lightning 2.1 FSDP) (sharded)\n"
	      "  --kv-dtype fp32|bf16|fp16|fp8   inference KV cache        (compute dtype)\n"
	      "  --logits last|all       inference prefill: the last position's logits (generate())\n"
	      "                          or every position's (a plain forward)      (last)\n"
	      "  --cuda-context MIB      CUDA context outside torch        (1343)\n"
	      "  --formula detailed|cookbook|rule-of-thumb|zero1-rule    (detailed)\n"
	      "  --trainable-fraction F  cookbook only (seed default 0.007 LoRA/QLoRA, 1 full)\n",
	      fp);
}
