/* gpusizer: a small text template engine for the Markdown reports. It
 * renders into a gs_tbuf (buf.h, included here for its callers).
 *
 * Data model: a tree of values (string, number, bool, list, map) that the
 * caller builds with gs_tv_*. A container owns what is added to it: adding a
 * value hands it over, and gs_tv_free on the root frees the whole tree.
 * Strings and keys are copied. Maps keep insertion order.
 *
 * Template syntax (see templates/README.md):
 *   {{ a.b }}        the value, escaped by the environment's escape function
 *   {{& a.b }}       the value, raw
 *   {{ "text" }}     a literal (escaped); {{& "{{" }} prints "{{"
 *   {% for x in a.list %} ... {% endfor %}   x, loop.index (1-based),
 *                    loop.first, loop.last, loop.length inside
 *   {% if [not] a.b %} ... {% elif [not] c %} ... {% else %} ... {% endif %}
 *   {% include "partials/legend.md.tmpl" %}   (limits GS_TMPL_MAX_DEPTH deep,
 *                    GS_TMPL_MAX_INCLUDES in all)
 *   {# comment #}
 * A {% %} or {# #} tag alone on its line takes the whole line with it (its
 * leading blanks and its newline), so block tags do not leave blank lines.
 * Truth: false, 0, "" and the empty list are false; everything else true.
 * Numbers print as integers when integral, else with 2 decimals; numbers
 * and bools are printed unescaped.
 * An unknown variable is an error (in output, if and for alike), as is
 * printing a list or a map. Every error is GS_ETEMPLATE with a message
 * "DIR/NAME:LINE: what", naming the template file that holds the tag.
 */
#ifndef GS_TEMPLATE_H
#define GS_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "err.h"

/* ---- values ---- */

typedef enum gs_tv_kind { GS_TV_STR = 0, GS_TV_NUM, GS_TV_BOOL, GS_TV_LIST, GS_TV_MAP } gs_tv_kind;

typedef struct gs_tval gs_tval;

/* Constructors return a new value the caller owns (until added to a list
 * or a map). Allocation failure exits. */
gs_tval *gs_tv_str(const char *s);            /* copies s (NULL = "") */
gs_tval *gs_tv_strn(const char *s, size_t n); /* copies n bytes */
gs_tval *gs_tv_num(double v);
gs_tval *gs_tv_bool(bool b);
gs_tval *gs_tv_list(void);
gs_tval *gs_tv_map(void);

/* Append v to a list / set key in a map (replacing an older value, which is
 * freed). Takes ownership of v; returns v (borrowed) for chaining. */
gs_tval *gs_tv_push(gs_tval *list, gs_tval *v);
gs_tval *gs_tv_set(gs_tval *map, const char *key, gs_tval *v);
/* Shorthands for gs_tv_set(map, key, gs_tv_str(s)) etc. */
gs_tval *gs_tv_set_str(gs_tval *map, const char *key, const char *s);
gs_tval *gs_tv_set_num(gs_tval *map, const char *key, double v);
gs_tval *gs_tv_set_bool(gs_tval *map, const char *key, bool b);

gs_tv_kind gs_tv_kind_of(const gs_tval *v);
/* Borrowed lookups: the value under key (NULL if none or not a map); the
 * list's length and i-th item. */
const gs_tval *gs_tv_get(const gs_tval *map, const char *key);
size_t gs_tv_len(const gs_tval *list);
const gs_tval *gs_tv_at(const gs_tval *list, size_t i);
const char *gs_tv_text(const gs_tval *v); /* a string's text, else NULL */

void gs_tv_free(gs_tval *v); /* the value and all it holds; NULL is fine */

/* ---- templates ---- */

#define GS_TMPL_MAX_DEPTH 16        /* nested includes */
#define GS_TMPL_MAX_NEST 64         /* nested for/if blocks in one template */
#define GS_TMPL_MAX_SIZE (1u << 20) /* bytes of one template file */
/* Per gs_tmpl_render call: include tags rendered in all (a shipped page
 * renders 3; a tree of 6 includes 14 deep would render 6^14), and bytes of
 * output (the largest shipped page is under 1 MiB). Past either the render
 * fails GS_ETEMPLATE naming the template, the line and the include chain
 * ("... (included from a:3 < page:5)"). */
#define GS_TMPL_MAX_INCLUDES 4096
#define GS_TMPL_MAX_OUTPUT ((size_t)256 << 20)
/* ... and steps: tags rendered plus loop iterations, so that nested loops
 * stop with an error even when they print nothing. The largest shipped
 * page, the default spec's index, takes about 18,000; a model page about
 * ten a row, so a one-model sweep of --max-rows' default million rows
 * fits too. */
#define GS_TMPL_MAX_STEPS ((uint64_t)1 << 24)

/* Appends the escaped form of s to out. */
typedef void (*gs_tmpl_escape_fn)(gs_tbuf *out, const char *s);

typedef struct gs_tmpl_env gs_tmpl_env;

/* A template environment: templates are read from dir/NAME on first use
 * and kept parsed until gs_tmpl_env_free. dir is copied. escape NULL means
 * gs_md_escape (Markdown). */
gs_tmpl_env *gs_tmpl_env_new(const char *dir, gs_tmpl_escape_fn escape);

/* Register a template from memory under name (text is copied); it takes
 * precedence over a file of the same name. Parse errors are reported here. */
gs_err gs_tmpl_env_add(gs_tmpl_env *env, const char *name, const char *text, gs_error *e);

/* Render template name with data (a map, borrowed) appending to out. On
 * error out may hold partial text; the caller discards it. */
gs_err gs_tmpl_render(gs_tmpl_env *env, const char *name, const gs_tval *data, gs_tbuf *out,
                      gs_error *e);

void gs_tmpl_env_free(gs_tmpl_env *env); /* NULL is fine */

/* A stop hook for every render in the process (NULL: none, the default):
 * a render calls stopped() before each include and every 256 nodes, and
 * when it returns non-zero fails GS_ETEMPLATE "DIR/NAME:LINE: rendering
 * stopped", so a SIGTERM is honoured in a long render. stopped must be
 * async-signal-safe to read (e.g. a volatile sig_atomic_t flag). */
void gs_tmpl_set_stop(int (*stopped)(void));

#endif
