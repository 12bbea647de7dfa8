#!/usr/bin/env python3
"""Fault injection for the measurements store and `gpusizer verify` (issue 16).

Like t_verify.py these run without a GPU: the harness is a stand-in (the
fixture tests/fixtures/harness-standin.py, or a small script written here
that sleeps, records its pid and starts a child) and NVML is the fake
library tests/fixtures/fake-nvml.c, built here. Every store is a temporary
file. The cases, each named after the finding it reproduces:

  store_parallel_*    item 1: N parallel verify runs leave N lines
  store_symlink_*     item 6: a symlinked store stays a link, its target grows
  harness_signal_*    item 9: SIGTERM/SIGINT/SIGHUP to verify stop the harness's group
  harness_timeout_*   item 9: --timeout kills the harness's whole group
  harness_sigkill_*   item 9: the harness dies with a SIGKILLed verify
  harness_cwd_*       item 9: a tools/harness.py in the current directory is never run
  store_truncated_*   unclear errors: an incomplete last line blocks nothing
  store_limit_*, store_locked_*, store_append_fails_*: the store is checked before
                      the run, and a record that still cannot be appended is printed
"""
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from lib import GS, EXE, TOP, Checks

os.chdir(TOP)
STANDIN = os.path.join(TOP, "tests", "fixtures", "harness-standin.py")
MODEL = "Qwen/Qwen2.5-0.5B"
CONFIG = os.path.join(TOP, "models", "Qwen--Qwen2.5-0.5B", "config.json")
GIB = 1 << 30
N_PARALLEL = 12
check = Checks("faults (store, verify): ")

# A harness that records its pid (and its child's), says measure-begin and
# sleeps: what a real harness looks like to verify while it holds the GPU.
SLEEPY = r'''
import os, signal, subprocess, sys, time
d = os.environ["GS_T_PIDDIR"]
if os.environ.get("GS_T_IGNORE_TERM"):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # inherited by the child
def put(name, pid):
    with open(os.path.join(d, name + ".tmp"), "w") as f:
        f.write(str(pid))
    os.rename(os.path.join(d, name + ".tmp"), os.path.join(d, name))
if os.environ.get("GS_T_CHILD"):
    kid = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    put("child.pid", kid.pid)
put("harness.pid", os.getpid())
sys.stderr.write("gpusizer-harness: measure-begin\n")
sys.stderr.flush()
time.sleep(300)
'''

# A harness that spoils the store while it runs (after verify's check), then
# prints the fixture's result: the append afterwards must fail loudly.
SPOILER = r'''
import os, runpy, sys
with open(os.environ["GS_T_SPOIL"], "a") as f:
    f.write('{"model": "cut off')
sys.argv = [os.environ["GS_T_STANDIN"]] + sys.argv[1:]
runpy.run_path(os.environ["GS_T_STANDIN"], run_name="__main__")
'''


def base_env(extra=None):
    e = {k: v for k, v in os.environ.items()
         if not k.startswith(("GPUSIZER_", "FAKE_NVML_", "GS_T_", "HF_"))}
    e["HF_HUB_OFFLINE"] = "1"
    e.update(extra or {})
    return e


def verify_argv(out, store=None, harness=STANDIN, extra=()):
    a = GS + ["verify", MODEL, "--offline", "--models-dir", "models", "--harness", harness,
              "--out", out, "--warmup", "0", "--steps", "1", "--timeout", "120", "--tolerance", "1000"]
    if store:
        a += ["--store", store, "--store-standin"]
    return a + list(extra)


def run(argv, env, timeout=120, cwd=None):
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def records(path):
    """The store's lines as records; a line that does not read is None."""
    out = []
    with open(path) as f:
        for line in f.read().splitlines():
            try:
                r = json.loads(line)
                out.append(r if isinstance(r, dict) and "model" in r and "label" in r else None)
            except ValueError:
                out.append(None)
    return out


