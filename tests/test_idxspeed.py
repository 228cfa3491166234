"""The fast paths of issue 9's last speed rows against PyTorch: x[idx] = v with one int64 index
(checked and wrapped inline) and cumsum of long float32 slices (the blocked scan)."""
import numpy as np
import pytest
import torch

import torchlite as tl


@pytest.mark.parametrize("threads", [1, 2])
def test_setitem_one_index_matches_torch(threads):
    rng = np.random.default_rng(3)
    n = 1 << 18
    v = rng.standard_normal(n).astype(np.float32)
    idx = rng.permutation(n)[: n // 2]
    idx[::5] -= n  # negative positions wrap
    w = rng.standard_normal(n // 2).astype(np.float32)
    before = tl.get_num_threads()
    tl.set_num_threads(threads)
    try:
        a = tl.tensor(v)
        a[tl.tensor(idx)] = tl.tensor(w)
    finally:
        tl.set_num_threads(before)
    b = torch.tensor(v)
    b[torch.tensor(idx)] = torch.tensor(w)
    np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("bad", [1 << 16, -(1 << 16) - 1])
def test_setitem_one_index_out_of_bounds(bad):
    a = tl.zeros(1 << 16)
    idx = np.arange(1 << 15)
    idx[-1] = bad
    with pytest.raises(IndexError, match=f"index {bad} is out of bounds for dimension 0 with size 65536"):
        a[tl.tensor(idx)] = tl.ones(1 << 15)


@pytest.mark.parametrize("n", [1 << 16, (1 << 20) + 3])
def test_long_float32_cumsum_matches_torch(n):
    v = (np.random.default_rng(n).standard_normal(n) * 100).astype(np.float32)
    got = tl.cumsum(tl.tensor(v), 0).numpy()
    want = torch.cumsum(torch.tensor(v), 0).numpy()
    # the blocked scan reassociates double sums: an element may differ by one ulp, rarely
    np.testing.assert_array_max_ulp(got, want, maxulp=1)
    assert (got != want).mean() < 1e-4


def test_long_float32_cumsum_same_for_any_thread_count():
    v = tl.tensor(np.random.default_rng(4).standard_normal(1 << 17).astype(np.float32))
    before = tl.get_num_threads()
    results = []
    for t in (1, 2):
        tl.set_num_threads(t)
        results.append(tl.cumsum(v, 0).numpy())
    tl.set_num_threads(before)
    np.testing.assert_array_equal(results[0], results[1])
