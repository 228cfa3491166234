"""Issue 10's linalg/complex divergences, checked against PyTorch: torch.norm / Tensor.norm of complex input
(values real, dtype rules, gradients), the `dtype=` and out= rules of linalg.norm / matrix_norm / vector_norm,
cholesky_inverse of a factor whose diagonal is not real (potri's reading of it), cholesky's complex gradient,
linalg.eigvals out= with inputs that require grad."""
import numpy as np
import pytest
import torch

import torchlite as tl
from conftest import assert_same, error_types_like, torch_result

INF = float("inf")


def _complex(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return a.astype(np.complex64 if dtype == "complex64" else np.complex128)


def _both(array, layout="contiguous"):
    """The array as a torch and a torchlite tensor, contiguous or as a transposed (non-contiguous) view."""
    pair = []
    for lib in (torch, tl):
        t = lib.tensor(np.ascontiguousarray(np.swapaxes(array, -1, -2)) if layout == "transposed" else array)
        pair.append(t.transpose(-1, -2) if layout == "transposed" else t)
    return pair


def _same_outcome(call):
    """call(torch) and call(torchlite) give the same values, or raise the same exception type with PyTorch's
    message (torchlite may prefix it with the op's name)."""
    expected, err = torch_result(lambda: call(torch))
    if err is not None:
        with pytest.raises(error_types_like(err)) as info:
            call(tl)
        assert str(err) in str(info.value)
        return
    assert_same(call(tl), expected)


# ---------------------------------------------------------------- torch.norm / Tensor.norm of complex input

NORM_P = [None, 2, 1, 3, 0, 0.5, -1, INF, -INF, "fro", "nuc"]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("p", NORM_P, ids=str)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_norm_of_complex_like_torch(dtype, p, layout):
    t, l = _both(_complex((3, 4), dtype), layout)
    for dim in (None, 1, -2, (0, 1)):
        for keepdim in (False, True):
            def call(lib, x=(t, l)):
                x = x[0] if lib is torch else x[1]
                kwargs = {} if p is None else {"p": p}
                if dim is not None:
                    kwargs["dim"] = dim
                return lib.norm(x, keepdim=keepdim, **kwargs)
            _same_outcome(call)
    # the method, positional p, and a complex dtype= (the precision of the moduli)
    _same_outcome(lambda lib: (t if lib is torch else l).norm(p if p is not None else 2, 1, True,
                                                             dtype=lib.complex128) if p != "nuc" else
                  (t if lib is torch else l).norm(p, dtype=lib.complex128))


@pytest.mark.parametrize("p", [2, 1, 0, INF, -INF, "fro", "nuc"], ids=str)
def test_norm_of_complex_empty_and_0d_like_torch(p):
    for shape in [(0, 3), (2, 0)]:
        t, l = _both(_complex(shape, "complex64"))
        _same_outcome(lambda lib: lib.norm(t if lib is torch else l, p))
        _same_outcome(lambda lib: lib.norm(t if lib is torch else l, p, dim=(0, 1) if isinstance(p, str) else 1))
    if not isinstance(p, str):
        t, l = torch.tensor(3 - 4j), tl.tensor(3 - 4j)
        _same_outcome(lambda lib: lib.norm(t if lib is torch else l, p))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.complex64, torch.int64])
def test_norm_dtype_rules_like_torch(dtype):
    name = str(dtype).split(".")[-1]
    for arr in (_complex((3, 4), "complex64"), _complex((3, 4), "complex128"),
                np.arange(12.0, dtype=np.float32).reshape(3, 4), np.arange(12.0).reshape(3, 4)):
        t, l = _both(arr)
        for p in (2, 1, "fro", "nuc"):
            _same_outcome(lambda lib: lib.norm(t if lib is torch else l, p, dtype=getattr(lib, name)))
        _same_outcome(lambda lib: (t if lib is torch else l).norm(3, 1, False, dtype=getattr(lib, name)))


