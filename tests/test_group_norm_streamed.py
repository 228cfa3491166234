"""group_norm's large-input paths (aten/native/cpu/GroupNormKernels.cpp) against PyTorch: the forward's output
and the backward's dx streamed around the cache (non-temporal stores once the op touches >= 32 MiB,
StreamStore.h) with planes whose starts are off the vector grid (odd HxW), the backward's one sweep per group
(plane sums, then dx from the same data), float32 / float64 / bfloat16, with and without affine parameters, and
the streamed results bit for bit equal to the cached-store path (TORCHLITE_STREAM_STORES=0 in a subprocess)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F

import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch, to_torch


def _randn(shape, seed, dtype=torch.float32, scale=1.0, shift=0.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale + shift).to(dtype)


# 2 * numel * itemsize >= 32 MiB; HxW = 61 * 67 (odd), 4 channels per group.
CASES = [((8, 32, 61, 67), 8, torch.float32, True), ((4, 24, 61, 67), 6, torch.float64, True),
         ((8, 32, 61, 67), 4, torch.float32, False), ((16, 32, 61, 67), 8, torch.bfloat16, True)]


def _tol(dtype):
    return {torch.float32: 2e-4, torch.float64: 1e-9, torch.bfloat16: 3e-2}[dtype]


@pytest.mark.parametrize("shape,groups,dtype,affine", CASES)
def test_large_group_norm_forward_and_backward(shape, groups, dtype, affine):
    x = _randn(shape, 1, dtype, scale=2.0, shift=0.5)
    g = _randn(shape, 2, dtype)
    w = _randn(shape[1:2], 3, dtype).requires_grad_() if affine else None
    b = _randn(shape[1:2], 4, dtype).requires_grad_() if affine else None
    xt = x.clone().requires_grad_()
    yt = F.group_norm(xt, groups, w, b)
    yt.backward(g)
    xm = from_torch(x).requires_grad_()
    wm = from_torch(w.detach()).requires_grad_() if affine else None
    bm = from_torch(b.detach()).requires_grad_() if affine else None
    ym = TF.group_norm(xm, groups, wm, bm)
    ym.backward(from_torch(g))
    tol = _tol(dtype)
    assert_same(ym.detach(), yt.detach(), atol=tol, rtol=tol)
    assert_same(xm.grad, xt.grad, atol=tol, rtol=tol)
    if affine:
        # the parameter gradients sum over 8 * 61 * 67 elements per channel
        assert_same(wm.grad, w.grad, atol=50 * tol, rtol=10 * tol)
        assert_same(bm.grad, b.grad, atol=50 * tol, rtol=10 * tol)


_SCRIPT = r"""
import hashlib, numpy as np
import torchlite as tl, torchlite.nn.functional as F
rng = np.random.default_rng(0)
shape = (8, 32, 61, 67)
x = tl.from_numpy((rng.standard_normal(shape) * 3 + 1).astype(np.float32)).requires_grad_()
g = tl.from_numpy(rng.standard_normal(shape).astype(np.float32))
w = tl.from_numpy(rng.standard_normal(32).astype(np.float32)).requires_grad_()
b = tl.from_numpy(rng.standard_normal(32).astype(np.float32)).requires_grad_()
h = hashlib.sha256()
y = F.group_norm(x, 8, w, b)
for t in (y, *tl.autograd.grad(y, [x, w, b], g)):
    h.update(t.detach().numpy().tobytes())
print(h.hexdigest())
"""


def test_streamed_group_norm_equals_cached_stores_bit_for_bit():
    digests = []
    for flag in ("1", "0"):
        env = dict(os.environ, TORCHLITE_STREAM_STORES=flag)
        out = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        digests.append(out.stdout.strip())
    assert digests[0] == digests[1]
