"""complex32 ops PyTorch's CPU computes that torchlite used to refuse (index_add, index_fill, any/all/
count_nonzero, addcmul, flip/rot90 where PyTorch copies rows), and the vectorized mul/add, against
PyTorch bit for bit (NaNs compared as NaNs: the sign of a NaN PyTorch's vector code produces is not
specified). docs/complex.md, section complex32."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import torchlite as tl

warnings.filterwarnings("ignore", "ComplexHalf support is experimental")

# float16 specials: infinities, nan, signed zeros, subnormals (smallest and largest), the largest finite,
# values that overflow when multiplied, and ones that round.
SPECIAL = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 6e-8, -6.1e-5, 1e-5, 65504.0, -300.0, 255.9, 1.0, -1.0,
                    0.1, 3.0e4], np.float32)


def values(shape, seed, special=True):
    """complex64 values: random of mixed magnitudes, a third of them built from SPECIAL parts."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    scale = lambda: rng.choice([1e-6, 1e-3, 1.0, 30.0, 1e3], n)
    v = np.empty(n, np.complex64)  # parts set one by one (x + 1j * inf would make a nan real part)
    v.real, v.imag = rng.standard_normal(n) * scale(), rng.standard_normal(n) * scale()
    if special:
        k = n // 3
        v.real[:k], v.imag[:k] = rng.choice(SPECIAL, k), rng.choice(SPECIAL, k)
        rng.shuffle(v)
    return v.reshape(shape)


def pair(shape, seed, special=True):
    v = values(shape, seed, special)
    return tl.tensor(v).to(tl.complex32), torch.tensor(v).to(torch.complex32)


def half_bits(t):
    """float16 bit patterns of a complex32 tensor's parts, every NaN as 0x7e00."""
    if isinstance(t, torch.Tensor):
        h = torch.view_as_real(t.detach()).contiguous().numpy().view(np.uint16)
    else:
        h = tl.view_as_real(t.detach()).contiguous().numpy().view(np.uint16)
    nan = ((h & 0x7C00) == 0x7C00) & ((h & 0x03FF) != 0)
    return np.where(nan, np.uint16(0x7E00), h)


def same(got, want):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    if want.dtype == torch.complex32:
        np.testing.assert_array_equal(half_bits(got), half_bits(want))
    else:
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def raises_like(f_tl, f_torch):
    with pytest.raises(Exception) as want:
        f_torch()
    with pytest.raises(want.type) as got:
        f_tl()
    return str(got.value), str(want.value)


# ------------------------------------------------------------------------------------ mul / add


@pytest.mark.parametrize("special", [False, True])
def test_mul_bits(special):
    (a, ta), (b, tb) = pair((4099,), 1, special), pair((4099,), 2, special)  # 4099: vector body and tail
    same(a * b, ta * tb)
    same(tl.mul(a, b, out=tl.empty(0, dtype=tl.complex32)), torch.mul(ta, tb, out=torch.empty(0, dtype=torch.complex32)))
    c = a.clone()
    c.mul_(b)
    same(c, ta * tb)


def test_mul_every_pair_of_specials():
    parts = SPECIAL
    z = np.empty(parts.size ** 2, np.complex64)  # 225 values
    z.real, z.imag = np.repeat(parts, parts.size), np.tile(parts, parts.size)
    a_np = np.repeat(z, z.size)
    b_np = np.tile(z, z.size)
    a, ta = tl.tensor(a_np).to(tl.complex32), torch.tensor(a_np).to(torch.complex32)
    b, tb = tl.tensor(b_np).to(tl.complex32), torch.tensor(b_np).to(torch.complex32)
    same(a * b, ta * tb)


def test_mul_layouts_and_numbers():
    (a, ta), (b, tb) = pair((37, 45), 3), pair((37, 45), 4)
    same(a.t() * b.t(), ta.t() * tb.t())               # strided
    same(a[:, ::2] * b[:, ::2], ta[:, ::2] * tb[:, ::2])
    same(a * b[:1], ta * tb[:1])                       # broadcast rows
    same(a * b[0, :1], ta * tb[0, :1])                 # a broadcast element (either side)
    same(b[0, :1] * a, tb[0, :1] * ta)
    for c in (0.3 + 2j, -1.5, 2, 1e-3j, 1e5 + 1j):
        same(a * c, ta * c)
        same(c * a, c * ta)
    same(a[0, 0] * b, ta[0, 0] * tb)                   # 0-d
    same(a[:0] * b[:0], ta[:0] * tb[:0])               # empty


