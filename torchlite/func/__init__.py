"""torchlite.func: PyTorch's torch.func on reverse-mode autograd (docs/autograd_functional.md).

grad, grad_and_value, vjp and jacrev differentiate by backward passes; jvp, jacfwd, linearize and
hessian use the double-backward trick (no forward-mode AD); vmap is a per-sample loop that stacks
the results. functional_call and stack_module_state run modules with given tensors.
"""
from torchlite.nn.utils.stateless import _functional_call as functional_call  # noqa: F401

from ._stack_module_state import stack_module_state  # noqa: F401
from ._transforms import (  # noqa: F401
    debug_unwrap, functionalize, grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp)
from ._vmap import vmap  # noqa: F401

__all__ = ["grad", "grad_and_value", "vmap", "replace_all_batch_norm_modules_", "functionalize", "hessian", "jacfwd",
           "jacrev", "jvp", "linearize", "vjp", "functional_call", "stack_module_state", "debug_unwrap"]


def replace_all_batch_norm_modules_(root):
    """Makes every batch norm under ``root`` stop tracking running statistics (so it can run under
    vmap): running_mean/running_var become None and track_running_stats False. Returns ``root``."""
    from torchlite.nn.modules.batchnorm import _BatchNorm
    for m in root.modules():
        if isinstance(m, _BatchNorm):
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root
