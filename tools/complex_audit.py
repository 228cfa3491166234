"""Calls ~150 common torch functions with complex64 arguments in PyTorch and in torchlite and lists where
torchlite refuses what PyTorch computes (GAP), computes something else (DIFF), or computes what PyTorch
refuses (EXTRA). Run `python tools/complex_audit.py` (add `-v` for every call); tests/test_complex_audit.py
holds torchlite to the result (no DIFF, no GAP outside the documented list in docs/complex.md).

Each entry is (name, call): call(lib, X, Y, M) with X, Y complex64 3x4 tensors (Y without zeros), M a
complex64 4x4 matrix, all made by the library under test from the same values."""
from __future__ import annotations

import sys

import numpy as np

N = 4  # noqa: used by calls below


def _inputs(lib):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(np.complex64)
    y = (rng.uniform(0.5, 1.5, (3, 4)) * np.exp(1j * rng.uniform(-3, 3, (3, 4)))).astype(np.complex64)
    m = (rng.standard_normal((4, 4)) + 1j * rng.standard_normal((4, 4))).astype(np.complex64) + 3 * np.eye(4)
    x[0, 1] = 0
    return tuple(lib.from_numpy(a.astype(np.complex64).copy()) for a in (x, y, m))


# (name, call). Calls read as PyTorch code; `L` is the library (torch or torchlite).
CALLS = [
    # pointwise
    ("abs", lambda L, X, Y, M: L.abs(X)), ("angle", lambda L, X, Y, M: L.angle(X)),
    ("sgn", lambda L, X, Y, M: L.sgn(X)), ("neg", lambda L, X, Y, M: L.neg(X)),
    ("conj_physical", lambda L, X, Y, M: L.conj_physical(X)), ("exp", lambda L, X, Y, M: L.exp(X)),
    ("log", lambda L, X, Y, M: L.log(Y)), ("log2", lambda L, X, Y, M: L.log2(Y)), ("log10", lambda L, X, Y, M: L.log10(Y)),
    ("log1p", lambda L, X, Y, M: L.log1p(X)), ("expm1", lambda L, X, Y, M: L.expm1(X)), ("exp2", lambda L, X, Y, M: L.exp2(X)),
    ("sqrt", lambda L, X, Y, M: L.sqrt(X)), ("rsqrt", lambda L, X, Y, M: L.rsqrt(Y)), ("sin", lambda L, X, Y, M: L.sin(X)),
    ("cos", lambda L, X, Y, M: L.cos(X)), ("tan", lambda L, X, Y, M: L.tan(X)), ("asin", lambda L, X, Y, M: L.asin(X)),
    ("acos", lambda L, X, Y, M: L.acos(X)), ("atan", lambda L, X, Y, M: L.atan(X)), ("sinh", lambda L, X, Y, M: L.sinh(X)),
    ("cosh", lambda L, X, Y, M: L.cosh(X)), ("tanh", lambda L, X, Y, M: L.tanh(X)), ("asinh", lambda L, X, Y, M: L.asinh(X)),
    ("acosh", lambda L, X, Y, M: L.acosh(X)), ("atanh", lambda L, X, Y, M: L.atanh(X)),
    ("sigmoid", lambda L, X, Y, M: L.sigmoid(X)), ("reciprocal", lambda L, X, Y, M: L.reciprocal(Y)),
    ("square", lambda L, X, Y, M: L.square(X)), ("sinc", lambda L, X, Y, M: L.sinc(X)),
    ("add", lambda L, X, Y, M: L.add(X, Y, alpha=2)), ("sub", lambda L, X, Y, M: L.sub(X, Y)),
    ("mul", lambda L, X, Y, M: L.mul(X, Y)), ("div", lambda L, X, Y, M: L.div(X, Y)),
    ("true_divide", lambda L, X, Y, M: L.true_divide(X, Y)), ("pow", lambda L, X, Y, M: L.pow(Y, X)),
    ("pow scalar", lambda L, X, Y, M: L.pow(X, 2.5)), ("float_power", lambda L, X, Y, M: L.float_power(Y, 2)),
    ("rsub", lambda L, X, Y, M: L.rsub(X, Y)), ("logaddexp", lambda L, X, Y, M: L.logaddexp(X, Y)),
    ("addcmul", lambda L, X, Y, M: L.addcmul(X, X, Y, value=2j)), ("addcdiv", lambda L, X, Y, M: L.addcdiv(X, X, Y, value=2j)),
    ("lerp", lambda L, X, Y, M: L.lerp(X, Y, 0.3 + 0.2j)), ("lerp tensor", lambda L, X, Y, M: L.lerp(X, Y, Y)),
    ("where", lambda L, X, Y, M: L.where(X.abs() > 1, X, Y)), ("masked_fill", lambda L, X, Y, M: X.masked_fill(X.abs() > 1, 2j)),
    ("nan_to_num", lambda L, X, Y, M: L.nan_to_num(X)), ("isnan", lambda L, X, Y, M: L.isnan(X)),
    ("isinf", lambda L, X, Y, M: L.isinf(X)), ("isfinite", lambda L, X, Y, M: L.isfinite(X)),
    ("isreal", lambda L, X, Y, M: L.isreal(X)), ("real", lambda L, X, Y, M: L.real(X)), ("imag", lambda L, X, Y, M: L.imag(X)),
    ("view_as_real", lambda L, X, Y, M: L.view_as_real(X)), ("eq", lambda L, X, Y, M: L.eq(X, Y)),
    ("ne", lambda L, X, Y, M: L.ne(X, X)), ("isclose", lambda L, X, Y, M: L.isclose(X, Y)),
    ("allclose", lambda L, X, Y, M: L.allclose(X, X)), ("equal", lambda L, X, Y, M: L.equal(X, X)),
    ("logical_not", lambda L, X, Y, M: L.logical_not(X)), ("logical_and", lambda L, X, Y, M: L.logical_and(X, Y)),
    ("clone", lambda L, X, Y, M: L.clone(X)), ("polar", lambda L, X, Y, M: L.polar(X.abs(), X.angle())),
    ("complex", lambda L, X, Y, M: L.complex(X.real, X.imag)), ("frac", lambda L, X, Y, M: L.frac(X)),
    ("sign", lambda L, X, Y, M: L.sign(X)), ("positive", lambda L, X, Y, M: L.positive(X)),
    ("xlogy", lambda L, X, Y, M: L.xlogy(X, Y)), ("hypot", lambda L, X, Y, M: L.hypot(X, Y)),
    ("fmod", lambda L, X, Y, M: L.fmod(X, Y)), ("remainder", lambda L, X, Y, M: L.remainder(X, Y)),
    ("erf", lambda L, X, Y, M: L.erf(X)), ("clamp", lambda L, X, Y, M: L.clamp(X, 0, 1)),
    ("trunc", lambda L, X, Y, M: L.trunc(X)), ("floor", lambda L, X, Y, M: L.floor(X)), ("round", lambda L, X, Y, M: L.round(X)),
    ("ceil", lambda L, X, Y, M: L.ceil(X)), ("deg2rad", lambda L, X, Y, M: L.deg2rad(X)), ("rad2deg", lambda L, X, Y, M: L.rad2deg(X)),
    ("signbit", lambda L, X, Y, M: L.signbit(X)), ("heaviside", lambda L, X, Y, M: L.heaviside(X, Y)),
    ("copysign", lambda L, X, Y, M: L.copysign(X, Y)), ("nextafter", lambda L, X, Y, M: L.nextafter(X, Y)),
    ("ldexp", lambda L, X, Y, M: L.ldexp(X, L.ones(3, 4))), ("logit", lambda L, X, Y, M: L.logit(X)),
    ("special.expit", lambda L, X, Y, M: L.special.expit(X)), ("nn.functional.tanhshrink", lambda L, X, Y, M: L.nn.functional.tanhshrink(X)),
    # reductions and scans
    ("sum", lambda L, X, Y, M: L.sum(X, 1)), ("mean", lambda L, X, Y, M: L.mean(X, 0)), ("prod", lambda L, X, Y, M: L.prod(X, 1)),
    ("var", lambda L, X, Y, M: L.var(X, 1)), ("std", lambda L, X, Y, M: L.std(X)), ("var_mean", lambda L, X, Y, M: L.var_mean(X, 1)),
    ("std_mean", lambda L, X, Y, M: L.std_mean(X, 0)),
    ("cumsum", lambda L, X, Y, M: L.cumsum(X, 1)), ("cumprod", lambda L, X, Y, M: L.cumprod(X, 0)),
    ("logsumexp", lambda L, X, Y, M: L.logsumexp(X, 1)), ("logcumsumexp", lambda L, X, Y, M: L.logcumsumexp(X, 1)),
    ("any", lambda L, X, Y, M: L.any(X, 1)), ("all", lambda L, X, Y, M: L.all(X)), ("count_nonzero", lambda L, X, Y, M: L.count_nonzero(X, 0)),
    ("nonzero", lambda L, X, Y, M: L.nonzero(X)), ("norm", lambda L, X, Y, M: L.norm(X)), ("dist", lambda L, X, Y, M: L.dist(X, Y, 3)),
    ("renorm", lambda L, X, Y, M: L.renorm(X, 2, 0, 1.0)), ("nansum", lambda L, X, Y, M: L.nansum(X)),
    ("trapezoid", lambda L, X, Y, M: L.trapezoid(X, dx=0.5)), ("cumulative_trapezoid", lambda L, X, Y, M: L.cumulative_trapezoid(X)),
    ("diff", lambda L, X, Y, M: L.diff(X, dim=1)), ("max", lambda L, X, Y, M: L.max(X)), ("amax", lambda L, X, Y, M: L.amax(X, 1)),
    ("argmax", lambda L, X, Y, M: L.argmax(X)), ("sort", lambda L, X, Y, M: L.sort(X)), ("topk", lambda L, X, Y, M: L.topk(X, 2)),
    ("median", lambda L, X, Y, M: L.median(X)), ("unique", lambda L, X, Y, M: L.unique(X)), ("cummax", lambda L, X, Y, M: L.cummax(X, 1)),
    ("aminmax", lambda L, X, Y, M: L.aminmax(X)), ("histc", lambda L, X, Y, M: L.histc(X)),
    # shape and data movement
    ("cat", lambda L, X, Y, M: L.cat([X, Y])), ("stack", lambda L, X, Y, M: L.stack([X, Y])), ("flip", lambda L, X, Y, M: L.flip(X, [0])),
    ("roll", lambda L, X, Y, M: L.roll(X, 1, 1)), ("rot90", lambda L, X, Y, M: L.rot90(X)), ("tril", lambda L, X, Y, M: L.tril(M)),
    ("triu", lambda L, X, Y, M: L.triu(M, 1)), ("diag", lambda L, X, Y, M: L.diag(M)), ("diag_embed", lambda L, X, Y, M: L.diag_embed(X)),
    ("diagonal", lambda L, X, Y, M: L.diagonal(M)), ("trace", lambda L, X, Y, M: L.trace(M)), ("gather", lambda L, X, Y, M: L.gather(X, 1, L.zeros(3, 2, dtype=L.int64))),
    ("scatter_add", lambda L, X, Y, M: L.scatter_add(X, 1, L.zeros(3, 2, dtype=L.int64), Y)),
    ("index_select", lambda L, X, Y, M: L.index_select(X, 1, L.tensor([0, 2]))), ("masked_select", lambda L, X, Y, M: L.masked_select(X, X.abs() > 1)),
    ("take", lambda L, X, Y, M: L.take(X, L.tensor([0, 5]))), ("repeat_interleave", lambda L, X, Y, M: L.repeat_interleave(X, 2, 0)),
    ("tile", lambda L, X, Y, M: L.tile(X, (2,))), ("kron", lambda L, X, Y, M: L.kron(X, Y)), ("narrow_copy", lambda L, X, Y, M: L.narrow_copy(X, 1, 1, 2)),
    ("block_diag", lambda L, X, Y, M: L.block_diag(X, M)), ("cartesian_prod", lambda L, X, Y, M: L.cartesian_prod(X[0], Y[0])),
    ("combinations", lambda L, X, Y, M: L.combinations(X[0], 2)), ("vander", lambda L, X, Y, M: L.vander(X[0], 3)),
    ("unfold", lambda L, X, Y, M: X.unfold(1, 2, 1)), ("movedim", lambda L, X, Y, M: L.movedim(X, 0, 1)),
    ("atleast_3d", lambda L, X, Y, M: L.atleast_3d(X)), ("meshgrid", lambda L, X, Y, M: L.meshgrid(X[0], Y[0], indexing="ij")),
    ("zeros_like", lambda L, X, Y, M: L.zeros_like(X)), ("full_like", lambda L, X, Y, M: L.full_like(X, 1 + 1j)),
    ("fill_", lambda L, X, Y, M: X.clone().fill_(2j)), ("index_add", lambda L, X, Y, M: L.index_add(X, 0, L.tensor([0, 2]), Y[:2])),
    ("put", lambda L, X, Y, M: X.clone().put_(L.tensor([0, 3]), Y[0, :2])), ("chunk cat", lambda L, X, Y, M: L.cat(L.chunk(X, 2, 1), 0)),
    ("view dtype", lambda L, X, Y, M: X.view(L.float32)), ("select_scatter", lambda L, X, Y, M: L.select_scatter(X, Y[0], 0, 0)),
    ("slice_scatter", lambda L, X, Y, M: L.slice_scatter(X, Y[:1], 0, 0, 1)), ("diagonal_scatter", lambda L, X, Y, M: L.diagonal_scatter(M, M[0])),
    # products and linear algebra
    ("matmul", lambda L, X, Y, M: L.matmul(X, M)), ("mm", lambda L, X, Y, M: L.mm(X, M)), ("mv", lambda L, X, Y, M: L.mv(M, X[0])),
    ("dot", lambda L, X, Y, M: L.dot(X[0], Y[0])), ("vdot", lambda L, X, Y, M: L.vdot(X[0], Y[0])), ("inner", lambda L, X, Y, M: L.inner(X, Y)),
    ("outer", lambda L, X, Y, M: L.outer(X[0], Y[0])), ("bmm", lambda L, X, Y, M: L.bmm(M[None], M[None])),
    ("addmm", lambda L, X, Y, M: L.addmm(X, X, M, beta=1j)), ("einsum", lambda L, X, Y, M: L.einsum("ij,jk->ik", X, M)),
    ("tensordot", lambda L, X, Y, M: L.tensordot(X, M, 1)), ("cross", lambda L, X, Y, M: L.linalg.cross(X[:, :3], Y[:, :3])),
    ("cdist", lambda L, X, Y, M: L.cdist(X, Y)), ("linalg.det", lambda L, X, Y, M: L.linalg.det(M)),
    ("linalg.inv", lambda L, X, Y, M: L.linalg.inv(M)), ("linalg.solve", lambda L, X, Y, M: L.linalg.solve(M, X.T)),
    ("linalg.eigvals", lambda L, X, Y, M: L.linalg.eigvals(M)), ("linalg.svdvals", lambda L, X, Y, M: L.linalg.svdvals(M)),
    ("linalg.norm", lambda L, X, Y, M: L.linalg.norm(M)), ("linalg.matrix_norm", lambda L, X, Y, M: L.linalg.matrix_norm(M, "nuc")),
    ("linalg.vander", lambda L, X, Y, M: L.linalg.vander(X)), ("linalg.vecdot", lambda L, X, Y, M: L.linalg.vecdot(X, Y)),
    ("matrix_exp", lambda L, X, Y, M: L.matrix_exp(M * 0.1)), ("pinverse", lambda L, X, Y, M: L.pinverse(X)),
    ("cov", lambda L, X, Y, M: L.cov(X)), ("corrcoef", lambda L, X, Y, M: L.corrcoef(X)), ("chain_matmul", lambda L, X, Y, M: L.linalg.multi_dot([X, M, M])),
    # nn.functional
    ("F.linear", lambda L, X, Y, M: L.nn.functional.linear(X, M, M[0])), ("F.pad", lambda L, X, Y, M: L.nn.functional.pad(X, (1, 1))),
    ("F.dropout eval", lambda L, X, Y, M: L.nn.functional.dropout(X, 0.5, False)), ("F.normalize", lambda L, X, Y, M: L.nn.functional.normalize(X)),
    ("F.mse_loss", lambda L, X, Y, M: L.nn.functional.mse_loss(X, Y)), ("F.l1_loss", lambda L, X, Y, M: L.nn.functional.l1_loss(X, Y)),
    ("F.softmax", lambda L, X, Y, M: L.nn.functional.softmax(X, 1)), ("F.conv1d", lambda L, X, Y, M: L.nn.functional.conv1d(X[None], M[:2, :3, None])),
    ("F.relu", lambda L, X, Y, M: L.nn.functional.relu(X)), ("F.silu", lambda L, X, Y, M: L.nn.functional.silu(X)),
    ("F.cosine_similarity", lambda L, X, Y, M: L.nn.functional.cosine_similarity(X, Y)),
    ("F.pairwise_distance", lambda L, X, Y, M: L.nn.functional.pairwise_distance(X, Y)),
    ("fft.fft", lambda L, X, Y, M: L.fft.fft(X)), ("fft.ifft2", lambda L, X, Y, M: L.fft.ifft2(X)),
    ("fft.fftshift", lambda L, X, Y, M: L.fft.fftshift(X)), ("fft.hfft", lambda L, X, Y, M: L.fft.hfft(X)),
]


