"""The paths torch.linalg's LU-based ops take for speed (cpu/LuBlocked.h, cpu/FortranCopy.h,
cpu/LinalgSolve.cpp): a single large matrix factored with its trailing update split across threads,
getrs split over the right-hand sides' columns, and every input copied into LAPACK's buffers inside
the batch loop (transposed, strided, broadcast and batch-of-one inputs). Checked against PyTorch
with the thread count at 1 (one getrf call), 2 and 3 (fewer matrices than threads)."""
import numpy as np
import pytest
import torch

import torchlite as tl

TOL = {"float32": dict(rtol=1e-4, atol=1e-5), "float64": dict(rtol=1e-9, atol=1e-10)}


@pytest.fixture(params=[1, 2, 3])
def threads(request):
    before = tl.get_num_threads()
    tl.set_num_threads(request.param)
    yield request.param
    tl.set_num_threads(before)


def scrambled(shape, dtype, seed=0):
    """Well-conditioned matrices (n on the diagonal) with their rows shuffled: partial pivoting must
    swap rows back at almost every step, and the results stay comparable at tight tolerances."""
    rng = np.random.default_rng(seed)
    n = shape[-1]
    a = rng.standard_normal(shape) + n * np.eye(shape[-2], n)
    a = a[..., rng.permutation(shape[-2]), :]
    return np.ascontiguousarray(a.astype(dtype))


