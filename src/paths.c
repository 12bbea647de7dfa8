/* gpusizer: default locations of data and the model cache. */
#define _POSIX_C_SOURCE 200809L
#include "paths.h"

#include <stdio.h>
#include <sys/stat.h>

#include "util.h"

static const char *const rel[GS_DATA_MAX] = {
	[GS_DATA_GPUS] = "gpus",
	[GS_DATA_TEMPLATES] = "templates",
	[GS_DATA_HARNESS] = "tools/harness.py",
};

void gs_data_path(gs_data what, char *buf, size_t n)
{
	snprintf(buf, n, "%s", (unsigned)what < GS_DATA_MAX ? rel[what] : "");
}

void gs_models_dir_default(char *buf, size_t n)
{
	snprintf(buf, n, "models");
}
