"""Regression tests for the reliability fixes of issue 7: memory safety (atomic resizes, NumPy
arrays keeping their memory), undefined behaviour made defined (overflowing strides and arange
values, float -> int conversions, uninitialised bools), aliasing out= arguments, autograd checks
(in-place on leaves, out= with grad, hooks, detach_), and errors that name their op. PyTorch is the
oracle where it gives a value or raises."""
import gc

import numpy as np
import pytest
import torch

import torchlite as tl
from conftest import assert_same, from_torch

INT64_MIN, INT64_MAX = -2**63, 2**63 - 1


def raises_like(expected_type, match, fn):
    with pytest.raises(expected_type, match=match):
        fn()


# ---------------------------------------------------------------- 1. resizes are all or nothing


@pytest.mark.parametrize("make_out", [
    lambda a: tl.ones(2**40, out=a),                 # allocation of 4 TiB fails
    lambda a: tl.ones(2**40, device="meta", out=a),  # the reported case
    lambda a: tl.zeros(2**62, out=a),                # byte count overflows int64
    lambda a: tl.arange(0, 2**40, out=a),
])
def test_failed_out_resize_leaves_tensor_unchanged(make_out):
    a = tl.zeros(3)
    with pytest.raises(RuntimeError):
        make_out(a)
    assert a.shape == (3,) and a.stride() == (1,)
    assert a.tolist() == [0.0, 0.0, 0.0]
    assert a.sum().item() == 0.0
    with pytest.raises(IndexError):
        a[2**39]
    assert "tensor([0., 0., 0.])" == str(a)


def test_failed_resize_of_view_leaves_geometry():
    base = tl.arange(6.0)
    v = base[2:]
    with pytest.raises(RuntimeError):
        tl.ones(2**40, out=v)
    assert v.shape == (4,) and v.storage_offset() == 2 and v.tolist() == [2.0, 3.0, 4.0, 5.0]


def test_out_of_memory_names_op_and_bytes():
    raises_like(RuntimeError, r"^empty: tried to allocate 8796093022208 bytes \(8\.0 TiB\): out of memory",
                lambda: tl.empty(2**41))
    # the op that allocates is named: here the clone of a 16 TiB expanded tensor
    raises_like(RuntimeError, r"^clone: tried to allocate 17592186044416 bytes \(16\.0 TiB\)",
                lambda: tl.ones(2**20).expand(2**22, 2**20).clone())
    raises_like(RuntimeError, "Storage size calculation overflowed", lambda: tl.empty(2**62))
    # ones(out=) makes its result (through empty) before copying it into out
    raises_like(RuntimeError, r"^empty: tried to allocate 4398046511104 bytes \(4\.0 TiB\)",
                lambda: tl.ones(2**40, out=tl.zeros(3)))


def test_successful_out_resize_still_works():
    a = tl.zeros(3)
    tl.ones(5, out=a)
    assert a.tolist() == [1.0] * 5


# ---------------------------------------------------------------- 2. NumPy arrays keep their memory


def test_numpy_array_survives_data_replacement():
    t = tl.arange(1 << 16, dtype=tl.float32)
    arr = t.numpy()
    t.data = tl.zeros(3)
    del t
    gc.collect()
    filler = [tl.full((1 << 16,), 7.0) for _ in range(4)]  # reuse of freed memory would show up
    assert arr[12345] == 12345.0 and arr.sum() == np.arange(1 << 16, dtype=np.float64).sum()
    del filler


def test_numpy_asarray_survives_data_replacement():
    t = tl.arange(1000.0)
    arr = np.asarray(t)
    assert arr.ctypes.data == t.data_ptr()
    t.data = tl.ones(2)
    del t
    gc.collect()
    assert arr[999] == 999.0


def test_storage_shared_with_numpy_refuses_resize():
    t = tl.zeros(4)
    arr = t.numpy()
    raises_like(RuntimeError, "Trying to resize storage that is not resizable", lambda: tl.ones(1 << 16, out=t))
    assert t.shape == (4,) and arr.shape == (4,)
    tl.ones(4, out=t)  # no resize needed: fine
    assert arr.tolist() == [1.0] * 4
    # the same refusal as PyTorch
    tt = torch.zeros(4)
    _ = tt.numpy()
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        torch.ones(1 << 16, out=tt)


