"""A mock Hugging Face Hub (and a second "CDN" host) on 127.0.0.x for the
fetch tests and bench. Python standard library only.

It serves what gpusizer fetch asks for, shaped like the real Hub (see
shared/HUB-API.md): GET /api/models/{id}[/revision/{rev}] (sha, gated,
private, siblings, safetensors), GET /{id}/resolve/{rev}/{file} (small files
served directly with ETag/X-Repo-Commit; *.safetensors answered with a 302
to the CDN host, which honours Range), relative 307s for renamed repos,
401/403 GatedRepo, 401/404 for private/missing repos, If-None-Match -> 304.

Safetensors files are "virtual": a real header followed by zero bytes that
are generated on demand, so a 1B-parameter checkpoint costs no memory.

Faults are queued per (repo, file) ("api" for model info): "429", "429ra"
(Retry-After), "500", "slow:SECONDS", "truncate" (Content-Length promised,
half sent, connection closed), "malformed" (half the JSON, consistent
Content-Length), "html" (an HTML error page with 200), "loop" (redirect to
itself), "huge" (17 MiB body), "echo403" (a 403 whose X-Error-Message and
body repeat every request header, Authorization included, as some proxies
do), "say403:TEXT" (a 403 with TEXT as its X-Error-Message), "bigheader"
(a 200 with one 120 KB header line). An action ending in
"*" stays; others are used once.

A repository can hold other revisions (Repo.add_revision(name, repo)):
model info for /revision/NAME and files resolved at that revision's sha
come from that Repo, with its own sha, config and weights.

repo_from_config() makes a repository from config.json bytes with the
safetensors checkpoint that config implies (GPT-2, BERT, Llama-like decoders
incl. Qwen2's q/k/v biases); serve_dir() adds one per model cached in a
models directory (models/<org>--<name>/config.json), byte for byte, so a
fetch of an unchanged upstream sees exactly the committed configs. Run as
a script it serves a models directory until interrupted:
    python3 tests/mock_hub.py [--models-dir models] [ID...]
and prints the HF_ENDPOINT to use.
"""
import hashlib
import json
import os
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

DTYPE_BYTES = {"F32": 4, "F16": 2, "BF16": 2, "I32": 4, "U8": 1, "I64": 8, "F8_E4M3": 1}


class VirtualFile:
    """A safetensors file: header bytes, then data_len zero bytes."""

    def __init__(self, tensors, pad_to=0, lie_len=None, metadata=None):
        hdr = {}
        off = 0
        if metadata is not None:
            hdr["__metadata__"] = metadata
        for name, dtype, shape in tensors:
            n = 1
            for d in shape:
                n *= d
            size = n * DTYPE_BYTES[dtype]
            hdr[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [off, off + size]}
            off += size
        js = json.dumps(hdr, separators=(",", ":")).encode()
        target = max(len(js), pad_to)
        target += (-target) % 8
        js = js + b" " * (target - len(js))
        declared = len(js) if lie_len is None else lie_len
        self.head = struct.pack("<Q", declared) + js
        self.data_len = off
        self.size = len(self.head) + off
        self.params = {}
        for name, dtype, shape in tensors:
            n = 1
            for d in shape:
                n *= d
            self.params[dtype] = self.params.get(dtype, 0) + n

    def read(self, start, end):
        """Bytes [start, end) of the file."""
        end = min(end, self.size)
        if start >= end:
            return b""
        out = b""
        if start < len(self.head):
            out = self.head[start:min(end, len(self.head))]
        if end > len(self.head):
            out += b"\0" * (end - max(start, len(self.head)))
        return out


