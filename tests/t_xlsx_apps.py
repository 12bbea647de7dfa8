#!/usr/bin/env python3
# gpusizer-tier: apps (make check-apps runs it; make check does not)
"""The workbook in the applications its readers open it with.

Gnumeric (ssconvert --recalc) recalculates every formula of a report's
workbook to the value gpusizer cached; after a GPU's usable memory is
edited on the GPUs sheet, the recalculated verdicts of every model sheet
equal those of a fresh run on the edited GPU file, and so do the Summary
and the Answers sheet (the Summary's answers are formulas over the Answers
rows, theirs over the model sheets' key column and the GPUs sheet).
LibreOffice, set to recalculate on load, agrees: every formula of the
workbook to its cached value, and the edited workbook's Summary and Answers
to the fresh run's. With a token budget and priced classes, each Answers
row's cost is hours x GPUs x the GPUs sheet's price, and both applications
follow an edit of that price. LibreOffice prints the default spec's
workbook: every page carries its footer; every sheet's text at 7 pt or more
(each word's box height from pdftotext -bbox, over that of a 10 pt cell of
the workbook's font printed at 100%); the Summary on at most 10 pages, each
answer's configuration printed in its context's column; every Answers page
headed by its header row; the whole workbook on at most 1,050 pages (it was
5,465 before print set-up, 111 at 1 to 4 pt).

The applications are Debian packages (gnumeric, libreoffice-calc-nogui,
poppler-utils): `make check-apps` installs them (tools/deps.sh apps). This
test exists to run them, so a missing one is a FAIL, not a skip.
"""
import csv
import glob
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib import EXE, GS, TOP, Checks, clean_env  # noqa: E402

check = Checks("xlsx apps: ")
PACKAGES = {"ssconvert": "gnumeric", "soffice": "libreoffice-calc-nogui", "pdftotext": "poppler-utils"}


def have_apps():
    missing = ["%s (%s)" % (t, p) for t, p in PACKAGES.items() if shutil.which(t) is None]
    return check(not missing, "the applications are installed",
                 "missing %s: `sh tools/deps.sh apps` installs them (make check-apps does)" % ", ".join(missing))


def report(env, spec, out, gpus_dir):
    spec = dict(spec, out=out, gpus_dir=gpus_dir)
    path = out + ".spec.json"
    with open(path, "w") as f:
        json.dump(spec, f)
    r = subprocess.run(GS + ["report", "--spec", path, "--offline", "--quiet"], env=env,
                       capture_output=True, text=True, timeout=900)
    return r, os.path.join(out, "gpusizer.xlsx")


def sheets(path):
    """[(name, xml)] in workbook order."""
    z = zipfile.ZipFile(path)
    wb = z.read("xl/workbook.xml").decode()
    rels = z.read("xl/_rels/workbook.xml.rels").decode()
    target = dict(re.findall(r'Id="(rId\d+)" [^>]*Target="([^"]+)"', rels))
    target.update({a: b for b, a in re.findall(r'Target="([^"]+)" [^>]*Id="(rId\d+)"', rels)})
    out = []
    for name, rid in re.findall(r'<sheet name="([^"]+)" sheetId="\d+" r:id="(rId\d+)"', wb):
        out.append((name, z.read("xl/" + target[rid]).decode()))
    return out


def formulas(xml):
    """{(row0, col0): cached text} of every formula cell (array formulas too)."""
    out = {}
    # re.S: a cached text may hold a newline (the Summary's answer, then its
    # configuration on a second line).
    for ref, body in re.findall(r'<c r="([A-Z]+\d+)"[^>]*>(<f[ >].*?</c>)', xml, re.S):
        v = re.search(r"<v>(.*?)</v>", body, re.S)
        m = re.match(r"([A-Z]+)(\d+)$", ref)
        col = 0
        for ch in m.group(1):
            col = col * 26 + ord(ch) - 64
        out[(int(m.group(2)) - 1, col - 1)] = v.group(1) if v else ""
    return out


