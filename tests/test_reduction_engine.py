"""The reductions on the reduction engine against PyTorch: prod, amax/amin, max/min (all and .dim), argmax/argmin,
aminmax, any/all, count_nonzero, var/std (and var_mean/std_mean), logsumexp, and frexp (multi-output elementwise):
values, dtypes, dims/keepdim, layouts, empty and 0-d inputs, NaN and tie rules, out=, meta, errors; plus the
reliability regressions of issue 7 (sum accuracy, overflow-safe chunks, 0-d mean gradient, integer dtype= with
autograd)."""
import math

import pytest
import torch

import torchlite as tl
from conftest import (DTYPES, FLOAT_DTYPES, LAYOUTS, assert_same, expect_like_torch, from_torch, layout, make,
                      torch_result)

DIMS_ONE = [0, 1, 2, -1, -3]
DIMS_LIST = [0, -1, (0, 2), (2, 0), [1, 2], (0, 1, 2)]


def same_tuple(got, expected, **tol):
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert_same(g, e, **tol)


def both(op, x, a, *args, check=None, **kwargs):
    """torchlite.op(x, ...) against torch.op(a, ...), as functions and as methods when the method exists."""
    expect_like_torch(lambda: getattr(tl, op)(x, *args, **kwargs), lambda: getattr(torch, op)(a, *args, **kwargs),
                      check=check)
    if hasattr(a, op) and hasattr(x, op):
        expect_like_torch(lambda: getattr(x, op)(*args, **kwargs), lambda: getattr(a, op)(*args, **kwargs),
                          check=check)


# ---------------------------------------------------------------- values over dtypes, dims and layouts

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", ["prod", "amax", "amin", "max", "min", "argmax", "argmin", "any", "all",
                                "count_nonzero", "aminmax"])
def test_all_elements_every_dtype(op, dtype):
    a = make((3, 5), dtype, 1, low=-2, high=3)
    check = same_tuple if op == "aminmax" else None
    both(op, from_torch(a), a, check=check)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", DIMS_ONE)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("op", ["prod", "amax", "amin", "argmax", "argmin", "any", "all", "count_nonzero"])
def test_one_dim(op, dtype, dim, keepdim):
    a = make((2, 3, 4), dtype, 2, low=-2, high=3)
    kw = {} if op == "count_nonzero" else {"keepdim": keepdim}
    both(op, from_torch(a), a, dim, **kw)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", DIMS_ONE)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_dim_values_and_indices(op, dtype, dim, keepdim):
    a = make((2, 3, 4), dtype, 3, low=-2, high=3)  # few distinct values: many ties, the first wins
    both(op, from_torch(a), a, dim, keepdim=keepdim, check=same_tuple)
    both(op, from_torch(a), a, dim=dim, keepdim=keepdim, check=same_tuple)


@pytest.mark.parametrize("dim", DIMS_LIST + [None])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("op", ["amax", "amin", "any", "all"])
def test_dim_lists(op, dim, keepdim):
    a = make((2, 3, 4), "float32", 4)
    if dim is None:
        if op in ("amax", "amin"):
            return  # amax has no None (its default is [])
        both(op, from_torch(a), a, keepdim=keepdim)
        return
    both(op, from_torch(a), a, dim, keepdim=keepdim)


