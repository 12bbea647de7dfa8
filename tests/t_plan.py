"""gpusizer plan, end to end on the committed models: each answer checked
against `gpusizer estimate` (the answer fits, one step beyond does not)."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib import GS, TOP, Checks, clean_env  # noqa: E402

ok = Checks("plan: ")
MODELS = os.path.join(TOP, "models")
GPUS = os.path.join(TOP, "gpus")


def run(args, env):
    return subprocess.run(GS + args, capture_output=True, text=True, env=env, timeout=600)


def plan(env, model, *args):
    r = run(["plan", model, "--offline", "--models-dir", MODELS, "--gpus-dir", GPUS, "--json"] + list(args), env)
    ok(r.returncode == 0, "plan %s %s exits 0" % (model, " ".join(args)), r.stderr[-300:])
    return json.loads(r.stdout) if r.returncode == 0 else None


def verdict(env, model, gpu, *args):
    """estimate's verdict and device bytes for one GPU class."""
    r = run(["estimate", model, "--offline", "--models-dir", MODELS, "--gpus-dir", GPUS, "--gpu", gpu,
             "--json"] + list(args), env)
    if r.returncode != 0:
        return None, 0
    row = json.loads(r.stdout)["rows"][0]
    if row["estimate"] is None:
        return None, 0
    return row["gpu_verdicts"][gpu][0], row["estimate"]["device"]


def runs(v):
    return v in ("fits", "tight")


def main():
    tmp = tempfile.mkdtemp(prefix="gs_t_plan.")
    env = clean_env(tmp)

    # Qwen2.5-32B full fine-tune: the fewest H100s, and one fewer does not fit.
    base = ["--method", "full", "--precision", "mixed-bf16", "--grad-ckpt"]
    doc = plan(env, "Qwen/Qwen2.5-32B", *base)
    if doc:
        by = {c["gpu"]: c for c in doc["classes"]}
        ok(len(doc["classes"]) >= 20, "every GPU class gets an answer (%d)" % len(doc["classes"]))
        h = by["h100-sxm"]["fewest"]
        ok(h is not None and h["gpus"] > 1, "32B full fine-tune: more than one H100", str(h))
        if h:
            v, dev = verdict(env, "Qwen/Qwen2.5-32B", "h100-sxm", *base, "--gpus", str(h["gpus"]),
                             "--sharding", h["sharding"])
            ok(runs(v) and dev == h["device_bytes"], "estimate agrees at %d GPUs %s (%s)" % (h["gpus"], h["sharding"], v))
            fewer = [verdict(env, "Qwen/Qwen2.5-32B", "h100-sxm", *base, "--gpus", str(h["gpus"] - 1),
                             "--sharding", sh)[0]
                     for sh in ("ddp", "zero1", "zero2", "fsdp2", "zero3", "fsdp")]
            ok(not any(runs(v) for v in fewer), "one GPU fewer fits with no sharding", str(fewer))
        small = by["rtx-4070"]
        ok(small["fewest"] is None or small["fewest"]["gpus"] >= h["gpus"],
           "a 12 GB class needs no fewer GPUs than an H100")

    # Llama-3.1-8B QLoRA on a 24 GB class: the longest context.
    q = ["--method", "qlora", "--grad-ckpt"]
    doc = plan(env, "meta-llama/Llama-3.1-8B", "--gpu", "rtx-4090", *q)
    if doc:
        c = doc["classes"][0]
        seq = c["one_gpu"]["max_seq"]
        ok(seq > 2048, "8B QLoRA on a 4090: a context over 2048 (%d)" % seq)
        v1, _ = verdict(env, "meta-llama/Llama-3.1-8B", "rtx-4090", *q, "--seq", str(seq))
        v2, _ = verdict(env, "meta-llama/Llama-3.1-8B", "rtx-4090", *q, "--seq", str(seq + 1))
        ok(runs(v1) and (c["one_gpu"]["seq_at_limit"] or not runs(v2)),
           "estimate: %d tokens fit, %d do not (%s, %s)" % (seq, seq + 1, v1, v2))
        ok(c["ladder"] == [], "no ladder where the settings fit")

    # A LoRA that does not fit a 16 GB class: the ladder.
    lo = ["--method", "lora", "--seq", "8192", "--batch", "4", "--no-grad-ckpt"]
    doc = plan(env, "Qwen/Qwen2.5-7B", "--gpu", "rtx-4080", *lo)
    if doc:
        lad = doc["classes"][0]["ladder"]
        ok(lad and lad[0]["step"] == "start" and lad[0]["fits"] is None, "the ladder starts where it does not fit")
        applied = [s["device_bytes"] for s in lad if s["applied"]]
        ok(all(b <= a for a, b in zip(applied, applied[1:])), "the ladder's memory never rises", str(applied))
        steps = [s["step"] for s in lad]
        ok(steps[:3] == ["start", "batch-1", "grad-ckpt"], "the seeds' order: batch 1, then checkpointing", str(steps))
        ok(lad[-1]["fits"] is not None or len(lad) > 5, "it ends at a step that fits, or tries them all", str(steps))
        full = plan(env, "Qwen/Qwen2.5-7B", "--gpu", "rtx-4080", "--all", *lo)
        if full:
            ok(len(full["classes"][0]["ladder"]) >= len(lad), "--all shows every step")

    r = run(["plan", "Qwen/Qwen2.5-7B", "--offline", "--models-dir", MODELS, "--max-gpus", "0"], env)
    ok(r.returncode == 2 and "--max-gpus" in r.stderr, "--max-gpus 0: exit 2 naming the option", r.stderr)
    r = run(["plan", "Qwen/Qwen2.5-7B", "--offline", "--models-dir", MODELS, "--gpus-dir", GPUS, "--gpu", "nope"], env)
    ok(r.returncode == 2 and "nope" in r.stderr, "an unknown class: exit 2 naming it", r.stderr)
    r = run(["plan", "Qwen/Qwen2.5-7B", "--offline", "--models-dir", MODELS, "--gpus-dir", GPUS, "--gpu", "t4"], env)
    ok(r.returncode == 0 and "fewest GPUs per class" in r.stdout and "GiB" in r.stdout, "text output", r.stderr)
    ranked(env)
    report_view(env, tmp)
    return ok.status()


