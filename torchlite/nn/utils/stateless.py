"""functional_call: run a module with some parameters/buffers replaced for one call."""
from __future__ import annotations

import contextlib
import warnings as _warnings

__all__ = ["functional_call"]


def _owner(module, name):
    prefix, _, leaf = name.rpartition(".")
    return module.get_submodule(prefix), leaf


@contextlib.contextmanager
def _swapped(module, tensors, strict):
    """Temporarily puts ``tensors`` (dotted name -> tensor) in place of the module's own entries,
    bypassing registration (any tensor may stand in for a parameter), and restores them after."""
    if strict:
        expected = {n for n, _ in module.named_parameters(remove_duplicate=False)}
        expected |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
        missing = sorted(expected - set(tensors))
        unexpected = sorted(set(tensors) - expected)
        if missing or unexpected:
            msgs = []
            if unexpected:
                msgs.append("Unexpected key(s): {}.".format(", ".join(map(repr, unexpected))))
            if missing:
                msgs.append("Missing key(s): {}.".format(", ".join(map(repr, missing))))
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
                module._get_name(), "\n\t".join(msgs)))
    saved = []
    try:
        for name, value in tensors.items():
            owner, leaf = _owner(module, name)
            for registry in (owner._parameters, owner._buffers):
                if leaf in registry:
                    saved.append((registry, leaf, registry[leaf]))
                    registry[leaf] = value
                    break
            else:
                saved.append((owner.__dict__, leaf, owner.__dict__.get(leaf, _ABSENT)))
                owner.__dict__[leaf] = value
        yield
    finally:
        for registry, leaf, old in reversed(saved):
            if old is _ABSENT:
                registry.pop(leaf, None)
            else:
                registry[leaf] = old


_ABSENT = object()


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True,
                    strict=False):
    """Deprecated (as in PyTorch 2.x): torchlite.func.functional_call."""
    _warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and "
                  "will be removed in a future version of PyTorch. Please use "
                  "`torch.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs,
                            tie_weights=tie_weights, strict=strict)


def _functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                     tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with the parameters and buffers named in
    ``parameter_and_buffer_dicts`` (a dict, or a sequence of dicts with distinct keys) replaced by
    the given tensors for this call only."""
    if isinstance(parameter_and_buffer_dicts, dict):
        tensors = dict(parameter_and_buffer_dicts)
    else:
        tensors = {}
        for d in parameter_and_buffer_dicts:
            for k, v in d.items():
                if k in tensors:
                    raise ValueError(f"{k} appeared in multiple dictionaries; behavior of "
                                     "functional call is ambiguous")
                tensors[k] = v
    if tie_weights:
        # a replaced parameter also replaces every other name of the same tensor
        by_id = {}
        for name, t in module.named_parameters(remove_duplicate=False):
            by_id.setdefault(id(t), []).append(name)
        for name, t in module.named_buffers(remove_duplicate=False):
            by_id.setdefault(id(t), []).append(name)
        for names in by_id.values():
            given = [n for n in names if n in tensors]
            if len(given) > 1 and len({id(tensors[n]) for n in given}) != 1:
                raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, "
                                 "which are tied. Consider using tie_weights=False")
            if given:
                for n in names:
                    tensors.setdefault(n, tensors[given[0]])
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _swapped(module, tensors, strict):
        return module(*args, **(kwargs or {}))


del annotations  # torch's module has no such name
