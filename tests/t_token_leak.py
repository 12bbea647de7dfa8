#!/usr/bin/env python3
"""The Hub token never appears in output, logs, cache files or error
messages, for every command: estimate (fetching on demand from a 127.0.0.1
mock Hub, and --offline), report (fetching on demand, every format), fetch
(public, gated with and without access, private, missing, 500s), verify
(GPUSIZER_NVML_LIB=/nonexistent: no GPU; --dry-run), the help texts and
usage errors. The token is given three ways: HF_TOKEN, HF_TOKEN_PATH and
HF_HOME/token. stdout, stderr and every file under the temporary HOME,
HF_HOME, models and out directories are searched for it (raw, and its
random part alone, so a truncated or re-quoted copy is found too).
Under valgrind (GS_WRAP set) the HF_TOKEN_PATH and HF_HOME/token ways run only
the fetching commands (the others run once, with HF_TOKEN)."""
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mock_hub as mh  # noqa: E402
from lib import EXE, TOP, WRAP, Checks  # noqa: E402

TIMEOUT = 900 if WRAP else 60
RAND = secrets.token_hex(10)
TOKEN = "hf_LEAKCHECK_" + RAND
report = Checks(why_on_pass=True)


def main():
    tmp = tempfile.mkdtemp(prefix="gs-tok-")
    hub = mh.MockHub()
    try:
        return run(tmp, hub)
    finally:
        hub.close()
        shutil.rmtree(tmp, ignore_errors=True)


