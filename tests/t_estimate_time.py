#!/usr/bin/env python3
"""estimate's time block (issue 17): text and --json, per listed GPU class;
--runtime, --tokens, --price (and a GPU file's price), the serving capacity
and --mem-fraction; bad values are exit 2."""
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

from lib import GS, TOP, Checks

ok = Checks()
MODEL = ["meta-llama/Llama-3.1-8B", "--offline", "--models-dir", os.path.join(TOP, "models")]


def est(*extra):
    return subprocess.run(GS + ["estimate"] + MODEL + list(extra), cwd=TOP, capture_output=True, text=True,
                          timeout=120)


def cost():
    """A token budget's GPU-hours and cost at --price, and a GPU file's own
    dated price; --price wins over the file."""
    r = est("--gpu", "h100-sxm,rtx-4090", "--gpus", "8", "--sharding", "fsdp", "--tokens", "2e9",
            "--price", "h100-sxm=2.49", "--json")
    d = json.loads(r.stdout) if r.returncode == 0 else {}
    gs = {g["id"]: g for g in d.get("time", {}).get("gpus", [])}
    h, c = gs.get("h100-sxm", {}), gs.get("rtx-4090", {})
    ok(r.returncode == 0 and abs(h["gpu_hours"] - h["budget_s"] * 8 / 3600) < 1e-5 * h["gpu_hours"]
       and abs(h["cost_usd"] - 2.49 * h["gpu_hours"]) < 1e-5 * h["cost_usd"] and h["price_from"] == "--price",
       "estimate --price: GPU-hours = budget x 8 GPUs, cost = GPU-hours x $2.49", r.stdout[-500:] + r.stderr)
    ok(r.returncode == 0 and c.get("price_usd_per_hour", 0) is None and c.get("cost_usd", 0) is None
       and c["gpu_hours"] > h["gpu_hours"],
       "estimate: an unpriced class has GPU-hours and a null cost", str(c))
    r = est("--gpu", "h100-sxm", "--gpus", "8", "--sharding", "fsdp", "--tokens", "2e9", "--price", "h100-sxm=2.49")
    ok(r.returncode == 0 and "2 B tokens in" in r.stdout and "GPU-h = $" in r.stdout and "$2.49  --price" in r.stdout,
       "estimate text: the cost and where its price comes from", r.stdout[-600:])
    tmp = tempfile.mkdtemp(prefix="gs-t-price-")
    try:
        gdir = os.path.join(tmp, "gpus")
        shutil.copytree(os.path.join(TOP, "gpus"), gdir)
        p = os.path.join(gdir, "h100-sxm.json")
        g = json.load(open(p))
        g["price_usd_per_hour"] = 3.0
        g["price_date"] = "2026-11-30"
        g["sources"]["price_usd_per_hour"] = "test fixture: a made-up quote"
        json.dump(g, open(p, "w"))
        base = ["--gpus-dir", gdir, "--gpu", "h100-sxm", "--tokens", "1e9", "--json"]
        r = est(*base)
        t = json.loads(r.stdout)["time"]["gpus"][0] if r.returncode == 0 else {}
        ok(r.returncode == 0 and t.get("price_from") == "file" and t.get("price_date") == "2026-11-30"
           and abs(t["cost_usd"] - 3.0 * t["gpu_hours"]) < 1e-5 * t["cost_usd"],
           "a GPU file's price_usd_per_hour with its day prices the budget", r.stdout[-400:] + r.stderr)
        r = est(*(base + ["--price", "h100-sxm=1.5"]))
        t = json.loads(r.stdout)["time"]["gpus"][0] if r.returncode == 0 else {}
        ok(r.returncode == 0 and t.get("price_from") == "--price" and abs(t["cost_usd"] - 1.5 * t["gpu_hours"]) < 1e-3,
           "--price over the file's price", str(t))
    finally:
        shutil.rmtree(tmp)


