#!/usr/bin/env python3
"""Regression test for the committed accuracy figures (issues 2 and 13).

Runs tests/accuracy.py --set all --json against $GPUSIZER (prefixed with
$GS_WRAP) and fails when a set's result is worse than its baseline: set 1
(cases.jsonl) against tests/accuracy/baseline.json, set 2 (cases2.jsonl,
the second calibration set) against tests/accuracy/baseline2.json. Worse
means: median or p90 |error| higher by more than 0.1 percentage point, or
more unsupported records, failed OOM bounds or engine errors, or a different
record count. Also checks that each cases file is valid and covers every
grade A/B record of its calibration data, and that the repository's copies
equal the project's shared originals (the calibration files and set 2's
model configs; a counted SKIP where ../shared is absent). One PASS/FAIL line per check; set 1's
check names are those from before set 2, set 2's start "accuracy2-".
Standard library only.
"""
import json
import os
import subprocess
import sys

import accuracy
from lib import TOP, Checks

TOL = 0.1  # percentage points
say = Checks()


def check_files(prefix, cases_path, calibration, shared_name):
    cases = accuracy.load_jsonl(cases_path)
    ab = accuracy.ab_ids(calibration)
    ids = [c["id"] for c in cases]
    missing = sorted(set(ab) - set(ids))
    say(not missing and len(ab) == len(ids), prefix + "-cases-cover-ab",
        "%d A/B records, %d cases, missing: %s" % (len(ab), len(ids), ", ".join(missing[:10])))
    bad = accuracy.validate(cases, calibration)
    say(not bad, prefix + "-cases-valid", "; ".join(bad[:5]))
    say.shared_copy(prefix + "-calibration-copy", "measurements/" + shared_name, calibration)


def check_set(prefix, s, base_path):
    if not os.path.isfile(base_path):
        say(False, prefix + "-baseline", "%s missing (run tests/accuracy.py --set %s --write-baseline)" % (
            os.path.relpath(base_path, TOP), s.get("set")))
        return
    with open(base_path, encoding="utf-8") as f:
        base = json.load(f)

    def worse_pct(key):
        now, then = s.get(key), base.get(key)
        if then is None:
            return now is None, "baseline has none"
        if now is None:
            return False, "no figure now (baseline %.2f%%)" % then
        return now <= then + TOL, "%.2f%% now, baseline %.2f%% (+%.1f allowed)" % (now, then, TOL)

    for key in ("median_pct", "p90_pct"):
        ok, why = worse_pct(key)
        say(ok, prefix + "-" + key.replace("_pct", ""), why)
    for key in ("unsupported", "bound_failures", "errors"):
        now, then = s.get(key), base.get(key)
        ok = now is not None and now <= then
        say(ok, prefix + "-" + key.replace("_", "-"), "%s now, baseline %s" % (now, then))
        if key == "errors" and not ok:
            for e in s.get("error_list", [])[:5]:
                print("  %s: %s" % (e["id"], e["error"]))
    say(s.get("records") == base.get("records"), prefix + "-records",
        "%s records now, baseline %s" % (s.get("records"), base.get("records")))


def main():
    check_files("accuracy", accuracy.CASES, accuracy.CALIBRATION, "calibration.jsonl")
    check_files("accuracy2", accuracy.CASES2, accuracy.CALIBRATION2, "calibration2.jsonl")
    # Set 2's configs are byte copies of shared/measurements/configs2/.
    say.shared_copy("accuracy2-config-copies", "measurements/configs2",
                    os.path.join(accuracy.ACC, "models", "set2"), suffix=".json")

    p = subprocess.run([sys.executable, os.path.join(TOP, "tests", "accuracy.py"), "--set", "all", "--json"],
                       cwd=TOP, capture_output=True, text=True, timeout=1800)
    try:
        doc = json.loads(p.stdout)
        sets = doc["sets"]
    except (ValueError, KeyError, TypeError):
        say(False, "accuracy-run", "exit %d: %s" % (p.returncode, p.stderr.strip()[-300:]))
        return 1
    say(p.returncode == 0, "accuracy-run", "exit %d: %s" % (p.returncode, p.stderr.strip()[-300:]))
    check_set("accuracy", sets["1"], accuracy.BASELINE)
    check_set("accuracy2", sets["2"], accuracy.BASELINE2)
    return say.status()


if __name__ == "__main__":
    sys.exit(main())
