/* gpusizer: the output directory as one transaction: a staging directory
 * beside it (or in $TMPDIR for --check), moved into place file by file, or
 * compared with it; removed whatever happens, signals included. */
#define _XOPEN_SOURCE 700
#include "outdir.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "util.h"

static volatile sig_atomic_t g_stop;

static void on_stop(int sig)
{
	g_stop = sig;
}

/* ---- files ---- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void rm_tree(const char *dir)
{
	if (dir != NULL && dir[0] != '\0')
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

typedef struct file_list {
	char **v;
	size_t n, cap;
} file_list;

static void fl_free(file_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof *l);
}

static void fl_add(file_list *l, const char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = gs_xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = gs_xstrdup(s);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static file_list *g_walk_list;
static size_t g_walk_root;

static int walk_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_F && strlen(path) > g_walk_root)
		fl_add(g_walk_list, path + g_walk_root + 1);
	return 0;
}

/* Files under dir (relative paths, sorted). */
static void list_files(const char *dir, file_list *l)
{
	g_walk_list = l;
	g_walk_root = strlen(dir);
	nftw(dir, walk_entry, 16, FTW_PHYS);
	if (l->n > 1)
		qsort(l->v, l->n, sizeof *l->v, cmp_str);
}

static bool same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	bool same = fa != NULL && fb != NULL;
	char ba[65536], bb[65536];

	while (same) {
		size_t na = fread(ba, 1, sizeof ba, fa), nb = fread(bb, 1, sizeof bb, fb);
		if (na != nb || memcmp(ba, bb, na) != 0)
			same = false;
		if (na == 0 || na < sizeof ba)
			break;
	}
	if (same && (ferror(fa) || ferror(fb)))
		same = false;
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/* Directory part of a relative path ("" for a top-level file). */
static size_t dir_len(const char *rel)
{
	const char *s = strrchr(rel, '/');

	return s ? (size_t)(s - rel) : 0;
}

/* An out/ file counts as ours (stale when not generated now) when it sits
 * in a subdirectory the writers fill now (models/, html/models/...) and
 * has an extension of a file generated there: never a model cache file
 * such as models/<org>--<name>/config.json, never a top-level file. */
static bool generated_dir(const file_list *gen, const char *rel)
{
	size_t dl = dir_len(rel);
	const char *ext = strrchr(rel + dl, '.');

	if (dl == 0 || ext == NULL)
		return false;
	for (size_t i = 0; i < gen->n; i++) {
		const char *g = gen->v[i], *gext;
		if (dir_len(g) != dl || strncmp(g, rel, dl) != 0)
			continue;
		gext = strrchr(g + dl, '.');
		if (gext != NULL && strcmp(gext, ext) == 0)
			return true;
	}
	return false;
}

static bool in_files(const file_list *l, const char *rel)
{
	return bsearch(&rel, l->v, l->n, sizeof *l->v, cmp_str) != NULL;
}

/* Files in out/ that look like ours (generated_dir) but were not produced now. */
static void extras(const char *out, const file_list *gen, file_list *extra)
{
	file_list have = { 0 };

	list_files(out, &have);
	for (size_t i = 0; i < have.n; i++)
		if (generated_dir(gen, have.v[i]) && !in_files(gen, have.v[i]) &&
		    strstr(have.v[i], ".tmp.") == NULL)
			fl_add(extra, have.v[i]);
	fl_free(&have);
}

static gs_err parent_dirs(const char *path, gs_error *e)
{
	char dir[4096];
	char *slash;

	snprintf(dir, sizeof dir, "%s", path);
	slash = strrchr(dir, '/');
	if (slash == NULL || slash == dir)
		return GS_OK;
	*slash = '\0';
	return gs_mkdirs(dir, e);
}

/* Moves every staged file into out (each rename atomic), after checking
 * that nothing stands in the way; then removes out files under generated
 * directories that this run did not produce. */
