"""Normalization and dropout: what the generated suites (every YAML sample against PyTorch) cannot say.

- placement: each name is bound where torch binds it (`hasattr(torchlite, name) == hasattr(torch, name)`);
- the F.* Python layer: signatures and defaults, PyTorch's Python checks (batch size, spatial size, eps, p);
- batch_norm / instance_norm running statistics updated in place as PyTorch's (momentum, unbiased variance,
  mixed float16/bfloat16 input with float32 statistics), evaluation mode, and the gradients;
- local_response_norm and normalize (Python compositions) by value and gradient;
- dropout: PyTorch's random stream for the same seed (values equal), statistics, feature (channel) masks,
  dropout1d/2d/3d batched and unbatched, alpha dropout's moments, inplace=.
"""
from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch, to_torch

TOP_LEVEL = ["layer_norm", "native_layer_norm", "native_layer_norm_backward", "rms_norm", "batch_norm",
             "native_batch_norm", "native_batch_norm_backward", "instance_norm", "group_norm", "native_group_norm",
             "native_group_norm_backward", "dropout", "dropout_", "feature_dropout", "feature_dropout_",
             "alpha_dropout", "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_"]
F_NAMES = ["layer_norm", "rms_norm", "batch_norm", "instance_norm", "group_norm", "local_response_norm", "normalize",
           "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]


def _pair(shape, seed=0, dtype=torch.float64, scale=1.0):
    t = (torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64) * scale).to(dtype)
    return from_torch(t), t


@pytest.mark.parametrize("name", TOP_LEVEL)
def test_bound_where_torch_binds(name):
    assert hasattr(tl, name) == hasattr(torch, name), name
    assert hasattr(tl.Tensor, name) == hasattr(torch.Tensor, name), name


@pytest.mark.parametrize("name", F_NAMES)
def test_functional_signatures(name):
    ours, theirs = inspect.signature(getattr(TF, name)), inspect.signature(getattr(F, name))
    assert list(ours.parameters) == list(theirs.parameters)
    for p in theirs.parameters:
        assert ours.parameters[p].default == theirs.parameters[p].default, (name, p)


# ---------------------------------------------------------------- layer_norm, rms_norm

@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_layer_norm_reduced_dtypes_with_float_parameters(dtype):
    x, t = _pair((4, 8), dtype=dtype)
    w, tw = _pair((8,), 1, torch.float32)
    b, tb = _pair((8,), 2, torch.float32)
    ours, theirs = tl.native_layer_norm(x, [8], w, b, 1e-5), torch.native_layer_norm(t, [8], tw, tb, 1e-5)
    for o, e in zip(ours, theirs):
        assert_same(o, e)
    assert_same(TF.layer_norm(x, (8,), w, b), F.layer_norm(t, (8,), tw, tb))


def test_layer_norm_errors():
    x, t = _pair((2, 3, 4))
    for call in (lambda m, a: m.layer_norm(a, [5]), lambda m, a: m.layer_norm(a, []),
                 lambda m, a: m.layer_norm(a, [4], m.ones(3, dtype=a.dtype)),
                 lambda m, a: m.layer_norm(a, [2, 3, 4, 5])):
        with pytest.raises(RuntimeError) as theirs:
            call(torch, t)
        with pytest.raises(RuntimeError, match=".") as ours:
            call(tl, x)
        assert str(ours.value) == str(theirs.value)


def test_layer_norm_float32_large_rows_like_torch():
    x, t = _pair((64, 1024), scale=3.0, dtype=torch.float32)
    w, tw = _pair((1024,), 1, torch.float32)
    assert_same(TF.layer_norm(x, [1024], w), F.layer_norm(t, [1024], tw), atol=1e-5, rtol=1e-5)
    xx, ww = x.requires_grad_(), w.requires_grad_()
    tt, tww = t.requires_grad_(), tw.requires_grad_()
    g, tg = _pair((64, 1024), 3, torch.float32)
    TF.layer_norm(xx, [1024], ww).backward(g)
    F.layer_norm(tt, [1024], tww).backward(tg)
    assert_same(xx.grad, tt.grad, atol=1e-4, rtol=1e-4)
    assert_same(ww.grad, tww.grad, atol=1e-3, rtol=1e-4)


