"""complex32 (torchlite.chalf): the storage dtype, its conversions, views, printing, serialization, the
arithmetic PyTorch 2.13's CPU kernels run on it and the ops they refuse, each compared with PyTorch
(docs/complex.md, "complex32")."""
import io
import pickle
import warnings

import numpy as np
import pytest
import torch

import torchlite as tl

# PyTorch warns once that ComplexHalf is experimental; the comparisons do not care.
pytestmark = pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")

ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
       "uint16", "uint32", "uint64", "complex64", "complex128", "complex32"]
VALUES = [1 + 2j, 3 - 4j, 0.1 + 0.3j, -0.0 - 0.5j, 70000 + 1j, 1e-6 - 2e-5j, 2.5 + 0j, -1 - 1j]


def T(name):
    return getattr(torch, name)


def L(name):
    return getattr(tl, name)


def name_of(dtype):
    return str(dtype).split(".")[-1]


def parts(t):
    """The float16 (real, imag) bits of a complex32 tensor of either library, as uint16 NumPy."""
    if isinstance(t, torch.Tensor):
        return torch.view_as_real(t.detach().resolve_conj()).contiguous().view(torch.int16).numpy()
    return tl.view_as_real(t.detach().resolve_conj()).contiguous().view(tl.int16).numpy()


def same(got, want):
    """Same dtype, shape and values (complex32 bit for bit, nan payloads aside)."""
    assert name_of(got.dtype) == name_of(want.dtype), (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    if want.dtype == torch.complex32:
        g = tl.view_as_real(got.detach().resolve_conj()).to(tl.float32).numpy()
        w = torch.view_as_real(want.detach().resolve_conj()).float().numpy()
        np.testing.assert_array_equal(g, w)
    elif want.dtype == torch.bfloat16:
        np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())
    else:
        np.testing.assert_array_equal(got.detach().resolve_conj().resolve_neg().numpy(),
                                      want.detach().resolve_conj().resolve_neg().numpy())


def tr(text):
    """A PyTorch repr as torchlite writes it (torchlite.complex32 for torch.complex32)."""
    return text.replace("torch.", "torchlite.")


def pair(values=VALUES, shape=None):
    ours = tl.tensor(values, dtype=tl.chalf)
    theirs = torch.tensor(values, dtype=torch.chalf)
    if shape is not None:
        ours, theirs = ours.reshape(shape), theirs.reshape(shape)
    return ours, theirs


# ---------------------------------------------------------------- the dtype

def test_dtype_object():
    assert tl.chalf is tl.complex32
    d = tl.complex32
    assert repr(d) == "torchlite.complex32" and str(d) == "torchlite.complex32"
    assert d.is_complex and not d.is_floating_point and d.is_signed == torch.chalf.is_signed
    assert d.itemsize == torch.chalf.itemsize == 4
    assert d.to_real() is tl.float16 and d.to_complex() is tl.complex32
    assert tl.float16.to_complex() is tl.complex32


def test_tensor_properties():
    x, y = pair()
    assert x.is_complex() and not x.is_floating_point() and tl.is_complex(x)
    assert x.element_size() == y.element_size() == 4
    assert x.itemsize == 4 and x.nbytes == y.nbytes
    assert x.type() == y.type() == "torch.ComplexHalfTensor"
    assert x.is_signed() == y.is_signed()


# ---------------------------------------------------------------- creation

@pytest.mark.parametrize("fn", ["zeros", "ones", "empty"])
def test_factories(fn):
    x = getattr(tl, fn)(2, 3, dtype=tl.chalf)
    y = getattr(torch, fn)(2, 3, dtype=torch.chalf)
    assert x.dtype == tl.chalf and x.shape == (2, 3) and x.stride() == y.stride()
    if fn != "empty":
        same(x, y)


