/* gpusizer: a sizing row evaluated once for every writer (see report.h):
 * its verdict, headroom and the time model on every GPU class, its
 * verified run, and per model the answers and the plan view. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "plan_view.h"
#include "util.h"

/* What an answer's rows leave until the model's end. A configuration is
 * a row's settings but the context and the GPU layout, and an answer is
 * one method and context; the layouts are the sweep's innermost axis
 * (gs_settings_axis, test_settings checks), so an answer's rows of one
 * configuration arrive in one run, never again once the next one's
 * begin. The best on each class alone is kept for the current run only,
 * and copied when a run ends that holds the answer's (or the least row's)
 * configuration: three runs' worth per answer, whatever the number of
 * rows. (A run that does come back, a spec list naming a value twice,
 * brings the same rows and so the same fits.) */
typedef struct ev_configs {
	uint64_t cur;          /* the current run's configuration (hash) */
	bool open;             /* a run is open */
	uint64_t answer, least; /* hashes */
	gs_class_fit *fit;     /* [3 x n_gpus]: the current run's, the answer's, the least's */
} ev_configs;

enum { FIT_RUN, FIT_ANSWER, FIT_LEAST };

/* What the evaluation keeps of one model (address stable: writers hold
 * model->eval). */
typedef struct ev_model {
	gs_model_eval pub;
	gs_model *md;         /* borrowed: the driver's (its eval cleared at gs_eval_free) */
	gs_answer *answers;
	ev_configs *configs;  /* [cap], beside answers; released at the model's end */
	gs_class_fit *fits;   /* [n x n_gpus]: the answers' fit (until the next model) */
	size_t n, cap;
	size_t last;          /* the answer the previous row used */
	gs_plan_view plan;
} ev_model;

struct gs_eval {
	const gs_report_meta *m;
	gs_cell *cells;       /* the current row's, [m->n_gpus] */
	ev_model **models;
	size_t n_models, cap_models;
	uint64_t config_hide; /* what a configuration is not: the context and the GPU layout */
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
	ev->config_hide = gs_settings_layout_bits() | gs_setting_bit("seq");
	return ev;
}

/* The runs of an answer's rows, given up. */
static void configs_free(ev_configs *cf)
{
	free(cf->fit);
	memset(cf, 0, sizeof *cf);
}

/* What only the model's own writers read: its plan view and its answers'
 * fit (a model's end to the next model's begin). */
static void model_release(ev_model *em)
{
	for (size_t i = 0; i < em->n; i++) {
		if (em->configs != NULL)
			configs_free(&em->configs[i]);
		em->answers[i].fit = NULL;
	}
	free(em->configs);
	em->configs = NULL;
	free(em->fits);
	em->fits = NULL;
	gs_plan_view_free(&em->plan);
	em->pub.plan = NULL;
}

