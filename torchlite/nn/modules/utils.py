"""Argument normalizers of the layer constructors: an int or a sequence becomes an n-tuple (PyTorch's
_single/_pair/_triple), and padding tuples reversed per dim for F.pad."""
from __future__ import annotations

import collections.abc
from itertools import repeat

# Private helpers only: torch's __all__ holds consume_prefix_in_state_dict_if_present, which torchlite lacks.
__all__ = []


def _ntuple(n: int, name: str = "parse"):
    def parse(x):
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(repeat(x, n))
    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n: int) -> tuple:
    """(a, b) -> (b, b, a, a) for n = 2: F.pad's order (last dim first, each side)."""
    return tuple(x for x in reversed(t) for _ in range(n))


del annotations  # torch's module has no such name
