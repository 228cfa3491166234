"""sum and mean against PyTorch: all dims, dim lists, keepdim, dtype=, out=, layouts, empty/0-d inputs, errors,
float32 accuracy on millions of elements, half-precision accumulation, and the meta device."""
import numpy as np
import pytest
import torch

import torchlite as tl
from conftest import (DTYPES, FLOAT_DTYPES, INT_DTYPES, LAYOUTS, assert_same, dtype_name, expect_like_torch,
                      from_torch, layout, make, tl_dtype, torch_dtype, torch_result)

OPS = ["sum", "mean"]

# Dims of a (2, 3, 4) tensor. `[]` and `()` reduce over every dimension in PyTorch 2.13 (like None); the tests
# take the expected result from torch, so they follow whatever torch does.
DIMS_3D = [0, 1, 2, -1, -3, (0,), (2, 0), (0, 2), [1, 2], (-1, -2), (0, 1, 2), (2, 1, 0), None, [], ()]


def _reduce(mod_or_tensor, op, x, *args, **kwargs):
    """torchlite.sum(x, ...) / torch.sum(x, ...)."""
    return getattr(mod_or_tensor, op)(x, *args, **kwargs)


# ---------------------------------------------------------------- full reductions

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_full_reduction_every_dtype(op, dtype):
    """sum of bool/integers gives int64, of floats keeps the dtype; mean of non-floats is an error."""
    a = make((3, 5), dtype, 1)
    x = from_torch(a)
    expect_like_torch(lambda: getattr(tl, op)(x), lambda: getattr(torch, op)(a))
    expect_like_torch(lambda: getattr(x, op)(), lambda: getattr(a, op)())


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64"])
def test_sum_of_integers_is_int64(dtype):
    a = make((4, 6), dtype, 2)
    r = tl.sum(from_torch(a))
    assert r.dtype == tl.int64 and r.shape == ()
    assert r.item() == torch.sum(a).item()
    r = from_torch(a).sum(1)
    assert r.dtype == tl.int64
    assert r.tolist() == a.sum(1).tolist()


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64"])
def test_mean_of_integers_raises(dtype):
    x = from_torch(make((2, 3), dtype, 3))
    for call in [lambda: tl.mean(x), lambda: x.mean(), lambda: tl.mean(x, 0), lambda: x.mean(dim=(0, 1)),
                 lambda: tl.mean(x, 1, keepdim=True)]:
        with pytest.raises(RuntimeError):
            call()
    with pytest.raises(RuntimeError):  # an integer dtype= is not accepted either
        tl.mean(x, dtype=tl.int64)


def test_sum_of_int32_does_not_overflow():
    """Integers accumulate in int64: 100000 * 2**20 does not fit in int32."""
    a = torch.full((100000,), 2 ** 20, dtype=torch.int32)
    assert_same(tl.sum(from_torch(a)), torch.sum(a))
    b = torch.full((4, 50000), 2 ** 20, dtype=torch.int32)
    assert_same(tl.sum(from_torch(b), 1), torch.sum(b, 1))


def test_sum_of_large_int64_is_exact():
    a = torch.tensor([2 ** 53 + 1, 2 ** 53 + 3, -(2 ** 52) + 5, 7], dtype=torch.int64)
    r = tl.sum(from_torch(a))
    assert r.item() == torch.sum(a).item() == (2 ** 53 + 1) + (2 ** 53 + 3) - (2 ** 52) + 5 + 7


# ---------------------------------------------------------------- over dims

@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", DIMS_3D, ids=repr)
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("op", OPS)
def test_over_dims(op, dtype, dim, keepdim):
    a = make((2, 3, 4), dtype, 4)
    x = from_torch(a)
    expect_like_torch(lambda: getattr(tl, op)(x, dim, keepdim), lambda: getattr(torch, op)(a, dim, keepdim))
    expect_like_torch(lambda: getattr(x, op)(dim, keepdim=keepdim), lambda: getattr(a, op)(dim, keepdim=keepdim))
    expect_like_torch(lambda: getattr(tl, op)(x, dim=dim, keepdim=keepdim),
                      lambda: getattr(torch, op)(a, dim=dim, keepdim=keepdim))


