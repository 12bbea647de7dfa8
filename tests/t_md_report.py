#!/usr/bin/env python3
"""End to end: `gpusizer report --format md,html` on a small sweep of the
committed spec. Checks the out/ layout, that every page links to pages and
charts that exist, real HTML tables with the charts inline and nothing
external, two runs byte-identical, and that a broken template (or a missing
assumptions template) is exit 3 naming the template file and line, with the
previous reports kept."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

from lib import GS, TOP, Checks, md_tables as tables

check = Checks()


def gs(args, env=None):
    cmd = GS + args
    e = dict(os.environ)
    e.pop("GPUSIZER_TEMPLATES", None)
    if env:
        e.update(env)
    return subprocess.run(cmd, cwd=TOP, env=e, capture_output=True, text=True, timeout=300)


def files(d):
    out = {}
    for root, _, names in os.walk(d):
        for n in names:
            p = os.path.join(root, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, d)] = f.read()
    return out


SMALL = ["report", "--offline", "--quiet", "--models", "openai-community/gpt2,meta-llama/Llama-3.1-8B",
         "--seqs", "512,4096", "--batches", "1", "--format", "md,html"]

tmp = tempfile.mkdtemp(prefix="gs-t-md-")
try:
    a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
    r = gs(SMALL + ["--out", a])
    check(r.returncode == 0, "report md,html exits 0", r.stderr[-400:])
    fa = files(a)
    want = [".gpusizer-manifest", "index.md", "html/index.html"]
    for slug in ("openai-community--gpt2", "meta-llama--Llama-3.1-8B"):
        want += ["models/%s.md" % slug, "models/%s-components.svg" % slug,
                 "models/%s-context.svg" % slug, "html/models/%s.html" % slug]
    check(sorted(fa) == sorted(want), "out/ layout", repr(sorted(fa)))
    r = gs(SMALL + ["--out", b])
    fb = files(b)
    check(fa == fb, "two runs byte-identical",
          [k for k in fa if fa.get(k) != fb.get(k)])

    # Every relative link and image in the Markdown resolves.
    bad = []
    for rel, data in fa.items():
        if not rel.endswith(".md"):
            continue
        for target in re.findall(r"\]\(([^)\s]+)\)", data.decode()):
            if not os.path.exists(os.path.normpath(os.path.join(a, os.path.dirname(rel), target))):
                bad.append((rel, target))
    check(not bad, "Markdown links and chart images resolve", repr(bad))
    idx = fa.get("index.md", b"").decode()
    itabs = tables(idx)
    check(itabs and itabs[0][0] == ["model", "context", "full", "lora", "qlora", "inference"]
          and "## Plan" not in idx and "GPU class" not in itabs[0][0],
          "index: one table, a row per model and context, a column per method (no plan view)",
          repr(itabs[0][0] if itabs else None))
    page = fa.get("models/meta-llama--Llama-3.1-8B.md", b"").decode()
    check("## The answer" in page and "| configuration | device GiB |" in page
          and "#### full: what the memory holds" in page and "## The fewest GPUs of each class" in page,
          "model page: the answer, the plan view, the matrix, what the memory holds")
    # The rules of thumb are named by what they compute (the rule-of-thumb
    # counts 4 bytes of weights and 4 x 12 of Adam's states a parameter, the
    # zero1 rule 2 x 18), and the two byte-a-parameter rules shown only on
    # full fine-tune rows (QLoRA, LoRA, inference: no such states).
    heads = {}
    for sec in re.split(r"^#### ", page, flags=re.M)[1:]:
        t = tables(sec)
        if t:
            heads[sec.split(":")[0]] = t[0][0]
    check(heads.get("full", [])[-3:] == ["cookbook rule", "52 bytes per param rule", "36 bytes per param rule"]
          and all(h and h[-1] == "cookbook rule" and not any("bytes per param" in x for x in h)
                  for m, h in heads.items() if m != "full") and len(heads) == 4
          and "| 4 bytes per param" not in page and "| 18 bytes per param" not in page,
          "model page: the rules of thumb named by what they compute, byte-a-parameter ones on full rows only",
          repr(heads))
    # One answer per question: every index cell is the page's answer (class
    # and count) and names its configuration; the page's plan view marks the
    # same class and count in bold.
    bad, seen = [], 0
    for slug, mid in (("openai-community--gpt2", "gpt2"), ("meta-llama--Llama-3.1-8B", "Llama-3.1-8B")):
        pg = fa.get("models/%s.md" % slug, b"").decode()
        ptabs = tables(pg)
        ans = {(r[0], r[1]): r for r in ptabs[0][1:]} if ptabs else {}
        plan = [t for t in ptabs if t[0][:2] == ["method", "GPU class"]]
        model = None
        for row in itabs[0][1:] if itabs else []:
            if row[0]:
                model = re.sub(r"\[([^\]]*)\].*", r"\1", row[0])
            if model != mid:
                continue
            for method, cell in zip(itabs[0][0][2:], row[2:]):
                pa = ans.get((method, row[1]))
                if pa is None:
                    bad.append((mid, method, row[1], "no answer on the page"))
                    continue
                # the configuration: named in the cell, else (nothing differs
                # between the method's configurations) in the line under the table
                m = re.match(r"(\d+) x (.+?)(, tight)?(?: \u00b7 (.+))?$", cell)
                cfg = m.group(4) if m else None
                if m and cfg is None:
                    sh = re.search(r"\b%s: ([^;.]+)" % method, idx.split("shares:", 1)[-1])
                    cfg = sh.group(1) if sh else None
                if not m or not cfg or not pa[2].startswith(m.group(1) + " x ") or m.group(2) not in pa[2]:
                    bad.append((mid, method, row[1], cell, pa[2]))
                    continue
                if not set(w for w in cfg.split() if w not in ("zero3", "fsdp", "fsdp2", "ddp")) <= set(pa[3].split()):
                    bad.append((mid, method, row[1], "configuration", cell, pa[3]))
                seen += 1
                # the plan view's bold cell: that class and count
                col = plan[0][0].index(row[1]) if plan and row[1] in plan[0][0] else None
                grp, bold = None, []
                for pr in plan[0][1:] if plan else []:
                    grp = pr[0] or grp
                    if grp == method and pr[1] != "settings" and col is not None and pr[col].startswith("**"):
                        bold.append((pr[1], pr[col]))
                if len(bold) != 1 or m.group(2) not in bold[0][0] or not re.match(r"\*\*\*?%s\b" % m.group(1), bold[0][1]):
                    bad.append((mid, method, row[1], "plan view", cell, bold))
    check(seen == 12 and not bad, "index, page answer and plan view agree on every cell (%d cells)" % seen,
          repr(bad[:4]))
    check(len(page.encode()) <= 64 * 1024, "model page within 64 KiB (%d bytes)" % len(page.encode()))

    # SVG charts: well-formed XML, no external references, no scripts.
    bad = []
    for rel, data in fa.items():
        if rel.endswith(".svg"):
            try:
                root = ET.fromstring(data)
            except ET.ParseError as ex:
                bad.append((rel, str(ex)))
                continue
            if not root.tag.endswith("svg") or b"href" in data or b"<script" in data or b"url(" in data:
                bad.append((rel, "external reference or script"))
    check(not bad, "SVG charts: well-formed, self-contained", repr(bad))

    # HTML: real tables, charts inline, links between pages, nothing external.
    bad = []
    for rel, data in fa.items():
        if not rel.endswith(".html"):
            continue
        h = data.decode()
        if "<table>" not in h or "<script" in h or "<img" in h:
            bad.append((rel, "table/script/img"))
        if rel.startswith("html/models/") and h.count("<svg ") != 2:
            bad.append((rel, "svg count %d" % h.count("<svg ")))
        for target in re.findall(r'(?:href|src)="([^"]+)"', h):
            if re.match(r"[a-z]+:", target) or not os.path.exists(
                    os.path.normpath(os.path.join(a, os.path.dirname(rel), target))):
                bad.append((rel, target))
    check(not bad, "HTML: tables, inline charts, relative links that resolve, nothing external",
          repr(bad[:5]))

    # From another directory: templates are found beside the executable.
    elsewhere = os.path.join(tmp, "elsewhere")
    os.makedirs(elsewhere)
    cmd = os.environ.get("GS_WRAP", "").split() + [os.path.abspath(os.path.join(
        TOP, os.environ.get("GPUSIZER", "./gpusizer")))]
    env = dict(os.environ)
    env.pop("GPUSIZER_TEMPLATES", None)
    r = subprocess.run(cmd + ["report", "--offline", "--quiet", "--spec", os.path.join(TOP, "sizing.json"),
                              "--models-dir", os.path.join(TOP, "models"), "--gpus-dir",
                              os.path.join(TOP, "gpus"), "--models", "openai-community/gpt2",
                              "--seqs", "512", "--batches", "1", "--format", "md",
                              "--out", os.path.join(elsewhere, "out")],
                       cwd=elsewhere, env=env, capture_output=True, text=True, timeout=300)
    check(r.returncode == 0 and os.path.exists(os.path.join(elsewhere, "out", "index.md")),
          "run from another directory finds templates beside the executable", r.stderr[-300:])

    # A broken template: exit 3, file and line named, previous reports kept.
    tdir = os.path.join(tmp, "templates")
    shutil.copytree(os.path.join(TOP, "templates"), tdir)
    with open(os.path.join(tdir, "partials", "legend.md.tmpl"), "a") as f:
        f.write("ok\n{{ no_such_value }}\n")
    n_lines = open(os.path.join(tdir, "partials", "legend.md.tmpl")).read().count("\n")
    r = gs(SMALL + ["--out", a], env={"GPUSIZER_TEMPLATES": tdir})
    check(r.returncode == 3 and ("partials/legend.md.tmpl:%d: unknown variable 'no_such_value'" % n_lines)
          in r.stderr, "template error: exit 3 naming the template and line", r.stderr[-300:])
    check(files(a) == fa and sorted(os.listdir(tmp)) == ["a", "b", "elsewhere", "templates"],
          "template error: previous reports kept, no temporary files", repr(os.listdir(tmp)))

    # The assumptions are a template too (partials/assumptions.md.tmpl, also
    # the XLSX Assumptions sheet): missing, exit 3 naming it, nothing written.
    shutil.rmtree(tdir)
    shutil.copytree(os.path.join(TOP, "templates"), tdir)
    os.remove(os.path.join(tdir, "partials", "assumptions.md.tmpl"))
    r = gs(SMALL + ["--format", "xlsx", "--out", a], env={"GPUSIZER_TEMPLATES": tdir})
    check(r.returncode == 3 and "partials/assumptions.md.tmpl" in r.stderr,
          "assumptions template missing: exit 3 naming it", r.stderr[-300:])
    check(files(a) == fa and sorted(os.listdir(tmp)) == ["a", "b", "elsewhere", "templates"],
          "assumptions template missing: previous reports kept, no temporary files", repr(os.listdir(tmp)))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
sys.exit(check.status())
