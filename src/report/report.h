/* gpusizer: the sizing matrix as the report writers see it, and the one
 * interface every output format implements. Rows are streamed: a writer
 * must not need all rows of the sweep in memory at once (a sweep may have
 * millions of cells); it may keep one model's rows. */
#ifndef GS_REPORT_H
#define GS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "arch.h"
#include "engine.h"
#include "err.h"
#include "gpu.h"
#include "measured.h"
#include "settings.h"
#include "timing.h"
#include "verdict.h"

struct gs_plan_view; /* plan_view.h */
struct gs_model_eval; /* below */

/* A model of the sweep (borrowed by writers; owned by the driver). */
typedef struct gs_model {
	const char *id;        /* "meta-llama/Llama-3.1-8B" or a config path */
	const char *slug;      /* file-name-safe: "meta-llama--Llama-3.1-8B" */
	const gs_arch *arch;
	const char *param_source; /* where params_total was checked, e.g. "config tally; Hub safetensors 8030261248" */
	const struct gs_model_eval *eval; /* its evaluation (gs_eval_model_begin; complete at the
	                                     writers' model_end, valid until their end), or NULL */
	unsigned methods;      /* the methods the spec sizes it for (1u << gs_method); 0: every one */
} gs_model;

/* A row on one GPU class, evaluated once (gs_row_eval): the verdict, the
 * headroom and the time model there. */
typedef struct gs_cell {
	gs_verdict v;          /* gs_row_verdict */
	double headroom;       /* 1 - device/usable (0 where not runnable) */
	bool timed;            /* t holds the time model on the class: the row has an estimate
	                          and the GPU file the figures (whatever the verdict) */
	gs_time t;
	double step_s, tokens; /* the row's step there (timed): training an optimizer step and
	                          every GPU's tokens, inference a decode step and a token per
	                          sequence, so tokens/s = tokens / step_s */
} gs_cell;

/* Where the row runs and the time model answered (the workbook's step
 * columns), and where it fits, comfortably or tight (the JSON's and the
 * CSV's steps, an answer's time). */
static inline bool gs_cell_runs(const gs_cell *c)
{
	return c->timed && c->v != GS_NOT_RUNNABLE;
}
static inline bool gs_cell_fits(const gs_cell *c)
{
	return c->timed && (c->v == GS_FITS || c->v == GS_TIGHT);
}

/* One configuration row: a model, settings (incl. gpus count and sharding)
 * and its estimates. `seeds` holds the seeds' formulas for the same row,
 * indexed by gs_formula (seeds[GS_F_DETAILED] unused). */
typedef struct gs_row {
	size_t index;          /* stable across runs: order of the sweep */
	const gs_model *model;
	gs_settings settings;
	char label[160];       /* gs_settings_label */
	char id[64];           /* row id: the model's short name and 12 hex digits of the
	                          key's hash, e.g. "llama-3-1-8b-5c0f1e2d3a4b" */
	char key[GS_KEY_MAX];  /* gs_settings_key: joins measurements */
	gs_estimate est;       /* detailed */
	gs_estimate seeds[GS_F_MAX];
	gs_err err;            /* GS_OK, or why this row has no estimate */
	char err_msg[256];
	/* Its evaluation (gs_row_eval), filled before any writer sees it: */
	const gs_cell *cell;   /* [meta->n_gpus], in the meta's GPU order; borrowed for the row's call */
	const gs_measured *measured; /* our latest verified run of it, or NULL */
	size_t answer;         /* its (method, context) in model->eval->answers; SIZE_MAX: none */
	bool answer_taken;     /* it became that answer's configuration (a later row may take it) */
} gs_row;

/* One configuration on one GPU class alone: its best swept GPU count and
 * layout there by the spec's rule (comfortable before tight, then fewer
 * GPUs), from the sweep's rows. */
typedef struct gs_class_fit {
	bool found;            /* the rest when found: */
	int64_t count;
	gs_shard sharding;
	int64_t tp;
	int64_t pp;            /* 1F1B stages (1: none) */
	gs_verdict v;          /* GS_FITS or GS_TIGHT */
	double headroom;
	uint64_t device;       /* per GPU */
} gs_class_fit;

