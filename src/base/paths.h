/* gpusizer: where the tool finds its data (GPU class files, templates, the
 * verify harness) and where it keeps its model cache, wherever it is run
 * from: a checkout, a build directory inside one, or an installed PREFIX.
 *
 * The data root, first that applies:
 *   1. $GPUSIZER_DATA (a directory holding gpus/, templates/, harness.py);
 *   2. installed: <exe dir>/../share/gpusizer when it holds gpus/;
 *   3. a checkout: the nearest of <exe dir>, <exe dir>/.., <exe dir>/../..
 *      holding gpus/ and templates/ (./gpusizer, build/gpusizer,
 *      build/asan/gpusizer);
 *   4. none: the current directory's gpus/, templates/, tools/harness.py.
 * <exe dir> is /proc/self/exe's directory (symbolic links resolved).
 * $GPUSIZER_TEMPLATES overrides the templates directory alone.
 *
 * The model cache (gs_models_dir_default), first that applies:
 *   1. $GPUSIZER_HOME/models;
 *   2. a checkout (root 3 above) with a models/ directory: <checkout>/models;
 *   3. $XDG_CACHE_HOME/gpusizer/models (XDG_CACHE_HOME absolute);
 *   4. ~/.cache/gpusizer/models ($HOME, else the password database);
 *   5. models (the current directory).
 * The reference configs that come with gpusizer (<data root>/models) are
 * read after the cache (gs_models_dir_shipped). */
#ifndef GS_PATHS_H
#define GS_PATHS_H

#include <stdbool.h>
#include <stddef.h>

typedef enum gs_data {
	GS_DATA_GPUS,      /* the GPU class directory (gpus/) */
	GS_DATA_TEMPLATES, /* the report templates directory (templates/) */
	GS_DATA_HARNESS,   /* the verify harness script (harness.py) */
	GS_DATA_SPEC,      /* the default report spec (the committed sizing.json) */
	GS_DATA_MAX
} gs_data;

/* The default spec's file name: ./sizing.json, else the data root's. */
#define GS_DEFAULT_SPEC "sizing.json"

/* How the data root was found. */
typedef enum gs_root_kind {
	GS_ROOT_NONE,      /* nothing found: current-directory names */
	GS_ROOT_ENV,       /* $GPUSIZER_DATA */
	GS_ROOT_INSTALLED, /* <exe dir>/../share/gpusizer */
	GS_ROOT_CHECKOUT,  /* a source checkout beside the executable */
} gs_root_kind;

/* The data root (see above) written to buf (n bytes; "" for GS_ROOT_NONE). */
gs_root_kind gs_data_root(char *buf, size_t n);

/* The default path of a data item, written to buf (n bytes). Never fails:
 * when nothing is found the relative name is written, and opening it gives
 * the caller's usual "cannot read" error naming it. */
void gs_data_path(gs_data what, char *buf, size_t n);

/* The default model cache, read and written by estimate, report and fetch
 * when no --models-dir is given. */
void gs_models_dir_default(char *buf, size_t n);

/* The read-only reference model configs that come with gpusizer
 * (<data root>/models: share/gpusizer/models when installed, models/ in a
 * checkout), read after the cache and before the huggingface_hub cache.
 * False (buf "") when there is no such directory. */
bool gs_models_dir_shipped(char *buf, size_t n);

/* Whether this run must not touch the network: the --offline flag, or
 * HF_HUB_OFFLINE or GPUSIZER_OFFLINE set to 1/ON/YES/TRUE. The one place
 * every command asks; offline and not cached is GS_EOFFLINE (exit 10). */
bool gs_offline(bool flag);

/* The directory holding the running executable (/proc/self/exe without its
 * last component), for files installed beside it. False if unknown or if
 * it does not fit in n bytes. */
bool gs_exe_dir(char *buf, size_t n);

#endif
