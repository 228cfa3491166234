"""torchlite's JIT IR (torchlite._C._jit): the YAML-driven op registry, building, editing and
printing graphs from Python, and the interpreter running them."""
import numpy as np
import pytest
import torch

import torchlite as tl
from torchlite._C import _jit

from conftest import from_torch, to_torch


def test_every_yaml_overload_is_registered_or_skipped_with_a_reason():
    import yaml
    with open("native_functions.yaml") as f:
        entries = yaml.safe_load(f)
    names = {e["func"].split("(")[0] for e in entries if isinstance(e, dict) and "func" in e}
    registered = set()
    for name in names:
        base = name.split(".")[0]
        registered |= {f"{s.name[6:]}{'.' + s.overload_name if s.overload_name else ''}"
                       for s in _jit._jit_get_schemas_for_operator("aten::" + base)}
    skipped = {line.split(":")[0] for line in _jit._skipped_ops()}
    assert names <= registered | skipped
    assert all(": " in line for line in _jit._skipped_ops())  # each with its reason
    assert _jit._registered_op_count() > 1000  # the derived in-place and out= variants too


def test_schema_from_the_yaml():
    (s,) = [s for s in _jit._jit_get_schemas_for_operator("aten::add") if s.overload_name == "Tensor"]
    assert str(s) == "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    assert [a.name for a in s.arguments] == ["self", "other", "alpha"]
    assert [a.kwarg_only for a in s.arguments] == [False, False, True]
    assert s.arguments[2].default_value == "1" and not s.is_mutable
    (inplace,) = [s for s in _jit._jit_get_schemas_for_operator("aten::add_") if s.overload_name == "Tensor"]
    assert inplace.is_mutable
    assert inplace.arguments[0].alias_info.is_write and inplace.arguments[0].alias_info.before_set == "a"
    assert inplace.returns[0].alias_info.before_set == "a"
    (view,) = _jit._jit_get_schemas_for_operator("aten::t")
    assert view.returns[0].alias_info is not None and not view.returns[0].alias_info.is_write
    assert any(s.is_nondeterministic for s in _jit._jit_get_schemas_for_operator("aten::bernoulli"))


def _add_graph():
    g = _jit.Graph()
    x = g.addInput("x")
    y = g.addInput("y")
    one = g.insertConstant(1)
    add = g.insertNode(g.create("aten::add", [x, y, one]))
    relu = g.insertNode(g.create("aten::relu", [add.output()]))
    g.registerOutput(relu.output())
    return g


def test_build_print_and_run_a_graph():
    g = _add_graph()
    g.lint()
    assert str(g) == (
        "graph(%x : Tensor,\n"
        "      %y : Tensor):\n"
        "  %2 : int = prim::Constant[value=1]()\n"
        "  %3 : Tensor = aten::add(%x, %y, %2)\n"
        "  %4 : Tensor = aten::relu(%3)\n"
        "  return (%4)\n")
    add = g.nodes()[1]
    assert add.kind() == "aten::add"
    assert add.schema() == "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    assert [v.debugName() for v in add.inputs()] == ["x", "y", "2"]
    assert add.output().uses()[0].user.kind() == "aten::relu"
    assert g.nodes()[0].schema() == "(no schema)" and g.nodes()[0].output().toIValue() == 1
    a, b = torch.randn(3, 4), torch.randn(3, 4)
    (out,) = _jit.run_graph(g, [from_torch(a), from_torch(b)])
    np.testing.assert_allclose(out.numpy(), torch.relu(a + b).numpy())


def test_overload_chosen_by_input_types():
    g = _jit.Graph()
    x = g.addInput("x")
    two = g.insertConstant(2.5)
    node = g.insertNode(g.create("aten::mul", [x, two]))
    assert node.schema().startswith("aten::mul.Scalar(")
    node2 = g.insertNode(g.create("aten::mul", [x, x]))
    assert node2.schema().startswith("aten::mul.Tensor(")
    exact = g.insertNode(g.create("aten::sum.dim_IntList", [x, g.insertConstant([0]), g.insertConstant(False),
                                                            g.insertConstant(None)]))
    g.registerOutput(exact.output())
    (out,) = _jit.run_graph(g, [tl.ones(2, 3)])
    assert out.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(RuntimeError, match="no overload of aten::mul"):
        g.create("aten::mul", [x, g.insertConstant("a")])
    with pytest.raises(RuntimeError, match="unknown operator aten::no_such_op"):
        g.create("aten::no_such_op", [x])


def test_edit_a_graph():
    g = _add_graph()
    add, relu = g.nodes()[1], g.nodes()[2]
    # x + y -> x * y, then drop the relu: the graph returns the product
    g.setInsertPoint(add)
    mul = g.insertNode(g.create("aten::mul", [add.inputs()[0], add.inputs()[1]]))
    add.output().replaceAllUsesWith(mul.output())
    add.destroy()
    relu.output().replaceAllUsesWith(mul.output())
    relu.destroy()
    g.setInsertPoint(g.return_node())
    g.lint()
    assert [n.kind() for n in g.nodes()] == ["prim::Constant", "aten::mul"]
    (out,) = _jit.run_graph(g, [tl.full((2,), 3.0), tl.full((2,), -2.0)])
    assert out.tolist() == [-6.0, -6.0]
    with pytest.raises(RuntimeError, match="still has uses"):
        mul.destroy()
    # moving and input editing
    const = g.nodes()[0]
    const.moveAfter(mul)
    assert g.nodes()[-1] is not None and [n.kind() for n in g.nodes()] == ["aten::mul", "prim::Constant"]
    mul.replaceInput(1, mul.inputs()[0])
    (out,) = _jit.run_graph(g, [tl.full((2,), 3.0), tl.full((2,), -2.0)])
    assert out.tolist() == [9.0, 9.0]


