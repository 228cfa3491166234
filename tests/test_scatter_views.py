"""Tensor.view(dtype), select/slice/diagonal/as_strided_scatter, the varargs-of-tensors front ends and
complex reductions into a real out=, against PyTorch 2.13 (docs/catalog10.md, "scatter10")."""
import warnings

import numpy as np
import pytest
import torch

import torchlite as tl
from conftest import from_torch

ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
       "complex32", "complex64", "complex128"]


def tt(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype == "bool":
        return torch.randint(0, 2, shape, generator=g).bool()
    dt = getattr(torch, dtype)
    if dt.is_complex:
        return torch.randn(shape, generator=g, dtype=torch.complex64).to(dt)
    if dt.is_floating_point:
        return torch.randn(shape, generator=g).to(dt)
    return torch.randint(-5, 6, shape, generator=g).to(dt)


def raw(t):
    """The bytes of a tensor's elements in logical order (any dtype, complex32 and bfloat16 included)."""
    if isinstance(t, torch.Tensor):
        c = t.contiguous() if t.dim() else t.reshape(1).contiguous()
        return c.view(torch.uint8).numpy().tobytes()
    c = t.contiguous() if t.dim() else t.reshape(1).contiguous()
    return c.view(tl.uint8).numpy().tobytes()


def same_geometry(a, b):
    assert tuple(a.shape) == tuple(b.shape)
    assert tuple(a.stride()) == tuple(b.stride())
    assert a.storage_offset() == b.storage_offset()
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]


def same_error(f_torch, f_tl, exact=True):
    with pytest.raises(Exception) as te:
        f_torch()
    with pytest.raises(Exception) as le:
        f_tl()
    assert type(le.value) is type(te.value) or isinstance(le.value, type(te.value)), (le.value, te.value)
    if exact:  # torchlite may name the op first ("select: Dimension out of range ...")
        assert str(le.value).endswith(str(te.value)), (str(le.value), str(te.value))


# ---- view(dtype) ----

@pytest.mark.parametrize("src", ALL)
@pytest.mark.parametrize("dst", ALL)
def test_view_dtype_every_pair(src, dst):
    t = tt((3, 16), src)
    lt = from_torch(t)
    if dst == "bool" and src != "bool":
        # Refused by torchlite (PyTorch reads any nonzero byte as True; torchlite's bool kernels need 0 or 1):
        # a byte 0x80 viewed as bool summed to 128 and was undefined behaviour under UBSan.
        with pytest.raises(RuntimeError, match="as bool is not supported by torchlite"):
            lt.view(tl.bool)
        return
    r, lr = t.view(getattr(torch, dst)), lt.view(getattr(tl, dst))
    same_geometry(lr, r)
    assert raw(lr) == raw(r)
    assert lr.data_ptr() == lt.data_ptr()  # shares memory


@pytest.mark.parametrize("make", [
    lambda m, x: x.t(),                 # last stride 4
    lambda m, x: x[:, 1:],              # odd last size
    lambda m, x: x[:, 1:5],             # offset 1
    lambda m, x: x[:, :4],              # fine: strides 8, offset 0
    lambda m, x: x[1:, 2:6],            # offset 10
    lambda m, x: x.reshape(-1)[1:].reshape(-1)[:2 * 3].reshape(3, 2),  # offset 1
    lambda m, x: x[::2],                # stride 16
    lambda m, x: x.reshape(-1)[:24].reshape(8, 3)[:, :2],  # stride 3
    lambda m, x: x[0, 0],               # 0-d
    lambda m, x: x[:0],                 # empty
    lambda m, x: x[:, :0],              # empty last dim
    lambda m, x: x.reshape(2, 2, 2, 4)[..., :2],
])
@pytest.mark.parametrize("pair", [("float32", "float64"), ("float32", "int16"), ("int16", "complex64"),
                                  ("float32", "float32"), ("float32", "int32"), ("int8", "complex128"),
                                  ("complex64", "float32")])
def test_view_dtype_layouts_and_errors(make, pair):
    src, dst = pair
    t = tt((4, 8), src)
    lt = from_torch(t)
    tv, lv = make(torch, t), make(tl, lt)
    try:
        r = tv.view(getattr(torch, dst))
    except RuntimeError as e:
        with pytest.raises(RuntimeError) as le:
            lv.view(getattr(tl, dst))
        assert str(le.value) == str(e)
        return
    lr = lv.view(dtype=getattr(tl, dst))  # keyword form
    same_geometry(lr, r)
    assert raw(lr) == raw(r)


