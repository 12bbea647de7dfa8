"""tools/deps.sh, run for real without root and without the network.

Each case runs a copy of tools/deps.sh as an unprivileged user (as root:
setpriv to nobody; otherwise as the user running the tests) with a PATH that
holds every command of the system's PATH except sudo and pkg-config, plus
stand-ins: a pkg-config that reports the modules of its case missing (and
asks the real one about the rest), and where a case says so a sudo or an
apt-get that only log their arguments. Checks: something missing and no
sudo gives exactly one line on stderr naming `apt-get install` and exactly
the missing packages, and a non-zero exit; nothing missing prints nothing
and exits 0; pkg-config or cc themselves missing are named too; a sudo is
used non-interactively (`sudo -n`), and a sudo that needs a password gets
the same one line; as root, apt-get is called with the missing packages and
deps.sh re-checks afterwards. No package is installed and nothing touches
the network."""
import hashlib
import os
import pwd
import shutil
import subprocess
import sys
import tempfile

from lib import TOP, Checks

say = Checks("deps: ")
ROOT = os.geteuid() == 0
SYS_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
REAL_PKG_CONFIG = shutil.which("pkg-config", path=SYS_PATH) or ""
if ROOT:
    NOBODY = pwd.getpwnam("nobody")
    AS_USER = ["setpriv", "--reuid=%d" % NOBODY.pw_uid, "--regid=%d" % NOBODY.pw_gid, "--clear-groups"]
else:
    AS_USER = []



def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# The system's own commands that the stand-ins stand in for: unchanged at the end.
REAL = {n: shutil.which(n, path=SYS_PATH) for n in ("apt-get", "sudo", "pkg-config")}
BEFORE = {n: digest(p) for n, p in REAL.items() if p}

tmp = tempfile.mkdtemp(prefix="gs-deps.")
os.chmod(tmp, 0o755)  # nobody runs the script and the stand-ins from here
TMPDIR = os.path.join(tmp, "tmp")  # and may write its temporary files here
os.mkdir(TMPDIR)
os.chmod(TMPDIR, 0o1777)
SCRIPT = os.path.join(tmp, "deps.sh")
shutil.copyfile(os.path.join(TOP, "tools", "deps.sh"), SCRIPT)
os.chmod(SCRIPT, 0o755)


def write(path, text, mode=0o755):
    """Creates path (a new file: never through a link, never over a file,
    so a stand-in cannot replace the system's command)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def farm(name, without=(), standins=None):
    """A bin directory: a link to every command of SYS_PATH except sudo,
    pkg-config and `without`, then the stand-ins {name: script text}."""
    d = os.path.join(tmp, name)
    os.mkdir(d)
    os.chmod(d, 0o755)
    standins = standins or {}
    skip = {"sudo", "pkg-config"} | set(without) | set(standins)
    for sd in SYS_PATH.split(":"):
        try:
            names = os.listdir(sd)
        except OSError:
            continue
        for n in names:
            p = os.path.join(sd, n)
            if n in skip or os.path.lexists(os.path.join(d, n)) or not os.path.isfile(p):
                continue
            os.symlink(os.path.realpath(p), os.path.join(d, n))
    for n, text in standins.items():
        write(os.path.join(d, n), text)
    return d


def state(name, text=""):
    """A file the stand-ins (running as nobody) read and write."""
    p = os.path.join(tmp, name)
    write(p, text, 0o666)
    return p


def pkg_config(missing_file, log):
    """Reports the modules listed in missing_file missing; asks the real
    pkg-config about the rest (and about anything that is not --exists)."""
    return """#!/bin/sh
echo "$*" >>%(log)s
if [ "$1" = --exists ]; then
	for m in $(cat %(missing)s); do [ "$m" != "$2" ] || exit 1; done
