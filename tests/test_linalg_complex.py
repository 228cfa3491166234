"""torch.linalg on complex64/complex128 against PyTorch: the factorizations and solves (c/z LAPACK
routines), batches, broadcast batch dims, non-contiguous and empty inputs, PyTorch's errors, and the
gradients of real losses (PyTorch's conjugate Wirtinger convention) against torch.autograd.grad.
(eig/eigvals: tests/test_linalg_eig.py.)"""
import numpy as np
import pytest
import torch

import torchlite as tl

CDTYPES = ["complex64", "complex128"]
TOL = {"complex64": dict(rtol=2e-3, atol=2e-4), "complex128": dict(rtol=1e-8, atol=1e-10),
       "float32": dict(rtol=2e-3, atol=2e-4), "float64": dict(rtol=1e-8, atol=1e-10)}
GTOL = {"complex64": dict(rtol=5e-3, atol=5e-3), "complex128": dict(rtol=1e-7, atol=1e-9)}


def make(shape, dtype="complex128", seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def hpd(shape, dtype="complex128", seed=0):
    """Hermitian positive-definite matrices."""
    a = make(shape, "complex128", seed)
    n = shape[-1]
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


def np_of(t):
    t = t.detach()
    if isinstance(t, torch.Tensor):
        t = t.resolve_conj().resolve_neg()
    return t.numpy()


def close(got, expected, dtype):
    got = got if isinstance(got, (tuple, list)) else (got,)
    expected = expected if isinstance(expected, (tuple, list)) else (expected,)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert tuple(g.shape) == tuple(e.shape)
        assert str(g.dtype).split(".")[-1] == str(e.dtype).split(".")[-1], (g.dtype, e.dtype)
        if e.dtype in (torch.int32, torch.int64):
            assert g.tolist() == e.tolist()
        else:
            np.testing.assert_allclose(np_of(g), np_of(e), **TOL[dtype])


def run(f, *arrays):
    """f on torchlite and on torch with the same (copied) inputs."""
    return f(tl, *[tl.from_numpy(a.copy()) for a in arrays]), f(torch, *[torch.from_numpy(a.copy()) for a in arrays])


SHAPES = [(3, 3), (2, 4, 4), (2, 1, 3, 3), (0, 3, 3), (2, 0, 0)]


# ---------------------------------------------------------------- forward

@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_lu_family(shape, dtype):
    a = make(shape, dtype)
    close(*run(lambda m, x: m.linalg.lu_factor_ex(x), a), dtype)
    close(*run(lambda m, x: m.linalg.lu(x), a), dtype)
    close(*run(lambda m, x: m.linalg.det(x), a), dtype)
    close(*run(lambda m, x: m.linalg.slogdet(x), a), dtype)
    close(*run(lambda m, x: m.linalg.inv_ex(x), a), dtype)
    close(*run(lambda m, x: m.linalg.inv(x), a), dtype)
    close(*run(lambda m, x: m.logdet(x), a), dtype)  # complex: log(sign) + logabsdet
    if a.size:
        sign, _ = tl.linalg.slogdet(tl.from_numpy(a.copy()))
        np.testing.assert_allclose(np.abs(sign.numpy()), 1, rtol=1e-5)  # complex of unit modulus


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_lu_solve_modes(left, adjoint, dtype):
    a = make((2, 4, 4), dtype, 1)
    b = make((2, 4, 3) if left else (2, 3, 4), dtype, 2)
    close(*run(lambda m, x, y: m.linalg.lu_solve(*m.linalg.lu_factor(x), y, left=left, adjoint=adjoint), a, b), dtype)
    # broadcast batch dims: B's batch (3, 1) against LU's (2,)
    bb = make((3, 1, 4, 2) if left else (3, 1, 2, 4), dtype, 3)
    close(*run(lambda m, x, y: m.linalg.lu_solve(*m.linalg.lu_factor(x), y, left=left, adjoint=adjoint), a, bb), dtype)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_solve_and_solve_ex(dtype):
    a, b, v = make((2, 4, 4), dtype, 1), make((2, 4, 3), dtype, 2), make((2, 4), dtype, 3)
    close(*run(lambda m, x, y: m.linalg.solve(x, y), a, b), dtype)
    close(*run(lambda m, x, y: m.linalg.solve(x, y), a, v), dtype)  # batch of vectors
    close(*run(lambda m, x, y: m.linalg.solve(x, y.mT, left=False), a, b), dtype)
    close(*run(lambda m, x, y: m.linalg.solve_ex(x, y), a, b), dtype)
    close(*run(lambda m, x, y: m.linalg.solve(x.mT, y[:, ::2]), a, make((2, 8, 2), dtype, 4)), dtype)  # strided
    close(*run(lambda m, x, y: m.linalg.solve(x, y), a, make((3, 1, 4, 2), dtype, 5)), dtype)  # broadcast


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
def test_solve_triangular(upper, left, dtype):
    a = make((2, 4, 4), dtype, 1) + 4 * np.eye(4, dtype=dtype)
    b = make((2, 4, 3) if left else (2, 3, 4), dtype, 2)
    for unit in (False, True):
        close(*run(lambda m, x, y: m.linalg.solve_triangular(x, y, upper=upper, left=left, unitriangular=unit), a, b),
              dtype)
        close(*run(lambda m, x, y: m.linalg.solve_triangular(x.mT, y, upper=upper, left=left, unitriangular=unit),
                   a, b), dtype)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (0, 3, 3), (2, 0, 0)])
