"""nn.init against torch.nn.init: the same numbers for the same seed (torchlite's random streams
are PyTorch's, docs/random.md), the fan/gain computations, and the errors."""
from __future__ import annotations

import math
import warnings

import pytest
import torch

import torchlite as tl
from tests.conftest import to_torch

SHAPES = [(5, 3), (4, 3, 5), (6, 2, 3, 3), (20, 17)]


def _same_draw(fn_name, shape, dtype="float32", **kwargs):
    """Runs nn.init.<fn_name> on a fresh tensor in both libraries after manual_seed(0) and
    compares bit for bit."""
    torch.manual_seed(0)
    want = getattr(torch.nn.init, fn_name)(torch.empty(shape, dtype=getattr(torch, dtype)), **kwargs)
    tl.manual_seed(0)
    got = getattr(tl.nn.init, fn_name)(tl.empty(shape, dtype=getattr(tl, dtype)), **kwargs)
    torch.testing.assert_close(to_torch(got), want, rtol=0, atol=0)
    return got


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn,kwargs", [
    ("uniform_", {}), ("uniform_", {"a": -3.0, "b": 0.5}),
    ("normal_", {}), ("normal_", {"mean": 2.0, "std": 0.1}),
    ("xavier_uniform_", {}), ("xavier_uniform_", {"gain": 2.0}),
    ("xavier_normal_", {"gain": 0.5}),
    ("kaiming_uniform_", {}), ("kaiming_uniform_", {"a": math.sqrt(5)}),
    ("kaiming_uniform_", {"mode": "fan_out", "nonlinearity": "relu"}),
    ("kaiming_normal_", {}), ("kaiming_normal_", {"mode": "fan_out", "nonlinearity": "tanh"}),
    ("trunc_normal_", {}), ("trunc_normal_", {"mean": 0.5, "std": 2.0, "a": -1.0, "b": 1.0}),
    ("trunc_normal_", {"std": 0.02}),
])
def test_random_initialisers_match_torch_bit_for_bit(fn, kwargs, shape, dtype):
    _same_draw(fn, shape, dtype, **kwargs)


def test_trunc_normal_narrow_window_uses_rejection_from_uniform():
    # [a, b] holding little of the mass: the uniform-proposal sampler, several rounds
    got = _same_draw("trunc_normal_", (50, 40), mean=0.0, std=1.0, a=2.0, b=2.5)
    assert bool(((got >= 2.0) & (got <= 2.5)).all())


def test_generator_argument_matches_torch():
    for fn in ["uniform_", "normal_", "xavier_uniform_", "kaiming_normal_", "trunc_normal_"]:
        gt, gl = torch.Generator().manual_seed(7), tl.Generator().manual_seed(7)
        want = getattr(torch.nn.init, fn)(torch.empty(6, 5), generator=gt)
        got = getattr(tl.nn.init, fn)(tl.empty(6, 5), generator=gl)
        torch.testing.assert_close(to_torch(got), want, rtol=0, atol=0)


def test_sparse_matches_torch():
    for sparsity in [0.1, 0.5]:
        torch.manual_seed(3)
        want = torch.nn.init.sparse_(torch.empty(10, 6), sparsity, std=0.5)
        tl.manual_seed(3)
        got = tl.nn.init.sparse_(tl.empty(10, 6), sparsity, std=0.5)
        torch.testing.assert_close(to_torch(got), want, rtol=0, atol=0)
        assert all(int((got[:, c] == 0).sum()) >= math.ceil(sparsity * 10) for c in range(6))


def test_deterministic_initialisers_match_torch():
    for fn, shape, kwargs in [("constant_", (3, 4), {"val": 2.5}), ("ones_", (2, 5), {}),
                              ("zeros_", (4,), {}), ("eye_", (3, 5), {}), ("eye_", (4, 2), {}),
                              ("dirac_", (4, 3, 3), {}), ("dirac_", (6, 2, 3, 3), {"groups": 2}),
                              ("dirac_", (2, 4, 3, 2, 3), {}), ("dirac_", (6, 3, 5), {"groups": 3})]:
        want = getattr(torch.nn.init, fn)(torch.full(shape, 7.0), **kwargs)
        got = getattr(tl.nn.init, fn)(tl.full(shape, 7.0), **kwargs)
        torch.testing.assert_close(to_torch(got), want, rtol=0, atol=0)


def test_init_under_grad_mode_on_parameters():
    p = tl.nn.Parameter(tl.empty(3, 4))
    for fn in ["uniform_", "normal_", "constant_", "ones_", "zeros_", "eye_", "xavier_uniform_",
               "kaiming_normal_", "trunc_normal_"]:
        args = (1.0,) if fn == "constant_" else ()
        out = getattr(tl.nn.init, fn)(p, *args)
        assert out is p and p.is_leaf and p.requires_grad and p.grad_fn is None


