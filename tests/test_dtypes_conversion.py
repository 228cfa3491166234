"""Dtype and device conversions against PyTorch: .to(...) in all its forms, the .float()/.int()/... shorthands,
special values, copy_ across dtypes with broadcasting, item()/tolist() for every dtype, and repr."""
import itertools
import math

import pytest
import torch

import torchlite as tl
from conftest import (DTYPES, FLOAT_DTYPES, INT_DTYPES, assert_same, dtype_name, error_types_like, expect_like_torch,
                      from_torch, make, tl_dtype, torch_dtype, torch_result)

INT_RANGE = {"bool": (0, 1), "uint8": (0, 255), "int8": (-128, 127), "int16": (-2 ** 15, 2 ** 15 - 1),
             "int32": (-2 ** 31, 2 ** 31 - 1), "int64": (-2 ** 63, 2 ** 63 - 1)}


def source_values(src, dst):
    """Values of dtype `src` whose conversion to `dst` is defined behaviour in C++ (and so the same everywhere):
    floats -> integers only when finite and inside the target range (truncation toward zero); integers -> narrower
    integers wrap (two's complement, what torch does; defined since C++20); any -> bool is `!= 0`; int -> half may
    round or overflow to inf (IEEE)."""
    if src == "bool":
        return torch.tensor([True, False, True, True])
    if src in FLOAT_DTYPES:
        vals = [0.0, -0.0, 1.0, 2.75, -3.5, 100.25, 0.001, -0.999, 127.9, -128.5, 255.5, 1000.0, 65504.0, 1e-5]
        if dst in FLOAT_DTYPES or dst == "bool":
            vals += [float("nan"), float("inf"), float("-inf"), 3.0e38, 1e-40]
        if dst in INT_RANGE:
            lo, hi = INT_RANGE[dst]
            vals = [v for v in vals if lo - 1 < v < hi + 1 and not (dst == "uint8" and v <= -1)]
        t = torch.tensor(vals, dtype=torch.float64)
        if src != "float64":
            # Values the source dtype cannot hold become inf/rounded here, in torch, before the test converts them.
            t = t.to(torch_dtype(src))
            if dst in INT_RANGE:
                lo, hi = INT_RANGE[dst]
                d = t.double()
                keep = torch.isfinite(d) & (d > float(lo) - 1) & (d < float(hi) + 1)
                t = t[keep]
        return t
    lo, hi = INT_RANGE[src]
    vals = [0, 1, -1, 7, 127, -128, 255, 256, 300, -300, 2049, 65505, 70000, -70000, 2 ** 24 + 1, 2 ** 31 + 5,
            -(2 ** 31) - 5, 2 ** 53 + 1, 2 ** 62 + 3, -(2 ** 63)]
    vals = [v for v in vals if lo <= v <= hi]
    return torch.tensor(vals, dtype=torch.int64).to(torch_dtype(src))


def exact(got, want):
    assert_same(got, want, atol=0, rtol=0)


@pytest.mark.parametrize("src,dst", list(itertools.product(DTYPES, DTYPES)))
def test_to_dtype(src, dst):
    t = source_values(src, dst)
    x = from_torch(t)
    r = x.to(tl_dtype(dst))
    assert dtype_name(r.dtype) == dst
    exact(r, t.to(torch_dtype(dst)))
    exact(x.to(dtype=tl_dtype(dst)), t.to(dtype=torch_dtype(dst)))
    exact(tl._C._internal._to_copy(x, dtype=tl_dtype(dst)), t.to(torch_dtype(dst), copy=True))


SHORTHANDS = {"float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16", "int": "int32",
              "long": "int64", "bool": "bool", "byte": "uint8", "char": "int8", "short": "int16"}


@pytest.mark.parametrize("method", list(SHORTHANDS))
@pytest.mark.parametrize("src", DTYPES)
def test_shorthand_conversions(method, src):
    t = source_values(src, SHORTHANDS[method])
    x = from_torch(t)
    r = getattr(x, method)()
    assert dtype_name(r.dtype) == SHORTHANDS[method]
    exact(r, getattr(t, method)())
    if src == SHORTHANDS[method]:
        assert r is x  # no copy when the dtype already matches, like torch


