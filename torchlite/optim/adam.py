"""Adam, and AdamW (Adam with decoupled weight decay, as PyTorch 2.13 defines it)."""
from __future__ import annotations

import torchlite as torch

from .optimizer import (Optimizer, _check_fused_foreach, _check_options, _closure_loss, _no_grad_step,
                        _params_with_grad, _scalar_step, _use_fused, _value)

__all__ = ["Adam"]


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 amsgrad: bool = False, *, foreach=None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused=None, decoupled_weight_decay: bool = False):
        _check_options(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay, differentiable=differentiable,
                       capturable=capturable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable, differentiable=differentiable,
                        fused=fused, decoupled_weight_decay=decoupled_weight_decay)
        _check_fused_foreach(fused, foreach)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for key, default in (("amsgrad", False), ("maximize", False), ("foreach", None), ("capturable", False),
                                 ("differentiable", False), ("fused", None), ("decoupled_weight_decay", False)):
                group.setdefault(key, default)

    def _state_for(self, p, amsgrad: bool) -> dict:
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _scalar_step()
            state["exp_avg"] = torch.zeros_like(p)
            state["exp_avg_sq"] = torch.zeros_like(p)
            if amsgrad:
                state["max_exp_avg_sq"] = torch.zeros_like(p)
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
        params = _params_with_grad(group, "Adam")
        if not params:
            return
        amsgrad = group["amsgrad"]
        states = [self._state_for(p, amsgrad) for p in params]
        for state in states:
            state["step"] += 1
        beta1, beta2 = (_value(b) for b in group["betas"])
        fused = torch._fused_adamw_ if group["decoupled_weight_decay"] else torch._fused_adam_
        fused(params, [p.grad for p in params], [s["exp_avg"] for s in states], [s["exp_avg_sq"] for s in states],
              [s["max_exp_avg_sq"] for s in states] if amsgrad else [], [s["step"] for s in states],
              lr=_value(group["lr"]), beta1=beta1, beta2=beta2, weight_decay=group["weight_decay"],
              eps=group["eps"], amsgrad=amsgrad, maximize=group["maximize"])

    def _single_tensor_step(self, group):
        beta1, beta2 = (_value(b) for b in group["betas"])
        lr, eps, weight_decay = _value(group["lr"]), group["eps"], group["weight_decay"]
        amsgrad = group["amsgrad"]
        for p in _params_with_grad(group, "Adam"):
            state = self._state_for(p, amsgrad)
            grad = p.grad if not group["maximize"] else -p.grad
            step_t = state["step"]
            step_t += 1
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    p.mul_(1 - lr * weight_decay)
                else:
                    grad = grad.add(p, alpha=weight_decay)
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            step = step_t.item()
            bias_correction1 = 1 - beta1 ** step
            bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
            if amsgrad:
                max_sq = state["max_exp_avg_sq"]
                torch.maximum(max_sq, exp_avg_sq, out=max_sq)
                denom = (max_sq.sqrt() / bias_correction2_sqrt).add_(eps)
            else:
                denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
            p.addcdiv_(exp_avg, denom, value=-(lr / bias_correction1))


del annotations  # torch's module has no such name
