"""Ops on the index engine (gather, scatter, scatter_add, index_select, index_add, index_fill,
index_copy, take) against PyTorch: values for every layout, negative dims and indices where
PyTorch allows them, int32 indices, in-place and out= forms, 0-d and empty tensors, bounds errors
(type and message), determinism. Gradients are gradchecked from the YAML samples."""
import numpy as np
import pytest
import torch

import torchlite as tl

LAYOUTS = ["contiguous", "transposed", "sliced", "expanded"]


def make(layout, shape=(4, 6), dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    v = (rng.standard_normal(shape) * 3).astype(dtype)
    pair = (tl.from_numpy(v.copy()), torch.from_numpy(v.copy()))
    if layout == "transposed":
        return tuple(x.t() for x in pair)
    if layout == "sliced":
        return tuple(x[::1, ::2] for x in pair)
    if layout == "expanded":
        return tuple(x[:1].expand(*shape) for x in pair)
    return pair


def idx(values, dtype=np.int64):
    v = np.asarray(values, dtype=dtype)
    return tl.from_numpy(v.copy()), torch.from_numpy(v.copy())


def same(a, b):
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    np.testing.assert_allclose(a.numpy().astype(np.float64), b.numpy().astype(np.float64), rtol=1e-6, atol=1e-6)


def both(fn, *pairs, **kw):
    """Runs fn(lib, *args) with torchlite's and torch's halves of each pair and compares."""
    ours = fn(tl, *[p[0] if isinstance(p, tuple) else p for p in pairs], **kw)
    theirs = fn(torch, *[p[1] if isinstance(p, tuple) else p for p in pairs], **kw)
    same(ours, theirs)
    return ours


def index_for(shape, dim, n, high, seed=1, dtype=np.int64):
    rng = np.random.default_rng(seed)
    s = list(shape)
    s[dim] = n
    return idx(rng.integers(0, high, s), dtype)


# ---------------------------------------------------------------- gather / scatter

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, -1, -2])
@pytest.mark.parametrize("itype", [np.int64, np.int32])
def test_gather(layout, dim, itype):
    x = make(layout)
    shape = tuple(x[0].shape)
    small = (shape[0] - 1, shape[1] - 1)  # index may be smaller than self apart from dim
    i = index_for(small, dim, 7, shape[dim], dtype=itype)
    both(lambda L, a, b: L.gather(a, dim, b), x, i)
    both(lambda L, a, b: a.gather(dim, b), x, i)
    out = tl.empty(0)
    tl.gather(x[0], dim, i[0], out=out)
    same(out, torch.gather(x[1], dim, i[1]))


def test_gather_negative_index_and_bounds():
    x = make("contiguous")
    with pytest.raises(RuntimeError, match="gather: index 6 is out of bounds for dimension 1 with size 6"):
        tl.gather(x[0], 1, tl.tensor([[6]]))
    with pytest.raises(RuntimeError, match="gather: index -1 is out of bounds for dimension 1 with size 6"):
        tl.gather(x[0], 1, tl.tensor([[-1]]))
    with pytest.raises(RuntimeError, match="gather.*Expected dtype int32/int64 for index"):
        tl.gather(x[0], 1, tl.tensor([[1.0]]))
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        tl.gather(x[0], 1, tl.tensor([1]))
    with pytest.raises(RuntimeError, match="Size does not match at dimension 0"):
        tl.gather(x[0], 1, tl.zeros(5, 2, dtype=tl.int64))


def test_gather_zero_d_and_empty():
    both(lambda L: L.gather(L.tensor(5.0), 0, L.tensor(0)))
    both(lambda L: L.gather(L.tensor(5.0), 0, L.tensor([0, 0])))
    both(lambda L: L.gather(L.ones(3, 4), 1, L.zeros(3, 0, dtype=L.int64)))
    both(lambda L: L.gather(L.ones(0, 4), 1, L.zeros(0, 2, dtype=L.int64)))
    with pytest.raises(RuntimeError, match="out of bounds"):
        tl.gather(tl.tensor(5.0), 0, tl.tensor(1))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_scatter_src_value_add(layout, dim):
    x = make(layout)
    shape = tuple(x[0].shape)
    src = make("contiguous", shape=(shape[0] + 1, shape[1] + 1), seed=3)
    # A permutation slice per row: scatter's result is then defined without duplicates.
    n = min(3, shape[dim])
    rng = np.random.default_rng(4)
    s = [shape[0] - 1, shape[1] - 1]
    s[dim] = n
    perm = np.stack([rng.permutation(shape[dim])[:n] for _ in range(s[1 - (dim % 2)])])
    i = idx(perm if dim % 2 == 1 else perm.T)
    both(lambda L, a, b, c: L.scatter(a, dim, b, c), x, i, src)
    both(lambda L, a, b: L.scatter(a, dim, b, 2.5), x, i)
    dup = index_for((shape[0] - 1, shape[1] - 1), dim, shape[dim] + 1, shape[dim])  # duplicates sum
    both(lambda L, a, b, c: L.scatter_add(a, dim, b, c), x, dup, src)
    both(lambda L, a, b, c: a.scatter_add(dim, b, c), x, dup, src)


