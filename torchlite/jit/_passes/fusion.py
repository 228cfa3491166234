"""Elementwise fusion: maximal chains and DAGs of pointwise nodes become one `prim::FusionGroup`
node whose `Subgraph` attribute holds them (printed as torch.jit prints fusion groups:
`prim::FusionGroup_0(...)` in the graph, `with prim::FusionGroup_0 = graph(...)` after it). The
interpreter runs a group in cache-sized blocks (aten/jit/FusionExecutor.h): each input read once,
each output written once, every op through its own kernel, so the results are eager's bit for bit.

A node may join a group when its overload is tagged `pointwise` in native_functions.yaml (nothing
here names an op), writes nothing, is not random, returns one tensor whose traced sizes are known
(or, with require_shapes=False, unknown in every member: checked per call by the executor),
not 0-d, and equal to the group's (so every input broadcasts to the group's shape), and nothing
writes its result. Groups grow from their last node towards its producers; a producer joins when
its result is used only by the group or after it, and no node between it and the group writes what
it reads (alias analysis): the group runs where its last node was. Numbers, None and 0-d tensor
constants are copied into the subgraph; other values become the group's inputs. Groups of fewer
than `min_group_size` nodes are not made (one op gains nothing)."""
from __future__ import annotations

from torchlite._C import _jit
from torchlite.jit._passes.alias import AliasDb


def _shape(value):
    ty = value.type()
    return tuple(ty.sizes()) if ty.isTensor() and ty.sizes() is not None else None


def _fusable(node, db, require_shapes=True) -> bool:
    schema = node.fn_schema()
    if schema is None or not schema.is_pointwise or schema.is_mutable or schema.is_nondeterministic:
        return False
    if node.blocks() or len(node.outputs()) != 1:
        return False
    shape = _shape(node.output())
    if shape is None and not require_shapes:  # a scripted graph's Tensor: the executor checks shapes per call
        return node.output().type().isTensor() and not db.has_writers(node.output())
    return bool(shape) and not db.has_writers(node.output())


def _inline_constant(value) -> bool:
    """Constants copied into the subgraph: numbers, strings, None, dtypes, 0-d tensors."""
    if not value.isConstant():
        return False
    v = value.toIValue()
    return not hasattr(v, "data_ptr") or v.dim() == 0


class _BlockFuser:
    def __init__(self, graph, block, db, min_group_size, require_shapes=True):
        self.graph, self.block, self.db, self.min_size = graph, block, db, min_group_size
        self.require_shapes = require_shapes
        self.nodes = block.nodes()  # kept alive: their wrappers' ids index positions below
        self.index = {id(n): i for i, n in enumerate(self.nodes)}
        self.assigned = set()

    def _position(self, node):
        """The index in this block of `node` or of the node of this block that holds it; a node
        made by this pass (a fusion group) or a block's return counts as after every candidate."""
        while node is not None and node.owningBlock() is not self.block:
            owner = node.owningBlock().owningNode() if node.owningBlock() is not None else None
            node = owner
        if node is None or node.kind() in ("prim::FusionGroup", "prim::Return"):
            return len(self.nodes)
        return self.index.get(id(node), len(self.nodes))

    def _can_absorb(self, j, members, seed) -> bool:
        producer = self.nodes[j]
        for use in producer.output().uses():
            pos = self._position(use.user)
            if pos not in members and pos <= seed:
                return False  # a user outside the group runs before the group would
        for v in producer.inputs():
            for writer in self.db.writers(v):
                pos = self._position(writer)
                if j < pos <= seed and pos not in members:
                    return False  # the value read would change between the producer and the group
        return True

    def _grow(self, seed):
        members = {seed}
        shape = _shape(self.nodes[seed].output())
        changed = True
        while changed:
            changed = False
            for m in sorted(members, reverse=True):
                for v in self.nodes[m].inputs():
                    producer = v.node()
                    if producer.kind() == "prim::FusionGroup":
                        continue
                    j = self.index.get(id(producer))
                    if j is None or j in members or j in self.assigned or producer.owningBlock() is not self.block:
                        continue
                    if not _fusable(producer, self.db, self.require_shapes) or _shape(producer.output()) != shape:
                        continue
                    if self._can_absorb(j, members, seed):
                        members.add(j)
                        changed = True
        return members

    def _build(self, members):
        order = sorted(members)
        sub = _jit.Graph()
        mapped, group_inputs, inlined = {}, [], []

        def inner(v):
            key = v.unique()
            if key not in mapped:
                if _inline_constant(v):
                    c = sub.insertConstant(v.toIValue())
                    c.setType(v.type())
                    mapped[key] = c
                    inlined.append(v)
                else:
                    s = sub.addInput(v.debugName() if v.hasDebugName() else "")
                    s.setType(v.type())
                    mapped[key] = s
                    group_inputs.append(v)
            return mapped[key]

        member_nodes = [self.nodes[j] for j in order]
        for node in member_nodes:
            clone = sub.insertNode(sub.createClone(node, [inner(v) for v in node.inputs()]))
            mapped[node.output().unique()] = clone.output()
        inside = set(order)
        outputs = [n.output() for n in member_nodes
                   if any(self._position(u.user) not in inside for u in n.output().uses())]
        for o in outputs:
            sub.registerOutput(mapped[o.unique()])
        group = self.graph.create("prim::FusionGroup", group_inputs, len(outputs))
        group.g_("Subgraph", sub)
        group.insertBefore(member_nodes[-1])
        names = []
        for o, g in zip(outputs, group.outputs()):
            g.setType(o.type())
            names.append(o.debugName() if o.hasDebugName() else None)
            o.replaceAllUsesWith(g)
        for node in reversed(member_nodes):
            node.destroy()
        for g, name in zip(group.outputs(), names):
            if name is not None:
                g.setDebugName(name)
        self.assigned |= inside
        for v in inlined:  # constants now only used inside the group (as torch.jit moves them in)
            if not v.hasUses():
                node = v.node()
                # never looked at again: self.nodes still holds its wrapper, whose node is freed
                self.assigned.add(self._position(node))
                node.destroy()

    def run(self) -> int:
        made = 0
        for seed in reversed(range(len(self.nodes))):
            if seed in self.assigned or not _fusable(self.nodes[seed], self.db, self.require_shapes):
                continue
            members = self._grow(seed)
            if len(members) >= self.min_size:
                self._build(members)
                made += 1
        return made


def _fuse(graph, block, db, min_group_size, require_shapes) -> int:
    made = 0
    for node in block.nodes():
        for sub in node.blocks():
            made += _fuse(graph, sub, db, min_group_size, require_shapes)
    return made + _BlockFuser(graph, block, db, min_group_size, require_shapes).run()


def fuse_elementwise(graph, min_group_size=2, require_shapes=True) -> int:
    """Replaces groups of pointwise nodes by prim::FusionGroup nodes; returns how many groups.
    With require_shapes=False, nodes whose results have no recorded sizes (a scripted graph's
    `Tensor`s) may group with each other too: the executor then checks per input signature that every
    result has the group's shape, and runs the group node by node when one does not."""
    return _fuse(graph, graph.block(), AliasDb(graph), min_group_size, require_shapes)
