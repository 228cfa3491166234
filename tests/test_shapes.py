"""Shape ops of issue 9 against PyTorch where the generated suites cannot look: which results are views
(and of what), objects returned as they are, in-place view ops under autograd, the Python-level
front ends (meshgrid, atleast_*, broadcast_tensors/broadcast_shapes with varargs and lists), H/mH,
and the errors."""
import warnings

import pytest
import torch

import torchlite as tl
from conftest import assert_geometry, assert_same, error_types_like, from_torch, storage_base, torch_result


def pair(shape=(2, 3, 4), dtype=torch.float32):
    a = torch.arange(int(torch.tensor(shape).prod()), dtype=dtype).reshape(shape).clone()
    return a, from_torch(a)


def results(obj):
    return list(obj) if isinstance(obj, (list, tuple)) else [obj]


# Each case: fn(lib, x) on x = arange(24).reshape(2, 3, 4) (or its transpose, `t`).
VIEW_CASES = {
    "flatten": lambda L, x: x.flatten(),
    "flatten_mid": lambda L, x: L.flatten(x, 1, 2),
    "flatten_t_viewable": lambda L, x: x.transpose(0, 1).flatten(2),
    "unflatten": lambda L, x: x.unflatten(-1, (2, -1)),
    "ravel": lambda L, x: x.ravel(),
    "ravel_t": lambda L, x: L.ravel(x.transpose(0, 1)),
    "movedim": lambda L, x: L.movedim(x, (0, 2), (1, 0)),
    "moveaxis": lambda L, x: x.moveaxis(-1, 0),
    "swapaxes": lambda L, x: x.swapaxes(0, 2),
    "swapdims": lambda L, x: L.swapdims(x, 1, 2),
    "adjoint": lambda L, x: x.adjoint(),
    "mH": lambda L, x: x.mH,
    "H": lambda L, x: x[0].H,
    "broadcast_to": lambda L, x: x[:, :1].broadcast_to((5, 2, 3, 4)),
    "broadcast_tensors": lambda L, x: L.broadcast_tensors(x, x[:1, :, :1]),
    "hsplit": lambda L, x: x.hsplit(3),
    "vsplit": lambda L, x: L.vsplit(x, [1]),
    "dsplit": lambda L, x: L.dsplit(x, 2),
    "atleast_3d": lambda L, x: L.atleast_3d(x[0, 0], x[0], x[0, 0, 0]),
    "meshgrid": lambda L, x: L.meshgrid(x[0, 0], x[1, 1], indexing="xy"),
    "unfold": lambda L, x: x.unfold(2, 2, 1),
    "repeat_interleave_int": lambda L, x: x.repeat_interleave(2, dim=1),
    "repeat_interleave_one": lambda L, x: x.repeat_interleave(1, dim=1),
    "rot90": lambda L, x: x.rot90(1, (0, 2)),
    "roll": lambda L, x: x.roll(1),
    "tile": lambda L, x: x.tile((2,)),
}


# reshape (and so flatten) of a layout that needs a copy returns the copy reshaped, not a view of it
# (_unsafe_view, UnsafeViewBackward0), as PyTorch.
VIEW_CASES["flatten_t"] = lambda L, x: x.transpose(0, 2).flatten()
VIEW_GAPS: dict = {}


@pytest.mark.parametrize("case", [pytest.param(c, marks=[pytest.mark.xfail(reason=VIEW_GAPS[c], strict=True)]
                                               if c in VIEW_GAPS else []) for c in sorted(VIEW_CASES)])
def test_views_like_torch(case):
    """The same geometry and values as PyTorch; views where PyTorch returns views (of the input's storage)."""
    a, x = pair()
    expected, got = results(VIEW_CASES[case](torch, a)), results(VIEW_CASES[case](tl, x))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert_geometry(g, e)
        assert_same(g, e)
        assert g._is_view() == e._is_view(), case
        if e._is_view() and e.untyped_storage().data_ptr() == a.untyped_storage().data_ptr():
            assert storage_base(g) == storage_base(x), case


