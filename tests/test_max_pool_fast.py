"""The max pools' vectorized row kernel (aten/native/cpu/MaxPoolRows.cpp) against PyTorch: values and
indices exactly equal (NaNs equal) for ties, NaNs (the last NaN of a window in scan order), -inf and +inf,
padding that must never win, ceil_mode windows starting in the padding, dilation (with windows that hold no
input element, which take the scalar loop), strides 1/2/3 and row widths around the vector width,
channels-last and strided inputs, every dtype PyTorch pools, empty batches, 1-d and 3-d pools."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import from_torch, to_torch

POOLS = {1: (F.max_pool1d, TF.max_pool1d), 2: (F.max_pool2d, TF.max_pool2d), 3: (F.max_pool3d, TF.max_pool3d)}


def keep_layout(x):
    """A torchlite copy of x with x's memory layout (from_torch alone gives a contiguous copy)."""
    order = sorted(range(x.dim()), key=lambda i: -x.stride(i))  # dims from outermost to innermost
    inverse = [order.index(i) for i in range(x.dim())]
    t = from_torch(x.permute(order).contiguous()).permute(inverse)
    assert 1 in x.shape or t.stride() == x.stride(), (t.stride(), x.stride())
    return t


def check(x, n, kernel, stride=None, padding=0, dilation=1, ceil_mode=False, mine=None):
    """torchlite's (values, indices) equal PyTorch's exactly; `mine` is the torchlite input if not a copy of x."""
    theirs_fn, mine_fn = POOLS[n]
    kw = dict(kernel_size=kernel, stride=stride, padding=padding, dilation=dilation, ceil_mode=ceil_mode,
              return_indices=True)
    ev, ei = theirs_fn(x, **kw)
    mine = keep_layout(x) if mine is None else mine
    av, ai = mine_fn(mine, **kw)
    gv, gi = to_torch(av), to_torch(ai)
    assert tuple(gv.shape) == tuple(ev.shape) and gv.dtype == ev.dtype
    assert torch.equal(gi, ei), (gi, ei)
    if ev.is_floating_point():
        same = (gv == ev) | (torch.isnan(gv) & torch.isnan(ev))
        assert bool(same.all()), (gv, ev)
    else:
        assert torch.equal(gv, ev)
    # the no-indices form too
    kw.pop("return_indices")
    v = mine_fn(mine, **kw)
    assert bool(((to_torch(v) == ev) | (to_torch(v) != to_torch(v))).all())


