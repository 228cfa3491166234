"""Pointwise ops against PyTorch: every dtype, layouts, broadcasting, scalars, variants, errors."""
import itertools

import pytest
import torch

import torchlite as tl
from conftest import DTYPES, FLOAT_DTYPES, INT_DTYPES, LAYOUTS, assert_same, from_torch, layout, make, tl_dtype

BINARY = ["add", "sub", "mul", "div", "pow", "eq", "ne", "lt", "le", "gt", "ge", "floor_divide"]


def torch_or_error(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - we compare the kind of error
        return None, e


def check_like_torch(tl_fn, torch_fn, **tol):
    """Runs both; either both fail with the same exception type or the results agree."""
    expected, err = torch_or_error(torch_fn)
    if err is not None:
        with pytest.raises(type(err)):
            tl_fn()
        return
    assert_same(tl_fn(), expected, **tol)


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("da,db", [(a, b) for a, b in itertools.product(DTYPES, DTYPES)
                                   if a == b or "float32" in (a, b) or (a, b) in [("int32", "int64"), ("bool", "uint8"), ("uint8", "int8"), ("float16", "bfloat16")]])
def test_binary_dtypes(op, da, db):
    a, b = make((3, 4), da, 1, 1, 4), make((3, 4), db, 2, 1, 3)
    check_like_torch(lambda: getattr(tl, op)(from_torch(a), from_torch(b)), lambda: getattr(torch, op)(a, b))


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "eq", "lt", "ge"])
@pytest.mark.parametrize("la,lb", [(x, y) for x in LAYOUTS for y in LAYOUTS])
def test_binary_layouts(op, la, lb):
    a, b = make((4, 5), "float32", 3), make((4, 5), "float32", 4)
    ta, xa = layout(a, la)
    tb, xb = layout(b, lb)
    assert_same(getattr(tl, op)(xa, xb), getattr(torch, op)(ta, tb))


@pytest.mark.parametrize("sa,sb", [((3, 1), (1, 4)), ((2, 3, 4), (4,)), ((), (2, 3)), ((5, 1, 3), (2, 1)),
                                   ((0, 3), (1, 3)), ((2, 0), (2, 1)), ((1,), ())])
def test_broadcasting(sa, sb):
    a, b = make(sa, "float64", 5), make(sb, "float64", 6)
    for op in ["add", "mul", "sub", "div", "lt"]:
        assert_same(getattr(tl, op)(from_torch(a), from_torch(b)), getattr(torch, op)(a, b))


def test_broadcast_error_names_shapes():
    with pytest.raises(RuntimeError, match=r"size of tensor a \(3\) must match the size of tensor b \(4\)"):
        tl.add(tl.ones(2, 3), tl.ones(2, 4))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scalar", [2, -1.5, True, 0.5])
def test_scalar_promotion(dtype, scalar):
    a = make((2, 3), dtype, 7, 1, 4)
    for op in ["add", "mul", "sub", "div", "lt", "eq"]:
        check_like_torch(lambda: getattr(tl, op)(from_torch(a), scalar), lambda: getattr(torch, op)(a, scalar))


@pytest.mark.parametrize("da,db", [("int32", "float64"), ("uint8", "int64"), ("float16", "float32"), ("bool", "int8")])
def test_zero_dim_tensor_promotion(da, db):
    a = make((3,), da, 1, 1, 4)
    b = make((), db, 2, 1, 4)
    for op in ["add", "mul"]:
        assert_same(getattr(tl, op)(from_torch(a), from_torch(b)), getattr(torch, op)(a, b))
        assert_same(getattr(tl, op)(from_torch(b), from_torch(a)), getattr(torch, op)(b, a))
    assert str(tl.result_type(from_torch(a), from_torch(b))).split(".")[-1] == \
        str(torch.result_type(a, b)).split(".")[-1]


def test_alpha():
    a, b = make((3,), "float32", 1), make((3,), "float32", 2)
    assert_same(tl.add(from_torch(a), from_torch(b), alpha=2.5), torch.add(a, b, alpha=2.5))
    assert_same(tl.sub(from_torch(a), from_torch(b), alpha=-3), torch.sub(a, b, alpha=-3))
    ia = make((3,), "int64", 1)
    with pytest.raises(RuntimeError):
        tl.add(from_torch(ia), from_torch(ia), alpha=1.5)


@pytest.mark.parametrize("mode", [None, "trunc", "floor"])
@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64", "uint8"])
def test_div_rounding_mode(mode, dtype):
    a, b = make((4, 4), dtype, 3, -9, 9), make((4, 4), dtype, 4, -4, 4)
    assert_same(tl.div(from_torch(a), from_torch(b), rounding_mode=mode), torch.div(a, b, rounding_mode=mode))
    assert_same(tl.div(from_torch(a), 3, rounding_mode=mode), torch.div(a, 3, rounding_mode=mode))


def test_div_invalid_rounding_mode():
    with pytest.raises(RuntimeError, match="rounding_mode"):
        tl.div(tl.ones(2), tl.ones(2), rounding_mode="up")


def test_integer_division_by_zero():
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        tl.div(tl.tensor([1, 2]), tl.tensor([1, 0]), rounding_mode="floor")


