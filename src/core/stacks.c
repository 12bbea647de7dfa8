/* gpusizer: stack profiles (see stacks.h). Pure. */
#include "stacks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define ALL GS_SW_ALWAYS
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The choices below are read from each framework's code at the release
 * named; a range says where the behaviour changed. A setting a stack leaves
 * alone keeps the row's value (the table's default, or what an earlier
 * profile chose). */

/* transformers: the Trainer, the modeling code and generate(). */
static const gs_stack_set hf_sets[] = {
	{ "attn", "eager", NULL, "4.36", ALL, false,
	  "transformers < 4.36: eager attention; 4.36 added the SDPA attention classes and made sdpa the "
	  "default attn_implementation (modeling_utils.py, _check_and_enable_sdpa)" },
	{ "kv-cache", "legacy", NULL, "4.36", GS_SW_INFER, false,
	  "transformers < 4.36: past_key_values as tuples rebuilt by torch.cat each step (cache_utils.py and "
	  "DynamicCache came in 4.36)" },
	{ "kv-cache", "legacy", NULL, NULL, GS_SW_TUPLE_CACHE, false,
	  "remote code that keeps tuple caches whatever the release: Qwen v1 modeling_qwen.py (layer_past, "
	  "torch.cat), ChatGLM modeling_chatglm.py (kv_cache, torch.cat), Baichuan modeling_baichuan.py "
	  "(past_key_value = (key_states, value_states))" },
	{ "logits", "all-fp32", NULL, "4.45", GS_SW_HF_HEAD, false,
	  "transformers < 4.45: the causal-LM heads project every prompt position and return logits.float() "
	  "(models/llama/modeling_llama.py); 4.45 added num_logits_to_keep, and generate() passes 1 "
	  "(generation/utils.py)" },
	{ "logits", "all", NULL, NULL, GS_SW_ALL_LOGITS, false,
	  "remote code whose forward takes no logits_to_keep, so generate() gets every position at the "
	  "compute dtype: Qwen v1 QWenLMHeadModel.forward, Baichuan BaichuanForCausalLM.forward" },
	{ "loss", "legacy", NULL, "4.46", GS_SW_HF_HEAD, false,
	  "transformers < 4.46: LlamaForCausalLM.forward runs logits.float() and the loss on "
	  "shift_logits = logits[..., :-1, :].contiguous() (models/llama/modeling_llama.py); 4.46 moved it "
	  "to self.loss_function (loss/loss_utils.py, ForCausalLMLoss)" },
	{ "loss", "legacy", NULL, NULL, GS_SW_FLOAT_HEAD, false,
	  "ChatGLM's remote code: lm_logits.to(torch.float32) before the shift (modeling_chatglm.py, "
	  "ChatGLMForConditionalGeneration.forward)" },
	{ "loss-dtype", "fp32", NULL, NULL, GS_SW_FULL_HEAD16, false,
	  "the Trainer runs the step under autocast when bf16 or fp16 is set (trainer.py, "
	  "autocast_smart_context_manager), so cross_entropy is fp32 though Qwen v1's head hands it "
	  "16-bit logits" },
	{ "optimizer", "adamw-fused", NULL, "4.32", GS_SW_TRAIN, false,
	  "transformers < 4.32: optim adamw_hf, transformers' own AdamW, a loop over parameters with no "
	  "full-size temporary (training_args.py; PR #25109 changed the default)" },
	{ "optimizer", "adamw", "4.32", "4.54", GS_SW_TRAIN, false,
	  "transformers 4.32 to 4.53: optim adamw_torch, torch.optim.AdamW's foreach path (training_args.py, "
	  "PR #25109)" },
	{ "optimizer", "adamw-fused", "4.54", NULL, GS_SW_TRAIN, false,
	  "transformers 4.54 on: optim adamw_torch_fused with torch >= 2.8 (training_args.py, PR #37358)" },
	{ "zero-bucket", "0", NULL, NULL, GS_SW_ZERO, false,
	  "the Trainer's DeepSpeed integration fills reduce_bucket_size \"auto\" with hidden_size^2 "
	  "(integrations/deepspeed.py, HfTrainerDeepSpeedConfig.trainer_config_finalize), as its ZeRO "
	  "templates ask" },
	{ "overlap-comm", "true", NULL, NULL, GS_SW_ZERO, false,
	  "the ZeRO templates of the DeepSpeed integration's docs set overlap_comm true "
	  "(docs/source/en/deepspeed.md)" },
	{ "runtime", "hf", NULL, NULL, ALL, false, "generate(): eager modules, launched from Python" },
	{ "train-runtime", "pytorch", NULL, NULL, ALL, false, "the Trainer over PyTorch modules" },
};

/* PEFT: LoRA adapters and prepare_model_for_kbit_training. */
static const gs_stack_set peft_sets[] = {
	{ "adapter-dtype", "bf16", NULL, "0.12", GS_SW_BASE16, false,
	  "peft < 0.12: LoraLayer.update_layer moves the adapter to the base weight's dtype "
	  "(tuners/lora/layer.py, self.to(weight.device, dtype=weight.dtype), v0.11.0)" },
	{ "adapter-dtype", "fp32", "0.12", NULL, GS_SW_ADAPTER, false,
	  "peft 0.12 on: get_peft_model(autocast_adapter_dtype=True) up-casts 16-bit adapters to fp32 "
	  "(tuners/tuners_utils.py, cast_adapter_dtype)" },
	{ "kbit-prep", "auto", NULL, NULL, GS_SW_QUANT_BASE, false,
	  "prepare_model_for_kbit_training casts every fp16/bf16 parameter to fp32 unless the model is "
	  "GPTQ-quantized (utils/other.py, v0.20)" },
	{ "grad-ckpt", "true", NULL, NULL, GS_SW_KBIT, false,
	  "prepare_model_for_kbit_training(use_gradient_checkpointing=True) calls "
	  "gradient_checkpointing_enable() (utils/other.py, v0.20)" },
};

