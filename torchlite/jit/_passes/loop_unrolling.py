"""Loop unrolling for constant trip counts: a prim::Loop whose trip count is a constant (at most
`max_trip_count`), whose initial condition is constant True and whose body always continues
(its condition output is constant True: no break) is replaced by that many copies of its body,
the iteration number a constant in each, so later passes can fold and fuse across iterations.
The copies are made through the graph API (clone_node), nested blocks included."""
from __future__ import annotations

from torchlite._C import _jit


def clone_node(graph, node, env):
    """A copy of `node` (inputs mapped through env, nested blocks copied) inserted at the graph's
    insert point; its outputs are added to env."""
    inputs = [env.get(v.unique(), v) for v in node.inputs()]
    if node.fn_schema() is not None:
        new = graph.createClone(node, inputs)
    else:
        new = graph.create(node.kind(), inputs, node.outputsSize())
        for o, n in zip(node.outputs(), new.outputs()):
            n.setType(o.type())
    for name in node.attributeNames():
        if node.kindOf(name) == "g":
            new.g_(name, node.g(name).copy())
        else:
            new.ival_(name, node.ival(name))
    graph.insertNode(new)
    for o, n in zip(node.outputs(), new.outputs()):
        env[o.unique()] = n
    after = new.next()
    for block in node.blocks():
        nb = new.addBlock()
        for v in block.inputs():
            nv = nb.addInputToBlock()
            nv.setType(v.type())
            env[v.unique()] = nv
        graph.setInsertPoint(nb.returnNode())
        for inner in block.nodes():
            clone_node(graph, inner, env)
        for v in block.outputs():
            nb.registerOutput(env.get(v.unique(), v))
    if node.blocks():
        graph.setInsertPoint(after)
    return new


def _constant(v):
    return v.node().kind() == "prim::Constant" and v.node().hasAttribute("value")


def _unrollable(node, max_trip_count):
    if node.kind() != "prim::Loop":
        return None
    trip, cond = node.inputsAt(0), node.inputsAt(1)
    if not (_constant(trip) and _constant(cond)) or cond.toIValue() is not True:
        return None
    n = trip.toIValue()
    if not isinstance(n, int) or n > max_trip_count:
        return None
    body = node.blocks()[0]
    out_cond = body.outputs()[0]
    if not (_constant(out_cond) and out_cond.toIValue() is True):
        return None
    return max(n, 0)


def unroll_loops(graph, max_trip_count=32) -> int:
    """Unrolls every loop with a constant trip count up to max_trip_count (innermost first);
    returns how many loops were unrolled."""
    unrolled = 0
    for node in reversed(graph.allNodes()):  # inner loops come after their outer ones
        n = _unrollable(node, max_trip_count)
        if n is None:
            continue
        body = node.blocks()[0]
        carried = list(node.inputs())[2:]
        graph.setInsertPoint(node)
        for i in range(n):
            env = {body.inputs()[0].unique(): graph.insertConstant(i)}
            for v, c in zip(list(body.inputs())[1:], carried):
                env[v.unique()] = c
            for inner in body.nodes():
                clone_node(graph, inner, env)
                graph.setInsertPoint(node)
            carried = [env.get(v.unique(), v) for v in list(body.outputs())[1:]]
        for out, c in zip(node.outputs(), carried):
            out.replaceAllUsesWith(c)
        graph.setInsertPoint(graph.return_node())
        node.destroy()
        unrolled += 1
    return unrolled
