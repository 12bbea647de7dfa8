"""gpusizer estimate: the JSON contract, the text breakdown, usage errors."""
import json
import subprocess

from lib import GS, Checks

check = Checks()


def run(*args):
    return subprocess.run(GS + list(args), capture_output=True, text=True, timeout=120)


# estimate --json prints the document of out/sizing.json with one model and
# one row; the row's "estimate" object holds the figures (gpusizer(1)).
CONTRACT = ["formula", "recipe", "params_total", "params_trainable", "W", "G", "O", "A", "B", "allocated",
            "reserved", "device", "host", "peak_phase", "peak_step"]


def one_row(stdout):
    d = json.loads(stdout)
    assert len(d["rows"]) == 1 and len(d["models"]) == 1, "one model, one row"
    return d, d["rows"][0]

for method in ["full", "lora", "qlora", "inference"]:
    r = run("estimate", "meta-llama/Llama-3.2-1B", "--offline", "--method", method, "--json")
    check(r.returncode == 0, f"estimate --json {method}: exit 0", r.stderr)
    try:
        d, row = one_row(r.stdout)
        o = row["estimate"]
    except (ValueError, KeyError, AssertionError) as e:
        check(False, f"estimate --json {method}: one document, one row with an estimate", str(e))
        continue
    check(all(k in o for k in CONTRACT), f"estimate --json {method}: every contract field",
          [k for k in CONTRACT if k not in o])
    c = {k: o[k] for k in ("W", "G", "O", "A", "B")}
    check(all(isinstance(v, int) for v in c.values()),
          f"estimate --json {method}: components W,G,O,A,B in integer bytes")
    check(sum(c.values()) == o["device"], f"estimate --json {method}: W+G+O+A+B = device")
    check(o["allocated"] <= o["reserved"] <= o["device"],
          f"estimate --json {method}: allocated <= reserved <= device")
    check(o["params_total"] == 1235814400 and d["models"][0]["params_total"] == 1235814400,
          f"estimate --json {method}: exact params_total")
    check(row["settings"]["method"] == method and isinstance(row["settings"], dict),
          f"estimate --json {method}: settings as an object, as in sizing.json")
    check(set(row["gpu_verdicts"]) == {g["id"] for g in d["gpus"]} and
          all(v[1] is None for v in row["gpu_verdicts"].values() if v[0] == "not runnable"),
          f"estimate --json {method}: a verdict per GPU class; not runnable has null headroom")
    check(o["peak_phase"] in ("forward", "loss", "backward", "optimizer", "prefill"),
          f"estimate --json {method}: peak_phase named")

# Seed formula: device_bytes is the formula's total.
r = run("estimate", "--params", "8030000000", "--layers", "32", "--hidden", "4096", "--method", "qlora",
        "--optimizer", "adamw-8bit", "--seq", "4096", "--grad-ckpt", "--formula", "cookbook", "--json")
o = json.loads(r.stdout)["rows"][0]["estimate"] if r.returncode == 0 else {}
check(r.returncode == 0 and o.get("formula") == "cookbook" and abs(o.get("device", 0) / 2**30 - 11.368) < 0.01,
      "estimate --formula cookbook: the seed's Llama 3.1 8B QLoRA example totals 11.37 GiB from its code",
      r.stderr or o)

# Text breakdown names the recipe, the peak phase and GPU classes.
r = run("estimate", "meta-llama/Llama-3.1-8B", "--offline", "--method", "qlora", "--grad-ckpt")
check(r.returncode == 0 and "recipe" in r.stdout and "GiB" in r.stdout and "fits on:" in r.stdout
      and "RTX 4090" in r.stdout and "bytes/param" in r.stdout, "estimate text: breakdown, recipe, bytes/param, fits list",
      r.stdout[-400:] + r.stderr)

# Usage errors: one clear line, exit 2.
for args, needle in [(["--method", "bogus"], "--method"), (["--batch", "-3"], "--batch"),
                     (["--seq", "abc"], "--seq"), (["--frobnicate"], "--frobnicate"),
                     (["--method", "lora", "--precision", "mixed-bf16"], "mixed-bf16"),
                     ([], "no model")]:
    a = ["estimate"] + (["meta-llama/Llama-3.2-1B", "--offline"] if args else []) + args
    r = run(*a)
    check(r.returncode == 2 and needle in r.stderr and "Traceback" not in r.stderr,
          f"estimate usage error {args}: exit 2 naming {needle}", (r.returncode, r.stderr))

r = run("estimate", "--config", "/nonexistent/config.json")
check(r.returncode != 0 and r.returncode != 2 and "/nonexistent/config.json" in r.stderr,
      "estimate --config missing file: names the file", (r.returncode, r.stderr))
# --compile and nf4-torchao: accepted by estimate, in the JSON settings label;
# verify refuses what its harness cannot reproduce (no GPU needed to say so).
r = run("estimate", "meta-llama/Llama-3.2-1B", "--offline", "--method", "full", "--compile", "--json")
check(r.returncode == 0 and " compile" in json.loads(r.stdout)["rows"][0]["label"]
      and json.loads(r.stdout)["rows"][0]["settings"]["compile"] is True, "estimate --compile", r.stderr)
r = run("estimate", "meta-llama/Llama-3.2-1B", "--offline", "--method", "qlora", "--precision", "nf4-torchao")
check(r.returncode == 0 and "nf4-torchao" in r.stdout, "estimate --precision nf4-torchao", r.stderr)
r = run("estimate", "meta-llama/Llama-3.1-8B", "--offline", "--method", "inference", "--precision", "nf4-dq-litgpt")
check(r.returncode == 0 and "head quantized (Lightning Fabric)" in r.stdout, "estimate --precision nf4-dq-litgpt names its recipe",
      (r.stdout, r.stderr))
r = run("estimate", "meta-llama/Llama-3.1-8B", "--offline", "--method", "full", "--precision", "nf4-litgpt")
check(r.returncode == 2 and "storage format" in r.stderr, "nf4-litgpt is a storage format, not a full recipe", r.stderr)
for extra in (["--method", "full", "--compile"], ["--method", "full", "--optimizer-in-bwd"],
              ["--method", "qlora", "--precision", "nf4-torchao"], ["--method", "lora", "--precision", "amp-bf16"],
              ["--method", "qlora", "--precision", "nf4-litgpt"]):
    r = run("verify", "meta-llama/Llama-3.2-1B", "--offline", "--dry-run", *extra)
    check(r.returncode == 2 and "harness does not run" in r.stderr,
          "verify refuses %s (the harness cannot reproduce it)" % " ".join(extra), (r.returncode, r.stderr))
r = run("estimate", "--help")
check(r.returncode == 0 and "--method" in r.stdout and "--formula" in r.stdout, "estimate --help lists the flags")
raise SystemExit(check.status())
