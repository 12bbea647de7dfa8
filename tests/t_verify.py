#!/usr/bin/env python3
"""gpusizer verify without a GPU.

These tests check PLUMBING, NOT MEASUREMENT: the harness is the stand-in
(tests/fixtures/harness-standin.py, which prints fixed JSON chosen here) and
the NVML library is a fake (tests/fixtures/fake-nvml.c, built here, whose
figures come from the environment). They check that verify finds the GPU,
passes the row to the harness, samples the process's device memory, parses
the result, compares it with the prediction, writes out/verify/<row>.md and
.json, returns the documented exit codes and appends to a (temporary) store.
A real measurement needs a GPU: see measurements/README.md.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from lib import GS, TOP, Checks

os.chdir(TOP)
STANDIN = os.path.join(TOP, "tests", "fixtures", "harness-standin.py")
MODEL = "Qwen/Qwen2.5-0.5B"
GIB = 1 << 30
check = Checks("verify plumbing (stand-in, no GPU): ")


def run(args, env=None, timeout=120):
    e = dict(os.environ)
    for k in list(e):
        if k.startswith(("GPUSIZER_STANDIN_", "FAKE_NVML_", "GPUSIZER_FAKE_GPU", "GPUSIZER_HARNESS")):
            del e[k]
    e["HF_HUB_OFFLINE"] = "1"
    e.update(env or {})
    p = subprocess.run(GS + ["verify"] + args, env=e, capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


tmp = tempfile.mkdtemp(prefix="gs_t_verify.")
try:
    row = [MODEL, "--offline", "--models-dir", "models"]

    # 1. No NVIDIA driver: the clear message and exit 11.
    rc, out, err = run(row, {"GPUSIZER_NVML_LIB": "/nonexistent/libnvidia-ml.so.1"})
    check(rc == 11, "no driver -> exit 11", "rc=%d err=%s" % (rc, err.strip()))
    check("no NVIDIA driver found" in err and "verify needs a local NVIDIA GPU" in err,
          "no driver -> clear message", err.strip())
    check(not os.path.exists(os.path.join(tmp, "out")), "no driver -> nothing written")

    # 2. The fake NVML library.
    fake = os.path.join(tmp, "libnvidia-ml.so.1")
    cc = os.environ.get("CC", "cc")
    b = subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", fake,
                        os.path.join("tests", "fixtures", "fake-nvml.c")],
                       capture_output=True, text=True)
    check(b.returncode == 0, "fake NVML library builds", b.stderr)
    nv = {"GPUSIZER_NVML_LIB": fake, "FAKE_NVML_NAME": "NVIDIA Test GPU 24GB",
          "FAKE_NVML_TOTAL": str(24 * GIB)}

    rc, out, err = run(row, dict(nv, FAKE_NVML_INIT_FAIL="1"))
    check(rc == 11 and "NVML did not start" in err, "driver without a working NVML -> exit 11",
          "rc=%d %s" % (rc, err.strip()))
    rc, out, err = run(row + ["--gpu-index", "3", "--harness", STANDIN], nv)
    check(rc == 11 and "--gpu-index 3" in err, "missing GPU index -> exit 11", "rc=%d %s" % (rc, err.strip()))

    # 3. The prediction, from --dry-run (no GPU needed).
    rc, out, err = run(row + ["--dry-run"])
    try:
        dry = json.loads(out)
        pred = dry["predicted"]
    except (ValueError, KeyError) as ex:
        dry, pred = None, None
        check(False, "--dry-run prints JSON", "%s: %s %s" % (ex, out, err))
    if pred:
        check(rc == 0 and pred["allocated"] > 0 and pred["reserved"] >= pred["allocated"]
              and pred["device"] >= pred["reserved"], "--dry-run prediction", out)
        check(dry["harness_argv"][1].endswith("tools/harness.py") and "--config" in dry["harness_argv"],
              "--dry-run harness command", out)
    rowid = dry["row"] if dry else "?"

    def standin_output(name, obj):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(obj if isinstance(obj, str) else json.dumps(obj) + "\n")
        return path

    def ok_result(alloc, reserved):
        return {"harness": "gpusizer-standin", "status": "ok",
                "versions": {"torch": "stand-in"},
                "load": {"allocated": GIB, "reserved": GIB},
                "steps": [{"step": 1, "warmup": True, "allocated": alloc, "reserved": reserved,
                           "end_allocated": 2 * GIB, "end_reserved": reserved,
                           "phases": {"forward": {"allocated": alloc // 2, "reserved": reserved // 2},
                                      "backward": {"allocated": alloc, "reserved": reserved},
                                      "optimizer": {"allocated": alloc // 3, "reserved": reserved}}}],
                "peak": {"allocated": alloc, "reserved": reserved, "step": 1, "phase": "backward"}}

    if pred:
        # 4. Within tolerance: measured = predicted / 1.03 etc. -> exit 0, files with the numbers.
        alloc = int(pred["allocated"] / 1.03)
        resv = int(pred["reserved"] / 1.05)
        dev = int(pred["device"] / 1.02)
        out1 = os.path.join(tmp, "out1")
        argv_file = os.path.join(tmp, "argv.json")
        env = dict(nv, GPUSIZER_STANDIN_OUTPUT=standin_output("ok.json", ok_result(alloc, resv)),
                   FAKE_NVML_PROC_USED=str(dev), GPUSIZER_STANDIN_SLEEP_MS="300",
                   GPUSIZER_STANDIN_ARGV=argv_file)
        rc, out, err = run(row + ["--harness", STANDIN, "--out", out1, "--warmup", "0", "--steps", "1"], env)
        check(rc == 0, "within tolerance -> exit 0", "rc=%d %s %s" % (rc, out, err))
        jpath = os.path.join(out1, "verify", rowid + ".json")
        mpath = os.path.join(out1, "verify", rowid + ".md")
        check(os.path.isfile(jpath) and os.path.isfile(mpath), "out/verify/<row>.json and .md written",
              str(os.listdir(os.path.join(out1, "verify")) if os.path.isdir(os.path.join(out1, "verify")) else "none"))
        try:
            with open(jpath) as f:
                rep = json.load(f)
            cmp_ = rep["comparison"]
            check(cmp_["allocated"]["measured"] == alloc and cmp_["allocated"]["predicted"] == pred["allocated"],
                  "report: allocated predicted and measured", json.dumps(cmp_["allocated"]))
            check(abs(cmp_["allocated"]["error_pct"] - 3.0) < 0.02 and cmp_["allocated"]["within"] is True,
                  "report: allocated error +3%", json.dumps(cmp_["allocated"]))
            check(cmp_["reserved"]["measured"] == resv and abs(cmp_["reserved"]["error_pct"] - 5.0) < 0.02,
                  "report: reserved error +5%", json.dumps(cmp_["reserved"]))
            check(cmp_["device"]["measured"] == dev and rep["measured"]["device_method"] == "nvml-process",
                  "report: device from NVML per-process sampling of the harness", json.dumps(rep["measured"]))
            check(rep["verdict"] == "within" and rep["gpu"]["name"] == "NVIDIA Test GPU 24GB"
                  and rep["gpu"]["driver"] == "550.00.fake" and rep["gpu"]["cuda"] == "12.4",
                  "report: verdict and GPU from NVML", json.dumps(rep["gpu"]))
            check(rep["harness_result"]["steps"][0]["phases"]["backward"]["allocated"] == alloc,
                  "report: per-phase figures kept", "")
        except (OSError, ValueError, KeyError, TypeError) as ex:
            check(False, "report JSON readable", repr(ex))
        try:
            with open(mpath) as f:
                md = f.read()
            check("Stand-in harness" in md and "%.2f" % (alloc / GIB) in md and "+3.0%" in md
                  and "| 1 (warm-up) | backward |" in md, "report: Markdown says stand-in and has the numbers", md[:300])
        except OSError as ex:
            check(False, "report Markdown readable", repr(ex))
        try:
            with open(argv_file) as f:
                hargs = json.load(f)
            check(hargs[hargs.index("--method") + 1] == "full" and hargs[hargs.index("--steps") + 1] == "1"
                  and hargs[hargs.index("--warmup") + 1] == "0" and hargs[hargs.index("--seq") + 1] == "2048",
                  "harness gets the row's settings as flags", str(hargs))
        except (OSError, ValueError) as ex:
            check(False, "harness argv recorded", repr(ex))
        check("not stored" in err, "stand-in result is not stored by default", err)

        # 5. Outside tolerance -> exit 12.
        env = dict(nv, GPUSIZER_STANDIN_OUTPUT=standin_output("far.json", ok_result(int(pred["allocated"] / 1.5), resv)))
        rc, out, err = run(row + ["--harness", STANDIN, "--out", os.path.join(tmp, "out2")], env)
        check(rc == 12 and "OUTSIDE" in out, "outside tolerance -> exit 12", "rc=%d %s" % (rc, out))
        rc, out, err = run(row + ["--harness", STANDIN, "--out", os.path.join(tmp, "out2"), "--tolerance", "60"], env)
        check(rc == 0, "--tolerance 60 accepts the same result", "rc=%d %s" % (rc, err))

        # 6. Skipped -> exit 13 with the reason, never a number.
        out3 = os.path.join(tmp, "out3")
        env = dict(nv, GPUSIZER_STANDIN_OUTPUT=standin_output("skip.json", {
            "harness": "gpusizer-standin", "status": "skipped", "reason": "bitsandbytes is not installed"}))
        rc, out, err = run(row + ["--harness", STANDIN, "--out", out3], env)
        check(rc == 13 and "bitsandbytes is not installed" in err, "skipped -> exit 13 with reason",
              "rc=%d %s" % (rc, err))
        check(not os.path.exists(os.path.join(out3, "verify")), "skipped -> no report with numbers")

        # 7. Out of memory: a valid result. Predicted device > usable: agreement (0);
        #    predicted to fit on a big GPU: disagreement (12).
        oom = standin_output("oom.json", {"harness": "gpusizer-standin", "status": "oom",
                                          "oom": {"step": 1, "phase": "backward", "message": "CUDA out of memory"},
                                          "steps": []})
        small = dict(nv, FAKE_NVML_TOTAL=str(int(pred["device"] * 0.5)), GPUSIZER_STANDIN_OUTPUT=oom)
        rc, out, err = run(row + ["--harness", STANDIN, "--out", os.path.join(tmp, "out4")], small)
        check(rc == 0 and "prediction agrees" in out, "oom on a small GPU -> agrees, exit 0", "rc=%d %s %s" % (rc, out, err))
        try:
            with open(os.path.join(tmp, "out4", "verify", rowid + ".json")) as f:
                rep = json.load(f)
            check(rep["status"] == "oom" and rep["verdict"] == "oom-agrees" and rep["measured"]["allocated"] is None,
                  "oom report: no measured number, verdict oom-agrees", json.dumps(rep["measured"]))
        except (OSError, ValueError, KeyError) as ex:
            check(False, "oom report readable", repr(ex))
        big = dict(nv, FAKE_NVML_TOTAL=str(int(pred["device"] * 3)), GPUSIZER_STANDIN_OUTPUT=oom)
        rc, out, err = run(row + ["--harness", STANDIN, "--out", os.path.join(tmp, "out5")], big)
        check(rc == 12 and "disagrees" in out, "oom where the prediction fits -> exit 12", "rc=%d %s" % (rc, out))

        # 8. Malformed output -> exit 13 with the text.
        env = dict(nv, GPUSIZER_STANDIN_OUTPUT=standin_output("bad.txt", "Traceback: this is not json {\n"))
        rc, out, err = run(row + ["--harness", STANDIN, "--out", os.path.join(tmp, "out6")], env)
        check(rc == 13 and "no JSON result" in err and "this is not json" in err,
              "malformed output -> exit 13 quoting it", "rc=%d %s" % (rc, err))
        env = dict(nv, GPUSIZER_STANDIN_OUTPUT=standin_output("empty.txt", ""), GPUSIZER_STANDIN_EXIT="3")
        rc, out, err = run(row + ["--harness", STANDIN, "--out", os.path.join(tmp, "out6")], env)
        check(rc == 13 and "exit status 3" in err, "crash without output -> exit 13", "rc=%d %s" % (rc, err))
        env = dict(nv, GPUSIZER_STANDIN_OUTPUT=standin_output("nopeak.json", {"harness": "x", "status": "ok"}))
        rc, out, err = run(row + ["--harness", STANDIN, "--out", os.path.join(tmp, "out6")], env)
        check(rc == 13 and "peak" in err, "ok without figures -> exit 13", "rc=%d %s" % (rc, err))
        rc, out, err = run(row + ["--harness", STANDIN, "--python", "/nonexistent/python"], nv)
        check(rc == 13 and "cannot run" in err, "missing interpreter -> exit 13", "rc=%d %s" % (rc, err))

        # 9. The store: only with --store-standin and --store FILE (a temp file here).
        store = os.path.join(tmp, "store", "verified.jsonl")
        okf = standin_output("ok2.json", ok_result(alloc, resv))
        env = dict(nv, GPUSIZER_STANDIN_OUTPUT=okf, FAKE_NVML_PROC_USED=str(dev), GPUSIZER_STANDIN_SLEEP_MS="200")
        rc, out, err = run(row + ["--harness", STANDIN, "--out", os.path.join(tmp, "out7"), "--store-standin"], env)
        check(rc == 2 and "--store" in err, "--store-standin without --store -> exit 2", "rc=%d %s" % (rc, err))
        for _ in range(2):
            rc, out, err = run(row + ["--harness", STANDIN, "--out", os.path.join(tmp, "out7"),
                                      "--store", store, "--store-standin"], env)
        try:
            with open(store) as f:
                lines = f.read().splitlines()
            recs = [json.loads(x) for x in lines]
            r0 = recs[0]
            check(len(recs) == 2 and rc == 0, "store: two runs append two lines", "%d lines rc=%d" % (len(recs), rc))
            check("  store: measured %.1f GiB on Test GPU 24GB, predicted %.1f GiB" % (dev / GIB, pred["device"] / GIB) in out,
                  "store: read back with the text reports show", out)
            check(r0["model"] == MODEL and r0["label"] == dry["label"] and r0["measured"]["allocated"] == alloc
                  and r0["measured"]["device"] == dev and r0["predicted"]["allocated"] == pred["allocated"]
                  and r0["settings"]["seq"] == 2048 and r0["gpu"]["name"] == "NVIDIA Test GPU 24GB"
                  and "verify" in r0["command"] and r0["date"].endswith("Z") and "machine" in r0,
                  "store: record holds model, label, settings, GPU, command, measured, predicted", lines[0][:300])
        except (OSError, ValueError, KeyError, IndexError) as ex:
            check(False, "store written", repr(ex))
        # tools/verified_cases.py: store -> accuracy cases; refuses stand-in records.
        conv = subprocess.run([sys.executable, os.path.join("tools", "verified_cases.py"), store],
                              capture_output=True, text=True)
        check(conv.returncode != 0 and "not a real measurement" in conv.stderr,
              "verified_cases refuses stand-in records", conv.stderr)
        try:
            relabelled = os.path.join(tmp, "relabelled.jsonl")
            r0["harness_result"]["harness"] = "gpusizer-harness"  # a converter test, in a temp file only
            with open(relabelled, "w") as f:
                f.write(json.dumps(r0) + "\n")
            conv = subprocess.run([sys.executable, os.path.join("tools", "verified_cases.py"), relabelled],
                                  capture_output=True, text=True)
            cs = [json.loads(x) for x in conv.stdout.splitlines()]
            a = cs[0]["args"]
            check(conv.returncode == 0 and [c["compare"] for c in cs] == ["allocated", "reserved", "device"]
                  and cs[0]["measured_bytes"] == alloc and cs[2]["measured_bytes"] == dev
                  and a[a.index("--seq") + 1] == "2048" and a[a.index("--method") + 1] == "full"
                  and ("--grad-ckpt" if r0["settings"]["grad-ckpt"] else "--no-grad-ckpt") in a
                  and cs[0]["grade"] == "A",
                  "verified_cases turns a record into accuracy cases", conv.stdout[:300] + conv.stderr)
        except (OSError, ValueError, KeyError, IndexError, NameError) as ex:
            check(False, "verified_cases output", repr(ex))
        rc, out, err = run(row + ["--harness", STANDIN, "--out", os.path.join(tmp, "out7"), "--store", store,
                                  "--store-standin", "--no-store"], env)
        with open(store) as f:
            check(len(f.read().splitlines()) == 2, "--no-store leaves the store alone")

        # 10. GPUSIZER_FAKE_GPU test hook: no NVML at all, no device figure.
        env = {"GPUSIZER_NVML_LIB": "/nonexistent", "GPUSIZER_FAKE_GPU": "NVIDIA Fake,%d,1.0,12.4" % (24 * GIB),
               "GPUSIZER_STANDIN_OUTPUT": okf}
        rc, out, err = run(row + ["--harness", STANDIN, "--out", os.path.join(tmp, "out8")], env)
        check(rc == 0 and "not measured" in out, "GPUSIZER_FAKE_GPU skips NVML (device not measured)",
              "rc=%d %s %s" % (rc, out, err))
        rc, out, err = run(row, {"GPUSIZER_NVML_LIB": "/nonexistent", "GPUSIZER_FAKE_GPU": "x,1,1,1"})
        check(rc == 11, "GPUSIZER_FAKE_GPU is ignored without an explicit harness", "rc=%d" % rc)

        # 13. The page (templates/verify.md.tmpl) escapes what comes from outside:
        #     the GPU's name, the harness's tag and versions; the command is a code span.
        weird = ok_result(alloc, resv)
        weird["harness"] = "stand|in"
        weird["versions"] = {"torch": "2.5*dev*", "cuda_runtime": "12.4"}
        out9 = os.path.join(tmp, "out9")
        env = dict(nv, FAKE_NVML_NAME="NVIDIA Te*st* | GPU <b>", FAKE_NVML_PROC_USED=str(dev),
                   GPUSIZER_STANDIN_OUTPUT=standin_output("weird.json", weird))
        rc, out, err = run(row + ["--harness", STANDIN, "--out", out9, "--gpus-dir", os.path.join(tmp, "g`x")], env)
        try:
            with open(os.path.join(out9, "verify", rowid + ".md")) as f:
                md = f.read()
            with open(os.path.join(out9, "verify", rowid + ".json")) as f:
                rep = json.load(f)
            check(rc == 0 and "**NVIDIA Te\\*st\\* \\| GPU &lt;b&gt;**" in md
                  and "> **Stand-in harness** (stand\\|in)" in md
                  and "- torch 2.5\\*dev\\*" in md and "- cuda\\_runtime 12.4" in md,
                  "page: strings from the GPU and the harness are escaped", md[:400])
            check("Command: ``gpusizer verify " in md and "g`x'``\n" in md,
                  "page: the command is a code span that holds its backtick", md[-300:])
            check(rep["gpu"]["name"] == "NVIDIA Te*st* | GPU <b>" and rep["harness_result"]["harness"] == "stand|in",
                  "record: the same strings as they are (JSON needs no Markdown escaping)", json.dumps(rep["gpu"]))
        except (OSError, ValueError, KeyError) as ex:
            check(False, "escaped page written", "%r rc=%d %s" % (ex, rc, err))
        # A missing page template stops verify before the harness runs.
        out10 = os.path.join(tmp, "out10")
        env = dict(nv, GPUSIZER_TEMPLATES=os.path.join(tmp, "no-templates"), GPUSIZER_STANDIN_OUTPUT=okf)
        rc, out, err = run(row + ["--harness", STANDIN, "--out", out10], env)
        check(rc == 3 and "verify.md.tmpl" in err and "running the harness" not in err
              and not os.path.exists(out10), "no page template -> exit 3 before the run", "rc=%d %s" % (rc, err))

    # 11. --row ID from a report's sizing.json.
    sizing = os.path.join(tmp, "sizing.json")
    with open(sizing, "w") as f:
        json.dump({"rows": [{"id": "qwen-r0001", "model": MODEL, "label": "x",
                             "settings": {"method": "lora", "precision": "bf16", "lora-r": 8,
                                          "lora-targets": "attn", "lora-dropout": 0.1, "batch": 2,
                                          "seq": 512, "grad-ckpt": True, "attn": "eager",
                                          "kv-dtype": "auto", "train-embeddings": False}}]}, f)
    rc, out, err = run(["--row", "qwen-r0001", "--sizing", sizing, "--offline", "--models-dir", "models", "--dry-run"])
    try:
        d = json.loads(out)
        av = d["harness_argv"]
        # the row names no optimizer: the default stack's (transformers >= 4.54, adamw_torch_fused)
        check(rc == 0 and d["label"] == "lora bf16 adamw-fused r8 attn b2 s512 ckpt eager"
              and av[av.index("--lora-dropout") + 1] == "0.1" and av[av.index("--grad-ckpt") + 1] == "true",
              "--row takes model and settings from sizing.json", d["label"])
    except (ValueError, KeyError) as ex:
        check(False, "--row dry-run JSON", "%r rc=%d %s %s" % (ex, rc, out, err))
    rc, out, err = run(["--row", "nope", "--sizing", sizing, "--dry-run"])
    check(rc == 3 and "nope" in err, "--row unknown id -> exit 3", "rc=%d %s" % (rc, err))
    # ... and from a report that holds it gzip-compressed only (json.gz).
    import gzip
    gzout = os.path.join(tmp, "gzout")
    os.makedirs(gzout)
    with open(sizing, "rb") as f, gzip.open(os.path.join(gzout, "sizing.json.gz"), "wb") as g:
        g.write(f.read())
    rc, out, err = run(["--row", "qwen-r0001", "--out", gzout, "--offline", "--models-dir", "models", "--dry-run"])
    check(rc == 0 and '"label"' in out and "lora bf16" in out,
          "--row reads OUT/sizing.json.gz when OUT has no sizing.json", "rc=%d %s" % (rc, err[-300:]))
    with open(os.path.join(gzout, "sizing.json.gz"), "wb") as g:
        g.write(gzip.compress(b'{"rows": []}')[:-6])
    rc, out, err = run(["--row", "qwen-r0001", "--out", gzout, "--offline", "--dry-run"])
    check(rc == 3 and "sizing.json.gz" in err and "gzip" in err,
          "--row: a truncated sizing.json.gz -> exit 3 naming it", "rc=%d %s" % (rc, err[-300:]))
    os.unlink(os.path.join(gzout, "sizing.json.gz"))
    rc, out, err = run(["--row", "qwen-r0001", "--out", gzout, "--offline", "--dry-run"])
    check(rc == 3 and "sizing.json not found" in err, "--row: neither file -> exit 3 naming sizing.json",
          "rc=%d %s" % (rc, err[-300:]))

    # 12. Usage errors.
    rc, out, err = run(row + ["--tolerance", "abc"])
    check(rc == 2 and "--tolerance" in err, "bad --tolerance -> exit 2", err)
    rc, out, err = run(row + ["--gpus", "2", "--sharding", "zero3"])
    check(rc == 2 and "one GPU" in err, "multi-GPU row -> exit 2", err)
    rc, out, err = run(["--params", "7000000000"])
    check(rc == 2 and "config.json" in err, "manual shape -> exit 2 (harness needs a config)", err)
    rc, out, err = run(row + ["--harness", "/nonexistent/harness.py"], nv)
    check(rc == 2 and "--harness" in err, "missing --harness file -> exit 2", err)
finally:
    shutil.rmtree(tmp, ignore_errors=True)

sys.exit(check.status())
