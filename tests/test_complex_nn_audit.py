"""tools/complex_nn_audit.py as a test: every torch.nn.functional function (~160 calls, modes and in-place forms)
with complex64 and with complex128 arguments in PyTorch and torchlite. No call may compute a different result or raise another
exception type than PyTorch's, torchlite may compute nothing PyTorch refuses, and it may refuse only the calls
listed in docs/complex.md (none at present). Then gradients of the complex paths added with the audit (padding
modes, unfold/fold, rms_norm, embedding max_norm) against PyTorch's."""
import importlib.util
import pathlib
import warnings

import numpy as np
import pytest
import torch

import torchlite as tl

_spec = importlib.util.spec_from_file_location(
    "complex_nn_audit", pathlib.Path(__file__).resolve().parents[1] / "tools" / "complex_nn_audit.py")
complex_nn_audit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(complex_nn_audit)

KNOWN_GAPS = {}  # PyTorch computes, torchlite refuses: none left (docs/complex.md)


@pytest.fixture(scope="module", params=["complex64", "complex128"])
def rows(request):
    return complex_nn_audit.audit(dtype=request.param)


def test_audit_covers_nn_functional(rows):
    assert len(rows) >= 150
    assert len({name for name, _, _ in rows}) == len(rows)
    covered = {name.split()[0] for name, _, _ in rows}
    public = {n for n in dir(torch.nn.functional) if not n.startswith("_") and callable(getattr(torch.nn.functional, n))
              and n[0].islower() and hasattr(tl.nn.functional, n) and not n.startswith(("has_", "handle_", "assert_",
                                                                                            "boolean_"))}
    # every F function torchlite has is called, except the with_indices spellings of max pools (their result
    # is the max pool's) and the deprecated aliases already covered through interpolate
    missing = public - covered - {n for n in public if n.endswith("_with_indices")}
    assert not missing, missing


def test_no_call_differs_from_torch(rows):
    assert not [(n, d) for n, s, d in rows if s == "DIFF"]


def test_nothing_torch_refuses_is_computed(rows):
    assert not [(n, d) for n, s, d in rows if s == "EXTRA"]


def test_refusals_are_the_documented_ones(rows):
    gaps = {n for n, s, _ in rows if s == "GAP"}
    assert gaps == set(KNOWN_GAPS), gaps ^ set(KNOWN_GAPS)


def crand(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, dtype=torch.complex128, generator=g)


def to_tl(x, requires_grad=False):
    t = tl.from_numpy(x.detach().resolve_conj().numpy().copy())
    return t.requires_grad_() if requires_grad else t


GRAD_CASES = [
    ("pad reflect 1d", lambda L, x: L.nn.functional.pad(x, (2, 1), mode="reflect"), (2, 3, 5)),
    ("pad reflect 2d", lambda L, x: L.nn.functional.pad(x, (1, 2, 2, 1), mode="reflect"), (2, 3, 4, 5)),
    ("pad reflect 3d", lambda L, x: L.nn.functional.pad(x, (1, 1, 1, 0, 0, 1), mode="reflect"), (1, 2, 3, 3, 3)),
    ("pad replicate 1d", lambda L, x: L.nn.functional.pad(x, (2, 1), mode="replicate"), (2, 3, 5)),
    ("pad replicate 2d", lambda L, x: L.nn.functional.pad(x, (1, 2, 2, 1), mode="replicate"), (3, 4, 5)),
    ("pad replicate 3d", lambda L, x: L.nn.functional.pad(x, (1, 0, 1, 1, 0, 1), mode="replicate"), (1, 2, 3, 3, 3)),
    ("pad circular", lambda L, x: L.nn.functional.pad(x, (1, 2, 2, 1), mode="circular"), (2, 3, 4, 5)),
    ("unfold", lambda L, x: L.nn.functional.unfold(x, 2, padding=1, stride=(1, 2), dilation=(2, 1)), (2, 3, 4, 5)),
    ("fold", lambda L, x: L.nn.functional.fold(x, (3, 4), 2), (2, 8, 6)),
    ("rms_norm", lambda L, x: L.nn.functional.rms_norm(x, (4,)), (3, 4)),
    ("rms_norm weight", lambda L, x: L.nn.functional.rms_norm(x, (2, 4), x[0, :2].detach() * 0 + 0.5, eps=1e-3),
     (3, 2, 4)),
]