def tied(shape, seed, levels=4, dtype=torch.float32):
    """Values from a few levels, so that windows hold many equal maxima."""
    g = torch.Generator().manual_seed(seed)
    return (torch.randint(-levels // 2, levels - levels // 2, shape, generator=g)).to(dtype)


WINDOWS_2D = [
    # kernel, stride, padding, dilation, ceil_mode
    (3, 2, 1, 1, False), (3, 2, 1, 1, True), (2, 2, 0, 1, False), (3, 1, 1, 1, False), (2, 1, 0, 1, True),
    (3, 3, 1, 1, True), ((2, 3), (1, 2), (1, 1), 1, False), ((3, 2), (2, 3), (0, 1), 1, True),
    (3, 2, 1, 2, False), (3, 1, 2, 2, True), ((2, 3), 2, (1, 0), (3, 2), True), (5, 2, 2, 1, True),
    (1, 1, 0, 1, False), (4, 3, 2, 1, True),
]


@pytest.mark.parametrize("width", [1, 5, 7, 8, 9, 16, 17, 31, 56])
@pytest.mark.parametrize("window", WINDOWS_2D)
def test_2d_ties_values_and_indices(width, window):
    k, s, p, d, c = window
    x = tied((2, 3, 9, width), seed=width)
    try:
        F.max_pool2d(x, k, s, p, d, c)
    except RuntimeError:  # e.g. an output size below 1 for this width: refused by both
        with pytest.raises(RuntimeError):
            TF.max_pool2d(from_torch(x), k, s, p, d, c)
        return
    check(x, 2, k, s, p, d, c)
    check(torch.randn(2, 3, 9, width), 2, k, s, p, d, c)


def test_nans_last_in_scan_order():
    # Several NaNs per window in different rows and columns: PyTorch reports the last one in row-major order.
    g = torch.Generator().manual_seed(1)
    x = tied((2, 4, 13, 29), seed=2)
    x[torch.rand(x.shape, generator=g) < 0.15] = float("nan")
    for k, s, p, c in [(3, 2, 1, False), (3, 2, 1, True), (2, 2, 0, False), (3, 1, 1, False), (4, 3, 2, True)]:
        check(x, 2, k, s, p, 1, c)
    all_nan = torch.full((1, 2, 6, 11), float("nan"))
    check(all_nan, 2, 3, 2, 1)
    # a NaN in a later row but an earlier column than another NaN: the later row wins
    y = torch.zeros(1, 1, 3, 3)
    y[0, 0, 0, 2] = float("nan")
    y[0, 0, 2, 0] = float("nan")
    check(y, 2, 3, 1, 0)
    check(y.flip(-1).contiguous(), 2, 3, 1, 0)


def test_infinities_and_padding_never_wins():
    x = torch.full((2, 3, 7, 19), float("-inf"))
    check(x, 2, 3, 2, 1)
    check(x, 2, 3, 2, 1, 1, True)
    x[0, 0, 3, 5] = float("inf")
    x[1, 2, 0, 0] = float("nan")
    check(x, 2, 3, 2, 1)
    # all negative: a padding of 0 (or -inf) must never be the maximum or its index
    neg = -torch.rand(2, 3, 10, 21) - 1
    check(neg, 2, 3, 2, 1, 1, True)
    check(neg, 2, 5, 3, 2, 1, True)
    mixed = torch.randn(3, 5, 17)
    mixed[:, ::2] = float("-inf")
    check(mixed, 2, 2, 1, 1)


def test_ceil_mode_windows_starting_in_padding():
    for h, w in [(5, 5), (6, 7), (8, 9), (2, 3)]:
        x = torch.randn(1, 2, h, w)
        for k, s, p in [(3, 2, 1), (2, 2, 1), (3, 3, 1), (4, 3, 2), (5, 4, 2)]:
            try:
                F.max_pool2d(x, k, s, p, 1, True)
            except RuntimeError:
                continue
            check(x, 2, k, s, p, 1, True)


def test_dilation_with_windows_outside_the_input():
    # W = 1 with kernel 2, dilation 2, padding 1: the only window (columns -1 and 1) holds no input element
    # (PyTorch gives -inf and the position past the row); the scalar loop handles it.
    x = torch.randn(1, 1, 4, 1)
    check(x, 2, (1, 2), 1, (0, 1), (1, 2))
    check(torch.randn(2, 3, 5, 6), 2, 3, 1, 1, 2, True)
    check(torch.randn(2, 3, 11, 12), 2, 3, 2, 1, 3, True)
    check(torch.randn(2, 3, 1, 1), 2, 2, 1, 1, 2)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.uint8,
                                   torch.int16, torch.int32, torch.int64])
def test_dtypes(dtype):
    x = tied((2, 3, 11, 21), seed=3, levels=6, dtype=dtype)
    if dtype == torch.uint8:
        x = x + 3
    for k, s, p, c in [(3, 2, 1, False), (3, 2, 1, True), (2, 2, 0, False), (3, 1, 1, False), (3, 3, 0, True)]:
        check(x, 2, k, s, p, 1, c)
    if dtype.is_floating_point:
        y = torch.randn(2, 3, 11, 21, dtype=torch.float64).to(dtype)
        y[0, 1, 2:5, 3:9] = float("nan")
        y[1, 0] = float("-inf")
        check(y, 2, 3, 2, 1)
    else:
        info = torch.iinfo(dtype)
        z = torch.full((1, 2, 5, 9), info.min, dtype=dtype)  # ties at the type's lowest: the first position
        check(z, 2, 3, 2, 1)
        z[0, 1, 2, 4] = info.max
        check(z, 2, 2, 1, 0)


