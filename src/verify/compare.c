/* gpusizer: verify's comparison of predicted and measured memory (pure). */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

double gs_verify_err_pct(uint64_t pred, uint64_t meas)
{
	return meas ? ((double)pred - (double)meas) * 100.0 / (double)meas : 0.0;
}

char *gs_verify_gib(char *buf, size_t n, uint64_t bytes, bool have)
{
	if (have)
		snprintf(buf, n, "%.2f", (double)bytes / GS_GIB);
	else
		snprintf(buf, n, "not measured");
	return buf;
}

static gs_verify_line figure(const char *key, uint64_t pred, uint64_t meas, double tol)
{
	gs_verify_line l = { key, key, NULL, pred, meas, meas > 0, 0, true };

	if (l.have) {
		l.err = gs_verify_err_pct(pred, meas);
		l.within = fabs(l.err) <= tol;
	}
	return l;
}

static gs_verify_line component(const char *key, const char *name, const char *how, uint64_t pred,
                                uint64_t meas)
{
	return (gs_verify_line){ key, name, how, pred, meas, true, gs_verify_err_pct(pred, meas), true };
}

/* A run that finished: each figure against the tolerance, and the
 * components that can be read off the run (W after setup; O as what step 1
 * left beyond it). */
static void compare_figures(const gs_verify_in *in, gs_verify *v)
{
	const gs_estimate *est = in->est;
	uint64_t w = in->load_allocated, end1 = in->step1_end_allocated;

	v->fig[v->nfig++] = figure("allocated", est->allocated, in->allocated, in->tolerance_pct);
	v->fig[v->nfig++] = figure("reserved", est->reserved, in->reserved, in->tolerance_pct);
	v->fig[v->nfig++] = figure("device", est->device, in->device, in->tolerance_pct);
	v->within = true;
	for (size_t i = 0; i < v->nfig; i++)
		v->within = v->within && v->fig[i].within;
	if (w) {
		v->comp[v->ncomp++] = component("W", "W (weights, buffers)", "allocated after model setup",
		                                est->W, w);
		if (end1 > w && est->O)
			v->comp[v->ncomp++] = component("O", "O (optimizer states)",
			                                "resident after step 1 minus that", est->O, end1 - w);
	}
	v->verdict = v->within ? "within" : "outside";
	snprintf(v->text, sizeof v->text, "%s the %.3g%% tolerance", v->within ? "within" : "OUTSIDE",
	         in->tolerance_pct);
}

/* An out-of-memory run: it agrees when the prediction said it does not fit. */
static void compare_oom(const gs_verify_in *in, gs_verify *v)
{
	uint64_t dev = in->est->device;

	v->within = dev > in->usable;
	v->verdict = v->within ? "oom-agrees" : "oom-disagrees";
	snprintf(v->text, sizeof v->text,
	         "out of memory on the GPU; predicted %.2f GiB against %.2f GiB usable%s: %s",
	         (double)dev / GS_GIB, (double)in->usable / GS_GIB,
	         in->usable_from_class ? "" : " (driver total)",
	         v->within ? "the prediction agrees (does not fit)"
	                   : "the prediction said it fits (disagrees)");
}

void gs_verify_compare(const gs_verify_in *in, gs_verify *out)
{
	memset(out, 0, sizeof *out);
	if (in->oom)
		compare_oom(in, out);
	else
		compare_figures(in, out);
}
