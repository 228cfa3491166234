"""Products and contractions beyond what YAML samples express: every matmul rank pair, einsum's
grammar (ellipsis, repeated subscripts, implicit output, sublist format, explicit paths),
multi_dot's order, tensordot's dims forms, and the error types and messages, all against PyTorch."""
import itertools

import numpy as np
import pytest
import torch

import torchlite as tl


def pair(shape, dtype="float64", seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    if dtype.startswith("int"):
        a = np.round(a * 3)
    a = a.astype(dtype)
    return tl.from_numpy(a.copy()), torch.from_numpy(a.copy())


def same(got, expected, rtol=1e-7, atol=1e-9):
    assert tuple(got.shape) == tuple(expected.shape)
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=rtol, atol=atol)


# ---------------------------------------------------------------- matmul, every rank pair

SHAPES = {1: [(3,)], 2: [(2, 3), (3, 3)], 3: [(2, 2, 3), (1, 3, 3)], 4: [(2, 1, 2, 3)]}


def _matmul_shapes():
    for r1, r2 in itertools.product(SHAPES, SHAPES):
        for s1 in SHAPES[r1]:
            for s2 in SHAPES[r2]:
                s2 = s2[:-2] + (3, 4) if len(s2) >= 2 else (3,)
                yield s1, s2


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("s1,s2", list(_matmul_shapes()))
def test_matmul_rank_pairs(s1, s2, dtype):
    la, ta = pair(s1, dtype, 0)
    lb, tb = pair(s2, dtype, 1)
    rtol = 1e-5 if dtype == "float32" else 1e-7
    same(tl.matmul(la, lb), torch.matmul(ta, tb), rtol=rtol, atol=1e-5)
    same(la @ lb, ta @ tb, rtol=rtol, atol=1e-5)


def test_matmul_half_accumulates_in_float():
    la, ta = pair((8, 300), "float32", 0)
    lb, tb = pair((300, 5), "float32", 1)
    for dt in ("float16", "bfloat16"):
        got = tl.matmul(la.to(getattr(tl, dt)), lb.to(getattr(tl, dt)))
        exp = torch.matmul(ta.to(getattr(torch, dt)), tb.to(getattr(torch, dt)))
        np.testing.assert_allclose(got.float().numpy(), exp.float().numpy(), rtol=2e-2, atol=0.5)


# ---------------------------------------------------------------- einsum

EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),             # implicit output
    ("ba,cb", [(3, 2), (4, 3)]),              # implicit output sorted: "ac"
    ("Ab,bA", [(2, 3), (3, 2)]),
    ("aB,Bc", [(2, 3), (3, 4)]),              # B is summed: "ac"
    ("ab,cD", [(2, 3), (4, 5)]),              # upper case sorts first: "Dabc"
    ("ii", [(3, 3)]),                         # trace
    ("ii->i", [(3, 3)]),                      # diagonal
    ("iji->j", [(3, 2, 3)]),
    ("i,i->", [(4,), (4,)]),
    ("i,j", [(2,), (3,)]),                    # outer
    ("...ij,...jk->...ik", [(5, 2, 3), (3, 4)]),
    ("...ij,...jk", [(2, 1, 2, 3), (4, 3, 2)]),
    ("i...->...", [(2, 3, 4)]),
    ("...", [(2, 3)]),
    ("b...i,b...i->b...", [(2, 3, 4), (2, 3, 4)]),
    ("ij,ij->ij", [(2, 3), (1, 3)]),          # size-1 broadcast of a kept subscript
    ("ij,ij->i", [(2, 3), (2, 1)]),           # size-1 broadcast of a summed subscript
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ij,jk,kl,lm->im", [(6, 2), (2, 7), (7, 3), (3, 5)]),
    ("abc,cd,bd->a", [(2, 3, 4), (4, 5), (3, 5)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),  # bilinear
    ("ij,kl->", [(2, 3), (4, 5)]),
    ("i j , j k -> i k", [(2, 3), (3, 4)]),
    ("ij->ji", [(2, 3)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM_CASES, ids=lambda x: str(x))
def test_einsum_grammar(eq, shapes):
    ops = [pair(s, "float64", i) for i, s in enumerate(shapes)]
    got = tl.einsum(eq, *[o[0] for o in ops])
    exp = torch.einsum(eq, *[o[1] for o in ops])
    same(got, exp)
    same(tl.einsum(eq, [o[0] for o in ops]), exp)  # operands as one list


def test_einsum_integers_and_dtype():
    la, ta = pair((3, 4), "int32", 0)
    lb, tb = pair((4, 2), "int32", 1)
    same(tl.einsum("ij,jk->ik", la, lb), torch.einsum("ij,jk->ik", ta, tb))
    same(tl.einsum("ij->i", la), torch.einsum("ij->i", ta))   # a lone sum promotes to int64, as PyTorch
    same(tl.einsum("ii", la[:3, :3]), torch.einsum("ii", ta[:3, :3]))


def test_einsum_sublist_format():
    (la, ta), (lb, tb) = pair((2, 3), "float64", 0), pair((3, 4), "float64", 1)
    same(tl.einsum(la, [0, 1], lb, [1, 2], [0, 2]), torch.einsum(ta, [0, 1], tb, [1, 2], [0, 2]))
    same(tl.einsum(la, [0, 1], lb, [1, 2]), torch.einsum(ta, [0, 1], tb, [1, 2]))
    (lc, tc) = pair((2, 3, 3), "float64", 2)
    same(tl.einsum(lc, [..., 30, 30], [..., 30]), torch.einsum(tc, [..., 30, 30], [..., 30]))


@pytest.mark.parametrize("path", [[(0, 1), (0, 1)], [(1, 2), (0, 1)], [(0, 2), (0, 1)], [0, 1, 0, 1]])
def test_einsum_explicit_path(path):
    ops = [pair(s, "float64", i) for i, s in enumerate([(2, 3), (3, 4), (4, 5)])]
    got = tl.einsum("ij,jk,kl->il", *[o[0] for o in ops], path=path)
    same(got, torch.einsum("ij,jk,kl->il", *[o[1] for o in ops]))


def test_einsum_gradients_match_torch():
    ops = [pair(s, "float64", i) for i, s in enumerate([(2, 3, 4), (4, 5), (3, 5)])]
    lt = [o[0].requires_grad_() for o in ops]
    tt = [o[1].requires_grad_() for o in ops]
    tl.einsum("abc,cd,bd->a", *lt).sum().backward()
    torch.einsum("abc,cd,bd->a", *tt).sum().backward()
    for a, b in zip(lt, tt):
        same(a.grad, b.grad)


@pytest.mark.parametrize("args", [
    ("ij,jk->ik", [(2, 3), (4, 5)]),          # subscript size mismatch
    ("ij,jk", [(2, 3)]),                      # fewer operands
    ("ij", [(2, 3), (3, 4)]),                 # more operands
    ("ijk", [(2, 3)]),                        # subscripts vs dims
    ("ij->k", [(2, 3)]),                      # output subscript absent from inputs
    ("ij->ii", [(2, 3)]),                     # output subscript repeated
    ("ii", [(2, 3)]),                         # repeated subscript, sizes differ
    ("i.j", [(2, 3)]),                        # lone '.'
    ("i1", [(2, 3)]),                         # invalid subscript
])
def test_einsum_errors(args):
    eq, shapes = args
    lops = [tl.ones(*s) for s in shapes]
    tops = [torch.ones(*s) for s in shapes]
    with pytest.raises(Exception) as t_err:
        torch.einsum(eq, *tops)
    with pytest.raises(type(t_err.value)) as l_err:
        tl.einsum(eq, *lops)
    assert str(l_err.value).startswith("einsum()")


# ---------------------------------------------------------------- multi_dot / chain_matmul

def test_multi_dot_picks_the_cheap_order():
    # (A @ B) @ C: 2*100*5 + 2*5*100 ... the other order multiplies 100x100 matrices; same values.
    shapes = [(100, 5), (5, 100), (100, 3)]
    ops = [pair(s, "float64", i) for i, s in enumerate(shapes)]
    same(tl.linalg.multi_dot([o[0] for o in ops]), torch.linalg.multi_dot([o[1] for o in ops]))
    same(tl.chain_matmul(*[o[0] for o in ops]), torch.linalg.multi_dot([o[1] for o in ops]))
    ops = [pair(s, "float64", i) for i, s in enumerate([(4,), (4, 6), (6, 2), (2, 3), (3,)])]
    same(tl.linalg.multi_dot([o[0] for o in ops]), torch.linalg.multi_dot([o[1] for o in ops]))


# ---------------------------------------------------------------- tensordot's dims forms

@pytest.mark.parametrize("dims,b_shape", [(0, (3, 4, 5)), (1, (4, 5)), (2, (3, 4, 5)), (([1, 2], [0, 1]), (3, 4, 5)),
                                          (([2], [1]), (3, 4, 5)), ([[-1], [-2]], (2, 4, 6)),
                                          (([0, 1], [1, 0]), (3, 2))])
def test_tensordot_dims_forms(dims, b_shape):
    (la, ta), (lb, tb) = pair((2, 3, 4), "float64", 0), pair(b_shape, "float64", 1)
    same(tl.tensordot(la, lb, dims=dims), torch.tensordot(ta, tb, dims=dims))
    out_l = tl.empty(0, dtype=tl.float64)
    tl.tensordot(la, lb, dims, out=out_l)
    same(out_l, torch.tensordot(ta, tb, dims))


# ---------------------------------------------------------------- errors, as PyTorch's

ERRORS = [
    ("dot", lambda L: L.dot(L.ones(2, 2), L.ones(2, 2)), "1D tensors expected"),
    ("dot", lambda L: L.dot(L.ones(3), L.ones(4)), "inconsistent tensor size"),
    ("dot", lambda L: L.dot(L.ones(3), L.ones(3, dtype=L.float64)), "expected both vectors to have same dtype"),
    ("dot", lambda L: L.dot(L.ones(3, dtype=L.bool), L.ones(3, dtype=L.bool)), None),
    ("mv", lambda L: L.mv(L.ones(2, 3), L.ones(4)), "size mismatch, got input (2), mat (2x3), vec (4)"),
    ("addmv", lambda L: L.addmv(L.ones(5), L.ones(2, 3), L.ones(3)), "size mismatch"),
    ("addmm", lambda L: L.addmm(L.ones(4), L.ones(2, 3), L.ones(3, 4, dtype=L.float64)), "same dtype"),
    ("addmm", lambda L: L.addmm(L.ones(4), L.ones(2, 3), L.ones(4, 4)), "cannot be multiplied"),
    ("addr", lambda L: L.addr(L.ones(2, 3), L.ones(2, 1), L.ones(3)), "Expected 1-D argument vec1"),
    ("outer", lambda L: L.outer(L.ones(2, 2), L.ones(3)), "Expected 1-D argument self"),
    ("inner", lambda L: L.inner(L.ones(2, 3), L.ones(4)), "the last dimension must match"),
    ("baddbmm", lambda L: L.baddbmm(L.ones(2, 3, 4), L.ones(2, 3, 5), L.ones(2, 6, 4)), None),
    ("addbmm", lambda L: L.addbmm(L.ones(3, 4), L.ones(2, 3, 5), L.ones(3, 5, 4)), "same number of batches"),
    ("trace", lambda L: L.trace(L.ones(2, 3, 4)), "expected a matrix"),
    ("linalg.cross", lambda L: L.linalg.cross(L.ones(2, 4), L.ones(2, 4)), "must have length 3"),
    ("linalg.vecdot", lambda L: L.linalg.vecdot(L.ones(2, 3), L.ones(2, 3, dtype=L.float64)), "same dtype"),
    ("linalg.vecdot", lambda L: L.linalg.vecdot(L.ones(2, 3, dtype=L.int32), L.ones(2, 3, dtype=L.int32)),
     "Expected a floating point"),
    ("tensordot", lambda L: L.tensordot(L.ones(2, 3), L.ones(4, 3), dims=([1], [0])),
     "contracted dimensions need to match"),
    ("tensordot", lambda L: L.tensordot(L.ones(2, 3), L.ones(3, 2), dims=-1), "tensordot expects dims >= 0"),
    ("cdist", lambda L: L.cdist(L.ones(2, 3), L.ones(4, 5)), "must have the same number of columns"),
    ("cdist", lambda L: L.cdist(L.ones(3), L.ones(4, 3)), "at least 2D"),
    ("cdist", lambda L: L.cdist(L.ones(2, 3), L.ones(4, 3), p=-1), "non-negative p"),
    ("cdist", lambda L: L.cdist(L.ones(2, 3, dtype=L.int32), L.ones(4, 3, dtype=L.int32)), "floating-point"),
    ("multi_dot", lambda L: L.linalg.multi_dot([L.ones(3)]), "expected at least 2 tensors"),
    ("multi_dot", lambda L: L.linalg.multi_dot([L.ones(2, 3), L.ones(4, 3)]), "cannot be multiplied"),
    ("multi_dot", lambda L: L.linalg.multi_dot([L.ones(2, 3, 3), L.ones(3, 3)]), "must be 1D or 2D"),
    ("matmul", lambda L: L.matmul(L.ones(2, 3), L.ones(4, 5)), "cannot be multiplied"),
    ("bmm", lambda L: L.bmm(L.ones(2, 3, 4), L.ones(2, 4, 5, dtype=L.float64)), None),
]


@pytest.mark.parametrize("op,call,fragment", ERRORS, ids=[f"{e[0]}-{i}" for i, e in enumerate(ERRORS)])
def test_errors_like_torch(op, call, fragment):
    with pytest.raises(Exception) as t_err:
        call(torch)
    with pytest.raises(type(t_err.value)) as l_err:
        call(tl)
    if fragment is not None:
        assert fragment in str(t_err.value)
        assert fragment in str(l_err.value), str(l_err.value)


# ---------------------------------------------------------------- in-place and out= forms

@pytest.mark.parametrize("name,shapes", [
    ("addmm", [(3, 5), (3, 4), (4, 5)]), ("addmv", [(3,), (3, 4), (4,)]), ("addr", [(3, 4), (3,), (4,)]),
    ("baddbmm", [(2, 3, 5), (2, 3, 4), (2, 4, 5)]), ("addbmm", [(3, 5), (2, 3, 4), (2, 4, 5)]),
])
def test_inplace_and_out(name, shapes):
    ops = [pair(s, "float64", i) for i, s in enumerate(shapes)]
    la, ta = [o[0] for o in ops], [o[1] for o in ops]
    exp = getattr(torch, name)(*ta, beta=0.5, alpha=2)
    x = la[0].clone()
    getattr(x, name + "_")(*la[1:], beta=0.5, alpha=2)
    same(x, exp)
    out = tl.empty(0, dtype=tl.float64)
    getattr(tl, name)(*la, beta=0.5, alpha=2, out=out)
    same(out, exp)


def test_beta_zero_ignores_nan():
    (la, ta), (lb, tb) = pair((3, 4), "float64", 0), pair((4, 5), "float64", 1)
    ls, ts = tl.full((3, 5), float("nan"), dtype=tl.float64), torch.full((3, 5), float("nan"), dtype=torch.float64)
    same(tl.addmm(ls, la, lb, beta=0), torch.addmm(ts, ta, tb, beta=0))


def test_meta_shapes():
    a, b = tl.empty(2, 3, 4, device="meta"), tl.empty(2, 4, 5, device="meta")
    assert tuple(tl.einsum("bij,bjk->bik", a, b).shape) == (2, 3, 5)
    assert tuple(tl.baddbmm(tl.empty(3, 5, device="meta"), a, b).shape) == (2, 3, 5)
    assert tuple(tl.tensordot(a, b, dims=([2], [1])).shape) == (2, 3, 2, 5)


# ---------------------------------------------------------------- shapes the samples leave out

def test_edge_shapes():
    (la, ta), (lb, tb) = pair((2, 3, 4), "float64", 0), pair((2, 4, 5), "float64", 1)
    ls, ts = pair((5,), "float64", 2)
    same(tl.addbmm(ls, la, lb, beta=-1, alpha=2), torch.addbmm(ts, ta, tb, beta=-1, alpha=2))  # broadcast self
    (lm, tm), (lv, tv) = pair((2, 0), "float64", 3), pair((0,), "float64", 4)
    same(tl.mv(lm, lv), torch.mv(tm, tv))                                 # empty: zeros
    (lx, tx) = pair((2, 3), "float64", 5)
    same(tl.inner(tl.tensor(2.0, dtype=tl.float64), lx), torch.inner(torch.tensor(2.0, dtype=torch.float64), tx))
    same(tl.chain_matmul(lx), torch.chain_matmul(tx))                     # one matrix: a copy
    same(tl.einsum("i,j->ij", tl.ones(2, dtype=tl.bool), tl.ones(3, dtype=tl.bool)),
         torch.einsum("i,j->ij", torch.ones(2, dtype=torch.bool), torch.ones(3, dtype=torch.bool)))


@pytest.mark.parametrize("shapes,mode", [(((30, 4), (7, 4)), None), (((2, 5, 3), (1, 40, 3)), None),
                                         (((6, 3), (5, 3)), "use_mm_for_euclid_dist"),
                                         (((30, 3), (40, 3)), "donot_use_mm_for_euclid_dist")])
def test_cdist_matrix_product_path(shapes, mode):
    """p=2 through one matmul where PyTorch takes that path (more than 25 rows, or asked): same values,
    gradients from the ops it calls."""
    (la, ta), (lb, tb) = pair(shapes[0], "float64", 0), pair(shapes[1], "float64", 1)
    la.requires_grad_(), ta.requires_grad_()
    kw = {} if mode is None else {"compute_mode": mode}
    got, exp = tl.cdist(la, lb, **kw), torch.cdist(ta, tb, **kw)
    same(got.detach(), exp.detach(), rtol=1e-10, atol=1e-10)
    got.sum().backward()
    exp.sum().backward()
    same(la.grad, ta.grad, rtol=1e-8, atol=1e-10)
