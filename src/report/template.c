/* gpusizer: the template engine (values, parser, renderer). */
#include "template.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mdesc.h"
#include "util.h"
#include "fileio.h"

/* -------------------------------------------------------------- values */

struct gs_tval {
	gs_tv_kind kind;
	char *s;         /* STR */
	double num;      /* NUM */
	bool b;          /* BOOL */
	size_t n, cap;   /* LIST, MAP */
	gs_tval **items; /* LIST items, MAP values */
	char **keys;     /* MAP keys */
};

static gs_tval *tv_new(gs_tv_kind k)
{
	gs_tval *v = gs_xcalloc(1, sizeof *v);
	v->kind = k;
	return v;
}

gs_tval *gs_tv_strn(const char *s, size_t n)
{
	gs_tval *v = tv_new(GS_TV_STR);
	v->s = gs_xmalloc(n + 1);
	if (n)
		memcpy(v->s, s, n);
	v->s[n] = '\0';
	return v;
}

gs_tval *gs_tv_str(const char *s)
{
	return s ? gs_tv_strn(s, strlen(s)) : gs_tv_strn("", 0);
}

gs_tval *gs_tv_num(double x)
{
	gs_tval *v = tv_new(GS_TV_NUM);
	v->num = x;
	return v;
}

gs_tval *gs_tv_bool(bool b)
{
	gs_tval *v = tv_new(GS_TV_BOOL);
	v->b = b;
	return v;
}

gs_tval *gs_tv_list(void)
{
	return tv_new(GS_TV_LIST);
}

gs_tval *gs_tv_map(void)
{
	return tv_new(GS_TV_MAP);
}

static void tv_grow(gs_tval *c)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 8;
		c->items = gs_xrealloc(c->items, c->cap * sizeof *c->items);
		if (c->kind == GS_TV_MAP)
			c->keys = gs_xrealloc(c->keys, c->cap * sizeof *c->keys);
	}
}

gs_tval *gs_tv_push(gs_tval *list, gs_tval *v)
{
	if (list == NULL || list->kind != GS_TV_LIST) {
		gs_tv_free(v);
		return NULL;
	}
	tv_grow(list);
	list->items[list->n++] = v;
	return v;
}

gs_tval *gs_tv_set(gs_tval *map, const char *key, gs_tval *v)
{
	size_t i;

	if (map == NULL || map->kind != GS_TV_MAP) {
		gs_tv_free(v);
		return NULL;
	}
	for (i = 0; i < map->n; i++) {
		if (strcmp(map->keys[i], key) == 0) {
			gs_tv_free(map->items[i]);
			map->items[i] = v;
			return v;
		}
	}
	tv_grow(map);
	map->keys[map->n] = gs_xstrdup(key);
	map->items[map->n++] = v;
	return v;
}

gs_tval *gs_tv_set_str(gs_tval *map, const char *key, const char *s)
{
	return gs_tv_set(map, key, gs_tv_str(s));
}

gs_tval *gs_tv_set_num(gs_tval *map, const char *key, double x)
{
	return gs_tv_set(map, key, gs_tv_num(x));
}

gs_tval *gs_tv_set_bool(gs_tval *map, const char *key, bool b)
{
	return gs_tv_set(map, key, gs_tv_bool(b));
}

gs_tv_kind gs_tv_kind_of(const gs_tval *v)
{
	return v->kind;
}

static const gs_tval *tv_getn(const gs_tval *map, const char *key, size_t klen)
{
	size_t i;

	if (map == NULL || map->kind != GS_TV_MAP)
		return NULL;
	for (i = 0; i < map->n; i++)
		if (strncmp(map->keys[i], key, klen) == 0 && map->keys[i][klen] == '\0')
			return map->items[i];
	return NULL;
}

const gs_tval *gs_tv_get(const gs_tval *map, const char *key)
{
	return tv_getn(map, key, strlen(key));
}

size_t gs_tv_len(const gs_tval *list)
{
	return list && list->kind == GS_TV_LIST ? list->n : 0;
}

const gs_tval *gs_tv_at(const gs_tval *list, size_t i)
{
	return list && list->kind == GS_TV_LIST && i < list->n ? list->items[i] : NULL;
}

const char *gs_tv_text(const gs_tval *v)
{
	return v && v->kind == GS_TV_STR ? v->s : NULL;
}

