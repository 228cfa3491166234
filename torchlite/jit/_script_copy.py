"""The module tree a scripted module runs on: a copy of the original's, as torch.jit.script's
RecursiveScriptModule is a new module with its own slots.

Every module of the tree is copied, each with its own parameter, buffer and submodule tables and its own
attributes, holding the same objects as the original at scripting time (the same Parameter and buffer
tensors, so in-place changes and an optimizer over either module's parameters reach both). What is assigned
afterwards to one module's slot, by compiled code (`self.w = x * 2`, `self.count += 1`) or from Python
(`scripted.count = 3`, `m.w = Parameter(...)`, `m.eval()`), is not seen by the other: torch 2.13's behaviour,
checked side by side in tests/test_jit_script_parameter_assignment.py.

A submodule reachable under several names (`self.a = sub; self.b = sub`, or in a ModuleList and as an
attribute) is copied once per name, as torch 2.13 makes one script module per name: the copies hold the same
parameter and buffer tensors, but an attribute assigned through one name (`self.a.count += 1`, a buffer
replaced) is not seen through the other, in calls, from Python and after save/load
(tests/test_jit_shared_state.py)."""
from __future__ import annotations

from collections import OrderedDict as _OrderedDict


def script_copy(module):
    active = set()

    def copy(m):
        if id(m) in active:
            raise RuntimeError(f"script: module '{type(m).__name__}' contains itself")
        active.add(id(m))
        c = object.__new__(type(m))
        state = {}
        for name, value in m.__dict__.items():
            # The module's tables (parameters, buffers, hooks...) are the copy's own; their entries are shared.
            state[name] = type(value)(value) if type(value) in (dict, _OrderedDict) else value
        state["_modules"] = type(m._modules)((k, None if sub is None else copy(sub)) for k, sub in m._modules.items())
        c.__dict__.update(state)
        active.discard(id(m))
        return c
    return copy(module)
