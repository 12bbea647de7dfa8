"""Reports show our own verified measurements beside the prediction.

The store here is a fixture written by this test (records in the store's
schema with made-up figures); it tests the plumbing from the store to the
Markdown, HTML, XLSX, JSON and CSV reports, not any measurement."""
import json
import os
import subprocess
import tempfile

from lib import GS, Checks

check = Checks()

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
    rec = {"model": "Qwen/Qwen2.5-0.5B", "label": label, "settings": row["settings"],
           "date": "2026-12-01T00:00:00Z",
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

    # The spreadsheet and data formats carry it too, read through --measurements
    # (which wins over GPUSIZER_MEASUREMENTS). A second record is an out-of-memory
    # run of another row; a third names a label no row has.
    full = next(x for x in rows if x["settings"]["method"] == "full")
    oom = dict(rec, label=full["label"], settings=full["settings"], status="oom", measured={"allocated": None})
    # the join is the row key, not the label: the same label with another
    # setting (one the label does not show) is no row of this report
    other = dict(rec, settings=dict(row["settings"], **{"lora-dropout": 0.25}),
                 measured={"allocated": 8 * 2**30, "reserved": 8 * 2**30, "device": 9 * 2**30})
    store2 = os.path.join(d, "verified2.jsonl")
    with open(store2, "w") as f:
        for x in (rec, oom, other):
            f.write(json.dumps(x) + "\n")
    spec["formats"] = ["xlsx", "json", "csv"]
    with open(os.path.join(d, "spec.json"), "w") as f:
        json.dump(spec, f)
    env_wrong = dict(os.environ, GPUSIZER_MEASUREMENTS=os.path.join(d, "missing.jsonl"))
    r = subprocess.run(GS + ["report", "--offline", "--quiet", "--spec", os.path.join(d, "spec.json"),
                             "--measurements", store2], capture_output=True, text=True, timeout=300,
                       env=env_wrong)
    check(r.returncode == 0, "report --measurements FILE", r.stderr)
    doc = json.load(open(os.path.join(d, "out", "sizing.json")))
    by_label = {x["label"]: x for x in doc["rows"]}
    m = by_label[label]["measured"]
    check(m is not None and m["status"] == "ok" and m["device"] == 7 * 2**30
          and m["reserved"] == 6 * 2**30 and m["gpu"] == "NVIDIA GeForce RTX 4090"
          and m["gpu_class"] == "rtx-4090" and m["date"] == "2026-12-01T00:00:00Z",
          "sizing.json: the verified row has its measured figures (not those of a later record "
          "with the same label and other settings)", m)
    mo = by_label[full["label"]]["measured"]
    check(mo is not None and mo["status"] == "oom" and mo["allocated"] is None and mo["device"] is None,
          "sizing.json: an out-of-memory run has status oom and no figures", mo)
    unmeasured = [x for x in doc["rows"] if x["label"] not in (label, full["label"])]
    check(unmeasured and all("measured" in x and x["measured"] is None for x in unmeasured),
          "sizing.json: every other row has measured null")
    import csv
    with open(os.path.join(d, "out", "sizing.csv"), newline="") as f:
        crow = {x["label"]: x for x in csv.DictReader(f)}
    c = crow[label]
    check(c["measured_status"] == "ok" and c["measured_device_bytes"] == str(7 * 2**30)
          and c["measured_gpu"] == "NVIDIA GeForce RTX 4090" and c["measured_allocated_bytes"] == str(5 * 2**30),
          "sizing.csv: measured_* columns of the verified row", {k: v for k, v in c.items() if "measured" in k})
    check(crow[full["label"]]["measured_status"] == "oom" and crow[full["label"]]["measured_device_bytes"] == "",
          "sizing.csv: the out-of-memory run")
    check(all(x["measured_status"] == "" for k, x in crow.items() if k not in (label, full["label"])),
          "sizing.csv: other rows leave measured_* empty")

    from t_xlsx import Book
    book = Book(os.path.join(d, "out", "gpusizer.xlsx"))
    sheet = next(n for n in book.order if n.startswith("Qwen2.5-0.5B"))
    head = {v: k for k, v in book.header(sheet).items()}
    cells = book.cells(sheet)
    col_cfg, col_gib, col_txt = head.get("Configuration"), head.get("Measured GiB (gpusizer verify)"), \
        head.get("Measured on a real GPU")
    check(None not in (col_cfg, col_gib, col_txt), "xlsx: measured columns in the model sheet", head)
    if None not in (col_cfg, col_gib, col_txt):
        rows_x = {cells[(r, col_cfg)].value: r for (r, c) in cells if c == col_cfg and r > 0}
        rr = rows_x.get(label)
        pred = by_label[label]["estimate"]["device"]
        want = "measured 7.0 GiB on RTX 4090, predicted %.1f GiB" % (pred / 2**30)
        check(rr is not None and cells.get((rr, col_gib)) is not None and cells[(rr, col_gib)].value == 7.0
              and cells.get((rr, col_txt)) is not None and cells[(rr, col_txt)].value == want,
              "xlsx: the verified row shows 7.0 GiB and '%s'" % want,
              rr is not None and (cells.get((rr, col_gib)), cells.get((rr, col_txt))))
        ro = rows_x.get(full["label"])
        check(ro is not None and (ro, col_gib) not in cells
              and cells.get((ro, col_txt)) is not None and cells[(ro, col_txt)].value.startswith("out of memory on RTX 4090"),
              "xlsx: the out-of-memory run has text and no figure")
        n_meas = sum(1 for (r, c) in cells if c == col_txt and r > 0)
        check(n_meas == 2, "xlsx: only the two verified rows have measured text", n_meas)

    # A broken store is bad input naming the file and line; the reports stay.
    before = open(os.path.join(d, "out", "sizing.json"), "rb").read()
    bad = os.path.join(d, "bad.jsonl")
    with open(bad, "w") as f:
        f.write(json.dumps(rec) + "\n{\"model\": 1\n")
    r = subprocess.run(GS + ["report", "--offline", "--quiet", "--spec", os.path.join(d, "spec.json"),
                             "--measurements", bad], capture_output=True, text=True, timeout=300)
    check(r.returncode == 3 and "bad.jsonl:2" in r.stderr, "a broken store: exit 3 naming file:line",
          (r.returncode, r.stderr))
    check(open(os.path.join(d, "out", "sizing.json"), "rb").read() == before,
          "a broken store leaves the previous reports")
raise SystemExit(check.status())
