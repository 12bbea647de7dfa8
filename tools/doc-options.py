#!/usr/bin/env python3
"""Write every command's option list into gpusizer.1 and README.md from the
option tables compiled into gpusizer (`gpusizer help --options`), between
the markers

    .\\" BEGIN generated options: CMD          (gpusizer.1)
    .\\" END generated options: CMD
    <!-- BEGIN generated options: CMD -->    (README.md)
    <!-- END generated options: CMD -->

so the man page and the README list exactly the options the code parses;
and the README's table of settings from the settings table
(`gpusizer list settings --json`) between

    <!-- BEGIN generated settings -->
    <!-- END generated settings -->

and the stack profiles (`gpusizer list stacks --json`) into both, between

    .\\" BEGIN generated stacks / .\\" END generated stacks     (gpusizer.1)
    <!-- BEGIN generated stacks --> / <!-- END generated stacks -->

    python3 tools/doc-options.py [--gpusizer EXE]            rewrite both files
    python3 tools/doc-options.py [--gpusizer EXE] --check    exit 1 and name the
                                                             file when one is stale

`make docs` runs the first; tests/t_cli_docs.py the second."""
import json
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def options(exe):
    out = subprocess.run([exe, "help", "--options"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["commands"]


def settings(exe):
    out = subprocess.run([exe, "list", "settings", "--json"], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)["settings"]


def stacks(exe):
    out = subprocess.run([exe, "list", "stacks", "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["stacks"]


def stack_choices(st):
    """What a profile sets, compactly: "loss fused-chunks (>= 2025.8.5; training), ..."."""
    parts = []
    for x in st["sets"]:
        scope = []
        if x["since"] or x["until"]:
            scope.append(("%s%s%s" % (">= " + x["since"] if x["since"] else "",
                                      ", " if x["since"] and x["until"] else "",
                                      "< " + x["until"] if x["until"] else "")))
        if x["when"]:
            scope.append(x["when"])
        parts.append("%s %s%s" % (x["setting"], x["value"], " (%s)" % "; ".join(scope) if scope else ""))
    return ", ".join(parts)


def stacks_md(table):
    lines = ["| you run | `--stack` | read at | over | it sets |", "|---|---|---|---|---|"]
    for st in table:
        lines.append("| %s | `%s` | %s | %s | %s |" % (md_escape(st["what"]), st["name"], st["version"],
                                                      "`%s`" % st["base"] if st["base"] else "",
                                                      md_escape(stack_choices(st))))
    return "\n".join(lines)


def stacks_man(table):
    lines = []
    for st in table:
        lines += [".TP", ".B " + roff_escape(st["name"]),
                  roff_text("%s (read at %s%s): %s." % (st["what"], st["version"],
                                                       "; over " + st["base"] if st["base"] else "",
                                                       stack_choices(st)))]
    return "\n".join(lines)


def settings_block(table):
    lines = ["| setting | values (default) | applies to | what |", "|---|---|---|---|"]
    every = ["full", "lora", "qlora", "inference"]
    for s in table:
        flag = "`--%s`" % s["name"]
        if s["type"] == "boolean" and s["values"] is None:
            flag += " / `--no-%s`" % s["name"]
        if s["values"] is not None and s["name"] != "precision":
            vals = " ".join("`%s`" % v for v in s["values"])
        elif s["type"] in ("integer", "number"):
            vals = "%s %g to %g" % (s["type"], s["min"], s["max"])
        elif s["type"] == "boolean":
            vals = "on/off"
        elif s["name"] == "precision":
            vals = "see the text"
        else:
            vals = s["type"]
        if s["default"] is not None:
            d = s["default"]
            if s["type"] == "boolean" and s["values"] is None:
                d = "on" if d == "true" else "off"
            vals += " (`%s`)" % d
        methods = "all" if s["methods"] == every else ", ".join(s["methods"])
        lines.append("| %s | %s | %s | %s |" % (flag, md_escape(vals), methods, md_escape(s["help"])))
    return "\n".join(lines)


def roff_escape(s):
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return s


def roff_text(s):
    """Help text as one roff paragraph (continuation lines joined)."""
    t = roff_escape(" ".join(part.strip() for part in s.split("\n")))
    if t.startswith(".") or t.startswith("'"):
        t = "\\&" + t
    return t


def man_block(cmd):
    lines = []
    group = None
    for o in cmd["options"]:
        if o["group"] != group:
            group = o["group"]
            lines += [".PP", '.I "%s"' % roff_text(group).replace('"', "\\(dq")]
        name = "\\-\\-" + roff_escape(o["name"])
        if o["short"]:
            head = '.BR \\-%s ", " %s' % (o["short"], name)
        elif o["bool"]:
            head = '.BR %s ", " \\-\\-no\\-%s' % (name, roff_escape(o["name"]))
        elif o["arg"]:
            head = '.BI "%s " %s' % (name, roff_escape(o["arg"]))
        else:
            head = ".B " + name
        lines += [".TP", head, roff_text(o["help"])]
    return "\n".join(lines)


def md_escape(s):
    return s.replace("|", "\\|")


def md_block(cmd):
    lines = ["<details><summary><code>gpusizer %s</code>: %d options</summary>" % (cmd["name"], len(cmd["options"])),
             "", "| option | what |", "|---|---|"]
    for o in cmd["options"]:
        names = "`--%s%s`" % (o["name"], " " + o["arg"] if o["arg"] else "")
        if o["short"]:
            names = "`-%s`, " % o["short"] + names
        if o["bool"]:
            names += ", `--no-%s`" % o["name"]
        lines.append("| %s | %s (%s) |" % (names, md_escape(" ".join(p.strip() for p in o["help"].split("\n"))),
                                             md_escape(o["group"].split(" (")[0])))
    lines += ["", "</details>"]
    return "\n".join(lines)


def rewrite(text, begin_fmt, end_fmt, blocks, path):
    for name, body in blocks.items():
        b, e = begin_fmt % name, end_fmt % name
        pat = re.compile(re.escape(b) + r"\n.*?" + re.escape(e), re.S)
        if not pat.search(text):
            raise SystemExit("%s: no '%s' ... '%s' markers" % (path, b, e))
        text = pat.sub(lambda m: b + "\n" + body + "\n" + e, text)
    return text


def main(argv):
    exe = os.path.join(TOP, "gpusizer")
    check = False
    i = 0
    while i < len(argv):
        if argv[i] == "--check":
            check = True
        elif argv[i] == "--gpusizer" and i + 1 < len(argv):
            i += 1
            exe = argv[i]
        else:
            sys.stderr.write("usage: doc-options.py [--gpusizer EXE] [--check]\n")
            return 2
        i += 1
    cmds = options(exe)
    stack_table = stacks(exe)
    stale = []
    for path, begin, end, render in (
            (os.path.join(TOP, "gpusizer.1"), '.\\" BEGIN generated options: %s', '.\\" END generated options: %s',
             man_block),
            (os.path.join(TOP, "README.md"), "<!-- BEGIN generated options: %s -->",
             "<!-- END generated options: %s -->", md_block)):
        with open(path, encoding="utf-8") as f:
            old = f.read()
        new = rewrite(old, begin, end, {c["name"]: render(c) for c in cmds}, path)
        if path.endswith("README.md"):
            new = rewrite(new, "<!-- BEGIN generated %s -->", "<!-- END generated %s -->",
                          {"settings": settings_block(settings(exe)), "stacks": stacks_md(stack_table)}, path)
        else:
            new = rewrite(new, '.\\" BEGIN generated %s', '.\\" END generated %s',
                          {"stacks": stacks_man(stack_table)}, path)
        if new != old:
            if check:
                stale.append(path)
            else:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new)
                print("doc-options: rewrote %s" % os.path.relpath(path, TOP))
    if stale:
        for p in stale:
            print("doc-options: %s lists other options than the code (run make docs)" % os.path.relpath(p, TOP))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
