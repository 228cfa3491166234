"""The large-input paths of the normalization kernels, against PyTorch.

- Outputs streamed around the cache (aten/native/cpu/StreamStore.h: non-temporal stores once an op touches
  >= 32 MiB): batch_norm 2-d forward and backward, layer_norm forward and backward, with row lengths that
  leave every row's start unaligned (the stores' ordinary head and tail), float32 and float64, and the
  results bit for bit equal to the cached-store path (TORCHLITE_STREAM_STORES=0 in a subprocess).
- batch_norm 2-d statistics read once per sub-chunk (ColumnStats.h: shifted sums around the group's
  running mean): channels whose mean drifts over the rows, far from zero, as accurate as PyTorch's.
- Sums with several accumulator blocks (NormalizationLoops.h): rows around the block boundaries.
"""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch, to_torch


def _randn(shape, seed=0, dtype=torch.float32, scale=1.0, shift=0.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale + shift).to(dtype)


# 2 * N * C * itemsize >= 32 MiB: the forward streams its output; odd C: rows start off the 64-byte grid.
LARGE = [((4099, 1027), torch.float32), ((2051, 1029), torch.float64)]


def _tol(dtype):
    return (3e-5, 3e-5) if dtype == torch.float32 else (1e-10, 1e-10)


@pytest.mark.parametrize("shape,dtype", LARGE)
def test_batch_norm_2d_large_forward_backward_like_torch(shape, dtype):
    N, C = shape
    t, tg = _randn(shape, 1, dtype, scale=3.0, shift=2.0), _randn(shape, 2, dtype)
    tw, tb = _randn((C,), 3, dtype), _randn((C,), 4, dtype)
    trm, trv = torch.zeros(C, dtype=dtype), torch.ones(C, dtype=dtype)
    rm, rv = from_torch(trm.clone()), from_torch(trv.clone())
    x, w, b = from_torch(t), from_torch(tw), from_torch(tb)
    for a in (t, tw, tb, x, w, b):
        a.requires_grad_()
    y = TF.batch_norm(x, rm, rv, w, b, training=True, momentum=0.2)
    ty = F.batch_norm(t, trm, trv, tw, tb, training=True, momentum=0.2)
    atol, rtol = _tol(dtype)
    assert_same(y.detach(), ty.detach(), atol=atol, rtol=rtol)
    assert_same(rm, trm, atol=atol, rtol=rtol)
    assert_same(rv, trv, atol=atol, rtol=rtol)
    ours = tl.autograd.grad(y, [x, w, b], from_torch(tg))
    theirs = torch.autograd.grad(ty, [t, tw, tb], tg)
    for o, e in zip(ours, theirs):
        assert_same(o, e, atol=10 * atol, rtol=10 * rtol)


def test_batch_norm_2d_large_eval_mode_like_torch():
    # Evaluation mode: the running statistics normalize; the backward's dx pass has no x term (streamed alone).
    shape = (4099, 1027)
    t, tg = _randn(shape, 19, scale=2.0, shift=1.0), _randn(shape, 20)
    trm, trv = _randn((1027,), 21), _randn((1027,), 22).abs() + 0.5
    tw = _randn((1027,), 23)
    x, w = from_torch(t).requires_grad_(), from_torch(tw).requires_grad_()
    t.requires_grad_(), tw.requires_grad_()
    y = TF.batch_norm(x, from_torch(trm), from_torch(trv), w, None, training=False)
    ty = F.batch_norm(t, trm, trv, tw, None, training=False)
    assert_same(y.detach(), ty.detach(), atol=3e-5, rtol=3e-5)
    for o, e in zip(tl.autograd.grad(y, [x, w], from_torch(tg)), torch.autograd.grad(ty, [t, tw], tg)):
        assert_same(o, e, atol=3e-4, rtol=3e-4)


@pytest.mark.parametrize("shape,dtype", LARGE)
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_large_forward_backward_like_torch(shape, dtype, affine):
    C = shape[-1]
    t, tg = _randn(shape, 5, dtype, scale=2.0, shift=-1.0), _randn(shape, 6, dtype)
    tw, tb = (_randn((C,), 7, dtype), _randn((C,), 8, dtype)) if affine else (None, None)
    x = from_torch(t).requires_grad_()
    t.requires_grad_()
    w, b = (from_torch(tw).requires_grad_(), from_torch(tb).requires_grad_()) if affine else (None, None)
    if affine:
        tw.requires_grad_(), tb.requires_grad_()
    y, ty = TF.layer_norm(x, [C], w, b), F.layer_norm(t, [C], tw, tb)
    atol, rtol = _tol(dtype)
    assert_same(y.detach(), ty.detach(), atol=atol, rtol=rtol)
    ours = tl.autograd.grad(y, [x, w, b] if affine else [x], from_torch(tg))
    theirs = torch.autograd.grad(ty, [t, tw, tb] if affine else [t], tg)
    for o, e in zip(ours, theirs):
        assert_same(o, e, atol=10 * atol, rtol=10 * rtol)


