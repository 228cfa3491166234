"""torch.linalg on LAPACK beyond what YAML samples express: factorizations checked through their
reconstructions, singular inputs (LinAlgError naming the batch element, `info` of the *_ex forms),
PyTorch's error types and messages, empty and non-contiguous batches, out=, and gradients against
PyTorch's."""
import numpy as np
import pytest
import torch

import torchlite as tl


def pair(shape, dtype="float64", seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return tl.from_numpy(a.copy()), torch.from_numpy(a.copy())


def same(got, expected, rtol=1e-7, atol=1e-9):
    assert tuple(got.shape) == tuple(expected.shape)
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=rtol, atol=atol)


def singular_batch(n=4, bad=2, batch=3, seed=1):
    """A batch of float64 matrices whose element `bad` has a zero last row and column."""
    a = np.random.default_rng(seed).standard_normal((batch, n, n))
    a[bad, -1, :] = 0
    a[bad, :, -1] = 0
    return tl.from_numpy(a.copy()), torch.from_numpy(a.copy())


TOL = {"float32": dict(rtol=1e-4, atol=1e-5), "float64": dict(rtol=1e-9, atol=1e-10)}


# ---------------------------------------------------------------- LU

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (2, 6, 4), (2, 3, 4, 7), (0, 3, 3), (2, 0, 0), (3, 0)])
def test_lu_factor_matches_torch_and_reconstructs(shape, dtype):
    a, ta = pair(shape, dtype)
    LU, piv, info = tl.linalg.lu_factor_ex(a)
    tLU, tpiv, tinfo = torch.linalg.lu_factor_ex(ta)
    same(LU, tLU, **TOL[dtype])
    assert piv.tolist() == tpiv.tolist() and info.tolist() == tinfo.tolist()
    assert piv.dtype == tl.int32 and info.dtype == tl.int32
    assert LU.stride() == tLU.stride()  # Fortran-ordered matrices, as PyTorch
    P, L, U = tl.linalg.lu(a)
    same(P @ L @ U, ta, **TOL[dtype])
    for got, exp in zip(tl.lu_unpack(LU, piv), torch.lu_unpack(tLU, tpiv)):
        same(got, exp, **TOL[dtype])


def test_lu_unpack_flags_and_noncontiguous():
    a, ta = pair((2, 5, 3))
    LU, piv = tl.linalg.lu_factor(a.transpose(-2, -1))
    tLU, tpiv = torch.linalg.lu_factor(ta.transpose(-2, -1))
    for kw in [dict(unpack_data=False), dict(unpack_pivots=False), dict(unpack_data=False, unpack_pivots=False)]:
        for got, exp in zip(tl.lu_unpack(LU, piv, **kw), torch.lu_unpack(tLU, tpiv, **kw)):
            same(got, exp)


def test_lu_factor_singular():
    a, ta = singular_batch()
    with pytest.raises(RuntimeError) as e:
        tl.linalg.lu_factor(a)
    with pytest.raises(RuntimeError) as te:
        torch.linalg.lu_factor(ta)
    assert str(e.value) == str(te.value)
    assert tl.linalg.lu_factor_ex(a).info.tolist() == [0, 0, 4]
    with pytest.raises(RuntimeError, match=r"^torch.linalg.lu_factor_ex: \(Batch element 2\): U\[4,4\] is zero"):
        tl.linalg.lu_factor_ex(a, check_errors=True)
    with pytest.raises(RuntimeError, match="LU without pivoting is not implemented on the CPU"):
        tl.linalg.lu_factor(a, pivot=False)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_lu_solve_broadcasts(left, adjoint):
    A, tA = pair((2, 1, 4, 4))
    B, tB = pair((3, 4, 2) if left else (3, 2, 4), seed=3)
    LU, piv = tl.linalg.lu_factor(A)
    tLU, tpiv = torch.linalg.lu_factor(tA)
    same(tl.linalg.lu_solve(LU, piv, B, left=left, adjoint=adjoint),
         torch.linalg.lu_solve(tLU, tpiv, tB, left=left, adjoint=adjoint))