@pytest.mark.parametrize("fill", [2, 1.5, 1j, 3 - 2j, 1e5, True, float("inf")])
def test_full_and_like(fill):
    same(tl.full((2, 2), fill, dtype=tl.chalf), torch.full((2, 2), fill, dtype=torch.chalf))
    x, y = pair()
    same(tl.full_like(x, fill), torch.full_like(y, fill))
    same(tl.zeros_like(x), torch.zeros_like(y))
    same(tl.ones_like(x), torch.ones_like(y))
    assert tl.empty_like(x).dtype == tl.chalf and tl.empty_like(x).shape == x.shape
    same(x.new_zeros(3), y.new_zeros(3))
    same(x.new_ones(2), y.new_ones(2))
    same(x.new_full((2,), fill), y.new_full((2,), fill))


@pytest.mark.parametrize("data", [[1 + 2j], VALUES, [[1 + 1j, 2], [3, 4j]], [1, 2, 3], [True, False], 2.5, 3j,
                                  [0.1, 1 / 3, 65519.0, 65520.0, -1e-8, 6e-8j], []])
def test_tensor_constructor(data):
    same(tl.tensor(data, dtype=tl.chalf), torch.tensor(data, dtype=torch.chalf))


def test_tensor_from_tensors_and_numpy():
    x, y = pair()
    same(tl.tensor([x[0], x[1]], dtype=tl.chalf), torch.tensor([y[0], y[1]], dtype=torch.chalf))
    same(tl.tensor(x, dtype=tl.complex64), torch.tensor(y, dtype=torch.complex64))
    arr = np.array(VALUES, dtype=np.complex128)
    same(tl.tensor(arr, dtype=tl.chalf), torch.tensor(arr, dtype=torch.chalf))
    same(tl.as_tensor(arr).to(tl.chalf), torch.as_tensor(arr).to(torch.chalf))
    same(tl.from_numpy(arr.astype(np.complex64)).to(tl.chalf), torch.from_numpy(arr.astype(np.complex64)).to(torch.chalf))


def test_default_dtype_float16_makes_complex32():
    old = tl.get_default_dtype()
    try:
        tl.set_default_dtype(tl.float16)
        torch.set_default_dtype(torch.float16)
        same(tl.tensor([1 + 2j, 3]), torch.tensor([1 + 2j, 3]))
        assert repr(tl.tensor([1 + 2j])) == tr(repr(torch.tensor([1 + 2j])))
        same(tl.ones(2, dtype=tl.float16) + 1j, torch.ones(2, dtype=torch.float16) + 1j)
    finally:
        tl.set_default_dtype(old)
        torch.set_default_dtype(torch.float32)


def test_meta_device():
    x = tl.empty(2, 3, dtype=tl.chalf, device="meta")
    y = torch.empty(2, 3, dtype=torch.chalf, device="meta")
    assert x.dtype == tl.chalf and x.is_meta and repr(x) == tr(repr(y))
    r = tl.view_as_real(x)
    assert r.is_meta and r.dtype == tl.float16 and r.shape == (2, 3, 2)
    assert pair()[0].to("meta").dtype == tl.chalf


def test_random_factories():
    assert tl.randn(4, dtype=tl.chalf).dtype == tl.chalf
    r = tl.rand(1000, dtype=tl.chalf)
    assert r.dtype == tl.chalf
    re = tl.view_as_real(r).float()
    assert float(re.min()) >= 0 and float(re.max()) <= 1


# ---------------------------------------------------------------- conversions

@pytest.mark.parametrize("dst", ALL)
def test_to_other_dtypes(dst):
    x, y = pair([1 + 2j, 3.75 - 4j, 0.1 + 0.3j, -2.5 - 0.5j, 200 + 1j, 0j, 1e4 + 0j, -0.0 + 0j])
    if dst in ("uint8", "uint16", "uint32", "uint64"):  # negative values to unsigned: keep to defined ones
        x, y = x.real.abs().to(tl.chalf), y.real.abs().to(torch.chalf)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(x.to(L(dst)), y.to(T(dst)))
        same(tl.empty(8, dtype=L(dst)).copy_(x), torch.empty(8, dtype=T(dst)).copy_(y))


