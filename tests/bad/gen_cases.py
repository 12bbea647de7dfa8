#!/usr/bin/env python3
"""Writes the bad-input catalogue: one file per case under tests/bad/ and
tests/bad/cases.json. Run it after changing a case (python3 tests/bad/gen_cases.py);
the files it writes are committed. Base inputs: ok-llama.json (Llama-3.2-1B's
config.json from shared/models-reference), tests/fixtures/spec-small.json,
gpus/rtx-4090.json.

Each case: name, file (under tests/bad/, or null), args (gpusizer's arguments;
{file} = that file, {dir} = a temporary directory holding only the file as
bad-gpu.json, {tmp} = the case's temporary directory, {top} = the repository),
exit (expected status), message (a substring of stderr+stdout), optional
generate ("deep" | "big": made at test time, not committed), heavy (skipped
under valgrind), max_seconds, no_escape (nothing may appear in {tmp} outside
{tmp}/models and {tmp}/hf), why (the decision when behaviour was chosen)."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
ok = json.load(open(os.path.join(HERE, "ok-llama.json")))
ok_text = open(os.path.join(HERE, "ok-llama.json"), "rb").read()
spec = json.load(open(os.path.join(TOP, "tests/fixtures/spec-small.json")))
spec["models"] = ["tests/bad/ok-llama.json"]
spec["formats"] = ["json"]
gpu = json.load(open(os.path.join(TOP, "gpus/rtx-4090.json")))
cases = []

EST = ["estimate", "--config", "{file}", "--gpus-dir", "{top}/gpus"]
REP = ["report", "--spec", "{file}", "--offline", "--quiet", "--out", "{tmp}/out",
       "--models-dir", "{tmp}/models", "--gpus-dir", "{top}/gpus"]
GPU = ["estimate", "--config", "{top}/tests/bad/ok-llama.json", "--gpus-dir", "{dir}"]


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def cfg(name, mod, exit_, msg, **kw):
    d = json.loads(json.dumps(ok))
    mod(d)
    write("config-" + name + ".json", json.dumps(d, indent=2) + "\n")
    cases.append(dict(name="config." + name, file="config-" + name + ".json", args=EST,
                      exit=exit_, message=msg, **kw))


def cfg_raw(name, data, exit_, msg, **kw):
    write("config-" + name + ".json", data)
    cases.append(dict(name="config." + name, file="config-" + name + ".json", args=EST,
                      exit=exit_, message=msg, **kw))


def sub(old, new):
    assert old in ok_text, old
    return ok_text.replace(old, new, 1)


def spc(name, mod, exit_, msg, raw=None, **kw):
    if raw is None:
        d = json.loads(json.dumps(spec))
        mod(d)
        raw = json.dumps(d, indent=2) + "\n"
    write("spec-" + name + ".json", raw)
    cases.append(dict(name="spec." + name, file="spec-" + name + ".json", args=REP,
                      exit=exit_, message=msg, **kw))


def gp(name, mod, exit_, msg, raw=None, **kw):
    if raw is None:
        d = json.loads(json.dumps(gpu))
        mod(d)
        raw = json.dumps(d, indent=2) + "\n"
    write("gpu-" + name + ".json", raw)
    cases.append(dict(name="gpu." + name, file="gpu-" + name + ".json", args=GPU,
                      exit=exit_, message=msg, **kw))


def delete(k):
    return lambda d: d.pop(k)


def put(**kv):
    return lambda d: d.update(kv)


# ---- config.json -------------------------------------------------------------
cfg("missing-hidden_size", delete("hidden_size"), 3, 'field "hidden_size": missing')
cfg("missing-model_type", delete("model_type"), 3, 'field "model_type": missing')
cfg("missing-num_hidden_layers", delete("num_hidden_layers"), 3, '"num_hidden_layers"')
cfg("wrong-type-string", put(hidden_size="2048"), 3,
    'field "hidden_size": must be a positive integer (got "2048")')
cfg("wrong-type-null", put(hidden_size=None), 3, 'field "hidden_size": must be a positive integer (got null)')
cfg("wrong-type-bool", put(hidden_size=True), 3, 'field "hidden_size": must be a positive integer (got true)')
cfg("wrong-type-array", put(hidden_size=[2048]), 3, 'field "hidden_size": must be a positive integer')
cfg("wrong-type-model_type", put(model_type=7), 3, 'field "model_type": must be a string')
cfg("wrong-type-tie", put(tie_word_embeddings="yes"), 3, 'field "tie_word_embeddings": must be true or false')
cfg("zero-hidden_size", put(hidden_size=0), 3, 'field "hidden_size": must be a positive integer (got 0)')
cfg("zero-heads", put(num_attention_heads=0), 3, 'field "num_attention_heads": must be a positive integer (got 0)')
cfg("negative-hidden_size", put(hidden_size=-4), 3, 'field "hidden_size": must be a positive integer (got -4)')
cfg("negative-vocab", put(vocab_size=-1), 3, 'field "vocab_size": must be a positive integer (got -1)')
cfg("fractional-hidden_size", put(hidden_size=2048.5), 3, '(got 2048.5)')
cfg("enormous-hidden_size", put(hidden_size=1e300), 3, 'field "hidden_size": must be a positive integer below 2^53')
cfg("overflow-hidden-intermediate", put(hidden_size=2 ** 40, intermediate_size=2 ** 40), 3,
    'overflows', why="hidden x intermediate = 2^80: caught, not wrapped")
cfg("overflow-layers", put(num_hidden_layers=2 ** 52), 3, 'overflows',
    why="2^52 layers x 60 M parameters a layer passes 2^64")
cfg("overflow-vocab", put(vocab_size=2 ** 52), 3, 'field "vocab_size": too large')
cfg("kv-heads-not-dividing", put(num_key_value_heads=5), 3,
    'field "num_key_value_heads": must divide num_attention_heads')
cfg_raw("nan", sub(b'"hidden_size": 2048', b'"hidden_size": NaN'), 3, "invalid JSON at line",
        why="NaN is not JSON (RFC 8259); cJSON rejects it")
cfg_raw("infinity", sub(b'"hidden_size": 2048', b'"hidden_size": Infinity'), 3,
        'field "hidden_size": must be a positive integer (got inf)',
        why="Python's json writes float('inf') as Infinity and transformers reads it back "
            "(Nemotron-H's time_step_limit): read as an infinite number, which a field sized "
            "from refuses by name")
cfg_raw("minus-infinity", sub(b'"hidden_size": 2048', b'"hidden_size": -Infinity'), 3, "(got -inf)")
cfg_raw("infinity-unread", sub(b'"rope_theta": 500000.0', b'"rope_theta": 500000.0, "time_step_limit": [0.0, Infinity]'),
        0, "Infinity on line",
        why="accepted where no size is read from it (Nemotron-H-56B's real config), and said")
cfg_raw("infinity-misspelt", sub(b'"hidden_size": 2048', b'"hidden_size": Inf'), 3, "invalid JSON at line",
        why="only the exact tokens Infinity and -Infinity are Python's; any other spelling is invalid")
cfg_raw("overflow-literal-inf", sub(b'"hidden_size": 2048', b'"hidden_size": 1e400'), 3,
        'field "hidden_size": must be a positive integer (got inf)',
        why="1e400 parses to +inf")
cfg_raw("overflow-literal-minus-inf", sub(b'"hidden_size": 2048', b'"hidden_size": -1e400'), 3, '(got -inf)')
cfg_raw("duplicate-key", sub(b'"hidden_size": 2048', b'"hidden_size": 4096, "hidden_size": 2048'), 3,
        'duplicate key "hidden_size"',
        why="decision: an error. cJSON keeps the FIRST of duplicate keys while Python's json "
            "(transformers) keeps the LAST, so either silent choice sizes a different model "
            "from the one transformers loads")
cfg_raw("duplicate-empty-key", sub(b'"hidden_size": 2048', b'"": 1, "": 2, "hidden_size": 2048'), 3,
        'duplicate key ""',
        why="two empty keys: found by fuzz_jsoncheck (cmp_key offsets a NULL arena, UB that "
            "aborts under -fsanitize=undefined)")
cfg_raw("only-empty-keys", b'{"": 1, "": 2}\n', 3, 'duplicate key ""',
        why="every key empty: jsoncheck.c's key arena stays NULL and cmp_key offsets it "
            "(UBSan abort under make sanitize)")
cfg_raw("invalid-utf8-value", sub(b'"llama"', b'"ll\xffama"'), 3, "UTF-8",
        why="decision: an error naming the file (transformers' json.load fails on it too); "
            "today it is taken as an unknown model_type and the raw byte is printed")
cfg_raw("invalid-utf8-key", sub(b'"hidden_size"', b'"hidden_\xc0\xafsize"'), 3, "UTF-8",
        why="an overlong '/' encoding in a key: an error naming the file")
cfg_raw("top-level-array", b"[1, 2]\n", 3, "the top level must be a JSON object")
cfg_raw("empty", b"", 3, "invalid JSON")
cfg_raw("truncated", ok_text[:200], 3, "invalid JSON at line")
gemma2 = json.load(open(os.path.join(TOP, "models", "google--gemma-2-9b", "config.json")))
gemma2["final_logit_softcapping"] = "30"
cfg_raw("softcap-string", json.dumps(gemma2, indent=2) + "\n", 3,
        'field "final_logit_softcapping": must be a positive number or null (got "30")')
cfg("unknown-model_type", put(model_type="zzz-unknown"), 0,
    'unknown model_type "zzz-unknown": sized as a generic LLaMA-style decoder',
    why="documented in config.h: an unknown family with the LLaMA fields is sized as a "
        "generic decoder, with a warning")
cases.append(dict(name="config.deep-nesting", file=None, generate="deep",
                  args=["estimate", "--config", "{tmp}/deep.json", "--gpus-dir", "{top}/gpus"],
                  exit=3, message="invalid JSON", heavy=True, max_seconds=5,
                  why="100000 nested arrays: cJSON stops at its nesting limit (1000)"))
cases.append(dict(name="config.100MB", file=None, generate="big",
                  args=["estimate", "--config", "{tmp}/big.json", "--gpus-dir", "{top}/gpus"],
                  exit=3, message="file too large (over 16777216 bytes)", heavy=True,
                  max_seconds=2, why="GS_CONFIG_MAX_BYTES: rejected from its size, not read"))
cases.append(dict(name="config.missing-file", file=None,
                  args=["estimate", "--config", "{tmp}/none.json", "--gpus-dir", "{top}/gpus"],
                  exit=16, message="none.json"))

# ---- config.json: the 2025-26 families' fields (issue 30) -----------------------
def raw_cfg(d):
    return json.dumps(d, indent=2) + "\n"


NEMO = {"model_type": "nemotron_h", "hidden_size": 256, "num_hidden_layers": 4, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": 64, "intermediate_size": 512, "vocab_size": 1000,
        "hybrid_override_pattern": "M-*-", "mamba_num_heads": 8, "mamba_head_dim": 64, "n_groups": 1,
        "ssm_state_size": 16, "conv_kernel": 4}
GRANITE = {"model_type": "granitemoehybrid", "hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
           "num_key_value_heads": 2, "intermediate_size": 128, "shared_intermediate_size": 512, "vocab_size": 1000,
           "num_local_experts": 0, "layer_types": ["mamba", "attention"], "mamba_n_heads": 8, "mamba_d_head": 64,
           "mamba_expand": 2, "mamba_d_state": 16}
GPTOSS = {"model_type": "gpt_oss", "hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
          "num_key_value_heads": 2, "head_dim": 64, "intermediate_size": 256, "vocab_size": 1000,
          "num_local_experts": 4, "num_experts_per_tok": 2, "sliding_window": 128}
cfg_raw("nemotron-pattern-char", raw_cfg(dict(NEMO, hybrid_override_pattern="M-X-")), 3,
        'field "hybrid_override_pattern[2]"')
cfg_raw("nemotron-pattern-length", raw_cfg(dict(NEMO, hybrid_override_pattern="M-*")), 3,
        'field "hybrid_override_pattern": has 3 blocks for num_hidden_layers 4')
cfg_raw("nemotron-ssm-zero", raw_cfg(dict(NEMO, ssm_state_size=0)), 3,
        'field "ssm_state_size": must be a positive integer (got 0)')
cfg_raw("granite-layer-kind", raw_cfg(dict(GRANITE, layer_types=["mamba", "linear_attention"])), 3,
        'field "layer_types[1]": "linear_attention" is not a layer kind')
cfg_raw("granite-layer-count", raw_cfg(dict(GRANITE, layer_types=["mamba"])), 3,
        'field "layer_types": has 1 entries for num_hidden_layers 2')
cfg_raw("granite-mamba-width", raw_cfg(dict(GRANITE, mamba_n_heads=6)), 3,
        'field "mamba_n_heads"', why="heads x head dim must be the mixer's width (mamba_expand x hidden_size)")
cfg_raw("gpt-oss-topk", raw_cfg(dict(GPTOSS, num_experts_per_tok=5)), 3,
        'field "num_experts_per_tok": must not exceed the 4 experts')
cfg_raw("gpt-oss-window-zero", raw_cfg(dict(GPTOSS, sliding_window=0)), 3,
        'field "sliding_window": must be a positive integer (got 0)')
cfg_raw("gpt-oss-layer-types", raw_cfg(dict(GPTOSS, layer_types=["sliding_attention", "chunked_attention"])), 3,
        'field "layer_types[1]"')
cfg_raw("qwen3-next-heads", raw_cfg({"model_type": "qwen3_next", "hidden_size": 256, "num_hidden_layers": 4,
                                     "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 64,
                                     "vocab_size": 1000, "num_experts": 4, "num_experts_per_tok": 2,
                                     "moe_intermediate_size": 64, "linear_num_value_heads": -2,
                                     "linear_num_key_heads": 2, "linear_key_head_dim": 32,
                                     "linear_value_head_dim": 32}), 3,
        'field "linear_num_value_heads": must be a positive integer (got -2)')
cfg_raw("llama4-no-text-config", raw_cfg({"model_type": "llama4", "vision_config": {"hidden_size": 64}}), 3,
        'field "text_config": missing')
cfg_raw("gemma3-vision-not-object", raw_cfg({"model_type": "gemma3", "vision_config": [1],
                                            "text_config": {"hidden_size": 256, "num_hidden_layers": 2,
                                                            "intermediate_size": 512}}), 3,
        'field "vision_config": must be an object')
cfg_raw("gemma3-vision-layers", raw_cfg({"model_type": "gemma3", "vision_config": {"num_hidden_layers": 0},
                                        "text_config": {"hidden_size": 256, "num_hidden_layers": 2,
                                                        "intermediate_size": 512}}), 3,
        'field "vision_config.num_hidden_layers": must be a positive integer (got 0)')
cfg("llama-with-experts", put(num_local_experts=8), 3, 'field "num_local_experts": 8 experts',
    why="a dense family's config with experts is refused, never sized as dense")
cfg("llama-with-layer-kinds", put(layer_types=["full_attention"] * 15 + ["mamba"]), 3,
    'field "layer_types[15]"')
cfg("unknown-hybrid", put(model_type="frob_hybrid", ssm_state_size=16), 3, 'field "ssm_state_size"',
    why="an unknown model_type with state-space fields is refused naming the field, not sized as a decoder")
cfg("unknown-wrapper", put(model_type="frob_vl", vision_config={"hidden_size": 64}), 3,
    'field "vision_config"')
cfg("fp8-block-size", put(quantization_config={"quant_method": "fp8", "weight_block_size": [128]}), 3,
    'field "quantization_config.weight_block_size"')
cfg("fp8-block-zero", put(quantization_config={"quant_method": "fp8", "weight_block_size": [0, 128]}), 3,
    'field "quantization_config.weight_block_size"')

# ---- command-line values -----------------------------------------------------
for name, extra, exit_, msg in [
        ("batch-zero", ["--batch", "0"], 2, "--batch: 0 is out of range"),
        ("batch-negative", ["--batch", "-1"], 2, "--batch: -1 is out of range"),
        ("batch-fractional", ["--batch", "1.5"], 2, "--batch: '1.5' is not an integer"),
        ("batch-enormous", ["--batch", "4294967296", "--seq", "4294967296"], 2, "out of range"),
        ("seq-past-int64", ["--seq", "99999999999999999999999"], 2, "is not an integer"),
        ("dropout-nan", ["--method", "lora", "--lora-dropout", "nan"], 2, "is not a number"),
        ("fraction-inf", ["--formula", "cookbook", "--trainable-fraction", "inf"], 2, "is not a number")]:
    cases.append(dict(name="flag." + name, file="ok-llama.json", args=EST + extra, exit=exit_,
                      message=msg))

# ---- model ids that try to leave the cache ------------------------------------
ID_ENV = ["--models-dir", "{tmp}/models"]
for name, mid, msg in [
        ("dotdot", "../x", 'model id "../x": "." and ".." are not allowed'),
        ("dotdot-deep", "a/../../b", 'model id "a/../../b": at most one \'/\''),
        ("empty-segment", "a//b", 'model id "a//b": at most one \'/\''),
        ("control-char", "a/b\u0001c", "control character (0x01) not allowed"),
        ("newline", "a/b\nc", "control character (0x0a) not allowed"),
        ("revision-dotdot", "org/name@../../x", "malformed revision"),
        ("empty", "", "model id is empty")]:
    cases.append(dict(name="id.estimate." + name, file=None,
                      args=["estimate", mid, "--offline"] + ID_ENV, exit=2, message=msg,
                      no_escape=True))
    cases.append(dict(name="id.fetch." + name, file=None, args=["fetch", mid] + ID_ENV,
                      exit=2, message=msg, no_escape=True))
cases.append(dict(name="id.fetch.absolute", file=None, args=["fetch", "/etc/passwd"] + ID_ENV,
                  exit=2, message="absolute paths are not model ids", no_escape=True))
cases.append(dict(name="id.estimate.absolute-path-is-a-file", file=None,
                  args=["estimate", "/etc/passwd", "--offline"] + ID_ENV, exit=3,
                  message="/etc/passwd: invalid JSON", no_escape=True,
                  why="estimate takes an existing file as a config path (documented); "
                      "/etc/passwd is read as one and rejected as JSON"))

# ---- sweep spec ----------------------------------------------------------------
spc("missing-models", delete("models"), 3, "models: missing")
spc("wrong-type-models", put(models="a/b"), 3, "models: expected an array")
spc("zero-batch", lambda d: d["axes"].update(batch=[0]), 3, "axes.batch[0]: expected positive integers")
spc("negative-seq", lambda d: d["axes"].update(seq=[-512]), 3, "axes.seq[0]: expected positive integers")
spc("fractional-batch", lambda d: d["axes"].update(batch=[1.5]), 3, "axes.batch[0]: expected positive integers")
spc("enormous-batch", lambda d: d["axes"].update(batch=[1e300]), 3, "axes.batch[0]: expected positive integers")
spc("enormous-seq", lambda d: d["axes"].update(seq=[1 << 30]), 3, "--seq: 1073741824 is out of range")
spc("zero-gpu-count", put(gpu_counts=[{"count": 0}]), 3, "gpu_counts[0]: count: expected an integer")
spc("unknown-key", put(bogus=1), 3, "bogus: unknown key")
spc("unknown-gpu", put(gpus=["nope"]), 3, 'gpus[0]: unknown GPU "nope"')
spc("version", put(version=2), 3, "version: expected 1")
spc("bad-date", put(date="2026-13-45"), 3, 'date: "2026-13-45": expected a date')
spc("nan", None, 3, "not valid JSON",
    raw=json.dumps(spec, indent=2).replace('"version": 1', '"version": NaN'))
spc("duplicate-key", None, 3, 'duplicate key "version"',
    raw=json.dumps(spec, indent=2).replace('"version": 1', '"version": 1,\n  "version": 2'),
    why="decision: an error, as for config.json (cJSON silently keeps the first)")
spc("invalid-utf8", None, 3, "UTF-8",
    raw=json.dumps(spec, indent=2).encode().replace(b'"out": "out"', b'"out": "o\xffut"'),
    why="decision: an error naming the file; today an output directory named with the raw "
        "byte is created")
spc("model-entry-key", put(models=[{"id": "tests/bad/ok-llama.json", "method": ["inference"]}]), 3,
    'models[0]: unknown key "method"')
spc("model-entry-methods", put(models=[{"id": "tests/bad/ok-llama.json", "methods": ["serve"]}]), 3,
    "models[0]: methods: expected full, lora, qlora or inference")
spc("model-entry-id", put(models=[{"methods": ["inference"]}]), 3, "models[0]: id: expected")
spc("time-negative-tokens", put(time={"tokens": -5}), 3, "time.tokens: expected a token budget")
spc("time-string-tokens", put(time={"tokens": "1e9"}), 3, "time.tokens: expected a token budget")
spc("time-unknown-runtime", put(time={"runtime": "warp"}), 3, "time.runtime: expected")
spc("time-unknown-key", put(time={"tokens": 1e8, "price": 2}), 3, 'unknown key "price"')
spc("time-unknown-train-runtime", put(time={"train_runtime": "deepspeed-ultra"}), 3,
    "time.train_runtime: expected")
cases.append(dict(name="spec.deep-nesting", file=None, generate="deep-spec",
                  args=["report", "--spec", "{tmp}/deep.json", "--offline", "--quiet", "--out",
                        "{tmp}/out", "--gpus-dir", "{top}/gpus"],
                  exit=3, message="nesting deeper than 1000 levels", heavy=True, max_seconds=5))

# ---- gpus/*.json ---------------------------------------------------------------
gp("missing-name", delete("name"), 3, '"name"')
gp("zero-usable", put(usable_mib=0), 3, '"usable_mib"')
gp("negative-total", put(total_mib=-1), 3, '"total_mib"')
gp("usable-above-total", put(usable_mib=99999), 3, "larger than the total")
gp("wrong-type-bf16", put(bf16="yes"), 3, '"bf16"')
gp("enormous-total", put(total_mib=1e300, usable_mib=1e300), 3, '"total_mib"')
gp("unknown-architecture", put(architecture="pascal"), 3, '"architecture": expected "volta"')
gp("architecture-unsourced", lambda d: d["sources"].pop("architecture"), 3, 'field "sources.architecture": missing')
gp("nan", None, 3, "bad-gpu.json",
   raw=json.dumps(gpu, indent=2).replace('"bandwidth_gbs": 1008', '"bandwidth_gbs": NaN'))


def fp4(tflops, flag=True, sourced=("fp4", "fp4_tflops")):
    """The RTX 4090 file given an fp4 figure (made up: the tests own it); flag None leaves "fp4" out."""
    def mod(d):
        if flag is not None:
            d["fp4"] = flag
        d["fp4_tflops"] = tflops
        for k in sourced:
            d["sources"][k] = "test fixture"
    return mod


# fp4 (issue 30 item 5): dense FP4 TFLOPS, only with "fp4": true, at most GS_GPU_TFLOPS_MAX (1,000,000).
gp("fp4-tflops-negative", fp4(-1), 3, '"fp4_tflops": must be a positive number')
gp("fp4-tflops-zero", fp4(0), 3, '"fp4_tflops": must be a positive number')
gp("fp4-tflops-string", fp4("fast"), 3, '"fp4_tflops": must be a positive number')
gp("fp4-tflops-too-large", fp4(2500000), 3, '"fp4_tflops": must be a positive number of TFLOPS, at most 1,000,000')
gp("fp4-tflops-without-fp4", fp4(1321.2, flag=None), 3, '"fp4_tflops": given but "fp4" is not true')
gp("fp4-tflops-fp4-false", fp4(1321.2, flag=False), 3, '"fp4_tflops": given but "fp4" is not true')
gp("fp4-wrong-type", fp4(1321.2, flag="yes"), 3, '"fp4": must be true or false')
gp("fp4-unsourced", fp4(1321.2, sourced=("fp4_tflops",)), 3, 'field "sources.fp4": missing')
gp("fp4-tflops-unsourced", fp4(1321.2, sourced=("fp4",)), 3, 'field "sources.fp4_tflops": missing')
gp("unified-memory-wrong-type", put(unified_memory="yes"), 3, '"unified_memory": must be true or false')
gp("unified-memory-unsourced", put(unified_memory=True), 3, 'field "sources.unified_memory": missing')
gp("unknown-architecture-cdna5", put(architecture="cdna5"), 3, '"cdna3" or "cdna4"')

with open(os.path.join(HERE, "cases.json"), "w") as f:
    json.dump({"cases": cases}, f, indent=1)
    f.write("\n")
print(len(cases), "cases")
