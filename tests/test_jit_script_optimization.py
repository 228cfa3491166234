"""The passes script runs on its graphs (torchlite/jit/_passes/script_optimization.py): If simplification,
CSE with its barriers, constant propagation of prim ops; each one's graph before and after, and the
values (and errors) of both against Python. Also the interpreter's inline prim ops (Code.h FastPrim),
which must give the prim ops' own results and errors, the compile cache of parsed sources, and the
instruction profile."""
from typing import List, Optional

import numpy as np
import pytest

import torchlite as tl
from torchlite._C import _jit
from torchlite.jit import _passes
from torchlite.jit._passes import script_optimization
from torchlite.jit._passes.if_simplification import simplify_ifs


def _run(graph, *inputs):
    return _jit.run_graph(graph, list(inputs))[0]


def _kinds(graph):
    return [n.kind() for n in graph.allNodes()]


def _unoptimized(fn):
    with script_optimization.disabled():
        return tl.jit.script(fn)


# ---- If simplification ------------------------------------------------------------------------

def _if_graph(cond_value):
    """graph(x): if <constant cond_value>: relu(x) else: neg(x)"""
    g = _jit.Graph()
    x = g.addInput("x")
    c = g.insertConstant(cond_value)
    node = g.insertNode(g.create("prim::If", [c], 1))
    for kind in ("aten::relu", "aten::neg"):
        b = node.addBlock()
        g.setInsertPoint(b.returnNode())
        b.registerOutput(g.insertNode(g.create(kind, [x])).output())
    g.setInsertPoint(g.return_node())
    g.registerOutput(node.output())
    return g


@pytest.mark.parametrize("cond", [True, False])
def test_constant_condition_takes_its_branch(cond):
    g = _if_graph(cond)
    x = tl.randn(4, 3)
    before = _run(g, x)
    assert simplify_ifs(g) == 1
    g.lint()
    assert "prim::If" not in _kinds(g)
    assert _kinds(g).count("aten::relu" if cond else "aten::neg") == 1
    assert ("aten::neg" if cond else "aten::relu") not in _kinds(g)
    np.testing.assert_array_equal(_run(g, x).numpy(), before.numpy())
    np.testing.assert_array_equal(before.numpy(), (x.relu() if cond else -x).numpy())


def checked(x, k: int):
    if x.dim() != 2:
        raise ValueError(f"expected a 2-D input, got {x.dim()}-D")
    y = x * k
    if k < 0:
        raise ValueError("k must not be negative")
    z = y + 1
    return z.sum(0) + y.size(0)


def test_raising_branch_flattened():
    raw = _unoptimized(checked).graph
    g = raw.copy()
    nested = [n for n in g.findAllNodes("prim::If") if n.outputsSize() > 0]
    assert nested, "the structured form passes values out of the Ifs"
    assert simplify_ifs(g) >= 2
    g.lint()
    ifs = g.findAllNodes("prim::If")
    assert len(ifs) == 2 and all(n.outputsSize() == 0 for n in ifs)
    # the checks stay at the top level, each followed by what ran in its other branch
    top = [n.kind() for n in g.nodes() if n.kind() != "prim::Constant"]
    assert top.index("aten::mul") > top.index("prim::If") and "aten::sum" in top
    for x, k in [(tl.randn(3, 4), 2), (tl.randn(2, 5), 0)]:
        expected = checked(x, k)
        for graph in (raw, g):
            np.testing.assert_allclose(_run(graph, x, k).numpy(), expected.numpy())
    for x, k, msg in [(tl.randn(3), 1, "expected a 2-D input, got 1-D"), (tl.randn(2, 2), -1, "must not be negative")]:
        for graph in (raw, g):
            with pytest.raises(RuntimeError, match=msg):
                _run(graph, x, k)


def same_in_both(x, flag: bool, m: Optional[tl.Tensor]):
    if flag:
        y = x + 1
    else:
        y = x - 1
    if m is None:
        w = x
    else:
        w = x
    return y * w


