"""The data movers on complex tensors against torch: gather/scatter (src, value, add, reduce= add/multiply),
scatter_reduce (sum/prod/mean; amax/amin refused), index_add (complex alpha), index_fill/index_copy,
index_reduce (prod/mean; PyTorch's refusals), masked_fill/masked_scatter/masked_select, put_, index_put
(accumulate), take, take_along_dim and advanced indexing, in complex64/complex128 with strided inputs;
gradients of real losses against PyTorch's, and PyTorch's errors (complex values into real tensors,
scatter_reduce/index_reduce autograd for complex outputs)."""
import warnings

import numpy as np
import pytest
import torch

import torchlite as tl

RNG = np.random.default_rng(3)
COMPLEX = ["complex64", "complex128"]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def cplx(*shape, dtype="complex128"):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def close(got, want):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    tol = 1e-5 if got.dtype == tl.complex64 else 1e-12
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=tol, atol=tol)


def lib_args(m, args):
    return [m.tensor(a) if isinstance(a, np.ndarray) else a for a in args]


IDX2 = np.array([[0, 2, 1], [3, 3, 0]])           # gather/scatter index, dim 1 of a (2, 4) self
IDX2_DIM0 = np.array([[1, 0, 1, 1], [0, 0, 1, 0]])  # dim 0
VEC = np.array([3, 0, 3])                          # index_add / index_reduce vector (duplicates)
PERM = np.array([2, 0])                            # index_copy (unique)
MASK = np.array([[True, False, True, True], [False, True, False, False]])

CASES = {
    "gather": lambda m, x, s: m.gather(x, 1, m.tensor(IDX2)),
    "gather_dim0": lambda m, x, s: m.gather(x, 0, m.tensor(IDX2_DIM0)),
    "gather_method_neg_dim": lambda m, x, s: x.gather(-1, m.tensor(IDX2)),
    "take_along_dim": lambda m, x, s: m.take_along_dim(x, m.tensor(IDX2), 1),
    "scatter_src": lambda m, x, s: m.scatter(x, 1, m.tensor(IDX2[:, :1]), s[:, :1]),
    "scatter_value": lambda m, x, s: m.scatter(x, 1, m.tensor(IDX2[:, :1]), 2 - 1j),
    "scatter_value_real_number": lambda m, x, s: m.scatter(x, 0, m.tensor(IDX2_DIM0), 1.5),
    "scatter_add": lambda m, x, s: m.scatter_add(x, 1, m.tensor(IDX2), s),
    "scatter_reduce_add": lambda m, x, s: m.scatter(x, 1, m.tensor(IDX2), s, reduce="add"),
    "scatter_reduce_multiply": lambda m, x, s: m.scatter(x, 1, m.tensor(IDX2), s, reduce="multiply"),
    "scatter_value_multiply": lambda m, x, s: m.scatter(x, 1, m.tensor(IDX2), 1j, reduce="multiply"),
    "scatter_reduce_sum": lambda m, x, s: m.scatter_reduce(x, 1, m.tensor(IDX2), s, "sum"),
    "scatter_reduce_prod": lambda m, x, s: m.scatter_reduce(x, 1, m.tensor(IDX2), s, "prod"),
    "scatter_reduce_prod_excl": lambda m, x, s: m.scatter_reduce(x, 1, m.tensor(IDX2), s, "prod", include_self=False),
    "scatter_reduce_mean": lambda m, x, s: m.scatter_reduce(x, 1, m.tensor(IDX2), s, "mean"),
    "scatter_reduce_mean_excl": lambda m, x, s: m.scatter_reduce(x, 0, m.tensor(IDX2_DIM0), x, "mean",
                                                                 include_self=False),
    "index_add": lambda m, x, s: m.index_add(x.t().contiguous(), 0, m.tensor(VEC), s.t()),
    "index_add_alpha": lambda m, x, s: m.index_add(x, 1, m.tensor(VEC), s, alpha=2 - 0.5j),
    "index_add_real_alpha": lambda m, x, s: x.index_add(1, m.tensor(VEC), s, alpha=3),
    "index_fill": lambda m, x, s: m.index_fill(x, 1, m.tensor([0, -1]), 1 - 2j),
    "index_fill_tensor": lambda m, x, s: x.index_fill(0, m.tensor([1]), m.tensor(0.5j, dtype=x.dtype)),
    "index_copy": lambda m, x, s: m.index_copy(x, 1, m.tensor(PERM), s[:, :2]),
    "index_reduce_prod": lambda m, x, s: m.index_reduce(x, 1, m.tensor(VEC), s, "prod"),
    "index_reduce_mean": lambda m, x, s: m.index_reduce(x, 1, m.tensor(VEC), s, "mean"),
    "index_select": lambda m, x, s: m.index_select(x, 1, m.tensor(VEC)),
    "masked_fill": lambda m, x, s: m.masked_fill(x, m.tensor(MASK), 3j),
    "masked_fill_real_value": lambda m, x, s: x.masked_fill(m.tensor(MASK[1]), -2.0),
    "masked_fill_tensor": lambda m, x, s: m.masked_fill(x, m.tensor(MASK), m.tensor(1 + 1j, dtype=x.dtype)),
    "masked_scatter": lambda m, x, s: m.masked_scatter(x, m.tensor(MASK), s.reshape(-1).flip(0)),
    "masked_select": lambda m, x, s: m.masked_select(x, m.tensor(MASK)),
    "put": lambda m, x, s: m.put(x, m.tensor([7, 0, -1]), s.reshape(-1)[:3]),
    "put_accumulate": lambda m, x, s: m.put(x, m.tensor([7, 0, -1]), s.reshape(-1)[:3], accumulate=True),
    "take": lambda m, x, s: m.take(x, m.tensor([[7, 0], [-1, 2]])),
    "index_put": lambda m, x, s: m.index_put(x, (m.tensor([1, 0]),), s[:, :1]),
    "index_put_accumulate": lambda m, x, s: m.index_put(x, (m.tensor([1, 1]), m.tensor([2, 2])),
                                                        s[0, :2], accumulate=True),
    "advanced_index": lambda m, x, s: x[m.tensor([1, 0, 1]), m.tensor([3, 3, 0])],
    "bool_index": lambda m, x, s: x[m.tensor(MASK)],
}


