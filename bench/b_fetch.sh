#!/bin/sh
# fetch bench: 1 model vs 20 models from the mock Hub (tests/mock_hub.py)
# with 50 ms latency injected into every Hub request; target: 20 models in
# under 3x the time of one (concurrency via curl multi), judged at the
# default --jobs 16 and shown at 8 and 20. Then a refresh of the 20, which must
# transfer zero body bytes (all 304). Paired runs, interleaved (1 model, 20
# models, 1, 20, ...): the figure is the median of the pairs' ratios with its
# spread, judged by bench/paired.py (a miss only beyond the spread);
# GS_BENCH_PAIRS pairs for the judged --jobs 16 (default 7), GS_BENCH_REPS
# for the others (default 3).
set -u
cd "$(dirname "$0")/.."
: "${GPUSIZER:=./gpusizer}"
export GPUSIZER
[ -x "$GPUSIZER" ] || { echo "b_fetch: build ./gpusizer first (make)"; exit 1; }
exec python3 - "$@" <<'PY'
import os, statistics, subprocess, sys, tempfile, time, shutil
sys.path.insert(0, "tests")
sys.path.insert(0, "bench")
import mock_hub as mh
import paired

hub = mh.MockHub(latency=0.05)
cfg = {"model_type": "llama", "hidden_size": 256, "num_hidden_layers": 4, "num_attention_heads": 8,
       "intermediate_size": 688, "vocab_size": 32000}
ids = []
for i in range(20):
    r = hub.add(mh.Repo("bench/m%02d" % i, cfg,
                        shards=[mh.VirtualFile(s) for s in mh.shard(mh.llama_tensors(cfg), 2)] if i % 4 == 0 else None,
                        st=None if i % 4 == 0 else mh.VirtualFile(mh.llama_tensors(cfg))))
    ids.append(r.id)
env = {k: v for k, v in os.environ.items()
       if not k.startswith(("HF_", "HUGGING", "GPUSIZER_")) and not k.lower().endswith("_proxy")}
env.update(HF_ENDPOINT=hub.url, GPUSIZER_TIMEOUT="10")
def timed(models, md, jobs):
    t0 = time.monotonic()
    p = subprocess.run([os.environ["GPUSIZER"], "fetch", "--jobs", str(jobs), "--models-dir", md] + models,
                       env=env, capture_output=True, text=True)
    dt = time.monotonic() - t0
    if p.returncode != 0:
        print(p.stdout, p.stderr)
        sys.exit(1)
    return dt, p.stdout

tmp = tempfile.mkdtemp(prefix="gs_bfetch_")
ok = True
# 20 single/sharded models = 70 requests: at 8 in flight that is >= 9 round
# trips of 50 ms (about 3x); the default 16 needs 5.
for jobs in (8, 16, 20):
    judged = jobs == 16
    n = int(os.environ.get("GS_BENCH_PAIRS" if judged else "GS_BENCH_REPS", "7" if judged else "3"))
    one, twenty = [], []
    for k in range(n):
        one.append(timed(ids[:1], os.path.join(tmp, "one%d_%d" % (jobs, k)), jobs)[0])
        twenty.append(timed(ids, os.path.join(tmp, "all%d_%d" % (jobs, k)), jobs)[0])
    text, failed = paired.line("b_fetch: --jobs %2d: 20 models / 1 model (50 ms per Hub request)" % jobs,
                               [b / a for a, b in zip(one, twenty)], "<=" if judged else None,
                               3 if judged else None, "x", "paired runs")
    ok = ok and not failed
    print("%s; median 1 model %.3f s, 20 models %.3f s" % (text, statistics.median(one), statistics.median(twenty)))
hub.reset_log()
dt, out = timed(ids, os.path.join(tmp, "all20_0"), 20)
summary = out.strip().splitlines()[-1]
print("b_fetch: refresh of 20: %.3f s, %s; server sent %d body bytes: %s"
      % (dt, summary, hub.body_bytes, "ok" if hub.body_bytes == 0 and " 0 body bytes" in summary else "MISSED"))
ok = ok and hub.body_bytes == 0
hub.close()
shutil.rmtree(tmp, ignore_errors=True)
sys.exit(0 if ok else 1)
PY
