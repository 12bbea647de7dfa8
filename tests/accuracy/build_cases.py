#!/usr/bin/env python3
"""Regenerate tests/accuracy/cases.jsonl from the calibration data.

    python3 tests/accuracy/build_cases.py [PATH/calibration.jsonl]

(default: ../shared/measurements/calibration.jsonl next to the repository).
Maintenance tool only: the tests read the committed cases.jsonl and never
this script or the shared data. Every mapping decision is written here, once,
and copied into the case's "note" so that each row says how its inputs were
chosen. Grade C records are left out (README of the measurements: do not fit
to them). Standard library only.
"""
import functools
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
DEFAULT_SRC = os.path.join(os.path.dirname(TOP), "shared", "measurements", "calibration.jsonl")

GB, GIB, MIB = 10**9, 2**30, 2**20

# ---------------------------------------------------------------- models
# model field of a record -> (config path relative to the repo root, or None
# for the manual shape), manual flags, and a note on where the shape comes from.
R = "models/"                      # the 17 reference configs (models/<slug>/config.json)
A = "tests/accuracy/models/"       # configs found for this suite (SOURCES.md)
LITGPT_CFG = ("Lightning-AI/litgpt litgpt/config.py @0006c973aa7d6ace293e2a5fedaf1f8f804f960c")

MODELS = {
    "microsoft/phi-1_5": (A + "microsoft--phi-1_5.config.json", None, ""),
    "microsoft/phi-2": (A + "microsoft--phi-2.config.json", None, ""),
    "meta-llama/Llama-2-7b-hf": (A + "meta-llama--Llama-2-7b-hf.config.json", None, ""),
    "meta-llama/Llama-2-13b-hf": (A + "meta-llama--Llama-2-13b-hf.config.json", None, ""),
    "meta-llama/Llama-2-70b-hf": (A + "meta-llama--Llama-2-70b-hf.config.json", None, ""),
    "meta-llama/Llama-2-70b-chat-hf": (A + "meta-llama--Llama-2-70b-hf.config.json", None,
        "model: Llama-2-70b-hf config stands in for -chat-hf (same architecture; the chat model is a fine-tune)"),
    "meta-llama/Meta-Llama-3-8B": (A + "meta-llama--Meta-Llama-3-8B.config.json", None, ""),
    "meta-llama/Meta-Llama-3-8B-Instruct": (A + "meta-llama--Meta-Llama-3-8B.config.json", None,
        "model: Meta-Llama-3-8B config stands in for -Instruct (same architecture)"),
    "meta-llama/Meta-Llama-3.1-8B": (R + "meta-llama--Llama-3.1-8B/config.json", None, ""),
    "meta-llama/Llama-3.1-8B": (R + "meta-llama--Llama-3.1-8B/config.json", None, ""),
    "meta-llama/Llama-3.1-70B": (R + "meta-llama--Llama-3.1-70B/config.json", None, ""),
    "meta-llama/Llama-3.2-1B": (R + "meta-llama--Llama-3.2-1B/config.json", None, ""),
    "meta-llama/Llama-3.2-3B": (R + "meta-llama--Llama-3.2-3B/config.json", None, ""),
    "mistralai/Mistral-7B-v0.1": (R + "mistralai--Mistral-7B-v0.1/config.json", None, ""),
    "mistralai/Mistral-7B-v0.2 (unsloth/mistral-7b-v0.2)": (R + "mistralai--Mistral-7B-v0.1/config.json", None,
        "model: Mistral-7B-v0.1 config stands in for v0.2: " + LITGPT_CFG +
        " gives v0.2 the v0.1 shapes (32 layers, 8 KV groups, 14336 MLP, vocab 32000); only RoPE base/window differ"),
    "microsoft/Phi-3-mini-4k-instruct": (R + "microsoft--Phi-3-mini-4k-instruct/config.json", None, ""),
    "TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T": (R + "TinyLlama--TinyLlama-1.1B-Chat-v1.0/config.json", None,
        "model: TinyLlama-1.1B-Chat-v1.0 config stands in for the intermediate-step-1431k-3T base: " + LITGPT_CFG +
        " uses one shape for both (22 layers, 32 heads, 4 KV groups, 2048, 5632, vocab 32000)"),
    "google/gemma-2b": (A + "google--gemma-2b.config.json", None, ""),
    "google/gemma-7b": (A + "google--gemma-7b.config.json", None, ""),
    "google/gemma-2-2b": (A + "google--gemma-2-2b.config.json", None, ""),
    "google/gemma-2-9b": (R + "google--gemma-2-9b/config.json", None, ""),
    "codellama/CodeLlama-34b-hf": (A + "codellama--CodeLlama-34b-hf.config.json", None, ""),
    "tiiuae/falcon-7b": (A + "tiiuae--falcon-7b.config.json", None,
        "model: a falcon-7b-instruct config dump stands in for falcon-7b (same architecture per " + LITGPT_CFG +
        "; multi_query=true with new_decoder_architecture=false means ONE KV head although the dump says num_kv_heads 71)"),
    "google-bert/bert-large-uncased (AutoModelForSequenceClassification, 2 labels)":
        (A + "google-bert--bert-large-uncased.config.json", None,
         "model: bert-large-uncased config (BertForMaskedLM heads in the file; the run used a 2-label classifier, "
         "a 2,050-parameter head)"),
    "EleutherAI/gpt-j-6B": (A + "EleutherAI--gpt-j-6B.config.json", None,
        "model: EleutherAI gpt-j-6B config (gptj family)"),
    # Manual shapes from the framework that actually ran the measurement.
    "stabilityai/stablelm-base-alpha-3b": (A + "stabilityai--stablelm-base-alpha-3b-litgpt.config.json", None,
        "model: no Hub config.json found; a gpt_neox config written from " + LITGPT_CFG + " (litgpt ran every "
        "StableLM record): n_layer 16, n_head 32, n_embd 4096, vocab 50254 padded to 50688, GptNeoxMLP 4*n_embd, "
        "parallel residual, LayerNorm, biases, rotary 0.25, untied head; it tallies 3,637,321,728 parameters "
        "(records say 3.64e9)"),
    "tiiuae/falcon-40b": (None,
        ["--params", "41835970560", "--layers", "60", "--hidden", "8192", "--heads", "128",
         "--kv-heads", "8", "--vocab", "65024"],
        "model: no verified config.json found; shape from " + LITGPT_CFG + " (litgpt ran every Falcon-40B record): "
        "n_layer 60, n_head 128, n_query_groups 8, n_embd 8192, vocab 65024, plain 4*n_embd MLP, no biases, "
        "two LayerNorms per block, untied head; --params 41,835,970,560 = that tally (records say 41.8e9); "
        "--intermediate left out (see the StableLM note)"),
    "meta-llama/Llama-3.1-405B": (None,
        ["--params", "405853388800", "--layers", "126", "--hidden", "16384", "--heads", "128",
         "--kv-heads", "8", "--intermediate", "53248", "--vocab", "128256"],
        "model: no verified config.json found; shape from torchtune's llama3_1_405b builder (code index file "
        "625096414: vocab 128256, 126 layers, 128 heads, 8 KV heads, embed 16384, intermediate 53248, untied "
        "output); --params = the LLaMA tally of that shape"),
}
UNSUPPORTED_MODELS = {
    "bigcode/octocoder": "no verified config (octocoder / StarCoder gpt_bigcode config.json not found in any "
                         "public copy reachable from this project)",
}