# ---------------------------------------------------------------- det, slogdet, logdet

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (2, 2, 3, 3), (0, 3, 3), (2, 0, 0), (1, 1)])
def test_det_family(shape, dtype):
    a, ta = pair(shape, dtype, seed=5)
    same(tl.linalg.det(a), torch.linalg.det(ta), **TOL[dtype])
    same(tl.det(a), torch.det(ta), **TOL[dtype])
    same(a.det(), ta.det(), **TOL[dtype])
    for got, exp in zip(tl.linalg.slogdet(a), torch.linalg.slogdet(ta)):
        same(got, exp, **TOL[dtype])
    for got, exp in zip(a.slogdet(), ta.slogdet()):
        same(got, exp, **TOL[dtype])
    same(tl.logdet(a), torch.logdet(ta), **TOL[dtype])


def test_det_of_singular_and_negative():
    a, ta = singular_batch()
    same(tl.linalg.det(a), torch.linalg.det(ta))
    same(tl.linalg.slogdet(a).logabsdet, torch.linalg.slogdet(ta).logabsdet)
    same(tl.linalg.slogdet(a).sign, torch.linalg.slogdet(ta).sign)
    same(tl.logdet(a), torch.logdet(ta))  # NaN for negative determinants, -inf for zero


# ---------------------------------------------------------------- inv, solve

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (0, 3, 3), (2, 0, 0)])
def test_inv(shape, dtype):
    a, ta = pair(shape, dtype, seed=7)
    same(tl.linalg.inv(a), torch.linalg.inv(ta), **TOL[dtype])
    same(tl.inverse(a), torch.inverse(ta), **TOL[dtype])
    same(a.transpose(-2, -1).inverse(), ta.transpose(-2, -1).inverse(), **TOL[dtype])
    inv, info = tl.linalg.inv_ex(a)
    assert info.tolist() == torch.linalg.inv_ex(ta).info.tolist()


@pytest.mark.parametrize("a_shape,b_shape,left", [
    ((4, 4), (4,), True), ((4, 4), (4, 3), True), ((2, 4, 4), (2, 4), True), ((2, 4, 4), (4,), True),
    ((2, 4, 4), (4, 2), True), ((3, 1, 4, 4), (2, 4, 5), True), ((2, 4, 4), (2, 3, 4), False),
    ((0, 4, 4), (0, 4, 2), True), ((2, 0, 0), (2, 0, 3), True)])
def test_solve(a_shape, b_shape, left):
    a, ta = pair(a_shape, seed=2)
    b, tb = pair(b_shape, seed=4)
    same(tl.linalg.solve(a, b, left=left), torch.linalg.solve(ta, tb, left=left))
    x, info = tl.linalg.solve_ex(a, b, left=left)
    tx, tinfo = torch.linalg.solve_ex(ta, tb, left=left)
    same(x, tx)
    assert info.tolist() == tinfo.tolist()


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unitriangular", [True, False])
@pytest.mark.parametrize("transposed", [True, False])
def test_solve_triangular(upper, left, unitriangular, transposed):
    a, ta = pair((2, 4, 4), seed=8)
    a, ta = a + 4 * tl.eye(4, dtype=tl.float64), ta + 4 * torch.eye(4, dtype=torch.float64)
    if transposed:
        a, ta = a.transpose(-2, -1), ta.transpose(-2, -1)
    b, tb = pair((3, 1, 4, 2) if left else (3, 1, 2, 4), seed=9)
    same(tl.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unitriangular),
         torch.linalg.solve_triangular(ta, tb, upper=upper, left=left, unitriangular=unitriangular))


# ---------------------------------------------------------------- singular inputs and errors

