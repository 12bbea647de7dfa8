/* gpusizer: the command-line flags that describe one sizing row, shared by
 * `estimate` and `verify`: the model (id, --config, or manual shape), the
 * settings (gs_settings), and where models live. */
#ifndef GS_CLI_H
#define GS_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "arch.h"
#include "err.h"
#include "gpu_file.h"
#include "opt.h"
#include "settings.h"
#include "timing.h"

typedef struct gs_cli_row {
	gs_settings s;
	const char *model_id;    /* positional argument (borrowed from argv) */
	const char *config_path; /* --config FILE */
	const char *models_dir;  /* --models-dir DIR (default gs_models_dir_default) */
	char models_dir_buf[4096];
	char resolved[4096];     /* the config.json read, after gs_cli_row_arch ("" manual) */
	bool offline;            /* gs_offline(): --offline, HF_HUB_OFFLINE, GPUSIZER_OFFLINE */
	bool seq_given;          /* --seq was given (else the settings' default) */
	int64_t m_params, m_layers, m_hidden, m_heads, m_kv_heads, m_intermediate, m_vocab; /* manual */
} gs_cli_row;

/* Defaults (gs_settings_default, the default model cache, offline from
 * the environment: gs_offline). */
void gs_cli_row_init(gs_cli_row *r);

/* Ids of the row options (above GS_OPT_OWN + 800, clear of a command's own). */
enum {
	GS_CLI_CONFIG = GS_OPT_OWN + 800,
	GS_CLI_MODELS_DIR,
	GS_CLI_OFFLINE,
	GS_CLI_MANUAL,  /* --params --layers --hidden --heads --kv-heads --intermediate --vocab */
	GS_CLI_SETTING, /* a gs_settings_set name: the option's own name */
	GS_CLI_RUNTIME, /* the time flags (gs_cli_time_opts) */
	GS_CLI_TRAIN_RUNTIME,
	GS_CLI_KERNEL,
	GS_CLI_TOKENS,
	GS_CLI_PRICE,
};

/* The row option groups, for a command's gs_opt_cmd: the model (id,
 * --config, manual shape, --models-dir, --offline) and the settings. */
extern const gs_opt gs_cli_model_opts[];
/* The settings' options, one per row of the settings table (built on the
 * first call; static): for a group's make(). */
const gs_opt *gs_cli_setting_opts(void);

/*
 * Apply a parsed option or positional argument to the row: opt NULL means
 * val is positional (the model id, once). Returns 1 when it was a row
 * option (or the model id), 0 when opt is not one of the row options (the
 * caller's own), -1 on a bad value (e filled, GS_EUSAGE naming the option).
 */
int gs_cli_row_apply(gs_cli_row *r, const gs_opt_cmd *c, const gs_opt *opt, const char *val,
                     gs_error *e);

/* The row's settings checked as its stack leaves them, before any model is
 * read (the choices that follow a model's family aside): GS_EUSAGE naming
 * the contradiction. */
gs_err gs_cli_row_check(const gs_cli_row *r, gs_error *e);

/* Build the tallied architecture: --config, else the model id resolved in
 * the models dir (fetched when missing unless offline), else the manual
 * shape (--params/--layers/--hidden...). Error if none or several. Then
 * the row's --stack goes over its settings (gs_stack_apply: what the
 * profiles choose, every flag given left as given; some choices follow the
 * model's family), and the result is checked (GS_EUSAGE naming the stack
 * when its choices contradict a flag). */
gs_err gs_cli_row_arch(gs_cli_row *r, gs_arch *a, gs_error *e);

/* The row's context against a's positions (gs_config_check_seq): a --seq
 * past them is GS_EUSAGE unless allow_long; a default one is lowered to
 * them. Any warning goes to stderr unless quiet. */
gs_err gs_cli_row_context(gs_cli_row *r, const gs_arch *a, bool allow_long, bool quiet, gs_error *e);

/* What a training row of --gpus N (N > 1) means when --sharding is not
 * given and its stack chose no sharded layout: DDP, N full replicas, with
 * the sharded layouts named; into buf (n bytes), "" when that is not the
 * case. estimate and plan print it on stderr (not with --quiet); verify,
 * which measures one GPU, adds it to its refusal. Returns buf. */
char *gs_cli_row_ddp_note(const gs_cli_row *r, char *buf, size_t n);
/* gs_cli_row_ddp_note on stderr as "gpusizer: note: ...", unless quiet or
 * there is none. */
void gs_cli_row_ddp_print(const gs_cli_row *r, bool quiet);

/* The time and cost flags, shared by estimate and plan: --runtime NAME,
 * --tokens N (a training token budget), --price ID=USD,... (borrowed from
 * argv until gs_cli_time_price). */
typedef struct gs_cli_time {
	gs_time_opts to;
	const char *price;
} gs_cli_time;

extern const gs_opt gs_cli_time_opts[];
void gs_cli_time_init(gs_cli_time *t);
/* As gs_cli_row_apply, for the time flags: 1 one of them, 0 not, -1 a bad
 * value (GS_EUSAGE naming the command and option). */
int gs_cli_time_apply(gs_cli_time *t, const gs_opt_cmd *c, const gs_opt *opt, const char *val, gs_error *e);
/* Apply --price to the loaded classes (gs_gpus_price), before any --gpu
 * selection so that a price may name any class. */
gs_err gs_cli_time_price(const gs_cli_time *t, gs_gpu *g, size_t ng, const char *cmd, gs_error *e);

/* The time model's figures on fp, as gs_time_fmt_* (timing.h) writes them. */
void gs_cli_print_count(FILE *fp, double v);
void gs_cli_print_usd(FILE *fp, double usd);
void gs_cli_print_secs(FILE *fp, double sec);
/* A serving figure's times: "  TTFT x  TPOT y  z tokens/s", or, for a row
 * that generates nothing (--new-tokens 0: tpot_s 0), its TTFT alone (the
 * caller's heading says why: gs_cli_serve_note). */
void gs_cli_print_serve(FILE *fp, const gs_time *t);
/* The heading's line for a row that generates nothing, "" otherwise. */
const char *gs_cli_serve_note(const gs_settings *s);

#endif