# LoRA module names per family for target lists that are not a preset.
ALL = {"llama": "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj",
       "phi": "q_proj,k_proj,v_proj,dense,fc1,fc2",
       "phi3": "qkv_proj,o_proj,gate_up_proj,down_proj"}
FAMILY = {"microsoft/phi-2": "phi", "microsoft/Phi-3-mini-4k-instruct": "phi3"}


def family(model):
    return FAMILY.get(model, "llama")


def method_of(label):
    """full, lora, qlora, inference, or the record's own label (adapters)."""
    for m in ("inference", "qlora", "lora", "full"):
        if label.startswith(m):
            return m
    return label.split(" (")[0]


def unit_bytes(unit):
    u = unit.lower()
    if u.startswith("gib") or "likely gib" in u:
        return GIB
    if u.startswith("mib"):
        return MIB
    if u.startswith("gb"):
        return GB
    raise SystemExit("unknown unit: " + unit)


def compare_of(r):
    k = r["measured_kind"].lower()
    if k.startswith("oom_lower_bound"):
        return "device", "OOM: one-sided check, predicted device must reach the GPU capacity"
    if k.startswith("torch.cuda.max_memory_reserved"):
        return "reserved", ""
    if "nvml" in k or "nvidia-smi" in k:
        return "device", "NVML used memory = CUDA context + reserved"
    if "peak_memory_active" in k:
        return "allocated", ("kind: torch active_bytes peak mapped to allocated (active counts the same "
                             "allocated blocks, minus ones awaiting a cross-stream free; one stream here)")
    if "max_memory_allocated" in k:
        return "allocated", ""
    if "torchtune peak memory" in k:
        return "allocated", ("kind: torchtune 'peak memory' of unstated kind mapped to allocated "
                             "(torchtune logs peak_memory_alloc/active/reserved; alloc/active assumed)")
    raise SystemExit("unknown kind: " + r["measured_kind"])