def test_cholesky(shape, dtype):
    a = hpd(shape, dtype) if shape[-1] else np.zeros(shape, dtype)
    for upper in (False, True):
        close(*run(lambda m, x: m.linalg.cholesky(x, upper=upper), a), dtype)
        close(*run(lambda m, x: m.linalg.cholesky_ex(x, upper=upper), a), dtype)
    if a.size:
        b = make(shape[:-1] + (2,), dtype, 4)
        close(*run(lambda m, x, y: m.cholesky_solve(y, m.linalg.cholesky(x)), a, b), dtype)
        close(*run(lambda m, x, y: m.cholesky_solve(y, m.linalg.cholesky(x, upper=True), upper=True), a, b), dtype)
        close(*run(lambda m, x: m.cholesky_inverse(m.linalg.cholesky(x)), a[..., :, :] if a.ndim == 2 else a[0]), dtype)


def test_cholesky_not_positive_definite_raises_naming_the_batch_element():
    a = hpd((3, 3, 3))
    a[1] = -a[1]
    for mod in (torch, tl):
        with pytest.raises(mod.linalg.LinAlgError, match=r"\(Batch element 1\): The factorization could not be "
                                                         r"completed because the input is not positive-definite"):
            mod.linalg.cholesky(mod.from_numpy(a.copy()))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 4, 4), (2, 5, 3), (0, 3, 2), (2, 0, 3)])
def test_qr_and_householder(shape, dtype):
    a = make(shape, dtype)
    for mode in ("reduced", "complete", "r"):
        close(*run(lambda m, x: m.linalg.qr(x, mode=mode), a), dtype)
    if shape[-2] >= shape[-1]:
        tau = make(shape[:-2] + (shape[-1],), dtype, 7)
        close(*run(lambda m, x, t: m.linalg.householder_product(x, t), a, tau), dtype)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (0, 3, 3), (2, 0, 0)])
