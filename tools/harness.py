#!/usr/bin/env python3
"""gpusizer verify harness: run one sizing row on the local GPU and measure it.

Builds the model from its config.json with random weights (no download),
applies the method (full fine-tuning under a precision recipe, LoRA via peft,
QLoRA via bitsandbytes, inference), the optimizer, a random batch of tokens,
gradient checkpointing and the attention implementation; runs warm-up and
measured steps and prints ONE JSON object on stdout:

  {"status": "ok" | "oom" | "skipped", "reason": ..., "versions": {...},
   "plan": {...}, "load": {"allocated": B, "reserved": B},
   "steps": [{"step": 1, "warmup": true, "phases": {"forward": {...},
              "backward": {...}, "optimizer": {...}}, "allocated": B,
              "reserved": B, "end_allocated": B, "end_reserved": B}, ...],
   "step1": {...}, "steady": {...} | null, "peak": {...}}

Byte figures are torch.cuda.max_memory_allocated()/max_memory_reserved()
per phase (the peak counters are reset at each phase start). "forward"
includes the loss. Inference has phases "prefill" and "decode".

A combination this machine or this harness cannot run (a package missing,
bf16 on a GPU without it, a recipe not implemented) is reported as
{"status": "skipped", "reason": ...}, never as a number. An out-of-memory
error is a result: {"status": "oom", "oom": {"step", "phase", "message"}}.

Before the first measured step the harness writes the line
"gpusizer-harness: measure-begin" on stderr, so gpusizer's NVML sampling of
the device-level peak leaves out the model-building phase.

`--dry-run` validates the arguments and prints the plan as JSON without
importing torch (tests run it on machines without torch). Exit status: 0
when a JSON result was printed (whatever its status), 2 for bad arguments.
"""

import argparse
import inspect
import json
import os
import sys

METHODS = ["full", "lora", "qlora", "inference"]
PRECISIONS = ["fp32", "amp-bf16", "amp-fp16", "mixed-bf16", "mixed-fp16", "bf16", "fp16",
              "fp8-mixed", "fp8", "int8", "nf4", "nf4-dq", "gptq-int4", "gptq-int8", "awq-int4"]
FULL_RECIPES = ["fp32", "amp-bf16", "amp-fp16", "mixed-bf16", "mixed-fp16", "bf16", "fp16",
                "fp8-mixed"]
STORAGE = ["fp32", "bf16", "fp16", "fp8", "int8", "nf4", "nf4-dq", "gptq-int4", "gptq-int8",
           "awq-int4"]
OPTIMIZERS = ["adamw", "adamw-fused", "adamw-8bit", "paged-adamw-8bit", "paged-adamw-32bit", "sgd",
              "sgd-momentum", "lion", "adafactor"]
ATTNS = {"sdpa": "sdpa", "eager": "eager", "flash": "flash_attention_2", "eager-upcast": "eager",
         "math": "sdpa", "math-legacy": "sdpa"}
LOSSES = ["standard", "chunked", "legacy", "fused", "fused-chunks"]
DTYPES = ["fp32", "bf16", "fp16", "fp8", "int8"]
DEFAULT_PRECISION = {"full": "amp-bf16", "lora": "bf16", "qlora": "nf4", "inference": "bf16"}
MARKER = "gpusizer-harness: measure-begin"
CHUNK_TOKENS = 1024  # chunked loss: tokens per lm_head + cross-entropy chunk

# LoRA target presets by model family (module names as transformers names them).
LLAMA_LIKE = {"qv": ["q_proj", "v_proj"], "attn": ["q_proj", "k_proj", "v_proj", "o_proj"]}
TARGET_PRESETS = {
    "gpt2": {"qv": ["c_attn"], "attn": ["attn.c_attn", "attn.c_proj"]},
    "phi3": {"qv": ["qkv_proj"], "attn": ["qkv_proj", "o_proj"]},
    "gpt_neox": {"qv": ["query_key_value"], "attn": ["query_key_value", "dense"]},
    "falcon": {"qv": ["query_key_value"], "attn": ["query_key_value", "dense"]},
}
EMBED_NAMES = {"gpt2": ["wte", "lm_head"], "gpt_neox": ["embed_in", "embed_out"]}
ENCODERS = {"bert", "roberta", "distilbert", "deberta", "deberta-v2", "electra", "albert"}
LEARNED_POSITIONS = {"gpt2", "gpt_neo", "opt", "gptj", "bloom"}


class ArgError(Exception):
    pass