@pytest.mark.parametrize("eps", [None, 1e-3])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_rms_norm_eps_and_dtypes(eps, dtype):
    x, t = _pair((3, 5), dtype=dtype, scale=1e-3)  # small values: eps matters
    w, tw = _pair((5,), 1, dtype)
    assert_same(TF.rms_norm(x, [5], w, eps), F.rms_norm(t, [5], tw, eps))


def test_rms_norm_errors():
    x, t = _pair((2, 3, 4))
    for call in (lambda m, a: m.rms_norm(a, [5]), lambda m, a: m.rms_norm(a, [2, 3, 4, 5]),
                 lambda m, a: m.rms_norm(a, [4], m.ones(3, dtype=a.dtype)), lambda m, a: m.rms_norm(a.int(), [4])):
        with pytest.raises(Exception) as theirs:
            call(torch, t)
        with pytest.raises(theirs.type) as ours:
            call(tl, x)
        assert str(ours.value).replace("torchlite", "torch") == str(theirs.value)


# ---------------------------------------------------------------- batch_norm: running statistics

@pytest.mark.parametrize("shape", [(8, 3), (4, 3, 5), (2, 3, 4, 4), (2, 3, 2, 2, 2)])
@pytest.mark.parametrize("momentum", [0.1, 0.5])
def test_batch_norm_updates_running_stats_like_torch(shape, momentum):
    x, t = _pair(shape, scale=2.0)
    rm, trm = _pair((3,), 5)
    rv, trv = from_torch(torch.rand(3, dtype=torch.float64) + 0.5), None
    trv = to_torch(rv)
    w, tw = _pair((3,), 6)
    b, tb = _pair((3,), 7)
    out = TF.batch_norm(x, rm, rv, w, b, training=True, momentum=momentum)
    expected = F.batch_norm(t, trm, trv, tw, tb, training=True, momentum=momentum)
    assert_same(out, expected)
    assert_same(rm, trm, rtol=1e-12, atol=1e-14)
    assert_same(rv, trv, rtol=1e-12, atol=1e-14)
    # Evaluation uses (and keeps) the running statistics.
    assert_same(TF.batch_norm(x, rm, rv, w, b), F.batch_norm(t, trm, trv, tw, tb))
    assert_same(rm, trm)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_batch_norm_mixed_reduced_input_float_stats(dtype):
    x, t = _pair((6, 4, 3), dtype=dtype)
    rm, rv = tl.zeros(4), tl.ones(4)
    trm, trv = torch.zeros(4), torch.ones(4)
    w, tw = _pair((4,), 1, torch.float32)
    out = tl.native_batch_norm(x, w, None, rm, rv, True, 0.1, 1e-5)
    expected = torch.native_batch_norm(t, tw, None, trm, trv, True, 0.1, 1e-5)
    for o, e in zip(out, expected):
        assert_same(o, e)
    assert_same(rm, trm, atol=1e-6, rtol=1e-6)
    assert_same(rv, trv, atol=1e-6, rtol=1e-6)


