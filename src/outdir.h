/* gpusizer: the output directory as one transaction (`gpusizer report`).
 * The writers write into a staging directory; commit moves the files into
 * the output directory, each rename atomic, after checking that nothing
 * stands in the way, then removes the files of ours that this run did not
 * produce; compare (--check) finds the files that differ instead; abort
 * removes the staging directory with whatever is left in it, so a failure
 * at any point leaves the previous output as it was.
 *
 * Between begin and abort, SIGINT, SIGTERM and SIGHUP are recorded, not
 * fatal, so that the staging directory is always removed: the caller polls
 * gs_outdir_stopped() and, after abort, gs_outdir_reraise() ends the
 * process by the signal caught. */
#ifndef GS_OUTDIR_H
#define GS_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

/* One transaction. Owned by the caller (any storage); everything it points
 * to is owned by it and freed by gs_outdir_abort. */
typedef struct gs_outdir {
	char out[4096];  /* the output directory (copied by begin) */
	char tmp[4096];  /* the staging directory the writers write into; "" when none */
	char **files;    /* after commit or compare: the staged files, relative to
	                  * tmp (and out), sorted */
	size_t n_files;
	size_t removed;  /* after commit: old files of ours removed from out */
} gs_outdir;

/*
 * Start: t is reset, out copied, and a new staging directory created:
 * beside out (".<name>.tmp.<pid>.XXXXXX", so the renames of commit stay on
 * one file system; out's parent is created, and staging directories that a
 * killed run left there are removed) or, with check, in $TMPDIR (/tmp) for
 * compare. Installs the signal handlers (see above). GS_EIO naming the path
 * when the directory cannot be made. Call gs_outdir_abort afterwards in
 * every case, also when this fails.
 */
gs_err gs_outdir_begin(gs_outdir *t, const char *out, bool check, gs_error *e);

/* Move every staged file into out (see above) and record them in t->files
 * and the count of stale files removed in t->removed. A failure (GS_EIO)
 * before the first rename replaces nothing; one during the renames says how
 * many files were replaced. */
gs_err gs_outdir_commit(gs_outdir *t, gs_error *e);

/* One finding of compare: kind "missing", "stale" or "extra", and the path
 * in out. Borrowed for the call. */
typedef void (*gs_outdir_finding)(void *ud, const char *kind, const char *path);

/* Compare the staged files with out, calling found for each file that is
 * missing from out or differs, then each file in out that looks like ours
 * but was not produced now; *n_found gets the count. Records the staged
 * files in t->files. Changes nothing in out. */
gs_err gs_outdir_compare(gs_outdir *t, gs_outdir_finding found, void *ud, size_t *n_found,
                         gs_error *e);

/* End the transaction: remove the staging directory with what is left in
 * it (nothing after a commit) and free what t holds. Safe on a reset or
 * already ended t. The output directory is never touched. */
void gs_outdir_abort(gs_outdir *t);

/* The signal caught since gs_outdir_begin (SIGINT, SIGTERM or SIGHUP), 0
 * when none. */
int gs_outdir_stopped(void);

/* When a signal was caught: restore its default action and raise it (the
 * process ends by it, as if never caught). Call after gs_outdir_abort.
 * Returns when none was caught. */
void gs_outdir_reraise(void);

#endif
