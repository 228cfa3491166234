"""Alias analysis from the schemas' annotations (docs/native_functions.md): an argument written
`Tensor(a!)` is written by the op; a return annotated with the same set as an argument
(`Tensor(a)`, a view; `Tensor(a!)`, the in-place result) aliases it. Values are grouped into alias
sets (union-find); a set is "written" when any node writes one of its values. Graph inputs and
module attributes (prim::GetAttr outputs) may be the same tensor or views of each other at run time
(the caller decides), so they form one set: writing any of them counts as writing all."""
from __future__ import annotations

from torchlite._C import _jit


class AliasDb:
    def __init__(self, graph):
        self._parent: dict[int, int] = {}
        self._writers: dict[int, list] = {}
        self._values = {}
        external = list(graph.inputs()) + [n.output() for n in graph.allNodes() if n.kind() == "prim::GetAttr"]
        for a, b in zip(external, external[1:]):
            self._union(a, b)
        for node in graph.allNodes():
            self._add_node(node)

    # ---- union-find over Value.unique() ---------------------------------------------------
    def _find(self, u: int) -> int:
        parent = self._parent
        root = u
        while parent.get(root, root) != root:
            root = parent[root]
        while u != root:  # path compression: later finds of these values take one step
            parent[u], u = root, parent[u]
        return root

    def _union(self, a, b):
        ra, rb = self._find(a.unique()), self._find(b.unique())
        if ra != rb:
            self._parent[ra] = rb
            self._writers.setdefault(rb, []).extend(self._writers.pop(ra, []))

    def _add_node(self, node):
        kind = node.kind()
        if kind in ("prim::ListConstruct", "prim::TupleConstruct"):
            for v in node.inputs():  # the container holds its elements: writing one writes the set
                self._union(node.output(), v)
            return
        if kind in ("prim::ListUnpack", "prim::TupleUnpack"):
            for v in node.outputs():
                self._union(node.input(), v)
            return
        schema = node.fn_schema()
        if schema is None:
            if _jit._prim_writes_first_input(kind):  # script's list.append, dict[k] = v, d.pop(k), ...
                self._writers.setdefault(self._find(node.inputsAt(0).unique()), []).append(node)
                for v in node.inputs()[1:]:  # the container now holds the value
                    self._union(node.inputsAt(0), v)
            if kind in ("prim::getitem", "prim::dict_getitem", "prim::dict_get", "prim::pop", "prim::unchecked_cast",
                        "prim::list_slice", "prim::dict_values", "prim::dict_items", "prim::dict_pop",
                        "prim::dict_pop_default"):
                self._union(node.output(), node.inputsAt(0))  # an element (or the value itself) of the container
            return
        sets = {}
        for arg, value in zip(schema.arguments, node.inputs()):
            info = arg.alias_info
            if info is None:
                continue
            sets.setdefault(info.before_set, []).append(value)
            if info.is_write:
                self._writers.setdefault(self._find(value.unique()), []).append(node)
        for ret, value in zip(schema.returns, node.outputs()):
            info = ret.alias_info
            for arg_value in sets.get(info.before_set, []) if info is not None else []:
                self._union(value, arg_value)

    # ---- queries ----------------------------------------------------------------------------
    def may_alias(self, a, b) -> bool:
        return self._find(a.unique()) == self._find(b.unique())

    def writers(self, value) -> list:
        """The nodes that write `value`'s alias set."""
        return list(self._writers.get(self._find(value.unique()), []))

    def has_writers(self, value) -> bool:
        return bool(self._writers.get(self._find(value.unique())))

    def writes(self, node) -> bool:
        schema = node.fn_schema()
        if schema is None:
            return _jit._prim_writes_first_input(node.kind())
        return schema.is_mutable

    def can_move_before(self, node, target) -> bool:
        """Whether `node` may be moved up to just before `target` (same block, target earlier):
        no node in between writes what `node` reads or writes, or reads what `node` writes."""
        touched = list(node.inputs()) + list(node.outputs())
        current = node.prev()
        while current is not None and current is not target.prev():
            for v in list(current.inputs()) + list(current.outputs()):
                if any(self.may_alias(v, t) for t in touched) and (self.writes(current) or self.writes(node)):
                    return False
            if any(o in node.inputs() for o in current.outputs()):
                return False
            current = current.prev()
        return True