def same(got, expected, dtype):
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), **TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(300, 300), (1, 256, 256), (2, 260, 260), (400, 270), (270, 400), (2, 3, 130, 130)])
def test_lu_factor_large(shape, dtype, threads):
    a = scrambled(shape, dtype)
    LU, piv, info = tl.linalg.lu_factor_ex(tl.from_numpy(a))
    tLU, tpiv, tinfo = torch.linalg.lu_factor_ex(torch.from_numpy(a))
    same(LU, tLU, dtype)
    assert piv.tolist() == tpiv.tolist() and info.tolist() == tinfo.tolist()
    assert LU.stride() == tLU.stride()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lu_factor_large_random_pivots(dtype, threads):
    # Unscaled random matrices: pivots from every row, LU entries growing; float64 to compare tightly.
    a = np.random.default_rng(3).standard_normal((257, 257))
    LU, piv = tl.linalg.lu_factor(tl.from_numpy(a))
    tLU, tpiv = torch.linalg.lu_factor(torch.from_numpy(a))
    assert piv.tolist() == tpiv.tolist()
    np.testing.assert_allclose(LU.numpy(), tLU.numpy(), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("layout", ["transposed", "strided", "expanded"])
def test_lu_factor_large_noncontiguous(layout, threads):
    base = scrambled((2, 260, 260), "float64")
    t = torch.from_numpy(base)
    l = tl.from_numpy(base)
    if layout == "transposed":
        t, l = t.transpose(-2, -1), l.transpose(-2, -1)
    elif layout == "strided":
        t, l = t[:, ::2, ::2], l[:, ::2, ::2]
    else:
        t, l = t[:1].expand(3, 260, 260), l[:1].expand(3, 260, 260)
    LU, piv = tl.linalg.lu_factor(l)
    tLU, tpiv = torch.linalg.lu_factor(t)
    same(LU, tLU, "float64")
    assert piv.tolist() == tpiv.tolist()


def test_singular_large_reports_batch_element(threads):
    a = scrambled((2, 264, 264), "float64")
    a[1, :, 100] = 0  # element 1 singular: U[100, 100] (1-based 101) is exactly zero
    la, ta = tl.from_numpy(a.copy()), torch.from_numpy(a.copy())
    assert tl.linalg.lu_factor_ex(la)[2].tolist() == torch.linalg.lu_factor_ex(ta)[2].tolist()
    with pytest.raises(tl.linalg.LinAlgError, match=r"linalg.inv: \(Batch element 1\): The diagonal element 101 is zero"):
        tl.linalg.inv(la)
    with pytest.raises(tl.linalg.LinAlgError, match=r"\(Batch element 1\)"):
        tl.linalg.solve(la, tl.ones(2, 264, 3, dtype=tl.float64))
    single = tl.from_numpy(a[1].copy())
    with pytest.raises(tl.linalg.LinAlgError, match=r"^linalg.inv: The diagonal element 101 is zero"):
        tl.linalg.inv(single)
    assert tl.linalg.inv_ex(single)[1].item() == 101


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("left", [True, False])
def test_solve_and_inv_large(dtype, left, threads):
    a = scrambled((300, 300), dtype)
    # 400 right-hand sides: split over the threads' column blocks (40: one task)
    b = np.random.default_rng(1).standard_normal((300, 400) if left else (400, 300)).astype(dtype)
    same(tl.linalg.solve(tl.from_numpy(a), tl.from_numpy(b), left=left),
         torch.linalg.solve(torch.from_numpy(a), torch.from_numpy(b), left=left), dtype)
    same(tl.linalg.inv(tl.from_numpy(a)), torch.linalg.inv(torch.from_numpy(a)), dtype)
    # a transposed A and B (Fortran-ordered already: no copy of A's factor) and a strided B
    ta, tb = torch.from_numpy(a).mT, torch.from_numpy(b).mT
    la, lb = tl.from_numpy(a).mT, tl.from_numpy(b).mT
    same(tl.linalg.solve(la, lb.mT, left=left), torch.linalg.solve(ta, tb.mT, left=left), dtype)
    same(tl.linalg.inv(la), torch.linalg.inv(ta), dtype)
    strided_l = tl.from_numpy(b)[:, ::2] if left else tl.from_numpy(b)[::2]
    strided_t = torch.from_numpy(b)[:, ::2] if left else torch.from_numpy(b)[::2]
    same(tl.linalg.solve(tl.from_numpy(a), strided_l, left=left), torch.linalg.solve(torch.from_numpy(a), strided_t, left=left),
         dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lu_solve_broadcast_and_adjoint(dtype, threads):
    a = scrambled((1, 280, 280), dtype)
    b = np.random.default_rng(2).standard_normal((3, 280, 300)).astype(dtype)
    LU, piv = tl.linalg.lu_factor(tl.from_numpy(a))
    tLU, tpiv = torch.linalg.lu_factor(torch.from_numpy(a))
    lb, tb = tl.from_numpy(b), torch.from_numpy(b)
    for kw in [dict(), dict(adjoint=True), dict(left=False), dict(left=False, adjoint=True)]:
        rhs_l, rhs_t = (lb, tb) if kw.get("left", True) else (lb.mT, tb.mT)
        same(tl.linalg.lu_solve(LU, piv, rhs_l, **kw), torch.linalg.lu_solve(tLU, tpiv, rhs_t, **kw), dtype)
    # a strided right-hand side, one matrix (split over its columns)
    same(tl.linalg.lu_solve(LU[0], piv[0], lb[0, :, ::3]), torch.linalg.lu_solve(tLU[0], tpiv[0], tb[0, :, ::3]), dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_det_large(dtype, threads):
    a = scrambled((2, 300, 300), dtype) / 300  # |det| within range
    la, ta = tl.from_numpy(a), torch.from_numpy(a)
    s, ld = tl.linalg.slogdet(la)
    ts, tld = torch.linalg.slogdet(ta)
    assert s.tolist() == ts.tolist()
    # a sum of 300 logarithms: float32 rounding adds up in absolute terms
    np.testing.assert_allclose(ld.numpy(), tld.numpy(), rtol=1e-10, atol=1e-4 if dtype == "float32" else 1e-10)
    np.testing.assert_allclose(tl.linalg.det(la[0]).numpy(), torch.linalg.det(ta[0]).numpy(),
                               rtol=1e-3 if dtype == "float32" else 1e-9)


@pytest.mark.parametrize("shape,bshape", [((0, 0), (0, 4)), ((2, 0, 0), (2, 0, 3)), ((3, 3), (3, 0)),
                                          ((0, 5, 5), (0, 5, 2))])
def test_empty(shape, bshape, threads):
    la, ta = tl.zeros(*shape, dtype=tl.float64), torch.zeros(*shape, dtype=torch.float64)
    if shape[-1]:
        la, ta = la + tl.eye(shape[-1], dtype=tl.float64), ta + torch.eye(shape[-1], dtype=torch.float64)
    lb, tb = tl.ones(*bshape, dtype=tl.float64), torch.ones(*bshape, dtype=torch.float64)
    got, exp = tl.linalg.solve(la, lb), torch.linalg.solve(ta, tb)
    assert tuple(got.shape) == tuple(exp.shape)
    np.testing.assert_array_equal(got.numpy(), exp.numpy())
    got, exp = tl.linalg.inv(la), torch.linalg.inv(ta)
    assert tuple(got.shape) == tuple(exp.shape)
    np.testing.assert_array_equal(got.numpy(), exp.numpy())


def test_gradients_large(threads):
    a = scrambled((260, 260), "float64")
    b = np.random.default_rng(4).standard_normal((260, 5))
    la, lb = tl.from_numpy(a).requires_grad_(), tl.from_numpy(b).requires_grad_()
    ta, tb = torch.from_numpy(a).requires_grad_(), torch.from_numpy(b).requires_grad_()
    (tl.linalg.solve(la, lb).sum() + tl.linalg.inv(la).sum()).backward()
    (torch.linalg.solve(ta, tb).sum() + torch.linalg.inv(ta).sum()).backward()
    np.testing.assert_allclose(la.grad.numpy(), ta.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(lb.grad.numpy(), tb.grad.numpy(), rtol=1e-9, atol=1e-12)