def bool_arg(s):
    v = s.strip().lower()
    if v in ("1", "true", "on", "yes"):
        return True
    if v in ("0", "false", "off", "no"):
        return False
    raise argparse.ArgumentTypeError("not a boolean: %r (true/false)" % s)


def pos_int(s):
    try:
        v = int(s, 10)
    except ValueError:
        raise argparse.ArgumentTypeError("not an integer: %r" % s)
    if v < 1:
        raise argparse.ArgumentTypeError("must be at least 1: %r" % s)
    return v


def nonneg_int(s):
    try:
        v = int(s, 10)
    except ValueError:
        raise argparse.ArgumentTypeError("not an integer: %r" % s)
    if v < 0:
        raise argparse.ArgumentTypeError("must not be negative: %r" % s)
    return v


def dropout_arg(s):
    try:
        v = float(s)
    except ValueError:
        raise argparse.ArgumentTypeError("not a number: %r" % s)
    if not 0.0 <= v < 1.0:
        raise argparse.ArgumentTypeError("must be in [0, 1): %r" % s)
    return v


def parser():
    p = argparse.ArgumentParser(
        prog="harness.py",
        description="Measure one gpusizer row on the local GPU (random weights from config.json).")
    p.add_argument("--config", required=True, help="path to the model's config.json")
    p.add_argument("--method", choices=METHODS, default="full")
    p.add_argument("--precision", choices=PRECISIONS, default=None,
                   help="full: recipe; lora/qlora/inference: base weight storage")
    p.add_argument("--adapter-dtype", choices=["fp32", "bf16"], default="fp32")
    p.add_argument("--optimizer", choices=OPTIMIZERS, default="adamw")
    p.add_argument("--lora-r", type=pos_int, default=16)
    p.add_argument("--lora-targets", default="qv",
                   help="qv, attn, all-linear, or comma-separated module names")
    p.add_argument("--lora-dropout", type=dropout_arg, default=0.05)
    p.add_argument("--train-embeddings", type=bool_arg, default=False)
    p.add_argument("--kbit-prep", choices=["auto", "on", "off"], default="auto",
                   help="quantized base: PEFT's prepare_model_for_kbit_training (auto: on for "
                        "bitsandbytes and AWQ bases, as gpusizer's --kbit-prep on one GPU)")
    p.add_argument("--batch", type=pos_int, default=1)
    p.add_argument("--seq", type=pos_int, default=2048)
    p.add_argument("--grad-accum", type=pos_int, default=1)
    p.add_argument("--grad-ckpt", type=bool_arg, default=False)
    p.add_argument("--attn", choices=sorted(ATTNS), default="sdpa")
    p.add_argument("--loss", choices=LOSSES, default="standard")
    p.add_argument("--kv-dtype", choices=DTYPES, default=None,
                   help="inference KV cache dtype (default: the compute dtype)")
    p.add_argument("--logits", choices=["last", "all", "all-fp32"], default="last",
                   help="inference prefill: the last position's logits (generate(), "
                        "logits_to_keep=1), every position's (a plain forward), or every "
                        "position's cast to fp32 with the 16-bit copy alive (older heads)")
    p.add_argument("--warmup", type=nonneg_int, default=1,
                   help="warm-up steps (step 1 is the first of them when > 0)")
    p.add_argument("--steps", type=pos_int, default=2, help="measured steps after warm-up")
    p.add_argument("--decode-tokens", type=nonneg_int, default=8,
                   help="inference: tokens decoded after the prefill")
    p.add_argument("--new-tokens", type=nonneg_int, default=None,
                   help="inference: tokens generated after the prompt (gpusizer's --new-tokens; "
                        "overrides --decode-tokens)")
    p.add_argument("--seed", type=nonneg_int, default=0)
    p.add_argument("--dry-run", "--print-plan", dest="dry_run", action="store_true",
                   help="validate the arguments, print the plan as JSON, run nothing")
    return p


def read_config(path):
    if os.path.isdir(path):
        path = os.path.join(path, "config.json")
    try:
        with open(path, "r", encoding="utf-8") as f:
            cfg = json.load(f)
    except OSError as e:
        raise ArgError("--config %s: %s" % (path, e.strerror or e))
    except ValueError as e:
        raise ArgError("--config %s: not valid JSON (%s)" % (path, e))
    if not isinstance(cfg, dict):
        raise ArgError("--config %s: not a JSON object" % path)
    mt = cfg.get("model_type")
    if not isinstance(mt, str) or not mt:
        raise ArgError("--config %s: missing \"model_type\"" % path)
    return path, cfg


