#!/usr/bin/env python3
"""Fit the time model's calibrated constants (constants.h, GS_TIME_*) to the
grade A/B records of speed.jsonl and speed2.jsonl, through the driver
(GS_TIME_PARAMS overrides).

  python3 tests/speed/fit.py [--driver build/speed/driver] [--only NAME,...] [--rounds N]

--only fits the groups that hold a constant it names (every figure of such
a group), every other constant at its constants.h value.

Objective: the mean over sources (source_key) of each source's mean
|log(predicted / measured)|, so that no source and no single record decides a
constant (README-speed.md and README-speed2.md: "weight by source_key").
Nelder-Mead on log-parameters, one group of constants at a time, each on the
records it governs (GROUPS), within physical bounds (BOUNDS: an efficiency
is a share of what the hardware reaches, at most 1). The figures that are
not fitted (a read stream's share of the bandwidth, NCCL's latencies, the
eager attention bytes, a FlashAttention-2 kernel's share on Hopper, the link
speeds) come from their sources and stay.
Prints the values to paste into constants.h and, per group, the records it
was fitted on (for docs/time.md).
"""
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import speed_accuracy as sa  # noqa: E402
import cases  # noqa: E402

START = {
    "eff_max": 0.51, "x_half_ridge": 1.0, "elem_bytes": 0.24, "attn_eff": 0.31,
    "fp8_scale.pytorch": 0.66, "fp8_scale.megatron": 0.86, "dequant_train": 1.0,
    "eff_max.ampere": 0.67, "eff_max.ada": 0.72, "eff_max.hopper": 0.42,
}
CLASSES = ("hf", "compiled", "llama.cpp", "serving", "fused", "exllama", "custom")
for _c in CLASSES:
    START["dec_bw_eff." + _c] = 0.9
    START["dec_layer_s." + _c] = 1e-4
    START["prefill_eff." + _c] = 1.0
START["dec_layer_s.hf"] = 6e-4
START["host_desktop"] = 0.5
START["dec_bw_eff.fused"] = 1.0
START["dec_bw_eff.exllama"] = 1.0
KERNEL_EFFS = ("k_eff1.fp8", "k_eff1.int8-wo", "k_eff1.int4-wo",
               "k_eff1.marlin", "k_eff1.exllama", "k_eff1.exllamav2", "k_eff1.gptq-triton", "k_eff1.awq-gemm",
               "k_effn.awq-gemm", "k_eff1.awq-gemv", "k_eff1.bnb-nf4", "k_eff1.bnb-int8", "k_eff1.dequant")
for _k in KERNEL_EFFS:
    START[_k] = 0.8
START["k_gemm.awq-gemm"] = 0.5
START["k_gemm.int4-wo"] = 0.8
START["k_gemm.awq-gemv"] = 0.2
START["k_gemm.dequant"] = 1.0
START["k_host_s.exllama"] = 1e-5
START["k_host_s.exllamav2"] = 1e-5
for _k, _v in (("bnb-nf4", 4e-5), ("bnb-int8", 1.2e-4), ("bnb-int8-decomp", 2.6e-4), ("bnb-int8-col32", 2e-4),
               ("bnb-int8-col32-decomp", 4e-4)):
    START["k_host_s." + _k] = _v
