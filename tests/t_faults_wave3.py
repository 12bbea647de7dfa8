#!/usr/bin/env python3
"""Issue 34, "nothing lost, nothing leaked, wave 3": each of its 13 findings
with the attack itself as the test, named faults_w3.itemN.what:

  item1   a --check's staging in a shared $TMPDIR: another user's
          gpusizer-check.* directories are never removed, not even while
          that user swaps a subdirectory for a symbolic link to root's files
          (the attacker runs as uid 65534 when the test runs as root)
  item2   a file that is not gpusizer's in the way (a hand-written
          index.md) stops the run, exit 4, unless --force; "out" may not be
          ".", the spec's directory, gpus/, models/ or templates/
  item3   a file the user restores at a path an earlier run wrote (its bytes
          are not what gpusizer wrote) is kept by the next run
  item4   verify never writes out/verify/*.md or *.json through a symbolic
          link
  item5   new files follow the umask; a replaced file keeps its mode; a
          symlinked store's 0600 target stays 0600
  item6   an HF_ENDPOINT password holding '#', '/' and '?' never reaches a
          message
  item7   a token a server echoes at the 299-byte cut of its error text is
          redacted whole (a Hub token and a mirror's)
  item8   a file named as a config that is not JSON (a credentials file) has
          none of its bytes quoted
  item9   escape sequences in a Hub config's model_type, a local config's or
          a GPU file's name never reach the terminal raw
  item10  --gpu-counts "8 :pipeline" and "1e3" are errors (exit 2)
  item11  a GPU file's bf16_tflops of 1e308 is refused (exit 3), never a
          -nan in estimate --json
  item12  per-GPU DDP memory of the two MoE models does not change with the
          replica count (mixed-bf16: the fp32 gradient is a replica's whole)
  item13  a FIFO as the token file does not hang fetch; 40 nested for-loops
          in a template stop with an error; a harness descendant that
          leaves verify's process group (setsid) and holds its pipes does
          not keep verify alive past the harness's end, --timeout or SIGTERM
  hooks   the release binary ($GPUSIZER) carries no fault hook: the test
          build's GPUSIZER_FAULT and the old GPUSIZER_TEST_* variables do
          nothing to it
"""
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mock_hub as mh  # noqa: E402
from lib import EXE, FAULT_EXE, TOP, WRAP, Checks, clean_env  # noqa: E402

check = Checks("faults_w3.", why_on_pass=True)
TIMEOUT = 900 if WRAP else 120
SLACK = 20 if WRAP else 0
CFG_A = os.path.join(TOP, "tests", "bad", "ok-llama.json")
CFG_B = os.path.join(TOP, "tests", "fixtures", "configs", "olmo-1b-shaped.json")
GPUS = os.path.join(TOP, "gpus")
MODELS = os.path.join(TOP, "models")
STANDIN = os.path.join(TOP, "tests", "fixtures", "harness-standin.py")
FAKE_GPU = "NVIDIA Fake,%d,1.0,12.4" % (24 << 30)
ESC = "\x1b"
OTHER_UID = 65534


def gs(tmp, args, exe=EXE, timeout=TIMEOUT, cwd=None, env=None, umask=None, **extra):
    e = clean_env(tmp, **extra) if env is None else env
    pre = (lambda: os.umask(umask)) if umask is not None else None
    try:
        p = subprocess.run(WRAP + [exe] + args, cwd=cwd or TOP, env=e, capture_output=True,
                           timeout=timeout, preexec_fn=pre)
    except subprocess.TimeoutExpired:
        return None, "", "timed out after %d s" % timeout
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def raw(tmp, args, **kw):
    """gs, with stdout and stderr as bytes (escape sequences are bytes)."""
    e = clean_env(tmp, **kw.pop("env_extra", {}))
    try:
        p = subprocess.run(WRAP + [EXE] + args, cwd=TOP, env=e, capture_output=True, timeout=TIMEOUT, **kw)
    except subprocess.TimeoutExpired:
        return None, b"", b"timed out"
    return p.returncode, p.stdout, p.stderr


def show(rc, so, se):
    return "exit %s; %s" % (rc, (se or so).strip()[-300:])


def spec(tmp, name, models=(CFG_A,), out="out", formats=("md", "json"), **extra):
    d = os.path.join(tmp, name)
    os.makedirs(d, exist_ok=True)
    s = {"version": 1, "date": "2026-01-01", "models": list(models), "gpus": ["t4", "a100-80gb"],
         "formats": list(formats), "axes": {"method": ["full", "qlora"], "batch": [1], "seq": [512]},
         "out": out, "gpus_dir": GPUS}
    s.update(extra)
    p = os.path.join(d, "sizing.json")
    with open(p, "w") as f:
        json.dump(s, f)
    return p


