/* gpusizer: escaping text from outside for Markdown, HTML and SVG, and
 * locale-independent number formatting for the report writers. */
#ifndef GS_MDESC_H
#define GS_MDESC_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/*
 * Append s as literal Markdown text that is safe inside a GFM table cell
 * and inline anywhere: "|" -> "\|"; "<", ">", "&" -> entities; newlines,
 * tabs and other control bytes -> one space; the Markdown specials
 * \ ` * _ [ ] ~ # backslash-escaped; a leading = - + or an ordered-list
 * marker ("1." / "1)") escaped so the text cannot start a heading, list or
 * spreadsheet formula (nor close a heading). Valid UTF-8 passes through;
 * an invalid byte becomes U+FFFD (cmark-gfm would not read the table row).
 */
void gs_md_escape(gs_tbuf *out, const char *s);

/* Append s escaped for HTML/XML text and attribute values (& < > " ');
 * control bytes other than newline and tab become spaces, an invalid UTF-8
 * byte U+FFFD (so an SVG stays well-formed XML). */
void gs_xml_escape(gs_tbuf *out, const char *s);

/*
 * Format v with exactly `decimals` (0..6) digits after a '.', rounding half
 * away from zero, independent of the locale; "-0.00" prints as "0.00";
 * NaN and infinities print as "n/a". Writes at most n bytes; returns buf.
 */
char *gs_fmt_fixed(char *buf, size_t n, double v, int decimals);

/* Bytes as GiB (2^30) with 2 decimals: "14.96". Returns buf. */
char *gs_fmt_gib(char *buf, size_t n, uint64_t bytes);

#endif
