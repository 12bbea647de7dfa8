#!/usr/bin/env python3
"""The time model (src/core/timing.c) against the grade A/B records of
../shared/measurements/speed.jsonl and speed2.jsonl: median and p90 |error|
per task and per runtime, over both sets and per set, and the records it
cannot express and why. Python standard library only.

  python3 tests/speed_accuracy.py [--driver build/speed/driver] [--write-baseline] [--rows] [--json]

|error| = |predicted - measured| / measured, on the record's own metric
(tokens/s, step time, time to train, time to first token, time per output
token). The quantiles are weighted by source (source_key): each source's
records weigh 1 in all, shared among them, so that no one benchmark table
steers a figure (README-speed.md: "weight by source_key when scoring";
README-speed2.md: two sources are half of speed2). The plain (unweighted)
median and p90 are printed beside them. The driver is built with
`make build/speed/driver` (mk/speed.mk) when missing.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "speed"))
import cases  # noqa: E402

BASELINE = os.path.join(HERE, "speed", "baseline.json")
TASKS = ["train_full", "train_lora", "train_qlora", "prefill", "decode", "generate_end_to_end", "serve"]
# The "training" task: full fine-tuning, LoRA and QLoRA together.
POOLED = {"training": ("train_full", "train_lora", "train_qlora")}
SETS = [tag for tag, _ in cases.SETS]


def driver_path(build=None):
    build = build or os.environ.get("BUILD", "build")
    path = os.path.join(TOP, build, "speed", "driver")
    subprocess.run(["make", "-s", "--no-print-directory", "BUILD=" + build, os.path.join(build, "speed", "driver")],
                   cwd=TOP, check=True)
    return path


def run(driver, records=None):
    """(rows, unsupported): rows are dicts with id, set, task, runtime, source_key, measured, predicted, err."""
    ok, bad = cases.build(records if records is not None else cases.load_all())
    inp = "".join(line + "\n" for _, line, _ in ok)
    wrap = os.environ.get("GS_WRAP", "").split()
    p = subprocess.run(wrap + [driver, os.path.join(TOP, "gpus"), os.path.join(HERE, "speed", "gpus")], input=inp,
                       capture_output=True, text=True, cwd=TOP, check=True)
    out = {}
    for line in p.stdout.splitlines():
        f = line.split("\t")
        if f[1] != "ok":
            out[f[0]] = f[2] if len(f) > 2 else "error"
            continue
        out[f[0]] = {k: float(v) for k, v in (x.split("=", 1) for x in f[2:])}
    rows, unsupported = [], [(r, why) for r, why in bad]
    for r, line, read in ok:
        o = out.get(r["id"])
        if not isinstance(o, dict):
            unsupported.append((r, "driver: %s" % o))
            continue
        pred = read(o)
        rows.append({"id": r["id"], "set": r.get("_set", "speed"), "task": r["task"], "source_key": r["source_key"],
                     "runtime": line.split("\t")[3], "gpu": r["gpu_class"],
                     "measured": r["value"], "predicted": pred, "err": abs(pred - r["value"]) / r["value"],
                     "signed": (pred - r["value"]) / r["value"], "out": o, "line": line, "record": r})
    return rows, unsupported


def quantile(v, q):
    v = sorted(v)
    if not v:
        return None
    k = (len(v) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def wquantile(pairs, q):
    """The q-quantile of (value, weight) pairs: each value sits at the middle
    of its weight's span of the cumulative weight, linear between."""
    pairs = sorted(pairs)
    if not pairs:
        return None
    total = sum(w for _, w in pairs)
    pos, cum = [], 0.0
    for v, w in pairs:
        pos.append((cum + w / 2) / total)
        cum += w
    if q <= pos[0]:
        return pairs[0][0]
    for i in range(1, len(pairs)):
        if q <= pos[i]:
            f = (q - pos[i - 1]) / (pos[i] - pos[i - 1])
            return pairs[i - 1][0] + f * (pairs[i][0] - pairs[i - 1][0])
    return pairs[-1][0]


