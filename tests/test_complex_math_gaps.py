"""Complex math that issue 10's first pass left out, against torch: exp2 and logaddexp (values on a grid of
special values, promotion, in-place/out=, gradients; logaddexp2 refused as PyTorch), var/std/var_mean/std_mean
of complex tensors (real results, dims, correction, keepdim, out=, gradients), and the double backward of
tanh/sigmoid for complex inputs."""
import warnings

import numpy as np
import pytest
import torch

import torchlite as tl

RNG = np.random.default_rng(11)
INF, NAN = float("inf"), float("nan")
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 88.0, -88.0, 700.0, -700.0, 1e-30, INF, -INF, NAN]
GRID = np.array([complex(a, b) for a in SPECIAL for b in SPECIAL])


def cdata(*shape, dtype="complex128"):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def same(got, want, tol=None):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape)
    single = got.dtype in (tl.complex64, tl.float32)
    tol = tol or (2e-6 if single else 1e-13)
    g, w = got.detach().numpy(), want.detach().numpy()
    for part in ((np.real, np.imag) if np.iscomplexobj(w) else (np.real,)):
        np.testing.assert_allclose(part(g), part(w), rtol=tol, atol=tol, equal_nan=True)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_exp2_special_values(dtype):
    g = GRID.astype(dtype)
    same(tl.exp2(tl.tensor(g)), torch.exp2(torch.tensor(g)))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_logaddexp_special_values(dtype):
    a, b = np.repeat(GRID, len(GRID)).astype(dtype), np.tile(GRID, len(GRID)).astype(dtype)
    same(tl.logaddexp(tl.tensor(a), tl.tensor(b)), torch.logaddexp(torch.tensor(a), torch.tensor(b)))


def test_exp2_logaddexp_forms_and_promotion():
    z, w = cdata(3, 4, dtype="complex64"), cdata(4)
    r = RNG.standard_normal((3, 4))
    for m_call in (
        lambda m: m.exp2(m.tensor(z).t()),                            # strided
        lambda m: m.tensor(z).exp2(),                                 # method
        lambda m: m.logaddexp(m.tensor(z), m.tensor(w)),              # complex64 with complex128, broadcast
        lambda m: m.logaddexp(m.tensor(r), m.tensor(z)),              # float64 with complex64 -> complex128
        lambda m: m.tensor(z).logaddexp(m.tensor(z[0])),
        lambda m: m.exp2(m.tensor(z[0, 0])),                          # 0-d
        lambda m: m.exp2(m.tensor(z[:0])),                            # empty
    ):
        same(m_call(tl), m_call(torch))
    for m in (tl, torch):  # in place and out=
        t = m.tensor(z)
        assert t.exp2_() is t
    same(tl.tensor(z).exp2_(), torch.tensor(z).exp2_())
    o1, o2 = tl.empty(0, dtype=tl.complex128), torch.empty(0, dtype=torch.complex128)
    same(tl.logaddexp(tl.tensor(z), tl.tensor(w), out=o1), torch.logaddexp(torch.tensor(z), torch.tensor(w), out=o2))
    same(o1, o2)


def test_logaddexp2_is_refused_for_complex_as_torch():
    z = cdata(3)
    for m in (torch, tl):
        with pytest.raises(NotImplementedError, match="\"logaddexp2_cpu\" not implemented for 'ComplexDouble'"):
            m.logaddexp2(m.tensor(z), m.tensor(z))


def grads(m, fn, *arrays, create_graph=False):
    leaves = [m.tensor(a, requires_grad=True) for a in arrays]
    out = fn(m, *leaves)
    outs = out if isinstance(out, tuple) else (out,)
    loss = 0
    for k, o in enumerate(outs):
        r = m.view_as_real(o) if o.is_complex() else o
        loss = loss + (r * m.tensor(np.linspace(-1, 1 + k, r.numel()).reshape(tuple(r.shape)))).sum()
    return m.autograd.grad(loss, leaves, create_graph=create_graph, allow_unused=True)


GRADS = {
    "exp2": lambda m, z, w: m.exp2(z),
    "logaddexp": lambda m, z, w: m.logaddexp(z, w),
    "logaddexp_equal": lambda m, z, w: m.logaddexp(z, z),
    "var": lambda m, z, w: m.var(z, 1),
    "std": lambda m, z, w: m.std(z),
    "var_correction": lambda m, z, w: m.var(z, (0, 1), correction=0, keepdim=True),
    "std_dim": lambda m, z, w: m.std(z, -1, unbiased=False),
    "var_mean": lambda m, z, w: m.var_mean(z, 0),
    "std_mean": lambda m, z, w: m.std_mean(z, 1, keepdim=True),
}