@pytest.mark.parametrize("dim", [None, 0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_aminmax(dim, keepdim):
    a = make((4, 5), "float64", 5)
    both("aminmax", from_torch(a), a, dim=dim, keepdim=keepdim, check=same_tuple)


@pytest.mark.parametrize("kind", LAYOUTS)
@pytest.mark.parametrize("op", ["prod", "amax", "amin", "argmax", "argmin", "max", "min", "any", "all",
                                "count_nonzero", "var", "std", "logsumexp"])
def test_layouts(op, kind):
    a, x = layout(make((6, 7), "float64", 6, low=0.5, high=1.5), kind)
    for dim in (0, 1):
        check = same_tuple if op in ("max", "min") else None
        both(op, x, a, dim, check=check)
    if op not in ("logsumexp",):
        both(op, x, a, check=same_tuple if op == "aminmax" else None)


def test_argmax_flat_index_of_transposed_follows_logical_order():
    a = torch.tensor([[1., 9.], [9., 3.]])  # ties at flat 1 and 2; the transposed view has them at 1 and 2 too
    for t in (a, a.t()):
        x = from_torch(t.contiguous()) if t.is_contiguous() else from_torch(a).t()
        assert tl.argmax(x).item() == torch.argmax(t).item()
        assert tl.argmin(x).item() == torch.argmin(t).item()


@pytest.mark.parametrize("shape,dim", [((1000, 3000), 0), ((1000, 3000), 1), ((3, 100000), 1), ((100000, 3), 0),
                                       ((7, 1, 50000), 2), ((64, 64, 64), (0, 2))])
@pytest.mark.parametrize("op", ["amax", "argmax", "argmin", "max", "prod", "var", "any"])
def test_large_inner_and_outer(op, shape, dim):
    """Big enough to split into threads and reduction chunks, in both the inner and the outer engine paths."""
    a = make(shape, "float32", 7, low=-1, high=1)
    if op == "prod":
        a = 1 + a * 1e-4
    if op == "any":
        a = (a > 0.9999).float()
    if isinstance(dim, tuple) and op in ("argmax", "argmin", "max"):
        return
    check = same_tuple if op == "max" else None
    tol = {"atol": 1e-5, "rtol": 1e-4} if op in ("prod", "var") else {}
    x = from_torch(a)
    expect_like_torch(lambda: getattr(tl, op)(x, dim), lambda: getattr(torch, op)(a, dim),
                      check=check or (lambda g, e: assert_same(g, e, **tol)))


# ---------------------------------------------------------------- NaN, ties, empty, 0-d

@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_nan_wins(dtype):
    nan = float("nan")
    a = torch.tensor([[1., nan, 3., nan], [4., 4., 2., 4.], [-1., -5., -5., nan]], dtype=getattr(torch, dtype))
    x = from_torch(a)
    for op in ["amax", "amin", "argmax", "argmin"]:
        both(op, x, a, 1)
        both(op, x, a)
    for op in ["max", "min"]:
        both(op, x, a, 1, check=same_tuple)
        both(op, x, a, 0, check=same_tuple)
        both(op, x, a)
    both("aminmax", x, a, dim=1, check=same_tuple)


def test_ties_give_first_index_in_long_rows():
    a = torch.zeros(3, 5000)
    a[0, 4000] = a[0, 4100] = 1
    a[1, 17] = a[1, 4999] = 1
    x = from_torch(a)
    assert tl.argmax(x, 1).tolist() == torch.argmax(a, 1).tolist()
    assert tl.argmin(x, 1).tolist() == torch.argmin(a, 1).tolist()
    assert tl.argmax(x.t(), 0).tolist() == torch.argmax(a.t(), 0).tolist()
    assert tl.argmax(x).item() == torch.argmax(a).item()


@pytest.mark.parametrize("op", ["prod", "amax", "amin", "max", "min", "argmax", "argmin", "aminmax", "any", "all",
                                "count_nonzero", "var", "std", "logsumexp"])
@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0)])
def test_empty(op, shape):
    a = torch.empty(shape)
    x = from_torch(a)
    check = same_tuple if op == "aminmax" else None
    if op != "logsumexp":
        expect_like_torch(lambda: getattr(tl, op)(x), lambda: getattr(torch, op)(a), check=check)
    for dim in range(len(shape)):
        check = same_tuple if op in ("max", "min", "aminmax") else None
        kw = {"dim": dim}
        expect_like_torch(lambda: getattr(tl, op)(x, **kw), lambda: getattr(torch, op)(a, **kw), check=check)


def test_empty_error_messages():
    e = tl.empty(0, 3)
    with pytest.raises(RuntimeError, match=r"max\(\): Expected reduction dim to be specified for input.numel\(\) == 0"):
        tl.max(e)
    with pytest.raises(IndexError, match=r"amax\(\): Expected reduction dim 0 to have non-zero size"):
        tl.amax(e, 0)
    with pytest.raises(IndexError, match=r"argmax\(\): Expected reduction dim to be specified"):
        tl.argmax(e)
    with pytest.raises(RuntimeError, match="aminmax"):
        tl.aminmax(e)
    assert tl.prod(e).item() == 1 and tl.sum(e).item() == 0


