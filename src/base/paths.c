/* gpusizer: default locations of data and the model cache (see paths.h for
 * the search orders). */
#define _POSIX_C_SOURCE 200809L
#include "paths.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "util.h"
#include "fileio.h"

#define PATH_BUF 4096

/* Item names under a data root (installed, $GPUSIZER_DATA) and under a
 * checkout or the current directory. */
static const char *const installed_rel[GS_DATA_MAX] = {
	[GS_DATA_GPUS] = "gpus",
	[GS_DATA_TEMPLATES] = "templates",
	[GS_DATA_HARNESS] = "harness.py",
	[GS_DATA_SPEC] = GS_DEFAULT_SPEC,
};
static const char *const checkout_rel[GS_DATA_MAX] = {
	[GS_DATA_GPUS] = "gpus",
	[GS_DATA_TEMPLATES] = "templates",
	[GS_DATA_HARNESS] = "tools/harness.py",
	[GS_DATA_SPEC] = GS_DEFAULT_SPEC,
};

/* buf = a/b ("/b" when a is "/"); false when it does not fit. */
static bool join(char *buf, size_t n, const char *a, const char *b)
{
	int w = snprintf(buf, n, "%s%s%s", a, strcmp(a, "/") == 0 ? "" : "/", b);
	return w > 0 && (size_t)w < n;
}

/* Whether root/name is a directory. */
static bool has_dir(const char *root, const char *name)
{
	char p[PATH_BUF];
	return join(p, sizeof p, root, name) && gs_is_dir(p);
}

/* Strips the last component of an absolute path in place ("/a/b" -> "/a",
 * "/a" -> "/"); false at "/". The path comes from /proc/self/exe, which has
 * no symbolic links, ".." or "." in it, so this is its real parent. */
static bool parent(char *p)
{
	char *s = strrchr(p, '/');

	if (s == NULL || (s == p && p[1] == '\0'))
		return false;
	if (s == p)
		p[1] = '\0';
	else
		*s = '\0';
	return true;
}

/* Copies s to buf without trailing slashes (but keeps a lone "/"). */
static void put_trimmed(char *buf, size_t n, const char *s)
{
	size_t k;

	snprintf(buf, n, "%s", s);
	for (k = strlen(buf); k > 1 && buf[k - 1] == '/'; k--)
		buf[k - 1] = '\0';
}

gs_root_kind gs_data_root(char *buf, size_t n)
{
	const char *env = getenv("GPUSIZER_DATA");
	char exe[PATH_BUF], dir[PATH_BUF], cand[PATH_BUF];

	if (n == 0)
		return GS_ROOT_NONE;
	buf[0] = '\0';
	if (env != NULL && env[0] != '\0') {
		put_trimmed(buf, n, env);
		return GS_ROOT_ENV;
	}
	if (!gs_exe_dir(exe, sizeof exe) || exe[0] != '/')
		return GS_ROOT_NONE;
	/* PREFIX/bin/gpusizer -> PREFIX/share/gpusizer */
	snprintf(dir, sizeof dir, "%s", exe);
	if (parent(dir) && join(cand, sizeof cand, dir, "share/gpusizer") && has_dir(cand, "gpus")) {
		snprintf(buf, n, "%s", cand);
		return GS_ROOT_INSTALLED;
	}
	/* ./gpusizer, build/gpusizer, build/<name>/gpusizer in a checkout */
	snprintf(dir, sizeof dir, "%s", exe);
	for (int up = 0; up < 3; up++) {
		if (up > 0 && !parent(dir))
			break;
		if (has_dir(dir, "gpus") && has_dir(dir, "templates")) {
			snprintf(buf, n, "%s", dir);
			return GS_ROOT_CHECKOUT;
		}
	}
	return GS_ROOT_NONE;
}

