"""torch.autograd.functional: vjp, jvp, jacobian, hessian, vhp and hvp of a Python function.

Everything is built on reverse mode (torchlite.autograd.grad). torchlite has no forward-mode AD:
jvp, hvp and the "forward-mode" jacobian strategy use the double-backward trick instead: for
g(u) = J^T u (a vjp with a dummy cotangent u that requires grad), J v is the vjp of g with v.
``vectorize=True`` gives the same results as ``vectorize=False`` (PyTorch batches the backward
passes with vmap; here they run one after the other).

Argument checks, strict-mode checks and messages follow PyTorch's.
"""
import torchlite as _tl

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


# ---- argument normalisation ---------------------------------------------------------------------

def _as_tuple(value, arg_name, fn_name):
    """(was_tuple, tuple of tensors); anything else than tensors is a TypeError naming ``fn_name``."""
    was_tuple = isinstance(value, tuple)
    values = value if was_tuple else (value,)
    for i, el in enumerate(values):
        if not isinstance(el, _tl.Tensor):
            where = f"value at index {i}" if was_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors "
                            f"but the {where} has type {type(el)}.")
    return was_tuple, values


def _untuple(res, was_tuple):
    """Undoes _as_tuple on a result: ``was_tuple`` is a bool, or (outer, inner) for nested results."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        if not inner:
            res = type(res)(row[0] for row in res)
        return res if outer else res[0]
    return res if was_tuple else res[0]


def _prepare(tensors, create_graph, need_graph):
    """New tensor objects for the function's inputs (so they differ from tensors the function
    captures): differentiable aliases with create_graph, otherwise detached leaves."""
    out = []
    for t in tensors:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(tensors, create_graph):
    """Results without history unless create_graph (nested tuples too)."""
    if isinstance(tensors[0], _tl.Tensor):
        return tuple(tensors) if create_graph else tuple(t.detach() for t in tensors)
    return tuple(_finish(t, create_graph) for t in tensors)


def _check_v(v, like, like_is_tuple):
    if len(v) != len(like):
        if like_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(like)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, like)):
        if a.size() != b.size():
            where = f"Entry {i} in " if like_is_tuple else ""
            raise RuntimeError(f"{where}v has invalid size: should be {b.size()} but got {a.size()}.")


def _prepare_v(v, fn_name, like, like_is_tuple, create_graph, none_message):
    if v is None:
        if len(like) != 1 or like[0].nelement() != 1:
            raise RuntimeError(none_message)
        return None
    _, v = _as_tuple(v, "v", fn_name)
    v = _prepare(v, create_graph, need_graph=False)
    _check_v(v, like, like_is_tuple)
    return v


_STRICT_NOT_DIFFERENTIABLE = {
    "outputs": ("Output {i} of the user-provided function does not require gradients. The outputs must be "
                "computed in a differentiable manner from the input when running in strict mode."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of the user-provided "
                    "function. This is not allowed in strict mode."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided function with respect "
                 "to input {i} is independent of the input. This is not allowed in strict mode. You should ensure "
                 "that your function is twice differentiable and that the jacobian depends on the inputs (this "
                 "would be violated by a linear function for example)."),
    "hessian": ("The hessian of the user-provided function with respect to input {i} is independent of the input. "
                "This is not allowed in strict mode. You should ensure that your function is thrice differentiable "
                "and that the hessian depends on the inputs."),
}


def _strict_check(tensors, kind, strict):
    """In strict mode, every tensor must exist and require grad (``kind`` picks the message)."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. "
                               "This is not allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_STRICT_NOT_DIFFERENTIABLE[kind].format(i=i))


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """autograd.grad over the outputs that require grad only (None for every input when none does)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _tl.autograd.grad(tuple(o for o, _ in pairs), inputs, tuple(g for _, g in pairs), allow_unused=True,
                             create_graph=create_graph, retain_graph=retain_graph)


_STRICT_NONE = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict mode.",
    "back_trick": ("The gradient with respect to the input is independent of entry {i} in the grad_outputs when "
                   "using the double backward trick to compute forward mode gradients. This is not allowed in "
                   "strict mode."),
    "double_back": ("The jacobian of the user-provided function is independent of input {i}. This is not allowed "
                    "in strict mode."),
    "double_back_trick": ("The hessian of the user-provided function is independent of entry {i} in the "
                          "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
                          "backward trick to replace forward mode AD."),
}


def _zeros_for_none(grads, like, strict, create_graph, stage):
    """Replaces missing gradients by zeros shaped like ``like`` (an error in strict mode)."""
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_STRICT_NONE[stage].format(i=i))
            g = _tl.zeros_like(like[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. "
                               "This is not allowed in strict mode when create_graph=True.")
        out.append(g)
    return tuple(out)


def _call(func, inputs, fn_name, strict):
    was_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", fn_name)
    _strict_check(outputs, "outputs", strict)
    return was_tuple, outputs


def _single_output_check(outputs_were_tuple, outputs, fn_name):
    if outputs_were_tuple or not isinstance(outputs[0], _tl.Tensor):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")


# ---- public functions ---------------------------------------------------------------------------

def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), v^T J)``: the vector-Jacobian product at ``inputs`` (shaped like the inputs).

    ``v`` may be omitted when ``func`` returns a single one-element tensor. With ``create_graph``
    the results are differentiable; ``strict`` raises where an input has no influence on the
    outputs instead of returning zeros.
    """
    with _tl.enable_grad():
        inputs_were_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_were_tuple, outputs = _call(func, inputs, "vjp", strict)
        v = _prepare_v(v, "vjp", outputs, outputs_were_tuple, create_graph,
                       "The vector v can only be None if the user-provided function returns a single Tensor "
                       "with a single element.")
    with _tl.set_grad_enabled(create_graph or _tl.is_grad_enabled()):
        res = _zeros_for_none(_grad(outputs, inputs, v, create_graph=create_graph), inputs, strict, create_graph,
                              "back")
    return (_untuple(_finish(outputs, create_graph), outputs_were_tuple),
            _untuple(_finish(res, create_graph), inputs_were_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), J v)``: the Jacobian-vector product at ``inputs`` (shaped like the outputs).

    Computed with the double-backward trick (no forward-mode AD in torchlite).
    """
    with _tl.enable_grad():
        inputs_were_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, "jvp", inputs, inputs_were_tuple, create_graph,
                       "The vector v can only be None if the input to the user-provided function is a single "
                       "Tensor with a single element.")
        outputs_were_tuple, outputs = _call(func, inputs, "jvp", strict)
        res = _jvp_by_double_backward(outputs, inputs, v, create_graph, strict)
    return (_untuple(_finish(outputs, create_graph), outputs_were_tuple),
            _untuple(_finish(res, create_graph), outputs_were_tuple))


def _jvp_by_double_backward(outputs, inputs, v, create_graph, strict):
    """J v for outputs of inputs: the vjp of u -> J^T u with v (u a dummy cotangent)."""
    dummies = tuple(_tl.zeros_like(o, requires_grad=True) for o in outputs)
    jt_u = _grad(outputs, inputs, dummies, create_graph=True)
    _strict_check(jt_u, "grad_inputs", strict)
    with _tl.set_grad_enabled(create_graph or _tl.is_grad_enabled()):
        res = _grad(jt_u, dummies, v, create_graph=create_graph)
        return _zeros_for_none(res, outputs, strict, create_graph, "back_trick")


def _jacobian_reverse(outputs, inputs, create_graph, strict):
    """Rows of the Jacobian: one backward pass per output element. Result[i][j] has shape
    outputs[i].shape + inputs[j].shape."""
    jac = []
    for i, out in enumerate(outputs):
        flat = out.reshape(-1)
        rows = [[] for _ in inputs]
        for k in range(out.nelement()):
            grads = _grad((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
            for j, (g, inp) in enumerate(zip(grads, inputs)):
                if g is None:
                    if strict:
                        raise RuntimeError(f"Output {i} of the user-provided function is independent of input {j}. "
                                           "This is not allowed in strict mode.")
                    g = _tl.zeros_like(inp)
                elif strict and create_graph and not g.requires_grad:
                    raise RuntimeError(f"The jacobian of the user-provided function is independent of input {i}. "
                                       "This is not allowed in strict mode when create_graph=True.")
                rows[j].append(g)
        jac.append(tuple(_stack_rows(r, out.size() + inp.size(), inp) for r, inp in zip(rows, inputs)))
    return tuple(jac)


def _stack_rows(rows, shape, like):
    if not rows:  # an empty output: no rows to stack
        return like.new_zeros(shape)
    return _tl.stack(rows, dim=0).view(shape)


def _jacobian_forward(func, inputs, vectorize):
    """The "forward-mode" strategy: columns of the Jacobian, one Jacobian-vector product per input
    element (double-backward trick: torchlite has no forward-mode AD)."""
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                  "only implemented for `vectorize=True`.")
    inputs_were_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    with _tl.enable_grad():
        inputs = _prepare(inputs, create_graph=False, need_graph=True)
        outputs_were_tuple, outputs = _as_tuple(func(*inputs), "outputs", "jacobian")
        outputs = tuple(o if o.requires_grad else o.detach() for o in outputs)
        jac = [[] for _ in outputs]  # jac[i][j]: columns for input j of output i
        # J^T u once; each column J e_k is then one backward pass through it
        dummies = tuple(_tl.zeros_like(o, requires_grad=True) for o in outputs)
        jt_u = _grad(outputs, inputs, dummies, create_graph=True)
        for j, inp in enumerate(inputs):
            cols = [[] for _ in outputs]
            for k in range(inp.nelement()):
                tangent = [_tl.zeros_like(x) for x in inputs]
                tangent[j] = _tl.zeros(inp.numel(), dtype=inp.dtype)
                tangent[j][k] = 1
                tangent[j] = tangent[j].view(inp.shape)
                jv = _zeros_for_none(_grad(jt_u, dummies, tangent, retain_graph=True), outputs, False, False,
                                     "back_trick")
                for i, c in enumerate(jv):
                    cols[i].append(c.detach())
            for i, out in enumerate(outputs):
                if cols[i]:
                    block = _tl.stack(cols[i], dim=-1).reshape(out.shape + inp.shape)
                else:
                    block = out.new_zeros(out.shape + inp.shape)
                jac[i].append(block)
    # lists, not tuples, as PyTorch's forward-mode jacobian returns
    return _untuple(jac, (outputs_were_tuple, inputs_were_tuple))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: entry [i][j] has shape
    ``outputs[i].shape + inputs[j].shape`` (un-nested where inputs/outputs are single tensors).

    ``vectorize=True`` gives the same result (here computed by the same loop; strict is refused
    with it, as in PyTorch). ``strategy="forward-mode"`` needs ``vectorize=True`` and computes the
    columns by Jacobian-vector products (double-backward trick).
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError("torchlite.autograd.functional.jacobian: `create_graph=True` and "
                                      '`strategy="forward-mode"` are not supported together (yet). Please either '
                                      'set `create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError('torchlite.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are '
                               'not supported together (yet). Please either set `strict=False` or '
                               '`strategy="reverse-mode"`.')
        return _jacobian_forward(func, inputs, vectorize)
    with _tl.enable_grad():
        inputs_were_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_were_tuple, outputs = _call(func, inputs, "jacobian", strict)
        if vectorize and strict:
            raise RuntimeError("torchlite.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                               "supported together. Please either set `strict=False` or `vectorize=False`.")
        jac = _jacobian_reverse(outputs, inputs, create_graph, strict)
        return _untuple(_finish(jac, create_graph), (outputs_were_tuple, inputs_were_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function: entry [i][j] has shape ``inputs[i].shape + inputs[j].shape``.
    The Jacobian of the gradient; ``outer_jacobian_strategy`` as ``jacobian``'s ``strategy``."""
    inputs_were_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*inp):
        out = func(*inp)
        was_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _strict_check(outs, "outputs", strict)
        _single_output_check(was_tuple, outs, "hessian")
        return out.squeeze()

    def gradient(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        g = jacobian(scalar_func, inp, create_graph=True)
        _strict_check(g, "jacobian", strict)
        return g

    res = jacobian(gradient, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _untuple(res, (inputs_were_tuple, inputs_were_tuple))


def _scalar_output_and_gradient(func, inputs, v, fn_name, create_graph, strict):
    """Shared start of vhp/hvp: checked inputs, v, the scalar output and its gradient (with graph)."""
    inputs_were_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    inputs = _prepare(inputs, create_graph, need_graph=True)
    v = _prepare_v(v, fn_name, inputs, inputs_were_tuple, create_graph,
                   "The vector v can only be None if the input to the user-provided function is a single Tensor "
                   "with a single element.")
    outputs_were_tuple, outputs = _call(func, inputs, fn_name, strict)
    _single_output_check(outputs_were_tuple, outputs, fn_name)
    g = _grad(outputs, inputs, create_graph=True)
    _strict_check(g, "jacobian", strict)
    return inputs_were_tuple, inputs, v, outputs_were_tuple, outputs, g


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), v^T H)`` for a scalar function (H its Hessian at ``inputs``)."""
    with _tl.enable_grad():
        inputs_were_tuple, inputs, v, outputs_were_tuple, outputs, g = _scalar_output_and_gradient(
            func, inputs, v, "vhp", create_graph, strict)
    with _tl.set_grad_enabled(create_graph or _tl.is_grad_enabled()):
        res = _zeros_for_none(_grad(g, inputs, v, create_graph=create_graph), inputs, strict, create_graph,
                              "double_back")
    return (_untuple(_finish(outputs, create_graph), outputs_were_tuple),
            _untuple(_finish(res, create_graph), inputs_were_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), H v)`` for a scalar function, by the double-backward trick on its gradient
    (equal to vhp for functions with a symmetric Hessian)."""
    with _tl.enable_grad():
        inputs_were_tuple, inputs, v, outputs_were_tuple, outputs, g = _scalar_output_and_gradient(
            func, inputs, v, "hvp", create_graph, strict)
        dummies = tuple(_tl.zeros_like(x, requires_grad=True) for x in inputs)
        h_u = _grad(g, inputs, dummies, create_graph=True)
        _strict_check(g, "hessian", strict)
    with _tl.set_grad_enabled(create_graph or _tl.is_grad_enabled()):
        res = _zeros_for_none(_grad(h_u, dummies, v, create_graph=create_graph), inputs, strict, create_graph,
                              "double_back_trick")
    return (_untuple(_finish(outputs, create_graph), outputs_were_tuple),
            _untuple(_finish(res, create_graph), inputs_were_tuple))
