#!/usr/bin/env python3
"""gpusizer accuracy against measured peaks (`make accuracy`).

Runs `gpusizer estimate --json` for every case of tests/accuracy/cases.jsonl
(one per grade A/B record of tests/accuracy/calibration.jsonl), compares the
prediction of the same kind (allocated / reserved / device) with the measured
bytes, prints one row per case and a summary: median and p90 absolute relative
error over the supported point records, one-sided checks of the OOM records,
the unsupported records with their reasons, and the same figures by grade and
by method.

    python3 tests/accuracy.py                  # both sets: tables + summaries
    python3 tests/accuracy.py --set 1|2|all    # one set, or both and combined (all)
    python3 tests/accuracy.py --json           # the summaries as one JSON object
    python3 tests/accuracy.py --write-baseline # also write baseline.json (set 1) / baseline2.json (set 2)
    python3 tests/accuracy.py --validate       # check the cases files only (no engine)
    python3 tests/accuracy.py --no-stack       # each record without its --stack: the defaults

Set 1: cases.jsonl from calibration.jsonl (plus the project's own verified
measurements, measurements/verified.jsonl, when there are any); set 2:
cases2.jsonl from calibration2.jsonl. With --set all (the default) each set
is summarised on its own and then both together ("combined"), each summary
also by grade, by method and by source. --json with --set 1 or 2 prints that
set's summary object (the schema before set 2 existed, plus "set" and
"by_source"); with --set all it prints {"set": "all", "sets": {"1": ...,
"2": ...}, "combined": ...}.

The binary is $GPUSIZER (default ./gpusizer), run from the repository root,
each run prefixed with $GS_WRAP. Standard library only. Exit status: 0 when
the run completed (accuracy figures are reported, not judged, here: the
regression test tests/t_accuracy.py judges them), 1 on a bad cases file or
when no estimate could be made, 2 on bad usage.
"""
import concurrent.futures
import json
import math
import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ACC = os.path.join(TOP, "tests", "accuracy")
CASES = os.path.join(ACC, "cases.jsonl")
CALIBRATION = os.path.join(ACC, "calibration.jsonl")
BASELINE = os.path.join(ACC, "baseline.json")
CASES2 = os.path.join(ACC, "cases2.jsonl")
CALIBRATION2 = os.path.join(ACC, "calibration2.jsonl")
BASELINE2 = os.path.join(ACC, "baseline2.json")
# set -> (cases file, calibration file, baseline file)
SETS = {"1": (CASES, CALIBRATION, BASELINE), "2": (CASES2, CALIBRATION2, BASELINE2)}
# Set 2's sources by record id prefix (README-calibration2.md's source table).
SOURCE2 = (("swift-v1-", "ms-swift v1"), ("swift3-", "ms-swift 3.x"), ("qwen3-speed-", "Qwen3 speed"),
           ("torchao-quant-", "torchao quant"), ("torchao-kvcache-", "torchao KV cache"),
           ("torchao-float8-", "torchao float8"), ("autoawq-", "AutoAWQ"),
           ("answerai-", "Answer.AI fsdp_qlora"), ("glm4-", "GLM-4"), ("megatron-", "Megatron-LM"))
GIB = float(2**30)
TIMEOUT_S = 60

# The documented flag set of `gpusizer estimate` (issue 2 / src/core/settings.h).
# None: the flag takes no value; a set: allowed values; a callable: checks it.
def _int_pos(v):
    return v.isdigit() and int(v) > 0


def _int_nonneg(v):
    return v.isdigit()


def _float01(v):
    try:
        f = float(v)
    except ValueError:
        return False
    return 0.0 <= f < 1.0


def _targets(v):
    if v in ("qv", "attn", "all-linear"):
        return True
    names = v.split(",")
    return all(n and all(c.isalnum() or c == "_" for c in n) for n in names)


PRECISIONS = {"fp32", "amp-bf16", "amp-fp16", "mixed-bf16", "mixed-fp16", "bf16", "fp16", "fp8-mixed",
              "fp8", "int8", "nf4", "nf4-dq", "gptq-int4", "gptq-int8", "awq-int4", "nf4-torchao",
              "nf4-litgpt", "nf4-dq-litgpt"}
