"""Pooling (issue 11): what the generated suites (every YAML sample against PyTorch, every dtype and
layout, gradcheck/gradgradcheck) cannot say.

- placement: each op bound where torch binds it (top level or torch._C._nn);
- the F.* layer: signatures and defaults, stride=None, return_indices, adaptive output_size with None,
  max_unpool's default and checked output_size, lp_pool (finite and infinite norms);
- ceil_mode edge cases (the last window dropped when it would start in the padding), dilation, NaN
  winning a max (the index of the last NaN), integer max pooling and int64 average truncation;
- max_unpool round trip; gradients and double backward through F.* against PyTorch's;
- errors PyTorch raises (padding, output size, rank, dtype of indices).
"""
from __future__ import annotations

import inspect

import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch, to_torch

TOP = ["max_pool1d", "max_pool1d_with_indices", "max_pool2d", "max_pool3d", "avg_pool1d", "adaptive_avg_pool1d",
       "adaptive_max_pool1d", "_adaptive_avg_pool2d", "_adaptive_avg_pool3d"]
NN = ["max_pool2d_with_indices", "max_pool3d_with_indices", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool2d",
      "adaptive_avg_pool3d", "adaptive_max_pool2d", "adaptive_max_pool3d", "max_unpool2d", "max_unpool3d"]


@pytest.mark.parametrize("name", TOP + NN)
def test_placement_as_torch(name):
    assert hasattr(tl, name) == hasattr(torch, name), name
    assert hasattr(tl.Tensor, name) == hasattr(torch.Tensor, name), name
    assert hasattr(tl._C._nn, name) == hasattr(torch._C._nn, name), name


F_NAMES = ["max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices",
           "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d",
           "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d",
           "adaptive_max_pool3d", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices", "max_unpool1d", "max_unpool2d", "max_unpool3d", "lp_pool1d",
           "lp_pool2d", "lp_pool3d"]


def _params(fn):
    try:
        return [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]
    except (TypeError, ValueError):
        return None  # a C function without a Python signature


@pytest.mark.parametrize("name", F_NAMES)
def test_functional_signatures(name):
    assert hasattr(TF, name)
    # boolean_dispatch wrappers (return_indices) take *args: their no-indices function holds the signature.
    reference = getattr(F, "_" + name, None) or getattr(F, name)
    mine, theirs = _params(getattr(TF, name)), _params(reference)
    if mine is not None and theirs is not None:
        assert mine == theirs, name


def _rand(*shape, dtype=torch.float64, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(shape, generator=g, dtype=torch.float64) * 4 - 2).to(dtype)


def _both(fn_name, x, *args, **kwargs):
    """F.<fn_name> on x (torch) and its torchlite copy; returns (torchlite result, torch result)."""
    expected = getattr(F, fn_name)(x, *args, **kwargs)
    got = getattr(TF, fn_name)(from_torch(x), *args, **kwargs)
    return got, expected


def _check(got, expected):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_same(g, e)
    else:
        assert_same(got, expected)