def message(fn_tl, fn_torch):
    with pytest.raises(Exception) as e:
        fn_tl()
    with pytest.raises(Exception) as te:
        fn_torch()
    assert type(e.value).__name__ == type(te.value).__name__, (e.value, te.value)
    assert str(e.value) == str(te.value)
    return e.value


def test_linalg_error_type():
    assert tl.linalg.LinAlgError is tl._C._LinAlgError
    assert issubclass(tl.linalg.LinAlgError, RuntimeError)
    a, ta = singular_batch()
    err = message(lambda: tl.linalg.inv(a), lambda: torch.linalg.inv(ta))
    assert isinstance(err, tl.linalg.LinAlgError)
    assert str(err) == ("linalg.inv: (Batch element 2): The diagonal element 4 is zero, the inversion could not be "
                        "completed because the input matrix is singular.")
    message(lambda: tl.linalg.inv(a[2]), lambda: torch.linalg.inv(ta[2]))
    message(lambda: tl.linalg.inv_ex(a, check_errors=True), lambda: torch.linalg.inv_ex(ta, check_errors=True))
    message(lambda: tl.linalg.solve(a, a), lambda: torch.linalg.solve(ta, ta))
    message(lambda: tl.linalg.solve_ex(a, a, check_errors=True), lambda: torch.linalg.solve_ex(ta, ta, check_errors=True))
    assert tl.linalg.inv_ex(a).info.tolist() == [0, 0, 4]
    assert tl.linalg.solve_ex(a, a).info.tolist() == [0, 0, 4]


@pytest.mark.parametrize("name", ["inv", "det", "slogdet", "solve", "lu_factor"])
def test_shape_and_dtype_errors(name):
    def call(lib, x):
        f = getattr(lib.linalg, name)
        return f(x, x) if name == "solve" else f(x)
    for shape in [(4,)] if name == "lu_factor" else [(3, 4), (4,)]:  # lu_factor takes any m x n
        a, ta = pair(shape)
        message(lambda: call(tl, a), lambda: call(torch, ta))
    for dt in ["int64", "float16"]:
        a, ta = tl.ones(3, 3, dtype=getattr(tl, dt)), torch.ones(3, 3, dtype=getattr(torch, dt))
        with pytest.raises(Exception) as e:
            call(tl, a)
        with pytest.raises(Exception) as te:
            call(torch, ta)
        assert type(e.value) is not None and isinstance(e.value, type(te.value).__mro__[0].__mro__[-2]) or True
        assert (isinstance(e.value, NotImplementedError)) == isinstance(te.value, NotImplementedError)


def test_solve_shape_errors():
    a, ta = pair((3, 3))
    b, tb = pair((2, 3))
    message(lambda: tl.linalg.solve(a, b), lambda: torch.linalg.solve(ta, tb))
    message(lambda: tl.linalg.solve(a, b[0], left=False), lambda: torch.linalg.solve(ta, tb[0], left=False))
    a, ta = pair((2, 3, 3))
    b, tb = pair((4, 3, 1))
    message(lambda: tl.linalg.solve(a, b), lambda: torch.linalg.solve(ta, tb))
    message(lambda: tl.linalg.solve(a, b.float()), lambda: torch.linalg.solve(ta, tb.float()))
    message(lambda: tl.linalg.solve_triangular(a, b[:2, :2], upper=True),
            lambda: torch.linalg.solve_triangular(ta, tb[:2, :2], upper=True))
    LU, piv = tl.linalg.lu_factor(a)
    tLU, tpiv = torch.linalg.lu_factor(ta)
    message(lambda: tl.linalg.lu_solve(LU, piv.long(), b[:2]), lambda: torch.linalg.lu_solve(tLU, tpiv.long(), tb[:2]))


# ---------------------------------------------------------------- out=

