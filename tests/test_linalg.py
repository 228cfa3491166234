"""mm, bmm and matmul against PyTorch: every rank combination of matmul, batch broadcasting, transposed/sliced/expanded
operands, BLAS dtypes (float32/float64) and the fallback dtypes, empty dimensions, out=, the @ operator, errors and
the meta device."""
import numpy as np
import pytest
import torch

import torchlite as tl
from conftest import (LAYOUTS, assert_same, dtype_name, error_types_like, expect_like_torch, from_torch, layout,
                      make, mentions_shape, tl_dtype, torch_dtype, torch_result)

# Float tolerances: results are sums of k products; BLAS and torch may add in different orders.
TOL = {"float32": dict(atol=1e-4, rtol=1e-5), "float64": dict(atol=1e-12, rtol=1e-12)}

MATMUL_SHAPES = [
    ((3,), (3,)),            # dot -> 0-d
    ((3,), (3, 4)),          # vector @ matrix
    ((3, 4), (4,)),          # matrix @ vector
    ((3, 4), (4, 5)),
    ((1, 1), (1, 1)),
    ((2, 1, 3, 4), (5, 4, 2)),   # batch dims broadcast: (2, 1) with (5,) -> (2, 5)
    ((3, 4), (2, 4, 5)),         # matrix broadcast over the batch of the other
    ((2, 3, 4), (4, 5)),
    ((2, 3, 4), (4,)),
    ((4,), (2, 4, 5)),
    ((5,), (2, 3, 5, 4)),
    ((2, 3, 4), (2, 4, 5)),
    ((1, 3, 4), (2, 4, 5)),
    ((2, 1, 1, 3, 4), (3, 1, 4, 2)),
    ((7, 1), (1, 6)),            # k = 1 (outer product)
]

BAD_SHAPES = [
    ((3,), (4,)),
    ((3, 4), (5, 6)),
    ((3,), (4, 5)),
    ((3, 4), (5,)),
    ((2, 3, 4), (3, 4, 5)),      # batch 2 vs 3
    ((2, 3, 4), (2, 5, 6)),      # inner 4 vs 5
    ((), (3,)),
    ((3,), ()),
    ((), ()),
]


def _dtype_tol(dtype):
    return TOL.get(dtype, {})


# ---------------------------------------------------------------- matmul: shapes and dtypes

@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES + BAD_SHAPES, ids=repr)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matmul_shapes(sa, sb, dtype):
    a, b = make(sa, dtype, 1), make(sb, dtype, 2)
    x, y = from_torch(a), from_torch(b)
    expect_like_torch(lambda: tl.matmul(x, y), lambda: torch.matmul(a, b), **_dtype_tol(dtype))
    expect_like_torch(lambda: x.matmul(y), lambda: a.matmul(b), **_dtype_tol(dtype))
    expect_like_torch(lambda: x @ y, lambda: a @ b, **_dtype_tol(dtype))


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES, ids=repr)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"])
def test_matmul_fallback_dtypes(sa, sb, dtype):
    """Dtypes without BLAS: integers are exact (small values, no overflow), half types within rounding, bool is an
    error (torch: NotImplementedError "addmm_impl_cpu_" not implemented for 'Bool')."""
    a, b = make(sa, dtype, 3, -4, 4), make(sb, dtype, 4, -4, 4)
    x, y = from_torch(a), from_torch(b)
    expect_like_torch(lambda: tl.matmul(x, y), lambda: torch.matmul(a, b))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", ["mm", "bmm", "matmul_1d"])
def test_half_matmul_accumulates_in_float32(dtype, op):
    """k = 256 products: accumulated in float32 and rounded once, every result is within one half/bfloat16 ulp of
    the exact value (accumulating in half would be off by many ulps)."""
    g = torch.Generator().manual_seed(5)
    dt = torch_dtype(dtype)
    if op == "mm":
        a, b = torch.rand(8, 256, generator=g).to(dt), torch.rand(256, 6, generator=g).to(dt)
    elif op == "bmm":
        a, b = torch.rand(2, 8, 256, generator=g).to(dt), torch.rand(2, 256, 6, generator=g).to(dt)
    else:
        a, b = torch.rand(256, generator=g).to(dt), torch.rand(256, generator=g).to(dt)
    fn = {"mm": "mm", "bmm": "bmm", "matmul_1d": "matmul"}[op]
    got = getattr(tl, fn)(from_torch(a), from_torch(b))
    assert dtype_name(got.dtype) == dtype
    exact = getattr(torch, fn)(a.double(), b.double())
    ulp = torch.finfo(dt).eps * exact.abs()
    err = (torch.tensor(got.float().tolist(), dtype=torch.float64) - exact).abs()
    assert bool((err <= ulp).all()), (err - ulp).max()


