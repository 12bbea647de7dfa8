/* gpusizer: allocation wrappers, whole-file reads, atomic writes. */
#define _POSIX_C_SOURCE 200809L
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void oom(void)
{
	fputs("gpusizer: host memory exhausted (this machine's RAM, not the GPU's)\n", stderr);
	exit(gs_exit_code(GS_ENOMEM));
}

void *gs_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (p == NULL)
		oom();
	return p;
}

void *gs_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (p == NULL)
		oom();
	return p;
}

void *gs_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (q == NULL)
		oom();
	return q;
}

char *gs_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = gs_xmalloc(n);
	memcpy(p, s, n);
	return p;
}

gs_err gs_read_file(const char *path, size_t max, char **out, size_t *len, gs_error *e)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	if (len)
		*len = 0;
	if (fp == NULL)
		return gs_fail(e, errno == ENOENT ? GS_ENOTFOUND : GS_EIO, "%s: %s", path, strerror(errno));
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

	memset(w, 0, sizeof *w);
	if (snprintf(w->path, sizeof w->path, "%s", path) >= (int)sizeof w->path ||
	    snprintf(w->tmp, sizeof w->tmp, "%s.tmp.%ld.XXXXXX", path, (long)getpid()) >= (int)sizeof w->tmp)
		return gs_fail(e, GS_EIO, "%s: path too long", path);
	fd = mkstemp(w->tmp);
	if (fd < 0)
		return gs_fail(e, GS_EIO, "%s: cannot create temporary file: %s", path, strerror(errno));
	fchmod(fd, 0644);
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

gs_err gs_atomic_commit(gs_atomic *w, gs_error *e)
{
	int err = 0;

	if (w->fp == NULL)
		return gs_fail(e, GS_EIO, "%s: not open", w->path);
	if (fflush(w->fp) != 0 || ferror(w->fp))
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
			if (mkdir(buf, 0755) != 0 && errno != EEXIST)
				return gs_fail(e, GS_EIO, "%s: cannot create directory: %s", buf, strerror(errno));
			buf[i] = c;
		}
	}
	return GS_OK;
}

bool gs_exe_dir(char *buf, size_t n)
{
	ssize_t k;
	char *slash;

	if (n < 2)
		return false;
	k = readlink("/proc/self/exe", buf, n - 1);
	if (k <= 0 || (size_t)k >= n - 1)
		return false;
	buf[k] = '\0';
	slash = strrchr(buf, '/');
	if (slash == NULL)
		return false;
	*slash = '\0';
	return true;
}

bool gs_offline(bool flag)
{
	static const char *const vars[] = { "HF_HUB_OFFLINE", "GPUSIZER_OFFLINE" };

	if (flag)
		return true;
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		if (v != NULL && (strcmp(v, "1") == 0 || strcasecmp(v, "on") == 0 ||
		                  strcasecmp(v, "yes") == 0 || strcasecmp(v, "true") == 0))
			return true;
	}
	return false;
}

void gs_json_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", fp); break;
		case '\\': fputs("\\\\", fp); break;
		case '\n': fputs("\\n", fp); break;
		case '\r': fputs("\\r", fp); break;
		case '\t': fputs("\\t", fp); break;
		default:
			if (*p < 0x20)
				fprintf(fp, "\\u%04x", *p);
			else
				fputc(*p, fp);
		}
	}
	fputc('"', fp);
}
