"""The fast paths of the softmax11 speed work, against PyTorch:

- softmax / log_softmax and their backward on float32 rows (SoftmaxRowsAvx512.cpp): row lengths around the
  16-lane step (masked tails), rows of 1, huge, -inf, NaN and all--inf rows, in-row dims other than the last,
  the vector exp over the whole float range (<= 1 ulp of the correctly rounded exp), and the generic loops
  (TORCHLITE_SOFTMAX_ISA=generic in a subprocess);
- mean's backward (adaptive_avg_pool2d(x, 1)): the gradient divided before it is expanded, bit for bit
  PyTorch's; expand(...).contiguous() (a broadcast source is not a transpose);
- upsample_bilinear2d_backward's bilinear loop: scales up and down (input elements no output reads get 0),
  align_corners, odd sizes, dtypes.
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


def _randn(shape, seed=0, dtype=torch.float32, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(tuple(shape), generator=g, dtype=torch.float64) * scale).to(dtype)


ROW_LENGTHS = [1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 1024, 1029]


# ---------------------------------------------------------------- softmax / log_softmax rows

@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("n", ROW_LENGTHS)
def test_rows_forward_and_backward_like_torch(op, n):
    t, g = _randn((7, n), n, scale=6.0), _randn((7, n), n + 1)
    x, tx = from_torch(t).requires_grad_(), t.clone().requires_grad_()
    y, ty = getattr(TF, op)(x, -1), getattr(F, op)(tx, -1)
    assert_same(y.detach(), ty.detach(), atol=2e-6, rtol=2e-6)
    y.backward(from_torch(g))
    ty.backward(g)
    assert_same(x.grad, tx.grad, atol=2e-6, rtol=2e-5)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_rows_close_to_float64(op):
    # Within a few ulp of the float64 result, as PyTorch's float32 result is.
    t = _randn((64, 1029), 3, scale=8.0)
    ours = to_torch(getattr(TF, op)(from_torch(t), -1)).double()
    ref = getattr(F, op)(t.double(), -1)
    theirs = getattr(F, op)(t, -1).double()
    err = lambda r: ((r - ref).abs() / ref.abs().clamp_min(1e-30)).max().item()  # noqa: E731
    assert err(ours) <= 1.1 * err(theirs) + 4e-7, (err(ours), err(theirs))


def _special_rows(n):
    inf, nan = float("inf"), float("nan")
    rows = torch.randn(8, n, generator=torch.Generator().manual_seed(n))
    rows[0, n // 2] = 3e38                    # huge: the max makes every other exp 0
    rows[1, :] = -inf                         # all -inf: NaN, as PyTorch
    rows[2, n - 1] = nan                      # NaN in the masked tail step
    rows[3, 0] = inf                          # +inf: NaN
    rows[4, ::2] = -inf                       # some -inf: weight 0
    rows[5, :] = -1e30                        # all equal and huge negative
    rows[6, n - 1] = 90.0                     # exp(x - max) with x far above the rest
    rows[7, :] = torch.linspace(-200, 0, n)   # results from 1 down to 0 through subnormals
    return rows


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("n", [1, 5, 16, 17, 40])
def test_rows_special_values_like_torch(op, n):
    t = _special_rows(n)
    # log_softmax near 0 (-log(sum) with sum ~ 1) carries the sum's rounding as an absolute error of ~1 ulp of 1
    atol = 1e-45 if op == "softmax" else 2.4e-7
    assert_same(getattr(TF, op)(from_torch(t), 1), getattr(F, op)(t, 1), atol=atol, rtol=4e-7)


@pytest.mark.parametrize("n", [1, 17, 64])
def test_backward_ops_special_values_like_torch(n):
    y = _special_rows(n)
    g = _randn((8, n), 5)
    for name in ("_softmax_backward_data", "_log_softmax_backward_data"):
        ours = getattr(tl, name)(from_torch(g), from_torch(y), 1, tl.float32)
        theirs = getattr(torch.ops.aten, name)(g, y, 1, torch.float32)
        assert_same(ours, theirs, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("n", [1029, 1024])
def test_backward_ops_streaming_stores_like_torch(n):
    # Outputs over 8 MiB take the non-temporal stores (rows of 1029 start off the 64-byte alignment).
    rows = (8 << 20) // (4 * n) + 64
    y = torch.softmax(_randn((rows, n), 18, scale=3.0), 1)
    g = _randn((rows, n), 19)
    for name, yy in (("_softmax_backward_data", y), ("_log_softmax_backward_data", y.log())):
        ours = getattr(tl, name)(from_torch(g), from_torch(yy), 1, tl.float32)
        theirs = getattr(torch.ops.aten, name)(g, yy, 1, torch.float32)
        # sums of ~1000 gradients (|sum| ~ 30) in another order: absolute differences of a few 1e-6
        assert_same(ours, theirs, atol=2e-5, rtol=1e-5)


def test_backward_ops_large_other_dim_like_torch():
    # Over 8 MiB along dim 0: the engine's scratch slices, written with plain stores.
    y = torch.softmax(_randn((1029, 2100), 20, scale=3.0), 0)
    g = _randn((1029, 2100), 21)
    for name, yy in (("_softmax_backward_data", y), ("_log_softmax_backward_data", y.log())):
        ours = getattr(tl, name)(from_torch(g), from_torch(yy), 0, tl.float32)
        theirs = getattr(torch.ops.aten, name)(g, yy, 0, torch.float32)
        assert_same(ours, theirs, atol=2e-5, rtol=1e-5)


def _ulps(a, b):
    # Distance in representable floats (same sign assumed; both finite).
    ia = a.view(torch.int32).long()
    ib = b.view(torch.int32).long()
    return (ia - ib).abs()


def test_vector_exp_within_one_ulp_over_the_float_range():
    # _log_softmax_backward_data(g=[0, -1], y=[v, 0]) = 0 - exp(v) * (0 - 1) = exp(v) exactly (one fnmadd),
    # so the row kernel's exp is probed directly: every 997th float from -104 to 88.72 and the specials.
    neg = -np.arange(0, np.float32(104.0).view(np.int32), 997, dtype=np.int32).view(np.float32)
    pos = np.arange(0, np.float32(88.72).view(np.int32), 997, dtype=np.int32).view(np.float32)
    v = torch.from_numpy(np.concatenate([neg, pos]).astype(np.float32))
    y = torch.stack([v, torch.zeros_like(v)], 1)
    g = torch.tensor([[0.0, -1.0]]).expand(len(v), 2).contiguous()
    got = to_torch(tl._log_softmax_backward_data(from_torch(g), from_torch(y), 1, tl.float32))[:, 0]
    ref = torch.exp(v.double()).float()
    normal = ref >= torch.finfo(torch.float32).tiny
    assert _ulps(got[normal], ref[normal]).max().item() <= 1
    # subnormal results: within one subnormal step
    assert ((got[~normal].double() - torch.exp(v[~normal].double())).abs() <= 1.5e-45).all()
    special = torch.tensor([float("-inf"), -104.5, -1000.0, 88.73, 89.0, 1e30, float("inf"), float("nan")])
    ys = torch.stack([special, torch.zeros_like(special)], 1)
    gs = torch.tensor([[0.0, -1.0]]).expand(len(special), 2).contiguous()
    got = to_torch(tl._log_softmax_backward_data(from_torch(gs), from_torch(ys), 1, tl.float32))[:, 0]
    assert_same(got, torch.exp(special), atol=0, rtol=0)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_rows_of_strided_inputs_and_other_dims(op):
    t = _randn((6, 37, 9), 6, scale=4.0)
    for view in (t.transpose(0, 2), t[:, ::2, :], t.permute(1, 2, 0)):
        for dim in (0, 1, -1):
            assert_same(getattr(TF, op)(from_torch(view), dim), getattr(F, op)(view, dim), atol=2e-6, rtol=2e-6)


def test_rows_out_and_dtype_arguments():
    t = _randn((5, 33), 8, scale=3.0)
    assert_same(TF.softmax(from_torch(t.double()), -1, dtype=tl.float32), F.softmax(t.double(), -1, dtype=torch.float32),
                atol=2e-7, rtol=2e-6)
    assert_same(TF.log_softmax(from_torch(t.half()), 1, dtype=tl.float32),
                F.log_softmax(t.half(), 1, dtype=torch.float32), atol=2e-6, rtol=2e-6)
    out = tl.empty(5, 33)
    tl.softmax(from_torch(t), 1, out=out)
    assert_same(out, torch.softmax(t, 1), atol=2e-7, rtol=2e-6)


def test_rows_split_over_threads_like_one_thread():
    t = _randn((301, 1029), 9, scale=5.0)
    old = tl.get_num_threads()
    try:
        res = []
        for n in (1, 2):
            tl.set_num_threads(n)
            res.append([to_torch(f(from_torch(t), -1)) for f in (TF.softmax, TF.log_softmax)])
    finally:
        tl.set_num_threads(old)
    for a, b in zip(*res):
        assert torch.equal(a, b)


GENERIC_SCRIPT = r"""
import torch, torch.nn.functional as F
import torchlite as tl, torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch
for n in (1, 17, 1029):
    t = torch.randn(5, n, generator=torch.Generator().manual_seed(n)) * 5
    g = torch.randn(5, n, generator=torch.Generator().manual_seed(n + 1))
    for op in ("softmax", "log_softmax"):
        x, tx = from_torch(t).requires_grad_(), t.clone().requires_grad_()
        y, ty = getattr(TF, op)(x, -1), getattr(F, op)(tx, -1)
        assert_same(y.detach(), ty.detach(), atol=2e-6, rtol=2e-6)
        y.backward(from_torch(g)); ty.backward(g)
        assert_same(x.grad, tx.grad, atol=2e-6, rtol=2e-5)