def report(tmp, sp, *args, **kw):
    return gs(tmp, ["report", "--spec", sp, "--offline", "--quiet"] + list(args), **kw)


def snapshot(d):
    out = {}
    for root, _, files in os.walk(d):
        for n in files:
            p = os.path.join(root, n)
            if os.path.islink(p):
                out[os.path.relpath(p, d)] = "link"
                continue
            with open(p, "rb") as f:
                out[os.path.relpath(p, d)] = f.read()
    return out


# ---------------------------------------------------------------- item 1

ATTACKER = r'''
import os, sys, time
T, V, stop, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sub = os.path.join(T, "gpusizer-check.evil", "new", "sub")
def fill():
    os.makedirs(sub, exist_ok=True)
    for i in range(n):
        open(os.path.join(sub, "f%d" % i), "w").close()
fill()
open(stop + ".ready", "w").close()
# mostly a link, a directory now and then: a walker that opened the
# directory goes on removing "sub/fN" by path, through the link
while not os.path.exists(stop):
    try:
        os.rename(sub, sub + ".real")
        os.symlink(V, sub)
        time.sleep(0.002)
        os.unlink(sub)
        os.rename(sub + ".real", sub)
        time.sleep(0.0002)
    except OSError:
        try:
            if os.path.islink(sub):
                os.unlink(sub)
            if os.path.isdir(sub + ".real") and not os.path.exists(sub):
                os.rename(sub + ".real", sub)
            fill()
        except OSError:
            pass
'''


def item1(tmp):
    root = os.geteuid() == 0
    t = os.path.join(tmp, "shared-tmp")
    os.makedirs(t)
    os.chmod(tmp, 0o755)
    os.chmod(t, 0o1777)
    victim = os.path.join(tmp, "victim")
    os.makedirs(victim)
    n = 3000
    for i in range(n):
        with open(os.path.join(victim, "f%d" % i), "w") as f:
            f.write("root's file %d\n" % i)
    other = os.path.join(t, "gpusizer-check.other")
    os.makedirs(os.path.join(other, "new"))
    with open(os.path.join(other, "new", "index.md"), "w") as f:
        f.write("another user's work\n")
    script = os.path.join(tmp, "attacker.py")
    with open(script, "w") as f:
        f.write(ATTACKER)
    stop = os.path.join(t, "stop-attacker")
    who = {}
    if root:
        for p in (other, os.path.join(other, "new"), os.path.join(other, "new", "index.md")):
            os.chown(p, OTHER_UID, OTHER_UID)
        who = {"user": OTHER_UID, "group": OTHER_UID, "extra_groups": []}
    # the other user runs the system's Python (this one's may sit under /root)
    py = "/usr/bin/python3" if root and os.path.exists("/usr/bin/python3") else sys.executable
    att = subprocess.Popen([py, script, t, victim, stop, str(n)], **who)
    end = time.time() + 30
    while time.time() < end and not os.path.exists(stop + ".ready"):
        time.sleep(0.05)
    ready = os.path.exists(stop + ".ready")
    sp = spec(tmp, "i1", formats=("json",))
    out = os.path.join(tmp, "i1", "out")
    rcs = []
    try:
        for k in range(10):
            rc, so, se = report(tmp, sp, *(["--check"] if k % 2 else []), TMPDIR=t)
            rcs.append(rc)
    finally:
        open(stop, "w").close()
        att.wait(timeout=30)
    left = len([x for x in os.listdir(victim)])
    evil = os.path.join(t, "gpusizer-check.evil")
    mine = [x for x in os.listdir(t) if x.startswith("gpusizer-check.") and x not in ("gpusizer-check.evil",
                                                                                     "gpusizer-check.other")]
    as_whom = "a second user (uid %d)" % OTHER_UID if root else "the same user (not root: no second uid)"
    check(ready and all(rc in (0, 5) for rc in rcs) and rcs[0] == 0 and left == n,
          "item1.symlink_swap_deletes_nothing_outside",
          "10 runs (%s) against %s swapping a subdirectory for a link%s: %d of %d files left"
          % (rcs, as_whom, "" if ready else " (NEVER READY)", left, n))
    check(os.path.exists(os.path.join(other, "new", "index.md")) and os.path.isdir(evil),
          "item1.others_staging_dirs_untouched",
          "gpusizer-check.other and .evil of %s %s" % (as_whom, "kept" if os.path.isdir(evil) else "REMOVED"))
    check(mine == [] and os.path.isfile(os.path.join(out, "sizing.json")),
          "item1.own_staging_removed", "left in $TMPDIR by the runs: %s" % mine)


