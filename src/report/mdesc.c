/* gpusizer: Markdown/HTML escaping and locale-independent numbers. */
#include "mdesc.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "utf8.h"

/* Copy the UTF-8 sequence at *pp (first byte >= 0x80), or U+FFFD for a
 * byte that does not start a valid one; advance *pp past what was used. */
static void put_utf8(gs_tbuf *out, const unsigned char **pp)
{
	size_t n = gs_utf8_decode((const char *)*pp, GS_UTF8_NUL, NULL);

	if (n == 0) {
		gs_tbuf_puts(out, GS_UTF8_REPLACEMENT);
		*pp += 1;
	} else {
		gs_tbuf_add(out, (const char *)*pp, n);
		*pp += n;
	}
}

void gs_md_escape(gs_tbuf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t i;

	/* Line-start constructs: heading, list, block quote, formula. */
	if (p[0] == '=' || p[0] == '-' || p[0] == '+') {
		gs_tbuf_putc(out, '\\');
	} else if (p[0] >= '0' && p[0] <= '9') {
		i = 0;
		while (p[i] >= '0' && p[i] <= '9')
			i++;
		if ((p[i] == '.' || p[i] == ')') &&
		    (p[i + 1] == ' ' || p[i + 1] == '\t' || p[i + 1] == '\0')) {
			gs_tbuf_add(out, (const char *)p, i);
			gs_tbuf_putc(out, '\\');
			p += i;
		}
	}
	while (*p) {
		unsigned char c = *p;
		if (c >= 0x80) {
			put_utf8(out, &p);
			continue;
		}
		p++;
		switch (c) {
		case '|': gs_tbuf_puts(out, "\\|"); break;
		case '<': gs_tbuf_puts(out, "&lt;"); break;
		case '>': gs_tbuf_puts(out, "&gt;"); break;
		case '&': gs_tbuf_puts(out, "&amp;"); break;
		case '\\': case '`': case '*': case '_': case '[': case ']': case '~': case '#':
			gs_tbuf_putc(out, '\\');
			gs_tbuf_putc(out, (char)c);
			break;
		default:
			if (c < 0x20 || c == 0x7f)
				gs_tbuf_putc(out, ' ');
			else
				gs_tbuf_putc(out, (char)c);
		}
	}
}

void gs_xml_escape(gs_tbuf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	while (*p) {
		if (*p >= 0x80) {
			put_utf8(out, &p);
			continue;
		}
		switch (*p) {
		case '&': gs_tbuf_puts(out, "&amp;"); break;
		case '<': gs_tbuf_puts(out, "&lt;"); break;
		case '>': gs_tbuf_puts(out, "&gt;"); break;
		case '"': gs_tbuf_puts(out, "&quot;"); break;
		case '\'': gs_tbuf_puts(out, "&#39;"); break;
		default:
			if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
				gs_tbuf_putc(out, ' ');
			else
				gs_tbuf_putc(out, (char)*p);
		}
		p++;
	}
}

char *gs_fmt_fixed(char *buf, size_t n, double v, int decimals)
{
	static const double pow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	double scaled, ip;
	unsigned long long whole, frac, scale;
	bool neg;

	if (n == 0)
		return buf;
	if (decimals < 0)
		decimals = 0;
	if (decimals > 6)
		decimals = 6;
	if (isnan(v) || isinf(v) || fabs(v) >= 9.0e15 / pow10[decimals]) {
		snprintf(buf, n, "n/a");
		return buf;
	}
	neg = v < 0;
	scaled = fabs(v) * pow10[decimals];
	ip = floor(scaled + 0.5); /* half away from zero */
	scale = (unsigned long long)pow10[decimals];
	whole = (unsigned long long)ip / scale;
	frac = (unsigned long long)ip % scale;
	if (whole == 0 && frac == 0)
		neg = false;
	if (decimals == 0)
		snprintf(buf, n, "%s%llu", neg ? "-" : "", whole);
	else
		snprintf(buf, n, "%s%llu.%0*llu", neg ? "-" : "", whole, decimals, frac);
	return buf;
}

char *gs_fmt_gib(char *buf, size_t n, uint64_t bytes)
{
	/* Integer rounding to hundredths of a GiB, exact for every uint64. */
	uint64_t whole = bytes >> 30;
	uint64_t rem = bytes & ((UINT64_C(1) << 30) - 1);
	uint64_t hund = (rem * 100 + (UINT64_C(1) << 29)) >> 30; /* rem*100 < 2^37 */

	if (hund >= 100) {
		whole++;
		hund -= 100;
	}
	snprintf(buf, n, "%llu.%02llu", (unsigned long long)whole, (unsigned long long)hund);
	return buf;
}
