#!/usr/bin/env python3
"""What autograd keeps for one litgpt attention block, counted by storage.

A maintenance probe, not a test: it needs PyTorch (Debian's python3-torch,
1.13, CPU is enough) and no GPU. It rebuilds the forward of one block of
litgpt's CausalSelfAttention with a LoRAQKVLinear (lit_gpt/model.py and
lit_gpt/lora.py: fused qkv, LoRA on the query and value slices with dropout,
zero_pad's index_copy, rotary on q and k, a GELU MLP as in GptNeoxMLP) in
bf16, and records every tensor autograd saves (saved_tensors_hooks), deduped
by storage and without the weights. Flash attention is stood in for by a
Function that saves what PyTorch's flash kernel saves (q, k, v, the output
and the log-sum-exp), since CPU PyTorch 1.13 has no SDPA.

It prints bytes per token, in units of h. On MHA (32 heads, h 2048) the
value is a view of the fused qkv output, so the whole output (6h) stays
saved, and index_copy saves its source (the q and v slices' adapter output,
4h); under GQA (--gqa, 8 groups) the expanded value is a copy and only the
zero-pad source (q + kv wide) remains. CPU dropout saves a bf16 noise tensor
where CUDA's fused dropout keeps a 1-byte mask (h bytes less a token).

usage: /usr/bin/python3 tools/saved-probe.py [--gqa] [--batch N]
"""
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--gqa", action="store_true", help="8 key/value groups instead of 32 (MHA)")
ap.add_argument("--batch", type=int, default=1)
args = ap.parse_args()

torch.manual_seed(0)
dt = torch.bfloat16
B, T = args.batch, 64
h, nh, inter, r, rope_frac = 2048, 32, 8192, 8, 0.5
ng = 8 if args.gqa else nh
hs = h // nh
q_per_kv, total = nh // ng, nh // ng + 2
width = (nh + 2 * ng) * hs
kv = ng * hs
slices = [h, kv]  # query and value trained, key not


class Flash(torch.autograd.Function):
    """Saves what the flash kernel saves; its backward is not needed."""

    @staticmethod
    def forward(ctx, q, k, v):
        s = (q.float() @ k.float().transpose(-2, -1)) / math.sqrt(q.size(-1))
        s = s.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf"))
        lse = torch.logsumexp(s, -1)
        out = (torch.softmax(s, -1) @ v.float()).to(q.dtype)
        ctx.save_for_backward(q, k, v, out, lse)
        return out

    @staticmethod
    def backward(ctx, g):
        q, k, v, _, _ = ctx.saved_tensors
        return torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)


def frozen(i, o):
    return nn.Linear(i, o, bias=True).to(dt).requires_grad_(False)


qkv_lin, proj, fc, fproj = frozen(h, width), frozen(h, h), frozen(h, inter), frozen(inter, h)
norm = nn.LayerNorm(h).to(dt).requires_grad_(False)
lora_A = nn.Parameter(torch.randn(r * 2, h, dtype=dt))
lora_B = nn.Parameter(torch.randn(sum(slices), r, dtype=dt))
ind = [x for x in range(width) if (x // hs) % total < total - 2] + \
      [x for x in range(width) if (x // hs) % total == total - 1]
lora_ind = torch.tensor(ind)
drop = nn.Dropout(0.05).train()
n_elem = int(rope_frac * hs)
theta = 1.0 / (10000 ** (torch.arange(0, n_elem, 2).float() / n_elem))
angles = torch.outer(torch.arange(T).float(), theta).repeat(1, 2)
cos, sin = torch.cos(angles), torch.sin(angles)


def rope(x):
    rotated = torch.cat((-x[..., x.size(-1) // 2:], x[..., : x.size(-1) // 2]), dim=-1)
    return ((x * cos) + (rotated * sin)).type_as(x)


def conv1d(inp, w):
    if nh == ng:
        return F.conv1d(inp, w, groups=2)
    return torch.cat([F.conv1d(a, b) for a, b in zip(inp.chunk(2, dim=1), w.split(slices))], dim=1)


def zero_pad(x):
    x = x.transpose(0, 1)
    res = x.new_zeros((*x.shape[:-1], width)).view(-1, width)
    res = res.index_copy(1, lora_ind, x.reshape(-1, sum(slices)))
    return res.view((*x.shape[:-1], width)).transpose(0, 1)


def block(x):
    n1 = norm(x)
    after_a = F.linear(drop(n1), lora_A)
    after_b = conv1d(after_a.transpose(-2, -1), lora_B.unsqueeze(-1)).transpose(-2, -1)
    qkv = qkv_lin(n1) + zero_pad(after_b) * 2.0
    qkv = qkv.view(B, T, ng, total, hs).permute(0, 2, 3, 1, 4)
    q, k, v = qkv.split((q_per_kv, 1, 1), dim=2)
    if ng != nh:
        k = k.expand(B, ng, q_per_kv, T, hs)
        v = v.expand(B, ng, q_per_kv, T, hs)
    q, k, v = (t.reshape(B, -1, T, hs) for t in (q, k, v))
    q = torch.cat((rope(q[..., :n_elem]), q[..., n_elem:]), dim=-1)
    k = torch.cat((rope(k[..., :n_elem]), k[..., n_elem:]), dim=-1)
    y = Flash.apply(q, k, v).transpose(1, 2).reshape(B, T, h)
    return fproj(F.gelu(fc(n1), approximate="tanh")) + proj(y) + x


weights = {t.storage().data_ptr() for t in [*qkv_lin.parameters(), *proj.parameters(), *fc.parameters(),
                                            *fproj.parameters(), *norm.parameters(), lora_A, lora_B, cos, sin,
                                            lora_ind]}
saved = {}


def pack(t):
    st = t.storage()
    if st.data_ptr() not in weights:
        saved[st.data_ptr()] = (st.nbytes(), tuple(t.shape), t.dtype)
    return t


x = torch.randn(B, T, h, dtype=dt, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    block(x)
tokens = B * T
for nbytes, shape, dtype in sorted(saved.values(), key=lambda v: -v[0]):
    print(f"  {nbytes / tokens:8.0f} B/token = {nbytes / tokens / h:6.3f} h   {shape} {dtype}")
total_b = sum(v[0] for v in saved.values())
print(f"total {total_b / tokens:.0f} B/token = {total_b / tokens / h:.3f} h "
      f"(h {h}, {nh} heads, {ng} key/value groups, batch {B}; torch {torch.__version__})")