def test_outputs_that_are_one_value():
    raw = _unoptimized(same_in_both).graph
    g = raw.copy()
    outs_before = sum(n.outputsSize() for n in g.findAllNodes("prim::If"))
    assert simplify_ifs(g) >= 1
    g.lint()
    assert sum(n.outputsSize() for n in g.findAllNodes("prim::If")) < outs_before
    x = tl.randn(5)
    for flag in (True, False):
        for m in (None, tl.ones(5)):
            np.testing.assert_array_equal(_run(g, x, flag, m).numpy(), _run(raw, x, flag, m).numpy())
            np.testing.assert_allclose(_run(g, x, flag, m).numpy(), same_in_both(x, flag, m).numpy())


# ---- CSE on script graphs, and its barriers --------------------------------------------------------

def repeated(x):
    a = x.size(0) * 2
    b = x.size(0) * 2
    return (x * 2).sum() + (x * 2).sum() + a + b


def test_cse_on_script_graph():
    raw = _unoptimized(repeated).graph
    g = raw.copy()
    assert _passes.eliminate_common_subexpression(g) >= 3
    _passes.eliminate_dead_code(g)
    g.lint()
    assert _kinds(g).count("aten::mul") == 1 and _kinds(g).count("prim::size_dim") == 1
    x = tl.randn(6, 2)
    np.testing.assert_allclose(_run(g, x).numpy(), _run(raw, x).numpy())
    np.testing.assert_allclose(_run(g, x).numpy(), repeated(x).numpy(), rtol=1e-6)


def grad_switch(x):
    a = x * 2
    with tl.no_grad():
        b = x * 2
    return a, b


def test_cse_not_across_grad_mode():
    s = tl.jit.script(grad_switch)
    assert _kinds(s.graph).count("aten::mul") == 2
    x = tl.randn(3, requires_grad=True)
    a, b = s(x)
    ea, eb = grad_switch(x)
    assert a.requires_grad == ea.requires_grad is True
    assert b.requires_grad == eb.requires_grad is False


@tl.jit.ignore
def _bump(x: tl.Tensor) -> tl.Tensor:
    x.add_(1)
    return x


def python_between(x):
    s1 = x.sum()
    _bump(x)
    s2 = x.sum()
    return s1, s2


def test_cse_not_across_python_call():
    s = tl.jit.script(python_between)
    assert _kinds(s.graph).count("aten::sum") == 2
    x = tl.zeros(4)
    s1, s2 = s(x)
    assert s1.item() == 0 and s2.item() == 4


def draws(x):
    return tl.rrelu(x, training=True) - tl.rrelu(x, training=True)


def test_cse_keeps_ops_that_draw():
    s = tl.jit.script(draws)
    assert _kinds(s.graph).count("aten::rrelu") == 2
    assert s(-tl.ones(1000)).abs().sum().item() > 0


def dropout_twice(x):
    return tl.native_dropout(x, 0.5, True)[0] - tl.native_dropout(x, 0.5, True)[0]


def test_cse_keeps_random_ops_without_generator():
    # native_dropout takes no Generator: only its YAML tag `random` keeps two calls apart
    s = tl.jit.script(dropout_twice)
    assert _kinds(s.graph).count("aten::native_dropout") == 2
    assert s(tl.ones(1000)).abs().sum().item() > 0


def list_user(x, n: int):
    a: List[int] = [n, n]
    b: List[int] = [n, n]
    a.append(1)
    return x.view(b), len(a)


def test_cse_keeps_mutated_lists_apart():
    s = tl.jit.script(list_user)
    out, length = s(tl.randn(4), 2)
    assert list(out.shape) == [2, 2] and length == 3


# ---- constant propagation of prim ops ------------------------------------------------------------

def test_constant_propagation_of_prims():
    g = _jit.Graph()
    x = g.addInput("x")
    s = g.insertNode(g.create("prim::add", [g.insertConstant(2), g.insertConstant(3)], 1)).output()
    lst = g.insertNode(g.create("prim::ListConstruct", [s], 1)).output()
    lst.setType(_jit.Type.parse("int[]"))
    z = g.insertNode(g.create("aten::zeros", [lst, g.insertConstant(None), g.insertConstant(None)]))
    z.output().setType(_jit.Type.parse("Tensor"))
    g.registerOutput(g.insertNode(g.create("aten::add", [x, z.output(), g.insertConstant(1)])).output())
    before = _run(g, tl.ones(5))
    g2 = g.copy()
    assert _passes.constant_propagation(g2) == 0  # prims are script's: not folded by default
    n = _passes.constant_propagation(g2, tensors=False, prims=True)
    assert n == 2  # prim::add, then the list of its result; aten::zeros gives a tensor: left
    assert "prim::add" not in _kinds(g2) and "aten::zeros" in _kinds(g2)
    np.testing.assert_array_equal(_run(g2, tl.ones(5)).numpy(), before.numpy())


