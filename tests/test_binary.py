"""Binary/ternary arithmetic beyond the generated suites: Python operators, integer division by zero,
pow's forms and errors, special-value grids against PyTorch, and the errors samples cannot express."""
import itertools
import math

import pytest
import torch

import torchlite as tl
from conftest import assert_same, expect_like_torch, from_torch, tl_dtype

SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 3.0, -7.0, 1e-40, -1e-40, 1e30, -1e30, math.inf, -math.inf, math.nan]
GRID = list(itertools.product(SPECIAL, SPECIAL))
INTS = ["uint8", "int8", "int16", "int32", "int64"]


def pair(values, dtype):
    t = torch.tensor(values, dtype=getattr(torch, dtype))
    return t, from_torch(t)


# ---------------------------------------------------------------- special values

@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("op", ["fmod", "remainder", "copysign", "hypot", "maximum", "minimum", "fmax", "fmin",
                                "nextafter", "heaviside", "div", "floor_divide", "float_power", "pow"])
def test_special_value_grid(op, dtype):
    a, ta = pair([x for x, _ in GRID], dtype)
    b, tb = pair([y for _, y in GRID], dtype)
    if op in ("fmod", "remainder"):
        # PyTorch's result one element at a time (its scalar path, libm's fmod): see the xfail below.
        want = torch.cat([getattr(torch, op)(a[i:i + 1], b[i:i + 1]) for i in range(len(GRID))])
        assert_same(getattr(tl, op)(ta, tb), want, atol=0, rtol=0)
        return
    # float_power computes in float64 through pow, whose float64 kernel (not this family's) may differ by 1 ulp.
    tol = {"rtol": 4e-16, "atol": 0} if op == "float_power" else {"rtol": 0, "atol": 0}
    expect_like_torch(lambda: getattr(tl, op)(ta, tb), lambda: getattr(torch, op)(a, b), **tol)


@pytest.mark.xfail(strict=True, reason="PyTorch's vectorized float32 fmod (Sleef) gives NaN for a subnormal divisor, "
                                       "its scalar tail and libm the exact remainder; torchlite gives the exact one "
                                       "everywhere")
def test_fmod_subnormal_divisor_in_vectorized_runs():
    a, b = torch.ones(16), torch.full((16,), 1e-40)
    assert_same(tl.fmod(from_torch(a), from_torch(b)), torch.fmod(a, b))


@pytest.mark.parametrize("op", ["maximum", "minimum", "fmax", "fmin", "copysign"])
def test_signed_zero_and_nan_choice(op):
    a, ta = pair([0.0, -0.0, math.nan, 1.0, math.nan], "float32")
    b, tb = pair([-0.0, 0.0, 1.0, math.nan, math.nan], "float32")
    got = getattr(tl, op)(ta, tb)
    want = getattr(torch, op)(a, b)
    assert_same(got, want, atol=0, rtol=0)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_nextafter_reduced_floats_step_one_unit(dtype):
    a, ta = pair([0.0, -0.0, 1.0, -1.0, 65504.0 if dtype == "float16" else 1e38, 1e-7, math.inf], dtype)
    b, tb = pair([1.0, -1.0, 2.0, 0.0, math.inf, -1.0, 0.0], dtype)
    got = tl.nextafter(ta, tb)
    want = torch.nextafter(a, b)
    assert torch.equal(torch.from_numpy(got.float().numpy()), want.float())


@pytest.mark.parametrize("op", ["fmod", "remainder"])
@pytest.mark.parametrize("dtype", INTS)
def test_integer_remainders_match_torch(op, dtype):
    lo = 0 if dtype == "uint8" else -50
    a = torch.arange(lo, 50).to(getattr(torch, dtype))
    b = torch.tensor([d for d in range(-7, 8) if d != 0 and (d > 0 or dtype != "uint8")]).to(getattr(torch, dtype))
    a2, b2 = a[:, None], b[None, :]
    assert_same(getattr(tl, op)(from_torch(a2), from_torch(b2)), getattr(torch, op)(a2, b2))


@pytest.mark.parametrize("op", ["fmod", "remainder", "gcd", "lcm", "floor_divide"])
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_extremes(op, dtype):
    info = torch.iinfo(getattr(torch, dtype))
    vals = [info.min, info.max, -1, 0, 1, 7, -12, 18]
    if op == "lcm":  # PyTorch itself dies of SIGFPE on lcm(INT_MIN, INT_MAX) (INT_MIN / -1); torchlite wraps
        vals.remove(info.min)
        assert getattr(tl, op)(tl.tensor([info.min], dtype=tl_dtype(dtype)), tl.tensor([info.max], dtype=tl_dtype(dtype))).tolist() == [info.min]
    a, ta = pair([x for x in vals for _ in vals], dtype)
    b, tb = pair([y for _ in vals for y in vals], dtype)
    keep = b != 0
    if op in ("fmod", "remainder", "floor_divide"):
        a, b = a[keep], b[keep]
        ta, tb = from_torch(a), from_torch(b)
    assert_same(getattr(tl, op)(ta, tb), getattr(torch, op)(a, b))


