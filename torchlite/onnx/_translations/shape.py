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
    for name in outs:  # the pieces are a Tensor[]: no IR value carries their dtype
        ctx.tensor_info[name] = (call.dtype("self"), None)
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
    squeezed = [ctx.add1("Squeeze", [p, axes]) for p in pieces]
    for name in squeezed:
        ctx.tensor_info[name] = (call.dtype("self"), None)
    return [squeezed]


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


@translation("index_select")
def index_select(ctx, call):
    index = ctx.cast(call.tensor("index"), "int64", call.dtype("index"))
    return [ctx.add1("Gather", [call.tensor("self"), index], axis=_norm(call.value("dim"), call.rank("self")))]


@translation("gather")
def gather(ctx, call):
    index = ctx.cast(call.tensor("index"), "int64", call.dtype("index"))
    return [ctx.add1("GatherElements", [call.tensor("self"), index],
                     axis=_norm(call.value("dim"), call.rank("self")))]


@translation("index")
def index(ctx, call):
    """index.Tensor (x[idx], x[:, idx]) with one integer index tensor: Gather on its dim."""
    indices = call.value("indices")
    present = [(i, v) for i, v in enumerate(indices) if v is not None]
    if len(present) != 1:
        raise call.unsupported("indexing with several index tensors")
    axis, value = present[0]
    name, dtype = ctx.as_name(value), ctx.dtype_of(value)
    if dtype == "bool":
        raise call.unsupported("a boolean mask index (its result's shape depends on the data)")
    return [ctx.add1("Gather", [call.tensor("self"), ctx.cast(name, "int64", dtype)], axis=axis)]


@translation("flip")
def flip(ctx, call):
    rank = call.rank("self")
    dims = [_norm(d, rank) for d in call.value("dims")]
    n = len(dims)
    return [ctx.add1("Slice", [call.tensor("self"), ctx.ints([-1] * n), ctx.ints([-INT64_MAX - 1] * n),
                               ctx.ints(dims), ctx.ints([-1] * n)])]


_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


@translation("pad")
def pad(ctx, call):
    """constant_pad_nd / pad: PyTorch's pad list runs from the last dim (begin, end) backwards; ONNX's Pad takes
    every dim's begins then every dim's ends."""
    rank = call.rank("self")
    flat = list(call.value("pad"))
    pairs = [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]
    begins, ends = [0] * rank, [0] * rank
    for k, (b, e) in enumerate(pairs):
        begins[rank - 1 - k], ends[rank - 1 - k] = b, e
    mode = call.value("mode") if call.has("mode") else "constant"
    if mode not in _PAD_MODES or (mode == "circular" and ctx.opset < 19):
        raise call.unsupported(f"mode={mode!r}")
    inputs = [call.tensor("self"), ctx.ints(begins + ends)]
    if mode == "constant":
        value = call.number("value") if call.has("value") and call.value("value") is not None else 0
        inputs.append(ctx.scalar(value, call.out_dtype()))
    return [ctx.add1("Pad", inputs, mode=_PAD_MODES[mode])]


@translation("pixel_shuffle")
def pixel_shuffle(ctx, call):
    return [ctx.add1("DepthToSpace", [call.tensor("self")], blocksize=call.value("upscale_factor"), mode="CRD")]


@translation("glu")
def glu(ctx, call):
    dim = _norm(call.value("dim"), call.rank("self"))
    half = call.sizes("self")[dim] // 2
    a, b = ctx.add("Split", [call.tensor("self"), ctx.ints([half, half])], 2, axis=dim)
    return [ctx.add1("Mul", [a, ctx.add1("Sigmoid", [b])])]


@translation("einsum")
def einsum(ctx, call):
    return [ctx.add1("Einsum", call.tensors("tensors"), equation=call.value("equation").replace(" ", ""))]


@translation("upsample")
def upsample(ctx, call):
    """upsample_nearest*/ _upsample_nearest_exact* / upsample_linear1d / bilinear2d / bicubic2d / trilinear3d
    (.vec): Resize, to output_size (from the input's Shape, so the batch stays dynamic) or by scale factors."""
    name = call.overload.split(".")[0]
    if "nearest_exact" in name:
        attrs = dict(mode="nearest", coordinate_transformation_mode="half_pixel", nearest_mode="round_prefer_ceil")
    elif "nearest" in name:
        attrs = dict(mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    else:
        align = call.value("align_corners")
        attrs = dict(mode="cubic" if "bicubic" in name else "linear",
                     coordinate_transformation_mode="align_corners" if align else "pytorch_half_pixel")
        if "bicubic" in name:
            attrs["cubic_coeff_a"] = -0.75
    src = "input" if call.has("input") else "self"
    x = call.tensor(src)
    sizes = call.value("output_size")
    scales = call.value("scale_factors") if call.has("scale_factors") else None
    given = [call.value(n) for n in ("scales", "scales_d", "scales_h", "scales_w") if call.has(n)]
    if any(g is not None for g in given):
        # A size with its scale: PyTorch maps coordinates by the scale, Resize by the sizes' ratio.
        spatial = call.sizes(src)[2:]
        if any(g is not None and g * n != o for g, n, o in zip(given, spatial, sizes)):
            raise call.unsupported("a scale factor that is not the ratio of output to input size")
    if sizes is not None:
        shape = ctx.add1("Concat", [ctx.add1("Shape", [x], start=0, end=2), ctx.ints(sizes)], axis=0)
        return [ctx.add1("Resize", [x, "", "", shape], **attrs)]
    return [ctx.add1("Resize", [x, "", ctx.constant(np.array([1.0, 1.0] + list(scales), dtype=np.float32))],
                     **attrs)]
