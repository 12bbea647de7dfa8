/* gpusizer: typed getters for the fields of a cJSON object, with one
 * message style for every file format we read:
 *
 *   "<file>: field \"<pfx><key>\": missing (must be <what>)"
 *   "<file>: field \"<pfx><key>\": must be <what> (got <value>)"
 *
 * Errors are sticky, first one wins (as curl's error buffer): the first
 * failure fills e (gs_fail) and g->rc, and every later call returns its
 * default without looking, so a caller reads a batch of fields and tests
 * g->rc once. JSON null counts as absent. Only the root of a cJSON tree is
 * ever freed (cJSON_Delete); strings returned here point into the tree and
 * die with it: copy what you keep. Nothing here allocates.
 */
#ifndef GS_JSONGET_H
#define GS_JSONGET_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

struct cJSON; /* <cJSON.h>: callers pass their const cJSON * as is */

/* A reader: set the first four fields, rc to GS_OK, e.g.
 *   gs_jget g = { path, "", GS_EGPUFILE, e, GS_OK }; */
typedef struct gs_jget {
	const char *file; /* names the file in messages (borrowed) */
	const char *pfx;  /* put before every key in messages, e.g. "text_config."; NULL: none */
	gs_err code;      /* the code of a bad field: GS_ECONFIG, GS_EGPUFILE, ... */
	gs_error *e;      /* receives the first failure; may be NULL */
	gs_err rc;        /* GS_OK until the first failure, then its code */
} gs_jget;

/* Integers past 2^53 are not exact in a JSON double: the largest max. */
#define GS_JSON_INT_MAX ((int64_t)1 << 53)

/* obj's item under key (case-sensitive), or NULL when absent, JSON null,
 * or obj is not an object. */
const struct cJSON *gs_jget_item(const struct cJSON *obj, const char *key);

/* v as a message shows it: 42, 1.5, "text" (first 40 bytes), true, null,
 * an array, an object; "nothing" for NULL. */
void gs_json_describe(const struct cJSON *v, char *buf, size_t n);

/* Record "<file>: field \"<pfx><key>\": <detail>" with code (first error
 * wins); returns g->rc. */
gs_err gs_jget_fail(gs_jget *g, gs_err code, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
gs_err gs_jget_vfail(gs_jget *g, gs_err code, const char *key, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

/*
 * An integer in [min, max] (max above GS_JSON_INT_MAX is lowered to it).
 * Absent: def, or an error when required. Messages name min 1 "a positive
 * integer", min 0 "a non-negative integer", else "an integer"; with a max
 * below GS_JSON_INT_MAX "an integer from MIN to MAX". On a failure (this
 * one or an earlier one) returns def when def >= 1, else 1: a value the
 * caller may still divide by.
 */
int64_t gs_jget_int(gs_jget *g, const struct cJSON *obj, const char *key, int64_t min, int64_t max,
                    int64_t def, bool required);

/* true or false. Absent or on a failure: def. */
bool gs_jget_bool(gs_jget *g, const struct cJSON *obj, const char *key, bool def, bool required);

/* A string without control characters (redact.h gs_has_control: what is
 * read is shown, and ESC in a terminal starts a command), borrowed from
 * the tree. Absent or on a failure: NULL. */
const char *gs_jget_str(gs_jget *g, const struct cJSON *obj, const char *key, bool required);

/* A non-empty string without control characters, of at most n - 1 bytes,
 * copied into dst[n]. Returns true when copied; dst is left as it was
 * otherwise (absent, a failure). */
bool gs_jget_strcpy(gs_jget *g, const struct cJSON *obj, const char *key, char *dst, size_t n,
                    bool required);

/* A finite number above 0 ("a positive number", "... or null" when
 * optional). Absent or on a failure: def. */
double gs_jget_pos(gs_jget *g, const struct cJSON *obj, const char *key, double def, bool required);

/* A finite number in [lo, hi]; what names it in messages (e.g. "a
 * probability between 0 and 1"; for an open lower bound at 0 pass lo =
 * DBL_TRUE_MIN). Absent or on a failure: def. */
double gs_jget_num(gs_jget *g, const struct cJSON *obj, const char *key, double lo, double hi,
                   const char *what, double def, bool required);

/*
 * A byte count given as exactly one of "<base>_bytes" and "<base>_mib"
 * (MiB, 2^20 bytes): a positive whole number, at most 9e15, the product
 * within 64 bits. Neither given: 0, or an error naming "<base>_mib" when
 * required; both given is an error. On a failure: 0.
 */
uint64_t gs_jget_bytes(gs_jget *g, const struct cJSON *obj, const char *base, bool required);

/* Lenient reads that never fail, for files we only use when they make
 * sense: v's string, or NULL; v as a non-negative count (a number in
 * [0, 2^64), truncated), or def. */
const char *gs_json_string(const struct cJSON *v);
uint64_t gs_json_u64(const struct cJSON *v, uint64_t def);

#endif
