"""The lists kept as tables, each checked against what it drives (as
t_settings_columns does for the settings table):
- the writer registry (report/writers.c): the formats report --help names
  are the ones --format and the spec accept, each writes its file, an
  unknown one is refused naming the same list;
- the axes (the settings table's swept rows): report --help's axis
  overrides come in the sweep's nesting order, and the rows of a report
  nest in exactly that order, every override's values in the order given;
- the time fields (report/timefields.c): estimate --json and plan --json
  write one table's keys in one order, the same figure for the same
  configuration and class; a report's "time" keys, CSV columns and
  workbook columns are the same fields with the same values."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib import GS, TOP, Checks, clean_env  # noqa: E402

ok = Checks("tables: ")
MODEL = "openai-community/gpt2"


def run(*args, env=None):
    return subprocess.run(GS + list(args), capture_output=True, text=True, env=env, timeout=600)


def help_options(env):
    """report --help: {group title: [(option, help text)]} in order."""
    r = run("report", "--help", env=env)
    groups, cur = {}, None
    for line in r.stdout.splitlines():
        m = re.match(r"^(\S.*):$", line)
        if m:
            cur = groups.setdefault(m.group(1), [])
            continue
        m = re.match(r"^\s+(?:-\w, )?--([a-z0-9-]+)(?: (\S+))?\s*(.*)$", line)
        if m and cur is not None:
            cur.append([m.group(1), m.group(3)])
        elif cur and line.strip():
            cur[-1][1] += " " + line.strip()
    return groups


def spec(path, **over):
    s = {"version": 1, "models": [MODEL],
         "axes": {"method": ["inference"], "seq": [256]},
         "gpu_counts": [{"count": 1}], "formats": ["json"]}
    s.update(over)
    with open(path, "w") as f:
        json.dump(s, f)


def report(tmp, env, name, *args, **over):
    sp = os.path.join(tmp, name + ".json")
    out = os.path.join(tmp, name)
    spec(sp, **over)
    return run("report", "--offline", "--spec", sp, "--models-dir", os.path.join(TOP, "models"),
               "--out", out, *args, env=env), out


def formats(tmp, env, groups):
    fmt = [h for o, h in groups.get("options", []) if o == "format"]
    names = fmt[0].rsplit(":", 1)[1].replace(" ", "").split(",") if fmt else []
    ok(len(names) >= 7 and len(set(names)) == len(names) and "xlsx" in names and
       all(re.match(r"^[a-z0-9.]+$", n) for n in names),
       "report --help names the registry's formats (%s)" % ", ".join(names), repr(fmt))
    wrote = []
    for n in names:  # (which file: test_rows checks each row's)
        r, out = report(tmp, env, "f-" + n.replace(".", "-"), "--format", n)
        if r.returncode == 0 and [f for f in os.listdir(out) if f != ".gpusizer-manifest"]:
            wrote.append(n)
    ok(wrote == names, "every format --help names is accepted and writes", "%s of %s" % (wrote, names))
    r, _ = report(tmp, env, "f-spec", formats=names)
    ok(r.returncode == 0, "the spec's \"formats\" accepts the same names", r.stderr[-300:])
    r, _ = report(tmp, env, "f-bad", "--format", "parquet")
    listed = re.search(r"unknown format \"parquet\" \(([^)]*)\)", r.stderr)
    ok(r.returncode == 2 and listed and listed.group(1).replace(" ", "").split(",") == names,
       "an unknown format is refused, naming the same list", r.stderr)


def two_values(st):
    """Two values of a swept setting, in an order of our own (not the
    table's), from what list settings says of it."""
    ax = st["axis"]
    if ax["gpu_layouts"]:
        return ["2:zero2", "1"]
    if st["type"] == "boolean":
        return ["true", "false"]
    if st["name"] == "method":
        return ["lora", "full"]  # both train: every training axis applies
    if st["name"] == "precision":
        return ["fp32", "bf16"]  # both valid for full and lora
    if st["type"] == "enum" and st["values"]:
        return [st["values"][1], st["values"][0]]
    if st["type"] == "integer":
        d = int(st["default"])
        return [str(d * 2), str(d)]
    if st["name"] == "lora-targets":
        return ["all-linear", "qv"]
    return [st["default"]]  # a new kind of axis: its default, one value


def axes(tmp, env, groups):
    r = run("list", "settings", "--json", env=env)
    table = sorted((st for st in json.loads(r.stdout)["settings"] if st["axis"]), key=lambda st: st["axis"]["order"])
    ov = [o for o, _ in groups.get("axis overrides (comma lists; they replace the spec's)", [])]
    ok([st["axis"]["order"] for st in table] == list(range(1, len(table) + 1)) and len(table) >= 10 and
       ov == ["models", "gpu"] + [st["axis"]["option"] for st in table],
       "report --help: --models, --gpu, then the settings table's %d axes in their order" % len(table), repr(ov))
    # Two values for every axis, each list in an order of our own: the rows
    # must nest in the table's order, each list in the order given.
    values = {st["axis"]["option"]: two_values(st) for st in table}
    args = []
    for st in table:
        args += ["--" + st["axis"]["option"], ",".join(values[st["axis"]["option"]])]
    r, out = report(tmp, env, "axes", "--models", "Qwen/Qwen2.5-0.5B", *args)
    if not ok(r.returncode == 0, "a report with two values on every axis", r.stderr[-300:]):
        return
    with open(os.path.join(out, "sizing.json")) as f:
        rows = json.load(f)["rows"]

    def rank(row):
        key = []
        for st in table:
            v = row["settings"][st["name"]]
            v = str(v).lower() if not isinstance(v, str) else v
            vals = [x.split(":")[0] for x in values[st["axis"]["option"]]]
            key.append(vals.index(v) if v in vals else -1)
        return key
    keys = [rank(x) for x in rows]
    both = all(len({k[i] for k in keys}) == len(values[st["axis"]["option"]]) for i, st in enumerate(table))
    ok(len(rows) >= 256 and -1 not in sum(keys, []) and both,
       "every override's values reach the rows (%d rows)" % len(rows))
    ok(keys == sorted(keys) and len(set(map(tuple, keys))) == len(keys),
       "the rows nest in the table's axis order, each list in its order given")


def keys_after(obj, first):
    """The keys of obj from `first` on (the time fields), in order."""
    ks = list(obj.keys())
    return ks[ks.index(first):] if first in ks else []


def times(tmp, env):
    models = os.path.join(TOP, "models")
    for method, extra, first in (("full", ["--tokens", "1e9"], "tp_comm_s"),
                                 ("inference", ["--new-tokens", "64"], "tp_comm_s")):
        common = [MODEL, "--offline", "--models-dir", models, "--method", method, "--seq", "512",
                  "--price", "rtx-4090=0.7", "--gpu", "rtx-4090,h100-sxm"] + extra
        a = run("estimate", *common, "--json", env=env)
        b = run("plan", *common, "--json", env=env)
        if not ok(a.returncode == 0 and b.returncode == 0, "%s: estimate and plan --json run" % method,
                  a.stderr + b.stderr):
            continue
        est = {g["id"]: g for g in json.loads(a.stdout)["time"]["gpus"]}
        plan = {c["gpu"]: c for c in json.loads(b.stdout)["classes"]}
        ke = keys_after(est["rtx-4090"], "peak_tflops")
        kp = keys_after(plan["rtx-4090"]["time"], first)
        ok(len(kp) >= 5 and [k for k in ke if k in kp] == kp,
           "%s: plan's time keys are estimate's, in its order (%d of %d)" % (method, len(kp), len(ke)),
           "%s / %s" % (kp, ke))
        same = [(g, k) for g in est for k in kp
                if plan[g]["fewest"] and plan[g]["fewest"]["gpus"] == 1 and est[g].get(k) == plan[g]["time"].get(k)]
        fewest1 = [g for g in est if plan[g]["fewest"] and plan[g]["fewest"]["gpus"] == 1]
        ok(fewest1 and len(same) == len(kp) * len(fewest1),
           "%s: at one GPU plan and estimate give the same figures (%d)" % (method, len(same)))
        ok(est["rtx-4090"].get("usd_per_million_tokens" if method == "inference" else "cost_usd") is not None
           and est["h100-sxm"].get("usd_per_million_tokens" if method == "inference" else "cost_usd") is None,
           "%s: a priced figure is null on the class without a price" % method)

    r, out = report(tmp, env, "time", formats=["json", "csv", "xlsx"],
                    axes={"method": ["full", "inference"], "seq": [256, 512]})
    if not ok(r.returncode == 0, "a report in JSON, CSV and XLSX", r.stderr[-300:]):
        return
    import csv
    from t_xlsx import Book
    with open(os.path.join(out, "sizing.json")) as f:
        doc = json.load(f)
    with open(os.path.join(out, "sizing.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    timed = [x for x in doc["rows"] if x["time"]]
    jkeys = sorted({k for x in timed for k in x["time"]})
    ok(jkeys == ["gpu_step_s", "tokens_per_step"], "the JSON rows' \"time\" members", repr(jkeys))
    bad = []
    for x, c in zip(doc["rows"], rows):
        t = x["time"] or {}
        if (c["tokens_per_step"] or None) != (json.dumps(t["tokens_per_step"]) if t else None):
            bad.append((x["id"], "tokens"))
        for g in doc["gpus"]:
            v = (t.get("gpu_step_s") or {}).get(g["id"])
            if (float(c[g["id"] + " step_s"]) if c[g["id"] + " step_s"] else None) != v:
                bad.append((x["id"], g["id"]))
    ok(len(timed) >= 4 and not bad, "CSV's time columns hold the JSON's values (%d rows)" % len(rows), repr(bad[:3]))
    book = Book(os.path.join(out, "gpusizer.xlsx"))
    sheet = book.order[-1]
    head = book.header(sheet)
    tcol = [c for c, h in head.items() if h == "Tokens per step (time model)"]
    scol = {h.split(", ", 1)[1]: c for c, h in head.items() if isinstance(h, str) and h.startswith("Step s, ")}
    ok(len(tcol) == 1 and len(scol) == len(doc["gpus"]), "the workbook has the row's and the classes' time columns",
       repr(sorted(head.values(), key=str)[-5:]))
    cells, xbad, n = book.cells(sheet), [], 0
    by_id = {x["id"]: x for x in doc["rows"]}
    for (r0, c0), cell in cells.items():
        if c0 != 0 or r0 == 0 or cell.value not in by_id or not tcol:
            continue
        t = by_id[cell.value]["time"]
        got = cells.get((r0, tcol[0]))
        if t and (got is None or got.value != t["tokens_per_step"]):
            xbad.append(cell.value)
        n += 1
    ok(n >= 4 and not xbad, "the workbook's tokens per step are the JSON's (%d rows)" % n, repr(xbad[:3]))


def main():
    tmp = tempfile.mkdtemp(prefix="gs_t_tables.")
    env = clean_env(tmp)
    try:
        groups = help_options(env)
        formats(tmp, env, groups)
        axes(tmp, env, groups)
        times(tmp, env)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return ok.status()


if __name__ == "__main__":
    sys.exit(main())