void gs_tv_free(gs_tval *v)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < v->n; i++) {
		gs_tv_free(v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->s);
	free(v);
}

static bool tv_truthy(const gs_tval *v)
{
	switch (v->kind) {
	case GS_TV_STR: return v->s[0] != '\0';
	case GS_TV_NUM: return v->num != 0;
	case GS_TV_BOOL: return v->b;
	case GS_TV_LIST: return v->n > 0;
	case GS_TV_MAP: return true;
	}
	return false;
}

/* ------------------------------------------------------------ the tree */

typedef enum nkind { N_TEXT, N_VAR, N_FOR, N_IF, N_INCLUDE } nkind;

typedef struct node node;
typedef struct nlist {
	node **v;
	size_t n, cap;
} nlist;

typedef struct branch {
	char *path; /* NULL: else */
	bool neg;
	int line;
	nlist body;
} branch;

struct node {
	nkind kind;
	int line;
	const char *text; /* TEXT: points into the template's source */
	size_t len;
	char *path;       /* VAR: path or literal; FOR: list path; INCLUDE: name */
	bool raw, literal;
	char *var;        /* FOR: the loop variable */
	nlist body;       /* FOR */
	branch *br;       /* IF */
	size_t nbr;
};

typedef struct tmpl {
	char *name;
	char *file;       /* "dir/name" for messages */
	char *src;
	nlist root;
	struct tmpl *next;
} tmpl;

struct gs_tmpl_env {
	char *dir;
	gs_tmpl_escape_fn esc;
	tmpl *list;
};

static void nlist_push(nlist *l, node *nd)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->v = gs_xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = nd;
}

static void node_free(node *nd);

static void nlist_free(nlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		node_free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof *l);
}

static void node_free(node *nd)
{
	size_t i;

	if (nd == NULL)
		return;
	free(nd->path);
	free(nd->var);
	nlist_free(&nd->body);
	for (i = 0; i < nd->nbr; i++) {
		free(nd->br[i].path);
		nlist_free(&nd->br[i].body);
	}
	free(nd->br);
	free(nd);
}

static void tmpl_free(tmpl *t)
{
	if (t == NULL)
		return;
	nlist_free(&t->root);
	free(t->name);
	free(t->file);
	free(t->src);
	free(t);
}

/* ---------------------------------------------------------- the lexer */

typedef enum tkind { T_TEXT, T_VAR, T_TAG } tkind;

typedef struct token {
	tkind kind;
	int line;
	const char *s; /* TEXT: the text; VAR/TAG: the content between the delimiters */
	size_t len;
} token;

typedef struct parser {
	const tmpl *t;
	token *tok;
	size_t ntok, cap, i;
	gs_error *e;
} parser;

static void tok_push(parser *p, tkind k, int line, const char *s, size_t len)
{
	if (k == T_TEXT && len == 0)
		return;
	if (p->ntok == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->tok = gs_xrealloc(p->tok, p->cap * sizeof *p->tok);
	}
	p->tok[p->ntok].kind = k;
	p->tok[p->ntok].line = line;
	p->tok[p->ntok].s = s;
	p->tok[p->ntok].len = len;
	p->ntok++;
}

static int count_nl(const char *s, size_t n)
{
	int c = 0;
	size_t i;

	for (i = 0; i < n; i++)
		c += s[i] == '\n';
	return c;
}

