"""Inlined calls compiled once per (function, argument types, self's concrete type) and copied at each call
site (torchlite/jit/_script/call_cache.py): the same values as compiling every site (the cache off) and as
torch.jit.script, the body compiled once, separate compilations where constant arguments, aliasing of the
arguments or the module's configuration differ, and no sharing of mutable results."""
from typing import List

import numpy as np
import pytest
import torch

import torchlite as tl
from torchlite.jit._script import call_cache, concrete_type


@pytest.fixture(autouse=True)
def _fresh():
    concrete_type.clear()
    yield
    call_cache.enabled = True
    concrete_type.clear()


def _np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t.detach().tolist())


def _both_ways(build, *args):
    """The scripted module's output with the call cache on and off (fresh compilations)."""
    out = []
    for on in (True, False):
        call_cache.enabled = on
        concrete_type.clear()
        out.append(tl.jit.script(build())(*args))
    return out


def helper(x, scale: float, square: bool):
    if square:
        return x * x * scale
    return x * scale


def t_helper(x, scale: float, square: bool):
    if square:
        return x * x * scale
    return x * scale


def calls_helper(x):
    return helper(x, 2.0, True) + helper(x, 2.0, True) + helper(x, 3.0, False) + helper(x + 1, 3.0, False)


def t_calls_helper(x):
    return t_helper(x, 2.0, True) + t_helper(x, 2.0, True) + t_helper(x, 3.0, False) + t_helper(x + 1, 3.0, False)


def test_function_called_four_times_compiles_per_constant_arguments():
    call_cache.stats.update(hits=0, misses=0)
    f = tl.jit.script(calls_helper)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(_np(f(tl.tensor(x))), _np(torch.jit.script(t_calls_helper)(torch.tensor(x))))
    assert call_cache.stats["misses"] == 2 and call_cache.stats["hits"] == 2  # (2.0, True) and (3.0, False)
    # every site is in the graph (the two identical sites then merged by CSE, as when each site compiled)
    assert len(f.graph.findAllNodes("aten::mul")) == 2 + 1 + 1


def is_same(a, b) -> bool:
    return a is b


def uses_is(x, y) -> int:
    return int(is_same(x, x)) * 10 + int(is_same(x, y))


def test_arguments_passed_twice_key_their_aliasing():
    f = tl.jit.script(uses_is)
    assert f(tl.ones(1), tl.ones(1)) == 10  # `a is b` folds True at the first site, False at the second


def fill(xs: List[int], n: int) -> List[int]:
    for i in range(n):
        xs.append(i)
    return xs


def make() -> List[int]:
    return [1]


def lists(n: int) -> List[int]:
    a = make()
    b = make()
    a.append(n)  # b is a list of its own: the copies of make's body must not share it
    fill(a, 2)
    fill(b, 3)
    return a + b


def t_fill(xs: List[int], n: int) -> List[int]:
    for i in range(n):
        xs.append(i)
    return xs


def t_make() -> List[int]:
    return [1]


def t_lists(n: int) -> List[int]:
    a = t_make()
    b = t_make()
    a.append(n)
    t_fill(a, 2)
    t_fill(b, 3)
    return a + b


def test_mutable_results_and_arguments():
    f = tl.jit.script(lists)
    assert f(7) == torch.jit.script(t_lists)(7) == [1, 7, 0, 1, 1, 0, 1, 2]
    assert f(8) == [1, 8, 0, 1, 1, 0, 1, 2]  # no list kept from the first call


@pytest.mark.parametrize("kind", ["decoder", "encoder", "mha"])
def test_transformers_same_values_with_and_without_the_cache(kind):
    rng = np.random.default_rng(0)
    tgt = tl.tensor(rng.standard_normal((5, 2, 16)).astype(np.float32))
    mem = tl.tensor(rng.standard_normal((7, 2, 16)).astype(np.float32))

    def build():
        tl.manual_seed(0)
        if kind == "decoder":
            return tl.nn.TransformerDecoder(tl.nn.TransformerDecoderLayer(16, 4, 32, dropout=0.0), 2).eval()
        if kind == "encoder":
            return tl.nn.TransformerEncoder(tl.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0), 2,
                                            enable_nested_tensor=False).eval()
        return tl.nn.MultiheadAttention(16, 4).eval()
    args = {"decoder": (tgt, mem), "encoder": (tgt,), "mha": (tgt, mem, mem)}[kind]
    on, off = _both_ways(build, *args)
    on, off = (on[0], off[0]) if isinstance(on, tuple) else (on, off)
    np.testing.assert_array_equal(_np(on), _np(off))


