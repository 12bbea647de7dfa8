/* gpusizer: the growable text buffer every writer shares, with a size cap.
 *
 * The caller owns the buffer; gs_tbuf_free releases it. A buffer starts
 * zeroed ({ 0 } or gs_tbuf_init) with the default cap GS_TBUF_MAX, or with
 * its own cap (gs_tbuf_init_max). An add that would take the text past the
 * cap is dropped whole and sets the sticky flag too_big; later adds are
 * dropped too, so the owner appends freely and checks too_big once at the
 * end (gs_tbuf_reset clears it). Allocation failure exits (gs_xrealloc). */
#ifndef GS_BUF_H
#define GS_BUF_H

#include <stdbool.h>
#include <stddef.h>

/* The default cap: 1 GiB of text, far beyond any report page. */
#define GS_TBUF_MAX ((size_t)1 << 30)

typedef struct gs_tbuf {
	char *p;      /* the text, NUL-terminated when non-NULL; owned */
	size_t len;   /* bytes of text, without the NUL */
	size_t cap;   /* bytes allocated at p */
	bool too_big; /* sticky: an add would have passed the cap */
	size_t max;   /* the cap on len; 0 means GS_TBUF_MAX */
} gs_tbuf;

/* A zeroed buffer with the default cap. */
void gs_tbuf_init(gs_tbuf *b);
/* A zeroed buffer whose text may hold at most max bytes (0: GS_TBUF_MAX;
 * larger than GS_TBUF_MAX is lowered to it). */
void gs_tbuf_init_max(gs_tbuf *b, size_t max);
/* The cap in effect, in bytes. */
size_t gs_tbuf_max(const gs_tbuf *b);

void gs_tbuf_add(gs_tbuf *b, const char *s, size_t n);
void gs_tbuf_puts(gs_tbuf *b, const char *s);
void gs_tbuf_putc(gs_tbuf *b, char c);
/* printf into the buffer. Use it for integers and strings only: doubles go
 * through gs_fmt_fixed (mdesc.h), which does not depend on the locale. */
void gs_tbuf_printf(gs_tbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gs_tbuf_reset(gs_tbuf *b); /* len = 0 and too_big = false; keeps the memory and the cap */
void gs_tbuf_free(gs_tbuf *b);  /* frees and zeroes (the cap back to the default); safe on a zeroed buffer */

#endif
