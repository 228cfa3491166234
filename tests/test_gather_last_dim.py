"""gather along the innermost dim (aten/native/cpu/GatherLastDim.cpp): the row engine taken for a contiguous
int64 index and output with self stride 1 along that dim, and the layouts that fall back to the index engine,
against torch. Every dtype, rows longer and shorter than a vector step (16), rows of self prefetched or not
(short/long rows), 1 and 2 threads, out-of-range indices anywhere (PyTorch's error, never a read outside self),
and each ISA's loop (AVX-512, AVX2, generic) through TORCHLITE_GATHER_ISA in a subprocess."""
import os
import subprocess
import sys
import textwrap

import pytest
import torch

import torchlite as tl
from conftest import DTYPES, assert_same, from_torch, make


@pytest.fixture(params=[1, 2])
def threads(request):
    old = tl.get_num_threads()
    tl.set_num_threads(request.param)
    yield request.param
    tl.set_num_threads(old)


def check(x, dim, idx, **kw):
    """gather of torch tensors x/idx and of their torchlite copies (same layout) agree exactly."""
    ours = tl.gather(from_torch_view(x), dim, from_torch_view(idx), **kw)
    assert_same(ours, torch.gather(x, dim, idx, **kw), atol=0, rtol=0)
    return ours


def from_torch_view(t):
    """A torchlite tensor with t's values, sizes and strides (a view of a copy of t's whole storage)."""
    if t.dim() == 0 or t.is_contiguous():
        return from_torch(t.contiguous())
    base = t.as_strided((t.untyped_storage().nbytes() // t.element_size(),), (1,), 0)
    return tl.as_strided(from_torch(base.clone()), tuple(t.shape), t.stride(), t.storage_offset())


def rand_index(shape, high, seed=0):
    return torch.randint(0, high, shape, generator=torch.Generator().manual_seed(seed))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,n", [((37, 300), 290), ((5, 1000), 1000), ((3, 4, 50), 7), ((64, 20), 1)])
def test_every_dtype_matches_torch(threads, dtype, shape, n):
    x = make(shape, dtype, seed=n)
    idx = rand_index(shape[:-1] + (n,), shape[-1], seed=len(shape))
    check(x, -1, idx)
    check(x, len(shape) - 1, idx)


@pytest.mark.parametrize("bound,n", [(5000, 64), (1000, 8), (16, 4096), (1, 33)])
def test_rows_prefetched_or_not(threads, bound, n):
    # 20 KB rows (not prefetched), few lookups into long rows (not prefetched), tiny rows, a dim of size 1.
    x = torch.randn(23, bound)
    check(x, 1, rand_index((23, n), bound))


def test_one_long_row_split_over_threads(threads):
    x = torch.randn(300_000)
    check(x, 0, rand_index((250_001,), 300_000))
    check(x.double(), -1, rand_index((100_003,), 300_000, seed=3))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "bool"])
def test_self_views_and_fallback_layouts(threads, dtype):
    big = make((40, 700), dtype, seed=3)
    idx = rand_index((20, 300), 350)
    check(big[:20, :350], 1, idx)               # rows of a wider self: engine, row stride 700
    check(big[::2, 100:450], 1, idx)            # every other row: engine, row stride 1400
    check(big[:, :350].t().contiguous().t()[:20], 1, idx)  # transposed self (stride 20 along dim): fallback
    check(big[:1, :350].expand(20, 350), 1, idx)           # expanded self (row stride 0): engine
    check(big[:20, :350], 1, rand_index((300, 20), 350).t())                   # transposed index: fallback
    check(big[:20, :350], 1, rand_index((1, 300), 350).expand(20, 300))        # expanded index: fallback
    check(big[:20, :350], 1, rand_index((20, 300), 350).to(torch.int32))       # int32 index: fallback
    # an index smaller than self on the outer dims and 3-D self whose outer dims do not merge: fallback
    x3 = make((6, 9, 100), dtype, seed=4)
    check(x3, 2, rand_index((4, 5, 60), 100))
    check(x3, -1, rand_index((6, 9, 60), 100))


