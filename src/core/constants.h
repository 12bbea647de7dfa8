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

/* ==== Time model (src/core/timing.h; issues 17 and 32) ====================
 * Two kinds of figures. Bounds from the hardware and the libraries' own
 * models (a read stream's share of the bandwidth, NCCL's latencies, link
 * speeds, the bytes a kernel moves): from their sources, never fitted.
 * Efficiencies (a share of a bound, at most 1) and host times: calibrated by
 * tests/speed/fit.py on the grade A/B records of
 * ../shared/measurements/speed.jsonl and speed2.jsonl, one group of figures
 * at a time on the records it governs, each source weighing the same (the
 * mean over sources of their mean |log error|), never on one record; the
 * records of each are named here and in docs/time.md, and `make
 * speed-accuracy` publishes the error (tests/speed/baseline.json). */
/* Training and prefill GEMMs: eff = EFF_MAX * x / (x + X_HALF_RIDGE * ridge)
 * (timing.h), x the GEMMs' arithmetic intensity (timing.c gemm_intensity:
 * 1 / (1/M + 1/K + 1/N) FLOPs a byte, FLOP-weighted over the model's
 * linears, so that narrow models' and narrow experts' GEMMs run further
 * from the peak). Fitted together with ATTN_EFF (ELEM_BYTES held at its
 * figure from the code) on the 67 bf16 train_full/train_lora records
 * (llm-foundry 42, NeMo-Automodel 10, torchtune 6, Answer.AI LoRA 4,
 * TinyLlama 2, Megatron-LM 1, Megatron-Bridge 1, torchao float8 training's
 * bf16 row 1), with tensor-parallel all-reduces, expert-parallel
 * all-to-alls and pipeline bubbles in the model (issue 32). X_HALF_RIDGE is
 * not fitted: 1 makes the curve the sum of each GEMM's compute and its
 * operands' traffic. With x the tokens alone (the weight read only) a width
 * term h / (h + H_HALF) fitted to ~0 and ATTN_EFF sat at its prior's floor
 * (0.3), MPT-125M 1.55x fast; with the intensity ATTN_EFF comes off the
 * floor (0.484) and MPT-125M is 1.3x fast. ELEM_BYTES, the
 * non-GEMM kernels' bytes per hidden element, layer and token, one forward
 * (a backward counts two), from llm-foundry's MPTBlock, the records'
 * majority stack: two low-precision LayerNorms (read and write: 4 each),
 * two residual adds (read two, write one: 6 each), GELU over the 4h MLP
 * (16): 36, not fitted. Fitted, it went to ~0.15, folded into EFF_MAX, and
 * MPT-125M came out 1.7x fast; held at 36, the architecture figures below
 * rose 3-6% and the training records' plain p90 fell from 32.6% to 29.7%.
 * EFF_MAX is the all-records figure: Megatron-Core's, inference's, and a
 * GPU's whose architecture no record covers. */
#define GS_TIME_TRAIN_EFF_MAX 0.615
/* The pytorch training stack per GPU architecture (a GPU file's
 * "architecture"): its kernels (FlashAttention 2, Triton, Ampere-style
 * tensor-core GEMMs) reach a different share of each datasheet peak:
 * FlashAttention-2 reaches 50-73% of an A100's (Dao 2023, arXiv 2307.08691)
 * and 35% of an H100's (Shah et al. 2024, FlashAttention-3, arXiv
 * 2407.08608), whose full rate needs wgmma/TMA kernels. Each fitted alone on
 * that architecture's bf16 pytorch training records (train_full, LoRA and
 * QLoRA): AMPERE 37 (llm-foundry A100 20, Answer.AI 3090/A100 9, torchtune
 * A100 6, TinyLlama 2), ADA 6 (Answer.AI 4090 5, torchtune 1), HOPPER 34
 * (llm-foundry 22, NeMo-Automodel 10, torchao float8 training's bf16 row 1,
 * Answer.AI 1). One figure for all three left the A100 and RTX records up
 * to 43% slow and the small-model H100 ones up to 43% fast. HOPPER is
 * fitted with each record's attention kernel (ATTN_FA2_HOPPER below): 0.430
 * when every kernel ran at the native rate, which left llm-foundry's
 * 2k-token H100 rows 17-32% slow while its 32-64k-token rows (attention
 * bound) fitted; 0.520 with FA2-class kernels at their measured share.
 * With the loss's traffic over the logits in the model (timing.c
 * loss_elem_bytes), AMPERE refits from 0.721 to 0.736 and HOPPER from
 * 0.520 to 0.525. */
