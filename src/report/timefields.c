/* gpusizer: the time-field table and its walks (see timefields.h). */
#include "timefields.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jw.h"
#include "timing.h"

#define T(field) offsetof(gs_cell, t.field)
#define E GS_TF_ESTIMATE
#define P GS_TF_PLAN
#define INFER GS_M(GS_INFER)
#define TEXT(estimate, plan) { estimate, plan }

/* In the order every output writes them: estimate --json's members (plan
 * --json's are a subset in the same order), then the report's. */
static const gs_time_field fields[] = {
	{ "peak_tflops", T(peak_tflops), "%.6g", GS_M_ALL, E, GS_TK_NUM, GS_TN_NEVER, NULL, false,
	  TEXT(NULL, NULL), 0 },
	{ "gemm_efficiency", T(eff), "%.4g", GS_M_ALL, E, GS_TK_NUM, GS_TN_NEVER, NULL, false, TEXT(NULL, NULL), 0 },
	{ "tp_comm_s", T(tp_comm_s), "%.6g", GS_M_ALL, E | P, GS_TK_NUM, GS_TN_NEVER, NULL, false,
	  TEXT(NULL, NULL), 0 },
	/* inference */
	{ "kernel", T(kernel), NULL, INFER, E, GS_TK_KERNEL, GS_TN_NEVER, NULL, false, TEXT(NULL, NULL), 0 },
	/* inference */
	{ "prefill_s", T(prefill_s), "%.6g", INFER, E | P, GS_TK_NUM, GS_TN_NEVER, NULL, false,
	  TEXT("prefill %S", "  prefill %S"), 0 },
	{ "decode_step_s", T(decode_step_s), "%.6g", INFER, E | P, GS_TK_NUM, GS_TN_NEVER, NULL, false,
	  TEXT(NULL, NULL), 0 },
	{ "decode_tokens_per_s_seq", T(decode_tok_s_seq), "%.6g", INFER, E | P, GS_TK_NUM, GS_TN_NEVER, NULL, false,
	  TEXT("  decode %.1f tokens/s a sequence", ", decode %.1f tokens/s a sequence"), 0 },
	{ "decode_tokens_per_s_total", T(decode_tok_s_total), "%.6g", INFER, E | P, GS_TK_NUM, GS_TN_NEVER,
	  NULL, false, TEXT(", %.1f total", NULL), 0 },
	{ "generate_s", T(generate_s), "%.6g", INFER, E, GS_TK_NUM, GS_TN_NEVER, NULL, false,
	  TEXT("  generate %S", NULL), GS_TW_NEW_TOKENS },
	{ "decode_bytes", T(decode_bytes), "%.6g", INFER, E, GS_TK_NUM, GS_TN_NEVER, NULL, false, TEXT(NULL, NULL), 0 },
	{ "kv_read_bytes", T(kv_read_bytes), "%.6g", INFER, E, GS_TK_NUM, GS_TN_NEVER, NULL, false,
	  TEXT(NULL, NULL), 0 },
	{ "cache_copy_bytes", T(cache_copy_bytes), "%.6g", INFER, E, GS_TK_NUM, GS_TN_NEVER, NULL, false,
	  TEXT(NULL, NULL), 0 },
	{ "usd_per_million_tokens", T(usd_per_mtok), "%.6g", INFER, E | P, GS_TK_NUM, GS_TN_UNPRICED, NULL, false,
	  TEXT("  %U per M tokens", ", %U per M tokens"), GS_TW_POSITIVE },
	/* training */
	{ "step_s", T(step_s), "%.6g", GS_M_TRAIN, E | P, GS_TK_NUM, GS_TN_NEVER, NULL, false,
	  TEXT("step %S", "  step %S"), 0 },
	{ "compute_s", T(compute_s), "%.6g", GS_M_TRAIN, E, GS_TK_NUM, GS_TN_NEVER, NULL, false, TEXT(NULL, NULL), 0 },
	{ "comm_s", T(comm_s), "%.6g", GS_M_TRAIN, E, GS_TK_NUM, GS_TN_NEVER, NULL, false, TEXT(NULL, NULL), 0 },
	{ "optimizer_s", T(optim_s), "%.6g", GS_M_TRAIN, E, GS_TK_NUM, GS_TN_NEVER, NULL, false, TEXT(NULL, NULL), 0 },
	{ "tokens_per_step", T(tokens_step), "%.6g", GS_M_TRAIN, E, GS_TK_NUM, GS_TN_NEVER, NULL, false,
	  TEXT(NULL, NULL), 0 },
	{ "tokens_per_s_per_gpu", T(tok_s_gpu), "%.6g", GS_M_TRAIN, E, GS_TK_NUM, GS_TN_NEVER, NULL, false,
	  TEXT("  %.0f tokens/s/GPU", NULL), 0 },
	{ "tokens_per_s_total", T(tok_s_total), "%.6g", GS_M_TRAIN, E | P, GS_TK_NUM, GS_TN_NEVER, NULL, false,
	  TEXT(", %.0f total", ", %.0f tokens/s"), 0 },
	{ "mfu", T(mfu), "%.4g", GS_M_TRAIN, E | P, GS_TK_NUM, GS_TN_NEVER, NULL, false, TEXT("  MFU %P%%", NULL), 0 },
	{ "budget_s", T(budget_s), "%.6g", GS_M_TRAIN, E | P, GS_TK_NUM, GS_TN_NEVER, NULL, false,
	  TEXT("  %B tokens in %S", ", budget in %S"), GS_TW_BUDGET },
	{ "gpu_hours", T(gpu_hours), "%.6g", GS_M_TRAIN, E | P, GS_TK_NUM, GS_TN_NEVER, NULL, false,
	  TEXT(", %.3g GPU-h", ", %.3g GPU-h"), GS_TW_BUDGET },
	{ "pipeline_bubble", T(bubble), "%.4g", GS_M_TRAIN, E, GS_TK_NUM, GS_TN_NEVER, NULL, false,
	  TEXT(NULL, NULL), 0 },
	{ "ep_comm_s", T(ep_comm_s), "%.6g", GS_M_TRAIN, E, GS_TK_NUM, GS_TN_NEVER, NULL, false, TEXT(NULL, NULL), 0 },
	{ "cost_usd", T(cost_usd), "%.6g", GS_M_TRAIN, E | P, GS_TK_NUM, GS_TN_UNPRICED_OR_NO_BUDGET, NULL, false,
	  TEXT(" = %U", " = %U"), GS_TW_BUDGET | GS_TW_POSITIVE },
	/* a report row: its step where it runs (gs_cell: training an optimizer
	 * step and every GPU's tokens, inference a decode step and a token per
	 * sequence), 4 significant digits: more would be the model's noise */
	{ "tokens_per_step", offsetof(gs_cell, tokens), "%.17g", GS_M_ALL, GS_TF_ROW, GS_TK_NUM, GS_TN_NEVER,
	  "Tokens per step (time model)", true, TEXT(NULL, NULL), 0 },
	{ "step_s", offsetof(gs_cell, step_s), "%.4g", GS_M_ALL, GS_TF_CLASS, GS_TK_NUM, GS_TN_NEVER, "Step s",
	  false, TEXT(NULL, NULL), 0 },
};