/* The smallest GPU class and count for one method and context of a model,
 * over every row there (gs_best_offer, the spec's rank, eligible classes
 * only), and what the rows there were. */
typedef struct gs_answer {
	gs_method method;
	int64_t seq;
	size_t n_rows;         /* rows at (method, seq), with an estimate or not */
	size_t n_configs;      /* of them with an estimate */
	uint64_t min_device;   /* their least device bytes per GPU (UINT64_MAX: none) */
	gs_settings least;     /* the settings of that row (when n_configs > 0) */
	bool found;            /* the rest when found: */
	size_t gpu;            /* the class, an index into the meta's GPUs */
	int64_t count;
	gs_verdict v;          /* GS_FITS or GS_TIGHT */
	size_t row;            /* the configuration: its row's index (gs_row.index) */
	uint64_t device;       /* its device bytes per GPU */
	gs_settings s;         /* its settings */
	char label[160];
	char row_id[64];
	gs_cell cell;          /* it on that class (the time model's answer there) */
	/* The answer's configuration (else, when none fits, the least one's) on
	 * each class alone, [meta n_gpus], from the rows of that configuration
	 * at this context (its GPU layouts): set at gs_eval_model_end, valid
	 * until the next gs_eval_model_begin. By the one rule the answer's own
	 * class holds the answer (count, layout) and no class ranks before it. */
	const gs_class_fit *fit;
} gs_answer;

/* A model's evaluation (gs_eval_model_begin): its answers, in the order of
 * their first rows, the plan view (searched at gs_eval_model_end), and per
 * method the settings of its first row with an estimate and those that
 * differ among its rows (gs_settings_differ: what a label needs to name a
 * configuration among the method's). Owned by the gs_eval. */
typedef struct gs_model_eval {
	const gs_answer *answers;
	size_t n_answers;
	const struct gs_plan_view *plan; /* valid until the next gs_eval_model_begin */
	bool present[GS_METHOD_MAX];
	gs_settings first[GS_METHOD_MAX];
	uint64_t varies[GS_METHOD_MAX];
} gs_model_eval;

/* The verdict rule (gs_verdict_of) for a row: a row without an estimate
 * is not runnable. */
gs_verdict gs_row_verdict(const gs_row *r, const gs_gpu *g, double *headroom);

/* What every writer gets at the start. */
typedef struct gs_report_meta {
	const char *spec_path;
	const char *out_dir;       /* write files under here (atomically) */
	const gs_gpu *gpus;        /* the GPU classes (columns), sorted */
	size_t n_gpus;
	const gs_model *models;
	size_t n_models;
	int64_t epoch;             /* SOURCE_DATE_EPOCH or spec "date"; for XLSX */
	const char *tool_version;
	const char *assumptions;   /* Markdown text: the named assumptions */
	const gs_measured_store *measured; /* our own verified runs (never NULL; may be empty) */
	const struct gs_plan_opts *plan;   /* the spec's plan view; NULL: every class, least memory */
	const struct gs_time_opts *time;   /* the spec's "time" (runtime, token budget); NULL: the
	                                      time model's defaults, no budget */
} gs_report_meta;

/* The text for gs_report_meta.assumptions: templates/partials/assumptions.md.tmpl
 * rendered (the templates directory of gs_mdgen_templates_dir; a template
 * error is GS_ETEMPLATE naming the file). *text is the caller's to free. */
gs_err gs_report_assumptions(char **text, gs_error *e);

/*
 * A row is evaluated once. The report driver evaluates every row before
 * any writer sees it: per GPU class its verdict, headroom and the time
 * model, its verified run, and per model the answers (the smallest GPU of
 * every method and context, by the one rule) and the plan view. Writers
 * only format what it computed: none calls the time model or the
 * planner's searches (tests/unit/test_rows.c counts the calls).
 *
 *   ev = gs_eval_new(&meta);
 *   for each model: gs_eval_model_begin(ev, &model); writers' model_begin;
 *     for each row: gs_row_eval(ev, &row); writers' row;
 *     gs_eval_model_end(ev); writers' model_end;
 *   writers' end; gs_eval_free(ev);
 */