def test_view_dtype_conj_and_neg_refused():
    z = tt((3, 4), "complex64")
    same_error(lambda: z.conj().view(torch.float32), lambda: from_torch(z).conj().view(tl.float32))
    same_error(lambda: z.conj().view(torch.complex64), lambda: from_torch(z).conj().view(tl.complex64))
    x = tt((3, 4), "float32")
    same_error(lambda: x._neg_view().view(torch.int32), lambda: from_torch(x)._neg_view().view(tl.int32))
    same_error(lambda: x.view("float"), lambda: from_torch(x).view("float"), exact=False)


def test_view_dtype_is_not_differentiable():
    for m in (torch, tl):
        x = m.ones(3, 4, requires_grad=True)
        for dt in (m.float32, m.int32, m.float64, m.complex64):
            v = (x * 2).view(dt)
            assert not v.requires_grad and v.grad_fn is None
        v = x.view(m.float32)
        assert not v.requires_grad and v._base is None
        y = x * 1
        v = y.view(m.float32)
        v.mul_(2)  # in place through it: not recorded on y's history
        assert type(y.grad_fn).__name__ == "MulBackward0"


def test_view_dtype_shares_storage_and_meta():
    x = tl.zeros(2, 4)
    v = x.view(tl.int32)
    v[0, 0] = 0x3F800000  # the bits of 1.0
    assert x[0, 0].item() == 1.0
    assert x.view(tl.uint8).shape == (2, 16)
    m = tl.empty(2, 4, device="meta")
    for dt, shape in ((tl.float64, (2, 2)), (tl.int8, (2, 16)), (tl.int32, (2, 4))):
        r = m.view(dt)
        assert r.device.type == "meta" and tuple(r.shape) == shape and r.dtype == dt
    with pytest.raises(RuntimeError, match="must be divisible by 2"):
        tl.empty(2, 3, device="meta").view(tl.float64)


# ---- the *_scatter ops ----

SCATTER_CASES = [
    ("select_scatter", (3, 4), (4,), (0, 1), {}),
    ("select_scatter", (3, 4), (3,), (-1, -2), {}),
    ("select_scatter", (2, 3, 4), (2, 4), (), {"dim": 1, "index": 2}),
    ("select_scatter", (5,), (), (0, 3), {}),
    ("slice_scatter", (5, 4), (2, 4), (0, 1, 4, 2), {}),
    ("slice_scatter", (3, 6), (3, 4), (1, -4), {}),
    ("slice_scatter", (3, 4), (3, 4), (), {}),
    ("slice_scatter", (3, 4), (3, 2), (-1,), {"end": -2}),
    ("slice_scatter", (3, 4), (3, 0), (1, 5, 10), {}),
    ("slice_scatter", (0, 4), (0, 2), (1, 0, 2), {}),
    ("diagonal_scatter", (3, 4), (3,), (), {}),
    ("diagonal_scatter", (3, 4), (3,), (1,), {}),
    ("diagonal_scatter", (3, 4), (3,), (-1, 1, 0), {}),
    ("diagonal_scatter", (2, 3, 4), (2, 3), (), {"offset": 0, "dim1": -2, "dim2": -1}),
    ("diagonal_scatter", (3, 4), (0,), (10,), {}),
    ("as_strided_scatter", (3, 4), (2, 2), ((2, 2), (1, 2), 1), {}),
    ("as_strided_scatter", (3, 4), (4,), ((4,), (3,)), {}),
    ("as_strided_scatter", (2, 3), (2, 3), ((2, 3), (3, 1)), {"storage_offset": 0}),
]


def _call(m, name, self, src, args, kw, method=False):
    if method:
        return getattr(self, name)(src, *args, **kw)
    return getattr(m, name)(self, src, *args, **kw)


