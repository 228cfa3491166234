"""The Optimizer base class: parameter groups, per-parameter state, state_dict round trips and step hooks,
with the structure and error messages of torch.optim.Optimizer (a state_dict from one loads into the other
after the tensors are converted)."""
from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain
from typing import Any, Callable

import torchlite as torch
from torchlite import Tensor as _Tensor

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]


class _RequiredParameter:
    """Marks a default that every parameter group must give (the lr of SGD before PyTorch 2.x)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

_global_step_pre_hooks: "OrderedDict[int, Callable]" = OrderedDict()
_global_step_post_hooks: "OrderedDict[int, Callable]" = OrderedDict()


class _RemovableHandle:
    """Removes a hook from the dict it was registered in (torch.utils.hooks.RemovableHandle's contract)."""
    _next_id = 0

    def __init__(self, hooks: dict):
        self.hooks = hooks
        self.id = _RemovableHandle._next_id
        _RemovableHandle._next_id += 1

    def remove(self):
        self.hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _register(hooks: dict, hook: Callable, prepend: bool = False) -> _RemovableHandle:
    handle = _RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_optimizer_step_pre_hook(hook: Callable) -> _RemovableHandle:
    """A hook run before every optimizer's step: hook(optimizer, args, kwargs) -> None or (args, kwargs)."""
    return _register(_global_step_pre_hooks, hook)


def register_optimizer_step_post_hook(hook: Callable) -> _RemovableHandle:
    """A hook run after every optimizer's step: hook(optimizer, args, kwargs) -> None."""
    return _register(_global_step_post_hooks, hook)


def _typename(obj) -> str:
    if isinstance(obj, _Tensor):
        return obj.type()
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("builtins", None) else f"{module}.{name}"


class Optimizer:
    """Base class of the optimizers. Subclasses pass their defaults and implement `step`."""

    def __init__(self, params, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: "OrderedDict[int, Callable]" = OrderedDict()
        self._optimizer_step_post_hooks: "OrderedDict[int, Callable]" = OrderedDict()
        self._optimizer_state_dict_pre_hooks: "OrderedDict[int, Callable]" = OrderedDict()
        self._optimizer_state_dict_post_hooks: "OrderedDict[int, Callable]" = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: "OrderedDict[int, Callable]" = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: "OrderedDict[int, Callable]" = OrderedDict()
        if isinstance(params, _Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {_typename(params)}")
        self.state: defaultdict[_Tensor, Any] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    # ---- pickling and printing -----------------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
                     "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += "\n" + f"Parameter Group {i}"
            for key in sorted(group.keys()):
                if key != "params":
                    text += "\n" + f"    {key}: {group[key]}"
        return text + "\n)"

    # ---- parameter groups ----------------------------------------------------------------------------------
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Adds a group of parameters with its own options (the rest taken from the defaults)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, _Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                            "of tensors in sets will change between runs. Please use a list instead.")
        else:
            params = list(params)
        # named_parameters() gives (name, tensor) pairs; the names are kept in "param_names".
        names = [p[0] for p in params if isinstance(p, tuple)]
        tensors = [p[1] if isinstance(p, tuple) else p for p in params]
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        for param in tensors:
            if not isinstance(param, _Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(param))
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if len(tensors) != len(set(tensors)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen: set[_Tensor] = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not seen.isdisjoint(tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clears the gradients: drops them (the default) or zeroes them in place."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    # ---- state_dict ----------------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """{'state': {index: per-parameter state}, 'param_groups': [group options with 'params' as indices]},
        the parameters numbered in group order, as PyTorch numbers them."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        mapping: dict[int, int] = {}
        next_index = 0

        def pack_group(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal next_index
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                if id(p) not in mapping:
                    mapping[id(p)] = next_index
                    next_index += 1
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(mapping[id(k)] if isinstance(k, _Tensor) else k): v for k, v in self.state.items()}
        state_dict = {"state": packed_state, "param_groups": param_groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    @staticmethod
    def _cast_state_value(param: _Tensor, value: _Tensor, key: Any) -> _Tensor:
        # Floating state follows the parameter's dtype, except the step counter, kept as saved (float32).
        # (.to returns the same tensor when nothing changes: the loaded state aliases the dict's, as in PyTorch.)
        if key != "step" and param.is_floating_point():
            return value.to(dtype=param.dtype)
        return value

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Loads a state_dict made by `state_dict` (or PyTorch's, with the tensors converted)."""
        state_dict = state_dict.copy()
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, key=None):
            if isinstance(value, _Tensor):
                return self._cast_state_value(param, value, key)
            if isinstance(value, dict):
                return {k: cast(param, v, k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v) for v in value)
            return value

        state: defaultdict[Any, Any] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = cast(id_map[k], v)
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        self.__setstate__({"state": state,
                           "param_groups": [update_group(g, ng) for g, ng in zip(groups, saved_groups)]})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    # ---- hooks -----------------------------------------------------------------------------------------------
    def register_step_pre_hook(self, hook: Callable) -> _RemovableHandle:
        return _register(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable) -> _RemovableHandle:
        return _register(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> _RemovableHandle:
        return _register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> _RemovableHandle:
        return _register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> _RemovableHandle:
        return _register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> _RemovableHandle:
        return _register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    def step(self, closure: Callable[[], float] | None = None):
        raise NotImplementedError

    def __init_subclass__(cls, **kwargs):
        # Every subclass's step runs the step hooks and without autograd recording, as PyTorch's do.
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:
            cls.step = _with_hooks(cls.__dict__["step"])


def _with_hooks(step):
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        for hook in chain(_global_step_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{hook} must return None or a tuple of (new_args, new_kwargs), "
                                       f"but got {result}.")
                args, kwargs = result
        out = step(self, *args, **kwargs)
        for hook in chain(self._optimizer_step_post_hooks.values(), _global_step_post_hooks.values()):
            hook(self, args, kwargs)
        return out
    wrapper._hooked = True
    return wrapper


def _closure_loss(closure):
    """Evaluates the closure with autograd on (step itself runs under no_grad)."""
    if closure is None:
        return None
    with torch.enable_grad():
        return closure()


def _no_grad_step(step):
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        with torch.no_grad():
            return step(self, *args, **kwargs)
    return wrapper


def _params_with_grad(group: dict[str, Any], op: str) -> list[_Tensor]:
    out = []
    for p in group["params"]:
        if p.grad is None:
            continue
        if p.grad.is_sparse if hasattr(p.grad, "is_sparse") else False:
            raise RuntimeError(f"{op} does not support sparse gradients")
        out.append(p)
    return out


def _check_nonneg(name: str, value, label: str | None = None) -> None:
    if not 0.0 <= value:
        raise ValueError(f"Invalid {label or name}: {value}")


def _scalar_step() -> _Tensor:
    return torch.tensor(0.0, dtype=torch.float32)


def _check_options(*, lr, eps=None, betas=None, weight_decay=None, differentiable=False, capturable=False) -> None:
    """The argument checks the optimizers share, with PyTorch's messages."""
    if isinstance(lr, _Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps is not None and not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if betas is not None:
        for i in (0, 1):
            if not 0.0 <= betas[i] < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
    if weight_decay is not None and not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
    if differentiable:
        raise NotImplementedError("torchlite.optim: differentiable=True (a step autograd can go through) is not "
                                  "supported yet")
    if capturable:
        raise RuntimeError("torchlite.optim: capturable=True needs CUDA graphs; torchlite runs on the CPU, "
                           "where PyTorch refuses it too")


def _value(x) -> float:
    """A Python number from a float or a 1-element tensor (lr and betas may be tensors)."""
    return x.item() if isinstance(x, _Tensor) else x


def _use_fused(group: dict[str, Any]) -> bool:
    """torchlite runs the fused C++ step (torchlite._fused_<name>_) unless the group asks for the
    single-tensor path (fused=False, or foreach=False without fused=True): the fused step is one pass per
    parameter and follows the same update rule."""
    if group.get("fused") is not None:
        return bool(group["fused"])
    return group.get("foreach") is not False


def _check_fused_foreach(fused, foreach) -> None:
    if fused and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


del annotations  # torch.optim.optimizer has no such name
