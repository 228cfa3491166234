"""Reductions with an index result, scans, sorting, norms."""
from __future__ import annotations

import numpy as np

from torchlite.onnx._translations import translation


def _norm(dim, rank):
    return dim % rank if rank else 0


def _reduce(ctx, op, x, axes, keepdim, axes_as_input_from=18):
    if axes is None:
        return ctx.add1(op, [x], keepdims=int(keepdim))
    if ctx.opset >= axes_as_input_from:
        return ctx.add1(op, [x, ctx.ints(axes)], keepdims=int(keepdim))
    return ctx.add1(op, [x], axes=axes, keepdims=int(keepdim))


@translation("arg_reduce")
def arg_reduce(ctx, call):
    """argmax / argmin: over one dim, or over the flattened tensor (dim None)."""
    op = "ArgMax" if call.overload.startswith("argmax") else "ArgMin"
    x, dim, keepdim = call.tensor("self"), call.value("dim"), call.value("keepdim")
    if dim is None:
        if keepdim:
            raise call.unsupported("keepdim=True without dim")
        return [ctx.add1(op, [ctx.add1("Reshape", [x, ctx.ints([-1])])], axis=0, keepdims=0)]
    return [ctx.add1(op, [x], axis=_norm(dim, call.rank("self")), keepdims=int(keepdim))]


@translation("max_min_dim")
def max_min_dim(ctx, call):
    """max.dim / min.dim: (values, indices)."""
    is_max = call.overload.startswith("max")
    x, keepdim = call.tensor("self"), call.value("keepdim")
    dim = _norm(call.value("dim"), call.rank("self"))
    values = _reduce(ctx, "ReduceMax" if is_max else "ReduceMin", x, [dim], keepdim)
    indices = ctx.add1("ArgMax" if is_max else "ArgMin", [x], axis=dim, keepdims=int(keepdim))
    return [values, indices]


@translation("prod")
def prod(ctx, call):
    x = ctx.cast(call.tensor("self"), call.out_dtype(), call.dtype("self"))
    if not call.has("dim"):
        return [_reduce(ctx, "ReduceProd", x, None, False)]
    return [_reduce(ctx, "ReduceProd", x, [_norm(call.value("dim"), call.rank("self"))], call.value("keepdim"))]


@translation("logsumexp")
def logsumexp(ctx, call):
    dims = call.value("dim")
    dims = [dims] if isinstance(dims, int) else list(dims)
    rank = call.rank("self")
    axes = [_norm(d, rank) for d in dims] or None
    return [_reduce(ctx, "ReduceLogSumExp", call.tensor("self"), axes, call.value("keepdim"))]


@translation("vector_norm")
def vector_norm(ctx, call):
    """linalg_vector_norm / norm.ScalarOpt_dim: ord 1 and 2 (ReduceL1/L2), inf (max |x|), other p by definition."""
    ord_name = "ord" if call.has("ord") else "p"
    p = 2 if call.value(ord_name) is None else call.number(ord_name)
    dims = call.value("dim")
    rank = call.rank("self")
    if dims is None or dims == []:
        axes = None
    else:
        axes = [_norm(d, rank) for d in ([dims] if isinstance(dims, int) else dims)]
    x = call.tensor("self")
    if call.has("dtype") and call.value("dtype") is not None:
        x = ctx.cast(x, call.out_dtype(), call.dtype("self"))
    keepdim = call.value("keepdim") if call.has("keepdim") else False
    if p == 2:
        return [_reduce(ctx, "ReduceL2", x, axes, keepdim)]
    if p == 1:
        return [_reduce(ctx, "ReduceL1", x, axes, keepdim)]
    if p == float("inf"):
        return [_reduce(ctx, "ReduceMax", ctx.add1("Abs", [x]), axes, keepdim)]
    if p == 0 or p == float("-inf"):
        raise call.unsupported(f"ord={p}")
    dtype = call.out_dtype()
    powered = ctx.add1("Pow", [ctx.add1("Abs", [x]), ctx.scalar(p, dtype)])
    total = _reduce(ctx, "ReduceSum", powered, axes, keepdim, 13)
    return [ctx.add1("Pow", [total, ctx.scalar(1.0 / p, dtype)])]


@translation("cumsum")
def cumsum(ctx, call):
    x = ctx.cast(call.tensor("self"), call.out_dtype(), call.dtype("self"))
    axis = ctx.constant(np.array(_norm(call.value("dim"), call.rank("self")), dtype=np.int64))
    return [ctx.add1("CumSum", [x, axis])]


@translation("topk")
def topk(ctx, call):
    dim = _norm(call.value("dim"), call.rank("self"))
    if not call.value("sorted"):
        pass  # ONNX may return any order when sorted=0; a sorted result is a valid unsorted one
    return ctx.add("TopK", [call.tensor("self"), ctx.ints([call.value("k")])], 2, axis=dim,
                   largest=int(call.value("largest")), sorted=1)


@translation("sort")
def sort(ctx, call):
    """sort: TopK of the whole (traced) dim; ties may come in another order than PyTorch's stable sort."""
    sizes = call.sizes("self")
    if not sizes:
        raise call.unsupported("a 0-d input")
    dim = _norm(call.value("dim"), len(sizes))
    k = ctx.add1("Shape", [call.tensor("self")], start=dim, end=dim + 1)
    return ctx.add("TopK", [call.tensor("self"), k], 2, axis=dim, largest=int(call.value("descending")), sorted=1)
