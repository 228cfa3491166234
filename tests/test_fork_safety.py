"""A forked child may run parallel kernels after its parent did (GNU OpenMP's pool does not survive fork;
torchlite's children run their parallel_for on one thread instead of waiting forever)."""
import multiprocessing as mp

import pytest

import torchlite as tl


def _child(queue):
    x = tl.ones(4_000_000)
    queue.put(((x * 2).sum().item(), tl.get_num_threads()))


def test_forked_child_runs_parallel_kernels():
    tl.set_num_threads(2)
    assert (tl.ones(4_000_000) * 2).sum().item() == 8_000_000.0  # the parent's pool is now running
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    p = ctx.Process(target=_child, args=(queue,))
    p.start()
    p.join(60)
    if p.is_alive():
        p.kill()
        pytest.fail("the forked child hung in a parallel kernel")
    total, threads = queue.get(timeout=5)
    assert total == 8_000_000.0 and threads == 1
    assert tl.get_num_threads() == 2  # the parent keeps its threads
