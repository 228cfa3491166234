"""torch.func's differentiation transforms on reverse-mode autograd.

Each transform gives the differentiated arguments fresh tensors that require grad (aliases
connected to the caller's graph when the argument itself requires grad, so transforms nest:
grad(grad(f)), jacrev(jacrev(f)), and their results stay differentiable by ordinary autograd).
jvp, jacfwd, linearize and hessian's outer jacobian use the double-backward trick: torchlite has
no forward-mode AD. Results are computed one backward pass per row/column (no vmap batching).
"""
import functools

import torchlite as _tl

from ._pytree import tree_flatten, tree_unflatten

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "linearize", "functionalize",
           "debug_unwrap"]


# ---- argnums --------------------------------------------------------------------------------------

def _wrap_argnum(argnum, num_args):
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if -num_args <= argnum < num_args:
        return argnum % num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _wrap_argnums(argnums, num_args):
    if isinstance(argnums, int):
        return _wrap_argnum(argnums, num_args)
    if isinstance(argnums, tuple):
        wrapped = tuple(_wrap_argnum(a, num_args) for a in argnums)
        if len(wrapped) == 0:
            raise RuntimeError("argnums must be non-empty")
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError(f"argnums elements must be unique, got {wrapped}")
        return wrapped
    raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")


def _select(args, argnums):
    return args[argnums] if isinstance(argnums, int) else tuple(args[i] for i in argnums)


def _replace(args, argnums, new):
    if isinstance(argnums, int):
        return tuple(new if i == argnums else a for i, a in enumerate(args))
    return tuple(new[argnums.index(i)] if i in argnums else a for i, a in enumerate(args))


# ---- differentiable inputs ------------------------------------------------------------------------

def _differentiable(t):
    """A new tensor object standing for ``t`` that requires grad (an alias keeping ``t``'s history
    when it has one, so an enclosing transform or autograd sees through it)."""
    if not isinstance(t, _tl.Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")
    return t.view_as(t) if t.requires_grad else t.detach().requires_grad_()


def _prepare(diff_args):
    """(flat differentiable leaves, their tree, whether the caller's graph must be kept)."""
    flat, spec = tree_flatten(diff_args)
    keep = _tl.is_grad_enabled() and any(isinstance(t, _tl.Tensor) and t.requires_grad for t in flat)
    made = [_differentiable(t) for t in flat]
    return made, spec, keep


def _grads(outputs, inputs, grad_outputs, keep, retain=None):
    """autograd.grad that tolerates outputs without history and unused inputs (zeros)."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        return [_tl.zeros_like(x) for x in inputs]
    res = _tl.autograd.grad([o for o, _ in pairs], inputs, [g for _, g in pairs], allow_unused=True,
                            create_graph=keep, retain_graph=True if retain is None else retain)
    return [_tl.zeros_like(x) if g is None else g for g, x in zip(res, inputs)]


def _release(tree, keep):
    """Results leave the transform without its graph unless the caller's graph is kept."""
    if keep:
        return tree
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([x.detach() if isinstance(x, _tl.Tensor) else x for x in leaves], spec)


def _split_aux(output, has_aux, api):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return output


# ---- grad ----------------------------------------------------------------------------------------

def grad_and_value(func, argnums=0, has_aux=False):
    """``grad_and_value(f)(*args)`` -> ``(gradient, f(*args))`` (``(gradient, (value, aux))`` with
    has_aux) for ``f`` returning a one-element 0-dim tensor; the gradient has the structure of
    ``args[argnums]``."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with _tl.enable_grad():
            argnums_ = _wrap_argnums(argnums, len(args))
            made, spec, keep = _prepare(_select(args, argnums_))
            output, aux = _split_aux(func(*_replace(args, argnums_, tree_unflatten(made, spec)), **kwargs), has_aux,
                                     "grad_and_value(f)(*args)")
            if not isinstance(output, _tl.Tensor):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(output)}")
            if output.dim() != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
                                   f"with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
            g = tree_unflatten(_grads([output], made, [None], keep, retain=keep), spec)
        value = output if keep else output.detach()
        if has_aux:
            return _release(g, keep), (value, _release(aux, keep))
        return _release(g, keep), value
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """``grad(f)(*args)``: the gradient of the scalar ``f`` with respect to ``args[argnums]`` (with
    has_aux: ``(gradient, aux)``)."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


# ---- vjp -----------------------------------------------------------------------------------------

def _check_float_outputs(flat, api):
    for o in flat:
        if not isinstance(o, _tl.Tensor):
            raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got output = {o})"
                               if o is None else f"{api}: Expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(o)}")
        if not (o.is_floating_point() or o.is_complex()):
            raise RuntimeError(f"{api}: All outputs of f must be floating-point or complex Tensors, got Tensor with "
                               f"dtype {o.dtype}")


