"""Stride-1 conv1d's shifted products cut into several pieces in both directions (ConvolutionKernels.cpp
`shifted_piece`): on CPUs without AVX-512 the pieces are up to 128 rows and ~2^22 multiply-adds, on AVX-512 CPUs 64
rows and ~2^19. These shapes have more than 128 output (and input) channels and more columns than one piece, so
every piece boundary is crossed on either kind of host; forward and both gradients against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF

CASES = [
    # (batch, in, length, out, kernel, padding, dilation, groups)
    (2, 64, 1100, 200, 5, 2, 1, 1),    # 200 rows: a 128-row piece and a 72-row one; 1100 > 512 columns
    (1, 150, 700, 136, 3, 1, 2, 1),    # the input gradient's rows (150) over 128 too
    (2, 140, 600, 260, 3, 4, 3, 2),    # groups of 70 -> 130 channels, padding past the dilated kernel
    (3, 9, 2300, 5, 7, 0, 1, 1),       # shallow products: columns cut at the 16-aligned bound
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CASES)
def test_conv1d_pieces_match_pytorch(case, dtype):
    n, c, length, o, k, p, d, g = case
    rng = np.random.default_rng(sum(case))
    x = rng.standard_normal((n, c, length)).astype(dtype)
    w = (rng.standard_normal((o, c // g, k)) / np.sqrt(c // g * k)).astype(dtype)
    b = rng.standard_normal(o).astype(dtype)
    tx, tw, tb = (torch.from_numpy(a).requires_grad_() for a in (x, w, b))
    lx, lw, lb = (tl.from_numpy(a).requires_grad_() for a in (x, w, b))
    ty = F.conv1d(tx, tw, tb, padding=p, dilation=d, groups=g)
    ly = TF.conv1d(lx, lw, lb, padding=p, dilation=d, groups=g)
    go = rng.standard_normal(tuple(ty.shape)).astype(dtype)
    ty.backward(torch.from_numpy(go))
    ly.backward(tl.from_numpy(go))
    tol = dict(rtol=2e-5, atol=2e-4) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-11)
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), **tol)
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), **tol)
    # The weight gradient sums over batch x length terms: a looser absolute bound.
    wtol = dict(rtol=1e-4, atol=2e-3) if dtype == np.float32 else dict(rtol=1e-11, atol=1e-10)
    np.testing.assert_allclose(lw.grad.numpy(), tw.grad.numpy(), **wtol)
    np.testing.assert_allclose(lb.grad.numpy(), tb.grad.numpy(), **wtol)
