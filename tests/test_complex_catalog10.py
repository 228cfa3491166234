"""Complex support added for issue 10's audit gaps: any/all/count_nonzero, logsumexp, logcumsumexp, renorm,
addcmul/addcdiv, lerp and linear (F.linear, nn.Linear). Values against PyTorch, and gradients both by
torchlite's complex gradcheck and against PyTorch's for a real loss (its conjugate Wirtinger convention)."""
import numpy as np
import pytest
import torch

import torchlite as tl
import torchlite.nn.functional as TF

CDTYPES = [torch.complex64, torch.complex128]


def to_tl(x, requires_grad=False):
    t = tl.from_numpy(x.detach().numpy().copy())
    return t.requires_grad_() if requires_grad else t


def lib_of(m):
    return torch if m == "torch" else tl


def rand(*shape, dtype=torch.complex128, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, dtype=dtype, generator=g)


def assert_same(a, b, rtol=1e-5, atol=1e-6):
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    np.testing.assert_allclose(b.detach().numpy(), a.detach().resolve_conj().numpy(), rtol=rtol, atol=atol, equal_nan=True)


def grads_like_torch(fn, *inputs, rtol=1e-7, atol=1e-9):
    """fn(lib, *tensors) -> complex tensor; compares the gradients of sum(|f|^2 + re(f)) in both libraries."""
    t_in = [x.detach().clone().requires_grad_() for x in inputs]
    l_in = [to_tl(x, True) for x in inputs]
    out_t, out_l = fn(torch, *t_in), fn(tl, *l_in)
    assert_same(out_t, out_l, rtol=1e-10, atol=1e-12)
    loss_t = (out_t.abs() ** 2).sum() + out_t.real.sum() if out_t.is_complex() else (out_t * out_t).sum()
    loss_l = (out_l.abs() ** 2).sum() + out_l.real.sum() if out_l.is_complex() else (out_l * out_l).sum()
    g_t = torch.autograd.grad(loss_t, t_in)
    g_l = tl.autograd.grad(loss_l, l_in)
    for a, b in zip(g_t, g_l):
        np.testing.assert_allclose(b.numpy(), a.resolve_conj().numpy(), rtol=rtol, atol=atol)


def gradcheck_tl(fn, *inputs):
    l_in = [to_tl(x, True) for x in inputs]
    assert tl.autograd.gradcheck(lambda *xs: fn(tl, *xs), l_in)


# ---- any / all / count_nonzero -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("call", [
    lambda m, x: m.any(x), lambda m, x: m.all(x), lambda m, x: x.any(1), lambda m, x: x.all(0, keepdim=True),
    lambda m, x: m.any(x, dim=(0, 2)), lambda m, x: m.all(x, dim=(-1,), keepdim=True), lambda m, x: m.all(x, dim=None),
    lambda m, x: m.count_nonzero(x), lambda m, x: m.count_nonzero(x, -1), lambda m, x: x.count_nonzero((0, 2)),
    lambda m, x: m.count_nonzero(x, dim=[]),
])
def test_any_all_count_nonzero(dtype, call):
    x = rand(3, 4, 2, dtype=dtype)
    x[0, 1] = 0
    x[1] = 0
    x[2, 2, 0] = 1j          # imaginary part only: nonzero
    x[2, 3, 1] = complex(float("nan"), 0)
    for layout in (x, x.transpose(0, 2), x[:, ::2]):
        assert_same(call(torch, layout), call(tl, to_tl(layout)))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_any_all_empty_and_out(dtype):
    e = torch.zeros(0, 3, dtype=dtype)
    for call in (lambda m, x: m.any(x), lambda m, x: m.all(x), lambda m, x: m.any(x, 0),
                 lambda m, x: m.count_nonzero(x, 1), lambda m, x: m.all(x, 1)):
        assert_same(call(torch, e), call(tl, to_tl(e)))
    x = rand(2, 3, dtype=dtype)
    out_t, out_l = torch.empty(0, dtype=torch.bool), tl.empty(0, dtype=tl.bool)
    torch.any(x, 1, out=out_t)
    tl.any(to_tl(x), 1, out=out_l)
    assert_same(out_t, out_l)
    assert tl.tensor([0j, 0j]).any().item() is False and tl.tensor([0j, 1j]).all().item() is False
    assert tl.tensor(3j).all().item() is True


