#!/usr/bin/env python3
"""Write failures of `gpusizer report --out`: the documented exit status 4
(gpusizer.1: "write failed; previous reports kept"), the previous out/ intact
byte for byte, and no temporary files left behind, for:
  - --out /dev/full (a device where a directory is expected)
  - a full disk, simulated with RLIMIT_FSIZE (SIGXFSZ ignored, so writes past
    16 KiB fail with EFBIG as they would with ENOSPC)
  - a read-only output directory: chmod 0555 on it and its subdirectories;
    root ignores that mode, so as root they are made immutable (chattr +i)
    instead, and if that is not possible a path under a regular file is used
    (ENOTDIR). A read-only parent no longer matters: a run stages inside the
    output directory (out/.gpusizer), on its file system
  - a path under /proc and a path below a regular file
  - SIGTERM and SIGKILL while the workbook is being written (the repository's
    sizing.json sweep, 17 models; the kill comes once the temporary .xlsx
    exists and at least 0.3 s have passed). SIGTERM: nothing left behind.
    SIGKILL cannot be caught: its staging directory (out/.gpusizer/run.tmp.*)
    remains and the next run must remove it.
"""
import hashlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from lib import EXE, TOP, WRAP, Checks

TIMEOUT = 900 if WRAP else 60
report = Checks(why_on_pass=True)


def env():
    e = dict(os.environ)
    for k in ("HF_TOKEN", "SOURCE_DATE_EPOCH"):
        e.pop(k, None)
    e["HF_HUB_OFFLINE"] = "1"
    return e


def snapshot(d):
    """Every directory and file under d, gpusizer's working directory
    d/.gpusizer left out (own_left says what a run left there)."""
    snap = {}
    for root, dirs, files in os.walk(d):
        if root == d and ".gpusizer" in dirs:
            dirs.remove(".gpusizer")
        for n in dirs:
            snap[os.path.relpath(os.path.join(root, n), d) + "/"] = "dir"
        for n in files:
            p = os.path.join(root, n)
            with open(p, "rb") as f:
                snap[os.path.relpath(p, d)] = hashlib.sha256(f.read()).hexdigest()
    return snap


def own_left(out):
    """What is in out/.gpusizer besides its .gitignore."""
    p = os.path.join(out, ".gpusizer")
    return sorted(n for n in os.listdir(p) if n != ".gitignore") if os.path.isdir(p) else []


def gs(args, **kw):
    return subprocess.run(WRAP + [EXE] + args, cwd=TOP, env=env(), capture_output=True,
                          timeout=TIMEOUT, **kw)


def leftovers(parent, keep):
    return sorted(n for n in os.listdir(parent) if n not in keep)


def small_spec(tmp):
    s = json.load(open(os.path.join(TOP, "tests/fixtures/spec-small.json")))
    # the spec lives in tmp: paths in it are relative to it, so name the config absolutely
    s.update(models=[os.path.join(TOP, "tests/bad/ok-llama.json")], gpus=["t4", "a100-80gb"],
             formats=["md", "html", "xlsx", "json", "csv"])
    s["axes"].update(batch=[1], seq=[512])
    p = os.path.join(tmp, "small.json")
    with open(p, "w") as f:
        json.dump(s, f)
    return p


def previous(tmp, spec, parent=None):
    """Write a previous out/ under parent (default tmp); return (out, snapshot)."""
    parent = parent or tmp
    out = os.path.join(parent, "out")
    p = gs(["report", "--spec", spec, "--quiet", "--out", out])
    if p.returncode != 0:
        raise RuntimeError("previous report failed: %r" % p.stderr[-300:])
    return out, snapshot(out)


def expect_fail(name, p, out=None, snap=None, parent=None, keep=(), msg=None):
    why = []
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode != 4:
        why.append("exit %d, expected 4" % p.returncode)
    if not err.startswith("gpusizer: "):
        why.append("no gpusizer: message")
    if msg and msg not in err:
        why.append("message lacks %r" % msg)
    if out is not None and snapshot(out) != snap:
        why.append("previous out/ changed")
    if parent is not None:
        extra = leftovers(parent, keep)
        if extra:
            why.append("left behind: %s" % extra)
    report(not why, name, "; ".join(why) + " stderr: " + err.strip()[:200] if why
           else "exit 4: " + err.strip()[:120])


def t_dev_full(tmp, spec):
    before = set(os.listdir("/dev"))
    p = gs(["report", "--spec", spec, "--quiet", "--out", "/dev/full"])
    expect_fail("write.out_dev_full", p, msg="/dev/full")
    extra = sorted(set(os.listdir("/dev")) - before)
    report(not extra, "write.out_dev_full.no_temporaries",
           "left in /dev: %s" % extra if extra else "nothing left in /dev")
    for n in extra:  # do not leave a failed run's temporaries in /dev
        if n.startswith(".full.tmp."):
            shutil.rmtree(os.path.join("/dev", n), ignore_errors=True)


def t_fsize(tmp, spec):
    parent = os.path.join(tmp, "fsize")
    os.mkdir(parent)
    out, snap = previous(tmp, spec, parent)

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (16 << 10, 16 << 10))
    p = gs(["report", "--spec", spec, "--quiet", "--out", out], preexec_fn=limit)
    expect_fail("write.disk_full_rlimit_fsize", p, out, snap, parent, keep=("out",))
    # the workbook alone (libxlsxwriter's own writes)
    p = gs(["report", "--spec", spec, "--quiet", "--out", out, "--format", "xlsx"],
           preexec_fn=limit)
    expect_fail("write.disk_full_rlimit_fsize.xlsx", p, out, snap, parent, keep=("out",))