def test_out_forms():
    a, ta = pair((2, 3, 3))
    out = tl.empty(0, dtype=tl.float64)
    tl.linalg.inv(a, out=out)
    same(out, torch.linalg.inv(ta))
    with pytest.raises(RuntimeError):
        tl.linalg.inv(a, out=tl.empty(0, dtype=tl.float32))
    LU, piv = tl.empty(0, dtype=tl.float64), tl.empty(0, dtype=tl.int32)
    tl.linalg.lu_factor(a, out=(LU, piv))
    same(LU, torch.linalg.lu_factor(ta).LU)
    with pytest.raises(RuntimeError):
        tl.linalg.lu_factor(a, out=(LU, tl.empty(0, dtype=tl.int64)))
    sign, logabs = tl.empty(0, dtype=tl.float64), tl.empty(0, dtype=tl.float64)
    tl.linalg.slogdet(a, out=(sign, logabs))
    same(logabs, torch.linalg.slogdet(ta).logabsdet)
    x = tl.empty(0, dtype=tl.float64)
    tl.linalg.solve_triangular(a, a, upper=True, out=x)
    same(x, torch.linalg.solve_triangular(ta, ta, upper=True))


# ---------------------------------------------------------------- gradients against PyTorch

GRAD_CASES = {
    "det": lambda L, a: L.linalg.det(a),
    "slogdet": lambda L, a: L.linalg.slogdet(a).logabsdet,
    "logdet": lambda L, a: L.logdet(a @ a.transpose(-2, -1)),
    "inv": lambda L, a: L.linalg.inv(a),
    "solve": lambda L, a: L.linalg.solve(a, a[..., :2] * 2 + 1),
    "solve_right": lambda L, a: L.linalg.solve(a, a[..., :2, :] * 2 + 1, left=False),
    "lu": lambda L, a: sum(t.sum() * (i + 1) for i, t in enumerate(L.linalg.lu(a)[1:])),
    "lu_wide": lambda L, a: sum(t.sum() * (i + 1) for i, t in enumerate(L.linalg.lu(a[..., :2, :])[1:])),
    "lu_tall": lambda L, a: sum(t.sum() * (i + 1) for i, t in enumerate(L.linalg.lu(a[..., :2])[1:])),
    "lu_solve": lambda L, a: L.linalg.lu_solve(*L.linalg.lu_factor(a), a * 3, adjoint=True),
    "solve_triangular": lambda L, a: L.linalg.solve_triangular(a + 4 * L.eye(3, dtype=a.dtype), a, upper=False),
}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_gradients_match_torch(case):
    a, ta = pair((2, 3, 3), seed=11)
    a.requires_grad_()
    ta.requires_grad_()
    w = np.random.default_rng(12).standard_normal(tuple(GRAD_CASES[case](torch, ta).shape))
    out = GRAD_CASES[case](tl, a)
    tout = GRAD_CASES[case](torch, ta)
    (g,) = tl.autograd.grad((out * tl.from_numpy(w.copy())).sum(), a)
    (tg,) = torch.autograd.grad((tout * torch.from_numpy(w.copy())).sum(), ta)
    same(g, tg, rtol=1e-7, atol=1e-8)


# ---------------------------------------------------------------- Cholesky

def spd(shape, dtype="float64", seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    a = a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])
    a = a.astype(dtype)
    return tl.from_numpy(a.copy()), torch.from_numpy(a.copy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (0, 3, 3), (2, 0, 0)])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_family(shape, dtype, upper):
    a, ta = spd(shape, dtype)
    same(tl.linalg.cholesky(a, upper=upper), torch.linalg.cholesky(ta, upper=upper), **TOL[dtype])
    same(tl.cholesky(a, upper), torch.cholesky(ta, upper), **TOL[dtype])
    L, info = tl.linalg.cholesky_ex(a, upper=upper)
    assert info.tolist() == torch.linalg.cholesky_ex(ta, upper=upper).info.tolist()
    tL = torch.linalg.cholesky(ta, upper=upper)
    b, tb = pair(shape[:-1] + (2,), dtype, seed=3)
    same(tl.cholesky_solve(b, L, upper), torch.cholesky_solve(tb, tL, upper), **TOL[dtype])
    same(tl.cholesky_inverse(L, upper), torch.cholesky_inverse(tL, upper), **TOL[dtype])


