#!/usr/bin/env python3
"""tools/harness.py argument handling, without torch (python3 stdlib only).

Runs the real harness with --dry-run (it validates the arguments and prints
its plan without importing torch), with good and bad arguments, and checks
that every command line `gpusizer verify --dry-run` builds is accepted by the
harness. One run without --dry-run, with a `torch` that cannot be imported,
checks the "skipped" result and that stdout holds exactly one JSON object.
No GPU and no measurement are involved.
"""
import json
import os
import subprocess
import sys
import tempfile

from lib import GS, TOP, Checks

os.chdir(TOP)
HARNESS = os.path.join("tools", "harness.py")
QWEN = os.path.join("models", "Qwen--Qwen2.5-0.5B", "config.json")
GPT2 = os.path.join("models", "openai-community--gpt2", "config.json")
PHI3 = os.path.join("models", "microsoft--Phi-3-mini-4k-instruct", "config.json")
BERT = os.path.join("models", "google-bert--bert-base-uncased", "config.json")
check = Checks("harness args: ")
tmp = tempfile.mkdtemp(prefix="gs_t_harness.")
# A torch that cannot be imported: proves --dry-run never imports it.
with open(os.path.join(tmp, "torch.py"), "w") as f:
    f.write("raise ImportError('torch is deliberately unavailable in this test')\n")
ENV = dict(os.environ, PYTHONPATH=tmp + os.pathsep + os.environ.get("PYTHONPATH", ""))


def harness(args):
    p = subprocess.run([sys.executable, HARNESS] + args, capture_output=True, text=True, env=ENV,
                       timeout=60)
    return p.returncode, p.stdout, p.stderr


def plan(args):
    rc, out, err = harness(["--dry-run"] + args)
    try:
        return rc, json.loads(out)["plan"], err
    except (ValueError, KeyError):
        return rc, None, err


# Good arguments.
rc, p, err = plan(["--config", QWEN])
check(rc == 0 and p and p["method"] == "full" and p["precision"] == "amp-bf16"
      and p["weights_dtype"] == "float32" and p["autocast_dtype"] == "bfloat16" and p["skip"] is None,
      "defaults: full amp-bf16 = fp32 weights + bf16 autocast", "%d %s %s" % (rc, p, err))
rc, p, err = plan(["--config", QWEN, "--method", "full", "--precision", "bf16", "--optimizer", "adamw-fused",
                   "--batch", "4", "--seq", "512", "--grad-ckpt", "on", "--attn", "eager"])
check(rc == 0 and p["weights_dtype"] == "bfloat16" and p["autocast_dtype"] is None and p["grad_ckpt"] is True
      and p["attn_implementation"] == "eager" and p["batch"] == 4 and p["seq"] == 512
      and "fused=True" in p["optimizer_impl"], "full bf16 pure, fused AdamW, ckpt, eager", str(p))
rc, p, err = plan(["--config", QWEN, "--method", "full", "--precision", "amp-fp16"])
check(rc == 0 and p["grad_scaler"] is True and p["autocast_dtype"] == "float16", "amp-fp16 uses a GradScaler", str(p))
rc, p, err = plan(["--config", QWEN, "--method", "lora", "--lora-r", "8", "--lora-targets", "attn",
                   "--adapter-dtype", "bf16", "--train-embeddings", "true", "--lora-dropout", "0"])
check(rc == 0 and p["lora"]["target_modules"] == ["q_proj", "k_proj", "v_proj", "o_proj"]
      and p["lora"]["r"] == 8 and p["lora"]["adapter_dtype"] == "bf16"
      and p["lora"]["modules_to_save"] == ["embed_tokens", "lm_head"] and p["weights_dtype"] == "bfloat16",
      "lora: attn preset, bf16 adapters, trained embeddings", str(p))
rc, p, err = plan(["--config", QWEN, "--method", "lora", "--lora-targets", "all-linear"])
check(rc == 0 and p["lora"]["target_modules"] == "all-linear", "lora: all-linear", str(p))
rc, p, err = plan(["--config", QWEN, "--method", "lora", "--lora-targets", "q_proj,up_proj"])
check(rc == 0 and p["lora"]["target_modules"] == ["q_proj", "up_proj"], "lora: explicit module names", str(p))
rc, p, err = plan(["--config", GPT2, "--method", "lora", "--seq", "1024"])
check(rc == 0 and p["lora"]["target_modules"] == ["c_attn"], "lora qv on GPT-2 = fused c_attn", str(p))
rc, p, err = plan(["--config", PHI3, "--method", "lora"])
check(rc == 0 and p["lora"]["target_modules"] == ["qkv_proj"], "lora qv on Phi-3 = fused qkv_proj", str(p))
rc, p, err = plan(["--config", QWEN, "--method", "qlora", "--precision", "nf4-dq", "--optimizer", "paged-adamw-8bit"])
check(rc == 0 and p["quantization"]["type"] == "nf4" and p["quantization"]["double_quant"] is True
      and "PagedAdamW8bit" in p["optimizer_impl"], "qlora nf4-dq with paged 8-bit AdamW", str(p))
