"""Complex pointwise math against PyTorch: exp/log families, sqrt/rsqrt/reciprocal, trigonometric and
hyperbolic functions and their inverses, sigmoid, square, true division and pow (tensor/scalar both ways).
Values on a grid of special and extreme numbers (zeros of both signs, infinities, nan, values near overflow
and underflow, the branch cuts), layouts, 0-d/empty, promotion with real tensors and Python numbers, in-place
and out= forms, errors, and gradients of real losses (PyTorch's convention: grad * conj(f'(z))).
The generated suite (`dtypes: [..., complex]` in native_functions.yaml) runs the YAML samples as well."""
import numpy as np
import pytest
import torch

import torchlite as tl

RNG = np.random.default_rng(0)
inf, nan = float("inf"), float("nan")

# Parts of the special-value grid: signed zeros, ones, infinities, nan, near the overflow and underflow
# thresholds of both dtypes, subnormals, and points on/near the branch cuts (|x| = 1, x < -1).
PARTS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 1e-300, 1e300, 3e38, 1e-38, 1e-310, 700.0, -700.0, 89.0,
         0.9999999, 1.0000001, inf, -inf, nan]
SPECIAL = np.array([complex(a, b) for a in PARTS for b in PARTS])

UNARY = ["exp", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tan",
         "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "square", "sinc"]
DTYPES = ["complex64", "complex128"]


def cdata(*shape, dtype="complex128", scale=1.5):
    return (scale * (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape))).astype(dtype)


def check(got, want, dtype=None):
    """Same dtype, shape and values (nan where torch has nan, infinities of the same sign; finite values
    to a few ulps of the dtype, relative to the element's magnitude)."""
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    g, w = got.numpy(), want.resolve_conj().numpy()
    if not np.iscomplexobj(w):
        np.testing.assert_allclose(g, w, rtol=1e-5 if w.dtype == np.float32 else 1e-12, equal_nan=True)
        return
    for part in ("real", "imag"):
        gp, wp = getattr(g, part), getattr(w, part)
        assert np.array_equal(np.isnan(gp), np.isnan(wp)), (part, g[np.isnan(gp) != np.isnan(wp)],
                                                             w[np.isnan(gp) != np.isnan(wp)])
        inf_sign = lambda v: np.where(np.isinf(v), np.sign(np.nan_to_num(v)), 0)  # noqa: E731
        assert np.array_equal(inf_sign(gp), inf_sign(wp)), (part, g[inf_sign(gp) != inf_sign(wp)],
                                                            w[inf_sign(gp) != inf_sign(wp)])
    fin = np.isfinite(w)
    tiny = np.finfo(w.dtype).tiny
    rtol = 2e-6 if w.dtype == np.complex64 else 1e-13
    err = np.abs(g[fin] - w[fin])
    bound = rtol * np.maximum(np.abs(w[fin]), tiny / rtol) + 4 * tiny
    assert np.all(err <= bound), list(zip(g[fin][err > bound][:4], w[fin][err > bound][:4]))


def fn(lib, name):
    return getattr(lib, name)


