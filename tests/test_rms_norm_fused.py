"""rms_norm's fused forward and backward (`_fused_rms_norm`, `_fused_rms_norm_backward`, RmsNormForward.cpp /
RmsNormBackward.cpp) and their differentiable fallback (`_fused_rms_norm_differentiable_backward`), against
PyTorch's rms_norm (a composite of ops on its CPU, so its gradients are autograd's through those ops): every
float dtype, with and without weight, eps None or given, several trailing dims, strided inputs, empty inputs,
rows long enough to stream dx, the weight's gradient summed over many row blocks, double backward, the
gradient of rstd, and the kernel's checks."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch
from tests.rms_norm_reference import fused_rms_norm_backward as ref_backward

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


def _randn(shape, seed, dtype=torch.float32, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale).to(dtype)


def _tol(dtype):
    return {torch.float32: (2e-5, 2e-5), torch.float64: (1e-12, 1e-12)}.get(dtype, (None, None))


def _grads_both(t, ns, tw, tg, eps=None, make_x=from_torch):
    """(x.grad, w.grad) of torchlite's and PyTorch's rms_norm(...).backward(g)."""
    x = make_x(t).requires_grad_()
    w = from_torch(tw).requires_grad_() if tw is not None else None
    y = TF.rms_norm(x, ns, w, eps)
    y.backward(from_torch(tg))
    tx = t.clone().requires_grad_()
    tww = tw.clone().requires_grad_() if tw is not None else None
    F.rms_norm(tx, ns, tww, eps).backward(tg)
    return y, (x.grad, w.grad if w is not None else None), (tx.grad, tww.grad if tww is not None else None)


@pytest.mark.parametrize("shape,nd", [((64, 1024), 1), ((3, 5, 7), 2), ((4, 17), 1), ((1, 1), 1), ((6,), 1),
                                      ((33, 4, 100), 1), ((2, 3, 4, 5), 3), ((0, 8), 1), ((2, 0), 1)])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("with_weight", [False, True])
def test_backward_like_torch(shape, nd, dtype, with_weight):
    t, tg = _randn(shape, 1, dtype, 3.0), _randn(shape, 2, dtype)
    ns = list(shape[len(shape) - nd:])
    tw = _randn(tuple(ns), 3, dtype) if with_weight else None
    y, (dx, dw), (tdx, tdw) = _grads_both(t, ns, tw, tg)
    assert y.grad_fn.name() == "FusedRmsNormBackward0"
    atol, rtol = _tol(dtype)
    assert_same(dx, tdx, atol=atol, rtol=rtol)
    if with_weight:
        assert_same(dw, tdw, atol=atol, rtol=rtol)


@pytest.mark.parametrize("eps", [None, 1e-3, 0.5])
def test_eps_and_small_values(eps):
    t, tg = _randn((7, 33), 4, scale=1e-3), _randn((7, 33), 5)
    _, (dx, dw), (tdx, tdw) = _grads_both(t, [33], _randn((33,), 6), tg, eps)
    assert_same(dx, tdx, rtol=2e-5, atol=1e-2)  # values ~1e3 / eps
    assert_same(dw, tdw, rtol=2e-5, atol=2e-5)


def test_strided_input_and_grad():
    t, tg, tw = _randn((40, 30), 7), _randn((30, 40), 8).t(), _randn((30,), 9)
    make = lambda a: from_torch(a.t().contiguous()).t()  # noqa: E731  a transposed view with a's values
    x = make(t).requires_grad_()
    w = from_torch(tw).requires_grad_()
    TF.rms_norm(x, [30], w).backward(make(tg))
    tx, tww = t.clone().requires_grad_(), tw.clone().requires_grad_()
    F.rms_norm(tx, [30], tww).backward(tg)
    assert_same(x.grad, tx.grad, atol=2e-5, rtol=2e-5)
    assert_same(w.grad, tww.grad, atol=2e-5, rtol=2e-5)


@pytest.mark.parametrize("shape", [(1500, 2001), (3, 300000)])
def test_long_rows_streamed_and_many_row_blocks(shape):
    """dx streamed (grad_out, x and dx over 32 MiB), tails not a multiple of the vector or stream piece; the
    weight's gradient from 32 row blocks, and from 3 when a row is too long for more buffers."""
    t, tg, tw = _randn(shape, 10, scale=2.0), _randn(shape, 11), _randn(shape[-1:], 12)
    _, (dx, dw), (tdx, tdw) = _grads_both(t, [shape[-1]], tw, tg)
    assert_same(dx, tdx, atol=2e-5, rtol=2e-5)
    assert_same(dw, tdw, atol=1e-4, rtol=1e-4)


