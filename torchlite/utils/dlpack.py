"""DLPack: torchlite tensors to and from other array libraries (NumPy, PyTorch, JAX, CuPy...) sharing memory,
no copy (torch.utils.dlpack). The capsule work is in C++ (torchlite/csrc/dlpack.cpp)."""
import enum as _enum

import torchlite as _torchlite
from torchlite import _C

__all__ = ["DLDeviceType", "from_dlpack"]


class DLDeviceType(_enum.IntEnum):
    # The DLPack device codes, as dlpack.h numbers them.
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def to_dlpack(tensor):
    """A DLPack capsule ("dltensor", the pre-1.0 protocol) viewing the tensor's memory."""
    return _C._to_dlpack(tensor, False)


def from_dlpack(ext_tensor):
    """A tensor sharing the memory of `ext_tensor`: an object with ``__dlpack__`` (a NumPy array, a PyTorch
    tensor, ...) or a DLPack capsule not consumed yet. Writes show on both sides."""
    if isinstance(ext_tensor, _torchlite.Tensor):
        return ext_tensor
    if hasattr(ext_tensor, "__dlpack__"):
        device = ext_tensor.__dlpack_device__()
        if device[0] not in (DLDeviceType.kDLCPU, DLDeviceType.kDLCUDAHost):
            raise BufferError(f"from_dlpack: torchlite takes CPU tensors only, got one on DLPack device {device}")
        try:
            capsule = ext_tensor.__dlpack__(max_version=(1, 0))
        except TypeError:  # a producer of the pre-1.0 protocol
            capsule = ext_tensor.__dlpack__()
    else:
        capsule = ext_tensor
    return _C._from_dlpack(capsule)
