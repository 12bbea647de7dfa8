/* gpusizer: the sweep: spec axes -> rows -> estimates (detailed + seeds). */
#include "sweep.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "stacks.h"
#include "util.h"

typedef struct sweep_ctx {
	const gs_spec *sp;
	const gs_model *m;       /* NULL when counting for no model */
	bool count_only;         /* count rows, call nothing */
	size_t *index;
	size_t n_rows, n_skipped;
	gs_sweep_fn fn;
	void *ctx;
	gs_row row;
	gs_error *e;
} sweep_ctx;

gs_err gs_sweep_base(const gs_spec *sp, gs_settings *base, gs_error *e)
{
	gs_settings_default(base);
	for (size_t i = 0; i < sp->set_names.n; i++) {
		gs_err rc = gs_settings_set(base, sp->set_names.v[i], sp->set_values.v[i], e);
		if (rc != GS_OK)
			return rc;
	}
	return GS_OK;
}

void gs_sweep_short_name(const char *slug, char *buf, size_t n)
{
	const char *s = strstr(slug, "--");
	size_t k = 0;
	bool dash = false;

	s = s ? s + 2 : slug;
	for (; *s && k + 1 < n; s++) {
		if (isalnum((unsigned char)*s)) {
			if (dash && k > 0 && k + 2 < n)
				buf[k++] = '-';
			dash = false;
			buf[k++] = (char)tolower((unsigned char)*s);
		} else {
			dash = true;
		}
	}
	if (k == 0 && n > 1)
		buf[k++] = 'm';
	buf[k] = '\0';
}

/* What the spec gives a row of method m, which no stack changes: the
 * axes and fixed settings it names, its precisions for m, the layouts. */
static uint64_t spec_given(const gs_spec *sp, gs_method m)
{
	static _Thread_local uint64_t layout, prec;

	if (layout == 0) {
		layout = gs_setting_bit("gpus") | gs_setting_bit("sharding") | gs_setting_bit("tp");
		prec = gs_setting_bit("precision");
	}
	return sp->given | layout | (sp->prec_given[m] ? prec : 0);
}

static gs_err leaf(sweep_ctx *c, const gs_settings *in)
{
	gs_error sub = { 0 };
	gs_row *r = &c->row;
	gs_settings st = *in, *s = &st;

	/* a method the model's spec entry leaves out */
	if (c->m != NULL && c->m->methods != 0 && !(c->m->methods & (1u << s->method))) {
		c->n_skipped++;
		return GS_OK;
	}
	/* the row's stack over what the spec left to it */
	s->given = spec_given(c->sp, in->method);
	if (gs_stack_apply(s, c->m != NULL ? c->m->arch : NULL, &sub) != GS_OK ||
	    gs_settings_check(s, &sub) != GS_OK) {
		c->n_skipped++;
		return GS_OK;
	}
	/* A context beyond the model's positions is not a configuration of it. */
	if (c->m != NULL && c->m->arch->max_pos > 0 && gs_settings_context(s) > c->m->arch->max_pos) {
		c->n_skipped++;
		return GS_OK;
	}
	c->n_rows++;
	if (c->count_only)
		return GS_OK;
	gs_sweep_row(r, c->m, s);
	r->index = (*c->index)++;
	return c->fn(c->ctx, r, c->e);
}