def test_float_special_values():
    """Rounding to half and bfloat16 is round-to-nearest-even (not truncation), overflow gives inf, tiny values
    become subnormals or zero, nan stays nan; float64 -> float32 overflows to inf (IEEE semantics)."""
    vals = torch.tensor([2049.0, 2051.0, 65504.0, 65519.0, 65520.0, 1e-5, 6e-8, 2.9e-8, 3.1e-8, -2.9e-8,
                         1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 + 2 ** -7 + 2 ** -9, 1e-39, 3.4e38, float("nan"),
                         float("-inf"), -0.0, 0.1, 1 / 3], dtype=torch.float32)
    x = from_torch(vals)
    for dt in ["float16", "bfloat16"]:
        exact(x.to(tl_dtype(dt)), vals.to(torch_dtype(dt)))
        back = x.to(tl_dtype(dt)).float()
        exact(back, vals.to(torch_dtype(dt)).float())
    d = torch.tensor([1e300, -1e300, 1e-300, 1 + 2 ** -30, 0.1, float("nan")], dtype=torch.float64)
    exact(from_torch(d).float(), d.float())
    h = torch.tensor([65504.0, 6e-8, 0.1], dtype=torch.float16)
    exact(from_torch(h).to(tl.bfloat16), h.to(torch.bfloat16))
    exact(from_torch(h.to(torch.bfloat16)).half(), h.to(torch.bfloat16).half())


def test_negative_zero_survives():
    x = tl.tensor([-0.0]).double().half().float()
    assert math.copysign(1.0, x.item()) == -1.0


def test_float_to_int_truncates_toward_zero():
    t = torch.tensor([2.9, -2.9, 0.5, -0.5, 127.99, -128.99])
    for dt in ["int8", "int16", "int32", "int64"]:
        exact(from_torch(t).to(tl_dtype(dt)), t.to(torch_dtype(dt)))


def test_int_wraps_like_torch():
    t = torch.tensor([300, -1, 128, -129, 65536 + 7, 2 ** 31 + 1], dtype=torch.int64)
    for dt in ["uint8", "int8", "int16", "int32"]:
        exact(from_torch(t).to(tl_dtype(dt)), t.to(torch_dtype(dt)))


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "float16"])
def test_conversion_of_views(dtype):
    """Converting a non-contiguous tensor keeps values (and, in torch, the dense strides: preserve_format)."""
    a = make((4, 6), dtype, 1)
    for f in [lambda t: t.t(), lambda t: t[1:, ::2], lambda t: t[:1].expand(3, 6), lambda t: t[2]]:
        for dst in ["float64", "int32", "bool"]:
            exact(f(from_torch(a)).to(tl_dtype(dst)), f(a).to(torch_dtype(dst)))


def test_to_strides_like_torch():
    """PyTorch's .to() (and the shorthands) use memory_format=preserve_format: a transposed input converts to a
    transposed result, x.t().double().stride() == (1, 3). The YAML's _to_copy does not say; this is PyTorch's rule."""
    t = torch.ones(2, 3).t()
    x = tl.ones(2, 3).t()
    assert x.double().stride() == t.double().stride()
    assert x.to(tl.int64).stride() == t.to(torch.int64).stride()
    assert x.to("meta").stride() == t.to("meta").stride()


# ---------------------------------------------------------------- .to(): identity, devices, other

def test_to_returns_self_when_nothing_changes():
    x = tl.ones(2, 3)
    assert x.to(tl.float32) is x
    assert x.to("cpu") is x
    assert x.to(tl.device("cpu")) is x
    assert x.to(x) is x
    assert x.to(tl.ones(1)) is x
    assert x.float() is x
    y = x.to(tl.float32, copy=True)
    assert y is not x and y.tolist() == x.tolist()
    y.fill_(3)
    assert x.tolist() == [[1.0] * 3] * 2
    z = x.to("cpu", copy=True)
    assert z is not x and z.data_ptr() != x.data_ptr()


