"""Diagonals, triangles, eye/linspace/logspace, resize_, asarray, Tensor.new and tensor() from nested
tensors, against PyTorch: what the generated suites cannot say from samples (views sharing storage,
value grids over many arguments, out= layouts, storage growth, memory sharing, errors)."""
import itertools
import random
import warnings

import numpy as np
import pytest
import torch

import torchlite as tl
from conftest import assert_geometry, assert_same, error_types_like, from_torch, storage_base, torch_result


def same_or_both_raise(tl_fn, torch_fn, exact=True):
    """Either both raise compatible errors, or the results agree in shape, dtype and values (bit for bit
    when `exact`). Returns (torchlite result, torch result), or None when both raised."""
    expected, err = torch_result(torch_fn)
    if err is not None:
        with pytest.raises(error_types_like(err)):
            tl_fn()
        return None
    got = tl_fn()
    if expected.device.type == "meta":
        assert got.device.type == "meta" and tuple(got.shape) == tuple(expected.shape)
        assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    elif exact:
        assert_same(got.detach(), expected.detach(), atol=0, rtol=0)
    else:
        assert_same(got.detach(), expected.detach())
    return got, expected


# ---------------------------------------------------------------- diagonal: a view

DIAGONAL_CASES = [((3, 4), 0, 0, 1), ((3, 4), 1, 0, 1), ((4, 3), -2, 0, 1), ((2, 3, 4), 1, 2, 0),
                  ((2, 3, 4), -1, -1, 1), ((3, 3), 5, 0, 1), ((3, 3), -5, 1, 0), ((2, 3, 4, 5), 2, 1, 3),
                  ((0, 3), 0, 0, 1), ((3, 3), 2**62, 0, 1), ((3, 3), -2**62, 0, 1)]


@pytest.mark.parametrize("shape,offset,dim1,dim2", DIAGONAL_CASES)
@pytest.mark.parametrize("transposed", [False, True])
def test_diagonal_is_a_view_like_torch(shape, offset, dim1, dim2, transposed):
    a = torch.arange(float(np.prod(shape))).reshape(shape)
    x = tl.arange(float(np.prod(shape))).reshape(shape)
    if transposed:
        a, x = a.transpose(0, -1), x.transpose(0, -1)
    expected = torch.diagonal(a, offset, dim1, dim2)
    got = tl.diagonal(x, offset, dim1, dim2)
    assert_geometry(got, expected)
    assert_same(got, expected, atol=0, rtol=0)
    assert got._is_view() and expected._base is not None
    if expected.numel() > 0:
        assert storage_base(got) == storage_base(x)
        v = x._version
        got.fill_(-1)
        expected.fill_(-1)
        assert x._version > v and got._version == x._version
        assert_same(x, a, atol=0, rtol=0)


def test_diagonal_method_keywords_and_errors():
    a = torch.arange(24.).reshape(2, 3, 4)
    x = from_torch(a)
    assert_same(x.diagonal(offset=1, dim1=2, dim2=0), a.diagonal(offset=1, dim1=2, dim2=0))
    for args in [(0, 1, 1), (0, 0, 3), (0, -4, 0)]:
        same_or_both_raise(lambda: x.diagonal(*args), lambda: a.diagonal(*args))
    for t, tt in [(tl.tensor(1.), torch.tensor(1.)), (tl.arange(3.), torch.arange(3.))]:
        same_or_both_raise(lambda: tl.diagonal(t), lambda: torch.diagonal(tt))
    m = tl.empty(2, 3, 4, device="meta")
    d = m.diagonal(1, 0, 2)
    assert d.is_meta and tuple(d.shape) == (3, 2) and d.stride() == (4, 13)