static gs_err lex(parser *p)
{
	const char *src = p->t->src;
	size_t n = strlen(src), pos = 0;
	int line = 1;

	while (pos < n) {
		const char *q = strchr(src + pos, '{');
		size_t at, end, cstart, b, a;
		char open, close;
		const char *c;
		int tline;

		while (q && q[1] != '{' && q[1] != '%' && q[1] != '#')
			q = strchr(q + 1, '{');
		if (q == NULL) {
			tok_push(p, T_TEXT, line, src + pos, n - pos);
			break;
		}
		at = (size_t)(q - src);
		open = q[1];
		close = open == '{' ? '}' : open;
		cstart = at + 2;
		tline = line + count_nl(src + pos, at - pos);
		c = src + cstart;
		for (;;) {
			c = strchr(c, close);
			if (c == NULL)
				return gs_fail(p->e, GS_ETEMPLATE, "%s:%d: unclosed '{%c' tag", p->t->file,
				               tline, open);
			if (c[1] == '}')
				break;
			c++;
		}
		end = (size_t)(c - src) + 2; /* just past the closing delimiter */
		b = at;
		a = end;
		if (open != '{') {
			/* A block tag or comment alone on its line takes the line. */
			while (b > pos && (src[b - 1] == ' ' || src[b - 1] == '\t'))
				b--;
			while (a < n && (src[a] == ' ' || src[a] == '\t' || src[a] == '\r'))
				a++;
			if ((b == 0 || src[b - 1] == '\n') && (a == n || src[a] == '\n')) {
				if (a < n)
					a++;
			} else {
				b = at;
				a = end;
			}
		}
		tok_push(p, T_TEXT, line, src + pos, b - pos);
		if (open == '{')
			tok_push(p, T_VAR, tline, src + cstart, (size_t)(c - src) - cstart);
		else if (open == '%')
			tok_push(p, T_TAG, tline, src + cstart, (size_t)(c - src) - cstart);
		line = tline + count_nl(src + at, a - at);
		pos = a;
	}
	return GS_OK;
}

/* --------------------------------------------------------- the parser */

/* Split a tag's content into words (at most 4); a "quoted" word keeps its
 * quotes. Returns the count, or -1 if there are too many or a quote is
 * unclosed. */
typedef struct word {
	const char *s;
	size_t len;
} word;

static int split_words(const char *s, size_t n, word *w, int max)
{
	size_t i = 0;
	int k = 0;

	for (;;) {
		size_t st;
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
			i++;
		if (i >= n)
			return k;
		if (k == max)
			return -1;
		st = i;
		if (s[i] == '"') {
			i++;
			while (i < n && s[i] != '"')
				i++;
			if (i >= n)
				return -1;
			i++;
		} else {
			while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
				i++;
		}
		w[k].s = s + st;
		w[k].len = i - st;
		k++;
	}
}

static bool word_is(const word *w, const char *lit)
{
	return w->len == strlen(lit) && memcmp(w->s, lit, w->len) == 0;
}

static bool valid_path(const char *s, size_t n)
{
	size_t i;
	bool seg = false;

	if (n == 0)
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (c == '.') {
			if (!seg)
				return false;
			seg = false;
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		           c == '_' || c == '-') {
			seg = true;
		} else {
			return false;
		}
	}
	return seg;
}

static bool valid_name(const char *s)
{
	const char *p;

	if (s[0] == '\0' || s[0] == '/')
		return false;
	for (p = s; *p; p++) {
		char c = *p;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.' || c == '/'))
			return false;
	}
	return strstr(s, "..") == NULL;
}

