/* gpusizer: redaction of secrets in messages and stored text (redact.h). */
#include "redact.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_SECRETS 8
#define SECRET_MIN 4
#define SECRET_MAX 1024
#define WORK_STACK 4096 /* longer strings work in malloc'd buffers */
#define HF_TOKEN_MIN 10

static char secrets[MAX_SECRETS][SECRET_MAX];
static int n_secrets;

void gs_redact_secret(const char *s)
{
	size_t l = s != NULL ? strlen(s) : 0;

	if (l < SECRET_MIN || l >= SECRET_MAX || n_secrets == MAX_SECRETS)
		return;
	for (int i = 0; i < n_secrets; i++)
		if (strcmp(secrets[i], s) == 0)
			return;
	memcpy(secrets[n_secrets++], s, l + 1);
}

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool is_b64(char c)
{
	return is_alnum(c) || c == '+' || c == '/' || c == '=' || c == '-' || c == '_' || c == '.' ||
	       c == '~';
}

/* Where a URL written in text ends: at a character no URL holds. */
static bool ends_url(char c)
{
	return c == '\0' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '\'' ||
	       c == '<' || c == '>' || c == '`';
}

typedef struct out_buf {
	char *p;
	size_t len, cap; /* cap: bytes that may be written before the NUL */
} out_buf;

static void put(out_buf *o, const char *s, size_t n)
{
	if (n > o->cap - o->len)
		n = o->cap - o->len;
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

/* The rules, each at in[i]: it writes its replacement to o and returns how
 * many bytes of in it replaced, or 0 when it does not apply there. */

/* A registered secret -> "***". */
static size_t rule_secret(const char *in, size_t i, out_buf *o)
{
	for (int k = 0; k < n_secrets; k++) {
		size_t l = strlen(secrets[k]);
		if (strncmp(in + i, secrets[k], l) == 0) {
			put(o, "***", 3);
			return l;
		}
	}
	return 0;
}

/* "user:pass@" after "://" becomes "***@". The userinfo ends at the last
 * '@' before the host (RFC 3986, 3.2.1: the host follows the last '@'),
 * and a password may hold an unencoded '/', '?' or '#' that a strict
 * parser would take for the end of the authority: so the last '@' of the
 * whole URL counts, wherever it is. */
static size_t rule_userinfo(const char *in, size_t i, out_buf *o)
{
	size_t j = i + 3, at = 0;

	if (strncmp(in + i, "://", 3) != 0)
		return 0;
	for (; !ends_url(in[j]); j++)
		if (in[j] == '@')
			at = j;
	if (at == 0)
		return 0;
	put(o, "://***", 6);
	return at - i;
}

/* "hf_" and HF_TOKEN_MIN or more letters and digits, not inside a word ->
 * "hf_***". */
static size_t rule_hf_token(const char *in, size_t i, out_buf *o)
{
	size_t j = i + 3;

	if (strncmp(in + i, "hf_", 3) != 0 || (i > 0 && is_alnum(in[i - 1])))
		return 0;
	while (is_alnum(in[j]))
		j++;
	if (j - i - 3 < HF_TOKEN_MIN)
		return 0;
	put(o, "hf_***", 6);
	return j - i;
}

/* "Bearer X" / "Basic X" (any case, not inside a word; Basic with 8 or
 * more characters of base64) -> the word, its blanks and "***". */
static size_t rule_credential(const char *in, size_t i, out_buf *o)
{
	static const char *const schemes[] = {"bearer", "basic"};
	const char *s = in + i;

	if (i > 0 && is_alnum(in[i - 1]))
		return 0;
	for (size_t k = 0; k < sizeof schemes / sizeof schemes[0]; k++) {
		size_t wl = strlen(schemes[k]), j, v;
		if (strncasecmp(s, schemes[k], wl) != 0 || (s[wl] != ' ' && s[wl] != '\t'))
			continue;
		j = wl;
		while (s[j] == ' ' || s[j] == '\t')
			j++;
		v = j;
		while (is_b64(s[v]))
			v++;
		if (v - j < (k == 0 ? 1 : 8))
			continue;
		put(o, s, j);
		put(o, "***", 3);
		return v;
	}
	return 0;
}

/* The rule from in (NUL-terminated) into o. */
static void redact_into(const char *in, out_buf *o)
{
	size_t i = 0;

	while (in[i] != '\0') {
		size_t used = rule_secret(in, i, o);
		if (used == 0)
			used = rule_userinfo(in, i, o);
		if (used == 0)
			used = rule_hf_token(in, i, o);
		if (used == 0)
			used = rule_credential(in, i, o);
		if (used == 0) {
			put(o, in + i, 1);
			used = 1;
		}
		i += used;
	}
}

void gs_redact(char *s, size_t n)
{
	char in_stack[WORK_STACK], out_stack[WORK_STACK];
	size_t l;
	char *in, *res;
	out_buf o;

	if (s == NULL || n == 0)
		return;
	l = strnlen(s, n - 1);
	in = l < WORK_STACK ? in_stack : malloc(l + 1);
	res = n <= WORK_STACK ? out_stack : malloc(n);
	if (in == NULL || res == NULL) {
		/* no memory to redact it in: say nothing rather than a secret */
		memset(s, 0, n);
	} else {
		memcpy(in, s, l);
		in[l] = '\0';
		o = (out_buf){res, 0, n - 1};
		redact_into(in, &o);
		res[o.len] = '\0';
		memcpy(s, res, o.len + 1);
		memset(in, 0, l + 1);
		memset(res, 0, o.len + 1);
	}
	if (in != in_stack)
		free(in);
	if (res != out_stack)
		free(res);
}

/* The length of the control character at s (C0, DEL, or C1 as UTF-8:
 * C2 80..C2 9F), 0 when s does not start one. */
static size_t control_at(const unsigned char *s)
{
	if (s[0] < 0x20 || s[0] == 0x7f)
		return 1;
	if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 2;
	return 0;
}

bool gs_has_control(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++)
		if (control_at(p) > 0)
			return true;
	return false;
}

