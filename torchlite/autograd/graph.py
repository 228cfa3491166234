"""Backward-graph nodes. ``tensor.grad_fn`` is a Node; each node class (MulBackward0, ...)
is its own subclass of Node, made on first use.

``_saved_bytes(tensor_or_node)`` reports the memory a graph keeps for backward (torchlite only: private,
as torch.autograd.graph has no such name).
"""
from torchlite._C._autograd import Node, _graph_saved_bytes

__all__ = ["Node"]


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
