"""The batch_norm_stats family (the per-replica pieces of SyncBatchNorm): CUDA-only in PyTorch, CPU kernels in
torchlite. Checked against the math of PyTorch's CPU batch norm: a batch split into replicas whose statistics are
gathered must normalize, update running statistics and back-propagate as F.batch_norm on the whole batch."""
import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
from conftest import from_torch, to_torch


def _stats_ref(x, eps):
    dims = [0] + list(range(2, x.dim()))
    mean = x.double().mean(dims)
    var = x.double().var(dims, unbiased=False)
    return mean, 1 / torch.sqrt(var + eps)


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (2, 3, 2, 2), (3, 2, 1, 2, 2)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_stats_are_the_batch_mean_and_invstd(shape, dtype):
    x = torch.randn(*shape, dtype=getattr(torch, dtype)) * 3 + 1
    mean, invstd = tl.batch_norm_stats(from_torch(x), 1e-5)
    ref_mean, ref_invstd = _stats_ref(x, 1e-5)
    assert mean.dtype == getattr(tl, dtype) and invstd.dtype == getattr(tl, dtype)
    tol = 1e-6 if dtype == "float32" else 1e-12
    torch.testing.assert_close(to_torch(mean).double(), ref_mean, rtol=tol, atol=tol)
    torch.testing.assert_close(to_torch(invstd).double(), ref_invstd, rtol=tol, atol=tol)


