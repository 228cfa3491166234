"""Elementwise fusion (torchlite.jit._passes.fusion, aten/jit/FusionExecutor.cpp): which nodes join a
prim::FusionGroup (graphs before and after), and that a group's blocked run gives eager's results
bit for bit (same kernels per element), eager's dtypes (checked against PyTorch) and strides, and
eager's gradients."""
import numpy as np
import pytest
import torch

import torchlite as tl
import torchlite.nn as nn
from torchlite._C import _jit
from torchlite.jit._passes import AliasDb, eliminate_common_subexpression, fuse_elementwise

from conftest import from_torch, to_torch

@pytest.fixture(autouse=True)
def small_blocks():
    """Blocks of 64 elements and no size threshold, so small tensors take the blocked path across
    many blocks (and block edges fall inside rows)."""
    block, minimum = _jit._jit_get_fusion_block_size(), _jit._jit_get_fusion_min_numel()
    _jit._jit_set_fusion_block_size(64)
    _jit._jit_set_fusion_min_numel(1)
    yield
    _jit._jit_set_fusion_block_size(block)
    _jit._jit_set_fusion_min_numel(minimum)


def _bits(t):
    """The tensor's bytes in element order (NaN payloads and signed zeros included); bfloat16,
    which NumPy lacks, widened to float32 (exact)."""
    t = t.contiguous()
    return (t.float() if t.dtype == tl.bfloat16 else t).numpy().tobytes()


def assert_bit_equal(got, expected):
    assert got.dtype == expected.dtype
    assert tuple(got.shape) == tuple(expected.shape)
    assert got.stride() == expected.stride()
    assert _bits(got) == _bits(expected)


def _run_fused(fn, *inputs, expect_fused=True):
    """Traces fn, runs it with fusion on and returns (result, traced)."""
    traced = tl.jit.trace(fn, inputs, check_trace=False)
    _jit._jit_reset_fusion_stats()
    with tl.jit.fuser("fuser1"):
        out = traced(*inputs)
        assert traced.graph_for(*inputs) is tl.jit.last_executed_optimized_graph()
    stats = _jit._jit_fusion_stats()
    if expect_fused:
        assert stats["fused"] >= 1 and stats["fallback"] == 0, stats
    return out, traced


def _groups(graph):
    return graph.findAllNodes("prim::FusionGroup")


def _check(fn, *inputs, expect_fused=True, groups=1):
    out, traced = _run_fused(fn, *inputs, expect_fused=expect_fused)
    expected = fn(*inputs)
    if isinstance(expected, tuple):
        for o, e in zip(out, expected):
            assert_bit_equal(o, e)
    else:
        assert_bit_equal(out, expected)
    assert len(_groups(tl.jit.last_executed_optimized_graph())) == groups
    assert not _groups(traced.graph)  # the traced graph itself is left as traced
    return out


def chain(x, y, z):
    return ((x * y + 1).sigmoid() * z).tanh()


# ---- the pass: graphs before and after -----------------------------------------------------------

def test_chain_becomes_one_group_printed_as_torch_jit():
    x, y, z = (tl.randn(3, 4) for _ in range(3))
    traced = tl.jit.trace(chain, (x, y, z))
    g = traced.graph.copy()
    before = str(g)
    assert fuse_elementwise(g) == 1
    g.lint()
    after = str(g)
    assert before.count("aten::") == 5 and after.count("aten::") == 5  # all of them now in the subgraph
    f = "Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu)"
    main, sub = after.split("with prim::FusionGroup_0 = ")
    out = g.outputs()[0].debugName()
    assert main == (f"graph(%x : {f},\n      %y : {f},\n      %z : {f}):\n"
                    f"  %{out} : {f} = prim::FusionGroup_0(%x, %y, %z)\n"
                    f"  return (%{out})\n")
    lines = sub.splitlines()
    assert lines[0] == f"graph(%x : {f},"
    kinds = [line.split(" = ")[1].split("(")[0] for line in lines[3:-1]]
    assert kinds == ["aten::mul", "prim::Constant[value={1}]", "prim::Constant[value=1]", "aten::add",
                     "aten::sigmoid", "aten::mul", "aten::tanh"]
    assert lines[-1].startswith("  return (%")
    assert str(traced.graph) == before  # fusing a copy leaves the traced graph alone
    for a, b in zip(_jit.run_graph(traced.graph, [x, y, z]), _jit.run_graph(g, [x, y, z])):
        assert_bit_equal(b, a)
    node = _groups(g)[0]
    assert node.kindOf("Subgraph") == "g" and node.hasAttribute("Subgraph")
    assert str(node.g("Subgraph")).startswith("graph(%x")


