"""torchlite: a PyTorch-style tensor library. ``import torchlite as torch``.

Operators come from native_functions.yaml (generated into torchlite._C._ops and re-exported
here); tensors are torchlite.Tensor; autograd is torchlite.autograd.
"""
from __future__ import annotations

import builtins as _builtins
import math as _math


def _preload_blas() -> None:
    """Loads libscipy_openblas.so (the BLAS _C links against; see build_support/blas.py) globally
    before _C, so _C finds it by soname wherever it was built (an editable install's rpath points
    into pip's deleted build environment). Located without importing the wheel's package, whose
    import costs ~90 ms."""
    import ctypes
    import glob
    import importlib.util
    import os

    spec = importlib.util.find_spec("scipy_openblas32")
    if spec is None or not spec.submodule_search_locations:
        return  # built without a BLAS (TORCHLITE_BLAS=none), or it is on the default library path
    for lib in glob.glob(os.path.join(list(spec.submodule_search_locations)[0], "lib", "libscipy_openblas*.so*")):
        ctypes.CDLL(lib, mode=ctypes.RTLD_GLOBAL)
        return


_preload_blas()
del _preload_blas


def _preload_fft() -> None:
    """Loads libmkl_rt (torchlite.fft's library; build_support/fft.py) globally before _C, as the
    BLAS above: from this environment's lib/, or wherever the `mkl` distribution put it."""
    import ctypes
    import glob
    import os
    import sys

    for prefix in (sys.prefix, sys.base_prefix):
        found = sorted(glob.glob(os.path.join(prefix, "lib", "libmkl_rt.so*")))
        if found:
            ctypes.CDLL(found[0], mode=ctypes.RTLD_GLOBAL)
            return
    try:
        import importlib.metadata as metadata

        files = [f for f in (metadata.files("mkl") or []) if "libmkl_rt.so" in str(f)]
    except Exception:  # noqa: BLE001 - no mkl distribution: built without it (TORCHLITE_FFT=none)
        return
    if files:
        ctypes.CDLL(str(files[0].locate()), mode=ctypes.RTLD_GLOBAL)


_preload_fft()
del _preload_fft


def _import_extension():
    """torchlite._C, or an ImportError that says how to build it (importing from a source checkout
    that was never built would otherwise report a circular import)."""
    import importlib
    import importlib.machinery
    import os

    try:
        return importlib.import_module("torchlite._C")
    except ImportError as e:
        here = os.path.dirname(os.path.abspath(__file__))
        built = any(name.startswith("_C.") and name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
                    for name in os.listdir(here))
        if built:
            raise  # the extension is there but does not load: its own error says why
        checkout = os.path.dirname(here)
        raise ImportError(
            f"torchlite's C++ extension (torchlite/_C) is not built in {here}. This is a source checkout: build "
            f"it in place with `python setup.py build_ext --inplace` (or `pip install -e .`) in {checkout}, or "
            f"install torchlite with `pip install {checkout}` and run Python from another directory.") from None


_C = _import_extension()
del _import_extension
from torchlite._C import (  # noqa: F401
    Generator,
    can_cast,
    channels_last,
    channels_last_3d,
    contiguous_format,
    default_generator,
    device,
    dtype,
    from_numpy,
    get_default_dtype,
    get_num_threads,
    layout,
    memory_format,
    preserve_format,
    promote_types,
    result_type,
    set_default_dtype,
    set_num_threads,
    strided,
    tensor,
)
from torchlite._size import Size
from torchlite import random  # noqa: E402
from torchlite.random import (  # noqa: E402,F401  (fork_rng only as torchlite.random.fork_rng, as PyTorch)
    get_rng_state, initial_seed, manual_seed, seed, set_rng_state)
from torchlite._tensor import Tensor, _expect_tensor
from torchlite._tensor_str import set_printoptions
from torchlite._ops import *  # noqa: F401,F403  (every generated operator; typed by _ops.pyi)

# ... including the underscore ones (torchlite._unique2), which `import *` skips.
globals().update({_name: getattr(_C._ops, _name) for _name in dir(_C._ops)
                  if _name.startswith("_") and not _name.startswith("__")})

from torchlite._tensor import _nonzero as nonzero  # noqa: E402  (adds as_tuple=, as PyTorch's Python layer)
from torchlite.functional import (  # noqa: E402,F401  (variadic front ends, as torch.functional)
    atleast_1d, atleast_2d, atleast_3d, block_diag, broadcast_shapes, broadcast_tensors, cartesian_prod, meshgrid)
from torchlite._unique_functions import unique, unique_consecutive  # noqa: E402
_unique_functions.install_methods(Tensor)  # Tensor.unique / unique_consecutive: Python, as in PyTorch
from torchlite._contractions import cdist, chain_matmul, einsum, tensordot  # noqa: E402,F401  (torch/functional.py's)
from torchlite._norm import norm  # noqa: E402  (PyTorch's Python function: p='fro'/'nuc', dim, dtype, out)
from torchlite._lu import lu  # noqa: E402  (torch/functional.py's legacy LU)
_lu.install_methods(Tensor)  # Tensor.lu: Python, as in PyTorch
from torchlite._stft import istft, stft  # noqa: E402  (torch/functional.py's stft, composite over the fft kernels)
_stft.install_methods(Tensor)  # Tensor.stft / istft: Python, as in PyTorch
from torchlite import linalg  # noqa: E402,F401
from torchlite._type_info import finfo, iinfo  # noqa: E402,F401
from torchlite._legacy_types import (  # noqa: E402,F401
    BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor, IntTensor, LongTensor,
    ShortTensor)
