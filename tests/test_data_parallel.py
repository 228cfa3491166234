"""nn.DataParallel without accelerators, as PyTorch's behaves on such a machine: a pass-through wrapper whose
state-dict keys carry the `module.` prefix; nn.parallel.data_parallel raises as PyTorch's."""
import numpy as np
import pytest
import torch

import torchlite as tl


@pytest.mark.parametrize("lib", [tl, torch])
def test_data_parallel_wraps_and_calls_the_module(lib):
    lib.manual_seed(0)
    inner = lib.nn.Linear(4, 3)
    model = lib.nn.DataParallel(inner, device_ids=[0])
    assert model.module is inner and model.device_ids == []
    assert list(model.state_dict()) == ["module.weight", "module.bias"]
    x = lib.randn(5, 4)
    assert np.array_equal(model(x).detach().numpy(), inner(x).detach().numpy())
    model(x).sum().backward()
    assert inner.weight.grad is not None
    assert repr(model) == "DataParallel(\n  (module): Linear(in_features=4, out_features=3, bias=True)\n)"
    with pytest.raises(RuntimeError, match="device type could not be determined"):
        lib.nn.parallel.data_parallel(inner, x)


def test_data_parallel_state_dict_loads_into_torch():
    tl.manual_seed(0)
    ours = tl.nn.DataParallel(tl.nn.Linear(4, 3))
    theirs = torch.nn.DataParallel(torch.nn.Linear(4, 3))
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)
    np.testing.assert_allclose(ours(tl.tensor(x)).detach().numpy(), theirs(torch.tensor(x)).detach().numpy(),
                               rtol=1e-6, atol=1e-6)