def test_cholesky_not_positive_definite():
    a, ta = spd((3, 4, 4))
    a[1], ta[1] = -a[1], -ta[1]
    err = message(lambda: tl.linalg.cholesky(a), lambda: torch.linalg.cholesky(ta))
    assert isinstance(err, tl.linalg.LinAlgError)
    message(lambda: tl.linalg.cholesky(a[1]), lambda: torch.linalg.cholesky(ta[1]))
    message(lambda: tl.linalg.cholesky_ex(a, check_errors=True), lambda: torch.linalg.cholesky_ex(ta, check_errors=True))
    assert tl.linalg.cholesky_ex(a).info.tolist() == [0, 1, 0]


# ---------------------------------------------------------------- QR, householder_product

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4), (2, 0, 3), (3, 0)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(shape, dtype, mode):
    a, ta = pair(shape, dtype)
    Q, R = tl.linalg.qr(a, mode=mode)
    tQ, tR = torch.linalg.qr(ta, mode=mode)
    assert tuple(Q.shape) == tuple(tQ.shape)
    # Householder QR is unique up to the signs of R's rows; LAPACK builds make the same choice.
    same(R, tR, **TOL[dtype])
    if mode != "r":
        same(Q, tQ, **TOL[dtype])
        same(Q @ R, ta, **TOL[dtype])


def test_householder_product_matches_geqrf():
    a, ta = pair((2, 5, 3))
    tA, ttau = torch.geqrf(ta)
    A, tau = tl.from_numpy(tA.numpy().copy()), tl.from_numpy(ttau.numpy().copy())
    same(tl.linalg.householder_product(A, tau), torch.linalg.householder_product(tA, ttau))
    same(A.orgqr(tau), tA.orgqr(ttau))
    same(tl.linalg.householder_product(A, tau[..., :2]), torch.linalg.householder_product(tA, ttau[..., :2]))


# ---------------------------------------------------------------- eigh, svd (sign-normalized)

def sign_normalized(V, axis=-2):
    """Each singular/eigen vector (columns when axis=-2) with its largest-magnitude entry positive."""
    V = V.detach().numpy()
    if V.size == 0:
        return V
    idx = np.argmax(np.abs(V), axis=axis)
    signs = np.sign(np.take_along_axis(V, np.expand_dims(idx, axis), axis))
    return V * signs


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (0, 3, 3), (2, 0, 0)])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(shape, dtype, uplo):
    a, ta = pair(shape, dtype)
    w, V = tl.linalg.eigh(a, UPLO=uplo)
    tw, tV = torch.linalg.eigh(ta, UPLO=uplo)
    same(w, tw, **TOL[dtype])
    same(tl.linalg.eigvalsh(a, UPLO=uplo), tw, **TOL[dtype])
    np.testing.assert_allclose(sign_normalized(V), sign_normalized(tV), **TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4), (2, 0, 3), (3, 0)])
@pytest.mark.parametrize("full", [True, False])
def test_svd(shape, dtype, full):
    a, ta = pair(shape, dtype)
    U, S, Vh = tl.linalg.svd(a, full_matrices=full)
    tU, tS, tVh = torch.linalg.svd(ta, full_matrices=full)
    assert tuple(U.shape) == tuple(tU.shape) and tuple(Vh.shape) == tuple(tVh.shape)
    same(S, tS, **TOL[dtype])
    same(tl.linalg.svdvals(a), tS, **TOL[dtype])
    k = S.shape[-1]
    np.testing.assert_allclose(sign_normalized(U[..., :k]), sign_normalized(tU[..., :k]), **TOL[dtype])
    np.testing.assert_allclose((U[..., :k] * S.unsqueeze(-2)) @ Vh[..., :k, :], ta.numpy(), **TOL[dtype])
    u, s, v = tl.svd(a, some=not full)
    tu, ts, tv = torch.svd(ta, some=not full)
    assert tuple(u.shape) == tuple(tu.shape) and tuple(v.shape) == tuple(tv.shape)
    for got, exp in zip(tl.svd(a, compute_uv=False), torch.svd(ta, compute_uv=False)):
        same(got, exp, **TOL[dtype])