/* TRL's SFTTrainer and SFTConfig. */
static const gs_stack_set trl_sets[] = {
	{ "grad-ckpt", "false", NULL, "0.22", GS_SW_TRAIN, false,
	  "trl < 0.22: SFTConfig keeps TrainingArguments' gradient_checkpointing=False, and "
	  "prepare_peft_model passes it to prepare_model_for_kbit_training (models/utils.py)" },
	{ "grad-ckpt", "true", "0.22", NULL, GS_SW_TRAIN, false,
	  "trl 0.22 on: gradient_checkpointing defaults to True (PR #3510; trainer/base_config.py)" },
	{ "kbit-prep", "off", "0.26", NULL, GS_SW_QUANT_BASE, false,
	  "trl 0.26 on: the SFTTrainer no longer calls prepare_model_for_kbit_training (PR #4577, "
	  "trainer/sft_trainer.py)" },
	{ "adapter-dtype", "bf16", "0.26", NULL, GS_SW_QUANT_BASE, false,
	  "trl 0.26 on: for a quantized model the trainable parameters are cast to bf16 "
	  "(trainer/sft_trainer.py, param.data.to(torch.bfloat16))" },
	{ "adapter-dtype", "bf16", "1.7", NULL, GS_SW_ZERO3_LORA, false,
	  "trl 1.7 on: under ZeRO-3 a 16-bit base gets get_peft_model(autocast_adapter_dtype=False), "
	  "adapters in the base's dtype (trainer/sft_trainer.py, PR #6091)" },
};

/* DeepSpeed's engine and ZeRO. */
static const gs_stack_set deepspeed_sets[] = {
	{ "precision", "mixed-bf16", NULL, NULL, GS_SW_FULL_BF16, false,
	  "the bf16 engine: the module in bf16, an fp32 master partition with fp32 Adam states "
	  "(runtime/bf16_optimizer.py, runtime/zero/stage_1_and_2.py)" },
	{ "precision", "mixed-fp16", NULL, NULL, GS_SW_FULL_FP16, false,
	  "the fp16 engine: the module in fp16 with dynamic loss scaling, fp32 master and states "
	  "(runtime/fp16/fused_optimizer.py, runtime/zero/stage_1_and_2.py)" },
	{ "loss-dtype", "auto", NULL, NULL, GS_SW_FULL, false,
	  "the engine casts the module and runs no autocast (runtime/engine.py), so the loss takes what the "
	  "head hands it" },
	{ "zero-bucket", "500000000", NULL, NULL, GS_SW_ZERO, true,
	  "reduce_bucket_size defaults to 5e8 elements (runtime/zero/config.py, v0.16)" },
	{ "overlap-comm", "false", NULL, NULL, GS_SW_ZERO, true,
	  "overlap_comm defaults to True for stage 3 only (runtime/zero/config.py, overlap_comm_valid)" },
	{ "train-runtime", "pytorch", NULL, NULL, ALL, false, "PyTorch modules under DeepSpeed's engine" },
};

/* Accelerate's FSDP plugins. */
static const gs_stack_set fsdp1_sets[] = {
	{ "sharding", "fsdp", NULL, NULL, GS_SW_MULTI_FULL, false,
	  "FSDP1 full shard, a unit per decoder layer (accelerate utils/dataclasses.py, "
	  "FullyShardedDataParallelPlugin, fsdp_version 1)" },
	{ "sharding", "fsdp2", NULL, NULL, GS_SW_MULTI_ADAPTER, false,
	  "FSDP1 with PEFT's fsdp_auto_wrap_policy, which the Trainer installs for a PEFT model (peft "
	  "utils/other.py; transformers trainer.py): adapters in units of their own, so frozen weights "
	  "get no gradients" },
};
static const gs_stack_set fsdp2_sets[] = {
	{ "sharding", "fsdp2", NULL, NULL, GS_SW_MULTI, false,
	  "FSDP2 fully_shard per parameter (accelerate utils/fsdp_utils.py, fsdp2_prepare_model, "
	  "fsdp_version 2)" },
};

/* axolotl (over the HF Trainer and PEFT). */
static const gs_stack_set axolotl_sets[] = {
	{ "optimizer", "adamw-fused", NULL, NULL, GS_SW_TRAIN, false,
	  "optimizer defaults to adamw_torch_fused (utils/schemas/training.py, v0.18; PR #2293)" },
	{ "lora-dropout", "0", NULL, NULL, GS_SW_ADAPTER, false,
	  "lora_dropout defaults to 0.0 (utils/schemas/peft.py)" },
	{ "grad-ckpt", "false", NULL, NULL, GS_SW_TRAIN, false,
	  "gradient_checkpointing defaults to False (utils/schemas/config.py), which loaders/model.py "
	  "passes to prepare_model_for_kbit_training" },
};

/* LLaMA-Factory (over the HF Trainer and PEFT). */
static const gs_stack_set llamafactory_sets[] = {
	{ "kbit-prep", "off", NULL, NULL, GS_SW_QUANT_BASE, false,
	  "never calls prepare_model_for_kbit_training: its prepare_model_for_training up-casts layernorms "
	  "only with upcast_layernorm (model/model_utils/checkpointing.py, v0.9.5)" },
	{ "grad-ckpt", "true", NULL, NULL, GS_SW_TRAIN, false,
	  "disable_gradient_checkpointing defaults to False (hparams/model_args.py; "
	  "model/model_utils/checkpointing.py)" },
	{ "lora-targets", "all-linear", NULL, NULL, GS_SW_ADAPTER, false,
	  "lora_target defaults to all (hparams/finetuning_args.py)" },
	{ "lora-dropout", "0", NULL, NULL, GS_SW_ADAPTER, false,
	  "lora_dropout defaults to 0.0 (hparams/finetuning_args.py)" },
	{ "adapter-dtype", "fp32", NULL, NULL, GS_SW_ADAPTER, false,
	  "cast_trainable_params_to_fp32 up-casts the adapters (model/adapter.py)" },
};

