"""L-BFGS (limited-memory BFGS, after minFunc) with an optional strong-Wolfe line search, as torch.optim.LBFGS.

The parameters are seen as one flat vector (their gradients concatenated); the two-loop recursion over
the last `history_size` curvature pairs turns the gradient into a search direction. The scalar bookkeeping
mixes Python floats (the losses) and 0-d tensors (dot products, in the parameters' dtype) exactly where
PyTorch's does, so a run rounds as PyTorch's and the trajectories agree.
"""
from __future__ import annotations

import torchlite as torch

from .optimizer import Optimizer, _check_options, _value

__all__ = ["LBFGS"]


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2, clamped to `bounds`
    (the interval between the points by default); the midpoint when the cubic has no minimum."""
    lo, hi = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1 ** 2 - g1 * g2
    if disc < 0:
        return (lo + hi) / 2.0
    d2 = disc.sqrt()
    if x1 <= x2:
        x = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        x = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(x, lo), hi)


class _Point:
    """One trial of the line search: step length, loss, flat gradient and directional derivative."""
    __slots__ = ("t", "f", "g", "gtd")

    def __init__(self, t, f, g, gtd):
        self.t, self.f, self.g, self.gtd = t, f, g, gtd


def _strong_wolfe(evaluate, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """Finds a step length satisfying the strong Wolfe conditions along d (Nocedal & Wright, algorithms 3.5
    and 3.6: bracketing, then zoom by safeguarded cubic interpolation). Returns (loss, flat grad, t, evals)."""
    d_norm = d.abs().max()
    start = _Point(0, f, g.clone(memory_format=torch.contiguous_format), gtd)
    f_new, g_new = evaluate(t, d)
    evals = 1
    trial = _Point(t, f_new, g_new, g_new.dot(d))
    prev = start
    bracket = None  # [low-or-high, other], as _Points
    found = False
    ls_iter = 0
    # Phase 1: grow the step until the interval [prev, trial] brackets an acceptable point.
    while ls_iter < max_ls:
        if trial.f > (f + c1 * trial.t * gtd) or (ls_iter > 1 and trial.f >= prev.f):
            bracket = [prev, _Point(trial.t, trial.f, trial.g.clone(memory_format=torch.contiguous_format), trial.gtd)]
            break
        if abs(trial.gtd) <= -c2 * gtd:
            bracket, found = [trial], True
            break
        if trial.gtd >= 0:
            bracket = [prev, _Point(trial.t, trial.f, trial.g.clone(memory_format=torch.contiguous_format), trial.gtd)]
            break
        # extrapolate: a cubic step inside [t + 0.01 (t - t_prev), 10 t]
        t_next = _cubic_interpolate(prev.t, prev.f, prev.gtd, trial.t, trial.f, trial.gtd,
                                bounds=(trial.t + 0.01 * (trial.t - prev.t), trial.t * 10))
        prev = _Point(trial.t, trial.f, trial.g.clone(memory_format=torch.contiguous_format), trial.gtd)
        f_new, g_new = evaluate(t_next, d)
        evals += 1
        trial = _Point(t_next, f_new, g_new, g_new.dot(d))
        ls_iter += 1
    if ls_iter == max_ls:
        # out of evaluations: the bracket [0, t] (the search ends below, without zooming)
        bracket = [_Point(0, f, g, None), _Point(trial.t, trial.f, trial.g, None)]
    # Phase 2: zoom into the bracket.
    stalled = False
    low, high = (0, 1) if bracket[0].f <= bracket[-1].f else (1, 0)
    while not found and ls_iter < max_ls:
        a, b = bracket[0], bracket[1]
        if abs(b.t - a.t) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(a.t, a.f, a.gtd, b.t, b.f, b.gtd)
        # keep the trial away from the ends of the bracket (move it in by 10% when progress stalls)
        top, bottom = max(a.t, b.t), min(a.t, b.t)
        margin = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < margin:
            if stalled or t >= top or t <= bottom:
                t = top - margin if abs(t - top) < abs(t - bottom) else bottom + margin
                stalled = False
            else:
                stalled = True
        else:
            stalled = False
        f_new, g_new = evaluate(t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        point = _Point(t, f_new, g_new.clone(memory_format=torch.contiguous_format), gtd_new)
        if f_new > (f + c1 * t * gtd) or f_new >= bracket[low].f:
            bracket[high] = point
            low, high = (0, 1) if bracket[0].f <= bracket[1].f else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                found = True
            elif gtd_new * (bracket[high].t - bracket[low].t) >= 0:
                bracket[high] = bracket[low]
            bracket[low] = point
    best = bracket[low]
    return best.f, best.g, best.t, evals


class LBFGS(Optimizer):
    def __init__(self, params, lr=1, max_iter: int = 20, max_eval: int | None = None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100, line_search_fn: str | None = None):
        _check_options(lr=lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                        tolerance_change=tolerance_change, history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    # ---- the parameters as one flat vector ----------------------------------------------------------------
    def _numel(self) -> int:
        if self._numel_cache is None:
            self._numel_cache = sum(p.numel() for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self):
        return torch.cat([torch.zeros(p.numel(), dtype=p.dtype) if p.grad is None else p.grad.reshape(-1)
                          for p in self._params], 0)

    def _add_grad(self, step_size, update) -> None:
        offset = 0
        for p in self._params:
            n = p.numel()
            p.add_(update[offset:offset + n].view_as(p), alpha=_value(step_size))
            offset += n

    def _clone_param(self):
        return [p.clone(memory_format=torch.contiguous_format) for p in self._params]

    def _set_param(self, values) -> None:
        for p, v in zip(self._params, values):
            p.copy_(v)

    def _directional_evaluate(self, closure, x, t, d):
        """The loss and flat gradient at x + t d (the parameters are put back to x afterwards)."""
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    @staticmethod
    def _direction(state, flat_grad, history_size, old_dirs, old_stps, ro, H_diag):
        """-H g by the two-loop recursion over the stored pairs (s, y), H0 = H_diag I."""
        if "al" not in state:
            state["al"] = [None] * history_size
        al = state["al"]
        q = flat_grad.neg()
        for i in range(len(old_dirs) - 1, -1, -1):
            al[i] = old_stps[i].dot(q) * ro[i]
            q.add_(old_dirs[i], alpha=-_value(al[i]))
        r = torch.mul(q, H_diag)
        for i in range(len(old_dirs)):
            be_i = old_dirs[i].dot(r) * ro[i]
            r.add_(old_stps[i], alpha=_value(al[i] - be_i))
        return r

    def step(self, closure):
        with torch.no_grad():
            return self._step(closure)

    def _step(self, closure):
        def evaluate():
            with torch.enable_grad():
                return closure()

        group = self.param_groups[0]
        lr = _value(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        # The state lives with the first parameter, as PyTorch keeps it.
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = evaluate()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:  # already optimal
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro, H_diag = state.get("old_dirs"), state.get("old_stps"), state.get("ro"), state.get("H_diag")
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        opt_cond = False
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro, H_diag = [], [], [], 1
            else:
                # the curvature pair of the last step, kept when it is positive (the update stays definite)
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:  # forget the oldest pair
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                d = self._direction(state, flat_grad, history_size, old_dirs, old_stps, ro, H_diag)
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone(memory_format=torch.contiguous_format)
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss
            # the first step is scaled down by the gradient's size (the Hessian guess is the identity)
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:  # not a descent direction
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()
                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    lambda t_, d_: self._directional_evaluate(evaluate, x_init, t_, d_), t, d, loss, flat_grad,
                    gtd, max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    # a fixed step: re-evaluate (the last iteration's loss is not needed)
                    loss = float(evaluate())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max() <= tolerance_change:  # the step no longer moves the parameters
                break
            if abs(loss - prev_loss) < tolerance_change:  # nor the loss
                break

        # (in this order: the state_dict's key order is PyTorch's)
        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=H_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss


del annotations  # torch's module has no such name