def test_scatter_inplace_and_out():
    for lib_pair in [(tl, torch)]:
        ours, theirs = [L.zeros(3, 5) for L in lib_pair]
        oi, ti = idx([[0, 4], [1, 1], [2, 0]])
        os_, ts = [L.ones(3, 2) * 2 for L in lib_pair]
        r = ours.scatter_add_(1, oi, os_)
        theirs.scatter_add_(1, ti, ts)
        assert r is ours
        same(ours, theirs)
        ours.scatter_(1, oi, 7.0)
        theirs.scatter_(1, ti, 7.0)
        same(ours, theirs)
        ours.t().scatter_(0, oi.t(), os_.t())
        theirs.t().scatter_(0, ti.t(), ts.t())
        same(ours, theirs)
        out = tl.empty(0)
        tl.scatter(tl.zeros(3, 5), 1, oi, os_, out=out)
        same(out, torch.scatter(torch.zeros(3, 5), 1, ti, ts))


def test_scatter_errors():
    x = tl.zeros(3, 4)
    with pytest.raises(RuntimeError, match="scatter: index 5 is out of bounds for dimension 1 with size 4"):
        tl.scatter(x, 1, tl.tensor([[5]]), 1.0)
    with pytest.raises(RuntimeError, match="scatter_add: index 4 is out of bounds for dimension 1 with size 4"):
        tl.scatter_add(x, 1, tl.tensor([[4]]), tl.ones(3, 4))
    with pytest.raises(RuntimeError, match="Expected self.dtype to be equal to src.dtype"):
        tl.scatter(x, 1, tl.tensor([[0]]), tl.ones(3, 4, dtype=tl.float64))
    with pytest.raises(RuntimeError, match="to be no larger size than src"):
        tl.scatter(x, 1, tl.zeros(3, 5, dtype=tl.int64), tl.ones(3, 4))
    with pytest.raises(RuntimeError, match="out of bounds"):
        tl.scatter(x, 0, tl.tensor([[-1]]), 1.0)


def test_scatter_add_is_deterministic_and_ordered():
    rng = np.random.default_rng(11)
    n = 200000
    index = tl.from_numpy(rng.integers(0, 7, (1, n)))
    src = tl.from_numpy(rng.standard_normal((1, n)).astype(np.float32))
    a = tl.scatter_add(tl.zeros(1, 7), 1, index, src)
    b = tl.scatter_add(tl.zeros(1, 7), 1, index, src)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    expected = np.zeros(7, dtype=np.float32)
    for k, v in zip(index.numpy()[0], src.numpy()[0]):  # sequential float32 sums in index order
        expected[k] += v
    np.testing.assert_array_equal(a.numpy()[0], expected)


# ---------------------------------------------------------------- index_select / index_add / ...

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("itype", [np.int64, np.int32])
def test_index_select(layout, dim, itype):
    x = make(layout)
    n = x[0].shape[dim]
    for values in ([n - 1, 0, n - 1, 1], [], [2]):
        i = idx(values, itype)
        both(lambda L, a, b: L.index_select(a, dim, b), x, i)
        both(lambda L, a, b: a.index_select(dim, b), x, i)
    both(lambda L, a, b: L.index_select(a, dim, b), x, idx(1))  # 0-d index


def test_index_select_errors_and_scalars():
    x = tl.ones(3, 4)
    with pytest.raises(IndexError, match="index_select: index 3 is out of bounds for dimension 0 with size 3"):
        tl.index_select(x, 0, tl.tensor([3]))
    with pytest.raises(IndexError, match="index -1 is out of bounds"):
        tl.index_select(x, 0, tl.tensor([-1]))
    with pytest.raises(IndexError, match="Index is supposed to be a vector"):
        tl.index_select(x, 0, tl.tensor([[0]]))
    both(lambda L: L.index_select(L.tensor(5.0), 0, L.tensor([0])))
    both(lambda L: L.index_select(L.tensor(5.0), 0, L.tensor(0)))
    out = tl.empty(0)
    tl.index_select(x, 1, tl.tensor([0, 0]), out=out)
    assert tuple(out.shape) == (3, 2)
    big, tbig = make("contiguous", shape=(300, 70))
    i = idx(np.random.default_rng(2).integers(0, 300, 1000))
    same(tl.index_select(big, 0, i[0]), torch.index_select(tbig, 0, i[1]))


