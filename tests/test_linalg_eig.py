"""linalg.eig / linalg.eigvals (LAPACK's geev) against PyTorch: complex results for real and complex
input, batches, non-contiguous and empty inputs, out=, PyTorch's errors, and gradients of real losses
(against torch.autograd.grad and against central differences in complex128), including the refusal of
losses that depend on the eigenvectors' phases."""
import numpy as np
import pytest
import torch

import torchlite as tl

DTYPES = ["float32", "float64", "complex64", "complex128"]
TOL = {"float32": dict(rtol=1e-4, atol=1e-4), "complex64": dict(rtol=1e-4, atol=1e-4),
       "float64": dict(rtol=1e-9, atol=1e-10), "complex128": dict(rtol=1e-9, atol=1e-10)}


def make(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def close(got, expected, dtype):
    assert tuple(got.shape) == tuple(expected.shape)
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().resolve_conj().numpy(), **TOL[dtype])


def phase_free(V):
    """Each column divided by the phase of its largest entry: equal for vectors equal up to a phase."""
    v = V.detach().numpy() if hasattr(V, "detach") else V
    idx = np.abs(v).argmax(axis=-2)[..., None, :]
    ph = np.take_along_axis(v, idx, axis=-2)
    return v * (np.abs(ph) / ph)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (2, 2, 3, 3), (1, 1), (0, 0), (0, 3, 3), (2, 0, 0)])
