"""cross_entropy with class-probability targets through the fused kernel against PyTorch's F.cross_entropy: the
vector-type rows of CPUs without AVX-512 (CrossEntropyProbRowsVec.cpp: every tail length, streamed rows), weights,
label smoothing, reductions, K-dim inputs, non-contiguous inputs, and the target's gradient
(_cross_entropy_fused_target_backward, CrossEntropyTargetGrad.cpp: PyTorch differentiates class probabilities),
double backward through both, gradcheck in float64.
"""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch

REDUCTIONS = ["none", "mean", "sum"]
FUSED = "CrossEntropyFusedBackward0"


def _gen(seed):
    return torch.Generator().manual_seed(seed)


def _randn(shape, seed, dtype=torch.float32, scale=3.0):
    return torch.randn(tuple(shape), generator=_gen(seed), dtype=torch.float64).mul(scale).to(dtype)


def _probs(shape, seed, dtype):
    """Rows of class probabilities (softmax over the class dim) with some exact zeros."""
    p = torch.softmax(_randn(shape, seed, torch.float64, 2.0), 0 if len(shape) == 1 else 1)
    p = torch.where(torch.rand(tuple(shape), generator=_gen(seed + 1), dtype=torch.float64) < 0.1, 0.0, p)
    return p.to(dtype)


def _weight(classes, seed, dtype):
    return torch.rand(classes, generator=_gen(seed), dtype=dtype) + 0.5


def _tol(dtype):
    return dict(atol=1e-5, rtol=1e-5) if dtype == torch.float32 else dict(atol=1e-12, rtol=1e-10)


def _run(lib, f, conv, x, p, w, target_grad, kw, g):
    """Loss, x.grad and (if target_grad) p.grad of f.cross_entropy under lib."""
    lx = conv(x.detach().clone()).requires_grad_()
    lp = conv(p.detach().clone())
    if target_grad:
        lp.requires_grad_()
    out = f.cross_entropy(lx, lp, None if w is None else conv(w), **kw)
    out.backward(conv(g))
    return out, lx.grad, lp.grad if target_grad else None


def _check(x, p, w=None, target_grad=False, grad_seed=7, tol=None, **kw):
    """Forward, self's gradient and (target_grad) the target's gradient against torch's; returns torchlite's loss."""
    tol = tol or _tol(x.dtype)
    ref = F.cross_entropy(x, p, w, **kw)
    g = _randn(tuple(ref.shape), grad_seed, x.dtype, 1.0)
    r_out, r_gx, r_gp = _run(torch, F, lambda a: a, x, p, w, target_grad, kw, g)
    out, gx, gp = _run(tl, TF, from_torch, x, p, w, target_grad, kw, g)
    assert_same(out.detach(), r_out.detach(), **tol)
    assert_same(gx, r_gx, **tol)
    if target_grad:
        assert_same(gp, r_gp, **tol)
    return out


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("classes", [1, 3, 7, 8, 9, 15, 16, 17, 24, 1000, 1001])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_rows_every_tail_like_torch(dtype, classes, reduction):
    """(N, C) rows: 8-float steps, the 16-float loop and every partial last step; weights and smoothing."""
    x, p = _randn((6, classes), 1, dtype), _probs((6, classes), 2, dtype)
    w = _weight(classes, 3, dtype)
    for weight in (None, w):
        for smoothing in (0.0, 0.1):
            out = _check(x, p, weight, reduction=reduction, label_smoothing=smoothing)
            assert out.grad_fn.name() == FUSED