def recalc(path, work, tag):
    """Every sheet as Gnumeric recalculates it: [[row cells]] per sheet, in order."""
    base = os.path.join(work, tag + ".csv")
    r = subprocess.run(["ssconvert", "--recalc", "-S", path, base], capture_output=True, text=True,
                       timeout=900)
    files = sorted(glob.glob(base + ".*"), key=lambda p: int(p.rsplit(".", 1)[1]))
    if r.returncode != 0 or not files:
        return None
    out = []
    for p in files:
        with open(p, newline="") as f:
            out.append(list(csv.reader(f)))
    return out


def lo_recalc(path, work, tag):
    """Every sheet as LibreOffice recalculates it on load: {sheet: [[row cells]]}.
    Its profile says "always recalculate" for Excel files (by default it
    keeps the cached values); the CSV holds the values, not as shown."""
    prof = os.path.join(work, "lo-recalc-profile")
    os.makedirs(os.path.join(prof, "user"), exist_ok=True)
    with open(os.path.join(prof, "user", "registrymodifications.xcu"), "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<oor:items '
                'xmlns:oor="http://openoffice.org/2001/registry" '
                'xmlns:xs="http://www.w3.org/2001/XMLSchema" '
                'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n'
                '<item oor:path="/org.openoffice.Office.Calc/Formula/Load">'
                '<prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>\n'
                '</oor:items>\n')
    out_dir = os.path.join(work, "lo-" + tag)
    src = os.path.join(work, tag + ".xlsx")
    shutil.copyfile(path, src)
    # token 9 false: the cells' values, not as shown; token 12 -1: every sheet
    r = subprocess.run(["soffice", "-env:UserInstallation=file://" + prof, "--headless",
                        "--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,"
                        "false,false,false,-1", "--outdir", out_dir, src],
                       capture_output=True, text=True, timeout=1200)
    if r.returncode != 0:
        return None
    out = {}
    for name in (n for n, _ in sheets(path)):
        p = os.path.join(out_dir, "%s-%s.csv" % (tag, name))
        if not os.path.exists(p):
            return None
        with open(p, newline="", encoding="utf-8") as f:
            out[name] = list(csv.reader(f))
    return out


def cell(rows, r, c):
    return rows[r][c] if r < len(rows) and c < len(rows[r]) else None


def same(got, want):
    """A recalculated cell against a cached value: the same text, or the
    same number (a reader prints a few digits fewer or more)."""
    if got == want:
        return True
    try:
        # LibreOffice writes a percentage as shown ("22.3535643467665%")
        x = float(got[:-1]) / 100 if got.endswith("%") else float(got)
        y = float(want)
    except (TypeError, ValueError):
        return False
    return abs(x - y) <= 1e-9 * max(1.0, abs(y))


# The Answers sheet's columns that follow the GPU order of the GPUs sheet
# (the key and the GPU's row there): a fresh run sorts the edited GPU anew.
SUMMARY_KEY_COLS = (14, 15)


def summary_cells(xml, key_cols=()):
    """{(row0, col0): cached text} of a sheet's formula cells whose value
    does not depend on the GPUs' order (the Answers sheet: all but
    key_cols); and the Summary pivot's answers among them."""
    f = formulas(xml)
    answers = set(re.findall(r'<c r="([A-Z]+\d+)"[^>]*><f>[^<]*" x "&amp;', xml))
    pivot = {k: v for k, v in f.items() if "%s%d" % (col_name(k[1]), k[0] + 1) in answers}
    return {k: v for k, v in f.items() if k[1] not in key_cols or k in pivot}, pivot


def col_name(i):
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(65 + r) + s
    return s