TO_FORMS = {
    "meta": lambda m, t: t.to("meta"),
    "device=meta": lambda m, t: t.to(device="meta"),
    "device(meta)": lambda m, t: t.to(m.device("meta")),
    "meta,int32": lambda m, t: t.to("meta", m.int32),
    "meta,dtype=": lambda m, t: t.to("meta", dtype=m.float64),
    "device=,dtype=": lambda m, t: t.to(device="meta", dtype=m.int8),
    "cpu,float16": lambda m, t: t.to("cpu", m.float16),
    "other meta int8": lambda m, t: t.to(m.empty(1, device="meta", dtype=m.int8)),
    "other cpu float64": lambda m, t: t.to(m.empty(1, dtype=m.float64)),
    "meta then cpu": lambda m, t: t.to("meta").to("cpu"),
    "'float64' string": lambda m, t: t.to("float64"),
    "two dtypes": lambda m, t: t.to(m.float64, m.int32),
    "no args": lambda m, t: t.to(),
    "bogus device": lambda m, t: t.to("foo"),
    "dtype=, copy=": lambda m, t: t.to(dtype=m.float64, copy=True),
    "non_blocking": lambda m, t: t.to(m.float64, True),
}


@pytest.mark.parametrize("form", list(TO_FORMS))
def test_to_forms(form):
    a = make((2, 3), "float32", 2)

    def check(got, want):
        assert tuple(got.shape) == tuple(want.shape) and dtype_name(got.dtype) == dtype_name(want.dtype)
        assert got.device.type == want.device.type
        if want.device.type != "meta":
            exact(got, want)

    expect_like_torch(lambda: TO_FORMS[form](tl, from_torch(a)), lambda: TO_FORMS[form](torch, a), check=check)


def test_meta_to_cpu_is_an_error():
    with pytest.raises(RuntimeError):  # torch: NotImplementedError "Cannot copy out of meta tensor; no data!"
        tl.empty(2, device="meta").to("cpu")
    with pytest.raises(RuntimeError):
        tl.ones(2).copy_(tl.empty(2, device="meta"))


def test_to_keeps_autograd():
    x = tl.ones(2, requires_grad=True)
    y = x.to(tl.float64)
    assert y.requires_grad and not y.is_leaf and y.dtype == tl.float64
    assert x.to(tl.float32) is x


# ---------------------------------------------------------------- copy_

@pytest.mark.parametrize("dst,src", [(d, s) for d, s in itertools.product(DTYPES, DTYPES)
                                     if d == s or "float32" in (d, s) or (d, s) in [("int64", "bool"), ("uint8", "int64"),
                                                                                    ("float16", "bfloat16"),
                                                                                    ("int8", "int32"), ("bool", "int16")]])
@pytest.mark.parametrize("src_shape", [(4,), (1, 4), (3, 1), (), (3, 4)], ids=repr)
def test_copy_across_dtypes_with_broadcasting(dst, src, src_shape):
    values = source_values(src, dst)
    n = max(1, math.prod(src_shape))
    s = values.repeat(n)[:n].reshape(src_shape)
    d = torch.zeros(3, 4, dtype=torch_dtype(dst))
    x = from_torch(d)
    v = x._version
    r = x.copy_(from_torch(s))
    d.copy_(s)
    assert r is x
    assert x._version == v + 1
    exact(x, d)


@pytest.mark.parametrize("src_shape", [(2,), (2, 3), (4, 1, 4), (5,)], ids=repr)
def test_copy_shape_errors(src_shape):
    """The source must broadcast to the destination's shape (the destination never grows)."""
    _, err = torch_result(lambda: torch.zeros(3, 4).copy_(torch.ones(src_shape)))
    assert isinstance(err, RuntimeError)
    with pytest.raises(RuntimeError):
        tl.zeros(3, 4).copy_(tl.ones(src_shape))


def test_copy_into_and_from_views():
    a = make((4, 6), "float64", 3)
    x = from_torch(a)
    # a transposed, sliced destination inside x, from a transposed source
    dst_t, dst_x = a.t()[1:5:2, 1:], x.t()[1:5:2, 1:]
    src = make((3, 2), "int32", 5)
    dst_t.copy_(src.t())
    dst_x.copy_(from_torch(src).t())
    exact(x, a)
    # from an expanded source
    e_t = make((1, 6), "float32", 6)
    e_x = from_torch(e_t)
    a[1:3].copy_(e_t.expand(2, 6))
    x[1:3].copy_(e_x.expand(2, 6))
    exact(x, a)
    # the same tensor
    before = a.clone()
    x.copy_(x)
    exact(x, before)