def test_eig_matches_torch(shape, dtype):
    a = make(shape, dtype)
    L, V = tl.linalg.eig(tl.from_numpy(a.copy()))
    tL, tV = torch.linalg.eig(torch.from_numpy(a.copy()))
    close(L, tL, dtype)  # the same geev: the same order
    assert str(V.dtype).split(".")[-1] == str(tV.dtype).split(".")[-1] and tuple(V.shape) == tuple(tV.shape)
    assert V.stride() == tV.stride()  # Fortran-ordered, as PyTorch
    if a.size:
        np.testing.assert_allclose(phase_free(V), phase_free(tV), **TOL[dtype])
        # A V = V diag(L), unit columns
        av = a.astype(np.complex128) @ V.numpy()
        np.testing.assert_allclose(av, V.numpy() * L.numpy()[..., None, :], atol=1e-4 if dtype in ("float32", "complex64") else 1e-10)
        np.testing.assert_allclose(np.linalg.norm(V.numpy(), axis=-2), 1, atol=1e-5)
    close(tl.linalg.eigvals(tl.from_numpy(a.copy())), torch.linalg.eigvals(torch.from_numpy(a.copy())), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_eig_noncontiguous_and_broadcast_batch(dtype):
    a = make((3, 5, 5), dtype, seed=3)
    x, tx = tl.from_numpy(a.copy()).transpose(-2, -1), torch.from_numpy(a.copy()).transpose(-2, -1)
    close(tl.linalg.eigvals(x), torch.linalg.eigvals(tx), dtype)
    close(tl.linalg.eigvals(x[::2, 1:, 1:]), torch.linalg.eigvals(tx[::2, 1:, 1:]), dtype)
    e, te = tl.from_numpy(a[:1].copy()).expand(4, 5, 5), torch.from_numpy(a[:1].copy()).expand(4, 5, 5)
    L, V = tl.linalg.eig(e)
    tL, tV = torch.linalg.eig(te)
    close(L, tL, dtype)
    np.testing.assert_allclose(phase_free(V), phase_free(tV), **TOL[dtype])


def test_eig_conjugate_pairs_of_real_input():
    # A rotation: eigenvalues +-i, vectors conjugate to each other, as LAPACK packs them.
    a = np.array([[0.0, -1.0], [1.0, 0.0]])
    L, V = tl.linalg.eig(tl.tensor(a))
    tL, tV = torch.linalg.eig(torch.tensor(a))
    close(L, tL, "float64")
    np.testing.assert_allclose(V.numpy(), tV.numpy(), atol=1e-12)
    np.testing.assert_allclose(V.numpy()[:, 1], V.numpy()[:, 0].conj(), atol=1e-12)


def test_eig_out():
    a = make((2, 3, 3), "float64")
    L, V = tl.empty(0, dtype=tl.complex128), tl.empty(0, dtype=tl.complex128)
    rL, rV = tl.linalg.eig(tl.tensor(a), out=(L, V))
    assert rL is L and rV is V
    tL, tV = torch.linalg.eig(torch.tensor(a))
    close(L, tL, "float64")
    np.testing.assert_allclose(phase_free(V), phase_free(tV), atol=1e-10)
    w = tl.empty(0, dtype=tl.complex128)
    tl.linalg.eigvals(tl.tensor(a), out=w)
    close(w, tL, "float64")
    # A real out cannot hold complex eigenvalues (PyTorch: RuntimeError); complex64 takes complex128 ones.
    with pytest.raises(RuntimeError):
        torch.linalg.eigvals(torch.tensor(a), out=torch.empty(0, dtype=torch.float64))
    with pytest.raises(RuntimeError):
        tl.linalg.eigvals(tl.tensor(a), out=tl.empty(0, dtype=tl.float64))
    with pytest.raises(RuntimeError):
        tl.linalg.eig(tl.tensor(a), out=(tl.empty(0, dtype=tl.float64), tl.empty(0, dtype=tl.complex128)))


@pytest.mark.parametrize("fn", ["eig", "eigvals"])
def test_eig_errors_as_torch(fn):
    def both(x):
        errs = []
        for mod, conv in ((torch, torch.tensor), (tl, tl.tensor)):
            with pytest.raises(Exception) as e:
                getattr(mod.linalg, fn)(conv(x))
            errs.append(e)
        assert type(errs[1].value) is type(errs[0].value) or issubclass(type(errs[1].value), type(errs[0].value))
        return str(errs[0].value), str(errs[1].value)

    t, m = both(np.zeros((3, 4)))
    assert m == t == f"linalg.{fn}: A must be batches of square matrices, but they are 3 by 4 matrices"
    t, m = both(np.zeros(3))
    assert m == t == f"linalg.{fn}: The input tensor A must have at least 2 dimensions."
    t, m = both(np.zeros((3, 3), dtype=np.int64))
    assert m == t == "Unknown Complex ScalarType for Long"
    t, m = both(np.zeros((3, 3), dtype=bool))
    assert m == t == "Unknown Complex ScalarType for Bool"
    for dt in ("float16", "bfloat16"):
        with pytest.raises(NotImplementedError) as e:
            getattr(torch.linalg, fn)(torch.ones(2, 2, dtype=getattr(torch, dt)))
        with pytest.raises(NotImplementedError) as m:
            getattr(tl.linalg, fn)(tl.ones(2, 2, dtype=getattr(tl, dt)))
        assert str(m.value) == str(e.value)
    if fn == "eig":  # eig refuses non-finite input; eigvals hands it to geev, as PyTorch
        for bad in (np.nan, np.inf):
            t, m = both(np.array([[1.0, bad], [0.0, 1.0]]))
            assert m == t == "torch.linalg.eig: input tensor should not contain infs or NaNs."
    else:
        x = np.array([[1.0, np.nan], [0.0, 1.0]])
        assert tl.linalg.eigvals(tl.tensor(x)).shape == (2,)


# ---------------------------------------------------------------- gradients

def grads(f, arrays):
    out = []
    for mod in (tl, torch):
        ts = [mod.tensor(a, requires_grad=True) for a in arrays]
        loss = f(mod, *ts)
        out.append([g.detach().numpy() for g in mod.autograd.grad(loss, ts)])
    return out


LOSSES = {
    "values": lambda m, a: (m.linalg.eigvals(a).abs() ** 2).sum(),
    "values_real_part": lambda m, a: m.linalg.eig(a)[0].real.sum() + (m.linalg.eig(a)[0].imag ** 2).sum(),
    "vectors_abs": lambda m, a: (m.linalg.eig(a)[1].abs() ** 3).sum(),
    "both": lambda m, a: (m.linalg.eig(a)[0].abs() ** 2).sum() + (m.linalg.eig(a)[1].abs() ** 3).sum(),
    "phase_free_product": lambda m, a: ((lambda L, V: ((V * V.conj()).real * L.real.unsqueeze(-2)).sum()))(*m.linalg.eig(a)),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("loss", sorted(LOSSES))
def test_eig_gradients_match_torch(loss, dtype):
    a = make((2, 4, 4), dtype, seed=5)
    got, exp = grads(LOSSES[loss], [a])
    tol = dict(rtol=1e-3, atol=1e-3) if dtype in ("float32", "complex64") else dict(rtol=1e-8, atol=1e-9)
    assert got[0].dtype == exp[0].dtype
    np.testing.assert_allclose(got[0], exp[0], **tol)


def numeric_grad(f, a, eps=1e-6):
    """d loss / d Re a + i d loss / d Im a by central differences (PyTorch's convention for real losses)."""
    g = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        for unit in (1, 1j) if np.iscomplexobj(a) else (1,):
            ap, am = a.copy(), a.copy()
            ap[idx] += eps * unit
            am[idx] -= eps * unit
            d = (f(ap) - f(am)) / (2 * eps)
            g[idx] += d * unit
    return g


@pytest.mark.parametrize("loss", sorted(LOSSES))
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_eig_gradients_finite_differences(loss, dtype):
    a = make((3, 3), dtype, seed=11)
    f = LOSSES[loss]
    value = lambda x: float(f(tl, tl.tensor(x)).item())
    t = tl.tensor(a, requires_grad=True)
    (g,) = tl.autograd.grad(f(tl, t), [t])
    np.testing.assert_allclose(g.numpy(), numeric_grad(value, a), rtol=1e-5, atol=1e-6)


def test_eig_backward_refuses_phase_dependent_loss():
    a = make((3, 3), "complex128", seed=2)
    for mod in (torch, tl):
        x = mod.tensor(a, requires_grad=True)
        _, V = mod.linalg.eig(x)
        with pytest.raises(RuntimeError, match="linalg_eig_backward: The eigenvectors in the complex case are "
                                               "specified up to multiplication by e\\^\\{i phi\\}"):
            mod.autograd.grad(V.real.sum(), [x])


def test_eigvals_without_grad_uses_no_vectors_and_with_grad_records():
    a = make((3, 3), "float64")
    x = tl.tensor(a, requires_grad=True)
    L = tl.linalg.eigvals(x)
    assert L.requires_grad and L.grad_fn is not None
    with tl.no_grad():
        assert not tl.linalg.eigvals(x).requires_grad
