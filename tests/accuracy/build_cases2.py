#!/usr/bin/env python3
"""Regenerate tests/accuracy/cases2.jsonl from the second calibration set.

    python3 tests/accuracy/build_cases2.py [PATH/calibration2.jsonl]

(default: tests/accuracy/calibration2.jsonl, the byte copy of
shared/measurements/calibration2.jsonl). The same rules as build_cases.py
(the first set): grade C records are left out; units converted to bytes
exactly (GiB 2^30, MiB 2^20, GB 1e9); the measured kind decides what is
compared (max_memory_allocated -> allocated, max_memory_reserved ->
reserved, nvidia-smi-like -> device); every input that had to be decided is
said in the case's "note"; a record whose framework, method, quantisation,
parallelism or model the engine has no flag or config for is "unsupported"
with the reason, never put on a near flag. Never changes a measured number.
Maintenance tool only: the tests read the committed cases2.jsonl.
Standard library only.
"""
import json
import os
import sys

from build_cases import strip  # noqa: E402 (one way to leave a flag to the stack)

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
DEFAULT_SRC = os.path.join(HERE, "calibration2.jsonl")
S2 = "tests/accuracy/models/set2/"
GB, GIB, MIB = 10**9, 2**30, 2**20

# ---------------------------------------------------------------- configs
# config id of a record -> file under models/set2/ (byte copies of
# shared/measurements/configs2/, provenance in models/set2/index.json).
COPIES = {
    "01-ai/Yi-34B": "01-ai--Yi-34B.json",
    "01-ai/Yi-34B-Chat": "01-ai--Yi-34B-Chat.json",
    "01-ai/Yi-6B-Chat": "01-ai--Yi-6B-Chat.json",
    "OpenBuddy/openbuddy-zephyr-7b-v14.1": "OpenBuddy--openbuddy-zephyr-7b-v14.1.json",
    "Qwen/Qwen2.5-14B": "Qwen--Qwen2.5-14B.json",
    "Qwen/Qwen3-0.6B": "Qwen--Qwen3-0.6B.json",
    "Qwen/Qwen3-1.7B": "Qwen--Qwen3-1.7B.json",
    "Qwen/Qwen3-4B": "Qwen--Qwen3-4B.json",
    "Qwen/Qwen3-8B": "Qwen--Qwen3-8B.json",
    "Qwen/Qwen3-8B-AWQ": "Qwen--Qwen3-8B-AWQ.json",
    "Qwen/Qwen3-8B-FP8": "Qwen--Qwen3-8B-FP8.json",
    "Qwen/Qwen3-14B": "Qwen--Qwen3-14B.json",
    "Qwen/Qwen3-32B": "Qwen--Qwen3-32B.json",
    "Qwen/Qwen3-32B-AWQ": "Qwen--Qwen3-32B-AWQ.json",
    "Qwen/Qwen3-30B-A3B": "Qwen--Qwen3-30B-A3B.json",
    "TinyLlama/TinyLlama-1.1B-Chat-v0.3": "TinyLlama--TinyLlama-1.1B-Chat-v0.3.json",
    "baichuan-inc/Baichuan2-7B-Chat": "baichuan-inc--Baichuan2-7B-Chat.json",
    "baichuan-inc/Baichuan2-13B-Chat": "baichuan-inc--Baichuan2-13B-Chat.json",
    "codellama/CodeLlama-34b-hf": "codellama--CodeLlama-34b-hf.json",
    "lmsys/vicuna-7b-v1.5": "lmsys--vicuna-7b-v1.5.json",
    "meta-llama/Llama-2-7b-hf": "meta-llama--Llama-2-7b-hf.json",
    "meta-llama/Llama-2-7b-chat-hf": "meta-llama--Llama-2-7b-chat-hf.json",
    "meta-llama/Llama-2-13b-chat-hf": "meta-llama--Llama-2-13b-chat-hf.json",
    "meta-llama/Llama-2-70b-hf": "meta-llama--Llama-2-70b-hf.json",
    "meta-llama/Llama-3.1-8B": "meta-llama--Llama-3.1-8B.json",
    "meta-llama/Meta-Llama-3-8B": "meta-llama--Meta-Llama-3-8B.json",
    "mistral-community/Mistral-7B-v0.2": "mistral-community--Mistral-7B-v0.2.json",
    "mistralai/Mistral-7B-Instruct-v0.1": "mistralai--Mistral-7B-Instruct-v0.1.json",
    "mistralai/Mixtral-8x7B-Instruct-v0.1": "mistralai--Mixtral-8x7B-Instruct-v0.1.json",
    "tiiuae/falcon-7b-instruct": "tiiuae--falcon-7b-instruct.json",
}
# Families with their own remote code: gpusizer's qwen and chatglm families
# read the copies as they are.
QWEN_V1 = {
    "Qwen/Qwen-1_8B-Chat": "Qwen--Qwen-1_8B-Chat.json",
    "Qwen/Qwen-7B-Chat": "Qwen--Qwen-7B-Chat.json",
    "Qwen/Qwen-7B-Chat-Int4": "Qwen--Qwen-7B-Chat-Int4.json",
    "Qwen/Qwen-7B-Chat-Int8": "Qwen--Qwen-7B-Chat-Int8.json",
    "Qwen/Qwen-14B-Chat": "Qwen--Qwen-14B-Chat.json",
    "Qwen/Qwen-14B-Chat-Int4": "Qwen--Qwen-14B-Chat-Int4.json",
    "Qwen/Qwen-14B-Chat-Int8": "Qwen--Qwen-14B-Chat-Int8.json",
    "Qwen/Qwen-72B-Chat": "Qwen--Qwen-72B-Chat.json",
    "Qwen/Qwen-72B-Chat-Int4": "Qwen--Qwen-72B-Chat-Int4.json",
    "Qwen/Qwen-72B-Chat-Int8": "Qwen--Qwen-72B-Chat-Int8.json",
}
CHATGLM = {
    "THUDM/chatglm3-6b": "THUDM--chatglm3-6b.json",
    "THUDM/glm-4-9b-chat": "THUDM--glm-4-9b-chat.json",
    "THUDM/glm-4-9b-chat-1m": "THUDM--glm-4-9b-chat-1m.json",
}
NOT_FOUND = {
    "deepseek-ai/deepseek-coder-33b-instruct": "no config: configs2/index.json marks deepseek-coder-33b-instruct "
                                               "not-found (no public copy of its config.json)",
    "mosaicml/mpt-7b-8k-chat": "no config: configs2/index.json marks mpt-7b-8k-chat not-found (and MPT, ALiBi "
                               "with its own attention, is not a gpusizer family)",
}
STANDIN_NOTE = {
    "01-ai/Yi-34B": "model: stand-in config (Yi-1.5-34B file, same shapes; configs2/index.json)",
    "01-ai/Yi-34B-Chat": "model: stand-in config (Yi-1.5-34B file, same shapes; configs2/index.json)",
    "01-ai/Yi-6B-Chat": "model: stand-in config (Yi-1.5-6B file, same shapes; configs2/index.json)",
    "OpenBuddy/openbuddy-zephyr-7b-v14.1": "model: stand-in config (Mistral-7B-v0.1; its vocab_size is not verified "
                                           "for OpenBuddy, whose record gives 7.30B params vs 7.24B)",
    "TinyLlama/TinyLlama-1.1B-Chat-v0.3": "model: stand-in config (TinyLlama-1.1B-Chat-v1.0; vocab_size not "
                                          "verified for v0.3)",
    "lmsys/vicuna-7b-v1.5": "model: stand-in config (Llama-2-7b shape; configs2/index.json)",
    "meta-llama/Llama-2-7b-chat-hf": "model: stand-in config (Llama-2-7b-hf; configs2/index.json)",
    "meta-llama/Llama-2-13b-chat-hf": "model: stand-in config (Llama-2-13b; configs2/index.json)",
    "mistral-community/Mistral-7B-v0.2": "model: stand-in config (configs2/index.json; the Answer.AI checkpoint "
                                         "itself is not named)",
    "mistralai/Mistral-7B-Instruct-v0.1": "model: stand-in config (Mistral-7B-v0.1; configs2/index.json)",
    "mistralai/Mixtral-8x7B-Instruct-v0.1": "model: stand-in config (configs2/index.json)",
    "baichuan-inc/Baichuan2-7B-Chat": "model: baichuan is no gpusizer family: sized as the generic LLaMA-style "
                                      "decoder (fused W_pack = q,k,v; counts agree with the record, -0.05%)",
    "baichuan-inc/Baichuan2-13B-Chat": "model: baichuan is no gpusizer family: sized as the generic LLaMA-style "
                                       "decoder (fused W_pack = q,k,v; ALiBi positions not modelled; -0.02%)",
}


