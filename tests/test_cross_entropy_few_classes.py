"""cross_entropy on K-dimensional float32 logits with few classes (2 <= C <= 16), the register-resident kernel of
aten/native/cpu/CrossEntropyFewClasses.cpp, against PyTorch's F.cross_entropy: every class count, every reduction,
weight, ignore_index (the default, a real class, a value beyond int32), label smoothing; positions that fill whole
8-position steps, partial steps and several 256-position blocks; special values; the same result on one and two
threads; and the neighbours that keep the column blocks (17 classes, float64, class probabilities).
"""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch, to_torch

REDUCTIONS = ["none", "mean", "sum"]


def _randn(shape, seed, dtype=torch.float32, scale=3.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(tuple(shape), generator=g, dtype=torch.float64) * scale).to(dtype)


def _targets(shape, seed, ignore=-100):
    tshape = (shape[0],) + tuple(shape[2:])
    t = torch.randint(0, shape[1], tshape, generator=torch.Generator().manual_seed(seed))
    t.view(-1)[1::7] = ignore
    return t


def _check(x, target, weight=None, grad_seed=7, atol=1e-5, rtol=1e-5, **kw):
    """Forward and gradient of F.cross_entropy(x, target, weight, **kw) against torch's; returns torchlite's loss."""
    tx = x.detach().clone().requires_grad_()
    lx = from_torch(x.detach()).requires_grad_()
    lw = None if weight is None else from_torch(weight)
    ref = F.cross_entropy(tx, target, weight, **kw)
    out = TF.cross_entropy(lx, from_torch(target), lw, **kw)
    assert_same(out.detach(), ref.detach(), atol=atol, rtol=rtol)
    g = _randn(tuple(ref.shape), grad_seed, x.dtype, 1.0)
    ref.backward(g)
    out.backward(from_torch(g))
    assert_same(lx.grad, tx.grad, atol=atol, rtol=rtol)
    return out


@pytest.mark.parametrize("classes", list(range(2, 17)))
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_every_class_count_like_torch(classes, reduction):
    # 3 * 37 positions per sample: 4 whole steps and a partial one per sample.
    shape = (3, classes, 3, 37)
    x = _randn(shape, classes)
    w = torch.rand(classes, generator=torch.Generator().manual_seed(classes)) + 0.5
    for weight in (None, w):
        for smoothing in (0.0, 0.2):
            for ignore in (-100, classes - 1):
                out = _check(x, _targets(shape, classes + 1, ignore), weight, reduction=reduction,
                             label_smoothing=smoothing, ignore_index=ignore)
                assert out.grad_fn.name() == "CrossEntropyFusedBackward0"


@pytest.mark.parametrize("positions", [2, 7, 8, 9, 15, 16, 255, 256, 257, 600, 4096 + 5])
def test_steps_and_blocks_like_torch(positions):
    shape = (2, 5, positions)
    x = _randn(shape, positions)
    for reduction in REDUCTIONS:
        _check(x, _targets(shape, positions + 3), reduction=reduction, label_smoothing=0.1)


def test_ignore_index_beyond_int32_and_negative():
    # The kernel compares the 64-bit indices with ignore_index (their low 32 bits pick the class).
    shape = (2, 4, 19)
    x = _randn(shape, 60)
    for ignore in (2**33 + 1, -(2**40), -1):
        for reduction in REDUCTIONS:
            _check(x, _targets(shape, 61, ignore), reduction=reduction, ignore_index=ignore, label_smoothing=0.3)


def test_all_ignored_and_zero_weights():
    shape = (2, 3, 21)
    x = _randn(shape, 62)
    t = torch.full((2, 21), -100)
    out = _check(x, t, reduction="mean")
    assert torch.isnan(to_torch(out.detach()))
    _check(x, t, reduction="sum", label_smoothing=0.2)
    _check(x, _targets(shape, 63), torch.zeros(3), reduction="sum")


