#!/usr/bin/env python3
"""The nightly workflow's own steps (tools/nightly.sh, which
.github/workflows/nightly.yml runs) against the mock Hub (tests/mock_hub.py,
through HF_ENDPOINT and the real libcurl path), in a small self-contained git
repository built in a temporary directory: two of the committed models with
their committed config.json and meta.json, gpus/ and templates/ from this
checkout, a small spec, and out/ generated and committed as the baseline.

  identical upstream  -> fetch says unchanged, report --check passes, the
                         tree is clean and no commit is made (night after night);
  changed upstream    -> the reports change and the commit step commits
                         models/ and out/; the night after is quiet again;
  --propose           -> the changes stay in the tree for a pull-request action;
  a fetch failure     -> the job fails with fetch's exit status, nothing committed.

Prints one PASS/FAIL line per check, named nightly.<scenario>.<what>."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mock_hub as mh  # noqa: E402
from lib import EXE, GS, TOP, WRAP, Checks  # noqa: E402

check = Checks("nightly.")
NIGHTLY = os.path.join(TOP, "tools", "nightly.sh")
IDS = ["openai-community/gpt2", "Qwen/Qwen2.5-0.5B"]
SLUGS = [i.replace("/", "--") for i in IDS]
AUTHOR = ("nightly test bot", "nightly-bot@example.invalid")

tmp = tempfile.mkdtemp(prefix="gs_nightly_")
REPO = os.path.join(tmp, "repo")
hub = mh.MockHub()

ENV = {k: v for k, v in os.environ.items()
       if not k.startswith(("HF_", "HUGGING", "GPUSIZER", "XDG_CACHE", "GIT_", "NIGHTLY_", "GITHUB_"))
       and not k.lower().endswith("_proxy") and k != "SOURCE_DATE_EPOCH"}
ENV.update({"HOME": tmp, "HF_HOME": os.path.join(tmp, "hf"), "HF_ENDPOINT": hub.url,
            "GPUSIZER_RETRIES": "2", "GPUSIZER_MAX_RETRY_WAIT": "0.2",
            "SOURCE_DATE_EPOCH": "1767225600",  # as the workflow sets it
            "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "baseline", "GIT_AUTHOR_EMAIL": "baseline@example.invalid",
            "GIT_COMMITTER_NAME": "baseline", "GIT_COMMITTER_EMAIL": "baseline@example.invalid"})


def sh(*args, **kw):
    return subprocess.run(list(args), cwd=REPO, env=ENV, capture_output=True, text=True,
                          timeout=kw.pop("timeout", 60), **kw)


def git(*args):
    return sh("git", *args).stdout.strip()


def nightly(*args, **env):
    """tools/nightly.sh in the test repository: $GPUSIZER and GS_WRAP as the
    suite runs gpusizer (valgrind too)."""
    e = dict(ENV, GPUSIZER=EXE, GS_WRAP=" ".join(WRAP),
             NIGHTLY_AUTHOR_NAME=AUTHOR[0], NIGHTLY_AUTHOR_EMAIL=AUTHOR[1])
    for k in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        e.pop(k)
    e.update(env)
    return subprocess.run(["sh", NIGHTLY] + list(args), cwd=REPO, env=e, capture_output=True,
                          text=True, timeout=900 if WRAP else 300)


def read(rel):
    with open(os.path.join(REPO, rel), "rb") as f:
        return f.read()


def show(p):
    return "rc %d\n--- stdout\n%s\n--- stderr\n%s" % (p.returncode, p.stdout[-2500:], p.stderr[-2500:])


def changed_config(slug, key, value):
    """The committed config.json with one number changed, formatting kept."""
    text = read("models/%s/config.json" % slug).decode()
    new, n = re.subn(r'("%s":\s*)\d+' % key, r"\g<1>%d" % value, text, count=1)
    assert n == 1, key
    return new.encode()


# ---- the workflow runs this very script, with the date this test uses ---------
with open(os.path.join(TOP, ".github", "workflows", "nightly.yml")) as f:
    wf = f.read()
check(re.search(r"^\s+run: sh tools/nightly\.sh\s*$", wf, re.M) and "contents: write" in wf
      and 'SOURCE_DATE_EPOCH: "%s"' % ENV["SOURCE_DATE_EPOCH"] in wf, "workflow.runs_tools_nightly",
      "nightly.yml does not run tools/nightly.sh with contents: write and the fixed SOURCE_DATE_EPOCH")

# ---- the test repository: baseline committed --------------------------------
os.makedirs(os.path.join(REPO, "models"))
for d in ("gpus", "templates"):
    shutil.copytree(os.path.join(TOP, d), os.path.join(REPO, d))
for s in SLUGS:
    shutil.copytree(os.path.join(TOP, "models", s), os.path.join(REPO, "models", s))
SPEC = {"version": 1, "date": "2026-01-01", "models": IDS,
        "gpus": ["rtx-4090", "a100-80gb", "h100-sxm"],
        "gpu_counts": [{"count": 1, "sharding": "ddp"}, {"count": 2, "sharding": "zero3"}],
        "axes": {"method": ["full", "lora", "inference"], "batch": [1], "seq": [512, 2048]},
        "formats": ["md", "json", "csv"], "out": "out", "models_dir": "models", "gpus_dir": "gpus"}
with open(os.path.join(REPO, "sizing.json"), "w") as f:
    json.dump(SPEC, f, indent=2)
    f.write("\n")
committed = {s: (read("models/%s/config.json" % s), read("models/%s/meta.json" % s)) for s in SLUGS}
p = subprocess.run(GS + ["report", "--offline", "--quiet"], cwd=REPO, env=ENV, capture_output=True,
                   text=True, timeout=600)
ok = p.returncode == 0 and os.path.isfile(os.path.join(REPO, "out", "sizing.csv"))
ok = ok and sh("git", "init", "-q").returncode == 0 and sh("git", "add", "-A").returncode == 0 \
    and sh("git", "commit", "-q", "-m", "baseline").returncode == 0
check(ok, "setup.baseline_committed", show(p))
if not ok:
    hub.close()
    shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1)
base = git("rev-parse", "HEAD")

# the mock Hub serves the committed configs byte for byte, with checkpoints
# whose safetensors headers and Hub totals match what the committed meta.json quote
repos = mh.serve_dir(hub, os.path.join(REPO, "models"), IDS)

# ---- (a) identical upstream, two nights: nothing moves -----------------------
for night in (1, 2):
    hub.reset_log()
    p = nightly()
    tag = "identical.night%d." % night
    check(p.returncode == 0, tag + "exit0", show(p))
    check(all(re.search(r"^unchanged +%s " % re.escape(i), p.stdout, re.M) for i in IDS),
          tag + "fetch_unchanged", show(p))
    check(any("/resolve/" in r["path"] and r["status"] == 200 for r in hub.log) and hub.cdn_log,
          tag + "hub_really_asked", "hub %s cdn %s" % (hub.log, hub.cdn_log))
    check("files current" in p.stdout and "nightly: current" in p.stdout, tag + "check_passes", show(p))
    check(git("status", "--porcelain") == "", tag + "tree_clean", git("status", "--porcelain"))
    check(git("rev-parse", "HEAD") == base, tag + "no_commit", git("log", "--oneline"))
    check(all((read("models/%s/config.json" % s), read("models/%s/meta.json" % s)) == committed[s]
              for s in SLUGS), tag + "models_byte_identical", "")

# ---- a fetch failure fails the job with fetch's status ------------------------
gone = hub.repos.pop("openai-community/gpt2")
p = nightly()
check(p.returncode == 9 and "fetch failed (exit 9)" in p.stderr, "fetch_fails.exit_status", show(p))
check(git("rev-parse", "HEAD") == base and git("status", "--porcelain") == "",
      "fetch_fails.nothing_committed", git("status", "--porcelain"))
hub.add(gone)

# ---- (b) a real upstream change: the reports change and are committed --------
QWEN = "Qwen--Qwen2.5-0.5B"
new_cfg = changed_config(QWEN, "num_hidden_layers", 20)
hub.add(mh.repo_from_config("Qwen/Qwen2.5-0.5B", new_cfg, sha="2" * 40))
p = nightly()
check(p.returncode == 0 and "nightly: committed" in p.stdout, "changed.exit0_committed", show(p))
check(re.search(r"^ok +Qwen/Qwen2.5-0.5B ", p.stdout, re.M)
      and re.search(r"^unchanged +openai-community/gpt2 ", p.stdout, re.M), "changed.fetch_lines", show(p))
check("stale" in p.stdout, "changed.check_found_stale", show(p))
head = git("rev-parse", "HEAD")
check(head != base and git("rev-parse", "HEAD~1") == base, "changed.one_new_commit", git("log", "--oneline"))
files = git("show", "--name-only", "--format=", "HEAD").split()
check("models/%s/config.json" % QWEN in files and "models/%s/meta.json" % QWEN in files,
      "changed.commit_has_models", str(files))
check(any(f.startswith("out/") for f in files) and "out/sizing.csv" in files, "changed.commit_has_out", str(files))
check(not any(SLUGS[0] in f and f.startswith("models/") for f in files), "changed.gpt2_untouched", str(files))
check(git("log", "-1", "--format=%an <%ae>|%cn") == "%s <%s>|%s" % (AUTHOR + (AUTHOR[0],)),
      "changed.author", git("log", "-1", "--format=%an <%ae>|%cn"))
msg = git("log", "-1", "--format=%B")
check("Qwen/Qwen2.5-0.5B" in msg and "out/" in msg, "changed.message", msg)
check(git("status", "--porcelain") == "", "changed.tree_clean", git("status", "--porcelain"))
check(read("models/%s/config.json" % QWEN) == new_cfg, "changed.config_is_upstream", "")
meta = json.loads(read("models/%s/meta.json" % QWEN))
check(meta.get("sha") == "2" * 40 and meta["params"]["config"]["total"] < 494032768,
      "changed.meta_records_fetch", str(meta.get("sha")))
p2 = subprocess.run(GS + ["report", "--offline", "--check", "--quiet"], cwd=REPO, env=ENV,
                    capture_output=True, text=True, timeout=600)
check(p2.returncode == 0, "changed.reports_current", show(p2))

# ---- the night after: the committed state is stable ---------------------------
p = nightly()
check(p.returncode == 0 and "nightly: current" in p.stdout, "after_change.exit0_current", show(p))
check(git("rev-parse", "HEAD") == head and git("status", "--porcelain") == "",
      "after_change.no_commit_tree_clean", git("status", "--porcelain"))

# ---- --propose: the changes stay in the tree for a pull-request action ---------
hub.add(mh.repo_from_config("openai-community/gpt2",
                            changed_config(SLUGS[0], "n_positions", 2048), sha="3" * 40))
msgfile = os.path.join(tmp, "pr-message")
p = nightly("--propose", NIGHTLY_MESSAGE_FILE=msgfile)
st = git("status", "--porcelain")
check(p.returncode == 0 and "nightly: proposed" in p.stdout, "propose.exit0", show(p))
check(git("rev-parse", "HEAD") == head, "propose.no_commit", git("log", "--oneline"))
check("models/%s/config.json" % SLUGS[0] in st and "out/" in st, "propose.changes_in_tree", st)
check(os.path.isfile(msgfile) and "openai-community/gpt2" in open(msgfile).read(), "propose.message_file", "")

hub.close()
shutil.rmtree(tmp, ignore_errors=True)
sys.exit(check.status())