def test_batch_norm_gradients_like_torch():
    for training in (True, False):
        x, t = _pair((5, 3, 4))
        w, tw = _pair((3,), 1)
        b, tb = _pair((3,), 2)
        rm, trm = _pair((3,), 3)
        rv, trv = tl.ones(3, dtype=tl.float64) * 1.5, torch.ones(3, dtype=torch.float64) * 1.5
        leaves, tleaves = [x, w, b], [t, tw, tb]
        for a in leaves + tleaves:
            a.requires_grad_()
        g, tg = _pair((5, 3, 4), 4)
        ours = tl.autograd.grad(TF.batch_norm(x, rm, rv, w, b, training), leaves, g, create_graph=True)
        theirs = torch.autograd.grad(F.batch_norm(t, trm, trv, tw, tb, training), tleaves, tg, create_graph=True)
        for o, e in zip(ours, theirs):
            assert_same(o.detach(), e.detach())
        # double backward through native_batch_norm_backward
        s2 = sum((o * o).sum() for o in ours)
        ts2 = sum((e * e).sum() for e in theirs)
        for o, e in zip(tl.autograd.grad(s2, leaves[:2]), torch.autograd.grad(ts2, tleaves[:2])):
            assert_same(o, e)


def test_batch_norm_errors_and_python_checks():
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        TF.batch_norm(tl.ones(1, 3), None, None, training=True)
    with pytest.raises(ValueError, match="eps must be positive"):
        TF.batch_norm(tl.ones(2, 3), None, None, training=True, eps=0.0)
    cases = [
        lambda m: m.batch_norm(m.ones(2, 3), None, None, m.zeros(4), m.ones(3), True, 0.1, 1e-5, False),
        lambda m: m.batch_norm(m.ones(2, 3), None, None, None, None, False, 0.1, 1e-5, False),
        lambda m: m.batch_norm(m.ones(2, 3), m.ones(4), None, None, None, True, 0.1, 1e-5, False),
        lambda m: m.batch_norm(m.ones(2, 3), None, None, m.zeros(3), None, True, 0.1, 1e-5, False),
        lambda m: m.batch_norm(m.ones(3), None, None, None, None, True, 0.1, 1e-5, False),
        lambda m: m.native_batch_norm(m.ones(0, 3), None, None, None, None, True, 0.1, 1e-5),
    ]
    for call in cases:
        with pytest.raises(Exception) as theirs:
            call(torch)
        with pytest.raises(theirs.type) as ours:
            call(tl)
        if theirs.type is not IndexError:
            assert str(ours.value) == str(theirs.value)


def test_batch_norm_empty_input():
    for shape in [(0, 3), (2, 0)]:
        assert_same(tl.batch_norm(tl.ones(*shape), None, None, None, None, True, 0.1, 1e-5, False),
                    torch.batch_norm(torch.ones(*shape), None, None, None, None, True, 0.1, 1e-5, False))


# ---------------------------------------------------------------- instance_norm, group_norm

@pytest.mark.parametrize("use_input_stats", [True, False])
def test_instance_norm_running_stats_like_torch(use_input_stats):
    x, t = _pair((3, 4, 5), scale=2.0)
    rm, trm = _pair((4,), 1)
    rv, trv = tl.ones(4, dtype=tl.float64) * 2, torch.ones(4, dtype=torch.float64) * 2
    w, tw = _pair((4,), 2)
    out = TF.instance_norm(x, rm, rv, w, None, use_input_stats, 0.3)
    expected = F.instance_norm(t, trm, trv, tw, None, use_input_stats, 0.3)
    assert_same(out, expected)
    assert_same(rm, trm, rtol=1e-12, atol=1e-14)
    assert_same(rv, trv, rtol=1e-12, atol=1e-14)


def test_instance_norm_and_group_norm_python_checks():
    with pytest.raises(ValueError, match="Expected more than 1 spatial element when training"):
        TF.instance_norm(tl.ones(2, 3, 1))
    with pytest.raises(RuntimeError, match="Expected running_mean and running_var to be defined"):
        TF.instance_norm(tl.ones(2, 3, 4), use_input_stats=False)
    with pytest.raises(RuntimeError, match="Expected at least 2 dimensions for input tensor but received 1"):
        TF.group_norm(tl.ones(6), 3)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        TF.group_norm(tl.ones(1, 3), 3)
    with pytest.raises(ZeroDivisionError):
        TF.group_norm(tl.ones(2, 3), 0)
    for call in (lambda m: m.group_norm(m.ones(2, 6, 4), 4), lambda m: m.group_norm(m.ones(2, 6, 4), 3, m.ones(5)),
                 lambda m: m.group_norm(m.ones(2, 6, 4), 0)):
        with pytest.raises(RuntimeError) as theirs:
            call(torch)
        with pytest.raises(RuntimeError) as ours:
            call(tl)
        assert str(ours.value) == str(theirs.value)


