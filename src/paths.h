/* gpusizer: where the tool finds its data (GPU class files, templates, the
 * verify harness) and where it keeps its model cache, wherever it is run
 * from: a checkout, a build directory inside one, or an installed PREFIX. */
#ifndef GS_PATHS_H
#define GS_PATHS_H

#include <stddef.h>

typedef enum gs_data {
	GS_DATA_GPUS,      /* the GPU class directory (gpus/) */
	GS_DATA_TEMPLATES, /* the report templates directory (templates/) */
	GS_DATA_HARNESS,   /* the verify harness script (harness.py) */
	GS_DATA_MAX
} gs_data;

/* The default path of a data item, written to buf (n bytes). Never fails:
 * when nothing is found the relative name is written, and opening it gives
 * the caller's usual "cannot read" error naming it. */
void gs_data_path(gs_data what, char *buf, size_t n);

/* The default model cache, read and written by estimate, report and fetch
 * when no --models-dir is given. */
void gs_models_dir_default(char *buf, size_t n);

#endif