def stats(rows, unsup):
    """n, sources, source-weighted median/p90 and the plain ones."""
    per = {}
    for r in rows:
        per[r["source_key"]] = per.get(r["source_key"], 0) + 1
    pairs = [(r["err"], 1.0 / per[r["source_key"]]) for r in rows]
    e = [r["err"] for r in rows]
    r4 = lambda x: round(x, 4) if x is not None else None  # noqa: E731
    return {"n": len(rows), "sources": len(per), "unsupported": unsup,
            "median": r4(wquantile(pairs, 0.5)), "p90": r4(wquantile(pairs, 0.9)),
            "median_plain": r4(quantile(e, 0.5)), "p90_plain": r4(quantile(e, 0.9))}


def summary(rows, unsupported):
    """{"tasks": both sets per task, "sets": {set: per task}, "runtimes": per runtime}."""
    def task_group(rs, un, t):
        of = POOLED.get(t, (t,))
        return stats([r for r in rs if r["task"] in of], sum(1 for r, _ in un if r["task"] in of))
    s = {"tasks": {t: task_group(rows, unsupported, t) for t in TASKS + list(POOLED)}, "sets": {}, "runtimes": {}}
    for tag in SETS:
        rs = [r for r in rows if r["set"] == tag]
        un = [(r, w) for r, w in unsupported if r.get("_set", "speed") == tag]
        s["sets"][tag] = {t: task_group(rs, un, t) for t in TASKS + list(POOLED)}
    for rt in sorted({r["runtime"] for r in rows}):
        s["runtimes"][rt] = stats([r for r in rows if r["runtime"] == rt], 0)
    return s


def pct(x):
    return "-" if x is None else "%.1f%%" % (100 * x)


def print_table(title, groups, keys):
    print(title)
    print("  %-20s %5s %4s %9s %9s   %9s %9s %12s" % ("", "n", "src", "median", "p90", "plain med", "plain p90",
                                                     "unsupported"))
    for k in keys:
        x = groups[k]
        if x["n"] == 0 and not x["unsupported"]:
            continue
        print("  %-20s %5d %4d %9s %9s   %9s %9s %12d" % (k, x["n"], x["sources"], pct(x["median"]), pct(x["p90"]),
                                                        pct(x["median_plain"]), pct(x["p90_plain"]), x["unsupported"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver")
    ap.add_argument("--write-baseline", action="store_true")
    ap.add_argument("--rows", action="store_true", help="print every supported record")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    driver = a.driver or driver_path()
    rows, unsupported = run(driver)
    s = summary(rows, unsupported)
    if a.json:
        print(json.dumps(s, indent=2))
    else:
        if a.rows:
            for r in sorted(rows, key=lambda r: (r["set"], r["task"], r["source_key"], r["id"])):
                print("%-6s %-20s %-58s %-26.26s %-12s measured %10.4g predicted %10.4g %+6.0f%%" % (
                    r["set"], r["task"], r["id"][:58], r["source_key"], r["runtime"], r["measured"], r["predicted"],
                    100 * r["signed"]))
            print()
        print("Time model vs speed.jsonl + speed2.jsonl (grade A/B): |predicted - measured| / measured;")
        print("median and p90 weighted by source (each source weighs 1), the plain ones beside them.\n")
        keys = TASKS + list(POOLED)
        print_table("Both sets, per task:", s["tasks"], keys)
        for tag in SETS:
            print()
            print_table("%s.jsonl, per task:" % tag, s["sets"][tag], keys)
        print()
        print_table("Both sets, per runtime (inference) and training stack:", s["runtimes"], sorted(s["runtimes"]))
        print("\nsupported %d, unsupported %d (targets per task: median <= 12%%, p90 <= 30%% for decode, "
              "generate_end_to_end, serve and training)" % (len(rows), len(unsupported)))
        print("\nUnsupported records:")
        for r, why in sorted(unsupported, key=lambda x: (x[0].get("_set", ""), x[0]["task"], x[0]["id"])):
            print("  %-6s %-20s %-60s %s" % (r.get("_set", ""), r["task"], r["id"][:60], why))
    if a.write_baseline:
        with open(BASELINE, "w") as f:
            json.dump({"note": "written by tests/speed_accuracy.py --write-baseline; tests/t_speed_accuracy.py "
                       "fails when a group's median or p90 |error| (source-weighted, or plain) passes these "
                       "(plus 0.005) or a group supports fewer records", **s}, f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
