"""The fast paths of issue 11's speed work, against PyTorch: the cases their loops split on.

- batch_norm on 2-d inputs (ColumnStats.h: row groups, L2-sized sub-chunks merged with Chan's formula,
  column blocks of 2048): rows fewer/more than the groups and sub-chunks, channels not a multiple of the
  vector width and above one column block, N == 1, constant and far-from-zero channels, float64 and
  float16/bfloat16, strided inputs; forward, running statistics and gradients.
"""
from __future__ import annotations

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


def _tol(dtype):
    return {torch.float64: (1e-10, 1e-10), torch.float32: (2e-5, 2e-5)}.get(dtype, (None, None))


# ---------------------------------------------------------------- batch_norm, 2-d input

BN2D_SHAPES = [(1, 5), (2, 3), (3, 17), (16, 33), (17, 1024), (700, 129), (4096, 64), (40, 2500)]


@pytest.mark.parametrize("shape", BN2D_SHAPES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_batch_norm_2d_training_like_torch(shape, dtype):
    t = _randn(shape, 1, dtype, scale=3.0, shift=0.5)
    N, C = shape
    pdtype = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    tw, tb = _randn((C,), 2, pdtype), _randn((C,), 3, pdtype)
    trm, trv = torch.zeros(C, dtype=pdtype), torch.ones(C, dtype=pdtype)
    rm, rv = from_torch(trm.clone()), from_torch(trv.clone())
    atol, rtol = _tol(dtype)
    if N == 1:  # PyTorch refuses one value per channel in training (F.batch_norm's check)
        with pytest.raises(ValueError):
            TF.batch_norm(from_torch(t), rm, rv, from_torch(tw), from_torch(tb), training=True)
        out = tl.native_batch_norm(from_torch(t), from_torch(tw), from_torch(tb), rm, rv, True, 0.1, 1e-5)
        expected = torch.native_batch_norm(t, tw, tb, trm, trv, True, 0.1, 1e-5)
    else:
        out = [TF.batch_norm(from_torch(t), rm, rv, from_torch(tw), from_torch(tb), training=True, momentum=0.3)]
        expected = [F.batch_norm(t, trm, trv, tw, tb, training=True, momentum=0.3)]
    for o, e in zip(out, expected):
        assert_same(o, e, atol=atol, rtol=rtol)
    assert_same(rm, trm, atol=atol, rtol=rtol)
    assert_same(rv, trv, atol=atol, rtol=rtol)


@pytest.mark.parametrize("shift,scale", [(0.0, 1.0), (100.0, 1.0), (1e4, 1.0), (1e3, 1e-2)])
def test_batch_norm_2d_as_accurate_as_torch(shift, scale):
    # Channels far from zero with a small spread: the one-pass moments must not cancel. Both float32
    # results against float64's on the same (float32) values; ours may not be worse than PyTorch's.
    t = _randn((3000, 40), 4, torch.float32, scale=scale, shift=shift)
    ref = F.batch_norm(t.double(), None, None, training=True)
    err_torch = (F.batch_norm(t, None, None, training=True) - ref).abs().max().item()
    err_ours = (to_torch(TF.batch_norm(from_torch(t), None, None, training=True)) - ref).abs().max().item()
    assert err_ours <= max(2 * err_torch, 1e-5), (err_ours, err_torch)


def test_batch_norm_2d_constant_channels():
    # A constant channel: mean exactly its value, variance 0, so the output is exactly the bias.
    N, C = 3000, 40
    t = _randn((N, C), 4)
    t[:, 3] = 7.25
    t[:, 5] = -1e6
    tb = _randn((C,), 5)
    out = to_torch(TF.batch_norm(from_torch(t), None, None, None, from_torch(tb), training=True))
    assert torch.equal(out[:, 3], tb[3].expand(N))
    assert torch.equal(out[:, 5], tb[5].expand(N))
    _, mean, invstd = tl.native_batch_norm(from_torch(t), None, None, None, None, True, 0.1, 0.0)
    assert to_torch(mean)[3] == 7.25 and to_torch(mean)[5] == -1e6
    assert to_torch(invstd)[3] == 0 and to_torch(invstd)[5] == 0


@pytest.mark.parametrize("kind", ["transposed", "sliced"])
def test_batch_norm_2d_strided_input(kind):
    t = _randn((300, 70), 6)
    base = t.t().contiguous().t() if kind == "transposed" else torch.zeros(300, 140)
    if kind == "sliced":
        base[:, ::2] = t
        x = from_torch(base)[:, ::2]
    else:
        x = from_torch(t.t().contiguous()).t()
    assert_same(TF.batch_norm(x, None, None, training=True), F.batch_norm(t, None, None, training=True),
                atol=2e-5, rtol=2e-5)


@pytest.mark.parametrize("shape", [(2, 3), (17, 1024), (700, 129), (40, 2500)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_batch_norm_2d_gradients_like_torch(shape, dtype):
    t, tg = _randn(shape, 7, dtype, scale=2.0), _randn(shape, 8, dtype)
    tw, tb = _randn((shape[1],), 9, dtype), _randn((shape[1],), 10, dtype)
    x, w, b, g = from_torch(t), from_torch(tw), from_torch(tb), from_torch(tg)
    for a in (t, tw, tb, x, w, b):
        a.requires_grad_()
    ours = tl.autograd.grad(TF.batch_norm(x, None, None, w, b, training=True), [x, w, b], g)
    theirs = torch.autograd.grad(F.batch_norm(t, None, None, tw, tb, training=True), [t, tw, tb], tg)
    atol, rtol = (1e-4, 1e-4) if dtype == torch.float32 else (1e-10, 1e-10)
    for o, e in zip(ours, theirs):
        assert_same(o, e, atol=atol, rtol=rtol)


# ---------------------------------------------------------------- softmax / log_softmax (float exp lanes)

@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape,dim", [((64, 1024), -1), ((3, 1037), 1), ((5, 17), -1), ((1, 1), 0), ((40, 70, 3), 1),
                                       ((300, 20), 0)])
def test_softmax_float32_close_to_float64(op, shape, dim):
    # The float exp of the kernels (ExpFloatLanes.h) is within 2 ulp: results stay within a few ulp of the
    # float64 result, as PyTorch's (whose exp is a 20-ulp one).
    t = _randn(shape, 11, scale=8.0)
    ours = to_torch(getattr(TF, op)(from_torch(t), dim))
    ref = getattr(F, op)(t.double(), dim)
    theirs = getattr(F, op)(t, dim)
    err = lambda r: ((r.double() - ref).abs() / ref.abs().clamp_min(1e-30)).max().item()  # noqa: E731
    if op == "softmax":
        assert err(ours) <= 1.1 * err(theirs) + 4e-7, (err(ours), err(theirs))
    assert_same(ours, theirs, atol=2e-6, rtol=2e-6)


def test_exp_float_lanes_over_the_float_range():
    # softmax of [x, 0] = 1 / (1 + exp(-x)): exercises exp over the range the kernel clamps, subnormal
    # results, overflow to 0 weight, -inf (exactly 0) and NaN.
    xs = torch.linspace(-110, 110, 20001)
    t = torch.stack([xs, torch.zeros_like(xs)], 1)
    assert_same(TF.softmax(from_torch(t), 1), F.softmax(t.double(), 1).float(), atol=3e-45, rtol=4e-7)
    special = torch.tensor([[0.0, float("-inf"), 1.0], [float("-inf"), float("-inf"), 2.0],
                            [float("nan"), 0.0, 1.0], [float("inf"), 0.0, 1.0], [-103.5, 0.0, -87.0]])
    for op in ("softmax", "log_softmax"):
        assert_same(getattr(TF, op)(from_torch(special), 1), getattr(F, op)(special, 1), atol=1e-45, rtol=4e-7)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64])
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_other_dtypes_and_gradients(dtype, op):
    t = _randn((33, 1029), 12, dtype, scale=4.0)
    assert_same(getattr(TF, op)(from_torch(t), -1), getattr(F, op)(t, -1), *((1e-12, 1e-12) if dtype == torch.float64 else ()))
    t32, g = _randn((33, 1029), 13, scale=4.0), _randn((33, 1029), 14)
    x = from_torch(t32).requires_grad_()
    tx = t32.clone().requires_grad_()
    getattr(TF, op)(x, -1).backward(from_torch(g))
    getattr(F, op)(tx, -1).backward(g)
    # log_softmax's gradient g - exp(y) * sum(g) cancels where exp(y) ~ 1: a float32 sum of 1029 terms rounded in
    # another order moves such an element by ~1e-5 (PyTorch's order differs between CPUs). So: close to PyTorch, and
    # no further from the float64 gradient than PyTorch's own result is (plus one float32 rounding of the sum).
    t64 = t32.double().requires_grad_()
    getattr(F, op)(t64, -1).backward(g.double())
    ours = torch.from_numpy(x.grad.numpy()).double()
    ours_err, torch_err = (ours - t64.grad).abs(), (tx.grad.double() - t64.grad).abs()
    sum_rounding = 2.0 ** -24 * g.abs().sum(-1, keepdim=True).double()
    assert bool((ours_err <= torch_err + sum_rounding).all()), (ours_err - torch_err - sum_rounding).max()
    assert_same(x.grad, tx.grad, atol=1e-5, rtol=2e-5)