def alive(pid):
    """Whether pid runs (a zombie, dead but not reaped by its new parent, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def gone(pids, within=10.0):
    """True when none of pids runs within `within` seconds."""
    end = time.time() + within
    while time.time() < end:
        if not any(alive(p) for p in pids):
            return True
        time.sleep(0.1)
    return not any(alive(p) for p in pids)


def wait_file(path, within=60.0):
    end = time.time() + within
    while time.time() < end:
        if os.path.exists(path):
            with open(path) as f:
                return int(f.read())
        time.sleep(0.05)
    return None


started = []  # pids of harnesses and children these tests started, killed at the end


tmp = tempfile.mkdtemp(prefix="gs_t_faults_store.")
try:
    fake = os.path.join(tmp, "libnvidia-ml.so.1")
    b = subprocess.run([os.environ.get("CC", "cc"), "-shared", "-fPIC", "-O1", "-o", fake,
                        os.path.join("tests", "fixtures", "fake-nvml.c")], capture_output=True, text=True)
    check(b.returncode == 0, "fake NVML library builds", b.stderr)
    NV = {"GPUSIZER_NVML_LIB": fake, "FAKE_NVML_NAME": "NVIDIA Test GPU 24GB",
          "FAKE_NVML_TOTAL": str(24 * GIB), "FAKE_NVML_PROC_USED": str(3 * GIB)}
    sleepy = os.path.join(tmp, "sleepy.py")
    with open(sleepy, "w") as f:
        f.write(SLEEPY)
    spoiler = os.path.join(tmp, "spoiler.py")
    with open(spoiler, "w") as f:
        f.write(SPOILER)

    # ---- item 1: N parallel verify runs, one store: N lines, each a record.
    store = os.path.join(tmp, "par", "verified.jsonl")
    env = base_env(dict(NV, GPUSIZER_STANDIN_SLEEP_MS="400"))
    procs = [subprocess.Popen(verify_argv(os.path.join(tmp, "par-out%d" % i), store), env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(N_PARALLEL)]
    results = [(p.wait(timeout=300), p.stdout.read(), p.stderr.read()) for p in procs]
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    bad = [(rc, err.strip()[-300:]) for rc, out, err in results if rc != 0 or "appended to" not in err]
    check(not bad, "store_parallel_verify: all %d runs exit 0 saying appended" % N_PARALLEL, bad[:2])
    recs = records(store) if os.path.exists(store) else []
    check(len(recs) == N_PARALLEL and all(r is not None and r["model"] == MODEL for r in recs),
          "store_parallel_verify: %d parallel runs leave exactly %d lines, each a valid record"
          % (N_PARALLEL, N_PARALLEL), "%d lines, %d valid" % (len(recs), sum(r is not None for r in recs)))
    left = [n for n in os.listdir(os.path.dirname(store)) if ".tmp." in n]
    check(not left and os.path.isfile(store + ".lock"),
          "store_parallel_verify: no temporaries left; the lock file sits beside the store", sorted(os.listdir(os.path.dirname(store))))
    good_line = open(store).read().splitlines()[0] if recs else json.dumps({"model": MODEL, "label": "x"})

    # ---- item 6: a symlinked store stays a link; its target gains the line.
    tdir, ldir = os.path.join(tmp, "target"), os.path.join(tmp, "link")
    os.makedirs(tdir)
    os.makedirs(ldir)
    target, link = os.path.join(tdir, "verified.jsonl"), os.path.join(ldir, "verified.jsonl")
    with open(target, "w") as f:
        f.write(good_line + "\n")
    os.symlink(target, link)
    rc, out, err = run(verify_argv(os.path.join(tmp, "sym-out"), link), base_env(NV))
    check(rc == 0 and os.path.islink(link) and os.readlink(link) == target,
          "store_symlink_kept: the store's symbolic link is still a link to its target", "rc=%d %s" % (rc, err[-300:]))
    tr = records(target)
    check(len(tr) == 2 and all(tr), "store_symlink_kept: the target gains the line", "%d lines" % len(tr))
    check(os.path.isfile(target + ".lock") and not os.path.exists(link + ".lock")
          and not [n for n in os.listdir(ldir) if n != "verified.jsonl"],
          "store_symlink_kept: the lock sits beside the target, nothing beside the link",
          (os.listdir(tdir), os.listdir(ldir)))

    # ---- unclear errors: an incomplete last line (no final newline, not JSON).
    trunc = os.path.join(tmp, "trunc.jsonl")
    trunc_text = good_line + "\n" + good_line[: len(good_line) // 2]
    with open(trunc, "w") as f:
        f.write(trunc_text)
    argv_file = os.path.join(tmp, "trunc-argv.json")
    rc, out, err = run(verify_argv(os.path.join(tmp, "trunc-out"), trunc),
                       base_env(dict(NV, GPUSIZER_STANDIN_ARGV=argv_file)))
    check(rc == 3 and "trunc.jsonl:2" in err and "incomplete last line" in err
          and not os.path.exists(argv_file) and open(trunc).read() == trunc_text,
          "store_truncated_verify: verify refuses before the run, naming file:line, store unchanged",
          "rc=%d ran=%s %s" % (rc, os.path.exists(argv_file), err.strip()[-300:]))
    # reports go on: the good line is read, the cut-off one skipped with a warning
    spec = json.load(open(os.path.join("tests", "fixtures", "spec-small.json")))
    spec.update(models=[MODEL], formats=["json"], out=os.path.join(tmp, "rep-out"))
    spec_path = os.path.join(tmp, "spec.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    rc, out, err = run(GS + ["report", "--offline", "--spec", spec_path, "--measurements", trunc],
                       base_env(), timeout=300)
    check(rc == 0 and os.path.isfile(os.path.join(tmp, "rep-out", "sizing.json")),
          "store_truncated_report: a cut-off last line does not block report (exit 0, reports written)",
          "rc=%d %s" % (rc, err.strip()[-300:]))
    check("trunc.jsonl:2" in err and "incomplete last line" in err,
          "store_truncated_report: report warns once, naming file:line", err.strip()[-300:])
    # a damaged line in the middle is still an error, found before the run
    mid = os.path.join(tmp, "mid.jsonl")
    with open(mid, "w") as f:
        f.write(good_line + "\n{\"model\": 1\n" + good_line + "\n")
    argv_file = os.path.join(tmp, "mid-argv.json")
    rc, out, err = run(verify_argv(os.path.join(tmp, "mid-out"), mid),
                       base_env(dict(NV, GPUSIZER_STANDIN_ARGV=argv_file)))
    check(rc == 3 and "mid.jsonl:2" in err and not os.path.exists(argv_file),
          "store_truncated_middle: a damaged middle line is an error naming file:line, before the run",
          "rc=%d %s" % (rc, err.strip()[-300:]))
    # a complete record that only lacks its final newline is kept and ended
    nonl = os.path.join(tmp, "nonl.jsonl")
    with open(nonl, "w") as f:
        f.write(good_line)
    rc, out, err = run(verify_argv(os.path.join(tmp, "nonl-out"), nonl), base_env(NV))
    nr = records(nonl)
    check(rc == 0 and len(nr) == 2 and all(nr), "store_truncated_complete: a last record without its "
          "newline is kept, the new one on its own line", "rc=%d %d lines %s" % (rc, len(nr), err[-200:]))

    # ---- a store over the limit is refused before the harness runs.
    big = os.path.join(tmp, "big.jsonl")
    with open(big, "w") as f:
        f.truncate(65 << 20)
    argv_file = os.path.join(tmp, "big-argv.json")
    rc, out, err = run(verify_argv(os.path.join(tmp, "big-out"), big),
                       base_env(dict(NV, GPUSIZER_STANDIN_ARGV=argv_file)))
    check(rc == 3 and "big.jsonl" in err and "limit" in err and not os.path.exists(argv_file)
          and os.path.getsize(big) == 65 << 20,
          "store_limit_before_run: a store over 64 MiB is refused before the harness runs",
          "rc=%d ran=%s %s" % (rc, os.path.exists(argv_file), err.strip()[-300:]))
    near = os.path.join(tmp, "near.jsonl")
    with open(near, "w") as f:
        f.truncate((64 << 20) - 1000)
    argv_file = os.path.join(tmp, "near-argv.json")
    rc, out, err = run(verify_argv(os.path.join(tmp, "near-out"), near),
                       base_env(dict(NV, GPUSIZER_STANDIN_ARGV=argv_file)))
    check(rc == 3 and "near.jsonl" in err and "limit" in err and not os.path.exists(argv_file),
          "store_limit_before_run: a store without room for a record is refused before the run",
          "rc=%d %s" % (rc, err.strip()[-300:]))

    # ---- a store locked by another run: exit 15 after GPUSIZER_LOCK_WAIT, before the run.
    lstore = os.path.join(tmp, "locked.jsonl")
    with open(lstore, "w") as f:
        f.write(good_line + "\n")
    argv_file = os.path.join(tmp, "locked-argv.json")
    with open(lstore + ".lock", "w") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        rc, out, err = run(verify_argv(os.path.join(tmp, "locked-out"), lstore),
                           base_env(dict(NV, GPUSIZER_LOCK_WAIT="1", GPUSIZER_STANDIN_ARGV=argv_file)))
    check(rc == 15 and "locked.jsonl.lock" in err and not os.path.exists(argv_file)
          and len(records(lstore)) == 1,
          "store_locked_before_run: a store locked past GPUSIZER_LOCK_WAIT is exit 15, before the run",
          "rc=%d %s" % (rc, err.strip()[-300:]))

    # ---- the append fails after the run: the record is printed, not lost.
    spoil = os.path.join(tmp, "spoil.jsonl")
    with open(spoil, "w") as f:
        f.write(good_line + "\n")
    sout = os.path.join(tmp, "spoil-out")
    rc, out, err = run(verify_argv(sout, spoil, harness=spoiler),
                       base_env(dict(NV, GS_T_SPOIL=spoil, GS_T_STANDIN=STANDIN)))
    printed = [l for l in err.splitlines() if l.startswith("{")]
    try:
        rec = json.loads(printed[-1]) if printed else None
    except ValueError:
        rec = None
    check(rc == 3 and "NOT appended" in err and rec is not None and rec.get("model") == MODEL
          and rec.get("measured", {}).get("allocated") == 3 * GIB,
          "store_append_fails_prints_record: a failed append prints the whole record on stderr",
          "rc=%d %s" % (rc, err.strip()[-400:]))
    check("result:" in out and os.path.isdir(os.path.join(sout, "verify"))
          and any(n.endswith(".json") for n in os.listdir(os.path.join(sout, "verify"))),
          "store_append_fails_prints_record: the comparison is still printed and out/verify/ROW.json written",
          out[-300:])

    def default_signals():
        stops = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
        for x in stops:
            signal.signal(x, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)

    # ---- item 9: a signal to verify stops the harness's whole process group.
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        piddir = tempfile.mkdtemp(dir=tmp, prefix="pids.")
        env = base_env(dict(NV, GS_T_PIDDIR=piddir, GS_T_CHILD="1"))
        # verify keeps a signal its caller ignored (as under nohup, or a
        # background job's SIGINT): start it with the default dispositions,
        # whatever this test inherited
        p = subprocess.Popen(verify_argv(os.path.join(tmp, "sig-out"), extra=["--no-store"], harness=sleepy),
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             preexec_fn=default_signals)
        hpid = wait_file(os.path.join(piddir, "harness.pid"))
        cpid = wait_file(os.path.join(piddir, "child.pid"), 5)
        started.extend(x for x in (hpid, cpid) if x)
        p.send_signal(sig)
        try:
            rc = p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = p.wait()
        err = p.stderr.read()
        p.stderr.close()
        name = signal.Signals(sig).name
        check(hpid is not None and cpid is not None and rc == -sig,
              "harness_signal_%s: verify ends by the signal" % name.lower(),
              "rc=%s pids=%s,%s %s" % (rc, hpid, cpid, err.strip()[-300:]))
        check(hpid is not None and cpid is not None and gone([hpid, cpid]),
              "harness_signal_%s: no harness process (nor its child) remains" % name.lower(),
              "alive: %s" % [x for x in (hpid, cpid) if x and alive(x)])
        check(name in err and "nothing measured" in err,
              "harness_signal_%s: verify says it stopped the harness" % name.lower(), err.strip()[-300:])

    # ---- item 9: --timeout kills the group, even processes that ignore SIGTERM.
    piddir = tempfile.mkdtemp(dir=tmp, prefix="pids.")
    env = base_env(dict(NV, GS_T_PIDDIR=piddir, GS_T_CHILD="1", GS_T_IGNORE_TERM="1"))
    argv = verify_argv(os.path.join(tmp, "to-out"), extra=["--no-store"], harness=sleepy)
    argv[argv.index("--timeout") + 1] = "1"
    try:
        rc, out, err = run(argv, env, timeout=90)
    except subprocess.TimeoutExpired:
        rc, err = None, "verify still running after 90 s"
    hpid = wait_file(os.path.join(piddir, "harness.pid"), 1)
    cpid = wait_file(os.path.join(piddir, "child.pid"), 1)
    started.extend(x for x in (hpid, cpid) if x)
    check(rc == 13 and "--timeout 1" in err, "harness_timeout_group: past --timeout verify stops, exit 13",
          "rc=%s %s" % (rc, err.strip()[-300:]))
    check(hpid is not None and cpid is not None and gone([hpid, cpid], 2),
          "harness_timeout_group: a harness and child ignoring SIGTERM are killed with the group",
          "alive: %s" % [x for x in (hpid, cpid) if x and alive(x)])

    # ---- item 9: the harness dies with verify even when verify is SIGKILLed.
    piddir = tempfile.mkdtemp(dir=tmp, prefix="pids.")
    env = base_env(dict(NV, GS_T_PIDDIR=piddir))
    p = subprocess.Popen(verify_argv(os.path.join(tmp, "kill-out"), extra=["--no-store"], harness=sleepy),
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    hpid = wait_file(os.path.join(piddir, "harness.pid"))
    if hpid:
        started.append(hpid)
    p.kill()
    p.wait(timeout=60)
    check(hpid is not None and gone([hpid]), "harness_sigkill_verify: the harness does not outlive a SIGKILLed verify",
          "harness %s alive" % hpid)

    # ---- item 9: a tools/harness.py in the current directory is never run.
    bindir = os.path.join(tmp, "inst", "a", "b", "bin")  # no gpusizer data root above it
    os.makedirs(bindir)
    lone = os.path.join(bindir, "gpusizer")
    shutil.copy2(EXE, lone)
    cwd = os.path.join(tmp, "cwd")
    os.makedirs(os.path.join(cwd, "tools"))
    shutil.copytree(os.path.join(TOP, "templates"), os.path.join(cwd, "templates"))  # all it would need
    marker = os.path.join(tmp, "planted-ran")
    with open(os.path.join(cwd, "tools", "harness.py"), "w") as f:
        f.write("open(%r, 'w').write('ran')\n" % marker)
    lone_argv = [lone, "verify", "--config", CONFIG, "--offline"]
    rc, out, err = run(lone_argv + ["--dry-run"], base_env(), cwd=cwd)
    check(rc == 13 and "current directory is not searched" in err and "tools/harness.py" not in out,
          "harness_cwd_not_searched: --dry-run names no harness from the current directory (exit 13)",
          "rc=%d out=%s err=%s" % (rc, out[-200:], err.strip()[-200:]))
    rc, out, err = run(lone_argv + ["--out", os.path.join(tmp, "cwd-out"), "--no-store"], base_env(NV), cwd=cwd)
    check(rc == 13 and not os.path.exists(marker),
          "harness_cwd_not_run: verify never runs a planted ./tools/harness.py",
          "rc=%d ran=%s %s" % (rc, os.path.exists(marker), err.strip()[-200:]))

    def dry_harness(env):
        rc, out, err = run(lone_argv + ["--dry-run"], base_env(env), cwd=cwd)
        try:
            return rc, json.loads(out)["harness_argv"][1]
        except (ValueError, KeyError, IndexError):
            return rc, err.strip()[-200:]
    rc, out, err = run(lone_argv + ["--harness", STANDIN, "--dry-run"], base_env(), cwd=cwd)
    try:
        given = json.loads(out)["harness_argv"][1]
    except (ValueError, KeyError, IndexError):
        given = err.strip()[-200:]
    check(rc == 0 and given == STANDIN, "harness_cwd_explicit: --harness FILE still works without a data root",
          "rc=%d %s" % (rc, given))
    check(dry_harness({"GPUSIZER_HARNESS": STANDIN}) == (0, STANDIN),
          "harness_cwd_explicit: GPUSIZER_HARNESS still works", dry_harness({"GPUSIZER_HARNESS": STANDIN}))
    check(dry_harness({"GPUSIZER_DATA": TOP}) == (0, os.path.join(TOP, "tools", "harness.py")),
          "harness_cwd_explicit: GPUSIZER_DATA names the harness of that data root",
          dry_harness({"GPUSIZER_DATA": TOP}))
finally:
    for pid in started:
        try:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    shutil.rmtree(tmp, ignore_errors=True)

sys.exit(check.status())
