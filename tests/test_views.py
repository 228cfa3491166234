"""View and shape ops against PyTorch: the resulting sizes, strides, storage offset, contiguity and values, that views
share memory (data_ptr, writes through the view, the shared version counter), the errors, and the meta device."""
import pytest
import torch

import torchlite as tl
from conftest import (LAYOUTS, assert_geometry, assert_same, error_types_like, from_torch, layout, make,
                      storage_base, torch_result)


class _TorchNamespace:
    """torch under torchlite's names: torch has no public `slice`/`alias` functions, only the aten ops."""

    def __getattr__(self, name):
        return getattr(torch, name)

    @staticmethod
    def slice(t, dim=0, start=None, end=None, step=1):
        return torch.ops.aten.slice.Tensor(t, dim, start, end, step)

    @staticmethod
    def alias(t):
        return torch.ops.aten.alias.default(t)


TORCH = _TorchNamespace()


class _TorchliteNamespace:
    """torchlite with the same two names, from torchlite._C._internal (no public binding, as in PyTorch)."""

    def __getattr__(self, name):
        return getattr(tl, name)

    slice = staticmethod(tl._C._internal.slice)
    alias = staticmethod(tl._C._internal.alias)


TL = _TorchliteNamespace()


def view_like_torch(fn, a, x, shares=True):
    """Applies fn(namespace, tensor) to torch base `a` and torchlite base `x` (equal values and geometry). Either both
    raise compatible errors (returns None) or the results agree in geometry and values, and (for a view) the
    torchlite result lies in the storage of `x`. Returns (torchlite result, torch result)."""
    expected, err = torch_result(lambda: fn(TORCH, a))
    if err is not None:
        with pytest.raises(error_types_like(err)):
            fn(TL, x)
        return None
    got = fn(TL, x)
    assert isinstance(got, tl.Tensor)
    assert_geometry(got, expected)
    if expected.device.type != "meta":
        assert_same(got, expected, atol=0, rtol=0)
        if shares and expected.numel() > 0:
            assert storage_base(expected) == storage_base(a)  # the case list is right about what is a view
            assert storage_base(got) == storage_base(x), "the result does not share the input's storage"
    return got, expected


def check_write_through(got, expected, a, x):
    """Writes through the views (fill_, an in-place op, copy_); the bases change identically, and the views share the
    version counter of their base. Writes that torch refuses (in-place ops on overlapping expanded views) must
    fail in torchlite too."""
    if expected.numel() == 0:
        return
    v0 = x._version
    got.fill_(-7)
    expected.fill_(-7)
    assert_same(x, a, atol=0, rtol=0)
    assert got._version == x._version and x._version > v0
    for name, tl_write, torch_write in [
        ("mul_", lambda: got.mul_(3), lambda: expected.mul_(3)),
        ("copy_", lambda: got.copy_(tl.arange(got.numel(), dtype=got.dtype).reshape(got.shape)),
         lambda: expected.copy_(torch.arange(expected.numel(), dtype=expected.dtype).reshape(expected.shape))),
    ]:
        _, err = torch_result(torch_write)
        if err is not None:
            with pytest.raises(error_types_like(err)):
                tl_write()
        else:
            v = x._version
            tl_write()
            assert x._version > v and got._version == x._version, name
        assert_same(x, a, atol=0, rtol=0)


def base_pair(a):
    """torch tensor `a` and a torchlite tensor with its values and geometry (contiguous)."""
    a = a.contiguous()
    x = from_torch(a) if a.numel() > 0 else tl.empty(tuple(a.shape), dtype=getattr(tl, str(a.dtype).split(".")[-1]))
    assert_geometry(x, a)
    return a, x


def run_view_case(fn, a, shares=True, write=True):
    a, x = base_pair(a)
    pair = view_like_torch(fn, a, x, shares)
    if pair is not None and write and shares:
        check_write_through(pair[0], pair[1], a, x)
    return pair


# ---------------------------------------------------------------- view

