/* gpusizer: checks on JSON text from outside that cJSON does not make:
 * valid UTF-8 throughout, and no duplicate key in any object (cJSON keeps
 * the first of duplicates while Python's json keeps the last, so either
 * silent choice could size a different model than transformers loads).
 * Pure: works on a buffer, allocates only its own scratch space. */
#ifndef GS_JSONCHECK_H
#define GS_JSONCHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

/* The deepest nesting of arrays and objects accepted: cJSON's own limit
 * (CJSON_NESTING_LIMIT), so the two agree. */
#define GS_JSON_MAX_DEPTH 1000

/* Check text[0..len). On failure returns `code` with a message
 * "<path>:<line>: invalid UTF-8 ..." or "<path>:<line>: duplicate key
 * \"k\" (first on line N) ..." for the first duplicate (gs_json_find_dup).
 * Syntax errors are left to the JSON parser: the scan stops
 * quietly at anything it does not understand. */
gs_err gs_json_check(const char *text, size_t len, const char *path, gs_err code, gs_error *e);

/* Only the nesting part, for a text the JSON parser refused: `code` with
 * "<path>: invalid JSON: nesting deeper than 1000 levels at line L,
 * column C" (the bracket that opens level 1001; C counts bytes from 1)
 * when it nests too deep (strings are skipped), else GS_OK. */
gs_err gs_json_depth_check(const char *text, size_t len, const char *path, gs_err code, gs_error *e);

/* Only the UTF-8 part: "<path>:<line>: not valid UTF-8 (byte 0xNN at
 * offset N)" (overlong forms, surrogates, past U+10FFFF, truncated). */
gs_err gs_utf8_check(const char *text, size_t len, const char *path, gs_err code, gs_error *e);

/* A duplicate key, as gs_json_find_dup reports it. */
typedef struct gs_json_dup {
	size_t line;       /* line (1-based) of the repeated key */
	size_t first_line; /* line of the same key before it in that object */
	size_t key_len;    /* bytes of the decoded key (key keeps at most 80) */
	char key[81];      /* the key with escapes decoded, NUL-terminated */
	char path[256];    /* dotted path from the top, e.g. "axes.seq": the keys
	                    * of the enclosing objects (arrays add nothing) and
	                    * the key; cut to fit */
} gs_json_dup;

/* The duplicate-key part alone, for callers that word their own message:
 * the first duplicate in the text (the one whose repetition comes first),
 * keys compared after decoding escapes. No UTF-8 check. Returns true and
 * fills *d when there is one; like gs_json_check, stops quietly at what it
 * does not understand. */
bool gs_json_find_dup(const char *text, size_t len, gs_json_dup *d);

/* Python's json writes float('inf') as the bare token Infinity (and
 * -Infinity), which transformers reads back: Nemotron-H's config holds
 * "time_step_limit": [0.0, Infinity]. JSON has no such token. Bounded to
 * exactly those tokens, outside strings, where a value starts (after ':',
 * ',' or '[') and ending at a delimiter: each becomes 1e999 padded with
 * spaces to the same length (lines and columns stay), which the parser
 * reads as an infinite number, so that every field gpusizer reads a size
 * from refuses it as a non-finite value, naming the field, and the others
 * (time_step_limit) are accepted. NaN and any other spelling stay invalid
 * JSON. Returns how many it replaced: 0 leaves *out NULL (parse text as
 * it is); otherwise *out is the rewritten copy (len bytes and a NUL; the
 * caller frees it) and *first_line the line of the first. */
size_t gs_json_infinity(const char *text, size_t len, char **out, size_t *first_line);

#endif
