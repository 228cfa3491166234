"""scatter_reduce (PyTorch's scatter_reduce.two) and index_reduce against PyTorch, beyond the generated
suites' samples: duplicates with NaN, integer means (floor), include_self=False with positions nothing
lands on, and the gradients at zeros (prod) and ties (amax/amin), where finite differences say
nothing."""
import pytest
import torch

import torchlite as tl
from conftest import to_torch

REDUCES = ["sum", "prod", "mean", "amax", "amin"]


def run_both(fn):
    out = []
    for lib in (tl, torch):
        try:
            out.append(("ok", fn(lib).tolist()))
        except Exception as e:  # noqa: BLE001 - compared with PyTorch's
            out.append((type(e).__name__, None))
    return out


def close(a, b):
    assert a[0] == b[0], (a, b)
    if a[0] == "ok":
        ta, tb = torch.tensor(a[1]), torch.tensor(b[1])
        assert torch.allclose(ta.double(), tb.double(), equal_nan=True, rtol=1e-6, atol=0), (a, b)


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int16", "uint8", "bool", "float16"])
def test_scatter_reduce_duplicates(reduce, include_self, dtype):
    def fn(lib):
        dt = getattr(lib, dtype)
        self_ = lib.tensor([[1, 2, 3, 4], [5, 6, 7, 8]]).to(dt)
        src = lib.tensor([[9, 3, 2, 7, 1], [4, 4, 6, 1, 2]]).to(dt)
        index = lib.tensor([[0, 0, 2, 2, 0], [3, 1, 1, 1, 3]])
        return self_.scatter_reduce(1, index, src, reduce, include_self=include_self)
    close(*run_both(fn))


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_nan_and_negative_means(reduce, include_self):
    def fn(lib):
        s = lib.tensor([1.0, 2.0, float("nan"), 4.0, -3.0])
        src = lib.tensor([5.0, float("nan"), 7.0, -1.0, 2.0, -8.0])
        return s.scatter_reduce(0, lib.tensor([0, 0, 2, 1, 4, 4]), src, reduce, include_self=include_self)
    close(*run_both(fn))
    def fn_int(lib):
        s = lib.tensor([1, -2, 3, -4])
        return s.scatter_reduce(0, lib.tensor([0, 1, 1, 3, 3, 3]), lib.tensor([-4, 3, -6, 2, 2, 1]), reduce,
                                include_self=include_self)
    close(*run_both(fn_int))


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "int64", "int8", "bfloat16", "bool"])
def test_index_reduce_values(reduce, include_self, dtype):
    def fn(lib):
        dt = getattr(lib, dtype)
        self_ = lib.tensor([[1, -2], [3, 4], [5, 6], [0, 1]]).to(dt)
        source = lib.tensor([[5, -6], [7, 1], [-3, 2], [2, 2]]).to(dt)
        return self_.index_reduce(0, lib.tensor([0, 2, 0, 0]), source, reduce, include_self=include_self)
    close(*run_both(fn))


def test_in_place_and_out_forms():
    def inplace(lib):
        x = lib.ones(2, 3)
        r = x.scatter_reduce_(1, lib.tensor([[0, 0], [2, 1]]), lib.full((2, 2), 3.0), "sum")
        assert r is x
        y = lib.ones(3, 2)
        assert y.index_reduce_(0, lib.tensor([1, 1]), lib.full((2, 2), 2.0), "prod") is y
        o = lib.empty(0)
        lib.scatter_reduce(lib.ones(2, 3), 1, lib.tensor([[0], [2]]), lib.full((2, 1), 5.0), "amax", out=o)
        o2 = lib.empty(0)
        lib.index_reduce(lib.ones(3, 2), 0, lib.tensor([2]), lib.full((1, 2), -1.0), "amin", out=o2)
        return lib.cat([x.reshape(-1), y.reshape(-1), o.reshape(-1), o2.reshape(-1)])
    close(*run_both(inplace))


@pytest.mark.parametrize("case", [
    lambda lib: lib.ones(3).scatter_reduce(0, lib.tensor([0]), lib.ones(1), "foo"),
    lambda lib: lib.ones(3).scatter_reduce(0, lib.tensor([0]), lib.ones(1, dtype=lib.float64), "sum"),
    lambda lib: lib.ones(3).scatter_reduce(0, lib.tensor([5]), lib.ones(1), "sum"),
    lambda lib: lib.ones(3).scatter_reduce(0, lib.tensor([0.0]), lib.ones(1), "sum"),
    lambda lib: lib.ones(3).scatter_reduce(0, lib.tensor([0, 1]), lib.ones(1), "sum"),
    lambda lib: lib.ones(3, dtype=lib.bool).scatter_reduce(0, lib.tensor([0]), lib.ones(1, dtype=lib.bool), "mean"),
    lambda lib: lib.ones(3, 2).index_reduce(0, lib.tensor([0]), lib.ones(1, 2), "sum"),
    lambda lib: lib.ones(3, 2).index_reduce(0, lib.tensor([3]), lib.ones(1, 2), "mean"),
    lambda lib: lib.ones(3, 2).index_reduce(0, lib.tensor([-1]), lib.ones(1, 2), "mean"),
    lambda lib: lib.ones(3, 2).index_reduce(0, lib.tensor([0, 1]), lib.ones(1, 2), "mean"),
    lambda lib: lib.ones(3, 2).index_reduce(0, lib.tensor([[0]]), lib.ones(1, 2), "mean"),
    lambda lib: lib.ones(3, 2).index_reduce(0, lib.tensor([0.0]), lib.ones(1, 2), "mean"),
    lambda lib: lib.ones(3, 2).index_reduce(0, lib.tensor([0]), lib.ones(1, 3), "mean"),
    lambda lib: lib.ones(3, 2).index_reduce(0, lib.tensor([0]), lib.ones(1, 2, dtype=lib.float64), "mean"),
    lambda lib: lib.ones(3, dtype=lib.bool).index_reduce(0, lib.tensor([0]), lib.ones(1, dtype=lib.bool), "amax"),
    lambda lib: lib.ones(3, 2).index_reduce(2, lib.tensor([0]), lib.ones(1, 2), "mean"),
])
def test_errors_match_torch(case):
    got, expected = run_both(case)
    assert got[0] == expected[0] and got[0] != "ok", (got, expected)