def test_from_numpy_storage_refuses_resize():
    arr = np.zeros(4, dtype=np.float32)
    t = tl.from_numpy(arr)
    raises_like(RuntimeError, "Trying to resize storage that is not resizable", lambda: tl.ones(100, out=t))


# ---------------------------------------------------------------- 3. undefined behaviour made defined


def test_slice_with_huge_step():
    x = tl.arange(10.0)
    xt = torch.arange(10.0)
    assert_same(x[::2**62], xt[::2**62])
    assert x[::2**62].stride() == xt[::2**62].stride()
    assert x.as_strided((1,), (2**62,)).tolist() == [0.0] and x.as_strided((1,), (2**62,)).numpy().tolist() == [0.0]
    # PyTorch's element count (len + step - 1) / step wraps for steps near INT64_MAX: the same results
    for n in range(6):
        y, yt = tl.arange(float(n)), torch.arange(float(n))
        for index in [slice(None, None, 2**63), slice(None, None, 2**63 - 1), slice(1, None, 2**64), slice(2**63, None),
                      slice(None, -2**63), slice(-2**63, None), slice(None, 2**64), slice(-2**70, None, 2)]:
            try:
                want = yt[index]
            except RuntimeError:
                raises_like(RuntimeError, "Storage size calculation overflowed", lambda: y[index])
            else:
                assert_same(y[index], want)
    assert_same(x[2**63:], xt[2**63:])
    assert_same(x[-2**64:], xt[-2**64:])
    assert_same(x[:2**63], xt[:2**63])
    assert_same(x[3:2**70:2**62], xt[3:2**62:2**62])
    assert_same(tl._C._internal.slice(x, 0, 1, None, 2**62), xt[1::2**62])  # slice: internal, as in PyTorch
    with pytest.raises(ValueError):
        x[2**63]
    with pytest.raises(ValueError):
        xt[2**63]


def test_arange_overflow():
    raises_like(RuntimeError, "arange", lambda: tl.arange(2**63 - 1))
    with pytest.raises(RuntimeError):
        torch.arange(2**63 - 1)
    # PyTorch's own length computation overflows here and gives an empty tensor.
    assert tl.arange(INT64_MIN, INT64_MAX, 2**62).tolist() == [INT64_MIN, -2**62, 0, 2**62]
    assert tl.arange(INT64_MAX - 2, INT64_MAX).tolist() == [INT64_MAX - 2, INT64_MAX - 1]
    for args in [(1e308,), (0, 1e308, 1e307), (0.0, 10.0, 1e300)]:
        with pytest.raises(RuntimeError, match="value cannot be converted to type int64_t without overflow"):
            torch.arange(*args, dtype=torch.int64)
        raises_like(RuntimeError, "^arange: value cannot be converted to type int64_t without overflow",
                    lambda: tl.arange(*args, dtype=tl.int64))
    raises_like(RuntimeError, "^arange: value cannot be converted", lambda: tl.arange(0, 1e308, 1e307, dtype=tl.int32))


SPECIAL = [float("nan"), float("inf"), -float("inf"), 1e10, -1e10, 300.0, -300.0, 300.7, -1.5, 2.0**31,
           -2.0**31, -2.0**31 - 1, 2.0**63, -2.0**63, 1e19, 3e38, 127.9, -128.9, 255.5]


