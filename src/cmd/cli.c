/* gpusizer: the row flags shared by estimate, plan and verify, and the
 * time flags shared by estimate and plan. */
#include "cli.h"
#include "numfmt.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "paths.h"
#include "resolve.h"
#include "stacks.h"
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

/* The settings' options, built once from the settings table: each
 * option is the setting's name; its help is the table's help, the values
 * of an enum (unless the help lists them) and the default, wrapped. */
#define SETTING_OPTS_MAX 64
#define HELP_WIDTH 58

static void help_add(char *buf, size_t n, size_t *k, size_t *col, const char *word)
{
	size_t w = strlen(word);

	if (*col > 0 && *col + 1 + w > HELP_WIDTH) {
		if (*k + 1 < n)
			buf[(*k)++] = '\n';
		*col = 0;
	} else if (*col > 0) {
		if (*k + 1 < n)
			buf[(*k)++] = ' ';
		(*col)++;
	}
	for (size_t i = 0; i < w && *k + 1 < n; i++)
		buf[(*k)++] = word[i];
	*col += w;
	buf[*k] = '\0';
}

/* Wrap text word by word into buf. */
static void help_words(char *buf, size_t n, size_t *k, size_t *col, const char *text)
{
	char word[128];

	while (*text) {
		size_t w = strcspn(text, " ");
		if (w > 0) {
			snprintf(word, sizeof word, "%.*s", (int)(w < sizeof word ? w : sizeof word - 1), text);
			help_add(buf, n, k, col, word);
		}
		text += w;
		text += strspn(text, " ");
	}
}

static void setting_help(const gs_setting *d, char *buf, size_t n)
{
	size_t k = 0, col = 0;
	char word[96];

	buf[0] = '\0';
	help_words(buf, n, &k, &col, d->help);
	if (d->values != NULL && !(d->flags & GS_SF_OWN_LIST)) {
		if (k + 1 < n) { /* "help: v1 v2 ..." */
			buf[k++] = ':';
			buf[k] = '\0';
			col++;
		}
		for (size_t i = 0; d->values[i] != NULL; i++)
			help_add(buf, n, &k, &col, d->values[i]);
	}
	if (strcmp(d->name, "stack") == 0) { /* the profiles, from their table */
		size_t ns;
		const gs_stack *st = gs_stacks(&ns);
		help_add(buf, n, &k, &col, "stacks:");
		for (size_t i = 0; i < ns; i++)
			help_add(buf, n, &k, &col, st[i].name);
	}
	if (d->def != NULL) {
		const char *v = d->type == GS_ST_BOOL && d->values == NULL
		                ? (strcmp(d->def, "true") == 0 ? "on" : "off") : d->def;
		snprintf(word, sizeof word, "(%s)", v);
		help_add(buf, n, &k, &col, word);
	}
}

const gs_opt *gs_cli_setting_opts(void)
{
	static gs_opt opts[SETTING_OPTS_MAX + 1];
	static char help[SETTING_OPTS_MAX][640];
	const gs_setting *t = gs_settings_table();
	size_t n = gs_settings_count();

	if (opts[0].name != NULL)
		return opts;
	if (n > SETTING_OPTS_MAX)
		n = SETTING_OPTS_MAX; /* test_settings checks the table fits */
	for (size_t i = 0; i < n; i++) {
		bool flag = t[i].type == GS_ST_BOOL && t[i].values == NULL;
		setting_help(&t[i], help[i], sizeof help[i]);
		opts[i] = (gs_opt){ t[i].name, 0, flag ? NULL : t[i].arg, flag ? GS_OPT_BOOL : 0u,
		                    GS_CLI_SETTING, help[i] };
	}
	return opts;
}

static gs_err manual_int(const char *flag, const char *v, int64_t *out, gs_error *e)
{
	int64_t x;

	if (!gs_parse_i64(v, SIZE_MAX, &x) || x <= 0 || x > (1LL << 50))
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
		if (!strcmp(opt->name, "seq"))
			r->seq_given = true;
		r->s.given |= gs_setting_bit(opt->name);
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

static gs_err row_arch(gs_cli_row *r, gs_arch *a, gs_error *e);

gs_err gs_cli_row_check(const gs_cli_row *r, gs_error *e)
{
	gs_settings s = r->s;
	gs_err rc = gs_stack_apply(&s, NULL, e);

	return rc != GS_OK ? rc : gs_settings_check(&s, e);
}

gs_err gs_cli_row_arch(gs_cli_row *r, gs_arch *a, gs_error *e)
{
	gs_error sub = { 0 };
	gs_err rc = row_arch(r, a, e);

	if (rc == GS_OK)
		rc = gs_stack_apply(&r->s, a, e);
	if (rc == GS_OK && gs_settings_check(&r->s, &sub) != GS_OK)
		rc = gs_fail(e, sub.code, "--stack %s: %s", r->s.stack, sub.msg);
	return rc;
}

static gs_err row_arch(gs_cli_row *r, gs_arch *a, gs_error *e)
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
		rc = gs_config_load(r->config_path, a, e);
		gs_settings_native(&r->s, a); /* inference's default: the checkpoint's storage */
		return rc;
	}
	if (r->model_id != NULL) {
		rc = gs_model_ensure(r->models_dir, r->model_id, r->offline, path, sizeof path, e);
		if (rc != GS_OK)
			return rc;
		snprintf(r->resolved, sizeof r->resolved, "%s", path);
		rc = gs_config_load(path, a, e);
		gs_settings_native(&r->s, a);
		return rc;
	}
	if (!r->m_layers || !r->m_hidden)
		return gs_fail(e, GS_EUSAGE, "manual model: --layers and --hidden are required (with --params, optional --heads --kv-heads --intermediate --vocab)");
	return gs_arch_manual(a, r->m_params, r->m_layers, r->m_hidden, r->m_heads, r->m_kv_heads,
	                      r->m_intermediate, r->m_vocab, e);
}

