/* gpusizer: fault points for the tests (fault.h); empty outside the test
 * build. */
#include "fault.h"

#ifdef GS_TESTING
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#define MAX_POINTS 32

/* Calls of each point so far (a point's name as the key). */
static struct {
	char name[64];
	long calls;
} seen[MAX_POINTS];

static long count_call(const char *point)
{
	int i;

	for (i = 0; i < MAX_POINTS && seen[i].name[0] != '\0'; i++)
		if (strcmp(seen[i].name, point) == 0)
			return ++seen[i].calls;
	if (i == MAX_POINTS || strlen(point) >= sizeof seen[i].name)
		return 0;
	strcpy(seen[i].name, point);
	return seen[i].calls = 1;
}

int gs_fault_at(const char *point)
{
	const char *spec = getenv("GPUSIZER_FAULT");
	size_t pl = strlen(point);
	long call;

	if (spec == NULL || *spec == '\0')
		return 0;
	call = count_call(point);
	for (const char *p = spec; *p != '\0';) {
		size_t n = strcspn(p, ",");
		const char *eq = memchr(p, '=', n);
		if (eq != NULL && (size_t)(eq - p) == pl && strncmp(p, point, pl) == 0) {
			const char *act = eq + 1, *at = memchr(act, '@', n - (size_t)(act - p));
			size_t al = at != NULL ? (size_t)(at - act) : n - (size_t)(act - p);
			long k = at != NULL ? strtol(at + 1, NULL, 10) : 1;
			if (k == call) {
				if (al == 4 && strncmp(act, "kill", 4) == 0)
					raise(SIGKILL);
				if (al == 4 && strncmp(act, "fail", 4) == 0)
					return 1;
			}
		}
		p += n + (p[n] == ',');
	}
	return 0;
}
#else
/* ISO C wants something in a translation unit. */
typedef int gs_fault_release_build;
#endif