def serving():
    """The serving capacity: Llama-3.1-8B caches 128 KiB a token (32 layers x
    2 x 8 KV heads x 128 x 2 bytes); sequences = whole 16-token blocks of the
    pool over the blocks of one sequence."""
    args = ["--gpu", "a100-80gb,rtx-4090,rtx-3060-12gb", "--method", "inference", "--seq", "2048",
            "--new-tokens", "512", "--runtime", "vllm", "--json"]
    r = est(*args)
    d = json.loads(r.stdout) if r.returncode == 0 else {"time": {"gpus": []}}
    t = d["time"]
    gs = {g["id"]: g for g in t["gpus"]}
    ok(r.returncode == 0 and t.get("kv_bytes_per_token") == 32 * 2 * 8 * 128 * 2 and t.get("block_tokens") == 16
       and t.get("mem_fraction") == 0.9, "estimate inference: 128 KiB a cached token, 16-token blocks, 0.9",
       str({k: v for k, v in t.items() if k != "gpus"}))
    a = gs.get("a100-80gb", {})
    want = math.floor(a.get("serving_pool_bytes", 0) / (131072 * 16)) // math.ceil(2560 / 16)
    ok(r.returncode == 0 and a["serving_sequences"] == want and 100 < want < 250,
       "A100 80GB: %s sequences of 2560 tokens = its pool's blocks / 160" % want, str(a))
    ok(r.returncode == 0 and gs["rtx-3060-12gb"]["serving_sequences"] == 0
       and 0 < gs["rtx-4090"]["serving_sequences"] < want,
       "12 GB: no room for a cache beside 15 GiB of weights; 24 GB: fewer than 80 GB",
       str({k: v.get("serving_sequences") for k, v in gs.items()}))
    r2 = est(*(args + ["--mem-fraction", "0.5"]))
    a2 = json.loads(r2.stdout)["time"]["gpus"][0] if r2.returncode == 0 else {}
    pools = (a.get("serving_pool_bytes", 0), a2.get("serving_pool_bytes", 0))
    total = json.load(open(os.path.join(TOP, "gpus", "a100-80gb.json")))["total_mib"] * 2**20
    ok(r2.returncode == 0 and abs((pools[0] - pools[1]) - 0.4 * total) < 2**20,
       "--mem-fraction 0.5: the pool shrinks by 0.4 of the total memory", "%s %s" % (pools, total))
    r = est(*args[:-1])
    ok(r.returncode == 0 and "serving capacity" in r.stdout and "sequences of 2560 tokens" in r.stdout,
       "estimate text: the serving capacity block", r.stdout[-600:])


def stacks():
    """--train-runtime: the Megatron-Core stack keeps more of fp8's peak
    (docs/time.md, "Training stacks"); in bf16 the pytorch stack takes its
    architecture's efficiency ("Architectures"), Megatron-Core the all-records one."""
    def step(prec, stack):
        r = est("--gpu", "h100-sxm", "--gpus", "8", "--sharding", "zero1", "--precision", prec,
                "--seq", "4096", "--batch", "2", "--train-runtime", stack, "--json")
        d = json.loads(r.stdout) if r.returncode == 0 else {}
        t = d.get("time", {})
        return r, t.get("train_runtime"), (t.get("gpus") or [{}])[0]
    r1, n1, p = step("fp8-mixed", "pytorch")
    r2, n2, m = step("fp8-mixed", "nemo")
    ok(r1.returncode == 0 and r2.returncode == 0 and n1 == "pytorch" and n2 == "megatron"
       and m["step_s"] < p["step_s"] and m["mfu"] > p["mfu"],
       "estimate --train-runtime megatron (alias nemo): an fp8-mixed step is shorter than pytorch's",
       "%s %s %s %s" % (n1, n2, p.get("step_s"), m.get("step_s")))
    _, _, pb = step("amp-bf16", "pytorch")
    _, _, mb = step("amp-bf16", "megatron")
    with open(os.path.join(TOP, "src", "core", "constants.h")) as f:
        k = dict(re.findall(r"^#define (GS_TIME_TRAIN_EFF_MAX\w*) (\S+)", f.read(), re.M))
    want = float(k["GS_TIME_TRAIN_EFF_MAX"]) / float(k["GS_TIME_TRAIN_EFF_MAX_HOPPER"])
    ok(pb.get("gemm_efficiency") and abs(mb["gemm_efficiency"] / pb["gemm_efficiency"] - want) < 2e-3 * want,
       "estimate --train-runtime: in bf16 on an H100, pytorch takes Hopper's efficiency and megatron the "
       "all-records one (x %.3f)" % want, "%s %s" % (pb, mb))
    r = est("--gpu", "h100-sxm", "--train-runtime", "megatron")
    ok(r.returncode == 0 and "megatron stack" in r.stdout, "estimate text names the training stack",
       r.stdout[-300:])