void gs_data_path(gs_data what, char *buf, size_t n)
{
	char root[PATH_BUF], p[PATH_BUF];
	gs_root_kind k;

	if (n == 0)
		return;
	if ((unsigned)what >= GS_DATA_MAX) {
		buf[0] = '\0';
		return;
	}
	if (what == GS_DATA_TEMPLATES) {
		const char *env = getenv("GPUSIZER_TEMPLATES");
		if (env != NULL && env[0] != '\0') {
			put_trimmed(buf, n, env);
			return;
		}
	}
	k = gs_data_root(root, sizeof root);
	/* $GPUSIZER_DATA may be an installed share/gpusizer or a checkout: the
	 * harness is harness.py there, else tools/harness.py. */
	if (k == GS_ROOT_ENV && what == GS_DATA_HARNESS && join(p, sizeof p, root, installed_rel[what]) &&
	    !gs_is_file(p) && join(p, sizeof p, root, checkout_rel[what]) && gs_is_file(p)) {
		snprintf(buf, n, "%s", p);
		return;
	}
	if (k == GS_ROOT_ENV || k == GS_ROOT_INSTALLED) {
		if (!join(buf, n, root, installed_rel[what]))
			snprintf(buf, n, "%s", installed_rel[what]);
	} else if (k == GS_ROOT_CHECKOUT) {
		if (!join(buf, n, root, checkout_rel[what]))
			snprintf(buf, n, "%s", checkout_rel[what]);
	} else {
		snprintf(buf, n, "%s", checkout_rel[what]);
	}
}

/* The user's home directory: $HOME, else the password database; NULL if
 * neither names one. */
static const char *home_dir(void)
{
	const char *h = getenv("HOME");
	struct passwd *pw;

	if (h != NULL && h[0] != '\0')
		return h;
	pw = getpwuid(getuid());
	if (pw != NULL && pw->pw_dir != NULL && pw->pw_dir[0] != '\0')
		return pw->pw_dir;
	return NULL;
}

void gs_models_dir_default(char *buf, size_t n)
{
	const char *v;
	char root[PATH_BUF], base[PATH_BUF];
	int w;

	if (n == 0)
		return;
	/* $GPUSIZER_HOME is asked for by name: it wins, even in a checkout. */
	if ((v = getenv("GPUSIZER_HOME")) != NULL && v[0] != '\0') {
		put_trimmed(base, sizeof base, v);
		if (join(buf, n, base, "models"))
			return;
	}
	switch (gs_data_root(root, sizeof root)) {
	case GS_ROOT_CHECKOUT:
		if (has_dir(root, "models") && join(buf, n, root, "models"))
			return;
		break;
	case GS_ROOT_NONE:
		/* Not found beside the executable (no /proc): a checkout as the
		 * current directory keeps today's models/. */
		if (gs_is_dir("gpus") && gs_is_dir("templates") && gs_is_dir("models")) {
			snprintf(buf, n, "models");
			return;
		}
		break;
	default:
		break;
	}
	/* XDG: a relative XDG_CACHE_HOME is invalid and ignored. */
	if ((v = getenv("XDG_CACHE_HOME")) != NULL && v[0] == '/') {
		put_trimmed(base, sizeof base, v);
		w = snprintf(buf, n, "%s%sgpusizer/models", base, strcmp(base, "/") == 0 ? "" : "/");
		if (w > 0 && (size_t)w < n)
			return;
	}
	if ((v = home_dir()) != NULL) {
		put_trimmed(base, sizeof base, v);
		w = snprintf(buf, n, "%s%s.cache/gpusizer/models", base, strcmp(base, "/") == 0 ? "" : "/");
		if (w > 0 && (size_t)w < n)
			return;
	}
	snprintf(buf, n, "models");
}

bool gs_models_dir_shipped(char *buf, size_t n)
{
	char root[PATH_BUF];

	if (n == 0)
		return false;
	buf[0] = '\0';
	if (gs_data_root(root, sizeof root) == GS_ROOT_NONE)
		return false;
	if (!has_dir(root, "models") || !join(buf, n, root, "models")) {
		buf[0] = '\0';
		return false;
	}
	return true;
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
