"""softmax / log_softmax and their backward over a dim that is not the last (SoftmaxKernels.cpp's column chunks: up
to 1024 neighbouring columns processed row by row, narrowed to give every thread a chunk), against PyTorch: inner
sizes around the chunk widths (16, 1024, 1040, 2100: several chunks and a partial one), several outer blocks,
float32 and float64, and the same bits on one and two threads (a chunk's width never changes a column's result).
"""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch, to_torch

SHAPES = [((300, 16), 0), ((70, 1024), 0), ((33, 1040), 0), ((9, 2100), 0), ((3, 50, 17), 1), ((2, 5, 40, 30), 1)]


def _randn(shape, seed, dtype, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(tuple(shape), generator=g, dtype=torch.float64) * scale).to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("case", SHAPES, ids=lambda c: "x".join(map(str, c[0])) + f"-dim{c[1]}")
def test_columns_forward_and_backward_like_torch(dtype, op, case):
    shape, dim = case
    t, g = _randn(shape, 1, dtype, 4.0), _randn(shape, 2, dtype)
    x, tx = from_torch(t).requires_grad_(), t.clone().requires_grad_()
    y, ty = getattr(TF, op)(x, dim), getattr(F, op)(tx, dim)
    tol = 2e-6 if dtype == torch.float32 else 1e-12
    assert_same(y.detach(), ty.detach(), atol=tol, rtol=tol * 10)
    y.backward(from_torch(g))
    ty.backward(g)
    assert_same(x.grad, tx.grad, atol=tol * 10, rtol=tol * 10)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_columns_one_and_two_threads_bit_for_bit(op):
    t, g = _randn((257, 2100), 3, torch.float32, 4.0), _randn((257, 2100), 4, torch.float32)
    bwd = "_softmax_backward_data" if op == "softmax" else "_log_softmax_backward_data"
    old = tl.get_num_threads()
    res = []
    try:
        for n in (1, 2):
            tl.set_num_threads(n)
            y = getattr(tl, op)(from_torch(t), 0)
            res.append((to_torch(y), to_torch(getattr(tl, bwd)(from_torch(g), y, 0, tl.float32))))
    finally:
        tl.set_num_threads(old)
    assert torch.equal(res[0][0], res[1][0]) and torch.equal(res[0][1], res[1][1])
