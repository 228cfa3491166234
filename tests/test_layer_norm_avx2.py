"""layer_norm's AVX2/FMA float32 rows (aten/native/cpu/LayerNormRowsAvx2.cpp), forward and backward, on CPUs with
AVX2 but no AVX-512 (elsewhere the AVX-512 rows or the generic loops run, and these tests check those the same way).

- Against PyTorch: float32 (the AVX2 rows) and float64 / float16 / bfloat16 (the generic loops), weight and bias
  present or None, non-contiguous inputs, odd row lengths around the 8-float vector, the 16-lane block and the
  64-float step (1, 7, 8, 9, 63, 64, 65, 1023, 1024, 1025), empty inputs; gradients through autograd.
- The same results bit for bit as the generic loops (TORCHLITE_LAYER_NORM_ISA=generic in a subprocess), streamed and
  not (TORCHLITE_STREAM_STORES): the row-by-row AVX2 rows (row lengths not a multiple of 8) and the pipelined ones
  (multiples of 8: the next row's first read in the current row's output loop), with and without the parameter
  gradients, inputs holding inf / NaN, and inputs large enough that the outputs are streamed.
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

LENGTHS = [1, 7, 8, 9, 63, 64, 65, 1023, 1024, 1025]
DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
# Tolerances against PyTorch (Welford there, the corrected two-pass variance here: the same value to rounding).
TOL = {torch.float32: (3e-5, 3e-5), torch.float64: (1e-12, 1e-12), torch.float16: (4e-3, 4e-3),
       torch.bfloat16: (3e-2, 3e-2)}
GRAD_TOL = {torch.float32: (2e-4, 2e-4), torch.float64: (1e-10, 1e-10), torch.float16: (2e-2, 2e-2),
            torch.bfloat16: (1.5e-1, 5e-2)}


def _randn(shape, seed, dtype=torch.float32, scale=1.0, shift=0.0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=torch.float64).mul(scale).add(shift).to(dtype)


def _check(t, n, tw, tb, tg, dtype, eps=1e-5):
    """Forward values and the gradients of input, weight and bias against PyTorch's."""
    atol, rtol = TOL[dtype]
    gatol, grtol = GRAD_TOL[dtype]
    leaves = [a for a in (t, tw, tb) if a is not None]
    ours = [from_torch(a.detach()).requires_grad_() for a in leaves]
    theirs = [a.detach().clone().requires_grad_() for a in leaves]
    def split(v):
        it = iter(v)
        return next(it), (next(it) if tw is not None else None), (next(it) if tb is not None else None)
    x, w, b = split(ours)
    tx, tw2, tb2 = split(theirs)
    y = TF.layer_norm(x, [n], w, b, eps)
    ty = F.layer_norm(tx, [n], tw2, tb2, eps)
    assert_same(y.detach(), ty.detach(), atol=atol, rtol=rtol)
    got = tl.autograd.grad(y, ours, from_torch(tg))
    want = torch.autograd.grad(ty, theirs, tg)
    for o, e in zip(got, want):
        # The parameter gradients sum over the rows: their error grows with the row count and magnitudes.
        assert_same(o, e, atol=gatol * max(1.0, float(e.abs().max())), rtol=grtol)


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("affine", ["both", "weight", "bias", "none"])
def test_layer_norm_float32_rows_like_torch(n, affine):
    t = _randn((5, n), n, scale=2.0, shift=1.5)
    tw = _randn((n,), 100 + n) if affine in ("both", "weight") else None
    tb = _randn((n,), 200 + n) if affine in ("both", "bias") else None
    _check(t, n, tw, tb, _randn((5, n), 300 + n), torch.float32)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 7, 1023, 1025])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_dtypes_like_torch(dtype, n, affine):
    t = _randn((6, n), n + 1, dtype, scale=2.0, shift=-1.0)
    tw = _randn((n,), n + 2, dtype) if affine else None
    tb = _randn((n,), n + 3, dtype) if affine else None
    _check(t, n, tw, tb, _randn((6, n), n + 4, dtype), dtype)


@pytest.mark.parametrize("n", [7, 64, 1024])
def test_layer_norm_non_contiguous_input_like_torch(n):
    # A transposed input and a sliced one: the kernel reads a contiguous copy.
    base = _randn((n, 6), n, scale=3.0)
    tw, tb = _randn((n,), n + 1), _randn((n,), n + 2)
    _check(base.t(), n, tw, tb, _randn((6, n), n + 3), torch.float32)
    sliced = _randn((6, 2 * n), n + 4)[:, ::2]
    _check(sliced, n, tw, tb, _randn((6, n), n + 5), torch.float32)


def test_layer_norm_native_outputs_like_torch():
    # mean and rstd of the pipelined rows (a row length that is a multiple of 8) and of the row-by-row ones.
    for n in (1024, 1025):
        t = _randn((9, n), n, scale=4.0, shift=3.0)
        tw, tb = _randn((n,), 1), _randn((n,), 2)
        y, mean, rstd = tl.native_layer_norm(from_torch(t), [n], from_torch(tw), from_torch(tb), 1e-5)
        ty, tmean, trstd = torch.native_layer_norm(t, [n], tw, tb, 1e-5)
        assert_same(y, ty, atol=3e-5, rtol=3e-5)
        assert_same(mean, tmean, atol=1e-6, rtol=1e-6)
        assert_same(rstd, trstd, atol=1e-6, rtol=1e-6)


