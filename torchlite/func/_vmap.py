"""torch.func.vmap as a loop: the function runs once per index of the mapped dimension, on the
inputs indexed there (``select``, so views of the caller's tensors), and the results are stacked
along ``out_dims``. Any function of tensors is supported, with the same results as PyTorch's
batching rules (up to floating-point summation order); it is as slow as a Python loop.

``randomness``: "error" raises when the function draws random numbers (the generator state moved),
"same" gives every sample the same draws (the state is reset before each call), "different" lets
the draws follow each other. ``chunk_size`` is checked and otherwise has no effect (the loop runs
one sample at a time).
"""
import functools

import torchlite as _tl

from ._pytree import broadcast_to_and_flatten, tree_flatten, tree_unflatten

__all__ = ["vmap"]


def _name(func):
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _check_randomness(randomness):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or 'same'. Got "
                           f"{randomness}")


def _flat_in_dims(func, in_dims, args):
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
                         "trying to vmap over a function with no inputs. The latter is unsupported.")
    flat_args, spec = tree_flatten(args)
    flat_dims = broadcast_to_and_flatten(in_dims, spec)
    if flat_dims is None:
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                         f"structure of `inputs`. in_dims has structure {tree_flatten(in_dims)[1]} but inputs has "
                         f"structure {spec}.")
    for i, (arg, d) in enumerate(zip(flat_args, flat_dims)):
        if d is not None and not isinstance(d, int):
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but "
                             "in_dim must be either an integer dimension or None.")
        if isinstance(d, int) and not isinstance(arg, _tl.Tensor):
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but "
                             f"the input is of type {type(arg)}. We cannot vmap over non-Tensor arguments, please use "
                             "None as the respective in_dim")
        if d is not None and not -arg.dim() <= d < arg.dim():
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, "
                             f"but that input is a Tensor of dimensionality {arg.dim()} so expected in_dim to satisfy "
                             f"-{arg.dim()} <= in_dim < {arg.dim()}.")
        if d is not None and d < 0:
            flat_dims[i] = d % arg.dim()
    sizes = [a.size(d) for a, d in zip(flat_args, flat_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return flat_args, spec, flat_dims, sizes[0]


def _check_out_dims(func, out_dims):
    for d in tree_flatten(out_dims)[0]:
        if d is not None and not isinstance(d, int):
            raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a "
                             "python collection of ints representing where in the outputs the vmapped dimension "
                             "should appear.")


def _flat_out_dims(func, out_dims, first_output):
    flat, spec = tree_flatten(first_output)
    if isinstance(first_output, _tl.Tensor) and isinstance(out_dims, tuple) and len(out_dims) == 1:
        dims = list(out_dims)
    else:
        dims = broadcast_to_and_flatten(out_dims, spec)
    if dims is None:
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with "
                         f"the structure of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]} but outputs "
                         f"has structure {spec}.")
    return dims, spec


def _stack(func, samples, out_dim):
    first = samples[0]
    if out_dim is None:
        return first  # not mapped: every sample gave the same value
    if not isinstance(first, _tl.Tensor):
        raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, got type {type(first)}. "
                         "Did you mean to set out_dims= to None for output?")
    ndim = first.dim() + 1
    if not -ndim <= out_dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {out_dim})")
    return _tl.stack(samples, dim=out_dim)


def _zeros_sample(arg, dim):
    shape = list(arg.shape)
    del shape[dim]
    return arg.new_zeros(shape)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``vmap(f)(*args)``: ``f`` applied to each slice of the inputs along ``in_dims`` (an int, None
    for an input not mapped, or a tree matching the arguments), results stacked along ``out_dims``."""
    _check_randomness(randomness)
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        _check_out_dims(func, out_dims)
        flat_args, spec, flat_dims, size = _flat_in_dims(func, in_dims, args)
        state = _tl.get_rng_state() if randomness in ("same", "error") else None
        outputs = []
        for b in range(size):
            if randomness == "same":
                _tl.set_rng_state(state)
            sample_args = [a if d is None else a.select(d, b) for a, d in zip(flat_args, flat_dims)]
            outputs.append(func(*tree_unflatten(sample_args, spec), **kwargs))
            if randomness == "error" and not _tl.equal(_tl.get_rng_state(), state):
                raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use "
                                   "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                                   "operation out of vmap")
        empty = size == 0
        if empty:
            # no sample to map: one call on zeros learns the outputs' shapes, then no rows are kept
            zeros = [a if d is None else _zeros_sample(a, d) for a, d in zip(flat_args, flat_dims)]
            outputs.append(func(*tree_unflatten(zeros, spec), **kwargs))
        dims, out_spec = _flat_out_dims(func, out_dims, outputs[0])
        flat_samples = [tree_flatten(o)[0] for o in outputs]
        stacked = [_stack(func, [s[i] for s in flat_samples], d) for i, d in enumerate(dims)]
        if empty:
            stacked = [t if d is None else t.narrow(d, 0, 0) for t, d in zip(stacked, dims)]
        return tree_unflatten(stacked, out_spec)
    return wrapped
