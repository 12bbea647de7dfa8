/* gpusizer: UTF-8, one decoder for the whole program. Every check of text
 * from outside (JSON scans, Markdown/HTML/SVG escaping, XLSX cleaning)
 * accepts and rejects exactly the same bytes: valid is what RFC 3629 calls
 * valid, so overlong forms, UTF-16 surrogates (U+D800..U+DFFF), code points
 * past U+10FFFF, truncated sequences and stray continuation bytes are not.
 * Pure: no allocation, no state. */
#ifndef GS_UTF8_H
#define GS_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* U+FFFD REPLACEMENT CHARACTER, what writers put for an invalid byte. */
#define GS_UTF8_REPLACEMENT "\xEF\xBF\xBD"
#define GS_UTF8_REPLACEMENT_CP 0xFFFDu

/* The n to pass for a NUL-terminated string: the decoder reads a sequence
 * one byte at a time and stops at the first byte that does not continue it,
 * and a NUL never does, so it never reads past the terminator. */
#define GS_UTF8_NUL SIZE_MAX

/*
 * Decode the sequence at s[0..n). Returns its length (1-4) and sets *cp to
 * the code point; returns 0 and sets *cp to U+FFFD when s does not start a
 * valid sequence (or n is 0). cp may be NULL. A NUL byte is the valid
 * one-byte sequence U+0000.
 */
size_t gs_utf8_decode(const char *s, size_t n, uint32_t *cp);

/* Offset of the first byte of text[0..n) that does not start a valid
 * sequence, or n when all of it is valid UTF-8. */
size_t gs_utf8_invalid_at(const char *text, size_t n);

/*
 * Write cp as 1-4 bytes to out (room for 4, not NUL-terminated); returns
 * how many, or 0 when cp is past U+10FFFF. A surrogate is written in its
 * 3-byte form (so that JSON "\uD800" escapes compare byte-wise); such
 * output is not valid UTF-8 and gs_utf8_decode rejects it.
 */
size_t gs_utf8_encode(uint32_t cp, char out[4]);

/*
 * Cut the NUL-terminated s to at most max_chars characters, in place, never
 * inside a sequence: a character starts at each byte that is not a
 * continuation byte (10xxxxxx), so on valid UTF-8 the cut falls between
 * whole characters. Returns the new length in bytes.
 */
size_t gs_utf8_cut(char *s, size_t max_chars);

#endif
