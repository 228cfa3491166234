"""median, nanmedian, mode, quantile, nanquantile, msort and unique against PyTorch where the YAML
samples cannot say it: which index among ties and NaNs (over random grids full of them), the
Python-level unique forms, out= and errors."""
import itertools

import pytest
import torch

import torchlite as tl
from conftest import assert_same, from_torch, to_torch

nan = float("nan")


def grid(shape, dtype, seed, nan_rate=0.0, levels=4):
    """Values with many ties (few distinct levels) and, for floats, NaNs and signed zeros."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(-levels // 2, levels - levels // 2, shape, generator=g).to(torch.float64)
    if dtype.is_floating_point:
        x = torch.where(torch.rand(shape, generator=g) < 0.1, -0.0 * torch.ones(shape), x)
        if nan_rate:
            x = torch.where(torch.rand(shape, generator=g, dtype=torch.float64) < nan_rate, nan, x)
    return x.to(dtype)


def same_exact(got, expected):
    """Equal shape, dtype and values, NaN equal to NaN and the sign of zeros compared."""
    assert_same(got, expected)
    g = to_torch(got)
    if expected.dtype.is_floating_point:
        g = g.to(expected.dtype)
        zeros = expected == 0  # the sign of NaN does not survive bfloat16 conversions: zeros only
        assert torch.equal(torch.signbit(g[zeros]), torch.signbit(expected[zeros])), (g, expected)


def both(fn, t):
    return fn(tl, from_torch(t)), fn(torch, t)


def assert_tuple(got, expected):
    assert type(got) is type(expected) or isinstance(got, tuple) == isinstance(expected, tuple)
    if isinstance(expected, torch.Tensor):
        same_exact(got, expected)
        return
    assert len(got) == len(expected)
    for a, b in zip(got, expected):
        same_exact(a, b)


SHAPES = [(7,), (5, 9), (3, 40), (2, 3, 33), (65,), (1, 200)]


# ---------------------------------------------------------------- median / nanmedian

@pytest.mark.parametrize("op", ["median", "nanmedian"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int16, torch.float16])
@pytest.mark.parametrize("seed", range(4))
def test_median_dim_indices_like_torch(op, dtype, seed):
    for shape in SHAPES:
        x = grid(shape, dtype, seed, nan_rate=0.15)
        for dim in range(-len(shape), len(shape)):
            for keepdim in (False, True):
                got, expected = both(lambda L, t: getattr(L, op)(t, dim, keepdim), x)
                same_exact(got.values, expected.values)
                same_exact(got.indices, expected.indices)


@pytest.mark.parametrize("op", ["median", "nanmedian"])
def test_median_dim_transposed_and_all_nan(op):
    x = grid((40, 6), torch.float32, 9, nan_rate=0.3)
    got, expected = both(lambda L, t: getattr(L, op)(t.t(), 1), x)
    same_exact(got.indices, expected.indices)
    for n in (1, 2, 3, 16, 17, 50, 257):
        x = torch.full((3, n), nan)
        got, expected = both(lambda L, t: getattr(L, op)(t, 1), x)
        same_exact(got.values, expected.values)
        same_exact(got.indices, expected.indices)


@pytest.mark.parametrize("op", ["median", "nanmedian"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int32, torch.uint8, torch.bfloat16])
def test_median_all_like_torch(op, dtype):
    for seed, shape in enumerate([(1,), (2,), (10,), (6, 7), (3, 50), (1000,)]):
        x = grid(shape, dtype, seed, nan_rate=0.05 if seed % 2 else 0.0)
        got, expected = both(lambda L, t: getattr(L, op)(t), x)
        same_exact(got, expected)
        if x.dim() == 2:
            got, expected = both(lambda L, t: getattr(L, op)(t.t()), x)
            same_exact(got, expected)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32, torch.int16, torch.int8,
                                   torch.uint8, torch.float16])
def test_median_of_empty_is_nan_in_its_dtype(dtype):
    for op in ("median", "nanmedian"):
        got, expected = both(lambda L, t: getattr(L, op)(t), torch.empty(0, dtype=dtype))
        same_exact(got, expected)


def test_median_errors_like_torch():
    for fn in (lambda L: L.median(L.zeros(0, 3), 0), lambda L: L.nanmedian(L.zeros(0, 3), -2),
               lambda L: L.mode(L.zeros(3, 0), 1), lambda L: L.mode(L.tensor([])),
               lambda L: L.median(L.tensor([True, False])), lambda L: L.median(L.tensor([True]), 0),
               lambda L: L.median(L.tensor(3.0), 1)):
        with pytest.raises(Exception) as theirs:
            fn(torch)
        with pytest.raises(type(theirs.value)) as ours:
            fn(tl)
        assert type(ours.value) is type(theirs.value)
    # empty results where the reduced dim is not the empty one
    for fn in (lambda L: L.median(L.zeros(0, 3), 1), lambda L: L.mode(L.zeros(0, 3), 1),
               lambda L: L.nanmedian(L.zeros(3, 0), 0)):
        got, expected = fn(tl), fn(torch)
        assert_tuple(tuple(got), tuple(expected))


def test_median_out():
    x = grid((4, 9), torch.float32, 1, nan_rate=0.1)
    ours = (tl.empty(0), tl.empty(0, dtype=tl.int64))
    theirs = (torch.empty(0), torch.empty(0, dtype=torch.int64))
    r = tl.nanmedian(from_torch(x), 1, True, out=ours)
    torch.nanmedian(x, 1, True, out=theirs)
    assert r.values is ours[0] and r.indices is ours[1]
    assert_tuple(ours, theirs)
    with pytest.raises(RuntimeError):
        tl.median(from_torch(x), 1, out=(tl.empty(0, dtype=tl.float64), tl.empty(0, dtype=tl.int64)))


# ---------------------------------------------------------------- mode

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int8, torch.bool, torch.float16,
                                   torch.bfloat16])
@pytest.mark.parametrize("seed", range(3))
def test_mode_like_torch(dtype, seed):
    for shape in SHAPES + [(3, 1000)]:
        x = grid(shape, dtype, seed, nan_rate=0.2)
        for dim in range(-len(shape), len(shape)):
            got, expected = both(lambda L, t: L.mode(t, dim, dim % 2 == 0), x)
            same_exact(got.values, expected.values)
            same_exact(got.indices, expected.indices)


def test_mode_out_and_method():
    x = grid((5, 30), torch.int64, 3)
    ours = (tl.empty(0, dtype=tl.int64), tl.empty(0, dtype=tl.int64))
    theirs = (torch.empty(0, dtype=torch.int64), torch.empty(0, dtype=torch.int64))
    tl.mode(from_torch(x), out=ours)
    torch.mode(x, out=theirs)
    assert_tuple(ours, theirs)
    assert_tuple(tuple(from_torch(x).mode(0)), tuple(x.mode(0)))


# ---------------------------------------------------------------- quantile / nanquantile

MODES = ["linear", "lower", "higher", "midpoint", "nearest"]


@pytest.mark.parametrize("op", ["quantile", "nanquantile"])
@pytest.mark.parametrize("interpolation", MODES)
def test_quantile_like_torch(op, interpolation):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(6, 7, generator=g, dtype=torch.float64)
    x[torch.rand(6, 7, generator=g) < 0.2] = nan
    x[2] = nan
    qs = [0.0, 0.13, 0.5, 1.0, torch.tensor(0.7, dtype=torch.float64),
          torch.tensor([0.0, 0.25, 0.5, 0.75, 1.0], dtype=torch.float64)]
    for q, dim, keepdim in itertools.product(qs, [None, 0, 1, -1], [False, True]):
        lq = from_torch(q) if isinstance(q, torch.Tensor) else q
        got = getattr(tl, op)(from_torch(x), lq, dim, keepdim, interpolation=interpolation)
        expected = getattr(torch, op)(x, q, dim, keepdim, interpolation=interpolation)
        assert_same(got, expected)
        got = getattr(from_torch(x).float(), op)(lq.float() if isinstance(lq, tl.Tensor) else lq, dim=dim)
        expected = getattr(x.float(), op)(q.float() if isinstance(q, torch.Tensor) else q, dim=dim)
        assert_same(got, expected)


def test_quantile_out_and_errors():
    x = torch.randn(4, 5)
    out = tl.empty(0)
    r = tl.quantile(from_torch(x), torch.tensor([0.2, 0.8]).numpy().tolist()[0], 1, out=out)
    assert r is out
    assert_same(out, torch.quantile(x, 0.2, 1))
    out = tl.empty(0)
    tl.nanquantile(from_torch(x), from_torch(torch.tensor([0.2, 0.8])), 0, True, out=out)
    assert_same(out, torch.nanquantile(x, torch.tensor([0.2, 0.8]), 0, True))
    bad = [
        lambda L, t: L.quantile(t, 1.5),
        lambda L, t: L.quantile(t, L.tensor([0.5, -0.1])),
        lambda L, t: L.quantile(t, L.tensor([[0.5]])),
        lambda L, t: L.quantile(t, L.tensor([0.5], dtype=L.float64)),
        lambda L, t: L.quantile(t.long(), 0.5),
        lambda L, t: L.quantile(t.half(), 0.5),
        lambda L, t: L.quantile(t[:0], 0.5),
        lambda L, t: L.quantile(t, 0.5, interpolation="cubic"),
        lambda L, t: L.quantile(t, 0.5, 2),
        lambda L, t: L.quantile(t, 0.5, out=L.empty(0, dtype=L.float64)),
        lambda L, t: L.nanquantile(t, L.tensor(nan)),
    ]
    for fn in bad:
        with pytest.raises(Exception) as theirs:
            fn(torch, x)
        with pytest.raises(type(theirs.value)):
            fn(tl, from_torch(x))


def test_quantile_gradient_like_torch():
    x = torch.randn(5, 6, dtype=torch.float64)
    q = torch.tensor([0.1, 0.45, 0.8], dtype=torch.float64)
    for op, interpolation in itertools.product(["quantile", "nanquantile"], MODES):
        xt, qt = x.clone().requires_grad_(), q.clone().requires_grad_()
        xl, ql = from_torch(x).requires_grad_(), from_torch(q).requires_grad_()
        getattr(torch, op)(xt, qt, 1, interpolation=interpolation).sum().backward()
        getattr(tl, op)(xl, ql, 1, interpolation=interpolation).sum().backward()
        assert_same(xl.grad, xt.grad)
        if qt.grad is None:
            assert ql.grad is None or not to_torch(ql.grad).any()
        else:
            assert_same(ql.grad, qt.grad)


def test_quantile_meta_shape():
    x = tl.empty(4, 5, device="meta")
    assert tl.quantile(x, tl.empty(3, device="meta"), 1, True).shape == (3, 4, 1)
    assert tl.median(x, 0).values.shape == (5,)
    assert tl.mode(x, 1, True).indices.shape == (4, 1)


# ---------------------------------------------------------------- msort

def test_msort_like_torch():
    # values only: -0.0 and 0.0 may come in another order (sort is stable here, see along_dim.md)
    x = grid((20, 3), torch.float32, 2, nan_rate=0.2)
    assert_same(tl.msort(from_torch(x)), torch.msort(x))
    assert_same(from_torch(x).msort(), x.msort())
    out = tl.empty(0)
    assert tl.msort(from_torch(x), out=out) is out
    assert_same(out, torch.msort(x))
    with pytest.raises(RuntimeError):
        tl.msort(from_torch(x), out=tl.empty(0, dtype=tl.float64))


# ---------------------------------------------------------------- unique

FLAGS = list(itertools.product([False, True], repeat=3))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64,
                                   torch.int32, torch.uint8, torch.int8, torch.bool])
def test_unique_like_torch(dtype):
    for seed, shape in enumerate([(0,), (1,), (5,), (4, 6), (3, 100), (2000,), ()]):
        x = grid(shape, dtype, seed, nan_rate=0.1, levels=7)
        for sorted_, inv, cnt in FLAGS:
            got, expected = both(lambda L, t: L.unique(t, sorted_, inv, cnt), x)
            assert_tuple(got, expected)
            got, expected = both(lambda L, t: t.unique(sorted=sorted_, return_inverse=inv, return_counts=cnt), x)
            assert_tuple(got, expected)
        got, expected = both(lambda L, t: L._unique(t, True, True), x)
        assert_tuple(got, expected)


def test_unique_nan_order_and_signed_zeros_like_torch():
    """The order of NaN groups (their inverse indices) and which zero is output follow PyTorch's sort."""
    for seed, n in enumerate([10, 17, 100, 1000, 40000]):
        x = grid((n,), torch.float32, seed, nan_rate=0.4, levels=3)
        got, expected = both(lambda L, t: L.unique(t, return_inverse=True, return_counts=True), x)
        assert_tuple(got, expected)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool, torch.float16])
