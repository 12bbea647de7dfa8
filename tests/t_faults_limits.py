#!/usr/bin/env python3
"""Issue 16, limits and plausibility: each finding is a named case.

  limits.rules_overflow.*      the seeds' formulas past 2^63 bytes: exit 3, no
                               9223372036854775808 printed (item 16)
  limits.rules_in_report       a report row whose seed formula is absurd keeps
                               an empty cell, never a wrapped number (item 16)
  limits.config_bound.*        a config field past its plausibility bound
                               (1e9 experts, ...): exit 3 naming file and field
  limits.output_bound          a prediction above 1 PiB per GPU: exit 3
  limits.headroom_sane         a far-from-fitting row prints a ratio, not
                               "headroom -1532614749%"
  limits.long_context.*        estimate/plan past max_position_embeddings:
                               exit 2 unless --allow-long-context (item 17)
  limits.gpu_duplicate_key     a GPU file with a key twice: exit 3 (item 17)
  limits.fifo.*                a FIFO as --config or as a template: exit 3 at
                               once, never a blocked read (item 14)
  limits.template_fanout_report a 6 x 14 include tree under report: exit 3
                               quickly, naming the chain (item 12)
  limits.csv_injection         CSV text cells that start with = + - @ get a
                               leading apostrophe; numbers stay bare (item 18)
  limits.json_nesting.*        nesting past 1000 levels is named as such, with
                               its line and column (unclear errors)
"""
import csv
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

from lib import GS, TOP, WRAP, Checks, clean_env

check = Checks()
TIMEOUT = 600 if WRAP else 60
BIG_INT = "9223372036854775808"


def run(args, tmp, cwd=None, timeout=TIMEOUT, **env):
    try:
        p = subprocess.run(GS + args, cwd=cwd or tmp, env=clean_env(tmp, **env),
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", "timed out after %d s" % timeout
    return p.returncode, p.stdout, p.stderr


def show(rc, so, se):
    return "exit %s; stdout %r; stderr %r" % (rc, so[-300:], se[-400:])


def model_config(slug):
    with open(os.path.join(TOP, "models", slug, "config.json")) as f:
        return json.load(f)


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f)
    return path


GPUS = ["--gpus-dir", os.path.join(TOP, "gpus")]
# A shape and settings whose rules of thumb pass 2^63 bytes.
HUGE = ["--params", "800000000000000", "--layers", "1024", "--hidden", "65536",
        "--batch", "65536", "--seq", "16777216"]


def rules_overflow(tmp):
    for f in ("rule-of-thumb", "zero1-rule", "cookbook", "detailed"):
        for js in ([], ["--json"]):
            rc, so, se = run(["estimate"] + HUGE + ["--formula", f] + js + GPUS, tmp)
            name = "limits.rules_overflow.%s%s" % (f, ".json" if js else "")
            check(rc == 3 and BIG_INT not in so + se and "manual shape" in se
                  and ("plausibility bound" in se or "2^62" in se), name, show(rc, so, se))


def small_spec(d, models, formats, **axes):
    """A one-row-per-model spec in d (spec.json), its output in d/out."""
    spec = json.load(open(os.path.join(TOP, "tests/fixtures/spec-small.json")))
    spec.update(models=models, gpus=["h100-sxm"], formats=formats,
                gpu_counts=[{"count": 1, "sharding": "ddp"}], out="out")
    spec["axes"].update(method=["lora"], precision={"lora": ["bf16"]}, grad_ckpt=[True], batch=[1], seq=[512])
    spec["axes"].update(axes)
    os.makedirs(d, exist_ok=True)
    return write_json(os.path.join(d, "spec.json"), spec)


def rules_in_report(tmp):
    # Llama 3.1 70B serving 2048 x 131072 tokens: the engine's estimate is
    # plausible (KV cache, ~100 TB), the rule of thumb (activations as for
    # training) passes 1 PiB: its column stays empty, never an absurd number.
    d = os.path.join(tmp, "rep")
    small_spec(d, ["meta-llama/Llama-3.1-70B"], ["csv"], method=["inference"],
               precision={"inference": ["bf16"]}, batch=[2048], seq=[131072])
    rc, so, se = run(["report", "--spec", "spec.json", "--offline", "--quiet",
                      "--models-dir", os.path.join(TOP, "models")] + GPUS, tmp, cwd=d)
    path = os.path.join(d, "out", "sizing.csv")
    rows = list(csv.DictReader(open(path, newline=""))) if rc == 0 and os.path.exists(path) else []
    ok = len(rows) == 1 and rows[0]["error"] == "" and rows[0]["device_bytes"] != "" \
        and rows[0]["rule-of-thumb device_bytes"] == "" \
        and all(len(v) < 17 for v in rows[0].values() if v.isdigit())
    check(ok, "limits.rules_in_report", show(rc, str(rows)[:600], se))