@pytest.mark.parametrize("shape", [(256, 32000), (70, 32003)])
def test_streamed_rows_like_torch(shape):
    """grad_input beyond the cache: the rows write it through a buffer with non-temporal stores."""
    x, p = _randn(shape, 4), _probs(shape, 5, torch.float32)
    _check(x, p, reduction="mean")
    _check(x, p, _weight(shape[1], 6, torch.float32), reduction="none", label_smoothing=0.1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", [(7,), (3, 5, 7), (2, 4, 130), (2, 3, 4, 5), (2, 40, 3, 3)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_one_and_k_dim_inputs_like_torch(dtype, shape, reduction):
    x, p = _randn(shape, 8, dtype), _probs(shape, 9, dtype)
    classes = shape[0] if len(shape) == 1 else shape[1]
    for weight in (None, _weight(classes, 10, dtype)):
        for smoothing in (0.0, 0.1):
            _check(x, p, weight, reduction=reduction, label_smoothing=smoothing)
            _check(x, p, weight, target_grad=True, reduction=reduction, label_smoothing=smoothing)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_non_contiguous_inputs_like_torch(dtype):
    x = _randn((40, 12), 11, dtype).t()                       # (12, 40), class stride 12
    p = _probs((12, 80), 12, dtype)[:, ::2]                    # (12, 40), every other column
    w = _weight(80, 13, dtype)[::2]
    for reduction in REDUCTIONS:
        _check(x, p, w, reduction=reduction, label_smoothing=0.1)
        _check(x, p, w, target_grad=True, reduction=reduction)
    xk = _randn((2, 6, 5, 3), 14, dtype).transpose(2, 3)      # K-dim, non-contiguous positions
    pk = _probs((2, 6, 5, 3), 15, dtype).transpose(2, 3)
    _check(xk, pk, target_grad=True, reduction="mean", label_smoothing=0.1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_target_requiring_grad_takes_the_kernel(dtype, reduction):
    """PyTorch differentiates class probabilities; the fused path gives that gradient too (no composite)."""
    for shape in ((5, 7), (4, 1001)):
        x, p = _randn(shape, 16, dtype), _probs(shape, 17, dtype)
        for weight in (None, _weight(shape[1], 18, dtype)):
            for smoothing in (0.0, 0.1):
                out = _check(x, p, weight, target_grad=True, reduction=reduction, label_smoothing=smoothing)
                assert out.grad_fn.name() == FUSED


def test_target_gradient_alone():
    """Only the target requires grad (a learned soft label against fixed logits)."""
    x, p = _randn((6, 9), 19, torch.float64), _probs((6, 9), 20, torch.float64)
    tp = p.clone().requires_grad_()
    F.cross_entropy(x, tp, label_smoothing=0.1).backward()
    lp = from_torch(p).requires_grad_()
    out = TF.cross_entropy(from_torch(x), lp, label_smoothing=0.1)
    assert out.grad_fn.name() == FUSED
    out.backward()
    assert_same(lp.grad, tp.grad, atol=1e-12, rtol=1e-10)


def test_weight_requiring_grad_keeps_composite():
    x, p = _randn((5, 7), 21, torch.float64), _probs((5, 7), 22, torch.float64)
    w = _weight(7, 23, torch.float64)
    tw = w.clone().requires_grad_()
    F.cross_entropy(x, p, tw).backward()
    lw = from_torch(w).requires_grad_()
    out = TF.cross_entropy(from_torch(x), from_torch(p), lw)
    assert out.grad_fn.name() != FUSED
    out.backward()
    assert_same(lw.grad, tw.grad, atol=1e-12, rtol=1e-10)


def test_special_values_like_torch():
    x = _randn((6, 19), 24)
    x[0, 3] = -float("inf")          # a class that can never be chosen (with probability 0 below)
    x[1, :] = -float("inf")          # no finite logit: NaN
    x[2, 4] = float("inf")
    x[3, 5] = float("nan")
    x[4, :] = 80.0                   # large equal logits
    x[5, 2] = 1e4
    p = _probs((6, 19), 25, torch.float32)
    p[0, 3] = 0.0
    for reduction in REDUCTIONS:
        _check(x[[0, 4, 5]], p[[0, 4, 5]], target_grad=True, reduction=reduction)
        ref = F.cross_entropy(x, p, reduction="none")
        assert_same(TF.cross_entropy(from_torch(x), from_torch(p), reduction="none"), ref, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_huge_logits_target_gradient(dtype):
    """|lse| beyond 2^23: the target's gradient takes max and log-sum from the logits again, as self's does."""
    big = 1e30 if dtype == torch.float32 else 1e12
    x = _randn((4, 11), 26, dtype, 1.0) + big
    x[1] = big                                           # all equal
    x[3] = -_randn((11,), 27, dtype, 1.0) * 1e3 - big    # unequal, negative
    xk = _randn((2, 5, 3), 28, dtype, 1.0) + big         # K-dim positions
    for xx in (x, xk):
        p = _probs(tuple(xx.shape), 29, dtype)
        tol = dict(atol=1e-4, rtol=1e-5) if dtype == torch.float32 else dict(atol=1e-9, rtol=1e-10)
        for reduction in REDUCTIONS:
            _check(xx, p, target_grad=True, reduction=reduction, label_smoothing=0.1, tol=tol)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_double_backward_through_target_like_torch(reduction):
    """create_graph: the differentiable backward ops; d(dL/dx)/dp and d(dL/dp)/dx flow as through PyTorch's."""
    shape = (4, 5, 3)
    x, p = _randn(shape, 30, torch.float64), _probs(shape, 31, torch.float64)
    w = _weight(5, 32, torch.float64)
    results = []
    for lib, f, conv in ((torch, F, lambda a: a), (tl, TF, from_torch)):
        xx, pp = conv(x.clone()).requires_grad_(), conv(p.clone()).requires_grad_()
        loss = f.cross_entropy(xx, pp, conv(w), reduction=reduction, label_smoothing=0.2)
        g = conv(_randn(tuple(loss.shape), 33, torch.float64, 1.0)).requires_grad_()
        gx, gp = lib.autograd.grad(loss, (xx, pp), g, create_graph=True)
        v, u = conv(_randn(shape, 34, torch.float64, 1.0)), conv(_randn(shape, 35, torch.float64, 1.0))
        second = lib.autograd.grad((gx * v).sum() + (gp * u).sum(), (xx, pp, g))
        results.append((gx.detach(), gp.detach()) + tuple(second))
    for a, b in zip(*results):
        assert_same(b, a, atol=1e-12, rtol=1e-10)


@pytest.mark.parametrize("shape", [(3, 5), (5,), (2, 3, 4)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_gradcheck_and_gradgradcheck(shape, reduction):
    x = from_torch(_randn(shape, 36, torch.float64, 1.0)).requires_grad_()
    p = from_torch(_probs(shape, 37, torch.float64)).requires_grad_()
    w = from_torch(_weight(shape[0] if len(shape) == 1 else shape[1], 38, torch.float64))

    def fn(a, b):
        return TF.cross_entropy(a, b, w, reduction=reduction, label_smoothing=0.1)

    assert tl.autograd.gradcheck(fn, (x, p))
    assert tl.autograd.gradgradcheck(fn, (x, p))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_like_torch(dtype):
    """float16 / bfloat16 take the composite (PyTorch computes them on the CPU too); the target's gradient flows."""
    x, p = _randn((5, 7), 39, dtype), _probs((5, 7), 40, dtype)
    _check(x, p, target_grad=True, reduction="mean", label_smoothing=0.1, tol=dict(atol=1e-2, rtol=1e-2))


def test_thread_count_does_not_change_the_result():
    x, p = from_torch(_randn((300, 1001), 41)), from_torch(_probs((300, 1001), 42, torch.float32))
    before = tl.get_num_threads()
    try:
        results = []
        for n in (1, 2):
            tl.set_num_threads(n)
            lx, lp = x.clone().requires_grad_(), p.clone().requires_grad_()
            out = TF.cross_entropy(lx, lp, label_smoothing=0.1)
            out.backward()
            results.append((out.detach(), lx.grad, lp.grad))
    finally:
        tl.set_num_threads(before)
    for a, b in zip(*results):
        assert tl.equal(a, b)


def test_target_backward_ops_check_their_arguments():
    x, p = tl.zeros(3, 4), tl.full((3, 4), 0.25)
    ops = tl._C._internal
    lse = tl.zeros(3, dtype=tl.float64)
    with pytest.raises(RuntimeError, match="_cross_entropy_fused_target_backward: expected class probabilities"):
        ops._cross_entropy_fused_target_backward(tl.ones(()), x, tl.zeros(3, dtype=tl.int64), None, 1, 0.0, lse)
    with pytest.raises(RuntimeError, match="_cross_entropy_fused_target_backward: expected lse of shape"):
        ops._cross_entropy_fused_target_backward(tl.ones(()), x, p, None, 1, 0.0, tl.zeros(4, dtype=tl.float64))
    with pytest.raises(RuntimeError, match="expected grad_output of shape"):
        ops._cross_entropy_fused_target_backward(tl.ones(()), x, p, None, 0, 0.0, lse)
    with pytest.raises(RuntimeError, match="expected class probabilities of the input's shape"):
        ops._cross_entropy_fused_target_backward(tl.ones(()), x, p.double(), None, 1, 0.0, lse)
    with pytest.raises(RuntimeError, match="_cross_entropy_fused_differentiable_target_backward: expected class"):
        ops._cross_entropy_fused_differentiable_target_backward(tl.ones(()), x, tl.zeros(3, dtype=tl.int64), None,
                                                                 1, 0.0)
    with pytest.raises(RuntimeError, match="expected a single element grad_output"):
        ops._cross_entropy_fused_differentiable_target_backward(tl.ones(3), x, p, None, 1, 0.0)