#define GS_TIME_TRAIN_EFF_MAX_AMPERE 0.736
#define GS_TIME_TRAIN_EFF_MAX_ADA 0.745
#define GS_TIME_TRAIN_EFF_MAX_HOPPER 0.525
#define GS_TIME_X_HALF_RIDGE 1.0
#define GS_TIME_ELEM_BYTES 36.0
#define GS_TIME_ATTN_EFF 0.484
/* A FlashAttention-2-class kernel's rate on Hopper against the
 * architecture's own (cuDNN's fused attention, FlashAttention-3), which use
 * wgmma and TMA where FA2 runs Ampere's mma.sync: tritonbench on an H100,
 * bf16, batch 1, 24 heads of 128, 4608 tokens (pytorch/pytorch#142132): SDPA's
 * flash backend 329 TFLOP/s, cuDNN 631, FlashAttention-3 632; 329/631 =
 * 0.52. FlashAttention-3's paper (Shah et al. 2024, arXiv 2407.08608) gives
 * 1.5-2.0x forward and 1.5-1.75x backward over FA2. From the benchmark, not
 * fitted. */
#define GS_TIME_ATTN_FA2_HOPPER 0.52
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
 * 8-44% slow and the PyTorch ones up to 23% fast. MEGATRON refits from
 * 0.847 to 0.866 with the loss's traffic in the model. */
#define GS_TIME_FP8_EFF_SCALE 0.631
#define GS_TIME_FP8_EFF_SCALE_MEGATRON 0.866
/* QLoRA: the step time factor of dequantizing the nf4 base, fitted on the
 * 12 train_qlora records (Answer.AI fsdp_qlora 11, torchtune 1) with the
 * prior >= 1: they want < 1 (QLoRA runs as fast as LoRA there, the nf4
 * all-gathers being 4x smaller), so it sits at 1. */
#define GS_TIME_DEQUANT_TRAIN 1.0
/* Eager attention (transformers' eager_attention_forward, the remote-code
 * families' own, --attn eager): bytes moved per score element and head, one
 * forward: QK^T written (2), the mask added (read 2, write 2), softmax in
 * fp32 (read 2, write 4, read 4 in the cast back, write 2), read by the PV
 * matmul (2). From the code, not fitted. */
#define GS_TIME_EAGER_ATTN_BYTES 20.0
/* Memory-bound kernels: a read stream's share of the datasheet bandwidth,
 * per GPU architecture, from te42kyfo/gpu-benches gpu-stream (its "read"
 * kernel at full occupancy, README and its gpu-stream text files): V100 866 of 900
 * GB/s, A100-40GB 1490 of 1555, L40 844 of 864, H100 PCIe 1942 of 2000.
 * Architectures it does not measure take the lowest of these. Not fitted:
 * the bound each runtime's and kernel's efficiency is a share of. */
#define GS_TIME_MEM_READ_VOLTA 0.96
#define GS_TIME_MEM_READ_AMPERE 0.96
#define GS_TIME_MEM_READ_ADA 0.98
#define GS_TIME_MEM_READ_HOPPER 0.97
#define GS_TIME_MEM_READ_OTHER 0.96
/* Collectives: NCCL's own latency model (src/graph/tuning.cc, v2.21.5):
 * ring all-reduce, LL protocol: a base of 6.6 us plus, per ring step
 * (2 (n - 1) of them), 0.6 us over NVLink, 1.0 us over PCIe, 2.7 us over
 * the network. Not fitted. */
#define GS_TIME_AR_BASE_US 6.6
#define GS_TIME_AR_HOP_US_NVLINK 0.6
#define GS_TIME_AR_HOP_US_PCIE 1.0
#define GS_TIME_AR_HOP_US_NET 2.7
/* NCCL's other two ring protocols and each protocol's bandwidth (the same
 * tuning.cc, v2.21.5): LL128 (enabled only within NVLink nodes of Volta,
 * Ampere or Hopper GPUs) and Simple, their base latency and a step's per
 * link kind (NVLink, PCIe, network); the share of the bus bandwidth each
 * moves: LL 0.5, capped (llMaxBws: one node of Volta 39.0, Ampere 87.7,
 * Hopper 141.0 GB/s; across nodes, Intel hosts, 39.0 on two, 20.4 on more),
 * LL128 0.92, Simple all. NCCL runs the protocol its model gives the least
 * time (ncclTopoGetAlgoTime); so does gpusizer. Not fitted. */
