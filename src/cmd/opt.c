/* gpusizer: the option grammar shared by every command (see opt.h). */
#include "opt.h"

#include <stdarg.h>
#include <string.h>

#include "util.h"
#include "jw.h"

const gs_opt gs_opt_common[] = {
	{ "help", 'h', NULL, 0, GS_OPT_HELP, "this help" },
	{ "quiet", 'q', NULL, 0, GS_OPT_QUIET, "only errors on stderr (no progress or notes)" },
	{ "verbose", 'v', NULL, 0, GS_OPT_VERBOSE, "say on stderr which files were read and written" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

void gs_opt_begin(gs_opt_iter *it, int argc, char **argv)
{
	it->argc = argc;
	it->argv = argv;
	it->i = 1;
	it->dashdash = false;
}

static const gs_opt *find_long(const gs_opt_cmd *c, const char *name, size_t n)
{
	for (const gs_opt_group *g = c->groups; g->title != NULL; g++)
		for (const gs_opt *o = gs_opt_group_opts(g); o->name != NULL; o++)
			if (strlen(o->name) == n && strncmp(o->name, name, n) == 0)
				return o;
	return NULL;
}

static const gs_opt *find_short(const gs_opt_cmd *c, char ch)
{
	for (const gs_opt_group *g = c->groups; g->title != NULL; g++)
		for (const gs_opt *o = gs_opt_group_opts(g); o->name != NULL; o++)
			if (o->short_name == ch)
				return o;
	return NULL;
}

/* The known option nearest to name (at most 2 edits, or name a prefix of
 * exactly one option), or NULL. */
static const gs_opt *nearest(const gs_opt_cmd *c, const char *name, size_t n)
{
	const gs_opt *best = NULL, *prefix = NULL;
	size_t best_d = 3;
	int prefixes = 0;

	for (const gs_opt_group *g = c->groups; g->title != NULL; g++)
		for (const gs_opt *o = gs_opt_group_opts(g); o->name != NULL; o++) {
			size_t d = gs_edit_distance(name, n, o->name, false);
			if (d < best_d) {
				best_d = d;
				best = o;
			}
			if (n >= 3 && strncmp(o->name, name, n) == 0) {
				prefix = o;
				prefixes++;
			}
		}
	if (best == NULL && prefixes == 1)
		best = prefix;
	return best;
}

/* A usage error: e filled, -1 for gs_opt_next's caller. */
static int fail(gs_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(gs_error *e, const char *fmt, ...)
{
	char msg[sizeof e->msg];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	gs_fail(e, GS_EUSAGE, "%s", msg);
	return -1;
}

static int unknown(const gs_opt_cmd *c, const char *arg, const char *name, size_t n, gs_error *e)
{
	const gs_opt *near = n > 0 ? nearest(c, name, n) : NULL;

	if (near != NULL)
		gs_fail(e, GS_EUSAGE, "%s: unknown option '%s'; did you mean '--%s'? (try 'gpusizer %s --help')",
		        c->name, arg, near->name, c->name);
	else
		gs_fail(e, GS_EUSAGE, "%s: unknown option '%s' (try 'gpusizer %s --help')", c->name, arg,
		        c->name);
	return -1;
}

int gs_opt_next(const gs_opt_cmd *c, gs_opt_iter *it, const gs_opt **opt, const char **val,
                gs_error *e)
{
	const char *a, *name, *eq;
	const gs_opt *o;
	size_t n;
	bool negated = false;

	*opt = NULL;
	*val = NULL;
	if (it->i >= it->argc)
		return 0;
	a = it->argv[it->i++];
	if (it->dashdash || a[0] != '-' || a[1] == '\0') {
		*val = a;
		return 2;
	}
	if (strcmp(a, "--") == 0) {
		it->dashdash = true;
		return gs_opt_next(c, it, opt, val, e);
	}
	if (a[1] != '-') {
		/* A short option: exactly one letter. */
		if (a[2] != '\0' || (o = find_short(c, a[1])) == NULL)
			return unknown(c, a, a + 1, strlen(a + 1), e);
		*opt = o;
		if (o->arg != NULL) {
			if (it->i >= it->argc)
				goto missing;
			*val = it->argv[it->i++];
		} else if (o->flags & GS_OPT_BOOL) {
			*val = "true";
		}
		return 1;
	}
	name = a + 2;
	eq = strchr(name, '=');
	n = eq ? (size_t)(eq - name) : strlen(name);
	o = find_long(c, name, n);
	if (o == NULL && n > 3 && strncmp(name, "no-", 3) == 0) {
		o = find_long(c, name + 3, n - 3);
		if (o != NULL && !(o->flags & GS_OPT_BOOL))
			o = NULL;
		negated = o != NULL;
	}
	if (o == NULL) {
		char shown[80];
		snprintf(shown, sizeof shown, "--%.*s", (int)(n < 70 ? n : 70), name);
		return unknown(c, shown, name, n, e);
	}
	*opt = o;
	if (o->flags & GS_OPT_BOOL) {
		if (eq == NULL) {
			*val = negated ? "false" : "true";
			return 1;
		}
		if (negated)
			return fail(e, "%s: '--no-%s' takes no value", c->name, o->name);
		if (strcmp(eq + 1, "true") != 0 && strcmp(eq + 1, "false") != 0)
			return fail(e, "%s: '--%s=%s': expected true or false", c->name, o->name, eq + 1);
		*val = eq + 1;
		return 1;
	}
	if (o->arg == NULL) {
		if (eq != NULL)
			return fail(e, "%s: '--%s' takes no value (got '%s')", c->name, o->name, eq + 1);
		return 1;
	}
	if (eq != NULL) {
		*val = eq + 1;
	} else {
		if (it->i >= it->argc)
			goto missing;
		*val = it->argv[it->i++];
	}
	if ((*val)[0] == '\0')
		return fail(e, "%s: '--%s' needs a non-empty value (%s)", c->name, o->name, o->arg);
	return 1;
missing:
	return fail(e, "%s: '--%s' needs a value (%s)", c->name, (*opt)->name, (*opt)->arg);
}

gs_err gs_opt_bad_value(const gs_opt_cmd *c, const gs_opt *o, const char *val, const char *why,
                        gs_error *e)
{
	return gs_fail(e, GS_EUSAGE, "%s: --%s '%s': %s", c->name, o->name, val, why);
}

/* "  -q, --quiet" / "      --seq N" padded to the help column. */
#define HELP_COL 26

static void usage_line(const gs_opt *o, FILE *fp)
{
	char names[128];
	const char *h = o->help ? o->help : "";
	int w;

	if (o->short_name)
		w = snprintf(names, sizeof names, "  -%c, --%s%s%s", o->short_name, o->name,
		             o->arg ? " " : "", o->arg ? o->arg : "");
	else
		w = snprintf(names, sizeof names, "      --%s%s%s", o->name, o->arg ? " " : "",
		             o->arg ? o->arg : "");
	if (o->flags & GS_OPT_BOOL)
		w += snprintf(names + w, sizeof names - (size_t)w, ", --no-%s", o->name);
	fputs(names, fp);
	if (w + 1 >= HELP_COL) {
		fputc('\n', fp);
		w = 0;
	}
	for (;;) {
		const char *nl = strchr(h, '\n');
		size_t len = nl ? (size_t)(nl - h) : strlen(h);
		fprintf(fp, "%*s%.*s\n", HELP_COL - w, "", (int)len, h);
		if (nl == NULL)
			break;
		h = nl + 1;
		w = 0;
	}
}

void gs_opt_usage(const gs_opt_cmd *c, FILE *fp)
{
	fprintf(fp, "usage: %s\n", c->synopsis);
	if (c->about)
		fprintf(fp, "\n%s\n", c->about);
	for (const gs_opt_group *g = c->groups; g->title != NULL; g++) {
		fprintf(fp, "\n%s:\n", g->title);
		for (const gs_opt *o = gs_opt_group_opts(g); o->name != NULL; o++)
			usage_line(o, fp);
	}
	if (c->epilog)
		fprintf(fp, "\n%s", c->epilog);
}

void gs_opt_dump_json(const gs_opt_cmd *const *cmds, size_t n, FILE *fp)
{
	fputs("{\"commands\":[", fp);
	for (size_t k = 0; k < n; k++) {
		const gs_opt_cmd *c = cmds[k];
		bool first = true;
		fputs(k ? ",\n{\"name\":" : "\n{\"name\":", fp);
		gs_json_str(fp, c->name);
		fputs(",\"synopsis\":", fp);
		gs_json_str(fp, c->synopsis);
		fputs(",\"options\":[", fp);
		for (const gs_opt_group *g = c->groups; g->title != NULL; g++)
			for (const gs_opt *o = gs_opt_group_opts(g); o->name != NULL; o++) {
				char sh[2] = { o->short_name, 0 };
				fputs(first ? "\n {\"name\":" : ",\n {\"name\":", fp);
				first = false;
				gs_json_str(fp, o->name);
				fputs(",\"short\":", fp);
				if (o->short_name)
					gs_json_str(fp, sh);
				else
					fputs("null", fp);
				fputs(",\"arg\":", fp);
				if (o->arg)
					gs_json_str(fp, o->arg);
				else
					fputs("null", fp);
				fprintf(fp, ",\"bool\":%s,\"group\":", (o->flags & GS_OPT_BOOL) ? "true" : "false");
				gs_json_str(fp, g->title);
				fputs(",\"help\":", fp);
				gs_json_str(fp, o->help ? o->help : "");
				fputc('}', fp);
			}
		fputs("]}", fp);
	}
	fputs("\n]}\n", fp);
}

int gs_cmd_usage_error(const gs_error *e)
{
	gs_report_error(e);
	return gs_exit_code(e->code);
}
