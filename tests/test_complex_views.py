"""The complex-specific ops (view_as_real, view_as_complex, real/imag, conj family, abs, angle, sgn, complex,
polar) and complex add/sub/mul/neg: values, views, errors and gradients against PyTorch's (its conjugate
Wirtinger convention: for a real loss the gradient of z = x + iy is dL/dx + i dL/dy)."""
import numpy as np
import pytest
import torch

import torchlite as tl

RNG = np.random.default_rng(0)


def cdata(*shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def both(a, requires_grad=False):
    return (tl.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad))


def close(got, want, rtol=1e-6, atol=1e-7):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().resolve_conj().numpy(), rtol=rtol, atol=atol)


# ---------------------------------------------------------------- view_as_real / view_as_complex

@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_view_as_real_is_a_view(dtype):
    a = cdata(3, 4, dtype=dtype)
    x, t = both(a)
    r, s = tl.view_as_real(x), torch.view_as_real(t)
    close(r, s)
    assert r.stride() == s.stride() and r.storage_offset() == s.storage_offset()
    r[1, 2, 1] = 9.0
    s[1, 2, 1] = 9.0
    assert x[1, 2].item() == pytest.approx(complex(a[1, 2].real, 9.0))
    # strided and offset inputs
    for f in (lambda m, v: v.t(), lambda m, v: v[1:, ::2], lambda m, v: v[2]):
        rv, sv = tl.view_as_real(f(tl, x)), torch.view_as_real(f(torch, t))
        assert rv.stride() == sv.stride() and rv.storage_offset() == sv.storage_offset()
        close(rv, sv)


def test_view_as_real_errors():
    with pytest.raises(RuntimeError, match="view_as_real is only supported for complex tensors"):
        tl.view_as_real(tl.ones(2))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_view_as_complex(dtype):
    a = RNG.standard_normal((3, 4, 2)).astype(dtype)
    x, t = tl.tensor(a), torch.tensor(a)
    c, d = tl.view_as_complex(x), torch.view_as_complex(t)
    close(c, d)
    assert c.stride() == d.stride()
    x[0, 0, 1] = 5.0
    assert c[0, 0].item().imag == 5.0
    close(tl.view_as_complex(x[1:]), torch.view_as_complex(t[1:]))


@pytest.mark.parametrize("make", [
    lambda m: m.ones(3, 3),                      # last dim not 2
    lambda m: m.ones(2, 3).t(),                  # last dim stride not 1
    lambda m: m.ones(3, 2)[:, :].as_strided((2, 2), (3, 1)),  # odd stride
    lambda m: m.ones(7)[1:].view(3, 2),          # odd storage offset
    lambda m: m.ones((), dtype=m.float32),       # 0-d
    lambda m: m.ones(3, 2, dtype=m.int64),       # not floating
])
def test_view_as_complex_errors_like_torch(make):
    with pytest.raises(RuntimeError) as want:
        torch.view_as_complex(make(torch))
    with pytest.raises(RuntimeError) as got:
        tl.view_as_complex(make(tl))
    assert str(got.value).split(":")[0] in str(want.value)


# ---------------------------------------------------------------- real / imag

def test_real_imag_views_and_setters():
    a = cdata(2, 3)
    x, t = both(a)
    close(x.real, t.real)
    close(x.imag, t.imag)
    close(tl.real(x), torch.real(t))
    close(tl.imag(x), torch.imag(t))
    assert x.real.stride() == t.real.stride()
    x.imag[0] = 0.0
    t.imag[0] = 0.0
    close(x, t)
    x.real = tl.zeros(3, dtype=tl.float64)
    t.real = torch.zeros(3, dtype=torch.float64)
    close(x, t)
    y = tl.ones(3)
    assert tl.real(y) is y or tl.real(y).data_ptr() == y.data_ptr()
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes"):
        y.imag


# ---------------------------------------------------------------- conj family

def test_conj_family():
    a = cdata(4)
    x, t = both(a)
    close(x.conj().resolve_conj(), t.conj().resolve_conj())
    close(tl.conj_physical(x), torch.conj_physical(t))
    y = x.clone()
    y.conj_physical_()
    close(y, torch.conj_physical(t))
    assert not x.is_conj() and tl.is_conj(x.conj()) and x.conj().is_conj()  # a view with the conjugate bit
    assert x.resolve_conj() is x and x.resolve_neg() is x and not x.is_neg()
    r = tl.ones(3)
    assert r.conj() is r
    close(tl.conj_physical(r), torch.conj_physical(torch.ones(3)))
    close((x.H if x.dim() == 2 else x.reshape(2, 2).H).resolve_conj(), t.reshape(2, 2).H.resolve_conj())
    close(x.reshape(1, 2, 2).mH.resolve_conj(), t.reshape(1, 2, 2).mH.resolve_conj())


