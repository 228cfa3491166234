"""DistributedDataParallel's reducer in one process, over a fake two-rank group whose ranks compute the same
gradients (tests/fake_dist.py): gradients are bucketed in reverse order, each bucket's all_reduce is issued from the
gradient hooks while backward is still running, and averaging leaves the local gradients. The real multi-process
checks (2 ranks x batch B == 1 process x 2B, ...) are in tests/test_distributed_mpi.py."""
import pytest
import torch

import torchlite as tl
from torchlite.nn.parallel import DistributedDataParallel as DDP
from torchlite.nn.parallel._reducer import compute_bucket_assignment_by_size
from conftest import to_torch
from fake_dist import fake_dist  # noqa: F401 - fixture


def _mlp(seed=0):
    tl.manual_seed(seed)
    return tl.nn.Sequential(tl.nn.Linear(8, 16), tl.nn.ReLU(), tl.nn.Linear(16, 16), tl.nn.ReLU(),
                            tl.nn.Linear(16, 4))


def _grads(model):
    return [p.grad.clone() for p in model.parameters()]


def test_bucket_assignment_reverse_order_and_first_bucket_cap():
    params = [tl.zeros(256), tl.zeros(256), tl.zeros(256, dtype=tl.float64), tl.zeros(1024)]
    # caps in bytes: first bucket 1 KiB, then 2 KiB
    buckets = compute_bucket_assignment_by_size(params, [1024, 2048])
    assert buckets == [[3], [2], [1, 0]]
    assert compute_bucket_assignment_by_size(params, [1 << 20]) == [[3, 1, 0], [2]]


def test_gradients_are_averaged_and_all_reduces_overlap_backward(fake_dist):
    d = fake_dist(2)
    model, ref = _mlp(), _mlp()
    ddp = DDP(model, bucket_cap_mb=300 / 2**20)  # three buckets
    assert ddp.module is model and len(ddp.reducer.buckets) >= 3
    assert [e[0] for e in d.log] == ["broadcast"]  # parameters from rank 0 (no buffers)
    d.log.clear()
    x = tl.randn(5, 8)
    hook_order = []
    for p in model.parameters():
        p.register_post_accumulate_grad_hook(lambda p, n=len(hook_order): hook_order.append(("grad", id(p))))
    ddp(x).sum().backward()
    ref(x).sum().backward()
    for g, r in zip(_grads(model), _grads(ref)):
        torch.testing.assert_close(to_torch(g), to_torch(r))
    launches = [e for e in d.log if e[0] == "all_reduce"]
    waits = [e for e in d.log if e[0] == "wait"]
    assert len(launches) == len(ddp.reducer.buckets) == len(waits)
    # every all_reduce is launched before the first wait (the end-of-backward callback)
    assert d.log.index(waits[0]) == len(launches)


def test_all_reduce_is_issued_while_backward_runs(fake_dist):
    d = fake_dist(2)
    model = _mlp()
    ddp = DDP(model, bucket_cap_mb=1e-6)  # one parameter per bucket
    first = list(model.parameters())[0]
    seen = []
    # the first layer's weight gradient comes last: by then the later layers' buckets were launched
    first.register_hook(lambda g: seen.append(sum(e[0] == "all_reduce" for e in d.log)))
    d.log.clear()
    ddp(tl.randn(3, 8)).sum().backward()
    assert seen and seen[0] >= 4


def test_no_sync_accumulates_then_syncs_the_sum(fake_dist):
    d = fake_dist(2)
    model, ref = _mlp(), _mlp()
    ddp = DDP(model)
    xs = [tl.randn(4, 8) for _ in range(3)]
    d.log.clear()
    with ddp.no_sync():
        for x in xs[:2]:
            ddp(x).sum().backward()
    assert not any(e[0] == "all_reduce" for e in d.log)
    ddp(xs[2]).sum().backward()
    assert any(e[0] == "all_reduce" for e in d.log)
    for x in xs:
        ref(x).sum().backward()
    for g, r in zip(_grads(model), _grads(ref)):
        torch.testing.assert_close(to_torch(g), to_torch(r))


