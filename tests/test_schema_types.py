"""Schema types through real ops: Tensor[] inputs (cat, stack), Tensor[] returns (split, chunk,
tensor_split, unbind), named returns with out= tuples, output_differentiability, Tensor?,
bool[N] and grad_input_mask (the `_test_*` ops, tag test_op in native_functions.yaml)."""
import numpy as np
import pytest
import torch

import torchlite as tl

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def _pair(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    values = rng.integers(-3, 4, shape) if dtype != "bool" else rng.integers(0, 2, shape)
    t = torch.tensor(values).to(getattr(torch, dtype))
    return tl.tensor(values).to(getattr(tl, dtype)), t


def _same(a, t):
    assert str(a.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert tuple(a.shape) == tuple(t.shape)
    np.testing.assert_array_equal(a.to(tl.float64).numpy(), t.to(torch.float64).numpy())


def _raises_like(fn_tl, fn_torch):
    with pytest.raises(Exception) as theirs:
        fn_torch()
    with pytest.raises(type(theirs.value)) as ours:
        fn_tl()
    # torchlite prefixes some messages with the op name ("cat: Dimension out of range ...").
    assert str(ours.value).splitlines()[0].replace("torchlite.", "torch.").endswith(str(theirs.value).splitlines()[0])


# ---- cat / stack ------------------------------------------------------------------------------

@pytest.mark.parametrize("d1", DTYPES)
@pytest.mark.parametrize("d2", DTYPES)
def test_cat_promotes_like_pytorch(d1, d2):
    a, ta = _pair((2, 3), d1, 0)
    b, tb = _pair((1, 3), d2, 1)
    _same(tl.cat([a, b]), torch.cat([ta, tb]))


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_cat_and_stack_dims(dim):
    a, ta = _pair((2, 3, 4), "float32", 0)
    b, tb = _pair((2, 3, 4), "float32", 1)
    _same(tl.cat((a, b.t() if False else b), dim), torch.cat((ta, tb), dim))
    _same(tl.stack([a, b], dim), torch.stack([ta, tb], dim))
    _same(tl.concat([a, b], dim=dim), torch.concat([ta, tb], dim=dim))
    _same(tl.concatenate([a, b], dim), torch.concatenate([ta, tb], dim))


def test_cat_non_contiguous_inputs_and_legacy_empty():
    a, ta = _pair((3, 4), "float64", 0)
    _same(tl.cat([a.t(), a.t()[:, 1:]], 1), torch.cat([ta.t(), ta.t()[:, 1:]], 1))
    e, te = tl.empty(0, dtype=tl.float64), torch.empty(0, dtype=torch.float64)
    i, ti = _pair((2, 3), "int32", 1)
    _same(tl.cat([e, i]), torch.cat([te, ti]))
    _same(tl.cat([i, e], 1), torch.cat([ti, te], 1))
    _same(tl.cat([e, e]), torch.cat([te, te]))


def test_cat_out():
    a, ta = _pair((2, 3), "int64", 0)
    out, tout = tl.empty(0), torch.empty(0)
    r = tl.cat([a, a], out=out)
    assert r is out
    _same(out, torch.cat([ta, ta], out=tout))
    _raises_like(lambda: tl.cat([out], out=tl.empty(0, dtype=tl.int64)),
                 lambda: torch.cat([tout], out=torch.empty(0, dtype=torch.int64)))
    s = tl.empty(0, dtype=tl.int64)
    tl.stack([a, a], 1, out=s)
    assert s.shape == (2, 2, 3)


@pytest.mark.parametrize("case", [
    lambda m: m.cat([]),
    lambda m: m.cat([m.ones(2, 3), m.ones(2, 4)]),
    lambda m: m.cat([m.ones(2, 3), m.ones(2)]),
    lambda m: m.cat([m.ones(2, 3)], 2),
    lambda m: m.cat([m.tensor(1.0), m.tensor(2.0)]),
    lambda m: m.stack([m.ones(2), m.ones(3)]),
    lambda m: m.stack([]),
    lambda m: m.stack([m.ones(2, 3)], 3),
])
def test_join_errors(case):
    _raises_like(lambda: case(tl), lambda: case(torch))


def test_cat_meta():
    r = tl.cat([tl.empty(2, 3, device="meta"), tl.empty(4, 3, device="meta")])
    assert r.device.type == "meta" and r.shape == (6, 3)


def test_cat_gradient_reaches_every_element():
    a = tl.randn(2, 3, dtype=tl.float64, requires_grad=True)
    b = tl.randn(1, 3, dtype=tl.float64, requires_grad=True)
    c = tl.randn(2, 3, dtype=tl.float64)  # no grad: gets no gradient, still offsets the others
    w = tl.arange(15.0, dtype=tl.float64).reshape(5, 3)
    (tl.cat([a, c, b]) * w).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), w[:2].numpy())
    np.testing.assert_array_equal(b.grad.numpy(), w[4:].numpy())
    assert c.grad is None


# ---- views with several outputs -------------------------------------------------------------