gs_err gs_cli_row_context(gs_cli_row *r, const gs_arch *a, bool allow_long, bool quiet, gs_error *e)
{
	char warn[512];
	gs_err rc = gs_config_check_seq(a, &r->s.seq, !r->seq_given, allow_long, warn, sizeof warn, e);
	int64_t ctx = gs_settings_context(&r->s);

	if (rc == GS_OK && warn[0] && !quiet)
		fprintf(stderr, "gpusizer: warning: %s\n", warn);
	/* Generating, the cache reaches the prompt plus the new tokens. */
	if (rc == GS_OK && ctx > r->s.seq && a->max_pos > 0 && ctx > a->max_pos) {
		if (!allow_long)
			return gs_fail(e, GS_EUSAGE,
			               "--seq %lld + --new-tokens %lld = %lld tokens is past the model's "
			               "max_position_embeddings (%lld, %s): generate fewer, or --allow-long-context "
			               "to size it anyway",
			               (long long)r->s.seq, (long long)r->s.new_tokens, (long long)ctx,
			               (long long)a->max_pos, a->source[0] ? a->source : "model");
		if (!quiet)
			fprintf(stderr, "gpusizer: warning: %lld prompt + generated tokens are past the model's "
			        "max_position_embeddings (%lld): sized as asked (--allow-long-context)\n",
			        (long long)ctx, (long long)a->max_pos);
	}
	return rc;
}

char *gs_cli_row_ddp_note(const gs_cli_row *r, char *buf, size_t n)
{
	gs_settings t = r->s, *s = &t;
	gs_error sub = { 0 };
	size_t used;

	if (n == 0)
		return buf;
	buf[0] = '\0';
	/* the layout its stack chooses (accelerate-fsdp2 shards a multi-GPU
	 * row): the stack over a copy, as gs_cli_row_check reads it */
	if (gs_stack_apply(&t, NULL, &sub) != GS_OK)
		t = r->s;
	int64_t reps = gs_settings_dp_ranks(s);
	if (s->method == GS_INFER || reps <= 1 || s->sharding != GS_SH_DDP || (s->given & gs_setting_bit("sharding")))
		return buf;
	bool part = reps < s->gpus || s->ep > 1; /* --tp or --pp split the model, --ep its experts */
	used = (size_t)snprintf(buf, n, "--gpus %lld without --sharding is DDP: %lld %s, each GPU "
	                        "holding a full copy of %s and of its trainable parameters' gradients and "
	                        "optimizer states; to shard them, "
	                        "--sharding", (long long)s->gpus, (long long)reps,
	                        part ? "data-parallel ranks" : "full replicas",
	                        part ? "its share of the model (--tp, --pp, --ep)" : "the model");
	/* the layouts that split them, from the enum's names */
	for (int k = GS_SH_DDP + 1; k < GS_SH_MAX && used < n; k++)
		used += (size_t)snprintf(buf + used, n - used, "%s%s", k == GS_SH_DDP + 1 ? " " : k + 1 == GS_SH_MAX ? " or " : ", ",
		                         gs_shard_name((gs_shard)k));
	return buf;
}

void gs_cli_row_ddp_print(const gs_cli_row *r, bool quiet)
{
	char note[400];

	if (!quiet && gs_cli_row_ddp_note(r, note, sizeof note)[0])
		fprintf(stderr, "gpusizer: note: %s\n", note);
}

