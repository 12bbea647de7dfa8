#!/usr/bin/env python3
"""Fit the time model's constants (constants.h, GS_TIME_*) to the grade A/B
records of speed.jsonl, through the driver (GS_TIME_PARAMS overrides).

  python3 tests/speed/fit.py [--driver build/speed/driver]

Objective: the mean over sources (source_key) of each source's mean
|log(predicted / measured)|, so that no source and no single record decides a
constant (README-speed.md: "weight by source_key when scoring"). Nelder-Mead
on log-parameters, one group of constants at a time, each on the records it
governs (GROUPS). Prints the values to paste into constants.h.
"""
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import speed_accuracy as sa  # noqa: E402

START = {
    "eff_max": 0.8, "x_half_ridge": 1.0, "h_half": 4000.0, "elem_bytes": 100.0, "attn_eff": 0.7, "fp8_scale.pytorch": 0.6, "fp8_scale.megatron": 0.6,
    "dequant_train": 1.3, "dequant_prefill": 1.0, "dequant_decode": 1.0,
    "dec_bw_eff.hf": 0.7, "dec_bw_eff.compiled": 0.7, "dec_bw_eff.llama.cpp": 0.7, "dec_bw_eff.serving": 0.7,
    "dec_bw_eff.autoawq": 0.7,
    "dec_layer_s.hf": 5e-4, "dec_layer_s.compiled": 1e-5, "dec_layer_s.llama.cpp": 1e-5, "dec_layer_s.serving": 1e-5,
    "dec_layer_s.autoawq": 1e-4,
    "prefill_eff.hf": 1.0, "prefill_eff.compiled": 1.0, "prefill_eff.llama.cpp": 1.0, "prefill_eff.serving": 1.0,
    "prefill_eff.autoawq": 1.0,
}
# Priors, not fits: efficiencies are fractions of a peak; attention kernels
# (FlashAttention 2/3, cuDNN) run at no less than 30% of the GEMMs' rate;
# dequantisation cannot make a step faster. x_half_ridge is not fitted: 1
# makes the curve the sum of a GEMM's compute and its weight read
# (x_half = the GPU's ridge point).
START.update({"eff_max." + u: 0.51 for u in ("ampere", "ada", "hopper")})
BOUNDS = {k: (0.05, 1.0) for k in START if k.startswith("eff_max") or k.startswith("fp8_scale") or k.startswith("dec_bw_eff")}
BOUNDS["attn_eff"] = (0.3, 1.0)
BOUNDS["dequant_train"] = (1.0, 10.0)
BOUNDS["dequant_decode"] = (1.0, 10.0)
BOUNDS["dequant_prefill"] = (1.0, 10.0)
BOUNDS.update({"prefill_eff." + r: (0.05, 1.0) for r in ("hf", "compiled", "llama.cpp", "serving", "autoawq")})


def is_fp8(r):
    return "fp8" in (r["record"].get("compute_dtype") or "").lower() or "float8" in (r["record"].get("compute_dtype") or "").lower()


def rt(r):
    return r["line"].split("\t")[3]


def _uarchs():
    """GPU id -> its file's "architecture" (gpus/ and tests/speed/gpus/)."""
    out = {}
    for d in (os.path.join(sa.TOP, "gpus"), os.path.join(HERE, "gpus")):
        for f in os.listdir(d):
            if f.endswith(".json"):
                with open(os.path.join(d, f)) as fh:
                    out[f[:-5]] = json.load(fh).get("architecture", "")
    return out


UARCH = _uarchs()
UARCHS = ("ampere", "ada", "hopper")  # the architectures the training records cover


def uarch(r):
    return UARCH.get(r["line"].split("\t")[2], "")