def _as_numpy(r):
    """A result as a list of NumPy arrays / Python values (named tuples and tuples flattened)."""
    if isinstance(r, (tuple, list)):
        return [v for item in r for v in _as_numpy(item)]
    if hasattr(r, "numpy"):
        if hasattr(r, "resolve_conj"):
            r = r.resolve_conj().resolve_neg()
        return [r.detach().numpy()]
    return [np.asarray(r)]


def _dtype_name(r):
    if isinstance(r, (tuple, list)):
        return [_dtype_name(v) for v in r]
    return str(getattr(r, "dtype", type(r).__name__)).split(".")[-1]


def _run(lib, call):
    import warnings
    X, Y, M = _inputs(lib)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return call(lib, X, Y, M), None
        except Exception as e:  # noqa: BLE001 - an audit records every refusal
            return None, e


def audit(calls=CALLS):
    """[(name, status, detail)]: status OK (same values), BOTH_RAISE, GAP, DIFF or EXTRA."""
    import torch

    import torchlite
    rows = []
    for name, call in calls:
        (rt, et), (rl, el) = _run(torch, call), _run(torchlite, call)
        if et is not None and el is not None:
            status = "BOTH_RAISE" if type(et).__name__ == type(el).__name__ else "DIFF"
            detail = f"torch {type(et).__name__}: {str(et)[:80]} | torchlite {type(el).__name__}: {str(el)[:80]}"
        elif et is not None:
            status, detail = "EXTRA", f"torch {type(et).__name__}: {str(et)[:100]}"
        elif el is not None:
            status, detail = "GAP", f"torchlite {type(el).__name__}: {str(el)[:100]}"
        else:
            a, b = _as_numpy(rt), _as_numpy(rl)
            same = _dtype_name(rt) == _dtype_name(rl) and len(a) == len(b) and all(
                x.shape == y.shape and np.allclose(x, y, rtol=1e-4, atol=1e-5, equal_nan=True) for x, y in zip(a, b))
            status = "OK" if same else "DIFF"
            detail = "" if same else f"torch {_dtype_name(rt)} vs torchlite {_dtype_name(rl)}"
        rows.append((name, status, detail))
    return rows


def main(argv):
    rows = audit()
    verbose = "-v" in argv
    counts = {}
    for name, status, detail in rows:
        counts[status] = counts.get(status, 0) + 1
        if verbose or status in ("GAP", "DIFF", "EXTRA"):
            print(f"{status:10} {name:28} {detail}")
    print(f"{len(rows)} calls: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 1 if counts.get("DIFF") else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