def edit_gpu_cell(src, dst, gxml, gpu, col, value):
    """What a buyer does: the GPUs sheet's cell in column col of class gpu's
    row set to value, the workbook src written again as dst. False when the
    cell is not there."""
    row = next(int(m.group(1)) for m in re.finditer(r'<row r="(\d+)"[^>]*>(.*?)</row>', gxml)
               if ">%s<" % gpu in m.group(2))
    new, k = re.subn(r'(<c r="%s%d"[^>]*><v>)[^<]*(</v>)' % (col, row), r"\g<1>%s\g<2>" % value, gxml)
    if k != 1:
        return False
    zin = zipfile.ZipFile(src)
    part = [n for n in zin.namelist() if n.startswith("xl/worksheets/") and zin.read(n).decode() == gxml][0]
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            zout.writestr(item, new.encode() if item.filename == part else zin.read(item.filename))
    return True


def gnumeric(env, work, variant=None):
    """variant: spec keys over the default (the rank rule, eligible classes)."""
    os.makedirs(work)
    gpus = os.path.join(work, "gpus")
    shutil.copytree(os.path.join(TOP, "gpus"), gpus)
    spec = {
        "version": 1, "models": ["meta-llama/Llama-3.1-8B", "Qwen/Qwen2.5-7B"],
        "gpus": ["rtx-4080", "rtx-4090", "a100-80gb", "h100-sxm"],
        "gpu_counts": [{"count": 1}, {"count": 2, "sharding": "zero3"}],
        "axes": {"method": ["full", "lora", "qlora", "inference"], "optimizer": ["adamw"],
                 "grad_ckpt": [True, False], "attn": ["sdpa"], "batch": [1, 4], "seq": [512, 4096]},
        "formats": ["xlsx"], "models_dir": os.path.join(TOP, "models"),
    }
    spec.update(variant or {})
    if variant:
        print("  (spec %s)" % json.dumps(variant))
    r, a = report(env, spec, os.path.join(work, "a"), gpus)
    if not check(r.returncode == 0, "report writes the workbook", r.stderr[-400:]):
        return
    book = sheets(a)
    calc = recalc(a, work, "a")
    if not check(calc is not None and len(calc) == len(book), "Gnumeric reads and recalculates it"):
        return
    n = bad = 0
    for (name, xml), rows in zip(book, calc):
        for (r0, c0), want in formulas(xml).items():
            n += 1
            got = cell(rows, r0, c0)
            if not same(got, want):
                bad += 1
                if bad < 4:
                    print("  %s %d,%d: Gnumeric %r, cached %r" % (name, r0, c0, got, want))
    check(n > 400 and bad == 0, "every formula recalculates to its cached value (%d formulas)" % n,
          "%d differ" % bad)

    # A buyer edits the RTX 4090's usable memory to 10 GiB on the GPUs sheet.
    names = [s for s, _ in book]
    gi = names.index("GPUs")
    b = os.path.join(work, "b.xlsx")
    if not check(edit_gpu_cell(a, b, book[gi][1], "rtx-4090", "E", "10"),
                 "the usable cell of rtx-4090 found on the GPUs sheet"):
        return
    edited = recalc(b, work, "b")
    with open(os.path.join(gpus, "rtx-4090.json")) as f:
        g = json.load(f)
    g["usable_mib"] = 10240
    with open(os.path.join(gpus, "rtx-4090.json"), "w") as f:
        json.dump(g, f, indent=2)
    r, c = report(env, spec, os.path.join(work, "c"), gpus)
    if not check(edited is not None and r.returncode == 0, "recalculated after the edit; a fresh run on the edited file"):
        return
    fresh = sheets(c)
    fresh_calc = recalc(c, work, "c")  # for its header row (the columns follow usable memory)
    compared = differ = flipped = 0
    for i, (name, xml) in enumerate(book):
        if name in ("Summary", "Answers", "Plan", "GPUs", "Assumptions", "Charts"):
            continue
        fcol = {h: k for k, h in enumerate(fresh_calc[i][0])}
        want = formulas(fresh[i][1])
        before = formulas(xml)
        for (r0, c0) in before:
            head = edited[i][0][c0]
            if head.startswith("Summary key"):
                continue  # the Answers' (below): it names GPUs by their order
            v = want.get((r0, fcol.get(head, -1)))
            compared += 1
            if cell(edited[i], r0, c0) != v:
                differ += 1
            flipped += before[(r0, c0)] != v
    check(compared > 400 and differ == 0 and flipped > 0,
          "after the edit every verdict Gnumeric recalculates equals a fresh run's on the edited GPU "
          "file (%d verdicts, %d of them changed by the edit)" % (compared, flipped), "%d differ" % differ)
    pi = names.index("Plan")
    plan_now = [cell(edited[pi], r0, c0) for (r0, c0) in formulas(book[pi][1])
                if "RTX 4090" in (cell(edited[pi], r0, 5) or "")]
    check(plan_now and any(v == "does not fit" for v in plan_now),
          "the Plan sheet's live verdicts on the RTX 4090 follow the edit", repr(plan_now[:6]))

    # The Summary and its Answers sheet: unedited, every cell recalculates
    # to its cached value (in the loop above too); edited, every cell equals
    # the fresh run's.
    si = names.index("Summary")
    cached, pivot = summary_cells(book[si][1])
    fresh_sum, fresh_pivot = summary_cells(fresh[si][1])
    check(len(pivot) >= 8 and all(same(cell(calc[si], r0, c0), v) for (r0, c0), v in cached.items()),
          "Gnumeric: every Summary formula recalculates to its cached value (%d, %d answers)"
          % (len(cached), len(pivot)))
    moved = sum(pivot[k] != fresh_pivot.get(k) for k in pivot)
    off = [(k, cell(edited[si], *k), v) for k, v in fresh_sum.items() if not same(cell(edited[si], *k), v)]
    check(set(fresh_sum) == set(cached) and moved > 0 and not off,
          "Gnumeric: after the edit every Summary cell equals a fresh run's on the edited GPU file "
          "(%d cells, %d of the %d answers moved by the edit)" % (len(fresh_sum), moved, len(pivot)),
          "%d differ: %r" % (len(off), off[:3]))
    ai = names.index("Answers")
    acached, _ = summary_cells(book[ai][1], SUMMARY_KEY_COLS)
    fresh_ans, _ = summary_cells(fresh[ai][1], SUMMARY_KEY_COLS)
    check(len(acached) >= 8 * 10 and all(same(cell(calc[ai], r0, c0), v) for (r0, c0), v in acached.items()),
          "Gnumeric: every Answers formula recalculates to its cached value (%d)" % len(acached))
    amoved = sum(acached[k] != fresh_ans.get(k) for k in acached)
    aoff = [(k, cell(edited[ai], *k), v) for k, v in fresh_ans.items() if not same(cell(edited[ai], *k), v)]
    check(set(fresh_ans) == set(acached) and amoved > 0 and not aoff,
          "Gnumeric: after the edit every Answers cell equals a fresh run's on the edited GPU file "
          "(%d cells, %d moved by the edit)" % (len(fresh_ans), amoved),
          "%d differ: %r" % (len(aoff), aoff[:3]))
    gone = [k for k, v in pivot.items() if "RTX 4090" in v and "RTX 4090" not in (cell(edited[si], *k) or "")]
    check(gone, "Gnumeric: answers on the shrunk RTX 4090 move to another class (%d)" % len(gone))

    # LibreOffice, recalculating on load: the same.
    lo_a = lo_recalc(a, work, "lo_a")
    lo_b = lo_recalc(b, work, "lo_b")
    if not check(lo_a is not None and lo_b is not None, "LibreOffice recalculates both workbooks"):
        return
    n = bad = 0
    for name, xml in book:
        for (r0, c0), want in formulas(xml).items():
            n += 1
            if not same(cell(lo_a[name], r0, c0), want):
                bad += 1
                if bad < 4:
                    print("  %s %d,%d: LibreOffice %r, cached %r" % (name, r0, c0,
                                                                   cell(lo_a[name], r0, c0), want))
    check(n > 400 and bad == 0, "LibreOffice: every formula recalculates to its cached value (%d "
          "formulas, the Summary's among them)" % n, "%d differ" % bad)
    off = [(k, cell(lo_b["Summary"], *k), v) for k, v in fresh_sum.items()
           if not same(cell(lo_b["Summary"], *k), v)]
    changed = sum(cell(lo_b["Summary"], *k) != v for k, v in pivot.items())
    check(changed > 0 and not off,
          "LibreOffice: after the edit every Summary cell equals a fresh run's on the edited GPU "
          "file (%d cells, %d answers moved)" % (len(fresh_sum), changed),
          "%d differ: %r" % (len(off), off[:3]))
    aoff = [(k, cell(lo_b["Answers"], *k), v) for k, v in fresh_ans.items()
            if not same(cell(lo_b["Answers"], *k), v)]
    achanged = sum(cell(lo_b["Answers"], *k) != v for k, v in acached.items())
    check(achanged > 0 and not aoff,
          "LibreOffice: after the edit every Answers cell equals a fresh run's on the edited GPU "
          "file (%d cells, %d moved)" % (len(fresh_ans), achanged),
          "%d differ: %r" % (len(aoff), aoff[:3]))