def test_channels_last_and_strided_inputs():
    x = tied((2, 8, 14, 15), seed=4).to(memory_format=torch.channels_last)
    check(x, 2, 3, 2, 1)
    check(x, 2, 2, 2, 0, 1, True)
    y = torch.randn(2, 8, 14, 15).to(memory_format=torch.channels_last)
    check(y, 2, 3, 2, 1)
    t = torch.randn(3, 2, 16, 12).transpose(2, 3)
    check(t, 2, 3, 2, 1)
    c3 = torch.randn(2, 4, 5, 6, 7).to(memory_format=torch.channels_last_3d)
    check(c3, 3, 2, 2, 1)


@pytest.mark.parametrize("channels", [1, 3, 8, 13, 24])
@pytest.mark.parametrize("window", [(3, 2, 1, 1, False), (3, 2, 1, 1, True), (2, 2, 0, 1, False), (3, 1, 1, 2, True),
                                    ((2, 3), (1, 2), (1, 1), 1, False), ((1, 2), 1, (0, 1), (1, 2), False)])
def test_channels_last_kernel(channels, window):
    # The channels-last input is pooled in place (vectors along C, PyTorch's scan): NaNs, ties, -inf.
    k, s, p, d, c = window
    x = tied((2, channels, 9, 11), seed=channels)
    x[0, :, 2:4, 3:6] = float("nan")
    x[1, :, :, 0] = float("-inf")
    check(x.to(memory_format=torch.channels_last), 2, k, s, p, d, c)
    if k == 3 and d == 1:  # a width of one column (padding 1 fits a kernel of 3)
        check(torch.randn(1, channels, 7, 1).to(memory_format=torch.channels_last), 2, k, s, p, d, c)
    # an unbatched (C, H, W) view of (H, W, C) memory
    hwc = torch.randn(6, 10, channels)
    check(hwc.permute(2, 0, 1), 2, k, s, p, d, c, mine=from_torch(hwc).permute(2, 0, 1))


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.uint8,
                                   torch.int16, torch.int32, torch.int64])
def test_channels_last_dtypes(dtype):
    x = tied((2, 11, 9, 10), seed=8, levels=6, dtype=dtype)
    if dtype == torch.uint8:
        x = x + 3
    if dtype.is_floating_point:
        x[0, 2:5, 1:3] = float("nan")
    check(x.to(memory_format=torch.channels_last), 2, 3, 2, 1)
    check(x.to(memory_format=torch.channels_last), 2, 2, 1, 0, 1, True)


def test_empty_batch_and_unbatched():
    check(torch.randn(0, 3, 8, 8), 2, 3, 2, 1)
    check(torch.randn(3, 8, 9), 2, 3, 2, 1)
    check(torch.randn(0, 3, 4, 8, 8), 3, 3, 2, 1)
    check(torch.randn(0, 3, 17), 1, 3, 2, 1)


@pytest.mark.parametrize("window", [(3, 2, 1, 1, False), (2, 2, 0, 1, True), (3, 1, 1, 1, False),
                                    ((2, 3, 2), (1, 2, 2), (1, 1, 0), 1, True), (3, 2, 1, 2, False)])
def test_3d(window):
    k, s, p, d, c = window
    x = tied((2, 3, 6, 7, 19), seed=5)
    x[0, 0, 1:3, 2:5, 4:9] = float("nan")
    check(x, 3, k, s, p, d, c)
    check(torch.randn(1, 2, 5, 9, 10), 3, k, s, p, d, c)


@pytest.mark.parametrize("length", [1, 3, 8, 9, 33, 100])
def test_1d(length):
    x = tied((2, 5, length), seed=length)
    for k, s, p, d, c in [(3, 2, 1, 1, False), (3, 2, 1, 1, True), (2, 1, 0, 1, False), (3, 3, 1, 2, True),
                          (5, 2, 2, 1, True)]:
        try:
            F.max_pool1d(x, k, s, p, d, c)
        except RuntimeError:
            continue
        check(x, 1, k, s, p, d, c)


def test_large_parallel_planes_and_gradient():
    # Many planes (split across threads) at the benchmark's geometry; the gradient scatters to the same indices.
    x = tied((4, 64, 56, 56), seed=6, levels=8)
    x[0, 0, 0, 0] = float("nan")
    check(x, 2, 3, 2, 1)
    xt = torch.randn(2, 16, 56, 56, requires_grad=True)
    xm = from_torch(xt.detach()).requires_grad_()
    F.max_pool2d(xt, 3, 2, 1).square().sum().backward()
    TF.max_pool2d(xm, 3, 2, 1).square().sum().backward()
    assert torch.equal(to_torch(xm.grad), xt.grad)


