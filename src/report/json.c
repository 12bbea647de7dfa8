/* gpusizer: JSON writer: out/sizing.json, every row with all its inputs and
 * outputs, one row per line, streamed. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "timefields.h"
#include "util.h"
#include "fileio.h"
#include "numfmt.h"
#include "jw.h"

typedef struct json_state {
	gs_atomic out;
	bool gz; /* sizing.json.gz */
	const gs_report_meta *meta;
	size_t rows;
} json_state;

#define jstr gs_json_str

/* A string, or null when absent or empty. */
static void jstr_or_null(FILE *fp, const char *s)
{
	if (s != NULL && s[0] != '\0')
		jstr(fp, s);
	else
		fputs("null", fp);
}

static void jnum(FILE *fp, double d)
{
	gs_json_num(fp, d, 10);
}

void gs_json_doc_begin(FILE *fp, const gs_report_meta *m)
{
	fputs("{\"tool\":\"gpusizer\",\"tool_version\":", fp);
	jstr(fp, m->tool_version);
	fputs(",\"spec\":", fp);
	jstr_or_null(fp, m->spec_path);
	fputs(",\"tight_headroom\":", fp);
	jnum(fp, GS_TIGHT_HEADROOM);
	fputs(",\n\"gpus\":[", fp);
	for (size_t i = 0; i < m->n_gpus; i++) {
		const gs_gpu *g = &m->gpus[i];
		fputs(i ? ",\n{\"id\":" : "\n{\"id\":", fp);
		jstr(fp, g->id);
		fputs(",\"name\":", fp);
		jstr(fp, g->name);
		fputs(",\"class\":", fp);
		jstr(fp, g->klass);
		fprintf(fp, ",\"total_bytes\":%" PRIu64 ",\"usable_bytes\":%" PRIu64
		        ",\"bf16\":%s,\"fp8\":%s,\"bandwidth_gbs\":",
		        g->total_bytes, g->usable_bytes, g->bf16 ? "true" : "false",
		        g->fp8 ? "true" : "false");
		jnum(fp, g->bandwidth_gbs);
		fputs(",\"bf16_tflops\":", fp);
		jnum(fp, g->bf16_tflops);
		fputs(",\"source\":", fp);
		jstr(fp, g->source);
		fputc('}', fp);
	}
	fputs("],\n\"models\":[", fp);
	for (size_t i = 0; i < m->n_models; i++) {
		const gs_model *md = &m->models[i];
		fputs(i ? ",\n{\"id\":" : "\n{\"id\":", fp);
		jstr(fp, md->id);
		fputs(",\"slug\":", fp);
		jstr(fp, md->slug);
		fprintf(fp, ",\"model_type\":");
		jstr(fp, md->arch->model_type);
		fprintf(fp, ",\"generic\":%s,\"warning\":", md->arch->generic ? "true" : "false");
		jstr_or_null(fp, md->arch->warning);
		fprintf(fp, ",\"params_total\":%" PRIu64 ",\"params_active\":%" PRIu64
		        ",\"param_source\":",
		        md->arch->params_total, md->arch->params_active);
		jstr(fp, md->param_source);
		fputc('}', fp);
	}
	fputs("],\n\"rows\":[", fp);
}

static gs_err json_begin(gs_writer *w, const gs_report_meta *m, gs_error *e)
{
	json_state *st = w->state;
	char path[4096];
	gs_err rc;

	st->meta = m;
	if (snprintf(path, sizeof path, "%s/sizing.json%s", m->out_dir, st->gz ? ".gz" : "") >= (int)sizeof path)
		return gs_fail(e, GS_EIO, "%s: path too long", m->out_dir);
	if ((rc = (st->gz ? gs_atomic_open_gz : gs_atomic_open)(&st->out, path, e)) != GS_OK)
		return rc;
	gs_json_doc_begin(st->out.fp, m);
	return GS_OK;
}

static gs_err json_model(gs_writer *w, const gs_model *model, gs_error *e)
{
	(void)w;
	(void)model;
	(void)e;
	return GS_OK;
}