@pytest.mark.parametrize("op", OPS)
def test_keepdim_shapes(op):
    x = tl.ones(2, 3, 4)
    assert getattr(x, op)(1, keepdim=True).shape == (2, 1, 4)
    assert getattr(x, op)((0, 2), keepdim=True).shape == (1, 3, 1)
    assert getattr(x, op)(-1).shape == (2, 3)
    assert getattr(x, op)(None, keepdim=True).shape == tuple(getattr(torch.ones(2, 3, 4), op)(None, keepdim=True).shape)


@pytest.mark.parametrize("op", OPS)
def test_dim_none_and_empty_list_reduce_everything(op):
    a = make((2, 3, 4), "float64", 5)
    x = from_torch(a)
    for dim in [None, [], ()]:
        for keepdim in [False, True]:
            expect_like_torch(lambda: getattr(tl, op)(x, dim, keepdim=keepdim),
                              lambda: getattr(torch, op)(a, dim, keepdim=keepdim))
    expect_like_torch(lambda: getattr(x, op)(dim=None), lambda: getattr(a, op)(dim=None))


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dim", [(0, 0), (0, -3), (1, 2, 1), [-1, 2], (2, 0, -1)], ids=repr)
def test_repeated_dims_raise(op, dim):
    a = make((2, 3, 4), "float32", 6)
    x = from_torch(a)
    _, err = torch_result(lambda: getattr(torch, op)(a, dim))
    assert isinstance(err, RuntimeError)
    with pytest.raises(RuntimeError, match="multiple times|repeat|duplicate"):
        getattr(tl, op)(x, dim)
    with pytest.raises(RuntimeError):
        getattr(x, op)(dim, keepdim=True)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dim", [3, -4, 100, (0, 3), [1, -4]], ids=repr)
def test_dim_out_of_range_is_index_error(op, dim):
    a = make((2, 3, 4), "float32", 7)
    _, err = torch_result(lambda: getattr(torch, op)(a, dim))
    assert isinstance(err, IndexError)
    with pytest.raises(IndexError):
        getattr(tl, op)(from_torch(a), dim)
    with pytest.raises(IndexError):
        getattr(tl.empty(2, 3, 4, device="meta"), op)(dim)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("bad", [0.5, "a", (0, 1.5), [[0]]], ids=repr)
def test_dim_of_wrong_type_is_type_error(op, bad):
    a = make((2, 3), "float32", 8)
    _, err = torch_result(lambda: getattr(torch, op)(a, bad))
    assert isinstance(err, TypeError)
    with pytest.raises(TypeError):
        getattr(tl, op)(from_torch(a), bad)


# ---------------------------------------------------------------- dtype=

@pytest.mark.parametrize("src,dst", [("bool", "int32"), ("bool", "float32"), ("int8", "int8"), ("uint8", "uint8"),
                                     ("int32", "float64"), ("int64", "int16"), ("float32", "float64"),
                                     ("float64", "float32"), ("float32", "float16"), ("float32", "bfloat16"),
                                     ("float16", "float32"), ("bfloat16", "float64"), ("int32", "float16"),
                                     ("float32", "int32"), ("float64", "int64")])
@pytest.mark.parametrize("dim", [None, 0, (0, 1), -1], ids=repr)
def test_sum_dtype(src, dst, dim):
    """dtype= converts the input before summing: int8 wraps, float->int truncates each element first."""
    a = make((3, 4), src, 9, -3, 4)
    x = from_torch(a)
    if dim is None:
        expect_like_torch(lambda: tl.sum(x, dtype=tl_dtype(dst)), lambda: torch.sum(a, dtype=torch_dtype(dst)))
        expect_like_torch(lambda: x.sum(dtype=tl_dtype(dst)), lambda: a.sum(dtype=torch_dtype(dst)))
    else:
        expect_like_torch(lambda: tl.sum(x, dim, dtype=tl_dtype(dst)),
                          lambda: torch.sum(a, dim, dtype=torch_dtype(dst)))
        expect_like_torch(lambda: x.sum(dim, True, dtype=tl_dtype(dst)),
                          lambda: a.sum(dim, True, dtype=torch_dtype(dst)))


