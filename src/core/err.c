/* gpusizer: status strings, exit codes and first-error-wins detail. */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>

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
	va_list ap;

	if (e == NULL || e->code != GS_OK)
		return code;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	return code;
}

void gs_report_error(const gs_error *e)
{
	/* the one redaction rule (redact.h) over every error printed; room
	 * for "a@" growing to "***@" */
	char msg[sizeof e->msg * 2 + 16];

	snprintf(msg, sizeof msg, "%s", e->msg[0] != '\0' ? e->msg : gs_strerror(e->code));
	gs_redact(msg, sizeof msg);
	fprintf(stderr, "gpusizer: %s\n", msg);
}
