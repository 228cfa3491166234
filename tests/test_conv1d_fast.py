"""conv1d's forward paths (ConvolutionKernels.cpp; Conv1dWinograd.cpp) against PyTorch.

float32 stride-1 undilated conv1d with k 3 or 5 and >= 16 channels each way (in * out >= 512, >= 16 output
positions) runs Winograd F(4, k) (docs/kernels/convolution.md); the others run the shifted products. The cases
cover both: k 3/5/7, channel counts that are not multiples of 8, lengths 1..2000 (shorter than the kernel too,
with padding), several chunks per image with a partial last one, padding 0/2/'same', with and without bias,
float32/float64, non-contiguous inputs, batch 1, unbatched, groups. Results are compared with PyTorch at
torch.testing's float32/float64 tolerances, and Winograd's error against a float64 reference is bounded by a
small multiple of PyTorch's own float32 error (N(0, 1) data: at most ~2.7x its max error, ~2x its rms; data with
a large mean: below PyTorch's error).
"""
from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch

ROOT = pathlib.Path(__file__).resolve().parents[1]


def data(n, cin, cout, length, k, groups=1, dtype=torch.float32, seed=0, mean=0.0):
    g = torch.Generator().manual_seed(seed)
    shape = (n, cin, length) if n is not None else (cin, length)
    x = (torch.randn(shape, generator=g, dtype=torch.float64) + mean).to(dtype)
    w = (torch.randn(cout, cin // groups, k, generator=g, dtype=torch.float64) / np.sqrt(cin // groups * k)).to(dtype)
    b = torch.randn(cout, generator=g, dtype=torch.float64).to(dtype)
    return x, w, b


def check(x, w, b, **kw):
    expected = F.conv1d(x, w, b, **kw)
    got = TF.conv1d(from_torch(x), from_torch(w), None if b is None else from_torch(b), **kw)
    assert_same(got, expected)


# (batch, in, out, length, k): the first rows take the Winograd path in float32.
SHAPES = [
    (2, 17, 33, 101, 5),     # channels not multiples of 8, output not a multiple of 32 positions
    (3, 24, 40, 2000, 5),    # two chunks of tiles, the second partial
    (2, 70, 130, 700, 3),    # chunks of fewer tiles (more channels), partial last chunk
    (1, 16, 32, 16, 3),      # the shortest Winograd row (16 outputs), batch 1
    (2, 64, 128, 1024, 5),   # the benchmark's shape (fewer images)
    (2, 19, 30, 200, 7),     # k 7: shifted products
    (2, 8, 12, 300, 5),      # few channels: shifted products
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("padding", [0, 2, "same"], ids=str)
@pytest.mark.parametrize("with_bias", [True, False], ids=["bias", "nobias"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_conv1d_matches_torch(shape, with_bias, padding, dtype):
    n, cin, cout, length, k = shape
    x, w, b = data(n, cin, cout, length, k, dtype=dtype, seed=sum(shape))
    check(x, w, b if with_bias else None, padding=padding)


@pytest.mark.parametrize("k", [3, 5, 7])
@pytest.mark.parametrize("length", [1, 2, 3, 4, 5, 6, 12, 13, 15, 16, 17, 18, 31, 33, 63, 64, 65, 127, 129, 511, 1023,
                                    1025])
def test_conv1d_lengths(length, k):
    x, w, b = data(2, 20, 36, length, k, seed=length + k)
    # padding k // 2 keeps the output as long as the input, so lengths below the kernel are accepted
    check(x, w, b, padding=k // 2)
    if length + 4 >= k:
        check(x, w, b, padding=2)


@pytest.mark.parametrize("k", [3, 5])
def test_conv1d_non_contiguous(k):
    x, w, b = data(3, 40, 48, 300, k, seed=k)
    full = torch.randn(3, 80, 601, generator=torch.Generator().manual_seed(k))
    lw = from_torch(w).transpose(0, 1).contiguous().transpose(0, 1)  # the weight in (in, out, k) memory
    lb = from_torch(torch.randn(96, generator=torch.Generator().manual_seed(k)))[::2]  # strided bias
    tb = torch.from_numpy(lb.contiguous().numpy())
    inputs = [
        (x, from_torch(x).transpose(1, 2).contiguous().transpose(1, 2)),  # channels-last memory
        (full[:, ::2, ::2], from_torch(full)[:, ::2, ::2]),               # strided channels and positions
    ]
    for tx, lx in inputs:
        assert not lx.is_contiguous() and not lw.is_contiguous() and not lb.is_contiguous()
        assert_same(TF.conv1d(lx, lw, lb, padding=2), F.conv1d(tx, w, tb, padding=2))


@pytest.mark.parametrize("k", [3, 5])
def test_conv1d_unbatched_and_groups(k):
    x, w, b = data(None, 32, 48, 500, k, seed=k)
    check(x, w, b, padding="same")
    x, w, b = data(2, 64, 96, 400, k, groups=2, seed=k + 1)  # 32 -> 48 channels per group
    check(x, w, b, padding=1, groups=2)


@pytest.mark.parametrize("k", [3, 5])
def test_conv1d_gradients_through_winograd_forward(k):
    x, w, b = data(2, 24, 40, 130, k, seed=k)
    tx, tw, tb = (t.clone().requires_grad_() for t in (x, w, b))
    lx, lw, lb = (from_torch(t).requires_grad_() for t in (x, w, b))
    ty, ly = F.conv1d(tx, tw, tb, padding=2), TF.conv1d(lx, lw, lb, padding=2)
    assert_same(ly.detach(), ty.detach())
    go = torch.randn(ty.shape, generator=torch.Generator().manual_seed(3))
    ty.backward(go)
    ly.backward(from_torch(go))
    assert_same(lx.grad, tx.grad, atol=2e-5, rtol=2e-5)
    assert_same(lw.grad, tw.grad, atol=1e-4, rtol=2e-5)
    assert_same(lb.grad, tb.grad, atol=1e-4, rtol=2e-5)


@pytest.mark.parametrize("with_bias", [True, False], ids=["bias", "nobias"])
@pytest.mark.parametrize("mean", [0.0, 10.0, 100.0])
@pytest.mark.parametrize("k", [3, 5])
def test_winograd_error_against_float64(k, mean, with_bias):
    """Winograd's float32 error stays within a small multiple of PyTorch's own float32 error. Measured (64 -> 128
    channels, 4 x 1024, k 3 / 5): N(0, 1) data without bias, max error 2.7x / 2.6x PyTorch's, rms 2.0x / 2.1x; with
    a bias max 1.6x / 1.2x, rms 1.1x / 1.2x; with a mean of 10 or 100, 0.5-0.8x (PyTorch's error grows faster with
    the mean)."""
    x, w, b = data(4, 64, 128, 1024, k, seed=k, mean=mean)
    b = b if with_bias else None
    ref = F.conv1d(x.double(), w.double(), None if b is None else b.double(), padding=2)
    torch_err = (F.conv1d(x, w, b, padding=2).double() - ref).abs()
    ours = TF.conv1d(from_torch(x), from_torch(w), None if b is None else from_torch(b), padding=2)
    err = (torch.from_numpy(ours.numpy()).double() - ref).abs()
    assert err.max() <= 3.0 * torch_err.max(), (err.max(), torch_err.max())
    rms, torch_rms = err.pow(2).mean().sqrt(), torch_err.pow(2).mean().sqrt()
    assert rms <= 2.5 * torch_rms, (rms, torch_rms)


@pytest.mark.parametrize("k", [3, 5])
def test_conv1d_non_finite_inputs_as_torch(k):
    """An inf or NaN input makes inf/NaN only the outputs whose windows read it (Winograd's transforms would
    spread it over whole tiles: such chunks are recomputed by the direct sum)."""
    x, w, b = data(2, 32, 48, 300, k, seed=k)
    x[0, 3, 100] = float("inf")
    x[1, 5, 7] = float("nan")
    x[1, 6, 250] = -float("inf")
    x[0, 7, 299] = float("inf")
    check(x, w, b, padding=2)
    check(x, w, None, padding=0)


def test_conv1d_transform_overflow():
    """Inputs near float32's maximum overflow Winograd's input transform (coefficients up to 21): those chunks
    are recomputed by the direct sum, so outputs whose windows do not read the huge inputs stay finite and equal
    PyTorch's, and those that do are finite or not as a float32 sum makes them (the order of a sum near the
    range's end decides whether a partial sum overflows: PyTorch's overflows at some positions where ours and
    the float64 result do not)."""
    x, w, b = data(2, 32, 48, 300, 5, seed=7)
    x[0, :, 50:60] = 1e38
    x[1, :, 200:203] = 3e38
    expected = F.conv1d(x, w, b, padding=2)
    ref = F.conv1d(x.double(), w.double(), b.double(), padding=2)
    got = torch.from_numpy(TF.conv1d(from_torch(x), from_torch(w), from_torch(b), padding=2).numpy())
    touched = torch.zeros_like(got, dtype=torch.bool)
    touched[0, :, 48:62] = True
    touched[1, :, 198:205] = True
    torch.testing.assert_close(got[~touched], expected[~touched])
    assert (~torch.isfinite(got[touched])).any() and torch.isfinite(got[touched]).any()
    finite = torch.isfinite(got) & touched
    scale = F.conv1d(x.double().abs(), w.double().abs(), None, padding=2)  # the sum of |terms| per output
    assert ((got[finite].double() - ref[finite]).abs() <= 1e-6 * scale[finite]).all()


def test_winograd_tables_are_the_generators_output():
    spec = importlib.util.spec_from_file_location("winograd_1d_tables", ROOT / "tools" / "winograd_1d_tables.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    for (m, r), points in gen.CONFIGS.items():
        gen.check(m, r, *gen.transforms(m, r, points))  # y = A^T [(G g) * (B^T d)] exactly, in rationals
    assert (ROOT / "aten/native/cpu/Conv1dWinogradTables.h").read_text() == gen.header()
