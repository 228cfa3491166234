"""RMSprop (optionally centered, with momentum)."""
from __future__ import annotations

import torchlite as torch

from .optimizer import (Optimizer, _check_options, _closure_loss, _no_grad_step, _params_with_grad,
                        _scalar_step, _use_fused, _value)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha: float = 0.99, eps: float = 1e-8, weight_decay: float = 0,
                 momentum: float = 0, centered: bool = False, capturable: bool = False, foreach=None,
                 maximize: bool = False, differentiable: bool = False):
        _check_options(lr=lr, eps=eps, differentiable=differentiable, capturable=capturable)
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach, maximize=maximize,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for key, default in (("momentum", 0), ("centered", False), ("foreach", None), ("maximize", False),
                                 ("differentiable", False), ("capturable", False)):
                group.setdefault(key, default)

    def _state_for(self, p, group) -> dict:
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _scalar_step()
            state["square_avg"] = torch.zeros_like(p)
            if group["momentum"] > 0:
                state["momentum_buffer"] = torch.zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = torch.zeros_like(p)
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
        params = _params_with_grad(group, "RMSprop")
        if not params:
            return
        states = [self._state_for(p, group) for p in params]
        momentum, centered = group["momentum"], group["centered"]
        torch._C._internal._fused_rmsprop_(
            params, [p.grad for p in params], [s["square_avg"] for s in states],
            [s["grad_avg"] for s in states] if centered else [],
            [s["momentum_buffer"] for s in states] if momentum > 0 else [], [s["step"] for s in states],
            lr=_value(group["lr"]), alpha=group["alpha"], eps=group["eps"], weight_decay=group["weight_decay"],
            momentum=momentum, centered=centered, maximize=group["maximize"])

    def _single_tensor_step(self, group):
        lr, alpha, eps = _value(group["lr"]), group["alpha"], group["eps"]
        momentum, weight_decay, centered = group["momentum"], group["weight_decay"], group["centered"]
        for p in _params_with_grad(group, "RMSprop"):
            state = self._state_for(p, group)
            grad = p.grad if not group["maximize"] else -p.grad
            state["step"] += 1
            if weight_decay != 0:
                grad = grad.add(p, alpha=weight_decay)
            square_avg = state["square_avg"]
            square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
            if centered:
                grad_avg = state["grad_avg"]
                grad_avg.lerp_(grad, 1 - alpha)
                avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
            else:
                avg = square_avg.sqrt()
            avg = avg.add_(eps)
            if momentum > 0:
                buf = state["momentum_buffer"]
                buf.mul_(momentum).addcdiv_(grad, avg)
                p.add_(buf, alpha=-lr)
            else:
                p.addcdiv_(grad, avg, value=-lr)


del annotations  # torch's module has no such name
