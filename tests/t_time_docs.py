#!/usr/bin/env python3
"""docs/time.md says what the time model is calibrated to: its table of the
GS_TIME_* constants holds every one of src/core/constants.h at the header's value,
and its error table (both speed sets, per task: the source-weighted and the
plain median and p90) is tests/speed/baseline.json's (rounded to 0.1%), as are
the plain medians the reports' Assumptions quote (rounded to 1%)."""
import json
import os
import re
import sys

from lib import TOP, Checks

check = Checks("time docs: ")


def main():
    with open(os.path.join(TOP, "src", "core", "constants.h")) as f:
        header = dict(re.findall(r"^#define (GS_TIME_\w+) (\S+)", f.read(), re.M))
    with open(os.path.join(TOP, "docs", "time.md")) as f:
        doc = f.read()
    table = dict(re.findall(r"^\| `(GS_TIME_\w+)` \| (\S+) \|", doc, re.M))
    check(len(header) > 15, "constants.h has the time model's constants (%d)" % len(header))
    missing = sorted(set(header) - set(table))
    extra = sorted(set(table) - set(header))
    check(not missing and not extra, "docs/time.md lists every GS_TIME_* constant and no other",
          "missing %s, extra %s" % (missing, extra))
    off = [(k, table[k], v) for k, v in header.items() if k in table and float(table[k]) != float(v)]
    check(not off, "docs/time.md's values are the header's", repr(off))
    with open(os.path.join(TOP, "tests", "speed", "baseline.json")) as f:
        base = json.load(f)["tasks"]
    rows = {m.group(1): tuple(float(x) for x in m.groups()[1:])
            for m in re.finditer(r"^\| (\w+) \| (\d+) \| (\d+) \| ([\d.]+)% \| ([\d.]+)% \| ([\d.]+)% \| "
                                 r"([\d.]+)% \|$", doc, re.M)}
    keys = ("median", "p90", "median_plain", "p90_plain")
    bad = [(t, rows.get(t), b) for t, b in base.items()
           if t not in rows or rows[t][0] != b["n"] or rows[t][1] != b["sources"]
           or any(abs(rows[t][2 + i] - 100 * b[k]) > 0.051 for i, k in enumerate(keys))]
    check(rows and not bad, "docs/time.md's error table is tests/speed/baseline.json's (%d tasks)" % len(rows),
          repr(bad))
    # The Assumptions (every report) quote the medians, rounded to a percent.
    with open(os.path.join(TOP, "templates", "partials", "assumptions.md.tmpl")) as f:
        part = f.read()
    quoted = {"train_full": "full fine-tuning", "train_lora": "LoRA", "train_qlora": "QLoRA",
              "decode": "decode", "prefill": "prefill"}
    stale = [(t, words, round(100 * base[t]["median_plain"])) for t, words in quoted.items()
             if "%s %d%%" % (words, round(100 * base[t]["median_plain"])) not in part]
    check(not stale, "the Assumptions quote tests/speed/baseline.json's medians", repr(stale))
    return check.status()


if __name__ == "__main__":
    sys.exit(main())
