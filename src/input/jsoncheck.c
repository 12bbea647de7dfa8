/* gpusizer: UTF-8 and duplicate-key checks for JSON from outside. */
#include "jsoncheck.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"
#include "util.h"

#define NONE SIZE_MAX

typedef struct key {
	size_t obj;   /* which object */
	size_t off;   /* decoded key in the arena */
	size_t len;
	size_t line;
	size_t pos;   /* offset of its opening quote in the text */
} key;

typedef struct scan {
	key *keys;      /* in text order */
	size_t n, cap;
	size_t *holder; /* per object: the key whose value holds it, or NONE */
	size_t nobj, objcap;
	char *arena;
	size_t alen, acap;
} scan;

/* For qsort's comparator. */
static const char *g_arena;
static const key *g_keys;

/* Orders key indices by (object, key bytes, position). */
static int cmp_key(const void *pa, const void *pb)
{
	const key *a = &g_keys[*(const size_t *)pa], *b = &g_keys[*(const size_t *)pb];
	if (a->obj != b->obj)
		return a->obj < b->obj ? -1 : 1;
	size_t m = a->len < b->len ? a->len : b->len;
	int c = memcmp(g_arena + a->off, g_arena + b->off, m);
	if (c != 0)
		return c;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
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
			arena_put(sc, b, gs_utf8_encode(cp, b)); /* one \uXXXX alone, as cJSON compares keys */
		} else {
			char o = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c == 'b' ? '\b' : c == 'f' ? '\f' : c;
			arena_put(sc, &o, 1);
		}
	}
	return i < len ? i + 1 : 0;
}

gs_err gs_utf8_check(const char *text, size_t len, const char *path, gs_err code, gs_error *e)
{
	size_t bad = gs_utf8_invalid_at(text, len), line = 1;

	if (bad == len)
		return GS_OK;
	for (size_t i = 0; i < bad; i++)
		line += text[i] == '\n';
	return gs_fail(e, code, "%s:%zu: not valid UTF-8 (byte 0x%02X at offset %zu): JSON must be UTF-8",
	               path, line, (unsigned char)text[bad], bad);
}

#define MAX_DEPTH GS_JSON_MAX_DEPTH

/* One open container: its object id (NONE for an array), the key whose
 * value it is (NONE at the top), and its latest key (objects). */
typedef struct frame {
	size_t obj, hold, last;
} frame;

/* Fills sc with every key of text, in text order, and each object's
 * holder. Returns the offset of the bracket that opens level MAX_DEPTH + 1
 * (the scan stops there), else NONE. */
static size_t collect(scan *sc, const char *text, size_t len)
{
	frame stack[MAX_DEPTH];
	size_t line = 1;
	int depth = 0;
	int expect_key = 0;

	for (size_t i = 0; i < len;) {
		char c = text[i];
		if (c == '\n') {
			line++;
			i++;
		} else if (c == '{' || c == '[') {
			frame *f;
			if (depth >= MAX_DEPTH)
				return i;
			f = &stack[depth];
			f->hold = NONE; /* in an object: its latest key; in an array: the array's */
			if (depth > 0)
				f->hold = stack[depth - 1].obj != NONE ? stack[depth - 1].last : stack[depth - 1].hold;
			f->last = NONE;
			f->obj = NONE;
			if (c == '{') {
				if (sc->nobj == sc->objcap) {
					sc->objcap = sc->objcap ? sc->objcap * 2 : 64;
					sc->holder = gs_xrealloc(sc->holder, sc->objcap * sizeof *sc->holder);
				}
				f->obj = sc->nobj;
				sc->holder[sc->nobj++] = f->hold;
			}
			depth++;
			expect_key = c == '{';
			i++;
		} else if (c == '}' || c == ']') {
			if (depth > 0)
				depth--;
			expect_key = 0;
			i++;
		} else if (c == ',') {
			expect_key = depth > 0 && stack[depth - 1].obj != NONE;
			i++;
		} else if (c == '"') {
			size_t start = sc->alen, kline = line;
			size_t j = decode_string(sc, text, len, i + 1, &line);
			if (j == 0)
				break;
			if (expect_key) {
				if (sc->n == sc->cap) {
					sc->cap = sc->cap ? sc->cap * 2 : 64;
					sc->keys = gs_xrealloc(sc->keys, sc->cap * sizeof *sc->keys);
				}
				stack[depth - 1].last = sc->n;
				sc->keys[sc->n++] = (key){stack[depth - 1].obj, start, sc->alen - start, kline, i};
				expect_key = 0;
			} else {
				sc->alen = start; /* values are not kept */
			}
			i = j;
		} else {
			i++;
		}
	}
	return NONE;
}

/* Append s[0..len) at dst + *at, cut so dst[0..n) stays NUL-terminated. */
static void path_put(char *dst, size_t n, size_t *at, const char *s, size_t len)
{
	if (len > n - 1 - *at)
		len = n - 1 - *at;
	memcpy(dst + *at, s, len);
	*at += len;
	dst[*at] = '\0';
}