def run(tmp, hub):
    hub.valid_tokens.add(TOKEN)
    cfg = json.load(open(os.path.join(TOP, "tests/bad/ok-llama.json")))
    small = {"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
             "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100}
    hub.add(mh.Repo("leak/public", cfg, st=mh.VirtualFile(mh.llama_tensors(cfg))))  # the weights it describes
    hub.add(mh.Repo("leak/tiny", small, st=mh.VirtualFile(mh.llama_tensors(small))))
    g = hub.add(mh.Repo("leak/gated-ok", small, gated="manual"))
    g.approved.add(TOKEN)
    hub.add(mh.Repo("leak/gated-no", small, gated="manual"))
    hub.add(mh.Repo("leak/private", small, private=True))
    hub.add(mh.Repo("leak/flaky", small))
    hub.fault("leak/flaky", "config.json", "500*")

    home = os.path.join(tmp, "home")
    hf = os.path.join(tmp, "hf")
    md = os.path.join(tmp, "models")
    out = os.path.join(tmp, "out")
    for d in (home, hf):
        os.makedirs(d)
    with open(os.path.join(hf, "token"), "w") as f:
        f.write(TOKEN + "\n")
    tokfile = os.path.join(tmp, "token-file")
    with open(tokfile, "w") as f:
        f.write(TOKEN + "\n")
    spec = json.load(open(os.path.join(TOP, "tests/fixtures/spec-small.json")))
    spec.update(models=["leak/public", "leak/tiny"], gpus=["t4", "rtx-4090"],
                formats=["md", "html", "xlsx", "json", "csv"], out=out, models_dir=md,
                gpus_dir=os.path.join(TOP, "gpus"))
    spec["axes"].update(batch=[1], seq=[512])
    specp = os.path.join(tmp, "spec.json")
    with open(specp, "w") as f:
        json.dump(spec, f)

    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("HF_", "HUGGING", "GPUSIZER_")) and not k.lower().endswith("_proxy")}
    base.update(HOME=home, HF_HOME=hf, HF_ENDPOINT=hub.url, GPUSIZER_TIMEOUT="2",
                GPUSIZER_RETRIES="1", GPUSIZER_MAX_RETRY_WAIT="0.05",
                GPUSIZER_NVML_LIB="/nonexistent")
    ways = {"HF_TOKEN": dict(HF_TOKEN=TOKEN), "HF_TOKEN_PATH": dict(HF_TOKEN_PATH=tokfile),
            "HF_HOME/token": {}}
    runs = [
        ("estimate.fetch", ["estimate", "leak/public", "--models-dir", md, "--gpus-dir",
                            os.path.join(TOP, "gpus")], (0,)),
        ("estimate.json", ["estimate", "leak/public", "--models-dir", md, "--json", "--gpus-dir",
                           os.path.join(TOP, "gpus")], (0,)),
        ("estimate.offline_missing", ["estimate", "leak/none", "--offline", "--models-dir", md], (10,)),
        ("estimate.gated", ["estimate", "leak/gated-no", "--models-dir", md], (7,)),
        ("report", ["report", "--spec", specp, "--quiet"], (0,)),
        ("report.offline", ["report", "--spec", specp, "--quiet", "--offline"], (0,)),
        ("fetch", ["fetch", "--models-dir", md, "leak/public", "leak/tiny", "leak/gated-ok",
                   "leak/gated-no", "leak/private", "leak/flaky", "leak/missing"], (6, 7, 8, 9)),
        ("fetch.refresh", ["fetch", "--models-dir", md, "leak/public", "leak/gated-ok"], (0,)),
        ("fetch.offline", ["fetch", "--offline", "--models-dir", md, "leak/public", "leak/x"], (10,)),
        ("fetch.bad_id", ["fetch", "--models-dir", md, "../x"], (2,)),
        ("verify.no_gpu", ["verify", "leak/public", "--models-dir", md, "--out", out,
                           "--no-store"], (11,)),
        ("verify.dry_run", ["verify", "leak/public", "--models-dir", md, "--out", out,
                            "--no-store", "--dry-run"], (0,)),
        ("help", ["--help"], (0,)),
        ("version", ["--version"], (0,)),
        ("estimate.help", ["estimate", "--help"], (0,)),
        ("fetch.usage", ["fetch", "--jobs", "x"], (2,)),
    ]
    leaks = []
    n = 0
    for way, extra in ways.items():
        env = dict(base)
        env.update(extra)
        if way != "HF_HOME/token":
            os.rename(os.path.join(hf, "token"), os.path.join(hf, "token.off"))
        try:
            for name, args, codes in runs:
                if WRAP and way != "HF_TOKEN" and name not in ("fetch", "estimate.gated"):
                    continue  # under valgrind: every command once, the other ways on fetches
                p = subprocess.run(WRAP + [EXE] + args, cwd=TOP, env=env, capture_output=True,
                                   timeout=TIMEOUT, stdin=subprocess.DEVNULL)
                n += 1
                tag = "token.%s.%s" % (way, name)
                if p.returncode not in codes:
                    report(False, tag + ".exit", "exit %d, expected %s; stderr: %s" % (
                        p.returncode, codes, p.stderr.decode("utf-8", "replace")[-300:]))
                for what, data in (("stdout", p.stdout), ("stderr", p.stderr)):
                    if TOKEN.encode() in data or RAND.encode() in data:
                        leaks.append("%s %s" % (tag, what))
        finally:
            if way != "HF_HOME/token":
                os.rename(os.path.join(hf, "token.off"), os.path.join(hf, "token"))
    report(not leaks, "token.not_in_output", "%d runs, 3 ways of giving the token%s" % (
        n, ", fewer under GS_WRAP" if WRAP else "") if not leaks
           else "found in " + ", ".join(leaks))
    files = []
    nfiles = 0
    for root, _, fs in os.walk(tmp):
        for f in fs:
            p = os.path.join(root, f)
            if p in (tokfile, os.path.join(hf, "token")):
                continue  # where the token was put
            nfiles += 1
            with open(p, "rb") as fp:
                data = fp.read()
            if TOKEN.encode() in data or RAND.encode() in data:
                files.append(os.path.relpath(p, tmp))
            # the workbook is a zip: search its uncompressed parts too
            if p.endswith(".xlsx"):
                import zipfile
                z = zipfile.ZipFile(p)
                for part in z.namelist():
                    if RAND.encode() in z.read(part):
                        files.append(os.path.relpath(p, tmp) + ":" + part)
    report(not files, "token.not_in_files", "%d files searched" % nfiles if not files
           else "found in " + ", ".join(files))
    report(os.path.exists(os.path.join(md, "leak--gated-ok", "meta.json")),
           "token.was_used", "the gated repo was fetched with it")
    report(any(r.get("auth") == "Bearer " + TOKEN for r in hub.log), "token.sent_to_hub")
    report(all(r.get("auth") is None for r in hub.cdn_log), "token.not_sent_to_cdn",
           "%d CDN requests" % len(hub.cdn_log))
    return report.status()


if __name__ == "__main__":
    sys.exit(main())
