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
# The second set (../shared/measurements/speed2.jsonl, README-speed2.md): decode
# and generation across batch sizes, contexts, tensor-parallel degrees and
# quantized kernels, from sources not in speed.jsonl. Its `config` ids map to
# tests/accuracy/models/set2/index.json.
SPEED2 = os.path.join(TOP, "tests", "speed", "speed2.jsonl")
SETS = (("speed", SPEED), ("speed2", SPEED2))
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
    ("gpt-oss-20b", "openai--gpt-oss-20b"),
    ("gpt-oss-120b", "openai--gpt-oss-120b"),
    ("deepseek-ai/DeepSeek-V3", "deepseek-ai--DeepSeek-V3"),
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
    # AWS's variant of the A10: the same 24 GB of GDDR6 at 600 GB/s (Baseten,
    # "NVIDIA A10 vs A10G for ML model inference"); its tensor rate differs and
    # NVIDIA publishes none, so its compute-bound work carries the A10's peak.
    "A10G": "a10",
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


# Expert-parallel degrees a record's table leaves out ("EP -"), from the
# configs its source ran: NeMo Automodel's examples/benchmark/configs/
# gptoss_20b_te_deepep.yaml and gptoss_120b_te_deepep.yaml (037e04a6a,
# distributed.ep_size 8 and 64; the table's "Kernel Optimizations" name
# DeepEP, which runs only with an EP group).
EP_OF_CONFIG = [
    ("automodel-train_full-gpt-oss20b-", 8),
    ("automodel-train_full-gpt-oss120b-", 64),
]


def expert_parallel(r):
    ep = re.search(r"\bEP (\d+)", r.get("parallelism") or "")
    if ep:
        return int(ep.group(1))
    return next((d for key, d in EP_OF_CONFIG if r["id"].startswith(key)), 1)


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
    # the micro-batch a forward runs (the GEMMs' rows, a pipeline's unit):
    # MBS where the record states it apart from the local batch (NeMo
    # Automodel's table: LBS is a rank's share of the global batch, run as
    # LBS / MBS micro-batches)
    mbs = re.search(r"\bMBS (\d+)", r.get("parallelism") or "")
    if mbs:
        b = int(mbs.group(1))
    model_par = tp * pp
    if n % model_par:
        return None, "GPU count not a multiple of TP x PP"
    dp = n // model_par
    vp = re.search(r"(?:virtual pipeline|VP) (\d+)", r.get("parallelism") or "")
    topts = []
    ep = expert_parallel(r)
    if ep > 1:
        if "DeepEP" in (r.get("kernel") or "") + (r.get("quote") or ""):
            topts.append("ep-dispatch=deepep")  # the table's kernels column
    topts.append("attn-kernel=" + attn_kernel(r))
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
          "grad-ckpt=" + ckpt, "attn=flash", "gpus=%d" % n, "sharding=" + shard, "tp=%d" % tp, "pp=%d" % pp,
          "ep=%d" % ep] + (["vpp=%s" % vp.group(1)] if vp and pp > 1 else [])
    if method != "full":
        st += ["lora-r=%d" % int(r.get("lora_r") or 16), "lora-targets=" + ("all-linear" if (r.get("lora_targets") or "").lower().startswith("all") or "gate" in (r.get("lora_targets") or "") else "qv")]
    if method == "full" and model_par > 1 and n == model_par:
        st[st.index("sharding=" + shard)] = "sharding=ddp"
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
    return (method, st, read, train_runtime(r), topts), None


def attn_kernel(r):
    """The training attention kernel (gs_time_opts.attn_kernel): "native"
    where the record runs Transformer Engine's attention (cuDNN's fused
    attention: Megatron-Core, NeMo-Automodel's "TE" kernels column without
    FlexAttn), else "fa2": flash-attn 2, MPT's Triton kernel, FlexAttention,
    and SDPA before torch 2.11 (its cuDNN backend was opt-in from 2.5.1,
    pytorch/pytorch#138522, so the flash backend ran)."""
    a = r.get("attn_impl") or ""
    if ("TE" in a.split() or "TE fused" in a) and "FlexAttn" not in a:
        return "native"
    return "native" if train_runtime(r) == "megatron" else "fa2"


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
    if host_int_mm(r, p):
        return None, ("torchao's int8 dynamic quantization runs an eager prefill of 16 tokens or fewer as an "
                      "int32 matmul on the CPU (safe_int_mm's fallback): the host's speed is not modelled")
    tp = n
    par = (r.get("parallelism") or "").lower()
    if "layer split" in par:
        tp = 1  # llama.cpp's layer split runs the layers one GPU after the other
        n_gpus = 1
    else:
        n_gpus = n
    metric, task, md = r["metric"], r["task"], r.get("metric_def") or ""
    st = ["method=inference", "precision=" + prec, "batch=%d" % b, "seq=%d" % max(1, p),
          "new-tokens=%d" % g, "gpus=%d" % n_gpus, "tp=%d" % tp, "attn=flash"] + kv_dtype(r)
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
    return ("inference", st, read, rt, speed1_kernel(r) + runtime_release(r)), None


