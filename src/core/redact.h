/* gpusizer: the one redaction rule for secrets in text that is printed or
 * stored: credentials in URLs (the user:pass of "http://user:pass@host" becomes ***),
 * the secret values registered with gs_redact_secret (the Hugging Face
 * token in use, HF_ENDPOINT's password) -> "***", anything shaped like a
 * Hugging Face token ("hf_" and 10+ letters or digits) -> "hf_***", and the
 * value of an HTTP "Bearer" or "Basic" credential -> "Bearer ***". Pure:
 * libc only (string functions, malloc for long strings), no I/O, so the
 * core's err.c can use it. */
#ifndef GS_REDACT_H
#define GS_REDACT_H

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

#endif
