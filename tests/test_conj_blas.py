"""Matrix products of operands with the lazy conjugate/negative bits (docs/complex.md, "Products of conj
operands"), against PyTorch: mm/bmm read a conj operand through the BLAS's conjugate-transpose op when its
memory is read transposed (a.mH, a.conj().T) and conjugate it while packing otherwise; the composites
(matmul, addmm, baddbmm, addbmm, mv, addmv, dot, vdot) pass the bits on unresolved. Values, result bits,
out= tensors with bits, in-place forms on conj views and gradients are compared with torch's."""
import pytest
import torch

import torchlite as tl
from conftest import assert_same, from_torch

CDTYPES = [torch.complex64, torch.complex128]


def rand(shape, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_complex:
        real = torch.float32 if dtype == torch.complex64 else torch.float64
        return torch.complex(torch.randn(shape, generator=g, dtype=real), torch.randn(shape, generator=g, dtype=real))
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g, dtype=dtype)
    return torch.randint(-5, 5, shape, generator=g, dtype=dtype)


def both(t):
    return t, from_torch(t)


# Each layout maps a logical (rows, cols) matrix (or batch) to a pair (torch, torchlite) of equal tensors
# with that layout: the last two dims are the matrix.
def layout(name, shape, dtype, seed):
    *batch, r, c = shape
    bt = tuple(batch)
    if name in ("mH", "cT", "T"):  # the transpose of a contiguous (c, r) matrix
        t, x = both(rand(bt + (c, r), dtype, seed))
        f = {"mH": lambda v: v.mH, "cT": lambda v: v.conj().transpose(-1, -2), "T": lambda v: v.transpose(-1, -2)}[name]
        return f(t), f(x)
    if name == "cslice":  # conj of every other column: neither rows nor columns contiguous
        t, x = both(rand(bt + (r, 2 * c), dtype, seed))
        return t[..., ::2].conj(), x[..., ::2].conj()
    if name == "cexpand":  # conj of one row repeated (stride 0)
        t, x = both(rand(bt + (1, c), dtype, seed))
        return t.expand(bt + (r, c)).conj(), x.expand(bt + (r, c)).conj()
    t, x = both(rand(shape, dtype, seed))
    f = {"plain": lambda v: v, "conj": lambda v: v.conj(), "neg": lambda v: v._neg_view(),
         "conjneg": lambda v: v.conj()._neg_view()}[name]
    return f(t), f(x)


LAYOUTS = ["plain", "conj", "mH", "cT", "T", "cslice", "cexpand", "neg", "conjneg"]
SHAPES = [(3, 4, 5), (1, 4, 5), (3, 4, 1), (1, 4, 1), (17, 33, 9), (0, 3, 2), (2, 0, 3)]


def check(actual, expected):
    assert (actual.is_conj(), actual.is_neg()) == (expected.is_conj(), expected.is_neg())
    assert_same(actual, expected)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("la", LAYOUTS)
@pytest.mark.parametrize("lb", LAYOUTS)
def test_mm_every_pair_of_layouts(dtype, la, lb):
    for i, (m, k, n) in enumerate(SHAPES):
        ta, a = layout(la, (m, k), dtype, 2 * i)
        tb, b = layout(lb, (k, n), dtype, 2 * i + 1)
        check(tl.mm(a, b), torch.mm(ta, tb))
        check(a @ b, ta @ tb)
        check(a.mm(b), ta.mm(tb))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("lo", ["conj", "conjT", "neg", "plainT"])
def test_mm_out_with_bits(dtype, lo):
    ta, a = layout("mH", (5, 4), dtype, 0)
    tb, b = layout("conj", (4, 3), dtype, 1)
    base_t = torch.zeros(3, 5, dtype=dtype) if lo.endswith("T") else torch.zeros(5, 3, dtype=dtype)
    base_x = from_torch(base_t)
    f = {"conj": lambda v: v.conj(), "conjT": lambda v: v.T.conj(), "neg": lambda v: v._neg_view(),
         "plainT": lambda v: v.T}[lo]
    ot, ox = f(base_t), f(base_x)
    rt = torch.mm(ta, tb, out=ot)
    rx = tl.mm(a, b, out=ox)
    assert rx is ox
    check(ox, ot)
    check(base_x, base_t)  # the memory holds what torch's holds (the conjugate/negation of the product)
    assert rt is ot


