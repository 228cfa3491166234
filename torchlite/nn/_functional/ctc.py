"""ctc_loss: torch.nn.functional's Connectionist Temporal Classification loss over torchlite.ctc_loss."""
from __future__ import annotations

import torchlite as _tl

from .loss import _reduction_enum

__all__ = ["ctc_loss"]


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank: int = 0, reduction: str = "mean",
             zero_infinity: bool = False):
    """The CTC loss of `log_probs` (T, N, C) or (T, C) against `targets` (N, S) padded or concatenated (sum of
    target_lengths); the lengths as int sequences or integer tensors. See torchlite.ctc_loss."""
    return _tl.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _reduction_enum(reduction),
                        zero_infinity)
