#!/usr/bin/env python3
"""The time model against speed.jsonl and speed2.jsonl (issues 17 and 32):
fails when a group's median or p90 |error| (source-weighted or plain) gets
worse than tests/speed/baseline.json (by more than half a point), or when a
group supports fewer records than the baseline. The groups: each task over
both sets, each task per set, each runtime. Also checks that the check can
fail: a copy of the baseline with a tighter figure must be reported as a
regression."""
import json
import os
import sys

from lib import TOP, Checks

sys.path.insert(0, os.path.join(TOP, "tests"))
import speed_accuracy as sa  # noqa: E402

SLACK = 0.005
KEYS = ("median", "p90", "median_plain", "p90_plain")
ok = Checks()


def groups(s):
    """{"tasks/decode": {...}, "speed2/decode": {...}, "runtime/hf": {...}} of a summary."""
    out = {"tasks/" + t: v for t, v in s["tasks"].items()}
    for tag, ts in s.get("sets", {}).items():
        out.update({tag + "/" + t: v for t, v in ts.items()})
    out.update({"runtime/" + r: v for r, v in s.get("runtimes", {}).items()})
    return out


def regressions(now, base):
    bad = []
    n, b = groups(now), groups(base)
    for g, x in b.items():
        y = n.get(g)
        if y is None or y["n"] < x["n"]:
            bad.append("%s: %s records supported, baseline %d" % (g, y and y["n"], x["n"]))
            continue
        for k in KEYS:
            if x.get(k) is not None and y.get(k) is not None and y[k] > x[k] + SLACK:
                bad.append("%s: %s |error| %.1f%%, baseline %.1f%%" % (g, k, 100 * y[k], 100 * x[k]))
    return bad


def main():
    gs = os.environ.get("GPUSIZER", "")
    build = os.path.relpath(os.path.dirname(gs), TOP) if gs and os.path.dirname(gs) != TOP else "build"
    driver = sa.driver_path(build)
    base = json.load(open(sa.BASELINE))
    rows, unsupported = sa.run(driver)
    now = sa.summary(rows, unsupported)
    bad = regressions(now, base)
    ok(not bad, "speed accuracy: no group worse than tests/speed/baseline.json", "; ".join(bad))
    ok(all(now["tasks"][t]["n"] > 0 for t in sa.TASKS), "speed accuracy: every task has supported records",
       str({t: now["tasks"][t]["n"] for t in sa.TASKS}))
    ok(all(now["sets"][tag]["decode"]["n"] > 0 for tag in sa.SETS), "speed accuracy: both sets are scored",
       str({tag: now["sets"][tag]["decode"]["n"] for tag in sa.SETS}))
    # The check can fail: a baseline 5 points tighter on decode's median is a regression...
    tight = json.loads(json.dumps(base))
    tight["tasks"]["decode"]["median"] -= 0.05
    ok(any("tasks/decode: median" in b for b in regressions(now, tight)), "speed accuracy: a tighter baseline fails")
    # ...and so is a runtime's, or a set's
    tight = json.loads(json.dumps(base))
    tight["runtimes"]["hf"]["p90_plain"] -= 0.05
    tight["sets"]["speed2"]["decode"]["n"] += 1
    bad2 = regressions(now, tight)
    ok(any("runtime/hf: p90_plain" in b for b in bad2) and any("speed2/decode" in b for b in bad2),
       "speed accuracy: a tighter runtime or set baseline fails", "; ".join(bad2))
    fewer = json.loads(json.dumps(base))
    fewer["tasks"]["train_full"]["n"] += 1
    ok(any("train_full" in b for b in regressions(now, fewer)), "speed accuracy: fewer supported records fails")
    # No calibration override leaks in: GS_TIME_PARAMS worsens the figures.
    os.environ["GS_TIME_PARAMS"] = "eff_max=0.2,dec_bw_eff.serving=0.3"
    rows2, un2 = sa.run(driver)
    del os.environ["GS_TIME_PARAMS"]
    ok(regressions(sa.summary(rows2, un2), base), "speed accuracy: a mis-calibrated model is caught")
    # The copies the cases read are the project's measured speeds, byte for byte.
    for name in ("speed.jsonl", "speed2.jsonl"):
        ok.shared_copy("speed accuracy: tests/speed/%s is a copy of the shared measurements" % name,
                       "measurements/" + name, os.path.join(TOP, "tests", "speed", name))
    return ok.status()


if __name__ == "__main__":
    sys.exit(main())
