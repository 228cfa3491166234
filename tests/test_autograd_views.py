"""In-place changes through views, against PyTorch: bases that do not require grad get history
(CopySlices), views made in no_grad mode, detach() results, and the issue's example."""
import numpy as np
import pytest
import torch

import torchlite as tl


def pair(shape, seed=0, requires_grad=True):
    a = np.random.default_rng(seed).standard_normal(shape)
    return (tl.tensor(a.tolist(), dtype=tl.float64, requires_grad=requires_grad),
            torch.tensor(a, requires_grad=requires_grad))


def np_of(t):
    return np.asarray(t.detach().tolist(), dtype=np.float64)


def assert_close(a, b):
    assert a is not None and b is not None, (a, b)
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(np_of(a), b.detach().double().numpy(), rtol=1e-7, atol=1e-10)


def name(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def test_copy_into_slice_of_plain_buffer():
    for m in (tl, torch):
        w = m.tensor([2.0, 3.0], requires_grad=True)
        buf = m.zeros(4)
        buf[0:2].copy_(w)
        assert buf.requires_grad and name(buf) == "CopySlices"
        buf.sum().backward()
        assert w.grad.tolist() == [1.0, 1.0]


def test_plain_buffer_weighted():
    w, wt = pair((2,))
    c, ct = pair((4,), 1, requires_grad=False)
    outs = []
    for m, ww, cc in ((tl, w, c), (torch, wt, ct)):
        buf = m.zeros(4, dtype=m.float64)
        buf[1:3].copy_(ww * 2)
        buf.mul_(cc)
        (buf * buf).sum().backward()
        outs.append(buf)
    assert_close(w.grad, wt.grad)
    assert_close(outs[0], outs[1])


def test_setitem_on_plain_buffer():
    z, zt = pair((3,))
    for m, zz in ((tl, z), (torch, zt)):
        buf = m.zeros(3, 3, dtype=m.float64)
        buf[:, 1] = zz
        (buf.sum(0) * m.tensor([1.0, 2.0, 3.0], dtype=m.float64)).sum().backward()
    assert_close(z.grad, zt.grad)


def test_issue_example():
    x, xt = pair((3, 3))
    z, zt = pair((3,), 1)
    res = []
    for m, xx, zz in ((tl, x, z), (torch, xt, zt)):
        y = xx * 1
        y[:, 0] = zz
        y[1:].mul_(2)
        (y * y).sum().backward()
        res.append(y)
    assert_close(res[0], res[1])
    assert_close(x.grad, xt.grad)
    assert_close(z.grad, zt.grad)


def test_view_made_in_no_grad_then_modified():
    w, wt = pair((2,))
    msg = "A view was created in no_grad mode and is being modified inplace with grad mode enabled"
    for m, ww in ((torch, wt), (tl, w)):
        buf = m.zeros(4, dtype=m.float64)
        with m.no_grad():
            v = buf[0:2]
        with pytest.raises(RuntimeError, match=msg):
            v.copy_(ww)
        y = ww * 1
        with m.no_grad():
            v2 = y[0:1]
        with pytest.raises(RuntimeError, match=msg):
            v2.mul_(2)
        # changing it inside no_grad is fine
        with m.no_grad():
            v.copy_(ww)
        assert not buf.requires_grad


def test_detach_is_not_a_differentiable_view():
    for m in (tl, torch):
        w = m.tensor([2.0, 3.0], requires_grad=True)
        buf = m.zeros(4)
        d = buf.detach()
        d[0:2].copy_(w)
        assert not buf.requires_grad
        assert d.requires_grad
        x = m.ones(3, requires_grad=True)
        y = x * 2
        before = name(y)
        yd = y.detach()
        yd.mul_(w[0])
        assert name(y) == before and not yd.requires_grad or yd.grad_fn is not None
        assert name(y) == before


def test_view_of_leaf_requiring_grad_raises():
    for m in (torch, tl):
        x = m.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an "
                                               "in-place operation"):
            x[0:2].mul_(2)


def test_multiple_writes_into_plain_buffer():
    a, at = pair((2,), 3)
    b, bt = pair((2,), 4)
    res = []
    for m, aa, bb in ((tl, a, at), (torch, at, bt)) if False else ((tl, a, b), (torch, at, bt)):
        buf = m.zeros(2, 2, dtype=m.float64)
        buf[0].copy_(aa)
        buf[1].copy_(bb * aa)
        (buf.exp()).sum().backward()
        res.append(buf)
    assert_close(res[0], res[1])
    assert_close(a.grad, at.grad)
    assert_close(b.grad, bt.grad)


def test_integer_buffer_unaffected():
    for m in (tl, torch):
        buf = m.zeros(4, dtype=m.int64)
        w = m.tensor([1.0, 2.0], requires_grad=True)
        buf[0:2].copy_(w)
        assert not buf.requires_grad
        assert buf.tolist() == [1, 2, 0, 0]


def test_sibling_view_sees_write_through_other_view():
    w, wt = pair((2,))
    res = []
    for m, ww in ((tl, w), (torch, wt)):
        buf = m.zeros(4, dtype=m.float64)
        a, b = buf[0:2], buf[1:3]
        a.copy_(ww)
        assert b.requires_grad and name(b) == "AsStridedBackward0" and not b.is_leaf
        (b * m.tensor([2.0, 5.0], dtype=m.float64)).sum().backward()
        res.append(b)
    assert_close(w.grad, wt.grad)


def test_no_grad_view_requires_grad_through_base():
    for m in (tl, torch):
        x = m.ones(3, requires_grad=True)
        y = x * 1
        with m.no_grad():
            v = y[0:1]
        assert v.requires_grad and v.grad_fn is None
