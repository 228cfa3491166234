"""Assigning a parameter inside scripted code (`self.w = ...`), as torch.jit.script 2.13: the parameter's
slot then holds the assigned plain tensor (named_parameters and state_dict give it, the next call reads
it); a value that is not a Tensor, or a Tensor for a parameter registered as None, is refused at compile
time with "Wrong type for attribute assignment"; `self.w += x` on a leaf requiring grad raises the
in-place error when run. Each case runs the same module in both libraries with the same weights."""
import io

import numpy as np
import pytest
import torch

import torchlite as tl


def _t(x):
    return tl.tensor(x.detach().numpy())


def _eq(a, b):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-6)


def _pair(make):
    """(torch module, torchlite module) of the same class body written against each library."""
    return make(torch), make(tl)


def replaces(lib):
    class Replaces(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = lib.nn.Parameter(lib.ones(3))
            self.b = lib.nn.Parameter(lib.zeros(3))

        def forward(self, x):
            y = x * self.w + self.b
            self.w = x * 2
            return y + self.w
    return Replaces()


def replaces_in_submodule(lib):
    class Inner(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = lib.nn.Parameter(lib.ones(2))

        def forward(self, x):
            return x * self.scale

    class Outer(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def forward(self, x):
            self.inner.scale = self.inner.scale + x
            return self.inner(x)
    return Outer()


def replaces_in_branch(lib):
    class Branch(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = lib.nn.Parameter(lib.ones(2))

        def forward(self, x, flag: bool):
            if flag:
                self.w = x.clone()
            return self.w * 3
    return Branch()


def test_assignment_replaces_the_slot():
    tm, lm = _pair(replaces)
    ts, ls = torch.jit.script(tm), tl.jit.script(lm)
    x = torch.randn(3)
    for _ in range(3):  # each call reads what the previous one assigned
        _eq(ls(_t(x)), ts(x))
        _eq(ls.w, ts.w)
        x = x + 1
    assert type(ts.w) is torch.Tensor and type(ls.w) is tl.Tensor  # a plain tensor, no longer a Parameter
    assert not ls.w.requires_grad and not ts.w.requires_grad
    assert [n for n, _ in ls.named_parameters()] == [n for n, _ in ts.named_parameters()] == ["w", "b"]
    assert [type(p).__name__ for _, p in ls.named_parameters()] == ["Tensor", "Parameter"]
    assert list(ls.state_dict()) == list(ts.state_dict())
    _eq(ls.state_dict()["w"], ts.state_dict()["w"])
    assert "prim::SetAttr[name=\"w\"]" in str(ls.graph)


def test_assignment_in_submodule_and_branch():
    tm, lm = _pair(replaces_in_submodule)
    ts, ls = torch.jit.script(tm), tl.jit.script(lm)
    x = torch.randn(2)
    for _ in range(2):
        _eq(ls(_t(x)), ts(x))
    _eq(ls.inner.scale, ts.inner.scale)

    tm, lm = _pair(replaces_in_branch)
    ts, ls = torch.jit.script(tm), tl.jit.script(lm)
    _eq(ls(_t(x), False), ts(x, False))
    assert isinstance(ls.w, tl.nn.Parameter)  # not assigned yet
    _eq(ls(_t(x), True), ts(x, True))
    _eq(ls(_t(x + 5), False), ts(x + 5, False))  # reads the assigned value
    _eq(ls.w, ts.w)


def test_gradient_flows_through_the_assigned_value():
    tm, lm = _pair(replaces)
    ts, ls = torch.jit.script(tm), tl.jit.script(lm)
    x = torch.randn(3, requires_grad=True)
    lx = _t(x).requires_grad_()
    ts(x).sum().backward()
    ls(lx).sum().backward()
    _eq(lx.grad, x.grad)
    _eq(lm.b.grad, tm.b.grad)


def test_save_and_load_after_assignment():
    _, lm = _pair(replaces)
    ls = tl.jit.script(lm)
    ls(tl.full((3,), 2.0))
    buf = io.BytesIO()
    tl.jit.save(ls, buf)
    buf.seek(0)
    loaded = tl.jit.load(buf)
    _eq(loaded.w, ls.w)
    assert [n for n, _ in loaded.named_parameters()] == ["w", "b"]
    out = loaded(tl.ones(3))
    _eq(out, tl.ones(3) * tl.full((3,), 4.0) + 0 + tl.full((3,), 2.0))
    _eq(loaded.w, tl.full((3,), 2.0))


def assigns_int(lib):
    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = lib.nn.Parameter(lib.ones(2))

        def forward(self, x):
            self.w = 3
            return x
    return M()


def assigns_none(lib):
    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = lib.nn.Parameter(lib.ones(2))

        def forward(self, x):
            self.w = None
            return x
    return M()


def assigns_to_none_parameter(lib):
    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_parameter("b", None)

        def forward(self, x):
            self.b = x
            return x
    return M()


@pytest.mark.parametrize("make,msg", [
    (assigns_int, "Wrong type for attribute assignment. Expected Tensor but got int"),
    (assigns_none, "Wrong type for attribute assignment. Expected Tensor but got NoneType"),
    (assigns_to_none_parameter, "Wrong type for attribute assignment. Expected NoneType but got Tensor"),
])
def test_refused_as_torch(make, msg):
    tm, lm = _pair(make)
    with pytest.raises(RuntimeError, match=msg):
        torch.jit.script(tm)
    with pytest.raises(RuntimeError, match=msg) as err:
        tl.jit.script(lm)
    assert "<--- HERE" in str(err.value) and "self." in str(err.value)


def in_place_on_leaf(lib):
    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = lib.nn.Parameter(lib.ones(2))

        def forward(self, x):
            self.w += x
            return self.w
    return M()


def test_in_place_update_of_a_leaf_raises_when_run():
    tm, lm = _pair(in_place_on_leaf)
    ts, ls = torch.jit.script(tm), tl.jit.script(lm)
    msg = "a leaf Variable that requires grad is being used in an in-place operation"
    with pytest.raises(RuntimeError, match=msg):
        ts(torch.ones(2))
    with pytest.raises(RuntimeError, match=msg):
        ls(tl.ones(2))
    with torch.no_grad():
        _eq(torch.jit.script(in_place_on_leaf(torch))(torch.ones(2)), torch.full((2,), 2.0))
    with tl.no_grad():
        _eq(tl.jit.script(in_place_on_leaf(tl))(tl.ones(2)), tl.full((2,), 2.0))


def state(lib):
    class State(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = lib.nn.Parameter(lib.ones(3))
            self.register_buffer("buf", lib.zeros(3))
            self.count = 0
            self.t = lib.ones(2)
            self.inner = lib.nn.Linear(3, 3)

        def forward(self, x):
            self.w = x * 2
            self.buf = x + 1
            self.count += 1
            self.t = x[:2]
            self.inner.weight = self.inner.weight * 0.5
            return self.w + self.buf
    return State()


def test_scripted_module_is_a_copy_as_torch():
    """torch's scripted module has slots of its own holding the original's objects: what a call assigns
    (parameters, buffers, attributes, submodules' parameters) is not seen by the original, which keeps its
    Parameters; Python assignments to either afterwards are not seen by the other; in-place changes of the
    shared tensors are."""
    facts = {}
    for lib in (torch, tl):
        m = state(lib)
        w0, buf0, t0, iw0 = m.w, m.buf, m.t, m.inner.weight
        s = lib.jit.script(m)
        f = {"shared at first": (s.w is w0, s.buf is buf0, s.t is t0, s.inner.weight is iw0,
                                 [p is q for p, q in zip(s.parameters(), m.parameters())])}
        s(lib.full((3,), 5.0))
        f["original after a call"] = (m.w is w0, type(m.w).__name__, m.buf is buf0, m.count, m.t is t0,
                                      m.inner.weight is iw0, type(m.inner.weight).__name__,
                                      [n for n, _ in m.named_parameters()], m.w.tolist(), m.buf.tolist())
        f["scripted after a call"] = (type(s.w).__name__, s.w.tolist(), s.buf.tolist(), s.count, s.t.tolist(),
                                      type(s.inner.weight).__name__, s.inner.weight.requires_grad,
                                      [(n, type(p).__name__) for n, p in s.named_parameters()],
                                      list(s.state_dict()))
        s.count = 10
        f["original after s.count = 10"] = m.count
        m.count = 20
        f["scripted after m.count = 20"] = s.count
        m.w = lib.nn.Parameter(lib.full((3,), 7.0))
        f["scripted after replacing m.w"] = s.w.tolist()
        with lib.no_grad():
            m.inner.bias.fill_(3.0)  # in place: the same tensor in both
        f["in-place change seen"] = s.inner.bias.tolist() == m.inner.bias.tolist() == [3.0] * 3
        m.eval()
        f["training flags after m.eval()"] = (m.training, s.training, s.inner.training)
        facts[lib.__name__] = f
    t, l = facts["torch"], facts["torchlite"]
    assert t.keys() == l.keys()
    for k in t:
        assert l[k] == t[k], k


def test_optimizer_over_the_original_trains_the_scripted_module():
    """The Parameters are shared objects: an optimizer over the original's parameters updates what the
    scripted module reads (in place), in both libraries."""
    for lib in (torch, tl):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 2)
        s = lib.jit.script(m)
        opt = lib.optim.SGD(m.parameters(), lr=0.1)
        before = s.weight.detach().clone()
        s(lib.ones(1, 3)).sum().backward()
        opt.step()
        assert m.weight.grad is not None and s.weight is m.weight
        assert not lib.equal(before, s.weight.detach())
