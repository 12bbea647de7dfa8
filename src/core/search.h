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
#include "timing.h"
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

/* The remedy ladder (gpusizer(1), plan): the rungs in the order they are
 * tried, each on top of the ones kept before it. The seed articles
 * (../shared/seeds/002: "BF16/FP16, gradient checkpointing, gradient
 * accumulation, 8-bit optimizer and QLoRA in turn; then FSDP/DeepSpeed/CPU
 * offload") give the order, with three changes issue 33 asked for: the
 * sharded layouts are no rung of their own but tried at every rung (each
 * rung is judged at its fewest GPUs, where it matters, not on one GPU),
 * the 16-bit weights (a numerical change) come after the changes that
 * keep the numbers, and the method change is last, so that a full
 * fine-tune is answered as one before QLoRA is offered. fp16 compute,
 * where the class has no bf16, comes first: nothing runs without it. The
 * rungs the seed does not name sit beside the one they extend: the fused
 * loss after the optimizer (it cuts what checkpointing leaves), the
 * offloaded checkpoints with the CPU offload. */
typedef enum gs_plan_rung {
	GS_RUNG_START = 0,  /* the configuration as given */
	GS_RUNG_FP16,       /* fp16 compute where the GPU has no bf16 */
	GS_RUNG_CKPT,       /* gradient checkpointing */
	GS_RUNG_BATCH1,     /* micro-batch 1, accumulation keeps the effective batch */
	GS_RUNG_OPT8,       /* 8-bit optimizer states */
	GS_RUNG_FUSED_LOSS, /* a fused linear cross-entropy (Liger): no logits kept */
	GS_RUNG_HALF,       /* 16-bit weights; over a quantized base, no fp32 k-bit cast */
	GS_RUNG_CKPT_OFFLOAD, /* checkpointed layer inputs in host memory (Unsloth) */
	GS_RUNG_OFFLOAD,    /* CPU offload */
	GS_RUNG_QLORA,      /* the method change: QLoRA (inference: 4-bit weights) */
	GS_RUNG_MAX
} gs_plan_rung;

typedef struct gs_plan_step {
	gs_plan_rung rung;
	const char *what;   /* static: what the step does */
	const char *cost;   /* static: what it costs */
	bool applied;       /* kept: see gs_plan_ladder */
	bool skipped;       /* tried and not kept */
	gs_plan_fit fit;    /* the cumulative configuration after the step: at its
	                       fewest count when found; else at max_gpus in its
	                       layout of least memory a GPU (found false; est.device
	                       0 when the engine sizes none) */
} gs_plan_step;

/* Run the ladder for base on class g: steps[0] is the start; a rung that
 * does not apply to the method or is already in place is left out. Each
 * rung is tried on top of the ones kept and judged at its fewest count
 * (gs_plan_count, up to max_gpus): kept when it needs fewer GPUs, fits
 * comfortably where the steps before were tight at as many, or runs where
 * nothing ran; while nothing runs up to max_gpus, when it lowers the
 * memory a GPU at max_gpus or makes a row runnable. So along the kept
 * steps the fewest count never rises. The ladder stops once a step fits
 * one GPU comfortably. Returns the number of steps written (at most
 * GS_RUNG_MAX). */
size_t gs_plan_ladder(const gs_arch *a, const gs_settings *base, const gs_gpu *g, int64_t max_gpus,
                      gs_plan_step *steps);

const char *gs_plan_rung_name(gs_plan_rung r); /* "start", "fp16-compute", "grad-ckpt", ... */

/* ---- answers ---- */

/* The question q with the ladder's rungs of set (bits 1u << gs_plan_rung)
 * applied in the ladder's order on class g, those that do not apply left
 * out, at q's layout: an answer's settings but its layout. */
gs_settings gs_plan_settings(const gs_arch *a, const gs_settings *q, const gs_gpu *g, unsigned set);

/* One answer of `plan`: a setup that runs the question on a class. */
typedef struct gs_plan_answer {
	gs_plan_fit fit;     /* at its count (fit.s.gpus), in the best layout there */
	int64_t fewest;      /* the fewest GPUs that run fit.s (<= fit.s.gpus: fewer
	                        when the count was rounded up to whole nodes) */
	int64_t node;        /* GPUs a node the count was rounded to (1: none) */
	unsigned rungs;      /* the ladder's rungs it turns on, bits 1u << gs_plan_rung */
	bool method_change;  /* the method is not the question's */
	uint64_t turned_on;  /* the settings (gs_setting_bit) its rungs set that differ
	                        from the question at the same layout: the flags to add */
	uint64_t by_stack;   /* those that differ too, chosen by the row's stack over
	                        the rungs (QLoRA's adapter dtype, ...) */
	uint64_t by_layout;  /* the settings its layout's stack choices change against
	                        the question as given (gpus, sharding and tp aside) */
	bool kbit_by_layout; /* an automatic k-bit preparation that runs as given does
	                        not under this layout (it runs only under ddp or pipeline) */
	bool timed;          /* t: the time model at the answer */
	gs_time t;
	double vs_question;  /* its step (training) or decode step (inference) over the
	                        question's at the same count and layout; NAN: unknown */
} gs_plan_answer;

#define GS_PLAN_ANSWERS_MAX GS_RUNG_MAX

/* Why the time model cannot time settings s (static text), or NULL when
 * it can: CPU offload of any kind (--offload, --ckpt-offload) moves bytes
 * over PCIe each step that the time model leaves out (docs/time.md, "Not
 * modelled"), so a time there would be a guess. plan's answers and
 * estimate's time block say this instead of a number. */
const char *gs_plan_untimed(const gs_settings *s);

/* The answers to question q on class g, from its ladder (steps, n_steps:
 * gs_plan_ladder's): out[0] the first step that runs, the answer; then,
 * further down the ladder, each step that needs fewer GPUs than the
 * answer before it, or as many comfortably where it was tight (the
 * alternatives). Each at its fewest count rounded to whole nodes of node
 * GPUs (gs_node_round), in the layout there that ranks first by the one
 * rule (gs_offers_rank: comfortable before tight, then the time model's
 * step); its rungs pared down to those still needed at that count (a rung
 * goes when the rest still runs there as comfortably, the later rungs
 * first). When no layout of the rounded count runs it, its fewest count
 * stands. to: the time model's options. Returns how many (0: nothing runs
 * up to max_gpus, whatever the rungs). */
size_t gs_plan_answers(const gs_arch *a, const gs_settings *q, const gs_gpu *g, int64_t max_gpus, int64_t node,
                       const gs_time_opts *to, const gs_plan_step *steps, size_t n_steps, gs_plan_answer *out);

#endif