def test_sum_dtype_wraps_like_torch():
    a = torch.full((10,), 100, dtype=torch.int8)
    assert_same(tl.sum(from_torch(a), dtype=tl.int8), torch.sum(a, dtype=torch.int8))  # 1000 wraps to -24
    b = torch.full((2, 10), 100, dtype=torch.uint8)
    assert_same(tl.sum(from_torch(b), 1, dtype=tl.uint8), torch.sum(b, 1, dtype=torch.uint8))


def test_sum_dtype_float_to_int_truncates_each_element():
    a = torch.tensor([0.6, 0.6, 0.6, -1.7], dtype=torch.float32)
    assert_same(tl.sum(from_torch(a), dtype=tl.int64), torch.sum(a, dtype=torch.int64))


@pytest.mark.parametrize("src", ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("dst", ["float16", "bfloat16", "float32", "float64", "int64"])
@pytest.mark.parametrize("dim", [None, 1, (0, 1)], ids=repr)
def test_mean_dtype(src, dst, dim):
    """A floating dtype= makes mean of integers legal; an integer dtype= is an error."""
    a = make((3, 5), src, 10)
    x = from_torch(a)
    if dim is None:
        expect_like_torch(lambda: tl.mean(x, dtype=tl_dtype(dst)), lambda: torch.mean(a, dtype=torch_dtype(dst)))
    else:
        expect_like_torch(lambda: tl.mean(x, dim, dtype=tl_dtype(dst)),
                          lambda: torch.mean(a, dim, dtype=torch_dtype(dst)))
        expect_like_torch(lambda: x.mean(dim, keepdim=True, dtype=tl_dtype(dst)),
                          lambda: a.mean(dim, keepdim=True, dtype=torch_dtype(dst)))


def test_mean_dtype_float64_is_computed_in_float64():
    """Values whose float32 mean loses digits: with dtype=float64 the result must carry float64 precision."""
    a = torch.tensor([1.0, 2.0 ** -30, 3.0, 1e-7], dtype=torch.float32)
    r = tl.mean(from_torch(a), dtype=tl.float64)
    assert r.dtype == tl.float64
    assert_same(r, torch.mean(a, dtype=torch.float64), atol=0, rtol=1e-15)
    r = tl.mean(from_torch(a.view(2, 2)), 1, dtype=tl.float64)
    assert_same(r, torch.mean(a.view(2, 2), 1, dtype=torch.float64), atol=0, rtol=1e-15)


# ---------------------------------------------------------------- out=

@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("out_shape", [(0,), (3,), (7, 7), ()], ids=repr)
def test_out(op, out_shape):
    a = make((3, 4), "float32", 11)
    out = tl.empty(out_shape)
    r = getattr(tl, op)(from_torch(a), 1, out=out)
    assert r is out
    assert_same(out, getattr(torch, op)(a, 1))
    out2 = tl.zeros(1)
    r = getattr(tl, op)(from_torch(a), (0, 1), True, out=out2)
    assert r is out2
    assert_same(out2, getattr(torch, op)(a, (0, 1), True))
    out3 = tl.zeros(5)
    getattr(tl, op)(from_torch(a), dim=0, keepdim=False, out=out3)
    assert_same(out3, getattr(torch, op)(a, dim=0, keepdim=False))


@pytest.mark.parametrize("op", OPS)
def test_out_bumps_version(op):
    a = make((3, 4), "float32", 12)
    out = tl.empty(3)
    v = out._version
    getattr(tl, op)(from_torch(a), 1, out=out)
    assert out._version > v


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("src,out_dtype,dtype", [("float32", "float64", None), ("float32", "float16", None),
                                                 ("float32", "int64", None), ("int64", "float32", None),
                                                 ("int64", "int32", None), ("bool", "bool", None),
                                                 ("float32", "float32", "float64"), ("int32", "float64", "float64"),
                                                 ("float32", "float64", "float64")])
def test_out_dtype_rules(op, src, out_dtype, dtype):
    """What torch does with an out= of another dtype (with and without dtype=) is mirrored exactly: for sum, a
    missing dtype= is taken from out (so float input into an int64 out converts the elements first)."""
    a = make((2, 3), src, 13)
    if a.is_floating_point():
        a = a * 0.3  # fractional values, so converting them to an integer out dtype is visible
    kw = {} if dtype is None else {"dtype": tl_dtype(dtype)}
    tkw = {} if dtype is None else {"dtype": torch_dtype(dtype)}

    def tl_call():
        out = tl.empty(0, dtype=tl_dtype(out_dtype))
        r = getattr(tl, op)(from_torch(a), 1, out=out, **kw)
        assert r is out
        return out

    expect_like_torch(tl_call,
                      lambda: getattr(torch, op)(a, 1, out=torch.empty(0, dtype=torch_dtype(out_dtype)), **tkw))


@pytest.mark.parametrize("op", OPS)
def test_out_without_dim(op):
    """PyTorch 2.13 is uneven here: torch.sum(x, out=o) is a TypeError (its all-elements overload has no out=),
    torch.mean(x, out=o) works. torchlite must do the same (for mean the YAML's `mean(Tensor self, *, dtype)` needs an
    out= variant). dim=None reaches the dim overload, which has out= in both."""
    a = make((2, 3), "float32", 14)

    def tl_call():
        out = tl.empty(0)
        assert getattr(tl, op)(from_torch(a), out=out) is out
        return out

    expect_like_torch(tl_call, lambda: getattr(torch, op)(a, out=torch.empty(0)))
    out = tl.empty(0)
    getattr(tl, op)(from_torch(a), None, out=out)
    assert_same(out, getattr(torch, op)(a, None))


# ---------------------------------------------------------------- layouts

@pytest.mark.parametrize("kind", LAYOUTS)
@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1), -1], ids=repr)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "float16"])
def test_layouts(op, dim, kind, dtype):
    a = make((6, 7), dtype, 15)
    ta, xa = layout(a, kind)
    if dim is None:
        expect_like_torch(lambda: getattr(tl, op)(xa), lambda: getattr(torch, op)(ta))
    else:
        expect_like_torch(lambda: getattr(tl, op)(xa, dim), lambda: getattr(torch, op)(ta, dim))
        expect_like_torch(lambda: getattr(tl, op)(xa, dim, True), lambda: getattr(torch, op)(ta, dim, True))