const gs_opt gs_cli_time_opts[] = {
	{ "runtime", 0, "NAME", 0, GS_CLI_RUNTIME, "inference runtime of the time model: hf\n"
	  "(transformers generate, host-bound at small\n"
	  "batches), compiled (gpt-fast, torch.compile),\n"
	  "llama.cpp, serving, vllm, sglang, tensorrt-llm,\n"
	  "lmdeploy, tgi, autoawq, exllama, deepspeed (hf)" },
	{ "kernel", 0, "NAME", 0, GS_CLI_KERNEL, "inference matmul kernel of the time model: auto\n"
	  "(the runtime's for the precision), dense, fp8,\n"
	  "fp8-wo, fp4, w8a8, int8-wo, int4-wo, w4a8, marlin,\n"
	  "exllama, exllamav2, gptq-triton, awq-gemm,\n"
	  "awq-gemv, bnb-nf4, bnb-int8, bnb-int8-decomp,\n"
	  "bnb-int8-col32, bnb-int8-col32-decomp, ds-int8,\n"
	  "dequant (auto)" },
	{ "train-runtime", 0, "NAME", 0, GS_CLI_TRAIN_RUNTIME, "training stack of the time model: pytorch\n"
	  "(HF Trainer, torchtune, llm-foundry, torchao; fp8\n"
	  "Linear layers), megatron (Megatron-Core, NeMo,\n"
	  "Megatron-Bridge; Transformer Engine's fused fp8\n"
	  "layers; faster in fp8) (pytorch)" },
	{ "tokens", 0, "N", 0, GS_CLI_TOKENS, "training token budget: the time and GPU-hours\n"
	  "to process N tokens (and their cost, where priced)" },
	{ "price", 0, "ID=USD,...", 0, GS_CLI_PRICE, "rent of one GPU of class ID for an hour, USD,\n"
	  "over its GPU file's price_usd_per_hour: the cost of\n"
	  "the token budget and of a million decoded tokens\n"
	  "(unpriced: no cost)" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

void gs_cli_time_init(gs_cli_time *t)
{
	memset(t, 0, sizeof *t);
	gs_time_opts_default(&t->to);
}

int gs_cli_time_apply(gs_cli_time *t, const gs_opt_cmd *c, const gs_opt *opt, const char *val, gs_error *e)
{
	if (opt == NULL)
		return 0;
	switch (opt->id) {
	case GS_CLI_RUNTIME: {
		int rt = gs_runtime_parse(val);
		if (rt < 0) {
			gs_fail(e, GS_EUSAGE, "%s: --runtime: unknown runtime \"%s\" (hf, compiled, llama.cpp, "
			        "serving, vllm, sglang, tensorrt-llm, lmdeploy, tgi, autoawq, exllama, deepspeed)",
			        c->name, val);
			return -1;
		}
		t->to.runtime = (gs_runtime)rt;
		t->to.runtime_given = true;
		return 1;
	}
	case GS_CLI_KERNEL: {
		int k = gs_kernel_parse(val);
		if (k < 0) {
			gs_fail(e, GS_EUSAGE, "%s: --kernel: unknown kernel \"%s\" (see --help)", c->name, val);
			return -1;
		}
		t->to.kernel = (gs_kernel)k;
		return 1;
	}
	case GS_CLI_TRAIN_RUNTIME: {
		int rt = gs_train_runtime_parse(val);
		if (rt < 0) {
			gs_fail(e, GS_EUSAGE, "%s: --train-runtime: unknown training stack \"%s\" (pytorch, "
			        "megatron; also hf, transformers, torchtune, nemo, megatron-core, megatron-lm, "
			        "megatron-bridge)", c->name, val);
			return -1;
		}
		t->to.train_runtime = (gs_train_runtime)rt;
		t->to.train_runtime_given = true;
		return 1;
	}
	case GS_CLI_TOKENS: {
		char *end = NULL;
		double v = strtod(val, &end);
		if (end == val || *end != '\0' || !(v > 0) || v > 1e18) {
			gs_fail(e, GS_EUSAGE, "%s: --tokens: expected a positive number of tokens, at most 1e18 "
			        "(got \"%s\")", c->name, val);
			return -1;
		}
		t->to.tokens_budget = v;
		return 1;
	}
	case GS_CLI_PRICE:
		t->price = val;
		return 1;
	default:
		return 0;
	}
}

gs_err gs_cli_time_price(const gs_cli_time *t, gs_gpu *g, size_t ng, const char *cmd, gs_error *e)
{
	return t->price != NULL ? gs_gpus_price(g, ng, t->price, cmd, e) : GS_OK;
}

void gs_cli_print_count(FILE *fp, double v)
{
	char b[32];
	fputs(gs_time_fmt_count(b, sizeof b, v), fp);
}

void gs_cli_print_usd(FILE *fp, double usd)
{
	char b[32];
	fputs(gs_time_fmt_usd(b, sizeof b, usd), fp);
}

void gs_cli_print_secs(FILE *fp, double sec)
{
	char b[32];
	fputs(gs_time_fmt_secs(b, sizeof b, sec), fp);
}

void gs_cli_print_serve(FILE *fp, const gs_time *t)
{
	fputs("  TTFT ", fp);
	gs_cli_print_secs(fp, t->ttft_s);
	if (t->tpot_s <= 0)
		return;
	fputs("  TPOT ", fp);
	gs_cli_print_secs(fp, t->tpot_s);
	fprintf(fp, "  %.0f tokens/s", t->serve_tok_s);
}

const char *gs_cli_serve_note(const gs_settings *s)
{
	return s->new_tokens > 0 ? ""
	       : "(--new-tokens 0: the rows generate nothing, so there is no time per output token;\n"
	         "give --new-tokens N, the tokens of a user's answer, to time it)\n";
}
