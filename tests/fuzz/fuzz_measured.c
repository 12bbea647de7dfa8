/* libFuzzer target: the measurement store (measurements/verified.jsonl, one
 * JSON object a line) -> gs_measured_load, gs_measured_find and
 * gs_measured_text (src/measured.c). gs_measured_load reads a path, so each
 * input is written to one file in a private temporary directory. Each
 * record read is also written back (gs_measured_format) and read again:
 * what is read back must write the same text (the one field list both
 * ways). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "measured.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* m written, read back, written again: the same text both times. */
static void round_trip(const gs_measured *m)
{
	gs_measured back;
	gs_error e;
	char *once = gs_measured_format(m, false), *twice;

	memset(&e, 0, sizeof e);
	if (gs_measured_parse(once, &back, &e) != GS_OK)
		abort(); /* a record we wrote does not read back */
	twice = gs_measured_format(&back, false);
	if (strcmp(once, twice) != 0)
		abort(); /* a field is written under one name and read under another */
	free(once);
	free(twice);
	gs_measured_clear(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gs_measured_store st;
	gs_error e;
	const char *file = fuzz_write_input("measured", "verified.jsonl", data, size);

	memset(&st, 0, sizeof st);
	memset(&e, 0, sizeof e);
	if (gs_measured_load(file, &st, &e) == GS_OK) {
		for (size_t i = 0; i < st.n && i < 4; i++) {
			char buf[512];
			const gs_measured *m = gs_measured_find(&st, "org/name", "full amp-bf16");
			uint64_t now[GS_MK_MAX] = {1u << 29, 1u << 30, (uint64_t)i << 33};
			gs_measured_kind k;
			uint64_t b;

			if (m != NULL)
				gs_measured_text(m, GS_MK_DEVICE, NULL, buf, sizeof buf);
			gs_measured_text(&st.rec[i], (gs_measured_kind)(i % 3), now, buf, sizeof buf);
			(void)gs_measured_figure(&st.rec[i], (gs_measured_kind)(i % 3), &k, &b);
			round_trip(&st.rec[i]);
		}
		gs_measured_free(&st);
	}
	return 0;
}