def test_diagonal_gradient_writes_only_the_diagonal():
    x = tl.zeros(3, 4, dtype=tl.float64, requires_grad=True)
    (x.diagonal(1) * tl.tensor([1., 2., 3.], dtype=tl.float64)).sum().backward()
    xt = torch.zeros(3, 4, dtype=torch.float64, requires_grad=True)
    (xt.diagonal(1) * torch.tensor([1., 2., 3.], dtype=torch.float64)).sum().backward()
    assert_same(x.grad, xt.grad, atol=0, rtol=0)
    assert x.diagonal().grad_fn.name() == "DiagonalBackward0"


@pytest.mark.parametrize("make", [
    lambda L, x, v: L.diag(v), lambda L, x, v: L.diag(x), lambda L, x, v: L.diagflat(x, 1),
    lambda L, x, v: L.diag_embed(v, -1), lambda L, x, v: L.tril(x), lambda L, x, v: (x * 1).tril_(),
    lambda L, x, v: (x * 1).triu_(1), lambda L, x, v: (x * 1).fill_diagonal_(2.0),
    lambda L, x, v: L.diagonal_copy(x, 1),
    lambda L, x, v: L.autograd.grad((L.diagonal(x) ** 2).sum(), x, create_graph=True)[0],
])
def test_node_names_like_torch(make):
    names = []
    for L in (torch, tl):
        x = L.ones(3, 3, dtype=L.float64, requires_grad=True)
        v = L.ones(3, dtype=L.float64, requires_grad=True)
        names.append(make(L, x, v).grad_fn.name())
    assert names[1] == names[0].replace("torch::autograd::", "")


def test_diag_makes_a_copy():
    a = torch.arange(12.).reshape(3, 4)
    x = from_torch(a)
    d = tl.diag(x, 1)
    assert not d._is_view() and storage_base(d) != storage_base(x)
    same_or_both_raise(lambda: tl.diag(tl.tensor(1.)), lambda: torch.diag(torch.tensor(1.)))
    same_or_both_raise(lambda: tl.diag(tl.zeros(2, 2, 2)), lambda: torch.diag(torch.zeros(2, 2, 2)))


# ---------------------------------------------------------------- tril / triu

@pytest.mark.parametrize("op", ["tril", "triu"])
@pytest.mark.parametrize("k", [-4, -1, 0, 2, 5, 2**62, -2**62])
def test_triangles_on_layouts_and_in_place(op, k):
    a = torch.arange(1., 2 * 3 * 5 + 1).reshape(2, 3, 5)
    for ta, xa in [(a, from_torch(a)), (a.transpose(1, 2), from_torch(a).transpose(1, 2)),
                   (a[:, ::2, 1:], from_torch(a)[:, ::2, 1:]), (a[:1].expand(4, 3, 5), from_torch(a[:1]).expand(4, 3, 5))]:
        got, expected = same_or_both_raise(lambda: getattr(tl, op)(xa, k), lambda: getattr(torch, op)(ta, k))
        assert got.is_contiguous() and expected.is_contiguous()
        t2, x2 = ta.clone(), from_torch(ta.contiguous()) if ta.stride(0) == 0 else xa.clone()
        if ta.stride(0) != 0:
            getattr(t2, op + "_")(k)
            r = getattr(x2, op + "_")(k)
            assert r is x2
            assert_same(x2, t2, atol=0, rtol=0)


@pytest.mark.parametrize("op", ["tril", "triu"])
def test_triangles_out_aliasing_self(op):
    # (An out= that is self transposed is left out: PyTorch then writes through self's strides.)
    for out_of in [lambda t: t, lambda t: t[:2], lambda t: t[2:]]:
        a = torch.arange(16.).reshape(4, 4)
        x = from_torch(a)
        same_or_both_raise(lambda: getattr(tl, op)(x, 1, out=out_of(x)), lambda: getattr(torch, op)(a, 1, out=out_of(a)))
        assert_same(x, a, atol=0, rtol=0)


