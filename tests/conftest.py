"""Shared helpers: converting between torchlite and the PyTorch oracle, and layouts to test on."""
import numpy as np
import pytest
import torch

import torchlite as tl

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
FLOAT_DTYPES = ["float16", "bfloat16", "float32", "float64"]
INT_DTYPES = ["uint8", "int8", "int16", "int32", "int64"]


def tl_dtype(name):
    return getattr(tl, name)


def torch_dtype(name):
    return getattr(torch, name)


def to_torch(t):
    """A torch copy of a torchlite tensor (through float32 for bfloat16, which NumPy lacks)."""
    if t.dtype == tl.bfloat16:
        return torch.from_numpy(t.float().numpy().copy()).to(torch.bfloat16)
    return torch.from_numpy(t.numpy().copy())


def from_torch(t):
    if t.dtype == torch.bfloat16:
        return tl.from_numpy(t.float().numpy().copy()).to(tl.bfloat16)
    return tl.from_numpy(t.numpy().copy())


def make(shape, dtype, seed=0, low=-5, high=5):
    """A torch tensor of this dtype with varied values (no zeros for integer types)."""
    g = torch.Generator().manual_seed(seed)
    dt = torch_dtype(dtype)
    if dtype == "bool":
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype == "uint8":
        return torch.randint(1, 10, shape, generator=g).to(dt)
    if dt.is_floating_point:
        return (torch.rand(shape, generator=g, dtype=torch.float64) * (high - low) + low).to(dt)
    t = torch.randint(low, high, shape, generator=g)
    t[t == 0] = 1
    return t.to(dt)


def assert_same(actual, expected, atol=None, rtol=None, check_dtype=True):
    """torchlite `actual` equals torch `expected` in shape, dtype and values (NaNs equal)."""
    assert tuple(actual.shape) == tuple(expected.shape), (actual.shape, expected.shape)
    if check_dtype:
        assert str(actual.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1], (actual.dtype, expected.dtype)
    got = to_torch(actual)
    if expected.dtype in (torch.float16, torch.bfloat16):
        atol = 1e-2 if atol is None else atol
        rtol = 1e-2 if rtol is None else rtol
    torch.testing.assert_close(got.to(expected.dtype), expected, atol=atol, rtol=rtol, equal_nan=True,
                               check_dtype=False)


LAYOUTS = ["contiguous", "transposed", "sliced", "expanded"]


def layout(t, kind):
    """The same values as torch tensor `t` (2-D) presented with another memory layout, as (torch, torchlite)."""
    base = from_torch(t)
    if kind == "contiguous":
        return t, base
    if kind == "transposed":
        tt = t.t().contiguous().t()
        return tt, from_torch(t.t().contiguous()).t()
    if kind == "sliced":
        big = torch.zeros(t.shape[0], 2 * t.shape[1], dtype=t.dtype)
        big[:, ::2] = t
        return big[:, ::2], from_torch(big)[:, ::2]
    if kind == "expanded":
        row = t[:1]
        return row.expand_as(t), from_torch(row).expand(*t.shape)
    raise ValueError(kind)
