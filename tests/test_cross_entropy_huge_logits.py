"""cross_entropy with logits of 1e7 and beyond, against PyTorch's F.cross_entropy (forward and gradient).

The fused kernel saves each row's lse = max + log_sum in float64 for its backward; past |lse| = 2^23 that double keeps
log_sum only to |lse| * 2^-53 (at 1e30 none of it), so the (N, C) rows and the K-dimensional column blocks gave
all-equal logits of 1e30 the gradient 1 - onehot instead of 1/C - onehot. They now recompute max and log_sum there,
as the few-class kernel does. Cases: float32 and float64; all-equal huge logits, ties among huge logits, huge logits
with O(1) differences (float64), huge positions beside ordinary ones in one column block; reduction none/mean/sum,
class weights, ignore_index, label_smoothing, class probabilities; the (N, C) rows with the generic loops too
(TORCHLITE_SOFTMAX_ISA=generic, in a subprocess).
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F

import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch

REDUCTIONS = ["none", "mean", "sum"]


def _gen(seed):
    return torch.Generator().manual_seed(seed)


def _check(x, target, weight=None, unit_grad=False, **kw):
    """Loss and x's gradient of F.cross_entropy(x, target, weight, **kw) against torch's."""
    tx = x.detach().clone().requires_grad_()
    lx = from_torch(x.detach()).requires_grad_()
    ref = F.cross_entropy(tx, target, weight, **kw)
    out = TF.cross_entropy(lx, from_torch(target), None if weight is None else from_torch(weight), **kw)
    # The loss terms are differences of huge numbers in both libraries: compare them relative to the logits' scale.
    scale = float(x.abs().max())
    assert_same(out.detach(), ref.detach(), atol=scale * 1e-6, rtol=1e-5)
    g = torch.rand(tuple(ref.shape), generator=_gen(5), dtype=torch.float64).to(x.dtype) + 0.5
    if unit_grad:
        g = torch.ones_like(g)
    ref.backward(g)
    out.backward(from_torch(g))
    assert_same(lx.grad, tx.grad, atol=1e-6, rtol=1e-5)
    return lx.grad


def _huge_rows(shape, dtype, seed):
    """Rows (the class dim is 1) of every kind: all equal at 1e30, ties at 1e20 beside smaller logits, huge with O(1)
    differences (exact only in float64: float32 rounds them away, leaving ties), -1e30, and ordinary rows."""
    C = shape[1]
    x = torch.randn(shape, generator=_gen(seed), dtype=torch.float64) * 3
    xm = x.movedim(1, -1).reshape(-1, C)  # a view: rows of C classes
    n = xm.shape[0]
    xm[0::6] = 1e30
    xm[1::6] = 1e20
    xm[1::6, 1::3] = 1e19
    xm[2::6] = 3e7 + xm[2::6]
    xm[3::6] = 1e12 + xm[3::6]
    xm[4::6] = -1e30 + torch.arange(C, dtype=torch.float64) * 1e24
    assert n >= 6
    return x.to(dtype)


def _targets(shape, seed, ignore=-100):
    t = torch.randint(0, shape[1], (shape[0],) + tuple(shape[2:]), generator=_gen(seed))
    t.view(-1)[2::5] = ignore
    return t


SHAPES = [(12, 40), (7, 1030), (2, 20, 9), (1, 24, 3, 5)]  # rows, rows with a partial vector, column blocks


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_huge_logits_like_torch(dtype, shape, reduction):
    x = _huge_rows(shape, dtype, 1)
    w = torch.rand(shape[1], generator=_gen(2), dtype=torch.float64).to(dtype) + 0.5
    for weight in (None, w):
        for smoothing in (0.0, 0.25):
            for ignore in (-100, 3):
                _check(x, _targets(shape, 3, ignore), weight, reduction=reduction, label_smoothing=smoothing,
                       ignore_index=ignore)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_huge_logits_with_probabilities_like_torch(dtype, shape):
    x = _huge_rows(shape, dtype, 4)
    p = torch.softmax(torch.randn(shape, generator=_gen(6), dtype=torch.float64), 1).to(dtype)
    w = torch.rand(shape[1], generator=_gen(7), dtype=torch.float64).to(dtype) + 0.5
    for reduction in REDUCTIONS:
        for weight in (None, w):
            _check(x, p, weight, reduction=reduction, label_smoothing=0.1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", [(5, 33), (3, 17, 11)])
def test_equal_logits_of_1e30_give_one_over_c(dtype, shape):
    # The report's case, checked against its closed form as well: the gradient of the mean loss is (1/C - onehot) / N.
    x = torch.full(shape, 1e30, dtype=dtype)
    t = torch.randint(0, shape[1], (shape[0],) + tuple(shape[2:]), generator=_gen(8))
    grad = _check(x, t, unit_grad=True)
    C = shape[1]
    want = (torch.full(shape, 1.0 / C, dtype=torch.float64) - F.one_hot(t, C).movedim(-1, 1)) / t.numel()
    assert_same(grad, want.to(dtype), atol=1e-7, rtol=1e-5)


GENERIC_SCRIPT = r"""
import torch
from tests.test_cross_entropy_huge_logits import _check, _huge_rows, _targets
for dtype in (torch.float32, torch.float64):
    for shape in [(12, 40), (7, 1030)]:
        x = _huge_rows(shape, dtype, 1)
        for reduction in ("none", "mean", "sum"):
            _check(x, _targets(shape, 3), reduction=reduction, label_smoothing=0.2)
print("ok")
"""


def test_generic_loops():
    env = dict(os.environ, TORCHLITE_SOFTMAX_ISA="generic")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-c", GENERIC_SCRIPT], cwd=root, env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stderr[-3000:]
