"""stack_module_state: the parameters and buffers of several same-shaped modules stacked along a
new dimension 0 (for vmap over model ensembles with functional_call)."""
import torchlite as _tl

__all__ = ["stack_module_state"]


def _stacked_leaf(tensors, name):
    requires = [t.requires_grad for t in tensors]
    if any(requires) and not all(requires):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = _tl.stack(tensors)
    return result.detach().requires_grad_() if all(requires) else result


def stack_module_state(models):
    """(params, buffers): dicts from each name to the stacked tensors of every model (stacked
    parameters are new leaves that require grad where the originals do)."""
    models = list(models)
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: _stacked_leaf(tuple(p[k] for p in all_params), k) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: _stacked_leaf(tuple(b[k] for b in all_buffers), k) for k in all_buffers[0]}
    return params, buffers
