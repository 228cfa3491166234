"""nn.AdaptiveLogSoftmaxWithLoss vs torch: parameters from the same seed, outputs, loss, gradients,
log_prob, predict, unbatched inputs and errors."""
import numpy as np
import pytest
import torch

import torchlite as tl


def make(lib, **kw):
    lib.manual_seed(0)
    return lib.nn.AdaptiveLogSoftmaxWithLoss(16, 40, [5, 12, 25], div_value=2.0, **kw)


@pytest.mark.parametrize("head_bias", [False, True])
def test_forward_backward_log_prob_predict(head_bias):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((10, 16)).astype(np.float32)
    y = np.array([0, 3, 7, 30, 39, 12, 5, 24, 1, 13])
    res = []
    for lib in (tl, torch):
        m = make(lib, head_bias=head_bias)
        inp = lib.tensor(x, requires_grad=True)
        out = m(inp, lib.tensor(y))
        out.loss.backward()
        grads = [p.grad.numpy() for p in m.parameters()]
        res.append((out.output.detach().numpy(), out.loss.item(), inp.grad.numpy(), grads,
                    m.log_prob(lib.tensor(x)).detach().numpy(), m.predict(lib.tensor(x)).numpy(),
                    sorted(m.state_dict()), repr(m)))
    a, b = res
    np.testing.assert_allclose(a[0], b[0], rtol=1e-5, atol=1e-6)
    assert abs(a[1] - b[1]) < 1e-5
    np.testing.assert_allclose(a[2], b[2], rtol=1e-4, atol=1e-6)
    for ga, gb in zip(a[3], b[3]):
        np.testing.assert_allclose(ga, gb, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(a[4], b[4], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(a[5], b[5])
    assert a[6] == b[6] and a[7] == b[7]


def test_unbatched_and_errors():
    m = make(tl)
    out = m(tl.randn(16), tl.tensor(30))
    assert out.output.dim() == 0
    with pytest.raises(RuntimeError, match="Target values should be in \\[0, 39\\]"):
        m(tl.randn(2, 16), tl.tensor([1, 40]))
    with pytest.raises(RuntimeError, match="same size in the batch dimension"):
        m(tl.randn(3, 16), tl.tensor([1, 2]))
    with pytest.raises(ValueError, match="cutoffs should be a sequence of unique"):
        tl.nn.AdaptiveLogSoftmaxWithLoss(16, 40, [5, 5])
    with pytest.raises(ValueError, match="larger than 0"):
        tl.nn.AdaptiveLogSoftmaxWithLoss(16, 40, [])
