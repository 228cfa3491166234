"""Packed sequences and embedding_bag: torchlite beside PyTorch in one run.

    python benchmarks/bench_packed_sequence.py [--quick] [--markdown]

pack_padded_sequence / pad_packed_sequence of a (64, 32, 256) float32 batch with random lengths, an LSTM
(256 -> 256, 1 layer) over the packed batch (forward, and forward + backward), and F.embedding_bag of
4096 bags of 32 indices into a 100000 x 128 table for each mode (forward, and forward + backward).
Medians of several repeats, the two libraries measured alternately; the ratio is torchlite's time over
PyTorch's (below 1.0: torchlite is faster), also taken between the fastest rounds (the steadier figure when
other processes load the machine). float32, 2 threads.
"""
from __future__ import annotations

import argparse
import sys

import torch
import torch.nn.functional as F
import torch.nn.utils.rnn as trnn

import torchlite as tl
import torchlite.nn.functional as TF
import torchlite.nn.utils.rnn as lrnn

from _timing import median_pair_fastest


def to_tl(t):
    return tl.from_numpy(t.detach().numpy().copy())


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    p.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = p.parse_args()
    rep, number = (3, 1) if args.quick else (15, 2)
    tl.set_num_threads(2)
    torch.set_num_threads(2)
    g = torch.Generator().manual_seed(0)
    rows = []

    # packing and unpacking take about 0.1 ms: 50 calls a round, so that a round outlasts the load's spikes
    T, B, H = 64, 32, 256
    x = torch.randn(T, B, H, generator=g)
    lengths = torch.randint(1, T + 1, (B,), generator=g)
    lengths[0] = T
    xl, ll = to_tl(x), to_tl(lengths)
    rows.append(("pack_padded_sequence (64, 32, 256), unsorted", "forward", *median_pair_fastest(
        lambda: lrnn.pack_padded_sequence(xl, ll, enforce_sorted=False),
        lambda: trnn.pack_padded_sequence(x, lengths, enforce_sorted=False), 50 * number, rep)))
    pt, pl = trnn.pack_padded_sequence(x, lengths, enforce_sorted=False), lrnn.pack_padded_sequence(xl, ll, enforce_sorted=False)
    rows.append(("pad_packed_sequence (64, 32, 256), unsorted", "forward", *median_pair_fastest(
        lambda: lrnn.pad_packed_sequence(pl), lambda: trnn.pad_packed_sequence(pt), 50 * number, rep)))

    torch.manual_seed(0)
    m = torch.nn.LSTM(H, H)
    lm = tl.nn.LSTM(H, H)
    lm.load_state_dict({k: to_tl(v) for k, v in m.state_dict().items()})
    rows.append(("LSTM 256->256 over the packed batch", "forward", *median_pair_fastest(
        lambda: lm(pl), lambda: m(pt), number, rep)))

    def fb(mod, packed):
        def run():
            out, (h, c) = mod(packed)
            (out.data.sum() + h.sum()).backward()
        return run
    rows.append(("LSTM 256->256 over the packed batch", "forward+backward", *median_pair_fastest(
        fb(lm, pl), fb(m, pt), 1, rep)))

    w = torch.randn(100000, 128, generator=g)
    wl = to_tl(w)
    idx = torch.randint(0, 100000, (4096 * 32,), generator=g)
    off = torch.arange(0, 4096 * 32, 32)
    il, ol = to_tl(idx), to_tl(off)
    for mode in ("sum", "mean", "max"):
        rows.append((f"embedding_bag {mode}, 4096 bags of 32, 100000x128", "forward", *median_pair_fastest(
            lambda: TF.embedding_bag(il, wl, ol, mode=mode), lambda: F.embedding_bag(idx, w, off, mode=mode),
            number, rep)))
        wr, wlr = w.clone().requires_grad_(), wl.clone().requires_grad_()

        def bag_fb(f, i, wt, o):
            def run():
                f.embedding_bag(i, wt, o, mode=mode).sum().backward()
            return run
        rows.append((f"embedding_bag {mode}, 4096 bags of 32, 100000x128", "forward+backward", *median_pair_fastest(
            bag_fb(TF, il, wlr, ol), bag_fb(F, idx, wr, off), 1, rep)))

    if args.markdown:
        print("| case (float32) | pass | torchlite ms | PyTorch ms | ratio | ratio of fastest rounds |")
        print("|---|---|---:|---:|---:|---:|")
        for name, kind, a, b, fast in rows:
            print(f"| {name} | {kind} | {a * 1e3:.2f} | {b * 1e3:.2f} | {a / b:.2f} | {fast:.2f} |")
    else:
        for name, kind, a, b, fast in rows:
            print(f"{name:50s} {kind:17s} torchlite {a * 1e3:8.2f} ms  torch {b * 1e3:8.2f} ms  ratio {a / b:5.2f}"
                  f"  fastest {fast:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
