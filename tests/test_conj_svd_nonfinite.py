"""svd-based linalg ops on inputs with inf or NaN (docs/complex.md, "Non-finite inputs to svd"), against
PyTorch 2.13 CPU where its result does not depend on its LAPACK's internals: a NaN anywhere raises
LinAlgError ("... contained non-finite values", reference LAPACK 3.10's info = -4 on every driver);
one inf gives all-NaN singular values from svdvals (gesdd without vectors) for every shape, hence NaN
matrix_norm(2/'nuc')/cond and rank 0, per batch element. svd with vectors of an input with inf is left out:
MKL's gesdd returns finite U/Vh, all-NaN S, inf-and-NaN S or an error by shape and dtype (see the doc)."""
import math

import pytest
import torch

import torchlite as tl
from conftest import assert_same, from_torch

DTYPES = [torch.float32, torch.float64, torch.complex64, torch.complex128]
SHAPES = [(1, 1), (3, 3), (5, 3), (3, 5), (8, 8), (25, 25), (40, 40)]


def with_value(shape, dtype, where, value, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_complex:
        real = torch.float32 if dtype == torch.complex64 else torch.float64
        t = torch.complex(torch.randn(shape, generator=g, dtype=real), torch.randn(shape, generator=g, dtype=real))
    else:
        t = torch.randn(shape, generator=g, dtype=dtype)
    t[where] = value
    return t, from_torch(t)


def corners(shape):
    return [tuple(0 for _ in shape), tuple(s - 1 for s in shape), tuple(s // 2 for s in shape)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_inf_gives_nan_singular_values(dtype, shape):
    for where in corners(shape):
        for value in (math.inf, -math.inf):
            t, x = with_value(shape, dtype, where, value)
            sv_t, sv_x = torch.linalg.svdvals(t), tl.linalg.svdvals(x)
            assert bool(sv_t.isnan().all()) and bool(sv_x.isnan().all())
            assert_same(sv_x, sv_t)
            assert_same(tl.linalg.matrix_norm(x, 2), torch.linalg.matrix_norm(t, 2))
            assert_same(tl.linalg.matrix_norm(x, -2), torch.linalg.matrix_norm(t, -2))
            assert_same(tl.linalg.matrix_norm(x, "nuc"), torch.linalg.matrix_norm(t, "nuc"))
            assert_same(tl.linalg.matrix_rank(x), torch.linalg.matrix_rank(t))
            if shape[0] == shape[1]:
                assert_same(tl.linalg.cond(x), torch.linalg.cond(t))


@pytest.mark.parametrize("dtype", DTYPES)
def test_inf_in_one_batch_element(dtype):
    t, x = with_value((3, 6, 4), dtype, (1, 2, 3), math.inf)
    sv_t, sv_x = torch.linalg.svdvals(t), tl.linalg.svdvals(x)
    assert bool(sv_x[1].isnan().all()) and not bool(sv_x[0].isnan().any()) and not bool(sv_x[2].isnan().any())
    assert_same(sv_x, sv_t, atol=1e-4, rtol=1e-4)
    assert_same(tl.linalg.matrix_rank(x), torch.linalg.matrix_rank(t))
    assert_same(tl.linalg.matrix_norm(x, 2), torch.linalg.matrix_norm(t, 2), atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (5, 3), (3, 5), (30, 30), (2, 4, 4)])
def test_nan_raises_linalg_error(dtype, shape):
    t, x = with_value(shape, dtype, tuple(s - 1 for s in shape), math.nan)
    calls = [lambda L, a: L.linalg.svd(a), lambda L, a: L.linalg.svd(a, full_matrices=False),
             lambda L, a: L.linalg.svdvals(a), lambda L, a: L.svd(a), lambda L, a: L.linalg.pinv(a),
             lambda L, a: L.linalg.matrix_rank(a), lambda L, a: L.linalg.matrix_norm(a, 2),
             lambda L, a: L.linalg.matrix_norm(a, "nuc")]
    for call in calls:
        with pytest.raises(torch.linalg.LinAlgError) as et:
            call(torch, t)
        with pytest.raises(tl.linalg.LinAlgError) as ex:
            call(tl, x)
        assert "contained non-finite values" in str(et.value)
        assert str(ex.value) == str(et.value)


@pytest.mark.parametrize("dtype", DTYPES)
def test_svd_of_inf_small_square_singular_values(dtype):
    # the one svd-with-vectors case where PyTorch's S is stable across positions: all NaN (square, <= 25)
    for n in (1, 2, 3, 8, 16):
        for where in corners((n, n)):
            t, x = with_value((n, n), dtype, where, math.inf)
            S_t = torch.linalg.svd(t)[1]
            S_x = tl.linalg.svd(x)[1]
            assert bool(S_t.isnan().all()) and bool(S_x.isnan().all())
            assert_same(S_x, S_t)
