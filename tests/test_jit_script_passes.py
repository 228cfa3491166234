"""Passes on scripted graphs: loop unrolling (constant trip counts), and the existing passes
(dead code, CSE, constant propagation) respecting script's list mutations."""
from typing import List

import numpy as np

import torchlite as tl
from torchlite.jit import _passes


def _run(graph, *inputs):
    from torchlite._C import _jit
    return _jit.run_graph(graph, list(inputs))[0]


def fixed_loop(x):
    for i in range(4):
        x = x * 2 + i
    return x


def nested(x):
    acc = x
    for i in range(3):
        for j in range(2):
            acc = acc + i * j
    return acc


def dynamic(x, n: int):
    for i in range(n):
        x = x + 1
    return x


def with_break(x):
    for i in range(5):
        if i == 2:
            break
        x = x + 1
    return x


def test_unroll_constant_trip_count():
    s = tl.jit.script(fixed_loop)
    g = s.graph.copy()
    assert _passes.unroll_loops(g) == 1
    g.lint()
    assert g.findNode("prim::Loop") is None
    assert len(g.findAllNodes("aten::mul")) == 4
    x = tl.randn(3)
    np.testing.assert_array_equal(_run(g, x).numpy(), fixed_loop(x).numpy())
    _passes.constant_propagation(g)
    _passes.eliminate_dead_code(g)
    np.testing.assert_array_equal(_run(g, x).numpy(), fixed_loop(x).numpy())


def test_unroll_nested_and_limits():
    s = tl.jit.script(nested)
    g = s.graph.copy()
    assert _passes.unroll_loops(g) == 2  # the inner loop first, then the outer one (its body now straight)
    assert g.findNode("prim::Loop") is None
    x = tl.randn(2)
    np.testing.assert_allclose(_run(g, x).numpy(), nested(x).numpy())
    g2 = s.graph.copy()
    assert _passes.unroll_loops(g2, max_trip_count=2) == 1  # the inner loop only
    assert len(g2.findAllNodes("prim::Loop")) == 1
    np.testing.assert_allclose(_run(g2, x).numpy(), nested(x).numpy())


def test_loops_not_unrolled():
    for fn in (dynamic, with_break):
        g = tl.jit.script(fn).graph.copy()
        assert _passes.unroll_loops(g) == 0
        assert g.findNode("prim::Loop") is not None


def two_lists(n: int) -> List[List[int]]:
    a: List[int] = []
    b: List[int] = []
    for i in range(n):
        a.append(i)
    b.append(7)
    return [a, b]


def test_passes_keep_list_mutations():
    s = tl.jit.script(two_lists)
    g = s.graph.copy()
    _passes.constant_propagation(g)
    _passes.eliminate_common_subexpression(g)
    _passes.eliminate_dead_code(g)
    assert len(g.findAllNodes("prim::append")) == 2
    assert _run(g, 3) == [[0, 1, 2], [7]]
    assert _run(g, 3) == [[0, 1, 2], [7]]
    db = _passes.AliasDb(g)
    lists = [n.output() for n in g.findAllNodes("prim::ListConstruct")][:2]
    assert all(db.has_writers(v) for v in lists)


def test_prim_kinds_listed():
    from torchlite._C import _jit
    kinds = _jit._prim_kinds()
    assert "prim::add" in kinds and "prim::append" in kinds and "prim::RaiseException" in kinds
    assert _jit._prim_writes_first_input("prim::append") and not _jit._prim_writes_first_input("prim::add")
