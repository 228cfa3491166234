"""Reverse-mode automatic differentiation: backward, grad and the grad-mode switches.

The engine is C++ (aten/autograd/Engine.cpp); these functions normalise their arguments the
way PyTorch's do and call torchlite._C._autograd.
"""
from __future__ import annotations

import threading as _threading
import weakref as _weakref
from typing import Optional, Tuple

import torchlite as _torchlite
from torchlite._C import _autograd as _C

from . import graph
from . import _final_callbacks
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .function import Function, NestedIOFunction
from .grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled

# torch.autograd's names; the state queries (is_grad_enabled, ...) are torch's top-level ones
# only, kept in ._state. Annotations are strings: the typing names go at the end of the module.
__all__ = ["Variable", "Function", "backward", "grad_mode", "NestedIOFunction", "detect_anomaly", "enable_grad", "grad",
           "gradcheck", "gradgradcheck", "inference_mode", "no_grad", "set_detect_anomaly", "set_grad_enabled"]


def _is_tensor(x) -> bool:
    return isinstance(x, _torchlite.Tensor)


def _tensor_or_tensors_to_tuple(tensors, length: int, what: str) -> tuple:
    if tensors is None:
        return (None,) * length
    if _is_tensor(tensors):
        return (tensors,)
    return tuple(tensors)


def _as_tensor_tuple(tensors, what: str) -> tuple:
    if _is_tensor(tensors):
        return (tensors,)
    if isinstance(tensors, (list, tuple)):
        return tuple(tensors)
    # any other iterable of tensors (a generator, a dict's values)
    try:
        return tuple(tensors)
    except TypeError:
        raise TypeError(f"{what} must be a Tensor or a sequence of Tensors, got {type(tensors).__name__}") from None


_graph_tasks = _threading.local()  # .valid: per running backward pass of this thread, may it run a reentrant checkpoint


class _GraphTask:
    """Marks a backward pass: reentrant checkpointing works only in one started by backward()
    without ``inputs`` (its inner backward would fill .grad, which autograd.grad must not do)."""

    def __init__(self, checkpoint_valid: bool):
        self.checkpoint_valid = checkpoint_valid

    def __enter__(self):
        if not hasattr(_graph_tasks, "valid"):
            _graph_tasks.valid = []
        _graph_tasks.valid.append(self.checkpoint_valid)

    def __exit__(self, *exc):
        _graph_tasks.valid.pop()


def _is_checkpoint_valid() -> bool:
    """Whether the running backward pass allows a reentrant checkpoint (torch.autograd's name)."""
    valid = getattr(_graph_tasks, "valid", None)
    return not valid or valid[-1]


def backward(tensors, grad_tensors=None, retain_graph: Optional[bool] = None, create_graph: bool = False,
             grad_variables=None, inputs=None) -> None:
    """Accumulates into ``.grad`` of the graph leaves the gradients of ``tensors``.

    ``grad_tensors`` gives the gradient of each of ``tensors`` (None for a one-element tensor
    means 1). ``retain_graph`` (default: ``create_graph``) keeps the saved tensors so backward
    can run again; ``create_graph`` records the backward pass so the gradients can be
    differentiated again. With ``inputs``, only those tensors' ``.grad`` is updated (non-leaf
    inputs get a ``.grad`` too).
    """
    if grad_variables is not None:
        if grad_tensors is not None:
            raise RuntimeError("'grad_tensors' and 'grad_variables' (deprecated) arguments both passed to "
                               "backward(). Please only use 'grad_tensors'.")
        grad_tensors = grad_variables
    if inputs is not None:
        inputs = _as_tensor_tuple(inputs, "inputs")
        if len(inputs) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    tensors = _as_tensor_tuple(tensors, "tensors")
    grad_tensors = _tensor_or_tensors_to_tuple(grad_tensors, len(tensors), "grad_tensors")
    if len(grad_tensors) != len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grad_tensors)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    with _GraphTask(inputs is None), _final_callbacks._BackwardPass():
        _C._backward(tensors, grad_tensors, bool(retain_graph), bool(create_graph), inputs)


