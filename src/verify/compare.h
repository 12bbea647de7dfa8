/* gpusizer: the comparison `verify` makes, predicted against measured:
 * one line per figure (allocated, reserved, device) with its error and
 * whether it is within the tolerance, the informational components (W, O),
 * and the verdict. Pure: plain structs in, plain structs out; no I/O, no
 * JSON. The harness (harness.h) measures, the record (measured.h) keeps. */
#ifndef GS_COMPARE_H
#define GS_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

/* What the run measured, as the comparison needs it. */
typedef struct gs_verify_in {
	const gs_estimate *est;        /* the prediction (borrowed) */
	double tolerance_pct;          /* allowed |predicted - measured| / measured, percent */
	bool oom;                      /* the run ran out of memory: no figures, a fit verdict */
	uint64_t allocated;            /* measured peaks; 0 = not measured */
	uint64_t reserved;
	uint64_t device;
	uint64_t load_allocated;       /* allocated after model setup (W); 0 = none */
	uint64_t step1_end_allocated;  /* allocated at the end of step 1 (W + O); 0 = none
	                                  (the caller passes 0 for inference) */
	uint64_t usable;               /* the GPU's usable bytes, for an out-of-memory run */
	bool usable_from_class;        /* usable is the gpus/ class's, not the driver total */
} gs_verify_in;

/* One compared figure. */
typedef struct gs_verify_line {
	const char *key;               /* static: "allocated", "reserved", "device", "W", "O" */
	const char *name;              /* static: "allocated", ..., "W (weights, buffers)" */
	const char *how;               /* static: how a component was measured; NULL for figures */
	uint64_t pred, meas;           /* bytes */
	bool have;                     /* measured (meas > 0); err and within are set */
	double err;                    /* (pred - meas) / meas, percent (not rounded) */
	bool within;                   /* |err| <= tolerance (components: always true) */
} gs_verify_line;

typedef struct gs_verify {
	gs_verify_line fig[3];         /* allocated, reserved, device; none for an oom run */
	size_t nfig;
	gs_verify_line comp[2];        /* W, then O: informational, never in the verdict */
	size_t ncomp;
	bool within;                   /* the run agrees with the prediction: exit 0 */
	const char *verdict;           /* static: "within", "outside", "oom-agrees", "oom-disagrees" */
	char text[512];                /* "within the 10% tolerance", "OUTSIDE the ...", or the
	                                  out-of-memory sentence */
} gs_verify;

/* Compare in's measurement with its prediction into *out. */
void gs_verify_compare(const gs_verify_in *in, gs_verify *out);

/* (pred - meas) * 100 / meas; 0 when meas is 0. */
double gs_verify_err_pct(uint64_t pred, uint64_t meas);

/* bytes as GiB with 2 decimals ("13.78"), or "not measured" when !have.
 * Writes at most n bytes; returns buf. */
char *gs_verify_gib(char *buf, size_t n, uint64_t bytes, bool have);

#endif
