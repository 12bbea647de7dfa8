/* gpusizer: one command-line grammar for every command. Each command
 * describes its options once, in a gs_opt_cmd table; the same table drives
 * parsing (gs_opt_next), --help (gs_opt_usage), `gpusizer help --options`
 * (gs_opt_dump_json, which tools/man-options.py turns into the man page's
 * option lists) and the test that keeps README, --help and gpusizer.1 in
 * step with the code.
 *
 * The grammar: "--name VALUE" or "--name=VALUE" for an option that takes a
 * value; "--name" for a switch; "--name", "--no-name", "--name=true|false"
 * for a boolean setting; "-h", "-q", "-v" for --help, --quiet, --verbose;
 * "--" ends the options (what follows is positional); anything else not
 * starting with '-' (and "-" itself) is positional. An unknown option, a
 * missing or empty value and a value given to a switch are GS_EUSAGE with
 * one message naming the command and the option, and the nearest known
 * option when one is close. */
#ifndef GS_OPT_H
#define GS_OPT_H

#include <stdbool.h>
#include <stdio.h>

#include "err.h"

enum {
	GS_OPT_BOOL = 1u << 0, /* boolean: --name, --no-name, --name=true|false */
};

/* Ids every command shares (a command's own ids start at GS_OPT_OWN). */
enum {
	GS_OPT_HELP = 1,
	GS_OPT_QUIET,
	GS_OPT_VERBOSE,
	GS_OPT_JSON,
	GS_OPT_OWN = 100,
};

typedef struct gs_opt {
	const char *name;  /* long name without "--"; NULL ends a table */
	char short_name;   /* one-letter alias ('h', 'q', 'v'), or 0 */
	const char *arg;   /* value placeholder ("N", "FILE"); NULL: takes no value */
	unsigned flags;    /* GS_OPT_BOOL */
	int id;            /* what the command switches on */
	const char *help;  /* one help text; '\n' starts a continuation line */
} gs_opt;

typedef struct gs_opt_group {
	const char *title; /* "model", "settings", "output"...; NULL ends the list */
	const gs_opt *opts;
	const gs_opt *(*make)(void); /* when opts is NULL: builds the table (the settings') */
} gs_opt_group;

/* A group's options (its table, or the one make() builds). */
static inline const gs_opt *gs_opt_group_opts(const gs_opt_group *g)
{
	return g->opts != NULL ? g->opts : g->make();
}

typedef struct gs_opt_cmd {
	const char *name;           /* "estimate" */
	const char *synopsis;       /* the usage lines, without "usage: " */
	const char *about;          /* what the command does (a paragraph) */
	const gs_opt_group *groups; /* ends with {NULL, NULL} */
	const char *epilog;         /* environment, exit status; may be NULL */
} gs_opt_cmd;

/* The options every command takes: -h/--help, -q/--quiet, -v/--verbose. */
extern const gs_opt gs_opt_common[];

/* An iterator over argv[1..argc-1] (argv[0] is the command's name). */
typedef struct gs_opt_iter {
	int argc;
	char **argv;
	int i;
	bool dashdash; /* "--" seen: the rest is positional */
} gs_opt_iter;

void gs_opt_begin(gs_opt_iter *it, int argc, char **argv);

/*
 * The next argument. Returns 1 for an option (*opt set; *val its value,
 * "true"/"false" for a boolean, NULL for a switch), 2 for a positional
 * argument (*opt NULL, *val the argument), 0 at the end, -1 on a usage
 * error (e filled, GS_EUSAGE). Strings point into argv.
 */
int gs_opt_next(const gs_opt_cmd *c, gs_opt_iter *it, const gs_opt **opt, const char **val,
                gs_error *e);

/* Print "usage: ...", the about text and every group's options. */
void gs_opt_usage(const gs_opt_cmd *c, FILE *fp);

/* Every command's options as one JSON document:
 * {"commands":[{"name":..., "options":[{"name":..., "short":..., "arg":...,
 * "group":..., "help":...}]}]}. */
void gs_opt_dump_json(const gs_opt_cmd *const *cmds, size_t n, FILE *fp);

/* "GS_EUSAGE: CMD: <msg>" for a value an option does not take, with the
 * usage hint; returns GS_EUSAGE. */
gs_err gs_opt_bad_value(const gs_opt_cmd *c, const gs_opt *o, const char *val, const char *why,
                        gs_error *e);

/* Print a command's error ("gpusizer: ...") and return its exit status. */
int gs_cmd_usage_error(const gs_error *e);

#endif