/* Every setting of the settings table, by its name, in table order. */
static void j_settings(FILE *fp, const gs_settings *s)
{
	for (size_t i = 0; i < gs_settings_count(); i++) {
		const gs_setting *d = &gs_settings_table()[i];
		gs_setting_value v;

		gs_setting_get(d, s, &v);
		fputs(i ? "," : "{", fp);
		jstr(fp, d->name);
		fputc(':', fp);
		if (v.named)
			jstr(fp, v.text);
		else if (v.unset)
			fputs("null", fp);
		else
			fputs(v.text, fp); /* true/false, an integer, a real in %.10g */
	}
	fputc('}', fp);
}

/* ,"key":v (first: no comma) */
static void j_u64(FILE *fp, const char *key, uint64_t v, bool first)
{
	fputs(first ? "\"" : ",\"", fp);
	fputs(key, fp);
	fputs("\":", fp);
	gs_put_u64(fp, v);
}

static void j_components(FILE *fp, const gs_estimate *x, bool pools)
{
	j_u64(fp, "W", x->W, true);
	j_u64(fp, "G", x->G, false);
	j_u64(fp, "O", x->O, false);
	j_u64(fp, "A", x->A, false);
	j_u64(fp, "B", x->B, false);
	if (pools) {
		j_u64(fp, "allocated", x->allocated, false);
		j_u64(fp, "reserved", x->reserved, false);
	}
	j_u64(fp, "device", x->device, false);
	j_u64(fp, "host", x->host, false);
}

static void j_bytes_or_null(FILE *fp, const char *key, uint64_t v)
{
	if (v)
		j_u64(fp, key, v, false);
	else
		fprintf(fp, ",\"%s\":null", key);
}

/* Our own verified run of the row (gpusizer verify's store), or null. */
static void j_measured(FILE *fp, const gs_measured *mr)
{
	if (mr == NULL) {
		fputs(",\"measured\":null", fp);
		return;
	}
	fputs(",\"measured\":{\"status\":", fp);
	jstr(fp, mr->oom ? "oom" : "ok");
	fputs(",\"gpu\":", fp);
	jstr(fp, mr->gpu_name);
	fputs(",\"gpu_class\":", fp);
	if (mr->gpu_class[0])
		jstr(fp, mr->gpu_class);
	else
		fputs("null", fp);
	fputs(",\"date\":", fp);
	jstr(fp, mr->date);
	for (int k = 0; k < GS_MK_MAX; k++)
		j_bytes_or_null(fp, gs_measured_kind_name((gs_measured_kind)k),
		                gs_measured_bytes(mr, (gs_measured_kind)k));
	fputc('}', fp);
}

