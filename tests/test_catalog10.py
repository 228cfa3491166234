"""Issue 10's catalog gaps: dist, trapezoid / trapz / cumulative_trapezoid, torch.vander, narrow_copy,
block_diag, cartesian_prod, combinations. Values, dtypes, errors and gradients against PyTorch; the generated
suites run their YAML samples in every dtype and layout besides."""
import itertools

import numpy as np
import pytest
import torch

import torchlite as tl

INF = float("inf")


def to_tl(x, requires_grad=False):
    if x.dtype == torch.bfloat16:  # NumPy has no bfloat16: through float32, exact
        return to_tl(x.float(), requires_grad).to(tl.bfloat16)
    t = tl.from_numpy(x.detach().numpy().copy())
    return t.requires_grad_() if requires_grad else t


def conv(m):
    return (lambda t: t) if m is torch else to_tl


def same(a, b, rtol=1e-6, atol=1e-7):
    assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], (a.dtype, b.dtype)
    if a.dtype == torch.bfloat16:
        a, b = a.float(), b.float()
    np.testing.assert_allclose(b.detach().numpy(), a.detach().resolve_conj().numpy(), rtol=rtol, atol=atol,
                               equal_nan=True)


def both(call, rtol=1e-6, atol=1e-7):
    """call(lib, to_lib) in both libraries: the same values, or the same exception type and message."""
    try:
        expected = call(torch, conv(torch))
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)) as info:
            call(tl, conv(tl))
        assert str(e).strip() in str(info.value), (str(e), str(info.value))
        return
    got = call(tl, conv(tl))
    if isinstance(expected, torch.Tensor):
        same(expected, got, rtol, atol)
    else:
        assert expected == got


def grads_like_torch(fn, *inputs, rtol=1e-7, atol=1e-10):
    t_in = [x.detach().clone().requires_grad_() for x in inputs]
    l_in = [to_tl(x, True) for x in inputs]
    out_t, out_l = fn(torch, *t_in), fn(tl, *l_in)
    same(out_t, out_l, 1e-10, 1e-12)
    w = torch.randn(out_t.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    g_t = torch.autograd.grad((out_t.abs() * w).sum() if out_t.is_complex() else (out_t * w).sum(), t_in)
    wl = to_tl(w)
    g_l = tl.autograd.grad((out_l.abs() * wl).sum() if out_l.is_complex() else (out_l * wl).sum(), l_in)
    for a, b in zip(g_t, g_l):
        np.testing.assert_allclose(b.numpy(), a.resolve_conj().numpy(), rtol=rtol, atol=atol)


def rand(*shape, dtype=torch.float64, seed=0):
    return torch.randn(*shape, dtype=dtype, generator=torch.Generator().manual_seed(seed))


# ---- dist ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [2, 1, 0, 3.5, 0.5, -1.5, INF, -INF])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.complex64, torch.complex128])
def test_dist_values(p, dtype):
    a, b = rand(3, 4, dtype=dtype, seed=1), rand(4, dtype=dtype, seed=2)
    a[0, 0] = b[0]  # a zero difference (p = 0 counts it out, negative p gives 0 as PyTorch)
    rtol = 1e-5 if dtype in (torch.float32, torch.complex64) else 1e-12
    both(lambda m, c: m.dist(c(a), c(b), p), rtol=rtol)
    both(lambda m, c: c(a).t().dist(c(b[:3]), p=p), rtol=rtol)


def test_dist_dtypes_and_errors():
    f = rand(4, dtype=torch.float32)
    both(lambda m, c: m.dist(c(f), c(f.double())))                     # promotion
    both(lambda m, c: m.dist(c(f), c(f.to(torch.complex64) * 1j)))     # complex: real result
    both(lambda m, c: m.dist(c(f.half()), c(f.half() * 2)), rtol=1e-3)
    both(lambda m, c: m.dist(c(f.bfloat16()), c(f.bfloat16() * 2)), rtol=1e-2)
    both(lambda m, c: m.dist(c(torch.zeros(0)), c(torch.zeros(0))))
    both(lambda m, c: m.dist(c(torch.tensor(2.0)), c(torch.tensor(-1.0)), 3))
    both(lambda m, c: m.dist(c(torch.arange(4)), c(torch.arange(4))))    # integers refused
    both(lambda m, c: m.dist(c(f), c(torch.ones(3))))                    # shapes must broadcast
    with pytest.raises(TypeError):
        tl.dist(to_tl(f), to_tl(f), out=tl.empty(0))                    # no out= in PyTorch's binding


def test_dist_gradients():
    a, b = rand(3, 4, seed=3), rand(3, 4, seed=4)
    for p in (2, 1, 3.5, INF):
        grads_like_torch(lambda m, x, y: m.dist(x, y, p), a, b)
    ac, bc = rand(3, 4, dtype=torch.complex128, seed=5), rand(4, dtype=torch.complex128, seed=6)
    grads_like_torch(lambda m, x, y: m.dist(x, y, 2), ac, bc)
    grads_like_torch(lambda m, x, y: m.dist(x, y, 1.5), ac, bc)
    assert tl.autograd.gradcheck(lambda x, y: tl.dist(x, y, 3), [to_tl(ac, True), to_tl(bc, True)])


# ---- trapezoid, trapz, cumulative_trapezoid -------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.uint8, torch.float16,
                                   torch.complex64])
