"""Numerical checks of autograd: gradcheck (first derivatives) and gradgradcheck (second).

Both compare the Jacobian autograd computes (row by row, one vector-Jacobian product per output
element) with central finite differences on float64 inputs, with PyTorch's argument names and
meaning. Inputs are perturbed in place through a NumPy view of their memory, so strided,
transposed and sliced inputs are checked as they are.
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


def _numerical_jacobians(func, inputs, wrt, eps, out_indices):
    """For each input in wrt: array [numel(input), total numel of the chosen outputs] of d out / d in."""
    import numpy as np  # imported on use: it would add ~90 ms to `import torchlite`
    def flat_outputs():
        with _torchlite.no_grad():
            outs = _as_tuple(func(*inputs))
        return np.concatenate([outs[k].detach().double().contiguous().numpy().reshape(-1) for k in out_indices]
                              or [np.zeros(0)])

    jacobians = []
    for i in wrt:
        x = inputs[i]
        view = x.detach().numpy()  # shares memory with x: writes perturb the real input
        cols = []
        for idx in np.ndindex(view.shape):
            orig = view[idx]
            view[idx] = orig + eps
            plus = flat_outputs()
            view[idx] = orig - eps
            minus = flat_outputs()
            view[idx] = orig
            cols.append((plus - minus) / (2 * eps))
        n_out = len(flat_outputs())
        jacobians.append(np.array(cols).reshape(view.size, n_out))
    return jacobians


def _analytical_jacobians(func, inputs, wrt):
    import numpy as np
    all_outputs = _as_tuple(func(*inputs))
    indices = _differentiable_indices(all_outputs)
    outputs = [all_outputs[k] for k in indices]
    sizes = [o.numel() for o in outputs]
    total = sum(sizes)
    jac = [np.zeros((inputs[i].numel(), total)) for i in wrt]
    col = 0
    for out, n in zip(outputs, sizes):
        for k in range(n):
            grad_out = _torchlite.zeros(out.shape, dtype=out.dtype)
            grad_out.reshape(-1)[k] = 1.0
            grads = _torchlite.autograd.grad([out], [inputs[i] for i in wrt], [grad_out],
                                            retain_graph=True, allow_unused=True)
            for j, g in enumerate(grads):
                if g is not None:
                    jac[j][:, col] = g.detach().double().contiguous().numpy().reshape(-1)
            col += 1
    return jac, indices, all_outputs


def gradcheck(func: Callable, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False, fast_mode: bool = False) -> bool:
    """True if the gradients autograd computes for func at inputs match finite differences.

    Only floating-point inputs with requires_grad=True are differentiated; use float64 inputs
    (with float32 the differences are too coarse to be meaningful)."""
    import numpy as np
    inputs = _as_tuple(inputs)
    wrt = [i for i, x in enumerate(inputs) if isinstance(x, _torchlite.Tensor) and x.requires_grad]
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of the them have requires_grad=True.")
    for i in wrt:
        if inputs[i].dtype != _torchlite.float64:
            raise ValueError(f"gradcheck: input {i} has dtype {inputs[i].dtype}; use float64 inputs "
                             "(finite differences are not accurate enough in lower precision)")
    analytical, indices, outputs = _analytical_jacobians(func, inputs, wrt)
    if not indices:
        # No output carries a gradient: then the function must not depend on its inputs at all.
        indices = [k for k, o in enumerate(outputs) if isinstance(o, _torchlite.Tensor) and o.is_floating_point()]
        analytical = [np.zeros((inputs[i].numel(), sum(outputs[k].numel() for k in indices))) for i in wrt]
    numerical = _numerical_jacobians(func, inputs, wrt, eps, indices)
    for j, i in enumerate(wrt):
        a, n = analytical[j], numerical[j]
        if a.shape != n.shape or not np.allclose(a, n, rtol=rtol, atol=atol, equal_nan=False):
            msg = (f"Jacobian mismatch for output 0 with respect to input {i},\n"
                   f"numerical:{n}\nanalytical:{a}\n")
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
                     raise_exception=raise_exception)


del annotations, Sequence  # torch's module has no such name