#define GS_TIME_AR_LL128_BASE_US 14.0
#define GS_TIME_AR_LL128_HOP_US_NVLINK 1.9
#define GS_TIME_AR_LL128_HOP_US_PCIE 2.5
#define GS_TIME_AR_LL128_HOP_US_NET 4.0
#define GS_TIME_AR_SIMPLE_BASE_US 8.4
#define GS_TIME_AR_SIMPLE_HOP_US_NVLINK 3.4
#define GS_TIME_AR_SIMPLE_HOP_US_PCIE 5.7
#define GS_TIME_AR_SIMPLE_HOP_US_NET 14.0
#define GS_TIME_AR_LL_BW_SHARE 0.5
#define GS_TIME_AR_LL128_BW_SHARE 0.92
#define GS_TIME_AR_LL_MAX_GBS_VOLTA 39.0
#define GS_TIME_AR_LL_MAX_GBS_AMPERE 87.7
#define GS_TIME_AR_LL_MAX_GBS_HOPPER 141.0
#define GS_TIME_AR_LL_MAX_GBS_2NODES 39.0
#define GS_TIME_AR_LL_MAX_GBS_NODES 20.4
/* Decode per engine class (gs_rt_class): BW_EFF, a memory-bound kernel's
 * share of the read stream (MEM_READ_*); LAYER_S, the host's (or the
 * launches' and small kernels') seconds a layer a pass on a server host:
 * added to the GPU's time, or for the eager classes (hf, custom) the larger
 * of the two. Each pair fitted on its class's 16-bit decode and generation
 * records (the kernels' own figures after):
 * - HF (transformers generate()): 22 records (Qwen3's speed page 6: H20,
 *   transformers 4.51.3, every dense size at ~0.6 ms a layer; bitsandbytes
 *   README bf16/fp16 rows 12: T4, RTX 4090, H100; transformers-bloom-
 *   inference's accelerate pipeline 4: BLOOM-176B on A100s);
 * - COMPILED: 16 (gpt-fast 10, gpt-fast Mixtral 3, torchao generate 3);
 * - LLAMACPP: 16 llama-bench tg512 records (GGUF F16 and Q4_K_M at their
 *   file size);
 * - SERVING (vLLM, SGLang, TensorRT-LLM, TurboMind): 135 (LMDeploy TurboMind
 *   A100 98, Qwen3's SGLang rows 14, TensorRT-LLM performance.md 3,
 *   TensorRT Model Optimizer 6, vLLM PR #2192 6 and #23197 8);
 * - CUSTOM (TGI 1.0.3, DeepSpeed-Inference): 42 (TGI on SageMaker 36,
 *   BLOOM-176B DeepSpeed-Inference fp16 6); its low BW_EFF takes in TGI's
 *   prefills and its A10G peak (the A10's, see tests/speed/cases.py);
 * - FUSED (AutoAWQ's fused modules under generate()) and EXLLAMA have no
 *   16-bit records: BW_EFF held at 1 (their kernels' figures carry it),
 *   LAYER_S fitted on their quantized decode records with the kernels at 1:
 *   AutoAWQ 22 (AutoAWQ README 13, AutoAWQ PR #320 8, LMDeploy's TinyChat
 *   row 1), ExLlama 34 (ExLlama v1 README 14, ExLlamaV2 README 20). */
#define GS_TIME_DECODE_BW_EFF_HF 0.748
#define GS_TIME_DECODE_BW_EFF_COMPILED 0.851
#define GS_TIME_DECODE_BW_EFF_LLAMACPP 0.887
#define GS_TIME_DECODE_BW_EFF_SERVING 0.957
#define GS_TIME_DECODE_BW_EFF_FUSED 1.0
#define GS_TIME_DECODE_BW_EFF_EXLLAMA 1.0
#define GS_TIME_DECODE_BW_EFF_CUSTOM 0.564
#define GS_TIME_DECODE_LAYER_S_HF 6.13e-04
#define GS_TIME_DECODE_LAYER_S_COMPILED 4.59e-05
#define GS_TIME_DECODE_LAYER_S_LLAMACPP 1.39e-04
#define GS_TIME_DECODE_LAYER_S_SERVING 8.80e-05
#define GS_TIME_DECODE_LAYER_S_FUSED 2.70e-04
#define GS_TIME_DECODE_LAYER_S_EXLLAMA 1.15e-04
#define GS_TIME_DECODE_LAYER_S_CUSTOM 6.23e-04
/* A desktop's host (a consumer or workstation GPU's segment): its share of
 * a server's host time. Desktop CPUs run single-threaded Python and kernel
 * launches faster than server CPUs; the same software on an RTX 4090 and an
 * H100 box (bitsandbytes README: transformers 4.46.3) or an A100 box
 * (AutoAWQ PR #320 against the AutoAWQ README's 4090) runs its host-bound
 * steps 2-3x faster. Fitted on the 65 host-bound (batch 1) records of
 * desktop cards: AutoAWQ README 13, ExLlama v1 14, ExLlamaV2 20, LMDeploy
 * TinyChat 1, bitsandbytes README 17. */