# Kernel figures one name stands for (timing.c's defaults share them).
TIED = {
    "k_effn.fp8": "k_eff1.fp8", "k_eff1.fp8-wo": "k_eff1.fp8", "k_effn.fp8-wo": "k_eff1.fp8",
    "k_eff1.fp4": "k_eff1.fp8", "k_effn.fp4": "k_eff1.fp8",
    "k_effn.w8a8": "k_eff1.w8a8", "k_effn.int8-wo": "k_eff1.int8-wo",
    "k_eff1.ds-int8": "k_eff1.dequant", "k_effn.ds-int8": "k_eff1.dequant",
    "k_eff1.w4a8": "k_eff1.int4-wo", "k_effn.w4a8": "k_eff1.int4-wo", "k_effn.int4-wo": "k_eff1.int4-wo",
    "k_gemm.w4a8": "k_gemm.int4-wo",
    "k_effn.marlin": "k_eff1.marlin", "k_effn.exllama": "k_eff1.exllama", "k_effn.exllamav2": "k_eff1.exllamav2",
    "k_effn.gptq-triton": "k_eff1.gptq-triton", "k_effn.awq-gemv": "k_eff1.awq-gemv",
    "k_effn.bnb-nf4": "k_eff1.dequant", "k_effn.dequant": "k_eff1.dequant",
    **{"k_%s.%s" % (w, k): "k_eff1.bnb-int8" for w in ("eff1", "effn")
       for k in ("bnb-int8-decomp", "bnb-int8-col32", "bnb-int8-col32-decomp")},
    "k_effn.bnb-int8": "k_eff1.bnb-int8",
}
# Priors, not fits: efficiencies are shares of what the hardware reaches (a
# kernel's of the read stream, a GEMM's of the datasheet peak: prefill_eff
# multiplies eff_max, so it may reach 1 / eff_max); attention kernels run at
# no less than 30% of the GEMMs' rate; dequantisation cannot make a step
# faster; host times are positive.
BOUNDS = {k: (0.05, 1.0) for k in START if k.startswith(("eff_max", "fp8_scale", "dec_bw_eff", "k_eff", "k_gemm"))}
BOUNDS.update({"prefill_eff." + c: (0.05, 1 / 0.57) for c in CLASSES})  # with eff_max's fit: <= the peak
BOUNDS["attn_eff"] = (0.3, 1.0)
BOUNDS["host_desktop"] = (0.05, 1.0)
BOUNDS["dequant_train"] = (1.0, 10.0)


def rt(c):
    return c["line"].split("\t")[3]


def opt(c, name):
    for x in c["line"].split("\t")[6].split(";"):
        if x.startswith(name + "="):
            return x.split("=", 1)[1]
    return ""


def prec(c):
    for x in c["line"].split("\t")[5].split(";"):
        if x.startswith("precision="):
            return x.split("=", 1)[1]
    return ""


def is_fp8(c):
    d = (c["record"].get("compute_dtype") or "").lower()
    return "fp8" in d or "float8" in d


UARCH, SEGMENT = {}, {}
for _d in (os.path.join(sa.TOP, "gpus"), os.path.join(HERE, "gpus")):
    import json as _json
    for _f in os.listdir(_d):
        if _f.endswith(".json"):
            with open(os.path.join(_d, _f)) as _fh:
                _g = _json.load(_fh)
                UARCH[_f[:-5]] = _g.get("architecture", "")
                SEGMENT[_f[:-5]] = _g.get("segment", "")


def uarch(c):
    return UARCH.get(c["line"].split("\t")[2], "")


CLASS_OF = {"hf": "hf", "compiled": "compiled", "llama.cpp": "llama.cpp", "serving": "serving", "vllm": "serving",
            "sglang": "serving", "tensorrt-llm": "serving", "lmdeploy": "serving", "autoawq": "fused",
            "tgi": "custom", "exllama": "exllama", "deepspeed": "custom"}
DENSE_PRECS = ("bf16", "fp16", "fp32", "amp-bf16")


def infer(c):
    return not c["task"].startswith("train")


def cls(c):
    return CLASS_OF.get(rt(c), "")


def dense(c):
    return prec(c) in DENSE_PRECS and not opt(c, "kernel") and c["line"].split("\t")[4] == "0"


def decodeish(c):
    return c["task"] in ("decode", "generate_end_to_end", "serve")


def kern(c, name):
    return infer(c) and opt(c, "kernel") == name


