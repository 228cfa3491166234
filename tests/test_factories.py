"""Factories against PyTorch: zeros/ones/empty/full (size forms, dtype, device, requires_grad, dtype inference), the
*_like variants, arange, rand/randn, tensor(), NumPy interop (from_numpy/numpy, zero-copy) and the default dtype."""
import gc
import re

import numpy as np
import pytest
import torch

import torchlite as tl
from conftest import (DTYPES, FLOAT_DTYPES, assert_same, dtype_name, error_types_like, expect_like_torch, from_torch,
                      tl_dtype, torch_dtype, torch_result)


def same_meta_or_values(got, want, **tol):
    """Shape, dtype, device type, requires_grad, and the values unless on the meta device."""
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    assert dtype_name(got.dtype) == dtype_name(want.dtype), (got.dtype, want.dtype)
    assert got.device.type == want.device.type
    assert got.requires_grad == want.requires_grad
    if want.device.type != "meta":
        assert_same(got.detach(), want.detach(), atol=0, rtol=0, **tol)


def same_geometry(got, want):
    """For empty*: no values to compare."""
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    assert dtype_name(got.dtype) == dtype_name(want.dtype)
    assert got.device.type == want.device.type
    assert got.requires_grad == want.requires_grad
    assert tuple(got.stride()) == tuple(want.stride())
    assert got.is_contiguous()


class _Same:
    """Arguments spelled once for both libraries: _Same.dtype('int64') becomes tl.int64 / torch.int64."""

    def __init__(self, name):
        self.name = name

    @staticmethod
    def dtype(name):
        return _Same(name)


def _resolve(mod, args, kwargs):
    conv = (lambda v: getattr(mod, v.name) if isinstance(v, _Same) else v)
    return [conv(a) for a in args], {k: conv(v) for k, v in kwargs.items()}


def factory_like_torch(name, *args, check=same_meta_or_values, **kwargs):
    """torchlite.<name>(*args, **kwargs) against torch.<name>(...), dtypes given as _Same."""
    ta, tk = _resolve(torch, args, kwargs)
    la, lk = _resolve(tl, args, kwargs)
    return expect_like_torch(lambda: getattr(tl, name)(*la, **lk), lambda: getattr(torch, name)(*ta, **tk), check=check)


D = _Same.dtype

# ---------------------------------------------------------------- zeros / ones / empty: size forms

SIZE_FORMS = [
    ((2, 3), {}), (((2, 3),), {}), (([2, 3],), {}), (([],), {}), (((),), {}), ((0,), {}), ((2, 0, 3), {}),
    ((1,), {}), ((), {"size": (2, 3)}), ((), {"size": []}), ((np.int64(2), 3), {}), ((-1,), {}), ((2, -3), {}),
    ((2.5,), {}), (("a",), {}), (((2, 3.5),), {}), ((2, (3,)), {}), (((2,), 3), {}), ((), {}), ((True,), {}),
    (([2, [3]],), {}), ((None,), {}),
]


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("args,kwargs", SIZE_FORMS, ids=[repr(f) for f in SIZE_FORMS])
def test_size_forms(name, args, kwargs):
    """Varargs ints, one tuple/list, [] / () for a 0-d tensor, size=; negative sizes are a RuntimeError, anything
    not an int a TypeError, no size at all a TypeError."""
    factory_like_torch(name, *args, check=same_geometry if name == "empty" else same_meta_or_values, **kwargs)


def test_size_from_a_shape():
    x = tl.ones(4, 5)
    assert tl.zeros(x.shape).shape == (4, 5)
    assert tl.ones(*x.shape).shape == (4, 5)
    assert tl.empty(x.shape[::-1]).shape == (5, 4)


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_dtype(name, dtype):
    check = same_geometry if name == "empty" else same_meta_or_values
    factory_like_torch(name, 2, 3, dtype=D(dtype), check=check)
    factory_like_torch(name, (4,), dtype=D(dtype), check=check)
    factory_like_torch(name, [], dtype=D(dtype), check=check)


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
def test_default_dtype_is_float32(name):
    assert getattr(tl, name)(2).dtype == tl.float32
    assert tl.get_default_dtype() == tl.float32


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "float16"])
def test_meta_device(name, dtype):
    def check(got, want):
        same_meta_or_values(got, want)
        assert_meta(got)

    factory_like_torch(name, 2, 3, dtype=D(dtype), device="meta", check=check)
    factory_like_torch(name, (1000, 1000, 1000), dtype=D(dtype), device="meta", check=check)  # no allocation