def split_targets(model_type, spec):
    """LoRA target_modules for peft: a preset or explicit names."""
    if spec == "all-linear":
        return "all-linear"
    if spec in ("qv", "attn"):
        return list(TARGET_PRESETS.get(model_type, LLAMA_LIKE)[spec])
    names = [s.strip() for s in spec.split(",")]
    if not names or any(not n for n in names):
        raise ArgError("--lora-targets %r: empty module name" % spec)
    return names


def make_plan(a):
    """Validate cross-argument consistency and describe what a run will do.
    Raises ArgError for bad input; sets plan["skip"] for what cannot run."""
    path, cfg = read_config(a.config)
    mt = cfg["model_type"]
    prec = a.precision or DEFAULT_PRECISION[a.method]
    if a.method == "full" and prec not in FULL_RECIPES:
        raise ArgError("--precision %s is a storage format; --method full takes %s"
                       % (prec, ", ".join(FULL_RECIPES)))
    if a.method != "full" and prec not in STORAGE:
        raise ArgError("--precision %s is a full fine-tuning recipe; --method %s takes %s"
                       % (prec, a.method, ", ".join(STORAGE)))
    if a.method == "qlora" and prec not in ("nf4", "nf4-dq", "int8", "fp8", "gptq-int4",
                                            "gptq-int8", "awq-int4"):
        raise ArgError("--method qlora needs a quantized base, not --precision %s" % prec)
    skip = None
    plan = {
        "config": path, "model_type": mt, "method": a.method, "precision": prec,
        "optimizer": a.optimizer if a.method != "inference" else None,
        "batch": a.batch, "seq": a.seq, "grad_accum": a.grad_accum,
        "grad_ckpt": a.grad_ckpt and a.method != "inference",
        "attn_implementation": ATTNS[a.attn], "loss": a.loss,
        "warmup": a.warmup, "steps": a.steps, "seed": a.seed,
    }
    # Weight storage and compute dtypes per recipe (MEMORY-MODEL.md section 3).
    weights, autocast, quant = None, None, None
    if prec == "fp32":
        weights = "float32"
    elif prec in ("amp-bf16", "amp-fp16"):
        weights, autocast = "float32", ("bfloat16" if prec == "amp-bf16" else "float16")
    elif prec in ("bf16", "fp16"):
        weights = "bfloat16" if prec == "bf16" else "float16"
    elif prec in ("nf4", "nf4-dq"):
        weights, quant = "bfloat16", {"type": "nf4", "double_quant": prec == "nf4-dq",
                                      "compute_dtype": "bfloat16",
                                      "not_quantized": "embeddings, lm_head, norms"}
    elif prec in ("mixed-bf16", "mixed-fp16"):
        skip = ("--precision %s (DeepSpeed-style bf16/fp16 weights with an fp32 master copy) is "
                "not implemented in the harness" % prec)
    else:
        skip = "--precision %s is not implemented in the harness" % prec
    # PEFT's k-bit preparation (gpusizer's --kbit-prep; one GPU here): the
    # unquantized parameters cast to fp32, the step under bf16 autocast as
    # the HF Trainer runs it. PEFT never casts a GPTQ base.
    kbit = a.method in ("lora", "qlora") and prec in ("int8", "nf4", "nf4-dq", "awq-int4") and (
        a.kbit_prep != "off")
    if kbit:
        autocast = "bfloat16"
    plan.update({"weights_dtype": weights, "autocast_dtype": autocast, "quantization": quant,
                 "grad_scaler": prec == "amp-fp16", "kbit_prep": kbit})
    if a.method in ("lora", "qlora"):
        plan["lora"] = {
            "r": a.lora_r, "alpha": 2 * a.lora_r, "dropout": a.lora_dropout,
            "target_modules": split_targets(mt, a.lora_targets),
            "adapter_dtype": a.adapter_dtype,
            "modules_to_save": (EMBED_NAMES.get(mt, ["embed_tokens", "lm_head"])
                                if a.train_embeddings else None),
        }
    elif a.train_embeddings:
        plan["train_embeddings"] = "ignored: applies to lora/qlora only"
    opt_impl = {
        "adamw": "torch.optim.AdamW (foreach)", "adamw-fused": "torch.optim.AdamW(fused=True)",
        "adamw-8bit": "bitsandbytes.optim.AdamW8bit",
        "paged-adamw-8bit": "bitsandbytes.optim.PagedAdamW8bit",
        "paged-adamw-32bit": "bitsandbytes.optim.PagedAdamW32bit",
        "sgd": "torch.optim.SGD(momentum=0)", "sgd-momentum": "torch.optim.SGD(momentum=0.9)",
        "lion": "bitsandbytes.optim.Lion (32-bit)",
        "adafactor": "transformers.optimization.Adafactor(scale_parameter=False, relative_step=False)",
    }
    if a.method != "inference":
        plan["optimizer_impl"] = opt_impl[a.optimizer]
    else:
        plan["decode_tokens"] = a.new_tokens if a.new_tokens is not None else a.decode_tokens
        plan["use_cache"] = True
        plan["logits"] = a.logits
        kv = a.kv_dtype
        comp = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16"}.get(
            autocast or weights or "", None)
        if quant:
            comp = "bf16"
        plan["kv_dtype"] = kv or comp
        if kv is not None and comp is not None and kv != comp and skip is None:
            skip = "--kv-dtype %s differs from the compute dtype (%s): not implemented" % (kv, comp)
    if mt in ENCODERS and skip is None:
        skip = "model_type %s is an encoder; the harness measures causal LMs" % mt
    maxpos = cfg.get("n_positions", cfg.get("max_position_embeddings"))
    if (mt in LEARNED_POSITIONS and isinstance(maxpos, int) and a.seq > maxpos and skip is None):
        skip = "--seq %d exceeds the model's %d learned positions" % (a.seq, maxpos)
    if a.attn == "eager-upcast" and skip is None:
        skip = ("--attn eager-upcast (softmax of the scores up-cast to fp32: AutoAWQ's fused attention, "
                "remote code) is not transformers' eager attention, which the harness runs")
    math_backend = {"math": "SDPA's math backend forced for every step, as gpt-fast's decode",
                    "math-legacy": "SDPA's math backend as PyTorch before 2.5 ran it"}
    if a.attn in math_backend and skip is None:
        skip = "--attn %s (%s) is not implemented in the harness" % (a.attn, math_backend[a.attn])
    if a.attn == "flash" and weights == "float32" and autocast is None and skip is None:
        skip = "flash attention needs fp16/bf16 activations (not with --precision fp32)"
    if a.loss == "chunked" and a.method == "inference" and skip is None:
        skip = "--loss chunked applies to training"
    fused_losses = {"fused": "Liger's fused linear cross-entropy", "fused-chunks": "Unsloth's fused loss"}
    if a.loss in fused_losses and skip is None:
        skip = "--loss %s (%s) is not implemented in the harness" % (a.loss, fused_losses[a.loss])
    if a.method != "inference" and a.warmup + a.steps < 1:
        raise ArgError("--warmup + --steps must be at least 1")
    plan["skip"] = skip
    return plan, cfg


