"""pdist (part nnf11 of issue 11): what the generated suites (which run the YAML samples of pdist,
_pdist_forward and _pdist_backward against PyTorch) cannot say: F.pdist, every p with gradients against
PyTorch's on larger inputs, ties of the inf-norm, equal rows, non-contiguous inputs, errors.
"""
from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch


def test_placement_as_torch():
    for name in ("pdist", "_pdist_forward", "_pdist_backward"):
        assert hasattr(tl, name) == hasattr(torch, name), name
    assert TF.pdist is tl.pdist and F.pdist is torch.pdist


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, math.inf])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_pdist_values_and_grads_like_torch(p, dtype):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(9, 5, generator=g, dtype=dtype)
    x[3] = x[1]  # a zero distance
    x[4, 2] = x[6, 2]  # a zero difference
    xl, xt = from_torch(x).requires_grad_(), x.clone().requires_grad_()
    yl, yt = TF.pdist(xl, p), F.pdist(xt, p)
    tol = dict(atol=1e-5, rtol=1e-5) if dtype == torch.float32 else dict(atol=1e-12, rtol=1e-10)
    assert_same(yl.detach(), yt.detach(), **tol)
    w = torch.randn(yt.shape, generator=g, dtype=dtype)
    (yl * from_torch(w)).sum().backward()
    (yt * w).sum().backward()
    assert_same(xl.grad, xt.grad, **tol)
    assert yl.grad_fn.name() == yt.grad_fn.name() == "PdistBackward0"


def test_inf_norm_ties_like_torch():
    x = torch.tensor([[0.0, 1.0, -1.0], [1.0, 0.0, 0.0], [2.0, 2.0, 1.0]], dtype=torch.float64)
    xl, xt = from_torch(x).requires_grad_(), x.clone().requires_grad_()
    tl.pdist(xl, math.inf).sum().backward()
    torch.pdist(xt, math.inf).sum().backward()
    assert_same(xl.grad, xt.grad)


def test_non_contiguous_and_degenerate_shapes():
    x = torch.randn(4, 6)
    assert_same(tl.pdist(from_torch(x).t(), 1.5), torch.pdist(x.t(), 1.5), atol=1e-5, rtol=1e-5)
    for shape in [(1, 3), (0, 3), (3, 0), (2, 1)]:
        e = torch.randn(*shape)
        assert_same(tl.pdist(from_torch(e)), torch.pdist(e))
    assert tl.pdist(tl.empty(5, 3, device="meta")).shape == (10,)


@pytest.mark.parametrize("case", [
    lambda m: m.pdist(m.zeros(2, 3, 4)),
    lambda m: m.pdist(m.zeros(3)),
    lambda m: m.pdist(m.zeros(3, 2, dtype=m.int64)),
    lambda m: m.pdist(m.zeros(3, 2), -1.0),
    lambda m: m.pdist(m.zeros(3, 2, dtype=m.float16)),
])
def test_errors_like_torch(case):
    with pytest.raises(Exception) as e_torch:
        case(torch)
    with pytest.raises(type(e_torch.value)) as e_tl:
        case(tl)
    if str(e_torch.value).startswith("pdist"):
        assert str(e_tl.value) == str(e_torch.value)


def test_double_backward_not_implemented_like_torch():
    x = tl.randn(4, 3, dtype=tl.float64, requires_grad=True)
    (g,) = tl.autograd.grad(tl.pdist(x).sum(), x, create_graph=True)
    with pytest.raises(NotImplementedError, match="the derivative for '_pdist_backward' is not implemented"):
        g.sum().backward()