def ranked(env):
    """The time model at each fewest count, --tokens/--price, and --rank."""
    m = "meta-llama/Llama-3.1-8B"
    prices = "h100-sxm=2.49,a100-80gb=1.79,rtx-4090=0.69,l40s=0.86"
    lo = ["--method", "lora", "--tokens", "1e9", "--price", prices]
    doc = plan(env, m, *lo, "--rank", "cost")
    if doc:
        cl = doc["classes"]
        found = [c for c in cl if c["fewest"]]
        priced = [c for c in found if c["time"] and c["time"]["price_usd_per_hour"]]
        ok(doc["rank"] == "cost" and len(priced) == 4 and cl[:4] == priced,
           "--rank cost: the priced classes first", str([c["gpu"] for c in cl[:6]]))
        costs = [c["time"]["cost_usd"] for c in priced]
        ok(costs == sorted(costs), "--rank cost: cheapest first", str(costs))
        for c in priced:
            t, n = c["time"], c["fewest"]["gpus"]
            ok(abs(t["gpu_hours"] - t["budget_s"] * n / 3600) < 1e-5 * t["gpu_hours"]
               and abs(t["cost_usd"] - t["price_usd_per_hour"] * t["gpu_hours"]) < 1e-4 * t["cost_usd"]
               and abs(t["budget_s"] - 1e9 / t["tokens_per_s_total"]) < 1e-4 * t["budget_s"],
               "%s: budget = tokens / rate, GPU-hours = budget x %d, cost = GPU-hours x price" % (c["gpu"], n), str(t))
        ok(all(c["time"] is None for c in cl if c["fewest"] is None), "no count, no time")
        h = [c for c in cl if c["gpu"] == "rtx-4090"][0]
        r = run(["estimate", m, "--offline", "--models-dir", MODELS, "--gpus-dir", GPUS, "--gpu", "rtx-4090",
                 "--method", "lora", "--tokens", "1e9", "--gpus", str(h["fewest"]["gpus"]), "--sharding",
                 h["fewest"]["sharding"], "--json"], env)
        et = json.loads(r.stdout)["time"]["gpus"][0] if r.returncode == 0 else {}
        ok(et.get("step_s") == h["time"]["step_s"], "plan's time at %d x 4090 is estimate's there (%s, %s)"
           % (h["fewest"]["gpus"], et.get("step_s"), h["time"]["step_s"]))
    doc = plan(env, m, *lo, "--rank", "time")
    if doc:
        rates = [c["time"]["tokens_per_s_total"] for c in doc["classes"] if c["time"]]
        ok(doc["rank"] == "time" and len(rates) > 5 and rates == sorted(rates, reverse=True),
           "--rank time: training, the most tokens/s first", str(rates))
    doc = plan(env, m, "--method", "lora", "--rank", "fewest-gpus")
    if doc:
        counts = [(c["fewest"]["verdict"] == "tight", c["fewest"]["gpus"]) for c in doc["classes"] if c["fewest"]]
        ok(counts == sorted(counts), "--rank fewest-gpus: a comfortable fit first, then the fewest", str(counts))
    doc = plan(env, "meta-llama/Llama-3.1-70B", "--method", "inference", "--runtime", "vllm", "--rank", "time",
               "--gpu", "h100-sxm,a100-80gb,l40s,b200")
    if doc:
        steps = [c["time"]["decode_step_s"] for c in doc["classes"] if c["time"]]
        ok(len(steps) == 4 and steps == sorted(steps), "--rank time: inference, the shortest decode step first",
           str(steps))
        tp = [c["time"]["tp_comm_s"] for c in doc["classes"] if c["fewest"]["tp"] > 1]
        ok(tp and all(x > 0 for x in tp), "a tensor-parallel layout carries its all-reduces' seconds", str(tp))
    r = run(["plan", "meta-llama/Llama-3.1-70B", "--offline", "--models-dir", MODELS, "--gpus-dir", GPUS,
             "--method", "inference", "--gpu", "l40s"], env)
    ok(r.returncode == 0 and "decode up to" not in r.stdout and "not in the time model" not in r.stdout
       and "tensor parallel 4" in r.stdout and "decode " in r.stdout and "tokens/s a sequence" in r.stdout,
       "text: tensor parallel speeds are the model's, not bounds", r.stdout[-500:])
    doc = plan(env, "meta-llama/Llama-3.1-70B", "--method", "inference", "--runtime", "vllm", "--seq", "2048",
               "--new-tokens", "512", "--users", "100", "--gpu", "h100-sxm,a100-80gb")
    if doc:
        sv = [c["serving"] for c in doc["classes"]]
        good = [x for x in sv if x]
        ok(len(good) == 2 and all(x["replicas"] >= 1 and x["sequences_per_replica"] * x["replicas"] >= 100
                                  and x["tpot_s"] > 0 and x["ttft_s"] > 0 and x["concurrency"] <= 100
                                  for x in good)
           and all(x["gpus"] == x["replicas"] * x["replica_gpus"] and x["replica_gpus"] >= c["fewest"]["gpus"]
                   and x["gpus"] <= -(-100 // x["sequences_per_replica"]) * x["replica_gpus"]
                   for x, c in zip(sv, doc["classes"])),
           "--users 100: replicas whose pools hold 100 sequences, with TTFT and TPOT at their load", str(sv))
    r = run(["plan", "meta-llama/Llama-3.1-70B", "--offline", "--models-dir", MODELS, "--gpus-dir", GPUS,
             "--method", "inference", "--users", "100", "--gpu", "h100-sxm"], env)
    ok(r.returncode == 0 and "serving 100 concurrent users" in r.stdout and "TPOT" in r.stdout,
       "text: --users answers how many GPUs serve them", r.stdout[-500:])
    r = run(["plan", m, "--offline", "--models-dir", MODELS, "--gpus-dir", GPUS, "--users", "10"], env)
    ok(r.returncode == 2 and "--users" in r.stderr and r.stdout == "", "--users on a training row: exit 2",
       r.stderr)
    for bad, what in ((["--rank", "nope"], "--rank"), (["--rank", "cost"], "price"),
                      (["--price", "h100-sxm=x"], "--price"), (["--tokens", "-1"], "--tokens"),
                      (["--users", "0"], "--users")):
        r = run(["plan", m, "--offline", "--models-dir", MODELS, "--gpus-dir", GPUS] + bad, env)
        ok(r.returncode == 2 and what in r.stderr and r.stdout == "", "plan %s: exit 2 (%s)" % (" ".join(bad), what),
           r.stderr)


def cell_count(text):
    """The fewest count of an index cell ("4 (fsdp2, tight)", "**1**"), or None."""
    t = text.strip().strip("*")
    head = t.split(" ")[0]
    return int(head) if head.isdigit() else None


def report_view(env, tmp):
    """The plan view of `gpusizer report`: the spec's classes in its order, each
    cell what `gpusizer plan` answers, the best class by the spec's rule, and
    the workbook's Plan sheet."""
    import re
    import zipfile
    out = os.path.join(tmp, "rv-out")
    spec = {
        "version": 1, "models": ["meta-llama/Llama-3.1-8B"], "gpus": ["t4", "rtx-4090", "h100-sxm"],
        "gpu_counts": [{"count": 1}],
        "axes": {"method": ["full", "lora"], "precision": {"full": ["amp-bf16"], "lora": ["bf16"]},
                 "optimizer": ["adamw"], "lora_r": [16], "lora_targets": ["all-linear"],
                 "grad_ckpt": [True], "attn": ["sdpa"], "batch": [1], "seq": [1024, 4096]},
        "rank": "fewest-gpus", "plan": {"gpus": ["h100-sxm", "rtx-4090", "t4"], "max_gpus": 16},
        "formats": ["md", "xlsx"], "out": out, "models_dir": MODELS, "gpus_dir": GPUS,
    }
    path = os.path.join(tmp, "rv.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    r = run(["report", "--spec", path, "--offline"], env)
    ok(r.returncode == 0, "report with a plan view exits 0", r.stderr[-400:])
    if r.returncode != 0:
        return
    with open(os.path.join(out, "index.md")) as f:
        md = f.read()
    with open(os.path.join(out, "models", "meta-llama--Llama-3.1-8B.md")) as f:
        page = f.read()
    # The plan view is on the model's page (issue 33: one answer per page);
    # it sizes the answer's configuration: a plain count is its best swept
    # layout, one in italics the search's; the answer's class in bold.
    sec = page.split("## The fewest GPUs of each class", 1)
    ok(len(sec) == 2 and 'rule "fewest-gpus"' in md, "the model page has the plan view, the index names the rule")
    if len(sec) != 2:
        return
    sec[1] = sec[1].split("\n## ", 1)[0]
    rows = [ln for ln in sec[1].split("\n") if ln.startswith("| ") and not ln.startswith("| method |")]
    cells, every = {}, {}
    method = None
    for ln in rows:
        parts = [p.strip() for p in ln.strip("|").split("|")]
        method = parts[0] or method
        if not re.match(r"\d+ GB ", parts[1]):
            continue  # the method's settings row
        every[(method, parts[1])] = parts[2:-1]
        if any(n in parts[1] for n in ("H100 80GB", "RTX 4090", "T4")):
            cells[(method, parts[1])] = parts[2:-1]
    klass = [k[1] for k in cells if k[0] == "lora"]
    ok(len(klass) == 3 and "H100" in klass[0] and "4090" in klass[1] and "T4" in klass[2],
       "the plan's classes in the spec's order", str(klass))
    full_t4 = [v for k, v in cells.items() if k[0] == "full" and "T4" in k[1]]
    ok(full_t4 and full_t4[0][0] == "needs bf16", "amp-bf16 on a T4 (no bf16): \"needs bf16\"", str(full_t4))
    gpu_ids = {"H100": "h100-sxm", "4090": "rtx-4090", "T4": "t4"}
    agree = 0
    for (m, k), v in cells.items():
        gid = [g for n, g in gpu_ids.items() if n in k][0]
        base = ["--method", m, "--grad-ckpt", "--batch", "1", "--optimizer", "adamw"]
        base += ["--precision", "bf16", "--lora-r", "16", "--lora-targets", "all-linear"] if m == "lora" \
            else ["--precision", "amp-bf16"]
        for seq, text in zip((1024, 4096), v):
            if text == "needs bf16":
                continue
            doc = plan(env, "meta-llama/Llama-3.1-8B", "--gpu", gid, "--max-gpus", "16", "--seq", str(seq), *base)
            want = doc["classes"][0]["fewest"] if doc else None
            got = cell_count(text)
            searched = text.strip("*").startswith("*") or (text.startswith("*") and not text.startswith("**"))
            # the search's count where the sweep's layouts do not fit the
            # class; a swept count is never fewer than the search's fewest
            good = (want is None and got is None) or (want is not None and got is not None and (
                got == want["gpus"] if searched else got >= want["gpus"]))
            agree += good
            ok(good, "plan view %s %s at %d: %s, as gpusizer plan says (%s%s)"
               % (m, gid, seq, text, want and want["gpus"], "" if searched else " or more: a swept count"))
    # The rule: fewest GPUs first, then least total usable memory.
    usable = {}
    for gid in gpu_ids.values():
        with open(os.path.join(GPUS, gid + ".json")) as f:
            g = json.load(f)
        usable[gid] = g["usable_mib"]
    for m in ("full", "lora"):
        for i in range(2):
            cand = []
            for (mm, k), v in every.items():
                if mm != m:
                    continue
                n = cell_count(v[i])
                if n is not None and any(nn in k for nn in gpu_ids):
                    gid = [g for nn, g in gpu_ids.items() if nn in k][0]
                    tight = "tight" in v[i]
                    cand.append((tight, n, n * usable[gid], v[i].startswith("**"), k))
            bolds = [k for (mm, k), v in every.items() if mm == m and v[i].startswith("**")]
            if cand:
                best = min(cand, key=lambda c: (c[0], c[1], c[2]))
                bold = [c for c in cand if c[3]]
                # the answer's class in bold, once; among the spec's classes
                # it is the best by the rule
                # (none: no swept layout fits, every count is the search's)
                swept = [c for c in cand if not every[(m, c[4])][i].startswith("*") or c[3]]
                ok((len(bolds) == 1 and (not bold or bold[0][4] == best[4])) or (not bolds and not swept),
                   "%s at context %d: the answer in bold, the best by fewest-gpus (%s)" % (m, (1024, 4096)[i], bolds),
                   str(cand))
    z = zipfile.ZipFile(os.path.join(out, "gpusizer.xlsx"))
    names = re.findall(r'<sheet name="([^"]+)"', z.read("xl/workbook.xml").decode())
    ok(names[:2] == ["Summary", "Plan"], "the workbook's second sheet is Plan", str(names[:3]))
    x = z.read("xl/worksheets/sheet2.xml").decode()
    nrows = len(re.findall(r"<row r=", x))
    ok(nrows == 5 + 2 * 3 * 2, "Plan sheet: a row per method, class and context (%d rows)" % nrows)
    ok(x.count("<f>") == sum(1 for v in cells.values() for t in v if cell_count(t) is not None),
       "a live verdict formula on every answer")

    spec["plan"]["gpus"] = ["nope"]
    with open(path, "w") as f:
        json.dump(spec, f)
    r = run(["report", "--spec", path, "--offline"], env)
    ok(r.returncode == 3 and "plan.gpus[0]" in r.stderr and "nope" in r.stderr,
       "an unknown plan class: exit 3 naming plan.gpus[0]", r.stderr[-300:])
    spec["plan"] = {}
    spec["rank"] = "cheapest"
    with open(path, "w") as f:
        json.dump(spec, f)
    r = run(["report", "--spec", path, "--offline"], env)
    ok(r.returncode == 3 and "rank" in r.stderr and "fewest-gpus" in r.stderr,
       "an unknown rule: exit 3 naming rank and the rules", r.stderr[-300:])

    # "eligible": only the named segments are named smallest; every class is
    # still sized. A 24 GB consumer card would win the lora rows here.
    spec["rank"] = "fewest-gpus"
    spec["plan"] = {"max_gpus": 16}
    spec["eligible"] = ["datacenter"]
    spec["formats"] = ["md", "json"]
    with open(path, "w") as f:
        json.dump(spec, f)
    r = run(["report", "--spec", path, "--offline"], env)
    with open(os.path.join(out, "index.md")) as f:
        md = f.read()
    top = md.split("## GPU classes", 1)[0]
    named = re.findall(r"\| \d+ x ([^|·]*?)(?:, tight)? (?:· [^|]*)?\|", top)
    ok(r.returncode == 0 and named and all("H100" in n or "T4" in n for n in named) and
       "datacenter GPU classes only" in top,
       "eligible datacenter: the index names only datacenter classes", str(named))
    with open(os.path.join(out, "sizing.json")) as f:
        doc = json.load(f)
    ok(doc["rows"] and all("rtx-4090" in row["gpu_verdicts"] for row in doc["rows"]),
       "eligible datacenter: the consumer class is still sized (JSON verdicts)")
    spec["plan"] = {"gpus": ["rtx-4090"]}
    with open(path, "w") as f:
        json.dump(spec, f)
    r = run(["report", "--spec", path, "--offline"], env)
    ok(r.returncode == 3 and "plan.gpus[0]" in r.stderr and "consumer" in r.stderr and "eligible" in r.stderr,
       "a plan class outside eligible: exit 3 naming plan.gpus[0] and its segment", r.stderr[-300:])
    spec["plan"] = {}
    spec["eligible"] = ["cloud"]
    with open(path, "w") as f:
        json.dump(spec, f)
    r = run(["report", "--spec", path, "--offline"], env)
    ok(r.returncode == 3 and "eligible" in r.stderr and "datacenter" in r.stderr,
       "an unknown segment: exit 3 naming eligible and the segments", r.stderr[-300:])


if __name__ == "__main__":
    sys.exit(main())
