"""Basic indexing (tensor[index], tensor[index] = value) against PyTorch: results, their
geometry (views share storage), assignment with broadcasting, and the errors."""
import numpy as np
import pytest
import torch

import torchlite as tl

SHAPE = (4, 5, 6)

INDICES = [
    0, -1, 3, slice(None), slice(1, 3), slice(None, None, 2), slice(1, None, 3), slice(-3, None),
    slice(None, -1), slice(10, 20), slice(-10, 2), slice(3, 1), slice(0, 0), None, Ellipsis, (),
    (0, 1), (0, 1, 2), (-1, -2, -3), (slice(None), 2), (Ellipsis, 1), (1, Ellipsis), (1, Ellipsis, 2),
    (None, 0), (0, None), (slice(None), None, 1), (None, Ellipsis, None), (Ellipsis, None),
    (slice(1, 3), slice(None, None, 2), 0), (slice(None, None, 3), Ellipsis, slice(2, 5, 2)),
    (1, slice(None), slice(4, 1)), (None, None, 1, None), (2, 3, slice(None), None),
    (np.int64(1), np.int32(2)), (tl.tensor(1), 0),
]


def to_torch_index(index):
    """The same index for PyTorch (torchlite tensors in it become torch tensors)."""
    if isinstance(index, tuple):
        return tuple(to_torch_index(i) for i in index)
    if isinstance(index, tl.Tensor):
        return torch.tensor(index.tolist())
    return index


def make_pair(shape=SHAPE, dtype="float32"):
    n = int(np.prod(shape))
    t = torch.arange(n).reshape(shape).to(getattr(torch, dtype))
    a = tl.arange(n).reshape(shape).to(getattr(tl, dtype))
    return a, t


@pytest.mark.parametrize("index", INDICES, ids=repr)
def test_getitem_matches_pytorch(index):
    a, t = make_pair()
    got, expected = a[index], t[to_torch_index(index)]
    assert tuple(got.shape) == tuple(expected.shape)
    assert got.stride() == expected.stride()
    assert got.storage_offset() == expected.storage_offset()
    assert got.tolist() == expected.tolist()
    # a view: same storage, not the same tensor object
    assert got is not a
    if got.numel() == 0:  # empty tensors have no data pointer (0), as PyTorch's
        assert got.data_ptr() == expected.data_ptr() == 0
    else:
        assert got.data_ptr() == a.data_ptr() + got.storage_offset() * a.element_size()


@pytest.mark.parametrize("index", [0, (1, 2), (slice(None), 1), (Ellipsis, slice(0, 4, 2)), None, (0, None, 1)],
                         ids=repr)
def test_getitem_of_views(index):
    a, t = make_pair()
    a, t = a.transpose(0, 2)[1:], t.transpose(0, 2)[1:]
    got, expected = a[index], t[to_torch_index(index)]
    assert tuple(got.shape) == tuple(expected.shape)
    assert got.stride() == expected.stride()
    assert got.storage_offset() == expected.storage_offset()
    assert got.tolist() == expected.tolist()


def test_views_share_storage():
    a = tl.zeros(3, 4)
    row = a[1]
    row.fill_(5)
    assert a[1].tolist() == [5.0] * 4
    col = a[:, 2]
    col.add_(1)
    assert a.tolist()[0] == [0.0, 0.0, 1.0, 0.0]
    a[0, 0] = 9
    assert row._is_view() and col._is_view()
    assert a[...].data_ptr() == a.data_ptr()
    assert a[...] is not a and a[()] is not a


def test_zero_dim_index_results():
    a = tl.arange(6).reshape(2, 3)
    x = a[1, 2]
    assert x.dim() == 0 and x.item() == 5
    assert a[1][2].item() == 5
    s = tl.tensor(7)
    assert s[...].item() == 7 and s[None].shape == (1,) and s[()].dim() == 0