def t_readonly(tmp, spec):
    parent = os.path.join(tmp, "ro")
    os.mkdir(parent)
    out, snap = previous(tmp, spec, parent)
    dirs = [r for r, _, _ in os.walk(out)]
    for d in dirs:
        os.chmod(d, 0o555)
    how = "chmod 0555"
    immutable = False
    try:
        bypass = False
        try:
            os.mkdir(os.path.join(out, "probe"))
            os.rmdir(os.path.join(out, "probe"))
            bypass = True
        except OSError:
            pass
        if bypass:
            # root (CAP_DAC_OVERRIDE) writes into a 0555 directory
            print("  (running as uid %d: mode 0555 does not stop it; using chattr +i)" % os.geteuid())
            r = subprocess.run(["chattr", "+i"] + dirs, capture_output=True)
            if r.returncode != 0:
                report.skip("write.readonly_dir",
                            "chattr +i not possible (%s): covered by write.out_below_file" %
                            r.stderr.decode().strip()[:80])
                return
            immutable = True
            how = "chattr +i (root)"
        p = gs(["report", "--spec", spec, "--quiet", "--out", out])
        expect_fail("write.readonly_dir", p, out, snap, parent, keep=("out",))
        print("  (read-only by %s)" % how)
    finally:
        if immutable:
            subprocess.run(["chattr", "-i"] + dirs)
        for d in dirs:
            os.chmod(d, 0o755)
    # a read-only parent with a writable out/: the run stages inside out/
    os.chmod(parent, 0o555)
    immutable = False
    try:
        if os.geteuid() == 0:
            immutable = subprocess.run(["chattr", "+i", parent], capture_output=True).returncode == 0
        p = gs(["report", "--spec", spec, "--quiet", "--out", out, "--batches", "1,2"])
        left = leftovers(parent, ("out",)) + own_left(out)
        report(p.returncode == 0 and not left, "write.readonly_parent_writable_out_ok",
               "exit %d, left %s: %s" % (p.returncode, left, p.stderr.decode("utf-8", "replace")[-200:]))
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", parent])
        os.chmod(parent, 0o755)


def t_bad_paths(tmp, spec):
    p = gs(["report", "--spec", spec, "--quiet", "--out", "/proc/gs-out"])
    expect_fail("write.out_under_proc", p, msg="/proc")
    p = gs(["report", "--spec", spec, "--quiet", "--out", os.path.join(spec, "out")])
    expect_fail("write.out_below_file", p, parent=tmp,
                keep=set(os.listdir(tmp)), msg="Not a directory")


def t_kill(tmp, spec, sig):
    name = "write.kill_%s_mid_xlsx" % signal.Signals(sig).name
    parent = os.path.join(tmp, "kill-" + str(sig))
    os.mkdir(parent)
    out, snap = previous(tmp, spec, parent)
    p = subprocess.Popen(WRAP + [EXE, "report", "--quiet", "--out", out,
                                 "--models-dir", os.path.join(TOP, "models")],
                         cwd=TOP, env=env(), stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    t0 = time.monotonic()
    seen = None
    while time.monotonic() - t0 < TIMEOUT:
        if p.poll() is not None:
            break
        for n in own_left(out):
            try:
                if any(f.startswith("gpusizer.xlsx") for f in os.listdir(os.path.join(out, ".gpusizer", n, "new"))):
                    seen = seen or time.monotonic()
            except OSError:
                pass
        if seen and time.monotonic() - t0 >= 0.3:
            break
        time.sleep(0.01)
    if p.poll() is not None:
        p.communicate()
        report(False, name, "report finished (exit %d) before the kill" % p.returncode)
        return
    at = time.monotonic() - t0
    p.send_signal(sig)
    err = p.communicate(timeout=TIMEOUT)[1].decode("utf-8", "replace")
    why = []
    if seen is None:
        why.append("no temporary workbook seen within %d s" % TIMEOUT)
    if p.returncode not in (-sig, 128 + sig):
        why.append("exit %d, expected death by signal %d" % (p.returncode, sig))
    if snapshot(out) != snap:
        why.append("previous out/ changed")
    extra = leftovers(parent, ("out",)) + own_left(out)
    if sig == signal.SIGKILL:
        # cannot be caught: the staging directory may remain; the next run removes it
        q = gs(["report", "--spec", spec, "--quiet", "--out", out])
        extra2 = leftovers(parent, ("out",)) + own_left(out)
        if q.returncode != 0:
            why.append("next run exit %d" % q.returncode)
        if extra2:
            why.append("the next run left %s" % extra2)
        note = "killed at %.2f s while writing the workbook; out/ intact; %s left by the kill, " \
               "removed by the next run" % (at, extra or "nothing")
    else:
        if extra:
            why.append("left behind: %s" % extra)
        note = "killed at %.2f s while writing the workbook; out/ intact, nothing left" % at
    report(not why, name, "; ".join(why) + " stderr: " + err.strip()[:200] if why else note)


def main():
    tmp = tempfile.mkdtemp(prefix="gs-wf-")
    try:
        spec = small_spec(tmp)
        t_dev_full(tmp, spec)
        t_fsize(tmp, spec)
        t_readonly(tmp, spec)
        t_bad_paths(tmp, spec)
        t_kill(tmp, spec, signal.SIGTERM)
        t_kill(tmp, spec, signal.SIGKILL)
    finally:
        subprocess.run(["chattr", "-R", "-i", tmp], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    return report.status()


if __name__ == "__main__":
    sys.exit(main())
