"""Layers: linear/addmm, convolutions, normalization, pooling."""
from __future__ import annotations

import re

import numpy as np

from torchlite.onnx._translations import translation


@translation("linear")
def linear(ctx, call):
    """x @ W^T + b: Gemm for a 2-D input, else MatMul with the transposed weight (and Add)."""
    x, w, b = call.tensor("input"), call.tensor("weight"), call.tensor("bias")
    if call.rank("weight") != 2:
        raise call.unsupported("a weight that is not 2-D")
    if call.rank("input") == 2:
        return [ctx.add1("Gemm", [x, w] + ([b] if b else []), transB=1)]
    y = ctx.add1("MatMul", [x, ctx.add1("Transpose", [w], perm=[1, 0])])
    return [ctx.add1("Add", [y, b]) if b else y]


@translation("addmm")
def addmm(ctx, call):
    """beta * self + alpha * mat1 @ mat2: Gemm (self broadcasts to the result as Gemm's C)."""
    return [ctx.add1("Gemm", [call.tensor("mat1"), call.tensor("mat2"), call.tensor("self")],
                     alpha=float(call.number("alpha")), beta=float(call.number("beta")))]


@translation("baddbmm")
def baddbmm(ctx, call):
    dtype = call.out_dtype()
    prod = ctx.add1("MatMul", [call.tensor("batch1"), call.tensor("batch2")])
    alpha, beta = call.number("alpha"), call.number("beta")
    if alpha != 1:
        prod = ctx.add1("Mul", [prod, ctx.scalar(alpha, dtype)])
    if beta == 0:
        return [prod]
    c = call.tensor("self")
    if beta != 1:
        c = ctx.add1("Mul", [c, ctx.scalar(beta, dtype)])
    return [ctx.add1("Add", [c, prod])]


def _ints(value, n):
    """An int[N] argument as recorded (one int stands for N of them)."""
    if isinstance(value, int):
        return [value] * n
    value = list(value)
    return value * n if len(value) == 1 and n > 1 else value


