"""batch_norm's 2-d statistics (ColumnStats.h) in steps of eight rows, then four, then one, against PyTorch and
float64: row groups (16 per input) whose row counts leave every kind of remainder, sub-chunks (~96 KB) that end
mid-step, two column blocks (2048 + a 1-wide block), and the issue-11 benchmark shape with channels far from zero.
The saved mean and inverse standard deviation must be as accurate as PyTorch's (measured against float64)."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch, to_torch


def _randn(shape, seed, dtype=torch.float32, scale=1.0, shift=0.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale + shift).to(dtype)


def _stats_errors(t, eps=1e-5):
    """Max abs error of (save_mean, save_invstd) against float64 statistics of the same values: ours, PyTorch's."""
    N, C = t.shape
    ref_mean = t.double().mean(0)
    ref_invstd = 1.0 / torch.sqrt(t.double().var(0, unbiased=False) + eps)
    w, b = torch.ones(C, dtype=t.dtype), torch.zeros(C, dtype=t.dtype)
    _, tm, ti = torch.native_batch_norm(t, w, b, None, None, True, 0.1, eps)
    _, om, oi = tl.native_batch_norm(from_torch(t), from_torch(w), from_torch(b), None, None, True, 0.1, eps)
    ours = [(to_torch(o).double() - r).abs().max().item() for o, r in ((om, ref_mean), (oi, ref_invstd))]
    theirs = [(o.double() - r).abs().max().item() for o, r in ((tm, ref_mean), (ti, ref_invstd))]
    return ours, theirs


# N rows in 16 groups: 240 = 16 x 15 (8 + 4 + 3 per group), 4109 (256-257 rows: 24-row sub-chunks, the last
# one 16 or 17 rows), 208 x 3 (13 = 8 + 4 + 1), 149 x 2049 (two column blocks; 9-10 rows per group, 12-row
# sub-chunks of the 2048-wide block), 7 x 33 (fewer rows than groups: single-row groups).
SHAPES = [(240, 1024), (4109, 1024), (208, 3), (149, 2049), (7, 33)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_batch_norm_2d_row_steps_like_torch(shape, dtype):
    N, C = shape
    t = _randn(shape, N + C, dtype, scale=2.0, shift=0.75)
    tw, tb = _randn((C,), 1, dtype), _randn((C,), 2, dtype)
    trm, trv = _randn((C,), 3, dtype), _randn((C,), 4, dtype).abs() + 0.5
    rm, rv = from_torch(trm.clone()), from_torch(trv.clone())
    y = TF.batch_norm(from_torch(t), rm, rv, from_torch(tw), from_torch(tb), training=True, momentum=0.2)
    ty = F.batch_norm(t, trm, trv, tw, tb, training=True, momentum=0.2)
    tol = 1e-10 if dtype == torch.float64 else 2e-5
    assert_same(y, ty, atol=tol, rtol=tol)
    assert_same(rm, trm, atol=tol, rtol=tol)
    assert_same(rv, trv, atol=tol, rtol=tol)
    ours, theirs = _stats_errors(t)
    floor = 1e-13 if dtype == torch.float64 else 1e-6
    for o, e in zip(ours, theirs):
        assert o <= max(2 * e, floor), (ours, theirs)


@pytest.mark.parametrize("shift,scale", [(0.0, 1.0), (1e3, 1.0), (1e4, 0.1)])
def test_batch_norm_2d_benchmark_shape_as_accurate_as_torch(shift, scale):
    # The issue-11 row (4096 x 1024 float32): channels at 0, 1e3 and 1e4 with a small spread.
    t = _randn((4096, 1024), 7, torch.float32, scale=scale, shift=shift)
    ours, theirs = _stats_errors(t)
    for o, e in zip(ours, theirs):
        assert o <= max(1.5 * e, 1e-6), (ours, theirs)


def test_batch_norm_2d_row_steps_strided_input():
    # A transposed and a sliced input go through the same loops on their contiguous copies.
    base = _randn((1024, 240), 9, scale=3.0, shift=-2.0)
    for t in (base.t(), _randn((240, 2048), 10)[:, ::2]):
        assert_same(TF.batch_norm(from_torch(t), None, None, training=True), F.batch_norm(t, None, None, training=True),
                    atol=2e-5, rtol=2e-5)