# ---------------------------------------------------------------- integer division by zero

@pytest.mark.parametrize("call", [
    lambda lib, x, z: lib.fmod(x, z), lambda lib, x, z: lib.remainder(x, z), lambda lib, x, z: x % z,
    lambda lib, x, z: lib.fmod(x, 0), lambda lib, x, z: lib.remainder(x, 0), lambda lib, x, z: x % 0,
    lambda lib, x, z: 5 % z, lambda lib, x, z: lib.remainder(5, z),
    lambda lib, x, z: lib.div(x, z, rounding_mode="trunc"), lambda lib, x, z: lib.div(x, z, rounding_mode="floor"),
    lambda lib, x, z: lib.div(x, 0, rounding_mode="floor"), lambda lib, x, z: lib.floor_divide(x, z),
    lambda lib, x, z: x // 0,
], ids=["fmod", "remainder", "mod", "fmod_scalar", "remainder_scalar", "mod_scalar", "rmod", "remainder_scalar_tensor",
        "div_trunc", "div_floor", "div_floor_scalar", "floor_divide", "floordiv_scalar"])
@pytest.mark.parametrize("dtype", INTS)
def test_integer_division_by_zero_raises(call, dtype):
    x, tx = pair([1, 2, 3], dtype)
    z, tz = pair([1, 0, 2], dtype)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        call(torch, x, z)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        call(tl, tx, tz)


# ---------------------------------------------------------------- Python operators

@pytest.mark.parametrize("dtype", ["int64", "int32", "float32", "float64", "float16"])
@pytest.mark.parametrize("other", [3, -2, 2.5, "tensor", "tensor0d"])
def test_mod_operators(dtype, other):
    x, tx = pair([5, -5, 7, -8, 0], dtype)
    if other == "tensor":
        o, to = pair([3, 3, -2, 5, 4], dtype)
    elif other == "tensor0d":
        o = torch.tensor(3)
        to = from_torch(o)
    else:
        o = to = other
    expect_like_torch(lambda: tx % to, lambda: x % o)
    if not isinstance(o, torch.Tensor):
        expect_like_torch(lambda: to % tx.abs().clamp_min(1), lambda: o % x.abs().clamp_min(1))

    def imod(lib_x, lib_o):
        y = lib_x.clone()
        y %= lib_o
        return y
    expect_like_torch(lambda: imod(tx, to), lambda: imod(x, o))


def test_mod_with_unsupported_operand_is_type_error():
    with pytest.raises(TypeError):
        tl.ones(2) % "a"
    with pytest.raises(TypeError):
        tl.ones(2) % [1, "a"]


# ---------------------------------------------------------------- pow in every form

@pytest.mark.parametrize("base", [2, -2, 0, 2.5, True])
@pytest.mark.parametrize("dtype", ["int64", "int8", "uint8", "float32", "float64", "bool", "float16"])
def test_rpow(base, dtype):
    e, te = pair([0, 1, 2, 3], dtype)
    expect_like_torch(lambda: base ** te, lambda: base ** e)
    expect_like_torch(lambda: tl.pow(base, te), lambda: torch.pow(base, e))


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("exponent", [-1, -3, 0, 1, 2, 7, 2.5, -0.5])
def test_integer_tensor_to_number_powers(dtype, exponent):
    x, tx = pair([0, 1, 2, 3, 5] if dtype == "uint8" else [-3, -1, 0, 1, 2, 5], dtype)
    expect_like_torch(lambda: tx ** exponent, lambda: x ** exponent)
    expect_like_torch(lambda: tl.pow(tx, exponent), lambda: torch.pow(x, exponent))


def test_negative_integer_power_message():
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed."):
        tl.tensor([2, 3]) ** -1
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed."):
        tl.tensor([2, 3]).pow_(-2)


@pytest.mark.parametrize("dtype", ["int64", "int16", "float32"])
def test_integer_tensor_powers(dtype):
    x, tx = pair([-3, -1, 0, 1, 2, 5], dtype)
    e, te = pair([2, -1, 3, -2, 0, 3], dtype)
    expect_like_torch(lambda: tx ** te, lambda: x ** e)