# ---------------------------------------------------------------- run (torch)

class Skip(Exception):
    pass


def pkg_version(name):
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:
        return None


def driver_version():
    import shutil
    import subprocess
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        line = out.stdout.strip().splitlines()
        return line[0].strip() if line else None
    except Exception:
        return None


def versions(torch=None):
    import platform
    v = {"python": platform.python_version(), "torch": None, "transformers": pkg_version("transformers"),
         "peft": pkg_version("peft"), "bitsandbytes": pkg_version("bitsandbytes"),
         "flash_attn": pkg_version("flash-attn") or pkg_version("flash_attn"),
         "cuda_runtime": None, "driver": driver_version(), "gpu_name": None,
         "compute_capability": None}
    if torch is not None:
        v["torch"] = torch.__version__
        v["cuda_runtime"] = torch.version.cuda
        try:
            if torch.cuda.is_available():
                v["gpu_name"] = torch.cuda.get_device_name(0)
                cc = torch.cuda.get_device_capability(0)
                v["compute_capability"] = "%d.%d" % cc
        except Exception:
            pass
    return v


def require(mod, why):
    import importlib
    try:
        return importlib.import_module(mod)
    except Exception as e:  # ImportError, or a broken install raising something else
        raise Skip("%s is needed for %s but could not be imported (%s)" % (mod, why, e))


