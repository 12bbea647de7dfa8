/* libFuzzer target: the measurement store (measurements/verified.jsonl, one
 * JSON object a line) -> gs_measured_load, gs_measured_find and
 * gs_measured_text (src/measured.c). gs_measured_load reads a path, so each
 * input is written to one file in a private temporary directory. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measured.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], file[96];

static void cleanup(void)
{
	unlink(file);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gs_measured_store st;
	gs_error e;
	FILE *f;

	if (dir[0] == '\0') {
		snprintf(dir, sizeof dir, "/tmp/gs-fuzz-measured-XXXXXX");
		if (mkdtemp(dir) == NULL)
			abort();
		snprintf(file, sizeof file, "%s/verified.jsonl", dir);
		atexit(cleanup);
	}
	f = fopen(file, "wb");
	if (f == NULL)
		abort();
	if (size > 0 && fwrite(data, 1, size, f) != size)
		abort();
	if (fclose(f) != 0)
		abort();
	memset(&st, 0, sizeof st);
	memset(&e, 0, sizeof e);
	if (gs_measured_load(file, &st, &e) == GS_OK) {
		for (size_t i = 0; i < st.n && i < 4; i++) {
			char buf[512];
			const gs_measured *m = gs_measured_find(&st, "org/name", "full amp-bf16");
			if (m != NULL)
				gs_measured_text(m, GS_MK_DEVICE, 1u << 30, buf, sizeof buf);
			gs_measured_text(&st.rec[i], (gs_measured_kind)(i % 3), (uint64_t)i << 33, buf,
			                 sizeof buf);
		}
		gs_measured_free(&st);
	}
	return 0;
}
