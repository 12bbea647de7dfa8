/* gpusizer: the one redaction rule for secrets in text that is printed or
 * stored: credentials in URLs (the user:pass of "http://user:pass@host" becomes ***),
 * the secret values registered with gs_redact_secret (the Hugging Face
 * token in use, HF_ENDPOINT's password) -> "***", anything shaped like a
 * Hugging Face token ("hf_" and 10+ letters or digits) -> "hf_***", and the
 * value of an HTTP "Bearer" or "Basic" credential -> "Bearer ***"; and
 * control characters escaped (gs_text_safe does both, in one pass, before
 * any cut). Pure:
 * libc only (string functions, malloc for long strings), no I/O, so the
 * core's err.c can use it. */
#ifndef GS_REDACT_H
#define GS_REDACT_H

#include <stdbool.h>
#include <stddef.h>

/* Remember a secret value (copied into static storage until exit; at most
 * 8 are kept, each 4 to 1023 bytes; shorter or longer ones and NULL are
 * ignored) so that gs_redact removes every copy of it. */
void gs_redact_secret(const char *s);

/* Apply the rule to the NUL-terminated string s in place; n is the size of
 * its buffer (the result is truncated to n - 1 bytes, never overflows; a
 * credential "a@" grows to "***@", so leave room). When there is no memory
 * to work in, s is emptied rather than left unredacted. */
void gs_redact(char *s, size_t n);

/* Whether s holds a control character: C0 (below 0x20), DEL, or a C1
 * character (U+0080..U+009F, as UTF-8). A terminal acts on them (ESC
 * starts a sequence that moves the cursor, retitles the window, ...). */
bool gs_has_control(const char *s);

/* in into out[n] with each control character written as text: "\x1b"
 * for C0 and DEL, "\u009b" for C1; cut at n - 1 bytes, never inside an
 * escape or a UTF-8 sequence. */
void gs_escape_controls(const char *in, char *out, size_t n);

/* The one pass over every message before it is cut, stored or shown: s
 * whole, redacted (gs_redact) and its control characters escaped, then
 * cut to fit out[n] (so a secret at the cut is never left half-shown).
 * Without memory to work in, out is "" rather than a secret. */
void gs_text_safe(const char *s, char *out, size_t n);

#endif
