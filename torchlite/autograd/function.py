"""Custom autograd functions: ``torchlite.autograd.Function``.

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    y = Exp.apply(x)

``apply`` runs ``forward`` under no_grad, then (when grad mode is on and a tensor input requires
grad) records a backward node (``ExpBackward``, a C++ ``PyNode``) whose backward calls
``Exp.backward`` with the GIL held. See torchlite/csrc/autograd/python_function.h.
"""
from __future__ import annotations

import functools
from typing import Any, Tuple

import torchlite as _torchlite
from torchlite._C import _autograd as _C

from .grad_mode import no_grad as _no_grad

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable", "InplaceFunction",
           "NestedIOFunction"]


class FunctionCtx(_C._FunctionCtx):
    """The ``ctx`` of a custom Function: what forward leaves for backward. After ``apply`` it is
    also reachable as ``output.grad_fn`` attributes (``y.grad_fn.saved_tensors``)."""

    def save_for_backward(self, *tensors) -> None:
        """Keeps tensors (or None) for backward; read them back with ``ctx.saved_tensors``.
        Saved tensors are checked for in-place changes when read, like the ones ops save."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, _torchlite.Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                                f"{type(t).__name__}")
        self.to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        self.saved_for_forward = tensors

    def mark_dirty(self, *args) -> None:
        """Marks input tensors that forward modified in place (they must be returned as outputs)."""
        self.dirty_tensors = args

    def mark_shared_storage(self, *pairs) -> None:
        raise RuntimeError("mark_shared_storage is deprecated. Tensors with shared storages are automatically "
                           "tracked. Note that calls to `set_()` are not tracked")

    def mark_non_differentiable(self, *args) -> None:
        """Marks outputs as not requiring grad (backward still receives a zero gradient for them)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """Whether missing output gradients reach backward as zeros (default) or as None."""
        self.materialize_grads = bool(value)


class BackwardCFunction(FunctionCtx):
    """Base of the per-Function ctx classes (``MyFnBackward``)."""

    _forward_cls: Any = None
    materialize_grads = True

    def _run_backward(self, grads: tuple) -> tuple:
        """Called by the C++ node: one gradient per tensor output of forward (None where absent).
        Returns one gradient per tensor input."""
        output_mask = self._output_mask
        if len(grads) == len(output_mask):
            full = grads
        else:
            it = iter(grads)
            full = tuple(next(it, None) if is_t else None for is_t in output_mask)
        if self.materialize_grads and any(g is None for g, is_t in zip(full, output_mask) if is_t):
            metas = self._output_meta
            full = tuple(_torchlite.zeros(m[0], dtype=m[1], device=m[2]) if g is None and m is not None else g
                         for g, m in zip(full, metas))
        fn = self._forward_cls
        result = fn.backward(self, *full)
        if not isinstance(result, tuple):
            result = (result,)
        input_mask = self._input_mask
        name = type(self).__name__
        n = len(input_mask)
        if len(result) != n:
            if len(result) > n and all(r is None for r in result[n:]):
                result = result[:n]
            else:
                raise RuntimeError(f"function {name} returned an incorrect number of gradients (expected {n}, "
                                   f"got {len(result)})")
        out = []
        for i, (g, is_t) in enumerate(zip(result, input_mask)):
            if g is not None and not isinstance(g, _torchlite.Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
            if is_t:
                out.append(g)
            elif g is not None:
                raise RuntimeError(f"function {name} returned a gradient different than None at position {i + 1}, "
                                   f"but the corresponding forward input was not a Variable")
        return tuple(out)

    def apply(self, *args):
        """Runs this node's backward directly (as ``grad_fn.apply(grad)`` does in PyTorch)."""
        return self._forward_cls.backward(self, *args)

    def name(self) -> str:
        return type(self).__name__


class FunctionMeta(type):
    """Makes, for each Function subclass ``F``, its ctx class ``FBackward``."""

    def __init__(cls, name, bases, attrs):
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        super().__init__(name, bases, attrs)


class _SingleLevelFunction(metaclass=FunctionMeta):
    @staticmethod
    def forward(*args, **kwargs) -> Any:
        """Computes the outputs. Either ``forward(ctx, *args)``, or ``forward(*args)`` together with
        ``setup_context(ctx, inputs, output)``. Runs under no_grad."""
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: Tuple[Any, ...], output: Any) -> Any:
        return _setup_context_not_overridden

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        """One gradient per forward input (None for non-tensor inputs or where none is needed),
        given one gradient per forward output."""
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward


