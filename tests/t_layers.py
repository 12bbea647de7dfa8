"""The folders of src/ are layers the compiler checks (docs/HACKING.md, "The
layout"): each folder compiles seeing only itself and the folders below it.

For every folder this compiles, with the folder's own flags as the Makefile
gives them (`make layer-flags`), a probe that includes one header of each
folder: a header of the folder itself or of a folder below it must compile,
a header of a higher folder must fail with "No such file" (gcc) or "file not found" (clang). It also checks
that the flags are the table in HACKING.md (its "sees" column), that the
table lists exactly `ls src`, and that no source file includes a header by a
path (`"../report/report.h"`), which would step around the rule."""
import os
import re
import subprocess
import sys
import tempfile

from lib import TOP, Checks

check = Checks("layers: ")
CC = os.environ.get("CC", "cc")


def layer_flags():
    p = subprocess.run(["make", "-s", "--no-print-directory", "layer-flags"], cwd=TOP,
                       capture_output=True, text=True, timeout=60)
    out = {}
    for line in p.stdout.splitlines():
        name, _, flags = line.partition(":")
        out[name.strip()] = [f[len("-Isrc/"):] for f in flags.split()]
    return out


def hacking_table():
    """{folder: [folders it sees]} from HACKING.md's layer table."""
    with open(os.path.join(TOP, "docs", "HACKING.md"), encoding="utf-8") as f:
        text = f.read()
    rows = {}
    for line in text.splitlines():
        m = re.match(r"\| `(\w+)` \| ([^|]+) \|", line)
        if m:
            sees = m.group(2).strip()
            rows[m.group(1)] = sees
    return rows


def one_header(folder):
    """A header of src/<folder> that compiles on its own (the first by name)."""
    hs = sorted(h for h in os.listdir(os.path.join(TOP, "src", folder)) if h.endswith(".h"))
    return hs[0] if hs else None


def compiles(flags, header, tmp):
    src = os.path.join(tmp, "probe.c")
    with open(src, "w") as f:
        f.write('#include "%s"\nint gs_probe(void);\nint gs_probe(void) { return 0; }\n' % header)
    pkg = subprocess.run(["pkg-config", "--cflags", "libcurl", "libcjson", "xlsxwriter", "libcmark-gfm", "zlib"],
                         capture_output=True, text=True).stdout.split()
    p = subprocess.run([CC, "-std=c11", "-D_DEFAULT_SOURCE", "-fsyntax-only"] + ["-I" + os.path.join(TOP, "src", d)
                        for d in flags] + pkg + [src], capture_output=True, text=True, timeout=60)
    return p.returncode == 0, p.stderr


def main():
    flags = layer_flags()
    folders = sorted(d for d in os.listdir(os.path.join(TOP, "src"))
                     if os.path.isdir(os.path.join(TOP, "src", d)))
    check(sorted(k for k in flags if k != "main") == folders, "the Makefile's layers are ls src",
          "make: %s, ls src: %s" % (sorted(flags), folders))
    table = hacking_table()
    check(sorted(table) == folders, "HACKING.md's layer table lists ls src",
          "table: %s, ls src: %s" % (sorted(table), folders))
    for d in folders:
        seen = sorted(flags.get(d, []))
        doc = table.get(d, "")
        doc_set = sorted(folders) if doc == "every folder" else sorted(x.strip() for x in doc.split(","))
        check(seen == doc_set, "%s sees what HACKING.md says" % d, "make: %s, HACKING.md: %s" % (seen, doc_set))
        check(d in seen, "%s sees itself" % d, str(seen))
    # the layers are ordered: a folder never sees one that sees it
    for a in folders:
        for b in folders:
            if a != b and b in flags.get(a, []):
                check(a not in flags.get(b, []), "no circle between %s and %s" % (a, b))
    headers = {d: one_header(d) for d in folders}
    tried = refused = 0
    with tempfile.TemporaryDirectory(prefix="gs-layers.") as tmp:
        for d in folders:
            for other in folders:
                h = headers[other]
                if h is None:
                    continue
                ok, err = compiles(flags[d], h, tmp)
                if other in flags[d]:
                    check(ok, "%s may include %s/%s" % (d, other, h), err.strip()[-300:])
                else:
                    tried += 1
                    # gcc: "No such file or directory"; clang (make sanitize): "file not found"
                    bad = not ok and ("No such file" in err or "file not found" in err)
                    refused += bad
                    check(bad, "%s including %s/%s does not compile" % (d, other, h),
                          "compiled" if ok else err.strip()[-300:])
    check(tried > 0 and refused == tried, "every wrong-layer include fails (%d of %d)" % (refused, tried))
    # no include by path steps around the folders' flags
    by_path = []
    for root, _dirs, files in os.walk(os.path.join(TOP, "src")):
        for n in files:
            if n.endswith((".c", ".h")):
                with open(os.path.join(root, n), encoding="utf-8") as f:
                    for i, line in enumerate(f, 1):
                        if re.match(r'\s*#\s*include\s+"[^"]*/', line):
                            by_path.append("%s:%d" % (os.path.relpath(os.path.join(root, n), TOP), i))
    check(not by_path, "no source includes a header by path", ", ".join(by_path[:5]))
    return check.status()


if __name__ == "__main__":
    sys.exit(main())