@pytest.mark.parametrize("alpha", [1, -1, 2, 0.1 + 0.3j, 0.123456789, -3.5 - 1e-3j])
def test_add_sub_alpha_bits(alpha):
    (a, ta), (b, tb) = pair((2051,), 5), pair((2051,), 6)
    same(tl.add(a, b, alpha=alpha), torch.add(ta, tb, alpha=alpha))
    same(tl.sub(a, b, alpha=alpha), torch.sub(ta, tb, alpha=alpha))
    same(tl.add(a, b[:1], alpha=alpha), torch.add(ta, tb[:1], alpha=alpha))
    same(tl.add(a[:1], b, alpha=alpha), torch.add(ta[:1], tb, alpha=alpha))
    same(tl.add(a[::3], b[::3], alpha=alpha), torch.add(ta[::3], tb[::3], alpha=alpha))


def test_add_alpha_overflow():
    (a, ta) = pair((3,), 7)
    raises_like(lambda: tl.add(a, a, alpha=1e6), lambda: torch.add(ta, ta, alpha=1e6))
    raises_like(lambda: tl.sub(a, a, alpha=70000), lambda: torch.sub(ta, ta, alpha=70000))


@pytest.mark.parametrize("isa", ["avx2", "scalar"])
def test_narrower_paths(isa):
    """The AVX2 and scalar loops (chosen at run time) give the same bits as the AVX-512 one."""
    code = ("import sys, numpy as np, torchlite as tl\n"
            "sys.path.insert(0, 'tests')\n"
            "from test_complex32_gaps import pair, half_bits\n"
            "(a, _), (b, _) = pair((1027,), 11), pair((1027,), 12)\n"
            "out = np.stack([half_bits(a * b), half_bits(tl.add(a, b, alpha=0.1 + 0.3j)), half_bits(a * (0.3 - 2j))])\n"
            "sys.stdout.write(out.tobytes().hex())\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    run = lambda env: subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True,
                                     check=True).stdout
    base = dict(os.environ)
    base.pop("TORCHLITE_COMPLEX32_ISA", None)
    assert run(dict(base, TORCHLITE_COMPLEX32_ISA=isa)) == run(base)


# ------------------------------------------------------------------------------------ addcmul


@pytest.mark.parametrize("value", [1, 2.0, 0.7 - 1.3j, -0.1])
def test_addcmul(value):
    (s, ts), (a, ta), (b, tb) = pair((40, 33), 1), pair((40, 33), 2), pair((40, 33), 3)
    same(tl.addcmul(s, a, b, value=value), torch.addcmul(ts, ta, tb, value=value))
    same(s.addcmul(a.t().t(), b[:1], value=value), ts.addcmul(ta, tb[:1], value=value))
    same(tl.addcmul(s.t(), a.t(), b.t(), value=value), torch.addcmul(ts.t(), ta.t(), tb.t(), value=value))
    c, tc = s.clone(), ts.clone()
    c.addcmul_(a, b, value=value)
    tc.addcmul_(ta, tb, value=value)
    same(c, tc)
    out, tout = tl.empty(0, dtype=tl.complex32), torch.empty(0, dtype=torch.complex32)
    same(tl.addcmul(s, a, b, value=value, out=out), torch.addcmul(ts, ta, tb, value=value, out=tout))


def test_addcmul_mixed_and_errors():
    (s, ts), (a, ta) = pair((5,), 4), pair((5,), 5)
    h = tl.tensor([1.0, -2.0, 0.5, 3.0, 0.0]).to(tl.float16)
    th = torch.tensor([1.0, -2.0, 0.5, 3.0, 0.0]).to(torch.float16)
    same(tl.addcmul(s, a, h), torch.addcmul(ts, ta, th))
    same(tl.addcmul(s[0], a, a), torch.addcmul(ts[0], ta, ta))  # 0-d self broadcast
    raises_like(lambda: tl.addcmul(s, a, a, value=1e6), lambda: torch.addcmul(ts, ta, ta, value=1e6))
    raises_like(lambda: tl.addcdiv(s, a, a), lambda: torch.addcdiv(ts, ta, ta))  # PyTorch refuses addcdiv