UARCHS = ("ampere", "ada", "hopper")
DESKTOP = {g for g, seg in SEGMENT.items() if seg in ("consumer", "workstation")}
# (parameters, which records[, parameters held at a value while fitting])
GROUPS = [
    (["eff_max", "attn_eff"],
     lambda c: c["task"] in ("train_full", "train_lora") and not is_fp8(c), {"eff_max." + u: 0 for u in UARCHS}),
] + [
    (["eff_max." + u], (lambda q: lambda c: c["task"].startswith("train") and not is_fp8(c)
                        and rt(c) == "pytorch" and uarch(c) == q)(u)) for u in UARCHS
] + [
    (["fp8_scale.pytorch"], lambda c: c["task"] in ("train_full", "train_lora") and is_fp8(c) and rt(c) == "pytorch"),
    (["fp8_scale.megatron"], lambda c: c["task"] in ("train_full", "train_lora") and is_fp8(c) and rt(c) == "megatron"),
    (["dequant_train"], lambda c: c["task"] == "train_qlora"),
]
# Engine classes on their 16-bit records (the kernels' own figures after).
for _c in ("serving", "compiled", "llama.cpp", "custom", "hf"):
    GROUPS.append((["dec_bw_eff." + _c, "dec_layer_s." + _c],
                   (lambda q: lambda c: infer(c) and decodeish(c) and cls(c) == q
                    and (dense(c) or q == "llama.cpp"))(_c)))
# AutoAWQ's and ExLlama's loops have no 16-bit records: their layer time on
# their quantized decode records with the kernels at 1 (held), and the
# desktop host's share on every host-bound record of a desktop card.
GROUPS.append((["dec_layer_s.fused"], lambda c: infer(c) and decodeish(c) and cls(c) == "fused"
               and c["record"]["batch"] == 1 and opt(c, "kernel") in ("awq-gemm", "awq-gemv"),
               {"k_eff1.awq-gemm": 1, "k_eff1.awq-gemv": 1}))
GROUPS.append((["dec_layer_s.exllama"], lambda c: infer(c) and decodeish(c) and cls(c) == "exllama",
               {"k_eff1.exllama": 1, "k_eff1.exllamav2": 1, "k_host_s.exllama": 0, "k_host_s.exllamav2": 0}))
GROUPS.append((["host_desktop"], lambda c: infer(c) and decodeish(c) and c["record"]["batch"] == 1
               and cls(c) in ("hf", "fused", "exllama") and c["line"].split("\t")[2] in DESKTOP))
for _c in ("serving", "llama.cpp", "exllama", "hf"):
    GROUPS.append((["prefill_eff." + _c], (lambda q: lambda c: c["task"] == "prefill" and cls(c) == q
                                           and (dense(c) or q in ("llama.cpp", "exllama")))(_c)))
# Kernels, each on the records that name it.
# w8a8 (int8 weights x int8 activations) has no record (torchao int8dq's one
# runs its prefill on the CPU, cases.py host_int_mm): not fitted, at its prior 1.
START["k_eff1.w8a8"] = 1.0
for _names, _k in ((["k_eff1.fp8"], "fp8"), (["k_eff1.int8-wo"], "int8-wo"),
                   (["k_eff1.int4-wo", "k_gemm.int4-wo"], "int4-wo"), (["k_eff1.marlin"], "marlin"),
                   (["k_eff1.exllama", "k_host_s.exllama"], "exllama"),
                   (["k_eff1.exllamav2", "k_host_s.exllamav2"], "exllamav2"),
                   (["k_eff1.gptq-triton"], "gptq-triton"), (["k_eff1.awq-gemv"], "awq-gemv")):
    GROUPS.append((_names, (lambda q: lambda c: kern(c, q) and decodeish(c))(_k)))
