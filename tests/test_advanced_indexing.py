"""Advanced indexing (tensor[index], tensor[index] = value with integer/bool tensors, lists, NumPy
arrays and Python bools, mixed with basic items) against PyTorch: values, shapes, where the
advanced dims go, errors, autograd; plus the mask ops' Python-level forms (nonzero(as_tuple=)).
The ops themselves (index, index_put, masked_*, nonzero, put, take_along_dim, where) are covered
by the generated suites through their YAML samples."""
import random

import numpy as np
import pytest
import torch

import torchlite as tl

DTYPES = ["float32", "float64", "int64", "int32", "int16", "int8", "uint8", "bool", "float16", "bfloat16"]


class Idx:
    """One index item, built for both libraries: `make(lib)` gives the item for lib."""

    def __init__(self, make, text):
        self.make, self.text = make, text

    def __repr__(self):
        return self.text


def tensor_item(values, dtype="int64"):
    return Idx(lambda lib: lib.tensor(values, dtype=getattr(lib, dtype)), f"tensor({values}, {dtype})")


def plain(item):
    return Idx(lambda lib: item, repr(item))


def both(index):
    """(torchlite index, torch index) of a tuple of Idx / plain items."""
    def build(lib):
        return tuple(i.make(lib) if isinstance(i, Idx) else i for i in index)
    return build(tl), build(torch)


def pair(shape, dtype="float32", layout="contiguous"):
    n = int(np.prod(shape))
    t = (torch.arange(n) - n // 3).to(getattr(torch, dtype))
    if layout == "transposed" and len(shape) >= 2:
        t = t.reshape(shape[::-1]).permute(*reversed(range(len(shape))))
    else:
        t = t.reshape(shape)
    a = tl.tensor(t.contiguous().tolist(), dtype=getattr(tl, dtype)) if n else tl.empty(shape, dtype=getattr(tl, dtype))
    if layout == "transposed" and len(shape) >= 2:
        a = a.permute(*reversed(range(len(shape)))).contiguous().permute(*reversed(range(len(shape))))
    return a, t


def same(got, expected):
    assert tuple(got.shape) == tuple(expected.shape), (tuple(got.shape), tuple(expected.shape))
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert got.tolist() == expected.tolist()


def same_outcome(fa, ft):
    """Both raise the same exception type, or both give the same tensor."""
    try:
        expected = ft()
    except Exception as e:  # noqa: BLE001 - the oracle decides
        with pytest.raises(type(e)):
            fa()
        return None
    got = fa()
    same(got, expected)
    return got, expected


# ---------------------------------------------------------------- a grid of index expressions

SHAPE = (4, 5, 6)
GRID = [
    (tensor_item([0, 3, -1, 3]),),
    (tensor_item([0, 2], "int32"),),
    ([0, 2, 1],),
    ([[0, 1], [3, 2]],),
    (slice(None), [4, 0]),
    (Ellipsis, [5, 0, 1]),
    ([0, 1], [1, 2]),
    ([0, 1], slice(None), [1, 2]),          # separated by a slice: index dims first
    (slice(1, 3), [0, 1], [2, 3]),          # adjacent after a slice: in place
    ([[0], [1]], slice(None), [0, 5]),      # broadcast index tensors, separated
    (slice(None), [[0], [1]], [0, 5]),      # broadcast index tensors, adjacent
    (0, slice(None), [0, 1]),               # an int selects first (PyTorch, not NumPy)
    ([1, 2], 0),
    (None, [1, 2], None, 0),
    ([1, 2], None, [0, 1]),
    (tensor_item([True, False, True, True], "bool"),),
    (tensor_item([True, False, True, True], "bool"), 2),
    (slice(None), tensor_item([True, False, False, True, True], "bool")),
    (slice(None), tensor_item([True, False, False, True, True], "bool"), [0, 1, 5]),
    (Idx(lambda lib: lib.arange(20).reshape(4, 5) % 3 == 0, "mask(4, 5)"),),
    (Idx(lambda lib: lib.arange(20).reshape(4, 5) % 3 == 0, "mask(4, 5)"), slice(2, 4)),
    (Idx(lambda lib: lib.arange(120).reshape(4, 5, 6) % 7 == 0, "mask(4, 5, 6)"),),
    (Idx(lambda lib: lib.zeros(4, 5, 6, dtype=lib.bool), "all-false mask"),),
    (Idx(lambda lib: lib.tensor([1, 0, 1, 0], dtype=lib.uint8), "uint8 mask"),),
    (True,),
    (False,),
    (True, 1),
    (slice(None), False, [0]),
    (Idx(lambda lib: lib.tensor(True), "tensor(True)"),),
    (Idx(lambda lib: lib.tensor(2), "tensor(2)"), [0, 1]),
    ([],),
    (slice(None), tensor_item([], "int64")),
    (Idx(lambda lib: np.array([3, 1]), "np.array([3, 1])"),),
    (Idx(lambda lib: np.array([True, False, True, False]), "np bool array"),),
    (Idx(lambda lib: np.array([0, 1], dtype=np.int32), "np int32 array"), slice(None), 2),
    ([-4, 3], [-5, 4], [-6, 5]),
    (tensor_item([[1, 2], [0, 3]]), Ellipsis, tensor_item([[1], [0]])),
]
ERRORS = [
    (tensor_item([4]),),                      # out of bounds
    (slice(None), [-6]),
    (tensor_item([0.5], "float32"),),         # wrong dtype
    (tensor_item([True, False], "bool"),),            # mask shape
    ([0, 1], [0, 1, 2]),                      # cannot broadcast
    ([0], [0], [0], [0]),                     # too many
    (Idx(lambda lib: lib.tensor([0], dtype=lib.int16), "int16"),),
    (Idx(lambda lib: lib.arange(24).reshape(4, 6) % 5 == 0, "mask(4, 6) on dims 0, 1"),),
]


@pytest.mark.parametrize("index", GRID + ERRORS, ids=repr)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_getitem_matches_pytorch(index, layout):
    a, t = pair(SHAPE, layout=layout)
    ia, it = both(index)
    same_outcome(lambda: a[ia], lambda: t[it])


def test_uint8_mask_warns_as_pytorch():
    a = tl.arange(4.0)
    with pytest.warns(UserWarning, match="indexing with dtype torchlite.uint8 is now deprecated"):
        assert a[tl.tensor([1, 0, 1, 0], dtype=tl.uint8)].tolist() == [0.0, 2.0]


def test_out_of_bounds_message():
    a = tl.zeros(3)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        a[tl.tensor([5])]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        a[tl.tensor([1.0])]
    with pytest.raises(IndexError, match=r"The shape of the mask \[2\] at index 0 does not match"):
        a[tl.tensor([True, False])]
    with pytest.raises(IndexError, match=r"shape mismatch: indexing tensors could not be broadcast together"):
        tl.zeros(3, 3)[[0, 1], [0, 1, 2]]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index", [GRID[3], GRID[7], GRID[18], GRID[22]], ids=repr)
def test_getitem_dtypes(index, dtype):
    a, t = pair(SHAPE, dtype)
    ia, it = both(index)
    same(a[ia], t[it])


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (2, 0, 4)])
@pytest.mark.parametrize("index", [([],), (tensor_item([0, 1]),), (slice(None), [0]),
                                   (Idx(lambda lib: lib.zeros(2, dtype=lib.bool), "mask(2)"),)], ids=repr)
