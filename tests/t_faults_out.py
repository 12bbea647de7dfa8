#!/usr/bin/env python3
"""Fault injection on `gpusizer report`'s output transaction (issue 16):
parallel runs into one out/ (a lock), a manifest of our files (a user's own
files never removed), an install that commits or rolls back as a whole
(the test build's fault point GPUSIZER_FAULT=outdir-rename=kill@k: SIGKILL
before the k-th rename, for every k; outdir-rename=fail@k: that rename
fails), lock-based sweeps of
killed runs' staging directories, symbolic links, a row limit, a staging
directory on out/'s file system (a tmpfs mount point when root can mount),
a killed --check, a sweep of no rows, and truthful errors. Small specs of
config files in tests/, so each report takes well under a second."""
import fcntl
import hashlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from lib import FAULT_EXE as EXE, TOP, WRAP, Checks, clean_env

TIMEOUT = 900 if WRAP else 120
check = Checks("faults_out.", why_on_pass=True)
CFG = {
    "A": os.path.join(TOP, "tests", "bad", "ok-llama.json"),
    "B": os.path.join(TOP, "tests", "fixtures", "configs", "olmo-1b-shaped.json"),
    "C": os.path.join(TOP, "tests", "fixtures", "configs", "pythia-1b-shaped.json"),
}
OWN = ".gpusizer"
MANIFEST = ".gpusizer-manifest"


def write_spec(tmp, name, models, gpus=("t4", "a100-80gb"), formats=("md", "html", "xlsx", "json", "csv"),
               **axes):
    s = {"version": 1, "date": "2026-01-01", "models": [CFG[m] if m in CFG else m for m in models],
         "gpus": list(gpus), "formats": list(formats),
         "axes": {"method": ["full", "qlora"], "batch": [1], "seq": [512]}}
    s["axes"].update(axes)
    p = os.path.join(tmp, name + ".json")
    with open(p, "w") as f:
        json.dump(s, f)
    return p


def gs(tmp, args, env=None, **kw):
    """gpusizer with a private $TMPDIR (a --check stages there; every run
    sweeps it), unless env names one."""
    extra = {"TMPDIR": PRIVATE_TMP[0]}
    extra.update(env or {})
    e = clean_env(tmp, **extra)
    return subprocess.run(WRAP + [EXE] + args, cwd=TOP, env=e, capture_output=True, text=True,
                          timeout=TIMEOUT, **kw)


def report(tmp, spec, out, *extra, env=None, **kw):
    return gs(tmp, ["report", "--spec", spec, "--out", out, "--offline", "--quiet",
                    "--gpus-dir", os.path.join(TOP, "gpus")] + list(extra), env=env, **kw)


def tree(d, own=False):
    """{relative path: sha256} of the files under d (never through a link);
    gpusizer's working directory d/.gpusizer left out unless own."""
    snap = {}
    for root, dirs, files in os.walk(d):
        rel_root = os.path.relpath(root, d)
        if not own and (rel_root == OWN or rel_root.startswith(OWN + os.sep)):
            continue
        for n in files:
            p = os.path.join(root, n)
            if os.path.islink(p):
                snap[os.path.relpath(p, d)] = "link:" + os.readlink(p)
                continue
            with open(p, "rb") as f:
                snap[os.path.relpath(p, d)] = hashlib.sha256(f.read()).hexdigest()
        for n in dirs:
            if os.path.islink(os.path.join(root, n)):
                snap[os.path.relpath(os.path.join(root, n), d)] = "link:" + os.readlink(os.path.join(root, n))
    return snap


def own_left(out):
    """What is in out/.gpusizer besides its .gitignore."""
    p = os.path.join(out, OWN)
    return sorted(n for n in os.listdir(p) if n != ".gitignore") if os.path.isdir(p) else []


def fresh(tmp, name, spec):
    out = os.path.join(tmp, name)
    shutil.rmtree(out, ignore_errors=True)
    p = report(tmp, spec, out)
    if p.returncode != 0:
        raise RuntimeError("reference report %s failed: %s" % (name, p.stderr[-300:]))
    return out