def test_only_yaml_pointwise_ops_join():
    def f(x, w):
        h = tl.matmul(x, w).relu() * 2  # matmul (not pointwise) feeds a group of relu, mul
        return h.sum(1).exp().neg()     # sum breaks the chain: exp, neg form a second group

    traced = tl.jit.trace(f, (tl.randn(5, 3), tl.randn(3, 4)), check_trace=False)
    g = traced.graph.copy()
    assert fuse_elementwise(g) == 2
    kinds = [n.kind() for n in g.nodes() if not n.kind() == "prim::Constant"]
    assert kinds == ["aten::matmul", "prim::FusionGroup", "aten::sum", "prim::FusionGroup"]
    for op in ("aten::relu", "aten::mul", "aten::exp", "aten::neg"):
        schema = next(s for s in _jit._jit_get_schemas_for_operator(op))
        assert schema.is_pointwise
    assert not _jit._jit_get_schemas_for_operator("aten::matmul")[0].is_pointwise
    assert not _jit._jit_get_schemas_for_operator("aten::add_")[0].is_mutable is False


def test_single_op_and_min_group_size():
    traced = tl.jit.trace(lambda x: x.exp(), tl.randn(4))
    g = traced.graph.copy()
    assert fuse_elementwise(g) == 0
    assert fuse_elementwise(g, min_group_size=1) == 1


def test_shapes_must_match_the_group():
    def f(x, s):
        t = (s * 2).exp()      # 0-d: stays out of the (8, 3) group, becomes its input
        return (x + t).sin().cos()

    x, s = tl.randn(8, 3), tl.tensor(0.5)
    traced = tl.jit.trace(f, (x, s), check_trace=False)
    g = traced.graph.copy()
    assert fuse_elementwise(g) == 1  # the (8, 3) chain; 0-d results are not fused (nothing to gain)
    sub = _groups(g)[0].g("Subgraph")
    assert [n.output().type().sizes() for n in sub.nodes() if n.kind().startswith("aten::")] == [[8, 3]] * 3
    assert g.findNode("aten::exp").owningBlock() is g.block()
    _check(f, x, s)


def test_unknown_shapes_are_not_fused():
    g = _jit.Graph()
    x = g.addInput("x")
    a = g.insertNode(g.create("aten::exp", [x]))
    b = g.insertNode(g.create("aten::neg", [a.output()]))
    g.registerOutput(b.output())
    assert fuse_elementwise(g) == 0  # hand-built graph, no traced sizes
    x.setType(_jit.Type.of(tl.randn(6)))
    a.output().setType(_jit.Type.of(tl.randn(6)))
    b.output().setType(_jit.Type.of(tl.randn(6)))
    assert fuse_elementwise(g) == 1


def test_mutation_is_not_fused_across():
    def f(x, y):
        a = x * 2
        x.add_(1)          # writes x between a's computation and the use of a
        return (a + x).exp()

    def g_(x, y):
        c = y.clone()
        b = c * 3
        c.mul_(2)          # writes c, which b's producer read
        return (b * y).sigmoid()

    for fn in (f, g_):
        x, y = tl.randn(5, 7), tl.randn(5, 7)
        traced = tl.jit.trace(fn, (x.clone(), y.clone()), check_trace=False)
        graph = traced.graph.copy()
        fuse_elementwise(graph)
        assert fuse_elementwise(traced.graph.copy()) == 1
        inplace = [n for n in graph.nodes() if n.kind() in ("aten::add_", "aten::mul_")]
        assert len(inplace) == 1 and len(_groups(graph)) == 1
        group = _groups(graph)[0]
        # the product computed before the write stays outside, before it; the group comes after
        before = [n for n in graph.nodes() if n.kind() == "aten::mul" and n.isBefore(inplace[0])]
        assert len(before) == 1 and inplace[0].isBefore(group)
        assert [n.kind() for n in group.g("Subgraph").nodes() if n.kind().startswith("aten::")] in (
            ["aten::add", "aten::exp"], ["aten::mul", "aten::sigmoid"])
        expected = fn(x.clone(), y.clone())
        _jit._jit_reset_fusion_stats()
        with tl.jit.fuser("fuser1"):
            got = traced(x.clone(), y.clone())
        assert_bit_equal(got, expected)


