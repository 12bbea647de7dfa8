/* libFuzzer target: a gpus/<id>.json file -> gs_gpus_load (src/gpu.c).
 * gs_gpus_load reads a directory, so each input is written to one file in a
 * private temporary directory (made once per process, removed at exit). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], file[96];

static void cleanup(void)
{
	unlink(file);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gs_gpu *g = NULL;
	size_t n = 0;
	gs_error e;
	FILE *f;

	if (dir[0] == '\0') {
		snprintf(dir, sizeof dir, "/tmp/gs-fuzz-gpu-XXXXXX");
		if (mkdtemp(dir) == NULL)
			abort();
		snprintf(file, sizeof file, "%s/fuzz-gpu.json", dir);
		atexit(cleanup);
	}
	f = fopen(file, "wb");
	if (f == NULL)
		abort();
	if (size > 0 && fwrite(data, 1, size, f) != size)
		abort();
	if (fclose(f) != 0)
		abort();
	memset(&e, 0, sizeof e);
	if (gs_gpus_load(dir, &g, &n, &e) == GS_OK && n > 0)
		(void)gs_gpu_find(g, n, g[0].name);
	free(g);
	return 0;
}
