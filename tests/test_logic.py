"""Comparison, logical and bitwise ops beyond the generated suites: the Python operators (& | ^ ~ << >>,
reflected and in-place) with numbers on either side, grad_fn node names of the arithmetic operators,
truth values of tensors, and special-value grids (isclose, shifts) against PyTorch."""
import itertools
import math
import operator

import pytest
import torch

import torchlite as tl
from conftest import DTYPES, FLOAT_DTYPES, INT_DTYPES, assert_same, expect_like_torch, from_torch, make

BIT_DTYPES = ["bool"] + INT_DTYPES


def _pair(dtype, seed=0):
    t = make((3, 4), dtype, seed, -20, 20)
    return t, from_torch(t)


# ---------------------------------------------------------------- Python operators

BINARY_OPERATORS = [operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift]
INPLACE_OPERATORS = [operator.iand, operator.ior, operator.ixor, operator.ilshift, operator.irshift]


@pytest.mark.parametrize("op", BINARY_OPERATORS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("da,db", [(a, b) for a, b in itertools.product(BIT_DTYPES + ["float32"], repeat=2)
                                   if a == b or "int64" in (a, b) or "float32" in (a, b) or "bool" in (a, b)])
def test_operator_tensor_tensor(op, da, db):
    (ta, la), (tb, lb) = _pair(da, 1), _pair(db, 2)
    if op in (operator.lshift, operator.rshift):
        tb = tb.abs() if db not in ("bool", "float32") else tb
        lb = from_torch(tb)
    expect_like_torch(lambda: op(la, lb), lambda: op(ta, tb))


@pytest.mark.parametrize("op", BINARY_OPERATORS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", BIT_DTYPES + ["float32"])
@pytest.mark.parametrize("number", [3, True, False, 0, -1, 70, 2.5])
def test_operator_with_number_either_side(op, dtype, number):
    t, l = _pair(dtype)
    expect_like_torch(lambda: op(l, number), lambda: op(t, number))
    expect_like_torch(lambda: op(number, l), lambda: op(number, t))


@pytest.mark.parametrize("op", INPLACE_OPERATORS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", BIT_DTYPES)
@pytest.mark.parametrize("other", ["tensor_int64", "tensor_same", "number", "bool"])
def test_inplace_operator(op, dtype, other):
    t, l = _pair(dtype)
    o_t = {"number": 2, "bool": True}.get(other)
    if other == "tensor_int64":
        o_t = make((4,), "int64", 5, 0, 6)
    elif other == "tensor_same":
        o_t = make((4,), dtype, 5, 0, 6).abs() if dtype != "bool" else make((4,), dtype, 5)
    o_l = from_torch(o_t) if isinstance(o_t, torch.Tensor) else o_t
    expected, got = t.clone(), l.clone()
    try:
        expected = op(expected, o_t)
    except Exception as e:  # noqa: BLE001 - the kind of error is what we compare
        with pytest.raises(RuntimeError if isinstance(e, NotImplementedError) else type(e)):
            op(got, o_l)
        return
    before = got
    got = op(got, o_l)
    assert got is before  # in place: the same tensor object
    assert_same(got, expected)


@pytest.mark.parametrize("dtype", DTYPES)
def test_invert(dtype):
    t, l = _pair(dtype)
    expect_like_torch(lambda: ~l, lambda: ~t)
    if dtype in FLOAT_DTYPES:
        with pytest.raises(TypeError, match="only implemented on integer and Boolean"):
            ~l
        with pytest.raises(RuntimeError):
            tl.bitwise_not(l)


def test_reflected_operators_exist_like_torch():
    for name in ["__and__", "__rand__", "__iand__", "__or__", "__ror__", "__ior__", "__xor__", "__rxor__",
                 "__ixor__", "__lshift__", "__rlshift__", "__ilshift__", "__rshift__", "__rrshift__",
                 "__irshift__", "__invert__"]:
        assert hasattr(tl.Tensor, name), name
    x = tl.tensor([1, 2, 3])
    assert (1 << x).tolist() == [2, 4, 8]
    assert (256 >> x).tolist() == [128, 64, 32]
    assert x.__rand__(1).tolist() == [1, 0, 1]
    assert x.__rlshift__(1).tolist() == [2, 4, 8]
    with pytest.raises(TypeError):
        x & "a"
    with pytest.raises(TypeError):
        "a" << x


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("fn", ["bitwise_left_shift", "bitwise_right_shift"])
def test_shift_counts_grid(dtype, fn):
    """Every count from -70 to 70 on values including the extremes, tensor and number counts."""
    info = torch.iinfo(getattr(torch, dtype))
    vals = torch.tensor([0, 1, -1, 5, -7, info.max, info.min, info.max // 3], dtype=torch.int64)
    vals = vals.clamp(info.min, info.max).to(getattr(torch, dtype))
    counts = torch.arange(-70, 71, dtype=torch.int64)
    if dtype == "uint8":
        counts = counts.clamp(0, 255)
    counts = counts.to(getattr(torch, dtype)) if dtype != "int8" else counts.clamp(-128, 127).to(torch.int8)
    a, b = vals[:, None], counts[None, :]
    assert_same(getattr(tl, fn)(from_torch(a), from_torch(b)), getattr(torch, fn)(a, b))
    for c in (-1, 0, 3, 7, 8, 15, 16, 31, 32, 63, 64, 70, 200):
        expect_like_torch(lambda: getattr(tl, fn)(from_torch(vals), c), lambda: getattr(torch, fn)(vals, c))


# ---------------------------------------------------------------- node names

NODE_EXPRESSIONS = [
    "x * 2", "x * 2.5", "x * True", "2 * x", "x + 1", "1 + x", "x - 1", "x / 2", "x ** 2", "x ** 0.5",
    "2 - x", "2 / x", "2 ** x", "x * y", "x + y", "x - y", "x / y", "x ** y",
    "torch.mul(x, 2)", "x.mul(2)", "torch.add(x, 1)", "torch.add(x, 1, alpha=2)", "x.add(1, alpha=2)",
    "torch.sub(x, 1)", "x.sub(1)", "torch.div(x, 2)", "x.div(2)", "torch.div(x, 2, rounding_mode='floor')",
    "torch.div(x, y, rounding_mode='trunc')", "torch.pow(x, 2)", "x.pow(2)", "torch.pow(x, y)",
    "torch.pow(2, x)", "torch.rsub(x, 2)", "torch.rsub(x, y)", "-x", "abs(x)",
    "x.clone().eq_(2)", "x.clone().eq_(y)", "x.clone().ne_(2)", "x.clone().lt_(y)", "x.clone().ge_(0.5)",
    "x.clone().greater_(2)", "x.clone().greater_(y)", "x.clone().less_equal_(2)", "x.clone().not_equal_(y)",
    "x.clone().__imul__(2)", "x.clone().__iadd__(1)", "x.clone().__isub__(y)", "x.clone().__itruediv__(2)",
]


@pytest.mark.parametrize("expr", NODE_EXPRESSIONS)
def test_grad_fn_names_like_torch(expr):
    """`x * 2` records mul.Tensor with a wrapped number (MulBackward0) as in PyTorch, and every other
    spelling gives PyTorch's node name too."""
    xs = torch.tensor([1.5, 2.0, 3.0], requires_grad=True)
    ys = torch.tensor([0.5, 2.0, 1.0], requires_grad=True)
    expected = eval(expr, {"torch": torch, "x": xs, "y": ys})  # noqa: S307 - our own expressions
    xl = tl.tensor([1.5, 2.0, 3.0], requires_grad=True)
    yl = tl.tensor([0.5, 2.0, 1.0], requires_grad=True)
    got = eval(expr, {"torch": tl, "x": xl, "y": yl})  # noqa: S307
    assert type(got.grad_fn).__name__ == type(expected.grad_fn).__name__
    assert_same(got.detach(), expected.detach())


@pytest.mark.parametrize("expr,dtype", [("x * 2", "int32"), ("x + 1", "uint8"), ("x - 300", "uint8"),
                                        ("x * 2.5", "int64"), ("x / 2", "int16"), ("x + True", "bool"),
                                        ("x * 2", "float16"), ("x + 1e-8", "bfloat16"), ("x + 2**40", "int32")])
def test_wrapped_number_promotion(expr, dtype):
    """A number bound to a Tensor parameter takes part in promotion as a wrapped number."""
    t, l = _pair(dtype)
    expect_like_torch(lambda: eval(expr, {"x": l}), lambda: eval(expr, {"x": t}))  # noqa: S307


# ---------------------------------------------------------------- truth values

@pytest.mark.parametrize("values", [[], [0.0], [1.0], [float("nan")], [-0.0], [1.0, 2.0], [[3]]])
def test_bool_and_is_nonzero(values):
    t, l = torch.tensor(values), tl.tensor(values)
    expect_like_torch(lambda: bool(l), lambda: bool(t), check=lambda a, b: a == b)
    expect_like_torch(lambda: tl.is_nonzero(l), lambda: torch.is_nonzero(t), check=lambda a, b: a == b)
    expect_like_torch(lambda: l.is_nonzero(), lambda: t.is_nonzero(), check=lambda a, b: a == b)
    expect_like_torch(lambda: l and 1, lambda: t and 1, check=lambda a, b: a == b)


def test_meta_tensors():
    m = tl.empty(3, device="meta")
    assert tl.isclose(m, m).shape == (3,) and tl.isclose(m, m).dtype == tl.bool
    assert (tl.empty(3, dtype=tl.int32, device="meta") << 2).device.type == "meta"
    # As PyTorch's meta functions, the bitwise ops accept any dtype on meta (no kernel runs)
    assert tl.bitwise_and(m, m).dtype == tl.float32 and (m << 1).shape == (3,)
    with pytest.raises(RuntimeError):
        tl.bitwise_and(tl.empty(0), tl.empty(0))  # but not on CPU, even empty
    with pytest.raises(RuntimeError):
        tl.is_nonzero(tl.empty(1, device="meta"))
    with pytest.raises(NotImplementedError):
        tl.equal(m, m)


# ---------------------------------------------------------------- special values

SPECIAL = [0.0, -0.0, 1.0, -1.0, 1e-5, 1.00001, 1e-8, 1e-9, 65504.0, 1e38, 3e38, float("inf"), float("-inf"),
           float("nan"), 1e-40, 1e300, 1e-310]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("rtol,atol,equal_nan", [(1e-5, 1e-8, False), (0.0, 0.0, True), (0.1, 0.0, False),
                                                 (0.0, 0.5, True), (1e-3, 1e-3, False)])
def test_isclose_special_grid(dtype, rtol, atol, equal_nan):
    v = torch.tensor(SPECIAL, dtype=torch.float64).to(getattr(torch, dtype))
    a, b = v[:, None], v[None, :]
    expected = torch.isclose(a, b, rtol, atol, equal_nan)
    got = tl.isclose(from_torch(a), from_torch(b), rtol, atol, equal_nan)
    assert_same(got, expected)
    assert tl.allclose(from_torch(a), from_torch(a), rtol, atol, equal_nan) == torch.allclose(a, a, rtol, atol,
                                                                                               equal_nan)


@pytest.mark.parametrize("dtype", ["bool"] + INT_DTYPES)
@pytest.mark.parametrize("default", ["float32", "float64"])
def test_isclose_integers(dtype, default):
    vals = torch.tensor([0, 1, 2, 3, 100, 127, -128, 2**31 - 1, 2**53 + 1, -(2**62)], dtype=torch.int64)
    info = torch.iinfo(getattr(torch, dtype)) if dtype != "bool" else None
    vals = vals.clamp(info.min, info.max) if info else vals != 0
    vals = vals.to(getattr(torch, dtype))
    a, b = vals[:, None], vals[None, :]
    previous, previous_tl = torch.get_default_dtype(), tl.get_default_dtype()
    try:
        torch.set_default_dtype(getattr(torch, default))
        tl.set_default_dtype(getattr(tl, default))
        for rtol, atol in [(1e-5, 1e-8), (0.0, 1.0), (0.5, 0.0)]:
            assert_same(tl.isclose(from_torch(a), from_torch(b), rtol, atol), torch.isclose(a, b, rtol, atol))
    finally:
        torch.set_default_dtype(previous)
        tl.set_default_dtype(previous_tl)


def test_isclose_errors():
    x = tl.tensor([1.0, 2.0])
    for kwargs in ({"rtol": -1.0}, {"atol": -1e-9}):
        with pytest.raises(RuntimeError, match="must be greater than or equal to zero"):
            tl.isclose(x, x, **kwargs)
    with pytest.raises(RuntimeError, match="Float"):
        tl.isclose(x, tl.tensor([1, 2]))
    with pytest.raises(RuntimeError, match=r"\[2\]|\(2\)|2"):
        tl.isclose(x, tl.ones(3))


@pytest.mark.parametrize("layout_a,layout_b", list(itertools.product(["contiguous", "transposed", "expanded"], repeat=2)))
@pytest.mark.parametrize("db", ["float32", "int64", "float64"])
def test_equal_layouts_and_dtypes(layout_a, layout_b, db):
    base = torch.tensor([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])

    def lay(t, kind):
        if kind == "transposed":
            return t.t().contiguous().t()
        if kind == "expanded":
            return t[:1].expand(3, 3)
        return t.contiguous()
    a, b = lay(base, layout_a), lay(base.to(getattr(torch, db)), layout_b)
    pairs = {"contiguous": lambda t: from_torch(t), "transposed": lambda t: from_torch(t.t().contiguous()).t(),
             "expanded": lambda t: from_torch(t[:1].contiguous()).expand(3, 3)}
    la, lb = pairs[layout_a](a), pairs[layout_b](b)
    assert tl.equal(la, lb) == torch.equal(a, b)
    b2 = b.clone()
    b2[2, 1] = 7
    assert tl.equal(la, from_torch(b2)) == torch.equal(a, b2) is False
    nan = torch.tensor([math.nan])
    assert tl.equal(from_torch(nan), from_torch(nan)) == torch.equal(nan, nan)
