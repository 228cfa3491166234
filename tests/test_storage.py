"""Storages as Python objects (torchlite/storage.py, torchlite/csrc/storage.cpp), Tensor.set_ with a
storage, and is_set_to, against PyTorch: identity and sharing between views, element access, the
byte-level operations, pickling, shared memory, the legacy typed classes, and memory safety where
PyTorch itself would read freed memory."""
import copy
import os
import pickle
import warnings

import numpy as np
import pytest
import torch

import torchlite as tl


def both(fn):
    return fn(tl), fn(torch)


def outcome(lib, fn):
    try:
        return "ok", fn(lib)
    except Exception as e:  # noqa: BLE001 - compared with PyTorch's
        return type(e).__name__, None


# ---------------------------------------------------------------- UntypedStorage


def test_views_share_one_storage_object():
    x = tl.arange(12.0).reshape(3, 4)
    s = x.untyped_storage()
    assert isinstance(s, tl.UntypedStorage)
    assert s is x.untyped_storage() is x.t().untyped_storage() is x[1:, ::2].untyped_storage()
    assert s._cdata == x[2].untyped_storage()._cdata
    assert s.data_ptr() == x.data_ptr() == x[1:].untyped_storage().data_ptr()
    assert x.clone().untyped_storage()._cdata != s._cdata
    assert s.device == tl.device("cpu")


def test_sizes_and_elements_match_torch():
    def run(lib):
        x = lib.arange(6.0)
        s = x.untyped_storage()
        return [s.nbytes(), s.size(), len(s), s[0], s[5], s[-1], s.tolist(), s.element_size(), s.is_shared(),
                s.is_pinned(), list(iter(s))[:4]]
    assert run(tl) == run(torch)


def test_index_errors_match_torch():
    for key in (24, -25, 100):
        errors = both(lambda lib: outcome(lib, lambda lib: lib.arange(6.0).untyped_storage()[key])[0])
        assert errors[0] == errors[1] == "IndexError"
    with pytest.raises(IndexError, match="index 24 out of range for storage of size 24"):
        tl.arange(6.0).untyped_storage()[24]
    with pytest.raises(RuntimeError, match="step of 2"):
        tl.arange(6.0).untyped_storage()[0:4:2]


def test_slice_shares_memory_and_keeps_its_parent_alive():
    x = tl.zeros(4)
    part = x.untyped_storage()[4:8]
    assert isinstance(part, tl.UntypedStorage) and part.nbytes() == 4
    assert part.data_ptr() == x.data_ptr() + 4
    part[3] = 64
    assert x[1].item() == 2.0  # 0x40000000 little-endian
    del x
    assert part.tolist() == [0, 0, 0, 64]  # the slice holds the parent's memory
    with pytest.raises(RuntimeError, match="not resizable"):
        part.resize_(10)


def test_setitem_fill_copy():
    def run(lib):
        x = lib.zeros(2, dtype=lib.int32)
        s = x.untyped_storage()
        s[1] = 7
        s[4:6] = 1
        a = x.tolist()
        s.fill_(2)
        b = x.tolist()
        s.copy_(lib.tensor([5, 6], dtype=lib.int32).untyped_storage())
        return a, b, x.tolist()
    assert run(tl) == run(torch)
    with pytest.raises(RuntimeError, match="size does not match, self was 4 bytes but src was 3 bytes"):
        tl.UntypedStorage(4).copy_(tl.UntypedStorage(3))


def test_constructors():
    s = tl.UntypedStorage(5)
    assert s.nbytes() == 5 and s.device.type == "cpu"
    assert tl.UntypedStorage([1, 2, 255]).tolist() == torch.UntypedStorage([1, 2, 255]).tolist()
    assert tl.UntypedStorage().nbytes() == 0
    m = tl.UntypedStorage(10, device="meta")
    assert m.device.type == "meta" and m.nbytes() == 10 and m.data_ptr() == 0
    assert tl.empty(3, device="meta").untyped_storage().nbytes() == 12
    with pytest.raises(RuntimeError):
        tl.UntypedStorage(-1)


@pytest.mark.parametrize("order", ["native", "little", "big"])
@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "float64"])
def test_from_buffer_matches_torch(order, dtype):
    data = bytes(range(1, 33))
    a, b = both(lambda lib: lib.UntypedStorage.from_buffer(data, order, dtype=getattr(lib, dtype)).tolist())
    assert a == b
    a, b = both(lambda lib: lib.UntypedStorage.from_buffer(data, order, count=2, offset=8,
                                                           dtype=getattr(lib, dtype)).tolist())
    assert a == b
    with pytest.raises(RuntimeError):
        tl.UntypedStorage.from_buffer(data)