@translation("conv")
def conv(ctx, call):
    """convolution, conv1d/2d/3d (int or 'valid'/'same' padding), conv_transpose1d/2d/3d: Conv / ConvTranspose."""
    n = call.rank("weight") - 2
    kernel = call.sizes("weight")[2:]
    stride, dilation = _ints(call.value("stride"), n), _ints(call.value("dilation"), n)
    transposed = call.overload.startswith("conv_transpose") or (call.has("transposed") and call.value("transposed"))
    padding = call.value("padding")
    if isinstance(padding, str):
        if padding == "valid":
            pads = [0] * (2 * n)
        elif padding == "same":
            total = [d * (k - 1) for d, k in zip(dilation, kernel)]
            pads = [t // 2 for t in total] + [t - t // 2 for t in total]
        else:
            raise call.unsupported(f"padding={padding!r}")
    else:
        pads = _ints(padding, n) * 2
    x, w, b = call.tensor("input"), call.tensor("weight"), call.tensor("bias")
    unbatched = call.rank("input") == n + 1
    if unbatched:
        x = ctx.add1("Unsqueeze", [x, ctx.ints([0])])
    attrs = dict(kernel_shape=kernel, strides=stride, pads=pads, dilations=dilation, group=call.value("groups"))
    if transposed:
        out_pad = _ints(call.value("output_padding"), n)
        y = ctx.add1("ConvTranspose", [x, w] + ([b] if b else []), output_padding=out_pad, **attrs)
    else:
        y = ctx.add1("Conv", [x, w] + ([b] if b else []), **attrs)
    if unbatched:
        y = ctx.add1("Squeeze", [y, ctx.ints([0])])
    return [y]


def _channels_const(ctx, call, value, dtype):
    c = call.sizes("input")[1]
    return ctx.constant(np.full([c], value, dtype=np.dtype(dtype)))


@translation("batch_norm")
def batch_norm(ctx, call):
    """batch_norm in inference (running statistics): BatchNormalization."""
    if call.value("training"):
        raise call.unsupported("training=True (export the model in eval mode: training=TrainingMode.EVAL)")
    if call.is_none("running_mean") or call.is_none("running_var"):
        raise call.unsupported("no running statistics (track_running_stats=False)")
    dtype = call.dtype("input")
    scale = call.tensor("weight") or _channels_const(ctx, call, 1, dtype)
    bias = call.tensor("bias") or _channels_const(ctx, call, 0, dtype)
    if call.rank("input") < 2:
        raise call.unsupported("an input without a channel dim")
    return [ctx.add1("BatchNormalization", [call.tensor("input"), scale, bias, call.tensor("running_mean"),
                                            call.tensor("running_var")], epsilon=float(call.value("eps")))]


@translation("layer_norm")
def layer_norm(ctx, call):
    """LayerNormalization (opset 17) over the trailing len(normalized_shape) dims."""
    shape = list(call.value("normalized_shape"))
    dtype = call.dtype("input")
    scale = call.tensor("weight") or ctx.constant(np.ones(shape, dtype=np.dtype(dtype)))
    inputs = [call.tensor("input"), scale] + ([call.tensor("bias")] if call.tensor("bias") else [])
    return [ctx.add1("LayerNormalization", inputs, axis=-len(shape), epsilon=float(call.value("eps")))]


def _pool_common(call, n):
    kernel = _ints(call.value("kernel_size"), n)
    stride = _ints(call.value("stride"), n) or kernel
    pads = _ints(call.value("padding"), n) * 2
    return kernel, stride, pads


def _with_batch(ctx, call, n, make):
    """Runs make(x) on a batched input (unbatched inputs get a batch dim of 1 around it)."""
    x = call.tensor("self")
    unbatched = call.rank("self") == n + 1
    if unbatched:
        x = ctx.add1("Unsqueeze", [x, ctx.ints([0])])
    y = make(x)
    return [ctx.add1("Squeeze", [y, ctx.ints([0])]) if unbatched else y]


def _spatial(call):
    """N of an N-d pooling op, from its name (max_pool2d: 2)."""
    return int(re.search(r"(\d)d", call.overload).group(1))


@translation("max_pool")
def max_pool(ctx, call):
    n = _spatial(call)
    kernel, stride, pads = _pool_common(call, n)
    dilation = _ints(call.value("dilation"), n)
    return _with_batch(ctx, call, n, lambda x: ctx.add1(
        "MaxPool", [x], kernel_shape=kernel, strides=stride, pads=pads, dilations=dilation,
        ceil_mode=int(call.value("ceil_mode"))))


@translation("avg_pool")
def avg_pool(ctx, call):
    n = _spatial(call)
    kernel, stride, pads = _pool_common(call, n)
    if call.has("divisor_override") and call.value("divisor_override") is not None:
        raise call.unsupported("divisor_override")
    if call.value("ceil_mode") and any(pads):
        raise call.unsupported("ceil_mode=True with padding (ONNX averages the last window differently)")
    return _with_batch(ctx, call, n, lambda x: ctx.add1(
        "AveragePool", [x], kernel_shape=kernel, strides=stride, pads=pads,
        count_include_pad=int(call.value("count_include_pad")), ceil_mode=int(call.value("ceil_mode"))))


@translation("adaptive_avg_pool")
def adaptive_avg_pool(ctx, call):
    """GlobalAveragePool for an output of 1s; AveragePool when each input size is a multiple of the output's."""
    n = _spatial(call)
    out = _ints(call.value("output_size"), n)
    sizes = call.sizes("self")[-n:]
    if all(o == 1 for o in out):
        return _with_batch(ctx, call, n, lambda x: ctx.add1("GlobalAveragePool", [x]))
    if any(o is None or s % o for s, o in zip(sizes, out)):
        raise call.unsupported(f"output size {out} that does not divide the input size {sizes}")
    kernel = [s // o for s, o in zip(sizes, out)]
    return _with_batch(ctx, call, n, lambda x: ctx.add1("AveragePool", [x], kernel_shape=kernel, strides=kernel))


@translation("group_norm")
def group_norm(ctx, call):
    """InstanceNormalization over (N, G, -1), reshaped back, then the per-channel affine."""
    x, dtype = call.tensor("input"), call.dtype("input")
    groups = call.value("num_groups")
    grouped = ctx.add1("Reshape", [x, ctx.ints([0, groups, -1])])
    ones = ctx.constant(np.ones([groups], dtype=np.dtype(dtype)))
    zeros = ctx.constant(np.zeros([groups], dtype=np.dtype(dtype)))
    y = ctx.add1("InstanceNormalization", [grouped, ones, zeros], epsilon=float(call.value("eps")))
    y = ctx.add1("Reshape", [y, ctx.add1("Shape", [x])])
    rank = call.rank("input")
    per_channel = ctx.ints([-1] + [1] * (rank - 2))
    if call.tensor("weight"):
        y = ctx.add1("Mul", [y, ctx.add1("Reshape", [call.tensor("weight"), per_channel])])
    if call.tensor("bias"):
        y = ctx.add1("Add", [y, ctx.add1("Reshape", [call.tensor("bias"), per_channel])])
    return [y]


@translation("instance_norm")
def instance_norm(ctx, call):
    if not call.value("use_input_stats"):
        raise call.unsupported("use_input_stats=False (running statistics)")
    dtype = call.dtype("input")
    scale = call.tensor("weight") or _channels_const(ctx, call, 1, dtype)
    bias = call.tensor("bias") or _channels_const(ctx, call, 0, dtype)
    return [ctx.add1("InstanceNormalization", [call.tensor("input"), scale, bias], epsilon=float(call.value("eps")))]