def _write(name, cfg):
    out = os.path.join(HERE, "models", "set2", name)
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        json.dump(cfg, f, indent=2, ensure_ascii=False)
        f.write("\n")
    os.replace(out + ".tmp", out)
    return S2 + name


def _load(name):
    with open(os.path.join(HERE, "models", "set2", name), encoding="utf-8") as f:
        return json.load(f)


def config_of(cid):
    """(config path, model note) or (None, unsupported reason)."""
    if cid in COPIES:
        return S2 + COPIES[cid], STANDIN_NOTE.get(cid, "")
    if cid in QWEN_V1:
        return S2 + QWEN_V1[cid], (
            "model: Qwen v1 (model_type qwen): gpusizer's qwen family (fused c_attn with bias, w1/w2 "
            "intermediate_size/2 wide, untied head; 7,721,324,544 parameters for Qwen-7B, the published 7.72B)")
    if cid in CHATGLM:
        return S2 + CHATGLM[cid], (
            "model: ChatGLM3/GLM-4 (model_type chatglm): gpusizer's chatglm family (fused query_key_value of "
            "multi_query_group_num groups, fused dense_h_to_4h, untied output_layer)")
    if cid in NOT_FOUND:
        return None, NOT_FOUND[cid]
    raise SystemExit("config? " + cid)