GROUPS.append((["k_eff1.awq-gemm", "k_effn.awq-gemm"], lambda c: kern(c, "awq-gemm") and decodeish(c)))
# The AWQ GEMM kernel at prompt sizes: the records whose prompts ran it,
# not its dequantize path (timing.c path_of: at and above the record's
# dequant-at, else the runtime's AWQ_DEQUANT_AT).
AWQ_DEQUANT_AT = {"autoawq": 1024, "hf": 1024, "vllm": 256}


def awq_dequantizes(c):
    """Whether an AWQ GEMM record's prompt ran the dequantize path: its
    batch x prompt tokens at or above the record's dequant-at, else its
    runtime's (a dequant-at below 0: never)."""
    at = int(opt(c, "dequant-at") or AWQ_DEQUANT_AT.get(rt(c), 0))
    p = int(c["record"].get("prompt_tokens") or 0)
    return at > 0 and p * int(c["record"].get("batch") or 1) >= at


def awq_gemm_prompt(c):
    """Records whose GEMMs of more than one token ran the AWQ GEMM kernel:
    prompts below the dequantize threshold, decode steps of a batch."""
    if kern(c, "awq-gemm") and decodeish(c) and int(c["record"].get("batch") or 1) > 1:
        return True
    if not (kern(c, "awq-gemm") and c["task"] in ("prefill", "generate_end_to_end")):
        return False
    return int(c["record"].get("prompt_tokens") or 0) >= 256 and not awq_dequantizes(c)


GROUPS.append((["k_gemm.awq-gemm"], awq_gemm_prompt))


def dequant_prompt(c):
    """Prompts that ran a dequantize path's dense GEMM (GS_K_DEQUANT's
    figures): the AWQ GEMM kernel at and above its threshold, and the
    dequant kernel."""
    if not (infer(c) and c["task"] in ("prefill", "generate_end_to_end")):
        return False
    if kern(c, "dequant"):
        return int(c["record"].get("prompt_tokens") or 0) >= 256
    return kern(c, "awq-gemm") and awq_dequantizes(c)


GROUPS.append((["k_gemm.dequant"], dequant_prompt))
# bitsandbytes: the 4-bit GEMV and its host cost at one token, the
# dequantize path above it (shared with vLLM's old RTN kernels), LLM.int8's
# GEMM and each variant's host cost.
GROUPS.append((["k_eff1.bnb-nf4", "k_host_s.bnb-nf4"], lambda c: kern(c, "bnb-nf4") and c["record"]["batch"] == 1))
GROUPS.append((["k_gemm.awq-gemv"], lambda c: kern(c, "awq-gemv") and c["task"] == "prefill"))
GROUPS.append((["k_eff1.dequant"], lambda c: (kern(c, "bnb-nf4") and c["record"]["batch"] > 1) or kern(c, "dequant")
               or kern(c, "ds-int8")))
GROUPS.append((["k_eff1.bnb-int8", "k_host_s.bnb-int8"], lambda c: kern(c, "bnb-int8")))
for _k in ("bnb-int8-decomp", "bnb-int8-col32", "bnb-int8-col32-decomp"):
    GROUPS.append((["k_host_s." + _k], (lambda q: lambda c: kern(c, q))(_k)))


def env_of(p):
    full = dict(p)
    for k, src in TIED.items():
        if src in full:
            full[k] = full[src]
    return ",".join("%s=%.6g" % kv for kv in full.items())


