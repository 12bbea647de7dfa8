/* gpusizer: verdicts and ranks (pure). What a row's settings need of a GPU,
 * the one verdict rule of a peak on a GPU class, serving capacity, and the
 * rules that rank one fitting answer before another. */
#ifndef GS_VERDICT_H
#define GS_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "gpu.h"
#include "settings.h"

/* Verdict of one configuration on one GPU class at one GPU count. */
typedef enum gs_verdict {
	GS_FITS = 0,        /* device <= usable, headroom >= 10%            */
	GS_TIGHT,           /* fits with under 10% headroom                  */
	GS_NO_FIT,          /* device > usable                               */
	GS_NOT_RUNNABLE,    /* needs bf16, fp8 or a newer architecture than the GPU has */
	GS_VERDICT_MAX
} gs_verdict;

#define GS_TIGHT_HEADROOM 0.10

/* Verdicts (pure). What a GPU must support to run a row's settings at all:
 * bf16 (a bf16 recipe or storage named, --compute-dtype bf16), fp8, and
 * the oldest architecture its kernels run on; each with the setting that
 * asks for it (static text). A row whose compute dtype is auto computes in
 * fp16 on a GPU without bf16 (fp16_fallback): bf16 and fp16 take the same
 * bytes, so its estimate holds on both. */
typedef struct gs_needs {
	bool bf16, fp8;
	gs_uarch min_uarch;     /* GS_UARCH_NONE: any; else that NVIDIA architecture or newer */
	const char *bf16_why, *fp8_why, *uarch_why;
	bool fp16_fallback;
} gs_needs;
gs_needs gs_settings_needs(const gs_settings *s);
/* Why the row cannot run on g, in words ("needs bf16 (--precision
 * amp-bf16), which the NVIDIA T4 lacks"), into buf (n bytes); "" when it
 * can. Returns buf. */
char *gs_needs_why(gs_needs need, const gs_gpu *g, char *buf, size_t n);
/* Whether the row computes in fp16 on g though it names no dtype: its
 * compute dtype is auto and g has no bf16. */
bool gs_needs_fp16_on(gs_needs need, const gs_gpu *g);
/* The one verdict rule: a peak of `device` bytes per GPU with those needs
 * on GPU g; *headroom (may be NULL) gets 1 - device/usable. */
gs_verdict gs_verdict_of(uint64_t device, gs_needs need, const gs_gpu *g, double *headroom);
const char *gs_verdict_name(gs_verdict v); /* "fits", "tight", "does not fit", "not runnable" */
/* Serving capacity (pure): how many sequences of ctx tokens a serving
 * engine's KV-cache pool holds on g beside the inference estimate x, the
 * pool being mem_frac of the GPU's total memory (never past its usable)
 * less x's peak without its cache, cut in blocks of `block` tokens
 * (constants.h, GS_SERVE_*). *pool (may be NULL) gets the pool's bytes
 * (negative where the weights and activations alone pass the fraction:
 * 0 sequences). -1 where x has no cache figure (training, the seeds'
 * formulas) or the GPU cannot run the row. */
int64_t gs_serving_seqs(const gs_estimate *x, gs_needs need, const gs_gpu *g, double mem_frac, int64_t ctx,
                        int64_t block, double *pool);

/* How the best class is ranked. Every rule puts what fits before what does
 * not. The memory rules (those a report's spec may name) put a comfortable
 * fit before a tight one (under GS_TIGHT_HEADROOM), then break ties by the
 * other key; time and cost (plan --rank) rank by the offer's key. Last,
 * class order. */
typedef enum gs_plan_rank {
	GS_RANK_FEWEST_GPUS = 0,  /* fewer GPUs, then least total usable memory (the default) */
	GS_RANK_LEAST_MEMORY,     /* least total usable memory (count x usable), then fewer GPUs */
	GS_RANK_TIME,             /* the fastest at its count (gs_rank_key); plan only */
	GS_RANK_COST,             /* the cheapest a token (gs_rank_key; unpriced last); plan only */
	GS_RANK_MAX
} gs_plan_rank;
/* The ranks of memory alone, [0, GS_RANK_MEMORY_MAX): what a report's spec
 * and the workbook's live Summary know. */
#define GS_RANK_MEMORY_MAX GS_RANK_TIME

/* "fewest-gpus", "least-memory", "time", "cost" */
const char *gs_plan_rank_name(gs_plan_rank r);

/* The memory rules' comparison: whether a fit of count GPUs of usable bytes
 * each (tight: under GS_TIGHT_HEADROOM) ranks strictly before another
 * under r (a memory rank). Equal ranks: neither. */
bool gs_rank_before(gs_plan_rank r, bool tight_a, int64_t count_a, uint64_t usable_a, bool tight_b,
                    int64_t count_b, uint64_t usable_b);
#define GS_RANK_DEFAULT GS_RANK_FEWEST_GPUS
/* The rank named s; GS_RANK_MAX when s names none. */
gs_plan_rank gs_plan_rank_parse(const char *s);
/* One sentence for readers: how the rule ranks. Static. */
const char *gs_plan_rank_text(gs_plan_rank r);

/* One candidate answer to "which GPU class, how many": a class (its place
 * among the classes, the last tie-break, and its usable bytes per GPU), a
 * count, whether it is tight, and its key (lower first; HUGE_VAL: none):
 * for GS_RANK_TIME and GS_RANK_COST what ranks it, under the memory rules
 * the tie-break before the order (0 for every offer: none; plan's answers
 * at one count give their time there). found false: nothing fits (it
 * ranks after every fit). */
typedef struct gs_offer {
	bool found;
	size_t order;
	uint64_t usable;
	int64_t count;
	bool tight;
	double key;
} gs_offer;

/* Whether a ranks strictly before b under r: a fit before none; then the
 * memory rule (gs_rank_before) and the key, or the key alone; then the
 * lower order. Neither when they agree on all of these. */
bool gs_offer_before(gs_plan_rank r, const gs_offer *a, const gs_offer *b);

/* The one "smallest GPU that fits" rule, for every place that names one
 * (the report's index and the workbook's Summary through the row
 * evaluation, plan's ranking of classes, the plan view's best class):
 * offer cand to *best; it takes the place (true) when it ranks strictly
 * before (gs_offer_before), so of equal offers the first offered stays.
 * A best with found false is taken by any fit. */
bool gs_best_offer(gs_plan_rank r, gs_offer *best, const gs_offer *cand);

/* Sort n offers by gs_offer_before, stably (equal offers keep their
 * order): the first is what gs_best_offer keeps of them offered in order. */
void gs_offers_rank(gs_plan_rank r, gs_offer *o, size_t n);

/* GS_RANK_TIME's and GS_RANK_COST's key of a class timed t at count GPUs
 * (price: USD a GPU-hour, 0 none): time, training 1 / the tokens per
 * second of all GPUs, inference a decode step's seconds; cost, training
 * the price of a token at count GPUs, inference the price per million
 * tokens decoded. HUGE_VAL where t is NULL (no time) or, for cost,
 * unpriced. 0 for the memory ranks. */
struct gs_time;
double gs_rank_key(gs_plan_rank r, const struct gs_time *t, bool infer, int64_t count, double price);

#endif