# ---- logsumexp / logcumsumexp ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", CDTYPES)
def test_logsumexp_values(dtype):
    x = rand(3, 4, 5, dtype=dtype) * 3
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == torch.complex64 else dict(rtol=1e-12, atol=1e-12)
    for args in [(1,), ((0, 2),), ((0, 1, 2), True), (-1, True)]:
        assert_same(torch.logsumexp(x, *args), tl.logsumexp(to_tl(x), *args), **tol)
    assert_same(torch.logsumexp(x.transpose(0, 2), 1), tl.logsumexp(to_tl(x).transpose(0, 2), 1), **tol)
    # large real parts (no overflow), infinities and the all -inf slice
    big = torch.tensor([[1000 + 1j, 999 - 2j], [float("-inf"), float("-inf") + 1j], [float("inf") + 1j, 1 + 2j]],
                       dtype=dtype)
    assert_same(torch.logsumexp(big, 1), tl.logsumexp(to_tl(big), 1), **tol)
    e = torch.zeros(0, 3, dtype=dtype)
    assert_same(torch.logsumexp(e, 0), tl.logsumexp(to_tl(e), 0))
    out_t, out_l = torch.empty(0, dtype=dtype), tl.empty(0, dtype=getattr(tl, str(dtype).split(".")[-1]))
    torch.logsumexp(x, 1, out=out_t)
    tl.logsumexp(to_tl(x), 1, out=out_l)
    assert_same(out_t, out_l, **tol)


def test_logsumexp_gradients():
    x = rand(3, 4, seed=1)
    grads_like_torch(lambda m, a: m.logsumexp(a, 1), x)
    grads_like_torch(lambda m, a: m.logsumexp(a, (0, 1), keepdim=True), x)
    gradcheck_tl(lambda m, a: m.logsumexp(a, 1), x)
    assert tl.autograd.gradgradcheck(lambda a: tl.logsumexp(a, 0), [to_tl(x, True)])


@pytest.mark.parametrize("dtype", CDTYPES)
def test_logcumsumexp_values(dtype):
    x = rand(3, 5, dtype=dtype) * 3
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == torch.complex64 else dict(rtol=1e-12, atol=1e-12)
    for dim in (0, 1, -1):
        assert_same(torch.logcumsumexp(x, dim), tl.logcumsumexp(to_tl(x), dim), **tol)
    assert_same(torch.logcumsumexp(x.t(), 0), tl.logcumsumexp(to_tl(x).t(), 0), **tol)
    inf, nan = float("inf"), float("nan")
    special = torch.tensor([[-inf, -inf + 1j, 2 + 1j, 1000 - 1j, -inf],
                            [inf + 1j, 1 - 1j, inf - 1j, 0j, 1j],
                            [complex(nan, 0), 1j, 2, 3, 4],
                            [1, complex(0, nan), 2, -inf, 0]], dtype=dtype)
    assert_same(torch.logcumsumexp(special, 1), tl.logcumsumexp(to_tl(special), 1), **tol)
    assert_same(torch.logcumsumexp(torch.tensor(1 + 2j, dtype=dtype), 0),
                tl.logcumsumexp(to_tl(torch.tensor(1 + 2j, dtype=dtype)), 0))
    e = torch.zeros(0, 2, dtype=dtype)
    assert_same(torch.logcumsumexp(e, 0), tl.logcumsumexp(to_tl(e), 0))


def test_logcumsumexp_gradients():
    x = rand(3, 4, seed=2)
    grads_like_torch(lambda m, a: m.logcumsumexp(a, 1), x)
    grads_like_torch(lambda m, a: m.logcumsumexp(a, 0), x)
    gradcheck_tl(lambda m, a: m.logcumsumexp(a, 1), x)


# ---- renorm --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("p,dim,maxnorm", [(2, 0, 1.0), (1, 1, 0.7), (float("inf"), -1, 0.5), (3.5, 0, 1.2),
                                           (2, 1, 100.0)])
