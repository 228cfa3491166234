"""The AVX-512 float32 rows of layer_norm's forward and backward (LayerNormRowsAvx512.cpp) and batch_norm's 2-d
normalizing and dx passes (BatchNormRowsAvx512.cpp), against PyTorch and against the generic loops they replace.

- Row lengths around the 16-float vector and the 64-float accumulator blocks (the masked tail steps), with and
  without weight and bias, non-contiguous inputs, rows holding inf / NaN, and large inputs whose output is
  streamed (odd row lengths: every row starts off the 64-byte grid, the masked head stores).
- The same results bit for bit as the generic loops (TORCHLITE_LAYER_NORM_ISA / TORCHLITE_BATCH_NORM_ISA =
  generic in a subprocess), streamed and not (TORCHLITE_STREAM_STORES). On a CPU without AVX-512 both runs take
  the generic loops and the comparison holds trivially.
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

LENGTHS = [1, 3, 15, 16, 17, 31, 48, 63, 64, 65, 127, 128, 129, 1000, 1027]


def _randn(shape, seed, scale=1.0, shift=0.0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=torch.float64).mul(scale).add(shift).float()


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("affine", ["both", "weight", "bias", "none"])
def test_layer_norm_rows_like_torch(n, affine):
    t = _randn((5, n), n, scale=3.0, shift=2.0)
    tw = _randn((n,), 1) if affine in ("both", "weight") else None
    tb = _randn((n,), 2) if affine in ("both", "bias") else None
    y, mean, rstd = tl.native_layer_norm(from_torch(t), [n], tw if tw is None else from_torch(tw),
                                         tb if tb is None else from_torch(tb), 1e-5)
    ty, tmean, trstd = torch.native_layer_norm(t, [n], tw, tb, 1e-5)
    assert_same(y, ty, atol=2e-5, rtol=2e-5)
    assert_same(mean, tmean, atol=1e-6, rtol=1e-6)
    assert_same(rstd, trstd, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("kind", ["transposed", "sliced"])
def test_layer_norm_rows_strided_input_and_kwargs(kind):
    base = _randn((70, 130), 3, scale=2.0)
    t = base.t() if kind == "transposed" else base[::2, 1:66]
    n = t.shape[-1]
    tw, tb = _randn((n,), 4), _randn((n,), 5)
    ours = TF.layer_norm(from_torch(t), normalized_shape=[n], weight=from_torch(tw), bias=from_torch(tb), eps=1e-3)
    assert_same(ours, F.layer_norm(t, normalized_shape=[n], weight=tw, bias=tb, eps=1e-3), atol=2e-5, rtol=2e-5)


def test_layer_norm_rows_non_finite():
    # A row holding inf or NaN normalizes to NaN (PyTorch: mean inf or NaN, variance NaN); the other rows are
    # unaffected.
    t = _randn((4, 67), 6)
    t[0, 5] = float("inf")
    t[1, 66] = float("nan")
    t[2, 0] = float("-inf")
    tw, tb = _randn((67,), 7), _randn((67,), 8)
    y, mean, rstd = tl.native_layer_norm(from_torch(t), [67], from_torch(tw), from_torch(tb), 1e-5)
    ty, tmean, trstd = torch.native_layer_norm(t, [67], tw, tb, 1e-5)
    assert_same(y, ty, atol=2e-5, rtol=2e-5)
    assert_same(mean, tmean, atol=1e-6, rtol=1e-6)
    assert_same(rstd, trstd, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("shape", [(4099, 1027), (2048, 4096)])
def test_layer_norm_rows_streamed_like_torch(shape):
    # 2 * 16 MiB and more: y is streamed (odd length: masked head stores, aligned body, masked tail).
    t = _randn(shape, 9, scale=2.0, shift=-1.0)
    tw, tb = _randn(shape[-1:], 10), _randn(shape[-1:], 11)
    assert_same(TF.layer_norm(from_torch(t), list(shape[-1:]), from_torch(tw), from_torch(tb)),
                F.layer_norm(t, list(shape[-1:]), tw, tb), atol=3e-5, rtol=3e-5)


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_backward_rows_like_torch(n, affine):
    t, tg = _randn((5, n), n, scale=3.0, shift=2.0), _randn((5, n), n + 1)
    tw, tb = (_randn((n,), 1), _randn((n,), 2)) if affine else (None, None)
    _, tm, ts = torch.native_layer_norm(t, [n], tw, tb, 1e-5)
    mask = [True, affine, affine]
    ours = tl._C._internal.native_layer_norm_backward(from_torch(tg), from_torch(t), [n], from_torch(tm),
                                                      from_torch(ts), tw if tw is None else from_torch(tw),
                                                      tb if tb is None else from_torch(tb), mask)
    theirs = torch.ops.aten.native_layer_norm_backward(tg, t, [n], tm, ts, tw, tb, mask)
    # n == 1: xhat is 0 in exact arithmetic, but rstd = 1 / sqrt(eps) ~ 316 scales a one-ulp difference of
    # x - mean (PyTorch's mean need not round to x) to ~1e-4 in dw.
    atol = 1e-3 if n == 1 else 5e-5
    for o, e in zip(ours, theirs):
        if e is None:
            assert o is None
        else:
            assert_same(o, e, atol=atol, rtol=5e-5)


@pytest.mark.parametrize("C", [1, 15, 16, 17, 65, 1027])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_2d_rows_like_torch(C, training):
    t = _randn((33, C), C, scale=2.0, shift=1.0)
    tw, tb = _randn((C,), 12), _randn((C,), 13)
    trm, trv = _randn((C,), 14), _randn((C,), 15).abs() + 0.5
    tg = _randn((33, C), C + 1)
    rm, rv = from_torch(trm.clone()), from_torch(trv.clone())
    x, w, b = (from_torch(a).requires_grad_() for a in (t, tw, tb))
    for a in (t, tw, tb):
        a.requires_grad_()
    y = TF.batch_norm(x, rm, rv, w, b, training=training, momentum=0.3)
    ty = F.batch_norm(t, trm, trv, tw, tb, training=training, momentum=0.3)
    assert_same(y.detach(), ty.detach(), atol=2e-5, rtol=2e-5)
    assert_same(rm, trm, atol=1e-6, rtol=1e-6)
    assert_same(rv, trv, atol=1e-5, rtol=1e-5)
    # The backward's dx pass: a * p + b * q + r in training, a * p + r in evaluation mode.
    for o, e in zip(tl.autograd.grad(y, [x, w, b], from_torch(tg)), torch.autograd.grad(ty, [t, tw, tb], tg)):
        assert_same(o, e, atol=1e-4, rtol=1e-4)


def test_batch_norm_2d_rows_streamed_no_affine_like_torch():
    t = _randn((4099, 1027), 16, scale=3.0, shift=2.0)
    assert_same(TF.batch_norm(from_torch(t), None, None, training=True), F.batch_norm(t, None, None, training=True),
                atol=3e-5, rtol=3e-5)


_SCRIPT = r"""
import hashlib, numpy as np
import torchlite as tl
rng = np.random.default_rng(0)
h = hashlib.sha256()
for n in (1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 1000, 1027):
    x = tl.from_numpy((rng.standard_normal((6, n)) * 3 + 2).astype(np.float32))
    x[1, 0] = float("inf")
    x[2, n - 1] = float("nan")
    w = tl.from_numpy(rng.standard_normal(n).astype(np.float32))
    b = tl.from_numpy(rng.standard_normal(n).astype(np.float32))
    g = tl.from_numpy(rng.standard_normal((6, n)).astype(np.float32))
    for ww, bb in ((w, b), (w, None), (None, b), (None, None)):
        y, m, r = tl.native_layer_norm(x, [n], ww, bb, 1e-5)
        for t in (y, m, r):
            h.update(t.numpy().tobytes())
        for mask in ([True, True, True], [True, False, False], [False, True, True]):
            for t in tl._C._internal.native_layer_norm_backward(g, x, [n], m, r, ww, bb, mask):
                if t is not None:
                    h.update(t.numpy().tobytes())
    for training in (True, False):
        rm, rv = tl.zeros(n), tl.ones(n)
        y, sm, si = tl.native_batch_norm(x, w, b, rm, rv, training, 0.1, 1e-5)
        for t in (y, sm, si):
            h.update(t.numpy().tobytes())
        for ww in (w, None):
            for t in tl._C._internal.native_batch_norm_backward(g, x, ww, rm, rv, sm, si, training, 1e-5,
                                                                 [True, True, True]):
                if t is not None:
                    h.update(t.numpy().tobytes())
