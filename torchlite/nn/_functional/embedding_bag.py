"""torch.nn.functional.embedding_bag (issue 12): PyTorch's Python layer over the `embedding_bag` op
(aten/native/cpu/EmbeddingBagKernels.cpp): the same signature, argument checks and modes."""
import warnings

import torchlite as _tl

__all__ = ["embedding_bag"]

_MODES = {"sum": 0, "mean": 1, "max": 2}


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """The sums, means or maxima (`mode`) of bags of rows of `weight` (num_embeddings, dim), without building
    the (bag, row, dim) tensor: a 2-D `input` (B, N) is B bags of N indices; a 1-D `input` is cut into bags
    starting at `offsets` (with `include_last_offset`, offsets ends with len(input)). `per_sample_weights`
    (mode 'sum' only) scales each index's row; `padding_idx` rows are left out of their bag (and its mean);
    `max_norm` first renormalizes the rows used, in place, as F.embedding. Empty bags give zeros.
    Sparse gradients are not supported (torchlite has no sparse tensors)."""
    if weight.dtype == _tl.long and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.",
                      stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        offsets = _tl.arange(0, input.numel(), input.size(1), dtype=input.dtype, device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    if sparse:
        raise NotImplementedError("embedding_bag: sparse=True (sparse gradients) is not supported by torchlite, "
                                  "which has no sparse tensors")
    if max_norm is not None:
        with _tl.no_grad():
            _tl.embedding_renorm_(weight, input.contiguous(), max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    ret, _, _, _ = _tl.embedding_bag(weight, input, offsets, scale_grad_by_freq, _MODES[mode], sparse,
                                     per_sample_weights, include_last_offset, padding_idx)
    return ret