rc, p, err = plan(["--config", QWEN, "--method", "qlora", "--precision", "nf4"])
check(rc == 0 and p["kbit_prep"] is True and p["autocast_dtype"] == "bfloat16",
      "qlora nf4: PEFT's k-bit preparation under bf16 autocast by default (gpusizer's auto)", str(p))
rc, p, err = plan(["--config", QWEN, "--method", "qlora", "--precision", "nf4", "--kbit-prep", "off"])
check(rc == 0 and p["kbit_prep"] is False and p["autocast_dtype"] is None, "qlora nf4 --kbit-prep off: as loaded",
      str(p))
rc, p, err = plan(["--config", QWEN, "--method", "lora", "--kbit-prep", "on"])
check(rc == 0 and p["kbit_prep"] is False, "a bf16 LoRA base has nothing to prepare", str(p))
rc, p, err = plan(["--config", QWEN, "--method", "inference", "--batch", "2", "--seq", "4096"])
check(rc == 0 and p["use_cache"] is True and p["optimizer"] is None and p["kv_dtype"] == "bf16"
      and p["decode_tokens"] == 8, "inference: KV cache at the compute dtype", str(p))
rc, p, err = plan(["--config", QWEN, "--train-embeddings", "true"])
check(rc == 0 and "ignored" in p.get("train_embeddings", ""), "train-embeddings with full is noted as ignored", str(p))
rc, p, err = plan(["--config", os.path.dirname(QWEN)])
check(rc == 0 and p["config"].endswith("config.json"), "--config accepts the model directory", str(p))

# Combinations the harness reports as skipped (never a number).
for args, what, frag in [
        (["--config", QWEN, "--precision", "mixed-bf16"], "mixed-bf16 not implemented", "master copy"),
        (["--config", QWEN, "--method", "lora", "--precision", "gptq-int4"], "gptq not implemented", "gptq-int4"),
        (["--config", GPT2, "--seq", "4096"], "GPT-2 beyond its learned positions", "1024 learned positions"),
        (["--config", BERT], "encoder model", "encoder"),
        (["--config", QWEN, "--precision", "fp32", "--attn", "flash"], "flash attention with fp32", "flash"),
        (["--config", QWEN, "--method", "inference", "--kv-dtype", "fp8"], "fp8 KV cache", "kv-dtype"),
        (["--config", QWEN, "--method", "inference", "--attn", "eager-upcast"], "eager-upcast attention",
         "eager-upcast"),
        (["--config", QWEN, "--method", "inference", "--attn", "math"], "SDPA's math backend", "--attn math"),
        (["--config", QWEN, "--method", "inference", "--kv-dtype", "int8"], "int8 KV cache", "kv-dtype int8")]:
    rc, p, err = plan(args)
    check(rc == 0 and p and p["skip"] and frag in p["skip"], "skip: " + what, str(p and p["skip"]))

# Bad arguments: exit 2 with a message naming the problem.
bad_cfg = os.path.join(tmp, "bad.json")
with open(bad_cfg, "w") as f:
    f.write("{not json")
no_type = os.path.join(tmp, "notype.json")
with open(no_type, "w") as f:
    json.dump({"hidden_size": 8}, f)