# Records whose stated inputs cannot be what ran: the measurement is below
# what the stated shape needs for weights plus saved activations alone, by
# about 2x, so the real (unrecorded) sequence length must have been much
# shorter (unpacked Alpaca, padded per batch). Kept out of the error figures.
INCONSISTENT = {
    "torchtune-readme-llama2-7b-lora-2x4090": (
        "inputs unknown: 4 x 2048 tokens without checkpointing: the engine predicts ~37 GiB of saved activations alone "
        "(LoRA q,v on Llama-2-7B), against 15.1 GiB measured; the record says padding/packing is undocumented, "
        "so seq 2048 is only a maximum and the real length is not known"),
    "torchtune-readme-llama2-70b-lora-8xa100": (
        "inputs unknown: 4 x 4096 tokens on Llama-2-70B: the engine predicts about twice the 24.6 GiB measured per GPU; "
        "the record says padding/packing is undocumented, so seq 4096 is only a maximum"),
}


# ---------------------------------------------------------------- stacks
# Each record's --stack, from the framework and release the record states
# (never chosen for the number; `gpusizer list stacks` gives each profile's
# choices and the code they follow). The flags of STACKED are the stacks'
# conventions: a case leaves them to its stack, except where the record's
# own facts say otherwise (then the flag stays, with the reason). The
# record's facts (method, precision, batch, length, LoRA rank and targets,
# optimizer, checkpointing, attention, GPUs) stay flags.
STACKED = {"--adapter-dtype", "--loss", "--fused-qkv", "--held-logits", "--bnb-saves", "--logits",
           "--lora-dropout", "--sharding"}
# the flags that take no value (both sets' cases)
BOOLS = {"--fused-qkv", "--held-logits", "--no-held-logits", "--grad-ckpt", "--no-grad-ckpt", "--compile",
         "--optimizer-in-bwd", "--train-embeddings", "--allow-long-context", "--awq-fuse", "--overlap-comm"}


def flag(args, name):
    """The value of flag name in args (True for a boolean), or None."""
    for i, a in enumerate(args):
        if a == name:
            return True if a in BOOLS else args[i + 1]
    return None


def strip(args, names):
    """args without the flags named (and their values)."""
    out, i = [], 0
    while i < len(args):
        if args[i] in names:
            i += 1 if args[i] in BOOLS else 2
            continue
        out.append(args[i])
        i += 1
    return out


def torchtune_release(src):
    """The torchtune release of a record's date (releases: 0.1.0 2024-04-16,
    0.2.0 2024-07, 0.3.0 2024-09, 0.4.0 2024-11)."""
    for pr, rel in (("PR #2003", "0.4"), ("PR #1664", "0.3"), ("PR #955", "0.1"), ("PR #961", "0.1"),
                    ("2024-04", "0.1")):
        if pr in src:
            return rel
    raise SystemExit("torchtune release? " + src[:80])


def stack_of(r, args, notes):
    """The record's stack and its args: the stacked flags left to the stack,
    with the record's own exceptions kept."""
    src, method = r["source"], r["method"]
    training = not method.startswith("inference")
    keep = set()
    if src.startswith("Lightning-AI/litgpt"):
        stack = "litgpt"
        if "bitsandbytes 0.41.1" in src:
            stack += ",bitsandbytes@0.41.1"
            notes.append("stack: litgpt (lit-gpt of 2023, commit 8641822) over the bitsandbytes 0.41.1 the record "
                         "names -> litgpt,bitsandbytes@0.41.1")
        elif "config_hub" in src:
            stack += ",bitsandbytes@0.42"
            notes.append("stack: litgpt's config-hub benchmarks of 2024-04..09 over a bitsandbytes before 0.43.2 "
                         "(litgpt issue #1767: Lightning's plugin allowed no later release until 2024-10; 0.42 "
                         "stands for them, the profile changes at 0.43.2 only) -> litgpt,bitsandbytes@0.42")
        else:
            notes.append("stack: litgpt (the tutorial's lit-gpt of 2023)")
        if training and "config_hub" not in src:
            args = args + ["--no-held-logits"]
        if flag(args, "--sharding") in ("pipeline",) or flag(args, "--tp"):
            keep.add("--sharding")
    elif src.startswith("pytorch/torchtune"):
        rel = torchtune_release(src)
        stack = "torchtune@" + rel
        notes.append("stack: torchtune %s (the record's date) -> torchtune@%s" % (rel, rel))
        chunked_by_release = rel >= "0.3"
        if training and (flag(args, "--loss") == "chunked") != chunked_by_release:
            keep.add("--loss")
            notes.append("loss: the record's own (%s), not its release's configs' default" % flag(args, "--loss"))
    elif src.startswith("huggingface/transformers docs 'Efficient Training"):
        stack = "hf@4.26"
        notes.append("stack: the HF Trainer of the docs' v4.2x era (v4.26 quoted) -> hf@4.26 (BERT has no causal head: "
                     "the loss convention does not apply)")
    elif src.startswith("huggingface/accelerate"):
        stack = "hf@4.20"
        notes.append("stack: transformers of accelerate's 2022 big-model benchmark (4.2x: every choice of the hf "
                     "profile is the same from 4.20 to 4.35) -> hf@4.20")
    elif src.startswith("meta-llama/llama-recipes"):
        stack = "hf@4.31"
        keep.add("--lora-dropout")
        notes.append("stack: llama-recipes @2e768b1 (2023-08/09) requires transformers >= 4.31 for Llama 2 -> "
                     "hf@4.31 (its own loop and torch AdamW; lora_dropout 0.05 is its peft config's, kept)")
    else:
        raise SystemExit("stack? " + r["id"])
    return stack, strip(args, STACKED - keep)


