"""The global random generator's Python API, as torch.random: seeding, the state as bytes, and
fork_rng. Every function acts on `torchlite.default_generator` (docs/random.md)."""
from __future__ import annotations

import contextlib
from collections.abc import Generator as _PyGenerator

from torchlite._C import Generator, default_generator

del annotations  # the __future__ import's name (the feature stays on): no attribute of torch.random

__all__ = ["fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state"]


def manual_seed(seed) -> Generator:
    """Seeds the default generator (any int; negative seeds wrap modulo 2**64) and returns it."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seeds the default generator from a non-deterministic source and returns that seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the default generator was last seeded with."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state: a uint8 tensor in PyTorch's layout (5056 bytes)."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """Restores a state from get_rng_state() (or from PyTorch's torch.get_rng_state())."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled: bool = True, _caller: str = "fork_rng",
             _devices_kw: str = "devices", device_type: str = "cpu") -> _PyGenerator[None, None, None]:
    """Restores the default generator's state on exit, so draws inside do not move the stream outside."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