def test_triangles_errors_and_dtypes():
    for op in ("tril", "triu"):
        same_or_both_raise(lambda: getattr(tl, op)(tl.arange(3.)), lambda: getattr(torch, op)(torch.arange(3.)))
        same_or_both_raise(lambda: getattr(tl, op)(tl.ones(2, 2), out=tl.empty(0, dtype=tl.int64)),
                           lambda: getattr(torch, op)(torch.ones(2, 2), out=torch.empty(0, dtype=torch.int64)))
        for dt in ("bool", "uint8", "float16", "bfloat16", "int64"):
            same_or_both_raise(lambda: getattr(tl, op)(tl.ones(3, 4, dtype=getattr(tl, dt)), -1),
                               lambda: getattr(torch, op)(torch.ones(3, 4, dtype=getattr(torch, dt)), -1))
        m = getattr(tl, op)(tl.empty(2, 3, 4, device="meta"))
        assert m.is_meta and tuple(m.shape) == (2, 3, 4)


@pytest.mark.parametrize("op", ["tril_indices", "triu_indices"])
def test_triangle_indices_grid(op):
    for row, col, offset in itertools.product(range(0, 6), range(0, 6), range(-7, 8)):
        same_or_both_raise(lambda: getattr(tl, op)(row, col, offset), lambda: getattr(torch, op)(row, col, offset))
    for kw in [{"dtype": "int32"}, {"dtype": "float32"}, {"dtype": "int16"}]:
        same_or_both_raise(lambda: getattr(tl, op)(4, 3, 1, dtype=getattr(tl, kw["dtype"])),
                           lambda: getattr(torch, op)(4, 3, 1, dtype=getattr(torch, kw["dtype"])))
    for bad in [(-1, 3), (3, -1)]:
        same_or_both_raise(lambda: getattr(tl, op)(*bad), lambda: getattr(torch, op)(*bad))
    m = getattr(tl, op)(5, 4, 1, device="meta")
    assert m.is_meta and tuple(m.shape) == tuple(getattr(torch, op)(5, 4, 1).shape)


def test_triangle_indices_of_huge_matrices_are_counted_without_walking_them():
    # 10**15 rows whose lower triangle keeps only the last three: counted in closed form.
    got = tl.tril_indices(10**15, 2, -(10**15) + 2)
    expected = torch.tril_indices(10**15, 2, -(10**15) + 2)
    assert_same(got, expected, atol=0, rtol=0)
    assert tl.triu_indices(10**15, 3, 10**15).shape == (2, 0)


# ---------------------------------------------------------------- eye

def test_eye_grid_and_out_layouts():
    for n, m in itertools.product(range(0, 5), range(0, 5)):
        same_or_both_raise(lambda: tl.eye(n, m), lambda: torch.eye(n, m))
    same_or_both_raise(lambda: tl.eye(3, dtype=tl.bool, requires_grad=False), lambda: torch.eye(3, dtype=torch.bool))
    for bad in [(-1,), (2, -1)]:
        same_or_both_raise(lambda: tl.eye(*bad), lambda: torch.eye(*bad))
    # out= keeps its own layout (a transposed out gets the diagonal through its strides) and dtype
    a, x = torch.full((4, 3), 7.0).t(), tl.full((4, 3), 7.0).t()
    same_or_both_raise(lambda: tl.eye(3, 4, out=x), lambda: torch.eye(3, 4, out=a))
    assert x.stride() == a.stride()
    same_or_both_raise(lambda: tl.eye(2, out=tl.empty(0, dtype=tl.int64)), lambda: torch.eye(2, out=torch.empty(0, dtype=torch.int64)))
    same_or_both_raise(lambda: tl.eye(2, dtype=tl.float64, out=tl.empty(0, dtype=tl.int64)),
                       lambda: torch.eye(2, dtype=torch.float64, out=torch.empty(0, dtype=torch.int64)))
    e = tl.eye(2, 3, dtype=tl.float64, requires_grad=True)
    assert e.requires_grad and e.is_leaf
    assert tl.eye(3, device="meta").is_meta


# ---------------------------------------------------------------- linspace / logspace: PyTorch's values bit for bit

