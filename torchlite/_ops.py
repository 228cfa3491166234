"""The generated operators (torchlite._C._ops), re-exported; `_ops.pyi` (generated) types them."""
from torchlite._C import _ops as _impl

globals().update({name: getattr(_impl, name) for name in dir(_impl) if not name.startswith("__")})
__all__ = [name for name in dir(_impl) if not name.startswith("_")]
