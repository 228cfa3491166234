"""Stochastic gradient descent (optionally with momentum and Nesterov momentum)."""
from __future__ import annotations

import torchlite as torch

from .optimizer import (Optimizer, _check_fused_foreach, _check_options, _closure_loss, _no_grad_step,
                        _params_with_grad, _use_fused, _value)

__all__ = ["SGD"]


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum: float = 0, dampening: float = 0, weight_decay=0,
                 nesterov: bool = False, *, maximize: bool = False, foreach=None, differentiable: bool = False,
                 fused=None):
        _check_options(lr=lr, differentiable=differentiable)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable,
                        fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        _check_fused_foreach(fused, foreach)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

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
        params = _params_with_grad(group, "SGD")
        momentum = group["momentum"]
        options = dict(weight_decay=group["weight_decay"], momentum=momentum, lr=_value(group["lr"]),
                       dampening=group["dampening"], nesterov=group["nesterov"], maximize=group["maximize"])
        if momentum == 0:
            torch._fused_sgd_(params, [p.grad for p in params], [], is_first_step=False, **options)
            return
        # A parameter's first step sets its buffer to the gradient: those take one call, the others another.
        first = [p for p in params if self.state[p].get("momentum_buffer") is None]
        later = [p for p in params if self.state[p].get("momentum_buffer") is not None]
        for p in first:
            self.state[p]["momentum_buffer"] = torch.empty_like(p)
        for batch, is_first in ((first, True), (later, False)):
            if batch:
                torch._fused_sgd_(batch, [p.grad for p in batch], [self.state[p]["momentum_buffer"] for p in batch],
                                  is_first_step=is_first, **options)

    def _single_tensor_step(self, group):
        momentum, dampening = group["momentum"], group["dampening"]
        weight_decay, lr = group["weight_decay"], _value(group["lr"])
        for p in _params_with_grad(group, "SGD"):
            grad = p.grad if not group["maximize"] else -p.grad
            if weight_decay != 0:
                grad = grad.add(p, alpha=weight_decay)
            if momentum != 0:
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = grad.detach().clone()
                    state["momentum_buffer"] = buf
                else:
                    buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
            p.add_(grad, alpha=-lr)


del annotations  # torch's module has no such name