def assert_meta(t):
    assert t.device.type == "meta"
    assert t.data_ptr() == 0


def test_device_spellings():
    assert tl.zeros(2, device="cpu").device.type == "cpu"
    assert tl.zeros(2, device=tl.device("meta")).device.type == "meta"
    assert tl.ones(2, device=tl.device("cpu")).device.type == "cpu"
    assert tl.zeros(2, device=None).device.type == "cpu"
    with pytest.raises(RuntimeError):
        tl.zeros(2, device="foo")


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_requires_grad(name, dtype):
    """requires_grad=True makes a leaf that requires grad; only floating dtypes may (RuntimeError otherwise)."""
    check = same_geometry if name in ("empty", "rand", "randn") else same_meta_or_values
    got = factory_like_torch(name, 2, 3, dtype=D(dtype), requires_grad=True, check=check)
    if got is not None:
        assert got[0].requires_grad and got[0].is_leaf and got[0].grad is None
    factory_like_torch(name, 2, dtype=D(dtype), requires_grad=False, check=check)


# ---------------------------------------------------------------- full

# np.bool_ is left out on purpose: torch.full((2,), np.bool_(True)) is float32 (not bool), a quirk not worth copying.
FULL_VALUES = [True, False, 3, -1, 0, 2 ** 40, 2 ** 62, 3.5, -0.0, float("inf"), float("-inf"), float("nan"), 1e-30,
               np.float32(1.5), np.int32(2)]


@pytest.mark.parametrize("value", FULL_VALUES, ids=repr)
def test_full_infers_dtype(value):
    """bool -> bool, int -> int64, float -> the default float dtype (NumPy scalars follow the same rule)."""
    factory_like_torch("full", (2, 3), value)
    factory_like_torch("full", [], value)
    factory_like_torch("full", (2,), fill_value=value)
    factory_like_torch("full", size=(1, 2), fill_value=value)


@pytest.mark.parametrize("value", [True, 3, -1, 255, 256, -128, -129, 2 ** 31, 3.7, -2.5, 0.5, 70000.0, 1e39,
                                   float("inf"), 2 ** 62], ids=repr)
@pytest.mark.parametrize("dtype", DTYPES)
def test_full_with_dtype(value, dtype):
    """An explicit dtype converts the value; values the dtype cannot hold are a RuntimeError in torch ("value cannot be
    converted to type uint8_t without overflow"), except that torch lets -1 wrap in unsigned types and truncates
    floats to integers. Cases whose C++ conversion is undefined (nan/inf/huge -> int) are mirrored too: torch checks
    them before converting."""
    factory_like_torch("full", (2, 2), value, dtype=D(dtype))


def test_full_errors():
    for bad in ["1", None, [1, 2], tl.ones(2)]:
        _, err = torch_result(lambda: torch.full((2,), bad if not isinstance(bad, tl.Tensor) else torch.ones(2)))
        assert err is not None
        with pytest.raises(error_types_like(err)):
            tl.full((2,), bad)
    with pytest.raises(TypeError):
        tl.full(2, 1.0)  # size must be a sequence for full (torch: "must be tuple of ints, not int")
    with pytest.raises(RuntimeError):
        tl.full((-1,), 1.0)


def test_full_zero_dim_tensor_value():
    assert_same(tl.full((2,), tl.tensor(2.5)), torch.full((2,), torch.tensor(2.5)))


@pytest.mark.parametrize("out_dtype", ["float32", "int64", "float64"])
def test_full_zeros_ones_out(out_dtype):
    for name, args in [("full", ((2, 3), 1.5)), ("zeros", ((2, 3),)), ("ones", ((3,),))]:
        out = tl.empty(0, dtype=tl_dtype(out_dtype))
        tout = torch.empty(0, dtype=torch_dtype(out_dtype))
        _, err = torch_result(lambda: getattr(torch, name)(*args, out=tout))
        if err is not None:
            with pytest.raises(error_types_like(err)):
                getattr(tl, name)(*args, out=out)
            continue
        r = getattr(tl, name)(*args, out=out)
        assert r is out
        assert_same(out, tout)


@pytest.mark.parametrize("name, args", [("zeros", (3,)), ("ones", (3,)), ("full", ((3,), 1)), ("arange", (0, 3))])
@pytest.mark.parametrize("dtype, out_dtype", [("bool", "float64"), ("int64", "int32"), ("float32", "float64"),
                                              ("float64", "float64"), (None, "int32")])