class Evaluator:
    def __init__(self, driver):
        self.driver = driver
        ok, _ = cases.build(cases.load_all())
        self.cases = []
        for r, line, read in ok:
            self.cases.append({"record": r, "line": line, "read": read, "task": r["task"],
                               "source": r["source_key"], "id": r["id"]})

    def rows(self, p, flt):
        sub = [c for c in self.cases if flt(c)]
        if not sub:
            return []
        env = dict(os.environ, GS_TIME_PARAMS=env_of(p))
        out = subprocess.run([self.driver, os.path.join(sa.TOP, "gpus"), os.path.join(HERE, "gpus")],
                             input="".join(c["line"] + "\n" for c in sub), capture_output=True, text=True,
                             cwd=sa.TOP, env=env, check=True).stdout
        got = {}
        for line in out.splitlines():
            f = line.split("\t")
            if f[1] == "ok":
                got[f[0]] = {k: float(v) for k, v in (x.split("=", 1) for x in f[2:])}
        res = []
        for c in sub:
            if c["id"] in got:
                res.append((c, c["read"](got[c["id"]])))
        return res

    def objective(self, p, flt):
        by = {}
        res = self.rows(p, flt)
        for c, pred in res:
            by.setdefault(c["source"], []).append(abs(math.log(max(pred, 1e-12) / c["record"]["value"])))
        if not by:
            return 0.0, 0, {}
        return sum(sum(v) / len(v) for v in by.values()) / len(by), len(res), {k: len(v) for k, v in by.items()}


def nelder_mead(f, x0, step=0.3, iters=80):
    n = len(x0)
    pts = [list(x0)] + [[x0[j] + (step if j == i else 0) for j in range(n)] for i in range(n)]
    vals = [f(x) for x in pts]
    for _ in range(iters):
        order = sorted(range(n + 1), key=lambda i: vals[i])
        pts = [pts[i] for i in order]
        vals = [vals[i] for i in order]
        c = [sum(pts[i][j] for i in range(n)) / n for j in range(n)]
        xr = [c[j] + (c[j] - pts[-1][j]) for j in range(n)]
        fr = f(xr)
        if fr < vals[0]:
            xe = [c[j] + 2 * (c[j] - pts[-1][j]) for j in range(n)]
            fe = f(xe)
            pts[-1], vals[-1] = (xe, fe) if fe < fr else (xr, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = xr, fr
        else:
            xc = [c[j] + 0.5 * (pts[-1][j] - c[j]) for j in range(n)]
            fc = f(xc)
            if fc < vals[-1]:
                pts[-1], vals[-1] = xc, fc
            else:
                for i in range(1, n + 1):
                    pts[i] = [pts[0][j] + 0.5 * (pts[i][j] - pts[0][j]) for j in range(n)]
                    vals[i] = f(pts[i])
        if max(vals) - min(vals) < 1e-5:
            break
    i = min(range(n + 1), key=lambda i: vals[i])
    return pts[i], vals[i]


def main():
    argv = sys.argv
    driver = argv[argv.index("--driver") + 1] if "--driver" in argv else sa.driver_path()
    only = set(argv[argv.index("--only") + 1].split(",")) if "--only" in argv else None
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 2
    ev = Evaluator(driver)
    # --only fits the named constants against the model's current figures
    # for every other (the driver's defaults, constants.h), not START's
    p = dict(START) if only is None else {}
    fitted = set()
    for rd in range(rounds):
        for names, flt, *held in GROUPS:
            if only and not (set(names) & only):
                continue

            def f(x, names=names, flt=flt, held=held):
                q = dict(p)
                q.update(held[0] if held else {})
                for k, v in zip(names, x):
                    v = math.exp(v)
                    lo, hi = BOUNDS.get(k, (1e-9, 1e9))
                    if not lo <= v <= hi:
                        return 1e9
                    q[k] = v
                return ev.objective(q, flt)[0]
            for k in names:  # a group's every figure is fitted, from START
                p.setdefault(k, START[k])
                fitted.add(k)
            x, v = nelder_mead(f, [math.log(p[k]) for k in names])
            for k, xv in zip(names, x):
                p[k] = math.exp(xv)
            _, n, by = ev.objective(p, flt)
            print("round %d %-40s objective %.3f on %d records: %s" % (
                rd, ",".join(names), v, n, "; ".join("%s %d" % kv for kv in sorted(by.items()))),
                file=sys.stderr, flush=True)
    for k, v in p.items():
        if only is None or k in fitted:
            print("%s=%.4g" % (k, v))
    return 0


if __name__ == "__main__":
    sys.exit(main())