def kv_dtype(r):
    """The KV cache's dtype where the record states one (attn_impl)."""
    a = (r.get("attn_impl") or "").lower()
    if "fp8 kv" in a:
        return ["kv-dtype=fp8"]
    if "int8 kv" in a:
        return ["kv-dtype=int8"]
    return []


def kv_per_qhead(r):
    """The decode attention kernel's KV reads (gs_time_opts.kv_per_qhead):
    TensorRT-LLM v0.5 and v0.6 ran the masked MHA kernel, one thread block
    a query head, each loading its group's KV head
    (decoderMaskedMultiheadAttentionTemplate.h); XQA, which loads a group's
    KV once, is in the v0.7a build of the Falcon-180B/H200 blog (its 1xH200
    Llama-70B 128/2048 figure, 2,941 tok/s/GPU, is XQA-kernel.md's "w/ XQA"
    one) and every release since."""
    if re.search(r"TensorRT-LLM v0\.[56]\b", r.get("framework") or ""):
        return ["kv-per-qhead=1"]
    return []


def allreduce(r):
    """The all-reduce a record ran where it is not its runtime's
    (gs_time_opts.allreduce): NCCL's where the record says so (vLLM PR
    #2192's "before" rows) and in vLLM before that PR's custom all-reduce
    (0.3.0); the record's own words where it names a custom one."""
    notes = r.get("notes") or ""
    if "custom all-reduce" in notes:
        return ["allreduce=custom"]
    if "NCCL all-reduce" in notes or re.search(r"vLLM ~?0\.[12]\.", r.get("framework") or ""):
        return ["allreduce=nccl"]
    return []


def runtime_release(r):
    """The time options for what a record's release of its runtime did
    differently from today's (both speed sets)."""
    return kv_per_qhead(r) + allreduce(r)


def awq_dequant_at(r):
    """The AWQ GEMM kernel's dequantize threshold a record ran with
    (gs_time_opts.dequant_at): the one its kernel text states; never for
    vLLM before PR #2566 ("for all token counts") and AutoAWQ 0.1.x releases
    (the threshold came with AutoAWQ #316, 2024-01-24, in 0.2.0); else the
    runtime's (AutoAWQ's main branch after #316: 1024)."""
    k = r.get("kernel") or ""
    fw = r.get("framework") or ""
    m = re.search(r"at/above (\d+) tokens", k)
    if m:
        return ["dequant-at=" + m.group(1)]
    if "for all token counts" in k or re.search(r"AutoAWQ 0\.1\.\d", fw):
        return ["dequant-at=-1"]
    return []


def host_int_mm(r, prompt):
    """torchao's int8 dynamic-activation quantization (int8dq) at the records'
    commit: torchao/kernel/intmm.py safe_int_mm, outside torch.compile,
    sends a matmul of 16 rows or fewer to `torch.matmul(input.cpu()...,
    mat2.cpu()...)` in int32; _models/llama/generate.py compiles the decode
    step but runs the prefill eagerly unless --compile_prefill. A prompt of
    16 tokens or fewer then copies every weight to the host and multiplies
    there."""
    w = (r.get("weight_dtype") or "").lower()
    fw = (r.get("framework") or "").lower() + " " + (r.get("source_key") or "").lower()
    return "torchao" in fw and "int8" in w and "activation" in w and 0 < prompt <= 16


def speed1_kernel(r):
    """The matmul kernel a speed.jsonl inference record names in its weight
    format (timing.h, gs_kernel); [] for 16-bit weights (the runtime's own)."""
    w = (r.get("weight_dtype") or "").lower()
    fw = (r.get("framework") or "") + " " + (r.get("source_key") or "")
    if "gguf" in w:
        return []
    if "awq" in w:
        return ["kernel=awq-gemv"] if "gemv" in w else ["kernel=awq-gemm"] + awq_dequant_at(r)
    if "int4" in w:
        return ["kernel=int4-wo"]  # gpt-fast/torchao tinygemm
    if "int8" in w and "activation" in w:
        return ["kernel=w8a8"]     # int8 weights x int8 dynamic activations (torchao int8dq, vLLM CUTLASS)
    if "int8" in w:
        return ["kernel=int8-wo"]  # torch.compile int8 weight-only (gpt-fast, torchao)
    if ("fp8" in w or "float8" in w) and "weight-only" in w:
        return ["kernel=fp8-wo"]
    return []


