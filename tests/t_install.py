"""make install / make uninstall, and the installed gpusizer run from /:
it finds its GPU classes, templates, harness and reference model configs
under PREFIX/share/gpusizer from its own location, keeps its model cache
under GPUSIZER_HOME (default $XDG_CACHE_HOME/gpusizer, ~/.cache/gpusizer),
and GPUSIZER_DATA points it at another data directory. The binary
installed is the one under test ($GPUSIZER, through GPUSIZER_BIN); every
run of it is prefixed with $GS_WRAP (valgrind)."""
import glob
import json
import os
import shutil
import subprocess
import tempfile

from lib import EXE, TOP, WRAP, Checks, clean_env

check = Checks("install: ")
TIMEOUT = 600
GPU_IDS = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(TOP, "gpus", "*.json")))
REF_MODELS = sorted(os.path.basename(p) for p in glob.glob(os.path.join(TOP, "models", "*"))
                    if os.path.isfile(os.path.join(p, "config.json")))


def make(tmp, *args):
    """make in the checkout, with nothing of an outer make (jobserver, BUILD)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL",
                                                             "MAKEOVERRIDES")}
    return subprocess.run(["make", "--no-print-directory", "-C", TOP, "GPUSIZER_BIN=" + os.path.abspath(EXE)]
                          + list(args), env=env, capture_output=True, text=True, timeout=TIMEOUT)


def run(exe, args, tmp, cwd="/", **extra):
    return subprocess.run(WRAP + [exe] + args, cwd=cwd, env=clean_env(tmp, **extra), capture_output=True,
                          text=True, timeout=TIMEOUT)


def files_under(d):
    return sorted(os.path.relpath(os.path.join(r, n), d) for r, _, fs in os.walk(d) for n in fs)


def verdict_ids(stdout):
    """GPU ids of estimate --json's document and of its one row's verdicts."""
    d = json.loads(stdout)
    return sorted(g["id"] for g in d["gpus"]), sorted(d["rows"][0]["gpu_verdicts"])


def installed(tmp, prefix, label, stage=""):
    """Checks on a prefix that make install just wrote (under stage)."""
    root = stage + prefix
    share = os.path.join(root, "share", "gpusizer")
    exe = os.path.join(root, "bin", "gpusizer")
    want = ["bin/gpusizer", "share/man/man1/gpusizer.1", "share/gpusizer/harness.py",
            "share/gpusizer/install-manifest", "share/gpusizer/sizing.json"]
    want += ["share/gpusizer/gpus/%s.json" % g for g in GPU_IDS]
    want += ["share/gpusizer/" + os.path.relpath(p, TOP) for p in glob.glob(os.path.join(TOP, "templates", "**", "*"),
                                                                              recursive=True)
             if os.path.isfile(p) and not os.path.basename(p).startswith(".")]
    for m in REF_MODELS:
        want += ["share/gpusizer/models/%s/%s" % (m, f) for f in ("config.json", "meta.json")
                 if os.path.isfile(os.path.join(TOP, "models", m, f))]
    have = files_under(root)
    check(sorted(want) == have, label + "the binary, the man page, gpus/, templates/, the harness, "
          "the reference models, the default spec and the manifest",
          "missing %s, extra %s" % (sorted(set(want) - set(have))[:5], sorted(set(have) - set(want))[:5]))
    check(os.access(exe, os.X_OK), label + "the binary is executable")
    check(open(os.path.join(share, "sizing.json"), "rb").read() == open(os.path.join(TOP, "sizing.json"), "rb").read(),
          label + "the default spec is the committed sizing.json")
    manifest = open(os.path.join(share, "install-manifest")).read().split("\n")
    check(sorted(x for x in manifest if x) == sorted(os.path.join(prefix, w) for w in want),
          label + "install-manifest lists every installed file by its final path (without DESTDIR)",
          manifest[:3])
    return exe


def main():
    tmp = tempfile.mkdtemp(prefix="gs-install-")
    try:
        body(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return check.status()


def body(tmp):
    if shutil.which("make") is None or shutil.which("install") is None:
        check(False, "make and install(1) available", "not found on PATH")
        return
    prefix = os.path.join(tmp, "prefix")
    p = make(tmp, "install", "PREFIX=" + prefix)
    check(p.returncode == 0, "make install PREFIX=... exits 0", p.stderr[-500:])
    if p.returncode != 0:
        return
    exe = installed(tmp, prefix, "")
    share = os.path.join(prefix, "share", "gpusizer")

    # A config outside the checkout, by absolute path, from /.
    cfgdir = os.path.join(tmp, "elsewhere", "tiny")
    os.makedirs(cfgdir)
    shutil.copy(os.path.join(TOP, "models", "Qwen--Qwen2.5-0.5B", "config.json"), cfgdir)
    cfg = os.path.join(cfgdir, "config.json")
    r = run(exe, ["estimate", "--config", cfg, "--json"], tmp)
    try:
        gpus, verdicts = verdict_ids(r.stdout)
    except (ValueError, KeyError, IndexError) as e:
        gpus, verdicts = None, str(e)
    check(r.returncode == 0 and gpus == GPU_IDS and verdicts == GPU_IDS,
          "estimate --config ABS --json from /: a verdict for every installed GPU class",
          "rc %d %s %s" % (r.returncode, r.stderr[-300:], verdicts))

    # A reference model by id, offline, with an empty cache: the shipped configs.
    r = run(exe, ["estimate", "Qwen/Qwen2.5-0.5B", "--offline", "--json"], tmp)
    try:
        m = json.loads(r.stdout)["models"][0]
    except (ValueError, KeyError, IndexError):
        m = {}
    check(r.returncode == 0 and m.get("params_total") == 494032768 and
          "the config's tally" in (m.get("param_source") or ""),
          "estimate of a reference model id offline: the installed config and its meta.json",
          "rc %d %s %s" % (r.returncode, r.stderr[-300:], m))
    r = run(exe, ["estimate", "Qwen/Qwen2.5-7B@main", "--offline"], tmp)
    check(r.returncode == 0, "estimate ID@main offline: the shipped config (no revision recorded) counts",
          r.stderr[-300:])

    # Where the cache is: ~/.cache/gpusizer, XDG_CACHE_HOME, GPUSIZER_HOME.
    home = os.path.join(tmp, "home")
    for label, extra, want in [
            ("~/.cache/gpusizer/models", {}, os.path.join(home, ".cache", "gpusizer", "models")),
            ("$XDG_CACHE_HOME/gpusizer/models", {"XDG_CACHE_HOME": os.path.join(tmp, "xdg")},
             os.path.join(tmp, "xdg", "gpusizer", "models")),
            ("$GPUSIZER_HOME/models", {"GPUSIZER_HOME": os.path.join(tmp, "gh"),
                                       "XDG_CACHE_HOME": os.path.join(tmp, "xdg")},
             os.path.join(tmp, "gh", "models"))]:
        r = run(exe, ["estimate", "nobody/not-here", "--offline"], tmp, **extra)
        check(r.returncode == 10 and os.path.join(want, "nobody--not-here") in r.stderr,
              "model cache outside a checkout: " + label, "rc %d %s" % (r.returncode, r.stderr[-400:]))

    # The cache comes before the shipped configs.
    gh = os.path.join(tmp, "gh")
    mine = os.path.join(gh, "models", "Qwen--Qwen2.5-0.5B")
    os.makedirs(mine)
    c = json.load(open(cfg))
    c["num_hidden_layers"] = 2
    json.dump(c, open(os.path.join(mine, "config.json"), "w"))
    r = run(exe, ["estimate", "Qwen/Qwen2.5-0.5B", "--offline", "--json"], tmp, GPUSIZER_HOME=gh)
    try:
        pt = json.loads(r.stdout)["models"][0]["params_total"]
    except (ValueError, KeyError, IndexError):
        pt = None
    check(r.returncode == 0 and pt is not None and pt < 494032768,
          "a model in GPUSIZER_HOME's cache is used before the shipped reference config",
          "rc %d params %s %s" % (r.returncode, pt, r.stderr[-300:]))

    # report --spec in another directory, with paths relative to it, --out elsewhere.
    sdir = os.path.join(tmp, "specs")
    os.makedirs(os.path.join(sdir, "cfgs"))
    shutil.copy(cfg, os.path.join(sdir, "cfgs", "tiny.json"))
    spec = {"version": 1, "date": "2026-01-01", "models": ["Qwen/Qwen2.5-0.5B", "cfgs/tiny.json"],
            "gpus": ["t4", "rtx-4090"], "axes": {"method": ["lora"], "precision": {"lora": ["bf16"]},
                                                 "batch": [1], "seq": [512]},
            "formats": ["md", "html", "json"]}
    spath = os.path.join(sdir, "sizing.json")
    json.dump(spec, open(spath, "w"), indent=1)
    out = os.path.join(tmp, "reports", "out")
    r = run(exe, ["report", "--spec", spath, "--out", out, "--offline", "--quiet"], tmp)
    want = ["index.md", "sizing.json", "html/index.html", "models/Qwen--Qwen2.5-0.5B.md", "models/tiny.md"]
    check(r.returncode == 0 and all(os.path.isfile(os.path.join(out, w)) for w in want),
          "report --spec /elsewhere/sizing.json --out DIR from /: pages from the installed templates",
          "rc %d %s %s" % (r.returncode, r.stderr[-300:], files_under(out)[:8] if os.path.isdir(out) else None))
    if r.returncode == 0:
        doc = json.load(open(os.path.join(out, "sizing.json")))
        check(sorted(g["id"] for g in doc["gpus"]) == ["rtx-4090", "t4"] and len(doc["models"]) == 2,
              "report: the installed GPU classes and both models", [g["id"] for g in doc["gpus"]])
    # No "out" in the spec, no --out: beside the spec.
    r = run(exe, ["report", "--spec", spath, "--offline", "--quiet", "--format", "json"], tmp)
    check(r.returncode == 0 and os.path.isfile(os.path.join(sdir, "out", "sizing.json")) and
          not os.path.exists("/out/sizing.json"),
          "report with no \"out\": <spec dir>/out, not the current directory", r.stderr[-300:])

    # verify --dry-run finds the installed harness.
    r = run(exe, ["verify", "Qwen/Qwen2.5-0.5B", "--method", "lora", "--seq", "512", "--offline",
                  "--dry-run"], tmp)
    try:
        argv = json.loads(r.stdout)["harness_argv"]
    except (ValueError, KeyError):
        argv = []
    check(r.returncode == 0 and os.path.join(share, "harness.py") in argv,
          "verify --dry-run from /: the installed share/gpusizer/harness.py",
          "rc %d %s %s" % (r.returncode, r.stderr[-300:], argv[:3]))

    # GPUSIZER_DATA: another data directory (here: two GPU classes only).
    data = os.path.join(tmp, "data")
    shutil.copytree(share, data)
    for g in GPU_IDS:
        if g not in ("t4", "h100-sxm"):
            os.unlink(os.path.join(data, "gpus", g + ".json"))
    r = run(exe, ["estimate", "--config", cfg, "--json"], tmp, GPUSIZER_DATA=data)
    try:
        gpus, verdicts = verdict_ids(r.stdout)
    except (ValueError, KeyError, IndexError) as e:
        gpus, verdicts = None, str(e)
    check(r.returncode == 0 and gpus == ["h100-sxm", "t4"] and verdicts == gpus,
          "GPUSIZER_DATA: its gpus/ replaces the installed one", "rc %d %s %s" % (r.returncode, r.stderr[-300:], gpus))
    bad = os.path.join(tmp, "no-such-data")
    r = run(exe, ["report", "--spec", spath, "--out", os.path.join(tmp, "never"), "--offline", "--quiet"], tmp,
            GPUSIZER_DATA=bad)
    check(r.returncode == 16 and os.path.join(bad, "gpus") in r.stderr and
          not os.path.exists(os.path.join(tmp, "never")),
          "GPUSIZER_DATA without gpus/: exit 16 (a local directory missing) naming it, nothing written",
          "rc %d %s" % (r.returncode, r.stderr[-300:]))

    default_spec(exe, tmp, data)

    # uninstall: every installed file goes, a file of the user's stays.
    own = os.path.join(share, "gpus", "my-gpu.json")
    shutil.copy(os.path.join(TOP, "gpus", "t4.json"), own)
    p = make(tmp, "uninstall", "PREFIX=" + prefix)
    left = files_under(prefix)
    check(p.returncode == 0 and left == ["share/gpusizer/gpus/my-gpu.json"],
          "make uninstall removes every file install wrote (and keeps the user's own)",
          "rc %d %s left %s" % (p.returncode, p.stderr[-300:], left[:5]))
    os.unlink(own)
    p = make(tmp, "uninstall", "PREFIX=" + prefix)
    check(p.returncode == 0 and files_under(prefix) == [] and not os.path.exists(share) and
          os.path.isdir(os.path.join(prefix, "bin")),
          "make uninstall again: nothing left, share/gpusizer gone, PREFIX/bin kept",
          "rc %d %s" % (p.returncode, p.stderr[-300:]))

    # DESTDIR stages PREFIX; the staged tree runs as it stands (relocatable).
    stage = os.path.join(tmp, "stage")
    sprefix = "/opt/gpusizer-test"
    p = make(tmp, "install", "DESTDIR=" + stage, "PREFIX=" + sprefix)
    check(p.returncode == 0 and not os.path.exists(sprefix), "make install DESTDIR=... PREFIX=/opt/...: exit 0, "
          "nothing outside DESTDIR", p.stderr[-300:])
    if p.returncode == 0:
        sexe = installed(tmp, sprefix, "DESTDIR: ", stage=stage)
        r = run(sexe, ["estimate", "--config", cfg, "--json"], tmp)
        try:
            gpus, verdicts = verdict_ids(r.stdout)
        except (ValueError, KeyError, IndexError) as e:
            gpus, verdicts = None, str(e)
        check(r.returncode == 0 and gpus == GPU_IDS, "DESTDIR: the staged binary finds its data beside it",
              "rc %d %s" % (r.returncode, r.stderr[-300:]))
        sout = os.path.join(tmp, "staged-out")
        r = run(sexe, ["report", "--offline", "--quiet", "--format", "md,json", "--models", "Qwen/Qwen2.5-0.5B",
                       "--gpu", "t4", "--out", sout], tmp, GPUSIZER_HOME=os.path.join(tmp, "staged-cache"))
        check(r.returncode == 0 and os.path.isfile(os.path.join(sout, "index.md")) and
              os.path.isfile(os.path.join(sout, "sizing.json")),
              "DESTDIR: the staged report with no --spec from / writes a report from its default spec",
              "rc %d %s" % (r.returncode, r.stderr[-300:]))
        p = make(tmp, "uninstall", "DESTDIR=" + stage, "PREFIX=" + sprefix)
        check(p.returncode == 0 and files_under(stage) == [], "DESTDIR: make uninstall removes every file",
              "rc %d %s %s" % (p.returncode, p.stderr[-300:], files_under(stage)[:5]))


def default_spec(exe, tmp, data):
    """Issue 33 item 4: the installed report with no --spec reads the
    installed default spec (the committed sizing.json) from any directory,
    offline, its models from the installed reference configs (an empty
    cache); its pages are the same bytes as the checkout's own spec gives."""
    gh = os.path.join(tmp, "empty-cache")
    out = os.path.join(tmp, "default-out")
    r = run(exe, ["report", "--offline", "--quiet", "--out", out], tmp, GPUSIZER_HOME=gh)
    check(r.returncode == 0 and os.path.isfile(os.path.join(out, "index.md")) and
          os.path.isfile(os.path.join(out, "sizing.json.gz")),
          "report with no --spec from /: the installed default spec writes a report",
          "rc %d %s %s" % (r.returncode, r.stderr[-300:], files_under(out)[:6] if os.path.isdir(out) else None))
    if r.returncode != 0:
        return
    ref = os.path.join(tmp, "checkout-out")
    # the reference run is not what is under test: without $GS_WRAP (valgrind)
    c = subprocess.run([os.path.abspath(EXE), "report", "--spec", "sizing.json", "--offline", "--quiet",
                        "--out", ref], cwd=TOP, env=clean_env(tmp),
                       capture_output=True, text=True, timeout=TIMEOUT)
    differ = [f for f in files_under(ref) if f.endswith(".md") and
              open(os.path.join(ref, f), "rb").read() != open(os.path.join(out, f), "rb").read()]
    check(c.returncode == 0 and files_under(ref) == files_under(out) and not differ,
          "the default spec's pages from / are the bytes the checkout's sizing.json gives",
          "rc %d %s differ %s" % (c.returncode, c.stderr[-200:], differ[:4]))
    # no --out: out/ and publish/ in the current directory, not beside the
    # installed spec (one model and class of it: the paths are what is checked)
    cwd = os.path.join(tmp, "work")
    os.makedirs(cwd)
    r = run(exe, ["report", "--offline", "--quiet", "--format", "md,json.gz", "--models", "Qwen/Qwen2.5-0.5B",
                  "--gpu", "t4"], tmp, cwd=cwd, GPUSIZER_HOME=gh)
    share = os.path.dirname(os.path.dirname(exe)) + "/share/gpusizer"
    check(r.returncode == 0 and os.path.isfile(os.path.join(cwd, "out", "index.md")) and
          os.path.isfile(os.path.join(cwd, "publish", "sizing.json.gz")) and
          not os.path.exists(os.path.join(share, "out")),
          "report with no --spec, no --out: out/ and publish/ in the current directory",
          "rc %d %s %s" % (r.returncode, r.stderr[-300:], files_under(cwd)[:4]))
    # a ./sizing.json in the current directory comes first
    own = os.path.join(tmp, "own")
    os.makedirs(own)
    json.dump({"version": 1, "date": "2026-01-01", "models": ["Qwen/Qwen2.5-0.5B"], "gpus": ["t4"],
               "axes": {"method": ["lora"], "precision": {"lora": ["bf16"]}, "batch": [1], "seq": [512]},
               "formats": ["json"]}, open(os.path.join(own, "sizing.json"), "w"))
    r = run(exe, ["report", "--offline", "--quiet", "--out", os.path.join(own, "o")], tmp, cwd=own, GPUSIZER_HOME=gh)
    try:
        doc = json.load(open(os.path.join(own, "o", "sizing.json")))
    except (OSError, ValueError):
        doc = {}
    check(r.returncode == 0 and [g["id"] for g in doc.get("gpus", [])] == ["t4"],
          "report with no --spec: ./sizing.json before the installed default", r.stderr[-300:])
    # no default spec installed (a data directory without one): exit 16 naming both places
    os.unlink(os.path.join(data, "sizing.json"))
    r = run(exe, ["report", "--offline", "--quiet", "--out", os.path.join(tmp, "never2")], tmp, GPUSIZER_DATA=data)
    check(r.returncode == 16 and "./sizing.json" in r.stderr and os.path.join(data, "sizing.json") in r.stderr and
          not os.path.exists(os.path.join(tmp, "never2")),
          "no --spec, no ./sizing.json, no default spec: exit 16 naming where it looked, nothing written",
          "rc %d %s" % (r.returncode, r.stderr[-300:]))
    r = run(exe, ["report", "--spec", os.path.join(tmp, "nope.json"), "--offline"], tmp)
    check(r.returncode == 16 and "nope.json" in r.stderr, "--spec a missing file: exit 16 naming it",
          "rc %d %s" % (r.returncode, r.stderr[-300:]))


if __name__ == "__main__":
    raise SystemExit(main())
