/* libFuzzer target: the UTF-8 and duplicate-key scan that runs before cJSON
 * on JSON from outside (gs_json_check, src/jsoncheck.c: a hand-written
 * scanner over raw bytes). The input need not be NUL-terminated: it is
 * copied to an exactly sized buffer so ASan catches any read past len. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jsoncheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	gs_error e;

	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	memset(&e, 0, sizeof e);
	(void)gs_json_check(buf, size, "fuzz.json", GS_ECONFIG, &e);
	free(buf);
	return 0;
}
