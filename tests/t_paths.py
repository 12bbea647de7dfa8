"""Where gpusizer looks, run from a checkout's binary: the checkout's gpus/,
templates/ and models/ from any directory (the bug: `cd / && gpusizer
estimate --config ABS` said "cannot read the GPU directory"); GPUSIZER_HOME
moves the cache; paths in a spec are relative to the spec file (flags stay
relative to the current directory); ID@main resolves offline from an entry
that records "main" or no revision; a wrong-case id gets "did you mean".
Every gpusizer run is prefixed with $GS_WRAP (valgrind)."""
import glob
import json
import os
import shutil
import subprocess
import tempfile

from lib import EXE, GS, TOP, Checks, clean_env

check = Checks("paths: ")
TIMEOUT = 600
GPU_IDS = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(TOP, "gpus", "*.json")))
QWEN = os.path.join(TOP, "models", "Qwen--Qwen2.5-0.5B", "config.json")


def run(args, tmp, cwd="/", **extra):
    return subprocess.run(GS + args, cwd=cwd, env=clean_env(tmp, **extra), capture_output=True, text=True,
                          timeout=TIMEOUT)


def in_checkout(exe):
    """Whether the binary under test sits in this checkout (., build/, build/X/)."""
    d = os.path.dirname(os.path.realpath(exe))
    top = os.path.realpath(TOP)
    return d in (top, os.path.join(top, "build")) or os.path.dirname(d) == os.path.join(top, "build")


def tiny_model(models_dir, repo, revision=None, layers=2):
    d = os.path.join(models_dir, repo.replace("/", "--"))
    os.makedirs(d)
    c = json.load(open(QWEN))
    c["num_hidden_layers"] = layers
    json.dump(c, open(os.path.join(d, "config.json"), "w"))
    meta = {"id": repo, "revision": revision, "sha": "0123456789abcdef0123456789abcdef01234567"}
    json.dump(meta, open(os.path.join(d, "meta.json"), "w"))


def checkout_defaults(tmp):
    r = run(["estimate", "--config", QWEN, "--json"], tmp)
    try:
        d = json.loads(r.stdout)
        ids, verdicts = sorted(g["id"] for g in d["gpus"]), sorted(d["rows"][0]["gpu_verdicts"])
    except (ValueError, KeyError, IndexError) as e:
        ids, verdicts = None, str(e)
    check(r.returncode == 0 and ids == GPU_IDS and verdicts == GPU_IDS,
          "estimate --config ABS from /: the checkout's gpus/ (found beside the binary)",
          "rc %d %s %s" % (r.returncode, r.stderr[-300:], verdicts))
    r = run(["estimate", "Qwen/Qwen2.5-0.5B", "--offline"], tmp)
    check(r.returncode == 0, "estimate ID from /: the checkout's models/", r.stderr[-300:])
    r = run(["estimate", "nobody/not-here", "--offline"], tmp)
    check(r.returncode == 10 and os.path.join(os.path.realpath(TOP), "models", "nobody--not-here") in r.stderr,
          "a checkout's model cache is its models/, not ~/.cache", r.stderr[-300:])
    gh = os.path.join(tmp, "gh")
    r = run(["estimate", "nobody/not-here", "--offline"], tmp, GPUSIZER_HOME=gh)
    check(r.returncode == 10 and os.path.join(gh, "models", "nobody--not-here") in r.stderr,
          "GPUSIZER_HOME, set, is the cache even in a checkout", r.stderr[-300:])
    r = run(["estimate", "Qwen/Qwen2.5-0.5B", "--offline"], tmp, GPUSIZER_HOME=gh)
    check(r.returncode == 0, "with GPUSIZER_HOME empty the checkout's reference configs still resolve",
          r.stderr[-300:])


