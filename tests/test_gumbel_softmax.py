"""F.gumbel_softmax: the same samples as PyTorch for the same seed (soft and hard), its straight-through
gradient, and the deprecated eps warning."""
import numpy as np
import pytest
import torch

import torchlite as tl


@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("dim, tau", [(-1, 1.0), (0, 0.5), (1, 2.0)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gumbel_softmax_matches_torch(hard, dim, tau, dtype):
    x = np.random.default_rng(0).standard_normal((4, 5, 3)).astype(dtype)
    w = np.random.default_rng(1).standard_normal((4, 5, 3)).astype(dtype)
    results = []
    for lib in (tl, torch):
        lib.manual_seed(7)
        logits = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.gumbel_softmax(logits, tau=tau, hard=hard, dim=dim)
        (y * lib.tensor(w)).sum().backward()
        results.append((y.detach().numpy(), logits.grad.numpy()))
    (y1, g1), (y2, g2) = results
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(y1, y2, rtol=tol, atol=tol)
    np.testing.assert_allclose(g1, g2, rtol=1e-4 if dtype == "float32" else 1e-10, atol=tol)
    if hard:
        assert set(np.unique(y1)) <= {0.0, 1.0} and (y1.sum(axis=dim) == 1).all()


def test_gumbel_softmax_eps_is_deprecated():
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        tl.nn.functional.gumbel_softmax(tl.zeros(3), eps=1e-5)
