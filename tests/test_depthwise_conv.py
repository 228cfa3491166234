"""The direct depthwise convolution kernel (aten/native/cpu/DepthwiseConv.cpp): groups == input channels,
1-d and 2-d, float32/float64 (float16/bfloat16 through float32), forward and both gradients, against PyTorch.

The cases aim at the kernel's paths: rows of several 4-vector blocks plus a partial last vector; strides
(the phase layout of the padded copy, the scattered input gradient), dilation, padding 0 to larger than
d * (k - 1) (the stride-1 input gradient then crops grad_output), channel multipliers, kernels of 3, 9
(held in registers) and other tap counts; batch 1, unbatched and empty inputs, non-contiguous inputs;
the weight gradient's fixed summation order (the same bits for 1 and 2 threads).
"""
from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch


def rnd(*shape, dtype=torch.float64, seed=0):
    g = torch.Generator().manual_seed(seed + 7 * sum(shape))
    return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)


def conv(lib, dims):
    return getattr(F if lib is torch else TF, f"conv{dims}d")


# (input shape, weight shape, kwargs); groups is the input's channel count.
CASES_2D = [
    ((2, 3, 9, 11), (3, 1, 3, 3), dict(padding=1)),
    ((2, 3, 9, 70), (3, 1, 3, 3), dict(padding=1)),                   # 2 blocks of 4 vectors + a tail
    ((1, 4, 8, 40), (4, 1, 3, 3), dict()),                            # padding 0
    ((2, 3, 10, 37), (3, 1, 3, 3), dict(padding=2)),
    ((2, 3, 13, 35), (3, 1, 3, 3), dict(stride=2, padding=1)),
    ((2, 3, 12, 41), (3, 1, 3, 3), dict(dilation=2, padding=2)),
    ((2, 3, 12, 41), (3, 1, 3, 3), dict(dilation=2)),
    ((2, 3, 9, 10), (6, 1, 3, 3), dict(padding=1)),                   # channel multiplier 2
    ((2, 2, 11, 19), (6, 1, 3, 3), dict(stride=2, padding=1)),        # multiplier 3, strided
    ((2, 3, 17, 23), (3, 1, 5, 5), dict(padding=2, stride=(2, 1), dilation=(1, 2))),
    ((2, 3, 9, 12), (3, 1, 2, 4), dict(stride=(1, 3))),               # even kernel, stride 3 along W
    ((2, 3, 9, 12), (3, 1, 7, 1), dict(padding=(3, 0))),
    ((2, 3, 6, 7), (3, 1, 1, 1), dict()),
    ((2, 3, 7, 9), (3, 1, 3, 3), dict(padding=3)),                    # padding > d * (k - 1)
    ((2, 3, 7, 9), (3, 1, 3, 3), dict(padding=(0, 3), stride=(1, 2))),
    ((3, 1, 8, 8), (4, 1, 3, 3), dict(padding=1)),                    # one input channel (groups 1)
]

CASES_1D = [
    ((2, 4, 50), (4, 1, 3), dict(padding=1)),
    ((2, 4, 50), (8, 1, 5), dict(padding=2)),                         # multiplier 2
    ((2, 4, 33), (4, 1, 7), dict(stride=2, padding=4)),
    ((2, 4, 33), (4, 1, 3), dict(dilation=3, padding=1)),
    ((1, 3, 9), (3, 1, 3), dict(padding=3)),
]

CASES = [(2, *c) for c in CASES_2D] + [(1, *c) for c in CASES_1D]


def run_both(dims, ishape, wshape, kw, dtype, with_bias=True, seed=0):
    """Forward and every gradient of both libraries; returns ((torch results), (torchlite results))."""
    x, w, b = rnd(*ishape, dtype=dtype, seed=seed), rnd(*wshape, dtype=dtype, seed=seed + 1), \
        rnd(wshape[0], dtype=dtype, seed=seed + 2)
    groups = ishape[-dims - 1]
    results = []
    for lib in (torch, tl):
        xs, ws, bs = ((t.clone() if lib is torch else from_torch(t)).requires_grad_() for t in (x, w, b))
        out = conv(lib, dims)(xs, ws, bs if with_bias else None, groups=groups, **kw)
        g = rnd(*out.shape, dtype=dtype, seed=seed + 3)
        go = g if lib is torch else from_torch(g)
        grads = lib.autograd.grad(out, [xs, ws, bs] if with_bias else [xs, ws], go)
        results.append((out, *grads))
    return results


