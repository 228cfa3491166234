"""The autograd engine against PyTorch: gradients, accumulation, higher order, grad modes,
graph lifetime, hooks, and the error messages users see."""
import gc
import threading
import weakref

import numpy as np
import pytest
import torch

import torchlite as tl
from torchlite._C import _autograd as _C


def pair(shape, seed=0, dtype="float64", positive=False):
    """The same values as a torchlite and a torch leaf, both requiring grad."""
    a = np.random.default_rng(seed).standard_normal(shape)
    if positive:
        a = np.abs(a) + 0.5
    a = a.astype(dtype)
    return (tl.tensor(a.tolist(), dtype=getattr(tl, dtype), requires_grad=True),
            torch.tensor(a, requires_grad=True))


def np_of(t):
    return np.asarray(t.detach().tolist(), dtype=np.float64)


def assert_close(t_tl, t_torch, rtol=1e-6, atol=1e-8):
    assert t_tl is not None and t_torch is not None
    assert tuple(t_tl.shape) == tuple(t_torch.shape)
    np.testing.assert_allclose(np_of(t_tl), t_torch.detach().double().numpy(), rtol=rtol, atol=atol)


# Functions written once for both libraries (m is the module: torchlite or torch).
FUNCS = {
    "mul": (lambda m, x, y: m.mul(x, y).sum(), [(2, 3), (2, 3)]),
    "broadcast_mul": (lambda m, x, y: (x * y).sum(), [(2, 3), (3,)]),
    "broadcast_add": (lambda m, x, y: ((x + y) * x).sum(), [(4, 1, 3), (2, 1)]),
    "sub_alpha": (lambda m, x, y: (m.sub(x, y, alpha=2.5) ** 2).sum(), [(3,), (3,)]),
    "div": (lambda m, x, y: m.div(x, y).sum(), [(2, 3), (2, 3)]),
    "pow_scalar": (lambda m, x: (x ** 3).sum(), [(5,)]),
    "exp_log": (lambda m, x: m.log(m.exp(x) + 1).sum(), [(2, 2)]),
    "sum_dim": (lambda m, x: (m.sum(x, 1) ** 2).sum(), [(3, 4)]),
    "sum_keepdim": (lambda m, x: (m.sum(x, [0, 2], keepdim=True) * x).sum(), [(2, 3, 4)]),
    "mean": (lambda m, x: (m.mean(x, 0) ** 2).sum() + m.mean(x), [(3, 4)]),
    "mm": (lambda m, x, y: (m.mm(x, y) ** 2).sum(), [(2, 3), (3, 4)]),
    "transpose_permute": (lambda m, x: (m.permute(x, (2, 0, 1)) * m.transpose(x, 0, 2).transpose(1, 2)).sum(),
                          [(2, 3, 4)]),
    "select_slice": (lambda m, x: (x.select(0, 1) ** 2).sum() + (x[:, 1:3] ** 3).sum(), [(3, 4)]),
    "reuse": (lambda m, x: (x * x * x + x).sum(), [(4,)]),
    "where_relu": (lambda m, x: (m.where(x > 0, x, x * 3) + m.relu(x)).sum(), [(6,)]),
}


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_backward_matches_torch(name):
    fn, shapes = FUNCS[name]
    pairs = [pair(s, seed=i, positive=(name == "div")) for i, s in enumerate(shapes)]
    tl_in, torch_in = [p[0] for p in pairs], [p[1] for p in pairs]
    fn(tl, *tl_in).backward()
    fn(torch, *torch_in).backward()
    for a, b in zip(tl_in, torch_in):
        assert_close(a.grad, b.grad)


@pytest.mark.parametrize("name", ["mul", "div", "pow_scalar", "exp_log", "mm", "select_slice", "reuse", "sum_dim"])
def test_second_order_matches_torch(name):
    fn, shapes = FUNCS[name]
    pairs = [pair(s, seed=10 + i, positive=True) for i, s in enumerate(shapes)]
    tl_in, torch_in = [p[0] for p in pairs], [p[1] for p in pairs]
    g_tl = tl.autograd.grad(fn(tl, *tl_in), tl_in, create_graph=True)
    g_torch = torch.autograd.grad(fn(torch, *torch_in), torch_in, create_graph=True)
    for a, b in zip(g_tl, g_torch):
        assert_close(a, b)
    s_tl = sum((g * g).sum() for g in g_tl)
    s_torch = sum((g * g).sum() for g in g_torch)
    gg_tl = tl.autograd.grad(s_tl, tl_in, allow_unused=True)
    gg_torch = torch.autograd.grad(s_torch, torch_in, allow_unused=True)
    for a, b in zip(gg_tl, gg_torch):
        if b is None:
            assert a is None
        else:
            assert_close(a, b)