@pytest.mark.parametrize("p", [2, 1, 3, 0.5, INF, -INF, "fro", "nuc"], ids=str)
def test_norm_of_complex_gradients_like_torch(p):
    arr = _complex((2, 3, 4), "complex128", seed=3)
    grads = []
    for lib in (torch, tl):
        x = lib.tensor(arr, requires_grad=True)
        dims = (1, 2) if isinstance(p, str) else (-1,)
        y = lib.norm(x, p, dim=dims, keepdim=True)
        weights = lib.tensor(np.arange(1.0, 1.0 + y.numel()).reshape(tuple(y.shape)))
        assert not y.is_complex()
        grads.append(lib.autograd.grad((y * weights).sum(), x)[0])
    assert_same(grads[1], grads[0], rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------- linalg.norm / matrix_norm / vector_norm dtype=

DTYPES = ["float32", "float64", "complex64", "complex128", "int64", "float16"]


@pytest.mark.parametrize("fn,ord", [("vector_norm", 2), ("vector_norm", 0), ("vector_norm", INF), ("matrix_norm", "fro"),
                                    ("matrix_norm", "nuc"), ("matrix_norm", 2), ("matrix_norm", -1),
                                    ("matrix_norm", INF), ("norm", None), ("norm", "nuc"), ("norm", -2),
                                    ("norm", 1)], ids=str)
@pytest.mark.parametrize("input_dtype", ["float32", "float64", "complex64", "complex128"])
def test_linalg_norm_dtype_argument_like_torch(fn, ord, input_dtype):
    arr = (_complex((2, 3, 3), input_dtype) if input_dtype.startswith("complex")
           else np.random.default_rng(0).standard_normal((2, 3, 3)).astype(input_dtype))
    t, l = _both(arr, "transposed")
    for d in DTYPES:
        def call(lib):
            x = t if lib is torch else l
            kwargs = {"dtype": getattr(lib, d)}
            if fn == "norm" and ord is not None:
                kwargs["dim"] = (1, 2)
            return getattr(lib.linalg, fn)(x, *(() if ord is None else (ord,)), **kwargs)
        _same_outcome(call)


@pytest.mark.parametrize("fn,ord", [("vector_norm", 2), ("matrix_norm", "fro"), ("matrix_norm", "nuc"),
                                    ("matrix_norm", 1), ("norm", None), ("norm", "nuc")], ids=str)
@pytest.mark.parametrize("input_dtype", ["float32", "complex64"])
def test_linalg_norm_out_dtype_like_torch(fn, ord, input_dtype):
    """out= must have the result's dtype (real for complex input); an unset dtype= is not taken from out."""
    arr = (_complex((3, 3), input_dtype) if input_dtype == "complex64"
           else np.random.default_rng(0).standard_normal((3, 3)).astype(np.float32))
    t, l = _both(arr)
    for out_dtype in ["float32", "float64", "complex64", "complex128"]:
        for d in [None, "float64", "complex128"]:
            def call(lib):
                out = lib.empty(0, dtype=getattr(lib, out_dtype))
                kwargs = {} if d is None else {"dtype": getattr(lib, d)}
                r = getattr(lib.linalg, fn)(t if lib is torch else l, *(() if ord is None else (ord,)), out=out, **kwargs)
                assert r is out
                return out
            expected, err = torch_result(lambda: call(torch))
            if err is not None:
                with pytest.raises(error_types_like(err)):
                    call(tl)
            else:
                assert_same(call(tl), expected)


def test_matrix_norm_low_precision_like_torch():
    for p in (2, -2, "nuc", 1, "fro"):
        t, l = torch.ones(3, 3, dtype=torch.float16), tl.ones(3, 3, dtype=tl.float16)
        expected, err = torch_result(lambda: torch.linalg.matrix_norm(t, p))
        if err is not None:
            with pytest.raises(error_types_like(err), match="linalg.matrix_norm: Low precision dtypes not supported"):
                tl.linalg.matrix_norm(l, p)
        else:
            assert_same(tl.linalg.matrix_norm(l, p), expected)


# ---------------------------------------------------------------- cholesky_inverse

def _lower(n, dtype, seed, real_diagonal):
    a = _complex((n, n), dtype, seed) if dtype.startswith("complex") else \
        np.random.default_rng(seed).standard_normal((n, n)).astype(dtype)
    L = np.tril(a) + 3 * np.eye(n, dtype=a.dtype)
    if real_diagonal and np.iscomplexobj(L):
        L[np.diag_indices(n)] = L.diagonal().real
    return L


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("real_diagonal", [True, False])
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("n", [1, 2, 5, 16])
def test_cholesky_inverse_like_torch(dtype, real_diagonal, upper, n):
    """A factor with a non-real diagonal is no Cholesky factor: PyTorch's potri reads its diagonal as real in
    lauum (the last diagonal entry Re(d) d, the others real) and fills the result from its lower triangle;
    torchlite computes the same. (Up to n = 16: MKL's potri switches to a blocked lauum above some size,
    whose rounding of this non-Hermitian case differs.)"""
    L = _lower(n, dtype, seed=n, real_diagonal=real_diagonal)
    if upper:
        L = np.ascontiguousarray(L.conj().T)
    tol = {"rtol": 2e-5, "atol": 2e-6} if dtype in ("float32", "complex64") else {"rtol": 1e-11, "atol": 1e-12}
    t_res = torch.cholesky_inverse(torch.tensor(L), upper=upper)
    l_res = tl.cholesky_inverse(tl.tensor(L), upper=upper)
    assert_same(l_res, t_res, **tol)
    if real_diagonal:  # a genuine factor: exactly Hermitian, a real diagonal
        r = l_res.numpy()
        assert np.array_equal(r, r.conj().T)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_cholesky_inverse_batched_noncontiguous_empty_out(dtype):
    Ls = np.stack([_lower(4, dtype, seed=s, real_diagonal=False) for s in range(3)]).reshape(3, 1, 4, 4)
    Ls = np.broadcast_to(Ls, (3, 2, 4, 4))
    t, l = _both(np.ascontiguousarray(Ls), "transposed")  # an upper factor read through a transposed view
    assert_same(tl.cholesky_inverse(l, True), torch.cholesky_inverse(t, True), rtol=1e-11, atol=1e-12)
    for shape in [(0, 3, 3), (2, 0, 0)]:
        e = np.zeros(shape, dtype=dtype)
        assert_same(tl.cholesky_inverse(tl.tensor(e)), torch.cholesky_inverse(torch.tensor(e)))
    out_t, out_l = torch.empty(0, dtype=getattr(torch, dtype)), tl.empty(0, dtype=getattr(tl, dtype))
    torch.cholesky_inverse(t[0, 0], out=out_t)
    assert tl.cholesky_inverse(l[0, 0], out=out_l) is out_l
    assert_same(out_l, out_t, rtol=1e-11, atol=1e-12)
    _same_outcome(lambda lib: lib.cholesky_inverse(lib.ones(2, 3, dtype=getattr(lib, dtype))))
    _same_outcome(lambda lib: lib.cholesky_inverse(lib.ones(2, 2, dtype=lib.int64)))


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse_complex_gradient_like_torch(upper):
    L = _lower(4, "complex128", seed=7, real_diagonal=True)
    if upper:
        L = np.ascontiguousarray(L.conj().T)
    grads = []
    for lib in (torch, tl):
        x = lib.tensor(L, requires_grad=True)
        y = lib.cholesky_inverse(x, upper=upper)
        w = lib.tensor(_complex((4, 4), "complex128", seed=8))
        grads.append(lib.autograd.grad((y * w).real.sum(), x)[0])
    assert_same(grads[1], grads[0], rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------- cholesky's complex gradient

@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("batch", [(), (2,)])
def test_cholesky_complex_gradient_like_torch(upper, batch):
    a = _complex(batch + (4, 4), "complex128", seed=11)
    A = a @ np.conj(np.swapaxes(a, -1, -2)) + 4 * np.eye(4)
    w = _complex(batch + (4, 4), "complex128", seed=12)
    grads = []
    for lib in (torch, tl):
        x = lib.tensor(A, requires_grad=True)
        L = lib.linalg.cholesky(x, upper=upper)
        loss = (L * lib.tensor(w)).real.sum() + (L.abs() ** 2).sum()
        grads.append(lib.autograd.grad(loss, x)[0])
    assert_same(grads[1], grads[0], rtol=1e-10, atol=1e-12)


def test_cholesky_real_gradient_unchanged_like_torch():
    a = np.random.default_rng(5).standard_normal((3, 3))
    A = a @ a.T + 3 * np.eye(3)
    grads = []
    for lib in (torch, tl):
        x = lib.tensor(A, requires_grad=True)
        grads.append(lib.autograd.grad((lib.linalg.cholesky(x) * lib.tensor(a)).sum(), x)[0])
    assert_same(grads[1], grads[0], rtol=1e-12, atol=1e-13)
    assert np.allclose(grads[1].numpy(), grads[1].numpy().T)


# ---------------------------------------------------------------- eigvals out= with grad

@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_eigvals_out_with_grad_like_torch(dtype):
    arr = np.array([[1.0, 2.0], [3.0, 4.0]]) if dtype == "float64" else _complex((3, 3), dtype)
    results = []
    for lib in (torch, tl):
        x = lib.tensor(arr, requires_grad=True)
        out = lib.empty(0, dtype=lib.complex128)
        r = lib.linalg.eigvals(x, out=out)
        assert r is out and out.requires_grad and type(out.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError, match="^derivative for aten::linalg_eigvals is not implemented$"):
            out.real.sum().backward()
        with pytest.raises(RuntimeError, match="functions with out=... arguments don't support automatic"):
            lib.linalg.eigvals(x, out=lib.empty(0, dtype=lib.complex128, requires_grad=True))
        with lib.no_grad():
            out2 = lib.empty(0, dtype=lib.complex128)
            lib.linalg.eigvals(x, out=out2)
            assert not out2.requires_grad
        results.append(np.sort_complex(out.detach().numpy()))
    np.testing.assert_allclose(results[1], results[0], rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- svd of one large square matrix (threaded)

def _svd_sign_free(U, S, Vh):
    """U and Vh with each singular pair's sign fixed (the largest entry of each column of U positive)."""
    U, Vh = U.copy(), Vh.copy()
    idx = np.abs(U).argmax(axis=-2)
    signs = np.sign(np.take_along_axis(U, idx[..., None, :], axis=-2))
    return U * signs, S, Vh * np.swapaxes(signs, -1, -2)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [160, 257])
@pytest.mark.parametrize("full_matrices", [False, True])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "batched"])
def test_large_square_svd_like_torch(dtype, n, full_matrices, layout):
    """From 160 x 160, one matrix's gesdd back-transformations run on every thread (cpu/SvdThreaded.h):
    the factors equal PyTorch's up to the singular vectors' signs, and the one-thread gesdd's."""
    a = np.random.default_rng(n).standard_normal((n, n)).astype(dtype)
    arr = a[None] if layout == "batched" else a
    t, l = _both(arr, "transposed" if layout == "transposed" else "contiguous")
    tol = {"rtol": 1e-3, "atol": 2e-4} if dtype == "float32" else {"rtol": 1e-9, "atol": 1e-10}
    expected = [x.numpy() for x in torch.linalg.svd(t, full_matrices=full_matrices)]
    got = tl.linalg.svd(l, full_matrices=full_matrices)
    assert [tuple(x.stride()) for x in got] == [tuple(x.stride()) for x in torch.linalg.svd(t, full_matrices=full_matrices)]
    for g, e in zip(_svd_sign_free(*[x.numpy() for x in got]), _svd_sign_free(*expected)):
        np.testing.assert_allclose(g, e, **tol)
    threads = tl.get_num_threads()
    try:
        tl.set_num_threads(1)
        single = tl.linalg.svd(l, full_matrices=full_matrices)
    finally:
        tl.set_num_threads(threads)
    np.testing.assert_array_equal(got[1].numpy(), single[1].numpy())  # the same gebrd and bdsdc
    for g, s in zip(got, single):
        np.testing.assert_allclose(g.numpy(), s.numpy(), rtol=0, atol=50 * np.finfo(dtype).eps)