@pytest.mark.parametrize("src", ALL)
def test_from_other_dtypes(src):
    base = [1.0, -2.5, 0.1, 1 / 3, 65519.0, 65520.0, 1e5, 0.0] if src not in ("bool",) else [True, False] * 4
    y = torch.tensor(base).to(T(src)) if src not in ("complex64", "complex128", "complex32") else \
        torch.tensor([v + 1j * (k - 3.3) for k, v in enumerate(base)], dtype=T(src))
    if src.startswith("uint") or src in ("uint8",):
        y = torch.tensor([1, 2, 250, 0, 7, 3, 100, 65]).to(T(src))
    x = tl.tensor(y.to(torch.complex128).numpy()).to(L(src)) if y.is_complex() else tl.tensor(y.to(torch.float64).numpy()).to(L(src))
    same(x, y)
    same(x.to(tl.chalf), y.to(torch.chalf))
    same(tl.zeros(8, dtype=tl.chalf).copy_(x), torch.zeros(8, dtype=torch.chalf).copy_(y))


def test_complex_to_real_warns():
    x, _ = pair()
    with pytest.warns(UserWarning, match="Casting complex values to real discards the imaginary part"):
        x.to(tl.float32)


def test_rounding_each_part_to_float16():
    values = [0.1 + 0.2j, 1 / 3 - 2 / 3j, 65519 + 65520j, 1e-7 + 3e-8j, float("inf") - 1j, complex(float("nan"), 1)]
    for dt in ("float64", "complex64", "complex128"):
        y = torch.tensor(values, dtype=torch.complex128).to(T(dt)) if dt != "float64" else \
            torch.tensor([v.real for v in values], dtype=torch.float64)
        x = tl.tensor(y.numpy())
        got = x.to(tl.chalf)
        want = y.to(torch.chalf)
        g = tl.view_as_real(got).float().numpy()
        w = torch.view_as_real(want).float().numpy()
        np.testing.assert_array_equal(g, w)


def test_copy_and_clone_layouts():
    x, y = pair(VALUES * 3, (4, 6))
    same(x.clone(), y.clone())
    same(x.t().clone(), y.t().clone())
    assert x.t().clone().stride() == y.t().clone().stride()
    same(x.t().contiguous(), y.t().contiguous())
    same(x[:, ::2].contiguous(), y[:, ::2].contiguous())
    big_x, big_y = pair([complex(i, -i) for i in range(100 * 70)], (100, 70))
    same(big_x.t().contiguous(), big_y.t().contiguous())  # the tiled transpose path
    same(x[:1].expand(3, 6).contiguous(), y[:1].expand(3, 6).contiguous())
    a, b = tl.zeros(6, 4, dtype=tl.chalf), torch.zeros(6, 4, dtype=torch.chalf)
    a.copy_(x.t())
    b.copy_(y.t())
    same(a, b)
    a[1:3].copy_(x[0, :4])  # broadcast source
    b[1:3].copy_(y[0, :4])
    same(a, b)


# ---------------------------------------------------------------- views and data movement

def test_views():
    x, y = pair(VALUES * 3, (4, 6))
    cases = [
        lambda t: t.reshape(6, 4), lambda t: t.view(2, 12), lambda t: t.transpose(0, 1), lambda t: t.permute(1, 0),
        lambda t: t.select(1, -1), lambda t: t[1:3, ::2], lambda t: t[-1], lambda t: t[2, 3], lambda t: t[None, :, 1],
        lambda t: t.narrow(1, 2, 3), lambda t: t[:1].expand(5, 6), lambda t: t.unsqueeze(-1).squeeze(-1),
        lambda t: t.flatten(), lambda t: t.chunk(2, dim=-1)[1], lambda t: t.split(3)[0], lambda t: t.unbind(1)[2],
        lambda t: t.t(), lambda t: t.mT, lambda t: t.movedim(0, 1), lambda t: t.unfold(1, 2, 2),
        lambda t: t.diagonal(), lambda t: t.as_strided((2, 2), (1, 6)),
    ]
    for f in cases:
        same(f(x), f(y))
    v = x[1]
    v[0] = 9 + 9j  # views write through
    assert complex(x[1, 0]) == 9 + 9j


