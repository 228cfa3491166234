"""as_strided_ (the in-place form of as_strided) and the storage casts, against PyTorch 2.13."""
import warnings

import numpy as np
import pytest
import torch

import torchlite as tl


def _pair(shape=(3, 4), dtype=np.float64):
    a = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    return torch.tensor(a), tl.tensor(a.tolist(), dtype=getattr(tl, str(a.dtype)))


def _geometry(t):
    return tuple(t.shape), tuple(t.stride()), t.storage_offset()


# ---------------------------------------------------------------- as_strided_

AS_STRIDED_CASES = {
    "2x2": ((2, 2), (1, 2)),
    "offset": ((3,), (4,), 1),
    "offset kw": ((2, 3), (1, 2), 2),
    "stride 0": ((3,), (0,), 5),
    "0-d": ((), (), 7),
    "empty": ((0, 3), (1, 1)),
}


@pytest.mark.parametrize("case", sorted(AS_STRIDED_CASES))
@pytest.mark.parametrize("how", ["function", "method"])
def test_as_strided__changes_self_like_torch(case, how):
    args = AS_STRIDED_CASES[case]
    a, x = _pair()
    va, vx = a._version, x._version
    ra = torch.as_strided_(a, *args) if how == "function" else a.as_strided_(*args)
    rx = tl.as_strided_(x, *args) if how == "function" else x.as_strided_(*args)
    assert ra is a and rx is x
    assert _geometry(x) == _geometry(a)
    assert x.tolist() == a.tolist()
    assert x._version - vx == a._version - va


def test_as_strided__offset_defaults_to_selfs_own():
    a, x = _pair()
    a, x = a[1:], x[1:]
    a.as_strided_((2, 2), (1, 2))
    x.as_strided_((2, 2), (1, 2))
    assert _geometry(x) == _geometry(a) and x.tolist() == a.tolist()
    assert x.storage_offset() == 4


def test_as_strided__meta():
    x = tl.empty((3, 4), device="meta")
    assert x.as_strided_((2, 5), (5, 1), 1) is x
    assert _geometry(x) == ((2, 5), (5, 1), 1) and x.device.type == "meta"
    with pytest.raises(RuntimeError, match="out of bounds"):
        x.as_strided_((4, 4), (4, 1))


@pytest.mark.parametrize("args", [((3, 5), (5, 1)), ((2,), (1,), 11), ((2,), (2 ** 62,)), ((2 ** 62,), (1,)),
                                  ((2,), (1,), -1), ((-1,), (1,)), ((2, 2), (1,)), ((2,), (-1,))])
def test_as_strided__refuses_what_as_strided_refuses(args):
    """Never a geometry outside the storage; self is left as it was. PyTorch's as_strided_ lets the
    extent computation overflow (a huge size or stride gives a view past the storage, which as_strided
    refuses); torchlite refuses those too."""
    a, x = _pair()
    overflows = args in (((2,), (2 ** 62,)), ((2 ** 62,), (1,)))
    with pytest.raises(RuntimeError):
        (a.as_strided if overflows else a.as_strided_)(*args)
    with pytest.raises(RuntimeError, match="as_strided|negative dimension"):
        x.as_strided_(*args)
    assert _geometry(x) == ((3, 4), (4, 1), 0)


def test_as_strided__autograd_like_torch():
    def run(L):
        leaf = L.tensor(np.arange(12.0).tolist(), dtype=L.float64, requires_grad=True)
        y = leaf * 2
        y.as_strided_((2, 3), (1, 2), 1)
        name = type(y.grad_fn).__name__
        (y * L.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=L.float64)).sum().backward()
        return name, y._is_view(), leaf.grad.tolist()
    assert run(tl) == run(torch)
    assert run(tl)[0] == "AsStridedBackward1"