def _range_cases(seed, n):
    rng = random.Random(seed)
    dtypes = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8"]
    for _ in range(n):
        dt = rng.choice(dtypes)
        if dt in ("float32", "float64", "float16", "bfloat16"):
            a, b = rng.uniform(-1e3, 1e3), rng.uniform(-1e3, 1e3)
        else:
            a, b = rng.randint(-100, 100), rng.randint(-100, 100)
            if dt == "uint8":
                a, b = abs(a), abs(b)
            if rng.random() < 0.5:
                a += rng.random()
        yield dt, a, b, rng.choice([2, 3, 5, 7, 10, 33, 100, 257, 1000, 70000]), rng.choice([10.0, 2.0, 1.5, 0.5, -2.0])


@pytest.mark.parametrize("seed", range(4))
def test_linspace_logspace_values_bit_for_bit(seed):
    for dt, a, b, steps, base in _range_cases(seed, 60):
        same_or_both_raise(lambda: tl.linspace(a, b, steps, dtype=getattr(tl, dt)),
                           lambda: torch.linspace(a, b, steps, dtype=getattr(torch, dt)))
        same_or_both_raise(lambda: tl.logspace(a / 50, b / 50, steps, base, dtype=getattr(tl, dt)),
                           lambda: torch.logspace(a / 50, b / 50, steps, base, dtype=getattr(torch, dt)))


@pytest.mark.parametrize("dt", ["uint8", "int8", "int16", "int32", "int64"])
def test_integer_ranges_round_and_overflow_like_torch(dt):
    for args in [(0, 30, 7, 3.0), (0, 40, 5, 2.0), (0, 70, 8, 2.0), (-3, 3, 7, -3.0), (5, -5, 11, 2.0), (0, 64, 65, 2.0)]:
        same_or_both_raise(lambda: tl.logspace(*args, dtype=getattr(tl, dt)),
                           lambda: torch.logspace(*args, dtype=getattr(torch, dt)))
    for args in [(0, 1, 1), (0, 5, 1), (-3, 7.9, 7), (100, -100, 9), (0, 255, 256), (-300, 5, 5), (float("nan"), 1, 3)]:
        same_or_both_raise(lambda: tl.linspace(*args, dtype=getattr(tl, dt)),
                           lambda: torch.linspace(*args, dtype=getattr(torch, dt)))


def test_range_tensor_bounds_out_and_errors():
    for fn in ("linspace", "logspace"):
        T, L = getattr(torch, fn), getattr(tl, fn)
        for s, e in [(2.5, -1), (torch.tensor(2.5), -1), (2.5, torch.tensor(-1, dtype=torch.int32)),
                     (torch.tensor(0, dtype=torch.int8), torch.tensor(3., dtype=torch.float64))]:
            ls = from_torch(s) if isinstance(s, torch.Tensor) else s
            le = from_torch(e) if isinstance(e, torch.Tensor) else e
            got, _ = same_or_both_raise(lambda: L(ls, le, 9), lambda: T(s, e, 9))
            assert not got.requires_grad
            # out=: any dtype (out's own), a non-contiguous out keeps its layout
            a, x = torch.zeros(2, 9, dtype=torch.float64)[0], tl.zeros(2, 9, dtype=tl.float64)[0]
            same_or_both_raise(lambda: L(ls, le, 9, out=x), lambda: T(s, e, 9, out=a))
            a, x = torch.zeros(9, 2, dtype=torch.int64)[:, 0], tl.zeros(9, 2, dtype=tl.int64)[:, 0]
            same_or_both_raise(lambda: L(ls, le, 9, out=x), lambda: T(s, e, 9, out=a))
            assert x.stride() == a.stride() == (2,)
        same_or_both_raise(lambda: L(tl.ones(2), 1, 3), lambda: T(torch.ones(2), 1, 3))
        same_or_both_raise(lambda: L(0, tl.ones(1), 3), lambda: T(0, torch.ones(1), 3))
        same_or_both_raise(lambda: L(0, 1, -1), lambda: T(0, 1, -1))
        same_or_both_raise(lambda: L(0, 1, 3, dtype=tl.bool), lambda: T(0, 1, 3, dtype=torch.bool))
        same_or_both_raise(lambda: L(0, 1, 3, dtype=tl.float64, out=tl.empty(0)),
                           lambda: T(0, 1, 3, dtype=torch.float64, out=torch.empty(0)))
        start = tl.tensor(0.5, requires_grad=True)
        assert not L(start, 2.0, 4).requires_grad
        assert L(0, 1, 5, requires_grad=True).requires_grad
        m = L(tl.empty((), device="meta"), 1, 7)
        assert m.is_meta and tuple(m.shape) == (7,)
        assert L(0, 1, 7, device="meta").is_meta