def test_from_buffer_typed_and_legacy():
    data = b"abcdefgh"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert tl.FloatStorage.from_buffer(data, "little").tolist() == torch.FloatStorage.from_buffer(
            data, "little").tolist()
        assert tl.FloatStorage.from_buffer(data, "big").tolist() == torch.FloatStorage.from_buffer(data, "big").tolist()


def test_resize_grows_and_shrinks():
    s = tl.UntypedStorage([1, 2, 3])
    s.resize_(5)
    assert s.tolist() == [1, 2, 3, 0, 0]
    s.resize_(2)
    assert s.tolist() == [1, 2]
    s.resize_(4)
    assert s.nbytes() == 4 and s.tolist()[:2] == [1, 2]


def test_resize_refused_for_memory_numpy_points_into():
    x = tl.zeros(3)
    _ = x.numpy()
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        x.untyped_storage().resize_(100)
    y = tl.from_numpy(np.zeros(3, dtype=np.float32))
    with pytest.raises(RuntimeError, match="not resizable"):
        y.untyped_storage().resize_(0)


def test_shrinking_under_a_live_tensor_is_memory_safe():
    # PyTorch segfaults on x.sum() here; torchlite keeps the block, so x reads its old bytes.
    x = tl.arange(6.0)
    x.untyped_storage().resize_(0)
    assert x.untyped_storage().nbytes() == 0
    assert x.sum().item() == 15.0
    x.untyped_storage().resize_(24)
    assert x.tolist() == [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]  # regrown bytes are zero


def test_storage_outlives_its_tensor():
    x = tl.arange(4.0)
    s = x.untyped_storage()
    expected = s.tolist()
    del x
    assert s.tolist() == expected


def test_repr_matches_torch():
    def run(lib):
        x = lib.tensor([1, 2], dtype=lib.uint8)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [repr(x.untyped_storage()), repr(lib.UntypedStorage(0)), repr(x.storage()),
                    repr(lib.empty(2, device="meta").untyped_storage())]
    got, expected = run(tl), run(torch)
    assert got == [e.replace("torch.", "torchlite.") for e in expected]


def test_pickle_and_deepcopy():
    x = tl.arange(5.0)
    s = x.untyped_storage()
    back = pickle.loads(pickle.dumps(s))
    assert back.tolist() == s.tolist() and back._cdata != s._cdata
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = pickle.loads(pickle.dumps(x.storage()))
    assert t.dtype == tl.float32 and t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    d = copy.deepcopy(s)
    d[0] = 1
    assert s[0] == 0 and copy.copy(s) is s


def test_share_memory():
    x = tl.arange(4.0)
    s = x.untyped_storage()
    before = x.data_ptr()
    assert s.share_memory_() is s and s.is_shared()
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0] and x.data_ptr() != before
    x.add_(1)  # tensors follow the storage into shared memory
    assert s.is_shared() and x.untyped_storage().is_shared()
    with pytest.raises(RuntimeError, match="not resizable"):
        s.resize_(100)
    y = tl.zeros(2)
    _ = y.numpy()
    with pytest.raises(RuntimeError, match="share_memory_"):
        y.untyped_storage().share_memory_()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_shared_memory_is_shared_with_a_forked_child():
    x = tl.zeros(3)
    x.untyped_storage().share_memory_()
    pid = os.fork()
    if pid == 0:  # the child writes and leaves at once
        x[1] = 5.0
        os._exit(0)
    os.waitpid(pid, 0)
    assert x.tolist() == [0.0, 5.0, 0.0]


# ---------------------------------------------------------------- TypedStorage


