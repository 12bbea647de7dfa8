#!/usr/bin/env python3
"""gpusizer report: spec errors (exit 3, key and line, nothing written),
byte-identical runs, --check (current, stale, missing, extra), atomic
install after failed writes and signals, skipped combinations and error
rows, JSON/CSV agreement. Uses tests/fixtures/spec-small.json (JSON and
CSV only, so it runs in well under a second per report)."""
import csv
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from lib import GS, TOP, Checks

SMALL = os.path.join(TOP, "tests", "fixtures", "spec-small.json")
ok = Checks()


def run(args, timeout=300, preexec=None, cwd=TOP):
    cmd = GS + args
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                       preexec_fn=preexec)
    return p.returncode, p.stdout, p.stderr


def report(tmp, out, *extra, spec=SMALL):
    return run(["report", "--spec", spec, "--out", out, "--offline",
                "--models-dir", os.path.join(TOP, "models"),
                "--gpus-dir", os.path.join(TOP, "gpus")] + list(extra))


def tree(d):
    files = {}
    for root, _, names in os.walk(d):
        for n in names:
            p = os.path.join(root, n)
            with open(p, "rb") as f:
                files[os.path.relpath(p, d)] = f.read()
    return files


def leftovers(parent):
    """Temporaries beside an output directory in parent, or in its
    .gpusizer working directory (where a run stages its files)."""
    left = [n for n in os.listdir(parent) if ".tmp." in n]
    for n in os.listdir(parent):
        own = os.path.join(parent, n, ".gpusizer")
        if os.path.isdir(own) and not os.path.islink(own):
            left += [os.path.join(n, ".gpusizer", r) for r in os.listdir(own) if ".tmp." in r]
    return left


def spec_errors(tmp):
    base = json.load(open(SMALL))
    # name: (key in the message, mutation, text on the line the message must name)
    cases = {
        "unknown key": ("colour", lambda s: s.update({"colour": "red"}), '"colour"'),
        "wrong type": ("axes.batch", lambda s: s["axes"].update({"batch": "four"}), '"batch"'),
        "unknown model": ("models", lambda s: s["models"].append("nobody/no-such-model"), "no-such-model"),
        "unknown GPU": ("gpus", lambda s: s["gpus"].append("gtx-9999"), "gtx-9999"),
        "empty axis": ("axes.seq", lambda s: s["axes"].update({"seq": []}), '"seq"'),
        "invalid value": ("axes.method", lambda s: s["axes"].update({"method": ["full", "dance"]}), '"dance"'),
        "bad sharding": ("gpu_counts", lambda s: s["gpu_counts"].append({"count": 4, "sharding": "zero9"}),
                         None),
        "bad layout method": ("gpu_counts", lambda s: s["gpu_counts"].append(
            {"count": 2, "sharding": "pipeline", "methods": ["serving"]}), None),
        "unknown axis": ("axes.colour", lambda s: s["axes"].update({"colour": [1]}), '"colour"'),
        "swept setting": ("settings.batch", lambda s: s.update({"settings": {"batch": 2}}), '"batch": 2'),
        "bad version": ("version", lambda s: s.update({"version": 2}), '"version"'),
    }
    for name, (key, mutate, marker) in cases.items():
        d = tempfile.mkdtemp(dir=tmp)
        s = json.loads(json.dumps(base))
        mutate(s)
        text = json.dumps(s, indent=2)
        path = os.path.join(d, "spec.json")
        with open(path, "w") as f:
            f.write(text)
        tl = text.splitlines()
        if marker is None:  # the element's opening line: the "{" two lines above its sharding
            want = next(i + 1 for i, l in enumerate(tl) if "zero9" in l or "pipeline" in l) - 2
        else:
            want = next(i + 1 for i, l in enumerate(tl) if marker in l)
        out = os.path.join(d, "out")
        rc, so, se = report(tmp, out, spec=path)
        # offline and not cached is exit 10 in every command (gs_offline)
        want_rc = 10 if name == "unknown model" else 3
        ok(rc == want_rc, "spec %s: exit %d" % (name, want_rc), "rc=%d stderr=%s" % (rc, se.strip()))
        ok(key in se, "spec %s: message names the key %s" % (name, key), se.strip())
        ok("spec.json:%d:" % want in se, "spec %s: message names line %d" % (name, want), se.strip())
        ok(not os.path.exists(out) and os.listdir(d) == ["spec.json"],
           "spec %s: nothing written" % name, str(os.listdir(d)))
    # not JSON at all: line of the error
    d = tempfile.mkdtemp(dir=tmp)
    path = os.path.join(d, "spec.json")
    with open(path, "w") as f:
        f.write('{\n  "version": 1,\n  "models": [\n    "a"\n  ,,\n}\n')
    rc, so, se = report(tmp, os.path.join(d, "out"), spec=path)
    ok(rc == 3 and "spec.json:5:" in se, "spec not JSON: exit 3 with the line", "rc=%d %s" % (rc, se))
    # an element's own line for an unknown model
    d = tempfile.mkdtemp(dir=tmp)
    s = json.loads(json.dumps(base))
    s["models"] = ["Qwen/Qwen2.5-0.5B", "nobody/no-such-model"]
    text = json.dumps(s, indent=2)
    path = os.path.join(d, "spec.json")
    with open(path, "w") as f:
        f.write(text)
    want = next(i + 1 for i, l in enumerate(text.splitlines()) if "no-such-model" in l)
    rc, so, se = report(tmp, os.path.join(d, "out"), spec=path)
    ok("spec.json:%d: models[1]" % want in se, "spec unknown model: the element's line %d" % want, se)
    # bad override flags are usage errors (exit 2)
    rc, so, se = report(tmp, os.path.join(tmp, "never"), "--batches", "0")
    ok(rc == 2 and "--batches" in se and not os.path.exists(os.path.join(tmp, "never")),
       "flag override with a bad value: exit 2", "rc=%d %s" % (rc, se))