def spec_relative(tmp):
    sdir = os.path.join(tmp, "proj", "specs")
    os.makedirs(os.path.join(sdir, "cfg"))
    shutil.copy(QWEN, os.path.join(sdir, "cfg", "small.json"))
    os.makedirs(os.path.join(sdir, "mygpus"))
    for g in ("t4", "l4"):
        shutil.copy(os.path.join(TOP, "gpus", g + ".json"), os.path.join(sdir, "mygpus"))
    tiny_model(os.path.join(sdir, "mymodels"), "local/tiny")
    spec = {"version": 1, "date": "2026-01-01", "models": ["cfg/small.json", "local/tiny"],
            "axes": {"method": ["inference"], "batch": [1], "seq": [512]}, "formats": ["json"],
            "out": "rep", "models_dir": "mymodels", "gpus_dir": "mygpus"}
    json.dump(spec, open(os.path.join(sdir, "spec.json"), "w"), indent=1)
    cwd = os.path.join(tmp, "proj", "work")
    os.makedirs(cwd)
    r = run(["report", "--spec", "../specs/spec.json", "--offline", "--quiet"], tmp, cwd=cwd)
    out = os.path.join(sdir, "rep", "sizing.json")
    doc = json.load(open(out)) if r.returncode == 0 and os.path.isfile(out) else {"gpus": [], "models": []}
    check(r.returncode == 0 and os.path.isfile(out) and not os.path.exists(os.path.join(cwd, "rep")),
          "spec \"out\" is relative to the spec file", "rc %d %s" % (r.returncode, r.stderr[-300:]))
    check(sorted(g["id"] for g in doc["gpus"]) == ["l4", "t4"], "spec \"gpus_dir\" is relative to the spec file",
          [g["id"] for g in doc["gpus"]])
    check(len(doc["models"]) == 2, "spec model config paths and \"models_dir\" are relative to the spec file",
          [m.get("id") for m in doc["models"]])
    # flags stay relative to the current directory
    r = run(["report", "--spec", "../specs/spec.json", "--offline", "--quiet", "--out", "o2"], tmp, cwd=cwd)
    check(r.returncode == 0 and os.path.isfile(os.path.join(cwd, "o2", "sizing.json")),
          "--out DIR stays relative to the current directory", r.stderr[-300:])
    # absent "out": beside the spec; absent gpus_dir/models_dir: the tool's defaults
    spec2 = {"version": 1, "date": "2026-01-01", "models": ["Qwen/Qwen2.5-0.5B"], "gpus": ["t4"],
             "axes": {"method": ["inference"], "batch": [1], "seq": [512]}, "formats": ["json"]}
    json.dump(spec2, open(os.path.join(sdir, "plain.json"), "w"))
    r = run(["report", "--spec", os.path.join(sdir, "plain.json"), "--offline", "--quiet"], tmp, cwd=cwd)
    check(r.returncode == 0 and os.path.isfile(os.path.join(sdir, "out", "sizing.json")),
          "spec without out/models_dir/gpus_dir: <spec dir>/out, the checkout's models/ and gpus/",
          r.stderr[-300:])
    # errors name the spec file, the key and the resolved path
    spec3 = dict(spec, models=["cfg/missing.json"])
    p3 = os.path.join(sdir, "missing.json")
    json.dump(spec3, open(p3, "w"), indent=1)
    r = run(["report", "--spec", p3, "--offline", "--quiet"], tmp, cwd=cwd)
    check(r.returncode == 16 and p3 in r.stderr and "models[0]" in r.stderr and
          os.path.join(sdir, "cfg", "missing.json") in r.stderr,
          "a missing spec-relative config: exit 16 (a local file missing) naming the spec, models[0] and the path", r.stderr[-300:])
    spec4 = dict(spec, out=5)
    p4 = os.path.join(sdir, "badout.json")
    json.dump(spec4, open(p4, "w"), indent=1)
    r = run(["report", "--spec", p4, "--offline", "--quiet"], tmp, cwd=cwd)
    check(r.returncode == 3 and p4 in r.stderr and "out" in r.stderr, "\"out\": 5: exit 3 naming the spec and key",
          r.stderr[-300:])


def revisions(tmp):
    md = os.path.join(tmp, "revs")
    tiny_model(md, "local/nomain", None)
    tiny_model(md, "local/main", "main")
    tiny_model(md, "local/v2", "v2")
    for mid, rc, what in [("local/nomain@main", 0, "no revision recorded: @main resolves"),
                          ("local/main@main", 0, "revision \"main\" recorded: @main resolves"),
                          ("local/v2@v2", 0, "@v2 matches revision v2"),
                          ("local/v2@0123456", 0, "a sha prefix matches"),
                          ("local/v2", 0, "no revision asked: any cached entry"),
                          ("local/v2@main", 10, "revision v2 recorded: @main is not cached"),
                          ("local/main@v3", 10, "@v3 does not match \"main\"")]:
        r = run(["estimate", mid, "--offline", "--models-dir", md], tmp)
        check(r.returncode == rc, "offline " + what, "rc %d %s" % (r.returncode, r.stderr[-300:]))
    r = run(["estimate", "Qwen/Qwen2.5-7B@main", "--offline"], tmp)
    check(r.returncode == 0, "Qwen/Qwen2.5-7B@main offline from the committed models/", r.stderr[-300:])


def did_you_mean(tmp):
    r = run(["estimate", "meta-llama/llama-3.1-8b", "--offline"], tmp)
    check(r.returncode == 10 and "did you mean meta-llama/Llama-3.1-8B?" in r.stderr,
          "wrong-case id: did you mean (the models dir)", r.stderr[-300:])
    md = os.path.join(tmp, "dym")
    tiny_model(md, "Some-Org/Tiny-Model")
    r = run(["estimate", "some-org/tiny-model@main", "--offline", "--models-dir", md], tmp)
    check(r.returncode == 10 and "did you mean Some-Org/Tiny-Model@main?" in r.stderr,
          "wrong-case id with a revision: did you mean (--models-dir)", r.stderr[-300:])
    hf = os.path.join(tmp, "hf", "hub")
    os.makedirs(os.path.join(hf, "models--HF-Org--Cased", "snapshots"))
    r = run(["estimate", "hf-org/cased", "--offline", "--models-dir", md], tmp, HF_HUB_CACHE=hf)
    check(r.returncode == 10 and "did you mean HF-Org/Cased?" in r.stderr,
          "wrong-case id: did you mean (the huggingface_hub cache)", r.stderr[-300:])
    r = run(["estimate", "nobody/nothing", "--offline", "--models-dir", md], tmp)
    check(r.returncode == 10 and "did you mean" not in r.stderr, "no near match: no suggestion", r.stderr[-300:])


def main():
    tmp = tempfile.mkdtemp(prefix="gs-paths-")
    try:
        if in_checkout(EXE):
            checkout_defaults(tmp)
            spec_relative(tmp)
            revisions(tmp)
            did_you_mean(tmp)
        else:
            print("note: %s is not a binary of this checkout: checkout path checks not run" % EXE)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return check.status()


if __name__ == "__main__":
    raise SystemExit(main())
