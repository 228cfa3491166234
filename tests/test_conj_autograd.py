"""Autograd with the lazy conjugate bit and with real views of complex tensors (docs/complex.md), against
PyTorch: what `.grad` and `autograd.grad` return (a conj view where PyTorch's is one: its AccumulateGrad
keeps a gradient no other handle holds, and mm's backward gives a column-major operand a column-major
gradient), and in-place ops through `x.real` / `x.imag` / `view_as_real` (and their conj/neg variants) of
tensors with history, whose gradients go through the base's CopySlices node replayed on the real view."""
import pytest
import torch

import torchlite as tl
from conftest import assert_same, from_torch

CDTYPES = [torch.complex64, torch.complex128]


def rand(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_complex:
        real = torch.float32 if dtype == torch.complex64 else torch.float64
        return torch.complex(torch.randn(shape, generator=g, dtype=real), torch.randn(shape, generator=g, dtype=real))
    return torch.randn(shape, generator=g, dtype=dtype)


def leaves(shape, dtype, seed):
    t = rand(shape, dtype, seed)
    return t.clone().requires_grad_(), from_torch(t).requires_grad_()


def check(actual, expected):
    if expected is None:  # an input the loss does not use
        assert actual is None
        return
    assert (actual.is_conj(), actual.is_neg()) == (expected.is_conj(), expected.is_neg())
    assert_same(actual, expected)


# ---------------------------------------------------------------- .grad with the conjugate bit

GRAD_CASES = {
    "conj_mul": lambda L, x, y: (x.conj() * y).sum().abs(),
    "conj_sum": lambda L, x, y: x.conj().sum().abs(),
    "mul_conj": lambda L, x, y: (x * y.conj()).abs().sum(),
    "mH_mm": lambda L, x, y: (x.reshape(2, 3).mH @ y.reshape(2, 3)).abs().sum(),
    "mm_mH": lambda L, x, y: (x.reshape(3, 2) @ y.reshape(3, 2).mH).real.sum(),
    "conj_T_mm": lambda L, x, y: (x.reshape(3, 2).conj().T @ y.reshape(3, 2)).imag.sum(),
    "matmul_vec": lambda L, x, y: (x.reshape(2, 3).mH @ y[:2]).abs().sum(),
    "dot_conj": lambda L, x, y: L.dot(x.conj(), y).abs(),
    "vdot": lambda L, x, y: L.vdot(x, y).abs(),
    "vdot_conj": lambda L, x, y: L.vdot(x, y.conj()).abs(),
    "conj_vdot": lambda L, x, y: L.vdot(x.conj(), y).abs(),
    "conj_exp": lambda L, x, y: x.conj().exp().real.sum(),
}


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("case", list(GRAD_CASES))
def test_grad_bits_and_values(dtype, case):
    fn = GRAD_CASES[case]
    tx, x = leaves((6,), dtype, 0)
    ty, y = leaves((6,), dtype, 1)
    fn(torch, tx, ty).backward()
    fn(tl, x, y).backward()
    check(x.grad, tx.grad)
    check(y.grad, ty.grad)
    # autograd.grad returns what the engine produced (no AccumulateGrad)
    gt = torch.autograd.grad(fn(torch, tx, ty), (tx, ty), allow_unused=True)
    gx = tl.autograd.grad(fn(tl, x, y), (x, y), allow_unused=True)
    for a, e in zip(gx, gt):
        check(a, e)
    # a second backward accumulates into .grad in place: still what torch's holds
    fn(torch, tx, ty).backward()
    fn(tl, x, y).backward()
    check(x.grad, tx.grad)
    check(y.grad, ty.grad)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_grad_of_conj_is_a_conj_view_of_the_grad_output(dtype):
    tx, x = leaves((5,), dtype, 0)
    g = rand((5,), dtype, 1)
    tg, xg = g.clone(), from_torch(g)
    tx.conj().backward(tg)
    x.conj().backward(xg)
    check(x.grad, tx.grad)
    # PyTorch keeps the conj view of the grad_output itself: .grad shares its memory
    assert (x.grad.data_ptr() == xg.data_ptr()) == (tx.grad.data_ptr() == tg.data_ptr()) is True


def test_grad_of_a_view_shares_the_grad_output_as_in_pytorch():
    for shape_fn in (lambda v: v.view(6), lambda v: v.reshape(2, 3).reshape(6), lambda v: v[:]):
        tx, x = leaves((6,), torch.float32, 0)
        g = rand((6,), torch.float32, 1)
        tg, xg = g.clone(), from_torch(g)
        shape_fn(tx).backward(tg)
        shape_fn(x).backward(xg)
        check(x.grad, tx.grad)
        assert (x.grad.data_ptr() == xg.data_ptr()) == (tx.grad.data_ptr() == tg.data_ptr())
    # the leaf itself: the user's grad_output is copied (another handle holds it)
    tx, x = leaves((6,), torch.float32, 0)
    tg, xg = rand((6,), torch.float32, 1), from_torch(rand((6,), torch.float32, 1))
    tx.backward(tg)
    x.backward(xg)
    assert x.grad.data_ptr() != xg.data_ptr() and tx.grad.data_ptr() != tg.data_ptr()


@pytest.mark.parametrize("dtype", CDTYPES)
def test_mm_grad_layout_follows_the_operand(dtype):
    # a column-major operand (a transposed leaf) gets a column-major gradient, as PyTorch's
    ta, a = leaves((4, 3), dtype, 0)
    tb, b = leaves((4, 5), dtype, 1)
    tat, at = ta.detach().T.contiguous().T.requires_grad_(), a.detach().T.contiguous().T.requires_grad_()
    (torch.mm(tat.mH, tb)).abs().sum().backward()
    (tl.mm(at.mH, b)).abs().sum().backward()
    check(at.grad, tat.grad)
    assert at.grad.stride() == tat.grad.stride()
    check(b.grad, tb.grad)
    assert b.grad.stride() == tb.grad.stride()


# ---------------------------------------------------------------- in-place through real / imag

INPLACE_CASES = {
    "imag_mul": lambda y, w: y.imag.mul_(3),
    "real_add": lambda y, w: y.real.add_(w),
    "imag_mul_w": lambda y, w: y.imag.mul_(w),
    "conj_imag_mul": lambda y, w: y.conj().imag.mul_(w),  # a view with the negative bit
    "conj_real_sub": lambda y, w: y.conj().real.sub_(w),
    "view_as_real": lambda y, w: torch_or_tl(y).view_as_real(y).mul_(2),
    "view_as_real_imag": lambda y, w: torch_or_tl(y).view_as_real(y)[..., 1].add_(w),
    "sliced_imag": lambda y, w: y[1:].imag.mul_(w[1:]),
    "slice_of_imag": lambda y, w: y.imag[::2].copy_(w[::2]),
    "imag_of_conj_of_slice": lambda y, w: y[2:].conj().imag.addcmul_(w[2:], w[2:]),
    "real_fill": lambda y, w: y.real.fill_(0.5),
}


def torch_or_tl(t):
    return torch if isinstance(t, torch.Tensor) else tl


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("case", list(INPLACE_CASES))
def test_inplace_through_real_views(dtype, case):
    op = INPLACE_CASES[case]
    real = torch.float32 if dtype == torch.complex64 else torch.float64
    tx, x = leaves((5,), dtype, 0)
    tw, w = leaves((5,), real, 1)
    ty, y = tx * 2, x * 2
    op(ty, tw)
    op(y, w)
    check(y.detach(), ty.detach())
    ty.sum().abs().backward()
    y.sum().abs().backward()
    check(x.grad, tx.grad)
    if tw.grad is None:
        assert w.grad is None
    else:
        check(w.grad, tw.grad)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_inplace_through_imag_of_a_batch_and_complex_loss(dtype):
    tx, x = leaves((3, 4), dtype, 0)
    ty, y = (tx * (1 + 1j)).T, (x * (1 + 1j)).T  # a transposed view: the real view's strides are not the base's
    ty.imag.mul_(-2)
    y.imag.mul_(-2)
    g = rand((4, 3), dtype, 1)
    ty.backward(g)
    y.backward(from_torch(g))
    check(x.grad, tx.grad)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_real_view_after_the_base_changed_in_place(dtype):
    # the view's history is regenerated from its base's new value (a real view of a complex base)
    tx, x = leaves((4,), dtype, 0)
    ty, y = tx * 2, x * 2
    tr, r = ty.imag, y.imag
    ty.mul_(1j)
    y.mul_(1j)
    check(r.detach(), tr.detach())
    (tr * tr).sum().backward()
    (r * r).sum().backward()
    check(x.grad, tx.grad)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_inplace_through_imag_double_backward(dtype):
    real = torch.float32 if dtype == torch.complex64 else torch.float64
    tx, x = leaves((4,), dtype, 0)
    tw, w = leaves((4,), real, 1)
    outs = []
    for L, a, b in ((torch, tx, tw), (tl, x, w)):
        y = a * a
        y.imag.mul_(b)
        (ga,) = L.autograd.grad(y.abs().sum(), a, create_graph=True)
        outs.append(L.autograd.grad(ga.abs().sum(), (a, b)))
    for a, e in zip(outs[1], outs[0]):
        check(a, e)


def test_inplace_through_imag_of_a_leaf_is_refused():
    tx, x = leaves((3,), torch.complex64, 0)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        tx.imag.mul_(2)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x.imag.mul_(2)