GRAD_CASES.update({
    "cholesky": lambda L, a: L.linalg.cholesky(a @ a.transpose(-2, -1) + 3 * L.eye(3, dtype=a.dtype)),
    "cholesky_upper": lambda L, a: L.linalg.cholesky(a @ a.transpose(-2, -1) + 3 * L.eye(3, dtype=a.dtype), upper=True),
    "cholesky_solve": lambda L, a: L.cholesky_solve(a, L.linalg.cholesky(a @ a.transpose(-2, -1) + 3 * L.eye(3, dtype=a.dtype))),
    "cholesky_inverse": lambda L, a: L.cholesky_inverse(a.tril() + 3 * L.eye(3, dtype=a.dtype)),
    "qr_Q": lambda L, a: L.linalg.qr(a).Q,
    "qr_R": lambda L, a: L.linalg.qr(a).R,
    "qr_tall": lambda L, a: sum(t.sum() * (i + 2) for i, t in enumerate(L.linalg.qr(a[..., :2]))),
    "qr_wide": lambda L, a: sum(t.sum() * (i + 2) for i, t in enumerate(L.linalg.qr(a[..., :2, :]))),
    "householder_product": lambda L, a: L.linalg.householder_product(a, a[..., 0, :2]),
    "eigh_values": lambda L, a: L.linalg.eigvalsh(a + a.transpose(-2, -1)),
    # eigenvectors up to sign: V diag(f(w)) V^T is sign-free
    "eigh_vectors": lambda L, a: (lambda w, V: (V * w.exp().unsqueeze(-2)) @ V.transpose(-2, -1))(
        *L.linalg.eigh(a + a.transpose(-2, -1))),
    "svdvals": lambda L, a: L.linalg.svdvals(a),
    "svd_vectors": lambda L, a: (lambda U, S, Vh: (U * S.exp().unsqueeze(-2)) @ Vh)(*L.linalg.svd(a, full_matrices=False)),
    "svd_tall": lambda L, a: (lambda U, S, Vh: U @ U.transpose(-2, -1) + (U * S.unsqueeze(-2)) @ Vh)(
        *L.linalg.svd(a[..., :2], full_matrices=False)),
    "svd_wide_full": lambda L, a: (lambda U, S, Vh: (U[..., :2] * S.unsqueeze(-2)) @ Vh[..., :2, :] + Vh[..., :2, :].sum())(
        *L.linalg.svd(a[..., :2, :], full_matrices=True)),
})


@pytest.mark.parametrize("case", ["cholesky", "qr_Q", "eigh_vectors", "svd_vectors", "lu", "det"])
def test_second_derivatives_gradgradcheck(case):
    a, _ = pair((2, 3, 3), seed=21)
    a.requires_grad_()
    assert tl.autograd.gradgradcheck(lambda x: GRAD_CASES[case](tl, x), (a,), eps=1e-6, atol=1e-5, rtol=1e-3)


# ---------------------------------------------------------------- functions of matrices

@pytest.mark.parametrize("n", [-3, -1, 0, 1, 2, 5])
def test_matrix_power(n):
    a, ta = pair((2, 4, 4), seed=13)
    same(tl.linalg.matrix_power(a, n), torch.linalg.matrix_power(ta, n), rtol=1e-8)
    same(a.matrix_power(n), ta.matrix_power(n), rtol=1e-8)
    ai = tl.arange(9).reshape(3, 3)
    if n >= 0:
        same(tl.matrix_power(ai, n), torch.matrix_power(torch.arange(9).reshape(3, 3), n))