def grad(outputs, inputs, grad_outputs=None, retain_graph: Optional[bool] = None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused: Optional[bool] = None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> Tuple[Optional["_torchlite.Tensor"], ...]:
    """Returns the gradients of ``outputs`` with respect to ``inputs`` (a tuple, one per input),
    without touching any ``.grad``.

    An input the outputs do not depend on raises unless ``allow_unused`` (then its gradient is
    None, or zeros with ``materialize_grads``).
    """
    if is_grads_batched:
        raise NotImplementedError("torchlite.autograd.grad: is_grads_batched=True is not supported")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _as_tensor_tuple(outputs, "outputs")
    inputs = _as_tensor_tuple(inputs, "inputs")
    grad_outputs = _tensor_or_tensors_to_tuple(grad_outputs, len(outputs), "grad_outputs")
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"grad_outputs should be a sequence of length {len(outputs)}, "
                           f"got {len(grad_outputs)}")
    if retain_graph is None:
        retain_graph = create_graph
    with _GraphTask(False), _final_callbacks._BackwardPass():
        result = _C._grad(outputs, inputs, grad_outputs, bool(retain_graph), bool(create_graph), bool(allow_unused))
    if materialize_grads:
        result = tuple(_torchlite.zeros_like(x) if g is None else g for g, x in zip(result, inputs))
    return result


class _RemovableHandle:
    """What register_hook returns: ``handle.remove()`` takes the hook off again (also usable as a
    context manager that removes it on exit)."""

    def __init__(self, remove):
        self._remove = remove

    def remove(self) -> None:
        if self._remove is not None:
            self._remove()
            self._remove = None

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def _leaf_hook_handle(tensor, hook_id: int) -> _RemovableHandle:
    ref = _weakref.ref(tensor)

    def remove():
        t = ref()
        if t is not None:
            _C._remove_tensor_hook(t, hook_id)

    return _RemovableHandle(remove)


def _tensor_register_hook(self, hook):
    """Registers ``hook(grad) -> Tensor or None`` on this tensor's gradient; a returned tensor
    replaces the gradient. For a non-leaf the hook stays with the current ``grad_fn`` (after an
    in-place change it sees the gradient of the value it was registered on)."""
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    r = _C._register_tensor_hook(self, hook)
    if isinstance(r, int):
        return _leaf_hook_handle(self, r)
    return _RemovableHandle(r.remove)


def _tensor_register_post_accumulate_grad_hook(self, hook):
    """Registers ``hook(tensor) -> None`` to run after backward accumulated into this leaf's ``.grad``."""
    if not self.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    return _leaf_hook_handle(self, _C._register_post_accumulate_grad_hook(self, hook))


def _tensor_retain_grad(self) -> None:
    """Makes backward fill ``.grad`` of this non-leaf tensor (a no-op on leaves)."""
    _C._retain_grad(self)


def _tensor_detach_(self):
    """Detaches this tensor from the graph in place (it becomes a leaf that does not require
    grad) and returns it. Views of other tensors cannot be detached in place."""
    return _C._detach_(self)


def _tensor_is_inference(self) -> bool:
    """Whether this tensor was made in inference mode (see torchlite.inference_mode)."""
    return _C._is_inference(self)


def _install_tensor_methods(cls) -> None:
    """Called by torchlite/__init__.py: the autograd methods of Tensor."""
    cls.detach_ = _tensor_detach_
    cls.is_inference = _tensor_is_inference
    cls.register_hook = _tensor_register_hook
    cls.register_post_accumulate_grad_hook = _tensor_register_post_accumulate_grad_hook
    cls.retain_grad = _tensor_retain_grad
    cls.retains_grad = property(lambda self: _C._retains_grad(self),
                                doc="Whether retain_grad() was called on this non-leaf tensor.")


# Last: gradcheck imports torchlite (already in sys.modules by now). Binding the functions here
# also makes `torchlite.autograd.gradcheck` the function rather than the submodule, as in PyTorch.
from .gradcheck import gradcheck, gradgradcheck  # noqa: E402
from . import grad_mode  # noqa: E402,F401  (torch.autograd.grad_mode: imported above, named here as torch does)
from . import functional  # noqa: E402,F401  (torch.autograd.functional: vjp, jvp, jacobian, ...)
from . import variable  # noqa: E402,F401
from .variable import Variable  # noqa: E402

del annotations, Optional, Tuple
