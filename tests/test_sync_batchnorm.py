"""torchlite.nn.SyncBatchNorm and convert_sync_batchnorm in one process: BatchNorm exactly when no process group
is initialized (PyTorch's fallback), and the synchronized path through a fake two-rank group whose ranks hold the
same batch (the statistics of the batch repeated twice). Multi-process runs: tests/test_distributed_mpi.py."""
import pytest
import torch

import torchlite as tl
from conftest import from_torch, to_torch
from fake_dist import fake_dist  # noqa: F401 - fixture


def _pair(shape=(4, 3, 2, 2), momentum=0.1):
    ref = torch.nn.BatchNorm2d(shape[1], momentum=momentum, dtype=torch.float64)
    with torch.no_grad():
        ref.weight.uniform_(0.5, 1.5)
        ref.bias.uniform_(-1, 1)
    ours = tl.nn.SyncBatchNorm(shape[1], momentum=momentum, dtype=tl.float64)
    ours.load_state_dict({k: from_torch(v) for k, v in ref.state_dict().items()})
    return ref, ours


def _compare(ref, ours, x, x_ref):
    g = torch.randn(x.shape, dtype=torch.float64).repeat(x_ref.shape[0] // x.shape[0], 1, 1, 1)  # each rank's
    xt = from_torch(x).requires_grad_()
    xr = x_ref.clone().requires_grad_()
    y = ours(xt)
    yr = ref(xr)
    n = x.shape[0]
    torch.testing.assert_close(to_torch(y.detach()), yr.detach()[:n])
    y.backward(from_torch(g[:n]))
    yr.backward(g)
    return xt, xr


def test_is_batch_norm_without_a_process_group():
    ref, ours = _pair()
    x = torch.randn(4, 3, 2, 2, dtype=torch.float64)
    for _ in range(2):
        xt, xr = _compare(ref, ours, x, x)
        torch.testing.assert_close(to_torch(xt.grad), xr.grad)
    torch.testing.assert_close(to_torch(ours.weight.grad.detach()), ref.weight.grad)
    torch.testing.assert_close(to_torch(ours.bias.grad), ref.bias.grad)
    for k, v in ref.state_dict().items():
        torch.testing.assert_close(to_torch(ours.state_dict()[k].detach()), v)
    ours.eval(), ref.eval()
    torch.testing.assert_close(to_torch(ours(from_torch(x)).detach()), ref(x).detach())


@pytest.mark.parametrize("momentum", [0.1, None])
def test_synchronized_path_over_a_fake_two_rank_group(fake_dist, momentum):
    d = fake_dist(2)
    ref, ours = _pair(momentum=momentum)
    x = torch.randn(3, 3, 2, 2, dtype=torch.float64)
    both = torch.cat([x, x])  # the two ranks' batches
    xt, xr = _compare(ref, ours, x, both)
    assert ("all_gather", 7) in d.log and ("all_reduce", 6) in d.log
    # the input gradient of rank 0's slice; each rank's weight gradient is its own share (DDP sums them)
    torch.testing.assert_close(to_torch(xt.grad), xr.grad[:3])
    torch.testing.assert_close(to_torch(ours.weight.grad.detach()) * 2, ref.weight.grad)
    torch.testing.assert_close(to_torch(ours.bias.grad) * 2, ref.bias.grad)
    torch.testing.assert_close(to_torch(ours.running_mean), ref.running_mean)
    torch.testing.assert_close(to_torch(ours.running_var), ref.running_var)
    assert int(ours.num_batches_tracked) == 1


def test_world_of_one_and_eval_fall_back_to_batch_norm(fake_dist):
    d = fake_dist(1)
    ref, ours = _pair()
    x = torch.randn(4, 3, 2, 2, dtype=torch.float64)
    _compare(ref, ours, x, x)
    ours.eval()
    ours(from_torch(x))
    assert d.log == []


def test_convert_sync_batchnorm_shares_parameters_and_buffers():
    model = tl.nn.Sequential(tl.nn.Conv2d(2, 3, 1), tl.nn.BatchNorm2d(3),
                             tl.nn.Sequential(tl.nn.BatchNorm1d(4, affine=False)))
    bn = model[1]
    model.eval()
    converted = tl.nn.SyncBatchNorm.convert_sync_batchnorm(model, process_group="pg")
    assert converted is model
    assert type(model[1]) is tl.nn.SyncBatchNorm and type(model[2][0]) is tl.nn.SyncBatchNorm
    assert model[1].weight is bn.weight and model[1].running_mean is bn.running_mean
    assert model[1].process_group == "pg" and not model[1].training
    assert model[2][0].weight is None
    single = tl.nn.SyncBatchNorm.convert_sync_batchnorm(tl.nn.BatchNorm3d(5, eps=0.5, bias=False))
    assert type(single) is tl.nn.SyncBatchNorm and single.eps == 0.5 and single.bias is None
    assert repr(single) == repr(torch.nn.SyncBatchNorm(5, eps=0.5, bias=False))


def test_errors():
    bn = tl.nn.SyncBatchNorm(3)
    with pytest.raises(ValueError, match="expected at least 2D input"):
        bn(tl.ones(3))
    with pytest.raises(ValueError, match="number of input channels should be non-zero"):
        tl.nn.SyncBatchNorm(0)(tl.ones(2, 0))