@pytest.mark.parametrize("src", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("dst", ["bool", "uint8", "int8", "int16", "int32", "int64"])
@pytest.mark.parametrize("n", [1, 67])  # scalar loop and vectorized loop
def test_float_to_int_conversion_matches_torch(src, dst, n):
    values = torch.tensor(SPECIAL * n, dtype=torch.float64).to(getattr(torch, src))
    expected = values.to(getattr(torch, dst))
    got = from_torch(values).to(getattr(tl, dst))
    assert got.tolist() == expected.tolist()
    # strided source (the non-contiguous loop)
    assert from_torch(values)[::2].to(getattr(tl, dst)).tolist() == values[::2].to(getattr(torch, dst)).tolist()


def test_float_to_int_in_ops():
    t = torch.tensor([1e10, 200.0, float("nan")])
    assert_same(from_torch(t).sum(dtype=tl.int8), t.sum(dtype=torch.int8))
    assert_same(from_torch(t).to(tl.int32) + 1, t.to(torch.int32) + 1)
    for v in [300.0, float("nan"), 1e10, -1.0]:
        with pytest.raises(RuntimeError, match="value cannot be converted to type uint8 without overflow"):
            torch.tensor(v, dtype=torch.uint8)
        raises_like(RuntimeError, "value cannot be converted to type uint8 without overflow",
                    lambda: tl.tensor(v, dtype=tl.uint8))
    raises_like(RuntimeError, "int64", lambda: tl.tensor([float("inf")], dtype=tl.int64))
    raises_like(RuntimeError, "fill_: value cannot be converted to type int without overflow",
                lambda: tl.zeros(2, dtype=tl.int32).fill_(float("nan")))


def _garbage_then(make):
    """make() right after freeing memory full of bytes that are not valid bools (0xab), so an
    allocation that is not zeroed would likely hand them out again."""
    junk = tl.full((1000,), 0xab, dtype=tl.uint8)
    del junk
    return make()


BOOL_ALLOCATIONS = {
    "empty": lambda m: m.empty(1000, dtype=m.bool),
    "empty_strided": lambda m: m.empty_strided((10, 100), (100, 1), dtype=m.bool),
    "empty_like": lambda m: m.empty_like(m.zeros(1000, dtype=m.bool)),
    "empty_like_dtype": lambda m: m.empty_like(m.zeros(10, 100).t(), dtype=m.bool),
    "new_empty": lambda m: m.zeros(2).new_empty((1000,), dtype=m.bool),
}


@pytest.mark.parametrize("make", BOOL_ALLOCATIONS.values(), ids=BOOL_ALLOCATIONS.keys())
def test_uninitialised_bool_reads_are_defined(make):
    """Reading a byte other than 0/1 as bool is undefined behaviour: every way to get uninitialised bool
    memory zeroes it (PyTorch leaves it uninitialised; the shape, strides and dtype are PyTorch's)."""
    t, want = _garbage_then(lambda: make(tl)), make(torch)
    assert t.shape == want.shape and t.stride() == want.stride() and t.dtype == tl.bool
    flat = t.reshape(-1)
    assert flat.tolist() == [False] * 1000
    assert flat[999].item() is False and not t.any().item() and t.sum().item() == 0
    str(t)


def test_bool_bytes_from_numpy_read_as_true():
    # bool bytes other than 0/1 (from NumPy) read as True
    arr = np.array([0, 1, 2, 255], dtype=np.uint8).view(np.bool_)
    t = tl.from_numpy(arr)
    assert t.tolist() == [False, True, True, True]
    assert t[2].item() is True


# ---------------------------------------------------------------- 4. out= aliasing an input


def test_mm_out_aliasing_input_that_must_be_resized():
    a = torch.arange(6.0).reshape(2, 3)
    b = torch.arange(6.0).reshape(2, 3) + 1
    expected = a @ b.t()  # PyTorch itself returns wrong values for mm(a, b.t(), out=a)
    ta, tb = from_torch(a), from_torch(b)
    r = tl.mm(ta, tb.t(), out=ta)
    assert r is ta
    assert_same(ta, expected)


def test_mm_out_aliasing_input_same_shape():
    a = torch.arange(4.0).reshape(2, 2)
    b = a + 1
    ta, tb = from_torch(a), from_torch(b)
    tl.mm(ta, tb, out=ta)
    assert_same(ta, a @ b)
    ta, tb = from_torch(a), from_torch(b)
    tl.mm(ta, tb, out=tb)
    assert_same(tb, a @ b)


def test_bmm_out_aliasing_input():
    a = torch.arange(12.0).reshape(2, 2, 3)
    b = torch.arange(12.0).reshape(2, 3, 2)
    ta, tb = from_torch(a), from_torch(b)
    tl.bmm(ta, tb, out=ta)
    assert_same(ta, torch.bmm(a, b))


@pytest.mark.parametrize("op", ["sum", "mean"])
def test_reduction_out_aliasing_input(op):
    a = torch.arange(6.0).reshape(2, 3)
    ta = from_torch(a)
    getattr(tl, op)(ta, 0, out=ta)
    assert_same(ta, getattr(torch, op)(a, 0))


# ---------------------------------------------------------------- 5. in-place checks on leaves


@pytest.mark.parametrize("call", [
    lambda x: x.eq_(torch_or_tl(x).ones(3)), lambda x: x.lt_(1), lambda x: x.ge_(torch_or_tl(x).ones(3)),
    lambda x: x.floor_divide_(2), lambda x: x.ne_(0), lambda x: x.gt_(1), lambda x: x.le_(1),
])
def test_non_differentiable_inplace_on_leaf(call):
    for lib in (torch, tl):
        x = lib.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place "
                                               "operation.$"):
            call(x)
        with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad is being used in an "
                                               "in-place operation.$"):
            call(x[:3])
        with lib.no_grad():
            call(x)  # allowed outside grad mode
        call(x.detach())


