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

/* Unsloth's fused loss (unsloth_zoo fused_losses/cross_entropy_loss.py,
 * 2026.8.13, _get_chunk_multiplier and get_chunk_size): the chunks are cut
 * so that one chunk's fp32 logits stay under target_gb, which is half the
 * GPU's free memory capped at 4 GiB (the cap is what a sizing can know: a
 * GPU with less than 8 GiB free gets smaller chunks), and their count is
 * rounded up to a multiple of 4 (one chunk when everything fits at once). */
#define GS_UNSLOTH_CE_TARGET_BYTES (4.0 * 1024 * 1024 * 1024)
#define GS_UNSLOTH_CE_CHUNK_MULTIPLE 4.0
/* Unsloth's offloaded checkpointing (unsloth_zoo gradient_checkpointing.py,
 * UnslothCheckpointFunction): GPU_BUFFERS and, for double buffering,
 * GPU_BUFFERS_B, each resized to the largest checkpointed input; the second
 * is kept while more than DOUBLE_BUFFER_HEADROOM (512 MiB) is free, which a
 * row that fits has: two buffers are counted. */
#define GS_UNSLOTH_GC_BUFFERS 2.0

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

/* ==== Time model (src/timing.h; issue 17) ==================================
 * Calibrated on the grade A/B records of ../shared/measurements/speed.jsonl
 * by tests/speed/fit.py (never on one record); the error of each task is
 * published by `make speed-accuracy` (tests/speed/baseline.json). */
/* Training and prefill GEMMs: eff = EFF_MAX * x / (x + X_HALF_RIDGE * ridge)
 * * h / (h + H_HALF) (timing.h). Fitted together with ELEM_BYTES and
 * ATTN_EFF on the 60 bf16 train_full/train_lora records (llm-foundry 42,
 * torchtune 6, NeMo-Automodel 4, Answer.AI LoRA 4, TinyLlama 2,
 * Megatron-LM 1, torchao float8 training's bf16 row 1; the mean of
 * each source's mean |log error| 0.26). X_HALF_RIDGE is not fitted: 1 makes
 * the curve the sum of a GEMM's compute and its weight read. H_HALF fitted
 * to ~0 (no width effect in the records): kept as 0. ATTN_EFF sits at its
 * prior's floor (0.3, tests/speed/fit.py BOUNDS): the long-context records
 * (llm-foundry s8192-s65536) want attention slower still; ELEM_BYTES (the
 * non-GEMM kernels, bytes per hidden element, layer and token) fitted to
 * near 0: those kernels are not separable from the GEMMs in these records.
 * EFF_MAX is the all-records figure: Megatron-Core's, and a GPU's whose
 * architecture no record covers. */
#define GS_TIME_TRAIN_EFF_MAX 0.51
/* The pytorch training stack per GPU architecture (a GPU file's
 * "architecture"): its kernels (FlashAttention 2, Triton, Ampere-style
 * tensor-core GEMMs) reach a different share of each datasheet peak:
 * FlashAttention-2 reaches 50-73% of an A100's (Dao 2023, arXiv 2307.08691)
 * and 35% of an H100's (Shah et al. 2024, FlashAttention-3, arXiv
 * 2407.08608), whose full rate needs wgmma/TMA kernels. Each fitted alone on
 * that architecture's bf16 pytorch training records (train_full, LoRA and
 * QLoRA), the all-records figures held: AMPERE 37 (llm-foundry A100 20,
 * Answer.AI 3090/A100 9, torchtune A100 6, TinyLlama 2), ADA 6 (Answer.AI
 * 4090 5, torchtune 1), HOPPER 28 (llm-foundry 22, NeMo-Automodel 4, torchao
 * float8 training's bf16 row 1, Answer.AI 1). One figure for all three left
 * the A100 and RTX records up to 43% slow and the small-model H100 ones up to
 * 43% fast. */
#define GS_TIME_TRAIN_EFF_MAX_AMPERE 0.67
#define GS_TIME_TRAIN_EFF_MAX_ADA 0.72
#define GS_TIME_TRAIN_EFF_MAX_HOPPER 0.42
#define GS_TIME_X_HALF_RIDGE 1.0
#define GS_TIME_H_HALF 0.0
#define GS_TIME_ELEM_BYTES 0.24
#define GS_TIME_ATTN_EFF 0.31
/* fp8 GEMMs (fp8-mixed on a GPU with fp8_tflops, an fp8 base under LoRA)
 * reach this fraction of the bf16 GEMMs' efficiency, against the doubled
 * fp8 peak, per training stack (gs_train_runtime, --train-runtime; the
 * stack of a record: tests/speed/cases.py train_runtime), each fitted on its
 * own records by tests/speed/fit.py:
 * - pytorch: PyTorch loops whose Linear layers run in fp8 with casts and
 *   scaling around each GEMM in eager code: 5 records (llm-foundry amp_fp8
 *   with Transformer Engine's te.Linear 3, torchtitan + torchao float8 2),
 *   all H100, against TRAIN_EFF_MAX_HOPPER;
 * - megatron: Megatron-Core with Transformer Engine's fused fp8 layers
 *   (norm fused into the linear, fp8 kept between them): 18 records
 *   (NeMo 24.07 15, incl. its 3 fp8 LoRA rows; Megatron-Bridge 3).
 * Fitted jointly (one figure, 0.57) they left every Megatron-Core record
 * 8-44% slow and the PyTorch ones up to 23% fast. */
