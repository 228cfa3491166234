"""The legacy LU front ends PyTorch keeps in Python: ``torch.lu`` (torch/functional.py) and
``Tensor.lu`` (torch/_tensor.py), both over the ``_lu_with_info`` op (``linalg.lu_factor_ex``)."""
from __future__ import annotations

import warnings as _warnings

from torchlite import _C

_DEPRECATION = ("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be "
                "removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced "
                "with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
                "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
                "torch.linalg.lu_factor_ex(A, compute_pivots)")
_warned = False


def _lu_with_info(A, pivot, get_infos):
    """The op, with PyTorch's deprecation warning once per process (its TORCH_WARN_ONCE)."""
    global _warned
    if not _warned:
        _warned = True
        _warnings.warn(_DEPRECATION, UserWarning, stacklevel=3)
    return _C._ops._lu_with_info(A, pivot=pivot, check_errors=not get_infos)


def lu(A, pivot=True, get_infos=False, out=None):
    """The LU factorization of `A` (a matrix or a batch): ``(LU, pivots)``, and the per-matrix
    ``infos`` too when `get_infos` (see ``torchlite.linalg.lu_factor_ex``). `out` is a tuple of 2
    (3 with `get_infos`) tensors, resized and written. Deprecated by PyTorch for
    ``torch.linalg.lu_factor``."""
    result = _lu_with_info(A, pivot, get_infos)
    if out is not None:
        if len(out) - (1 if get_infos else 0) != 2:
            raise TypeError(f"expected tuple of {2 + int(get_infos)} elements but got {len(out)}")
        if not isinstance(out, (tuple, list)):
            raise TypeError(f"argument 'out' must be tuple of Tensors, not {type(out).__name__}")
        for target, value in zip(out, result):
            target.resize_as_(value).copy_(value)
        return out
    return result if get_infos else (result[0], result[1])


def _tensor_lu(self, pivot=True, get_infos=False):
    """See torchlite.lu."""
    LU, pivots, infos = _lu_with_info(self, pivot, get_infos)
    return (LU, pivots, infos) if get_infos else (LU, pivots)


def install_methods(tensor_class) -> None:
    """Tensor.lu, a Python method in PyTorch too."""
    _tensor_lu.__name__ = _tensor_lu.__qualname__ = "lu"
    tensor_class.lu = _tensor_lu