def test_non_differentiable_inplace_on_views_without_grad():
    for lib in (torch, tl):
        with lib.no_grad():
            v = lib.ones(3)[1:]
            w = lib.ones(3, requires_grad=True)[1:]
        assert v.eq_(1).tolist() == [1.0, 1.0]  # nothing requires grad: allowed
        with pytest.raises(RuntimeError, match="^A view was created in no_grad mode and is being modified inplace"):
            w.eq_(1)
        y = lib.ones(3, requires_grad=True) * 2
        y[1:].eq_(1)  # a view of a non-leaf: allowed


@pytest.mark.parametrize("call", [
    lambda x: x.eq_(torch_or_tl(x).ones(3)), lambda x: x.eq_(1), lambda x: x.lt_(1),
    lambda x: x.ge_(torch_or_tl(x).ones(3)), lambda x: x.ne_(0), lambda x: x.gt_(1), lambda x: x.le_(1),
])
def test_non_differentiable_inplace_on_non_leaf_records_a_zero_gradient(call):
    # The op replaced y's values: the old history (MulBackward0) must no longer get y's gradient.
    results = []
    for lib in (torch, tl):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        call(y)
        name = type(y.grad_fn).__name__
        y.sum().backward()
        z = lib.ones(4, requires_grad=True)
        w = z * 3
        call(w[:3])  # through a view: zero only where the view wrote
        w.sum().backward()
        results.append((y.requires_grad, name.rstrip("0123456789"), x.grad.tolist(), z.grad.tolist()))
    assert results[1] == results[0]
    assert results[0][2:] == ([0.0] * 3, [0.0] * 3 + [3.0])


def test_non_differentiable_inplace_history_is_not_recorded_outside_grad_mode():
    x = tl.ones(3, requires_grad=True)
    y = x * 2
    recorded = y.grad_fn
    with tl.no_grad():
        y.floor_divide_(1)
    assert y.grad_fn is recorded
    y = (x * 2).floor_divide_(1)  # PyTorch records a node that fails in backward; torchlite declares no gradient
    assert y.requires_grad and type(y.grad_fn).__name__.startswith("FloorDivideBackward")
    y.sum().backward()
    assert x.grad.tolist() == [0.0] * 3


def torch_or_tl(x):
    return torch if isinstance(x, torch.Tensor) else tl


# ---------------------------------------------------------------- 6. out= tensors that require grad


@pytest.mark.parametrize("name, call", [
    ("add", lambda lib, out: lib.add(lib.ones(2), lib.ones(2), out=out)),
    ("sum", lambda lib, out: lib.sum(lib.ones(2, 2), 0, out=out)),
    ("mm", lambda lib, out: lib.mm(lib.ones(2, 1), lib.ones(1, 2), out=out)),
    ("exp", lambda lib, out: lib.exp(lib.ones(2), out=out)),
    ("matmul", lambda lib, out: lib.matmul(lib.ones(2, 2), lib.ones(2), out=out)),
    ("cat", lambda lib, out: lib.cat([lib.ones(1), lib.ones(1)], out=out)),
    ("stack", lambda lib, out: lib.stack([lib.ones(1), lib.ones(1)], 1, out=out)),
])
def test_out_requiring_grad_is_refused(name, call):
    message = (rf"^{name}\(\): functions with out=\.\.\. arguments don't support automatic differentiation, but "
               r"one of the arguments requires grad\.")
    for lib in (torch, tl):
        for out in (lib.zeros(2, requires_grad=True), lib.zeros(2, requires_grad=True) * 1):
            with pytest.raises(RuntimeError, match=message):
                call(lib, out)
        with lib.no_grad():
            call(lib, lib.zeros(2, requires_grad=True))  # allowed outside grad mode