#undef T
#undef E
#undef P
#undef INFER
#undef TEXT

#define N_FIELDS (sizeof fields / sizeof fields[0])

const gs_time_field *gs_time_fields(size_t *n)
{
	*n = N_FIELDS;
	return fields;
}

const gs_time_field *gs_time_field_find(const char *key, unsigned out)
{
	for (size_t i = 0; i < N_FIELDS; i++)
		if ((fields[i].out & out) && strcmp(fields[i].key, key) == 0)
			return &fields[i];
	return NULL;
}

bool gs_time_field_in(const gs_time_field *f, unsigned out, gs_method m)
{
	return (f->out & out) != 0 && (f->methods & GS_M(m)) != 0;
}

double gs_time_field_value(const gs_time_field *f, const gs_cell *c)
{
	const char *p = (const char *)c + f->off;

	if (f->kind == GS_TK_KERNEL) {
		gs_kernel k;
		memcpy(&k, p, sizeof k);
		return (double)k;
	}
	double d;
	memcpy(&d, p, sizeof d);
	return d;
}

char *gs_time_field_text(const gs_time_field *f, const gs_cell *c, const gs_time_ctx *x, char *buf, size_t n)
{
	double v = gs_time_field_value(f, c);
	bool priced = x != NULL && x->price > 0, budget = x != NULL && x->budget > 0;

	if (f->kind == GS_TK_KERNEL)
		snprintf(buf, n, "\"%s\"", gs_kernel_name((gs_kernel)v));
	else if (!isfinite(v) || (f->null == GS_TN_UNPRICED && !priced) ||
	         (f->null == GS_TN_UNPRICED_OR_NO_BUDGET && !(priced && budget)))
		snprintf(buf, n, "null");
	else
		snprintf(buf, n, f->fmt, v);
	return buf;
}

void gs_time_fields_json(FILE *fp, unsigned out, gs_method m, const gs_cell *c, const gs_time_ctx *x,
                         const char *sep, const char *colon)
{
	char b[64];

	for (size_t i = 0; i < N_FIELDS; i++)
		if (gs_time_field_in(&fields[i], out, m))
			fprintf(fp, "%s\"%s\"%s%s", sep, fields[i].key, colon,
			        gs_time_field_text(&fields[i], c, x, b, sizeof b));
}

/* The first class where the row fits, or NULL. */
static const gs_cell *first_fit(const gs_row *r, size_t n_gpus)
{
	for (size_t i = 0; i < n_gpus; i++)
		if (gs_cell_fits(&r->cell[i]))
			return &r->cell[i];
	return NULL;
}