# ------------------------------------------------------------------------------------ index_add / index_fill


@pytest.mark.parametrize("alpha", [1, 2, 0.3 - 0.7j, 1e-3])
def test_index_add(alpha):
    (x, tx), (src, tsrc) = pair((6, 7), 8), pair((9, 7), 9)
    idx = [3, 0, 3, 5, 1, 3, 0, 2, 5]  # repeated indices accumulate in order
    i, ti = tl.tensor(idx), torch.tensor(idx)
    same(x.index_add(0, i, src, alpha=alpha), tx.index_add(0, ti, tsrc, alpha=alpha))
    same(x.t().index_add(1, i, src.t(), alpha=alpha), tx.t().index_add(1, ti, tsrc.t(), alpha=alpha))
    (src1, tsrc1) = pair((6, 9), 10)
    same(x.index_add(-1, i[:7] % 6, src1[:, :7], alpha=alpha), tx.index_add(-1, ti[:7] % 6, tsrc1[:, :7], alpha=alpha))
    # 1-D self: PyTorch's own loop (the same rounding)
    same(x[0].index_add(0, i % 7, src[:, 0], alpha=alpha), tx[0].index_add(0, ti % 7, tsrc[:, 0], alpha=alpha))
    same(x[0, 0].index_add(0, tl.tensor([0]), src[0, 0], alpha=alpha),
         tx[0, 0].index_add(0, torch.tensor([0]), tsrc[0, 0], alpha=alpha))
    y, ty = x.clone(), tx.clone()
    y.index_add_(0, i.to(tl.int32), src, alpha=alpha)
    ty.index_add_(0, ti.to(torch.int32), tsrc, alpha=alpha)
    same(y, ty)


def test_index_add_errors():
    (x, tx), (src, tsrc) = pair((4, 3), 1), pair((2, 3), 2)
    i, ti = tl.tensor([0, 9]), torch.tensor([0, 9])
    raises_like(lambda: x.index_add(0, i, src), lambda: tx.index_add(0, ti, tsrc))
    i, ti = tl.tensor([0, 1]), torch.tensor([0, 1])
    raises_like(lambda: x.index_add(0, i, src, alpha=1e6), lambda: tx.index_add(0, ti, tsrc, alpha=1e6))
    raises_like(lambda: x.index_add(0, i, src.to(tl.complex64)), lambda: tx.index_add(0, ti, tsrc.to(torch.complex64)))


def test_index_fill():
    (x, tx) = pair((5, 6), 3)
    for value in (2 - 3j, 1.5, float("inf"), float("nan"), 65504.0, 7):
        same(x.index_fill(1, tl.tensor([4, 0, 4]), value), tx.index_fill(1, torch.tensor([4, 0, 4]), value))
        same(x.t().index_fill(0, tl.tensor([-1]), value), tx.t().index_fill(0, torch.tensor([-1]), value))
    v, tv = pair((), 4)
    same(x.index_fill(0, tl.tensor([1, 3]), v), tx.index_fill(0, torch.tensor([1, 3]), tv))
    y, ty = x.clone(), tx.clone()
    y.index_fill_(0, tl.tensor([2]), 1j)
    ty.index_fill_(0, torch.tensor([2]), 1j)
    same(y, ty)
    e, te = x[:1].expand(4, 6).clone(), tx[:1].expand(4, 6).clone()
    same(e.index_fill(0, tl.tensor([0]), 3), te.index_fill(0, torch.tensor([0]), 3))
    raises_like(lambda: x.index_fill(0, tl.tensor([1]), 1e6), lambda: tx.index_fill(0, torch.tensor([1]), 1e6))
    raises_like(lambda: x.index_fill(0, tl.tensor([9]), 1), lambda: tx.index_fill(0, torch.tensor([9]), 1))


# ------------------------------------------------------------------------------------ any / all / count_nonzero