VIEW_CASES = {
    "view(24)": lambda m, t: t.view(24),
    "view(-1)": lambda m, t: t.view(-1),
    "view(4,-1)": lambda m, t: t.view(4, -1),
    "view(-1,2,3)": lambda m, t: t.view(-1, 2, 3),
    "view((6,4))": lambda m, t: t.view((6, 4)),
    "view([3,8])": lambda m, t: t.view([3, 8]),
    "view(size=)": lambda m, t: t.view(size=(12, 2)),
    "view(1,24,1)": lambda m, t: t.view(1, 24, 1),
    "view(2,3,2,2)": lambda m, t: t.view(2, 3, 2, 2),
    "view(same)": lambda m, t: t.view(2, 3, 4),
    "view(shape)": lambda m, t: t.view(t.shape),
    "view(5,5)": lambda m, t: t.view(5, 5),
    "view(7)": lambda m, t: t.view(7),
    "view(-1,-1)": lambda m, t: t.view(-1, -1),
    "view(-2,12)": lambda m, t: t.view(-2, 12),
    "view(0,-1)": lambda m, t: t.view(0, -1),
    "view(())": lambda m, t: t.view(()),
    "transpose.view(-1)": lambda m, t: t.transpose(1, 2).view(-1),
    "transpose.view(2,2,2,3)": lambda m, t: t.transpose(1, 2).view(2, 2, 2, 3),
    "transpose.view(2,4,3)": lambda m, t: t.transpose(1, 2).view(2, 4, 3),
    "permute.view(3,2,2,2)": lambda m, t: t.transpose(0, 1).view(3, 2, 2, 2),
    "slice.view(-1)": lambda m, t: t[:, :, ::2].view(-1),
    "slice.view(2,3,1,2)": lambda m, t: t[:, :, ::2].view(2, 3, 1, 2),
    "slice.view(6,2)": lambda m, t: t[:, :, 1:3].view(6, 2),
    "row.view(4)": lambda m, t: t[1, 2].view(4),
    "expand.view(2,3,2,2)": lambda m, t: t[:, :1].expand(2, 3, 4).view(2, 3, 2, 2),
    "expand.view(-1)": lambda m, t: t[:, :1].expand(2, 3, 4).view(-1),
}


@pytest.mark.parametrize("case", list(VIEW_CASES))
def test_view(case):
    run_view_case(VIEW_CASES[case], make((2, 3, 4), "float32", 1))


@pytest.mark.parametrize("case", list(VIEW_CASES))
def test_view_meta(case):
    a = torch.empty(2, 3, 4, device="meta")
    view_like_torch(VIEW_CASES[case], a, tl.empty(2, 3, 4, device="meta"))


def test_view_error_messages():
    x = tl.ones(2, 3, 4)
    with pytest.raises(RuntimeError, match=r"\.reshape"):
        x.transpose(1, 2).view(-1)
    with pytest.raises(RuntimeError, match="24"):  # names the number of elements, like "is invalid for input of size 24"
        x.view(5, 5)
    with pytest.raises(RuntimeError, match="one dimension"):
        x.view(-1, -1)


@pytest.mark.parametrize("shape,new", [((0, 3), (-1,)), ((0, 3), (0, -1)), ((0, 3), (3, 0)), ((0, 3), (-1, 0)),
                                       ((), (1,)), ((), (-1,)), ((), ()), ((1,), ()), ((2,), ()), ((1, 1), (-1,))],
                         ids=repr)
def test_view_empty_and_zero_dim(shape, new):
    run_view_case(lambda m, t: t.view(new), make(shape, "float64", 2))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int16", "int64", "float16", "bfloat16", "float64"])
def test_view_dtypes(dtype):
    a = make((4, 6), dtype, 3)
    run_view_case(lambda m, t: t.view(3, 8), a, write=False)
    run_view_case(lambda m, t: t.t().view(6, 2, 2), a, write=False)


# ---------------------------------------------------------------- reshape

RESHAPE_CASES = {
    # (function, torch shares storage?) -- the sharing is also asserted against torch itself.
    "contig(4,6)": (lambda m, t: t.reshape(4, 6), True),
    "contig(-1)": (lambda m, t: m.reshape(t, (-1,)), True),
    "contig(shape=)": (lambda m, t: m.reshape(t, shape=[2, 12]), True),
    "contig(())_bad": (lambda m, t: t.reshape(()), True),
    "contig(5,-1)_bad": (lambda m, t: t.reshape(5, -1), True),
    "contig(-1,-1)_bad": (lambda m, t: t.reshape(-1, -1), True),
    "transposed(-1)": (lambda m, t: t.transpose(1, 2).reshape(-1), False),
    "transposed(2,4,3)": (lambda m, t: t.transpose(1, 2).reshape(2, 4, 3), True),
    "transposed(2,2,2,3)": (lambda m, t: t.transpose(1, 2).reshape(2, 2, 2, 3), True),
    "transposed(8,3)": (lambda m, t: t.transpose(1, 2).reshape(8, 3), False),
    "sliced(-1)": (lambda m, t: t[:, :, :2].reshape(-1), False),
    "step-sliced(-1)": (lambda m, t: t[:, :, ::2].reshape(-1), True),  # uniform stride 2: a view
    "sliced(2,3,1,2)": (lambda m, t: t[:, :, ::2].reshape(2, 3, 1, 2), True),
    "row(6,)": (lambda m, t: t[0, :, ::2].reshape(6), True),
    "expanded(-1)": (lambda m, t: t[:, :1].expand(2, 3, 4).reshape(-1), False),
    "expanded(2,3,2,2)": (lambda m, t: t[:, :1].expand(2, 3, 4).reshape(2, 3, 2, 2), True),
}