#define GS_TIME_HOST_DESKTOP 0.351
/* Prefill per engine class, a factor on the GEMM efficiency (eff_max x it
 * never passes the peak: timing.c clamps at 1): SERVING on the 10
 * time-to-first-token records (TensorRT-LLM performance.md 4, LMDeploy 6);
 * LLAMACPP on the 12 llama-bench pp512 records; EXLLAMA on the 7 ExLlama v1
 * prompt records. Both runtimes' GEMMs accumulate in FP16, at a GeForce
 * card's FP16-accumulate rate, twice the figure its GPU file carries
 * (gs_gpu_fp16_acc16_tflops; timing.c rtc_acc16): without it EXLLAMA sat
 * at its bound (1.75, the peak) and LLAMACPP's GeForce prompts ran up to
 * 56% faster than the model allowed. HF, COMPILED,
 * FUSED and CUSTOM: no 16-bit prefill records; not calibrated (1: the
 * PyTorch GEMM efficiency EFF_MAX). */
#define GS_TIME_PREFILL_EFF_HF 1.0
#define GS_TIME_PREFILL_EFF_COMPILED 1.0
#define GS_TIME_PREFILL_EFF_LLAMACPP 0.807
#define GS_TIME_PREFILL_EFF_SERVING 1.485
#define GS_TIME_PREFILL_EFF_FUSED 1.0
#define GS_TIME_PREFILL_EFF_EXLLAMA 1.03
#define GS_TIME_PREFILL_EFF_CUSTOM 1.0
/* Kernels (gs_kernel): a kernel's share of its runtime's memory-bound rate
 * (at one token and above where they differ; 1 where the dense GEMM's),
 * each fitted on the records that name the kernel:
 * - FP8 (fp8 weights and activations): 16 (TensorRT Model Optimizer H200 6,
 *   TensorRT-LLM H200 blogs 10); also fp8-wo and fp4's;
 * - W8A8: no record (torchao int8dq's one runs its prefill on the CPU:
 *   tests/speed/cases.py host_int_mm): not fitted, its prior 1;
 * - INT8_WO (int8 weight-only inside the GEMM): 13 (gpt-fast 6, gpt-fast
 *   Mixtral 4, torchao 3);
 * - INT4_WO (int4 weight-only: tinygemm, TensorRT-LLM's AWQ kernel,
 *   TurboMind's) with INT4_WO_PREFILL, its GEMM rate at prompt sizes (the
 *   in-loop dequantization makes large GEMMs compute-bound): 14 (TensorRT
 *   Model Optimizer 6, gpt-fast 3, torchao 3, LMDeploy TurboMind 4090 2);
 *   also W4A8's;
 * - MARLIN: 8 (vLLM PR #23197's Marlin W4A16/W8A16 rows, H100);
 * - EXLLAMA, EXLLAMAV2 and their host time a call (HOST_S): 14 (ExLlama v1
 *   README) and 20 (ExLlamaV2 README); both at ~1;
 * - GPTQ_TRITON (AutoGPTQ's Triton QuantLinear): 24 (TGI 1.0.3 GPTQ rows;
 *   low: it takes in TGI's tensor-parallel overheads on A10Gs too);
 * - AWQ_GEMM at one token and above: 30 (AutoAWQ README 12, AutoAWQ PR #320
 *   8, vLLM PR #2566 10), both at ~1; AWQ_GEMM_PREFILL, its GEMM rate at
 *   more than one token below its dequantize threshold (timing.c path_of;
 *   at and above it the DEQUANT path runs): 21 (vLLM #2566 10, AutoAWQ
 *   README 9, AutoAWQ PR #320 2; the README's RTX 4090 rows want it 2-4x
 *   higher, docs/time.md);
 * - AWQ_GEMV: its 5 decode records are host-bound (AutoAWQ README 4,
 *   LMDeploy TinyChat 1): not identifiable, at 1; AWQ_GEMV_PREFILL: 4
 *   AutoAWQ README prompt rows (a GEMV kernel runs prompts row by row);
 * - BNB_NF4_B1 (bitsandbytes gemv_4bit) with its host time a call: 20
 *   batch-1 bitsandbytes README rows (nf4, nf4-dq; T4, RTX 4090, H100);
 * - DEQUANT (dequantize to 16 bits, then a dense GEMM: bitsandbytes 4-bit
 *   above one token, vLLM's pre-Marlin RTN kernels, DeepSpeed-Inference
 *   int8): 56 (bitsandbytes README 36, BLOOM-176B DeepSpeed int8 12, vLLM
 *   PR #23197 8), at its bound 1; DEQUANT_PREFILL, that path's GEMM rate at
 *   prompt sizes: 17 (vLLM #23197 8, the AWQ GEMM at and above its
 *   threshold: vLLM #2566 5, AutoAWQ PR #320 3, AutoAWQ README 1);
 * - BNB_INT8 (LLM.int8's int8 GEMM) with the host time a call of each
 *   variant (threshold 0 or 6; bitsandbytes >= 0.45, or <= 0.44's col32
 *   layout transforms): 17 + 17 + 8 + 15 (bitsandbytes README v0.45 and
 *   0.44.1 rows; the 0.44 decomposed path also BLOOM-176B LLM.int8 7). */
