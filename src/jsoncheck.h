/* gpusizer: checks on JSON text from outside that cJSON does not make:
 * valid UTF-8 throughout, and no duplicate key in any object (cJSON keeps
 * the first of duplicates while Python's json keeps the last, so either
 * silent choice could size a different model than transformers loads).
 * Pure: works on a buffer, allocates only its own scratch space. */
#ifndef GS_JSONCHECK_H
#define GS_JSONCHECK_H

#include <stddef.h>

#include "err.h"

/* Check text[0..len). On failure returns `code` with a message
 * "<path>:<line>: invalid UTF-8 ..." or "<path>:<line>: duplicate key
 * \"k\" ...". Syntax errors are left to the JSON parser: the scan stops
 * quietly at anything it does not understand. */
gs_err gs_json_check(const char *text, size_t len, const char *path, gs_err code, gs_error *e);

/* Only the UTF-8 part: "<path>:<line>: not valid UTF-8 (byte 0xNN at
 * offset N)" (overlong forms, surrogates, past U+10FFFF, truncated). */
gs_err gs_utf8_check(const char *text, size_t len, const char *path, gs_err code, gs_error *e);

#endif