# ---------------------------------------------------------------- abs / angle / sgn / complex / polar

@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_abs_angle_sgn_values(dtype):
    a = np.concatenate([cdata(10, dtype=dtype), np.array([0, 3 + 0j, -2j, complex("inf+1j"), 1e30 + 1e30j],
                                                         dtype=dtype)])
    x, t = both(a)
    close(x.abs(), t.abs(), rtol=1e-6)
    close(tl.abs(x), torch.abs(t), rtol=1e-6)
    close(x.angle(), t.angle(), rtol=1e-6)
    close(x.sgn(), t.sgn(), rtol=1e-6)
    out = tl.empty(0, dtype=tl.float32 if dtype == np.complex64 else tl.float64)
    assert tl.abs(x, out=out) is out
    close(out, t.abs())
    with pytest.raises(RuntimeError, match="In-place abs is not supported for complex tensors"):
        x.abs_()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_complex_and_polar(dtype):
    re, im = RNG.standard_normal((3, 1)).astype(dtype), RNG.standard_normal(4).astype(dtype)
    close(tl.complex(tl.tensor(re), tl.tensor(im)), torch.complex(torch.tensor(re), torch.tensor(im)))
    r, th = np.abs(RNG.standard_normal(5)).astype(dtype), RNG.standard_normal(5).astype(dtype)
    close(tl.polar(tl.tensor(r), tl.tensor(th)), torch.polar(torch.tensor(r), torch.tensor(th)), rtol=1e-5)
    out = tl.empty(0, dtype=tl.float32.to_complex() if dtype == "float32" else tl.complex128)
    tl.complex(tl.tensor(re), tl.tensor(im), out=out)
    close(out, torch.complex(torch.tensor(re), torch.tensor(im)))


@pytest.mark.parametrize("args", [
    lambda m: (m.ones(2), m.ones(2, dtype=m.float64)),
    lambda m: (m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int64)),
])
@pytest.mark.parametrize("name", ["complex", "polar"])
def test_complex_polar_errors_like_torch(args, name):
    with pytest.raises(RuntimeError) as want:
        getattr(torch, name)(*args(torch))
    with pytest.raises(RuntimeError) as got:
        getattr(tl, name)(*args(tl))
    assert str(got.value) == str(want.value)


# ---------------------------------------------------------------- arithmetic

@pytest.mark.parametrize("op", [
    lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: -a, lambda a, b: a * 2.5,
    lambda a, b: a + 1j, lambda a, b: a * (2 - 1j), lambda a, b: a.add(b, alpha=2), lambda a, b: a.sub(b, alpha=1j),
    lambda a, b: a * b.real, lambda a, b: b.real + a,
])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_arithmetic(op, dtype):
    a, b = cdata(3, 4, dtype=dtype), cdata(3, 4, dtype=dtype)
    (x, t), (y, s) = both(a), both(b)
    close(op(x, y), op(t, s), rtol=1e-5)


def test_promotion_in_arithmetic():
    f, c = tl.ones(3, dtype=tl.float64), tl.ones(3, dtype=tl.complex64)
    assert (torch.ones(3, dtype=torch.float64) * torch.ones(3, dtype=torch.cfloat)).dtype == torch.complex128
    assert (f * c).dtype == tl.complex128
    assert (tl.ones(3) + 1j).dtype == tl.complex64
    assert (tl.ones(3, dtype=tl.int32) * 1j).dtype == tl.complex64
    with pytest.raises(RuntimeError, match="alpha must not be a complex number"):
        tl.ones(2).add(tl.ones(2), alpha=1j)


# ---------------------------------------------------------------- gradients against PyTorch's

def grads(lib, fn, *arrays):
    leaves = [lib.tensor(a, requires_grad=True) for a in arrays]
    out = fn(lib, *leaves)
    out = out.resolve_conj()  # PyTorch's conj() is lazy: view_as_real needs it resolved
    rng = np.random.default_rng(7)
    if out.is_complex():
        w = lib.tensor(rng.standard_normal(tuple(out.shape) + (2,)))
        loss = (lib.view_as_real(out) * w).sum()
    else:
        loss = (out * lib.tensor(rng.standard_normal(tuple(out.shape)))).sum()
    loss.backward()
    return [leaf.grad for leaf in leaves]


