"""torch.autograd.Variable, the legacy wrapper (a detached alias with the requires_grad asked for, every tensor an
instance of it), and nn.utils.skip_init: both as PyTorch."""
import pytest
import torch

import torchlite as tl


@pytest.mark.parametrize("lib", [tl, torch])
def test_variable_is_a_detached_alias(lib):
    Variable = lib.autograd.Variable
    x = lib.ones(3, requires_grad=True)
    y = x * 2
    v = Variable(y)
    assert not v.requires_grad and v.grad_fn is None and v is not y and v.data_ptr() == y.data_ptr()
    assert isinstance(y, Variable) and type(v) is lib.Tensor and not isinstance([1], Variable)
    w = Variable(lib.ones(2), requires_grad=True)
    assert w.requires_grad and w.is_leaf
    (w * 3).sum().backward()
    assert w.grad.tolist() == [3.0, 3.0]
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        Variable([1, 2])
    with pytest.warns(UserWarning, match="volatile was removed"):
        assert Variable(lib.ones(2), volatile=True).tolist() == [1.0, 1.0]
    assert Variable().shape == (0,)


def test_skip_init_allocates_without_initialising():
    m = tl.nn.utils.skip_init(tl.nn.Linear, 6, 4, bias=True)
    assert type(m) is tl.nn.Linear and m.weight.shape == (4, 6) and m.weight.device.type == "cpu"
    assert m.weight.requires_grad and isinstance(m.weight, tl.nn.Parameter)
    ref = torch.nn.utils.skip_init(torch.nn.Linear, 6, 4, bias=True)
    assert sorted(m.state_dict()) == sorted(ref.state_dict())
    with pytest.raises(RuntimeError, match="Expected a Module"):
        tl.nn.utils.skip_init(int)

    class NoDevice(tl.nn.Module):
        def __init__(self, n):
            super().__init__()
    with pytest.raises(RuntimeError, match="Module must support a 'device' arg"):
        tl.nn.utils.skip_init(NoDevice, 3)
