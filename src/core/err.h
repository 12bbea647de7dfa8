/* gpusizer: one status enum for every module, its messages and exit codes. */
#ifndef GS_ERR_H
#define GS_ERR_H

#include <stddef.h>

/*
 * Every fallible function returns gs_err and, on failure, fills a caller-
 * provided gs_error with a detail line that names the file and the field
 * (first error wins: a later gs_fail on the same gs_error keeps the first).
 *
 * Exit codes (gs_exit_code) are part of the documented interface: see
 * gpusizer.1, EXIT STATUS. Never renumber; only append.
 */
typedef enum gs_err {
	GS_OK = 0,
	GS_EUSAGE,     /* bad flag or value on the command line        -> 2  */
	GS_ECONFIG,    /* bad model config.json                        -> 3  */
	GS_ESPEC,      /* bad sweep spec                               -> 3  */
	GS_EGPUFILE,   /* bad gpus/ data file                          -> 3  */
	GS_ETEMPLATE,  /* bad template                                 -> 3  */
	GS_EINPUT,     /* other bad input (measurement file, row id)   -> 3  */
	GS_EOVERFLOW,  /* arithmetic would overflow 64 bits            -> 3  */
	GS_EIO,        /* read or write failure; previous outputs kept -> 4  */
	GS_ESTALE,     /* report --check: committed reports are stale  -> 5  */
	GS_ENET,       /* network failure after retries                -> 6  */
	GS_EGATED,     /* gated repo: request access, set a token      -> 7  */
	GS_EAUTH,      /* private repo or token refused                -> 8  */
	GS_ENOTFOUND,  /* model, revision or file not found on the Hub -> 9  */
	GS_EOFFLINE,   /* offline and not cached                       -> 10 */
	GS_ENOGPU,     /* no NVIDIA driver or GPU                      -> 11 */
	GS_ETOLERANCE, /* verify: measured outside the tolerance       -> 12 */
	GS_EHARNESS,   /* verify: harness failed or skipped the row    -> 13 */
	GS_ENOMEM,     /* host memory exhausted (not a GPU verdict)    -> 14 */
	GS_EINTERNAL,  /* a bug: please report                         -> 70 */
	GS_EBUSY,      /* another gpusizer run held a lock too long    -> 15 */
	GS_ENOFILE,    /* a local file or directory named or defaulted
	                  does not exist (spec, --config, GPU dir)     -> 16 */
	GS_ERR_MAX
} gs_err;

/* Detail of the first failure. Zero-initialise before use. */
typedef struct gs_error {
	gs_err code;
	char msg[640];
} gs_error;

/* Static string for a code; never NULL. */
const char *gs_strerror(gs_err code);
/* Process exit status for a code (documented in gpusizer.1). */
int gs_exit_code(gs_err code);
/* Record a failure (printf-style detail) unless one is already recorded.
 * Returns code, so callers write: return gs_fail(e, GS_ECONFIG, "...");
 * e may be NULL. */
gs_err gs_fail(gs_error *e, gs_err code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Print "gpusizer: <detail or generic message>" to stderr, redacted
 * (redact.h). */
void gs_report_error(const gs_error *e);

#endif