def test_empty_dims(shape, index):
    a, t = pair(shape)
    ia, it = both(index)
    same_outcome(lambda: a[ia], lambda: t[it])


def test_getitem_of_non_contiguous_views():
    a, t = pair((6, 8))
    a, t = a[::2, 1::3], t[::2, 1::3]
    for index in [([0, 2],), (slice(None), [1, 0]), (Idx(lambda lib: lib.tensor([True, False, True]), "m"),)]:
        ia, it = both(index)
        same(a[ia], t[it])
    same(a.expand(2, 3, 3)[:, [0, 2]] if False else a[[2, 0]].t(), t[[2, 0]].t())


# ---------------------------------------------------------------- random expressions

def random_index(rng, shape):
    """A random mix of basic and advanced items for `shape` (valid or not: torch decides)."""
    items, dim = [], 0
    used_ellipsis = False
    while dim < len(shape) and rng.random() < 0.8:
        n = shape[dim]
        kind = rng.choice(["int", "slice", "none", "ellipsis", "list", "tensor", "mask", "bool", "bcast"])
        if kind == "int" and n:
            items.append(rng.randrange(-n, n))
        elif kind == "slice":
            items.append(slice(rng.choice([None, 0, 1, -2]), rng.choice([None, -1, 3]), rng.choice([None, 1, 2])))
        elif kind == "none":
            items.append(None)
            continue
        elif kind == "ellipsis" and not used_ellipsis:
            items.append(Ellipsis)
            used_ellipsis = True
            dim = len(shape) - (len(shape) - dim) // 2
            continue
        elif kind == "list" and n:
            items.append([rng.randrange(-n, n) for _ in range(rng.choice([1, 2, 3]))])
        elif kind == "tensor" and n:
            vals = [rng.randrange(-n, n) for _ in range(2)]
            items.append(tensor_item(vals, rng.choice(["int64", "int32"])))
        elif kind == "bcast" and n:
            vals = [[rng.randrange(n)], [rng.randrange(n)]]
            items.append(tensor_item(vals))
        elif kind == "mask":
            vals = [rng.random() < 0.5 for _ in range(n)]
            items.append(tensor_item(vals, "bool"))
        elif kind == "bool":
            items.append(rng.random() < 0.7)
            continue
        else:
            items.append(slice(None))
        dim += 1
    return tuple(items)


