/* gpusizer: the subcommands. Each parses its own argv (argv[0] is the
 * subcommand name) with its option table and returns the process exit
 * status. main.c dispatches through gs_commands. */
#ifndef GS_CMD_H
#define GS_CMD_H

#include <stddef.h>

#include "opt.h"

int cmd_estimate(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_fetch(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_plan(int argc, char **argv);

/* Each command's option table (its --help, `gpusizer help --options`). */
extern const gs_opt_cmd gs_cmd_estimate, gs_cmd_report, gs_cmd_fetch, gs_cmd_verify, gs_cmd_list,
                        gs_cmd_plan;

#endif