# ---------------------------------------------------------------- records
def unit_bytes(r):
    u = r["measured_unit"]
    if u.startswith("GiB"):
        return GIB, ""
    if u.startswith("MiB"):
        return MIB, ("unit: 'MB' in the header is MiB (README-calibration2: checked against the Qwen3-30B-A3B weight "
                     "bytes)" if "header" in u else "")
    if u.startswith("GB (1e9)"):
        return GB, ""
    if u.startswith("GB as printed (swift computes GiB)"):
        return GIB, ("unit: swift prints GiB as 'GB'; an integer-rounded value (the true peak is within 0.5 GiB)")
    raise SystemExit("unit? %s %s" % (r["id"], u))


def compare_of(r):
    k = r["measured_kind"]
    if k.startswith("torch.cuda.max_memory_reserved") or k.startswith("torchtitan 'memory'"):
        return "reserved", ""
    if k.startswith("per-GPU memory (swift logs torch.cuda.max_memory_reserved"):
        return "reserved", "kind: swift logs torch.cuda.max_memory_reserved; the table's statistic is not stated"
    if k.startswith("GPU memory (assumed torch.cuda.max_memory_allocated)"):
        return "allocated", ("kind: allocated assumed (the Qwen team's published Qwen2.5 script reads "
                             "torch.cuda.max_memory_allocated; no Qwen3 script was published)")
    if k == "torch.cuda.max_memory_allocated" or k.startswith("torch.cuda.max_memory_allocated (Megatron"):
        return "allocated", ""
    if k.startswith("torch.cuda.max_memory_allocated summed"):
        return "allocated", ""
    if k.startswith("peak GPU memory (tool not stated; MiB integers suggest nvidia-smi)"):
        return "device", ("kind: nvidia-smi-like assumed (MiB integers; the CUDA context is included) -> device")
    raise SystemExit("kind? %s %s" % (r["id"], k))


def src_label(rid):
    for p, lab in (("swift-v1-", "ms-swift v1"), ("swift3-", "ms-swift 3.x"), ("qwen3-speed-", "Qwen3 speed"),
                   ("torchao-quant-", "torchao quant"), ("torchao-kvcache-", "torchao KV cache"),
                   ("torchao-float8-", "torchao float8"), ("autoawq-", "AutoAWQ"),
                   ("answerai-", "Answer.AI fsdp_qlora"), ("glm4-", "GLM-4"), ("megatron-", "Megatron-LM")):
        if rid.startswith(p):
            return lab
    raise SystemExit("source? " + rid)


SWIFT_NOTE = ("swift v1: samples of variable length, longest kept ~= max_length (--seq = max_length, so every "
              "step is sized at the longest); reserved includes fragmentation from the varying lengths")


