"""Named tuples returned by ops with several named outputs, e.g. `torchlite.return_types.max`
(fields `values`, `indices`). The types are generated from the returns in native_functions.yaml."""
from torchlite._C import _return_types as _impl

globals().update({name: getattr(_impl, name) for name in dir(_impl) if not name.startswith("__")})
__all__ = [name for name in dir(_impl) if not name.startswith("_")]
del _impl
