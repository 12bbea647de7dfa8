/* gpusizer: the measurement record `gpusizer verify` writes (out/verify/
 * ROW.json, and one line of measurements/verified.jsonl) and the store
 * reports read back: one JSON object per line, appended after a real run
 * on a local GPU (never entered by hand; schema in measurements/README.md).
 * The record is one struct, gs_measured, and one field list in measured.c
 * that both the writer and the reader walk, so a field cannot be written
 * under one name and read under another. Reports look rows up here to show
 * "measured 11.2 GiB on RTX 4090, predicted 11.5 GiB". */
#ifndef GS_MEASURED_H
#define GS_MEASURED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "settings.h"

struct cJSON;

#define GS_MEASURED_STORE_DEFAULT "measurements/verified.jsonl"
#define GS_MEASURED_MAX_BYTES (64u << 20) /* refuse larger store files */
#define GS_MEASURED_ROOM (1u << 20)       /* room verify wants in the store before a run */
#define GS_MEASURED_LOCK_SUFFIX ".lock"  /* the store's lock file: "<store>.lock" */
#define GS_MEASURED_SCHEMA 1

/* One compared figure ("comparison"."allocated" etc.). */
typedef struct gs_measured_cmp {
	uint64_t predicted, measured;
	bool have;              /* measured: else measured, error_pct and within are null */
	double error_pct;       /* rounded to 0.01 */
	bool within;
} gs_measured_cmp;

/* A component's comparison ("comparison"."W", "O"): informational. */
typedef struct gs_measured_part {
	uint64_t predicted, measured;
	double error_pct;       /* rounded to 0.01 */
} gs_measured_part;

/*
 * One record, every field of the line, in its order. Strings in arrays
 * are "" when absent (longer values are cut); char * strings are owned
 * (gs_measured_clear frees them) and NULL when absent. Byte figures are 0
 * when that figure was not measured (e.g. no NVML process reading, or an
 * out-of-memory result); the writer writes them as null.
 */
typedef struct gs_measured {
	int schema;             /* GS_MEASURED_SCHEMA */
	char date[32];          /* ISO 8601 UTC */
	char gpusizer[32];      /* version of the tool that measured */
	char row[480];          /* MODELSLUG__LABELSLUG */
	char *model;            /* model id as given to verify ("Qwen/Qwen2.5-0.5B"), or the config path */
	char *config;           /* the config.json the harness built the model from */
	char label[256];        /* gs_settings_label of the row */
	char status[16];        /* "ok" or "oom" */
	char verdict[16];       /* "within", "outside", "oom-agrees", "oom-disagrees" */
	double tolerance_pct;
	char *command;          /* the verify command line, shell-quoted */
	gs_settings settings;   /* "settings": every setting of the settings table by name */
	bool have_settings;     /* the record's settings read back (else it joins no row) */
	char key[GS_KEY_MAX];   /* gs_settings_key(settings) after a parse; "" without */
	/* "machine": the host (each part omitted when it could not be read) */
	bool have_uname;
	char os[65], kernel[65], arch[65];
	char *cpu;              /* /proc/cpuinfo "model name"; NULL: omitted */
	bool have_host_memory;
	uint64_t host_memory_bytes;
	/* "gpu" */
	char gpu_name[96];      /* NVML name, "NVIDIA GeForce RTX 4090" */
	char gpu_class[48];     /* gpus/ id when matched, else "" (null) */
	unsigned gpu_index;
	uint64_t gpu_total_bytes, gpu_free_bytes_at_start, gpu_usable_bytes;
	char gpu_usable_from[16]; /* "gpus class" or "driver total" */
	char gpu_driver[80], gpu_cuda[16];
	bool gpu_fake;          /* GPUSIZER_FAKE_GPU (written only when true) */
	/* "predicted": at the time of the run */
	char pred_formula[24];
	char *pred_recipe;
	uint64_t pred_allocated, pred_reserved, pred_device;
	uint64_t pred_W, pred_G, pred_O, pred_A, pred_B;
	char pred_peak_phase[24];
	int pred_peak_step;
	uint64_t pred_params_total, pred_params_trainable;
	/* "measured" */
	uint64_t allocated, reserved, device;
	char device_method[32]; /* "nvml-process", "nvml-device-minus-start", "" (null) */
	unsigned nvml_samples;
	uint64_t device_peak_including_other_processes;
	/* "comparison": the figures (absent for an out-of-memory run), then
	 * the components measured */
	bool have_figures;
	gs_measured_cmp cmp_allocated, cmp_reserved, cmp_device;
	bool have_cmp_W, have_cmp_O;
	gs_measured_part cmp_W, cmp_O;
	char *harness_result;   /* the harness's JSON object (text); NULL: omitted */
	char *harness_path;
	/* Not a field: status is "oom" (the run ran out of memory, "does not
	 * fit" measured); set by the reader. */
	bool oom;
} gs_measured;

