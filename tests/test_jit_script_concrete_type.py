"""Compiled methods cached per concrete type (torchlite/jit/_script/concrete_type.py): scripting a second
instance of a module class with the same configuration reuses the first one's graphs (torch.jit reuses
its compiled class: both instances get one type), and instances whose graphs would differ (constants,
Finals, submodule classes, a parameter registered as None, training flags, attributes the code assigns)
compile separately. Every scripted instance must still compute what its own eager module computes."""
from typing import Final

import numpy as np
import pytest
import torch

import torchlite as tl
import torchlite.nn as nn
from torchlite.jit._passes import script_optimization
from torchlite.jit._script import concrete_type


@pytest.fixture(autouse=True)
def _fresh_cache():
    concrete_type.clear()
    yield
    concrete_type.clear()


def _counts():
    return dict(concrete_type.stats)


def _script_counting(m):
    before = _counts()
    s = tl.jit.script(m)
    after = _counts()
    return s, {k: after[k] - before[k] for k in after}


def _same(a, b):
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


class Scaled(nn.Module):
    k: Final[int]

    def __init__(self, k=2, act="relu", bias=True, sub=None):
        super().__init__()
        self.k = k
        self.act = act
        self.fc = nn.Linear(4, 4, bias=bias)
        self.sub = sub if sub is not None else nn.Identity()

    def forward(self, x):
        y = self.sub(self.fc(x)) * self.k
        if self.act == "relu":
            y = tl.relu(y)
        if self.fc.bias is not None:
            y = y + self.fc.bias
        return y


def test_second_instance_reuses_the_compiled_methods():
    x = tl.randn(3, 4)
    a, b = Scaled(), Scaled()
    sa, ca = _script_counting(a)
    sb, cb = _script_counting(b)
    assert ca["misses"] == 1 and ca["hits"] == 0
    assert cb["hits"] == 1 and cb["misses"] == 0
    _same(sa(x), a(x))
    _same(sb(x), b(x))  # its own weights, through the shared graph
    assert [n.kind() for n in sa.graph.nodes()] == [n.kind() for n in sb.graph.nodes()]
    assert sa.graph is not sb.graph  # each instance has its own copy


@pytest.mark.parametrize("kwargs", [dict(k=3), dict(act="tanh"), dict(bias=False), dict(sub=nn.ReLU())],
                         ids=["final", "constant", "none-parameter", "submodule-class"])
def test_different_configuration_compiles_separately(kwargs):
    x = tl.randn(3, 4)
    a, b = Scaled(), Scaled(**kwargs)
    sa = tl.jit.script(a)
    sb, cb = _script_counting(b)
    assert cb["misses"] == 1 and cb["hits"] == 0
    _same(sa(x), a(x))
    _same(sb(x), b(x))
    c = Scaled(**kwargs)  # ... and is reused by the next instance configured alike
    sc, cc = _script_counting(c)
    assert cc["hits"] == 1
    _same(sc(x), c(x))


def test_torch_gives_one_type_to_instances_alike_and_two_to_instances_that_differ():
    class TorchScaled(torch.nn.Module):
        k: Final[int]

        def __init__(self, k=2):
            super().__init__()
            self.k = k
            self.fc = torch.nn.Linear(4, 4)

        def forward(self, x):
            return self.fc(x) * self.k

    def name(m):
        return torch.jit.script(m)._c._type().qualified_name()
    assert name(TorchScaled()) == name(TorchScaled())
    assert name(TorchScaled()) != name(TorchScaled(k=3))
    _, c1 = _script_counting(Scaled())
    _, c2 = _script_counting(Scaled())
    _, c3 = _script_counting(Scaled(k=3))
    assert (c1["misses"], c2["hits"], c3["misses"]) == (1, 1, 1)


def test_training_modes_are_separate_entries():
    x = tl.randn(8, 4)
    a, b = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5)), nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
    a.eval()
    sa = tl.jit.script(a)
    sb, cb = _script_counting(b)  # b is in training mode: not a's graph
    assert cb["misses"] == 1
    _same(sa(x), a(x))
    tl.manual_seed(0)
    y = sb(x)
    tl.manual_seed(0)
    _same(y, b(x))
    sb.eval()
    before = _counts()
    _same(sb(x), b.eval()(x))  # b's eval graph: a's, from the cache
    assert concrete_type.stats["hits"] == before["hits"] + 1


def test_plain_tensor_attribute_is_not_shared():
    class WithTensor(nn.Module):
        def __init__(self, t):
            super().__init__()
            self.t = t

        def forward(self, x):
            return x + self.t

    a, b = WithTensor(tl.ones(3)), WithTensor(tl.full((3,), 5.0))
    sa, ca = _script_counting(a)
    sb, cb = _script_counting(b)
    assert ca["uncacheable"] == 1 and cb["uncacheable"] == 1
    x = tl.zeros(3)
    _same(sa(x), tl.ones(3))
    _same(sb(x), tl.full((3,), 5.0))