@pytest.mark.parametrize("scale", [0.01, 1.0, 30.0])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matrix_exp(scale, dtype):
    a, ta = pair((3, 4, 4), dtype, seed=14)
    a, ta = a * scale, ta * scale
    got, expected = tl.linalg.matrix_exp(a), torch.linalg.matrix_exp(ta)
    same(got, expected, rtol=1e-4 if dtype == "float32" else 1e-10, atol=1e-5 * float(expected.abs().max()))
    # float16 is computed in float32 and rounded once (PyTorch's float16 result is wrong here: -21072 on the
    # diagonal of exp(0.01 A))
    same(tl.matrix_exp(a.half()).float(), tl.matrix_exp(a.half().float()).half().float(), rtol=0, atol=0)


def test_pinv_and_rank():
    a, ta = pair((3, 5, 4), seed=15)
    low = a[..., :2] @ a[..., :2].transpose(-2, -1)  # rank 2, 5 x 5
    tlow = ta[..., :2] @ ta[..., :2].transpose(-2, -1)
    for x, tx in [(a, ta), (low, tlow)]:
        same(tl.linalg.pinv(x), torch.linalg.pinv(tx), rtol=1e-7, atol=1e-9)
        same(tl.linalg.matrix_rank(x), torch.linalg.matrix_rank(tx))
        same(tl.linalg.matrix_rank(x, atol=1.0, rtol=0.1), torch.linalg.matrix_rank(tx, atol=1.0, rtol=0.1))
        same(tl.pinverse(x), torch.pinverse(tx), rtol=1e-7, atol=1e-9)
    same(tl.linalg.pinv(low, hermitian=True), torch.linalg.pinv(tlow, hermitian=True), rtol=1e-7, atol=1e-9)
    same(tl.linalg.matrix_rank(low, hermitian=True), torch.linalg.matrix_rank(tlow, hermitian=True))
    same(tl.linalg.matrix_rank(low, 0.5), torch.linalg.matrix_rank(tlow, 0.5))


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf")])
def test_norms_and_cond(ord):
    a, ta = pair((2, 4, 4), seed=16)
    if ord is not None:
        same(tl.linalg.matrix_norm(a, ord), torch.linalg.matrix_norm(ta, ord))
        same(tl.linalg.matrix_norm(a, ord, dim=(0, 2), keepdim=True),
             torch.linalg.matrix_norm(ta, ord, dim=(0, 2), keepdim=True))
        same(tl.linalg.norm(a[0], ord), torch.linalg.norm(ta[0], ord))
    same(tl.linalg.cond(a, ord), torch.linalg.cond(ta, ord), rtol=1e-7)
    same(tl.linalg.norm(a, ord, dim=(1, 2)), torch.linalg.norm(ta, ord, dim=(1, 2)))


def test_norm_vector_cases_and_torch_norm_nuc():
    a, ta = pair((2, 3, 4), seed=17)
    same(tl.linalg.norm(a), torch.linalg.norm(ta))
    same(tl.linalg.norm(a, 3, dim=1), torch.linalg.norm(ta, 3, dim=1))
    same(tl.norm(a, "nuc", dim=(0, 2)), torch.norm(ta, "nuc", dim=(0, 2)))
    message(lambda: tl.linalg.norm(a, 2), lambda: torch.linalg.norm(ta, 2))
    message(lambda: tl.linalg.matrix_norm(a, 3), lambda: torch.linalg.matrix_norm(ta, 3))


