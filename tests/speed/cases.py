"""Map the records of speed.jsonl to the time model's inputs (tests/speed/driver).

Each supported record becomes one driver line (id, model, gpu, runtime,
weight bytes, settings) and a way to read the measured value off the
driver's output; every other record gets the reason it is unsupported.

Models: a config.json from models/, tests/fixtures/models-reference/ (copies
of ../shared/models-reference/) or the second
calibration set's tests/accuracy/models/set2/ where one
is committed (`cfg:`), else a shape of our own from the record's `params`
and the architecture's published layers/hidden/heads/kv-heads/vocab
(`manual:`, gs_arch_manual: a LLaMA-style decoder whose MLP width is solved
from the parameter count). SHAPES says which records use which.
"""
import json
import os
import re

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# A copy of the project's ../shared/measurements/speed.jsonl (t_speed_accuracy
# checks it against the original where that is present).
SPEED = os.path.join(TOP, "tests", "speed", "speed.jsonl")
REF = os.path.join(TOP, "tests", "fixtures", "models-reference")
SET2 = os.path.join(TOP, "tests", "accuracy", "models", "set2")

# Configs committed in models/ (or the reference set), by a substring of the record's `config`.
CONFIGS = [
    ("Qwen/Qwen3-30B-A3B", "Qwen--Qwen3-30B-A3B"),
    ("Mixtral-8x7B", "mistralai--Mixtral-8x7B-v0.1"),
    ("Mistral-7B", "mistralai--Mistral-7B-v0.1"),
    ("Llama-3.2-3B", "meta-llama--Llama-3.2-3B"),
    ("Llama-3.1-8B", "meta-llama--Llama-3.1-8B"),
    ("Llama-3.1-70B", "meta-llama--Llama-3.1-70B"),
    ("TinyLlama", "TinyLlama--TinyLlama-1.1B-Chat-v1.0"),
    # the second calibration set's configs (tests/accuracy/models/set2, with provenance)
    ("Qwen/Qwen3-0.6B", "Qwen--Qwen3-0.6B"),
    ("Qwen/Qwen3-1.7B", "Qwen--Qwen3-1.7B"),
    ("Qwen/Qwen3-4B", "Qwen--Qwen3-4B"),
    ("Qwen/Qwen3-8B", "Qwen--Qwen3-8B"),
    ("Qwen/Qwen3-14B", "Qwen--Qwen3-14B"),
    ("Qwen/Qwen3-32B", "Qwen--Qwen3-32B"),
]

# Own shapes: (layers, hidden, heads, kv_heads, vocab), the MLP solved from params.
# Published architectures (the model cards / config.json of each family).
SHAPES = [
    ("Llama-3.3-70B", (80, 8192, 64, 8, 128256)),
    ("Meta-Llama-3-70B", (80, 8192, 64, 8, 128256)),
    ("Meta-Llama-3.1-70B", (80, 8192, 64, 8, 128256)),
    ("Meta-Llama-3-8B", (32, 4096, 32, 8, 128256)),
    ("Meta-Llama-3.1-8B", (32, 4096, 32, 8, 128256)),
    ("Llama-3.1-405B", (126, 16384, 128, 8, 128256)),
    ("Llama-2-70b", (80, 8192, 64, 8, 32000)),
    ("Llama-2-13b", (40, 5120, 40, 40, 32000)),
    ("Llama-2-7b", (32, 4096, 32, 32, 32000)),
    ("vicuna-7b", (32, 4096, 32, 32, 32000)),
    ("CodeLlama-34b", (48, 8192, 64, 8, 32000)),
    ("Yi-34B", (60, 7168, 56, 8, 64000)),
    ("gpt-j-6b", (28, 4096, 16, 16, 50400)),
    ("mpt-125m", (12, 768, 12, 12, 50368)),
    ("mpt-350m", (24, 1024, 16, 16, 50368)),
    ("mpt-760m", (24, 1536, 12, 12, 50368)),
    ("mpt-1b", (24, 2048, 16, 16, 50368)),
    ("mpt-3b", (32, 2560, 20, 20, 50368)),
    ("mpt-7b", (32, 4096, 32, 32, 50368)),
    ("mpt-13b", (40, 5120, 40, 40, 50368)),
    ("mpt-30b", (48, 7168, 64, 64, 50368)),
    ("mpt-70b", (80, 8192, 64, 64, 50368)),
    ("GPT3 175B", (96, 12288, 96, 96, 51200)),
    ("gpt3_175B", (96, 12288, 96, 96, 51200)),
    ("GPT3 20B", (44, 6144, 48, 48, 51200)),
    ("GPT3 5B", (24, 4096, 32, 32, 51200)),
    ("Nemotron 8B", (32, 4096, 32, 32, 256000)),
    ("Nemotron 22B", (40, 6144, 48, 48, 256000)),
    ("Nemotron-4-340B", (96, 18432, 96, 8, 256000)),
]

