/* gpusizer: safetensors header parsing. Pure: works on a caller's buffer,
 * no I/O; every size product and offset is overflow-checked. */
#ifndef GS_SAFETENSORS_H
#define GS_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define GS_ST_HEADER_MAX 100000000u /* bytes; same limit as the safetensors library */
#define GS_ST_MAX_DTYPES 24
#define GS_ST_MAX_MODULES 96

/* One line of a tally: elements and data bytes under a name. */
typedef struct gs_st_count {
	char name[80];
	uint64_t params;
	uint64_t bytes;
	uint64_t tensors;
} gs_st_count;

/*
 * What one or more headers hold. Zero-initialise, then gs_st_parse adds each
 * file. Modules are tensor names with numeric segments replaced by '*' and the
 * last segment ("weight", "bias"...) dropped, e.g. "model.layers.*.mlp.up_proj";
 * past GS_ST_MAX_MODULES names the rest go under "(other)".
 */
typedef struct gs_st_tally {
	uint64_t total;    /* elements over all tensors (scalars count 1) */
	uint64_t bytes;    /* data bytes (sum of data_offsets ranges) */
	uint64_t tensors;
	uint64_t files;
	int n_dtypes;
	gs_st_count dtype[GS_ST_MAX_DTYPES];
	int n_modules;
	gs_st_count module[GS_ST_MAX_MODULES];
	/* Stored tensors that are not parameters: causal-mask buffers
	 * (*.attn.bias / *.attn.masked_bias of rank 4, *.masked_bias),
	 * position_ids / token_type_ids (integer dtypes). */
	uint64_t buffers;
	uint64_t buffer_tensors;
	char buffer_example[80];
	/* Quantised storage seen in names/dtypes: packed integer weights
	 * (qweight/qzeros, I32/U8 "weight" with absmax/scales), FP8. */
	uint64_t quant_packed_tensors;
	char quant_hint[96]; /* e.g. "GPTQ/AWQ packed int32 qweight" ("" none) */
} gs_st_tally;

/* Header length N from the first 8 bytes (little-endian u64). GS_EINPUT when
 * len < 8 or N is 0 / over GS_ST_HEADER_MAX; name is for messages. */
gs_err gs_st_header_len(const char *name, const unsigned char *buf, size_t len, uint64_t *hlen,
                        gs_error *e);

/*
 * Parse one file's header from buf (the file's first len bytes: 8-byte length
 * then the JSON) and add it to t. file_size is the whole file's size when
 * known (from Content-Range; 0 = unknown): the header length and every
 * tensor's data_offsets must fit in it. Checks: declared length vs received
 * bytes and file size, JSON object, dtype known, shape non-negative integers,
 * element count x dtype size == data_offsets span, products without overflow.
 * GS_EINPUT / GS_EOVERFLOW naming file and tensor. t is unchanged on error.
 */
gs_err gs_st_parse(const char *name, const unsigned char *buf, size_t len, uint64_t file_size,
                   gs_st_tally *t, gs_error *e);

/* Bits per element of a safetensors dtype name, 0 if unknown. */
unsigned gs_st_dtype_bits(const char *dtype);

#endif