def load(path=SPEED, tag="speed"):
    out = []
    for line in open(path):
        if line.strip():
            r = json.loads(line)
            r["_set"] = tag
            out.append(r)
    return out


def load_all():
    """Both sets, each record tagged with its set (r["_set"])."""
    out = []
    for tag, path in SETS:
        out += load(path, tag)
    return out


# ---- speed2.jsonl (README-speed2.md) --------------------------------------

SET2_INDEX = os.path.join(SET2, "index.json")
# speed2's gpu_class -> a GPU file (A10G as in GPUS).
GPUS2 = dict(GPUS)
GPUS2.update({"H200": "h200", "T4": "t4", "RTX 3090 Ti": "rtx-3090-ti"})
# Runtimes by framework (timing.h's runtime table); the serving engines run
# paged caches and fused kernels, transformers' generate() runs eager modules.
RUNTIMES2 = [("LMDeploy", "lmdeploy"), ("TurboMind", "lmdeploy"), ("text-generation-inference", "tgi"),
             ("TensorRT-LLM", "tensorrt-llm"), ("vLLM", "vllm"), ("gpt-fast", "compiled"),
             ("exllama", "exllama"), ("AutoAWQ", "autoawq"), ("llm-awq", "autoawq"),
             ("DeepSpeed-Inference", "deepspeed"), ("transformers", "hf")]
# weight_format -> (precision, kernel); kernel None: the runtime's default for the precision.
FORMATS2 = {
    "fp16": ("fp16", None), "bf16": ("bf16", None), "fp8": ("fp8", "fp8"),
    "bnb-nf4": ("nf4", "bnb-nf4"), "bnb-nf4-dq": ("nf4-dq", "bnb-nf4"),
    "bnb-int8": ("int8", "bnb-int8"), "bnb-int8-decomp": ("int8", "bnb-int8-decomp"),
    "gptq-int4": ("gptq-int4", None), "awq-int4": ("awq-int4", None), "awq-w4a8": ("awq-int4", "w4a8"),
    "int8-wo": ("gptq-int8", "int8-wo"), "ds-int8": ("gptq-int8", "ds-int8"),
    "rtn-int4-old": ("gptq-int4", "dequant"), "rtn-int8-old": ("gptq-int8", "dequant"),
    "rtn-int4-marlin": ("gptq-int4", "marlin"), "rtn-int8-marlin": ("gptq-int8", "marlin"),
}


def _set2_configs():
    with open(SET2_INDEX) as f:
        idx = json.load(f)
    return {m["id"]: m.get("file") for m in idx["models"]}


SET2_CONFIGS = _set2_configs()


def model_spec2(r):
    f = SET2_CONFIGS.get(r.get("config") or "")
    if not f:
        return None, "no config in tests/accuracy/models/set2 (index.json: not found)"
    return "cfg:" + os.path.relpath(os.path.join(SET2, f), TOP), None


def runtime2(r):
    fw = (r.get("framework") or "") + " " + (r.get("kernel") or "")
    for key, rt in RUNTIMES2:
        if key.lower() in fw.lower():
            return rt
    return None


def kernel2(r, rt, wf):
    """(precision, kernel or None, weight bytes a parameter or 0), or None."""
    k = (r.get("kernel") or "").lower()
    if wf.startswith("exl2-"):
        bpw = float(wf[5:-3])
        return "gptq-int4", "exllamav2", bpw / 8
    if wf not in FORMATS2:
        return None
    prec, kern = FORMATS2[wf]
    if wf == "gptq-int4" and kern is None:
        if "exllamav2" in k:
            kern = "exllamav2"
        elif "triton" in k:
            kern = "gptq-triton"  # TGI 1.0.3: Triton QuantLinear on QKV and gate/up, the larger share
        elif "exllama v1" in k:
            kern = "exllama"
    if wf == "awq-int4" and kern is None:
        if "gemv" in k:
            kern = "awq-gemv"
        elif "turbomind" in k or "tensorrt-llm" in k:
            kern = "int4-wo"
        elif "dequantize" in k:
            kern = "awq-gemm"  # vLLM #2566's branch: the GEMM kernel for decode; prefill dequantizes (prefill_dequant)
        else:
            kern = "awq-gemm"
    if wf == "bnb-int8" and "0.44" in k:
        kern = "bnb-int8-col32"
    if wf == "bnb-int8-decomp" and "0.44" in k:
        kern = "bnb-int8-col32-decomp"
    if wf == "bnb-int8" and "outlier" in k:
        kern = "bnb-int8-col32-decomp"  # 2022 LLM.int8() (transformers-bloom-inference): col32 path, threshold 6
    return prec, kern, 0.0