typedef struct gs_measured_store {
	gs_measured *rec; /* owned; freed by gs_measured_free */
	size_t n;
	char warning[700]; /* "" or what the load skipped (see gs_measured_load), for the caller to print */
} gs_measured_store;

/* Which figure a report shows. */
typedef enum gs_measured_kind { GS_MK_ALLOCATED = 0, GS_MK_RESERVED, GS_MK_DEVICE, GS_MK_MAX } gs_measured_kind;

/* ---- one record ---- */

/* The record as a new cJSON object (the caller frees it with cJSON_Delete):
 * every field of the list in order, absent ones as null or left out as
 * the list says. Allocation failure exits. */
struct cJSON *gs_measured_to_json(const gs_measured *m);

/* A "settings" object (a record's, or a sizing.json row's) into *s: the
 * defaults, then every setting of the settings table the object names; one
 * missing or null keeps its default (records older than a setting), as does
 * "auto" for a derived one (kv-dtype). Each setting it names counts as
 * given (gs_settings.given): a stack applied after changes only the rest.
 * Keys the table does not know are ignored. GS_EINPUT or GS_EUSAGE naming
 * the setting when a value does not read. */
gs_err gs_settings_from_json(const struct cJSON *obj, gs_settings *s, gs_error *e);

/* The record as JSON text the caller frees: pretty (out/verify/ROW.json,
 * with a final newline) or on one line without a newline (a store line). */
char *gs_measured_format(const gs_measured *m, bool pretty);

/*
 * Read one record from JSON text into *m (zeroed first; the caller frees
 * it with gs_measured_clear, also on failure). GS_EINPUT "not a JSON
 * object" or "missing string \"model\" or \"label\""; other fields are
 * lenient: missing or of the wrong type reads as absent (0, "", NULL).
 */
gs_err gs_measured_parse(const char *text, gs_measured *m, gs_error *e);

/* Free m's owned strings and zero it; accepts a zeroed record. */
void gs_measured_clear(gs_measured *m);

/* ---- the store ---- */

/*
 * Read the store at path (NULL = GS_MEASURED_STORE_DEFAULT). A missing file
 * is an empty store (GS_OK). Blank lines are skipped. A last line without
 * a final newline that is not a record is an incomplete write (a copy or
 * a writer cut off): it is skipped and st->warning names path:line. Any
 * other line that is not a JSON object with "model" and "label" is
 * GS_EINPUT naming path:line (a damaged store is never read in part). The
 * caller frees with gs_measured_free.
 */
gs_err gs_measured_load(const char *path, gs_measured_store *st, gs_error *e);

/* Free the records; accepts an empty or zeroed store. */
void gs_measured_free(gs_measured_store *st);

/* The latest record (last in the file) for model id and row key
 * (gs_settings_key), or NULL. Borrowed from st. */
const gs_measured *gs_measured_find(const gs_measured_store *st, const char *model,
                                    const char *key);

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
 * Whether the store at path (NULL = GS_MEASURED_STORE_DEFAULT) can take
 * one more record, asked before verify spends the GPU's time: its
 * directory (or, when missing, the nearest existing parent, in which
 * the append will create it) is writable, the store (when present) is a
 * regular file that reads as a whole (gs_measured_load's rules, except
 * that an incomplete last line is an error here: an append would bury it
 * in the middle), it leaves GS_MEASURED_ROOM below GS_MEASURED_MAX_BYTES,
 * and its lock, when the lock file exists, is had within
 * gs_lock_wait_default() (and released again). A symbolic link is
 * followed to its target. Changes nothing. Errors name the path (GS_EIO,
 * GS_EINPUT, GS_EBUSY).
 */
gs_err gs_measured_check(const char *path, gs_error *e);

/*
 * Append one record atomically: json_line must be a single JSON object
 * (no newline inside; GS_EINTERNAL otherwise). Under the store's lock
 * (gs_lock on "<store>.lock", beside the file it names: when path is a
 * symbolic link, beside its target, whose link is kept), reads the old
 * store, writes old + line + "\n" to a temporary and renames it over the
 * store (gs_write_file_atomic), creating the directory if needed; so
 * concurrent appends all land. GS_EINPUT when the store ends in an
 * incomplete line or would pass GS_MEASURED_MAX_BYTES, GS_EBUSY when the
 * lock is not had within gs_lock_wait_default(), GS_EIO naming the path on
 * other failures; the old file is then untouched.
 */
gs_err gs_measured_append(const char *path, const char *json_line, gs_error *e);

#endif
