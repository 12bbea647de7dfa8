"""Shared by the tests/t_*.py files: where things are, how to run gpusizer,
and the line protocol tests/run.sh counts: "PASS name" or "FAIL name: why"
per check, and a non-zero exit status when any check failed."""
import os

TOP = os.environ.get("GS_TOP") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WRAP = os.environ.get("GS_WRAP", "").split()  # e.g. valgrind: prefixes every gpusizer run
EXE = os.environ.get("GPUSIZER", os.path.join(TOP, "gpusizer"))
GS = WRAP + [EXE]
# The test build (make check builds it: build/test/gpusizer), the one with
# fault points (src/base/fault.h, GPUSIZER_FAULT); the fault tests run it.
FAULT_EXE = os.environ.get("GPUSIZER_TESTING", os.path.join(TOP, "build", "test", "gpusizer"))


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

    def status(self):
        """The exit status for the test file."""
        return 1 if self.failed else 0


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
