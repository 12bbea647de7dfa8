#!/usr/bin/env python3
"""List the C functions longer than a limit (default 120 lines), in the
house style: a definition's header starts at column 0 and its body opens
with a '{' alone at column 0 and closes with a '}' alone at column 0. A
function's length runs from the first line of its header to its closing
brace. Prints "LINES FILE:LINE NAME" per function over the limit, longest
first; exits 1 when there is one.

    python3 tools/fnlen.py [--max N] FILE|DIR ...
"""
import os
import re
import sys


def functions(path):
    """(name, first line, length) of every function definition in path."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    out, i = [], 0
    while i < len(lines):
        if lines[i] == "{" and i > 0:
            j = i - 1  # back over the header's continuation lines
            while j > 0 and lines[j][:1] in (" ", "\t") and lines[j].strip():
                j -= 1
            k = i + 1
            while k < len(lines) and lines[k] != "}":
                k += 1
            m = re.search(r"(\w+)\s*\(", lines[j])
            if m and not lines[j].startswith(("#", "/", "*", " ")):
                out.append((m.group(1), j + 1, k - j + 1))
            i = k
        i += 1
    return out


def sources(args):
    for a in args:
        if os.path.isdir(a):
            for root, _, files in sorted(os.walk(a)):
                for f in sorted(files):
                    if f.endswith(".c"):
                        yield os.path.join(root, f)
        else:
            yield a


def main(argv):
    limit = 120
    if len(argv) > 1 and argv[0] == "--max":
        limit, argv = int(argv[1]), argv[2:]
    over = []
    for path in sources(argv):
        over += [(n, path, line, name) for name, line, n in functions(path) if n > limit]
    for n, path, line, name in sorted(over, key=lambda x: -x[0]):
        print("%5d %s:%d %s" % (n, path, line, name))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