void gs_escape_controls(const char *in, char *out, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)in;
	size_t k = 0;

	if (n == 0)
		return;
	while (*p != '\0') {
		size_t c = control_at(p);
		unsigned cp = c == 2 ? p[1] : p[0];
		if (c == 0) {
			/* a whole UTF-8 sequence or nothing (the cut never splits one) */
			size_t len = 1;
			while ((p[len] & 0xc0) == 0x80 && len < 4)
				len++;
			if (k + len > n - 1)
				break;
			memcpy(out + k, p, len);
			k += len;
			p += len;
			continue;
		}
		if (k + (c == 2 ? 6 : 4) > n - 1)
			break;
		if (c == 2) {
			memcpy(out + k, "\\u00", 4);
			k += 4;
		} else {
			memcpy(out + k, "\\x", 2);
			k += 2;
		}
		out[k++] = hex[cp >> 4];
		out[k++] = hex[cp & 15];
		p += c;
	}
	out[k] = '\0';
}

void gs_text_safe(const char *s, char *out, size_t n)
{
	size_t l, room, r;
	char *red, *esc;

	if (n == 0)
		return;
	out[0] = '\0';
	if (s == NULL)
		return;
	l = strlen(s);
	room = 2 * l + 16; /* "a@" grows to "***@" */
	red = malloc(room);
	if (red == NULL)
		return; /* nothing rather than a secret */
	memcpy(red, s, l + 1);
	gs_redact(red, room);
	r = strlen(red);
	esc = malloc(6 * r + 16);
	if (esc != NULL) {
		gs_escape_controls(red, esc, 6 * r + 16);
		gs_escape_controls(esc, out, n); /* no control is left: the cut alone */
		memset(esc, 0, strlen(esc));
		free(esc);
	}
	memset(red, 0, r);
	free(red);
}
