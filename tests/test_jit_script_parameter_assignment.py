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