static char *dupn(const char *s, size_t n)
{
	char *d = gs_xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

static gs_err perr(parser *p, int line, const char *what, const char *s, size_t n)
{
	if (n > 60)
		n = 60;
	return gs_fail(p->e, GS_ETEMPLATE, "%s:%d: %s '%.*s'", p->t->file, line, what, (int)n, s);
}

static gs_err parse_seq(parser *p, nlist *out, int depth, word *stop, int *nstop, int *stop_line);

/* Parse "[not] PATH" from words w[0..k). */
static gs_err parse_cond(parser *p, const token *t, word *w, int k, char **path, bool *neg)
{
	int at = 0;

	*neg = false;
	if (k >= 1 && word_is(&w[0], "not")) {
		*neg = true;
		at = 1;
	}
	if (k != at + 1 || !valid_path(w[at].s, w[at].len))
		return perr(p, t->line, "bad condition in tag", t->s, t->len);
	*path = dupn(w[at].s, w[at].len);
	return GS_OK;
}

static gs_err parse_for(parser *p, const token *t, word *w, int k, nlist *out, int depth)
{
	node *nd;
	word sw[4];
	int ns = 0, sline = 0;
	gs_err err;

	if (k != 4 || !word_is(&w[2], "in") || !valid_path(w[1].s, w[1].len) ||
	    memchr(w[1].s, '.', w[1].len) || !valid_path(w[3].s, w[3].len))
		return perr(p, t->line, "expected {% for NAME in PATH %}, got", t->s, t->len);
	nd = gs_xcalloc(1, sizeof *nd);
	nd->kind = N_FOR;
	nd->line = t->line;
	nd->var = dupn(w[1].s, w[1].len);
	nd->path = dupn(w[3].s, w[3].len);
	nlist_push(out, nd);
	err = parse_seq(p, &nd->body, depth + 1, sw, &ns, &sline);
	if (err)
		return err;
	if (ns == 0)
		return gs_fail(p->e, GS_ETEMPLATE, "%s:%d: {%% for %%} without {%% endfor %%}",
		               p->t->file, t->line);
	if (!word_is(&sw[0], "endfor") || ns != 1)
		return perr(p, sline, "expected {% endfor %}, got", sw[0].s, sw[0].len);
	return GS_OK;
}

static gs_err parse_if(parser *p, const token *t, word *w, int k, nlist *out, int depth)
{
	node *nd = gs_xcalloc(1, sizeof *nd);
	word cur[4];
	int nc = k, line = t->line;
	gs_err err;

	memcpy(cur, w, sizeof cur);
	nd->kind = N_IF;
	nd->line = t->line;
	nlist_push(out, nd);
	for (;;) {
		branch *b;
		word sw[4];
		int ns = 0, sline = 0;

		nd->br = gs_xrealloc(nd->br, (nd->nbr + 1) * sizeof *nd->br);
		b = &nd->br[nd->nbr++];
		memset(b, 0, sizeof *b);
		b->line = line;
		if (word_is(&cur[0], "else")) {
			if (nc != 1)
				return perr(p, line, "bad tag", cur[0].s, cur[0].len);
		} else {
			err = parse_cond(p, t, cur + 1, nc - 1, &b->path, &b->neg);
			if (err)
				return err;
		}
		err = parse_seq(p, &b->body, depth + 1, sw, &ns, &sline);
		if (err)
			return err;
		if (ns == 0)
			return gs_fail(p->e, GS_ETEMPLATE, "%s:%d: {%% if %%} without {%% endif %%}",
			               p->t->file, t->line);
		if (word_is(&sw[0], "endif") && ns == 1)
			return GS_OK;
		if (b->path == NULL || !(word_is(&sw[0], "elif") || word_is(&sw[0], "else")))
			return perr(p, sline, "expected {% endif %}, got", sw[0].s, sw[0].len);
		memcpy(cur, sw, sizeof cur);
		nc = ns;
		line = sline;
		t = &p->tok[p->i - 1];
	}
}

/* Parse tokens until EOF (*nstop = 0) or a closing tag (endfor, endif,
 * elif, else), whose words are returned in stop. */
static gs_err parse_seq(parser *p, nlist *out, int depth, word *stop, int *nstop, int *stop_line)
{
	if (depth > GS_TMPL_MAX_NEST)
		return gs_fail(p->e, GS_ETEMPLATE, "%s:%d: blocks nested deeper than %d", p->t->file,
		               p->i < p->ntok ? p->tok[p->i].line : 0, GS_TMPL_MAX_NEST);
	*nstop = 0;
	while (p->i < p->ntok) {
		const token *t = &p->tok[p->i++];
		node *nd;
		word w[4];
		int k;
		gs_err err;

		if (t->kind == T_TEXT) {
			nd = gs_xcalloc(1, sizeof *nd);
			nd->kind = N_TEXT;
			nd->line = t->line;
			nd->text = t->s;
			nd->len = t->len;
			nlist_push(out, nd);
			continue;
		}
		if (t->kind == T_VAR) {
			const char *s = t->s;
			size_t n = t->len;
			bool raw = false;
			while (n && (*s == ' ' || *s == '\t'))
				s++, n--;
			if (n && *s == '&') {
				raw = true;
				s++, n--;
			}
			while (n && (*s == ' ' || *s == '\t'))
				s++, n--;
			while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
				n--;
			nd = gs_xcalloc(1, sizeof *nd);
			nd->kind = N_VAR;
			nd->line = t->line;
			nd->raw = raw;
			nlist_push(out, nd);
			if (n >= 2 && s[0] == '"' && s[n - 1] == '"' && !memchr(s + 1, '"', n - 2)) {
				nd->literal = true;
				nd->path = dupn(s + 1, n - 2);
			} else if (valid_path(s, n)) {
				nd->path = dupn(s, n);
			} else {
				return perr(p, t->line, "bad variable", t->s, t->len);
			}
			continue;
		}
		k = split_words(t->s, t->len, w, 4);
		if (k <= 0)
			return perr(p, t->line, "bad tag", t->s, t->len);
		if (word_is(&w[0], "endfor") || word_is(&w[0], "endif") || word_is(&w[0], "elif") ||
		    word_is(&w[0], "else")) {
			memcpy(stop, w, sizeof w);
			*nstop = k;
			*stop_line = t->line;
			return GS_OK;
		}
		if (word_is(&w[0], "for")) {
			err = parse_for(p, t, w, k, out, depth);
		} else if (word_is(&w[0], "if")) {
			err = parse_if(p, t, w, k, out, depth);
		} else if (word_is(&w[0], "include")) {
			if (k != 2 || w[1].len < 3 || w[1].s[0] != '"')
				return perr(p, t->line, "expected {% include \"NAME\" %}, got", t->s, t->len);
			nd = gs_xcalloc(1, sizeof *nd);
			nd->kind = N_INCLUDE;
			nd->line = t->line;
			nd->path = dupn(w[1].s + 1, w[1].len - 2);
			nlist_push(out, nd);
			if (!valid_name(nd->path))
				return perr(p, t->line, "bad template name", nd->path, strlen(nd->path));
			err = GS_OK;
		} else {
			return perr(p, t->line, "unknown tag", w[0].s, w[0].len);
		}
		if (err)
			return err;
	}
	return GS_OK;
}

static gs_err tmpl_parse(tmpl *t, gs_error *e)
{
	parser p;
	word sw[4];
	int ns = 0, sline = 0;
	gs_err err;

	memset(&p, 0, sizeof p);
	p.t = t;
	p.e = e;
	err = lex(&p);
	if (!err)
		err = parse_seq(&p, &t->root, 0, sw, &ns, &sline);
	if (!err && ns)
		err = perr(&p, sline, "unexpected tag", sw[0].s, sw[0].len);
	free(p.tok);
	return err;
}

/* ----------------------------------------------------- environment */

gs_tmpl_env *gs_tmpl_env_new(const char *dir, gs_tmpl_escape_fn escape)
{
	gs_tmpl_env *env = gs_xcalloc(1, sizeof *env);
	env->dir = gs_xstrdup(dir ? dir : ".");
	env->esc = escape ? escape : gs_md_escape;
	return env;
}

void gs_tmpl_env_free(gs_tmpl_env *env)
{
	tmpl *t, *nx;

	if (env == NULL)
		return;
	for (t = env->list; t; t = nx) {
		nx = t->next;
		tmpl_free(t);
	}
	free(env->dir);
	free(env);
}

static tmpl *tmpl_new(const gs_tmpl_env *env, const char *name, char *src)
{
	tmpl *t = gs_xcalloc(1, sizeof *t);
	size_t n = strlen(env->dir) + strlen(name) + 2;

	t->name = gs_xstrdup(name);
	t->file = gs_xmalloc(n);
	snprintf(t->file, n, "%s/%s", env->dir, name);
	t->src = src;
	return t;
}

static tmpl *env_find(const gs_tmpl_env *env, const char *name)
{
	tmpl *t;

	for (t = env->list; t; t = t->next)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

static gs_err env_insert(gs_tmpl_env *env, const char *name, char *src, tmpl **out, gs_error *e)
{
	tmpl *t = tmpl_new(env, name, src), **pp;
	gs_err err = tmpl_parse(t, e);

	if (err) {
		tmpl_free(t);
		return err;
	}
	/* Replace an older one of the same name. */
	for (pp = &env->list; *pp; pp = &(*pp)->next) {
		if (strcmp((*pp)->name, name) == 0) {
			tmpl *old = *pp;
			t->next = old->next;
			*pp = t;
			tmpl_free(old);
			*out = t;
			return GS_OK;
		}
	}
	t->next = env->list;
	env->list = t;
	*out = t;
	return GS_OK;
}

gs_err gs_tmpl_env_add(gs_tmpl_env *env, const char *name, const char *text, gs_error *e)
{
	tmpl *t;

	if (!valid_name(name))
		return gs_fail(e, GS_ETEMPLATE, "bad template name '%s'", name);
	return env_insert(env, name, gs_xstrdup(text), &t, e);
}

/* Find or load and parse a template; `from`/`line` name the include tag. */
static gs_err env_get(gs_tmpl_env *env, const char *name, const tmpl *from, int line, tmpl **out,
                      gs_error *e)
{
	gs_error re = { 0 };
	char *src = NULL, *path;
	size_t n;
	gs_err err;

	*out = env_find(env, name);
	if (*out)
		return GS_OK;
	n = strlen(env->dir) + strlen(name) + 2;
	path = gs_xmalloc(n);
	snprintf(path, n, "%s/%s", env->dir, name);
	err = valid_name(name) ? gs_read_file(path, GS_TMPL_MAX_SIZE, &src, NULL, &re) : GS_EINPUT;
	if (err) {
		if (from)
			gs_fail(e, GS_ETEMPLATE, "%s:%d: include \"%s\": %s", from->file, line, name,
			        re.msg[0] ? re.msg : "bad template name");
		else
			gs_fail(e, GS_ETEMPLATE, "template %s: %s", name,
			        re.msg[0] ? re.msg : "bad template name");
		free(path);
		return GS_ETEMPLATE;
	}
	free(path);
	return env_insert(env, name, src, out, e);
}

/* ---------------------------------------------------------- rendering */

typedef struct frame {
	const char *name;
	const gs_tval *val;
	const gs_tval *loop;
	const struct frame *up;
} frame;

/* The include tags being rendered, outermost first (for messages). */
typedef struct incl {
	const tmpl *from;
	int line;
} incl;

typedef struct rctx {
	gs_tmpl_env *env;
	const gs_tval *root;
	gs_tbuf *out;
	gs_error *e;
	size_t start;     /* out->len when the render began */
	size_t includes;  /* include tags rendered so far */
	unsigned ticks;   /* nodes rendered, for the stop hook's polling */
	uint64_t steps;   /* nodes rendered and loop iterations run (GS_TMPL_MAX_STEPS) */
	struct loop_vars *loops; /* the loop variable of each nesting level, made once a render */
	size_t n_loops, nest;
	incl chain[GS_TMPL_MAX_DEPTH + 1];
	int nchain;
} rctx;

static int (*g_stopped)(void);

void gs_tmpl_set_stop(int (*stopped)(void))
{
	g_stopped = stopped;
}

/* " (included from A:3 < B:5)": the open include tags, innermost first,
 * by template name (relative to the environment's directory). */
static void chain_text(const rctx *r, char *buf, size_t n)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = r->nchain - 1; i >= 0 && at + 1 < n; i--) {
		int k = snprintf(buf + at, n - at, "%s%s:%d", i == r->nchain - 1 ? " (included from " : " < ",
		                 r->chain[i].from->name, r->chain[i].line);
		if (k < 0)
			break;
		at += (size_t)k;
	}
	if (r->nchain > 0 && at + 1 < n)
		snprintf(buf + at, n - at, ")");
}

