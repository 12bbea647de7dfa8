/* libFuzzer target: sweep spec text -> gs_spec_parse (src/spec.c), then,
 * when it parsed, the command-line overrides with a value taken from the
 * input's tail (after the first NUL byte, if any) and gs_spec_line. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const whats[] = {"models",  "gpus",      "formats",      "methods",
                                    "precisions", "optimizers", "batches",   "seqs",
                                    "grad-ckpt", "lora-r",   "lora-targets", "attn",
                                    "gpu-counts"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	const char *csv;
	gs_spec sp;
	gs_error e;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	/* text ends at the first NUL; what follows is an override value */
	csv = text + strlen(text);
	csv = csv < text + size ? csv + 1 : "1";
	memset(&sp, 0, sizeof sp);
	memset(&e, 0, sizeof e);
	if (gs_spec_parse(text, "fuzz/sizing.json", &sp, &e) == GS_OK) {
		unsigned pick = size ? data[size - 1] : 0;
		gs_error e2;
		memset(&e2, 0, sizeof e2);
		(void)gs_spec_override(&sp, whats[pick % (sizeof whats / sizeof whats[0])], csv, &e2);
		(void)gs_spec_line(text, "axes.batch", 0);
		(void)gs_spec_line(text, "models", -1);
		gs_spec_free(&sp);
	}
	free(text);
	return 0;
}
