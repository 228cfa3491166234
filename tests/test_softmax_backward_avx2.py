"""_softmax_backward_data / _log_softmax_backward_data on float32 rows, the path of SoftmaxBackwardRowsAvx2.cpp on CPUs
with AVX2 and without AVX-512 (on AVX-512 CPUs the same cases run SoftmaxRowsAvx512.cpp's rows; the generic loops run
in a subprocess with TORCHLITE_SOFTMAX_ISA=generic), against PyTorch and float64:

- row lengths around the 8-float vector and the 32-float sum step (scalar tails), one row and many (each row's write
  pass takes the next row's sum, so the first, middle and last rows of a thread's block differ in code);
- outputs large enough to be streamed (3x gI > 24 MiB), with row lengths that allow it (a multiple of 8) and that do
  not, and inputs that start 4 bytes into a cache line;
- special values (NaN and inf in g, -inf and huge y), the exp of log_softmax's backward over the float range
  (g = [0, ..., 0, -1] makes gI = exp(y)), results bit for bit equal on one and two threads, and autograd.
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

OPS = ["_softmax_backward_data", "_log_softmax_backward_data"]
FWD = {"_softmax_backward_data": "softmax", "_log_softmax_backward_data": "log_softmax"}
ROW_LENGTHS = [1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 63, 64, 65, 1023, 1024, 1029]


def _randn(shape, seed, scale=1.0):
    return torch.randn(tuple(shape), generator=torch.Generator().manual_seed(seed), dtype=torch.float64) * scale


def _inputs(op, shape, seed):
    """float32 g and y = softmax / log_softmax of random logits."""
    x = _randn(shape, seed, 4.0).float()
    return _randn(shape, seed + 1).float(), getattr(torch, FWD[op])(x, -1)


def _ours(op, g, y):
    return to_torch(getattr(tl, op)(from_torch(g), from_torch(y), -1, tl.float32))


def _check_against_torch(op, g, y):
    """Within a few float32 roundings of the float64 result, element by element (the bound below), and close to
    PyTorch's float32 result. The sums are rounded in another order than PyTorch's, so the two float32 results differ
    by about one rounding of the row's sum times y (or exp(y)): up to 3e-5 for rows of 1024 normal gradients."""
    ours = _ours(op, g, y)
    theirs = getattr(torch.ops.aten, op)(g, y, -1, torch.float32)
    gd, yd = g.double(), y.double()
    ref = getattr(torch.ops.aten, op)(gd, yd, -1, torch.float64)
    assert ours.dtype == torch.float32 and ours.shape == g.shape
    if op == "_softmax_backward_data":  # y * (g - sum(g * y))
        bound = yd.abs() * (gd.abs() + (gd * yd).abs().sum(-1, keepdim=True))
    else:                                # g - exp(y) * sum(g)
        bound = gd.abs() + yd.exp() * gd.abs().sum(-1, keepdim=True)
    eps = 2.0**-24
    # (PyTorch's own float32 result needs about 9 eps here on 1024-float rows; the AVX2 rows stay within 8.)
    ok = (ours.double() - ref).abs() <= 16 * eps * bound + 1e-45
    assert ok.all(), ((ours.double() - ref).abs()[~ok][:5], bound[~ok][:5])
    torch.testing.assert_close(ours, theirs, atol=1e-4, rtol=1e-4)
    return ours


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("n", ROW_LENGTHS)
def test_row_lengths_like_torch(op, n):
    for rows in (1, 2, 9):
        g, y = _inputs(op, (rows, n), n + rows)
        _check_against_torch(op, g, y)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("shape", [(2100, 1024), (1100, 2056), (2047, 1029)])
def test_streamed_outputs_like_torch(op, shape):
    # gI of 8.6-9 MB: streamed where every row is 32-byte aligned (n % 8 == 0), ordinary stores for n = 1029.
    g, y = _inputs(op, shape, 11)
    _check_against_torch(op, g, y)