@pytest.mark.parametrize("case", SCATTER_CASES, ids=lambda c: f"{c[0]}{c[1]}{c[3]}{sorted(c[4])}")
@pytest.mark.parametrize("dtype", ALL)
def test_scatter_values_every_dtype(case, dtype):
    name, shape, sshape, args, kw = case
    t, s = tt(shape, dtype), tt(sshape, dtype, seed=1)
    r = _call(torch, name, t, s, args, kw)
    for method in (False, True):
        lr = _call(tl, name, from_torch(t), from_torch(s), args, kw, method)
        same_geometry(lr, r)
        assert raw(lr) == raw(r)


@pytest.mark.parametrize("layout", ["transposed", "sliced", "expanded", "offset"])
@pytest.mark.parametrize("case", SCATTER_CASES[:14], ids=lambda c: f"{c[0]}{c[1]}{c[3]}{sorted(c[4])}")
def test_scatter_non_contiguous_self_keeps_geometry(case, layout):
    name, shape, sshape, args, kw = case
    base = tt(shape, "float32")

    def lay(m, x):
        if layout == "transposed":
            return x.transpose(0, -1).contiguous().transpose(0, -1)
        if layout == "sliced":
            big = m.zeros(shape[:-1] + (2 * shape[-1],))
            big[..., ::2] = x
            return big[..., ::2]
        if layout == "expanded":
            return x[:1].expand(shape) if shape[0] > 0 else x
        big = m.zeros((shape[0] + 1,) + tuple(shape[1:]))
        big[1:] = x
        return big[1:]

    s = tt(sshape, "float32", seed=1)
    r = _call(torch, name, lay(torch, base), s, args, kw)
    lr = _call(tl, name, lay(tl, from_torch(base)), from_torch(s), args, kw)
    same_geometry(lr, r)
    assert np.array_equal(lr.numpy(), r.numpy())


def test_as_strided_scatter_non_dense_self():
    x = tt((4, 6), "float32")
    s = tt((2, 2), "float32", seed=1)
    for make in (lambda t: t.t(), lambda t: t[:, ::2], lambda t: t[1:]):
        r = torch.as_strided_scatter(make(x), s, (2, 2), (1, 2), 1)
        lr = tl.as_strided_scatter(make(from_torch(x)), from_torch(s), (2, 2), (1, 2), 1)
        same_geometry(lr, r)
        assert np.array_equal(lr.numpy(), r.numpy())