def kernels_and_serving():
    """--kernel picks the matmul kernel (the JSON names the one that ran);
    the serving capacity comes with the time at that many sequences; a
    tensor-parallel layout carries its all-reduces."""
    base = ("--gpu", "h100-sxm", "--method", "inference", "--seq", "1024", "--new-tokens", "256", "--json")
    r = est(*base, "--precision", "gptq-int4", "--runtime", "vllm")
    d = json.loads(r.stdout) if r.returncode == 0 else {}
    g = (d.get("time", {}).get("gpus") or [{}])[0]
    ok(r.returncode == 0 and g.get("kernel") == "marlin", "gptq-int4 under vllm: Marlin by default", str(g)[:300])
    r2 = est(*base, "--precision", "gptq-int4", "--runtime", "vllm", "--kernel", "dequant")
    d2 = json.loads(r2.stdout) if r2.returncode == 0 else {}
    g2 = (d2.get("time", {}).get("gpus") or [{}])[0]
    ok(r2.returncode == 0 and g2.get("kernel") == "dequant" and g2["decode_step_s"] > g["decode_step_s"],
       "--kernel dequant: a 16-bit copy a step, slower than Marlin", "%s %s" % (g2.get("decode_step_s"),
                                                                          g.get("decode_step_s")))
    ok(g.get("serving_sequences", 0) > 1 and g.get("serving_tpot_s", 0) >= g["decode_step_s"]
       and g.get("serving_ttft_s", 0) > g["prefill_s"] and g.get("serving_tokens_per_s", 0) > 0,
       "--json: the serving capacity with its TTFT, TPOT and tokens/s at that many sequences", str(g)[:400])
    r = est("--gpu", "h100-sxm", "--method", "inference", "--runtime", "vllm", "--new-tokens", "256")
    ok(r.returncode == 0 and "TTFT" in r.stdout and "TPOT" in r.stdout, "text: the serving block's TTFT and TPOT",
       r.stdout[-400:])
    # a prompt-only row (--new-tokens 0, the default) has no output token
    # to time: its TTFT, the heading saying why, no TPOT and null in JSON
    r = est("--gpu", "h100-sxm", "--method", "inference", "--runtime", "vllm")
    ok(r.returncode == 0 and "TTFT" in r.stdout and "TPOT " not in r.stdout
       and "no time per output token" in r.stdout, "--new-tokens 0: TTFT, no TPOT, and why", r.stdout[-400:])
    r = est("--gpu", "h100-sxm", "--method", "inference", "--runtime", "vllm", "--json")
    d = json.loads(r.stdout) if r.returncode == 0 else {}
    g = (d.get("time", {}).get("gpus") or [{}])[0]
    ok(g.get("serving_ttft_s", 0) > 0 and g.get("serving_tpot_s", 0) is None
       and g.get("serving_tokens_per_s", 0) is None, "--new-tokens 0, --json: TTFT, TPOT and tokens/s null",
       str(g)[:400])
    r = est("--gpu", "h100-sxm", "--method", "inference", "--runtime", "vllm", "--gpus", "2", "--tp", "2", "--json")
    d = json.loads(r.stdout) if r.returncode == 0 else {}
    g = (d.get("time", {}).get("gpus") or [{}])[0]
    ok(r.returncode == 0 and g.get("tp_comm_s", 0) > 0, "--tp 2: the all-reduces' seconds are in the step",
       str(g)[:300])