def build_model(torch, transformers, plan, cfg):
    d = dict(cfg)
    mt = d.pop("model_type")
    for k in ("architectures", "transformers_version", "torch_dtype", "dtype", "quantization_config",
              "auto_map", "_name_or_path"):
        d.pop(k, None)
    try:
        config = transformers.AutoConfig.for_model(mt, **d)
    except (ValueError, KeyError) as e:
        raise Skip("transformers %s cannot build model_type %s (%s)"
                   % (transformers.__version__, mt, e))
    config.use_cache = plan["method"] == "inference"
    dtype = getattr(torch, plan["weights_dtype"])
    kwargs = {"attn_implementation": plan["attn_implementation"]}
    model, refused = None, None
    with torch.device("cuda"):
        # transformers 4.56 renamed torch_dtype to dtype; an older one passes
        # an unknown keyword on to the model class, which raises TypeError
        for name in ("dtype", "torch_dtype"):
            try:
                model = transformers.AutoModelForCausalLM.from_config(config, **{name: dtype}, **kwargs)
                break
            except TypeError as e:
                refused = e
            except ImportError as e:  # flash_attn missing, for one
                raise Skip("attention implementation %s unavailable (%s)"
                           % (plan["attn_implementation"], e))
            except ValueError as e:
                raise Skip("transformers refused the model (%s)" % e)
    if model is None:
        raise Skip("transformers %s: from_config took neither dtype= nor torch_dtype= (%s)"
                   % (transformers.__version__, refused))
    # Never measure a model in another dtype than the row's (a keyword that
    # was silently ignored would build fp32 weights).
    elems = {}
    for p in model.parameters():
        elems[p.dtype] = elems.get(p.dtype, 0) + p.numel()
    most = max(elems, key=elems.get) if elems else None
    if most != dtype:
        raise Skip("transformers %s built the weights in %s, not %s: this row cannot be measured"
                   % (transformers.__version__, most, dtype))
    return model


def quantize_nf4(torch, model, plan):
    """Replace each nn.Linear except the output head by a bitsandbytes NF4
    Linear4bit, one module at a time (as loading a 4-bit checkpoint leaves it;
    embeddings, lm_head and norms stay at bf16). Each bf16 weight is freed
    as soon as its module is replaced."""
    bnb = require("bitsandbytes", "NF4 quantization")
    q = plan["quantization"]
    head = model.get_output_embeddings()
    names = [n for n, m in model.named_modules() if isinstance(m, torch.nn.Linear) and m is not head]
    del head
    for name in names:
        parent_name, _, cname = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        child = getattr(parent, cname)
        new = bnb.nn.Linear4bit(child.in_features, child.out_features, bias=child.bias is not None,
                                compute_dtype=torch.bfloat16, compress_statistics=q["double_quant"],
                                quant_type="nf4", device="meta")
        kw = {"requires_grad": False, "compress_statistics": q["double_quant"], "quant_type": "nf4"}
        data = child.weight.data.to("cpu")
        try:
            w = bnb.nn.Params4bit(data, module=new, **kw)
        except TypeError:  # bitsandbytes before the module= argument
            w = bnb.nn.Params4bit(data, **kw)
        new.weight = w.to("cuda")  # quantizes
        if child.bias is not None:
            new.bias = torch.nn.Parameter(child.bias.data, requires_grad=False)
        setattr(parent, cname, new)
        del child, parent, new, w, data
    model.is_loaded_in_4bit = True
    return model


def apply_method(torch, model, plan):
    if plan["grad_ckpt"]:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if plan["method"] in ("lora", "qlora"):
        peft = require("peft", "LoRA")
        lo = plan["lora"]
        if plan.get("kbit_prep"):
            # checkpointing was set above, as the row asks
            model = peft.prepare_model_for_kbit_training(model, use_gradient_checkpointing=False)
        for p in model.parameters():
            p.requires_grad_(False)
        lc = peft.LoraConfig(r=lo["r"], lora_alpha=lo["alpha"], lora_dropout=lo["dropout"],
                             target_modules=lo["target_modules"], task_type="CAUSAL_LM",
                             modules_to_save=lo["modules_to_save"])
        try:
            model = peft.get_peft_model(model, lc,
                                        autocast_adapter_dtype=(lo["adapter_dtype"] == "fp32"))
        except TypeError:  # peft before autocast_adapter_dtype: adapters follow base dtype
            if lo["adapter_dtype"] == "fp32" and plan["weights_dtype"] != "float32":
                raise Skip("peft %s cannot keep fp32 adapters on a %s base"
                           % (pkg_version("peft"), plan["weights_dtype"]))
            model = peft.get_peft_model(model, lc)
        except ValueError as e:
            raise Skip("peft refused the LoRA targets (%s)" % e)
        if lo["adapter_dtype"] == "bf16":
            for n, p in model.named_parameters():
                if p.requires_grad and "lora_" in n:
                    p.data = p.data.to(torch.bfloat16)
    if plan["method"] == "inference":
        model.eval()
    else:
        model.train()
    return model