/* The step budget spent at line of t (nested loops multiply: 40 of them
 * over two items are 2^40 iterations, with or without output). */
static gs_err too_many_steps(rctx *r, const tmpl *t, int line)
{
	char via[480];

	chain_text(r, via, sizeof via);
	return gs_fail(r->e, GS_ETEMPLATE, "%s:%d: more than %llu steps (tags rendered and loop "
	               "iterations) in one page: nested loops that never end in practice%s", t->file, line,
	               (unsigned long long)GS_TMPL_MAX_STEPS, via);
}

/* A limit or the stop hook, checked before node nd of t is rendered. */
static gs_err render_limits(rctx *r, const tmpl *t, const node *nd)
{
	char via[480];

	if ((++r->ticks & 255u) == 0 || nd->kind == N_INCLUDE) {
		if (g_stopped != NULL && g_stopped())
			return gs_fail(r->e, GS_ETEMPLATE, "%s:%d: rendering stopped", t->file, nd->line);
	}
	if (r->out->len - r->start > GS_TMPL_MAX_OUTPUT) {
		chain_text(r, via, sizeof via);
		return gs_fail(r->e, GS_ETEMPLATE, "%s:%d: output larger than %zu bytes%s", t->file,
		               nd->line, GS_TMPL_MAX_OUTPUT, via);
	}
	if (++r->steps > GS_TMPL_MAX_STEPS)
		return too_many_steps(r, t, nd->line);
	if (nd->kind == N_INCLUDE && ++r->includes > GS_TMPL_MAX_INCLUDES) {
		chain_text(r, via, sizeof via);
		return gs_fail(r->e, GS_ETEMPLATE,
		               "%s:%d: include \"%s\": more than %d includes in one page%s",
		               t->file, nd->line, nd->path, GS_TMPL_MAX_INCLUDES, via);
	}
	return GS_OK;
}