def test_group_norm_gradients_like_torch():
    x, t = _pair((2, 6, 5))
    w, tw = _pair((6,), 1)
    b, tb = _pair((6,), 2)
    leaves, tleaves = [x, w, b], [t, tw, tb]
    for a in leaves + tleaves:
        a.requires_grad_()
    g, tg = _pair((2, 6, 5), 3)
    ours = tl.autograd.grad(TF.group_norm(x, 3, w, b), leaves, g, create_graph=True)
    theirs = torch.autograd.grad(F.group_norm(t, 3, tw, tb), tleaves, tg, create_graph=True)
    for o, e in zip(ours, theirs):
        assert_same(o.detach(), e.detach())
    s2 = sum((o * o).sum() for o in ours)
    ts2 = sum((e * e).sum() for e in theirs)
    for o, e in zip(tl.autograd.grad(s2, leaves[:2]), torch.autograd.grad(ts2, tleaves[:2])):
        assert_same(o, e)


# ---------------------------------------------------------------- local_response_norm, normalize

@pytest.mark.parametrize("shape", [(2, 5, 7), (2, 6, 3, 4), (1, 4, 2, 3, 2)])
@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_local_response_norm_like_torch(shape, size):
    x, t = _pair(shape)
    x.requires_grad_()
    t.requires_grad_()
    out, expected = TF.local_response_norm(x, size, 0.1, 0.6, 2.0), F.local_response_norm(t, size, 0.1, 0.6, 2.0)
    assert_same(out.detach(), expected.detach())
    g, tg = _pair(shape, 1)
    out.backward(g)
    expected.backward(tg)
    assert_same(x.grad, t.grad)


def test_local_response_norm_checks():
    with pytest.raises(ValueError, match="Expected 3D or higher dimensionality"):
        TF.local_response_norm(tl.ones(2, 3), 2)
    e = tl.ones(0, 3, 4)
    assert TF.local_response_norm(e, 2) is e


@pytest.mark.parametrize("p,dim", [(2.0, 1), (1.0, -1), (3.0, 0), (float("inf"), 1)])
def test_normalize_like_torch(p, dim):
    x, t = _pair((3, 4, 2))
    x[0, 0] = 0.0
    t[0, 0] = 0.0
    x.requires_grad_()
    t.requires_grad_()
    out, expected = TF.normalize(x, p, dim), F.normalize(t, p, dim)
    assert_same(out.detach(), expected.detach())
    g, tg = _pair((3, 4, 2), 1)
    out.backward(g)
    expected.backward(tg)
    assert_same(x.grad, t.grad)
    o = tl.empty(0, dtype=tl.float64)
    assert TF.normalize(x.detach(), p, dim, out=o) is o
    assert_same(o, F.normalize(t.detach(), p, dim))
    assert_same(TF.normalize(tl.zeros(2, 3)), F.normalize(torch.zeros(2, 3)))  # eps keeps 0 / 0 away


# ---------------------------------------------------------------- dropout

@pytest.mark.parametrize("name", ["dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d",
                                  "dropout3d"])
