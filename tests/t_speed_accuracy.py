#!/usr/bin/env python3
"""The time model against speed.jsonl (issue 17): fails when a task's median
or p90 |error| gets worse than tests/speed/baseline.json (by more than half
a point), or when a task supports fewer records than the baseline. Also
checks that the check can fail: a copy of the baseline with a tighter
figure must be reported as a regression."""
import json
import os
import sys

from lib import TOP, Checks

sys.path.insert(0, os.path.join(TOP, "tests"))
import speed_accuracy as sa  # noqa: E402

SLACK = 0.005
ok = Checks()


def regressions(now, base):
    bad = []
    for t, b in base["tasks"].items():
        n = now.get(t)
        if n is None or n["n"] < b["n"]:
            bad.append("%s: %s records supported, baseline %d" % (t, n and n["n"], b["n"]))
            continue
        for k in ("median", "p90"):
            if b[k] is not None and n[k] is not None and n[k] > b[k] + SLACK:
                bad.append("%s: %s |error| %.1f%%, baseline %.1f%%" % (t, k, 100 * n[k], 100 * b[k]))
    return bad


def main():
    gs = os.environ.get("GPUSIZER", "")
    build = os.path.relpath(os.path.dirname(gs), TOP) if gs and os.path.dirname(gs) != TOP else "build"
    driver = sa.driver_path(build)
    base = json.load(open(sa.BASELINE))
    rows, unsupported = sa.run(driver)
    now = sa.summary(rows, unsupported)
    bad = regressions(now, base)
    ok(not bad, "speed accuracy: no task worse than tests/speed/baseline.json", "; ".join(bad))
    ok(all(now[t]["n"] > 0 for t in sa.TASKS), "speed accuracy: every task has supported records",
       str({t: now[t]["n"] for t in sa.TASKS}))
    # The check can fail: a baseline 5 points tighter on decode's median is a regression.
    tight = json.loads(json.dumps(base))
    tight["tasks"]["decode"]["median"] -= 0.05
    ok(any("decode: median" in b for b in regressions(now, tight)), "speed accuracy: a tighter baseline fails")
    fewer = json.loads(json.dumps(base))
    fewer["tasks"]["train_full"]["n"] += 1
    ok(any("train_full" in b for b in regressions(now, fewer)), "speed accuracy: fewer supported records fails")
    # No calibration override leaks in: GS_TIME_PARAMS worsens the figures.
    os.environ["GS_TIME_PARAMS"] = "eff_max=0.2"
    rows2, un2 = sa.run(driver)
    del os.environ["GS_TIME_PARAMS"]
    ok(regressions(sa.summary(rows2, un2), base), "speed accuracy: a mis-calibrated model is caught")
    # The copy the cases read is the project's measured speeds, byte for byte.
    ok.shared_copy("speed accuracy: tests/speed/speed.jsonl is a copy of the shared measurements",
                   "measurements/speed.jsonl", os.path.join(TOP, "tests", "speed", "speed.jsonl"))
    return ok.status()


if __name__ == "__main__":
    sys.exit(main())
