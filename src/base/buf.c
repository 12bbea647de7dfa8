/* gpusizer: gs_tbuf, the capped growable text buffer. */
#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void gs_tbuf_init(gs_tbuf *b)
{
	memset(b, 0, sizeof *b);
}

void gs_tbuf_init_max(gs_tbuf *b, size_t max)
{
	memset(b, 0, sizeof *b);
	b->max = max > GS_TBUF_MAX ? GS_TBUF_MAX : max;
}

size_t gs_tbuf_max(const gs_tbuf *b)
{
	return b->max == 0 || b->max > GS_TBUF_MAX ? GS_TBUF_MAX : b->max;
}

static bool tbuf_reserve(gs_tbuf *b, size_t extra)
{
	size_t max = gs_tbuf_max(b), need;

	if (b->too_big || extra > max - b->len) {
		b->too_big = true;
		return false;
	}
	need = b->len + extra + 1; /* <= max + 1 */
	if (need > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < need)
			cap = cap > max / 2 ? max + 1 : cap * 2;
		b->p = gs_xrealloc(b->p, cap);
		b->cap = cap;
	}
	return true;
}

void gs_tbuf_add(gs_tbuf *b, const char *s, size_t n)
{
	if (!tbuf_reserve(b, n))
		return;
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void gs_tbuf_puts(gs_tbuf *b, const char *s)
{
	gs_tbuf_add(b, s, strlen(s));
}

void gs_tbuf_putc(gs_tbuf *b, char c)
{
	gs_tbuf_add(b, &c, 1);
}

void gs_tbuf_printf(gs_tbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !tbuf_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void gs_tbuf_reset(gs_tbuf *b)
{
	b->len = 0;
	b->too_big = false;
	if (b->p)
		b->p[0] = '\0';
}

void gs_tbuf_free(gs_tbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}
