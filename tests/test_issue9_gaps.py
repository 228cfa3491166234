"""Issue 9's last correctness gaps, each checked against PyTorch: histogramdd with edge tensors, the
tensor options every factory takes (layout=, pin_memory=, memory_format=, requires_grad=),
is_contiguous(memory_format=), reshape/flatten's copy path (not a view), broadcast_tensors' varargs,
meshgrid's warning, resize_as_ across devices, asarray of bfloat16 buffers and storages, and the
autograd engine's check of a gradient's shape."""
import warnings

import numpy as np
import pytest
import torch

import torchlite as tl
from torchlite import functional as tl_functional


def from_torch(t):
    return tl.from_numpy(t.detach().numpy().copy()) if t.dtype != torch.bfloat16 else \
        tl.from_numpy(t.float().numpy().copy()).to(tl.bfloat16)


def assert_same(got, expected):
    assert tuple(got.shape) == tuple(expected.shape)
    assert str(got.dtype).split(".")[1] == str(expected.dtype).split(".")[1]
    np.testing.assert_array_equal(got.float().numpy() if got.dtype == tl.bfloat16 else got.numpy(),
                                  expected.float().numpy() if expected.dtype == torch.bfloat16 else expected.numpy())


# ------------------------------------------------------------------------------------------- histogramdd

