"""No function over 120 lines: long phase-functions are stages
(docs/HACKING.md, Style). tools/fnlen.py lists the functions over the
limit in every folder of src/ and src/main.c. The check is tried on a
function of 121 lines first, so that it can fail."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib import TOP, Checks  # noqa: E402

ok = Checks("fn-length: ")
LIMIT = 120
TOOL = os.path.join(TOP, "tools", "fnlen.py")


def fnlen(*args):
    return subprocess.run([sys.executable, TOOL, "--max", str(LIMIT)] + list(args), capture_output=True,
                          text=True, cwd=TOP, timeout=120)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        p = os.path.join(tmp, "long.c")
        with open(p, "w") as f:
            f.write("static int short_one(void)\n{\n\treturn 0;\n}\n\n")
            f.write("int long_one(int a,\n             int b)\n{\n" + "\ta += b;\n" * (LIMIT - 3) + "}\n")
        r = fnlen(p)
        ok(r.returncode == 1 and r.stdout.split() == [str(LIMIT + 1), p + ":6", "long_one"],
           "a function of %d lines (a two-line header) is listed, a short one not" % (LIMIT + 1), r.stdout)
    files = [os.path.join("src", d, f) for d in sorted(os.listdir(os.path.join(TOP, "src")))
             if os.path.isdir(os.path.join(TOP, "src", d))
             for f in sorted(os.listdir(os.path.join(TOP, "src", d))) if f.endswith(".c")] + ["src/main.c"]
    r = fnlen(*files)
    ok(r.returncode == 0 and len(files) >= 40, "no function over %d lines in the %d files of src/" %
       (LIMIT, len(files)), r.stdout)
    return ok.status()


if __name__ == "__main__":
    sys.exit(main())
