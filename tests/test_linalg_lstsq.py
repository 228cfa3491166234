"""torch.linalg.lstsq against PyTorch: the four drivers' outputs (solution, when residuals, rank and
singular values exist, their shapes), PyTorch's batch rules (vector right-hand sides, broadcasting),
empty and non-contiguous inputs, rank-deficient inputs, errors, out=, and gradients (gradcheck and
PyTorch's values)."""
import numpy as np
import pytest
import torch

import torchlite as tl

DRIVERS = ["gels", "gelsy", "gelsd", "gelss"]
TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-9, atol=1e-10)}


def pair(shape, dtype="float64", seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return tl.from_numpy(a.copy()), torch.from_numpy(a.copy())


def same(got, expected, rtol=1e-9, atol=1e-10):
    assert tuple(got.shape) == tuple(expected.shape)
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=rtol, atol=atol)


def same_lstsq(got, expected, dtype="float64"):
    for name in ("solution", "residuals", "rank", "singular_values"):
        same(getattr(got, name), getattr(expected, name), **TOL[dtype])


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("a_shape, b_shape", [
    ((6, 4), (6, 3)),          # tall: residuals with gels/gelsd/gelss
    ((4, 6), (4, 2)),          # wide: the minimum-norm solution
    ((5, 5), (5, 1)),
    ((6, 4), (6,)),            # one vector
    ((3, 6, 4), (3, 6)),       # a batch of vectors
    ((2, 1, 6, 4), (1, 3, 6, 2)),  # broadcast batch: rank and singular values keep A's batch
    ((1, 6, 4), (4, 6, 2)),
    ((5, 5, 3), (5, 2)),       # B's first dims taken as its batch (PyTorch's rule)
])
def test_lstsq_matches_torch(a_shape, b_shape, dtype, driver):
    a, ta = pair(a_shape, dtype, seed=1)
    b, tb = pair(b_shape, dtype, seed=2)
    got, expected = tl.linalg.lstsq(a, b, driver=driver), torch.linalg.lstsq(ta, tb, driver=driver)
    same_lstsq(got, expected, dtype)
    assert type(got).__name__ == "linalg_lstsq" and got.rank.dtype == tl.int64
    # PyTorch's layout: the solution is a view of Fortran-ordered (max(m, n), k) work matrices.
    assert got.solution.stride() == expected.solution.stride()


@pytest.mark.parametrize("driver", DRIVERS)
def test_lstsq_noncontiguous_and_rcond(driver):
    a, ta = pair((3, 5, 7), seed=3)
    b, tb = pair((3, 2, 7), seed=4)
    # A transposed and sliced (3 x 7 x 3, strided), B transposed (3 x 7 x 2), B expanded (stride 0).
    args, targs = (a.transpose(-2, -1)[:, :, 1:4], b.transpose(-2, -1)), (ta.transpose(-2, -1)[:, :, 1:4],
                                                                         tb.transpose(-2, -1))
    same_lstsq(tl.linalg.lstsq(*args, driver=driver), torch.linalg.lstsq(*targs, driver=driver))
    same_lstsq(tl.linalg.lstsq(*args, 1e-3, driver=driver), torch.linalg.lstsq(*targs, 1e-3, driver=driver))
    same_lstsq(tl.linalg.lstsq(args[0], args[1][:1].expand(3, 7, 2), driver=driver),
               torch.linalg.lstsq(targs[0], targs[1][:1].expand(3, 7, 2), driver=driver))


@pytest.mark.parametrize("driver", ["gelsy", "gelsd", "gelss"])
def test_lstsq_rank_deficient(driver):
    # Column 2 repeats column 1 in the second matrix: rank 3 then 2; the minimum-norm solution;
    # gelsd/gelss give no residuals unless every matrix has full rank.
    a = np.random.default_rng(5).standard_normal((2, 6, 4))
    a[1, :, 2] = a[1, :, 1]
    b = np.random.default_rng(6).standard_normal((2, 6, 2))
    got = tl.linalg.lstsq(tl.from_numpy(a), tl.from_numpy(b), driver=driver)
    expected = torch.linalg.lstsq(torch.from_numpy(a), torch.from_numpy(b), driver=driver)
    if driver != "gelsy":
        same_lstsq(got, expected)
    # (PyTorch's MKL gelsy estimates rank 2 for the second matrix and returns another solution; the
    # reference LAPACK's gelsy finds rank 3 and the minimum-norm solution, as gelsd and NumPy.)
    assert got.rank.tolist() == [4, 3] and got.residuals.shape == (0,)
    np.testing.assert_allclose(got.solution.numpy(), np.linalg.pinv(a) @ b, atol=1e-9)
    if driver == "gelsy":
        return
    # rcond raises the cut: the smallest singular values drop out of the rank.
    s = np.linalg.svd(a[0], compute_uv=False)
    r = tl.linalg.lstsq(tl.from_numpy(a[0]), tl.from_numpy(b[0]), rcond=float(s[2] / s[0]) * 1.01, driver=driver)
    assert int(r.rank) == 2


