"""The settings table drives every writer: CSV's columns, JSON's settings
object and the XLSX sheet's headers are the table's settings, in its order;
row ids come from the canonical key, so rows with different settings never
share one and a row keeps its id when the sweep around it changes."""
import csv
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib import GS, TOP, Checks, clean_env  # noqa: E402
from t_xlsx import Book  # noqa: E402

ok = Checks("settings-columns: ")


def run(*args, env=None):
    return subprocess.run(GS + list(args), capture_output=True, text=True, env=env, timeout=600)


def spec(path, methods, batches):
    with open(os.path.join(TOP, "tests", "fixtures", "spec-small.json")) as f:
        s = json.load(f)
    s["models"] = ["Qwen/Qwen2.5-0.5B"]
    s["axes"]["method"] = methods
    s["axes"]["precision"] = {m: s["axes"]["precision"][m] for m in methods}
    s["axes"]["batch"] = batches
    s["gpu_counts"] = [{"count": 1, "sharding": "ddp"}, {"count": 2, "sharding": "zero3"}]
    s["formats"] = ["csv", "json", "xlsx"]
    with open(path, "w") as f:
        json.dump(s, f)


def report(tmp, name, methods, batches, env):
    sp = os.path.join(tmp, name + ".json")
    out = os.path.join(tmp, name)
    spec(sp, methods, batches)
    r = run("report", "--offline", "--spec", sp, "--models-dir", os.path.join(TOP, "models"),
            "--out", out, env=env)
    ok(r.returncode == 0, "report %s exits 0" % name, r.stderr[-400:])
    return out


def main():
    tmp = tempfile.mkdtemp(prefix="gs_t_setcols.")
    env = clean_env(tmp)
    r = run("list", "settings", "--json", env=env)
    ok(r.returncode == 0, "list settings --json", r.stderr)
    table = json.loads(r.stdout)["settings"]
    names = [s["name"] for s in table]
    ok(len(names) >= 26 and "state-dict-load" in names and "compile" in names,
       "the table lists every setting (%d)" % len(names))

    # gpusizer.1's "Settings in detail" describes every setting of the table
    # and no other (the prose is by hand; this keeps it whole).
    import re
    with open(os.path.join(TOP, "gpusizer.1"), encoding="utf-8") as f:
        man = f.read()
    sec = man[man.index(".SS Settings in detail"):]
    sec = sec[:sec.index('.\\" BEGIN generated')]
    heads = [ln for prev, ln in zip(sec.splitlines(), sec.splitlines()[1:]) if prev == ".TP"]
    described = {m.replace("\\-", "-") for h in heads for m in re.findall(r"\\-\\-((?:[a-z0-9]|\\-)+)", h)}
    described = {d for d in described if not d.startswith("no-")}
    ok(described == set(names), "gpusizer.1 describes every setting and no other",
       "missing %s, extra %s" % (sorted(set(names) - described), sorted(described - set(names))))

    out = report(tmp, "all", ["full", "lora", "qlora", "inference"], [1, 4], env)
    with open(os.path.join(out, "sizing.csv"), newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    cols = head[head.index("label") + 1:head.index("error")]
    ok(cols == names, "CSV: the setting columns are the table's, in order", "%s" % cols)

    with open(os.path.join(out, "sizing.json")) as f:
        doc = json.load(f)
    keys = list(doc["rows"][0]["settings"].keys())
    ok(keys == names, "JSON: each row's settings are the table's, in order", "%s" % keys)

    book = Book(os.path.join(out, "gpusizer.xlsx"))
    sheet = [s for s in book.order if "Qwen" in s or "qwen" in s.lower()][0]
    heads = set(v for v in book.header(sheet).values() if isinstance(v, str))
    missing = [s["xlsx_column"] for s in table if s["xlsx_column"] not in heads]
    ok(not missing, "XLSX: the model sheet has a column for every setting", "missing %s" % missing)
    for nm in ("compile", "optimizer-in-bwd", "logits", "state-dict-load"):
        title = [s["xlsx_column"] for s in table if s["name"] == nm][0]
        ok(title in heads, "XLSX carries %s (as '%s')" % (nm, title))

    # Row ids: distinct settings, distinct ids; the same row, the same id
    # in a narrower sweep.
    ids = [row["id"] for row in doc["rows"]]
    sets = [json.dumps(row["settings"], sort_keys=True) for row in doc["rows"]]
    ok(len(set(ids)) == len(ids) == len(set(sets)), "%d rows: distinct settings, distinct ids" % len(ids))
    narrow = report(tmp, "narrow", ["lora", "inference"], [4], env)
    with open(os.path.join(narrow, "sizing.json")) as f:
        doc2 = json.load(f)
    by_settings = {json.dumps(row["settings"], sort_keys=True): row["id"] for row in doc["rows"]}
    same = [by_settings.get(json.dumps(row["settings"], sort_keys=True)) == row["id"] for row in doc2["rows"]]
    ok(same and all(same), "a row keeps its id in another sweep (%d rows)" % len(same))

    # The label is lossy, the id is not: lora rows that differ only in a
    # setting outside the label (lora-dropout) get different ids.
    a = run("estimate", "Qwen/Qwen2.5-0.5B", "--offline", "--models-dir", os.path.join(TOP, "models"),
            "--method", "lora", "--json", env=env)
    b = run("estimate", "Qwen/Qwen2.5-0.5B", "--offline", "--models-dir", os.path.join(TOP, "models"),
            "--method", "lora", "--lora-dropout", "0", "--json", env=env)
    if a.returncode == 0 and b.returncode == 0:
        ra, rb = json.loads(a.stdout)["rows"][0], json.loads(b.stdout)["rows"][0]
        ok(ra["label"] == rb["label"] and ra["id"] != rb["id"],
           "same label, different settings: different ids", "%s %s" % (ra["id"], rb["id"]))
    else:
        ok(False, "estimate --json runs", a.stderr + b.stderr)
    return ok.status()


if __name__ == "__main__":
    sys.exit(main())