for args, what, frag in [
        ([], "missing --config", "--config"),
        (["--config", "/nonexistent/config.json"], "config not found", "/nonexistent/config.json"),
        (["--config", bad_cfg], "config not JSON", "not valid JSON"),
        (["--config", no_type], "config without model_type", "model_type"),
        (["--config", QWEN, "--method", "pretrain"], "unknown method", "--method"),
        (["--config", QWEN, "--batch", "0"], "batch 0", "--batch"),
        (["--config", QWEN, "--seq", "x"], "seq not a number", "--seq"),
        (["--config", QWEN, "--precision", "nf4"], "nf4 with full fine-tuning", "storage format"),
        (["--config", QWEN, "--method", "lora", "--precision", "amp-bf16"], "amp recipe with lora", "recipe"),
        (["--config", QWEN, "--method", "qlora", "--precision", "bf16"], "qlora on a bf16 base", "quantized"),
        (["--config", QWEN, "--method", "lora", "--lora-dropout", "1.5"], "dropout out of range", "--lora-dropout"),
        (["--config", QWEN, "--method", "lora", "--lora-targets", "q_proj,,v_proj"], "empty target name", "empty"),
        (["--config", QWEN, "--grad-ckpt", "maybe"], "bad boolean", "--grad-ckpt"),
        (["--config", QWEN, "--attn", "xformers"], "unknown attention", "--attn"),
        (["--config", QWEN, "--optimizer", "adam"], "unknown optimizer", "--optimizer"),
        (["--config", QWEN, "--steps", "0"], "zero steps", "--steps")]:
    rc, out, err = harness(["--dry-run"] + args)
    check(rc == 2 and frag in err and out == "", "bad: " + what, "rc=%d err=%s" % (rc, err.strip()[-200:]))

# Without --dry-run and without torch: one JSON object on stdout, status skipped.
rc, out, err = harness(["--config", QWEN, "--method", "lora", "--warmup", "0", "--steps", "1"])
lines = out.strip().splitlines()
try:
    res = json.loads(out)
except ValueError:
    res = None
check(rc == 0 and len(lines) == 1 and res and res["status"] == "skipped"
      and "torch could not be imported" in res["reason"] and res["harness"] == "gpusizer-harness"
      and res["versions"]["python"], "no torch -> one JSON line, status skipped with the reason", out + err)

# --logits: the prefill keeps the last position's logits unless told otherwise.
rc, p, err = plan(["--config", QWEN, "--method", "inference"])
check(rc == 0 and p and p.get("logits") == "last", "inference plans default to --logits last", err)
rc, p, err = plan(["--config", QWEN, "--method", "inference", "--logits", "all"])
check(rc == 0 and p and p.get("logits") == "all", "--logits all reaches the plan", err)
rc, p, err = plan(["--config", QWEN, "--method", "inference", "--logits", "some"])
check(rc == 2 and "--logits" in err, "--logits some: usage error naming the flag", err)

# Every command line gpusizer builds is accepted by the harness.
grid = [
    [],
    ["--precision", "fp32", "--optimizer", "sgd-momentum", "--attn", "eager", "--grad-ckpt"],
    ["--precision", "bf16", "--optimizer", "adafactor", "--loss", "chunked", "--grad-accum", "4"],
    ["--precision", "amp-fp16", "--optimizer", "adamw-8bit", "--attn", "flash"],
    ["--method", "lora", "--lora-r", "64", "--lora-targets", "all-linear", "--optimizer", "lion"],
    ["--method", "lora", "--lora-targets", "attn", "--adapter-dtype", "bf16", "--train-embeddings"],
    ["--method", "qlora", "--precision", "nf4-dq", "--optimizer", "paged-adamw-32bit", "--lora-dropout", "0.1"],
    ["--method", "qlora", "--precision", "nf4", "--kbit-prep", "off"],
    ["--method", "lora", "--loss", "legacy"],
    ["--method", "inference", "--batch", "8", "--seq", "512", "--kv-dtype", "bf16"],
    ["--method", "inference", "--logits", "all"],
]
for extra in grid:
    p = subprocess.run(GS + ["verify", "Qwen/Qwen2.5-0.5B", "--offline", "--models-dir", "models",
                               "--dry-run"] + extra, capture_output=True, text=True, timeout=120)
    try:
        av = json.loads(p.stdout)["harness_argv"]
    except (ValueError, KeyError):
        check(False, "gpusizer verify --dry-run " + " ".join(extra), p.stderr.strip())
        continue
    rc, out, err = harness(["--dry-run"] + av[2:])
    try:
        hp = json.loads(out)["plan"]
    except (ValueError, KeyError):
        hp = None
    ok = rc == 0 and hp is not None
    if ok:
        a = dict(zip(av[2::2], av[3::2]))
        ok = (hp["method"] == a["--method"] and hp["precision"] == a["--precision"]
              and str(hp["batch"]) == a["--batch"] and str(hp["seq"]) == a["--seq"]
              and str(hp["grad_accum"]) == a["--grad-accum"]
              and (hp["method"] != "inference" or hp["logits"] == a["--logits"]))
    check(ok, "harness accepts gpusizer's command line: " + (" ".join(extra) or "defaults"),
          "rc=%d %s %s" % (rc, err.strip()[-300:], av))

import shutil
shutil.rmtree(tmp, ignore_errors=True)
sys.exit(check.status())