def case(r):
    """Return (config path or None, args, notes, unsupported-reason or None)."""
    i = r["id"]
    notes = []
    # ---- things no flag expresses (checked before the model: the reason
    # that matters most is the run's own)
    if i.startswith("torchao-float8-"):
        return None, [], notes, (
            "checkpointing: torchtitan per-op selective activation checkpointing (saves matmul outputs, recomputes "
            "the rest) has no flag: --grad-ckpt (per layer) and --no-grad-ckpt both misstate the saved "
            "activations; also FSDP2 with fp32 sharded params and bf16 param_dtype is no --precision recipe")
    w = r["weight_dtype"]
    if i.startswith("torchao-quant-") and ("fp6" in w):
        return None, [], notes, ("quantisation: torchao fp6 (e3m2) weight-only has no --precision (6-bit storage)")
    if i.startswith("torchao-quant-") and w.startswith("int4 weight-only"):
        return None, [], notes, ("quantisation: torchao int4 weight-only (tinygemm, group 64, bf16 scales and zeros "
                                 "in its packed layout) has no --precision; gptq-int4/awq-int4 are group-128 "
                                 "formats with their own kernels")
    if "sum of both reported" in r["sharding"]:
        return None, [], notes, ("sharding: the value is the SUM of max_memory_allocated over 2 GPUs split by "
                                 "accelerate's device_map (not evenly); the engine gives one GPU's peak "
                                 "(--sharding pipeline splits evenly), so neither the sum nor the per-GPU share "
                                 "can be compared")
    cfg, mnote = config_of(r["config"])
    if cfg is None:
        return None, [], notes, mnote
    if mnote:
        notes.append(mnote)

    args = []
    method = r["method"]
    inference = method.startswith("inference")
    # ---- method / precision
    if inference:
        args += ["--method", "inference"]
        if w == "bf16" or w.startswith("bf16 weights; int8 KV cache"):
            prec = "bf16"
        elif w.startswith("fp8 (block-wise"):
            prec = "fp8"
            notes.append("precision: Qwen3 FP8 checkpoint (e4m3 weights, 128x128 block scales) -> fp8 storage")
        elif w.startswith("int4 AWQ"):
            prec = "awq-int4"
            if r["compute_dtype"] == "fp16":
                notes.append("precision: AWQ 4-bit, group 128, fp16 compute (same bytes as the bf16 the engine "
                             "assumes)")
        elif w.startswith("int8 weight-only") or w.startswith("int8 weights + dynamic int8"):
            prec = "int8"
            notes.append("precision: torchao int8 weights with per-channel scales -> int8 storage (1 byte + a per-row "
                         "scale)" + ("; activations quantised dynamically per step" if "dynamic" in w else ""))
        elif w.startswith("float8"):
            prec = "fp8"
            notes.append("precision: torchao float8 e4m3 weights -> fp8 storage" +
                         ("; activations quantised dynamically per row" if "dynamic" in w else ""))
        else:
            raise SystemExit("inference precision? " + i)
        args += ["--precision", prec]
    elif method.startswith("full"):
        args += ["--method", "full"]
        if w == "bf16" and r["optimizer"].startswith("adamw (torch adamw_torch, foreach; states in bf16"):
            args += ["--precision", "bf16", "--loss-dtype", "fp32"]
            notes.append("precision: model loaded in bf16 and trained in place: weights, grads and AdamW states "
                         "bf16 -> bf16; the HF Trainer's bf16=True runs the step under autocast, whose "
                         "cross_entropy is fp32 though Qwen v1's head hands it bf16 logits -> --loss-dtype fp32")
        elif w.startswith("bf16 (DeepSpeed bf16: fp32 master weights"):
            args += ["--precision", "mixed-bf16"]
            notes.append("precision: DeepSpeed bf16 (bf16 weights and grads, fp32 master + fp32 Adam, sharded) -> "
                         "mixed-bf16")
        else:
            raise SystemExit("full precision? " + i)
    else:
        lm = "qlora" if method.startswith("qlora") else "lora"
        args += ["--method", lm]
        if w == "bf16":
            prec = "bf16"
        elif w.startswith("int4 GPTQ"):
            prec = "gptq-int4"
        elif w.startswith("int8 GPTQ"):
            prec = "gptq-int8"
        elif w.startswith("nf4 + double quant"):
            prec = "nf4-dq"
        elif w.startswith("nf4 (bnb Linear4bit"):
            prec = "nf4"
            notes.append("precision: bnb Linear4bit nf4 with quant_storage bf16 (same bytes as uint8 storage) -> "
                         "nf4 as the record says")
        else:
            raise SystemExit("lora precision? " + i)
        if prec.startswith("gptq"):
            notes.append("precision: Qwen GPTQ checkpoint (auto_gptq 0.5.1), fp16 compute; group size not stated "
                         "(the engine assumes 128)")
        args += ["--precision", prec]
        if prec.startswith("nf4"):
            args += ["--bnb-saves", "input"]
            notes.append("bitsandbytes: before 0.43.2 (the runs date from %s), so MatMul4Bit keeps its input on "
                         "ctx -> --bnb-saves input" % ("2024-03" if i.startswith("answerai-") else "2024-01"))
            if i.startswith("answerai-"):
                notes.append("checkpointing: the benchmark template passes --reentrant_checkpointing True, so "
                             "the checkpointed forward builds no graph and each recomputed layer's ctx inputs go "
                             "after its backward")
        if i.startswith("answerai-"):
            args += ["--adapter-dtype", "bf16"]
            notes.append("adapters: fsdp_qlora train.py casts the whole model, LoRA included, to bf16")
            if prec.startswith("nf4"):
                args += ["--kbit-prep", "off"]
                notes.append("k-bit preparation: off (train.py builds its Linear4bit layers and never calls "
                             "PEFT's prepare_model_for_kbit_training; everything stays bf16, its ddp rows too)")
        elif prec == "nf4-dq":
            notes.append("k-bit preparation: auto (on: one GPU); that swift v1's sft.py runs PEFT's "
                         "prepare_model_for_kbit_training, casting embeddings, norms and head to fp32, is "
                         "assumed, as HF/PEFT QLoRA recipes do")
        if not i.startswith("answerai-"):
            args += ["--adapter-dtype", "fp32"]
            notes.append("adapters: PEFT default fp32 (as the first set's HF/PEFT records)")
        args += ["--lora-r", str(r["lora_r"])]
        t = r["lora_targets"]
        if t.startswith(("c_attn", "query_key_value")):
            targets = t.split(" ")[0]
            notes.append("targets: LoRA on the fused qkv module (%s), as swift's DEFAULT names it" % targets)
        elif t.startswith(("W_pack", "q_proj,k_proj,v_proj (swift")):
            targets = "q_proj,k_proj,v_proj"
            if not t.startswith("q_proj"):
                notes.append("targets: LoRA on the fused qkv (%s) -> q_proj,k_proj,v_proj (the fused module's "
                             "adapter is r x h + 3h x r, the three separate ones 3 x (r x h + h x r); at r %d a "
                             "few MB)" % (t.split(" ")[0], r["lora_r"]))
        elif t.startswith("ALL linear"):
            targets = "all-linear"
            notes.append("targets: swift ALL on Qwen v1 (c_attn, attn.c_proj, w1, w2, mlp.c_proj) -> all-linear")
        elif t.startswith("q_proj,k_proj,v_proj,up_proj,down_proj,gate_proj"):
            targets = "q_proj,k_proj,v_proj,up_proj,down_proj,gate_proj"
        else:
            raise SystemExit("targets? " + i + " " + t)
        args += ["--lora-targets", targets]
        drop = "0.1" if i.startswith("answerai-") else "0.05"
        args += ["--lora-dropout", drop]

    # ---- optimizer
    if not inference:
        o = r["optimizer"]
        if o.startswith("AdamW (DeepSpeed/HF"):
            args += ["--optimizer", "adamw-fused"]
            notes.append("optimizer: DeepSpeed's own AdamW step over the fp32 partition (no torch foreach "
                         "temporaries) -> adamw-fused")
        elif o.lower().startswith("adamw"):
            args += ["--optimizer", "adamw"]
        else:
            raise SystemExit("optimizer? " + i)

    # ---- shape
    b = r["batch"] or 1
    seq = r["seq_len"]
    new = 0
    if isinstance(seq, str):
        s = seq
        if "prompt + 2048 generated (= " in s:
            seq, new = int(s.split(" ")[0]), 2048
            notes.append("seq: the prompt, --new-tokens 2048 (min_length forces the full length): the prefill "
                         "at the prompt, the KV cache reaching prompt + 2048")
        elif "prompt + up to 512 generated" in s:
            seq, new = int(s.split(" ")[0]), 512
            notes.append("seq: the prompt, --new-tokens 512 (greedy; EOS may stop earlier, so the KV length is "
                         "at most prompt + 512)")
        elif s.startswith("~6-token prompt + 200 new tokens"):
            seq = 208
            notes.append("seq: gpt-fast sizes its static KV cache for prompt + max_new_tokens = 206 rounded up to a "
                         "multiple of 8 = 208; the real prefill is ~6 tokens (a few MB less than --seq 208 sizes)")
        elif s.startswith("cache_size "):
            cache = int(s.split(" ")[1])
            seq, new = 6, cache - 6
            notes.append("seq: generate.py --cache_size N preallocates the cache for N positions and decode "
                         "attends over all N (masked), while a ~6-token prompt and 200 new tokens run -> "
                         "--seq 6 --new-tokens N-6 with a static cache: the cache, its mask and each step's "
                         "attention are sized at N")
        elif "prefill + " in s and "(cache window " in s:
            seq = int(s.split("(cache window ")[1].rstrip(")"))
            notes.append("seq: AutoAWQ's fused WindowedCache holds n_generate positions; the prefill is n_generate "
                         "tokens -> --seq n_generate (the peak is never reset between rounds; the largest is the "
                         "last)")
        else:
            raise SystemExit("seq? " + i + " " + s)
    args += ["--batch", str(b), "--seq", str(seq)]
    if new:
        args += ["--new-tokens", str(new)]
    with open(os.path.join(TOP, cfg), encoding="utf-8") as f:
        c = json.load(f)
    # the context gpusizer reads: max_position_embeddings, else (Qwen v1,
    # ChatGLM) seq_length
    maxpos = c.get("max_position_embeddings", c.get("seq_length"))
    if maxpos and seq + new > maxpos:
        args += ["--allow-long-context"]
        notes.append("seq: %d is past the config's context of %d, but the run processed it (%s) -> "
                     "--allow-long-context" % (seq + new, maxpos, "Qwen v1 dynamic NTK + logn attention"
                                               if r["config"] in QWEN_V1 else "RoPE past its trained length"))
    if inference:
        if i.startswith(("torchao-quant-", "autoawq-")):
            args += ["--logits", "all"]
            notes.append("logits: " + ("gpt-fast's forward projects every input position" if i.startswith("torchao")
                                       else "AutoAWQ's benchmark calls model(input_ids) for the prefill, every "
                                            "position's logits") + " -> --logits all")
        else:
            notes.append("logits: only the last position's logits in the prefill (%s) -> last" % (
                "transformers 4.51.3 generate" if i.startswith("qwen3") else "GLM-4 remote code return_last_logit"))
        if i.startswith("autoawq-"):
            args += ["--awq-fuse"]
            notes.append("load: every round calls from_quantized(fuse_layers=True), and the peak is never reset, so "
                         "the fuser's moment with every layer's q, k and v held twice (its module list keeps the "
                         "unfused ones until the last layer is fused) is in every row -> --awq-fuse")
        if i.startswith("torchao-kvcache-"):
            if "int8kv" in i:
                args += ["--kv-cache", "static", "--kv-dtype", "int8"]
                notes.append("cache: --kv_cache_quantization: AffineQuantizedKVCache, int8 keys and values with a "
                             "bf16 scale per token and head, read through a bf16 copy of the layer -> --kv-dtype "
                             "int8; --linear_causal_mask keeps a [1, 1, 1, N] mask (N bytes), no square buffer "
                             "-> --kv-cache static")
            else:
                args += ["--kv-cache", "static-mask"]
                notes.append("cache: setup_caches preallocates KVCache buffers for N positions and a [N, N] bool "
                             "causal_mask = tril(ones(N, N)) on the GPU -> --kv-cache static-mask")
        if i.startswith("glm4-"):
            args += ["--kv-cache", "legacy"]
            notes.append("cache: GLM-4's remote code (modeling_chatglm.py, SelfAttention.forward) builds each "
                         "layer's cache by torch.cat((cache_k, key_layer)) and returns the tuple while the caller "
                         "holds the previous step's -> --kv-cache legacy")
    accum = r["grad_accum"]
    if not inference and accum and accum > 1:
        args += ["--grad-accum", str(accum)]
    if not inference:
        gc = r["grad_ckpt"]
        args += ["--grad-ckpt"] if gc is True or str(gc).startswith("True") else ["--no-grad-ckpt"]
        if gc is not True and gc is not False and not str(gc).startswith("True"):
            raise SystemExit("ckpt? " + i)

    # ---- attention
    a = r["attn_impl"]
    if a.startswith(("qwen v1 remote code + flash_attn", "flash_attention_2")):
        attn = "flash"
    elif a.startswith("eager/non-flash"):
        attn = "eager"
        notes.append("attn: Qwen v1 remote code without flash-attn computes the full score matrix -> eager")
    elif a.startswith("baichuan2 remote code (ALiBi"):
        attn = "eager"
        notes.append("attn: Baichuan2-13B's remote code materialises the ALiBi bias and the scores -> eager")
    elif a.startswith("baichuan2 remote code (xformers"):
        attn = "sdpa"
        notes.append("attn: Baichuan2-7B's remote code uses xformers memory-efficient attention (installed: "
                     "xformers 0.0.23) -> sdpa (q, k, v, out and a log-sum-exp saved, no score matrix)")
    elif a.startswith("torch SDPA with explicit bool mask (gpt-fast model.py), eager"):
        attn = "math"
        notes.append("attn: decode_n_tokens runs every step under sdp_kernel(enable_flash=False, "
                     "enable_mem_efficient=False, enable_math=True) without torch.compile, so SDPA's math backend "
                     "(PyTorch 2.5: fp32 copies of the expanded k and v, a scaled fp32 k) runs over the whole "
                     "cache -> math (the ~6-token prefill, outside that context, is negligible either way)")
    elif a.startswith(("chatglm3 remote code (torch SDPA", "GLM-4 remote code default (torch SDPA", "sdpa",
                       "torch SDPA")):
        attn = "sdpa"
    elif a.startswith("AutoAWQ fused attention"):
        attn = "eager-upcast"
        notes.append("attn: AutoAWQ's QuantAttentionFused prefill computes matmul scores itself (no "
                     "SDPA/flash kernel) and F.softmax(scores.float()).type_as(xq) (awq/modules/fused/"
                     "attn.py): the 16-bit scores, their fp32 copy and the fp32 softmax live together "
                     "-> eager-upcast")
    else:
        raise SystemExit("attn? " + i + " " + a)
    args += ["--attn", attn]
    if not inference:
        # transformers before 4.46 (LlamaForCausalLM, MistralForCausalLM)
        # and ChatGLM's remote code return logits.float() and take the
        # loss on a shifted fp32 copy; Qwen v1's and Baichuan's heads pass
        # their 16-bit logits; swift 3.x runs transformers >= 4.46
        legacy = None
        if i.startswith("answerai-"):
            legacy = "fsdp_qlora of 2024-03 (transformers 4.38-era LlamaForCausalLM/MistralForCausalLM)"
        elif i.startswith("swift-v1-") and r["config"].startswith(("01-ai/", "OpenBuddy/", "THUDM/")):
            legacy = ("swift v1 of 2024-01 (transformers 4.36: LlamaForCausalLM/MistralForCausalLM)"
                      if not r["config"].startswith("THUDM/") else
                      "ChatGLM's remote code (lm_logits.to(torch.float32) before the shift)")
        if legacy:
            args += ["--loss", "legacy"]
            notes.append("loss: %s returns logits.float() and takes the loss on a shifted fp32 copy -> legacy"
                         % legacy)
        else:
            args += ["--loss", "standard"]

    # ---- GPUs
    g = r["n_gpus"] or 1
    sh = r["sharding"]
    if g > 1:
        args += ["--gpus", str(g)]
        if sh.startswith("FSDP FULL_SHARD"):
            args += ["--sharding", "fsdp"]
            notes.append("sharding: FSDP1 FULL_SHARD -> fsdp")
        elif sh.startswith("FSDP NO_SHARD"):
            args += ["--sharding", "ddp"]
            notes.append("sharding: FSDP NO_SHARD (every GPU keeps whole weights and gradients) -> ddp")
        elif sh.startswith("DeepSpeed ZeRO-3"):
            args += ["--sharding", "zero3", "--zero-bucket", "0"]
            notes.append("sharding: DeepSpeed ZeRO-3 through ms-swift's ds_config/zero3.json, reduce_bucket_size "
                         "\"auto\" (the HF Trainer fills hidden_size^2) -> --zero-bucket 0; its overlap_comm true "
                         "keeps one stage-3 bucket")
        else:
            raise SystemExit("sharding? " + i + " " + sh)
    if r["offload"].startswith("FSDP CPUOffload(offload_params=True)"):
        args += ["--offload", "params"]
        notes.append("offload: FSDP CPU offload of params, grads and optimizer states -> --offload params")
    elif r["offload"] != "none":
        raise SystemExit("offload? " + i)
    if i.startswith("swift-v1-"):
        notes.append(SWIFT_NOTE)
    if i.startswith("torchao-quant-"):
        notes.append("torchao: --compile (reduce-overhead) CUDA-graph pools count in reserved; the weights were "
                     "loaded in bf16 and quantised in place before the peak reset (cached blocks stay reserved)"
                     if "int" in w or "float8" in w else
                     "torchao: --compile (reduce-overhead) CUDA-graph pools count in reserved")
    if i.startswith("swift3-"):
        notes.append("swift3: packed to 8192 tokens (flash-attn varlen); the peak includes evaluation every 200 steps")
    return cfg, args, notes, None