def test_third_order():
    x = tl.tensor([1.0, 2.0, 3.0], dtype=tl.float64, requires_grad=True)
    (g1,) = tl.autograd.grad((x ** 4).sum(), x, create_graph=True)
    (g2,) = tl.autograd.grad(g1.sum(), x, create_graph=True)
    (g3,) = tl.autograd.grad(g2.sum(), x)
    assert g3.tolist() == pytest.approx([24.0, 48.0, 72.0])


def test_grad_accumulates_and_keeps_identity():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    g = x.grad
    (x * 3).sum().backward()
    assert x.grad.tolist() == pytest.approx([5.0, 7.0])
    assert x.grad is g
    assert not x.grad.requires_grad and x.grad.grad_fn is None


def test_backward_create_graph_gives_grad_with_history():
    x = tl.tensor([1.0, 2.0], dtype=tl.float64, requires_grad=True)
    (x ** 3).sum().backward(create_graph=True)
    assert x.grad.requires_grad
    (gg,) = tl.autograd.grad(x.grad.sum(), x)
    assert gg.tolist() == pytest.approx([6.0, 12.0])


def test_retain_graph():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == pytest.approx([4.0, 8.0])
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_autograd_grad_does_not_touch_grad_and_allow_unused():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    w = tl.tensor([3.0], requires_grad=True)
    y = (x * x).sum()
    (g,) = tl.autograd.grad(y, x, retain_graph=True)
    assert g.tolist() == pytest.approx([2.0, 4.0])
    assert x.grad is None
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        tl.autograd.grad(y, [x, w], retain_graph=True)
    gx, gw = tl.autograd.grad(y, [x, w], allow_unused=True, retain_graph=True)
    assert gw is None and gx is not None
    gx, gw = tl.autograd.grad(y, [x, w], materialize_grads=True)
    assert gw.tolist() == [0.0]
    with pytest.raises(RuntimeError, match="does not require grad"):
        tl.autograd.grad((x * 2).sum(), [tl.tensor([1.0])])


def test_grad_of_non_leaf_and_grad_outputs():
    x, xt = pair((2, 3))
    h, ht = x * 2, xt * 2
    go = np.arange(6.0).reshape(2, 3)
    gh, gx = tl.autograd.grad(h.exp(), [h, x], tl.tensor(go.tolist(), dtype=tl.float64))
    ght, gxt = torch.autograd.grad(ht.exp(), [ht, xt], torch.tensor(go))
    assert_close(gh, ght)
    assert_close(gx, gxt)


def test_backward_inputs():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    w = tl.tensor([3.0, 4.0], requires_grad=True)
    h = x * w
    z = (h * 2).sum()
    z.backward(inputs=[w], retain_graph=True)
    assert w.grad.tolist() == pytest.approx([2.0, 4.0]) and x.grad is None
    tl.autograd.backward(z, inputs=[h])
    assert h.grad.tolist() == pytest.approx([2.0, 2.0]) and x.grad is None
    with pytest.raises(RuntimeError, match="cannot be empty"):
        tl.autograd.backward(z, inputs=[])


def test_root_errors():
    x = tl.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        y.backward()
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of \[3\] "
                                            r"and output\[0\] has a shape of \[2, 3\]\."):
        y.backward(tl.tensor([1.0, 1.0, 1.0]))
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        tl.tensor([1.0]).sum().backward()
    y.backward(tl.ones([2, 3], dtype=tl.float64))  # another dtype is cast
    assert x.grad.dtype == tl.float32 and x.grad.tolist() == [[2.0] * 3] * 2


def test_inplace_checks_and_version_counter():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation."):
        x.mul_(2)
    with tl.no_grad():
        x.mul_(1)  # allowed without grad mode
    a = tl.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    b = a * 1
    c = b * b
    b.add_(1)
    with pytest.raises(RuntimeError, match=r"one of the variables needed for gradient computation has been modified "
                                            r"by an inplace operation: \[torchlite.FloatTensor \[2, 3\]\], which is "
                                            r"output 0 of MulBackward0, is at version 1; expected version 0 instead"):
        c.sum().backward()
    e = a.exp()
    e.add_(1)
    with pytest.raises(RuntimeError, match="output 0 of ExpBackward0, is at version 1; expected version 0"):
        e.sum().backward()


