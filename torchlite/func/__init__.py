"""torchlite.func: PyTorch's torch.func. For now ``functional_call`` (grad, vmap, jacrev come
with issue 12's later parts)."""
from torchlite.nn.utils.stateless import _functional_call as functional_call  # noqa: F401

__all__ = ["functional_call"]
