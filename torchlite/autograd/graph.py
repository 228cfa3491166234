"""Backward-graph nodes. ``tensor.grad_fn`` is a Node; each node class (MulBackward0, ...)
is its own subclass of Node, made on first use.

``_saved_bytes(tensor_or_node)`` reports the memory a graph keeps for backward (torchlite only: private,
as torch.autograd.graph has no such name).

``saved_tensors_hooks(pack_hook, unpack_hook)`` changes how the tensors saved for backward are kept
(the C++ SavedVariable hands them to the innermost pair of hooks of its thread; activation
checkpointing uses it); ``save_on_cpu`` and ``disable_saved_tensors_hooks`` build on it.
"""
import contextlib as _contextlib
import threading as _threading

from torchlite._C import _autograd as _C
from torchlite._C._autograd import Node, _graph_saved_bytes

__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"]


def _saved_bytes(tensor_or_node) -> int:
    """Bytes of tensor data kept for backward by every node of the graph reachable from
    ``tensor_or_node`` (a tensor's ``grad_fn``, or a node): the sum of ``node.saved_bytes()``
    over the graph, each node counted once (a tensor saved by two nodes counts twice). 0 for a
    tensor without history, and after backward freed the saved tensors (without retain_graph).
    The graph is walked once, iteratively."""
    return _graph_saved_bytes(tensor_or_node)[0]


def _graph_size(tensor_or_node) -> int:
    """The number of nodes reachable from ``tensor_or_node`` (AccumulateGrad nodes included)."""
    return _graph_saved_bytes(tensor_or_node)[1]


class saved_tensors_hooks:
    """Context manager: while active, every tensor an operation saves for backward (including
    ``ctx.save_for_backward``) is given to ``pack_hook(tensor) -> Any``, and the graph keeps what it
    returns; backward gets the tensor back from ``unpack_hook(packed) -> Tensor``. Nested managers:
    the innermost pair applies. The pack hook must not keep the tensor itself alive through the
    graph (use ``t.detach()``), or the graph becomes a reference cycle."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        message = getattr(_disabled, "message", None)
        if message is not None:
            raise RuntimeError(message)
        _C._push_saved_tensors_default_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args):
        _C._pop_saved_tensors_default_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU and moved back to their device for backward (torchlite
    has only the CPU: they are kept as they are). ``pin_memory`` is accepted and has no effect."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            # detached: the graph must not hold the tensor with its history (a cycle through C++)
            return tensor.device, tensor.detach().cpu()

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


_disabled = _threading.local()  # .message: the error saved_tensors_hooks raises while disabled


@_contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Context manager under which entering ``saved_tensors_hooks`` raises RuntimeError(error_message)
    (for features that cannot work with them)."""
    previous = getattr(_disabled, "message", None)
    _disabled.message = error_message
    try:
        yield
    finally:
        _disabled.message = previous