def test_value_used_between_stays_outside():
    def f(x):
        a = x * 2
        m = a.sum()          # uses a before the group's position
        return (a + 1).exp() * m

    x = tl.randn(6, 5)
    traced = tl.jit.trace(f, x, check_trace=False)
    g = traced.graph.copy()
    assert fuse_elementwise(g) == 1
    sub = _groups(g)[0].g("Subgraph")
    assert [n.kind() for n in sub.nodes() if n.kind().startswith("aten::")] == ["aten::add", "aten::exp",
                                                                               "aten::mul"]
    _check(f, x)


def test_use_inside_a_block_counts_at_its_node():
    ex = tl.randn(64)
    g = _jit.Graph()
    x = g.addInput("x")
    x.setType(_jit.Type.of(ex))
    a = g.insertNode(g.create("aten::exp", [x]))
    cond = g.insertConstant(True)
    branch = g.insertNode(g.create("prim::If", [cond], 1))
    then, other = branch.addBlock(), branch.addBlock()
    g.setInsertPoint(then.returnNode())
    b = g.insertNode(g.create("aten::neg", [a.output()]))
    then.registerOutput(b.output())
    other.registerOutput(a.output())  # a is used inside the If, between its definition and the chain
    g.setInsertPoint(g.return_node())
    c = g.insertNode(g.create("aten::sin", [a.output()]))
    d = g.insertNode(g.create("aten::cos", [c.output()]))
    for v in (a.output(), b.output(), branch.output(), c.output(), d.output()):
        v.setType(_jit.Type.of(ex))
    g.registerOutput(d.output())
    g.registerOutput(branch.output())
    before = g.copy()
    assert fuse_elementwise(g) == 1
    g.lint()
    sub = _groups(g)[0].g("Subgraph")
    assert [n.kind() for n in sub.nodes()] == ["aten::sin", "aten::cos"]  # exp stays: the If reads it
    with tl.jit.fuser("fuser1"):
        for got, expected in zip(_jit.run_graph(g, [ex]), _jit.run_graph(before, [ex])):
            assert_bit_equal(got, expected)


def test_written_result_is_not_fused():
    def f(x):
        a = x.exp()
        a.mul_(2)            # a is written: its producer stays out of groups
        return (a + 1).neg()

    x = tl.randn(40)
    traced = tl.jit.trace(f, x, check_trace=False)
    g = traced.graph.copy()
    fuse_elementwise(g)
    assert g.findNode("aten::exp") is not None and g.findNode("aten::exp").owningBlock() is g.block()
    _check(f, x)


def test_intermediate_used_outside_is_a_group_output():
    def f(x, y):
        a = x.sin()
        b = (a * y).tanh()
        return a, b

    x, y = tl.randn(9, 11), tl.randn(9, 11)
    traced = tl.jit.trace(f, (x, y), check_trace=False)
    g = traced.graph.copy()
    assert fuse_elementwise(g) == 1
    assert _groups(g)[0].outputsSize() == 2
    _check(f, x, y)


def test_outputs_with_different_layouts():
    def f(x, y):
        a = x.sin()              # follows x's transposed layout
        b = (a * y + y).tanh()   # eager picks this one's layout from both inputs
        return b, a

    x, y = tl.randn(50, 31).t(), tl.randn(31, 50)
    out = _check(f, x, y)
    assert out[1].stride() == (1, 31)  # eager's strides for each output

    def g(x, y):
        a = x.sin()
        return (y * 2 + a).tanh(), a  # contiguous first output: a is scattered into its transposed layout

    out = _check(g, x, y)
    assert out[0].stride() == (50, 1) and out[1].stride() == (1, 31)


def test_half_precision_transcendental():
    for dtype in (tl.float16, tl.bfloat16):
        x, y = tl.randn(333).to(dtype), tl.randn(333).to(dtype)
        out = _check(lambda x, y: ((x * y + 1).sigmoid() * x).tanh().exp(), x, y)
        assert out.dtype == dtype


def test_second_run_of_the_pass_changes_nothing():
    traced = tl.jit.trace(chain, tuple(tl.randn(20) for _ in range(3)))
    g = traced.graph.copy()
    assert fuse_elementwise(g) == 1
    text = str(g)
    assert fuse_elementwise(g) == 0 and str(g) == text