from torchlite import return_types  # noqa: E402,F401
from torchlite._asarray import asarray, frombuffer  # noqa: E402,F401
from torchlite import autograd  # noqa: E402
from torchlite import special  # noqa: E402,F401
from torchlite import fft  # noqa: E402,F401
from torchlite import nn  # noqa: E402,F401
from torchlite import optim  # noqa: E402,F401
from torchlite import utils  # noqa: E402,F401
from torchlite import jit  # noqa: E402,F401
from torchlite.utils.dlpack import from_dlpack  # noqa: E402,F401
from torchlite.autograd import enable_grad, inference_mode, no_grad, set_grad_enabled  # noqa: E402,F401
from torchlite.autograd._state import (  # noqa: E402,F401
    is_anomaly_check_nan_enabled, is_anomaly_enabled, is_grad_enabled, is_inference_mode_enabled)

from torchlite.storage import TypedStorage, UntypedStorage, _is_storage as is_storage  # noqa: E402,F401

globals().update(storage._LEGACY_CLASSES)  # FloatStorage, LongStorage, ...
storage._install_tensor_methods(Tensor)  # set_ with a storage, storage(), storage_type()

if hasattr(autograd, "_install_tensor_methods"):
    # Hook point: autograd adds register_hook, retain_grad, ... to Tensor.
    autograd._install_tensor_methods(Tensor)

__version__ = "0.1.0"

inf = _math.inf
nan = _math.nan
pi = _math.pi
e = _math.e
del _math
del annotations  # the __future__ import's name (the feature stays on): no attribute of torch


def is_tensor(obj) -> bool:
    """True if `obj` is a torchlite.Tensor."""
    return isinstance(obj, Tensor)


def is_floating_point(input) -> bool:
    _expect_tensor("is_floating_point", "input", 1, input)
    return input.is_floating_point()


def is_complex(input) -> bool:
    """Whether `input` has a complex dtype (complex32, complex64 or complex128)."""
    _expect_tensor("is_complex", "input", 1, input)
    return input.is_complex()


def is_signed(input) -> bool:
    """Whether `input`'s dtype is signed (every dtype but bool, uint8, uint16, uint32 and uint64)."""
    _expect_tensor("is_signed", "input", 1, input)
    return input.is_signed()


def numel(input) -> int:
    """The number of elements of `input`."""
    _expect_tensor("numel", "input", 1, input)
    return input.numel()


def as_tensor(data, dtype=None, device=None):
    """`data` as a tensor, sharing memory when possible: a tensor with the requested dtype and
    device is returned as it is, a NumPy array is viewed (from_numpy) when its dtype is supported;
    anything else is copied as by torchlite.tensor()."""
    if isinstance(data, Tensor):
        result = data
        if device is not None and _C.device(device) != result.device and \
                _C.device(device).type != result.device.type:
            result = result.to(_C.device(device))
        if dtype is not None and result.dtype != dtype:
            result = result.to(dtype)
        return result
    if type(data).__name__ == "ndarray" and type(data).__module__ == "numpy":
        try:
            result = from_numpy(data)
        except (TypeError, ValueError):
            return tensor(data, dtype=dtype, device=device)
        return as_tensor(result, dtype=dtype, device=device)
    return tensor(data, dtype=dtype, device=device)


# dtypes, with PyTorch's aliases. Last: these names shadow builtins in this module's namespace.
float32 = _C.float32
float64 = _C.float64
float16 = _C.float16
bfloat16 = _C.bfloat16
int8 = _C.int8
int16 = _C.int16
int32 = _C.int32
int64 = _C.int64
uint8 = _C.uint8
uint16 = _C.uint16
uint32 = _C.uint32
uint64 = _C.uint64
float = float32  # noqa: A001
double = float64
half = float16
short = int16
int = int32  # noqa: A001
long = int64
complex64 = _C.complex64
complex128 = _C.complex128
complex32 = _C.complex32
cfloat = complex64
cdouble = complex128
chalf = complex32
bool = _C.bool  # noqa: A001
from torchlite.serialization import load, save  # noqa: E402,F401  (after the dtypes it names)
from torchlite import backends, cuda  # noqa: E402,F401
from torchlite import distributed  # noqa: E402,F401  (imports no MPI: mpi4py loads at init_process_group)

_interop_threads = 1


def set_num_interop_threads(n: int) -> None:
    """Recorded only: torchlite runs no inter-op thread pool (ops run one at a time; each op parallelizes
    with set_num_threads's threads)."""
    global _interop_threads
    if not isinstance(n, _builtins.int) or n < 1:
        raise RuntimeError(f"set_num_interop_threads: Expected a positive number of threads, got {n}")
    _interop_threads = n


def get_num_interop_threads() -> int:
    return _interop_threads


def __getattr__(name):
    # As torch's _lazy_modules: `torchlite.onnx` is imported on first use, so `import torchlite` never loads
    # the exporter (nor its optional `onnx` dependency).
    if name == "onnx":
        import importlib
        return importlib.import_module("torchlite.onnx")
    raise AttributeError(f"module 'torchlite' has no attribute '{name}'")
