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


def _check_inputs(inputs):
    """PyTorch's _check_inputs: a warning for inputs that are not float64/complex128 (finite differences
    are too coarse there), RuntimeError for an input with a stride-0 dimension (perturbing one element
    would move several), ValueError when nothing requires grad."""
    import warnings
    wrt = []
    for idx, inp in enumerate(inputs):
        if isinstance(inp, _torchlite.Tensor) and inp.requires_grad:
            if inp.dtype not in (_torchlite.float64, _torchlite.complex128):
                warnings.warn(f"Input #{idx} requires gradient and is not a double precision floating point or "
                              "complex. This check will likely fail if all the inputs are not of double precision "
                              "floating point or complex. ")
            # (an empty input has no element to perturb: NumPy's zero strides of one are harmless)
            if inp.numel() > 0 and not all(st > 0 or sz <= 1 for st, sz in zip(inp.stride(), inp.shape)):
                raise RuntimeError(f"The {idx}th input has a dimension with stride 0. gradcheck only supports inputs "
                                   "that are non-overlapping to be able to compute the numerical gradients "
                                   "correctly. You should call .contiguous on the input before passing it to "
                                   "gradcheck.")
            wrt.append(idx)
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of the them have requires_grad=True.")
    return wrt


def gradcheck(func: Callable, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked=None) -> bool:
    """True if the gradients autograd computes for func at inputs match finite differences.

    Only inputs with requires_grad=True are differentiated; use float64/complex128 inputs (others are
    checked after a warning, as PyTorch's). fast_mode=True checks one random projection v^T J u per
    input/output pair instead of whole Jacobians (_gradcheck_fast.py). The other options are PyTorch's
    (docs/autograd.md, "gradcheck"): nondet_tol (the backward is run twice and must agree within it),
    check_grad_dtypes, check_undefined_grad, check_batched_grad (through torchlite.func.vmap, a loop),
    check_forward_ad (torchlite has no forward-mode AD: J t is computed by double backward, as
    torchlite.func.jvp does), check_backward_ad, masked (dense inputs only: no effect).
    raise_exception=False turns a failed check (GradcheckError) into False."""
    assert check_forward_ad or check_backward_ad, \
        "Expected at least one of check_forward_ad or check_backward_ad to be True"
    assert not (check_batched_grad and not check_backward_ad), \
        "Setting check_batched_grad=True requires check_backward_ad to be True"
    assert not (check_batched_forward_grad and not check_forward_ad), \
        "Setting check_batched_forward_grad=True requires check_forward_ad to be True"
    args = dict(eps=eps, atol=atol, rtol=rtol, nondet_tol=nondet_tol, check_undefined_grad=check_undefined_grad,
                check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                check_batched_forward_grad=check_batched_forward_grad, check_forward_ad=check_forward_ad,
                check_backward_ad=check_backward_ad, fast_mode=fast_mode)
    if not raise_exception:
        try:
            return _gradcheck_helper(func, inputs, **args)
        except GradcheckError:
            return False
    return _gradcheck_helper(func, inputs, **args)


def _gradcheck_helper(func, inputs, *, eps, atol, rtol, nondet_tol, check_undefined_grad, check_grad_dtypes,
                      check_batched_grad, check_batched_forward_grad, check_forward_ad, check_backward_ad,
                      fast_mode):
    from torchlite.autograd import _gradcheck_checks as checks
    inputs = _as_tuple(inputs)
    wrt = _check_inputs(inputs)
    if check_forward_ad:
        checks.check_forward_jacobians(func, inputs, wrt, eps=eps, atol=atol, rtol=rtol, error=GradcheckError)
        if check_batched_forward_grad:
            checks.check_batched_forward_grad(func, inputs, wrt, error=GradcheckError)
    if not check_backward_ad:
        return True
    _check_backward_jacobians(func, inputs, wrt, eps=eps, atol=atol, rtol=rtol, nondet_tol=nondet_tol,
                              check_grad_dtypes=check_grad_dtypes, fast_mode=fast_mode)
    outputs = _differentiable_outputs(_as_tuple(func(*inputs)))
    if check_batched_grad:
        for k, o in enumerate(outputs):
            checks.check_batched_grad(inputs, o, k, error=GradcheckError)
    checks.check_backward_mul_by_grad_output(outputs, inputs, error=GradcheckError)
    if check_undefined_grad:
        checks.check_undefined_grad(func, inputs, error=GradcheckError)
    return True


