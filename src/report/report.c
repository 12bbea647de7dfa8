/* gpusizer: a sizing row on a GPU class: its verdict, its step by the time
 * model and its verified run (see report.h). */
#include "report.h"
#include "timing.h"

bool gs_row_step(const struct gs_report_meta *m, const gs_row *r, const gs_gpu *g, bool fits_only,
                 double *step_s, double *tokens)
{
	gs_time t;
	gs_error sub = { 0 };
	gs_verdict v = gs_row_verdict(r, g, NULL);

	if ((fits_only ? v != GS_FITS && v != GS_TIGHT : v == GS_NOT_RUNNABLE) || r->model == NULL || r->model->arch == NULL ||
	    gs_time_row(r->model->arch, &r->settings, &r->est, g, m->time, &t, &sub) != GS_OK)
		return false;
	if (r->settings.method == GS_INFER) {
		*step_s = t.decode_step_s;
		*tokens = (double)r->settings.batch;
	} else {
		*step_s = t.step_s;
		*tokens = t.tokens_step;
	}
	return true;
}

gs_verdict gs_row_verdict(const gs_row *r, const gs_gpu *g, double *headroom)
{
	if (r->err != GS_OK) {
		if (headroom != NULL)
			*headroom = 0;
		return GS_NOT_RUNNABLE;
	}
	return gs_verdict_of(r->est.device, gs_settings_needs(&r->settings), g, headroom);
}

const gs_measured *gs_row_measured(const gs_report_meta *m, const gs_row *r)
{
	if (m->measured == NULL || m->measured->n == 0 || r->err != GS_OK)
		return NULL;
	return gs_measured_find(m->measured, r->model->id, r->key);
}

void gs_measured_row_text(const gs_measured *mr, const gs_estimate *x, char *buf, size_t n)
{
	uint64_t now[GS_MK_MAX];

	now[GS_MK_ALLOCATED] = x->allocated;
	now[GS_MK_RESERVED] = x->reserved;
	now[GS_MK_DEVICE] = x->device;
	gs_measured_text(mr, GS_MK_DEVICE, now, buf, n);
}
