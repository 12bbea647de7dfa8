"""Reports show our own verified measurements beside the prediction.

The store here is a fixture written by this test (a record in the store's
schema with made-up figures); it tests the plumbing from the store to the
Markdown and HTML pages, not any measurement."""
import json
import os
import subprocess
import tempfile

GS = os.environ.get("GS_WRAP", "").split() + [os.environ.get("GPUSIZER", "./gpusizer")]
failed = 0


def check(cond, name, why=""):
    global failed
    print(("PASS " if cond else "FAIL ") + name + ("" if cond else ": " + str(why)))
    failed += 0 if cond else 1


with tempfile.TemporaryDirectory() as d:
    spec = json.load(open("tests/fixtures/spec-small.json"))
    spec["models"] = ["Qwen/Qwen2.5-0.5B"]
    spec["formats"] = ["md", "html", "json"]
    spec["out"] = os.path.join(d, "out")
    with open(os.path.join(d, "spec.json"), "w") as f:
        json.dump(spec, f)
    # the label of one row, as the report computes it
    r = subprocess.run(GS + ["report", "--offline", "--quiet", "--spec", os.path.join(d, "spec.json")],
                       capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, "report without a store", r.stderr)
    rows = json.load(open(os.path.join(d, "out", "sizing.json")))["rows"]
    row = next(x for x in rows if x["settings"]["method"] == "lora")
    label = row["label"]
    page = open(os.path.join(d, "out", "models", "Qwen--Qwen2.5-0.5B.md")).read()
    check("Verified on a real GPU" not in page, "no store: no verified section")

    store = os.path.join(d, "verified.jsonl")
    rec = {"model": "Qwen/Qwen2.5-0.5B", "label": label, "date": "2026-12-01T00:00:00Z",
           "gpu": {"name": "NVIDIA GeForce RTX 4090", "class": "rtx-4090"}, "status": "ok",
           "measured": {"allocated": 5 * 2**30, "reserved": 6 * 2**30, "device": 7 * 2**30},
           "predicted": {"allocated": 1, "reserved": 1, "device": 1}}
    with open(store, "w") as f:
        f.write(json.dumps(rec) + "\n")
    env = dict(os.environ, GPUSIZER_MEASUREMENTS=store)
    r = subprocess.run(GS + ["report", "--offline", "--quiet", "--spec", os.path.join(d, "spec.json")],
                       capture_output=True, text=True, timeout=300, env=env)
    check(r.returncode == 0, "report with a store", r.stderr)
    page = open(os.path.join(d, "out", "models", "Qwen--Qwen2.5-0.5B.md")).read()
    check("Verified on a real GPU" in page and "measured 7.0 GiB on RTX 4090" in page,
          "the model page shows the measured device GiB beside the row (fixture record)",
          [l for l in page.splitlines() if "measured" in l][:3])
    check(label.split()[0] in page.split("Verified on a real GPU")[1][:400], "the verified line names the row's settings")
    html = open(os.path.join(d, "out", "html", "models", "Qwen--Qwen2.5-0.5B.html")).read()
    check("measured 7.0 GiB on RTX 4090" in html, "the HTML page shows it too")
raise SystemExit(1 if failed else 0)