# (parameters, which rows[, parameters held at a value while fitting])
GROUPS = [
    # the all-records figures: for Megatron-Core, and for architectures no record covers
    (["eff_max", "h_half", "elem_bytes", "attn_eff"],
     lambda r: r["task"] in ("train_full", "train_lora") and not is_fp8(r),
     {"eff_max." + u: 0 for u in UARCHS}),
] + [
    # the pytorch stack on each architecture: its bf16 training records, QLoRA's included
    (["eff_max." + u], (lambda q: lambda r: r["task"].startswith("train") and not is_fp8(r)
                        and rt(r) == "pytorch" and uarch(r) == q)(u))
    for u in UARCHS
] + [
    # fp8 per training stack (tests/speed/cases.py train_runtime)
    (["fp8_scale.pytorch"], lambda r: r["task"] in ("train_full", "train_lora") and is_fp8(r) and rt(r) == "pytorch"),
    (["fp8_scale.megatron"], lambda r: r["task"] in ("train_full", "train_lora") and is_fp8(r) and rt(r) == "megatron"),
    (["dequant_train"], lambda r: r["task"] == "train_qlora"),
]
QUANT = ("awq-int4", "gptq-int4", "gptq-int8", "precision=int8")
for _rt in ("compiled", "llama.cpp", "serving"):
    GROUPS.append((["dec_bw_eff." + _rt, "dec_layer_s." + _rt],
                   (lambda q: lambda r: r["task"] in ("decode", "generate_end_to_end") and rt(r) == q
                    and not any(x in r["line"] for x in QUANT))(_rt)))
# The dequantisation cost on the quantized decode records of the runtimes
# that also have unquantized ones; then HF (AutoAWQ: int4 only) with it.
GROUPS.append((["dequant_decode"], lambda r: r["task"] == "decode" and rt(r) not in ("hf", "autoawq")
               and any(x in r["line"] for x in QUANT)))
GROUPS.append((["dec_bw_eff.autoawq", "dec_layer_s.autoawq"], lambda r: r["task"] == "decode" and rt(r) == "autoawq"))
# Plain transformers generate(): its records (Qwen3's speed page, batch 1) are
# all host-bound, so only the host's time a layer is identifiable; its
# bandwidth efficiency and prefill factor are AutoAWQ's (TIED, below).
GROUPS.append((["dec_layer_s.hf"], lambda r: r["task"] in ("decode", "generate_end_to_end") and rt(r) == "hf"))
TIED = {"dec_bw_eff.hf": "dec_bw_eff.autoawq", "prefill_eff.hf": "prefill_eff.autoawq"}
for _rt in ("autoawq", "llama.cpp", "serving"):
    GROUPS.append((["prefill_eff." + _rt], (lambda q: lambda r: r["task"] == "prefill" and rt(r) == q)(_rt)))


def env_of(p):
    return ",".join("%s=%.6g" % kv for kv in p.items())


def evaluate(driver, p, rows_filter):
    os.environ["GS_TIME_PARAMS"] = env_of(p)
    rows, _ = sa.run(driver)
    rows = [r for r in rows if rows_filter(r)]
    by = {}
    for r in rows:
        by.setdefault(r["source_key"], []).append(abs(math.log(max(r["predicted"], 1e-12) / r["measured"])))
    if not by:
        return 0.0, 0
    return sum(sum(v) / len(v) for v in by.values()) / len(by), len(rows)


def nelder_mead(f, x0, step=0.3, iters=120):
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
    driver = sys.argv[sys.argv.index("--driver") + 1] if "--driver" in sys.argv else sa.driver_path()
    p = dict(START)
    for _ in range(2):  # two rounds: the groups interact a little (eff_max in decode's compute floor)
        for names, flt, *held in GROUPS:
            def f(x, names=names, flt=flt, held=held):
                q = dict(p)
                q.update(held[0] if held else {})
                for k, v in zip(names, x):
                    v = math.exp(v)
                    lo, hi = BOUNDS.get(k, (1e-9, 1e9))
                    if not lo <= v <= hi:
                        return 1e9
                    q[k] = v
                return evaluate(driver, q, flt)[0]
            x, v = nelder_mead(f, [math.log(p[k]) for k in names])
            for k, xv in zip(names, x):
                p[k] = math.exp(xv)
            for k, src in TIED.items():
                p[k] = p[src]
            print("%-45s objective %.3f on %d records" % (",".join(names), v, evaluate(driver, p, flt)[1]),
                  file=sys.stderr)
    for k, v in p.items():
        print("%s=%.4g" % (k, v))
    return 0


if __name__ == "__main__":
    sys.exit(main())
