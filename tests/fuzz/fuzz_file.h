/* Shared by the fuzz targets whose parser reads a file, not a buffer: each
 * input is written to one file in a private temporary directory, made on
 * the first call and removed at exit. Include once, in the target's .c. */
#ifndef GS_FUZZ_FILE_H
#define GS_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char fuzz_dir[64], fuzz_path[128];

static void fuzz_cleanup(void)
{
	unlink(fuzz_path);
	rmdir(fuzz_dir);
}

/* Write data to /tmp/gs-fuzz-<tag>-XXXXXX/<name>; returns that path (the
 * directory is fuzz_dir). Aborts when the file cannot be written: that is
 * the machine, not a finding. */
static const char *fuzz_write_input(const char *tag, const char *name, const uint8_t *data,
                                    size_t size)
{
	FILE *f;

	if (fuzz_dir[0] == '\0') {
		snprintf(fuzz_dir, sizeof fuzz_dir, "/tmp/gs-fuzz-%s-XXXXXX", tag);
		if (mkdtemp(fuzz_dir) == NULL)
			abort();
		snprintf(fuzz_path, sizeof fuzz_path, "%s/%s", fuzz_dir, name);
		atexit(fuzz_cleanup);
	}
	f = fopen(fuzz_path, "wb");
	if (f == NULL)
		abort();
	if (size > 0 && fwrite(data, 1, size, f) != size)
		abort();
	if (fclose(f) != 0)
		abort();
	return fuzz_path;
}

#endif