def test_eigh(shape, dtype):
    a = hpd(shape, dtype) if shape[-1] else np.zeros(shape, dtype)
    for uplo in ("L", "U"):
        close(*run(lambda m, x: m.linalg.eigvalsh(x, UPLO=uplo), a), dtype)
        (w, v), (tw, tv) = run(lambda m, x: m.linalg.eigh(x, UPLO=uplo), a)
        close(w, tw, dtype)  # real eigenvalues
        assert v.dtype == tl.complex64 if dtype == "complex64" else tl.complex128
        # vectors up to a phase: V diag(w) V^H reconstructs A, |V| as PyTorch's
        close(v.abs(), tv.abs(), dtype)
        np.testing.assert_allclose((v.numpy() * w.numpy()[..., None, :]) @ np.conj(np.swapaxes(v.numpy(), -1, -2)),
                                   a, **TOL[dtype])


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 4, 4), (0, 3, 2), (2, 0, 3)])
def test_svd(shape, dtype):
    a = make(shape, dtype)
    close(*run(lambda m, x: m.linalg.svdvals(x), a), dtype)
    for full in (False, True):
        (u, s, vh), (tu, ts, tvh) = run(lambda m, x: m.linalg.svd(x, full_matrices=full), a)
        close(s, ts, dtype)  # real singular values
        close(u.abs(), tu.abs(), dtype)
        close(vh.abs(), tvh.abs(), dtype)
        k = min(shape[-2:])
        rec = (u.numpy()[..., :, :k] * s.numpy()[..., None, :]) @ vh.numpy()[..., :k, :]
        np.testing.assert_allclose(rec, a, **TOL[dtype])


@pytest.mark.parametrize("dtype", CDTYPES)
def test_matrix_power_vecdot_cross_and_products(dtype):
    a = make((2, 3, 3), dtype, 1)
    for n in (0, 1, 3, -1, -2):
        close(*run(lambda m, x: m.linalg.matrix_power(x, n), a), dtype)
    b = make((2, 3, 3), dtype, 2)
    close(*run(lambda m, x, y: m.linalg.vecdot(x, y), a, b), dtype)  # conjugates x
    close(*run(lambda m, x, y: m.linalg.vecdot(x, y, dim=0), a, b), dtype)
    close(*run(lambda m, x, y: m.linalg.cross(x, y), a, b), dtype)
    close(*run(lambda m, x, y: m.linalg.cross(x, y, dim=1), a, b), dtype)
    al, be = 0.5 - 1j, 1 + 2j
    close(*run(lambda m, x, y: m.addmm(x[0], x[1], y[0], beta=be, alpha=al), a, b), dtype)
    close(*run(lambda m, x, y: m.addmv(x[0, 0], x[1], y[0, 1], beta=be, alpha=al), a, b), dtype)
    close(*run(lambda m, x, y: m.baddbmm(x, x, y, beta=be, alpha=al), a, b), dtype)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_norms_are_real(dtype):
    a = make((2, 3, 4), dtype, 1)
    for ord in (2, 1, 3.5, float("inf"), -float("inf"), 0, -1.5):
        close(*run(lambda m, x: m.linalg.vector_norm(x, ord), a), dtype)
        close(*run(lambda m, x: m.linalg.vector_norm(x, ord, dim=-1, keepdim=True), a), dtype)
    close(*run(lambda m, x: m.linalg.vector_norm(x, dtype=m.complex128), a), dtype)
    for ord in ("fro", "nuc", 2, -2, 1, -1, float("inf"), -float("inf")):
        close(*run(lambda m, x: m.linalg.matrix_norm(x, ord), a), dtype)
    close(*run(lambda m, x: m.linalg.norm(x), a), dtype)
    close(*run(lambda m, x: m.linalg.norm(x, dim=(-2, -1)), a), dtype)
    close(*run(lambda m, x: m.linalg.norm(x[0, 0]), a), dtype)
    with pytest.raises(RuntimeError, match="dtype should be complex"):
        tl.linalg.vector_norm(tl.from_numpy(a.copy()), dtype=tl.float64)
    with pytest.raises(RuntimeError, match="dtype should be complex"):
        torch.linalg.vector_norm(torch.from_numpy(a.copy()), dtype=torch.float64)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_matrix_functions(dtype):
    a = make((2, 4, 4), dtype, 1) / 2
    close(*run(lambda m, x: m.linalg.matrix_exp(x), a), dtype)
    close(*run(lambda m, x: m.linalg.matrix_exp(x * 20), a), dtype)
    close(*run(lambda m, x: m.linalg.pinv(x), a), dtype)
    close(*run(lambda m, x: m.linalg.pinv(x[..., :3]), a), dtype)
    close(*run(lambda m, x: m.linalg.pinv(x @ x.mH, hermitian=True), a), dtype)
    r = make((2, 4, 2), dtype, 2) @ make((2, 2, 4), dtype, 3)  # rank 2
    close(*run(lambda m, x: m.linalg.matrix_rank(x), r), dtype)
    close(*run(lambda m, x: m.linalg.matrix_rank(x @ x.mH, hermitian=True), r), dtype)
    for p in (None, "fro", "nuc", 1, -1, 2, -2, float("inf")):
        close(*run(lambda m, x: m.linalg.cond(x, p), a), dtype)
    close(*run(lambda m, x: m.linalg.tensorinv(x.reshape(4, 2, 2), ind=1), a[0]), dtype)
    close(*run(lambda m, x, y: m.linalg.tensorsolve(x.reshape(2, 2, 4), y[0, 0].reshape(2, 2)), a[0], a), dtype)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("driver", ["gels", "gelsy", "gelsd", "gelss"])
