#!/usr/bin/env python3
"""The verdict rule of `make bench`, in one place (bench/b_*.sh use it):
a figure is the median over paired runs, each pair run back to back and
interleaved with the others (A, B, A, B, ...) so that the machine's load
hits both sides of a pair alike; its spread is 1.4826 x the median absolute
deviation of the per-pair figures (a standard deviation's worth, robust to
one disturbed pair). A target is missed (FAIL) only when the median is on
the wrong side of it by more than the spread; within the spread the
figure is printed as such and judged a pass. So a verdict changes between
runs only when the median moves across the target by more than the noise
the runs themselves show.

As a program: paired.py LABEL [--target OP X] [--unit U] [--values]
reads one pair "A B" per line on stdin (the figure of a pair is A / B), or
with --values one figure per line; OP is "<=" (lower is better) or ">=";
prints one line and exits 1 on FAIL, 0 otherwise (no target: 0)."""
import statistics
import sys


def summary(figures):
    """(median, spread, lowest, highest) of a list of figures."""
    med = statistics.median(figures)
    mad = statistics.median(abs(f - med) for f in figures)
    return med, 1.4826 * mad, min(figures), max(figures)


def verdict(med, spread, op, target):
    """(word, failed): "ok", "ok, within the spread", or "FAIL"."""
    over = med - target if op == "<=" else target - med
    if over <= 0:
        return "ok", False
    if over <= spread:
        return "ok, within the spread (%s the target by %s, less than the spread)" % (
            "over" if op == "<=" else "under", fmt(over)), False
    return "FAIL (%s the target by %s, more than the spread)" % ("over" if op == "<=" else "under", fmt(over)), True


def fmt(x):
    if x == 0:
        return "0"
    a = abs(x)
    return "%.0f" % x if a >= 1000 else "%.2f" % x if a >= 0.1 else "%.3g" % x


def line(label, figures, op=None, target=None, unit="", what="pairs"):
    """The printed line and whether the target is missed."""
    med, spread, lo, hi = summary(figures)
    s = "%s: median %s%s of %d %s (spread +-%s%s, range %s-%s)" % (
        label, fmt(med), unit, len(figures), what, fmt(spread), unit, fmt(lo), fmt(hi))
    if op is None:
        return s + " (no target)", False
    word, failed = verdict(med, spread, op, target)
    return "%s (target %s %s%s): %s" % (s, op, fmt(target), unit, word), failed


def main(argv):
    if len(argv) < 2:
        print(__doc__.split("\n\n")[-1], file=sys.stderr)
        return 2
    label, op, target, unit, values = argv[1], None, None, "", False
    i = 2
    while i < len(argv):
        if argv[i] == "--target" and i + 2 < len(argv) and argv[i + 1] in ("<=", ">="):
            op, target = argv[i + 1], float(argv[i + 2])
            i += 3
        elif argv[i] == "--unit" and i + 1 < len(argv):
            unit = argv[i + 1]
            i += 2
        elif argv[i] == "--values":
            values = True
            i += 1
        else:
            print("paired.py: unknown argument %r" % argv[i], file=sys.stderr)
            return 2
    figures = []
    for ln in sys.stdin.read().split("\n"):
        f = ln.split()
        if not f:
            continue
        if values:
            figures.append(float(f[0]))
        else:
            figures.append(float(f[0]) / (float(f[1]) if float(f[1]) > 0 else 1e-9))
    if not figures:
        print("%s: no runs" % label)
        return 1
    text, failed = line(label, figures, op, target, unit, "runs" if values else "paired runs (A/B each)")
    print(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