@pytest.mark.parametrize("op", OPS)
def test_higher_rank_views(op):
    """Permuted, sliced-with-step and expanded 4-D inputs, reduced over inner/outer/mixed dims."""
    a = make((3, 4, 5, 6), "float64", 16)
    x = from_torch(a)
    views = [
        (a.permute(2, 0, 3, 1), x.permute(2, 0, 3, 1)),
        (a[:, 1::2, ::3, 1:], x[:, 1::2, ::3, 1:]),
        (a[:, :1].expand(3, 4, 5, 6), x[:, :1].expand(3, 4, 5, 6)),
        (a.transpose(0, 3)[1:, :, 2:4], x.transpose(0, 3)[1:, :, 2:4]),
    ]
    for tv, xv in views:
        for dim in [None, 0, 3, (1, 2), (0, 3), (0, 1, 2, 3), -2]:
            if dim is None:
                assert_same(getattr(tl, op)(xv), getattr(torch, op)(tv))
            else:
                assert_same(getattr(tl, op)(xv, dim), getattr(torch, op)(tv, dim))
                assert_same(getattr(tl, op)(xv, dim, True), getattr(torch, op)(tv, dim, True))


# ---------------------------------------------------------------- 0-d and empty

@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", ["int64", "float32", "float64", "bool"])
def test_zero_dim(op, dtype):
    a = make((), dtype, 17)
    x = from_torch(a)
    expect_like_torch(lambda: getattr(tl, op)(x), lambda: getattr(torch, op)(a))
    for dim in [0, -1, (0,), [], None, 1, -2, (0, 0)]:
        for keepdim in [False, True]:
            if op == "mean" and dtype in ("int64", "bool") and dim in (1, -2, (0, 0)):
                # Two errors at once (integer mean and a bad dim): torch reports the dtype first; which one comes
                # first is not worth mirroring.
                with pytest.raises((RuntimeError, IndexError)):
                    getattr(tl, op)(x, dim, keepdim)
                continue
            expect_like_torch(lambda: getattr(tl, op)(x, dim, keepdim),
                              lambda: getattr(torch, op)(a, dim, keepdim))


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", ["int64", "float32", "float16", "bool"])
@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 0, 4)], ids=repr)
def test_empty(op, dtype, shape):
    """Summing nothing gives 0, the mean of nothing is nan; reducing a non-empty dim of an empty tensor is empty."""
    a = torch.zeros(shape, dtype=torch_dtype(dtype))
    x = tl.zeros(*shape, dtype=tl_dtype(dtype))
    expect_like_torch(lambda: getattr(tl, op)(x), lambda: getattr(torch, op)(a))
    for dim in range(-len(shape), len(shape)):
        for keepdim in [False, True]:
            expect_like_torch(lambda: getattr(tl, op)(x, dim, keepdim),
                              lambda: getattr(torch, op)(a, dim, keepdim))
    expect_like_torch(lambda: getattr(tl, op)(x, tuple(range(len(shape)))),
                      lambda: getattr(torch, op)(a, tuple(range(len(shape)))))