def make_optimizer(torch, params, name):
    lr = 1e-5
    if name == "adamw":
        return torch.optim.AdamW(params, lr=lr, foreach=True)
    if name == "adamw-fused":
        return torch.optim.AdamW(params, lr=lr, fused=True)
    if name == "sgd":
        return torch.optim.SGD(params, lr=lr, momentum=0.0)
    if name == "sgd-momentum":
        return torch.optim.SGD(params, lr=lr, momentum=0.9)
    if name == "adafactor":
        tr = require("transformers.optimization", "Adafactor")
        return tr.Adafactor(params, lr=lr, scale_parameter=False, relative_step=False,
                            warmup_init=False)
    bnb = require("bitsandbytes", "optimizer %s" % name)
    cls = {"adamw-8bit": "AdamW8bit", "paged-adamw-8bit": "PagedAdamW8bit",
           "paged-adamw-32bit": "PagedAdamW32bit", "lion": "Lion"}[name]
    return getattr(bnb.optim, cls)(params, lr=lr)


def chunked_loss(torch, model, ids):
    """Cross-entropy over chunks of CHUNK_TOKENS positions, each chunk's
    lm_head + fp32 logits recomputed in backward (torch checkpoint)."""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    body = getattr(base, "model", None)
    head = base.get_output_embeddings()
    if body is None or head is None:
        raise Skip("--loss chunked: model has no .model body / output head")
    hidden = body(input_ids=ids).last_hidden_state[:, :-1, :]
    labels = ids[:, 1:]
    n = labels.numel()

    def piece(h, y):
        logits = head(h).float()
        return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                                 y.reshape(-1), reduction="sum")

    total = None
    for s in range(0, labels.shape[1], CHUNK_TOKENS):
        part = torch.utils.checkpoint.checkpoint(piece, hidden[:, s:s + CHUNK_TOKENS],
                                                 labels[:, s:s + CHUNK_TOKENS], use_reentrant=False)
        total = part if total is None else total + part
    return total / n


class Meter:
    def __init__(self, torch):
        self.torch = torch

    def start(self):
        self.torch.cuda.synchronize()
        self.torch.cuda.reset_peak_memory_stats()

    def read(self):
        t = self.torch
        t.cuda.synchronize()
        r = {"allocated": int(t.cuda.max_memory_allocated()), "reserved": int(t.cuda.max_memory_reserved())}
        t.cuda.reset_peak_memory_stats()
        return r


def summarize(steps, first_measured):
    def peak_of(sel):
        best = None
        for s in sel:
            for ph, v in s["phases"].items():
                if best is None or v["allocated"] > best["allocated"]:
                    best = {"allocated": v["allocated"], "step": s["step"], "phase": ph}
        if best is None:
            return None
        best["reserved"] = max(v["reserved"] for s in sel for v in s["phases"].values())
        return best
    step1 = peak_of(steps[:1])
    steady = peak_of(steps[max(1, first_measured):]) if len(steps) > 1 else None
    return step1, steady, peak_of(steps)


