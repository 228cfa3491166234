"""Adadelta."""
from __future__ import annotations

import torchlite as torch

from .optimizer import (Optimizer, _check_options, _closure_loss, _no_grad_step, _params_with_grad,
                        _scalar_step, _use_fused, _value)

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0,
                 foreach=None, *, capturable: bool = False, maximize: bool = False, differentiable: bool = False):
        _check_options(lr=lr, differentiable=differentiable, capturable=capturable)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
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
            state["square_avg"] = torch.zeros_like(p)
            state["acc_delta"] = torch.zeros_like(p)
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
        params = _params_with_grad(group, "Adadelta")
        if not params:
            return
        states = [self._state_for(p) for p in params]
        torch._C._internal._fused_adadelta_(
            params, [p.grad for p in params], [s["square_avg"] for s in states], [s["acc_delta"] for s in states],
            [s["step"] for s in states], lr=_value(group["lr"]), rho=group["rho"], eps=group["eps"],
            weight_decay=group["weight_decay"], maximize=group["maximize"])

    def _single_tensor_step(self, group):
        lr, rho, eps, weight_decay = _value(group["lr"]), group["rho"], group["eps"], group["weight_decay"]
        for p in _params_with_grad(group, "Adadelta"):
            state = self._state_for(p)
            state["step"] += 1
            grad = p.grad if not group["maximize"] else -p.grad
            if weight_decay != 0:
                grad = grad.add(p, alpha=weight_decay)
            square_avg, acc_delta = state["square_avg"], state["acc_delta"]
            square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
            std = square_avg.add(eps).sqrt_()
            delta = acc_delta.add(eps).sqrt_()
            delta.div_(std).mul_(grad)
            acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
            p.add_(delta, alpha=-lr)


del annotations  # torch's module has no such name
