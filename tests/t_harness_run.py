#!/usr/bin/env python3
"""tools/harness.py's run path (not --dry-run) over STAND-IN torch,
transformers and peft modules (tests/fixtures/fake_torch/).

This tests the harness's control flow and bookkeeping, NOT a measurement
and NOT the real libraries: the stand-ins implement only the calls the
harness makes, with a toy allocator whose byte counts follow the fixed rules
written in their docstrings. The expected figures below are computed here
from those rules, so a check fails when the harness reads a peak in the
wrong phase, forgets to reset the peak counters, loses a micro-batch,
mislabels an out-of-memory, or reports a number where it should skip; and
that `gpusizer verify` reads the real harness's JSON (the stand-in harness of
t_verify.py prints JSON written by hand). What real PyTorch allocates is for
`gpusizer verify` on a GPU to measure.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from lib import GS, TOP, Checks

os.chdir(TOP)
HARNESS = os.path.join("tools", "harness.py")
FAKES = os.path.join(TOP, "tests", "fixtures", "fake_torch")
MARKER = "gpusizer-harness: measure-begin"
check = Checks("harness run (stand-in torch): ")

# A toy decoder the stand-in transformers builds (its rules use these names).
H, I, V, L = 64, 128, 1000, 2
CFG = {"model_type": "llama", "hidden_size": H, "intermediate_size": I, "num_hidden_layers": L,
       "num_attention_heads": 4, "num_key_value_heads": 4, "vocab_size": V,
       "max_position_embeddings": 4096, "tie_word_embeddings": False}
tmp = tempfile.mkdtemp(prefix="gs_t_harness_run.")
CONFIG = os.path.join(tmp, "config.json")
with open(CONFIG, "w") as f:
    json.dump(CFG, f)
ELEMS = V * H + L * (4 * H * H + 3 * H * I) + H * V  # embedding, layers, untied head


def run(args, **env):
    e = dict(os.environ, PYTHONPATH=FAKES)
    for k in ("FAKE_TORCH_CAPACITY", "FAKE_TORCH_NO_CUDA", "FAKE_TORCH_NO_BF16", "FAKE_TRANSFORMERS_NO_KEEP",
              "FAKE_TRANSFORMERS_DTYPE_KW"):
        e.pop(k, None)
    e.update({k: str(v) for k, v in env.items()})
    p = subprocess.run([sys.executable, HARNESS, "--config", CONFIG] + args, capture_output=True,
                       text=True, env=e, timeout=120)
    lines = p.stdout.splitlines()
    try:
        res = json.loads(lines[0]) if len(lines) == 1 else None
    except ValueError:
        res = None
    return p.returncode, res, p.stderr


def phases(res, step):
    return {k: v["allocated"] for k, v in res["steps"][step - 1]["phases"].items()}


# ---- full fine-tuning, fp32 weights, AdamW: two steps
B, S = 2, 64
e = 4
W = ELEMS * e
IDS = B * S * 8
SAVED = L * B * S * H * e * 4          # per the stand-in: 4 x B*S*H*e a layer, no checkpointing
WORK = B * S * I * e
LOGITS = B * S * V * 4
G = W                                  # every parameter trainable, gradients in fp32
STATES = 2 * W                         # AdamW: two fp32 states
fwd1 = W + IDS + SAVED + max(WORK, LOGITS)
bwd1 = W + IDS + SAVED + LOGITS + G + LOGITS
opt1 = W + G + STATES + W              # + the foreach temporary
fwd2, bwd2 = fwd1 + STATES, bwd1 + STATES

rc, res, err = run(["--method", "full", "--precision", "fp32", "--batch", str(B), "--seq", str(S),
                    "--warmup", "1", "--steps", "1"])
check(rc == 0 and res is not None and res["status"] == "ok",
      "full fp32: exit 0, exactly one JSON line on stdout, status ok", (rc, err[-400:]))
if res and res["status"] == "ok":
    check(MARKER in err, "the measure-begin marker is written on stderr")
    check(res["load"]["allocated"] == W and res["params"] == {"total": ELEMS, "trainable": ELEMS},
          "load = the weights; every parameter trainable", (res["load"], res["params"]))
    check(phases(res, 1) == {"forward": fwd1, "backward": bwd1, "optimizer": opt1},
          "step 1: each phase's own peak (forward, backward, optimizer)",
          (phases(res, 1), {"forward": fwd1, "backward": bwd1, "optimizer": opt1}))
    check(phases(res, 2) == {"forward": fwd2, "backward": bwd2, "optimizer": opt1},
          "step 2: the optimizer states are there from the start",
          (phases(res, 2), {"forward": fwd2, "backward": bwd2}))
    check(res["steps"][0]["warmup"] is True and res["steps"][1]["warmup"] is False,
          "step 1 is the warm-up step")
    check(res["steps"][0]["end_allocated"] == W + STATES, "end of step: weights + states, gradients freed",
          res["steps"][0]["end_allocated"])
    check(res["step1"] == dict(res["step1"], allocated=opt1, step=1, phase="optimizer")
          and res["steady"] == dict(res["steady"], allocated=bwd2, step=2, phase="backward")
          and res["peak"]["allocated"] == max(opt1, bwd2),
          "summary: step 1 peaks in the optimizer step, the steady state in backward",
          (res["step1"], res["steady"]))
    check(all(v["reserved"] >= v["allocated"] for s in res["steps"] for v in s["phases"].values()),
          "reserved >= allocated in every phase")

# ---- gradient accumulation: the step's forward is the larger of its two
rc, res, err = run(["--method", "full", "--precision", "fp32", "--batch", str(B), "--seq", str(S),
                    "--warmup", "0", "--steps", "1", "--grad-accum", "2"])
ok = res is not None and res["status"] == "ok"
check(ok and phases(res, 1) == {"forward": fwd1 + G, "backward": bwd1, "optimizer": opt1},
      "grad-accum 2: the second micro-batch's forward holds the first's gradients",
      phases(res, 1) if ok else (rc, err[-400:]))

# ---- SGD without momentum: no states, no temporary
rc, res, err = run(["--method", "full", "--precision", "fp32", "--batch", str(B), "--seq", str(S),
                    "--warmup", "0", "--steps", "1", "--optimizer", "sgd"])
ok = res is not None and res["status"] == "ok"
check(ok and phases(res, 1)["optimizer"] == W + G, "sgd: the optimizer step holds weights + gradients",
      phases(res, 1) if ok else (rc, err[-400:]))

# ---- LoRA on a bf16 base, fp32 adapters (PEFT's default), checkpointing on
e = 2
R = 16
LORA = L * 2 * R * (H + H)             # q_proj and v_proj of each layer: r x (in + out)
rc, res, err = run(["--method", "lora", "--precision", "bf16", "--lora-r", str(R), "--batch", str(B),
                    "--seq", str(S), "--warmup", "0", "--steps", "1", "--grad-ckpt", "true"])
ok = res is not None and res["status"] == "ok"
saved_ck = L * B * S * H * e           # checkpointing: B*S*H*e a layer
w_lora = ELEMS * e + LORA * 4
fwd = w_lora + IDS + saved_ck + max(B * S * I * e, LOGITS)
check(ok and res["params"] == {"total": ELEMS + LORA, "trainable": LORA},
      "lora: only the adapters are trainable", res["params"] if ok else (rc, err[-400:]))
check(ok and res["load"]["allocated"] == w_lora and phases(res, 1)["forward"] == fwd
      and phases(res, 1)["backward"] == fwd - max(B * S * I * e, LOGITS) + LOGITS + LORA * 4 + LOGITS,
      "lora: bf16 base, fp32 adapter gradients only, checkpointed activations",
      phases(res, 1) if ok else None)
rc, res, err = run(["--method", "lora", "--precision", "bf16", "--lora-r", str(R), "--adapter-dtype", "bf16",
                    "--batch", str(B), "--seq", str(S), "--warmup", "0", "--steps", "1"])
ok = res is not None and res["status"] == "ok"
check(ok and res["load"]["allocated"] == ELEMS * e + LORA * 2,
      "lora --adapter-dtype bf16: the adapters are converted to bf16", res["load"] if ok else (rc, err[-400:]))

# ---- chunked loss: the head and fp32 logits a chunk at a time
S2 = 2048
std = run(["--method", "full", "--precision", "fp32", "--seq", str(S2), "--warmup", "0", "--steps", "1"])[1]
rc, res, err = run(["--method", "full", "--precision", "fp32", "--seq", str(S2), "--warmup", "0", "--steps", "1",
                    "--loss", "chunked"])
ok = res is not None and std is not None and res["status"] == std["status"] == "ok"
check(ok and phases(res, 1)["forward"] < phases(std, 1)["forward"]
      and phases(res, 1)["optimizer"] == phases(std, 1)["optimizer"],
      "--loss chunked runs: a lower forward peak, the same optimizer step",
      (phases(res, 1), phases(std, 1)) if ok else (rc, err[-400:]))

# ---- inference: prefill with the last position's logits or all of them
e = 4
KV = L * B * S * 2 * H * e
base = W + IDS + KV
rc, last, err = run(["--method", "inference", "--precision", "fp32", "--batch", str(B), "--seq", str(S),
                     "--warmup", "0", "--steps", "1", "--logits", "last"])
rc2, allp, err2 = run(["--method", "inference", "--precision", "fp32", "--batch", str(B), "--seq", str(S),
                       "--warmup", "0", "--steps", "1", "--logits", "all"])
ok = last is not None and allp is not None and last["status"] == allp["status"] == "ok"
NXT = B * 8                            # the next token (int64), picked while the logits live
check(ok and phases(last, 1)["prefill"] == base + max(WORK, B * V * 4 + NXT)
      and phases(allp, 1)["prefill"] == base + max(WORK, LOGITS + NXT),
      "inference: prefill keeps one position's logits (last) or every position's (all)",
      (phases(last, 1), phases(allp, 1)) if ok else (rc, err[-300:], rc2, err2[-300:]))
check(ok and "decode" in phases(last, 1) and phases(last, 1)["decode"] > base,
      "inference: the decode phase is measured after the prefill")
check(ok and last["params"]["total"] == ELEMS and last["load"]["allocated"] == W,
      "inference: the weights are the load", ok and (last["params"], last["load"]))
rc, res, err = run(["--method", "inference", "--precision", "fp32", "--seq", "16", "--logits", "last"],
                   FAKE_TRANSFORMERS_NO_KEEP=1)
check(res is not None and res["status"] == "skipped" and "logits_to_keep" in (res["reason"] or "")
      and not res["steps"], "--logits last on a forward without logits_to_keep: skipped, no number",
      res and res["reason"])
rc, res, err = run(["--method", "inference", "--precision", "fp32", "--seq", "16", "--logits", "all"],
                   FAKE_TRANSFORMERS_NO_KEEP=1)
check(res is not None and res["status"] == "ok", "--logits all needs no logits_to_keep", res and res["reason"])

# ---- out of memory is a result
cap = bwd1 + 1                          # step 1's forward and backward fit, its states do not
rc, res, err = run(["--method", "full", "--precision", "fp32", "--batch", str(B), "--seq", str(S),
                    "--warmup", "1", "--steps", "1"], FAKE_TORCH_CAPACITY=cap)
check(rc == 0 and res is not None and res["status"] == "oom" and res["oom"]["step"] == 1
      and res["oom"]["phase"] == "optimizer" and "out of memory" in res["oom"]["message"]
      and res["steps"] == [] and res["step1"] is None,
      "out of memory in step 1's optimizer step: status oom, where, no partial step",
      (rc, res and res.get("oom"), res and res["steps"]))
rc, res, err = run(["--method", "full", "--precision", "fp32"], FAKE_TORCH_CAPACITY=W // 2)
check(rc == 0 and res is not None and res["status"] == "oom" and res["oom"]["phase"] == "load",
      "out of memory while building the model: status oom in phase load", res and res.get("oom"))

# ---- what cannot run is skipped with the reason, never a number
for env, args, want, name in (
        ({"FAKE_TORCH_NO_CUDA": 1}, ["--method", "full"], "sees no CUDA device", "no CUDA device"),
        ({"FAKE_TORCH_NO_BF16": 1}, ["--method", "full", "--precision", "bf16"], "does not support it",
         "bf16 on a GPU without it"),
        ({}, ["--method", "qlora"], "bitsandbytes", "QLoRA without bitsandbytes"),
        ({}, ["--method", "full", "--optimizer", "adamw-8bit"], "bitsandbytes", "8-bit AdamW without bitsandbytes"),
        ({}, ["--method", "full", "--attn", "flash", "--precision", "bf16"], "flash-attn", "flash without flash-attn")):
    rc, res, err = run(args, **env)
    check(rc == 0 and res is not None and res["status"] == "skipped" and want in (res["reason"] or "")
          and res["step1"] is None and res["peak"] is None,
          "skipped: %s" % name, (rc, res and res["reason"], err[-300:]))

# ---- the dtype keyword: dtype= (transformers >= 4.56), torch_dtype= before
# it, and a transformers that ignores both (never measured in the wrong dtype)
for mode, want in (("dtype", "ok"), ("torch_dtype", "ok"), ("ignored", "skipped")):
    rc, res, err = run(["--method", "full", "--precision", "bf16", "--seq", "64", "--warmup", "0",
                        "--steps", "1"], FAKE_TRANSFORMERS_DTYPE_KW=mode)
    okk = res is not None and res["status"] == want
    if okk and want == "ok":
        okk = res["load"]["allocated"] == ELEMS * 2
    if okk and want == "skipped":
        okk = "built the weights in torch.float32, not torch.bfloat16" in res["reason"]
    check(okk, "from_config's dtype keyword: %s -> %s" % (mode, want),
          res and (res["status"], res["reason"], res["load"]))

bad = os.path.join(tmp, "bad.json")
with open(bad, "w") as f:
    json.dump(dict(CFG, model_type="not_a_model"), f)
p = subprocess.run([sys.executable, HARNESS, "--config", bad], capture_output=True, text=True,
                   env=dict(os.environ, PYTHONPATH=FAKES), timeout=120)
res = json.loads(p.stdout) if p.stdout.strip() else None
check(res is not None and res["status"] == "skipped" and "cannot build model_type not_a_model" in res["reason"],
      "a model type transformers does not know: skipped with the reason", res and res["reason"])

# ---- gpusizer verify running this harness (not the stand-in harness): the
# JSON the real harness prints is the JSON verify reads. GPUSIZER_FAKE_GPU
# describes a GPU, so nothing is sampled and nothing is stored.


def verify(args, **env):
    e = dict(os.environ, PYTHONPATH=FAKES, GPUSIZER_FAKE_GPU="NVIDIA Test GPU 24GB,25769803776,550.00,12.4")
    e.update({k: str(v) for k, v in env.items()})
    out = os.path.join(tmp, "out")
    p = subprocess.run(GS + ["verify", "--config", CONFIG, "--harness", HARNESS, "--out", out, "--no-store",
                             "--warmup", "1", "--steps", "1"] + args,
                       capture_output=True, text=True, env=e, timeout=300)
    reps = [os.path.join(out, "verify", f) for f in sorted(os.listdir(os.path.join(out, "verify")))] \
        if os.path.isdir(os.path.join(out, "verify")) else []
    return p.returncode, p.stdout + p.stderr, reps


# --no-grad-ckpt: the harness's own run above did not checkpoint (the
# default stack, hf,trl, would)
rc, text, reps = verify(["--method", "full", "--precision", "fp32", "--batch", str(B), "--seq", str(S),
                         "--no-grad-ckpt"])
jrep = [r for r in reps if r.endswith(".json") and "full-fp32" in r]
try:
    rep = json.load(open(jrep[0]))
except (IndexError, OSError, ValueError):
    rep = None
check(rc in (0, 12) and rep is not None and rep["harness_result"]["harness"] == "gpusizer-harness"
      and rep["measured"]["allocated"] == max(opt1, bwd2) and rep["measured"]["device"] is None,
      "verify reads the real harness's result: measured allocated = the harness's peak",
      (rc, text[-600:], rep and rep["measured"]))
md = open(jrep[0][:-5] + ".md").read() if jrep else ""
check("| 2 | forward |" in md and md.index("| 2 | forward |") < md.index("| 2 | backward |")
      < md.index("| 2 | optimizer |"), "verify's report lists the phases in the order they run")
rc, text, reps = verify(["--method", "full", "--precision", "fp32", "--batch", str(B), "--seq", str(S),
                         "--no-grad-ckpt"], FAKE_TORCH_CAPACITY=bwd1 + 1)
check(rc == 12 and "out of memory" in text and "disagree" in text,
      "verify: the harness's out-of-memory where the prediction fits -> exit 12", (rc, text[-400:]))
rc, text, reps = verify(["--method", "full"], FAKE_TORCH_NO_CUDA=1)
check(rc == 13 and "sees no CUDA device" in text, "verify: the harness skipped -> exit 13 with its reason",
      (rc, text[-400:]))

shutil.rmtree(tmp, ignore_errors=True)
raise SystemExit(check.status())