def run_training(torch, model, plan, meter, result):
    params = [p for p in model.parameters() if p.requires_grad]
    if not params:
        raise Skip("no trainable parameters after applying the method")
    opt = make_optimizer(torch, params, plan["optimizer"])
    scaler = None
    if plan["autocast_dtype"] == "float16":
        scaler = torch.amp.GradScaler("cuda") if hasattr(torch, "amp") and hasattr(torch.amp, "GradScaler") \
            else torch.cuda.amp.GradScaler()
    ac_dtype = getattr(torch, plan["autocast_dtype"]) if plan["autocast_dtype"] else None
    vocab = model.config.vocab_size  # (a PEFT wrapper may hide num_embeddings)
    gen = torch.Generator(device="cuda").manual_seed(plan["seed"])
    steps = result["steps"]
    total = plan["warmup"] + plan["steps"]
    for i in range(total):
        rec = {"step": i + 1, "warmup": i < plan["warmup"], "phases": {}}
        steps.append(rec)
        fwd = bwd = None
        for _ in range(plan["grad_accum"]):
            ids = torch.randint(0, vocab, (plan["batch"], plan["seq"]), device="cuda", generator=gen)
            result["_where"] = (i + 1, "forward")
            meter.start()
            with torch.autocast("cuda", dtype=ac_dtype, enabled=ac_dtype is not None):
                if plan["loss"] == "chunked":
                    loss = chunked_loss(torch, model, ids)
                elif plan["loss"] == "legacy":
                    # transformers before 4.46: logits.float() returned (and
                    # held by the caller), the loss on a shifted fp32 copy
                    held = model(input_ids=ids).logits.float()
                    loss = torch.nn.functional.cross_entropy(
                        held[..., :-1, :].contiguous().view(-1, held.shape[-1]),
                        ids[..., 1:].contiguous().view(-1))
                else:
                    loss = model(input_ids=ids, labels=ids).loss
            loss = loss / plan["grad_accum"]
            f = meter.read()
            result["_where"] = (i + 1, "backward")
            meter.start()
            if scaler is not None:
                scaler.scale(loss).backward()
            else:
                loss.backward()
            held = None
            del loss, ids
            b = meter.read()
            fwd = f if fwd is None else {k: max(fwd[k], f[k]) for k in f}
            bwd = b if bwd is None else {k: max(bwd[k], b[k]) for k in b}
        rec["phases"]["forward"] = fwd
        rec["phases"]["backward"] = bwd
        result["_where"] = (i + 1, "optimizer")
        meter.start()
        if scaler is not None:
            scaler.step(opt)
            scaler.update()
        else:
            opt.step()
        opt.zero_grad(set_to_none=True)
        rec["phases"]["optimizer"] = meter.read()
        rec["allocated"] = max(v["allocated"] for v in rec["phases"].values())
        rec["reserved"] = max(v["reserved"] for v in rec["phases"].values())
        rec["end_allocated"] = int(torch.cuda.memory_allocated())
        rec["end_reserved"] = int(torch.cuda.memory_reserved())


def run_inference(torch, model, plan, meter, result):
    vocab = model.config.vocab_size  # (a PEFT wrapper may hide num_embeddings)
    gen = torch.Generator(device="cuda").manual_seed(plan["seed"])
    ac_dtype = getattr(torch, plan["autocast_dtype"]) if plan["autocast_dtype"] else None
    total = plan["warmup"] + plan["steps"]
    keep = {}
    if plan.get("logits", "last") == "last":
        # generate() since transformers 4.45 computes the prefill's logits for
        # the last position only: logits_to_keep (num_logits_to_keep before 4.50)
        params = inspect.signature(model.forward).parameters
        name = next((n for n in ("logits_to_keep", "num_logits_to_keep") if n in params), None)
        if name is None:
            raise Skip("--logits last: this transformers' %s.forward takes no logits_to_keep; "
                       "use --logits all" % type(model).__name__)
        keep = {name: 1}
    for i in range(total):
        rec = {"step": i + 1, "warmup": i < plan["warmup"], "phases": {}}
        result["steps"].append(rec)
        ids = torch.randint(0, vocab, (plan["batch"], plan["seq"]), device="cuda", generator=gen)
        with torch.no_grad(), torch.autocast("cuda", dtype=ac_dtype, enabled=ac_dtype is not None):
            result["_where"] = (i + 1, "prefill")
            meter.start()
            out = model(input_ids=ids, use_cache=True, **keep)
            past = out.past_key_values
            if plan.get("logits") == "all-fp32":
                # older transformers returned logits.float(): both copies
                # live at the cast
                up = out.logits.float()
                nxt = up[:, -1:, :].argmax(-1)
                del up
            else:
                nxt = out.logits[:, -1:, :].argmax(-1)
            del out
            rec["phases"]["prefill"] = meter.read()
            if plan["decode_tokens"] > 0:
                result["_where"] = (i + 1, "decode")
                meter.start()
                for _ in range(plan["decode_tokens"]):
                    out = model(input_ids=nxt, past_key_values=past, use_cache=True)
                    past = out.past_key_values
                    lg = out.logits.float() if plan.get("logits") == "all-fp32" else out.logits
                    nxt = lg[:, -1:, :].argmax(-1)
                    del out, lg
                rec["phases"]["decode"] = meter.read()
            del past, nxt, ids
        rec["allocated"] = max(v["allocated"] for v in rec["phases"].values())
        rec["reserved"] = max(v["reserved"] for v in rec["phases"].values())
        rec["end_allocated"] = int(torch.cuda.memory_allocated())
        rec["end_reserved"] = int(torch.cuda.memory_reserved())


def is_oom(torch, e):
    cls = getattr(torch.cuda, "OutOfMemoryError", None)
    if cls is not None and isinstance(e, cls):
        return True
    return isinstance(e, RuntimeError) and "out of memory" in str(e).lower()