@pytest.mark.parametrize("case", CASES, ids=str)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_depthwise_against_torch(case, dtype):
    expected, got = run_both(*case, dtype)
    tol = dict(atol=1e-5, rtol=1e-5) if dtype == torch.float32 else {}
    for a, e in zip(got, expected):
        assert_same(a.detach(), e.detach(), **tol)


@pytest.mark.parametrize("case", [CASES[0], CASES[4], CASES[8], CASES[-3]], ids=str)
def test_depthwise_without_bias(case):
    expected, got = run_both(*case, torch.float64, with_bias=False)
    for a, e in zip(got, expected):
        assert_same(a.detach(), e.detach())


def test_depthwise_float32_accuracy_large_planes():
    # The benchmark's geometry on fewer images: float32 results against PyTorch in float64.
    x, w, b = rnd(4, 16, 56, 56), rnd(16, 1, 3, 3, seed=1), rnd(16, seed=2)
    lx, lw, lb = (from_torch(t.float()).requires_grad_() for t in (x, w, b))
    out = TF.conv2d(lx, lw, lb, padding=1, groups=16)
    ref = F.conv2d(x, w, b, padding=1, groups=16)
    assert_same(out.detach(), ref.float(), atol=1e-5, rtol=1e-5)
    g = rnd(*ref.shape, seed=3)
    gx, gw, gb = torch.ops.aten.convolution_backward(g, x, w, [16], [1, 1], [1, 1], [1, 1], False, [0, 0], 16,
                                                     [True, True, True])
    lgx, lgw, lgb = tl.autograd.grad(out, [lx, lw, lb], from_torch(g.float()))
    assert_same(lgx, gx.float(), atol=1e-5, rtol=1e-5)
    # Each tap's gradient sums 4 * 56 * 56 products: within a few float32 ulps of the exact sum's scale.
    assert_same(lgw, gw.float(), atol=1e-5 * float(gw.abs().max()), rtol=1e-5)
    assert_same(lgb, gb.float(), atol=1e-4, rtol=1e-6)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_depthwise_reduced_precision(dtype):
    # Computed in float32 and rounded once, as PyTorch's CPU kernels: compare with float64 rounded.
    x, w, b = rnd(2, 4, 9, 13), rnd(8, 1, 3, 3, seed=1), rnd(8, seed=2)
    lx, lw, lb = (from_torch(t.to(dtype)).requires_grad_() for t in (x, w, b))
    xr, wr, br = (t.to(dtype).double() for t in (x, w, b))
    out = TF.conv2d(lx, lw, lb, padding=1, groups=4)
    ref = F.conv2d(xr, wr, br, padding=1, groups=4)
    assert_same(out.detach(), ref.to(dtype), atol=2e-2, rtol=2e-2)
    g = rnd(*ref.shape, seed=3).to(dtype)
    gx, gw, _ = torch.ops.aten.convolution_backward(g.double(), xr, wr, [8], [1, 1], [1, 1], [1, 1], False, [0, 0], 4,
                                                    [True, True, True])
    lgx, lgw = tl.autograd.grad(out, [lx, lw], from_torch(g))
    assert lgx.dtype == lx.dtype and lgw.dtype == lw.dtype
    assert_same(lgx, gx.to(dtype), atol=5e-2, rtol=2e-2)
    assert_same(lgw, gw.to(dtype), atol=1e-1, rtol=2e-2)


def test_depthwise_batch_one_unbatched_and_empty():
    w, b = rnd(6, 1, 3, 3, seed=1), rnd(6, seed=2)
    for x in (rnd(1, 3, 8, 9), rnd(3, 8, 9)):                     # batch 1, unbatched
        assert_same(TF.conv2d(from_torch(x), from_torch(w), from_torch(b), padding=1, groups=3),
                    F.conv2d(x, w, b, padding=1, groups=3))
    x1 = rnd(3, 20)                                               # unbatched 1-d
    w1 = rnd(3, 1, 3, seed=1)
    assert_same(TF.conv1d(from_torch(x1), from_torch(w1), stride=2, groups=3), F.conv1d(x1, w1, stride=2, groups=3))
    # Empty batch: an empty output, zero weight and bias gradients.
    lx = from_torch(rnd(0, 3, 8, 9)).requires_grad_()
    lw, lb = from_torch(w).requires_grad_(), from_torch(b).requires_grad_()
    out = TF.conv2d(lx, lw, lb, padding=1, groups=3)
    assert tuple(out.shape) == (0, 6, 8, 9)
    out.sum().backward()
    assert lx.grad.shape == (0, 3, 8, 9)
    assert float(lw.grad.abs().sum()) == 0.0 and float(lb.grad.abs().sum()) == 0.0