def test_renorm(dtype, p, dim, maxnorm):
    x = rand(3, 4, dtype=dtype, seed=3)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == torch.complex64 else dict(rtol=1e-12, atol=1e-12)
    assert_same(torch.renorm(x, p, dim, maxnorm), tl.renorm(to_tl(x), p, dim, maxnorm), **tol)
    xt, lt = x.clone(), to_tl(x)
    xt.renorm_(p, dim, maxnorm)
    lt.renorm_(p, dim, maxnorm)
    assert_same(xt, lt, **tol)


def test_renorm_gradients():
    x = rand(3, 4, seed=4)
    for p, dim in [(2, 0), (1, 1), (3.0, 0)]:
        grads_like_torch(lambda m, a: m.renorm(a, p, dim, 0.8), x, rtol=1e-6, atol=1e-8)
        gradcheck_tl(lambda m, a: m.renorm(a, p, dim, 0.8), x)


# ---- addcmul / addcdiv / lerp -------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", CDTYPES)
def test_addcmul_addcdiv_values(dtype):
    a, b, c = rand(3, 4, dtype=dtype, seed=5), rand(4, dtype=dtype, seed=6), rand(3, 1, dtype=dtype, seed=7)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == torch.complex64 else dict(rtol=1e-12, atol=1e-12)
    for value in (1, -2, 0.5, 2 - 1j, 1j):
        assert_same(torch.addcmul(a, b, c, value=value), tl.addcmul(to_tl(a), to_tl(b), to_tl(c), value=value), **tol)
        assert_same(torch.addcdiv(a, b, c, value=value), tl.addcdiv(to_tl(a), to_tl(b), to_tl(c), value=value), **tol)
    # a real operand promotes; in place and out=
    r = torch.randn(4, dtype=torch.float64 if dtype == torch.complex128 else torch.float32)
    assert_same(torch.addcmul(a, r, c, value=1j), tl.addcmul(to_tl(a), to_tl(r), to_tl(c), value=1j), **tol)
    at, al = a.clone(), to_tl(a)
    at.addcdiv_(b, c, value=0.5j)
    al.addcdiv_(to_tl(b), to_tl(c), value=0.5j)
    assert_same(at, al, **tol)
    # a complex value with real tensors: PyTorch's RuntimeError
    for m in (torch, tl):
        x = m.ones(3)
        with pytest.raises(RuntimeError, match="cannot be converted"):
            m.addcmul(x, x, x, value=1j)
        with pytest.raises(RuntimeError, match="cannot be converted"):
            m.addcdiv(x, x, x, value=1j)


def test_addcmul_addcdiv_gradients():
    a, b, c = rand(3, 4, seed=8), rand(3, 4, seed=9), rand(3, 4, seed=10) + 2
    r = torch.randn(3, 4, dtype=torch.float64)
    for value in (2 - 1j, 0.5):
        grads_like_torch(lambda m, x, y, z: m.addcmul(x, y, z, value=value), a, b, c)
        grads_like_torch(lambda m, x, y, z: m.addcdiv(x, y, z, value=value), a, b, c)
        grads_like_torch(lambda m, x, y, z: m.addcmul(x, y, z, value=value), a, r, c)  # real tensor1
        gradcheck_tl(lambda m, x, y, z: m.addcmul(x, y, z, value=value), a, b, c)
        gradcheck_tl(lambda m, x, y, z: m.addcdiv(x, y, z, value=value), a, b, c)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_lerp_values(dtype):
    a, b, w = rand(3, 4, dtype=dtype, seed=11), rand(4, dtype=dtype, seed=12), rand(3, 1, dtype=dtype, seed=13)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == torch.complex64 else dict(rtol=1e-12, atol=1e-12)
    for weight in (0.3, 0.75, 0.3 + 0.6j, 0.9 - 0.1j, 1, 2j):
        assert_same(torch.lerp(a, b, weight), tl.lerp(to_tl(a), to_tl(b), weight), **tol)
    assert_same(torch.lerp(a, b, w), tl.lerp(to_tl(a), to_tl(b), to_tl(w)), **tol)
    w0 = torch.tensor(0.2 + 0.7j, dtype=dtype)
    assert_same(torch.lerp(a, b, w0), tl.lerp(to_tl(a), to_tl(b), to_tl(w0)), **tol)
    at, al = a.clone(), to_tl(a)
    at.lerp_(b, 0.4j)
    al.lerp_(to_tl(b), 0.4j)
    assert_same(at, al, **tol)
    # mixed real/complex operands: PyTorch's dtype errors
    for m, conv in ((torch, lambda x: x), (tl, to_tl)):
        with pytest.raises(RuntimeError, match="expected dtype"):
            m.lerp(conv(a), conv(b.real.contiguous()), 0.5)
        with pytest.raises(RuntimeError, match="cannot be converted"):
            m.lerp(conv(a.real.contiguous()), conv(a.real.contiguous()), 0.5j)


