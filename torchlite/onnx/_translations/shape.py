"""Views, shape ops, joins and splits, factories: sizes and dims are the trace's constants (a dynamic
axis's size is a Dim, computed in the graph from an input's Shape)."""
from __future__ import annotations

import numpy as np

from torchlite.onnx._context import Dim
from torchlite.onnx._translations import translation

INT64_MAX = 2**63 - 1


def _norm(dim, rank):
    return dim % rank if rank else 0


def _first_int_list(call):
    """The int[] argument of a view-like op (`size` of view, `shape` of reshape)."""
    for name in ("size", "shape"):
        if call.has(name):
            return list(call.value(name))
    raise call.unsupported("no size argument")


@translation("reshape")
def reshape(ctx, call):
    """view / reshape / _unsafe_view: Reshape to the traced sizes (0 is a size here, not 'copy')."""
    sizes = _first_int_list(call)
    allowzero = 1 if any(isinstance(s, int) and s == 0 for s in sizes) else None
    return [ctx.add1("Reshape", [call.tensor("self"), ctx.ints(sizes)], allowzero=allowzero)]


def _shape_slice(ctx, x, start, end):
    """Shape(x)[start:end] as an int64 1-D tensor."""
    return ctx.add1("Shape", [x], start=start, end=end)


@translation("flatten")
def flatten(ctx, call):
    """flatten.using_ints: Shape(x)[:start] ++ [-1] ++ Shape(x)[end+1:], so batch dims stay dynamic."""
    x, rank = call.tensor("self"), call.rank("self")
    if rank == 0:
        return [ctx.add1("Reshape", [x, ctx.ints([1])])]
    start, end = _norm(call.value("start_dim"), rank), _norm(call.value("end_dim"), rank)
    if start > end:
        raise call.unsupported("start_dim after end_dim")
    pieces = []
    if start > 0:
        pieces.append(_shape_slice(ctx, x, 0, start))
    pieces.append(ctx.ints([-1]))
    if end + 1 < rank:
        pieces.append(_shape_slice(ctx, x, end + 1, rank))
    shape = pieces[0] if len(pieces) == 1 else ctx.add1("Concat", pieces, axis=0)
    return [ctx.add1("Reshape", [x, shape])]


@translation("unflatten")
def unflatten(ctx, call):
    x, rank = call.tensor("self"), call.rank("self")
    dim = _norm(call.value("dim"), rank)
    pieces = []
    if dim > 0:
        pieces.append(_shape_slice(ctx, x, 0, dim))
    pieces.append(ctx.ints(call.value("sizes")))
    if dim + 1 < rank:
        pieces.append(_shape_slice(ctx, x, dim + 1, rank))
    shape = pieces[0] if len(pieces) == 1 else ctx.add1("Concat", pieces, axis=0)
    return [ctx.add1("Reshape", [x, shape])]


@translation("transpose")
def transpose(ctx, call):
    rank = call.rank("self")
    perm = list(range(rank))
    if rank:
        a, b = _norm(call.value("dim0"), rank), _norm(call.value("dim1"), rank)
        perm[a], perm[b] = perm[b], perm[a]
    return [ctx.add1("Transpose", [call.tensor("self")], perm=perm)]


@translation("t")
def t(ctx, call):
    rank = call.rank("self")
    if rank < 2:
        return [ctx.add1("Identity", [call.tensor("self")])]
    return [ctx.add1("Transpose", [call.tensor("self")], perm=[1, 0])]


@translation("permute")
def permute(ctx, call):
    rank = call.rank("self")
    return [ctx.add1("Transpose", [call.tensor("self")], perm=[_norm(d, rank) for d in call.value("dims")])]


@translation("unsqueeze")
def unsqueeze(ctx, call):
    dim = _norm(call.value("dim"), call.rank("self") + 1)
    return [ctx.add1("Unsqueeze", [call.tensor("self"), ctx.ints([dim])])]


@translation("squeeze")
def squeeze(ctx, call):
    """squeeze / squeeze.dim / squeeze.dims: the listed dims (all) whose traced size is 1."""
    sizes = call.sizes("self")
    rank = len(sizes)
    if call.has("dim"):
        dims = call.value("dim")
        dims = [dims] if isinstance(dims, int) else list(dims)
        dims = [_norm(d, rank) for d in dims]
    else:
        dims = list(range(rank))
    dims = [d for d in dims if sizes[d] == 1]
    if not dims:
        return [ctx.add1("Identity", [call.tensor("self")])]
    return [ctx.add1("Squeeze", [call.tensor("self"), ctx.ints(dims)])]


@translation("expand")
def expand(ctx, call):
    """Expand broadcasts both ways: a -1 (keep this size) becomes 1."""
    sizes = [1 if isinstance(s, int) and s == -1 else s for s in call.value("size")]
    return [ctx.add1("Expand", [call.tensor("self"), ctx.ints(sizes)])]


@translation("repeat")
def repeat(ctx, call):
    x, rank = call.tensor("self"), call.rank("self")
    repeats = list(call.value("repeats"))
    if len(repeats) > rank:
        x = ctx.add1("Reshape", [x, ctx.ints([1] * (len(repeats) - rank) + call.sizes("self"))])
    return [ctx.add1("Tile", [x, ctx.ints(repeats)])]