@pytest.mark.parametrize("case", list(RESHAPE_CASES))
def test_reshape(case):
    fn, torch_shares = RESHAPE_CASES[case]
    a = make((2, 3, 4), "float32", 4)
    x = from_torch(a)
    expected, err = torch_result(lambda: fn(TORCH, a))
    if err is not None:
        with pytest.raises(error_types_like(err)):
            fn(TL, x)
        return
    assert (storage_base(expected) == storage_base(a)) == torch_shares
    got = fn(TL, x)
    assert_geometry(got, expected)
    assert_same(got, expected, atol=0, rtol=0)
    if torch_shares:
        assert storage_base(got) == storage_base(x), "reshape copied where a view was possible"
        v = x._version
        got.fill_(5)
        expected.fill_(5)
        assert x._version > v
        assert_same(x, a)
    else:
        assert storage_base(got) != storage_base(x), "reshape returned a view where it must copy"
        got.fill_(5)
        assert_same(x, a)  # the base is untouched


def test_reshape_of_copy_is_contiguous_and_independent():
    x = tl.arange(12.0).reshape(3, 4)
    y = x.t().reshape(12)
    assert y.is_contiguous() and y.stride() == (1,)
    assert y.tolist() == torch.arange(12.0).reshape(3, 4).t().reshape(12).tolist()


def test_reshape_meta():
    for fn, _ in RESHAPE_CASES.values():
        view_like_torch(fn, torch.empty(2, 3, 4, device="meta"), tl.empty(2, 3, 4, device="meta"))


# ---------------------------------------------------------------- transpose, t, permute

TRANSPOSE_CASES = {
    "transpose(0,1)": lambda m, t: t.transpose(0, 1),
    "transpose(0,2)": lambda m, t: m.transpose(t, 0, 2),
    "transpose(-1,0)": lambda m, t: t.transpose(-1, 0),
    "transpose(1,1)": lambda m, t: t.transpose(1, 1),
    "transpose(dim0=,dim1=)": lambda m, t: m.transpose(t, dim0=2, dim1=1),
    "transpose(0,3)": lambda m, t: t.transpose(0, 3),
    "transpose(-4,0)": lambda m, t: t.transpose(-4, 0),
    "transpose twice": lambda m, t: t.transpose(0, 2).transpose(1, 2),
    "t() of 3-D": lambda m, t: t.t(),
    "t() of 2-D": lambda m, t: t[0].t(),
    "t() of 1-D": lambda m, t: m.t(t[0, 0]),
    "t() of 0-d": lambda m, t: t[0, 0, 0].t(),
    "t() of slice": lambda m, t: t[1, :, 1::2].t(),
    "permute(2,0,1)": lambda m, t: t.permute(2, 0, 1),
    "permute((2,0,1))": lambda m, t: t.permute((2, 0, 1)),
    "permute([1,2,0])": lambda m, t: m.permute(t, [1, 2, 0]),
    "permute(dims=)": lambda m, t: m.permute(t, dims=(0, 2, 1)),
    "permute(0,1,2)": lambda m, t: t.permute(0, 1, 2),
    "permute(-1,0,1)": lambda m, t: t.permute(-1, 0, 1),
    "permute(0,0,1)": lambda m, t: t.permute(0, 0, 1),
    "permute(0,-3,1)": lambda m, t: t.permute(0, -3, 1),
    "permute(0,1)": lambda m, t: t.permute(0, 1),
    "permute(0,1,2,3)": lambda m, t: t.permute(0, 1, 2, 3),
    "permute(0,1,3)": lambda m, t: t.permute(0, 1, 3),
    "permute of sliced": lambda m, t: t[:, 1:, ::3].permute(1, 2, 0),
    "permute of 0-d": lambda m, t: t[0, 0, 0].permute(()),
}


@pytest.mark.parametrize("case", list(TRANSPOSE_CASES))
def test_transpose_t_permute(case):
    run_view_case(TRANSPOSE_CASES[case], make((2, 3, 4), "float32", 5))


@pytest.mark.parametrize("case", list(TRANSPOSE_CASES))
def test_transpose_t_permute_meta(case):
    view_like_torch(TRANSPOSE_CASES[case], torch.empty(2, 3, 4, device="meta"), tl.empty(2, 3, 4, device="meta"))


def test_transpose_errors():
    x = tl.ones(2, 3, 4)
    with pytest.raises(IndexError):
        x.transpose(0, 3)
    with pytest.raises(RuntimeError, match="2"):  # "t() expects a tensor with <= 2 dimensions, but self is 3D"
        x.t()
    with pytest.raises(RuntimeError):
        x.permute(0, 0, 1)
    with pytest.raises(RuntimeError):
        x.permute(1, 0)
    with pytest.raises(IndexError):
        x.permute(0, 1, 5)