CALLS = [
    ("max_pool1d", (3, 10), (3,), {}),
    ("max_pool1d", (2, 3, 10), (3, 2, 1), {"ceil_mode": True}),
    ("max_pool1d", (2, 3, 10), (2,), {"stride": None, "dilation": 3, "return_indices": True}),
    ("max_pool1d_with_indices", (2, 3, 9), (4, 3, 2), {}),
    ("max_pool2d", (2, 3, 7, 6), (3,), {}),
    ("max_pool2d", (3, 7, 6), ((3, 2),), {"stride": (2, 1), "padding": 1, "return_indices": True}),
    ("max_pool2d", (1, 2, 8, 8), (2,), {"stride": 2, "padding": 1, "dilation": 2, "ceil_mode": True}),
    ("max_pool2d", (1, 1, 5, 5), (2,), {"stride": 2, "ceil_mode": True, "return_indices": True}),
    ("max_pool2d_with_indices", (1, 2, 6, 5), (2,), {"ceil_mode": True}),
    ("max_pool3d", (1, 2, 5, 6, 4), (2,), {"return_indices": True}),
    ("max_pool3d", (2, 5, 6, 4), (3, 2, 1), {"ceil_mode": True}),
    ("max_pool3d_with_indices", (1, 1, 4, 4, 4), ((2, 3, 2),), {"dilation": (1, 1, 2)}),
    ("avg_pool1d", (2, 3, 10), (3,), {}),
    ("avg_pool1d", (3, 10), (3, 2, 1), {"ceil_mode": True, "count_include_pad": False}),
    ("avg_pool2d", (2, 3, 7, 6), (3,), {}),
    ("avg_pool2d", (3, 7, 6), ((3, 2),), {"stride": (2, 1), "padding": 1, "count_include_pad": False}),
    ("avg_pool2d", (1, 2, 7, 7), (3,), {"stride": 2, "padding": 1, "ceil_mode": True}),
    ("avg_pool2d", (1, 2, 7, 7), (3,), {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False}),
    ("avg_pool2d", (1, 2, 6, 6), (2,), {"divisor_override": 3}),
    ("avg_pool3d", (1, 2, 5, 6, 4), (2,), {}),
    ("avg_pool3d", (2, 5, 6, 4), (3, 2, 1), {"ceil_mode": True, "count_include_pad": False, "divisor_override": 7}),
    ("adaptive_avg_pool1d", (2, 3, 10), (4,), {}),
    ("adaptive_avg_pool2d", (2, 3, 7, 6), ((3, 4),), {}),
    ("adaptive_avg_pool2d", (2, 3, 7, 6), (5,), {}),
    ("adaptive_avg_pool2d", (2, 3, 7, 6), ((None, 2),), {}),
    ("adaptive_avg_pool2d", (3, 7, 6), ((1, 1),), {}),
    ("adaptive_avg_pool2d", (3, 7, 6), ((9, 8),), {}),
    ("adaptive_avg_pool3d", (1, 2, 5, 6, 4), ((2, None, 3),), {}),
    ("adaptive_avg_pool3d", (2, 5, 6, 4), (1,), {}),
    ("adaptive_max_pool1d", (2, 3, 10), (4,), {"return_indices": True}),
    ("adaptive_max_pool1d", (3, 10), (3,), {}),
    ("adaptive_max_pool2d", (2, 3, 7, 6), ((3, None),), {"return_indices": True}),
    ("adaptive_max_pool2d", (3, 7, 6), (4,), {}),
    ("adaptive_max_pool3d", (1, 2, 5, 6, 4), ((2, 3, 3),), {"return_indices": True}),
    ("adaptive_max_pool2d_with_indices", (3, 7, 6), ((2, 5),), {}),
    ("lp_pool1d", (2, 3, 10), (2, 3), {}),
    ("lp_pool1d", (2, 3, 10), (3, 3, 2), {"ceil_mode": True}),
    ("lp_pool2d", (2, 3, 7, 6), (2, 2), {}),
    ("lp_pool2d", (2, 3, 7, 6), (1.5, (3, 2)), {"stride": 1}),
    ("lp_pool2d", (2, 3, 7, 6), (float("inf"), 2), {}),
    ("lp_pool3d", (1, 2, 4, 6, 4), (2, 2), {}),
]


@pytest.mark.parametrize("name,shape,args,kwargs", CALLS, ids=[f"{c[0]}-{i}" for i, c in enumerate(CALLS)])
def test_functional_like_torch(name, shape, args, kwargs):
    x = _rand(*shape)
    if name.startswith("lp_pool"):
        x = x.abs() + 0.1  # fractional powers of negative numbers are NaN in both
    _check(*_both(name, x, *args, **kwargs))


@pytest.mark.parametrize("name,shape,args,kwargs", CALLS, ids=[f"{c[0]}-{i}" for i, c in enumerate(CALLS)])
def test_functional_gradients_like_torch(name, shape, args, kwargs):
    x = _rand(*shape, seed=1)
    if name.startswith("lp_pool"):
        x = x.abs() + 0.1
    xt = x.clone().requires_grad_()
    expected = getattr(F, name)(xt, *args, **kwargs)
    expected = expected[0] if isinstance(expected, tuple) else expected
    g = _rand(*expected.shape, seed=2)
    (gx,) = torch.autograd.grad(expected, xt, g)
    xl = from_torch(x).requires_grad_()
    got = getattr(TF, name)(xl, *args, **kwargs)
    got = got[0] if isinstance(got, tuple) else got
    (gl,) = tl.autograd.grad(got, xl, from_torch(g))
    assert_same(gl, gx)


