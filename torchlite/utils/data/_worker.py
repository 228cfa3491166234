"""What runs inside a DataLoader worker process: its seeding, get_worker_info(), the fetchers that turn keys into
batches, and the loop that serves the main process's index queue (PyTorch's torch.utils.data._utils.worker and
_utils.fetch)."""
import dataclasses
import os
import queue
import random
import sys
import traceback

import torchlite
from torchlite.utils.data import _batch_transport

__all__ = ["WorkerInfo", "get_worker_info"]

# How long a blocking queue read waits before the reader checks that its peer is still alive (seconds).
MP_STATUS_CHECK_INTERVAL = 1.0
# The same for an idle worker, which also checks whether the loader shut down: the final None can be lost when
# the iterator dies in a garbage cycle with its queues (their feeder threads are finalized first).
WORKER_POLL_INTERVAL = 0.2


@dataclasses.dataclass(frozen=True, slots=True)
class WorkerInfo:
    """The current worker: id (0..num_workers-1), num_workers, seed (base_seed + id), dataset (this process's
    copy); read-only (assigning raises dataclasses.FrozenInstanceError, as in PyTorch). rng and worker_method
    are PyTorch's fields for thread workers, which torchlite does not have: always None and "multiprocessing"."""

    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: str = "multiprocessing"


_worker_info = None


def get_worker_info():
    """The WorkerInfo of the current DataLoader worker process; None in the main process."""
    return _worker_info


class _IterableDatasetStopIteration:
    """A worker's signal that its copy of an IterableDataset is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class _ResumeIteration:
    """Sent to persistent workers at a new epoch: rebuild the fetcher (restart the dataset iterator), then ack."""


class ExceptionWrapper:
    """An exception caught in a worker, carried to the main process as its type and formatted traceback."""

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)  # KeyError would print the repr of the message, escaping its newlines
        try:
            exception = self.exc_type(msg)
        except Exception:
            # An exception type whose constructor wants other arguments: keep the text, lose the type.
            raise RuntimeError(msg) from None
        raise exception


class _KeyErrorMessage(str):
    def __repr__(self):
        return self


def _numpy_seed(base_seed, worker_id):
    """The 4-word NumPy seed of a worker: a SeedSequence over (worker_id, base_seed's two halves, 0), as
    PyTorch derives it, so NumPy in a worker is seeded apart from `random` and from other workers."""
    import numpy as np
    return np.random.SeedSequence([worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32, 0]).generate_state(4)


def _seed_worker(base_seed, worker_id):
    seed = base_seed + worker_id
    random.seed(seed)
    torchlite.manual_seed(seed)
    try:
        import numpy as np
    except ImportError:
        return seed
    np.random.seed(_numpy_seed(base_seed, worker_id))
    return seed


class _MapDatasetFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn

    def fetch(self, keys):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[keys])
        getitems = getattr(self.dataset, "__getitems__", None)
        data = getitems(keys) if callable(getitems) else [self.dataset[k] for k in keys]
        return self.collate_fn(data)


class _IterableDatasetFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset_iter = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def fetch(self, keys):
        # The keys only count the samples of a batch: the stream decides which samples they are.
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = []
        for _ in keys:
            try:
                data.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(keys)):
            raise StopIteration
        return self.collate_fn(data)


def _create_fetcher(is_iterable, dataset, auto_collation, collate_fn, drop_last):
    cls = _IterableDatasetFetcher if is_iterable else _MapDatasetFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)


def _worker_loop(is_iterable, dataset, index_queue, data_queue, done_event, auto_collation, collate_fn, drop_last,
                 base_seed, init_fn, worker_id, num_workers, channel):
    """Serve (idx, keys) tasks from index_queue with (idx, batch) on data_queue until None arrives, the main
    process dies, or done_event is set. A batch travels packed (_batch_transport: its shared memory's file
    descriptors go through `channel`); exceptions travel as ExceptionWrapper, the end of an iterable dataset
    as _IterableDatasetStopIteration."""
    global _worker_info
    try:
        # One thread per worker: the workers are the parallelism. This also replaces a thread pool that fork
        # copied without its threads (using it would hang).
        torchlite.set_num_threads(1)
        seed = _seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)

        init_exception = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _create_fetcher(is_iterable, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")

        sender = _batch_transport.BatchSender(worker_id, channel)
        iteration_end = False
        parent = os.getppid()
        while os.getppid() == parent:
            try:
                task = index_queue.get(timeout=WORKER_POLL_INTERVAL)
            except queue.Empty:
                if done_event.is_set():
                    break
                continue
            if isinstance(task, _ResumeIteration):
                data_queue.put((task, None))
                iteration_end = False
                fetcher = _create_fetcher(is_iterable, dataset, auto_collation, collate_fn, drop_last)
                continue
            if task is None:
                break
            if done_event.is_set() or iteration_end:
                continue  # wind-down: wait for the final None without doing work
            idx, keys = task
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = sender.pack(fetcher.fetch(keys))
                except StopIteration:
                    if not is_iterable:
                        data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
                    else:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                except Exception:
                    data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            data_queue.put((idx, data))
            del data, keys, task
    except KeyboardInterrupt:
        pass  # the main process raises it
    if done_event.is_set():
        # The main process no longer reads: do not block exit on flushing the queue's buffer.
        data_queue.cancel_join_thread()
        data_queue.close()