def test_factory_out_refuses_a_different_dtype(name, args, dtype, out_dtype):
    """An explicit dtype must be out's (the options only fill in what out leaves open)."""
    kw = {} if dtype is None else {"dtype": tl_dtype(dtype)}
    tkw = {} if dtype is None else {"dtype": torch_dtype(dtype)}
    expect_like_torch(lambda: getattr(tl, name)(*args, **kw, out=tl.empty(3, dtype=tl_dtype(out_dtype))),
                      lambda: getattr(torch, name)(*args, **tkw, out=torch.empty(3, dtype=torch_dtype(out_dtype))))
    if dtype is not None and dtype != out_dtype:
        with pytest.raises(RuntimeError, match=rf"^dtype \w+ does not match dtype of out parameter \(\w+\)$") as e:
            getattr(tl, name)(*args, **kw, out=tl.empty(3, dtype=tl_dtype(out_dtype)))
        _, err = torch_result(lambda: getattr(torch, name)(*args, **tkw,
                                                          out=torch.empty(3, dtype=torch_dtype(out_dtype))))
        assert str(e.value) == str(err)


@pytest.mark.parametrize("name, args", [("zeros", (3,)), ("ones", (3,)), ("full", ((3,), 1.0)), ("arange", (0, 3))])
@pytest.mark.parametrize("device, out_device", [("meta", "cpu"), ("cpu", "meta")])
def test_factory_out_refuses_a_different_device(name, args, device, out_device):
    messages = []
    for lib in (torch, tl):
        with pytest.raises(RuntimeError) as e:
            getattr(lib, name)(*args, dtype=lib.float32, device=device, out=lib.empty(3, device=out_device))
        messages.append(str(e.value))
    assert messages[1] == messages[0] == f"device type {device} does not match device type of out parameter ({out_device})"
    out = tl.empty(3)
    assert tl.zeros(3, device="cpu", out=out) is out  # the same device is fine


def test_full_meta_and_requires_grad():
    r = tl.full((2, 3), 7, device="meta")
    assert r.device.type == "meta" and r.dtype == tl.int64 and r.shape == (2, 3)
    r = tl.full((2,), 1.5, requires_grad=True)
    assert r.requires_grad and r.detach().tolist() == [1.5, 1.5]
    with pytest.raises(RuntimeError):
        tl.full((2,), 1, requires_grad=True)  # int64 cannot require grad


# ---------------------------------------------------------------- *_like

LIKE_SOURCES = {
    "int32": lambda m: m.ones(2, 3, dtype=m.int32),
    "float64_t": lambda m: m.ones(3, 2, dtype=m.float64).t(),
    "bool_0d": lambda m: m.ones((), dtype=m.bool),
    "empty": lambda m: m.ones(0, 4),
    "meta": lambda m: m.empty(2, 3, device="meta", dtype=m.float16),
}


@pytest.mark.parametrize("src", list(LIKE_SOURCES))
@pytest.mark.parametrize("name,extra", [("zeros_like", ()), ("ones_like", ()), ("full_like", (2.7,)),
                                        ("full_like", (7,)), ("full_like", (True,)), ("empty_like", ())],
                         ids=["zeros_like", "ones_like", "full_like_float", "full_like_int", "full_like_bool",
                              "empty_like"])
@pytest.mark.parametrize("override", [{}, {"dtype": "float64"}, {"dtype": "int8"}, {"device": "meta"},
                                      {"device": "cpu"}, {"dtype": "bool", "device": "meta"},
                                      {"requires_grad": True}],
                         ids=["none", "float64", "int8", "meta", "cpu", "bool_meta", "requires_grad"])
def test_like(src, name, extra, override):
    """dtype and device of the source unless overridden; full_like converts the value to the dtype (no inference)."""
    kw = {k: (D(v) if k == "dtype" else v) for k, v in override.items()}
    ts, xs = LIKE_SOURCES[src](torch), LIKE_SOURCES[src](tl)

    def check(got, want):
        if name == "empty_like":
            assert tuple(got.shape) == tuple(want.shape) and dtype_name(got.dtype) == dtype_name(want.dtype)
            assert got.device.type == want.device.type and got.requires_grad == want.requires_grad
        else:
            same_meta_or_values(got, want)

    ta, tk = _resolve(torch, extra, kw)
    la, lk = _resolve(tl, extra, kw)
    expect_like_torch(lambda: getattr(tl, name)(xs, *la, **lk), lambda: getattr(torch, name)(ts, *ta, **tk),
                      check=check)