def config_bounds(tmp):
    base = model_config("Qwen--Qwen3-30B-A3B")
    cases = [("experts_1e9", "num_experts", 10 ** 9), ("hidden", "hidden_size", 2 ** 21),
             ("layers", "num_hidden_layers", 2 ** 17), ("vocab", "vocab_size", 2 ** 25),
             ("intermediate", "moe_intermediate_size", 2 ** 25)]
    for name, key, v in cases:
        c = dict(base)
        c[key] = v
        path = write_json(os.path.join(tmp, "bound-%s.json" % name), c)
        rc, so, se = run(["estimate", "--config", path] + GPUS, tmp)
        check(rc == 3 and path in se and '"%s"' % key in se and "implausible" in se
              and str(v) in se, "limits.config_bound.%s" % name, show(rc, so, se))
    # Within the bounds, a real shape still sizes.
    rc, so, se = run(["estimate", "--config", os.path.join(TOP, "models/Qwen--Qwen3-30B-A3B/config.json")]
                     + GPUS, tmp)
    check(rc == 0, "limits.config_bound.real_model_ok", show(rc, so, se))


def output_bound(tmp):
    c = model_config("Qwen--Qwen3-30B-A3B")
    c.update(num_experts=65536, num_hidden_layers=4096)  # each within its bound
    path = write_json(os.path.join(tmp, "petabyte.json"), c)
    rc, so, se = run(["estimate", "--config", path] + GPUS, tmp)
    check(rc == 3 and path in se and "above the plausibility bound of 1 PiB" in se and so == "",
          "limits.output_bound", show(rc, so, se))


def headroom_sane(tmp):
    c = model_config("Qwen--Qwen3-30B-A3B")
    c.update(num_experts=60000)  # ~0.25 PiB: plausible, fits nothing
    path = write_json(os.path.join(tmp, "far.json"), c)
    rc, so, se = run(["estimate", "--config", path] + GPUS, tmp)
    huge_pct = re.findall(r"headroom [-+]\d{4,}%", so)
    check(rc == 0 and not huge_pct and re.search(r"needs \d+x the usable memory", so),
          "limits.headroom_sane", show(rc, so, se) if not huge_pct else str(huge_pct[:2]))
    rc, so, se = run(["estimate", "meta-llama/Llama-3.1-8B", "--offline", "--method", "qlora"] + GPUS, tmp)
    check(rc == 0 and re.search(r"headroom [-+]\d+%", so), "limits.headroom_sane.percent_kept",
          show(rc, so, se))


def long_context(tmp):
    m = ["meta-llama/Llama-3.1-8B", "--offline", "--models-dir", os.path.join(TOP, "models")]
    for cmd in ("estimate", "plan"):
        rc, so, se = run([cmd] + m + ["--seq", "200000"] + GPUS, tmp)
        check(rc == 2 and "max_position_embeddings (131072" in se and "--allow-long-context" in se
              and so == "", "limits.long_context.%s_refused" % cmd, show(rc, so, se))
        rc, so, se = run([cmd] + m + ["--seq", "200000", "--allow-long-context", "--json"]
                         + (["--gpu", "h100-sxm"] if cmd == "plan" else []) + GPUS, tmp)
        try:
            json.loads(so)
            js = True
        except ValueError:
            js = False
        check(rc == 0 and js and "warning" in se and "131072" in se,
              "limits.long_context.%s_allowed_warns" % cmd, show(rc, so, se))
    rc, so, se = run(["estimate", "openai-community/gpt2"] + m[1:] + GPUS, tmp)
    check(rc == 0 and "no --seq given" in se and "1024" in se and "2048" in se,
          "limits.long_context.default_seq_lowered", show(rc, so, se))
    rc, so, se = run(["estimate"] + m + ["--seq", "131072"] + GPUS, tmp)
    check(rc == 0 and se == "", "limits.long_context.at_the_limit_ok", show(rc, so, se))


