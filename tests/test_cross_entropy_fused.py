"""cross_entropy through the fused kernel (_cross_entropy_fused and its backward, aten/native/cpu/CrossEntropyKernels.cpp)
against PyTorch's F.cross_entropy: every option (class indices with weight, ignore_index and label smoothing, class
probabilities, reductions, K-dim inputs), non-contiguous inputs, the AVX-512 rows (tails, streaming stores) and the
generic loops, special values, double backward, and the calls that keep the composite path.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch, to_torch

REDUCTIONS = ["none", "mean", "sum"]


def _randn(shape, seed, dtype=torch.float32, scale=3.0):
    return torch.randn(tuple(shape), generator=torch.Generator().manual_seed(seed), dtype=torch.float64).mul(scale).to(dtype)


def _targets(shape, seed, ignore=-100):
    """Class indices for logits `shape` with the first (of several) set to `ignore`."""
    classes = shape[0] if len(shape) == 1 else shape[1]
    tshape = () if len(shape) == 1 else (shape[0],) + tuple(shape[2:])
    t = torch.randint(0, classes, tshape, generator=torch.Generator().manual_seed(seed))
    if t.numel() > 2:
        t.view(-1)[1] = ignore
    return t


def _probs(shape, seed, dtype):
    return torch.softmax(_randn(shape, seed, dtype, 1.0), 0 if len(shape) == 1 else 1)


def _tol(dtype):
    return dict(atol=1e-5, rtol=1e-5) if dtype == torch.float32 else dict(atol=1e-12, rtol=1e-10)


def _check(x, target, weight=None, grad_seed=7, **kw):
    """Forward and gradient of F.cross_entropy(x, target, weight, **kw) against torch's; returns torchlite's loss."""
    tx = x.detach().clone().requires_grad_()
    lx = from_torch(x.detach()).requires_grad_()
    lw = None if weight is None else from_torch(weight)
    ref = F.cross_entropy(tx, target, weight, **kw)
    out = TF.cross_entropy(lx, from_torch(target), lw, **kw)
    assert_same(out.detach(), ref.detach(), **_tol(x.dtype))
    g = _randn(tuple(ref.shape), grad_seed, x.dtype, 1.0)
    ref.backward(g)
    out.backward(from_torch(g))
    assert_same(lx.grad, tx.grad, **_tol(x.dtype))
    return out


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", [(5, 7), (7,), (3, 4, 5), (2, 3, 2, 2), (4, 1000)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.25])
def test_class_indices_like_torch(dtype, shape, reduction, smoothing):
    x = _randn(shape, 1, dtype)
    classes = shape[0] if len(shape) == 1 else shape[1]
    for weight in (None, torch.rand(classes, generator=torch.Generator().manual_seed(2), dtype=dtype) + 0.5):
        for ignore in (-100, 0):
            t = _targets(shape, 3, ignore)
            out = _check(x, t, weight, reduction=reduction, label_smoothing=smoothing, ignore_index=ignore)
            assert out.grad_fn.name() == "CrossEntropyFusedBackward0"


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", [(5, 7), (7,), (3, 4, 5)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.3])
def test_class_probabilities_like_torch(dtype, shape, reduction, smoothing):
    x, p = _randn(shape, 4, dtype), _probs(shape, 5, dtype)
    classes = shape[0] if len(shape) == 1 else shape[1]
    for weight in (None, torch.rand(classes, generator=torch.Generator().manual_seed(6), dtype=dtype) + 0.5):
        out = _check(x, p, weight, reduction=reduction, label_smoothing=smoothing)
        assert out.grad_fn.name() == "CrossEntropyFusedBackward0"


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_non_contiguous_inputs(dtype):
    base = _randn((7, 5, 3), 8, dtype)
    x = base.transpose(0, 1)[:, ::2]                          # (5, 4, 3) strided
    t = _targets((5, 4, 3), 9).t().contiguous().t()           # (5, 3) transposed layout
    _check(x, t, reduction="mean", label_smoothing=0.1)
    _check(base[:, 1], _targets((7, 3), 10), reduction="none")  # (7, 3) with a stride of 15 between rows
    p = _probs((4, 5), 11, dtype).t()
    _check(_randn((4, 5), 12, dtype).t(), p, reduction="sum")
    w = _randn((10,), 13, dtype).abs()[::2]
    _check(_randn((6, 5), 14, dtype), _targets((6, 5), 15), w, reduction="mean")


@pytest.mark.parametrize("classes", [1, 15, 16, 17, 1001, 32003])
def test_avx512_rows_tails_and_streaming(classes):
    """Rows of any length (masked tails, rows not 64-byte aligned); 70 x 32003 floats write grad_input with
    non-temporal stores (an output beyond the cache)."""
    rows = 70 if classes == 32003 else 9
    x = _randn((rows, classes), 16)
    t = _targets((rows, classes), 17)
    t[0] = classes - 1
    for smoothing in (0.0, 0.2):
        _check(x, t, reduction="mean", label_smoothing=smoothing)
    w = torch.rand(classes, generator=torch.Generator().manual_seed(18)) + 0.5
    _check(x, t, w, reduction="none", label_smoothing=0.1)
    p = _probs((rows, classes), 19, torch.float32)
    _check(x, p, reduction="mean", label_smoothing=0.1)
    _check(x, p, w, reduction="none")


def test_special_values_like_torch():
    x = _randn((6, 9), 19)
    x[0, 3] = -float("inf")          # a class that can never be chosen
    x[1, :] = -float("inf")          # no finite logit: NaN as log_softmax
    x[2, 4] = float("inf")           # NaN as log_softmax
    x[3, 5] = float("nan")
    x[4, :] = 80.0                   # large equal logits: exp would overflow without the max shift
    x[5, 2] = 1e4
    t = torch.tensor([0, 1, 2, 3, 4, 2])
    for reduction in REDUCTIONS:
        _check(x, t, reduction=reduction)
    _check(x[4:], t[4:], reduction="none", label_smoothing=0.3)


def test_all_ignored_and_zero_weights():
    x = _randn((4, 6), 20)
    t = torch.full((4,), -100)
    out = _check(x, t, reduction="mean")          # 0 / 0: NaN, and a zero gradient (as nll_loss's backward)
    assert torch.isnan(to_torch(out.detach()))
    _check(x, t, reduction="sum", label_smoothing=0.2)
    _check(x, t, reduction="mean", label_smoothing=0.2)
    _check(x, torch.tensor([1, 2, 3, 1]), torch.zeros(6), reduction="sum")


def test_out_of_range_targets_raise_index_error():
    x = tl.zeros(3, 5, requires_grad=True)
    for bad in (5, -1, 1000):
        with pytest.raises(IndexError, match="out of bounds"):
            TF.cross_entropy(x, tl.tensor([0, bad, 1]))
        with pytest.raises(IndexError, match="out of bounds"):
            TF.cross_entropy(x, tl.tensor([0, bad, 1]), reduction="none", label_smoothing=0.1)
        with pytest.raises(IndexError):
            F.cross_entropy(torch.zeros(3, 5), torch.tensor([0, bad, 1]))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("target_kind", ["indices", "probs"])
def test_double_backward_like_torch(reduction, target_kind):
    shape = (4, 5, 3)
    x = _randn(shape, 21, torch.float64)
    t = _targets(shape, 22) if target_kind == "indices" else _probs(shape, 22, torch.float64)
    w = torch.rand(5, generator=torch.Generator().manual_seed(23), dtype=torch.float64) + 0.5
    results = []
    for lib, f, conv in ((torch, F, lambda a: a), (tl, TF, from_torch)):
        xx = conv(x.clone()).requires_grad_()
        loss = f.cross_entropy(xx, conv(t), conv(w), reduction=reduction, label_smoothing=0.2)
        g = conv(_randn(tuple(loss.shape), 24, torch.float64, 1.0)).requires_grad_()
        (gx,) = lib.autograd.grad(loss, xx, g, create_graph=True)
        v = conv(_randn(shape, 25, torch.float64, 1.0))
        gxx, gg = lib.autograd.grad((gx * v).sum(), (xx, g))
        results.append((gx.detach(), gxx, gg))
    for a, b in zip(*results):
        assert_same(b, a, atol=1e-12, rtol=1e-10)


def test_gradgradcheck():
    x = from_torch(_randn((3, 4), 26, torch.float64)).requires_grad_()
    t = tl.tensor([0, 3, -100])
    assert tl.autograd.gradcheck(lambda a: TF.cross_entropy(a, t, label_smoothing=0.1), (x,))
    assert tl.autograd.gradgradcheck(lambda a: TF.cross_entropy(a, t, label_smoothing=0.1), (x,))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_keeps_composite(dtype):
    x, t = _randn((5, 7), 27, dtype), _targets((5, 7), 28)
    out = TF.cross_entropy(from_torch(x), from_torch(t))
    assert_same(out, F.cross_entropy(x, t), atol=1e-2, rtol=1e-2)


def test_target_or_weight_requiring_grad_keeps_composite():
    """The fused backward gives the gradients of self and class probabilities, not the weight's: a weight that requires
    grad takes the composite, whose gradients flow (tests/test_cross_entropy_prob_fast.py: a target alone)."""
    x, p = _randn((5, 7), 29, torch.float64), _probs((5, 7), 30, torch.float64)
    w = torch.rand(7, generator=torch.Generator().manual_seed(31), dtype=torch.float64) + 0.5
    tp, tw = p.clone().requires_grad_(), w.clone().requires_grad_()
    F.cross_entropy(x, tp, tw, label_smoothing=0.1).backward()
    lp, lw = from_torch(p).requires_grad_(), from_torch(w).requires_grad_()
    out = TF.cross_entropy(from_torch(x), lp, lw, label_smoothing=0.1)
    assert out.grad_fn.name() != "CrossEntropyFusedBackward0"
    out.backward()
    assert_same(lp.grad, tp.grad, atol=1e-12, rtol=1e-10)
    assert_same(lw.grad, tw.grad, atol=1e-12, rtol=1e-10)
    # Under no_grad the same arguments take the kernel.
    with tl.no_grad():
        assert_same(TF.cross_entropy(from_torch(x), lp, lw, label_smoothing=0.1),
                    F.cross_entropy(x, p, w, label_smoothing=0.1), atol=1e-12, rtol=1e-10)


def test_empty_inputs_like_torch():
    for reduction in REDUCTIONS:
        x, t = torch.zeros(0, 5), torch.zeros(0, dtype=torch.int64)
        ref = F.cross_entropy(x, t, reduction=reduction)
        out = TF.cross_entropy(from_torch(x), from_torch(t), reduction=reduction)
        assert_same(out, ref)


def test_fused_ops_check_their_arguments():
    x = tl.zeros(3, 4)
    ops = tl._C._internal
    with pytest.raises(RuntimeError, match="_cross_entropy_fused: expected class indices of dtype Long"):
        ops._cross_entropy_fused(x, tl.zeros(3, dtype=tl.int32), None, 1, -100, 0.0)
    with pytest.raises(RuntimeError, match="_cross_entropy_fused: expected a target of shape"):
        ops._cross_entropy_fused(x, tl.zeros(4, dtype=tl.int64), None, 1, -100, 0.0)
    with pytest.raises(RuntimeError, match="label_smoothing must be between"):
        ops._cross_entropy_fused(x, tl.zeros(3, dtype=tl.int64), None, 1, -100, 1.5)
    with pytest.raises(RuntimeError, match="expected a float32 weight of 4 elements"):
        ops._cross_entropy_fused(x, tl.zeros(3, dtype=tl.int64), tl.ones(3), 1, -100, 0.0)
    with pytest.raises(RuntimeError, match="_cross_entropy_fused_backward: expected lse of shape"):
        ops._cross_entropy_fused_backward(tl.ones(()), x, tl.zeros(3, dtype=tl.int64), None, 1, -100, 0.0,
                                          tl.zeros(4))
    with pytest.raises(RuntimeError, match="and dtype float64, got"):
        ops._cross_entropy_fused_backward(tl.ones(()), x, tl.zeros(3, dtype=tl.int64), None, 1, -100, 0.0,
                                          tl.zeros(3))
    with pytest.raises(RuntimeError, match="expected grad_output of shape"):
        ops._cross_entropy_fused_backward(tl.ones(()), x, tl.zeros(3, dtype=tl.int64), None, 0, -100, 0.0,
                                          tl.zeros(3, dtype=tl.float64))


GENERIC_SCRIPT = r"""
import torch, torch.nn.functional as F
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch
for shape in [(9, 1001), (4, 33)]:
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(0)) * 3
    t = torch.randint(0, shape[1], (shape[0],), generator=torch.Generator().manual_seed(1))
    t[1] = -100
    for smoothing in (0.0, 0.2):
        for w in (None, torch.rand(shape[1]) + 0.5):
            tx, lx = x.clone().requires_grad_(), from_torch(x).requires_grad_()
            ref = F.cross_entropy(tx, t, w, label_smoothing=smoothing)
            out = TF.cross_entropy(lx, from_torch(t), None if w is None else from_torch(w), label_smoothing=smoothing)
            assert_same(out.detach(), ref.detach(), atol=1e-5, rtol=1e-5)
            ref.backward(); out.backward()
            assert_same(lx.grad, tx.grad, atol=1e-6, rtol=1e-5)
    p = torch.softmax(torch.randn(*shape, generator=torch.Generator().manual_seed(2)), 1)
    tx, lx = x.clone().requires_grad_(), from_torch(x).requires_grad_()
    ref = F.cross_entropy(tx, p, label_smoothing=0.2)
    out = TF.cross_entropy(lx, from_torch(p), label_smoothing=0.2)
    assert_same(out.detach(), ref.detach(), atol=1e-5, rtol=1e-5)
    ref.backward(); out.backward()
    assert_same(lx.grad, tx.grad, atol=1e-6, rtol=1e-5)