def prices(env, work):
    """Time and cost on the Answers sheet: with a token budget in the spec
    and a priced class, each Answers row's cost is its hours x GPUs x the GPUs
    sheet's price; editing that price, Gnumeric and LibreOffice follow."""
    os.makedirs(work)
    gpus = os.path.join(work, "gpus")
    shutil.copytree(os.path.join(TOP, "gpus"), gpus)
    for gid, usd in (("h100-sxm", 3.0), ("rtx-4090", 0.5)):
        p = os.path.join(gpus, gid + ".json")
        with open(p) as f:
            g = json.load(f)
        g.update({"price_usd_per_hour": usd, "price_date": "2026-11-30"})
        g["sources"]["price_usd_per_hour"] = "test fixture: a made-up quote"
        with open(p, "w") as f:
            json.dump(g, f, indent=2)
    spec = {
        "version": 1, "models": ["meta-llama/Llama-3.1-8B", "Qwen/Qwen2.5-7B"],
        "gpus": ["rtx-4090", "a100-80gb", "h100-sxm"],
        "gpu_counts": [{"count": 1}, {"count": 2, "sharding": "zero3"}],
        "axes": {"method": ["full", "lora", "inference"], "optimizer": ["adamw"], "grad_ckpt": [True],
                 "attn": ["sdpa"], "batch": [1], "seq": [512, 4096]},
        "time": {"tokens": 100000000},
        "formats": ["xlsx"], "models_dir": os.path.join(TOP, "models"),
    }
    r, a = report(env, spec, os.path.join(work, "a"), gpus)
    if not check(r.returncode == 0, "prices: report writes the workbook", r.stderr[-400:]):
        return
    book = sheets(a)
    names = [n for n, _ in book]
    si, gi = names.index("Answers"), names.index("GPUs")
    calc = recalc(a, work, "pa")
    if not check(calc is not None, "prices: Gnumeric recalculates it"):
        return
    fs = formulas(book[si][1])
    bad = [(k, cell(calc[si], *k), v) for k, v in fs.items() if not same(cell(calc[si], *k), v)]
    check(len(fs) > 20 and not bad, "prices: Gnumeric: every Answers formula (hours and cost among them) "
          "recalculates to its cached value (%d)" % len(fs), repr(bad[:3]))
    rows = calc[si]
    head = next(i for i, row in enumerate(rows) if "Cost USD (hours x GPUs x price)" in row)
    check(head == 0, "prices: the Answers sheet's header is its first row", "row %d" % (head + 1))
    col = {h: k for k, h in enumerate(rows[head])}
    det = [row for row in rows[head + 1:] if len(row) > col["Cost USD (hours x GPUs x price)"] and row[0]]
    hc, cc, gc, sc = (col["Hours for 100 M tokens (training)"], col["Cost USD (hours x GPUs x price)"],
                      col["GPU"], col["Step s (time model)"])
    price = {"NVIDIA H100 80GB HBM3 (SXM)": 3.0, "NVIDIA GeForce RTX 4090": 0.5}

    def costs_ok(rows_, price_):
        good = n = 0
        for row in rows_:
            if not row[hc]:
                continue
            n += 1
            want = float(row[hc]) * float(row[col["GPUs"]]) * price_[row[gc]] if row[gc] in price_ else None
            got = float(row[cc]) if row[cc] else None
            good += (want is None and got is None) or (want is not None and got is not None
                                                       and abs(got - want) <= 1e-9 * want)
        return n, good

    n, good = costs_ok(det, price)
    trained = [row for row in det if row[1] != "inference" and row[sc]]
    ok_steps = all(float(row[sc]) > 0 for row in trained)
    check(n > 4 and good == n and ok_steps and all(row[hc] == "" for row in det if row[1] == "inference"),
          "prices: each training answer has a step, its hours and, priced, cost = hours x GPUs x price "
          "(%d answers; inference: no hours)" % n, "%d of %d" % (good, n))
    check(any(row[gc] == "NVIDIA A100 80GB SXM" and row[hc] and not row[cc] for row in det) or
          not any(row[gc] == "NVIDIA A100 80GB SXM" for row in det),
          "prices: an unpriced class's answers have hours and no cost")
    # The buyer edits the H100's price to 6 on the GPUs sheet.
    b = os.path.join(work, "pb.xlsx")
    if not check(edit_gpu_cell(a, b, book[gi][1], "h100-sxm", "J", "6"),
                 "prices: the H100's price cell found on the GPUs sheet (column J)"):
        return
    price2 = dict(price, **{"NVIDIA H100 80GB HBM3 (SXM)": 6.0})
    for app, got in (("Gnumeric", recalc(b, work, "pb")), ("LibreOffice", lo_recalc(b, work, "lo_pb"))):
        if not check(got is not None, "prices: %s recalculates the edited workbook" % app):
            continue
        rows2 = got[si] if app == "Gnumeric" else got["Answers"]
        det2 = [row for row in rows2[head + 1:] if len(row) > cc and row[0]]
        n2, good2 = costs_ok(det2, price2)
        h100 = sum(1 for row in det2 if row[gc] == "NVIDIA H100 80GB HBM3 (SXM)" and row[cc])
        check(n2 == n and good2 == n2 and h100 > 0,
              "prices: %s: after the price edit every cost follows (%d of them on the H100)" % (app, h100),
              "%d of %d" % (good2, n2))


