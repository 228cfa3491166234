"""gradcheck / gradgradcheck with complex inputs and outputs (PyTorch's convention: a complex number is
checked as its real and imaginary parts, so the Wirtinger derivatives autograd returns are verified),
on ops whose complex gradients torchlite has, and on wrong custom backwards that must fail as they fail
under torch.autograd.gradcheck."""
import numpy as np
import pytest
import torch
from torch.autograd.gradcheck import GradcheckError as TorchGradcheckError

import torchlite as tl
from torchlite.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck

RNG = np.random.default_rng(7)


def crandn(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def both(values, requires_grad=True):
    """The same complex128 values as a torchlite and a torch leaf."""
    return (tl.tensor(values, dtype=tl.complex128).requires_grad_(requires_grad),
            torch.tensor(values, dtype=torch.complex128).requires_grad_(requires_grad))


def agree(fn_tl, fn_torch, *arrays, second=False):
    """torchlite's check passes, and torch's passes on the same function and inputs."""
    ours = [tl.tensor(a).requires_grad_() for a in arrays]
    theirs = [torch.tensor(a).requires_grad_() for a in arrays]
    check, tcheck = (gradgradcheck, torch.autograd.gradgradcheck) if second else (gradcheck, torch.autograd.gradcheck)
    assert tcheck(fn_torch, theirs)
    assert check(fn_tl, ours)


CASES = {
    "mul": (lambda m, z, w: z * w, [crandn(3), crandn(3)]),
    "mul_conj": (lambda m, z: z * z.conj(), [crandn(4)]),
    "exp": (lambda m, z: m.exp(z), [crandn(2, 2)]),
    "abs": (lambda m, z: m.abs(z), [crandn(5)]),  # real output of a complex input
    "angle": (lambda m, z: m.angle(z), [crandn(3)]),
    "div": (lambda m, z, w: z / w, [crandn(3), crandn(3) + 3]),
    "sum_real_loss": (lambda m, z: (z * z).abs().sum(), [crandn(3)]),
    "view_as_real": (lambda m, z: m.view_as_real(z), [crandn(3)]),
    "real_imag": (lambda m, z: (z.real * z.imag), [crandn(3)]),
    "det": (lambda m, a: m.linalg.det(a), [crandn(3, 3)]),
    "inv": (lambda m, a: m.linalg.inv(a), [crandn(3, 3) + 3 * np.eye(3)]),
    "fft": (lambda m, z: m.fft.fft(z), [crandn(5)]),
    "ifft_norm": (lambda m, z: m.fft.ifft(z, norm="ortho"), [crandn(4)]),
    "mm": (lambda m, a, b: a @ b, [crandn(2, 3), crandn(3, 2)]),
    "transposed_input": (lambda m, a: m.exp(a.t()), [crandn(2, 3)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck_complex(name):
    fn, arrays = CASES[name]
    agree(lambda *a: fn(tl, *a), lambda *a: fn(torch, *a), *arrays)


def test_real_input_complex_output():
    # complex(x, y) and a real input times a complex constant: real inputs, complex outputs.
    x, y = RNG.standard_normal(3), RNG.standard_normal(3)
    agree(lambda a, b: tl.complex(a, b) * tl.complex(b, a), lambda a, b: torch.complex(a, b) * torch.complex(b, a), x, y)
    c = crandn(3)
    agree(lambda a: a * tl.tensor(c), lambda a: a * torch.tensor(c), x)
    agree(lambda a: tl.fft.rfft(a), lambda a: torch.fft.rfft(a), RNG.standard_normal(6))


def test_mixed_real_and_complex_inputs():
    agree(lambda z, x: z * x + x, lambda z, x: z * x + x, crandn(3), RNG.standard_normal(3))


@pytest.mark.parametrize("name", ["mul", "exp", "abs", "div", "inv"])
def test_gradgradcheck_complex(name):
    fn, arrays = CASES[name]
    agree(lambda *a: fn(tl, *a), lambda *a: fn(torch, *a), *arrays, second=True)


def _square_function(module, conjugate, drop_imag=False):
    """z -> z^2 with a custom backward: right (grad * conj(2z)), missing the conjugate, or dropping the
    imaginary part of the gradient."""

    class Square(module.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            return z * z

        @staticmethod
        def backward(ctx, grad):
            (z,) = ctx.saved_tensors
            d = 2 * z
            g = grad * (d.conj() if conjugate else d)
            if drop_imag:
                g = module.complex(g.real, module.zeros_like(g.real))
            return g

    return Square.apply


def test_right_custom_function_passes():
    z = crandn(3)
    agree(_square_function(tl, True), _square_function(torch, True), z)


@pytest.mark.parametrize("variant", [dict(conjugate=False), dict(conjugate=True, drop_imag=True)])
def test_wrong_custom_function_fails(variant):
    z = crandn(3)
    ours = _square_function(tl, **variant)
    theirs = _square_function(torch, **variant)
    with pytest.raises(TorchGradcheckError):
        torch.autograd.gradcheck(theirs, [torch.tensor(z).requires_grad_()])
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"):
        gradcheck(ours, [tl.tensor(z).requires_grad_()])
    assert gradcheck(ours, [tl.tensor(z).requires_grad_()], raise_exception=False) is False
    assert isinstance(GradcheckError("x"), RuntimeError)


def test_mismatch_names_imaginary_part():
    # A backward right for the real part of the input and wrong for the imaginary one.
    class HalfRight(tl.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            return z * 1

        @staticmethod
        def backward(ctx, grad):
            return tl.complex(grad.real, tl.zeros_like(grad.real))

    with pytest.raises(GradcheckError, match="imaginary part of complex inputs"):
        gradcheck(HalfRight.apply, [tl.tensor(crandn(2)).requires_grad_()])


def test_wrong_second_derivative_fails():
    class Cube(tl.autograd.Function):
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            return z * z * z

        @staticmethod
        def backward(ctx, grad):
            (z,) = ctx.saved_tensors
            # right value, but built from a detached z: its own derivative is lost
            return grad * (3 * z.detach() * z.detach()).conj()

    z = tl.tensor(crandn(2)).requires_grad_()
    assert gradcheck(Cube.apply, [z])
    with pytest.raises(GradcheckError):
        gradgradcheck(Cube.apply, [z])


def test_non_double_complex_input_warns():
    # PyTorch warns (UserWarning) and checks anyway; a linear function passes even in complex64.
    z = tl.tensor(crandn(2), dtype=tl.complex64).requires_grad_()
    with pytest.warns(UserWarning, match="is not a double precision floating point or complex"):
        assert gradcheck(lambda a: a * 2, [z], atol=1e-2, rtol=1e-2, eps=1e-3)
