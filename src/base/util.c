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

double gs_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