def test_lstsq_zero_matrix_and_gels_rank_deficient():
    # gels on an all-zero A returns zeros (LAPACK's quick return); a rank-deficient A raises
    # LinAlgError naming the batch element, as PyTorch.
    a = np.zeros((2, 5, 3))
    a[1] = np.random.default_rng(7).standard_normal((5, 3))
    b = np.random.default_rng(8).standard_normal((2, 5, 2))
    same_lstsq(tl.linalg.lstsq(tl.from_numpy(a), tl.from_numpy(b), driver="gels"),
               torch.linalg.lstsq(torch.from_numpy(a), torch.from_numpy(b), driver="gels"))
    a[1, :, 1] = 0
    with pytest.raises(tl.linalg.LinAlgError, match=r"torch.linalg.lstsq: \(Batch element 1\): The least squares "
                                                    r"solution could not be computed .* full rank \(error code: 2\)"):
        tl.linalg.lstsq(tl.from_numpy(a), tl.from_numpy(b), driver="gels")
    with pytest.raises(RuntimeError, match=r"^torch.linalg.lstsq: The least squares .*error code: 2\)"):
        tl.linalg.lstsq(tl.from_numpy(a[1]), tl.from_numpy(b[1]), driver="gels")


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("a_shape, b_shape", [((0, 3), (0, 2)), ((5, 0), (5, 2)), ((2, 0, 3), (2, 0, 2)),
                                              ((0, 5, 3), (0, 5, 2)), ((2, 5, 3), (2, 5, 0))])
def test_lstsq_empty(a_shape, b_shape, driver):
    if driver in ("gelsd", "gelss") and b_shape[-1] == 0:
        # PyTorch's own call fails there (MKL refuses nrhs = 0; gelss crashes): the rank and singular
        # values of A, an empty solution.
        a, ta = pair(a_shape)
        r = tl.linalg.lstsq(a, pair(b_shape)[0], driver=driver)
        assert r.solution.shape == (2, 3, 0) and r.rank.tolist() == [3, 3]
        same(r.singular_values, torch.linalg.svdvals(ta))
        return
    a, ta = pair(a_shape)
    b, tb = pair(b_shape)
    same_lstsq(tl.linalg.lstsq(a, b, driver=driver), torch.linalg.lstsq(ta, tb, driver=driver))


def test_lstsq_driver_names_and_default():
    a, ta = pair((6, 4))
    b, tb = pair((6, 2), seed=1)
    same_lstsq(tl.linalg.lstsq(a, b, driver="GELSD"), torch.linalg.lstsq(ta, tb, driver="GELSD"))
    same_lstsq(tl.linalg.lstsq(a, b), torch.linalg.lstsq(ta, tb))  # gelsy
    same_lstsq(tl.linalg.lstsq(a, b, None), torch.linalg.lstsq(ta, tb, None))


@pytest.mark.parametrize("args, kwargs", [
    (((5,), (5,)), {}),
    (((5, 3), ()), {}),
    (((5, 3), (4, 2)), {}),
    (((5, 3), (4,)), {}),
    (((2, 5, 3), (2, 4)), {}),
    (((5, 3), (2, 5, 2)), {}),
    (((2, 1, 5, 3), (3, 5, 2)), {}),
    (((4, 5, 3), (5, 2)), {}),
    (((5, 3), (5, 2)), {"driver": "foo"}),
])
def test_lstsq_errors_like_torch(args, kwargs):
    (a, ta), (b, tb) = pair(args[0]), pair(args[1], seed=1)
    with pytest.raises(RuntimeError) as expected:
        torch.linalg.lstsq(ta, tb, **kwargs)
    with pytest.raises(RuntimeError) as got:
        tl.linalg.lstsq(a, b, **kwargs)
    assert str(got.value) == str(expected.value)


def test_lstsq_dtype_errors():
    a, _ = pair((5, 3))
    with pytest.raises(RuntimeError, match="Expected input and other to have the same dtype, but got input's dtype "
                                           "Double and other's dtype Float"):
        tl.linalg.lstsq(a, a.float())
    for dt in (tl.int64, tl.float16, tl.bfloat16):
        with pytest.raises(RuntimeError, match="doesn't handle types other than float and double"):
            tl.linalg.lstsq(a.to(dt), a.to(dt))
    with pytest.raises(NotImplementedError):
        tl.linalg.lstsq(tl.empty(5, 3, device="meta"), tl.empty(5, 2, device="meta"))


