#!/usr/bin/env python3
"""Turn measurements/verified.jsonl (written by `gpusizer verify`) into
accuracy cases in the format of tests/accuracy/cases.jsonl, so that
`make accuracy` can include the project's own measurements.

    python3 tools/verified_cases.py [STORE]      # one case per line on stdout

Each stored run gives one case per measured figure (allocated, reserved,
device), grade A (every input known: gpusizer ran it). An out-of-memory run
gives one device case with bound "lower": the true peak is above the GPU's
usable memory. Records of the stand-in harness or a fake GPU are refused
(they should never be in the store). Standard library only; also importable:
cases(path) returns the list.
"""
import json
import os
import sys

DEFAULT = os.path.join("measurements", "verified.jsonl")
SETTING_FLAGS = ["method", "precision", "adapter-dtype", "optimizer", "lora-r", "lora-targets",
                 "lora-dropout", "batch", "seq", "grad-accum", "attn", "loss"]


def args_of(s):
    a = []
    for k in SETTING_FLAGS:
        if k in s and s[k] is not None:
            v = s[k]
            if isinstance(v, float) and v == int(v) and k != "lora-dropout":
                v = int(v)
            a += ["--" + k, str(v)]
    a.append("--grad-ckpt" if s.get("grad-ckpt") else "--no-grad-ckpt")
    if s.get("train-embeddings"):
        a.append("--train-embeddings")
    if s.get("kv-dtype") not in (None, "auto"):
        a += ["--kv-dtype", s["kv-dtype"]]
    return a


def cases(path=DEFAULT):
    out = []
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except ValueError as e:
                raise SystemExit("%s:%d: not JSON: %s" % (path, n, e))
            res = r.get("harness_result") or {}
            if res.get("harness") != "gpusizer-harness" or (r.get("gpu") or {}).get("fake"):
                raise SystemExit("%s:%d: not a real measurement (stand-in harness or fake GPU)" % (path, n))
            s = r["settings"]
            gpu = r["gpu"]
            v = res.get("versions") or {}
            note = "gpusizer verify %s on %s (driver %s, CUDA %s), torch %s, transformers %s, peft %s, bitsandbytes %s" % (
                r.get("date"), gpu.get("name"), gpu.get("driver"), gpu.get("cuda"), v.get("torch"),
                v.get("transformers"), v.get("peft"), v.get("bitsandbytes"))
            model = r["config"] if os.path.exists(r.get("config", "")) else r["model"]
            # the record's resolved settings are its flags: no stack over them
            base = {"grade": "A", "method": s["method"], "model": model, "args": args_of(s), "stack": None,
                    "unsupported": None, "note": note}
            rid = "verified-%s-%s" % (r["row"], (r.get("date") or "").replace(":", ""))
            if r.get("status") == "oom":
                out.append(dict(base, id=rid + "-oom", compare="device",
                                measured_bytes=int(gpu["usable_bytes"]), bound="lower"))
                continue
            m = r.get("measured") or {}
            for kind in ("allocated", "reserved", "device"):
                if m.get(kind):
                    out.append(dict(base, id="%s-%s" % (rid, kind), compare=kind,
                                    measured_bytes=int(m[kind]), bound=None))
    return out


if __name__ == "__main__":
    for c in cases(sys.argv[1] if len(sys.argv) > 1 else DEFAULT):
        print(json.dumps(c, sort_keys=True))