@pytest.mark.parametrize("inplace", [False, True])
def test_dropout_values_equal_torch_for_the_same_seed(name, inplace):
    # Same stream as PyTorch's CPU bernoulli_ (docs/random.md), so the masks agree element for element.
    shape = {"dropout1d": (3, 4, 5), "dropout2d": (2, 3, 4, 4), "dropout3d": (2, 3, 2, 2, 2)}.get(name, (4, 3, 6))
    x, t = _pair(shape, dtype=torch.float32)
    tl.manual_seed(3)
    torch.manual_seed(3)
    out = getattr(TF, name)(x, 0.4, True, inplace)
    expected = getattr(F, name)(t, 0.4, True, inplace)
    assert_same(out, expected, atol=0, rtol=0)
    assert (out is x) == inplace
    if inplace:
        assert_same(x, t, atol=0, rtol=0)


def test_dropout_statistics_and_scaling():
    x = tl.ones(200, 500)
    tl.manual_seed(0)
    out = TF.dropout(x, 0.3).numpy()
    kept = out != 0
    assert abs(kept.mean() - 0.7) < 0.01
    np.testing.assert_allclose(out[kept], 1 / 0.7, rtol=1e-6)
    # different draws for successive calls, the same ones after re-seeding
    again = TF.dropout(x, 0.3).numpy()
    assert not np.array_equal(out, again)
    tl.manual_seed(0)
    np.testing.assert_array_equal(TF.dropout(x, 0.3).numpy(), out)


def test_feature_dropout_masks_whole_channels():
    x = tl.ones(16, 32, 5, 5)
    tl.manual_seed(1)
    out = TF.dropout2d(x, 0.5).numpy()
    per_channel = out.reshape(16, 32, -1)
    assert np.all(per_channel.min(-1) == per_channel.max(-1))  # one value per (sample, channel)
    assert abs((per_channel[..., 0] != 0).mean() - 0.5) < 0.1
    # unbatched dropout1d / dropout3d: one mask value per channel, result unbatched
    u = TF.dropout1d(tl.ones(8, 10), 0.5).numpy()
    assert u.shape == (8, 10) and np.all(u.min(1) == u.max(1))
    v = TF.dropout3d(tl.ones(8, 2, 2, 2), 0.5)
    assert tuple(v.shape) == (8, 2, 2, 2)


def test_alpha_dropout_keeps_mean_and_variance():
    tl.manual_seed(2)
    x = tl.randn(400, 500)
    for fn in (TF.alpha_dropout, TF.feature_alpha_dropout):
        out = fn(x.reshape(400, 500, 1) if fn is TF.feature_alpha_dropout else x, 0.2, True).numpy()
        assert abs(out.mean()) < 0.05 and abs(out.std() - 1) < 0.05


def test_dropout_eval_and_edge_cases():
    x, t = _pair((3, 4))
    assert TF.dropout(x, 0.5, training=False) is x
    assert TF.alpha_dropout(x, 0.5) is x  # alpha dropouts default to training=False
    assert TF.dropout(x, 0.0) is x
    assert_same(TF.dropout(x, 1.0), F.dropout(t, 1.0))
    for fn in ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"):
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
            getattr(TF, fn)(x, 1.5)
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a 4D input"):
        TF.dropout1d(tl.ones(2, 3, 4, 5))
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions in the input"):
        tl.feature_dropout(tl.ones(3), 0.5, True)
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1, but got -0.5"):
        tl.dropout(x, -0.5, True)


def test_dropout2d_dropout3d_warnings():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        TF.dropout2d(tl.ones(2, 3, 4), 0.5)
        TF.dropout2d(tl.ones(2, 3), 0.5)
        TF.dropout3d(tl.ones(2, 3, 4), 0.5)
    messages = [str(m.message) for m in w]
    assert any("assuming that channel-wise 1D dropout" in m for m in messages)
    assert any("Received a 2-D input to dropout2d" in m for m in messages)
    assert any("Received a 3-D input to dropout3d" in m for m in messages)


