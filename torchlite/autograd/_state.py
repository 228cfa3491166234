"""The autograd-state queries torchlite re-exports at its top level (torch has them in torch._C):
torch.autograd and its submodules do not hold them, so they live here, out of those namespaces."""
from torchlite._C import _autograd as _C

__all__ = ["is_grad_enabled", "is_inference_mode_enabled", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]


def is_grad_enabled() -> bool:
    """Whether operations record autograd history in this thread."""
    return _C.is_grad_enabled()


def is_inference_mode_enabled() -> bool:
    """Whether inference mode is on in this thread."""
    return _C._is_inference_mode_enabled()


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on."""
    return _C._is_anomaly_enabled()


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection checks backward results for NaN."""
    return _C._is_anomaly_check_nan_enabled()