def gpt2_tensors(cfg):
    """Tensor list of openai-community/gpt2's model.safetensors (GPT2Model
    keys, incl. the h.*.attn.bias causal-mask buffers)."""
    H, L, V, P = cfg["n_embd"], cfg["n_layer"], cfg["vocab_size"], cfg["n_positions"]
    t = [("wte.weight", "F32", [V, H]), ("wpe.weight", "F32", [P, H])]
    for i in range(L):
        p = "h.%d." % i
        t += [(p + "ln_1.weight", "F32", [H]), (p + "ln_1.bias", "F32", [H]),
              (p + "attn.bias", "F32", [1, 1, P, P]),
              (p + "attn.c_attn.weight", "F32", [H, 3 * H]), (p + "attn.c_attn.bias", "F32", [3 * H]),
              (p + "attn.c_proj.weight", "F32", [H, H]), (p + "attn.c_proj.bias", "F32", [H]),
              (p + "ln_2.weight", "F32", [H]), (p + "ln_2.bias", "F32", [H]),
              (p + "mlp.c_fc.weight", "F32", [H, 4 * H]), (p + "mlp.c_fc.bias", "F32", [4 * H]),
              (p + "mlp.c_proj.weight", "F32", [4 * H, H]), (p + "mlp.c_proj.bias", "F32", [H])]
    t += [("ln_f.weight", "F32", [H]), ("ln_f.bias", "F32", [H])]
    return t


def bert_tensors(cfg):
    """Tensor list of a BertForPreTraining checkpoint (bert-base-uncased's
    layout: MLM transform + bias and NSP head stored, decoder tied)."""
    H, L, V = cfg["hidden_size"], cfg["num_hidden_layers"], cfg["vocab_size"]
    P, T, inter = cfg["max_position_embeddings"], cfg["type_vocab_size"], cfg["intermediate_size"]
    e = "bert.embeddings."
    t = [(e + "word_embeddings.weight", "F32", [V, H]), (e + "position_embeddings.weight", "F32", [P, H]),
         (e + "token_type_embeddings.weight", "F32", [T, H]),
         (e + "LayerNorm.weight", "F32", [H]), (e + "LayerNorm.bias", "F32", [H])]
    for i in range(L):
        p = "bert.encoder.layer.%d." % i
        for m in ("attention.self.query", "attention.self.key", "attention.self.value",
                  "attention.output.dense"):
            t += [(p + m + ".weight", "F32", [H, H]), (p + m + ".bias", "F32", [H])]
        t += [(p + "attention.output.LayerNorm.weight", "F32", [H]),
              (p + "attention.output.LayerNorm.bias", "F32", [H]),
              (p + "intermediate.dense.weight", "F32", [inter, H]), (p + "intermediate.dense.bias", "F32", [inter]),
              (p + "output.dense.weight", "F32", [H, inter]), (p + "output.dense.bias", "F32", [H]),
              (p + "output.LayerNorm.weight", "F32", [H]), (p + "output.LayerNorm.bias", "F32", [H])]
    t += [("bert.pooler.dense.weight", "F32", [H, H]), ("bert.pooler.dense.bias", "F32", [H]),
          ("cls.predictions.bias", "F32", [V]),
          ("cls.predictions.transform.dense.weight", "F32", [H, H]),
          ("cls.predictions.transform.dense.bias", "F32", [H]),
          ("cls.predictions.transform.LayerNorm.weight", "F32", [H]),
          ("cls.predictions.transform.LayerNorm.bias", "F32", [H]),
          ("cls.seq_relationship.weight", "F32", [2, H]), ("cls.seq_relationship.bias", "F32", [2])]
    return t


