"""torchlite.norm: PyTorch's Python function (torch/functional.py) over the vector norm.

A number `p` (or None: 2) and 'fro' over at most two dims are vector norms (linalg_vector_norm); 'nuc',
'fro' over three or more dims and any other string go to the matrix norm (linalg_matrix_norm), as in PyTorch.
"""
from torchlite import _C

_ops = _C._ops

# PyTorch's legacy dtype names, used in its messages.
_LEGACY = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
           "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
           "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64", "complex32": "ComplexHalf",
           "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _legacy(dtype):
    return _LEGACY[str(dtype).split(".")[-1]]


def _matrix_norm_checks(input, ord, dim, dtype):
    """linalg.matrix_norm's argument checks, in PyTorch's order (it never gets to compute here)."""
    if ord not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if input.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError("linalg.matrix_norm: Expected a floating point or complex tensor as input. "
                           f"Got {_legacy(input.dtype)}")
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}")
    ndim = input.dim()
    wrapped = []
    for d in dim:
        if not -ndim <= d < ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {d})")
        wrapped.append(d % ndim)
    if wrapped[0] == wrapped[1]:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({wrapped[0]}, {wrapped[1]})")
    if dtype is None:
        return
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"linalg.matrix_norm: dtype should be floating point or complex, but got {_legacy(dtype)}")
    if input.dtype.is_complex != dtype.is_complex:
        kind = "complex" if input.dtype.is_complex else "real"
        raise RuntimeError(f"linalg.matrix_norm: dtype should be {kind} for {kind} inputs, but got {_legacy(dtype)}")
    if _C.promote_types(input.dtype, dtype) != dtype:
        raise RuntimeError(f"linalg.matrix_norm: the dtype of the input ({_legacy(input.dtype)}) should be "
                           f"convertible without narrowing to the specified dtype ({_legacy(dtype)})")


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """The vector or matrix norm of `input` (PyTorch's deprecated torch.norm): `p` a number (vector
    p-norm over `dim`, all dims when None), 'fro' (the 2-norm over at most two dims) or 'nuc' (the
    nuclear norm, through linalg_matrix_norm); `keepdim`, `dtype`
    (computed in it) and `out` as for linalg_vector_norm."""
    if not isinstance(input, _C.TensorBase):
        raise TypeError(f"norm(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    dims = [dim] if isinstance(dim, int) else dim  # anything else is checked by the binding
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            p = 2
        else:
            if dims is None:
                dims = list(range(input.dim()))
            elif not all(isinstance(d, int) for d in dims):
                raise TypeError(f"linalg_matrix_norm(): argument 'dim' must be tuple of ints, not {type(dim).__name__}")
            _matrix_norm_checks(input, p, list(dims), dtype)
            if out is None:
                return _C._linalg.linalg_matrix_norm(input, p, list(dims), keepdim, dtype=dtype)
            return _C._linalg.linalg_matrix_norm(input, p, list(dims), keepdim, dtype=dtype, out=out)
    elif p is None:
        p = 2
    if out is None:
        return _C._linalg.linalg_vector_norm(input, p, dims, keepdim, dtype=dtype)
    return _C._linalg.linalg_vector_norm(input, p, dims, keepdim, dtype=dtype, out=out)