@pytest.mark.parametrize("dtype", CDTYPES)
def test_mm_out_resized_with_bit(dtype):
    ta, a = layout("mH", (2, 3), dtype, 0)
    tb, b = layout("plain", (3, 4), dtype, 1)
    ot, ox = torch.empty(0, dtype=dtype).conj(), tl.empty(0, dtype=getattr(tl, str(dtype)[6:])).conj()
    torch.mm(ta, tb, out=ot)
    tl.mm(a, b, out=ox)
    check(ox, ot)


def test_mm_out_aliasing_an_input_through_conj():
    # out= is the conj view of an input: the product is computed first, then written
    t, x = both(rand((4, 4), torch.complex128, 0))
    tb, b = both(rand((4, 4), torch.complex128, 1))
    torch.mm(t.mH, tb, out=t.conj())
    tl.mm(x.mH, b, out=x.conj())
    check(x, t)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("la", ["conj", "mH", "cslice", "plain"])
@pytest.mark.parametrize("lb", ["conj", "mH", "cexpand", "neg"])
def test_bmm_and_baddbmm(dtype, la, lb):
    ta, a = layout(la, (3, 5, 4), dtype, 0)
    tb, b = layout(lb, (3, 4, 6), dtype, 1)
    check(tl.bmm(a, b), torch.bmm(ta, tb))
    ts, s = layout("conj", (3, 5, 6), dtype, 2)
    check(tl.baddbmm(s, a, b, beta=0.5 - 1j, alpha=2j), torch.baddbmm(ts, ta, tb, beta=0.5 - 1j, alpha=2j))
    ts2, s2 = layout("conj", (5, 6), dtype, 3)
    check(tl.addbmm(s2, a, b, alpha=1 + 1j), torch.addbmm(ts2, ta, tb, alpha=1 + 1j))
    # in place on a conj view: written through the bit
    tbase, xbase = both(rand((3, 5, 6), dtype, 4))
    tbase.conj().baddbmm_(ta, tb, beta=2)
    xbase.conj().baddbmm_(a, b, beta=2)
    check(xbase, tbase)
    # out= a conj view
    ot, ox = torch.zeros(3, 5, 6, dtype=dtype), from_torch(torch.zeros(3, 5, 6, dtype=dtype))
    torch.bmm(ta, tb, out=ot.conj())
    tl.bmm(a, b, out=ox.conj())
    check(ox, ot)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("la", ["conj", "mH", "plain"])
@pytest.mark.parametrize("lb", ["conj", "mH", "T"])
def test_addmm_forms(dtype, la, lb):
    ta, a = layout(la, (4, 3), dtype, 0)
    tb, b = layout(lb, (3, 5), dtype, 1)
    for sl in ["conj", "plain", "neg"]:
        ts, s = layout(sl, (4, 5), dtype, 2)
        check(tl.addmm(s, a, b), torch.addmm(ts, ta, tb))
        check(tl.addmm(s, a, b, beta=1 - 2j, alpha=0.5j), torch.addmm(ts, ta, tb, beta=1 - 2j, alpha=0.5j))
        check(tl.addmm(s, a, b, beta=0), torch.addmm(ts, ta, tb, beta=0))
    tv, v = layout("conj", (1, 5), dtype, 3)  # a broadcast conj self
    check(tl.addmm(v[0], a, b), torch.addmm(tv[0], ta, tb))
    tbase, xbase = both(rand((5, 4), dtype, 4))
    tbase.mH.addmm_(ta, tb, alpha=2)
    xbase.mH.addmm_(a, b, alpha=2)
    check(xbase, tbase)
    ot, ox = torch.zeros(4, 5, dtype=dtype), from_torch(torch.zeros(4, 5, dtype=dtype))
    torch.addmm(ta @ tb, ta, tb, out=ot.conj())
    tl.addmm(a @ b, a, b, out=ox.conj())
    check(ox, ot)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("lm", ["conj", "mH", "cslice", "plain"])
