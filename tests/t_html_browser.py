#!/usr/bin/env python3
# gpusizer-tier: apps (make check-apps runs it; make check does not)
"""The HTML report in a real browser: headless Chromium (Debian's
`chromium`: `make check-apps` installs it with tools/deps.sh apps; this
test exists to run it, so without it the test fails). From a small sweep of the
committed spec (one model, offline) it checks, from screenshots decoded
with zlib and from what the page measures of itself:

- a fragment link to a row near the end of a long matrix scrolls there and
  the sticky header row is still at the top of the screen;
- verdict cells carry the workbook's colours;
- the first column stays when the table scrolls sideways, and at 390 px
  the table scrolls inside its box, not the page;
- chart text is at least 11 px at 390 px;
- the index links the workbook and the CSV and shows the report's date
  (SOURCE_DATE_EPOCH, never the clock), and two runs are byte-identical.

The screenshots (index and model page at 1440 and 390 px) are written to
$GS_SCREENSHOTS_DIR when it is set (tools/screenshots.sh: docs/img/)."""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

from lib import GS, TOP, Checks, clean_env

check = Checks("html_browser: ")
MODEL = "meta-llama/Llama-3.1-8B"
SLUG = "meta-llama--Llama-3.1-8B"
HEADER = (0xDB, 0xE4, 0xEE)      # thead th background (src/report/html.c)
FIRST_COL = [(0xF6, 0xF8, 0xFA), (0xF0, 0xF2, 0xF4)]  # first column, odd and even rows
VERDICT = {"fits": (0xC6, 0xEF, 0xCE), "tight": (0xFF, 0xEB, 0x9C),
           "does not fit": (0xFF, 0xC7, 0xCE), "not runnable": (0xD9, 0xD9, 0xD9)}
EPOCH, DATE = "1700000000", "2023-11-14"


def find_chromium():
    """The chromium binary; None when there is none."""
    for name in ("chromium", "chromium-browser"):
        p = shutil.which(name)
        if p:
            return p
    return None


