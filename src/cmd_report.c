/* gpusizer: placeholder for the report command until its module lands. */
#include <stdio.h>

#include "cmd.h"
#include "err.h"

int cmd_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("gpusizer: report: not built yet\n", stderr);
	return gs_exit_code(GS_EINTERNAL);
}
