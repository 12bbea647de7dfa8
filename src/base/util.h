/* gpusizer: small shared helpers: checked arithmetic, allocation that exits
 * on failure, the monotonic clock. File I/O (whole-file reads, atomic
 * writes, path tests) is in fileio.h; JSON text out in jw.h. */
#ifndef GS_UTIL_H
#define GS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"

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

/* Seconds on CLOCK_MONOTONIC (for deadlines and waits; never printed). */
double gs_mono_s(void);

/* Edit distance (Levenshtein) of a's first na bytes and the string b,
 * ASCII case folded when fold; 99 when either is over 64 bytes (it ranks
 * near misses of short names: options, GPU ids). */
size_t gs_edit_distance(const char *a, size_t na, const char *b, bool fold);

#endif