static const gs_tval *lookup(const rctx *r, const frame *f, const char *path)
{
	const char *dot = strchr(path, '.');
	size_t n = dot ? (size_t)(dot - path) : strlen(path);
	const gs_tval *v = NULL;

	for (; f && v == NULL; f = f->up) {
		if (strlen(f->name) == n && memcmp(f->name, path, n) == 0)
			v = f->val;
		else if (f->loop && n == 4 && memcmp(path, "loop", 4) == 0)
			v = f->loop;
	}
	if (v == NULL)
		v = tv_getn(r->root, path, n);
	while (v && dot) {
		path = dot + 1;
		dot = strchr(path, '.');
		n = dot ? (size_t)(dot - path) : strlen(path);
		v = tv_getn(v, path, n);
	}
	return v;
}

static gs_err render_list(rctx *r, const tmpl *t, const nlist *l, const frame *f, int depth);

static gs_err unknown(rctx *r, const tmpl *t, int line, const char *path)
{
	return gs_fail(r->e, GS_ETEMPLATE, "%s:%d: unknown variable '%s'", t->file, line, path);
}

static gs_err render_var(rctx *r, const tmpl *t, const node *nd, const frame *f)
{
	const gs_tval *v = NULL;
	char num[64];
	const char *s;

	if (nd->literal) {
		s = nd->path;
	} else {
		v = lookup(r, f, nd->path);
		if (v == NULL)
			return unknown(r, t, nd->line, nd->path);
		switch (v->kind) {
		case GS_TV_STR: s = v->s; break;
		case GS_TV_BOOL: s = v->b ? "true" : "false"; break;
		case GS_TV_NUM:
			if (v->num == floor(v->num) && fabs(v->num) < 1e15)
				snprintf(num, sizeof num, "%lld", (long long)v->num);
			else
				gs_fmt_fixed(num, sizeof num, v->num, 2);
			s = num;
			break;
		default:
			return gs_fail(r->e, GS_ETEMPLATE, "%s:%d: '%s' is a %s, not printable", t->file,
			               nd->line, nd->path, v->kind == GS_TV_LIST ? "list" : "map");
		}
	}
	if (nd->raw || s == num || (!nd->literal && v->kind == GS_TV_BOOL))
		gs_tbuf_puts(r->out, s); /* numbers and bools are ours: never escaped */
	else
		r->env->esc(r->out, s);
	return GS_OK;
}