def test_dag_with_shared_intermediate():
    def f(x):
        a = x * x
        return (a.sigmoid() + a.exp()) / (a + 1)

    _check(f, tl.randn(300))


def test_cse_and_copy_keep_subgraphs():
    def f(x):
        return (x.exp() + 1).log() + (x.exp() + 1).log()

    traced = tl.jit.trace(f, tl.randn(10), check_trace=False)
    g = traced.graph.copy()
    eliminate_common_subexpression(g)
    fuse_elementwise(g)
    assert len(_groups(g)) == 1 and len(g.nodes()) == 1  # one group computes both halves (merged by CSE)
    c = g.copy()
    assert [n.kind() for n in c.nodes()] == ["prim::FusionGroup"]
    assert ([n.kind() for n in c.findNode("prim::FusionGroup").g("Subgraph").nodes()]
            == [n.kind() for n in g.findNode("prim::FusionGroup").g("Subgraph").nodes()])
    assert c.findNode("prim::FusionGroup").g("Subgraph") is not g.findNode("prim::FusionGroup").g("Subgraph")
    AliasDb(c)  # alias analysis reads graphs holding fusion groups
    x = tl.randn(10)
    assert_bit_equal(_jit.run_graph(c, [x])[0], f(x))


# ---- the blocked run: bit equality with eager ------------------------------------------------------

@pytest.mark.parametrize("dtype", [tl.float32, tl.float64])
def test_benchmark_chain_bit_identical(dtype):
    x, y, z = (tl.randn(1000, 37, dtype=dtype) for _ in range(3))
    out = _check(chain, x, y, z)
    tx, ty, tz = (to_torch(t) for t in (x, y, z))
    np.testing.assert_allclose(out.numpy(), chain(tx, ty, tz).numpy(), rtol=1e-6 if dtype == tl.float32 else 1e-13)


@pytest.mark.parametrize("dtype", [tl.float32, tl.float64])
def test_transcendental_chains_bit_identical(dtype):
    def f(x, y):
        a = x.exp().log1p().sin() + y.cos().atan()
        b = tl.erf(a) * tl.sqrt(y.abs() + 1) - tl.logaddexp(x, y)
        c = tl.atan2(b, x).sinh().asinh() + tl.pow(y.abs() + 0.5, x.tanh())
        return tl.where(c > 0, c.expm1(), tl.log2(c.abs() + 1e-3)).clamp(-3, 3).erfc()

    x, y = tl.randn(77, 13, dtype=dtype), tl.randn(77, 13, dtype=dtype)
    out = _check(f, x, y)
    tx, ty = to_torch(x), to_torch(y)
    ref = torch.where((c := (torch.atan2(torch.erf(tx.exp().log1p().sin() + ty.cos().atan()) * torch.sqrt(ty.abs() + 1)
                                         - torch.logaddexp(tx, ty), tx).sinh().asinh()
                             + torch.pow(ty.abs() + 0.5, tx.tanh()))) > 0, c.expm1(),
                      torch.log2(c.abs() + 1e-3)).clamp(-3, 3).erfc()
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-4 if dtype == tl.float32 else 1e-10, atol=1e-6)


def test_special_values_bit_identical():
    vals = tl.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan"), 1e-40, -1e-40, 88.8, -104.0, 1e30,
                      3e38, 1.0, -1.0] * 11)
    _check(lambda x: ((x * 2 + 1).sigmoid() - x).tanh().exp(), vals)
    _check(lambda x: (x.sin() * x.cos()).tan(), vals.double() * 1e6)  # large arguments (libm path by block)


def test_broadcasting_bit_identical():
    x = tl.randn(37, 1, 5)
    y = tl.randn(4, 5)
    z = tl.randn(5)
    w = tl.randn(37, 4, 1)
    out = _check(lambda x, y, z, w: ((x * y + z).sigmoid() * w).tanh() - z, x, y, z, w)
    assert tuple(out.shape) == (37, 4, 5)
    # an input with size-1 leading dims and one of the group's full shape
    _check(lambda a, b: (a + b).exp() * b, tl.randn(1, 1, 200), tl.randn(3, 2, 200))