def gpu_duplicate_key(tmp):
    d = os.path.join(tmp, "gpus-dup")
    shutil.copytree(os.path.join(TOP, "gpus"), d)
    path = os.path.join(d, "h100-sxm.json")
    text = open(path).read()
    text = text.replace('"usable_', '"usable_mib": 1, "usable_', 1)
    open(path, "w").write(text)
    rc, so, se = run(["estimate", "--params", "1000000000", "--layers", "16", "--hidden", "2048",
                      "--gpus-dir", d], tmp)
    check(rc == 3 and path in se and 'duplicate key "usable_mib"' in se, "limits.gpu_duplicate_key",
          show(rc, so, se))


def fifo(tmp):
    f = os.path.join(tmp, "fifo.json")
    os.mkfifo(f)
    rc, so, se = run(["estimate", "--config", f] + GPUS, tmp, timeout=20)
    check(rc == 3 and f in se and "not a regular file" in se, "limits.fifo.config", show(rc, so, se))
    gd = os.path.join(tmp, "gpus-fifo")
    os.makedirs(gd)
    shutil.copy(os.path.join(TOP, "gpus", "t4.json"), gd)
    os.mkfifo(os.path.join(gd, "zz.json"))
    rc, so, se = run(["estimate", "--params", "1000000000", "--layers", "16", "--hidden", "2048",
                      "--gpus-dir", gd], tmp, timeout=20)
    check(rc == 3 and "zz.json" in se and "not a regular file" in se, "limits.fifo.gpu_file", show(rc, so, se))
    tdir = os.path.join(tmp, "tmpl-fifo")
    shutil.copytree(os.path.join(TOP, "templates"), tdir)
    part = os.path.join(tdir, "partials", "footer.md.tmpl")
    os.unlink(part)
    os.mkfifo(part)
    d = os.path.join(tmp, "fifo-report")
    small_spec(d, ["openai-community/gpt2"], ["md"])
    rc, so, se = run(["report", "--spec", "spec.json", "--offline", "--quiet",
                      "--models-dir", os.path.join(TOP, "models")] + GPUS,
                     tmp, cwd=d, timeout=60, GPUSIZER_TEMPLATES=tdir)
    check(rc == 3 and "footer.md.tmpl" in se and "not a regular file" in se, "limits.fifo.template",
          show(rc, so, se))


def template_fanout_report(tmp):
    tdir = os.path.join(tmp, "tmpl-fan")
    shutil.copytree(os.path.join(TOP, "templates"), tdir)
    for i in range(14):
        with open(os.path.join(tdir, "partials", "fan%d.md.tmpl" % i), "w") as f:
            f.write("".join('{%% include "partials/fan%d.md.tmpl" %%}\n' % (i + 1) for _ in range(6)))
    open(os.path.join(tdir, "partials", "fan14.md.tmpl"), "w").write("x")
    with open(os.path.join(tdir, "model.md.tmpl"), "a") as f:
        f.write('{% include "partials/fan0.md.tmpl" %}\n')
    d = os.path.join(tmp, "fan-report")
    small_spec(d, ["openai-community/gpt2"], ["md"])
    rc, so, se = run(["report", "--spec", "spec.json", "--offline", "--quiet",
                      "--models-dir", os.path.join(TOP, "models")] + GPUS,
                     tmp, cwd=d, timeout=60, GPUSIZER_TEMPLATES=tdir)
    check(rc == 3 and "more than 4096 includes" in se and "included from" in se and "model.md.tmpl" in se,
          "limits.template_fanout_report", show(rc, so, se))


