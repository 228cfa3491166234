"""Adamax (Adam with the infinity norm)."""
from __future__ import annotations

import torchlite as torch

from .optimizer import (Optimizer, _check_options, _closure_loss, _no_grad_step, _params_with_grad,
                        _scalar_step, _use_fused, _value)

__all__ = ["Adamax"]


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 foreach=None, *, maximize: bool = False, differentiable: bool = False, capturable: bool = False):
        _check_options(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay, differentiable=differentiable,
                       capturable=capturable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for key, default in (("foreach", None), ("maximize", False), ("differentiable", False),
                                 ("capturable", False)):
                group.setdefault(key, default)

    def _state_for(self, p) -> dict:
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _scalar_step()
            state["exp_avg"] = torch.zeros_like(p)
            state["exp_inf"] = torch.zeros_like(p)
        return state

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
        params = _params_with_grad(group, "Adamax")
        if not params:
            return
        states = [self._state_for(p) for p in params]
        beta1, beta2 = (_value(b) for b in group["betas"])
        torch._C._internal._fused_adamax_(
            params, [p.grad for p in params], [s["exp_avg"] for s in states], [s["exp_inf"] for s in states],
            [s["step"] for s in states], lr=_value(group["lr"]), beta1=beta1, beta2=beta2, eps=group["eps"],
            weight_decay=group["weight_decay"], maximize=group["maximize"])

    def _single_tensor_step(self, group):
        beta1, beta2 = (_value(b) for b in group["betas"])
        lr, eps, weight_decay = _value(group["lr"]), group["eps"], group["weight_decay"]
        for p in _params_with_grad(group, "Adamax"):
            state = self._state_for(p)
            grad = p.grad if not group["maximize"] else -p.grad
            step_t = state["step"]
            step_t += 1
            if weight_decay != 0:
                grad = grad.add(p, alpha=weight_decay)
            exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
            exp_avg.lerp_(grad, 1 - beta1)
            torch.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
            clr = lr / (1 - beta1 ** step_t.item())
            p.addcdiv_(exp_avg, exp_inf, value=-clr)


del annotations  # torch's module has no such name