POINTS = [[0.0, 1.0], [1.0, 0.0], [2.0, 0.5], [2.0, 2.0], [0.25, 0.75], [1.5, 1.5], [-1.0, 0.0]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("container", [list, tuple])
@pytest.mark.parametrize("kwargs", [
    {},
    {"range": [5.0, 6.0, 5.0, 6.0]},  # ignored when the edges are given, as in PyTorch
    {"weight": "w"},
    {"weight": "w", "density": True},
    {"density": True},
])
def test_histogramdd_edge_tensors(dtype, container, kwargs):
    results = []
    for lib in (torch, tl):
        dt = getattr(lib, dtype)
        x = lib.tensor(POINTS, dtype=dt)
        edges = container([lib.tensor([-1.0, 0.5, 2.0], dtype=dt), lib.tensor([0.0, 0.25, 1.0, 2.5], dtype=dt)])
        kw = dict(kwargs)
        if kw.get("weight") == "w":
            kw["weight"] = lib.arange(1.0, 8.0, dtype=dt)
        r = lib.histogramdd(x, edges, **kw)
        assert r.bin_edges[0] is edges[0] and r.bin_edges[1] is edges[1]  # the tensors given
        results.append(r)
    assert type(results[1]).__name__ == "histogramdd"
    np.testing.assert_allclose(results[1].hist.numpy(), results[0].hist.numpy(), rtol=1e-6)
    assert results[1].hist.dtype == getattr(tl, dtype)


def test_histogramdd_edge_tensors_keyword_and_errors():
    x, tx = tl.tensor(POINTS), torch.tensor(POINTS)
    e, te = [tl.tensor([0.0, 1.0, 2.0]), tl.tensor([0.0, 2.0])], [torch.tensor([0.0, 1.0, 2.0]), torch.tensor([0.0, 2.0])]
    np.testing.assert_array_equal(tl.histogramdd(x, bins=e).hist.numpy(), torch.histogramdd(tx, bins=te).hist.numpy())
    # int and int[] bins still reach their own overloads
    np.testing.assert_array_equal(tl.histogramdd(x, [2, 3]).hist.numpy(), torch.histogramdd(tx, [2, 3]).hist.numpy())
    np.testing.assert_array_equal(tl.histogramdd(x, 2).hist.numpy(), torch.histogramdd(tx, 2).hist.numpy())
    for lib, xs, es in ((torch, tx, te), (tl, x, e)):
        with pytest.raises(RuntimeError, match="same dtype"):
            lib.histogramdd(xs.double(), es)
        with pytest.raises(RuntimeError):
            lib.histogramdd(xs, es[:1])  # one edge tensor per coordinate


# ------------------------------------------------------------------------------------------- factories

FACTORIES = {
    "zeros": lambda L, **k: L.zeros(2, 3, **k),
    "ones": lambda L, **k: L.ones((2, 3), **k),
    "full": lambda L, **k: L.full((2,), 1.5, **k),
    "empty": lambda L, **k: L.empty(2, 3, **k),
    "empty_strided": lambda L, **k: L.empty_strided((2, 3), (1, 2), **k),
    "arange": lambda L, **k: L.arange(4.0, **k),
    "arange_start": lambda L, **k: L.arange(1.0, 4.0, 0.5, **k),
    "linspace": lambda L, **k: L.linspace(0, 1, 5, **k),
    "logspace": lambda L, **k: L.logspace(0, 1, 5, **k),
    "eye": lambda L, **k: L.eye(3, **k),
    "rand": lambda L, **k: L.rand(2, 3, generator=L.Generator().manual_seed(1), **k),
    "randn": lambda L, **k: L.randn(2, 3, generator=L.Generator().manual_seed(1), **k),
    "tril_indices": lambda L, **k: L.tril_indices(3, 3, **{n: v for n, v in k.items() if n != "requires_grad"}),
    "zeros_like": lambda L, **k: L.zeros_like(L.ones(2, 3), **k),
    "ones_like": lambda L, **k: L.ones_like(L.ones(2, 3), **k),
    "full_like": lambda L, **k: L.full_like(L.ones(2, 3), 7.0, **k),
    "empty_like": lambda L, **k: L.empty_like(L.ones(2, 3), **k),
    "rand_like": lambda L, **k: (L.manual_seed(3), L.rand_like(L.ones(2, 3), **k))[1],
    "new_zeros": lambda L, **k: L.ones(2).new_zeros((2, 3), **k),
    "new_ones": lambda L, **k: L.ones(2).new_ones(2, 3, **k),
    "new_empty": lambda L, **k: L.ones(2).new_empty((2, 3), **k),
    "new_full": lambda L, **k: L.ones(2).new_full((2, 3), 4.0, **k),
    "tensor": lambda L, **k: L.tensor([1.0, 2.0], **{n: v for n, v in k.items() if n != "layout"}),
}
INT_ONLY = {"randint", "randperm"}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factory_tensor_options(name):
    make = FACTORIES[name]
    for lib in (torch, tl):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kw = {"layout": lib.strided, "pin_memory": False}
            got = make(lib, **kw)
            assert got.layout == lib.strided if hasattr(got, "layout") else True
            if name != "tril_indices":
                assert make(lib, requires_grad=True, **kw).requires_grad
    e = make(torch, layout=torch.strided, pin_memory=False)
    g = make(tl, layout=tl.strided, pin_memory=False)
    if name in ("empty_like", "empty", "empty_strided", "new_empty"):  # values undefined: geometry only
        assert g.shape == e.shape and g.stride() == e.stride() and str(g.dtype)[10:] == str(e.dtype)[6:]
    else:
        assert_same(g, e)


def test_new_tensor_takes_no_tensor_options():
    """PyTorch's new_tensor (unlike its docstring) has no layout=/pin_memory= keywords."""
    for lib in (torch, tl):
        for kw in ({"layout": lib.strided}, {"pin_memory": False}):
            with pytest.raises(TypeError):
                lib.ones(2).new_tensor([1.0], **kw)


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factory_pin_memory_needs_an_accelerator(name):
    """A CPU-only PyTorch raises RuntimeError for pin_memory=True; so does torchlite."""
    for lib in (torch, tl):
        with pytest.raises(RuntimeError, match="pin_memory=True requires a CUDA or other accelerator"):
            FACTORIES[name](lib, pin_memory=True)


@pytest.mark.parametrize("make", [
    lambda L: L.randint(5, (3,), layout=L.strided, pin_memory=False, generator=L.Generator().manual_seed(2)),
    lambda L: L.randint(1, 5, (3,), layout=L.strided, pin_memory=False, generator=L.Generator().manual_seed(2)),
    lambda L: L.randperm(5, layout=L.strided, pin_memory=False, generator=L.Generator().manual_seed(2)),
    lambda L: L.randint_like(L.ones(3), 5, layout=L.strided, pin_memory=False,
                             memory_format=L.contiguous_format).shape,
], ids=["randint", "randint_low", "randperm", "randint_like"])
def test_integer_factories_take_tensor_options(make):
    e, g = make(torch), make(tl)
    if isinstance(e, torch.Tensor):
        assert_same(g, e)
    else:
        assert tuple(g) == tuple(e)


LIKE = ["empty_like", "zeros_like", "ones_like", "rand_like", "randn_like"]


@pytest.mark.parametrize("name", LIKE + ["full_like"])
@pytest.mark.parametrize("fmt", ["preserve_format", "contiguous_format", "channels_last", None])
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "channels_last"])
def test_like_memory_format_strides(name, fmt, layout):
    strides = []
    for lib in (torch, tl):
        x = lib.ones(2, 3, 4, 5)
        if layout == "permuted":
            x = x.permute(0, 2, 1, 3)
        elif layout == "channels_last":
            x = x.contiguous(memory_format=lib.channels_last)
        kw = {} if fmt is None else {"memory_format": getattr(lib, fmt)}
        args = (x, 2.0) if name == "full_like" else (x,)
        r = getattr(lib, name)(*args, **kw)
        strides.append(r.stride())
        if name in ("zeros_like", "ones_like", "full_like"):
            expected_value = {"zeros_like": 0.0, "ones_like": 1.0, "full_like": 2.0}[name]
            assert bool((r == expected_value).all())
    assert strides[1] == strides[0]