def test_copy_is_independent():
    g = _add_graph()
    c = g.copy()
    assert str(c) == str(g)
    c.nodes()[2].output().replaceAllUsesWith(c.nodes()[1].output())
    c.nodes()[2].destroy()
    assert len(g.nodes()) == 3 and len(c.nodes()) == 2


def test_lists_tuples_and_attributes():
    g = _jit.Graph()
    m = g.addInput("self")
    x = g.addInput("x")
    w = g.insertNode(g.create("prim::GetAttr", [m])).s_("name", "weight").output()
    lst = g.insertNode(g.create("prim::ListConstruct", [x, w])).output()
    cat = g.insertNode(g.create("aten::cat", [lst, g.insertConstant(0)])).output()
    tup = g.insertNode(g.create("prim::TupleConstruct", [cat, x])).output()
    unpack = g.insertNode(g.create("prim::TupleUnpack", [tup], 2))
    g.registerOutput(unpack.outputs()[0])
    obj = _jit.Object("__torch__.M")
    obj.setattr("weight", tl.zeros(1, 2))
    (out,) = _jit.run_graph(g, [obj, tl.ones(2, 2)])
    assert out.tolist() == [[1.0, 1.0], [1.0, 1.0], [0.0, 0.0]]
    assert 'prim::GetAttr[name="weight"](%self)' in str(g)


def test_if_and_loop_blocks():
    g = _jit.Graph()
    x = g.addInput("x")
    cond = g.addInput("c")
    cond.setType("bool")
    if_node = g.insertNode(g.create("prim::If", [cond], 1))
    then, other = if_node.addBlock(), if_node.addBlock()
    g.setInsertPoint(then.returnNode())
    then.registerOutput(g.insertNode(g.create("aten::neg", [x])).output())
    other.registerOutput(x)
    g.setInsertPoint(g.return_node())
    # for i in range(3): acc = acc + x
    loop = g.insertNode(g.create("prim::Loop", [g.insertConstant(3), g.insertConstant(True), if_node.output()], 1))
    body = loop.addBlock()
    body.addInputToBlock("i").setType("int")
    acc = body.addInputToBlock("acc")
    g.setInsertPoint(body.returnNode())
    body.registerOutput(g.insertConstant(True))
    body.registerOutput(g.insertNode(g.create("aten::add", [acc, x, g.insertConstant(1)])).output())
    g.setInsertPoint(g.return_node())
    g.registerOutput(loop.output())
    g.lint()
    text = str(g)
    assert "prim::If(%c)\n    block0():\n" in text and "-> (%x)" in text
    (out,) = _jit.run_graph(g, [tl.full((2,), 2.0), True])
    assert out.tolist() == [4.0, 4.0]  # -2 + 3 * 2
    (out,) = _jit.run_graph(g, [tl.full((2,), 2.0), False])
    assert out.tolist() == [8.0, 8.0]


def test_values_live_until_their_last_use_across_blocks():
    # The interpreter drops each value after its last use (uses inside a loop body count as uses by the
    # loop node): y is read in every trip of the body and again after the loop, z is never read.
    g = _jit.Graph()
    x = g.addInput("x")
    y = g.insertNode(g.create("aten::neg", [x])).output()
    g.insertNode(g.create("aten::exp", [x]))  # z: unused
    loop = g.insertNode(g.create("prim::Loop", [g.insertConstant(3), g.insertConstant(True), x], 1))
    body = loop.addBlock()
    body.addInputToBlock("i").setType("int")
    acc = body.addInputToBlock("acc")
    g.setInsertPoint(body.returnNode())
    body.registerOutput(g.insertConstant(True))
    body.registerOutput(g.insertNode(g.create("aten::add", [acc, y, g.insertConstant(1)])).output())
    g.setInsertPoint(g.return_node())
    out = g.insertNode(g.create("aten::mul", [loop.output(), y])).output()
    g.registerOutput(out)
    g.registerOutput(y)
    g.lint()
    for _ in range(2):  # the second run reuses the blocks' plans
        res, ys = _jit.run_graph(g, [tl.full((2,), 2.0)])
        assert res.tolist() == [8.0, 8.0]  # (2 - 3 * 2) * -2
        assert ys.tolist() == [-2.0, -2.0]


def test_interpreter_runs_meta_and_autograd():
    g = _add_graph()
    (out,) = _jit.run_graph(g, [tl.empty(5, 2, device="meta"), tl.empty(5, 2, device="meta")])
    assert out.device.type == "meta" and tuple(out.shape) == (5, 2)
    a = tl.randn(3, requires_grad=True)
    b = tl.randn(3, requires_grad=True)
    (out,) = _jit.run_graph(g, [a, b])
    out.sum().backward()
    ta, tb = to_torch(a.detach()).requires_grad_(), to_torch(b.detach()).requires_grad_()
    torch.relu(ta + tb).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy())
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy())


def test_bad_inputs_raise_the_ops_errors():
    g = _add_graph()
    with pytest.raises(RuntimeError, match="(?i)size"):
        _jit.run_graph(g, [tl.ones(2, 3), tl.ones(4, 5)])
    with pytest.raises(TypeError, match="expected 2 arguments but got 1"):
        _jit.run_graph(g, [tl.ones(2)])
    with pytest.raises(TypeError, match="add.Tensor: expected a value of type Tensor but got int"):
        _jit.run_graph(g, [tl.ones(2), 3])
    with pytest.raises(TypeError, match="cannot convert a Python object"):
        _jit.run_graph(g, [tl.ones(2), object()])
