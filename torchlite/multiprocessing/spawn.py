"""spawn() and start_processes(): run fn(i, *args) in nprocs processes and join them, turning a child's
exception into ProcessRaisedException (with the child's traceback) and a non-zero exit or a signal into
ProcessExitedException in the parent (PyTorch's torch.multiprocessing.spawn).

Each child reports an exception by writing its formatted traceback to its own file in a temporary directory
the parent made; the file's absence after a failure means the child died without raising (exit code, signal).
"""
import logging
import multiprocessing
import multiprocessing.connection
import os
import shutil as _shutil
import signal
import sys
import tempfile
import time
import traceback as _traceback
import warnings

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException", "ProcessRaisedException", "spawn",
           "SpawnContext", "start_processes"]

# PyTorch's switch for starting forkserver children in parallel; torchlite starts them one after another.
ENV_VAR_PARALLEL_START = "TORCH_MP_PARALLEL_START"

log = logging.getLogger(__name__)


class ProcessException(Exception):
    """A child of spawn() failed: `error_index` is its index, `error_pid` its process id."""

    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg: str, error_index: int, error_pid: int):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.error_pid = error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A child of spawn() raised an exception; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A child of spawn() exited with a non-zero code or was killed by a signal (`signal_name`)."""

    __slots__ = ["exit_code"]

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)


def _interrupt_when_parent_dies():
    """SIGINT to this process when its parent dies (prctl PR_SET_PDEATHSIG), as PyTorch's children get."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGINT)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # not Linux: the children outlive a parent that dies


def _run_child(fn, i, args, error_file):
    _interrupt_when_parent_dies()
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent is tearing the group down
    except Exception:
        with open(error_file, "w", encoding="utf-8") as f:
            f.write(_traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    """The processes start_processes() started, with join() to wait for them and report the first failure."""

    def __init__(self, processes, error_files):
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        return [int(p.pid) for p in self.processes]

    def _join_all(self, timeout):
        deadline = time.monotonic() + timeout
        for p in self.processes:
            p.join(max(0.0, deadline - time.monotonic()))

    def join(self, timeout=None, grace_period=None):
        """Waits (up to `timeout` seconds) for a process to end. Returns True once all have ended successfully,
        False while some still run. When one failed, the others are terminated (SIGTERM after `grace_period`
        seconds, SIGKILL if they outlive another wait) and its failure is raised."""
        if not self.sentinels:
            return True
        failed = None
        for sentinel in multiprocessing.connection.wait(list(self.sentinels), timeout=timeout):
            index = self.sentinels.pop(sentinel)
            self.processes[index].join()
            if self.processes[index].exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels

        if grace_period is not None:
            self._join_all(grace_period)
        for p in self.processes:
            if p.is_alive():
                log.warning("Terminating process %s via signal SIGTERM", p.pid)
                p.terminate()
        self._join_all(30 if grace_period is None else grace_period)
        for p in self.processes:
            if p.is_alive():
                log.warning("Unable to shutdown process %s via SIGTERM , forcefully exiting via SIGKILL", p.pid)
                p.kill()
            p.join()
        self._raise_failure(failed)

    def _raise_failure(self, index):
        process = self.processes[index]
        try:
            with open(self.error_files[index], encoding="utf-8") as f:
                trace = f.read()
        except OSError:
            code = process.exitcode
            if code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"<Unknown signal {-code}>"
                raise ProcessExitedException(f"process {index:d} terminated with signal {name}", error_index=index,
                                             error_pid=process.pid, exit_code=code, signal_name=name) from None
            raise ProcessExitedException(f"process {index:d} terminated with exit code {code:d}", error_index=index,
                                         error_pid=process.pid, exit_code=code) from None
        msg = f"\n\n-- Process {index:d} terminated with the following error:\n{trace}"
        raise ProcessRaisedException(msg, index, process.pid)


class SpawnContext(ProcessContext):
    """The name ProcessContext had before PyTorch 1.4 (deprecated)."""

    def __init__(self, processes, error_files):
        warnings.warn("SpawnContext is renamed to ProcessContext since 1.4 release.", stacklevel=2)
        super().__init__(processes, error_files)


def _error_dir():
    """A private directory for the children's error files, removed when the interpreter exits."""
    global _ERROR_DIR
    if _ERROR_DIR is None:
        import atexit
        _ERROR_DIR = tempfile.mkdtemp(prefix="torchlite-errorfiles-")
        atexit.register(_shutil.rmtree, _ERROR_DIR, True)
    return _ERROR_DIR


_ERROR_DIR = None
_error_counter = 0


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Starts nprocs processes of `start_method` ('spawn', 'fork' or 'forkserver') running fn(i, *args) for
    i in range(nprocs). With join, waits for all of them (raising the first failure) and returns None;
    otherwise returns their ProcessContext."""
    global _error_counter
    mp = multiprocessing.get_context(start_method)
    processes, error_files = [], []
    for i in range(nprocs):
        _error_counter += 1
        error_file = os.path.join(_error_dir(), f"{os.getpid()}-{_error_counter}.txt")
        process = mp.Process(target=_run_child, args=(fn, i, args, error_file), daemon=daemon)
        process.start()
        processes.append(process)
        error_files.append(error_file)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Spawns nprocs processes running fn(i, *args) (see start_processes). Always uses the 'spawn' start
    method: another start_method warns (FutureWarning) and is ignored, as in PyTorch."""
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\n"
                      "To use a different start_method use:\n\t\t torch.multiprocessing.start_processes(...)",
                      FutureWarning, stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