def pipeline():
    """--pp: Megatron-Core's 1F1B stages. The estimate says which stage it
    sized; the step carries the bubble, (pp - 1) / micro-batches of the
    ideal step; the layouts it does not combine with exit 2."""
    base = ("--gpu", "h100-sxm", "--stack", "nemo", "--gpus", "8", "--grad-accum", "8", "--json")
    r1 = est(*base)
    r4 = est(*base, "--pp", "4")
    d1 = json.loads(r1.stdout) if r1.returncode == 0 else {}
    d4 = json.loads(r4.stdout) if r4.returncode == 0 else {}
    g1 = (d1.get("time", {}).get("gpus") or [{}])[0]
    g4 = (d4.get("time", {}).get("gpus") or [{}])[0]
    e1 = (d1.get("rows") or [{}])[0].get("estimate") or {}
    e4 = (d4.get("rows") or [{}])[0].get("estimate") or {}
    ok(r4.returncode == 0 and abs(g4.get("pipeline_bubble", 0) - 3 / 8) < 1e-9 and g1.get("pipeline_bubble", 1) == 0
       and "--pp 4" in (e4.get("note") or "") and 0 < e4.get("device", 0) < e1.get("device", 0)
       and d4["rows"][0]["settings"]["pp"] == 4,
       "--pp 4 over 8 micro-batches: bubble 3/8, a stage's memory below the whole model's, the note names it",
       "%s %s %s" % (g4.get("pipeline_bubble"), e4.get("note"), r4.stderr[-300:]))
    # the DDP note counts data-parallel ranks, gpus / (tp x pp), and none at one
    r = est("--gpus", "8", "--pp", "4", "--grad-accum", "8")
    r1 = est("--gpus", "4", "--pp", "4", "--grad-accum", "8")
    ok(r.returncode == 0 and "is DDP: 2 data-parallel ranks" in r.stderr and r1.returncode == 0
       and "is DDP" not in r1.stderr, "--pp: the DDP note counts gpus / pp ranks, and is silent with none",
       r.stderr[-300:] + r1.stderr[-300:])
    rv = est(*base, "--pp", "4", "--vpp", "2")
    dv = json.loads(rv.stdout) if rv.returncode == 0 else {}
    gv = (dv.get("time", {}).get("gpus") or [{}])[0]
    ev = (dv.get("rows") or [{}])[0].get("estimate") or {}
    ok(rv.returncode == 0 and abs(gv.get("pipeline_bubble", 0) - 3 / 16) < 1e-9
       and ev.get("device", 0) >= e4.get("device", 0),
       "--pp 4 --vpp 2: half the bubble (3/16), no less memory (more chunks in flight)",
       "%s %s %s" % (gv.get("pipeline_bubble"), ev.get("device"), rv.stderr[-300:]))
    r = est("--gpu", "h100-sxm", "--stack", "nemo", "--gpus", "8", "--grad-accum", "8", "--pp", "4")
    ok(r.returncode == 0 and "(pipeline 4 stages, 1F1B over 8 micro-batches" in r.stdout and " pp4 " in r.stdout,
       "text: the label and the time block name the pipeline", r.stdout[-500:])
    # --ep on a mixture of experts: the all-to-alls in the step; a dense
    # model refuses it
    moe = GS + ["estimate", "Qwen/Qwen3-30B-A3B", "--offline", "--models-dir", os.path.join(TOP, "models"),
                "--gpu", "h100-sxm", "--stack", "megatron", "--gpus", "8", "--sharding", "zero1", "--grad-ckpt",
                "--json"]
    r1 = subprocess.run(moe, cwd=TOP, capture_output=True, text=True, timeout=120)
    r8 = subprocess.run(moe + ["--ep", "8"], cwd=TOP, capture_output=True, text=True, timeout=120)
    d1 = json.loads(r1.stdout) if r1.returncode == 0 else {}
    d8 = json.loads(r8.stdout) if r8.returncode == 0 else {}
    g1 = (d1.get("time", {}).get("gpus") or [{}])[0]
    g8 = (d8.get("time", {}).get("gpus") or [{}])[0]
    w1 = ((d1.get("rows") or [{}])[0].get("estimate") or {}).get("W", 0)
    w8 = ((d8.get("rows") or [{}])[0].get("estimate") or {}).get("W", 0)
    ok(r8.returncode == 0 and g1.get("ep_comm_s") == 0 and g8.get("ep_comm_s", 0) > 0 and 0 < w8 < w1 / 4,
       "--ep 8 on Qwen3-30B-A3B: all-to-alls in the step, an eighth of the experts' weights a GPU",
       "%s %s %s %s" % (g8.get("ep_comm_s"), w1, w8, r8.stderr[-300:]))
    for bad, what in ((["--gpus", "8", "--pp", "3"], "--pp 3"), (["--gpus", "2", "--ep", "2"], "no routed experts"), (["--gpus", "8", "--pp", "2", "--sharding", "zero3"],
                                                               "zero3"),
                      (["--gpus", "2", "--pp", "2", "--method", "inference"], "--sharding pipeline")):
        r = est(*bad)
        ok(r.returncode == 2 and what in r.stderr and r.stdout == "", "%s: exit 2 naming %s" % (" ".join(bad), what),
           r.stderr[-300:])