def test_joins_and_index_select():
    x, y = pair(VALUES * 3, (4, 6))
    same(tl.cat([x, x[:1]]), torch.cat([y, y[:1]]))
    same(tl.cat([x, x], dim=-1), torch.cat([y, y], dim=-1))
    same(tl.stack([x, x.t().t()], 1), torch.stack([y, y.t().t()], 1))
    idx = [3, 0, 0, 2]
    same(x.index_select(0, tl.tensor(idx)), y.index_select(0, torch.tensor(idx)))
    same(x.index_select(1, tl.tensor(idx)), y.index_select(1, torch.tensor(idx)))
    same(x[1].index_select(0, tl.tensor(idx)), y[1].index_select(0, torch.tensor(idx)))
    same(x.t().index_select(-1, tl.tensor([1])), y.t().index_select(-1, torch.tensor([1])))
    cond = [[True, False] * 3] * 4
    same(tl.where(tl.tensor(cond), x, x.conj()), torch.where(torch.tensor(cond), y, y.conj()))


def test_cat_promotes_with_complex32():
    x, y = pair()
    h = tl.ones(2, dtype=tl.float16)
    same(tl.cat([x, h]), torch.cat([y, torch.ones(2, dtype=torch.float16)]))
    same(tl.cat([x, tl.ones(2)]), torch.cat([y, torch.ones(2)]))


def test_fill_zero_and_setitem():
    for v in [1, 2.5, 1 - 1j, 1e5j, False]:
        x, y = pair()
        same(x.fill_(v), y.fill_(v))
    x, y = pair(shape=(2, 4))
    x.zero_()
    y.zero_()
    same(x, y)
    x, y = pair(shape=(2, 4))
    x[0, 1] = 5j
    y[0, 1] = 5j
    x[1] = 2
    y[1] = 2
    x[:, 3] = tl.tensor([7 + 1j, 8], dtype=tl.complex64)
    y[:, 3] = torch.tensor([7 + 1j, 8], dtype=torch.complex64)
    same(x, y)
    x.t()[::2].fill_(-1j)
    y.t()[::2].fill_(-1j)
    same(x, y)


def test_triangles():
    x, y = pair(VALUES * 2, (4, 4))
    same(x.tril(), y.tril())
    same(x.triu(1), y.triu(1))


# ---------------------------------------------------------------- complex views

def test_view_as_real_and_complex():
    x, y = pair(shape=(2, 4))
    r = tl.view_as_real(x)
    assert r.dtype == tl.float16 and r.shape == (2, 4, 2) and r.stride() == torch.view_as_real(y).stride()
    same(r, torch.view_as_real(y))
    same(tl.view_as_real(x.t()), torch.view_as_real(y.t()))
    r[0, 0, 1] = 7  # a writable view
    assert complex(x[0, 0]) == complex(1, 7)
    h = tl.tensor([[1.0, 2.0], [3.0, -4.0]], dtype=tl.float16)
    c = tl.view_as_complex(h)
    same(c, torch.view_as_complex(torch.tensor([[1.0, 2.0], [3.0, -4.0]], dtype=torch.float16)))
    c[1] = 0
    assert float(h[1, 0]) == 0 and float(h[1, 1]) == 0
    with pytest.raises(RuntimeError, match="last dimension of size 2"):
        tl.view_as_complex(tl.ones(3, dtype=tl.float16))
    with pytest.raises(RuntimeError):
        torch.view_as_complex(torch.ones(3, dtype=torch.float16))


