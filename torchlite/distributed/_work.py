"""Work: an operation MPI is running (nonblocking requests), waited on against the process group's
timeout. Every collective runs this way, blocking ones too, so that a rank that raised, hangs or calls
another collective makes the others fail with DistBackendError instead of waiting forever."""
import datetime
import os
import time

from torchlite.distributed._errors import DistBackendError


_yield = os.sched_yield
_sleep = time.sleep
_YIELD_AFTER = 2  # rounds of eight polls before the CPU is offered between rounds
# the argument check's wait: mostly for the other ranks to arrive, which a yield would answer by losing the
# CPU to another program just as they do (measured: benchmarks/bench_all_reduce_paths.md)
AGREE_YIELD_AFTER = 16
# rounds (0.1-0.2 ms of waiting) after which the wait sleeps between rounds instead of yielding: a rank still
# waiting then is waiting for one that lost its CPU to other programs; sleeping leaves the run queue to them
# (and to that rank), and the wake-up gets this one the CPU back promptly, where a yield sends it behind every
# other runnable program (measured: 1 MB all_reduce under load 13 on 2 cores 1.5-3.1 ms against 4.8-6.6 ms
# yielding; 100 MB no slower)
_SLEEP_AFTER = 64
_SLEEP_S = 1e-6  # asked for; timer slack and the load make it 60-90 us here


def _seconds(timeout):
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    return float(timeout)


def wait_requests(requests, group, opname, timeout=None, statuses=None):
    """Polls MPI requests until all complete, or raises DistBackendError past the timeout (the group's
    unless given). MPI progresses inside Test, as it would inside a blocking Wait. Requests are tested one by one
    (Testall refuses MPICH's persistent collectives)."""
    for i, req in enumerate(requests):
        if req is None:
            continue
        if statuses:
            status = statuses[i]
            test = lambda: req.Test(status)  # noqa: E731
        else:
            test = req.Test
        wait_test(test, group, opname, timeout, requests)


def wait_test(test, group, opname, timeout=None, requests=None, yield_after=_YIELD_AFTER):
    """Polls `test` (a request's Test) until it returns True, against the timeout (the group's unless
    given); past it, `requests` (default: none named) are abandoned to MPI and DistBackendError raised.
    `yield_after`: rounds of eight polls before yielding starts.
    The blocking collectives' hot path: a request done within the first eight polls costs no clock
    reading.

    Eight polls per clock reading, with no other Python in between: how often MPI gets polled sets
    how fast shared-memory transfers move. After the first two dozen polls the CPU is offered to other
    processes between rounds: with more ranks (or other programs) than cores, the rank being waited for
    may be the one that needs it; after _SLEEP_AFTER rounds the wait sleeps between rounds instead.
    Measured on the loaded 2-core machine (benchmarks/bench_distributed.md): never yielding, or yielding
    only every 16 or 125 rounds, was slower; yielding from the first round or after eight no better;
    MPI's own blocking Wait (spinning in C) no faster at the median and with a longer tail."""
    MPI = group._mpi
    try:
        if test() or test() or test() or test() or test() or test() or test() or test():
            return
        limit = _seconds(group.timeout if timeout is None else timeout)
        deadline = time.monotonic() + limit
        spins = 1
        while not (test() or test() or test() or test() or test() or test() or test() or test()):
            spins += 1
            if spins > _SLEEP_AFTER:
                _sleep(_SLEEP_S)
            elif spins > yield_after:
                _yield()
            if time.monotonic() > deadline:
                group._abandon(list(requests or ()), opname)
                raise DistBackendError(
                    f"{opname}: timed out after {limit:g} s on rank {group._global_rank} (process group of "
                    f"{group.size()} ranks): another rank raised, died or is not calling {opname}")
    except MPI.Exception as e:
        raise DistBackendError(f"{opname}: MPI failed on rank {group._global_rank}: {e.Get_error_string()}") \
            from None


def test_requests(requests, statuses=None):
    """Whether every request has completed (completing those that have), without blocking. Completed
    ones become None: not tested again (a persistent request may have been restarted by then)."""
    done = True
    for i, req in enumerate(requests):
        if req is None:
            continue
        if req.Test(statuses[i] if statuses else None):
            requests[i] = None
        else:
            done = False
    return done


class Work:
    """What an `async_op=True` collective and isend/irecv return: wait() blocks until done (raising
    past the process group's timeout), is_completed() tests without blocking, result() holds the
    output tensors."""

    def __init__(self, requests, group, opname, finish=None, result=(), statuses=None, keep=()):
        self._requests = list(requests)
        # buffers MPI reads or writes that nothing else holds (a root's contiguous copy of its input):
        # alive until the requests complete, or MPI would touch freed memory
        self._keep = keep
        self._statuses = statuses
        self._group = group
        self._opname = opname
        self._finish = finish
        self._result = list(result)
        self._done = False
        self._exception = None
        self._source = None  # a recv from any source: () -> the sender's rank

    def _complete(self):
        if not self._done:
            self._done = True
            self._requests = []
            self._keep = ()
            if self._finish is not None:
                self._finish()
                self._finish = None

    def wait(self, timeout=None):
        """Blocks until the operation has completed; True. `timeout` (a timedelta) overrides the
        process group's."""
        if self._exception is not None:
            raise self._exception
        if not self._done:
            if timeout is not None and _seconds(timeout) <= 0:
                timeout = None  # PyTorch's default timedelta(0): the group's timeout
            try:
                requests = self._requests
                if len(requests) == 1 and self._statuses is None and requests[0] is not None:
                    wait_test(requests[0].Test, self._group, self._opname, timeout, requests)
                else:
                    wait_requests(requests, self._group, self._opname, timeout, self._statuses)
            except Exception as e:
                self._exception = e
                raise
            self._complete()
        return True

    def is_completed(self):
        if not self._done and self._exception is None:
            if test_requests(self._requests, self._statuses):
                self._complete()
        return self._done

    def is_success(self):
        return self.is_completed() and self._exception is None

    def exception(self):
        return self._exception

    def result(self):
        return list(self._result)

    def source_rank(self):
        """The rank a recv with no given source received from (PyTorch's Work.source_rank)."""
        if self._source is None:
            raise RuntimeError(f"{self._opname}: source_rank() is only defined for a recv from any source")
        return self._source()

    def synchronize(self):
        self.wait()

    def get_future(self):
        """A future of the output tensors (torch.futures.Future's wait / value / done / then), completed
        by waiting on this Work."""
        return _Future(lambda: (self.wait(), self.result())[1], self.is_completed)

    def __repr__(self):
        state = "completed" if self._done else "failed" if self._exception is not None else "pending"
        return f"<torchlite.distributed.Work {self._opname} {state}>"


def finished(work, async_op):
    """What a collective returns: the Work for async_op, else None after waiting."""
    if async_op:
        return work
    work.wait()
    return None


class _Future:
    """The part of torch.futures.Future that Work.get_future() users call: wait() / value() (the value,
    waiting for it), done(), then(callback) (a future of callback(this future))."""

    def __init__(self, compute, is_done):
        self._compute = compute
        self._is_done = is_done
        self._has_value = False
        self._value = None

    def wait(self):
        if not self._has_value:
            self._value = self._compute()
            self._has_value = True
        return self._value

    value = wait

    def done(self):
        return self._has_value or self._is_done()

    def then(self, callback):
        return _Future(lambda: callback((self.wait(), self)[1]), self.done)