def test_scatter_src_dtype_converted():
    x = tt((3, 4), "float32")
    for sdt in ("float64", "int64", "bool", "float16"):
        s = tt((4,), sdt, seed=2)
        r = torch.select_scatter(x, s, 0, 1)
        lr = tl.select_scatter(from_torch(x), from_torch(s), 0, 1)
        assert lr.dtype == tl.float32 and np.array_equal(lr.numpy(), r.numpy())
    s = tt((4,), "complex64", seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = torch.select_scatter(x, s, 0, 1)
        lr = tl.select_scatter(from_torch(x), from_torch(s), 0, 1)
    assert np.array_equal(lr.numpy(), r.numpy())


ERROR_CASES = [
    ("select_scatter", (3, 4), (3,), (0, 1), {}),
    ("select_scatter", (3, 4), (4,), (0, 3), {}),
    ("select_scatter", (3, 4), (4,), (2, 0), {}),
    ("select_scatter", (3, 4), (4,), (0, -4), {}),
    ("select_scatter", (), (), (0, 0), {}),
    ("slice_scatter", (3, 4), (3, 4), (), {"step": 0}),
    ("slice_scatter", (3, 4), (3, 4), (), {"step": -1}),
    ("slice_scatter", (3, 4), (3, 4), (5,), {}),
    ("slice_scatter", (3, 4), (3, 3), (1,), {}),
    ("diagonal_scatter", (3, 4), (2,), (0, 0, 0), {}),
    ("diagonal_scatter", (3, 4), (4,), (), {}),
    ("diagonal_scatter", (3, 4), (3,), (0, 0, 2), {}),
    ("as_strided_scatter", (3, 4), (2, 3), ((2, 2), (1, 2)), {}),
    ("as_strided_scatter", (3, 4), (2, 2), ((2, 2), (1, 2), 11), {}),
    ("as_strided_scatter", (3, 4), (2,), ((2,), (1,), -1), {}),
    ("as_strided_scatter", (3, 4), (2, 2), ((2, 2), (1,)), {}),
]


@pytest.mark.parametrize("case", ERROR_CASES, ids=lambda c: f"{c[0]}{c[1]}{c[2]}{c[3]}{sorted(c[4])}")
def test_scatter_errors(case):
    name, shape, sshape, args, kw = case
    t, s = tt(shape, "float32"), tt(sshape, "float32", seed=1)
    # Messages are compared where they are the op's own (torch's as_strided says "setStorage").
    same_error(lambda: _call(torch, name, t, s, args, kw), lambda: _call(tl, name, from_torch(t), from_torch(s), args, kw),
               exact=name != "as_strided_scatter")


def test_scatter_out_is_not_bound_in_python():
    for m in (torch, tl):
        x = m.zeros(3, 4)
        for name, src, args in (("select_scatter", m.ones(4), (0, 1)), ("diagonal_scatter", m.ones(3), ()),
                                ("as_strided_scatter", m.ones(2), ((2,), (1,)))):
            with pytest.raises(TypeError):
                getattr(m, name)(x, src, *args, out=m.empty(3, 4))


def test_slice_scatter_out():
    x, s = tt((3, 4), "float32"), tt((3, 2), "float32", seed=1)
    for out_t, out_l in ((torch.empty(3, 4), tl.empty(3, 4)), (torch.empty(0), tl.empty(0)),
                         (torch.empty(5, 5)[:3, :4], tl.empty(5, 5)[:3, :4])):
        r = torch.slice_scatter(x, s, 1, 0, None, 2, out=out_t)
        lr = tl.slice_scatter(from_torch(x), from_torch(s), 1, 0, None, 2, out=out_l)
        assert lr is out_l and np.array_equal(lr.numpy(), r.numpy())
    for m, a, b in ((torch, x, s), (tl, from_torch(x), from_torch(s))):
        with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got double instead"):
            m.slice_scatter(a, b, 1, 0, None, 2, out=m.empty(3, 4, dtype=m.float64))
        xr = a.clone().requires_grad_()
        r = m.slice_scatter(xr, b, 1, 0, None, 2, out=m.empty(3, 4))
        assert r.requires_grad and type(r.grad_fn).__name__ == "NotImplemented"
    m = tl.slice_scatter(tl.empty(3, 4, device="meta"), tl.empty(3, 2, device="meta"), 1, 0, None, 2,
                         out=tl.empty(0, device="meta"))
    assert tuple(m.shape) == (3, 4)


def test_as_strided_scatter_refuses_non_contiguous_self_requiring_grad():
    for m in (torch, tl):
        x = m.zeros(4, 3, dtype=m.float64, requires_grad=True)
        with pytest.raises(RuntimeError, match="as_strided_scatter is currently only supported for contiguous inputs"):
            m.as_strided_scatter(x.t(), m.ones(2, 2, dtype=m.float64), (2, 2), (1, 2))
        m.as_strided_scatter(x.t().detach(), m.ones(2, 2, dtype=m.float64), (2, 2), (1, 2))


@pytest.mark.parametrize("case", SCATTER_CASES, ids=lambda c: f"{c[0]}{c[1]}{c[3]}{sorted(c[4])}")
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_scatter_gradients(case, dtype):
    name, shape, sshape, args, kw = case
    t, s = tt(shape, dtype), tt(sshape, dtype, seed=1)
    lx, ls = from_torch(t).requires_grad_(), from_torch(s).requires_grad_()
    f = lambda a, b: _call(tl, name, a, b, args, kw)  # noqa: E731
    if dtype == "complex128" and name in ("select_scatter", "slice_scatter"):  # PyTorch refuses these
        for m, a, b in ((torch, t.clone().requires_grad_(), s), (tl, lx, ls)):
            with pytest.raises(RuntimeError, match=f"{name} does not support automatic differentiation for "
                                                   "outputs with complex dtype"):
                _call(m, name, a, b, args, kw)
        return
    assert tl.autograd.gradcheck(f, (lx, ls))
    assert tl.autograd.gradgradcheck(f, (lx, ls))
    # Against PyTorch's gradients (its as_strided_scatter self gradient is wrong: docs/catalog10.md).
    g = tt(tuple(_call(torch, name, t, s, args, kw).shape), dtype, seed=3)
    tx, ts = t.clone().requires_grad_(), s.clone().requires_grad_()
    want = torch.autograd.grad(_call(torch, name, tx, ts, args, kw), (tx, ts), g, allow_unused=True)
    got = tl.autograd.grad(f(lx, ls), (lx, ls), from_torch(g), allow_unused=True)
    assert np.allclose(got[1].numpy(), want[1].numpy())
    if name != "as_strided_scatter":
        assert np.allclose(got[0].numpy(), want[0].numpy())
    else:  # the right one: grad with the written positions zeroed
        mask = torch.as_strided_scatter(torch.ones(shape), torch.zeros(sshape), *args, **kw).numpy()
        assert np.allclose(got[0].numpy(), g.numpy() * mask)
    assert type(f(lx, ls).grad_fn).__name__ == "".join(p.title() for p in name.split("_")) + "Backward0"


def test_scatter_meta_shapes():
    for name, shape, sshape, args, kw in SCATTER_CASES:
        r = _call(tl, name, tl.empty(shape, device="meta"), tl.empty(sshape, device="meta"), args, kw)
        want = _call(torch, name, torch.empty(shape, device="meta"), torch.empty(sshape, device="meta"), args, kw)
        assert r.device.type == "meta" and tuple(r.shape) == tuple(want.shape)
    with pytest.raises(RuntimeError, match="expected src to have a size equal to the slice of self"):
        tl.select_scatter(tl.empty(3, 4, device="meta"), tl.empty(3, device="meta"), 0, 0)


# ---- varargs-of-tensors front ends ----

LIST_CASES = {
    "block_diag list": lambda m, a, b: m.block_diag([a, b]),
    "block_diag tuple": lambda m, a, b: m.block_diag((a, b)),
    "block_diag args": lambda m, a, b: m.block_diag(a, b),
    "block_diag list1": lambda m, a, b: m.block_diag([a]),
    "cartesian_prod list": lambda m, a, b: m.cartesian_prod([a[0], b]),
    "cartesian_prod args": lambda m, a, b: m.cartesian_prod(a[0], b),
    "cartesian_prod one": lambda m, a, b: m.cartesian_prod(b),
    "chain_matmul list": lambda m, a, b: m.chain_matmul([a, a]),
    "chain_matmul tuple": lambda m, a, b: m.chain_matmul((a, a)),
    "chain_matmul args": lambda m, a, b: m.chain_matmul(a, a, a),
    "broadcast_tensors list": lambda m, a, b: m.broadcast_tensors([a, b]),
    "broadcast_tensors args": lambda m, a, b: m.broadcast_tensors(a, b),
    "meshgrid list": lambda m, a, b: m.meshgrid([a[0], b], indexing="ij"),
    "meshgrid args": lambda m, a, b: m.meshgrid(a[0], b, indexing="xy"),
    "atleast_1d list": lambda m, a, b: m.atleast_1d([a, b]),
    "atleast_2d tuple": lambda m, a, b: m.atleast_2d((a[0, 0], b)),
    "atleast_3d args": lambda m, a, b: m.atleast_3d(a, b),
    "einsum list": lambda m, a, b: m.einsum("ij,j->i", [a, b]),
    "einsum args": lambda m, a, b: m.einsum("ij,j->i", a, b),
    "linalg.multi_dot list": lambda m, a, b: m.linalg.multi_dot([a, a]),
    "linalg.multi_dot args": lambda m, a, b: m.linalg.multi_dot(a, a),
}


@pytest.mark.parametrize("name", list(LIST_CASES))
def test_list_arguments_as_torch(name):
    f = LIST_CASES[name]
    a, b = tt((2, 2), "float64"), tt((2,), "float64", seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = f(torch, a, b)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)) as le:
                f(tl, from_torch(a), from_torch(b))
            if name.split()[0] in ("block_diag", "cartesian_prod", "chain_matmul"):
                assert str(le.value) == str(e)
            return
        got = f(tl, from_torch(a), from_torch(b))
    want = want if isinstance(want, (tuple, list)) else [want]
    got = got if isinstance(got, (tuple, list)) else [got]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.allclose(g.numpy(), w.numpy())