SPLITS = [
    lambda x: x.split(2), lambda x: x.split(2, -1), lambda x: x.split([1, 3, 1]), lambda x: x.split([2, 2], 1),
    lambda x: x.split_with_sizes([4, 1]), lambda x: x.chunk(2), lambda x: x.chunk(3, 1), lambda x: x.chunk(9),
    lambda x: x.tensor_split(3), lambda x: x.tensor_split([1, 4, 2, 7], 1), lambda x: x.unbind(),
    lambda x: x.unbind(-1), lambda x: x.narrow(0, -2, 2),
]


@pytest.mark.parametrize("i", range(len(SPLITS)))
def test_splits_are_views(i):
    a, ta = _pair((5, 4), "float32", 0)
    ours, theirs = SPLITS[i](a), SPLITS[i](ta)
    if isinstance(theirs, torch.Tensor):
        ours, theirs = [ours], [theirs]
    assert type(ours) is tuple or len(theirs) == 1
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        _same(o, t)
        assert o.stride() == t.stride() and o.storage_offset() == t.storage_offset()
    a.fill_(7)
    assert all(float(o.sum()) == 7 * o.numel() for o in ours)


@pytest.mark.parametrize("case", [
    lambda m: m.ones(5).split(0), lambda m: m.ones(5).split(-1), lambda m: m.ones(5).split([2, 2]),
    lambda m: m.ones(5).split([6, -1]), lambda m: m.ones(5).chunk(0), lambda m: m.ones(5).tensor_split(0),
    lambda m: m.ones(5).unbind(1), lambda m: m.ones(5).narrow(0, 6, 1), lambda m: m.ones(5).narrow(0, 3, 3),
])
def test_split_errors(case):
    _raises_like(lambda: case(tl), lambda: case(torch))


def test_split_empty():
    assert [tuple(t.shape) for t in tl.ones(0).split(2)] == [(0,)]
    assert [tuple(t.shape) for t in tl.ones(0, 2).chunk(3)] == [(0, 2)] * 3


def test_split_backward_treats_missing_gradients_as_zero():
    x = tl.randn(5, 3, dtype=tl.float64, requires_grad=True)
    parts = x.split(2)
    (parts[0] * 2).sum().backward()
    expected = np.zeros((5, 3))
    expected[:2] = 2
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    x.grad = None
    u = x.unbind(1)
    (u[2] * 3).sum().backward()
    expected = np.zeros((5, 3))
    expected[:, 2] = 3
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    assert u[0].grad_fn.name() == "UnbindBackward0"


# ---- named returns, out= tuples, output_differentiability --------------------------------

def test_named_tuple_return():
    x, y = tl.randn(2, 3), tl.randn(3)
    r = tl._test_mul_add(x, y)
    assert isinstance(r, tuple) and type(r) is tl.return_types._test_mul_add
    assert r.product is r[0] and r.total is r[1]
    product, total = r
    np.testing.assert_allclose(product.numpy(), (x * y).numpy())
    np.testing.assert_allclose(total.numpy(), (x + y).numpy())
    assert repr(r).startswith("torchlite.return_types._test_mul_add(\nproduct=tensor(")
    assert "\ntotal=tensor(" in repr(r)
    m = x._test_mul_add(y)
    assert type(m) is tl.return_types._test_mul_add


def test_out_tuple():
    x = tl.randn(2, 3)
    p, t = tl.empty(0), tl.empty(0, dtype=tl.float64)
    r = tl._test_mul_add(x, x, out=(p, t))
    assert type(r) is tl.return_types._test_mul_add_out
    assert r.product is p and r.total is t and t.dtype == tl.float64
    np.testing.assert_allclose(t.numpy(), (x + x).numpy(), rtol=1e-6)
    with pytest.raises(TypeError, match="expected tuple of 2 elements but got 1"):
        tl._test_mul_add(x, x, out=(p,))


def test_output_differentiability():
    x = tl.randn(2, 3, requires_grad=True)
    r = tl._test_mul_add(x, x)
    assert r.product.requires_grad and not r.total.requires_grad
    r.product.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (2 * x).detach().numpy(), rtol=1e-6)


def test_grad_input_mask_and_backward_op_with_its_own_derivative():
    x = tl.randn(2, 3, dtype=tl.float64, requires_grad=True)
    y = tl.randn(2, 3, dtype=tl.float64)  # needs no gradient: the mask says so
    (gx,) = tl.autograd.grad(tl._test_mul_add(x, y).product.sum(), [x], create_graph=True)
    np.testing.assert_allclose(gx.detach().numpy(), y.numpy())
    gs, go = tl._test_mul_backward(x, y, y, [False, True])
    assert gs is None and go is not None
    # double backward through _test_mul_backward's own formula: d/dx sum(x * x * x)
    (g,) = tl.autograd.grad((tl._test_mul_add(x, x).product * x).sum(), [x], create_graph=True)
    (gg,) = tl.autograd.grad(g.sum(), [x])
    np.testing.assert_allclose(gg.numpy(), (6 * x).detach().numpy())