void gs_sweep_row(gs_row *r, const gs_model *m, const gs_settings *s)
{
	char short_name[64];
	gs_error sub = { 0 };
	gs_err rc;

	memset(r, 0, sizeof *r);
	r->model = m;
	r->settings = *s;
	r->settings.formula = GS_F_DETAILED;
	gs_settings_native(&r->settings, m->arch); /* an unset inference precision: the checkpoint's */
	gs_settings_label(&r->settings, r->label, sizeof r->label);
	gs_settings_key(&r->settings, r->key, sizeof r->key);
	gs_sweep_short_name(m->slug ? m->slug : "", short_name, sizeof short_name);
	snprintf(r->id, sizeof r->id, "%.50s-%012llx", short_name,
	         (unsigned long long)(gs_key_hash(m->id ? m->id : "", r->key) >> 16));
	rc = gs_estimate_run(m->arch, &r->settings, &r->est, &sub);
	if (rc != GS_OK) {
		r->err = rc;
		snprintf(r->err_msg, sizeof r->err_msg, "%.255s", sub.msg[0] ? sub.msg : gs_strerror(rc));
		memset(&r->est, 0, sizeof r->est);
		return;
	}
	/* The published rules size one GPU: they have no per-GPU form for a
	 * sharded or tensor-parallel run, so they are shown for one-GPU rows
	 * only, where their whole-job figure is the GPU's. */
	for (int f = 1; f < GS_F_MAX; f++) {
		gs_settings sf = r->settings;
		gs_error se = { 0 };
		sf.formula = (gs_formula)f;
		if (r->settings.gpus > 1 || r->settings.tp > 1 ||
		    gs_estimate_run(m->arch, &sf, &r->seeds[f], &se) != GS_OK) {
			memset(&r->seeds[f], 0, sizeof r->seeds[f]);
			r->seeds[f].recipe = NULL; /* not applicable to this row */
			continue;
		}
		r->seeds[f].formula = (gs_formula)f;
	}
}

static gs_err set(sweep_ctx *c, gs_settings *s, const char *name, const char *v, bool *ok)
{
	gs_error sub = { 0 };

	(void)c;
	*ok = gs_settings_set(s, name, v, &sub) == GS_OK;
	return GS_OK;
}

/* The GPU layouts (the counts axis: gpus, sharding and tp at once), each
 * a leaf, those for other methods left out. */
static gs_err counts(sweep_ctx *c, const gs_settings *in)
{
	const gs_spec *sp = c->sp;

	for (size_t i = 0; i < sp->n_counts; i++) {
		gs_settings s = *in;
		char buf[32];
		bool ok1, ok2, ok3, ok4;
		gs_err rc;
		if (sp->counts[i].methods != 0 && !(sp->counts[i].methods & (1u << in->method)))
			continue; /* a layout for other methods */
		if (sp->counts[i].pp > 1 && in->method == GS_INFER)
			continue; /* a training schedule: inference splits with pipeline */
		snprintf(buf, sizeof buf, "%lld", (long long)sp->counts[i].count);
		set(c, &s, "gpus", buf, &ok1);
		set(c, &s, "sharding", sp->counts[i].sharding, &ok2);
		snprintf(buf, sizeof buf, "%lld", (long long)sp->counts[i].tp);
		set(c, &s, "tp", buf, &ok3);
		snprintf(buf, sizeof buf, "%lld", (long long)(sp->counts[i].pp > 1 ? sp->counts[i].pp : 1));
		set(c, &s, "pp", buf, &ok4);
		if (!(ok1 && ok2 && ok3 && ok4)) {
			c->n_skipped++;
			continue;
		}
		if ((rc = leaf(c, &s)) != GS_OK)
			return rc;
	}
	return GS_OK;
}

/* Axis `level` of the settings table (gs_settings_axis) and those inside
 * it; past the last, a leaf. An axis not swept for the row's method (its
 * methods mask) passes the settings through. */