def identical_and_check(tmp):
    a, b = os.path.join(tmp, "a", "out"), os.path.join(tmp, "b", "out")
    rc1, so, se = report(tmp, a)
    ok(rc1 == 0, "report writes out/", se)
    rc2, so, se = report(tmp, b)
    ta, tb = tree(a), tree(b)
    ok(rc2 == 0 and ta == tb and len(ta) >= 2, "two runs byte-identical (%d files)" % len(ta),
       "differ: %s" % [k for k in set(ta) | set(tb) if ta.get(k) != tb.get(k)])
    ok(leftovers(os.path.dirname(a)) == [], "no temporary files after a run", str(leftovers(os.path.dirname(a))))
    rc, so, se = report(tmp, a, "--check")
    ok(rc == 0, "--check passes on current reports", "rc=%d %s %s" % (rc, so, se))
    ok(tree(a) == ta, "--check writes nothing into out/")
    victim = os.path.join(a, "sizing.csv")
    with open(victim, "ab") as f:
        f.write(b"tampered\r\n")
    rc, so, se = report(tmp, a, "--check")
    ok(rc == 5 and "sizing.csv" in so and "stale" in so, "--check fails after one file is altered (exit 5, names it)",
       "rc=%d out=%s err=%s" % (rc, so, se))
    os.unlink(victim)
    rc, so, se = report(tmp, a, "--check")
    ok(rc == 5 and "missing" in so and "sizing.csv" in so, "--check names a missing file", so)
    rc, so, se = report(tmp, a)
    ok(rc == 0 and tree(a) == ta, "regeneration restores the reports", se)
    # The XLSX creation date: the spec's "date", or SOURCE_DATE_EPOCH.
    import zipfile
    created = {}
    for label, env in (("spec", {}), ("sde", {"SOURCE_DATE_EPOCH": "1800000000"})):
        o = os.path.join(tmp, "date-" + label)
        e = dict(os.environ)
        e.pop("SOURCE_DATE_EPOCH", None)
        e.update(env)
        p = subprocess.run(GS + ["report", "--spec", SMALL, "--out", o, "--offline", "--format", "xlsx"],
                           cwd=TOP, capture_output=True, text=True, env=e, timeout=300)
        try:
            core = zipfile.ZipFile(os.path.join(o, "gpusizer.xlsx")).read("docProps/core.xml").decode()
            created[label] = core.split("<dcterms:created")[1].split(">")[1].split("<")[0]
        except (OSError, KeyError, IndexError, zipfile.BadZipFile) as ex:
            created[label] = "error: %s %s" % (ex, p.stderr)
    ok(created == {"spec": "2026-01-01T00:00:00Z", "sde": "2027-01-15T08:00:00Z"},
       "XLSX creation date from the spec's date, or SOURCE_DATE_EPOCH", str(created))
    # SOURCE_DATE_EPOCH is validated
    env_bad = dict(os.environ, SOURCE_DATE_EPOCH="yesterday")
    p = subprocess.run(GS + ["report", "--spec", SMALL, "--out", os.path.join(tmp, "sde"), "--offline"],
                       cwd=TOP, capture_output=True, text=True, env=env_bad, timeout=120)
    ok(p.returncode == 2 and "SOURCE_DATE_EPOCH" in p.stderr, "bad SOURCE_DATE_EPOCH: exit 2", p.stderr)
    return a, ta


