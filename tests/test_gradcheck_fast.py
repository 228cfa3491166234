"""gradcheck / gradgradcheck with fast_mode=True (torchlite/autograd/_gradcheck_fast.py): PyTorch's check of
v^T J u for random unit vectors, against torch.autograd.gradcheck(fast_mode=True) on the same functions:
both accept correct gradients and reject wrong ones (real and complex), with the same projected values."""
import re

import numpy as np
import pytest
import torch

import torchlite as tl
from torchlite.autograd.gradcheck import GradcheckError

RNG = np.random.default_rng(0)


def real(*shape):
    return RNG.standard_normal(shape)


def cplx(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def run_both(f, arrays, check="gradcheck", **kw):
    """(torchlite's result or error message, PyTorch's), f written against the module it is given."""
    out = []
    for m in (tl, torch):
        ins = [m.tensor(a).requires_grad_() if isinstance(a, np.ndarray) else a for a in arrays]
        fn = getattr(m.autograd, check)
        try:
            out.append(fn(lambda *xs: f(m, *xs), ins, fast_mode=True, **kw))
        except Exception as e:  # noqa: BLE001 - the error is the result compared
            out.append(e)
    return out


def projected(err):
    """The numerical and analytical values in a fast-mode mismatch message."""
    msg = str(err)
    n = re.search(r"numerical:(.*)", msg).group(1)
    a = re.search(r"analytical:(.*)", msg).group(1)
    value = lambda text: complex(text.strip().replace("tensor(", "").split(",")[0].strip("()"))
    return value(n), value(a)


CORRECT = {
    "matmul": (lambda m, a, b: a @ b, [real(3, 4), real(4, 2)]),
    "exp_sum": (lambda m, a: (m.exp(a) * a).sum(1), [real(2, 5)]),
    "two_outputs": (lambda m, a: (m.sin(a), a * a), [real(4)]),
    "broadcast": (lambda m, a, b: a * b, [real(3, 1), real(1, 4)]),
    "transposed": (lambda m, a: a.t() @ a, [real(3, 2)]),
    "complex_exp": (lambda m, z: m.exp(z), [cplx(3)]),
    "complex_abs": (lambda m, z: m.abs(z), [cplx(4)]),
    "complex_mixed": (lambda m, z, x: z * x, [cplx(3), real(3)]),
    "real_to_complex": (lambda m, x: m.complex(x, x * x), [real(3)]),
    "complex_to_real": (lambda m, z: (z * z).real, [cplx(3)]),
    "complex_matmul": (lambda m, a, b: a @ b, [cplx(2, 3), cplx(3, 2)]),
    "non_tensor_arg": (lambda m, a, k: a * k, [real(3), 2.5]),
}


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_gradients_pass(name):
    f, arrays = CORRECT[name]
    got, want = run_both(f, arrays)
    assert want is True
    assert got is True


def _wrong_functions(m):
    class HalfGrad(m.autograd.Function):  # d(a^2) = 2a, returns a
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * a

    class NoConj(m.autograd.Function):  # z^2: the conjugate Wirtinger gradient is g * conj(2z)
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            return z * z

        @staticmethod
        def backward(ctx, g):
            (z,) = ctx.saved_tensors
            return g * 2 * z

    class DropImag(m.autograd.Function):  # |z|^2 -> 2z, returns its real part only
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            return (z * z.conj()).real

        @staticmethod
        def backward(ctx, g):
            (z,) = ctx.saved_tensors
            return (g * 2 * z).real.to(z.dtype)

    class OneElementWrong(m.autograd.Function):  # right except for element 2
        @staticmethod
        def forward(ctx, a):
            return a * 3

        @staticmethod
        def backward(ctx, g):
            w = m.ones_like(g) * 3
            w[2] = 2.9
            return g * w

    return {"half_grad": (HalfGrad.apply, [real(3, 2)]), "no_conj": (NoConj.apply, [cplx(4)]),
            "drop_imag": (DropImag.apply, [cplx(4)]), "one_element": (OneElementWrong.apply, [real(5)])}


@pytest.mark.parametrize("name", ["half_grad", "no_conj", "drop_imag", "one_element"])
def test_wrong_gradients_fail_like_pytorch(name):
    arrays = _wrong_functions(tl)[name][1]
    got, want = run_both(lambda m, *xs: _wrong_functions(m)[name][0](*xs), arrays)
    assert isinstance(want, RuntimeError), want
    assert isinstance(got, GradcheckError) and isinstance(got, RuntimeError), got
    first = lambda e: str(e).splitlines()[0]
    assert first(got) == first(want)  # the same output, input and real/imaginary prefix
    # The same random vectors as PyTorch's: the same projected values.
    (gn, ga), (wn, wa) = projected(got), projected(want)
    np.testing.assert_allclose([gn, ga], [wn, wa], rtol=1e-6, atol=1e-9)
    assert "slow mode" in str(got)


def test_raise_exception_false_and_tolerances():
    f = lambda m, a: _wrong_functions(m)["one_element"][0](a)
    got, want = run_both(f, [real(5)], raise_exception=False)
    assert got is False and want is False
    got, want = run_both(f, [real(5)], atol=0.1, rtol=0.1)  # a loose check lets the small error through
    assert got is want


def test_function_without_differentiable_output():
    got, want = run_both(lambda m, a: m.zeros_like(a) + 1, [real(4)])  # then the slow check: J must be 0
    assert got is True and want is True


def test_needs_an_input_requiring_grad():
    with pytest.raises(ValueError):
        tl.autograd.gradcheck(lambda a: a * 2, (tl.ones(3, dtype=tl.float64),), fast_mode=True)


CORRECT_SECOND = {
    "cube": (lambda m, a: a * a * a, [real(4)]),
    "tanh_matmul": (lambda m, a, b: m.tanh(a @ b), [real(2, 3), real(3, 2)]),
    "complex_exp": (lambda m, z: m.exp(z), [cplx(3)]),
    "complex_sigmoid": (lambda m, z: m.sigmoid(z), [cplx(3)]),
}


@pytest.mark.parametrize("name", sorted(CORRECT_SECOND))
def test_gradgradcheck_fast(name):
    f, arrays = CORRECT_SECOND[name]
    got, want = run_both(f, arrays, check="gradgradcheck")
    assert want is True
    assert got is True


def test_gradgradcheck_fast_catches_a_wrong_second_derivative():
    def f(m, a):
        class LostSecond(m.autograd.Function):  # a^3 whose backward is not differentiable through a
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 3 * x.detach() ** 2

        return LostSecond.apply(a)

    got, want = run_both(f, [real(4)], check="gradgradcheck")
    assert isinstance(want, RuntimeError)
    assert isinstance(got, GradcheckError)


@pytest.mark.parametrize("name,f", [
    ("transpose", lambda m, x: x.transpose(0, 1)),
    ("slice", lambda m, x: x[1:, ::2]),
    ("view", lambda m, x: x.view(-1)),
    ("two views", lambda m, x: (x.t(), x[0])),
])
def test_outputs_that_are_views_of_the_input(name, f):
    # The perturbed input is written in place: an output aliasing it must be copied before the next perturbation,
    # or the central difference reads 0 (it did: transpose failed fast mode).
    assert run_both(f, [real(3, 4)]) == [True, True]
    assert run_both(f, [real(3, 4)], check="gradgradcheck") == [True, True]
