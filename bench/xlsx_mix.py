#!/usr/bin/env python3
# gpusizer bench: the cell mix of a real workbook, for bench/floor_xlsx.c.
#   python3 bench/xlsx_mix.py BOOK.xlsx
# Streams every worksheet of BOOK.xlsx (in sheet order) and prints one line
# per sheet:
#   sheet ROWS COLS NUM FNUM FSTR FBOOL STR BOOL BLANK FORMATTED SLEN FLEN RLEN NLEN
# ROWS: rows that hold a cell; COLS: the last column of the sheet's
# dimension; NUM plain numbers (<v>, no t); FNUM, FSTR, FBOOL formulas (<f>)
# whose cached result is a number, a string (t="str") or a boolean (t="b");
# STR strings (t="inlineStr" or t="s"); BOOL booleans (t="b", no formula);
# BLANK cells with no value (a format only); FORMATTED the cells of any type
# with s="N"; SLEN, FLEN, RLEN the mean byte lengths of the inline strings,
# the formulas and the formulas' cached string results, unescaped (what the
# writer passes to libxlsxwriter); NLEN the mean length of the plain numbers
# as written (%.16G). A last line "total CELLS" (every <c>).
# Counting is done with regular expressions over the XML as libxlsxwriter
# writes it (attributes r, s, t in that order), a chunk of whole rows at a time.
import re
import sys
import zipfile

CELL = re.compile(rb"<c r=")
STYLED = re.compile(rb'<c r="[A-Z]+\d+" s="')
BLANK = re.compile(rb'<c r="[A-Z]+\d+"(?: s="\d+")?/>')
ROW = re.compile(rb'<row r="\d+"(?:[^>]*[^/])?>')
FORMULA = re.compile(rb"<f>([^<]*)</f>|<f [^>]*>([^<]*)</f>|<f [^>]*/>")
FSTR_RESULT = re.compile(rb't="str"><f[^>]*>[^<]*</f><v>([^<]*)</v>')
NUMBER = re.compile(rb'<c r="[A-Z]+\d+"(?: s="\d+")?><v>([^<]*)</v>')
ISTR = re.compile(rb"<is>(.*?)</is>", re.S)
TEXT = re.compile(rb"<t[^>]*>([^<]*)</t>")
DIM = re.compile(rb'<dimension ref="(?:[A-Z]+\d+:)?([A-Z]+)\d+"')


def unescaped_len(parts):
    """Total byte length of XML texts once their entities are decoded."""
    b = b"".join(parts)
    ent = 3 * (b.count(b"&lt;") + b.count(b"&gt;")) + 4 * b.count(b"&amp;") + 5 * (b.count(b"&quot;") + b.count(b"&apos;"))
    return len(b) - ent


def col_index(letters):
    n = 0
    for ch in letters:
        n = n * 26 + ch - 64
    return n


def sheet_mix(f):
    k = dict(rows=0, cols=0, cells=0, fnum=0, fstr=0, fbool=0, str=0, bool=0, blank=0, fmt=0)
    slen = flen = rlen = nlen = 0
    buf = b""
    first = True
    while True:
        chunk = f.read(1 << 22)
        buf += chunk
        end = len(buf) if not chunk else buf.rfind(b"</row>")
        if end < 0:
            continue
        if first:
            d = DIM.search(buf)
            k["cols"] = col_index(d.group(1)) if d else 0
            first = False
        b = buf[:end]
        k["cells"] += b.count(b"<c r=")
        k["rows"] += len(ROW.findall(b))
        k["fmt"] += len(STYLED.findall(b))
        k["blank"] += len(BLANK.findall(b))
        nlen += len(b"".join(NUMBER.findall(b)))
        fs = FORMULA.findall(b)
        nf = len(fs)
        flen += unescaped_len(x[0] or x[1] for x in fs)
        res = FSTR_RESULT.findall(b)
        k["fstr"] += len(res)
        rlen += unescaped_len(res)
        fbool = b.count(b't="b"><f')
        k["fbool"] += fbool
        k["fnum"] += nf - len(res) - fbool
        k["bool"] += b.count(b't="b"') - fbool
        nstr = b.count(b't="inlineStr"')
        k["str"] += nstr + b.count(b't="s"') + b.count(b't="str"') - len(res)
        if nstr:
            slen += unescaped_len(t for s in ISTR.findall(b) for t in TEXT.findall(s))
        if not chunk:
            break
        buf = buf[end:]
    nf = k["fnum"] + k["fstr"] + k["fbool"]
    k["num"] = k["cells"] - nf - k["str"] - k["bool"] - k["blank"]
    k["slen"] = round(slen / k["str"]) if k["str"] else 0
    k["flen"] = round(flen / nf) if nf else 0
    k["rlen"] = round(rlen / k["fstr"]) if k["fstr"] else 0
    k["nlen"] = round(nlen / k["num"], 2) if k["num"] else 0
    return k


def main():
    keys = "rows cols num fnum fstr fbool str bool blank fmt slen flen rlen nlen".split()
    total = 0
    with zipfile.ZipFile(sys.argv[1]) as z:
        names = [n for n in z.namelist() if re.fullmatch(r"xl/worksheets/sheet\d+\.xml", n)]
        names.sort(key=lambda n: int(re.search(r"\d+", n).group()))
        for name in names:
            with z.open(name) as f:
                k = sheet_mix(f)
            total += k["cells"]
            print("sheet", " ".join(str(k[x]) for x in keys))
    print("total", total)


if __name__ == "__main__":
    main()
