#!/usr/bin/env python3
"""What `make valgrind` runs under memcheck, against what the whole suite would.

`make valgrind` runs every unit binary and only the test files named in the
Makefile's VALGRIND_TESTS under valgrind. This tool measures what that set
leaves out: it runs every unit binary and every test file of the check tier
(and, with --apps, the application tests) against a gcov build
(build/cov), each with GS_WRAP set to a wrapper that gives the wrapped
process a GCOV_PREFIX of that file's own, so that only the code run
through GS_WRAP (what valgrind would see) is counted, file by file. Then it
prints, per folder of src/, the lines the whole suite runs under the wrapper
and those the valgrind set runs, the files of the set with what each adds,
the other files with what each would add, and the functions the set never
enters that the suite does.

  python3 tools/valgrind-coverage.py [--apps] [--jobs N] [--set "test_ t_cli.py ..."]

--set defaults to the Makefile's VALGRIND_TESTS (the word "test_" stands for
every unit binary). Needs gcc's gcov; takes a few minutes (`make
valgrind-coverage` runs it).
"""
import argparse
import collections
import concurrent.futures
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COV = os.path.join(TOP, "build", "cov")


def make(*args):
    return subprocess.run(["make", "--no-print-directory", "-C", TOP] + list(args),
                          capture_output=True, text=True)


def test_files(apps):
    """The unit binaries and the test files of the check tier (and of the
    apps tier with apps), as tests/run.sh finds them."""
    units = sorted(p for p in glob.glob(os.path.join(COV, "tests", "test_*"))
                   if os.access(p, os.X_OK) and "." not in os.path.basename(p))
    files = []
    for p in sorted(glob.glob(os.path.join(TOP, "tests", "t_*.py")) + glob.glob(os.path.join(TOP, "tests", "t_*.sh"))):
        with open(p, encoding="utf-8") as f:
            is_app = "gpusizer-tier: apps" in "".join(f.readlines()[:30])
        if apps or not is_app:
            files.append(p)
    return units + files


def run(path, work, wrap):
    name = os.path.basename(path)
    d = os.path.join(work, "data", name)
    os.makedirs(d)
    env = dict(os.environ, GS_WRAP=wrap, COV_PREFIX=d, GPUSIZER=os.path.join(COV, "gpusizer"),
               UNIT_DIR=os.path.join(COV, "tests"), GS_TOP=TOP)
    if path.startswith(COV):
        cmd = [wrap, path]
    else:
        cmd = [sys.executable, path] if path.endswith(".py") else ["sh", path]
    p = subprocess.run(cmd, cwd=TOP, env=env, capture_output=True, text=True)
    fails = [ln for ln in p.stdout.splitlines() if ln.startswith("FAIL ")]
    return name, p.returncode, fails


def lines_of(name, work):
    """{(source, line)} that the file's wrapped processes ran, and
    {(source, function)} they entered."""
    d = os.path.join(work, "data", name)
    lines, funcs = set(), set()
    for g in glob.glob(os.path.join(d, "**", "*.gcda"), recursive=True):
        rel = os.path.relpath(g, d + COV)
        if rel.startswith(("tests", "speed", "bench", "..")):
            continue
        shutil.copy(os.path.join(COV, rel[:-5] + ".gcno"), g[:-5] + ".gcno")
        p = subprocess.run(["gcov", "-j", "-t", os.path.basename(g)], cwd=os.path.dirname(g),
                           capture_output=True, text=True)
        for doc in p.stdout.splitlines():
            if not doc.startswith("{"):
                continue
            for f in json.loads(doc)["files"]:
                if not f["file"].startswith("src/"):
                    continue
                for ln in f["lines"]:
                    if ln["count"] > 0:
                        lines.add((f["file"], ln["line_number"]))
                for fn in f.get("functions", []):
                    if fn.get("execution_count", 0) > 0:
                        funcs.add((f["file"], fn["name"]))
    return name, lines, funcs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--apps", action="store_true", help="count the application tests too")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--set", help="the valgrind set (default: the Makefile's VALGRIND_TESTS)")
    a = ap.parse_args()
    words = (a.set or make("-s", "print-valgrind-tests").stdout).split()
    if not words:
        sys.exit("valgrind-coverage: no valgrind set (make print-valgrind-tests printed nothing)")
    if shutil.which("gcov") is None:
        sys.exit("valgrind-coverage: needs gcc's gcov")
    b = make("BUILD=build/cov", "CFLAGS=-O0 -g --coverage", "LDFLAGS=--coverage",
             "build/cov/gpusizer", "units", "build/cov/speed/driver")
    if b.returncode:
        sys.exit("valgrind-coverage: the gcov build failed:\n" + b.stderr[-2000:])
    work = tempfile.mkdtemp(prefix="gs-vgcov.")
    try:
        wrap = os.path.join(work, "wrap")
        with open(wrap, "w") as f:
            f.write('#!/bin/sh\nexport GCOV_PREFIX="$COV_PREFIX"\nexec "$@"\n')
        os.chmod(wrap, 0o755)
        files = test_files(a.apps)
        bad = []
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
            for name, rc, fails in ex.map(lambda p: run(p, work, wrap), files):
                if rc or fails:
                    bad.append("%s (exit %d) %s" % (name, rc, "; ".join(fails[:2])))
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
            got = {n: (ls, fs) for n, ls, fs in ex.map(lambda p: lines_of(os.path.basename(p), work), files)}
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def chosen(n):
        return any(w in n for w in words)
    every = set().union(*(ls for ls, _ in got.values()))
    inset = set().union(*(ls for n, (ls, _) in got.items() if chosen(n)))
    f_every = set().union(*(fs for _, fs in got.values()))
    f_inset = set().union(*(fs for n, (_, fs) in got.items() if chosen(n)))
    print("valgrind set: %s" % " ".join(words))
    print("%-8s %14s %14s %8s" % ("folder", "whole suite", "valgrind set", "share"))
    by = collections.Counter(s.split("/")[1] for s, _ in every)
    byset = collections.Counter(s.split("/")[1] for s, _ in inset)
    for folder in sorted(by) + ["all"]:
        n, m = (len(every), len(inset)) if folder == "all" else (by[folder], byset[folder])
        print("%-8s %8d lines %8d lines %7.1f%%" % (folder, n, m, 100.0 * m / max(n, 1)))
    print("functions: the whole suite enters %d, the valgrind set %d" % (len(f_every), len(f_inset)))
    units = set().union(*(ls for n, (ls, _) in got.items() if n.startswith("test_")))
    print("\nthe set's files, each with the lines it adds beyond the unit binaries and the files before it:")
    cur = set(units)
    for n in sorted((n for n in got if chosen(n) and not n.startswith("test_")),
                    key=lambda n: -len(got[n][0] - units)):
        print("  %-26s +%d" % (n, len(got[n][0] - cur)))
        cur |= got[n][0]
    print("\nthe other files, each with the lines it alone would add to the set:")
    for n in sorted((n for n in got if not chosen(n)), key=lambda n: -len(got[n][0] - inset)):
        print("  %-26s +%d" % (n, len(got[n][0] - inset)))
    missed = sorted(f_every - f_inset)
    print("\nfunctions the suite enters and the set does not (%d):" % len(missed))
    for s, fn in missed:
        print("  %s: %s" % (s, fn))
    if bad:
        print("\nfiles that failed under the gcov build (their lines still count): " + "; ".join(bad))
    return 0


if __name__ == "__main__":
    sys.exit(main())