def t_parallel(tmp, s1, s2, ref1, ref2):
    out = os.path.join(tmp, "par")
    bad = []
    for rnd in range(3):
        procs = [subprocess.Popen(WRAP + [EXE, "report", "--spec", s, "--out", out, "--offline", "--quiet",
                                          "--gpus-dir", os.path.join(TOP, "gpus")],
                                  cwd=TOP, env=clean_env(tmp, TMPDIR=PRIVATE_TMP[0]), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
                 for s in (s1, s2, s1, s2)]
        rcs = [p.wait(timeout=TIMEOUT) for p in procs]
        errs = [p.stderr.read() for p in procs]
        for p in procs:
            p.stdout.close()
            p.stderr.close()
        t = tree(out)
        if any(rcs):
            bad.append("round %d: exits %s %s" % (rnd, rcs, [e[:120] for e in errs if e]))
        if t != ref1 and t != ref2:
            bad.append("round %d: out/ matches neither spec (%d files; %d and %d expected)"
                       % (rnd, len(t), len(ref1), len(ref2)))
        if own_left(out):
            bad.append("round %d: left in .gpusizer: %s" % (rnd, own_left(out)))
    check(not bad, "item2.parallel_reports_leave_one_spec",
          "; ".join(bad) if bad else "3 rounds of 4 parallel runs (2 specs): out/ is one spec's complete output each time")

    # A run that cannot get the lock in time: exit 15, nothing changed.
    before = tree(out)
    fd = os.open(out, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        p = report(tmp, s1, out, env={"GPUSIZER_LOCK_WAIT": "0.3"})
    finally:
        os.close(fd)
    check(p.returncode == 15 and "lock" in p.stderr and tree(out) == before,
          "item2.locked_out_waits_then_exit_15", "exit %d: %s" % (p.returncode, p.stderr.strip()[:200]))


def t_manifest(tmp, s12, s1):
    out = os.path.join(tmp, "man")
    shutil.copytree(REF["ref12"], out)
    ref12 = SNAP["ref12"]
    rows = [l.split("  ", 1) for l in open(os.path.join(out, MANIFEST)).read().splitlines()
            if not l.startswith("#")]
    lines = [r[-1] for r in rows]
    files = sorted(k for k in tree(out) if k != MANIFEST)
    hashes_ok = all(len(r) == 2 and r[0] == ref12.get(r[1]) for r in rows)
    check(lines == sorted(lines) and lines == files and hashes_ok, "item3.manifest_lists_every_file_sorted",
          "%d files listed, each with the SHA-256 of its bytes" % len(lines) if lines == files and hashes_ok
          else "manifest %s vs files %s" % (rows[:3], files[:5]))
    # the user's own files beside ours
    mine = {"models/notes.md": "# my notes\n", "models/diagram.svg": "<svg/>\n",
            "html/mine.html": "<p>mine</p>\n", "html/models/extra.html": "<p>mine too</p>\n",
            "models/my-components.svg": "<svg/>\n"}
    for rel, body in mine.items():
        with open(os.path.join(out, rel), "w") as f:
            f.write(body)
    p = report(tmp, s1, out, "--check", "--json")
    so = p.stdout
    b_files = [k for k in ref12 if "olmo-1b-shaped" in k]
    check(p.returncode == 5 and all(os.path.join(out, k) in so for k in b_files)
          and not any(r in so for r in mine), "item3.check_lists_only_our_files_as_extra",
          "exit %d; %d extra of ours listed, none of the user's" % (p.returncode, len(b_files)))
    p = report(tmp, s1, out, "--json")
    try:
        removed = json.loads(p.stdout).get("removed")
    except ValueError:
        removed = None
    left = tree(out)
    why = []
    if p.returncode != 0:
        why.append("exit %d %s" % (p.returncode, p.stderr[-200:]))
    for rel in mine:
        if rel not in left:
            why.append("removed the user's %s" % rel)
    for k in b_files:
        if k in left:
            why.append("kept our stale %s" % k)
    if removed != len(b_files):
        why.append("removed %r, expected %d" % (removed, len(b_files)))
    check(not why, "item3.user_files_never_removed", "; ".join(why) if why else
          "%d stale files of ours removed, the user's 5 files kept" % len(b_files))


def t_legacy(tmp, s12, s1):
    """Output of an older gpusizer: no manifest; only our generated pages and
    their charts count as ours (the rest in the way takes --force)."""
    out = os.path.join(tmp, "legacy")
    shutil.copytree(REF["ref12"], out)
    ref12 = SNAP["ref12"]
    os.unlink(os.path.join(out, MANIFEST))
    shutil.rmtree(os.path.join(out, OWN), ignore_errors=True)
    mine = {"models/notes.md": "# my notes\n", "models/diagram.svg": "<svg/>\n",
            "html/models/extra.html": "<p>mine</p>\n", "models/notes-context.svg": "<svg/>\n"}
    for rel, body in mine.items():
        with open(os.path.join(out, rel), "w") as f:
            f.write(body)
    before = tree(out)
    p = report(tmp, s1, out)
    # no manifest says sizing.json and the workbook are ours: in the way
    check(p.returncode == 4 and "--force" in p.stderr and "in the way" in p.stderr and tree(out) == before,
          "item3.first_run_without_manifest_stops_at_files_it_cannot_prove_ours",
          "exit %d: %s" % (p.returncode, p.stderr.strip()[-250:]))
    p = report(tmp, s1, out, "--force")
    left = tree(out)
    b_files = [k for k in ref12 if "olmo-1b-shaped" in k]
    why = [("removed the user's %s" % r) for r in mine if r not in left]
    why += [("kept our stale %s" % k) for k in b_files if k in left]
    if p.returncode != 0 or MANIFEST not in left:
        why.append("exit %d, manifest %s" % (p.returncode, MANIFEST in left))
    check(not why, "item3.first_run_without_manifest_removes_only_generated",
          "; ".join(why) if why else "%d generated files of the dropped model removed; the user's kept" % len(b_files))


def t_every_rename(tmp, s_old, s_new):
    old_dir, ref_old, ref_new = REF["ref12"], SNAP["ref12"], SNAP["refnew"]
    k, bad, mixed_before, results = 0, [], 0, []
    while k < 400:
        k += 1
        out = os.path.join(tmp, "rn")
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(old_dir, out, symlinks=True)
        p = report(tmp, s_new, out, env={"GPUSIZER_FAULT": "outdir-rename=kill@%d" % k})
        if p.returncode == 0:
            if tree(out) != ref_new or own_left(out):
                bad.append("k=%d: completed but out/ is not the new output" % k)
            break
        if p.returncode != -signal.SIGKILL:
            bad.append("k=%d: exit %d, expected SIGKILL: %s" % (k, p.returncode, p.stderr[-150:]))
            break
        t = tree(out)
        if t != ref_old and t != ref_new:
            mixed_before += 1
        # --check recovers first: compared with the old spec, out/ is current
        c = report(tmp, s_old, out, "--check")
        t = tree(out)
        state = "old" if t == ref_old else "new" if t == ref_new else "mix"
        results.append(state)
        if state == "mix":
            bad.append("k=%d: after the kill and --check, out/ is a mix" % k)
        if state == "old" and c.returncode != 0:
            bad.append("k=%d: --check after recovery exit %d: %s" % (k, c.returncode, c.stdout[-200:]))
        if own_left(out):
            bad.append("k=%d: left in .gpusizer after recovery: %s" % (k, own_left(out)))
        # a plain reader after the recovery reads the whole old output
        with open(os.path.join(out, "sizing.json"), "rb") as f:
            body = f.read()
        with open(os.path.join(old_dir, "sizing.json"), "rb") as f:
            if state == "old" and body != f.read():
                bad.append("k=%d: sizing.json not the old one" % k)
        n = report(tmp, s_new, out)
        if n.returncode != 0 or tree(out) != ref_new:
            bad.append("k=%d: the next run did not install the new output (exit %d)" % (k, n.returncode))
    check(not bad and k > 3, "item4.sigkill_at_every_rename_leaves_old_or_new",
          "; ".join(bad[:4]) if bad else "killed before each of the %d renames: after recovery "
          "old %d times, new %d times, never a mix (%d kills left a mix until the next run recovered it)"
          % (k - 1, results.count("old"), results.count("new"), mixed_before))

    bad = []
    for j in range(1, k):
        out = os.path.join(tmp, "rf")
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(old_dir, out, symlinks=True)
        p = report(tmp, s_new, out, env={"GPUSIZER_FAULT": "outdir-rename=fail@%d" % j})
        if p.returncode != 4 or "gpusizer: " not in p.stderr:
            bad.append("j=%d: exit %d %s" % (j, p.returncode, p.stderr[-150:]))
        elif tree(out) != ref_old or own_left(out):
            bad.append("j=%d: out/ not the old output after the failure: %s" % (j, p.stderr[-150:]))
    check(not bad and k > 3, "item4.failed_rename_rolls_back_whole_install",
          "; ".join(bad[:4]) if bad else "each of the %d renames failing in turn: exit 4, the old output intact" % (k - 1))


REF, SNAP = {}, {}
PRIVATE_TMP = [tempfile.gettempdir()]


def t_blocked(tmp, s_new):
    # out/models is a file
    out = os.path.join(tmp, "blk1")
    shutil.copytree(REF["ref12"], out)
    shutil.rmtree(os.path.join(out, "models"))
    with open(os.path.join(out, "models"), "w") as f:
        f.write("a file\n")
    before = tree(out)
    p = report(tmp, s_new, out)
    check(p.returncode == 4 and os.path.join(out, "models") in p.stderr and tree(out) == before
          and not own_left(out), "item4.models_is_a_file_nothing_replaced",
          "exit %d: %s" % (p.returncode, p.stderr.strip()[:200]))
    # an unwritable subdirectory
    out = os.path.join(tmp, "blk2")
    shutil.copytree(REF["ref12"], out)
    sub = os.path.join(out, "html", "models")
    immutable = False
    if os.geteuid() == 0:
        r = subprocess.run(["chattr", "+i", sub], capture_output=True)
        if r.returncode != 0:
            print("SKIP faults_out.item4.unwritable_subdirectory: chattr +i failed as root")
            return
        immutable = True
    else:
        os.chmod(sub, 0o555)
    try:
        before = tree(out)
        p = report(tmp, s_new, out)
        ok = p.returncode == 4 and "html/models" in p.stderr and tree(out) == before and not own_left(out)
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", sub])
        os.chmod(sub, 0o755)
    check(ok, "item4.unwritable_subdirectory_nothing_replaced", "exit %d: %s" % (p.returncode, p.stderr.strip()[:200]))


def t_sweep_locks(tmp, s1):
    """Killed runs' staging directories in out/.gpusizer are rolled back
    and removed once no live run holds their lock; $TMPDIR is never swept
    (issue 34: a --check's directory there is its own, by mkdtemp)."""
    out = os.path.join(tmp, "sw")
    shutil.copytree(REF["ref1"], out)
    tdir = os.path.join(tmp, "tmpdir-sw")
    os.makedirs(tdir)
    live_run = os.path.join(out, OWN, "run.tmp.live01")
    live_check = os.path.join(tdir, "gpusizer-check.live02")
    # a staging directory of the old layout, named for a pid that is not ours
    # (another PID namespace): never touched
    legacy = os.path.join(tmp, ".sw.tmp.999999.abcdef")
    dead_run = os.path.join(out, OWN, "run.tmp.dead01")
    dead_check = os.path.join(tdir, "gpusizer-check.dead02")
    fds = []
    for d in (live_run, live_check, legacy, dead_run, dead_check):
        os.makedirs(os.path.join(d, "new"))
        with open(os.path.join(d, "new", "index.md"), "w") as f:
            f.write("staged\n")
    for d in (live_run, live_check, legacy):
        fd = os.open(d, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX)
        fds.append(fd)
    try:
        p = report(tmp, s1, out, env={"TMPDIR": tdir})
        alive = all(os.path.exists(os.path.join(d, "new", "index.md")) for d in (live_run, live_check, legacy))
        gone = not os.path.exists(dead_run)
    finally:
        for fd in fds:
            os.close(fd)
    check(p.returncode == 0 and alive and gone, "item5.sweep_keeps_locked_staging_dirs",
          "exit %d; live dirs kept: %s; unlocked run dir removed: %s %s" % (p.returncode, alive, gone, p.stderr[-150:]))
    p = report(tmp, s1, out, "--check", env={"TMPDIR": tdir})
    tmp_left = sorted(os.listdir(tdir))
    check(p.returncode == 0 and not os.path.exists(live_run) and tmp_left == ["gpusizer-check.dead02",
                                                                              "gpusizer-check.live02"],
          "item5.sweep_removes_run_dirs_once_unlocked_never_tmpdir_entries",
          "exit %d; left %s; $TMPDIR %s" % (p.returncode, own_left(out), tmp_left))
    shutil.rmtree(legacy, ignore_errors=True)


def t_symlinks(tmp, s1):
    ref1 = SNAP["ref1"]
    out = os.path.join(tmp, "sl")
    shutil.copytree(REF["ref1"], out)
    target = os.path.join(tmp, "sl-target")
    shutil.move(os.path.join(out, "models"), target)
    os.symlink(target, os.path.join(out, "models"))
    before, tbefore = tree(out), tree(target)
    p = report(tmp, s1, out, "--batches", "1,2")
    check(p.returncode == 4 and os.path.join(out, "models") in p.stderr and "symbolic link" in p.stderr
          and tree(out) == before and tree(target) == tbefore and not own_left(out),
          "item6.symlinked_models_refused_nothing_changed", "exit %d: %s" % (p.returncode, p.stderr.strip()[:200]))
    # a symlinked file inside out/ is refused too
    out2 = os.path.join(tmp, "sl2")
    shutil.copytree(REF["ref1"], out2)
    victim = os.path.join(tmp, "victim.md")
    with open(victim, "w") as f:
        f.write("mine\n")
    os.unlink(os.path.join(out2, "index.md"))
    os.symlink(victim, os.path.join(out2, "index.md"))
    p = report(tmp, s1, out2, "--batches", "1,2")
    check(p.returncode == 4 and "index.md" in p.stderr and open(victim).read() == "mine\n"
          and os.path.islink(os.path.join(out2, "index.md")),
          "item6.symlinked_file_refused", "exit %d: %s" % (p.returncode, p.stderr.strip()[:200]))
    # gpusizer's own working directory planted as a link: refused before anything is staged
    out3 = os.path.join(tmp, "sl3")
    shutil.copytree(REF["ref1"], out3)
    elsewhere = os.path.join(tmp, "sl3-elsewhere")
    os.makedirs(elsewhere)
    os.symlink(elsewhere, os.path.join(out3, OWN))
    before = tree(out3)
    p = report(tmp, s1, out3, "--batches", "1,2")
    check(p.returncode == 4 and OWN in p.stderr and os.listdir(elsewhere) == [] and tree(out3) == before,
          "item6.symlinked_working_dir_refused", "exit %d: %s" % (p.returncode, p.stderr.strip()[:200]))
    # the output directory named by a link: resolved once, written into its target
    real = os.path.join(tmp, "sl-real")
    link = os.path.join(tmp, "sl-link")
    os.makedirs(real)
    os.symlink(real, link)
    p = report(tmp, s1, link)
    c = report(tmp, s1, link, "--check")
    check(p.returncode == 0 and c.returncode == 0 and os.path.islink(link) and tree(real) == ref1,
          "item6.symlinked_out_dir_resolved", "exit %d, check %d: %s" % (p.returncode, c.returncode, p.stderr[-200:]))


def t_rows(tmp):
    big = write_spec(tmp, "big", ["A"], batch=list(range(1, 4097)), seq=list(range(1, 4097)))
    out = os.path.join(tmp, "big-out")
    t0 = time.monotonic()
    p = report(tmp, big, out)
    took = time.monotonic() - t0
    check(p.returncode == 3 and big in p.stderr and "rows" in p.stderr and "--max-rows" in p.stderr
          and not os.path.exists(out), "item13.huge_sweep_refused_before_writing",
          "exit %d in %.1f s: %s" % (p.returncode, took, p.stderr.strip()[:220]))
    small = write_spec(tmp, "rows", ["A"], batch=[1, 2])  # 2 methods x 2 batches = 4 rows
    p = report(tmp, small, out, "--max-rows", "3")
    check(p.returncode == 3 and "4 rows" in p.stderr and not os.path.exists(out),
          "item13.max_rows_below_the_sweep_refused", "exit %d: %s" % (p.returncode, p.stderr.strip()[:200]))
    p = report(tmp, small, out, "--max-rows", "4")
    check(p.returncode == 0, "item13.max_rows_raises_the_limit", "exit %d: %s" % (p.returncode, p.stderr[-200:]))
    p = report(tmp, small, out, "--max-rows", "0")
    check(p.returncode == 2 and "--max-rows" in p.stderr, "item13.max_rows_bad_value_usage_error",
          "exit %d: %s" % (p.returncode, p.stderr.strip()[:200]))
    # the repository's spec is far below the default limit
    p = gs(tmp, ["report", "--spec", os.path.join(TOP, "sizing.json"), "--max-rows", "1", "--offline",
                 "--out", os.path.join(tmp, "never")])
    m = re.search(r"the sweep has (\d+) rows", p.stderr)
    check(p.returncode == 3 and m and int(m.group(1)) * 10 < 1000000, "item13.default_limit_far_above_default_spec",
          "sizing.json: %s rows" % (m.group(1) if m else p.stderr.strip()[:200]))


def t_zero_rows(tmp):
    spec = write_spec(tmp, "zero", ["A"], seq=[16777216])
    out = os.path.join(tmp, "zero-out")
    p = report(tmp, spec, out)
    check(p.returncode == 3 and spec in p.stderr and "no rows" in p.stderr and not os.path.exists(out),
          "item17.zero_row_report_refused", "exit %d: %s" % (p.returncode, p.stderr.strip()[:200]))


def t_killed_check(tmp):
    tdir = os.path.join(tmp, "tmpdir-kc")
    os.makedirs(tdir)
    out = os.path.join(tmp, "kc-out")
    os.makedirs(out)
    # a sweep long enough (a workbook of 6000 rows, about a second) to be killed while it stages
    big = write_spec(tmp, "kc-big", ["A", "B", "C"], formats=("xlsx",),
                     gpus=("t4", "rtx-4090", "a100-80gb", "h100-sxm"),
                     method=["full", "lora", "qlora", "inference"], batch=list(range(1, 65)),
                     seq=[256, 512, 1024, 2048, 4096, 8192], grad_ckpt=[True, False])
    cmd = WRAP + [EXE, "report", "--check", "--offline", "--quiet", "--spec", big,
                  "--out", out, "--gpus-dir", os.path.join(TOP, "gpus")]
    p = subprocess.Popen(cmd, cwd=TOP, env=clean_env(tmp, TMPDIR=tdir), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    deadline, seen = time.monotonic() + 60, False
    while time.monotonic() < deadline and p.poll() is None and not seen:
        for n in os.listdir(tdir):
            d = os.path.join(tdir, n, "new")
            if n.startswith("gpusizer-check.") and os.path.isdir(d) and os.listdir(d):
                seen = True
        time.sleep(0.01)
    p.send_signal(signal.SIGTERM)
    p.wait()
    # (a killed valgrind leaves its own vgdb pipes in $TMPDIR: not ours)
    left = [n for n in os.listdir(tdir) if not n.startswith("vgdb-pipe")]
    spec = write_spec(tmp, "kc", ["A"], formats=("json",))
    os.makedirs(os.path.join(tdir, "gpusizer-check.notours", "new"))
    q = report(tmp, spec, os.path.join(tmp, "kc-next"), env={"TMPDIR": tdir})
    after = [n for n in os.listdir(tdir) if not n.startswith("vgdb-pipe")]
    check(seen and left == [] and p.returncode == -signal.SIGTERM and q.returncode == 0 and
          after == ["gpusizer-check.notours"],
          "item14.stopped_check_removes_its_own_staging_and_nothing_else",
          "staging seen %s; exit %s; left by the stop %s; after the next run %s" % (seen, p.returncode, left, after))


def t_mount(tmp, s1):
    out = os.path.join(tmp, "mnt")
    os.makedirs(out)
    p = report(tmp, s1, out, env={"GPUSIZER_FAULT": "outdir-rename=kill@1"})
    runs = [os.path.join(out, OWN, n) for n in own_left(out)]
    same = runs and all(os.stat(r).st_dev == os.stat(out).st_dev for r in runs)
    check(p.returncode == -signal.SIGKILL and same, "item15.staging_inside_out_same_filesystem",
          "staging %s on out/'s st_dev" % [os.path.relpath(r, out) for r in runs])
    report(tmp, s1, out)
    if os.geteuid() != 0 or not shutil.which("unshare"):
        print("SKIP faults_out.item15.tmpfs_mount_point: needs root and unshare")
        return
    mnt = os.path.join(tmp, "mnt2")
    os.makedirs(mnt)
    script = ('mount -t tmpfs tmpfs "$1" || exit 99; shift; "$@"; rc=$?; '
              'python3 -c "import os,sys; print(sorted(os.listdir(sys.argv[1])))" "$MNT"; exit $rc')
    cmd = ["unshare", "-m", "sh", "-c", script, "sh", mnt] + WRAP + [
        EXE, "report", "--spec", s1, "--out", mnt, "--offline", "--quiet", "--gpus-dir", os.path.join(TOP, "gpus")]
    r = subprocess.run(cmd, cwd=TOP, env=clean_env(tmp, MNT=mnt, TMPDIR=PRIVATE_TMP[0]), capture_output=True, text=True, timeout=TIMEOUT)
    if r.returncode == 99 or r.stderr.startswith("unshare:") or "Operation not permitted" in r.stderr:
        print("SKIP faults_out.item15.tmpfs_mount_point: cannot mount here (%s)" % r.stderr.strip()[:100])
        return
    check(r.returncode == 0 and "index.md" in r.stdout, "item15.tmpfs_mount_point_written",
          ("exit %d: %s %s" % (r.returncode, r.stdout.strip()[-200:], r.stderr.strip()[:200])).replace("\n", " "))


def t_tmpfs_full(tmp, s1, s_new):
    """A tmpfs that fills mid-run: exit 4 naming "No space left on device",
    the previous reports byte-identical, nothing of the run left (checked
    inside a private mount namespace, as root)."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        print("SKIP faults_out.tmpfs_fills_mid_run: needs root and unshare")
        return
    mnt = os.path.join(tmp, "full")
    os.makedirs(mnt, exist_ok=True)
    snap = ("import hashlib,os,sys,json;r=sys.argv[1];o={};"
            "[o.__setitem__(os.path.relpath(os.path.join(d,f),r),"
            "hashlib.sha256(open(os.path.join(d,f),'rb').read()).hexdigest()) "
            "for d,_,fs in os.walk(r) for f in fs];print(json.dumps(o,sort_keys=True))")
    run = WRAP + [EXE, "report", "--offline", "--quiet", "--gpus-dir", os.path.join(TOP, "gpus"), "--out", mnt]
    q = lambda a: " ".join("'%s'" % x.replace("'", "'\\''") for x in a)
    # 1: a small report that fits; 2: the larger one (a third model, three
    # more GPU classes, every method: about 460 KiB) into what is left of 320 KiB.
    script = ("mount -t tmpfs -o size=%dk tmpfs %s || exit 99; %s --spec %s || exit 98; "
              "python3 -c \"%s\" %s; %s --spec %s --methods full,lora,qlora,inference "
              "--batches 1,2,4,8 --seqs 512,1024,2048,4096; echo rc=$?; python3 -c \"%s\" %s; "
              "ls -a %s") % (
        320, q([mnt]), q(run), q([s1]), snap, q([mnt]), q(run), q([s_new]), snap, q([mnt]), q([mnt]))
    r = subprocess.run(["unshare", "-m", "sh", "-c", script], cwd=TOP,
                       env=clean_env(tmp, TMPDIR=PRIVATE_TMP[0]), capture_output=True, text=True,
                       timeout=TIMEOUT)
    if r.returncode == 99 or r.stderr.startswith("unshare:") or "Operation not permitted" in r.stderr:
        print("SKIP faults_out.tmpfs_fills_mid_run: cannot mount here (%s)" % r.stderr.strip()[:100])
        return
    lines = r.stdout.strip().split("\n")
    try:
        snaps = [json.loads(ln) for ln in lines if ln.startswith("{")]
        before, after = snaps[0], snaps[1]
        rc = next(int(ln[3:]) for ln in lines if ln.startswith("rc="))
        listing = [ln for ln in lines[lines.index("rc=%d" % rc) + 1:] if not ln.startswith("{")]
    except (ValueError, StopIteration, IndexError):
        check(False, "tmpfs_fills_mid_run", "output %r; stderr %r" % (r.stdout[:300], r.stderr[-300:]))
        return
    check(rc == 4 and "No space left on device" in r.stderr and before and after == before
          and OWN not in listing,
          "tmpfs_fills_mid_run",
          "exit %d, %d files kept byte-identical, left %r; stderr %r" % (rc, len(before), listing,
                                                                          r.stderr.strip()[-200:]))


def t_messages(tmp, s1):
    ref1 = SNAP["ref1"]
    secret = os.path.join(tmp, "token-like")
    with open(secret, "w") as f:
        f.write('{"version": 1, hf_SeCrEtToKeN0123456789}\n')
    p = report(tmp, secret, os.path.join(tmp, "never"))
    check(p.returncode == 3 and secret in p.stderr and "SeCrEt" not in p.stderr and ":1:" in p.stderr,
          "unclear.spec_error_quotes_no_file_bytes", p.stderr.strip()[:200])
    out = os.path.join(tmp, "full-stdout")
    with open("/dev/full", "w") as full:
        p = subprocess.run(WRAP + [EXE, "report", "--spec", s1, "--out", out, "--offline", "--gpus-dir",
                                   os.path.join(TOP, "gpus")], cwd=TOP, env=clean_env(tmp, TMPDIR=PRIVATE_TMP[0]), stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=TIMEOUT)
    c = report(tmp, s1, out, "--check")
    check(p.returncode == 4 and "written" in p.stderr and "standard output" in p.stderr
          and "kept" not in p.stderr and c.returncode == 0 and tree(out) == ref1,
          "unclear.stdout_failure_says_reports_written", "exit %d: %s" % (p.returncode, p.stderr.strip()[:200]))

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4 << 10, 4 << 10))
    out = os.path.join(tmp, "fsize")
    shutil.copytree(REF["ref1"], out)
    bad = []
    for fmt in ("md", "html", "xlsx", "json", "csv"):
        p = report(tmp, s1, out, "--format", fmt, "--batches", ",".join(str(b) for b in range(1, 17)),
                   "--seqs", "512,1024,2048,4096",
                   "--methods", "full,lora,qlora,inference", preexec_fn=limit)
        if p.returncode != 4 or "File too large" not in p.stderr or "gpusizer: " + out + "/" not in p.stderr:
            bad.append("%s: exit %d: %s" % (fmt, p.returncode, p.stderr.strip()[:160]))
    check(not bad and tree(out) == ref1, "unclear.full_disk_names_reason_and_out_path",
          "; ".join(bad) if bad else "md, html, xlsx, json, csv: exit 4 with strerror, naming the file in out/")


def main():
    tmp = tempfile.mkdtemp(prefix="gs-fo-")
    try:
        PRIVATE_TMP[0] = os.path.join(tmp, "tmpdir")
        os.makedirs(PRIVATE_TMP[0])
        s12 = write_spec(tmp, "s12", ["A", "B"])
        s1 = write_spec(tmp, "s1", ["A"])
        s_new = write_spec(tmp, "snew", ["A", "C"], gpus=("t4", "rtx-4090", "a100-80gb"))
        for name, s in (("ref12", s12), ("ref1", s1), ("refnew", s_new)):
            REF[name] = fresh(tmp, name, s)
            SNAP[name] = tree(REF[name])
        for fn, args in ((t_parallel, (s12, s_new, SNAP["ref12"], SNAP["refnew"])),
                         (t_manifest, (s12, s1)), (t_legacy, (s12, s1)), (t_every_rename, (s12, s_new)),
                         (t_blocked, (s_new,)), (t_sweep_locks, (s1,)), (t_symlinks, (s1,)),
                         (t_rows, ()), (t_zero_rows, ()), (t_killed_check, ()), (t_mount, (s1,)),
                         (t_tmpfs_full, (s1, s_new)),
                         (t_messages, (s1,))):
            try:
                fn(tmp, *args)
            except Exception as ex:  # one broken case must not hide the others
                check(False, fn.__name__ + ".raised", repr(ex)[:300])
    finally:
        subprocess.run(["chattr", "-R", "-i", tmp], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    return check.status()


if __name__ == "__main__":
    sys.exit(main())
