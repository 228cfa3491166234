"""Adagrad. Its state is created for every parameter at construction, as in PyTorch."""
from __future__ import annotations

import torchlite as torch

from .optimizer import (Optimizer, _check_fused_foreach, _check_options, _closure_loss, _no_grad_step,
                        _params_with_grad, _scalar_step, _use_fused, _value)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach=None, *,
                 maximize: bool = False, differentiable: bool = False, fused=None):
        _check_options(lr=lr, differentiable=differentiable)
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        _check_fused_foreach(fused, foreach)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = _scalar_step()
                state["sum"] = torch.full_like(p, group["initial_accumulator_value"])

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for key, default in (("foreach", None), ("maximize", False), ("differentiable", False),
                                 ("fused", None)):
                group.setdefault(key, default)

    @_no_grad_step
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            if _use_fused(group):
                self._fused_step(group)
            else:
                self._single_tensor_step(group)
        return loss

    def _fused_step(self, group):
        params = _params_with_grad(group, "Adagrad")
        if not params:
            return
        states = [self.state[p] for p in params]
        for state in states:
            state["step"] += 1
        torch._fused_adagrad_(params, [p.grad for p in params], [s["sum"] for s in states],
                              [s["step"] for s in states], lr=_value(group["lr"]), lr_decay=group["lr_decay"],
                              weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"])

    def _single_tensor_step(self, group):
        lr, lr_decay = _value(group["lr"]), group["lr_decay"]
        weight_decay, eps = group["weight_decay"], group["eps"]
        for p in _params_with_grad(group, "Adagrad"):
            state = self.state[p]
            step_t = state["step"]
            step_t += 1
            step = step_t.item()
            grad = p.grad if not group["maximize"] else -p.grad
            if weight_decay != 0:
                grad = grad.add(p, alpha=weight_decay)
            clr = lr / (1 + (step - 1) * lr_decay)
            state_sum = state["sum"]
            state_sum.addcmul_(grad, grad, value=1)
            std = state_sum.sqrt().add_(eps)
            p.addcdiv_(grad, std, value=-clr)


del annotations  # torch's module has no such name