/* Unsloth (its own model code over transformers). */
static const gs_stack_set unsloth_sets[] = {
	{ "loss", "fused-chunks", "2025.8.5", NULL, GS_SW_TRAIN, false,
	  "CausalLM_fast_forward calls unsloth_fused_ce_loss (unsloth/models/llama.py, 2025.8.5 on; "
	  "unsloth_zoo fused_losses/cross_entropy_loss.py)" },
	{ "grad-ckpt", "true", NULL, NULL, GS_SW_TRAIN, false,
	  "get_peft_model(use_gradient_checkpointing=\"unsloth\") (unsloth/models/llama.py, 2026.8.19)" },
	{ "ckpt-offload", "true", NULL, NULL, GS_SW_CKPT_512, false,
	  "use_gradient_checkpointing=\"unsloth\" offloads the checkpoints from 512 tokens on, standard "
	  "checkpointing below (apply_unsloth_gradient_checkpointing, unsloth/models/_utils.py; "
	  "unsloth_zoo gradient_checkpointing.py, UnslothCheckpointFunction)" },
	{ "fused-kernels", "true", NULL, NULL, GS_SW_TRAIN, false,
	  "fast_rms_layernorm and the swiglu kernels (unsloth/kernels/rms_layernorm.py, swiglu.py)" },
	{ "lora-targets", "all-linear", NULL, NULL, GS_SW_ADAPTER, false,
	  "get_peft_model targets q, k, v, o, gate, up and down_proj (unsloth/models/llama.py)" },
	{ "lora-dropout", "0", NULL, NULL, GS_SW_ADAPTER, false,
	  "get_peft_model lora_dropout = 0.0 (unsloth/models/llama.py)" },
	{ "kbit-prep", "off", NULL, NULL, GS_SW_QUANT_BASE, false,
	  "its own prepare_model_for_kbit_training up-casts the adapters and norm weights only, the "
	  "residual stream stays 16-bit (unsloth/models/_utils.py; unsloth_zoo training_utils.py, "
	  "prepare_model_for_training)" },
	{ "adapter-dtype", "fp32", NULL, NULL, GS_SW_ADAPTER, false,
	  "prepare_model_for_training(float32_mixed_precision=True) keeps trainable parameters in fp32 "
	  "(unsloth_zoo training_utils.py)" },
};

/* Liger kernels, over another stack. */
static const gs_stack_set liger_sets[] = {
	{ "loss", "fused", NULL, NULL, GS_SW_TRAIN, false,
	  "apply_liger_kernel_to_* (fused_linear_cross_entropy=True) routes the loss through "
	  "LigerFusedLinearCrossEntropyFunction (transformers/monkey_patch.py, "
	  "ops/fused_linear_cross_entropy.py, v0.8.2)" },
	{ "fused-kernels", "true", NULL, NULL, GS_SW_TRAIN, false,
	  "rms_norm=True and swiglu=True swap in LigerRMSNorm and LigerSwiGLUMLP (transformers/"
	  "monkey_patch.py; ops/rms_norm.py, ops/swiglu.py)" },
};

/* torchtune's recipes and configs. */
static const gs_stack_set torchtune_sets[] = {
	{ "precision", "bf16", NULL, NULL, GS_SW_NOT_QLORA, false,
	  "dtype: bf16 in the recipes' configs: the model, its gradients and optimizer states in bf16 "
	  "(training/precision.py, get_dtype)" },
	{ "precision", "nf4-torchao", NULL, NULL, GS_SW_QLORA, false,
	  "the QLoRA builders quantize with torchao's NF4 (modules/peft/lora.py, to_nf4)" },
	{ "compute-dtype", "bf16", NULL, NULL, GS_SW_TRAIN, false,
	  "the recipes refuse fp16 (\"full fp16 training is not supported with this recipe\") and "
	  "get_dtype raises where bf16 is not available (training/precision.py)" },
	{ "adapter-dtype", "bf16", NULL, NULL, GS_SW_ADAPTER, false,
	  "LoRA modules are built under set_default_dtype(self._dtype), in bf16 (recipes/"
	  "lora_finetune_single_device.py)" },
	{ "lora-dropout", "0", NULL, NULL, GS_SW_ADAPTER, false, "lora_dropout: 0.0 in the LoRA configs" },
	{ "optimizer", "adamw-fused", NULL, NULL, GS_SW_TRAIN, false,
	  "optimizer torch.optim.AdamW with fused: True in the configs (recipes/configs/llama3_1/"
	  "8B_lora_single_device.yaml, v0.7)" },
	{ "grad-ckpt", "true", NULL, NULL, GS_SW_TRAIN, false,
	  "enable_activation_checkpointing: True in the configs" },
	{ "loss", "chunked", "0.3", NULL, GS_SW_TRAIN, false,
	  "CEWithChunkedOutputLoss in the configs from 0.3 (modules/loss/ce_chunked_output_loss.py); "
	  "0.7's LinearCrossEntropyLoss also takes the head a chunk at a time and keeps every chunk's fp32 "
	  "log-probabilities (modules/loss/cross_entropy_loss.py)" },
	{ "sharding", "fsdp2", NULL, NULL, GS_SW_MULTI, false,
	  "the distributed recipes shard each layer with fully_shard (training/_distributed.py, "
	  "shard_model)" },
	{ "train-runtime", "pytorch", NULL, NULL, ALL, false, "PyTorch modules" },
};

