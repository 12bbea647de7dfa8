#!/usr/bin/env python3
"""Fault injection for the Hub client, `fetch` and the model cache (issue 16,
items 7, 8, 10, 11, 14 and the unclear errors), against the mock Hub
(tests/mock_hub.py) on 127.0.0.1. One PASS/FAIL line per check, named
faults_hub.<item>.<what>:

  item7   a SIGKILL between the renames of config.json and meta.json
          (the test build's GPUSIZER_FAULT=fetch-config-renamed=kill) leaves a pair that no
          reader trusts, and the next fetch repairs it and removes the orphan
          temporary; concurrent fetches of two revisions keep each labelled
          right; an entry another run is updating is locked (exit 15).
  item8   `fetch org/name@v1 org/name@v2` fetches both, into two entries; a
          config.json gpusizer cannot size does not replace a usable one.
  item10  credentials in HF_ENDPOINT never reach meta.json or messages.
  item11  a server that echoes the request headers does not make gpusizer
          print the token.
  item14  --deadline stops the whole fetch (exit 6), the cache unchanged.
  unclear a response header over libcurl's limit names the host and the
          limit; a bad safetensors header from the Hub is the remote's fault
          (exit 6) and names the repository and the file.
"""
import base64
import glob
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mock_hub as mh  # noqa: E402
from lib import FAULT_EXE as EXE, WRAP, Checks  # noqa: E402

_check = Checks("faults_hub.")
SLACK = 15 if WRAP else 0


def check(name, cond, why=""):
    return _check(cond, name, why)


def cfg(hidden=64, **kw):
    c = {"model_type": "llama", "hidden_size": hidden, "num_hidden_layers": 2, "num_attention_heads": 4,
         "intermediate_size": 128, "vocab_size": 100, "tie_word_embeddings": True}
    c.update(kw)
    return c


def repo(rid, c, sha=None, **kw):
    return mh.Repo(rid, c, sha=sha, st=mh.VirtualFile(mh.llama_tensors(c)), **kw)


def move_on(r, c):
    """The repository's new config and the weights it describes (a config the
    headers refute is not cached: issue 30)."""
    r.files["config.json"] = json.dumps(c).encode()
    r.lfs["model.safetensors"] = mh.VirtualFile(mh.llama_tensors(c))
    r.params = dict(r.lfs["model.safetensors"].params)


tmp = tempfile.mkdtemp(prefix="gs_faults_hub_")
MD = os.path.join(tmp, "models")
hub = mh.MockHub()
BASE_ENV = {k: v for k, v in os.environ.items()
            if not k.startswith(("HF_", "HUGGING", "GPUSIZER_", "XDG_CACHE"))
            and not k.lower().endswith("_proxy")}
BASE_ENV.update({"HF_ENDPOINT": hub.url, "HOME": tmp, "HF_HOME": os.path.join(tmp, "hf"),
                 "GPUSIZER_MAX_RETRY_WAIT": "0.05", "GPUSIZER_RETRIES": "1",
                 "GPUSIZER_TIMEOUT": "10" if WRAP else "5", "GPUSIZER_NVML_LIB": "/nonexistent"})


def env_with(**env):
    e = dict(BASE_ENV)
    e.update({k: str(v) for k, v in env.items()})
    return e


def gs(args, **env):
    t0 = time.monotonic()
    p = subprocess.run(WRAP + [EXE] + args, env=env_with(**env), capture_output=True, text=True,
                       timeout=120)
    return p.returncode, p.stdout, p.stderr, time.monotonic() - t0


def fetch(args, md=None, **env):
    return gs(["fetch", "--models-dir", md or MD] + args, **env)


def files(entry, md=None):
    """{name: bytes} of a cache entry, or None when it does not exist."""
    d = os.path.join(md or MD, entry)
    if not os.path.isdir(d):
        return None
    out = {}
    for n in sorted(os.listdir(d)):
        with open(os.path.join(d, n), "rb") as f:
            out[n] = f.read()
    return out


def meta(entry, md=None):
    return json.loads(files(entry, md)["meta.json"])


def leftovers(md=None):
    return sorted(os.path.relpath(p, md or MD) for p in glob.glob(os.path.join(md or MD, "**", "*.tmp.*"),
                                                                  recursive=True))