@pytest.mark.parametrize("lv", ["conj", "plain", "neg"])
def test_mv_addmv(dtype, lm, lv):
    tm, m = layout(lm, (4, 6), dtype, 0)
    tv, v = layout(lv, (1, 6), dtype, 1)
    tv, v = tv[0], v[0]
    check(tl.mv(m, v), torch.mv(tm, tv))
    check(m @ v, tm @ tv)
    check(v @ m.mT, tv @ tm.mT)  # 1-D @ 2-D: the matrix as gemv's transposed operand
    ts, s = layout("conj", (1, 4), dtype, 2)
    check(tl.addmv(s[0], m, v, beta=2, alpha=1j), torch.addmv(ts[0], tm, tv, beta=2, alpha=1j))
    tbase, xbase = both(rand((4,), dtype, 3))
    tbase.conj().addmv_(tm, tv)
    xbase.conj().addmv_(m, v)
    check(xbase, tbase)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_dot_vdot_bits_and_values(dtype):
    ta, a = both(rand((7,), dtype, 0))
    tb, b = both(rand((7,), dtype, 1))
    for fa in (lambda v: v, lambda v: v.conj()):
        for fb in (lambda v: v, lambda v: v.conj()):
            # PyTorch's identities: dot(conj, conj) and vdot(plain, conj) are conj views of a dot product
            check(tl.dot(fa(a), fb(b)), torch.dot(fa(ta), fb(tb)))
            check(tl.vdot(fa(a), fb(b)), torch.vdot(fa(ta), fb(tb)))
            check(fa(a) @ fb(b), fa(ta) @ fb(tb))
            assert_same(tl.inner(fa(a), fb(b)), torch.inner(fa(ta), fb(tb)))  # (inner resolves: no conj result)
    # strided operands
    tc, c = both(rand((14,), dtype, 2))
    check(tl.vdot(c[::2].conj(), b), torch.vdot(tc[::2].conj(), tb))
    check(tl.dot(c[::2].conj(), b.conj()), torch.dot(tc[::2].conj(), tb.conj()))
    # out= (a 0-d tensor): the values, written through copy_
    ot, ox = torch.zeros((), dtype=dtype), from_torch(torch.zeros((), dtype=dtype))
    torch.dot(ta.conj(), tb.conj(), out=ot)
    tl.dot(a.conj(), b.conj(), out=ox)
    check(ox, ot)
    # empty
    e_t, e = both(rand((0,), dtype, 3))
    check(tl.vdot(e.conj(), e.conj()), torch.vdot(e_t.conj(), e_t.conj()))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shapes", [((2, 3, 4), (4, 5)), ((4,), (2, 4, 3)), ((2, 1, 3, 4), (3, 4, 2)),
                                    ((5, 3, 4), (4,)), ((3, 4), (2, 4, 5))])
def test_matmul_ranks(dtype, shapes):
    sa, sb = shapes
    for fa in ("conj", "plain"):
        for fb in ("conj", "mH"):
            if len(sa) == 1:
                ta, a = layout(fa, (1,) + sa, dtype, 0)
                ta, a = ta[0], a[0]
            else:
                ta, a = layout(fa, sa, dtype, 0)
            if len(sb) == 1:
                tb, b = layout("conj" if fb == "conj" else "plain", (1,) + sb, dtype, 1)
                tb, b = tb[0], b[0]
            else:
                tb, b = layout(fb, sb, dtype, 1)
            check(tl.matmul(a, b), torch.matmul(ta, tb))
            ot = torch.empty(0, dtype=dtype)
            ox = tl.empty(0, dtype=getattr(tl, str(dtype)[6:]))
            check(tl.matmul(a, b, out=ox.conj()), torch.matmul(ta, tb, out=ot.conj()))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_multi_dot_chain_matmul_tensordot(dtype):
    ta, a = layout("mH", (3, 4), dtype, 0)
    tb, b = layout("conj", (4, 6), dtype, 1)
    tc, c = layout("cT", (6, 2), dtype, 2)
    tv, v = layout("conj", (1, 2), dtype, 3)
    check(tl.linalg.multi_dot([a, b, c]), torch.linalg.multi_dot([ta, tb, tc]))
    check(tl.linalg.multi_dot([a, b, c, v[0]]), torch.linalg.multi_dot([ta, tb, tc, tv[0]]))
    check(tl.chain_matmul(a, b, c), torch.chain_matmul(ta, tb, tc))
    tt, t = layout("conj", (2, 3, 4), dtype, 4)
    tu, u = layout("mH", (4, 3, 5), dtype, 5)
    check(tl.tensordot(t, u, dims=([1, 2], [1, 0])), torch.tensordot(tt, tu, dims=([1, 2], [1, 0])))
    check(tl.tensordot(t, u, dims=1), torch.tensordot(tt, tu, dims=1))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.float16])