@pytest.mark.parametrize("fn", [
    lambda L, x: x.flatten(1, 1), lambda L, x: L.atleast_1d(x), lambda L, x: L.atleast_2d(x),
    lambda L, x: L.atleast_3d(x), lambda L, x: L.broadcast_tensors(x, x[0])[0],
])
def test_returns_input_itself_like_torch(fn):
    a, x = pair()
    assert (fn(torch, a) is a) == (fn(tl, x) is x)


def test_inplace_view_ops_change_geometry_and_version():
    for op in [lambda y: y.squeeze_(), lambda y: y.squeeze_(1), lambda y: y.squeeze_((0, 1)),
               lambda y: y.unsqueeze_(-1), lambda y: y.transpose_(0, 2), lambda y: y.swapaxes_(0, 1),
               lambda y: y.swapdims_(2, 1)]:
        a, x = torch.zeros(1, 3, 1).add(torch.arange(3.0).view(1, 3, 1)), tl.zeros(1, 3, 1)
        x.copy_(from_torch(a))
        va, vx = a._version, x._version
        assert op(a) is a and op(x) is x
        assert_geometry(x, a)
        assert_same(x, a)
        assert x._version - vx == a._version - va


def test_inplace_view_ops_autograd_like_torch():
    """Recorded as views (TBackward1 over the old history), the base keeps its history, gradients flow."""
    def run(L):
        leaf = L.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=L.float64, requires_grad=True)
        base = leaf * 1
        v = base[0:1]
        v.t_()
        names = (type(v.grad_fn).__name__, type(base.grad_fn).__name__, v._is_view())
        (v * L.tensor([[1.0], [2.0], [3.0]], dtype=L.float64)).sum().backward()
        y = leaf * 1
        y.unsqueeze_(0).squeeze_(0).transpose_(0, 1)
        (y * y).sum().backward()
        return names, leaf.grad
    (tn, tg), (ln, lg) = run(torch), run(tl)
    assert tn == ln
    assert_same(lg, tg)


def test_inplace_view_op_on_leaf_and_multi_output_view_refused():
    for L in (torch, tl):
        leaf = L.ones(2, 3, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable"):
            leaf.t_()
        piece = (leaf * 1).split(1)[0]
        with pytest.raises(RuntimeError, match="multiple views"):
            piece.squeeze_()
        with L.no_grad():
            leaf.t_()
        assert tuple(leaf.shape) == (3, 2)


def test_inplace_view_then_write_goes_through_copyslices():
    def run(L):
        leaf = L.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=L.float64, requires_grad=True)
        base = leaf * 1
        v = base[0:1]
        v.t_()
        v.mul_(L.tensor([[1.0], [2.0], [3.0]], dtype=L.float64))
        base.sum().backward()
        return leaf.grad, type(base.grad_fn).__name__
    (tg, tname), (lg, lname) = run(torch), run(tl)
    assert tname == lname
    assert_same(lg, tg)


@pytest.mark.parametrize("name", ["atleast_1d", "atleast_2d", "atleast_3d"])
def test_atleast_forms(name):
    t_args = [torch.tensor(1.0), torch.arange(3.0), torch.ones(2, 3)]
    l_args = [from_torch(t) for t in t_args]
    tf, lf = getattr(torch, name), getattr(tl, name)
    for call in [lambda f, a: f(a[0]), lambda f, a: f(*a), lambda f, a: f(a), lambda f, a: f(tuple(a)),
                 lambda f, a: f([a[1]]), lambda f, a: f()]:
        expected, got = call(tf, t_args), call(lf, l_args)
        assert type(got) is (tl.Tensor if isinstance(expected, torch.Tensor) else tuple)
        for g, e in zip(results(got), results(expected)):
            assert_geometry(g, e)
            assert_same(g, e)