@pytest.mark.parametrize("dtype", ["int64", "float32", "float64"])
@pytest.mark.parametrize("exponent", [2, 0.5, "tensor"])
def test_ipow_and_out(dtype, exponent):
    x, tx = pair([1, 2, 3], dtype)
    e, te = (pair([2, 1, 0], dtype) if exponent == "tensor" else (exponent, exponent))

    def ipow(lib_x, lib_e):
        y = lib_x.clone()
        y **= lib_e
        return y
    expect_like_torch(lambda: ipow(tx, te), lambda: ipow(x, e))
    out_t, out_tl = torch.empty(0, dtype=torch.float64), tl.empty(0, dtype=tl.float64)
    expect_like_torch(lambda: tl.pow(tx, te, out=out_tl), lambda: torch.pow(x, e, out=out_t))


# ---------------------------------------------------------------- ldexp

@pytest.mark.parametrize("dtypes", [("float16", "int8"), ("bfloat16", "int64"), ("int32", "int64"), ("float64", "float16"),
                                    ("float32", "int32"), ("float16", "float16"), ("bool", "bool"), ("float32", "float64")])
def test_ldexp_dtypes_and_exponents(dtypes):
    x, tx = pair([1e-4, 1.5, -3.0, 0.0, 2.0, 1e-30 if dtypes[0] in ("float32", "float64") else 0.5], dtypes[0])
    e, te = pair([20, 3, -2, 5, 200 if dtypes[1] in ("int32", "int64", "float64") else 7, 100 if dtypes[1] != "int8" else 90],
                 dtypes[1])
    expect_like_torch(lambda: tl.ldexp(tx, te), lambda: torch.ldexp(x, e))


def test_ldexp_integer_exponent_is_converted_to_int_as_torch():
    x, tx = pair([1.0, 1.0, -0.75], "float64")
    e, te = pair([2**32 + 1, -2**63, 3], "int64")
    expect_like_torch(lambda: tl.ldexp(tx, te), lambda: torch.ldexp(x, e))


@pytest.mark.parametrize("dtypes", [("int32", "int32"), ("int64", "bool"), ("float32", "bool"), ("int16", "int8")])
def test_ldexp_integer_self_goes_through_pow_as_torch(dtypes):
    # only a floating self takes the integer-exponent kernel: 0 * 2**(2**31 - 1) is nan for an integer self
    x, tx = pair([0, 3, -2], dtypes[0])
    e, te = pair([2**31 - 1 if dtypes[1] == "int32" else 1, 2, 100 if dtypes[1] in ("int32", "int16") else 0],
                 dtypes[1])
    expect_like_torch(lambda: tl.ldexp(tx, te), lambda: torch.ldexp(x, e))


# ---------------------------------------------------------------- float_power

def test_float_power_result_dtype_and_errors():
    for dtype in ["int64", "float32", "float16", "bool"]:
        x, tx = pair([1, 2, 3], dtype)
        expect_like_torch(lambda: tl.float_power(tx, 2), lambda: torch.float_power(x, 2))
        expect_like_torch(lambda: tl.float_power(2, tx), lambda: torch.float_power(2, x))
    with pytest.raises(RuntimeError, match="float_power_"):
        tl.ones(2).float_power_(2)
    with pytest.raises(RuntimeError, match="float_power"):
        tl.float_power(tl.ones(2), 2, out=tl.empty(2))
    x = tl.ones(2, dtype=tl.float64)
    assert x.float_power_(tl.tensor([2.0, 3.0])).dtype == tl.float64


# ---------------------------------------------------------------- clamp

def test_clamp_needs_a_bound():
    for call in (lambda lib: lib.clamp(lib.ones(2)), lambda lib: lib.clamp(lib.ones(2), None, None),
                 lambda lib: lib.clip(lib.ones(2))):
        with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
            call(tl)
        with pytest.raises(RuntimeError):
            call(torch)


@pytest.mark.parametrize("bounds", [(math.nan, None), (None, math.nan), (0.0, math.nan), (2.0, 1.0), (-1, 1)])
def test_clamp_special_bounds(bounds):
    x, tx = pair([-2.0, 0.0, 1.5, math.nan, math.inf], "float32")
    expect_like_torch(lambda: tl.clamp(tx, *bounds), lambda: torch.clamp(x, *bounds))
    lo, hi = [None if v is None else torch.full((5,), float(v)) for v in bounds]
    tlo, thi = [None if v is None else from_torch(v) for v in (lo, hi)]
    expect_like_torch(lambda: tl.clamp(tx, tlo, thi), lambda: torch.clamp(x, lo, hi))


@pytest.mark.parametrize("dtype", ["int64", "int8", "uint8", "bool", "float16"])
def test_clamp_promotion_and_overflow(dtype):
    x, tx = pair([0, 1, 5], dtype)
    for args in [(0.5,), (1, 3), (None, 2.5), (1000,), (-1, None)]:
        expect_like_torch(lambda: tl.clamp(tx, *args), lambda: torch.clamp(x, *args))
    expect_like_torch(lambda: tl.clamp_min(tx, 2.5), lambda: torch.clamp_min(x, 2.5))

    def inplace(lib, t):
        return t.clone().clamp_(0.5, 2)
    expect_like_torch(lambda: inplace(tl, tx), lambda: inplace(torch, x))


