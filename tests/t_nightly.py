#!/usr/bin/env python3
"""The nightly workflow: .github/workflows/nightly.yml read as data (its
container, the steps around tools/nightly.sh, the artifact and release
steps), and tools/nightly.sh itself run against the mock Hub
(tests/mock_hub.py, through HF_ENDPOINT and the real libcurl path), in a
small self-contained git repository built in a temporary directory: two of
the committed models with their committed config.json and meta.json, gpus/
and templates/ from this checkout, a small spec that commits Markdown and
publishes CSV and gzipped JSON (as sizing.json commits pages and publishes
the workbook and data), publish/ ignored by git, and out/ generated and
committed as the baseline.

  identical upstream  -> fetch says unchanged, report --check passes, the
                         tree is clean and no commit is made (night after
                         night); the published files are built, not committed;
  the Hub down        -> nothing listening, or every request answered with
                         errors: fetch exits 6, report --check still runs on
                         the committed out/ (what the fetch changed is put
                         back), nothing committed, the files published, exit 6;
                         with out/ stale it is regenerated and committed;
  changed upstream    -> the reports change and the commit step commits
                         models/ and out/ (the committed formats only); the
                         night after is quiet again;
  --propose           -> the changes stay in the tree for a pull-request action;
  a fetch failure     -> the job fails with fetch's exit status, nothing committed;
  publish_dir not ignored by git -> exit 2 before anything runs.

Prints one PASS/FAIL line per check, named nightly.<scenario>.<what>."""
import datetime
import json
import os
import re
import shutil
import socket
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
PUBLISHED = {"sizing.csv", "sizing.json.gz"}  # the formats csv and json.gz, not committed

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
    suite runs gpusizer (valgrind too); $GITHUB_OUTPUT a fresh file, whose
    lines come back as p.outputs."""
    e = dict(ENV, GPUSIZER=EXE, GS_WRAP=" ".join(WRAP),
             NIGHTLY_AUTHOR_NAME=AUTHOR[0], NIGHTLY_AUTHOR_EMAIL=AUTHOR[1],
             GITHUB_OUTPUT=os.path.join(tmp, "github-output"))
    for k in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        e.pop(k)
    e.update(env)
    open(e["GITHUB_OUTPUT"], "w").close()
    p = subprocess.run(["sh", NIGHTLY] + list(args), cwd=REPO, env=e, capture_output=True,
                       text=True, timeout=900 if WRAP else 300)
    with open(e["GITHUB_OUTPUT"]) as f:
        p.outputs = dict(ln.split("=", 1) for ln in f.read().splitlines() if "=" in ln)
    return p


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


def published_files():
    d = os.path.join(REPO, "publish")
    return {n for n in os.listdir(d) if not n.startswith(".")} if os.path.isdir(d) else set()


def committed_ok(files):
    """Files of a commit: only out/'s committed formats (Markdown, its SVG
    charts, the manifest) and models/; never a published file."""
    bad = [f for f in files if not (f.startswith("models/") or
                                    (f.startswith("out/") and re.search(r"(\.md|\.svg|/\.gpusizer-manifest)$", f)))]
    return not bad, bad


# ---- the workflow, read as data ------------------------------------------------

def yaml_load(text):
    """The subset of YAML the workflow uses: block mappings and sequences,
    plain and quoted scalars, | blocks, comments."""
    lines = text.split("\n")
    pos = [0]

    def strip_comment(s):
        out, q = [], None
        for k, c in enumerate(s):
            if q:
                q = None if c == q else q
            elif c in "\"'":
                q = c
            elif c == "#" and (k == 0 or s[k - 1] in " \t"):
                break
            out.append(c)
        return "".join(out).rstrip()

    def peek():
        while pos[0] < len(lines):
            s = strip_comment(lines[pos[0]])
            if s.strip():
                return len(s) - len(s.lstrip()), s.strip()
            pos[0] += 1
        return None

    def scalar(v):
        v = v.strip()
        return v[1:-1] if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'" else v

    def literal(ind):
        out = []
        while pos[0] < len(lines):
            raw = lines[pos[0]]
            if raw.strip() and len(raw) - len(raw.lstrip()) <= ind:
                break
            out.append(raw)
            pos[0] += 1
        n = min((len(x) - len(x.lstrip()) for x in out if x.strip()), default=0)
        return "\n".join(x[n:] for x in out).strip("\n") + "\n"

    def value(ind, rest):
        rest = rest.strip()
        pos[0] += 1
        if rest in ("|", "|-", ">", ">-"):
            return literal(ind)
        if rest:
            return scalar(rest)
        p = peek()
        if p is None or p[0] < ind or (p[0] == ind and not p[1].startswith("-")):
            return None
        return seq(p[0]) if p[1].startswith("-") else mapping(p[0])

    def mapping(ind):
        d = {}
        while True:
            p = peek()
            if p is None or p[0] != ind or p[1].startswith("- "):
                return d
            key, _, rest = p[1].partition(":")
            d[scalar(key)] = value(ind, rest)

    def seq(ind):
        out = []
        while True:
            p = peek()
            if p is None or p[0] != ind or not p[1].startswith("-"):
                return out
            item = p[1][1:].strip()
            if re.match(r"[\w.-]+:(\s|$)", item):
                lines[pos[0]] = " " * (ind + 2) + item
                out.append(mapping(ind + 2))
            else:
                pos[0] += 1
                out.append(scalar(item))

    p = peek()
    return mapping(p[0]) if p else {}


def workflow_checks():
    with open(os.path.join(TOP, ".github", "workflows", "nightly.yml")) as f:
        wf = yaml_load(f.read())
    jobs = wf.get("jobs") or {}
    job_id, job = next(((k, j) for k, j in jobs.items()
                        if any("tools/nightly.sh" in (s.get("run") or "") for s in j.get("steps") or [])),
                       (None, None))
    if not check(job is not None, "workflow.a_job_runs_tools_nightly", sorted(jobs)):
        return
    steps = job["steps"]
    at = {k: i for i, s in enumerate(steps) for k in [s.get("id")] if k}
    i_n = next(i for i, s in enumerate(steps) if "tools/nightly.sh" in (s.get("run") or ""))
    sid = steps[i_n].get("id") or ""
    cont = job.get("container")
    image = cont.get("image") if isinstance(cont, dict) else cont
    check(image in ("debian:12", "debian:bookworm") or (image or "").startswith(("debian:12", "debian:bookworm")),
          "workflow.container_debian12", "job %s runs in %r, not Debian 12 (out/ is built there)" % (job_id, image))
    check((wf.get("permissions") or {}).get("contents") == "write"
          and (job.get("env") or {}).get("SOURCE_DATE_EPOCH") == ENV["SOURCE_DATE_EPOCH"],
          "workflow.permissions_and_date", "contents: write and the fixed SOURCE_DATE_EPOCH")
    run_n = steps[i_n]["run"]
    check(sid and at.get(sid) == i_n and re.search(r"sh tools/nightly\.sh \|\| rc=\$\?", run_n)
          and re.search(r'echo "status=\$rc" >>"?\$GITHUB_OUTPUT', run_n),
          "workflow.status_recorded", "the nightly step keeps the script's status for the later steps: %r" % run_n)
    out = "steps.%s.outputs." % sid
    go_on = lambda s: ("%sstatus == '0'" % out) in (s.get("if") or "") and ("%sstatus == '6'" % out) in (s.get("if") or "")
    push = [i for i, s in enumerate(steps) if "git push" in (s.get("run") or "")]
    check(len(push) == 1 and push[0] > i_n and go_on(steps[push[0]]), "workflow.push_after_script_also_hub_down",
          "the push step runs after the script, on status 0 and 6 (out/ checked with the Hub down)")
    up = [i for i, s in enumerate(steps) if (s.get("uses") or "").startswith("actions/upload-artifact@")]
    w = steps[up[0]].get("with") or {} if up else {}
    check(len(up) == 1 and up[0] > i_n and go_on(steps[up[0]])
          and re.fullmatch(r"gpusizer-reports-\$\{\{ %sdate \}\}" % re.escape(out), w.get("name") or "")
          and ("${{ %spublish }}" % out) in (w.get("path") or "") and w.get("if-no-files-found") == "error",
          "workflow.artifact_step", "upload-artifact of the script's publish directory, named "
          "gpusizer-reports-<date>, on status 0 and 6: %r" % (w,))
    last = steps[-1]
    check(("%sstatus != '0'" % out) in (last.get("if") or "") and ("exit ${{ %sstatus }}" % out) in (last.get("run") or ""),
          "workflow.fails_with_status_last", "the last step fails the job with the script's status: %r" % (last,))
    check(not any(re.search(r"\bgit (add|commit)\b", s.get("run") or "") for s in steps),
          "workflow.commit_set_is_the_script's", "no step but tools/nightly.sh adds or commits files")
    check(all((job.get("outputs") or {}).get(k) == "${{ %s%s }}" % (out, k) for k in ("status", "date", "commit", "publish")),
          "workflow.job_outputs", job.get("outputs"))
    rel = [(k, j) for k, j in jobs.items() if j.get("needs") in (job_id, [job_id])]
    ok = False
    for _, j in rel:
        ss = j.get("steps") or []
        dl = [s for s in ss if (s.get("uses") or "").startswith("actions/download-artifact@")]
        up_rel = [s for s in ss if re.search(r"gh release upload reports .*--clobber", s.get("run") or "")]
        ok = ok or (dl and (dl[0].get("with") or {}).get("name") == "gpusizer-reports-${{ needs.%s.outputs.date }}" % job_id
                    and up_rel and "'6'" in (j.get("if") or "") and "!cancelled()" in (j.get("if") or ""))
    check(ok, "workflow.release_assets", "a job after %s downloads the night's artifact and replaces the "
          "release \"reports\"'s assets (also after a Hub outage)" % job_id)


workflow_checks()

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
        "formats": ["md", "csv", "json.gz"], "commit": ["md"], "out": "out", "publish_dir": "publish",
        "models_dir": "models", "gpus_dir": "gpus"}
with open(os.path.join(REPO, "sizing.json"), "w") as f:
    json.dump(SPEC, f, indent=2)
    f.write("\n")
with open(os.path.join(REPO, ".gitignore"), "w") as f:
    f.write("/publish/\n")
committed = {s: (read("models/%s/config.json" % s), read("models/%s/meta.json" % s)) for s in SLUGS}
p = subprocess.run(GS + ["report", "--offline", "--quiet"], cwd=REPO, env=ENV, capture_output=True,
                   text=True, timeout=600)
ok = p.returncode == 0 and os.path.isfile(os.path.join(REPO, "out", "index.md")) and published_files() == PUBLISHED
ok = ok and sh("git", "init", "-q").returncode == 0 and sh("git", "add", "-A").returncode == 0 \
    and sh("git", "commit", "-q", "-m", "baseline").returncode == 0
check(ok, "setup.baseline_committed", show(p))
if not ok:
    hub.close()
    shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1)
base = git("rev-parse", "HEAD")
tracked = git("ls-files").split()
check(committed_ok([f for f in tracked if f.startswith("out/")])[0] and not any(f.startswith("publish/") for f in tracked),
      "setup.out_holds_the_committed_formats_only", str(tracked))

# the mock Hub serves the committed configs byte for byte, with checkpoints
# whose safetensors headers and Hub totals match what the committed meta.json quote
repos = mh.serve_dir(hub, os.path.join(REPO, "models"), IDS)
today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")


def quiet_night(tag, p, rc=0):
    """A night that commits nothing: exit rc, report --check ran and passed,
    the tree is clean, HEAD unchanged, the models byte-identical, the
    published files built and reported to the workflow."""
    head = git("rev-parse", "HEAD")
    check(p.returncode == rc, tag + "exit%d" % rc, show(p))
    check("files current" in p.stdout and "nightly: current" in p.stdout, tag + "check_passes", show(p))
    check(git("status", "--porcelain") == "", tag + "tree_clean", git("status", "--porcelain"))
    check(all((read("models/%s/config.json" % s), read("models/%s/meta.json" % s)) == committed[s]
              for s in SLUGS), tag + "models_byte_identical", "")
    check(published_files() == PUBLISHED and p.outputs.get("publish") == "publish",
          tag + "published_built", "%s %s" % (sorted(published_files()), p.outputs))
    check(p.outputs.get("date") == today and p.outputs.get("result") == "current" and p.outputs.get("commit") == head,
          tag + "workflow_outputs", p.outputs)


# ---- (a) identical upstream, two nights: nothing moves -----------------------
for night in (1, 2):
    hub.reset_log()
    shutil.rmtree(os.path.join(REPO, "publish"), ignore_errors=True)
    p = nightly()
    tag = "identical.night%d." % night
    quiet_night(tag, p)
    check(all(re.search(r"^unchanged +%s " % re.escape(i), p.stdout, re.M) for i in IDS),
          tag + "fetch_unchanged", show(p))
    check(any("/resolve/" in r["path"] and r["status"] == 200 for r in hub.log) and hub.cdn_log,
          tag + "hub_really_asked", "hub %s cdn %s" % (hub.log, hub.cdn_log))
    check(git("rev-parse", "HEAD") == base, tag + "no_commit", git("log", "--oneline"))

# ---- the Hub down: nothing listening ----------------------------------------
s = socket.socket()
s.bind(("127.0.0.1", 0))
dead = "http://127.0.0.1:%d" % s.getsockname()[1]
s.close()  # nothing listens there now
shutil.rmtree(os.path.join(REPO, "publish"), ignore_errors=True)
p = nightly(HF_ENDPOINT=dead)
quiet_night("hub_down.refused.", p, rc=6)
check(p.outputs.get("fetch") == "6" and "could not be reached" in p.stderr, "hub_down.refused.says_so", show(p))
check(git("rev-parse", "HEAD") == base, "hub_down.refused.no_commit", git("log", "--oneline"))

# ---- the Hub down: every request answered with errors, after one model's
# new config came through: the fetch's change is put back -------------------
QWEN = "Qwen--Qwen2.5-0.5B"
hub.add(mh.repo_from_config("Qwen/Qwen2.5-0.5B", changed_config(QWEN, "num_hidden_layers", 20), sha="4" * 40))
for fname in ("api", "config.json"):
    hub.fault("openai-community/gpt2", fname, "500*")
p = nightly()
quiet_night("hub_down.errors.", p, rc=6)
check(re.search(r"^ok +Qwen/Qwen2.5-0.5B ", p.stdout, re.M) and re.search(r"^failed +openai-community/gpt2 ", p.stdout, re.M),
      "hub_down.errors.fetch_partly_through", show(p))
check(git("rev-parse", "HEAD") == base, "hub_down.errors.no_commit", git("log", "--oneline"))
hub.faults.clear()
hub.add(repos[1])

# ---- the Hub down and out/ stale (a GPU file changed without make report):
# regenerated from the committed models and committed --------------------------
gp = os.path.join(REPO, "gpus", "rtx-4090.json")
g = json.loads(read("gpus/rtx-4090.json"))
g["usable_mib"] -= 3072
with open(gp, "w") as f:
    json.dump(g, f, indent=2)
    f.write("\n")
sh("git", "commit", "-q", "-am", "rtx-4090: less usable memory, out/ not regenerated")
before_csv = read("publish/sizing.csv")
gpu_commit = git("rev-parse", "HEAD")
p = nightly(HF_ENDPOINT=dead)
check(p.returncode == 6 and "nightly: committed" in p.stdout and "stale" in p.stdout, "hub_down.stale.exit6_committed", show(p))
files = git("show", "--name-only", "--format=", "HEAD").split()
check(git("rev-parse", "HEAD~1") == gpu_commit and files and all(f.startswith("out/") for f in files)
      and committed_ok(files)[0], "hub_down.stale.commit_is_out_only", str(files))
check("could not be reached" in git("log", "-1", "--format=%B"), "hub_down.stale.message", git("log", "-1", "--format=%B"))
check(read("publish/sizing.csv") != before_csv and git("status", "--porcelain") == "",
      "hub_down.stale.published_regenerated_tree_clean", git("status", "--porcelain"))
p2 = subprocess.run(GS + ["report", "--offline", "--check", "--quiet"], cwd=REPO, env=ENV,
                    capture_output=True, text=True, timeout=600)
check(p2.returncode == 0, "hub_down.stale.reports_current", show(p2))
base = git("rev-parse", "HEAD")

# ---- a fetch failure fails the job with fetch's status ------------------------
gone = hub.repos.pop("openai-community/gpt2")
p = nightly()
check(p.returncode == 9 and "fetch failed (exit 9)" in p.stderr, "fetch_fails.exit_status", show(p))
check(git("rev-parse", "HEAD") == base and git("status", "--porcelain") == "",
      "fetch_fails.nothing_committed", git("status", "--porcelain"))
hub.add(gone)

# ---- (b) a real upstream change: the reports change and are committed --------
new_cfg = changed_config(QWEN, "num_hidden_layers", 20)
hub.add(mh.repo_from_config("Qwen/Qwen2.5-0.5B", new_cfg, sha="2" * 40))
before_csv = read("publish/sizing.csv")
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
ok, bad = committed_ok(files)
check(ok and "out/models/%s.md" % QWEN in files and "out/index.md" in files, "changed.commit_set_committed_formats_only",
      "files outside the committed formats: %s" % bad if bad else str(files))
check(not any(SLUGS[0] in f and f.startswith("models/") for f in files), "changed.gpt2_untouched", str(files))
check(read("publish/sizing.csv") != before_csv and published_files() == PUBLISHED
      and p.outputs.get("result") == "committed" and p.outputs.get("commit") == head,
      "changed.published_regenerated", "%s %s" % (sorted(published_files()), p.outputs))
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
check("models/%s/config.json" % SLUGS[0] in st and "out/" in st and "publish" not in st, "propose.changes_in_tree", st)
check(os.path.isfile(msgfile) and "openai-community/gpt2" in open(msgfile).read(), "propose.message_file", "")
sh("git", "checkout", "-q", "--", ".")

# ---- a publish directory git would commit: refused before anything runs -------
with open(os.path.join(REPO, "other.json"), "w") as f:
    json.dump(dict(SPEC, publish_dir="dist"), f)
p = nightly("--spec", "other.json")
check(p.returncode == 2 and "not ignored by git" in p.stderr and "fetch" not in p.stdout,
      "publish_not_ignored.refused", show(p))

hub.close()
shutil.rmtree(tmp, ignore_errors=True)
sys.exit(check.status())
