/* gpusizer: whole-file reads, atomic writes, path tests and joins. */
/* fopencookie (glibc): the gzip stream of gs_atomic_open_gz. */
#define _GNU_SOURCE
#include "fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "util.h"

gs_err gs_read_file(const char *path, size_t max, char **out, size_t *len, gs_error *e)
{
	FILE *fp;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	struct stat st;
	int fd;

	*out = NULL;
	if (len)
		*len = 0;
	/* O_NONBLOCK: opening a FIFO with no writer must not block; a regular
	 * file ignores the flag, and anything else is refused below. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return gs_fail(e, errno == ENOENT || errno == ENOTDIR ? GS_ENOFILE : GS_EIO, "%s: %s", path,
		               strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		int isdir = S_ISDIR(st.st_mode);
		close(fd);
		return gs_fail(e, GS_EINPUT, "%s: not a regular file (%s)", path,
		               isdir ? "a directory" : "a FIFO, socket or device");
	}
	fp = fdopen(fd, "rb");
	if (fp == NULL) {
		int err = errno;
		close(fd);
		return gs_fail(e, GS_EIO, "%s: %s", path, strerror(err));
	}
	for (;;) {
		size_t got;
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 65536;
			buf = gs_xrealloc(buf, cap + 1);
		}
		got = fread(buf + n, 1, cap - n, fp);
		n += got;
		if (n > max) {
			fclose(fp);
			free(buf);
			return gs_fail(e, GS_EINPUT, "%s: file larger than the %zu-byte limit", path, max);
		}
		if (got == 0)
			break;
	}
	if (ferror(fp)) {
		int err = errno;
		fclose(fp);
		free(buf);
		return gs_fail(e, GS_EIO, "%s: read error: %s", path, strerror(err));
	}
	fclose(fp);
	if (buf == NULL)
		buf = gs_xmalloc(1);
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return GS_OK;
}

/* Open temporaries, removed by the exit and signal handlers. */
#define MAX_OPEN_TMP 64
static char *open_tmp[MAX_OPEN_TMP];
static int handlers_installed;

static void cleanup_tmp(void)
{
	for (int i = 0; i < MAX_OPEN_TMP; i++)
		if (open_tmp[i] != NULL)
			unlink(open_tmp[i]);
}

static void on_signal(int sig)
{
	cleanup_tmp();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void track(char *tmp, bool add)
{
	if (!handlers_installed) {
		handlers_installed = 1;
		atexit(cleanup_tmp);
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		signal(SIGHUP, on_signal);
	}
	for (int i = 0; i < MAX_OPEN_TMP; i++) {
		if (add && open_tmp[i] == NULL) {
			open_tmp[i] = tmp;
			return;
		}
		if (!add && open_tmp[i] == tmp) {
			open_tmp[i] = NULL;
			return;
		}
	}
}

gs_err gs_atomic_open(gs_atomic *w, const char *path, gs_error *e)
{
	int fd;

	struct stat st;
	char *real = NULL;

	memset(w, 0, sizeof *w);
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		real = realpath(path, NULL);
		if (real == NULL)
			return gs_fail(e, GS_EIO, "%s: symbolic link to a missing file: %s", path,
			               strerror(errno));
	}
	if (snprintf(w->path, sizeof w->path, "%s", real ? real : path) >= (int)sizeof w->path ||
	    snprintf(w->tmp, sizeof w->tmp, "%s.tmp.%ld.XXXXXX", w->path, (long)getpid()) >=
	        (int)sizeof w->tmp) {
		free(real);
		return gs_fail(e, GS_EIO, "%s: path too long", path);
	}
	free(real);
	fd = mkstemp(w->tmp);
	if (fd < 0)
		return gs_fail(e, GS_EIO, "%s: cannot create temporary file: %s", path, strerror(errno));
	/* mkstemp makes 0600: a replaced file keeps its mode (a store kept
	 * private stays private), a new one gets what open(2) would give */
	fchmod(fd, stat(w->path, &st) == 0 && S_ISREG(st.st_mode) ? st.st_mode & 07777 : gs_new_file_mode());
	track(w->tmp, true);
	w->fp = fdopen(fd, "wb");
	if (w->fp == NULL) {
		int err = errno;
		close(fd);
		unlink(w->tmp);
		track(w->tmp, false);
		return gs_fail(e, GS_EIO, "%s: %s", path, strerror(err));
	}
	return GS_OK;
}

/* The deflate stream of gs_atomic_open_gz, as a stdio cookie. */
typedef struct gz_sink {
	z_stream z;
	FILE *raw;
} gz_sink;

static bool gz_pump(gz_sink *g, int flush)
{
	unsigned char out[1 << 16];
	int zr;

	do {
		g->z.next_out = out;
		g->z.avail_out = sizeof out;
		zr = deflate(&g->z, flush);
		if (zr == Z_STREAM_ERROR)
			return false;
		size_t n = sizeof out - g->z.avail_out;
		if (n > 0 && fwrite(out, 1, n, g->raw) != n)
			return false;
	} while (g->z.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END));
	return true;
}