# ---- complex reductions into a real out= ----

@pytest.mark.parametrize("odt", ["float32", "float64", "float16", "complex64", "complex128", "int64", "bool"])
@pytest.mark.parametrize("op", ["logsumexp", "sum", "mean"])
@pytest.mark.parametrize("shape,dim", [((3, 5), 1), ((4, 3), (0, 1)), ((0, 3), 0), ((2, 3), -1)])
def test_complex_reduction_into_out(op, odt, shape, dim):
    z = tt(shape, "complex64")
    z[0:1] = z[0:1] * 3 + 2j  # some large parts: Re(sum exp) negative somewhere gives NaN in both
    results = []
    for m, x in ((torch, z), (tl, from_torch(z))):
        out = m.empty(0, dtype=getattr(m, odt))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                r = getattr(m, op)(x, dim, out=out)
                results.append((r, [str(i.message) for i in w]))
            except Exception as e:  # noqa: BLE001
                results.append((type(e), str(e)))
    (want, wmsg), (got, gmsg) = results
    if isinstance(want, type):
        assert got is want or issubclass(got, want), (got, gmsg, wmsg)
        return
    assert not isinstance(got, type), gmsg
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    tol = 1e-2 if odt == "float16" else 1e-5
    assert np.allclose(got.numpy().astype(np.complex128), want.numpy().astype(np.complex128), rtol=tol, atol=tol,
                       equal_nan=True)
    # (PyTorch's "discards the imaginary part" warning is once per process, torchlite's each time: not compared)


