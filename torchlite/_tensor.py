"""torchlite.Tensor: the Python tensor class.

Most of the class lives in C: attributes (shape, dtype, grad, ...) and basic methods are in
torchlite/csrc/tensor.cpp, the operator methods (add, view, __add__, ...) are generated from
native_functions.yaml. This file adds what is easier in Python: printing, indexing, conversions,
the reflected operators the YAML does not provide, and NumPy interop.
"""
from __future__ import annotations

import builtins
import functools
import warnings

import torchlite
from torchlite import _C, _indexing, _legacy_types, _tensor_str
from torchlite._size import Size

_ops = _C._ops


def _wrap_type_error_to_not_implemented(fn):
    """For reflected operators: an operand of an unsupported type gives NotImplemented, so Python
    can try the other operand (or raise its usual TypeError)."""

    @functools.wraps(fn)
    def wrapped(self, other):
        try:
            return fn(self, other)
        except TypeError:
            return NotImplemented

    return wrapped


def _rebuild_tensor(data, dtype, shape, requires_grad, device="cpu", conj=False, neg=False):
    """Unpickles a tensor saved by Tensor.__reduce_ex__ (data as nested lists; None for meta); `conj`/`neg`:
    the data is what the memory of a tensor with those lazy bits held, and the bits are set again."""
    if data is None or 0 in shape:
        t = _ops.empty(shape, dtype=dtype, device=device)
    else:
        t = _C.tensor(data, dtype=dtype)
    if conj:
        t = t._conj()
    if neg:
        t = t._neg_view()
    if requires_grad:
        t.requires_grad_(True)
    return t


