/* gpusizer: a sizing row evaluated once for every writer (see report.h):
 * its verdict, headroom and the time model on every GPU class, its
 * verified run, and per model the answers and the plan view. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "plan_view.h"
#include "util.h"

/* What the evaluation keeps of one model (address stable: writers hold
 * model->eval). */
typedef struct ev_model {
	gs_model_eval pub;
	gs_model *md;         /* borrowed: the driver's (its eval cleared at gs_eval_free) */
	gs_answer *answers;
	size_t n, cap;
	size_t last;          /* the answer the previous row used */
	gs_plan_view plan;
} ev_model;

struct gs_eval {
	const gs_report_meta *m;
	gs_cell *cells;       /* the current row's, [m->n_gpus] */
	ev_model **models;
	size_t n_models, cap_models;
};

gs_verdict gs_row_verdict(const gs_row *r, const gs_gpu *g, double *headroom)
{
	if (r->err != GS_OK) {
		if (headroom != NULL)
			*headroom = 0;
		return GS_NOT_RUNNABLE;
	}
	return gs_verdict_of(r->est.device, gs_settings_needs(&r->settings), g, headroom);
}

gs_eval *gs_eval_new(const gs_report_meta *m)
{
	gs_eval *ev = gs_xcalloc(1, sizeof *ev);

	ev->m = m;
	ev->cells = gs_xcalloc(m->n_gpus ? m->n_gpus : 1, sizeof *ev->cells);
	return ev;
}

void gs_eval_model_begin(gs_eval *ev, gs_model *md)
{
	ev_model *em = gs_xcalloc(1, sizeof *em);

	if (ev->n_models == ev->cap_models) {
		ev->cap_models = ev->cap_models ? ev->cap_models * 2 : 8;
		ev->models = gs_xrealloc(ev->models, ev->cap_models * sizeof *ev->models);
	}
	ev->models[ev->n_models++] = em;
	gs_plan_view_init(&em->plan, ev->m->gpus, ev->m->n_gpus, ev->m->plan);
	em->pub.plan = &em->plan;
	em->md = md;
	md->eval = &em->pub;
}

/* Row r on class g: its verdict, and the time model there. */
static void eval_cell(const gs_report_meta *m, const gs_row *r, const gs_gpu *g, gs_cell *c)
{
	gs_error sub = { 0 };

	memset(c, 0, sizeof *c);
	c->v = gs_row_verdict(r, g, &c->headroom);
	if (r->err != GS_OK || r->model == NULL || r->model->arch == NULL ||
	    gs_time_row(r->model->arch, &r->settings, &r->est, g, m->time, &c->t, &sub) != GS_OK)
		return;
	c->timed = true;
	if (r->settings.method == GS_INFER) {
		c->step_s = c->t.decode_step_s;
		c->tokens = (double)r->settings.batch;
	} else {
		c->step_s = c->t.step_s;
		c->tokens = c->t.tokens_step;
	}
}

/* The answer of (method, seq) in em: found or added. */
static size_t answer_at(ev_model *em, gs_method method, int64_t seq)
{
	gs_answer *a;

	/* Rows come grouped by method and context: the last one first. */
	if (em->last < em->n && em->answers[em->last].method == method && em->answers[em->last].seq == seq)
		return em->last;
	for (size_t i = 0; i < em->n; i++)
		if (em->answers[i].method == method && em->answers[i].seq == seq)
			return em->last = i;
	if (em->n == em->cap) {
		em->cap = em->cap ? em->cap * 2 : 16;
		em->answers = gs_xrealloc(em->answers, em->cap * sizeof *em->answers);
		em->pub.answers = em->answers;
	}
	a = &em->answers[em->n];
	memset(a, 0, sizeof *a);
	a->method = method;
	a->seq = seq;
	a->min_device = UINT64_MAX;
	em->pub.n_answers = ++em->n;
	return em->last = em->n - 1;
}

/* Row r offered to its answer a on every eligible class where it fits
 * (gs_best_offer); whether it took the answer. */
static bool answer_offer(const gs_report_meta *m, gs_answer *a, const gs_row *r, const gs_cell *cells)
{
	gs_plan_rank rank = gs_plan_opts_rank(m->plan);
	int64_t count = r->settings.gpus > 0 ? r->settings.gpus : 1;
	gs_offer best = { a->found, a->gpu, a->found ? m->gpus[a->gpu].usable_bytes : 0, a->count,
	                  a->v == GS_TIGHT, 0 };
	bool taken = false;

	a->n_rows++;
	if (r->err != GS_OK)
		return false;
	a->n_configs++;
	if (r->est.device < a->min_device)
		a->min_device = r->est.device;
	for (size_t g = 0; g < m->n_gpus; g++) {
		const gs_cell *c = &cells[g];
		gs_offer o = { c->v == GS_FITS || c->v == GS_TIGHT, g, m->gpus[g].usable_bytes, count,
		               c->v == GS_TIGHT, 0 };

		if (!gs_plan_opts_eligible(m->plan, &m->gpus[g]) || !gs_best_offer(rank, &best, &o))
			continue;
		a->found = taken = true;
		a->gpu = g;
		a->count = count;
		a->v = c->v;
		a->cell = *c;
	}
	if (taken) {
		a->row = r->index;
		a->device = r->est.device;
		snprintf(a->label, sizeof a->label, "%s", r->label);
		snprintf(a->row_id, sizeof a->row_id, "%s", r->id);
	}
	return taken;
}

void gs_row_eval(gs_eval *ev, gs_row *r)
{
	const gs_report_meta *m = ev->m;
	ev_model *em = ev->n_models > 0 ? ev->models[ev->n_models - 1] : NULL;

	for (size_t g = 0; g < m->n_gpus; g++)
		eval_cell(m, r, &m->gpus[g], &ev->cells[g]);
	r->cell = ev->cells;
	r->measured = NULL;
	if (m->measured != NULL && m->measured->n > 0 && r->err == GS_OK && r->model != NULL)
		r->measured = gs_measured_find(m->measured, r->model->id, r->key);
	r->answer = SIZE_MAX;
	r->answer_taken = false;
	if (em == NULL || (unsigned)r->settings.method >= GS_METHOD_MAX)
		return;
	r->answer = answer_at(em, r->settings.method, r->settings.seq);
	r->answer_taken = answer_offer(m, &em->answers[r->answer], r, ev->cells);
	gs_plan_view_row(&em->plan, r);
}

void gs_eval_model_end(gs_eval *ev)
{
	ev_model *em = ev->n_models > 0 ? ev->models[ev->n_models - 1] : NULL;

	if (em != NULL)
		gs_plan_view_compute(&em->plan, em->md->arch);
}

void gs_eval_free(gs_eval *ev)
{
	if (ev == NULL)
		return;
	for (size_t i = 0; i < ev->n_models; i++) {
		if (ev->models[i]->md->eval == &ev->models[i]->pub)
			ev->models[i]->md->eval = NULL;
		free(ev->models[i]->answers);
		gs_plan_view_free(&ev->models[i]->plan);
		free(ev->models[i]);
	}
	free(ev->models);
	free(ev->cells);
	free(ev);
}

void gs_measured_row_text(const gs_measured *mr, const gs_estimate *x, char *buf, size_t n)
{
	uint64_t now[GS_MK_MAX];

	now[GS_MK_ALLOCATED] = x->allocated;
	now[GS_MK_RESERVED] = x->reserved;
	now[GS_MK_DEVICE] = x->device;
	gs_measured_text(mr, GS_MK_DEVICE, now, buf, n);
}