def test_lstsq_out():
    a, ta = pair((2, 6, 4))
    b, tb = pair((2, 6, 3), seed=1)
    outs = (tl.empty(0, dtype=tl.float64), tl.empty(0, dtype=tl.float64), tl.empty(0, dtype=tl.int64),
            tl.empty(0, dtype=tl.float64))
    r = tl.linalg.lstsq(a, b, driver="gelsd", out=outs)
    assert all(x is y for x, y in zip(r, outs))
    same_lstsq(r, torch.linalg.lstsq(ta, tb, driver="gelsd"))
    # Other dtypes that PyTorch accepts (casting), and one it refuses.
    outs = (tl.empty(0, dtype=tl.float32), tl.empty(0, dtype=tl.float16), tl.empty(0, dtype=tl.int16),
            tl.empty(0, dtype=tl.float64))
    tl.linalg.lstsq(a, b, driver="gelsd", out=outs)
    expected = torch.linalg.lstsq(ta, tb, driver="gelsd")
    np.testing.assert_allclose(outs[0].numpy(), expected.solution.numpy(), rtol=1e-5)
    assert outs[2].tolist() == expected.rank.tolist()
    for bad in (0, 2):
        outs = [tl.empty(0, dtype=tl.float64), tl.empty(0, dtype=tl.float64), tl.empty(0, dtype=tl.int64),
                tl.empty(0, dtype=tl.float64)]
        outs[bad] = tl.empty(0, dtype=tl.int64 if bad == 0 else tl.bool)
        with pytest.raises(RuntimeError):
            tl.linalg.lstsq(a, b, driver="gelsd", out=tuple(outs))


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("a_shape, b_shape", [((5, 3), (5, 2)), ((3, 5), (3, 2)), ((2, 5, 3), (2, 5)),
                                              ((1, 5, 3), (2, 5, 2))])
def test_lstsq_gradients_like_torch(a_shape, b_shape, driver):
    a_np = np.random.default_rng(11).standard_normal(a_shape)
    b_np = np.random.default_rng(12).standard_normal(b_shape)
    if driver == "gels" and a_shape[-2] < a_shape[-1]:
        driver = "gelsy"  # gels' wide solution is not the minimum-norm one that the formula assumes
    a, b = tl.from_numpy(a_np.copy()).requires_grad_(), tl.from_numpy(b_np.copy()).requires_grad_()
    ta, tb = torch.from_numpy(a_np.copy()).requires_grad_(), torch.from_numpy(b_np.copy()).requires_grad_()
    x, tx = tl.linalg.lstsq(a, b, driver=driver).solution, torch.linalg.lstsq(ta, tb, driver=driver).solution
    g_np = np.random.default_rng(13).standard_normal(tuple(tx.shape))
    ga, gb = tl.autograd.grad(x, (a, b), tl.from_numpy(g_np.copy()))
    tga, tgb = torch.autograd.grad(tx, (ta, tb), torch.from_numpy(g_np.copy()))
    same(ga, tga, rtol=1e-8, atol=1e-10)
    same(gb, tgb, rtol=1e-8, atol=1e-10)
    assert not tl.linalg.lstsq(a, b, driver=driver).rank.requires_grad


@pytest.mark.parametrize("driver", ["gels", "gelsd", "gelss"])
@pytest.mark.parametrize("a_shape, b_shape", [((6, 3), (6, 2)), ((2, 5, 3), (2, 5)), ((1, 5, 3), (2, 5, 2))])
def test_lstsq_residual_gradients_like_torch(a_shape, b_shape, driver):
    # The residuals are differentiable too (full column rank, m > n): with the solution's gradient.
    a_np = np.random.default_rng(21).standard_normal(a_shape)
    b_np = np.random.default_rng(22).standard_normal(b_shape)
    a, b = tl.from_numpy(a_np.copy()).requires_grad_(), tl.from_numpy(b_np.copy()).requires_grad_()
    ta, tb = torch.from_numpy(a_np.copy()).requires_grad_(), torch.from_numpy(b_np.copy()).requires_grad_()
    r, tr = tl.linalg.lstsq(a, b, driver=driver), torch.linalg.lstsq(ta, tb, driver=driver)
    assert r.residuals.requires_grad and tr.residuals.requires_grad and r.residuals.numel() > 0
    g_res = np.random.default_rng(23).standard_normal(tuple(tr.residuals.shape))
    g_sol = np.random.default_rng(24).standard_normal(tuple(tr.solution.shape))
    got = tl.autograd.grad((r.residuals, r.solution), (a, b), (tl.from_numpy(g_res.copy()), tl.from_numpy(g_sol.copy())))
    expected = torch.autograd.grad((tr.residuals, tr.solution), (ta, tb),
                                   (torch.from_numpy(g_res.copy()), torch.from_numpy(g_sol.copy())))
    for x, y in zip(got, expected):
        same(x, y, rtol=1e-8, atol=1e-10)
    assert tl.autograd.gradcheck(lambda a, b: tl.linalg.lstsq(a, b, driver=driver).residuals, (a, b))


def test_lstsq_gradcheck():
    a = tl.from_numpy(np.random.default_rng(14).standard_normal((2, 5, 3))).requires_grad_()
    b = tl.from_numpy(np.random.default_rng(15).standard_normal((2, 5, 2))).requires_grad_()
    assert tl.autograd.gradcheck(lambda a, b: tl.linalg.lstsq(a, b).solution, (a, b))
    assert tl.autograd.gradgradcheck(lambda a, b: tl.linalg.lstsq(a, b).solution, (a, b))
    w = tl.from_numpy(np.random.default_rng(16).standard_normal((3, 5))).requires_grad_()
    assert tl.autograd.gradcheck(lambda w, v: tl.linalg.lstsq(w, v, driver="gelsd").solution,
                                 (w, tl.from_numpy(np.random.default_rng(17).standard_normal(3)).requires_grad_()))
