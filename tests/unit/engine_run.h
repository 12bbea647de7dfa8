/* gpusizer tests: one estimate that must succeed (the test stops with a
 * FAIL line naming the row's label when the engine refuses it). For the
 * engine's unit tests (test_engine.c, test_engine_core.c). */
#ifndef GS_TEST_ENGINE_RUN_H
#define GS_TEST_ENGINE_RUN_H
#include <stdio.h>
#include <stdlib.h>

#include "engine.h"

static gs_estimate run(const gs_arch *a, const gs_settings *s)
{
	gs_estimate x;
	gs_error e = {0};
	if (gs_estimate_run(a, s, &x, &e) != GS_OK) {
		char l[256];
		gs_settings_label(s, l, sizeof l);
		printf("FAIL estimate %s: %s\n", l, e.msg);
		exit(1);
	}
	return x;
}
#endif
