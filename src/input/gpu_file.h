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