def test_lstsq(driver, dtype):
    for ashape, bshape in [((2, 5, 3), (2, 5, 2)), ((5, 3), (5,)), ((2, 3, 5), (2, 3, 2)), ((1, 5, 3), (3, 5, 2)),
                           ((2, 5, 3), (2, 5, 0))]:
        if driver == "gels" and ashape[-2] < ashape[-1]:
            continue  # gels of a wide matrix: PyTorch's own result is a minimum-norm one only for full rank
        if driver in ("gelsd", "gelss") and bshape[-1] == 0:
            continue  # PyTorch's MKL gelsd fails and its gelss crashes on no right-hand sides (docs/kernels/linalg_lapack.md)
        a, b = make(ashape, dtype, 1), make(bshape, dtype, 2)
        (x, res, rank, sv), (tx, tres, trank, tsv) = run(lambda m, p, q: m.linalg.lstsq(p, q, driver=driver), a, b)
        close(x, tx, dtype)
        for g, e in ((res, tres), (rank, trank), (sv, tsv)):
            assert tuple(g.shape) == tuple(e.shape)
            if g.numel():
                close(g, e, dtype)  # residuals and singular values are real


# ---------------------------------------------------------------- errors

def test_errors_as_torch():
    a = make((3, 3))
    for f in (lambda m, x: m.linalg.solve(x, x.to(m.complex64)),
              lambda m, x: m.linalg.lu_solve(*m.linalg.lu_factor(x), x.to(m.complex64)),
              lambda m, x: m.linalg.inv(x[:, :2]),
              lambda m, x: m.linalg.det(x[:2])):
        errs = []
        for mod in (torch, tl):
            with pytest.raises(Exception) as e:
                f(mod, mod.from_numpy(a.copy()))
            errs.append(e.value)
        assert isinstance(errs[1], type(errs[0])), (errs[0], errs[1])
        assert str(errs[1]).split(": ", 1)[-1] == str(errs[0]).split(": ", 1)[-1]
    s = a.copy()
    s[:, 2] = 0
    for mod in (torch, tl):
        with pytest.raises(mod.linalg.LinAlgError, match="singular"):
            mod.linalg.inv(mod.from_numpy(s.copy()))


# ---------------------------------------------------------------- gradients

def grads(f, arrays):
    out = []
    for mod in (tl, torch):
        ts = [mod.from_numpy(a.copy()).requires_grad_() for a in arrays]
        y = f(mod, *ts)
        ys = y if isinstance(y, (tuple, list)) else (y,)
        loss = sum((t.abs() ** 2).sum() for t in ys if t.dtype.is_complex or t.dtype.is_floating_point)
        out.append([np_of(g) for g in mod.autograd.grad(loss, ts)])
    return out