static gs_err rec(sweep_ctx *c, size_t level, const gs_settings *in)
{
	const gs_spec *sp = c->sp;
	const gs_setting *d = gs_settings_axis(level);
	const gs_spec_list *l = NULL;
	gs_method m = in->method;

	if (d == NULL)
		return leaf(c, in);
	if (d->axis.flags & GS_AXF_COUNTS)
		return counts(c, in);
	if (d->methods & GS_M(m)) {
		const bool *named = NULL;
		if (d->axis.flags & GS_AXF_PER_METHOD) {
			l = &gs_spec_method_lists(sp, d, &named)[m];
			if (named != NULL && !named[m])
				l = NULL; /* precisions the spec does not name: the row's (or its stack's) */
		} else if (d->axis.order == 1 || (sp->given & gs_setting_bit(d->name))) {
			l = &sp->axis[level];
		} /* an axis the spec does not name keeps the row's value (the
		     default, or its stack's choice) */
	}
	if (l == NULL || l->n == 0)
		return rec(c, level + 1, in);
	for (size_t i = 0; i < l->n; i++) {
		gs_settings s = *in;
		bool ok;
		gs_err rc;
		set(c, &s, d->name, l->v[i], &ok);
		if (!ok) {
			/* Counts what this level would have produced, as skipped. */
			sweep_ctx sub = *c;
			sub.count_only = true;
			sub.n_rows = sub.n_skipped = 0;
			rec(&sub, level + 1, in);
			c->n_skipped += sub.n_rows + sub.n_skipped;
			continue;
		}
		if ((rc = rec(c, level + 1, &s)) != GS_OK)
			return rc;
	}
	return GS_OK;
}

size_t gs_sweep_count(const gs_spec *sp, const gs_settings *base, size_t *skipped)
{
	sweep_ctx c;

	memset(&c, 0, sizeof c);
	c.sp = sp;
	c.count_only = true;
	rec(&c, 0, base);
	if (skipped)
		*skipped = c.n_skipped;
	return c.n_rows;
}

size_t gs_sweep_count_model(const gs_spec *sp, const gs_settings *base, const gs_model *m,
                            size_t *skipped)
{
	static sweep_ctx c; /* large (holds a row) */

	memset(&c, 0, sizeof c);
	c.sp = sp;
	c.m = m;
	c.count_only = true;
	rec(&c, 0, base);
	if (skipped)
		*skipped = c.n_skipped;
	return c.n_rows;
}

/* A list's factor in the product: its length, 1 when empty (the level
 * passes the settings through). */
static uint64_t factor(const gs_spec_list *l)
{
	return l->n > 0 ? (uint64_t)l->n : 1;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	uint64_t r;

	return gs_mul_u64(a, b, &r) ? r : UINT64_MAX;
}

uint64_t gs_sweep_combinations(const gs_spec *sp, const gs_settings *base)
{
	/* the outermost axis is the method (test_settings checks): the others'
	 * lists count for the methods they are swept for */
	const gs_spec_list *ml = &sp->axis[0];
	const gs_setting *d;
	uint64_t total = 0;

	for (size_t i = 0; i < (ml->n > 0 ? ml->n : 1); i++) {
		int mi = ml->n > 0 ? gs_method_parse(ml->v[i]) : -1;
		gs_method meth = mi >= 0 ? (gs_method)mi : base->method;
		uint64_t k = 1, sum;
		const bool *named;

		for (size_t a = 1; (d = gs_settings_axis(a)) != NULL; a++) {
			if (d->axis.flags & GS_AXF_COUNTS)
				k = mul_sat(k, (uint64_t)sp->n_counts);
			else if (d->methods & GS_M(meth))
				k = mul_sat(k, factor(d->axis.flags & GS_AXF_PER_METHOD ? &gs_spec_method_lists(sp, d, &named)[meth]
				                                                   : &sp->axis[a]));
		}
		total = gs_add_u64(total, k, &sum) ? sum : UINT64_MAX;
	}
	return total;
}

gs_err gs_sweep_model(const gs_spec *sp, const gs_settings *base, const gs_model *m,
                      size_t *index, size_t *skipped, gs_sweep_fn fn, void *ctx, gs_error *e)
{
	static sweep_ctx c; /* large (holds a row); one sweep at a time */
	gs_err rc;

	memset(&c, 0, sizeof c);
	c.sp = sp;
	c.m = m;
	c.index = index;
	c.fn = fn;
	c.ctx = ctx;
	c.e = e;
	rc = rec(&c, 0, base);
	if (skipped)
		*skipped += c.n_skipped;
	return rc;
}
