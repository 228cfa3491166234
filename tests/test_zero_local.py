"""ZeroRedundancyOptimizer in one process (a fake group, tests/fake_dist.py): the partition of the parameters,
a world of one rank behaving as the plain optimizer, and the state-dict round trip. Two real ranks:
tests/test_distributed_mpi.py."""
import pytest
import warnings

import torch

with warnings.catch_warnings():  # torch.distributed.optim scripts functional optimizers with the deprecated JIT
    warnings.simplefilter("ignore", DeprecationWarning)
    import torch.distributed.optim  # noqa: F401 - as torchlite.distributed.optim below: the namespaces stay alike

import torchlite as tl
from torchlite.distributed.optim import ZeroRedundancyOptimizer
from conftest import to_torch
from fake_dist import fake_dist  # noqa: F401 - fixture


def _params():
    tl.manual_seed(0)
    return [tl.nn.Parameter(tl.randn(*s)) for s in [(3,), (10, 4), (6,), (2, 2), (5, 3)]]


def test_partition_is_greedy_by_size(fake_dist):
    fake_dist(2, rank=1)
    params = _params()
    opt = ZeroRedundancyOptimizer(params, tl.optim.Adam, lr=0.1)
    shards = [[p for g in groups for p in g["params"]] for groups in opt._partition_parameters()]
    # largest first onto the emptiest rank: 40 -> r0, 15 -> r1, 6 -> r1, 4 -> r1, 3 -> r1
    assert [tuple(p.shape) for p in shards[0]] == [(10, 4)]
    assert [tuple(p.shape) for p in shards[1]] == [(5, 3), (6,), (2, 2), (3,)]
    # this rank's optimizer holds its shard only
    assert [p for g in opt.optim.param_groups for p in g["params"]] == shards[1]
    for p in params:
        p.grad = tl.ones_like(p)
    opt.step()
    assert set(map(id, opt.optim.state)) == set(map(id, shards[1]))


@pytest.mark.parametrize("cls,kwargs", [(tl.optim.SGD, dict(lr=0.1, momentum=0.9)), (tl.optim.Adam, dict(lr=0.01))])
def test_world_of_one_is_the_plain_optimizer(fake_dist, cls, kwargs):
    fake_dist(1)
    ours, ref = _params(), _params()
    zero = ZeroRedundancyOptimizer(ours, cls, **kwargs)
    plain = cls(ref, **kwargs)
    for step in range(3):
        for a, b in zip(ours, ref):
            g = tl.randn(*a.shape)
            a.grad, b.grad = g.clone(), g.clone()
        zero.step()
        plain.step()
    for a, b in zip(ours, ref):
        torch.testing.assert_close(to_torch(a.detach()), to_torch(b.detach()))
    with pytest.raises(RuntimeError, match="consolidate_state_dict"):
        zero.state_dict()
    zero.consolidate_state_dict()
    sd, ref_sd = zero.state_dict(), plain.state_dict()
    assert sd["param_groups"] == ref_sd["param_groups"] and sorted(sd["state"]) == sorted(ref_sd["state"])
    for i, state in ref_sd["state"].items():
        for k, v in state.items():
            torch.testing.assert_close(to_torch(sd["state"][i][k]), to_torch(v))
    # load into a fresh wrapper: the next steps continue identically
    again = _params()
    for a, b in zip(again, ours):
        a.data.copy_(b.data)
    zero2 = ZeroRedundancyOptimizer(again, cls, **kwargs)
    zero2.load_state_dict(sd)
    for a, b in zip(again, ref):
        g = tl.randn(*a.shape)
        a.grad, b.grad = g.clone(), g.clone()
    zero2.step()
    plain.step()
    for a, b in zip(again, ref):
        torch.testing.assert_close(to_torch(a.detach()), to_torch(b.detach()))


def test_lr_changes_reach_the_local_optimizer(fake_dist):
    fake_dist(1)
    p = _params()
    zero = ZeroRedundancyOptimizer(p, tl.optim.SGD, lr=1.0)
    zero.param_groups[0]["lr"] = 0.5
    p[0].grad = tl.ones(3)
    before = p[0].detach().clone()
    zero.step()
    torch.testing.assert_close(to_torch(p[0].detach()), to_torch(before) - 0.5)


def test_constructor_errors(fake_dist):
    fake_dist(1)
    with pytest.raises(TypeError, match="iterable of Tensors"):
        ZeroRedundancyOptimizer(tl.ones(2), tl.optim.SGD, lr=1)
    with pytest.raises(ValueError, match="empty parameter list"):
        ZeroRedundancyOptimizer([], tl.optim.SGD, lr=1)