# ---------------------------------------------------------------- unary ops: values

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", UNARY)
def test_unary_special_values_like_torch(name, dtype):
    with np.errstate(all="ignore"):
        a = SPECIAL.astype(dtype)
    check(fn(tl, name)(tl.tensor(a)), fn(torch, name)(torch.tensor(a)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", UNARY)
def test_unary_random_values_layouts_and_shapes(name, dtype):
    a = cdata(6, 5, dtype=dtype)
    x, t = tl.tensor(a), torch.tensor(a)
    check(fn(tl, name)(x), fn(torch, name)(t))
    check(fn(tl, name)(x.t()), fn(torch, name)(t.t()))          # transposed
    check(fn(tl, name)(x[::2, 1::2]), fn(torch, name)(t[::2, 1::2]))  # sliced
    check(fn(tl, name)(x[:1].expand(6, 5)), fn(torch, name)(t[:1].expand(6, 5)))  # broadcast rows
    check(fn(tl, name)(x[2, 3]), fn(torch, name)(t[2, 3]))      # 0-d
    check(fn(tl, name)(x[:0]), fn(torch, name)(t[:0]))          # empty
    # method form
    check(getattr(x, name)(), getattr(t, name)())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", [n for n in UNARY if n != "square"])
def test_unary_inplace_and_out(name, dtype):
    a = cdata(4, 3, dtype=dtype)
    x, t = tl.tensor(a), torch.tensor(a)
    r, s = getattr(x, name + "_")(), getattr(t, name + "_")()
    assert r is x
    check(x, t)
    # in place into a non-contiguous view writes through to the base
    x, t = tl.tensor(a), torch.tensor(a)
    getattr(x.t()[1:], name + "_")()
    getattr(t.t()[1:], name + "_")()
    check(x, t)
    # out= of the complex dtype; a real out= raises as PyTorch
    x, t = tl.tensor(a), torch.tensor(a)
    o, p = tl.empty(0, dtype=getattr(tl, dtype)), torch.empty(0, dtype=getattr(torch, dtype))
    assert fn(tl, name)(x, out=o) is o
    fn(torch, name)(t, out=p)
    check(o, p)
    with pytest.raises(RuntimeError, match="can't be cast"):
        fn(torch, name)(t, out=torch.empty(0))
    with pytest.raises(RuntimeError, match="can't be cast"):
        fn(tl, name)(x, out=tl.empty(0))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kwargs", [{}, {"nan": 1.5, "posinf": 2.0, "neginf": -3.0}])
def test_nan_to_num_each_part_like_torch(dtype, kwargs):
    with np.errstate(all="ignore"):
        a = SPECIAL.astype(dtype)
    check(tl.nan_to_num(tl.tensor(a), **kwargs), torch.nan_to_num(torch.tensor(a), **kwargs))
    x, tx = tl.tensor(a), torch.tensor(a)
    x.nan_to_num_(**kwargs)
    tx.nan_to_num_(**kwargs)
    check(x, tx)


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
def test_logical_ops_of_complex_like_torch(name):
    # true when either part is nonzero (nan included), mixed with real and complex64 operands
    a = SPECIAL.astype("complex128")
    b = np.roll(a, 7)
    for x, y in ((a, b), (a, b.real.copy()), (a.astype("complex64"), b)):
        got = getattr(tl, name)(tl.tensor(x), tl.tensor(y))
        assert np.array_equal(got.numpy(), getattr(torch, name)(torch.tensor(x), torch.tensor(y)).numpy())
    assert np.array_equal(tl.logical_not(tl.tensor(a)).numpy(), torch.logical_not(torch.tensor(a)).numpy())


@pytest.mark.parametrize("name", ["erf", "erfc", "lgamma", "digamma", "floor", "trunc"])
def test_unsupported_unary_raise_like_torch(name):
    t = torch.tensor([1 + 2j])
    with pytest.raises(Exception) as expected:
        fn(torch, name)(t)
    with pytest.raises(expected.type):
        fn(tl, name)(tl.tensor([1 + 2j]))


# ---------------------------------------------------------------- division

def pairs_grid(dtype):
    with np.errstate(all="ignore"):
        s = SPECIAL[::3].astype(dtype)
    a = np.repeat(s, len(s))
    b = np.tile(s, len(s))
    return a, b


@pytest.mark.parametrize("dtype", DTYPES)
def test_div_special_values_like_torch(dtype):
    # Smith's scaled quotient: no overflow for divisors near the threshold, PyTorch's infinities and nans
    a, b = pairs_grid(dtype)
    check(tl.tensor(a) / tl.tensor(b), torch.tensor(a) / torch.tensor(b))
    big = np.array([1e300 + 1e300j, 3 + 4j, 1e-300 + 1e-300j, -5 - 1e-310j], dtype="complex128")
    div = np.array([1e300 + 1e300j, 1e-310 + 1e-310j, 1e-300 - 1e-300j, 1e308 + 1e308j], dtype="complex128")
    check(tl.tensor(big) / tl.tensor(div), torch.tensor(big) / torch.tensor(div))


@pytest.mark.parametrize("dtype", DTYPES)
def test_div_layouts_broadcast_inplace_out(dtype):
    a, b = cdata(4, 5, dtype=dtype), cdata(5, dtype=dtype)
    (x, y), (t, u) = (tl.tensor(a), tl.tensor(b)), (torch.tensor(a), torch.tensor(b))
    check(x / y, t / u)
    check(tl.div(x.t(), y[:4]), torch.div(t.t(), u[:4]))
    check(x[::2] / y, t[::2] / u)
    check(x[1, 1] / y[2], t[1, 1] / u[2])
    check(x[:0] / y, t[:0] / u)
    check(x.div(2 - 3j), t.div(2 - 3j))
    check(x / 0.5, t / 0.5)
    check((1 + 1j) / x, (1 + 1j) / t)  # rtruediv: reciprocal times the number
    r = x.clone()
    r /= y
    s = t.clone()
    s /= u
    check(r, s)
    o, p = tl.empty(0, dtype=getattr(tl, dtype)), torch.empty(0, dtype=getattr(torch, dtype))
    tl.div(x, y, out=o)
    torch.div(t, u, out=p)
    check(o, p)


def test_div_promotion_with_real():
    a = cdata(3, 4)
    r = RNG.standard_normal((3, 4))
    for dt_c, dt_r in [("complex64", "float32"), ("complex64", "float64"), ("complex128", "float32"),
                       ("complex64", "int64"), ("complex64", "bool")]:
        c = a.astype(dt_c)
        rr = (r > 0) if dt_r == "bool" else (r * 3).astype(dt_r)
        for u, v in ((c, rr), (rr, c)):
            check(tl.tensor(u) / tl.tensor(v), torch.tensor(u) / torch.tensor(v))
    # real tensors divided by a complex number, integers too
    check(tl.tensor(r) / (1 + 2j), torch.tensor(r) / (1 + 2j))
    check(tl.tensor(r.astype("float32")) / 2j, torch.tensor(r.astype("float32")) / 2j)
    check(tl.arange(5) / (0.5 - 1j), torch.arange(5) / (0.5 - 1j))
    # a real tensor cannot be divided in place by a complex one
    for lib in (torch, tl):
        with pytest.raises(RuntimeError, match="can't be cast"):
            lib.ones(2).div_(lib.tensor([1j, 2j]))


@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_div_rounding_modes_refuse_complex(mode):
    with pytest.raises(NotImplementedError):
        torch.div(torch.tensor([1 + 1j]), 2, rounding_mode=mode)
    with pytest.raises(NotImplementedError):
        tl.div(tl.tensor([1 + 1j]), 2, rounding_mode=mode)
    with pytest.raises(NotImplementedError):
        tl.div(tl.tensor([1 + 1j]), tl.tensor([2 + 0j]), rounding_mode=mode)


# ---------------------------------------------------------------- pow

@pytest.mark.parametrize("dtype", DTYPES)
def test_pow_tensor_tensor_special_values(dtype):
    a, b = pairs_grid(dtype)
    check(tl.pow(tl.tensor(a), tl.tensor(b)), torch.pow(torch.tensor(a), torch.tensor(b)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("exponent", [0, 1, 2, 3, -1, -2, 0.5, -0.5, 2.5, -1.5, 1j, 2 + 0j, 0j, 0.5 - 2j, 1e10])
def test_pow_tensor_scalar(dtype, exponent):
    with np.errstate(all="ignore"):
        a = np.concatenate([SPECIAL[::5], cdata(20).ravel()]).astype(dtype)
    check(tl.pow(tl.tensor(a), exponent), torch.pow(torch.tensor(a), exponent))
    check(tl.tensor(a) ** exponent, torch.tensor(a) ** exponent)


@pytest.mark.parametrize("base", [2.5, 1, 1 + 0j, 0, 0j, -2, 1j, 0.5 - 1j])
def test_pow_scalar_tensor(base):
    e = np.concatenate([cdata(12).ravel(), SPECIAL[::7]]).astype("complex64")
    check(tl.pow(base, tl.tensor(e)), torch.pow(base, torch.tensor(e)))
    check(base ** tl.tensor(e.astype("complex128")), base ** torch.tensor(e.astype("complex128")))


def test_pow_promotion_and_forms():
    r = np.abs(RNG.standard_normal((3, 4))) + 0.5
    c = cdata(3, 4)
    check(tl.tensor(r) ** tl.tensor(c), torch.tensor(r) ** torch.tensor(c))
    check(tl.tensor(c) ** tl.tensor(r), torch.tensor(c) ** torch.tensor(r))
    check(tl.tensor([2, 3]) ** 2j, torch.tensor([2, 3]) ** 2j)
    check(tl.tensor([2, 3]) ** (-1 + 0j), torch.tensor([2, 3]) ** (-1 + 0j))  # integers to a complex power
    check(tl.pow(2j, tl.tensor([1, 2])), torch.pow(2j, torch.tensor([1, 2])))
    check(tl.pow(tl.tensor(c).t(), tl.tensor(r[:, :1]).t()), torch.pow(torch.tensor(c).t(), torch.tensor(r[:, :1]).t()))
    x, t = tl.tensor(c), torch.tensor(c)
    x.pow_(2.5)
    t.pow_(2.5)
    check(x, t)
    o, p = tl.empty(0, dtype=tl.complex128), torch.empty(0, dtype=torch.complex128)
    tl.pow(tl.tensor(c), 3, out=o)
    torch.pow(torch.tensor(c), 3, out=p)
    check(o, p)
    check(tl.square(tl.tensor(c[0, 0])), torch.square(torch.tensor(c[0, 0])))


# ---------------------------------------------------------------- gradients (real losses)

def grads(lib, f, *arrays):
    leaves = [lib.tensor(a, requires_grad=True) for a in arrays]
    out = f(lib, *leaves).resolve_conj()
    rng = np.random.default_rng(7)
    if out.is_complex():
        w = lib.tensor(rng.standard_normal(tuple(out.shape) + (2,)))
        loss = (lib.view_as_real(out) * w).sum()
    else:
        loss = (out * lib.tensor(rng.standard_normal(tuple(out.shape)))).sum()
    loss.backward()
    return [leaf.grad for leaf in leaves]


@pytest.mark.parametrize("name", UNARY)
def test_unary_gradients_like_torch(name):
    a = cdata(3, 4) * 0.5 + (0.3 + 0.2j)  # away from the branch points, where both are finite
    got, want = grads(tl, lambda m, z: fn(m, name)(z), a), grads(torch, lambda m, z: fn(m, name)(z), a)
    check(got[0], want[0])


@pytest.mark.parametrize("f", [
    lambda m, z, w: z / w, lambda m, z, w: m.div(z, 2 - 1j), lambda m, z, w: z ** w, lambda m, z, w: z ** 2.5,
    lambda m, z, w: z ** (1 - 2j), lambda m, z, w: (1.5 + 1j) ** w, lambda m, z, w: 2.0 ** w,
    lambda m, z, w: m.tanh(z) * m.sigmoid(w), lambda m, z, w: z ** 2 + z ** 3 + z ** -1 + z ** -2,
])
def test_binary_gradients_like_torch(f):
    a, b = cdata(3, 4) * 0.7 + 0.5, cdata(3, 4) * 0.7 + 0.5
    got, want = grads(tl, f, a, b), grads(torch, f, a, b)
    for g, w in zip(got, want):
        if w is None:
            assert g is None
        else:
            check(g, w)


@pytest.mark.parametrize("f", [
    lambda m, x, z: x / z, lambda m, x, z: z / x, lambda m, x, z: x ** z, lambda m, x, z: z ** x,
    lambda m, x, z: m.exp(x * 1j) * z, lambda m, x, z: x / (2 + 1j) + 0 * z, lambda m, x, z: x ** (0.5 + 1j) + 0 * z,
    lambda m, x, z: x * 1j + z, lambda m, x, z: x / 2j + z, lambda m, x, z: (1 - 1j) - x + z,
    lambda m, x, z: x * (1 + 1j) + z * x, lambda m, x, z: (2 + 1j) ** x + z,
])
def test_mixed_real_complex_gradients(f):
    # a real leaf in a complex computation gets the real part of its complex gradient
    x, z = np.abs(RNG.standard_normal((3, 4))) + 0.5, cdata(3, 4) * 0.7 + 0.5
    got, want = grads(tl, f, x, z), grads(torch, f, x, z)
    for g, w in zip(got, want):
        check(g, w)


def test_real_tensor_with_complex_number_gradient_alone():
    """x (real, the only leaf) with a complex Python number: x.grad is the real part of the complex gradient."""
    x = np.abs(RNG.standard_normal((3, 4))) + 0.5
    for f in (lambda m, x: x / 2j, lambda m, x: x ** (0.5 + 1j), lambda m, x: x * 1j, lambda m, x: 1j / x,
              lambda m, x: m.sub(x, 1j, alpha=2)):
        got, want = grads(tl, f, x), grads(torch, f, x)
        assert got[0] is not None
        check(got[0], want[0])


def test_broadcast_division_gradient_is_summed():
    a, b = cdata(3, 1), cdata(3, 4) + 2
    got, want = grads(tl, lambda m, z, w: z / w, a, b), grads(torch, lambda m, z, w: z / w, a, b)
    for g, w in zip(got, want):
        check(g, w)
