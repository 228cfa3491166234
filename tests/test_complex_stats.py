"""Complex inputs to isreal, cov, corrcoef, nansum and nanmean against PyTorch (an audit of 2026-12-06 found
isreal always True and cov without the conjugate transpose for complex input, and nansum summing NaNs)."""
import numpy as np
import pytest
import torch

import torchlite as tl

RNG = np.random.default_rng(3)


def cdata(*shape, dtype="complex128"):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_isreal_is_a_zero_imaginary_part(dtype):
    a = np.array([0j, 1 + 0j, 1j, complex(float("nan"), 0), complex(0, float("nan")), complex(float("inf"), -0.0),
                  2 - 3j], dtype=dtype)
    assert np.array_equal(tl.isreal(tl.tensor(a)).numpy(), torch.isreal(torch.tensor(a)).numpy())
    assert np.array_equal(tl.tensor(a).isreal().numpy(), torch.tensor(a).isreal().numpy())


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("kwargs", [{}, {"correction": 0}, {"correction": 2}, {"fweights": [1, 2, 0, 3, 1]},
                                    {"aweights": [0.5, 1.0, 2.0, 1.0, 0.25]},
                                    {"fweights": [1, 2, 1, 3, 1], "aweights": [0.5, 1.0, 2.0, 1.0, 0.25]}])
def test_cov_is_hermitian_like_torch(dtype, kwargs):
    a = cdata(3, 5, dtype=dtype)
    tk = {k: torch.tensor(v) for k, v in kwargs.items() if k != "correction"}
    lk = {k: tl.tensor(v) for k, v in kwargs.items() if k != "correction"}
    if "correction" in kwargs:
        tk["correction"] = lk["correction"] = kwargs["correction"]
    got, want = tl.cov(tl.tensor(a), **lk), torch.cov(torch.tensor(a), **tk)
    assert got.dtype == getattr(tl, dtype) and tuple(got.shape) == tuple(want.shape)
    tol = 1e-5 if dtype == "complex64" else 1e-12
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(tl.cov(tl.tensor(a[0])).numpy(), torch.cov(torch.tensor(a[0])).numpy(), rtol=tol)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_corrcoef_of_complex_like_torch(dtype):
    a = cdata(4, 6, dtype=dtype)
    got, want = tl.corrcoef(tl.tensor(a)), torch.corrcoef(torch.tensor(a))
    tol = 1e-5 if dtype == "complex64" else 1e-12
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol)
    assert np.all(np.abs(got.numpy().real) <= 1) and np.all(np.abs(got.numpy().imag) <= 1)


def test_cov_gradient_of_complex_like_torch():
    a = cdata(3, 4)
    x, tx = tl.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    tl.cov(x).abs().sum().backward()
    torch.cov(tx).abs().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("op", ["nansum", "nanmean"])
def test_nan_reductions_refuse_complex_as_torch(op):
    with pytest.raises(RuntimeError, match="nansum on CPU does not support complex inputs"):
        getattr(torch, op)(torch.tensor([1j]))
    with pytest.raises(RuntimeError, match="nansum on CPU does not support complex inputs"):
        getattr(tl, op)(tl.tensor([1j]))
