"""nn.utils against torch.nn.utils: gradient clipping (every norm type, non-finite norms, foreach,
generators, single tensors), get_total_norm / clip_grads_with_norm_, parameters_to_vector and
vector_to_parameters."""
from __future__ import annotations

import math

import pytest
import torch

import torchlite as tl
from tests.conftest import assert_same, from_torch


def _params(lib, values, dtype="float32"):
    out = []
    for i, v in enumerate(values):
        p = lib.nn.Parameter(lib.zeros(len(v), dtype=getattr(lib, dtype)))
        if i != 1:                          # the second parameter has no gradient
            p.grad = lib.tensor(v, dtype=getattr(lib, dtype))
        out.append(p)
    return out


VALUES = [[3.0, -4.0, 0.5], [1.0, 1.0], [-2.0, 0.25, 7.0, -1.5], [0.1]]


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, 0.5, math.inf, -math.inf, "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clip_grad_norm_like_torch(norm_type, max_norm, dtype):
    pt, pl = _params(torch, VALUES, dtype), _params(tl, VALUES, dtype)
    nt = float(norm_type) if norm_type == "inf" else norm_type
    want = torch.nn.utils.clip_grad_norm_(pt, max_norm, nt)
    got = tl.nn.utils.clip_grad_norm_(pl, max_norm, nt)
    assert_same(got, want)
    for a, b in zip(pl, pt):
        assert (a.grad is None) == (b.grad is None)
        if b.grad is not None:
            assert_same(a.grad, b.grad)


def test_clip_grad_norm_single_tensor_generator_and_foreach():
    for foreach in (None, True, False):
        t = torch.nn.Parameter(torch.zeros(3))
        t.grad = torch.tensor([3.0, 4.0, 0.0])
        l = tl.nn.Parameter(tl.zeros(3))
        l.grad = tl.tensor([3.0, 4.0, 0.0])
        assert_same(tl.nn.utils.clip_grad_norm_(l, 1.0, foreach=foreach),
                    torch.nn.utils.clip_grad_norm_(t, 1.0, foreach=foreach))
        assert_same(l.grad, t.grad)
    l = tl.nn.Parameter(tl.zeros(2))
    l.grad = tl.tensor([1.0, 1.0])
    tl.nn.utils.clip_grad_norm_((p for p in [l]), 0.1)
    assert_same(l.grad, torch.full((2,), 0.1 / (math.sqrt(2) + 1e-6)) * 1.0)
    with pytest.warns(UserWarning, match="`parameters` is an empty generator"):
        r = tl.nn.utils.clip_grad_norm_((p for p in []), 1.0)
    assert r.item() == 0.0


def test_clip_grad_norm_nonfinite():
    for bad in (math.inf, math.nan):
        pt, pl = _params(torch, [[1.0, bad]]), _params(tl, [[1.0, bad]])
        with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from `parameters` is non-finite"):
            tl.nn.utils.clip_grad_norm_(pl, 1.0, error_if_nonfinite=True)
        want = torch.nn.utils.clip_grad_norm_(pt, 1.0)
        got = tl.nn.utils.clip_grad_norm_(pl, 1.0)
        assert_same(got, want)
        assert_same(pl[0].grad, pt[0].grad)


def test_get_total_norm_and_clip_grads_with_norm_like_torch():
    pt, pl = _params(torch, VALUES), _params(tl, VALUES)
    gt = [p.grad for p in pt if p.grad is not None]
    gl = [p.grad for p in pl if p.grad is not None]
    for norm_type in (2.0, 1.0, math.inf):
        assert_same(tl.nn.utils.get_total_norm(gl, norm_type), torch.nn.utils.get_total_norm(gt, norm_type))
    total_t, total_l = torch.nn.utils.get_total_norm(gt), tl.nn.utils.get_total_norm(gl)
    torch.nn.utils.clip_grads_with_norm_(pt, 2.0, total_t)
    tl.nn.utils.clip_grads_with_norm_(pl, 2.0, total_l)
    for a, b in zip(gl, gt):
        assert_same(a, b)
    assert_same(tl.nn.utils.get_total_norm([]), torch.nn.utils.get_total_norm([]))


def test_clip_grad_value_like_torch():
    pt, pl = _params(torch, VALUES), _params(tl, VALUES)
    torch.nn.utils.clip_grad_value_(pt, 1.25)
    tl.nn.utils.clip_grad_value_(pl, 1.25)
    for a, b in zip(pl, pt):
        if b.grad is not None:
            assert_same(a.grad, b.grad)
    single = tl.nn.Parameter(tl.zeros(2))
    single.grad = tl.tensor([-5.0, 5.0])
    tl.nn.utils.clip_grad_value_(single, 2)
    assert single.grad.tolist() == [-2.0, 2.0]


def test_clip_grad_norm_deprecated_alias_warns():
    pl = _params(tl, [[3.0, 4.0]])
    with pytest.warns(FutureWarning, match="clip_grad_norm` is now deprecated"):
        assert tl.nn.utils.clip_grad_norm(pl, 1.0).item() == pytest.approx(5.0)


def test_parameters_to_vector_round_trip():
    mt = torch.nn.Sequential(torch.nn.PReLU(3), torch.nn.PReLU(2))
    ml = tl.nn.Sequential(tl.nn.PReLU(3), tl.nn.PReLU(2))
    vt = torch.nn.utils.parameters_to_vector(mt.parameters())
    vl = tl.nn.utils.parameters_to_vector(ml.parameters())
    assert_same(vl.detach(), vt.detach())
    assert vl.requires_grad and vl.grad_fn is not None
    new = tl.arange(5.0)
    tl.nn.utils.vector_to_parameters(new, ml.parameters())
    assert [p.tolist() for p in ml.parameters()] == [[0.0, 1.0, 2.0], [3.0, 4.0]]
    assert type(ml[0].weight) is tl.nn.Parameter and ml[0].weight.requires_grad
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        tl.nn.utils.vector_to_parameters([1.0], ml.parameters())
    assert_same(from_torch(vt.detach()), vt.detach())
