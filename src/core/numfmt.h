/* gpusizer: decimal integers as text, fast and locale-free: the report
 * writers and the settings' keys print millions of them, and snprintf's
 * format parsing was a fifth of a report's time. Pure (part of the sizing
 * core). */
#ifndef GS_NUMFMT_H
#define GS_NUMFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Room for any 64-bit integer, its sign and the NUL. */
#define GS_INT_CHARS 21

/* The decimal text of v, what "%" PRIu64 / "%" PRId64 print, into buf (at
 * least GS_INT_CHARS bytes), NUL-terminated; returns its length. */
size_t gs_fmt_u64(char *buf, uint64_t v);
size_t gs_fmt_i64(char *buf, int64_t v);

/* Exactly what printf's "%.4f" prints for v (the binary value rounded half
 * to even, "-0.0000" for a small negative), into buf of n bytes; returns
 * buf. Integer arithmetic where that is exact, snprintf where it may not
 * be (|v| >= 1e6, NaN, infinities, a value within a hair of a tie). */
char *gs_fmt_f4(char *buf, size_t n, double v);
/* Room for "%.4f" of any double: DBL_MAX has 309 digits, then a sign, the
 * point, 4 decimals and the NUL. */
#define GS_F4_CHARS 320

/* The one reading of a whole number from text (options, comma lists):
 * an optional '-' and decimal digits, nothing else: no blank, no '+', no
 * exponent ("1e3"), no trailing text, and within 64 bits. False (and *out
 * untouched) otherwise. s[0..n) is read, or up to the NUL when n is
 * SIZE_MAX. */
bool gs_parse_i64(const char *s, size_t n, int64_t *out);

#endif