#define GS_TIME_FP8_EFF_SCALE 0.66
#define GS_TIME_FP8_EFF_SCALE_MEGATRON 0.86
/* QLoRA: the step time factor of dequantizing the nf4 base, fitted on the
 * 12 train_qlora records (Answer.AI fsdp_qlora 11, torchtune 1) with the
 * prior >= 1: they want < 1 (QLoRA runs as fast as LoRA there, the nf4
 * all-gathers being 4x smaller), so it sits at 1. */
#define GS_TIME_DEQUANT_TRAIN 1.0
/* Quantized bases in inference: prefill not fitted (the AutoAWQ prefill
 * records mix cold-start overhead; 1); decode: the memory time factor of
 * int4/int8 kernels, fitted on the 16 quantized decode records of gpt-fast
 * (9: int4, int8) and torchao (7: int4wo, int8wo, int8dq). */
#define GS_TIME_DEQUANT_PREFILL 1.0
#define GS_TIME_DEQUANT_DECODE 1.18
/* Decode per runtime: step = bytes / (bandwidth * BW_EFF) + layers * LAYER_S;
 * for HF (transformers generate(), host-bound) the larger of the two, not
 * their sum: Python launches a layer's kernels while the GPU runs the last.
 * HF: LAYER_S, the host's time a decoder layer, on the 6 dense records of
 * Qwen3's speed page (transformers 4.51.3, flash-attention 2, batch 1, an H20:
 * 0.6B-32B all run at 0.6 ms a layer, mean |log error| 1%); one host, so a
 * faster CPU runs faster. Those records are all host-bound, so HF's BW_EFF
 * (and PREFILL_EFF) cannot be fitted there: AutoAWQ's are taken.
 * AUTOAWQ: the 16 AutoAWQ decode records (its fused modules, fuse_layers=True,
 * in its own loop; int4 GEMM/GEMV with DEQUANT_DECODE), RTX 4090.
 * COMPILED: the 15 bf16/fp8 decode records of gpt-fast (10) and torchao
 * generate (5) (A100, H100; TP 1-8). LLAMACPP: the 16 llama-bench tg512
 * records (GGUF F16 and Q4_K_M at their file size; 3090, 4090, L40S, A100,
 * H100 PCIe). SERVING: the 16 TensorRT-LLM v0.5/0.6.1 static-batch
 * throughput records (generate_end_to_end; H100, L40S, A100), BW_EFF at its
 * prior's ceiling 1; refitted with the 21 SGLang records of Qwen3's speed
 * page (H20, batch 1) beside them, LAYER_S moves under 1% (1.18e-4), so it
 * stands. */
#define GS_TIME_DECODE_BW_EFF_HF 0.96
#define GS_TIME_DECODE_BW_EFF_COMPILED 0.85
#define GS_TIME_DECODE_BW_EFF_LLAMACPP 0.92
#define GS_TIME_DECODE_BW_EFF_SERVING 1.0
#define GS_TIME_DECODE_BW_EFF_AUTOAWQ 0.96
#define GS_TIME_DECODE_LAYER_S_HF 6.1e-4
#define GS_TIME_DECODE_LAYER_S_COMPILED 7.9e-5
#define GS_TIME_DECODE_LAYER_S_LLAMACPP 1.35e-4
#define GS_TIME_DECODE_LAYER_S_SERVING 1.17e-4
#define GS_TIME_DECODE_LAYER_S_AUTOAWQ 5.5e-5
/* Prefill per runtime, a factor on the GEMM efficiency: AUTOAWQ on its 16
 * prefill records (HF takes it: no plain-transformers prefill records),
 * LLAMACPP on the 12 llama-bench pp512 records, SERVING on the 10
 * TensorRT-LLM time-to-first-token records (at the ceiling 1). COMPILED: no
 * prefill records; not calibrated (1). */
#define GS_TIME_PREFILL_EFF_HF 0.76
#define GS_TIME_PREFILL_EFF_COMPILED 1.0
#define GS_TIME_PREFILL_EFF_LLAMACPP 0.97
#define GS_TIME_PREFILL_EFF_SERVING 1.0
#define GS_TIME_PREFILL_EFF_AUTOAWQ 0.76
/* Links (not efficiencies; not calibrated). PCIe per lane, one direction,
 * Gen3 8 GT/s with 128b/130b coding = 0.985 GB/s, doubling per generation
 * (PCI-SIG). Between nodes: assumed one 400 Gb/s NIC per GPU (DGX H100:
 * 8 x 400 Gb/s ConnectX-7), 50 GB/s; the speed records do not say theirs. */
#define GS_TIME_PCIE_GBS_PER_LANE_GEN3 0.985
#define GS_TIME_NET_GBS 50.0

/* ==== Cost and serving capacity (issue 17 items 2 and 3) ================
 * A price is the rent of one GPU for an hour, USD: a GPU file's optional
 * price_usd_per_hour (with its source and day) or --price. Past this bound
 * it is a typo (cents as dollars, a month as an hour), refused, not
 * multiplied: the dearest on-demand GPU hour listed in 2026 is under 20. */
#define GS_PRICE_MAX_USD_HOUR 1000
/* Serving capacity, as vLLM sizes its KV cache (vllm/worker/worker.py,
 * Worker.determine_num_available_blocks, v0.6; v1's gpu_worker.py
 * determine_available_memory does the same): the pool is
 * gpu_memory_utilization x the GPU's total memory, less the peak of a
 * profiling forward without the cache (weights, activations, CUDA
 * context); it is cut in blocks of block_size tokens (CacheConfig default
 * 16), and a sequence holds whole blocks. The defaults: */
#define GS_SERVE_MEM_FRACTION 0.9
#define GS_SERVE_BLOCK_TOKENS 16

#endif