def make(m, dtype, strided):
    """self (2, 4) and src (2, 3), contiguous or as strided views of larger tensors."""
    x, s = CASE_DATA[dtype]
    xt, st = m.tensor(x), m.tensor(s)
    if strided:
        return xt.t()[::2].t(), st[:, ::2]
    return xt[:, :4].contiguous(), st[:, :3].contiguous()


CASE_DATA = {d: (cplx(8, 2, dtype=d).T.copy(), cplx(2, 6, dtype=d)) for d in COMPLEX}


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("strided", [False, True], ids=["contiguous", "strided"])
def test_values(name, dtype, strided):
    got = CASES[name](tl, *make(tl, dtype, strided))
    want = CASES[name](torch, *make(torch, dtype, strided))
    close(got, want)


INPLACE = {
    "scatter_": lambda x, m, s: x.scatter_(1, m.tensor(IDX2), s),
    "scatter_add_": lambda x, m, s: x.scatter_add_(1, m.tensor(IDX2), s),
    "index_add_": lambda x, m, s: x.index_add_(1, m.tensor(VEC), s, alpha=1j),
    "index_fill_": lambda x, m, s: x.index_fill_(1, m.tensor([1]), -1j),
    "index_copy_": lambda x, m, s: x.index_copy_(1, m.tensor(PERM), s[:, :2]),
    "masked_fill_": lambda x, m, s: x.masked_fill_(m.tensor(MASK), 2j),
    "masked_scatter_": lambda x, m, s: x.masked_scatter_(m.tensor(MASK), s),
    "put_": lambda x, m, s: x.put_(m.tensor([1, 1]), s[0, :2], accumulate=True),
    "index_put_": lambda x, m, s: x.index_put_((m.tensor([0]),), s[0, :1]),
    "scatter_reduce_": lambda x, m, s: x.scatter_reduce_(1, m.tensor(IDX2), s, "mean"),
    "index_reduce_": lambda x, m, s: x.index_reduce_(1, m.tensor(VEC), s, "prod"),
}