/* litgpt (Lightning Fabric). */
static const gs_stack_set litgpt_sets[] = {
	{ "precision", "amp-bf16", NULL, NULL, GS_SW_TRAIN16, false,
	  "get_default_supported_precision(training=True) is bf16-mixed, fp32 weights under autocast "
	  "(litgpt/utils.py, v0.5.13)" },
	{ "precision", "nf4-litgpt", NULL, NULL, GS_SW_QLORA, false,
	  "--quantize bnb.nf4 goes through Lightning Fabric's BitsandbytesPrecision (finetune/lora.py)" },
	{ "adapter-dtype", "bf16", NULL, NULL, GS_SW_BASE16, false,
	  "under a -true precision the adapters are made in the model's dtype (Fabric init_module)" },
	{ "adapter-dtype", "bf16", NULL, NULL, GS_SW_QLORA, false,
	  "--quantize bnb.* runs BitsandbytesPrecision(quantize[4:], dtype), which makes every module, "
	  "the adapters too, in the 16-bit dtype (finetune/lora.py)" },
	{ "optimizer", "paged-adamw-32bit", NULL, NULL, GS_SW_QLORA, false,
	  "instantiate_bnb_optimizer: bnb.optim.PagedAdamW for --quantize bnb.* (litgpt/utils.py)" },
	{ "loss", "chunked", NULL, NULL, GS_SW_TRAIN, false,
	  "model(input_ids, lm_head_chunk_size=128) and chunked_cross_entropy (finetune/lora.py)" },
	{ "fused-qkv", "true", NULL, NULL, GS_SW_TRAIN, false,
	  "CausalSelfAttention runs q, k and v as one linear; LoRA as one LoRAQKVLinear (litgpt/model.py, "
	  "litgpt/lora.py)" },
	{ "held-logits", "true", NULL, NULL, GS_SW_TRAIN, false,
	  "fit() binds logits = model(...) until the next micro-batch's forward returns "
	  "(finetune/lora.py)" },
	{ "lora-targets", "qv", NULL, NULL, GS_SW_ADAPTER, false,
	  "lora_query and lora_value default to True, the rest False (finetune/lora.py)" },
	{ "lora-dropout", "0.05", NULL, NULL, GS_SW_ADAPTER, false, "lora_dropout = 0.05 (finetune/lora.py)" },
	{ "attn", "eager", NULL, NULL, GS_SW_SOFTCAP, false,
	  "with soft-capped scores it computes attention by hand (litgpt/model.py: \"with softcapping we "
	  "cannot use SDPA\")" },
	{ "sharding", "fsdp", NULL, NULL, GS_SW_MULTI, false,
	  "FSDPStrategy(auto_wrap_policy={Block}): a unit per transformer block (finetune/lora.py)" },
	{ "logits", "all", NULL, NULL, GS_SW_INFER, false,
	  "generate() runs the prompt through model(x, input_pos), every position's logits "
	  "(litgpt/generate/base.py)" },
	{ "train-runtime", "pytorch", NULL, NULL, ALL, false, "PyTorch modules under Fabric" },
};

/* ms-swift (over the HF Trainer and PEFT). */
static const gs_stack_set swift_sets[] = {
	{ "grad-ckpt", "true", NULL, NULL, GS_SW_TRAIN, false,
	  "gradient_checkpointing defaults to True (swift/trainers/arguments.py, v4.4; v1's "
	  "llm/utils/argument.py turns it on where the model supports it)" },
	{ "lora-dropout", "0.05", NULL, NULL, GS_SW_ADAPTER, false,
	  "lora_dropout = 0.05 (swift/arguments/tuner_args.py; v1: lora_dropout_p 0.05)" },
	{ "lora-targets", "all-linear", "3.0", NULL, GS_SW_ADAPTER, false,
	  "target_modules defaults to all-linear from 3.0 (swift/arguments/tuner_args.py)" },
};

/* torchtitan. */
static const gs_stack_set torchtitan_sets[] = {
	{ "compute-dtype", "bf16", NULL, NULL, GS_SW_TRAIN, false,
	  "mixed_precision_param = bfloat16 (torchtitan/config/job_config.py)" },
	{ "optimizer", "adamw-fused", NULL, NULL, GS_SW_TRAIN, false,
	  "optimizer implementation \"fused\" (torchtitan/config/job_config.py, components/optimizer.py)" },
	{ "sharding", "fsdp2", NULL, NULL, GS_SW_MULTI, false,
	  "parallelize_llama applies fully_shard per block (models/llama3/infra/parallelize.py)" },
	{ "train-runtime", "pytorch", NULL, NULL, ALL, false, "PyTorch modules, FSDP2" },
};

/* Megatron-LM / Megatron-Core. */
static const gs_stack_set megatron_sets[] = {
	{ "precision", "mixed-bf16", NULL, NULL, GS_SW_FULL_BF16, false,
	  "--bf16: bf16 parameters and gradients, fp32 main parameters in the optimizer "
	  "(megatron/core/optimizer/optimizer.py, Float16OptimizerWithFloat16Params)" },
	{ "precision", "mixed-fp16", NULL, NULL, GS_SW_FULL_FP16, false,
	  "--fp16: the same with a loss scaler (megatron/core/optimizer/optimizer.py)" },
	{ "loss-dtype", "auto", NULL, NULL, GS_SW_FULL, false, "no autocast: the module is cast" },
	{ "optimizer", "adamw-fused", NULL, NULL, GS_SW_TRAIN, false,
	  "Adam from apex or Transformer Engine's FusedAdam (megatron/core/optimizer/__init__.py)" },
	{ "train-runtime", "megatron", NULL, NULL, ALL, false, "Megatron-Core with Transformer Engine layers" },
};

/* NeMo 2 (over Megatron-Core). */
static const gs_stack_set nemo_sets[] = {
	{ "sharding", "zero1", NULL, NULL, GS_SW_MULTI_FULL, false,
	  "the recipes' OptimizerConfig(use_distributed_optimizer=True) shards the fp32 main parameters "
	  "and Adam states over data-parallel ranks, as ZeRO-1 (nemo/collections/llm/recipes/optim/adam.py)" },
};