def test_like_memory_format_channels_last_3d_and_errors():
    for lib in (torch, tl):
        x = lib.ones(2, 3, 4, 5, 6)
        assert lib.zeros_like(x, memory_format=lib.channels_last_3d).stride() == (360, 1, 90, 18, 3)
        with pytest.raises(RuntimeError):
            lib.zeros_like(lib.ones(2, 3), memory_format=lib.channels_last)  # rank 4 required


# ------------------------------------------------------------------------------------------- memory formats

@pytest.mark.parametrize("case", [
    lambda L: L.ones(2, 3),
    lambda L: L.ones(2, 3).t(),
    lambda L: L.ones(2, 3, 4, 5),
    lambda L: L.ones(2, 3, 4, 5).contiguous(memory_format=L.channels_last),
    lambda L: L.empty(2, 3, 4, 5, memory_format=L.channels_last),
    lambda L: L.ones(2, 4, 5, 3).permute(0, 3, 1, 2),
    lambda L: L.ones(2, 3, 1, 1).contiguous(memory_format=L.channels_last),
    lambda L: L.ones(2, 1, 4, 5),
    lambda L: L.ones(2, 3, 4, 5, 6).contiguous(memory_format=L.channels_last_3d),
    lambda L: L.empty(2, 3, 4, 5, 6, memory_format=L.channels_last_3d),
    lambda L: L.ones(0, 3, 4, 5),
    lambda L: L.ones(2, 3, 4, 5)[:, :, ::2],
])
def test_is_contiguous_memory_format(case):
    e, g = case(torch), case(tl)
    assert g.stride() == e.stride()
    assert g.is_contiguous() == e.is_contiguous()
    for fmt in ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format"):
        assert g.is_contiguous(memory_format=getattr(tl, fmt)) == e.is_contiguous(memory_format=getattr(torch, fmt)), fmt


def test_is_contiguous_argument_errors():
    for lib in (torch, tl):
        with pytest.raises(TypeError):
            lib.ones(2).is_contiguous(lib.contiguous_format)  # keyword-only
        with pytest.raises(TypeError):
            lib.ones(2).is_contiguous(memory_format=None)


# ------------------------------------------------------------------------------------------- flatten / reshape

@pytest.mark.parametrize("case", [
    lambda L, x: x.transpose(0, 2).flatten(),
    lambda L, x: x.transpose(0, 2).reshape(-1),
    lambda L, x: x.transpose(0, 2).flatten(1),
    lambda L, x: L.flatten(x[:, :, ::2], 0, 1),
    lambda L, x: x.transpose(0, 1).reshape(3, 2, 4),
    lambda L, x: x[:, :, ::2].reshape(2, 3, 2),
    lambda L, x: x[:, :1].expand(2, 5, 4).reshape(2, 5, 2, 2),
    lambda L, x: x.flatten(),
    lambda L, x: x.flatten(1, 1),
    lambda L, x: x[0, 0, 0].flatten(),
    lambda L, x: x.reshape(4, 6),
], ids=["flatten_t", "reshape_t", "flatten_t_1", "flatten_sliced", "reshape_t_alias", "reshape_same_shape",
        "reshape_expanded", "flatten_contiguous", "flatten_nothing", "flatten_0d", "reshape_view"])