def test_transpose_zero_dim():
    for m, base in [(TORCH, torch.tensor(2.0)), (tl, tl.tensor(2.0))]:
        assert tuple(m.transpose(base, 0, -1).shape) == ()
        with pytest.raises(IndexError):
            m.transpose(base, 0, 1)


# ---------------------------------------------------------------- expand

EXPAND_CASES = {
    "(-1,4)": lambda m, t: t.expand(-1, 4),
    "((3,4))": lambda m, t: t.expand((3, 4)),
    "([3,4])": lambda m, t: t.expand([3, 4]),
    "(size=)": lambda m, t: t.expand(size=(3, 5)),
    "(2,-1,4)": lambda m, t: t.expand(2, -1, 4),
    "(2,3,5)": lambda m, t: t.expand(2, 3, 5),
    "(1,1,3,1)": lambda m, t: t.expand(1, 1, 3, 1),
    "(3,1)": lambda m, t: t.expand(3, 1),
    "(3,0)": lambda m, t: t.expand(3, 0),
    "(0,3,2)": lambda m, t: t.expand(0, 3, 2),
    "(-1,3,4)": lambda m, t: t.expand(-1, 3, 4),
    "(4,4)": lambda m, t: t.expand(4, 4),
    "(4,)": lambda m, t: t.expand(4),
    "(3,-2)": lambda m, t: t.expand(3, -2),
    "(6,4) of sliced": lambda m, t: t.expand(3, 4)[::2].expand(2, 2, 4),
    "twice": lambda m, t: t.expand(3, 4).unsqueeze(0).expand(2, 3, 4),
}


@pytest.mark.parametrize("case", list(EXPAND_CASES))
def test_expand(case):
    run_view_case(EXPAND_CASES[case], make((3, 1), "float32", 6))


@pytest.mark.parametrize("case", list(EXPAND_CASES))
def test_expand_meta(case):
    view_like_torch(EXPAND_CASES[case], torch.empty(3, 1, device="meta"), tl.empty(3, 1, device="meta"))


def test_expand_zero_dim_and_strides():
    run_view_case(lambda m, t: t.expand(2, 3), make((), "int64", 7))
    run_view_case(lambda m, t: t.expand(4, 3), make((3,), "int64", 8))
    e = tl.ones(3, 1).expand(3, 4)
    assert e.stride() == (1, 0)
    with pytest.raises(RuntimeError):
        tl.ones(3, 1).expand(4, 4)
    with pytest.raises(RuntimeError):
        tl.ones(3, 1).expand(4)


# ---------------------------------------------------------------- squeeze / unsqueeze

SQUEEZE_CASES = {
    "squeeze()": lambda m, t: t.squeeze(),
    "squeeze(1)": lambda m, t: t.squeeze(1),
    "squeeze(0) no-op": lambda m, t: t.squeeze(0),
    "squeeze(-2)": lambda m, t: m.squeeze(t, -2),
    "squeeze(dim=3)": lambda m, t: m.squeeze(t, dim=3),
    "squeeze((1,3))": lambda m, t: t.squeeze((1, 3)),
    "squeeze([1,-2])": lambda m, t: m.squeeze(t, [1, -2]),
    "squeeze((1,2))": lambda m, t: t.squeeze((1, 2)),
    "squeeze(())": lambda m, t: t.squeeze(()),
    "squeeze((1,1))": lambda m, t: t.squeeze((1, 1)),
    "squeeze(5)": lambda m, t: t.squeeze(5),
    "squeeze(-6)": lambda m, t: t.squeeze(-6),
    "squeeze((0,5))": lambda m, t: t.squeeze((0, 5)),
    "squeeze() of transposed": lambda m, t: t.transpose(0, 3).squeeze(),
    "squeeze() of sliced": lambda m, t: t[:, :, ::2].squeeze(),
    "unsqueeze(0)": lambda m, t: t.unsqueeze(0),
    "unsqueeze(2)": lambda m, t: m.unsqueeze(t, 2),
    "unsqueeze(5)": lambda m, t: t.unsqueeze(5),
    "unsqueeze(-1)": lambda m, t: t.unsqueeze(-1),
    "unsqueeze(-6)": lambda m, t: t.unsqueeze(-6),
    "unsqueeze(-3)": lambda m, t: m.unsqueeze(t, dim=-3),
    "unsqueeze(6)": lambda m, t: t.unsqueeze(6),
    "unsqueeze(-7)": lambda m, t: t.unsqueeze(-7),
    "unsqueeze of transposed": lambda m, t: t.transpose(0, 2).unsqueeze(1),
    "unsqueeze of sliced": lambda m, t: t[:, :, ::2, :, 1:].unsqueeze(3),
}


