/* gpusizer: GPU classes, read from gpus/ (one JSON file per GPU). */
#ifndef GS_GPU_H
#define GS_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef struct gs_gpu {
	char id[48];            /* file stem, e.g. "rtx-4090" */
	char name[96];          /* "NVIDIA GeForce RTX 4090" */
	char klass[24];         /* capacity class label, e.g. "24 GB" */
	uint64_t total_bytes;   /* total memory as the driver reports it */
	uint64_t usable_bytes;  /* what one process can actually allocate */
	bool bf16, fp8;
	double bandwidth_gbs;   /* memory bandwidth, GB/s */
	double bf16_tflops;     /* dense bf16 (fp16 where no bf16) TFLOPS */
	char source[512];       /* where the figures come from */
} gs_gpu;

/* Load every *.json in dir, sorted by (usable_bytes, id). On success *out
 * is a malloc'd array the caller frees with free(); *n its length.
 * A bad file: GS_EGPUFILE naming the file and field. */
gs_err gs_gpus_load(const char *dir, gs_gpu **out, size_t *n, gs_error *e);

/* Find by id or by name (case-insensitive); NULL if none. */
const gs_gpu *gs_gpu_find(const gs_gpu *g, size_t n, const char *id_or_name);

/* Keep only the classes csv names (ids, comma-separated), in csv's order,
 * in place (*ng updated). An unknown id: GS_EUSAGE naming cmd, the id and
 * the directory. */
gs_err gs_gpus_select(gs_gpu *g, size_t *ng, const char *csv, const char *dir, const char *cmd,
                      gs_error *e);

#endif
