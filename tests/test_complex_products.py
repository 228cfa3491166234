"""Complex isclose/allclose/equal, prod, cumsum/cumprod and the matrix products (mm, bmm, matmul, mv, dot,
vdot) against PyTorch: values, layouts, empty and 0-d inputs, dtype keywords, out=, errors, and gradients of
real losses (PyTorch's convention: grad * conj(d f / d z))."""
import numpy as np
import pytest
import torch

import torchlite as tl

RNG = np.random.default_rng(1)
inf, nan = float("inf"), float("nan")
DTYPES = ["complex64", "complex128"]


def cdata(*shape, dtype="complex128", scale=1.0):
    return (scale * (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape))).astype(dtype)


def check(got, want, rtol=None):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    w = want.resolve_conj().detach().numpy()
    if rtol is None:
        rtol = 1e-5 if w.dtype in (np.complex64, np.float32) else 1e-12
    np.testing.assert_allclose(got.detach().numpy(), w, rtol=rtol, atol=rtol, equal_nan=True)


def both(a, requires_grad=False):
    return tl.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad)


def grads(lib, f, *arrays):
    leaves = [lib.tensor(a, requires_grad=True) for a in arrays]
    out = f(lib, *leaves).resolve_conj()
    rng = np.random.default_rng(7)
    if out.is_complex():
        loss = (lib.view_as_real(out) * lib.tensor(rng.standard_normal(tuple(out.shape) + (2,)))).sum()
    else:
        loss = (out * lib.tensor(rng.standard_normal(tuple(out.shape)))).sum()
    loss.backward()
    return [leaf.grad for leaf in leaves]


# ---------------------------------------------------------------- isclose / allclose / equal

@pytest.mark.parametrize("dtype", DTYPES)
def test_isclose_complex_semantics(dtype):
    a = np.array([1 + 1j, complex(nan, 1), complex(inf, 1), 1e-9j, 2 + 0j, complex(1, nan), complex(inf, 0),
                  complex(inf, 1), 1 + 1j, 3 - 4j], dtype=dtype)
    b = np.array([1 + 1.000001j, complex(1, nan), complex(inf, 1), 0j, 2.00001 + 1e-5j, complex(nan, nan),
                  complex(inf, 1), complex(inf, 2), 1.1 + 1j, 3 - 4.00002j], dtype=dtype)
    (x, t), (y, u) = both(a), both(b)
    for kw in ({}, {"equal_nan": True}, {"rtol": 0, "atol": 0}, {"rtol": 0.2}, {"atol": 0.15}, {"rtol": 1e-3}):
        assert tl.isclose(x, y, **kw).tolist() == torch.isclose(t, u, **kw).tolist(), kw
        assert tl.allclose(x, y, **kw) == torch.allclose(t, u, **kw), kw
    # broadcasting, layouts
    c, d = cdata(4, 3, dtype=dtype), cdata(3, dtype=dtype)
    c2 = c + (1e-6 * d).astype(dtype)
    assert tl.isclose(tl.tensor(c2).t(), tl.tensor(c).t()).tolist() == torch.isclose(torch.tensor(c2).t(),
                                                                                   torch.tensor(c).t()).tolist()
    assert tl.isclose(tl.tensor(c), tl.tensor(d)).tolist() == torch.isclose(torch.tensor(c), torch.tensor(d)).tolist()
    assert tl.allclose(tl.tensor(c2), tl.tensor(c), rtol=1e-4) == torch.allclose(torch.tensor(c2), torch.tensor(c),
                                                                                  rtol=1e-4)


