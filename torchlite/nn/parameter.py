"""nn.Parameter, nn.Buffer and the uninitialized placeholders of the Lazy modules.

A Parameter is a Tensor subclass (made with Tensor._make_subclass, so it shares the data of the
tensor it wraps) whose only job is to be recognised by Module.__setattr__ and registered as a
parameter. A Buffer is not a subclass: like PyTorch's, ``nn.Buffer(t)`` returns a plain detached
tensor marked so that Module.__setattr__ registers it as a buffer.
"""
from __future__ import annotations

import copy as _copy

import torchlite as _torchlite
from torchlite._tensor import Tensor as _Tensor

__all__ = ["Parameter", "UninitializedParameter", "UninitializedBuffer", "Buffer", "is_lazy"]


def _rebuild_parameter(data, requires_grad, state):
    """Unpickles a Parameter (or subclass) saved by Parameter.__reduce_ex__."""
    cls, attrs = state
    param = cls(data, requires_grad)
    param.__dict__.update(attrs)
    return param


class Parameter(_Tensor):
    """A tensor that a Module registers as a parameter when assigned as one of its attributes.

    ``Parameter(data=None, requires_grad=True)``: shares ``data``'s storage (an empty tensor when
    None) and is a leaf that requires grad by default.
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _torchlite.empty(0)
        if not isinstance(data, _Tensor):
            raise TypeError(f"Parameter(): expected a Tensor as data, got {type(data).__name__}")
        # _make_subclass detaches: the parameter is a new leaf sharing data's storage.
        return _Tensor._make_subclass(cls, data, requires_grad)

    def __init__(self, data=None, requires_grad=True):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        result.__dict__.update(
            {k: _copy.deepcopy(v, memo) for k, v in self.__dict__.items()})
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (_rebuild_parameter,
                (self.data, self.requires_grad, (type(self), dict(self.__dict__))))


class _BufferMeta(type(_Tensor)):
    """``isinstance(t, Buffer)`` is true for the tensors nn.Buffer marked."""

    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, _Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(_Tensor, metaclass=_BufferMeta):
    """``nn.Buffer(data=None, *, persistent=True)``: a detached tensor that Module.__setattr__
    registers as a buffer (in the state dict unless ``persistent=False``)."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _torchlite.empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


class UninitializedTensorMixin:
    """Shape-less placeholders of the Lazy modules: ``materialize(shape)`` allocates the data and
    turns the object into its ``cls_to_become`` (Parameter, or a plain Tensor for buffers)."""

    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        if device is None:
            device = self.data.device
        if dtype is None:
            dtype = self.data.dtype
        self.data = _torchlite.empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. "
            "This error usually happens in `load_state_dict` when trying to load "
            "an uninitialized parameter into an initialized one. "
            "Call `forward` to initialize the parameters before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. "
            "Call `forward` to initialize the parameters before calling "
            "`module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


def is_lazy(param):
    """True for the placeholders of Lazy modules that have not been materialized yet."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter with no shape yet (Lazy modules); becomes a Parameter when materialized."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        data = _torchlite.empty(0, device=device, dtype=dtype)
        return _Tensor._make_subclass(cls, data, requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, _Tensor):
    """A buffer with no shape yet (Lazy modules); becomes a plain Tensor when materialized."""

    cls_to_become = _Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        data = _torchlite.empty(0, device=device, dtype=dtype)
        t = _Tensor._make_subclass(cls, data, requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass


del annotations  # torch.nn.parameter has no such name