# ---------------------------------------------------------------- fill_diagonal_

@pytest.mark.parametrize("shape", [(3, 3), (7, 3), (3, 7), (9, 2), (2, 2, 2), (4, 4, 4), (0, 3), (5, 1)])
@pytest.mark.parametrize("wrap", [False, True])
def test_fill_diagonal_like_torch(shape, wrap):
    a = torch.zeros(shape)
    x = tl.zeros(*shape)
    same_or_both_raise(lambda: x.fill_diagonal_(1.5, wrap), lambda: a.fill_diagonal_(1.5, wrap))
    assert_same(x, a, atol=0, rtol=0)
    # a strided (sliced) matrix and a transposed one
    for pick in (lambda t: t[::2] if t.dim() == 2 else t, lambda t: t.transpose(0, 1)):
        a, x = torch.zeros(shape), tl.zeros(*shape)
        same_or_both_raise(lambda: pick(x).fill_diagonal_(3, wrap=wrap), lambda: pick(a).fill_diagonal_(3, wrap=wrap))
        assert_same(x, a, atol=0, rtol=0)


def test_fill_diagonal_errors():
    same_or_both_raise(lambda: tl.zeros(3).fill_diagonal_(1), lambda: torch.zeros(3).fill_diagonal_(1))
    same_or_both_raise(lambda: tl.zeros(3, 3, 4).fill_diagonal_(1), lambda: torch.zeros(3, 3, 4).fill_diagonal_(1))
    same_or_both_raise(lambda: tl.zeros(3, 3, dtype=tl.int8).fill_diagonal_(300),
                       lambda: torch.zeros(3, 3, dtype=torch.int8).fill_diagonal_(300))
    same_or_both_raise(lambda: tl.zeros(3, 3, requires_grad=True).fill_diagonal_(1),
                       lambda: torch.zeros(3, 3, requires_grad=True).fill_diagonal_(1))


# ---------------------------------------------------------------- resize_ / resize_as_

def test_resize_grows_the_shared_storage_and_keeps_the_data():
    base = tl.arange(6.)
    view = base[:2]
    v = base._version
    view.resize_(10)
    assert view.shape == (10,) and base._version > v
    assert view[:6].tolist() == [0., 1., 2., 3., 4., 5.]  # the storage grew in place: base's data is there
    view[5] = 50.
    assert base[5].item() == 50.  # and both still share it
    b = tl.arange(6.)[2:]
    b.resize_(2, 2)
    assert b.stride() == (2, 1) and b.storage_offset() == 2 and b.tolist() == [[2., 3.], [4., 5.]]


