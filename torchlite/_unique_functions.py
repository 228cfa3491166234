"""torchlite.unique and torchlite.unique_consecutive (and their Tensor methods): PyTorch keeps them in
Python (torch/functional.py) on top of the ops _unique2 / unique_dim / unique_consecutive, returning
the output alone or a tuple with the inverse indices and/or counts that were asked for."""
from __future__ import annotations

from torchlite import _C, _ops


def _asked(output, inverse, counts, return_inverse, return_counts):
    if return_inverse and return_counts:
        return output, inverse, counts
    if return_inverse:
        return output, inverse
    if return_counts:
        return output, counts
    return output


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements of `input` (distinct slices along `dim` when given), sorted; with
    `return_inverse` also where each element (slice) of `input` went, with `return_counts` how often
    each occurs. Each NaN is distinct."""
    if dim is not None:
        output, inverse, counts = _C._internal.unique_dim(input, dim, sorted=sorted, return_inverse=return_inverse,
                                                  return_counts=return_counts)
    else:
        output, inverse, counts = _ops._unique2(input, sorted=sorted, return_inverse=return_inverse,
                                                return_counts=return_counts)
    return _asked(output, inverse, counts, return_inverse, return_counts)


def _unique_consecutive_impl(input, return_inverse=False, return_counts=False, dim=None):
    return _ops.unique_consecutive(input, return_inverse=return_inverse, return_counts=return_counts, dim=dim)


def unique_consecutive(*args, **kwargs):
    """`input` (flattened when `dim` is None) with each run of equal consecutive elements (slices
    along `dim`) kept once; with `return_inverse` / `return_counts` also the inverse indices / the
    run lengths. Signature: unique_consecutive(input, return_inverse=False, return_counts=False, dim=None)."""
    # What to return is chosen as PyTorch's torch.unique_consecutive chooses it: from the keyword, else
    # from positional argument 2 for the inverse and 1 for the counts (the reverse of the signature's
    # order, a quirk of its dispatch), while the values are computed from the arguments as given.
    want_inverse = kwargs["return_inverse"] if "return_inverse" in kwargs else len(args) > 2 and args[2]
    want_counts = kwargs["return_counts"] if "return_counts" in kwargs else len(args) > 1 and args[1]
    output, inverse, counts = _unique_consecutive_impl(*args, **kwargs)
    return _asked(output, inverse, counts, want_inverse, want_counts)


def _unique_method(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """See torchlite.unique."""
    return unique(self, sorted=sorted, return_inverse=return_inverse, return_counts=return_counts, dim=dim)


def _unique_consecutive_method(self, return_inverse=False, return_counts=False, dim=None):
    """See torchlite.unique_consecutive."""
    return unique_consecutive(self, return_inverse=return_inverse, return_counts=return_counts, dim=dim)


def install_methods(tensor_type) -> None:
    tensor_type.unique = _unique_method
    tensor_type.unique_consecutive = _unique_consecutive_method
