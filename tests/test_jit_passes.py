"""The JIT's passes (torchlite.jit._passes), each on graphs built from Python and on traced models:
the graph before and after, and the same results from the interpreter."""
import numpy as np

import torchlite as tl
import torchlite.nn as nn
from torchlite._C import _jit
from torchlite.jit._passes import (
    AliasDb, constant_propagation, eliminate_common_subexpression, eliminate_dead_code, peephole,
)


def _kinds(g):
    return [n.kind() for n in g.nodes()]


def _node(g, kind, *inputs):
    return g.insertNode(g.create(kind, list(inputs)))


def _same_results(before, after, inputs):
    for a, b in zip(_jit.run_graph(before, inputs), _jit.run_graph(after, inputs)):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def _typed_input(g, name, example):
    v = g.addInput(name)
    v.setType(_jit.Type.of(example))
    return v


def test_dce_removes_dead_chains_and_keeps_writes():
    g = _jit.Graph()
    x = g.addInput("x")
    dead = _node(g, "aten::exp", x)
    _node(g, "aten::neg", dead.output())  # a dead chain: neg(exp(x))
    buf = _node(g, "aten::clone", x, g.insertConstant(None))
    _node(g, "aten::add_", buf.output(), x, g.insertConstant(1))  # writes buf; its own result is unused
    g.registerOutput(buf.output())
    before = g.copy()
    assert eliminate_dead_code(g) == 2
    assert _kinds(g) == ["prim::Constant", "aten::clone", "prim::Constant", "aten::add_"]
    g.lint()
    _same_results(before, g, [tl.arange(3.0)])
    assert eliminate_dead_code(g) == 0


def test_cse_merges_repeats_but_not_random_or_written_values():
    g = _jit.Graph()
    x = g.addInput("x")
    a = _node(g, "aten::sin", x)
    b = _node(g, "aten::sin", x)
    r1 = _node(g, "aten::rand_like", x, *[g.insertConstant(None)] * 2)
    r2 = _node(g, "aten::rand_like", x, *[g.insertConstant(None)] * 2)
    s = _node(g, "aten::add", a.output(), b.output(), g.insertConstant(1))
    t = _node(g, "aten::add", r1.output(), r2.output(), g.insertConstant(1))
    g.registerOutput(s.output())
    g.registerOutput(t.output())
    before = g.copy()
    removed = eliminate_common_subexpression(g)
    assert _kinds(g).count("aten::sin") == 1 and _kinds(g).count("aten::rand_like") == 2
    assert removed == 3  # the second sin, the second None constant, the second 1
    g.lint()
    out_before, out_after = _jit.run_graph(before, [tl.arange(4.0)])[0], _jit.run_graph(g, [tl.arange(4.0)])[0]
    np.testing.assert_array_equal(out_before.numpy(), out_after.numpy())

    # y = x.clone(); y.add_(1) between two reads of y: the reads must not merge
    g = _jit.Graph()
    x = g.addInput("x")
    y = _node(g, "aten::clone", x, g.insertConstant(None)).output()
    first = _node(g, "aten::exp", y)
    _node(g, "aten::add_", y, x, g.insertConstant(1))
    second = _node(g, "aten::exp", y)
    g.registerOutput(first.output())
    g.registerOutput(second.output())
    before = g.copy()
    eliminate_common_subexpression(g)
    assert _kinds(g).count("aten::exp") == 2
    _same_results(before, g, [tl.arange(3.0)])


def test_constant_propagation_folds_pure_nodes_only():
    g = _jit.Graph()
    x = g.addInput("x")
    c = g.insertConstant(tl.full((2,), 2.0))
    e = _node(g, "aten::exp", c)
    m = _node(g, "aten::mul", x, e.output())
    lst = _node(g, "prim::ListConstruct", g.insertConstant(1), g.insertConstant(2))
    lst.output().setType("int[]")
    shaped = _node(g, "aten::zeros", lst.output(), *[g.insertConstant(None)] * 2)
    rnd = _node(g, "aten::rand", lst.output(), *[g.insertConstant(None)] * 3)
    g.registerOutput(m.output())
    g.registerOutput(shaped.output())
    g.registerOutput(rnd.output())
    before = g.copy()
    folded = constant_propagation(g)
    kinds = _kinds(g)
    assert "aten::exp" not in kinds and "aten::zeros" not in kinds and "prim::ListConstruct" not in kinds
    assert "aten::rand" in kinds and "aten::mul" in kinds  # random, and reading an input
    assert folded == 3
    eliminate_dead_code(g)
    g.lint()
    out_before, out_after = _jit.run_graph(before, [tl.ones(2)]), _jit.run_graph(g, [tl.ones(2)])
    for i in (0, 1):
        np.testing.assert_allclose(out_before[i].numpy(), out_after[i].numpy())


def test_constant_propagation_leaves_errors_to_the_run():
    g = _jit.Graph()
    bad = _node(g, "aten::add", g.insertConstant(tl.ones(2)), g.insertConstant(tl.ones(3)), g.insertConstant(1))
    g.registerOutput(bad.output())
    assert constant_propagation(g) == 0
    import pytest
    with pytest.raises(RuntimeError):
        _jit.run_graph(g, [])


