"""Elementwise ops and reductions whose ONNX form is not a single operator over the op's inputs."""
from __future__ import annotations

import math

from torchlite.onnx._translations import translation


def _binary(ctx, call, op):
    dtype = call.out_dtype()
    a, b = call.operand("self", dtype), call.operand("other", dtype)
    if call.has("alpha"):
        alpha = call.number("alpha")
        if alpha != 1:
            b = ctx.add1("Mul", [b, ctx.scalar(alpha, dtype)])
    return [ctx.add1(op, [a, b])]


@translation("add")
def add(ctx, call):
    """add.Tensor / add.Scalar: self + alpha * other."""
    return _binary(ctx, call, "Add")


@translation("sub")
def sub(ctx, call):
    """sub.Tensor / sub.Scalar: self - alpha * other."""
    return _binary(ctx, call, "Sub")


@translation("ne")
def ne(ctx, call):
    dtype = call.common_dtype(["self", "other"])
    return [ctx.add1("Not", [ctx.add1("Equal", [call.operand("self", dtype), call.operand("other", dtype)])])]


@translation("where")
def where(ctx, call):
    dtype = call.out_dtype()
    cond = ctx.cast(call.tensor("condition"), "bool", call.dtype("condition"))
    return [ctx.add1("Where", [cond, call.operand("self", dtype), call.operand("other", dtype)])]


@translation("masked_fill")
def masked_fill(ctx, call):
    dtype = call.out_dtype()
    mask = ctx.cast(call.tensor("mask"), "bool", call.dtype("mask"))
    return [ctx.add1("Where", [mask, call.operand("value", dtype), call.tensor("self")])]


@translation("rsqrt")
def rsqrt(ctx, call):
    return [ctx.add1("Reciprocal", [ctx.add1("Sqrt", [call.operand("self", call.out_dtype())])])]


@translation("silu")
def silu(ctx, call):
    x = call.tensor("self")
    return [ctx.add1("Mul", [x, ctx.add1("Sigmoid", [x])])]


@translation("mish")
def mish(ctx, call):
    x = call.tensor("self")
    return [ctx.add1("Mul", [x, ctx.add1("Tanh", [ctx.add1("Softplus", [x])])])]


@translation("log_sigmoid")
def log_sigmoid(ctx, call):
    x = call.tensor("self")
    return [ctx.add1("Neg", [ctx.add1("Softplus", [ctx.add1("Neg", [x])])])]


@translation("gelu")
def gelu(ctx, call):
    """Gelu from opset 20; before it, its definition: x/2 (1 + erf(x/sqrt 2)), or the tanh form."""
    x, dtype, approximate = call.tensor("self"), call.out_dtype(), call.value("approximate")
    if approximate not in ("none", "tanh"):
        raise call.unsupported(f"approximate={approximate!r}")
    if ctx.opset >= 20:
        return [ctx.add1("Gelu", [x], approximate=approximate)]
    if approximate == "none":
        inner = ctx.add1("Erf", [ctx.add1("Div", [x, ctx.scalar(math.sqrt(2.0), dtype)])])
    else:
        cube = ctx.add1("Mul", [ctx.add1("Mul", [x, x]), x])
        poly = ctx.add1("Add", [x, ctx.add1("Mul", [cube, ctx.scalar(0.044715, dtype)])])
        inner = ctx.add1("Tanh", [ctx.add1("Mul", [poly, ctx.scalar(math.sqrt(2.0 / math.pi), dtype)])])
    half_x = ctx.add1("Mul", [x, ctx.scalar(0.5, dtype)])
    return [ctx.add1("Mul", [half_x, ctx.add1("Add", [inner, ctx.scalar(1.0, dtype)])])]


@translation("softplus")
def softplus(ctx, call):
    """log(1 + exp(beta x)) / beta, x itself where beta x > threshold (as PyTorch)."""
    x, dtype = call.tensor("self"), call.out_dtype()
    beta, threshold = call.number("beta"), call.number("threshold")
    bx = ctx.add1("Mul", [x, ctx.scalar(beta, dtype)]) if beta != 1 else x
    soft = ctx.add1("Softplus", [bx])
    if beta != 1:
        soft = ctx.add1("Div", [soft, ctx.scalar(beta, dtype)])
    return [ctx.add1("Where", [ctx.add1("Greater", [bx, ctx.scalar(threshold, dtype)]), x, soft])]


@translation("hardsigmoid")
def hardsigmoid(ctx, call):
    return [ctx.add1("HardSigmoid", [call.tensor("self")], alpha=1.0 / 6, beta=0.5)]


@translation("hardtanh")
def hardtanh(ctx, call):
    dtype = call.out_dtype()
    return [ctx.add1("Clip", [call.tensor("self"), ctx.scalar(call.number("min_val"), dtype),
                              ctx.scalar(call.number("max_val"), dtype)])]


@translation("clamp")
def clamp(ctx, call):
    """clamp / clamp_min / clamp_max, Scalar or Tensor bounds: Max and Min (Clip takes only scalars)."""
    dtype = call.out_dtype()
    x = call.operand("self", dtype)
    for name, op in (("min", "Max"), ("max", "Min")):
        if call.has(name) and not call.is_none(name):
            x = ctx.add1(op, [x, call.operand(name, dtype)])
    return [x]