@pytest.mark.parametrize("name", list(INPLACE))
@pytest.mark.parametrize("dtype", COMPLEX)
def test_inplace(name, dtype):
    results = []
    for m in (tl, torch):
        x, s = make(m, dtype, False)
        r = INPLACE[name](x, m, s)
        assert r is x
        results.append(x)
    close(*results)


def test_out():
    for dtype in COMPLEX:
        results = []
        for m in (tl, torch):
            x, s = make(m, dtype, False)
            out = m.empty(0, dtype=x.dtype)
            m.gather(x, 1, m.tensor(IDX2), out=out)
            o2 = m.empty(0, dtype=x.dtype)
            m.scatter_add(x, 1, m.tensor(IDX2), s, out=o2)
            results.append((out, o2))
        for got, want in zip(*results):
            close(got, want)


def test_large_gathers_take_the_fast_paths():
    """gather along the last dim (rows of >= 16) and an outer dim: the layouts the real fast paths take."""
    for dtype in COMPLEX:
        a = cplx(6, 40, dtype=dtype)
        idx_last = RNG.integers(0, 40, (6, 40))
        idx_outer = RNG.integers(0, 6, (3, 40))
        for i, d in ((idx_last, 1), (idx_outer, 0)):
            close(tl.gather(tl.tensor(a), d, tl.tensor(i)), torch.gather(torch.tensor(a), d, torch.tensor(i)))


def grads(m, fn, x_np, s_np):
    x = m.tensor(x_np, requires_grad=True)
    s = m.tensor(s_np, requires_grad=True)
    out = fn(m, x, s)
    r = m.view_as_real(out)
    w = m.tensor(np.linspace(-1, 2, r.numel()).reshape(tuple(r.shape)), dtype=r.dtype)
    (r * w).sum().backward()
    return out, x.grad, s.grad


GRAD_CASES = {k: CASES[k] for k in (
    "gather", "gather_dim0", "take_along_dim", "scatter_src", "scatter_add", "index_add", "index_add_alpha",
    "index_add_real_alpha", "index_copy", "index_select", "masked_fill", "masked_scatter", "masked_select", "put",
    "put_accumulate", "take", "index_put", "index_put_accumulate", "advanced_index", "bool_index", "index_fill")}
GRAD_CASES["masked_fill_tensor_value"] = lambda m, x, s: m.masked_fill(x, m.tensor(MASK), s[0, 0])
GRAD_CASES["index_fill_tensor_value"] = lambda m, x, s: m.index_fill(x, 1, m.tensor([1, 3]), s[1, 2])


@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_gradients(name):
    x_np, s_np = CASE_DATA["complex128"][0][:, :4].copy(), CASE_DATA["complex128"][1][:, :3].copy()
    got = grads(tl, GRAD_CASES[name], x_np, s_np)
    want = grads(torch, GRAD_CASES[name], x_np, s_np)
    for g, w in zip(got, want):
        if w is None:
            assert g is None
        else:
            close(g, w)


def test_real_input_gradients_through_complex_movers():
    """A real leaf made complex before the mover: its gradient is the real part PyTorch's engine keeps."""
    x_np = RNG.standard_normal((2, 4))
    results = []
    for m in (tl, torch):
        x = m.tensor(x_np, requires_grad=True)
        y = m.scatter_add(x.to(m.complex128) * (1 + 2j), 1, m.tensor(IDX2), m.ones(2, 3, dtype=m.complex128))
        m.view_as_real(y).pow(2).sum().backward()
        results.append(x.grad)
    close(results[0].to(tl.complex128), results[1].to(torch.complex128))