FLAGS = {
    "--config": "path", "--params": _int_pos, "--layers": _int_pos, "--hidden": _int_pos,
    "--heads": _int_pos, "--kv-heads": _int_pos, "--intermediate": _int_pos, "--vocab": _int_pos,
    "--method": {"full", "lora", "qlora", "inference"},
    "--precision": PRECISIONS,
    "--adapter-dtype": {"fp32", "bf16"},
    "--optimizer": {"adamw", "adamw-fused", "adamw-8bit", "paged-adamw-8bit", "paged-adamw-32bit", "sgd",
                    "sgd-momentum", "lion", "adafactor"},
    "--lora-r": _int_pos, "--lora-targets": _targets, "--lora-dropout": _float01,
    "--train-embeddings": None,
    "--batch": _int_pos, "--seq": _int_pos, "--grad-accum": _int_pos,
    "--grad-ckpt": None, "--no-grad-ckpt": None, "--compile": None,
    "--attn": {"eager", "sdpa", "flash", "eager-upcast", "math", "math-legacy"},
    "--loss": {"standard", "chunked", "legacy", "fused", "fused-chunks"},
    "--fused-qkv": None, "--held-logits": None, "--no-held-logits": None,
    "--ckpt-offload": None, "--fused-kernels": None, "--compute-dtype": {"auto", "bf16", "fp16"},
    "--stack": lambda v: bool(v) and all(p for p in v.split(",")),
    "--loss-dtype": {"auto", "fp32", "compute"}, "--kbit-prep": {"auto", "on", "off"},
    "--bnb-saves": {"weight", "input"},
    "--gpus": _int_pos, "--sharding": {"ddp", "zero1", "zero2", "zero3", "fsdp", "fsdp2", "pipeline"}, "--tp": _int_pos,
    "--offload": {"none", "optimizer", "params", "activations"},
    "--state-dict-load": {"sharded", "full"},
    "--zero-bucket": _int_nonneg, "--overlap-comm": None,
    "--optimizer-in-bwd": None,
    "--kv-dtype": {"fp32", "bf16", "fp16", "fp8", "int8"},
    "--logits": {"last", "all", "all-fp32"},
    "--kv-cache": {"dynamic", "legacy", "static", "static-mask"},
    "--new-tokens": _int_pos, "--awq-fuse": None,
    "--formula": {"detailed", "cookbook", "rule-of-thumb", "zero1-rule"},
    "--allow-long-context": None,
}
FULL_PREC = {"fp32", "amp-bf16", "amp-fp16", "mixed-bf16", "mixed-fp16", "bf16", "fp16", "fp8-mixed"}
STORE_PREC = {"fp32", "bf16", "fp16", "fp8", "int8", "nf4", "nf4-dq", "gptq-int4", "gptq-int8", "awq-int4",
              "nf4-torchao", "nf4-litgpt", "nf4-dq-litgpt"}
FIELD = {"allocated": "allocated", "reserved": "reserved", "device": "device"}  # in rows[0].estimate