def test_random_windows_against_torch():
    rng = np.random.default_rng(7)
    for _ in range(60):
        n = int(rng.integers(1, 4))
        spatial = [int(rng.integers(1, 14)) for _ in range(n)]
        k = [int(rng.integers(1, 5)) for _ in range(n)]
        d = [int(rng.integers(1, 3)) for _ in range(n)]
        s = [int(rng.integers(1, 4)) for _ in range(n)]
        p = [int(rng.integers(0, ((kk - 1) * dd + 1) // 2 + 1)) for kk, dd in zip(k, d)]
        if n == 1:
            p = [min(p[0], k[0] // 2)]
        c = bool(rng.integers(0, 2))
        x = tied((2, 3, *spatial), seed=int(rng.integers(0, 1000)), levels=3)
        if rng.integers(0, 2):
            x[torch.rand(x.shape) < 0.1] = float("nan")
        try:
            POOLS[n][0](x, k, s, p, d, c)
        except RuntimeError:
            continue
        check(x, n, k, s, p, d, c)


@pytest.mark.parametrize("n,shape", [(2, (1, 1, 9, 9)), (3, (1, 1, 9, 9, 9)), (2, (1, 1, 1, 1))])
def test_padding_above_half_the_kernel_refused_as_torch(n, shape):
    # Within half the dilated kernel (so the output-size check passes) but above half the kernel: PyTorch's
    # max pool shape check refuses it, before the output size; the backward op checks it too.
    x = torch.randn(*shape)
    with pytest.raises(RuntimeError) as theirs:
        POOLS[n][0](x, 3, 1, 2, 2)
    with pytest.raises(RuntimeError) as mine:
        POOLS[n][1](from_torch(x), 3, 1, 2, 2)
    assert str(theirs.value) in str(mine.value)
    if n == 2:
        g = from_torch(torch.randn(1, 1, 9, 9))
        idx = tl.zeros((1, 1, 9, 9), dtype=tl.int64)
        with pytest.raises(RuntimeError, match="pad should be smaller than or equal to half of kernel size"):
            tl._C._internal.max_pool2d_with_indices_backward(g, from_torch(torch.randn(1, 1, 9, 9)), [3, 3], [1, 1],
                                                             [2, 2], [2, 2], False, idx)



@pytest.mark.parametrize("stride", [2 ** 33 + 1, 2 ** 40, 2 ** 62])
def test_stride_far_beyond_the_row(stride):
    # The fuzzer's finding: max_pool1d(x, 1, stride=2**33 + 1) made the row kernel allocate a column row of
    # (outputs + 2 vectors) strides inside the parallel region, where std::bad_alloc aborted the process. Such strides
    # take the scalar loop: one window per row, at the first column. (PyTorch takes them in max_pool1d without
    # indices and refuses them elsewhere with "value cannot be converted to type int without overflow", which
    # torchlite does not: a known difference, docs/kernels/pooling.md.)
    x = torch.randn(2, 3, 5, 7)
    assert torch.equal(to_torch(TF.max_pool1d(from_torch(x[0]), 1, stride)), F.max_pool1d(x[0], 1, stride))
    v, i = TF.max_pool2d(from_torch(x), 1, (1, stride), return_indices=True)
    assert torch.equal(to_torch(v), x[..., :1])
    assert torch.equal(to_torch(i), (torch.arange(5) * 7).reshape(5, 1).expand(2, 3, 5, 1))
    # The fuzzer's call itself: int8, which max_pool1d refuses as PyTorch does (an error, not an abort).
    x8 = tl.tensor([8, 127, -1], dtype=tl.int8).reshape((3, 1))
    with pytest.raises(NotImplementedError, match="max_pool1d"):
        tl.max_pool1d(x8, 1, (stride,), dilation=4)
    with pytest.raises(NotImplementedError):
        torch.max_pool1d(torch.tensor([8, 127, -1], dtype=torch.int8).reshape((3, 1)), 1, (stride,), dilation=4)