ERRORS = [
    (RuntimeError, "value cannot be converted to type float without overflow",
     lambda m: m.masked_fill(m.ones(2, 4), m.tensor(MASK), 3j)),
    (RuntimeError, "value cannot be converted to type float without overflow",
     lambda m: m.masked_fill(m.ones(2, 4), m.tensor(MASK), m.tensor(3j))),
    (RuntimeError, "value cannot be converted to type float without overflow",
     lambda m: m.scatter(m.ones(2, 4), 1, m.tensor(IDX2), 2 + 1j)),
    (RuntimeError, "value cannot be converted to type float without overflow",
     lambda m: m.index_add(m.ones(2, 4), 1, m.tensor(VEC), m.ones(2, 3), alpha=1j)),
    (RuntimeError, "index_fill_\\(\\): Converting complex Scalar to non-complex type is not supported",
     lambda m: m.index_fill(m.ones(2, 4), 1, m.tensor([1]), 1j)),
    (NotImplementedError, "\"scatter_gather_tensor_cpu_reduce_amax\" not implemented for 'ComplexFloat'",
     lambda m: m.scatter_reduce(m.ones(2, 4, dtype=m.complex64), 1, m.tensor(IDX2),
                                m.ones(2, 3, dtype=m.complex64), "amax")),
    (NotImplementedError, "\"scatter_gather_tensor_cpu_reduce_amin\" not implemented for 'ComplexDouble'",
     lambda m: m.scatter_reduce(m.ones(2, 4, dtype=m.complex128), 1, m.tensor(IDX2),
                                m.ones(2, 3, dtype=m.complex128), "amin", include_self=False)),
    (NotImplementedError, "\"maximum_cpu\" not implemented for 'ComplexFloat'",
     lambda m: m.index_reduce(m.ones(2, 4, dtype=m.complex64), 1, m.tensor(VEC), m.ones(2, 3, dtype=m.complex64),
                              "amax")),
    (NotImplementedError, "\"index_reduce_func_exclude_input_init\" not implemented for 'ComplexFloat'",
     lambda m: m.index_reduce(m.ones(2, 4, dtype=m.complex64), 1, m.tensor(VEC), m.ones(2, 3, dtype=m.complex64),
                              "prod", include_self=False)),
    (NotImplementedError, "\"index_func_\" not implemented for 'ComplexFloat'",
     lambda m: m.index_reduce(m.ones(4, dtype=m.complex64), 0, m.tensor(VEC), m.ones(3, dtype=m.complex64), "mean")),
    (RuntimeError, "scatter_reduce does not support automatic differentiation for outputs with complex dtype",
     lambda m: m.scatter_reduce(m.ones(2, 4, dtype=m.complex64, requires_grad=True), 1, m.tensor(IDX2),
                                m.ones(2, 3, dtype=m.complex64), "sum")),
    (RuntimeError, "index_reduce does not support automatic differentiation for outputs with complex dtype",
     lambda m: m.index_reduce(m.ones(2, 4, dtype=m.complex64), 1, m.tensor(VEC),
                              m.ones(2, 3, dtype=m.complex64, requires_grad=True), "prod")),
    (RuntimeError, "derivative for aten::scatter is not implemented",
     lambda m: m.view_as_real(m.scatter(m.ones(2, 4, dtype=m.complex64, requires_grad=True), 1, m.tensor(IDX2),
                                        m.ones(2, 3, dtype=m.complex64), reduce="add")).sum().backward()),
    (RuntimeError, "Expected self.dtype to be equal to src.dtype",
     lambda m: m.scatter(m.ones(2, 4, dtype=m.complex64), 1, m.tensor(IDX2), m.ones(2, 3, dtype=m.complex128))),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors_like_torch(case):
    kind, pattern, call = ERRORS[case]
    for m in (torch, tl):
        with pytest.raises(kind, match=pattern):
            call(m)


def test_real_autograd_ops_work_without_grad():
    """The complex-autograd refusal is for recorded calls only: no_grad and plain inputs compute."""
    for m in (tl, torch):
        x = m.ones(2, 4, dtype=m.complex64, requires_grad=True)
        with m.no_grad():
            m.scatter_reduce(x, 1, m.tensor(IDX2), m.ones(2, 3, dtype=m.complex64), "sum")
    close(tl.scatter_reduce(tl.ones(2, 4, dtype=tl.complex64), 1, tl.tensor(IDX2), tl.ones(2, 3, dtype=tl.complex64),
                            "mean"),
          torch.scatter_reduce(torch.ones(2, 4, dtype=torch.complex64), 1, torch.tensor(IDX2),
                               torch.ones(2, 3, dtype=torch.complex64), "mean"))
