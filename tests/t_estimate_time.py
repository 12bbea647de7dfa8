#!/usr/bin/env python3
"""estimate's time block (issue 17): text and --json, per listed GPU class;
--runtime and --tokens; bad values are exit 2."""
import json
import os
import subprocess
import sys

from lib import GS, TOP, Checks

ok = Checks()
MODEL = ["meta-llama/Llama-3.1-8B", "--offline", "--models-dir", os.path.join(TOP, "models")]


def est(*extra):
    return subprocess.run(GS + ["estimate"] + MODEL + list(extra), cwd=TOP, capture_output=True, text=True,
                          timeout=120)


def main():
    r = est("--gpu", "h100-sxm,rtx-4090", "--gpus", "8", "--sharding", "fsdp", "--tokens", "1e9")
    ok(r.returncode == 0 and "time per optimizer step" in r.stdout and "tokens/s/GPU" in r.stdout
       and "MFU" in r.stdout and "1e+09 tokens in" in r.stdout,
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
    ok(r.returncode == 0 and d["time"]["runtime"] == "serving" and len(gs) == 2
       and gs[0]["decode_tokens_per_s_seq"] > gs[1]["decode_tokens_per_s_seq"] > 0,
       "estimate --json inference: decode faster on H100 than A100 (bandwidth)", r.stdout[-400:] + r.stderr)
    r = est("--gpu", "h100-sxm", "--method", "inference", "--runtime", "hf")
    ok(r.returncode == 0 and "prefill" in r.stdout and "tokens/s a sequence" in r.stdout,
       "estimate: a time block for inference", r.stdout[-400:])
    for bad in (["--runtime", "nope"], ["--tokens", "0"], ["--tokens", "x"]):
        r = est(*bad)
        ok(r.returncode == 2 and bad[0] in r.stderr, "estimate %s: exit 2 naming the option" % " ".join(bad),
           "rc=%d %s" % (r.returncode, r.stderr))
    return ok.status()


if __name__ == "__main__":
    sys.exit(main())