static ssize_t gz_write(void *c, const char *buf, size_t n)
{
	gz_sink *g = c;

	g->z.next_in = (unsigned char *)(uintptr_t)buf;
	g->z.avail_in = (uInt)n;
	if (n > UINT32_MAX || !gz_pump(g, Z_NO_FLUSH)) {
		errno = errno ? errno : EIO;
		return 0;
	}
	return (ssize_t)n;
}

static int gz_close(void *c)
{
	gz_sink *g = c;
	bool ok;

	g->z.next_in = NULL;
	g->z.avail_in = 0;
	ok = gz_pump(g, Z_FINISH);
	deflateEnd(&g->z);
	free(g);
	return ok ? 0 : EOF;
}

gs_err gs_atomic_open_gz(gs_atomic *w, const char *path, gs_error *e)
{
	cookie_io_functions_t io = { .read = NULL, .write = gz_write, .seek = NULL, .close = gz_close };
	gs_err rc = gs_atomic_open(w, path, e);
	gz_sink *g;

	if (rc != GS_OK)
		return rc;
	g = gs_xcalloc(1, sizeof *g);
	g->raw = w->fp;
	if (deflateInit2(&g->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		gs_atomic_abort(w);
		return gs_fail(e, GS_EIO, "%s: cannot start the gzip stream", path);
	}
	w->raw = w->fp;
	w->fp = fopencookie(g, "w", io);
	if (w->fp == NULL) {
		deflateEnd(&g->z);
		free(g);
		w->fp = w->raw;
		w->raw = NULL;
		gs_atomic_abort(w);
		return gs_fail(e, GS_EIO, "%s: cannot start the gzip stream", path);
	}
	w->gz = g;
	return GS_OK;
}

/* A gzip stream's end written (its cookie closed); fp is then the file. */
static int gz_finish(gs_atomic *w)
{
	int err = 0;

	if (w->raw == NULL)
		return 0;
	if (fclose(w->fp) != 0)
		err = errno ? errno : EIO;
	w->fp = w->raw;
	w->raw = NULL;
	w->gz = NULL;
	return err;
}

gs_err gs_atomic_commit(gs_atomic *w, gs_error *e)
{
	int err = 0;

	if (w->fp == NULL)
		return gs_fail(e, GS_EIO, "%s: not open", w->path);
	err = gz_finish(w);
	if ((fflush(w->fp) != 0 || ferror(w->fp)) && !err)
		err = errno ? errno : EIO;
	if (!err && fsync(fileno(w->fp)) != 0 && errno != EINVAL && errno != EROFS)
		err = errno;
	if (fclose(w->fp) != 0 && !err)
		err = errno;
	w->fp = NULL;
	if (!err && rename(w->tmp, w->path) != 0)
		err = errno;
	if (err) {
		unlink(w->tmp);
		track(w->tmp, false);
		return gs_fail(e, GS_EIO, "%s: write failed: %s (previous file kept)", w->path, strerror(err));
	}
	track(w->tmp, false);
	return GS_OK;
}

void gs_atomic_abort(gs_atomic *w)
{
	if (w->fp != NULL)
		gz_finish(w);
	if (w->fp != NULL) {
		fclose(w->fp);
		w->fp = NULL;
	}
	if (w->tmp[0] != '\0') {
		unlink(w->tmp);
		track(w->tmp, false);
	}
}

gs_err gs_write_file_atomic(const char *path, const void *buf, size_t len, gs_error *e)
{
	gs_atomic w;
	gs_err rc = gs_atomic_open(&w, path, e);

	if (rc != GS_OK)
		return rc;
	if (len > 0 && fwrite(buf, 1, len, w.fp) != len) {
		int err = errno;
		gs_atomic_abort(&w);
		return gs_fail(e, GS_EIO, "%s: write failed: %s (previous file kept)", path, strerror(err));
	}
	return gs_atomic_commit(&w, e);
}

bool gs_is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool gs_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

gs_err gs_mkdirs(const char *path, gs_error *e)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof buf)
		return gs_fail(e, GS_EIO, "%s: bad directory path", path);
	memcpy(buf, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] == '/' || buf[i] == '\0') {
			char c = buf[i];
			buf[i] = '\0';
			if (mkdir(buf, 0777) != 0 && errno != EEXIST)
				return gs_fail(e, GS_EIO, "%s: cannot create directory: %s", buf, strerror(errno));
			buf[i] = c;
		}
	}
	return GS_OK;
}

