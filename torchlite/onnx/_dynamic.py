"""Dynamic axes for a trace that records sizes as Python ints (docs/jit.md: `x.size(0)` is an int).

The model is traced again with each named dynamic dimension one and two larger; every int constant
that changes with it is a linear function `a * size + b` of it (checked on the second retrace), and
is exported as that expression over the input's Shape, so reshapes and factories follow the batch
size at run time. A tensor or float constant that changes, or a graph whose nodes change, cannot be
expressed and raises."""
from __future__ import annotations

import torchlite as _tl
from torchlite.onnx._context import Dim
from torchlite.onnx.errors import OnnxExporterError


class SymInt:
    """coef * (product of the sizes of `dims`) + b, for a constant of the base trace: `a * batch + b`,
    or a product such as `seq * batch * heads` (found one dim at a time, with b = 0)."""

    def __init__(self, dims: tuple, coef: int, b: int):
        self.dims, self.coef, self.b = dims, coef, b

    def __repr__(self) -> str:
        return f"{self.coef}*{'*'.join(self.dims)}+{self.b}"


def _grown(t, axis, extra):
    """t with `extra` more entries along axis (repeating its first slice, so values stay realistic)."""
    pieces = [t] + [t.narrow(axis, 0, 1)] * extra
    return _tl.cat(pieces, axis)


def _retrace(model, args, axes_by_input, dim, extra, trace_fn):
    flat_index = 0

    def grow(v):
        nonlocal flat_index
        if isinstance(v, _tl.Tensor):
            i = flat_index
            flat_index += 1
            for axis, name in axes_by_input.get(i, {}).items():
                if name == dim:
                    if v.shape[axis] == 0:
                        raise OnnxExporterError(f"dynamic axis {axis} of input {i} has size 0 in the example")
                    v = _grown(v, axis, extra)
            return v
        return type(v)(grow(x) for x in v)
    new_args = tuple(grow(a) for a in args)
    return trace_fn(model, new_args)


def symbolic_constants(model, args, graph, axes_by_input, trace_fn):
    """{base graph value unique(): SymInt or list with SymInts} for the constants that follow a dynamic dim."""
    result = {}
    dims = sorted({name for axes in axes_by_input.values() for name in axes.values()})
    base_nodes = list(graph.nodes())
    base_sizes = {dim: next(args_flat_size(args, i, axis) for i, axes in axes_by_input.items()
                            for axis, name in axes.items() if name == dim) for dim in dims}
    for dim in dims:
        size = base_sizes[dim]
        g1 = _retrace(model, args, axes_by_input, dim, 1, trace_fn)
        g2 = _retrace(model, args, axes_by_input, dim, 2, trace_fn)
        n1, n2 = list(g1.nodes()), list(g2.nodes())
        if not (len(base_nodes) == len(n1) == len(n2)) or any(
                a.kind() != b.kind() or a.kind() != c.kind() for a, b, c in zip(base_nodes, n1, n2)):
            raise OnnxExporterError(f"the traced graph changes with the size of dynamic axis '{dim}' (control flow "
                                    "that depends on it); it cannot be exported with that axis dynamic")
        for a, b, c in zip(base_nodes, n1, n2):
            if a.kind() != "prim::Constant":
                continue
            v0, v1, v2 = a.output().toIValue(), b.output().toIValue(), c.output().toIValue()
            if _same(v0, v1) and _same(v0, v2):
                continue
            key = a.output().unique()
            sym = _fit(result.get(key, v0), v0, v1, v2, size, dim, base_sizes)
            if sym is None:
                raise OnnxExporterError(
                    f"the constant {a} changes with dynamic axis '{dim}' in a way torchlite.onnx cannot express "
                    f"(values {v0!r}, {v1!r}, {v2!r} for sizes {size}, {size + 1}, {size + 2})")
            result[key] = sym
    return result


def args_flat_size(args, index, axis):
    flat = []

    def walk(v):
        if isinstance(v, _tl.Tensor):
            flat.append(v)
        else:
            for x in v:
                walk(x)
    for a in args:
        walk(a)
    return flat[index].shape[axis]


def _same(a, b):
    if isinstance(a, _tl.Tensor) or isinstance(b, _tl.Tensor):
        return (isinstance(a, _tl.Tensor) and isinstance(b, _tl.Tensor) and a.shape == b.shape
                and a.dtype == b.dtype and bool(_tl.equal(a, b)))
    return type(a) is type(b) and a == b


def _fit(current, v0, v1, v2, size, dim, base_sizes):
    """The SymInt (or list of ints and SymInts) giving v0, v1, v2 at size, size+1, size+2 of `dim`;
    `current` is what earlier dims found for this constant (v0 itself, or a SymInt). None: not expressible."""
    if isinstance(v0, bool) or isinstance(v0, _tl.Tensor) or isinstance(v0, float):
        return None
    if isinstance(v0, int) and isinstance(v1, int) and isinstance(v2, int):
        if v0 == v1 == v2:
            return current
        a = v1 - v0
        b = v0 - a * size
        if v2 != a * (size + 2) + b:
            return None
        if not isinstance(current, SymInt):
            return SymInt((dim,), a, b)
        # Also linear in an earlier dim: a product coef * prev * dim, when neither has an offset.
        prev = 1
        for d in current.dims:
            prev *= base_sizes[d]
        coef = a // prev  # v = coef * prev * dim: its slope in dim is coef * prev, in the earlier dims coef * dim
        if current.b != 0 or b != 0 or a % prev or current.coef != coef * size or coef * prev * size != v0:
            return None
        return SymInt(current.dims + (dim,), coef, 0)
    if isinstance(v0, list) and isinstance(v1, list) and isinstance(v2, list) and len(v0) == len(v1) == len(v2):
        cur = current if isinstance(current, list) else v0
        out = [_fit(c, x, y, z, size, dim, base_sizes) for c, x, y, z in zip(cur, v0, v1, v2)]
        return None if any(o is None for o in out) else out
    return None


def resolve(ctx, value):
    """A SymInt (or a list holding some) as Dims: int64 [1] tensors computed from the input shapes."""
    if isinstance(value, list):
        return [resolve(ctx, v) for v in value]
    if not isinstance(value, SymInt):
        return value
    key = (value.dims, value.coef, value.b)
    if key not in ctx.dim_cache:
        name = None
        for dim in value.dims:
            source, axis = ctx.dim_sources[dim]
            size = ctx.add1("Shape", [source], start=axis, end=axis + 1)
            name = size if name is None else ctx.add1("Mul", [name, size])
        if value.coef != 1:
            name = ctx.add1("Mul", [name, ctx.ints([value.coef])])
        if value.b != 0:
            name = ctx.add1("Add", [name, ctx.ints([value.b])])
        ctx.dim_cache[key] = Dim(name)
    return ctx.dim_cache[key]