/* A loop's "loop" variable: the map and its members. */
typedef struct loop_vars {
	gs_tval *map, *idx, *first, *last, *len;
} loop_vars;

/* The loop variable for the current nesting level: made on the level's
 * first loop of the render and reused (a render of nested loops allocates
 * per level, not per loop entered). */
static loop_vars *loop_at(rctx *r)
{
	loop_vars *lv;

	if (r->nest == r->n_loops) {
		r->loops = gs_xrealloc(r->loops, (r->n_loops + 1) * sizeof *r->loops);
		lv = &r->loops[r->n_loops++];
		lv->map = gs_tv_map();
		lv->idx = gs_tv_set_num(lv->map, "index", 0);
		lv->first = gs_tv_set_bool(lv->map, "first", false);
		lv->last = gs_tv_set_bool(lv->map, "last", false);
		lv->len = gs_tv_set_num(lv->map, "length", 0);
	}
	return &r->loops[r->nest];
}

static gs_err render_for(rctx *r, const tmpl *t, const node *nd, const frame *f, int depth)
{
	const gs_tval *list = lookup(r, f, nd->path);
	gs_tval *idx, *first, *last;
	loop_vars *lv;
	frame fr;
	size_t i;
	gs_err err = GS_OK;

	if (list == NULL)
		return unknown(r, t, nd->line, nd->path);
	if (list->kind != GS_TV_LIST)
		return gs_fail(r->e, GS_ETEMPLATE, "%s:%d: '%s' is not a list", t->file, nd->line,
		               nd->path);
	if (list->n == 0)
		return GS_OK;
	lv = loop_at(r);
	idx = lv->idx;
	first = lv->first;
	last = lv->last;
	lv->len->num = (double)list->n;
	r->nest++;
	fr.name = nd->var;
	fr.loop = lv->map;
	fr.up = f;
	for (i = 0; i < list->n && !err; i++) {
		if (++r->steps > GS_TMPL_MAX_STEPS) {
			err = too_many_steps(r, t, nd->line);
			break;
		}
		if ((++r->ticks & 255u) == 0 && g_stopped != NULL && g_stopped()) {
			err = gs_fail(r->e, GS_ETEMPLATE, "%s:%d: rendering stopped", t->file, nd->line);
			break;
		}
		idx->num = (double)(i + 1);
		first->b = i == 0;
		last->b = i + 1 == list->n;
		fr.val = list->items[i];
		err = render_list(r, t, &nd->body, &fr, depth);
	}
	r->nest--;
	return err;
}

