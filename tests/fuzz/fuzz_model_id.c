/* libFuzzer target: a model id from the command line or a spec ->
 * gs_model_parse_id and gs_model_slug (src/modelid.c). An accepted id must
 * give a slug with no '/', no ".." segment and no control character (the
 * slug names a directory in the model cache). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "modelid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char id[1024], repo[300], rev[300], slug[300];
	gs_error e;

	if (size >= sizeof id)
		return 0;
	memcpy(id, data, size);
	id[size] = '\0';
	memset(&e, 0, sizeof e);
	(void)gs_model_parse_id(id, repo, sizeof repo, rev, sizeof rev, &e);
	memset(&e, 0, sizeof e);
	if (gs_model_slug(id, slug, sizeof slug, &e) == GS_OK) {
		if (strchr(slug, '/') != NULL || strcmp(slug, "..") == 0 || strcmp(slug, ".") == 0 ||
		    slug[0] == '\0')
			abort(); /* would escape or alias the cache directory */
		for (const char *p = slug; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				abort();
	}
	return 0;
}
