"""The default spec's report within its readers' budgets (issue 14):

- size: out/ at most 10 MB in all (a wiki repository carries it), each
  model page at most 64 KiB;
- width: every Markdown table of the pages fits GitHub's 980 px content
  column at 1280 px without sideways scrolling. A proxy measured here, not in
  a browser: a cell wraps at spaces, so a column is at least as wide as its
  longest word, measured with Helvetica's advance widths (its AFM metrics;
  Arial's are the same, and GitHub's font stack ends in them) at GitHub's
  16 px body size, header words 10% wider for bold, plus 13 px padding each
  side and a 1 px border per column;
- diffs: changing one GPU's usable memory changes only what depends on it:
  the files that change are the index and the pages of models with a row
  whose verdict or headroom on that GPU changed, and every changed line of
  a page is a table row whose cell for that GPU changed, or a line that
  names that GPU before or after (its row of the GPU table, an answer that
  moved to or from it).

The report is written here from the committed spec, models and GPU files
(t_out_current checks that out/ is what they give). Skipped under a wrapper
(valgrind): two full default sweeps are the plain run's job."""
import difflib
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.environ.get("GS_TOP", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GS = os.environ.get("GPUSIZER", os.path.join(TOP, "gpusizer"))
WRAP = os.environ.get("GS_WRAP", "")
OUT_MAX = 10 * 1000 * 1000
PAGE_MAX = 64 * 1024
WIDTH_MAX = 980
FONT_PX, CELL_PAD_PX = 16, 27
# Helvetica advance widths, 1/1000 em (Adobe's AFM); other characters 556
# (a digit's width), wide ones (CJK, symbols) 1000.
_W = dict(zip("abcdefghijklmnopqrstuvwxyz",
              (556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333,
               500, 278, 556, 500, 722, 500, 500, 500)))
_W.update(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ",
              (667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722,
               667, 611, 722, 667, 944, 667, 667, 611)))
_W.update({"(": 333, ")": 333, ",": 278, ".": 278, "-": 333, ":": 278, "/": 278, "%": 889, "'": 191,
           '"': 355, "_": 556, "+": 584, "=": 584, "x": 500, "*": 389, "<": 584, ">": 584, "[": 278,
           "]": 278, ";": 278, "!": 278, "?": 556, "&": 667, "#": 556})


def word_px(w, bold=False):
    em = sum(_W.get(c, 556 if ord(c) < 0x2000 else 1000) for c in w)
    return em / 1000.0 * FONT_PX * (1.1 if bold else 1.0)
GPU = "rtx-4090"  # the class edited; its usable memory shrinks by 3 GiB

failed = 0


def ok(cond, name, detail=""):
    global failed
    if cond:
        print("PASS budgets: %s" % name)
    else:
        failed += 1
        print("FAIL budgets: %s%s" % (name, (": " + detail) if detail else ""))


def report(out, gpus_dir):
    env = {k: v for k, v in os.environ.items() if k not in ("GPUSIZER_MEASUREMENTS",)}
    env["SOURCE_DATE_EPOCH"] = "1767225600"
    r = subprocess.run([GS, "report", "--offline", "--quiet", "--out", out, "--gpus-dir", gpus_dir,
                        "--models-dir", os.path.join(TOP, "models")],
                       cwd=TOP, capture_output=True, text=True, timeout=900, env=env)
    return r.returncode, r.stderr


def files(d):
    got = {}
    for root, _, names in os.walk(d):
        for n in names:
            p = os.path.join(root, n)
            got[os.path.relpath(p, d)] = p
    return got