/* Serving engines and local runtimes (inference). */
static const gs_stack_set vllm_sets[] = {
	{ "kv-cache", "static", NULL, NULL, GS_SW_INFER, false,
	  "the KV-cache pool is allocated before serving (vllm/v1/worker/gpu_worker.py, "
	  "determine_available_memory): the row's cache is there at full length" },
	{ "logits", "last", NULL, NULL, GS_SW_INFER, false,
	  "compute_logits only at the positions sampled (vllm/v1/worker/gpu_model_runner.py, logits_indices)" },
	{ "runtime", "vllm", NULL, NULL, ALL, false, "vLLM" },
};
static const gs_stack_set sglang_sets[] = {
	{ "kv-cache", "static", NULL, NULL, GS_SW_INFER, false,
	  "the token-to-KV pool is allocated at start from mem_fraction_static (python/sglang/srt/"
	  "model_executor/model_runner.py, init_memory_pool)" },
	{ "logits", "last", NULL, NULL, GS_SW_INFER, false,
	  "LogitsProcessor projects the last position of each request (python/sglang/srt/layers/"
	  "logits_processor.py)" },
	{ "runtime", "sglang", NULL, NULL, ALL, false, "SGLang" },
};
static const gs_stack_set trtllm_sets[] = {
	{ "kv-cache", "static", NULL, NULL, GS_SW_INFER, false,
	  "the paged KV cache takes free_gpu_memory_fraction of the memory at start (KvCacheConfig, "
	  "tensorrt_llm/llmapi/llm_args.py)" },
	{ "logits", "last", NULL, NULL, GS_SW_INFER, false,
	  "gather_context_logits defaults to False: the last position only" },
	{ "runtime", "tensorrt-llm", NULL, NULL, ALL, false, "TensorRT-LLM" },
};
static const gs_stack_set llamacpp_sets[] = {
	{ "kv-cache", "static", NULL, NULL, GS_SW_INFER, false,
	  "the context allocates its KV cache for n_ctx when it is made (src/llama-kv-cache.cpp)" },
	{ "kv-dtype", "fp16", NULL, NULL, GS_SW_INFER, false,
	  "cache_type_k and cache_type_v default to GGML_TYPE_F16 (common/common.h)" },
	{ "logits", "last", NULL, NULL, GS_SW_INFER, false,
	  "a batch asks logits for its last token only unless told otherwise (examples, common/common.cpp)" },
	{ "runtime", "llama.cpp", NULL, NULL, ALL, false, "llama.cpp" },
};
static const gs_stack_set autoawq_sets[] = {
	{ "precision", "awq-int4", NULL, NULL, GS_SW_INFER, false, "AWQ 4-bit checkpoints (awq/models/base.py)" },
	{ "awq-fuse", "true", NULL, NULL, GS_SW_INFER, false,
	  "from_quantized(fuse_layers=True) by default (awq/models/auto.py, v0.2.9)" },
	{ "attn", "eager-upcast", NULL, NULL, GS_SW_INFER, false,
	  "QuantAttentionFused computes softmax(scores.float()) (awq/modules/fused/attn.py)" },
	{ "runtime", "autoawq", NULL, NULL, ALL, false, "AutoAWQ's fused modules" },
};
static const gs_stack_set exllama_sets[] = {
	{ "kv-cache", "static", NULL, NULL, GS_SW_INFER, false,
	  "ExLlamaV2Cache allocates (batch, max_seq_len, kv heads, head dim) with torch.zeros when it is "
	  "made (exllamav2/cache.py, v0.2.7)" },
	{ "kv-dtype", "fp16", NULL, NULL, GS_SW_INFER, false, "ExLlamaV2Cache keeps fp16 (exllamav2/cache.py)" },
	{ "runtime", "exllama", NULL, NULL, ALL, false, "ExLlamaV2's own generator and kernels" },
};
static const gs_stack_set gptfast_sets[] = {
	{ "kv-cache", "static-mask", NULL, NULL, GS_SW_INFER, false,
	  "setup_caches: a KVCache of max_seq_length and a [L, L] bool causal_mask = tril(ones(L, L)) "
	  "(torchao/_models/llama/model.py; gpt-fast model.py)" },
	{ "attn", "math", NULL, NULL, GS_SW_INFER, false,
	  "decode_n_tokens runs under sdp_kernel(enable_flash=False, enable_mem_efficient=False, "
	  "enable_math=True) (torchao/_models/llama/generate.py)" },
	{ "logits", "all", NULL, NULL, GS_SW_INFER, false, "Transformer.forward projects every input position" },
	{ "runtime", "compiled", NULL, NULL, ALL, false, "torch.compile with CUDA graphs" },
};

/* Libraries under a stack. */
static const gs_stack_set bnb_sets[] = {
	{ "bnb-saves", "input", NULL, "0.43.2", GS_SW_ADAPTER, false,
	  "bitsandbytes < 0.43.2: MatMul4Bit keeps ctx.tensors = (A, B), its input too "
	  "(autograd/_functions.py; PR #1270 made it (None, B))" },
	{ "bnb-saves", "weight", "0.43.2", NULL, GS_SW_ADAPTER, false,
	  "bitsandbytes 0.43.2 on: MatMul4Bit keeps the packed weight only (autograd/_functions.py)" },
};
static const gs_stack_set fsdpqlora_sets[] = {
	{ "adapter-dtype", "bf16", NULL, NULL, GS_SW_ADAPTER, false,
	  "train.py casts the whole model, LoRA included, to bf16 (AnswerDotAI/fsdp_qlora)" },
	{ "kbit-prep", "off", NULL, NULL, GS_SW_QUANT_BASE, false,
	  "train.py builds its Linear4bit layers and never calls prepare_model_for_kbit_training" },
};

#define STACK(name, what, modifier, base, version, sets) \
	{ name, what, modifier, base, version, sets, N(sets) }