/* The dotted path of key k: its holders' keys from the top, then k. */
static void key_path(const scan *sc, size_t k, char *dst, size_t n)
{
	size_t chain[MAX_DEPTH + 1], nc = 0, at = 0;

	dst[0] = '\0';
	for (size_t h = k; h != NONE && nc < MAX_DEPTH + 1; h = sc->holder[sc->keys[h].obj])
		chain[nc++] = h;
	while (nc-- > 0) {
		const key *p = &sc->keys[chain[nc]];
		if (at > 0)
			path_put(dst, n, &at, ".", 1);
		path_put(dst, n, &at, sc->arena + p->off, p->len);
	}
}

bool gs_json_find_dup(const char *text, size_t len, gs_json_dup *d)
{
	scan sc = {0};
	size_t *order = NULL, best = NONE, prev = NONE;

	memset(d, 0, sizeof *d);
	sc.acap = 64;
	sc.arena = gs_xmalloc(sc.acap); /* never NULL: empty keys compare at arena + 0 */
	collect(&sc, text, len); /* past the nesting limit: the keys before it */
	if (sc.n > 1) {
		order = gs_xmalloc(sc.n * sizeof *order);
		for (size_t i = 0; i < sc.n; i++)
			order[i] = i;
		g_arena = sc.arena;
		g_keys = sc.keys;
		qsort(order, sc.n, sizeof *order, cmp_key);
		/* Equal keys of one object sit together, in text order: of each
		 * adjacent equal pair keep the one repeated earliest. */
		for (size_t i = 1; i < sc.n; i++) {
			const key *a = &sc.keys[order[i - 1]], *b = &sc.keys[order[i]];
			if (a->obj == b->obj && a->len == b->len &&
			    memcmp(sc.arena + a->off, sc.arena + b->off, a->len) == 0 &&
			    (best == NONE || b->pos < sc.keys[best].pos)) {
				best = order[i];
				prev = order[i - 1];
			}
		}
	}
	if (best != NONE) {
		const key *b = &sc.keys[best];
		size_t shown = b->len < sizeof d->key - 1 ? b->len : sizeof d->key - 1;
		d->line = b->line;
		d->first_line = sc.keys[prev].line;
		d->key_len = b->len;
		memcpy(d->key, sc.arena + b->off, shown);
		d->key[shown] = '\0';
		key_path(&sc, best, d->path, sizeof d->path);
	}
	free(order);
	free(sc.keys);
	free(sc.holder);
	free(sc.arena);
	return best != NONE;
}

static gs_err too_deep(const char *text, size_t at, const char *path, gs_err code, gs_error *e)
{
	size_t line = 1, col = 1;

	for (size_t i = 0; i < at; i++) {
		col++;
		if (text[i] == '\n') {
			line++;
			col = 1;
		}
	}
	return gs_fail(e, code, "%s: invalid JSON: nesting deeper than %d levels at line %zu, column %zu",
	               path, MAX_DEPTH, line, col);
}

gs_err gs_json_depth_check(const char *text, size_t len, const char *path, gs_err code, gs_error *e)
{
	scan sc = {0};
	size_t at = collect(&sc, text, len);

	free(sc.keys);
	free(sc.holder);
	free(sc.arena);
	return at == NONE ? GS_OK : too_deep(text, at, path, code, e);
}

gs_err gs_json_check(const char *text, size_t len, const char *path, gs_err code, gs_error *e)
{
	gs_json_dup d;

	if (gs_utf8_check(text, len, path, code, e) != GS_OK)
		return code;
	if (gs_json_find_dup(text, len, &d))
		return gs_fail(e, code, "%s:%zu: duplicate key \"%s\" (first on line %zu): each key may appear once",
		               path, d.line, d.key, d.first_line);
	return GS_OK;
}

size_t gs_json_infinity(const char *text, size_t len, char **out, size_t *first_line)
{
	static const char rep[] = "1e999";
	size_t n = 0, line = 1;
	char prev = '\0'; /* the last byte outside strings and whitespace */

	*out = NULL;
	*first_line = 0;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		if (c == '\n')
			line++;
		if (c == '"') { /* skip the string, escapes included */
			for (i++; i < len && text[i] != '"'; i++) {
				if (text[i] == '\\')
					i++;
				else if (text[i] == '\n')
					line++;
			}
			prev = '"';
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		if ((prev == ':' || prev == ',' || prev == '[') &&
		    (c == 'I' || (c == '-' && i + 1 < len && text[i + 1] == 'I'))) {
			size_t s = c == '-' ? i + 1 : i;
			bool end = s + 8 == len || (s + 8 < len && strchr(" \t\r\n,]}", text[s + 8]) != NULL);
			if (s + 8 <= len && memcmp(text + s, "Infinity", 8) == 0 && end) {
				if (*out == NULL) {
					*out = gs_xmalloc(len + 1);
					memcpy(*out, text, len);
					(*out)[len] = '\0';
					*first_line = line;
				}
				/* "1e999   " over "Infinity": same length, so lines and columns stay */
				memcpy(*out + s, rep, sizeof rep - 1);
				memset(*out + s + sizeof rep - 1, ' ', 8 - (sizeof rep - 1));
				n++;
				i = s + 7;
				prev = '0';
				continue;
			}
		}
		prev = c;
	}
	return n;
}
