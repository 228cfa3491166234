"""torchlite.Size: the type of ``tensor.shape`` and ``tensor.size()``, a tuple of ints."""
from __future__ import annotations

import operator

from torchlite import _C


class Size(tuple):
    """A tuple of dimension sizes; slicing and concatenating give a Size again."""

    __slots__ = ()

    def __new__(cls, sizes=()):
        items = []
        for i, s in enumerate(sizes):
            if isinstance(s, int) and not isinstance(s, bool):
                items.append(s)
                continue
            try:
                if isinstance(s, float):
                    raise TypeError
                items.append(operator.index(s))
            except TypeError:
                raise TypeError(f"torchlite.Size() takes an iterable of 'int' (item {i} is "
                                f"'{type(s).__name__}')") from None
        return super().__new__(cls, items)

    def numel(self) -> int:
        """The number of elements of a tensor of this shape (1 for ``Size([])``)."""
        n = 1
        for s in self:
            n *= s
        return n

    def __repr__(self) -> str:
        return f"torchlite.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def __getitem__(self, key):
        result = tuple.__getitem__(self, key)
        return Size(result) if isinstance(key, slice) else result

    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        if not isinstance(n, int):
            return NotImplemented
        return Size(tuple(self) * n)

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))


_C._set_size_class(Size)