def test_real_imag_and_conj():
    x, y = pair(shape=(2, 4))
    same(x.real, y.real)
    same(x.imag, y.imag)
    same(tl.real(x), torch.real(y))
    x.imag[0] = 1.5
    y.imag[0] = 1.5
    same(x, y)
    same(x.conj(), y.conj())
    same(x.conj_physical(), y.conj_physical())
    same(x.conj().resolve_conj(), y.conj().resolve_conj())
    same(x.resolve_neg(), y.resolve_neg())
    same(x.mH, y.mH)
    same(x.adjoint(), y.adjoint())
    same(tl.complex(tl.tensor([1.0, 2.5], dtype=tl.float16), tl.tensor([-1.0, 0.1], dtype=tl.float16)),
         torch.complex(torch.tensor([1.0, 2.5], dtype=torch.float16), torch.tensor([-1.0, 0.1], dtype=torch.float16)))


# ---------------------------------------------------------------- Python values, NumPy, printing

def test_item_tolist_complex():
    x, y = pair(shape=(2, 4))
    assert x.tolist() == y.tolist()
    assert x[1, 2].item() == y[1, 2].item() and isinstance(x[0, 0].item(), complex)
    assert complex(x[0, 1]) == complex(y[0, 1])
    assert x.t().tolist() == y.t().tolist()
    assert bool(x[0, 0]) == bool(y[0, 0])


def test_numpy_refused():
    x, y = pair()
    with pytest.raises(TypeError) as ours:
        x.numpy()
    with pytest.raises(TypeError) as theirs:
        y.numpy()
    assert "ComplexHalf" in str(ours.value) and "ComplexHalf" in str(theirs.value)


@pytest.mark.parametrize("values", [VALUES, [1 + 2j], [0j, 0j], [1e-5 + 1j], [float("nan") + 1j, float("inf") - 2j],
                                    [123.5 + 0.25j, -7 + 65504j], [1 / 3 + 2 / 3j] * 12])
def test_printing(values):
    x, y = pair(values)
    assert str(x) == tr(str(y))
    assert repr(x.reshape(-1, 1)) == tr(repr(y.reshape(-1, 1)))
    assert repr(x[0]) == tr(repr(y[0]))


def test_printing_empty_and_grad():
    assert repr(tl.empty(0, dtype=tl.chalf)) == tr(repr(torch.empty(0, dtype=torch.chalf)))
    assert repr(tl.empty(2, 0, dtype=tl.chalf)) == tr(repr(torch.empty(2, 0, dtype=torch.chalf)))


# ---------------------------------------------------------------- promotion

@pytest.mark.parametrize("other", ALL)
def test_promote_types_table(other):
    for a, b in ((tl.chalf, L(other)), (L(other), tl.chalf)):
        ta, tb = T(name_of(a)), T(name_of(b))
        try:
            want = torch.promote_types(ta, tb)
        except RuntimeError as e:
            with pytest.raises(RuntimeError, match="Promotion for uint16, uint32, uint64 types is not supported"):
                tl.promote_types(a, b)
            assert "ComplexHalf" in str(e)
            continue
        assert name_of(tl.promote_types(a, b)) == name_of(want)


@pytest.mark.parametrize("other", [1, 2.5, 1j, True])
def test_result_type_with_numbers(other):
    x, y = pair()
    assert name_of(tl.result_type(x, other)) == name_of(torch.result_type(y, other))
    h, th = tl.ones(2, dtype=tl.float16), torch.ones(2, dtype=torch.float16)
    assert name_of(tl.result_type(h, other)) == name_of(torch.result_type(th, other))
    assert name_of(tl.result_type(x[0], h)) == name_of(torch.result_type(y[0], th))
    assert name_of(tl.result_type(tl.tensor(1j, dtype=tl.chalf), tl.ones(2))) == \
        name_of(torch.result_type(torch.tensor(1j, dtype=torch.chalf), torch.ones(2)))


