"""Ops on the "along one dimension" engine (cumsum, cumprod, logcumsumexp, cummax/cummin, flip,
softmax/log_softmax and their backward entries, sort/argsort/topk/kthvalue) against PyTorch:
values, dtypes, every layout (contiguous, transposed, sliced, expanded, 0-d, empty), negative dims,
out= and in-place forms, meta tensors and errors. Gradients are gradchecked from the YAML samples
(tests/test_gradcheck_generated.py); cumprod's gradient with zeros is checked here."""
import numpy as np
import pytest
import torch

import torchlite as tl
from torchlite.autograd.gradcheck import gradcheck, gradgradcheck

LAYOUTS = ["contiguous", "transposed", "sliced", "expanded", "zero_d", "empty", "long_rows"]


def make(layout, dtype=np.float32, seed=0, rounded=False):
    """(torchlite tensor, torch tensor) with the same values and geometry (whole numbers, so with
    ties, when `rounded`)."""
    rng = np.random.default_rng(seed)
    if layout == "zero_d":
        v = np.array(rng.standard_normal(), dtype=dtype)
    elif layout == "empty":
        v = np.zeros((0, 3), dtype=dtype)
    elif layout == "long_rows":
        v = (rng.standard_normal((5, 300)) * 3).astype(dtype)
    else:
        v = (rng.standard_normal((4, 6)) * 3).astype(dtype)
    if rounded:
        v = np.asarray(np.round(v))
    pair = (tl.from_numpy(v.copy()), torch.from_numpy(v.copy()))
    if layout == "transposed":
        return tuple(x.t() for x in pair)
    if layout == "sliced":
        return tuple(x[::2, 1::2] for x in pair)
    if layout == "expanded":
        return tuple(x[:1].expand(5, 6) for x in pair)
    return pair


def close(a, b, rtol=1e-5, atol=1e-6, exact_dtype=True):
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            close(x, y, rtol, atol, exact_dtype)
        return
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    np.testing.assert_allclose(a.numpy().astype(np.float64), b.numpy().astype(np.float64), rtol=rtol, atol=atol)


def dims_of(t):
    return [0, -1] if t.dim() == 0 else list(range(-t.dim(), t.dim()))


# ---------------------------------------------------------------- scans

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", ["cumsum", "cumprod", "logcumsumexp"])
def test_scans_match_torch(op, layout):
    a, b = make(layout)
    if op == "cumprod":  # keep products in range
        a, b = a / 4 + 1, b / 4 + 1
    for d in dims_of(a):
        close(getattr(tl, op)(a, d), getattr(torch, op)(b, d), rtol=1e-4, atol=1e-5)
        close(getattr(a, op)(d), getattr(b, op)(d), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float64, np.float16, np.int32, np.int8, np.uint8, np.bool_])
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_cumsum_cumprod_dtypes(op, dtype):
    rng = np.random.default_rng(1)
    v = (rng.integers(-3, 4, (3, 5))).astype(dtype)
    a, b = tl.from_numpy(v.copy()), torch.from_numpy(v.copy())
    close(getattr(tl, op)(a, 1), getattr(torch, op)(b, 1), rtol=1e-3)
    close(getattr(tl, op)(a, 0, dtype=tl.float64), getattr(torch, op)(b, 0, dtype=torch.float64))


def test_cumsum_accumulates_precisely():
    v = np.full(100000, 0.1, dtype=np.float32)
    close(tl.cumsum(tl.from_numpy(v), 0), torch.cumsum(torch.from_numpy(v), 0), rtol=1e-6)


def test_cumsum_out_and_inplace():
    x = tl.tensor([[1.5, 2.0], [3.0, 4.0]])
    out = tl.empty(0, dtype=tl.int32)
    tl.cumsum(x, 1, out=out)  # out keeps its dtype: the input is converted first, as in PyTorch
    assert out.dtype == tl.int32 and out.tolist() == torch.cumsum(torch.tensor([[1.5, 2.0], [3.0, 4.0]]), 1,
                                                                   out=torch.empty(0, dtype=torch.int32)).tolist()
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got int"):
        tl.cumsum(x, 1, dtype=tl.float32, out=out)
    y = tl.tensor([1, 2, 3], dtype=tl.int32)
    y.cumsum_(0)
    assert y.dtype == tl.int32 and y.tolist() == [1, 3, 6]
    with pytest.raises(RuntimeError, match="Bad in-place call"):
        x.cumsum_(0, dtype=tl.int64)
    z = x.t()
    z.cumprod_(0)
    assert z.tolist() == torch.tensor([[1.5, 2.0], [3.0, 4.0]]).t().cumprod(0).tolist()


