"""DictList: a dict as the interpreter runs it (a list of alternating keys and values), marked as a dict.

The interpreter's dicts are lists (docs/jit.md, "Dict keys"); one made as a dict (prim::DictConstruct, dict.copy())
carries a mark (aten/jit/IValue.h, IValue::dict), so that a run-time type test (prim::isinstance on a
`Union[Dict[str, int], List[int]]`) tells it from a list as torch does. Python sees such a value as a DictList and
passes one in to keep the mark: the conversions of a dict argument (_script._to_input, _archive_signature.to_graph)
make one, and a DictList coming out of a graph where the static type is a Union is converted back to a dict."""
from __future__ import annotations


class DictList(list):
    """[k0, v0, k1, v1, ...]: a dict in the interpreter's form (a list to every list operation)."""
    __slots__ = ()


def refuse_empty(value):
    """As torch, which infers the type of a value passed for a Union from the value itself: an empty list or dict
    (also inside lists, tuples and dicts) has none, and is refused with torch's RuntimeError."""
    if isinstance(value, dict):
        if not value:
            raise RuntimeError("Tracer cannot infer type of {}\n:Dictionary inputs must have entries")
        for k, v in value.items():
            refuse_empty(k)
            refuse_empty(v)
    elif isinstance(value, (list, tuple)):
        if not value and isinstance(value, list):
            raise RuntimeError("Tracer cannot infer type of []\n:List trace inputs must have elements")
        for v in value:
            refuse_empty(v)
