/* gpusizer: the plan view of a report (`gpusizer report`: each model's page
 * and the workbook's Plan sheet): for each model, method, eligible GPU
 * class and swept context, the fewest GPUs of the class that run one
 * configuration, and the longest context that runs on one GPU.
 *
 * With the model's answers (gs_plan_view_answers, what a report does), the
 * configuration at each context is the answer's (its row's settings; where
 * nothing fits, the row needing the least memory per GPU), and a class's
 * count is that configuration's best swept layout there (gs_answer.fit,
 * from the evaluated rows), so the answer's class holds the answer and no
 * class ranks before it; where no swept layout of it fits the class, the
 * planner's search (gs_plan_count: any count up to max_gpus, any layout)
 * gives the count, marked searched. Without answers every cell is the
 * search for the sweep's first configuration of the method, and the best
 * class at a context is chosen by the spec's ranking rule. The longest
 * context on one GPU (gs_plan_max) is for the sweep's first configuration
 * of the method. Pure: estimates only, no I/O. */
#ifndef GS_PLAN_VIEW_H
#define GS_PLAN_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch.h"
#include "gpu.h"
#include "search.h"
#include "report.h"
#include "settings.h"

/* What the spec says: classes of the view, indexes into the report's GPU
 * classes (gs_report_meta.gpus), in the order shown (NULL with n_classes 0:
 * GS_PLAN_VIEW_CLASSES of them, below); the ranking rule (the spec's
 * "rank", for the index and the Summary too). Borrowed. */
typedef struct gs_plan_opts {
	const size_t *classes;
	size_t n_classes;
	gs_plan_rank rank;
	int64_t max_gpus; /* searched up to; <= 0: GS_PLAN_VIEW_MAX_GPUS */
	unsigned segments; /* eligible segments, bits 1u << gs_segment; 0: every class */
} gs_plan_opts;

/* Whether g may be named smallest (the spec's "eligible"): every class when
 * o or its segments are unset; else a class of a listed segment (a class
 * whose file names no segment is then left out). The index, the Summary
 * and the plan view ask this one question. */
bool gs_plan_opts_eligible(const gs_plan_opts *o, const gs_gpu *g);
/* For readers: "every GPU class", or "consumer and datacenter GPU classes
 * only" (the spec's "eligible"). */
void gs_plan_opts_eligible_text(const gs_plan_opts *o, char *buf, size_t n);

#define GS_PLAN_VIEW_MAX_GPUS 64

/* What o says, or the default when o (or its field) is unset: the rule
 * (GS_RANK_DEFAULT) and the count searched up to (GS_PLAN_VIEW_MAX_GPUS). */
gs_plan_rank gs_plan_opts_rank(const gs_plan_opts *o);
int64_t gs_plan_opts_max_gpus(const gs_plan_opts *o);

/* Classes shown when the spec names none: all, when there are at most this
 * many, else this many spread from the smallest to the largest. */
#define GS_PLAN_VIEW_CLASSES 8

/* What the search found for a class at one context. */
typedef enum gs_plan_state {
	GS_PC_FOUND = 0,    /* the fewest count is in the cell */
	GS_PC_NONE,         /* nothing fits up to max_gpus */
	GS_PC_NEEDS_BF16,   /* the class lacks the bf16 the settings need */
	GS_PC_NEEDS_FP8,    /* ... or the fp8 */
	GS_PC_NO_ESTIMATE,  /* the engine has no estimate for these settings */
	GS_PC_MAX
} gs_plan_state;

/* One answer: the fewest GPUs of a class at one context. */
typedef struct gs_plan_cell {
	gs_plan_state state;
	int64_t count;       /* the rest: when GS_PC_FOUND */
	gs_shard sharding;
	int64_t tp;
	int64_t pp;          /* 1F1B stages of a swept layout (1: none; the planner's search has none) */
	uint64_t device;     /* per GPU at the answer */
	double headroom;
	gs_verdict v;        /* GS_FITS or GS_TIGHT */
	bool searched;       /* the planner's search, not a swept layout */
} gs_plan_cell;