@pytest.mark.parametrize("name", ["cat", "concat", "concatenate", "stack"])
def test_out_with_a_list_element_requiring_grad_is_refused(name):
    for lib in (torch, tl):
        # PyTorch's aliases concat/concatenate run cat's out= variant and report it; torchlite names the alias.
        op = "cat" if lib is torch and name.startswith("conc") else name
        message = (rf"^{op}\(\): functions with out=\.\.\. arguments don't support automatic differentiation, "
                   r"but one of the arguments requires grad\.")
        fn = getattr(lib, name)
        for grad_input in (lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True) * 1):
            with pytest.raises(RuntimeError, match=message):
                fn([lib.ones(2), grad_input], out=lib.empty(0))
        with lib.no_grad():
            fn([lib.ones(2), lib.ones(2, requires_grad=True)], out=lib.empty(0))


# ---------------------------------------------------------------- 7. hooks


def hook_error(lib, register, hook):
    a = lib.ones(3, requires_grad=True)
    b = a.exp()  # a node with one input in both libraries
    register(b, hook)
    try:
        b.sum().backward()
    except Exception as e:  # noqa: BLE001
        return type(e), str(e).replace("torchlite.", "torch.")
    return None, None if a.grad is None else a.grad.tolist()


def tensor_hook(b, h):
    b.register_hook(h)


def pre_hook(b, h):
    b.grad_fn.register_prehook(h)


def post_hook(b, h):
    b.grad_fn.register_hook(h)


def size_changer(g):
    return g.sum()


@pytest.mark.parametrize("register, hook", [
    (tensor_hook, size_changer), (tensor_hook, lambda g: g.double()), (tensor_hook, lambda g: g.to("meta")),
    (tensor_hook, lambda g: None), (tensor_hook, lambda g: 3), (tensor_hook, lambda g: g * 2),
    (pre_hook, lambda g: (g[0].sum(),)), (pre_hook, lambda g: (g[0].double(),)), (pre_hook, lambda g: (g[0].to("meta"),)),
    (pre_hook, lambda g: 3), (pre_hook, lambda g: (g[0], g[0])), (pre_hook, lambda g: (None,)),
    (pre_hook, lambda g: (g[0] * 3,)), (pre_hook, lambda g: None),
    (post_hook, lambda gi, go: (gi[0].sum(),)), (post_hook, lambda gi, go: (gi[0].double(),)),
    (post_hook, lambda gi, go: (gi[0] * 5,)), (post_hook, lambda gi, go: (gi[0], gi[0])),
])
def test_hook_results_are_checked_like_torch(register, hook):
    assert hook_error(tl, register, hook) == hook_error(torch, register, hook)


# ---------------------------------------------------------------- 8. detach_ on views


@pytest.mark.parametrize("make", [
    lambda lib: lib.ones(3, requires_grad=True)[1:],
    lambda lib: lib.ones(3, requires_grad=True).view(3),
    lambda lib: lib.ones(3)[1:],
    lambda lib: lib.ones(2, 2).t(),
])
def test_detach_inplace_of_view_raises(make):
    for lib in (torch, tl):
        with pytest.raises(RuntimeError, match="^Can't detach views in-place. Use detach\\(\\) instead."):
            make(lib).detach_()


def test_detach_inplace_of_view_made_in_no_grad_raises():
    for lib in (torch, tl):
        x = lib.ones(3, requires_grad=True)
        with lib.no_grad():
            v = x[1:]
        with pytest.raises(RuntimeError, match="^Can't detach views in-place"):
            v.detach_()


def test_detach_inplace_of_non_views():
    for lib in (torch, tl):
        x = lib.ones(3, requires_grad=True)
        y = (x * 2).detach_()
        assert not y.requires_grad and y.grad_fn is None
        assert lib.ones(3).detach().detach_().tolist() == [1.0] * 3


