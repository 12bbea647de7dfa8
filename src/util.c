/* gpusizer: allocation wrappers, the executable's directory, the offline
 * rule, JSON string output, a monotonic clock. */
#define _POSIX_C_SOURCE 200809L
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <strings.h>
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

void gs_put_u64(FILE *fp, uint64_t v)
{
	char b[GS_INT_CHARS];

	fwrite(b, 1, gs_fmt_u64(b, v), fp);
}

void gs_json_str(FILE *fp, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : ""), *run = p;

	fputc('"', fp);
	/* runs that need no escape go out whole (a row has dozens of strings) */
	for (;; p++) {
		if (*p >= 0x20 && *p != '"' && *p != '\\')
			continue;
		fwrite(run, 1, (size_t)(p - run), fp);
		if (*p == '\0')
			break;
		switch (*p) {
		case '"': fputs("\\\"", fp); break;
		case '\\': fputs("\\\\", fp); break;
		case '\n': fputs("\\n", fp); break;
		case '\r': fputs("\\r", fp); break;
		case '\t': fputs("\\t", fp); break;
		default: fprintf(fp, "\\u%04x", *p);
		}
		run = p + 1;
	}
	fputc('"', fp);
}

double gs_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
