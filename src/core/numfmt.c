/* gpusizer: decimal integers as text (see numfmt.h). */
#include "numfmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

size_t gs_fmt_u64(char *buf, uint64_t v)
{
	char t[GS_INT_CHARS];
	size_t n = 0, k = 0;

	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	while (n > 0)
		buf[k++] = t[--n];
	buf[k] = '\0';
	return k;
}

size_t gs_fmt_i64(char *buf, int64_t v)
{
	if (v >= 0)
		return gs_fmt_u64(buf, (uint64_t)v);
	buf[0] = '-';
	/* -(v + 1) + 1, so that INT64_MIN does not overflow */
	return 1 + gs_fmt_u64(buf + 1, (uint64_t)(-(v + 1)) + 1);
}

char *gs_fmt_f4(char *buf, size_t n, double v)
{
	double scaled = v * 1e4, r, frac;
	uint64_t q;
	char t[GS_INT_CHARS + 8], *p = t;
	size_t k;

	if (n == 0)
		return buf;
	/* Below 1e6 the product is within 2e-6 of v x 10^4, so rounding it
	 * gives printf's digits unless the exact value sits that near a tie. */
	frac = scaled - floor(scaled);
	if (!(fabs(v) < 1e6) || fabs(frac - 0.5) < 1e-4) {
		snprintf(buf, n, "%.4f", v);
		return buf;
	}
	r = fabs(floor(scaled + 0.5)); /* not a tie: nearest */
	q = (uint64_t)r;
	if (signbit(v))
		*p++ = '-';
	p += gs_fmt_u64(p, q / 10000);
	*p++ = '.';
	for (uint64_t d = 1000, f = q % 10000; d > 0; d /= 10)
		*p++ = (char)('0' + f / d % 10);
	*p = '\0';
	k = (size_t)(p - t);
	if (k >= n)
		k = n - 1;
	memcpy(buf, t, k);
	buf[k] = '\0';
	return buf;
}

bool gs_parse_i64(const char *s, size_t n, int64_t *out)
{
	uint64_t v = 0, lim;
	size_t i = 0;
	bool neg;

	if (s == NULL)
		return false;
	neg = n > 0 && s[0] == '-';
	i = neg ? 1 : 0;
	lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	if (i >= n || s[i] < '0' || s[i] > '9')
		return false;
	for (; i < n && s[i] != '\0'; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (s[i] < '0' || s[i] > '9' || v > (lim - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}
