#!/usr/bin/env python3
"""XLSX report checks, by unzipping (zipfile + xml.etree only).

The workbook comes from the fixture helper (tests/unit/test_report_xlsx.c:
hand-built models, rows and GPUs, no engine) and, when the report command
can run the committed spec offline, from `gpusizer report` itself.

The verdict formulas are checked three ways: each cached value against the
verdicts the fixture was built to produce; each formula evaluated here (a
small evaluator for the IF/AND/OR/NOT/comparison subset) against its cached
value; and re-evaluated after editing the GPUs sheet, as a buyer would.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
import xml.etree.ElementTree as ET

from lib import GS, TOP, WRAP, Checks

NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
RNS = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
UNIT_DIR = os.environ.get("UNIT_DIR", os.path.join(TOP, "build", "tests"))
HELPER = os.path.join(UNIT_DIR, "test_report_xlsx")
VERDICTS = {"fits", "tight", "does not fit", "not runnable"}

check = Checks("xlsx: ")


def helper(*args, timeout=300):
    return subprocess.run(WRAP + [HELPER] + list(args), capture_output=True, text=True,
                          timeout=timeout)


# ---- reading a workbook ----------------------------------------------------

def col_index(letters):
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n - 1


def col_name(i):
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(65 + r) + s
    return s


def unescape(text):
    """Cell text as Excel shows it: _xHHHH_ is a character (ST_Xstring)."""
    return re.sub(r"_x([0-9A-Fa-f]{4})_", lambda m: chr(int(m.group(1), 16)), text)


class Cell:
    def __init__(self, kind, value, formula, style):
        self.kind, self.value, self.formula, self.style = kind, value, formula, style

    def __repr__(self):
        return "Cell(%r, %r, %r)" % (self.kind, self.value, self.formula)


class Book:
    def __init__(self, path):
        self.zip = zipfile.ZipFile(path)
        self.names = self.zip.namelist()
        wb = ET.fromstring(self.zip.read("xl/workbook.xml"))
        rels = ET.fromstring(self.zip.read("xl/_rels/workbook.xml.rels"))
        target = {r.get("Id"): r.get("Target") for r in rels}
        self.sheet_path = {}
        self.order = []
        for s in wb.iter(NS + "sheet"):
            name = s.get("name")
            self.order.append(name)
            self.sheet_path[name] = "xl/" + target[s.get(RNS + "id")]
        shared = []
        if "xl/sharedStrings.xml" in self.names:
            for si in ET.fromstring(self.zip.read("xl/sharedStrings.xml")).iter(NS + "si"):
                shared.append("".join(t.text or "" for t in si.iter(NS + "t")))
        self.shared = shared
        self._cells = {}
        self._xml = {}

    def xml(self, sheet):
        if sheet not in self._xml:
            self._xml[sheet] = self.zip.read(self.sheet_path[sheet]).decode("utf-8")
        return self._xml[sheet]

    def root(self, sheet):
        return ET.fromstring(self.xml(sheet).encode("utf-8"))

    def cells(self, sheet):
        """{(row0, col0): Cell}; kind: s (string), n, b, str (formula string)."""
        if sheet in self._cells:
            return self._cells[sheet]
        out = {}
        for c in self.root(sheet).iter(NS + "c"):
            m = re.match(r"([A-Z]+)(\d+)$", c.get("r"))
            key = (int(m.group(2)) - 1, col_index(m.group(1)))
            t = c.get("t", "n")
            f = c.find(NS + "f")
            v = c.find(NS + "v")
            formula = f.text if f is not None else None
            if t == "inlineStr":
                val = unescape("".join(x.text or "" for x in c.iter(NS + "t")))
                kind = "s"
            elif t == "s":
                val = unescape(self.shared[int(v.text)])
                kind = "s"
            elif t == "b":
                val = v is not None and v.text == "1"
                kind = "b"
            elif t == "str":
                val = v.text if v is not None else ""
                kind = "str"
            else:
                val = float(v.text) if v is not None and v.text else None
                kind = "n"
            out[key] = Cell(kind, val, formula, c.get("s"))
        self._cells[sheet] = out
        return out

    def header(self, sheet, row=0):
        return {c: cell.value for (r, c), cell in self.cells(sheet).items() if r == row}


# ---- a small evaluator for the verdict formulas ----------------------------

TOKEN = re.compile(r'\s*(?:(?P<str>"(?:[^"]|"")*")|(?P<ref>(?:[A-Za-z_][A-Za-z0-9_.]*!)?\$?[A-Z]{1,3}\$?\d+)'
                   r'|(?P<num>\d+(?:\.\d+)?(?:[Ee][+-]?\d+)?)|(?P<fn>[A-Z]+)\(|(?P<op><=|>=|<>|[=<>+\-*/(),]))')


class Evaluator:
    """Evaluates =IF/AND/OR/NOT, comparisons and + - * / over cell values.
    lookup(sheet, row0, col0) gives a cell's value (None when empty)."""

    def __init__(self, lookup, sheet):
        self.lookup, self.sheet = lookup, sheet

    def run(self, formula):
        self.toks = []
        pos = 0
        text = formula.lstrip("=")
        while pos < len(text):
            m = TOKEN.match(text, pos)
            if not m or m.end() == pos:
                raise ValueError("cannot read %r at %d" % (text, pos))
            kind = m.lastgroup
            self.toks.append((kind, m.group(kind)))
            pos = m.end()
        self.i = 0
        v = self.compare()
        if self.i != len(self.toks):
            raise ValueError("trailing tokens in %r" % text)
        return v

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self, op=None):
        t = self.toks[self.i]
        if op is not None and t[1] != op:
            raise ValueError("expected %s, got %s" % (op, t[1]))
        self.i += 1
        return t

    def compare(self):
        a = self.additive()
        while self.peek()[0] == "op" and self.peek()[1] in ("=", "<", ">", "<=", ">=", "<>"):
            op = self.take()[1]
            b = self.additive()
            a = {"=": a == b, "<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b, "<>": a != b}[op]
        return a

    def additive(self):
        a = self.term()
        while self.peek()[1] in ("+", "-") and self.peek()[0] == "op":
            op = self.take()[1]
            b = self.term()
            a = a + b if op == "+" else a - b
        return a

    def term(self):
        a = self.unary()
        while self.peek()[1] in ("*", "/") and self.peek()[0] == "op":
            op = self.take()[1]
            b = self.unary()
            a = a * b if op == "*" else a / b
        return a

    def unary(self):
        if self.peek() == ("op", "-"):
            self.take()
            return -self.unary()
        return self.primary()

    def primary(self):
        kind, text = self.take()
        if kind == "num":
            return float(text)
        if kind == "str":
            return text[1:-1].replace('""', '"')
        if kind == "ref":
            sheet = self.sheet
            if "!" in text:
                sheet, text = text.split("!")
            m = re.match(r"\$?([A-Z]+)\$?(\d+)$", text)
            v = self.lookup(sheet, int(m.group(2)) - 1, col_index(m.group(1)))
            return 0.0 if v is None else v
        if kind == "op" and text == "(":
            v = self.compare()
            self.take(")")
            return v
        if kind == "fn":
            args = []
            if self.peek() != ("op", ")"):
                args.append(self.compare())
                while self.peek() == ("op", ","):
                    self.take()
                    args.append(self.compare())
            self.take(")")
            if text == "IF":
                return args[1] if args[0] else (args[2] if len(args) > 2 else False)
            if text == "AND":
                return all(bool(a) for a in args)
            if text == "OR":
                return any(bool(a) for a in args)
            if text == "NOT":
                return not args[0]
            raise ValueError("function %s" % text)
        raise ValueError("unexpected %s %s" % (kind, text))


def make_lookup(book, edits=None):
    edits = edits or {}

    def lookup(sheet, r, c):
        if (sheet, r, c) in edits:
            return edits[(sheet, r, c)]
        cell = book.cells(sheet).get((r, c))
        return None if cell is None else cell.value
    return lookup


# ---- the checks -------------------------------------------------------------

def model_sheet_layout(book, sheet):
    head = book.header(sheet)
    gpu_cols = [c for c, v in sorted(head.items()) if isinstance(v, str) and ": " in v and c >= 4
                and c < min(k for k, h in head.items() if h == "Model")]
    named = {v: c for c, v in head.items()}
    return head, gpu_cols, named


def model_sheets(book):
    """The model sheets: every sheet after Charts."""
    return book.order[book.order.index("Charts") + 1:]


def sheet_rows(book, sheet):
    """{row0: {col0: value}} of a sheet."""
    rows = {}
    for (r, c), x in book.cells(sheet).items():
        rows.setdefault(r, {})[c] = x.value
    return rows


def pivot_bounds(srows):
    """The Summary pivot's header row, and the row after its last (the
    pivot's rows name their method in column B; the prose below does not)."""
    head = next(r for r, v in sorted(srows.items()) if v.get(0) == "Model" and v.get(1) == "Method")
    end = head + 1
    while srows.get(end, {}).get(1) is not None:
        end += 1
    return head, end


def check_panes(book, pivot_head):
    """Each sheet's frozen pane is its own table's header: the Summary's
    the pivot's header row (and the title above it, no prose) and the model
    column; the Answers sheet's its header row and Model and Method."""
    got = {}
    for name in ("Summary", "Answers"):
        pane = book.root(name).find(".//%spane" % NS)
        got[name] = None if pane is None else (pane.get("state"), pane.get("ySplit"), pane.get("xSplit"))
    check(pivot_head <= 1 and got["Summary"] == ("frozen", str(pivot_head + 1), "1"),
          "Summary: the frozen rows end at the pivot's header (row %d, at most a title above it), "
          "column A frozen" % (pivot_head + 1), repr(got["Summary"]))
    check(got["Answers"] == ("frozen", "1", "2"),
          "Answers: its header row and the Model and Method columns frozen", repr(got["Answers"]))
    ahead = book.header("Answers")
    check(ahead.get(0) == "Model" and ahead.get(1) == "Method" and ahead.get(14, "").startswith("Summary key"),
          "Answers: its header is row 1 (Model, Method, ..., the Summary key in O)", repr(ahead))


def check_fixture(book, path):
    sheets = book.order
    check(sheets[:3] == ["Summary", "Answers", "Plan"], "the Answers sheet comes right after the Summary",
          repr(sheets[:4]))
    for want in ("Summary", "Answers", "GPUs", "Assumptions", "Charts", "Llama-3.1-8B", "Llama-3.1-8B (2)",
                 "C calc__A0", "Llama-3.1-8B-Instruct-with-a-ve"):
        check(want in sheets, "sheet %r present" % want, "sheets: %r" % sheets)
    bad = [s for s in sheets if len(s) > 31 or re.search(r"[^A-Za-z0-9 ._()+\-\u0080-\U0010ffff]", s)]
    check(not bad, "sheet names: <= 31 characters, no punctuation but ' ._-()+'", repr(bad))
    check(len({s.lower() for s in sheets}) == len(sheets), "sheet names are unique", repr(sheets))

    unparsable = []
    for n in book.names:
        if n.endswith(".xml") or n.endswith(".rels"):
            try:
                ET.fromstring(book.zip.read(n))
            except ET.ParseError as ex:
                unparsable.append("%s: %s" % (n, ex))
    check(not unparsable, "every XML part parses (invalid UTF-8 in a model id was cleaned)",
          "; ".join(unparsable))

    # GPUs sheet: one row per GPU class, header on row 4.
    g = book.cells("GPUs")
    ghead = book.header("GPUs", 3)
    check(ghead.get(0) == "Id" and ghead.get(4, "").startswith("Usable GiB") and ghead.get(5) == "bf16"
          and ghead.get(6) == "fp8", "GPUs sheet has id, usable GiB, bf16, fp8 columns", repr(ghead))
    ids = [g[(r, 0)].value for r in range(4, 8) if (r, 0) in g]
    check(ids == ["t4", "rtx-4090", "a100-80gb", "evil"], "GPUs sheet lists the GPU classes in order",
          repr(ids))
    check(g.get((4, 4)) is not None and g[(4, 4)].value == 14.5 and g[(4, 5)].kind == "b"
          and g[(4, 5)].value is False, "T4 row: usable 14.5 GiB, bf16 FALSE")
    check(g.get((1, 1)) is not None and g[(1, 1)].value == 0.1, "tight headroom 10% in GPUs!B2")

    # The model sheet: verdict formulas, cached values, the fixture's verdicts.
    sheet = "Llama-3.1-8B"
    cells = book.cells(sheet)
    head, gpu_cols, named = model_sheet_layout(book, sheet)
    check(len(gpu_cols) == 4, "one verdict column per GPU class", repr(head))
    expected = [
        ["not runnable", "does not fit", "fits", "fits"],     # full 512, 60 GiB, needs bf16
        ["not runnable", "does not fit", "tight", "fits"],    # full 2048, 75 GiB
        ["not runnable", "fits", "fits", "fits"],             # lora bf16, 20 GiB
        ["fits", "fits", "fits", "fits"],                     # inference fp16, 10 GiB
        ["not runnable", "fits", "not runnable", "fits"],     # inference fp8, 12 GiB
        ["not runnable", "does not fit", "fits", "fits"],     # full, 2 GPUs, 30 GiB per GPU
        ["not runnable", "does not fit", "does not fit", "tight"],  # full 8192, 130 GiB
    ]
    est_rows = [1, 2, 3, 4, 5, 6, 8]  # row 7 has no estimate
    got = [[cells[(r, c)].value if (r, c) in cells else None for c in gpu_cols] for r in est_rows]
    check(got == expected, "cached verdicts are the fixture's verdicts", "got %r" % got)
    formulas = [cells[(r, c)] for r in est_rows for c in gpu_cols if (r, c) in cells]
    check(len(formulas) == 28 and all(x.formula and "GPUs!" in x.formula and x.kind == "str"
                                      for x in formulas),
          "every verdict cell is a formula over the GPUs sheet with a cached string value",
          repr(formulas[:2]))
    refs_ok = all(re.search(r"GPUs!\$E\$%d\b" % (5 + i), cells[(1, c)].formula)
                  for i, c in enumerate(gpu_cols))
    check(refs_ok, "column k's formula reads GPU k's usable memory (GPUs!$E$5...)",
          cells[(1, gpu_cols[0])].formula)
    err_cells = [cells.get((7, c)) for c in gpu_cols]
    check(all(x is not None and x.kind == "s" and x.value == "no estimate" and x.formula is None
              for x in err_cells), "a row without an estimate says so, without formulas",
          repr(err_cells))
    check(cells.get((1, 3)) is not None and cells[(6, 3)].value == 2.0,
          "GPU count column: the 2-GPU row says 2")

    # Evaluate every formula; then edit the GPUs sheet as a buyer would.
    ev = Evaluator(make_lookup(book), sheet)
    mism = []
    for r in est_rows:
        for c in gpu_cols:
            v = ev.run(cells[(r, c)].formula)
            if v != cells[(r, c)].value:
                mism.append((r, c, v, cells[(r, c)].value))
    check(not mism, "each formula evaluates to its cached value", repr(mism))

    def verdict_after(edits, r, gi):
        return Evaluator(make_lookup(book, edits), sheet).run(cells[(r, gpu_cols[gi])].formula)

    check(verdict_after({("GPUs", 6, 4): 50.0}, 1, 2) == "does not fit",
          "A100 usable edited to 50 GiB: the 60 GiB row turns 'does not fit'")
    check(verdict_after({("GPUs", 4, 5): True}, 1, 0) == "does not fit",
          "T4 bf16 edited to TRUE: the bf16 row turns from 'not runnable' to 'does not fit'")
    check(verdict_after({("GPUs", 1, 1): 0.3}, 3, 1) == "tight",
          "tight headroom edited to 30%: the 15%-headroom row turns 'tight'")
    check(verdict_after({("GPUs", 6, 6): True}, 5, 2) == "fits",
          "A100 fp8 edited to TRUE: the fp8 inference row fits")

    # Conditional colours, frozen header, filter, widths, GiB number format.
    xml = book.xml(sheet)
    root = book.root(sheet)
    cf = root.findall(NS + "conditionalFormatting")
    rules = [f.text for x in cf for rule in x.iter(NS + "cfRule") for f in rule.iter(NS + "formula")]
    check(cf and cf[0].get("sqref") == "%s2:%s9" % (col_name(gpu_cols[0]), col_name(gpu_cols[-1]))
          and sorted(rules) == sorted('"%s"' % v for v in VERDICTS),
          "conditional formats colour fits / tight / does not fit / not runnable over the verdicts",
          repr([(x.get("sqref"), rules) for x in cf]))
    pane = root.find(".//%spane" % NS)
    check(pane is not None and pane.get("state") == "frozen" and pane.get("ySplit") == "1",
          "model sheet header row frozen")
    check(root.find(NS + "autoFilter") is not None, "model sheet has an autofilter")
    check(root.find(NS + "cols") is not None, "model sheet sets column widths")
    styles = ET.fromstring(book.zip.read("xl/styles.xml"))
    fmt_ids = {f.get("numFmtId"): f.get("formatCode") for f in styles.iter(NS + "numFmt")}
    xfs = list(styles.find(NS + "cellXfs"))
    wcol = named.get("W weights GiB")
    wcell = cells.get((1, wcol)) if wcol is not None else None
    wfmt = fmt_ids.get(xfs[int(wcell.style)].get("numFmtId")) if wcell is not None and wcell.style else None
    check(wfmt == "0.00" and abs(wcell.value - 30.0) < 1e-9,
          "W GiB cell holds GiB (30.00) with the number format 0.00", "%r %r" % (wcell, wfmt))
    for other in ("GPUs", "Answers"):
        check(book.root(other).find(NS + "autoFilter") is not None, "%s sheet has an autofilter" % other)
    check(book.root("GPUs").find(".//%spane" % NS) is not None, "GPUs sheet header frozen")

    # Print set-up on every sheet: A4 landscape, one page wide (fit to
    # width) or, a sheet wider than a page at 72%, at 72% (legible: 11 pt
    # prints at 7.9 pt; t_xlsx_apps measures it), a footer with the date
    # and page numbers; header rows repeated, print areas.
    unset = []
    for name in book.order:
        x = book.xml(name)
        ps = re.search(r"<pageSetup [^>]*>", x)
        fit = ps and 'fitToHeight="0"' in ps.group(0) and '<pageSetUpPr fitToPage="1"/>' in x
        scaled = ps and 'scale="72"' in ps.group(0) and "fitToPage" not in x
        if not (ps and 'orientation="landscape"' in ps.group(0) and 'paperSize="9"' in ps.group(0)
                and (fit or scaled) and re.search(r"<oddFooter>[^<]*Page &amp;P of &amp;N</oddFooter>", x)):
            unset.append(name)
    check(not unset, "every sheet prints A4 landscape, one page wide or at 72%, with page numbers", repr(unset))
    wbx = book.zip.read("xl/workbook.xml").decode("utf-8")
    titles = re.findall(r'<definedName name="_xlnm.Print_Titles" localSheetId="(\d+)">([^<]*)<', wbx)
    areas = re.findall(r'<definedName name="_xlnm.Print_Area" localSheetId="(\d+)">([^<]*)<', wbx)
    titled = {book.order[int(i)] for i, _ in titles}
    check({"Summary", "Answers", "Plan", "GPUs", "Llama-3.1-8B"} <= titled,
          "Summary, Answers, Plan, GPUs and the model sheets repeat their header row on every page", repr(titles))
    area = {book.order[int(i)]: a for i, a in areas}
    check("Summary" in area and "Llama-3.1-8B" in area and area["Llama-3.1-8B"].endswith("$A$1:$H$9"),
          "print areas: the Summary's answers; a model sheet's configuration, memory and verdicts",
          repr(area))
    kinds = {col: t for t, col in re.findall(r'<dataValidation type="(\w+)"[^>]*sqref="([A-Z]+)',
                                             book.xml("GPUs"))}
    check(kinds.get("B") == "decimal" and kinds.get("D") == "decimal" and kinds.get("E") == "decimal"
          and kinds.get("F") == "list" and kinds.get("G") == "list",
          "GPU input cells validated: headroom, total and usable GiB numbers, bf16/fp8 TRUE/FALSE",
          repr(kinds))
    check("no unit" in book.xml("GPUs"), "the validation message says to type the number without a unit")

    # Charts: stacked columns of W/G/O/A/B over the model sheet's rows.
    charts = sorted(n for n in book.names if re.match(r"xl/charts/chart\d+\.xml$", n))
    check("xl/charts/chart1.xml" in charts and len(charts) == 6, "one chart part per model",
          repr(charts))
    c1 = book.zip.read("xl/charts/chart1.xml").decode("utf-8")
    series = re.findall(r"<c:ser>", c1)
    check('<c:grouping val="stacked"/>' in c1 and len(series) == 5
          and "Charts!$N$4:$N$" in c1 and "the first configuration of each method" in c1,
          "chart 1: stacked W/G/O/A/B over the Charts sheet's table of one configuration per "
          "method, title says which", c1[:300])
    colours = re.findall(r'<a:srgbClr val="([0-9A-F]{6})"/>', c1)
    check(colours[:5] == ["4E79A7", "F28E2B", "E15759", "76B7B2", "59A14F"],
          "chart colours: the palette the SVGs share (W blue, B green: not both blue)", repr(colours))
    ch = book.cells("Charts")
    table = {c0: x.value for (r0, c0), x in ch.items() if r0 == 3}
    check(table.get(13) is not None and "(sheet Llama-3.1-8B, row " in str(table.get(14)),
          "the chart's table names the configuration, its sheet and row", repr(table))

    # Strings from outside stay strings.
    all_cells = [(s, k, x) for s in book.order for k, x in book.cells(s).items()]
    evil = ("=cmd|' /C calc'!A0", "<script>alert(1)</script>", "=1+1", "=SUM(A1)")
    for text in evil:
        # a string cell, or the value of one of our formulas (the Summary's
        # INDEX of a GPU name) that does not hold the text itself
        hits = [x for s, k, x in all_cells if x.value == text]
        check(hits and all((x.kind == "s" and x.formula is None)
                           or (x.kind == "str" and text not in x.formula) for x in hits)
              and any(x.kind == "s" for x in hits),
              "%r arrives as a string cell, not a formula" % text, repr(hits[:3]))
    # Outside text reaches a formula only as a sheet name of this workbook
    # (cleaned by sheet_base), quoted: take those out, then look.
    quoted = [q.replace("''", "'") for s, k, x in all_cells if x.formula
              for q in re.findall(r"'((?:[^']|'')*)'!", x.formula)]
    check(quoted and all(q in book.order for q in quoted),
          "every quoted sheet name in a formula is a sheet of the workbook",
          repr(sorted(set(q for q in quoted if q not in book.order))[:3]))
    bad_f = [x.formula for s, k, x in all_cells
             if x.formula and re.search(r"cmd|script|SUM|1\+1|HYPER",
                                        re.sub(r"'(?:[^']|'')*'!", "", x.formula))]
    check(not bad_f, "no formula carries text from outside", repr(bad_f[:3]))
    summary_ids = {x.value for (r, c), x in book.cells("Summary").items() if c == 0 and x.kind == "s"}
    check("org/bad\ufffd\ufffdname_x0041_" in summary_ids,
          "invalid bytes become U+FFFD; a literal _x0041_ survives (escaped as _x005F_)",
          repr(sorted(summary_ids)))

    # Summary: the smallest class and count per model, method, context.
    srows = sheet_rows(book, "Summary")
    pivot_head, pivot_end = pivot_bounds(srows)
    check_panes(book, pivot_head)
    ctx = {v: c for c, v in srows[pivot_head].items() if isinstance(v, str) and v.endswith("tokens")}
    llama = {v[1]: v for r, v in srows.items() if pivot_head < r < pivot_end
             and v.get(0) == "meta-llama/Llama-3.1-8B"}
    full = llama.get("full", {})
    check(full.get(ctx.get("512 tokens")) == "1 x NVIDIA A100-SXM4-80GB\nfull amp-bf16 adamw b1 s512 sdpa"
          and full.get(ctx.get("2048 tokens")) == "1 x =1+1\nfull amp-bf16 adamw b1 s2048 sdpa"
          and full.get(ctx.get("8192 tokens")) == "1 x =1+1, tight\nfull amp-bf16 adamw b1 s8192 sdpa",
          "Summary: one A100 80 GB at 512; at 2048 a comfortable fit is preferred to a smaller "
          "tight one; at 8192 only tight; each answer with its configuration", repr(full))
    check(llama.get("inference", {}).get(ctx.get("512 tokens")) == "1 x NVIDIA T4\ninference fp16 b1 s512 sdpa",
          "Summary: fp16 inference fits the smallest class (T4)", repr(llama.get("inference")))

    check_live_summary(book, srows, pivot_head, pivot_end)

    links = book.root("Summary").findall(".//%shyperlink" % NS)
    targets = [re.match(r"'((?:[^']|'')*)'!A1$", h.get("location") or "") for h in links]
    names = [t.group(1).replace("''", "'") if t else None for t in targets]
    check(len(links) >= 9 and all(n in model_sheets(book) for n in names),
          "Summary model names link to their sheets", repr(names))

    # Assumptions, units and legend.
    a = [x.value for (r, c), x in sorted(book.cells("Assumptions").items())]
    check("Line | two <x>" in a and "=SUM(A1)" in a and "- bold and code" in a and any("GiB = 2^30 bytes" in str(v) for v in a)
          and "Legend" in a, "Assumptions sheet: the text by lines (Markdown marks dropped), the legend and the units", repr(a))

    core = book.zip.read("docProps/core.xml").decode("utf-8")
    check("<dcterms:created xsi:type=\"dcterms:W3CDTF\">2023-11-14T22:13:20Z</dcterms:created>" in core,
          "creation date is the given epoch, not the clock", core[-300:])


def check_live_summary(book, srows, pivot_head, pivot_end, split=False):
    """The Summary's answers are formulas (docs/xlsx.md, "The live
    Summary"): each pivot cell decodes its row on the Answers sheet, whose
    key is the least of the model sheet rows' keys; here every cached key
    is checked against the rows' cached keys, and the answers against the
    keys."""
    summ = book.cells("Summary")
    ans = book.cells("Answers")
    arows = sheet_rows(book, "Answers")
    text = " ".join(str(v.get(0, "")) for r, v in srows.items() if r < pivot_head or r >= pivot_end)
    check("Live: formulas over the model sheets' Summary key column" in text
          and "does not recalculate" not in text, "the Summary's text says it is live", text[-300:])
    wbx = book.zip.read("xl/workbook.xml").decode("utf-8")
    check(re.search(r'<definedName name="GPU_KEY">GPUs!\$B\$\d+:\$[A-Z]+\$\d+</definedName>', wbx),
          "the GPUs sheet's key row is the workbook name GPU_KEY")
    pivot = [(k, x) for k, x in summ.items() if pivot_head < k[0] < pivot_end and k[1] >= 2
             and x.formula and " x " in x.formula]
    check(len(pivot) >= 8 and all(x.kind == "str" and re.match(
        r"IF\('Answers'!\$O(\d+)>=9E\+15,\"none fits\",'Answers'!\$F\1&", x.formula) for k, x in pivot),
          "every pivot answer is a formula over its row on the Answers sheet, its text cached (%d)"
          % len(pivot), repr(pivot[:2]))
    keyed = {}  # (sheet) -> {(method, ctx): [keys]}
    bad, n = [], 0
    for (r, c), x in ans.items():
        if r < 1 or c != 14:
            continue
        n += 1
        if not (x.formula and "_xlfn.MINIFS(" in x.formula and x.kind == "n"):
            bad.append((r, x))
            continue
        method, ctx = arows[r].get(1), arows[r].get(2)
        sheets_of = sorted(set(re.findall(r"'((?:[^']|'')*)'!", x.formula)))
        keys = []
        for sh in sheets_of:
            head = book.header(sh)
            kc = next(cc for cc, h in head.items() if str(h).startswith("Summary key"))
            mc = next(cc for cc, h in head.items() if h == "Method")
            sc = next(cc for cc, h in head.items() if h == "Context (tokens)")
            cells = book.cells(sh)
            for (r0, c0), y in cells.items():
                if c0 == kc and r0 > 0 and cells[(r0, mc)].value == method and cells[(r0, sc)].value == ctx:
                    keys.append(y.value)
        if not keys or min(keys) != x.value:
            bad.append((r, method, ctx, x.value, keys[:4]))
        klass = arows[r].get(3)
        tier = "none fits" if x.value >= 9e15 else "tight" if x.value >= 3e15 else "fits"
        verdict = arows[r].get(9)
        if (tier == "none fits") != (klass == "none fits") or (tier != "none fits" and verdict != tier):
            bad.append((r, "tier", x.value, klass, verdict))
    check(n >= 8 and not bad, "every Answers row's key (MINIFS) is cached as the least of its rows' "
          "cached keys, the class and verdict as its tier says (%d)" % n, repr(bad[:3]))
    rows = [(sh, k, y) for sh in model_sheets(book) for k, y in book.cells(sh).items()
            if y.formula and "MINIFS(GPU_KEY," in y.formula]
    check(rows and all(y.kind == "n" and y.formula.startswith("MIN(IF(COUNTIF(E%d:" % (k[0] + 1))
                       and "_xlfn.MINIFS(GPU_KEY,E%d:" % (k[0] + 1) in y.formula for sh, k, y in rows),
          "model sheet rows carry the Summary key, a formula over GPU_KEY with _xlfn.MINIFS (%d)"
          % len(rows), repr(rows[:1]))
    if split:
        multi = [(r, x.formula) for (r, c), x in ans.items() if c == 14 and r >= 1 and x.formula
                 and len(set(re.findall(r"'((?:[^']|'')*)'!", x.formula))) > 1]
        check(multi and all(f.startswith("MIN(IF(COUNTIFS(") for r, f in multi)
              and all(ans.get((r, 16)) is None and (ans.get((r, 10)) is None or ans[(r, 10)].formula is None)
                      for r, f in multi) and "as written" in text,
              "a model on several sheets: the key is the least over the sheets holding its rows; "
              "its row's label, id and device GiB are as written, and the text says so (%d)" % len(multi),
              repr(multi[:1]))


def check_killed(work):
    """SIGTERM in the middle of a long write keeps the previous workbook and
    leaves no temporary file (libxlsxwriter's own are unlinked when made)."""
    import signal
    import time
    d = os.path.join(work, "killed")
    os.mkdir(d)
    old = os.path.join(d, "gpusizer.xlsx")
    with open(old, "wb") as f:
        f.write(b"previous workbook")
    p = subprocess.Popen(WRAP + [HELPER, "big", d, "2000000"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    deadline = time.time() + 30
    while time.time() < deadline and len(os.listdir(d)) < 2 and p.poll() is None:
        time.sleep(0.05)
    time.sleep(0.5)
    started = len(os.listdir(d)) == 2
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    with open(old, "rb") as f:
        kept = f.read() == b"previous workbook"
    check(started and p.returncode != 0 and kept and os.listdir(d) == ["gpusizer.xlsx"],
          "SIGTERM mid-write keeps the previous workbook and leaves no temporary file",
          "started %r, exit %r, kept %r, entries %r" % (started, p.returncode, kept, os.listdir(d)))


def check_size_limit(work):
    """A file size limit (as a full disk would) cuts libxlsxwriter's own
    temporary files short without it noticing: the writer reads the zip back
    and fails, keeping the previous workbook and no temporary file."""
    import resource
    import signal
    d = os.path.join(work, "fsize")
    os.mkdir(d)
    old = os.path.join(d, "gpusizer.xlsx")
    with open(old, "wb") as f:
        f.write(b"previous workbook")

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 10, 64 << 10))
    r = subprocess.run(WRAP + [HELPER, "big", d, "300"], capture_output=True, text=True,
                       timeout=300, preexec_fn=limit)
    with open(old, "rb") as f:
        kept = f.read() == b"previous workbook"
    check(r.returncode == 4 and ("incomplete" in r.stderr or "failed" in r.stderr) and kept
          and os.listdir(d) == ["gpusizer.xlsx"],
          "a file size limit mid-write: exit 4, previous workbook kept, no temporary file",
          "exit %d, kept %r, entries %r: %s" % (r.returncode, kept, os.listdir(d), r.stderr[-300:]))


def check_verify(work, good):
    """gs_xlsx_verify (run before every rename) accepts a whole workbook and
    refuses one with a part cut short, a truncated file and corrupt data."""
    def verify(path):
        return helper("verify", path)
    r = verify(good)
    check(r.returncode == 0, "read-back check accepts a whole workbook", r.stderr)
    with zipfile.ZipFile(good) as z:
        parts = [(i, z.read(i)) for i in z.infolist()]

    def rezip(path, cut_name):
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            for info, data in parts:
                if info.filename == cut_name:
                    data = data[:len(data) // 2]
                z.writestr(info.filename, data)
    cut = os.path.join(work, "cut.xlsx")
    rezip(cut, "xl/worksheets/sheet5.xml")
    r = verify(cut)
    check(r.returncode == 4 and "sheet5.xml: XML cut short" in r.stderr,
          "read-back check refuses a sheet cut short", r.stderr)
    same = os.path.join(work, "same.xlsx")
    rezip(same, None)
    check(verify(same).returncode == 0, "... and accepts the same parts zipped whole")
    with open(good, "rb") as f:
        data = f.read()
    short = os.path.join(work, "short.xlsx")
    with open(short, "wb") as f:
        f.write(data[:len(data) - 100])
    r = verify(short)
    check(r.returncode == 4 and "incomplete" in r.stderr, "read-back check refuses a truncated file",
          r.stderr)
    bad = bytearray(data)
    with zipfile.ZipFile(good) as z:
        info = z.getinfo("xl/worksheets/sheet5.xml")
    at = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra) + info.compress_size // 2
    for k in range(at, at + 64):
        bad[k] ^= 0x5A
    corrupt = os.path.join(work, "corrupt.xlsx")
    with open(corrupt, "wb") as f:
        f.write(bytes(bad))
    r = verify(corrupt)
    check(r.returncode == 4 and "sheet5.xml" in r.stderr, "read-back check refuses corrupt data",
          r.stderr)


def json_verdict(v):
    """sizing.json gives a verdict as [verdict, headroom] (or {"verdict": ...})."""
    return v[0] if isinstance(v, list) else v["verdict"]


def index_answers(path):
    """{(model, method, context): (count, GPU, tight, configuration)} from
    index.md's one table (a model's rows: its link on the first; a cell:
    "N x GPU[, tight] · configuration", the GPU short, the configuration
    what differs between the method's rows)."""
    got, model, methods = {}, None, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if line.startswith("| model | context |"):
                methods = cells[2:]
            elif methods and line.startswith("| ") and len(cells) == len(methods) + 2:
                m = re.match(r"\[.*\]\(models/(.*)\.md\)", cells[0])
                if m:
                    model = m.group(1).replace("--", "/", 1)
                for meth, v in zip(methods, cells[2:]):
                    a = re.match(r"(\d+) x (.+?)(, tight)?(?: \u00b7 (.*))?$", v.replace("\\", ""))
                    got[(model, meth, cells[1])] = (a.group(1), a.group(2), bool(a.group(3)), a.group(4) or "") \
                        if a else v
            elif not line.strip():
                methods = [] if got else methods
    return got


def check_answers_agree(book, index_md):
    """The smallest GPU is named once (the row evaluation's answer): every
    answer of the workbook's Summary is the index page's for the same
    model, method and context: the count, the GPU, tight or not, and its
    configuration (the index names what differs of the Summary's label)."""
    srows = sheet_rows(book, "Summary")
    ph, dh = pivot_bounds(srows)
    ctx = {c: v[:-len(" tokens")] for c, v in srows[ph].items() if isinstance(v, str) and v.endswith(" tokens")}
    idx = index_answers(index_md)
    pairs, bad = 0, []
    for r in range(ph + 1, dh):
        v = srows.get(r, {})
        for c, q in ctx.items():
            if v.get(c) in (None, ""):
                continue
            pairs += 1
            want = idx.get((v.get(0), v.get(1), q))
            got = re.match(r"(\d+) x (.+?)(, tight)?\n(.*)$", v[c])
            if got is None or not isinstance(want, tuple):
                if v[c] != want:
                    bad.append((v.get(0), v.get(1), q, v[c], want))
                continue
            if (got.group(1) != want[0] or not got.group(2).endswith(want[1]) or bool(got.group(3)) != want[2]
                    or not set(w for w in want[3].split() if w not in ("zero3", "fsdp2", "ddp")) <= set(got.group(4).split())):
                bad.append((v.get(0), v.get(1), q, v[c], want))
    check(pairs >= 8 and not bad,
          "the Summary's answers are the index's, cell for cell (%d answers)" % pairs, repr(bad[:3]))


def check_report(work):
    """`gpusizer report` end to end: the workbook agrees with the JSON report
    row by row (every cached verdict, device GiB), its formulas evaluate to
    the cached verdicts, and SOURCE_DATE_EPOCH fixes the creation date."""
    out = os.path.join(work, "report")
    env = dict(os.environ, SOURCE_DATE_EPOCH="1700000000")
    args = ["report", "--spec", os.path.join(TOP, "sizing.json"), "--offline", "--quiet",
            "--out", out, "--format", "xlsx,json,md", "--models",
            "openai-community/gpt2,Qwen/Qwen2.5-0.5B", "--seqs", "512,8192"]
    r = subprocess.run(GS + args, cwd=TOP, env=env, capture_output=True, text=True,
                       timeout=600)
    path = os.path.join(out, "gpusizer.xlsx")
    if not check(r.returncode == 0 and os.path.exists(path),
                 "gpusizer report --format xlsx,json writes gpusizer.xlsx",
                 "exit %d: %s" % (r.returncode, r.stderr[-800:])):
        return
    import json
    with open(os.path.join(out, "sizing.json")) as f:
        rep = json.load(f)
    book = Book(path)
    gpu_ids = [c.value for (r0, c0), c in sorted(book.cells("GPUs").items()) if c0 == 0 and r0 >= 4]
    check(gpu_ids == [g["id"] for g in rep["gpus"]], "GPUs sheet lists the report's GPU classes",
          "%r vs %r" % (gpu_ids, [g["id"] for g in rep["gpus"]]))
    where = {}
    for sheet in model_sheets(book):
        for (r0, c0), c in book.cells(sheet).items():
            if c0 == 0 and r0 > 0:
                where[c.value] = (sheet, r0)
    check(len(where) == len(rep["rows"]) and all(x["id"] in where for x in rep["rows"]),
          "every JSON row is a workbook row (%d)" % len(rep["rows"]),
          "%d workbook rows" % len(where))
    bad, dev_bad, evaluated, ev_bad = [], [], 0, []
    for n, row in enumerate(rep["rows"]):
        if row["id"] not in where:
            continue
        sheet, r0 = where[row["id"]]
        cells = book.cells(sheet)
        for i, gid in enumerate(gpu_ids):
            cell = cells.get((r0, 4 + i))
            want = "no estimate" if row["error"] else json_verdict(row["gpu_verdicts"][gid])
            if cell is None or cell.value != want:
                bad.append((row["id"], gid, cell, want))
            elif cell.formula and n % 5 == 0:
                evaluated += 1
                got = Evaluator(make_lookup(book), sheet).run(cell.formula)
                if got != cell.value:
                    ev_bad.append((row["id"], gid, got, cell.value))
        if not row["error"]:
            dev = cells.get((r0, 2))
            want = row["estimate"]["device"] / 2.0 ** 30
            if dev is None or abs(dev.value - want) > 1e-12 * max(1.0, want):
                dev_bad.append((row["id"], dev, want))
    check(not bad, "every cached verdict equals the JSON report's verdict", repr(bad[:3]))
    check(not dev_bad, "device GiB per GPU equals the JSON report's device bytes / 2^30",
          repr(dev_bad[:3]))
    check(evaluated > 100 and not ev_bad,
          "formulas evaluate to their cached verdicts (%d sampled)" % evaluated, repr(ev_bad[:3]))
    check_answers_agree(book, os.path.join(out, "index.md"))
    core = book.zip.read("docProps/core.xml").decode("utf-8")
    check("2023-11-14T22:13:20Z</dcterms:created>" in core,
          "SOURCE_DATE_EPOCH sets the workbook's creation date", core[-200:])


def main():
    if not os.access(HELPER, os.X_OK):
        check(False, "fixture helper built", "%s missing (make units)" % HELPER)
        return 1
    work = tempfile.mkdtemp(prefix="gs-t-xlsx-")
    try:
        a, b, s = (os.path.join(work, d) for d in ("a", "b", "split"))
        for d in (a, b, s):
            os.mkdir(d)
        r1 = helper("write", a)
        r2 = helper("write", b)
        check(r1.returncode == 0 and r2.returncode == 0, "fixture workbook written",
              r1.stderr + r2.stderr)
        pa, pb = os.path.join(a, "gpusizer.xlsx"), os.path.join(b, "gpusizer.xlsx")
        if not os.path.exists(pa):
            return 1
        with open(pa, "rb") as fa, open(pb, "rb") as fb:
            check(fa.read() == fb.read(), "two runs give byte-identical workbooks")
        check(sorted(os.listdir(a)) == ["gpusizer.xlsx"], "only gpusizer.xlsx in the output directory",
              repr(os.listdir(a)))
        check_fixture(Book(pa), pa)
        check_verify(work, pa)

        # A sheet that would pass the row limit (lowered to 3) is split.
        r = helper("write", s, "3")
        book = Book(os.path.join(s, "gpusizer.xlsx"))
        parts = [n for n in book.order if n == "Big" or n.startswith("Big (")]
        rows = [max(r0 for (r0, c0) in book.cells(n)) for n in parts]
        check(r.returncode == 0 and parts == ["Big", "Big (2)", "Big (3)"] and rows == [3, 3, 1],
              "7 rows at 3 per sheet: Big, Big (2), Big (3) with 3, 3, 1 rows", "%r %r" % (parts, rows))
        check('continued on sheet "Big (2)"' in r.stderr and 'continued on sheet "Big (3)"' in r.stderr,
              "the split is reported on stderr", r.stderr)
        check(all(book.header(n).get(1) == "Configuration" for n in parts),
              "each continuation sheet repeats the header row")
        srows = sheet_rows(book, "Summary")
        ph, pe = pivot_bounds(srows)
        check_live_summary(book, srows, ph, pe, split=True)
        check_killed(work)
        check_size_limit(work)
        check_report(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return check.status()


if __name__ == "__main__":
    sys.exit(main())
