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

static char fold_c(char c, bool fold)
{
	return fold && c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

size_t gs_edit_distance(const char *a, size_t na, const char *b, bool fold)
{
	size_t nb = strlen(b), row[65], prev;

	if (na > 64 || nb > 64)
		return 99;
	for (size_t j = 0; j <= nb; j++)
		row[j] = j;
	for (size_t i = 1; i <= na; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t cur = row[j];
			size_t best = prev + (fold_c(a[i - 1], fold) != fold_c(b[j - 1], fold));
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	return row[nb];
}