@pytest.mark.parametrize("layout", LAYOUTS[:3])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_add_copy_fill(layout, dim):
    x = make(layout)
    n = x[0].shape[dim]
    i = idx([n - 1, 0, n - 1])
    shape = list(x[0].shape)
    shape[dim] = 3
    src = make("contiguous", shape=tuple(shape), seed=5)
    both(lambda L, a, b, c: L.index_add(a, dim, b, c), x, i, src)
    both(lambda L, a, b, c: L.index_add(a, dim, b, c, alpha=-2), x, i, src)
    uniq = idx([n - 1, 0, 1])
    both(lambda L, a, b, c: L.index_copy(a, dim, b, c), x, uniq, src)
    both(lambda L, a, b: L.index_fill(a, dim, b, 1.5), x, idx([0, -1]))
    both(lambda L, a, b: a.index_fill(dim, b, L.tensor(-3.0)), x, idx([1]))


def test_index_inplace_out_and_errors():
    ours, theirs = tl.zeros(4, 3), torch.zeros(4, 3)
    r = ours.index_add_(0, tl.tensor([1, 1, 3]), tl.ones(3, 3), alpha=2)
    theirs.index_add_(0, torch.tensor([1, 1, 3]), torch.ones(3, 3), alpha=2)
    assert r is ours
    same(ours, theirs)
    ours.index_copy_(1, tl.tensor([2]), tl.full((4, 1), 9.0))
    theirs.index_copy_(1, torch.tensor([2]), torch.full((4, 1), 9.0))
    same(ours, theirs)
    ours.index_fill_(0, tl.tensor([-4]), -1.0)
    theirs.index_fill_(0, torch.tensor([-4]), -1.0)
    same(ours, theirs)
    out = tl.empty(0)
    tl.index_add(tl.zeros(2, 2), 1, tl.tensor([0, 0]), tl.ones(2, 2), out=out)
    same(out, torch.index_add(torch.zeros(2, 2), 1, torch.tensor([0, 0]), torch.ones(2, 2)))
    with pytest.raises(RuntimeError, match="index_add: index 3 is out of bounds for dimension 0 with size 3"):
        tl.index_add(tl.zeros(3, 2), 0, tl.tensor([3]), tl.ones(1, 2))
    with pytest.raises(RuntimeError, match="index -1 is out of bounds"):
        tl.index_add(tl.zeros(3, 2), 0, tl.tensor([-1]), tl.ones(1, 2))
    with pytest.raises(RuntimeError, match=r"Number of indices \(1\) should be equal to source.size\(dim\)"):
        tl.index_add(tl.zeros(3, 2), 0, tl.tensor([0]), tl.ones(2, 2))
    with pytest.raises(RuntimeError, match="must have the same scalar type"):
        tl.index_add(tl.zeros(3, 2), 0, tl.tensor([0]), tl.ones(1, 2, dtype=tl.float64))
    with pytest.raises(IndexError, match="index_copy: index 3 is out of bounds for dimension 0 with size 3"):
        tl.index_copy(tl.zeros(3, 2), 0, tl.tensor([3]), tl.ones(1, 2))
    with pytest.raises(IndexError, match="index_fill: index 3 is out of bounds for dimension 0 with size 3"):
        tl.index_fill(tl.zeros(3, 2), 0, tl.tensor([3]), 1.0)
    with pytest.raises(IndexError, match="index_fill: index -4 is out of bounds"):
        tl.index_fill(tl.zeros(3, 2), 0, tl.tensor([-4]), 1.0)
    with pytest.raises(RuntimeError, match="0-dimensional value tensor"):
        tl.index_fill(tl.zeros(3, 2), 0, tl.tensor([0]), tl.tensor([1.0]))


# ---------------------------------------------------------------- take

@pytest.mark.parametrize("layout", LAYOUTS)
def test_take(layout):
    x = make(layout)
    numel = x[0].numel()
    i = idx([[0, numel - 1, -1], [-numel, 3, 3]])
    both(lambda L, a, b: L.take(a, b), x, i)
    both(lambda L, a, b: a.take(b), x, i)
    both(lambda L, a, b: L.take(a, b), x, idx(5))
    both(lambda L, a, b: L.take(a, b), x, (i[0].t(), i[1].t()))
    both(lambda L, a: L.take(a, L.zeros(0, dtype=L.int64)), x)


def test_take_errors():
    x = tl.ones(3, 4)
    with pytest.raises(IndexError, match="take: out of range: tried to access index 12 on a tensor of 12 elements"):
        tl.take(x, tl.tensor([12]))
    with pytest.raises(IndexError, match="index -13"):
        tl.take(x, tl.tensor([-13]))
    with pytest.raises(RuntimeError, match="Expected a long tensor for index, but got Int"):
        tl.take(x, tl.tensor([1], dtype=tl.int32))
    with pytest.raises(IndexError):
        tl.take(tl.ones(0), tl.tensor([0]))


