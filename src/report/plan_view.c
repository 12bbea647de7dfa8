/* gpusizer: the plan view of a report (see plan_view.h). */
#include "plan_view.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

gs_plan_rank gs_plan_opts_rank(const gs_plan_opts *o)
{
	return o != NULL && (unsigned)o->rank < GS_RANK_MEMORY_MAX ? o->rank : GS_RANK_DEFAULT;
}

int64_t gs_plan_opts_max_gpus(const gs_plan_opts *o)
{
	return o != NULL && o->max_gpus > 0 ? o->max_gpus : GS_PLAN_VIEW_MAX_GPUS;
}

bool gs_plan_opts_eligible(const gs_plan_opts *o, const gs_gpu *g)
{
	if (o == NULL || o->segments == 0)
		return true;
	return g->segment != GS_SEG_NONE && (o->segments & (1u << g->segment)) != 0;
}

void gs_plan_opts_eligible_text(const gs_plan_opts *o, char *buf, size_t n)
{
	size_t used = 0, k = 0, total = 0;

	if (n == 0)
		return;
	buf[0] = '\0';
	if (o == NULL || o->segments == 0) {
		snprintf(buf, n, "every GPU class");
		return;
	}
	for (int s = GS_SEG_CONSUMER; s < GS_SEG_MAX; s++)
		total += (o->segments & (1u << s)) != 0;
	for (int s = GS_SEG_CONSUMER; s < GS_SEG_MAX && used < n; s++) {
		int w;
		if (!(o->segments & (1u << s)))
			continue;
		k++;
		w = snprintf(buf + used, n - used, "%s%s", k == 1 ? "" : k == total ? " and " : ", ",
		             gs_segment_name((gs_segment)s));
		used += w > 0 ? (size_t)w : 0;
	}
	if (used < n)
		snprintf(buf + used, n - used, " GPU classes only");
}

void gs_plan_view_init(gs_plan_view *v, const gs_gpu *gpus, size_t n_gpus, const gs_plan_opts *o)
{
	size_t *ok = gs_xcalloc(n_gpus ? n_gpus : 1, sizeof *ok), n_ok = 0;

	memset(v, 0, sizeof *v);
	v->gpus = gpus;
	v->n_gpus = n_gpus;
	v->rank = gs_plan_opts_rank(o);
	v->max_gpus = gs_plan_opts_max_gpus(o);
	v->classes = gs_xcalloc(n_gpus ? n_gpus : 1, sizeof *v->classes);
	for (size_t i = 0; i < n_gpus; i++)
		if (gs_plan_opts_eligible(o, &gpus[i]))
			ok[n_ok++] = i;
	if (o != NULL && o->n_classes > 0) {
		for (size_t i = 0; i < o->n_classes; i++)
			if (o->classes[i] < n_gpus && gs_plan_opts_eligible(o, &gpus[o->classes[i]]))
				v->classes[v->n_classes++] = o->classes[i];
	} else if (n_ok <= GS_PLAN_VIEW_CLASSES) {
		for (size_t i = 0; i < n_ok; i++)
			v->classes[v->n_classes++] = ok[i];
	} else {
		/* spread over the eligible classes (sorted by usable memory): the
		 * smallest, the largest and evenly between */
		for (size_t i = 0; i < GS_PLAN_VIEW_CLASSES; i++)
			v->classes[v->n_classes++] =
			        ok[(i * (n_ok - 1) + (GS_PLAN_VIEW_CLASSES - 1) / 2) / (GS_PLAN_VIEW_CLASSES - 1)];
	}
	v->n_named = v->n_classes;
	free(ok);
}

void gs_plan_view_row(gs_plan_view *v, const gs_row *r)
{
	gs_plan_method *pm;
	size_t k;

	if ((unsigned)r->settings.method >= GS_METHOD_MAX)
		return;
	pm = &v->m[r->settings.method];
	if (!pm->present && r->err == GS_OK) {
		pm->present = true;
		pm->base = r->settings;
		pm->base.gpus = 1;
		pm->base.tp = 1;
		pm->base.pp = 1;
		pm->base.sharding = GS_SH_DDP;
	}
	for (k = 0; k < pm->nseq && pm->seqs[k] < r->settings.seq; k++)
		;
	if (k < pm->nseq && pm->seqs[k] == r->settings.seq)
		return;
	pm->seqs = gs_xrealloc(pm->seqs, (pm->nseq + 1) * sizeof *pm->seqs);
	memmove(pm->seqs + k + 1, pm->seqs + k, (pm->nseq - k) * sizeof *pm->seqs);
	pm->seqs[k] = r->settings.seq;
	pm->nseq++;
}

