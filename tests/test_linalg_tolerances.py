"""linalg.pinv and linalg.matrix_rank with tensor tolerances (PyTorch's atol_rtol_tensor, rcond_tensor
and tol_tensor overloads) against PyTorch: broadcasting of the tolerances against the batch, the
defaults (rtol eps * max(m, n), 0 where atol > 0), hermitian inputs, empty inputs, out=, errors and
gradients."""
import numpy as np
import pytest
import torch

import torchlite as tl


def pair(a):
    return tl.from_numpy(np.array(a)), torch.from_numpy(np.array(a))


def same(got, expected, rtol=1e-9, atol=1e-10):
    assert tuple(got.shape) == tuple(expected.shape)
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=rtol, atol=atol)


def graded(batch=3, m=5, n=4, seed=0, dtype="float64"):
    """Matrices with singular values 10, 1, 0.1, 0.01 (scaled per batch element): ranks depend on the cut."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(batch):
        u, _ = np.linalg.qr(rng.standard_normal((m, m)))
        v, _ = np.linalg.qr(rng.standard_normal((n, n)))
        s = np.zeros((m, n))
        np.fill_diagonal(s, np.array([10.0, 1.0, 0.1, 0.01][:min(m, n)]) * (i + 1))
        out.append(u @ s @ v.T)
    return pair(np.array(out).astype(dtype))


TOLS = [
    dict(atol=[0.05, 0.5, 5.0]),
    dict(rtol=[0.5, 0.05, 0.005]),
    dict(atol=0.5, rtol=[0.0, 0.2, 0.001]),
    dict(atol=[[0.05], [2.0]]),                 # broadcasts to a (2, 3) result
    dict(atol=0.0),                              # atol given and 0: rtol keeps its default
    dict(atol=0.5),                              # atol > 0: rtol defaults to 0
    dict(rtol=0.02),
    dict(),
]


def tensors(kw, lib, dtype="float64"):
    return {k: lib.tensor(v, dtype=getattr(lib, dtype)) for k, v in kw.items()}


# PyTorch warns where the tolerances widen the result (its out tensor of the batch's shape is resized).
@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
@pytest.mark.parametrize("kw", TOLS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matrix_rank_tensor_tolerances(kw, dtype):
    a, ta = graded(dtype=dtype)
    for tol_dtype in ("float32", "float64"):
        got = tl.linalg.matrix_rank(a, **tensors(kw, tl, tol_dtype))
        expected = torch.linalg.matrix_rank(ta, **tensors(kw, torch, tol_dtype))
        assert got.tolist() == expected.tolist() and got.dtype == tl.int64
        sym = a @ a.transpose(-2, -1)
        got = tl.linalg.matrix_rank(sym, hermitian=True, **tensors(kw, tl, tol_dtype))
        expected = torch.linalg.matrix_rank(ta @ ta.transpose(-2, -1), hermitian=True, **tensors(kw, torch, tol_dtype))
        assert got.tolist() == expected.tolist()


@pytest.mark.parametrize("kw", TOLS)
def test_pinv_tensor_tolerances(kw):
    a, ta = graded()
    same(tl.linalg.pinv(a, **tensors(kw, tl)), torch.linalg.pinv(ta, **tensors(kw, torch)), rtol=1e-7, atol=1e-8)
    sym, tsym = a @ a.transpose(-2, -1), ta @ ta.transpose(-2, -1)
    same(tl.linalg.pinv(sym, hermitian=True, **tensors(kw, tl)),
         torch.linalg.pinv(tsym, hermitian=True, **tensors(kw, torch)), rtol=1e-6, atol=1e-7)


def test_positional_tensor_rcond_and_tol():
    a, ta = graded()
    rcond = [0.5, 0.05, 0.005]
    same(tl.linalg.pinv(a, tl.tensor(rcond)), torch.linalg.pinv(ta, torch.tensor(rcond)), rtol=1e-7, atol=1e-8)
    sym, tsym = a @ a.transpose(-2, -1), ta @ ta.transpose(-2, -1)
    same(tl.linalg.pinv(sym, tl.tensor(rcond), True), torch.linalg.pinv(tsym, torch.tensor(rcond), True),
         rtol=1e-6, atol=1e-7)
    assert (tl.linalg.matrix_rank(a, tl.tensor([0.05, 0.5, 5.0])).tolist()
            == torch.linalg.matrix_rank(ta, torch.tensor([0.05, 0.5, 5.0])).tolist())
    # A 0-d tensor works like the number.
    assert tl.linalg.matrix_rank(a, tl.tensor(0.5)).tolist() == torch.linalg.matrix_rank(ta, torch.tensor(0.5)).tolist()


def test_noncontiguous_and_empty():
    a, ta = graded(batch=2, m=4, n=5)
    at, tat = a.transpose(-2, -1), ta.transpose(-2, -1)
    tol = [0.5, 0.05]
    same(tl.linalg.pinv(at, atol=tl.tensor(tol)), torch.linalg.pinv(tat, atol=torch.tensor(tol)), rtol=1e-7, atol=1e-8)
    assert (tl.linalg.matrix_rank(at, rtol=tl.tensor(tol)[::1]).tolist()
            == torch.linalg.matrix_rank(tat, rtol=torch.tensor(tol)).tolist())
    for shape in [(0, 3, 3), (2, 0, 3), (3, 0)]:
        e, te = tl.zeros(*shape, dtype=tl.float64), torch.zeros(*shape, dtype=torch.float64)
        same(tl.linalg.pinv(e, atol=tl.tensor(0.1)), torch.linalg.pinv(te, atol=torch.tensor(0.1)))
        same(tl.linalg.matrix_rank(e, atol=tl.tensor(0.1)), torch.linalg.matrix_rank(te, atol=torch.tensor(0.1)))


def test_out_and_errors():
    a, ta = graded()
    out = tl.empty(0, dtype=tl.float64)
    assert tl.linalg.pinv(a, atol=tl.tensor([0.05, 0.5, 5.0]), out=out) is out
    same(out, torch.linalg.pinv(ta, atol=torch.tensor([0.05, 0.5, 5.0])), rtol=1e-7, atol=1e-8)
    r = tl.empty(0, dtype=tl.int64)
    assert tl.linalg.matrix_rank(a, rtol=tl.tensor([0.5, 0.05, 0.005]), out=r) is r
    assert r.tolist() == torch.linalg.matrix_rank(ta, rtol=torch.tensor([0.5, 0.05, 0.005])).tolist()
    with pytest.raises(RuntimeError, match="linalg.pinv"):
        tl.linalg.pinv(a.long(), atol=tl.tensor(0.1))
    with pytest.raises(RuntimeError, match="linalg.pinv"):
        tl.linalg.pinv(tl.ones(3, dtype=tl.float64), atol=tl.tensor(0.1), rtol=tl.tensor(0.1))
    with pytest.raises(RuntimeError):  # tolerances that do not broadcast against the batch
        tl.linalg.matrix_rank(a, atol=tl.tensor([0.1, 0.2]))
    with pytest.raises(RuntimeError):
        torch.linalg.matrix_rank(ta, atol=torch.tensor([0.1, 0.2]))
    with pytest.raises(RuntimeError, match="doesn't handle types other than float and double"):
        tl.linalg.matrix_rank(a.long(), atol=tl.tensor(0.1))
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="torch.linalg.matrix_rank: The input tensor input must have at least 2"):
            lib.linalg.matrix_rank(lib.ones(3), atol=lib.tensor([0.1]))
        with pytest.raises(RuntimeError, match="linalg.pinv"):
            lib.linalg.pinv(lib.ones(3), rtol=0.1)
        with pytest.raises(IndexError):
            lib.linalg.pinv(lib.ones(3), atol=0.1)


def test_pinv_tensor_tolerance_gradients():
    a, ta = graded(batch=2)
    a.requires_grad_(), ta.requires_grad_()
    atol = [0.05, 0.5]  # cuts no value of the first matrix, one of the second
    got = tl.linalg.pinv(a, atol=tl.tensor(atol))
    expected = torch.linalg.pinv(ta, atol=torch.tensor(atol))
    g = np.random.default_rng(3).standard_normal(tuple(expected.shape))
    (ga,) = tl.autograd.grad(got, a, tl.from_numpy(g.copy()))
    (tga,) = torch.autograd.grad(expected, ta, torch.from_numpy(g.copy()))
    same(ga, tga, rtol=1e-6, atol=1e-8)
    w = tl.from_numpy(np.random.default_rng(4).standard_normal((2, 4, 3))).requires_grad_()
    assert tl.autograd.gradcheck(lambda x: tl.linalg.pinv(x, rtol=tl.tensor([1e-3, 1e-2], dtype=tl.float64)), (w,))