# ---------------------------------------------------------------- stacks
# As in build_cases.py: each record's --stack from the framework and release
# it states; the flags of STACKED are left to it, except the record's own
# facts (which stay, with the reason).
STACKED = {"--adapter-dtype", "--loss", "--bnb-saves", "--kbit-prep", "--logits", "--lora-dropout", "--kv-cache",
           "--awq-fuse", "--loss-dtype", "--zero-bucket", "--attn", "--precision"}


def stack_of(r, args, notes):
    """The record's stack, and the stacked flags it keeps as facts."""
    i = r["id"]
    keep = {"--precision", "--attn"}  # the record's, unless said below
    if i.startswith("swift-v1-"):
        stack = "hf@4.36,ms-swift@1.5,bitsandbytes@0.42"
        notes.append("stack: ms-swift v1 of 2024-01 (commit %s) over transformers 4.36 and a bitsandbytes before "
                     "0.43.2 (0.42 stands for them: the profile changes at 0.43.2 only) -> %s" % (r["commit"][:9], stack))
    elif i.startswith("swift3-"):
        stack = "hf@4.49,ms-swift@3.2,deepspeed"
        keep = {"--attn"}
        notes.append("stack: ms-swift 3.2 (2025-03, transformers 4.49) under DeepSpeed ZeRO-3 with its zero3.json "
                     "-> %s (bf16 engine: mixed-bf16; the Trainer's \"auto\" bucket)" % stack)
    elif i.startswith("qwen3-speed-"):
        stack = "hf@4.51.3"
        notes.append("stack: transformers 4.51.3, as the record states -> hf@4.51.3")
    elif i.startswith("torchao-"):
        stack = "gpt-fast"
        keep |= {"--kv-cache"} if "int8kv" in i else set()
        notes.append("stack: torchao's _models/llama/generate.py, gpt-fast's -> gpt-fast%s" % (
            " (its --linear_causal_mask run keeps no square mask: --kv-cache static kept)" if "int8kv" in i else ""))
    elif i.startswith("autoawq-"):
        stack = "autoawq"
        keep = {"--precision", "--logits"}
        notes.append("stack: AutoAWQ -> autoawq (the benchmark's own model(input_ids) prefill keeps --logits all)")
    elif i.startswith("answerai-"):
        stack = "hf@4.38,fsdp-qlora,bitsandbytes@0.43.0"
        keep |= {"--lora-dropout"}
        notes.append("stack: Answer.AI's train.py of 2024-03 over transformers 4.38 and bitsandbytes 0.43.0 (the first "
                     "with quant_storage, which FSDP-QLoRA needs) -> %s; its lora_dropout 0.1 kept" % stack)
    elif i.startswith("glm4-"):
        stack = "hf"
        notes.append("stack: transformers with GLM-4's remote code (its tuple cache and last-position logits are the "
                     "family's, whatever the release) -> hf")
    else:
        raise SystemExit("stack? " + i)
    return stack, strip(args, STACKED - keep)