# ---------------------------------------------------------------- mm and bmm

@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8"])
@pytest.mark.parametrize("m,k,n", [(3, 4, 5), (1, 7, 1), (17, 33, 9), (64, 128, 96), (5, 1, 5)])
def test_mm(dtype, m, k, n):
    a, b = make((m, k), dtype, 6, -3, 3), make((k, n), dtype, 7, -3, 3)
    if dtype == "uint8":  # values 1..9 wrap around in uint8 arithmetic like torch's
        a, b = make((m, k), dtype, 6), make((k, n), dtype, 7)
    tol = {"float32": dict(atol=2e-3, rtol=1e-5), "float64": dict(atol=1e-10, rtol=1e-12)}.get(dtype, {})
    got = tl.mm(from_torch(a), from_torch(b))
    assert_same(got, torch.mm(a, b), **tol)
    assert got.is_contiguous()
    assert_same(from_torch(a).mm(from_torch(b)), a.mm(b), **tol)


@pytest.mark.parametrize("la", LAYOUTS)
@pytest.mark.parametrize("lb", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "float16"])
def test_mm_layouts(la, lb, dtype):
    """Transposed operands go to BLAS with a transpose flag, sliced ones (no unit stride) and expanded ones
    (stride 0, not a valid BLAS leading dimension) must be copied or handled by the fallback."""
    a, b = make((5, 6), dtype, 8), make((6, 4), dtype, 9)
    ta, xa = layout(a, la)
    tb, xb = layout(b, lb)
    assert_same(tl.mm(xa, xb), torch.mm(ta, tb), **_dtype_tol(dtype))
    assert_same(tl.matmul(xa, xb), torch.matmul(ta, tb), **_dtype_tol(dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bfloat16"])
def test_bmm(dtype):
    a, b = make((3, 4, 5), dtype, 10), make((3, 5, 2), dtype, 11)
    x, y = from_torch(a), from_torch(b)
    assert_same(tl.bmm(x, y), torch.bmm(a, b), **_dtype_tol(dtype))
    assert_same(x.bmm(y), a.bmm(b), **_dtype_tol(dtype))
    # transposed / permuted / sliced / expanded batches
    at, bt = make((3, 5, 4), dtype, 12), make((3, 2, 5), dtype, 13)
    assert_same(tl.bmm(from_torch(at).transpose(1, 2), from_torch(bt).transpose(1, 2)),
                torch.bmm(at.transpose(1, 2), bt.transpose(1, 2)), **_dtype_tol(dtype))
    ap = make((4, 3, 5), dtype, 14)
    assert_same(tl.bmm(from_torch(ap).permute(1, 0, 2), y), torch.bmm(ap.permute(1, 0, 2), b), **_dtype_tol(dtype))
    big = make((6, 4, 10), dtype, 15)
    assert_same(tl.bmm(from_torch(big)[::2, :, ::2], y), torch.bmm(big[::2, :, ::2], b), **_dtype_tol(dtype))
    one = make((1, 4, 5), dtype, 16)
    assert_same(tl.bmm(from_torch(one).expand(3, 4, 5), y), torch.bmm(one.expand(3, 4, 5), b), **_dtype_tol(dtype))


@pytest.mark.parametrize("sa,sb", [((2, 3, 4), (3, 4, 5)), ((2, 3, 4), (2, 5, 6)), ((3, 4), (4, 5)),
                                   ((2, 3, 4), (4, 5)), ((2, 3, 4, 5), (2, 3, 5, 4)), ((1, 3, 4), (2, 4, 5))],
                         ids=repr)
def test_bmm_errors(sa, sb):
    """bmm does not broadcast and needs 3-D operands. The op name in the message is torchlite's rule
    (docs/architecture.md: messages start with the op name); torch's messages ("batch1 must be a 3D tensor") lack it."""
    a, b = make(sa, "float32", 17), make(sb, "float32", 18)
    _, err = torch_result(lambda: torch.bmm(a, b))
    assert err is not None
    with pytest.raises(error_types_like(err)) as info:
        tl.bmm(from_torch(a), from_torch(b))
    assert "bmm" in str(info.value)


@pytest.mark.parametrize("sa,sb", [((3, 4), (5, 6)), ((3, 4), (4,)), ((3,), (3, 4)), ((2, 3, 4), (4, 5)),
                                   ((3, 4), (4, 2, 1)), ((), (3, 4))], ids=repr)
def test_mm_errors(sa, sb):
    """mm takes 2-D operands only (matmul is the broadcasting one). The op name in the message is torchlite's rule
    (torch says "self must be a matrix")."""
    a, b = make(sa, "float32", 19), make(sb, "float32", 20)
    _, err = torch_result(lambda: torch.mm(a, b))
    assert err is not None
    with pytest.raises(error_types_like(err)) as info:
        tl.mm(from_torch(a), from_torch(b))
    assert "mm" in str(info.value)


# ---------------------------------------------------------------- batched matmul on views

def test_matmul_batched_views():
    a, b = make((2, 1, 4, 3), "float64", 21), make((5, 4, 2), "float64", 22)
    x, y = from_torch(a), from_torch(b)
    cases = [
        (lambda t: t.transpose(-1, -2), lambda t: t),                 # (2,1,3,4) @ (5,4,2)
        (lambda t: t.transpose(-1, -2), lambda t: t[1:3]),            # batch slice
        (lambda t: t.transpose(-1, -2)[:, :, ::2], lambda t: t),      # m sliced
        (lambda t: t.transpose(-1, -2).expand(2, 5, 3, 4), lambda t: t),  # expanded batch
        (lambda t: t.transpose(-1, -2), lambda t: t.transpose(-1, -2).contiguous().transpose(-1, -2)),
    ]
    for fa, fb in cases:
        assert_same(tl.matmul(fa(x), fb(y)), torch.matmul(fa(a), fb(b)), **TOL["float64"])
    assert_same(tl.matmul(x[0, 0].t(), y[0]), torch.matmul(a[0, 0].t(), b[0]), **TOL["float64"])
    assert_same(tl.matmul(y[:, :, 1], x[1, 0]), torch.matmul(b[:, :, 1], a[1, 0]), **TOL["float64"])


# ---------------------------------------------------------------- empty dimensions

@pytest.mark.parametrize("sa,sb", [((3, 0), (0, 4)), ((0, 3), (3, 4)), ((3, 4), (4, 0)), ((0,), (0,)),
                                   ((0,), (0, 3)), ((2, 0), (0,)), ((2, 3, 0), (0, 4)), ((0, 3, 4), (4, 5)),
                                   ((2, 0, 3), (1, 3, 4)), ((0, 2, 3), (3,))], ids=repr)
@pytest.mark.parametrize("dtype", ["float32", "int64", "float16"])
def test_matmul_empty(sa, sb, dtype):
    """k = 0 gives zeros (an empty sum), m = 0 or n = 0 gives an empty result."""
    a, b = torch.ones(sa, dtype=torch_dtype(dtype)), torch.ones(sb, dtype=torch_dtype(dtype))
    x, y = tl.ones(sa, dtype=tl_dtype(dtype)), tl.ones(sb, dtype=tl_dtype(dtype))
    expect_like_torch(lambda: tl.matmul(x, y), lambda: torch.matmul(a, b))
    if len(sa) == 2 and len(sb) == 2:
        expect_like_torch(lambda: tl.mm(x, y), lambda: torch.mm(a, b))
    if len(sa) == 3 and len(sb) == 3:
        expect_like_torch(lambda: tl.bmm(x, y), lambda: torch.bmm(a, b))


def test_k_zero_overwrites_out():
    """An empty sum writes zeros: garbage in out= must not survive."""
    out = tl.full((3, 4), 7.0)
    tl.mm(tl.ones(3, 0), tl.ones(0, 4), out=out)
    assert out.tolist() == torch.mm(torch.ones(3, 0), torch.ones(0, 4)).tolist()
    out = tl.full((2, 3, 4), 7.0)
    tl.bmm(tl.ones(2, 3, 0), tl.ones(2, 0, 4), out=out)
    assert out.tolist() == torch.zeros(2, 3, 4).tolist()


# ---------------------------------------------------------------- out=

@pytest.mark.parametrize("op,sa,sb", [("mm", (3, 4), (4, 5)), ("bmm", (2, 3, 4), (2, 4, 5)), ("matmul", (3, 4), (4, 5)),
                                      ("matmul", (3,), (3,)), ("matmul", (2, 3, 4), (4,)),
                                      ("matmul", (2, 1, 3, 4), (5, 4, 2)), ("matmul", (4,), (4, 2))], ids=repr)
@pytest.mark.parametrize("out_shape", [(0,), "same", (7,)], ids=repr)
def test_out(op, sa, sb, out_shape):
    a, b = make(sa, "float32", 23), make(sb, "float32", 24)
    want = getattr(torch, op)(a, b)
    out = tl.empty(tuple(want.shape) if out_shape == "same" else out_shape)
    r = getattr(tl, op)(from_torch(a), from_torch(b), out=out)
    assert r is out
    assert_same(out, want, **TOL["float32"])


@pytest.mark.parametrize("op,sa,sb", [("mm", (3, 4), (4, 5)), ("bmm", (2, 3, 4), (2, 4, 5)), ("matmul", (3, 4), (4, 5)),
                                      ("matmul", (3,), (3,))], ids=repr)
@pytest.mark.parametrize("out_dtype", ["float64", "int64", "float16"])
def test_out_dtype_mismatch(op, sa, sb, out_dtype):
    a, b = make(sa, "float32", 25), make(sb, "float32", 26)
    expect_like_torch(lambda: getattr(tl, op)(from_torch(a), from_torch(b), out=tl.empty(0, dtype=tl_dtype(out_dtype))),
                      lambda: getattr(torch, op)(a, b, out=torch.empty(0, dtype=torch_dtype(out_dtype))))


def test_out_non_contiguous_is_written_in_place():
    """A correctly-shaped strided out= keeps its strides and writes into its base."""
    a, b = make((2, 3), "float32", 27), make((3, 2), "float32", 28)
    base_t, base = torch.zeros(5, 5), tl.zeros(5, 5)
    torch.mm(a, b, out=base_t[:2, :2])
    out = base[:2, :2]
    r = tl.mm(from_torch(a), from_torch(b), out=out)
    assert r is out and out.stride() == (5, 1)
    assert_same(base, base_t, **TOL["float32"])
    tout_t = torch.empty(2, 2).t()
    torch.mm(a, b, out=tout_t)
    tout = tl.empty(2, 2).t()
    tl.mm(from_torch(a), from_torch(b), out=tout)
    assert tout.stride() == tout_t.stride()
    assert_same(tout, tout_t, **TOL["float32"])


def test_out_aliasing_an_input():
    """torchlite's kernels must work when out aliases an input (docs/architecture.md). Intentional difference:
    torch 2.13 returns zeros for torch.mm(a, a, out=a) (BLAS zeroes C before reading A), so the expected value
    is computed from a copy here."""
    a = make((3, 3), "float64", 29)
    x = from_torch(a)
    want = torch.mm(a, a)
    tl.mm(x, x, out=x)
    assert_same(x, want, **TOL["float64"])
    b = make((2, 3, 3), "float64", 30)
    y = from_torch(b)
    want = torch.bmm(b, b)
    tl.bmm(y, y, out=y)
    assert_same(y, want, **TOL["float64"])


def test_out_bumps_version():
    out = tl.empty(3, 5)
    v = out._version
    tl.mm(tl.ones(3, 4), tl.ones(4, 5), out=out)
    assert out._version > v


# ---------------------------------------------------------------- the @ operator

def test_matmul_operator():
    a, b = make((2, 3, 4), "float32", 31), make((4, 5), "float32", 32)
    x, y = from_torch(a), from_torch(b)
    assert_same(x @ y, a @ b, **TOL["float32"])
    assert_same(x.__matmul__(y), a.__matmul__(b), **TOL["float32"])
    for bad in [2, 2.5, [1.0, 2.0, 3.0, 4.0], None, "a"]:
        with pytest.raises(TypeError):
            x @ bad
        with pytest.raises(TypeError):
            bad @ x
    z = x.clone()
    with pytest.raises(TypeError):  # no @= in PyTorch
        z @= 1


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("sa,sb", [s for s in BAD_SHAPES if () not in s], ids=repr)
def test_shape_mismatch_message_names_both_shapes(sa, sb):
    """torchlite's rule (docs/architecture.md): shape mismatches name both shapes. Stricter than torch, whose
    bmm/broadcast messages name only sizes."""
    x, y = tl.ones(sa), tl.ones(sb)
    with pytest.raises(RuntimeError) as info:
        tl.matmul(x, y)
    msg = str(info.value)
    assert "matmul" in msg or "mm" in msg or "dot" in msg, msg  # matmul is composite: the failing op may be mm/bmm
    assert mentions_shape(msg, sa) and mentions_shape(msg, sb), msg


def test_mm_message():
    with pytest.raises(RuntimeError) as info:
        tl.mm(tl.ones(3, 4), tl.ones(5, 6))
    msg = str(info.value)
    assert "mm" in msg and mentions_shape(msg, (3, 4)) and mentions_shape(msg, (5, 6)), msg
    with pytest.raises(RuntimeError) as info:
        tl.bmm(tl.ones(2, 3, 4), tl.ones(3, 4, 5))
    msg = str(info.value)
    assert "bmm" in msg and mentions_shape(msg, (2, 3, 4)) and mentions_shape(msg, (3, 4, 5)), msg


@pytest.mark.parametrize("sa,sb", [((), (3,)), ((3,), ()), ((), ()), ((), (2, 3))], ids=repr)
def test_zero_dim_operands(sa, sb):
    a, b = torch.ones(sa), torch.ones(sb)
    _, err = torch_result(lambda: torch.matmul(a, b))
    assert isinstance(err, RuntimeError)
    with pytest.raises(RuntimeError, match="1D|1-D|dim"):
        tl.matmul(tl.ones(sa), tl.ones(sb))


@pytest.mark.parametrize("da,db", [("float32", "float64"), ("float64", "float32"), ("int64", "float32"),
                                   ("float16", "bfloat16"), ("int32", "int64")])
@pytest.mark.parametrize("op,sa,sb", [("mm", (3, 4), (4, 5)), ("bmm", (2, 3, 4), (2, 4, 5)),
                                      ("matmul", (3, 4), (4, 5)), ("matmul", (3,), (3,)),
                                      ("matmul", (2, 3, 4), (4,))], ids=repr)
def test_dtype_mismatch(op, sa, sb, da, db):
    """No type promotion in matrix products: mixed dtypes are a RuntimeError naming both dtypes."""
    a, b = make(sa, da, 33), make(sb, db, 34)
    _, err = torch_result(lambda: getattr(torch, op)(a, b))
    assert isinstance(err, RuntimeError)
    with pytest.raises(RuntimeError):
        getattr(tl, op)(from_torch(a), from_torch(b))


def test_bool_matmul_error_names_op_and_dtype():
    with pytest.raises(RuntimeError) as info:
        tl.mm(tl.ones(2, 2, dtype=tl.bool), tl.ones(2, 2, dtype=tl.bool))
    msg = str(info.value)
    assert "mm" in msg and "bool" in msg.lower(), msg


def test_wrong_argument_types():
    for call in [lambda: tl.mm(tl.ones(2, 2), [[1.0, 2.0], [3.0, 4.0]]), lambda: tl.mm(tl.ones(2, 2)),
                 lambda: tl.bmm(tl.ones(1, 2, 2), 3), lambda: tl.matmul("a", tl.ones(2)),
                 lambda: tl.matmul(tl.ones(2), tl.ones(2), tl.ones(2))]:
        with pytest.raises(TypeError):
            call()


# ---------------------------------------------------------------- values that are not finite

def test_nan_and_inf_propagate():
    a = make((3, 4), "float64", 35, 1, 5)
    b = make((4, 2), "float64", 36, 1, 5)  # no zeros in b: nan * b and inf * b are nan/inf in every BLAS
    a[0, 1] = float("nan")
    a[2, 3] = float("inf")
    assert_same(tl.mm(from_torch(a), from_torch(b)), torch.mm(a, b))
    assert_same(tl.matmul(from_torch(a[0]), from_torch(b)), torch.matmul(a[0], b))


# ---------------------------------------------------------------- larger sizes through BLAS

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_large_matmul_against_float64(dtype):
    g = torch.Generator().manual_seed(37)
    a = torch.randn(2, 130, 257, generator=g, dtype=torch.float64)
    b = torch.randn(257, 65, generator=g, dtype=torch.float64)
    exact = (a @ b).numpy()
    got = tl.matmul(from_torch(a.to(torch_dtype(dtype))), from_torch(b.to(torch_dtype(dtype))))
    got_np = np.array(got.tolist())
    scale = np.sqrt(257.0)
    err = np.abs(got_np - exact).max() / scale
    assert err < (1e-5 if dtype == "float32" else 1e-13), err


# ---------------------------------------------------------------- meta

@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES + [s for s in BAD_SHAPES], ids=repr)
def test_matmul_meta(sa, sb):
    a, b = torch.empty(sa, device="meta"), torch.empty(sb, device="meta")
    x, y = tl.empty(sa, device="meta"), tl.empty(sb, device="meta")

    def same_meta(got, want):
        assert got.device.type == "meta"
        assert tuple(got.shape) == tuple(want.shape) and dtype_name(got.dtype) == dtype_name(want.dtype)

    expect_like_torch(lambda: tl.matmul(x, y), lambda: torch.matmul(a, b), check=same_meta)
    expect_like_torch(lambda: x @ y, lambda: a @ b, check=same_meta)


def test_mm_bmm_meta():
    r = tl.mm(tl.empty(1000, 1000, device="meta"), tl.empty(1000, 5, device="meta"))
    assert r.shape == (1000, 5) and r.device.type == "meta" and r.dtype == tl.float32
    r = tl.bmm(tl.empty(3, 4, 5, device="meta", dtype=tl.float64), tl.empty(3, 5, 6, device="meta", dtype=tl.float64))
    assert r.shape == (3, 4, 6) and r.dtype == tl.float64
    r = tl.matmul(tl.empty(2, 1, 3, 4, device="meta", dtype=tl.int64), tl.empty(5, 4, 2, device="meta", dtype=tl.int64))
    assert r.shape == (2, 5, 3, 2) and r.dtype == tl.int64
    with pytest.raises(RuntimeError):
        tl.mm(tl.empty(3, 4, device="meta"), tl.empty(5, 6, device="meta"))
    with pytest.raises(RuntimeError):
        tl.bmm(tl.empty(2, 3, 4, device="meta"), tl.empty(3, 4, 5, device="meta"))


def test_meta_raises_cpu_errors():
    """Intentional difference: torch's meta mm accepts mixed dtypes (torch.mm(meta f32, meta f64) -> f64); torchlite's
    meta kernels raise the CPU errors (docs/architecture.md, "Meta")."""
    with pytest.raises(RuntimeError):
        tl.mm(tl.empty(3, 4, device="meta"), tl.empty(4, 5, device="meta", dtype=tl.float64))
    with pytest.raises(RuntimeError):
        tl.matmul(tl.empty(3, device="meta"), tl.empty(3, device="meta", dtype=tl.float64))
    with pytest.raises(RuntimeError):
        tl.mm(tl.empty(3, 4, device="meta", dtype=tl.bool), tl.empty(4, 5, device="meta", dtype=tl.bool))


def test_meta_out():
    out = tl.empty(0, device="meta")
    r = tl.mm(tl.empty(3, 4, device="meta"), tl.empty(4, 5, device="meta"), out=out)
    assert r is out and out.shape == (3, 5)