def template_sigterm(tmp):
    """Item 12: SIGTERM during a report of slow pages (each within the
    limits: 4000 includes of a 50 KB partial) ends it within a second and
    leaves no output. The render's own stop hook (polled between nodes) is
    tested in test_template.c; the limits bound a page's time as a whole."""
    import signal
    import time
    tdir = os.path.join(tmp, "tmpl-slow")
    shutil.copytree(os.path.join(TOP, "templates"), tdir)
    with open(os.path.join(tdir, "partials", "big.md.tmpl"), "w") as f:
        f.write(("slow page text " * 3300) + "\n")
    with open(os.path.join(tdir, "partials", "slow.md.tmpl"), "w") as f:
        f.write("".join('{% include "partials/big.md.tmpl" %}\n' for _ in range(4000)))
    with open(os.path.join(tdir, "model.md.tmpl"), "a") as f:
        f.write('{% include "partials/slow.md.tmpl" %}\n')
    d = os.path.join(tmp, "slow-report")
    # about a second a page: six pages run on for seconds after the signal
    # unless the render itself stops
    small_spec(d, ["openai-community/gpt2", "Qwen/Qwen2.5-0.5B", "meta-llama/Llama-3.2-1B",
                   "meta-llama/Llama-3.2-3B", "Qwen/Qwen2.5-7B", "mistralai/Mistral-7B-v0.1"], ["md"])
    env = clean_env(tmp, GPUSIZER_TEMPLATES=tdir)
    p = subprocess.Popen(GS + ["report", "--spec", "spec.json", "--offline", "--quiet", "--models-dir",
                               os.path.join(TOP, "models")] + GPUS, cwd=d, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    t0 = time.monotonic()
    p.send_signal(signal.SIGTERM)
    try:
        so, se = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        so, se = p.communicate()
    took = time.monotonic() - t0
    left = os.listdir(d)
    out_empty = "out" not in left or not os.listdir(os.path.join(d, "out"))
    check(p.returncode == -signal.SIGTERM and took < 1.5 and out_empty,
          "limits.template_sigterm_stops_report",
          "exit %s after %.1f s; left %r; stderr %r" % (p.returncode, took, left, se[-300:]))


def csv_injection(tmp):
    d = os.path.join(tmp, "csv")
    names = ["=HYPERLINK(1)", "+1+2", "-2+3", "@SUM(1)"]
    for n in names:
        os.makedirs(os.path.join(d, n))
        shutil.copy(os.path.join(TOP, "tests/bad/ok-llama.json"), os.path.join(d, n, "config.json"))
    small_spec(d, [n + "/config.json" for n in names], ["csv"])
    rc, so, se = run(["report", "--spec", "spec.json", "--offline", "--quiet"] + GPUS, tmp, cwd=d)
    path = os.path.join(d, "out", "sizing.csv")
    if rc != 0 or not os.path.exists(path):
        check(False, "limits.csv_injection", show(rc, so, se))
        return
    raw = open(path, newline="").read()
    rows = list(csv.reader(open(path, newline="")))
    head = rows[0]
    models = [r[head.index("model")] for r in rows[1:]]
    bad = [c for r in rows for c in r if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    want = sorted("'" + n + "/config.json" for n in names)
    numbers_bare = re.search(r',\d+,', raw) is not None and ',"\'' in raw
    check(not bad and sorted(set(models)) == want and numbers_bare, "limits.csv_injection",
          "cells starting a formula: %r; models %r" % (bad[:3], sorted(set(models))))


def json_nesting(tmp):
    path = os.path.join(tmp, "deep.json")
    with open(path, "w") as f:
        f.write('{"model_type": "llama",\n "x": ' + "[" * 1500 + "]" * 1500 + "}")
    rc, so, se = run(["estimate", "--config", path] + GPUS, tmp)
    check(rc == 3 and path in se and "nesting deeper than 1000 levels at line 2, column 1006" in se,
          "limits.json_nesting.config", show(rc, so, se))
    d = os.path.join(tmp, "gpus-deep")
    os.makedirs(d)
    g = os.path.join(d, "deep.json")
    with open(g, "w") as f:
        f.write('{"name": ' + "[" * 1200 + "]" * 1200 + "}")
    rc, so, se = run(["estimate", "--params", "1000000000", "--layers", "16", "--hidden", "2048",
                      "--gpus-dir", d], tmp)
    check(rc == 3 and g in se and "nesting deeper than 1000 levels at line 1, column 1009" in se,
          "limits.json_nesting.gpu", show(rc, so, se))


def main():
    tmp = tempfile.mkdtemp(prefix="gs-limits-")
    try:
        for t in (rules_overflow, rules_in_report, config_bounds, output_bound, headroom_sane, long_context,
                  gpu_duplicate_key, fifo, template_fanout_report, template_sigterm, csv_injection, json_nesting):
            t(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return check.status()


if __name__ == "__main__":
    sys.exit(main())