def test_flatten_and_reshape_view_or_copy_like_torch(case):
    """As PyTorch: `view` of a contiguous input, `_reshape_alias` (ReshapeAliasBackward0) of another that can be
    viewed, and where a copy is needed the copy itself (no _base, UnsafeViewBackward0)."""
    a = torch.arange(24.0).reshape(2, 3, 4).requires_grad_()
    x = tl.arange(24.0).reshape(2, 3, 4).requires_grad_()
    e, g = case(torch, a), case(tl, x)
    assert g.shape == e.shape and g.stride() == e.stride()
    np.testing.assert_array_equal(g.detach().numpy(), e.detach().numpy())
    assert (g._base is None) == (e._base is None)
    if e._base is not None:
        assert (g._base is x) == (e._base is a)
    assert (g is x) == (e is a)
    assert type(g.grad_fn).__name__ == type(e.grad_fn).__name__
    g.sum().backward()
    e.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), a.grad.numpy())


def test_base_of_views():
    x = tl.ones(3, 4)
    v = x[1:]
    assert x._base is None and v._base is x and v[0]._base is x  # the root base, as PyTorch
    assert x.detach()._base is None


def test_unsafe_view_is_not_a_view():
    for lib in (torch, tl):
        x = lib.arange(6.0)
        op = torch.ops.aten._unsafe_view if lib is torch else tl._C._internal._unsafe_view
        y = op(x, (2, 3))
        assert y._base is None and y.data_ptr() == x.data_ptr() and y.shape == (2, 3)
        with pytest.raises(RuntimeError):
            op(x.reshape(2, 3).t(), (6,))


# ------------------------------------------------------------------------------------------- broadcast_tensors / meshgrid

def test_broadcast_tensors_takes_separate_tensors_only():
    for lib in (torch, tl):
        a, b = lib.ones(2, 1), lib.ones(3)
        assert [tuple(t.shape) for t in lib.broadcast_tensors(a, b)] == [(2, 3), (2, 3)]
        for bad in ([a, b], (a, b)):
            with pytest.raises(TypeError):
                lib.broadcast_tensors(bad)