# ---------------------------------------------------------------- item 2

def item2(tmp):
    # "out": "." beside the spec: its own sizing.json would be overwritten
    sp = spec(tmp, "i2dot", out=".")
    before = open(sp, "rb").read()
    rc, so, se = report(tmp, sp)
    check(rc == 3 and "out" in se and open(sp, "rb").read() == before and
          not os.path.exists(os.path.join(tmp, "i2dot", "index.md")),
          "item2.out_dot_refused", show(rc, so, se))
    sp = spec(tmp, "i2")
    for bad in (".", os.path.join(tmp, "i2"), GPUS, MODELS, os.path.join(TOP, "templates")):
        snap = snapshot(bad) if bad != "." else None
        rc, so, se = report(tmp, sp, "--out", bad, cwd=os.path.join(tmp, "i2") if bad == "." else None)
        same = snap is None or snapshot(bad) == snap
        check(rc == 2 and "may not be" in se and same and not os.path.exists(os.path.join(tmp, "i2", "index.md")),
              "item2.out_refused:%s" % (os.path.relpath(bad, TOP) if bad.startswith(TOP) else
                                        "spec-dir" if bad != "." else "."),
              show(rc, so, se))
    # a hand-written index.md where the report's goes
    out = os.path.join(tmp, "i2", "mine")
    os.makedirs(out)
    with open(os.path.join(out, "index.md"), "w") as f:
        f.write("# My notes\n")
    rc, so, se = report(tmp, sp, "--out", out)
    check(rc == 4 and "index.md" in se and "--force" in se and
          open(os.path.join(out, "index.md")).read() == "# My notes\n" and
          not os.path.exists(os.path.join(out, "sizing.json")),
          "item2.user_file_in_the_way_exit4", show(rc, so, se))
    rc, so, se = report(tmp, sp, "--out", out, "--force")
    check(rc == 0 and "Generated by gpusizer" in open(os.path.join(out, "index.md")).read(),
          "item2.force_replaces", show(rc, so, se))


# ---------------------------------------------------------------- item 3

def item3(tmp):
    s12 = spec(tmp, "i3", models=(CFG_A, CFG_B))
    s1 = os.path.join(tmp, "i3", "one.json")
    with open(s12) as f:
        d = json.load(f)
    d["models"] = [CFG_A]
    with open(s1, "w") as f:
        json.dump(d, f)
    out = os.path.join(tmp, "i3", "out")
    rc, so, se = report(tmp, s12)
    page = os.path.join(out, "models", "olmo-1b-shaped.md")
    ok = rc == 0 and os.path.isfile(page)
    # the user restores an older version of the page (from git, say): not
    # the bytes gpusizer wrote last
    restored = open(page).read().replace("olmo", "OLMo (my annotated copy)") if ok else ""
    with open(page, "w") as f:
        f.write(restored)
    rc, so, se = report(tmp, s1, "--json")
    try:
        kept = json.loads(so).get("kept")
    except ValueError:
        kept = None
    man = open(os.path.join(out, ".gpusizer-manifest")).read() if os.path.exists(
        os.path.join(out, ".gpusizer-manifest")) else ""
    check(ok and rc == 0 and os.path.isfile(page) and open(page).read() == restored and kept == 1 and
          "olmo-1b-shaped.md" not in man,
          "item3.restored_file_kept", "exit %s, kept %r, page %s" % (rc, kept, "kept" if os.path.isfile(page)
                                                                     else "REMOVED"))
    rc, so, se = report(tmp, s1)
    check(rc == 0 and os.path.isfile(page) and open(page).read() == restored,
          "item3.kept_on_later_runs", show(rc, so, se))
    # what gpusizer did write (the bytes the manifest records) still goes
    comp = os.path.join(out, "models", "olmo-1b-shaped-components.svg")
    check(not os.path.exists(comp), "item3.unchanged_stale_file_removed", "components chart of the dropped model")


# ---------------------------------------------------------------- item 4

def verify(tmp, out, *extra, **env):
    return gs(tmp, ["verify", "Qwen/Qwen2.5-0.5B", "--offline", "--models-dir", MODELS, "--method", "lora",
                    "--seq", "512", "--harness", STANDIN, "--no-store", "--out", out, "--json"] + list(extra),
              GPUSIZER_FAKE_GPU=FAKE_GPU, **env)