GPUS = {
    "H100 (SXM or n/s)": "h100-sxm",
    "A100-80GB": "a100-80gb",
    "A100-40GB": "a100-40gb",
    "RTX 4090": "rtx-4090",
    "RTX 3090": "rtx-3090",
    "L40S": "l40s",
    "H100 PCIe": "h100-pcie",          # tests/speed/gpus/
    "A100-80GB PCIe": "a100-80gb-pcie",  # tests/speed/gpus/
    "H20": "h20",                      # tests/speed/gpus/
}


def model_spec(r):
    cfg = r["config"] or ""
    for key, d in CONFIGS:
        if key.lower() in cfg.lower():
            for base in (os.path.join(TOP, "models", d, "config.json"), os.path.join(REF, d + ".config.json"),
                         os.path.join(SET2, d + ".json")):
                if os.path.exists(base):
                    return "cfg:" + os.path.relpath(base, TOP), None
    for key, (L, h, H, kv, V) in SHAPES:
        if key.lower() in cfg.lower():
            if not r.get("params"):
                return None, "no parameter count"
            return "manual:%d,%d,%d,%d,%d,0,%d" % (int(r["params"]), L, h, H, kv, V), None
    return None, "no config in models/ or models-reference/ and no shape of our own (MoE or unlisted architecture)"


def degrees(par):
    tp = re.search(r"\bTP (\d+)", par or "")
    pp = re.search(r"\bPP (\d+)", par or "")
    cp = re.search(r"\bCP (\d+)", par or "")
    return (int(tp.group(1)) if tp else 1), (int(pp.group(1)) if pp else 1), (int(cp.group(1)) if cp else 1)


def runtime(r):
    fw = (r.get("framework") or "") + " " + (r.get("source_key") or "")
    if "llama.cpp" in fw:
        return "llama.cpp"
    if "gpt-fast" in fw or "torchao" in fw:
        return "compiled"
    if "AutoAWQ" in fw:
        return "autoawq"  # fuse_layers=True in its own loop, not transformers generate()
    if "TensorRT" in fw or "vLLM" in fw or "SGLang" in fw or "llm-compressor" in fw:
        return "serving"
    return "hf"


def inference_precision(r):
    w = (r.get("weight_dtype") or "").lower()
    if "gguf" in w:
        return "fp16"
    if "awq" in w:
        return "awq-int4"
    if "int4" in w:
        return "gptq-int4"
    if "int8" in w:
        return "gptq-int8" if "activation" not in w else "int8"
    if "fp8" in w or "float8" in w:
        return "fp8"
    if "fp6" in w:
        return None
    return "bf16"


def gguf_bytes(r):
    m = re.search(r"([\d.]+) GiB", r.get("weight_dtype") or "")
    return float(m.group(1)) * 2 ** 30 if m else 0.0


def train_case(r):
    n = int(r["n_gpus"] or 1)
    tp, pp, cp = degrees(r.get("parallelism"))
    if cp > 1:
        return None, "context parallelism not modelled"
    par = (r.get("parallelism") or "").lower()
    if "offload" in par and "offload false" not in par:
        return None, "CPU offload (PCIe transfers) not modelled"
    seq = int(r["seq_len"])
    b = int(r["batch"] or 1)
    model_par = tp * pp  # pipeline stages counted as model-parallel GPUs (no bubble modelled)
    if n % model_par:
        return None, "GPU count not a multiple of TP x PP"
    dp = n // model_par
    gb = r.get("global_batch") or b * dp
    ga = max(1, round(gb / (b * dp)))
    task = r["task"]
    method = {"train_full": "full", "train_lora": "lora", "train_qlora": "qlora"}[task]
    comp = (r.get("compute_dtype") or "").lower()
    if method == "full":
        prec = "fp8-mixed" if ("fp8" in comp or "float8" in comp) else "amp-bf16"
    elif method == "lora":
        prec = "fp8" if ("fp8" in comp or "float8" in comp) else "bf16"
    else:
        prec = "nf4"
    ck = (r.get("grad_ckpt") or "").lower()
    ckpt = "true" if ck.startswith("full") else "false"
    if "ddp" in par and "fsdp in ddp" in par:
        shard = "ddp"
    elif "distributed optimizer" in (r.get("weight_dtype") or "") + par or "nemo" in (r.get("source_key") or "").lower():
        shard = "zero1"
    elif "shard_grad_op" in par:
        shard = "zero2"
    elif "fsdp" in par or "zero" in par:
        shard = "fsdp"
    else:
        shard = "ddp"
    if n == 1:
        shard = "ddp"
    st = ["method=" + method, "precision=" + prec, "batch=%d" % b, "seq=%d" % seq, "grad-accum=%d" % ga,
          "grad-ckpt=" + ckpt, "attn=flash", "gpus=%d" % n, "sharding=" + shard, "tp=%d" % model_par]
    if method != "full":
        st += ["lora-r=%d" % int(r.get("lora_r") or 16), "lora-targets=" + ("all-linear" if (r.get("lora_targets") or "").lower().startswith("all") or "gate" in (r.get("lora_targets") or "") else "qv")]
    if method == "full" and model_par > 1 and n == model_par:
        st[-2] = "sharding=ddp"
    metric = r["metric"]
    if metric == "tokens_per_s_per_gpu":
        read = lambda o: o["tok_s_gpu"]
    elif metric == "step_time_s":
        read = lambda o: o["step_s"]
    elif metric == "mfu":
        read = lambda o: o["mfu"] * 100 if r["value"] > 1 else o["mfu"]
    elif metric == "time_to_train" and "1024 samples" in (r.get("metric_def") or ""):
        read = lambda o: 1024 * seq / o["tok_s_total"]
    else:
        return None, "metric %s (%s) not expressible" % (metric, (r.get("metric_def") or "")[:60])
    return (method, st, read, train_runtime(r)), None


