/* gpusizer: the memory engine. Simulates one training (or inference) step
 * as a timeline of allocations and frees and reports the per-GPU peak with
 * its W/G/O/A/B breakdown; also the seeds' closed formulas. Pure: plain
 * structs in, plain structs out; no allocation, no I/O. */
#ifndef GS_ENGINE_H
#define GS_ENGINE_H

#include <stdint.h>

#include "arch.h"
#include "err.h"
#include "settings.h"

typedef enum gs_phase {
	GS_PH_LOAD = 0,  /* weights resident, nothing else   */
	GS_PH_FORWARD,
	GS_PH_LOSS,
	GS_PH_BACKWARD,
	GS_PH_OPTIMIZER,
	GS_PH_PREFILL,   /* inference                         */
	GS_PH_DECODE,
	GS_PH_MAX
} gs_phase;

typedef struct gs_estimate {
	gs_formula formula;
	const char *recipe;      /* static: e.g. "amp-bf16: fp32 weights, bf16 autocast, fp32 grads, fp32 AdamW" */
	uint64_t params_total, params_trainable, params_active;

	/* Live at the peak moment, per GPU, bytes. */
	uint64_t W, G, O, A, B;
	double bpp_W, bpp_G, bpp_O; /* bytes per parameter (W over params_total;
	                               G and O over params_trainable) */

	uint64_t allocated;  /* torch max_memory_allocated, per GPU  */
	uint64_t reserved;   /* torch max_memory_reserved, per GPU   */
	uint64_t device;     /* what nvidia-smi shows, per GPU; decides "fits" */
	uint64_t host;       /* host memory for offloaded state, per node */
	gs_phase peak_phase;
	int peak_step;       /* 1 = first step, 2 = steady state */
	int64_t gpus;
	/* Inference (0 in training): the KV cache on this GPU (its layers, its
	 * tensor-parallel share), for the serving capacity (gs_serving_seqs). */
	double kv_bytes_token;  /* bytes one cached token takes in the layers that keep every
	                           token (full attention, MLA) */
	double kv_win_bytes_token; /* the same in the layers that keep a window (sliding,
	                              chunked), up to kv_win_bytes_seq a sequence */
	double kv_win_bytes_seq;
	double state_bytes_seq; /* recurrent and conv state a sequence takes (linear attention,
	                           Mamba-2), whatever its length */
	uint64_t kv_at_peak;    /* cache bytes (and states) live at the peak */
	char note[256];      /* assumptions worth telling (e.g. paged states) */
} gs_estimate;

/* Run the estimator that s->formula names. The arch must be tallied.
 * GS_EUSAGE for inconsistent settings, GS_EOVERFLOW past the limits: an
 * estimate whose device, allocated or host bytes pass GS_ESTIMATE_MAX_BYTES
 * (constants.h, 1 PiB) is refused as implausible, *out zeroed but for its
 * formula, the message naming a->source. */
gs_err gs_estimate_run(const gs_arch *a, const gs_settings *s, gs_estimate *out, gs_error *e);

const char *gs_phase_name(gs_phase p);

#endif