def test_trapezoid_dx(dtype):
    y = (rand(3, 5, seed=7) * 4).to(dtype)
    rtol = 1e-2 if dtype == torch.float16 else 1e-5
    for kw in ({}, {"dx": 0.5}, {"dx": 2, "dim": 0}, {"dim": -2}, {"dx": -1.5, "dim": 1}):
        both(lambda m, c: m.trapezoid(c(y), **kw), rtol=rtol)
        both(lambda m, c: m.cumulative_trapezoid(c(y), **kw), rtol=rtol)
        both(lambda m, c: m.trapz(c(y), **kw), rtol=rtol)
    both(lambda m, c: m.trapezoid(c(y).t(), dx=0.25), rtol=rtol)


def test_trapezoid_x():
    y, x = rand(2, 3, 4, seed=8), rand(4, seed=9).cumsum(0)
    both(lambda m, c: m.trapezoid(c(y), c(x)))
    both(lambda m, c: m.trapezoid(c(y), x=c(x[:3]), dim=1))
    both(lambda m, c: m.trapezoid(c(y), c(rand(2, 3, 4, seed=10))))          # same shape
    both(lambda m, c: m.trapezoid(c(y), c(rand(3, 1, seed=11)), dim=1))      # lower rank: leading 1s
    both(lambda m, c: m.cumulative_trapezoid(c(y), c(x)))
    both(lambda m, c: m.cumulative_trapezoid(c(y), c(rand(2, 3, 4, seed=12)), dim=0))
    both(lambda m, c: m.trapz(c(y), c(x)))
    both(lambda m, c: m.trapezoid(c(torch.arange(5)), c(torch.arange(5) ** 2)))  # integers: float result
    both(lambda m, c: m.trapezoid(c(y.to(torch.complex128)), c(x)))
    both(lambda m, c: m.trapezoid(c(y.float()), c(x)))                        # promotion float32 * float64


def test_trapezoid_edges_and_errors():
    both(lambda m, c: m.trapezoid(c(torch.ones(3, 0))))                       # zero samples: zeros
    both(lambda m, c: m.trapezoid(c(torch.ones(3, 0, dtype=torch.int32))))    # ... of y's dtype
    both(lambda m, c: m.trapezoid(c(torch.ones(3, 0)), c(torch.ones(0))))
    both(lambda m, c: m.trapezoid(c(torch.ones(3, 1))))                       # one sample: 0
    both(lambda m, c: m.cumulative_trapezoid(c(torch.ones(3, 0))))
    both(lambda m, c: m.cumulative_trapezoid(c(torch.ones(0, 3)), dim=0))
    both(lambda m, c: m.trapezoid(c(torch.ones(3).bool())))
    both(lambda m, c: m.cumulative_trapezoid(c(torch.ones(3).bool())))
    both(lambda m, c: m.trapezoid(c(torch.ones(3)), c(torch.ones(3).bool())))
    both(lambda m, c: m.trapezoid(c(torch.ones(3)), dx=1j))
    both(lambda m, c: m.cumulative_trapezoid(c(torch.ones(3)), dx=True))
    both(lambda m, c: m.trapezoid(c(torch.ones(4)), c(torch.ones(3))))
    both(lambda m, c: m.cumulative_trapezoid(c(torch.ones(2, 4)), c(torch.ones(3)), dim=1))
    both(lambda m, c: m.trapezoid(c(torch.ones(3, 4)), dim=2))
    for m in (torch, tl):
        with pytest.raises(IndexError):
            m.trapezoid(m.tensor(1.0))
        with pytest.raises(IndexError):
            m.cumulative_trapezoid(m.tensor(1.0))
    e = tl.empty(3, 5, device="meta")
    assert tl.trapezoid(e).shape == (3,) and tl.cumulative_trapezoid(e, dim=0).shape == (2, 5)


