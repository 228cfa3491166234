"""Vectorized transcendental math: accuracy in ulps against a (nearly) correctly rounded reference,
special values and dtypes against PyTorch, gradients where they need care.

References: float32 results against NumPy's float64 functions (rounding a float64 result that is
within 1 ulp of float64 to float32 is the correctly rounded float32 except in rare near-halfway
cases, which the 1-ulp bound absorbs); float64 results against NumPy's long double (x87, 64-bit
mantissa) functions. The bounds asserted here are the ones docs/vecmath.md states.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import torch

import torchlite as tl

LD = np.longdouble


def _mp_ref(mp_f, math_f):
    """A reference for functions NumPy lacks: math's (libm, < 1 ulp of float64) for float64
    arrays, mpmath's rounded to long double for long double arrays."""
    def ref(x):
        if x.dtype != LD:
            return np.frompyfunc(math_f, 1, 1)(x.astype(np.float64)).astype(np.float64)
        out = np.empty(x.shape, dtype=LD)
        for i, v in enumerate(x.astype(np.float64).ravel()):
            if not 0 < abs(v) <= 30:  # signed zeros, nan, inf, and where erf is ±1 / erfc 0 or 2
                out.flat[i] = LD(math_f(v)) if not math.isnan(v) else LD(v)
                continue
            r = mp_f(mpmath.mpf(float(v)))
            hi = float(r)
            out.flat[i] = LD(hi) + LD(float(r - hi))
        return out
    return ref


mpmath.mp.dps = 40

# name -> (domain of the random inputs, f64 ulp bound, numpy reference)
UNARY = {
    "exp": ("exp", 1.0, np.exp),
    "exp2": ("exp2", 1.0, np.exp2),
    "expm1": ("exp", 1.5, np.expm1),
    "log": ("pos", 1.0, np.log),
    "log2": ("pos", 1.0, np.log2),
    "log10": ("pos", 1.0, np.log10),
    "log1p": ("pos", 1.0, np.log1p),
    "sqrt": ("pos", 0.5, np.sqrt),
    "rsqrt": ("pos", 1.5, lambda x: 1 / np.sqrt(x)),
    "sin": ("trig", 1.0, np.sin),
    "cos": ("trig", 1.0, np.cos),
    "tan": ("trig", 2.0, np.tan),
    "asin": ("unit", 2.5, np.arcsin),
    "acos": ("unit", 2.0, np.arccos),
    "atan": ("wide", 1.0, np.arctan),
    "sinh": ("hyp", 1.0, np.sinh),
    "cosh": ("hyp", 1.5, np.cosh),
    "tanh": ("hyp", 1.0, np.tanh),
    "asinh": ("wide", 2.0, np.arcsinh),
    "acosh": ("above1", 2.0, np.arccosh),
    "atanh": ("unit", 2.0, np.arctanh),
    "sigmoid": ("hyp", 1.0, lambda x: 1 / (1 + np.exp(-x))),
    "erf": ("erf", 1.0, _mp_ref(mpmath.erf, math.erf)),
    "erfc": ("erf", 3.5, _mp_ref(mpmath.erfc, math.erfc)),
}
N = 200_000