@translation("select")
def select(ctx, call):
    axis = _norm(call.value("dim"), call.rank("self"))
    index = call.value("index")
    return [ctx.add1("Gather", [call.tensor("self"), ctx.constant(np.array(index, dtype=np.int64))], axis=axis)]


def _slice(ctx, call, x, dim, start, end, step):
    return ctx.add1("Slice", [x, ctx.ints([start]), ctx.ints([end]), ctx.ints([dim]), ctx.ints([step])])


@translation("slice")
def slice_(ctx, call):
    dim = _norm(call.value("dim"), call.rank("self"))
    start, end = call.value("start"), call.value("end")
    start = 0 if start is None else start
    end = INT64_MAX if end is None else end
    return [_slice(ctx, call, call.tensor("self"), dim, start, end, call.value("step"))]


@translation("narrow")
def narrow(ctx, call):
    dim = _norm(call.value("dim"), call.rank("self"))
    start, length = call.value("start"), call.value("length")
    if isinstance(start, Dim) or isinstance(length, Dim):
        raise call.unsupported("a narrow window that depends on a dynamic axis")
    if start < 0:
        start += call.sizes("self")[dim]
    return [_slice(ctx, call, call.tensor("self"), dim, start, start + length, 1)]


@translation("cat")
def cat(ctx, call):
    dtype = call.out_dtype()
    tensors = call.tensors("tensors")
    names = [ctx.cast(t, dtype, ctx.tensor_info.get(t, (None,))[0]) for t in tensors]
    rank = len(call.out_sizes())
    return [ctx.add1("Concat", names, axis=_norm(call.value("dim"), rank))]


@translation("stack")
def stack(ctx, call):
    dtype = call.out_dtype()
    rank = len(call.out_sizes())
    dim = _norm(call.value("dim"), rank)
    axes = ctx.ints([dim])
    names = [ctx.add1("Unsqueeze", [ctx.cast(t, dtype), axes]) for t in call.tensors("tensors")]
    return [ctx.add1("Concat", names, axis=dim)]


def _split(ctx, call, sizes, dim):
    outs = ctx.add("Split", [call.tensor("self"), ctx.ints(sizes)], len(sizes), axis=dim)
    return outs


def _dim_size(call, dim):
    size = call.sizes("self")[dim]
    return size


@translation("split")
def split(ctx, call):
    """split.Tensor (a chunk size) / split.sizes / split_with_sizes: a Tensor[] of the pieces."""
    rank = call.rank("self")
    dim = _norm(call.value("dim"), rank)
    size = _dim_size(call, dim)
    arg = call.value("split_size") if call.has("split_size") else call.value("split_sizes")
    if isinstance(arg, int):
        sizes = [arg] * (size // arg) + ([size % arg] if size % arg else []) if arg else [0]
    else:
        sizes = list(arg)
    return [_split(ctx, call, sizes, dim)]


@translation("chunk")
def chunk(ctx, call):
    rank = call.rank("self")
    dim = _norm(call.value("dim"), rank)
    size = _dim_size(call, dim)
    each = -(-size // call.value("chunks"))
    sizes = [each] * (size // each) + ([size % each] if size % each else []) if each else [0]
    return [_split(ctx, call, sizes, dim)]


@translation("unbind")
def unbind(ctx, call):
    rank = call.rank("self")
    dim = _norm(call.value("dim"), rank)
    pieces = _split(ctx, call, [1] * _dim_size(call, dim), dim)
    axes = ctx.ints([dim])
    return [[ctx.add1("Squeeze", [p, axes]) for p in pieces]]


def _fill(ctx, call, shape, value):
    dtype = call.out_dtype()
    from torchlite.onnx._context import _DTYPES, dtype_name
    tensor = ctx.numpy_helper.from_array(np.array([value], dtype=_DTYPES[dtype_name(dtype)][1]), "value")
    return [ctx.add1("ConstantOfShape", [shape], value=tensor)]


@translation("full")
def full(ctx, call):
    """zeros / ones / full (int[] size, ...): ConstantOfShape, so a size may be a dynamic axis."""
    value = call.number("fill_value") if call.has("fill_value") else (1 if call.overload.startswith("ones") else 0)
    return _fill(ctx, call, ctx.ints(call.value("size")), value)


@translation("full_like")
def full_like(ctx, call):
    value = call.number("fill_value") if call.has("fill_value") else (1 if call.overload.startswith("ones") else 0)
    return _fill(ctx, call, ctx.add1("Shape", [call.tensor("self")]), value)


@translation("trilu")
def trilu(ctx, call):
    upper = int(call.overload.startswith("triu"))
    k = ctx.constant(np.array(call.value("diagonal"), dtype=np.int64))
    return [ctx.add1("Trilu", [call.tensor("self"), k], upper=upper)]


@translation("embedding")
def embedding(ctx, call):
    """Gather of the weight's rows (padding_idx only matters to the gradient)."""
    indices = ctx.cast(call.tensor("indices"), "int64", call.dtype("indices"))
    return [ctx.add1("Gather", [call.tensor("weight"), indices], axis=0)]