static const gs_stack table[] = {
	STACK("hf", "transformers: the Trainer, its modeling code and generate(), with PEFT", false, "peft", "4.57",
	      hf_sets),
	STACK("peft", "PEFT: LoRA adapters, prepare_model_for_kbit_training", false, NULL, "0.20", peft_sets),
	STACK("trl", "TRL's SFTTrainer over transformers and PEFT", false, "hf", "1.9", trl_sets),
	STACK("deepspeed", "DeepSpeed's engine (ZeRO stage: --sharding zero1|zero2|zero3)", false, NULL, "0.16",
	      deepspeed_sets),
	STACK("accelerate-fsdp", "Accelerate's FSDP1 plugin", false, NULL, "1.10", fsdp1_sets),
	STACK("accelerate-fsdp2", "Accelerate's FSDP2 plugin", false, NULL, "1.10", fsdp2_sets),
	STACK("axolotl", "axolotl over the HF Trainer and PEFT", false, "hf", "0.18", axolotl_sets),
	STACK("llama-factory", "LLaMA-Factory over the HF Trainer and PEFT", false, "hf", "0.9.5",
	      llamafactory_sets),
	STACK("unsloth", "Unsloth's patched models, kernels and trainer", false, "hf", "2026.8.19", unsloth_sets),
	STACK("liger", "Liger kernels (a modifier: hf,liger, axolotl,liger...)", true, NULL, "0.8.2", liger_sets),
	STACK("torchtune", "torchtune's recipes and configs", false, NULL, "0.7", torchtune_sets),
	STACK("litgpt", "litgpt's finetune and generate scripts (Lightning Fabric)", false, NULL, "0.5.13",
	      litgpt_sets),
	STACK("ms-swift", "ms-swift over the HF Trainer and PEFT", false, "hf", "4.4", swift_sets),
	STACK("torchtitan", "torchtitan (FSDP2, fused AdamW)", false, NULL, "0.1", torchtitan_sets),
	STACK("megatron", "Megatron-LM / Megatron-Core", false, NULL, "0.13", megatron_sets),
	STACK("nemo", "NeMo 2 over Megatron-Core (distributed optimizer)", false, "megatron", "2.4", nemo_sets),
	STACK("vllm", "vLLM (serving)", false, NULL, "0.11", vllm_sets),
	STACK("sglang", "SGLang (serving)", false, NULL, "0.5", sglang_sets),
	STACK("tensorrt-llm", "TensorRT-LLM (serving)", false, NULL, "1.0", trtllm_sets),
	STACK("llama.cpp", "llama.cpp (GGUF)", false, NULL, "6000", llamacpp_sets),
	STACK("autoawq", "AutoAWQ's fused AWQ inference", false, NULL, "0.2.9", autoawq_sets),
	STACK("exllama", "ExLlamaV2", false, NULL, "0.2.7", exllama_sets),
	STACK("gpt-fast", "gpt-fast and torchao's generate.py (compiled decode)", false, NULL, "0.1", gptfast_sets),
	STACK("bitsandbytes", "bitsandbytes (a modifier: its 4-bit matmul by release)", true, NULL, "0.47", bnb_sets),
	STACK("fsdp-qlora", "Answer.AI's fsdp_qlora train.py", false, "hf", "0.1", fsdpqlora_sets),
};

#define DEFAULT_STACK "hf,trl"
#define MAX_ITEMS 8
#define MAX_DEPTH 4

const gs_stack *gs_stacks(size_t *n)
{
	*n = N(table);
	return table;
}

const gs_stack *gs_stack_find(const char *name)
{
	for (size_t i = 0; i < N(table); i++)
		if (strcmp(table[i].name, name) == 0)
			return &table[i];
	return NULL;
}

const char *gs_stack_when_text(gs_stack_when w)
{
	static const char *const text[GS_SW_MAX] = {
		[GS_SW_ALWAYS] = "",
		[GS_SW_TRAIN] = "training",
		[GS_SW_FULL] = "full fine-tuning",
		[GS_SW_FULL_BF16] = "full fine-tuning, bf16 compute",
		[GS_SW_FULL_FP16] = "full fine-tuning, fp16 compute",
		[GS_SW_NOT_QLORA] = "full, LoRA or inference",
		[GS_SW_ADAPTER] = "LoRA or QLoRA",
		[GS_SW_QLORA] = "QLoRA",
		[GS_SW_QUANT_BASE] = "LoRA or QLoRA over a quantized base",
		[GS_SW_BASE16] = "LoRA over a 16-bit base",
		[GS_SW_KBIT] = "k-bit preparation runs",
		[GS_SW_ZERO] = "DeepSpeed ZeRO",
		[GS_SW_MULTI] = "training on several GPUs",
		[GS_SW_MULTI_FULL] = "full fine-tuning on several GPUs",
		[GS_SW_MULTI_ADAPTER] = "LoRA or QLoRA on several GPUs",
		[GS_SW_CKPT_512] = "checkpointing, 512 tokens or more",
		[GS_SW_INFER] = "inference",
		[GS_SW_HF_HEAD] = "transformers' own modeling code",
		[GS_SW_FLOAT_HEAD] = "ChatGLM's remote code",
		[GS_SW_TUPLE_CACHE] = "Qwen v1, ChatGLM, Baichuan remote code",
		[GS_SW_ALL_LOGITS] = "Qwen v1, Baichuan remote code",
		[GS_SW_SOFTCAP] = "soft-capped attention",
		[GS_SW_TRAIN16] = "full or LoRA",
		[GS_SW_ZERO3_LORA] = "LoRA over a 16-bit base under ZeRO-3",
		[GS_SW_FULL_HEAD16] = "full fine-tuning of Qwen v1 (16-bit logits)",
	};
	return (unsigned)w < GS_SW_MAX ? text[w] : "?";
}

/* Compare two dotted versions number by number (a missing number is 0). */
/* The dotted number at *p (0 where none), *p moved past it and its dot
 * (version_ok has checked the user's; the table's are literals). */
static unsigned long version_part(const char **p)
{
	unsigned long x = 0;

	while (**p >= '0' && **p <= '9')
		x = x * 10 + (unsigned long)(*(*p)++ - '0');
	if (**p != '\0')
		(*p)++;
	return x;
}

static int version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		unsigned long x = version_part(&a), y = version_part(&b);
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

bool gs_stack_version_in(const char *v, const char *since, const char *until)
{
	return (since == NULL || version_cmp(v, since) >= 0) && (until == NULL || version_cmp(v, until) < 0);
}

/* The model's own (remote) code families, by config model_type. */
static bool family(const gs_arch *a, const char *const *names)
{
	for (size_t i = 0; a != NULL && names[i] != NULL; i++)
		if (strcmp(a->model_type, names[i]) == 0)
			return true;
	return false;
}

static const char *const remote_code[] = { "qwen", "chatglm", "baichuan", NULL };
static const char *const float_head[] = { "chatglm", NULL };
static const char *const all_logits[] = { "qwen", "baichuan", NULL };

static bool base16(gs_prec p)
{
	return p == GS_P_BF16 || p == GS_P_FP16;
}

