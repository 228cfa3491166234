"""nn.utils.parametrize / parametrizations / weight_norm / spectral_norm / fusion against torch:
state-dict keys, parametrized values and gradients after copying the weights, caching, removal,
right_inverse, and the errors."""
import copy
import pickle
import warnings

import pytest
import torch

import torchlite as tl
from tests.conftest import assert_same, from_torch


def _load(ours, theirs):
    ours.load_state_dict({k: from_torch(v) for k, v in theirs.state_dict().items()})


def _params_same(ours, theirs, atol=1e-6, rtol=1e-5):
    sd, sd_t = ours.state_dict(), theirs.state_dict()
    assert list(sd) == list(sd_t)
    for k in sd_t:
        assert_same(sd[k], sd_t[k], atol=atol, rtol=rtol)


class Symmetric:
    @staticmethod
    def make(lib):
        class Sym(lib.nn.Module):
            def forward(self, x):
                return x.triu() + x.triu(1).transpose(-1, -2)

            def right_inverse(self, a):
                return a.triu()
        return Sym()


def _scale(lib, factor):
    class Scale(lib.nn.Module):
        def forward(self, x):
            return x * factor

        def right_inverse(self, y):
            return y / factor
    return Scale()


def _split(lib):
    class Split(lib.nn.Module):  # two originals: original0 + original1
        def forward(self, a, b):
            return a + b

        def right_inverse(self, w):
            return w * 0.25, w * 0.75
    return Split()


def _pair_modules():
    torch.manual_seed(0)
    theirs = torch.nn.Linear(3, 3)
    ours = tl.nn.Linear(3, 3)
    _load(ours, theirs)
    return ours, theirs


def test_register_state_dict_class_and_values():
    ours, theirs = _pair_modules()
    for lib, m in ((tl, ours), (torch, theirs)):
        lib.nn.utils.parametrize.register_parametrization(m, "weight", Symmetric.make(lib))
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _scale(lib, 2.0))
    assert type(ours).__name__ == type(theirs).__name__ == "ParametrizedLinear"
    _params_same(ours, theirs)
    assert_same(ours.weight.detach(), theirs.weight.detach())
    assert tl.nn.utils.parametrize.is_parametrized(ours) and tl.nn.utils.parametrize.is_parametrized(ours, "weight")
    assert not tl.nn.utils.parametrize.is_parametrized(ours, "bias")
    assert tl.nn.utils.parametrize.type_before_parametrizations(ours) is tl.nn.Linear
    x, xt = tl.randn(2, 3), None
    xt = torch.tensor(x.numpy())
    ours(x).pow(2).sum().backward()
    theirs(xt).pow(2).sum().backward()
    assert_same(ours.parametrizations.weight.original.grad, theirs.parametrizations.weight.original.grad,
                atol=1e-6, rtol=1e-5)
    # assignment runs right_inverse through the chain
    w = torch.randn(3, 3)
    with torch.no_grad():
        theirs.weight = w
    ours.weight = from_torch(w)
    _params_same(ours, theirs)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("leave_parametrized", [True, False])
def test_remove_parametrizations(leave_parametrized):
    ours, theirs = _pair_modules()
    for lib, m in ((tl, ours), (torch, theirs)):
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _scale(lib, 3.0))
        lib.nn.utils.parametrize.remove_parametrizations(m, "weight", leave_parametrized=leave_parametrized)
    assert type(ours) is tl.nn.Linear and not hasattr(ours, "parametrizations")
    assert isinstance(ours.weight, tl.nn.Parameter)
    _params_same(ours, theirs)
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        tl.nn.utils.parametrize.remove_parametrizations(ours, "weight")


def test_several_originals():
    ours, theirs = _pair_modules()
    for lib, m in ((tl, ours), (torch, theirs)):
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _split(lib))
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert "parametrizations.weight.original0" in ours.state_dict()
    _params_same(ours, theirs)
    with pytest.raises(ValueError, match="Cannot leave unparametrized \\(`leave_parametrized=False`\\) a tensor that "
                                         "is parametrized in terms of a sequence of tensors."):
        tl.nn.utils.parametrize.remove_parametrizations(ours, "weight", leave_parametrized=False)
    tl.nn.utils.parametrize.remove_parametrizations(ours, "weight")
    torch.nn.utils.parametrize.remove_parametrizations(theirs, "weight")
    _params_same(ours, theirs)


