"""Unary catalog ops against PyTorch where the generated suites' samples cannot reach: special-value
grids over many inputs (exact, signed zeros included), round(decimals=) over a range of decimals,
nan_to_num's per-dtype defaults, the `+` operator, aliases in every namespace, and error messages."""
import math

import numpy as np
import pytest
import torch

import torchlite as tl
from conftest import FLOAT_DTYPES, from_torch, to_torch

SPECIAL = [0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999997, -0.49999997, 1.0 - 2**-24, 2**23 + 0.5,
           2**52 + 0.5, 1e-40, -1e-40, 1e-310, 3.4e38, -3.4e38, 1e300, math.inf, -math.inf, math.nan, -math.nan,
           65504.0, 65520.0, 1e20, -7.75, 123456.789]


def grid(dtype):
    """The special values plus a spread of ordinary ones, in `dtype` (torch)."""
    rng = np.random.default_rng(0)
    spread = np.concatenate([rng.uniform(-10, 10, 2000), rng.uniform(-1e6, 1e6, 500), np.arange(-20, 20, 0.25)])
    return torch.tensor(SPECIAL + spread.tolist(), dtype=torch.float64).to(getattr(torch, dtype))


def assert_exact(actual, expected):
    """Same dtype, same values bit for bit (nans equal whatever their payload; zeros by sign)."""
    assert str(actual.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    got = to_torch(actual)
    if expected.dtype.is_floating_point:
        torch.testing.assert_close(got, expected, atol=0, rtol=0, equal_nan=True)
        both_zero = (got == 0) & (expected == 0)
        assert torch.equal(torch.signbit(got[both_zero]), torch.signbit(expected[both_zero]))
    else:
        assert torch.equal(got, expected)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("op", ["ceil", "floor", "round", "trunc", "fix", "frac", "sgn", "signbit", "angle",
                                "deg2rad", "rad2deg", "nan_to_num", "square", "abs", "absolute", "neg", "negative"])
def test_special_values_exact(op, dtype):
    x = grid(dtype)
    if op == "signbit" and dtype == "bfloat16":
        # PyTorch's float -> bfloat16 conversion sets the sign bit of every nan (0xffff), so the
        # bits of a nan cannot be carried between the libraries through float32.
        x = x[~x.isnan()]
    assert_exact(getattr(tl, op)(from_torch(x)), getattr(torch, op)(x))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_sinc_grid(dtype):
    # PyTorch computes sin in float for float32: a few ulps apart near the zeros of sin.
    x = grid(dtype)
    got, want = tl.sinc(from_torch(x)), torch.sinc(x)
    torch.testing.assert_close(to_torch(got).double(), want.double(), atol=1e-6, rtol=1e-5 if dtype != "float16" else 1e-2,
                               equal_nan=True)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("decimals", [-40, -3, -1, 1, 2, 3, 7, 20, 40, 400])
def test_round_decimals_grid(dtype, decimals):
    x = grid(dtype)
    assert_exact(tl.round(from_torch(x), decimals=decimals), torch.round(x, decimals=decimals))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64"] + FLOAT_DTYPES)
def test_nan_to_num_defaults_and_values(dtype):
    x = torch.tensor([1.0, math.nan, math.inf, -math.inf, -0.0, 2.0]).to(getattr(torch, dtype))
    assert_exact(tl.nan_to_num(from_torch(x)), torch.nan_to_num(x))
    for kw in ({"nan": 7.5}, {"posinf": 1e10}, {"neginf": -1e300}, {"nan": -1.0, "posinf": 2.0, "neginf": -3.0}):
        assert_exact(tl.nan_to_num(from_torch(x), **kw), torch.nan_to_num(x, **kw))


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_integer_extremes(dtype):
    info = torch.iinfo(getattr(torch, dtype))
    x = torch.tensor([info.min, info.min + 1, -1, 0, 1, info.max], dtype=torch.int64).to(getattr(torch, dtype))
    for op in ["ceil", "floor", "round", "trunc", "fix", "sgn", "signbit", "abs", "neg", "negative", "square"]:
        assert_exact(getattr(tl, op)(from_torch(x)), getattr(torch, op)(x))
    for op in ["sinc", "deg2rad", "rad2deg", "angle"]:
        got, want = getattr(tl, op)(from_torch(x)), getattr(torch, op)(x)
        torch.testing.assert_close(to_torch(got), want, equal_nan=True)


def test_positive_is_self_and_operator():
    x = tl.tensor([1.0, -2.0])
    assert tl.positive(x) is x and x.positive() is x and (+x) is x
    for f in (lambda t: +t, tl.positive, lambda t: t.positive()):
        with pytest.raises(RuntimeError, match=r"positive: The `\+` operator, on a bool tensor is not supported"):
            f(tl.tensor([True]))
    with pytest.raises(RuntimeError):
        +torch.tensor([True])


ALIASES = {"absolute": "abs", "negative": "neg", "fix": "trunc", "arcsin": "asin", "arccos": "acos", "arctan": "atan",
           "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh"}


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_alias_namespaces_match_torch(alias):
    # The same function / method / in-place names as PyTorch (torch.absolute_ does not exist).
    for name in (alias, alias + "_"):
        assert hasattr(tl, name) == hasattr(torch, name), name
        assert hasattr(tl.Tensor, name) == hasattr(torch.Tensor, name), name
    x = torch.tensor([[0.25, -0.5], [0.75, 1.5]]) + (1.0 if alias == "arccosh" else 0.0)
    want = getattr(tl, ALIASES[alias])(from_torch(x))  # exactly the aliased op
    assert_exact(getattr(tl, alias)(from_torch(x)), to_torch(want))
    torch.testing.assert_close(to_torch(want), getattr(torch, alias)(x), equal_nan=True)
    t = from_torch(x)
    assert getattr(t, alias + "_")() is t
    assert_exact(t, to_torch(want))


@pytest.mark.parametrize("op", ["arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "sinc", "deg2rad",
                                "rad2deg"])
def test_float_ops_in_place_refuse_integers(op):
    with pytest.raises(RuntimeError, match=f"{op}: result type Float can't be cast to the desired output type Long"
                       if op in ("sinc", "deg2rad", "rad2deg") else "result type Float can't be cast"):
        getattr(tl.tensor([1, 2]), op + "_")()
    with pytest.raises(RuntimeError):
        getattr(torch.tensor([1, 2]), op + "_")()


def test_errors_name_the_op():
    x = tl.tensor([1.5, -2.5])
    with pytest.raises(RuntimeError, match="signbit: signbit does not support non-boolean outputs"):
        tl.signbit(x, out=tl.empty(2))
    with pytest.raises(RuntimeError, match="nan_to_num: dtype of out: Double should be same as input: Float"):
        tl.nan_to_num(x, out=tl.empty(2, dtype=tl.float64))
    with pytest.raises(RuntimeError, match="ceil: Found dtype Double but expected Float"):
        tl.ceil(x, out=tl.empty(2, dtype=tl.float64))
    for op, kernel in [("ceil", "ceil_vml_cpu"), ("floor", "floor_vml_cpu"), ("round", "round_vml_cpu"),
                       ("trunc", "trunc_vml_cpu"), ("frac", "frac_cpu")]:
        with pytest.raises(NotImplementedError, match=f"{op}: \"{kernel}\" not implemented for 'Bool'"):
            getattr(tl, op)(tl.tensor([True]))
    with pytest.raises(NotImplementedError, match="round: \"round_cpu\" not implemented for 'Long'"):
        tl.round(tl.tensor([1, 2]), decimals=1)
    with pytest.raises(NotImplementedError, match="round: \"round_vml_cpu\" not implemented for 'Long'"):
        tl.round(tl.tensor([1, 2]), decimals=0)


def test_gradient_node_names():
    x = tl.tensor([0.5, -1.5], requires_grad=True)
    assert type(tl.sgn(x).grad_fn).__name__ == "SgnBackward0"
    assert type(tl.round(x).grad_fn).__name__ == "RoundBackward0"
    assert type(tl.round(x, decimals=1).grad_fn).__name__ == "RoundBackward1"
    assert type(tl.square(x).grad_fn).__name__ == type(tl.pow(x, 2).grad_fn).__name__
    assert type(tl.arcsin(x).grad_fn).__name__ == "AsinBackward0"
    assert type(tl.absolute(x).grad_fn).__name__ == "AbsBackward0"
    assert type(tl.fix(x).grad_fn).__name__ == "TruncBackward0"