def main():
    r = est("--gpu", "h100-sxm,rtx-4090", "--gpus", "8", "--sharding", "fsdp", "--tokens", "1e9")
    ok(r.returncode == 0 and "time per optimizer step" in r.stdout and "tokens/s/GPU" in r.stdout
       and "MFU" in r.stdout and "1 B tokens in" in r.stdout and "GPU-h" in r.stdout and "$" not in r.stdout,
       "estimate: a time block for training, with the token budget", r.stdout[-600:] + r.stderr)
    r = est("--gpu", "h100-sxm", "--json", "--tokens", "1e9")
    d = json.loads(r.stdout) if r.returncode == 0 else {}
    t = d.get("time", {})
    g = (t.get("gpus") or [{}])[0]
    ok(r.returncode == 0 and "rows" in d and g.get("id") == "h100-sxm" and g.get("step_s", 0) > 0
       and 0 < g.get("mfu", 0) < 1 and abs(g["budget_s"] - 1e9 / g["tokens_per_s_total"]) < 1e-3 * g["budget_s"],
       "estimate --json: a \"time\" member beside the rows", r.stdout[-400:] + r.stderr)
    r = est("--gpu", "h100-sxm,a100-80gb", "--method", "inference", "--seq", "512", "--new-tokens", "64",
            "--runtime", "vllm", "--json")
    d = json.loads(r.stdout) if r.returncode == 0 else {}
    gs = d.get("time", {}).get("gpus", [])
    ok(r.returncode == 0 and d["time"]["runtime"] == "vllm" and len(gs) == 2
       and gs[0]["decode_tokens_per_s_seq"] > gs[1]["decode_tokens_per_s_seq"] > 0,
       "estimate --json inference: decode faster on H100 than A100 (bandwidth)", r.stdout[-400:] + r.stderr)
    r = est("--gpu", "h100-sxm,a100-80gb", "--method", "inference", "--runtime", "vllm", "--batch", "8", "--json")
    d = json.loads(r.stdout) if r.returncode == 0 else {}
    row_t = (d.get("rows") or [{}])[0].get("time") or {}
    blk = {g["id"]: g for g in d.get("time", {}).get("gpus", [])}
    ok(r.returncode == 0 and row_t.get("tokens_per_step") == 8 and all(
       abs(row_t["gpu_step_s"][k] - blk[k]["decode_step_s"]) <= 1e-3 * blk[k]["decode_step_s"] for k in blk),
       "the row's time (as in sizing.json) is the time block's: a decode step of 8 tokens, runtime vllm",
       str(row_t))
    r = est("--gpu", "h100-sxm", "--method", "inference", "--runtime", "hf")
    ok(r.returncode == 0 and "prefill" in r.stdout and "tokens/s a sequence" in r.stdout,
       "estimate: a time block for inference", r.stdout[-400:])
    kernels_and_serving()
    pipeline()
    cost()
    serving()
    stacks()
    for bad in (["--runtime", "nope"], ["--kernel", "nope"], ["--train-runtime", "vllm"], ["--tokens", "0"], ["--tokens", "x"], ["--price", "h100-sxm"],
                ["--price", "nope=2"], ["--price", "h100-sxm=0"], ["--price", "h100-sxm=2,rtx-4090=x"],
                ["--price", "h100-sxm=5000"], ["--mem-fraction", "0.5"],
                ["--method", "inference", "--mem-fraction", "1.5"],
                ["--method", "inference", "--mem-fraction", "0"]):
        r = est(*bad)
        opt = [a for a in bad if a.startswith("--") and a != "--method"][0]
        ok(r.returncode == 2 and opt in r.stderr and r.stdout == "",
           "estimate %s: exit 2 naming the option, nothing on stdout" % " ".join(bad),
           "rc=%d %s" % (r.returncode, r.stderr))
    return ok.status()


if __name__ == "__main__":
    sys.exit(main())