def test_cached_computes_once_and_buffers():
    calls = []

    class Counting(tl.nn.Module):
        def forward(self, x):
            calls.append(1)
            return x * 2

    m = tl.nn.Linear(2, 2)
    m.register_buffer("buf", tl.ones(2))
    tl.nn.utils.parametrize.register_parametrization(m, "weight", Counting())
    tl.nn.utils.parametrize.register_parametrization(m, "buf", _scale(tl, 5.0))
    assert "parametrizations.buf.original" in m.state_dict()
    # right_inverse stored buf / 5, so the parametrized buffer is still ones
    assert tl.allclose(m.parametrizations.buf.original, tl.full((2,), 0.2))
    assert tl.allclose(m.buf, tl.ones(2))
    calls.clear()
    with tl.nn.utils.parametrize.cached():
        a, b = m.weight, m.weight
    assert a is b and len(calls) == 1
    m.weight
    m.weight
    assert len(calls) == 3


def test_errors_like_torch():
    class ChangeShape(tl.nn.Module):
        def forward(self, x):
            return x[0]

    class ChangeDtype(tl.nn.Module):
        def forward(self, x):
            return x.double()

    m = tl.nn.Linear(2, 2)
    with pytest.raises(ValueError, match="Registering a parametrization may not change the shape of the tensor"):
        tl.nn.utils.parametrize.register_parametrization(m, "weight", ChangeShape())
    with pytest.raises(ValueError, match="Registering a parametrization may not change the dtype of the tensor"):
        tl.nn.utils.parametrize.register_parametrization(m, "weight", ChangeDtype())
    tl.nn.utils.parametrize.register_parametrization(m, "weight", ChangeShape(), unsafe=True)
    assert m.weight.shape == (2,)
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element with name "
                                         "'nope'"):
        tl.nn.utils.parametrize.register_parametrization(m, "nope", ChangeShape())
    m2 = tl.nn.Linear(2, 2)
    tl.nn.utils.parametrize.register_parametrization(m2, "weight", ChangeShape(), unsafe=True)
    with pytest.raises(RuntimeError, match="parametrization ChangeShape does not implement right_inverse."):
        m2.weight = tl.zeros(2, 2)
    with pytest.raises(RuntimeError, match="Serialization of parametrized modules is only supported through "
                                           "state_dict()"):
        pickle.dumps(m2)
    c = copy.deepcopy(m2)
    assert type(c).__name__ == "ParametrizedLinear" and tl.equal(c.weight, m2.weight)


def test_transfer_parametrizations_and_params():
    src = tl.nn.Linear(3, 3)
    tl.nn.utils.parametrize.register_parametrization(src, "weight", Symmetric.make(tl))
    dst = tl.nn.Linear(3, 3)
    tl.nn.utils.parametrize.transfer_parametrizations_and_params(src, dst)
    assert tl.equal(dst.weight, src.weight)
    assert dst.parametrizations.weight.original is src.parametrizations.weight.original


@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_parametrizations_weight_norm(dim):
    torch.manual_seed(0)
    theirs = torch.nn.Conv2d(2, 3, 3)
    ours = tl.nn.Conv2d(2, 3, 3)
    _load(ours, theirs)
    torch.nn.utils.parametrizations.weight_norm(theirs, dim=dim)
    tl.nn.utils.parametrizations.weight_norm(ours, dim=dim)
    _params_same(ours, theirs)
    assert_same(ours.weight.detach(), theirs.weight.detach(), atol=1e-6, rtol=1e-5)
    x = torch.randn(1, 2, 5, 5)
    theirs(x).sum().backward()
    ours(from_torch(x)).sum().backward()
    for i in (0, 1):
        assert_same(getattr(ours.parametrizations.weight, f"original{i}").grad,
                    getattr(theirs.parametrizations.weight, f"original{i}").grad, atol=1e-5, rtol=1e-4)