def bool_values():
    # zeros (both signs), numbers with one zero part, nan and inf parts
    parts = np.array([0.0, -0.0, 1.0, np.nan, np.inf, 6e-8])
    z = np.empty(len(parts) ** 2, np.complex64)
    z.real, z.imag = np.repeat(parts, len(parts)), np.tile(parts, len(parts))
    z = np.concatenate([z, np.zeros(6, np.complex64)])  # 42 values
    return tl.tensor(z).to(tl.complex32), torch.tensor(z).to(torch.complex32)


def test_any_all_count_nonzero():
    x, tx = bool_values()
    x, tx = x.reshape(6, 7), tx.reshape(6, 7)
    for name in ("any", "all"):
        f = lambda t, *a, **k: getattr(t, name)(*a, **k)
        same(f(x), f(tx))
        for d in (0, 1, -1):
            same(f(x, d), f(tx, d))
            same(f(x, d, keepdim=True), f(tx, d, keepdim=True))
        same(f(x, (0, 1)), f(tx, (0, 1)))
        same(f(x.t(), 0), f(tx.t(), 0))
        same(f(x[:, ::2], 1), f(tx[:, ::2], 1))
        same(f(x[:0], 0), f(tx[:0], 0))  # empty: any False, all True
        same(f(x[0, 0]), f(tx[0, 0]))   # 0-d
        out, tout = tl.empty(0, dtype=tl.bool), torch.empty(0, dtype=torch.bool)
        same(getattr(tl, name)(x, 1, out=out), getattr(torch, name)(tx, 1, out=tout))
    same(x.count_nonzero(), tx.count_nonzero())
    same(x.count_nonzero(0), tx.count_nonzero(0))
    same(x.count_nonzero((0, 1)), tx.count_nonzero((0, 1)))
    same(tl.count_nonzero(x.t(), -1), torch.count_nonzero(tx.t(), -1))
    z, tz = tl.zeros(3, dtype=tl.complex32), torch.zeros(3, dtype=torch.complex32)
    same(z.any(), tz.any())
    same(z.all(), tz.all())


# ------------------------------------------------------------------------------------ flip / rot90


def flip_cases():
    rng = np.random.default_rng(0)
    cases = []
    for _ in range(300):
        nd = int(rng.integers(1, 5))
        shape = [int(s) for s in rng.choice([1, 2, 3, 4], nd)]
        steps = [int(s) for s in rng.choice([1, 2], nd)]
        perm = [int(p) for p in rng.permutation(nd)]
        expand = int(rng.integers(-1, nd))
        dims = [int(d) for d in rng.choice(nd, int(rng.integers(1, nd + 1)), replace=False)]
        cases.append((shape, steps, perm, expand, dims))
    return cases


def make_view(m, base, shape, steps, perm, expand):
    v = base[tuple(slice(0, s * st, st) for s, st in zip(shape, steps))].permute(*perm)
    if expand >= 0 and v.shape[expand] == 1:
        sizes = list(v.shape)
        sizes[expand] = 3
        v = v.expand(*sizes)
    return v


def test_flip_runs_where_pytorch_copies_rows():
    """PyTorch's flip of complex32 runs when the innermost dim is contiguous and not flipped (or nothing is
    flipped), and raises its NotImplementedError otherwise: the same cases here, on 300 random views."""
    ran = refused = 0
    for shape, steps, perm, expand, dims in flip_cases():
        full = [s * st for s, st in zip(shape, steps)]
        x, tx = pair(full, sum(full))
        v, tv = make_view(tl, x, shape, steps, perm, expand), make_view(torch, tx, shape, steps, perm, expand)
        try:
            want = torch.flip(tv, dims)
        except NotImplementedError:
            with pytest.raises(NotImplementedError, match="flip_cpu"):
                tl.flip(v, dims)
            refused += 1
            continue
        same(tl.flip(v, dims), want)
        ran += 1
    assert ran > 50 and refused > 50