def test_unique_dim_like_torch(dtype):
    for seed, shape in enumerate([(6, 3), (4, 2, 3), (30, 2), (1, 5), (50, 1)]):
        x = grid(shape, dtype, seed, nan_rate=0.05, levels=2)
        for dim in range(-len(shape), len(shape)):
            for inv, cnt in itertools.product([False, True], repeat=2):
                got, expected = both(lambda L, t: L.unique(t, return_inverse=inv, return_counts=cnt, dim=dim), x)
                assert_tuple(got, expected)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool])
def test_unique_consecutive_like_torch(dtype):
    for seed, shape in enumerate([(0,), (1,), (12,), (4, 6), (3, 40), ()]):
        x = grid(shape, dtype, seed, nan_rate=0.1, levels=2)
        dims = [None] + list(range(-len(shape), len(shape)))
        for dim, inv, cnt in itertools.product(dims, [False, True], [False, True]):
            if dim is not None and 0 in shape:
                continue
            got, expected = both(lambda L, t: L.unique_consecutive(t, inv, cnt, dim), x)
            assert_tuple(got, expected)
            got, expected = both(lambda L, t: t.unique_consecutive(return_inverse=inv, return_counts=cnt, dim=dim), x)
            assert_tuple(got, expected)


def test_unique_errors_and_empty_dims_like_torch():
    cases = [
        lambda L: L.unique(L.zeros(2, 0), dim=0, return_inverse=True, return_counts=True),
        lambda L: L.unique(L.zeros(2, 0), dim=1, return_inverse=True, return_counts=True),
        lambda L: L.unique(L.zeros(0, 0), dim=1),
        lambda L: L.unique(L.tensor(3), dim=0),
        lambda L: L.unique(L.zeros(2, 3), dim=2),
        lambda L: L.unique(L.zeros(2, 0), return_inverse=True, return_counts=True),
        lambda L: L.unique_consecutive(L.zeros(2, 0), return_inverse=True, return_counts=True),
        lambda L: L.unique_consecutive(L.tensor(5), return_inverse=True, dim=0),
    ]
    for fn in cases:
        try:
            expected = fn(torch)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)):
                fn(tl)
            continue
        assert_tuple(fn(tl), expected)