# ---------------------------------------------------------------- 9. errors that name the op


# Python ints beyond int64 as Scalars, as PyTorch: [2**63, 2**64) is an unsigned 64-bit number (integer
# results take its low bits, floating ones its value, checked conversions refuse it), beyond that
# OverflowError. (expression, torchlite's message when PyTorch raises): the same value or exception type.
BIG_INT_SCALARS = [
    ("i + 2**63", None), ("2**63 + i", None), ("i - 2**63", None), ("2**63 - i", None), ("i * (2**64 - 1)", None),
    ("i8 + (2**63 + 1)", None), ("f + 2**63", None), ("f * (2**64 - 1)", None), ("h + 2**63", None),
    ("f / 2**63", None), ("i / 2**63", None), ("i // 2**63", None), ("X.add(i, 2**63)", None),
    ("X.add(f, 2**63)", None), ("i.clone().add_(2**63)", None), ("f.clone().mul_(2**63)", None), ("i == 2**63", None), ("f == 2**63", None),
    ("f < 2**64 - 1", None), ("X.rsub(i, 2**63)", None),
    ("(i + 2**63)[0].item()", None), ("f.add(1, alpha=2**63)", None), ("f.clone().fill_(2**63)", None),
    ("b.clone().fill_(2**63)", None), ("X.full((2,), 2**63, dtype=X.float64)", None), ("f.pow(2**63)", None),
    ("i + 2**64", r"^__add__\(\): int too big to convert"),
    ("f * 2**70", r"^__mul__\(\): int too big to convert"),
    ("i.add(2**64)", r"^add\(\): int too big to convert"),
    ("X.add(f, -2**63 - 1)", r"^add\(\): can't convert negative int to unsigned"),
    ("b * 2**64", r"^__mul__\(\): int too big to convert"),
    ("i.add(1, alpha=2**64)", r"^add\(\): int too big to convert"),
    ("i == 2**64", r"^__eq__\(\): int too big to convert"),
    ("f.clone().fill_(2**64)", r"^fill_\(\): int too big to convert"),
    ("X.full((2,), 2**64)", r"^full\(\): int too big to convert"),
    ("X.full((2,), -2**63 - 1)", r"^full\(\): can't convert negative int to unsigned"),
    ("X.arange(2**64)", r"^arange\(\): int too big to convert"),
    ("b + 2**63", r"^(__)?add(__)?(\(\))?: Promotion for uint16, uint32, uint64 types is not supported, "
                  r"attempted to promote Bool and UInt64"),
    ("X.add(b, 2**63)", r"^add(\(\))?: Promotion for uint16"), ("X.mul(b, 2**63)", r"^mul(\(\))?: Promotion for uint16"),
    ("X.full((2,), 2**63)", r"value cannot be converted to type int64_t without overflow"),
    ("X.full((2,), 2**63, dtype=X.int8)", r"value cannot be converted to type int8_t without overflow"),
    ("i.clone().fill_(2**63)", r"^fill_: value cannot be converted to type int64_t without overflow"),
    ("i.add(1, alpha=2**63)", r"^add: value cannot be converted to type int64_t without overflow"),
    ("i.pow(2**63)", r"^pow: "),  # PyTorch: "value cannot be converted"; here "negative integer powers"
    ("X.arange(2**63)", r"^arange: value cannot be converted to type int64_t without overflow"),
    ("X.full_like(i, 2**63)", r"value cannot be converted to type int64_t without overflow"),
]


def _big_int_scope(m):
    return dict(X=m, i=m.tensor([1, 2]), i8=m.tensor([1, 2], dtype=m.int8), f=m.tensor([1.0, 2.0]),
                h=m.tensor([1.0, 2.0], dtype=m.float16), b=m.tensor([True, False]))


