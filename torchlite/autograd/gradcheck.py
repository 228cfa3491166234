"""Numerical checks of autograd: gradcheck (first derivatives) and gradgradcheck (second).

Both compare the Jacobian autograd computes (row by row, one vector-Jacobian product per output
element) with central finite differences on float64 inputs, with PyTorch's argument names and
meaning. Inputs are perturbed in place through a NumPy view of their memory, so strided,
transposed and sliced inputs are checked as they are.

Complex inputs and outputs (complex128) are checked as PyTorch's gradcheck checks them: a complex
number is its real and imaginary parts, so the function is treated as a real function of twice as
many real inputs and outputs. Under PyTorch's convention the gradient autograd returns for z = x + iy
is dL/dx + i dL/dy of a real L, and a grad_output g of a complex output w = u + iv means
L = Re(conj(g) w): the vector-Jacobian product with g = 1 gives the row of u, with g = 1j that of v.
The numerical Jacobian perturbs x and y separately. So a wrong Wirtinger derivative (a missing
conjugate, a dropped d/dz* term) fails the check.
"""
from __future__ import annotations

from typing import Callable, Sequence

import torchlite as _torchlite

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck/gradgradcheck when a Jacobian does not match (a RuntimeError, as in PyTorch)."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _differentiable_outputs(outputs):
    return [o for o in outputs if isinstance(o, _torchlite.Tensor) and o.requires_grad]


def _differentiable_indices(outputs):
    return [k for k, o in enumerate(outputs) if isinstance(o, _torchlite.Tensor) and o.requires_grad]


def _real_values(t):
    """t's values as a flat float64 NumPy array; a complex tensor gives (real, imag) pairs."""
    t = t.detach().resolve_conj().resolve_neg()  # the values of a conj()/imag view, not its memory
    if t.is_complex():
        t = _torchlite.view_as_real(t.to(_torchlite.complex128).contiguous())
    return t.double().contiguous().numpy().reshape(-1)


def _real_numel(t):
    return t.numel() * (2 if t.is_complex() else 1)


def _numerical_jacobians(func, inputs, wrt, eps, out_indices):
    """For each input in wrt: array [numel(input), total numel of the chosen outputs] of d out / d in."""
    import numpy as np  # imported on use: it would add ~90 ms to `import torchlite`
    def flat_outputs():
        with _torchlite.no_grad():
            outs = _as_tuple(func(*inputs))
        return np.concatenate([_real_values(outs[k]) for k in out_indices] or [np.zeros(0)])

    jacobians = []
    for i in wrt:
        x = inputs[i]
        view = x.detach().numpy()  # shares memory with x: writes perturb the real input
        # A complex element is perturbed along its real part, then its imaginary part (two rows).
        steps = (eps, eps * 1j) if np.iscomplexobj(view) else (eps,)
        cols = []
        for idx in np.ndindex(view.shape):
            orig = view[idx]
            for step in steps:
                view[idx] = orig + step
                plus = flat_outputs()
                view[idx] = orig - step
                minus = flat_outputs()
                view[idx] = orig
                cols.append((plus - minus) / (2 * eps))
        n_out = len(flat_outputs())
        jacobians.append(np.array(cols).reshape(view.size * len(steps), n_out))
    return jacobians


def _analytical_jacobians(func, inputs, wrt):
    import numpy as np
    all_outputs = _as_tuple(func(*inputs))
    indices = _differentiable_indices(all_outputs)
    outputs = [all_outputs[k] for k in indices]
    total = sum(_real_numel(o) for o in outputs)
    jac = [np.zeros((_real_numel(inputs[i]), total)) for i in wrt]
    col = 0
    for out in outputs:
        # A complex output element has two columns: its real part (grad_output 1), its imaginary part (1j).
        seeds = (1.0, 1j) if out.is_complex() else (1.0,)
        for k in range(out.numel()):
            for seed in seeds:
                grad_out = _torchlite.zeros(out.shape, dtype=out.dtype)
                grad_out.reshape(-1)[k] = seed
                grads = _torchlite.autograd.grad([out], [inputs[i] for i in wrt], [grad_out],
                                                retain_graph=True, allow_unused=True)
                for j, g in enumerate(grads):
                    if g is not None:
                        if inputs[wrt[j]].is_complex() and not g.is_complex():
                            g = g.to(inputs[wrt[j]].dtype)  # a real gradient of a complex input
                        jac[j][:, col] = _real_values(g)
                col += 1
    return jac, indices, all_outputs