def test_editing_one_instances_graph_leaves_the_next_alone():
    a = Scaled()
    sa = tl.jit.script(a)
    for node in list(sa.graph.nodes()):
        if node.kind() == "aten::relu":
            node.output().replaceAllUsesWith(node.input())
            node.destroy()
    b = Scaled()
    sb = tl.jit.script(b)
    assert "aten::relu" in str(sb.graph) and "aten::relu" not in str(sa.graph)
    x = -tl.ones(3, 4) * 10
    _same(sb(x), b(x))


class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.count = 0
        self.total = tl.zeros(2)
        self.inner = Inner()

    def forward(self, x):
        self.count += 1
        self.total = self.total + x
        return self.inner(x) + self.count


class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 2
        return x * self.calls


def test_assigned_attributes_stay_per_instance():
    a, b = Counter(), Counter()
    sa = tl.jit.script(a)
    sb, cb = _script_counting(b)
    assert cb["hits"] == 1
    x = tl.ones(2)
    for _ in range(3):
        sa(x)
    out = sb(x)
    assert (sa.count, sa.inner.calls, sb.count, sb.inner.calls) == (3, 6, 1, 2)
    assert (a.count, a.inner.calls) == (0, 0)  # the scripted module is a copy, as torch's
    _same(out, x * 2 + 1)
    _same(sa.total, tl.full((2,), 3.0))
    _same(sb.total, tl.ones(2))


def test_pipeline_switch_is_part_of_the_key():
    tl.jit.script(Scaled())
    with script_optimization.disabled():
        s, c = _script_counting(Scaled())
    assert c["misses"] == 1
    x = tl.randn(2, 4)
    _same(s(x), s._traced_from(x))


def test_library_modules_reuse_and_match_eager():
    x = tl.randn(5, 2, 16)
    mods = [nn.MultiheadAttention(16, 4) for _ in range(2)] + [nn.MultiheadAttention(16, 2)]
    scripted = []
    counts = []
    for m in mods:
        s, c = _script_counting(m)
        scripted.append(s)
        counts.append(c)
    assert counts[1]["hits"] == 1 and counts[2]["misses"] == 1
    for m, s in zip(mods, scripted):
        for got, want in zip(s(x, x, x), m(x, x, x)):
            np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)

    lstm = [nn.LSTM(8, 16, 2), nn.LSTM(8, 16, 2), nn.LSTM(8, 16, 1)]
    y = tl.randn(4, 3, 8)
    for i, m in enumerate(lstm):
        s, c = _script_counting(m)
        assert c["hits" if i == 1 else "misses"] == 1
        np.testing.assert_allclose(s(y)[0].detach().numpy(), m(y)[0].detach().numpy(), rtol=1e-5, atol=1e-6)


def test_scripted_instance_saves_and_loads(tmp_path):
    a, b = Scaled(), Scaled()
    tl.jit.script(a)
    sb = tl.jit.script(b)
    path = tmp_path / "b.pt"
    tl.jit.save(sb, str(path))
    loaded = tl.jit.load(str(path))
    x = tl.randn(2, 4)
    _same(loaded(x), b(x))


def scaled_chain(x, n: int = 2):
    for _ in range(n):
        x = tl.relu(x) * 2 - 1
    return x


def test_functions_reuse_their_compiled_graph():
    x = tl.randn(5)
    a, ca = _script_counting(scaled_chain)
    b, cb = _script_counting(scaled_chain)
    assert ca["misses"] == 1 and cb["hits"] == 1
    assert a.graph is not b.graph
    assert [n.kind() for n in a.graph.allNodes()] == [n.kind() for n in b.graph.allNodes()]
    _same(b(x), scaled_chain(x))


def test_function_defaults_and_pipeline_switch_are_part_of_the_key():
    def f(x, k: int = 1):
        return x * k
    tl.jit.script(f)
    f.__defaults__ = (3,)
    s, c = _script_counting(f)
    assert c["misses"] == 1
    _same(s(tl.ones(2)), tl.full((2,), 3.0))
    with script_optimization.disabled():
        _, c = _script_counting(f)
    assert c["misses"] == 1


def test_function_cache_off_compiles_each_time():
    concrete_type.enabled = False
    try:
        _, c1 = _script_counting(scaled_chain)
        _, c2 = _script_counting(scaled_chain)
    finally:
        concrete_type.enabled = True
    assert c1["hits"] == c2["hits"] == 0