def test_can_cast():
    for other in ALL:
        assert tl.can_cast(tl.chalf, L(other)) == torch.can_cast(torch.chalf, T(other)), other
        assert tl.can_cast(L(other), tl.chalf) == torch.can_cast(T(other), torch.chalf), other


# ---------------------------------------------------------------- serialization

def test_save_load_round_trip(tmp_path):
    x, y = pair(shape=(2, 4))
    obj = {"a": x, "t": x.t(), "row": x[1]}
    path = tmp_path / "c.pt"
    tl.save(obj, path)
    back = tl.load(path)
    for k in obj:
        same(back[k], {"a": y, "t": y.t(), "row": y[1]}[k])
    assert back["t"].stride() == x.t().stride()
    # the file is PyTorch's: torch.load reads it, and torchlite reads torch.save's
    theirs = torch.load(path)
    same(back["a"], theirs["a"])
    buf = io.BytesIO()
    torch.save({"y": y.t()}, buf)
    buf.seek(0)
    same(tl.load(buf)["y"], y.t())


def test_pickle():
    x, y = pair(shape=(2, 4))
    same(pickle.loads(pickle.dumps(x)), y)
    same(pickle.loads(pickle.dumps(x.t())), y.t())


# ---------------------------------------------------------------- arithmetic PyTorch's CPU runs on complex32

SPECIAL = [1 + 2j, 3 - 4j, 0.1 + 0.3j, 60000 + 60000j, -0.0 + 0j, complex(float("inf"), 1), complex(float("nan"), 2),
           1e-4 - 3e-5j]


@pytest.mark.parametrize("op", ["add", "sub", "mul"])
def test_binary(op):
    x, y = pair(SPECIAL)
    x2, y2 = pair(list(reversed(SPECIAL)))
    f, g = getattr(tl, op), getattr(torch, op)
    same(f(x, x2), g(y, y2))
    for number in (2, 1.5, 1j, 2 - 3j, True):
        if op == "sub" and number is True:  # PyTorch's "Subtraction ... with a bool tensor is not supported"
            with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
                f(x, number)
            continue
        same(f(x, number), g(y, number))
    same(f(x[:1], x2), g(y[:1], y2))  # broadcast
    same(f(x.reshape(2, 4).t(), x2.reshape(4, 2)), g(y.reshape(2, 4).t(), y2.reshape(4, 2)))
    a, b = x.clone(), y.clone()
    getattr(a, op + "_")(x2)
    getattr(b, op + "_")(y2)
    same(a, b)
    out_a, out_b = tl.empty(8, dtype=tl.chalf), torch.empty(8, dtype=torch.chalf)
    f(x, x2, out=out_a)
    g(y, y2, out=out_b)
    same(out_a, out_b)


@pytest.mark.parametrize("alpha", [2, 0.5, 1j, -1])
def test_alpha(alpha):
    x, y = pair(SPECIAL[:5])
    x2, y2 = pair(SPECIAL[3:])
    same(tl.add(x, x2, alpha=alpha), torch.add(y, y2, alpha=alpha))
    same(tl.sub(x, x2, alpha=alpha), torch.sub(y, y2, alpha=alpha))
    same(tl.add(x, 1 + 1j, alpha=alpha), torch.add(y, 1 + 1j, alpha=alpha))
    same(tl.rsub(x, x2, alpha=alpha), torch.rsub(y, y2, alpha=alpha))


@pytest.mark.parametrize("other", ["float16", "int64", "bool", "uint8", "float32", "bfloat16", "complex64",
                                   "complex128", "float64"])
def test_mixed_dtypes(other):
    x, y = pair(SPECIAL[:4] + SPECIAL[-1:])
    base = torch.tensor([1, 2, 0, 3, 1])
    o_t = base.to(T(other)) if other != "bool" else base.bool()
    o_l = tl.tensor(o_t.to(torch.complex128 if o_t.is_complex() else torch.float64).numpy()).to(L(other))
    for op in ("add", "sub", "mul"):
        if op == "sub" and other == "bool":
            continue
        same(getattr(tl, op)(x, o_l), getattr(torch, op)(y, o_t))
        same(getattr(tl, op)(o_l, x), getattr(torch, op)(o_t, y))