void gs_plan_view_answers(gs_plan_view *v, const gs_answer *answers, size_t n)
{
	v->answers = answers;
	v->n_answers = n;
	/* the classes the answers name, after the spec's, in GPU order */
	for (size_t g = 0; g < v->n_gpus; g++) {
		bool named = false, shown = false;
		for (size_t i = 0; i < n && !named; i++)
			named = answers[i].found && answers[i].gpu == g;
		for (size_t c = 0; c < v->n_classes && !shown; c++)
			shown = v->classes[c] == g;
		if (named && !shown && v->n_classes < v->n_gpus)
			v->classes[v->n_classes++] = g;
	}
}

/* Cell x of class c (the view's c-th) as an offer to the one rule. */
static gs_offer cell_offer(const gs_plan_view *v, const gs_plan_cell *x, size_t c)
{
	gs_offer o = { x->state == GS_PC_FOUND, c, v->gpus[v->classes[c]].usable_bytes, x->count,
	               x->v == GS_TIGHT, 0 };
	return o;
}

/* Method m's answer at context seq, or NULL. */
static const gs_answer *answer_of(const gs_plan_view *v, int m, int64_t seq)
{
	for (size_t i = 0; i < v->n_answers; i++)
		if ((int)v->answers[i].method == m && v->answers[i].seq == seq)
			return &v->answers[i];
	return NULL;
}

/* The configuration sized at context k (pm->at[k]): the answer's, the
 * least one's where nothing fits, else the starting point's. */
static void context_settings(const gs_plan_view *v, gs_plan_method *pm, int m, size_t k)
{
	const gs_answer *a = answer_of(v, m, pm->seqs[k]);

	pm->answer[k] = a;
	if (a != NULL && a->found)
		pm->at[k] = a->s;
	else if (a != NULL && a->n_configs > 0)
		pm->at[k] = a->least;
	else
		pm->at[k] = pm->base;
	pm->at[k].seq = pm->seqs[k];
}

/* Class g at context k, its cell: the answer's swept fit there, else the
 * search for the configuration (why: not runnable, no shape). */
static void cell_fill(const gs_plan_view *v, const gs_plan_method *pm, const gs_arch *a, size_t c,
                      size_t k, gs_plan_state why, gs_plan_cell *cell)
{
	size_t g = v->classes[c];
	const gs_answer *ans = pm->answer[k];
	gs_plan_fit f;

	memset(cell, 0, sizeof *cell);
	cell->state = why;
	if (why != GS_PC_FOUND)
		return;
	if (ans != NULL && ans->fit != NULL && ans->fit[g].found) {
		const gs_class_fit *x = &ans->fit[g];
		cell->count = x->count;
		cell->sharding = x->sharding;
		cell->tp = x->tp;
		cell->pp = x->pp;
		cell->device = x->device;
		cell->headroom = x->headroom;
		cell->v = x->v;
		return;
	}
	cell->searched = true;
	/* One GPU first: it tells an engine refusal from a no-fit. */
	if (!gs_plan_try(a, &pm->at[k], &v->gpus[g], &f) && f.est.device == 0) {
		cell->state = GS_PC_NO_ESTIMATE;
		return;
	}
	if (!f.found)
		gs_plan_count(a, &pm->at[k], &v->gpus[g], v->max_gpus, &f);
	if (!f.found) {
		cell->state = GS_PC_NONE;
		return;
	}
	cell->count = f.s.gpus > 0 ? f.s.gpus : 1;
	cell->sharding = f.s.sharding;
	cell->tp = f.s.tp > 0 ? f.s.tp : 1;
	cell->pp = 1;
	cell->device = f.est.device;
	cell->headroom = f.headroom;
	cell->v = f.v;
}

/* Why class g cannot run settings s at all: a shape, bf16, fp8. */
static gs_plan_state class_state(const gs_arch *a, const gs_settings *s, const gs_gpu *g)
{
	gs_needs need = gs_settings_needs(s);

	if (a == NULL)
		return GS_PC_NO_ESTIMATE; /* a model without a shape */
	if (need.bf16 && !g->bf16)
		return GS_PC_NEEDS_BF16;
	if (need.fp8 && !g->fp8)
		return GS_PC_NEEDS_FP8;
	return GS_PC_FOUND;
}

/* The best class at each context: the answer's, else (no answers) the
 * rule's over the cells. */