def load_jsonl(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rows.append(json.loads(line))
            except ValueError as exc:
                raise SystemExit("%s:%d: not JSON: %s" % (path, n, exc))
    return rows


def ab_ids(calibration_path=CALIBRATION):
    return [r["id"] for r in load_jsonl(calibration_path) if r.get("grade") in ("A", "B")]


def source_labels(calibration_path):
    """Record id -> a short source name: set 1 the repository its number
    comes from (owner/name, the source field's first word), set 2 the
    source of README-calibration2.md's table."""
    out = {}
    for r in load_jsonl(calibration_path):
        rid = r["id"]
        lab = None
        for pfx, name in SOURCE2:
            if calibration_path == CALIBRATION2 and rid.startswith(pfx):
                lab = name
                break
        if lab is None:
            lab = (r.get("source") or "?").split(" ")[0]
        out[rid] = lab
    return out


def validate_args(args):
    """Problems with one case's flag list (empty when fine)."""
    bad = []
    i = 0
    seen = {}
    while i < len(args):
        a = args[i]
        if a not in FLAGS:
            bad.append("unknown flag %r" % a)
            i += 1
            continue
        spec = FLAGS[a]
        if spec is None:
            seen[a] = True
            i += 1
            continue
        if i + 1 >= len(args):
            bad.append("%s needs a value" % a)
            break
        v = args[i + 1]
        if spec == "path":
            if not os.path.isfile(os.path.join(TOP, v)):
                bad.append("%s %s: no such file" % (a, v))
        elif isinstance(spec, set):
            if v not in spec:
                bad.append("%s %r not one of %s" % (a, v, sorted(spec)))
        elif not spec(v):
            bad.append("%s %r: bad value" % (a, v))
        if a in seen:
            bad.append("%s given twice" % a)
        seen[a] = v
        i += 2
    method = seen.get("--method", "full")
    prec = seen.get("--precision")
    if prec:
        if method == "full" and prec not in FULL_PREC:
            bad.append("--precision %s is not a full fine-tuning recipe" % prec)
        if method != "full" and prec not in STORE_PREC and not (
                method in ("lora", "inference") and prec in ("amp-bf16", "amp-fp16")):
            bad.append("--precision %s is not a storage type for %s" % (prec, method))
    if method == "inference" and "--optimizer" in seen:
        bad.append("--optimizer given for inference")
    if method not in ("lora", "qlora") and any(k in seen for k in ("--lora-r", "--lora-targets")):
        bad.append("LoRA flags given for method %s" % method)
    if "--grad-ckpt" in seen and "--no-grad-ckpt" in seen:
        bad.append("--grad-ckpt and --no-grad-ckpt together")
    has_cfg = "--config" in seen
    has_manual = "--params" in seen or "--layers" in seen or "--hidden" in seen
    if has_cfg == has_manual:
        bad.append("exactly one of --config or the manual shape (--params/--layers/--hidden) is needed")
    if has_manual and not all(k in seen for k in ("--params", "--layers", "--hidden")):
        bad.append("manual shape needs --params, --layers and --hidden")
    if "--tp" in seen and int(seen["--tp"]) > int(seen.get("--gpus", "1")):
        bad.append("--tp larger than --gpus")
    return bad


STACK = True  # --no-stack: run each case without its --stack


def case_args(c):
    args = []
    if c.get("model"):
        args += ["--config", c["model"]]
    if STACK and c.get("stack"):
        args += ["--stack", c["stack"]]
    return args + list(c["args"])


def validate(cases, calibration_path=CALIBRATION):
    """List of problems with the cases file."""
    bad = []
    ids = [c.get("id") for c in cases]
    if len(set(ids)) != len(ids):
        bad.append("duplicate case ids")
    want = ab_ids(calibration_path)
    missing = sorted(set(want) - set(ids))
    extra = sorted(set(ids) - set(want))
    if missing:
        bad.append("A/B records without a case: %s" % ", ".join(missing))
    if extra:
        bad.append("cases that are not A/B records: %s" % ", ".join(extra))
    keys = {"id", "grade", "method", "model", "args", "stack", "compare", "measured_bytes", "bound", "unsupported",
            "note"}
    for c in cases:
        cid = c.get("id", "?")
        if set(c) != keys:
            bad.append("%s: keys %s" % (cid, sorted(set(c) ^ keys)))
            continue
        if c["compare"] not in FIELD:
            bad.append("%s: compare %r" % (cid, c["compare"]))
        if not isinstance(c["measured_bytes"], int) or c["measured_bytes"] <= 0:
            bad.append("%s: measured_bytes %r" % (cid, c["measured_bytes"]))
        if c["bound"] not in (None, "lower"):
            bad.append("%s: bound %r" % (cid, c["bound"]))
        if c["bound"] == "lower" and c["compare"] != "device":
            bad.append("%s: an OOM bound compares device memory" % cid)
        if c["unsupported"] is not None:
            if not isinstance(c["unsupported"], str) or not c["unsupported"].strip():
                bad.append("%s: unsupported needs a reason" % cid)
            continue
        if not isinstance(c["args"], list) or not all(isinstance(a, str) for a in c["args"]):
            bad.append("%s: args must be a list of strings" % cid)
            continue
        if c["stack"] is not None and not (isinstance(c["stack"], str) and c["stack"]):
            bad.append("%s: stack must be null or a stack text" % cid)
        if c["model"] is not None and not os.path.isfile(os.path.join(TOP, c["model"])):
            bad.append("%s: model %s not found" % (cid, c["model"]))
        for p in validate_args(case_args(c)):
            bad.append("%s: %s" % (cid, p))
    return bad


def run_case(gpusizer, wrap, c):
    cmd = wrap + [gpusizer, "estimate", "--json"] + case_args(c)
    try:
        p = subprocess.run(cmd, cwd=TOP, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, "timed out after %ds" % TIMEOUT_S
    except OSError as exc:
        return None, "cannot run %s: %s" % (gpusizer, exc)
    if p.returncode != 0:
        msg = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
        return None, "exit %d: %s" % (p.returncode, msg[:200])
    try:
        obj = json.loads(p.stdout)["rows"][0]["estimate"]  # the sizing.json row schema
        v = obj[FIELD[c["compare"]]]
    except (ValueError, KeyError, TypeError) as exc:
        return None, "bad --json output: %s" % exc
    if not isinstance(v, (int, float)) or v < 0:
        return None, "bad %s: %r" % (FIELD[c["compare"]], v)
    return obj, None


def pctile(vals, q):
    """Nearest-rank percentile of a non-empty list."""
    s = sorted(vals)
    k = max(1, int(math.ceil(q * len(s))))
    return s[k - 1]


def median(vals):
    s = sorted(vals)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def group_stats(rows):
    pts = [abs(r["err_pct"]) for r in rows if r.get("err_pct") is not None]
    bounds = [r for r in rows if r["status"] in ("bound-pass", "bound-fail")]
    return {
        "points": len(pts),
        "median_pct": round(median(pts), 2) if pts else None,
        "p90_pct": round(pctile(pts, 0.9), 2) if pts else None,
        "bounds": len(bounds),
        "bound_failures": sum(1 for r in bounds if r["status"] == "bound-fail"),
        "unsupported": sum(1 for r in rows if r["status"] == "unsupported"),
        "errors": sum(1 for r in rows if r["status"] == "error"),
    }


def evaluate(cases, gpusizer, wrap, jobs, set_name="1", sources=None):
    rows = []
    todo = [c for c in cases if c["unsupported"] is None]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        futs = {ex.submit(run_case, gpusizer, wrap, c): c["id"] for c in todo}
        for f in concurrent.futures.as_completed(futs):
            results[futs[f]] = f.result()
    for c in cases:
        src = (sources or {}).get(c["id"]) or ("gpusizer verify" if c["id"].startswith("verified-") else "?")
        row = {"id": c["id"], "set": set_name, "source": src, "grade": c["grade"], "method": c["method"],
               "compare": c["compare"],
               "measured_bytes": c["measured_bytes"], "bound": c["bound"], "predicted_bytes": None,
               "err_pct": None, "status": None, "detail": None}
        if c["unsupported"] is not None:
            row["status"] = "unsupported"
            row["detail"] = c["unsupported"]
        else:
            obj, err = results[c["id"]]
            if err:
                row["status"] = "error"
                row["detail"] = err
            else:
                pred = float(obj[FIELD[c["compare"]]])
                row["predicted_bytes"] = int(pred)
                row["peak_phase"] = obj.get("peak_phase")
                row["components"] = {k: obj.get(k) for k in ("W", "G", "O", "A", "B")}
                if c["bound"] == "lower":
                    row["status"] = "bound-pass" if pred >= c["measured_bytes"] else "bound-fail"
                else:
                    row["status"] = "point"
                    row["err_pct"] = 100.0 * (pred - c["measured_bytes"]) / c["measured_bytes"]
        rows.append(row)
    return rows


def summarize(rows):
    s = group_stats(rows)
    s["records"] = len(rows)
    s["supported"] = len(rows) - s["unsupported"]
    s["unsupported_pct"] = round(100.0 * s["unsupported"] / len(rows), 1) if rows else 0.0
    s["unsupported_list"] = [{"id": r["id"], "reason": r["detail"]} for r in rows if r["status"] == "unsupported"]
    s["error_list"] = [{"id": r["id"], "error": r["detail"]} for r in rows if r["status"] == "error"]
    s["by_grade"] = {g: group_stats([r for r in rows if r["grade"] == g])
                     for g in sorted({r["grade"] for r in rows})}
    s["by_method"] = {m: group_stats([r for r in rows if r["method"] == m])
                      for m in sorted({r["method"] for r in rows})}
    s["by_source"] = {m: group_stats([r for r in rows if r["source"] == m])
                      for m in sorted({r["source"] for r in rows})}
    s["target"] = {"median_pct": 8.0, "p90_pct": 20.0, "unsupported_pct": 15.0}
    return s


def pct(v):
    return "-" if v is None else "%.2f%%" % v


def gib(b):
    return "%.2f" % (b / GIB) if b is not None else "-"


def print_table(rows, s, out=sys.stdout):
    w = out.write
    w("%-46s %-9s %9s %9s %8s  %s\n" % ("case", "compare", "pred GiB", "meas GiB", "err %", "note"))
    for r in rows:
        st = r["status"]
        if st == "point":
            w("%-46s %-9s %9s %9s %+8.1f\n" % (r["id"], r["compare"], gib(r["predicted_bytes"]),
                                                gib(r["measured_bytes"]), r["err_pct"]))
        elif st in ("bound-pass", "bound-fail"):
            w("%-46s %-9s %9s %9s %8s  OOM bound %s (needs >= measured)\n" % (
                r["id"], r["compare"], gib(r["predicted_bytes"]), ">=" + gib(r["measured_bytes"]), "",
                "PASS" if st == "bound-pass" else "FAIL"))
        elif st == "unsupported":
            w("%-46s %-9s %9s %9s %8s  unsupported\n" % (r["id"], r["compare"], "-", gib(r["measured_bytes"]), ""))
        else:
            w("%-46s %-9s %9s %9s %8s  ERROR %s\n" % (r["id"], r["compare"], "-", gib(r["measured_bytes"]), "",
                                                      r["detail"]))
    w("\nA/B records %d: supported %d, unsupported %d (%.1f%%, target <= 15%%)\n" % (
        s["records"], s["supported"], s["unsupported"], s["unsupported_pct"]))
    w("point records %d: median |error| %s, p90 |error| %s (targets 8%% and 20%%)\n" % (
        s["points"], pct(s["median_pct"]), pct(s["p90_pct"])))
    w("OOM bounds %d: %d passed, %d failed\n" % (s["bounds"], s["bounds"] - s["bound_failures"],
                                                s["bound_failures"]))
    if s["errors"]:
        w("engine errors %d:\n" % s["errors"])
        for e in s["error_list"]:
            w("  %s: %s\n" % (e["id"], e["error"]))
    w("unsupported:\n")
    for u in s["unsupported_list"]:
        w("  %s: %s\n" % (u["id"], u["reason"]))
    print_groups(s, out)


def print_groups(s, out=sys.stdout):
    w = out.write
    for title, key in (("by grade", "by_grade"), ("by method", "by_method"), ("by source", "by_source")):
        w("%s:\n" % title)
        for k, g in s[key].items():
            w("  %-26s points %3d  median %7s  p90 %7s  bounds %d (failed %d)  unsupported %d  errors %d\n" % (
                k, g["points"], pct(g["median_pct"]), pct(g["p90_pct"]), g["bounds"], g["bound_failures"],
                g["unsupported"], g["errors"]))


def write_baseline(s, path=BASELINE, extra=None):
    base = {
        "_note": "Written by `python3 tests/accuracy.py --write-baseline` from a real run; tests/t_accuracy.py "
                 "fails when a later run is worse (median/p90 by more than 0.1 point, or more unsupported "
                 "records, bound failures or engine errors). Do not edit by hand.",
        "records": s["records"], "points": s["points"],
        "median_pct": s["median_pct"], "p90_pct": s["p90_pct"],
        "unsupported": s["unsupported"], "bound_failures": s["bound_failures"], "errors": s["errors"],
    }
    if extra:
        base.update(extra)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(base, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)
    return base


def load_set(name):
    """The cases of one set (set 1 with the project's verified measurements)."""
    cases_path, cal, _ = SETS[name]
    cases = load_jsonl(cases_path)
    if name == "1":
        # Our own measurements (gpusizer verify on a real GPU) join the public ones.
        sys.path.insert(0, os.path.join(TOP, "tools"))
        import verified_cases  # noqa: E402
        cases += verified_cases.cases(os.path.join(TOP, "measurements", "verified.jsonl"))
    return cases


def parse(argv):
    opts = {"json": False, "base": False, "validate": False, "set": "all", "stack": True}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--json":
            opts["json"] = True
        elif a == "--write-baseline":
            opts["base"] = True
        elif a == "--validate":
            opts["validate"] = True
        elif a == "--no-stack":
            opts["stack"] = False
        elif a == "--set" and i + 1 < len(argv) and argv[i + 1] in ("1", "2", "all"):
            opts["set"] = argv[i + 1]
            i += 1
        elif a.startswith("--set=") and a[6:] in ("1", "2", "all"):
            opts["set"] = a[6:]
        else:
            return None
        i += 1
    return opts


def main(argv):
    opts = parse(argv)
    if opts is None:
        sys.stderr.write("usage: accuracy.py [--set 1|2|all] [--json] [--write-baseline] [--validate] [--no-stack]\n")
        return 2
    global STACK
    STACK = opts["stack"]
    if opts["base"] and not STACK:
        sys.stderr.write("accuracy.py: --write-baseline runs the cases as mapped (with their stacks)\n")
        return 2
    names = ["1", "2"] if opts["set"] == "all" else [opts["set"]]
    cases_of, bad_of = {}, {}
    for n in names:
        cases_of[n] = load_set(n)
        bad_of[n] = validate(cases_of[n], SETS[n][1])
    if opts["validate"]:
        nbad = 0
        for n in names:
            cases = cases_of[n]
            for b in bad_of[n]:
                print("invalid (set %s): %s" % (n, b))
            n_uns = sum(1 for c in cases if c["unsupported"])
            print("set %s: %d cases, %d supported, %d unsupported, %d problems" % (
                n, len(cases), len(cases) - n_uns, n_uns, len(bad_of[n])))
            nbad += len(bad_of[n])
        return 1 if nbad else 0
    if any(bad_of.values()):
        for n in names:
            for b in bad_of[n]:
                sys.stderr.write("accuracy: invalid case (set %s): %s\n" % (n, b))
        return 1
    gpusizer = os.environ.get("GPUSIZER", os.path.join(TOP, "gpusizer"))
    wrap = os.environ.get("GS_WRAP", "").split()
    jobs = max(1, min(8, os.cpu_count() or 1))
    rows_of, sum_of = {}, {}
    for n in names:
        rows_of[n] = evaluate(cases_of[n], gpusizer, wrap, jobs, n, source_labels(SETS[n][1]))
        sum_of[n] = summarize(rows_of[n])
        sum_of[n]["set"] = n
    combined = None
    if len(names) > 1:
        combined = summarize(rows_of["1"] + rows_of["2"])
        combined["set"] = "all"
        combined["by_set"] = {n: group_stats(rows_of[n]) for n in names}
    if opts["json"]:
        for n in names:
            sum_of[n]["rows"] = rows_of[n]
        if combined is None:
            doc = sum_of[names[0]]
        else:  # the rows are in the per-set objects only
            doc = {"set": "all", "sets": sum_of, "combined": combined}
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        for n in names:
            print("=== set %s (%s)" % (n, os.path.relpath(SETS[n][0], TOP)))
            print_table(rows_of[n], sum_of[n])
            print()
        if combined is not None:
            c = combined
            print("=== combined (sets 1 and 2)")
            print("A/B records %d: supported %d, unsupported %d (%.1f%%)" % (
                c["records"], c["supported"], c["unsupported"], c["unsupported_pct"]))
            print("point records %d: median |error| %s, p90 |error| %s" % (
                c["points"], pct(c["median_pct"]), pct(c["p90_pct"])))
            print("OOM bounds %d: %d passed, %d failed; engine errors %d" % (
                c["bounds"], c["bounds"] - c["bound_failures"], c["bound_failures"], c["errors"]))
            print("by set:")
            for k, g in c["by_set"].items():
                print("  %-26s points %3d  median %7s  p90 %7s  bounds %d (failed %d)  unsupported %d  errors %d" % (
                    "set " + k, g["points"], pct(g["median_pct"]), pct(g["p90_pct"]), g["bounds"],
                    g["bound_failures"], g["unsupported"], g["errors"]))
            print_groups(c)
    for n in names:
        s = sum_of[n]
        if s["supported"] and s["errors"] == s["supported"]:
            sys.stderr.write("accuracy: set %s: no estimate could be made (first error: %s)\n" % (
                n, s["error_list"][0]["error"]))
            return 1
    if opts["base"]:
        for n in names:
            s = sum_of[n]
            extra = None
            if n == "2":
                extra = {"by_source": {k: {"points": g["points"], "median_pct": g["median_pct"],
                                           "p90_pct": g["p90_pct"]} for k, g in s["by_source"].items()}}
            base = write_baseline(s, SETS[n][2], extra)
            if not opts["json"]:
                print("wrote %s: %s" % (os.path.relpath(SETS[n][2], TOP), json.dumps(
                    {k: base[k] for k in ("median_pct", "p90_pct", "unsupported", "bound_failures", "errors")})))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
