/* Every status code has a message and a documented exit code. */
#include "check.h"
#include "err.h"

int main(void)
{
	for (int c = 0; c < GS_ERR_MAX; c++) {
		const char *m = gs_strerror((gs_err)c);
		CHECK(m != NULL && m[0] != '\0' && strcmp(m, "unknown error") != 0, "err: code %d has a message", c);
		CHECK(c == GS_OK ? gs_exit_code((gs_err)c) == 0 : gs_exit_code((gs_err)c) > 1,
		      "err: code %d has exit code %d", c, gs_exit_code((gs_err)c));
	}
	gs_error e = {0};
	gs_fail(&e, GS_ECONFIG, "first %d", 1);
	gs_fail(&e, GS_EIO, "second");
	CHECK(e.code == GS_ECONFIG && strcmp(e.msg, "first 1") == 0, "err: first error wins");
	{
		/* the message whole is redacted and escaped, then cut to e.msg */
		char pad[700];
		gs_error f = {0};
		memset(pad, 'x', sizeof pad);
		pad[sizeof f.msg - 8] = '\0';
		gs_fail(&f, GS_ENET, "%s hf_Ab3Cd4Ef5Gh6Ij7Kl8Mn9 and \x1b[2J", pad);
		CHECK(strstr(f.msg, "Ab3") == NULL && strchr(f.msg, '\x1b') == NULL &&
		      strlen(f.msg) == sizeof f.msg - 1 && strstr(f.msg, "hf_") != NULL,
		      "err: a token at the cut of a message is redacted, never half-shown (...%s)",
		      f.msg + sizeof f.msg - 12);
	}
	CHECK_DONE();
}
