"""LazyBatchNorm1d/2d/3d and LazyInstanceNorm1d/2d/3d: parameters and buffers from the first input, the class
they become, state dicts, outputs and running statistics equal to PyTorch's."""
import numpy as np
import pytest
import torch

import torchlite as tl

CASES = [("LazyBatchNorm1d", (4, 3, 5)), ("LazyBatchNorm1d", (4, 3)), ("LazyBatchNorm2d", (2, 3, 4, 5)),
         ("LazyBatchNorm3d", (2, 3, 2, 3, 4)), ("LazyInstanceNorm1d", (2, 3, 6)), ("LazyInstanceNorm1d", (3, 6)),
         ("LazyInstanceNorm2d", (2, 3, 4, 5)), ("LazyInstanceNorm3d", (2, 3, 2, 3, 4))]


@pytest.mark.parametrize("name, shape", CASES)
@pytest.mark.parametrize("affine, track", [(True, True), (False, False), (True, False), (False, True)])
def test_lazy_norm_materializes_like_torch(name, shape, affine, track):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    ours, theirs = getattr(tl.nn, name)(affine=affine, track_running_stats=track), \
        getattr(torch.nn, name)(affine=affine, track_running_stats=track)
    assert ours.has_uninitialized_params() == theirs.has_uninitialized_params()
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict())
    try:
        ref = theirs(torch.tensor(x))
    except (ValueError, RuntimeError) as e:  # unbatched input: PyTorch takes num_features from shape[1] all the same
        with pytest.raises(type(e), match=str(e).replace("(", r"\(").replace(")", r"\)")):
            ours(tl.tensor(x))
        return
    out = ours(tl.tensor(x))
    assert type(ours).__name__ == type(theirs).__name__ == name.replace("Lazy", "")
    assert ours.num_features == theirs.num_features and repr(ours) == repr(theirs)  # 0 without parameters, as torch
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-5)
    a, b = ours.state_dict(), theirs.state_dict()
    assert sorted(a) == sorted(b)
    for k in a:
        np.testing.assert_allclose(a[k].numpy(), b[k].numpy(), rtol=1e-5, atol=1e-6, err_msg=k)


def test_lazy_batchnorm_loads_a_state_dict_before_its_first_call():
    x = np.random.default_rng(1).standard_normal((2, 5, 3, 3)).astype(np.float32)
    results = []
    for lib in (tl, torch):
        ref = lib.nn.BatchNorm2d(5)
        ref.running_mean.fill_(0.5)
        lazy = lib.nn.LazyBatchNorm2d()
        lazy.load_state_dict(ref.state_dict())
        assert lazy.running_mean.shape == (5,) and float(lazy.running_mean[0]) == 0.5
        out = lazy(lib.tensor(x))
        # loaded parameters are not uninitialized: num_features stays 0, as PyTorch's
        assert type(lazy) is lib.nn.BatchNorm2d and lazy.num_features == 0
        results.append((out.detach().numpy(), lazy.running_mean.numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_lazy_batchnorm_input_rank_is_checked():
    with pytest.raises(ValueError, match="expected 4D input"):
        tl.nn.LazyBatchNorm2d()(tl.randn(2, 3))
