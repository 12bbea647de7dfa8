/* gpusizer: every constant the memory engine rests on, in one place, each
 * with where it comes from. Change one only with the measurement that
 * justifies it (docs/engine.md, tests/accuracy/). */
#ifndef GS_CONSTANTS_H
#define GS_CONSTANTS_H

/* NF4 (bitsandbytes): 4-bit codes plus one fp32 absmax per 64-weight block
 * (bitsandbytes Linear4bit default blocksize 64): 0.5 + 4/64 bytes/param. */
#define GS_NF4_BYTES (0.5 + 4.0 / 64.0)
/* NF4 with double quantisation: absmax as 8-bit codes, one fp32 constant
 * per 256 blocks (QLoRA paper section 3): 0.5 + 1/64 + 4/(64*256). */
#define GS_NF4_DQ_BYTES (0.5 + 1.0 / 64.0 + 4.0 / (64.0 * 256.0))
/* GPTQ/AWQ: per group of 128 input rows, per output column, one fp16
 * scale and one packed 4-bit zero point (AutoGPTQ/AutoAWQ defaults). */
#define GS_GPTQ_GROUP 128.0
#define GS_GPTQ_GROUP_OVERHEAD 2.5
/* bitsandbytes 8-bit optimizers: blockwise quantised states, one fp32
 * absmax per 2048-element block (bnb.optim Optimizer2State blocksize). */
#define GS_BNB_BLOCK 2048.0
/* DeepSpeed ZeRO-2 reduce bucket: reduce_bucket_size default 5e8 elements. */
#define GS_ZERO_BUCKET_ELEMS 5e8

/* Caching allocator: reserved = allocated * (1 + FRAC) + FIXED. PyTorch
 * rounds large blocks up to 2 MiB and keeps freed blocks cached; reserved
 * is "a few percent to 15%" above allocated (MEMORY-MODEL.md section 1).
 * Not fitted: the public records never give allocated and reserved of the
 * same run, so FRAC and FIXED cannot be separated from the allocated
 * model. The records compared on reserved (torchtune's LoRA tutorial,
 * -3% to -6%) and on nvidia-smi (HF docs BERT, -7% to +7%) are consistent
 * with these values; verify's per-run allocated/reserved pairs will fix
 * them. */
#define GS_RESERVED_FRAC 0.05
#define GS_RESERVED_FIXED (128.0 * 1024 * 1024)

/* CUDA context: the default of --cuda-context (MiB) is in settings.c:
 * 1343 MiB, the context alone measured by nvidia-smi in the Hugging Face
 * docs' "efficient training on a single GPU" runs (V100, see
 * ../shared/measurements/calibration.jsonl hf-docs-bertlarge-*). Newer
 * drivers with lazy module loading use less; verify measures it. */

/* Plausibility bound on a prediction (not a measurement): no GPU has ever
 * held 1 PiB (2^50 bytes); the largest committed report row is under 20 TB.
 * An estimate per GPU (device, allocated or host memory) above this is
 * refused as implausible (GS_EOVERFLOW, exit 3, naming the model source)
 * rather than printed: it means a mistyped shape or a runaway setting. */
#define GS_ESTIMATE_MAX_BYTES (1125899906842624.0) /* 2^50 */

#endif
