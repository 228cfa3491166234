"""torchlite.fft against torch.fft: values for every function with n/s, dim and norm, any length (primes,
odd, even), batched and non-contiguous inputs, integer promotion, out=, errors, and gradients (through
real losses: view_as_real of complex results) equal to PyTorch's."""
import numpy as np
import pytest
import torch

import torchlite as tl

RNG = np.random.default_rng(1)
NORMS = [None, "backward", "ortho", "forward"]


def real(*shape, dtype="float64"):
    return RNG.standard_normal(shape).astype(dtype)


def cplx(*shape, dtype="complex128"):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def close(got, want, rtol=None):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    single = got.dtype in (tl.float32, tl.complex64)
    tol = rtol or (2e-4 if single else 1e-10)
    w = want.detach().resolve_conj().numpy()  # PyTorch's ihfft returns a lazy conjugate
    scale = max(1.0, float(np.abs(w).max())) if w.size else 1.0
    np.testing.assert_allclose(got.detach().resolve_conj().numpy(), w, rtol=tol, atol=tol * scale)


ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fft2", "ifft2", "fftn", "ifftn", "rfft2", "irfft2", "rfftn", "irfftn"]
REAL_INPUT = {"rfft", "ihfft", "rfft2", "rfftn"}


def make_input(name, shape, single=False):
    if name in REAL_INPUT:
        return real(*shape, dtype="float32" if single else "float64")
    return cplx(*shape, dtype="complex64" if single else "complex128")


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("length", [1, 2, 7, 8, 12, 17, 64, 97, 100])
@pytest.mark.parametrize("norm", NORMS)
def test_one_dim_values(name, length, norm):
    a = make_input(name, (3, length))
    if length == 1 and name in ("irfft", "hfft"):  # the default output length 2 * (1 - 1) is refused
        for m in (tl, torch):
            with pytest.raises(RuntimeError, match=r"Invalid number of data points \(0\)"):
                getattr(m.fft, name)(m.tensor(a), norm=norm)
        return
    got = getattr(tl.fft, name)(tl.tensor(a), norm=norm)
    want = getattr(torch.fft, name)(torch.tensor(a), norm=norm)
    close(got, want)


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("n", [1, 5, 8, 13, 30])
@pytest.mark.parametrize("dim", [0, 1, -1, -3])
def test_one_dim_n_and_dim(name, n, dim):
    a = make_input(name, (6, 9, 4))
    got = getattr(tl.fft, name)(tl.tensor(a), n=n, dim=dim)
    want = getattr(torch.fft, name)(torch.tensor(a), n=n, dim=dim)
    close(got, want)


@pytest.mark.parametrize("name", ONE_D)
def test_real_input_to_complex_transforms_and_single_precision(name):
    a = make_input(name, (4, 10), single=True)
    close(getattr(tl.fft, name)(tl.tensor(a)), getattr(torch.fft, name)(torch.tensor(a)))
    b = real(4, 10)  # fft/ifft/irfft/hfft accept real input too
    if name not in REAL_INPUT:
        close(getattr(tl.fft, name)(tl.tensor(b)), getattr(torch.fft, name)(torch.tensor(b)))


@pytest.mark.parametrize("name", ONE_D + N_D)
def test_integer_input_promotes(name):
    a = np.arange(24).reshape(4, 6)
    close(getattr(tl.fft, name)(tl.tensor(a)), getattr(torch.fft, name)(torch.tensor(a)))


@pytest.mark.parametrize("name", N_D)
@pytest.mark.parametrize("s,dim", [(None, None), ((4, 6), None), (None, (0, 2)), ((5, -1), (2, 0)), ((3,), (1,)),
                                   ((7, 3, 5), None), (None, (-1,))])
@pytest.mark.parametrize("norm", NORMS)
def test_n_dim_values(name, s, dim, norm):
    if name.endswith("2") and (dim is None and s is not None and len(s) != 2 or dim is not None and len(dim) != 2):
        return  # fft2 and friends take exactly two dims (defaults (-2, -1))
    a = make_input(name, (4, 5, 6))
    kwargs = {"norm": norm}
    if s is not None:
        kwargs["s"] = s
    if dim is not None:
        kwargs["dim"] = dim
    got = getattr(tl.fft, name)(tl.tensor(a), **kwargs)
    want = getattr(torch.fft, name)(torch.tensor(a), **kwargs)
    close(got, want)


@pytest.mark.parametrize("name", ONE_D + N_D)
def test_non_contiguous_inputs(name):
    a = make_input(name, (8, 6, 10))
    x, t = tl.tensor(a), torch.tensor(a)
    for f in (lambda v: v.transpose(0, 2), lambda v: v[::2, 1:, ::3], lambda v: v.permute(1, 2, 0)[1]):
        close(getattr(tl.fft, name)(f(x)), getattr(torch.fft, name)(f(t)))


def test_large_and_prime_lengths():
    for n in (4096, 1009, 3 * 5 * 7 * 11):
        a = cplx(n)
        close(tl.fft.fft(tl.tensor(a)), torch.fft.fft(torch.tensor(a)))
        b = real(2, n)
        close(tl.fft.rfft(tl.tensor(b)), torch.fft.rfft(torch.tensor(b)))
        close(tl.fft.irfft(tl.fft.rfft(tl.tensor(b)), n=n), torch.tensor(b))


