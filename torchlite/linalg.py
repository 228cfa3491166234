"""torchlite.linalg: PyTorch's ``torch.linalg`` namespace (so far the vector norm).

Every name is a generated operator of native_functions.yaml (``linalg_vector_norm``), with PyTorch's
signature, keywords and ``out=``.
"""
from torchlite import _ops

vector_norm = _ops.linalg_vector_norm

__all__ = ["vector_norm"]
