"""complex64 / complex128: the dtypes, promotion, creation, NumPy, printing, conversions, factories and the
storage-level ops, each compared with PyTorch (docs/complex.md)."""
import warnings

import numpy as np
import pytest
import torch

import torchlite as tl

COMPLEX = ["complex64", "complex128"]
REAL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def T(name):
    return getattr(torch, name)


def L(name):
    return getattr(tl, name)


def same(got, want, rtol=1e-6):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=rtol, atol=1e-7)


# ---------------------------------------------------------------- the dtype objects

@pytest.mark.parametrize("name", COMPLEX + REAL)
def test_dtype_properties(name):
    ours, theirs = L(name), T(name)
    assert ours.is_complex == theirs.is_complex
    assert ours.is_floating_point == theirs.is_floating_point
    assert ours.is_signed == theirs.is_signed
    assert ours.itemsize == theirs.itemsize
    assert repr(ours) == repr(theirs).replace("torch.", "torchlite.")


def test_aliases_and_conversions():
    assert tl.cfloat is tl.complex64 and tl.cdouble is tl.complex128
    assert tl.complex64.to_real() is tl.float32 and tl.complex128.to_real() is tl.float64
    assert tl.float32.to_complex() is tl.complex64 and tl.float64.to_complex() is tl.complex128
    assert tl.complex64.to_complex() is tl.complex64 and tl.int64.to_real() is tl.int64
    with pytest.raises(RuntimeError):
        tl.int32.to_complex()
    with pytest.raises(RuntimeError):
        torch.int32.to_complex()


@pytest.mark.parametrize("a", COMPLEX + REAL)
@pytest.mark.parametrize("b", COMPLEX)
def test_promote_types(a, b):
    want = torch.promote_types(T(a), T(b))
    assert str(tl.promote_types(L(a), L(b))).split(".")[-1] == str(want).split(".")[-1]
    assert str(tl.promote_types(L(b), L(a))).split(".")[-1] == str(want).split(".")[-1]


@pytest.mark.parametrize("name", COMPLEX + REAL)
def test_can_cast(name):
    for c in COMPLEX:
        assert tl.can_cast(L(c), L(name)) == torch.can_cast(T(c), T(name))
        assert tl.can_cast(L(name), L(c)) == torch.can_cast(T(name), T(c))


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("other", [1j, 2.5 + 0j, 3, 1.5])
def test_result_type_with_python_numbers(dtype, other):
    t, x = torch.ones(2, dtype=T(dtype)), tl.ones(2, dtype=L(dtype))
    want = torch.result_type(t, other)
    assert str(tl.result_type(x, other)).split(".")[-1] == str(want).split(".")[-1]


def test_result_type_with_float64_default():
    old = tl.get_default_dtype()
    tl.set_default_dtype(tl.float64)
    try:
        assert tl.result_type(tl.ones(2, dtype=tl.int32), 1j) == tl.complex128
        assert tl.tensor([1j]).dtype == tl.complex128
    finally:
        tl.set_default_dtype(old)


@pytest.mark.parametrize("a", ["float32", "float64", "int64", "complex64", "complex128"])
@pytest.mark.parametrize("b", ["complex64", "complex128"])
def test_result_type_zero_dim_and_dim_tensors(a, b):
    # A 0-d complex tensor lifts a float tensor to complex but keeps its precision.
    for shape_a, shape_b in (((2,), ()), ((), (2,)), ((2,), (2,))):
        want = torch.result_type(torch.ones(shape_a, dtype=T(a)), torch.ones(shape_b, dtype=T(b)))
        got = tl.result_type(tl.ones(shape_a, dtype=L(a)), tl.ones(shape_b, dtype=L(b)))
        assert str(got).split(".")[-1] == str(want).split(".")[-1], (shape_a, shape_b)


def test_is_complex():
    for name in COMPLEX + REAL:
        x = tl.zeros(2, dtype=L(name))
        assert x.is_complex() == (name in COMPLEX) == tl.is_complex(x)
        assert not x.is_floating_point() or name not in COMPLEX


# ---------------------------------------------------------------- creation, item, tolist