@pytest.mark.parametrize("kind", ["decoder", "encoder"])
def test_graphs_identical_up_to_value_names(kind):
    import re

    def graph(on):
        call_cache.enabled = on
        concrete_type.clear()
        layer = (tl.nn.TransformerDecoderLayer if kind == "decoder" else tl.nn.TransformerEncoderLayer)(16, 4, 32,
                                                                                                       dropout=0.0)
        m = tl.nn.TransformerDecoder(layer, 2) if kind == "decoder" else \
            tl.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        return re.sub(r"%[\w.]+", "%v", str(tl.jit.script(m.eval()).graph))
    assert graph(True) == graph(False)


def test_decoder_compiles_attention_once_per_argument_pattern():
    call_cache.stats.update(hits=0, misses=0)
    m = tl.nn.TransformerDecoder(tl.nn.TransformerDecoderLayer(16, 4, 32, dropout=0.0), 2).eval()
    tl.jit.script(m)
    fns = [k[0].obj for k, v in call_cache._cache.items() if v is not False]
    mha = [f for f in fns if f is tl.nn.MultiheadAttention.forward]
    assert len(mha) == 2  # self-attention (q is k is v) and cross-attention: not once per layer
    assert fns.count(tl.nn.TransformerDecoderLayer.forward) == 1  # the second layer reuses the first's
    hits = call_cache.stats["hits"]
    tl.jit.script(tl.nn.TransformerDecoder(tl.nn.TransformerDecoderLayer(16, 4, 32, dropout=0.0), 3).eval())
    assert call_cache.stats["hits"] > hits  # across script() calls: a 3-layer decoder (another key) reuses layers


class Counter(tl.nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def bump(self, x):
        self.calls += 1
        return x + self.calls

    def forward(self, x):
        return self.bump(x) + self.bump(x)


class TCounter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def bump(self, x):
        self.calls += 1
        return x + self.calls

    def forward(self, x):
        return self.bump(x) + self.bump(x)


def test_methods_assigning_attributes_as_torch():
    m, tm = tl.jit.script(Counter()), torch.jit.script(TCounter())
    for _ in range(2):
        np.testing.assert_array_equal(_np(m(tl.zeros(2))), _np(tm(torch.zeros(2))))
    assert m.calls == tm.calls == 4


def bad(x, n: int):
    if n > 1:
        return x.nope()
    return x


def calls_bad(x):
    return bad(x, 0) + bad(x, 2)


def test_errors_in_a_callee_point_at_its_line():
    with pytest.raises(RuntimeError, match="nope") as info:
        tl.jit.script(calls_bad)
    assert "return x.nope()" in str(info.value)


def test_insert_graph_binding():
    from torchlite._C import _jit
    callee = _jit.Graph()
    a, b = callee.addInput("a"), callee.addInput("b")
    s = callee.insertNode(callee.create("aten::mul", [a, b])).output()
    callee.registerOutput(callee.insertNode(callee.create("aten::add", [s, a, callee.insertConstant(1)])).output())
    g = _jit.Graph()
    x = g.addInput("x")
    (out,) = g.insertGraph(callee, [x, x])
    g.registerOutput(g.insertGraph(callee, [out, x])[0])
    g.lint()
    (r,) = _jit.run_graph(g, [tl.tensor([2.0, 3.0])])
    assert r.tolist() == [18.0, 48.0]  # o = x*x + x, then o*x + o
    with pytest.raises(ValueError, match="takes 2 inputs"):
        g.insertGraph(callee, [x])