gs_err gs_path_join(char *buf, size_t n, const char *dir, const char *name, const char *suffix,
                    gs_error *e)
{
	int k = snprintf(buf, n, "%s/%s%s", dir, name, suffix ? suffix : "");

	if (k < 0 || (size_t)k >= n)
		return gs_fail(e, GS_EIO, "%s/%s: path too long", dir, name);
	return GS_OK;
}

double gs_lock_wait_default(void)
{
	const char *v = getenv("GPUSIZER_LOCK_WAIT");
	char *end;
	double d;

	if (v == NULL || *v == '\0')
		return GS_LOCK_WAIT_DEFAULT;
	d = strtod(v, &end);
	if (*end != '\0' || !(d >= 0) || d > 1e7)
		return GS_LOCK_WAIT_DEFAULT;
	return d;
}

gs_err gs_lock_acquire(gs_lock *l, const char *path, double wait_s, gs_error *e)
{
	struct stat st;
	double start = gs_mono_s();
	bool said = false;

	memset(l, 0, sizeof *l);
	l->fd = -1;
	if (snprintf(l->path, sizeof l->path, "%s", path) >= (int)sizeof l->path)
		return gs_fail(e, GS_EIO, "%s: path too long", path);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		l->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	else
		l->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
	if (l->fd < 0)
		return gs_fail(e, GS_EIO, "%s: cannot open lock: %s", path, strerror(errno));
	for (;;) {
		double waited;
		if (flock(l->fd, LOCK_EX | LOCK_NB) == 0) {
			l->held = 1;
			return GS_OK;
		}
		if (errno != EWOULDBLOCK && errno != EINTR) {
			int err = errno;
			close(l->fd);
			l->fd = -1;
			return gs_fail(e, GS_EIO, "%s: cannot lock: %s", path, strerror(err));
		}
		waited = gs_mono_s() - start;
		if (waited >= wait_s) {
			close(l->fd);
			l->fd = -1;
			return gs_fail(e, GS_EBUSY,
			               "%s: locked by another gpusizer run; gave up after %.0f s "
			               "(GPUSIZER_LOCK_WAIT sets the wait)",
			               path, waited);
		}
		if (!said && waited >= 1.0) {
			fprintf(stderr, "gpusizer: waiting for %s (locked by another gpusizer run)\n", path);
			said = true;
		}
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

void gs_lock_release(gs_lock *l)
{
	if (l->held && l->fd >= 0) {
		flock(l->fd, LOCK_UN);
		close(l->fd);
	}
	l->fd = -1;
	l->held = 0;
}

gs_err gs_read_file_gz(const char *path, size_t max, char **out, size_t *len, gs_error *e)
{
	char *in = NULL, *buf = NULL;
	size_t n = 0, cap = 0;
	z_stream z;
	int zr = Z_OK;
	gs_err rc = gs_read_file(path, max, &in, &n, e);

	if (rc != GS_OK)
		return rc;
	if (n < 2 || (unsigned char)in[0] != 0x1f || (unsigned char)in[1] != 0x8b) {
		*out = in;
		if (len)
			*len = n;
		return GS_OK;
	}
	*out = NULL;
	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, 15 + 16) != Z_OK) {
		free(in);
		return gs_fail(e, GS_EIO, "%s: cannot start inflating", path);
	}
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)n;
	while (zr == Z_OK) {
		size_t used = cap - z.avail_out;
		if (z.avail_out == 0) {
			if (cap >= max + 1)
				break;
			cap = cap ? cap * 2 : 1 << 16;
			if (cap > max + 1)
				cap = max + 1;
			buf = gs_xrealloc(buf, cap + 1);
			z.next_out = (unsigned char *)buf + used;
			z.avail_out = (uInt)(cap - used);
		}
		zr = inflate(&z, Z_NO_FLUSH);
	}
	n = cap - z.avail_out;
	inflateEnd(&z);
	free(in);
	if (zr != Z_STREAM_END) {
		free(buf);
		if (zr == Z_OK)
			return gs_fail(e, GS_EINPUT, "%s: inflates past the %zu-byte limit", path, max);
		return gs_fail(e, GS_EINPUT, "%s: corrupt or truncated gzip data", path);
	}
	if (buf == NULL)
		buf = gs_xrealloc(NULL, 1);
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return GS_OK;
}

