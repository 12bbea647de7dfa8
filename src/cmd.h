/* gpusizer: the subcommands. Each parses its own argv (argv[0] is the
 * subcommand name) and returns the process exit status. */
#ifndef GS_CMD_H
#define GS_CMD_H

int cmd_estimate(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_fetch(int argc, char **argv);
int cmd_verify(int argc, char **argv);

#endif
