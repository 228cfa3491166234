"""Depthwise convolutions beyond bench_convolution.py's 3x3 row: a 7x7 kernel, a strided 5x5, float64, conv1d.

    PYTHONPATH=$PWD python benchmarks/bench_depthwise_shapes.py

One thread, the calling thread's CPU time, medians of 15 calls; torchlite beside PyTorch in one process.
PyTorch's allocator is warmed with large blocks first: its oneDNN depthwise kernel runs several times slower
while its fresh outputs page-fault. Backward = convolution_backward for the input and weight gradients.
"""
from __future__ import annotations

import time

import numpy as np
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF

# (input shape, weight shape, conv kwargs, dtype)
CASES = [
    ((8, 96, 56, 56), (96, 1, 7, 7), dict(padding=3, groups=96), np.float32),
    ((16, 64, 56, 56), (64, 1, 5, 5), dict(padding=2, stride=2, groups=64), np.float32),
    ((16, 64, 56, 56), (64, 1, 3, 3), dict(padding=1, groups=64), np.float64),
    ((32, 128, 1024), (128, 1, 3), dict(padding=1, groups=128), np.float32),
]


def cpu_ms(f, n=15):
    f()
    times = []
    for _ in range(n):
        t0 = time.thread_time()
        f()
        times.append(time.thread_time() - t0)
    return float(np.median(times)) * 1e3


def main() -> None:
    tl.set_num_threads(1)
    torch.set_num_threads(1)
    warm = [torch.empty(64 << 20) for _ in range(3)]
    del warm
    rng = np.random.default_rng(0)
    for ishape, wshape, kw, dtype in CASES:
        nd = len(ishape) - 2
        x = rng.standard_normal(ishape).astype(dtype)
        w = rng.standard_normal(wshape).astype(dtype)
        lx, lw, tx, tw = tl.from_numpy(x), tl.from_numpy(w), torch.from_numpy(x), torch.from_numpy(w)
        conv_tl, conv_th = getattr(TF, f"conv{nd}d"), getattr(F, f"conv{nd}d")
        fwd = cpu_ms(lambda: conv_tl(lx, lw, **kw)), cpu_ms(lambda: conv_th(tx, tw, **kw))
        out = conv_th(tx, tw, **kw)
        g = rng.standard_normal(tuple(out.shape)).astype(dtype)
        lg, tg = tl.from_numpy(g), torch.from_numpy(g)
        args = ([wshape[0]], [kw.get("stride", 1)] * nd, [kw["padding"]] * nd, [1] * nd, False, [0] * nd,
                kw["groups"], [True, True, False])
        bwd = (cpu_ms(lambda: tl._C._internal.convolution_backward(lg, lx, lw, *args)),
               cpu_ms(lambda: torch.ops.aten.convolution_backward(tg, tx, tw, *args)))
        print(f"{ishape} {wshape} {kw} {np.dtype(dtype).name}: forward {fwd[0]:.2f} / {fwd[1]:.2f} ms = "
              f"{fwd[0] / fwd[1]:.2f}, backward (input + weight) {bwd[0]:.2f} / {bwd[1]:.2f} ms = {bwd[0] / bwd[1]:.2f}")


if __name__ == "__main__":
    main()
