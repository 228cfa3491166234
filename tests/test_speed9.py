"""Issue 9, part speed9: the faster paths against PyTorch on inputs large enough to take them.

gather/scatter/scatter_add check a stride-1 int64 index inside their own loop: a bad index anywhere in a long
slice still raises PyTorch's error and never reads or writes outside the tensor; results stay bit-identical.
median/nanmedian along a dim (nth_element over (value, index) pairs) keep PyTorch's values and indices, ties
and NaNs included; the 2-norm folded one run per output stays within float tolerance; randn/normal_ float32
(the Box-Muller block as one vector) and multinomial with replacement over a million categories (the
normalising division as one vector loop) draw PyTorch's exact numbers; tril/triu_indices filled on one thread
equal PyTorch's."""
import numpy as np
import pytest
import torch

import torchlite as tl
from conftest import assert_same, from_torch


@pytest.fixture(params=[1, 2])
def threads(request):
    old = tl.get_num_threads()
    tl.set_num_threads(request.param)
    yield request.param
    tl.set_num_threads(old)


def pair(t):
    return from_torch(t), t


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather_scatter_add_large_slices_bit_identical(threads, dim):
    g = torch.Generator().manual_seed(dim + 7)
    x = torch.randn(300, 700, generator=g)
    idx = torch.randint(0, x.shape[dim], (300, 700), generator=g)
    (lx, tx), (li, ti) = pair(x), pair(idx)
    assert_same(tl.gather(lx, dim, li), torch.gather(tx, dim, ti), atol=0, rtol=0)
    assert_same(tl.scatter_add(lx, dim, li, lx), torch.scatter_add(tx, dim, ti, tx), atol=0, rtol=0)
    assert_same(tl.scatter(lx, dim, li, lx), torch.scatter(tx, dim, ti, tx), atol=0, rtol=0)
    assert_same(lx.clone().scatter_(dim, li, 2.5, reduce="add"), tx.clone().scatter_(dim, ti, 2.5, reduce="add"),
                atol=0, rtol=0)


@pytest.mark.parametrize("bad", [700, -1, 2**62, -(2**63)])
@pytest.mark.parametrize("where", [0, 333, 699])
def test_bad_index_deep_in_a_slice_raises_as_pytorch(bad, where):
    x = torch.randn(4, 700)
    idx = torch.randint(0, 700, (4, 700))
    idx[2, where] = bad
    (lx, tx), (li, ti) = pair(x), pair(idx)
    calls = [
        lambda L, a, i: L.gather(a, 1, i),
        lambda L, a, i: L.scatter_add(a, 1, i, a),
        lambda L, a, i: L.scatter(a, 1, i, a),
        lambda L, a, i: a.clone().scatter_(1, i, 1.0),
    ]
    for call in calls:
        with pytest.raises(RuntimeError) as theirs:
            call(torch, tx, ti)
        with pytest.raises(RuntimeError) as ours:
            call(tl, lx, li)
        assert str(theirs.value) in str(ours.value)


def test_gather_from_an_empty_dim_raises():
    for L in (tl, torch):
        with pytest.raises(RuntimeError, match="index 0 is out of bounds for dimension 1 with size 0"):
            L.gather(L.empty(3, 0), 1, L.zeros(3, 5, dtype=L.int64))


@pytest.mark.parametrize("op", ["median", "nanmedian"])
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bfloat16"])
def test_median_dim_ties_and_nans(threads, op, dim, dtype):
    g = torch.Generator().manual_seed(3)
    t = torch.randint(-3, 4, (257, 129), generator=g).to(torch.float64)
    if dtype != "int64":
        t[torch.rand(t.shape, generator=g) < 0.2] = float("nan")
        t[:, 5] = float("nan")  # an all-NaN column
    t = t.to(getattr(torch, dtype))
    lt = from_torch(t)
    ours, theirs = getattr(tl, op)(lt, dim), getattr(torch, op)(t, dim)
    assert_same(ours.values, theirs.values, atol=0, rtol=0)
    assert_same(ours.indices, theirs.indices)


@pytest.mark.parametrize("shape,dim", [((4096, 1025), None), ((3, 100_000), 1), ((2000, 70), -1), ((50, 30), 0),
                                       ((0, 5), None), ((7,), None)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
def test_two_norm_rows(threads, shape, dim, dtype):
    t = torch.randn(shape, generator=torch.Generator().manual_seed(1)).to(getattr(torch, dtype))
    lt = from_torch(t)
    # float32 sums of millions of squares: PyTorch's one vector accumulator drifts by ~1e-4 (torchlite's
    # many lanes stay closer to the float64 value)
    tol = {"float32": 5e-4, "float64": 1e-12, "bfloat16": 1e-2, "float16": 1e-2}[dtype]
    kw = {} if dim is None else {"dim": dim}
    assert_same(tl.linalg.vector_norm(lt, **kw), torch.linalg.vector_norm(t, **kw), atol=tol, rtol=tol)
    assert_same(lt.norm(**kw), t.norm(**kw), atol=tol, rtol=tol)
    assert_same(tl.linalg.vector_norm(lt, dtype=tl.float64, **kw), torch.linalg.vector_norm(t, dtype=torch.float64, **kw),
                atol=tol, rtol=tol)


def test_two_norm_of_a_transposed_tensor():
    base = torch.randn(300, 500)
    assert_same(from_torch(base).t().norm(dim=1), base.t().norm(dim=1), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("n", [16, 1000, 100_003])
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_randn_float_blocks_bit_exact(n, dtype):
    tl.manual_seed(11)
    torch.manual_seed(11)
    assert_same(tl.randn(n, dtype=getattr(tl, dtype)), torch.randn(n, dtype=getattr(torch, dtype)), atol=0, rtol=0)
    assert_same(tl.empty(n).normal_(1.5, 0.25), torch.empty(n).normal_(1.5, 0.25), atol=0, rtol=0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_multinomial_million_categories_bit_exact(dtype):
    p = torch.rand(1 << 20, generator=torch.Generator().manual_seed(5)).to(getattr(torch, dtype))
    lp = from_torch(p)
    tl.manual_seed(2)
    torch.manual_seed(2)
    assert_same(tl.multinomial(lp, 1000, True), torch.multinomial(p, 1000, True))


@pytest.mark.parametrize("args", [(2000, 2000), (2000, 1500, 3), (1000, 3000, -400), (5, 0), (0, 4), (3, 7, 10),
                                  (7, 3, -10)])
@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_triangle_indices(args, dtype):
    for name in ("tril_indices", "triu_indices"):
        assert_same(getattr(tl, name)(*args, dtype=getattr(tl, dtype)),
                    getattr(torch, name)(*args, dtype=getattr(torch, dtype)))