def test_requires_grad_rules():
    with pytest.raises(RuntimeError, match="only Tensors of floating point and complex dtype can require gradients"):
        tl.tensor([1, 2], requires_grad=True)
    x = tl.tensor([1.0], requires_grad=True)
    y = x * 2
    assert not y.is_leaf and x.is_leaf and y.requires_grad
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        y.requires_grad_(False)
    assert not x.detach().requires_grad


def test_grad_fn_objects_like_torch():
    x, xt = pair((2,), 1)
    w, wt = pair((2,), 2)
    y, yt = (x * w).exp(), (xt * wt).exp()
    assert y.grad_fn.name() == yt.grad_fn.name() == "ExpBackward0"
    assert type(y.grad_fn).__name__ == "ExpBackward0"
    assert repr(y.grad_fn).startswith("<ExpBackward0 object at 0x")
    assert y.grad_fn is y.grad_fn
    (mul, nr), = y.grad_fn.next_functions
    (mul_t, nr_t), = yt.grad_fn.next_functions
    assert mul.name() == mul_t.name() == "MulBackward0" and nr == nr_t == 0
    names = [(f.name() if f is not None else None, i) for f, i in mul.next_functions]
    names_t = [(type(f).__name__ if f is not None else None, i) for f, i in mul_t.next_functions]
    assert names == names_t == [("AccumulateGrad", 0), ("AccumulateGrad", 0)]
    z = x * tl.tensor([1.0, 1.0], dtype=tl.float64)
    assert z.grad_fn.next_functions[1] == (None, 0)
    y.grad_fn.metadata["k"] = 1
    assert y.grad_fn.metadata == {"k": 1}
    assert x.grad_fn is None


def test_saved_bytes():
    x = tl.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x.exp()  # saves its float32 result
    assert y.grad_fn.saved_bytes() == 16 and y.grad_fn._saved_bytes == 16
    assert (x * 2).grad_fn.saved_bytes() == 8  # the wrapped number 2 (int64), as PyTorch's _saved_other
    y.sum().backward()
    assert y.grad_fn.saved_bytes() == 0  # released


def test_long_chain_backward_and_teardown():
    x = tl.tensor([2.0], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0]
    del y  # frees a 100k-node graph without recursion


def test_graph_is_freed_when_unreachable():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()  # the node saves its own output: no cycle may keep it alive
    ref = weakref.ref(y.grad_fn)
    del y
    gc.collect()
    assert ref() is None


def test_no_grad_enable_grad_set_grad_enabled():
    x = tl.tensor([1.0], requires_grad=True)
    with tl.autograd.no_grad():
        assert not tl.is_grad_enabled()
        assert not (x * 2).requires_grad
        with tl.autograd.enable_grad():
            assert (x * 2).requires_grad
    assert tl.is_grad_enabled()

    @tl.autograd.no_grad()
    def f(t):
        return t * 2

    @tl.autograd.no_grad
    def g(t):
        return t * 2

    assert not f(x).requires_grad and not g(x).requires_grad and tl.is_grad_enabled()

    tl.autograd.set_grad_enabled(False)
    try:
        assert not tl.is_grad_enabled()
    finally:
        tl.autograd.set_grad_enabled(True)
    with tl.autograd.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert tl.is_grad_enabled()

    @tl.autograd.set_grad_enabled(False)
    def h(t):
        return t * 2

    assert tl.is_grad_enabled()
    assert not h(x).requires_grad

    @tl.autograd.no_grad()
    def gen():
        yield tl.is_grad_enabled()
        yield tl.is_grad_enabled()

    assert list(gen()) == [False, False]
    assert tl.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = []
    with tl.autograd.no_grad():
        t = threading.Thread(target=lambda: seen.append(tl.is_grad_enabled()))
        t.start()
        t.join()
    assert seen == [True]


def test_tensor_hooks_and_retain_grad():
    x = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x.register_hook(lambda g: g * 2)
    h = x * 3
    h.register_hook(lambda g: g + 1)
    h.retain_grad()
    assert h.retains_grad and not x.retains_grad
    h.sum().backward()
    assert h.grad.tolist() == [2.0, 2.0, 2.0]
    assert x.grad.tolist() == [12.0, 12.0, 12.0]
    # the leaf's hook also applies to autograd.grad
    (g,) = tl.autograd.grad((x * 1).sum(), x)
    assert g.tolist() == [2.0, 2.0, 2.0]
    # handles remove hooks
    y = tl.tensor([1.0], requires_grad=True)
    handle = y.register_hook(lambda g: g * 10)
    handle.remove()
    (y * 1).sum().backward()
    assert y.grad.tolist() == [1.0]
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        tl.tensor([1.0]).register_hook(lambda g: g)
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has requires_grad=False"):
        tl.tensor([1.0]).retain_grad()