def test_copy_overlap_like_torch():
    """torch refuses a copy between partially overlapping views, and into an expanded destination."""
    expect_like_torch(lambda: tl.arange(4.0)[1:].copy_(tl.arange(4.0)[:-1]),  # two storages: fine
                      lambda: torch.arange(4.0)[1:].copy_(torch.arange(4.0)[:-1]))
    a, x = torch.arange(4.0), tl.arange(4.0)
    expect_like_torch(lambda: x[1:].copy_(x[:-1]), lambda: a[1:].copy_(a[:-1]))
    exact(x, a)
    b, y = torch.ones(3, 1), tl.ones(3, 1)
    expect_like_torch(lambda: y.expand(3, 4).copy_(tl.arange(12.0).view(3, 4)),
                      lambda: b.expand(3, 4).copy_(torch.arange(12.0).view(3, 4)))


def test_copy_method_form_and_type_errors():
    x = tl.zeros(3)
    assert not hasattr(tl, "copy_") and not hasattr(torch, "copy_")  # a method only, as in PyTorch
    r = x.copy_(tl.tensor([1, 2, 3]))
    assert r is x and x.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(TypeError):
        x.copy_([1, 2, 3])
    with pytest.raises(TypeError):
        x.copy_("a")


def test_copy_meta():
    m = tl.empty(3, 4, device="meta")
    r = m.copy_(tl.empty(4, device="meta", dtype=tl.int64))
    assert r is m and m.dtype == tl.float32 and m.shape == (3, 4)
    with pytest.raises(RuntimeError):
        m.copy_(tl.empty(5, device="meta"))


# ---------------------------------------------------------------- item() and tolist()

@pytest.mark.parametrize("dtype", DTYPES)
def test_item(dtype):
    values = source_values(dtype, dtype)
    for v in values.tolist()[:12]:
        t = torch.tensor(v, dtype=torch_dtype(dtype))
        got = from_torch(t).item()
        want = t.item()
        assert type(got) is type(want), (type(got), type(want))
        if isinstance(want, float) and math.isnan(want):
            assert math.isnan(got)
        else:
            assert got == want and math.copysign(1, got) == math.copysign(1, want)
        got = from_torch(t.reshape(1, 1, 1)).item()
        assert type(got) is type(want)


def test_item_exact_half_values():
    """item() gives the exact value stored: 0.1 in float16 is 0.0999755859375."""
    for dt in ["float16", "bfloat16", "float32"]:
        t = torch.tensor(0.1, dtype=torch_dtype(dt))
        assert tl.tensor(0.1, dtype=tl_dtype(dt)).item() == t.item()
        assert tl.tensor([0.1], dtype=tl_dtype(dt)).tolist() == t.reshape(1).tolist()


@pytest.mark.parametrize("shape", [(2,), (2, 3), (0,), (2, 0), ()], ids=repr)
def test_item_errors(shape):
    t = torch.ones(shape)
    want, err = torch_result(lambda: t.item())
    if err is None:
        assert tl.ones(shape).item() == want
        return
    with pytest.raises(error_types_like(err)):
        tl.ones(shape).item()


def test_item_meta_is_an_error():
    with pytest.raises(RuntimeError):
        tl.empty(1, device="meta").item()
    with pytest.raises(RuntimeError):
        tl.empty((), device="meta").tolist()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 0), (0,), (2, 1, 2)], ids=repr)
def test_tolist(dtype, shape):
    a = make(shape, dtype, 7)
    got = from_torch(a).tolist()
    want = a.tolist()
    assert got == want

    def types(v):
        return [types(e) for e in v] if isinstance(v, list) else type(v)

    assert types(got) == types(want)


def test_tolist_of_views():
    a = make((4, 5), "int64", 8)
    x = from_torch(a)
    for f in [lambda t: t.t(), lambda t: t[1:, ::2], lambda t: t[:1].expand(3, 5), lambda t: t[2, 3],
              lambda t: t.unsqueeze(1)]:
        assert f(x).tolist() == f(a).tolist()


def test_tolist_special_floats():
    t = torch.tensor([float("nan"), float("inf"), -0.0, 1e-45, 3.4028234663852886e38])
    got = from_torch(t).tolist()
    want = t.tolist()
    assert math.isnan(got[0]) and got[1:] == want[1:]
    assert math.copysign(1, got[2]) == -1


# ---------------------------------------------------------------- repr

