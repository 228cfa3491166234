"""NAdam (Adam with Nesterov momentum and PyTorch's momentum-decay schedule)."""
from __future__ import annotations

import torchlite as torch

from .optimizer import (Optimizer, _check_options, _closure_loss, _no_grad_step, _params_with_grad,
                        _scalar_step, _use_fused, _value)

__all__ = ["NAdam"]


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *, foreach=None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False):
        _check_options(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay, differentiable=differentiable,
                       capturable=capturable)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for key, default in (("maximize", False), ("foreach", None), ("capturable", False),
                                 ("differentiable", False), ("decoupled_weight_decay", False)):
                group.setdefault(key, default)

    def _state_for(self, p) -> dict:
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _scalar_step()
            state["mu_product"] = torch.tensor(1.0, dtype=torch.float32)
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
        params = _params_with_grad(group, "NAdam")
        if not params:
            return
        states = [self._state_for(p) for p in params]
        beta1, beta2 = (_value(b) for b in group["betas"])
        torch._C._internal._fused_nadam_(
            params, [p.grad for p in params], [s["exp_avg"] for s in states], [s["exp_avg_sq"] for s in states],
            [s["mu_product"] for s in states], [s["step"] for s in states], lr=_value(group["lr"]), beta1=beta1,
            beta2=beta2, eps=group["eps"], weight_decay=group["weight_decay"],
            momentum_decay=group["momentum_decay"], decoupled_weight_decay=group["decoupled_weight_decay"],
            maximize=group["maximize"])

    def _single_tensor_step(self, group):
        beta1, beta2 = (_value(b) for b in group["betas"])
        lr, eps, weight_decay = _value(group["lr"]), group["eps"], group["weight_decay"]
        momentum_decay = group["momentum_decay"]
        for p in _params_with_grad(group, "NAdam"):
            state = self._state_for(p)
            grad = p.grad if not group["maximize"] else -p.grad
            step_t, mu_product = state["step"], state["mu_product"]
            step_t += 1
            step = step_t.item()
            bias_correction2 = 1 - beta2 ** step
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    p.mul_(1 - lr * weight_decay)
                else:
                    grad = grad.add(p, alpha=weight_decay)
            mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
            mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
            mu_product *= mu  # a float32 tensor, as in PyTorch: the product is rounded to float32 each step
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            denom = exp_avg_sq.div(bias_correction2).sqrt()
            mu_product_value = mu_product.item()
            mu_product_next = mu_product_value * mu_next
            denom.add_(eps)
            p.addcdiv_(grad, denom, value=(-lr * (1.0 - mu) / (1.0 - mu_product_value)))
            p.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))


del annotations  # torch's module has no such name
