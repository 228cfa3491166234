"""Grad-mode switches: no_grad, enable_grad, set_grad_enabled, inference_mode.

Each works as a context manager and as a function decorator (generator functions included),
like PyTorch's. Grad mode is per thread (it lives in a C++ thread_local), so switching it in
one thread does not affect another.
"""
from __future__ import annotations

import functools as _functools
import inspect as _inspect
from typing import Any, Callable, TypeVar

from torchlite._C import _autograd as _C

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode"]


class _DecoratorContextManager:
    """Lets a context manager decorate functions: each call runs inside a fresh copy of it."""

    def __call__(self, orig_func: F) -> F:
        if _inspect.isclass(orig_func):
            raise RuntimeError("torchlite's grad-mode context managers cannot decorate classes; "
                               "decorate its methods instead")
        if _inspect.isgeneratorfunction(orig_func):
            return self._wrap_generator(orig_func)

        @_functools.wraps(orig_func)
        def decorate_context(*args, **kwargs):
            with self.clone():
                return orig_func(*args, **kwargs)

        return decorate_context  # type: ignore[return-value]

    def _wrap_generator(self, func):
        """The generator's own code runs inside the context; the caller's code between steps does not."""

        @_functools.wraps(func)
        def generator_context(*args, **kwargs):
            gen = func(*args, **kwargs)
            try:
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as exc:
                        with self.clone():
                            response = gen.throw(exc)
                    else:
                        with self.clone():
                            response = gen.send(request)
            except StopIteration as e:
                return e.value

        return generator_context

    def __enter__(self) -> None:
        raise NotImplementedError

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        raise NotImplementedError

    def clone(self):
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Also usable as a bare decorator: ``@no_grad`` as well as ``@no_grad()``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Disables gradient recording: results of ops computed inside have requires_grad=False.

    >>> x = torchlite.ones(2, requires_grad=True)
    >>> with torchlite.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _C._set_grad_enabled(self.prev)


class enable_grad(_NoParamDecoratorContextManager):
    """Enables gradient recording inside a no_grad region (or anywhere)."""

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(True)

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _C._set_grad_enabled(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """Sets grad mode to `mode`. Takes effect immediately when called (``set_grad_enabled(False)``
    as a plain statement works); as a context manager or decorator the previous mode is restored
    on exit."""

    def __init__(self, mode: bool) -> None:
        self.prev = _C.is_grad_enabled()
        self.mode = bool(mode)
        _C._set_grad_enabled(self.mode)

    def __call__(self, orig_func: F) -> F:
        # Used as a decorator: undo the immediate switch; each call sets the mode itself.
        _C._set_grad_enabled(self.prev)
        return super().__call__(orig_func)

    def __enter__(self) -> None:
        _C._set_grad_enabled(self.mode)

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _C._set_grad_enabled(self.prev)

    def clone(self) -> "set_grad_enabled":
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like no_grad, and tensors made inside are *inference tensors*: autograd refuses to save
    them for backward later ("Inference tensors cannot be saved for backward"), to let them
    require grad, or to record in-place changes of them outside inference mode.
    ``inference_mode(False)`` turns it off inside an inference region (grad mode is then left as
    it is). Thread-local; usable as a decorator, with or without parentheses.

    Differences from PyTorch: inference tensors still have a version counter and are ordinary
    tensors otherwise; an in-place change of one outside inference mode is refused only when
    autograd records it (an input requires grad), and no performance is gained over no_grad.
    """

    def __new__(cls, mode_or_fn=True):
        if callable(mode_or_fn) and not isinstance(mode_or_fn, bool):
            return cls()(mode_or_fn)
        return super().__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode) if not callable(mode) else True
        self._prev_inference = False
        self._prev_grad = True

    def __enter__(self) -> None:
        self._prev_inference = _C._is_inference_mode_enabled()
        self._prev_grad = _C.is_grad_enabled()
        _C._set_inference_mode(self.mode)
        if self.mode:
            _C._set_grad_enabled(False)

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _C._set_inference_mode(self._prev_inference)
        _C._set_grad_enabled(self._prev_grad)

    def clone(self) -> "inference_mode":
        return self.__class__(self.mode)


del annotations, Callable, TypeVar  # F (as torch) is built; annotations are strings