def png_pixels(path):
    """(width, height, rows): rows[y] is a bytes object of RGB triples.
    8-bit RGB or RGBA, non-interlaced (what Chromium writes)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("%s: not a PNG" % path)
    pos, idat, w = 8, [], 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError("%s: PNG type %d/%d not handled" % (path, depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    raw = zlib.decompress(b"".join(idat))
    stride, rows, prev = w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        rows.append(bytes(line) if bpp == 3 else bytes(v for k, v in enumerate(line) if k % 4 != 3))
    return w, h, rows


def near(px, col, tol=4):
    return all(abs(px[k] - col[k]) <= tol for k in range(3))


def row_share(row, col, x0, x1):
    """The share of pixels x0..x1 of one RGB row that have colour col."""
    n = sum(1 for x in range(x0, x1) if near(row[3 * x:3 * x + 3], col))
    return n / max(1, x1 - x0)


class Browser:
    def __init__(self, exe, tmp):
        self.exe, self.tmp, self.n = exe, tmp, 0

    def run(self, url, width, height, screenshot=None, script=""):
        """Load url in an iframe of width x height (a wrapper page: headless
        Chromium's --screenshot paints nothing of a top-level page scrolled
        to a fragment), run script in the wrapper once the frame has loaded
        (it may write its results into #out), and return the wrapper's DOM
        (and write the screenshot)."""
        self.n += 1
        wrap = os.path.join(self.tmp, "wrap%d.html" % self.n)
        with open(wrap, "w") as f:
            f.write('<!DOCTYPE html><html><body style="margin:0">'
                    '<iframe id="f" src="%s" style="border:0;width:%dpx;height:%dpx;display:block">'
                    '</iframe><pre id="out"></pre><script>'
                    'document.getElementById("f").onload=function(){var f=this,'
                    'd=f.contentDocument,w=f.contentWindow,o=document.getElementById("out");'
                    'try{%s}catch(x){o.textContent="error "+x;}};</script></body></html>'
                    % (url, width, height, script))
        cmd = [self.exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--no-first-run", "--allow-file-access-from-files",
               "--user-data-dir=" + os.path.join(self.tmp, "profile"),
               "--virtual-time-budget=8000", "--window-size=%d,%d" % (width, height)]
        cmd += ["--screenshot=" + screenshot] if screenshot else ["--dump-dom"]
        r = subprocess.run(cmd + ["file://" + wrap], capture_output=True, text=True, timeout=180,
                           env=dict(os.environ, HOME=self.tmp))
        m = re.search(r'<pre id="out">(.*?)</pre>', r.stdout, re.S)
        return m.group(1) if m else ""


def report(out):
    env = clean_env(os.path.dirname(out), SOURCE_DATE_EPOCH=EPOCH)
    return subprocess.run(GS + ["report", "--spec", os.path.join(TOP, "sizing.json"), "--out", out,
                                "--models", MODEL, "--offline", "--quiet", "--format", "html,xlsx,csv"],
                          cwd=TOP, env=env, capture_output=True, text=True, timeout=300)


def main():
    exe = find_chromium()
    if not check(exe is not None, "chromium is installed",
                 "no chromium on PATH: `sh tools/deps.sh apps` installs it (make check-apps does)"):
        return check.status()
    tmp = tempfile.mkdtemp(prefix="gs-html-browser-")
    try:
        return run(Browser(exe, tmp), tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(br, tmp):
    out, out2 = os.path.join(tmp, "out"), os.path.join(tmp, "out2")
    r = report(out)
    if not check(r.returncode == 0, "report", "exit %d: %s" % (r.returncode, r.stderr[-400:])):
        return check.status()
    r2 = report(out2)
    index, page = os.path.join(out, "html", "index.html"), os.path.join(out, "html", "models", SLUG + ".html")
    with open(index, encoding="utf-8") as f:
        ihtml = f.read()
    with open(page, encoding="utf-8") as f:
        phtml = f.read()

    # The index: downloads and the report's date, deterministic.
    check('href="../gpusizer.xlsx"' in ihtml and 'href="../sizing.csv"' in ihtml,
          "index links the workbook and the CSV", "no href to ../gpusizer.xlsx and ../sizing.csv")
    check("Generated %s" % DATE in ihtml, "index shows the report's date (SOURCE_DATE_EPOCH)",
          "no 'Generated %s'" % DATE)
    same = r2.returncode == 0 and all(
        open(os.path.join(a, "html", p), "rb").read() == open(os.path.join(out2, "html", p), "rb").read()
        for a in (out,) for p in ("index.html", "models/%s.html" % SLUG))
    check(same, "two runs byte-identical")

    # The longest table of verdicts on the model page (the last of equals)
    # and a row 3 from its end.
    counts = {}
    for n, seg in enumerate(phtml.split('<div class="tw')[1:], 1):
        seg = seg.split("</table>")[0]
        if 'class="v-' in seg:
            counts[str(n)] = len(re.findall(r'<tr id="t%dr\d+"' % n, seg))
    if not check(counts and max(counts.values()) > 0, "rows of verdict tables have ids for fragment links",
                 "no table with <tr id=\"tNrM\"> and verdict cells"):
        return check.status()
    table = max(counts, key=lambda t: (counts[t], int(t)))
    row = max(1, counts[table] - 2)
    frag = "t%sr%d" % (table, row)
    url = "file://" + page
    check(all(re.search(r'<td class="%s"[^>]*>' % c, phtml) for c in ("v-fits", "v-nofit")) and
          re.search(r'<td class="v-(tight|norun)"', phtml),
          "verdict cells carry their class (v-fits, v-nofit, and v-tight or v-norun)")

    # Sticky header after a fragment link near the end, at 1440 px: the
    # viewport is lower than the table, so without a sticky header the
    # header row would be off screen. From the screenshot; the page's own
    # measurements say the test means something.
    wd, ht = 1440, 500
    res = br.run(url + "#" + frag, wd, ht, script=(
        'setTimeout(function(){var r=d.getElementById("%s"),b=r.closest(".tw"),'
        'th=b.querySelector("thead th").getBoundingClientRect(),rr=r.getBoundingClientRect(),'
        't=b.querySelector("table").getBoundingClientRect();'
        'o.textContent="table "+Math.round(t.height)+" header "+Math.round(th.top)+" "+Math.round(th.bottom)'
        '+" row "+Math.round(rr.top)+" "+Math.round(rr.bottom);},200);' % frag))
    m = re.match(r"table (\d+) header (-?\d+) (-?\d+) row (-?\d+) (-?\d+)", res)
    if check(m, "the model page measured at 1440 x 500 px", "the page said %r" % res):
        tab_h, th_top, th_bot, r_top, r_bot = (int(v) for v in m.groups())
        check(tab_h > ht and -2 <= th_top < ht / 2 and th_bot <= r_top + 1 and r_bot <= ht,
              "after the link, the header row and the row both on screen, the row below the header",
              "table %d px high, header %d..%d, row %d..%d in a %d px viewport" % (tab_h, th_top, th_bot, r_top, r_bot, ht))
    shot = os.path.join(tmp, "frag.png")
    br.run(url + "#" + frag, wd, ht, screenshot=shot)
    try:
        w, h, rows = png_pixels(shot)
    except (OSError, ValueError) as x:
        check(False, "screenshot of the fragment link", str(x))
        return check.status()
    band = [y for y in range(0, h // 2) if row_share(rows[y], HEADER, 0, w) > 0.4]
    check(band, "sticky header row on screen after a link to row %d of %d (#%s), from the screenshot"
          % (row, counts[table], frag),
          "no header band (#%02x%02x%02x over 40%% of the width) in the top half; top row colours %s"
          % (HEADER + (rows[5][600:606].hex(),)))
    # The page did scroll to the row: verdict-coloured cells below the header.
    y0 = (band[-1] + 1) if band else 0
    colours = {k: sum(row_share(rows[y], c, 0, w) for y in range(y0, h, 5)) for k, c in VERDICT.items()}
    check(sum(1 for v in colours.values() if v > 0.5) >= 2,
          "verdict colours of the workbook in the screenshot, under the header",
          "screen shares by colour: %s" % colours)

    # The first column sticks when the table scrolls sideways (at 390 px).
    wd, ht = 390, 844
    shot2 = os.path.join(tmp, "side.png")
    script = ('var b=d.getElementById("%s").closest(".tw");b.scrollLeft=b.scrollWidth;'
              'o.textContent="left "+b.scrollLeft;' % frag)
    res = br.run(url + "#" + frag, wd, ht, script=script)
    br.run(url + "#" + frag, wd, ht, screenshot=shot2, script=script)
    w, h, rows = png_pixels(shot2)
    x0, x1 = 24, w - 40  # inside the first column; a matrix cell
    body = [y for y in range(0, h, 4)
            if any(near(rows[y][3 * x1:3 * x1 + 3], c) for c in VERDICT.values())]
    firstcol = sum(1 for y in body if any(near(rows[y][3 * x0:3 * x0 + 3], c) for c in FIRST_COL))
    scrolled = re.match(r"left (\d+)", res)
    check(scrolled and int(scrolled.group(1)) > 0 and len(body) >= 5 and firstcol > len(body) * 0.8,
          "sticky first column after scrolling the table sideways (390 px)",
          "%s; %d of %d sampled table rows at x=%d have the first column's colour" % (res, firstcol, len(body), x0))

    # At 390 px: the table scrolls in its box, not the page; chart text >= 11 px.
    res = br.run(url, 390, 844, script=(
        'var e=d.documentElement,m=1e9,t=d.querySelectorAll("svg text");'
        'for(var i=0;i<t.length;i++){var r=t[i].getBoundingClientRect(),'
        's=parseFloat(w.getComputedStyle(t[i]).fontSize)*t[i].ownerSVGElement.getScreenCTM().a;'
        'if(r.width>0&&s<m)m=s;}'
        'var b=d.querySelector(".tw");'
        'o.textContent="page "+e.scrollWidth+" box "+(b?b.scrollWidth+"/"+b.clientWidth:"none")'
        '+" texts "+t.length+" minfont "+m.toFixed(2);'))
    m = re.match(r"page (\d+) box (\d+)/(\d+) texts (\d+) minfont ([\d.]+)", res)
    if check(m, "390 px measurements", "the page said %r" % res):
        page_w, box_w, box_cw, ntext, minfont = (int(m.group(1)), int(m.group(2)), int(m.group(3)),
                                                 int(m.group(4)), float(m.group(5)))
        check(page_w <= 391 and box_w > box_cw, "at 390 px the table scrolls sideways in its box, not the page",
              "page scrollWidth %d, table box %d in %d" % (page_w, box_w, box_cw))
        check(ntext > 0 and minfont >= 10.5, "chart text at least 11 px at 390 px",
              "%d texts, smallest %.2f px" % (ntext, minfont))

    # The screenshots: index and model page at 1440 and 390 px.
    keep = os.environ.get("GS_SCREENSHOTS_DIR")
    shots = [("index-1440.png", "file://" + index, 1440, 1000),
             ("index-390.png", "file://" + index, 390, 844),
             ("model-1440.png", url, 1440, 1000),
             ("model-390.png", url, 390, 844)]
    ok, why = True, ""
    for name, u, wd, ht in shots:
        p = os.path.join(tmp, name)
        br.run(u, wd, ht, screenshot=p)
        try:
            pw, ph, prow = png_pixels(p)
            blank = all(row_share(prow[y], (255, 255, 255), 0, pw) > 0.995 for y in range(0, ph, 20))
            if (pw, ph) != (wd, ht) or blank:
                ok, why = False, "%s: %dx%d%s" % (name, pw, ph, ", blank" if blank else "")
        except (OSError, ValueError) as x:
            ok, why = False, str(x)
        if keep and ok:
            os.makedirs(keep, exist_ok=True)
            shutil.copyfile(p, os.path.join(keep, name))
    check(ok, "screenshots of the index and a model page at 1440 and 390 px", why)
    return check.status()


if __name__ == "__main__":
    sys.exit(main())
