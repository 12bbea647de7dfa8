/* libFuzzer target: config.json bytes -> gs_config_parse (src/config.c).
 * The input need not be NUL-terminated; gs_arch holds no pointers, so
 * nothing is left to free. Any crash, sanitizer report or leak is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gs_arch a;
	gs_error e;

	memset(&e, 0, sizeof e);
	(void)gs_config_parse((const char *)data, size, "fuzz/config.json", &a, &e);
	return 0;
}