def test_trapezoid_gradients():
    y, x = rand(3, 4, seed=13), rand(4, seed=14)
    grads_like_torch(lambda m, a: m.trapezoid(a, dx=0.5), y)
    grads_like_torch(lambda m, a, b: m.trapezoid(a, b), y, x)
    grads_like_torch(lambda m, a, b: m.cumulative_trapezoid(a, b, dim=1), y, x)
    grads_like_torch(lambda m, a: m.cumulative_trapezoid(a, dx=2, dim=0), y)
    yc = rand(3, 4, dtype=torch.complex128, seed=15)
    grads_like_torch(lambda m, a, b: m.trapezoid(a, b), yc, x)
    assert tl.autograd.gradcheck(lambda a, b: tl.cumulative_trapezoid(a, b), [to_tl(yc, True), to_tl(x, True)])


# ---- vander ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int8, torch.int64, torch.uint8, torch.bool,
                                   torch.float16, torch.bfloat16, torch.complex64])
def test_vander_values(dtype):
    x = (rand(4, seed=16) * 2).to(dtype)
    rtol = 1e-2 if dtype in (torch.float16, torch.bfloat16) else 1e-6
    for args, kw in (((), {}), ((3,), {}), ((), {"N": 6}), ((5, True), {}), ((), {"increasing": True}),
                     ((1,), {}), ((0,), {})):
        both(lambda m, c: m.vander(c(x), *args, **kw), rtol=rtol)


def test_vander_edges_errors_and_linalg_convention():
    both(lambda m, c: m.vander(c(torch.zeros(0))))
    both(lambda m, c: m.vander(c(torch.zeros(0)), 3))
    both(lambda m, c: m.vander(c(rand(6)[::2])))
    both(lambda m, c: m.vander(c(torch.arange(3)), -1))
    both(lambda m, c: m.vander(c(torch.ones(2, 2))))
    both(lambda m, c: m.vander(c(torch.tensor(2.0))))
    # torch.vander's default order is decreasing powers; linalg.vander's is increasing
    x = to_tl(rand(4, seed=17))
    same(torch.from_numpy(tl.linalg.vander(x, N=3).numpy()), tl.vander(x, 3, increasing=True))
    same(torch.from_numpy(tl.vander(x, 3).flip(1).numpy()), tl.vander(x, 3, True))
    assert tl.vander(tl.empty(5, device="meta"), 3).shape == (5, 3)


def test_vander_gradients():
    x = rand(4, seed=18)
    x[1] = 0  # the running product keeps the gradient at 0 finite
    # PyTorch's vander backward raises (its in-place cumprod_out), so the oracle is gradcheck and x**k's
    # derivative computed by hand.
    xl = to_tl(x, True)
    assert tl.autograd.gradcheck(lambda a: tl.vander(a, 4), [xl])
    assert tl.autograd.gradgradcheck(lambda a: tl.vander(a, 3, True), [xl])
    (g,) = tl.autograd.grad(tl.vander(xl, 4).sum(), [xl])
    np.testing.assert_allclose(g.numpy(), (3 * x ** 2 + 2 * x + 1).numpy(), rtol=1e-12)