def test_meshgrid_warns_once_without_indexing(monkeypatch):
    monkeypatch.setattr(tl_functional, "_meshgrid_warned", False)
    a, b = tl.ones(2), tl.ones(3)
    with pytest.warns(UserWarning, match="meshgrid: in an upcoming release, it will be required to pass the indexing"):
        tl.meshgrid(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tl.meshgrid(a, b)  # once per process, as PyTorch's TORCH_WARN_ONCE
        tl.meshgrid(a, b, indexing="xy")


# ------------------------------------------------------------------------------------------- resize_as_, asarray

@pytest.mark.parametrize("devices", [("cpu", "meta"), ("meta", "cpu")])
def test_resize_as_template_on_another_device(devices):
    """Only the template's sizes are read: PyTorch checks no device."""
    for lib in (torch, tl):
        self_ = lib.ones(2, device=devices[0])
        r = self_.resize_as_(lib.empty(3, 4, device=devices[1]))
        assert r is self_ and tuple(r.shape) == (3, 4) and r.device.type == devices[0]


@pytest.mark.parametrize("make", [bytes, bytearray, lambda b: memoryview(bytearray(b))])
def test_asarray_bfloat16_buffer(make):
    raw = b"\x80\x3f\x00\x40\x40\xc0"  # 1.0, 2.0, -3.0 as little-endian bfloat16
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = torch.asarray(make(raw), dtype=torch.bfloat16)
        g = tl.asarray(make(raw), dtype=tl.bfloat16)
    assert_same(g, e)
    for lib in (torch, tl):
        with pytest.raises(ValueError):
            lib.asarray(bytearray(b"\x80"), dtype=lib.bfloat16)  # not a multiple of the element size


def test_asarray_bfloat16_buffer_aliases():
    buf = bytearray(b"\x80\x3f\x00\x40")
    g = tl.asarray(buf, dtype=tl.bfloat16)
    buf[2:4] = b"\x40\x40"  # 3.0
    assert g.tolist() == [1.0, 3.0]


@pytest.mark.parametrize("dtype", [None, "float32", "int32", "bfloat16", "uint8", "float64"])
def test_asarray_untyped_storage(dtype):
    """An UntypedStorage is read as bytes (int64 unless dtype says otherwise) and shared, as PyTorch."""
    values = [1.0, 2.0, 3.0, -4.5]
    s, ts = tl.tensor(values).untyped_storage(), torch.tensor(values).untyped_storage()
    kw = {} if dtype is None else {"dtype": getattr(tl, dtype)}
    tkw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    g, e = tl.asarray(s, **kw), torch.asarray(ts, **tkw)
    assert_same(g, e)
    assert g.data_ptr() == s.data_ptr()
    c = tl.asarray(s, copy=True, **kw)
    assert c.data_ptr() != s.data_ptr()
    assert_same(c, e)


# ------------------------------------------------------------------------------------------- autograd engine

class _WrongShape:
    @staticmethod
    def make(lib, shape_of):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return shape_of(lib, g)
        return F


@pytest.mark.parametrize("grad", [
    lambda L, g: g[:1],             # (1, 4) for (2, 4): not expandable *from* the input's shape
    lambda L, g: g[:, :1],
    lambda L, g: g.reshape(8),
    lambda L, g: g.sum(0),          # (4,) for (2, 4): also refused
    lambda L, g: g.unsqueeze(0).expand(3, 2, 4),  # broadcast up: summed back to (2, 4)
    lambda L, g: g.double(),        # another dtype: cast
], ids=["rows", "cols", "flat", "reduced", "broadcast", "dtype"])
def test_engine_validates_gradient_shape_like_torch(grad):
    outcomes = []
    for lib in (torch, tl):
        x = lib.ones(2, 4, requires_grad=True)
        f = _WrongShape.make(lib, grad)
        try:
            f.apply(x).sum().backward()
            outcomes.append(("ok", x.grad.dtype == lib.float32, x.grad.numpy().tolist()))
        except RuntimeError as err:
            outcomes.append(("error", str(err).replace("torch", "").split(" returned")[1]))
    assert outcomes[1] == outcomes[0]


def test_engine_invalid_gradient_message():
    x = tl.ones(2, 4, requires_grad=True)
    f = _WrongShape.make(tl, lambda L, g: g[:1])
    with pytest.raises(RuntimeError, match=r"Function FBackward returned an invalid gradient at index 0 - got \[1, 4\] "
                                           r"but expected shape compatible with \[2, 4\]"):
        f.apply(x).sum().backward()


# ------------------------------------------------------------------------------------------- NumPy keyword names

@pytest.mark.parametrize("call", [
    lambda L, x: L.sum(x, axis=0),
    lambda L, x: x.sum(axis=1, keepdims=True),
    lambda L, x: L.cat([x, x], axis=1),
    lambda L, x: L.concatenate([x, x], axis=-1),
    lambda L, x: L.add(x1=x, x2=x),
    lambda L, x: L.abs(x=x),
    lambda L, x: L.mean(a=x, axis=(0, 1), keepdims=True),
    lambda L, x: L.amax(x, axis=0),
])
def test_numpy_keyword_aliases(call):
    """PyTorch's parser also takes NumPy's axis/keepdims/x/a/x1/x2 for dim/keepdim/input/other."""
    a = torch.arange(6.0).reshape(2, 3)
    assert_same(call(tl, from_torch(a)), call(torch, a))


def test_numpy_keyword_alias_with_its_keyword_is_an_error():
    for lib in (torch, tl):
        with pytest.raises(TypeError):
            lib.sum(lib.ones(2, 3), dim=0, axis=1)


# ------------------------------------------------------------------------------------------- frombuffer

BUFFER = bytes(range(1, 17))


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "float32", "float64", "bfloat16", "bool"])
@pytest.mark.parametrize("count,offset", [(-1, 0), (2, 0), (-1, 8), (1, 4), (3, 2)])
def test_frombuffer_values(dtype, count, offset):
    item = getattr(torch, dtype).itemsize
    data = bytes([0, 1] * 8) if dtype == "bool" else BUFFER
    kw = dict(count=count, offset=offset)
    fits = (len(data) - offset) % item == 0 if count < 0 else offset + count * item <= len(data)
    if not fits:  # both refuse it
        for lib in (torch, tl):
            with pytest.raises(ValueError):
                lib.frombuffer(bytearray(data), dtype=getattr(lib, dtype), **kw)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert_same(tl.frombuffer(bytearray(data), dtype=getattr(tl, dtype), **kw),
                    torch.frombuffer(bytearray(data), dtype=getattr(torch, dtype), **kw))


