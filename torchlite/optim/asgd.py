"""ASGD (averaged stochastic gradient descent): SGD with a decaying step eta and, from step t0 on, a
running average `ax` of the iterates (the averaged parameters live in the state)."""
from __future__ import annotations

import torchlite as torch

from .optimizer import (Optimizer, _check_options, _closure_loss, _no_grad_step, _params_with_grad, _scalar_step,
                        _use_fused, _value)

__all__ = ["ASGD"]


class ASGD(Optimizer):
    def __init__(self, params, lr=1e-2, lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6,
                 weight_decay: float = 0, foreach=None, maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False):
        _check_options(lr=lr, weight_decay=weight_decay, differentiable=differentiable, capturable=capturable)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for key, default in (("foreach", None), ("maximize", False), ("differentiable", False),
                                 ("capturable", False)):
                group.setdefault(key, default)

    def _state_for(self, p, group) -> dict:
        state = self.state[p]
        if len(state) == 0:
            # eta and mu are float32 0-d tensors, as PyTorch keeps them (their values round to float32)
            state["step"] = _scalar_step()
            state["eta"] = torch.tensor(_value(group["lr"]), dtype=torch.float32)
            state["mu"] = torch.tensor(1.0, dtype=torch.float32)
            state["ax"] = torch.zeros_like(p)
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
        params = _params_with_grad(group, "ASGD")
        if not params:
            return
        states = [self._state_for(p, group) for p in params]
        torch._C._internal._fused_asgd_(
            params, [p.grad for p in params], [s["ax"] for s in states], [s["mu"] for s in states],
            [s["eta"] for s in states], [s["step"] for s in states], lr=_value(group["lr"]), lambd=group["lambd"],
            alpha=group["alpha"], t0=group["t0"], weight_decay=group["weight_decay"], maximize=group["maximize"])

    def _single_tensor_step(self, group):
        lr, lambd, alpha, t0 = _value(group["lr"]), group["lambd"], group["alpha"], group["t0"]
        weight_decay = group["weight_decay"]
        for p in _params_with_grad(group, "ASGD"):
            state = self._state_for(p, group)
            grad = p.grad if not group["maximize"] else -p.grad
            mu, ax, eta, step_t = state["mu"], state["ax"], state["eta"], state["step"]
            step_t += 1
            if weight_decay != 0:
                grad = grad.add(p, alpha=weight_decay)
            eta_value = eta.item()
            p.mul_(1 - lambd * eta_value)
            p.add_(grad, alpha=-eta_value)
            if mu.item() != 1:
                ax.add_(p.sub(ax).mul_(mu))
            else:
                ax.copy_(p)
            step = step_t.item()
            eta.fill_(lr / ((1 + lambd * lr * step) ** alpha))
            mu.fill_(1 / max(1, step - t0))

del annotations  # torch's module has no such name