# ---- narrow_copy ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.int16, torch.bool, torch.complex128, torch.bfloat16])
def test_narrow_copy_values(dtype):
    x = (rand(4, 5, seed=19) * 3).to(dtype)
    for args in ((0, 1, 2), (1, -3, 2), (-1, 0, 5), (0, 4, 0), (1, 5, 0), (0, -4, 4)):
        both(lambda m, c: m.narrow_copy(c(x), *args))
        both(lambda m, c: c(x).t().narrow_copy(*args))
    r = tl.narrow_copy(to_tl(x).t(), 0, 1, 2)
    assert r.is_contiguous()
    y = to_tl(x)
    r = y.narrow_copy(0, 0, 2)
    r.zero_()  # a copy: the input is unchanged
    same(x, y)


def test_narrow_copy_out_and_errors():
    x = rand(4, 5, seed=20).float()
    for m, c in ((torch, conv(torch)), (tl, conv(tl))):
        out = m.empty(0)
        assert m.narrow_copy(c(x), 1, 1, 3, out=out) is out
        same(x[:, 1:4], out)
        with pytest.raises(RuntimeError):
            m.narrow_copy(c(x), 1, 1, 3, out=m.empty(0, dtype=m.float64))  # exact dtype
    both(lambda m, c: m.narrow_copy(c(x), 0, 3, 2))
    both(lambda m, c: m.narrow_copy(c(x), 0, 5, 1))
    both(lambda m, c: m.narrow_copy(c(x), 0, -6, 1))
    for m, c in ((torch, conv(torch)), (tl, conv(tl))):  # PyTorch's message is its assertion's text
        with pytest.raises(RuntimeError, match="Expected dim <"):
            m.narrow_copy(c(x), 2, 0, 1)
    both(lambda m, c: m.narrow_copy(c(x), -3, 0, 1))
    both(lambda m, c: m.narrow_copy(c(torch.tensor(1.0)), 0, 0, 1))
    assert tl.narrow_copy(tl.empty(4, 5, device="meta"), 1, 1, 3).shape == (4, 3)


def test_narrow_copy_gradients():
    x = rand(4, 5, seed=21)
    grads_like_torch(lambda m, a: m.narrow_copy(a, 1, 1, 3), x)
    grads_like_torch(lambda m, a: a.narrow_copy(0, 2, 2), x.to(torch.complex128))
    assert tl.autograd.gradcheck(lambda a: tl.narrow_copy(a, 0, -2, 2), [to_tl(x, True)])


# ---- block_diag, cartesian_prod, combinations ------------------------------------------------------------------

def test_block_diag():
    a, b, c_ = rand(2, 3, seed=22), rand(1, 2, seed=23), rand(3, seed=24)
    both(lambda m, c: m.block_diag(c(a), c(b), c(c_)))
    both(lambda m, c: m.block_diag(c(a).t(), c(torch.tensor(5.0))))
    both(lambda m, c: m.block_diag(c(a)))
    both(lambda m, c: m.block_diag())
    both(lambda m, c: m.block_diag(c(torch.arange(3)), c(a.float()), c(torch.ones(1, 1, dtype=torch.bool))))
    both(lambda m, c: m.block_diag(c(a), c(torch.ones(2, 2, dtype=torch.complex64))))
    both(lambda m, c: m.block_diag(c(torch.ones(0, 3)), c(torch.ones(2, 0)), c(a)))
    both(lambda m, c: m.block_diag(c(a), c(torch.ones(2, 2, 2))))
    both(lambda m, c: m.block_diag(c(torch.ones(2, dtype=torch.bool)), c(torch.ones(1, dtype=torch.bool))))
    same(torch.block_diag(torch.from_numpy(np.ones((2, 2)))), tl.block_diag(tl.ones(2, 2, dtype=tl.float64)))
    assert tl.block_diag(tl.empty(2, 3, device="meta"), tl.empty(4, device="meta")).shape == (3, 7)
    grads_like_torch(lambda m, x, y, z: m.block_diag(x, y, z), a, b, c_)
    grads_like_torch(lambda m, x, y: m.block_diag(x, y), a, rand(2, 2, dtype=torch.complex128, seed=25))


