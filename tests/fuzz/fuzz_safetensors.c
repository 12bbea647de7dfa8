/* libFuzzer target: the first bytes of a .safetensors file (8-byte length,
 * JSON header) -> gs_st_header_len and gs_st_parse (src/safetensors.c), with
 * the file size unknown (0) and known (the input's length), into one tally
 * so that repeated files and the module/dtype limits are exercised. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static gs_st_tally t;
	uint64_t hlen = 0;
	gs_error e;

	memset(&e, 0, sizeof e);
	(void)gs_st_header_len("fuzz.safetensors", data, size, &hlen, &e);
	memset(&t, 0, sizeof t);
	memset(&e, 0, sizeof e);
	(void)gs_st_parse("fuzz.safetensors", data, size, 0, &t, &e);
	memset(&e, 0, sizeof e);
	(void)gs_st_parse("fuzz.safetensors", data, size, size, &t, &e);
	return 0;
}
