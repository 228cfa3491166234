"""Autograd through a fusion group (aten/jit/FusionExecutor.cpp, FusionGroupBackward): with grad mode on
and inputs requiring grad, a group runs blocked and is recorded as one node whose backward runs each
block's graph (recorded in the forward, or run again in recompute mode) with the ops' own derivative
formulas; gradients equal eager's
bit for bit, against PyTorch's within rounding. Inputs the one-node form does not take (broadcast or
0-d inputs requiring grad) keep the op-by-op record."""
import numpy as np
import pytest
import torch

import torchlite as tl
import torchlite.nn as nn
from torchlite._C import _jit

from conftest import to_torch


@pytest.fixture(autouse=True, params=[False, True], ids=["saved_blocks", "recompute"])
def small_blocks(request):
    """Each test in both backward modes: block graphs kept from the forward (the default), and the
    forward run again per block in the backward (_jit_set_fusion_backward_recomputes)."""
    block, minimum = _jit._jit_get_fusion_block_size(), _jit._jit_get_fusion_min_numel()
    mode = _jit._jit_get_fusion_backward_recomputes()
    _jit._jit_set_fusion_block_size(64)
    _jit._jit_set_fusion_min_numel(1)
    _jit._jit_set_fusion_backward_recomputes(request.param)
    yield
    _jit._jit_set_fusion_block_size(block)
    _jit._jit_set_fusion_min_numel(minimum)
    _jit._jit_set_fusion_backward_recomputes(mode)


def chain(x, y, z):
    return ((x * y + 1).sigmoid() * z).tanh()


def dag(x, y):
    a = x * y
    b = (a + 1).sigmoid()
    return b * a - y, a.exp()  # a is also an output: a group with two outputs


def _bits(t):
    return t.contiguous().numpy().tobytes()


def _fused(fn, *inputs):
    traced = tl.jit.trace(fn, tuple(inputs), check_trace=False)

    def run(*args):
        with tl.jit.fuser("fuser1"):
            return traced(*args)
    return run


def _grads(fn, inputs, make_loss):
    for t in inputs:
        t.grad = None
    make_loss(fn(*inputs)).backward()
    out = [t.grad.clone() if t.grad is not None else None for t in inputs]
    for t in inputs:
        t.grad = None
    return out


def _leaves(*shape, n=3, dtype=tl.float32):
    return [tl.randn(*shape, dtype=dtype).requires_grad_() for _ in range(n)]


@pytest.mark.parametrize("dtype", [tl.float32, tl.float64])
@pytest.mark.parametrize("loss", ["sum", "weighted"])
def test_gradients_bit_equal_eager(dtype, loss):
    xs = _leaves(37, 11, dtype=dtype)
    fused = _fused(chain, *xs)
    w = tl.randn(37, 11, dtype=dtype)
    make_loss = (lambda o: o.sum()) if loss == "sum" else (lambda o: (o * w).sum())
    _jit._jit_reset_fusion_stats()
    out = fused(*xs)
    assert out.grad_fn.name() == "FusionGroupBackward"
    assert _jit._jit_fusion_stats() == {"fused": 1, "fallback": 0}
    got = _grads(fused, xs, make_loss)
    want = _grads(chain, xs, make_loss)
    for g, e in zip(got, want):
        assert g.dtype == e.dtype and tuple(g.shape) == tuple(e.shape)
        assert _bits(g) == _bits(e)
    txs = [to_torch(t.detach()).requires_grad_() for t in xs]
    tw = to_torch(w)
    ((chain(*txs) * tw).sum() if loss == "weighted" else chain(*txs).sum()).backward()
    tol = 1e-5 if dtype == tl.float32 else 1e-12
    for g, t in zip(got, txs):
        np.testing.assert_allclose(g.numpy(), t.grad.numpy(), rtol=tol, atol=tol)


def test_some_inputs_without_grad_and_non_contiguous_inputs():
    x = tl.randn(11, 37).t().requires_grad_()        # transposed: gathered per block
    y = tl.randn(37, 22)[:, ::2]                     # a strided slice, no grad
    z = tl.randn(37, 11).requires_grad_()
    fused = _fused(chain, x, y, z)
    assert fused(x, y, z).grad_fn.name() == "FusionGroupBackward"
    got = _grads(fused, [x, y, z], lambda o: (o * o).sum())
    want = _grads(chain, [x, y, z], lambda o: (o * o).sum())
    assert got[1] is None and want[1] is None
    for g, e in ((got[0], want[0]), (got[2], want[2])):
        assert _bits(g) == _bits(e)


