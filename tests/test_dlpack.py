"""DLPack exchange (torchlite.from_dlpack, Tensor.__dlpack__, torchlite.utils.dlpack) with NumPy and PyTorch:
memory shared both ways (writes show on the other side), every dtype, strides, 0-d and empty tensors,
lifetimes, and PyTorch's errors."""
import gc

import numpy as np
import pytest
import torch

import torchlite as tl

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "uint16", "uint32", "uint64"]


def sample(dtype):
    t = torch.arange(24).reshape(2, 3, 4) % 7
    return t.to(getattr(torch, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trips_with_torch_share_memory(dtype):
    src = sample(dtype)
    ours = tl.from_dlpack(src)
    assert ours.dtype == getattr(tl, dtype) and ours.shape == src.shape and ours.stride() == src.stride()
    assert ours.data_ptr() == src.data_ptr()
    back = torch.from_dlpack(ours)
    assert back.data_ptr() == src.data_ptr() and torch.equal(back, src)
    # non-contiguous views keep their strides, and a write shows through
    view = tl.from_dlpack(src.transpose(0, 2)[1:])
    assert view.stride() == src.transpose(0, 2)[1:].stride()
    if dtype != "bool":
        ours[0, 0, 0] = 5
        assert src[0, 0, 0].item() == 5


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int16", "int64", "float16", "float32", "float64", "uint64"])
def test_numpy_both_ways(dtype):
    a = np.arange(12).reshape(3, 4).astype(dtype)[:, ::2]
    t = tl.from_dlpack(a)
    assert t.tolist() == a.tolist() and t.stride() == (4, 2)
    b = np.from_dlpack(t)
    assert b.dtype == a.dtype and b.__array_interface__["data"][0] == t.data_ptr()
    np.testing.assert_array_equal(b, a)


def test_zero_dim_empty_and_versions():
    for src in (tl.tensor(3.5), tl.empty(0, 4), tl.ones(2, 0, 3)):
        back = torch.from_dlpack(src)
        assert tuple(back.shape) == tuple(src.shape) and back.dtype == torch.float32
        assert tl.from_dlpack(torch.from_dlpack(src)).shape == src.shape
    t = tl.arange(4.0)
    assert "dltensor_versioned" in repr(t.__dlpack__(max_version=(1, 0)))
    assert '"dltensor"' in repr(t.__dlpack__()) and '"dltensor"' in repr(tl.utils.dlpack.to_dlpack(t))
    assert t.__dlpack_device__() == (tl.utils.dlpack.DLDeviceType.kDLCPU, 0)
    copied = tl.from_dlpack(t.__dlpack__(copy=True))
    assert copied.data_ptr() != t.data_ptr() and copied.tolist() == t.tolist()


def test_memory_outlives_the_producer():
    src = torch.arange(1000.0)
    ours = tl.from_dlpack(src)
    del src
    gc.collect()
    assert ours.sum().item() == 499500.0
    t = tl.arange(1000.0)
    theirs = torch.from_dlpack(t)
    del t
    gc.collect()
    assert theirs.sum().item() == 499500.0
    capsule = tl.arange(3.0).__dlpack__()
    del capsule  # never consumed: its destructor frees the export
    gc.collect()


def test_errors_as_pytorch():
    for lib in (tl, torch):
        with pytest.raises(BufferError, match="Can't export tensors that require gradient, use tensor.detach"):
            lib.ones(2, requires_grad=True).__dlpack__()
    capsule = tl.arange(3.0).__dlpack__()
    tl.from_dlpack(capsule)
    with pytest.raises(TypeError, match="from_dlpack: expected a DLPack capsule"):
        tl.from_dlpack(capsule)  # consumed already
    with pytest.raises(TypeError, match="from_dlpack: expected a DLPack capsule"):
        tl.from_dlpack([1, 2])
    with pytest.raises(TypeError, match="stream must be"):
        tl.ones(2).__dlpack__(stream="x")
    with pytest.raises(BufferError):
        tl.ones(2).__dlpack__(dl_device=(tl.utils.dlpack.DLDeviceType.kDLCUDA, 0))
    with pytest.raises(BufferError, match="meta"):
        tl.empty(2, device="meta").__dlpack_device__()
