/* libFuzzer target: a gpus/<id>.json file -> gs_gpus_load (src/gpu.c).
 * gs_gpus_load reads a directory, so each input is written to one file in a
 * private temporary directory (made once per process, removed at exit). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "gpu_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gs_gpu *g = NULL;
	size_t n = 0;
	gs_error e;

	fuzz_write_input("gpu", "fuzz-gpu.json", data, size);
	memset(&e, 0, sizeof e);
	if (gs_gpus_load(fuzz_dir, &g, &n, &e) == GS_OK && n > 0)
		(void)gs_gpu_find(g, n, g[0].name);
	free(g);
	return 0;
}