/* One method of one model. Arrays owned (gs_plan_view_free). */
typedef struct gs_plan_method {
	bool present;        /* the sweep has a row of this method with an estimate */
	gs_settings base;    /* the sweep's first configuration (its seq and GPU layout replaced) */
	char label[160];     /* gs_settings_label of base at one GPU, without the context */
	int64_t *seqs;       /* the swept contexts, ascending, distinct */
	size_t nseq;
	const gs_answer **answer; /* [k]: the model's answer there, NULL: none (borrowed) */
	gs_settings *at;     /* [k]: the configuration sized there (the answer's, the least
	                        one's, else base at that context) */
	gs_plan_cell *cells; /* [class * nseq + k] */
	int64_t *longest;    /* [class]: longest context on one GPU, 0 when none */
	bool *bounded;       /* [class]: the model's max_position_embeddings, not memory, stopped it */
	size_t *best;        /* [k]: the best class (index into the view's classes): the
	                        answer's; without answers the rule's; SIZE_MAX: none */
} gs_plan_method;

typedef struct gs_plan_view {
	const gs_gpu *gpus;  /* borrowed: the report's classes */
	size_t n_gpus;
	const gs_answer *answers; /* borrowed (gs_plan_view_answers), or NULL */
	size_t n_answers;
	size_t *classes;     /* owned: indexes into gpus, in the order shown: the spec's
	                        (n_named of them), then those the answers name */
	size_t n_classes, n_named;
	gs_plan_rank rank;
	int64_t max_gpus;
	gs_plan_method m[GS_METHOD_MAX];
} gs_plan_view;

/* Start a view for one model (v zeroed and set up; o may be NULL: the
 * default classes, GS_RANK_DEFAULT, GS_PLAN_VIEW_MAX_GPUS). gpus are sorted
 * by usable memory (as the report's are). */
void gs_plan_view_init(gs_plan_view *v, const gs_gpu *gpus, size_t n_gpus, const gs_plan_opts *o);
/* Take one row of the sweep (in sweep order): the first row of a method
 * that has an estimate is its starting point; every row's context joins
 * the method's contexts. */
void gs_plan_view_row(gs_plan_view *v, const gs_row *r);
/* The model's answers (its evaluation's, complete: after its last row),
 * borrowed until gs_plan_view_free: the view sizes their configurations and
 * adds the classes they name (eligible ones) after the spec's. */
void gs_plan_view_answers(gs_plan_view *v, const gs_answer *answers, size_t n);
/* Fill the view for arch a (after the model's last row): the cells from
 * the answers' fit, else the searches; a NULL a (a model without a shape)
 * gives GS_PC_NO_ESTIMATE cells. */
void gs_plan_view_compute(gs_plan_view *v, const gs_arch *a);
/* The layout of count GPUs: "tp N" (inference over N GPUs), else the
 * sharding's name ("ddp" on one GPU); under pp stages (training's 1F1B)
 * "[tp N ]pp M", with the sharding where data-parallel ranks remain. */
void gs_layout_text(int64_t count, gs_shard sharding, int64_t tp, int64_t pp, char *buf, size_t n);
/* The layout of a found cell (gs_layout_text). */
void gs_plan_cell_layout(const gs_plan_cell *c, char *buf, size_t n);
/* Short text of a cell: "1", "4 (zero3)", "2 (tp 2)", "8 (fsdp2, tight)",
 * "none up to 64", "needs bf16", "needs fp8", "no estimate" (searched or
 * not: the caller marks that). */
void gs_plan_cell_text(const gs_plan_view *v, const gs_plan_cell *c, char *buf, size_t n);
void gs_plan_view_free(gs_plan_view *v);

#endif
