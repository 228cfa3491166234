"""torchlite.distributed in one process, against torch.distributed: PyTorch's errors before
init_process_group, the names and members of ReduceOp / Backend, what happens without mpi4py; and
torchlite.utils.data.DistributedSampler's indices against PyTorch's (no process group needed)."""
import subprocess
import sys

import pytest
import torch
import torch.distributed as tdist
from torch.utils.data.distributed import DistributedSampler as TorchSampler

import dist_helpers
import torchlite as tl
import torchlite.distributed as dist
from torchlite.distributed import _mpi
from torchlite.utils.data import DistributedSampler
from torchlite.utils.data.distributed import DistributedSampler as SamplerFromModule


def same_error(ours, theirs):
    with pytest.raises(Exception) as want:
        theirs()
    with pytest.raises(type(want.value)) as got:
        ours()
    assert str(got.value) == str(want.value)


def test_errors_before_init_process_group_are_pytorchs():
    assert dist.is_available() is True and dist.is_initialized() is tdist.is_initialized() is False
    same_error(lambda: dist.get_rank(), lambda: tdist.get_rank())
    same_error(lambda: dist.get_world_size(), lambda: tdist.get_world_size())
    same_error(lambda: dist.all_reduce(tl.ones(2)), lambda: tdist.all_reduce(torch.ones(2)))
    same_error(lambda: dist.broadcast(tl.ones(2), src=0), lambda: tdist.broadcast(torch.ones(2), src=0))
    same_error(lambda: dist.barrier(), lambda: tdist.barrier())
    same_error(lambda: dist.new_group([0]), lambda: tdist.new_group([0]))
    same_error(lambda: dist.destroy_process_group(), lambda: tdist.destroy_process_group())
    same_error(lambda: dist.all_gather_object([None], 1), lambda: tdist.all_gather_object([None], 1))
    with pytest.raises(RuntimeError, match="doesn't have NCCL built in"):
        dist.init_process_group("nccl")


def test_importing_torchlite_initializes_no_mpi():
    code = "import sys, torchlite, torchlite.distributed as d; print(d.is_available(), 'mpi4py.MPI' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         env=dist_helpers.env(), cwd=dist_helpers.ROOT)
    assert out.stdout.split() == ["True", "False"], out.stderr


def test_reduce_op_and_backend_names():
    assert list(dist.ReduceOp.RedOpType.__members__) == list(tdist.ReduceOp.RedOpType.__members__)
    for name in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"):
        ours, theirs = getattr(dist.ReduceOp, name), getattr(tdist.ReduceOp, name)
        assert isinstance(ours, dist.ReduceOp.RedOpType) and int(ours) == int(theirs) and str(ours) == str(theirs)
        assert dist.ReduceOp(ours) == ours
    assert dist.Backend("MPI") == tdist.Backend("MPI") == "mpi"
    assert dist.Backend.GLOO == tdist.Backend.GLOO
    assert isinstance(dist.DistBackendError("x"), RuntimeError) and issubclass(dist.DistBackendError, dist.DistError)
    assert dist.default_pg_timeout == tdist.default_pg_timeout
    with pytest.raises(TypeError, match="ReduceOp"):
        dist.ReduceOp("sum")


def test_without_mpi4py(monkeypatch):
    monkeypatch.setattr(_mpi, "available", lambda: False)
    assert dist.is_available() is False and dist.is_mpi_available() is False
    with pytest.raises(RuntimeError, match="Distributed package doesn't have MPI built in"):
        dist.init_process_group("mpi")
    with pytest.raises(RuntimeError, match="Distributed package doesn't have MPI built in"):
        dist.init_process_group()
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        dist.all_reduce(tl.ones(1))


@pytest.mark.parametrize("n,replicas", [(10, 3), (10, 4), (7, 2), (2, 4), (12, 4), (0, 2)])
@pytest.mark.parametrize("shuffle", [True, False])
@pytest.mark.parametrize("drop_last", [False, True])
def test_distributed_sampler_matches_pytorch(n, replicas, shuffle, drop_last):
    data = list(range(n))
    for rank in range(replicas):
        ours = DistributedSampler(data, num_replicas=replicas, rank=rank, shuffle=shuffle, seed=5,
                                  drop_last=drop_last)
        theirs = TorchSampler(data, num_replicas=replicas, rank=rank, shuffle=shuffle, seed=5, drop_last=drop_last)
        for epoch in (0, 3):
            ours.set_epoch(epoch)
            theirs.set_epoch(epoch)
            assert list(ours) == list(theirs)
            assert len(ours) == len(theirs) and ours.total_size == theirs.total_size


def test_distributed_sampler_arguments():
    assert SamplerFromModule is DistributedSampler
    for rank in (-1, 3):
        with pytest.raises(ValueError) as want:
            TorchSampler(range(4), num_replicas=3, rank=rank)
        with pytest.raises(ValueError) as got:
            DistributedSampler(range(4), num_replicas=3, rank=rank)
        assert str(got.value) == str(want.value)
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedSampler(range(4))
    # it is a DataLoader sampler
    loader = tl.utils.data.DataLoader(list(range(10)), batch_size=2,
                                      sampler=DistributedSampler(list(range(10)), num_replicas=2, rank=1,
                                                                 shuffle=False))
    assert [b.tolist() for b in loader] == [[1, 3], [5, 7], [9]]