typedef struct gs_eval gs_eval;

/* An evaluation for the report m describes (m and what it points to are
 * borrowed for its life). The caller frees it with gs_eval_free, after
 * the writers' end. */
gs_eval *gs_eval_new(const struct gs_report_meta *m);
/* Start model md: md->eval is set (until gs_eval_free, which clears it);
 * the previous model's plan view and its answers' fit are released. */
void gs_eval_model_begin(gs_eval *ev, gs_model *md);
/* Evaluate r, a row of the model begun last: its cells (valid until the
 * next row), its verified run, its answer. */
void gs_row_eval(gs_eval *ev, gs_row *r);
/* The model's rows are in: its plan view's searches run. */
void gs_eval_model_end(gs_eval *ev);
void gs_eval_free(gs_eval *ev);

/* The text reports show for verified run mr of a row estimated as x:
 * gs_measured_text of the device figure (or the one recorded) against
 * today's prediction of the same kind. */
void gs_measured_row_text(const gs_measured *mr, const gs_estimate *x, char *buf, size_t n);

/* One output format. Calls: begin, then for each model: model_begin, rows,
 * model_end, then end. free is always called (also after a failure).
 * Writers write through gs_atomic (util.h): a failure leaves old files. */
typedef struct gs_writer gs_writer;
struct gs_writer {
	const char *name; /* its registry row's name (gs_writer_ops): "md", "xlsx", ... */
	gs_err (*begin)(gs_writer *w, const gs_report_meta *m, gs_error *e);
	gs_err (*model_begin)(gs_writer *w, const gs_model *model, gs_error *e);
	gs_err (*row)(gs_writer *w, const gs_row *r, gs_error *e);
	gs_err (*model_end)(gs_writer *w, const gs_model *model, gs_error *e);
	gs_err (*end)(gs_writer *w, gs_error *e);
	void (*free)(gs_writer *w);
	void *state;
};

/* The JSON document of out/sizing.json, also what `estimate --json` prints
 * (one model, one row): gs_json_doc_begin writes the header, the GPU
 * classes and the models and opens "rows"; gs_json_row writes one row,
 * evaluated (gs_row_eval; first: the first of the document); gs_json_doc_end closes it. The
 * schema is documented in gpusizer(1), JSON OUTPUT. */
void gs_json_doc_begin(FILE *fp, const gs_report_meta *m);
void gs_json_row(FILE *fp, const gs_report_meta *m, const gs_row *r, bool first);
void gs_json_doc_end(FILE *fp, size_t rows);

/* Constructors, one per format (each in report/<fmt>.c). */
gs_writer *gs_writer_md(void);   /* Markdown (+ SVG charts) */
gs_writer *gs_writer_html(void); /* the same pages, rendered by cmark-gfm */
gs_writer *gs_writer_xlsx(void);
gs_writer *gs_writer_json(void);
gs_writer *gs_writer_csv(void);
/* The same documents gzip-compressed: sizing.json.gz, sizing.csv.gz. */
gs_writer *gs_writer_json_gz(void);
gs_writer *gs_writer_csv_gz(void);

/* The writer registry (report/writers.c): one row per output format, in
 * the order the driver runs them. name: the spec's "formats" and
 * --format's word (the writer's gs_writer.name); by_default: written when
 * the spec names no formats; make: its constructor; file: what it writes
 * under the output directory (its first file, for the tests and the
 * docs); download: whether the HTML pages link that file as a download
 * (in file-name order). The spec's checks, --format's help, the driver
 * and the HTML pages' downloads all read it. */
typedef struct gs_writer_ops {
	const char *name;
	bool by_default;
	gs_writer *(*make)(void);
	const char *file;
	bool download;
} gs_writer_ops;

/* The registry's rows (static), *n of them. */
const gs_writer_ops *gs_writer_registry(size_t *n);
/* The format named s, or NULL. */
const gs_writer_ops *gs_writer_find(const char *s);
/* Every format's name, in order, joined by ", " ("md, html, ..."). */
void gs_writer_names(char *buf, size_t n);

#endif