void gs_eval_model_begin(gs_eval *ev, gs_model *md)
{
	ev_model *em = gs_xcalloc(1, sizeof *em);

	if (ev->n_models > 0)
		model_release(ev->models[ev->n_models - 1]);
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
		size_t old = em->cap;
		em->cap = em->cap ? em->cap * 2 : 16;
		em->answers = gs_xrealloc(em->answers, em->cap * sizeof *em->answers);
		em->configs = gs_xrealloc(em->configs, em->cap * sizeof *em->configs);
		memset(em->configs + old, 0, (em->cap - old) * sizeof *em->configs);
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

/* A row's cell on class g, at its count of GPUs, as an offer to the one
 * rule (gs_best_offer). */
static gs_offer row_offer(const gs_report_meta *m, size_t g, const gs_cell *c, int64_t count)
{
	gs_offer o = { c->v == GS_FITS || c->v == GS_TIGHT, g, m->gpus[g].usable_bytes, count,
	               c->v == GS_TIGHT, 0 };
	return o;
}

/* Row r offered to its answer a on every eligible class where it fits
 * (gs_best_offer); whether it took the answer, and into *least whether it
 * became the least row (the first with an estimate, else fewer bytes). */
static bool answer_offer(const gs_report_meta *m, gs_answer *a, const gs_row *r, const gs_cell *cells,
                         bool *least)
{
	gs_plan_rank rank = gs_plan_opts_rank(m->plan);
	int64_t count = r->settings.gpus > 0 ? r->settings.gpus : 1;
	gs_offer best = { a->found, a->gpu, a->found ? m->gpus[a->gpu].usable_bytes : 0, a->count,
	                  a->v == GS_TIGHT, 0 };
	bool taken = false;

	*least = false;
	a->n_rows++;
	if (r->err != GS_OK)
		return false;
	if (++a->n_configs == 1 || r->est.device < a->min_device) {
		a->min_device = r->est.device;
		a->least = r->settings;
		*least = true;
	}
	for (size_t g = 0; g < m->n_gpus; g++) {
		const gs_cell *c = &cells[g];
		gs_offer o = row_offer(m, g, c, count);

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
		a->s = r->settings;
		snprintf(a->label, sizeof a->label, "%s", r->label);
		snprintf(a->row_id, sizeof a->row_id, "%s", r->id);
	}
	return taken;
}

/* The current run of cf ends: its fits are kept where it is the
 * configuration of the answer or of the least row. */
static void run_close(const gs_report_meta *m, ev_configs *cf)
{
	size_t ng = m->n_gpus;

	if (!cf->open)
		return;
	if (cf->cur == cf->answer)
		memcpy(&cf->fit[FIT_ANSWER * ng], &cf->fit[FIT_RUN * ng], ng * sizeof *cf->fit);
	if (cf->cur == cf->least)
		memcpy(&cf->fit[FIT_LEAST * ng], &cf->fit[FIT_RUN * ng], ng * sizeof *cf->fit);
	cf->open = false;
}

/* Row r (of configuration hash h) offered to that configuration's best on
 * each class alone (the one rule, class by class). */
static void config_offer(const gs_report_meta *m, ev_configs *cf, uint64_t h, const gs_row *r,
                         const gs_cell *cells)
{
	gs_plan_rank rank = gs_plan_opts_rank(m->plan);
	int64_t count = r->settings.gpus > 0 ? r->settings.gpus : 1;
	gs_class_fit *fit;

	if (cf->fit == NULL)
		cf->fit = gs_xcalloc(3 * (m->n_gpus ? m->n_gpus : 1), sizeof *cf->fit);
	if (!cf->open || cf->cur != h) {
		run_close(m, cf);
		memset(cf->fit, 0, m->n_gpus * sizeof *cf->fit);
		cf->cur = h;
		cf->open = true;
	}
	fit = &cf->fit[FIT_RUN * m->n_gpus];
	for (size_t g = 0; g < m->n_gpus; g++) {
		gs_class_fit *f = &fit[g];
		gs_offer best = { f->found, g, m->gpus[g].usable_bytes, f->count, f->v == GS_TIGHT, 0 };
		gs_offer o = row_offer(m, g, &cells[g], count);

		if (!gs_best_offer(rank, &best, &o))
			continue;
		f->found = true;
		f->count = count;
		f->sharding = r->settings.sharding;
		f->tp = r->settings.tp > 0 ? r->settings.tp : 1;
		f->pp = r->settings.pp > 1 ? r->settings.pp : 1;
		f->v = cells[g].v;
		f->headroom = cells[g].headroom;
		f->device = r->est.device;
	}
}

/* Method m's first row and what differs among its rows. */
static void method_note(gs_model_eval *pub, const gs_row *r)
{
	gs_method m = r->settings.method;

	if (!pub->present[m]) {
		pub->present[m] = true;
		pub->first[m] = r->settings;
	} else {
		pub->varies[m] |= gs_settings_differ(&pub->first[m], &r->settings);
	}
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
	{
		ev_configs *cf = &em->configs[r->answer];
		bool least;

		r->answer_taken = answer_offer(m, &em->answers[r->answer], r, ev->cells, &least);
		if (r->err == GS_OK) {
			uint64_t h = gs_settings_hash_of(&r->settings, ev->config_hide);
			method_note(&em->pub, r);
			config_offer(m, cf, h, r, ev->cells);
			if (r->answer_taken)
				cf->answer = h;
			if (least)
				cf->least = h;
		}
	}
	gs_plan_view_row(&em->plan, r);
}

/* Each answer's fit: its configuration's (else the least one's) best on
 * each class; the runs given up. */
static void answers_fit(const gs_report_meta *m, ev_model *em)
{
	size_t ng = m->n_gpus ? m->n_gpus : 1;

	em->fits = gs_xcalloc(em->n ? em->n * ng : 1, sizeof *em->fits);
	for (size_t i = 0; i < em->n; i++) {
		gs_answer *a = &em->answers[i];
		ev_configs *cf = &em->configs[i];

		run_close(m, cf);
		if (a->n_configs > 0 && cf->fit != NULL)
			memcpy(&em->fits[i * ng], &cf->fit[(a->found ? FIT_ANSWER : FIT_LEAST) * m->n_gpus],
			       m->n_gpus * sizeof *em->fits);
		a->fit = &em->fits[i * ng];
		configs_free(cf);
	}
}

void gs_eval_model_end(gs_eval *ev)
{
	ev_model *em = ev->n_models > 0 ? ev->models[ev->n_models - 1] : NULL;

	if (em == NULL)
		return;
	answers_fit(ev->m, em);
	gs_plan_view_answers(&em->plan, em->answers, em->n);
	gs_plan_view_compute(&em->plan, em->md->arch);
}

void gs_eval_free(gs_eval *ev)
{
	if (ev == NULL)
		return;
	for (size_t i = 0; i < ev->n_models; i++) {
		if (ev->models[i]->md->eval == &ev->models[i]->pub)
			ev->models[i]->md->eval = NULL;
		model_release(ev->models[i]);
		free(ev->models[i]->answers);
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
