"""Peephole rewrites, each replacing a node's output by a value the graph already has:

- `t(t(x))`, `transpose(transpose(x, a, b), a, b)` (or `b, a`) -> x
- `neg(neg(x))` -> x
- `x + 0`, `x - 0` (alpha any), `x * 1`, `x / 1` -> x, when x's dtype is known and the number does
  not change it (bool + 0 is int64, int + 0.0 is float)
- with shape peepholes (torch's default; they read the tensor types the trace recorded):
  `contiguous(x)` of a contiguous x, `view(x, sizes)` to x's own sizes, `to(x, dtype)` to its
  own dtype (no copy) -> x

A rewrite that turns a new tensor into x itself (the arithmetic ones, neg(neg(x))) is done only when
neither x nor the result is written by any node (alias analysis): otherwise writing one would now
write the other. Unused nodes are left for dead-code elimination."""
from __future__ import annotations

from torchlite.jit._passes.alias import AliasDb

_INTEGRAL_OK = ("Byte", "Char", "Short", "Int", "Long", "UInt16", "UInt32", "UInt64")
_FLOAT_DTYPES = ("Half", "BFloat16", "Float", "Double")


def _const(value):
    """The Python value of a constant Value (None when it is not a constant)."""
    return value.toIValue() if value.isConstant() else None


def _dtype_name(value):
    s = str(value.type())
    return s.split("(")[0] if "(" in s else None


def _number_keeps_dtype(x, number) -> bool:
    """Whether x (op) number has x's dtype: an int with an integral or floating x, a float with a
    floating x (never bool: bool + 0 promotes to int64)."""
    dtype = _dtype_name(x)
    if dtype is None or isinstance(number, bool):
        return False
    if isinstance(number, int):
        return dtype in _INTEGRAL_OK or dtype in _FLOAT_DTYPES
    return isinstance(number, float) and dtype in _FLOAT_DTYPES


_CATEGORY = {"Bool": 0, **{d: 1 for d in _INTEGRAL_OK}, **{d: 2 for d in _FLOAT_DTYPES}}


def _zero_dim_keeps_dtype(x, c) -> bool:
    """Whether x (op) c has x's dtype and shape for a 0-d tensor constant c (the wrapped number a
    traced `x + 0` records): c only promotes across categories (bool < integral < floating) when x
    has dimensions, and must have x's dtype when x is 0-d too."""
    dtype, sizes = _dtype_name(x), x.type().sizes()
    cdtype = str(_tl_dtype_name(c.dtype))
    if dtype is None or sizes is None or c.dim() != 0:
        return False
    if len(sizes) == 0:
        return cdtype == dtype
    return _CATEGORY.get(cdtype, 3) <= _CATEGORY.get(dtype, -1) and dtype != "Bool"


def _tl_dtype_name(dtype):
    from torchlite._C import _jit
    import torchlite as tl
    return str(_jit.Type.of(tl.empty(0, dtype=dtype))).split("(")[0]


def _identity_arith(node):
    """x for `x + 0`, `x - 0`, `x * 1`, `x / 1` (a constant number or 0-d tensor)."""
    kind = node.kind()
    ins = node.inputs()
    if kind not in ("aten::add", "aten::sub", "aten::mul", "aten::div") or len(ins) < 2:
        return None
    if kind == "aten::div" and len(ins) != 2:
        return None  # div with rounding_mode
    other = _const(ins[1])
    neutral = 0 if kind in ("aten::add", "aten::sub") else 1
    if other is None or isinstance(other, (list, tuple)):
        return None
    if hasattr(other, "data_ptr"):
        if other.dim() != 0 or other.item() != neutral or not _zero_dim_keeps_dtype(ins[0], other):
            return None
        return ins[0]
    if other != neutral:
        return None
    return ins[0] if _number_keeps_dtype(ins[0], other) else None


def _double(node, kind):
    """x for kind(kind(x)) (neg, t)."""
    if node.kind() != kind:
        return None
    inner = node.inputs()[0].node()
    return inner.inputs()[0] if inner.kind() == kind else None


def _double_transpose(node):
    if node.kind() != "aten::transpose":
        return None
    inner = node.inputs()[0].node()
    if inner.kind() != "aten::transpose":
        return None
    dims = [_const(v) for v in node.inputs()[1:]]
    inner_dims = [_const(v) for v in inner.inputs()[1:]]
    if None in dims or None in inner_dims or not all(isinstance(d, int) for d in dims + inner_dims):
        return None
    if sorted(dims) == sorted(inner_dims) and all(d >= 0 for d in dims + inner_dims):
        return inner.inputs()[0]
    return None


def _shape_noop(node):
    kind = node.kind()
    x = node.inputs()[0] if node.inputs() else None
    if x is None or not x.type().isTensor():
        return None
    ty = x.type()
    sizes, strides = ty.sizes(), ty.strides()
    if kind == "aten::contiguous" and sizes is not None and strides is not None:
        fmt = _const(node.inputs()[1]) if len(node.inputs()) > 1 else None
        if fmt is not None and str(fmt) != "torchlite.contiguous_format":
            return None
        expected, acc = [], 1
        for s in reversed(sizes):
            expected.insert(0, acc)
            acc *= max(s, 1)
        if all(sz == 1 or st == e for sz, st, e in zip(sizes, strides, expected)):
            return x
    if kind == "aten::view" and sizes is not None and node.schema().startswith("aten::view("):
        if _const(node.inputs()[1]) == list(sizes):
            return x
    if kind == "aten::to" and ty.dtype() is not None:
        schema = node.fn_schema()
        names = [a.name for a in schema.arguments]
        if "dtype" not in names or "device" in names or "other" in names:
            return None
        args = {n: v for n, v in zip(names, node.inputs())}
        consts = {n: _const(v) for n, v in args.items() if n != "self"}
        if any(not args[n].isConstant() for n in consts):
            return None
        if consts.get("dtype") == ty.dtype() and not consts.get("copy", False) and consts.get("memory_format") is None:
            return x
    return None


def peephole(graph, disable_shape_peepholes=False) -> int:
    """Applies the rewrites everywhere; returns how many outputs were replaced."""
    db = AliasDb(graph)
    rewritten = 0
    for node in graph.allNodes():
        if len(node.outputs()) != 1:
            continue
        out = node.output()
        replacement = _double(node, "aten::t") or _double_transpose(node)
        if replacement is None:
            fresh = _double(node, "aten::neg") or _identity_arith(node)
            if fresh is not None and not db.has_writers(fresh) and not db.has_writers(out):
                replacement = fresh
        if replacement is None and not disable_shape_peepholes:
            replacement = _shape_noop(node)
        if replacement is not None and replacement is not out:
            out.replaceAllUsesWith(replacement)
            rewritten += 1
    return rewritten