def test_bool_list_argument_checks():
    x = tl.randn(2)
    with pytest.raises(TypeError):
        tl._test_mul_backward(x, x, x, [True])
    with pytest.raises(TypeError):
        tl._test_mul_backward(x, x, x, [1, 0])


def test_optional_tensor_formula():
    x = tl.randn(2, 3, dtype=tl.float64, requires_grad=True)
    w = tl.randn(3, dtype=tl.float64, requires_grad=True)
    tl._test_scale_optional(x, w).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), x.detach().numpy().sum(0))
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(w.detach().numpy(), (2, 3)))
    x.grad = None
    tl._test_scale_optional(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((2, 3)))


# ---- Generator? ------------------------------------------------------------------------------

def test_generator_draws_without_touching_the_default():
    tl.manual_seed(0)
    expected = tl.rand(5)
    tl.manual_seed(0)
    g = tl.Generator().manual_seed(3)
    a = tl.rand(5, generator=g)
    np.testing.assert_array_equal(tl.rand(5).numpy(), expected.numpy())  # default stream unchanged
    b = tl.rand(5, generator=tl.Generator().manual_seed(3))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(a.numpy(), expected.numpy())


def test_generator_state_round_trip():
    g = tl.Generator()
    assert g.device == tl.device("cpu") and g.initial_seed() == torch.Generator().initial_seed()
    state = g.get_state()
    assert state.dtype == tl.uint8
    x = tl.randn(7, generator=g, dtype=tl.float64)
    assert g.set_state(state) is g
    np.testing.assert_array_equal(tl.randn(7, generator=g, dtype=tl.float64).numpy(), x.numpy())
    seed = g.seed()
    assert g.initial_seed() == seed


def test_default_generator_is_the_global_one():
    tl.default_generator.manual_seed(11)
    assert tl.initial_seed() == 11
    a = tl.randn(3, generator=tl.default_generator)
    tl.manual_seed(11)
    np.testing.assert_array_equal(tl.randn(3).numpy(), a.numpy())


def test_generator_errors():
    with pytest.raises(TypeError, match="generator"):
        tl.rand(2, generator=1)
    with pytest.raises(TypeError):
        tl.rand(2, None)  # generator is keyword-only
    with pytest.raises(TypeError, match="RNG state must be"):
        tl.Generator().set_state(tl.zeros(3))


# ---- Layout? and MemoryFormat? ----------------------------------------------------------

def test_layout_and_memory_format_objects():
    assert repr(tl.strided) == "torchlite.strided" and isinstance(tl.strided, tl.layout)
    for name in ("contiguous_format", "preserve_format", "channels_last", "channels_last_3d"):
        assert repr(getattr(tl, name)) == f"torchlite.{name}"
        assert isinstance(getattr(tl, name), tl.memory_format)


@pytest.mark.parametrize("shape, fmt", [((2, 3, 4, 5), "channels_last"), ((2, 3, 4, 5, 6), "channels_last_3d"),
                                        ((2, 3), "contiguous_format"), ((2, 1, 4, 1), "channels_last")])
def test_memory_formats_like_pytorch(shape, fmt):
    e = tl.empty(*shape, memory_format=getattr(tl, fmt), layout=tl.strided)
    assert e.stride() == torch.empty(*shape, memory_format=getattr(torch, fmt)).stride()
    x, tx = _pair(shape, "float32", 0)
    c = x.clone(memory_format=getattr(tl, fmt))
    assert c.stride() == tx.clone(memory_format=getattr(torch, fmt)).stride()
    _same(c, tx)
    k = x.contiguous(memory_format=getattr(tl, fmt))
    assert k.stride() == tx.contiguous(memory_format=getattr(torch, fmt)).stride()
    _same(k, tx)


@pytest.mark.parametrize("case", [
    lambda m: m.empty(2, memory_format=m.preserve_format),
    lambda m: m.empty(2, 3, memory_format=m.channels_last),
    lambda m: m.ones(2, 3).clone(memory_format=m.channels_last),
    lambda m: m.ones(2, 3).contiguous(memory_format=m.channels_last_3d),
    lambda m: m.empty(2, layout=m.channels_last),
])
def test_memory_format_errors(case):
    _raises_like(lambda: case(tl), lambda: case(torch))


def test_clone_keeps_layout_by_default_and_gradient():
    x = tl.randn(3, 4, requires_grad=True)
    c = x.t().clone()
    assert c.stride() == (1, 4)
    c = x.t().clone(memory_format=tl.contiguous_format)
    assert c.stride() == (3, 1)
    c.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((3, 4)))


# ---- Tensor?[] ------------------------------------------------------------------------------

def test_list_of_optional_tensors():
    a = tl.randn(2, 3, requires_grad=True)
    b = tl.randn(3)
    r = tl._test_sum_defined([a, None, b])
    np.testing.assert_allclose(r.detach().numpy(), (a + b).detach().numpy())
    r.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.ones((2, 3)))
    with pytest.raises(RuntimeError, match="expected at least one tensor"):
        tl._test_sum_defined((None,))
    with pytest.raises(TypeError):
        tl._test_sum_defined([a, 1])