@pytest.mark.parametrize("fn,kinds", [
    (lambda m, z: m.view_as_real(z), "c"),
    (lambda m, z: m.view_as_real(z.t()), "c"),
    (lambda m, r: m.view_as_complex(r), "r2"),
    (lambda m, z: m.real(z), "c"),
    (lambda m, z: m.imag(z), "c"),
    (lambda m, z: m.real(z) * 2 + m.imag(z), "c"),
    (lambda m, z: z.conj(), "c"),
    (lambda m, z: m.conj_physical(z), "c"),
    (lambda m, z: z.abs(), "c"),
    (lambda m, z: z.angle(), "c"),
    (lambda m, a, b: m.complex(a, b), "rr"),
    (lambda m, a, b: m.polar(a, b), "rr"),
    (lambda m, z, w: z * w, "cc"),
    (lambda m, z, w: z + w * 2, "cc"),
    (lambda m, z, w: z - w, "cc"),
    (lambda m, z, a: z * a, "cr"),
    (lambda m, z: -z * (1 - 2j), "c"),
    (lambda m, z: z * z, "c"),
])
def test_gradients_like_torch(fn, kinds):
    arrays = []
    for k in kinds if kinds != "r2" else ["r2"]:
        if k == "c":
            arrays.append(cdata(3, 3))
        elif k == "r":
            arrays.append(np.abs(RNG.standard_normal((3, 3))) + 0.1)
        else:
            arrays.append(RNG.standard_normal((3, 3, 2)))
    got, want = grads(tl, fn, *arrays), grads(torch, fn, *arrays)
    for g, w in zip(got, want):
        close(g, w, rtol=1e-10, atol=1e-12)


def test_abs_angle_gradient_at_zero_like_torch():
    a = np.array([0j, 1 + 1j, -2 + 0j])
    got, want = grads(tl, lambda m, z: z.abs() + z.angle(), a), grads(torch, lambda m, z: z.abs() + z.angle(), a)
    close(got[0], want[0], rtol=1e-12)


def test_complex_grad_output_must_be_complex():
    for m in (tl, torch):
        r = m.ones(3, 2, dtype=m.float64, requires_grad=True)
        with pytest.raises(RuntimeError, match="same dtype"):
            m.autograd.grad([m.view_as_complex(r)], [r], [m.ones(3, dtype=m.float64)])
    r, q = tl.ones(3, 2, dtype=tl.float64, requires_grad=True), torch.ones(3, 2, dtype=torch.float64, requires_grad=True)
    (g,) = tl.autograd.grad([tl.view_as_complex(r)], [r], [tl.tensor([1j, 2, 3 - 1j])])
    (h,) = torch.autograd.grad([torch.view_as_complex(q)], [q], [torch.tensor([1j, 2, 3 - 1j])])
    close(g, h)


def test_eq_ne_and_classification():
    a = np.array([1 + 1j, complex("nan+1j"), complex("inf-1j"), 2 - 0j, complex("1+infj")], dtype=np.complex64)
    b = np.array([1 + 1j, 0, complex("inf-1j"), 2 + 1j, 1j])
    (x, t), (y, s) = both(a), both(b)
    for op in (lambda u, v: u == v, lambda u, v: u != v, lambda u, v: u.eq(1 + 1j), lambda u, v: u.ne(2)):
        assert op(x, y).tolist() == op(t, s).tolist()
    for name in ("isnan", "isinf", "isfinite"):
        assert getattr(tl, name)(x).tolist() == getattr(torch, name)(t).tolist()
    for name in ("isposinf", "isneginf"):
        with pytest.raises(RuntimeError, match="does not support complex inputs"):
            getattr(tl, name)(x)
    with pytest.raises(RuntimeError):
        x < y


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_sum_and_mean(dtype):
    a = cdata(3, 4, 5, dtype=dtype)
    x, t = both(a)
    for op in (lambda v: v.sum(), lambda v: v.sum(1), lambda v: v.sum((0, 2), keepdim=True), lambda v: v.mean(),
               lambda v: v.mean(-1), lambda v: v.t().sum(0) if v.dim() == 2 else v.transpose(0, 2).sum(0),
               lambda v: v[0, 0, 0].sum()):
        close(op(x), op(t), rtol=1e-5, atol=1e-5)
    out = tl.empty(0, dtype=x.dtype)
    assert tl.sum(x, 1, out=out) is out
    close(out, t.sum(1), rtol=1e-5, atol=1e-5)


def test_broadcast_complex_gradient_is_summed_like_torch():
    a, b = cdata(3, 1), cdata(3, 4)
    got = grads(tl, lambda m, z, w: z * w, a, b)
    want = grads(torch, lambda m, z, w: z * w, a, b)
    for g, w in zip(got, want):
        close(g, w, rtol=1e-10, atol=1e-12)