mode_t gs_new_file_mode(void)
{
	static mode_t mode;
	static bool known;

	if (!known) {
		mode_t mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
		known = true;
	}
	return mode;
}

/* Deeper trees are left: gpusizer's own are a few levels deep. */
#define RM_DEPTH_MAX 64

/* name in the directory dfd, and what is under it (rm_tree's steps). */
static bool rm_at(int dfd, const char *name, dev_t dev, uid_t uid, int depth)
{
	struct stat st, opened;
	bool all = true;
	DIR *d;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT;
	if (st.st_uid != uid || st.st_dev != dev)
		return false; /* another user's, or another file system's: left */
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dfd, name, 0) == 0 || errno == ENOENT;
	if (depth >= RM_DEPTH_MAX)
		return false;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	/* the directory opened is the one examined, not one swapped in */
	if (fstat(fd, &opened) != 0 || opened.st_dev != st.st_dev || opened.st_ino != st.st_ino ||
	    (d = fdopendir(fd)) == NULL) {
		close(fd);
		return false;
	}
	for (struct dirent *de; (de = readdir(d)) != NULL;) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (!rm_at(dirfd(d), de->d_name, dev, uid, depth + 1))
			all = false;
	}
	closedir(d);
	return all && (unlinkat(dfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT);
}

bool gs_rm_tree(const char *path)
{
	char parent[4096];
	const char *base, *slash;
	struct stat st;
	bool gone;
	int dfd;

	if (path == NULL || path[0] == '\0' || strlen(path) >= sizeof parent)
		return false;
	slash = strrchr(path, '/');
	if (slash == NULL) {
		snprintf(parent, sizeof parent, ".");
		base = path;
	} else {
		snprintf(parent, sizeof parent, "%.*s", slash == path ? 1 : (int)(slash - path), path);
		base = slash + 1;
	}
	if (base[0] == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return false;
	dfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return false;
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		close(dfd);
		return errno == ENOENT;
	}
	gone = rm_at(dfd, base, st.st_dev, geteuid(), 0);
	close(dfd);
	return gone;
}