def extras(tmp):
    out = os.path.join(tmp, "x", "out")
    rc, so, se = report(tmp, out, "--format", "md,json")
    if rc != 0 or not os.path.isdir(os.path.join(out, "models")):
        ok(False, "md+json report for the extras test", "rc=%d %s" % (rc, se))
        return
    # a model dropped from the spec: its page is a report file no longer produced
    rc, so, se = report(tmp, out, "--format", "md,json", "--models",
                        "Qwen/Qwen2.5-0.5B,meta-llama/Llama-3.2-1B,TinyLlama/TinyLlama-1.1B-Chat-v1.0")
    dropped = os.path.join(out, "models", "TinyLlama--TinyLlama-1.1B-Chat-v1.0.md")
    ok(rc == 0 and os.path.exists(dropped), "md+json report with a third model", se)
    cache = os.path.join(out, "models", "org--m", "config.json")
    os.makedirs(os.path.dirname(cache))
    # the user's own files, never gpusizer's to remove (issue 16, item 3)
    for p in (cache, os.path.join(out, "models", "my-notes.md"), os.path.join(out, "notes.txt")):
        with open(p, "w") as f:
            f.write("x\n")
    rc, so, se = report(tmp, out, "--format", "md,json", "--check")
    ok(rc == 5 and "extra: " in so and "TinyLlama" in so and "config.json" not in so
       and "notes.txt" not in so and "my-notes.md" not in so,
       "--check lists a report file no longer produced as extra", so)
    rc, so, se = report(tmp, out, "--format", "md,json")
    ok(rc == 0 and not os.path.exists(dropped) and os.path.exists(cache)
       and os.path.exists(os.path.join(out, "notes.txt"))
       and os.path.exists(os.path.join(out, "models", "my-notes.md")),
       "regeneration removes old report files only (not a config.json, not the user's files)", so + se)
    rc, so, se = report(tmp, out, "--format", "md,json", "--check")
    ok(rc == 0, "--check passes after regeneration", so)


def failed_writes(tmp, a, ta):
    # A file-size limit makes every large write fail (EFBIG), as a full disk would.
    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000))
    rc, so, se = run(["report", "--spec", SMALL, "--out", a, "--offline", "--batches", "1,2,4"], preexec=limit)
    ok(rc == 4, "write failure (file size limit): exit 4", "rc=%d %s" % (rc, se))
    ok(tree(a) == ta, "write failure leaves the old out/ intact")
    ok(leftovers(os.path.dirname(a)) == [] and not [k for k in tree(a) if ".tmp." in k],
       "write failure leaves no temporary files", str(leftovers(os.path.dirname(a))))
    # /dev/full as the output directory's parent cannot hold a directory
    rc, so, se = report(tmp, "/dev/full/out")
    ok(rc == 4 and "/dev/full" in se, "out under /dev/full: exit 4 naming the path", "rc=%d %s" % (rc, se))
    # A read-only parent directory (not enforceable as root)
    ro = os.path.join(tmp, "ro")
    os.makedirs(ro)
    shutil.copytree(a, os.path.join(ro, "out"))
    os.chmod(ro, 0o555)
    try:
        if os.geteuid() == 0:
            print("SKIP read-only parent: running as root")
        else:
            rc, so, se = report(tmp, os.path.join(ro, "out"))
            ok(rc == 4, "read-only parent: exit 4", "rc=%d %s" % (rc, se))
            ok(tree(os.path.join(ro, "out")) == ta and leftovers(ro) == [],
               "read-only parent: old out/ intact, no temporary files")
    finally:
        os.chmod(ro, 0o755)
    # A directory standing where a report file goes: nothing replaced.
    blk = os.path.join(tmp, "blk", "out")
    shutil.copytree(a, blk)
    os.unlink(os.path.join(blk, "sizing.json"))
    os.mkdir(os.path.join(blk, "sizing.json"))
    before = tree(blk)
    rc, so, se = report(tmp, blk, "--batches", "2")
    ok(rc == 4 and "is a directory" in se and tree(blk) == before and leftovers(os.path.dirname(blk)) == [],
       "a blocked path: exit 4, nothing replaced, no temporary files", "rc=%d %s" % (rc, se))


