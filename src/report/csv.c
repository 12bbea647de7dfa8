/* gpusizer: CSV writer: out/sizing.csv, RFC 4180 (CRLF lines; text fields
 * always double-quoted, quotes doubled; numbers bare). A text field that
 * starts with '=', '+', '-', '@', a tab or a carriage return gets a leading
 * apostrophe, so a spreadsheet opening the file shows it as text instead of
 * evaluating a formula (CSV injection). Numbers are written by this file
 * alone, bare, and are never prefixed. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "timefields.h"
#include "util.h"
#include "fileio.h"
#include "numfmt.h"
#include "jw.h"

typedef struct csv_state {
	gs_atomic out;
	bool gz; /* sizing.csv.gz */
	const gs_report_meta *meta;
} csv_state;

/* A text field: quoted, and neutralised when a spreadsheet would read
 * it as a formula. */
static void cstr(FILE *fp, const char *s)
{
	s = s ? s : "";
	fputc('"', fp);
	if (*s != '\0' && strchr("=+-@\t\r", *s) != NULL)
		fputc('\'', fp);
	/* runs out whole, each quote doubled */
	for (const char *q; (q = strchr(s, '"')) != NULL; s = q + 1) {
		fwrite(s, 1, (size_t)(q - s + 1), fp);
		fputc('"', fp);
	}
	fputs(s, fp);
	fputc('"', fp);
}

/* The row's columns: these, then every setting of the settings table
 * (its name), then the estimate's. */
static const char *const row_cols[] = { "index", "id", "model", "label", NULL };
static const char *const est_cols[] = {
	"error", "recipe",
	"params_total", "params_trainable", "params_active", "W_bytes", "G_bytes", "O_bytes",
	"A_bytes", "B_bytes", "allocated_bytes", "reserved_bytes", "device_bytes", "host_bytes",
	"peak_phase", "peak_step", NULL,
};

/* gpusizer verify's run of the row, empty when none (after the seeds). */
static const char *const measured_cols[] = {
	"measured_status", "measured_gpu", "measured_date", "measured_allocated_bytes",
	"measured_reserved_bytes", "measured_device_bytes", NULL,
};

static void c_bytes(FILE *fp, uint64_t v)
{
	fputc(',', fp);
	if (v)
		gs_put_u64(fp, v);
}

static void c_measured(FILE *fp, const gs_measured *mr)
{
	if (mr == NULL) {
		fputs(",,,,,,", fp);
		return;
	}
	fputc(',', fp);
	cstr(fp, mr->oom ? "oom" : "ok");
	fputc(',', fp);
	cstr(fp, mr->gpu_name);
	fputc(',', fp);
	cstr(fp, mr->date);
	for (int k = 0; k < GS_MK_MAX; k++)
		c_bytes(fp, gs_measured_bytes(mr, (gs_measured_kind)k));
}

static gs_err csv_begin(gs_writer *w, const gs_report_meta *m, gs_error *e)
{
	csv_state *st = w->state;
	char path[4096];
	FILE *fp;
	gs_err rc;

	st->meta = m;
	if (snprintf(path, sizeof path, "%s/sizing.csv%s", m->out_dir, st->gz ? ".gz" : "") >= (int)sizeof path)
		return gs_fail(e, GS_EIO, "%s: path too long", m->out_dir);
	if ((rc = (st->gz ? gs_atomic_open_gz : gs_atomic_open)(&st->out, path, e)) != GS_OK)
		return rc;
	fp = st->out.fp;
	for (int i = 0; row_cols[i] != NULL; i++) {
		fputs(i ? "," : "", fp);
		cstr(fp, row_cols[i]);
	}
	for (size_t i = 0; i < gs_settings_count(); i++) {
		fputc(',', fp);
		cstr(fp, gs_settings_table()[i].name);
	}
	for (int i = 0; est_cols[i] != NULL; i++) {
		fputc(',', fp);
		cstr(fp, est_cols[i]);
	}
	for (int f = 1; f < GS_F_MAX; f++) {
		char col[64];
		snprintf(col, sizeof col, "%s device_bytes", gs_formula_name((gs_formula)f));
		fputc(',', fp);
		cstr(fp, col);
	}
	for (int i = 0; measured_cols[i] != NULL; i++) {
		fputc(',', fp);
		cstr(fp, measured_cols[i]);
	}
	for (size_t i = 0; i < m->n_gpus; i++) {
		char col[96];
		snprintf(col, sizeof col, "%s verdict", m->gpus[i].id);
		fputc(',', fp);
		cstr(fp, col);
		snprintf(col, sizeof col, "%s headroom", m->gpus[i].id);
		fputc(',', fp);
		cstr(fp, col);
	}
	/* the time model where the row fits (timefields.h) */
	gs_time_fields_csv_head(fp, m->gpus, m->n_gpus, cstr);
	fputs("\r\n", fp);
	return GS_OK;
}

