/* gpusizer: GPU classes read from gpus/ (one JSON file per GPU; docs/spec.md,
 * "GPU files"), and the command line's selection and prices over them. */
#ifndef GS_GPU_FILE_H
#define GS_GPU_FILE_H

#include <stddef.h>

#include "err.h"
#include "gpu.h"

/* Load every *.json in dir, sorted by (usable_bytes, id). On success *out
 * is a malloc'd array the caller frees with free(); *n its length.
 * A bad file: GS_EGPUFILE naming the file and field. */
gs_err gs_gpus_load(const char *dir, gs_gpu **out, size_t *n, gs_error *e);

/* Nearest names of an id (its first len bytes) that names none of the ng
 * classes: ": did you mean h100-sxm, h100-nvl?" into buf (n bytes), ""
 * when none is near. Near: the ids that begin with it; else, for 3 bytes
 * or more, those that hold it; else the nearest within 2 edits (ASCII
 * case folded throughout); at most GS_GPU_SUGGEST_MAX, in class order.
 * Every place that reads a GPU id (--gpu, --price, a spec's "gpus" and
 * "plan.gpus") says it this way. Returns buf. */
#define GS_GPU_SUGGEST_MAX 5
char *gs_gpus_suggest(const gs_gpu *g, size_t ng, const char *id, size_t len, char *buf, size_t n);

/* Keep only the classes csv names (ids, comma-separated), in csv's order,
 * in place (*ng updated). An unknown id: GS_EUSAGE naming cmd, the id and
 * the directory. */
gs_err gs_gpus_select(gs_gpu *g, size_t *ng, const char *csv, const char *dir, const char *cmd,
                      gs_error *e);

/* Prices from the command line, "ID=USD[,ID=USD...]" (--price), over the
 * files' own. An unknown id or a price that is not a positive number of
 * dollars below 1000 an hour: GS_EUSAGE naming cmd and the entry. */
gs_err gs_gpus_price(gs_gpu *g, size_t ng, const char *spec, const char *cmd, gs_error *e);

#endif