def test_like_strides_like_torch():
    """PyTorch's *_like use memory_format=preserve_format: the result of zeros_like(x.t()) has x.t()'s strides.
    (The YAML's `empty(self.sizes(), ...)` gives contiguous strides: this test says what PyTorch does.)"""
    for name in ["zeros_like", "ones_like", "empty_like"]:
        t = torch.ones(3, 4).t()
        x = tl.ones(3, 4).t()
        assert getattr(tl, name)(x).stride() == getattr(torch, name)(t).stride()
        t = torch.ones(3, 4)[:, ::2]
        x = tl.ones(3, 4)[:, ::2]
        assert getattr(tl, name)(x).stride() == getattr(torch, name)(t).stride()
    assert tl.full_like(tl.ones(3, 4).t(), 2).stride() == torch.full_like(torch.ones(3, 4).t(), 2).stride()


def test_fresh_tensors_have_version_zero():
    """A new tensor has version 0 in torch, however the factory fills it (no in-place op is visible to the user)."""
    for make_it in [lambda m: m.zeros(3), lambda m: m.ones(2, 2), lambda m: m.full((2,), 1.5), lambda m: m.empty(3),
                    lambda m: m.arange(4), lambda m: m.tensor([1.0]), lambda m: m.rand(2), lambda m: m.randn(2),
                    lambda m: m.zeros_like(m.ones(2)), lambda m: m.ones_like(m.ones(2)),
                    lambda m: m.full_like(m.ones(2), 3), lambda m: m.empty_like(m.ones(2)),
                    lambda m: m.ones(2).clone(), lambda m: m.ones(2).to(m.float64), lambda m: m.ones(2) + 1,
                    lambda m: m.ones(2, 3).sum(0), lambda m: m.ones(2, 2) @ m.ones(2, 2)]:
        assert make_it(tl)._version == make_it(torch)._version == 0


def test_like_is_independent_of_source():
    x = tl.arange(6.0).reshape(2, 3)
    z = tl.zeros_like(x)
    z.fill_(5)
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert tl.ones_like(x)._version == 0


# ---------------------------------------------------------------- arange

ARANGE_CASES = [
    (5,), (5.0,), (1.5,), (0,), (-3,), (1, 5), (1, 5, 2), (5, 1, -1), (5, 1, -2), (0, 1, 0.1), (0, 1, 0.25),
    (1.0, 2.5, 0.5), (-1, -5, -1.5), (-1.0, 1.0, 0.1), (1, 2.5, 0.1), (0, 10, 3), (10, 0, -3), (0, 7, 7), (0, 7, 8),
    (True,), (1, 4, True), (np.int64(3),), (np.float32(3),), (2 ** 40, 2 ** 40 + 3), (-(2 ** 62), -(2 ** 62) + 2),
    (0.5, 3), (0, 0.3, 0.1), (1e-3, 1e-2, 1e-3),
    # errors
    (1, 5, 0), (1, 5, -1), (5, 1, 1), (5, 1), (float("inf"),), (float("nan"),), (0, float("inf"), 1),
    (0, 1e20, 1e-20), (1, 5, 0.0),
]


@pytest.mark.parametrize("args", ARANGE_CASES, ids=repr)
def test_arange(args):
    """int64 when all of start/end/step are integers (bool counts as int), else the default float dtype; step 0,
    a step of the wrong sign, non-finite bounds and absurd lengths are RuntimeErrors."""
    factory_like_torch("arange", *args, check=lambda g, w: same_meta_or_values_tol(g, w))


def same_meta_or_values_tol(got, want):
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    assert dtype_name(got.dtype) == dtype_name(want.dtype)
    if want.device.type != "meta":
        # Float ranges: torch computes start + i * step in double, then rounds once.
        assert_same(got, want, atol=1e-6, rtol=1e-7)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("args", [(5,), (0.5, 4.5), (2.5,), (1, 10, 3), (-3, 3)], ids=repr)
def test_arange_dtype(args, dtype):
    """An explicit dtype (bool is an error in torch: "arange_cpu" not implemented for 'Bool'). Note torch's quirk:
    arange(0.5, 4.5, dtype=int64) is [0, 1, 2, 3]: the length comes from the float bounds, the values from the
    bounds converted to the integer type."""
    factory_like_torch("arange", *args, dtype=D(dtype), check=same_meta_or_values_tol)