@pytest.mark.parametrize("name,param", [("linear", None), ("conv1d", None), ("conv2d", None),
                                        ("conv3d", None), ("conv_transpose1d", None),
                                        ("conv_transpose2d", None), ("conv_transpose3d", None),
                                        ("sigmoid", None), ("tanh", None), ("relu", None),
                                        ("leaky_relu", None), ("leaky_relu", 0.2),
                                        ("leaky_relu", 3), ("selu", None)])
def test_calculate_gain(name, param):
    assert tl.nn.init.calculate_gain(name, param) == torch.nn.init.calculate_gain(name, param)


def _error(lib, call):
    try:
        call(lib)
    except Exception as e:  # noqa: BLE001 - comparing the exception itself
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.init.calculate_gain("nope"),
    lambda lib: lib.nn.init.calculate_gain("leaky_relu", True),
    lambda lib: lib.nn.init.calculate_gain("leaky_relu", "x"),
    lambda lib: lib.nn.init.xavier_uniform_(lib.empty(3)),
    lambda lib: lib.nn.init.kaiming_uniform_(lib.empty(3, 3), mode="fan_middle"),
    lambda lib: lib.nn.init.eye_(lib.empty(3, 3, 3)),
    lambda lib: lib.nn.init.dirac_(lib.empty(3, 3)),
    lambda lib: lib.nn.init.dirac_(lib.empty(3, 3, 3), groups=2),
    lambda lib: lib.nn.init.sparse_(lib.empty(3), 0.1),
])
def test_errors_like_torch(call):
    assert _error(tl, call) == _error(torch, call) is not None


def test_fan_in_and_fan_out():
    for shape in [(3, 4), (8, 2, 5), (6, 3, 2, 2), (2, 2, 3, 3, 3)]:
        assert tl.nn.init._calculate_fan_in_and_fan_out(tl.empty(shape)) == \
            torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))


def test_zero_element_warns_like_torch():
    for fn in ["kaiming_uniform_", "kaiming_normal_"]:
        with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
            getattr(tl.nn.init, fn)(tl.empty(0, 3))


def test_trunc_normal_far_mean_warns():
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        tl.nn.init.trunc_normal_(tl.empty(4), mean=10.0, std=1.0, a=-1.0, b=1.0)


def test_deprecated_aliases_warn():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        tl.nn.init.uniform(tl.empty(2))
        tl.nn.init.xavier_normal(tl.empty(2, 2))
    assert [str(x.message) for x in w] == [
        "`nn.init.uniform` is now deprecated in favor of `nn.init.uniform_`.",
        "`nn.init.xavier_normal` is now deprecated in favor of `nn.init.xavier_normal_`."]


def test_meta_tensors_are_left_alone():
    m = tl.empty(4, 3, 3, device="meta")
    assert tl.nn.init.dirac_(m) is m and tl.nn.init.trunc_normal_(m) is m
    assert tl.nn.init.sparse_(tl.empty(3, 3, device="meta"), 0.5).is_meta


def test_orthogonal_like_torch_where_linalg_qr_exists():
    # orthogonal_ needs a QR factorisation: torchlite.linalg.qr lands with issue 10's LAPACK part,
    # and orthogonal_ exists exactly where it does
    assert hasattr(tl.nn.init, "orthogonal_") == hasattr(tl.linalg, "qr")
    if not hasattr(tl.linalg, "qr"):
        return
    for shape, gain in [((5, 3), 1.0), ((3, 5), 2.0), ((4, 2, 3), 1.0), ((6, 6), 0.5)]:
        torch.manual_seed(0)
        want = torch.nn.init.orthogonal_(torch.empty(shape), gain=gain)
        tl.manual_seed(0)
        got = tl.nn.init.orthogonal_(tl.empty(shape), gain=gain)
        torch.testing.assert_close(to_torch(got), want, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions are supported"):
        tl.nn.init.orthogonal_(tl.empty(3))


def test_orthogonal_logic_with_a_numpy_qr(monkeypatch):
    # orthogonal_'s own steps (normal draw, transposes, sign fix, gain) against torch's, with
    # NumPy's LAPACK QR standing in for torchlite.linalg.qr until that exists
    import numpy as np

    def numpy_qr(a):
        q, r = np.linalg.qr(a.numpy())
        return tl.from_numpy(np.ascontiguousarray(q)), tl.from_numpy(np.ascontiguousarray(r))

    monkeypatch.setattr(tl.linalg, "qr", numpy_qr, raising=False)
    for shape, gain in [((5, 3), 1.0), ((3, 5), 2.0), ((4, 2, 3), 1.0), ((6, 6), 0.5)]:
        torch.manual_seed(0)
        want = torch.nn.init.orthogonal_(torch.empty(shape), gain=gain)
        tl.manual_seed(0)
        got = tl.nn.init._orthogonal_(tl.empty(shape), gain=gain)
        torch.testing.assert_close(to_torch(got), want, rtol=1e-4, atol=1e-5)
    assert tl.nn.init._orthogonal_(tl.empty(0, 3)).shape == (0, 3)
