"""gradcheck's fast mode (fast_mode=True): PyTorch's check by random projections.

Instead of whole Jacobians J (one backward pass per output element, two function calls per input
element), each pair (input i, output j) is reduced to one number, v_j^T J_ji u_i, for random unit
vectors u_i (per input) and v_j (per output):
- numerically, from one central difference along u_i: J u ~ (f(x + eps u) - f(x - eps u)) / (2 eps);
- analytically, from one backward pass with grad_output v_j: (v_j^T J) . u_i.
The two must agree within rtol and an atol scaled by sum(u) sum(v) (the bound the element-wise
check would give on the projection). A wrong gradient fails unless it happens to be orthogonal to the
random projection, which has probability zero.

Complex numbers follow PyTorch's fast mode:
- a complex input has two real direction vectors (ur, ui): its real part is perturbed along ur, its
  imaginary part along ui, and the numerical value is v.ds_dx + i v.ds_dy; the analytical one takes
  the gradient g = dL/dx + i dL/dy and gives Re(g).ur + i Im(g).ui;
- a complex output is checked as two real outputs, its imaginary part (grad_output i v) and then its
  real part (grad_output v), with PyTorch's "While considering the ... part of complex outputs only"
  prefix in the error.
The random vectors are torch.rand draws (default dtype, then float64) from a fresh generator, normalized, in
PyTorch's order (each input's ur, ui, then each output's v), so they equal PyTorch's.
"""
from __future__ import annotations

import torchlite as _torchlite


def _unit_rand(numel, gen):
    # Drawn in the default dtype and then widened, as PyTorch's gradcheck draws them.
    vec = _torchlite.rand(numel, generator=gen).to(_torchlite.float64)
    norm = float(vec.norm())
    return (vec / norm if norm > 0 else vec).numpy()


def _flat_real_parts(t):
    """A tensor as (real, imag) float64 NumPy vectors (imag None for a real tensor)."""
    t = t.detach()
    if t.is_complex():
        r = _torchlite.view_as_real(t.to(_torchlite.complex128).contiguous()).numpy().reshape(-1, 2)
        return r[:, 0].copy(), r[:, 1].copy()
    return t.double().contiguous().numpy().reshape(-1), None


def _outputs_of(func, inputs, indices):
    with _torchlite.no_grad():
        outs = func(*inputs)
    outs = tuple(outs) if isinstance(outs, (tuple, list)) else (outs,)
    # Copies: an output that is a view of the input (transpose, slicing) would otherwise change with the next
    # perturbation, and f(x + eps u) - f(x - eps u) would read 0.
    return [outs[k].clone() for k in indices]


def _numerical_projections(func, inputs, wrt, out_indices, us, vs, eps):
    """n[i][j] = (real part, imag part) of v_j^T J_ji u_i for each output part (real, imag)."""
    import numpy as np
    result = []
    for i, u in zip(wrt, us):
        view = inputs[i].detach().numpy()  # shares memory: writes perturb the real input
        orig = view.copy()
        directions = [u[0]] if not np.iscomplexobj(view) else [u[0], u[1] * 1j]
        per_dir = []  # per direction: for each output, the (real, imag) directional derivative
        for d in directions:
            step = eps * d.reshape(view.shape)
            view[...] = orig + step
            plus = _outputs_of(func, inputs, out_indices)
            view[...] = orig - step
            minus = _outputs_of(func, inputs, out_indices)
            view[...] = orig
            derivs = []
            for p, m in zip(plus, minus):
                pr, pi = _flat_real_parts(p)
                mr, mi = _flat_real_parts(m)
                derivs.append(((pr - mr) / (2 * eps), None if pi is None else (pi - mi) / (2 * eps)))
            per_dir.append(derivs)
        row = []
        for j, v in enumerate(vs):
            parts = []
            for part in (0, 1):  # the output's real part, then its imaginary part
                if per_dir[0][j][part] is None:
                    parts.append(None)
                    continue
                value = complex(np.dot(v, per_dir[0][j][part]))
                if len(per_dir) == 2:  # complex input: ds/dx + i ds/dy
                    value += 1j * float(np.dot(v, per_dir[1][j][part]))
                parts.append(value)
            row.append(parts)
        result.append(row)
    return result


def _analytical_projection(out, v, seed, inputs, wrt, us):
    """(v_j^T J) u_i for every input i, from one backward pass with grad_output seed * v."""
    import numpy as np
    grad_out = _torchlite.from_numpy((v * seed).reshape(tuple(out.shape)).astype(
        np.complex128 if out.is_complex() else np.float64)).to(out.dtype)
    grads = _torchlite.autograd.grad([out], [inputs[i] for i in wrt], [grad_out], retain_graph=True,
                                    allow_unused=True)
    values = []
    for i, g, u in zip(wrt, grads, us):
        if g is None:
            values.append(0j)
            continue
        gr, gi = _flat_real_parts(g)
        if inputs[i].is_complex():
            values.append(complex(np.dot(gr, u[0])) + 1j * (0.0 if gi is None else float(np.dot(gi, u[1]))))
        else:
            values.append(complex(np.dot(gr, u[0])))
    return values


def fast_gradcheck(func, inputs, wrt, *, eps, atol, rtol, raise_exception, error_type, slow_report):
    """True if every projection matches; else raises error_type (or returns False).

    slow_report(i, j) gives the slow-mode Jacobians of output j with respect to input i for the message,
    as PyTorch recomputes them when fast mode fails."""
    import numpy as np
    outs = func(*inputs)
    outs = tuple(outs) if isinstance(outs, (tuple, list)) else (outs,)
    out_indices = [k for k, o in enumerate(outs) if isinstance(o, _torchlite.Tensor) and o.requires_grad]
    outputs = [outs[k] for k in out_indices]
    gen = _torchlite.Generator()
    us = []
    for i in wrt:
        n = inputs[i].numel()
        us.append((_unit_rand(n, gen), _unit_rand(n, gen)) if inputs[i].is_complex() else (_unit_rand(n, gen),))
    vs = [_unit_rand(o.numel(), gen) for o in outputs]
    numerical = _numerical_projections(func, inputs, wrt, out_indices, us, vs, eps)
    for j, (out, v) in enumerate(zip(outputs, vs)):
        # A complex output: its imaginary part first, then its real part (PyTorch's order).
        parts = ((1, 1j), (0, 1.0)) if out.is_complex() else ((0, 1.0),)
        for part, seed in parts:
            analytical = _analytical_projection(out, v, seed, inputs, wrt, us)
            for col, i in enumerate(wrt):
                a, n = analytical[col], numerical[col][j][part]
                tol = atol * float(us[col][0].sum()) * float(v.sum())
                if not abs(a - n) <= tol + rtol * abs(n):
                    prefix = ""
                    if out.is_complex():
                        prefix = f"While considering the {'imaginary' if part else 'real'} part of complex outputs only, "
                    fmt = (lambda z: repr(z)) if inputs[i].is_complex() else (lambda z: repr(z.real))
                    msg = (f"{prefix}Jacobian mismatch for output {out_indices[j]} with respect to input {i},\n"
                           f"numerical:{fmt(n)}\nanalytical:{fmt(a)}\n\n"
                           "The above quantities relating the numerical and analytical jacobians are computed\n"
                           "in fast mode (v^T J u for random unit vectors u, v). Recomputed in slow mode:\n"
                           + slow_report(i, out_indices[j]))
                    if raise_exception:
                        raise error_type(msg)
                    return False
    return True