class _TwoHeads(tl.nn.Module):
    def __init__(self):
        super().__init__()
        self.used = tl.nn.Linear(4, 2)
        self.unused = tl.nn.Linear(4, 2)

    def forward(self, x):
        return self.used(x)


def test_unused_parameters_error_without_find_unused(fake_dist):
    fake_dist(2)
    ddp = DDP(_TwoHeads())
    ddp(tl.randn(2, 4)).sum().backward()
    with pytest.raises(RuntimeError, match="(?s)Expected to have finished reduction in the prior iteration.*"
                                           "find_unused_parameters=True.*rank 0: 2 3"):
        ddp(tl.randn(2, 4))


def test_find_unused_parameters(fake_dist):
    fake_dist(2)
    model = _TwoHeads()
    ddp = DDP(model, find_unused_parameters=True)
    assert ddp.reducer.buckets[0].params[0] is model.unused.bias
    for _ in range(2):
        ddp(tl.randn(2, 4)).sum().backward()
        assert ddp.reducer.unused == [2, 3]  # found in the forward's graph
    assert model.used.weight.grad is not None and model.unused.weight.grad is None


def test_gradient_as_bucket_view(fake_dist):
    fake_dist(2)
    model, ref = _mlp(), _mlp()
    ddp = DDP(model, gradient_as_bucket_view=True)
    x = tl.randn(4, 8)
    for _ in range(2):
        ddp(x).sum().backward()
        ref(x).sum().backward()
    bucket = ddp.reducer.buckets[0]
    assert any(p.grad.data_ptr() == v.data_ptr() for p, v in zip(bucket.params, bucket.views))
    for g, r in zip(_grads(model), _grads(ref)):
        torch.testing.assert_close(to_torch(g), to_torch(r))


def test_buffers_broadcast_before_forward_and_state_dict(fake_dist):
    d = fake_dist(2)
    model = tl.nn.Sequential(tl.nn.Linear(3, 4), tl.nn.BatchNorm1d(4))
    ddp = DDP(model)
    assert set(ddp.state_dict()) == {"module." + k for k in model.state_dict()}
    d.log.clear()
    ddp(tl.randn(5, 3)).sum().backward()
    assert d.log[0][0] == "broadcast"  # buffers, before the forward
    d.log.clear()
    with pytest.warns(FutureWarning, match="broadcast_buffers"):
        ddp2 = DDP(tl.nn.Sequential(tl.nn.Linear(3, 4), tl.nn.BatchNorm1d(4)), broadcast_buffers=False)
    assert not ddp2.broadcast_buffers
    d.log.clear()
    ddp2(tl.randn(5, 3))
    assert not any(e[0] == "broadcast" for e in d.log)
    # a state dict of the wrapped module loads through the wrapper's `module`
    fresh = tl.nn.Sequential(tl.nn.Linear(3, 4), tl.nn.BatchNorm1d(4))
    fresh.load_state_dict({k[len("module."):]: v for k, v in ddp.state_dict().items()})


def test_constructor_errors(fake_dist):
    fake_dist(2)
    frozen = tl.nn.Linear(2, 2).requires_grad_(False)
    with pytest.raises(RuntimeError, match="DistributedDataParallel is not needed"):
        DDP(frozen)
    with pytest.raises(ValueError, match="device_ids can only be None or contain a single element"):
        DDP(tl.nn.Linear(2, 2), device_ids=[0, 1])
    with pytest.raises(ValueError, match="only work with single-device/multiple-device GPU modules or CPU"):
        DDP(tl.nn.Linear(2, 2), device_ids=[0])


def test_a_parameter_marked_ready_twice_raises(fake_dist):
    fake_dist(2)
    model = tl.nn.Linear(3, 2)
    ddp = DDP(model)
    ddp(tl.randn(4, 3))
    model.weight.grad = tl.ones(2, 3)
    ddp.reducer._mark_ready(0, model.weight)
    with pytest.raises(RuntimeError, match="Expected to mark a variable ready only once"):
        ddp.reducer._mark_ready(0, model.weight)
