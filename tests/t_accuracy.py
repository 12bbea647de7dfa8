#!/usr/bin/env python3
"""Regression test for the committed accuracy figures (issue 2).

Runs tests/accuracy.py --json against $GPUSIZER (prefixed with $GS_WRAP) and
fails when the result is worse than tests/accuracy/baseline.json: median or
p90 |error| higher by more than 0.1 percentage point, or more unsupported
records, failed OOM bounds or engine errors. Also checks that the cases file
is valid and covers every grade A/B record of the calibration data (and, when
the project's shared copy is reachable, that the repository's copy equals
it). One PASS/FAIL line per check. Standard library only.
"""
import json
import os
import subprocess
import sys

import accuracy
from lib import TOP, Checks

TOL = 0.1  # percentage points
say = Checks()


def main():
    cases = accuracy.load_jsonl(accuracy.CASES)
    ab = accuracy.ab_ids()
    ids = [c["id"] for c in cases]
    missing = sorted(set(ab) - set(ids))
    say(not missing and len(ab) == len(ids), "accuracy-cases-cover-ab",
        "%d A/B records, %d cases, missing: %s" % (len(ab), len(ids), ", ".join(missing[:10])))
    bad = accuracy.validate(cases)
    say(not bad, "accuracy-cases-valid", "; ".join(bad[:5]))

    shared = os.path.join(os.path.dirname(TOP), "shared", "measurements", "calibration.jsonl")
    if os.path.isfile(shared):
        with open(shared, "rb") as a, open(accuracy.CALIBRATION, "rb") as b:
            same = a.read() == b.read()
        say(same, "accuracy-calibration-copy", "tests/accuracy/calibration.jsonl differs from %s" % shared)

    if not os.path.isfile(accuracy.BASELINE):
        say(False, "accuracy-baseline", "tests/accuracy/baseline.json missing (run tests/accuracy.py --write-baseline)")
        return 1
    with open(accuracy.BASELINE, encoding="utf-8") as f:
        base = json.load(f)

    p = subprocess.run([sys.executable, os.path.join(TOP, "tests", "accuracy.py"), "--json"],
                       cwd=TOP, capture_output=True, text=True, timeout=1800)
    try:
        s = json.loads(p.stdout)
    except ValueError:
        say(False, "accuracy-run", "exit %d: %s" % (p.returncode, p.stderr.strip()[-300:]))
        return 1
    say(p.returncode == 0, "accuracy-run", "exit %d: %s" % (p.returncode, p.stderr.strip()[-300:]))

    def worse_pct(key):
        now, then = s.get(key), base.get(key)
        if then is None:
            return now is None, "baseline has none"
        if now is None:
            return False, "no figure now (baseline %.2f%%)" % then
        return now <= then + TOL, "%.2f%% now, baseline %.2f%% (+%.1f allowed)" % (now, then, TOL)

    for key in ("median_pct", "p90_pct"):
        ok, why = worse_pct(key)
        say(ok, "accuracy-" + key.replace("_pct", ""), why)
    for key in ("unsupported", "bound_failures", "errors"):
        now, then = s.get(key), base.get(key)
        ok = now is not None and now <= then
        say(ok, "accuracy-" + key.replace("_", "-"), "%s now, baseline %s" % (now, then))
        if key == "errors" and not ok:
            for e in s.get("error_list", [])[:5]:
                print("  %s: %s" % (e["id"], e["error"]))
    say(s.get("records") == base.get("records"), "accuracy-records",
        "%s records now, baseline %s" % (s.get("records"), base.get("records")))
    return say.status()


if __name__ == "__main__":
    sys.exit(main())
