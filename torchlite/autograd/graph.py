"""Backward-graph nodes. ``tensor.grad_fn`` is a Node; each node class (MulBackward0, ...)
is its own subclass of Node, made on first use."""
from torchlite._C._autograd import Node

__all__ = ["Node"]