@pytest.mark.parametrize("case", list(SQUEEZE_CASES))
def test_squeeze_unsqueeze(case):
    run_view_case(SQUEEZE_CASES[case], make((2, 1, 3, 1, 4), "float32", 9))


@pytest.mark.parametrize("case", list(SQUEEZE_CASES))
def test_squeeze_unsqueeze_meta(case):
    view_like_torch(SQUEEZE_CASES[case], torch.empty(2, 1, 3, 1, 4, device="meta"),
                    tl.empty(2, 1, 3, 1, 4, device="meta"))


@pytest.mark.parametrize("fn", [lambda m, t: t.squeeze(), lambda m, t: t.squeeze(0), lambda m, t: t.squeeze(-1),
                                lambda m, t: t.squeeze(1), lambda m, t: t.unsqueeze(0), lambda m, t: t.unsqueeze(-1),
                                lambda m, t: t.unsqueeze(1), lambda m, t: t.unsqueeze(-2), lambda m, t: t.squeeze(()),
                                lambda m, t: t.squeeze((0,))])
def test_squeeze_unsqueeze_zero_dim(fn):
    run_view_case(fn, make((), "float32", 10))


def test_squeeze_all_ones():
    run_view_case(lambda m, t: t.squeeze(), make((1, 1, 1), "float64", 11))
    run_view_case(lambda m, t: t.squeeze(), make((1, 0, 1), "float64", 11))


# ---------------------------------------------------------------- select, indexing, slice

SELECT_CASES = {
    "select(0,1)": lambda m, t: t.select(0, 1),
    "select(1,-1)": lambda m, t: m.select(t, 1, -1),
    "select(dim=,index=)": lambda m, t: m.select(t, dim=1, index=2),
    "select(1,4)": lambda m, t: t.select(1, 4),
    "select(1,-5)": lambda m, t: t.select(1, -5),
    "select(2,0)": lambda m, t: t.select(2, 0),
    "select(-3,0)": lambda m, t: t.select(-3, 0),
    "select of 0-d": lambda m, t: t[0, 0].select(0, 0),
    "select of transposed": lambda m, t: t.t().select(0, 2),
    "[1]": lambda m, t: t[1],
    "[-1]": lambda m, t: t[-1],
    "[3]": lambda m, t: t[3],
    "[-4]": lambda m, t: t[-4],
    "[:, 1]": lambda m, t: t[:, 1],
    "[1:]": lambda m, t: t[1:],
    "[1:2]": lambda m, t: t[1:2],
    "[::2, 1::2]": lambda m, t: t[::2, 1::2],
    "[-3:-1, ::3]": lambda m, t: t[-3:-1, ::3],
    "[5:10]": lambda m, t: t[5:10],
    "[2:1]": lambda m, t: t[2:1],
    "[-100:2]": lambda m, t: t[-100:2],
    "[..., 1]": lambda m, t: t[..., 1],
    "[1, ...]": lambda m, t: t[1, ...],
    "[...]": lambda m, t: t[...],
    "[:]": lambda m, t: t[:],
    "[None, 1]": lambda m, t: t[None, 1],
    "[:, None]": lambda m, t: t[:, None],
    "[None, ..., None]": lambda m, t: t[None, ..., None],
    "[1, 2]": lambda m, t: t[1, 2],
    "[(1, 2)]": lambda m, t: t[(1, 2)],
    "[1][2]": lambda m, t: t[1][2],
    "[1:, 2]": lambda m, t: t[1:, 2],
    "[::-1]": lambda m, t: t[::-1],
    "[::0]": lambda m, t: t[::0],
    "[1, 2, 3]": lambda m, t: t[1, 2, 3],
    "[..., ...]": lambda m, t: t[..., ...],
    "[1.5]": lambda m, t: t[1.5],
    "['a']": lambda m, t: t["a"],
    "transposed[1:, ::2]": lambda m, t: t.t()[1:, ::2],
    "slice(1,1,3)": lambda m, t: m.slice(t, 1, 1, 3),
    "slice(1,None,None,2)": lambda m, t: m.slice(t, 1, None, None, 2),
    "slice(1,-3,100,2)": lambda m, t: m.slice(t, 1, -3, 100, 2),
    "slice(0)": lambda m, t: m.slice(t),
    "slice(dim=1,start=-2)": lambda m, t: m.slice(t, dim=1, start=-2),
    "slice(0,end=-1)": lambda m, t: m.slice(t, 0, end=-1),
    "slice(1,3,1)": lambda m, t: m.slice(t, 1, 3, 1),
    "slice(0,-100,100)": lambda m, t: m.slice(t, 0, -100, 100),
    "slice(1,0,4,0)": lambda m, t: m.slice(t, 1, 0, 4, 0),
    "slice(1,3,1,-1)": lambda m, t: m.slice(t, 1, 3, 1, -1),
    "slice(2,0,1)": lambda m, t: m.slice(t, 2, 0, 1),
}