@pytest.mark.parametrize("name,args", [("max_pool2d", (2,)), ("avg_pool2d", (3, 2, 1)),
                                       ("adaptive_avg_pool2d", ((3, 2),)), ("adaptive_max_pool2d", ((3, 2),)),
                                       ("max_pool3d", (2,)), ("avg_pool3d", (2,))])
def test_double_backward_like_torch(name, args):
    shape = (1, 2, 4, 5, 4) if name.endswith("3d") else (2, 2, 5, 6)
    x = _rand(*shape, seed=3)
    xt = x.clone().requires_grad_()
    yt = getattr(F, name)(xt, *args)
    g = _rand(*yt.shape, seed=4).requires_grad_()
    (gx,) = torch.autograd.grad(yt, xt, g, create_graph=True)
    (ggt,) = torch.autograd.grad((gx * gx).sum(), g)
    xl = from_torch(x).requires_grad_()
    yl = getattr(TF, name)(xl, *args)
    gl = from_torch(g.detach()).requires_grad_()
    (gxl,) = tl.autograd.grad(yl, xl, gl, create_graph=True)
    (ggl,) = tl.autograd.grad((gxl * gxl).sum(), gl)
    assert_same(gxl.detach(), gx.detach())
    assert_same(ggl, ggt)


def test_grad_fn_names_like_torch():
    x = _rand(1, 2, 6, 6)
    for name, args in [("max_pool2d", (2,)), ("avg_pool2d", (2,)), ("adaptive_avg_pool2d", (3,)),
                       ("adaptive_avg_pool2d", (1,)), ("adaptive_max_pool2d", (3,))]:
        yt = getattr(F, name)(x.clone().requires_grad_(), *args)
        yl = getattr(TF, name)(from_torch(x).requires_grad_(), *args)
        assert type(yl.grad_fn).__name__ == type(yt.grad_fn).__name__ or yl.grad_fn.name() == yt.grad_fn.name()


def test_max_pool_nan_wins_last_nan_index():
    x = torch.tensor([[[[1.0, float("nan"), 3.0, float("nan")], [0.0, 5.0, float("nan"), 2.0]]]])
    for fn in ("max_pool2d", "adaptive_max_pool2d"):
        args = (2,) if fn == "max_pool2d" else ((1, 2),)
        got, expected = _both(fn, x, *args, return_indices=True)
        _check(got, expected)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_integer_max_pool_and_int64_avg(dtype):
    x = torch.randint(-50, 50, (2, 3, 6, 5), generator=torch.Generator().manual_seed(0))
    x = x.abs().to(getattr(torch, dtype)) if dtype == "uint8" else x.to(getattr(torch, dtype))
    _check(*_both("max_pool2d", x, 3, 2, 1, return_indices=True))
    if dtype == "int64":
        _check(*_both("avg_pool2d", x, 3, 2, 1))
        _check(*_both("avg_pool2d", -x, 2, divisor_override=3))


def test_ceil_mode_drops_window_starting_in_padding():
    # 5 wide, kernel 2, stride 2, padding 1: ceil gives 4 windows but the 4th would start in the padding.
    for shape, args in [((1, 1, 5, 5), (2, 2, 1)), ((1, 1, 6, 6), (3, 3, 1)), ((1, 1, 4, 4), (3, 2, 0))]:
        x = _rand(*shape)
        for name in ("max_pool2d", "avg_pool2d"):
            got, expected = _both(name, x, *args, ceil_mode=True)
            _check(got, expected)


def test_non_contiguous_inputs():
    base = _rand(2, 6, 7, 3)
    x = base.permute(0, 3, 1, 2)  # channels-last strides
    for name, args in [("max_pool2d", (3, 2, 1)), ("avg_pool2d", (2,)), ("adaptive_avg_pool2d", ((3, 2),)),
                       ("adaptive_max_pool2d", (4,))]:
        expected = getattr(F, name)(x, *args)
        got = getattr(TF, name)(from_torch(base).permute(0, 3, 1, 2), *args)
        _check(got, expected)