def case(r):
    """Return (args, notes, unsupported-reason or None)."""
    i, m = r["id"], r["model"]
    notes = []
    if i in INCONSISTENT:
        return [], notes, INCONSISTENT[i]
    if m in UNSUPPORTED_MODELS:
        return [], notes, UNSUPPORTED_MODELS[m]
    method = r["method"]
    if method.startswith("llama-adapter"):
        return [], notes, ("method: litgpt LLaMA-Adapter (prefix/gating PEFT) is not LoRA; no --method "
                           "expresses adapter prompts")
    if "device_map='auto' naive pipeline" in r["sharding"]:
        return [], notes, ("sharding: accelerate's device_map='auto' fills each GPU up to its max_memory in turn "
                           "(here 21.5 and 18 GB), not evenly; --sharding pipeline splits the layers evenly")
    opt = r["optimizer"] or ""
    in_bwd = "optimizer_in_bwd" in opt or "optimizer_in_bwd=True" in (r["notes"] or "")

    args = []
    cfg, manual, mnote = MODELS[m]
    if mnote:
        notes.append(mnote)

    # ---- method / precision / adapters
    w = r["weight_dtype"]
    src = r["source"]
    litgpt = src.startswith("Lightning-AI/litgpt")
    torchtune = src.startswith("pytorch/torchtune")
    if method.startswith("inference"):
        args += ["--method", "inference"]
        if litgpt:
            args += ["--logits", "all"]
            notes.append("logits: litgpt's generate() runs the prompt through model(x, input_pos) and keeps "
                         "every position's logits -> --logits all")
        if w == "bf16":
            prec = "bf16"
        elif w == "fp16":
            prec = "fp16"
        elif w.startswith("fp32"):
            prec = "fp32"
            if "autocast" in w:
                prec = "amp-bf16"
                notes.append("precision: litgpt bf16-mixed keeps fp32 weights under bf16 autocast -> amp-bf16 "
                             "(autocast caches a bf16 copy of each linear weight for the forward)")
        elif w == "nf4":
            prec = "nf4"
        elif w.startswith("nf4 + double"):
            prec = "nf4-dq"
        elif w == "fp4":
            prec = "nf4"
            notes.append("precision: bnb fp4 mapped to nf4 (same storage: 4-bit codes + one fp32 absmax per 64)")
        elif w.startswith("int8"):
            prec = "int8"
        else:
            raise SystemExit("precision? " + i)
        args += ["--precision", fabric_prec(prec, litgpt, notes)]
    elif method == "full":
        args += ["--method", "full"]
        if w == "bf16":
            args += ["--precision", "bf16"]
            notes.append("precision: pure bf16 (weights, grads and AdamW states bf16: litgpt bf16-true / "
                         "torchtune dtype bf16)")
        elif w == "fp32" and r["compute_dtype"] == "fp32":
            args += ["--precision", "fp32"]
        elif w == "fp32" and r["compute_dtype"].startswith("fp16 AMP"):
            args += ["--precision", "amp-fp16"]
        else:
            raise SystemExit("full precision? " + i)
    else:  # lora / qlora / lora on int8
        lm = "qlora" if (method == "qlora") else "lora"
        args += ["--method", lm]
        if w == "bf16":
            prec = "bf16"
        elif w.startswith("fp32"):
            prec = "fp32"
            if "autocast" in w or "bf16-mixed" in (r["notes"] or "") or "autocast" in (r["compute_dtype"] or ""):
                prec = "amp-bf16"
                notes.append("precision: litgpt bf16-mixed: fp32 base weights and fp32 LoRA params under bf16 "
                             "autocast -> amp-bf16 with fp32 adapters")
        elif w == "nf4":
            prec = "nf4"
        elif w.startswith("nf4 + double"):
            prec = "nf4-dq"
        elif w.startswith("nf4 (torchao)"):
            prec = "nf4-torchao"
            notes.append("precision: torchao NF4 (block 64, scalers re-quantized per 256 blocks; its linear_nf4 "
                         "saves no input) -> nf4-torchao")
        elif w.startswith("int8"):
            prec = "int8"
            notes.append("precision: LLM.int8 linear weights; prepare_model_for_int8_training casts the rest "
                         "(embeddings, norms, head) to fp32: --kbit-prep auto (on, one GPU) models it")
        else:
            raise SystemExit("lora precision? " + i)
        args += ["--precision", fabric_prec(prec, litgpt, notes)]
        if prec in ("nf4", "nf4-dq"):
            args += ["--bnb-saves", "input"]
            if "config_hub" in src:
                notes.append("bitsandbytes: before 0.43.2 (litgpt issue #1767, 2024-10: Lightning's bitsandbytes "
                             "plugin allowed no later release until then), so MatMul4Bit keeps its input on ctx "
                             "-> --bnb-saves input")
            else:
                notes.append("bitsandbytes: the record's 0.41.1, before 0.43.2: MatMul4Bit keeps its input on "
                             "ctx -> --bnb-saves input")
        if litgpt or torchtune:
            args += ["--adapter-dtype", "bf16" if prec not in ("fp32", "amp-bf16") else "fp32"]
            notes.append("adapters: " + ("litgpt" if litgpt else "torchtune") + " keeps LoRA params at the model dtype")
        else:
            args += ["--adapter-dtype", "fp32"]
            notes.append("adapters: PEFT default fp32")
        args += ["--lora-r", str(r["lora_r"])]
        t = r["lora_targets"] or ""
        fam = family(m)
        if t.startswith("q,v") or t.startswith("q_proj,v_proj ("):
            targets = "qv"
            if "fused" in t:
                notes.append("targets: litgpt LoRA on the query and value slices of the fused qkv -> qv")
            if "assumed" in t:
                notes.append("targets: litgpt defaults of late 2023 (r 8, q+v) assumed by the record")
        elif t.startswith("q,k,v,o(proj),mlp(all),lm_head"):
            targets = ALL[fam] + ",lm_head"
            notes.append("targets: litgpt lora_query/key/value/projection/mlp/head all true -> every linear + lm_head")
        elif t.startswith("q,k,v,o + MLP + output"):
            targets = ALL[fam] + ",lm_head"
        elif t.startswith("q,k,v,o + MLP") or t.startswith("q_proj,v_proj,k_proj,output_proj + MLP"):
            targets = "all-linear"
        elif t.startswith("q_proj,k_proj,v_proj"):
            targets = "q_proj,k_proj,v_proj"
        else:
            raise SystemExit("targets? " + i + " " + t)
        args += ["--lora-targets", targets]
        if litgpt:
            args += ["--lora-dropout", "0.05"]
        else:
            args += ["--lora-dropout", "0"] if torchtune else ["--lora-dropout", "0.05"]
            if torchtune:
                notes.append("dropout: torchtune LoRA configs use lora_dropout 0.0")
            else:
                notes.append("dropout: llama-recipes LoRA default 0.05")

    # ---- optimizer
    if not method.startswith("inference"):
        o = opt.lower()
        if "paged adamw 32-bit" in o:
            optim = "paged-adamw-32bit"
        elif "paged adamw 8-bit" in o:
            optim = "paged-adamw-8bit"
        elif "adafactor" in o:
            optim = "adafactor"
        elif "8-bit" in o or "8bit" in o:
            optim = "adamw-8bit"
            if "adam 8-bit" in o:
                notes.append("optimizer: bnb Adam8bit -> adamw-8bit (same two 8-bit states)")
        elif "fused" in o:
            optim = "adamw-fused"
        elif "adamw_hf" in o:
            optim = "adamw-fused"
            notes.append("optimizer: transformers' own AdamW (adamw_hf) loops over parameters with in-place "
                         "updates, so its temporaries are one tensor at a time, not torch's multi-tensor "
                         "sqrt buffer -> adamw-fused (no full-size step temporary)")
        elif o.startswith("adamw"):
            optim = "adamw"
        else:
            raise SystemExit("optimizer? " + i + " " + opt)
        args += ["--optimizer", optim]
        if in_bwd:
            args += ["--optimizer-in-bwd"]
            notes.append("optimizer_in_bwd: torchtune steps each parameter inside backward -> --optimizer-in-bwd")

    # ---- shape of the step
    b = r["batch"] if r["batch"] else 1
    seq = r["seq_len"]
    if isinstance(seq, str):
        s = seq
        if s.startswith("<=512"):
            seq = 512
            notes.append("seq: alpaca_cleaned truncated at 512 and padded per batch; the peak batch assumed to "
                         "reach 512")
        elif s.startswith("prompt 'Hello, my name is' (~6 tok) + 50"):
            seq = 56
            notes.append("seq: ~6 prompt tokens + 50 new (litgpt generate defaults, per the record); the KV "
                         "cache is sized to prompt + max_new_tokens")
        elif s.startswith("prompt 'Hello, my name is' (CLI default) + 256"):
            seq = 262
            notes.append("seq: ~6 prompt tokens + 256 new; KV cache sized to prompt + max_new_tokens")
        elif s.startswith("prompt 'What food do llamas eat?'"):
            seq = 265
            notes.append("seq: ~9 prompt tokens + 256 new; 2 samples run one after another -> batch 1")
        elif s.startswith("prompt + 100 new tokens"):
            seq = 150
            notes.append("seq: alpaca-template prompt (~50 tokens) + 100 new, assumed")
        elif s.startswith("short prompts (<=8 tokens) + generate() default max_length 20"):
            seq = 20
            notes.append("seq: generate() default max_length 20")
        else:
            raise SystemExit("seq? " + i + " " + s)
    if seq is None:  # BERT load-only
        seq = 1
        notes.append("shape: weights loaded, no forward; sized as inference of 1 token (activations ~0)")
    args += ["--batch", str(b), "--seq", str(seq)]
    accum = r["grad_accum"]
    hub = hub_batches(r) if accum is None else None
    if hub:
        g, per_step = hub
        accum = g // per_step
        notes.append("accumulation: the config's global_batch_size %d over %d GPU(s) x micro-batch %d -> "
                     "--grad-accum %d (gradients live across micro-batches)"
                     % (g, r["n_gpus"] or 1, r["batch"], accum))
    if accum and accum > 1 and not method.startswith("inference") and not in_bwd:
        args += ["--grad-accum", str(accum)]
    if not method.startswith("inference"):
        args += ["--grad-ckpt"] if r["grad_ckpt"] else ["--no-grad-ckpt"]
    attn = "eager" if r["attn_impl"].startswith("eager") else "sdpa"
    if litgpt and attn == "sdpa" and softcapped(r["model"]):
        attn = "eager"
        notes.append("attn: litgpt computes soft-capped attention by hand (q @ k.mT, tanh cap, fp32 softmax, "
                     "@ v: model.py 'with softcapping we cannot use SDPA') -> eager")
    if litgpt and attn == "sdpa" and not method.startswith("inference") and \
            "tutorials/prepare_dataset.md" in src and r["model"] == "tiiuae/falcon-7b":
        attn = "math-legacy"
        notes.append("attn: the mid-2023 lit-gpt of this tutorial expanded keys and values only when "
                     "n_query_groups != 1, so Falcon-7B's one key/value head reached SDPA against 71 query heads; "
                     "PyTorch 2.0/2.1's fused kernels refuse unequal head counts (sdp_utils "
                     "check_batch_size_and_num_heads) and SDPA runs its math path, 16-bit scores -> math-legacy")
    args += ["--attn", attn]

    # ---- loss
    if not method.startswith("inference"):
        n = r["notes"]
        chunked = False
        if litgpt:
            chunked = True
            if method == "full":
                notes.append("loss: litgpt full.py computes chunked_cross_entropy over full bf16 logits (128-row "
                             "chunks) -> chunked")
            else:
                notes.append("loss: litgpt LoRA scripts run model(..., lm_head_chunk_size=128) + "
                             "chunked_cross_entropy -> chunked")
        elif torchtune:
            if "chunked CE=True" in n or "chunked CE" in n and "chunked CE=False" not in n:
                chunked = True
            elif src.startswith("pytorch/torchtune README.md 'Memory and training speed'"):
                chunked = True
                notes.append("loss: torchtune configs of 2024-09 use CEWithChunkedOutputLoss (assumed where the "
                             "record does not say)")
        args += ["--loss", "chunked" if chunked else "standard"]
        if litgpt:
            args += ["--fused-qkv"]
            notes.append("attention: litgpt's CausalSelfAttention runs q, k and v as one linear for every model "
                         "(its LoRA as one LoRAQKVLinear, zero-padded unless q, k and v all train) -> --fused-qkv")
            if "config_hub" in src:
                args += ["--held-logits"]
                notes.append("loop: litgpt's fit() binds `logits = model(...)` and keeps it until the next "
                             "micro-batch's forward returns; shuffled Alpaca2k batches, two in a row near 512 "
                             "tokens -> --held-logits")
            else:
                notes.append("loop: lit-gpt of 2023 holds `logits` into the next iteration too, but its "
                             "get_batch forces the longest sample into iteration 1, which has no earlier "
                             "micro-batch, and the random ones after are shorter -> no --held-logits")
        if torchtune and ("compile on" in n or "compile=True" in n or "torch compile" in src):
            args += ["--compile"]
            notes.append("torch.compile on -> --compile (fused norms and gated activations save less)")

    # ---- GPUs
    g = r["n_gpus"]
    sh = r["sharding"]
    if g and g > 1:
        args += ["--gpus", str(g)]
        if sh.startswith("FSDP"):
            if torchtune:
                args += ["--sharding", "fsdp2"]
                notes.append("sharding: torchtune shards per parameter (FSDP2 since mid-2024; before, FSDP1 with "
                             "its LoRA wrap policy putting adapters in their own units): frozen weights get no "
                             "gradients -> fsdp2")
            else:
                args += ["--sharding", "fsdp"]
            if litgpt:
                args += ["--state-dict-load", "full"]
                notes.append("sharding: litgpt FSDP runs measure full weights + shard per GPU (Lightning loads the "
                             "full state dict on every rank; memory still grows with the micro-batch) -> "
                             "--state-dict-load full")
        elif sh.startswith("generate_sequentially"):
            args += ["--sharding", "pipeline"]
            notes.append("sharding: litgpt generate_sequentially splits the blocks in order over the GPUs -> "
                         "--sharding pipeline (the most loaded GPU, bounded as holding embedding and head; "
                         "the record reports device 0, which holds the embedding)")
        elif sh.startswith("generate_tp"):
            args += ["--tp", str(g)]
            notes.append("sharding: litgpt generate_tp shards MLP and QKV over the GPUs -> --tp")
        else:
            raise SystemExit("sharding? " + i + " " + sh)
    if r["offload"] == "activation offloading to CPU":
        args += ["--offload", "activations"]
        notes.append("offload: torchtune enable_activation_offloading moves each layer's saved tensors to the "
                     "host (the output layer and loss stay) -> --offload activations")
    elif r["offload"].startswith("FSDP CPU offload"):
        args += ["--offload", "params"]
        notes.append("offload: FSDP CPU offload of params, grads and optimizer states -> --offload params")
    elif r["offload"].startswith("paged optimizer"):
        pass  # only with optimizer_in_bwd, unsupported above

    if litgpt and tied_config(m):
        notes.append("model: litgpt's GPT always has its own lm_head beside wte (model.py; its finetune "
                     "scripts never tie them) -> the untied variant of the config")
    if cfg is None:
        args = manual + args
    return args, notes, None