def infer_case2(r):
    """speed2.jsonl: (method, settings, read, runtime, time opts), or None, why."""
    rt = runtime2(r)
    if rt is None:
        return None, "framework %s not a modelled runtime" % (r.get("framework") or "")[:40]
    wf = r.get("weight_format") or ""
    km = kernel2(r, rt, wf)
    if km is None:
        return None, "weight format %s not modelled" % wf
    prec, kern, bpp = km
    par = (r.get("parallelism") or "").lower()
    if "zero-3" in par:
        return None, ("ZeRO-3 inference (weights all-gathered every step, one stream replicated): its per-token "
                      "time is below the all-gather over NVLink; the stream accounting is not stated")
    b = int(r["batch"] or 1)
    p = max(1, int(r.get("prompt_tokens") or 0))
    g = int(r.get("gen_tokens") or 0)
    n = int(r["n_gpus"] or 1)
    tp = int(r.get("tp") or 1)
    pp = int(r.get("pp") or 1)
    if n != tp * pp and not (tp == 1 and 1 < pp <= n):
        return None, "GPU count %d is not TP x PP (%d x %d)" % (n, tp, pp)
    st = ["method=inference", "precision=" + prec, "batch=%d" % b, "seq=%d" % p, "new-tokens=%d" % g,
          "attn=flash"] + kv_dtype(r)
    if pp > 1:
        st += ["gpus=%d" % pp, "sharding=pipeline", "tp=1"]  # a layer split: one GPU works at a time
    else:
        st += ["gpus=%d" % n, "tp=%d" % tp] + (["sharding=ddp"] if n > 1 else [])
    topts = (["kernel=" + kern] if kern else []) + (["weight-bpp=%g" % bpp] if bpp else [])
    if kern == "awq-gemm":
        topts += awq_dequant_at(r)
    topts += runtime_release(r)
    metric, task, md = r["metric"], r["task"], r.get("metric_def") or ""
    if metric == "decode_token_latency_p50_s":
        read = lambda o: o["decode_step_s"]
    elif metric == "decode_tokens_per_s" and ("wall time of the request" in md or "time per sample" in md):
        read = lambda o: g / o["generate_s"] * b
    elif metric == "decode_tokens_per_s":
        read = lambda o: o["decode_tok_s_total"]
    elif metric == "prefill_tokens_per_s":
        if g == 0:
            st[st.index("new-tokens=0")] = "new-tokens=1"
        read = lambda o: b * p / o["prefill_s"]
    elif metric == "ttft_s":
        read = lambda o: o["prefill_s"] + o["decode_step_s"]
    elif metric == "tokens_per_s_total" and task == "serve":
        return None, "serving at ShareGPT lengths: the mean prompt and output lengths are not stated"
    elif metric == "tokens_per_s_total" and "trtllm-bench" in md:
        topts.append("concurrency=%d" % b)
        read = lambda o: o["serve_tok_s"]  # in-flight batching at a concurrency of the batch
    elif metric == "tokens_per_s_total" and "prompt and output" in md:
        read = lambda o: b * (p + g) / o["generate_s"]
    elif metric == "tokens_per_s_total":
        read = lambda o: b * g / o["generate_s"]
    elif metric == "latency_ms_per_token":
        c = int(r.get("concurrency") or b)
        topts.append("concurrency=%d" % c)
        st[st.index("batch=%d" % b)] = "batch=1"
        read = lambda o: o["tpot_s"] * 1000  # TGI: the request's prefill and its share of the others' in it
    elif metric == "latency_s":
        read = lambda o: o["generate_s"]
    elif metric == "ms_per_generated_token":
        read = lambda o: o["generate_s"] / (b * g) * 1000
    elif metric == "tokens_per_s_per_gpu":
        read = lambda o: b * g / o["generate_s"] / n
    else:
        return None, "metric %s (%s) not expressible" % (metric, md[:60])
    return ("inference", st, read, rt, topts), None


def build(records):
    """[(record, driver line, read)] and [(record, reason)]."""
    ok, bad = [], []
    for r in records:
        if r["grade"] not in ("A", "B"):
            continue
        two = r.get("_set") == "speed2"
        gpu = (GPUS2 if two else GPUS).get(r.get("gpu_class"))
        if gpu is None:
            bad.append((r, "no GPU file for %s" % r.get("gpu_class")))
            continue
        spec, why = model_spec2(r) if two else model_spec(r)
        if spec is None:
            bad.append((r, why))
            continue
        if two:
            c, why = infer_case2(r)
        elif r["task"].startswith("train"):
            c, why = train_case(r)
        else:
            c, why = infer_case(r)
        if c is None:
            bad.append((r, why))
            continue
        method, st, read, rt, topts = c
        wb = gguf_bytes(r) if not two and not r["task"].startswith("train") else 0.0
        line = "\t".join([r["id"], spec, gpu, rt, "%.0f" % wb, ";".join(st), ";".join(topts) or "-"])
        ok.append((r, line, read))
    return ok, bad
