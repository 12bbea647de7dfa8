/* gpusizer: the sweep spec (sizing.json): models, axes, GPU classes and
 * counts, formats, output directory. Parsed with cJSON and validated
 * (every error names the file, the line and the key: GS_ESPEC). The
 * format is documented in docs/spec.md. */
#ifndef GS_SPEC_H
#define GS_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
	int64_t pp;       /* "pp": 1F1B pipeline stages (training rows only; 1: none) */
	unsigned methods; /* "methods": the layout's methods, bits 1u << gs_method; 0: every method */
} gs_spec_count;

typedef struct gs_spec {
	char *path;              /* for messages */
	bool tool_default;       /* read by gs_spec_load_default (paths below) */
	char *text;              /* the spec's text, for line numbers */
	int version;
	int64_t epoch;           /* "date" at 00:00 UTC, seconds */
	char date[16];
	gs_spec_list models;     /* ids or config paths (paths resolved as below) */
	unsigned *model_methods; /* per model: the methods its entry names (1u << gs_method);
	                            0, or NULL for all: every method */
	gs_spec_list gpus;       /* GPU ids; n == 0: every file in gpus_dir */
	gs_spec_count *counts;
	size_t n_counts;
	int counts_line;
	/* The axes' lists, at the axis's place in the sweep (gs_settings_axis(k)
	 * is axis[k]): a per-method axis (precision, stack) keeps one list per
	 * method in prec[] or stack[] instead (gs_spec_method_lists), the GPU
	 * layouts theirs in counts. given: the settings the spec names (an axis,
	 * a fixed setting: gs_setting_bit), which no stack changes; an axis it
	 * does not name is left to each row's stack. */
	gs_spec_list axis[GS_AXES_MAX];
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
	/* "commit": the formats whose files go into out, the directory a
	 * repository commits (n == 0: every format); the other formats are
	 * built for publishing beside it, into publish_dir. */
	gs_spec_list commit;
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
	char *publish_dir;       /* <spec dir>/publish */
} gs_spec;

/* The list of the axis that sweeps the setting named (sp->axis[k]), NULL
 * when the setting is not an axis with a list of its own. */
const gs_spec_list *gs_spec_axis(const gs_spec *sp, const char *setting);

/* Whether a format's files are committed (go into out): the spec has no
 * "commit", or lists the format there. */
bool gs_spec_committed(const gs_spec *sp, const char *format);

/* Read and validate a spec file. On failure sp is freed/zeroed.
 * "out", "publish_dir", "models_dir", "gpus_dir" and the "models" entries that name config
 * files (ending in .json, starting with ./ or ../, or naming a file or a
 * directory with config.json beside the spec) are resolved against the
 * spec file's directory; flag overrides (gs_spec_override, --out,
 * --models-dir, --gpus-dir) are not: they are the caller's, relative to
 * the current directory. The caller frees a loaded spec with gs_spec_free. */
gs_err gs_spec_load(const char *path, gs_spec *sp, gs_error *e);
/* The tool's own spec, the committed sizing.json installed in the data
 * directory (GS_DATA_SPEC, paths.h), as `report` reads it without --spec
 * and without a ./sizing.json: as gs_spec_load, but its "out" and
 * "publish_dir" (and config paths in "models") are relative to the current
 * directory, where the report goes, and its "models_dir" is the model
 * cache (gs_models_dir_default; the data directory may not be writable,
 * and its reference configs are read after the cache); "gpus_dir" stays
 * the data directory's. */
gs_err gs_spec_load_default(const char *path, gs_spec *sp, gs_error *e);
/* Same from text (path names it in messages, and its directory is what
 * relative paths in the spec are resolved against). */
gs_err gs_spec_parse(const char *text, const char *path, gs_spec *sp, gs_error *e);
void gs_spec_free(gs_spec *sp);

/*
 * Override a part of the spec from a command-line flag value (a comma
 * list): "models", "gpus", "formats", or an axis by its report option
 * (gs_axis.option: "methods", "precisions" (applies to every method;
 * combinations a method rejects are skipped), "batches", ...,
 * "gpu-counts" (COUNT[:SHARDING[:TP[:PP]]],...)). GS_EUSAGE on a bad value.
 */
gs_err gs_spec_override(gs_spec *sp, const char *what, const char *csv, gs_error *e);

/* Line (1-based) of a key given as a dotted path ("axes.batch"); with
 * index >= 0, the line of that element of the array at the path. 0 when
 * not found. */
int gs_spec_line(const char *text, const char *path, int index);

/* The per-method lists of a per-method axis d (precision: sp->prec,
 * stack: sp->stack), one a method (borrowed), and *named: which methods
 * the spec named (NULL where a non-empty list says it). */
static inline gs_spec_list *gs_spec_method_lists(const gs_spec *sp, const gs_setting *d, const bool **named)
{
	bool stack = strcmp(d->name, "stack") == 0;

	*named = stack ? NULL : sp->prec_given;
	return (gs_spec_list *)(stack ? sp->stack : sp->prec);
}

#endif