@pytest.mark.parametrize("mask", [(True, False, False), (False, True, True), (True, True, False)])
def test_layer_norm_large_backward_masks_like_torch(mask):
    shape = (4099, 1027)
    t, tg = _randn(shape, 9, scale=2.0), _randn(shape, 10)
    tw, tb = _randn(shape[-1:], 11), _randn(shape[-1:], 12)
    _, tm, ts = torch.native_layer_norm(t, shape[-1:], tw, tb, 1e-5)
    ours = tl._C._internal.native_layer_norm_backward(from_torch(tg), from_torch(t), list(shape[-1:]), from_torch(tm),
                                                      from_torch(ts), from_torch(tw), from_torch(tb), list(mask))
    theirs = torch.ops.aten.native_layer_norm_backward(tg, t, shape[-1:], tm, ts, tw, tb, list(mask))
    for o, e, m in zip(ours, theirs, mask):
        if m:
            assert_same(o, e, atol=3e-4, rtol=3e-4)
        else:
            assert o is None and e is None


_SCRIPT = r"""
import hashlib, sys, numpy as np
import torchlite as tl, torchlite.nn.functional as F
rng = np.random.default_rng(0)
x = tl.from_numpy((rng.standard_normal((4099, 1027)) * 3 + 1).astype(np.float32)).requires_grad_()
g = tl.from_numpy(rng.standard_normal((4099, 1027)).astype(np.float32))
w = tl.from_numpy(rng.standard_normal(1027).astype(np.float32)).requires_grad_()
b = tl.from_numpy(rng.standard_normal(1027).astype(np.float32)).requires_grad_()
h = hashlib.sha256()
for f in (lambda: F.batch_norm(x, None, None, w, b, training=True), lambda: F.layer_norm(x, [1027], w, b)):
    y = f()
    for t in (y, *tl.autograd.grad(y, [x, w, b], g)):
        h.update(t.detach().numpy().tobytes())
print(h.hexdigest())
"""


def test_streamed_outputs_equal_cached_stores_bit_for_bit():
    digests = []
    for flag in ("1", "0"):
        env = dict(os.environ, TORCHLITE_STREAM_STORES=flag)
        out = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        digests.append(out.stdout.strip())
    assert digests[0] == digests[1]


@pytest.mark.parametrize("drift", [1e-3, 1.0, 100.0])
def test_batch_norm_2d_drifting_channels_as_accurate_as_torch(drift):
    # The mean moves along the rows, so each sub-chunk's shift (the running mean of the rows before it)
    # is off by a growing amount: its deviations' sums must correct that. Far from zero (1e4), float32.
    N, C = 5000, 37
    rows = torch.arange(N, dtype=torch.float64)[:, None] * (drift / N)
    t = (_randn((N, C), 13, torch.float64) + 1e4 + rows).float()
    ref = F.batch_norm(t.double(), None, None, training=True)
    err_torch = (F.batch_norm(t, None, None, training=True) - ref).abs().max().item()
    err_ours = (to_torch(TF.batch_norm(from_torch(t), None, None, training=True)) - ref).abs().max().item()
    assert err_ours <= max(2 * err_torch, 1e-5), (err_ours, err_torch)
    _, mean, invstd = tl.native_batch_norm(from_torch(t), None, None, None, None, True, 0.1, 0.0)
    _, tmean, tinvstd = torch.native_batch_norm(t.double(), None, None, None, None, True, 0.1, 0.0)
    np.testing.assert_allclose(to_torch(mean).double().numpy(), tmean.numpy(), rtol=3e-7)  # ~2 float32 ulp
    np.testing.assert_allclose(to_torch(invstd).double().numpy(), tinvstd.numpy(), rtol=2e-4)


def test_batch_norm_2d_outlier_first_row():
    # The first sub-chunk's own mean is the shift; a huge first row must not cost accuracy.
    t = _randn((3000, 20), 14)
    t[0] = 1e5
    ref = F.batch_norm(t.double(), None, None, training=True)
    err_ours = (to_torch(TF.batch_norm(from_torch(t), None, None, training=True)) - ref).abs().max().item()
    err_torch = (F.batch_norm(t, None, None, training=True) - ref).abs().max().item()
    assert err_ours <= max(2 * err_torch, 1e-5), (err_ours, err_torch)


@pytest.mark.parametrize("n", [1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 200])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_layer_and_group_norm_row_lengths_around_accumulator_blocks(n, dtype):
    t = _randn((3, n), 15, dtype, scale=2.0, shift=3.0)
    pdtype = torch.float32 if dtype == torch.bfloat16 else dtype
    tw, tb = _randn((n,), 16, pdtype), _randn((n,), 17, pdtype)
    tol = {torch.float32: 2e-5, torch.float64: 1e-12, torch.bfloat16: 2e-2}[dtype]
    assert_same(TF.layer_norm(from_torch(t), [n], from_torch(tw), from_torch(tb)), F.layer_norm(t, [n], tw, tb),
                atol=tol, rtol=tol)
    g = _randn((3, 4, n), 18, dtype, scale=2.0, shift=3.0)  # group norm: 2 groups of 2 channels of n values
    assert_same(TF.group_norm(from_torch(g), 2), F.group_norm(g, 2), atol=tol, rtol=tol)
