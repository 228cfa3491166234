"""torchlite.cuda / torchlite.backends / interop threads: what device-selection code reads."""
import pytest
import torch

import torchlite as tl


def test_cuda_is_absent():
    assert tl.cuda.is_available() is False and tl.cuda.device_count() == 0
    device = "cuda" if tl.cuda.is_available() else "cpu"
    assert tl.ones(2, device=device).device.type == "cpu"
    tl.cuda.manual_seed_all(0)
    tl.cuda.synchronize()
    with pytest.raises(RuntimeError, match="built without CUDA"):
        tl.cuda.current_device()


def test_backend_flags_are_assignable():
    tl.backends.cudnn.benchmark = True
    tl.backends.cudnn.deterministic = True
    tl.backends.cuda.matmul.allow_tf32 = True
    assert tl.backends.cudnn.benchmark and not tl.backends.cudnn.is_available()


def test_interop_threads():
    tl.set_num_interop_threads(2)
    assert tl.get_num_interop_threads() == 2
    with pytest.raises(RuntimeError, match="Expected a positive number of threads"):
        tl.set_num_interop_threads(0)
