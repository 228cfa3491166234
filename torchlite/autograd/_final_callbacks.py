"""Final callbacks of a backward pass: `Variable._execution_engine.queue_callback(cb)`, PyTorch's hook for work
that must run once the whole graph is done (DistributedDataParallel waits for its gradient all-reduces there).

The C++ engine runs a pass synchronously on the calling thread, so the callbacks queued during it are kept on a
per-thread stack of passes (a hook may start a nested backward) and run, in queue order, when the pass returns
successfully, before backward() or grad() returns; a callback may queue further callbacks."""
import threading

_local = threading.local()


def _stack() -> list:
    if not hasattr(_local, "passes"):
        _local.passes = []
    return _local.passes


class _ImperativeEngine:
    """The part of PyTorch's `torch._C._ImperativeEngine` scripts reach from Python."""

    def queue_callback(self, callback) -> None:
        passes = _stack()
        if not passes:
            raise RuntimeError("Final callbacks can only be installed during backward pass.")
        passes[-1].append(callback)


class _BackwardPass:
    """Brackets one engine run: collects the callbacks queued during it and runs them after it."""

    def __enter__(self):
        _stack().append([])
        return self

    def __exit__(self, exc_type, exc, tb):
        callbacks = _stack()[-1]
        try:
            if exc_type is None:
                i = 0
                while i < len(callbacks):  # a callback may queue more
                    callbacks[i]()
                    i += 1
        finally:
            _stack().pop()
        return False