def _mismatch_message(a, n, i, inputs, outputs, indices, rtol, atol):
    """PyTorch's message, with its note on which parts (real/imaginary) of inputs and outputs differ."""
    import numpy as np
    notes = []
    bad = ~np.isclose(a, n, rtol=rtol, atol=atol) if a.shape == n.shape else np.zeros((0, 0), bool)
    if inputs[i].is_complex() and bad.size:
        rows = bad.any(axis=1)
        if not rows[0::2].any() and rows[1::2].any():
            notes.append("While considering the imaginary part of complex inputs only, ")
        elif rows[0::2].any() and not rows[1::2].any():
            notes.append("While considering the real part of complex inputs only, ")
    if bad.size and indices and all(outputs[k].is_complex() for k in indices):  # columns alternate real, imaginary
        cols = bad.any(axis=0)
        if not cols[0::2].any() and cols[1::2].any():
            notes.append("While considering the imaginary part of complex outputs only, ")
        elif cols[0::2].any() and not cols[1::2].any():
            notes.append("While considering the real part of complex outputs only, ")
    return (f"{''.join(notes)}Jacobian mismatch for output 0 with respect to input {i},\n"
            f"numerical:{n}\nanalytical:{a}\n")


def gradcheck(func: Callable, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False, fast_mode: bool = False) -> bool:
    """True if the gradients autograd computes for func at inputs match finite differences.

    Only floating-point inputs with requires_grad=True are differentiated; use float64 inputs
    (with float32 the differences are too coarse to be meaningful). fast_mode=True checks one random
    projection v^T J u per input/output pair instead of whole Jacobians (_gradcheck_fast.py)."""
    import numpy as np
    inputs = _as_tuple(inputs)
    wrt = [i for i, x in enumerate(inputs) if isinstance(x, _torchlite.Tensor) and x.requires_grad]
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of the them have requires_grad=True.")
    for i in wrt:
        if inputs[i].dtype not in (_torchlite.float64, _torchlite.complex128):
            raise ValueError(f"gradcheck: input {i} has dtype {inputs[i].dtype}; use float64 or complex128 "
                             "inputs (finite differences are not accurate enough in lower precision)")
    if fast_mode:
        outs = _as_tuple(func(*inputs))
        if _differentiable_outputs(outs):  # else the slow check below (the numerical Jacobian must be 0)
            from torchlite.autograd._gradcheck_fast import fast_gradcheck

            def slow_report(i, k):
                a, idx, _ = _analytical_jacobians(func, inputs, [i])
                n = _numerical_jacobians(func, inputs, [i], eps, idx)
                return f"numerical:{n[0]}\nanalytical:{a[0]}\n"

            return fast_gradcheck(func, inputs, wrt, eps=eps, atol=atol, rtol=rtol,
                                  raise_exception=raise_exception, error_type=GradcheckError,
                                  slow_report=slow_report)
    analytical, indices, outputs = _analytical_jacobians(func, inputs, wrt)
    if not indices:
        # No output carries a gradient: then the function must not depend on its inputs at all.
        indices = [k for k, o in enumerate(outputs)
                   if isinstance(o, _torchlite.Tensor) and (o.is_floating_point() or o.is_complex())]
        analytical = [np.zeros((_real_numel(inputs[i]), sum(_real_numel(outputs[k]) for k in indices)))
                      for i in wrt]
    numerical = _numerical_jacobians(func, inputs, wrt, eps, indices)
    for j, i in enumerate(wrt):
        a, n = analytical[j], numerical[j]
        if a.shape != n.shape or not np.allclose(a, n, rtol=rtol, atol=atol, equal_nan=False):
            msg = _mismatch_message(a, n, i, inputs, outputs, indices, rtol, atol)
            if raise_exception:
                raise GradcheckError(msg)
            return False
    return True


def gradgradcheck(func: Callable, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True,
                  nondet_tol: float = 0.0, check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, fast_mode: bool = False) -> bool:
    """gradcheck of the function computing func's first derivatives (vector-Jacobian products with
    grad_outputs, random when not given), so the backward formulas' own gradients are checked."""
    import numpy as np
    inputs = _as_tuple(inputs)
    wrt = [i for i, x in enumerate(inputs) if isinstance(x, _torchlite.Tensor) and x.requires_grad]
    outputs = _differentiable_outputs(_as_tuple(func(*inputs)))
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = []
        for o in outputs:
            if o.is_complex():
                shape = tuple(o.shape)
                values = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
                g = _torchlite.from_numpy(values.astype(np.complex128)).requires_grad_()
            else:
                g = _torchlite.from_numpy(rng.standard_normal(tuple(o.shape)).astype(np.float64)).requires_grad_()
            if gen_non_contig_grad_outputs and g.dim() >= 2:
                g = g.detach().t().contiguous().t().requires_grad_()
            grad_outputs.append(g)
    grad_outputs = list(_as_tuple(grad_outputs))
    n_in = len(inputs)

    def first_derivatives(*args):
        ins, gos = args[:n_in], args[n_in:]
        with _torchlite.enable_grad():  # also when gradcheck evaluates it for finite differences
            outs = _differentiable_outputs(_as_tuple(func(*ins)))
            grads = _torchlite.autograd.grad(outs, [ins[i] for i in wrt], list(gos), create_graph=True,
                                            allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, fast_mode=fast_mode)


del annotations, Sequence  # torch's module has no such name
