"""The lists kept as tables, each checked against what it drives (as
t_settings_columns does for the settings table):
- the writer registry (report/writers.c): the formats report --help names
  are the ones --format and the spec accept, each writes its file, an
  unknown one is refused naming the same list;
- the axes (the settings table's swept rows): report --help's axis
  overrides come in the sweep's nesting order, and the rows of a report
  nest in exactly that order, every override's values in the order given."""
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
    files = {"md": "index.md", "html": "html/index.html", "xlsx": "gpusizer.xlsx"}
    wrote = []
    for n in names:
        r, out = report(tmp, env, "f-" + n.replace(".", "-"), "--format", n)
        f = files.get(n, "sizing." + n)
        if r.returncode == 0 and os.path.exists(os.path.join(out, f)):
            wrote.append(n)
    ok(wrote == names, "every format --help names is accepted and writes its file", "%s of %s" % (wrote, names))
    r, _ = report(tmp, env, "f-spec", formats=names)
    ok(r.returncode == 0, "the spec's \"formats\" accepts the same names", r.stderr[-300:])
    r, _ = report(tmp, env, "f-bad", "--format", "parquet")
    listed = re.search(r"unknown format \"parquet\" \(([^)]*)\)", r.stderr)
    ok(r.returncode == 2 and listed and listed.group(1).replace(" ", "").split(",") == names,
       "an unknown format is refused, naming the same list", r.stderr)


def axes(tmp, env, groups):
    ov = [o for o, _ in groups.get("axis overrides (comma lists; they replace the spec's)", [])]
    axis = ov[2:]  # after --models and --gpu: the table's axes, in sweep order
    want = ["methods", "precisions", "optimizers", "lora-r", "lora-targets", "grad-ckpt", "attn",
            "batches", "seqs", "gpu-counts"]
    ok(ov[:2] == ["models", "gpu"] and sorted(axis) == sorted(want),
       "report --help: --models, --gpu, then the table's %d axes" % len(axis), repr(ov))
    # Two values for every axis (lora, so that every axis applies), each
    # list in an order of our own: the rows must nest in --help's order.
    values = {"methods": ["qlora", "lora"], "precisions": ["nf4", "bf16"], "optimizers": ["sgd", "adamw"],
              "lora-r": ["32", "8"], "lora-targets": ["all-linear", "qv"], "grad-ckpt": ["true", "false"],
              "attn": ["eager", "sdpa"], "batches": ["2", "1"], "seqs": ["512", "256"],
              "gpu-counts": ["2:zero2", "1"]}
    setting = {"methods": "method", "precisions": "precision", "optimizers": "optimizer",
               "lora-r": "lora-r", "lora-targets": "lora-targets", "grad-ckpt": "grad-ckpt",
               "attn": "attn", "batches": "batch", "seqs": "seq", "gpu-counts": "gpus"}
    args = []
    for o in axis:
        args += ["--" + o, ",".join(values[o])]
    r, out = report(tmp, env, "axes", *args)
    if not ok(r.returncode == 0, "a report with two values on every axis", r.stderr[-300:]):
        return
    with open(os.path.join(out, "sizing.json")) as f:
        rows = json.load(f)["rows"]

    def rank(row):
        key = []
        for o in axis:
            v = row["settings"][setting[o]]
            v = str(v).lower() if not isinstance(v, str) else v
            vals = [x.split(":")[0] for x in values[o]]
            key.append(vals.index(v) if v in vals else -1)
        return key
    keys = [rank(x) for x in rows]
    # qlora takes nf4 only, lora both: every combination but qlora bf16
    ok(len(rows) == 2 ** 10 - 2 ** 8 and -1 not in sum(keys, []),
       "every override's values reach the rows (%d rows)" % len(rows))
    ok(keys == sorted(keys) and len(set(map(tuple, keys))) == len(keys),
       "the rows nest in the order of --help's axes, each list in its order given")


def main():
    tmp = tempfile.mkdtemp(prefix="gs_t_tables.")
    env = clean_env(tmp)
    try:
        groups = help_options(env)
        formats(tmp, env, groups)
        axes(tmp, env, groups)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return ok.status()


if __name__ == "__main__":
    sys.exit(main())