print("ok")
"""


def test_generic_loops_without_avx512():
    env = dict(os.environ, TORCHLITE_SOFTMAX_ISA="generic")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    r = subprocess.run([sys.executable, "-c", GENERIC_SCRIPT], cwd=root, env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stderr[-3000:]


K_DIM_SHAPES = {1: [(3, 5, 7), (2, 4, 130)], 2: [(2, 3, 9, 11), (1, 6, 8, 16)], 3: [(2, 4, 3, 5, 7), (1, 3, 4, 4, 5)]}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_k_dim_inputs_every_option_like_torch(dtype, k, reduction):
    """(N, C, d1, ..., dk) through the kernel's column blocks (64 positions; the shapes give full blocks, partial
    ones and positions spanning two blocks): class indices with and without weight, ignore_index (a real class and
    the default), label smoothing, and class probabilities with weight and smoothing; loss and gradient."""
    for i, shape in enumerate(K_DIM_SHAPES[k]):
        x = _randn(shape, 40 + i, dtype)
        w = torch.rand(shape[1], generator=torch.Generator().manual_seed(41 + i), dtype=dtype) + 0.5
        for weight in (None, w):
            for smoothing in (0.0, 0.15):
                for ignore in (-100, 2):
                    out = _check(x, _targets(shape, 42 + i, ignore), weight, reduction=reduction,
                                 label_smoothing=smoothing, ignore_index=ignore)
                    assert out.grad_fn.name() == "CrossEntropyFusedBackward0"
                out = _check(x, _probs(shape, 43 + i, dtype), weight, reduction=reduction, label_smoothing=smoothing)
                assert out.grad_fn.name() == "CrossEntropyFusedBackward0"


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_k_dim_non_contiguous_and_special_values(dtype):
    base = _randn((3, 6, 10, 9), 50, dtype)
    x = base.permute(0, 3, 2, 1)[:, ::2]                       # (3, 5, 10, 6): channels-last-like strides
    t = _targets(tuple(x.shape), 51)
    for reduction in REDUCTIONS:
        _check(x, t, reduction=reduction, label_smoothing=0.1)
        _check(x, _probs(tuple(x.shape), 52, dtype).transpose(2, 3).contiguous().transpose(2, 3), reduction=reduction)
    y = _randn((2, 4, 70), 53, dtype)
    y[0, :, 3] = -float("inf")       # no finite logit at a position: NaN as log_softmax
    y[0, 1, 5] = float("inf")
    y[1, 2, 6] = float("nan")
    y[1, :, 7] = 80.0
    y[1, 0, 66] = 1e4                # in the second block
    ty = _targets((2, 4, 70), 54)
    ty[1, 66] = 0
    for reduction in REDUCTIONS:
        _check(y, ty, reduction=reduction)
    _check(y[1:, :, 7:], ty[1:, 7:], reduction="none", label_smoothing=0.3)


def test_k_dim_all_ignored_empty_and_bad_targets():
    x = _randn((2, 3, 5), 55)
    out = _check(x, torch.full((2, 5), -100), reduction="mean")
    assert torch.isnan(to_torch(out.detach()))
    _check(x, torch.full((2, 5), -100), reduction="sum", label_smoothing=0.2)
    for reduction in REDUCTIONS:  # empty spatial dims take the composite, as before
        e = torch.zeros(2, 3, 0)
        assert_same(TF.cross_entropy(from_torch(e), tl.zeros(2, 0, dtype=tl.int64), reduction=reduction),
                    F.cross_entropy(e, torch.zeros(2, 0, dtype=torch.int64), reduction=reduction))
    bad = torch.zeros(2, 5, dtype=torch.int64)
    bad[1, 4] = 3
    with pytest.raises(IndexError, match="out of bounds"):
        TF.cross_entropy(from_torch(x).requires_grad_(), from_torch(bad))
    with pytest.raises(RuntimeError):
        TF.cross_entropy(from_torch(x), tl.zeros(2, 4, dtype=tl.int64))


def test_k_dim_double_backward_like_torch():
    x = _randn((2, 3, 4, 5), 56, torch.float64)
    t = _targets((2, 3, 4, 5), 57)
    results = []
    for lib, f, conv in ((torch, F, lambda a: a), (tl, TF, from_torch)):
        xx = conv(x.clone()).requires_grad_()
        loss = f.cross_entropy(xx, conv(t), reduction="none", label_smoothing=0.2)
        g = conv(_randn(tuple(loss.shape), 58, torch.float64, 1.0)).requires_grad_()
        (gx,) = lib.autograd.grad(loss, xx, g, create_graph=True)
        gxx, gg = lib.autograd.grad((gx * conv(_randn((2, 3, 4, 5), 59, torch.float64, 1.0))).sum(), (xx, g))
        results.append((gx.detach(), gxx, gg))
    for a, b in zip(*results):
        assert_same(b, a, atol=1e-12, rtol=1e-10)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 3, 2, 2), (2, 5, 1)])
@pytest.mark.parametrize("target_kind", ["indices", "probs"])
def test_fused_ops_on_k_dim_inputs(dtype, shape, target_kind):
    """The ops called directly on K-dim inputs: forward, lse, the backward op and the gradient through autograd,
    against the references."""
    import cross_entropy_reference as ref  # tests/ is on sys.path (rootdir conftest), as lstm_reference
    ops = tl._C._internal
    x = _randn(shape, 32, dtype)
    t = _targets(shape, 33, 1) if target_kind == "indices" else _probs(shape, 33, dtype)
    w = torch.rand(shape[1], generator=torch.Generator().manual_seed(34), dtype=dtype) + 0.5
    for reduction in (0, 1, 2):
        for weight in (None, w):
            args = (reduction, 1 if target_kind == "indices" else -100, 0.2)
            lw = None if weight is None else from_torch(weight)
            lx = from_torch(x).requires_grad_()
            out, lse = ops._cross_entropy_fused(lx, from_torch(t), lw, *args)
            r_out, r_lse = ref.cross_entropy_fused(x, t, weight, *args)
            assert_same(out.detach(), r_out, **_tol(dtype))
            assert_same(lse, r_lse, **_tol(dtype))
            g = _randn(tuple(r_out.shape), 35, dtype, 1.0)
            gi = ops._cross_entropy_fused_backward(from_torch(g), from_torch(x), from_torch(t), lw, *args, lse)
            assert_same(gi, ref.cross_entropy_fused_backward(g, x, t, weight, *args, r_lse), **_tol(dtype))
            out.backward(from_torch(g))
            assert_same(lx.grad, ref.cross_entropy_fused_differentiable_backward(g, x, t, weight, *args).detach(),
                        **_tol(dtype))