def _check_backward_jacobians(func, inputs, wrt, *, eps, atol, rtol, nondet_tol, check_grad_dtypes, fast_mode):
    import numpy as np
    from torchlite.autograd import _gradcheck_checks as checks
    if fast_mode:
        outs = _as_tuple(func(*inputs))
        if _differentiable_outputs(outs):  # else the slow check below (the numerical Jacobian must be 0)
            from torchlite.autograd._gradcheck_fast import fast_gradcheck

            def slow_report(i, k):
                a, idx, _ = _analytical_jacobians(func, inputs, [i])
                n = _numerical_jacobians(func, inputs, [i], eps, idx)
                return f"numerical:{n[0]}\nanalytical:{a[0]}\n"

            checks.check_vjp_attributes(func, inputs, wrt, nondet_tol, check_grad_dtypes, error=GradcheckError)
            return fast_gradcheck(func, inputs, wrt, eps=eps, atol=atol, rtol=rtol, raise_exception=True,
                                  error_type=GradcheckError, slow_report=slow_report)
    analytical, indices, outputs = _analytical_jacobians(func, inputs, wrt)
    if not indices:
        # No output carries a gradient: then the function must not depend on its inputs at all.
        indices = [k for k, o in enumerate(outputs)
                   if isinstance(o, _torchlite.Tensor) and (o.is_floating_point() or o.is_complex())]
        analytical = [np.zeros((_real_numel(inputs[i]), sum(_real_numel(outputs[k]) for k in indices)))
                      for i in wrt]
    else:
        # A backward must be reentrant (the same result each time): PyTorch computes every Jacobian row twice;
        # torchlite repeats one random vector-Jacobian product per output (the generated suites' gradchecks
        # would take twice as long otherwise; a nondeterministic backward shows in any random projection).
        checks.check_vjp_attributes(func, inputs, wrt, nondet_tol, check_grad_dtypes, error=GradcheckError)
    numerical = _numerical_jacobians(func, inputs, wrt, eps, indices)
    for j, i in enumerate(wrt):
        a, n = analytical[j], numerical[j]
        if a.shape != n.shape or not np.allclose(a, n, rtol=rtol, atol=atol, equal_nan=False):
            raise GradcheckError(_mismatch_message(a, n, i, inputs, outputs, indices, rtol, atol))
    return True


def gradgradcheck(func: Callable, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True,
                  nondet_tol: float = 0.0, check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False, check_rev_over_rev: bool = True,
                  fast_mode: bool = False, masked: bool = False) -> bool:
    """gradcheck of the function computing func's first derivatives (vector-Jacobian products with
    grad_outputs, random when not given), so the backward formulas' own gradients are checked.
    check_rev_over_rev / check_fwd_over_rev are gradcheck's check_backward_ad / check_forward_ad on it."""
    import numpy as np
    assert check_fwd_over_rev or check_rev_over_rev, \
        "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True"
    assert not (check_undefined_grad and not check_rev_over_rev), \
        "Setting check_undefined_grad=True requires check_rev_over_rev to be True"
    assert not (check_batched_grad and not check_rev_over_rev), \
        "Setting check_batched_grad=True requires check_rev_over_rev to be True"
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
                     raise_exception=raise_exception, nondet_tol=nondet_tol, check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev, fast_mode=fast_mode,
                     masked=masked)


del annotations, Sequence  # torch's module has no such name