def test_isclose_dtype_mismatch_raises_like_torch():
    with pytest.raises(RuntimeError):
        torch.isclose(torch.tensor([1j]), torch.tensor([1.0]))
    with pytest.raises(RuntimeError):
        tl.isclose(tl.tensor([1j]), tl.tensor([1.0]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_equal_compares_both_parts(dtype):
    a = cdata(3, 4, dtype=dtype)
    b = a.copy()
    assert tl.equal(tl.tensor(a), tl.tensor(b)) and torch.equal(torch.tensor(a), torch.tensor(b))
    b[1, 2] += 1e-3j
    assert not tl.equal(tl.tensor(a), tl.tensor(b)) and not torch.equal(torch.tensor(a), torch.tensor(b))
    assert tl.equal(tl.tensor(a).t(), tl.tensor(a.T.copy()))
    n = np.array([complex(nan, 0)], dtype=dtype)
    assert tl.equal(tl.tensor(n), tl.tensor(n)) == torch.equal(torch.tensor(n), torch.tensor(n))


# ---------------------------------------------------------------- prod / cumsum / cumprod

@pytest.mark.parametrize("dtype", DTYPES)
def test_prod_values_and_forms(dtype):
    a = cdata(3, 4, 5, dtype=dtype)
    x, t = both(a)
    check(tl.prod(x), torch.prod(t))
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            check(tl.prod(x, dim, keepdim=keepdim), torch.prod(t, dim, keepdim=keepdim))
    check(tl.prod(x.transpose(0, 2), 1), torch.prod(t.transpose(0, 2), 1))
    check(tl.prod(x[:, ::2], -1), torch.prod(t[:, ::2], -1))
    check(tl.prod(x[:, :0]), torch.prod(t[:, :0]))          # empty: 1
    check(tl.prod(x[:, :0], 1), torch.prod(t[:, :0], 1))
    check(tl.prod(x[0, 0, 0]), torch.prod(t[0, 0, 0]))      # 0-d
    check(tl.prod(x, 1, dtype=tl.complex128), torch.prod(t, 1, dtype=torch.complex128))
    o, p = tl.empty(0, dtype=getattr(tl, dtype)), torch.empty(0, dtype=getattr(torch, dtype))
    tl.prod(x, 2, out=o)
    torch.prod(t, 2, out=p)
    check(o, p)
    # a real tensor's product in a complex dtype
    r = RNG.standard_normal((3, 4))
    check(tl.prod(tl.tensor(r), 1, dtype=tl.complex64), torch.prod(torch.tensor(r), 1, dtype=torch.complex64))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_scans(op, dtype):
    a = cdata(4, 20, dtype=dtype)
    x, t = both(a)
    for dim in (0, 1, -1, -2):
        check(getattr(tl, op)(x, dim), getattr(torch, op)(t, dim))
    check(getattr(tl, op)(x.t(), 0), getattr(torch, op)(t.t(), 0))
    check(getattr(tl, op)(x[:, 1::3], 1), getattr(torch, op)(t[:, 1::3], 1))
    check(getattr(tl, op)(x[:0], 1), getattr(torch, op)(t[:0], 1))
    check(getattr(tl, op)(x[1, 1], 0), getattr(torch, op)(t[1, 1], 0))
    check(getattr(tl, op)(x, 1, dtype=tl.complex128), getattr(torch, op)(t, 1, dtype=torch.complex128))
    check(getattr(x, op)(1), getattr(t, op)(1))
    y, u = x.clone(), t.clone()
    getattr(y, op + "_")(1)
    getattr(u, op + "_")(1)
    check(y, u)
    o, p = tl.empty(0, dtype=getattr(tl, dtype)), torch.empty(0, dtype=getattr(torch, dtype))
    getattr(tl, op)(x, 0, out=o)
    getattr(torch, op)(t, 0, out=p)
    check(o, p)
    r = RNG.standard_normal((3, 5))
    check(getattr(tl, op)(tl.tensor(r), 1, dtype=tl.complex64), getattr(torch, op)(torch.tensor(r), 1, dtype=torch.complex64))


@pytest.mark.parametrize("f", [
    lambda m, z: m.prod(z), lambda m, z: m.prod(z, 1), lambda m, z: m.prod(z, 0, keepdim=True),
    lambda m, z: m.cumsum(z, 1), lambda m, z: m.cumprod(z, 1), lambda m, z: m.cumprod(z, 0),
])
def test_reduction_gradients(f):
    a = cdata(3, 4) * 0.8 + 0.3
    got, want = grads(tl, f, a), grads(torch, f, a)
    check(got[0], want[0], rtol=1e-10)


def test_prod_cumprod_gradients_with_zeros():
    a = cdata(3, 4)
    a[0, 1] = 0
    a[2, 0] = a[2, 3] = 0
    for f in (lambda m, z: m.prod(z, 1), lambda m, z: m.prod(z), lambda m, z: m.cumprod(z, 1)):
        got, want = grads(tl, f, a), grads(torch, f, a)
        check(got[0], want[0], rtol=1e-10)


# ---------------------------------------------------------------- matrix products

@pytest.mark.parametrize("dtype", DTYPES)
def test_mm_layouts_and_shapes(dtype):
    a, b = cdata(5, 7, dtype=dtype), cdata(7, 3, dtype=dtype)
    (x, t), (y, u) = both(a), both(b)
    check(tl.mm(x, y), torch.mm(t, u))
    check(tl.mm(tl.tensor(a.T.copy()).t(), y), torch.mm(t, u))                    # transposed operand
    check(tl.mm(x, tl.tensor(b.T.copy()).t()), torch.mm(t, u))
    check(tl.mm(x[::2], y[:, 1:]), torch.mm(t[::2], u[:, 1:]))                     # strided
    check(tl.mm(x[:, :0], y[:0]), torch.mm(t[:, :0], u[:0]))                       # k = 0: zeros
    check(tl.mm(x[:0], y), torch.mm(t[:0], u))                                     # m = 0
    check(tl.mm(x[:1], y), torch.mm(t[:1], u))                                     # gemv paths
    check(tl.mm(x, y[:, :1]), torch.mm(t, u[:, :1]))
    o, p = tl.empty(0, dtype=getattr(tl, dtype)), torch.empty(0, dtype=getattr(torch, dtype))
    tl.mm(x, y, out=o)
    torch.mm(t, u, out=p)
    check(o, p)
    big_a, big_b = cdata(70, 90, dtype=dtype), cdata(90, 80, dtype=dtype)  # blocks split across threads
    check(tl.mm(tl.tensor(big_a), tl.tensor(big_b)), torch.mm(torch.tensor(big_a), torch.tensor(big_b)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_bmm_matmul_mv_dot_vdot(dtype):
    a, b = cdata(4, 3, 5, dtype=dtype), cdata(4, 5, 2, dtype=dtype)
    (x, t), (y, u) = both(a), both(b)
    check(tl.bmm(x, y), torch.bmm(t, u))
    check(tl.bmm(x.transpose(1, 2).contiguous().transpose(1, 2), y), torch.bmm(t, u))
    check(tl.matmul(x, y), torch.matmul(t, u))
    check(x @ y[0], t @ u[0])                                          # broadcast batch
    v, w = cdata(5, dtype=dtype), cdata(5, dtype=dtype)
    (xv, tv), (xw, tw) = both(v), both(w)
    check(tl.mv(x[0], xv), torch.mv(t[0], tv))
    check(tl.matmul(xv, xw), torch.matmul(tv, tw))
    check(tl.dot(xv, xw), torch.dot(tv, tw))
    check(tl.vdot(xv, xw), torch.vdot(tv, tw))                         # conjugates the first argument
    check(tl.vdot(xv[:4:2], xw[1::2]), torch.vdot(tv[:4:2], tw[1::2]))
    check(tl.dot(xv[:0], xw[:0]), torch.dot(tv[:0], tw[:0]))
    assert abs(tl.vdot(xv, xv).item().imag) < 1e-5                    # <v, v> is real


def test_matrix_product_dtype_errors_like_torch():
    c, r = cdata(2, 2), RNG.standard_normal((2, 2))
    for name in ("mm", "matmul"):
        with pytest.raises(RuntimeError):
            getattr(torch, name)(torch.tensor(c), torch.tensor(r))
        with pytest.raises(RuntimeError):
            getattr(tl, name)(tl.tensor(c), tl.tensor(r))
    with pytest.raises(RuntimeError):
        torch.dot(torch.tensor(c[0]), torch.tensor(c[0].astype("complex64")))
    with pytest.raises(RuntimeError):
        tl.dot(tl.tensor(c[0]), tl.tensor(c[0].astype("complex64")))


@pytest.mark.parametrize("f,shapes", [
    (lambda m, p, q: m.mm(p, q), [(3, 4), (4, 2)]),
    (lambda m, p, q: m.bmm(p, q), [(2, 3, 4), (2, 4, 5)]),
    (lambda m, p, q: m.matmul(p, q), [(2, 3, 4), (4,)]),
    (lambda m, p, q: m.mv(p, q), [(3, 4), (4,)]),
    (lambda m, p, q: m.dot(p, q), [(4,), (4,)]),
    (lambda m, p, q: m.vdot(p, q), [(4,), (4,)]),
    (lambda m, p, q: p @ q.t(), [(3, 4), (2, 4)]),
])
def test_matrix_product_gradients(f, shapes):
    arrays = [cdata(*s) for s in shapes]
    got, want = grads(tl, f, *arrays), grads(torch, f, *arrays)
    for g, w in zip(got, want):
        check(g, w, rtol=1e-10)
