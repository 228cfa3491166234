"""The window functions (hann, hamming, blackman, bartlett, kaiser) against PyTorch: every overload,
periodic and symmetric, lengths 0, 1 and more, each floating dtype, the default dtype, the factory
keywords (requires_grad, device="meta", pin_memory, layout), no out= (as in PyTorch's Python API), and
PyTorch's errors."""
import numpy as np
import pytest
import torch

import torchlite as tl

DTYPES = ["float16", "bfloat16", "float32", "float64"]
# At most one unit in the last place apart (cos and i0 of the two libraries).
TOL = {"float16": dict(rtol=1e-3, atol=1e-6), "bfloat16": dict(rtol=8e-3, atol=1e-6),
       "float32": dict(rtol=1e-5, atol=1e-6), "float64": dict(rtol=1e-12, atol=1e-13)}

# (name, positional arguments after window_length)
CALLS = [
    ("hann_window", ()), ("hann_window", (True,)), ("hann_window", (False,)),
    ("hamming_window", ()), ("hamming_window", (False,)), ("hamming_window", (True, 0.6)),
    ("hamming_window", (False, 0.5, 0.4)),
    ("blackman_window", ()), ("blackman_window", (True,)), ("blackman_window", (False,)),
    ("bartlett_window", ()), ("bartlett_window", (True,)), ("bartlett_window", (False,)),
    ("kaiser_window", ()), ("kaiser_window", (False,)), ("kaiser_window", (True, 5.0)), ("kaiser_window", (False, 0.5)),
]


def same(got, expected, dtype):
    assert tuple(got.shape) == tuple(expected.shape)
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_allclose(got.float().numpy(), expected.float().numpy(), **TOL[dtype])


@pytest.mark.parametrize("name, args", CALLS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_windows_match_torch(name, args, dtype):
    for length in (0, 1, 2, 3, 8, 13, 64):
        got = getattr(tl, name)(length, *args, dtype=getattr(tl, dtype))
        expected = getattr(torch, name)(length, *args, dtype=getattr(torch, dtype))
        same(got, expected, dtype)


@pytest.mark.parametrize("name, args", CALLS[::3])
def test_windows_default_dtype_and_keywords(name, args):
    expected = getattr(torch, name)(9, *args)
    same(getattr(tl, name)(9, *args), expected, "float32")
    tl.set_default_dtype(tl.float64)
    try:
        assert getattr(tl, name)(9, *args).dtype == tl.float64
    finally:
        tl.set_default_dtype(tl.float32)
    w = getattr(tl, name)(9, *args, requires_grad=True, layout=tl.strided, device="cpu", pin_memory=False)
    assert w.requires_grad and w.is_leaf and w.grad_fn is None
    m = getattr(tl, name)(9, *args, device="meta")
    assert m.is_meta and tuple(m.shape) == (9,)


@pytest.mark.parametrize("name, args", CALLS[::2])
def test_windows_have_no_out(name, args):
    # PyTorch's window .out overloads are C++ only (autogen): Python refuses out=.
    with pytest.raises(TypeError):
        getattr(torch, name)(10, *args, out=torch.empty(0))
    with pytest.raises(TypeError):
        getattr(tl, name)(10, *args, out=tl.empty(0))


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
                                  "kaiser_window"])
def test_windows_errors_like_torch(name):
    for kwargs in (dict(dtype=torch.int64), dict(dtype=torch.bool)):
        with pytest.raises(RuntimeError, match=f"{name} expects floating point dtypes"):
            getattr(torch, name)(5, **kwargs)
        with pytest.raises(RuntimeError, match=f"{name} expects floating point dtypes"):
            getattr(tl, name)(5, dtype=getattr(tl, str(kwargs["dtype"]).split(".")[-1]))
    with pytest.raises(RuntimeError, match=f"{name} requires non-negative window_length, got window_length=-1"):
        getattr(torch, name)(-1)
    with pytest.raises(RuntimeError, match=f"{name} requires non-negative window_length, got window_length=-1"):
        getattr(tl, name)(-1)
    with pytest.raises(TypeError):
        getattr(tl, name)(5.0)
    with pytest.raises(RuntimeError):
        getattr(tl, name)(5, pin_memory=True)


def test_window_values_from_their_formulas():
    # Independent of PyTorch: the textbook definitions in float64.
    n = np.arange(8)
    np.testing.assert_allclose(tl.hann_window(8, False, dtype=tl.float64).numpy(), 0.5 - 0.5 * np.cos(2 * np.pi * n / 7))
    np.testing.assert_allclose(tl.hann_window(8, dtype=tl.float64).numpy(), np.hanning(9)[:-1], atol=1e-15)
    np.testing.assert_allclose(tl.hamming_window(8, False, dtype=tl.float64).numpy(), np.hamming(8), atol=1e-15)
    np.testing.assert_allclose(tl.blackman_window(8, False, dtype=tl.float64).numpy(), np.blackman(8), atol=1e-15)
    np.testing.assert_allclose(tl.bartlett_window(8, False, dtype=tl.float64).numpy(), np.bartlett(8), atol=1e-15)
    np.testing.assert_allclose(tl.kaiser_window(8, False, 5.0, dtype=tl.float64).numpy(), np.kaiser(8, 5.0),
                               rtol=1e-13)