def test_group_with_two_outputs_and_an_unused_output():
    x, y = _leaves(23, 9, n=2)
    fused = _fused(dag, x, y)
    out = fused(x, y)
    assert out[0].grad_fn.name() == "FusionGroupBackward"
    for make_loss in (lambda o: o[0].sum() + (o[1] * 0.5).sum(), lambda o: o[0].sum(), lambda o: o[1].sum()):
        got = _grads(fused, [x, y], make_loss)
        want = _grads(dag, [x, y], make_loss)
        for g, e in zip(got, want):
            assert _bits(g) == _bits(e)


def test_broadcast_input_requiring_grad_keeps_the_op_by_op_record():
    x = tl.randn(20, 7).requires_grad_()
    b = tl.randn(7).requires_grad_()   # broadcast: its gradient is a sum, left to the op-by-op record
    fused = _fused(lambda x, b: (x * b + 1).tanh() * b, x, b)
    _jit._jit_reset_fusion_stats()
    out = fused(x, b)
    assert _jit._jit_fusion_stats() == {"fused": 0, "fallback": 1}
    assert out.grad_fn.name() != "FusionGroupBackward"
    got = _grads(fused, [x, b], lambda o: o.sum())
    want = _grads(lambda x, b: (x * b + 1).tanh() * b, [x, b], lambda o: o.sum())
    for g, e in zip(got, want):
        assert _bits(g) == _bits(e)


def test_retain_graph_and_second_backward():
    xs = _leaves(10, 10)
    fused = _fused(chain, *xs)
    out = fused(*xs)
    out.sum().backward(retain_graph=True)
    first = [t.grad.clone() for t in xs]
    out.sum().backward()
    for f, t in zip(first, xs):
        assert _bits(t.grad) == _bits(f * 2)
    out2 = fused(*xs)
    out2.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        out2.sum().backward()


def test_autograd_grad_and_create_graph():
    xs = _leaves(6, 5, dtype=tl.float64)
    fused = _fused(chain, *xs)
    (gx,) = tl.autograd.grad(fused(*xs).sum(), [xs[0]], create_graph=True)
    (ex,) = tl.autograd.grad(chain(*xs).sum(), [xs[0]], create_graph=True)
    np.testing.assert_allclose(gx.detach().numpy(), ex.detach().numpy(), rtol=1e-12, atol=1e-14)
    assert gx.requires_grad
    (ggx,) = tl.autograd.grad(gx.sum(), [xs[1]])
    (egx,) = tl.autograd.grad(ex.sum(), [xs[1]])
    np.testing.assert_allclose(ggx.numpy(), egx.numpy(), rtol=1e-10, atol=1e-12)


def test_many_blocks_on_threads():
    xs = _leaves(300, 301)  # 90,300 elements: 1411 blocks of 64 over the pool's threads
    fused = _fused(chain, *xs)
    got = _grads(fused, xs, lambda o: (o * o).sum())
    want = _grads(chain, xs, lambda o: (o * o).sum())
    for g, e in zip(got, want):
        assert _bits(g) == _bits(e)


def test_training_a_traced_module_with_a_full_shape_parameter():
    class Gate(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(tl.randn(16, 8))

        def forward(self, x):
            return ((x * self.w).sigmoid() * x + self.w).tanh()

    tl.manual_seed(0)
    m = Gate()
    x = tl.randn(16, 8)
    traced = tl.jit.trace(m, x)
    with tl.jit.fuser("fuser1"):
        out = traced(x)
    assert out.grad_fn.name() == "FusionGroupBackward"
    out.pow(2).sum().backward()
    g = m.w.grad.clone()
    m.w.grad = None
    m(x).pow(2).sum().backward()
    assert _bits(g) == _bits(m.w.grad)


def test_under_anomaly_mode():
    xs = _leaves(40, 40)
    fused = _fused(chain, *xs)
    with tl.autograd.detect_anomaly():
        got = _grads(fused, xs, lambda o: o.sum())
    want = _grads(chain, xs, lambda o: o.sum())
    for g, e in zip(got, want):
        assert _bits(g) == _bits(e)
