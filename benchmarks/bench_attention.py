"""Attention and recurrent ops: torchlite beside PyTorch in one run, float32, 2 threads.

    python benchmarks/bench_attention.py [--quick] [--only sdpa,lstm] [--markdown]

- sdpa: scaled_dot_product_attention, batch 8, heads 8, length 512, head dim 64, causal: the forward,
  and forward + backward (gradients of q, k, v). Medians of alternate runs; the ratio is torchlite's
  time over PyTorch's (below 1.0: torchlite is faster).
- sdpa peak memory: each library runs forward + backward once in a fresh subprocess; the figure is the
  growth of the peak RSS (ru_maxrss) over the RSS after the inputs were made.
- lstm: torch.lstm-style whole-sequence LSTM, 2 layers, hidden 256, input 256, sequence 64, batch 32,
  forward + backward, when torchlite has the op.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF

import _timing
from _timing import median_pair

B, H, L, D = 8, 8, 512, 64


def sdpa_inputs(lib, requires_grad):
    g = torch.Generator().manual_seed(0)
    ts = [torch.randn(B, H, L, D, generator=g) for _ in range(3)]
    if lib is torch:
        return [t.requires_grad_(requires_grad) for t in ts]
    return [tl.from_numpy(t.numpy()).requires_grad_(requires_grad) for t in ts]


def sdpa_cases():
    tq, tk, tv = sdpa_inputs(torch, False)
    lq, lk, lv = sdpa_inputs(tl, False)
    yield ("sdpa forward (causal)", lambda: TF.scaled_dot_product_attention(lq, lk, lv, is_causal=True),
           lambda: F.scaled_dot_product_attention(tq, tk, tv, is_causal=True))
    gq, gk, gv = sdpa_inputs(torch, True)
    hq, hk, hv = sdpa_inputs(tl, True)
    tg = torch.ones(B, H, L, D)
    lg = tl.ones(B, H, L, D)

    def fb_tl():
        y = TF.scaled_dot_product_attention(hq, hk, hv, is_causal=True)
        return tl.autograd.grad(y, (hq, hk, hv), lg)

    def fb_torch():
        y = F.scaled_dot_product_attention(gq, gk, gv, is_causal=True)
        return torch.autograd.grad(y, (gq, gk, gv), tg)

    yield "sdpa forward+backward (causal)", fb_tl, fb_torch


def lstm_cases():
    if not hasattr(tl, "lstm"):
        return
    T, N, I, Hd, layers = 64, 32, 256, 256, 2
    g = torch.Generator().manual_seed(0)
    x = torch.randn(T, N, I, generator=g)
    params = []
    for layer in range(layers):
        fan = I if layer == 0 else Hd
        params += [torch.randn(4 * Hd, fan, generator=g) * 0.05, torch.randn(4 * Hd, Hd, generator=g) * 0.05,
                   torch.randn(4 * Hd, generator=g) * 0.05, torch.randn(4 * Hd, generator=g) * 0.05]
    h0 = torch.zeros(layers, N, Hd)
    tparams = [p.clone().requires_grad_() for p in params]
    lparams = [tl.from_numpy(p.numpy()).requires_grad_() for p in params]
    tx, lx = x.clone().requires_grad_(), tl.from_numpy(x.numpy()).requires_grad_()
    th, lh = (h0, h0.clone()), (tl.from_numpy(h0.numpy()), tl.from_numpy(h0.numpy()))

    def fb_torch():
        out = torch.lstm(tx, th, tparams, True, layers, 0.0, True, False, False)[0]
        return torch.autograd.grad(out.sum(), [tx] + tparams)

    def fb_tl():
        out = tl.lstm(lx, lh, lparams, True, layers, 0.0, True, False, False)[0]
        return tl.autograd.grad(out.sum(), [lx] + lparams)

    yield "lstm 2x256, seq 64, batch 32: forward+backward", fb_tl, fb_torch


PEAK_SNIPPET = """
import resource, sys, json
import torch
torch.set_num_threads(2)
lib = sys.argv[1]
B, H, L, D = {B}, {H}, {L}, {D}
def rss():
    with open('/proc/self/statm') as f:
        return int(f.read().split()[1]) * 4096
if lib == 'torch':
    import torch.nn.functional as F
    xs = [torch.randn(B, H, L, D).requires_grad_() for _ in range(3)]
    g = torch.ones(B, H, L, D)
    base = rss()
    y = F.scaled_dot_product_attention(*xs, is_causal=True)
    torch.autograd.grad(y, xs, g)
else:
    import torchlite as tl, torchlite.nn.functional as TF
    tl.set_num_threads(2)
    xs = [tl.randn(B, H, L, D).requires_grad_() for _ in range(3)]
    g = tl.ones(B, H, L, D)
    base = rss()
    y = TF.scaled_dot_product_attention(*xs, is_causal=True)
    tl.autograd.grad(y, xs, g)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps(peak - base))
""".format(B=B, H=H, L=L, D=D)


def peak_growth(lib: str) -> float:
    out = subprocess.run([sys.executable, "-c", PEAK_SNIPPET, lib], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1]) / 2**20


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    p.add_argument("--only", default="", help="comma-separated: sdpa, lstm, memory")
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--cpu-time", action="store_true",
                   help="CPU time instead of wall clock (with --threads 1, the calling thread's)")
    p.add_argument("--repeat", type=int, default=0, help="rounds per figure (default 7, 3 with --quick)")
    args = p.parse_args()
    _timing.apply_run_args(args, tl, torch)
    only = set(args.only.split(",")) if args.only else {"sdpa", "lstm", "memory"}
    rep = args.repeat or (3 if args.quick else 7)
    rows = []
    cases = []
    if "sdpa" in only:
        cases += list(sdpa_cases())
    if "lstm" in only:
        cases += list(lstm_cases())
    for name, f_tl, f_torch in cases:
        a, b = median_pair(f_tl, f_torch, 1, rep)
        rows.append((name, f"{a * 1e3:.2f} ms", f"{b * 1e3:.2f} ms", f"{a / b:.2f}"))
    if "memory" in only:
        a, b = peak_growth("torchlite"), peak_growth("torch")
        rows.append(("sdpa forward+backward peak RSS growth", f"{a:.1f} MiB", f"{b:.1f} MiB", f"{a / b:.2f}"))
    if args.markdown:
        print("| case | torchlite | PyTorch | ratio |\n|---|---|---|---|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        for r in rows:
            print(f"{r[0]:<50} {r[1]:>12} {r[2]:>12} {r[3]:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
