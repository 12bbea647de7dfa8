/* gpusizer: the measurements store, measurements/verified.jsonl: one JSON
 * object per line, appended by `gpusizer verify` after a real run on a
 * local GPU (never entered by hand; schema in measurements/README.md).
 * Reports look rows up here to show "measured 11.2 GiB on RTX 4090,
 * predicted 11.5 GiB". */
#ifndef GS_MEASURED_H
#define GS_MEASURED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define GS_MEASURED_STORE_DEFAULT "measurements/verified.jsonl"
#define GS_MEASURED_MAX_BYTES (64u << 20) /* refuse larger store files */

/* One record as reports need it (the line holds much more). Byte figures
 * are 0 when that figure was not measured (e.g. no NVML process reading,
 * or an out-of-memory result). */
typedef struct gs_measured {
	char model[160];       /* model id as given to verify ("Qwen/Qwen2.5-0.5B") */
	char label[192];       /* gs_settings_label of the row */
	char gpu_name[96];     /* NVML name, "NVIDIA GeForce RTX 4090" */
	char gpu_class[48];    /* gpus/ id when matched, else "" */
	char date[32];         /* ISO 8601 UTC */
	bool oom;              /* the run ran out of memory ("does not fit" measured) */
	uint64_t allocated, reserved, device;
	uint64_t pred_allocated, pred_reserved, pred_device; /* at the time of the run */
} gs_measured;

typedef struct gs_measured_store {
	gs_measured *rec; /* owned; freed by gs_measured_free */
	size_t n;
} gs_measured_store;

/* Which figure a report shows. */
typedef enum gs_measured_kind { GS_MK_ALLOCATED = 0, GS_MK_RESERVED, GS_MK_DEVICE, GS_MK_MAX } gs_measured_kind;

/*
 * Read the store at path (NULL = GS_MEASURED_STORE_DEFAULT). A missing file
 * is an empty store (GS_OK). A line that is not a JSON object with "model"
 * and "label": GS_EINPUT naming path:line. The caller frees with
 * gs_measured_free.
 */
gs_err gs_measured_load(const char *path, gs_measured_store *st, gs_error *e);

/* Free the records; accepts an empty or zeroed store. */
void gs_measured_free(gs_measured_store *st);

/* The latest record (last in the file) for model id and settings label,
 * or NULL. Borrowed from st. */
const gs_measured *gs_measured_find(const gs_measured_store *st, const char *model,
                                    const char *label);

/* "allocated", "reserved", "device". */
const char *gs_measured_kind_name(gs_measured_kind k);

/* Record m's measured bytes of kind k; 0 when not measured. */
uint64_t gs_measured_bytes(const gs_measured *m, gs_measured_kind k);

/*
 * The figure a report shows for record m: kind's if it was measured, else
 * the next one measured (device, reserved, allocated). Sets *shown to the
 * kind used and *bytes to its value; false (nothing set) for an
 * out-of-memory record or one without any figure.
 */
bool gs_measured_figure(const gs_measured *m, gs_measured_kind kind, gs_measured_kind *shown,
                        uint64_t *bytes);

/*
 * Format the text a report shows beside a prediction, e.g.
 * "measured 11.2 GiB on RTX 4090, predicted 11.5 GiB" (GiB = 2^30 bytes).
 * The figure is gs_measured_figure's; one other than kind is named
 * ("measured 10.9 GiB reserved on ..."). predicted holds today's prediction
 * for the row, indexed by gs_measured_kind (allocated, reserved, device),
 * so measured is compared with the prediction of the same kind; NULL uses
 * the prediction stored with the record. An out-of-memory record gives
 * "out of memory on RTX 4090 (measured), predicted 30.1 GiB". Writes at
 * most n bytes, NUL-terminated.
 */
void gs_measured_text(const gs_measured *m, gs_measured_kind kind, const uint64_t *predicted,
                      char *buf, size_t n);

/* "NVIDIA GeForce RTX 4090" -> "RTX 4090" (drops "NVIDIA " and "GeForce "). */
void gs_measured_short_gpu(const char *name, char *buf, size_t n);

/*
 * Append one record atomically: json_line must be a single JSON object
 * (no newline inside; GS_EINTERNAL otherwise). Reads the old store, writes
 * old + line + "\n" to a temporary and renames it over path
 * (gs_write_file_atomic), creating the directory if needed. GS_EIO naming
 * the path on failure; the old file is then untouched.
 */
gs_err gs_measured_append(const char *path, const char *json_line, gs_error *e);

#endif
