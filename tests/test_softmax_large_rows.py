"""The float32 softmax rows on large tensors (SoftmaxRowsAvx512.cpp, SoftmaxKernels.cpp), against PyTorch.

- softmax / log_softmax forward on contiguous rows (looped by SoftmaxKernels.cpp itself, not the dim engine):
  rows of odd length (starting off the 64-byte grid), long rows, out= (also into the input itself), special
  values, the same bits on one thread and two;
- the backward ops on contiguous rows (gI streamed past the L3, one fence per thread's block of rows) and on
  strided ones (the dim engine's buffers), through autograd with .grad None;
- the forward's exp (no upper clamp, the degree-4 minimax P): exact to 1 ulp where softmax returns it unrounded;
- the backward over a dim that is not the last (blocks of 16 columns row by row), every floating dtype.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch, to_torch


def _randn(shape, seed=0, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale).float()


# 1029: rows start off the 64-byte grid; 4100: rows longer than a page.
LARGE = [(4096, 1024), (4099, 1029), (1100, 4100)]
OPS = ["softmax", "log_softmax"]


@pytest.mark.parametrize("shape", LARGE)
@pytest.mark.parametrize("op", OPS)
def test_large_forward_like_torch(shape, op):
    t = _randn(shape, shape[1], scale=5.0)
    assert_same(getattr(TF, op)(from_torch(t), -1), getattr(F, op)(t, -1), atol=2e-6, rtol=2e-6)


@pytest.mark.parametrize("op", OPS)
def test_large_forward_out_and_into_input(op):
    t = _randn((4099, 1029), 1, scale=4.0)
    ref = getattr(torch, op)(t, 1)
    out = tl.empty(4099, 1029)
    assert getattr(tl, op)(from_torch(t), 1, out=out) is out
    assert_same(out, ref, atol=2e-6, rtol=2e-6)
    x = from_torch(t.clone())
    getattr(tl, op)(x, 1, out=x)  # y is x: each row is read before it is written
    assert_same(x, ref, atol=2e-6, rtol=2e-6)
    assert torch.equal(to_torch(x), to_torch(out))


@pytest.mark.parametrize("op", OPS)
def test_large_forward_special_rows_like_torch(op):
    t = _randn((4099, 1029), 2, scale=3.0)
    inf, nan = float("inf"), float("nan")
    t[0, :] = -inf          # all -inf: NaN
    t[1, 1028] = nan        # NaN in the masked tail
    t[2, 0] = inf           # +inf: NaN
    t[3, ::3] = -inf        # some -inf: weight 0
    t[4, 5] = 3e38          # huge: every other exp 0
    t[5, :] = -1e30         # all equal, huge negative
    t[6, :] = torch.linspace(-300, 0, 1029)  # exps down through the subnormals to 0
    ours = getattr(TF, op)(from_torch(t), 1)
    if op == "softmax":
        assert_same(ours, getattr(F, op)(t, 1), atol=1e-45, rtol=2e-6)
        return
    # log_softmax = (x - max) - log_sum: where both terms are near 16 (rows of scale 3) one rounding of log_sum is
    # 1.9e-6, and PyTorch's and torchlite's sums of exps may round apart (AVX2 hosts: one element off by 4.5e-7
    # on main's slice loops and on the vector rows alike). So: within one such ulp of PyTorch, and at least as
    # close to the float64 result as PyTorch's.
    theirs = F.log_softmax(t, 1)
    assert_same(ours, theirs, atol=2e-6, rtol=2e-6)
    ref = F.log_softmax(t.double(), 1)
    finite = torch.isfinite(ref)
    err = lambda r: (r.double() - ref)[finite].abs().max().item()  # noqa: E731
    assert err(to_torch(ours)) <= 1.1 * err(theirs) + 2.4e-7, (err(to_torch(ours)), err(theirs))


def test_large_rows_same_bits_on_one_and_two_threads():
    old = tl.get_num_threads()
    res = []
    try:
        for n in (1, 2):
            tl.set_num_threads(n)
            out = []
            for shape in ((4099, 1029), (1100, 4100)):
                t, g = _randn(shape, shape[1], scale=5.0), _randn(shape, 8)
                for op in OPS:
                    x = from_torch(t).requires_grad_()
                    y = getattr(TF, op)(x, -1)
                    y.backward(from_torch(g))
                    out += [to_torch(y.detach()), to_torch(x.grad)]
            res.append(out)
    finally:
        tl.set_num_threads(old)
    for a, b in zip(*res):
        assert torch.equal(a, b)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("shape", [(4096, 1024), (2051, 1029)])
def test_large_backward_through_autograd_like_torch(op, shape):
    t, g = _randn(shape, 3, scale=3.0), _randn(shape, 4)
    x, tx = from_torch(t).requires_grad_(), t.clone().requires_grad_()
    y, ty = getattr(TF, op)(x, -1), getattr(F, op)(tx, -1)
    for _ in range(2):  # .grad None before each call, as after zero_grad(): the computed gradient becomes .grad
        x.grad, tx.grad = None, None
        y.backward(from_torch(g), retain_graph=True)
        ty.backward(g, retain_graph=True)
        # sums of ~1000 gradients (|sum| ~ 30) in another order: absolute differences of a few 1e-6
        assert_same(x.grad, tx.grad, atol=2e-5, rtol=1e-5)


@pytest.mark.parametrize("name", ["_softmax_backward_data", "_log_softmax_backward_data"])
def test_large_backward_ops_strided_operands_like_torch(name):
    # A transposed gradient or output: not contiguous rows, so the dim engine's buffers (plain stores).
    y = torch.softmax(_randn((1029, 2100), 5, scale=3.0), 1)
    yy = y if name == "_softmax_backward_data" else y.log()
    g = _randn((2100, 1029), 6).t()
    ours = getattr(tl, name)(from_torch(g), from_torch(yy), 1, tl.float32)
    theirs = getattr(torch.ops.aten, name)(g, yy, 1, torch.float32)
    assert_same(ours, theirs, atol=2e-5, rtol=1e-5)
    yt = from_torch(yy.t().contiguous()).t()
    ours = getattr(tl, name)(from_torch(g.contiguous()), yt, 1, tl.float32)
    assert_same(ours, theirs, atol=2e-5, rtol=1e-5)


@pytest.mark.parametrize("op", OPS)
def test_large_other_dims_and_float64(op):
    t = _randn((1029, 2100), 7, scale=3.0)
    for dim in (0, -2):
        assert_same(getattr(TF, op)(from_torch(t), dim), getattr(F, op)(t, dim), atol=2e-6, rtol=2e-6)
    d = t.double()
    assert_same(getattr(TF, op)(from_torch(d), -1), getattr(F, op)(d, -1), atol=1e-14, rtol=1e-14)


def _ulps(a, b):
    return (a.view(torch.int32).long() - b.view(torch.int32).long()).abs()


def test_forward_exp_within_one_ulp():
    # softmax([0, v]) with v <= -17.4: the sum 1 + exp(v) rounds to 1, so y[1] is the row kernel's exp(v) itself.
    lo, hi = np.float32(-103.9).view(np.int32), np.float32(-17.4).view(np.int32)
    v = torch.from_numpy(np.arange(hi, lo, 97, dtype=np.int32).view(np.float32).copy())
    rows = torch.stack([torch.zeros_like(v), v], 1)
    got = to_torch(TF.softmax(from_torch(rows), 1))[:, 1]
    ref = torch.exp(v.double()).float()
    normal = ref >= torch.finfo(torch.float32).tiny
    assert normal.sum() > 100000
    assert _ulps(got[normal], ref[normal]).max().item() <= 1
    assert ((got[~normal].double() - torch.exp(v[~normal].double())).abs() <= 1.5e-45).all()
    # above -17.4 the sum rounds too: within a few ulp of float64's softmax
    w = torch.linspace(-17.4, 0, 100001)
    rows = torch.stack([torch.zeros_like(w), w], 1)
    got = to_torch(TF.softmax(from_torch(rows), 1)).double()
    ref = torch.softmax(rows.double(), 1)
    assert ((got - ref).abs() / ref).max().item() < 4 * 2.0 ** -24


# ---------------------------------------------------------------- the backward over a dim that is not the last

@pytest.mark.parametrize("name", ["_softmax_backward_data", "_log_softmax_backward_data"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("shape,dim", [((40, 17), 0), ((7, 33, 16), 1), ((3, 9, 5, 7), 1), ((6, 5, 40), -2),
                                       ((1, 300, 70), 1), ((2, 1, 18), 1)])
def test_backward_ops_over_other_dims_like_torch(name, dtype, shape, dim):
    # contiguous operands and >= 16 elements after dim: blocks of 16 columns (the last one partial) row by row
    y = torch.softmax(_randn(shape, 9, scale=3.0).double(), dim)
    yy = (y if name == "_softmax_backward_data" else y.log()).to(dtype)
    g = _randn(shape, 10).to(dtype)
    ours = getattr(tl, name)(from_torch(g), from_torch(yy), dim, getattr(tl, str(dtype).split(".")[-1]))
    theirs = getattr(torch.ops.aten, name)(g, yy, dim, dtype)
    tol = {torch.float32: (1e-5, 1e-5), torch.float64: (1e-12, 1e-12)}.get(dtype, (None, None))
    assert_same(ours, theirs, *tol)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_backward_over_dim_0_through_autograd_like_torch(op, dtype):
    t, g = _randn((1029, 2100), 11, scale=3.0).to(dtype), _randn((1029, 2100), 12).to(dtype)
    x, tx = from_torch(t).requires_grad_(), t.clone().requires_grad_()
    getattr(TF, op)(x, 0).backward(from_torch(g))
    getattr(F, op)(tx, 0).backward(g)
    tol = (2e-5, 1e-5) if dtype == torch.float32 else (1e-12, 1e-12)
    assert_same(x.grad, tx.grad, *tol)
    # the same bits on one thread
    old = tl.get_num_threads()
    try:
        tl.set_num_threads(1)
        x1 = from_torch(t).requires_grad_()
        getattr(TF, op)(x1, 0).backward(from_torch(g))
    finally:
        tl.set_num_threads(old)
    assert torch.equal(to_torch(x1.grad), to_torch(x.grad))
