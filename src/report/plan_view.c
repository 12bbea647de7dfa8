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

/* Cell x of class c (the view's c-th) as an offer to the one rule. */
static gs_offer cell_offer(const gs_plan_view *v, const gs_plan_cell *x, size_t c)
{
	gs_offer o = { x->state == GS_PC_FOUND, c, v->gpus[v->classes[c]].usable_bytes, x->count,
	               x->v == GS_TIGHT, 0 };
	return o;
}

void gs_plan_view_compute(gs_plan_view *v, const gs_arch *a)
{
	for (int m = 0; m < GS_METHOD_MAX; m++) {
		gs_plan_method *pm = &v->m[m];
		size_t nc = v->n_classes;

		if (!pm->present)
			continue;
		gs_settings_label_without(&pm->base, "seq", pm->label, sizeof pm->label);
		pm->cells = gs_xcalloc((nc ? nc : 1) * (pm->nseq ? pm->nseq : 1), sizeof *pm->cells);
		pm->longest = gs_xcalloc(nc ? nc : 1, sizeof *pm->longest);
		pm->bounded = gs_xcalloc(nc ? nc : 1, sizeof *pm->bounded);
		pm->best = gs_xcalloc(pm->nseq ? pm->nseq : 1, sizeof *pm->best);
		for (size_t c = 0; c < nc; c++) {
			const gs_gpu *g = &v->gpus[v->classes[c]];
			gs_needs need = gs_settings_needs(&pm->base);
			gs_plan_fit f;

			gs_plan_state why = GS_PC_FOUND;

			if (a == NULL)
				why = GS_PC_NO_ESTIMATE; /* a model without a shape */
			else if (need.bf16 && !g->bf16)
				why = GS_PC_NEEDS_BF16;
			else if (need.fp8 && !g->fp8)
				why = GS_PC_NEEDS_FP8;
			for (size_t k = 0; k < pm->nseq; k++) {
				gs_settings s = pm->base;
				gs_plan_cell *cell = &pm->cells[c * pm->nseq + k];

				s.seq = pm->seqs[k];
				cell->state = why;
				if (why != GS_PC_FOUND)
					continue;
				/* One GPU first: it tells an engine refusal from a no-fit. */
				if (!gs_plan_try(a, &s, g, &f) && f.est.device == 0) {
					cell->state = GS_PC_NO_ESTIMATE;
					continue;
				}
				if (!f.found)
					gs_plan_count(a, &s, g, v->max_gpus, &f);
				if (!f.found) {
					cell->state = GS_PC_NONE;
					continue;
				}
				cell->count = f.s.gpus > 0 ? f.s.gpus : 1;
				cell->sharding = f.s.sharding;
				cell->tp = f.s.tp > 0 ? f.s.tp : 1;
				cell->device = f.est.device;
				cell->headroom = f.headroom;
				cell->v = f.v;
			}
			if (why != GS_PC_FOUND)
				continue;
			pm->longest[c] = gs_plan_max(a, &pm->base, g, GS_PLAN_SEQ, &pm->bounded[c], &f);
		}
		for (size_t k = 0; k < pm->nseq; k++) {
			gs_offer best = { 0 };
			pm->best[k] = SIZE_MAX;
			for (size_t c = 0; c < nc; c++) {
				gs_offer o = cell_offer(v, &pm->cells[c * pm->nseq + k], c);
				if (gs_best_offer(v->rank, &best, &o))
					pm->best[k] = c;
			}
		}
	}
}

void gs_plan_cell_layout(const gs_plan_cell *c, char *buf, size_t n)
{
	if (c->count > 1 && c->tp > 1)
		snprintf(buf, n, "tp %" PRId64, c->tp);
	else
		snprintf(buf, n, "%s", gs_shard_name(c->count > 1 ? c->sharding : GS_SH_DDP));
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
	}
	free(v->classes);
	memset(v, 0, sizeof *v);
}