def test_large_square_svd_scaled_nonfinite_and_gradient_like_torch():
    a = np.random.default_rng(1).standard_normal((170, 170))
    for scale in (1e-300, 1e300):  # gesdd scales such matrices first: the threaded path hands them to it
        s_t = torch.linalg.svdvals(torch.tensor(a * scale)).numpy()
        np.testing.assert_allclose(tl.linalg.svd(tl.tensor(a * scale))[1].numpy(), s_t, rtol=1e-10)
    bad = a.copy()  # (an infinity: MKL's gesdd raises from about 50 x 50 up, NaN factors below; torchlite: NaN)
    bad[3, 4] = np.nan  # PyTorch's message names MKL's failure; both raise LinAlgError
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.svd(torch.tensor(bad))
    with pytest.raises(tl.linalg.LinAlgError, match="linalg.svd: The algorithm failed to converge"):
        tl.linalg.svd(tl.tensor(bad))
    grads = []
    for lib in (torch, tl):  # d sum(S) / dA = U Vh, free of the vectors' signs
        x = lib.tensor(a, requires_grad=True)
        grads.append(lib.autograd.grad(lib.linalg.svd(x, full_matrices=False)[1].sum(), x)[0])
    assert_same(grads[1], grads[0], rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("input_dtype", ["complex64", "float32"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("args", [(2,), (3, [1], False), (None, [0, 1], True), (1, [-1], True)], ids=str)
def test_aten_norm_overloads_dtype_like_torch(input_dtype, dtype, args):
    """The aten overloads themselves (norm.ScalarOpt_dtype, norm.ScalarOpt_dim_dtype; torch.norm goes to
    linalg.vector_norm): PyTorch's refuse complex input with any dtype= (a real one by the dtype rule, a complex
    one because the result made in it fails linalg_vector_norm's out= check); real input computes."""
    arr = _complex((2, 3), "complex64")
    arr = arr if input_dtype == "complex64" else arr.real.copy()
    results = []
    for lib, fn in ((torch, torch._C._VariableFunctions.norm), (tl, tl._C._ops.norm)):
        x = lib.tensor(arr, requires_grad=True)
        try:
            y = fn(x, *args, dtype=getattr(lib, dtype))
            results.append((y.detach(), lib.autograd.grad(y.sum(), x)[0]))
        except RuntimeError as e:
            results.append(e)
    if isinstance(results[0], Exception):
        assert isinstance(results[1], RuntimeError), results[1]
        if "dtype should be" in str(results[0]):
            assert str(results[0]) == str(results[1])
    else:
        assert not isinstance(results[1], Exception), results[1]
        for g, e in zip(results[1], results[0]):
            assert_same(g, e, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("args", [(2,), (3,), (INF,), (None, [1], False), (1, [0], True), (0.5, [1], True)], ids=str)
def test_aten_norm_overloads_of_complex_gradients_like_torch(args):
    arr = _complex((2, 3), "complex128", seed=4)
    results = []
    for lib, fn in ((torch, torch._C._VariableFunctions.norm), (tl, tl._C._ops.norm)):
        x = lib.tensor(arr, requires_grad=True)
        y = fn(x, *args)
        results.append((y.detach(), lib.autograd.grad((y * y).sum(), x)[0]))
    for g, e in zip(results[1], results[0]):
        assert_same(g, e, rtol=1e-10, atol=1e-12)