# ---------------------------------------------------------------- adaptive average pooling

ADAPTIVE_CASES = [((2, 3, 56, 56), (7, 7)), ((1, 2, 10, 13), (7, 5)), ((2, 5, 3), (5, 4)), ((3, 1, 9), (1, 4)),
                  ((2, 3, 1, 17), (1, 3)), ((2, 2, 33, 1), (4, 1)), ((1, 3, 7, 7), (7, 7)), ((2, 4, 6, 6), (1, 1))]


@pytest.mark.parametrize("shape,out", ADAPTIVE_CASES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_adaptive_avg_pool2d_forward_backward_like_torch(shape, out, dtype):
    t, tg = _randn(shape, 15, dtype), None
    ours = tl._adaptive_avg_pool2d(from_torch(t), list(out))
    theirs = torch._adaptive_avg_pool2d(t, out)
    atol, rtol = _tol(dtype)
    assert_same(ours, theirs, atol=atol, rtol=rtol)
    tg = _randn(tuple(theirs.shape), 16, dtype)
    gi = tl._C._internal._adaptive_avg_pool2d_backward(from_torch(tg), from_torch(t))
    assert_same(gi, torch.ops.aten._adaptive_avg_pool2d_backward(tg, t), atol=atol, rtol=rtol)


@pytest.mark.parametrize("shape,out", [((2, 3, 8, 9, 10), (3, 3, 4)), ((1, 2, 4, 1, 6), (3, 1, 2))])
def test_adaptive_avg_pool3d_like_torch(shape, out):
    t = _randn(shape, 17)
    x = from_torch(t).requires_grad_()
    tx = t.clone().requires_grad_()
    y, ty = TF.adaptive_avg_pool3d(x, out), F.adaptive_avg_pool3d(tx, out)
    assert_same(y.detach(), ty.detach(), atol=2e-6, rtol=2e-6)
    g = _randn(tuple(ty.shape), 18)
    y.backward(from_torch(g))
    ty.backward(g)
    assert_same(x.grad, tx.grad, atol=2e-6, rtol=2e-6)


def test_adaptive_avg_pool2d_strided_input():
    t = _randn((2, 3, 20, 24), 19)
    x = from_torch(t.permute(0, 1, 3, 2).contiguous()).permute(0, 1, 3, 2)
    assert_same(TF.adaptive_avg_pool2d(x, (7, 5)), F.adaptive_avg_pool2d(t, (7, 5)), atol=2e-6, rtol=2e-6)


# ---------------------------------------------------------------- bilinear interpolation (row buffers)

@pytest.mark.parametrize("size,kw", [((2, 3, 7, 9), dict(scale_factor=2)), ((1, 2, 5, 33), dict(size=(11, 17))),
                                     ((2, 1, 9, 8), dict(size=(4, 3))), ((1, 1, 1, 5), dict(size=(3, 7))),
                                     ((1, 2, 6, 1), dict(size=(13, 2))), ((2, 2, 10, 10), dict(scale_factor=1.7))])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
def test_bilinear_forward_like_torch(size, kw, align_corners, dtype):
    t = _randn(size, 20, dtype)
    ours = TF.interpolate(from_torch(t), mode="bilinear", align_corners=align_corners, **kw)
    theirs = F.interpolate(t, mode="bilinear", align_corners=align_corners, **kw)
    atol, rtol = {torch.float32: (1e-6, 1e-6), torch.float64: (1e-14, 1e-14)}.get(dtype, (None, None))
    assert_same(ours, theirs, atol=atol, rtol=rtol)


def test_bilinear_strided_input_and_gradient():
    t = _randn((2, 3, 12, 10), 21)
    x = from_torch(t.transpose(2, 3).contiguous()).transpose(2, 3)
    assert_same(TF.interpolate(x, scale_factor=2, mode="bilinear"), F.interpolate(t, scale_factor=2, mode="bilinear"),
                atol=1e-6, rtol=1e-6)
    x = from_torch(t).requires_grad_()
    tx = t.clone().requires_grad_()
    g = _randn((2, 3, 24, 20), 22)
    TF.interpolate(x, scale_factor=2, mode="bilinear").backward(from_torch(g))
    F.interpolate(tx, scale_factor=2, mode="bilinear").backward(g)
    assert_same(x.grad, tx.grad, atol=1e-5, rtol=1e-5)


# ---------------------------------------------------------------- max_pool2d backward (planes zeroed in parallel)

@pytest.mark.parametrize("shape", [(4, 8, 13, 11), (3, 9, 9), (1, 1, 2, 2)])
def test_max_pool2d_backward_like_torch(shape):
    t = _randn(shape, 23)
    x = from_torch(t).requires_grad_()
    tx = t.clone().requires_grad_()
    y, ty = TF.max_pool2d(x, 3, 2, 1), F.max_pool2d(tx, 3, 2, 1)
    g = _randn(tuple(ty.shape), 24)
    y.backward(from_torch(g))
    ty.backward(g)
    assert_same(x.grad, tx.grad, atol=1e-6, rtol=1e-6)


# ---------------------------------------------------------------- rms_norm (fused forward when autograd records nothing)

@pytest.mark.parametrize("shape,nd", [((64, 1024), 1), ((3, 5, 7), 2), ((4, 17), 1), ((1, 1), 1), ((0, 8), 1),
                                      ((2, 0), 1), ((6,), 1)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("with_weight", [False, True])
def test_rms_norm_fused_forward_like_torch(shape, nd, dtype, with_weight):
    t = _randn(shape, 25, dtype, scale=3.0)
    ns = list(shape[len(shape) - nd:])
    tw = _randn(tuple(ns), 26, dtype) if with_weight else None
    ours = TF.rms_norm(from_torch(t), ns, from_torch(tw) if with_weight else None)
    theirs = F.rms_norm(t, ns, tw)
    atol, rtol = {torch.float32: (1e-6, 2e-6), torch.float64: (1e-14, 1e-14)}.get(dtype, (None, None))
    assert_same(ours, theirs, atol=atol, rtol=rtol)
    # The recorded (composite) path gives the same values.
    x = from_torch(t).requires_grad_()
    assert_same(TF.rms_norm(x, ns, from_torch(tw) if with_weight else None).detach(), theirs, atol=atol, rtol=rtol)


def test_rms_norm_fused_forward_strided_eps_mixed_weight_and_zero_rows():
    t = _randn((40, 30), 27)
    t[3] = 0.0
    x = from_torch(t.t().contiguous()).t()
    assert_same(TF.rms_norm(x, [30], eps=0.5), F.rms_norm(t, [30], eps=0.5), atol=1e-6, rtol=2e-6)
    # eps 0 and a zero row: 0 * inf = NaN, as the composite
    assert_same(TF.rms_norm(from_torch(t), [30], eps=0.0), F.rms_norm(t, [30], eps=0.0), atol=1e-6, rtol=2e-6)
    # a float64 weight on a float32 input takes the composite (promotion), the same values as PyTorch
    tw = _randn((30,), 28, torch.float64)
    assert_same(TF.rms_norm(from_torch(t), [30], from_torch(tw)), F.rms_norm(t, [30], tw), atol=1e-6, rtol=2e-6)
    tw16 = _randn((30,), 29, torch.float16)
    assert_same(TF.rms_norm(from_torch(t), [30], from_torch(tw16)), F.rms_norm(t, [30], tw16), atol=1e-6, rtol=2e-6)
    with tl.no_grad():
        xw = from_torch(t).requires_grad_()
        assert_same(TF.rms_norm(xw, [30]), F.rms_norm(t, [30]), atol=1e-6, rtol=2e-6)


# ---------------------------------------------------------------- layer_norm backward (dx and parameter grads in one pass)

@pytest.mark.parametrize("shape", [(4096, 64), (37, 1029), (3, 5), (1, 1)])
@pytest.mark.parametrize("mask", [(True, True, True), (False, True, True), (True, True, False), (True, False, False)])
def test_layer_norm_backward_masks_like_torch(shape, mask):
    t, tg = _randn(shape, 30, scale=2.0), _randn(shape, 31)
    tw, tb = _randn(shape[-1:], 32), _randn(shape[-1:], 33)
    _, tm, ts = torch.native_layer_norm(t, shape[-1:], tw, tb, 1e-5)
    ours = tl._C._internal.native_layer_norm_backward(from_torch(tg), from_torch(t), list(shape[-1:]), from_torch(tm),
                                                      from_torch(ts), from_torch(tw), from_torch(tb), list(mask))
    theirs = torch.ops.aten.native_layer_norm_backward(tg, t, shape[-1:], tm, ts, tw, tb, list(mask))
    for o, e, m in zip(ours, theirs, mask):
        if m:
            assert_same(o, e, atol=1e-4, rtol=1e-4)
        else:
            assert o is None and e is None


@pytest.mark.parametrize("column", [[1.0, float("inf"), 3.0], [float("-inf"), 1.0, 2.0], [float("inf"), float("-inf"), 1.0],
                                    [float("nan"), 1.0, 2.0], [1e38, 3e38, -3e38], [2.0, 1.0, 0.5]])
def test_batch_norm_2d_running_stats_of_non_finite_columns(column):
    """An infinite column's mean is inf as PyTorch's (sum / N), not the NaN that the one-pass deviations give."""
    x = np.stack([np.array(column, dtype=np.float32), np.arange(3, dtype=np.float32)], axis=1)
    got = []
    for lib in (tl, torch):
        rm, rv = lib.zeros(2), lib.ones(2)
        y = lib.nn.functional.batch_norm(lib.tensor(x), rm, rv, training=True)
        got.append([y.numpy(), rm.numpy(), rv.numpy()])
    for a, b in zip(*got):
        np.testing.assert_allclose(a, b, rtol=1e-6, equal_nan=True)
