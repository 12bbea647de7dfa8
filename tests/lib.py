"""Shared by the tests/t_*.py files: where things are, how to run gpusizer,
and the line protocol tests/run.sh counts: "PASS name" or "FAIL name: why"
per check, "SKIP name: why" for a check that cannot run here (counted as a
skip, never as a pass), and a non-zero exit status when any check failed."""
import os
import re

TOP = os.environ.get("GS_TOP") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WRAP = os.environ.get("GS_WRAP", "").split()  # e.g. valgrind: prefixes every gpusizer run
EXE = os.environ.get("GPUSIZER", os.path.join(TOP, "gpusizer"))
GS = WRAP + [EXE]
# The test build (make check builds it: build/test/gpusizer), the one with
# fault points (src/base/fault.h, GPUSIZER_FAULT); the fault tests run it.
FAULT_EXE = os.environ.get("GPUSIZER_TESTING", os.path.join(TOP, "build", "test", "gpusizer"))
# The project's shared material beside the repository. Tests read their
# fixtures from the repository (tests/fixtures/, tests/accuracy/, ...); only
# Checks.shared_copy looks here, to catch a vendored copy drifting from its
# source, and skips (counted) where there is no ../shared.
SHARED = os.path.join(os.path.dirname(TOP), "shared")


def same_bytes(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


class Checks:
    """check(cond, name, why="") prints the PASS/FAIL line and counts the
    failures; prefix starts every name; why_on_pass also prints why after a
    PASS (as a note)."""

    def __init__(self, prefix="", why_on_pass=False):
        self.prefix, self.why_on_pass, self.failed = prefix, why_on_pass, 0

    def __call__(self, cond, name, why=""):
        if cond:
            note = " (%s)" % why if self.why_on_pass and why else ""
            print("PASS %s%s%s" % (self.prefix, name, note), flush=True)
        else:
            self.failed += 1
            print("FAIL %s%s: %s" % (self.prefix, name, why if why != "" else "check failed"), flush=True)
        return bool(cond)

    def skip(self, name, why):
        """Prints the SKIP line for a check that cannot run here, with the
        reason (tests/run.sh counts it as a skip; CI allows only the skips
        listed in .ci/skips-*)."""
        print("SKIP %s%s: %s" % (self.prefix, name, why), flush=True)

    def shared_copy(self, name, src, copy, suffix=""):
        """Checks that copy (a file or a directory of the repository) holds
        byte copies of ../shared/src: the file itself, or every file of the
        directory whose name ends in suffix. A counted SKIP where
        ../shared/src is absent."""
        path = os.path.join(SHARED, src)
        if not os.path.exists(path):
            self.skip(name, "no ../shared/%s to compare the copy with" % src)
            return None
        if os.path.isdir(path):
            pairs = [(os.path.join(path, n), os.path.join(copy, n)) for n in sorted(os.listdir(path))
                     if n.endswith(suffix) and os.path.isfile(os.path.join(path, n))]
        else:
            pairs = [(path, copy)]
        bad = [os.path.relpath(b, TOP) for a, b in pairs if not os.path.isfile(b) or not same_bytes(a, b)]
        return self(pairs and not bad, name, "missing or different from ../shared/%s: %s" % (
            src, ", ".join(bad[:10]) if pairs else "nothing there to compare"))

    def status(self):
        """The exit status for the test file."""
        return 1 if self.failed else 0


def md_tables(text):
    """Each Markdown table of text: its rows (header first, the delimiter
    row left out) as lists of cell texts."""
    out, cur = [], []
    for ln in text.split("\n") + [""]:
        if ln.startswith("|"):
            cells = [c.strip() for c in ln.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                cur.append(cells)
        elif cur:
            out.append(cur)
            cur = []
    return out


def clean_env(tmp, **extra):
    """An environment with no GPUSIZER_*, HF_* or XDG cache settings from
    outside, no proxy, an empty HOME under tmp, HF_HUB_OFFLINE=1 and no NVML;
    extra entries are added last."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GPUSIZER_", "HF_", "HUGGING")) and k != "XDG_CACHE_HOME"
           and not k.lower().endswith("_proxy")}
    env.update(HOME=os.path.join(tmp, "home"), HF_HUB_OFFLINE="1", GPUSIZER_NVML_LIB="/nonexistent")
    env.update(extra)
    return env
