#!/usr/bin/env python3
"""GPU class files: the committed gpus/ cover the required classes with a
source for every figure; a bad file is exit 3 naming the file and the field;
a user adds a class by adding a file."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from lib import GS, TOP, Checks

SMALL = os.path.join(TOP, "tests", "fixtures", "spec-small.json")
GPUS = os.path.join(TOP, "gpus")
ok = Checks()


def report(gdir, out, *extra):
    p = subprocess.run(GS + ["report", "--spec", SMALL, "--out", out, "--offline", "--format", "json",
                             "--models-dir", os.path.join(TOP, "models"), "--gpus-dir", gdir] + list(extra),
                       cwd=TOP, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def committed():
    files = sorted(f for f in os.listdir(GPUS) if f.endswith(".json"))
    data = {f[:-5]: json.load(open(os.path.join(GPUS, f))) for f in files}
    want = {
        "12 GB": ["rtx-3060-12gb", "rtx-4070", "rtx-5070"],
        "16 GB": ["rtx-4060-ti-16gb", "rtx-4080", "t4", "v100-16gb", "rtx-5080", "rtx-5060-ti-16gb"],
        "24 GB": ["rtx-3090", "rtx-4090", "a10", "l4"],
        "32 GB": ["rtx-5090", "v100-32gb"],
        "40 GB": ["a100-40gb"],
        "48 GB": ["rtx-a6000", "l40s", "rtx-6000-ada", "l20"],
        "80 GB": ["a100-80gb", "h100-sxm", "h800"],
        "94 GB": ["h100-nvl"],
        "96 GB": ["h20", "rtx-pro-6000"],
        "128 GB": ["dgx-spark-gb10"],
        "141 GB": ["h200"],
        "192 GB": ["b200", "gb200", "mi300x"],
        "256 GB": ["mi325x"],
        "288 GB": ["b300", "gb300", "mi350x", "mi355x"],
    }
    for klass, ids in want.items():
        ok(all(i in data and data[i]["class"] == klass for i in ids), "gpus/: class %s has %s" % (klass, ", ".join(ids)),
           str([(i, data.get(i, {}).get("class")) for i in ids]))
    figures = ("total_mib", "total_bytes", "usable_mib", "usable_bytes", "bf16", "fp8", "bandwidth_gbs", "bf16_tflops")
    missing = [(i, f) for i, d in data.items() for f in figures if f in d and not d["sources"].get(f)]
    ok(not missing, "gpus/: every figure has a source", str(missing))
    nobf16 = [i for i, d in data.items() if not d["bf16"]]
    ok(sorted(nobf16) == ["t4", "v100-16gb", "v100-32gb"], "gpus/: only T4 and V100 lack bf16", str(nobf16))
    fp8 = sorted(i for i, d in data.items() if d["fp8"])
    ok(all(i not in fp8 for i in ("a100-40gb", "a100-80gb", "rtx-3090", "rtx-3060-12gb", "a10", "rtx-a6000", "t4"))
       and all(i in fp8 for i in ("rtx-4090", "l4", "l40s", "h100-sxm", "h200", "b200", "mi300x", "rtx-5090",
                                  "b300", "gb200", "gb300", "mi325x", "mi350x", "mi355x", "rtx-pro-6000", "h20",
                                  "h800", "l20", "rtx-5080", "rtx-5070", "rtx-5060-ti-16gb", "dgx-spark-gb10")),
       "gpus/: fp8 only on Ada, Hopper, Blackwell, CDNA 3 and 4", str(fp8))
    # FP4 tensor math (issue 30 item 5): exactly the Blackwell and CDNA 4 classes, each with its dense TFLOPS.
    fp4 = sorted(i for i, d in data.items() if d.get("fp4"))
    fp4_arch = sorted(i for i, d in data.items() if d.get("architecture") in ("blackwell", "cdna4"))
    ok(fp4 == fp4_arch and "b300" in fp4 and "mi355x" in fp4 and "h200" not in fp4,
       "gpus/: fp4 exactly on Blackwell and CDNA 4", str((fp4, fp4_arch)))
    bad4 = [i for i, d in data.items() if ("fp4_tflops" in d) != bool(d.get("fp4"))]
    ok(not bad4, "gpus/: fp4_tflops exactly where fp4 is true", str(bad4))
    dense = [i for i, d in data.items() if d.get("fp4") and not d["fp4_tflops"] >= d["fp8_tflops"] >= d["bf16_tflops"]]
    ok(not dense, "gpus/: dense fp4 >= fp8 >= bf16 TFLOPS on every fp4 class", str(dense))
    unified = sorted(i for i, d in data.items() if d.get("unified_memory"))
    ok(unified == ["dgx-spark-gb10"] and data["dgx-spark-gb10"]["usable_mib"] < data["dgx-spark-gb10"]["total_mib"] - 4096,
       "gpus/: only DGX Spark's memory is unified, and its usable leaves the OS its share",
       str((unified, data["dgx-spark-gb10"].get("usable_mib"))))
    # The time model's figures (issue 17 item 0): in every committed file, sourced.
    timef = ("fp8_tflops", "interconnect", "link_gbs", "pcie_gen", "pcie_lanes")
    missing = [(i, f) for i, d in data.items() for f in timef if f in d and not d["sources"].get(f)]
    ok(not missing, "gpus/: every time-model figure has a source", str(missing))
    # A GPU whose host link is NVLink-C2C (GB200, GB10) has no PCIe host link to give; its notes say so.
    c2c = sorted(i for i, d in data.items() if "NVLink-C2C" in d.get("notes", "") and "pcie_gen" not in d)
    lacking = [(i, f) for i, d in data.items() for f in ("interconnect", "pcie_gen", "pcie_lanes")
               if f not in d and not (f.startswith("pcie") and i in c2c)]
    ok(not lacking and c2c == ["dgx-spark-gb10", "gb200"],
       "gpus/: every file names its interconnect and host link (PCIe, or NVLink-C2C in its notes)", str((lacking, c2c)))
    bad8 = [i for i, d in data.items() if ("fp8_tflops" in d) != d["fp8"]]
    ok(not bad8, "gpus/: fp8_tflops exactly where fp8 is true", str(bad8))
    badl = [i for i, d in data.items() if ("link_gbs" in d) != (d.get("interconnect") != "none")]
    ok(not badl, "gpus/: link_gbs exactly where there is a GPU-to-GPU link", str(badl))
    ok(data["h100-sxm"].get("interconnect") == "nvlink4" and data["h100-sxm"].get("link_gbs") == 450
       and data["rtx-4090"].get("fp8_tflops") == 330.3 and data["t4"].get("pcie_gen") == 3
       and data["rtx-4060-ti-16gb"].get("pcie_lanes") == 8,
       "gpus/: time figures as the audit (H100 NVLink 4 450 GB/s, 4090 fp8 330.3, T4 Gen3, 4060 Ti x8)")


def priced(d, usd, day, sourced=True):
    """A GPU file with a price (a made-up quote: the tests own it)."""
    d["price_usd_per_hour"] = usd
    if day is not None:
        d["price_date"] = day
    if sourced:
        d["sources"]["price_usd_per_hour"] = "test fixture"


def with_fp4(d, tflops, fp4=True, sourced=("fp4", "fp4_tflops")):
    """d with an fp4 figure (made up: the tests own it); fp4 None leaves the flag out."""
    if fp4 is not None:
        d["fp4"] = fp4
    d["fp4_tflops"] = tflops
    for k in sourced:
        d["sources"][k] = "test fixture"


def bad_files(tmp):
    base = json.load(open(os.path.join(GPUS, "rtx-4090.json")))
    cases = {
        "missing field": ("bf16", lambda d: d.pop("bf16")),
        "wrong type": ("bandwidth_gbs", lambda d: d.update({"bandwidth_gbs": "fast"})),
        "unknown field": ("colour", lambda d: d.update({"colour": "green"})),
        "unknown segment": ("segment", lambda d: d.update({"segment": "cloud"})),
        "missing source": ("sources.bf16_tflops", lambda d: d["sources"].pop("bf16_tflops")),
        "usable above total": ("usable", lambda d: d.update({"usable_mib": d["total_mib"] + 1})),
        "both units": ("total_bytes", lambda d: d.update({"total_bytes": 1})),
        "fp8_tflops wrong type": ("fp8_tflops", lambda d: d.update({"fp8_tflops": "fast"})),
        "fp8_tflops negative": ("fp8_tflops", lambda d: d.update({"fp8_tflops": -1})),
        "fp8_tflops without fp8": ("fp8_tflops", lambda d: d.update({"fp8": False})),
        "fp8_tflops missing source": ("sources.fp8_tflops", lambda d: d["sources"].pop("fp8_tflops")),
        "fp4_tflops wrong type": ("fp4_tflops", lambda d: with_fp4(d, "fast")),
        "fp4_tflops negative": ("fp4_tflops", lambda d: with_fp4(d, -1)),
        "fp4_tflops zero": ("fp4_tflops", lambda d: with_fp4(d, 0)),
        "fp4_tflops too large": ("fp4_tflops", lambda d: with_fp4(d, 2e6)),
        "fp4_tflops without fp4": ("fp4_tflops", lambda d: with_fp4(d, 1321.2, fp4=None)),
        "fp4_tflops with fp4 false": ("fp4_tflops", lambda d: with_fp4(d, 1321.2, fp4=False)),
        "fp4 wrong type": ("fp4", lambda d: with_fp4(d, 1321.2, fp4="yes")),
        "fp4 missing source": ("sources.fp4", lambda d: with_fp4(d, 1321.2, sourced=("fp4_tflops",))),
        "fp4_tflops missing source": ("sources.fp4_tflops", lambda d: with_fp4(d, 1321.2, sourced=("fp4",))),
        "unified_memory wrong type": ("unified_memory", lambda d: d.update({"unified_memory": 1})),
        "unified_memory missing source": ("sources.unified_memory", lambda d: d.update({"unified_memory": True})),
        "architecture unknown": ("architecture", lambda d: d.update({"architecture": "cdna5"})),
        "interconnect wrong type": ("interconnect", lambda d: d.update({"interconnect": 4})),
        "interconnect unknown": ("interconnect", lambda d: d.update({"interconnect": "warp-drive"})),
        "interconnect missing source": ("sources.interconnect", lambda d: d["sources"].pop("interconnect")),
        "link_gbs without link": ("link_gbs", lambda d: d.update({"link_gbs": 50})),
        "link_gbs missing": ("link_gbs", lambda d: d.update({"interconnect": "nvlink4"})),
        "link_gbs missing source": ("sources.link_gbs", lambda d: d.update(
            {"interconnect": "nvlink-bridge", "link_gbs": 56.25,
             "sources": dict(d["sources"], interconnect="x")})),
        "pcie_gen wrong type": ("pcie_gen", lambda d: d.update({"pcie_gen": "4"})),
        "pcie_gen out of range": ("pcie_gen", lambda d: d.update({"pcie_gen": 9})),
        "pcie_lanes not a power of two": ("pcie_lanes", lambda d: d.update({"pcie_lanes": 12})),
        "pcie_lanes missing source": ("sources.pcie_lanes", lambda d: d["sources"].pop("pcie_lanes")),
        "price without its day": ("price_date", lambda d: priced(d, 0.69, None)),
        "price day without a price": ("price_date", lambda d: d.update({"price_date": "2026-11-30"})),
        "price day not a day": ("price_date", lambda d: priced(d, 0.69, "30/11/2026")),
        "price day month 13": ("price_date", lambda d: priced(d, 0.69, "2026-13-01")),
        "price missing source": ("sources.price_usd_per_hour", lambda d: priced(d, 0.69, "2026-11-30", False)),
        "price negative": ("price_usd_per_hour", lambda d: priced(d, -1, "2026-11-30")),
        "price absurd": ("price_usd_per_hour", lambda d: priced(d, 69000, "2026-11-30")),
        "price a string": ("price_usd_per_hour", lambda d: priced(d, "$0.69", "2026-11-30")),
    }
    for name, (field, mutate) in cases.items():
        gdir = os.path.join(tmp, name.replace(" ", "-"))
        shutil.copytree(GPUS, gdir)
        d = json.loads(json.dumps(base))
        mutate(d)
        with open(os.path.join(gdir, "rtx-4090.json"), "w") as f:
            json.dump(d, f, indent=2)
        out = os.path.join(tmp, "out-" + name.replace(" ", "-"))
        rc, so, se = report(gdir, out)
        ok(rc == 3 and "rtx-4090.json" in se and field in se,
           "bad GPU file (%s): exit 3 naming the file and %s" % (name, field), "rc=%d %s" % (rc, se.strip()))
        ok(not os.path.exists(out), "bad GPU file (%s): nothing written" % name)
    gdir = os.path.join(tmp, "notjson")
    shutil.copytree(GPUS, gdir)
    with open(os.path.join(gdir, "l4.json"), "w") as f:
        f.write("{ nope")
    rc, so, se = report(gdir, os.path.join(tmp, "o"))
    ok(rc == 3 and "l4.json" in se, "GPU file that is not JSON: exit 3 naming it", se)


def add_class(tmp):
    gdir = os.path.join(tmp, "added")
    shutil.copytree(GPUS, gdir)
    d = json.load(open(os.path.join(GPUS, "h100-sxm.json")))
    d.update({"name": "Example 64 GB", "class": "64 GB", "total_mib": 65536, "usable_mib": 65024})
    with open(os.path.join(gdir, "example-64gb.json"), "w") as f:
        json.dump(d, f)
    out = os.path.join(tmp, "out-added")
    rc, so, se = report(gdir, out, "--gpu", "t4,example-64gb,h200")
    js = json.load(open(os.path.join(out, "sizing.json"))) if rc == 0 else {"gpus": []}
    ids = [g["id"] for g in js["gpus"]]
    ok(rc == 0 and ids == ["t4", "example-64gb", "h200"], "a new GPU file adds a class (columns by capacity)",
       "rc=%d %s %s" % (rc, ids, se))
    row = js["rows"][0] if rc == 0 else None
    ok(row is not None and "example-64gb" in row["gpu_verdicts"], "rows carry a verdict for the added class")


def main():
    tmp = tempfile.mkdtemp(prefix="gs-t-gpus-")
    try:
        committed()
        bad_files(tmp)
        add_class(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return ok.status()


if __name__ == "__main__":
    sys.exit(main())
