#!/usr/bin/env python3
"""The tests read their fixtures from the repository, never from ../shared.

- tests/fixtures/models-reference/ is a byte-for-byte mirror of the
  project's ../shared/models-reference/ (a counted SKIP where ../shared is
  absent), and every config its index.json lists is there;
- no test source that make check runs (tests/unit/*.c, tests/*.py,
  tests/speed/*.py) makes a path into ../shared: a C string literal or a
  Python string (docstrings aside) that starts with "../shared", or a
  Python string "shared" (a path component). tests/lib.py is the one
  exception: its SHARED serves Checks.shared_copy, which skips where
  ../shared is absent.
"""
import ast
import glob
import json
import os
import re
import sys

from lib import SHARED, TOP, Checks

check = Checks("fixtures: ")
REF = os.path.join(TOP, "tests", "fixtures", "models-reference")

# the mirror of ../shared/models-reference, and no file beyond it
check.shared_copy("models-reference is a copy of ../shared/models-reference", "models-reference", REF)
shared_ref = os.path.join(SHARED, "models-reference")
if os.path.isdir(shared_ref):
    extra = sorted(set(os.listdir(REF)) - set(os.listdir(shared_ref)))
    check(not extra, "models-reference holds nothing that ../shared/models-reference does not",
          "extra: %s" % ", ".join(extra))
with open(os.path.join(REF, "index.json")) as f:
    listed = [m["file"] for m in json.load(f)["models"]]
missing = [n for n in listed if not os.path.isfile(os.path.join(REF, n))]
check(len(listed) == 17 and not missing, "models-reference: the 17 configs index.json lists are there",
      "%d listed, missing: %s" % (len(listed), ", ".join(missing)))


def c_strings(src):
    """The string literals of C source (comments removed first)."""
    src = re.sub(r"/\*.*?\*/|//[^\n]*", "", src, flags=re.S)
    return re.findall(r'"((?:[^"\\\n]|\\.)*)"', src)


def py_strings(src):
    """The string constants of Python source, docstrings left out."""
    tree = ast.parse(src)
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.add(id(first.value))
    return [n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


def reads_shared(src, is_c):
    if is_c:
        return any(s.startswith("../shared") for s in c_strings(src))
    return any(s.startswith("../shared") or s == "shared" for s in py_strings(src))


# the scan finds what it looks for, and not in comments or docstrings
check(reads_shared('/* ../shared */ static const char *p = "../shared/models-reference/x.json";', True)
      and not reads_shared('/* "../shared/x" */ static const char *p = "tests/fixtures/x";', True)
      and reads_shared('import os\np = os.path.join(TOP, "..", "shared", "measurements")\n', False)
      and not reads_shared('"""Reads ../shared/x."""\nmsg = "no ../shared/x here"\n', False),
      "the scan finds a path into ../shared in C and Python code, not in comments, docstrings or messages")
readers = []
sources = sorted(glob.glob(os.path.join(TOP, "tests", "unit", "*.c")) + glob.glob(os.path.join(TOP, "tests", "*.py"))
                 + glob.glob(os.path.join(TOP, "tests", "speed", "*.py")))
for path in sources:
    if os.path.basename(path) in ("lib.py", "t_fixtures.py"):
        continue
    with open(path, encoding="utf-8") as f:
        if reads_shared(f.read(), path.endswith(".c")):
            readers.append(os.path.relpath(path, TOP))
check(not readers, "no test makes a path into ../shared (tests/lib.py's guarded copy check aside)",
      "these do: %s (vendor the file into tests/fixtures/, or compare through Checks.shared_copy)"
      % ", ".join(readers))
sys.exit(check.status())
