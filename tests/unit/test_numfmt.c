/* gpusizer tests: numfmt's integers are what printf prints, at the edges
 * and for a million pseudo-random values of every magnitude. */
#include <inttypes.h>
#include <stdio.h>

#include "check.h"
#include "numfmt.h"

int main(void)
{
	static const int64_t edges[] = { 0, 1, -1, 9, 10, -10, 99, 100, 1000000007, INT64_MAX, INT64_MIN,
	                                 INT64_MIN + 1, INT64_MAX - 1, 4294967295LL, -4294967296LL };
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	size_t bad = 0, n = 0;
	char a[GS_INT_CHARS], b[64];

	for (size_t i = 0; i < sizeof edges / sizeof *edges; i++, n++) {
		size_t k = gs_fmt_i64(a, edges[i]);
		snprintf(b, sizeof b, "%" PRId64, edges[i]);
		bad += strcmp(a, b) != 0 || k != strlen(b);
		k = gs_fmt_u64(a, (uint64_t)edges[i]);
		snprintf(b, sizeof b, "%" PRIu64, (uint64_t)edges[i]);
		bad += strcmp(a, b) != 0 || k != strlen(b);
	}
	CHECK(bad == 0, "numfmt: 0, +-1, powers of ten, INT64_MIN/MAX and UINT64_MAX as printf prints them");
	for (int i = 0; i < 1000000; i++, n++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t u = x >> (x % 64); /* every magnitude */
		int64_t s = (int64_t)(x & 1 ? u : ~u);
		gs_fmt_u64(a, u);
		snprintf(b, sizeof b, "%" PRIu64, u);
		bad += strcmp(a, b) != 0;
		gs_fmt_i64(a, s);
		snprintf(b, sizeof b, "%" PRId64, s);
		bad += strcmp(a, b) != 0;
	}
	CHECK(bad == 0, "numfmt: %zu values, signed and unsigned, as printf prints them (%zu differ)", n, bad);

	/* %.4f: ties exact in binary (0.03125 -> 0.0312, half to even), a
	 * hair off them, small negatives (-0.0000), the fallback's ranges */
	static const double f4[] = { 0, -0.0, 0.03125, 0.09375, -0.03125, 1.00005, 0.99995, -0.00004, -0.00005,
	                             0.5, 0.99999, -0.99999, 123456.78905, 999999.99995, 1e6, -1e6, 1e300,
	                             0.1 + 0.2, 1.0 / 3, -2.0 / 3, 0.00015, 0.00025 };
	size_t fbad = 0, fn = 0;
	char fb[400], pb[400];
	for (size_t i = 0; i < sizeof f4 / sizeof *f4; i++, fn++) {
		gs_fmt_f4(fb, sizeof fb, f4[i]);
		snprintf(pb, sizeof pb, "%.4f", f4[i]);
		fbad += strcmp(fb, pb) != 0;
		if (strcmp(fb, pb) != 0)
			printf("  %.17g: got %s, want %s\n", f4[i], fb, pb);
	}
	for (int i = 0; i < 1000000; i++, fn++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* headroom-like values in (-200, 1], and every fourth one a
		 * multiple of 1/2^k near 4-digit ties */
		double d = (double)(x % 2000000001ULL) / 1e7 - 199.0;
		if (i % 4 == 0)
			d = (double)(int64_t)(x % 4000001ULL - 2000000) / 32768.0;
		gs_fmt_f4(fb, sizeof fb, d);
		snprintf(pb, sizeof pb, "%.4f", d);
		fbad += strcmp(fb, pb) != 0;
	}
	CHECK(fbad == 0, "numfmt: %zu reals as printf's %%.4f prints them (%zu differ)", fn, fbad);
	char tiny[4];
	gs_fmt_f4(tiny, sizeof tiny, 12.5);
	CHECK(strcmp(tiny, "12.") == 0, "numfmt: %%.4f cut to the buffer as snprintf cuts (\"%s\")", tiny);
	{
		static const char *const refused[] = { "", "-", " 8", "8 ", "+8", "1e3", "8:", "0x10", "9223372036854775808",
		                                   "-9223372036854775809", "１", NULL };
		int64_t v = 0;
		int wrong = 0;
		for (int i = 0; refused[i] != NULL; i++)
			wrong += gs_parse_i64(refused[i], SIZE_MAX, &v);
		CHECK(wrong == 0, "numfmt: gs_parse_i64 refuses blanks, signs but '-', exponents, overflow (%d accepted)",
		      wrong);
		CHECK(gs_parse_i64("9223372036854775807", SIZE_MAX, &v) && v == INT64_MAX &&
		      gs_parse_i64("-9223372036854775808", SIZE_MAX, &v) && v == INT64_MIN &&
		      gs_parse_i64("8:zero3", 1, &v) && v == 8 && gs_parse_i64("042", SIZE_MAX, &v) && v == 42,
		      "numfmt: gs_parse_i64 reads the 64-bit range and a prefix of given length");
	}
	CHECK_DONE();
}
