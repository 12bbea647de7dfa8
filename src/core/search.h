/* gpusizer: planning searches over the engine (`gpusizer plan`): the fewest
 * GPUs of a class that run a configuration, the largest micro-batch and the
 * longest context that fit, and the remedy ladder for one that does not.
 * Pure: estimates and verdicts only, no I/O. Every answer is checked by
 * construction: the engine fits at it and not one step beyond.
 *
 * "Fits" is a verdict of fits or tight (gs_verdict_of): it runs.
 * Monotonicity assumed, and checked by tests/unit/test_plan.c: the per-GPU
 * device memory does not fall when the micro-batch or the context grows
 * (every other setting held). The GPU count is scanned, not bisected. */
#ifndef GS_SEARCH_H
#define GS_SEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "arch.h"
#include "engine.h"
#include "gpu.h"
#include "settings.h"
#include "verdict.h"

/* One configuration tried on a class. */
typedef struct gs_plan_fit {
	bool found;          /* false: nothing fits (the rest is unset) */
	gs_settings s;       /* the settings of the answer */
	gs_estimate est;
	gs_verdict v;        /* GS_FITS or GS_TIGHT when found */
	double headroom;     /* 1 - device/usable */
} gs_plan_fit;

/* Whether s runs on one GPU of class g; *f gets the estimate and verdict
 * (found false when the settings are inconsistent or the engine refuses). */
bool gs_plan_try(const gs_arch *a, const gs_settings *s, const gs_gpu *g, gs_plan_fit *f);

/* The fewest GPUs of class g, 1 to max_gpus, that run base, with the first
 * layout that fits at that count: training ddp, zero1, zero2, fsdp2, zero3,
 * fsdp; inference one replica, then tensor parallel over all of them, then
 * pipeline. base's gpus, sharding and tp are replaced. */
void gs_plan_count(const gs_arch *a, const gs_settings *base, const gs_gpu *g, int64_t max_gpus,
                   gs_plan_fit *out);

typedef enum gs_plan_axis { GS_PLAN_BATCH = 0, GS_PLAN_SEQ } gs_plan_axis;

/* The largest micro-batch or context (1 up to the model's
 * max_position_embeddings for the context, 65536 for the batch) at which s
 * runs on class g, every other setting held; 0 when not even 1 does.
 * *bounded: the limit, not memory, stopped it. *out: the fit at the answer. */
int64_t gs_plan_max(const gs_arch *a, const gs_settings *s, const gs_gpu *g, gs_plan_axis axis,
                    bool *bounded, gs_plan_fit *out);

/* The remedy ladder, in the order of ../shared/seeds/002 ("batch=1 ...
 * then BF16/FP16, gradient checkpointing, gradient accumulation, 8-bit
 * optimizer and QLoRA in turn; then FSDP/DeepSpeed/CPU offload"): each step
 * applied on top of the ones before. The rungs the seed does not name sit
 * beside the one they extend: fp16 compute with the 16-bit step, the fused
 * loss after checkpointing (both cut activations), offloaded checkpoints
 * with the CPU offloads. A step that lowers neither the per-GPU device
 * memory nor makes a row that cannot run runnable is listed as skipped and
 * not applied, so the memory never rises. */
typedef enum gs_plan_rung {
	GS_RUNG_START = 0,  /* the configuration as given */
	GS_RUNG_BATCH1,     /* micro-batch 1, accumulation keeps the effective batch */
	GS_RUNG_FP16,       /* fp16 compute where the GPU has no bf16 */
	GS_RUNG_HALF,       /* 16-bit weights (bf16, else fp16) */
	GS_RUNG_CKPT,       /* gradient checkpointing */
	GS_RUNG_FUSED_LOSS, /* a fused linear cross-entropy (Liger): no logits kept */
	GS_RUNG_OPT8,       /* 8-bit optimizer states */
	GS_RUNG_QLORA,      /* QLoRA (inference: 4-bit weights) */
	GS_RUNG_SHARD,      /* more GPUs (gs_plan_count) */
	GS_RUNG_CKPT_OFFLOAD, /* checkpointed layer inputs in host memory (Unsloth) */
	GS_RUNG_OFFLOAD,    /* CPU offload */
	GS_RUNG_MAX
} gs_plan_rung;

typedef struct gs_plan_step {
	gs_plan_rung rung;
	const char *what;   /* static: what the step does */
	const char *cost;   /* static: what it costs */
	bool applied;       /* it lowered the memory and is kept */
	bool skipped;       /* tried, did not lower the memory (or nothing fit) */
	gs_plan_fit fit;    /* the cumulative configuration after the step */
} gs_plan_step;

/* Run the ladder for base on class g: steps[0] is the start; a step that
 * does not apply to the method or is already in place is left out. Stops
 * after the first step that fits unless all. Returns the number of steps
 * written (at most GS_RUNG_MAX). */
size_t gs_plan_ladder(const gs_arch *a, const gs_settings *base, const gs_gpu *g, int64_t max_gpus,
                      bool all, gs_plan_step *steps);

const char *gs_plan_rung_name(gs_plan_rung r); /* "start", "batch-1", ... */

#endif