def test_stats_of_non_contiguous_and_half_inputs():
    x = torch.randn(5, 4, 3).transpose(0, 2)  # (3, 4, 5), strided
    mean, invstd = tl.batch_norm_stats(from_torch(x), 0.5)
    ref_mean, ref_invstd = _stats_ref(x, 0.5)
    torch.testing.assert_close(to_torch(mean).double(), ref_mean, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(to_torch(invstd).double(), ref_invstd, rtol=1e-6, atol=1e-6)
    # float16/bfloat16 inputs give float32 statistics, as PyTorch's CUDA kernel
    for dt in (tl.float16, tl.bfloat16):
        m, v = tl.batch_norm_stats(from_torch(x).to(dt), 1e-5)
        assert m.dtype == tl.float32 and v.dtype == tl.float32


def test_stats_zero_variance_without_eps_gives_zero_invstd():
    mean, invstd = tl.batch_norm_stats(tl.ones(3, 2), 0.0)
    assert mean.tolist() == [1.0, 1.0] and invstd.tolist() == [0.0, 0.0]


def _split_stats(x, sizes, eps):
    parts = torch.split(x, sizes)
    stats = [tl.batch_norm_stats(from_torch(p), eps) for p in parts]
    counts = [p.numel() // p.size(1) for p in parts]
    return parts, tl.stack([m for m, _ in stats]), tl.stack([v for _, v in stats]), counts


@pytest.mark.parametrize("sizes", [[6], [2, 4], [1, 3, 2]])
def test_gather_merges_replicas_like_batch_norm_on_the_whole_batch(sizes):
    x = torch.randn(6, 3, 4, dtype=torch.float64) * 2 - 1
    eps, momentum = 1e-5, 0.1
    _, means, invstds, counts = _split_stats(x, sizes, eps)
    rm, rv = tl.zeros(3, dtype=tl.float64), tl.ones(3, dtype=tl.float64)
    mean, invstd = tl.batch_norm_gather_stats_with_counts(from_torch(x), means, invstds, rm, rv, momentum, eps,
                                                          tl.tensor(counts, dtype=tl.float64))
    ref_mean, ref_invstd = _stats_ref(x, eps)
    torch.testing.assert_close(to_torch(mean), ref_mean)
    torch.testing.assert_close(to_torch(invstd), ref_invstd)
    # the running statistics: as F.batch_norm's update in training (unbiased variance over all replicas)
    trm, trv = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    F.batch_norm(x, trm, trv, training=True, momentum=momentum, eps=eps)
    torch.testing.assert_close(to_torch(rm), trm)
    torch.testing.assert_close(to_torch(rv), trv)


def test_gather_stats_with_one_count_and_world_size_one():
    x = torch.randn(4, 2, 3)
    m, v = tl.batch_norm_stats(from_torch(x), 1e-5)
    # one replica: the gathered statistics are its own
    gm, gv = tl.batch_norm_gather_stats_with_counts(from_torch(x), m[None], v[None], None, None, 0.1, 1e-5,
                                                    tl.tensor([12.0]))
    torch.testing.assert_close(to_torch(gm), to_torch(m))
    torch.testing.assert_close(to_torch(gv), to_torch(v))
    # equal counts: batch_norm_gather_stats
    x2 = torch.randn(8, 2, 3, dtype=torch.float64)
    _, means, invstds, _ = _split_stats(x2, [4, 4], 1e-5)
    gm, gv = tl.batch_norm_gather_stats(from_torch(x2), means, invstds, None, None, 0.1, 1e-5, 12)
    ref_mean, ref_invstd = _stats_ref(x2, 1e-5)
    torch.testing.assert_close(to_torch(gm), ref_mean)
    torch.testing.assert_close(to_torch(gv), ref_invstd)


@pytest.mark.parametrize("affine", [True, False])
def test_elemt_normalizes_like_batch_norm(affine):
    x = torch.randn(4, 3, 5)
    w, b = (torch.randn(3), torch.randn(3)) if affine else (None, None)
    mean, invstd = tl.batch_norm_stats(from_torch(x), 1e-5)
    y = tl.batch_norm_elemt(from_torch(x), from_torch(w) if affine else None, from_torch(b) if affine else None,
                            mean, invstd, 1e-5)
    ref = F.batch_norm(x, None, None, w, b, training=True, eps=1e-5)
    torch.testing.assert_close(to_torch(y), ref, rtol=1e-5, atol=1e-5)
    out = tl.empty(0)
    r = tl.batch_norm_elemt(from_torch(x), None, None, mean, invstd, 1e-5, out=out)
    assert r is out and out.shape == (4, 3, 5)
    torch.testing.assert_close(to_torch(out), F.batch_norm(x, None, None, training=True), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("affine", [True, False])
def test_backward_across_replicas_equals_batch_norm_gradients(affine):
    x = torch.randn(6, 3, 2, 2, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, dtype=torch.float64, requires_grad=True) if affine else None
    b = torch.randn(3, dtype=torch.float64, requires_grad=True) if affine else None
    g = torch.randn(6, 3, 2, 2, dtype=torch.float64)
    F.batch_norm(x, None, None, w, b, training=True, eps=1e-5).backward(g)
    sizes = [2, 4]
    parts, means, invstds, counts = _split_stats(x.detach(), sizes, 1e-5)
    mean, invstd = tl.batch_norm_gather_stats_with_counts(from_torch(x.detach()), means, invstds, None, None, 0.1,
                                                          1e-5, tl.tensor(counts, dtype=tl.float64))
    tw = from_torch(w.detach()) if affine else None
    grads = torch.split(g, sizes)
    reduced = [tl.batch_norm_backward_reduce(from_torch(gp), from_torch(xp), mean, invstd, tw, True, affine, affine)
               for gp, xp in zip(grads, parts)]
    sum_dy = sum(r[0] for r in reduced)  # the all_reduce
    sum_dy_xmu = sum(r[1] for r in reduced)
    count = tl.tensor(counts, dtype=tl.int32)
    gi = tl.cat([tl.batch_norm_backward_elemt(from_torch(gp), from_torch(xp), mean, invstd, tw, sum_dy, sum_dy_xmu,
                                              count) for gp, xp in zip(grads, parts)])
    torch.testing.assert_close(to_torch(gi), x.grad)
    if affine:
        torch.testing.assert_close(to_torch(sum(r[2] for r in reduced)), w.grad)
        torch.testing.assert_close(to_torch(sum(r[3] for r in reduced)), b.grad)
    else:
        assert all(r[2] is None and r[3] is None for r in reduced)


def test_backward_reduce_skips_what_is_not_asked():
    x, g = tl.randn(3, 2), tl.randn(3, 2)
    m, v = tl.batch_norm_stats(x, 1e-5)
    r = tl.batch_norm_backward_reduce(g, x, m, v, None, False, False, True)
    assert r[0] is None and r[1] is None and r[2] is None
    torch.testing.assert_close(to_torch(r[3]), to_torch(g).sum(0))


def test_errors():
    with pytest.raises(RuntimeError, match="batch_norm_stats"):
        tl.batch_norm_stats(tl.ones(3), 1e-5)
    with pytest.raises(RuntimeError, match="batch_norm_stats"):  # NotImplementedError for an integer input
        tl.batch_norm_stats(tl.ones(3, 2, dtype=tl.int64), 1e-5)
    x = tl.randn(3, 2)
    with pytest.raises(RuntimeError, match="batch_norm_elemt.*mean"):
        tl.batch_norm_elemt(x, None, None, tl.zeros(3), tl.ones(2), 1e-5)
    with pytest.raises(RuntimeError, match="batch_norm_gather_stats_with_counts"):
        tl.batch_norm_gather_stats_with_counts(x, tl.zeros(2, 2), tl.ones(2, 2), None, None, 0.1, 1e-5,
                                               tl.tensor([1.0]))
    with pytest.raises(RuntimeError, match="batch_norm_backward_elemt.*grad_out"):
        tl.batch_norm_backward_elemt(tl.ones(2, 2), x, tl.zeros(2), tl.ones(2), None, tl.zeros(2), tl.zeros(2),
                                     tl.tensor([3]))


def test_not_differentiable_like_torch():
    x = tl.randn(3, 2, requires_grad=True)
    mean, _ = tl.batch_norm_stats(x, 1e-5)
    with pytest.raises(RuntimeError, match="derivative for aten::batch_norm_stats is not implemented"):
        mean.sum().backward()