def test_as_strided__on_a_leaf_that_requires_grad_is_refused():
    for L in (torch, tl):
        leaf = L.ones(2, 3, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable"):
            leaf.as_strided_((3,), (1,))


# ---------------------------------------------------------------- storage API


@pytest.fixture(autouse=False)
def no_typed_storage_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


BYTES = [1, 0, 0, 0, 2, 0, 255, 63]


def _dtype_name(dtype):
    return str(dtype).split(".")[-1]


@pytest.mark.parametrize("cast", ["double", "float", "half", "bfloat16", "long", "int", "short", "char", "byte",
                                  "bool"])
def test_untyped_storage_casts_like_torch(cast, no_typed_storage_warning):
    """Each byte becomes one element of the dtype: a TypedStorage that never shares self's memory."""
    ours, theirs = getattr(tl.UntypedStorage(BYTES), cast)(), getattr(torch.UntypedStorage(BYTES), cast)()
    assert type(ours) is tl.TypedStorage and type(theirs) is torch.TypedStorage
    assert _dtype_name(ours.dtype) == _dtype_name(theirs.dtype)
    assert ours.tolist() == theirs.tolist()
    u = tl.UntypedStorage(BYTES)
    assert getattr(u, cast)()._cdata != u._cdata


@pytest.mark.parametrize("cast", ["float", "byte", "bool"])
def test_typed_storage_casts_copy(cast, no_typed_storage_warning):
    ours, theirs = tl.ByteStorage(BYTES), torch.ByteStorage(BYTES)
    assert getattr(ours, cast)().tolist() == getattr(theirs, cast)().tolist()
    assert getattr(ours, cast)()._cdata != ours._cdata


def test_storage_casts_on_meta():
    m, tm = tl.UntypedStorage(4, device="meta").float(), torch.UntypedStorage(4, device="meta").float()
    assert (m.device.type, len(m), _dtype_name(m.dtype)) == (tm.device.type, len(tm), _dtype_name(tm.dtype))


def test_storage_cast_takes_only_dtypes():
    for S in (tl.UntypedStorage, torch.UntypedStorage):
        with pytest.raises(TypeError, match="must be torch.dtype"):
            S(2)._to("float")


def test_untyped_storage_new_get_device_flags():
    for device in ("cpu", "meta"):
        ours, theirs = tl.UntypedStorage(3, device=device), torch.UntypedStorage(3, device=device)
        assert type(ours.new()) is tl.UntypedStorage and ours.new().nbytes() == theirs.new().nbytes() == 0
        assert ours.new().device.type == theirs.new().device.type == device
        assert ours.get_device() == theirs.get_device()
        assert (ours.is_sparse_csr, ours.is_hpu) == (theirs.is_sparse_csr, theirs.is_hpu)


@pytest.mark.parametrize("target", ["torch.ByteStorage", "torch.CharStorage", "torch.BoolStorage",
                                    "torch.FloatStorage", "torch.storage.UntypedStorage", "class"])
def test_untyped_storage_type_like_torch(target, no_typed_storage_warning):
    """type(cls) makes a cls of as many elements as self has bytes and copies the bytes in (so only
    one-byte classes fit); self when it is a cls already."""
    ours, theirs = tl.UntypedStorage([1, 2, 3, 0]), torch.UntypedStorage([1, 2, 3, 0])
    assert ours.type() == theirs.type() == "torch.storage.UntypedStorage"
    ours_target = tl.ByteStorage if target == "class" else target
    theirs_target = torch.ByteStorage if target == "class" else target
    if target == "torch.FloatStorage":
        for s, t in ((ours, ours_target), (theirs, theirs_target)):
            with pytest.raises(RuntimeError, match="size does not match"):
                s.type(t)
        return
    got, want = ours.type(ours_target), theirs.type(theirs_target)
    assert (got is ours) == (want is theirs)
    assert list(got) == list(want)
    if target != "torch.storage.UntypedStorage":
        assert _dtype_name(got.dtype) == _dtype_name(want.dtype) and got._cdata != ours._cdata


@pytest.mark.parametrize("target", ["torch.ByteStorage", "torch.DoubleStorage", "torch.storage.UntypedStorage"])
def test_typed_storage_type_converts_the_bytes_like_torch(target, no_typed_storage_warning):
    ours, theirs = tl.FloatStorage([1.0, 2.0]), torch.FloatStorage([1.0, 2.0])
    assert ours.type() == theirs.type() == "torch.FloatStorage"
    assert ours.pickle_storage_type() == theirs.pickle_storage_type() == "FloatStorage"
    if target == "torch.DoubleStorage":
        for s in (ours, theirs):
            with pytest.raises(RuntimeError, match="size does not match"):
                s.type(target)
        return
    assert list(ours.type(target)) == list(theirs.type(target))


def test_storage_to(no_typed_storage_warning):
    for L in (tl, torch):
        u = L.UntypedStorage([1, 2, 3])
        assert u.to(device="cpu") is u and u.to(device=L.device("cpu")) is u
        with pytest.raises(TypeError):
            u.to("cpu")  # device is keyword-only
        with pytest.raises(AssertionError, match="META device module is not loaded"):
            u.to(device="meta")
        with pytest.raises(NotImplementedError, match="no data"):
            L.UntypedStorage(2, device="meta").to(device="cpu")
        t = L.FloatStorage([1.0, 2.0])
        assert t.to(device="cpu").tolist() == [1.0, 2.0] and t.get_device() is None and t.resizable()
        assert t.filename is None and t.is_hpu is False


def test_pin_memory_needs_an_accelerator(no_typed_storage_warning):
    for L in (tl, torch):
        with pytest.raises(RuntimeError, match="accelerator"):
            L.UntypedStorage(2).pin_memory()
        with pytest.raises(RuntimeError, match="accelerator"):
            L.FloatStorage(2).pin_memory()


@pytest.mark.parametrize("dtype", ["int16", "int32", "float64", "uint8"])
def test_byteswap_like_torch(dtype):
    ours, theirs = tl.UntypedStorage(list(range(16))), torch.UntypedStorage(list(range(16)))
    assert ours.byteswap(getattr(tl, dtype)) is None
    theirs.byteswap(getattr(torch, dtype))
    assert list(ours) == list(theirs)


def test_storage_public_names_match_torch():
    """The public names PyTorch's storages have that torchlite's lack: only those of dtypes and
    devices torchlite does not have, and file mapping (see docs/storage.md)."""
    absent = {"complex_double", "complex_float", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
              "cuda", "hpu", "mps", "from_file"}
    for ours, theirs in ((tl.UntypedStorage, torch.UntypedStorage), (tl.TypedStorage, torch.TypedStorage)):
        missing = {n for n in set(dir(theirs)) - set(dir(ours)) if not n.startswith("_")}
        assert missing <= absent, sorted(missing - absent)
        extra = {n for n in set(dir(ours)) - set(dir(theirs)) if not n.startswith("_")}
        assert extra == set()