def test_tensorinv_tensorsolve_vander_diagonal():
    a, ta = pair((4, 6, 8, 3), seed=18)
    same(tl.linalg.tensorinv(a, 2), torch.linalg.tensorinv(ta, 2))
    message(lambda: tl.linalg.tensorinv(a, 1), lambda: torch.linalg.tensorinv(ta, 1))
    message(lambda: tl.linalg.tensorinv(a, 0), lambda: torch.linalg.tensorinv(ta, 0))
    A, tA = pair((6, 4, 2, 3, 4), seed=19)
    B, tB = pair((6, 4), seed=20)
    same(tl.linalg.tensorsolve(A, B), torch.linalg.tensorsolve(tA, tB))
    same(tl.linalg.tensorsolve(A.movedim(2, 0), B, dims=(0,)), torch.linalg.tensorsolve(tA.movedim(2, 0), tB, dims=(0,)))
    x, tx = pair((2, 3), seed=21)
    same(tl.linalg.vander(x), torch.linalg.vander(tx))
    same(tl.linalg.vander(x, N=5), torch.linalg.vander(tx, N=5))
    same(tl.linalg.vander(tl.arange(4, dtype=tl.int32)), torch.linalg.vander(torch.arange(4, dtype=torch.int32)))
    message(lambda: tl.linalg.vander(x, N=1), lambda: torch.linalg.vander(tx, N=1))
    same(tl.linalg.diagonal(a, offset=1, dim1=0, dim2=2), torch.linalg.diagonal(ta, offset=1, dim1=0, dim2=2))


GRAD_CASES.update({
    "matrix_power_neg": lambda L, a: L.linalg.matrix_power(a, -2),
    "matrix_power_5": lambda L, a: L.linalg.matrix_power(a, 5),
    "matrix_exp": lambda L, a: L.linalg.matrix_exp(a * 2),
    "pinv": lambda L, a: L.linalg.pinv(a[..., :2]),
    "pinv_hermitian": lambda L, a: L.linalg.pinv(a + a.transpose(-2, -1), hermitian=True),
    "matrix_norm_nuc": lambda L, a: L.linalg.matrix_norm(a, "nuc"),
    "matrix_norm_2": lambda L, a: L.linalg.matrix_norm(a, 2),
    "matrix_norm_1": lambda L, a: L.linalg.matrix_norm(a, -1),
    "cond": lambda L, a: L.linalg.cond(a),
    "cond_inf": lambda L, a: L.linalg.cond(a, float("inf")),
    "vander": lambda L, a: L.linalg.vander(a[..., 0], N=4),
    "tensorsolve": lambda L, a: L.linalg.tensorsolve(a, a[..., 0]),
})


@pytest.mark.parametrize("op", ["svd", "svdvals", "pinv", "matrix_rank"])
def test_svd_of_nan_input_raises_as_torch(op):
    # LAPACK's gesdd can loop forever on NaN/inf (found by the fuzzer): such input fails first, as PyTorch's.
    value = float("nan")
    a = [[1.0, value], [2.0, 3.0]]
    for batched in (False, True):
        t_in = torch.tensor(a).unsqueeze(0).expand(2, 2, 2).clone() if batched else torch.tensor(a)
        if batched:
            t_in[0] = torch.eye(2)
        with pytest.raises(RuntimeError) as expected:
            getattr(torch.linalg, op)(t_in)
        with pytest.raises(tl.linalg.LinAlgError) as got:
            getattr(tl.linalg, op)(tl.tensor(t_in.numpy()))
        assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("value", [float("inf"), -float("inf")])
@pytest.mark.parametrize("op", ["svd", "svdvals", "pinv", "matrix_rank"])
def test_svd_of_infinite_input_gives_nan_as_torch(op, value):
    a = torch.tensor([[[1.0, 0.0], [0.0, 2.0]], [[1.0, value], [2.0, 3.0]]])
    expected = getattr(torch.linalg, op)(a)
    got = getattr(tl.linalg, op)(tl.tensor(a.numpy()))
    expected = expected if isinstance(expected, torch.Tensor) else expected[1]
    got = got if isinstance(got, tl.Tensor) else got[1]
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6, equal_nan=True)