static void method_best(const gs_plan_view *v, gs_plan_method *pm)
{
	for (size_t k = 0; k < pm->nseq; k++) {
		gs_offer best = { 0 };
		const gs_answer *a = pm->answer[k];

		pm->best[k] = SIZE_MAX;
		for (size_t c = 0; c < v->n_classes; c++) {
			gs_offer o = cell_offer(v, &pm->cells[c * pm->nseq + k], c);
			if (v->answers != NULL ? a != NULL && a->found && v->classes[c] == a->gpu
			                       : gs_best_offer(v->rank, &best, &o))
				pm->best[k] = c;
		}
	}
}

void gs_plan_view_compute(gs_plan_view *v, const gs_arch *a)
{
	for (int m = 0; m < GS_METHOD_MAX; m++) {
		gs_plan_method *pm = &v->m[m];
		size_t nc = v->n_classes, ns = pm->nseq ? pm->nseq : 1;

		if (!pm->present)
			continue;
		gs_settings_label_without(&pm->base, "seq", pm->label, sizeof pm->label);
		pm->cells = gs_xcalloc((nc ? nc : 1) * ns, sizeof *pm->cells);
		pm->longest = gs_xcalloc(nc ? nc : 1, sizeof *pm->longest);
		pm->bounded = gs_xcalloc(nc ? nc : 1, sizeof *pm->bounded);
		pm->best = gs_xcalloc(ns, sizeof *pm->best);
		pm->answer = gs_xcalloc(ns, sizeof *pm->answer);
		pm->at = gs_xcalloc(ns, sizeof *pm->at);
		for (size_t k = 0; k < pm->nseq; k++)
			context_settings(v, pm, m, k);
		for (size_t c = 0; c < nc; c++) {
			const gs_gpu *g = &v->gpus[v->classes[c]];
			gs_plan_fit f;

			for (size_t k = 0; k < pm->nseq; k++)
				cell_fill(v, pm, a, c, k, class_state(a, &pm->at[k], g), &pm->cells[c * pm->nseq + k]);
			if (class_state(a, &pm->base, g) == GS_PC_FOUND)
				pm->longest[c] = gs_plan_max(a, &pm->base, g, GS_PLAN_SEQ, &pm->bounded[c], &f);
		}
		method_best(v, pm);
	}
}

void gs_layout_text(int64_t count, gs_shard sharding, int64_t tp, int64_t pp, char *buf, size_t n)
{
	if (count > 1 && pp > 1) {
		int64_t dp = count / (pp * (tp > 1 ? tp : 1));
		char t[32] = "";
		if (tp > 1)
			snprintf(t, sizeof t, "tp %" PRId64 " ", tp);
		snprintf(buf, n, "%spp %" PRId64 "%s%s", t, pp, dp > 1 ? " " : "", dp > 1 ? gs_shard_name(sharding) : "");
	} else if (count > 1 && tp > 1)
		snprintf(buf, n, "tp %" PRId64, tp);
	else
		snprintf(buf, n, "%s", gs_shard_name(count > 1 ? sharding : GS_SH_DDP));
}

void gs_plan_cell_layout(const gs_plan_cell *c, char *buf, size_t n)
{
	gs_layout_text(c->count, c->sharding, c->tp, c->pp, buf, n);
}

void gs_plan_cell_text(const gs_plan_view *v, const gs_plan_cell *c, char *buf, size_t n)
{
	char lay[48] = "";

	switch (c->state) {
	case GS_PC_FOUND:
		break;
	case GS_PC_NONE:
		snprintf(buf, n, "none up to %" PRId64, v->max_gpus);
		return;
	case GS_PC_NEEDS_BF16:
		snprintf(buf, n, "needs bf16");
		return;
	case GS_PC_NEEDS_FP8:
		snprintf(buf, n, "needs fp8");
		return;
	default:
		snprintf(buf, n, "no estimate");
		return;
	}
	if (c->count > 1)
		gs_plan_cell_layout(c, lay, sizeof lay);
	if (lay[0] && c->v == GS_TIGHT)
		snprintf(buf, n, "%" PRId64 " (%s, tight)", c->count, lay);
	else if (lay[0])
		snprintf(buf, n, "%" PRId64 " (%s)", c->count, lay);
	else
		snprintf(buf, n, "%" PRId64 "%s", c->count, c->v == GS_TIGHT ? " (tight)" : "");
}

void gs_plan_view_free(gs_plan_view *v)
{
	for (int m = 0; m < GS_METHOD_MAX; m++) {
		free(v->m[m].seqs);
		free(v->m[m].cells);
		free(v->m[m].longest);
		free(v->m[m].bounded);
		free(v->m[m].best);
		free(v->m[m].answer);
		free(v->m[m].at);
	}
	free(v->classes);
	memset(v, 0, sizeof *v);
}