# A step of 0 or below: torch's aten.slice raises RuntimeError, its indexing (x[::0], x[::-1]) ValueError; torchlite's
# public slice() may raise either.
BAD_STEP_CASES = ["slice(1,0,4,0)", "slice(1,3,1,-1)"]


@pytest.mark.parametrize("case", list(SELECT_CASES))
def test_select_index_slice(case):
    if case in BAD_STEP_CASES:
        with pytest.raises((RuntimeError, ValueError)):
            SELECT_CASES[case](TL, tl.ones(3, 4))
        return
    run_view_case(SELECT_CASES[case], make((3, 4), "float32", 12))


@pytest.mark.parametrize("case", list(SELECT_CASES))
def test_select_index_slice_meta(case):
    if case in BAD_STEP_CASES:
        with pytest.raises((RuntimeError, ValueError)):
            SELECT_CASES[case](TL, tl.empty(3, 4, device="meta"))
        return
    view_like_torch(SELECT_CASES[case], torch.empty(3, 4, device="meta"), tl.empty(3, 4, device="meta"))


def test_slice_is_internal():
    a = make((3, 4), "float32", 13)
    x = from_torch(a)
    assert not hasattr(x, "slice") and not hasattr(a, "slice")  # aten::slice has no Python binding in PyTorch
    got = tl._C._internal.slice(x, 1, 1, 4, 2)
    expected = torch.ops.aten.slice.Tensor(a, 1, 1, 4, 2)
    assert_geometry(got, expected)
    assert_same(got, expected)
    assert storage_base(got) == storage_base(x)


def test_getitem_errors():
    x = tl.ones(3, 4)
    with pytest.raises(IndexError):
        x[3]
    with pytest.raises(IndexError):
        x[1, 2, 3]
    with pytest.raises(ValueError):
        x[::-1]
    with pytest.raises(IndexError):
        tl.tensor(1.0)[0]
    with pytest.raises(IndexError):
        x.select(1, 4)


def test_chained_views_offset():
    """Offsets accumulate through chains of views on views."""
    a = make((4, 5, 6), "float64", 14)
    fn = lambda m, t: t[1:][:, 2:][..., 3:].transpose(0, 2)[1].select(1, 1)  # noqa: E731
    run_view_case(fn, a)


# ---------------------------------------------------------------- as_strided

AS_STRIDED_CASES = {
    "(2,2),(1,2)": lambda m, t: t.as_strided((2, 2), (1, 2)),
    "(2,2),(1,2),3": lambda m, t: m.as_strided(t, (2, 2), (1, 2), 3),
    "offset kw": lambda m, t: m.as_strided(t, size=[3], stride=[4], storage_offset=1),
    "on a view keeps its offset": lambda m, t: t[1:].as_strided((2, 2), (1, 2)),
    "on a view, explicit 0": lambda m, t: t[1:].as_strided((2, 2), (1, 2), 0),
    "stride 0": lambda m, t: m.as_strided(t, (3,), (0,), 2),
    "overlapping": lambda m, t: t.as_strided((3, 3), (1, 1)),
    "0-d": lambda m, t: t.as_strided((), (), 5),
    "empty": lambda m, t: t.as_strided((0, 3), (3, 1)),
    "last element": lambda m, t: t.as_strided((1,), (1,), 11),
    "out of bounds offset": lambda m, t: t.as_strided((2, 2), (1, 2), 11),
    "out of bounds stride": lambda m, t: t.as_strided((2,), (12,)),
    "length mismatch": lambda m, t: t.as_strided((2, 2), (1, 2, 3)),
    "negative stride": lambda m, t: t.as_strided((2, 2), (-1, 2)),
    "negative size": lambda m, t: t.as_strided((2, -2), (1, 2)),
    "negative offset": lambda m, t: t.as_strided((2,), (1,), -1),
}


@pytest.mark.parametrize("case", list(AS_STRIDED_CASES))
def test_as_strided(case):
    # Writes through "overlapping" (strides (1, 1)) are order-dependent in torch itself (its overlap check only
    # catches stride-0 dims), so that case is not written to; "stride 0" must refuse mul_/copy_ like torch.
    run_view_case(AS_STRIDED_CASES[case], make((3, 4), "float32", 15), write=case != "overlapping")


def test_as_strided_meta():
    """Intentional difference: torch's meta as_strided does not check the storage bounds; torchlite's meta kernels
    raise the CPU errors (docs/architecture.md), so the errors are taken from torch on CPU."""
    for fn in AS_STRIDED_CASES.values():
        _, cpu_err = torch_result(lambda: fn(TORCH, torch.empty(3, 4)))
        if cpu_err is not None:
            with pytest.raises(error_types_like(cpu_err)):
                fn(TL, tl.empty(3, 4, device="meta"))
        else:
            view_like_torch(fn, torch.empty(3, 4, device="meta"), tl.empty(3, 4, device="meta"))