def vjp(func, *primals, has_aux=False):
    """``(f(*primals), vjp_fn)`` (and aux): ``vjp_fn(cotangents)`` gives the vector-Jacobian product,
    a tuple with one entry per primal (each shaped like it). ``vjp_fn`` may be called repeatedly."""
    with _tl.enable_grad():
        made, spec, keep = _prepare(primals)
        output, aux = _split_aux(func(*tree_unflatten(made, spec)), has_aux, "vjp(f, *primals)")
        flat_out, out_spec = tree_flatten(output)
        _check_float_outputs(flat_out, "vjp(f, ...)")

    def vjp_fn(cotangents):
        flat_cot, cot_spec = tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of outputs "
                               f"to the function. cotangents: {cot_spec}, primal output: {out_spec}")
        for c, o in zip(flat_cot, flat_out):
            if c.shape != o.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {c.shape} and output[0] has a "
                                   f"shape of {o.shape}.")
        with _tl.enable_grad():
            res = _grads(flat_out, made, flat_cot, keep or any(c.requires_grad for c in flat_cot))
        return _release(tuple(tree_unflatten(res, spec)), keep)

    out = _release(output, keep)
    if has_aux:
        return out, vjp_fn, _release(aux, keep)
    return out, vjp_fn


# ---- jvp (double backward) ------------------------------------------------------------------------

