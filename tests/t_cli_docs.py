"""The option tables are the one description of the command line: every option
in them appears in the command's --help, in gpusizer.1 and in the README, and
no other option does (tools/doc-options.py keeps the generated lists current)."""
import json
import os
import re
import subprocess
import sys

from lib import EXE, GS, TOP, Checks

check = Checks("options: ")

# Options that are not a command's: the grammar's placeholders, the top level's
# --version, `gpusizer help --options`, litgpt's own flag quoted in the
# settings' details, tools/nightly.sh's flag and apt-get's.
NOT_OURS = {"name": "the grammar's placeholder (--name VALUE)",
            "no-name": "the grammar's placeholder (--no-name)",
            "version": "gpusizer --version (top level, no command)",
            "options": "gpusizer help --options",
            "quantize": "litgpt's --quantize bnb.nf4, quoted",
            "propose": "tools/nightly.sh --propose (a script's flag, not gpusizer's)",
            "no-install-recommends": "apt-get's, in the line tools/deps.sh prints"}


def run(*args):
    return subprocess.run(GS + list(args), capture_output=True, text=True, timeout=60)


r = run("help", "--options")
check(r.returncode == 0, "gpusizer help --options exits 0", r.stderr)
cmds = {c["name"]: c for c in json.loads(r.stdout)["commands"]}
check(set(cmds) == {"estimate", "plan", "report", "fetch", "verify", "list"}, "a table for every command", sorted(cmds))


def names(c):
    out = set()
    for o in c["options"]:
        out.add(o["name"])
        if o["bool"]:
            out.add("no-" + o["name"])
    return out


every = set().union(*(names(c) for c in cmds.values()))
LONG = re.compile(r"(?<![\w-])--([a-z][a-z0-9-]*)")

# --help: every option of the table, and no other; `gpusizer help CMD` is the same text.
for name, c in cmds.items():
    r = run(name, "--help")
    h = run("help", name)
    check(r.returncode == 0 and h.returncode == 0 and r.stdout == h.stdout,
          "%s: --help and `gpusizer help %s` print the same text" % (name, name), (r.returncode, h.returncode))
    toks = set(LONG.findall(r.stdout))
    missing = sorted(o["name"] for o in c["options"] if o["name"] not in toks)
    check(not missing, "%s --help lists every option of its table" % name, missing)
    extra = sorted(toks - names(c))
    check(not extra, "%s --help names no option its table lacks" % name, extra)
    for o in c["options"]:
        if o["short"]:
            check(re.search(r"(?m)^\s+-%s, --%s\b" % (o["short"], o["name"]), r.stdout) is not None,
                  "%s --help shows -%s with --%s" % (name, o["short"], o["name"]))
    for must in ("help", "quiet", "verbose"):
        check(any(o["name"] == must for o in c["options"]), "%s takes --%s" % (name, must))

# The generated lists in gpusizer.1 and README.md are current.
p = subprocess.run([sys.executable, os.path.join(TOP, "tools", "doc-options.py"), "--gpusizer", EXE, "--check"],
                   capture_output=True, text=True, timeout=60)
check(p.returncode == 0, "gpusizer.1 and README.md list the options the code parses (make docs)",
      p.stdout + p.stderr)

# gpusizer.1: per command section, only that command's options; elsewhere only ours.
with open(os.path.join(TOP, "gpusizer.1"), encoding="utf-8") as f:
    man = f.read()
MAN_LONG = re.compile(r"(?<![\w\\-])\\-\\-([a-z][a-z0-9]*(?:\\-[a-z0-9]+)*)")


def man_tokens(text):
    return {t.replace("\\-", "-") for t in MAN_LONG.findall(text)}


sections = re.split(r"(?m)^\.S[SH] ", man)
for sec in sections:
    title = sec.split("\n", 1)[0].strip().strip('"')
    key = title.split()[0] if title else ""
    toks = man_tokens(sec)
    if title.startswith("Settings in detail"):
        allowed, what = names(cmds["estimate"]) | names(cmds["verify"]), "estimate's and verify's"
    elif key in cmds:
        allowed, what = names(cmds[key]), key + "'s"
    else:
        allowed, what = every, "some command's"
    extra = sorted(t for t in toks - allowed if t not in NOT_OURS)
    check(not extra, "gpusizer.1 section '%s': every option named is %s" % (title[:40], what), extra)
    if key in cmds:
        missing = sorted(n for n in names(cmds[key]) if n not in toks and not n.startswith("no-"))
        check(not missing, "gpusizer.1 section '%s' lists every option of %s" % (key, key), missing)

# README: every option appears; every option named is one of ours.
with open(os.path.join(TOP, "README.md"), encoding="utf-8") as f:
    readme = f.read()
toks = set(LONG.findall(readme))
missing = sorted(n for n in every if n not in toks and not n.startswith("no-"))
check(not missing, "README names every option of every command", missing)
extra = sorted(t for t in toks - every if t not in NOT_OURS)
check(not extra, "README names no option the code lacks", extra)

sys.exit(check.status())
