/* gpusizer: the time model's outputs as one table (report/timefields.c),
 * as curl's write-out variables are: one row per figure a reader sees, with
 * where it comes from (a gs_cell: the time model's gs_time, or the row's
 * step), how it is written in JSON and CSV, for which methods, in which
 * outputs, when it is null, its workbook column and how the text of
 * estimate and plan says it. estimate (text and --json), plan (text and
 * --json) and the report's CSV, JSON and workbook all walk it; a figure
 * added here reaches every output its row names. */
#ifndef GS_TIMEFIELDS_H
#define GS_TIMEFIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"

enum { /* gs_time_field.out: where the field is written */
	GS_TF_ESTIMATE = 1u << 0, /* estimate --json: a class's member of "time" */
	GS_TF_PLAN = 1u << 1,     /* plan --json: a class's "time" at its fewest count */
	GS_TF_ROW = 1u << 2,      /* a report row: one value (CSV column, JSON "time" member,
	                             workbook column), from the first class where it fits (the
	                             workbook: runs) */
	GS_TF_CLASS = 1u << 3,    /* a report row: one value per class where it fits (the
	                             workbook: runs): CSV "<gpu id> KEY", JSON "gpu_KEY" */
};

/* Its value: a number (a double at off), or the name of the matmul kernel
 * (a gs_kernel at off: its JSON and CSV text is the quoted name). */
typedef enum gs_tf_kind { GS_TK_NUM = 0, GS_TK_KERNEL } gs_tf_kind;

/* When a number is null in JSON: never, without a price, or without a price
 * or a token budget. */
typedef enum gs_tf_null { GS_TN_NEVER = 0, GS_TN_UNPRICED, GS_TN_UNPRICED_OR_NO_BUDGET } gs_tf_null;

enum { /* gs_time_field.when: when its text shows (all must hold) */
	GS_TW_BUDGET = 1u << 0,     /* there is a token budget */
	GS_TW_POSITIVE = 1u << 1,   /* the value is above 0 */
	GS_TW_NEW_TOKENS = 1u << 2, /* inference generates tokens */
};

/* How estimate's and plan's text say it (gs_time_texts). */
typedef enum gs_tf_text { GS_TT_ESTIMATE = 0, GS_TT_PLAN, GS_TT_MAX } gs_tf_text;

typedef struct gs_time_field {
	const char *key;      /* JSON key; CSV column (a GS_TF_CLASS one: "<gpu id> KEY") */
	size_t off;           /* offsetof(gs_cell, ...): t.step_s, or the row's step_s */
	const char *fmt;      /* its JSON and CSV text: "%.6g" */
	unsigned methods;     /* GS_M() of the methods it is for */
	unsigned out;         /* GS_TF_* */
	gs_tf_kind kind;
	gs_tf_null null;
	const char *title;    /* GS_TF_ROW, GS_TF_CLASS: the workbook's column heading (a
	                         class's: "TITLE, <class>") */
	bool count;           /* a count: the workbook shows it as a whole number */
	const char *text[GS_TT_MAX]; /* how the text says it, NULL: not at all. Directives:
	                         %S seconds, %U dollars, %P percent (x 100, no decimals),
	                         %B the token budget (a count), %% a '%';
	                         %.Nf or %.Ng the value */
	unsigned when;        /* GS_TW_*: when the text shows */
} gs_time_field;

/* The table (static), *n rows, in the order the outputs write them. */
const gs_time_field *gs_time_fields(size_t *n);

/* What a field's null rule and texts depend on besides the time. */
typedef struct gs_time_ctx {
	double price;        /* the class's USD a GPU-hour (0: none) */
	double budget;       /* the training token budget (0: none) */
	int64_t new_tokens;  /* inference: the tokens generated */
} gs_time_ctx;

/* The field of output `out` (any method) keyed key, NULL if none. */
const gs_time_field *gs_time_field_find(const char *key, unsigned out);
/* Whether field f belongs in output `out` for method m. */
bool gs_time_field_in(const gs_time_field *f, unsigned out, gs_method m);
/* f's number in cell c (a GS_TK_KERNEL: the gs_kernel's value). */
double gs_time_field_value(const gs_time_field *f, const gs_cell *c);
/* f's JSON and CSV text in cell c: fmt's, a kernel's quoted name, or "null" (its
 * null rule under x). Returns buf. */
char *gs_time_field_text(const gs_time_field *f, const gs_cell *c, const gs_time_ctx *x, char *buf, size_t n);

/* The fields of output `out` (GS_TF_ESTIMATE or GS_TF_PLAN) for method m,
 * each as SEP "key" COLON value: estimate writes ", " and ": ", plan ","
 * and ":". */
void gs_time_fields_json(FILE *fp, unsigned out, gs_method m, const gs_cell *c, const gs_time_ctx *x,
                         const char *sep, const char *colon);
/* A report row's GS_TF_ROW and GS_TF_CLASS fields in sizing.json: the
 * member "time": {"KEY": value, "gpu_KEY": {"<gpu id>": value, ...}} over
 * the classes where the row fits, or "time": null where it fits nowhere
 * (gpus: the row's classes, cells its cells). */
void gs_time_fields_row_json(FILE *fp, const gs_row *r, const gs_gpu *gpus, size_t n_gpus);
/* The same as CSV: the header's columns (KEY, "<gpu id> KEY"; every field,
 * each after a comma, written by the CSV's text), or a row's values (empty
 * where it does not fit). */
void gs_time_fields_csv_head(FILE *fp, const gs_gpu *gpus, size_t n_gpus, void (*text)(FILE *, const char *));
void gs_time_fields_csv(FILE *fp, const gs_row *r, size_t n_gpus);
/* The text of estimate or plan (which) for method m: every field with a
 * text there, in order, where its `when` holds. */
void gs_time_texts(FILE *fp, gs_tf_text which, gs_method m, const gs_cell *c, const gs_time_ctx *x);

#endif