def test_unary():
    x, y = pair(SPECIAL)
    same(-x, -y)
    same(tl.neg(x), torch.neg(y))
    same(x.abs(), y.abs())
    same(tl.abs(x, out=tl.empty(8, dtype=tl.float16)), torch.abs(y, out=torch.empty(8, dtype=torch.float16)))
    same(x.sgn(), y.sgn())
    same(tl.addcmul(x, x, x), torch.addcmul(y, y, y))  # more in tests/test_complex32_gaps.py
    same(tl.outer(x[:3], x[2:5]), torch.outer(y[:3], y[2:5]))


def test_comparisons_and_classification():
    x, y = pair(SPECIAL)
    x2, y2 = pair(list(reversed(SPECIAL)))
    same(x == x2, y == y2)
    same(x != x, y != y)
    same(x == (1 + 2j), y == (1 + 2j))
    same(x.ne(3 - 4j), y.ne(3 - 4j))
    same(x == x.to(tl.complex64), y == y.to(torch.complex64))
    same(x.isnan(), y.isnan())
    same(x.isinf(), y.isinf())
    same(x.isfinite(), y.isfinite())
    same(tl.isclose(x, x2), torch.isclose(y, y2))
    a, b = pair([1 + 1j, 100 + 1j, 1e-3j, float("nan")])
    a2, b2 = pair([1.001 + 1j, 100.1 + 1j, 0j, float("nan")])
    same(tl.isclose(a, a2, rtol=1e-3, atol=1e-5), torch.isclose(b, b2, rtol=1e-3, atol=1e-5))
    same(tl.isclose(a, a2, equal_nan=True), torch.isclose(b, b2, equal_nan=True))
    assert tl.allclose(x[:2], x[:2]) == torch.allclose(y[:2], y[:2])


def test_variance_and_norm():
    x, y = pair(VALUES[:4] + VALUES[5:])
    same(x.var(), y.var())
    same(x.std(), y.std())
    same(tl.linalg.vector_norm(x), torch.linalg.vector_norm(y))


# ---------------------------------------------------------------- what PyTorch's CPU refuses