def test_rot90_fliplr_flipud():
    (x, tx) = pair((3, 4, 5), 6)
    for k in (-1, 3, 0, 4):
        same(tl.rot90(x, k, (0, 1)), torch.rot90(tx, k, (0, 1)))
    for k in (1, 2, -2):
        raises_like(lambda: tl.rot90(x, k, (0, 2)), lambda: torch.rot90(tx, k, (0, 2)))
    same(tl.rot90(x, 1, (0, 1)), torch.rot90(tx, 1, (0, 1)))  # flips dim 1 only: rows copied
    same(tl.flipud(x), torch.flipud(tx))
    raises_like(lambda: tl.fliplr(x[0]), lambda: torch.fliplr(tx[0]))
    same(tl.flip(x, (0,)), torch.flip(tx, (0,)))
    same(tl.flip(x[:, :, :1], (2,)), torch.flip(tx[:, :, :1], (2,)))  # size 1: a copy
    e, te = tl.empty(0, 3, dtype=tl.complex32), torch.empty(0, 3, dtype=torch.complex32)
    same(tl.flip(e, (1,)), torch.flip(te, (1,)))
    m = tl.empty(3, 4, dtype=tl.complex32, device="meta")
    assert tl.flip(m, (1,)).shape == (3, 4)  # PyTorch's meta flip does not refuse


# ------------------------------------------------------------------------------------ found by the audit


def test_var_mean_std_mean():
    (x, tx) = pair((5, 6), 13, special=False)
    for f in ("var_mean", "std_mean"):
        for kw in ({}, {"dim": 1}, {"dim": (0, 1), "keepdim": True}, {"dim": 0, "correction": 0}):
            got, want = getattr(tl, f)(x, **kw), getattr(torch, f)(tx, **kw)
            same(got[0], want[0])
            same(got[1], want[1])
    (c, tc) = pair((5, 6), 14, special=False)  # complex64: the mean from the parts' passes too
    c, tc = c.to(tl.complex64), tc.to(torch.complex64)
    got, want = tl.var_mean(c, 1), torch.var_mean(tc, 1)
    np.testing.assert_allclose(got[1].numpy(), want[1].numpy(), rtol=1e-6)


@pytest.mark.parametrize("ord", [2, 1, float("inf"), 3, -1, 0])
def test_vector_norm_moduli_in_float(ord):
    (x, tx) = pair((300, 7), 15, special=False)
    same(tl.linalg.vector_norm(x, ord, dim=1), torch.linalg.vector_norm(tx, ord, dim=1))
    same(tl.linalg.vector_norm(x, ord), torch.linalg.vector_norm(tx, ord))
    same(x.norm(dim=0), tx.norm(dim=0))


def test_float_power_complex():
    """float_power of a complex base or exponent computes in complex128 (it dropped the imaginary part)."""
    (x, tx) = pair((9,), 16, special=False)
    for cast in (lambda t: t, lambda t: t.to(t.__class__ is torch.Tensor and torch.complex64 or tl.complex64)):
        a, ta = cast(x), cast(tx)
        np.testing.assert_allclose(tl.float_power(a, a).numpy(), torch.float_power(ta, ta).numpy(), rtol=1e-12)
        np.testing.assert_allclose(tl.float_power(a, 2).numpy(), torch.float_power(ta, 2).numpy(), rtol=1e-12)
    f, tf = tl.tensor([2.0, 3.0]), torch.tensor([2.0, 3.0])
    np.testing.assert_allclose(tl.float_power(f, 0.5j).numpy(), torch.float_power(tf, 0.5j).numpy(), rtol=1e-12)
    np.testing.assert_allclose(tl.float_power(2, x).numpy(), torch.float_power(2, tx).numpy(), rtol=1e-12)
    assert tl.float_power(f, f).dtype == tl.float64
    got, want = raises_like(lambda: tl.float_power(x, 2, out=tl.empty(9, dtype=tl.float64)),
                            lambda: torch.float_power(tx, 2, out=torch.empty(9, dtype=torch.float64)))
    assert "ComplexDouble" in got and "ComplexDouble" in want
    raises_like(lambda: x.to(tl.complex64).float_power_(2), lambda: tx.to(torch.complex64).float_power_(2))


def test_refusals_found_by_the_audit():
    (x, tx) = pair((3, 3), 17, special=False)
    raises_like(lambda: tl.linalg.cross(x, x), lambda: torch.linalg.cross(tx, tx))
    raises_like(lambda: tl.ldexp(x, tl.tensor([1, 2, 3])), lambda: torch.ldexp(tx, torch.tensor([1, 2, 3])))
    same(x.chalf(), tx.chalf())
    same(x.cfloat().chalf(), tx.cfloat().chalf())
    assert x.cdouble().dtype == tl.complex128 and x.cfloat().dtype == tl.complex64