# ---- item 7: SIGKILL between the two renames ----------------------------------
K = hub.add(repo("mock/kill", cfg(64)))
rc, out, err, _ = fetch(["mock/kill"])
check("item7.kill.setup", rc == 0, "rc %d %s" % (rc, err))
sha_a = K.sha
K.sha = "a" * 40
move_on(K, cfg(96))
rc, out, err, _ = fetch(["mock/kill"], GPUSIZER_FAULT="fetch-config-renamed=kill")
now = files("mock--kill") or {}
check("item7.kill.killed_between_renames", rc == -9 and now.get("config.json") == K.files["config.json"]
      and json.loads(now.get("meta.json", b"{}")).get("sha") == sha_a,
      "rc %d, files %s" % (rc, sorted(now)))
# the old meta.json names sha_a; the config beside it is the new commit's:
# asking for sha_a must not get the new config labelled as sha_a
rc, out, err, _ = gs(["estimate", "--offline", "--models-dir", MD, "mock/kill@" + sha_a[:12], "--json"])
check("item7.kill.old_label_not_trusted", rc == 10, "rc %d (0 = the new config taken as %s) %s"
      % (rc, sha_a[:12], err))
rc, out, err, _ = gs(["estimate", "--offline", "--models-dir", MD, "mock/kill", "--json"])
src = json.loads(out)["models"][0]["param_source"] if rc == 0 else ""
check("item7.kill.no_stale_counts", rc == 0 and sha_a[:12] not in src, "rc %d param_source %r" % (rc, src))
rc, out, err, _ = fetch(["mock/kill"])
m = meta("mock--kill") if rc == 0 else {}
check("item7.kill.refetch_repairs", rc == 0 and "ok         mock/kill" in out and m.get("sha") == K.sha
      and files("mock--kill")["config.json"] == K.files["config.json"], "rc %d %s %s" % (rc, out, err))
check("item7.kill.orphans_removed", leftovers() == [], str(leftovers()))
rc, out, err, _ = gs(["estimate", "--offline", "--models-dir", MD, "mock/kill@" + K.sha[:12], "--json"])
check("item7.kill.new_label_trusted", rc == 0, "rc %d %s" % (rc, err))

# the same torn pair made by hand (any binary): the new config.json beside the
# old meta.json and the temporary the killed run left
T = hub.add(repo("mock/torn", cfg(64)))
rc, out, err, _ = fetch(["mock/torn"])
old_meta, sha_t = files("mock--torn")["meta.json"], T.sha
T.sha = "d" * 40
move_on(T, cfg(96))
rc2, out, err, _ = fetch(["mock/torn"])
torn = os.path.join(MD, "mock--torn")
with open(os.path.join(torn, "meta.json"), "wb") as f:
    f.write(old_meta)
with open(os.path.join(torn, "meta.json.tmp.999999.AbCdEf"), "wb") as f:
    f.write(b"{")
rc3, out, err, _ = gs(["estimate", "--offline", "--models-dir", MD, "mock/torn@" + sha_t[:12]])
check("item7.torn.old_label_not_trusted", rc == 0 and rc2 == 0 and rc3 == 10,
      "rc %d/%d/%d (0 = the new config used as %s) %s" % (rc, rc2, rc3, sha_t[:12], err))
rc, out, err, _ = fetch(["mock/torn"])
check("item7.torn.refetch_repairs", rc == 0 and "ok         mock/torn" in out and meta("mock--torn")["sha"] == T.sha
      and sorted(files("mock--torn")) == ["config.json", "meta.json"], "rc %d %s %s" % (rc, out, err))

