"""torch.nn.functional's padding, resampling and shape functions (issue 11, part shape11).

Each is PyTorch's Python layer over the YAML operators (bound in ``torchlite._C._nn`` or at the top level,
where PyTorch binds them): the same names, signatures and defaults.
"""
from __future__ import annotations

from typing import List, Optional

from torchlite._C import _nn

__all__ = ["pad"]


def pad(input, pad: List[int], mode: str = "constant", value: Optional[float] = None):
    """`input` padded along its last ``len(pad) // 2`` dims: `pad` lists (before, after) pairs from the
    last dim backwards. mode 'constant' (with `value`, default 0; any number of dims; negative pads crop),
    'reflect', 'replicate' or 'circular' (the last 1 to 3 dims of a batched or unbatched input)."""
    return _nn.pad(input, pad, mode, value)