def test_resize_strides_like_torch():
    cases = [
        (lambda L: L.arange(6.).reshape(2, 3).t(), (3, 2), {}),           # same sizes: strides kept
        (lambda L: L.arange(6.).reshape(2, 3).t(), (6,), {}),
        (lambda L: L.arange(6.).expand(3, 6), (3, 6), {}),
        (lambda L: L.arange(6.).expand(3, 6), (3, 5), {}),
        (lambda L: L.zeros(4, 4), (2, 3, 4, 5), {"memory_format": "channels_last"}),
        (lambda L: L.zeros(4, 4), (2, 3), {"memory_format": "contiguous_format"}),
        (lambda L: L.zeros(4, 4), (2, 3), {"memory_format": "preserve_format"}),
        (lambda L: L.zeros(4, 4), (2, 3), {"memory_format": "channels_last"}),
        (lambda L: L.zeros(4, 4), (2, -3), {}),
        (lambda L: L.zeros(2, device="meta"), (10,), {}),
    ]
    for make, size, kw in cases:
        ta, xa = make(torch), make(tl)
        tkw = {k: getattr(torch, v) for k, v in kw.items()}
        lkw = {k: getattr(tl, v) for k, v in kw.items()}
        expected, err = torch_result(lambda: ta.resize_(size, **tkw))
        if err is not None:
            with pytest.raises(error_types_like(err)):
                xa.resize_(size, **lkw)
            continue
        got = xa.resize_(*size, **lkw)
        assert got is xa
        assert tuple(got.shape) == tuple(expected.shape) and got.stride() == expected.stride()


def test_resize_refuses_tensors_that_require_grad_in_every_mode():
    for make in (lambda L: L.zeros(3, requires_grad=True), lambda L: L.zeros(3, requires_grad=True) * 2):
        for L in (torch, tl):
            x = make(L)
            # (in grad mode torchlite's in-place check on a leaf speaks first, in its own words)
            with pytest.raises(RuntimeError, match="require"):
                x.resize_(5)
            with L.no_grad(), pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
                x.resize_(3)
            with pytest.raises(RuntimeError, match="require"):
                x.resize_as_(L.zeros(2))


def test_resize_as_like_torch():
    def channels_last(L):
        return L.zeros(2, 4, 5, 3).permute(0, 3, 1, 2)

    for template, fmt in [(lambda L: L.zeros(2, 3).t(), None), (channels_last, None), (channels_last, "preserve_format"),
                          (lambda L: L.zeros(2, 3, 4, 5), "channels_last")]:
        ta, xa = torch.zeros(4, 4), tl.zeros(4, 4)
        tkw = {} if fmt is None else {"memory_format": getattr(torch, fmt)}
        lkw = {} if fmt is None else {"memory_format": getattr(tl, fmt)}
        ta.resize_as_(template(torch), **tkw)
        assert tl.resize_as_(xa, template(tl), **lkw) is xa
        assert tuple(xa.shape) == tuple(ta.shape) and xa.stride() == ta.stride()


# ---------------------------------------------------------------- asarray: sharing memory when PyTorch does

def _shares(a, b):
    pa = a.data_ptr() if hasattr(a, "data_ptr") else a.ctypes.data
    pb = b.data_ptr() if hasattr(b, "data_ptr") else b.ctypes.data
    return pa == pb


def test_asarray_of_tensors():
    x = tl.arange(4.)
    assert tl.asarray(x) is x
    assert tl.asarray(x, copy=False) is x and tl.asarray(x, dtype=tl.float32) is x
    c = tl.asarray(x, copy=True)
    assert not _shares(c, x) and c.tolist() == x.tolist()
    d = tl.asarray(x, dtype=tl.int32)
    assert d.dtype == tl.int32 and not _shares(d, x)
    with pytest.raises(ValueError, match="can't alias tensor with dtype 'Float' into dtype 'Int'"):
        tl.asarray(x, dtype=tl.int32, copy=False)
    with pytest.raises(ValueError):
        tl.asarray(x, device="meta", copy=False)
    assert tl.asarray(x, device="meta").is_meta
    r = tl.asarray(x, requires_grad=True)
    assert r is x and x.requires_grad and x.is_leaf
    # requires_grad defaults to the tensor's own (with PyTorch's warning); False turns it off in place
    with pytest.warns(UserWarning, match="unspecified requires_grad"):
        assert tl.asarray(x) is x
    with pytest.warns(UserWarning):
        c = tl.asarray(x, copy=True)
    assert c.requires_grad and c.grad_fn.name() == "CloneBackward0"
    with pytest.warns(UserWarning):
        assert tl.asarray(x, dtype=tl.float64).grad_fn.name() == "ToCopyBackward0"
    assert tl.asarray(x, requires_grad=False) is x and not x.requires_grad
    y = tl.ones(2, requires_grad=True) * 2
    z = tl.asarray(y, requires_grad=False)
    assert not z.requires_grad and z.grad_fn is None and _shares(z, y)


