"""float32 sigmoid, tanh and silu in float lanes (aten/native/cpu/SigmoidTanhFloatLanes.h): within 1 ulp of the
correctly rounded result on a dense sample of every float32 (every 1021st bit pattern, both signs, all
binades, plus every float in [-1, 1] at a finer stride), special values exactly, and the same bits whatever
the layout (contiguous, strided, in place, out=), since eager and fused runs must agree bit for bit.

The exhaustive check over all 2^32 inputs is tools/check_float_lanes_ulp.cpp (docs/vecmath.md has its figures).
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import torchlite as tl


def dense_floats() -> np.ndarray:
    everywhere = np.arange(0, 2**32, 1021, dtype=np.uint64).astype(np.uint32).view(np.float32)
    unit = np.arange(0, 0x3F800001, 401, dtype=np.uint32).view(np.float32)  # [0, 1], where tanh is a polynomial
    x = np.concatenate([everywhere, unit, -unit])
    return x[np.isfinite(x)]


def ref_sigmoid(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    with np.errstate(over="ignore"):
        e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def ulps(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|got - ref| in units of float32's last place in the binade of ref (2^-149 for subnormal results)."""
    exp = np.frexp(np.abs(ref))[1].astype(np.int64)
    ulp = np.ldexp(1.0, np.maximum(exp - 24, -149))
    return np.abs(got.astype(np.float64) - ref) / ulp


def ref_silu(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float64) * ref_sigmoid(x)


FUNCS = {  # name -> (torchlite op, torch op, float64 reference)
    "sigmoid": (tl.sigmoid, torch.sigmoid, ref_sigmoid),
    "tanh": (tl.tanh, torch.tanh, lambda x: np.tanh(x.astype(np.float64))),
    "silu": (tl.nn.functional.silu, torch.nn.functional.silu, ref_silu),
}


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_within_one_ulp_dense(name):
    f, torch_f, ref = FUNCS[name]
    x = dense_floats()
    got = f(tl.from_numpy(x)).numpy()
    with np.errstate(over="ignore", invalid="ignore"):
        want = ref(x)
    err = ulps(got, want)
    i = int(err.argmax())
    assert err[i] <= 1.0, (name, float(x[i]), float(got[i]), float(want[i]), float(err[i]))
    # and no worse than PyTorch's float32 (SLEEF u10 functions) on the same inputs, in the mean
    assert err.mean() <= ulps(torch_f(torch.from_numpy(x)).numpy(), want).mean() + 0.05


SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 1.1754942e-38, -1.1754942e-38, 1e-30,
                    -1e-30, 0.5493, 0.55, -0.55, 0.5499999, 9.0, 9.1, -9.1, 16.6, 17.0, 17.4, 30.0, -30.0, 87.3, -87.3,
                    -88.8, -100.0, -103.9, -104.0, -104.1, -110.0, 104.0, 1e30, -1e30, 3.4e38, -3.4e38], dtype=np.float32)


@pytest.mark.parametrize("name", ["sigmoid", "tanh"])
def test_special_values(name):
    got = getattr(tl, name)(tl.from_numpy(SPECIAL)).numpy()
    want = getattr(torch, name)(torch.from_numpy(SPECIAL)).numpy()
    assert np.array_equal(np.isnan(got), np.isnan(want))
    fin = np.isfinite(SPECIAL)
    # within 1 ulp of the float64 reference (PyTorch's float32 sigmoid flushes results below about -88 to 0,
    # where these are the subnormal values), the limits and signed zeros exactly
    with np.errstate(over="ignore"):
        ref = FUNCS[name][2](SPECIAL[fin])
    assert ulps(got[fin], ref).max() <= 1.0, (SPECIAL[fin], got[fin], ref)
    limits = {"sigmoid": (1.0, 0.0), "tanh": (1.0, -1.0)}[name]
    assert got[2] == limits[0] and got[3] == limits[1]
    if name == "tanh":
        assert np.signbit(got[1]) and got[1] == 0  # tanh(-0) = -0
        np.testing.assert_array_equal(got[6:10], SPECIAL[6:10])  # tanh(x) = x for tiny x, subnormals included
    else:
        assert (got[:2] == 0.5).all() and (got[6:12] == 0.5).all()
        assert got[SPECIAL == -110.0][0] == 0 and got[SPECIAL == -104.1][0] == 0


def test_silu_special_values():
    got = tl.nn.functional.silu(tl.from_numpy(SPECIAL)).numpy()
    want = torch.nn.functional.silu(torch.from_numpy(SPECIAL)).numpy()
    assert np.array_equal(np.isnan(got), np.isnan(want))  # silu(-inf) = nan, as PyTorch's x / (1 + e^-x)
    assert got[2] == np.inf and np.signbit(got[1]) and got[1] == 0
    fin = np.isfinite(SPECIAL)
    with np.errstate(over="ignore"):
        assert ulps(got[fin], ref_silu(SPECIAL[fin])).max() <= 1.0
    big_neg = fin & (SPECIAL < -120)
    assert (got[big_neg] == 0).all() and np.signbit(got[big_neg]).all()  # -0 where x e^x rounds to it


@pytest.mark.parametrize("name", ["sigmoid", "tanh", "silu"])
def test_layouts_give_the_same_bits(name):
    rng = np.random.default_rng(13)
    base = (rng.standard_normal((67, 129)) * 6).astype(np.float32)
    x = tl.from_numpy(base)
    f = FUNCS[name][0]
    want = f(x).numpy()
    np.testing.assert_array_equal(f(x.t()).numpy(), want.T)  # transposed
    np.testing.assert_array_equal(f(x[:, ::3]).numpy(), want[:, ::3])  # strided
    if name != "silu":
        out = tl.empty((67, 129))
        f(x, out=out)
        np.testing.assert_array_equal(out.numpy(), want)
        y = x.clone()
        getattr(y, name + "_")()
        np.testing.assert_array_equal(y.numpy(), want)
    else:
        np.testing.assert_array_equal(f(x.clone(), inplace=True).numpy(), want)
    # each element is computed alone: a 1-element tensor gives the element's bits
    for i in (0, 5, 1000):
        assert f(tl.from_numpy(base.ravel()[i:i + 1])).numpy()[0] == want.ravel()[i]


@pytest.mark.parametrize("name", ["sigmoid", "tanh"])
@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16"])
def test_other_dtypes_keep_their_kernels(name, dtype):
    # float64 and the half types still compute in double: the half types' results are the float64 result
    # rounded once (correctly rounded)
    x = torch.linspace(-12, 12, 4001, dtype=torch.float64).to(getattr(torch, dtype)).double()
    got = getattr(tl, name)(tl.from_numpy(x.numpy()).to(getattr(tl, dtype))).double().numpy()
    exact = getattr(torch, name)(x)
    if dtype == "float64":
        np.testing.assert_allclose(got, exact.numpy(), rtol=1e-15, atol=1e-300)  # both within 1 ulp
    else:
        np.testing.assert_array_equal(got, exact.to(getattr(torch, dtype)).double().numpy())