print("ok")
"""


def test_generic_loops_without_avx512():
    env = dict(os.environ, TORCHLITE_SOFTMAX_ISA="generic")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    r = subprocess.run([sys.executable, "-c", GENERIC_SCRIPT], cwd=root, env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stderr[-3000:]


# ---------------------------------------------------------------- mean backward, expand().contiguous()

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_adaptive_avg_pool_1x1_gradient_bit_for_bit(dtype):
    t = _randn((3, 5, 7, 9), 10, dtype)
    g = _randn((3, 5, 1, 1), 11, dtype)
    for view in (t, t.transpose(2, 3)):
        x, tx = from_torch(view).requires_grad_(), view.clone().requires_grad_()
        TF.adaptive_avg_pool2d(x, 1).backward(from_torch(g))
        F.adaptive_avg_pool2d(tx, 1).backward(g)
        assert torch.equal(to_torch(x.grad), tx.grad)
        assert x.grad.is_contiguous()


@pytest.mark.parametrize("dims,keepdim", [(None, False), ((0,), False), ((1, 2), True), ((-1,), False),
                                          ((0, 2), False), ((), True)])
def test_mean_gradient_bit_for_bit(dims, keepdim):
    t = _randn((4, 6, 5), 12)
    x, tx = from_torch(t).requires_grad_(), t.clone().requires_grad_()
    y = x.mean() if dims is None else x.mean(dims, keepdim)
    ty = tx.mean() if dims is None else tx.mean(dims, keepdim)
    g = _randn(tuple(ty.shape), 13)
    y.backward(from_torch(g))
    ty.backward(g)
    assert torch.equal(to_torch(x.grad), tx.grad)


def test_mean_double_backward_like_torch():
    t = _randn((3, 4, 5), 14).double()
    x, tx = from_torch(t).requires_grad_(), t.clone().requires_grad_()
    (gx,) = tl.autograd.grad((x * x).mean((1, 2)).sum(), [x], create_graph=True)
    (tgx,) = torch.autograd.grad((tx * tx).mean((1, 2)).sum(), [tx], create_graph=True)
    (ggx,) = tl.autograd.grad((gx * gx).sum(), [x])
    (tggx,) = torch.autograd.grad((tgx * tgx).sum(), [tx])
    assert_same(ggx, tggx, atol=1e-12, rtol=1e-12)


@pytest.mark.parametrize("shape,expanded", [((3, 1), (3, 100)), ((1, 100), (70, 100)), ((2, 64, 1, 1), (2, 64, 65, 66)),
                                            ((64, 1), (64, 64)), ((1, 64), (64, 64)), ((), (80, 90))])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int16, torch.uint8])
def test_expand_contiguous_like_torch(shape, expanded, dtype):
    t = (torch.arange(int(np.prod(shape)) if shape else 1) % 251).to(dtype).reshape(shape)
    assert torch.equal(to_torch(from_torch(t).expand(*expanded).contiguous()), t.expand(*expanded).contiguous())


# ---------------------------------------------------------------- upsample_bilinear2d_backward

BILINEAR_CASES = [((2, 3, 5, 7), (10, 14), False), ((2, 3, 5, 7), (10, 14), True), ((1, 2, 9, 4), (3, 2), False),
                  ((1, 2, 9, 4), (3, 2), True), ((1, 1, 1, 1), (3, 5), False), ((2, 2, 6, 6), (6, 6), False),
                  ((1, 3, 7, 13), (11, 5), False), ((1, 2, 17, 3), (40, 31), True), ((3, 2, 4, 30), (9, 7), False)]


@pytest.mark.parametrize("shape,out,align", BILINEAR_CASES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_bilinear_backward_like_torch(shape, out, align, dtype):
    g = _randn((shape[0], shape[1]) + out, 15, dtype)
    ours = tl._C._internal.upsample_bilinear2d_backward(from_torch(g), list(out), list(shape), align, None, None)
    theirs = torch.ops.aten.upsample_bilinear2d_backward(g, list(out), list(shape), align, None, None)
    tol = {torch.float64: (1e-12, 1e-12), torch.float32: (1e-5, 1e-5)}.get(dtype, (1e-2, 1e-2))
    assert_same(ours, theirs, *tol)


def test_bilinear_backward_scales_and_strided_grad():
    x = _randn((2, 3, 8, 6), 16).requires_grad_()
    lx = from_torch(x.detach()).requires_grad_()
    for kw in ({"scale_factor": 2.5}, {"scale_factor": 0.6}, {"size": (13, 4), "align_corners": True}):
        y = F.interpolate(x, mode="bilinear", **kw)
        ly = TF.interpolate(lx, mode="bilinear", **kw)
        g = _randn(tuple(y.shape[::-1]), 17).permute(3, 2, 1, 0)  # non-contiguous gradient
        (gx,) = torch.autograd.grad(y, [x], g)
        (lgx,) = tl.autograd.grad(ly, [lx], from_torch(g))
        assert_same(lgx, gx, atol=1e-5, rtol=1e-5)