def test_empty_batch():
    x = torch.zeros(0, 3, 6, 6)
    for name, args in [("max_pool2d", (2,)), ("avg_pool2d", (2,)), ("adaptive_avg_pool2d", (3,)),
                       ("adaptive_max_pool2d", (3,))]:
        _check(*_both(name, x, *args))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_unpool_round_trip(n):
    shape = {1: (2, 3, 8), 2: (2, 3, 6, 8), 3: (1, 2, 4, 6, 4)}[n]
    x = _rand(*shape)
    pool, unpool = getattr(F, f"max_pool{n}d"), f"max_unpool{n}d"
    yt, it = pool(x, 2, return_indices=True)
    expected = getattr(F, unpool)(yt, it, 2)
    yl, il = getattr(TF, f"max_pool{n}d")(from_torch(x), 2, return_indices=True)
    got = getattr(TF, unpool)(yl, il, 2)
    assert_same(got, expected)
    # The maxima come back where they were: read at the indices, the result gives them again.
    back = to_torch(got).flatten(-n).gather(-1, it.flatten(-n)).view_as(yt)
    assert torch.equal(back, yt)
    # output_size: within a stride of the default, optionally with (N, C) first.
    out_size = [s + 1 for s in shape[-n:]]
    assert_same(getattr(TF, unpool)(yl, il, 2, output_size=out_size),
                getattr(F, unpool)(yt, it, 2, output_size=out_size))
    assert_same(getattr(TF, unpool)(yl, il, 2, output_size=list(shape)),
                getattr(F, unpool)(yt, it, 2, output_size=list(shape)))
    with pytest.raises(ValueError):
        getattr(TF, unpool)(yl, il, 2, output_size=[s + 5 for s in shape[-n:]])


def test_max_unpool_gradient_like_torch():
    x = _rand(2, 3, 6, 8)
    yt, it = F.max_pool2d(x, 2, return_indices=True)
    yt = yt.clone().requires_grad_()
    ot = F.max_unpool2d(yt, it, 2, padding=0)
    g = _rand(*ot.shape, seed=5)
    (gt,) = torch.autograd.grad(ot, yt, g)
    yl = from_torch(yt.detach()).requires_grad_()
    ol = TF.max_unpool2d(yl, from_torch(it), 2)
    (gl,) = tl.autograd.grad(ol, yl, from_torch(g))
    assert_same(gl, gt)


ERRORS = [
    ("max_pool2d", (2, 3, 6, 6), (3, 1, 2), {}),           # pad more than half the kernel
    ("max_pool2d", (2, 3, 6, 6), (3, 1, -1), {}),          # negative pad
    ("max_pool2d", (2, 3, 6, 6), (7,), {}),                # output too small
    ("max_pool2d", (6, 6), (2,), {}),                      # wrong rank
    ("max_pool2d", (2, 0, 6, 6), (2,), {}),                # empty channel dim
    ("max_pool2d", (2, 3, 6, 6), ((2, 2, 2),), {}),        # kernel of three ints
    ("max_pool2d", (2, 3, 6, 6), (2, 0), {}),              # zero stride
    ("max_pool2d", (2, 3, 6, 6), (2, 1, 0, 0), {}),        # zero dilation
    ("max_pool1d", (2, 3, 6), (3, 1, 2), {}),
    ("max_pool1d", (2, 3, 6, 6), (2,), {}),
    ("max_pool3d", (3, 6, 6), (2,), {}),
    ("avg_pool2d", (6, 6), (2,), {}),                      # PyTorch's IndexError
    ("avg_pool2d", (2, 3, 6, 6), (3, 1, 2), {}),
    ("avg_pool2d", (2, 3, 6, 6), (2,), {"divisor_override": 0}),
    ("avg_pool1d", (2, 3, 6, 6), (2,), {}),
    ("avg_pool3d", (3, 6, 6), (2,), {}),
    ("adaptive_avg_pool2d", (6, 6), ((2, 2),), {}),
    ("adaptive_avg_pool2d", (2, 3, 0, 6), ((2, 2),), {}),
    ("adaptive_avg_pool2d", (2, 3, 6, 6), ((-1, 2),), {}),
    ("adaptive_avg_pool2d", (6,), ((2, 2),), {}),          # ValueError from the None handling
    ("adaptive_max_pool2d", (6, 6), ((2, 2),), {}),
    ("adaptive_max_pool1d", (2, 3, 6, 6), (2,), {}),
    ("adaptive_avg_pool3d", (3, 6, 6), (2,), {}),
]