def test_lerp_gradients():
    a, b, w = rand(3, 4, seed=14), rand(3, 4, seed=15), rand(3, 4, seed=16)
    for weight in (0.3 + 0.6j, 0.8 - 0.3j, 0.25):
        grads_like_torch(lambda m, x, y: m.lerp(x, y, weight), a, b)
        gradcheck_tl(lambda m, x, y: m.lerp(x, y, weight), a, b)
    grads_like_torch(lambda m, x, y, z: m.lerp(x, y, z), a, b, w)
    gradcheck_tl(lambda m, x, y, z: m.lerp(x, y, z), a, b, w)


# ---- linear ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", CDTYPES)
def test_linear_values(dtype):
    x, w, b = rand(2, 3, 4, dtype=dtype, seed=17), rand(5, 4, dtype=dtype, seed=18), rand(5, dtype=dtype, seed=19)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == torch.complex64 else dict(rtol=1e-12, atol=1e-12)
    F = torch.nn.functional
    assert_same(F.linear(x, w, b), TF.linear(to_tl(x), to_tl(w), to_tl(b)), **tol)
    assert_same(F.linear(x, w), TF.linear(to_tl(x), to_tl(w)), **tol)
    assert_same(F.linear(x[0], w.t().contiguous().t(), b), TF.linear(to_tl(x[0]), to_tl(w.t().contiguous()).t(),
                                                                      to_tl(b)), **tol)
    assert_same(F.linear(x, w[0]), TF.linear(to_tl(x), to_tl(w[0])), **tol)
    assert_same(F.linear(x[0, 0], w, b), TF.linear(to_tl(x[0, 0]), to_tl(w), to_tl(b)), **tol)
    e = torch.zeros(0, 4, dtype=dtype)
    assert_same(F.linear(e, w, b), TF.linear(to_tl(e), to_tl(w), to_tl(b)))
    for m, conv, f in ((torch, lambda t: t, F), (tl, to_tl, TF)):
        with pytest.raises(RuntimeError):
            f.linear(conv(x), conv(w.real.contiguous()))  # mixed dtypes refused, as PyTorch


def test_linear_gradients():
    x, w, b = rand(2, 3, 4, seed=20), rand(5, 4, seed=21), rand(5, seed=22)
    grads_like_torch(lambda m, a, c, d: m.nn.functional.linear(a, c, d), x, w, b)
    grads_like_torch(lambda m, a, c: m.nn.functional.linear(a, c), x[0], w[0])
    gradcheck_tl(lambda m, a, c, d: m.nn.functional.linear(a, c, d), x[0], w, b)
    assert tl.autograd.gradgradcheck(lambda a, c: TF.linear(a, c), [to_tl(x[0], True), to_tl(w, True)])


def test_nn_linear_complex():
    torch.manual_seed(0)
    tl.manual_seed(0)
    mt, ml = torch.nn.Linear(4, 3, dtype=torch.complex64), tl.nn.Linear(4, 3, dtype=tl.complex64)
    ml.load_state_dict({k: to_tl(v) for k, v in mt.state_dict().items()})
    x = rand(2, 4, dtype=torch.complex64, seed=23)
    yt, yl = mt(x), ml(to_tl(x))
    assert_same(yt, yl, rtol=1e-5, atol=1e-6)
    (yt.abs() ** 2).sum().backward()
    (yl.abs() ** 2).sum().backward()
    assert_same(mt.weight.grad, ml.weight.grad, rtol=1e-5, atol=1e-5)
    assert_same(mt.bias.grad, ml.bias.grad, rtol=1e-5, atol=1e-5)


