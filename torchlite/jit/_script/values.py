"""The script compiler's values during compilation (SV, "sugared values"): an IR value, or a
compile-time constant, a static tuple, a module or a function, with its static type."""
from __future__ import annotations

from torchlite.jit._script import types as T

_NO = object()  # "not a compile-time constant"


class SV:
    """A value during compilation. Exactly one of: `value` (an IR Value), `const` (a Python
    constant, materialized as prim::Constant on use), `items` (a tuple of SVs), `module` (an
    nn.Module, with `value` its object), `fn` (a callable or a method bound to `self_sv`)."""
    __slots__ = ("value", "type", "const", "items", "module", "fn", "self_sv")

    def __init__(self, type=None, value=None, const=_NO, items=None, module=None, fn=None, self_sv=None):
        self.type, self.value, self.const, self.items = type, value, const, items
        self.module, self.fn, self.self_sv = module, fn, self_sv

    @property
    def is_const(self):
        return self.const is not _NO


def const_sv(v):
    """A constant's SV: typed from its value (Any for layouts, memory formats and the like)."""
    t = T.of_value(v)
    return SV(T.ANY if t is None else t, const=v)