def test_arange_keywords_device_out_requires_grad():
    factory_like_torch("arange", start=1, end=4, check=same_meta_or_values_tol)
    factory_like_torch("arange", 0, end=3, step=0.5, check=same_meta_or_values_tol)
    factory_like_torch("arange", end=3, check=same_meta_or_values_tol)
    r = tl.arange(5, device="meta")
    assert r.device.type == "meta" and r.shape == (5,) and r.dtype == tl.int64
    r = tl.arange(0.0, 1.0, 0.25, device="meta")
    assert r.shape == (4,) and r.dtype == tl.float32
    out = tl.empty(0, dtype=tl.int32)
    assert tl.arange(0, 5, 1, out=out) is out
    assert out.dtype == tl.int32 and out.tolist() == [0, 1, 2, 3, 4]
    out = tl.empty(0)
    tl.arange(1, 3, 0.5, out=out)
    assert out.tolist() == torch.arange(1, 3, 0.5).tolist()
    assert tl.arange(5.0, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError):
        tl.arange(5, requires_grad=True)  # int64 cannot require grad


def test_arange_float32_values_have_no_accumulated_error():
    """Long float ranges: every value is start + i*step computed directly (not by repeated addition), so within an
    ulp or so of the exact value. (torch itself is not correctly rounded everywhere: its vectorized path computes in
    float32, so the comparison is with the exact values, not bit-for-bit with torch.)"""
    for start, end, step in [(0, 1000, 0.1), (-50, 50, 0.01), (1e6, 1e6 + 1, 0.125), (0, 100000, 1.0)]:
        got, want = tl.arange(start, end, step), torch.arange(start, end, step)
        assert got.shape == tuple(want.shape) and got.dtype == tl.float32
        exact = torch.arange(len(want), dtype=torch.float64) * step + start
        ulp = 2.0 ** -23 * max(abs(start), abs(end))
        assert_same(got, exact.float(), atol=2 * ulp, rtol=0)
        assert_same(torch.arange(start, end, step), exact.float(), atol=2 * ulp, rtol=0)  # torch meets it too


def test_arange_errors():
    with pytest.raises(RuntimeError, match="step"):
        tl.arange(0, 5, 0)
    with pytest.raises(RuntimeError):
        tl.arange(0, 5, -1)
    with pytest.raises(TypeError):
        tl.arange("5")
    with pytest.raises(TypeError):
        tl.arange()
    with pytest.raises(TypeError):
        tl.arange(None)


# ---------------------------------------------------------------- rand / randn

@pytest.mark.parametrize("name", ["rand", "randn"])
@pytest.mark.parametrize("args", [(2, 3), ((2, 3),), ([4],), ([],), ((0, 5),), (1,)], ids=repr)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_random_shape_dtype(name, args, dtype):
    r = getattr(tl, name)(*args, dtype=tl_dtype(dtype))
    want = getattr(torch, name)(*args, dtype=torch_dtype(dtype))
    assert r.shape == tuple(want.shape) and dtype_name(r.dtype) == dtype
    assert r.is_contiguous() and r.device.type == "cpu" and not r.requires_grad


@pytest.mark.parametrize("name", ["rand", "randn"])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64"])
def test_random_integer_dtype_is_an_error(name, dtype):
    _, err = torch_result(lambda: getattr(torch, name)(2, dtype=torch_dtype(dtype)))
    assert err is not None
    with pytest.raises(error_types_like(err)):
        getattr(tl, name)(2, dtype=tl_dtype(dtype))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_rand_range_and_moments(dtype):
    tl.manual_seed(1234)
    x = np.array(tl.rand(200_000, dtype=tl_dtype(dtype)).float().tolist())
    assert x.min() >= 0.0 and x.max() < 1.0
    assert abs(x.mean() - 0.5) < 0.01
    assert abs(x.std() - (1 / 12) ** 0.5) < 0.01
    hist, _ = np.histogram(x, bins=10, range=(0.0, 1.0))
    assert (np.abs(hist / len(x) - 0.1) < 0.01).all(), hist


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_randn_moments(dtype):
    tl.manual_seed(4321)
    x = np.array(tl.randn(200_000, dtype=tl_dtype(dtype)).float().tolist())
    assert np.isfinite(x).all()
    assert abs(x.mean()) < 0.01
    assert abs(x.std() - 1.0) < 0.01
    assert abs((np.abs(x) < 1).mean() - 0.6827) < 0.01
    assert abs((np.abs(x) < 2).mean() - 0.9545) < 0.01
    assert x.max() > 3.5 and x.min() < -3.5  # tails exist (200000 draws)


def test_rand_float64_uses_more_than_float32_bits():
    """torch draws 53 random bits for float64: values are not multiples of 2**-24."""
    tl.manual_seed(7)
    x = np.array(tl.rand(1000, dtype=tl.float64).tolist())
    assert ((x * 2 ** 24) % 1 != 0).mean() > 0.9