@pytest.mark.parametrize("op", ["prod", "amax", "amin", "argmax", "argmin", "any", "all", "count_nonzero", "var",
                                "std", "logsumexp", "max", "min"])
def test_zero_dim(op):
    a = torch.tensor(2.5, dtype=torch.float64)
    x = from_torch(a)
    check = same_tuple if op in ("max", "min") else None
    for args in [(0,), (-1,)]:
        expect_like_torch(lambda: getattr(tl, op)(x, *args), lambda: getattr(torch, op)(a, *args), check=check)
    if op not in ("logsumexp",):
        expect_like_torch(lambda: getattr(tl, op)(x), lambda: getattr(torch, op)(a))
    if op not in ("count_nonzero",):
        expect_like_torch(lambda: getattr(tl, op)(x, 0, keepdim=True),
                          lambda: getattr(torch, op)(a, 0, keepdim=True), check=check)


# ---------------------------------------------------------------- dtypes: prod dtype=, any/all uint8, var on ints

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("to", ["int32", "int64", "float32", "float64"])
def test_prod_dtype_argument(dtype, to):
    a = make((3, 4), dtype, 8, low=-2, high=3)
    x = from_torch(a)
    expect_like_torch(lambda: tl.prod(x, dtype=getattr(tl, to)), lambda: torch.prod(a, dtype=getattr(torch, to)))
    expect_like_torch(lambda: tl.prod(x, 1, dtype=getattr(tl, to)), lambda: torch.prod(a, 1, dtype=getattr(torch, to)))


def test_prod_int64_wraps_like_torch():
    a = torch.full((70,), 3, dtype=torch.int64)
    assert tl.prod(from_torch(a)).item() == torch.prod(a).item()


@pytest.mark.parametrize("dtype", DTYPES)
def test_var_std_need_floats(dtype):
    a = make((3, 4), dtype, 9)
    for op in ["var", "std"]:
        both(op, from_torch(a), a, 1)


@pytest.mark.parametrize("correction", [0, 1, 2, 5, 0.5])
@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_var_std_correction(correction, dim, keepdim):
    a = make((4, 5), "float64", 10)
    x = from_torch(a)
    for op in ["var", "std"]:
        both(op, x, a, dim, correction=correction, keepdim=keepdim)
    for op in ["var_mean", "std_mean"]:
        expect_like_torch(lambda: getattr(tl, op)(x, dim, correction=correction, keepdim=keepdim),
                          lambda: getattr(torch, op)(a, dim, correction=correction, keepdim=keepdim), check=same_tuple)


@pytest.mark.parametrize("unbiased", [False, True])
def test_var_std_unbiased_overloads(unbiased):
    a = make((4, 5), "float32", 11)
    x = from_torch(a)
    for op in ["var", "std"]:
        both(op, x, a, unbiased)
        both(op, x, a, unbiased=unbiased)
        both(op, x, a, 1, unbiased)
        both(op, x, a, (0, 1), unbiased, True)
    expect_like_torch(lambda: tl.var_mean(x, 1), lambda: torch.var_mean(a, 1), check=same_tuple)


def test_var_is_numerically_stable():
    """A large mean and a tiny spread: the naive E[x^2] - E[x]^2 would cancel to garbage."""
    a = (1e8 + torch.arange(1000, dtype=torch.float64) % 7)
    for t in (a, a.float()):  # float64 of the same values is the reference (torch's float32 var gives 45.8 here,
        ref = t.double()      # the true variance of the float32 values being 13.05)
        assert_same(tl.var(from_torch(t)), torch.var(ref).to(t.dtype), rtol=1e-6, atol=0)
        assert_same(tl.std(from_torch(t.reshape(10, 100)), 1), torch.std(ref.reshape(10, 100), 1).to(t.dtype),
                    rtol=1e-6, atol=0)


def test_var_half_accumulates_wide():
    a = make((3, 1000), "float16", 12)
    assert_same(tl.var(from_torch(a), 1), torch.var(a, 1))


# ---------------------------------------------------------------- logsumexp

@pytest.mark.parametrize("dtype", DTYPES)
def test_logsumexp_dtypes(dtype):
    a = make((3, 4), dtype, 13, low=-3, high=3)
    both("logsumexp", from_torch(a), a, 1)


