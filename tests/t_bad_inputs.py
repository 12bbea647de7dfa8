#!/usr/bin/env python3
"""The catalogue of bad inputs (tests/bad/cases.json, written by
tests/bad/gen_cases.py): each case runs gpusizer and checks the exit status,
a substring of the message, that it did not crash (no signal, no sanitizer
report), that errors are printed as "gpusizer: ..." and, for model ids, that
nothing was written outside the model cache. Then names with '|', <script>,
a newline and a leading '=' in a config path go through `gpusizer report`
and must come out escaped in Markdown and HTML and as plain strings (never
formulas) in XLSX.

Under valgrind (GS_WRAP non-empty) the 100 MB config and the deep-nesting
cases are skipped (heavy), and the time limits are not checked."""
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

from lib import EXE, TOP, WRAP, Checks

BAD = os.path.join(TOP, "tests", "bad")
TIMEOUT = 600 if WRAP else 60
report = Checks(why_on_pass=True)


def env_for(tmp):
    env = dict(os.environ)
    for k in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_TOKEN_PATH", "HF_HUB_CACHE",
              "HF_HUB_OFFLINE", "SOURCE_DATE_EPOCH"):
        env.pop(k, None)
    env.update(HF_HOME=os.path.join(tmp, "hf"), HF_ENDPOINT="http://127.0.0.1:9",
               GPUSIZER_RETRIES="0", GPUSIZER_TIMEOUT="2", LC_ALL="C")
    return env


def generate(kind, tmp):
    if kind == "deep":
        with open(os.path.join(tmp, "deep.json"), "w") as f:
            f.write('{"model_type": "llama", "x": ' + "[" * 100000 + "]" * 100000 + "}")
    elif kind == "deep-spec":
        with open(os.path.join(tmp, "deep.json"), "w") as f:
            f.write('{"version": 1, "models": ' + "[" * 100000 + "]" * 100000 + "}")
    elif kind == "big":
        # 100 MB: a valid JSON object with one long string (sparse would be
        # quicker but a real file is what a user would have)
        chunk = b"x" * (1 << 20)
        with open(os.path.join(tmp, "big.json"), "wb") as f:
            f.write(b'{"model_type": "llama", "pad": "')
            for _ in range(100):
                f.write(chunk)
            f.write(b'"}\n')


