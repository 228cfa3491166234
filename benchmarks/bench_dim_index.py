"""torchlite beside PyTorch in one run: ops on the dim engine (cumsum, softmax, log_softmax, sort,
topk), on the index engine (gather, scatter_add, index_select, on 1M-10M elements) and cat/stack of
100 tensors.

    python benchmarks/bench_dim_index.py [--quick] [--threads N]

Every figure is the median of several repeats (torchlite and PyTorch timed alternately), in ms; ratio = torchlite's time / PyTorch's
(below 1.0: torchlite is faster). Both libraries use the same number of threads (default 2).
"""
from __future__ import annotations

import argparse

import numpy as np
import torch

import torchlite as tl

from _timing import median_pair


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--only", default="", help="run the cases whose name contains this text")
    args = p.parse_args()
    rep = 3 if args.quick else 7
    tl.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)

    big = rng.standard_normal((4096, 4096), dtype=np.float32)
    rows = rng.standard_normal((4096, 1024), dtype=np.float32)
    vec = rng.standard_normal(1 << 20, dtype=np.float32)
    gidx = rng.integers(0, 4096, (4096, 1024))  # gather/scatter_add along dim 0 of `rows`
    sel = rng.integers(0, 4096, 4096)           # index_select of 4096 rows
    v10 = rng.standard_normal(10 << 20, dtype=np.float32)
    i10 = rng.integers(0, 10 << 20, 10 << 20)   # 10M random positions (gather, index_select, scatter_add)
    i1 = rng.integers(0, 1 << 20, 1 << 20)      # 1M random positions into 1M
    cidx = rng.integers(0, 1024, (4096, 1024))   # along the contiguous dim of `rows`
    parts = [rng.standard_normal((100, 1000), dtype=np.float32) for _ in range(100)]

    arrays = {"big": big, "rows": rows, "vec": vec, "gidx": gidx, "sel": sel, "v10": v10, "i10": i10, "i1": i1,
              "cidx": cidx}
    T = {k: (tl.from_numpy(v), torch.from_numpy(v)) for k, v in arrays.items()}
    T["parts"] = ([tl.from_numpy(a) for a in parts], [torch.from_numpy(a) for a in parts])

    cases = [
        ("cumsum 4096x4096 f32, dim -1", lambda L, t: L.cumsum(t["big"], -1)),
        ("cumsum 4096x4096 f32, dim 0", lambda L, t: L.cumsum(t["big"], 0)),
        ("softmax 4096x4096 f32, dim -1", lambda L, t: L.softmax(t["big"], -1)),
        ("softmax 4096x4096 f32, dim 0", lambda L, t: L.softmax(t["big"], 0)),
        ("log_softmax 4096x4096 f32, dim -1", lambda L, t: L.log_softmax(t["big"], -1)),
        ("log_softmax 4096x4096 f32, dim 0", lambda L, t: L.log_softmax(t["big"], 0)),
        ("sort 1M f32", lambda L, t: L.sort(t["vec"])),
        ("sort 4096x1024 f32 rows", lambda L, t: L.sort(t["rows"], -1)),
        ("topk k=100 of 1M f32", lambda L, t: L.topk(t["vec"], 100)),
        ("topk k=10 of 4096x1024 rows", lambda L, t: L.topk(t["rows"], 10, -1)),
        ("gather 4096x1024 f32, dim 0", lambda L, t: L.gather(t["rows"], 0, t["gidx"])),
        ("scatter_add 4096x1024 f32, dim 0", lambda L, t: L.scatter_add(t["rows"], 0, t["gidx"], t["rows"])),
        ("index_select 4096 rows of 4096x1024", lambda L, t: L.index_select(t["rows"], 0, t["sel"])),
        ("index_select 4096 cols of 4096x4096", lambda L, t: L.index_select(t["big"], 1, t["sel"])),
        ("gather 1M of 1M f32", lambda L, t: L.gather(t["vec"], 0, t["i1"])),
        ("gather 10M of 10M f32", lambda L, t: L.gather(t["v10"], 0, t["i10"])),
        ("gather 4096x1024 f32, dim 1", lambda L, t: L.gather(t["rows"], 1, t["cidx"])),
        ("scatter_add 1M into 1M f32", lambda L, t: L.scatter_add(t["vec"], 0, t["i1"], t["vec"])),
        ("scatter_add 10M into 10M f32", lambda L, t: L.scatter_add(t["v10"], 0, t["i10"], t["v10"])),
        ("scatter_add 4096x1024 f32, dim 1", lambda L, t: L.scatter_add(t["rows"], 1, t["cidx"], t["rows"])),
        ("index_select 1M of 1M f32", lambda L, t: L.index_select(t["vec"], 0, t["i1"])),
        ("index_select 10M of 10M f32", lambda L, t: L.index_select(t["v10"], 0, t["i10"])),
        ("cat 100 x (100, 1000) f32, dim 0", lambda L, t: L.cat(t["parts"], 0)),
        ("cat 100 x (100, 1000) f32, dim 1", lambda L, t: L.cat(t["parts"], 1)),
        ("stack 100 x (100, 1000) f32, dim 0", lambda L, t: L.stack(t["parts"], 0)),
        ("stack 100 x (100, 1000) f32, dim 2", lambda L, t: L.stack(t["parts"], 2)),
    ]
    print(f"threads: {args.threads}; medians of {rep}")
    print(f"{'':40s} {'torchlite':>10s} {'torch':>10s} {'ratio':>7s}")
    for name, f in cases:
        if args.only not in name:
            continue
        ours_t = {k: v[0] for k, v in T.items()}
        theirs_t = {k: v[1] for k, v in T.items()}
        a, b = median_pair(lambda: f(tl, ours_t), lambda: f(torch, theirs_t), repeat=rep)
        print(f"{name:40s} {a * 1e3:8.2f}ms {b * 1e3:8.2f}ms {a / b:6.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