def item4(tmp):
    out = os.path.join(tmp, "i4", "out")
    rc, so, se = verify(tmp, out)
    names = sorted(os.listdir(os.path.join(out, "verify"))) if os.path.isdir(os.path.join(out, "verify")) else []
    pages = [n for n in names if n.endswith((".md", ".json")) and not n.startswith(".")]
    check(rc in (0, 12) and len(pages) == 2, "item4.setup", show(rc, so, se) + " %s" % names)
    if len(pages) != 2:
        return
    victim = os.path.join(tmp, "i4", "victim.txt")
    for p in pages:
        with open(victim, "w") as f:
            f.write("not gpusizer's\n")
        os.unlink(os.path.join(out, "verify", p))
        os.symlink(victim, os.path.join(out, "verify", p))
        rc, so, se = verify(tmp, out)
        check(rc == 4 and "symbolic link" in se and open(victim).read() == "not gpusizer's\n",
              "item4.no_write_through_link:%s" % p.rsplit(".", 1)[1], show(rc, so, se))
        os.unlink(os.path.join(out, "verify", p))
    # out/verify itself a link elsewhere
    out2 = os.path.join(tmp, "i4", "out2")
    elsewhere = os.path.join(tmp, "i4", "elsewhere")
    os.makedirs(out2)
    os.makedirs(elsewhere)
    os.symlink(elsewhere, os.path.join(out2, "verify"))
    rc, so, se = verify(tmp, out2)
    check(rc == 4 and "symbolic link" in se and os.listdir(elsewhere) == [],
          "item4.verify_dir_link_refused", show(rc, so, se))
    # a page in the way costs nothing measured: the record is stored, exit 4
    mine = os.path.join(out, "verify", pages[0])
    with open(mine, "w") as f:
        f.write("my own notes\n")
    store = os.path.join(tmp, "i4", "store.jsonl")
    rc, so, se = gs(tmp, ["verify", "Qwen/Qwen2.5-0.5B", "--offline", "--models-dir", MODELS, "--method", "lora",
                          "--seq", "512", "--harness", STANDIN, "--store", store, "--store-standin", "--out", out],
                    GPUSIZER_FAKE_GPU=FAKE_GPU)
    stored = open(store).read().count("\n") if os.path.exists(store) else 0
    check(rc == 4 and "in the way" in se and stored == 1 and open(mine).read() == "my own notes\n",
          "item4.page_in_the_way_keeps_measurement", "exit %s, %d record(s) stored; %s" % (rc, stored, se.strip()[-200:]))
    os.unlink(mine)
    # a rerun of the same row replaces its own files, keeps another row's
    other = os.path.join(out, "verify", "another-row.md")
    with open(other, "w") as f:
        f.write("another row's page\n")
    rc, so, se = verify(tmp, out, "--force")
    rc2, so2, se2 = verify(tmp, out)
    check(rc in (0, 12) and rc2 in (0, 12) and os.path.isfile(other),
          "item4.rerun_replaces_own_keeps_others", show(rc2, so2, se2))


# ---------------------------------------------------------------- item 5

def modes(d):
    return {os.path.relpath(os.path.join(r, n), d): stat.S_IMODE(os.lstat(os.path.join(r, n)).st_mode)
            for r, _, fs in os.walk(d) for n in fs}


def item5(tmp):
    sp = spec(tmp, "i5")
    out = os.path.join(tmp, "i5", "out")
    rc, so, se = report(tmp, sp, umask=0o077)
    m = modes(out)
    check(rc == 0 and m and all(v == 0o600 for v in m.values()), "item5.new_files_follow_umask",
          "umask 077: %s" % sorted(set(oct(v) for v in m.values())))
    idx = os.path.join(out, "index.md")
    os.chmod(idx, 0o640)
    with open(sp) as f:
        d = json.load(f)
    d["axes"]["seq"] = [1024]
    with open(sp, "w") as f:
        json.dump(d, f)
    before = open(idx, "rb").read()
    rc, so, se = report(tmp, sp, umask=0o022)
    check(rc == 0 and open(idx, "rb").read() != before and stat.S_IMODE(os.stat(idx).st_mode) == 0o640,
          "item5.replaced_file_keeps_mode", "index.md %s after it was replaced" % oct(stat.S_IMODE(os.stat(idx).st_mode)))
    # a store that is a link to a private file
    target = os.path.join(tmp, "i5", "private", "verified.jsonl")
    os.makedirs(os.path.dirname(target))
    open(target, "w").close()
    os.chmod(target, 0o600)
    link = os.path.join(tmp, "i5", "store.jsonl")
    os.symlink(target, link)
    rc, so, se = gs(tmp, ["verify", "Qwen/Qwen2.5-0.5B", "--offline", "--models-dir", MODELS, "--method", "lora",
                          "--seq", "512", "--harness", STANDIN, "--store", link, "--store-standin",
                          "--out", os.path.join(tmp, "i5", "vout")], umask=0o022, GPUSIZER_FAKE_GPU=FAKE_GPU)
    lines = open(target).read().splitlines()
    check(rc in (0, 12) and os.path.islink(link) and len(lines) == 1 and
          stat.S_IMODE(os.stat(target).st_mode) == 0o600,
          "item5.linked_store_target_stays_0600",
          "exit %s, %d line(s), target %s" % (rc, len(lines), oct(stat.S_IMODE(os.stat(target).st_mode))))