def test_empty_values_explicitly():
    # The values the two tests above compare against torch, spelled out (they are PyTorch's documented results).
    assert tl.sum(tl.empty(0)).item() == 0
    assert tl.sum(tl.empty(0, dtype=tl.int32)).dtype == tl.int64
    assert np.isnan(tl.mean(tl.empty(0)).item())
    assert tl.sum(tl.empty(0, 3), 0).tolist() == [0.0, 0.0, 0.0]
    assert all(np.isnan(v) for v in tl.mean(tl.empty(0, 3), 0).tolist())
    assert tl.sum(tl.empty(0, 3), 1).shape == (0,)


# ---------------------------------------------------------------- accuracy

@pytest.mark.parametrize("n", [1_000_003, 10_000_019])
def test_float32_sum_accuracy(n):
    """Pairwise (cascade) summation: a naive float32 running sum of these 10^6 / 10^7 values in [0, 1) is off by
    2.6e-6 / 3.2e-5 relative (1.2e-5 / 2.7e-5 for the column sums); PyTorch's cascade sum stays below 3e-7 on all
    of the checks below. The bound 1e-6 separates the two."""
    g = torch.Generator().manual_seed(n)
    a = torch.rand(n, generator=g, dtype=torch.float32)
    x = from_torch(a)
    exact = a.numpy().astype(np.float64).sum()
    s = tl.sum(x)
    assert s.dtype == tl.float32
    assert abs(s.item() - exact) / exact < 1e-6
    m = tl.mean(x)
    assert abs(m.item() - exact / n) / (exact / n) < 1e-6
    assert abs(tl.sum(x, 0).item() - exact) / exact < 1e-6
    # Column sums: reducing the outer, strided dimension.
    rows = n // 4
    cols = x[: rows * 4].view(rows, 4)
    exact_cols = a[: rows * 4].view(rows, 4).numpy().astype(np.float64).sum(0)
    got = np.array(tl.sum(cols, 0).tolist())
    assert (np.abs(got - exact_cols) / exact_cols).max() < 1e-6
    # A transposed input: the reduced dimension is the stride-1 one, the kept one has stride `rows`.
    trans = x[: rows * 4].view(4, rows).t()
    exact_t = a[: rows * 4].view(4, rows).t().numpy().astype(np.float64).sum(0)
    got = np.array(tl.sum(trans, 0).tolist())
    assert (np.abs(got - exact_t) / exact_t).max() < 1e-6
    got = np.array(tl.mean(trans, 0).tolist())
    assert (np.abs(got - exact_t / rows) / (exact_t / rows)).max() < 1e-6