def test_tensor_hooks_like_torch():
    (x, xt), (w, wt) = pair((3,), 1), pair((3,), 2)
    for a, b, m in ((x, w, tl), (xt, wt, torch)):
        a.register_hook(lambda g: g * 3)
        h = a * b
        h.register_hook(lambda g: g.exp())
        h.retain_grad()
        (h * h).sum().backward()
        h_grad = h.grad
        if m is tl:
            tl_h = h_grad
        else:
            assert_close(tl_h, h_grad)
    assert_close(x.grad, xt.grad)
    assert_close(w.grad, wt.grad)


def test_failing_hook_raises_its_exception():
    y = tl.tensor([1.0], requires_grad=True)

    def bad(g):
        raise ValueError("boom")

    y.register_hook(bad)
    with pytest.raises(ValueError, match="boom"):
        (y * 2).sum().backward()


def test_post_accumulate_grad_hook():
    calls = []
    p = tl.tensor([1.0], requires_grad=True)
    handle = p.register_post_accumulate_grad_hook(lambda t: calls.append(t.grad.tolist()))
    (p * 5).sum().backward()
    assert calls == [[5.0]]
    handle.remove()
    (p * 5).sum().backward()
    assert calls == [[5.0]]
    with pytest.raises(RuntimeError, match="post accumulate grad hooks cannot be registered on non-leaf tensors"):
        (p * 2).register_post_accumulate_grad_hook(lambda t: None)


def test_node_hooks():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    seen = []
    y.grad_fn.register_prehook(lambda grad_outputs: (grad_outputs[0] * 10,))
    handle = y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(len(grad_inputs)))
    y.sum().backward(retain_graph=True)
    # x * 2 is mul.Tensor with a wrapped number, as in PyTorch: two grad_inputs (None for the number)
    assert x.grad.tolist() == [20.0, 20.0] and seen == [2]
    handle.remove()
    y.sum().backward()
    assert seen == [2]


# In-place ops on views of tensors with history: the base's history is rewritten (CopySlices) and
# every view of it reads the base's new value.
INPLACE_ON_VIEWS = {
    "slice_mul": lambda m, x, w: _slice_mul(x, w),
    "use_view_after": lambda m, x, w: _slice_then_use_view(x, w),
    "view_of_view": lambda m, x, w: _view_of_view(x, w),
    "two_inplace": lambda m, x, w: _two_inplace(x, w),
    "transpose_view": lambda m, x, w: _transpose_view(x),
    "select_add": lambda m, x, w: _select_add(x, w),
}


def _slice_mul(x, w):
    b = x * 1
    b[1:3].mul_(w)
    return (b * b).sum()


def _slice_then_use_view(x, w):
    b = x * 2
    v = b[0:2]
    v.mul_(w)
    return b.exp().sum() + (v * v).sum()


def _view_of_view(x, w):
    b = (x * 1).view(2, 2)
    u = b[1][0:1]
    u.mul_(w[1:])
    return (b ** 2).sum()


def _two_inplace(x, w):
    b = x * 1
    v = b[0:2]
    v.mul_(w)
    v.exp_()
    return (b * b).sum()


def _transpose_view(x):
    b = (x * 1).view(2, 2)
    b.t().mul_(2.0)
    return (b * x.view(2, 2)).sum()


def _select_add(x, w):
    b = x * 3
    b.select(0, 3).add_(w[0])
    return (b * x).sum()


@pytest.mark.parametrize("name", sorted(INPLACE_ON_VIEWS))
def test_inplace_on_view_matches_torch(name):
    fn = INPLACE_ON_VIEWS[name]
    grads = []
    for m in (tl, torch):
        x = m.tensor([1.0, 2.0, 3.0, 4.0], dtype=m.float64, requires_grad=True)
        w = m.tensor([0.5, -1.5], dtype=m.float64, requires_grad=True)
        gs = m.autograd.grad(fn(m, x, w), [x, w], allow_unused=True)
        grads.append([None if g is None else np_of(g) for g in gs])
    for a, b in zip(*grads):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-10)


def test_inplace_on_view_graph_like_torch():
    for m in (tl, torch):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        b = x * 1
        v = b[0:1]
        v.mul_(2)
        assert type(b.grad_fn).__name__ == "CopySlices"
        assert type(v.grad_fn).__name__ == "AsStridedBackward0"
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an in-place operation."):
        x[0:1].mul_(2)
    d = x.detach()
    d.mul_(2)  # a detached alias is not a differentiable view