# ---------------------------------------------------------------- hub items

def cfg(**kw):
    c = {"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
         "intermediate_size": 128, "vocab_size": 100, "tie_word_embeddings": True}
    c.update(kw)
    return c


def hub_env(tmp, hub, **kw):
    e = clean_env(tmp, HF_HUB_OFFLINE="0", HF_ENDPOINT=hub.url, GPUSIZER_RETRIES="0",
                  GPUSIZER_MAX_RETRY_WAIT="0.05", GPUSIZER_TIMEOUT="10" if WRAP else "5")
    e.pop("HF_HUB_OFFLINE", None)
    e.update(kw)
    return e


def fetch(tmp, hub, args, md, timeout=60, **kw):
    return gs(tmp, ["fetch", "--models-dir", md] + args, env=hub_env(tmp, hub, **kw), timeout=timeout + SLACK)


def pieces(secret, k=5):
    """Every k-long piece of secret: none may appear in a message."""
    return {secret[i:i + k] for i in range(len(secret) - k + 1)}


def hub_items(tmp):
    hub = mh.MockHub()
    try:
        md = os.path.join(tmp, "hub-models")
        hub.add(mh.Repo("mock/ok", cfg(), st=mh.VirtualFile(mh.llama_tensors(cfg()))))
        # ---- item 6: a password with '#', '/' and '?' in HF_ENDPOINT
        pw = "Pz9#Secr/etQ?Wk7"
        for ep_pw in (pw, "Pz9Secret/Wk7", "Pz9Sec?retWk7"):
            ep = hub.url.replace("http://", "http://agent:%s@" % ep_pw)
            rc, so, se = fetch(tmp, hub, ["mock/ok"], md + "-ep", HF_ENDPOINT=ep)
            leaked = sorted(p for p in pieces("agent:" + ep_pw) if p in so + se)
            check(rc is not None and not leaked, "item6.endpoint_password_redacted:%s" % re.sub(r"[^#/?]", "", ep_pw),
                  "exit %s; leaked %s; %s" % (rc, leaked[:4], (se or so).strip()[-200:]))
        # ---- item 7: the token echoed at the 299-byte cut of the error text
        for kind, tok in (("hub", "hf_" + "Ab3Cd4Ef5Gh6Ij7Kl8Mn9Op0Qr1St2Uv3"),
                          ("mirror", "Mq7Tok-Zx81Yw72Vu63Ts54Rq45")):
            hub.valid_tokens.add(tok)
            for cut in (2, 6, 12):
                rid = "mock/cut%s%d" % (kind, cut)
                hub.add(mh.Repo(rid, cfg()))
                text = "denied for " + "x" * (299 - 11 - len(tok) + cut) + tok
                hub.fault(rid, "api", "say403:" + text)
                rc, so, se = fetch(tmp, hub, [rid], md + "-cut", HF_TOKEN=tok)
                leaked = sorted(p for p in pieces(tok[3:] if kind == "hub" else tok) if p in so + se)
                check(rc == 8 and not leaked, "item7.token_at_cut_redacted:%s-%d" % (kind, cut),
                      "exit %s; leaked %s" % (rc, leaked[:3]))
        # ---- item 9: escape sequences in a Hub config's model_type
        evil = cfg(model_type="llama" + ESC + "]0;pwned" + "\x07" + ESC + "[2J")
        hub.add(mh.Repo("mock/esc", evil, st=mh.VirtualFile(mh.llama_tensors(cfg()))))
        e = hub_env(tmp, hub)
        p = subprocess.run(WRAP + [EXE, "fetch", "--models-dir", md, "mock/esc"], env=e, capture_output=True,
                           timeout=60 + SLACK)
        stored = os.path.exists(os.path.join(md, "mock--esc", "config.json"))
        p2 = subprocess.run(WRAP + [EXE, "list", "models", "--models-dir", md], env=e, capture_output=True,
                            timeout=60 + SLACK)
        check(p.returncode == 3 and not stored and ESC.encode() not in p.stdout + p.stderr and
              b"\\x1b" in p.stderr and ESC.encode() not in p2.stdout + p2.stderr,
              "item9.hub_model_type_escapes",
              "fetch exit %d, stored %s; list models exit %d; raw ESC printed: %s; %s"
              % (p.returncode, stored, p2.returncode, ESC.encode() in p.stdout + p.stderr + p2.stdout + p2.stderr,
                 p.stderr.decode("utf-8", "replace").strip()[-160:]))
        # ---- item 13: a FIFO as the token file
        fifo = os.path.join(tmp, "token-fifo")
        os.mkfifo(fifo)
        env = hub_env(tmp, hub, HF_TOKEN_PATH=fifo)
        t0 = time.monotonic()
        try:
            p = subprocess.run(WRAP + [EXE, "fetch", "--models-dir", md, "mock/ok"], env=env, capture_output=True,
                               text=True, timeout=20 + SLACK)
            rc, se = p.returncode, p.stderr
        except subprocess.TimeoutExpired:
            rc, se = None, "still blocked after %d s" % (20 + SLACK)
            try:  # a writer lets a blocked open go
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                os.close(fd)
            except OSError:
                pass
        check(rc == 0 and "not a regular file" in se, "item13.fifo_token_file_no_hang",
              "exit %s in %.1f s: %s" % (rc, time.monotonic() - t0, se.strip()[-200:]))
    finally:
        hub.close()