void gs_json_row(FILE *fp, const gs_report_meta *m, const gs_row *r, bool first)
{
	const gs_estimate *x = &r->est;

	fputs(first ? "\n{\"index\":" : ",\n{\"index\":", fp);
	gs_put_u64(fp, r->index);
	fputs(",\"id\":", fp);
	jstr_or_null(fp, r->id);
	fputs(",\"model\":", fp);
	jstr(fp, r->model->id);
	fputs(",\"label\":", fp);
	jstr(fp, r->label);
	fputs(",\"settings\":", fp);
	j_settings(fp, &r->settings);
	if (r->err != GS_OK) {
		fputs(",\"error\":", fp);
		jstr(fp, r->err_msg);
		fputs(",\"estimate\":null,\"seeds\":null", fp);
	} else {
		fputs(",\"error\":null,\"estimate\":{\"formula\":", fp);
		jstr(fp, gs_formula_name(x->formula));
		fputs(",\"recipe\":", fp);
		jstr(fp, x->recipe);
		j_u64(fp, "params_total", x->params_total, false);
		j_u64(fp, "params_trainable", x->params_trainable, false);
		j_u64(fp, "params_active", x->params_active, false);
		fputs(", ", fp);
		j_components(fp, x, true);
		fputs(",\"bpp_W\":", fp);
		jnum(fp, x->bpp_W);
		fputs(",\"bpp_G\":", fp);
		jnum(fp, x->bpp_G);
		fputs(",\"bpp_O\":", fp);
		jnum(fp, x->bpp_O);
		fputs(",\"peak_phase\":", fp);
		jstr(fp, gs_phase_name(x->peak_phase));
		fprintf(fp, ",\"peak_step\":%d,\"note\":", x->peak_step);
		jstr(fp, x->note);
		fputs("},\"seeds\":{", fp);
		for (int f = 1; f < GS_F_MAX; f++) {
			const gs_estimate *sd = &r->seeds[f];
			fputs(f > 1 ? "," : "", fp);
			jstr(fp, gs_formula_name((gs_formula)f));
			if (sd->recipe == NULL) {
				fputs(":null", fp);
				continue;
			}
			fputs(": {", fp);
			j_components(fp, sd, false);
			fputc('}', fp);
		}
		fputc('}', fp);
	}
	fputs(",\"gpu_verdicts\":{", fp);
	for (size_t i = 0; i < m->n_gpus; i++) {
		gs_verdict v = r->cell[i].v;
		double h = r->cell[i].headroom;
		fputs(i ? "," : "", fp);
		jstr(fp, m->gpus[i].id);
		fputs(":[", fp);
		jstr(fp, gs_verdict_name(v));
		if (v == GS_NOT_RUNNABLE)
			fputs(",null]", fp);
		else {
			char b[GS_F4_CHARS];
			fputc(',', fp);
			fputs(gs_fmt_f4(b, sizeof b, h), fp);
			fputc(']', fp);
		}
	}
	fputc('}', fp);
	{
		/* why a class cannot run the row, for those that cannot */
		gs_needs need = gs_settings_needs(&r->settings);
		bool any = false;
		for (size_t i = 0; i < m->n_gpus; i++) {
			char why[256];
			if (r->err != GS_OK || gs_needs_why(need, &m->gpus[i], why, sizeof why)[0] == '\0')
				continue;
			fputs(any ? "," : ",\"not_runnable\":{", fp);
			any = true;
			jstr(fp, m->gpus[i].id);
			fputc(':', fp);
			jstr(fp, why);
		}
		if (any)
			fputc('}', fp);
	}
	gs_time_fields_row_json(fp, r, m->gpus, m->n_gpus); /* "time" (timefields.h) */
	j_measured(fp, r->measured);
	fputc('}', fp);
}

static gs_err json_row(gs_writer *w, const gs_row *r, gs_error *e)
{
	json_state *st = w->state;

	gs_json_row(st->out.fp, st->meta, r, st->rows == 0);
	st->rows++;
	if (ferror(st->out.fp))
		return gs_fail(e, GS_EIO, "%s: write failed: %s", st->out.path, strerror(errno ? errno : EIO));
	return GS_OK;
}

void gs_json_doc_end(FILE *fp, size_t rows)
{
	fprintf(fp, "%s]}\n", rows ? "\n" : "");
}

static gs_err json_end(gs_writer *w, gs_error *e)
{
	json_state *st = w->state;

	gs_json_doc_end(st->out.fp, st->rows);
	return gs_atomic_commit(&st->out, e);
}

static void json_free(gs_writer *w)
{
	if (w == NULL)
		return;
	if (w->state != NULL) {
		json_state *st = w->state;
		if (st->out.fp != NULL)
			gs_atomic_abort(&st->out);
		free(st);
	}
	free(w);
}

gs_writer *gs_writer_json(void)
{
	gs_writer *w = gs_xcalloc(1, sizeof *w);

	w->name = "json";
	w->begin = json_begin;
	w->model_begin = json_model;
	w->row = json_row;
	w->model_end = json_model;
	w->end = json_end;
	w->free = json_free;
	w->state = gs_xcalloc(1, sizeof(json_state));
	return w;
}

gs_writer *gs_writer_json_gz(void)
{
	gs_writer *w = gs_writer_json();
	json_state *st = w->state;

	w->name = "json.gz";
	st->gz = true;
	return w;
}