void gs_time_fields_row_json(FILE *fp, const gs_row *r, const gs_gpu *gpus, size_t n_gpus)
{
	const gs_cell *c0 = first_fit(r, n_gpus);
	const char *sep = "";
	char b[64];

	if (c0 == NULL) {
		fputs(",\"time\":null", fp);
		return;
	}
	fputs(",\"time\":{", fp);
	for (size_t k = 0; k < N_FIELDS; k++) {
		const gs_time_field *f = &fields[k];
		if (gs_time_field_in(f, GS_TF_ROW, r->settings.method)) {
			fprintf(fp, "%s\"%s\":%s", sep, f->key, gs_time_field_text(f, c0, NULL, b, sizeof b));
			sep = ",";
		} else if (gs_time_field_in(f, GS_TF_CLASS, r->settings.method)) {
			const char *in = "";
			fprintf(fp, "%s\"gpu_%s\":{", sep, f->key);
			for (size_t i = 0; i < n_gpus; i++) {
				if (!gs_cell_fits(&r->cell[i]))
					continue;
				fputs(in, fp);
				gs_json_str(fp, gpus[i].id);
				fprintf(fp, ":%s", gs_time_field_text(f, &r->cell[i], NULL, b, sizeof b));
				in = ",";
			}
			fputc('}', fp);
			sep = ",";
		}
	}
	fputc('}', fp);
}

void gs_time_fields_csv_head(FILE *fp, const gs_gpu *gpus, size_t n_gpus, void (*text)(FILE *, const char *))
{
	char col[160];

	for (size_t k = 0; k < N_FIELDS; k++) {
		if (fields[k].out & GS_TF_ROW) {
			fputc(',', fp);
			text(fp, fields[k].key);
		} else if (fields[k].out & GS_TF_CLASS) {
			for (size_t i = 0; i < n_gpus; i++) {
				snprintf(col, sizeof col, "%s %s", gpus[i].id, fields[k].key);
				fputc(',', fp);
				text(fp, col);
			}
		}
	}
}

void gs_time_fields_csv(FILE *fp, const gs_row *r, size_t n_gpus)
{
	const gs_cell *c0 = first_fit(r, n_gpus);
	char b[64];

	for (size_t k = 0; k < N_FIELDS; k++) {
		const gs_time_field *f = &fields[k];
		bool in = (f->methods & GS_M(r->settings.method)) != 0;
		if (f->out & GS_TF_ROW) {
			fputc(',', fp);
			if (in && c0 != NULL)
				fputs(gs_time_field_text(f, c0, NULL, b, sizeof b), fp);
		} else if (f->out & GS_TF_CLASS) {
			for (size_t i = 0; i < n_gpus; i++) {
				fputc(',', fp);
				if (in && gs_cell_fits(&r->cell[i]))
					fputs(gs_time_field_text(f, &r->cell[i], NULL, b, sizeof b), fp);
			}
		}
	}
}

/* Template t with field value v (see timefields.h's directives). */
static void text_out(FILE *fp, const char *t, double v, const gs_time_ctx *x)
{
	char b[64], spec[16];

	for (; *t != '\0'; t++) {
		if (*t != '%') {
			fputc(*t, fp);
			continue;
		}
		switch (*++t) {
		case 'S': fputs(gs_time_fmt_secs(b, sizeof b, v), fp); break;
		case 'U': fputs(gs_time_fmt_usd(b, sizeof b, v), fp); break;
		case 'B': fputs(gs_time_fmt_count(b, sizeof b, x ? x->budget : 0), fp); break;
		case 'P': fprintf(fp, "%.0f", v * 100); break;
		case '%': fputc('%', fp); break;
		default: { /* %.Nf, %.Ng */
			size_t k = 0;
			spec[k++] = '%';
			while (*t != '\0' && strchr(".0123456789", *t) != NULL && k < sizeof spec - 2)
				spec[k++] = *t++;
			if (*t == '\0')
				return;
			spec[k++] = *t;
			spec[k] = '\0';
			fprintf(fp, spec, v);
		}
		}
	}
}

void gs_time_texts(FILE *fp, gs_tf_text which, gs_method m, const gs_cell *c, const gs_time_ctx *x)
{
	for (size_t i = 0; i < N_FIELDS; i++) {
		const gs_time_field *f = &fields[i];
		double v = gs_time_field_value(f, c);

		if (f->text[which] == NULL || !(f->methods & GS_M(m)) ||
		    ((f->when & GS_TW_BUDGET) && !(x != NULL && x->budget > 0)) ||
		    ((f->when & GS_TW_POSITIVE) && !(v > 0)) ||
		    ((f->when & GS_TW_NEW_TOKENS) && !(x != NULL && x->new_tokens > 0)))
			continue;
		text_out(fp, f->text[which], v, x);
	}
}