def llama_tensors(cfg, dtype="BF16"):
    """Tensor list of a LlamaForCausalLM checkpoint for a config dict (with
    q/k/v biases for Qwen2, or attention_bias)."""
    H, L, V = cfg["hidden_size"], cfg["num_hidden_layers"], cfg["vocab_size"]
    nh = cfg["num_attention_heads"]
    nkv = cfg.get("num_key_value_heads", nh)
    hd = cfg.get("head_dim", H // nh)
    inter = cfg["intermediate_size"]
    qkv_bias = cfg.get("attention_bias", cfg.get("model_type") == "qwen2")
    t = [("model.embed_tokens.weight", dtype, [V, H])]
    for i in range(L):
        p = "model.layers.%d." % i
        t += [(p + "input_layernorm.weight", dtype, [H]),
              (p + "self_attn.q_proj.weight", dtype, [nh * hd, H]),
              (p + "self_attn.k_proj.weight", dtype, [nkv * hd, H]),
              (p + "self_attn.v_proj.weight", dtype, [nkv * hd, H])]
        if qkv_bias:
            t += [(p + "self_attn.q_proj.bias", dtype, [nh * hd]),
                  (p + "self_attn.k_proj.bias", dtype, [nkv * hd]),
                  (p + "self_attn.v_proj.bias", dtype, [nkv * hd])]
        t += [(p + "self_attn.o_proj.weight", dtype, [H, nh * hd]),
              (p + "post_attention_layernorm.weight", dtype, [H]),
              (p + "mlp.gate_proj.weight", dtype, [inter, H]),
              (p + "mlp.up_proj.weight", dtype, [inter, H]),
              (p + "mlp.down_proj.weight", dtype, [H, inter])]
    t.append(("model.norm.weight", dtype, [H]))
    if not cfg.get("tie_word_embeddings", False):
        t.append(("lm_head.weight", dtype, [V, H]))
    return t


def shard(tensors, n):
    """Split a tensor list into n roughly equal consecutive shards."""
    k = (len(tensors) + n - 1) // n
    return [tensors[i:i + k] for i in range(0, len(tensors), k)]


def tensors_for(cfg):
    """The checkpoint's tensor list for a config dict, or None when the
    mock knows no layout for its model_type."""
    mt = cfg.get("model_type")
    if mt == "gpt2":
        return gpt2_tensors(cfg)
    if mt == "bert":
        return bert_tensors(cfg)
    if mt in ("llama", "mistral", "qwen2"):
        dt = {"float32": "F32", "float16": "F16"}.get(cfg.get("torch_dtype", cfg.get("dtype")), "BF16")
        return llama_tensors(cfg, dt)
    return None


def repo_from_config(rid, config, sha=None, shards=1, **kw):
    """A Repo serving config (bytes, served byte for byte, or a dict) with the
    safetensors checkpoint it implies: model.safetensors, or `shards` files
    and an index when shards > 1; no weights for an unknown model_type."""
    cfg = json.loads(config) if isinstance(config, bytes) else config
    t = tensors_for(cfg)
    if t is None:
        return Repo(rid, config, sha=sha, **kw)
    if shards > 1:
        return Repo(rid, config, sha=sha, shards=[VirtualFile(s) for s in shard(t, shards)], **kw)
    return Repo(rid, config, sha=sha, st=VirtualFile(t), **kw)


def cached_config(models_dir, rid):
    """config.json bytes of rid in a models directory (org--name slug)."""
    with open(os.path.join(models_dir, rid.replace("/", "--"), "config.json"), "rb") as f:
        return f.read()


def serve_dir(hub, models_dir, ids=None):
    """Add a repository per model cached in models_dir (all, or the ids
    given), serving its config.json byte for byte; returns the Repos."""
    if ids is None:
        ids = sorted(d.replace("--", "/", 1) for d in os.listdir(models_dir)
                     if os.path.isfile(os.path.join(models_dir, d, "config.json")))
    return [hub.add(repo_from_config(rid, cached_config(models_dir, rid))) for rid in ids]


class Repo:
    def __init__(self, rid, config, sha=None, gated=False, private=False, st=None,
                 shards=None, extra_files=None, hub_params=None):
        self.id = rid
        self.sha = sha or hashlib.sha1(rid.encode()).hexdigest()
        self.gated = gated
        self.private = private
        self.files = {}
        self.lfs = {}
        if config is not None:
            self.files["config.json"] = config if isinstance(config, bytes) else \
                json.dumps(config, indent=2).encode() + b"\n"
        params = {}
        if st is not None:
            self.lfs["model.safetensors"] = st
            for k, v in st.params.items():
                params[k] = params.get(k, 0) + v
        if shards:
            wm = {}
            total = 0
            for i, vf in enumerate(shards):
                name = "model-%05d-of-%05d.safetensors" % (i + 1, len(shards))
                self.lfs[name] = vf
                total += vf.data_len
                hdr = json.loads(vf.head[8:].decode())
                for t in hdr:
                    if t != "__metadata__":
                        wm[t] = name
                for k, v in vf.params.items():
                    params[k] = params.get(k, 0) + v
            self.files["model.safetensors.index.json"] = json.dumps(
                {"metadata": {"total_size": total}, "weight_map": wm}, indent=2).encode()
        for k, v in (extra_files or {}).items():
            self.files[k] = v
        self.params = hub_params if hub_params is not None else params
        self.approved = set()
        self.revs = {}

    def add_revision(self, name, repo):
        """Serve repo (its sha, files and weights) as revision name of this
        repository; returns repo."""
        repo.id = self.id
        self.revs[name] = repo
        return repo

    def at(self, rev):
        """The Repo serving revision rev (a name, a sha or a 7+ digit sha
        prefix), or None when there is no such revision."""
        if rev in self.revs:
            return self.revs[rev]
        for r in [self] + list(self.revs.values()):
            if rev == r.sha or (len(rev) >= 7 and r.sha.startswith(rev)):
                return r
        return self if rev == "main" else None


class MockHub:
    def __init__(self, host="127.0.0.1", cdn_host="127.0.0.2", latency=0.0):
        self.repos = {}
        self.renames = {}
        self.valid_tokens = set()
        self.faults = {}
        self.log = []
        self.cdn_log = []
        self.body_bytes = 0
        self.latency = latency
        self.lock = threading.Lock()
        self.inflight = 0
        self.max_inflight = 0
        self.srv = _server(host, self, _HubHandler)
        try:
            self.cdn = _server(cdn_host, self, _CdnHandler)
        except OSError:
            # no 127.0.0.2 (not Linux): another port is another origin too,
            # and libcurl >= 7.83 drops credentials on a port change
            cdn_host = host
            self.cdn = _server(cdn_host, self, _CdnHandler)
        self.port = self.srv.server_address[1]
        self.url = "http://%s:%d" % (host, self.port)
        self.cdn_url = "http://%s:%d" % (cdn_host, self.cdn.server_address[1])

    def add(self, repo):
        self.repos[repo.id] = repo
        return repo

    def fault(self, rid, fname, *actions):
        self.faults.setdefault((rid, fname), []).extend(actions)

    def take_fault(self, rid, fname):
        with self.lock:
            q = self.faults.get((rid, fname))
            if not q:
                return None
            a = q[0]
            if a.endswith("*"):
                return a[:-1]
            q.pop(0)
            return a

    def reset_log(self):
        with self.lock:
            self.log = []
            self.cdn_log = []
            self.body_bytes = 0
            self.max_inflight = 0

    def close(self):
        for s in (self.srv, self.cdn):
            s.shutdown()
            s.server_close()


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # many parallel connects (default 5 drops SYNs)
    def handle_error(self, request, client_address):
        # a client that gave up (timeout, body cap) is part of the tests
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


def _server(host, hub, handler):
    srv = _Server((host, 0), handler)
    srv.daemon_threads = True
    srv.hub = hub
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


class _Base(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, *a):
        pass

    @property
    def hub(self):
        return self.server.hub

    def done_inflight(self):
        # counted until the response starts: the client may start its next
        # request as soon as it has this one, before this thread returns
        if getattr(self, "_inflight", False):
            self._inflight = False
            with self.hub.lock:
                self.hub.inflight -= 1

    def send(self, status, body=b"", headers=None, ctype="application/json", truncate=False):
        # logged before the response goes out: once the client has it, a
        # test may reset the log and must not see this request arrive late
        self.rec(self.hub.cdn_log if isinstance(self, _CdnHandler) else self.hub.log, status)
        self.done_inflight()
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if status != 304:
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if status == 304 or self.command == "HEAD":
            return
        if truncate:
            body = body[:len(body) // 2]
            self.close_connection = True
        with self.hub.lock:  # counted before the client can have it (see rec above)
            self.hub.body_bytes += len(body)
        self.wfile.write(body)

    def rec(self, log, status):
        with self.hub.lock:
            log.append({"method": self.command, "path": self.path, "status": status,
                        "auth": self.headers.get("Authorization"),
                        "inm": self.headers.get("If-None-Match"),
                        "range": self.headers.get("Range"),
                        "host": self.headers.get("Host")})


def _inm_match(header, etag):
    """Weak comparison (RFC 9110 13.1.2) of If-None-Match against an ETag."""
    if not header:
        return False
    strip = lambda t: t.strip()[2:] if t.strip().startswith("W/") else t.strip()
    return any(strip(t) == strip(etag) or t.strip() == "*" for t in header.split(","))


def _etag(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class _HubHandler(_Base):
    def do_GET(self):
        hub = self.hub
        with hub.lock:
            hub.inflight += 1
            hub.max_inflight = max(hub.max_inflight, hub.inflight)
        self._inflight = True
        try:
            if hub.latency:
                time.sleep(hub.latency)
            self.route()
        finally:
            self.done_inflight()

    def token(self):
        a = self.headers.get("Authorization") or ""
        return a[7:] if a.startswith("Bearer ") else None

    def err(self, status, code=None, msg="", extra=None):
        h = dict(extra or {})
        if code:
            h["X-Error-Code"] = code
        if msg:
            h["X-Error-Message"] = msg
        self.send(status, json.dumps({"error": msg}).encode(), h)
        return status

    def access(self, repo, for_file):
        """None if allowed, else the error status sent."""
        tok = self.token()
        if tok is not None and tok not in self.hub.valid_tokens:
            return self.err(401, None, "Invalid credentials in Authorization header")
        if repo.private and (tok is None or tok not in repo.approved):
            if tok is None:
                return self.err(401, None, "Invalid username or password.")
            return self.err(404, "RepoNotFound", "Repository Not Found")
        if repo.gated and for_file:
            if tok is None:
                return self.err(401, "GatedRepo", "Access to model %s is restricted. You must have "
                                "access to it and be authenticated to access it. Please log in." % repo.id)
            if tok not in repo.approved:
                return self.err(403, "GatedRepo", "Access to model %s is restricted and you are not "
                                "in the authorized list. Visit https://huggingface.co/%s to ask for "
                                "access." % (repo.id, repo.id))
        return None

    def fault(self, rid, fname, body, headers, ctype="application/json"):
        """Apply a queued fault; returns (status sent) or None to serve normally,
        or ('truncate', None)."""
        a = self.hub.take_fault(rid, fname)
        if a is None:
            return None
        if a.startswith("slow:"):
            time.sleep(float(a[5:]))
            return None
        if a == "429":
            self.send(429, b'{"error":"rate limited"}', {
                "RateLimit": '"api";r=0;t=0',
                "RateLimit-Policy": '"fixed window";"api";q=500;w=300'})
            return 429
        if a == "429ra":
            self.send(429, b'{"error":"rate limited"}', {"Retry-After": "30"})
            return 429
        if a == "500":
            self.send(500, b'{"error":"internal"}')
            return 500
        if a == "truncate":
            self.send(200, body, headers, ctype, truncate=True)
            return 200
        if a == "malformed":
            self.send(200, body[:len(body) // 2], headers, ctype)
            return 200
        if a == "html":
            self.send(200, b"<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>",
                      {}, "text/html; charset=utf-8")
            return 200
        if a == "loop":
            self.send(302, b"", {"Location": self.path})
            return 302
        if a == "huge":
            self.send(200, b"{" + b" " * (17 << 20) + b"}", headers, ctype)
            return 200
        if a == "echo403":
            sent = "; ".join("%s: %s" % (k, v) for k, v in self.headers.items())
            return self.err(403, None, "you sent " + sent)
        if a.startswith("say403:"):
            return self.err(403, None, a[7:])
        if a == "bigheader":
            self.send(200, body, dict(headers, **{"X-Padding": "a" * 120000}), ctype)
            return 200
        raise ValueError(a)

    def route(self):
        hub = self.hub
        u = urlsplit(self.path)
        parts = [unquote(p) for p in u.path.split("/")[1:]]
        if parts[:2] == ["api", "models"] and len(parts) >= 4:
            rid = parts[2] + "/" + parts[3]
            rest = parts[4:]
            if rid in hub.renames:
                loc = "/api/models/" + hub.renames[rid] + ("/" + "/".join(rest) if rest else "")
                if u.query:
                    loc += "?" + u.query
                self.send(307, b"", {"Location": loc})
                return 307
            repo = hub.repos.get(rid)
            if repo is None:
                return self.err(404, "RepoNotFound", "Repository Not Found")
            denied = self.access(repo, False)
            if denied:
                return denied
            rev = rest[1] if len(rest) >= 2 and rest[0] == "revision" else "main"
            if repo.at(rev) is None:
                return self.err(404, "RevisionNotFound", "Invalid rev id: " + rev)
            repo = repo.at(rev)
            info = {"_id": "x" + repo.sha[:23], "id": repo.id, "sha": repo.sha,
                    "gated": repo.gated, "private": repo.private,
                    "siblings": [{"rfilename": f} for f in sorted(list(repo.files) + list(repo.lfs))],
                    "config": {"model_type": "mock"}}
            if repo.params:
                info["safetensors"] = {"parameters": repo.params, "total": sum(repo.params.values())}
            body = json.dumps(info).encode()
            et = 'W/"%s"' % hashlib.sha1(body).hexdigest()
            f = self.fault(rid, "api", body, {"ETag": et})
            if f is not None:
                return f
            if _inm_match(self.headers.get("If-None-Match"), et):
                self.send(304, b"", {"ETag": et})
                return 304
            self.send(200, body, {"ETag": et})
            return 200
        if len(parts) >= 5 and parts[2] == "resolve":
            rid = parts[0] + "/" + parts[1]
            rev, fname = parts[3], "/".join(parts[4:])
            if rid in hub.renames:
                loc = "/" + hub.renames[rid] + "/resolve/" + "/".join(u.path.split("/")[4:])
                self.send(307, b"", {"Location": loc})
                return 307
            repo = hub.repos.get(rid)
            if repo is None:
                return self.err(404, "RepoNotFound", "Repository Not Found")
            denied = self.access(repo, True)
            if denied:
                return denied
            if repo.at(rev) is None:
                return self.err(404, "RevisionNotFound", "Invalid rev id: " + rev)
            repo = repo.at(rev)
            meta = {"X-Repo-Commit": repo.sha}
            if fname in repo.lfs:
                vf = repo.lfs[fname]
                f = self.fault(rid, fname, b"", {})
                if f is not None:
                    return f
                meta.update({"X-Linked-Etag": '"%s"' % hashlib.sha256(vf.head).hexdigest(),
                             "X-Linked-Size": str(vf.size),
                             "Location": "%s/cdn/%s/%s?sig=abc" % (hub.cdn_url, repo.sha, fname)})
                self.send(302, b"", meta)
                return 302
            data = repo.files.get(fname)
            if data is None:
                return self.err(404, "EntryNotFound", "Entry not found", {"X-Repo-Commit": repo.sha})
            et = '"%s"' % _etag(data)
            meta["ETag"] = et
            f = self.fault(rid, fname, data, meta)
            if f is not None:
                return f
            if _inm_match(self.headers.get("If-None-Match"), et):
                self.send(304, b"", meta)
                return 304
            self.send(200, data, meta)
            return 200
        return self.err(404, None, "no such route")


class _CdnHandler(_Base):
    def do_GET(self):
        hub = self.hub
        u = urlsplit(self.path)
        parts = [unquote(p) for p in u.path.split("/")[1:]]
        vf = None
        if len(parts) >= 3 and parts[0] == "cdn":
            sha, fname = parts[1], "/".join(parts[2:])
            for top in hub.repos.values():
                for r in [top] + list(top.revs.values()):
                    if r.sha == sha and fname in r.lfs:
                        vf = r.lfs[fname]
        if vf is None:
            self.send(404, b"not found", {}, "text/plain")
        else:
            rng = self.headers.get("Range")
            h = {"ETag": '"xet-%s"' % hashlib.md5(vf.head).hexdigest(), "Accept-Ranges": "bytes"}
            if rng and rng.startswith("bytes="):
                a, b = rng[6:].split("-")
                a = int(a)
                b = min(int(b) if b else vf.size - 1, vf.size - 1)
                if a >= vf.size:
                    self.send(416, b"", {"Content-Range": "bytes */%d" % vf.size}, "text/plain")
                else:
                    h["Content-Range"] = "bytes %d-%d/%d" % (a, b, vf.size)
                    self.send(206, vf.read(a, b + 1), h, "application/octet-stream")
            else:
                # whole file: only small ones (tests never ask for this)
                self.send(200, vf.read(0, min(vf.size, 1 << 20)), h, "application/octet-stream")


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="serve a models directory as a mock Hub")
    ap.add_argument("--models-dir", default="models")
    ap.add_argument("ids", nargs="*")
    a = ap.parse_args(argv)
    hub = MockHub()
    repos = serve_dir(hub, a.models_dir, a.ids or None)
    print("HF_ENDPOINT=%s (%d models from %s)" % (hub.url, len(repos), a.models_dir), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        hub.close()


if __name__ == "__main__":
    main(sys.argv[1:])