@pytest.mark.parametrize("name", list(GRADS))
def test_gradients(name):
    z, w = cdata(3, 4) * 0.7 + 0.3, cdata(3, 4) * 0.5
    got, want = grads(tl, GRADS[name], z, w), grads(torch, GRADS[name], z, w)
    for g, e in zip(got, want):
        if e is None:
            assert g is None
        else:
            same(g, e, 1e-10)


VAR_CALLS = [
    lambda m, t: m.var(t),
    lambda m, t: m.var(t, unbiased=False),
    lambda m, t: m.var(t, 1, keepdim=True),
    lambda m, t: m.var(t, (0, 2), correction=2),
    lambda m, t: m.std(t),
    lambda m, t: m.std(t, -1, unbiased=True),
    lambda m, t: m.std(t, dim=None, correction=0),
    lambda m, t: t.var(0),
    lambda m, t: t.std(2, keepdim=True),
    lambda m, t: m.var_mean(t, 1),
    lambda m, t: m.std_mean(t, (0, 1), correction=0, keepdim=True),
    lambda m, t: m.var_mean(t),
    lambda m, t: m.var(t[:, :1, :1], 1),          # one element: nan with correction 1
    lambda m, t: m.std(t[:, :0], 1),              # empty dim
    lambda m, t: m.var(t.transpose(0, 2)[::2], 1),  # strided
    lambda m, t: m.var(t[0, 0, 0]),               # 0-d
]


@pytest.mark.parametrize("call", range(len(VAR_CALLS)))
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_var_std_values(call, dtype):
    a = cdata(3, 4, 5, dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, want = VAR_CALLS[call](tl, tl.tensor(a)), VAR_CALLS[call](torch, torch.tensor(a))
    for g, e in (zip(got, want) if isinstance(want, tuple) else [(got, want)]):
        same(g, e, 1e-5 if dtype == "complex64" else 1e-12)


def test_var_std_out():
    a = cdata(3, 4, dtype="complex64")
    o1, o2 = tl.empty(0), torch.empty(0)
    same(tl.var(tl.tensor(a), 1, out=o1), torch.var(torch.tensor(a), 1, out=o2))
    same(o1, o2)
    o1, o2 = tl.empty(0, dtype=tl.float64), torch.empty(0, dtype=torch.float64)
    same(tl.std(tl.tensor(a), 0, out=o1), torch.std(torch.tensor(a), 0, out=o2))


@pytest.mark.parametrize("op", ["tanh", "sigmoid"])
def test_double_backward_complex(op):
    z = cdata(3, 4) * 0.6 + 0.2
    v = cdata(3, 4)
    results = []
    for m in (tl, torch):
        x = m.tensor(z, requires_grad=True)
        y = getattr(m, op)(x)
        (g,) = m.autograd.grad(y, x, grad_outputs=m.tensor(v, requires_grad=True), create_graph=True)
        loss = (m.view_as_real(g) * m.tensor(np.linspace(-1, 1, 24).reshape(3, 4, 2))).sum()
        loss.backward()
        results.append((g, x.grad))
    for g, e in zip(*results):
        same(g, e, 1e-10)


@pytest.mark.parametrize("op", ["tanh", "sigmoid"])
def test_double_backward_through_grad_output(op):
    """The second-order gradient reaching the grad_output (tanh_backward's first input) is conjugated."""
    z, v = cdata(2, 3) * 0.6 + 0.2, cdata(2, 3)
    results = []
    for m in (tl, torch):
        x = m.tensor(z, requires_grad=True)
        gout = m.tensor(v, requires_grad=True)
        (g,) = m.autograd.grad(getattr(m, op)(x), x, grad_outputs=gout, create_graph=True)
        m.view_as_real(g * g).sum().backward()
        results.append((x.grad, gout.grad))
    for g, e in zip(*results):
        same(g, e, 1e-10)


def test_abs_complex128_loop_within_one_ulp_of_torch():
    """complex128 abs runs a vectorizable fma-corrected hypot (ComplexOps.cpp::abs_f64): equal to PyTorch's on
    random moduli over many magnitudes, within one ulp near the subnormal range, inf/nan as hypot."""
    n = 1 << 16
    a = (RNG.standard_normal(n) * np.exp(RNG.uniform(-40, 40, n)) + 1j * RNG.standard_normal(n)).astype("complex128")
    np.testing.assert_array_equal(tl.tensor(a).abs().numpy(), torch.tensor(a).abs().numpy())
    vals = [0.0, -0.0, 1.0, -3.0, 4.0, 5e-324, 1e-310, 2.2e-308, 1e-200, 1e200, 1.7e308, 2.0 ** 500, 2.0 ** -500,
            INF, -INF, NAN]
    g = np.array([complex(x, y) for x in vals for y in vals])
    got, want = tl.tensor(g).abs().numpy(), torch.tensor(g).abs().numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    g, w = got[ok], want[ok]
    assert np.all((g == w) | (np.abs(g - w) <= np.spacing(w)))
