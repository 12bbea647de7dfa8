/* gpusizer: the sweep spec (sizing.json): models, axes, GPU classes and
 * counts, formats, output directory. Parsed with cJSON and validated
 * (every error names the file, the line and the key: GS_ESPEC). The
 * format is documented in docs/spec.md. */
#ifndef GS_SPEC_H
#define GS_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "settings.h"

/* A list of values as text (what gs_settings_set takes). The spec owns
 * the strings. `line` is where the key stands (0 when set by a flag). */
typedef struct gs_spec_list {
	char **v;
	size_t n;
	int line;
} gs_spec_list;

typedef struct gs_spec_count {
	int64_t count;
	char sharding[16];
	int64_t tp;
	unsigned methods; /* "methods": the layout's methods, bits 1u << gs_method; 0: every method */
} gs_spec_count;

/* The axes that are swept, in the order rows are nested (outermost first
 * after the model): method, stack, precision, optimizer, lora_r,
 * lora_targets, grad_ckpt, attn, batch, seq, then the GPU counts. An axis
 * the spec does not name keeps the setting's default (or what the row's
 * stack chooses). */
enum {
	GS_AX_METHOD = 0, GS_AX_OPTIMIZER, GS_AX_LORA_R, GS_AX_LORA_TARGETS, GS_AX_GRAD_CKPT,
	GS_AX_ATTN, GS_AX_BATCH, GS_AX_SEQ, GS_AX_MAX
};

typedef struct gs_spec {
	char *path;              /* for messages */
	char *text;              /* the spec's text, for line numbers */
	int version;
	int64_t epoch;           /* "date" at 00:00 UTC, seconds */
	char date[16];
	gs_spec_list models;     /* ids or config paths (paths resolved as below) */
	gs_spec_list gpus;       /* GPU ids; n == 0: every file in gpus_dir */
	gs_spec_count *counts;
	size_t n_counts;
	int counts_line;
	gs_spec_list axis[GS_AX_MAX];
	gs_spec_list prec[GS_METHOD_MAX]; /* precisions per method */
	bool prec_given[GS_METHOD_MAX];   /* the spec (or a flag) named that method's precisions */
	/* "axes.stack": stack texts per method (n == 0: the row's default
	 * stack); the stack goes over each row's settings, except those given:
	 * the axes and precisions the spec names, its fixed settings and the
	 * GPU layouts (given: their gs_setting_bit). */
	gs_spec_list stack[GS_METHOD_MAX];
	uint64_t given;
	gs_spec_list set_names, set_values; /* "settings": fixed for every row */
	gs_spec_list formats;
	/* "rank": plan_rank, a gs_plan_rank (default GS_RANK_DEFAULT): how the
	 * index, the Summary and the plan view name the smallest GPU. "plan":
	 * the plan view (plan_view.h): plan_gpus, GPU ids (n == 0: every class
	 * of the report), and plan_max_gpus, searched up to (default
	 * GS_PLAN_VIEW_MAX_GPUS). */
	gs_spec_list plan_gpus;
	int plan_rank;
	/* "eligible": the GPU segments (gpu.h gs_segment) that may be named
	 * smallest, as a bit set (1u << segment); 0: every class. */
	unsigned eligible;
	int64_t plan_max_gpus;
	/* "time": {"tokens": N, "runtime": NAME, "train_runtime": NAME}, each
	 * optional: the training token budget whose hours (and, priced, cost)
	 * the reports show beside each answer (0: none), the inference runtime
	 * of the time model (a gs_runtime; default GS_RT_HF) and its training
	 * stack (a gs_train_runtime; default GS_TRT_PYTORCH). */
	double time_tokens;
	int time_runtime;
	int time_train_runtime;
	bool time_runtime_given, time_train_runtime_given; /* named: else each row's stack decides */
	/* Paths: relative ones in the spec are resolved against the spec
	 * file's directory (kept as written when that is the current
	 * directory: a spec path without '/', or "./"). Absent keys: */
	char *out;               /* <spec dir>/out */
	char *models_dir;        /* gs_models_dir_default() (paths.h) */
	char *gpus_dir;          /* gs_data_path(GS_DATA_GPUS) (paths.h) */
} gs_spec;

/* The settings name (gs_settings_set) of an axis, and its spec key. */
const char *gs_spec_axis_setting(int axis);
const char *gs_spec_axis_key(int axis);

/* Read and validate a spec file. On failure sp is freed/zeroed.
 * "out", "models_dir", "gpus_dir" and the "models" entries that name config
 * files (ending in .json, starting with ./ or ../, or naming a file or a
 * directory with config.json beside the spec) are resolved against the
 * spec file's directory; flag overrides (gs_spec_override, --out,
 * --models-dir, --gpus-dir) are not: they are the caller's, relative to
 * the current directory. The caller frees a loaded spec with gs_spec_free. */
gs_err gs_spec_load(const char *path, gs_spec *sp, gs_error *e);
/* Same from text (path names it in messages, and its directory is what
 * relative paths in the spec are resolved against). */
gs_err gs_spec_parse(const char *text, const char *path, gs_spec *sp, gs_error *e);
void gs_spec_free(gs_spec *sp);

/*
 * Override a part of the spec from a command-line flag value (a comma
 * list): "models", "gpus", "formats", "methods", "precisions" (applies to
 * every method; combinations a method rejects are skipped), "optimizers",
 * "batches", "seqs", "grad-ckpt", "lora-r", "lora-targets", "attn",
 * "gpu-counts" (COUNT[:SHARDING[:TP]],...). GS_EUSAGE on a bad value.
 */
gs_err gs_spec_override(gs_spec *sp, const char *what, const char *csv, gs_error *e);

/* Line (1-based) of a key given as a dotted path ("axes.batch"); with
 * index >= 0, the line of that element of the array at the path. 0 when
 * not found. */
int gs_spec_line(const char *text, const char *path, int index);

#endif