# ---------------------------------------------------------------- item 8

def item8(tmp):
    creds = os.path.join(tmp, "i8", "credentials")
    os.makedirs(os.path.dirname(creds))
    secret = "AKIAZZSECRETKEY123"
    with open(creds, "w") as f:
        f.write("aws_secret_access_key=%s\n" % secret)
    sp = spec(tmp, "i8", models=(creds,))
    rc, so, se = report(tmp, sp)
    rc2, so2, se2 = gs(tmp, ["estimate", "--config", creds, "--offline"])
    leaked = sorted(p for p in pieces("aws_secret_access_key=" + secret, 4) if p in so + se + so2 + se2)
    check(rc == 3 and rc2 == 3 and "credentials" in se and not leaked, "item8.no_excerpt_of_unparsed_file",
          "report exit %s, estimate exit %s; quoted %s; %s" % (rc, rc2, leaked[:4], se2.strip()[-160:]))


# ---------------------------------------------------------------- item 9 (local)

def item9(tmp):
    d = os.path.join(tmp, "i9")
    os.makedirs(d)
    c = json.load(open(CFG_A))
    c["model_type"] = "llama" + ESC + "[31m" + ESC + "]0;title\x07"
    p = os.path.join(d, "config.json")
    with open(p, "w") as f:
        json.dump(c, f)
    rc, so, se = raw(tmp, ["estimate", "--config", p, "--offline"])
    check(rc == 3 and ESC.encode() not in so + se and b"\\x1b" in se, "item9.config_model_type_escaped",
          "exit %s; raw ESC printed %s; %r" % (rc, ESC.encode() in so + se, se[-160:]))
    g = os.path.join(d, "gpus")
    shutil.copytree(GPUS, g)
    for name, bad in (("esc", "H100 " + ESC + "[2J" + ESC + "[H"), ("c1", "H100 \u009b31m"),
                      ("bell", "H100\x07")):
        gf = json.load(open(os.path.join(GPUS, "h100-sxm.json")))
        gf["name"] = bad
        with open(os.path.join(g, "h100-sxm.json"), "w") as f:
            json.dump(gf, f)
        rc, so, se = raw(tmp, ["list", "gpus", "--gpus-dir", g])
        bad_b = bad.encode()
        check(rc == 3 and bad_b not in so + se and ESC.encode() not in so + se and b"\xc2\x9b" not in so + se,
              "item9.gpu_name_escaped:%s" % name, "exit %s; %r" % (rc, (se or so)[-200:]))


# ---------------------------------------------------------------- item 10