def test_weight_norm_old_and_new_state_dicts():
    torch.manual_seed(0)
    old_t = torch.nn.Linear(4, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.nn.utils.weight_norm(old_t)
    ours = tl.nn.Linear(4, 3)
    tl.nn.utils.parametrizations.weight_norm(ours)
    ours.load_state_dict({k: from_torch(v) for k, v in old_t.state_dict().items()})  # weight_g / weight_v keys
    assert_same(ours.weight.detach(), old_t.weight.detach(), atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("dim", [0, 1, None])
def test_old_weight_norm_hooks(dim):
    torch.manual_seed(0)
    theirs = torch.nn.Linear(4, 3)
    ours = tl.nn.Linear(4, 3)
    _load(ours, theirs)
    with pytest.warns(FutureWarning, match="`torch.nn.utils.weight_norm` is deprecated in favor of "
                                           "`torch.nn.utils.parametrizations.weight_norm`."):
        tl.nn.utils.weight_norm(ours, dim=dim)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.nn.utils.weight_norm(theirs, dim=dim)
    _params_same(ours, theirs)
    x = torch.randn(2, 4)
    assert_same(ours(from_torch(x)).detach(), theirs(x).detach(), atol=1e-6, rtol=1e-5)
    ours(from_torch(x)).sum().backward()
    theirs(x).sum().backward()
    assert_same(ours.weight_g.grad, theirs.weight_g.grad, atol=1e-5, rtol=1e-5)
    assert_same(ours.weight_v.grad, theirs.weight_v.grad, atol=1e-5, rtol=1e-5)
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks on the same parameter weight"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tl.nn.utils.weight_norm(ours)
    tl.nn.utils.remove_weight_norm(ours)
    torch.nn.utils.remove_weight_norm(theirs)
    _params_same(ours, theirs)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
        tl.nn.utils.remove_weight_norm(ours)


def test_parametrizations_spectral_norm_train_and_eval():
    torch.manual_seed(0)
    theirs = torch.nn.Linear(5, 4)
    ours = tl.nn.Linear(5, 4)
    _load(ours, theirs)
    torch.nn.utils.parametrizations.spectral_norm(theirs)
    tl.nn.utils.parametrizations.spectral_norm(ours)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _load(ours, theirs)  # the same power-iteration vectors
    x = torch.randn(3, 5)
    for mode in ("train", "eval"):
        getattr(ours, mode)()
        getattr(theirs, mode)()
        out, out_t = ours(from_torch(x)), theirs(x)
        assert_same(out.detach(), out_t.detach(), atol=1e-5, rtol=1e-4)
        _params_same(ours, theirs, atol=1e-5, rtol=1e-4)
    ours.train()
    theirs.train()
    ours(from_torch(x)).sum().backward()
    theirs(x).sum().backward()
    assert_same(ours.parametrizations.weight.original.grad, theirs.parametrizations.weight.original.grad,
                atol=1e-4, rtol=1e-4)
    # the largest singular value of the normalized weight is about 1 after some iterations
    for _ in range(20):
        ours(from_torch(x))
    assert abs(float(tl.linalg.matrix_norm(ours.weight.detach(), ord=2)) - 1.0) < 1e-3
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive, but got n_power_iterations=0"):
        tl.nn.utils.parametrizations.spectral_norm(tl.nn.Linear(2, 2), n_power_iterations=0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        tl.nn.utils.parametrizations.spectral_norm(tl.nn.Linear(2, 2), dim=2)


def test_old_spectral_norm_hooks():
    torch.manual_seed(0)
    theirs = torch.nn.ConvTranspose2d(3, 2, 3)
    ours = tl.nn.ConvTranspose2d(3, 2, 3)
    _load(ours, theirs)
    torch.nn.utils.spectral_norm(theirs)
    tl.nn.utils.spectral_norm(ours)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _load(ours, theirs)
    x = torch.randn(1, 3, 4, 4)
    for mode in ("train", "eval"):
        getattr(ours, mode)()
        getattr(theirs, mode)()
        assert_same(ours(from_torch(x)).detach(), theirs(x).detach(), atol=1e-5, rtol=1e-4)
        _params_same(ours, theirs, atol=1e-5, rtol=1e-4)
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks on the same parameter weight"):
        tl.nn.utils.spectral_norm(ours)
    tl.nn.utils.remove_spectral_norm(ours)
    torch.nn.utils.remove_spectral_norm(theirs)
    _params_same(ours, theirs, atol=1e-5, rtol=1e-4)
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found in"):
        tl.nn.utils.remove_spectral_norm(ours)


@pytest.mark.parametrize("orthogonal_map", [None, "matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
def test_orthogonal(orthogonal_map, shape):
    m = tl.nn.Linear(shape[1], shape[0])
    tl.nn.utils.parametrizations.orthogonal(m, orthogonal_map=orthogonal_map)
    w = m.weight
    small = min(shape)
    gram = w @ w.T if shape[0] <= shape[1] else w.T @ w
    assert tl.allclose(gram, tl.eye(small), atol=1e-5)
    assert "parametrizations.weight.original" in m.state_dict()
    # the same forward as torch's on the same unconstrained matrix, without the trivialization base
    mt = torch.nn.Linear(shape[1], shape[0])
    torch.nn.utils.parametrizations.orthogonal(mt, orthogonal_map=orthogonal_map, use_trivialization=False)
    m2 = tl.nn.Linear(shape[1], shape[0])
    tl.nn.utils.parametrizations.orthogonal(m2, orthogonal_map=orthogonal_map, use_trivialization=False)
    _load(m2, mt)
    assert_same(m2.weight.detach(), mt.weight.detach(), atol=1e-5, rtol=1e-4)
    m.weight.sum().backward()
    assert m.parametrizations.weight.original.grad is not None
    # assigning an orthogonal matrix makes it the parametrized value
    q = tl.linalg.qr(tl.randn(max(shape), small))[0]
    q = q if shape[0] >= shape[1] else q.T
    m.weight = q
    assert tl.allclose(m.weight, q, atol=1e-5)


def test_orthogonal_errors():
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices. Got a tensor of 1 dimensions."):
        tl.nn.utils.parametrizations.orthogonal(tl.nn.Linear(2, 2), "bias")
    with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                                         "Got: foo"):
        tl.nn.utils.parametrizations.orthogonal(tl.nn.Linear(2, 2), orthogonal_map="foo")
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'nope'"):
        tl.nn.utils.parametrizations.orthogonal(tl.nn.Linear(2, 2), "nope")


@pytest.mark.parametrize("transpose", [False, True])
def test_fuse_conv_bn_eval(transpose):
    torch.manual_seed(0)
    conv_cls = "ConvTranspose2d" if transpose else "Conv2d"
    conv_t = getattr(torch.nn, conv_cls)(3, 4, 3).eval()
    bn_t = torch.nn.BatchNorm2d(4).eval()
    with torch.no_grad():
        bn_t.running_mean.uniform_(-1, 1)
        bn_t.running_var.uniform_(0.5, 2)
        bn_t.weight.uniform_(0.5, 1.5)
        bn_t.bias.uniform_(-1, 1)
    conv = getattr(tl.nn, conv_cls)(3, 4, 3).eval()
    bn = tl.nn.BatchNorm2d(4).eval()
    _load(conv, conv_t)
    _load(bn, bn_t)
    fused = tl.nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
    fused_t = torch.nn.utils.fuse_conv_bn_eval(conv_t, bn_t, transpose=transpose)
    _params_same(fused, fused_t)
    x = torch.randn(2, 3, 6, 6)
    assert_same(fused(from_torch(x)).detach(), bn_t(conv_t(x)).detach(), atol=1e-5, rtol=1e-4)
    assert fused is not conv and isinstance(fused.weight, tl.nn.Parameter)
    conv.train()
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        tl.nn.utils.fuse_conv_bn_eval(conv, bn)


def test_fuse_linear_bn_and_weights_without_bias():
    torch.manual_seed(0)
    lin_t = torch.nn.Linear(3, 4, bias=False).eval()
    bn_t = torch.nn.BatchNorm1d(4).eval()
    with torch.no_grad():
        bn_t.running_mean.uniform_(-1, 1)
        bn_t.running_var.uniform_(0.5, 2)
    lin = tl.nn.Linear(3, 4, bias=False).eval()
    bn = tl.nn.BatchNorm1d(4).eval()
    _load(lin, lin_t)
    _load(bn, bn_t)
    fused = tl.nn.utils.fuse_linear_bn_eval(lin, bn)
    fused_t = torch.nn.utils.fuse_linear_bn_eval(lin_t, bn_t)
    _params_same(fused, fused_t)
    w, b = tl.nn.utils.fuse_conv_bn_weights(from_torch(torch.randn(4, 3, 1, 1)), None, bn.running_mean,
                                             bn.running_var, 1e-5, None, None)
    assert w.shape == (4, 3, 1, 1) and b.shape == (4,)
    with pytest.raises(AssertionError, match="To fuse, linear.out_features == bn.num_features or bn.num_features == 1"):
        tl.nn.utils.fuse_linear_bn_eval(tl.nn.Linear(3, 5).eval(), bn)


def test_original_is_the_registered_parameter_and_optimizers_see_it():
    m = tl.nn.Linear(3, 3)
    p = m.weight
    tl.nn.utils.parametrize.register_parametrization(m, "weight", Symmetric.make(tl))
    assert m.parametrizations.weight.original is p  # the same object, now holding right_inverse(weight)
    assert tl.equal(p, p.triu())
    opt = tl.optim.SGD(m.parameters(), lr=0.1)
    before = m.weight.detach().clone()
    m(tl.randn(4, 3)).sum().backward()
    opt.step()
    assert not tl.equal(m.weight, before) and tl.allclose(m.weight, m.weight.T)