def table_width(rows):
    """The narrowest width of a GFM table whose cells wrap at spaces."""
    cols = {}
    for r, cells in enumerate(rows):
        for i, c in enumerate(cells):
            bold = r == 0 or c.startswith("**")
            plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", c).replace("**", "").replace("`", "")
            longest = max((word_px(w, bold) for w in plain.split()), default=0)
            cols[i] = max(cols.get(i, 0), longest)
    return int(sum(w + CELL_PAD_PX for w in cols.values()) + 0.5)


def tables(text):
    """Each table of a Markdown page: its rows as lists of cell texts."""
    out, cur = [], []
    for ln in text.split("\n") + [""]:
        if ln.startswith("|"):
            cells = [c.strip() for c in ln.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                cur.append(cells)
        elif cur:
            out.append(cur)
            cur = []
    return out


def sizes(out):
    f = files(out)
    total = sum(os.path.getsize(p) for p in f.values())
    ok(total <= OUT_MAX, "the default report is at most 10 MB in all (%.2f MB, %d files)" % (total / 1e6, len(f)))
    pages = {k: p for k, p in f.items() if k.startswith("models" + os.sep) and k.endswith(".md")}
    big = max(pages.items(), key=lambda kv: os.path.getsize(kv[1]))
    ok(pages and os.path.getsize(big[1]) <= PAGE_MAX,
       "every model page is at most 64 KiB (%d pages; the largest %s, %d bytes)"
       % (len(pages), big[0], os.path.getsize(big[1])))
    widest, where = 0, ""
    for k, p in sorted(f.items()):
        if not k.endswith(".md"):
            continue
        with open(p, encoding="utf-8") as fh:
            for t in tables(fh.read()):
                w = table_width(t)
                if w > widest:
                    widest, where = w, "%s (%s ...)" % (k, " | ".join(t[0])[:60])
    ok(0 < widest <= WIDTH_MAX, "the widest table needs %d px of GitHub's %d px column: %s" % (widest, WIDTH_MAX, where))


def verdicts(out):
    with gzip.open(os.path.join(out, "sizing.json.gz")) as f:
        doc = json.load(f)
    return {(r["model"], r["label"]): r["gpu_verdicts"].get(GPU) for r in doc["rows"]}, doc


def diffs(tmp, a):
    gdir = os.path.join(tmp, "gpus")
    shutil.copytree(os.path.join(TOP, "gpus"), gdir)
    p = os.path.join(gdir, GPU + ".json")
    with open(p) as f:
        g = json.load(f)
    g["usable_mib"] -= 3072
    with open(p, "w") as f:
        json.dump(g, f, indent=2)
    b = os.path.join(tmp, "b")
    rc, err = report(b, gdir)
    ok(rc == 0, "the report with %s shrunk by 3 GiB" % GPU, err[-300:])
    if rc != 0:
        return
    va, doc = verdicts(a)
    vb, _ = verdicts(b)
    name = [x["name"] for x in doc["gpus"] if x["id"] == GPU][0]
    moved = {k for k in va if va[k] != vb.get(k)}
    flipped = {k for k in va if (va[k] or [None])[0] != (vb.get(k) or [None])[0]}
    models = {m for m, _ in moved}
    ok(flipped, "the edit flips some verdicts (%d rows; %d with a changed headroom)" % (len(flipped), len(moved)))
    fa, fb = files(a), files(b)
    pages = {k for k in fa if k.endswith(".md") or k.endswith(".html") or k.endswith(".svg")}
    changed = set()
    for k in sorted(pages):
        with open(fa[k], "rb") as x, open(fb.get(k, fa[k]), "rb") as y:
            if x.read() != y.read():
                changed.add(k)
    slugs = {m.replace("/", "--") for m in models} | {"index"}

    def slug(k):
        b = os.path.basename(k)
        for suffix in ("-components.svg", "-context.svg", ".md", ".html"):
            if b.endswith(suffix):
                return b[:-len(suffix)]
        return b
    stray = [k for k in changed if slug(k) not in slugs]
    ok(not stray, "only the index and the pages of the %d models with a changed row on %s change (%d files)"
       % (len(models), GPU, len(changed)), str(sorted(stray)[:5]))
    bad, lines = [], 0
    for k in sorted(c for c in changed if c.endswith(".md")):
        moved_best = []  # lines whose only change is the bold of the best class
        with open(fa[k], encoding="utf-8") as x, open(fb[k], encoding="utf-8") as y:
            old, new = x.read().split("\n"), y.read().split("\n")
        named = False
        for op in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
            tag, i1, i2, j1, j2 = op
            if tag == "equal":
                continue
            for o, n in zip(old[i1:i2] + [""] * max(0, (j2 - j1) - (i2 - i1)),
                            new[j1:j2] + [""] * max(0, (i2 - i1) - (j2 - j1))):
                lines += 1
                if name in o or name in n:
                    named = True
                    continue
                if o.replace("**", "") == n.replace("**", ""):
                    moved_best.append("%s: %r -> %r" % (k, o[:80], n[:80]))
                    continue
                if o.startswith("|") and n.startswith("|"):
                    co = [c.strip() for c in o.strip("|").split("|")]
                    cn = [c.strip() for c in n.strip("|").split("|")]
                    head = header_for(old, i1)
                    col = [i for i, h in enumerate(head) if name_matches(h, name, GPU)]
                    if len(co) == len(cn) and col and all(co[i] == cn[i] for i in range(len(co)) if i not in col):
                        continue
                bad.append("%s: %r -> %r" % (k, o[:80], n[:80]))
        # the best class moves only when a line naming the GPU changed too
        if moved_best and not named:
            bad += moved_best
    ok(not bad, "every changed Markdown line is a cell for %s or names it (%d lines changed, %d rows moved)"
       % (GPU, lines, len(moved)), "; ".join(bad[:3]))


def header_for(lines, i):
    """The header row of the table that line i belongs to."""
    while i > 0 and lines[i - 1].startswith("|"):
        i -= 1
    return [c.strip() for c in lines[i].strip("|").split("|")] if i < len(lines) else []


def name_matches(head, name, gid):
    h = head.replace("**", "").lower()
    short = name.replace("NVIDIA ", "").replace("GeForce ", "").lower()
    return gid in h or short in h or name.lower() in h


def main():
    if WRAP:
        print("SKIP budgets: the default report under %s (checked in the plain run)" % WRAP.split()[0])
        return 0
    tmp = tempfile.mkdtemp(prefix="gs-t-budgets-")
    try:
        a = os.path.join(tmp, "a")
        rc, err = report(a, os.path.join(TOP, "gpus"))
        ok(rc == 0, "the default report", err[-300:])
        if rc == 0:
            sizes(a)
            diffs(tmp, a)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
