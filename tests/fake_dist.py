"""A stand-in for torchlite.distributed in single-process tests: `world_size` replicas that all hold this process's
tensors (every rank computes the same thing), so a SUM all_reduce multiplies by world_size, all_gather repeats
and broadcast leaves the tensor as it is. It logs every collective, so tests can see when each was issued.
The multi-process tests (tests/distributed_workers/) use the real process group."""
import sys
import types

import pytest

import torchlite as tl


class _Work:
    def __init__(self, log, what):
        self.log, self.what = log, what

    def wait(self, timeout=None):
        self.log.append(("wait",) + self.what)
        return True

    def is_completed(self):
        return True


def make_fake_dist(world_size=2, rank=0):
    d = types.ModuleType("torchlite.distributed")
    d.log = []
    d.ReduceOp = types.SimpleNamespace(SUM="sum", MAX="max")
    d.group = types.SimpleNamespace(WORLD=object())
    d.is_available = lambda: True
    d.is_initialized = lambda: True
    d.get_world_size = lambda group=None: world_size
    d.get_rank = lambda group=None: rank

    def done(what, async_op):
        d.log.append(what)
        return _Work(d.log, what) if async_op else None

    def all_reduce(tensor, op="sum", group=None, async_op=False):
        with tl.no_grad():
            if op == "sum":
                tensor.mul_(world_size)
        return done(("all_reduce", tensor.numel()), async_op)

    def broadcast(tensor, src, group=None, async_op=False):
        return done(("broadcast", tensor.numel(), src), async_op)

    def all_gather(tensor_list, tensor, group=None, async_op=False):
        assert len(tensor_list) == world_size
        for t in tensor_list:
            t.copy_(tensor)
        return done(("all_gather", tensor.numel()), async_op)

    d.all_reduce, d.broadcast, d.all_gather = all_reduce, broadcast, all_gather
    return d


@pytest.fixture
def fake_dist(monkeypatch):
    """Installs a two-rank fake as torchlite.distributed (call the fixture's value to change the world size)."""
    def install(world_size=2, rank=0):
        d = make_fake_dist(world_size, rank)
        monkeypatch.setitem(sys.modules, "torchlite.distributed", d)
        monkeypatch.setattr(tl, "distributed", d, raising=False)
        return d
    return install