def test_frombuffer_shares_memory_and_requires_grad():
    for lib in (torch, tl):
        buf = bytearray(8)
        t = lib.frombuffer(buf, dtype=lib.int16, offset=2, count=2)
        t[1] = 0x0102
        assert buf == bytearray([0, 0, 0, 0, 2, 1, 0, 0])
        assert not t.requires_grad
        assert lib.frombuffer(bytearray(8), dtype=lib.float32, requires_grad=True).requires_grad
        arr = np.zeros(4, dtype=np.float32)
        lib.frombuffer(arr, dtype=lib.float32)[2] = 5.0
        assert arr[2] == 5.0


def test_frombuffer_read_only_warns():
    # PyTorch warns once per process (an earlier asarray may have used it up): check torchlite's only
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = tl.frombuffer(b"abcd", dtype=tl.uint8)
    assert [w.category for w in caught] == [UserWarning] and "not writable" in str(caught[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert t.tolist() == torch.frombuffer(b"abcd", dtype=torch.uint8).tolist() == [97, 98, 99, 100]


@pytest.mark.parametrize("kwargs,message", [
    ({"dtype": "int32", "offset": 8}, r"offset \(8 bytes\) must be non-negative and no greater than buffer length"),
    ({"dtype": "int32", "offset": -1}, r"offset \(-1 bytes\) must be non-negative"),
    ({"dtype": "int32", "count": 3}, r"requested buffer length \(3 \* 4 bytes\) after offset \(0 bytes\) must not"),
    ({"dtype": "int32", "count": 0}, r"both buffer length \(8\) and count \(0\) must not be 0"),
    ({"dtype": "int32", "offset": 1}, r"buffer length \(7 bytes\) after offset \(1 bytes\) must be a multiple of "
                                      r"element size \(4\)"),
])
def test_frombuffer_errors(kwargs, message):
    for lib in (torch, tl):
        kw = dict(kwargs, dtype=getattr(lib, kwargs["dtype"]))
        with pytest.raises(ValueError, match=message):
            lib.frombuffer(bytearray(8), **kw)
    for lib in (torch, tl):
        with pytest.raises(ValueError, match=r"both buffer length \(0\) and count \(-1\)"):
            lib.frombuffer(bytearray(), dtype=lib.int32)
        with pytest.raises(ValueError, match="does not implement Python buffer protocol"):
            lib.frombuffer([1, 2], dtype=lib.int32)
        with pytest.raises(TypeError):
            lib.frombuffer(bytearray(8))  # dtype is required


# ------------------------------------------------------------------------------- std_mean / var_mean's unused output

@pytest.mark.parametrize("op", ["std_mean", "var_mean"])
@pytest.mark.parametrize("used", [0, 1, "both"])
def test_stat_mean_backward_skips_the_unused_output(op, used):
    """`materialize_grads: false`: the unused output's gradient stays undefined, so a NaN in its part of the
    formula (std's or var's) does not reach the gradient of the mean alone (1/n, as PyTorch)."""
    grads = []
    for lib in (torch, tl):
        x = lib.tensor([[1.0, float("nan"), 3.0], [0.5, 2.0, -1.0]], dtype=lib.float64, requires_grad=True)
        outs = getattr(lib, op)(x, 1)
        y = outs[0].sum() + outs[1].sum() if used == "both" else outs[used].sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        if not g.requires_grad:  # the mean's gradient is a constant (PyTorch records nothing)
            grads.append((g.numpy(),))
            continue
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        grads.append((g.detach().numpy(), gg.numpy()))
    assert len(grads[1]) == len(grads[0])
    for got, exp in zip(grads[1], grads[0]):
        np.testing.assert_allclose(got, exp, rtol=1e-12, equal_nan=True)