def stacked_case(r):
    """(args, stack, notes, unsupported) with the record's stack."""
    args, notes, unsup = case(r)
    if unsup:
        return args, None, notes, unsup
    stack, args = stack_of(r, args, notes)
    return args, stack, notes, None


FABRIC_NOTE = ("precision: litgpt quantizes through Lightning Fabric's BitsandbytesPrecision, which replaces every "
               "nn.Linear (the head too) and quantizes from fp16 (weight.to(dtype=torch.half)), so each matmul "
               "dequantizes to fp16 and casts to bf16 -> the -litgpt variant")


def fabric_prec(prec, litgpt, notes):
    if litgpt and prec in ("nf4", "nf4-dq"):
        notes.append(FABRIC_NOTE)
        return prec + "-litgpt"
    return prec


# litgpt config_hub/finetune/<model>/<method>.yaml: train.global_batch_size
# (Lightning-AI/litgpt, read 2026-12-01; the stored versions agree where
# several were compared, except a fork's mistral-7b/qlora with devices 2 and
# gemma-2b/full's older devices 1 / global 6, both set aside for the
# upstream layout matching the benchmark table's GPU count). litgpt
# accumulates global / (devices * micro_batch_size) micro-batches, keeping
# the gradients live across them.
HUB_GLOBAL_BATCH = {
    "falcon-7b/lora.yaml": 8, "falcon-7b/qlora.yaml": 8,
    "gemma-2b/full.yaml": 16, "gemma-2b/lora.yaml": 6, "gemma-2b/qlora.yaml": 6,
    "gemma-7b/lora.yaml": 6, "gemma-7b/qlora.yaml": 6,
    "gemma2-2b/lora.yaml": 6, "gemma2-2b/qlora.yaml": 6,
    "gemma2-9b/lora.yaml": 6, "gemma2-9b/qlora.yaml": 6,
    "llama-2-7b/lora.yaml": 8, "llama-2-7b/qlora.yaml": 8, "llama-2-7b/full.yaml": 64,
    "llama-3-8b/lora.yaml": 8, "llama-3-8b/qlora.yaml": 8,
    "llama-3.1-8b/lora.yaml": 8, "llama-3.1-8b/qlora.yaml": 8,
    "llama-3.2-1B/lora.yaml": 8, "llama-3.2-1B/qlora.yaml": 8,
    "llama-3.2-3B/lora.yaml": 8, "llama-3.2-3B/qlora.yaml": 8,
    "mistral-7b-v0.2/lora.yaml": 8, "mistral-7b-v0.2/qlora.yaml": 8,
    "mistral-7b/lora.yaml": 8, "mistral-7b/qlora.yaml": 8,
    "phi-2/lora.yaml": 8, "phi-2/qlora.yaml": 8, "phi-3/lora.yaml": 8, "phi-3/qlora.yaml": 8,
    "stablelm-base-alpha-3b/lora.yaml": 8, "stablelm-base-alpha-3b/qlora.yaml": 8,
    "tiny-llama/full.yaml": 32, "tiny-llama/lora.yaml": 8, "tiny-llama/qlora.yaml": 8,
}


