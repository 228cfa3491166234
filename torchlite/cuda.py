"""torchlite.cuda: torchlite runs on the CPU only, so this answers the questions scripts ask before they
choose a device (`"cuda" if torch.cuda.is_available() else "cpu"`) and refuses CUDA work with a clear error."""
from __future__ import annotations

__all__ = ["is_available", "device_count", "current_device", "synchronize", "manual_seed", "manual_seed_all",
           "empty_cache", "is_initialized", "get_device_name", "set_device"]


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def _no_cuda(what: str):
    raise RuntimeError(f"torchlite.cuda.{what}: torchlite was built without CUDA (it runs on the CPU only)")


def current_device() -> int:
    _no_cuda("current_device")


def get_device_name(device=None) -> str:
    _no_cuda("get_device_name")


def set_device(device) -> None:
    _no_cuda("set_device")


def synchronize(device=None) -> None:
    """Nothing to wait for (no CUDA work exists); PyTorch raises without CUDA, torchlite allows it so timing
    code written for GPUs runs."""


def manual_seed(seed: int) -> None:
    """Seeds nothing (no CUDA generators); accepted, as PyTorch does without CUDA."""


def manual_seed_all(seed: int) -> None:
    """Seeds nothing (no CUDA generators); accepted, as PyTorch does without CUDA."""


def empty_cache() -> None:
    """No CUDA caching allocator: nothing to free."""


del annotations  # torch.cuda has no such name