def test_peephole_rewrites():
    example = tl.randn(2, 3)
    g = _jit.Graph()
    x = _typed_input(g, "x", example)
    tt = _node(g, "aten::t", _node(g, "aten::t", x).output())
    tr = _node(g, "aten::transpose", _node(g, "aten::transpose", x, g.insertConstant(0), g.insertConstant(1)).output(),
               g.insertConstant(1), g.insertConstant(0))
    nn_ = _node(g, "aten::neg", _node(g, "aten::neg", x).output())
    plus0 = _node(g, "aten::add", x, g.insertConstant(0), g.insertConstant(1))
    times1 = _node(g, "aten::mul", x, g.insertConstant(1))
    plus_half = _node(g, "aten::add", x, g.insertConstant(0.5), g.insertConstant(1))
    cont = _node(g, "aten::contiguous", x, g.insertConstant(tl.contiguous_format))
    view = _node(g, "aten::view", x, g.insertConstant([2, 3]))
    to = _node(g, "aten::to", x, g.insertConstant(tl.float32), g.insertConstant(False), g.insertConstant(False))
    for n in (tt, tr, nn_, plus0, times1, plus_half, cont, view, to):
        g.registerOutput(n.output())
    before = g.copy()
    assert peephole(g) == 8
    assert [v.debugName() for v in g.outputs()][:5] == ["x"] * 5
    assert g.outputs()[5].node().kind() == "aten::add"  # x + 0.5 stays
    eliminate_dead_code(g)
    assert _kinds(g).count("aten::t") == 0 and _kinds(g).count("aten::neg") == 0
    _same_results(before, g, [example])


def test_peephole_respects_dtypes_and_writes():
    g = _jit.Graph()
    b = _typed_input(g, "b", tl.ones(2, dtype=tl.bool))
    i = _typed_input(g, "i", tl.ones(2, dtype=tl.int64))
    bool_plus0 = _node(g, "aten::add", b, g.insertConstant(0), g.insertConstant(1))  # bool + 0 is int64
    int_plus0f = _node(g, "aten::add", i, g.insertConstant(0.0), g.insertConstant(1))  # int + 0.0 is float
    written = _node(g, "aten::add", i, g.insertConstant(0), g.insertConstant(1))
    _node(g, "aten::add_", written.output(), i, g.insertConstant(1))  # x + 0 is written: must stay a copy
    for n in (bool_plus0, int_plus0f, written):
        g.registerOutput(n.output())
    before = g.copy()
    assert peephole(g) == 0
    ins = [tl.tensor([True, False]), tl.tensor([1, 2])]
    for x, y in zip(_jit.run_graph(before, ins), _jit.run_graph(g, ins)):
        assert x.dtype == y.dtype and x.tolist() == y.tolist()
    assert ins[1].tolist() == [1, 2]


def test_alias_db_from_annotations():
    g = _jit.Graph()
    x = g.addInput("x")
    view = _node(g, "aten::t", x).output()
    other = _node(g, "aten::exp", x).output()
    _node(g, "aten::mul_", view, other)
    db = AliasDb(g)
    assert db.may_alias(x, view) and not db.may_alias(x, other)
    assert db.has_writers(x) and not db.has_writers(other)
    assert [n.kind() for n in db.writers(view)] == ["aten::mul_"]
    mul_ = g.nodes()[-1]
    exp = other.node()
    assert not db.can_move_before(mul_, exp.prev()) or mul_.kind() == "aten::mul_"


def test_passes_on_a_traced_model():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)

        def forward(self, x):
            y = self.fc(x)
            a = y.t().t() + 0
            b = (y * 1).neg().neg()
            return tl.sigmoid(a) + tl.sigmoid(b)

    tl.manual_seed(0)
    model = Net()
    x = tl.randn(4, 3)
    traced = tl.jit.trace(model, x)
    before = str(traced.graph)
    peephole(traced.graph)
    eliminate_common_subexpression(traced.graph)
    eliminate_dead_code(traced.graph)
    after = str(traced.graph)
    assert before != after
    kinds = _kinds(traced.graph)
    assert kinds.count("aten::sigmoid") == 1 and "aten::t" not in kinds and "aten::neg" not in kinds
    np.testing.assert_allclose(traced(x).detach().numpy(), model(x).detach().numpy(), rtol=1e-6)


def test_constant_propagation_and_dce_on_a_trace():
    def f(x):
        scale = tl.ones(3).mul(2).exp()  # depends on no input: folded
        return x * scale + tl.rand(3) * 0  # rand: random, never folded

    traced = tl.jit.trace(f, tl.zeros(3), check_trace=False)
    before = _kinds(traced.graph)
    assert "aten::ones" in before and "aten::exp" in before
    assert constant_propagation(traced.graph) >= 3  # ones, mul, exp
    eliminate_dead_code(traced.graph)
    after = _kinds(traced.graph)
    assert "aten::ones" not in after and "aten::exp" not in after and "aten::rand" in after
    x = tl.arange(3.0)
    np.testing.assert_allclose(traced(x).numpy(), (x * tl.full((3,), 2.0).exp()).numpy(), rtol=1e-6)


def test_inputs_may_alias_each_other():
    # a = y.exp(); x.add_(1); b = y.exp(): the caller may pass the same tensor as x and y
    g = _jit.Graph()
    x, y = g.addInput("x"), g.addInput("y")
    first = _node(g, "aten::exp", y)
    _node(g, "aten::add_", x, g.insertConstant(1.0), g.insertConstant(1))
    second = _node(g, "aten::exp", y)
    g.registerOutput(first.output())
    g.registerOutput(second.output())
    before = g.copy()
    assert AliasDb(g).may_alias(x, y)
    eliminate_common_subexpression(g)
    assert _kinds(g).count("aten::exp") == 2
    t1, t2 = tl.zeros(2), tl.zeros(2)
    a, b = _jit.run_graph(g, [t1, t1])
    assert a.tolist() == [1.0, 1.0] and b.tolist() != a.tolist()
    _same_results(before, g, [t2.clone(), t2.clone()])