def test_scalars_and_constants():
    x = tl.randn(500)
    _check(lambda x: ((x * 2.5 + 1) / 3).pow(2).sub(0.25, alpha=2), x)
    _check(lambda x, s: (x * s + s).exp(), x, tl.tensor(0.5, dtype=tl.float64))  # 0-d float64: stays float32
    _check(lambda x: tl.add(x.sin(), x.cos(), alpha=0.5).clamp(min=-0.5), x)
    i = tl.randint(-50, 50, (300,))
    _check(lambda i: ((i * 3 + 7) // 2).remainder(5).abs(), i)
    _check(lambda x: tl.div(x * 7, 3, rounding_mode="floor").neg(), x)


def test_non_contiguous_inputs_and_output_strides():
    base = tl.randn(40, 30)
    t = base.t()                        # transposed: the output follows it (eager's strides)
    s = tl.randn(40, 60)[:, ::2]        # sliced
    e = tl.randn(40, 1).expand(40, 30)  # expanded
    _check(lambda a, b, c: ((a * b).exp() + c).sigmoid(), tl.randn(30, 40).t(), s, e)  # strides as eager's
    out = _check(lambda a, b, c: ((a * b).exp() + c).sigmoid(), s, tl.randn(30, 40).t(), e)
    assert out.stride() == (30, 1)
    out = _check(lambda a, b: (a + 1).tanh() * b, t, tl.randn(40, 30).t())
    assert out.stride() == (1, 30)      # both transposed: eager keeps their layout
    out = _check(lambda a, b: (a + 1).tanh() * b, t, tl.randn(30, 40))
    perm = tl.randn(4, 5, 6).permute(2, 0, 1)
    _check(lambda a: (a.exp() - 1).relu(), perm)


def test_zero_dim_and_empty():
    x, y = tl.tensor(1.5), tl.tensor(-0.25)
    out, traced = _run_fused(lambda x, y: (x * y + 1).exp() - x, x, y, expect_fused=False)
    assert_bit_equal(out, (x * y + 1).exp() - x)
    assert not _groups(traced.graph_for(x, y))  # 0-d results: no group (nothing to gain)
    # a group traced on dimensioned inputs and given 0-d ones runs node by node
    traced = tl.jit.trace(lambda x, y: (x * y + 1).exp() - x, (tl.randn(5), tl.randn(5)))
    _jit._jit_reset_fusion_stats()
    with tl.jit.fuser("fuser1"):
        assert_bit_equal(traced(x, y), (x * y + 1).exp() - x)
    assert _jit._jit_fusion_stats() == {"fused": 0, "fallback": 1}
    e = tl.randn(0, 3)
    out, _ = _run_fused(lambda a: (a * 2).sigmoid().neg(), e, expect_fused=False)
    assert tuple(out.shape) == (0, 3) and out.dtype == tl.float32
    # traced on one shape, run on others (the graph is specialized to the example's shapes, but
    # every op is generic): empty, a single element, and larger
    traced = tl.jit.trace(lambda a: (a * 2).sigmoid().neg(), tl.randn(8, 3))
    with tl.jit.fuser("fuser1"):
        for shape in ((0, 3), (1, 1), (33, 7)):
            a = tl.randn(*shape)
            assert_bit_equal(traced(a), (a * 2).sigmoid().neg())


@pytest.mark.parametrize("dtypes", [
    (tl.int32, tl.float32), (tl.int64, tl.float64), (tl.uint8, tl.int16), (tl.bool, tl.int64),
    (tl.float16, tl.float32), (tl.bfloat16, tl.bfloat16), (tl.float16, tl.float16), (tl.int8, tl.float64),
])
def test_mixed_dtypes_promote_as_eager(dtypes):
    a_dtype, b_dtype = dtypes

    def make(dtype):
        if dtype == tl.bool:
            return tl.randn(123) > 0
        if dtype.is_floating_point:
            return tl.randn(123).to(dtype)
        return tl.randint(0 if dtype == tl.uint8 else -20, 20, (123,)).to(dtype)

    a, b = make(a_dtype), make(b_dtype)

    def f(a, b):
        return ((a * b + a) * 3 - b) * 0.5

    out = _check(f, a, b)
    assert out.dtype == from_torch(f(to_torch(a), to_torch(b))).dtype  # PyTorch's promotion
    np.testing.assert_allclose(out.double().numpy(), f(to_torch(a), to_torch(b)).double().numpy(), rtol=1e-2)


def test_comparisons_and_where():
    x, y = tl.randn(257), tl.randn(257)
    out = _check(lambda x, y: tl.where((x > y) & (x.abs() < 1), x * y, (y - x).exp()), x, y)
    tx, ty = to_torch(x), to_torch(y)
    np.testing.assert_allclose(out.numpy(), torch.where((tx > ty) & (tx.abs() < 1), tx * ty, (ty - tx).exp()).numpy(),
                               rtol=1e-6)
    mask = _check(lambda x, y: (x * 2 > y).logical_not(), x, y)
    assert mask.dtype == tl.bool


def test_multithreaded_blocks_equal_eager():
    old = tl.get_num_threads()
    try:
        for threads in (1, 2):
            tl.set_num_threads(threads)
            _jit._jit_set_fusion_block_size(4096)
            x, y, z = (tl.randn(300_001) for _ in range(3))
            _check(chain, x, y, z)
    finally:
        tl.set_num_threads(old)


def test_errors_are_eagers():
    i = tl.randint(1, 5, (100,))
    z = tl.zeros(100, dtype=tl.int64)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        (i * 2) // z
    traced = tl.jit.trace(lambda a, b: ((a * 2) // b).neg(), (i, i), check_trace=False)
    with tl.jit.fuser("fuser1"), pytest.raises(RuntimeError, match="ZeroDivisionError"):
        traced(i, z)


def test_meta_inputs_run_node_by_node():
    traced = tl.jit.trace(chain, tuple(tl.randn(4, 4) for _ in range(3)))
    m = tl.empty(4, 4, device="meta")
    _jit._jit_reset_fusion_stats()
    with tl.jit.fuser("fuser1"):
        out = traced(m, m, m)
    assert out.is_meta and tuple(out.shape) == (4, 4)
    assert _jit._jit_fusion_stats() == {"fused": 0, "fallback": 1}


def test_small_groups_below_min_numel_run_node_by_node():
    _jit._jit_set_fusion_min_numel(1000)
    x, y, z = (tl.randn(10) for _ in range(3))
    out, _ = _run_fused(chain, x, y, z, expect_fused=False)
    assert _jit._jit_fusion_stats() == {"fused": 0, "fallback": 1}
    assert_bit_equal(out, chain(x, y, z))


# ---- autograd ------------------------------------------------------------------------------------

def test_gradients_unchanged():
    x, y, z = (tl.randn(50, 3, requires_grad=True) for _ in range(3))
    traced = tl.jit.trace(chain, (x, y, z))
    _jit._jit_reset_fusion_stats()
    with tl.jit.fuser("fuser1"):
        out = traced(x, y, z)
    assert _jit._jit_fusion_stats() == {"fused": 1, "fallback": 0}  # blocked, recorded as one node
    assert out.grad_fn is not None and out.grad_fn.name() == "FusionGroupBackward"
    out.sum().backward()
    grads = [t.grad.clone() for t in (x, y, z)]
    for t in (x, y, z):
        t.grad = None
    chain(x, y, z).sum().backward()
    for g, t in zip(grads, (x, y, z)):
        assert_bit_equal(g, t.grad)
    tx, ty, tz = (to_torch(t.detach()).requires_grad_() for t in (x, y, z))
    chain(tx, ty, tz).sum().backward()
    np.testing.assert_allclose(grads[0].numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-7)
    # without grad mode the same inputs take the blocked run
    _jit._jit_reset_fusion_stats()
    with tl.no_grad(), tl.jit.fuser("fuser1"):
        out = traced(x, y, z)
    assert _jit._jit_fusion_stats() == {"fused": 1, "fallback": 0}
    assert out.grad_fn is None and not out.requires_grad
    with tl.no_grad():
        assert_bit_equal(out, chain(x, y, z))


def test_module_with_parameters():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(16, 32)
            self.scale = nn.Parameter(tl.randn(32))

        def forward(self, x):
            h = self.fc(x)
            return (tl.sigmoid(h) * h * self.scale + 1).tanh()

    tl.manual_seed(0)
    net = Net()
    x = tl.randn(20, 16)
    traced = tl.jit.trace(net, x)
    with tl.no_grad():
        expected = net(x)
        _jit._jit_reset_fusion_stats()
        with tl.jit.fuser("fuser1"):
            got = traced(x)
        assert _jit._jit_fusion_stats()["fused"] == 1
    assert_bit_equal(got, expected)
    with tl.jit.fuser("fuser1"):
        traced(x).sum().backward()  # parameters require grad: node by node, gradients recorded
    g = net.scale.grad.clone()
    net.zero_grad()
    net(x).sum().backward()
    assert_bit_equal(g, net.scale.grad)
    opt_graph = tl.jit.last_executed_optimized_graph()
    assert opt_graph.findNode("prim::FusionGroup") is not None


# ---- switches ------------------------------------------------------------------------------------

def test_fuser_switches_as_torch():
    assert _jit._jit_can_fuse_on_cpu() is False  # off by default on CPU, as torch
    assert _jit._jit_can_fuse_on_cpu() == torch._C._jit_can_fuse_on_cpu()
    traced = tl.jit.trace(chain, tuple(tl.randn(70) for _ in range(3)))
    x = tl.randn(70)
    _jit._jit_reset_fusion_stats()
    traced(x, x, x)
    assert _jit._jit_fusion_stats() == {"fused": 0, "fallback": 0}
    assert tl.jit.last_executed_optimized_graph() is traced.graph
    with tl.jit.fuser("fuser1"):
        assert _jit._jit_can_fuse_on_cpu() and _jit._jit_texpr_fuser_enabled()
        traced(x, x, x)
        assert tl.jit.last_executed_optimized_graph().findNode("prim::FusionGroup") is not None
        with tl.jit.fuser("none"):
            assert not _jit._jit_fusion_active()
            assert traced.graph_for(x, x, x) is traced.graph
        assert _jit._jit_fusion_active()
    assert not _jit._jit_can_fuse_on_cpu()
    with pytest.raises(Exception, match="unrecognized fuser option"):
        with tl.jit.fuser("fuser9"):
            pass
    assert not _jit._jit_can_fuse_on_cpu()
    _jit._jit_override_can_fuse_on_cpu(True)
    try:
        assert traced.graph_for(x, x, x).findNode("prim::FusionGroup") is not None
    finally:
        _jit._jit_override_can_fuse_on_cpu(False)
    with pytest.raises(ValueError, match="block size"):
        _jit._jit_set_fusion_block_size(0)


# ---- random chains over random layouts -------------------------------------------------------------

_UNARY = [tl.exp, tl.sin, tl.tanh, tl.sigmoid, tl.abs, tl.neg, lambda t: t * 1.5 + 0.25, tl.erf]
_BINARY = [tl.add, tl.mul, tl.sub, tl.maximum, tl.atan2, lambda a, b: tl.where(a > b, a, b * 2)]


def _random_layout(rng, shape, dtype):
    """A tensor of `shape` (after broadcasting) laid out at random: contiguous, permuted, sliced,
    broadcast along some dims."""
    kind = rng.integers(4)
    if kind == 0:
        return tl.randn(*shape, dtype=dtype)
    if kind == 1:  # permuted
        perm = rng.permutation(len(shape))
        base = tl.randn(*[shape[p] for p in perm], dtype=dtype)
        return base.permute(*[int(i) for i in np.argsort(perm)])
    if kind == 2:  # every other element along the last dim
        return tl.randn(*shape[:-1], shape[-1] * 2, dtype=dtype)[..., ::2]
    sizes = [s if rng.random() < 0.5 else 1 for s in shape]  # broadcast (fewer leading dims too)
    return tl.randn(*sizes[int(rng.integers(len(sizes))):], dtype=dtype)


def test_random_chains_bit_identical():
    rng = np.random.default_rng(13)
    _jit._jit_set_fusion_block_size(100)
    for case in range(40):
        ndim = int(rng.integers(1, 4))
        shape = [int(s) for s in rng.integers(1, 9, ndim)]
        shape[-1] = int(rng.integers(5, 40))
        dtype = tl.float32 if case % 2 else tl.float64
        inputs = [_random_layout(rng, shape, dtype) for _ in range(3)]
        inputs[0] = tl.randn(*shape, dtype=dtype)  # one input has the full shape
        ops = [(int(rng.integers(2)), int(rng.integers(len(_UNARY))), int(rng.integers(len(_BINARY))),
                int(rng.integers(3))) for _ in range(int(rng.integers(3, 7)))]

        def fn(x, y, z, ops=ops):
            vals, cur = [x, y, z], x
            for binary, u, b, other in ops:
                cur = _BINARY[b](cur, vals[other]) if binary else _UNARY[u](cur)
            return cur

        _check(fn, *inputs)