def test_clamp_gradient_at_bounds_and_nan():
    vals = [-1.0, 0.0, 0.5, 1.0, 2.0, math.nan]
    for lib, make in ((torch, torch.tensor), (tl, tl.tensor)):
        x = make(vals, dtype=lib.float64, requires_grad=True)
        lib.clamp(x, 0.0, 1.0).sum().backward()
        assert x.grad.tolist() == [0.0, 1.0, 1.0, 1.0, 0.0, 0.0]


# ---------------------------------------------------------------- lerp / addcmul / addcdiv / heaviside

def test_lerp_dtype_rules():
    a, b = torch.ones(3), torch.zeros(3)
    ta, tb = from_torch(a), from_torch(b)
    expect_like_torch(lambda: tl.lerp(ta, tb.double(), 0.5), lambda: torch.lerp(a, b.double(), 0.5))
    expect_like_torch(lambda: tl.lerp(ta, tb, tl.tensor([0.5], dtype=tl.float64)),
                      lambda: torch.lerp(a, b, torch.tensor([0.5], dtype=torch.float64)))
    expect_like_torch(lambda: tl.lerp(ta, tb, tl.tensor(0.25, dtype=tl.float64)),
                      lambda: torch.lerp(a, b, torch.tensor(0.25, dtype=torch.float64)))
    expect_like_torch(lambda: tl.lerp(ta.long(), tb.long(), 0.5), lambda: torch.lerp(a.long(), b.long(), 0.5))
    w = torch.tensor([0.0, 0.49, 0.5, 1.0, 2.0, -1.0])
    a6, b6 = torch.full((6,), 1e8), torch.full((6,), 3.0)
    assert_same(tl.lerp(from_torch(a6), from_torch(b6), from_torch(w)), torch.lerp(a6, b6, w), atol=0, rtol=0)


def test_number_weights_and_values_overflow_like_torch():
    x = torch.ones(2)
    tx = from_torch(x)
    expect_like_torch(lambda: tl.lerp(tx, tx, 1e300), lambda: torch.lerp(x, x, 1e300))
    expect_like_torch(lambda: tl.addcmul(tx, tx, tx, value=1e300), lambda: torch.addcmul(x, x, x, value=1e300))
    expect_like_torch(lambda: tl.clamp(tx, 1e300), lambda: torch.clamp(x, 1e300))
    expect_like_torch(lambda: tl.lerp(tx.double(), tx.double(), 1e300), lambda: torch.lerp(x.double(), x.double(), 1e300))


def test_addcdiv_refuses_integer_division():
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
            lib.addcdiv(lib.ones(2), lib.tensor([1, 2]), lib.tensor([1, 2]))
    expect_like_torch(lambda: tl.addcmul(tl.tensor([1, 2], dtype=tl.int8), tl.tensor([1, 2], dtype=tl.int8),
                                         tl.tensor([1, 2], dtype=tl.int8), value=1000),
                      lambda: torch.addcmul(torch.tensor([1, 2], dtype=torch.int8), torch.tensor([1, 2], dtype=torch.int8),
                                            torch.tensor([1, 2], dtype=torch.int8), value=1000))


def test_heaviside_needs_one_dtype():
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="heaviside is not yet implemented for tensors with different dtypes"):
            lib.heaviside(lib.ones(2), lib.tensor([1, 2]))


# ---------------------------------------------------------------- rsub, true_divide, forms

def test_rsub_has_no_out():
    for lib in (tl, torch):
        with pytest.raises(TypeError):
            lib.rsub(lib.ones(2), lib.ones(2), out=lib.empty(2))


def test_true_divide_inplace_on_integers_refused():
    for lib in (tl, torch):
        with pytest.raises(RuntimeError):
            lib.tensor([1, 2]).true_divide_(lib.tensor([2, 2]))
    assert tl.true_divide(tl.tensor([1, 3]), 2).tolist() == [0.5, 1.5]


@pytest.mark.parametrize("name", ["fmod", "remainder", "copysign", "hypot", "maximum", "minimum", "fmax", "fmin",
                                  "lerp", "addcmul", "addcdiv", "clamp", "clip", "clamp_min", "clamp_max",
                                  "heaviside", "gcd", "lcm", "nextafter", "ldexp", "float_power", "true_divide"])
def test_same_forms_as_torch(name):
    for attr in (name, name + "_"):
        assert hasattr(torch.Tensor, attr) == hasattr(tl.Tensor, attr), attr
    assert hasattr(tl, name)
