"""The type helpers against PyTorch: result_type, promote_types, can_cast, the default dtype and
what honours it, finfo/iinfo, is_* predicates, Tensor.type() and the legacy tensor types
(FloatTensor, ...), element_size/itemsize/nbytes.

Each case is an expression evaluated with `t` bound to torch and to torchlite; results are
compared after normalising (dtypes and tensors by name and values, exceptions by type)."""
import math

import numpy as np
import pytest
import torch

import torchlite as tl

DTYPE_NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
               "uint16", "uint32", "uint64"]


def normalise(value):
    if isinstance(value, (torch.dtype, tl.dtype)):
        return ("dtype", str(value).split(".")[-1])
    if isinstance(value, (torch.Tensor, tl.Tensor)):
        data = None if value.device.type == "meta" else value.tolist()
        return ("tensor", str(value.dtype).split(".")[-1], tuple(value.shape), value.device.type, data)
    if isinstance(value, (torch.finfo, tl.finfo, torch.iinfo, tl.iinfo)):
        return (type(value).__name__, repr(value), value.bits, value.min, value.max, value.dtype)
    if isinstance(value, (tuple, list)):  # Size and named tuples as plain tuples
        return (list if isinstance(value, list) else tuple)(normalise(v) for v in value)
    return value


def same(a, b):
    """Normalised results equal, floats within 2 ulp-ish (PyTorch's vector math rounds differently)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=2.5e-7)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def evaluate(expr, lib):
    try:
        return normalise(eval(expr, {"t": lib, "math": math, "np": np}))
    except Exception as e:  # noqa: BLE001  (the exception type is part of the comparison)
        return ("raises", type(e).__name__)


def check(expr):
    expected = evaluate(expr, torch)
    got = evaluate(expr, tl)
    assert same(got, expected), f"{expr}: torchlite {got}, torch {expected}"


# ---------------------------------------------------------------- promotion

PAIRS = [(a, b) for a in DTYPE_NAMES for b in DTYPE_NAMES]


@pytest.mark.parametrize("a,b", PAIRS)
def test_promote_types_and_can_cast(a, b):
    check(f"t.promote_types(t.{a}, t.{b})")
    check(f"t.can_cast(t.{a}, t.{b})")


RESULT_TYPE_CASES = [
    "t.result_type(t.tensor([1, 2]), 1.0)",
    "t.result_type(t.tensor([1, 2]), t.tensor([1.0]))",
    "t.result_type(1, 2.0)",
    "t.result_type(1, 2)",
    "t.result_type(True, 2.5)",
    "t.result_type(True, False)",
    "t.result_type(2.5, t.tensor([1], dtype=t.int8))",
    "t.result_type(t.tensor(1, dtype=t.uint8), -1)",
    "t.result_type(t.tensor([1], dtype=t.uint8), t.tensor(1000))",
    "t.result_type(t.tensor([1], dtype=t.int32), t.tensor(1.5, dtype=t.float64))",
    "t.result_type(t.tensor([True]), 5)",
    "t.result_type(t.tensor([True]), t.tensor(5, dtype=t.int16))",
    "t.result_type(t.tensor([1.0], dtype=t.float16), 2.5)",
    "t.result_type(t.tensor(1), t.tensor([1.0], dtype=t.float16))",
    "t.result_type(t.tensor([1.0], dtype=t.bfloat16), t.tensor([1.0], dtype=t.float16))",
    "t.result_type(t.tensor([1], dtype=t.uint16), 1)",
    "t.result_type(t.tensor([1], dtype=t.uint16), 1.0)",
    "t.result_type(t.tensor([1], dtype=t.uint32), True)",
    "t.result_type(t.tensor([1], dtype=t.uint64), t.tensor(1))",
    "t.result_type(t.tensor([1], dtype=t.uint64), t.tensor([1]))",
    "t.result_type(t.tensor([1], dtype=t.uint16), t.tensor([1], dtype=t.uint32))",
    "t.result_type(1, 'a')",
    "t.result_type(t.tensor([1]))",
    "t.promote_types(t.int8, 'a')",
    "t.can_cast(t.int8, 1)",
]


@pytest.mark.parametrize("expr", RESULT_TYPE_CASES)
def test_result_type(expr):
    check(expr)


# ---------------------------------------------------------------- finfo / iinfo

@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_finfo_iinfo(name):
    check(f"t.finfo(t.{name})")
    check(f"t.iinfo(t.{name})")
    for attr in ["bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"]:
        check(f"t.finfo(t.{name}).{attr}")
    for attr in ["bits", "max", "min", "dtype"]:
        check(f"t.iinfo(t.{name}).{attr}")


@pytest.mark.parametrize("expr", [
    "t.finfo()", "t.finfo(type=t.float64)", "t.finfo('float32')", "t.finfo(None)", "t.finfo(3)", "t.iinfo()",
    "t.iinfo(type=t.int16)", "t.iinfo('int8')", "t.iinfo(None)",
    "t.finfo(t.float32) == t.finfo(t.float32)", "t.finfo(t.float32) == t.finfo(t.float64)",
    "t.iinfo(t.int8) == t.iinfo(t.int8)", "type(t.iinfo(t.int64).max).__name__", "type(t.finfo(t.float16).eps).__name__",
])
def test_finfo_iinfo_calls(expr):
    check(expr)


def test_finfo_values_match_numpy():
    for name in ["float16", "float32", "float64"]:
        f, n = tl.finfo(getattr(tl, name)), np.finfo(name)
        assert (f.eps, f.max, f.min, f.tiny, f.bits) == (float(n.eps), float(n.max), float(n.min), float(n.tiny), n.bits)


# ---------------------------------------------------------------- predicates and sizes

@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_dtype_attributes_and_predicates(name):
    for attr in ["is_signed", "is_floating_point", "is_complex", "itemsize"]:
        check(f"t.{name}.{attr}")
    x = f"t.zeros(2, 3, dtype=t.{name})"
    for expr in [f"t.is_floating_point({x})", f"t.is_complex({x})", f"t.is_signed({x})", f"{x}.is_signed()",
                 f"{x}.is_floating_point()", f"{x}.is_complex()", f"{x}.element_size()", f"{x}.itemsize",
                 f"{x}.nbytes", f"{x}.t().nbytes", f"t.numel({x})", f"{x}.type()", f"t.is_tensor({x})",
                 f"t.is_storage({x})", f"t.empty(0, dtype=t.{name}).nbytes", f"{x}[0, 1:].nbytes"]:
        check(expr)


@pytest.mark.parametrize("expr", [
    "t.is_tensor(1)", "t.is_tensor([1])", "t.is_storage(1)", "t.is_floating_point(1.0)", "t.is_signed(1)",
    "t.is_complex(1)", "t.numel([1])", "t.numel(t.ones(2, 3))", "t.numel(t.ones(()))", "t.numel(t.ones(0, 4))",
    "t.empty(2, 3, device='meta').type()", "t.empty(2, dtype=t.int64, device='meta').type()",
    "t.empty(2, 3, device='meta').nbytes", "t.empty(2, 3, device='meta').element_size()",
])
def test_predicate_calls(expr):
    check(expr)


# ---------------------------------------------------------------- Tensor.type and the legacy types

LEGACY = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor", "CharTensor", "ShortTensor",
          "IntTensor", "LongTensor", "BoolTensor"]


@pytest.mark.parametrize("cls", LEGACY)
def test_legacy_constructors(cls):
    for args in ["", "2, 3", "0", "t.Size([2, 4])", "[1, 0, 2]", "[[1, 2], [3, 4]]", "(1, 2)", "2.5", "'a'", "-1",
                 "2, [1]", "[1], 2", "t.ones(2, dtype=t.float32)", "t.ones(2, dtype=t.int64)", "3, device='cpu'",
                 "3, device='meta'", "3, dtype=t.float64"]:
        expr = f"t.{cls}({args})"
        if args in ("2, 3", "0", "t.Size([2, 4])", "3, device='cpu'"):
            expr += ".shape"  # uninitialised values
            check(expr.replace(".shape", ".dtype"))
        check(expr)
    check(f"t.{cls}.dtype")
    check(f"t.{cls}.__name__")
    for name in DTYPE_NAMES:
        check(f"isinstance(t.zeros(2, dtype=t.{name}), t.{cls})")
    check(f"isinstance(t.zeros(2, dtype=t.{cls}.dtype, device='meta'), t.{cls})")
    check(f"isinstance(1, t.{cls})")
    check(f"isinstance(t.zeros(2).requires_grad_(), t.{cls})")
    check(f"type(t.{cls}([1])) is t.Tensor")
    check(f"issubclass(t.{cls}, t.Tensor)")


def test_legacy_type_repr():
    assert repr(tl.FloatTensor) == "<class 'torchlite.FloatTensor'>"


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_tensor_type_conversions(name):
    x = "t.tensor([[0, 1], [2, 3]], dtype=t.float32)"
    check(f"{x}.type(t.{name})")
    check(f"{x}.type(dtype=t.{name})")
    check(f"{x}.type({x}.type(t.{name}).type())")
    check(f"{x}.t().type(t.{name})")


@pytest.mark.parametrize("expr", [
    "t.ones(2).type('torch.DoubleTensor')", "t.ones(2).type(t.DoubleTensor)", "t.ones(2).type(t.LongTensor)",
    "t.ones(2).type('torch.FooTensor')", "t.ones(2).type('float')", "t.ones(2).type(3)",
    "t.ones(2).type('torch.BoolTensor')", "t.ones(2).type('torch.UInt16Tensor')",
    "t.ones(2).type(t.int64, non_blocking=True)", "t.ones(2).type(t.float64, True)",
    "(lambda x: x.type(t.float32) is x)(t.ones(2))", "(lambda x: x.type('torch.FloatTensor') is x)(t.ones(2))",
    "(lambda x: x.type(x.type()) is x)(t.ones(2, dtype=t.int16))",
])
def test_tensor_type_calls(expr):
    check(expr)


def test_tensor_type_accepts_torchlite_prefix():
    assert tl.ones(2).type("torchlite.DoubleTensor").dtype == tl.float64


def test_tensor_type_is_differentiable():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    x.type(tl.float64).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


# ---------------------------------------------------------------- the default dtype

@pytest.fixture
def restore_default_dtype():
    yield
    tl.set_default_dtype(tl.float32)
    torch.set_default_dtype(torch.float32)


HONOURS_DEFAULT = [
    "t.get_default_dtype()", "t.tensor([1.5])", "t.tensor(1.5)", "t.tensor([1, 2.5])", "t.tensor([])",
    "t.tensor([[1], [2]])", "t.as_tensor([1.5])", "t.as_tensor([1])", "t.ones(2)", "t.zeros(2, 3)",
    "t.empty(2).dtype", "t.full((2,), 1.5)", "t.full((2,), 1)", "t.full((2,), True)", "t.arange(1.0, 3.0)",
    "t.arange(3)", "t.arange(0, 1, 0.25)", "t.rand(2).dtype", "t.randn(2).dtype",
    "t.ones_like(t.tensor([1, 2]))", "t.zeros(2, dtype=t.int32)", "t.Tensor([1, 2])", "t.Tensor(2).dtype",
    "t.FloatTensor([1])", "t.tensor([1, 2]).sin()", "t.tensor([1, 2]) / t.tensor([2, 4])", "t.tensor([1, 2]) / 2",
    "t.tensor([1, 2]) * 1.5", "t.tensor([1, 2]).sqrt()", "t.tensor([1, 2]).exp()", "t.tensor([True]).sigmoid()",
    "t.result_type(t.tensor([1]), 1.0)", "t.tensor([1.0, 2.0]).mean()",
    "t.tensor([1, 2]).div(2, rounding_mode='floor')", "t.ones(2).type()", "t.tensor([1, 2]).float().dtype",
    "t.finfo()", "t.tensor([1.5], dtype=t.float32) + 2.5", "t.tensor(1.5) + t.tensor([1], dtype=t.int8)",
    "t.empty(0).dtype", "t.tensor(np.float64(1.5))", "t.tensor(np.array([1.5]))",
]


@pytest.mark.parametrize("default", ["float64", "float16", "bfloat16", "float32"])
def test_default_dtype_is_honoured(default, restore_default_dtype):
    tl.set_default_dtype(getattr(tl, default))
    torch.set_default_dtype(getattr(torch, default))
    for expr in HONOURS_DEFAULT:
        check(expr)


@pytest.mark.parametrize("name", DTYPE_NAMES + ["'float32'", "1", "float"])
def test_set_default_dtype_rejects(name, restore_default_dtype):
    arg = f"t.{name}" if name in DTYPE_NAMES else name
    check(f"t.set_default_dtype({arg})")
    check("t.get_default_dtype()")