def libreoffice(env, work):
    out = os.path.join(work, "default")
    # The printed pages are under test here, not gpusizer's memory safety:
    # the whole default sweep runs without $GS_WRAP (valgrind would take long).
    r = subprocess.run([EXE, "report", "--offline", "--quiet", "--format", "xlsx", "--out", out],
                       cwd=TOP, env=env, capture_output=True, text=True, timeout=900)
    if not check(r.returncode == 0, "the default spec's workbook", r.stderr[-300:]):
        return
    prof = os.path.join(work, "lo-profile")
    r = subprocess.run(["soffice", "-env:UserInstallation=file://" + prof, "--headless", "--convert-to",
                        "pdf", "--outdir", work, os.path.join(out, "gpusizer.xlsx")],
                       capture_output=True, text=True, timeout=1200)
    pdf = os.path.join(work, "gpusizer.pdf")
    if not check(r.returncode == 0 and os.path.exists(pdf), "LibreOffice prints it to PDF", r.stderr[-300:]):
        return
    words = bbox_words(pdf)
    pages = [p for p in words if p]
    # The footer: "gpusizer VERSION, DATE   SHEET   Page N of M", the words
    # on the footer's line (below the printed area: 0.6 in of margin).
    sheet_of = []
    for p in words:
        bottom = max((w[3] for w in p if w[4] == "Page"), default=0)
        line = " ".join(w[4] for w in sorted(p, key=lambda w: w[0]) if abs(w[3] - bottom) < 2)
        m = re.search(r"\d{4}-\d\d-\d\d\s+(\S.*?)\s+Page \d+ of %d$" % len(words), line)
        sheet_of.append(m.group(1).strip() if m else None)
    summary = sheet_of.count("Summary")
    check(all(sheet_of), "every page carries the footer (date, sheet, page N of M)",
          repr([i for i, s in enumerate(sheet_of) if not s][:5]))
    check(1 <= summary <= 10, "the Summary prints on %d pages (at most 10)" % summary)
    # The Answers sheet repeats its header row on every page: each of its
    # pages' top-most word is a word of the header (a data row would start
    # with a model id or a number).
    head_words = {w for h in ANSWERS_HEAD for w in h.split()}
    tops = [min(ws, key=lambda w: (w[1], w[0]))[4] for sheet, ws in zip(sheet_of, words)
            if sheet == "Answers" and ws]
    check(len(tops) >= 2 and all(t in head_words for t in tops),
          "every printed Answers page starts with its header row (%d pages)" % len(tops),
          repr([t for t in tops if t not in head_words][:5]))
    # Legible at >= 7 pt, every sheet; the page count follows (it was 111
    # pages at 1 to 4 pt): the model sheets' and the Plan's thousands of
    # rows at 7.9 pt.
    # (1,000 until the Answers sheet printed: its 30 pages, three wide at
    # 72%, took the default workbook from 987 to 1,017.)
    check(len(pages) <= 1050, "the whole workbook prints on %d pages (at most 1050)" % len(pages))
    ratio = calibrate(work, prof)
    if not check(ratio and len(words) == len(pages), "pdftotext -bbox reads the pages; a 10 pt Calibri "
                 "cell's word box is %.2f pt tall" % (ratio * 10 if ratio else 0)):
        return
    small = {}
    for sheet, ws in zip(sheet_of, words):
        for w in ws:
            pt = (w[3] - w[1]) / ratio
            if pt < small.get(sheet, (99, ""))[0]:
                small[sheet] = (pt, w[4])
    low = {k: v for k, v in small.items() if v[0] < 7}
    check(len(small) >= 6 and not low, "every sheet's text prints at 7 pt or more (the smallest: %s)"
          % ", ".join("%s %.1f pt" % (k, v[0]) for k, v in sorted(small.items(), key=lambda kv: str(kv[0]))[:6]), repr(low))
    # The printed Summary names each answer's configuration, in the answer's
    # context column (its cell's lines: count x GPU, then the configuration).
    answers = summary_answers(os.path.join(out, "gpusizer.xlsx"))
    cols = {}  # context -> the Summary's text in that column, all pages
    for sheet, ws in zip(sheet_of, words):
        if sheet != "Summary":
            continue
        heads = sorted((w[0], int(w[4])) for w, nxt in zip(ws, ws[1:])
                       if w[4].isdigit() and nxt[4] == "tokens" and abs(w[1] - nxt[1]) < 1)
        for w in sorted(ws, key=lambda x: (x[1], x[0])):
            at = [c for x, c in heads if w[0] >= x - 2]
            if at and w[1] > min(h[1] for h in ws if h[4] == "tokens"):
                cols[at[-1]] = cols.get(at[-1], "") + w[4]
    missing = [(ctx, cfg) for ctx, cfg in answers if cfg.replace(" ", "") not in cols.get(ctx, "")]
    check(len(answers) >= 100 and not missing, "the printed Summary names each answer's configuration "
          "(%d answers, in their context's column)" % len(answers), repr(missing[:3]))