def item10(tmp):
    sp = spec(tmp, "i10")
    for v in ("8 :pipeline", "1e3", "+8", "8:zero3:2x", " 8", "8:", "8:zero1:2:8", "8:zero1:2:", "8:zero1:2:-2"):
        rc, so, se = report(tmp, sp, "--gpu-counts", v, "--check")
        check(rc == 2 and "--gpu-counts" in se, "item10.gpu_counts_strict:%s" % v.replace(" ", "_"), show(rc, so, se))
    for flag, v in (("--batches", " 4"), ("--seqs", "1e3"), ("--lora-r", "+16")):
        rc, so, se = report(tmp, sp, flag, v, "--check")
        check(rc == 2, "item10.count_list_strict:%s=%s" % (flag, v.replace(" ", "_")), show(rc, so, se))
    rc, so, se = report(tmp, sp, "--gpu-counts", "1,8:pipeline,4:zero3:2,8:zero1:2:2")
    check(rc == 0, "item10.gpu_counts_well_formed_accepted", show(rc, so, se))


# ---------------------------------------------------------------- item 11

def item11(tmp):
    g = os.path.join(tmp, "i11")
    os.makedirs(g)
    gf = json.load(open(os.path.join(GPUS, "h100-sxm.json")))
    for key, v in (("bf16_tflops", 1e308), ("bandwidth_gbs", 1e300), ("fp8_tflops", 1e308)):
        x = dict(gf)
        x[key] = v
        with open(os.path.join(g, "h100-sxm.json"), "w") as f:
            json.dump(x, f)
        rc, so, se = gs(tmp, ["estimate", "Qwen/Qwen2.5-0.5B", "--offline", "--models-dir", MODELS,
                              "--gpus-dir", g, "--json"])
        parsed = True
        try:
            if so:
                json.loads(so)
        except ValueError:
            parsed = False
        check(rc == 3 and key in se and "at most" in se and "nan" not in so.lower() and parsed,
              "item11.huge_figure_refused:%s" % key, show(rc, so, se))
    with open(os.path.join(g, "h100-sxm.json"), "w") as f:
        json.dump(gf, f)
    rc, so, se = gs(tmp, ["estimate", "Qwen/Qwen2.5-0.5B", "--offline", "--models-dir", MODELS, "--gpus-dir", g,
                          "--json"])
    try:
        json.loads(so, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
        ok = True
    except ValueError:
        ok = False
    check(rc == 0 and ok, "item11.estimate_json_strict_json", show(rc, so, se))


# ---------------------------------------------------------------- item 12

def item12(tmp):
    for model in ("Qwen/Qwen3-30B-A3B", "mistralai/Mixtral-8x7B-v0.1"):
        for prec in ("mixed-bf16", "fp8-mixed", "amp-bf16"):
            dev = []
            for n in (2, 4, 8):
                rc, so, se = gs(tmp, ["estimate", model, "--offline", "--models-dir", MODELS, "--method", "full",
                                      "--precision", prec, "--gpus", str(n), "--sharding", "ddp", "--json"])
                try:
                    dev.append(json.loads(so)["rows"][0]["estimate"]["device"])
                except (ValueError, KeyError, IndexError):
                    dev.append(None)
            check(None not in dev and len(set(dev)) == 1, "item12.ddp_replicas_same_memory:%s:%s"
                  % (model.split("/")[1], prec), "device bytes at 2, 4, 8 replicas: %s" % dev)


# ---------------------------------------------------------------- item 13

def item13_template(tmp):
    t = os.path.join(tmp, "i13-tmpl")
    shutil.copytree(os.path.join(TOP, "templates"), t)
    body = "".join("{%% for x%d in rows %%}" % i for i in range(40)) + "{% endfor %}" * 40
    with open(os.path.join(t, "index.md.tmpl"), "w") as f:
        f.write(body + "\n")
    sp = spec(tmp, "i13", models=(CFG_A, CFG_B), formats=("md",))
    t0 = time.monotonic()
    rc, so, se = report(tmp, sp, timeout=120 + SLACK, GPUSIZER_TEMPLATES=t)
    check(rc == 3 and "index.md.tmpl:1" in se and "steps" in se, "item13.nested_loops_stop",
          "%s in %.1f s" % (show(rc, so, se), time.monotonic() - t0))


ESCAPER = r'''
import json, os, subprocess, sys, time
# a descendant that leaves verify's process group and session and holds
# stdout and stderr (the pipes verify reads)
kid = os.fork()
if kid == 0:
    os.setsid()
    if os.fork() == 0:
        with open(os.environ["GS_T_PIDFILE"] + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.rename(os.environ["GS_T_PIDFILE"] + ".tmp", os.environ["GS_T_PIDFILE"])
        time.sleep(60)
    os._exit(0)
os.waitpid(kid, 0)
while not os.path.exists(os.environ["GS_T_PIDFILE"]):
    time.sleep(0.01)
sys.stderr.write("gpusizer-harness: measure-begin\n")
sys.stderr.flush()
if os.environ.get("GS_T_MODE") != "exit":
    time.sleep(60)
sys.argv = [os.environ["GS_T_STANDIN"]] + sys.argv[1:]
import runpy
runpy.run_path(os.environ["GS_T_STANDIN"], run_name="__main__")
'''


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def item13_harness(tmp):
    h = os.path.join(tmp, "escaper.py")
    with open(h, "w") as f:
        f.write(ESCAPER)
    for mode in ("exit", "timeout", "sigterm"):
        pidfile = os.path.join(tmp, "escaper-%s.pid" % mode)
        e = clean_env(tmp, GPUSIZER_FAKE_GPU=FAKE_GPU, GS_T_PIDFILE=pidfile, GS_T_MODE=mode,
                      GS_T_STANDIN=STANDIN)
        argv = WRAP + [EXE, "verify", "Qwen/Qwen2.5-0.5B", "--offline", "--models-dir", MODELS, "--method", "lora",
                       "--seq", "512", "--harness", h, "--no-store", "--out", os.path.join(tmp, "i13v-" + mode),
                       "--timeout", "2" if mode == "timeout" else "120"]
        t0 = time.monotonic()
        p = subprocess.Popen(argv, cwd=TOP, env=e, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if mode == "sigterm":
            end = time.time() + 30
            while time.time() < end and not os.path.exists(pidfile):
                time.sleep(0.05)
            time.sleep(0.3)
            p.send_signal(signal.SIGTERM)
        try:
            rc = p.wait(timeout=25 + SLACK)
        except subprocess.TimeoutExpired:
            rc = None
            p.kill()
            p.wait()
        took = time.monotonic() - t0
        p.stderr.close()
        pid = None
        if os.path.exists(pidfile):
            pid = int(open(pidfile).read())
        left = pid is not None and alive(pid)
        if left:
            os.kill(pid, signal.SIGKILL)
        want = {"exit": (0, 12), "timeout": (13,), "sigterm": (-signal.SIGTERM,)}[mode]
        check(rc in want and pid is not None and not left, "item13.harness_descendant_killed:%s" % mode,
              "verify exit %s after %.1f s; the descendant (setsid, holding the pipes) %s"
              % (rc, took, "still alive" if left else "gone" if pid else "never started"))


# ---------------------------------------------------------------- hooks

def hooks(tmp):
    sp = spec(tmp, "hooks", formats=("json",))
    out = os.path.join(tmp, "hooks", "out")
    rc, so, se = report(tmp, sp, exe=FAULT_EXE, GPUSIZER_FAULT="outdir-rename=kill@1")
    check(rc == -signal.SIGKILL, "hooks.test_build_has_them", "the test build (%s) with outdir-rename=kill@1: "
          "exit %s" % (os.path.relpath(FAULT_EXE, TOP), rc))
    shutil.rmtree(out, ignore_errors=True)
    rc, so, se = report(tmp, sp, GPUSIZER_FAULT="outdir-rename=kill@1,outdir-rename=fail@2",
                        GPUSIZER_TEST_STOP_AT_RENAME="1", GPUSIZER_TEST_FAIL_AT_RENAME="2")
    check(rc == 0 and os.path.isfile(os.path.join(out, "sizing.json")), "hooks.release_ignores_them",
          "the release binary (%s) with GPUSIZER_FAULT and GPUSIZER_TEST_*: %s" % (os.path.relpath(EXE, TOP),
                                                                                  show(rc, so, se)))
    with open(EXE, "rb") as f:
        body = f.read()
    found = [s for s in (b"GPUSIZER_FAULT", b"GPUSIZER_TEST_STOP_AT", b"GPUSIZER_TEST_FAIL_AT") if s in body]
    check(not found, "hooks.release_binary_names_none", "strings in %s: %s" % (os.path.relpath(EXE, TOP), found))


def main():
    base = tempfile.mkdtemp(prefix="gs-w3-")
    tmp = os.path.realpath(base)
    try:
        for f in (item1, item2, item3, item4, item5, hub_items, item8, item9, item10, item11, item12,
                  item13_template, item13_harness, hooks):
            try:
                f(tmp)
            except Exception as ex:  # a crash of one item is its failure, not the file's
                check(False, f.__name__, "%s: %s" % (type(ex).__name__, ex))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return check.status()


if __name__ == "__main__":
    sys.exit(main())
