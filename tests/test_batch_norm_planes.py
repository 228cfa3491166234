"""batch_norm on the [N, C, S] layout (S > 1, (N, C, H, W) inputs) against PyTorch, and its vector rows against the
generic loops.

- The training backward's per-channel sums, four planes per loop (BatchNormKernels.cpp's channel_grad_sums): plane
  counts N that leave every remainder of 4, plane lengths S around the 16-lane steps (tails, S < 16), both
  backward paths (channel by channel when C >= 2 threads, two whole passes otherwise), evaluation mode.
- Outputs streamed around the cache (StreamStore.h): the forward's y and the backward's dx once the op touches
  >= 32 MiB, with odd plane lengths, so every plane starts off the 32-byte grid (masked head stores).
- The AVX2 float32 rows (BatchNormRowsAvx2.cpp) give the same bits as the generic loops
  (TORCHLITE_BATCH_NORM_ISA=generic), streamed and not (TORCHLITE_STREAM_STORES=0), in subprocesses.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch


def _randn(shape, seed, dtype=torch.float32, scale=1.0, shift=0.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale + shift).to(dtype)


def _check(shape, dtype, training, seed=0, affine=True, atol=None):
    C = shape[1]
    t, tg = _randn(shape, seed, dtype, scale=2.0, shift=1.5), _randn(shape, seed + 1, dtype)
    tw, tb = (_randn((C,), seed + 2, dtype), _randn((C,), seed + 3, dtype)) if affine else (None, None)
    trm, trv = _randn((C,), seed + 4, dtype), _randn((C,), seed + 5, dtype).abs() + 0.5
    rm, rv = from_torch(trm.clone()), from_torch(trv.clone())
    x = from_torch(t).requires_grad_()
    t.requires_grad_()
    leaves, tleaves = [x], [t]
    w = b = None
    if affine:
        w, b = from_torch(tw).requires_grad_(), from_torch(tb).requires_grad_()
        tw.requires_grad_(), tb.requires_grad_()
        leaves += [w, b]
        tleaves += [tw, tb]
    y = TF.batch_norm(x, rm, rv, w, b, training=training, momentum=0.2)
    ty = F.batch_norm(t, trm, trv, tw, tb, training=training, momentum=0.2)
    tol = atol or (3e-5 if dtype == torch.float32 else 1e-10)
    assert_same(y.detach(), ty.detach(), atol=tol, rtol=tol)
    assert_same(rm, trm, atol=tol, rtol=tol)
    assert_same(rv, trv, atol=tol, rtol=tol)
    # Parameter gradients are sums over N * S elements: their tolerance grows with the count.
    for o, e in zip(tl.autograd.grad(y, leaves, from_torch(tg)), torch.autograd.grad(ty, tleaves, tg)):
        assert_same(o, e, atol=30 * tol, rtol=30 * tol)


# N: 1-9 planes per channel (every remainder of the four-plane step); S: tails of the 16-lane step and S < 16.
@pytest.mark.parametrize("N", [2, 3, 4, 5, 7, 9])
@pytest.mark.parametrize("S", [(1, 2), (3, 5), (4, 4), (5, 7), (8, 9)])
@pytest.mark.parametrize("training", [True, False])
def test_planes_like_torch(N, S, training):
    _check((N, 6, *S), torch.float32, training, seed=N)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("C", [1, 3, 64])
def test_planes_both_paths_like_torch(dtype, C):
    # C == 1 or 3 with two threads takes the two whole passes; 64 the channel-by-channel path.
    _check((6, C, 13, 11), dtype, True, seed=C)


def test_planes_no_affine_like_torch():
    _check((5, 8, 7, 9), torch.float32, True, affine=False)


def test_planes_one_thread_equals_two_threads():
    # The sums' order depends on the shape only.
    t, tg = _randn((7, 4, 21, 19), 30), _randn((7, 4, 21, 19), 31)
    w, b = _randn((4,), 32), _randn((4,), 33)
    outs = []
    old = tl.get_num_threads()
    try:
        for threads in (1, 2):
            tl.set_num_threads(threads)
            y, m, s = tl.native_batch_norm(from_torch(t), from_torch(w), from_torch(b), None, None, True, 0.1, 1e-5)
            grads = tl._C._internal.native_batch_norm_backward(from_torch(tg), from_torch(t), from_torch(w), None, None,
                                                               m, s, True, 1e-5, [True, True, True])
            outs.append([a.numpy().copy() for a in (y, m, s, *grads)])
    finally:
        tl.set_num_threads(old)
    for a, b_ in zip(*outs):
        assert (a == b_).all()


@pytest.mark.parametrize("shape", [(17, 32, 61, 63), (32, 64, 56, 56)])
def test_planes_large_streamed_like_torch(shape):
    # >= 32 MiB touched: y and dx are streamed; 61 * 63 floats per plane put every plane start off the 32-byte grid.
    _check(shape, torch.float32, True, seed=40, atol=5e-5)


def test_planes_large_eval_mode_streamed_like_torch():
    _check((17, 32, 61, 63), torch.float32, False, seed=50, atol=5e-5)


_SCRIPT = r"""
import hashlib, numpy as np
import torchlite as tl
rng = np.random.default_rng(0)
h = hashlib.sha256()
for shape in ((5, 6, 3, 7), (9, 4, 1, 17), (4, 64, 8, 8), (17, 32, 61, 63), (1027, 2), (4099, 1027)):
    C = shape[1]
    x = tl.from_numpy((rng.standard_normal(shape) * 3 + 2).astype(np.float32))
    g = tl.from_numpy(rng.standard_normal(shape).astype(np.float32))
    w = tl.from_numpy(rng.standard_normal(C).astype(np.float32))
    b = tl.from_numpy(rng.standard_normal(C).astype(np.float32))
    for training in (True, False):
        rm, rv = tl.zeros(C), tl.ones(C)
        y, sm, si = tl.native_batch_norm(x, w, b, rm, rv, training, 0.1, 1e-5)
        for t in (y, sm, si, rm, rv):
            h.update(t.numpy().tobytes())
        for ww in (w, None):
            for t in tl._C._internal.native_batch_norm_backward(g, x, ww, rm, rv, sm, si, training, 1e-5,
                                                                 [True, True, True]):
                h.update(t.numpy().tobytes())
print(h.hexdigest())
"""


def test_vector_rows_equal_generic_loops_bit_for_bit():
    digests = {}
    for isa in ("", "generic"):
        for stream in ("1", "0"):
            env = dict(os.environ, TORCHLITE_BATCH_NORM_ISA=isa, TORCHLITE_STREAM_STORES=stream)
            out = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True,
                                 timeout=300)
            assert out.returncode == 0, out.stderr
            digests[(isa, stream)] = out.stdout.strip()
    assert len(set(digests.values())) == 1, digests
