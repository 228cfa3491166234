"""Variable: PyTorch's legacy wrapper, kept so that old scripts run. Variables and tensors merged long ago:
`Variable(t, requires_grad=...)` gives a tensor sharing t's data without its history, and every tensor is
an instance of Variable."""
import warnings as _warnings

import torchlite as _torchlite

from ._final_callbacks import _ImperativeEngine


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, _torchlite.Tensor)


class Variable(metaclass=_VariableMeta):
    _execution_engine = _ImperativeEngine()  # queue_callback: work run when a backward pass ends

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        if volatile:
            _warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          stacklevel=2)
        if data is None:
            data = _torchlite.empty(0)
        if not isinstance(data, _torchlite.Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(requires_grad)