# ---- item 7: concurrent fetches of two revisions --------------------------------
MULTI = hub.add(repo("mock/multi", cfg(64)))
V1 = MULTI.add_revision("v1", repo("mock/multi", cfg(32), sha="1" * 40))
V2 = MULTI.add_revision("v2", repo("mock/multi", cfg(96), sha="2" * 40))
hub.latency = 0.02
procs = []
for i in range(6):
    rev = "v1" if i % 2 == 0 else "v2"
    procs.append(subprocess.Popen(WRAP + [EXE, "fetch", "--models-dir", MD, "mock/multi@" + rev],
                                  env=env_with(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
codes = [p.wait(timeout=120) for p in procs]
errs = [p.stderr.read() for p in procs]
for p in procs:
    p.stdout.close()
    p.stderr.close()
hub.latency = 0
check("item7.concurrent.all_exit0", codes == [0] * 6, "%s %s" % (codes, errs))
ok = True
why = []
for rev, r in (("v1", V1), ("v2", V2)):
    f = files("mock--multi@" + rev) or {}
    mm = json.loads(f.get("meta.json", b"{}"))
    if f.get("config.json") != r.files["config.json"] or mm.get("sha") != r.sha or mm.get("revision") != rev:
        ok = False
        why.append("%s: sha %s revision %s" % (rev, mm.get("sha"), mm.get("revision")))
check("item7.concurrent.each_revision_labelled_right", ok, "; ".join(why))
res = {}
for rev in ("v1", "v2"):
    rc, out, err, _ = gs(["estimate", "--offline", "--models-dir", MD, "mock/multi@" + rev, "--json"])
    res[rev] = json.loads(out)["models"][0]["params_total"] if rc == 0 else None
check("item7.concurrent.estimate_uses_its_revision", res["v1"] is not None and res["v2"] is not None
      and res["v1"] < res["v2"], str(res))
check("item7.concurrent.no_leftovers", leftovers() == [], str(leftovers()))

# ---- item 7: the entry is locked while a fetch updates it ------------------------
def wait_inflight():
    """Until the mock is answering a request (at most 30 s)."""
    t0 = time.monotonic()
    while hub.inflight == 0 and time.monotonic() - t0 < 30:
        time.sleep(0.02)



L = hub.add(repo("mock/locked", cfg(64)))
hub.fault("mock/locked", "api", "slow:%d" % (12 if WRAP else 2))
slow = subprocess.Popen(WRAP + [EXE, "fetch", "--models-dir", MD, "mock/locked"], env=env_with(),
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
wait_inflight()  # it holds the entry's lock (taken before any request), waiting for model info
rc, out, err, el = fetch(["mock/locked"], GPUSIZER_LOCK_WAIT="0.2")
slow_rc = slow.wait(timeout=120)
slow.stdout.close()
slow.stderr.close()
check("item7.lock.second_run_exit15", rc == 15 and "mock--locked" in err and "GPUSIZER_LOCK_WAIT" in err,
      "rc %d %s" % (rc, err))
check("item7.lock.first_run_completes", slow_rc == 0 and files("mock--locked") is not None
      and files("mock--locked").get("config.json") == L.files["config.json"], "rc %d" % slow_rc)
hub.fault("mock/locked", "api", "slow:%d" % (8 if WRAP else 1))
slow = subprocess.Popen(WRAP + [EXE, "fetch", "--models-dir", MD, "mock/locked"], env=env_with(),
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
wait_inflight()
rc, out, err, el = fetch(["mock/locked"])  # waits for it (GPUSIZER_LOCK_WAIT default), then refreshes
slow_rc = slow.wait(timeout=120)
slow.stdout.close()
slow.stderr.close()
check("item7.lock.waiter_succeeds", rc == 0 and slow_rc == 0, "rc %d/%d %s" % (rc, slow_rc, err))

# ---- item 8: two revisions of one repository in one command ---------------------
MD8 = os.path.join(tmp, "models8")
hub.reset_log()
rc, out, err, _ = fetch(["mock/multi@v1", "mock/multi@v2"], md=MD8)
paths = [r["path"] for r in hub.log]
check("item8.two_revisions.exit0", rc == 0 and "2 ok" in out, "rc %d %s %s" % (rc, out, err))
check("item8.two_revisions.both_requested", any("/revision/v1" in p for p in paths)
      and any("/revision/v2" in p for p in paths), str(paths))
check("item8.two_revisions.both_stored",
      (files("mock--multi@v1", MD8) or {}).get("config.json") == V1.files["config.json"]
      and (files("mock--multi@v2", MD8) or {}).get("config.json") == V2.files["config.json"],
      str(os.listdir(MD8) if os.path.isdir(MD8) else None))
rc, out, err, _ = fetch(["mock/multi@v1", "mock/multi@v1"], md=MD8)
check("item8.same_revision_once", rc == 0 and "unchanged  mock/multi@v1" in out, "rc %d %s" % (rc, out))
rc, out, err, _ = fetch(["--revision", "v2", "mock/multi"], md=MD8)
check("item8.revision_flag_same_entry", rc == 0 and "unchanged  mock/multi" in out
      and sorted(os.listdir(MD8)) == ["mock--multi@v1", "mock--multi@v2"], "rc %d %s %s" % (rc, out, os.listdir(MD8)))
rc, out, err, _ = fetch(["mock/multi@refs/pr/1"], md=MD8)
check("item8.revision_with_slash_entry", rc == 9 and not os.path.exists(os.path.join(MD8, "mock--multi@refs"))
      and "mock--multi@refs%2Fpr%2F1" not in os.listdir(MD8), "rc %d %s %s" % (rc, err, os.listdir(MD8)))

# ---- item 8: a config gpusizer cannot size does not replace a usable one --------
U = hub.add(repo("mock/unsizable", cfg(64)))
rc, out, err, _ = fetch(["mock/unsizable"])
before = files("mock--unsizable")
U.sha = "b" * 40
U.files["config.json"] = json.dumps({"model_type": "llama", "hidden_size": 64}).encode()
rc, out, err, _ = fetch(["mock/unsizable"])
check("item8.unsizable.exit3", rc == 3 and "mock/unsizable" in err and "cannot be sized" in err
      and "previous cached copy kept" in err, "rc %d %s" % (rc, err))
check("item8.unsizable.old_entry_kept", files("mock--unsizable") == before, "the cache entry changed")
rc, out, err, _ = gs(["estimate", "--offline", "--models-dir", MD, "mock/unsizable"])
check("item8.unsizable.still_estimates", rc == 0, "rc %d %s" % (rc, err))
MDU = os.path.join(tmp, "models-unsizable")
rc, out, err, _ = fetch(["mock/unsizable"], md=MDU)
check("item8.unsizable.new_not_stored", rc == 3 and not os.listdir(MDU), "rc %d %s" % (rc, os.listdir(MDU)))

# ---- item 10: credentials in HF_ENDPOINT -----------------------------------------
PW = "pw" + secrets.token_hex(8)
USER = "gsuser"
basic = base64.b64encode(("%s:%s" % (USER, PW)).encode()).decode()
cred_ep = hub.url.replace("http://", "http://%s:%s@" % (USER, PW))
hub.add(repo("mock/public", cfg(64)))
E = hub.add(repo("mock/echo", cfg(64)))
MD10 = os.path.join(tmp, "models10")
outputs = []
rc, out, err, _ = fetch(["mock/public"], md=MD10, HF_ENDPOINT=cred_ep)
outputs += [out, err]
check("item10.fetch_with_credentials_exit0", rc == 0, "rc %d %s" % (rc, err))
m = meta("mock--public", MD10) if rc == 0 else {}
stored = (files("mock--public", MD10) or {}).get("meta.json", b"").decode()
check("item10.meta_json_redacted", rc == 0 and PW not in stored and "%s:" % USER not in stored
      and m.get("endpoint", "").endswith("***@" + hub.url[len("http://"):]),
      "endpoint %r" % m.get("endpoint"))
rc, out, err, _ = fetch(["mock/absent"], md=MD10, HF_ENDPOINT=cred_ep)
outputs += [out, err]
check("item10.not_found_message_redacted", rc == 9 and PW not in err and "***@" in err, "rc %d %s" % (rc, err))
hub.fault("mock/echo", "api", "echo403")
rc, out, err, _ = fetch(["mock/echo", "--json"], md=MD10, HF_ENDPOINT=cred_ep)
outputs += [out, err]
check("item10.echoed_basic_auth_redacted", rc == 8 and "you sent" in err and PW not in err + out
      and basic not in err + out, "rc %d %s" % (rc, err))
check("item10.nothing_printed_holds_them", all(PW not in o and basic not in o for o in outputs), "leak")
leaks = []
for root, _, fs in os.walk(MD10):
    for f in fs:
        with open(os.path.join(root, f), "rb") as fp:
            data = fp.read()
        if PW.encode() in data or basic.encode() in data:
            leaks.append(f)
check("item10.no_file_holds_them", not leaks, str(leaks))

# every error printed goes through the rule (gs_report_error), not only the Hub's (a
# config path that is not a local file: exit 16)
rc, out, err, _ = gs(["estimate", "--offline", "--models-dir", MD10, "http://%s:%s@host/config.json" % (USER, PW)])
check("item10.any_error_printed_redacted", rc == 16 and PW not in err and "http://***@host/config.json" in err,
      "rc %d %s" % (rc, err))

# ---- item 11: a server that repeats the request headers ---------------------------
for name, tok in (("hf_token", "hf_" + secrets.token_hex(16)),
                  ("other_token", "tok-" + secrets.token_hex(12))):
    hub.valid_tokens.add(tok)
    hub.fault("mock/echo", "api", "echo403")
    rc, out, err, _ = fetch(["mock/echo"], md=MD10, HF_TOKEN=tok)
    check("item11.%s.text_echoed_exit8" % name, rc == 8 and "you sent" in err, "rc %d %s" % (rc, err))
    check("item11.%s.token_not_printed" % name, tok not in err and tok not in out
          and tok[4:20] not in err, err)
    hub.fault("mock/echo", "api", "echo403")
    rc, out, err, _ = fetch(["mock/echo", "--json"], md=MD10, HF_TOKEN=tok)
    check("item11.%s.token_not_in_json" % name, rc == 8 and tok not in out and "Bearer ***" in out, out)

# any token-shaped text, credential or URL password in a server's message, not only ours
other = "hf_" + "Q" * 30
hub.fault("mock/echo", "api", "say403:proxy log: token %s, Authorization: Basic %s, upstream "
          "http://admin:hunter2pw@10.0.0.1/x" % (other, base64.b64encode(b"admin:hunter2pw").decode()))
rc, out, err, _ = fetch(["mock/echo"], md=MD10)
check("item11.any_token_shape_redacted", rc == 8 and other not in err and "hf_***" in err
      and "hunter2pw" not in err and "YWRtaW46aHVudGVyMnB3" not in err and "http://***@10.0.0.1/x" in err,
      "rc %d %s" % (rc, err))

# ---- item 14: an overall deadline -------------------------------------------------
D = hub.add(repo("mock/deadline", cfg(64)))
rc, out, err, _ = fetch(["mock/deadline"])
before = files("mock--deadline")
mtimes = [os.stat(os.path.join(MD, "mock--deadline", n)).st_mtime_ns for n in sorted(before)]
D.sha = "c" * 40
move_on(D, cfg(96))
hub.fault("mock/deadline", "config.json", "slow:3*")
rc, out, err, el = fetch(["mock/deadline", "--deadline", "1"], GPUSIZER_TIMEOUT="30")
check("item14.deadline.exit6", rc == 6 and "deadline" in err and "--deadline" in err, "rc %d %s" % (rc, err))
check("item14.deadline.stops_in_time", el < 2.5 + SLACK, "%.2f s (the slow server takes 3 s)" % el)
check("item14.deadline.cache_unchanged", files("mock--deadline") == before
      and mtimes == [os.stat(os.path.join(MD, "mock--deadline", n)).st_mtime_ns for n in sorted(before)],
      "the cache entry changed")
hub.faults.pop(("mock/deadline", "config.json"))
rc, out, err, el = fetch(["mock/deadline", "--deadline", "x"])
check("item14.deadline.bad_value_exit2", rc == 2 and "--deadline" in err, "rc %d %s" % (rc, err))
rc, out, err, el = fetch(["mock/deadline", "--deadline", "0"])
check("item14.deadline.zero_is_none", rc == 0, "rc %d %s" % (rc, err))
time.sleep(1.5 if not WRAP else 3)  # the mock's slow handlers finish

# ---- unclear errors ------------------------------------------------------------------
hub.add(repo("mock/bigheader", cfg(64)))
hub.fault("mock/bigheader", "config.json", "bigheader")
rc, out, err, _ = fetch(["mock/bigheader"])
host = hub.url[len("http://"):]
check("unclear.big_header.named", rc == 6 and host in err and "100 KB" in err and "Out of memory" not in err,
      "rc %d %s" % (rc, err))
hub.add(mh.Repo("mock/badst", cfg(64), st=mh.VirtualFile(mh.llama_tensors(cfg(64)), lie_len=10 ** 7)))
rc, out, err, _ = fetch(["mock/badst"])
check("unclear.bad_safetensors_from_hub.exit6", rc == 6, "rc %d (3 = a local input's fault) %s" % (rc, err))
check("unclear.bad_safetensors_from_hub.named", "mock/badst" in err and "model.safetensors" in err
      and "Hub" in err, err)
check("unclear.bad_safetensors_from_hub.nothing_stored", files("mock--badst") is None,
      str(files("mock--badst") and sorted(files("mock--badst"))))

hub.close()
shutil.rmtree(tmp, ignore_errors=True)
sys.exit(_check.status())