static gs_err install(const char *tmp, const char *out, const file_list *gen, size_t *n_removed,
                      gs_error *e)
{
	char src[4096], dst[4096];
	file_list extra = { 0 };
	gs_err rc;

	if ((rc = gs_mkdirs(out, e)) != GS_OK)
		return rc;
	for (size_t i = 0; i < gen->n; i++) {
		if ((rc = gs_path_join(dst, sizeof dst, out, gen->v[i], NULL, e)) != GS_OK)
			return rc;
		if (gs_is_dir(dst))
			return gs_fail(e, GS_EIO, "%s: is a directory; nothing was replaced", dst);
		if ((rc = parent_dirs(dst, e)) != GS_OK)
			return rc;
		if (access(dst, F_OK) == 0 && access(dst, W_OK) != 0 && errno == EROFS)
			return gs_fail(e, GS_EIO, "%s: read-only file system; nothing was replaced", dst);
	}
	for (size_t i = 0; i < gen->n; i++) {
		if ((rc = gs_path_join(src, sizeof src, tmp, gen->v[i], NULL, e)) != GS_OK ||
		    (rc = gs_path_join(dst, sizeof dst, out, gen->v[i], NULL, e)) != GS_OK)
			return rc;
		if (rename(src, dst) != 0)
			return gs_fail(e, GS_EIO, "%s: cannot move into place: %s (%zu of %zu files replaced)",
			               dst, strerror(errno), i, gen->n);
	}
	extras(out, gen, &extra);
	for (size_t i = 0; i < extra.n; i++)
		if (gs_path_join(dst, sizeof dst, out, extra.v[i], NULL, e) == GS_OK && unlink(dst) == 0)
			(*n_removed)++;
	fl_free(&extra);
	return GS_OK;
}


/* ---- the transaction ---- */

/* Removes temporary directories a killed run (SIGKILL, power loss) left
 * beside out/: ".<base>.tmp.<pid>.XXXXXX" whose process is gone. */
