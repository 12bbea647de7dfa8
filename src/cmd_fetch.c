/* gpusizer: placeholder for the fetch command until its module lands. */
#include <stdio.h>

#include "cmd.h"
#include "err.h"

int cmd_fetch(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs("gpusizer: fetch: not built yet\n", stderr);
	return gs_exit_code(GS_EINTERNAL);
}
