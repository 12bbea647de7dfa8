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
#include "settings.h"

typedef struct gs_cli_row {
	gs_settings s;
	const char *model_id;    /* positional argument (borrowed from argv) */
	const char *config_path; /* --config FILE */
	const char *models_dir;  /* --models-dir DIR (default gs_models_dir_default) */
	char models_dir_buf[4096];
	bool offline;            /* --offline or HF_HUB_OFFLINE=1 */
	int64_t m_params, m_layers, m_hidden, m_heads, m_kv_heads, m_intermediate, m_vocab; /* manual */
} gs_cli_row;

/* Defaults (gs_settings_default, models dir "models", offline from env). */
void gs_cli_row_init(gs_cli_row *r);

/*
 * Try to consume argv[*i] (and its value) as a row flag. Accepts
 * "--flag VALUE" and "--flag=VALUE". Returns 1 and advances *i past what
 * it consumed; 0 if argv[*i] is not a row flag (caller handles it);
 * -1 on a bad value (e filled, GS_EUSAGE). A bare non-flag argument is
 * taken as the model id (once).
 */
int gs_cli_row_flag(gs_cli_row *r, int argc, char **argv, int *i, gs_error *e);

/* Build the tallied architecture: --config, else the model id resolved in
 * the models dir (fetched when missing unless offline), else the manual
 * shape (--params/--layers/--hidden...). Error if none or several. */
gs_err gs_cli_row_arch(gs_cli_row *r, gs_arch *a, gs_error *e);

/* Print the row flags' help lines. */
void gs_cli_row_usage(FILE *fp);

#endif