# ---- the pipeline on the nn modules -----------------------------------------------------------

def _mha_cases():
    q = tl.randn(5, 2, 8)
    k = tl.randn(7, 2, 8)
    mask = tl.rand(5, 7) > 0.7
    pad = tl.zeros(2, 7, dtype=tl.bool)
    pad[1, 5:] = True
    return [((q, q, q), {}), ((q, k, k), {}), ((q, k, k), {"key_padding_mask": pad}),
            ((q, k, k), {"attn_mask": mask, "need_weights": False}),
            ((q, k, k), {"average_attn_weights": False})]


def test_pipeline_keeps_module_values():
    tl.manual_seed(0)
    mha = tl.nn.MultiheadAttention(8, 2).eval()
    opt = tl.jit.script(mha)
    with script_optimization.disabled():
        raw = tl.jit.script(mha)
    assert len(list(opt.graph.allNodes())) < len(list(raw.graph.allNodes()))
    with tl.no_grad():
        for args, kwargs in _mha_cases():
            expected = mha(*args, **kwargs)
            for s in (opt, raw):
                got = s(*args, **kwargs)
                for e, r in zip(expected, got):
                    if e is None:
                        assert r is None
                    else:
                        np.testing.assert_array_equal(r.numpy(), e.numpy())
    # errors: the same checks, the same messages
    for s in (opt, raw, mha):
        with pytest.raises((RuntimeError, AssertionError), match="expected `key` and `value` to be 3-D"):
            s(tl.randn(5, 2, 8), tl.randn(7, 8), tl.randn(7, 8))


def test_pipeline_on_transformer_layer_with_gradients():
    tl.manual_seed(0)
    layer = tl.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
    s = tl.jit.script(layer)
    x = tl.randn(4, 3, 8, requires_grad=True)
    x2 = x.detach().clone().requires_grad_(True)
    out = s(x)
    ref = layer(x2)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-6, atol=1e-6)
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_optimized_module_saves_and_loads(tmp_path):
    tl.manual_seed(0)
    mha = tl.nn.MultiheadAttention(8, 2).eval()
    s = tl.jit.script(mha)
    path = tmp_path / "mha.pt"
    tl.jit.save(s, str(path))
    loaded = tl.jit.load(str(path))
    q = tl.randn(5, 2, 8)
    with tl.no_grad():
        for a, b in zip(loaded(q, q, q, None, True, None, True, False), mha(q, q, q)):
            np.testing.assert_array_equal(a.numpy(), b.numpy())


# ---- the interpreter's inline prim ops -----------------------------------------------------------

def compare_ints(a: int, b: int):
    return (a == b, a != b, a < b, a <= b, a > b, a >= b, a + b, a - b, a * b)


def compare_mixed(a: float, b: int, c: bool, d: bool):
    return [a == b, a != b, a < b, c == d, c != d, not c]


def optional_eq(x: Optional[int]):
    return [x is None, x is not None, x == None, x != None]  # noqa: E711 (as written in user code)


def sequences(xs: List[int], i: int, t):
    return [xs[i], len(xs), t.size(i), t.dim()]


def tuple_item(i: int):
    tup = (4, 5, 6)
    j = i + 0
    return tup[j]


@pytest.mark.parametrize("a,b", [(3, 5), (5, 3), (-7, -7), (2**62, 4), (-(2**63), -1)])
def test_fast_int_ops_match_python(a, b):
    s = tl.jit.script(compare_ints)
    got = s(a, b)
    wrap = lambda v: (v + 2**63) % 2**64 - 2**63  # noqa: E731 (int64 wraps around, as TorchScript's)
    expected = (a == b, a != b, a < b, a <= b, a > b, a >= b, wrap(a + b), wrap(a - b), wrap(a * b))
    assert got == expected


def div_mod(a: int, b: int):
    return a // b, a % b


@pytest.mark.parametrize("a,b", [(7, 2), (-7, 2), (7, -2), (-7, -2), (0, 3), (-(2**63), 1), (-(2**63), 7),
                                 (2**63 - 1, 2**63 - 1), (5, 1)])