def test_layer_norm_empty_like_torch():
    for shape, ns in (((0, 1024), [1024]), ((3, 0, 8), [8]), ((4, 0), [0])):
        t = torch.zeros(shape)
        y, mean, rstd = tl.native_layer_norm(from_torch(t), ns, None, None, 1e-5)
        ty, tmean, trstd = torch.native_layer_norm(t, ns, None, None, 1e-5)
        assert_same(y, ty)
        assert_same(mean, tmean)
        assert_same(rstd, trstd)


def test_layer_norm_streamed_pipelined_like_torch():
    # 2048x2048 float32: x and y reach 32 MiB, so y (and the backward's dx) are streamed, in the pipelined rows.
    t = _randn((2048, 2048), 7, scale=2.0, shift=1.0)
    tw, tb = _randn((2048,), 8), _randn((2048,), 9)
    _check(t, 2048, tw, tb, _randn((2048, 2048), 10), torch.float32)


_SCRIPT = r"""
import hashlib, numpy as np
import torchlite as tl
rng = np.random.default_rng(0)
h = hashlib.sha256()
def run(x, n, w, b, g, masks):
    y, m, r = tl.native_layer_norm(x, [n], w, b, 1e-5)
    for t in (y, m, r):
        h.update(t.numpy().tobytes())
    for mask in masks:
        for t in tl._C._internal.native_layer_norm_backward(g, x, [n], m, r, w, b, mask):
            if t is not None:
                h.update(t.numpy().tobytes())
for n in (1, 7, 8, 9, 16, 24, 63, 64, 65, 72, 1016, 1023, 1024, 1025):
    x = tl.from_numpy((rng.standard_normal((7, n)) * 3 + 2).astype(np.float32))
    x[1, 0] = float("inf")
    x[2, n - 1] = float("nan")
    w = tl.from_numpy(rng.standard_normal(n).astype(np.float32))
    b = tl.from_numpy(rng.standard_normal(n).astype(np.float32))
    g = tl.from_numpy(rng.standard_normal((7, n)).astype(np.float32))
    for ww, bb in ((w, b), (w, None), (None, b), (None, None)):
        run(x, n, ww, bb, g, ([True, True, True], [True, False, False], [False, True, True]))
# Streamed outputs: pipelined (2048 = 8 * 256) and row by row (2051).
for n in (2048, 2051):
    x = tl.from_numpy((rng.standard_normal((2049, n)) * 2 - 1).astype(np.float32))
    w = tl.from_numpy(rng.standard_normal(n).astype(np.float32))
    g = tl.from_numpy(rng.standard_normal((2049, n)).astype(np.float32))
    run(x, n, w, w, g, ([True, True, True], [True, False, False]))
print(h.hexdigest())
"""


def test_avx2_rows_equal_generic_rows_bit_for_bit():
    digests = {}
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for isa in ("", "generic"):
        for stream in ("1", "0"):
            env = dict(os.environ, TORCHLITE_LAYER_NORM_ISA=isa, TORCHLITE_STREAM_STORES=stream,
                       PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
            out = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True,
                                 timeout=600, cwd=root)
            assert out.returncode == 0, out.stderr
            digests[(isa, stream)] = out.stdout.strip()
    assert len(set(digests.values())) == 1, digests


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_layer_norm_non_finite_rows_like_torch(dtype):
    # A row holding inf, one holding NaN, one of large values and one of subnormal float16 values (the 16-bit rows'
    # branch-free conversions: inf / NaN / subnormals) next to finite rows.
    n = 67
    t = _randn((6, n), 5, dtype, scale=2.0)
    t[1, 3] = float("inf")
    t[2, n - 1] = float("nan")
    t[3] = t[3] * 1000
    t[4] = _randn((n,), 6, torch.float32).mul(1e-6).to(dtype)
    tw, tb = _randn((n,), 7, dtype), _randn((n,), 8, dtype)
    atol, rtol = TOL[dtype]
    y, mean, rstd = tl.native_layer_norm(from_torch(t), [n], from_torch(tw), from_torch(tb), 1e-5)
    ty, tmean, trstd = torch.native_layer_norm(t, [n], tw, tb, 1e-5)
    assert_same(y, ty, atol=atol, rtol=rtol)
    assert_same(mean, tmean, atol=atol, rtol=rtol)
    assert_same(rstd, trstd, atol=atol, rtol=rtol)
    tg = _randn((6, n), 9, dtype)
    ours = tl._C._internal.native_layer_norm_backward(from_torch(tg), from_torch(t), [n], mean, rstd, from_torch(tw),
                                                      from_torch(tb), [True, True, True])
    theirs = torch.ops.aten.native_layer_norm_backward(tg, t, [n], tmean, trstd, tw, tb, [True, True, True])
    gatol, grtol = GRAD_TOL[dtype]
    # Rows 1 and 2 (inf / NaN) make their dx NaN and every parameter gradient NaN, in both libraries.
    for o, e in zip(ours, theirs):
        assert_same(o, e, atol=gatol, rtol=grtol)