def test_cartesian_prod():
    a, b = rand(3, seed=26), rand(2, seed=27)
    both(lambda m, c: m.cartesian_prod(c(a), c(b)))
    both(lambda m, c: m.cartesian_prod(c(a), c(b), c(a[:2])))
    both(lambda m, c: m.cartesian_prod(c(a)))
    both(lambda m, c: m.cartesian_prod(c(a), c(torch.zeros(0, dtype=torch.float64))))
    both(lambda m, c: m.cartesian_prod(c(torch.arange(3)), c(torch.arange(2))))
    both(lambda m, c: m.cartesian_prod(c(a), c(torch.ones(2, 2, dtype=torch.float64))))
    both(lambda m, c: m.cartesian_prod(c(a), c(b.float())))
    both(lambda m, c: m.cartesian_prod())
    expected = np.array(list(itertools.product(a.numpy(), b.numpy())))
    np.testing.assert_array_equal(tl.cartesian_prod(to_tl(a), to_tl(b)).numpy(), expected)
    grads_like_torch(lambda m, x, y: m.cartesian_prod(x, y), a, b)


@pytest.mark.parametrize("r", [0, 1, 2, 3, 4, 5])
@pytest.mark.parametrize("with_replacement", [False, True])
def test_combinations(r, with_replacement):
    x = rand(4, seed=28)
    both(lambda m, c: m.combinations(c(x), r, with_replacement))
    both(lambda m, c: m.combinations(c(x), r=r, with_replacement=with_replacement))
    both(lambda m, c: m.combinations(c(torch.zeros(0)), r, with_replacement))
    both(lambda m, c: m.combinations(c(torch.arange(5, dtype=torch.int16)), r, with_replacement))
    if r:
        make = itertools.combinations_with_replacement if with_replacement else itertools.combinations
        expected = np.array(list(make(range(6), r))).reshape(-1, r)
        np.testing.assert_array_equal(tl.combinations(tl.arange(6), r, with_replacement).numpy(), expected)
        assert tl.combinations(tl.empty(6, device="meta"), r, with_replacement).shape == expected.shape


def test_combinations_errors_and_gradients():
    both(lambda m, c: m.combinations(c(torch.ones(2, 2))))
    both(lambda m, c: m.combinations(c(torch.tensor(1.0))))
    both(lambda m, c: m.combinations(c(torch.ones(3)), -1))
    x = rand(5, seed=29)
    grads_like_torch(lambda m, a: m.combinations(a, 3), x)
    grads_like_torch(lambda m, a: m.combinations(a, 2, True), x.to(torch.complex128))


# ---- cumprod's second derivative where the input has zeros (found through vander) ------------------------

@pytest.mark.parametrize("dtype", [torch.float64, torch.complex128])
def test_cumprod_double_backward_with_zeros(dtype):
    y = torch.tensor([[0.0, 0.5, 2.0, -1.0], [1.0, 0.0, 0.0, 3.0], [3.0, 1.0, 0.5, 0.0]], dtype=torch.float64)
    y = y.to(dtype) * (1 + 0.5j if dtype == torch.complex128 else 1)
    for dim in (0, 1):
        assert tl.autograd.gradgradcheck(lambda a: tl.cumprod(a, dim), [to_tl(y, True)])
        # second derivatives along a fixed direction, against PyTorch's
        grads = []
        for m in (torch, tl):
            a = y.detach().clone().requires_grad_() if m is torch else to_tl(y, True)
            v = torch.ones(y.shape, dtype=dtype) if m is torch else tl.ones(*y.shape, dtype=tl.complex128 if dtype == torch.complex128 else tl.float64)
            (g,) = m.autograd.grad(m.cumprod(a, dim), [a], v, create_graph=True)
            (gg,) = m.autograd.grad((g.abs() ** 2).sum(), [a])
            grads.append(gg.detach().resolve_conj().numpy() if m is torch else gg.numpy())
        np.testing.assert_allclose(grads[1], grads[0], rtol=1e-10, atol=1e-12)
    assert tl.autograd.gradgradcheck(lambda a: tl.linalg.vander(a, N=4), [to_tl(torch.tensor([0.0, 0.5], dtype=torch.float64), True)])
