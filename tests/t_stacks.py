#!/usr/bin/env python3
"""--stack: what each stack profile sets, against this test's own table of
the frameworks' code (each expectation cites the file and what it says, read
in the framework at the release named), and the rules around it: a setting
given beside the stack wins over every profile, later profiles win over
earlier ones, versions pick the behaviour of their release, the model's
family decides where its own code does, the time model's runtime follows
the stack unless named, and the report sweeps stacks where its spec asks.
No network: models are local configs."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from lib import GS, TOP, Checks

os.chdir(TOP)
check = Checks("stacks: ")
LLAMA = "models/meta-llama--Llama-3.1-8B/config.json"
QWEN1 = "tests/accuracy/models/set2/Qwen--Qwen-7B-Chat.json"
CHATGLM = "tests/accuracy/models/set2/THUDM--chatglm3-6b.json"
GEMMA2 = "models/google--gemma-2-9b/config.json"

# (stack, method, extra flags, model, {setting: value}, {setting: source})
# Each source is "FILE: what it says", FILE the framework's path at the
# release read; the tool's own table (list stacks) must cite the same FILE
# for that choice.
TABLE = [
    ("hf@4.35", "lora", [], LLAMA, {"attn": "eager", "loss": "legacy", "optimizer": "adamw"},
     {"attn": "modeling_utils.py: 4.36 made sdpa the default attn_implementation (_check_and_enable_sdpa)",
      "loss": "modeling_llama.py: logits = logits.float(); shift_logits = logits[..., :-1, :].contiguous()",
      "optimizer": "training_args.py: optim adamw_torch from 4.32 (PR #25109)"}),
    ("hf@4.36", "lora", [], LLAMA, {"attn": "sdpa", "loss": "legacy"},
     {"attn": "modeling_utils.py: sdpa default from 4.36"}),
    ("hf@4.46", "lora", [], LLAMA, {"loss": "standard", "optimizer": "adamw"},
     {"loss": "loss_utils.py: ForCausalLMLoss, self.loss_function from 4.46"}),
    ("hf@4.31", "full", [], LLAMA, {"optimizer": "adamw-fused"},
     {"optimizer": "training_args.py: optim adamw_hf before 4.32, a loop over parameters"}),
    ("hf", "full", [], LLAMA, {"optimizer": "adamw-fused"},
     {"optimizer": "training_args.py: adamw_torch_fused for torch>=2.8 (PR #37358)"}),
    ("hf@4.44", "inference", [], LLAMA, {"logits": "all-fp32", "kv-cache": "dynamic"},
     {"logits": "modeling_llama.py: every position, logits.float(), before num_logits_to_keep (4.45)"}),
    ("hf@4.35", "inference", [], LLAMA, {"kv-cache": "legacy"},
     {"kv-cache": "cache_utils.py: DynamicCache came in 4.36; tuples before"}),
    ("hf", "inference", [], LLAMA, {"logits": "last", "kv-cache": "dynamic", "attn": "sdpa"}, {}),
    ("hf", "inference", [], QWEN1, {"kv-cache": "legacy", "logits": "all"},
     {"kv-cache": "modeling_qwen.py: layer_past tuples rebuilt by torch.cat",
      "logits": "QWenLMHeadModel.forward: no logits_to_keep, every position"}),
    ("hf", "inference", [], CHATGLM, {"kv-cache": "legacy", "logits": "last"},
     {"kv-cache": "modeling_chatglm.py: kv_cache = torch.cat tuples"}),
    ("hf", "lora", [], CHATGLM, {"loss": "legacy"},
     {"loss": "modeling_chatglm.py: lm_logits.to(torch.float32) before the shift"}),
    ("hf", "full", ["--precision", "bf16"], QWEN1, {"loss-dtype": "fp32"},
     {"loss-dtype": "trainer.py: autocast_smart_context_manager under bf16=True"}),
    ("hf", "full", ["--gpus", "8", "--sharding", "zero2"], LLAMA, {"zero-bucket": 0, "overlap-comm": True},
     {"zero-bucket": "integrations/deepspeed.py: reduce_bucket_size auto = hidden_size^2"}),
    ("peft@0.11", "lora", ["--precision", "bf16"], LLAMA, {"adapter-dtype": "bf16"},
     {"adapter-dtype": "tuners/lora/layer.py: self.to(weight.device, dtype=weight.dtype) (v0.11.0)"}),
    ("peft", "lora", [], LLAMA, {"adapter-dtype": "fp32"},
     {"adapter-dtype": "tuners/tuners_utils.py: autocast_adapter_dtype=True, cast_adapter_dtype (0.12)"}),
    ("hf,peft", "qlora", [], LLAMA, {"kbit-prep": "auto", "grad-ckpt": True},
     {"grad-ckpt": "utils/other.py: prepare_model_for_kbit_training(use_gradient_checkpointing=True)"}),
    ("trl@0.21", "qlora", [], LLAMA, {"grad-ckpt": False, "kbit-prep": "auto"},
     {"grad-ckpt": "models/utils.py: prepare_model_for_kbit_training(use_gradient_checkpointing="
                   "args.gradient_checkpointing), False before 0.22"}),
    ("trl@0.22", "lora", [], LLAMA, {"grad-ckpt": True},
     {"grad-ckpt": "trainer/base_config.py: gradient_checkpointing default=True (PR #3510)"}),
    ("trl", "qlora", [], LLAMA, {"kbit-prep": "off", "adapter-dtype": "bf16", "grad-ckpt": True},
     {"kbit-prep": "trainer/sft_trainer.py: no prepare_model_for_kbit_training from 0.26 (PR #4577)",
      "adapter-dtype": "trainer/sft_trainer.py: param.data.to(torch.bfloat16) for a quantized model"}),
    ("trl", "lora", ["--gpus", "8", "--sharding", "zero3"], LLAMA, {"adapter-dtype": "bf16"},
     {"adapter-dtype": "trainer/sft_trainer.py: autocast_adapter_dtype=False under ZeRO-3 (PR #6091)"}),
    ("deepspeed", "full", ["--gpus", "8", "--sharding", "zero2"], LLAMA,
     {"precision": "mixed-bf16", "zero-bucket": 500000000, "overlap-comm": False},
     {"zero-bucket": "runtime/zero/config.py: reduce_bucket_size = 5e8",
      "overlap-comm": "runtime/zero/config.py: overlap_comm_valid, True for stage 3 only",
      "precision": "runtime/bf16_optimizer.py: bf16 module, fp32 master partition"}),
    ("deepspeed", "full", ["--compute-dtype", "fp16"], LLAMA, {"precision": "mixed-fp16"},
     {"precision": "runtime/fp16/fused_optimizer.py: the fp16 engine with loss scaling"}),
    ("hf,deepspeed", "full", ["--gpus", "8", "--sharding", "zero3"], LLAMA,
     {"zero-bucket": 0, "overlap-comm": True}, {}),
    ("accelerate-fsdp", "lora", ["--gpus", "4"], LLAMA, {"sharding": "fsdp2"},
     {"sharding": "utils/other.py: fsdp_auto_wrap_policy puts adapters in units of their own"}),
    ("accelerate-fsdp", "full", ["--gpus", "4"], LLAMA, {"sharding": "fsdp"},
     {"sharding": "utils/dataclasses.py: FullyShardedDataParallelPlugin, fsdp_version 1"}),
    ("accelerate-fsdp2", "full", ["--gpus", "4"], LLAMA, {"sharding": "fsdp2"},
     {"sharding": "utils/fsdp_utils.py: fsdp2_prepare_model, fully_shard"}),
    ("axolotl", "qlora", [], LLAMA, {"optimizer": "adamw-fused", "lora-dropout": 0, "grad-ckpt": False},
     {"optimizer": "utils/schemas/training.py: optimizer default adamw_torch_fused",
      "lora-dropout": "utils/schemas/peft.py: lora_dropout 0.0",
      "grad-ckpt": "utils/schemas/config.py: gradient_checkpointing default False"}),
    ("llama-factory", "qlora", [], LLAMA,
     {"kbit-prep": "off", "grad-ckpt": True, "lora-targets": "all-linear", "lora-dropout": 0,
      "adapter-dtype": "fp32"},
     {"kbit-prep": "model/model_utils/checkpointing.py: prepare_model_for_training, no k-bit cast",
      "lora-targets": "hparams/finetuning_args.py: lora_target default all",
      "grad-ckpt": "hparams/model_args.py: disable_gradient_checkpointing default False",
      "adapter-dtype": "model/adapter.py: cast_trainable_params_to_fp32"}),
    ("unsloth", "qlora", [], LLAMA,
     {"loss": "fused-chunks", "grad-ckpt": True, "ckpt-offload": True, "fused-kernels": True,
      "lora-targets": "all-linear", "lora-dropout": 0, "kbit-prep": "off", "adapter-dtype": "fp32"},
     {"loss": "unsloth/models/llama.py: unsloth_fused_ce_loss (2025.8.5 on)",
      "ckpt-offload": "unsloth/models/_utils.py: apply_unsloth_gradient_checkpointing, from 512 tokens",
      "fused-kernels": "unsloth/kernels/rms_layernorm.py: fast_rms_layernorm",
      "lora-targets": "unsloth/models/llama.py: get_peft_model target_modules q..down_proj",
      "kbit-prep": "unsloth/models/_utils.py: prepare_model_for_kbit_training, norms and adapters only"}),
    ("unsloth", "lora", ["--seq", "256"], LLAMA, {"grad-ckpt": True, "ckpt-offload": False}, {}),
    ("unsloth@2025.8.4", "lora", [], LLAMA, {"loss": "standard"}, {}),
    ("liger", "lora", [], LLAMA, {"loss": "fused", "fused-kernels": True, "grad-ckpt": True},
     {"loss": "ops/fused_linear_cross_entropy.py: LigerFusedLinearCrossEntropyFunction (v0.8.2)",
      "fused-kernels": "transformers/monkey_patch.py: rms_norm=True, swiglu=True"}),
    ("torchtune", "lora", [], LLAMA,
     {"precision": "bf16", "compute-dtype": "bf16", "adapter-dtype": "bf16", "lora-dropout": 0,
      "optimizer": "adamw-fused", "grad-ckpt": True, "loss": "chunked"},
     {"compute-dtype": "training/precision.py: get_dtype raises where bf16 is not available",
      "optimizer": "recipes/configs/llama3_1/8B_lora_single_device.yaml: AdamW fused: True",
      "loss": "modules/loss/ce_chunked_output_loss.py: CEWithChunkedOutputLoss"}),
    ("torchtune", "qlora", ["--gpus", "2"], LLAMA, {"precision": "nf4-torchao", "sharding": "fsdp2"},
     {"precision": "modules/peft/lora.py: to_nf4",
      "sharding": "training/_distributed.py: shard_model, fully_shard"}),
    ("torchtune@0.2", "lora", [], LLAMA, {"loss": "standard"}, {}),
    ("litgpt", "lora", [], LLAMA,
     {"precision": "amp-bf16", "adapter-dtype": "fp32", "loss": "chunked", "fused-qkv": True,
      "held-logits": True, "lora-targets": "qv", "lora-dropout": 0.05},
     {"precision": "litgpt/utils.py: get_default_supported_precision(training=True) bf16-mixed",
      "loss": "finetune/lora.py: lm_head_chunk_size=128, chunked_cross_entropy",
      "fused-qkv": "litgpt/model.py: CausalSelfAttention one qkv linear"}),
    ("litgpt", "lora", ["--precision", "bf16"], LLAMA, {"adapter-dtype": "bf16"}, {}),
    ("litgpt", "qlora", [], LLAMA, {"precision": "nf4-litgpt", "optimizer": "paged-adamw-32bit",
                                    "adapter-dtype": "bf16"},
     {"optimizer": "litgpt/utils.py: instantiate_bnb_optimizer, bnb.optim.PagedAdamW",
      "adapter-dtype": "finetune/lora.py: BitsandbytesPrecision(quantize[4:], dtype)"}),
    ("litgpt", "lora", [], GEMMA2, {"attn": "eager"},
     {"attn": "litgpt/model.py: with softcapping we cannot use SDPA"}),
    ("litgpt", "inference", [], LLAMA, {"logits": "all"},
     {"logits": "litgpt/generate/base.py: model(x, input_pos), every position"}),
    ("ms-swift", "lora", [], LLAMA, {"grad-ckpt": True, "lora-dropout": 0.05, "lora-targets": "all-linear"},
     {"grad-ckpt": "swift/trainers/arguments.py: gradient_checkpointing = True",
      "lora-targets": "swift/arguments/tuner_args.py: target_modules ['all-linear']"}),
    ("ms-swift@1.5", "lora", [], LLAMA, {"lora-targets": "qv", "lora-dropout": 0.05}, {}),
    ("torchtitan", "full", ["--gpus", "8"], LLAMA,
     {"compute-dtype": "bf16", "optimizer": "adamw-fused", "sharding": "fsdp2"},
     {"compute-dtype": "torchtitan/config/job_config.py: mixed_precision_param bfloat16",
      "sharding": "models/llama3/infra/parallelize.py: fully_shard per block"}),
    ("megatron", "full", [], LLAMA, {"precision": "mixed-bf16", "optimizer": "adamw-fused"},
     {"precision": "megatron/core/optimizer/optimizer.py: Float16OptimizerWithFloat16Params, fp32 main params"}),
    ("nemo", "full", ["--gpus", "8"], LLAMA, {"precision": "mixed-bf16", "sharding": "zero1"},
     {"sharding": "nemo/collections/llm/recipes/optim/adam.py: use_distributed_optimizer=True"}),
    ("vllm", "inference", [], LLAMA, {"kv-cache": "static", "logits": "last"},
     {"kv-cache": "vllm/v1/worker/gpu_worker.py: determine_available_memory, the pool before serving"}),
    ("sglang", "inference", [], LLAMA, {"kv-cache": "static"},
     {"kv-cache": "python/sglang/srt/model_executor/model_runner.py: init_memory_pool"}),
    ("tensorrt-llm", "inference", [], LLAMA, {"kv-cache": "static"},
     {"kv-cache": "tensorrt_llm/llmapi/llm_args.py: KvCacheConfig free_gpu_memory_fraction"}),
    ("llama.cpp", "inference", [], LLAMA, {"kv-cache": "static", "kv-dtype": "fp16"},
     {"kv-dtype": "common/common.h: cache_type_k = GGML_TYPE_F16",
      "kv-cache": "src/llama-kv-cache.cpp: the cache for n_ctx at creation"}),
    ("autoawq", "inference", [], LLAMA, {"precision": "awq-int4", "awq-fuse": True, "attn": "eager-upcast"},
     {"awq-fuse": "awq/models/auto.py: from_quantized(fuse_layers=True)",
      "attn": "awq/modules/fused/attn.py: softmax(scores.float())"}),
    ("exllama", "inference", [], LLAMA, {"kv-cache": "static", "kv-dtype": "fp16"},
     {"kv-cache": "exllamav2/cache.py: torch.zeros (batch, max_seq_len, ...)"}),
    ("gpt-fast", "inference", [], LLAMA, {"kv-cache": "static-mask", "attn": "math", "logits": "all"},
     {"kv-cache": "torchao/_models/llama/model.py: setup_caches, causal_mask tril(ones(L, L))",
      "attn": "torchao/_models/llama/generate.py: sdp_kernel(enable_math=True)"}),
    ("bitsandbytes@0.43.1", "qlora", [], LLAMA, {"bnb-saves": "input"},
     {"bnb-saves": "autograd/_functions.py: MatMul4Bit ctx.tensors = (A, B) before PR #1270"}),
    ("bitsandbytes@0.43.2", "qlora", [], LLAMA, {"bnb-saves": "weight"}, {}),
    ("fsdp-qlora", "qlora", [], LLAMA, {"adapter-dtype": "bf16", "kbit-prep": "off"}, {}),
]

# The time model's runtimes a stack names: (stack, method, runtime key, value).
RUNTIMES = [("vllm", "inference", "runtime", "vllm"), ("sglang", "inference", "runtime", "sglang"),
            ("tensorrt-llm", "inference", "runtime", "tensorrt-llm"), ("exllama", "inference", "runtime", "exllama"),
            ("llama.cpp", "inference", "runtime", "llama.cpp"),
            ("autoawq", "inference", "runtime", "autoawq"), ("gpt-fast", "inference", "runtime", "compiled"),
            ("hf", "inference", "runtime", "hf"), ("megatron", "full", "train_runtime", "megatron"),
            ("nemo", "full", "train_runtime", "megatron"), ("torchtune", "full", "train_runtime", "pytorch")]


def run(args):
    p = subprocess.run(GS + args, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def estimate(stack, method, extra, model):
    args = ["estimate", "--config", model, "--offline", "--method", method, "--json", "--allow-long-context"]
    if stack is not None:
        args += ["--stack", stack]
    rc, out, err = run(args + extra)
    if rc != 0:
        return None, err.strip()
    d = json.loads(out)
    return d, d["rows"][0]["settings"]


rc, out, err = run(["list", "stacks", "--json"])
listed = json.loads(out)["stacks"] if rc == 0 else []
check(rc == 0 and len(listed) >= 25, "list stacks --json lists the profiles", "%d %s" % (rc, err))
by_name = {s["name"]: s for s in listed}
REQUIRED = ["hf", "peft", "trl", "deepspeed", "accelerate-fsdp", "accelerate-fsdp2", "axolotl", "llama-factory",
            "unsloth", "liger", "torchtune", "litgpt", "ms-swift", "torchtitan", "megatron", "nemo", "vllm",
            "sglang", "tensorrt-llm", "llama.cpp", "autoawq", "exllama"]
check(all(n in by_name for n in REQUIRED), "every stack the issue names is a profile",
      ", ".join(n for n in REQUIRED if n not in by_name))
covered = {t[0].split("@")[0].split(",")[-1] for t in TABLE}
check(set(by_name) <= covered, "every profile has a row in this test's table",
      ", ".join(sorted(set(by_name) - covered)))
check(all(x["source"] for s in listed for x in s["sets"]), "every choice cites its source")
rc, text, _ = run(["list", "stacks"])
check(rc == 0 and "unsloth (" in text and "fused-chunks" in text and "default hf,trl)" in text,
      "list stacks prints the profiles, their choices and the default")

for stack, method, extra, model, want, sources in TABLE:
    d, got = estimate(stack, method, extra, model)
    name = "%s %s %s" % (stack, method, " ".join(extra))
    if d is None:
        check(False, name, got)
        continue
    bad = ["%s=%r (want %r)" % (k, got.get(k), v) for k, v in want.items() if got.get(k) != v]
    check(not bad, name.strip() + ": " + ", ".join("%s=%s" % kv for kv in want.items()), "; ".join(bad))
    prof = by_name.get(stack.split("@")[0].split(",")[-1])
    for setting, src in sources.items():
        path = src.split(":")[0]
        cited = [x["source"] for x in (prof["sets"] if prof else []) if x["setting"] == setting]
        check(any(path in c for c in cited), "%s: %s cites %s" % (stack, setting, path),
              "the profile's sources: %s" % cited)

# The default stack: current transformers, TRL and PEFT (hf,trl): TRL's
# SFTConfig checkpoints every training row (trainer/base_config.py, 0.22
# on) and its SFTTrainer skips PEFT's k-bit preparation and casts QLoRA
# adapters to bf16 (trainer/sft_trainer.py, 0.26 on).
d, got = estimate(None, "qlora", [], LLAMA)
check(d is not None and got["stack"] == "hf,trl" and got["grad-ckpt"] is True and got["kbit-prep"] == "off"
      and got["adapter-dtype"] == "bf16",
      "no stack named: hf,trl, current transformers with TRL and PEFT (QLoRA checkpointed, not prepared, "
      "bf16 adapters, as the SFTTrainer does)", str(got))
d, got = estimate(None, "lora", [], LLAMA)
check(d is not None and got["grad-ckpt"] is True and got["optimizer"] == "adamw-fused",
      "no stack named: LoRA checkpoints (SFTConfig's gradient_checkpointing=True), fused AdamW", str(got))
d, got = estimate("hf", "lora", [], LLAMA)
check(d is not None and got["grad-ckpt"] is False and got["optimizer"] == "adamw-fused",
      "hf alone: LoRA keeps the Trainer's gradient_checkpointing=False, its fused AdamW", str(got))
d, got = estimate("hf", "qlora", ["--precision", "nf4"], LLAMA)
check(d is not None and got["grad-ckpt"] is True and got["kbit-prep"] == "auto",
      "hf (PEFT's prepare_model_for_kbit_training): QLoRA checkpoints by default", str(got))

# A setting given beside the stack wins, before it or after it.
for extra, key, want in ((["--stack", "unsloth", "--no-grad-ckpt"], "grad-ckpt", False),
                         (["--loss", "standard", "--stack", "liger"], "loss", "standard"),
                         (["--stack", "torchtune", "--compute-dtype", "auto"], "compute-dtype", "auto"),
                         (["--lora-dropout", "0.1", "--stack", "unsloth"], "lora-dropout", 0.1)):
    rc, out, err = run(["estimate", "--config", LLAMA, "--offline", "--method", "lora", "--json"] + extra)
    got = json.loads(out)["rows"][0]["settings"] if rc == 0 else {}
    check(rc == 0 and got.get(key) == want, "a flag beside the stack wins: %s" % " ".join(extra),
          "%s=%r %s" % (key, got.get(key), err.strip()))
rc, out, err = run(["estimate", "--config", LLAMA, "--offline", "--method", "lora", "--json", "--stack",
                    "unsloth", "--no-grad-ckpt"])
got = json.loads(out)["rows"][0]["settings"] if rc == 0 else {}
check(rc == 0 and got.get("ckpt-offload") is False,
      "a stack's choice that needs a setting the user turned off stays off (ckpt-offload without grad-ckpt)",
      str(got.get("ckpt-offload")))
# Later stacks win over earlier ones.
for stack, key, want in (("hf@4.40,hf", None, None), ("trl,axolotl", "grad-ckpt", False),
                         ("axolotl,trl", "grad-ckpt", True), ("unsloth,liger", "loss", "fused"),
                         ("liger,unsloth", "loss", "fused-chunks")):
    if key is None:
        rc, _, err = run(["estimate", "--config", LLAMA, "--offline", "--stack", stack])
        check(rc == 2 and "twice" in err, "a stack named twice is a usage error", err.strip())
        continue
    d, got = estimate(stack, "lora", [], LLAMA)
    check(d is not None and got.get(key) == want, "later stacks win: %s gives %s=%s" % (stack, key, want),
          str(got.get(key) if d else got))
# The label shows the stack and what it chose.
rc, out, _ = run(["estimate", "--config", LLAMA, "--offline", "--method", "lora", "--stack", "unsloth"])
label = [l for l in out.splitlines() if l.startswith("settings")]
check(rc == 0 and label and "[unsloth]" in label[0] and "fused-chunks-loss" in label[0] and "ckpt" in label[0],
      "the row label names the stack and its choices", label[0] if label else out)

# Bad stacks: usage errors naming the part.
for bad, words in (("nosuch", "unknown stack 'nosuch'"), ("hf@x.1", "dotted numbers"), ("", "empty"),
                   ("hf,,trl", "empty")):
    rc, _, err = run(["estimate", "--config", LLAMA, "--offline", "--stack", bad])
    check(rc == 2 and words in err, "--stack %r: exit 2, %s" % (bad, words), "%d %s" % (rc, err.strip()))

# The time model's runtime follows the stack unless --runtime names one.
for stack, method, key, want in RUNTIMES:
    d, got = estimate(stack, method, [], LLAMA)
    check(d is not None and d["time"][key] == want, "--stack %s: the time model's %s is %s" % (stack, key, want),
          str(d["time"][key] if d else got))
d, _ = estimate("vllm", "inference", ["--runtime", "hf"], LLAMA)
check(d is not None and d["time"]["runtime"] == "hf", "--runtime beside the stack wins")

# The planner redoes the stack's choices over the layouts it tries: its
# answer is what estimate gives for that layout (the HF Trainer's "auto"
# ZeRO bucket and overlap_comm under a ZeRO layout, not DeepSpeed's own).
rc, out, err = run(["plan", "--config", LLAMA, "--offline", "--method", "full", "--gpu", "h100-sxm", "--json",
                    "--seq", "1024"])
fewest = json.loads(out)["classes"][0]["fewest"] if rc == 0 else None
if fewest:
    d, got = estimate(None, "full", ["--seq", "1024", "--gpus", str(fewest["gpus"]), "--sharding",
                                     fewest["sharding"], "--gpu", "h100-sxm"], LLAMA)
    check(d is not None and d["rows"][0]["estimate"]["device"] == fewest["device_bytes"],
          "plan's answer (%d x %s) is what estimate gives there" % (fewest["gpus"], fewest["sharding"]),
          "%s vs %s" % (d and d["rows"][0]["estimate"]["device"], fewest["device_bytes"]))
else:
    check(False, "plan --json answers for full fine-tuning on an H100", err.strip())

# The report sweeps stacks where the spec asks, per method; an axis or a
# fixed setting of the spec wins over the stack.
tmp = tempfile.mkdtemp(prefix="gs_t_stacks.")
spec = {"version": 1, "models": [os.path.join(TOP, LLAMA)], "gpus": ["t4", "h100-sxm"],
        "axes": {"method": ["lora", "inference"], "stack": {"lora": ["hf", "unsloth"]},
                 "seq": [2048], "attn": ["sdpa"]},
        "settings": {"lora-dropout": 0.1}, "formats": ["json"], "out": os.path.join(tmp, "out")}
with open(os.path.join(tmp, "spec.json"), "w") as f:
    json.dump(spec, f)
rc, out, err = run(["report", "--offline", "--spec", os.path.join(tmp, "spec.json")])
rows = []
if rc == 0:
    with open(os.path.join(tmp, "out", "sizing.json")) as f:
        rows = json.load(f)["rows"]
lora = {r["settings"]["stack"]: r for r in rows if r["settings"]["method"] == "lora"}
check(rc == 0 and set(lora) == {"hf", "unsloth"}, "the report sweeps the spec's stacks for LoRA",
      "%d %s %s" % (rc, err.strip(), sorted(lora)))
if set(lora) == {"hf", "unsloth"}:
    u, h = lora["unsloth"]["settings"], lora["hf"]["settings"]
    check(u["loss"] == "fused-chunks" and u["ckpt-offload"] is True and h["loss"] == "standard",
          "each row's settings are its stack's", "%s / %s" % (u["loss"], h["loss"]))
    check(u["lora-dropout"] == 0.1 and u["attn"] == "sdpa",
          "the spec's fixed setting and axis win over the stack (lora-dropout 0.1, attn sdpa)",
          "%s %s" % (u["lora-dropout"], u["attn"]))
    check(lora["unsloth"]["estimate"]["device"] < lora["hf"]["estimate"]["device"],
          "unsloth's row needs less memory than hf's (fused loss, offloaded checkpoints)")
inf = [r for r in rows if r["settings"]["method"] == "inference"]
check(len(inf) == 1 and inf[0]["settings"]["stack"] == "hf,trl", "a method the stack axis leaves out keeps the default")

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(check.status())
