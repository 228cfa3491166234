"""RAdam (Adam with the variance rectification term; plain momentum SGD while rho_t <= 5)."""
from __future__ import annotations

import torchlite as torch

from .optimizer import (Optimizer, _check_options, _closure_loss, _no_grad_step, _params_with_grad,
                        _scalar_step, _use_fused, _value)

__all__ = ["RAdam"]


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 decoupled_weight_decay: bool = False, *, foreach=None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False):
        _check_options(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay, differentiable=differentiable,
                       capturable=capturable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for key, default in (("foreach", None), ("maximize", False), ("differentiable", False),
                                 ("capturable", False), ("decoupled_weight_decay", False)):
                group.setdefault(key, default)

    def _state_for(self, p) -> dict:
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _scalar_step()
            state["exp_avg"] = torch.zeros_like(p)
            state["exp_avg_sq"] = torch.zeros_like(p)
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
        params = _params_with_grad(group, "RAdam")
        if not params:
            return
        states = [self._state_for(p) for p in params]
        beta1, beta2 = (_value(b) for b in group["betas"])
        torch._C._internal._fused_radam_(
            params, [p.grad for p in params], [s["exp_avg"] for s in states], [s["exp_avg_sq"] for s in states],
            [s["step"] for s in states], lr=_value(group["lr"]), beta1=beta1, beta2=beta2, eps=group["eps"],
            weight_decay=group["weight_decay"], decoupled_weight_decay=group["decoupled_weight_decay"],
            maximize=group["maximize"])

    def _single_tensor_step(self, group):
        beta1, beta2 = (_value(b) for b in group["betas"])
        lr, eps, weight_decay = _value(group["lr"]), group["eps"], group["weight_decay"]
        for p in _params_with_grad(group, "RAdam"):
            state = self._state_for(p)
            grad = p.grad if not group["maximize"] else -p.grad
            step_t = state["step"]
            step_t += 1
            step = step_t.item()
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    p.mul_(1 - lr * weight_decay)
                else:
                    grad = grad.add(p, alpha=weight_decay)
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            bias_correction1 = 1 - beta1 ** step
            bias_correction2 = 1 - beta2 ** step
            bias_corrected_exp_avg = exp_avg / bias_correction1
            rho_inf = 2 / (1 - beta2) - 1
            rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
            if rho_t > 5.0:
                rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                adaptive_lr = (bias_correction2 ** 0.5) / exp_avg_sq.sqrt().add_(eps)
                p.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
            else:
                p.add_(bias_corrected_exp_avg * lr, alpha=-1.0)


del annotations  # torch's module has no such name