def method_of(label):
    for m in ("inference", "qlora", "lora", "full"):
        if label.startswith(m):
            return m
    raise SystemExit("method? " + label)


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_SRC
    out = []
    with open(src, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r["grade"] not in ("A", "B"):
                continue
            per, unote = unit_bytes(r)
            mb = int(round(r["measured_value"] * per))
            compare, knote = compare_of(r)
            cfg, args, notes, unsup = case(r)
            stack = None
            if not unsup:
                stack, args = stack_of(r, args, notes)
            head = [n for n in (knote, unote) if n]
            notes = head + notes
            if r["grade"] == "B":
                notes.append("grade B; record notes: " + r["notes"][:300])
            out.append({
                "id": r["id"], "grade": r["grade"], "method": method_of(r["method"]),
                "model": cfg if not unsup else None, "args": args if not unsup else [], "stack": stack,
                "compare": compare, "measured_bytes": mb, "bound": None,
                "unsupported": unsup, "note": "; ".join(notes),
            })
    path = os.path.join(HERE, "cases2.jsonl")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        for c in out:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    os.replace(path + ".tmp", path)
    n_uns = sum(1 for c in out if c["unsupported"])
    print("%d A/B cases, %d unsupported (%.1f%%)" % (len(out), n_uns, 100.0 * n_uns / len(out)))


if __name__ == "__main__":
    main()