def grads(lib, fn, *values):
    leaves = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values]
    out = fn(lib, *leaves)
    out.backward(lib.arange(1.0, out.numel() + 1, dtype=lib.float64).reshape(out.shape))
    return [leaf.grad for leaf in leaves]


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("values", [
    ([[2.0, 0.0, 3.0, 1.0]], [[0.0, 5.0, 0.0, 2.0, 0.0]]),   # zeros: single and double per position
    ([[2.0, 5.0, 3.0, 1.0]], [[5.0, 5.0, 3.0, 2.0, 1.0]]),   # ties between self and src, and within src
])
def test_scatter_reduce_gradients_at_zeros_and_ties(reduce, include_self, values):
    index = [[1, 1, 0, 3, 1]]
    def fn(lib, s, src):
        return s.scatter_reduce(1, lib.tensor(index), src, reduce, include_self=include_self)
    for g, e in zip(grads(tl, fn, *values), grads(torch, fn, *values)):
        assert torch.allclose(to_torch(g), e, equal_nan=True), (g, e)


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_gradients_at_zeros_and_ties(reduce, include_self):
    values = ([[2.0, 0.0], [5.0, 1.0], [3.0, 3.0]], [[0.0, 1.0], [5.0, 0.0], [2.0, 3.0], [5.0, 3.0]])
    def fn(lib, s, src):
        return s.index_reduce(0, lib.tensor([1, 0, 1, 1]), src, reduce, include_self=include_self)
    for g, e in zip(grads(tl, fn, *values), grads(torch, fn, *values)):
        assert torch.allclose(to_torch(g), e, equal_nan=True), (g, e)


def test_src_larger_than_index_fails_at_backward_as_in_torch():
    for lib in (tl, torch):
        s = lib.zeros(2, 3, requires_grad=True)
        src = lib.ones(2, 3, requires_grad=True)
        out = s.scatter_reduce(1, lib.tensor([[0], [1]]), src, "sum")
        with pytest.raises(RuntimeError):
            out.sum().backward()


@pytest.mark.parametrize("shape,dim", [((50, 70), 0), ((6, 40, 9), 1), ((6, 40, 9), 0), ((30, 20), 0), ((5, 8), 1)])
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.float16])
def test_index_reduce_larger_against_torch(shape, dim, reduce, include_self, dtype):
    # Blocks after dim (the vectorized path), slices along the last dim (the engine's path), duplicates.
    g = torch.Generator().manual_seed(hash((shape, dim)) % 1000)
    s = (torch.randn(shape, generator=g) * 3).to(dtype)
    n = 2 * shape[dim]
    idx = torch.randint(0, shape[dim], (n,), generator=g)
    src_shape = list(shape)
    src_shape[dim] = n
    src = (torch.randn(src_shape, generator=g) * 3).to(dtype)
    expected = s.index_reduce(dim, idx, src, reduce, include_self=include_self)
    got = tl.tensor(s.tolist(), dtype=getattr(tl, str(dtype).split(".")[1])).index_reduce(
        dim, tl.tensor(idx.tolist()), tl.tensor(src.tolist(), dtype=getattr(tl, str(dtype).split(".")[1])), reduce,
        include_self=include_self)
    rtol = 1e-3 if dtype == torch.float16 else 1e-6
    assert torch.allclose(to_torch(got).double(), expected.double(), equal_nan=True, rtol=rtol)
    # out= into a transposed tensor and self given transposed take the engine's path: same values
    t_self = tl.tensor(s.tolist(), dtype=getattr(tl, str(dtype).split(".")[1])).t().contiguous().t() \
        if len(shape) == 2 else None
    if t_self is not None:
        got_t = t_self.index_reduce(dim, tl.tensor(idx.tolist()),
                                    tl.tensor(src.tolist(), dtype=getattr(tl, str(dtype).split(".")[1])), reduce,
                                    include_self=include_self)
        assert torch.allclose(to_torch(got_t).double(), expected.double(), equal_nan=True, rtol=rtol)