def test_results_do_not_depend_on_the_thread_count():
    t, tg, tw = _randn((300, 257), 13), _randn((300, 257), 14), _randn((257,), 15)
    got = []
    for n in (1, 2):
        old = tl.get_num_threads()
        tl.set_num_threads(n)
        try:
            got.append(_grads_both(t, [257], tw, tg)[1])
        finally:
            tl.set_num_threads(old)
    for a, b in zip(*got):
        assert torch.equal(torch.from_numpy(a.numpy()), torch.from_numpy(b.numpy()))


@pytest.mark.parametrize("wdtype,xdtype", [(torch.float32, torch.bfloat16), (torch.float32, torch.float16),
                                           (torch.float64, torch.float32), (torch.float16, torch.float32)])
def test_weight_of_another_dtype(wdtype, xdtype):
    """A float32 weight on a 16-bit input takes the fused kernels (float is their opmath); other mixes the
    composite's ops. Gradients of each in its own dtype, as PyTorch's."""
    t, tg, tw = _randn((5, 12), 16, xdtype), _randn((5, 12), 17, xdtype), _randn((12,), 18, wdtype)
    y, (dx, dw), (tdx, tdw) = _grads_both(t, [12], tw, tg)
    fused = wdtype == torch.float32 and xdtype in (torch.float16, torch.bfloat16)
    assert (y.grad_fn.name() == "FusedRmsNormBackward0") == fused
    assert_same(dx, tdx, atol=2e-5 if xdtype == torch.float32 else None, rtol=2e-5 if xdtype == torch.float32 else None)
    assert_same(dw, tdw, atol=2e-5 if wdtype != torch.float16 else None, rtol=2e-5 if wdtype != torch.float16 else None)


def test_no_grad_for_the_weight_or_the_input():
    t, tg, tw = _randn((6, 9), 19), _randn((6, 9), 20), _randn((9,), 21)
    x, w = from_torch(t), from_torch(tw).requires_grad_()
    TF.rms_norm(x, [9], w).backward(from_torch(tg))
    tww = tw.clone().requires_grad_()
    F.rms_norm(t, [9], tww).backward(tg)
    assert_same(w.grad, tww.grad, atol=2e-5, rtol=2e-5)
    x = from_torch(t).requires_grad_()
    TF.rms_norm(x, [9], from_torch(tw)).backward(from_torch(tg))
    tx = t.clone().requires_grad_()
    F.rms_norm(tx, [9], tw).backward(tg)
    assert_same(x.grad, tx.grad, atol=2e-5, rtol=2e-5)


@pytest.mark.parametrize("with_weight", [False, True])
def test_double_backward_like_torch(with_weight):
    t, tw = _randn((3, 5), 22, torch.float64), _randn((5,), 23, torch.float64)
    tg, tgg, tggw = _randn((3, 5), 24, torch.float64), _randn((3, 5), 25, torch.float64), _randn((5,), 26, torch.float64)
    outs = []
    for lib, f, conv in ((tl, TF, from_torch), (torch, F, lambda a: a.clone())):
        x = conv(t).requires_grad_()
        w = conv(tw).requires_grad_() if with_weight else None
        g = conv(tg).requires_grad_()
        leaves = [x] + ([w] if with_weight else [])
        first = lib.autograd.grad(f.rms_norm(x, [5], w), leaves, g, create_graph=True)
        gos = [conv(tgg)] + ([conv(tggw)] if with_weight else [])
        outs.append(lib.autograd.grad(first, leaves + [g], gos))
    for a, b in zip(*outs):
        assert_same(a, b, atol=1e-10, rtol=1e-10)
    x = tl.from_numpy(t.numpy().copy()).requires_grad_()
    assert tl.autograd.gradgradcheck(lambda a: TF.rms_norm(a, [5]), (x,))