def test_unique_has_no_derivative_like_torch():
    for fn in (lambda L, x: L.unique(x), lambda L, x: L.unique(x, dim=0),
               lambda L, x: L.unique_consecutive(x), lambda L, x: L._unique(x)[0]):
        x = tl.tensor([1.0, 2.0, 1.0], requires_grad=True)
        y = fn(tl, x)
        assert y.requires_grad
        with pytest.raises(NotImplementedError, match="is not implemented"):
            y.sum().backward()


# ---------------------------------------------------------------- topk (its partial-sort path)

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int16, torch.bfloat16])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_ties_like_torch(dtype, largest):
    """k * 64 <= n takes PyTorch's partial sort (a heap select): among ties, the same indices."""
    for seed, (n, k) in enumerate([(64, 1), (200, 3), (1000, 15), (5000, 70), (100, 2)]):
        x = grid((3, n), dtype, seed, nan_rate=0.05, levels=5)
        got, expected = both(lambda L, t: L.topk(t, k, -1, largest), x)
        same_exact(got.values, expected.values)
        same_exact(got.indices, expected.indices)
        got, expected = both(lambda L, t: L.topk(t.t(), k, 0, largest), x)
        same_exact(got.indices, expected.indices)


# ---------------------------------------------------------------- cumsum / cumprod along the last dim

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int32, torch.float16, torch.bfloat16])
def test_cumsum_cumprod_last_dim_bitwise_like_torch(dtype):
    """Rows scanned in lockstep (several accumulators at once) still add in each row's order: the
    results equal PyTorch's bit for bit."""
    g = torch.Generator().manual_seed(0)
    for shape in [(37, 100), (8, 16), (3, 5, 64), (17, 9), (100, 8)]:
        x = (torch.randn(shape, generator=g, dtype=torch.float64) * 3).to(dtype)
        for op in ("cumsum", "cumprod"):
            got = getattr(tl, op)(from_torch(x), -1)
            expected = getattr(torch, op)(x, -1)
            assert torch.equal(to_torch(got), expected), (op, shape)
        y = from_torch(x).clone()
        y.cumsum_(-1)
        assert torch.equal(to_torch(y), torch.cumsum(x, -1))


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int16, torch.uint8])
def test_unique_integers_narrow_and_wide_ranges_like_torch(dtype):
    """Narrow value ranges take a counting pass, wide ones a sort: both as PyTorch."""
    info = torch.iinfo(dtype)
    g = torch.Generator().manual_seed(1)
    wide = torch.randint(info.min, info.max, (3000,), generator=g, dtype=torch.int64).to(dtype)
    wide[::7] = info.min
    wide[::11] = info.max
    narrow = torch.randint(-3, 4, (50, 40), generator=g).to(dtype)
    for x in (wide, narrow, wide[:5], torch.full((4,), info.max, dtype=dtype)):
        got, expected = both(lambda L, t: L.unique(t, return_inverse=True, return_counts=True), x)
        assert_tuple(got, expected)