@pytest.mark.parametrize("op", OPS)
def test_unaligned_inputs_like_torch(op):
    # g and y start 4 bytes into a cache line (contiguous views at an offset of one float).
    rows, n = 2100, 1024
    g0, y0 = _inputs(op, (rows * n + 1,), 12)
    y0 = getattr(torch, FWD[op])(_randn((rows * n + 1,), 13, 4.0).float().view(-1)[1:].view(rows, n), -1)
    g = g0[1:].view(rows, n)
    y = torch.cat([torch.zeros(1), y0.reshape(-1)])[1:].view(rows, n)
    assert g.is_contiguous() and y.is_contiguous() and g.storage_offset() == 1 and y.storage_offset() == 1
    _check_against_torch(op, g, y)


@pytest.mark.parametrize("op", OPS)
def test_special_values_like_torch(op):
    g, y = _inputs(op, (6, 40), 14)
    g[0, 3] = float("nan")
    g[1, 5] = float("inf")
    g[2, 33] = -float("inf")  # in the scalar tail of the sum
    if op == "_log_softmax_backward_data":
        y[3, :7] = -float("inf")  # exp(-inf) = 0
        y[4, 9] = 100.0           # exp overflows to inf
        y[5, 12] = -120.0         # exp underflows to 0
    else:
        y[3, 2] = 1e30
    ours = _ours(op, g, y)
    theirs = getattr(torch.ops.aten, op)(g, y, -1, torch.float32)
    assert torch.equal(ours.isnan(), theirs.isnan())
    torch.testing.assert_close(ours, theirs, atol=2e-6, rtol=2e-5, equal_nan=True)


def test_log_softmax_backward_exp_within_one_ulp():
    # g = [0] * 15 + [-1] per row: sum(g) = -1, so gI = exp(y) in the first 15 lanes (vector steps and tail).
    vals = torch.cat([torch.linspace(-110.0, 90.0, 15 * 4000, dtype=torch.float64),
                      torch.tensor([-103.9, -87.3, -0.0, 88.72, 88.73, 1e-8, -1e-8] * 15, dtype=torch.float64)])
    vals = vals[: (vals.numel() // 15) * 15].float()
    rows = vals.numel() // 15
    y = torch.zeros(rows, 16)
    y[:, :15] = vals.view(rows, 15)
    g = torch.zeros(rows, 16)
    g[:, 15] = -1.0
    e = _ours("_log_softmax_backward_data", g, y)[:, :15].double()
    ref = torch.exp(y[:, :15].double())
    finite = ref < 3.4e38
    ulp = torch.from_numpy(np.spacing(ref.float().abs().numpy())).double()
    assert ((e - ref).abs()[finite] <= ulp[finite] * 1.0 + 1e-45).all()
    assert torch.isinf(e[~finite]).all()


@pytest.mark.parametrize("op", OPS)
def test_one_and_two_threads_bit_for_bit(op):
    g, y = _inputs(op, (2100, 1024), 15)
    old = tl.get_num_threads()
    try:
        tl.set_num_threads(1)
        one = _ours(op, g, y)
        tl.set_num_threads(2)
        two = _ours(op, g, y)
    finally:
        tl.set_num_threads(old)
    assert torch.equal(one, two)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_autograd_4096x1024_like_torch(op):
    t, g = _randn((4096, 1024), 16, 3.0).float(), _randn((4096, 1024), 17).float()
    x, tx = from_torch(t).requires_grad_(), t.clone().requires_grad_()
    getattr(TF, op)(x, -1).backward(from_torch(g))
    getattr(F, op)(tx, -1).backward(g)
    assert_same(x.grad, tx.grad, atol=1e-4, rtol=1e-4)  # the sums' order: see _check_against_torch


GENERIC_SCRIPT = r"""
import torch
from tests.test_softmax_backward_avx2 import OPS, _check_against_torch, _inputs
for op in OPS:
    for shape in [(9, 1029), (3, 33), (2100, 1024)]:
        g, y = _inputs(op, shape, 3)
        _check_against_torch(op, g, y)
print("ok")
"""


def test_generic_loops():
    env = dict(os.environ, TORCHLITE_SOFTMAX_ISA="generic")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-c", GENERIC_SCRIPT], cwd=root, env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stderr[-3000:]