def test_asarray_of_numpy_and_buffers():
    n = np.arange(4.)
    t = tl.asarray(n)
    assert t.dtype == tl.float64 and _shares(t, n)
    assert not _shares(tl.asarray(n, copy=True), n)
    f = tl.asarray(n, dtype=tl.float32)
    assert f.dtype == tl.float32 and f.tolist() == [0., 1., 2., 3.]
    with pytest.raises(ValueError, match="can't alias tensor with dtype 'Double' into dtype 'Float'"):
        tl.asarray(n, dtype=tl.float32, copy=False)
    s = tl.asarray(n[::2])
    assert s.stride() == (2,) and _shares(s, n)
    for scalar in (np.float32(2.5), np.int16(7), np.bool_(True)):
        assert_same(tl.asarray(scalar), torch.asarray(scalar))
    with pytest.raises(ValueError, match="can't alias NumPy scalars"):
        tl.asarray(np.float32(1), copy=False)
    ro = np.broadcast_to(np.ones(3), (2, 3))
    with pytest.warns(UserWarning, match="not writable"):
        assert tl.asarray(ro).shape == (2, 3)
    # the buffer protocol: the bytes read as the default dtype (or `dtype`), memory shared
    buf = bytearray(np.arange(4, dtype=np.float32).tobytes())
    b = tl.asarray(buf)
    assert b.tolist() == [0., 1., 2., 3.]
    buf[0:4] = np.float32(9).tobytes()
    assert b[0].item() == 9.
    import array
    assert_same(tl.asarray(array.array("i", [1, 2, 3]), dtype=tl.int32), torch.asarray(array.array("i", [1, 2, 3]), dtype=torch.int32))
    for bad in (b"abc", b""):
        same_or_both_raise(lambda: tl.asarray(bad), lambda: torch.asarray(bad))


def test_asarray_of_sequences_and_numbers():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for obj, kw in [([1, 2, 3], {}), ([1, 2.5], {}), (3, {}), (3.5, {"dtype": "float64"}), (True, {}),
                        ([[1, 2], [3, 4]], {"dtype": "int8"}), ([torch.tensor(1), torch.tensor(2)], {}),
                        ([np.ones(2), np.zeros(2)], {}), ("abc", {}), (None, {}), ([1, 2], {"requires_grad": True}),
                        ([1., 2.], {"requires_grad": True})]:
            lobj = [from_torch(o) if isinstance(o, torch.Tensor) else o for o in obj] if isinstance(obj, list) else obj
            same_or_both_raise(lambda: tl.asarray(lobj, **{k: getattr(tl, v) if k == "dtype" else v for k, v in kw.items()}),
                               lambda: torch.asarray(obj, **{k: getattr(torch, v) if k == "dtype" else v for k, v in kw.items()}))
    with pytest.raises(ValueError, match="can't alias arbitrary sequence"):
        tl.asarray([1, 2], copy=False)
    with pytest.raises(TypeError):
        tl.asarray([1], tl.float64)  # everything after obj is keyword-only
    assert tl.asarray([1., 2.], requires_grad=True).requires_grad


# ---------------------------------------------------------------- tensor() from nested tensors, Tensor.new