@pytest.mark.parametrize("name,fn,shape", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_values_and_grads_like_torch(name, fn, shape):
    x = crand(*shape)
    for layout in ("contiguous", "transposed"):
        xt = x if layout == "contiguous" else x.transpose(-1, -2).contiguous().transpose(-1, -2)
        t_in, l_in = xt.clone().requires_grad_(), to_tl(x).transpose(-1, -2).contiguous().transpose(-1, -2) \
            if layout == "transposed" else to_tl(x)
        l_in.requires_grad_()
        yt, yl = fn(torch, t_in), fn(tl, l_in)
        np.testing.assert_allclose(yl.detach().numpy(), yt.detach().numpy(), rtol=1e-10, atol=1e-12)
        g = crand(*yt.shape, seed=1)
        yt.backward(g)
        yl.backward(to_tl(g))
        np.testing.assert_allclose(l_in.grad.numpy(), t_in.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name,fn,shape", GRAD_CASES[:9:2] + GRAD_CASES[9:10], ids=[c[0] for c in GRAD_CASES[:9:2] + GRAD_CASES[9:10]])
def test_gradcheck_complex(name, fn, shape):
    x = to_tl(crand(*shape, seed=2), True)
    assert tl.autograd.gradcheck(lambda t: fn(tl, t), (x,), fast_mode=True)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("norm_type", [1.0, 2.0, 3.0, float("inf")])
def test_embedding_max_norm_complex(dtype, norm_type):
    w = crand(6, 4, seed=3).to(getattr(torch, dtype)) * 2
    idx = torch.tensor([[0, 2, 2], [5, 1, 0]])
    wt, wl = w.clone(), to_tl(w)
    et = torch.nn.functional.embedding(idx, wt, max_norm=1.5, norm_type=norm_type)
    el = tl.nn.functional.embedding(to_tl(idx), wl, max_norm=1.5, norm_type=norm_type)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "complex64" else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(wl.numpy(), wt.numpy(), **tol)  # the rows renormed in place
    np.testing.assert_allclose(el.numpy(), et.numpy(), **tol)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_soft_margin_loss_complex(reduction):
    x, y = crand(3, 4).to(torch.complex64), crand(3, 4, seed=1).to(torch.complex64)
    for yt in (y, y.real.contiguous().double()):  # complex target, and a real float64 one
        expected = torch.nn.functional.soft_margin_loss(x, yt, reduction=reduction)
        got = tl.nn.functional.soft_margin_loss(to_tl(x), to_tl(yt), reduction=reduction)
        assert str(got.dtype) == "torchlite.complex64"
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
    # a real self with a complex target: PyTorch's in-place mul_ refuses the cast
    with pytest.raises(RuntimeError):
        tl.nn.functional.soft_margin_loss(to_tl(x.real.contiguous()), to_tl(y))
    # no complex gradient, as PyTorch (not in its GRADIENT_IMPLEMENTED_FOR_COMPLEX)
    xl = to_tl(x, True)
    with pytest.raises(RuntimeError, match="does not support automatic differentiation for outputs with complex"):
        tl.nn.functional.soft_margin_loss(xl, to_tl(y))


def test_rms_norm_complex_eps_and_weight_promotion():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for dtype in (torch.complex64, torch.complex128):
            x = torch.tensor([[1, 1j], [1e-4, 0]], dtype=dtype)  # mean(x**2) == 0: eps alone decides the scale
            np.testing.assert_allclose(tl.nn.functional.rms_norm(to_tl(x), (2,)).numpy(),
                                       torch.nn.functional.rms_norm(x, (2,)).numpy(), rtol=1e-6)
        x, w = crand(3, 4).to(torch.complex64), torch.randn(4)
        got = tl.nn.functional.rms_norm(to_tl(x), (4,), to_tl(w))
        assert str(got.dtype) == "torchlite.complex64"
        np.testing.assert_allclose(got.numpy(), torch.nn.functional.rms_norm(x, (4,), w).numpy(), rtol=1e-5, atol=1e-6)


def test_refusals_with_torchs_exception_types():
    """The complex refusals fixed by the audit: grid_sample and scaled_dot_product_attention (NotImplementedError,
    no complex loop), local_response_norm (its pooling has none), exponential_ of a non-floating tensor
    (RuntimeError: a continuous distribution)."""
    x4 = tl.randn(1, 2, 3, 3, dtype=tl.complex64)
    q = tl.randn(2, 3, 4, dtype=tl.complex64)
    for fn in (lambda: tl.nn.functional.grid_sample(x4, tl.zeros(1, 2, 2, 2), align_corners=False),
               lambda: tl.nn.functional.grid_sample(x4, tl.zeros(1, 2, 2, 2, dtype=tl.complex64), align_corners=False),
               lambda: tl.nn.functional.scaled_dot_product_attention(q, q, q),
               lambda: tl.nn.functional.local_response_norm(x4, 2),
               lambda: tl.nn.functional.local_response_norm(x4[0], 2)):
        with pytest.raises(NotImplementedError):
            fn()
    for dtype in (tl.complex64, tl.int64, tl.bool):
        with pytest.raises(RuntimeError, match="continuous probability distribution") as e:
            tl.empty(3, dtype=dtype).exponential_()
        assert not isinstance(e.value, NotImplementedError)
    assert tl.empty(0, dtype=tl.int64).exponential_().numel() == 0  # PyTorch returns before its dtype check