def test_out_and_keyword_arguments(threads):
    x, idx = torch.randn(50, 200), rand_index((50, 120), 200)
    out = tl.empty(50, 120)
    r = tl.gather(from_torch(x), dim=-1, index=from_torch(idx), out=out)
    assert r is out
    assert_same(out, torch.gather(x, -1, idx), atol=0, rtol=0)
    strided_out = tl.empty(120, 50).t()  # a non-contiguous out=: the fallback writes through its strides
    tl.gather(from_torch(x), 1, from_torch(idx), out=strided_out)
    assert_same(strided_out, torch.gather(x, 1, idx), atol=0, rtol=0)
    assert_same(from_torch(x).gather(-1, from_torch(idx)), x.gather(-1, idx), atol=0, rtol=0)


def test_empty_and_zero_d(threads):
    check(torch.randn(0, 40), 1, torch.zeros(0, 30, dtype=torch.int64))
    check(torch.randn(4, 40), 1, torch.zeros(4, 0, dtype=torch.int64))
    check(torch.tensor(2.5), 0, torch.tensor(0))
    check(torch.tensor(2.5), -1, torch.tensor([0, 0, 0]))
    check(torch.randn(5), 0, torch.tensor(3))
    for L in (tl, torch):
        with pytest.raises(RuntimeError, match="index 0 is out of bounds for dimension 1 with size 0"):
            L.gather(L.empty(3, 0), 1, L.zeros(3, 40, dtype=L.int64))


@pytest.mark.parametrize("bad", [300, -1, 2**40, 2**63 - 1, -(2**63)])
@pytest.mark.parametrize("where", [(0, 0), (11, 15), (11, 16), (17, 255), (35, 289), (36, 288)])
def test_out_of_range_raises_as_pytorch(threads, bad, where):
    # positions in a vector step, at a step's edge, in the scalar tail (290 = 18 * 16 + 2) and in the last row
    x, idx = torch.randn(37, 300), rand_index((37, 290), 300)
    idx[where] = bad
    with pytest.raises(RuntimeError) as theirs:
        torch.gather(x, 1, idx)
    with pytest.raises(RuntimeError) as ours:
        tl.gather(from_torch(x), 1, from_torch(idx))
    assert str(theirs.value) in str(ours.value)
    assert str(ours.value).startswith("gather")


def test_backward_matches_torch():
    x, idx = torch.randn(30, 100, dtype=torch.float64, requires_grad=True), rand_index((30, 80), 100)
    ours = from_torch(x.detach()).requires_grad_()
    (tl.gather(ours, -1, from_torch(idx)) * 3).sum().backward()
    (torch.gather(x, -1, idx) * 3).sum().backward()
    assert_same(ours.grad, x.grad, atol=0, rtol=0)


SCRIPT = textwrap.dedent("""
    import torch, torchlite as tl
    from conftest import DTYPES, assert_same, from_torch, make
    for threads in (1, 2):
        tl.set_num_threads(threads)
        for dtype in DTYPES:
            for shape, n in (((37, 300), 290), ((9, 20), 5), ((300000,), 250001)):
                x = make(shape, dtype, seed=n)
                idx = torch.randint(0, shape[-1], shape[:-1] + (n,))
                assert_same(tl.gather(from_torch(x), -1, from_torch(idx)), torch.gather(x, -1, idx), atol=0, rtol=0)
        for bad, where in ((300, (3, 5)), (-1, (36, 289)), (-(2**63), (20, 16))):
            x, idx = torch.randn(37, 300), torch.randint(0, 300, (37, 290))
            idx[where] = bad
            try:
                tl.gather(from_torch(x), 1, from_torch(idx))
            except RuntimeError as e:
                assert f"gather: index {bad} is out of bounds for dimension 1 with size 300" in str(e), str(e)
            else:
                raise AssertionError("no error for index %d" % bad)
    print("ok")
""")


@pytest.mark.parametrize("isa", ["avx2", "generic"])
def test_each_isa_loop(isa):
    # The widest loop runs in this process; the narrower ones need the choice lowered before the first gather.
    env = dict(os.environ, TORCHLITE_GATHER_ISA=isa)
    here = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run([sys.executable, "-c", SCRIPT], cwd=here, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stderr[-3000:]
