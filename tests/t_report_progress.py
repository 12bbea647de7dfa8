#!/usr/bin/env python3
"""gpusizer report: progress on stderr only when stderr is a terminal
(models done, time left); nothing on stderr otherwise; --quiet silences it."""
import os
import pty
import shutil
import subprocess
import sys
import tempfile

from lib import GS, TOP, Checks

SMALL = os.path.join(TOP, "tests", "fixtures", "spec-small.json")
ok = Checks()


def run(out, tty, *extra):
    cmd = GS + ["report", "--spec", SMALL, "--out", out, "--offline"] + list(extra)
    if not tty:
        p = subprocess.run(cmd, cwd=TOP, capture_output=True, text=True, timeout=300)
        return p.returncode, p.stderr
    master, slave = pty.openpty()
    p = subprocess.Popen(cmd, cwd=TOP, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    chunks = []
    while True:
        try:
            b = os.read(master, 4096)
        except OSError:
            break
        if not b:
            break
        chunks.append(b)
    os.close(master)
    rc = p.wait(timeout=300)
    return rc, b"".join(chunks).decode(errors="replace")


def main():
    tmp = tempfile.mkdtemp(prefix="gs-t-progress-")
    try:
        rc, err = run(os.path.join(tmp, "a"), False)
        ok(rc == 0 and err == "", "no progress when stderr is not a terminal", repr(err[:200]))
        rc, err = run(os.path.join(tmp, "b"), True)
        ok(rc == 0 and "2/2 models" in err and "left" in err, "progress on a terminal: models done, time left",
           repr(err[:300]))
        rc, err = run(os.path.join(tmp, "c"), True, "--quiet")
        ok(rc == 0 and "models" not in err, "--quiet: no progress on a terminal", repr(err[:200]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return ok.status()


if __name__ == "__main__":
    sys.exit(main())
