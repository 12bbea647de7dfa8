#!/usr/bin/env python3
"""The Hugging Face token never leaves the Hub endpoint: runs fetch with
HF_TOKEN=hf_TESTTOKEN_... through successes and every kind of failure
(gated, refused, retries, timeouts, bad bodies, redirects to a CDN), then
searches every file written and all output for the token. Also checks that
the CDN host never received it and the Hub host did."""
import os
import secrets
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mock_hub as mh  # noqa: E402
from lib import GS, WRAP, Checks  # noqa: E402

TOKEN = "hf_TESTTOKEN_" + secrets.token_hex(12)
_check = Checks("fetch_token.")


def check(name, cond, why=""):
    return _check(cond, name, why)


tmp = tempfile.mkdtemp(prefix="gs_fetch_tok_")
MD = os.path.join(tmp, "models")
hub = mh.MockHub()
hub.valid_tokens.add(TOKEN)
cfg = {"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
       "intermediate_size": 128, "vocab_size": 100}
names = ["ok", "gated_ok", "gated_no", "rate", "err500", "slow", "trunc", "bad", "html", "liar"]
for n in names:
    r = hub.add(mh.Repo("tok/" + n, cfg, gated="manual" if n.startswith("gated") else False,
                        st=mh.VirtualFile(mh.llama_tensors(cfg), lie_len=10 ** 6 if n == "liar" else None)))
    if n == "gated_ok":
        r.approved.add(TOKEN)
hub.renames["tok/renamed"] = "tok/ok"
hub.fault("tok/rate", "api", "429")
hub.fault("tok/err500", "config.json", "500")
hub.fault("tok/slow", "api", "slow:3*" if WRAP else "slow:1*")
hub.fault("tok/trunc", "config.json", "truncate*")
hub.fault("tok/bad", "config.json", "malformed")
hub.fault("tok/html", "api", "html")

env = {k: v for k, v in os.environ.items()
       if not k.startswith(("HF_", "HUGGING", "GPUSIZER_")) and not k.lower().endswith("_proxy")}
env.update({"HF_ENDPOINT": hub.url, "HOME": tmp, "HF_HOME": os.path.join(tmp, "hf"), "HF_TOKEN": TOKEN,
            "GPUSIZER_TIMEOUT": "2" if WRAP else "0.4", "GPUSIZER_MAX_RETRY_WAIT": "0.05",
            "GPUSIZER_RETRIES": "1"})
exe = GS
outputs = []
ids = ["tok/" + n for n in names] + ["tok/renamed", "tok/missing"]
for args in (ids, ids, ["--offline"] + ids, ["../bad"]):
    p = subprocess.run(exe + ["fetch", "--models-dir", MD] + args, env=env, capture_output=True,
                       timeout=60)
    outputs += [p.stdout, p.stderr]
check("ran_all_outcomes", len(os.listdir(MD)) >= 3, str(os.listdir(MD) if os.path.isdir(MD) else None))

leaks = []
for root, dirs, files in os.walk(tmp):
    for f in files:
        with open(os.path.join(root, f), "rb") as fp:
            if TOKEN.encode() in fp.read():
                leaks.append(os.path.join(root, f))
check("not_in_any_file", not leaks, "token found in %s" % leaks)
check("not_in_output", all(TOKEN.encode() not in o for o in outputs), "token printed")
check("sent_to_hub", any(r["auth"] == "Bearer " + TOKEN for r in hub.log), "hub never got the token")
check("never_sent_to_cdn", hub.cdn_log and all(r["auth"] is None for r in hub.cdn_log), str(hub.cdn_log))
check("gated_ok_fetched", os.path.exists(os.path.join(MD, "tok--gated_ok", "meta.json")), "")
hub.close()
shutil.rmtree(tmp, ignore_errors=True)
sys.exit(_check.status())