def test_round_trips():
    a = cplx(5, 12)
    x = tl.tensor(a)
    for norm in NORMS:
        close(tl.fft.ifft(tl.fft.fft(x, norm=norm), norm=norm), torch.tensor(a))
        close(tl.fft.ifftn(tl.fft.fftn(x, norm=norm), norm=norm), torch.tensor(a))


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("n", [1, 2, 5, 8, 11])
@pytest.mark.parametrize("d", [1.0, 0.25])
def test_frequencies(name, n, d):
    close(getattr(tl.fft, name)(n, d), getattr(torch.fft, name)(n, d))
    close(getattr(tl.fft, name)(n, d, dtype=tl.float64), getattr(torch.fft, name)(n, d, dtype=torch.float64))


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1), -1])
def test_shifts(name, dim):
    a = np.arange(35.0).reshape(5, 7)
    got = getattr(tl.fft, name)(tl.tensor(a), dim=dim)
    want = getattr(torch.fft, name)(torch.tensor(a), dim=dim)
    close(got, want)
    c = cplx(4, 3)
    close(getattr(tl.fft, name)(tl.tensor(c), dim=dim), getattr(torch.fft, name)(torch.tensor(c), dim=dim))


def test_out():
    a = cplx(3, 8)
    out = tl.empty(0, dtype=tl.complex128)
    assert tl.fft.fft(tl.tensor(a), out=out) is out
    close(out, torch.fft.fft(torch.tensor(a)))
    out = tl.empty(0, dtype=tl.float64)
    assert tl.fft.irfft(tl.tensor(a), out=out) is out
    close(out, torch.fft.irfft(torch.tensor(a)))


@pytest.mark.parametrize("call", [
    lambda m: m.fft.fft(m.ones(4, dtype=m.complex128), n=0),
    lambda m: m.fft.fft(m.ones(4, dtype=m.complex128), dim=2),
    lambda m: m.fft.rfft(m.ones(4, dtype=m.complex128)),
    lambda m: m.fft.ihfft(m.ones(4, dtype=m.complex128)),
    lambda m: m.fft.fft(m.ones(4, dtype=m.complex128), norm="bad"),
    lambda m: m.fft.fftn(m.ones(4, 4, dtype=m.complex128), dim=(0, 0)),
    lambda m: m.fft.fftn(m.ones(4, 4, dtype=m.complex128), s=(2, 2, 2)),
    lambda m: m.fft.fftn(m.ones(4, 4, dtype=m.complex128), s=(2,), dim=(0, 1)),
    lambda m: m.fft.irfft(m.ones(1, dtype=m.complex128)),
    lambda m: m.fft.rfftn(m.ones(4), dim=()),
    lambda m: m.fft.fft(m.ones(4, dtype=m.float16)),
    lambda m: m.fft.fft(m.ones(0, dtype=m.complex64)),
])
def test_errors_like_torch(call):
    with pytest.raises(Exception) as want:
        call(torch)
    with pytest.raises(type(want.value)):
        call(tl)


# ---------------------------------------------------------------- gradients

def grads(lib, fn, a):
    x = lib.tensor(a, requires_grad=True)
    out = fn(lib, x).resolve_conj()
    w = lib.tensor(np.random.default_rng(3).standard_normal(tuple(out.shape) + ((2,) if out.is_complex() else ())))
    loss = ((lib.view_as_real(out) if out.is_complex() else out) * w).sum()
    loss.backward()
    return x.grad


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("n", [None, 6, 11])
@pytest.mark.parametrize("norm", NORMS)
def test_one_dim_gradients(name, n, norm):
    a = make_input(name, (3, 8))
    fn = lambda m, x: getattr(m.fft, name)(x, n=n, norm=norm)  # noqa: E731
    close(grads(tl, fn, a), grads(torch, fn, a))


@pytest.mark.parametrize("name", ["fft", "ifft", "irfft", "hfft"])
def test_real_input_gradients(name):
    a = real(3, 9)
    fn = lambda m, x: getattr(m.fft, name)(x)  # noqa: E731
    close(grads(tl, fn, a), grads(torch, fn, a))


@pytest.mark.parametrize("name", N_D)
@pytest.mark.parametrize("s", [None, (4, 7)])
@pytest.mark.parametrize("norm", ["backward", "ortho"])
def test_n_dim_gradients(name, s, norm):
    a = make_input(name, (2, 5, 6))
    fn = lambda m, x: getattr(m.fft, name)(x, s=s, dim=(-2, -1), norm=norm)  # noqa: E731
    close(grads(tl, fn, a), grads(torch, fn, a))


@pytest.mark.parametrize("length", [7, 8])
def test_internal_ops_gradients(length):
    a = cplx(2, length)
    close(grads(tl, lambda m, x: m._fft_c2c(x, [1], 1, True), a),
          grads(torch, lambda m, x: m._fft_c2c(x, [1], 1, True), a))
    b = cplx(2, length // 2 + 1)
    close(grads(tl, lambda m, x: m._fft_c2r(x, [1], 2, length), b),
          grads(torch, lambda m, x: m._fft_c2r(x, [1], 2, length), b))
    r = real(2, length)
    for onesided in (True, False):
        close(grads(tl, lambda m, x: m._fft_r2c(x, [0, 1], 0, onesided), r),
              grads(torch, lambda m, x: m._fft_r2c(x, [0, 1], 0, onesided), r))


def test_second_order_gradient_through_rfft():
    a = real(6)
    res = []
    for m in (tl, torch):
        x = m.tensor(a, requires_grad=True)
        y = m.view_as_real(m.fft.rfft(x))
        (g,) = m.autograd.grad([(y * y).sum()], [x], create_graph=True)
        (h,) = m.autograd.grad([(g * m.tensor(np.arange(6.0))).sum()], [x])
        res.append(h)
    close(res[0], res[1])