def test_real_operands_with_the_negative_bit(dtype):
    # x.conj().imag (complex) or _neg_view (any dtype) as a product operand: resolved by the kernel
    for la in ["neg", "plain", "T"]:
        for lb in ["neg", "plain"]:
            ta, a = layout(la, (3, 4), dtype, 0)
            tb, b = layout(lb, (4, 2), dtype, 1)
            check(tl.mm(a, b), torch.mm(ta, tb))
            check(tl.matmul(a, b), torch.matmul(ta, tb))
    if dtype in (torch.float32, torch.float64):
        ct = rand((3, 4), torch.complex64 if dtype == torch.float32 else torch.complex128, 2)
        cx = from_torch(ct)
        tb, b = layout("plain", (4, 2), dtype, 3)
        assert cx.conj().imag.is_neg()
        check(tl.mm(cx.conj().imag, b), torch.mm(ct.conj().imag, tb))
        ot, ox = torch.zeros(3, 2, dtype=dtype), from_torch(torch.zeros(3, 2, dtype=dtype))
        torch.mm(ct.conj().imag, tb, out=ot._neg_view())
        tl.mm(cx.conj().imag, b, out=ox._neg_view())
        check(ox, ot)


def test_conj_operands_do_not_change_inputs():
    t, x = both(rand((6, 6), torch.complex64, 0))
    before = x.clone()
    for f in (lambda v: v.mH @ v, lambda v: v.conj() @ v, lambda v: tl.bmm(v.conj()[None], v.mH[None])):
        f(x)
        assert not x.is_conj()
        check(x, t)
        assert tl.equal(x, before)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_meta_and_errors(dtype):
    name = str(dtype)[6:]
    m = tl.empty(3, 4, dtype=getattr(tl, name), device="meta")
    r = tl.mm(m.mH, m)
    assert r.shape == (4, 4) and r.device.type == "meta"
    ta, a = layout("conj", (3, 4), dtype, 0)
    with pytest.raises(RuntimeError, match="mm"):
        tl.mm(a, a)
    with pytest.raises(RuntimeError):
        torch.mm(ta, ta)
    other = torch.complex128 if dtype == torch.complex64 else torch.complex64
    tb, b = layout("mH", (4, 3), other, 1)
    with pytest.raises(RuntimeError, match="dtype"):
        tl.mm(a, b)
    with pytest.raises(RuntimeError):
        torch.mm(ta, tb)
    ot, ox = torch.zeros(3, 3, dtype=other), from_torch(torch.zeros(3, 3, dtype=other))
    tc, c = layout("mH", (4, 3), dtype, 2)
    with pytest.raises(RuntimeError, match="dtype"):
        tl.mm(a, c, out=ox.conj())
    with pytest.raises(RuntimeError):
        torch.mm(ta, tc, out=ot.conj())


@pytest.mark.parametrize("dtype", CDTYPES)
def test_gradients_through_conj_operands(dtype):
    ta0, a0 = both(rand((4, 3), dtype, 0))
    tb0, b0 = both(rand((4, 5), dtype, 1))
    ta, a = ta0.clone().requires_grad_(), a0.clone().requires_grad_()
    tb, b = tb0.clone().requires_grad_(), b0.clone().requires_grad_()
    for fn in (lambda L, p, q: (p.mH @ q).abs().sum(), lambda L, p, q: (p.conj().T @ q.conj()).real.sum(),
               lambda L, p, q: L.bmm(p.mH[None], q[None]).abs().pow(2).sum(),
               lambda L, p, q: L.addmm(q.T.conj()[:3, :3], p.mH, q[:, :3], alpha=1j).imag.sum(),
               lambda L, p, q: L.vdot(p[:, 0].conj(), q[:, 0].conj()).abs()):
        ta.grad = tb.grad = None
        a.grad = b.grad = None
        fn(torch, ta, tb).backward()
        fn(tl, a, b).backward()
        check(a.grad, ta.grad)
        check(b.grad, tb.grad)