GRAD_CASES = {
    "det": (lambda m, a: m.linalg.det(a), ["A"]),
    "slogdet": (lambda m, a: m.linalg.slogdet(a), ["A"]),
    "slogdet_sign_real": (lambda m, a: m.linalg.slogdet(a)[0].real, ["A"]),
    "inv": (lambda m, a: m.linalg.inv(a), ["A"]),
    "logdet": (lambda m, a: m.logdet(a), ["A"]),
    "solve": (lambda m, a, b: m.linalg.solve(a, b), ["A", "B"]),
    "solve_right": (lambda m, a, b: m.linalg.solve(a, b.mT, left=False), ["A", "B"]),
    "lu": (lambda m, a: m.linalg.lu(a)[1:], ["A"]),
    "lu_factor": (lambda m, a: m.linalg.lu_factor(a)[0], ["A"]),
    "lu_solve_adjoint": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b, adjoint=True), ["A", "B"]),
    "solve_triangular": (lambda m, a, b: m.linalg.solve_triangular(a.triu(), b, upper=True), ["A", "B"]),
    "cholesky": (lambda m, a: m.linalg.cholesky(a @ a.mH + 3 * m.eye(3)), ["A"]),
    "cholesky_solve": (lambda m, a, b: m.cholesky_solve(b, m.linalg.cholesky(a @ a.mH + 3 * m.eye(3))), ["A", "B"]),
    "qr": (lambda m, a: m.linalg.qr(a), ["A"]),
    "qr_wide": (lambda m, a: m.linalg.qr(a[..., :2, :]), ["A"]),
    "eigvalsh": (lambda m, a: m.linalg.eigvalsh(a + a.mH), ["A"]),
    "eigh_vectors_abs": (lambda m, a: m.linalg.eigh(a + a.mH)[1].abs(), ["A"]),
    "svdvals": (lambda m, a: m.linalg.svdvals(a), ["A"]),
    "svd_abs": (lambda m, a: [x.abs() for x in m.linalg.svd(a, full_matrices=False)], ["A"]),
    "matrix_power": (lambda m, a: m.linalg.matrix_power(a, -2), ["A"]),
    "vecdot": (lambda m, a, b: m.linalg.vecdot(a, b), ["A", "B"]),
    "vector_norm": (lambda m, a: m.linalg.vector_norm(a, 3, dim=-1), ["A"]),
    "vector_norm_2": (lambda m, a: m.linalg.vector_norm(a), ["A"]),
    "vector_norm_inf": (lambda m, a: m.linalg.vector_norm(a, float("inf"), dim=-2), ["A"]),
    "matrix_norm_fro": (lambda m, a: m.linalg.matrix_norm(a), ["A"]),
    "matrix_norm_nuc": (lambda m, a: m.linalg.matrix_norm(a, "nuc"), ["A"]),
    "matrix_exp": (lambda m, a: m.linalg.matrix_exp(a), ["A"]),
    "pinv": (lambda m, a: m.linalg.pinv(a), ["A"]),
    "cond": (lambda m, a: m.linalg.cond(a), ["A"]),
    "lstsq_gelsd": (lambda m, a, b: m.linalg.lstsq(a, b, driver="gelsd").solution, ["A", "B"]),
    "lstsq_residuals": (lambda m, a, b: m.linalg.lstsq(a[..., :2], b, driver="gels")[:2], ["A", "B"]),
}


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_gradients_match_torch(case, dtype):
    f, args = GRAD_CASES[case]
    arrays = [make((2, 3, 3), dtype, 1), make((2, 3, 2) if case != "vecdot" else (2, 3, 3), dtype, 2)][:len(args)]
    if case in ("solve_triangular",):
        arrays[0] = arrays[0] + 3 * np.eye(3, dtype=dtype)
    got, exp = grads(f, arrays)
    for g, e in zip(got, exp):
        assert g.dtype == e.dtype
        np.testing.assert_allclose(g, e, **GTOL[dtype])


def test_real_input_gradient_through_complex_ops_is_real():
    a = np.random.default_rng(0).standard_normal((3, 3))
    got, exp = grads(lambda m, x: m.linalg.eigvals(x), [a])
    assert got[0].dtype == np.float64
    np.testing.assert_allclose(got[0], exp[0], rtol=1e-8, atol=1e-10)