def killed(tmp):
    # The default spec (17 models) with JSON only runs long enough to be stopped.
    out = os.path.join(tmp, "k", "out")
    os.makedirs(out)
    with open(os.path.join(out, "sizing.json"), "w") as f:
        f.write("old\n")
    # (--force: sizing.json here is not one gpusizer wrote)
    cmd = GS + ["report", "--spec", os.path.join(TOP, "sizing.json"), "--out", out, "--offline",
            "--format", "json", "--models-dir", os.path.join(TOP, "models"),
            "--gpus-dir", os.path.join(TOP, "gpus"), "--force"]
    p = subprocess.Popen(cmd, cwd=TOP, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline and not leftovers(os.path.dirname(out)) and p.poll() is None:
        time.sleep(0.01)
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    left = leftovers(os.path.dirname(out)) + [k for k in tree(out) if ".tmp." in k]
    with open(os.path.join(out, "sizing.json")) as f:
        body = f.read()
    if p.returncode == 0:
        print("SKIP SIGTERM mid-run: the run finished before the signal")
    else:
        ok(p.returncode == -signal.SIGTERM, "SIGTERM mid-run: dies by the signal", "rc=%s" % p.returncode)
        ok(body == "old\n" and left == [], "SIGTERM mid-run: old out/ intact, no temporary files", str(left))
    # SIGKILL cannot be caught: the next run removes what the dead one left.
    p = subprocess.Popen(cmd, cwd=TOP, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline and not leftovers(os.path.dirname(out)) and p.poll() is None:
        time.sleep(0.01)
    p.kill()
    p.wait()
    with open(os.path.join(out, "sizing.json")) as f:
        body = f.read()
    ok(body == "old\n", "SIGKILL mid-run: old out/ intact")
    rc, so, se = report(tmp, out, "--format", "json", "--force")
    ok(rc == 0 and leftovers(os.path.dirname(out)) == [], "the next run removes a killed run's temporary directory",
       str(leftovers(os.path.dirname(out))))
    # A kill can also land while the run writes out/.gpusizer/.gitignore.
    own = os.path.join(out, ".gpusizer")
    os.makedirs(own, exist_ok=True)
    with open(os.path.join(own, ".gitignore.tmp.99999.AbCdEf"), "w") as f:
        f.write("*")
    rc, so, se = report(tmp, out, "--format", "json")
    ok(rc == 0 and not os.path.exists(own) and leftovers(os.path.dirname(out)) == [],
       "the next run removes a .gitignore temporary a killed run left in out/.gpusizer",
       "rc=%d exists=%s %s" % (rc, os.path.exists(own), se))


def contents(tmp, a):
    with open(os.path.join(a, "sizing.json")) as f:
        js = json.load(f)
    with open(os.path.join(a, "sizing.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    ok(len(rows) == len(js["rows"]) > 0, "CSV and JSON hold the same rows (%d)" % len(rows))
    gpus = [g["id"] for g in js["gpus"]]
    ok(gpus == ["t4", "rtx-4090", "a100-80gb"], "GPU columns in capacity order", str(gpus))
    agree = True
    for r, c in zip(js["rows"], rows):
        if c["id"] != r["id"] or c["model"] != r["model"] or int(c["seq"]) != r["settings"]["seq"]:
            agree = False
        if r["estimate"] and int(c["device_bytes"]) != r["estimate"]["device"]:
            agree = False
        for g in gpus:
            if c[g + " verdict"] != r["gpu_verdicts"][g][0]:
                agree = False
    ok(agree, "CSV cells equal the JSON rows (ids, settings, device bytes, verdicts)")
    ids = [r["id"] for r in js["rows"]]
    ok(len(set(ids)) == len(ids) and [r["index"] for r in js["rows"]] == list(range(len(ids))),
       "row ids unique, indexes in order")
    # Verdicts follow from device vs usable and bf16 support.
    usable = {g["id"]: g["usable_bytes"] for g in js["gpus"]}
    with open(SMALL) as f:
        named_prec = set(json.load(f)["axes"]["precision"])
    good = True
    for r in js["rows"]:
        if not r["estimate"]:
            continue
        dev = r["estimate"]["device"]
        for g in gpus:
            v = r["gpu_verdicts"][g][0]
            # bf16 is needed where the row names it: a bf16 precision the spec
            # gives (a method without a precision list computes in fp16 on the
            # T4), or --compute-dtype bf16
            needs_bf16 = (r["settings"]["precision"] in ("amp-bf16", "bf16", "mixed-bf16")
                          and r["settings"]["method"] in named_prec) or r["settings"]["compute-dtype"] == "bf16"
            if g == "t4" and needs_bf16:
                good = good and v == "not runnable"
            elif dev > usable[g]:
                good = good and v == "does not fit"
            elif dev * 100 > usable[g] * 90:
                good = good and v == "tight"
            else:
                good = good and v == "fits"
    ok(good, "verdicts follow device vs usable memory, headroom 10%, bf16 on T4 not runnable")
    fp16_t4 = [r for r in js["rows"] if r["settings"]["precision"] == "fp16" and r["estimate"]]
    ok(fp16_t4 and all(r["gpu_verdicts"]["t4"][0] != "not runnable" for r in fp16_t4),
       "fp16 rows are runnable on T4")
    # Rows through `gpusizer estimate --json` with the same flags: one per method.
    for method in ("full", "lora", "qlora", "inference"):
        r = next((x for x in js["rows"] if x["settings"]["method"] == method and x["estimate"]
                  and x["settings"]["gpus"] == 2), None)
        if r is None:
            ok(False, "a %s row with an estimate in the report" % method)
            continue
        st = r["settings"]
        args = ["estimate", r["model"], "--json", "--offline", "--models-dir", os.path.join(TOP, "models"),
                "--gpus-dir", os.path.join(TOP, "gpus"), "--gpu", ",".join(gpus)]
        # Every setting of the row, by its own name: the settings object's keys are the flags.
        for k, v in st.items():
            if isinstance(v, bool):
                args.append("--%s=%s" % (k, "true" if v else "false"))
            elif v is not None and not (k == "kv-dtype" and v == "auto"):
                args += ["--" + k, str(v)]
        rc, so, se = run(args)
        try:
            doc = json.loads(so)
            est = doc["rows"][0]
        except (ValueError, KeyError, IndexError):
            est = None
        ok(rc == 0 and est is not None, "estimate --json runs for a %s row" % method, "rc=%d %s" % (rc, se))
        if est is None:
            continue
        # One schema: the whole row, field by field (the id too: it is the
        # key's); only its place in a sweep differs.
        diff = sorted(k for k in set(r) | set(est) if k != "index" and r.get(k) != est.get(k))
        ok(not diff, "%s row %s: estimate --json's row equals the sizing.json row field by field" % (method, r["id"]),
           str({k: (r.get(k), est.get(k)) for k in diff})[:600])
        ok(est["index"] == 0 and est["id"] == r["id"], "%s: estimate's row has no place in a sweep (index 0) and the report row's id" % method,
           str((est["index"], est["id"])))
        ok(doc["models"][0] == next(m for m in js["models"] if m["id"] == r["model"]),
           "%s: estimate --json's model entry equals sizing.json's" % method,
           str((doc["models"][0], [m for m in js["models"] if m["id"] == r["model"]])))
        ok(doc["gpus"] == js["gpus"], "%s: estimate --json's GPU classes (--gpu, in that order) equal the report's" % method,
           str([g["id"] for g in doc["gpus"]]))


def sweep_counts(tmp):
    out = os.path.join(tmp, "s", "out")
    rc, so, se = report(tmp, out, "--methods", "full,qlora", "--precisions", "amp-bf16,nf4",
                        "--gpu-counts", "1,8:ddp:8")
    ok(rc == 0 and "combinations skipped" in so, "invalid combinations are skipped and counted", so + se)
    with open(os.path.join(out, "sizing.json")) as f:
        js = json.load(f)
    combos = {(r["settings"]["method"], r["settings"]["precision"]) for r in js["rows"]}
    ok(combos == {("full", "amp-bf16"), ("qlora", "nf4")},
       "a full fine-tuning recipe is not paired with QLoRA, nor a storage format with full", str(combos))
    errs = [r for r in js["rows"] if r["error"]]
    ok(errs and all(r["estimate"] is None for r in errs) and "tp" in errs[0]["error"],
       "rows whose estimate fails are reported with the error", str(errs[:1]))
    ok(all(all(v[0] == "not runnable" for v in r["gpu_verdicts"].values()) for r in errs),
       "error rows are not runnable anywhere")
    # Per-method layouts: training sharded, inference split over its GPUs.
    spec = json.load(open(SMALL))
    spec["axes"]["method"] = ["lora", "inference"]
    spec["axes"]["precision"] = {"lora": ["bf16"], "inference": ["bf16"]}
    spec["gpu_counts"] = [{"count": 1}, {"count": 4, "sharding": "zero3", "methods": ["lora"]},
                          {"count": 4, "sharding": "pipeline", "methods": ["inference"]}]
    path = os.path.join(tmp, "layouts.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    out = os.path.join(tmp, "s5", "out")
    rc, so, se = report(tmp, out, "--format", "json", spec=path)
    js = json.load(open(os.path.join(out, "sizing.json"))) if rc == 0 else {"rows": []}
    lay = {(r["settings"]["method"], r["settings"]["gpus"], r["settings"]["sharding"]) for r in js["rows"]}
    ok(rc == 0 and lay == {("lora", 1, "ddp"), ("lora", 4, "zero3"), ("inference", 1, "ddp"),
                           ("inference", 4, "pipeline")},
       "gpu_counts \"methods\": each layout sized for its methods only", "%s %s" % (sorted(lay), se[-200:]))
    # 1F1B stages ("pp"): a training layout; inference rows skip it; the
    # row and its key name it, the page shows the layout
    spec["gpu_counts"] = [{"count": 1}, {"count": 8, "sharding": "zero1", "tp": 2, "pp": 2}]
    with open(path, "w") as f:
        json.dump(spec, f)
    out = os.path.join(tmp, "s6", "out")
    rc, so, se = report(tmp, out, "--format", "json,md", spec=path)
    js = json.load(open(os.path.join(out, "sizing.json"))) if rc == 0 else {"rows": []}
    lay = {(r["settings"]["method"], r["settings"]["gpus"], r["settings"]["tp"], r["settings"]["pp"])
           for r in js["rows"]}
    ok(rc == 0 and lay == {("lora", 1, 1, 1), ("lora", 8, 2, 2), ("inference", 1, 1, 1)},
       "gpu_counts \"pp\": sized for training rows, skipped for inference", "%s %s" % (sorted(lay), se[-300:]))
    spec["gpu_counts"] = [{"count": 4, "sharding": "zero1", "tp": 2, "pp": 4}]
    with open(path, "w") as f:
        json.dump(spec, f)
    rc, so, se = report(tmp, os.path.join(tmp, "s7", "out"), spec=path)
    ok(rc == 3 and "gpu_counts[0]: pp" in se, "gpu_counts: tp x pp past the count is a spec error (exit 3)", se)
    out = os.path.join(tmp, "s3", "out")
    cfg = os.path.join(TOP, "models", "Qwen--Qwen2.5-0.5B", "config.json")
    rc, so, se = report(tmp, out, "--models", cfg + ",meta-llama/Llama-3.2-1B", "--seqs", "512")
    js = json.load(open(os.path.join(out, "sizing.json"))) if rc == 0 else {"models": []}
    ok([m["slug"] for m in js["models"]] == ["Qwen--Qwen2.5-0.5B", "meta-llama--Llama-3.2-1B"]
       and js["models"][0]["id"] == cfg, "a model given as a config path is named after its directory",
       "%s %s" % (js["models"], se))
    rc, so, se = report(tmp, os.path.join(tmp, "s4", "out"), "--models", cfg + ",Qwen/Qwen2.5-0.5B")
    ok(rc == 3 and "share the report name" in se, "two models with one report name: exit 3", se)
    out = os.path.join(tmp, "s2", "out")
    rc, so, se = report(tmp, out, "--models", "openai-community/gpt2", "--seqs", "512,4096")
    with open(os.path.join(out, "sizing.json")) as f:
        js = json.load(f)
    seqs = {r["settings"]["seq"] for r in js["rows"]}
    ok(rc == 0 and seqs == {512} and "combinations skipped" in so,
       "contexts beyond GPT-2's 1024 positions are skipped and counted", "%s %s" % (seqs, so))


def gzipped(tmp):
    """json.gz and csv.gz: the same documents, gzip-compressed, the same
    bytes on every run; a failed write keeps the previous files."""
    import gzip
    import resource
    a, b = os.path.join(tmp, "gz-a"), os.path.join(tmp, "gz-b")
    rc, so, se = report(tmp, a, "--format", "json,csv,json.gz,csv.gz")
    ok(rc == 0, "formats json.gz and csv.gz: exit 0", se[-300:])
    if rc != 0:
        return
    for name in ("sizing.json", "sizing.csv"):
        with open(os.path.join(a, name), "rb") as f, gzip.open(os.path.join(a, name + ".gz")) as g:
            ok(g.read() == f.read(), "%s.gz inflates to exactly %s" % (name, name))
    rc, so, se = report(tmp, b, "--format", "json.gz,csv.gz")
    ta, tb = tree(a), tree(b)
    ok(rc == 0 and sorted(tb) == [".gpusizer-manifest", "sizing.csv.gz", "sizing.json.gz"] and
       all(tb[k] == ta[k] for k in ("sizing.json.gz", "sizing.csv.gz")),
       "json.gz and csv.gz alone: the same bytes as beside the plain files (no name or time in the header)",
       str(sorted(tb)))
    rc, so, se = report(tmp, b, "--format", "json.gz,csv.gz", "--check")
    ok(rc == 0, "--check passes on the gzip files", se[-300:])

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4000, 4000))
    rc, so, se = run(["report", "--spec", SMALL, "--out", b, "--offline", "--format", "json.gz",
                      "--batches", "1,2,4,8,16", "--models-dir", os.path.join(TOP, "models"),
                      "--gpus-dir", os.path.join(TOP, "gpus")], preexec=limit)
    ok(rc == 4 and tree(b) == tb and not leftovers(tmp),
       "a gzip write past the file size limit: exit 4, previous files kept, no temporaries",
       "rc=%d %s %s" % (rc, se[-200:], leftovers(tmp)))
    rc, so, se = report(tmp, b, "--format", "json.zip")
    ok(rc == 2 and "json.gz" in se, "an unknown format names the gzip ones", "rc=%d %s" % (rc, se[-200:]))


def committed_split(tmp):
    """A spec with "commit": the committed formats go into out (its manifest
    lists only them), the others into publish_dir; --check builds and
    compares only out; --out alone takes every format; --check of published
    formats only is a usage error."""
    spec = dict(json.load(open(SMALL)), formats=["json", "csv", "json.gz"], commit=["csv"],
                out="o", publish_dir="p", models_dir=os.path.join(TOP, "models"),
                gpus_dir=os.path.join(TOP, "gpus"))
    d = os.path.join(tmp, "split")
    os.makedirs(d)
    path = os.path.join(d, "spec.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    rc, so, se = run(["report", "--spec", path, "--offline"])
    to, tp = tree(os.path.join(d, "o")), tree(os.path.join(d, "p"))
    ok(rc == 0 and sorted(to) == [".gpusizer-manifest", "sizing.csv"]
       and sorted(tp) == [".gpusizer-manifest", "sizing.json", "sizing.json.gz"]
       and to[".gpusizer-manifest"].decode().splitlines()[-1].split()[-1] == "sizing.csv",
       "commit [csv]: out holds the CSV and a manifest of it, publish_dir the JSON",
       "rc=%d %s %s %s" % (rc, sorted(to), sorted(tp), se[-300:]))
    ok("o: 2 files" in so and "p: 3 files built for publishing" in so, "the closing lines name both directories", so)
    rc, so, se = run(["report", "--spec", path, "--offline", "--json"])
    try:
        j = json.loads(so)
    except ValueError:
        j = {}
    ok(rc == 0 and j.get("out", "").endswith("o") and j.get("files") == 2 and j.get("publish_dir", "").endswith("p")
       and j.get("publish_files") == 3, "--json: out, files, publish_dir, publish_files", so[-300:])
    shutil.rmtree(os.path.join(d, "p"))
    rc, so, se = run(["report", "--spec", path, "--offline", "--check"])
    ok(rc == 0 and "o: 2 files current" in so and not os.path.exists(os.path.join(d, "p")),
       "--check compares only the committed formats (publish_dir gone, not built)", "rc=%d %s %s" % (rc, so, se[-300:]))
    with open(os.path.join(d, "o", "sizing.csv"), "ab") as f:
        f.write(b"x")
    rc, so, se = run(["report", "--spec", path, "--offline", "--check"])
    ok(rc == 5 and "stale:" in so and "sizing.csv" in so, "--check finds a changed committed file", so)
    os.remove(os.path.join(d, "o", "sizing.csv"))  # the hand edit goes: the next runs may replace it
    rc, so, se = run(["report", "--spec", path, "--offline", "--check", "--format", "json.gz"])
    ok(rc == 2 and "compares only what" in se, "--check of published formats only: exit 2", "rc=%d %s" % (rc, se))
    one = os.path.join(d, "one")
    rc, so, se = run(["report", "--spec", path, "--offline", "--out", one])
    ok(rc == 0 and sorted(tree(one)) == [".gpusizer-manifest", "sizing.csv", "sizing.json", "sizing.json.gz"]
       and not os.path.exists(os.path.join(d, "p")), "--out alone: every format in one directory",
       "rc=%d %s" % (rc, sorted(tree(one))))
    rc, so, se = run(["report", "--spec", path, "--offline", "--out", one, "--check"])
    ok(rc == 0, "--out alone --check: compares every format there", "rc=%d %s %s" % (rc, so, se[-300:]))
    # A file where publish_dir goes: found before anything is generated.
    before = tree(os.path.join(d, "o"))
    with open(os.path.join(d, "p"), "w") as f:
        f.write("a file where the publish directory goes")
    rc, so, se = run(["report", "--spec", path, "--offline"])
    ok(rc == 4 and "nothing was written" in se and tree(os.path.join(d, "o")) == before,
       "publish_dir is a file: exit 4, out untouched", "rc=%d %s" % (rc, se[-300:]))
    # A directory where a published file goes: out is installed first, the
    # publish directory's install fails and is rolled back, and the message says
    # that out was written.
    os.remove(os.path.join(d, "p"))
    os.makedirs(os.path.join(d, "p", "sizing.json"))
    rc, so, se = run(["report", "--spec", path, "--offline"])
    ok(rc == 4 and "o was written; " in se and "is a directory" in se and tree(os.path.join(d, "o")) != before
       and os.path.isdir(os.path.join(d, "p", "sizing.json")),
       "a published file cannot be installed: exit 4 after out was written, and the message says so",
       "rc=%d %s" % (rc, se[-300:]))


def main():
    tmp = tempfile.mkdtemp(prefix="gs-t-report-")
    try:
        spec_errors(tmp)
        a, ta = identical_and_check(tmp)
        contents(tmp, a)
        sweep_counts(tmp)
        extras(tmp)
        failed_writes(tmp, a, ta)
        killed(tmp)
        gzipped(tmp)
        committed_split(tmp)
    finally:
        for root, dirs, _ in os.walk(tmp):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
        shutil.rmtree(tmp, ignore_errors=True)
    return ok.status()


if __name__ == "__main__":
    sys.exit(main())
