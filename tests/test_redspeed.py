"""Issue 9, part redspeed: the fast paths of the reduction engine against PyTorch, on shapes large enough
to take them (inner rows longer than one scan block, outer reductions cut into chunks, several threads):
max/min/argmax/argmin/amax/amin keep PyTorch's exact results (first index of ties, NaN propagates with its
first index) in every layout and dtype; sum/mean stay within float tolerance of PyTorch's and do not depend
on the thread count; and reductions over the dims of a 0-d tensor (mean(x, dim=0) among them) give
PyTorch's values and gradients."""
import math

import numpy as np
import pytest
import torch

import torchlite as tl
from conftest import assert_same, from_torch, to_torch


@pytest.fixture
def two_threads():
    old = tl.get_num_threads()
    tl.set_num_threads(2)
    yield
    tl.set_num_threads(old)


def tricky(shape, dtype, seed, nan=True):
    """Few distinct values (many ties), 0.0 beside -0.0, and (for floats) NaNs at random places."""
    g = torch.Generator().manual_seed(seed)
    t = torch.randint(-3, 4, shape, generator=g).to(torch.float64)
    t[t == 1] = -0.0
    dt = getattr(torch, dtype)
    if dt.is_floating_point and nan:
        flat = t.view(-1)
        pos = torch.randint(0, flat.numel(), (max(1, flat.numel() // 5000),), generator=g)
        flat[pos] = math.nan
    return t.to(dt)


LAYOUTS = {
    "contiguous": lambda t: t,
    "transposed": lambda t: t.t(),
    "sliced": lambda t: t[1::2, 3:],
    "expanded": lambda t: t[:1].expand(5, -1),
}


def check_indexed(x, a, op, dim, keepdim):
    got = getattr(tl, op)(x, dim, keepdim=keepdim)
    exp = getattr(torch, op)(a, dim, keepdim=keepdim)
    if op in ("max", "min"):
        assert_same(got[0], exp[0], atol=0, rtol=0)
        assert to_torch(got[1]).equal(exp[1])
        # 0.0 and -0.0 tie: the first one is returned, with its sign
        assert torch.equal(torch.signbit(to_torch(got[0]).double()), torch.signbit(exp[0].double()))
    else:
        assert to_torch(got).equal(exp)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "float16", "bfloat16", "int8", "uint8", "int64"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("op", ["max", "min", "argmax", "argmin"])
def test_indexed_reductions_match_torch_exactly(two_threads, op, layout, dtype):
    # rows of 9000 > one scan block (4096 float32, 2048 float64); 70 x 9000 outer: chunks merged
    base = tricky((70, 9000), "float64" if dtype.startswith("float") else "int64", 1)
    if dtype == "uint8":
        base = base.abs()
    a = LAYOUTS[layout](base.to(getattr(torch, dtype)))
    x = LAYOUTS[layout](from_torch(base.to(getattr(torch, dtype))))
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            check_indexed(x, a, op, dim, keepdim)
    if op in ("argmax", "argmin") and layout == "contiguous":
        assert getattr(tl, op)(x).item() == getattr(torch, op)(a).item()


@pytest.mark.parametrize("op", ["amax", "amin"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "bfloat16"])
def test_amax_amin_match_torch_exactly(two_threads, op, layout, dtype):
    a = LAYOUTS[layout](tricky((70, 9000), dtype, 2))
    x = LAYOUTS[layout](from_torch(tricky((70, 9000), dtype, 2)))
    for dim in (0, 1, (0, 1)):
        for keepdim in (False, True):
            assert_same(getattr(tl, op)(x, dim, keepdim=keepdim), getattr(torch, op)(a, dim, keepdim=keepdim),
                        atol=0, rtol=0)


@pytest.mark.parametrize("op", ["max", "argmax", "min", "argmin"])
def test_nan_position_in_every_block(op):
    """A single NaN anywhere in a long row wins, at its own index, even after an infinite value."""
    n = 20000
    for pos in (0, 1, 4095, 4096, 4097, 8191, 12345, n - 1):
        a = torch.zeros(3, n)
        a[1, 17] = math.inf if op in ("max", "argmax") else -math.inf
        a[1, pos] = math.nan
        a[2, pos] = math.nan
        a[2, n - 1 - pos // 2] = math.nan
        x = from_torch(a)
        for dim in (1, 0):
            check_indexed(x, a, op, dim, False)
            check_indexed(x.t().contiguous().t(), a, op, dim, False)


def test_argmax_ties_across_blocks_and_chunks():
    n = 1 << 20  # one row: chunked across tasks, scanned in blocks
    a = torch.zeros(n)
    for pos in (900000, 5000, 700000):
        a[pos] = 2.0
    x = from_torch(a)
    assert tl.argmax(x).item() == torch.argmax(a).item() == 5000
    assert tl.max(x, 0)[1].item() == 5000
    a2 = torch.zeros(n, 3)  # outer reduction over 2**20 rows, three outputs
    a2[777777, 1] = 5.0
    a2[777778, 1] = 5.0
    a2[999, 2] = math.nan
    a2[5, 2] = math.nan
    x2 = from_torch(a2)
    assert to_torch(tl.argmax(x2, 0)).equal(torch.argmax(a2, 0))
    assert to_torch(tl.argmin(x2, 0)).equal(torch.argmin(a2, 0))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int32", "int64", "bool", "uint8"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("op", ["sum", "mean"])
def test_sum_mean_large_match_torch(two_threads, op, layout, dtype):
    if op == "mean" and not dtype.startswith(("float", "bfloat")):
        return
    g = torch.Generator().manual_seed(3)
    base = torch.randn(70, 9000, generator=g, dtype=torch.float64) * 100 + 10
    base[3, 5] = math.nan
    base = base if dtype.startswith(("float", "bfloat")) else base.nan_to_num(0).round().clamp(-100, 100)
    a = LAYOUTS[layout](base.to(getattr(torch, dtype)))
    x = LAYOUTS[layout](from_torch(base.to(getattr(torch, dtype))))
    tol = {"float16": 5e-3, "bfloat16": 2e-2, "float32": 1e-5, "float64": 1e-12}.get(dtype, 0)
    for dim in (0, 1, None, (0, 1)):
        for keepdim in (False, True):
            exp = getattr(torch, op)(a, dim, keepdim=keepdim) if dim is not None else getattr(torch, op)(a)
            got = getattr(tl, op)(x, dim, keepdim=keepdim) if dim is not None else getattr(tl, op)(x)
            assert_same(got, exp, atol=tol * exp.double().abs().nan_to_num(0).max().item(), rtol=tol)


@pytest.mark.parametrize("op", ["sum", "mean", "amax", "argmax", "max", "var", "prod"])
@pytest.mark.parametrize("dim", [0, 1, None])
def test_results_do_not_depend_on_the_thread_count(op, dim):
    a = np.random.default_rng(4).standard_normal((3000, 700)).astype(np.float32) + 0.5
    x = tl.from_numpy(a)
    old = tl.get_num_threads()
    res = []
    try:
        for n in (1, 2):
            tl.set_num_threads(n)
            r = getattr(tl, op)(x) if dim is None else getattr(tl, op)(x, dim)
            res.append(r if op != "max" or dim is None else r[1])
    finally:
        tl.set_num_threads(old)
    assert res[0].numpy().tobytes() == res[1].numpy().tobytes()


# ---------------------------------------------------------------- reductions over the dims of a 0-d tensor

ZERO_D_OPS = {
    "mean": lambda m, x, d, k: m.mean(x, d, keepdim=k),
    "mean(dtype=float64)": lambda m, x, d, k: m.mean(x, d, keepdim=k, dtype=m.float64),
    "sum": lambda m, x, d, k: m.sum(x, d, keepdim=k),
    "nansum": lambda m, x, d, k: m.nansum(x, d, keepdim=k),
    "nanmean": lambda m, x, d, k: m.nanmean(x, d, keepdim=k),
    "var": lambda m, x, d, k: m.var(x, d, correction=0, keepdim=k),
    "std": lambda m, x, d, k: m.std(x, d, correction=0, keepdim=k),
    "var_mean": lambda m, x, d, k: sum(m.var_mean(x, d, correction=0, keepdim=k)),
    "std_mean[1]": lambda m, x, d, k: m.std_mean(x, d, correction=0, keepdim=k)[1],
    "prod": lambda m, x, d, k: m.prod(x, d if isinstance(d, int) else d[0], keepdim=k),
    "logsumexp": lambda m, x, d, k: m.logsumexp(x, d, keepdim=k),
    "amax": lambda m, x, d, k: m.amax(x, d, keepdim=k),
    "amin": lambda m, x, d, k: m.amin(x, d, keepdim=k),
    "max.dim": lambda m, x, d, k: m.max(x, d if isinstance(d, int) else d[0], keepdim=k)[0],
    "min.dim": lambda m, x, d, k: m.min(x, d if isinstance(d, int) else d[0], keepdim=k)[0],
}


def value_grad_gradgrad(m, fn, v, dtype, d, k):
    x = m.tensor(v, dtype=getattr(m, dtype), requires_grad=True)
    y = fn(m, x, d, k)
    (g,) = m.autograd.grad(y, x, create_graph=True)
    (gg,) = m.autograd.grad(g * 3.0 + y * y, x)
    return tuple(y.shape), str(y.dtype).split(".")[-1], [y.item(), g.item(), gg.item()]


@pytest.mark.parametrize("op", list(ZERO_D_OPS))
@pytest.mark.parametrize("dim", [0, -1, (0,), (-1,)])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("value", [2.5, -3.0, -0.0, math.nan])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_zero_dim_reduction_over_dim_value_and_gradients(op, dim, keepdim, value, dtype):
    fn = ZERO_D_OPS[op]
    exp = value_grad_gradgrad(torch, fn, value, dtype, dim, keepdim)
    got = value_grad_gradgrad(tl, fn, value, dtype, dim, keepdim)
    assert got[:2] == exp[:2]
    same = all(g == e or (math.isnan(g) and math.isnan(e)) for g, e in zip(got[2], exp[2]))
    assert same, (got, exp)


@pytest.mark.parametrize("op", ["sum", "mean", "nansum"])
def test_zero_dim_negative_zero_sums_to_positive_zero(op):
    a = torch.tensor(-0.0)
    for dim in (None, 0):
        exp = getattr(torch, op)(a) if dim is None else getattr(torch, op)(a, dim)
        got = getattr(tl, op)(tl.tensor(-0.0)) if dim is None else getattr(tl, op)(tl.tensor(-0.0), dim)
        assert math.copysign(1, got.item()) == math.copysign(1, exp.item()) == 1.0
