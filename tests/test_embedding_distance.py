"""one_hot, cosine_similarity, pairwise_distance (part shape11 of issue 11): what the generated suites,
which run every YAML sample against PyTorch, cannot say: F.* bindings and defaults, errors, gradients
through the composites against PyTorch's, meta shapes.
"""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch


@pytest.mark.parametrize("name", ["one_hot", "cosine_similarity", "pairwise_distance"])
def test_placement_as_torch(name):
    assert hasattr(tl, name) == hasattr(torch, name), name
    assert hasattr(tl._C._nn, name) == hasattr(torch._C._nn, name), name
    assert hasattr(tl.Tensor, name) == hasattr(torch.Tensor, name), name
    assert callable(getattr(TF, name))


def test_one_hot_like_torch():
    x = torch.tensor([[0, 3], [2, 1]])
    assert_same(TF.one_hot(from_torch(x)), F.one_hot(x))
    assert_same(TF.one_hot(from_torch(x), 6), F.one_hot(x, 6))
    assert_same(TF.one_hot(from_torch(x), num_classes=4), F.one_hot(x, num_classes=4))
    e = torch.zeros(0, 2, dtype=torch.int64)
    assert_same(TF.one_hot(from_torch(e), 3), F.one_hot(e, 3))
    assert TF.one_hot(tl.empty(2, 3, dtype=tl.int64, device="meta"), 5).shape == (2, 3, 5)


ONE_HOT_ERRORS = [
    (lambda m: m.tensor([1.0, 2.0]), -1, "one_hot is only applicable to index tensor of type LongTensor"),
    (lambda m: m.tensor([1, -1]), -1, "Class values must be non-negative"),
    (lambda m: m.tensor([1, 3]), 3, "Class values must be smaller than num_classes"),
    (lambda m: m.zeros(0, dtype=m.int64), -1, "Can not infer total number of classes from empty tensor"),
]


@pytest.mark.parametrize("make, n, message", ONE_HOT_ERRORS)
def test_one_hot_errors_like_torch(make, n, message):
    with pytest.raises(RuntimeError, match=message):
        F.one_hot(make(torch), n)
    with pytest.raises(RuntimeError, match=message):
        TF.one_hot(make(tl), n)


def _rand(*shape, seed=0):
    return torch.randn(tuple(shape), generator=torch.Generator().manual_seed(seed + sum(shape)), dtype=torch.float64)


DIST_CASES = [
    ("cosine_similarity", (3, 4), (3, 4), {}),
    ("cosine_similarity", (2, 3, 4), (3, 4), {"dim": -1}),
    ("cosine_similarity", (4, 3), (1, 3), {"dim": 0, "eps": 0.5}),
    ("pairwise_distance", (3, 4), (3, 4), {}),
    ("pairwise_distance", (2, 3, 4), (4,), {"p": 1.0, "keepdim": True}),
    ("pairwise_distance", (5,), (5,), {"p": 3.0, "eps": 0.0}),
]


@pytest.mark.parametrize("name, s1, s2, kwargs", DIST_CASES)
def test_distances_and_gradients_like_torch(name, s1, s2, kwargs):
    a, b = _rand(*s1).requires_grad_(), _rand(*s2, seed=1).requires_grad_()
    y = getattr(F, name)(a, b, **kwargs)
    la, lb = from_torch(a.detach()).requires_grad_(), from_torch(b.detach()).requires_grad_()
    ly = getattr(TF, name)(la, lb, **kwargs)
    assert_same(ly.detach(), y.detach())
    g = _rand(*y.shape, seed=2)
    ga, gb = torch.autograd.grad(y, (a, b), g)
    lga, lgb = tl.autograd.grad(ly, (la, lb), from_torch(g))
    assert_same(lga, ga)
    assert_same(lgb, gb)


def test_cosine_similarity_integer_inputs_and_zero_vectors():
    a, b = torch.tensor([[1, 2], [0, 0]]), torch.tensor([[2.0, 1.0], [0.0, 0.0]])
    assert_same(TF.cosine_similarity(from_torch(a), from_torch(b)), F.cosine_similarity(a, b))
    with pytest.raises(RuntimeError, match="expected common dtype to be floating point"):
        TF.cosine_similarity(from_torch(a), from_torch(a))


def test_defaults_as_torch():
    assert_same(TF.one_hot(tl.tensor([1, 0])), F.one_hot(torch.tensor([1, 0])))
    assert_same(TF.pairwise_distance(tl.ones(2, 3), tl.zeros(2, 3)), F.pairwise_distance(torch.ones(2, 3),
                                                                                        torch.zeros(2, 3)))


# ---- embedding

def test_embedding_signature():
    import inspect
    assert list(inspect.signature(TF.embedding).parameters) == list(inspect.signature(F.embedding).parameters)


@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 1}, {"padding_idx": -2}, {"scale_grad_by_freq": True},
                                    {"padding_idx": 0, "scale_grad_by_freq": True}])
def test_embedding_and_gradient_like_torch(kwargs):
    w = _rand(6, 4).requires_grad_()
    idx = torch.tensor([[0, 1, 1], [4, 0, 1]])
    y = F.embedding(idx, w, **kwargs)
    lw = from_torch(w.detach()).requires_grad_()
    ly = TF.embedding(from_torch(idx), lw, **kwargs)
    assert_same(ly.detach(), y.detach())
    assert type(ly.grad_fn).__name__ == type(y.grad_fn).__name__
    g = _rand(*y.shape, seed=3)
    (gw,) = torch.autograd.grad(y, w, g)
    (lgw,) = tl.autograd.grad(ly, lw, from_torch(g))
    assert_same(lgw, gw)


def test_embedding_max_norm_renormalizes_like_torch():
    for norm_type in (2.0, 1.0, 3.0):
        w = _rand(6, 4) * 3
        lw = from_torch(w.clone())
        idx = torch.tensor([0, 2, 2, 5])
        y = F.embedding(idx, w, max_norm=1.5, norm_type=norm_type)
        ly = TF.embedding(from_torch(idx), lw, max_norm=1.5, norm_type=norm_type)
        assert_same(ly, y)
        assert_same(lw, w)  # rows 0, 2, 5 renormalized in place, as in PyTorch


def test_embedding_errors_like_torch():
    w = torch.randn(5, 3)
    for call, exc in ((lambda m, w: m.embedding(w, m.tensor([1.0])), RuntimeError),
                      (lambda m, w: m.embedding(w, m.tensor([5])), IndexError),
                      (lambda m, w: m.embedding(w[0], m.tensor([1])), RuntimeError)):
        with pytest.raises(exc):
            call(torch, w)
        with pytest.raises(exc):
            call(tl, from_torch(w))
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        TF.embedding(tl.tensor([1]), from_torch(w), padding_idx=5)
