/* gpusizer: command dispatch. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "err.h"

#ifndef GS_VERSION
#define GS_VERSION "0.1.0"
#endif

static void usage(FILE *fp)
{
	fputs("usage: gpusizer COMMAND [OPTIONS]\n"
	      "\n"
	      "Which GPU, and how many, does it take to train or fine-tune a model?\n"
	      "\n"
	      "commands:\n"
	      "  estimate   peak GPU memory of one configuration (gpusizer estimate --help)\n"
	      "  report     sweep a spec across GPU classes, write Markdown/XLSX/HTML/JSON/CSV\n"
	      "  fetch      fetch model configs and exact parameter counts from the Hub\n"
	      "  verify     measure one configuration on the local NVIDIA GPU\n"
	      "\n"
	      "  gpusizer --help | --version\n"
	      "Each command takes --help. See gpusizer(1) for files, exit codes and environment.\n",
	      fp);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (cmd == NULL) {
		usage(stderr);
		return gs_exit_code(GS_EUSAGE);
	}
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("gpusizer %s\n", GS_VERSION);
		return 0;
	}
	if (strcmp(cmd, "estimate") == 0)
		return cmd_estimate(argc - 1, argv + 1);
	if (strcmp(cmd, "report") == 0)
		return cmd_report(argc - 1, argv + 1);
	if (strcmp(cmd, "fetch") == 0)
		return cmd_fetch(argc - 1, argv + 1);
	if (strcmp(cmd, "verify") == 0)
		return cmd_verify(argc - 1, argv + 1);
	fprintf(stderr, "gpusizer: unknown command '%s' (try gpusizer --help)\n", cmd);
	return gs_exit_code(GS_EUSAGE);
}