static gs_err csv_model(gs_writer *w, const gs_model *model, gs_error *e)
{
	(void)w;
	(void)model;
	(void)e;
	return GS_OK;
}

static gs_err csv_row(gs_writer *w, const gs_row *r, gs_error *e)
{
	csv_state *st = w->state;
	FILE *fp = st->out.fp;
	const gs_settings *s = &r->settings;
	const gs_estimate *x = &r->est;
	bool ok = r->err == GS_OK;

	gs_put_u64(fp, r->index);
	fputc(',', fp);
	cstr(fp, r->id);
	fputc(',', fp);
	cstr(fp, r->model->id);
	fputc(',', fp);
	cstr(fp, r->label);
	for (size_t i = 0; i < gs_settings_count(); i++) {
		gs_setting_value v;

		gs_setting_get(&gs_settings_table()[i], s, &v);
		fputc(',', fp);
		if (v.unset && !v.named)
			continue; /* a number not given: empty */
		if (v.named || v.type == GS_ST_BOOL)
			cstr(fp, v.text);
		else
			fputs(v.text, fp);
	}
	fputc(',', fp);
	cstr(fp, ok ? "" : r->err_msg);
	fputc(',', fp);
	if (ok) {
		cstr(fp, x->recipe);
		const uint64_t n[] = { x->params_total, x->params_trainable, x->params_active, x->W, x->G, x->O,
		                       x->A, x->B, x->allocated, x->reserved, x->device, x->host };
		for (size_t i = 0; i < sizeof n / sizeof *n; i++) {
			fputc(',', fp);
			gs_put_u64(fp, n[i]);
		}
		fputc(',', fp);
		cstr(fp, gs_phase_name(x->peak_phase));
		fprintf(fp, ",%d", x->peak_step);
		for (int f = 1; f < GS_F_MAX; f++) {
			fputc(',', fp);
			if (r->seeds[f].recipe != NULL)
				gs_put_u64(fp, r->seeds[f].device);
		}
	} else {
		fputs(",,,,,,,,,,,,,,", fp);
		for (int f = 1; f < GS_F_MAX; f++)
			fputc(',', fp);
	}
	c_measured(fp, r->measured);
	for (size_t i = 0; i < st->meta->n_gpus; i++) {
		gs_verdict v = r->cell[i].v;
		double h = r->cell[i].headroom;
		fputc(',', fp);
		cstr(fp, gs_verdict_name(v));
		fputc(',', fp);
		if (v != GS_NOT_RUNNABLE) {
			char b[GS_F4_CHARS];
			fputs(gs_fmt_f4(b, sizeof b, h), fp);
		}
	}
	gs_time_fields_csv(fp, r, st->meta->n_gpus);
	fputs("\r\n", fp);
	if (ferror(fp))
		return gs_fail(e, GS_EIO, "%s: write failed: %s", st->out.path, strerror(errno ? errno : EIO));
	return GS_OK;
}

static gs_err csv_end(gs_writer *w, gs_error *e)
{
	csv_state *st = w->state;

	return gs_atomic_commit(&st->out, e);
}

static void csv_free(gs_writer *w)
{
	if (w == NULL)
		return;
	if (w->state != NULL) {
		csv_state *st = w->state;
		if (st->out.fp != NULL)
			gs_atomic_abort(&st->out);
		free(st);
	}
	free(w);
}

gs_writer *gs_writer_csv(void)
{
	gs_writer *w = gs_xcalloc(1, sizeof *w);

	w->name = "csv";
	w->begin = csv_begin;
	w->model_begin = csv_model;
	w->row = csv_row;
	w->model_end = csv_model;
	w->end = csv_end;
	w->free = csv_free;
	w->state = gs_xcalloc(1, sizeof(csv_state));
	return w;
}

gs_writer *gs_writer_csv_gz(void)
{
	gs_writer *w = gs_writer_csv();
	csv_state *st = w->state;

	w->name = "csv.gz";
	st->gz = true;
	return w;
}
