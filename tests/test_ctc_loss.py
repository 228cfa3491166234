"""ctc_loss (issue 11): what the generated suites (the YAML samples of ctc_loss, _ctc_loss and
_ctc_loss_backward against PyTorch) cannot say: random shapes and lengths (empty targets, repeated labels,
impossible alignments) in both target layouts, every reduction, zero_infinity, int32 targets and lengths,
the unbatched form, the true derivative through log_softmax, no double backward, nn.CTCLoss, errors.
"""
from __future__ import annotations

import re

import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch


def _case(seed, dtype, T_max=50, N_max=4, C_max=20):
    """Random log-probabilities (T, N, C), padded targets (N, S) with repeats, lengths including 0 and
    targets too long for their input."""
    g = torch.Generator().manual_seed(seed)
    T = int(torch.randint(1, T_max + 1, (1,), generator=g))
    N = int(torch.randint(1, N_max + 1, (1,), generator=g))
    C = int(torch.randint(2, C_max + 1, (1,), generator=g))
    blank = int(torch.randint(0, C, (1,), generator=g))
    input_lengths = torch.randint(0, T + 1, (N,), generator=g)
    input_lengths[0] = T
    target_lengths = torch.randint(0, max(1, T // 2) + 2, (N,), generator=g)
    S = int(target_lengths.max()) + 1
    labels = [c for c in range(C) if c != blank] or [0]
    targets = torch.tensor(labels)[torch.randint(0, len(labels), (N, S), generator=g)]
    targets[:, 1::3] = targets[:, 0::3][:, : targets[:, 1::3].shape[1]]  # repeated labels need a blank between
    log_probs = torch.randn(T, N, C, generator=g, dtype=dtype).log_softmax(2)
    return log_probs, targets, input_lengths.tolist(), target_lengths.tolist(), blank


def _concatenated(targets, target_lengths):
    return torch.cat([targets[i, :n] for i, n in enumerate(target_lengths)])


def _run(lib, fn, log_probs, *args, **kwargs):
    x = log_probs.clone().requires_grad_() if lib is torch else from_torch(log_probs).requires_grad_()
    conv = (lambda a: a) if lib is torch else (lambda a: from_torch(a) if isinstance(a, torch.Tensor) else a)
    loss = fn(x, *[conv(a) for a in args], **kwargs)
    gen = torch.Generator().manual_seed(1)
    grad_out = torch.rand(tuple(loss.shape), generator=gen, dtype=log_probs.dtype)
    loss.backward(grad_out if lib is torch else from_torch(grad_out))
    return loss.detach(), x.grad


def _tols(dtype):
    return dict(atol=1e-4, rtol=1e-4) if dtype == torch.float32 else dict(atol=1e-10, rtol=1e-9)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("layout", ["padded", "concatenated"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_values_and_grads_like_torch(seed, layout, reduction, dtype):
    log_probs, targets, il, tgl, blank = _case(seed, dtype)
    if layout == "concatenated":
        targets = _concatenated(targets, tgl)
    for zero_infinity in (False, True):
        args = (targets, il, tgl, blank, reduction, zero_infinity)
        got, got_grad = _run(tl, TF.ctc_loss, log_probs, *args)
        want, want_grad = _run(torch, F.ctc_loss, log_probs, *args)
        assert_same(got, want, **_tols(dtype))
        assert_same(got_grad, want_grad, **_tols(dtype))


def test_impossible_alignment_inf_and_zero_infinity():
    # target 1, 1 needs three inputs (1, blank, 1); two inputs cannot hold it, nor one input two labels
    log_probs = torch.randn(4, 3, 5, dtype=torch.float64).log_softmax(2)
    targets = torch.tensor([[1, 1], [2, 3], [4, 4]])
    args = (targets, [2, 1, 4], [2, 2, 2])
    loss = TF.ctc_loss(from_torch(log_probs), from_torch(targets), *args[1:], reduction="none")
    assert loss.tolist()[:2] == [float("inf"), float("inf")]
    assert_same(loss, F.ctc_loss(log_probs, *args, reduction="none"))
    for reduction in ("none", "mean", "sum"):
        got, got_grad = _run(tl, TF.ctc_loss, log_probs, *args, reduction=reduction, zero_infinity=True)
        want, want_grad = _run(torch, F.ctc_loss, log_probs, *args, reduction=reduction, zero_infinity=True)
        assert_same(got, want)
        assert_same(got_grad, want_grad)
        assert got_grad[:, :2].abs().sum().item() == 0


def test_empty_inputs_and_targets():
    log_probs = torch.randn(3, 3, 4, dtype=torch.float64).log_softmax(2)
    targets = torch.tensor([[1], [2], [3]])
    args = (targets, [0, 0, 3], [0, 1, 0])
    got, got_grad = _run(tl, TF.ctc_loss, log_probs, *args, reduction="none")
    want, want_grad = _run(torch, F.ctc_loss, log_probs, *args, reduction="none")
    assert_same(got, want)
    assert got.tolist()[1] == float("inf")
    assert_same(got_grad[:, 0], want_grad[:, 0])  # PyTorch's gradient of an infinite loss is NaN: compare where defined
    assert_same(got_grad[:, 2], want_grad[:, 2])


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_unbatched_like_torch(reduction):
    g = torch.Generator().manual_seed(3)
    log_probs = torch.randn(7, 5, generator=g, dtype=torch.float64).log_softmax(1)
    targets = torch.tensor([1, 1, 3])
    for lengths in (([7], [3]), (torch.tensor(7), torch.tensor(3)), (torch.tensor([7]), torch.tensor([3]))):
        got, got_grad = _run(tl, TF.ctc_loss, log_probs, targets, *lengths, reduction=reduction)
        want, want_grad = _run(torch, F.ctc_loss, log_probs, targets, *lengths, reduction=reduction)
        assert_same(got, want)
        assert_same(got_grad, want_grad)


@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64])
def test_int32_targets_and_length_tensors(index_dtype):
    log_probs, targets, il, tgl, blank = _case(5, torch.float64, T_max=20)
    for tg in (targets, _concatenated(targets, tgl)):
        args = (tg.to(index_dtype), torch.tensor(il, dtype=index_dtype), torch.tensor(tgl, dtype=index_dtype), blank)
        got, got_grad = _run(tl, TF.ctc_loss, log_probs, *args, reduction="sum")
        want, want_grad = _run(torch, F.ctc_loss, log_probs, *args, reduction="sum")
        assert_same(got, want)
        assert_same(got_grad, want_grad)
        got = tl._ctc_loss(from_torch(log_probs), *[from_torch(a) for a in args[:3]], blank)
        want = torch._ctc_loss(log_probs, *args)
        assert_same(got[0], want[0])


def test_true_derivative_through_log_softmax():
    # PyTorch's _ctc_loss gradient assumes log_probs came from log_softmax; through it, gradcheck holds
    g = torch.Generator().manual_seed(7)
    logits = from_torch(torch.randn(6, 2, 4, generator=g, dtype=torch.float64)).requires_grad_()
    targets = tl.tensor([[1, 2, 2], [3, 1, 0]])

    def fn(x):
        return TF.ctc_loss(x.log_softmax(2), targets, [6, 5], [3, 2], reduction="sum")

    assert tl.autograd.gradcheck(fn, (logits,), eps=1e-6, atol=1e-5, rtol=1e-3)


def test_no_double_backward_like_torch():
    log_probs = torch.randn(5, 2, 4, dtype=torch.float64).log_softmax(2)
    targets = torch.tensor([[1, 2], [1, 1]])
    for lib, fn, x, tg in ((torch, F.ctc_loss, log_probs.clone().requires_grad_(), targets),
                           (tl, TF.ctc_loss, from_torch(log_probs).requires_grad_(), from_torch(targets))):
        (grad,) = lib.autograd.grad(fn(x, tg, [5, 5], [2, 2]), x, create_graph=True)
        with pytest.raises(RuntimeError, match="derivative for aten::_ctc_loss_backward is not implemented"):
            grad.sum().backward()


def test_node_and_placement_like_torch():
    x = from_torch(torch.randn(5, 2, 4).log_softmax(2)).requires_grad_()
    loss = tl.ctc_loss(x, tl.tensor([[1, 2], [1, 1]]), [5, 5], [2, 2], 0, 0)
    assert type(loss.grad_fn).__name__ == "CtcLossBackward0"
    for name in ("ctc_loss", "_ctc_loss", "_ctc_loss_backward"):
        assert hasattr(tl, name) == hasattr(torch, name), name


def test_module_like_torch():
    assert repr(tl.nn.CTCLoss()) == repr(torch.nn.CTCLoss()) == "CTCLoss()"
    log_probs, targets, il, tgl, blank = _case(2, torch.float32, T_max=30)
    for reduction in ("none", "mean", "sum"):
        m, tm = tl.nn.CTCLoss(blank, reduction, True), torch.nn.CTCLoss(blank, reduction, True)
        assert (m.blank, m.reduction, m.zero_infinity) == (tm.blank, tm.reduction, tm.zero_infinity)
        assert_same(m(from_torch(log_probs), from_torch(targets), il, tgl), tm(log_probs, targets, il, tgl),
                    atol=1e-5, rtol=1e-5)


def _errors(make_args, **kwargs):
    """The same exception type as PyTorch's, with PyTorch's message inside torchlite's."""
    args = make_args(torch)
    with pytest.raises(Exception) as want:
        torch.nn.functional.ctc_loss(*args, **kwargs)
    targs = [from_torch(a) if isinstance(a, torch.Tensor) else a for a in args]
    with pytest.raises(type(want.value), match=re.escape(str(want.value).splitlines()[0])):
        TF.ctc_loss(*targs, **kwargs)


LP = torch.randn(5, 2, 4).log_softmax(2)
TG = torch.tensor([[1, 2], [1, 1]])


@pytest.mark.parametrize("make_args,kwargs", [
    (lambda t: (LP, TG, [5], [2, 2]), {}),
    (lambda t: (LP, TG, [5, 5], [2]), {}),
    (lambda t: (LP, TG, [6, 5], [2, 2]), {}),
    (lambda t: (LP, TG, [-1, 5], [2, 2]), {}),
    (lambda t: (LP, TG, [5, 5], [3, 2]), {}),
    (lambda t: (LP, TG, [5, 5], [-1, 2]), {}),
    (lambda t: (LP, TG, [5, 5], [2, 2]), {"blank": 4}),
    (lambda t: (LP, TG, [5, 5], [2, 2]), {"blank": -1}),
    (lambda t: (LP[0, 0], TG, [5, 5], [2, 2]), {}),
    (lambda t: (LP, TG[:1], [5, 5], [2, 2]), {}),
    (lambda t: (LP, TG[:, :, None], [5, 5], [2, 2]), {}),
    (lambda t: (LP, torch.tensor([1, 2, 1]), [5, 5], [2, 2]), {}),
    (lambda t: (LP, TG, torch.tensor([5.0, 5.0]), torch.tensor([2, 2])), {}),
    (lambda t: (LP, TG, torch.tensor([5, 5]), torch.tensor([2.0, 2.0])), {}),
    (lambda t: (LP[:, 0], TG[0], [5, 5], [2]), {}),
    (lambda t: (torch.empty(0, 2, 4), TG, [0, 0], [0, 0]), {}),
    (lambda t: (LP.half(), TG, [5, 5], [2, 2]), {}),
    (lambda t: (LP, TG, [5, 5], [2, 2]), {"reduction": "foo"}),
])
def test_errors_like_torch(make_args, kwargs):
    if kwargs == {} and make_args(torch)[0].dtype == torch.float16:
        with pytest.raises(NotImplementedError):
            TF.ctc_loss(from_torch(LP.half()), from_torch(TG), [5, 5], [2, 2])
        with pytest.raises(NotImplementedError):
            F.ctc_loss(LP.half(), TG, [5, 5], [2, 2])
        return
    _errors(make_args, **kwargs)


def test_out_of_range_labels_raise():
    # PyTorch reads such labels unchecked (outside log_probs); torchlite refuses them
    for targets in (torch.tensor([[1, 9], [1, 1]]), torch.tensor([[1, -1], [1, 1]])):
        with pytest.raises(RuntimeError, match="ctc_loss: target -?[0-9]+ .* out of the label range"):
            TF.ctc_loss(from_torch(LP), from_torch(targets), [5, 5], [2, 2])
    # past each target length, padding is not read
    assert_same(TF.ctc_loss(from_torch(LP), tl.tensor([[1, 99], [1, 1]]), [5, 5], [1, 2]),
                F.ctc_loss(LP, torch.tensor([[1, 99], [1, 1]]), [5, 5], [1, 2]), atol=1e-6, rtol=1e-6)


def test_backward_checks_sizes():
    lp = from_torch(LP.double())
    nll, alpha = tl._ctc_loss(lp, from_torch(TG), [5, 5], [2, 2])
    back = tl._C._internal._ctc_loss_backward
    with pytest.raises(RuntimeError, match="_ctc_loss_backward: expected log_alpha"):
        back(tl.ones(2, dtype=tl.float64), lp, from_torch(TG), [5, 5], [2, 2], nll, alpha[:, :, :3], 0)
    with pytest.raises(RuntimeError, match="_ctc_loss_backward: expected grad"):
        back(tl.ones(1, dtype=tl.float64), lp, from_torch(TG), [5, 5], [2, 2], nll, alpha, 0)


def test_meta_shapes():
    lp = tl.empty(5, 2, 4, device="meta")
    nll, alpha = tl._ctc_loss(lp, tl.empty(2, 3, dtype=tl.int64, device="meta"), [5, 5], [3, 1])
    assert tuple(nll.shape) == (2,) and tuple(alpha.shape) == (2, 5, 7) and nll.is_meta


def test_huge_lengths_raise():
    lp, tg = from_torch(LP), from_torch(TG)
    big = 2**62
    with pytest.raises(RuntimeError, match="ctc_loss: Expected tensor to have size"):
        tl._ctc_loss(lp, tl.tensor([1, 2, 3]), [5, 5], [big, big])  # the sum overflows int64
    with pytest.raises(RuntimeError, match="ctc_loss: Expected tensor to have size at least"):
        tl._ctc_loss(lp, tg, [5, 5], [big, 1])
    with pytest.raises(RuntimeError, match="ctc_loss: Expected input_lengths to have value at most 5"):
        tl._ctc_loss(lp, tg, [big, 5], [2, 2])


def test_meta_length_tensors_raise():
    with pytest.raises((RuntimeError, NotImplementedError)):
        tl.ctc_loss(from_torch(LP), from_torch(TG), tl.empty(2, dtype=tl.int64, device="meta"), tl.tensor([2, 2]))


def test_strided_concatenated_targets_read_as_torch():
    # PyTorch offsets each target by the unscaled sum of the earlier lengths, then steps by the stride
    log_probs = torch.randn(6, 2, 5, dtype=torch.float64).log_softmax(2)
    big = torch.tensor([1, 4, 2, 4, 3, 4, 4, 4])
    got = tl._ctc_loss(from_torch(log_probs), from_torch(big)[::2], [6, 6], [2, 2])
    assert_same(got[0], torch._ctc_loss(log_probs, big[::2], [6, 6], [2, 2])[0])