def test_rstd_output_and_its_gradient_like_torch():
    t, tw, tg, tgr = _randn((4, 6), 27, torch.float64), _randn((6,), 28, torch.float64), _randn((4, 6), 29, torch.float64), \
        _randn((4, 1), 30, torch.float64)
    x, w = from_torch(t).requires_grad_(), from_torch(tw).requires_grad_()
    y, r = tl._fused_rms_norm(x, [6], w, 1e-4)
    tx, tww = t.clone().requires_grad_(), tw.clone().requires_grad_()
    ty, tr = torch._fused_rms_norm(tx, [6], tww, 1e-4)
    assert_same(y.detach(), ty.detach(), atol=1e-12, rtol=1e-12)
    assert_same(r.detach(), tr.detach(), atol=1e-12, rtol=1e-12)
    tl.autograd.backward([y, r], [from_torch(tg), from_torch(tgr)], retain_graph=True)
    torch.autograd.backward([ty, tr], [tg, tgr], retain_graph=True)
    assert_same(x.grad, tx.grad, atol=1e-12, rtol=1e-12)
    assert_same(w.grad, tww.grad, atol=1e-12, rtol=1e-12)
    x.grad = None
    w.grad = None
    r.backward(from_torch(tgr))  # rstd alone: no gradient reaches y's part, none the weight
    tx.grad = tww.grad = None
    tr.backward(tgr)
    assert_same(x.grad, tx.grad, atol=1e-12, rtol=1e-12)
    assert w.grad is None and tww.grad is None
    # rows of no elements: rstd is NaN (0 / 0 mean square), as PyTorch's
    for eps in (None, 1e-3):
        ye, re = tl._fused_rms_norm(tl.randn(2, 0), [0], None, eps)
        tye, tre = torch._fused_rms_norm(torch.randn(2, 0), [0], None, eps)
        assert_same(ye, tye)
        assert_same(re, tre)
    # 16-bit input: rstd in float32, as PyTorch's
    y16, r16 = tl._fused_rms_norm(from_torch(t.to(torch.bfloat16)), [6], None, None)
    ty16, tr16 = torch._fused_rms_norm(t.to(torch.bfloat16), [6], None, None)
    assert_same(y16, ty16)
    assert_same(r16, tr16, atol=1e-6, rtol=1e-6)


@pytest.mark.parametrize("mask", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("dtype", FLOATS)
def test_backward_op_masks_like_reference(mask, dtype):
    t, tg, tw = _randn((37, 70), 31, dtype, 2.0), _randn((37, 70), 32, dtype), _randn((70,), 33, dtype)
    _, tr = torch._fused_rms_norm(t, [70], tw, None)
    ours = tl._C._internal._fused_rms_norm_backward(from_torch(tg), from_torch(t), [70], from_torch(tr), from_torch(tw),
                                                    list(mask))
    theirs = ref_backward(tg, t, [70], tr, tw, mask)
    for o, e, m in zip(ours, theirs, mask):
        if m:
            assert_same(o, e, *_tol(dtype))
        else:
            assert o is None and e is None


def test_backward_op_checks():
    bwd = tl._C._internal._fused_rms_norm_backward
    x, g, r = tl.randn(3, 4), tl.randn(3, 4), tl.ones(3, 1)
    with pytest.raises(RuntimeError, match="_fused_rms_norm_backward: grad_out of shape"):
        bwd(tl.randn(3, 5), x, [4], r, None, [True, True])
    with pytest.raises(RuntimeError, match="_fused_rms_norm_backward: expected rstd with 3 elements"):
        bwd(g, x, [4], tl.ones(2, 1), None, [True, True])
    with pytest.raises(RuntimeError, match="Given normalized_shape"):
        bwd(g, x, [5], r, None, [True, True])
    with pytest.raises(RuntimeError, match="Expected weight to be of same shape"):
        bwd(g, x, [4], r, tl.ones(3), [True, True])
    with pytest.raises(NotImplementedError, match="rms_norm"):
        bwd(g.long(), x.long(), [4], r, None, [True, True])
    with pytest.raises(RuntimeError, match="derivative for aten::_fused_rms_norm_backward is not implemented"):
        xx = x.clone().requires_grad_()
        out = bwd(g, xx, [4], r, None, [True, False])[0]
        out.sum().backward()


@pytest.mark.parametrize("op", ["rms_norm", "softmax", "log_softmax"])
def test_computed_gradient_becomes_grad_without_a_copy(op):
    """With .grad None (after zero_grad()) autograd hands the backward kernel's result to the leaf, as PyTorch does:
    the tensor the hook sees is x.grad's memory (no 16 MB copy in the 4096x1024 benchmark rows)."""
    x, g = tl.randn(64, 1024).requires_grad_(), tl.randn(64, 1024)
    w = tl.randn(1024).requires_grad_()
    y = TF.rms_norm(x, [1024], w) if op == "rms_norm" else getattr(TF, op)(x, -1)
    seen = {}
    x.register_hook(lambda t: seen.__setitem__("x", t.data_ptr()))  # keeps no reference to the gradient
    w.register_hook(lambda t: seen.__setitem__("w", t.data_ptr()))
    for _ in range(2):
        x.grad = w.grad = None
        y.backward(g, retain_graph=True)
        assert seen["x"] == x.grad.data_ptr()
        if op == "rms_norm":
            assert seen["w"] == w.grad.data_ptr()
