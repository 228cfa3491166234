"""Reverse-mode automatic differentiation: backward, grad and the grad-mode switches.

The engine is C++ (aten/autograd/Engine.cpp); these functions normalise their arguments the
way PyTorch's do and call torchlite._C._autograd.
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple, Union

import torchlite
from torchlite._C import _autograd as _C

from . import graph
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "graph",
           "gradcheck", "gradgradcheck"]


def _is_tensor(x) -> bool:
    return isinstance(x, torchlite.Tensor)


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
    _C._backward(tensors, grad_tensors, bool(retain_graph), bool(create_graph), inputs)


def grad(outputs, inputs, grad_outputs=None, retain_graph: Optional[bool] = None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused: Optional[bool] = None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> Tuple[Optional["torchlite.Tensor"], ...]:
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
    result = _C._grad(outputs, inputs, grad_outputs, bool(retain_graph), bool(create_graph), bool(allow_unused))
    if materialize_grads:
        result = tuple(torchlite.zeros_like(x) if g is None else g for g, x in zip(result, inputs))
    return result


# Last: gradcheck imports torchlite (already in sys.modules by now). Binding the functions here
# also makes `torchlite.autograd.gradcheck` the function rather than the submodule, as in PyTorch.
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: E402