REFUSED = {
    "div": lambda m, t: t / t, "div_scalar": lambda m, t: t / 2, "sum": lambda m, t: t.sum(),
    "sum_dim": lambda m, t: t.sum(0), "mean": lambda m, t: t.mean(), "prod": lambda m, t: t.prod(),
    "mm": lambda m, t: m.mm(t.reshape(-1, 1), t.reshape(1, -1)), "matmul": lambda m, t: t @ t,
    "exp": lambda m, t: t.exp(), "log": lambda m, t: t.log(), "sqrt": lambda m, t: t.sqrt(),
    "sin": lambda m, t: t.sin(), "tanh": lambda m, t: t.tanh(), "pow": lambda m, t: t ** 2,
    "reciprocal": lambda m, t: t.reciprocal(), "angle": lambda m, t: t.angle(), "equal": lambda m, t: m.equal(t, t),
    "cumsum": lambda m, t: t.cumsum(0), "lt": lambda m, t: t < t, "sort": lambda m, t: t.sort(),
    "max": lambda m, t: t.max(), "isposinf": lambda m, t: t.isposinf(), "signbit": lambda m, t: t.signbit(),
    "sign": lambda m, t: t.sign(), "clamp": lambda m, t: t.clamp(0, 1), "det": lambda m, t: m.linalg.det(t.reshape(2, 2)),
    "fft": lambda m, t: m.fft.fft(t), "logical_not": lambda m, t: t.logical_not(),
    "bitwise_and": lambda m, t: t & t, "arange": lambda m, t: m.arange(3, dtype=m.chalf),
    "flip": lambda m, t: t.flip(0), "eye": lambda m, t: m.eye(2, dtype=m.chalf),
    "take": lambda m, t: t.take(m.tensor([0])),
    "masked_scatter": lambda m, t: t.masked_scatter(m.tensor([True, False, True, False]), t),
    "gather": lambda m, t: t.gather(0, m.tensor([1])),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_like_pytorch(name):
    x, y = pair([1 + 2j, 3 - 4j, 0.5j, 2 + 0j])
    with pytest.raises(Exception) as theirs:
        REFUSED[name](torch, y)
    with pytest.raises(Exception) as ours:
        REFUSED[name](tl, x)
    # The same exception class (NotImplementedError where PyTorch has no complex32 kernel).
    assert isinstance(ours.value, type(theirs.value)) or isinstance(theirs.value, type(ours.value)), \
        (name, ours.value, theirs.value)
    assert isinstance(ours.value, (RuntimeError, TypeError)), ours.value


def test_refusals_name_op_and_dtype():
    x, _ = pair()
    with pytest.raises(NotImplementedError, match="(?i)exp.*(complex32|ComplexHalf)"):
        x.exp()
    with pytest.raises(NotImplementedError, match="sum_cpu.*ComplexHalf"):
        x.sum()
    with pytest.raises(NotImplementedError, match="(?i)div.*(complex32|ComplexHalf)"):
        x / x


@pytest.mark.parametrize("name", ["complex32", "complex64", "complex128"])
def test_finfo_of_complex(name):
    ours, theirs = tl.finfo(L(name)), torch.finfo(T(name))
    assert (ours.bits, ours.eps, ours.max, ours.min, ours.tiny, ours.resolution, ours.dtype) == \
        (theirs.bits, theirs.eps, theirs.max, theirs.min, theirs.tiny, theirs.resolution, theirs.dtype)


def test_masked_fill():
    x, y = pair(shape=(2, 4))
    m = [[True, False, True, False], [False, False, True, True]]
    for big in (3 - 1e5j, 7e4):  # PyTorch's checked conversion (fill_ does not check)
        with pytest.raises(RuntimeError, match="without overflow"):
            y.masked_fill(torch.tensor(m), big)
        with pytest.raises(RuntimeError, match="without overflow"):
            x.masked_fill(tl.tensor(m), big)
    for v in (1j, 2.5, 3 - 1e4j, float("inf"), complex(float("nan"), 1)):
        same(x.masked_fill(tl.tensor(m), v), y.masked_fill(torch.tensor(m), v))
        same(x.t().masked_fill(tl.tensor(m).t(), v), y.t().masked_fill(torch.tensor(m).t(), v))  # strided
        same(x.masked_fill(tl.tensor(m[0]), v), y.masked_fill(torch.tensor(m[0]), v))  # broadcast mask
    a, b = x.clone(), y.clone()
    a.masked_fill_(tl.tensor(m), tl.tensor(2j))
    b.masked_fill_(torch.tensor(m), torch.tensor(2j))
    same(a, b)


def test_index_copy():
    x, y = pair(shape=(2, 4))
    sx, sy = pair([5j, 6, 7 - 1j, 8, 9, 1j, 2, 3], (2, 4))
    same(x.index_copy(1, tl.tensor([3, 0, 1, 2]), sx), y.index_copy(1, torch.tensor([3, 0, 1, 2]), sy))
    same(x.index_copy(0, tl.tensor([1]), sx[:1]), y.index_copy(0, torch.tensor([1]), sy[:1]))


def test_roll():
    x, y = pair(shape=(2, 4))
    same(x.roll(1), y.roll(1))
    same(x.roll(-1, 1), y.roll(-1, 1))


def test_requires_grad_allowed():
    x, y = pair()
    assert x.clone().requires_grad_().requires_grad
    assert repr(x.clone().requires_grad_()) == tr(repr(y.clone().requires_grad_()))
