/* gpusizer: UTF-8 and duplicate-key checks for JSON from outside. */
#include "jsoncheck.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		return n >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
	if (c >= 0xE0 && c <= 0xEF) {
		if (n < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80)
			return 0;
		if (c == 0xE0 && s[1] < 0xA0)
			return 0; /* overlong */
		if (c == 0xED && s[1] >= 0xA0)
			return 0; /* surrogate */
		return 3;
	}
	if (c >= 0xF0 && c <= 0xF4) {
		if (n < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80)
			return 0;
		if (c == 0xF0 && s[1] < 0x90)
			return 0; /* overlong */
		if (c == 0xF4 && s[1] >= 0x90)
			return 0; /* above U+10FFFF */
		return 4;
	}
	return 0;
}

typedef struct key {
	size_t obj;   /* which object */
	size_t off;   /* decoded key in the arena */
	size_t len;
	size_t line;
} key;

typedef struct scan {
	key *keys;
	size_t n, cap;
	char *arena;
	size_t alen, acap;
} scan;

static const char *g_arena; /* for qsort's comparator */

static int cmp_key(const void *pa, const void *pb)
{
	const key *a = pa, *b = pb;
	if (a->obj != b->obj)
		return a->obj < b->obj ? -1 : 1;
	size_t m = a->len < b->len ? a->len : b->len;
	int c = memcmp(g_arena + a->off, g_arena + b->off, m);
	if (c != 0)
		return c;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

static void arena_put(scan *sc, const char *p, size_t n)
{
	if (sc->alen + n > sc->acap) {
		sc->acap = (sc->alen + n) * 2 + 256;
		sc->arena = gs_xrealloc(sc->arena, sc->acap);
	}
	memcpy(sc->arena + sc->alen, p, n);
	sc->alen += n;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decode the string body at text[i] (after the opening quote) into the
 * arena; returns the index after the closing quote, or 0 on a syntax
 * problem (left to the parser). */
static size_t decode_string(scan *sc, const char *t, size_t len, size_t i, size_t *line)
{
	while (i < len && t[i] != '"') {
		if (t[i] == '\n')
			(*line)++;
		if (t[i] != '\\') {
			arena_put(sc, t + i, 1);
			i++;
			continue;
		}
		if (i + 1 >= len)
			return 0;
		char c = t[i + 1];
		i += 2;
		if (c == 'u') {
			unsigned cp = 0;
			if (i + 4 > len)
				return 0;
			for (int k = 0; k < 4; k++) {
				int h = hexval(t[i + k]);
				if (h < 0)
					return 0;
				cp = cp * 16 + (unsigned)h;
			}
			i += 4;
			char b[4];
			size_t nb;
			if (cp < 0x80) {
				b[0] = (char)cp;
				nb = 1;
			} else if (cp < 0x800) {
				b[0] = (char)(0xC0 | (cp >> 6));
				b[1] = (char)(0x80 | (cp & 0x3F));
				nb = 2;
			} else {
				b[0] = (char)(0xE0 | (cp >> 12));
				b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
				b[2] = (char)(0x80 | (cp & 0x3F));
				nb = 3;
			}
			arena_put(sc, b, nb);
		} else {
			char o = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c == 'b' ? '\b' : c == 'f' ? '\f' : c;
			arena_put(sc, &o, 1);
		}
	}
	return i < len ? i + 1 : 0;
}

gs_err gs_utf8_check(const char *text, size_t len, const char *path, gs_err code, gs_error *e)
{
	const unsigned char *u = (const unsigned char *)text;
	size_t line = 1;

	for (size_t i = 0; i < len;) {
		size_t k = utf8_len(u + i, len - i);
		if (k == 0)
			return gs_fail(e, code, "%s:%zu: not valid UTF-8 (byte 0x%02X at offset %zu): JSON must be UTF-8",
			               path, line, u[i], i);
		if (u[i] == '\n')
			line++;
		i += k;
	}
	return GS_OK;
}

#define MAX_DEPTH 1000

gs_err gs_json_check(const char *text, size_t len, const char *path, gs_err code, gs_error *e)
{
	size_t line = 1;
	scan sc = {0};
	/* stack: object id, or SIZE_MAX for an array */
	size_t stack[MAX_DEPTH];
	int depth = 0;
	size_t next_obj = 0;
	gs_err rc = GS_OK;

	if (gs_utf8_check(text, len, path, code, e) != GS_OK)
		return code;
	sc.acap = 64;
	sc.arena = gs_xmalloc(sc.acap); /* never NULL: empty keys compare at arena + 0 */
	int expect_key = 0;
	for (size_t i = 0; i < len;) {
		char c = text[i];
		if (c == '\n') {
			line++;
			i++;
		} else if (c == '{' || c == '[') {
			if (depth >= MAX_DEPTH)
				break; /* the parser reports the nesting */
			stack[depth++] = c == '{' ? next_obj++ : SIZE_MAX;
			expect_key = c == '{';
			i++;
		} else if (c == '}' || c == ']') {
			if (depth > 0)
				depth--;
			expect_key = 0;
			i++;
		} else if (c == ',') {
			expect_key = depth > 0 && stack[depth - 1] != SIZE_MAX;
			i++;
		} else if (c == '"') {
			size_t start = sc.alen, kline = line;
			size_t j = decode_string(&sc, text, len, i + 1, &line);
			if (j == 0)
				break;
			if (expect_key) {
				if (sc.n == sc.cap) {
					sc.cap = sc.cap ? sc.cap * 2 : 64;
					sc.keys = gs_xrealloc(sc.keys, sc.cap * sizeof *sc.keys);
				}
				sc.keys[sc.n++] = (key){stack[depth - 1], start, sc.alen - start, kline};
				expect_key = 0;
			} else {
				sc.alen = start; /* values are not kept */
			}
			i = j;
		} else {
			i++;
		}
	}
	if (sc.n > 1) {
		g_arena = sc.arena;
		qsort(sc.keys, sc.n, sizeof *sc.keys, cmp_key);
		for (size_t i = 1; i < sc.n; i++) {
			key *a = &sc.keys[i - 1], *b = &sc.keys[i];
			if (a->obj == b->obj && a->len == b->len && memcmp(sc.arena + a->off, sc.arena + b->off, a->len) == 0) {
				int shown = a->len > 80 ? 80 : (int)a->len;
				rc = gs_fail(e, code, "%s:%zu: duplicate key \"%.*s\" (first on line %zu): each key may appear once",
				             path, b->line, shown, sc.arena + a->off, a->line);
				break;
			}
		}
	}
	free(sc.keys);
	free(sc.arena);
	return rc;
}