def test_manual_seed_reproducibility():
    """Same seed, same numbers; the stream need not equal torch's (intentional: torchlite has its own generator)."""
    tl.manual_seed(0)
    a, b = tl.rand(5), tl.randn(2, 3)
    tl.manual_seed(0)
    c, d = tl.rand(5), tl.randn(2, 3)
    assert a.tolist() == c.tolist() and b.tolist() == d.tolist()
    tl.manual_seed(1)
    assert tl.rand(5).tolist() != a.tolist()
    tl.manual_seed(0)
    first, second = tl.rand(5), tl.rand(5)
    assert first.tolist() != second.tolist()  # the generator advances
    tl.manual_seed(0)
    e = tl.rand(5, dtype=tl.float64)
    tl.manual_seed(0)
    assert tl.rand(5, dtype=tl.float64).tolist() == e.tolist()


def test_random_meta_does_not_advance_generator():
    tl.manual_seed(3)
    a = tl.rand(4)
    tl.manual_seed(3)
    tl.rand(1000, device="meta")
    tl.randn(1000, device="meta")
    b = tl.rand(4)
    assert a.tolist() == b.tolist()


# ---------------------------------------------------------------- tensor()

TENSOR_DATA = [
    [[1, 2], [3, 4]], [True, False], [1, 2.5], [True, 2], [True, 2.5], 3, 3.5, True, -0.0, [], [[]], [[], []],
    [[[1]], [[2]]], (1, 2), [(1, 2), (3, 4)], [1, -2 ** 63], 2 ** 63 - 1, [2 ** 62, 1.5], float("nan"), float("inf"),
    1e400, [1e-45], [3.4e38, 1e39], np.float64(2.5), np.int32(3), np.bool_(True), np.float16(1.5),
    [np.float64(1.0), 2], [np.int16(1), 2], np.array([1, 2], dtype=np.int32), np.array([1.0, 2.0], dtype=np.float16),
    np.array(3.0), np.array([[1, 2], [3, 4]]).T, np.array([], dtype=np.int8), np.array([True]), np.array([1, 2])[::2],
    # errors
    [[1, 2], [3]], [[1, 2], 3], [1, [2]], "abc", None, [None], [1, "a"], 2 ** 63, [2 ** 64], [1, None],
    np.array(["a"]), object(),
]


@pytest.mark.parametrize("data", TENSOR_DATA, ids=[re.sub(r" at 0x[0-9a-f]+", "", repr(d))[:40] for d in TENSOR_DATA])
def test_tensor_construction(data):
    """Nested sequences, Python and NumPy scalars, arrays (keep their dtype, and their values are copied), bools,
    mixed int/float; ragged or non-numeric data raise the error torch raises (ValueError for ragged lengths,
    TypeError for mixed nesting depth or strings, RuntimeError for None)."""
    expect_like_torch(lambda: tl.tensor(data), lambda: torch.tensor(data), check=same_meta_or_values)


@pytest.mark.parametrize("data", [[1, 2], [1.7, -2.7], [True, False], [[0.0, 1.5]], 3, 2.5],
                         ids=repr)
@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_dtype_override(data, dtype):
    """dtype= converts (floats truncate toward zero into integer types; negative floats into uint8 would be
    undefined in C++ and are left out)."""
    if dtype == "uint8" and "-2.7" in repr(data):
        data = [1.7, 2.7]
    expect_like_torch(lambda: tl.tensor(data, dtype=tl_dtype(dtype)),
                      lambda: torch.tensor(data, dtype=torch_dtype(dtype)), check=same_meta_or_values)


def test_tensor_out_of_range_values_for_dtype():
    for data, dtype in [([300], "uint8"), ([-1], "uint8"), ([128], "int8"), ([2 ** 31], "int32"), ([1e5], "float16")]:
        expect_like_torch(lambda: tl.tensor(data, dtype=tl_dtype(dtype)),
                          lambda: torch.tensor(data, dtype=torch_dtype(dtype)), check=same_meta_or_values)


