"""The product functions PyTorch keeps in Python (torch/functional.py): einsum's front end (operands
as arguments or one list, the sublist format), tensordot's `dims` forms, chain_matmul's variadic
call and cdist's `compute_mode` names, over their YAML-declared ops."""
from __future__ import annotations

from torchlite import _C

_ops = _C._ops

__all__ = ["cdist", "chain_matmul", "einsum", "tensordot"]


def _sublist_term(sublist) -> str:
    """[0, 1, Ellipsis] -> "AB...": 0-25 are A-Z, 26-51 a-z, as PyTorch."""
    term = []
    for s in sublist:
        if s is Ellipsis:
            term.append("...")
        elif isinstance(s, int) and 0 <= s < 52:
            term.append(chr(ord("A") + s) if s < 26 else chr(ord("a") + s - 26))
        else:
            raise ValueError(f"einsum(): expected subscript to be within the range [0, 52), but got {s}")
    return "".join(term)


def einsum(*args, path=None):
    """Einstein summation: `einsum("ij,jk->ik", a, b)`, `einsum("ij,jk", [a, b])` or the sublist
    format `einsum(a, [0, 1], b, [1, 2], [0, 2])`. Operands are contracted pairwise by matrix
    products in the cheapest order (or `path`, opt_einsum's list of position pairs)."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], str):
        equation, operands = args[0], args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = operands[0]
    else:
        # Sublist format: operand, sublist, operand, sublist, ..., [output sublist].
        operands = args[0::2][: len(args) // 2]
        terms = [_sublist_term(s) for s in args[1::2]]
        equation = ",".join(terms)
        if len(args) % 2 == 1:
            equation += "->" + _sublist_term(args[-1])
    flat = None if path is None else [int(i) for pair in path for i in (pair if isinstance(pair, (list, tuple)) else (pair,))]
    return _ops.einsum(equation, list(operands), path=flat)


def tensordot(a, b, dims=2, *rest, out=None):
    """The contraction of `a` and `b` over `dims`: an int n (the last n dims of `a` with the first n
    of `b`), a pair of dim lists, or a 2-row tensor of them. `tensordot(a, b, dims_a, dims_b)` is the
    op's own form; a fourth positional tensor is `out`, as in PyTorch."""
    if hasattr(dims, "tolist"):
        dims = dims.tolist()
    if len(rest) > 1:
        raise TypeError(f"tensordot() takes from 2 to 4 positional arguments but {len(rest) + 3} were given")
    if rest and isinstance(rest[0], (list, tuple)):
        dims = (dims, rest[0])
    elif rest:
        out = rest[0]
    if isinstance(dims, (list, tuple)):
        if len(dims) != 2:
            raise RuntimeError("tensordot expects dims to be a pair of lists of dims")
        dims_a, dims_b = dims
        dims_a = [dims_a] if isinstance(dims_a, int) else list(dims_a)
        dims_b = [dims_b] if isinstance(dims_b, int) else list(dims_b)
    elif isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    else:
        raise RuntimeError(f"tensordot expects dims to be int or tuple of lists, but got {type(dims).__name__}")
    if out is None:
        return _ops.tensordot(a, b, dims_a, dims_b)
    return _ops.tensordot(a, b, dims_a, dims_b, out=out)


def chain_matmul(*matrices, out=None):
    """The product of 2-D `matrices` in the cheapest order (PyTorch deprecates it for linalg.multi_dot).
    Separate arguments only, as PyTorch: one list or tuple is a TypeError (linalg.multi_dot takes one)."""
    from torchlite.functional import _tensor_args
    matrices = _tensor_args(matrices)
    if out is None:
        return _ops.chain_matmul(list(matrices))
    return _ops.chain_matmul(list(matrices), out=out)


_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance between each row of `x1` and each row of `x2` (batch dims broadcast).
    `compute_mode` picks, for p=2, the matrix-product formula: when either side has more than 25
    rows (the default), always, or never."""
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return _ops.cdist(x1, x2, p, _CDIST_MODES[compute_mode])