# ---- fixed by the audit (tools/complex_audit.py) ----------------------------------------------------------

def test_float_power_complex():
    x = rand(3, 4, dtype=torch.complex64, seed=24)
    r = torch.randn(3, 4)
    for call in (lambda m, a, b: m.float_power(a, 2), lambda m, a, b: m.float_power(b, 1j),
                 lambda m, a, b: m.float_power(2j, b), lambda m, a, b: m.float_power(b, a),
                 lambda m, a, b: m.float_power(a, a), lambda m, a, b: m.float_power(2.5, a)):
        assert_same(call(torch, x, r), call(tl, to_tl(x), to_tl(r)), rtol=1e-12, atol=1e-12)
    xc = x.to(torch.complex128)
    xt, xl = xc.clone(), to_tl(xc)
    xt.float_power_(0.5 + 1j)
    xl.float_power_(0.5 + 1j)
    assert_same(xt, xl, rtol=1e-12, atol=1e-12)
    for m, conv in ((torch, lambda t: t), (tl, to_tl)):
        with pytest.raises(RuntimeError, match="requires dtype ComplexDouble"):
            m.float_power(conv(x), 2, out=m.empty(0, dtype=m.float64))
        with pytest.raises(RuntimeError, match="requires dtype ComplexDouble"):
            conv(x).clone().float_power_(2)
        with pytest.raises(RuntimeError, match="requires dtype ComplexDouble"):
            conv(r.double()).float_power_(1j)
        with pytest.raises(RuntimeError, match="requires dtype Double"):
            m.float_power(conv(r), 2, out=m.empty(0, dtype=m.complex128))
    grads_like_torch(lambda m, a: m.float_power(a, 1.5 - 0.5j), rand(3, seed=25))


@pytest.mark.parametrize("call,message", [
    (lambda m, x: m.deg2rad(x), "deg2rad is not supported for complex tensors"),
    (lambda m, x: m.rad2deg(x), "rad2deg is not supported for complex tensors"),
    (lambda m, x: m.heaviside(x, x), "heaviside is not yet implemented for complex tensors"),
    (lambda m, x: m.argmax(x), r"argmax\(\): does not support complex input"),
    (lambda m, x: m.argmin(x, 0), r"argmin\(\): does not support complex input"),
    (lambda m, x: m.max(x, 0), r"max\(\): does not support complex input"),
    (lambda m, x: m.min(x, 1, keepdim=True), r"min\(\): does not support complex input"),
    (lambda m, x: m.sort(x), "Sort does not support complex dtypes on CPU"),
    (lambda m, x: m.argsort(x, stable=True), "Sort does not support complex dtypes on CPU"),
    (lambda m, x: m.msort(x), "Sort does not support complex dtypes on CPU"),
    (lambda m, x: m.topk(x, 1), "topk does not support complex dtypes on CPU"),
])
def test_complex_refusals_are_runtime_errors(call, message):
    x = rand(2, 3, dtype=torch.complex64)
    for m, conv in ((torch, lambda t: t), (tl, to_tl)):
        with pytest.raises(RuntimeError, match=message) as info:
            call(m, conv(x))
        assert type(info.value) is RuntimeError or not isinstance(info.value, NotImplementedError)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_silu_complex(dtype):
    x = rand(3, 4, dtype=dtype, seed=26) * 3
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == torch.complex64 else dict(rtol=1e-12, atol=1e-12)
    F = torch.nn.functional
    assert_same(F.silu(x), TF.silu(to_tl(x)), **tol)
    assert_same(F.silu(x.t()), TF.silu(to_tl(x).t()), **tol)
    xt, xl = x.clone(), to_tl(x)
    F.silu(xt, inplace=True)
    TF.silu(xl, inplace=True)
    assert_same(xt, xl, **tol)
    # PyTorch has no complex derivative for silu: both refuse to record one
    for m, f in ((torch, F), (tl, TF)):
        with pytest.raises(RuntimeError, match="silu does not support automatic differentiation"):
            f.silu(m.ones(2, dtype=m.complex64, requires_grad=True))