# ---------------------------------------------------------------- dtypes, meta, gradients

@pytest.mark.parametrize("dtype", [np.float64, np.float16, np.int64, np.int8, np.uint8, np.bool_])
def test_dtypes(dtype):
    x = (tl.from_numpy(np.arange(12).reshape(3, 4).astype(dtype)), torch.from_numpy(np.arange(12).reshape(3, 4).astype(dtype)))
    i = idx([[0, 3], [2, 2], [1, 0]])
    both(lambda L, a, b: L.gather(a, 1, b), x, i)
    both(lambda L, a, b: L.index_select(a, 1, b[0]), x, i)
    both(lambda L, a, b: L.take(a, b), x, i)
    both(lambda L, a, b: L.index_add(a, 1, b[0], L.index_select(a, 1, b[0])), x, i)
    if dtype != np.bool_:
        both(lambda L, a, b: L.scatter_add(a, 1, b, a), x, i)


def test_meta_shapes():
    m = tl.empty(3, 4, device="meta")
    i = tl.empty(3, 2, dtype=tl.int64, device="meta")
    assert tuple(tl.gather(m, 1, i).shape) == (3, 2)
    assert tuple(tl.scatter(m, 1, i, 1.0).shape) == (3, 4)
    assert tuple(tl.index_select(m, 0, tl.empty(5, dtype=tl.int64, device="meta")).shape) == (5, 4)


def test_gather_backward_matches_torch():
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((3, 5))
    iv = np.array([[0, 0, 4], [1, 2, 1], [3, 3, 3]])
    ours = tl.from_numpy(xv.copy()).requires_grad_()
    theirs = torch.from_numpy(xv.copy()).requires_grad_()
    (tl.gather(ours, 1, tl.from_numpy(iv)) * 3).sum().backward()
    (torch.gather(theirs, 1, torch.from_numpy(iv)) * 3).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy())


def _outcome(fn):
    try:
        return fn()
    except (RuntimeError, IndexError) as e:
        return type(e)


@pytest.mark.parametrize("seed", range(6))
def test_random_indices_match_torch_or_raise_alike(seed):
    """Random shapes (empty and 0-d included), index values in and out of range, int32/int64:
    torchlite gives PyTorch's values, or raises where PyTorch raises."""
    rng = np.random.default_rng(100 + seed)
    for _ in range(40):
        nd = int(rng.integers(0, 4))
        shape = tuple(int(s) for s in rng.integers(0, 4, nd))
        x = rng.standard_normal(shape).astype(np.float32)
        a, b = tl.from_numpy(x.copy()), torch.from_numpy(x.copy())
        dim = int(rng.integers(-max(nd, 1), max(nd, 1)))
        size = shape[dim] if nd else 1
        itype = np.int64 if rng.random() < 0.7 else np.int32
        ishape = tuple(int(rng.integers(0, s + 1)) if i != dim % max(nd, 1) else int(rng.integers(0, 5))
                       for i, s in enumerate(shape))
        iv = rng.integers(-size - 1, size + 2, ishape).astype(itype)
        vec = rng.integers(-size - 1, size + 2, int(rng.integers(0, 5))).astype(itype)
        cases = [
            lambda L, A, I, V: L.gather(A, dim, I),
            lambda L, A, I, V: L.scatter_add(A, dim, I, L.ones(I.shape, dtype=A.dtype)),
            lambda L, A, I, V: L.scatter(A, dim, I, 1.5),
            lambda L, A, I, V: L.index_select(A, dim, V),
            lambda L, A, I, V: L.index_fill(A, dim, V.long(), -1.0),
            lambda L, A, I, V: L.take(A, I.long()),
        ]
        ours_i, theirs_i = tl.from_numpy(iv.copy()), torch.from_numpy(iv.copy())
        ours_v, theirs_v = tl.from_numpy(vec.copy()), torch.from_numpy(vec.copy())
        for n, case in enumerate(cases):
            if n == 4 and x.size == 0:
                continue  # index_fill of an empty self: PyTorch sometimes fails inside its own view code
            got = _outcome(lambda: case(tl, a, ours_i, ours_v))
            want = _outcome(lambda: case(torch, b, theirs_i, theirs_v))
            if isinstance(want, type) or isinstance(got, type):
                # Both raise (PyTorch's type varies with internal code paths in degenerate cases:
                # empty or 0-d self, last dim; the documented cases are checked in the tests above).
                assert isinstance(got, type) and isinstance(want, type), (case, shape, dim, iv, vec, got, want)
                continue
            same(got, want)