def run(plan, cfg, result):
    try:
        import torch
    except Exception as e:
        raise Skip("torch could not be imported (%s)" % e)
    result["versions"] = versions(torch)
    if not torch.cuda.is_available():
        raise Skip("torch sees no CUDA device (torch %s, CUDA %s)" % (torch.__version__, torch.version.cuda))
    wants_bf16 = "bfloat16" in (plan["weights_dtype"], plan["autocast_dtype"]) or plan["quantization"]
    if wants_bf16 and not torch.cuda.is_bf16_supported():
        raise Skip("bf16 requested but %s does not support it" % torch.cuda.get_device_name(0))
    if plan["attn_implementation"] == "flash_attention_2" and pkg_version("flash-attn") is None \
            and pkg_version("flash_attn") is None:
        raise Skip("flash attention requested but the flash-attn package is not installed")
    transformers = require("transformers", "building the model")
    torch.manual_seed(plan["seed"])
    result["_where"] = (0, "load")
    try:
        if plan["quantization"]:
            require("bitsandbytes", "NF4 quantization")
        model = build_model(torch, transformers, plan, cfg)
        if plan["quantization"]:
            try:
                model = quantize_nf4(torch, model, plan)
            except Exception as e:
                if is_oom(torch, e):
                    raise Skip("the harness builds the bf16 model on the GPU before quantizing "
                               "it; that bf16 model does not fit (%s)" % str(e).splitlines()[0])
                raise
        model = apply_method(torch, model, plan)
    except Skip:
        raise
    except Exception as e:
        if is_oom(torch, e):
            raise
        raise Skip("model setup failed: %s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
    import gc
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    result["load"] = {"allocated": int(torch.cuda.memory_allocated()),
                      "reserved": int(torch.cuda.memory_reserved())}
    result["params"] = {"total": sum(p.numel() for p in model.parameters()),
                        "trainable": sum(p.numel() for p in model.parameters() if p.requires_grad)}
    sys.stderr.write(MARKER + "\n")
    sys.stderr.flush()
    meter = Meter(torch)
    if plan["method"] == "inference":
        run_inference(torch, model, plan, meter, result)
    else:
        run_training(torch, model, plan, meter, result)


def main(argv=None):
    a = parser().parse_args(argv)
    try:
        plan, cfg = make_plan(a)
    except ArgError as e:
        sys.stderr.write("harness.py: error: %s\n" % e)
        return 2
    if a.dry_run:
        print(json.dumps({"status": "plan", "plan": plan}, indent=1, sort_keys=True))
        return 0
    # Libraries sometimes print to stdout; keep fd 1 for the one JSON result.
    sys.stdout.flush()
    real_out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    result = {"harness": "gpusizer-harness", "status": "ok", "reason": None, "plan": plan,
              "versions": None, "load": None, "steps": [], "step1": None, "steady": None,
              "peak": None}
    if plan["skip"]:
        result["status"], result["reason"] = "skipped", plan["skip"]
        result["versions"] = versions()
    else:
        try:
            run(plan, cfg, result)
        except Skip as e:
            result["status"], result["reason"] = "skipped", str(e)
        except Exception as e:  # noqa: BLE001 - an OOM is a result; anything else is reported
            torch = sys.modules.get("torch")
            if torch is not None and is_oom(torch, e):
                step, phase = result.get("_where", (0, "?"))
                result["status"] = "oom"
                result["oom"] = {"step": step, "phase": phase,
                                 "message": str(e).splitlines()[0][:400] if str(e) else "out of memory"}
                try:
                    result["oom"]["max_allocated"] = int(torch.cuda.max_memory_allocated())
                    result["oom"]["max_reserved"] = int(torch.cuda.max_memory_reserved())
                except Exception:
                    pass
                result["steps"] = [s for s in result["steps"] if "allocated" in s]
            else:
                import traceback
                traceback.print_exc()
                result["status"], result["reason"] = "skipped", "harness error: %s: %s" % (
                    type(e).__name__, str(e).splitlines()[0] if str(e) else "")
        if result["versions"] is None:
            result["versions"] = versions(sys.modules.get("torch"))
    result.pop("_where", None)
    done = [s for s in result["steps"] if "allocated" in s]
    if result["status"] == "ok" and done:
        result["step1"], result["steady"], result["peak"] = summarize(done, plan["warmup"])
    real_out.write(json.dumps(result, sort_keys=True) + "\n")
    real_out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