_setup_context_not_overridden = object()


class Function(_SingleLevelFunction):
    """Base class of custom differentiable operations (see the module docstring)."""

    def __init__(self, *args, **kwargs):
        import warnings

        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd functions are all "
                      f"static, so you should invoke them on the class itself. Instantiating an autograd function "
                      f"is deprecated.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use new-"
                           "style autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Runs forward and records the backward node; returns forward's outputs."""
        if cls.backward is _SingleLevelFunction.backward and cls.vjp is _SingleLevelFunction.vjp:
            pass  # raised at backward time, as in PyTorch
        ctx = cls._backward_cls()
        is_tensor = [isinstance(a, _torchlite.Tensor) for a in args]
        grad_on = _C.is_grad_enabled()
        ctx.needs_input_grad = tuple(grad_on and t and a.requires_grad for a, t in zip(args, is_tensor))
        ctx._input_mask = is_tensor
        uses_setup_context = cls.setup_context is not _SingleLevelFunction.setup_context
        with _no_grad():
            if uses_setup_context:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, outputs)
            else:
                outputs = cls.forward(ctx, *args, **kwargs)
        is_tuple = isinstance(outputs, tuple)
        outs = outputs if is_tuple else (outputs,)
        ctx._output_mask = [isinstance(o, _torchlite.Tensor) for o in outs]
        if not any(ctx.needs_input_grad):
            return outputs
        ctx._output_meta = [(tuple(o.shape), o.dtype, o.device) if isinstance(o, _torchlite.Tensor) else None
                            for o in outs]
        new = _C._create_py_node(ctx, type(ctx).__name__, tuple(args), outs,
                                 getattr(ctx, "dirty_tensors", None), getattr(ctx, "non_differentiable", None),
                                 getattr(ctx, "to_save", None), ctx.materialize_grads)
        # The saved tensors live in the node now (version-checked, without reference cycles).
        if "to_save" in ctx.__dict__:
            del ctx.to_save
        return new if is_tuple else new[0]


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    pass


_ONCE_DIFFERENTIABLE_MSG = "trying to differentiate twice a function that was marked with @once_differentiable"


class _DelayedError(Function):
    """Outputs of a once_differentiable backward under create_graph: differentiating them raises."""

    @staticmethod
    def forward(ctx, *tensors):
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(_ONCE_DIFFERENTIABLE_MSG)


def once_differentiable(fn):
    """Decorates a Function's backward that is not itself differentiable: it runs under no_grad,
    and with create_graph its results raise if someone differentiates through them."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with _no_grad():
            outputs = fn(ctx, *args)
        if not _C.is_grad_enabled():
            return outputs
        requires_grad = any(isinstance(a, _torchlite.Tensor) and a.requires_grad for a in args)
        if not requires_grad:
            return outputs
        is_tuple = isinstance(outputs, tuple)
        outs = outputs if is_tuple else (outputs,)

        def fake_requires_grad(v):
            if isinstance(v, _torchlite.Tensor) and v.is_floating_point():
                v = v.detach()
                v.requires_grad_(True)
            return v

        wrapped = _DelayedError.apply(*[fake_requires_grad(v) for v in outs])
        return wrapped if is_tuple else wrapped[0]

    return wrapper


del annotations, Tuple  # annotations are strings; torch.autograd.function has neither name
