"""The legacy torch.lu / Tensor.lu (Python over _lu_with_info, as PyTorch's torch/functional.py) and
torch.lu_unpack on their results, against PyTorch: get_infos, out=, batches, singular inputs and
gradients."""
import numpy as np
import pytest
import torch

import torchlite as tl


def pair(shape, seed=0, dtype="float64"):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return tl.from_numpy(a.copy()), torch.from_numpy(a.copy())


def same(got, expected, rtol=1e-7, atol=1e-9):
    assert tuple(got.shape) == tuple(expected.shape)
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5), (3, 5, 3), (0, 2, 2), (3, 0)])
def test_lu_like_torch(shape, dtype):
    a, ta = pair(shape, dtype=dtype)
    got, expected = tl.lu(a), torch.lu(ta)
    assert isinstance(got, tuple) and len(got) == 2
    for x, y in zip(got, expected):
        same(x, y, rtol=1e-5)
    got, expected = tl.lu(a, get_infos=True), torch.lu(ta, get_infos=True)
    assert len(got) == 3
    for x, y in zip(got, expected):
        same(x, y, rtol=1e-5)
    for x, y in zip(a.lu(), ta.lu()):
        same(x, y, rtol=1e-5)
    for x, y in zip(a.lu(get_infos=True), ta.lu(get_infos=True)):
        same(x, y, rtol=1e-5)
    P, L, U = tl.lu_unpack(*tl.lu(a))
    same(P @ L @ U, ta, rtol=1e-5, atol=1e-5)


def test_lu_singular_and_pivot_false():
    a = np.random.default_rng(1).standard_normal((3, 4, 4))
    a[1, :, 2] = 0
    LU, piv, info = tl.lu(tl.from_numpy(a), get_infos=True)
    tLU, tpiv, tinfo = torch.lu(torch.from_numpy(a), get_infos=True)
    assert info.tolist() == tinfo.tolist() and info.tolist()[1] > 0
    same(LU, tLU)
    tl.lu(tl.from_numpy(a))  # without get_infos PyTorch does not raise either
    with pytest.raises(RuntimeError) as expected:
        torch.lu(torch.from_numpy(a), pivot=False)
    with pytest.raises(RuntimeError) as got:
        tl.lu(tl.from_numpy(a), pivot=False)
    assert str(got.value) == str(expected.value)
    with pytest.raises(RuntimeError):
        tl.lu(tl.ones(4, 4, dtype=tl.int64))


def test_lu_out():
    a, ta = pair((2, 3, 3))
    outs = (tl.empty(0, dtype=tl.float64), tl.empty(0, dtype=tl.int32))
    assert tl.lu(a, out=outs) is outs
    for x, y in zip(outs, torch.lu(ta)):
        same(x, y)
    outs3 = [tl.empty(0, dtype=tl.float64), tl.empty(0, dtype=tl.int32), tl.empty(0, dtype=tl.int32)]
    tl.lu(a, get_infos=True, out=outs3)
    assert outs3[2].tolist() == [0, 0]
    with pytest.raises(TypeError, match="expected tuple of 2 elements but got 3"):
        tl.lu(a, out=tuple(outs3))
    with pytest.raises(TypeError, match="expected tuple of 3 elements but got 2"):
        tl.lu(a, get_infos=True, out=outs)


def test_lu_gradient_like_torch():
    a, ta = pair((2, 4, 4))
    a.requires_grad_(), ta.requires_grad_()
    g = np.random.default_rng(2).standard_normal((2, 4, 4))
    (ga,) = tl.autograd.grad(tl.lu(a)[0], a, tl.from_numpy(g.copy()))
    (tga,) = torch.autograd.grad(torch.lu(ta)[0], ta, torch.from_numpy(g.copy()))
    same(ga, tga)
    assert tl.autograd.gradcheck(lambda x: a.lu()[0] if x is None else x.lu()[0], (a,))


def test_lu_warns_deprecation_once():
    import torchlite._lu as lu_module
    lu_module._warned = False
    with pytest.warns(UserWarning, match="torch.lu is deprecated in favor of torch.linalg.lu_factor"):
        tl.lu(tl.eye(3))
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tl.eye(3).lu()  # once per process, as PyTorch's TORCH_WARN_ONCE
