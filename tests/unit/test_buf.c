/* Unit tests: gs_tbuf (buf.c), the capped growable text buffer. */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "check.h"

int main(void)
{
	gs_tbuf b = { 0 };
	char big[300];

	/* a zeroed buffer: default cap, grows, stays NUL-terminated */
	CHECK(gs_tbuf_max(&b) == GS_TBUF_MAX, "tbuf: { 0 } has the default cap");
	gs_tbuf_puts(&b, "ab");
	gs_tbuf_putc(&b, 'c');
	gs_tbuf_add(&b, "de", 2);
	gs_tbuf_printf(&b, "-%d-%s", 42, "x");
	CHECK(b.p != NULL && strcmp(b.p, "abcde-42-x") == 0 && b.len == 10 && !b.too_big,
	      "tbuf: puts, putc, add, printf append");
	memset(big, 'z', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	gs_tbuf_puts(&b, big);
	CHECK(b.len == 10 + 299 && b.p[b.len] == '\0' && b.cap > b.len, "tbuf: grows past its first block");
	gs_tbuf_add(&b, NULL, 0);
	CHECK(b.len == 309 && !b.too_big, "tbuf: adding nothing is fine");
	gs_tbuf_reset(&b);
	CHECK(b.len == 0 && b.p != NULL && b.p[0] == '\0' && b.cap > 0, "tbuf: reset keeps the memory");
	gs_tbuf_free(&b);
	CHECK(b.p == NULL && b.len == 0 && b.cap == 0, "tbuf: free zeroes");
	gs_tbuf_free(&b);
	CHECK(b.p == NULL, "tbuf: free is safe twice");

	/* a cap: the add that would pass it is dropped whole, and the flag sticks */
	gs_tbuf_init_max(&b, 8);
	CHECK(gs_tbuf_max(&b) == 8, "tbuf: init_max sets the cap");
	gs_tbuf_puts(&b, "12345");
	gs_tbuf_puts(&b, "678");
	CHECK(b.len == 8 && strcmp(b.p, "12345678") == 0 && !b.too_big, "tbuf cap: exactly the cap fits");
	gs_tbuf_putc(&b, '9');
	CHECK(b.too_big && b.len == 8 && strcmp(b.p, "12345678") == 0, "tbuf cap: one byte more sets too_big, text kept");
	gs_tbuf_reset(&b);
	gs_tbuf_puts(&b, "1234");
	gs_tbuf_puts(&b, "56789");
	CHECK(b.too_big && strcmp(b.p, "1234") == 0, "tbuf cap: a too long add is dropped whole");
	gs_tbuf_puts(&b, "x");
	CHECK(b.too_big && strcmp(b.p, "1234") == 0, "tbuf cap: sticky: later adds that would fit are dropped too");
	gs_tbuf_printf(&b, "%d", 1);
	CHECK(strcmp(b.p, "1234") == 0, "tbuf cap: printf is dropped too");
	gs_tbuf_reset(&b);
	CHECK(!b.too_big && gs_tbuf_max(&b) == 8, "tbuf cap: reset clears too_big, keeps the cap");
	gs_tbuf_printf(&b, "%s", "123456789");
	CHECK(b.too_big && b.len == 0, "tbuf cap: printf past the cap sets too_big");
	CHECK(b.cap <= 256, "tbuf cap: no more memory than a first block");
	gs_tbuf_free(&b);
	CHECK(gs_tbuf_max(&b) == GS_TBUF_MAX, "tbuf: free returns the cap to the default");

	gs_tbuf_init_max(&b, 0);
	CHECK(gs_tbuf_max(&b) == GS_TBUF_MAX, "tbuf: init_max 0 is the default cap");
	gs_tbuf_init_max(&b, (size_t)-1);
	CHECK(gs_tbuf_max(&b) == GS_TBUF_MAX, "tbuf: a cap above GS_TBUF_MAX is lowered to it");
	gs_tbuf_puts(&b, "ok");
	gs_tbuf_add(&b, "x", (size_t)-1);
	CHECK(b.too_big && strcmp(b.p, "ok") == 0, "tbuf: an add of SIZE_MAX bytes is refused, not wrapped");
	gs_tbuf_free(&b);

	/* a cap larger than the first block grows up to it exactly */
	gs_tbuf_init_max(&b, 1000);
	for (int i = 0; i < 1000; i++)
		gs_tbuf_putc(&b, 'a');
	CHECK(b.len == 1000 && !b.too_big && b.cap == 1001, "tbuf cap 1000: 1000 bytes fit, memory capped at 1001");
	gs_tbuf_putc(&b, 'a');
	CHECK(b.too_big && b.len == 1000, "tbuf cap 1000: the 1001st byte does not");
	gs_tbuf_free(&b);
	CHECK_DONE();
}