def inputs(domain: str, n: int, seed: int = 0) -> np.ndarray:
    """float64 inputs spread over the function's interesting range (log-uniform magnitudes)."""
    rng = np.random.default_rng(seed)
    sign = rng.choice([-1.0, 1.0], n)

    def logu(lo, hi):
        return np.exp(rng.uniform(np.log(lo), np.log(hi), n))

    if domain == "exp":
        return np.concatenate([rng.uniform(-740, 705, n // 2), sign[: n // 2] * logu(1e-12, 2)[: n // 2]])
    if domain == "exp2":
        return np.concatenate([rng.uniform(-1070, 1020, n // 2), sign[: n // 2] * logu(1e-12, 2)[: n // 2]])
    if domain == "pos":
        return np.concatenate([logu(1e-300, 1e300)[: n // 2], rng.uniform(0.25, 4, n // 2)])
    if domain == "trig":
        return sign * logu(1e-8, 1e5)
    if domain == "unit":
        return rng.uniform(-1, 1, n)
    if domain == "wide":
        return sign * logu(1e-300, 1e300)
    if domain == "hyp":
        return np.concatenate([rng.uniform(-30, 30, n // 2), sign[: n // 2] * logu(1e-10, 700)[: n // 2]])
    if domain == "erf":  # erfc underflows beyond 27.3 (float32: 10.1)
        return np.concatenate([rng.uniform(-6, 28, n // 2), sign[: n // 2] * logu(1e-300, 30)[: n // 2]])
    if domain == "above1":
        return np.concatenate([1 + logu(1e-12, 10)[: n // 2], logu(1, 1e300)[: n // 2]])
    raise ValueError(domain)


def ulps(got: np.ndarray, ref: np.ndarray, dtype) -> np.ndarray:
    """|got - ref| in units of the last place of ref rounded to dtype (subnormal ulp below)."""
    info = np.finfo(dtype)
    ref_r = ref.astype(dtype)
    exp = np.frexp(np.abs(ref_r).astype(np.float64))[1]
    ulp = np.ldexp(1.0, np.maximum(exp - info.nmant - 1, info.minexp - info.nmant).astype(np.int64))
    # the quotient in long double: a difference below float64's subnormal range must not round
    rel = (np.abs(got.astype(LD) - ref.astype(LD)) / ulp.astype(LD)).astype(np.float64)
    both_inf = np.isinf(got) & np.isinf(ref_r) & (np.sign(got) == np.sign(ref_r))
    nan_ok = np.isnan(got) & np.isnan(ref_r)
    err = np.where(both_inf | nan_ok, 0.0, rel)
    return np.where(np.isnan(err), np.inf, err)


def run_tl(name, *arrays):
    return getattr(tl, name)(*(tl.from_numpy(np.ascontiguousarray(a)) for a in arrays)).numpy()


@pytest.mark.parametrize("name", sorted(UNARY))
def test_float32_within_one_ulp(name):
    domain, _, ref = UNARY[name]
    x64 = inputs(domain, N)
    with np.errstate(all="ignore"):
        x = x64.astype(np.float32)
        x = x[np.isfinite(x)]
        want = ref(x.astype(np.float64))
        keep = np.isfinite(want.astype(np.float32)) | ~np.isfinite(want)
        x, want = x[keep], want[keep]
    got = run_tl(name, x)
    err = ulps(got, want, np.float32)
    assert err.max() <= 1.0, (name, x[err.argmax()], got[err.argmax()], want[err.argmax()])


@pytest.mark.parametrize("name", sorted(UNARY))
def test_float64_ulp_bound(name):
    domain, bound, ref = UNARY[name]
    x = inputs(domain, N, seed=1)
    with np.errstate(all="ignore"):
        want = ref(x.astype(LD))
    got = run_tl(name, x)
    err = ulps(got, want, np.float64)
    assert err.max() <= bound, (name, x[err.argmax()], got[err.argmax()], want[err.argmax()], err.max())


def test_atan2_ulp_bound():
    rng = np.random.default_rng(2)
    y = rng.choice([-1, 1], N) * np.exp(rng.uniform(-30, 30, N))
    x = rng.choice([-1, 1], N) * np.exp(rng.uniform(-30, 30, N))
    got = run_tl("atan2", y, x)
    assert ulps(got, np.arctan2(y.astype(LD), x.astype(LD)), np.float64).max() <= 1.5
    got32 = run_tl("atan2", y.astype(np.float32), x.astype(np.float32))
    want32 = np.arctan2(y.astype(np.float32).astype(np.float64), x.astype(np.float32).astype(np.float64))
    assert ulps(got32, want32, np.float32).max() <= 1.0


@pytest.mark.parametrize("name,base", [("logaddexp", math.e), ("logaddexp2", 2.0)])
def test_logaddexp_accuracy(name, base):
    # Bound in ulps of the larger argument (the result is max + a term in [0, 1]; near a result
    # of 0 the cancellation is the function's own conditioning).
    rng = np.random.default_rng(3)
    a, b = rng.uniform(-50, 50, N), rng.uniform(-50, 50, N)
    ref = np.logaddexp if name == "logaddexp" else np.logaddexp2
    want = ref(a.astype(LD), b.astype(LD))
    got = run_tl(name, a, b)
    scale = np.maximum(np.maximum(np.abs(a), np.abs(b)), np.abs(want.astype(np.float64)))
    err = np.abs(got.astype(LD) - want).astype(np.float64) / (np.spacing(scale))
    assert err.max() <= 2.0
    got32 = run_tl(name, a.astype(np.float32), b.astype(np.float32))
    want32 = ref(a.astype(np.float32).astype(np.float64), b.astype(np.float32).astype(np.float64))
    assert ulps(got32, want32, np.float32).max() <= 1.0


def test_pow_float32_within_one_ulp():
    rng = np.random.default_rng(4)
    x = np.exp(rng.uniform(-20, 20, N)).astype(np.float32)
    y = rng.uniform(-4, 4, N).astype(np.float32)
    with np.errstate(all="ignore"):
        want = np.power(x.astype(np.float64), y.astype(np.float64))
    assert ulps(run_tl("pow", x, y), want, np.float32).max() <= 1.0
    # negative bases with integer exponents, and scalar exponents
    xn = -x[:1000]
    yi = np.round(y[:1000])
    assert ulps(run_tl("pow", xn, yi), np.power(xn.astype(np.float64), yi.astype(np.float64)), np.float32).max() <= 1.0
    for e in [2.5, 7, -3, 1 / 3]:
        got = tl.pow(tl.from_numpy(x), e).numpy()
        with np.errstate(all="ignore"):
            want = np.power(x.astype(np.float64), e)
        assert ulps(got, want, np.float32).max() <= 1.0, e


def test_pow_float64_within_one_ulp():
    rng = np.random.default_rng(8)
    n = N // 4
    x = np.exp(rng.uniform(-700, 700, n))  # any base, |y log x| up to 745 (subnormal results)
    y = rng.uniform(-1, 1, n) * 745 / np.abs(np.log(x))
    near1 = 1 + rng.uniform(-1e-6, 1e-6, n)  # log x tiny, huge exponents
    wide = np.exp(rng.uniform(-740, 709, n))
    x = np.concatenate([x, near1, wide, 0.5 + 1.5 * rng.random(n)])
    y = np.concatenate([y, rng.uniform(-7e8, 7e8, n), rng.uniform(-1, 1, n) * 700 / np.abs(np.log(wide)),
                        rng.uniform(-60, 60, n)])
    with np.errstate(all="ignore"):
        want = np.power(x.astype(LD), y.astype(LD))
    got = run_tl("pow", x, y)
    err = ulps(got, want, np.float64)
    assert err.max() <= 1.0, (x[err.argmax()], y[err.argmax()], err.max())
    # negative bases: integer exponents (up to 2^53, odd ones negate) and non-integers (nan)
    xn = -np.exp(rng.uniform(-10, 10, 2000))
    yi = np.round(rng.uniform(-60, 60, 2000))
    with np.errstate(all="ignore"):
        assert ulps(run_tl("pow", xn, yi), np.power(xn.astype(LD), yi.astype(LD)), np.float64).max() <= 1.0
    big = np.array([2.0**52 + 1, 2.0**52 + 2, 2.0**53 - 1, 2.0**53, 2.0**51 + 1, 2.0**60, 0.5, 3.5, -(2.0**52 + 1), 1e300])
    base = np.full(big.shape, -1.0)
    with np.errstate(all="ignore"):
        want = torch.pow(torch.from_numpy(base), torch.from_numpy(big)).numpy()
    np.testing.assert_array_equal(run_tl("pow", base, big), want)
    # integer-valued results are exact; scalar exponents and scalar bases take the same function
    ints = np.arange(-12.0, 13.0)
    e = np.arange(0.0, 15.0)
    a, b = np.meshgrid(ints, e)
    np.testing.assert_array_equal(run_tl("pow", a.ravel(), b.ravel()), np.power(a.ravel(), b.ravel()))
    xs = np.exp(rng.uniform(-30, 30, 5000))
    for ex in [2.5, 7, -3, 1 / 3, 1e-320, -700.5]:
        with np.errstate(all="ignore"):
            want = np.power(xs.astype(LD), LD(ex))
        assert ulps(tl.pow(tl.from_numpy(xs), ex).numpy(), want, np.float64).max() <= 1.0, ex
    for bs in [2.0, 0.3, -2.0, 10.0]:
        ye = np.concatenate([rng.uniform(-300, 300, 2000), np.round(rng.uniform(-300, 300, 2000))])
        with np.errstate(all="ignore"):
            want = np.power(LD(bs), ye.astype(LD))
        assert ulps(tl.pow(bs, tl.from_numpy(ye)).numpy(), want, np.float64).max() <= 1.0, bs


def test_pow_float64_special_grid_matches_torch():
    vals = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 2.5, -2.5, 1e-310,
                     -1e-310, 5e-324, 1e308, -1e308, 1e-300, 2.0**52 + 1, -(2.0**53), 1024.0, -1075.0, 0.9999999999999999])
    a, b = np.meshgrid(vals, vals)
    a, b = a.ravel(), b.ravel()
    with np.errstate(all="ignore"):
        want = torch.pow(torch.from_numpy(a), torch.from_numpy(b)).numpy()
        ref = np.power(a.astype(LD), b.astype(LD))
    got = run_tl("pow", a, b)
    assert_special(got, ref, want, np.float64, 1.0)
    # the same inputs in one block with ordinary ones (the libm block path) and alone
    mixed_a = np.concatenate([a, np.full(300, 1.7)])
    mixed_b = np.concatenate([b, np.full(300, 2.9)])
    np.testing.assert_array_equal(run_tl("pow", mixed_a, mixed_b)[: a.size], got)


SPECIAL32 = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1.1754944e-38, 3.4e38, -3.4e38, 1.0, -1.0,
                      0.5, -0.5, 1e-20, -1e-20, 88.7, 89.5, -87.3, -104.0, 30.0, -30.0, 1e6, 1e10, -1e20, 3.1415927,
                      1.5707964, 2.0, 0.9999999, -0.9999999], dtype=np.float32)
SPECIAL64 = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7e308, -1.7e308,
                      1.0, -1.0, 0.5, -0.5, 1e-300, -1e-300, 709.7, 710.4, 711.0, -745.0, 1e6, 1e15, 1e300, -1e22,
                      math.pi, math.pi / 2, 22.0, 0.9999999999999999, -0.9999999999999999], dtype=np.float64)


def assert_special(got, ref, torch_result, dtype, max_ulps):
    """nan where PyTorch gives nan; infinities, signed zeros and finite values as the reference."""
    assert np.array_equal(np.isnan(got), np.isnan(torch_result)), (got, torch_result)
    ref_r = ref.astype(dtype)
    fin = ~np.isnan(ref_r)
    assert np.array_equal(np.isnan(got), ~fin), (got, ref_r)
    g, w = got[fin], ref_r[fin]
    inf = np.isinf(w) | np.isinf(g)
    assert np.array_equal(g[inf], w[inf]), (g[inf], w[inf])
    zero = w == 0
    assert np.array_equal(np.signbit(g[zero]), np.signbit(w[zero])), (g[zero], w[zero])
    finite = ~inf
    assert (ulps(g[finite], ref[fin][finite], dtype) <= max_ulps).all(), (g[finite], w[finite])


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values(name, dtype):
    x = SPECIAL32 if dtype == np.float32 else SPECIAL64
    with np.errstate(all="ignore"):
        got = run_tl(name, x)
        ref = UNARY[name][2](x.astype(np.float64 if dtype == np.float32 else LD))
        want = getattr(torch, name)(torch.from_numpy(x)).numpy()
    assert got.dtype == dtype
    assert_special(got, ref, want, dtype, 1.0 if dtype == np.float32 else UNARY[name][1])


BINARY_REF = {"atan2": np.arctan2, "logaddexp": np.logaddexp, "logaddexp2": np.logaddexp2, "pow": np.power}


@pytest.mark.parametrize("name", sorted(BINARY_REF))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_binary_special_values(name, dtype):
    vals = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.5, -3.0, 1e-40, 0.5], dtype=dtype)
    a, b = np.meshgrid(vals, vals)
    a, b = a.ravel(), b.ravel()
    with np.errstate(all="ignore"):
        got = run_tl(name, a, b)
        wide = np.float64 if dtype == np.float32 else LD
        ref = BINARY_REF[name](a.astype(wide), b.astype(wide))
        want = getattr(torch, name)(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    assert_special(got, ref, want, dtype, 1.5)


@pytest.mark.parametrize("name", sorted(UNARY) + ["atan2", "logaddexp", "logaddexp2"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_reduced_precision_matches_torch(name, dtype):
    rng = np.random.default_rng(5)
    domain = UNARY[name][0] if name in UNARY else "hyp"
    x = torch.from_numpy(inputs(domain, 2000, seed=5)).to(getattr(torch, dtype))
    args = [x] if name in UNARY else [x, torch.from_numpy(rng.uniform(-5, 5, 2000)).to(getattr(torch, dtype))]
    want = getattr(torch, name)(*args)
    if name in ("erf", "erfc"):  # PyTorch's half erf is off for tiny x (erf(1.8e-7) = 0): its float32, rounded
        want = getattr(torch, name)(*(a.float() for a in args)).to(x.dtype)
    got = getattr(tl, name)(*(tl.from_numpy(a.float().numpy()).to(getattr(tl, dtype)) for a in args))
    assert str(got.dtype) == f"torchlite.{dtype}"
    g, w = got.float().numpy(), want.float().numpy()
    # computed in float32 (torch) or double (torchlite) and rounded once: at most 1 ulp apart
    spacing = np.abs(np.spacing(w.astype(np.float16 if dtype == "float16" else np.float32)).astype(np.float64))
    if dtype == "bfloat16":
        spacing = spacing * 2 ** 16
    fin = np.isfinite(w) & np.isfinite(g)
    assert np.array_equal(np.isnan(g), np.isnan(w))
    assert (np.abs(g[fin] - w[fin]) <= spacing[fin] * 1.01).all()


@pytest.mark.parametrize("name", sorted(UNARY))
def test_integer_inputs_give_default_float(name):
    x = np.array([0, 1, 2, 3], dtype=np.int64)
    with np.errstate(all="ignore"):
        got = getattr(tl, name)(tl.from_numpy(x))
        want = getattr(torch, name)(torch.from_numpy(x))
    assert str(got.dtype) == str(want.dtype).replace("torch", "torchlite")
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, equal_nan=True)
    b = getattr(tl, name)(tl.tensor([True, False]))
    assert str(b.dtype) == "torchlite.float32"


def test_atan2_integer_and_logaddexp_refuses_integers():
    assert str(tl.atan2(tl.tensor([1, 2]), tl.tensor([3, 4])).dtype) == "torchlite.float32"
    for name in ["logaddexp", "logaddexp2"]:
        with pytest.raises(RuntimeError, match=f"{name}_cpu\" not implemented for 'Long'"):
            getattr(tl, name)(tl.tensor([1, 2]), tl.tensor([3, 4]))


@pytest.mark.parametrize("name", ["sin", "exp2", "log1p", "tanh", "atan", "erf", "erfc"])
def test_layouts_inplace_and_out(name):
    x_np = np.random.default_rng(6).uniform(0.1, 2, (37, 53)).astype(np.float32)
    want = getattr(torch, name)(torch.from_numpy(x_np).t()).numpy()
    x = tl.from_numpy(x_np.copy())
    np.testing.assert_array_equal(getattr(tl, name)(x.t()).numpy(), getattr(tl, name)(x).t().numpy())
    np.testing.assert_allclose(getattr(tl, name)(x.t()).numpy(), want, rtol=3e-7)
    sliced = getattr(tl, name)(x[:, ::3]).numpy()
    np.testing.assert_array_equal(sliced, getattr(tl, name)(x).numpy()[:, ::3])
    out = tl.empty(0)
    getattr(tl, name)(x, out=out)
    np.testing.assert_array_equal(out.numpy(), getattr(tl, name)(x).numpy())
    y = x.clone()
    getattr(y, name + "_")()
    np.testing.assert_array_equal(y.numpy(), getattr(tl, name)(x).numpy())
    m = getattr(tl, name)(tl.empty(4, 5, device="meta"))
    assert m.shape == (4, 5) and str(m.device) == "meta"


def test_trig_huge_arguments_use_exact_reduction():
    x = np.array([1e6, 1e7, 3e8, 1e22, 1e300, -2.5e15, 1048576.5], dtype=np.float64)
    for name in ["sin", "cos", "tan"]:
        got = run_tl(name, x)
        want = getattr(np, name)(x.astype(LD))
        assert ulps(got, want, np.float64).max() <= 1.0
    # a block mixing huge and ordinary arguments
    mix = np.tile(np.array([0.5, 1e20, -3.0], dtype=np.float32), 700)
    np.testing.assert_allclose(run_tl("sin", mix), np.sin(mix.astype(np.float64)).astype(np.float32), rtol=1.2e-7)


def test_pow_python_float_exponent_is_not_rounded_to_the_dtype():
    # issue 7: 1e-320 must not become 0 (0 ** 0 == 1); PyTorch gives 0.
    assert tl.pow(tl.tensor(0.0), 1e-320).item() == 0.0
    assert (tl.pow(tl.zeros(1000), 1e-320).numpy() == 0).all()
    np.testing.assert_array_equal(tl.pow(tl.tensor([4.0, 2.0]), 1e-320).numpy(), [1.0, 1.0])
    assert torch.pow(torch.tensor(0.0), 1e-320).item() == 0.0


def test_pow_fast_paths_and_integer_semantics():
    x_np = np.random.default_rng(7).uniform(-3, 3, 1000).astype(np.float32)
    for e in [2, 3, 0.5, -0.5, -1, -2, 4, -3, 2.5]:
        with np.errstate(all="ignore"):
            got = tl.pow(tl.from_numpy(x_np), e).numpy()
            want = torch.pow(torch.from_numpy(x_np), e).numpy()
        np.testing.assert_allclose(got, want, rtol=3e-7, atol=0, equal_nan=True)
    i = tl.tensor([2, -3, 5])
    assert tl.pow(i, 3).tolist() == [8, -27, 125] and str(tl.pow(i, 3).dtype) == "torchlite.int64"
    assert tl.pow(i, tl.tensor([3, 2, 0])).tolist() == [8, 9, 1]


def grad_of(lib, name, *values, dtype="float64"):
    ts = [lib.tensor(v, dtype=getattr(lib, dtype), requires_grad=True) for v in values]
    getattr(lib, name)(*ts).sum().backward()
    return [t.grad.float().numpy() if dtype != "float64" else t.grad.numpy() for t in ts]


def test_atan2_gradient_at_origin_is_zero():
    for g, w in zip(grad_of(tl, "atan2", [0.0, 0.0, 1.0], [0.0, 1.0, 1.0]),
                    grad_of(torch, "atan2", [0.0, 0.0, 1.0], [0.0, 1.0, 1.0])):
        np.testing.assert_array_equal(g, w)


def test_sinh_cosh_gradients_do_not_overflow_early():
    # sinh(89) and cosh(89) are finite in float32, so their gradients must be too.
    g = grad_of(tl, "sinh", [89.0, -89.0], dtype="float32")[0]
    w = grad_of(torch, "sinh", [89.0, -89.0], dtype="float32")[0]
    assert np.isfinite(g).all()
    np.testing.assert_allclose(g, w, rtol=2e-7)
    np.testing.assert_allclose(grad_of(tl, "cosh", [89.0, -89.0], dtype="float32")[0],
                               grad_of(torch, "cosh", [89.0, -89.0], dtype="float32")[0], rtol=2e-7)


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
def test_logaddexp_ties(name):
    a = [1.0, np.inf, -np.inf, 3.0]
    b = [1.0, np.inf, -np.inf, -np.inf]
    got = getattr(tl, name)(tl.tensor(a), tl.tensor(b)).numpy()
    want = getattr(torch, name)(torch.tensor(a), torch.tensor(b)).numpy()
    np.testing.assert_array_equal(got, want)
    # The gradient at a tie is exactly 1/2 to each side, equal infinities included (where
    # PyTorch's formula gives nan); elsewhere it matches PyTorch.
    ga, gb = grad_of(tl, name, a, b)
    np.testing.assert_array_equal(ga, [0.5, 0.5, 0.5, 1.0])
    np.testing.assert_array_equal(gb, [0.5, 0.5, 0.5, 0.0])
    for g, w in zip(grad_of(tl, name, [0.5, -2.0], [1.5, 7.0]), grad_of(torch, name, [0.5, -2.0], [1.5, 7.0])):
        np.testing.assert_allclose(g, w, rtol=1e-15)


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
def test_logaddexp_half_precision(name):
    a = torch.tensor([10.0, -3.0, 0.125, 60000.0], dtype=torch.half)
    b = torch.tensor([10.5, 4.0, 0.125, 59000.0], dtype=torch.half)
    got = getattr(tl, name)(tl.from_numpy(a.float().numpy()).half(), tl.from_numpy(b.float().numpy()).half())
    exact = getattr(np, name)(a.double().numpy(), b.double().numpy())
    np.testing.assert_array_equal(got.float().numpy(), exact.astype(np.float16).astype(np.float32))
    ga, gb = grad_of(tl, name, a.tolist(), b.tolist(), dtype="float16")
    w = grad_of(torch, name, a.tolist(), b.tolist(), dtype="float32")
    np.testing.assert_allclose(ga, w[0], atol=1e-3)
    np.testing.assert_allclose(gb, w[1], atol=1e-3)


@pytest.mark.parametrize("name", ["tanh", "sigmoid"])
def test_backward_from_result_matches_torch(name):
    v = [-3.0, -0.5, 0.0, 0.25, 4.0]
    # 1 - y^2 from the result y magnifies y's last-bit differences from PyTorch's result
    np.testing.assert_allclose(grad_of(tl, name, v)[0], grad_of(torch, name, v)[0], rtol=1e-12)
    g = tl.tensor([1.0, 2.0, 3.0])
    y = tl.tensor([0.5, -0.25, 0.9])
    want = getattr(torch.ops.aten, name + "_backward")(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([0.5, -0.25, 0.9]))
    np.testing.assert_allclose(getattr(tl._C._internal, name + "_backward")(g, y).numpy(), want.numpy(), rtol=1e-7)