def test_meshgrid_forms():
    a, b, c = torch.arange(3.0), torch.arange(4.0), torch.tensor(7.0)
    la, lb, lc = from_torch(a), from_torch(b), from_torch(c)
    for indexing in (None, "ij", "xy"):
        kw = {} if indexing is None else {"indexing": indexing}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = [torch.meshgrid(a, b, c, **kw), torch.meshgrid([a, b], **kw), torch.meshgrid((c, a), **kw)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a missing indexing= warns once: tests/test_issue9_gaps.py
            got = [tl.meshgrid(la, lb, lc, **kw), tl.meshgrid([la, lb], **kw), tl.meshgrid((lc, la), **kw)]
        for g, e in zip(got, expected):
            assert type(g) is tuple and len(g) == len(e)
            for gi, ei in zip(g, e):
                assert_geometry(gi, ei)
                assert_same(gi, ei)


@pytest.mark.parametrize("shapes", [((2,), (3, 1), (1, 1, 1)), (2, (3, 1)), ((0,), (1,)), (), ((),), ((5, 3),),
                                    ([2, 1], [3]), ((2,), (3,)), ((0,), (2,)), (-1,), ((True,),), ("ab",),
                                    (None, (2, 1))])
def test_broadcast_shapes_like_torch(shapes):
    expected, err = torch_result(lambda: torch.broadcast_shapes(*shapes))
    if err is not None:
        with pytest.raises(error_types_like(err)):
            tl.broadcast_shapes(*shapes)
        return
    got = tl.broadcast_shapes(*shapes)
    assert isinstance(got, tl.Size) and tuple(got) == tuple(expected)


def test_broadcast_shapes_rejects_non_shapes_like_torch():
    for bad in (torch.tensor(3), 2.5):
        with pytest.raises(RuntimeError):
            torch.broadcast_shapes(bad, (1,))
        with pytest.raises(RuntimeError, match="Input shapes should be"):
            tl.broadcast_shapes(bad if not isinstance(bad, torch.Tensor) else tl.tensor(3), (1,))


def test_broadcast_tensors_forms():
    a, b = torch.ones(2, 1), torch.arange(3.0)
    la, lb = from_torch(a), from_torch(b)
    assert tl.broadcast_tensors() == () == torch.broadcast_tensors()
    for g, e in zip(tl.broadcast_tensors(la, lb), torch.broadcast_tensors(a, b)):
        assert_geometry(g, e)
        assert_same(g, e)
    for lib, args in ((torch, [a, b]), (tl, [la, lb])):  # one list is a TypeError, as in PyTorch
        with pytest.raises(TypeError):
            lib.broadcast_tensors(args)
    with pytest.raises(RuntimeError, match="must match"):
        tl.broadcast_tensors(la, tl.ones(3, 2))


@pytest.mark.parametrize("nd", [0, 1, 2, 3])
@pytest.mark.parametrize("attr", ["T", "mT", "H", "mH"])
def test_matrix_transpose_properties(attr, nd):
    a = torch.arange(float(2 ** nd)).reshape([2] * nd)
    x = from_torch(a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, err = torch_result(lambda: getattr(a, attr))
        if err is not None:
            with pytest.raises(type(err), match=str(err).split(".")[0]):
                getattr(x, attr)
            return
        got = getattr(x, attr)
    assert_geometry(got, expected)
    assert_same(got, expected)
    assert (got is x) == (expected is a)


ERROR_CASES = {
    "flatten_order": lambda L, x: x.flatten(2, 1),
    "flatten_range": lambda L, x: x.flatten(0, 3),
    "unflatten_empty": lambda L, x: x.unflatten(1, ()),
    "unflatten_product": lambda L, x: x.unflatten(1, (2, 2)),
    "unflatten_0d": lambda L, x: x[0, 0, 0].unflatten(0, (1,)),
    "movedim_len": lambda L, x: x.movedim((0, 1), (2,)),
    "movedim_repeat_src": lambda L, x: x.movedim((0, 0), (1, 2)),
    "movedim_repeat_dst": lambda L, x: x.movedim((0, 1), (2, 2)),
    "movedim_range": lambda L, x: x.movedim(3, 0),
    "adjoint_1d": lambda L, x: x[0, 0].adjoint(),
    "broadcast_to": lambda L, x: x.broadcast_to((3, 4)),
    "hsplit_0d": lambda L, x: L.hsplit(x[0, 0, 0], 1),
    "hsplit_indivisible": lambda L, x: x.hsplit(2),
    "hsplit_zero": lambda L, x: x.hsplit(0),
    "vsplit_1d": lambda L, x: L.vsplit(x[0, 0], 2),
    "dsplit_2d": lambda L, x: L.dsplit(x[0], [1]),
    "hstack_empty": lambda L, x: L.hstack([]),
    "column_stack_sizes": lambda L, x: L.column_stack([x[0, 0], x[0, :, 0]]),
    "meshgrid_empty": lambda L, x: L.meshgrid([]),
    "meshgrid_2d": lambda L, x: L.meshgrid(x[0], indexing="ij"),
    "meshgrid_dtypes": lambda L, x: L.meshgrid(x[0, 0], x[0, 0].long(), indexing="ij"),
    "meshgrid_indexing": lambda L, x: L.meshgrid(x[0, 0], indexing="yx"),
    "repeat_few": lambda L, x: x.repeat(2, 1),
    "repeat_negative": lambda L, x: x.repeat(1, -1, 1),
    "tile_negative": lambda L, x: x.tile((-2,)),
    "ri_negative": lambda L, x: x.repeat_interleave(-1),
    "ri_negative_tensor": lambda L, x: x.repeat_interleave(L.tensor([1, -1]), dim=0),
    "ri_len": lambda L, x: x.repeat_interleave(L.tensor([1, 2, 3]), dim=0),
    "ri_2d": lambda L, x: x.repeat_interleave(L.tensor([[1, 2]]), dim=0),
    "ri_float": lambda L, x: x.repeat_interleave(L.tensor([1.0, 2.0]), dim=0),
    "ri_output_size": lambda L, x: x.repeat_interleave(2, dim=0, output_size=5),
    "ri_output_size_tensor": lambda L, x: L.repeat_interleave(L.tensor([1, 2]), output_size=4),
    "ri_0d_dim": lambda L, x: x[0, 0, 0].repeat_interleave(2, dim=0),
    "ri_one_0d": lambda L, x: L.repeat_interleave(L.tensor(2)),
    "ri_one_int16": lambda L, x: L.repeat_interleave(L.tensor([1, 2], dtype=L.int16)),
    "roll_no_shifts": lambda L, x: L.roll(x, []),
    "roll_align": lambda L, x: L.roll(x, [1, 2], [0]),
    "roll_0d_dim": lambda L, x: L.roll(x[0, 0, 0], 1, 0),
    "roll_range": lambda L, x: L.roll(x, 1, 3),
    "fliplr_1d": lambda L, x: L.fliplr(x[0, 0]),
    "flipud_0d": lambda L, x: L.flipud(x[0, 0, 0]),
    "rot90_three_dims": lambda L, x: L.rot90(x, 1, [0, 1, 2]),
    "rot90_1d": lambda L, x: L.rot90(x[0, 0]),
    "rot90_same": lambda L, x: L.rot90(x, 1, [0, -3]),
    "rot90_range": lambda L, x: L.rot90(x, 1, [0, 3]),
    "unfold_too_big": lambda L, x: x.unfold(1, 4, 1),
    "unfold_step": lambda L, x: x.unfold(1, 2, 0),
    "unfold_size": lambda L, x: x.unfold(1, -1, 1),
    "unfold_range": lambda L, x: x.unfold(3, 1, 1),
    "unfold_0d_big": lambda L, x: x[0, 0, 0].unfold(0, 2, 1),
    "squeeze_range": lambda L, x: x.clone().squeeze_(3),
    "t_3d": lambda L, x: x.clone().t_(),
    "transpose_range": lambda L, x: x.clone().transpose_(0, 3),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_errors_like_torch(case):
    a, x = pair()
    _, err = torch_result(lambda: ERROR_CASES[case](torch, a))
    assert err is not None, f"{case}: torch does not raise"
    with pytest.raises(error_types_like(err)):
        ERROR_CASES[case](tl, x)


def test_meta_shapes():
    x = tl.empty(2, 3, 4, device="meta")
    assert tuple(x.repeat(2, 1, 1, 3).shape) == (2, 2, 3, 12)
    assert tuple(tl.roll(x, 1, 0).shape) == (2, 3, 4)
    assert tuple(tl.rot90(x).shape) == (3, 2, 4)
    assert tuple(x.unfold(2, 2, 2).shape) == (2, 3, 2, 2)
    assert tuple(tl._C._internal.unfold_backward(x.unfold(2, 2, 2), [2, 3, 4], 2, 2, 2).shape) == (2, 3, 4)
    assert tuple(tl.hstack([x, x]).shape) == (2, 6, 4)
    assert tuple(tl.repeat_interleave(tl.empty(3, dtype=tl.int64, device="meta"), output_size=7).shape) == (7,)
    with pytest.raises(NotImplementedError):
        tl.repeat_interleave(tl.empty(3, dtype=tl.int64, device="meta"))


@pytest.mark.parametrize("shape,dim,size,step", [((7,), 0, 3, 2), ((5, 6), 1, 2, 3), ((4, 3), 0, 4, 1),
                                                 ((), 0, 1, 1), ((), 0, 0, 2), ((3, 0), 1, 0, 1), ((6, 2), 0, 1, 4)])
def test_unfold_and_backward_like_torch(shape, dim, size, step):
    a = torch.randn(shape, dtype=torch.float64, requires_grad=True)
    x = tl.tensor(a.tolist(), dtype=tl.float64, requires_grad=True)  # PyTorch's strides, also when empty
    ua, ux = a.unfold(dim, size, step), x.unfold(dim, size, step)
    assert_geometry(ux, ua)
    assert_same(ux.detach(), ua.detach())
    g = torch.randn(ua.shape, dtype=torch.float64)
    ua.backward(g)
    ux.backward(from_torch(g))
    assert_same(x.grad, a.grad)


def test_roll_extreme_shifts():
    a, x = pair((3, 5))
    for shifts, dims in [(2 ** 63 - 1, 1), (-2 ** 62, 0), ((-7, 12), (0, 1)), (2 ** 62 + 3, None)]:
        kw = {} if dims is None else {"dims": dims}
        assert_same(tl.roll(x, shifts, **kw), torch.roll(a, shifts, **kw))


NODE_CASES = {
    "repeat": lambda L, y: y.repeat(2, 1),
    "tile": lambda L, y: y.tile((2,)),
    "roll": lambda L, y: y.roll(1, 0),
    "rot90": lambda L, y: y.rot90(),
    "fliplr": lambda L, y: y.fliplr(),
    "unfold": lambda L, y: y.unfold(1, 2, 1),
    "flatten": lambda L, y: y.flatten(),
    "ravel_t": lambda L, y: y.t().ravel(),
    "movedim": lambda L, y: y.movedim(0, 1),
    "swapaxes": lambda L, y: y.swapaxes(0, 1),
    "broadcast_to": lambda L, y: y.broadcast_to((2, 2, 3)),
    "repeat_interleave_int": lambda L, y: y.repeat_interleave(2, dim=1),
    "repeat_interleave_tensor": lambda L, y: y.repeat_interleave(L.tensor([1, 2]), dim=0),
    "hstack": lambda L, y: L.hstack([y, y]),
    "atleast_3d": lambda L, y: L.atleast_3d(y),
    "meshgrid": lambda L, y: L.meshgrid(y[0], y[1], indexing="ij")[1],
    "squeeze_": lambda L, y: y.unsqueeze(0).squeeze_(),
    "squeeze_dim": lambda L, y: y.unsqueeze(0).squeeze_(0),
    "squeeze_dims": lambda L, y: y.unsqueeze(0).squeeze_((0,)),
    "unsqueeze_": lambda L, y: y.unsqueeze_(0),
    "t_": lambda L, y: y.t_(),
    "transpose_": lambda L, y: y.transpose_(0, 1),
    "swapdims_": lambda L, y: y.swapdims_(0, 1),
    "unfold_backward": lambda L, y: (L.ops.aten.unfold_backward if L is torch else L._C._internal.unfold_backward)(
        y.unfold(1, 2, 1), [2, 3], 1, 2, 1),
}


@pytest.mark.parametrize("case", sorted(NODE_CASES))
def test_node_names_like_torch(case):
    def name(L):
        x = L.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=L.float64, requires_grad=True)
        return type(NODE_CASES[case](L, x * 1).grad_fn).__name__
    assert name(tl) == name(torch)