fi
exec %(real)s "$@"
""" % {"log": log, "missing": missing_file, "real": REAL_PKG_CONFIG or "false"}


def run(bindir, extra_args=()):
    env = {"PATH": bindir, "LC_ALL": "C", "HOME": tmp, "TMPDIR": TMPDIR}
    try:
        p = subprocess.run(AS_USER + ["/bin/sh", SCRIPT] + list(extra_args), cwd=tmp, env=env,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None, "", "timed out"
    return p.returncode, p.stdout, p.stderr


def install_names(line):
    """The package names after `apt-get install ... --no-install-recommends`
    in the line, or None when the line names no such command."""
    key = "apt-get install -y --no-install-recommends "
    if key not in line:
        return None
    return line.split(key, 1)[1].split()


def one_line_naming(name, rc, out, err, expect):
    lines = err.splitlines()
    say(rc not in (0, None), name + ": exits non-zero", "exit %r, stderr %r" % (rc, err))
    say(out == "", name + ": nothing on stdout", repr(out))
    say(len(lines) == 1, name + ": exactly one line on stderr", repr(err))
    line = lines[0] if lines else ""
    got = install_names(line)
    say(line.startswith("gpusizer deps: ") and "run as root: " in line and got is not None,
        name + ": the line says to run apt-get install as root", repr(line))
    say(got is not None and sorted(got) == sorted(expect),
        name + ": it names exactly the missing packages " + " ".join(expect), repr(line))
    say("not found" not in err and "sudo:" not in err,
        name + ": no shell or sudo error instead of the message", repr(err))


if not REAL_PKG_CONFIG:
    say(False, "setup: pkg-config is installed (make check's tools/deps.sh installs it)",
        "no pkg-config in " + SYS_PATH)
    sys.exit(say.status())

# The set-up is honest: the script really runs unprivileged, with no sudo.
plain = farm("bin-plain")
p = subprocess.run(AS_USER + ["/bin/sh", "-c", "id -u; command -v sudo || echo no-sudo"],
                   env={"PATH": plain}, capture_output=True, text=True, timeout=60)
ids = p.stdout.split()
say(p.returncode == 0 and len(ids) == 2 and ids[0] != "0" and ids[1] == "no-sudo",
    "setup: the script runs as a user other than root, with no sudo on PATH", repr(p.stdout + p.stderr))

# ---- 1. zlib and cJSON missing, no root, no sudo
missing = state("missing.1", "zlib libcjson\n")
log = state("pc.1.log")
b = farm("bin-1", standins={"pkg-config": pkg_config(missing, log)})
rc, out, err = run(b)
one_line_naming("zlib and cJSON missing, no sudo", rc, out, err, ["zlib1g-dev", "libcjson-dev"])
with open(log) as f:
    asked = f.read().split("\n")
say("--exists zlib" in asked and "--exists libcjson" in asked,
    "the pkg-config stand-in was asked about zlib and libcjson", repr(asked))

# ---- 2. nothing missing: silent, exit 0 (everything else is really here,
# as make check installed it before the tests)
missing = state("missing.2", "")
log = state("pc.2.log")
b = farm("bin-2", standins={"pkg-config": pkg_config(missing, log)})
rc, out, err = run(b)
say(rc == 0 and out == "" and err == "", "nothing missing: silent, exit 0",
    "exit %r, stdout %r, stderr %r" % (rc, out, err))
with open(log) as f:
    asked = f.read()
say("--exists zlib" in asked, "nothing missing: zlib was still checked (through pkg-config)", repr(asked))

# ---- 3. the tools themselves: no pkg-config at all (dpkg answers for the
# modules), no cc
b = farm("bin-3", without=("cc",))
rc, out, err = run(b)
one_line_naming("no pkg-config and no cc", rc, out, err, ["gcc", "pkg-config"])

# ---- 4. a sudo that works without a password: used as `sudo -n`, with
# apt-get; the stand-in installs nothing, so deps.sh re-checks and fails
missing = state("missing.4", "zlib\n")
sudo_log = state("sudo.4.log")
b = farm("bin-4", standins={
    "pkg-config": pkg_config(missing, state("pc.4.log")),
    "sudo": '#!/bin/sh\necho "$*" >>%s\nexit 0\n' % sudo_log})
rc, out, err = run(b)
with open(sudo_log) as f:
    calls = [c for c in f.read().split("\n") if c]
say(calls != [] and all(c.startswith("-n ") for c in calls),
    "sudo: every call is non-interactive (sudo -n)", repr(calls))
inst = [c for c in calls if "apt-get install" in c]
say(len(inst) == 1 and inst[0].split()[-1] == "zlib1g-dev" and "DEBIAN_FRONTEND=noninteractive" in inst[0]
    and "--no-install-recommends" in inst[0] and "-y" in inst[0].split(),
    "sudo: apt-get install -y --no-install-recommends zlib1g-dev, non-interactive", repr(calls))
say(rc not in (0, None) and "still missing after apt-get: zlib1g-dev" in err,
    "sudo: an install that leaves zlib missing is found by the re-check (exit non-zero)",
    "exit %r, stderr %r" % (rc, err))

# ---- 5. a sudo that needs a password: the same one line, no apt-get
sudo_log = state("sudo.5.log")
b = farm("bin-5", standins={
    "pkg-config": pkg_config(state("missing.5", "zlib\n"), state("pc.5.log")),
    "sudo": '#!/bin/sh\necho "$*" >>%s\necho "sudo: a password is required" >&2\nexit 1\n' % sudo_log})
rc, out, err = run(b)
one_line_naming("sudo needs a password", rc, out, err, ["zlib1g-dev"])
with open(sudo_log) as f:
    calls = [c for c in f.read().split("\n") if c]
say(calls and not any("apt-get" in c for c in calls), "sudo needs a password: apt-get is never run", repr(calls))

# ---- 6. as root: apt-get (a stand-in that "installs" by clearing the
# missing list) gets the missing packages, and the re-check passes
if ROOT:
    missing = state("missing.6", "zlib xlsxwriter\n")
    apt_log = state("apt.6.log")
    b = farm("bin-6", standins={
        "pkg-config": pkg_config(missing, state("pc.6.log")),
        "apt-get": '#!/bin/sh\necho "$DEBIAN_FRONTEND apt-get $*" >>%s\n'
                   'case "$*" in *install*) : >%s ;; esac\nexit 0\n' % (apt_log, missing)})
    env = {"PATH": b, "LC_ALL": "C", "HOME": tmp, "TMPDIR": TMPDIR}
    p = subprocess.run(["/bin/sh", SCRIPT], cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=120)
    with open(apt_log) as f:
        calls = [c for c in f.read().split("\n") if c]
    inst = [c for c in calls if " apt-get install " in c]
    say(p.returncode == 0 and p.stdout == ""
        and p.stderr == "gpusizer deps: installing: libxlsxwriter-dev zlib1g-dev\n",
        "root: one 'installing' line, then exit 0 once the re-check passes",
        "exit %r, stdout %r, stderr %r" % (p.returncode, p.stdout, p.stderr))
    say(len(inst) == 1 and inst[0].startswith("noninteractive ")
        and sorted(install_names(inst[0].replace(" -qq", "")) or []) == ["libxlsxwriter-dev", "zlib1g-dev"],
        "root: apt-get install -y --no-install-recommends with exactly the missing packages", repr(calls))
else:
    print("SKIP deps: root's apt-get path (not running as root)")

after = {n: digest(p) for n, p in REAL.items() if p}
say(after == BEFORE, "the system's apt-get, sudo and pkg-config are unchanged (%s)" % ", ".join(sorted(BEFORE)),
    "changed: %s" % [n for n in BEFORE if after.get(n) != BEFORE[n]])
shutil.rmtree(tmp, ignore_errors=True)
sys.exit(say.status())