def test_scan_errors():
    x = tl.ones(2, 3)
    with pytest.raises(IndexError, match="Dimension out of range"):
        tl.cumsum(x, 2)
    with pytest.raises(IndexError, match=r"range of \[-1, 0\], but got 1"):
        tl.cumsum(tl.tensor(1.0), 1)
    with pytest.raises(NotImplementedError, match="logcumsumexp"):
        tl.logcumsumexp(tl.ones(3, dtype=tl.int64), 0)


def test_logcumsumexp_extremes():
    v = np.array([-np.inf, -np.inf, 1e30, -np.inf, np.inf, 0.0, np.nan, 1.0], dtype=np.float32)
    close(tl.logcumsumexp(tl.from_numpy(v), 0), torch.logcumsumexp(torch.from_numpy(v), 0))
    v = np.array([1000.0, 1000.0, -1000.0], dtype=np.float64)
    close(tl.logcumsumexp(tl.from_numpy(v), 0), torch.logcumsumexp(torch.from_numpy(v), 0))


@pytest.mark.parametrize("op", ["cummax", "cummin"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_cummax_cummin(op, layout):
    a, b = make(layout, rounded=True)  # ties: the index of the last equal value, as in PyTorch
    for d in dims_of(a):
        close(getattr(tl, op)(a, d), tuple(getattr(torch, op)(b, d)))


@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_nan_int_bool(op):
    v = np.array([1.0, np.nan, 2.0, np.nan, 0.0], dtype=np.float32)
    close(getattr(tl, op)(tl.from_numpy(v), 0), tuple(getattr(torch, op)(torch.from_numpy(v), 0)))
    for arr in [np.array([3, 1, 4, 1, 5], dtype=np.int64), np.array([False, True, False])]:
        close(getattr(tl, op)(tl.from_numpy(arr), 0), tuple(getattr(torch, op)(torch.from_numpy(arr), 0)))


def test_flip():
    for layout in LAYOUTS:
        a, b = make(layout)
        for dims in ([0], [-1], [0, 1][: a.dim()], []):
            if all(-max(a.dim(), 1) <= d < max(a.dim(), 1) for d in dims):
                close(tl.flip(a, dims), torch.flip(b, dims))
    with pytest.raises(RuntimeError, match="dims has duplicates"):
        tl.flip(tl.ones(2, 3), [0, 0])


# ---------------------------------------------------------------- softmax

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_match_torch(op, layout):
    a, b = make(layout)
    for d in dims_of(a):
        close(getattr(tl, op)(a, d), getattr(torch, op)(b, d), rtol=1e-5, atol=1e-6)
        close(getattr(a, op)(d), getattr(b, op)(d), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_dtypes_and_extremes(op):
    v = np.array([[1.0, -np.inf, 3.0], [np.inf, 1.0, 0.0], [-np.inf] * 3, [np.nan, 1.0, 2.0], [1e30, 1e30, 0]],
                 dtype=np.float32)
    close(getattr(tl, op)(tl.from_numpy(v), 1), getattr(torch, op)(torch.from_numpy(v), 1))
    a, b = make("contiguous", np.float16)
    close(getattr(tl, op)(a, 1), getattr(torch, op)(b, 1), rtol=1e-3, atol=1e-3)
    close(getattr(tl, op)(a, 0, dtype=tl.float64), getattr(torch, op)(b, 0, dtype=torch.float64), rtol=1e-3)
    ints = tl.ones(2, 3, dtype=tl.int64)
    with pytest.raises(NotImplementedError, match=op):
        getattr(tl, op)(ints, 1)
    close(getattr(tl, op)(ints, 1, dtype=tl.float32), getattr(torch, op)(torch.ones(2, 3, dtype=torch.int64), 1,
                                                                          dtype=torch.float32))


def test_softmax_out_and_meta():
    x = tl.rand(3, 4)
    out = tl.empty(0)
    tl.softmax(x, 1, out=out)
    close(out, torch.softmax(torch.from_numpy(x.numpy()), 1))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype double"):
        tl.softmax(x, 1, dtype=tl.float64, out=tl.empty(0))
    m = tl.softmax(tl.empty(3, 4, device="meta"), 0)
    assert m.device.type == "meta" and tuple(m.shape) == (3, 4)


@pytest.mark.parametrize("log", [False, True])
def test_softmax_backward_matches_torch(log):
    rng = np.random.default_rng(3)
    xv = rng.standard_normal((4, 7))
    gv = rng.standard_normal((4, 7))
    for d in [0, 1]:
        ours = tl.from_numpy(xv.copy()).requires_grad_()
        theirs = torch.from_numpy(xv.copy()).requires_grad_()
        f = "log_softmax" if log else "softmax"
        getattr(tl, f)(ours, d).backward(tl.from_numpy(gv.copy()))
        getattr(torch, f)(theirs, d).backward(torch.from_numpy(gv.copy()))
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_softmax_double_backward_of_float32_with_dtype():
    x = tl.rand(3, 4, dtype=tl.float64).requires_grad_()
    assert gradgradcheck(lambda t: tl.softmax(t, 0, dtype=tl.float64), [x])
    assert gradcheck(lambda t: tl.log_softmax(t.t(), 1), [x])


# ---------------------------------------------------------------- cumprod gradients with zeros

@pytest.mark.parametrize("values", [
    [2.0, 0.0, 3.0, 4.0], [0.0, 2.0, 3.0], [1.5, 2.0, 0.0], [0.0, 0.0, 2.0], [2.0, 0.0, 3.0, 0.0, 5.0],
    [1.0, 2.0, 3.0],
])
def test_cumprod_gradient_with_zeros(values):
    x = tl.tensor(values, dtype=tl.float64).requires_grad_()
    assert gradcheck(lambda t: tl.cumprod(t, 0), [x])
    ours = tl.tensor(values, dtype=tl.float64).requires_grad_()
    theirs = torch.tensor(values, dtype=torch.float64).requires_grad_()
    g = np.arange(1.0, len(values) + 1)
    tl.cumprod(ours, 0).backward(tl.from_numpy(g.copy()))
    torch.cumprod(theirs, 0).backward(torch.from_numpy(g.copy()))
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy())


def test_cumprod_gradient_with_zeros_2d():
    x = tl.tensor([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0], [2.0, 2.0, 2.0]], dtype=tl.float64).requires_grad_()
    for d in [0, 1]:
        assert gradcheck(lambda t: tl.cumprod(t, d), [x])


# ---------------------------------------------------------------- sorting

@pytest.mark.parametrize("layout", LAYOUTS)
def test_sort_matches_torch(layout):
    a, b = make(layout, rounded=True)  # ties: stable order
    for d in dims_of(a):
        for desc in [False, True]:
            close(tl.sort(a, d, desc), tuple(torch.sort(b, dim=d, descending=desc, stable=True)))
            close(tl.sort(a, stable=True, dim=d, descending=desc),
                  tuple(torch.sort(b, stable=True, dim=d, descending=desc)))
            close(tl.argsort(a, d, desc), torch.argsort(b, dim=d, descending=desc, stable=True))
            close(a.argsort(stable=True, dim=d), b.argsort(stable=True, dim=d))


@pytest.mark.parametrize("dtype", [np.float64, np.float16, np.int64, np.int16, np.uint8, np.bool_])
def test_sort_dtypes(dtype):
    rng = np.random.default_rng(5)
    v = rng.integers(0, 7, (3, 40)).astype(dtype)
    a, b = tl.from_numpy(v.copy()), torch.from_numpy(v.copy())
    close(tl.sort(a, 1), tuple(torch.sort(b, dim=1, stable=True)))
    close(tl.sort(a, 0, True), tuple(torch.sort(b, dim=0, descending=True, stable=True)))


def test_sort_nan_is_largest():
    v = np.array([3.0, np.nan, -1.0, np.inf, np.nan, -np.inf], dtype=np.float32)
    for desc in [False, True]:
        close(tl.sort(tl.from_numpy(v), 0, desc), tuple(torch.sort(torch.from_numpy(v), dim=0, descending=desc, stable=True)))


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced", "zero_d", "long_rows"])
def test_topk_matches_torch(layout):
    a, b = make(layout)
    for d in dims_of(a):
        n = 1 if a.dim() == 0 else a.shape[d]
        for k in sorted({0, 1, n // 2, n}):
            for largest in [True, False]:
                close(tl.topk(a, k, d, largest), tuple(torch.topk(b, k, d, largest)))
                v, i = tl.topk(a, k, d, largest, sorted=False)
                tv, _ = torch.topk(b, k, d, largest, sorted=False)
                np.testing.assert_array_equal(np.sort(v.numpy(), axis=d if a.dim() else None),
                                              np.sort(tv.numpy(), axis=d if a.dim() else None))
                close(tl.gather(a, d, i) if a.dim() else a, v if a.dim() else a)


def test_topk_kthvalue_errors_and_out():
    x = tl.rand(3, 4)
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        tl.topk(x, 5)
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        tl.topk(x, -1)
    with pytest.raises(RuntimeError, match="kthvalue.*selected number k out of range for dimension 1"):
        tl.kthvalue(x, 5)
    with pytest.raises(IndexError, match="Dimension out of range"):
        tl.sort(x, 2)
    v, i = tl.topk(tl.empty(3, 4, device="meta"), 2, 0)
    assert tuple(v.shape) == (2, 4) and i.dtype == tl.int64


@pytest.mark.parametrize("keepdim", [False, True])
def test_kthvalue_matches_torch(keepdim):
    a, b = make("long_rows")
    for d in [0, 1, -1]:
        for k in [1, 2, a.shape[d]]:
            close(tl.kthvalue(a, k, d, keepdim), tuple(torch.kthvalue(b, k, d, keepdim)))
    a, b = make("zero_d")
    close(tl.kthvalue(a, 1, 0), tuple(torch.kthvalue(b, 1, 0)))


def test_sort_1m_matches_numpy():
    v = np.random.default_rng(7).standard_normal(1 << 20).astype(np.float32)
    vals, idx = tl.sort(tl.from_numpy(v))
    np.testing.assert_array_equal(vals.numpy(), np.sort(v, kind="stable"))
    np.testing.assert_array_equal(idx.numpy(), np.argsort(v, kind="stable"))


def test_results_do_not_depend_on_thread_count():
    x = tl.from_numpy(np.random.default_rng(9).standard_normal((257, 513)).astype(np.float32))
    before = tl.get_num_threads()
    results = []
    for n in [1, max(2, before)]:
        tl.set_num_threads(n)
        results.append([tl.cumsum(x, 0).numpy(), tl.softmax(x, 0).numpy(), tl.sort(x, 0)[1].numpy()])
    tl.set_num_threads(before)
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("descending", [False, True])
def test_long_slices_sort_like_torch(dtype, descending):
    """Long float32/int32 slices take the radix path: ties, NaN of both signs, -0.0, infinities."""
    rng = np.random.default_rng(8)
    v = rng.integers(-20, 20, (3, 1000)).astype(dtype)
    if dtype == np.float32:
        v[0, ::7] = np.nan
        v[0, 3::11] = -np.nan
        v[1, ::5] = -0.0
        v[2, ::13] = np.inf
        v[2, 1::13] = -np.inf
    for d, arr in [(1, v), (0, np.ascontiguousarray(v.T))]:
        ours = tl.sort(tl.from_numpy(arr.copy()), d, descending)
        theirs = torch.sort(torch.from_numpy(arr.copy()), dim=d, descending=descending, stable=True)
        np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())
        np.testing.assert_array_equal(ours[0].numpy(), theirs[0].numpy())


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_softmax_over_leading_dim_of_wide_tensors(op, dtype):
    """dim 0 of a contiguous tensor with >= 16 columns takes the column-block path."""
    ext = np.array([[1.0, -np.inf, 3.0], [np.inf, 1.0, 0.0], [-np.inf] * 3, [np.nan, 1.0, 2.0], [30, 30, 0]]).T
    rng = np.random.default_rng(4)
    v = np.concatenate([np.tile(ext, (1, 7)), rng.standard_normal((3, 21)) * 4], axis=1).astype(dtype)
    v = np.concatenate([v, v[::-1]], axis=0)  # (6, 56)
    for x in [v, v.reshape(2, 3, 56)]:
        ours = getattr(tl, op)(tl.from_numpy(x.copy()), 0)
        theirs = getattr(torch, op)(torch.from_numpy(x.copy()), 0)
        tol = 2e-3 if dtype == np.float16 else 1e-5
        close(ours, theirs, rtol=tol, atol=tol)