static bool holds(gs_stack_when w, const gs_settings *s, const gs_arch *a)
{
	bool train = s->method != GS_INFER, full = s->method == GS_FULL;
	bool adapter = s->method == GS_LORA || s->method == GS_QLORA;
	bool fp16 = s->compute_dtype == GS_CD_FP16;
	bool zero = s->sharding == GS_SH_ZERO1 || s->sharding == GS_SH_ZERO2 || s->sharding == GS_SH_ZERO3;
	gs_prec p = gs_settings_precision(s);

	switch (w) {
	case GS_SW_ALWAYS: return true;
	case GS_SW_TRAIN: return train;
	case GS_SW_FULL: return full;
	case GS_SW_FULL_BF16: return full && !fp16;
	case GS_SW_FULL_FP16: return full && fp16;
	case GS_SW_NOT_QLORA: return s->method != GS_QLORA;
	case GS_SW_ADAPTER: return adapter;
	case GS_SW_QLORA: return s->method == GS_QLORA;
	case GS_SW_QUANT_BASE: return adapter && gs_prec_quantized(p);
	case GS_SW_BASE16: return s->method == GS_LORA && base16(p);
	case GS_SW_KBIT: return gs_settings_kbit_prep(s);
	case GS_SW_ZERO: return train && zero;
	case GS_SW_MULTI: return train && s->gpus > 1;
	case GS_SW_MULTI_FULL: return full && s->gpus > 1;
	case GS_SW_MULTI_ADAPTER: return adapter && s->gpus > 1;
	case GS_SW_CKPT_512: return train && s->grad_ckpt && s->seq >= 512;
	case GS_SW_INFER: return !train;
	case GS_SW_HF_HEAD: return a != NULL && !family(a, remote_code);
	case GS_SW_FLOAT_HEAD: return family(a, float_head);
	case GS_SW_TUPLE_CACHE: return !train && family(a, remote_code);
	case GS_SW_ALL_LOGITS: return !train && family(a, all_logits);
	case GS_SW_SOFTCAP: return a != NULL && a->attn_softcap > 0;
	case GS_SW_TRAIN16: return full || s->method == GS_LORA;
	case GS_SW_ZERO3_LORA: return s->method == GS_LORA && base16(p) && s->sharding == GS_SH_ZERO3;
	case GS_SW_FULL_HEAD16: return full && a != NULL && a->loss_16bit;
	default: return false;
	}
}

/* One item of a stack text: NAME or NAME@VERSION. */
typedef struct item {
	char name[32];
	char version[32];     /* "" when none was named */
} item;

static bool version_ok(const char *v)
{
	size_t n = strlen(v);

	if (n == 0 || n >= 32 || v[0] == '.' || v[n - 1] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((v[i] >= '0' && v[i] <= '9') || (v[i] == '.' && v[i + 1] != '.')))
			return false;
	return true;
}

static void names_list(char *buf, size_t n)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < N(table) && k + 1 < n; i++) {
		size_t m = strlen(table[i].name);
		if (k + m + 2 >= n)
			break;
		if (i)
			buf[k++] = ' ';
		memcpy(buf + k, table[i].name, m);
		k += m;
		buf[k] = '\0';
	}
}

/* Split text into items; GS_EUSAGE naming the part that is wrong. */
static gs_err parse_items(const char *text, item *it, size_t *n, gs_error *e)
{
	const char *p = text;
	char names[512]; /* for the messages */

	*n = 0;
	if (text[0] == '\0') {
		names_list(names, sizeof names);
		return gs_fail(e, GS_EUSAGE, "--stack: empty (one of %s, as NAME[@VERSION],...)", names);
	}
	for (;;) {
		size_t len = strcspn(p, ",");
		char part[72];
		if (len == 0 || len >= sizeof part)
			return gs_fail(e, GS_EUSAGE, "--stack: '%s': an empty or overlong part", text);
		if (*n >= MAX_ITEMS)
			return gs_fail(e, GS_EUSAGE, "--stack: '%s': more than %d stacks", text, MAX_ITEMS);
		memcpy(part, p, len);
		part[len] = '\0';
		char *at = strchr(part, '@');
		item *x = &it[(*n)++];
		if (at != NULL)
			*at = '\0';
		if (strlen(part) >= sizeof x->name || gs_stack_find(part) == NULL) {
			names_list(names, sizeof names);
			return gs_fail(e, GS_EUSAGE, "--stack: unknown stack '%s' (one of %s)", part, names);
		}
		strcpy(x->name, part);
		x->version[0] = '\0';
		if (at != NULL) {
			if (!version_ok(at + 1))
				return gs_fail(e, GS_EUSAGE, "--stack: %s@%s: a version is dotted numbers, e.g. %s@%s",
				               part, at + 1, part, gs_stack_find(part)->version);
			strcpy(x->version, at + 1);
		}
		for (size_t j = 0; j + 1 < *n; j++)
			if (strcmp(it[j].name, x->name) == 0)
				return gs_fail(e, GS_EUSAGE, "--stack: '%s' names %s twice", text, x->name);
		p += len;
		if (*p == '\0')
			return GS_OK;
		p++;
	}
}

gs_err gs_stack_check(const char *text, char *out, size_t n, gs_error *e)
{
	item it[MAX_ITEMS];
	size_t k;
	gs_err rc;

	if (strlen(text) >= n)
		return gs_fail(e, GS_EUSAGE, "--stack: longer than %zu characters", n - 1);
	rc = parse_items(text, it, &k, e);
	if (rc == GS_OK)
		memcpy(out, text, strlen(text) + 1);
	return rc;
}

/* The state of one application: the items named, what was applied. */
typedef struct apply_ctx {
	gs_settings *s;
	const gs_arch *a;
	uint64_t keep, chosen;
	const item *items;
	size_t n_items;
	const gs_stack *done[N(table)];
	size_t n_done;
	const char *runtime, *train_runtime; /* gs_stack_runtimes */
	bool settings;              /* set the settings (else only the runtimes) */
	gs_error *e;
} apply_ctx;

static bool named(const apply_ctx *c, const char *name)
{
	for (size_t i = 0; i < c->n_items; i++)
		if (strcmp(c->items[i].name, name) == 0)
			return true;
	return false;
}