@translation("to")
def to(ctx, call):
    """to.dtype / to.device / to.other / _to_copy: a Cast to the result's dtype (devices do not exist in ONNX)."""
    x = call.tensor("self")
    return [ctx.cast(x, call.out_dtype(), call.dtype("self"))]


def _dims(call, name, rank):
    dims = call.value(name) if call.has(name) else None
    if dims is None:
        return None
    dims = [dims] if isinstance(dims, int) else list(dims)
    return [d % rank if rank else 0 for d in dims] if dims else None


def _reduce(ctx, call, op, dims, keepdim, axes_as_input_from):
    # The result's dtype: the `dtype` argument, or PyTorch's promotion (a sum of bools or ints is int64).
    x = ctx.cast(call.tensor("self"), call.out_dtype(), call.dtype("self"))
    if dims is None:
        return [ctx.add1(op, [x], keepdims=int(keepdim))]
    if ctx.opset >= axes_as_input_from:
        return [ctx.add1(op, [x, ctx.ints(dims)], keepdims=int(keepdim))]
    return [ctx.add1(op, [x], axes=dims, keepdims=int(keepdim))]


@translation("sum")
def reduce_sum(ctx, call):
    """sum / sum.dim_IntList (dim None or [] reduces every dim)."""
    return _reduce(ctx, call, "ReduceSum", _dims(call, "dim", call.rank("self")),
                   call.has("keepdim") and call.value("keepdim"), 13)


@translation("mean")
def reduce_mean(ctx, call):
    return _reduce(ctx, call, "ReduceMean", _dims(call, "dim", call.rank("self")),
                   call.has("keepdim") and call.value("keepdim"), 18)


@translation("amax")
def amax(ctx, call):
    return _reduce(ctx, call, "ReduceMax", _dims(call, "dim", call.rank("self")), call.value("keepdim"), 18)


def _softmax(ctx, call, op):
    x = call.tensor("self")
    if call.value("dtype") is not None:
        x = ctx.cast(x, call.out_dtype(), call.dtype("self"))
    return [ctx.add1(op, [x], axis=call.value("dim"))]


@translation("softmax")
def softmax(ctx, call):
    """softmax.int(self, dim, dtype): Softmax over one axis (opset 13 on)."""
    return _softmax(ctx, call, "Softmax")


@translation("log_softmax")
def log_softmax(ctx, call):
    return _softmax(ctx, call, "LogSoftmax")


@translation("relu6")
def relu6(ctx, call):
    dtype = call.out_dtype()
    return [ctx.add1("Clip", [call.tensor("self"), ctx.scalar(0, dtype), ctx.scalar(6, dtype)])]


@translation("bitwise")
def bitwise(ctx, call):
    """bitwise_and/or/xor: And/Or/Xor on bools, BitwiseAnd/Or/Xor (opset 18) on integers."""
    which = call.overload.split(".")[0].split("_")[1]  # bitwise_and -> and
    dtype = call.out_dtype()
    a, b = call.operand("self", dtype), call.operand("other", dtype)
    if dtype == "bool":
        return [ctx.add1(which.capitalize(), [a, b])]
    if ctx.opset < 18:
        raise call.unsupported("integer bitwise ops need opset 18")
    return [ctx.add1("Bitwise" + which.capitalize(), [a, b])]


@translation("unary_composite")
def unary_composite(ctx, call):
    """square, log1p, expm1, log2, exp2, erfc: written with ONNX's elementwise ops."""
    dtype = call.out_dtype()
    x = call.operand("self", dtype)
    one = ctx.scalar(1, dtype)
    name = call.overload.split(".")[0].rstrip("_").replace("special_", "")
    if name == "square":
        return [ctx.add1("Mul", [x, x])]
    if name == "log1p":
        return [ctx.add1("Log", [ctx.add1("Add", [x, one])])]
    if name == "expm1":
        return [ctx.add1("Sub", [ctx.add1("Exp", [x]), one])]
    if name == "log2":
        return [ctx.add1("Div", [ctx.add1("Log", [x]), ctx.scalar(math.log(2.0), dtype)])]
    if name == "exp2":
        return [ctx.add1("Pow", [ctx.scalar(2, dtype), x])]
    if name == "erfc":
        return [ctx.add1("Sub", [one, ctx.add1("Erf", [x])])]
    raise call.unsupported("no composite form")


@translation("remainder")
def remainder(ctx, call):
    """remainder (the divisor's sign, as Python's %): Mod on integers; a - floor(a / b) * b on floats.
    fmod (the dividend's sign): Mod with fmod=1."""
    dtype = call.out_dtype()
    a, b = call.operand("self", dtype), call.operand("other", dtype)
    if call.overload.startswith("fmod"):
        return [ctx.add1("Mod", [a, b], fmod=1)]
    if dtype not in ("float16", "bfloat16", "float32", "float64"):
        return [ctx.add1("Mod", [a, b], fmod=0)]
    return [ctx.add1("Sub", [a, ctx.add1("Mul", [ctx.add1("Floor", [ctx.add1("Div", [a, b])]), b])])]