def test_fast_floordiv_and_mod_match_python(a, b):
    assert tl.jit.script(div_mod)(a, b) == (a // b, a % b)


def test_int_division_by_zero_raises():
    with pytest.raises(RuntimeError, match="division by 0"):  # torch's aten::floordiv.int message
        tl.jit.script(div_mod)(3, 0)

    def mod(a: int, b: int):
        return a % b
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        tl.jit.script(mod)(3, 0)


@pytest.mark.parametrize("a,b,c,d", [(2.0, 2, True, True), (2.5, 2, False, True), (float("nan"), 1, True, False)])
def test_fast_ops_leave_other_types_to_the_prim_op(a, b, c, d):
    assert tl.jit.script(compare_mixed)(a, b, c, d) == [a == b, a != b, a < b, c == d, c != d, not c]


@pytest.mark.parametrize("x", [None, 0, 3])
def test_fast_none_comparisons(x):
    assert tl.jit.script(optional_eq)(x) == [x is None, x is not None, x is None, x is not None]


def test_fast_sequence_ops_and_their_errors():
    s = tl.jit.script(sequences)
    t = tl.zeros(2, 3, 4)
    for i in (0, 1, 2, -1, -3):
        assert s([10, 20, 30], i, t) == [[10, 20, 30][i], 3, list(t.shape)[i], 3]
    with pytest.raises(IndexError, match="list index out of range"):
        s([10, 20, 30], 3, t)
    with pytest.raises(IndexError, match="list index out of range"):
        s([10, 20, 30], -4, t)
    with pytest.raises(IndexError):
        s([1, 2, 3, 4, 5], 4, t)  # the list has index 4, the tensor no dim 4: size's own error
    s2 = tl.jit.script(tuple_item)
    assert [s2(i) for i in (0, 2, -1, -3)] == [4, 6, 6, 4]
    with pytest.raises(IndexError, match="index out of range"):
        s2(3)


def last_use(x, n: int):
    y = x * 2
    d = y.dim()  # y's last use: its register is emptied, as a move would
    return d + n


def test_fast_op_at_a_last_use_frees_the_value():
    import gc
    import weakref
    s = tl.jit.script(last_use)
    assert s(tl.randn(3), 1) == 2
    x = tl.randn(3)
    assert s(x, 0) == 1
    gc.collect()
    ref = weakref.ref(x)
    del x
    gc.collect()
    assert ref() is None


# ---- compile cache and profile ------------------------------------------------------------------

def helper(x, k: int):
    if k > 2:
        return x * k
    return x + k


def uses_helper_twice(x):
    return helper(x, 3) + helper(x, 1) + helper(x * 2, 5)


def test_cached_sources_compile_each_call_site():
    from torchlite.jit._script import concrete_type, source_cache
    source_cache.clear()
    concrete_type.enabled = False  # compile twice (not the cache of compiled functions): the second from cached sources
    try:
        s1 = tl.jit.script(uses_helper_twice)
        s2 = tl.jit.script(uses_helper_twice)  # from the cache
    finally:
        concrete_type.enabled = True
    x = tl.randn(4)
    for s in (s1, s2):
        np.testing.assert_allclose(s(x).numpy(), uses_helper_twice(x).numpy(), rtol=1e-6)
    assert str(s1.graph) == str(s2.graph)


def bad_line(x):
    y = x + 1
    return y.no_such_method()


def test_cached_source_errors_point_at_the_line():
    for _ in range(2):  # the second compile reads the cached tree
        with pytest.raises(RuntimeError) as info:
            tl.jit.script(bad_line)
        assert "y.no_such_method()" in str(info.value) and "~" in str(info.value)


def test_instruction_profile():
    s = tl.jit.script(checked)
    x = tl.randn(2, 3)
    _jit._jit_reset_instruction_profile()
    _jit._jit_set_instruction_profiling(True)
    try:
        for _ in range(3):
            s(x, 2)
    finally:
        _jit._jit_set_instruction_profiling(False)
    prof = {k: (n, t) for k, n, t in _jit._jit_instruction_profile()}
    assert prof["aten::mul"][0] == 3 and prof["prim::If"][0] == 6
    assert all(t >= 0 for _, t in prof.values())
    _jit._jit_reset_instruction_profile()
    s(x, 2)
    assert _jit._jit_instruction_profile() == []  # off: nothing recorded