FODS = """<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
 xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"
 xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"
 xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
 xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
 xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"
 office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.spreadsheet">
<office:font-face-decls><style:font-face style:name="Calibri" svg:font-family="Calibri"/></office:font-face-decls>
<office:automatic-styles><style:style style:name="c10" style:family="table-cell">
<style:text-properties style:font-name="Calibri" fo:font-size="10pt"/></style:style></office:automatic-styles>
<office:body><office:spreadsheet><table:table table:name="calibration"><table:table-row>
<table:table-cell table:style-name="c10" office:value-type="string"><text:p>Calibration</text:p></table:table-cell>
</table:table-row></table:table></office:spreadsheet></office:body></office:document>
"""


def calibrate(work, prof):
    """A word box's height a point of type, as LibreOffice prints the
    workbook's font (Calibri, or what stands in for it here) and pdftotext
    -bbox measures it (the font's ascent and descent): a 10 pt cell at 100%."""
    src = os.path.join(work, "calibration.fods")
    with open(src, "w") as f:
        f.write(FODS)
    subprocess.run(["soffice", "-env:UserInstallation=file://" + prof, "--headless", "--convert-to", "pdf",
                    "--outdir", work, src], capture_output=True, text=True, timeout=600)
    pages = bbox_words(os.path.join(work, "calibration.pdf"))
    w = [x for p in pages for x in p if x[4] == "Calibration"]
    return (w[0][3] - w[0][1]) / 10 if w else None