# ---------------------------------------------------------------- layouts of the input

@pytest.mark.parametrize("kind", LAYOUTS)
@pytest.mark.parametrize("fn", [lambda m, t: t.t(), lambda m, t: t.unsqueeze(1), lambda m, t: t[1:, ::2],
                                lambda m, t: t.select(1, 2), lambda m, t: t.reshape(-1), lambda m, t: t.view(2, 2, 5),
                                lambda m, t: t.permute(1, 0)[None], lambda m, t: m.squeeze(t[:1]),
                                lambda m, t: t.as_strided((2, 2), (1, 1), 1), lambda m, t: m.alias(t),
                                lambda m, t: t.detach(), lambda m, t: t.contiguous()],
                         ids=["t", "unsqueeze", "slice", "select", "reshape", "view", "permute", "squeeze",
                              "as_strided", "alias", "detach", "contiguous"])
def test_views_of_layouts(kind, fn):
    a = make((4, 5), "float32", 16)
    ta, xa = layout(a, kind)
    pair = view_like_torch(fn, ta, xa, shares=False)
    if pair is not None and pair[1].numel() > 0:
        shares = storage_base(pair[1]) == storage_base(ta)
        assert (storage_base(pair[0]) == storage_base(xa)) == shares


# ---------------------------------------------------------------- contiguous, clone, detach, alias

def test_contiguous():
    x = tl.arange(12.0).reshape(3, 4)
    assert x.contiguous() is x
    for v, ref in [(x.t(), torch.arange(12.0).reshape(3, 4).t()), (x[:, ::2], torch.arange(12.0).reshape(3, 4)[:, ::2]),
                   (x[:1].expand(3, 4), torch.arange(12.0).reshape(3, 4)[:1].expand(3, 4))]:
        c = v.contiguous()
        assert c.is_contiguous()
        assert_geometry(c, ref.contiguous())
        assert_same(c, ref.contiguous())
        assert storage_base(c) != storage_base(x)
        c.fill_(0)
        assert x.tolist() == torch.arange(12.0).reshape(3, 4).tolist()
    m = tl.empty(3, 4, device="meta").t().contiguous()
    assert m.is_contiguous() and m.stride() == (3, 1) and m.device.type == "meta"


def test_clone():
    a = make((3, 4), "float64", 17)
    x = from_torch(a)
    c = x.clone()
    assert_same(c, a)
    assert storage_base(c) != storage_base(x)
    c.fill_(1)
    assert_same(x, a)
    assert tl.clone(x)._version == 0
    for dtype in ["bool", "int8", "bfloat16"]:
        b = make((2, 3), dtype, 18)
        assert_same(tl.clone(from_torch(b)), b.clone())
    m = tl.clone(tl.empty(2, 3, device="meta", dtype=tl.int32))
    assert m.device.type == "meta" and m.shape == (2, 3) and m.dtype == tl.int32


@pytest.mark.parametrize("fn", [lambda t: t.t(), lambda t: t[:, ::2], lambda t: t[:, :2].t(),
                                lambda t: t[:1].expand(3, 4), lambda t: t.unsqueeze(2).expand(3, 4, 2).permute(2, 0, 1),
                                lambda t: t.view(1, 12).t(), lambda t: t[1:, 1:]],
                         ids=["t", "sliced", "sliced_t", "expanded", "expanded_permuted", "size1_t", "offset"])
def test_clone_strides_like_torch(fn):
    """PyTorch's clone uses memory_format=preserve_format: a permuted dense input keeps its strides
    (x.t().clone().stride() == (1, 4)); a non-dense one gets dense strides in the input's dimension order.
    NOTE for implementers: with that clone, `contiguous()` must not be `clone(self)` (it would stay transposed)."""
    a = make((3, 4), "float32", 19)
    got = fn(from_torch(a)).clone()
    want = fn(a).clone()
    assert_geometry(got, want)
    assert_same(got, want)


