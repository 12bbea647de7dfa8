/* gpusizer: expands a spec into sizing rows for one model (models x
 * methods x precisions x optimizers x LoRA ranks/targets x checkpointing x
 * attention x batch x seq x GPU counts), skipping combinations the settings
 * reject and contexts beyond a model's max positions (counted, not
 * reported), and estimates each row with the detailed
 * engine and every seed formula. */
#ifndef GS_SWEEP_H
#define GS_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "report.h"
#include "spec.h"

/* Called once per row; the row is only valid during the call (the callee
 * may fill its evaluation, gs_row_eval). A non-OK return stops the sweep
 * with that code. */
typedef gs_err (*gs_sweep_fn)(void *ctx, gs_row *r, gs_error *e);

/* The settings every row starts from: defaults plus the spec's "settings". */
gs_err gs_sweep_base(const gs_spec *sp, gs_settings *base, gs_error *e);

/* Rows per model and combinations skipped per model (settings only: the
 * same for every model). */
size_t gs_sweep_count(const gs_spec *sp, const gs_settings *base, size_t *skipped);

/* Rows of model m (contexts beyond its max positions skipped, as
 * gs_sweep_model skips them) and, in *skipped, the combinations skipped;
 * counted without estimating. */
size_t gs_sweep_count_model(const gs_spec *sp, const gs_settings *base, const gs_model *m,
                            size_t *skipped);

/* Combinations of the spec's axes for one model: rows plus skipped ones,
 * from the lengths of the lists alone (nothing enumerated, so a huge spec
 * is counted at once); UINT64_MAX when the product does not fit. */
uint64_t gs_sweep_combinations(const gs_spec *sp, const gs_settings *base);

/* The default limit on a report's rows (models x combinations):
 * report --max-rows raises it. */
#define GS_SWEEP_MAX_ROWS_DEFAULT 1000000

/* Sweep one model: calls fn for each row in a stable order. *index is the
 * global row counter (incremented per row). *skipped counts skipped
 * combinations. A row whose estimate fails is passed with r->err set. */
gs_err gs_sweep_model(const gs_spec *sp, const gs_settings *base, const gs_model *m,
                      size_t *index, size_t *skipped, gs_sweep_fn fn, void *ctx, gs_error *e);

/* One row of model m at settings s (the formula forced to detailed): the
 * label, the key and the id (the model's short name and the key's hash),
 * the detailed estimate and every seed formula's, or r->err and r->err_msg
 * when the estimate fails. index is left 0. */
void gs_sweep_row(gs_row *r, const gs_model *m, const gs_settings *s);

/* Short stable name for row ids: "llama-3-1-8b" from a slug. */
void gs_sweep_short_name(const char *slug, char *buf, size_t n);

#endif
