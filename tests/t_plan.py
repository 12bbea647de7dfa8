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


SHARDINGS = ("ddp", "zero1", "zero2", "fsdp2", "zero3", "fsdp")


def segment(gpu):
    with open(os.path.join(GPUS, gpu + ".json")) as f:
        return json.load(f).get("segment", "")


def node_round(n, node):
    """A count past one server rounds up to whole servers (gpusizer(1), plan)."""
    return n if node <= 1 or n <= node else -(-n // node) * node


def answers(cls):
    return ([cls["answer"]] if cls["answer"] else []) + cls["alternatives"]


def flags(ans):
    """The flags an answer turns on, as one argument list."""
    out = []
    for t in ans["turns_on"]:
        out += t["flag"].split(" ", 1)
    return out


def runs_anywhere(env, model, gpu, n, args):
    """estimate's verdicts at n GPUs over every training layout."""
    lays = ["ddp"] if n == 1 else SHARDINGS
    return [verdict(env, model, gpu, *args, "--gpus", str(n), "--sharding", sh)[0] for sh in lays]


def check_answer(env, model, gpu, base, ans, name):
    """An answer holds: the question with the flags it names fits at its count
    and layout as estimate says; its settings need fewest_gpus and one fewer
    GPU does not run them; its count is that rounded to whole servers; the
    question itself at that layout does not fit as comfortably (what it
    turns on is what made it fit)."""
    args = base + flags(ans)
    n, sh = ans["gpus"], ans["sharding"]
    v, dev = verdict(env, model, gpu, *args, "--gpus", str(n), "--sharding", sh)
    ok(runs(v) and dev == ans["device_bytes"] and v == ans["verdict"],
       "%s: estimate agrees at %d x %s (%s, %s)" % (name, n, sh, v, ans["verdict"]))
    ok(n == node_round(ans["fewest_gpus"], ans["node_gpus"]) and
       (ans["servers"] is None) == (ans["node_gpus"] == 1),
       "%s: %d GPUs = the fewest, %d, in whole servers of %d" % (name, n, ans["fewest_gpus"], ans["node_gpus"]))
    if ans["fewest_gpus"] > 1:
        fewer = runs_anywhere(env, model, gpu, ans["fewest_gpus"] - 1, args)
        ok(not any(runs(x) for x in fewer), "%s: one GPU fewer than %d does not run it" % (name, ans["fewest_gpus"]),
           str(fewer))
    if ans["turns_on"]:
        q, _ = verdict(env, model, gpu, *base, "--gpus", str(n), "--sharding", sh)
        ok(not (runs(q) and (q == "fits" or ans["verdict"] == "tight")),
           "%s: without %s the question does not fit there as comfortably (%s)" % (name, " ".join(flags(ans)), q))


def tight_everywhere(doc, text, what):
    """"tight" is said wherever the headroom is under the threshold."""
    th = doc["tight_headroom"]
    bad = [(c["gpu"], a["gpus"], a["headroom"]) for c in doc["classes"] for a in answers(c)
           if (a["headroom"] < th) != (a["tight"] and a["verdict"] == "tight")]
    ok(th == 0.1 and not bad, "%s: every answer under %.0f%% headroom is tight in JSON, and only those" % (what, th * 100),
       str(bad[:4]))
    lines = [ln for ln in text.split("\n") if " x " in ln and "headroom" in ln]
    bad = [ln for ln in lines if (float(ln.split("headroom")[1].split("%")[0]) < th * 100) != ("tight" in ln)]
    ok(lines and not bad, "%s: every answer line under %.0f%% headroom says tight, and only those" % (what, th * 100),
       str(bad[:2]))


def text_plan(env, model, *args):
    r = run(["plan", model, "--offline", "--models-dir", MODELS, "--gpus-dir", GPUS] + list(args), env)
    ok(r.returncode == 0, "plan %s %s (text) exits 0" % (model, " ".join(args)), r.stderr[-300:])
    return r.stdout


def full_32b(env):
    """Issue 33: the 32B full fine-tune, checkpointing off as the issue filed it
    (TRL 0.22 on turns it on by default): answered as a full fine-tune with
    checkpointing named, judged at the count where it matters, in whole
    servers."""
    m = "Qwen/Qwen2.5-32B"
    base = ["--no-grad-ckpt"]
    doc = plan(env, m, "--gpu", "h100-sxm", *base)
    if not doc:
        return
    c = doc["classes"][0]
    a = c["answer"]
    ok(c["node_gpus"] == 8 and a and a["node_gpus"] == 8, "h100-sxm: 8 GPUs a server (a datacenter class)")
    ok(a and "grad-ckpt" in a["rungs"] and "--grad-ckpt" in flags(a) and not a["method_change"],
       "32B full fine-tune on H100: the answer turns checkpointing on, a full fine-tune still", str(a and a["rungs"]))
    if a:
        check_answer(env, m, "h100-sxm", base, a, "32B full fine-tune")
        print("NOTE plan: 32B full fine-tune, checkpointing off: %d x H100 %s (fewest %d) with %s"
              % (a["gpus"], a["sharding"], a["fewest_gpus"], " ".join(flags(a))))
    for alt in c["alternatives"]:
        check_answer(env, m, "h100-sxm", base, alt, "32B alternative %d x %s" % (alt["gpus"], alt["sharding"]))
    offl = [(x["gpus"], x["time"] is None, x["untimed"]) for x in answers(c)
            if any(t["setting"] in ("offload", "ckpt-offload") for t in x["turns_on"] + x["by_stack"])]
    timed = [x["time"] is not None for x in answers(c) if x["untimed"] is None]
    ok(offl and all(t and u for _, t, u in offl) and timed and all(timed),
       "an answer with CPU offload is not timed (the time model has no PCIe traffic), the others are",
       str(offl))
    full = [x["method_change"] for x in answers(c)]
    ok(full and full == sorted(full), "a method change comes only after every full fine-tune answer", str(full))
    text = text_plan(env, m, "--gpu", "h100-sxm", *base)
    ok("turns on --grad-ckpt" in text.split("\n\n")[1], "text: the answer names --grad-ckpt", text[:600])

    # Whole servers: the fewest count with --node-gpus 1, then a server size
    # it does not fill: the count rounds up to two servers and says so.
    one = plan(env, m, "--gpu", "h100-sxm", "--node-gpus", "1", *base)
    f = one and one["classes"][0]["answer"]
    if f and f["gpus"] >= 3:
        k = f["gpus"] - 1
        ok(f["gpus"] == f["fewest_gpus"] and f["servers"] is None, "--node-gpus 1: the fewest count, not rounded")
        d = plan(env, m, "--gpu", "h100-sxm", "--node-gpus", str(k), *base)
        x = d and d["classes"][0]["answer"]
        ok(x and x["gpus"] == 2 * k and x["fewest_gpus"] == f["gpus"] and x["servers"] == 2,
           "--node-gpus %d: %d GPUs become %d, two servers" % (k, f["gpus"], 2 * k), str(x and x["gpus"]))
        t = text_plan(env, m, "--gpu", "h100-sxm", "--node-gpus", str(k), *base)
        ok("(2 servers of %d; %d would run it)" % (k, f["gpus"]) in t, "text: two servers, and the fewest said",
           t[:700])
    else:
        ok(False, "32B full fine-tune with --node-gpus 1: an answer of 3 or more H100s to round", str(f))
    # mixed-bf16: as given it runs on many GPUs; checkpointing saves servers
    doc = plan(env, m, "--gpu", "h100-sxm", "--precision", "mixed-bf16", *base)
    if doc:
        c = doc["classes"][0]
        got = [(x["gpus"], x["fewest_gpus"], x["rungs"]) for x in answers(c)]
        ok(len(got) >= 2 and all(g[0] == node_round(g[1], 8) for g in got) and
           any("grad-ckpt" in g[2] for g in got),
           "mixed-bf16: answers in whole servers, one of them with checkpointing", str(got))
        print("NOTE plan: 32B mixed-bf16, checkpointing off, on H100: %s" % got)
        # the answer: checkpointing alone, past one server, in whole servers
        ck = [x for x in answers(c) if x["rungs"] == ["grad-ckpt"]]
        x = ck[0] if ck else None
        ok(x is not None and x["fewest_gpus"] > 8 and x["gpus"] == node_round(x["fewest_gpus"], 8) and
           x["servers"] == x["gpus"] // 8 and flags(x) == ["--grad-ckpt"] and not x["method_change"],
           "32B mixed-bf16 full fine-tune: checkpointing alone answers past one server, in whole servers",
           str(got))
        if x:
            check_answer(env, m, "h100-sxm", ["--precision", "mixed-bf16"] + base, x, "32B mixed-bf16 + grad-ckpt")
            text = text_plan(env, m, "--gpu", "h100-sxm", "--precision", "mixed-bf16", *base)
            line = "%d x fsdp2" % x["gpus"] if x["sharding"] == "fsdp2" else "%d x %s" % (x["gpus"], x["sharding"])
            said = "(%d servers of 8; %d would run it)" % (x["servers"], x["fewest_gpus"])
            hit = [ln for ln in text.split("\n") if line in ln and said in ln]
            ok(hit and "turns on --grad-ckpt  step" in text.split(hit[0])[1].split("\n")[1],
               "text: %s %s, then turns on --grad-ckpt with its step" % (line, said), text[:900])
            print("NOTE plan: 32B mixed-bf16, checkpointing off: %d -> %d x H100 (%d servers) with --grad-ckpt"
                  % (x["fewest_gpus"], x["gpus"], x["servers"]))
        tight_everywhere(doc, text_plan(env, m, "--gpu", "h100-sxm", "--precision", "mixed-bf16", *base),
                         "32B mixed-bf16")
    # every class: its server size from its GPU file's segment
    doc = plan(env, m, *base)
    if doc:
        bad = [c["gpu"] for c in doc["classes"] if c["node_gpus"] != (8 if segment(c["gpu"]) == "datacenter" else 1)]
        ok(not bad, "every class: 8 GPUs a server for the datacenter segment, 1 for the others", str(bad))
        bad = [c["gpu"] for c in doc["classes"]
               if any(not x["method_change"] for x in answers(c)) and c["answer"]["method_change"]]
        ok(not bad, "every class: a full fine-tune answer leads where one exists", str(bad))
        tight_everywhere(doc, text_plan(env, m, "--all", *base), "32B on every class")


def qlora_70b(env):
    """Issue 33: the 70B QLoRA at 8k tokens, with k-bit preparation as TRL
    before 0.26 ran it (only under ddp or pipeline): the answer names what
    made it fit, not "sharding"."""
    m = "meta-llama/Llama-3.1-70B"
    base = ["--method", "qlora", "--seq", "8192", "--kbit-prep", "auto"]
    gpus = "h100-sxm,a100-80gb,l40s,rtx-4090"
    doc = plan(env, m, "--gpu", gpus, *base)
    if not doc:
        return
    named = 0
    for c in doc["classes"]:
        for i, a in enumerate(answers(c)):
            name = "70B QLoRA 8k on %s, answer %d" % (c["gpu"], i)
            check_answer(env, m, c["gpu"], base, a, name)
            if a["gpus"] > 1 and a["sharding"] != "ddp" and not a["turns_on"]:
                # no flag: what its layout changes must be what fits it
                v, _ = verdict(env, m, c["gpu"], *base, "--kbit-prep", "on", "--gpus", str(a["gpus"]),
                               "--sharding", a["sharding"])
                ok(a["kbit_prep_by_layout"] and not runs(v),
                   "%s: %d x %s fits because its layout leaves out the k-bit preparation (with it: %s)"
                   % (name, a["gpus"], a["sharding"], v))
                named += 1
    ok(named > 0, "70B QLoRA 8k: an answer on more GPUs is named by the k-bit preparation it leaves out (%d)" % named)
    text = text_plan(env, m, "--gpu", gpus, *base)
    ok("no k-bit preparation" in text and "sharding over more GPUs" not in text,
       "text: the k-bit preparation is named, not sharding", text[:900])
    tight_everywhere(doc, text, "70B QLoRA 8k")
    # today's default stack (TRL 0.26 on: no k-bit preparation)
    doc = plan(env, m, "--gpu", gpus, "--method", "qlora", "--seq", "8192")
    if doc:
        for c in doc["classes"]:
            for i, a in enumerate(answers(c)):
                check_answer(env, m, c["gpu"], ["--method", "qlora", "--seq", "8192"], a,
                             "70B QLoRA 8k (default stack) on %s, answer %d" % (c["gpu"], i))


def main():
    tmp = tempfile.mkdtemp(prefix="gs_t_plan.")
    env = clean_env(tmp)

    full_32b(env)
    qlora_70b(env)

    # Qwen2.5-32B full fine-tune: the question as given, its fewest H100s, and one fewer does not fit.
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
            fewer = runs_anywhere(env, "Qwen/Qwen2.5-32B", "h100-sxm", h["gpus"] - 1, base)
            ok(not any(runs(v) for v in fewer), "one GPU fewer fits with no sharding", str(fewer))
        small = by["rtx-4070"]
        ok(small["fewest"] is None or small["fewest"]["gpus"] >= h["gpus"],
           "a 12 GB class needs no fewer GPUs than an H100")
        bad = [c["gpu"] for c in doc["classes"] if (c["answer"] is None) != (c["time"] is None)]
        ok(not bad, "a class's time is its answer's: none without one", str(bad))

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
        a = c["answer"]
        ok(a and a["gpus"] == 1 and a["rungs"] == [] and a["turns_on"] == [] and
           (a["verdict"] == "tight" or [s["step"] for s in c["ladder"]] == ["start"]),
           "where the settings fit one GPU comfortably: answered as given, the ladder its start alone",
           str(a and a["rungs"]))

    # A LoRA that does not fit a 16 GB class: the ladder.
    lo = ["--method", "lora", "--seq", "8192", "--batch", "4", "--no-grad-ckpt"]
    doc = plan(env, "Qwen/Qwen2.5-7B", "--gpu", "rtx-4080", *lo)
    if doc:
        lad = doc["classes"][0]["ladder"]
        ok(lad and lad[0]["step"] == "start" and (lad[0]["fits"] is None or lad[0]["fits"]["gpus"] > 1),
           "the ladder starts where one GPU does not fit")
        kept = [s["fits"]["gpus"] for s in lad if s["applied"] and s["fits"]]
        ok(all(b <= a for a, b in zip(kept, kept[1:])), "along the ladder the fewest count never rises", str(kept))
        steps = [s["step"] for s in lad]
        ok(steps[:3] == ["start", "grad-ckpt", "batch-1"],
           "issue 33's order: checkpointing, then accumulation", str(steps))
        ok(steps[-1] == "qlora" or (lad[-1]["fits"] and lad[-1]["fits"]["gpus"] == 1),
           "it runs to the method change, or stops at one GPU", str(steps))
        for i, a in enumerate(answers(doc["classes"][0])):
            check_answer(env, "Qwen/Qwen2.5-7B", "rtx-4080", lo, a, "7B LoRA 8k on a 4080, answer %d" % i)

    r = run(["plan", "Qwen/Qwen2.5-7B", "--offline", "--models-dir", MODELS, "--max-gpus", "0"], env)
    ok(r.returncode == 2 and "--max-gpus" in r.stderr, "--max-gpus 0: exit 2 naming the option", r.stderr)
    r = run(["plan", "Qwen/Qwen2.5-7B", "--offline", "--models-dir", MODELS, "--node-gpus", "0"], env)
    ok(r.returncode == 2 and "--node-gpus" in r.stderr, "--node-gpus 0: exit 2 naming the option", r.stderr)
    r = run(["plan", "Qwen/Qwen2.5-7B", "--offline", "--models-dir", MODELS, "--gpus-dir", GPUS, "--gpu", "nope"], env)
    ok(r.returncode == 2 and "nope" in r.stderr, "an unknown class: exit 2 naming it", r.stderr)
    r = run(["plan", "Qwen/Qwen2.5-7B", "--offline", "--models-dir", MODELS, "--gpus-dir", GPUS, "--gpu", "h100"], env)
    ok(r.returncode == 2 and "did you mean h100-sxm, h100-nvl" in r.stderr.replace("h100-nvl, h100-sxm", "h100-sxm, h100-nvl"),
       "--gpu h100: the nearest names suggested", r.stderr)
    for arg, want in [(["--gpu", "rtx4090"], "did you mean rtx-4090?"), (["--gpu", "zzz"], None),
                      (["--price", "h100=2.5"], "did you mean h100-sxm, h100-nvl")]:
        r = run(["plan", "Qwen/Qwen2.5-7B", "--offline", "--models-dir", MODELS, "--gpus-dir", GPUS] + arg, env)
        said = r.stderr.replace("h100-nvl, h100-sxm", "h100-sxm, h100-nvl")
        ok(r.returncode == 2 and ((want in said) if want else "did you mean" not in said),
           "%s: %s" % (" ".join(arg), want or "nothing near, nothing suggested"), r.stderr)
    r = run(["plan", "Qwen/Qwen2.5-7B", "--offline", "--models-dir", MODELS, "--gpus-dir", GPUS, "--gpu", "t4"], env)
    ok(r.returncode == 0 and "answers per class" in r.stdout and "GiB" in r.stdout, "text output", r.stderr)
    r = run(["plan", "Qwen/Qwen2.5-7B", "--offline", "--models-dir", MODELS, "--gpus-dir", GPUS, "--gpu", "l4",
             "--gpus", "2"], env)
    ok(r.returncode == 0 and "is DDP: 2 full replicas" in r.stderr and "zero3" in r.stderr,
       "plan --gpus 2 without --sharding: a note that it is DDP, naming the sharded layouts", r.stderr)
    est = ["estimate", "Qwen/Qwen2.5-7B", "--offline", "--models-dir", MODELS, "--gpus-dir", GPUS, "--gpu", "l4"]
    for extra, want in [(["--gpus", "2"], True), (["--gpus", "2", "--sharding", "zero3"], False),
                        (["--gpus", "2", "--sharding", "ddp"], False), (["--gpus", "1"], False),
                        (["--gpus", "2", "--method", "inference"], False), (["--gpus", "2", "--quiet"], False)]:
        r = run(est + extra, env)
        ok(r.returncode == 0 and ("is DDP: 2 full replicas" in r.stderr) == want,
           "estimate %s: %s" % (" ".join(extra), "the DDP note" if want else "no DDP note"), r.stderr[-300:])
    # a class with no answer: JSON says so (null answer and time), text says none
    doc = plan(env, "meta-llama/Llama-3.1-70B", "--gpu", "rtx-4070,t4", "--max-gpus", "1")
    ok(doc and all(c["answer"] is None and c["time"] is None and c["alternatives"] == [] for c in doc["classes"]),
       "70B on one 12 or 16 GB GPU: no answer, null in JSON", str(doc and doc["classes"][0]["answer"]))
    t = text_plan(env, "meta-llama/Llama-3.1-70B", "--gpu", "rtx-4070", "--max-gpus", "1")
    ok("none up to 1, whatever the rungs" in t, "text: none up to 1, whatever the rungs", t[:500])
    timed_only_fits(env)
    exit_16(env)
    ranked(env)
    report_view(env, tmp)
    return ok.status()


def exit_16(env):
    """Issue 33 item 4: a local file or directory missing is exit 16, naming
    it; a model that is not cached offline stays exit 10 (a fetch's)."""
    for args, name in [(["list", "gpus", "--gpus-dir", "/nonexistent/g"], "/nonexistent/g"),
                       (["list", "models", "--models-dir", "/nonexistent/m"], "/nonexistent/m"),
                       (["estimate", "--config", "/nonexistent/c/config.json"], "/nonexistent/c/config.json"),
                       (["plan", "Qwen/Qwen2.5-7B", "--offline", "--models-dir", MODELS, "--gpus-dir",
                         "/nonexistent/g"], "/nonexistent/g"),
                       (["report", "--spec", "/nonexistent/s.json", "--offline"], "/nonexistent/s.json")]:
        r = run(args, env)
        ok(r.returncode == 16 and name in r.stderr, "%s: exit 16 naming %s" % (" ".join(args[:2]), name),
           "rc %d %s" % (r.returncode, r.stderr[-200:]))
    r = run(["estimate", "nobody/nothing", "--offline", "--models-dir", MODELS], env)
    ok(r.returncode == 10, "a model not cached, offline: exit 10, not 16", "rc %d" % r.returncode)


def timed_only_fits(env):
    """Issue 33 item 4: estimate prints a time only for the classes where the
    row fits (fits or tight); the others say why not, with no number."""
    gpus = "h100-sxm,rtx-4090,t4"
    base = ["estimate", "Qwen/Qwen2.5-0.5B", "--offline", "--models-dir", MODELS, "--gpus-dir", GPUS, "--gpu",
            "h100-sxm", "--gpus", "2", "--sharding", "zero3", "--offload", "optimizer"]
    t, j = run(base, env), run(base + ["--json"], env)
    tg = json.loads(j.stdout)["time"]["gpus"][0] if j.returncode == 0 else {}
    ok(t.returncode == 0 and "not timed: CPU offload" in t.stdout and "step_s" not in tg and "offload" in tg.get("error", ""),
       "estimate --offload optimizer: not timed (text and JSON), the time model has no offload", t.stdout[-400:])
    for m, args in [("Qwen/Qwen2.5-32B", ["--precision", "bf16"]), ("Qwen/Qwen2.5-0.5B", []),
                    ("Qwen/Qwen2.5-7B", ["--method", "inference", "--seq", "8192"])]:
        base = ["estimate", m, "--offline", "--models-dir", MODELS, "--gpus-dir", GPUS, "--gpu", gpus] + args
        j, t = run(base + ["--json"], env), run(base, env)
        if j.returncode != 0 or t.returncode != 0:
            ok(False, "estimate %s %s exits 0" % (m, " ".join(args)), j.stderr[-300:] + t.stderr[-300:])
            continue
        doc = json.loads(j.stdout)
        v = {g["name"]: doc["rows"][0]["gpu_verdicts"][g["id"]][0] for g in doc["gpus"]}
        block = t.stdout.split("\ntime ")[1].split("\n  (")[0].split("\n")[1:]
        got = {}
        for ln in block:
            name = next((n for n in v if ln.strip().startswith(n)), None)
            if name:
                got[name] = ln
        bad = [(n, v[n], got.get(n)) for n in v
               if n not in got or (runs(v[n]) == ("not timed" in got[n])) or
               (not runs(v[n]) and any(c.isdigit() for c in got[n].split("not timed")[1]))]
        ok(len(got) == 3 and not bad, "estimate %s %s: a time for each class it fits, none elsewhere (%s)"
           % (m, " ".join(args), sorted(set(v.values()))), str(bad))


def ranked(env):
    """The time model at each answer, --tokens/--price, and --rank."""
    m = "meta-llama/Llama-3.1-8B"
    prices = "h100-sxm=2.49,a100-80gb=1.79,rtx-4090=0.69,l40s=0.86"
    lo = ["--method", "lora", "--tokens", "1e9", "--price", prices]
    doc = plan(env, m, *lo, "--rank", "cost")
    if doc:
        cl = doc["classes"]
        found = [c for c in cl if c["answer"]]
        priced = [c for c in found if c["time"] and c["time"]["price_usd_per_hour"]]
        ok(doc["rank"] == "cost" and len(priced) == 4 and cl[:4] == priced,
           "--rank cost: the priced classes first", str([c["gpu"] for c in cl[:6]]))
        costs = [c["time"]["cost_usd"] for c in priced]
        ok(costs == sorted(costs), "--rank cost: cheapest first", str(costs))
        for c in priced:
            t, n = c["time"], c["answer"]["gpus"]
            ok(abs(t["gpu_hours"] - t["budget_s"] * n / 3600) < 1e-5 * t["gpu_hours"]
               and abs(t["cost_usd"] - t["price_usd_per_hour"] * t["gpu_hours"]) < 1e-4 * t["cost_usd"]
               and abs(t["budget_s"] - 1e9 / t["tokens_per_s_total"]) < 1e-4 * t["budget_s"],
               "%s: budget = tokens / rate, GPU-hours = budget x %d, cost = GPU-hours x price" % (c["gpu"], n), str(t))
        ok(all(c["time"] is None for c in cl if c["answer"] is None), "no answer, no time")
        h = [c for c in cl if c["gpu"] == "rtx-4090"][0]
        x = h["answer"]
        r = run(["estimate", m, "--offline", "--models-dir", MODELS, "--gpus-dir", GPUS, "--gpu", "rtx-4090",
                 "--method", "lora", "--tokens", "1e9", "--gpus", str(x["gpus"]), "--sharding",
                 x["sharding"], "--json"] + flags(x), env)
        et = json.loads(r.stdout)["time"]["gpus"][0] if r.returncode == 0 else {}
        ok(et.get("step_s") == h["time"]["step_s"], "plan's time at %d x 4090 is estimate's there (%s, %s)"
           % (x["gpus"], et.get("step_s"), h["time"]["step_s"]))
    doc = plan(env, m, *lo, "--rank", "time")
    if doc:
        rates = [c["time"]["tokens_per_s_total"] for c in doc["classes"] if c["time"]]
        ok(doc["rank"] == "time" and len(rates) > 5 and rates == sorted(rates, reverse=True),
           "--rank time: training, the most tokens/s first", str(rates))
    doc = plan(env, m, "--method", "lora", "--rank", "fewest-gpus")
    if doc:
        counts = [(c["answer"]["tight"], c["answer"]["gpus"]) for c in doc["classes"] if c["answer"]]
        ok(counts == sorted(counts), "--rank fewest-gpus: a comfortable fit first, then the fewest", str(counts))
    doc = plan(env, "meta-llama/Llama-3.1-70B", "--method", "inference", "--runtime", "vllm", "--rank", "time",
               "--gpu", "h100-sxm,a100-80gb,l40s,b200")
    if doc:
        steps = [c["time"]["decode_step_s"] for c in doc["classes"] if c["time"]]
        ok(len(steps) == 4 and steps == sorted(steps), "--rank time: inference, the shortest decode step first",
           str(steps))
        tp = [c["time"]["tp_comm_s"] for c in doc["classes"] if c["answer"]["tp"] > 1]
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
           and all(x["gpus"] == node_round(-(-100 // x["sequences_per_replica"]) * x["replica_gpus"], c["node_gpus"])
                   and x["replicas"] == x["gpus"] // x["replica_gpus"] and x["replica_gpus"] >= c["answer"]["gpus"]
                   for x, c in zip(sv, doc["classes"])),
           "--users 100: replicas whose pools hold 100 sequences, whole servers of them, with TTFT and TPOT "
           "at their load", str(sv))
    r = run(["plan", "meta-llama/Llama-3.1-70B", "--offline", "--models-dir", MODELS, "--gpus-dir", GPUS,
             "--method", "inference", "--users", "100", "--gpu", "h100-sxm"], env)
    ok(r.returncode == 0 and "serving 100 concurrent users" in r.stdout and "TPOT " not in r.stdout
       and "no time per output token" in r.stdout,
       "text: --users answers how many GPUs serve them; --new-tokens 0 has no TPOT and says why", r.stdout[-500:])
    r = run(["plan", "meta-llama/Llama-3.1-70B", "--offline", "--models-dir", MODELS, "--gpus-dir", GPUS,
             "--method", "inference", "--users", "100", "--gpu", "h100-sxm", "--new-tokens", "128"], env)
    ok(r.returncode == 0 and "TPOT " in r.stdout and "no time per output token" not in r.stdout,
       "text: --users with --new-tokens: TTFT and TPOT", r.stdout[-500:])
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
    ok(names[:3] == ["Summary", "Answers", "Plan"], "the workbook's third sheet is Plan (after the "
       "Summary and its Answers)", str(names[:4]))
    x = z.read("xl/worksheets/sheet3.xml").decode()
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
