"""pdist: torch.nn.functional.pdist is torch.pdist itself (the pairwise row distances of a 2-D tensor)."""
from __future__ import annotations

import torchlite as _tl

__all__ = ["pdist"]

pdist = _tl.pdist
