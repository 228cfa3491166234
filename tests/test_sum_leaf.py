"""sum/mean's contiguous float leaves (Reduce.cpp `leaf_sum_vec`, 64-byte vector types) against a NumPy model of
the documented order (docs/kernels/reductions.md): 64 lanes, each adding 16 terms before carrying into a second
level of lanes, the lanes then added in the tree w = 32, 16, ..., 1, the tail after; runs over 2048 elements
split in halves at a multiple of 64; runs shorter than 64 but at least one 64-byte vector long use one vector of
lanes (whole vectors, the tail in order, the tree); shorter runs add in order. The vector form must give these
sums bit for bit (it replaced an array form with the same additions), float32 and float64, for runs around the
vector, lane and leaf sizes."""
from __future__ import annotations

import numpy as np
import pytest

import torchlite as tl


def _leaf(p):
    t = p.dtype.type
    n = len(p)
    hi = np.zeros(64, p.dtype)
    i = 0
    while i + 64 <= n:
        acc = np.zeros(64, p.dtype)
        end = min(n // 64 * 64, i + 64 * 16)
        while i < end:
            acc = acc + p[i:i + 64]
            i += 64
        hi = hi + acc
    w = 32
    while w >= 1:
        hi[:w] = hi[:w] + hi[w:2 * w]
        w //= 2
    r = t(0)
    for v in p[i:]:
        r = t(r + v)
    return t(hi[0] + r)


def _short(p):
    """A run of one to four vectors (16-63 floats, 8-63 doubles): one vector of lanes, the tail in order, the tree."""
    t = p.dtype.type
    lanes = 64 // p.itemsize
    n = len(p)
    acc = np.zeros(lanes, p.dtype)
    i = 0
    while i + lanes <= n:
        acc = acc + p[i:i + lanes]
        i += lanes
    r = t(0)
    for v in p[i:]:
        r = t(r + v)
    while len(acc) > 1:
        acc = acc[:len(acc) // 2] + acc[len(acc) // 2:]
    return t(acc[0] + r)


def _pairwise(p):
    t = p.dtype.type
    n = len(p)
    if n < 64 and n >= 64 // p.itemsize:
        return _short(p)
    if n < 64:
        r = t(0)
        for v in p:
            r = t(r + v)
        return r
    if n <= 2048:
        return _leaf(p)
    half = (n // 2) // 64 * 64
    return t(_pairwise(p[:half]) + _pairwise(p[half:]))


@pytest.mark.parametrize("n", [2, 7, 8, 9, 15, 16, 17, 31, 49, 63, 64, 65, 127, 1000, 1024, 1087, 2047, 2048, 2049, 3136, 4096 + 17, 70000])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_contiguous_sum_is_the_documented_lane_order(n, dtype):
    rng = np.random.default_rng(n)
    a = (rng.standard_normal(n) * np.exp(rng.uniform(-8, 8, n))).astype(dtype)  # magnitudes that expose the order
    assert tl.from_numpy(a).sum().item() == _pairwise(a)
    # Planes of adaptive_avg_pool2d (1, 1): one run per output, then the division.
    planes = a[: n // 2 * 2].reshape(2, 1, 1, -1)
    got = tl.nn.functional.adaptive_avg_pool2d(tl.from_numpy(planes.reshape(2, 1, 1, -1)), (1, 1)).numpy().ravel()
    want = [dtype(_pairwise(planes[k].ravel()) / dtype(planes.shape[-1])) for k in range(2)]
    np.testing.assert_array_equal(got, np.array(want, dtype))


@pytest.mark.parametrize("run", [8, 16, 49, 63, 64, 100, 2048, 2049, 3136, 3968, 3969])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_back_to_back_short_runs_sum_per_output_in_the_documented_order(run, dtype):
    """The mean/sum over trailing dims whose runs lie back to back in output order takes the chunked `short_sums` / `leaf_runs`
    path; kept dims transposed or sliced take the per-output path. Every output is its run's documented sum."""
    rng = np.random.default_rng(run)
    a = (rng.standard_normal((3, 7, run)) * np.exp(rng.uniform(-8, 8, (3, 7, run)))).astype(dtype)
    t = tl.from_numpy(a)
    views = {"contiguous": (t, a), "kept dims transposed": (t.transpose(0, 1), a.transpose(1, 0, 2)),
             "sliced": (t[:, ::2], a[:, ::2]), "one row": (t[1:2], a[1:2])}
    for name, (tv, av) in views.items():
        got = tv.sum(-1).numpy()
        want = np.array([[_pairwise(np.ascontiguousarray(av[i, j])) for j in range(av.shape[1])]
                         for i in range(av.shape[0])], dtype)
        np.testing.assert_array_equal(got, want, err_msg=name)
        got_mean = tv.reshape(tv.shape[0], tv.shape[1], 1, run).mean((-1, -2)).numpy() if name == "contiguous" else None
        if got_mean is not None:
            np.testing.assert_array_equal(got_mean, (want / dtype(run)).astype(dtype), err_msg=name)