def test_detach():
    x = tl.ones(2, 3, requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and x.requires_grad
    assert storage_base(d) == storage_base(x) and d.shape == x.shape and d.stride() == x.stride()
    v = x._version
    d.fill_(4)  # writes through to x (shared data, shared version counter)
    assert x.detach().tolist() == [[4.0] * 3] * 2
    assert d._version == x._version == v + 1
    t = tl.arange(6.0).reshape(2, 3).t()
    assert_geometry(t.detach(), torch.arange(6.0).reshape(2, 3).t().detach())
    td = tl.detach(t)
    assert storage_base(td) == storage_base(t)


def test_alias():
    a = make((3, 4), "float32", 20)
    x = from_torch(a)[1:, ::2]
    y = tl._C._internal.alias(x)
    assert y is not x
    assert_geometry(y, torch.ops.aten.alias.default(a[1:, ::2]))
    assert storage_base(y) == storage_base(x)
    y.add_(1)
    assert x._version == y._version == 1
    assert_same(x, a[1:, ::2] + 1)
    w = tl.ones(2, requires_grad=True)
    assert tl._C._internal.alias(w).requires_grad == torch.ops.aten.alias.default(torch.ones(2, requires_grad=True)).requires_grad


# ---------------------------------------------------------------- sharing: data_ptr and the version counter

def test_data_ptr_of_views():
    x = tl.arange(24.0).reshape(2, 3, 4)
    es = x.element_size()
    assert es == 4
    assert x[1].data_ptr() == x.data_ptr() + 12 * es
    assert x[1, 2].data_ptr() == x.data_ptr() + 20 * es
    assert x[:, 1:, 2:].data_ptr() == x.data_ptr() + 6 * es
    assert x.transpose(0, 2).data_ptr() == x.data_ptr()
    assert x.view(6, 4).data_ptr() == x.data_ptr()
    assert x.reshape(-1).data_ptr() == x.data_ptr()
    assert x.as_strided((2,), (1,), 7).data_ptr() == x.data_ptr() + 7 * es
    assert x.clone().data_ptr() != x.data_ptr()


def test_version_counter_is_shared():
    x = tl.zeros(3, 4)
    x0 = x._version  # 0 in torch; test_factories checks that separately
    views = [x.t(), x[1], x.view(12), x.unsqueeze(0), x[:, None, 1:], tl._C._internal.alias(x), x.detach(), x.expand(2, 3, 4),
             x.as_strided((2,), (5,), 1), x.reshape(2, 6), tl._C._internal.slice(x, 1, 1, 3), x.select(1, 0), x.permute(1, 0),
             x.squeeze(), x.transpose(0, 1)]
    assert all(v._version == x0 for v in views)
    x.add_(1)
    assert x._version == x0 + 1 and all(v._version == x0 + 1 for v in views)
    views[0].mul_(2)
    assert x._version == x0 + 2 and all(v._version == x0 + 2 for v in views)
    views[2].copy_(tl.arange(12.0))
    assert x._version == x0 + 3 and all(v._version == x0 + 3 for v in views)
    assert x.view(12).tolist() == list(range(12))
    views[3].fill_(5)
    assert x._version == x0 + 4
    assert x.clone()._version == 0  # a copy has its own counter
    c = x.t().contiguous()
    assert c._version == 0
    x.zero_()
    assert c._version == 0 and x._version == x0 + 5


@pytest.mark.parametrize("write", ["fill_", "zero_", "add_", "copy_", "mul_scalar", "relu_", "neg_"])
def test_write_through_view_changes_base(write):
    """In-place ops on a strided view (a transposed slice) write exactly the viewed elements of the base."""
    a = make((4, 6), "float32", 21)
    x = from_torch(a)
    tv, xv = a.t()[1::2, 1:3], x.t()[1::2, 1:3]
    src = make((3, 2), "float32", 22)
    ops = {
        "fill_": lambda v, mod, s: v.fill_(2.5),
        "zero_": lambda v, mod, s: v.zero_(),
        "add_": lambda v, mod, s: v.add_(s),
        "copy_": lambda v, mod, s: v.copy_(s),
        "mul_scalar": lambda v, mod, s: v.mul_(-3),
        "relu_": lambda v, mod, s: v.relu_(),
        "neg_": lambda v, mod, s: v.neg_(),
    }
    r = ops[write](xv, tl, from_torch(src))
    ops[write](tv, torch, src)
    assert r is xv
    assert_same(x, a, atol=0, rtol=0)
    assert x._version == 1


def test_inplace_on_expanded_view_like_torch():
    """torch refuses in-place ops (other than fill_/zero_) on views whose elements overlap in memory."""
    for name in ["add_", "mul_", "copy_", "fill_", "zero_"]:
        a = torch.ones(3, 1)
        x = tl.ones(3, 1)
        ta, xa = a.expand(3, 4), x.expand(3, 4)
        args = {"add_": (1,), "mul_": (2,), "copy_": None, "fill_": (3,), "zero_": ()}[name]
        if name == "copy_":
            t_call = lambda: ta.copy_(torch.arange(12.0).view(3, 4))  # noqa: E731
            x_call = lambda: xa.copy_(tl.arange(12.0).view(3, 4))  # noqa: E731
        else:
            t_call = lambda: getattr(ta, name)(*args)  # noqa: E731
            x_call = lambda: getattr(xa, name)(*args)  # noqa: E731
        _, err = torch_result(t_call)
        if err is not None:
            with pytest.raises(error_types_like(err)):
                x_call()
        else:
            x_call()
        assert_same(x, a)
