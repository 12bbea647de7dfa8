/* gpusizer: placeholder for the estimate command until its module lands. */
#include <stdio.h>

#include "cmd.h"
#include "err.h"

int cmd_estimate(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("gpusizer: estimate: not built yet\n", stderr);
	return gs_exit_code(GS_EINTERNAL);
}
