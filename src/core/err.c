/* gpusizer: status strings, exit codes and first-error-wins detail. */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"

static const char *const messages[GS_ERR_MAX + 1] = {
	[GS_OK] = "success",
	[GS_EUSAGE] = "invalid command line",
	[GS_ECONFIG] = "invalid model configuration",
	[GS_ESPEC] = "invalid sweep spec",
	[GS_EGPUFILE] = "invalid GPU class file",
	[GS_ETEMPLATE] = "invalid template",
	[GS_EINPUT] = "invalid input file",
	[GS_EOVERFLOW] = "value too large: arithmetic would overflow",
	[GS_EIO] = "input/output error",
	[GS_ESTALE] = "reports are stale",
	[GS_ENET] = "network error",
	[GS_EGATED] = "gated repository: access must be requested",
	[GS_EAUTH] = "repository is private or the token was refused",
	[GS_ENOTFOUND] = "not found",
	[GS_EOFFLINE] = "offline and not in the cache",
	[GS_ENOGPU] = "no NVIDIA GPU or driver found",
	[GS_ETOLERANCE] = "measured memory outside the tolerance",
	[GS_EHARNESS] = "verification harness failed",
	[GS_ENOMEM] = "host memory exhausted (this machine's RAM, not the GPU's)",
	[GS_EINTERNAL] = "internal error",
	[GS_EBUSY] = "another gpusizer run holds the lock",
	[GS_ENOFILE] = "no such local file or directory",
	[GS_ERR_MAX] = "unknown error",
};

static const int exit_codes[GS_ERR_MAX + 1] = {
	[GS_OK] = 0,         [GS_EUSAGE] = 2,     [GS_ECONFIG] = 3,
	[GS_ESPEC] = 3,      [GS_EGPUFILE] = 3,   [GS_ETEMPLATE] = 3,
	[GS_EINPUT] = 3,     [GS_EOVERFLOW] = 3,  [GS_EIO] = 4,
	[GS_ESTALE] = 5,     [GS_ENET] = 6,       [GS_EGATED] = 7,
	[GS_EAUTH] = 8,      [GS_ENOTFOUND] = 9,  [GS_EOFFLINE] = 10,
	[GS_ENOGPU] = 11,    [GS_ETOLERANCE] = 12, [GS_EHARNESS] = 13,
	[GS_ENOMEM] = 14,    [GS_EINTERNAL] = 70, [GS_EBUSY] = 15,
	[GS_ENOFILE] = 16,
	[GS_ERR_MAX] = 70,
};

const char *gs_strerror(gs_err code)
{
	if ((unsigned)code > GS_ERR_MAX)
		code = GS_ERR_MAX;
	return messages[code];
}

int gs_exit_code(gs_err code)
{
	if ((unsigned)code > GS_ERR_MAX)
		code = GS_ERR_MAX;
	return exit_codes[code];
}

gs_err gs_fail(gs_error *e, gs_err code, const char *fmt, ...)
{
	char stack[1024], *full = stack;
	va_list ap, again;
	int n;

	if (e == NULL || e->code != GS_OK)
		return code;
	e->code = code;
	/* The message whole, then the one pass (redact.h) before the cut to
	 * e->msg: a secret at the cut is redacted, never half-shown. */
	va_start(ap, fmt);
	va_copy(again, ap);
	n = vsnprintf(stack, sizeof stack, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof stack && (full = malloc((size_t)n + 1)) != NULL)
		vsnprintf(full, (size_t)n + 1, fmt, again);
	va_end(again);
	if (n < 0 || full == NULL) {
		e->msg[0] = '\0';
		return code;
	}
	gs_text_safe(full, e->msg, sizeof e->msg);
	memset(full, 0, strlen(full));
	if (full != stack)
		free(full);
	return code;
}

void gs_report_error(const gs_error *e)
{
	/* the one pass (redact.h) also over a message set without gs_fail */
	char msg[sizeof e->msg];

	gs_text_safe(e->msg[0] != '\0' ? e->msg : gs_strerror(e->code), msg, sizeof msg);
	fprintf(stderr, "gpusizer: %s\n", msg);
}