static void sweep_stale_tmp(const char *parent, const char *base)
{
	DIR *d = opendir(parent);
	struct dirent *de;
	char prefix[512];
	size_t pl;

	if (d == NULL)
		return;
	snprintf(prefix, sizeof prefix, ".%.*s.tmp.", (int)strcspn(base, "/"), base);
	pl = strlen(prefix);
	while ((de = readdir(d)) != NULL) {
		char *end;
		long pid;
		char path[4096];
		if (strncmp(de->d_name, prefix, pl) != 0)
			continue;
		pid = strtol(de->d_name + pl, &end, 10);
		if (pid <= 0 || *end != '.' || pid == (long)getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if (snprintf(path, sizeof path, "%s/%s", parent, de->d_name) < (int)sizeof path)
			rm_tree(path);
	}
	closedir(d);
}

/* The staging directory's name: in $TMPDIR for a check, else beside out. */
static gs_err make_tmp(gs_outdir *t, bool check, gs_error *e)
{
	char parent[4096];
	const char *base, *slash;
	gs_err rc;

	if (check) {
		const char *td = getenv("TMPDIR");
		if (td == NULL || td[0] == '\0')
			td = "/tmp";
		snprintf(t->tmp, sizeof t->tmp, "%s/gpusizer-check.XXXXXX", td);
	} else {
		slash = strrchr(t->out, '/');
		if (slash == NULL) {
			snprintf(parent, sizeof parent, ".");
			base = t->out;
		} else {
			size_t n = (size_t)(slash - t->out);
			snprintf(parent, sizeof parent, "%.*s", (int)(n ? n : 1), t->out);
			base = slash + 1;
		}
		if ((rc = gs_mkdirs(parent, e)) != GS_OK)
			return rc;
		sweep_stale_tmp(parent, base);
		if (snprintf(t->tmp, sizeof t->tmp, "%s/.%.*s.tmp.%ld.XXXXXX", parent,
		             (int)strcspn(base, "/"), base, (long)getpid()) >= (int)sizeof t->tmp) {
			t->tmp[0] = '\0';
			return gs_fail(e, GS_EIO, "%s: path too long", t->out);
		}
	}
	if (mkdtemp(t->tmp) == NULL) {
		int err = errno;
		char msg[4096];
		snprintf(msg, sizeof msg, "%s", t->tmp);
		t->tmp[0] = '\0';
		return gs_fail(e, GS_EIO, "%s: cannot create the temporary directory: %s", msg,
		               strerror(err));
	}
	return GS_OK;
}

static void install_signals(const char *tmp)
{
	struct sigaction sa;
	gs_atomic probe;
	gs_error ignore = { 0 };
	char path[4096];

	/* util.c installs its own handlers on the first atomic open; open one
	 * first so that ours, installed after, are the ones in force. */
	if (snprintf(path, sizeof path, "%s/.probe", tmp) < (int)sizeof path &&
	    gs_atomic_open(&probe, path, &ignore) == GS_OK)
		gs_atomic_abort(&probe);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

gs_err gs_outdir_begin(gs_outdir *t, const char *out, bool check, gs_error *e)
{
	sigset_t block, old_mask;
	gs_err rc;

	memset(t, 0, sizeof *t);
	if (snprintf(t->out, sizeof t->out, "%s", out) >= (int)sizeof t->out)
		return gs_fail(e, GS_EIO, "%s: path too long", out);
	/* Signals wait while the staging directory appears and our handlers go
	 * in, so that a stop at any moment removes it. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old_mask);
	rc = make_tmp(t, check, e);
	if (rc == GS_OK)
		install_signals(t->tmp);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	return rc;
}

/* Record the staged files in t->files (once). */
static file_list staged(gs_outdir *t)
{
	file_list gen = { t->files, t->n_files, t->n_files };

	if (t->files == NULL) {
		list_files(t->tmp, &gen);
		t->files = gen.v;
		t->n_files = gen.n;
	}
	return gen;
}

gs_err gs_outdir_commit(gs_outdir *t, gs_error *e)
{
	file_list gen = staged(t);

	t->removed = 0;
	return install(t->tmp, t->out, &gen, &t->removed, e);
}

gs_err gs_outdir_compare(gs_outdir *t, gs_outdir_finding found, void *ud, size_t *n_found,
                         gs_error *e)
{
	file_list gen = staged(t), extra = { 0 };
	char a[4096], b[4096];
	struct stat st;

	*n_found = 0;
	for (size_t i = 0; i < gen.n; i++) {
		if (gs_path_join(a, sizeof a, t->tmp, gen.v[i], NULL, e) != GS_OK ||
		    gs_path_join(b, sizeof b, t->out, gen.v[i], NULL, e) != GS_OK)
			return GS_EIO;
		if (stat(b, &st) != 0) {
			found(ud, "missing", b);
			(*n_found)++;
		} else if (!same_file(a, b)) {
			found(ud, "stale", b);
			(*n_found)++;
		}
	}
	extras(t->out, &gen, &extra);
	for (size_t i = 0; i < extra.n; i++) {
		if (gs_path_join(b, sizeof b, t->out, extra.v[i], NULL, e) != GS_OK) {
			fl_free(&extra);
			return GS_EIO;
		}
		found(ud, "extra", b);
		(*n_found)++;
	}
	fl_free(&extra);
	return GS_OK;
}

void gs_outdir_abort(gs_outdir *t)
{
	file_list gen = { t->files, t->n_files, t->n_files };

	if (t->tmp[0] != '\0')
		rm_tree(t->tmp);
	t->tmp[0] = '\0';
	fl_free(&gen);
	t->files = NULL;
	t->n_files = 0;
}

int gs_outdir_stopped(void)
{
	return (int)g_stop;
}

void gs_outdir_reraise(void)
{
	int sig = (int)g_stop;

	if (sig == 0)
		return;
	signal(sig, SIG_DFL);
	raise(sig);
}
