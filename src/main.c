/* gpusizer: command dispatch, `gpusizer help`, --version. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "err.h"
#include "opt.h"
#include "util.h"

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const gs_opt_cmd *opts;
	const char *what;
} commands[] = {
	{ "estimate", cmd_estimate, &gs_cmd_estimate, "peak GPU memory of one configuration, and where it fits" },
	{ "plan", cmd_plan, &gs_cmd_plan, "fewest GPUs per class, largest batch and context, the remedy ladder" },
	{ "report", cmd_report, &gs_cmd_report, "sweep a spec across GPU classes into Markdown/HTML/XLSX/JSON/CSV" },
	{ "fetch", cmd_fetch, &gs_cmd_fetch, "fetch model configs and exact parameter counts from the Hub" },
	{ "verify", cmd_verify, &gs_cmd_verify, "measure one configuration on the local NVIDIA GPU" },
	{ "list", cmd_list, &gs_cmd_list, "the cached models and the known GPU classes" },
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *fp)
{
	fputs("usage: gpusizer COMMAND [OPTIONS]\n"
	      "\n"
	      "Which GPU, and how many, does it take to train, fine-tune or serve a model?\n"
	      "\n"
	      "commands:\n",
	      fp);
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].what);
	fputs("  help       gpusizer help COMMAND: that command's options;\n"
	      "             gpusizer help --options: every command's options as JSON\n"
	      "\n"
	      "  gpusizer -h | --help | -V | --version\n"
	      "Every command takes -h/--help, -q/--quiet and -v/--verbose, and those that report a\n"
	      "result take --json. See gpusizer(1) for files, exit codes and environment.\n",
	      fp);
}

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static int help(int argc, char **argv)
{
	const struct command *c;
	gs_error e = { 0 };

	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--options") == 0 && argc == 2) {
		const gs_opt_cmd *all[N_COMMANDS];
		for (size_t i = 0; i < N_COMMANDS; i++)
			all[i] = commands[i].opts;
		gs_opt_dump_json(all, N_COMMANDS, stdout);
		return fflush(stdout) == 0 ? 0 : gs_exit_code(GS_EIO);
	}
	if (argc > 2 || (c = find(argv[1])) == NULL) {
		char names[128] = "";
		for (size_t i = 0; i < N_COMMANDS; i++)
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
			         commands[i].name);
		gs_fail(&e, GS_EUSAGE, "help: '%s' is not a command (commands: %s; or help --options)",
		        argv[1], names);
		return gs_cmd_usage_error(&e);
	}
	gs_opt_usage(c->opts, stdout);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;
	const struct command *c;
	gs_error e = { 0 };

	if (cmd == NULL) {
		usage(stderr);
		return gs_exit_code(GS_EUSAGE);
	}
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(cmd, "help") == 0)
		return help(argc - 1, argv + 1);
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		printf("gpusizer %s\n", GS_VERSION);
		return 0;
	}
	if ((c = find(cmd)) != NULL)
		return c->run(argc - 1, argv + 1);
	if (cmd[0] == '-')
		gs_fail(&e, GS_EUSAGE, "unknown option '%s' before the command (try 'gpusizer --help')", cmd);
	else
		gs_fail(&e, GS_EUSAGE, "unknown command '%s' (try 'gpusizer --help')", cmd);
	return gs_cmd_usage_error(&e);
}