def test_depthwise_noncontiguous():
    base1, base2 = rnd(2, 9, 11, 4), rnd(2, 8, 9, 23)
    w = rnd(8, 1, 3, 3, seed=1)
    views = [
        (base1.permute(0, 3, 1, 2), from_torch(base1).permute(0, 3, 1, 2)),             # channels last
        (base2[:, ::2, :, 1::2], from_torch(base2)[:, ::2, :, 1::2]),                   # every other channel, column
    ]
    lw = from_torch(w.transpose(2, 3).contiguous()).transpose(2, 3)                    # a transposed weight
    for xt, lx in views:
        assert not lx.is_contiguous() and not lw.is_contiguous()
        assert_same(TF.conv2d(lx, lw, padding=1, groups=4, stride=(1, 2)),
                    F.conv2d(xt, w, padding=1, groups=4, stride=(1, 2)))


def test_depthwise_inf_outside_a_taps_reach():
    # With padding 0, tap kw = 0 never reads the last column: an inf there must not reach that tap's
    # weight gradient (the partial last vector reads only the row's columns), as in PyTorch.
    x = rnd(1, 2, 5, 13)
    x[:, :, :, -1] = math.inf
    w = rnd(2, 1, 3, 3, seed=1)
    g = rnd(1, 2, 3, 11, seed=2)
    expected = torch.ops.aten.convolution_backward(g, x, w, [2], [1, 1], [0, 0], [1, 1], False, [0, 0], 2,
                                                   [True, True, True])
    got = tl._C._internal.convolution_backward(from_torch(g), from_torch(x), from_torch(w), [2], [1, 1], [0, 0],
                                               [1, 1], False, [0, 0], 2, [True, True, True])
    assert torch.isfinite(expected[1][:, :, :, 0]).all()
    for a, e in zip(got, expected):
        assert_same(a, e)
    out = TF.conv2d(from_torch(x), from_torch(w), groups=2)
    assert_same(out, F.conv2d(x, w, groups=2))


@pytest.mark.parametrize("case", [CASES[0], CASES[4], CASES[9], CASES[-3]], ids=str)
def test_depthwise_same_bits_for_any_thread_count(case):
    before = tl.get_num_threads()
    runs = []
    try:
        for threads in (1, 2):
            tl.set_num_threads(threads)
            runs.append(run_both(*case, torch.float32)[1])
    finally:
        tl.set_num_threads(before)
    for a, b in zip(*runs):
        assert torch.equal(torch.from_numpy(a.detach().numpy()), torch.from_numpy(b.detach().numpy()))


@pytest.mark.parametrize("case", [
    (2, (2, 2, 5, 6), (4, 1, 3, 3), dict(padding=1, groups=2)),
    (2, (1, 2, 7, 7), (2, 1, 3, 2), dict(stride=2, dilation=(2, 1), padding=1, groups=2)),
    (1, (2, 3, 9), (3, 1, 3), dict(padding=2, groups=3)),
], ids=str)
def test_depthwise_gradcheck_float64(case):
    dims, ishape, wshape, kw = case
    x, w, b = (from_torch(t).requires_grad_() for t in (rnd(*ishape), rnd(*wshape, seed=1), rnd(wshape[0], seed=2)))
    fn = lambda a, c, d: conv(tl, dims)(a, c, d, **kw)  # noqa: E731
    assert tl.autograd.gradcheck(fn, (x, w, b))
    assert tl.autograd.gradgradcheck(fn, (x, w, b))


def test_depthwise_double_backward_against_torch():
    x, w, b = rnd(2, 3, 8, 9), rnd(6, 1, 3, 3, seed=1), rnd(6, seed=2)
    results = []
    for lib in (torch, tl):
        xs, ws, bs = ((t.clone() if lib is torch else from_torch(t)).requires_grad_() for t in (x, w, b))
        out = conv(lib, 2)(xs, ws, bs, padding=1, stride=(1, 2), groups=3)
        gx, gw = lib.autograd.grad((out * out).sum(), [xs, ws], create_graph=True)
        total = (gx * gx).sum() + gw.sin().sum()
        results.append(lib.autograd.grad(total, [xs, ws, bs]))
    for a, e in zip(results[1], results[0]):
        assert_same(a, e)
