/* gpusizer: small shared helpers: checked arithmetic, allocation that exits
 * on failure. File I/O (whole-file reads, atomic writes, path tests) is in
 * fileio.h, included here for the callers. */
#ifndef GS_UTIL_H
#define GS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "numfmt.h"
#include "fileio.h"

/* The release, in --version, reports and verify records. */
#define GS_VERSION "0.1.0"

#define GS_GIB (1024.0 * 1024.0 * 1024.0)

/* Overflow-checked unsigned arithmetic: false on overflow. */
static inline bool gs_mul_u64(uint64_t a, uint64_t b, uint64_t *r)
{
	return !__builtin_mul_overflow(a, b, r);
}
static inline bool gs_add_u64(uint64_t a, uint64_t b, uint64_t *r)
{
	return !__builtin_add_overflow(a, b, r);
}

/* Allocation: print "gpusizer: out of memory" and exit 14 on failure.
 * The caller owns (and frees) what these return. */
void *gs_xmalloc(size_t n);
void *gs_xcalloc(size_t n, size_t size);
void *gs_xrealloc(void *p, size_t n);
char *gs_xstrdup(const char *s);

/* Decimal integers (numfmt.h) written to fp. */
void gs_put_u64(FILE *fp, uint64_t v);

/* Write s as a JSON string (quotes, \" \\ \n \r \t, other control
 * characters below 0x20 as \u00XX; bytes >= 0x80 pass through: the callers' text is
 * UTF-8). NULL is written as "". */
void gs_json_str(FILE *fp, const char *s);

/* Whether this run must not touch the network: the --offline flag, or
 * HF_HUB_OFFLINE or GPUSIZER_OFFLINE set to 1/ON/YES/TRUE. The one place
 * every command asks; offline and not cached is GS_EOFFLINE (exit 10). */
bool gs_offline(bool flag);

/* The directory holding the running executable (/proc/self/exe without its
 * last component), for files installed beside it. False if unknown or if
 * it does not fit in n bytes. */
bool gs_exe_dir(char *buf, size_t n);

/* Seconds on CLOCK_MONOTONIC (for deadlines and waits; never printed). */
double gs_mono_s(void);

#endif