static bool applied(const apply_ctx *c, const gs_stack *p)
{
	for (size_t i = 0; i < c->n_done; i++)
		if (c->done[i] == p)
			return true;
	return false;
}

/* x's row of the settings table and its bit (gs_setting_bit; 0 for the
 * runtimes), remembered by the choice's address: a sweep applies the same
 * few profiles to every row. */
static const gs_setting *set_row(const gs_stack_set *x, uint64_t *bit)
{
	enum { SLOTS = 512 };
	static _Thread_local const gs_stack_set *key[SLOTS];
	static _Thread_local const gs_setting *row[SLOTS];
	static _Thread_local uint64_t bits[SLOTS];
	size_t h = ((uintptr_t)x / sizeof *x) % SLOTS;

	if (key[h] != x) {
		row[h] = gs_setting_find(x->setting);
		bits[h] = gs_setting_bit(x->setting);
		key[h] = x;
	}
	*bit = bits[h];
	return row[h];
}

static gs_err apply_set(apply_ctx *c, const gs_stack *p, const gs_stack_set *x)
{
	uint64_t bit;
	const gs_setting *d = set_row(x, &bit);
	gs_error sub = { 0 };

	if (d == NULL && strcmp(x->setting, "runtime") == 0) {
		c->runtime = x->value;
		return GS_OK;
	}
	if (d == NULL && strcmp(x->setting, "train-runtime") == 0) {
		c->train_runtime = x->value;
		return GS_OK;
	}
	if (!c->settings)
		return GS_OK;
	if (d == NULL || bit == 0)
		return gs_fail(c->e, GS_EINTERNAL, "stack %s: no setting '%s'", p->name, x->setting);
	if ((c->keep & bit) || (x->weak && (c->chosen & bit)) || !holds(x->when, c->s, c->a))
		return GS_OK;
	if (gs_setting_set(d, c->s, x->value, &sub) != GS_OK)
		return gs_fail(c->e, GS_EINTERNAL, "stack %s: %s", p->name, sub.msg);
	c->chosen |= bit;
	return GS_OK;
}

static gs_err apply_profile(apply_ctx *c, const gs_stack *p, const char *version, int depth)
{
	gs_err rc;

	if (depth > MAX_DEPTH || applied(c, p))
		return GS_OK;
	if (p->base != NULL) {
		char base[64];
		snprintf(base, sizeof base, "%s", p->base);
		for (char *b = base, *next; b != NULL; b = next) {
			const gs_stack *q;
			next = strchr(b, ',');
			if (next != NULL)
				*next++ = '\0';
			q = gs_stack_find(b);
			if (q == NULL)
				return gs_fail(c->e, GS_EINTERNAL, "stack %s: no base stack '%s'", p->name, b);
			if (!named(c, b) && (rc = apply_profile(c, q, q->version, depth + 1)) != GS_OK)
				return rc;
		}
	}
	c->done[c->n_done++] = p;
	for (size_t i = 0; i < p->n_sets; i++) {
		const gs_stack_set *x = &p->sets[i];
		if (gs_stack_version_in(version, x->since, x->until) && (rc = apply_set(c, p, x)) != GS_OK)
			return rc;
	}
	return GS_OK;
}

/* Apply the items of text, over the default when all are modifiers. */
static gs_err apply_text(apply_ctx *c, const char *text)
{
	item it[MAX_ITEMS], def[MAX_ITEMS];
	size_t n, nd;
	bool modifiers = true;
	gs_err rc = parse_items(text, it, &n, c->e);

	if (rc != GS_OK)
		return rc;
	for (size_t i = 0; i < n; i++)
		modifiers = modifiers && gs_stack_find(it[i].name)->modifier;
	if (modifiers) {
		if ((rc = parse_items(DEFAULT_STACK, def, &nd, c->e)) != GS_OK)
			return rc;
		c->items = def;
		c->n_items = nd;
		for (size_t i = 0; i < nd; i++) {
			const gs_stack *p = gs_stack_find(def[i].name);
			if ((rc = apply_profile(c, p, p->version, 0)) != GS_OK)
				return rc;
		}
	}
	c->items = it;
	c->n_items = n;
	for (size_t i = 0; i < n; i++) {
		const gs_stack *p = gs_stack_find(it[i].name);
		if ((rc = apply_profile(c, p, it[i].version[0] ? it[i].version : p->version, 0)) != GS_OK)
			return rc;
	}
	c->items = NULL;
	c->n_items = 0;
	return GS_OK;
}

gs_err gs_stack_reapply(gs_settings *s, const gs_arch *a, gs_error *e)
{
	gs_settings_reset_except(s, s->given | gs_setting_bit("stack"));
	return gs_stack_apply(s, a, e);
}

gs_err gs_stack_apply(gs_settings *s, const gs_arch *a, gs_error *e)
{
	static apply_ctx zero;
	apply_ctx c = zero;

	c.s = s;
	c.a = a;
	c.keep = s->given;
	c.settings = true;
	c.e = e;
	return apply_text(&c, s->stack);
}

void gs_stack_runtimes(const char *stack, const char **runtime, const char **train_runtime)
{
	/* the time model asks once per row and GPU class, for a handful of
	 * texts: the last answer is kept (per thread) */
	static _Thread_local char last[GS_LORA_NAMES_MAX];
	static _Thread_local const char *last_rt, *last_trt;
	static _Thread_local bool have;
	static apply_ctx zero;
	apply_ctx c = zero;
	gs_error e = { 0 };

	if (have && strcmp(last, stack) == 0) {
		*runtime = last_rt;
		*train_runtime = last_trt;
		return;
	}
	c.e = &e;
	if (apply_text(&c, stack) != GS_OK)
		c.runtime = c.train_runtime = NULL;
	*runtime = c.runtime;
	*train_runtime = c.train_runtime;
	have = strlen(stack) < sizeof last;
	if (have) {
		memcpy(last, stack, strlen(stack) + 1);
		last_rt = c.runtime;
		last_trt = c.train_runtime;
	}
}
