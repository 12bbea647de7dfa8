/* gpusizer: placeholder for the verify command until its module lands. */
#include <stdio.h>

#include "cmd.h"
#include "err.h"

int cmd_verify(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("gpusizer: verify: not built yet\n", stderr);
	return gs_exit_code(GS_EINTERNAL);
}