def test_logsumexp_infinities():
    inf = float("inf")
    a = torch.tensor([[inf, inf], [-inf, -inf], [inf, 1.], [-inf, 1.], [1000., 1000.], [-1000., -1001.]])
    both("logsumexp", from_torch(a), a, 1)
    both("logsumexp", from_torch(a), a, (0, 1), keepdim=True)


# ---------------------------------------------------------------- out= and meta

def test_out_arguments():
    a = make((3, 4), "float32", 14)
    x = from_torch(a)
    for op, args in [("amax", (1,)), ("amin", (0,)), ("prod", (1,)), ("argmax", (1,)), ("argmin", (0,)),
                     ("any", (1,)), ("all", ()), ("count_nonzero", (0,)), ("var", (1,)), ("std", (1,)),
                     ("logsumexp", (1,))]:
        e = getattr(torch, op)(a, *args)
        out = tl.empty(0, dtype=getattr(tl, str(e.dtype).split(".")[-1]))
        r = getattr(tl, op)(x, *args, out=out)
        assert r is out
        assert_same(out, e)


def test_out_dtype_rules():
    x = tl.ones(3, 4)
    with pytest.raises(RuntimeError):
        tl.amax(x, 1, out=tl.empty(0, dtype=tl.float64))
    with pytest.raises(RuntimeError):
        tl.argmax(x, 1, out=tl.empty(0, dtype=tl.int32))
    with pytest.raises(RuntimeError, match="any"):
        tl.any(x, 1, out=tl.empty(0))
    out = tl.empty(0, dtype=tl.float64)  # var writes any float dtype (PyTorch too)
    tl.var(x, 1, out=out)
    assert out.dtype == tl.float64 and out.tolist() == [0.0, 0.0, 0.0]
    u = tl.tensor([0, 3], dtype=tl.uint8)
    assert tl.all(u).dtype == tl.uint8 and tl.any(u, 0).dtype == tl.uint8
    assert tl.all(u, out=tl.empty(0, dtype=tl.bool)).dtype == tl.bool


def test_out_into_strided_and_aliased():
    a = make((4, 6), "float32", 15)
    x = from_torch(a)
    big = tl.zeros(4, 2)
    tl.amax(x, 1, keepdim=True, out=big[:, :1])
    assert_same(big[:, 0], torch.amax(a, 1))
    y = x.clone()
    tl.prod(y, 0, keepdim=True, out=y[:1])  # out aliases the input
    assert_same(y[0], torch.prod(a, 0))


def test_out_tuples_of_multi_output_ops():
    a = make((3, 4), "float32", 16)
    x = from_torch(a)
    for op, args, kw in [("max", (1,), {}), ("min", (0,), {}), ("aminmax", (), {"dim": 1}), ("frexp", (), {})]:
        e = getattr(torch, op)(a, *args, **kw)
        outs = tuple(tl.empty(0, dtype=getattr(tl, str(t.dtype).split(".")[-1])) for t in e)
        r = getattr(tl, op)(x, *args, **kw, out=outs)
        for got, o, want in zip(r, outs, e):
            assert got is o
            assert_same(o, want)
        with pytest.raises(TypeError):
            getattr(tl, op)(x, *args, **kw, out=outs[:1])
    with pytest.raises(RuntimeError):  # indices must be int64
        tl.max(x, 1, out=(tl.empty(0), tl.empty(0, dtype=tl.int32)))
    with pytest.raises(RuntimeError):  # exponent must be int32
        tl.frexp(x, out=(tl.empty(0), tl.empty(0, dtype=tl.int64)))


@pytest.mark.parametrize("op,args", [("prod", (1,)), ("amax", (1,)), ("argmax", ()), ("aminmax", ()),
                                     ("max", (1,)), ("any", (0,)), ("var", (1,)), ("logsumexp", (1,)),
                                     ("count_nonzero", ())])
def test_meta(op, args):
    a = torch.empty(3, 4, device="meta")
    x = tl.empty(3, 4, device="meta")
    r = getattr(tl, op)(x, *args)
    e = getattr(torch, op)(a, *args)
    rs = r if isinstance(r, tuple) else (r,)
    es = e if isinstance(e, tuple) else (e,)
    for g, w in zip(rs, es):
        assert g.device.type == "meta" and tuple(g.shape) == tuple(w.shape)
        assert str(g.dtype).split(".")[-1] == str(w.dtype).split(".")[-1]


