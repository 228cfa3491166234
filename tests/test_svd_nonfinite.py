"""linalg.svd / svdvals / torch.svd of matrices holding NaN or infinity, against PyTorch 2.13 (MKL).

A NaN anywhere: PyTorch raises torch.linalg.LinAlgError "linalg.svd: The algorithm failed to converge because
the input matrix contained non-finite values." (MKL's gesdd returns info = -4), naming the batch element for
batched input; torchlite screens for NaN before gesdd (which can loop on one) and raises the same.
An infinity and no NaN: svdvals gives non-finite singular values in both (torchlite: NaN; MKL: NaN, or from
about 26 x 26 up a NaN followed by infinities). svd: likewise where MKL returns; for some shapes and positions of the infinity MKL's divide and conquer instead reports
a convergence failure ("error code: k", k depending on MKL's internals, e.g. 2 for a 5 x 3 matrix with the
infinity in its last row): torchlite returns NaN factors there (docs/kernels/linalg_lapack.md)."""
import numpy as np
import pytest
import torch

import torchlite as tl

SHAPES = [(1, 1), (1, 3), (3, 1), (2, 2), (3, 3), (5, 3), (3, 5), (8, 8), (26, 26), (40, 40), (64, 30)]
DTYPES = ["float64", "float32", "complex128", "complex64"]


def matrix(shape, dtype, seed, bad, where):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    a = a.astype(dtype)
    flat = a.reshape(-1, shape[-2] * shape[-1])
    for b in where:
        flat[b, (seed * 7) % flat.shape[1]] = bad
    return a


def call_both(f_name, a, **kw):
    out = []
    for m in (tl, torch):
        f = {"svd": m.linalg.svd, "svdvals": m.linalg.svdvals, "legacy": m.svd}[f_name]
        try:
            out.append(("ok", f(m.tensor(a), **kw)))
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            out.append((type(e), str(e)))
    return out


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_nan_raises_like_pytorch(shape, dtype):
    a = matrix(shape, dtype, sum(shape), np.nan, [0])
    for f in ("svd", "svdvals", "legacy"):
        (gt, gm), (wt, wm) = call_both(f, a)
        assert wt is torch.linalg.LinAlgError
        assert gt is tl.linalg.LinAlgError and issubclass(gt, RuntimeError)
        assert gm == wm


@pytest.mark.parametrize("batch_bad", [[0], [2], [1, 3]])
def test_nan_in_a_batch_names_the_element(batch_bad):
    a = matrix((4, 5, 3), "float64", 3, np.nan, batch_bad)
    for f in ("svd", "svdvals"):
        (gt, gm), (wt, wm) = call_both(f, a)
        assert wt is torch.linalg.LinAlgError and gt is tl.linalg.LinAlgError
        assert gm == wm  # "linalg.svd: (Batch element 1): The algorithm failed to converge because ..."
        assert f"(Batch element {batch_bad[0]})" in gm
    a = matrix((2, 2, 4, 4), "complex64", 5, np.nan, [3])
    (gt, gm), (wt, wm) = call_both("svd", a, full_matrices=False)
    assert gm == wm and "(Batch element 3)" in gm


def test_nan_with_infinity_still_raises():
    a = matrix((4, 4), "float64", 1, np.inf, [0])
    a[3, 3] = np.nan
    (gt, gm), (wt, wm) = call_both("svd", a)
    assert gt is tl.linalg.LinAlgError and gm == wm


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_infinity_gives_nan_singular_values(shape, dtype):
    a = matrix(shape, dtype, sum(shape), np.inf, [0])
    (g, got), (w, want) = call_both("svdvals", a)
    assert w == "ok" and g == "ok"
    assert got.shape == tuple(want.shape) and got.dtype == getattr(tl, str(want.dtype).split(".")[-1])
    # torchlite: all NaN. MKL: NaN, or from about 26 x 26 up a NaN followed by infinities.
    assert np.isnan(got.numpy()).all() and not np.isfinite(want.numpy()).any()
    (g, got), (w, want) = call_both("svd", a, full_matrices=False)
    assert g == "ok"  # never a hang or a crash
    assert np.isnan(got[1].numpy()).all()
    if w == "ok":  # where MKL returns, its singular values are not finite either (its U/Vh are unspecified)
        assert not np.isfinite(want[1].numpy()).any()
    else:  # MKL's convergence failure (see the module docstring)
        assert w is torch.linalg.LinAlgError and "error code" in want


def test_infinity_in_a_batch_leaves_the_other_matrices_alone():
    a = matrix((3, 4, 4), "float64", 2, np.inf, [1])
    u, s, vh = tl.linalg.svd(tl.tensor(a))
    ws = torch.linalg.svdvals(torch.tensor(a))
    assert np.isnan(s.numpy()[1]).all()
    np.testing.assert_allclose(s.numpy()[[0, 2]], ws.numpy()[[0, 2]], rtol=1e-12)
    rec = (u.numpy()[[0, 2]] * s.numpy()[[0, 2], None, :]) @ vh.numpy()[[0, 2]]
    np.testing.assert_allclose(rec, a[[0, 2]], atol=1e-12)