def train_runtime(r):
    """The training stack: Megatron-Core (Megatron-LM, NeMo 24.07's Megatron-Core
    recipes, Megatron-Bridge) or a PyTorch loop (everything else, NeMo-Automodel
    included: it trains with PyTorch's own FSDP2, not Megatron-Core)."""
    fw = (r.get("framework") or "").lower()
    return "megatron" if "megatron" in fw else "pytorch"


def infer_case(r):
    p = int(r.get("prompt_tokens") or 0)
    g = int(r.get("gen_tokens") or 0)
    b = int(r["batch"] or 1)
    n = int(r["n_gpus"] or 1)
    rt = runtime(r)
    prec = inference_precision(r)
    if prec is None:
        return None, "weight format %s not modelled" % r.get("weight_dtype")
    if rt == "hf" and re.search(r"-a\d+b|moe|mixtral", (r.get("config") or "").lower()):
        return None, "transformers' MoE block loops over every expert with a host sync: not modelled"
    tp = n
    par = (r.get("parallelism") or "").lower()
    if "layer split" in par:
        tp = 1  # llama.cpp's layer split runs the layers one GPU after the other
        n_gpus = 1
    else:
        n_gpus = n
    metric, task, md = r["metric"], r["task"], r.get("metric_def") or ""
    st = ["method=inference", "precision=" + prec, "batch=%d" % b, "seq=%d" % max(1, p),
          "new-tokens=%d" % g, "gpus=%d" % n_gpus, "tp=%d" % tp, "attn=flash"]
    if n_gpus > 1:
        st.append("sharding=ddp")
    if task == "prefill" and metric == "prefill_tokens_per_s":
        read = lambda o: b * max(1, p) / o["prefill_s"]
    elif task == "prefill" and metric == "ttft_ms":
        read = lambda o: (o["prefill_s"] + o["decode_step_s"]) * 1000
    elif task == "decode" and metric == "decode_tokens_per_s":
        if "wall time of generate" in md:
            read = lambda o: g / o["generate_s"]
        else:
            read = lambda o: o["decode_tok_s_total"]
    elif task == "generate_end_to_end" and metric == "tokens_per_s_per_gpu" and "OSL" in md:
        read = lambda o: b * g / o["generate_s"] / n
    elif task == "generate_end_to_end" and metric == "tokens_per_s_total" and "prompt tokens + 2048" in md:
        read = lambda o: (p + g) / o["generate_s"]
    else:
        return None, "metric %s (%s) not expressible" % (metric, md[:60])
    return ("inference", st, read, rt), None


def load(path=SPEED):
    return [json.loads(line) for line in open(path) if line.strip()]


def build(records):
    """[(record, driver line, read)] and [(record, reason)]."""
    ok, bad = [], []
    for r in records:
        if r["grade"] not in ("A", "B"):
            continue
        gpu = GPUS.get(r.get("gpu_class"))
        if gpu is None:
            bad.append((r, "no GPU file for %s" % r.get("gpu_class")))
            continue
        spec, why = model_spec(r)
        if spec is None:
            bad.append((r, why))
            continue
        if r["task"].startswith("train"):
            c, why = train_case(r)
        else:
            c, why = infer_case(r)
        if c is None:
            bad.append((r, why))
            continue
        method, st, read, rt = c
        wb = gguf_bytes(r) if r["task"] not in ("train_full", "train_lora", "train_qlora") else 0.0
        line = "\t".join([r["id"], spec, gpu, rt, "%.0f" % wb, ";".join(st)])
        ok.append((r, line, read))
    return ok, bad