@pytest.mark.parametrize("data", [[1 + 2j, 3 - 4j], [1, 2.5, 3j], [[1j, 2], [3, 4 + 0j]], 1 + 1j, [True, 2j],
                                  [complex("nan+1j"), complex("inf-2j")]])
def test_tensor_from_python(data):
    t, x = torch.tensor(data), tl.tensor(data)
    assert str(x.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_array_equal(x.numpy(), t.numpy())
    got, want = np.array(x.tolist(), dtype=complex), np.array(t.tolist(), dtype=complex)
    np.testing.assert_array_equal(got, want)
    assert type(x.tolist() if x.dim() == 0 else np.ravel(x.tolist())[0].item()) is complex


@pytest.mark.parametrize("dtype", COMPLEX)
def test_tensor_with_dtype(dtype):
    data = [[1, 2.5], [3j, -1 - 1j]]
    t, x = torch.tensor(data, dtype=T(dtype)), tl.tensor(data, dtype=L(dtype))
    same(x, t)
    assert x.tolist() == t.tolist()
    assert all(isinstance(v, complex) for row in x.tolist() for v in row)


def test_item_and_conversions():
    x = tl.tensor([1.5 - 2j], dtype=tl.complex128)
    assert x.item() == 1.5 - 2j and isinstance(x.item(), complex)
    assert complex(x) == 1.5 - 2j
    with pytest.raises(RuntimeError, match="without overflow"):
        float(x)
    with pytest.raises(RuntimeError, match="without overflow"):
        float(torch.tensor([1.5 - 2j]))
    assert float(tl.tensor(2 + 0j)) == 2.0
    assert complex(tl.tensor(3.0)) == 3 + 0j


def test_complex_into_real_tensor_like_torch():
    for dtype in ("float32", "int64"):
        with pytest.raises(TypeError) as want:
            torch.tensor([1j], dtype=T(dtype))
        with pytest.raises(TypeError) as got:
            tl.tensor([1j], dtype=L(dtype))
        assert str(got.value) == str(want.value)
    assert tl.tensor([1j, 0j], dtype=tl.bool).tolist() == torch.tensor([1j, 0j], dtype=torch.bool).tolist()


# ---------------------------------------------------------------- NumPy

@pytest.mark.parametrize("np_dtype", [np.complex64, np.complex128])
def test_numpy_round_trip(np_dtype):
    a = (np.arange(12).reshape(3, 4) + 1j * np.arange(12, 0, -1).reshape(3, 4)).astype(np_dtype)
    x = tl.from_numpy(a)
    assert x.dtype == (tl.complex64 if np_dtype == np.complex64 else tl.complex128)
    np.testing.assert_array_equal(x.numpy(), a)
    a[0, 0] = 7 - 7j  # shares memory
    assert x[0, 0].item() == 7 - 7j
    y = tl.tensor(a[:, ::2])  # a copy of a strided array
    np.testing.assert_array_equal(y.numpy(), a[:, ::2])
    assert x.numpy().dtype == np_dtype
    np.testing.assert_array_equal(np.asarray(x.t()), a.T)


def test_numpy_scalars():
    for v in (np.complex64(1 + 2j), np.complex128(1 + 2j)):
        same(tl.tensor(v), torch.tensor(v))
        same(tl.tensor([v, 3]), torch.tensor([v, 3]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy: casting complex to real discards the imaginary part
        # PyTorch reads numpy.complex64 (no subclass of complex) as a number by its real part.
        same(tl.ones(2) * np.complex64(2 + 2j), torch.ones(2) * np.complex64(2 + 2j))
        same(tl.ones(2) * np.complex128(2j), torch.ones(2) * np.complex128(2j))


# ---------------------------------------------------------------- printing

@pytest.mark.parametrize("data,dtype", [
    ([1 + 2j, 3 - 4j], "complex64"),
    ([1.5 + 2j, -0.25 - 1j], "complex64"),
    ([1e10 + 1j, 2 - 3e-5j], "complex128"),
    ([0j], "complex128"),
    ([[1 + 1j, 2], [3j, -4.125 + 0.5j]], "complex64"),
    ([complex("nan+1j"), complex("inf-2j"), 1 + 0j], "complex64"),
    ([], "complex64"),
    ([], "complex128"),
    (1 - 1j, "complex64"),
    (list(np.arange(2000) * (1 + 1j)), "complex64"),
    ([1e-5 + 1e5j], "complex128"),
])
def test_printing_like_torch(data, dtype):
    t, x = torch.tensor(data, dtype=T(dtype)), tl.tensor(data, dtype=L(dtype))
    assert str(x) == str(t).replace("torch.", "torchlite.")
    assert repr(x) == repr(t).replace("torch.", "torchlite.")


def test_printing_requires_grad():
    t = torch.tensor([1 + 2j], requires_grad=True)
    x = tl.tensor([1 + 2j], requires_grad=True)
    assert str(x) == str(t)


# ---------------------------------------------------------------- conversions

@pytest.mark.parametrize("src", COMPLEX)
@pytest.mark.parametrize("dst", REAL)
def test_complex_to_real_warns_and_keeps_real_part(src, dst):
    data = [[1.5 + 2j, -3.25 - 1j], [0j, 7 + 0.5j]]
    t, x = torch.tensor(data, dtype=T(src)), tl.tensor(data, dtype=L(src))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got = x.to(L(dst))
    assert any("discards the imaginary part" in str(m.message) and m.category is UserWarning for m in w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = t.to(T(dst))
    if dst == "bfloat16":
        np.testing.assert_allclose(got.float().numpy(), want.float().numpy())
    else:
        same(got, want)


@pytest.mark.parametrize("src", REAL + COMPLEX)
@pytest.mark.parametrize("dst", COMPLEX)
def test_to_complex(src, dst):
    t = torch.tensor([[0, 1], [1, 0]]).to(T(src))
    x = tl.tensor([[0, 1], [1, 0]]).to(L(src))
    same(x.to(L(dst)), t.to(T(dst)))
    same(x.t().to(L(dst)), t.t().to(T(dst)))  # strided source


def test_copy_into_complex_and_warning_as_error():
    x = tl.zeros(2, 3, dtype=tl.complex64)
    x.copy_(tl.arange(3.0))
    same(x, torch.zeros(2, 3, dtype=torch.complex64).copy_(torch.arange(3.0)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning):
            tl.zeros(2).copy_(tl.ones(2, dtype=tl.complex64))


# ---------------------------------------------------------------- factories

@pytest.mark.parametrize("dtype", COMPLEX)
def test_factories(dtype):
    for fn in ("zeros", "ones"):
        same(getattr(tl, fn)(2, 3, dtype=L(dtype)), getattr(torch, fn)(2, 3, dtype=T(dtype)))
    assert tl.empty(4, dtype=L(dtype)).dtype == L(dtype)
    same(tl.full((2, 2), 1 - 2j, dtype=L(dtype)), torch.full((2, 2), 1 - 2j, dtype=T(dtype)))
    same(tl.zeros_like(tl.ones(3, dtype=L(dtype))), torch.zeros_like(torch.ones(3, dtype=T(dtype))))
    same(tl.ones(3, dtype=L(dtype)).new_full((2,), 3j), torch.ones(3, dtype=T(dtype)).new_full((2,), 3j))
    with pytest.raises(RuntimeError, match="without overflow"):
        tl.ones(3).new_full((2,), 3j)
    with pytest.raises(RuntimeError, match="without overflow"):
        torch.ones(3).new_full((2,), 3j)


def test_full_infers_complex_dtype():
    same(tl.full((2,), 1 + 1j), torch.full((2,), 1 + 1j))
    x = tl.zeros(3, dtype=tl.complex128)
    x.fill_(2 - 1j)
    same(x, torch.zeros(3, dtype=torch.complex128).fill_(2 - 1j))
    with pytest.raises(RuntimeError, match="without overflow"):
        tl.zeros(2).fill_(1 + 2j)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_randn_and_rand_match_torch_streams(dtype):
    torch.manual_seed(3)
    tl.manual_seed(3)
    same(tl.randn(5, 7, dtype=L(dtype)), torch.randn(5, 7, dtype=T(dtype)))
    same(tl.rand(5, 7, dtype=L(dtype)), torch.rand(5, 7, dtype=T(dtype)))


def test_randn_statistics():
    tl.manual_seed(0)
    z = tl.randn(200000, dtype=tl.complex128)
    r = tl.view_as_real(z)
    var = r.var(0).tolist()  # each part has variance 1/2
    assert abs(var[0] - 0.5) < 0.01 and abs(var[1] - 0.5) < 0.01
    u = tl.view_as_real(tl.rand(100000, dtype=tl.complex64))
    assert 0 <= u.min().item() and u.max().item() < 1


# ---------------------------------------------------------------- ops that only move data

def _pair(dtype=tl.complex64):
    a = (np.arange(24).reshape(2, 3, 4) + 1j * (np.arange(24).reshape(2, 3, 4) - 5)).astype(
        np.complex64 if dtype == tl.complex64 else np.complex128)
    return tl.tensor(a), torch.tensor(a)


@pytest.mark.parametrize("op", [
    lambda m, x: x.clone(), lambda m, x: x.transpose(0, 2).contiguous(), lambda m, x: x.view(6, 4),
    lambda m, x: x.reshape(4, 6), lambda m, x: x[1, :, 1:3], lambda m, x: x[..., ::2], lambda m, x: x.permute(2, 0, 1),
    lambda m, x: m.cat([x, x], 1), lambda m, x: m.stack([x, x], -1), lambda m, x: x.flatten(),
    lambda m, x: x.unsqueeze(1).expand(2, 5, 3, 4).contiguous(), lambda m, x: x.select(2, 3), lambda m, x: x.t() if
    x.dim() == 2 else x.mT, lambda m, x: m.index_select(x, 1, m.tensor([2, 0])), lambda m, x: x.narrow(2, 1, 2),
    lambda m, x: m.where(m.ones(4, dtype=m.bool), x, x.flip(0)), lambda m, x: x.flip(1), lambda m, x: x.roll(1, 2),
    lambda m, x: m.squeeze(x[:1]), lambda m, x: x.chunk(2, 2)[1], lambda m, x: x.split(1, 0)[0],
])
@pytest.mark.parametrize("dtype", [tl.complex64, tl.complex128])
def test_data_movement_ops(op, dtype):
    x, t = _pair(dtype)
    same(op(tl, x), op(torch, t))


def test_setitem_and_zero():
    x, t = _pair()
    x[0, 1] = 5 - 5j
    t[0, 1] = 5 - 5j
    same(x, t)
    x.zero_()
    assert (tl.view_as_real(x) == 0).all().item()


def test_requires_grad_allowed():
    x = tl.zeros(2, dtype=tl.complex64, requires_grad=True)
    assert x.requires_grad
    with pytest.raises(RuntimeError, match="floating point and complex"):
        tl.zeros(2, dtype=tl.int64, requires_grad=True)
    for m in (tl, torch):  # a complex 0-d output needs an explicit gradient
        z = m.view_as_complex(m.zeros(2, dtype=m.float64, requires_grad=True))
        with pytest.raises(RuntimeError, match="real scalar outputs"):
            z.backward()


@pytest.mark.parametrize("op", [
    lambda m, x: m.erf(x), lambda m, x: x.sort(), lambda m, x: m.relu(x), lambda m, x: x.max(),
    lambda m, x: m.atan2(x, x), lambda m, x: m.floor(x), lambda m, x: x < x,
])
def test_unsupported_ops_raise(op):
    """Ops not extended to complex raise (RuntimeError or its NotImplementedError subclass, as PyTorch's
    refusals) instead of computing on a silently converted copy."""
    x, _ = _pair()
    with pytest.raises(RuntimeError):
        op(tl, x)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_save_load_with_torch(dtype, tmp_path):
    x = tl.tensor([[1 + 2j, 3 - 4j], [0.5j, -1]], dtype=L(dtype))
    tl.save(x, tmp_path / "a.pt")
    same(x, torch.load(tmp_path / "a.pt"))
    torch.save(torch.tensor([1j, 2], dtype=T(dtype)), tmp_path / "b.pt")
    same(tl.load(tmp_path / "b.pt"), torch.tensor([1j, 2], dtype=T(dtype)))
    assert x.type() == torch.zeros(1, dtype=T(dtype)).type()