def _nested_cases(L):
    T = L.tensor
    return [
        lambda: T([T([1, 2]), T([3, 4])]), lambda: T([T(1), T(2.5)]),
        lambda: T([T(1, dtype=L.int8), T(2, dtype=L.int8)]), lambda: T([T(1, dtype=L.int8), 3]),
        lambda: T([[1, 2], T([3, 4], dtype=L.int32)]), lambda: T([T([1, 2], dtype=L.int32), T([3., 4.], dtype=L.float16)]),
        lambda: T([[T(1), 2], [3, T(4)]]), lambda: T([[[1, 2], [3, 4]], L.ones(2, 2)]),
        lambda: T([[1, 2], L.ones(3)]), lambda: T([[1, 2], T(3.)]), lambda: T([[1, 2], L.ones(2, 2)]),
        lambda: T([[1, 2], L.ones(2, 2, dtype=L.int64)]), lambda: T([T(1.5), 2], dtype=L.int64),
        lambda: T([T([1.5]), T([2.])]), lambda: T([[[0, 0, 0], [0, 0, 0]], L.arange(6).reshape(3, 2).t()]),
        lambda: T([T(True), 2]), lambda: T([T(1, dtype=L.uint8), T(2, dtype=L.int8)]), lambda: T([T(300)], dtype=L.uint8),
        lambda: T([T(1.5)], dtype=L.bool), lambda: T([T(2)], dtype=L.bool), lambda: T([T([1, 2])], dtype=L.float32),
        lambda: T([[1., 2.], T([3., 4.], dtype=L.bfloat16)]), lambda: T([[1, 2], T([3., 4.])], dtype=L.int64),
        lambda: T([[1, 2], T([300, 4])], dtype=L.int8), lambda: T([np.ones(2, dtype=np.float32), L.zeros(2, dtype=L.int64)]),
        lambda: T([T([]), T([])]), lambda: T([[[1, 2]], [T([3, 4])]]), lambda: T([[0, 0, 0], T([5]).expand(3)]),
    ]


@pytest.mark.parametrize("k", range(len(_nested_cases(torch))))
def test_tensor_from_nested_tensors_like_torch(k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_or_both_raise(_nested_cases(tl)[k], _nested_cases(torch)[k])


def test_tensor_new_like_torch():
    cases = [(), (2, 3), ((2, 3),), ([2, 3],), ([[1, 2], [3, 4]],), ([],), ((),), (np.ones(3),), (2.5,), (True,),
             (None,), ("a",), (-1,), (2, 3.0)]
    for args in cases:
        for dt in ("int32", "float64"):
            a, x = torch.ones(2, dtype=getattr(torch, dt)), tl.ones(2, dtype=getattr(tl, dt))
            expected, err = torch_result(lambda: a.new(*args))
            if err is not None:
                with pytest.raises(error_types_like(err)):
                    x.new(*args)
                continue
            got = x.new(*args)
            assert tuple(got.shape) == tuple(expected.shape) and str(got.dtype)[10:] == str(expected.dtype)[6:]
            if args and not all(isinstance(v, int) for v in args):
                assert_same(got, expected, atol=0, rtol=0)
    x = tl.ones(2, dtype=tl.int32)
    assert tuple(x.new(tl.Size([2, 3])).shape) == (2, 3)
    other = tl.zeros(3, dtype=tl.int32)
    alias = x.new(other)
    assert alias is not other and _shares(alias, other)
    with pytest.raises(TypeError):
        x.new(tl.zeros(3))
    with pytest.raises(TypeError):
        x.new(2, dtype=tl.float64)
    with pytest.raises(RuntimeError, match="legacy constructor expects device type: cpu"):
        x.new(2, device="meta")
    m = tl.ones(2, device="meta")
    assert m.new(3).is_meta and m.new([1.]).is_meta


def test_factories_refuse_pinned_memory_like_cpu_only_torch():
    for call in (lambda L: L.eye(2, pin_memory=True), lambda L: L.eye(2, 3, pin_memory=True),
                 lambda L: L.linspace(0, 1, 3, pin_memory=True), lambda L: L.logspace(0, 1, 3, pin_memory=True),
                 lambda L: L.tril_indices(3, 3, pin_memory=True), lambda L: L.triu_indices(3, 3, pin_memory=True)):
        same_or_both_raise(lambda: call(tl), lambda: call(torch))
    assert tl.eye(2, pin_memory=False, layout=tl.strided).shape == (2, 2)