def run_case(c):
    name = "bad." + c["name"]
    if c.get("heavy") and WRAP:
        return [(None, name, "heavy input, not run under %s (checked in the plain run)" % WRAP[0])]
    tmp = tempfile.mkdtemp(prefix="gs-bad-")
    try:
        subs = {"{tmp}": tmp, "{top}": TOP}
        if c.get("file"):
            subs["{file}"] = os.path.join(BAD, c["file"])
            if any("{dir}" in a for a in c["args"]):
                d = os.path.join(tmp, "gpudir")
                os.mkdir(d)
                shutil.copy(subs["{file}"], os.path.join(d, "bad-gpu.json"))
                subs["{dir}"] = d
        if c.get("generate"):
            generate(c["generate"], tmp)
        args = []
        for a in c["args"]:
            for k, v in subs.items():
                a = a.replace(k, v)
            args.append(a)
        t0 = time.monotonic()
        try:
            p = subprocess.run(WRAP + [EXE] + args, cwd=TOP, env=env_for(tmp),
                               stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            return [(False, name, "timed out after %d s" % TIMEOUT)]
        dt = time.monotonic() - t0
        out = p.stdout.decode("utf-8", "replace")
        err = p.stderr.decode("utf-8", "replace")
        both = err + out
        res = []
        why = []
        if p.returncode != c["exit"]:
            why.append("exit %d, expected %d" % (p.returncode, c["exit"]))
        if c["message"] not in both:
            why.append("message lacks %r" % c["message"])
        if p.returncode < 0 or p.returncode >= 128:
            why.append("killed by a signal")
        for s in ("AddressSanitizer", "runtime error:", "LeakSanitizer", "Segmentation"):
            if s in both:
                why.append("sanitizer/crash output: " + s)
        if p.returncode != 0 and not re.search(r"^gpusizer: ", err, re.M):
            why.append('no "gpusizer: " error line on stderr')
        if c.get("max_seconds") and not WRAP and dt > c["max_seconds"]:
            why.append("took %.1f s (limit %s s)" % (dt, c["max_seconds"]))
        if c.get("no_escape"):
            for root, dirs, files in os.walk(tmp):
                for n in dirs + files:
                    rel = os.path.relpath(os.path.join(root, n), tmp)
                    top = rel.split(os.sep)[0]
                    if top not in ("models", "hf"):
                        why.append("wrote %s outside the cache" % rel)
        if why:
            detail = "; ".join(why) + "; stderr: " + err.strip()[:300]
            if c.get("why"):
                detail += " [case: " + c["why"] + "]"
            res.append((False, name, detail))
        else:
            note = "exit %d" % p.returncode
            if c.get("max_seconds") and not WRAP:
                note += ", %.2f s" % dt
            res.append((True, name, note))
        return res
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_catalogue():
    with open(os.path.join(BAD, "cases.json")) as f:
        cases = json.load(f)["cases"]
    names = [c["name"] for c in cases]
    report(len(set(names)) == len(names), "bad.catalogue.unique_names")
    for c in cases:
        if c.get("file") and not os.path.exists(os.path.join(BAD, c["file"])):
            report(False, "bad.catalogue.file." + c["name"], "missing " + c["file"])
    workers = max(1, min(8, os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(workers) as ex:
        for res in ex.map(run_case, cases):
            for ok, name, why in res:
                if ok is None:
                    report.skip(name, why)
                else:
                    report(ok, name, why)
    report(len(cases) >= 60, "bad.catalogue.size", "%d cases" % len(cases))


NAME = "=cmd|x<script>alert(1)</script>\nline2"


def check_escaping():
    tmp = tempfile.mkdtemp(prefix="gs-esc-")
    try:
        d = os.path.join(tmp, NAME)  # "</script>" makes it two directories
        os.makedirs(d)
        shutil.copy(os.path.join(BAD, "ok-llama.json"), os.path.join(d, "config.json"))
        spec = json.load(open(os.path.join(TOP, "tests/fixtures/spec-small.json")))
        spec.update(models=[NAME + "/config.json"], gpus=["t4", "rtx-4090"],
                    gpu_counts=[{"count": 1, "sharding": "ddp"}],
                    formats=["md", "html", "xlsx", "json"], out="out")
        spec["axes"].update(method=["lora"], precision={"lora": ["bf16"]}, grad_ckpt=[True],
                            batch=[1], seq=[512])
        with open(os.path.join(tmp, "spec.json"), "w") as f:
            json.dump(spec, f)
        p = subprocess.run(WRAP + [EXE, "report", "--spec", "spec.json", "--offline", "--quiet",
                                   "--gpus-dir", os.path.join(TOP, "gpus")],
                           cwd=tmp, env=env_for(tmp), capture_output=True, timeout=TIMEOUT)
        if p.returncode != 0:
            report(False, "bad.escape.report", "exit %d: %s" % (p.returncode, p.stderr[-300:]))
            return
        out = os.path.join(tmp, "out")
        md, html, xlsx = [], [], None
        for root, _, files in os.walk(out):
            for n in files:
                path = os.path.join(root, n)
                if n.endswith(".md"):
                    md.append(path)
                elif n.endswith((".html", ".svg")):
                    html.append(path)
                elif n.endswith(".xlsx"):
                    xlsx = path
        # Markdown: the name is on one line, '|' escaped, no raw tag, no line
        # that a leading '=' could turn into a setext underline
        bad = []
        seen = False
        for path in md:
            text = open(path, encoding="utf-8").read()
            if "<script" in text.lower():
                bad.append(os.path.basename(path) + ": raw <script>")
            for line in text.splitlines():
                if line.startswith("line2/config.json") or line.startswith("=cmd"):
                    bad.append(os.path.basename(path) + ": the name's newline or '=' starts a line")
                if "cmd" in line and "x&lt;script" in line:
                    seen = True
                    if "cmd|x" in line:
                        bad.append(os.path.basename(path) + ": unescaped '|' in " + line[:80])
        report(md and seen and not bad, "bad.escape.markdown",
               "; ".join(bad) if bad else "%d files; '|' as \\|, tags as &lt;, newline as a space" % len(md))
        bad = []
        seen = False
        for path in html:
            text = open(path, encoding="utf-8").read()
            if re.search(r"<script", text, re.I):
                bad.append(os.path.basename(path) + ": raw <script>")
            if "cmd|x&lt;script&gt;" in text:
                seen = True
        report(html and seen and not bad, "bad.escape.html_svg",
               "; ".join(bad) if bad else "%d files, no raw <script>" % len(html))
        bad = []
        strings = 0
        if xlsx is None:
            bad.append("no workbook written")
        else:
            z = zipfile.ZipFile(xlsx)
            for n in z.namelist():
                if not n.endswith(".xml"):
                    continue
                text = z.read(n).decode("utf-8", "replace")
                for f in re.findall(r"<f>(.*?)</f>", text, re.S):
                    if "cmd" in f or "script" in f:
                        bad.append(n + ": the name became a formula: " + f[:80])
                strings += len(re.findall(r"<t[^>]*>=cmd\|x&lt;script&gt;", text))
        report(xlsx and strings > 0 and not bad, "bad.escape.xlsx_plain_strings",
               "; ".join(bad) if bad else "%d string cells begin with '=', no formula holds the name" % strings)
        sj = json.load(open(os.path.join(out, "sizing.json"), encoding="utf-8"))
        ids = [m.get("id") for m in sj.get("models", [])]
        report(NAME + "/config.json" in ids, "bad.escape.json_exact",
               "the name round-trips in sizing.json" if NAME + "/config.json" in ids
               else "models ids: %r" % ids)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    t0 = time.monotonic()
    check_catalogue()
    check_escaping()
    print("t_bad_inputs: %.1f s%s" % (time.monotonic() - t0, " (under GS_WRAP)" if WRAP else ""))
    return report.status()


if __name__ == "__main__":
    sys.exit(main())
