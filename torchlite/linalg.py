"""torchlite.linalg: PyTorch's ``torch.linalg`` namespace (so far norms and products).

Every name is a generated operator of native_functions.yaml (``linalg_vector_norm``,
``linalg_cross``, ...), with PyTorch's signature, keywords and ``out=``.
"""
from torchlite import _ops

vector_norm = _ops.linalg_vector_norm
cross = _ops.linalg_cross
vecdot = _ops.linalg_vecdot
multi_dot = _ops.linalg_multi_dot

__all__ = ["cross", "multi_dot", "vecdot", "vector_norm"]
