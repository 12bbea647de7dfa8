/* Unit tests: verify's comparison of predicted and measured memory
 * (src/verify/compare.c), on hand-built estimates. Pure: no GPU, no files. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "compare.h"

#define GIB (1ULL << 30)

static gs_estimate estimate(void)
{
	gs_estimate est;

	memset(&est, 0, sizeof est);
	est.allocated = 12 * GIB;
	est.reserved = 13 * GIB;
	est.device = 14 * GIB;
	est.W = 3 * GIB;
	est.O = 6 * GIB;
	return est;
}

int main(void)
{
	gs_estimate est = estimate();
	gs_verify v;
	gs_verify_in in;
	char buf[64];

	/* Within: every figure measured a little below the prediction. */
	in = (gs_verify_in){ .est = &est, .tolerance_pct = 10, .allocated = 11 * GIB,
	                     .reserved = 12 * GIB, .device = 13 * GIB };
	gs_verify_compare(&in, &v);
	CHECK(v.nfig == 3 && !strcmp(v.fig[0].key, "allocated") && !strcmp(v.fig[1].key, "reserved") &&
	      !strcmp(v.fig[2].key, "device"), "verify: three figures in order");
	CHECK(v.fig[0].have && fabs(v.fig[0].err - 100.0 / 11) < 1e-9 && v.fig[0].within,
	      "verify: allocated error (pred - meas) / meas = +9.09%% (got %g)", v.fig[0].err);
	CHECK(v.within && !strcmp(v.verdict, "within") && !strcmp(v.text, "within the 10% tolerance"),
	      "verify: within -> verdict within (got %s, '%s')", v.verdict, v.text);
	CHECK(v.ncomp == 0, "verify: no components without a load figure");

	/* Outside: one figure off by 50%; the others stay within. */
	in.allocated = 8 * GIB;
	in.tolerance_pct = 12.25;
	gs_verify_compare(&in, &v);
	CHECK(!v.within && !strcmp(v.verdict, "outside") && !v.fig[0].within && v.fig[1].within &&
	      fabs(v.fig[0].err - 50) < 1e-9, "verify: one figure outside -> outside");
	CHECK(!strcmp(v.text, "OUTSIDE the 12.2% tolerance"), "verify: outside text (got '%s')", v.text);

	/* The boundary counts as within; an over-prediction errs positive, an
	 * under-prediction negative. */
	in = (gs_verify_in){ .est = &est, .tolerance_pct = 20, .allocated = 10 * GIB,
	                     .reserved = 13 * GIB, .device = 15 * GIB };
	est.device = 12 * GIB; /* 12 GiB against 15: -20% */
	gs_verify_compare(&in, &v);
	CHECK(fabs(v.fig[0].err - 20) < 1e-9 && v.fig[0].within && fabs(v.fig[2].err + 20) < 1e-9 &&
	      v.fig[2].within && v.within, "verify: |error| equal to the tolerance is within");
	est = estimate();

	/* Not measured: no reserved (0) and no device reading: not in the verdict. */
	in = (gs_verify_in){ .est = &est, .tolerance_pct = 10, .allocated = 12 * GIB };
	gs_verify_compare(&in, &v);
	CHECK(v.nfig == 3 && !v.fig[1].have && !v.fig[2].have && v.fig[2].err == 0 && v.within,
	      "verify: figures not measured are left out of the verdict");
	CHECK(!strcmp(gs_verify_gib(buf, sizeof buf, 0, false), "not measured") &&
	      !strcmp(gs_verify_gib(buf, sizeof buf, 12 * GIB + GIB / 4, true), "12.25"),
	      "verify: GiB text (got '%s')", buf);

	/* Components: W after setup; O as what step 1 left beyond it. */
	in = (gs_verify_in){ .est = &est, .tolerance_pct = 10, .allocated = 12 * GIB,
	                     .load_allocated = 2 * GIB, .step1_end_allocated = 8 * GIB };
	gs_verify_compare(&in, &v);
	CHECK(v.ncomp == 2 && !strcmp(v.comp[0].key, "W") && v.comp[0].meas == 2 * GIB &&
	      fabs(v.comp[0].err - 50) < 1e-9 && !strcmp(v.comp[0].how, "allocated after model setup") &&
	      !strcmp(v.comp[1].key, "O") && v.comp[1].meas == 6 * GIB && v.comp[1].err == 0 &&
	      !strcmp(v.comp[1].name, "O (optimizer states)"), "verify: W and O components");
	in.step1_end_allocated = 0;
	gs_verify_compare(&in, &v);
	CHECK(v.ncomp == 1, "verify: no step 1 figure (inference) -> W only");
	in.step1_end_allocated = 2 * GIB;
	gs_verify_compare(&in, &v);
	CHECK(v.ncomp == 1, "verify: step 1 ending at the load -> no O");
	est.O = 0;
	in.step1_end_allocated = 8 * GIB;
	gs_verify_compare(&in, &v);
	CHECK(v.ncomp == 1, "verify: no predicted optimizer states -> no O");
	est = estimate();
	in.allocated = 24 * GIB;
	gs_verify_compare(&in, &v);
	CHECK(!v.within && v.ncomp == 2, "verify: components never decide the verdict");

	/* Out of memory: agrees when the prediction does not fit. */
	in = (gs_verify_in){ .est = &est, .tolerance_pct = 10, .oom = true, .usable = 12 * GIB };
	gs_verify_compare(&in, &v);
	CHECK(v.nfig == 0 && v.within && !strcmp(v.verdict, "oom-agrees") &&
	      !strcmp(v.text, "out of memory on the GPU; predicted 14.00 GiB against 12.00 GiB usable "
	              "(driver total): the prediction agrees (does not fit)"),
	      "verify: oom, predicted over the driver total -> agrees (got '%s')", v.text);
	in.usable = 14 * GIB;
	in.usable_from_class = true;
	gs_verify_compare(&in, &v);
	CHECK(!v.within && !strcmp(v.verdict, "oom-disagrees") &&
	      !strcmp(v.text, "out of memory on the GPU; predicted 14.00 GiB against 14.00 GiB usable: "
	              "the prediction said it fits (disagrees)"),
	      "verify: oom where the prediction just fits the class -> disagrees (got '%s')", v.text);

	CHECK(gs_verify_err_pct(5, 0) == 0 && gs_verify_err_pct(3, 4) == -25,
	      "verify: error percent (0 when nothing measured)");
	CHECK_DONE();
}
