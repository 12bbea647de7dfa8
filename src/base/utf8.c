/* gpusizer: UTF-8 decode, validate, encode and cut (RFC 3629). */
#include "utf8.h"

size_t gs_utf8_decode(const char *s, size_t n, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t c, min;
	size_t len;

	if (cp != NULL)
		*cp = GS_UTF8_REPLACEMENT_CP;
	if (n == 0)
		return 0;
	c = u[0];
	if (c < 0x80) {
		len = 1;
		min = 0;
	} else if (c >= 0xC2 && c <= 0xDF) {
		len = 2;
		c &= 0x1F;
		min = 0x80;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		c &= 0x0F;
		min = 0x800;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		c &= 0x07;
		min = 0x10000;
	} else {
		return 0; /* a continuation byte, 0xC0, 0xC1 or 0xF5..0xFF */
	}
	for (size_t i = 1; i < len; i++) {
		if (i >= n || (u[i] & 0xC0) != 0x80)
			return 0; /* truncated */
		c = (c << 6) | (u[i] & 0x3F);
	}
	if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0; /* overlong, past U+10FFFF, surrogate */
	if (cp != NULL)
		*cp = c;
	return len;
}

size_t gs_utf8_invalid_at(const char *text, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t k = gs_utf8_decode(text + i, n - i, NULL);
		if (k == 0)
			break;
		i += k;
	}
	return i;
}

size_t gs_utf8_encode(uint32_t cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	if (cp <= 0x10FFFF) {
		out[0] = (char)(0xF0 | (cp >> 18));
		out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[3] = (char)(0x80 | (cp & 0x3F));
		return 4;
	}
	return 0;
}

size_t gs_utf8_cut(char *s, size_t max_chars)
{
	size_t chars = 0, i;

	for (i = 0; s[i] != '\0'; i++) {
		if (((unsigned char)s[i] & 0xC0) == 0x80)
			continue;
		if (chars == max_chars) {
			s[i] = '\0';
			break;
		}
		chars++;
	}
	return i;
}