static gs_err render_list(rctx *r, const tmpl *t, const nlist *l, const frame *f, int depth)
{
	size_t i, j;
	gs_err err;

	for (i = 0; i < l->n; i++) {
		const node *nd = l->v[i];
		if (r->out->too_big)
			return gs_fail(r->e, GS_ETEMPLATE, "%s: output larger than %zu bytes", t->file,
			               gs_tbuf_max(r->out));
		err = render_limits(r, t, nd);
		if (err)
			return err;
		switch (nd->kind) {
		case N_TEXT:
			gs_tbuf_add(r->out, nd->text, nd->len);
			break;
		case N_VAR:
			err = render_var(r, t, nd, f);
			if (err)
				return err;
			break;
		case N_FOR:
			err = render_for(r, t, nd, f, depth);
			if (err)
				return err;
			break;
		case N_IF:
			for (j = 0; j < nd->nbr; j++) {
				const branch *b = &nd->br[j];
				if (b->path) {
					const gs_tval *v = lookup(r, f, b->path);
					if (v == NULL)
						return unknown(r, t, b->line, b->path);
					if (tv_truthy(v) == b->neg)
						continue;
				}
				err = render_list(r, t, &b->body, f, depth);
				if (err)
					return err;
				break;
			}
			break;
		case N_INCLUDE: {
			tmpl *inc;
			if (depth + 1 > GS_TMPL_MAX_DEPTH) {
				char via[480];
				chain_text(r, via, sizeof via);
				return gs_fail(r->e, GS_ETEMPLATE,
				               "%s:%d: include \"%s\": includes nested deeper than %d "
				               "(recursive include?)%s",
				               t->file, nd->line, nd->path, GS_TMPL_MAX_DEPTH, via);
			}
			err = env_get(r->env, nd->path, t, nd->line, &inc, r->e);
			if (err)
				return err;
			r->chain[r->nchain].from = t;
			r->chain[r->nchain].line = nd->line;
			r->nchain++;
			err = render_list(r, inc, &inc->root, f, depth + 1);
			r->nchain--;
			if (err)
				return err;
			break;
		}
		}
	}
	return GS_OK;
}

gs_err gs_tmpl_render(gs_tmpl_env *env, const char *name, const gs_tval *data, gs_tbuf *out,
                      gs_error *e)
{
	rctx r;
	tmpl *t;
	gs_err err;

	if (data == NULL || data->kind != GS_TV_MAP)
		return gs_fail(e, GS_EINTERNAL, "template %s: data is not a map", name);
	err = env_get(env, name, NULL, 0, &t, e);
	if (err)
		return err;
	memset(&r, 0, sizeof r);
	r.env = env;
	r.root = data;
	r.out = out;
	r.e = e;
	r.start = out->len;
	err = render_list(&r, t, &t->root, NULL, 0);
	for (size_t i = 0; i < r.n_loops; i++)
		gs_tv_free(r.loops[i].map);
	free(r.loops);
	if (!err && out->len - r.start > GS_TMPL_MAX_OUTPUT)
		err = gs_fail(e, GS_ETEMPLATE, "%s: output larger than %zu bytes", t->file,
		              GS_TMPL_MAX_OUTPUT);
	if (!err && out->too_big)
		err = gs_fail(e, GS_ETEMPLATE, "%s: output larger than %zu bytes", t->file,
		              gs_tbuf_max(out));
	return err;
}