def hub_batches(r):
    """(global batch, samples per micro-step) of a litgpt config-hub
    benchmark, or None for other records."""
    if not r["id"].startswith("litgpt-hub-"):
        return None
    g = HUB_GLOBAL_BATCH[r["quote"].split("|")[1].strip()]
    per_step = r["batch"] * (r["n_gpus"] or 1)
    if g % per_step:
        raise SystemExit("accumulation? " + r["id"])
    return g, per_step


@functools.lru_cache(maxsize=None)
def load_config(model):
    path = MODELS[model][0]
    if path is None:
        return None
    with open(os.path.join(TOP, path), encoding="utf-8") as f:
        return json.load(f)


def tied_config(model):
    """Does the model's config tie the head to the embedding? An absent key
    takes the family's default as src/config.c reads it (tied for Gemma and
    Falcon, untied for the LLaMA family and Phi)."""
    cfg = load_config(model)
    if cfg is None:
        return False
    default = cfg.get("model_type") in ("gemma", "gemma2", "gemma3_text", "falcon")
    return bool(cfg.get("tie_word_embeddings", default))


def softcapped(model):
    cfg = load_config(model)
    return bool(cfg and cfg.get("attn_logit_softcapping"))


def litgpt_untied(path):
    """Write (once, deterministically) the config with tie_word_embeddings
    false next to the accuracy configs and return its path."""
    with open(os.path.join(TOP, path), encoding="utf-8") as f:
        cfg = json.load(f)
    cfg["tie_word_embeddings"] = False
    base = os.path.basename(path)
    if base == "config.json":  # models/<slug>/config.json
        base = os.path.basename(os.path.dirname(path)) + ".config.json"
    name = base.replace(".config.json", "-litgpt-untied.config.json")
    out = os.path.join(HERE, "models", name)
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        json.dump(cfg, f, indent=2, ensure_ascii=False)
        f.write("\n")
    os.replace(out + ".tmp", out)
    return A + name


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_SRC
    out = []
    with open(src, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r["grade"] not in ("A", "B"):
                continue
            unit = r["measured_unit"]
            mb = int(round(r["measured_value"] * unit_bytes(unit)))
            compare, knote = compare_of(r)
            bound = "lower" if "lower bound" in unit.lower() else None
            args, stack, notes, unsup = stacked_case(r)
            if knote:
                notes.insert(0, knote)
            if "likely GiB" in unit:
                notes.append("unit: 'GB' printed from a MiB measurement -> GiB (per the record)")
            if "truncated" in unit:
                notes.append("unit: integer GiB truncated by the logger; the true peak is up to 1 GiB higher")
            if r["grade"] == "B":
                notes.append("grade B; record notes: " + r["notes"][:300])
            cfg = None
            if not unsup:
                cfg = MODELS[r["model"]][0]
                if cfg and r["source"].startswith("Lightning-AI/litgpt") and tied_config(r["model"]):
                    cfg = litgpt_untied(cfg)
            out.append({
                "id": r["id"], "grade": r["grade"], "method": method_of(r["method"]),
                "model": cfg, "args": args if not unsup else [], "stack": stack,
                "compare": compare, "measured_bytes": mb, "bound": bound,
                "unsupported": unsup, "note": "; ".join(notes),
            })
    path = os.path.join(HERE, "cases.jsonl")
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        for c in out:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    os.replace(tmp, path)
    n_uns = sum(1 for c in out if c["unsupported"])
    print("%d A/B cases, %d unsupported (%.1f%%)" % (len(out), n_uns, 100.0 * n_uns / len(out)))


if __name__ == "__main__":
    main()