def bbox_words(pdf):
    """Each page's words: (xMin, yMin, xMax, yMax, text)."""
    r = subprocess.run(["pdftotext", "-bbox", pdf, "-"], capture_output=True, text=True)
    out = []
    for body in re.findall(r"<page [^>]*>(.*?)</page>", r.stdout, re.S):
        out.append([(float(a), float(b), float(c), float(d), html.unescape(t)) for a, b, c, d, t in re.findall(
            r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*?)</word>', body)])
    return out


# The Answers sheet's column headings (src/report/xlsx.c, summary_detail_head).
ANSWERS_HEAD = ("Model", "Method", "Context (tokens)", "GPU class", "GPU", "GPUs", "Device GiB per GPU",
                "Usable GiB per GPU", "Headroom", "Verdict", "Configuration", "Row id", "Configurations sized",
                "Smallest device GiB per GPU", "Summary key (least of the rows')",
                "GPU (row on the GPUs sheet, from 1)", "Row (data row on the model sheet)",
                "Step s (time model)", "Hours for 100 M tokens (training)", "Cost USD (hours x GPUs x price)")


def summary_answers(path):
    """[(context, configuration)] of the Summary's answers, from the cells
    as written (an answer cell's second line is its configuration, whose
    label names its context: "s4096")."""
    xml = dict(sheets(path))["Summary"]
    got = []
    for body in re.findall(r'<c r="[A-Z]+\d+"[^>]*><f>[^<]*" x "&amp;[^<]*</f><v>([^<]*)</v>', xml):
        lines = html.unescape(body).split("\n")
        m = re.search(r"(?:^| )s(\d+)(?: |$)", lines[-1])
        if len(lines) == 2 and m:
            got.append((int(m.group(1)), lines[1]))
    return got


def main():
    if not have_apps():
        return check.status()
    work = tempfile.mkdtemp(prefix="gs-t-xlsx-apps-")
    env = clean_env(work)
    try:
        gnumeric(env, os.path.join(work, "fewest"))
        # the other rule, and a class the Summary may not name (workstation)
        gnumeric(env, os.path.join(work, "least"),
                 {"rank": "least-memory", "eligible": ["consumer", "datacenter"],
                  "gpus": ["rtx-4080", "rtx-4090", "rtx-a6000", "a100-80gb", "h100-sxm"]})
        prices(env, os.path.join(work, "prices"))
        libreoffice(env, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return check.status()


if __name__ == "__main__":
    sys.exit(main())