def test_errors():
    x = tl.ones(2, 3)
    a = torch.ones(2, 3)
    for op, args in [("amax", ((0, 0),)), ("prod", (2,)), ("argmax", (5,)), ("max", (-3,)), ("any", (2,)),
                     ("var", (3,)), ("logsumexp", (4,))]:
        expect_like_torch(lambda: getattr(tl, op)(x, *args), lambda: getattr(torch, op)(a, *args))


# ---------------------------------------------------------------- autograd (formulas are gradchecked from the YAML)

def test_max_dim_gradient_goes_to_the_first_index():
    a = torch.tensor([[1., 3., 3.], [2., 2., 0.]], requires_grad=True)
    x = from_torch(a.detach()).requires_grad_()
    tl.max(x, 1)[0].sum().backward()
    torch.max(a, 1)[0].sum().backward()
    assert x.grad.tolist() == a.grad.tolist()
    assert not tl.max(x, 1)[1].requires_grad


@pytest.mark.parametrize("op", ["amax", "max"])
def test_ties_share_the_gradient(op):
    a = torch.tensor([[1., 3., 3.], [2., 2., 2.]], requires_grad=True)
    x = from_torch(a.detach()).requires_grad_()
    getattr(tl, op)(x).backward()
    getattr(torch, op)(a).backward()
    assert x.grad.tolist() == a.grad.tolist()


def test_prod_gradient_with_zeros():
    for vals in ([2., 0., 3.], [0., 0., 3.], [1., 2., 3.]):
        a = torch.tensor(vals, requires_grad=True)
        x = tl.tensor(vals, requires_grad=True)
        tl.prod(x).backward()
        torch.prod(a).backward()
        assert x.grad.tolist() == a.grad.tolist()
        x.grad = None
        tl.prod(x.reshape(1, 3), 1).sum().backward()
        assert x.grad.tolist() == a.grad.tolist()


def test_frexp():
    a = torch.tensor([0., 1., -1.5, 3.75, 1e-40, -1e30, float("inf"), float("nan"), 0.3])
    for dt in ["float32", "float64", "float16", "bfloat16"]:
        t = a.to(getattr(torch, dt))
        m, e = tl.frexp(from_torch(t))
        em, ee = torch.frexp(t)
        assert_same(m, em)
        assert_same(e, ee)
        m, e = from_torch(t).frexp()
        assert_same(m, em)
    t = a.reshape(3, 3).t()
    m, e = tl.frexp(from_torch(a).reshape(3, 3).t())
    assert_same(m, torch.frexp(t)[0])
    assert m.stride() == torch.frexp(t)[0].stride()  # keeps the input's layout
    with pytest.raises(RuntimeError):
        tl.frexp(tl.tensor([1, 2]))


def test_frexp_gradient():
    a = torch.tensor([0.3, -5.0, 100.0], dtype=torch.float64, requires_grad=True)
    x = from_torch(a.detach()).requires_grad_()
    m, e = tl.frexp(x)
    assert m.requires_grad and not e.requires_grad
    m.sum().backward()
    torch.frexp(a)[0].sum().backward()
    assert_same(x.grad, a.grad)


# ---------------------------------------------------------------- issue 7 regressions

def test_sum_float32_accuracy_at_least_torch():
    """1e5 x 0.1f: torchlite summed to 9999.995 (sequential lanes drift); the exact sum is 10000.0015."""
    exact = 100000 * float(torch.tensor(0.1, dtype=torch.float32).double())
    for make_x in (lambda: tl.full((100000,), 0.1), lambda: tl.ones(100000) * 0.1, lambda: tl.tensor(0.1).expand(100000),
                   lambda: tl.full((100, 1000), 0.1).t()):
        ours = tl.sum(make_x()).item()
        theirs = torch.full((100000,), 0.1).sum().item()
        assert abs(ours - exact) <= abs(theirs - exact)
    for n in (10 ** 6, 3 * 10 ** 6 + 17):
        a = torch.rand(n, generator=torch.Generator().manual_seed(n))
        exact = a.double().sum().item()
        assert abs(tl.sum(from_torch(a)).item() - exact) <= max(abs(a.sum().item() - exact), 1e-3)
        assert abs(tl.sum(from_torch(a.reshape(-1, 1000 if n % 1000 == 0 else 1)), 0).double().sum().item() - exact) < 1