def test_dropout_gradient_follows_the_mask():
    x, t = _pair((6, 7))
    x.requires_grad_()
    t.requires_grad_()
    tl.manual_seed(5)
    torch.manual_seed(5)
    out, expected = TF.dropout(x, 0.5), F.dropout(t, 0.5)
    out.sum().backward()
    expected.sum().backward()
    assert_same(x.grad, t.grad, atol=0, rtol=0)


# ---------------------------------------------------------------- bias without weight

@pytest.mark.parametrize("op", ["layer_norm", "batch_norm", "group_norm"])
def test_bias_without_weight_gradients(op):
    # PyTorch's double backward refuses a bias without weight (an undefined weight reaches a mul), so the YAML
    # samples avoid the case: first-order gradients are compared with PyTorch's, second order by gradgradcheck.
    x, t = _pair((4, 6, 3))
    b, tb = _pair((6,) if op != "layer_norm" else (3,), 1)
    calls = {"layer_norm": (lambda m, a, c: m.layer_norm(a, [3], None, c)),
             "batch_norm": (lambda m, a, c: m.batch_norm(a, None, c, None, None, True, 0.1, 1e-5, False)),
             # PyTorch's own group_norm backward fails without a weight ("tensor does not have a device"): its
             # oracle gets weight ones, the same function
             "group_norm": (lambda m, a, c: m.group_norm(a, 3, None if m is tl else m.ones(6, dtype=a.dtype), c))}
    call = calls[op]
    for a in (x, b, t, tb):
        a.requires_grad_()
    g, tg = _pair((4, 6, 3), 2)
    ours = tl.autograd.grad(call(tl, x, b), (x, b), g)
    theirs = torch.autograd.grad(call(torch, t, tb), (t, tb), tg)
    for o, e in zip(ours, theirs):
        assert_same(o, e)
    assert tl.autograd.gradgradcheck(lambda a, c: call(tl, a, c), (x, b))


def test_group_norm_statistics_are_differentiable_like_torch():
    x, t = _pair((2, 4, 3))
    x.requires_grad_()
    t.requires_grad_()
    ours, theirs = tl.native_group_norm(x, None, None, 2, 4, 3, 2, 1e-5), torch.native_group_norm(t, None, None, 2, 4,
                                                                                                      3, 2, 1e-5)
    assert [o.requires_grad for o in ours] == [e.requires_grad for e in theirs]
    gm, tgm = _pair((2, 2), 1)
    gr, tgr = _pair((2, 2), 2)
    got = tl.autograd.grad([ours[1], ours[2]], [x], [gm, gr])[0]
    expected = torch.autograd.grad([theirs[1], theirs[2]], [t], [tgm, tgr])[0]
    assert_same(got, expected)


def test_meta_shapes():
    def m(*s):
        return tl.empty(*s, device="meta")
    assert [tuple(t.shape) for t in tl.native_layer_norm(m(3, 4), [4], m(4), m(4), 1e-5)] == [(3, 4), (3, 1), (3, 1)]
    assert [tuple(t.shape) for t in tl.native_batch_norm(m(3, 4, 5), m(4), m(4), None, None, True, 0.1, 1e-5)] == \
        [(3, 4, 5), (4,), (4,)]
    assert [tuple(t.shape) for t in tl.native_group_norm(m(3, 4, 5), m(4), m(4), 3, 4, 5, 2, 1e-5)] == \
        [(3, 4, 5), (3, 2), (3, 2)]
    assert [tuple(t.shape) for t in tl._C._internal.native_batch_norm_backward(
        m(3, 4, 5), m(3, 4, 5), m(4), None, None, m(4), m(4), True, 1e-5, [True, True, True])] == [(3, 4, 5), (4,), (4,)]
    for out in (tl.rms_norm(m(3, 4), [4]), TF.local_response_norm(m(2, 3, 4), 2), TF.normalize(m(2, 3)),
                TF.dropout(m(3, 4)), TF.group_norm(m(2, 4, 3), 2), TF.instance_norm(m(2, 3, 4))):
        assert out.device.type == "meta"
