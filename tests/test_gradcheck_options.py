"""gradcheck/gradgradcheck options against torch.autograd's: each check passes for a correct function
and fails (GradcheckError, or False with raise_exception=False) for one that breaks it, in both
libraries. The functions are written once and run with either library (`m`)."""
import importlib
import warnings

import numpy as np
import pytest
import torch

import torchlite as tl
from torchlite.autograd.gradcheck import GradcheckError

TorchGradcheckError = importlib.import_module("torch.autograd.gradcheck").GradcheckError


def inputs(m, *shapes, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for s in shapes:
        v = rng.standard_normal(s)
        t = m.tensor(v, dtype=getattr(m, dtype)) if dtype != "complex128" else \
            m.tensor(v + 1j * rng.standard_normal(s), dtype=m.complex128)
        out.append(t.requires_grad_())
    return tuple(out)


def both(check, make_func, make_inputs, **kw):
    """check ('gradcheck'/'gradgradcheck') in torch and torchlite: (result or exception type, message)."""
    got = []
    for m, err in ((torch, TorchGradcheckError), (tl, GradcheckError)):
        fn = getattr(m.autograd, check)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                got.append((fn(make_func(m), make_inputs(m), **kw), ""))
            except err as e:
                got.append(("GradcheckError", str(e)))
            except Exception as e:  # noqa: BLE001 - the type is what is compared
                got.append((type(e).__name__, str(e)))
    return got


def same_outcome(check, make_func, make_inputs, expect, match=None, **kw):
    (t, tmsg), (l, lmsg) = both(check, make_func, make_inputs, **kw)
    assert t == expect, (t, tmsg)
    assert l == expect, (l, lmsg)
    if match:
        assert match in tmsg and match in lmsg, (tmsg, lmsg)


def mul(m):
    return lambda a, b: a * b.sin()


# ---- custom Functions that break one property each ----

def nondeterministic(m):
    class Noisy(m.autograd.Function):
        calls = [0]

        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            Noisy.calls[0] += 1
            return g * 2 + 1e-9 * Noisy.calls[0] * g  # a tiny, changing error, as an atomic-add order would
    return Noisy.apply


def wrong_dtype(m):
    class Down(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return (g * 2).to(m.float32)
    return Down.apply


def not_linear_in_grad(m):
    class Affine(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.exp()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.exp() + (g == 0).to(g.dtype) * 0 + 0 * g + (g.abs().sum() == 0).to(g.dtype) * 1.0
    return Affine.apply


def undefined_unsafe(m):
    class NoMaterialize(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 3, x * 4

        @staticmethod
        def backward(ctx, g1, g2):
            # With the second output's gradient undefined and the first one zero, gives ones: wrong (an
            # undefined gradient must act as a zero one).
            if g2 is None:
                if g1 is None or not bool((g1 != 0).any()):
                    return m.ones(3, dtype=m.float64)
                return g1 * 3
            return (0 if g1 is None else g1 * 3) + g2 * 4
    return lambda x: NoMaterialize.apply(x)


def undefined_safe(m):
    class NoMaterialize(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 3, x * 4

        @staticmethod
        def backward(ctx, g1, g2):
            if g1 is None and g2 is None:
                return None
            return (0 if g1 is None else g1 * 3) + (0 if g2 is None else g2 * 4)
    return lambda x: NoMaterialize.apply(x)


def random_backward(m):
    class Draws(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2 + 0 * m.rand(g.shape, dtype=g.dtype)  # right values, but vmap refuses random draws
    return Draws.apply


def backward_not_differentiable(m):
    class Opaque(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return (g * 2).detach()  # right values, but not differentiable with respect to grad_output
    return Opaque.apply


# ---- tests ----

def test_defaults_pass_for_a_correct_function():
    same_outcome("gradcheck", mul, lambda m: inputs(m, (3,), (3,)), True)
    same_outcome("gradgradcheck", mul, lambda m: inputs(m, (3,), (3,)), True)


def test_nondet_tol():
    mk = lambda m: inputs(m, (3,))  # noqa: E731
    same_outcome("gradcheck", nondeterministic, mk, "GradcheckError", match="Backward is not reentrant")
    same_outcome("gradcheck", nondeterministic, mk, True, nondet_tol=1e-6)
    same_outcome("gradcheck", nondeterministic, mk, False, raise_exception=False)


def test_check_grad_dtypes():
    # Both engines convert a custom Function's float32 gradient to the float64 input's dtype before the
    # caller sees it, so the check passes in both; the option is accepted and runs.
    mk = lambda m: inputs(m, (3,))  # noqa: E731
    same_outcome("gradcheck", wrong_dtype, mk, True, check_grad_dtypes=True)
    same_outcome("gradcheck", mul, lambda m: inputs(m, (3,), (3,)), True, check_grad_dtypes=True)
    for m in (torch, tl):
        x = mk(m)
        assert m.autograd.grad(wrong_dtype(m)(x[0]).sum(), x)[0].dtype == m.float64


def test_backward_must_be_multiplied_by_grad_output():
    mk = lambda m: inputs(m, (3,))  # noqa: E731
    same_outcome("gradcheck", not_linear_in_grad, mk, "GradcheckError", match="backward not multiplied by grad_output",
                 check_undefined_grad=False)


def test_check_undefined_grad():
    mk = lambda m: inputs(m, (3,))  # noqa: E731
    same_outcome("gradcheck", undefined_unsafe, mk, "GradcheckError",
                 match="Expected all input grads to be undefined or zero")
    same_outcome("gradcheck", undefined_unsafe, mk, True, check_undefined_grad=False)
    same_outcome("gradcheck", undefined_safe, mk, True)


def test_check_batched_grad():
    mk = lambda m: inputs(m, (2, 3), (3,))  # noqa: E731
    same_outcome("gradcheck", mul, mk, True, check_batched_grad=True)
    same_outcome("gradgradcheck", mul, mk, True, check_batched_grad=True)
    (t, tmsg), (l, lmsg) = both("gradcheck", random_backward, lambda m: inputs(m, (3,)), check_batched_grad=True)
    assert t == "GradcheckError" and l == "GradcheckError", (tmsg, lmsg)
    assert "While computing batched gradients, got:" in tmsg and "While computing batched gradients, got:" in lmsg
    same_outcome("gradcheck", random_backward, lambda m: inputs(m, (3,)), True)


def test_check_batched_grad_needs_backward_ad():
    for m in (torch, tl):
        with pytest.raises(AssertionError, match="check_batched_grad=True requires check_backward_ad"):
            m.autograd.gradcheck(mul(m), inputs(m, (3,), (3,)), check_batched_grad=True, check_backward_ad=False,
                                 check_forward_ad=True)
        with pytest.raises(AssertionError, match="at least one of check_forward_ad or check_backward_ad"):
            m.autograd.gradcheck(mul(m), inputs(m, (3,), (3,)), check_backward_ad=False)


def test_check_forward_ad():
    # torchlite computes J t by double backward (no forward-mode AD): ops with formulas pass as in PyTorch.
    for f in (mul, lambda m: (lambda a, b: m.tanh(a @ b)), lambda m: (lambda a, b: (a * b).exp().sum(0))):
        same_outcome("gradcheck", f, lambda m: inputs(m, (3, 3), (3, 3)), True, check_forward_ad=True)
        same_outcome("gradcheck", f, lambda m: inputs(m, (3, 3), (3, 3)), True, check_forward_ad=True,
                     check_backward_ad=False, check_undefined_grad=False)
    same_outcome("gradcheck", lambda m: (lambda z: z.exp() * z.conj()), lambda m: inputs(m, (3,), dtype="complex128"),
                 True, check_forward_ad=True)
    same_outcome("gradgradcheck", mul, lambda m: inputs(m, (3,), (3,)), True, check_fwd_over_rev=True)


def test_check_forward_ad_fails_where_the_forward_derivative_is_missing():
    # PyTorch: a custom Function without jvp raises NotImplementedError (not a GradcheckError);
    # torchlite: its forward mode is the backward differentiated with respect to grad_output, so a
    # backward that is not differentiable there fails the forward-mode comparison.
    mk = lambda m: inputs(m, (3,))  # noqa: E731
    (t, _), (l, lmsg) = both("gradcheck", backward_not_differentiable, mk, check_forward_ad=True,
                             check_backward_ad=False, check_undefined_grad=False)
    assert t == "NotImplementedError"
    assert l == "GradcheckError" and "Jacobian computed with forward mode mismatch" in lmsg
    same_outcome("gradcheck", backward_not_differentiable, mk, True)


def test_check_backward_ad_false_skips_the_backward():
    # A wrong backward passes when only forward mode is checked (torch: the custom Function gets a jvp).
    class Wrong(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2.5

    x = inputs(tl, (3,))
    assert not tl.autograd.gradcheck(Wrong.apply, x, raise_exception=False)
    # torchlite's forward mode differentiates the backward: a wrong one fails the forward check too.
    assert not tl.autograd.gradcheck(Wrong.apply, x, check_forward_ad=True, check_backward_ad=False,
                                     raise_exception=False)
    assert tl.autograd.gradcheck(lambda a: a * 2, x, check_forward_ad=True, check_backward_ad=False)


def test_raise_exception_false_returns_false_only_for_gradcheck_errors():
    def wrong(m):
        return lambda a: a.detach() * 2 + a * 0  # gradient 0, numerical 2
    same_outcome("gradcheck", wrong, lambda m: inputs(m, (3,)), False, raise_exception=False)
    for m in (torch, tl):  # other errors propagate
        with pytest.raises(RuntimeError, match="stride 0"):
            m.autograd.gradcheck(lambda a: a * 2, (m.ones(1, dtype=m.float64).expand(3).requires_grad_(),),
                                 raise_exception=False)
        with pytest.raises(ValueError):
            m.autograd.gradcheck(lambda a: a * 2, (m.ones(3, dtype=m.float64),), raise_exception=False)


@pytest.mark.parametrize("dtype", ["float32", "complex64"])
def test_non_double_input_warns(dtype):
    for m in (torch, tl):
        x = m.ones(3, dtype=getattr(m, dtype)).requires_grad_()
        with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double precision"):
            m.autograd.gradcheck(lambda a: a * 2, (x,), atol=1e-2, rtol=1e-2, eps=1e-3)


def test_masked_is_accepted_for_dense_inputs():
    same_outcome("gradcheck", mul, lambda m: inputs(m, (3,), (3,)), True, masked=False)
    same_outcome("gradcheck", mul, lambda m: inputs(m, (3,), (3,)), True, masked=True)
    same_outcome("gradgradcheck", mul, lambda m: inputs(m, (3,), (3,)), True, masked=True)


def test_fast_mode_with_the_options():
    same_outcome("gradcheck", mul, lambda m: inputs(m, (2, 3), (3,)), True, fast_mode=True, check_batched_grad=True,
                 check_forward_ad=True)
    same_outcome("gradcheck", nondeterministic, lambda m: inputs(m, (3,)), "GradcheckError", fast_mode=True,
                 match="Backward is not reentrant")
