"""torchlite.multiprocessing: the standard multiprocessing module, with tensors that cross processes through
shared memory (PyTorch's torch.multiprocessing; docs/multiprocessing.md).

Everything `multiprocessing` exports is re-exported, so `import torchlite.multiprocessing as mp` replaces
`import multiprocessing as mp`. Importing the package registers reducers with multiprocessing's ForkingPickler
(reductions.py): a tensor or storage put on a Queue or Pipe, or passed to a spawned Process, is moved to
shared memory and the receiver maps the same memory, so writes on one side are seen on the other. spawn()
and start_processes() (spawn.py) run a function in N processes and report their failures in the parent.
"""
import multiprocessing
import sys
from multiprocessing import *  # noqa: F401,F403

from .reductions import init_reductions
from .spawn import (ENV_VAR_PARALLEL_START, ProcessContext, ProcessExitedException, ProcessRaisedException,
                    SpawnContext, spawn, start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"]
__all__ += multiprocessing.__all__

# Both of PyTorch's Linux strategies are accepted. torchlite sends a file descriptor under either:
# 'file_system' (named files kept alive by a manager process) is not implemented (docs/multiprocessing.md).
_sharing_strategy = "file_descriptor"
_all_sharing_strategies = {"file_descriptor", "file_system"}


def set_sharing_strategy(new_strategy):
    """Sets the strategy for sharing CPU tensors: one of get_all_sharing_strategies()."""
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of {_all_sharing_strategies}")
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """The current strategy for sharing CPU tensors."""
    return _sharing_strategy


def get_all_sharing_strategies():
    """The set of sharing strategies this system supports."""
    return _all_sharing_strategies


init_reductions()