def test_special_values_like_torch():
    y = _randn((2, 4, 70), 64)
    y[0, :, 3] = -float("inf")       # no finite logit at a position: NaN as log_softmax
    y[0, 1, 5] = float("inf")
    y[1, 2, 6] = float("nan")
    y[1, :, 7] = 80.0
    y[1, 0, 66] = 1e4                # in the last, partial step
    y[0, 3, 9] = -1e4
    y[0, :, 12] = 1e30
    t = _targets((2, 4, 70), 65)
    t[1, 66] = 0
    for reduction in REDUCTIONS:
        _check(y, t, reduction=reduction)
        _check(y[:, :, 8:], t[:, 8:], reduction=reduction, label_smoothing=0.3)


def test_large_logits_keep_precision():
    # lse is kept in double and split hi + lo in the backward: logits of scale 1000 keep the gradient's accuracy.
    shape = (2, 6, 300)
    x = _randn(shape, 66, scale=1000.0)
    _check(x, _targets(shape, 67), reduction="sum", atol=1e-4, rtol=1e-5)


def test_out_of_range_targets_raise_index_error():
    x = from_torch(_randn((2, 3, 17), 68)).requires_grad_()
    for bad in (3, -2, 2**32):
        t = torch.zeros(2, 17, dtype=torch.int64)
        t[1, 9] = bad
        with pytest.raises(IndexError, match=f"Target {bad} is out of bounds."):
            TF.cross_entropy(x, from_torch(t))
    # the backward op checks its targets as well
    ops = tl._C._internal
    t = torch.zeros(2, 17, dtype=torch.int64)
    out, lse = ops._cross_entropy_fused(x.detach(), from_torch(t), None, 1, -100, 0.0)
    t[0, 16] = 5
    with pytest.raises(IndexError, match="Target 5 is out of bounds."):
        ops._cross_entropy_fused_backward(tl.ones(()), x.detach(), from_torch(t), None, 1, -100, 0.0, lse)


def test_same_result_on_one_and_two_threads():
    x = _randn((4, 5, 64, 33), 69)
    t = _targets((4, 5, 64, 33), 70)
    old = tl.get_num_threads()
    try:
        res = []
        for n in (1, 2):
            tl.set_num_threads(n)
            lx = from_torch(x).requires_grad_()
            loss = TF.cross_entropy(lx, from_torch(t), label_smoothing=0.1)
            loss.backward()
            res.append((to_torch(loss.detach()), to_torch(lx.grad)))
    finally:
        tl.set_num_threads(old)
    assert torch.equal(res[0][0], res[1][0]) and torch.equal(res[0][1], res[1][1])


def test_strided_logits_and_targets():
    base = _randn((3, 10, 6, 9), 71)
    x = base.permute(0, 3, 2, 1)[:, ::2]            # (3, 5, 6, 10) channels-last-like
    t = _targets((3, 5, 10, 6), 72).transpose(1, 2)  # a non-contiguous target
    for reduction in REDUCTIONS:
        _check(x, t, reduction=reduction, label_smoothing=0.1)


@pytest.mark.parametrize("case", ["17 classes", "float64", "probabilities", "one position"])
def test_neighbours_keep_their_paths_like_torch(case):
    if case == "17 classes":
        shape, dtype = (2, 17, 40), torch.float32
    elif case == "float64":
        shape, dtype = (2, 5, 40), torch.float64
    else:
        shape, dtype = (2, 5, 40 if case == "probabilities" else 1), torch.float32
    x = _randn(shape, 73, dtype)
    if case == "probabilities":
        t = torch.softmax(_randn(shape, 74, dtype, 1.0), 1)
    else:
        t = _targets(shape, 74) if shape[2] > 1 else torch.randint(0, 5, (2, 1))
    tol = dict(atol=1e-12, rtol=1e-10) if dtype == torch.float64 else {}
    for reduction in REDUCTIONS:
        _check(x, t, reduction=reduction, label_smoothing=0.1, **tol)