big = tl.from_numpy((rng.standard_normal((4099, 1027)) * 3 + 1).astype(np.float32))
w = tl.from_numpy(rng.standard_normal(1027).astype(np.float32))
y, m, r = tl.native_layer_norm(big, [1027], w, w, 1e-5)
dx = tl._C._internal.native_layer_norm_backward(big, big, [1027], m, r, w, w, [True, True, True])
by, bm, bi = tl.native_batch_norm(big, w, w, None, None, True, 0.1, 1e-5)
bdx = tl._C._internal.native_batch_norm_backward(big, big, w, None, None, bm, bi, True, 1e-5, [True, True, True])
for t in (y, m, r, *dx, by, bm, bi, *bdx):
    h.update(t.numpy().tobytes())
print(h.hexdigest())
"""


def test_avx512_rows_equal_generic_rows_bit_for_bit():
    digests = {}
    for isa in ("", "generic"):
        for stream in ("1", "0"):
            env = dict(os.environ, TORCHLITE_LAYER_NORM_ISA=isa, TORCHLITE_BATCH_NORM_ISA=isa,
                       TORCHLITE_STREAM_STORES=stream)
            out = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True,
                                 timeout=300)
            assert out.returncode == 0, out.stderr
            digests[(isa, stream)] = out.stdout.strip()
    assert len(set(digests.values())) == 1, digests


def test_batch_norm_2d_rows_single_row_and_empty():
    # N == 1: evaluation mode normalizes by the running statistics (one 17-float row: a full vector and a
    # masked tail); training refuses it as PyTorch does.
    t = _randn((1, 17), 17)
    trm, trv = _randn((17,), 18), _randn((17,), 19).abs() + 0.5
    y = TF.batch_norm(from_torch(t), from_torch(trm), from_torch(trv), training=False)
    assert_same(y, F.batch_norm(t, trm, trv, training=False), atol=2e-5, rtol=2e-5)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        TF.batch_norm(from_torch(t), None, None, training=True)
    # Empty batches: layer_norm of no rows; batch_norm in evaluation mode of no rows.
    e = torch.zeros(0, 17)
    assert_same(TF.layer_norm(from_torch(e), [17]), F.layer_norm(e, [17]))
    assert_same(TF.batch_norm(from_torch(e), from_torch(trm), from_torch(trv), training=False),
                F.batch_norm(e, trm, trv, training=False))
