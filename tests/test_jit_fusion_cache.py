"""The fusion executor's type guard cache (aten/jit/FusionExecutor.cpp): a group's plan (the meta run,
the layout) is made once per input signature and reused; other shapes, strides, dtypes, numbers or
an edited subgraph make a new one; results stay eager's bit for bit."""
import numpy as np
import pytest

import torchlite as tl
from torchlite._C import _jit


@pytest.fixture(autouse=True)
def small_blocks():
    block, minimum = _jit._jit_get_fusion_block_size(), _jit._jit_get_fusion_min_numel()
    _jit._jit_set_fusion_block_size(64)
    _jit._jit_set_fusion_min_numel(1)
    yield
    _jit._jit_set_fusion_block_size(block)
    _jit._jit_set_fusion_min_numel(minimum)


def _chain(x, y):
    return ((x * y + 1).sigmoid() * y).tanh()


def _fused_graph(fn, *example):
    traced = tl.jit.trace(fn, example, check_trace=False)
    with tl.jit.fuser("fuser1"):
        traced(*example)
        graph = tl.jit.last_executed_optimized_graph()
    assert len(graph.findAllNodes("prim::FusionGroup")) == 1
    return graph.copy()  # its subgraph a new graph, not planned yet


def _bits_equal(a, b):
    assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape) and a.stride() == b.stride()
    assert a.contiguous().numpy().tobytes() == b.contiguous().numpy().tobytes()


def test_one_plan_per_signature():
    x, y = tl.randn(7, 33), tl.randn(7, 33)
    graph = _fused_graph(_chain, x, y)
    _jit._jit_reset_fusion_stats()
    for _ in range(5):
        _bits_equal(_jit.run_graph(graph, [x, y])[0], _chain(x, y))
    assert _jit._jit_fusion_plans_made() == 1
    assert _jit._jit_fusion_stats() == {"fused": 5, "fallback": 0}
    # other data, same signature: no new plan
    x2, y2 = tl.randn(7, 33), tl.randn(7, 33)
    _bits_equal(_jit.run_graph(graph, [x2, y2])[0], _chain(x2, y2))
    assert _jit._jit_fusion_plans_made() == 1


@pytest.mark.parametrize("make", [
    lambda: (tl.randn(5, 40), tl.randn(5, 40)),                      # another shape
    lambda: (tl.randn(33, 7).t(), tl.randn(7, 33)),                   # other strides (transposed)
    lambda: (tl.randn(7, 33).double(), tl.randn(7, 33).double()),     # another dtype
    lambda: (tl.randn(7, 33), tl.randn(33)),                          # a broadcast input
    lambda: (tl.randn(7, 66)[:, ::2], tl.randn(7, 33)),               # a strided slice
])
def test_other_signatures_get_their_own_plan(make):
    x, y = tl.randn(7, 33), tl.randn(7, 33)
    graph = _fused_graph(_chain, x, y)
    _jit._jit_reset_fusion_stats()
    _jit.run_graph(graph, [x, y])
    a, b = make()
    _bits_equal(_jit.run_graph(graph, [a, b])[0], _chain(a, b))
    _bits_equal(_jit.run_graph(graph, [x, y])[0], _chain(x, y))  # the first plan is still there
    assert _jit._jit_fusion_plans_made() == 2


def test_numbers_are_part_of_the_signature():
    g = _jit.Graph()
    x, s = g.addInput("x"), g.addInput("s")
    x.setType(_jit.Type.parse("Float(4, 8, strides=[8, 1], requires_grad=0, device=cpu)"))
    sub = _jit.Graph()
    sx, ss = sub.addInput("x"), sub.addInput("s")
    m = sub.insertNode(sub.create("aten::mul.Scalar", [sx, ss])).output()
    sub.registerOutput(sub.insertNode(sub.create("aten::exp", [m])).output())
    group = g.insertNode(g.create("prim::FusionGroup", [x, s], 1))
    group.g_("Subgraph", sub)
    g.registerOutput(group.output())
    t = tl.randn(4, 8)
    _jit._jit_reset_fusion_stats()
    for scale in (2, 3, 2.5, True):
        _bits_equal(_jit.run_graph(g, [t, scale])[0], (t * scale).exp())
    assert _jit._jit_fusion_plans_made() == 4
    _jit.run_graph(g, [t, 3])
    assert _jit._jit_fusion_plans_made() == 4
    # an int tensor times a float number promotes to float, times an int stays int: separate plans
    i = tl.arange(32).reshape(4, 8)
    _bits_equal(_jit.run_graph(g, [i, 0.5])[0], (i * 0.5).exp())


def test_grad_mode_and_requires_grad_choose_the_run():
    x, y = tl.randn(7, 33), tl.randn(7, 33)
    graph = _fused_graph(_chain, x, y)
    xg = x.clone().requires_grad_()
    _jit._jit_reset_fusion_stats()
    with tl.no_grad():
        _jit.run_graph(graph, [xg, y])
    _jit.run_graph(graph, [x, y])
    assert _jit._jit_fusion_stats()["fallback"] == 0


def test_edited_subgraph_is_planned_again():
    x, y = tl.randn(7, 33), tl.randn(7, 33)
    graph = _fused_graph(_chain, x, y)
    _jit._jit_reset_fusion_stats()
    _jit.run_graph(graph, [x, y])
    sub = graph.findNode("prim::FusionGroup").g("Subgraph")
    tanh = sub.findNode("aten::tanh")
    neg = sub.insertNode(sub.create("aten::neg", [tanh.output()]))
    sub.eraseOutput(0)
    sub.registerOutput(neg.output())
    _bits_equal(_jit.run_graph(graph, [x, y])[0], -_chain(x, y))
    assert _jit._jit_fusion_plans_made() == 2


def test_below_min_numel_after_a_blocked_plan():
    x, y = tl.randn(7, 33), tl.randn(7, 33)
    graph = _fused_graph(_chain, x, y)
    _jit._jit_reset_fusion_stats()
    _jit.run_graph(graph, [x, y])
    _jit._jit_set_fusion_min_numel(10_000)  # the setting is read per call, not kept in the plan
    _bits_equal(_jit.run_graph(graph, [x, y])[0], _chain(x, y))
    assert _jit._jit_fusion_stats() == {"fused": 1, "fallback": 1}
    assert _jit._jit_fusion_plans_made() == 1


def test_a_failing_meta_run_is_cached_and_still_raises_the_op_error():
    x, y = tl.randn(7, 33), tl.randn(7, 33)
    graph = _fused_graph(_chain, x, y)
    _jit._jit_reset_fusion_stats()
    bad = tl.randn(5, 4)
    for _ in range(2):
        with pytest.raises(RuntimeError) as e:
            _jit.run_graph(graph, [bad, y])
        with pytest.raises(RuntimeError) as eager:
            _chain(bad, y)
        assert str(e.value) == str(eager.value)
    assert _jit._jit_fusion_plans_made() == 1
