"""Anomaly detection: ``detect_anomaly()`` / ``set_detect_anomaly(True)``.

While it is on, every backward node records the Python stack of the forward call that made it
(``grad_fn.metadata["traceback_"]``), and the engine checks each gradient a node's backward
produces: a NaN raises ``RuntimeError("Function 'MulBackward0' returned nan values in its 0th
output.")``. When a node's backward fails, a warning shows the forward stack that made the node.
The switch is process-wide, as in PyTorch. When it is off, recording a node costs one load of a
flag.
"""
from __future__ import annotations

import warnings

from torchlite._C import _autograd as _C

from .grad_mode import _DecoratorContextManager

__all__ = ["detect_anomaly", "set_detect_anomaly"]


class detect_anomaly(_DecoratorContextManager):
    """Context manager (and decorator) that turns anomaly detection on for its scope.

    >>> with torchlite.autograd.detect_anomaly():
    ...     out = model(x)
    ...     out.backward()   # a NaN gradient raises, naming the node; the forward stack is shown
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = _C._is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = _C._is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only "
                      "be enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        _C._set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args) -> None:
        _C._set_anomaly_enabled(self.prev, self.prev_check_nan)

    def clone(self) -> "detect_anomaly":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.__class__(self.check_nan)


class set_detect_anomaly(_DecoratorContextManager):
    """Turns anomaly detection on or off: immediately when called, and back to the previous
    setting at the end of a ``with`` block (or of each call of a decorated function)."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = _C._is_anomaly_enabled()
        self.prev_check_nan = _C._is_anomaly_check_nan_enabled()
        self.mode = bool(mode)
        self.check_nan = bool(check_nan)
        _C._set_anomaly_enabled(self.mode, self.check_nan)

    def __call__(self, orig_func):
        _C._set_anomaly_enabled(self.prev, self.prev_check_nan)
        return super().__call__(orig_func)

    def __enter__(self) -> None:
        _C._set_anomaly_enabled(self.mode, self.check_nan)

    def __exit__(self, *args) -> None:
        _C._set_anomaly_enabled(self.prev, self.prev_check_nan)

    def clone(self) -> "set_detect_anomaly":
        return self.__class__(self.mode, self.check_nan)


del annotations  # torch.autograd.anomaly_mode has no such name