#define GS_TIME_K_FP8 0.703
#define GS_TIME_K_W8A8 1.0
#define GS_TIME_K_INT8_WO 0.898
#define GS_TIME_K_INT4_WO 0.688
#define GS_TIME_K_INT4_WO_PREFILL 0.566
#define GS_TIME_K_MARLIN 0.712
#define GS_TIME_K_EXLLAMA 1.0
#define GS_TIME_K_EXLLAMAV2 0.983
#define GS_TIME_K_GPTQ_TRITON 0.296
#define GS_TIME_K_AWQ_GEMM_B1 1.0
#define GS_TIME_K_AWQ_GEMM_BN 1.0
#define GS_TIME_K_AWQ_GEMM_PREFILL 0.206
#define GS_TIME_K_AWQ_GEMV 1.0
#define GS_TIME_K_AWQ_GEMV_PREFILL 0.128
#define GS_TIME_K_BNB_NF4_B1 0.548
#define GS_TIME_K_BNB_INT8 0.652
#define GS_TIME_K_DEQUANT 1.0
#define GS_TIME_K_DEQUANT_PREFILL 0.489
#define GS_TIME_K_HOST_S_EXLLAMA 1.04e-05
#define GS_TIME_K_HOST_S_EXLLAMAV2 0.0
#define GS_TIME_K_HOST_S_BNB_NF4 1.28e-04
#define GS_TIME_K_HOST_S_BNB_INT8 1.52e-04
#define GS_TIME_K_HOST_S_BNB_INT8_DECOMP 3.65e-04
#define GS_TIME_K_HOST_S_BNB_INT8_COL32 4.17e-04
#define GS_TIME_K_HOST_S_BNB_INT8_COL32_DECOMP 9.82e-04
/* Links (not efficiencies; not calibrated). PCIe per lane, one direction,
 * Gen3 8 GT/s with 128b/130b coding = 0.985 GB/s, doubling per generation
 * (PCI-SIG). Between nodes: assumed one 400 Gb/s NIC per GPU (DGX H100:
 * 8 x 400 Gb/s ConnectX-7), 50 GB/s; the speed records do not say theirs.
 * A ring collective's bus bandwidth across nodes is a node's NICs together
 * (timing.c ring_gbs, after NCCL's tuning.cc); an all-to-all's is one. */
#define GS_TIME_PCIE_GBS_PER_LANE_GEN3 0.985
#define GS_TIME_NET_GBS 50.0

/* ==== Cost and serving capacity (issue 17 items 2 and 3) ================
 * A price is the rent of one GPU for an hour, USD: a GPU file's optional
 * price_usd_per_hour (with its source and day) or --price. Past this bound
 * it is a typo (cents as dollars, a month as an hour), refused, not
 * multiplied: the dearest on-demand GPU hour listed in 2026 is under 20. */
#define GS_PRICE_MAX_USD_HOUR 1000
/* Bounds on a GPU file's throughput figures, so that every figure read is
 * finite and the time model's arithmetic stays finite (issue 34: 1e308
 * TFLOPS made estimate --json print -nan). Each is 100x or more the
 * largest of 2026 (B200: 2,250 dense bf16 TFLOPS, 4,500 fp8; 8,000 GB/s
 * of HBM3e; 1,800 GB/s of NVLink 5), so no real GPU is near them. */
#define GS_GPU_TFLOPS_MAX 1e6
#define GS_GPU_GBS_MAX 1e6
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