def test_typed_storage_matches_torch():
    def run(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = lib.arange(6, dtype=lib.int16)[2:]
            t = x.storage()
            t[1] = 9
            return [str(t.dtype), t.size(), len(t), t.nbytes(), t.element_size(), t[1], t[-1], t.tolist(),
                    x.tolist(), t.data_ptr() == x.untyped_storage().data_ptr(),
                    t._untyped_storage._cdata == x.untyped_storage()._cdata, t.float().tolist(), t.type()]
    got, expected = run(tl), run(torch)
    expected[0] = expected[0].replace("torch", "torchlite")
    assert got == expected


def test_storage_warns_like_torch():
    import torchlite.storage as st
    st._typed_storage_warned = False
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        tl.zeros(2).storage()


def test_legacy_storage_classes():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = tl.FloatStorage(3)
        assert f.dtype == tl.float32 and f.size() == 3 and f.nbytes() == 12
        assert tl.LongStorage([1, 2, 3]).tolist() == [1, 2, 3]
        assert isinstance(tl.zeros(2).storage(), tl.FloatStorage)
        assert not isinstance(tl.zeros(2).storage(), tl.LongStorage)
        assert tl.zeros(2, dtype=tl.int64).storage_type() is tl.LongStorage
        t = tl.TypedStorage(4, dtype=tl.float64)
        assert t.nbytes() == 32


def test_is_storage():
    x = tl.zeros(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert tl.is_storage(x.untyped_storage()) and tl.is_storage(x.storage())
    assert not tl.is_storage(x) and not tl.is_storage([1])


# ---------------------------------------------------------------- set_ and is_set_to


def set_calls(lib):
    """Every set_ overload on a fresh float tensor, as (values, size, stride, offset)."""
    x = lib.arange(12.0)
    s = x.untyped_storage()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        typed = x.storage()
    out = []
    for call in (lambda z: z.set_(s), lambda z: z.set_(s, 2, (2, 3)), lambda z: z.set_(s, 1, (3, 2), (1, 3)),
                 lambda z: z.set_(typed), lambda z: z.set_(source=s), lambda z: z.set_(x.reshape(3, 4).t()),
                 lambda z: z.set_(x, 3, (2, 2)), lambda z: z.set_(x, 0, (2, 2), stride=(4, 1)),
                 lambda z: z.set_(s, 1, (2,), None), lambda z: z.set_(x, 2, (3,), stride=None),
                 lambda z: z.set_()):
        z = lib.empty(0)
        r = call(z)
        assert r is z
        out.append((z.tolist(), tuple(z.shape), z.stride(), z.storage_offset()))
    return out


def test_set_overloads_match_torch():
    assert set_calls(tl) == set_calls(torch)


def test_set_shares_memory_and_is_set_to():
    x = tl.arange(6.0)
    z = tl.empty(0)
    z.set_(x.untyped_storage(), 2, (2,))
    z[0] = 100.0
    assert x[2].item() == 100.0
    assert z.untyped_storage() is x.untyped_storage()
    y = tl.empty(0).set_(x)
    assert y.is_set_to(x) and x.is_set_to(y) and not x[1:].is_set_to(x) and not x.view(2, 3).is_set_to(x)
    assert x.is_set_to(x)


def test_set_grows_the_storage():
    def run(lib):
        x = lib.arange(3.0)
        s = x.untyped_storage()
        z = lib.empty(0).set_(s, 0, (5,))
        return s.nbytes(), tuple(z.shape), x.tolist()
    assert run(tl) == run(torch)


@pytest.mark.parametrize("case", [
    lambda lib: lib.empty(0, dtype=lib.int64).set_(lib.zeros(2)),
    lambda lib: lib.empty(0).set_(lib.zeros(2).untyped_storage(), -1, (1,)),
    lambda lib: lib.empty(0).set_(lib.zeros(2).untyped_storage(), 0, (2,), (1, 2)),
    lambda lib: lib.empty(0, device="meta").set_(lib.zeros(2)),
    lambda lib: lib.zeros(3, requires_grad=True).set_(lib.zeros(2)),
    lambda lib: lib.empty(0).set_(lib.zeros(2), 0),
    lambda lib: lib.empty(0, dtype=lib.int64).set_(lib.zeros(2).storage()),
])
def test_set_errors_match_torch(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, expected = outcome(tl, case)[0], outcome(torch, case)[0]
    assert got == expected and got != "ok"


def test_set_refuses_to_grow_numpy_memory():
    y = tl.from_numpy(np.zeros(2, dtype=np.float32))
    with pytest.raises(RuntimeError, match="not resizable"):
        tl.empty(0).set_(y, 0, (10,))


def test_set_on_meta_and_from_an_untyped_storage_of_another_dtype():
    m = tl.empty(3, device="meta").set_(tl.empty(5, device="meta"))
    assert m.shape == (5,) and m.is_meta
    got = tl.empty(0, dtype=tl.int64).set_(tl.arange(6.0).untyped_storage(), 0, (3,))
    expected = torch.empty(0, dtype=torch.int64).set_(torch.arange(6.0).untyped_storage(), 0, (3,))
    assert got.tolist() == expected.tolist()


def test_set_has_no_derivative():
    x = tl.arange(3.0, requires_grad=True)
    y = x * 2
    y.set_(tl.ones(3))
    assert y.requires_grad and y.grad_fn is not None
    with pytest.raises(RuntimeError, match="derivative for set_ is not implemented"):
        y.sum().backward()
    z = tl.empty(0).set_(x)
    assert z.requires_grad
    with tl.no_grad():
        w = tl.zeros(3, requires_grad=True)
        w.set_(tl.ones(2))
    assert w.tolist() == [1.0, 1.0] and w.is_leaf


def test_tensor_share_memory_matches_torch():
    def run(lib):
        x = lib.arange(4.0)
        v = x[1:]
        before = x.is_shared()
        r = v.share_memory_()
        again = x.share_memory_()  # already shared: nothing moves
        v.add_(1)
        return [before, r is v, again is x, x.is_shared(), v.is_shared(), x.tolist()]

    assert run(tl) == run(torch)