CASES = []
_rng = random.Random(1234)
for _ in range(160):
    _shape = _rng.choice([(4, 5, 6), (3, 4), (5,), (2, 3, 4, 2), (3, 0, 2)])
    CASES.append((_shape, random_index(_rng, _shape)))


@pytest.mark.parametrize("shape,index", CASES, ids=[f"{s}-{i!r}" for s, i in CASES])
def test_random_expressions(shape, index):
    a, t = pair(shape)
    ia, it = both(index)
    same_outcome(lambda: a[ia], lambda: t[it])
    # assignment of a number and of a tensor of the indexed shape
    try:
        shape_t = t[it].shape
    except Exception:  # noqa: BLE001 - invalid index: checked above
        return
    a2, t2 = pair(shape)
    a2[ia] = -7.5
    t2[it] = -7.5
    same(a2, t2)
    n = int(np.prod(shape_t))
    a3, t3 = pair(shape)
    va = tl.arange(n, dtype=tl.float32).reshape(tuple(shape_t)) + 100
    vt = torch.arange(n, dtype=torch.float32).reshape(shape_t) + 100
    a3[ia] = va
    t3[it] = vt
    same(a3, t3)  # repeated indices: the last write wins in both (small sizes run serially)
    # the gradient of a weighted sum of the result
    a4, t4 = pair(shape, "float64")
    a4.requires_grad_()
    t4.requires_grad_()
    w = torch.arange(n, dtype=torch.float64).reshape(shape_t)
    (a4[ia] * tl.tensor(w.tolist(), dtype=tl.float64).reshape(tuple(shape_t))).sum().backward()
    (t4[it] * w).sum().backward()
    same(a4.grad, t4.grad)


# ---------------------------------------------------------------- assignment

@pytest.mark.parametrize("index", GRID, ids=repr)
@pytest.mark.parametrize("value", ["scalar", "broadcast", "full", "int64"])
def test_setitem_matches_pytorch(index, value):
    a, t = pair(SHAPE)
    ia, it = both(index)
    n_shape = t[it].shape
    if value == "scalar":
        va, vt = 3.25, 3.25
    elif value == "broadcast":
        last = n_shape[-1] if len(n_shape) else 1
        va, vt = tl.arange(last, dtype=tl.float32) - 50, torch.arange(last, dtype=torch.float32) - 50
    elif value == "full":
        k = int(np.prod(n_shape))
        va = tl.arange(k, dtype=tl.float32).reshape(tuple(n_shape)) * 2 + 1
        vt = torch.arange(k, dtype=torch.float32).reshape(n_shape) * 2 + 1
        va, vt = va[None], vt[None]  # a leading 1 is dropped
    else:
        va, vt = tl.tensor(9), torch.tensor(9)  # refused: index_put_ wants self's dtype (numbers convert)
    same_outcome(lambda: (a.__setitem__(ia, va), a)[1], lambda: (t.__setitem__(it, vt), t)[1])


@pytest.mark.parametrize("dtype", DTYPES)
def test_setitem_dtypes(dtype):
    a, t = pair((4, 5), dtype)
    mask_a, mask_t = a.to(tl.float32) > 2, t.to(torch.float32) > 2
    a[mask_a] = 1
    t[mask_t] = 1
    a[[0, 3], 1:3] = 0
    t[[0, 3], 1:3] = 0
    same(a, t)