@pytest.mark.parametrize("expr,message", BIG_INT_SCALARS, ids=[e for e, _ in BIG_INT_SCALARS])
def test_python_ints_beyond_int64_as_scalars(expr, message):
    try:
        want = eval(expr, _big_int_scope(torch))  # noqa: S307 - the test's own expressions
    except Exception as e:  # noqa: BLE001 - PyTorch's exception type is the expectation
        assert message is not None, f"PyTorch raises {e!r}"
        raises_like(type(e), message, lambda: eval(expr, _big_int_scope(tl)))  # noqa: S307
        return
    assert message is None, f"PyTorch gives {want!r}"
    got = eval(expr, _big_int_scope(tl))  # noqa: S307
    if isinstance(want, torch.Tensor):
        assert_same(got, want)
    else:
        assert got == want and type(got) is type(want)


def test_python_ints_beyond_int64_as_int_arguments():
    x = tl.ones(2)
    raises_like(ValueError, r"^select\(\): argument 'index' is out of the range of int64", lambda: x.select(0, 2**63))
    raises_like(ValueError, r"^sum\(\): argument", lambda: x.sum(2**63))
    with pytest.raises(ValueError):
        torch.ones(2).select(0, 2**63)
    raises_like(TypeError, r"^empty\(\): argument 'size' failed to unpack the object at pos 1 with error "
                           r"\"Overflow when unpacking long long\"", lambda: tl.empty(2**63))
    raises_like(TypeError, r"^view\(\): argument 'size' failed to unpack the object at pos 2", lambda: x.view(1, 2**63))
    with pytest.raises(TypeError, match="failed to unpack the object at pos 1"):
        torch.empty(2**63)


@pytest.mark.parametrize("expr", [
    "X.numel(False)", "X.numel(None)", "X.is_floating_point(1.5)", "X.ones(2).view_as(None)",
    "X.ones(2).expand_as(3)", "X.ones(2).reshape_as([2])", "X.ones(2).type_as(None)",
])
def test_python_helpers_raise_type_error(expr):
    with pytest.raises(TypeError) as expected:
        eval(expr, {"X": torch})
    with pytest.raises(TypeError) as got:
        eval(expr, {"X": tl})
    assert str(got.value) == str(expected.value)


def test_set_num_threads_states_its_limit():
    before = tl.get_num_threads()
    raises_like(RuntimeError, "between 1 and 65536, got 100000", lambda: tl.set_num_threads(100000))
    raises_like(RuntimeError, "between 1 and 65536, got 0", lambda: tl.set_num_threads(0))
    assert tl.get_num_threads() == before


@pytest.mark.parametrize("op, call", [
    ("sub", lambda: tl.sub(tl.ones(2, dtype=tl.int8), tl.ones(2, dtype=tl.int8), alpha=1000)),
    ("sub", lambda: tl.sub(tl.ones(2, dtype=tl.int8), 1, alpha=1000)),
    ("rsub", lambda: tl.rsub(tl.ones(2, dtype=tl.int8), tl.ones(2, dtype=tl.int8), alpha=1000)),
    ("rsub", lambda: tl.rsub(tl.ones(2, dtype=tl.int8), 1, alpha=1000)),
    ("add", lambda: tl.add(tl.ones(2, dtype=tl.int8), 1, alpha=1000)),
    ("floor_divide", lambda: tl.floor_divide(tl.ones(2, dtype=tl.int64), tl.zeros(2, dtype=tl.int64))),
    ("floor_divide", lambda: tl.floor_divide(tl.ones(2, dtype=tl.int64), 0)),
    ("floor_divide", lambda: tl.floor_divide(tl.ones(2), tl.ones(3))),
    ("floor_divide", lambda: tl.floor_divide(tl.ones(2, dtype=tl.bool), tl.ones(2, dtype=tl.bool))),
    ("div", lambda: tl.div(tl.ones(2, dtype=tl.int64), 0, rounding_mode="trunc")),
])
def test_shared_kernels_name_their_op(op, call):
    with pytest.raises((RuntimeError, NotImplementedError)) as info:
        call()
    assert str(info.value).startswith(op + ":"), str(info.value)


def test_sub_with_float_alpha_matches_torch():
    a, b = torch.ones(2, dtype=torch.int64), torch.ones(2)
    assert_same(tl.sub(from_torch(a), from_torch(b), alpha=1.5), torch.sub(a, b, alpha=1.5))
    raises_like(RuntimeError, "^sub: For integral input tensors, argument alpha must not be a floating point number.",
                lambda: tl.sub(from_torch(a), from_torch(a), alpha=1.5))