class Tensor(_C.TensorBase):
    """A multi-dimensional array with a dtype, a device, sizes and strides, and autograd support."""

    # NumPy defers to our reflected operators (ndarray + tensor -> tensor.__radd__).
    __array_priority__ = 1000

    def __new__(cls, *args, device=None):
        """The legacy constructor: Tensor() (empty), Tensor(*sizes) / Tensor(size) (uninitialised),
        Tensor(data) (a copy with the default dtype)."""
        if not args:
            result = _ops.empty((0,), device=device)
        elif len(args) == 1 and isinstance(args[0], _C.TensorBase):
            result = _C._internal.alias(args[0])
        elif all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            result = _ops.empty(args, device=device)
        elif len(args) == 1 and isinstance(args[0], Size):
            result = _ops.empty(args[0], device=device)
        elif len(args) == 1:
            result = _C.tensor(args[0], dtype=_C.get_default_dtype(), device=device)
        else:
            raise TypeError(f"Tensor(): expected sizes (ints) or one data argument, got "
                            f"({', '.join(type(a).__name__ for a in args)})")
        if cls is not Tensor:
            return Tensor._make_subclass(cls, result, result.requires_grad)
        return result

    # ---- printing ---------------------------------------------------------------------

    def __repr__(self) -> str:
        return _tensor_str._str(self)

    def __str__(self) -> str:
        return _tensor_str._str(self)

    def __format__(self, format_spec: str) -> str:
        if self.dim() == 0 and not self.is_meta and type(self) is Tensor:
            return self.item().__format__(format_spec)
        return object.__format__(self, format_spec)

    # ---- indexing and iteration -------------------------------------------------------

    def __getitem__(self, index):
        # Fast paths for t[i] and t[a:b]; everything else in _indexing.
        if type(index) is builtins.int and self.dim() > 0:
            return self.select(0, index)
        if type(index) is slice and index.step is None and self.dim() > 0:
            try:
                return _C._internal.slice(self, 0, index.start, index.stop)
            except ValueError:  # bounds beyond int64: _indexing clamps them
                pass
        if type(index) is Tensor and index.dim() > 0 and index.dtype != _C.uint8:  # t[mask], t[idx]: the index op
            return _C._internal.index(self, (index,))
        return _indexing.getitem(self, index)

    def __setitem__(self, index, value):
        _indexing.setitem(self, index, value)

    def nonzero(self, *, out=None, as_tuple: bool = False):
        """The indices of the nonzero elements: a (count, dim) int64 tensor, or with `as_tuple` one
        1-D tensor per dim (as PyTorch, which adds this keyword in Python too)."""
        return _nonzero(self, out=out, as_tuple=as_tuple)

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        """torchlite.norm(self, p, dim, keepdim, dtype=dtype), as PyTorch's Python method."""
        return torchlite.norm(self, p, dim, keepdim, dtype=dtype)

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self.select(0, i) for i in range(self.shape[0]))

    def __contains__(self, element) -> bool:
        if isinstance(element, (Tensor, builtins.int, builtins.float, builtins.bool)):
            return builtins.bool((self == element).sum().item() > 0)
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                           f"{type(element)}.")

    # ---- reflected operators the YAML does not provide -----------------------------------

    @_wrap_type_error_to_not_implemented
    def __rtruediv__(self, other):
        return self.reciprocal() * other

    @_wrap_type_error_to_not_implemented
    def __rfloordiv__(self, other):
        return _ops.floor_divide(other, self)

    @_wrap_type_error_to_not_implemented
    def __rpow__(self, other):
        return _ops.pow(other, self)

    @_wrap_type_error_to_not_implemented
    def __rlshift__(self, other):
        return _ops.bitwise_left_shift(other, self)

    @_wrap_type_error_to_not_implemented
    def __rrshift__(self, other):
        return _ops.bitwise_right_shift(other, self)

    @_wrap_type_error_to_not_implemented
    def __rmod__(self, other):
        return _ops.remainder(other, self)

    @_wrap_type_error_to_not_implemented
    def __rmatmul__(self, other):
        return _ops.matmul(other, self)

    # ---- conversions ----------------------------------------------------------------------

    def float(self):
        return self.to(_C.float32)

    def double(self):
        return self.to(_C.float64)

    def half(self):
        return self.to(_C.float16)

    def bfloat16(self):
        return self.to(_C.bfloat16)

    def chalf(self):
        return self.to(_C.complex32)

    def cfloat(self):
        return self.to(_C.complex64)

    def cdouble(self):
        return self.to(_C.complex128)

    def int(self):
        return self.to(_C.int32)

    def long(self):
        return self.to(_C.int64)

    def short(self):
        return self.to(_C.int16)

    def char(self):
        return self.to(_C.int8)

    def byte(self):
        return self.to(_C.uint8)

    def bool(self):
        return self.to(_C.bool)

    def cpu(self):
        return self if self.device.type == "cpu" else self.to("cpu")

    def type(self, dtype=None, non_blocking: builtins.bool = False):
        """The legacy type name ('torch.FloatTensor', as PyTorch), or with `dtype` (a dtype, a type
        such as torchlite.DoubleTensor, or its name) the tensor converted to it."""
        return _legacy_types.tensor_type(self, dtype, non_blocking)

    def type_as(self, other):
        """This tensor converted to the dtype (and device) of `other`."""
        _expect_tensor("type_as", "other", 1, other)
        return self.to(other)

    def expand_as(self, other):
        _expect_tensor("expand_as", "other", 1, other)
        return self.expand(other.shape)

    def view_as(self, other):
        _expect_tensor("view_as", "other", 1, other)
        return self.view(other.shape)

    def reshape_as(self, other):
        _expect_tensor("reshape_as", "other", 1, other)
        return self.reshape(other.shape)

    def __complex__(self):
        return complex(self.item())

    @property
    def real(self):
        """The real parts, a view (the tensor itself for real dtypes); assigning copies into it."""
        return _C._ops.real(self)

    @real.setter
    def real(self, value):
        _C._ops.real(self).copy_(value)

    @property
    def imag(self):
        """The imaginary parts of a complex tensor, a view; assigning copies into it."""
        return _C._ops.imag(self)

    @imag.setter
    def imag(self, value):
        _C._ops.imag(self).copy_(value)

    @property
    def T(self):
        """The dimensions in reverse order (the transpose of a matrix)."""
        return self.permute(tuple(range(self.dim() - 1, -1, -1)))

    @property
    def mT(self):
        """The last two dimensions swapped (a batch of transposed matrices)."""
        if self.dim() == 0:
            warnings.warn("Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.",
                          UserWarning, stacklevel=2)
            return self
        if self.dim() < 2:
            raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got "
                               f"{self.dim()}-D tensor.")
        return self.transpose(-2, -1)

    @property
    def H(self):
        """The conjugate transpose of a matrix."""
        if self.dim() == 0:
            warnings.warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=2)
            return self
        if self.dim() != 2:
            hint = " For batches of matrices, consider using tensor.mH" if self.dim() > 2 else ""
            raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D "
                               f"tensor.{hint}")
        return self.transpose(0, 1).conj()

    @property
    def mH(self):
        """The last two dimensions swapped (a batch of conjugate-transposed matrices: `adjoint()`)."""
        if self.dim() == 0:
            warnings.warn("Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=2)
            return self
        if self.dim() < 2:
            raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. Got "
                               f"{self.dim()}-D tensor.")
        return self.transpose(-2, -1).conj()

    # ---- NumPy ----------------------------------------------------------------------------

    def numpy(self, *, force: bool = False):
        """A NumPy array sharing this tensor's memory (CPU tensors; not bfloat16)."""
        import numpy as np

        if force:  # PyTorch's force=True: the values, lazy conj/neg bits resolved
            return np.asarray(self.detach().resolve_conj().resolve_neg()._numpy_holder()).copy()
        # The array's base holds the storage itself, so the memory outlives `x.data = y` and resizes.
        return np.asarray(self._numpy_holder())

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy()
        if dtype is not None and arr.dtype != dtype:
            return arr.astype(dtype)
        if copy:
            return arr.copy()
        return arr

    def __array_wrap__(self, array, context=None, return_scalar=False):
        # NumPy ufuncs on a tensor (tensor * ndarray goes through ndarray.__rmul__) give a tensor back.
        return _C.from_numpy(array)

    # ---- factories with this tensor's dtype and device ---------------------------------------

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        if isinstance(data, _C.TensorBase):
            import warnings

            warnings.warn("To copy construct from a tensor, use sourceTensor.detach().clone() rather than "
                          "tensor.new_tensor(sourceTensor).", UserWarning, stacklevel=2)
        return _C.tensor(data, dtype=self.dtype if dtype is None else dtype,
                         device=self.device if device is None else device, requires_grad=requires_grad)

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
        return _ops.empty(_size_arg(size), dtype=self.dtype if dtype is None else dtype,
                          device=self.device if device is None else device, requires_grad=requires_grad,
                          layout=layout, pin_memory=pin_memory)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
        return _ops.zeros(_size_arg(size), dtype=self.dtype if dtype is None else dtype,
                          device=self.device if device is None else device, requires_grad=requires_grad,
                          layout=layout, pin_memory=pin_memory)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
        return _ops.ones(_size_arg(size), dtype=self.dtype if dtype is None else dtype,
                         device=self.device if device is None else device, requires_grad=requires_grad,
                         layout=layout, pin_memory=pin_memory)

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
                 pin_memory=False):
        return _ops.full(size, fill_value, dtype=self.dtype if dtype is None else dtype,
                         device=self.device if device is None else device, requires_grad=requires_grad,
                         layout=layout, pin_memory=pin_memory)

    def new(self, *args, device=None):
        """The legacy factory, with this tensor's dtype and device: new() (empty), new(*sizes) or
        new(torchlite.Size) (uninitialised), new(sequence) (a copy), new(tensor) (an alias of a tensor of
        this dtype)."""
        return _legacy_types.legacy_new("new", self.dtype, self.device, args, device)

    # ---- autograd -----------------------------------------------------------------------------

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulates the gradient of this tensor into ``.grad`` of the graph leaves (see
        torchlite.autograd.backward). ``gradient`` may be omitted for a one-element tensor."""
        torchlite.autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # Hook point: register_hook, retain_grad, retains_grad, register_post_accumulate_grad_hook
    # and friends belong to torchlite.autograd. If that package defines
    # `_install_tensor_methods(Tensor)`, torchlite/__init__.py calls it after importing it and the
    # methods it sets replace nothing here.

    # ---- shared memory ----------------------------------------------------------------------

    def __dlpack__(self, *, stream=-1, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule viewing this tensor's memory (torchlite.utils.dlpack): the 1.x protocol's
        ("dltensor_versioned") when the consumer's max_version allows it, else the older one."""
        if stream is not None and type(stream) is not builtins.int:
            raise TypeError("stream must be ``int`` or ``none``")
        if dl_device is not None and tuple(dl_device) != tuple(self.__dlpack_device__()):
            raise BufferError(f"Can't export a CPU tensor to DLPack device {tuple(dl_device)}")
        if copy is not None and type(copy) is not builtins.bool:
            raise TypeError(f"copy must be a bool or None, got {type(copy).__name__}")
        if self.is_conj():  # the capsule would show the memory, not the conjugated values
            raise BufferError("Can't export tensors with the conjugate bit set")
        tensor = self.clone() if copy else self
        return _C._to_dlpack(tensor, max_version is not None and max_version[0] >= 1)

    def __dlpack_device__(self):
        """(DLDeviceType.kDLCPU, 0): where the memory a DLPack capsule of this tensor points to lives."""
        from torchlite.utils.dlpack import DLDeviceType
        if self.is_meta:
            raise BufferError("Cannot get the DLPack device of a meta tensor: it has no data")
        return (DLDeviceType.kDLCPU, 0)

    def share_memory_(self):
        """Moves the storage's bytes into shared memory (every view of it follows); a no-op when they are
        already there. Processes forked afterwards see each other's writes."""
        self.untyped_storage().share_memory_()
        return self

    def is_shared(self) -> builtins.bool:
        """Whether the storage's bytes are in shared memory."""
        return self.untyped_storage().is_shared()

    # ---- copying and pickling ---------------------------------------------------------------

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                               "protocol at the moment.")
        if id(self) in memo:
            return memo[id(self)]
        if self.is_meta:
            new = _ops.empty(self.shape, dtype=self.dtype, device=self.device)
        else:
            new = self.detach().clone()
        if type(self) is not Tensor:
            new = Tensor._make_subclass(type(self), new)
        if self.requires_grad:
            new.requires_grad_(True)
        if self.grad is not None:
            new.grad = self.grad.__deepcopy__(memo)
        memo[id(self)] = new
        return new

    def __reduce_ex__(self, protocol):
        bits = (self.is_conj(), self.is_neg())
        # The memory's values (the bits flipped off), so that the lazy bits come back as they were.
        memory = self.detach()._conj() if bits[0] else self.detach()
        memory = memory._neg_view() if bits[1] else memory
        data = None if self.is_meta else memory.tolist()
        return (_rebuild_tensor, (data, self.dtype, tuple(self.shape), self.requires_grad, str(self.device)) + bits)


def _expect_tensor(op: str, name: str, position: int, value) -> None:
    """PyTorch's TypeError for a non-tensor argument of a Python-level helper."""
    if not isinstance(value, _C.TensorBase):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


def _size_arg(size):
    """new_zeros(2, 3) and new_zeros((2, 3)) both mean the shape (2, 3)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return size


_C._set_tensor_class(Tensor)


def _nonzero(input, *, out=None, as_tuple: bool = False):
    if as_tuple:
        if out is not None:
            raise RuntimeError("nonzero: out= is not supported with as_tuple=True")
        return tuple(_ops.where(input))
    return _ops.nonzero(input) if out is None else _ops.nonzero(input, out=out)
