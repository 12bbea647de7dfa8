"""The default spec's report within its readers' budgets (issues 14, 35):

- size: the committed tree (out/: the formats the spec's "commit" lists) at
  most 10 MB in all (a wiki repository carries it), each model page at most
  64 KiB; the per-model cost and the headroom it leaves are printed, and the
  sizes of the files built for publishing (the workbook, the .gz data) beside;
- history: out/ committed into a throwaway git repository, then a one-GPU
  edit's out/ (RTX 4090 usable memory 3 GiB less), then a full regeneration
  in which every estimate changed (the spec's CUDA context 512 MiB larger:
  every row's device bytes move, checked row by row in the JSON); after
  each commit `git gc` packs the repository as a clone's auto-gc does, and
  the pack's growth is the history each regeneration adds to every clone:
  at most 500 KB for the one-GPU edit, 3 MB for the full regeneration;
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

from lib import md_tables as tables

TOP = os.environ.get("GS_TOP", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GS = os.environ.get("GPUSIZER", os.path.join(TOP, "gpusizer"))
WRAP = os.environ.get("GS_WRAP", "")
OUT_MAX = 10 * 1000 * 1000
PAGE_MAX = 64 * 1024
EDIT_GROWTH_MAX = 500 * 1000     # pack bytes a one-GPU edit may add
REGEN_GROWTH_MAX = 3 * 1000 * 1000  # pack bytes a full regeneration may add
CONTEXT_MORE_MIB = 512           # the full regeneration: every row's CUDA context this much larger
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
    return bool(cond)


def report(d, gpus_dir, spec=None):
    """The default spec (or spec) reported into d/out (the committed
    formats) and d/publish (the others)."""
    env = {k: v for k, v in os.environ.items() if k not in ("GPUSIZER_MEASUREMENTS",)}
    env["SOURCE_DATE_EPOCH"] = "1767225600"
    r = subprocess.run([GS, "report", "--offline", "--quiet", "--out", os.path.join(d, "out"),
                        "--publish-dir", os.path.join(d, "publish"), "--gpus-dir", gpus_dir,
                        "--models-dir", os.path.join(TOP, "models")] + (["--spec", spec] if spec else []),
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


def sizes(d):
    out = os.path.join(d, "out")
    f = files(out)
    total = sum(os.path.getsize(p) for p in f.values())
    with open(os.path.join(TOP, "sizing.json")) as fh:
        spec = json.load(fh)
    n = len(spec["models"])
    pub = files(os.path.join(d, "publish"))
    ok(total <= OUT_MAX and f, "the committed tree (formats %s) is at most 10 MB (%.2f MB, %d files, %d models: "
       "%.0f KB a model, room for %d more; built for publishing beside it, not committed: %s)"
       % (", ".join(spec.get("commit") or spec["formats"]), total / 1e6, len(f), n, total / n / 1e3,
          (OUT_MAX - total) * n // total if total else 0,
          ", ".join("%s %.2f MB" % (k, os.path.getsize(p) / 1e6) for k, p in sorted(pub.items()) if not k.startswith("."))))
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


def rows(d):
    """The sizing JSON of a report directory: published beside out/ (or in
    it, as the spec's "commit" says), gzipped or plain."""
    for sub in ("publish", "out"):
        for name, opener in (("sizing.json.gz", gzip.open), ("sizing.json", open)):
            p = os.path.join(d, sub, name)
            if os.path.isfile(p):
                with opener(p, "rb") as f:
                    return json.load(f)
    raise SystemExit("FAIL budgets: the default spec writes no sizing.json(.gz) (the diff checks read it)")


def verdicts(d):
    doc = rows(d)
    return {(r["model"], r["label"]): r["gpu_verdicts"].get(GPU) for r in doc["rows"]}, doc


def diffs(tmp, da):
    """The one-GPU edit's report into tmp/b; its pages' diffs checked.
    Returns tmp/b, or None when it failed."""
    gdir = os.path.join(tmp, "gpus")
    shutil.copytree(os.path.join(TOP, "gpus"), gdir)
    p = os.path.join(gdir, GPU + ".json")
    with open(p) as f:
        g = json.load(f)
    g["usable_mib"] -= 3072
    with open(p, "w") as f:
        json.dump(g, f, indent=2)
    db = os.path.join(tmp, "b")
    rc, err = report(db, gdir)
    ok(rc == 0, "the report with %s shrunk by 3 GiB" % GPU, err[-300:])
    if rc != 0:
        return None
    va, doc = verdicts(da)
    vb, _ = verdicts(db)
    a, b = os.path.join(da, "out"), os.path.join(db, "out")
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
    # the index names a GPU short, as its class's row of the GPU table does
    short = name.replace("NVIDIA ", "").replace("GeForce ", "")
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
                if any(x in o or x in n for x in (name, short)):
                    named = True
                    continue
                # a plan view's class row that comes or goes with an answer
                # that moved (the plan view shows the classes the answers name)
                if (not o or not n) and "GPU class" in header_for(old if o else new, i1 if o else j1):
                    moved_best.append("%s: %r -> %r" % (k, o[:80], n[:80]))
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
    return db


def regenerated(tmp, da):
    """The full regeneration: the default spec with every row's CUDA context
    CONTEXT_MORE_MIB larger, into tmp/c; checks that every estimate moved.
    Returns tmp/c, or None when it failed."""
    with open(os.path.join(TOP, "sizing.json")) as f:
        spec = json.load(f)
    before = rows(da)["rows"]
    ctx = {r["settings"]["cuda-context"] for r in before}
    if not ok(len(ctx) == 1, "the default rows share one CUDA context (%s MiB)" % sorted(ctx)):
        return None
    spec.setdefault("settings", {})["cuda-context"] = ctx.pop() + CONTEXT_MORE_MIB
    path = os.path.join(tmp, "regenerate.json")
    with open(path, "w") as f:
        json.dump(spec, f, indent=2)
    dc = os.path.join(tmp, "c")
    rc, err = report(dc, os.path.join(TOP, "gpus"), path)
    ok(rc == 0, "the report with every CUDA context %d MiB larger" % CONTEXT_MORE_MIB, err[-300:])
    if rc != 0:
        return None
    after = rows(dc)["rows"]
    pairs = [(x, y) for x, y in zip(before, after) if x["estimate"] and y["estimate"]]
    same = [x["id"] for x, y in pairs if x["estimate"]["device"] == y["estimate"]["device"]]
    ok(len(before) == len(after) and len(pairs) == len(before) and not same,
       "every estimate changed in the full regeneration (%d of %d rows' device bytes moved)"
       % (len(pairs) - len(same), len(before)), "unchanged: %s" % same[:5])
    return dc


def pack_bytes(repo):
    d = os.path.join(repo, ".git", "objects", "pack")
    return sum(os.path.getsize(os.path.join(d, n)) for n in os.listdir(d) if n.endswith(".pack"))


def history(tmp, steps):
    """Commits each (name, report dir)'s out/ in turn into a throwaway git
    repository, `git gc` after each; returns the pack's bytes after each, or
    None when git failed."""
    repo = os.path.join(tmp, "history")
    os.makedirs(repo)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="budget",
               GIT_AUTHOR_EMAIL="budget@example.invalid", GIT_COMMITTER_NAME="budget",
               GIT_COMMITTER_EMAIL="budget@example.invalid")

    def git(*args):
        return subprocess.run(["git"] + list(args), cwd=repo, env=env, capture_output=True, text=True,
                              timeout=300)
    if git("init", "-q").returncode != 0:
        return None
    sizes = []
    for name, d in steps:
        shutil.rmtree(os.path.join(repo, "out"), ignore_errors=True)
        shutil.copytree(os.path.join(d, "out"), os.path.join(repo, "out"))
        for r in (git("add", "-A"), git("commit", "-q", "-m", name), git("gc", "-q", "--prune=now")):
            if r.returncode != 0:
                ok(False, "git in the history repository", r.stderr[-300:])
                return None
        sizes.append(pack_bytes(repo))
    return sizes


def history_budget(tmp, da, db, dc):
    """The pack growth of a one-GPU edit (db) after the full report (da),
    then of the full regeneration (dc)."""
    p = history(tmp, [("full report", da), ("one-GPU edit", db), ("full regeneration", dc)])
    if p is None:
        return
    with open(os.path.join(TOP, "sizing.json")) as f:
        n = len(json.load(f)["models"])
    edit, regen = p[1] - p[0], p[2] - p[1]
    ok(edit <= EDIT_GROWTH_MAX, "a one-GPU edit committed after the full report grows the pack by %.0f KB "
       "(at most %.0f KB; the first commit packs to %.0f KB; %.1f KB a model)"
       % (edit / 1e3, EDIT_GROWTH_MAX / 1e3, p[0] / 1e3, edit / n / 1e3))
    ok(regen <= REGEN_GROWTH_MAX, "a full regeneration with every estimate changed grows it by %.0f KB "
       "(at most %.0f KB; %.1f KB a model)" % (regen / 1e3, REGEN_GROWTH_MAX / 1e3, regen / n / 1e3))


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
            b = diffs(tmp, a)
            c = regenerated(tmp, a)
            if b and c:
                history_budget(tmp, a, b, c)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