def _tl_repr_expected(t):
    """PyTorch's repr with the module name changed: torchlite prints like torch, saying torchlite."""
    return repr(t).replace("torch.", "torchlite.")


REPR_CASES = {
    "int_2d": lambda m: m.tensor([[1, 0, 3], [4, 5, 6]]),
    "negative_ints": lambda m: m.tensor([100, -5, 0]),
    "big_ints": lambda m: m.tensor([123456789, -1]),
    "floats": lambda m: m.tensor([1.5, -2.25, 0.0]),
    "integral_floats": lambda m: m.tensor([[1.0, 0.0, 3.0], [4.0, 5.0, 6.0]]),
    "nan_inf": lambda m: m.tensor([1.5, -2.25, float("nan"), float("inf"), -float("inf")]),
    "sci_big": lambda m: m.tensor([1e10, 1.0]),
    "sci_small": lambda m: m.tensor([1e-5, 1.0]),
    "sci_ratio": lambda m: m.tensor([123456.7, 1.0]),
    "neg_zero": lambda m: m.tensor([-0.0, 0.1]),
    "zero_d_float": lambda m: m.tensor(3.5),
    "zero_d_int": lambda m: m.tensor(3),
    "zero_d_bool": lambda m: m.tensor(True),
    "empty": lambda m: m.tensor([]),
    "empty_2d": lambda m: m.zeros(2, 0),
    "bool": lambda m: m.tensor([[True, False, True], [True, True, True]]),
    "3d": lambda m: m.arange(24).reshape(2, 3, 4),
    "wrapped_line": lambda m: m.arange(20.0) * 1.5,
    "summarized_float": lambda m: m.arange(2000.0),
    "summarized_int": lambda m: m.arange(1500),
    "summarized_2d": lambda m: m.arange(4000).reshape(40, 100),
    "transposed": lambda m: m.arange(6.0).reshape(2, 3).t(),
    "requires_grad": lambda m: m.tensor([1.0, 2.0], requires_grad=True),
    "float64_precision": lambda m: m.tensor([1 / 3, 2 / 3], dtype=m.float64),
    "huge_and_tiny": lambda m: m.tensor([1e30, 1e-30]),
    "all_nan": lambda m: m.tensor([float("nan"), float("nan")]),
    "large_integral_float": lambda m: m.tensor([1e8, 2.0]),
}


@pytest.mark.parametrize("case", list(REPR_CASES))
def test_repr_cases(case):
    t = REPR_CASES[case](torch)
    x = REPR_CASES[case](tl)
    assert repr(x) == _tl_repr_expected(t)
    assert str(x) == str(t).replace("torch.", "torchlite.")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 3), (), (0,), (2, 0), (4,)], ids=repr)
def test_repr_every_dtype(dtype, shape):
    t = make(shape, dtype, 9)
    assert repr(from_torch(t)) == _tl_repr_expected(t)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "float16"])
@pytest.mark.parametrize("shape", [(2, 3), (), (0,)], ids=repr)
def test_repr_meta(dtype, shape):
    """PyTorch prints meta tensors as tensor(..., device='meta', size=(2, 3)) plus a non-default dtype."""
    t = torch.empty(shape, device="meta", dtype=torch_dtype(dtype))
    x = tl.empty(shape, device="meta", dtype=tl_dtype(dtype))
    assert repr(x) == _tl_repr_expected(t)
    t = torch.empty(shape, device="meta", dtype=torch_dtype(dtype), requires_grad=dtype == "float32")
    x = tl.empty(shape, device="meta", dtype=tl_dtype(dtype), requires_grad=dtype == "float32")
    assert repr(x) == _tl_repr_expected(t)


def test_repr_of_dtype_device_size():
    for name in DTYPES:
        assert repr(tl_dtype(name)) == _tl_repr_expected(torch_dtype(name))
        assert str(tl_dtype(name)) == str(torch_dtype(name)).replace("torch.", "torchlite.")
    assert repr(tl.ones(2, 3).shape) == _tl_repr_expected(torch.ones(2, 3).shape)
    assert repr(tl.ones(()).shape) == _tl_repr_expected(torch.ones(()).shape)
    assert repr(tl.ones(2).device) == repr(torch.ones(2).device)
    assert str(tl.ones(2).device) == str(torch.ones(2).device)
    assert repr(tl.empty(2, device="meta").device) == repr(torch.empty(2, device="meta").device)
