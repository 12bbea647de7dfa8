#!/usr/bin/env python3
# gpusizer bench: every cell of a real workbook, verbatim, for
# bench/floor_xlsx.c's "cells" replay (the whole-job floor).
#   python3 bench/xlsx_cells.py BOOK.xlsx OUT
# Writes OUT: for each worksheet (in sheet order) a line "S ROWS COLS", then
# one line per cell, in the sheet's order:
#   TYPE ROW COL STYLE<TAB>TEXT[<TAB>RESULT]
# ROW and COL 0-based, STYLE the cell's s= (0 when none); TYPE is
#   n  a number (TEXT as written)
#   f  a formula with a number result, b with a boolean, t with a string
#      (TEXT the formula, RESULT the cached result)
#   a  an array formula (one cell) with a number result
#   s  a string (inline or shared)
#   o  a boolean, z a blank (a format only)
# TEXT and RESULT are unescaped from the XML (what a writer passes to
# libxlsxwriter), then '\' TAB and newline escaped as \\ \t \n. A last line
# "E CELLS". The floor replays these exact bytes, so deflate compresses the
# same text as in ours: a mix of synthetic cells of the same counts and
# lengths (bench/xlsx_mix.py) compressed 15% better than our workbook did.
import re
import sys
import zipfile

CELL = re.compile(rb'<c r="([A-Z]+)(\d+)"(?: s="(\d+)")?(?: t="(\w+)")?(?:/>|>(.*?)</c>)', re.S)
FORMULA = re.compile(rb"<f( t=\"array\"[^>]*)?>(.*?)</f>", re.S)
VALUE = re.compile(rb"<v>(.*?)</v>", re.S)
TEXT = re.compile(rb"<t[^>]*>(.*?)</t>", re.S)
DIM = re.compile(rb'<dimension ref="(?:[A-Z]+\d+:)?([A-Z]+)(\d+)"')
ENT = re.compile(rb"&(lt|gt|amp|quot|apos);")
ENTS = {b"lt": b"<", b"gt": b">", b"amp": b"&", b"quot": b'"', b"apos": b"'"}


def text(b):
    b = ENT.sub(lambda m: ENTS[m.group(1)], b)
    return b.replace(b"\\", b"\\\\").replace(b"\t", b"\\t").replace(b"\n", b"\\n")


def col_index(letters):
    n = 0
    for ch in letters:
        n = n * 26 + ch - 64
    return n - 1


def shared_strings(z):
    try:
        data = z.read("xl/sharedStrings.xml")
    except KeyError:
        return []
    return [b"".join(TEXT.findall(si)) for si in re.findall(rb"<si>(.*?)</si>", data, re.S)]


def sheet(data, sst, out):
    d = DIM.search(data)
    rows = set()
    lines = []
    for m in CELL.finditer(data):
        c, r, s, t, body = col_index(m.group(1)), int(m.group(2)) - 1, m.group(3) or b"0", m.group(4), m.group(5)
        rows.add(r)
        head = b"%d %d " % (r, c) + s + b"\t"
        if body is None:
            lines.append(b"z " + head)
            continue
        f = FORMULA.search(body)
        v = VALUE.search(body)
        v = v.group(1) if v else b""
        if f:
            kind = b"a" if f.group(1) else b"t" if t == b"str" else b"b" if t == b"b" else b"f"
            lines.append(kind + b" " + head + text(f.group(2)) + b"\t" + text(v))
        elif t == b"inlineStr":
            lines.append(b"s " + head + text(b"".join(TEXT.findall(body))))
        elif t == b"s":
            lines.append(b"s " + head + text(sst[int(v)]))
        elif t == b"b":
            lines.append(b"o " + head + v)
        else:
            lines.append(b"n " + head + v)
    out.write(b"S %d %d\n" % (len(rows), col_index(d.group(1)) + 1 if d else 0))
    if lines:
        out.write(b"\n".join(lines) + b"\n")
    return len(lines)


def main():
    total = 0
    with zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[2], "wb") as out:
        sst = shared_strings(z)
        names = [n for n in z.namelist() if re.fullmatch(r"xl/worksheets/sheet\d+\.xml", n)]
        names.sort(key=lambda n: int(re.search(r"\d+", n).group()))
        for name in names:
            total += sheet(z.read(name), sst, out)
        out.write(b"E %d\n" % total)


if __name__ == "__main__":
    main()
