/* Unit tests: the one UTF-8 decoder (utf8.c) and its helpers. */
#include <string.h>

#include "check.h"
#include "utf8.h"

/* Decode s (n bytes) and check the length and code point. */
static void dec(const char *s, size_t n, size_t want_len, uint32_t want_cp, const char *name)
{
	uint32_t cp = 0;
	size_t len = gs_utf8_decode(s, n, &cp);

	CHECK(len == want_len && cp == want_cp, "utf8 decode: %s (len %zu cp U+%04X)", name, len,
	      (unsigned)cp);
}

static void cut(const char *in, size_t max, const char *want, const char *name)
{
	char buf[64];
	size_t n;

	snprintf(buf, sizeof buf, "%s", in);
	n = gs_utf8_cut(buf, max);
	CHECK(strcmp(buf, want) == 0 && n == strlen(want), "utf8 cut: %s ([%s])", name, buf);
}

int main(void)
{
	char b[4];

	/* valid: one of each length, and the edges of each range */
	dec("A", 1, 1, 'A', "ASCII");
	dec("", 1, 1, 0, "NUL is U+0000");
	dec("\x7f", 1, 1, 0x7f, "U+007F");
	dec("\xc2\x80", 2, 2, 0x80, "U+0080, the smallest 2-byte");
	dec("\xc3\xa9", 2, 2, 0xe9, "e acute");
	dec("\xdf\xbf", 2, 2, 0x7ff, "U+07FF");
	dec("\xe0\xa0\x80", 3, 3, 0x800, "U+0800, the smallest 3-byte");
	dec("\xe2\x82\xac", 3, 3, 0x20ac, "euro sign");
	dec("\xed\x9f\xbf", 3, 3, 0xd7ff, "U+D7FF, just below the surrogates");
	dec("\xee\x80\x80", 3, 3, 0xe000, "U+E000, just above the surrogates");
	dec("\xef\xbf\xbf", 3, 3, 0xffff, "U+FFFF");
	dec("\xf0\x90\x80\x80", 4, 4, 0x10000, "U+10000, the smallest 4-byte");
	dec("\xf0\x9f\x98\x80", 4, 4, 0x1f600, "emoji");
	dec("\xf4\x8f\xbf\xbf", 4, 4, 0x10ffff, "U+10FFFF, the largest");

	/* invalid: 0 and U+FFFD */
	dec("\x80", 1, 0, 0xfffd, "a stray continuation byte");
	dec("\xc0\xaf", 2, 0, 0xfffd, "overlong 2-byte (0xC0)");
	dec("\xc1\xbf", 2, 0, 0xfffd, "overlong 2-byte (0xC1)");
	dec("\xe0\x9f\xbf", 3, 0, 0xfffd, "overlong 3-byte");
	dec("\xf0\x8f\xbf\xbf", 4, 0, 0xfffd, "overlong 4-byte");
	dec("\xed\xa0\x80", 3, 0, 0xfffd, "surrogate U+D800");
	dec("\xed\xbf\xbf", 3, 0, 0xfffd, "surrogate U+DFFF");
	dec("\xf4\x90\x80\x80", 4, 0, 0xfffd, "past U+10FFFF");
	dec("\xf5\x80\x80\x80", 4, 0, 0xfffd, "lead byte 0xF5");
	dec("\xff", 1, 0, 0xfffd, "byte 0xFF");
	dec("\xe2\x82", 2, 0, 0xfffd, "truncated by n");
	dec("\xe2\x82\xac", 2, 0, 0xfffd, "valid bytes past n are not read");
	dec("\xe2\x82", GS_UTF8_NUL, 0, 0xfffd, "truncated by the NUL (GS_UTF8_NUL)");
	dec("\xc3(", 2, 0, 0xfffd, "a lead byte without its continuation");
	dec("A", 0, 0, 0xfffd, "n == 0");
	CHECK(gs_utf8_decode("\xc3\xa9", 2, NULL) == 2, "utf8 decode: cp may be NULL");

	/* whole buffers */
	CHECK(gs_utf8_invalid_at("caf\xc3\xa9 \xe2\x82\xac", 9) == 9, "utf8 invalid_at: all valid gives n");
	CHECK(gs_utf8_invalid_at("ab\xc0\xafz", 5) == 2, "utf8 invalid_at: offset of the bad byte");
	CHECK(gs_utf8_invalid_at("ab\xe2\x82", 4) == 2, "utf8 invalid_at: a sequence cut by n");
	CHECK(gs_utf8_invalid_at("a\0b", 3) == 3, "utf8 invalid_at: NUL bytes are valid");
	CHECK(gs_utf8_invalid_at("", 0) == 0, "utf8 invalid_at: empty");

	/* encode: the inverse of decode */
	{
		static const uint32_t cps[] = { 0, 'A', 0x7f, 0x80, 0x7ff, 0x800, 0xfffd, 0xffff, 0x10000, 0x10ffff };
		int ok = 1;
		for (size_t i = 0; i < sizeof cps / sizeof cps[0]; i++) {
			uint32_t cp = 0;
			size_t n = gs_utf8_encode(cps[i], b);
			ok &= n >= 1 && gs_utf8_decode(b, n, &cp) == n && cp == cps[i];
		}
		CHECK(ok, "utf8 encode: decode(encode(cp)) == cp over the range edges");
	}
	CHECK(gs_utf8_encode(0xe9, b) == 2 && memcmp(b, "\xc3\xa9", 2) == 0, "utf8 encode: 2 bytes");
	CHECK(gs_utf8_encode(0xd800, b) == 3 && memcmp(b, "\xed\xa0\x80", 3) == 0 && gs_utf8_decode(b, 3, NULL) == 0,
	      "utf8 encode: a surrogate in its 3-byte form, which decode rejects");
	CHECK(gs_utf8_encode(0x110000, b) == 0, "utf8 encode: past U+10FFFF is 0");

	/* cut at N characters */
	cut("abcdef", 3, "abc", "ASCII");
	cut("abc", 3, "abc", "exactly N: unchanged");
	cut("ab", 5, "ab", "shorter: unchanged");
	cut("\xc3\xa9\xc3\xa9\xc3\xa9", 2, "\xc3\xa9\xc3\xa9", "2-byte characters cut whole");
	cut("a\xf0\x9f\x98\x80z", 2, "a\xf0\x9f\x98\x80", "a 4-byte character kept whole");
	cut("a\xf0\x9f\x98\x80z", 1, "a", "a 4-byte character dropped whole");
	cut("abc", 0, "", "zero characters");
	CHECK(strlen(GS_UTF8_REPLACEMENT) == 3 && gs_utf8_decode(GS_UTF8_REPLACEMENT, 3, NULL) == 3,
	      "utf8: GS_UTF8_REPLACEMENT is U+FFFD");
	CHECK_DONE();
}
