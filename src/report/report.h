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
#include "verdict.h"

/* A model of the sweep (borrowed by writers; owned by the driver). */
typedef struct gs_model {
	const char *id;        /* "meta-llama/Llama-3.1-8B" or a config path */
	const char *slug;      /* file-name-safe: "meta-llama--Llama-3.1-8B" */
	const gs_arch *arch;
	const char *param_source; /* where params_total was checked, e.g. "config tally; Hub safetensors 8030261248" */
	unsigned methods;      /* the methods the spec sizes it for (1u << gs_method); 0: every one */
} gs_model;

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
} gs_row;

/* The same for a row (a row without an estimate is not runnable). */
gs_verdict gs_row_verdict(const gs_row *r, const gs_gpu *g, double *headroom);
struct gs_report_meta; /* below */
/* A row's step on class g by the time model (timing.h, with m->time):
 * *step_s its seconds (training: an optimizer step; inference: a decode
 * step) and *tokens what it processes (every GPU's tokens; inference: a
 * token per sequence), so tokens/s = *tokens / *step_s. false where the
 * row has no estimate, the GPU file lacks a figure, or the row does not run
 * on g: with fits_only, a verdict other than fits or tight; else not
 * runnable (the GPU lacks bf16 or fp8). Pure. */
bool gs_row_step(const struct gs_report_meta *m, const gs_row *r, const gs_gpu *g, bool fits_only,
                 double *step_s, double *tokens);
struct gs_plan_opts; /* plan_view.h */

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

/* The latest verified run of row r in m's store, or NULL (borrowed). */
const gs_measured *gs_row_measured(const gs_report_meta *m, const gs_row *r);

/* The text reports show for verified run mr of a row estimated as x:
 * gs_measured_text of the device figure (or the one recorded) against
 * today's prediction of the same kind. */
void gs_measured_row_text(const gs_measured *mr, const gs_estimate *x, char *buf, size_t n);

/* One output format. Calls: begin, then for each model: model_begin, rows,
 * model_end, then end. free is always called (also after a failure).
 * Writers write through gs_atomic (util.h): a failure leaves old files. */
typedef struct gs_writer gs_writer;
struct gs_writer {
	const char *name; /* "md", "html", "xlsx", "json", "csv", "json.gz", "csv.gz" */
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
 * classes and the models and opens "rows"; gs_json_row writes one row
 * (first: the first of the document); gs_json_doc_end closes it. The
 * schema is documented in gpusizer(1), JSON OUTPUT. */
void gs_json_doc_begin(FILE *fp, const gs_report_meta *m);
void gs_json_row(FILE *fp, const gs_report_meta *m, const gs_row *r, bool first);
void gs_json_doc_end(FILE *fp, size_t rows);

/* Constructors, one per format (each in report_<fmt>.c). */
gs_writer *gs_writer_md(void);   /* Markdown (+ SVG charts) */
gs_writer *gs_writer_html(void); /* the same pages, rendered by cmark-gfm */
gs_writer *gs_writer_xlsx(void);
gs_writer *gs_writer_json(void);
gs_writer *gs_writer_csv(void);
/* The same documents gzip-compressed: sizing.json.gz, sizing.csv.gz. */
gs_writer *gs_writer_json_gz(void);
gs_writer *gs_writer_csv_gz(void);

#endif