def test_float16_accumulates_in_float32():
    """10000 ones: a float16 running sum stops at 2048; PyTorch accumulates half in float32."""
    for shape, dim in [((10000,), None), ((3, 10000), 1), ((10000, 3), 0)]:
        a = torch.ones(shape, dtype=torch.float16)
        got = tl.sum(from_torch(a)) if dim is None else tl.sum(from_torch(a), dim)
        want = torch.sum(a) if dim is None else torch.sum(a, dim)
        assert_same(got, want, atol=0, rtol=0)
    a = torch.ones(10000, 3, dtype=torch.float16).t()
    assert_same(tl.sum(from_torch(torch.ones(10000, 3, dtype=torch.float16)).t(), 1), a.sum(1), atol=0, rtol=0)
    assert_same(tl.mean(from_torch(torch.ones(10000, dtype=torch.float16))),
                torch.mean(torch.ones(10000, dtype=torch.float16)), atol=0, rtol=0)


def test_bfloat16_accumulates_in_float32():
    """1000 ones: a bfloat16 running sum stops at 256."""
    for shape, dim in [((1000,), None), ((3, 1000), 1), ((1000, 3), 0)]:
        a = torch.ones(shape, dtype=torch.bfloat16)
        got = tl.sum(from_torch(a)) if dim is None else tl.sum(from_torch(a), dim)
        want = torch.sum(a) if dim is None else torch.sum(a, dim)
        assert_same(got, want, atol=0, rtol=0)


def test_half_mean_does_not_overflow_in_the_sum():
    """mean of [60000, 60000] in float16: the sum (120000) overflows half, the float32 accumulator does not."""
    a = torch.tensor([60000.0, 60000.0], dtype=torch.float16)
    assert_same(tl.mean(from_torch(a)), torch.mean(a), atol=0, rtol=0)
    assert_same(tl.sum(from_torch(a)), torch.sum(a))  # inf, like torch


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_sum_of_random_values(dtype):
    a = make((5000,), dtype, 18, -1, 1)
    exact = a.double().sum().item()
    got = tl.sum(from_torch(a)).item()
    want = torch.sum(a).item()
    ulp = 2.0 ** -10 if dtype == "float16" else 2.0 ** -7
    assert abs(got - want) <= ulp * max(abs(want), 1.0)
    assert abs(got - exact) <= 2 * ulp * max(abs(exact), 1.0)


# ---------------------------------------------------------------- meta

@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", ["bool", "int32", "float16", "float32", "float64"])
@pytest.mark.parametrize("dim", [None, 0, (1, 2), -1, [], (0, 0), 5], ids=repr)
def test_meta(op, dtype, dim):
    """Meta tensors: the same shapes, dtypes and errors as on CPU, without data."""
    shape = (2, 3, 4)
    a = torch.empty(shape, dtype=torch_dtype(dtype), device="meta")
    x = tl.empty(*shape, dtype=tl_dtype(dtype), device="meta")

    def same_meta(got, want):
        assert got.device.type == "meta"
        assert tuple(got.shape) == tuple(want.shape)
        assert dtype_name(got.dtype) == dtype_name(want.dtype)

    for keepdim in [False, True]:
        if dim is None and not keepdim:
            expect_like_torch(lambda: getattr(tl, op)(x), lambda: getattr(torch, op)(a), check=same_meta)
        expect_like_torch(lambda: getattr(tl, op)(x, dim, keepdim), lambda: getattr(torch, op)(a, dim, keepdim),
                          check=same_meta)
    if op == "sum" or dtype in FLOAT_DTYPES:
        expect_like_torch(lambda: getattr(tl, op)(x, dtype=tl.float64), lambda: getattr(torch, op)(a, dtype=torch.float64),
                          check=same_meta)


def test_meta_mean_of_int_raises():
    with pytest.raises(RuntimeError):
        tl.mean(tl.empty(2, 3, dtype=tl.int64, device="meta"))
    with pytest.raises(RuntimeError):
        tl.empty(2, 3, dtype=tl.int32, device="meta").mean(0)


def test_meta_out():
    out = tl.empty(0, device="meta")
    r = tl.sum(tl.empty(3, 4, device="meta"), 1, out=out)
    assert r is out and out.shape == (3,) and out.device.type == "meta"