def test_logsumexp_complex_real_out_is_log_of_real_part():
    z = torch.tensor([[0.1 + 3.0j, 0.2 + 3.0j], [1.0 + 0.5j, -1.0 - 0.5j]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.logsumexp(z, 1, out=torch.empty(0))
        got = tl.logsumexp(from_torch(z), 1, out=tl.empty(0))
    assert np.isnan(want[0].item()) and np.isnan(got[0].item())  # Re(sum) < 0: log gives NaN, as PyTorch
    assert np.allclose(got.numpy(), want.numpy(), equal_nan=True)


@pytest.mark.parametrize("odt", ["float16", "float32", "float64", "complex64", "complex128", "int64"])
def test_complex_abs_out_dtypes(odt):
    z = tt((2, 3), "complex64")
    outs = []
    for m, x in ((torch, z), (tl, from_torch(z))):
        try:
            outs.append(m.abs(x, out=m.empty(0, dtype=getattr(m, odt))))
        except RuntimeError as e:
            outs.append(str(e))
    want, got = outs
    if isinstance(want, str):
        assert isinstance(got, str) and (got == want or odt == "int64"), (got, want)
        return
    assert str(got.dtype).split(".")[-1] == odt
    assert np.allclose(got.numpy(), want.numpy(), rtol=1e-3)


def test_frobenius_and_nuclear_norm():
    x = tt((2, 3, 4), "float64")
    z = tt((3, 4), "complex64")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's deprecation warnings
        for f in (lambda m, a, c: m.frobenius_norm(a, (0, 2)), lambda m, a, c: m.frobenius_norm(a, -1, True),
                  lambda m, a, c: m.frobenius_norm(c, (0, 1)), lambda m, a, c: m.nuclear_norm(a),
                  lambda m, a, c: m.nuclear_norm(a, True), lambda m, a, c: m.nuclear_norm(a, (0, 2), keepdim=True),
                  lambda m, a, c: m.nuclear_norm(c), lambda m, a, c: m.nuclear_norm(c, out=m.empty(0))):
            want, got = f(torch, x, z), f(tl, from_torch(x), from_torch(z))
            assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
            assert np.allclose(got.numpy(), want.numpy())
        for f in (lambda m, a: m.frobenius_norm(a, (0, 1, 2)), lambda m, a: m.nuclear_norm(a.long()),
                  lambda m, a: m.frobenius_norm(a, (0, 1), out=m.empty(0, dtype=m.float32)),
                  lambda m, a: m.nuclear_norm(a, out=m.empty(0, dtype=m.float32))):
            with pytest.raises(RuntimeError):
                f(torch, x)
            with pytest.raises(RuntimeError):
                f(tl, from_torch(x))
        same_error(lambda: torch.frobenius_norm(x, (0, 1, 2)), lambda: tl.frobenius_norm(from_torch(x), (0, 1, 2)))
        for m in (torch, tl):
            with pytest.raises(TypeError):
                m.frobenius_norm(m.ones(2, 2))