def test_huge_expanded_reductions_do_not_overflow():
    """Chunk bounds used int arithmetic that overflowed (UBSan) for 2**62 elements; integer sums fold the expanded
    dims into a multiplication, and idempotent reductions skip them, so these run instantly."""
    x = tl.tensor(True).expand(2 ** 31, 2 ** 31)
    assert tl.sum(x).item() == 2 ** 62
    y = tl.tensor([[1], [2], [3]], dtype=tl.int32).expand(3, 2 ** 40)
    assert tl.sum(y, 1).tolist() == [2 ** 40, 2 ** 41, 3 * 2 ** 40]
    assert tl.sum(y).item() == 6 * 2 ** 40
    z = tl.tensor([[1.5], [-2.0]]).expand(2, 2 ** 40)
    assert tl.amax(z, 1).tolist() == [1.5, -2.0]
    assert tl.any(z).item() and tl.all(z, 1).tolist() == [True, True]
    assert tl.aminmax(z)[0].item() == -2.0


def test_mean_of_zero_dim_tensor_over_dim_zero_has_gradient_one():
    x = tl.tensor(2.0, requires_grad=True)
    tl.mean(x, 0).backward()
    assert x.grad.item() == 1.0
    x.grad = None
    tl.mean(x, (0,), keepdim=True).backward()
    assert x.grad.item() == 1.0


@pytest.mark.parametrize("dtype", ["int32", "int64", "bool"])
def test_integer_dtype_of_a_float_requiring_grad(dtype):
    """sum/prod with an integer dtype= of a tensor that requires grad: PyTorch raises 'Autograd not support dtype'."""
    a = torch.randn(3, requires_grad=True)
    x = tl.randn(3, requires_grad=True)
    for op, args in [("sum", ()), ("sum", (0,)), ("prod", ()), ("prod", (0,))]:
        _, err = torch_result(lambda: getattr(torch, op)(a, *args, dtype=getattr(torch, dtype)))
        if err is None:
            r = getattr(tl, op)(x, *args, dtype=getattr(tl, dtype))
            assert not r.requires_grad
        else:
            with pytest.raises(type(err), match="Autograd not support dtype"):
                getattr(tl, op)(x, *args, dtype=getattr(tl, dtype))
    with tl.no_grad():
        assert tl.sum(x, dtype=getattr(tl, dtype)).dtype == getattr(tl, dtype)
    assert tl.sum(x.detach(), dtype=getattr(tl, dtype)).dtype == getattr(tl, dtype)


def test_sum_bool_and_integer_accumulate_in_int64():
    a = torch.ones(3000, 3000, dtype=torch.bool)
    assert tl.sum(from_torch(a)).item() == 9000000
    assert tl.prod(tl.tensor([True, True])).dtype == tl.int64


# ---------------------------------------------------------------- nansum / nanmean

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_nansum_nanmean(dtype, dim, keepdim):
    a = make((4, 5), dtype, 17)
    if a.is_floating_point():
        a[0, 1] = a[2, 2] = a[3, 0] = float("nan")
        a[:, 4] = float("nan")
    for op in ["nansum", "nanmean"]:
        both(op, from_torch(a), a, dim, keepdim=keepdim)


def test_nansum_dtype_out_and_gradient():
    a = torch.tensor([[1., float("nan")], [3., 4.]], dtype=torch.float64)
    x = from_torch(a)
    assert_same(tl.nansum(x, dtype=tl.float32), torch.nansum(a, dtype=torch.float32))
    out = tl.empty(0, dtype=tl.float64)
    assert tl.nansum(x, 1, out=out) is out
    assert_same(out, torch.nansum(a, 1))
    xr = x.clone().requires_grad_()
    tl.nansum(xr).backward()
    assert xr.grad.tolist() == [[1.0, 0.0], [1.0, 1.0]]
    xr.grad = None
    tl.nanmean(xr, 1).sum().backward()
    ar = a.clone().requires_grad_()
    torch.nanmean(ar, 1).sum().backward()
    assert_same(xr.grad, ar.grad)