@pytest.mark.parametrize("name,shape,args,kwargs", ERRORS, ids=[f"{e[0]}-{i}" for i, e in enumerate(ERRORS)])
def test_errors_like_torch(name, shape, args, kwargs):
    x = _rand(*shape)
    with pytest.raises(Exception) as theirs:
        getattr(F, name)(x, *args, **kwargs)
    with pytest.raises(type(theirs.value)) as mine:
        getattr(TF, name)(from_torch(x), *args, **kwargs)
    assert str(mine.value)


def test_unpool_errors_like_torch():
    x = _rand(1, 2, 2, 2)
    bad = torch.tensor([[[[0, 3], [9, 16]], [[5, 6], [8, 14]]]])  # 16 is outside a 4x4 plane
    for ind in (bad, bad.int()):
        with pytest.raises(RuntimeError):
            torch._C._nn.max_unpool2d(x, ind, (4, 4))
        with pytest.raises(RuntimeError):
            tl._C._nn.max_unpool2d(from_torch(x), from_torch(ind), (4, 4))
    with pytest.raises(RuntimeError):
        tl._C._nn.max_unpool2d(from_torch(x), from_torch(bad[..., :1]), (4, 4))


def test_out_overloads_with_two_outputs():
    x = _rand(2, 3, 6, 6)
    for name, args in [("max_pool2d_with_indices", (2,)), ("adaptive_max_pool2d", ((3, 2),))]:
        vt, it = torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.long)
        getattr(torch._C._nn, name)(x, *args, out=(vt, it))
        vl, il = tl.empty(0, dtype=tl.float64), tl.empty(0, dtype=tl.int64)
        r = getattr(tl._C._nn, name)(from_torch(x), *args, out=(vl, il))
        assert r[0] is vl and r[1] is il
        assert_same(vl, vt)
        assert_same(il, it)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_reduced_precision_through_float32(dtype):
    x = _rand(2, 3, 9, 9, dtype=getattr(torch, dtype))
    for name, args in [("max_pool2d", (3, 2, 1)), ("avg_pool2d", (3, 2, 1)), ("adaptive_avg_pool2d", ((4, 3),)),
                       ("adaptive_max_pool2d", ((4, 3),))]:
        got, expected = _both(name, x, *args)
        assert_same(got, expected)
        ref = getattr(F, name)(x.float(), *args).to(getattr(torch, dtype))
        assert torch.equal(to_torch(got), ref)


def test_meta_shapes_like_torch():
    cases = [("max_pool2d", (2, 3, 9, 8), (3, 2, 1), {"ceil_mode": True, "return_indices": True}),
             ("max_pool1d", (2, 3, 9), (2,), {}), ("max_pool3d", (1, 2, 5, 6, 4), (2,), {}),
             ("avg_pool2d", (2, 3, 9, 8), (3, 2, 1), {}), ("avg_pool3d", (1, 2, 5, 6, 4), (2,), {}),
             ("adaptive_avg_pool2d", (2, 3, 9, 8), ((4, None),), {}),
             ("adaptive_max_pool3d", (1, 2, 5, 6, 4), ((2, 3, 1),), {"return_indices": True})]
    for name, shape, args, kwargs in cases:
        expected = getattr(F, name)(torch.empty(shape, device="meta"), *args, **kwargs)
        got = getattr(TF, name)(tl.empty(*shape, device="meta"), *args, **kwargs)
        expected = expected if isinstance(expected, tuple) else (expected,)
        got = got if isinstance(got, tuple) else (got,)
        assert [tuple(g.shape) for g in got] == [tuple(e.shape) for e in expected], name
        assert all(g.device.type == "meta" for g in got)