VALUES = [
    2, 2.5, True, np.float32(1.5), np.int64(3),
    "tl.tensor(3.0)", "tl.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])", "tl.arange(30.).reshape(5, 6)",
    "tl.ones(1, 6, dtype=tl.int64)", [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
]


@pytest.mark.parametrize("index", [0, (1, 2), (slice(None), 1), (Ellipsis, 3), (slice(1, 3), slice(None), 0),
                                   (0, slice(None, None, 2)), (None, 1), Ellipsis], ids=repr)
@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_setitem_matches_pytorch(index, value):
    a, t = make_pair()
    if isinstance(value, str):
        lv = eval(value, {"tl": tl})
        tv = torch.tensor(lv.tolist(), dtype=getattr(torch, str(lv.dtype).split(".")[-1]))
    elif isinstance(value, list):
        lv, tv = value, torch.tensor(value)  # PyTorch takes no lists here; torchlite converts them
    elif isinstance(value, np.generic):
        lv, tv = value, value.item()  # nor NumPy scalars
    else:
        lv, tv = value, value
    t_ok = l_ok = True
    try:
        t[to_torch_index(index)] = tv
    except RuntimeError:
        t_ok = False
    try:
        a[index] = lv
    except RuntimeError:
        l_ok = False
    assert l_ok == t_ok
    assert a.tolist() == t.tolist()


@pytest.mark.parametrize("dtype", ["int64", "int16", "bool", "float16", "float64"])
def test_setitem_converts_to_the_tensor_dtype(dtype):
    a, t = make_pair((3, 4), dtype)
    a[1] = 1.75
    t[1] = 1.75
    a[:, 0] = tl.tensor([0.0, 2.5, 1.0])
    t[:, 0] = torch.tensor([0.0, 2.5, 1.0])
    assert a.tolist() == t.tolist()


def test_index_errors():
    a = tl.ones(2, 3)
    with pytest.raises(ValueError, match="step must be greater than zero"):
        a[::-1]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        a[:, ::0]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        a[0, 0, 0]
    with pytest.raises(IndexError, match="0-dim"):
        tl.tensor(5)[0]
    with pytest.raises(IndexError):
        a[5]
    with pytest.raises(IndexError):
        a[:, -4]
    with pytest.raises(TypeError):
        a["a"]
    with pytest.raises(IndexError):
        a[1.5]


@pytest.mark.parametrize("index", [[0], tl.tensor([0, 1]), (slice(None), [1, 2]), True, tl.tensor(True),
                                   np.array([0]), tl.tensor([True, False])], ids=repr)
def test_advanced_indexing_is_reported_as_not_supported(index):
    a = tl.ones(2, 3)
    with pytest.raises(NotImplementedError, match="advanced indexing"):
        a[index]
    with pytest.raises(NotImplementedError, match="advanced indexing"):
        a[index] = 0


def test_meta_tensor_indexing():
    m = tl.empty(4, 5, 6, device="meta")
    assert m[1].shape == (5, 6) and m[1].is_meta
    assert m[:, None, ::2].shape == (4, 1, 3, 6)
    m[0] = 1  # computes nothing, but checks the shapes
    with pytest.raises(RuntimeError):
        m[0] = tl.ones(3, 3, device="meta")


def test_indexing_is_differentiable():
    x = tl.arange(6.).reshape(2, 3).requires_grad_()
    tx = torch.arange(6.).reshape(2, 3).requires_grad_()
    (x[1, ::2].sum() + x[:, 1].sum() * 2 + x[None, 0, 0].sum()).backward()
    (tx[1, ::2].sum() + tx[:, 1].sum() * 2 + tx[None, 0, 0].sum()).backward()
    assert x.grad.tolist() == tx.grad.tolist()


def test_setitem_on_a_leaf_that_requires_grad_raises():
    x = tl.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError):
        x[0] = 2
    with tl.no_grad():
        x[0] = 2
    assert x.tolist() == [2.0, 1.0, 1.0]


def test_iteration():
    a, t = make_pair((3, 2))
    assert [r.tolist() for r in a] == [r.tolist() for r in t]
    rows = list(a)
    rows[0].fill_(-1)
    assert a[0].tolist() == [-1.0, -1.0]
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(tl.tensor(1))