@pytest.mark.parametrize("op", ["neg", "abs", "sign", "exp", "log", "sqrt", "reciprocal", "relu", "tanh"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_unary(op, dtype):
    a = make((3, 5), dtype, 9, 1, 6)
    check_like_torch(lambda: getattr(tl, op)(from_torch(a)), lambda: getattr(torch, op)(a))


@pytest.mark.parametrize("op", ["exp", "log", "sqrt", "abs", "neg", "relu"])
@pytest.mark.parametrize("kind", LAYOUTS)
def test_unary_layouts(op, kind):
    a = make((6, 7), "float32", 10, 0.1, 4)
    ta, xa = layout(a, kind)
    assert_same(getattr(tl, op)(xa), getattr(torch, op)(ta))


def test_unary_special_values():
    vals = [0.0, -0.0, 1e-30, -1.0, float("inf"), -float("inf"), float("nan"), 88.0, 89.0, -104.0, 1e10]
    for dt in ["float32", "float64"]:
        a = torch.tensor(vals, dtype=getattr(torch, dt))
        for op in ["exp", "log", "sqrt", "abs", "sign", "reciprocal", "relu", "neg", "tanh"]:
            assert_same(getattr(tl, op)(from_torch(a)), getattr(torch, op)(a), atol=0, rtol=2e-7 if dt == "float64" else 2e-6)


def test_large_exp_matches_numpy():
    a = torch.linspace(-100, 100, 1_000_003, dtype=torch.float32)
    # Within one float32 ulp; results in the subnormal range may differ in their last bit.
    assert_same(tl.exp(from_torch(a)), torch.exp(a), atol=3e-45, rtol=3e-7)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_inplace_and_out(op):
    a, b = make((3, 4), "float32", 1), make((4,), "float32", 2)
    x = from_torch(a)
    r = getattr(x, op + "_")(from_torch(b))
    assert r is x
    assert x._version == 1
    assert_same(x, getattr(torch, op)(a, b))
    out = tl.empty(0)
    r = getattr(tl, op)(from_torch(a), from_torch(b), out=out)
    assert r is out
    assert_same(out, getattr(torch, op)(a, b))


def test_inplace_cannot_broadcast_self():
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        tl.ones(3).add_(tl.ones(2, 3))


def test_inplace_dtype_cast_rules():
    x = tl.ones(3, dtype=tl.int64)
    with pytest.raises(RuntimeError, match="can't be cast"):
        x.add_(tl.ones(3))
    y = tl.ones(3)
    y.add_(tl.ones(3, dtype=tl.int64))
    assert y.dtype == tl.float32


def test_out_with_other_dtype():
    out = tl.empty(3, dtype=tl.float64)
    tl.add(tl.ones(3), tl.ones(3), out=out)
    assert out.dtype == tl.float64 and out.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(RuntimeError):
        tl.add(tl.ones(3), tl.ones(3), out=tl.empty(3, dtype=tl.int32))


def test_comparison_inplace_keeps_dtype():
    x = tl.tensor([1.0, 2.0, 3.0])
    x.lt_(2.5)
    assert x.dtype == tl.float32 and x.tolist() == [1.0, 1.0, 0.0]


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_empty_and_zero_dim(dtype):
    for shape in [(0,), (2, 0, 3), ()]:
        a = make(shape, dtype, 1, 1, 3)
        for op in ["add", "mul", "eq"]:
            assert_same(getattr(tl, op)(from_torch(a), from_torch(a)), getattr(torch, op)(a, a))
        assert_same(tl.abs(from_torch(a)) if dtype != "bool" else from_torch(a), torch.abs(a) if dtype != "bool" else a)


def test_where():
    c = make((3, 4), "bool", 1)
    a, b = make((3, 4), "float32", 2), make((4,), "float64", 3)
    assert_same(tl.where(from_torch(c), from_torch(a), from_torch(b)), torch.where(c, a, b))
    with pytest.raises(RuntimeError):
        tl.where(from_torch(a), from_torch(a), from_torch(a))


def test_python_operators():
    a, b = make((2, 3), "float32", 1, 1, 3), make((2, 3), "float32", 2, 1, 3)
    x, y = from_torch(a), from_torch(b)
    pairs = [(x + y, a + b), (x - y, a - b), (x * y, a * b), (x / y, a / b), (x // y, a // b), (x ** y, a ** b),
             (x ** 2, a ** 2), (2 ** x, 2 ** a), (-x, -a), (3 - x, 3 - a), (3 / x, 3 / a), (2 + x, 2 + a),
             (2 * x, 2 * a), (7 // x, 7 // a), (x < y, a < b), (x >= 2, a >= 2), (x == y, a == b), (x != 1, a != 1),
             (abs(-x), abs(-a))]
    for got, want in pairs:
        assert_same(got, want)
    z = x.clone()
    z += y
    z *= 2
    z -= 1
    z /= 4
    assert_same(z, ((a + b) * 2 - 1) / 4)


def test_operator_with_unsupported_type_raises_type_error():
    with pytest.raises(TypeError):
        tl.ones(2) + "a"
    assert (tl.ones(2) == None) is False  # noqa: E711 - Python falls back to identity


@pytest.mark.parametrize("op", ["add", "mul", "exp", "lt", "where"])
def test_meta_device(op):
    a = tl.empty(3, 1, 4, device="meta")
    b = tl.empty(5, 1, device="meta", dtype=tl.float64)
    if op == "exp":
        r = tl.exp(a)
        assert r.shape == (3, 1, 4) and r.dtype == tl.float32
    elif op == "where":
        r = tl.where(tl.empty(5, 4, dtype=tl.bool, device="meta"), a, b)
        assert r.shape == (3, 5, 4) and r.dtype == tl.float64
    else:
        r = getattr(tl, op)(a, b)
        assert r.shape == (3, 5, 4)
        assert r.dtype == (tl.bool if op == "lt" else tl.float64)
    assert r.device.type == "meta"
    with pytest.raises(RuntimeError):
        tl.add(tl.empty(3, device="meta"), tl.empty(4, device="meta"))