def _jvp_flat(flat_out, made, flat_tangents, keep):
    """J t for every output: the vjp of u -> J^T u (u a dummy cotangent) with the tangents."""
    dummies = [_tl.zeros_like(o, requires_grad=True) for o in flat_out]
    jt_u = _grads(flat_out, made, dummies, keep=True)
    return _grads(jt_u, dummies, flat_tangents, keep)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(f(*primals), J tangents)`` (and aux), by the double-backward trick."""
    api = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    flat_p, p_spec = tree_flatten(primals)
    flat_t, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(f"{api}: Expected primals and tangents to have the same python structure. For example, if "
                           f"primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
                           f"{p_spec} and tangents with structure {t_spec}")
    for name, flat in (("primals", flat_p), ("tangents", flat_t)):
        if not flat:
            raise RuntimeError(f"{api}: Expected {name} to contain at least one Tensor.")
        for x in flat:
            if not isinstance(x, _tl.Tensor):
                raise RuntimeError(f"{api}: Expected {name} to only contain Tensors, got {type(x)}")
    if strict:
        raise RuntimeError(f"{api}: strict=True is not supported (torchlite computes jvp by double backward)")
    with _tl.enable_grad():
        made, spec, keep = _prepare(primals)
        output, aux = _split_aux(func(*tree_unflatten(made, spec)), has_aux, api)
        flat_out, out_spec = tree_flatten(output)
        if not flat_out:
            raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got output = {output})")
        for o in flat_out:
            if not isinstance(o, _tl.Tensor):
                raise RuntimeError(f"{api}: Expected f(*primals) to return only tensors, got unsupported type {type(o)}")
        tangents_out = _jvp_flat(flat_out, made, flat_t, keep)
    result = (_release(output, keep), _release(tree_unflatten(tangents_out, out_spec), keep))
    return result + (_release(aux, keep),) if has_aux else result


def linearize(func, *primals):
    """``(f(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` gives J tangents at ``primals`` (the graph of
    the one forward run is reused)."""
    with _tl.enable_grad():
        made, spec, keep = _prepare(primals)
        output = func(*tree_unflatten(made, spec))
        flat_out, out_spec = tree_flatten(output)
        dummies = [_tl.zeros_like(o, requires_grad=True) for o in flat_out]
        jt_u = _grads(flat_out, made, dummies, keep=True)

    def jvp_fn(*tangents):
        flat_t, t_spec = tree_flatten(tangents)
        if t_spec != spec:
            raise RuntimeError("linearize: Expected tangents to have the same structure as primals: "
                               f"{spec}, got {t_spec}")
        with _tl.enable_grad():
            res = _grads(jt_u, dummies, flat_t, keep)
        return _release(tree_unflatten(res, out_spec), keep)

    return _release(output, keep), jvp_fn


# ---- jacobians ------------------------------------------------------------------------------------

def _jacobian_tree(blocks, out_spec, in_spec):
    """Nests blocks[i][j] (output leaf i, input leaf j) as PyTorch does: the output structure, each
    leaf replaced by the input structure (a tuple per argnum when argnums is a tuple)."""
    return tree_unflatten([tree_unflatten(row, in_spec) for row in blocks], out_spec)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of ``func`` with respect to ``args[argnums]``, row by row (one backward pass per
    output element): entry shapes ``output.shape + input.shape``."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with _tl.enable_grad():
            argnums_ = _wrap_argnums(argnums, len(args))
            made, spec, keep = _prepare(_select(args, argnums_))
            output, aux = _split_aux(func(*_replace(args, argnums_, tree_unflatten(made, spec)), **kwargs), has_aux,
                                     "jacrev(f, ...)(*args)")
            flat_out, out_spec = tree_flatten(output)
            _check_float_outputs(flat_out, "jacrev(f, ...)(*args)")
            blocks = []
            for o in flat_out:
                rows = [[] for _ in made]
                flat_o = o.reshape(-1)
                for k in range(o.numel()):
                    for j, g in enumerate(_grads([flat_o[k]], made, [None], keep)):
                        rows[j].append(g)
                blocks.append([_tl.stack(r).reshape(o.shape + x.shape) if r else x.new_zeros(o.shape + x.shape)
                               for r, x in zip(rows, made)])
        jac = _release(_jacobian_tree(blocks, out_spec, spec), keep)
        return (jac, _release(aux, keep)) if has_aux else jac
    return wrapper


def _basis_vector(like, k):
    """Zeros shaped like ``like`` with a one at flat index ``k`` (contiguous, whatever like's strides)."""
    e = _tl.zeros(like.numel(), dtype=like.dtype)
    e[k] = 1
    return e.view(like.shape)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func`` with respect to ``args[argnums]``, column by column (one
    Jacobian-vector product per input element, by double backward)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or 'same'. Got "
                           f"{randomness}")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with _tl.enable_grad():
            argnums_ = _wrap_argnums(argnums, len(args))
            made, spec, keep = _prepare(_select(args, argnums_))
            output, aux = _split_aux(func(*_replace(args, argnums_, tree_unflatten(made, spec)), **kwargs), has_aux,
                                     "jvp(f, primals, tangents)")
            flat_out, out_spec = tree_flatten(output)
            dummies = [_tl.zeros_like(o, requires_grad=True) for o in flat_out]
            jt_u = _grads(flat_out, made, dummies, keep=True)
            blocks = [[None] * len(made) for _ in flat_out]
            for j, x in enumerate(made):
                cols = [[] for _ in flat_out]
                for k in range(x.numel()):
                    tangent = [_tl.zeros_like(m) for m in made]
                    tangent[j] = _basis_vector(x, k)
                    for i, c in enumerate(_grads(jt_u, dummies, tangent, keep)):
                        cols[i].append(c)
                for i, o in enumerate(flat_out):
                    blocks[i][j] = (_tl.stack(cols[i], dim=-1).reshape(o.shape + x.shape) if cols[i]
                                    else o.new_zeros(o.shape + x.shape))
        jac = _release(_jacobian_tree(blocks, out_spec, spec), keep)
        return (jac, _release(aux, keep)) if has_aux else jac
    return wrapper


def hessian(func, argnums=0):
    """The Hessian of a scalar ``func``: ``jacfwd(jacrev(func, argnums), argnums)``."""
    return jacfwd(jacrev(func, argnums), argnums)


# ---- the rest of torch.func's names ------------------------------------------------------------------

def functionalize(func, *, remove="mutations"):
    """torch.func.functionalize: the same function. Eager torchlite has nothing to trace, and running
    ``func`` with its mutations gives the results functionalization preserves."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}. "
                           "Valid options are:\n     remove='mutations': all inplace and out= operators will be "
                           "removed from the program, and replaced with their out-of-place equivalents.\n     "
                           "remove='mutations_and_views': In addition to the above, all aliasing operators {view} "
                           "will be replaced with their non-aliasing counterparts, {view}_copy.\n")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapper


def debug_unwrap(tensor, *, recurse=True):
    """The tensor itself: torchlite's transforms do not wrap tensors."""
    return tensor