def test_setitem_errors():
    a, t = pair((3, 4))
    same_outcome(lambda: a.__setitem__([0, 1], tl.ones(3)), lambda: t.__setitem__([0, 1], torch.ones(3)))
    same_outcome(lambda: a.__setitem__([5], 1.0), lambda: t.__setitem__([5], 1.0))
    same_outcome(lambda: a.__setitem__(a > 2, tl.ones(2)), lambda: t.__setitem__(t > 2, torch.ones(2)))


def test_setitem_of_non_contiguous_self():
    a, t = pair((6, 4), layout="transposed")
    a[[1, 3]] = tl.arange(4.0)
    t[[1, 3]] = torch.arange(4.0)
    a[a > 5] = -1
    t[t > 5] = -1
    same(a, t)


def test_accumulate_adds_duplicates():
    a, t = pair((5, 3))
    idx = [0, 2, 0, 0, 4]
    a.index_put_((tl.tensor(idx),), tl.ones(5, 3), accumulate=True)
    t.index_put_((torch.tensor(idx),), torch.ones(5, 3), accumulate=True)
    same(a, t)


# ---------------------------------------------------------------- autograd

@pytest.mark.parametrize("index", GRID[:24], ids=repr)
def test_getitem_gradient(index):
    a, t = pair(SHAPE, "float64")
    a.requires_grad_()
    t.requires_grad_()
    ia, it = both(index)
    ra, rt = a[ia], t[it]
    assert ra.grad_fn.name() == type(rt.grad_fn).__name__ == "IndexBackward0"
    w_t = torch.arange(rt.numel(), dtype=torch.float64).reshape(rt.shape)
    (ra * tl.tensor(w_t.tolist(), dtype=tl.float64).reshape(tuple(rt.shape))).sum().backward()
    (rt * w_t).sum().backward()
    same(a.grad, t.grad)


def test_setitem_gradient_and_version():
    x = tl.arange(12.0, dtype=tl.float64).reshape(3, 4).requires_grad_()
    v = tl.tensor([1.0, 2.0, 3.0, 4.0], dtype=tl.float64, requires_grad=True)
    tx = torch.arange(12.0, dtype=torch.float64).reshape(3, 4).requires_grad_()
    tv = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64, requires_grad=True)
    y, ty = x.clone(), tx.clone()
    version = y._version
    y[[0, 2]] = v
    ty[[0, 2]] = tv
    assert y._version > version
    assert y.grad_fn.name() == type(ty.grad_fn).__name__ == "IndexPutBackward0"
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    same(x.grad, tx.grad)
    same(v.grad, tv.grad)


def test_setitem_on_a_leaf_that_requires_grad_raises():
    x = tl.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x[[0]] = 2.0
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x[x > 0] = 2.0


def test_mask_gradient_double_backward():
    x = tl.tensor([[1.0, -2.0], [3.0, 4.0]], dtype=tl.float64, requires_grad=True)
    assert tl.autograd.gradcheck(lambda t: t[t > 0] ** 2, (x,))
    assert tl.autograd.gradgradcheck(lambda t: t[[1, 0, 1]] ** 2, (x,))


# ---------------------------------------------------------------- nonzero / where forms

@pytest.mark.parametrize("values", [[[0.0, 1.0], [2.0, 0.0]], [0.0, float("nan"), -0.0, 3.0], 3.0, 0.0, []])
def test_nonzero_forms(values):
    a, t = tl.tensor(values), torch.tensor(values)
    same(tl.nonzero(a), torch.nonzero(t))
    same(tl.argwhere(a), torch.argwhere(t))
    got, expected = tl.nonzero(a, as_tuple=True), torch.nonzero(t, as_tuple=True)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        same(g, e)
    for g, e in zip(a.nonzero(as_tuple=True), t.nonzero(as_tuple=True)):
        same(g, e)
    for g, e in zip(tl.where(a != 0), torch.where(t != 0)):
        same(g, e)


def test_where_with_numbers():
    a, t = pair((3, 4))
    for args_a, args_t in [((a > 2, 1.5, a), (t > 2, 1.5, t)), ((a > 2, a, 7), (t > 2, t, 7)),
                           ((a > 2, 1, 2.5), (t > 2, 1, 2.5)), ((a > 2, True, False), (t > 2, True, False)),
                           ((a > 2, a.long(), 2.5), (t > 2, t.long(), 2.5))]:
        same(tl.where(*args_a), torch.where(*args_t))


def test_meta():
    m = tl.empty(3, 4, device="meta")
    r = m[tl.tensor([0, 2])]
    assert r.is_meta and tuple(r.shape) == (2, 4)
    with pytest.raises(NotImplementedError):
        tl.nonzero(m)