def test_tensor_requires_grad_and_device():
    t = tl.tensor([1.5, 2.0], requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.dtype == tl.float32
    with pytest.raises(RuntimeError):
        tl.tensor([1, 2], requires_grad=True)
    m = tl.tensor([[1, 2]], device="meta")
    assert m.device.type == "meta" and m.shape == (1, 2) and m.dtype == tl.int64
    m = tl.tensor(2.5, dtype=tl.float64, device="meta")
    assert m.shape == () and m.dtype == tl.float64


def test_tensor_copies_its_data():
    a = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    t = tl.tensor(a)
    a[0] = 9
    assert t.tolist() == [1.0, 2.0, 3.0]
    src = tl.tensor([1.0, 2.0])
    c = tl.tensor(src)  # torch warns and copies
    c.fill_(0)
    assert src.tolist() == [1.0, 2.0]


def test_tensor_of_tensors():
    """A list of 0-d tensors works (their values and dtypes count like NumPy scalars). (torch refuses a list of 1-D
    tensors with a TypeError; accepting it is harmless, so that case is not tested.)"""
    expect_like_torch(lambda: tl.tensor([tl.tensor(1.0), tl.tensor(2.0)]),
                      lambda: torch.tensor([torch.tensor(1.0), torch.tensor(2.0)]))
    expect_like_torch(lambda: tl.tensor([tl.tensor(1), tl.tensor(2.5, dtype=tl.float64)]),
                      lambda: torch.tensor([torch.tensor(1), torch.tensor(2.5, dtype=torch.float64)]))


def test_tensor_numpy_complex_dtypes():
    """Complex NumPy arrays make complex64/complex128 tensors, as in torch (docs/complex.md; more in
    test_complex_dtypes.py). uint16/uint32/uint64 arrays are tested in test_uint_dtypes.py."""
    for arr in [np.array([1, 2j], dtype=np.complex64), np.array([1, 2j], dtype=np.complex128)]:
        for make in ("tensor", "from_numpy"):
            got, want = getattr(tl, make)(arr), getattr(torch, make)(arr)
            assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
            np.testing.assert_array_equal(got.numpy(), want.numpy())


# ---------------------------------------------------------------- NumPy interop

NP_DTYPES = {"bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32,
             "int64": np.int64, "float16": np.float16, "float32": np.float32, "float64": np.float64}


@pytest.mark.parametrize("name", list(NP_DTYPES))
def test_from_numpy_dtypes_and_zero_copy(name):
    a = (np.arange(6) % 3).astype(NP_DTYPES[name]).reshape(2, 3)
    t = tl.from_numpy(a)
    assert dtype_name(t.dtype) == name and t.shape == (2, 3) and t.stride() == (3, 1)
    assert t.data_ptr() == a.ctypes.data
    assert t.tolist() == a.tolist()
    # numpy -> tensor
    a[1, 2] = 1
    assert t[1, 2].item() == a[1, 2].item()
    # tensor -> numpy
    t.fill_(1)
    assert (a == 1).all()
    n = t.numpy()
    assert n.dtype == a.dtype and n.ctypes.data == a.ctypes.data


@pytest.mark.parametrize("make_array", [lambda: np.arange(12.0).reshape(3, 4).T, lambda: np.arange(12.0).reshape(3, 4)[:, ::2],
                                        lambda: np.arange(24, dtype=np.int16).reshape(2, 3, 4)[1:, ::2, 1:3],
                                        lambda: np.array(3.0), lambda: np.zeros((2, 0)),
                                        lambda: np.broadcast_to(np.arange(3.0), (2, 3)),
                                        lambda: np.arange(12.0).reshape(3, 4)[:, ::-1],
                                        lambda: np.array([1, 2], dtype=">i4"), lambda: np.array(["a"])],
                         ids=["transposed", "sliced", "3d_sliced", "0d", "empty", "broadcast", "negative_strides",
                              "big_endian", "strings"])
def test_from_numpy_strides_and_errors(make_array):
    """Strides are kept (bytes / itemsize); negative strides and non-native byte order are ValueErrors, string
    arrays a TypeError, like torch."""
    a = make_array()
    want, err = torch_result(lambda: torch.from_numpy(a))
    if err is not None:
        with pytest.raises(error_types_like(err)):
            tl.from_numpy(a)
        return
    t = tl.from_numpy(a)
    assert t.shape == tuple(want.shape) and dtype_name(t.dtype) == dtype_name(want.dtype)
    assert t.tolist() == want.tolist()
    if a.size:  # the strides of an empty tensor carry no meaning
        assert t.stride() == want.stride()
        assert t.data_ptr() == a.ctypes.data


def test_from_numpy_rejects_non_arrays():
    for bad in [[1, 2], 3, None, tl.ones(2)]:
        with pytest.raises(TypeError):
            tl.from_numpy(bad)


def test_numpy_zero_copy():
    t = tl.arange(12.0).reshape(3, 4)
    n = t.numpy()
    assert isinstance(n, np.ndarray) and n.dtype == np.float32 and n.shape == (3, 4) and n.strides == (16, 4)
    assert n.ctypes.data == t.data_ptr()
    n[0, 0] = 100
    assert t[0, 0].item() == 100
    t.add_(1)
    assert n[0, 0] == 101
    v = t.t()[1:, ::2]
    tv = torch.arange(12.0).reshape(3, 4).t()[1:, ::2]
    nv = v.numpy()
    assert nv.strides == tv.numpy().strides and nv.shape == tuple(tv.shape)
    assert nv.ctypes.data == v.data_ptr()
    assert tl.tensor(3.0).numpy().shape == ()
    e = tl.ones(2).expand(3, 2).numpy()
    assert e.strides == torch.ones(2).expand(3, 2).numpy().strides


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_dtypes(dtype):
    t = tl.ones(2, dtype=tl_dtype(dtype))
    want, err = torch_result(lambda: torch.ones(2, dtype=torch_dtype(dtype)).numpy())
    if err is not None:  # bfloat16: NumPy has no such type (TypeError in torch)
        with pytest.raises(error_types_like(err)):
            t.numpy()
        return
    n = t.numpy()
    assert n.dtype == want.dtype and n.tolist() == want.tolist()


def test_numpy_errors():
    with pytest.raises(RuntimeError, match="detach"):
        tl.ones(2, requires_grad=True).numpy()
    _, err = torch_result(lambda: torch.empty(2, device="meta").numpy())
    with pytest.raises(error_types_like(err)):
        tl.empty(2, device="meta").numpy()


def test_interop_lifetimes():
    """The tensor keeps the array's memory alive and the array keeps the tensor's storage alive."""
    t = tl.from_numpy(np.arange(1000, dtype=np.float64))
    gc.collect()
    junk = [np.full(1000, -1.0) for _ in range(50)]
    assert t[999].item() == 999.0 and t.sum().item() == sum(range(1000))
    n = tl.arange(1000.0).numpy()
    gc.collect()
    junk += [tl.full((1000,), -1.0) for _ in range(50)]
    assert n[999] == 999.0 and n.sum() == sum(range(1000))
    v = tl.from_numpy(np.arange(10.0))[2:5]
    gc.collect()
    assert v.tolist() == [2.0, 3.0, 4.0]
    del junk


# ---------------------------------------------------------------- default dtype

@pytest.fixture
def restore_default_dtype():
    old = tl.get_default_dtype()
    yield
    tl.set_default_dtype(old)
    assert tl.get_default_dtype() == tl.float32


@pytest.mark.parametrize("default", ["float64", "float16", "bfloat16"])
def test_set_default_dtype(default, restore_default_dtype):
    old = torch.get_default_dtype()
    tl.set_default_dtype(tl_dtype(default))
    torch.set_default_dtype(torch_dtype(default))
    try:
        assert tl.get_default_dtype() == tl_dtype(default)
        cases = [lambda m: m.tensor([1.5]), lambda m: m.tensor(2.5), lambda m: m.tensor([1, 2.5]),
                 lambda m: m.arange(1.5), lambda m: m.arange(0, 1, 0.25), lambda m: m.zeros(2), lambda m: m.ones(()),
                 lambda m: m.full((1,), 2.5), lambda m: m.tensor([1, 2]), lambda m: m.arange(3),
                 lambda m: m.full((1,), 2), lambda m: m.tensor([True]), lambda m: m.tensor([]),
                 lambda m: m.ones(2, dtype=m.int32) / 2, lambda m: m.ones(2, dtype=m.float32) * 2.5]
        for case in cases:
            assert_same(case(tl), case(torch))
        r = tl.rand(3)
        assert dtype_name(r.dtype) == default
        assert dtype_name(tl.randn(2).dtype) == default
        assert dtype_name(tl.empty(2).dtype) == default
        assert dtype_name(tl.result_type(tl.tensor([1]), 1.5)) == dtype_name(torch.result_type(torch.tensor([1]), 1.5))
    finally:
        torch.set_default_dtype(old)


def test_set_default_dtype_rejects_non_float(restore_default_dtype):
    for bad in ["int64", "bool", "uint8"]:
        with pytest.raises(TypeError):
            tl.set_default_dtype(tl_dtype(bad))
    assert tl.get_default_dtype() == tl.float32
    tl.set_default_dtype(tl.float64)
    tl.set_default_dtype(tl.float32)
    assert tl.tensor([1.5]).dtype == tl.float32
