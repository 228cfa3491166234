"""torchlite.nn.functional losses: what the generated suites (every YAML sample against PyTorch) cannot say.

- the F.* Python layer: signatures and defaults, the reduction strings and the legacy size_average / reduce
  flags (PyTorch's _Reduction mapping and warnings), the size warnings PyTorch gives in Python;
- each loss through F.* against PyTorch over reductions, class weights, ignore_index, label smoothing,
  class probabilities, K-dimensional and unbatched inputs, float16/bfloat16/float32/float64 and
  non-contiguous inputs, with the gradients of every floating input (target gradients included);
- double backward through the dedicated backward ops;
- errors PyTorch raises (targets out of range, shapes, dtypes, beta / delta / label_smoothing).
"""
from __future__ import annotations

import inspect
import warnings

import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch

F_NAMES = ["cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss", "gaussian_nll_loss",
           "hinge_embedding_loss", "margin_ranking_loss", "soft_margin_loss", "multilabel_soft_margin_loss",
           "multi_margin_loss", "multilabel_margin_loss", "cosine_embedding_loss", "triplet_margin_loss",
           "triplet_margin_with_distance_loss"]
OPS = ["cross_entropy_loss", "nll_loss", "nll_loss_nd", "nll_loss2d", "mse_loss", "l1_loss", "smooth_l1_loss",
       "huber_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss",
       "soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss", "hinge_embedding_loss",
       "margin_ranking_loss", "cosine_embedding_loss", "triplet_margin_loss"]


def _params(fn):
    return [(p.name, p.default, p.kind) for p in inspect.signature(fn).parameters.values()]


@pytest.mark.parametrize("name", F_NAMES)
def test_functional_signatures(name):
    assert _params(getattr(TF, name)) == _params(getattr(F, name)), name


@pytest.mark.parametrize("name", OPS)
def test_placement_as_torch(name):
    assert hasattr(tl, name) == hasattr(torch, name), name
    assert hasattr(tl._C._nn, name) == hasattr(torch._C._nn, name), name
    assert hasattr(tl.Tensor, name) == hasattr(torch.Tensor, name), name


def _rand(shape, seed, dtype=torch.float64, low=-2.0, high=2.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(shape, generator=g, dtype=torch.float64) * (high - low) + low).to(dtype)


def _classes(shape, n, seed, ignore=None):
    g = torch.Generator().manual_seed(seed)
    t = torch.randint(0, n, shape, generator=g)
    if ignore is not None and t.numel() > 1:
        t.view(-1)[::3] = ignore
    return t


def _weight(n, dtype=torch.float64):
    return torch.linspace(0.5, 2.0, n, dtype=torch.float64).to(dtype)


# (name, builder(dtype) -> (args, kwargs)): the first args are the float inputs that get gradients.
CASES = [
    ("ce", lambda d: ((_rand((5, 4), 0, d), _classes((5,), 4, 1)), {})),
    ("ce-none", lambda d: ((_rand((5, 4), 0, d), _classes((5,), 4, 1)), {"reduction": "none"})),
    ("ce-sum", lambda d: ((_rand((5, 4), 0, d), _classes((5,), 4, 1)), {"reduction": "sum"})),
    ("ce-weight", lambda d: ((_rand((5, 4), 0, d), _classes((5,), 4, 1)), {"weight": _weight(4, d)})),
    ("ce-ignore", lambda d: ((_rand((6, 4), 0, d), _classes((6,), 4, 1, ignore=2)), {"ignore_index": 2})),
    ("ce-ignore-neg", lambda d: ((_rand((6, 4), 0, d), _classes((6,), 4, 1, ignore=-100)), {})),
    ("ce-weight-ignore-none", lambda d: ((_rand((6, 4), 0, d), _classes((6,), 4, 1, ignore=-1)),
                                         {"weight": _weight(4, d), "ignore_index": -1, "reduction": "none"})),
    ("ce-smooth", lambda d: ((_rand((6, 4), 0, d), _classes((6,), 4, 1)), {"label_smoothing": 0.2})),
    ("ce-smooth-weight-ignore", lambda d: ((_rand((6, 4), 0, d), _classes((6,), 4, 1, ignore=0)),
                                           {"label_smoothing": 0.3, "weight": _weight(4, d), "ignore_index": 0})),
    ("ce-smooth-none", lambda d: ((_rand((6, 4), 0, d), _classes((6,), 4, 1)),
                                  {"label_smoothing": 0.1, "reduction": "none"})),
    ("ce-kdim", lambda d: ((_rand((2, 3, 4, 5), 0, d), _classes((2, 4, 5), 3, 1)), {})),
    ("ce-kdim-none", lambda d: ((_rand((2, 3, 4), 0, d), _classes((2, 4), 3, 1)), {"reduction": "none"})),
    ("ce-5d-weight", lambda d: ((_rand((2, 3, 2, 2, 3), 0, d), _classes((2, 2, 2, 3), 3, 1, ignore=-100)),
                                {"weight": _weight(3, d), "reduction": "none"})),
    ("ce-unbatched", lambda d: ((_rand((4,), 0, d), torch.tensor(2)), {})),
    ("ce-unbatched-smooth", lambda d: ((_rand((4,), 0, d), torch.tensor(2)), {"label_smoothing": 0.4})),
    ("ce-probs", lambda d: ((_rand((5, 4), 0, d), _rand((5, 4), 1, d, 0.0, 1.0)), {})),
    ("ce-probs-smooth-weight", lambda d: ((_rand((5, 4), 0, d), _rand((5, 4), 1, d, 0.0, 1.0)),
                                          {"label_smoothing": 0.25, "weight": _weight(4, d)})),
    ("ce-probs-kdim-none", lambda d: ((_rand((2, 3, 4), 0, d), _rand((2, 3, 4), 1, d, 0.0, 1.0)),
                                      {"reduction": "none", "weight": _weight(3, d)})),
    ("ce-probs-sum", lambda d: ((_rand((5, 4), 0, d), _rand((5, 4), 1, d, 0.0, 1.0)), {"reduction": "sum"})),
    ("ce-legacy-sum", lambda d: ((_rand((5, 4), 0, d), _classes((5,), 4, 1)), {"size_average": False})),
    ("ce-legacy-none", lambda d: ((_rand((5, 4), 0, d), _classes((5,), 4, 1)), {"reduce": False})),
    ("nll", lambda d: ((_rand((5, 4), 0, d), _classes((5,), 4, 1)), {})),
    ("nll-weight-ignore", lambda d: ((_rand((6, 4), 0, d), _classes((6,), 4, 1, ignore=1)),
                                     {"weight": _weight(4, d), "ignore_index": 1})),
    ("nll-2d-none", lambda d: ((_rand((2, 3, 4, 5), 0, d), _classes((2, 4, 5), 3, 1, ignore=-100)),
                               {"reduction": "none"})),
    ("nll-2d-weight-sum", lambda d: ((_rand((2, 3, 4, 5), 0, d), _classes((2, 4, 5), 3, 1)),
                                     {"weight": _weight(3, d), "reduction": "sum"})),
    ("nll-3d", lambda d: ((_rand((2, 3, 4), 0, d), _classes((2, 4), 3, 1)), {})),
    ("nll-unbatched-none", lambda d: ((_rand((4,), 0, d), torch.tensor(3)), {"reduction": "none"})),
    ("nll-uint8-target", lambda d: ((_rand((5, 4), 0, d), _classes((5,), 4, 1).to(torch.uint8)), {})),
    ("nll-legacy", lambda d: ((_rand((5, 4), 0, d), _classes((5,), 4, 1)), {"size_average": False, "reduce": True})),
    ("mse", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d)), {})),
    ("mse-none", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d)), {"reduction": "none"})),
    ("mse-sum", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d)), {"reduction": "sum"})),
    ("mse-weight", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d)), {"weight": _rand((4, 5), 2, d, 0.1, 1)})),
    ("mse-legacy", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d)), {"reduce": False})),
    ("l1", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d)), {})),
    ("l1-none", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d)), {"reduction": "none"})),
    ("l1-weight-sum", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d)),
                                 {"weight": _rand((4, 5), 2, d, 0.1, 1), "reduction": "sum"})),
    ("smooth_l1", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d)), {})),
    ("smooth_l1-beta", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d)), {"beta": 0.3, "reduction": "sum"})),
    ("smooth_l1-beta0", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d)), {"beta": 0.0, "reduction": "none"})),
    ("huber", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d)), {})),
    ("huber-delta", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d)), {"delta": 0.4, "reduction": "none"})),
    ("huber-weight", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d)), {"weight": _rand((4, 5), 2, d, 0.1, 1)})),
    ("bce", lambda d: ((_rand((4, 5), 0, d, 0.05, 0.95), _rand((4, 5), 1, d, 0, 1)), {})),
    ("bce-weight-none", lambda d: ((_rand((4, 5), 0, d, 0.05, 0.95), _rand((4, 5), 1, d, 0, 1)),
                                   {"weight": _rand((5,), 2, d, 0.1, 2), "reduction": "none"})),
    ("bce-edges-sum", lambda d: ((torch.tensor([0.0, 1.0, 0.5, 1e-30], dtype=d), torch.tensor([1.0, 0.0, 0.5, 0.0], dtype=d)),
                                 {"reduction": "sum"})),
    ("bce-legacy", lambda d: ((_rand((4, 5), 0, d, 0.05, 0.95), _rand((4, 5), 1, d, 0, 1)), {"reduce": False})),
    ("bcel", lambda d: ((_rand((4, 5), 0, d, -4, 4), _rand((4, 5), 1, d, 0, 1)), {})),
    ("bcel-weights", lambda d: ((_rand((4, 5), 0, d, -4, 4), _rand((4, 5), 1, d, 0, 1)),
                                {"weight": _rand((5,), 2, d, 0.1, 2), "pos_weight": _rand((5,), 3, d, 0.5, 3)})),
    ("bcel-large-none", lambda d: ((torch.tensor([-200.0, -30.0, 0.0, 30.0, 200.0], dtype=d),
                                    torch.tensor([1.0, 0.0, 0.5, 1.0, 0.0], dtype=d)), {"reduction": "none"})),
    ("kl", lambda d: ((_rand((4, 5), 0, d, -3, 0), _rand((4, 5), 1, d, 0, 1)), {"reduction": "batchmean"})),
    ("kl-mean", lambda d: ((_rand((4, 5), 0, d, -3, 0), _rand((4, 5), 1, d, 0, 1)), {})),
    ("kl-log-target-none", lambda d: ((_rand((4, 5), 0, d, -3, 0), _rand((4, 5), 1, d, -3, 0)),
                                      {"log_target": True, "reduction": "none"})),
    ("kl-zero-target-sum", lambda d: ((_rand((4,), 0, d, -3, 0), torch.tensor([0.0, 0.5, 0.0, 0.5], dtype=d)),
                                      {"reduction": "sum"})),
    ("poisson", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d, 0, 4)), {})),
    ("poisson-full-none", lambda d: ((_rand((4, 5), 0, d, 0.1, 3), _rand((4, 5), 1, d, 0, 4)),
                                     {"log_input": False, "full": True, "reduction": "none"})),
    ("gaussian", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d), _rand((4, 5), 2, d, 0.1, 2)), {})),
    ("gaussian-homo-full", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d), _rand((4,), 2, d, 0.1, 2)),
                                      {"full": True, "reduction": "sum"})),
    ("gaussian-clamp-none", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d), _rand((4, 1), 2, d, 0, 1e-3)),
                                       {"reduction": "none", "eps": 1e-3})),
    ("hinge", lambda d: ((_rand((4, 5), 0, d), torch.tensor([1.0, -1.0, 1.0, -1.0, 1.0], dtype=d)), {})),
    ("hinge-margin-none", lambda d: ((_rand((4, 5), 0, d), torch.tensor([1.0, -1.0, 1.0, -1.0, 1.0], dtype=d)),
                                     {"margin": 0.5, "reduction": "none"})),
    ("ranking", lambda d: ((_rand((6,), 0, d), _rand((6,), 1, d), torch.tensor([1.0, -1, 1, -1, 1, 1], dtype=d)),
                           {"margin": 0.3})),
    ("soft_margin", lambda d: ((_rand((4, 5), 0, d), torch.tensor([1.0, -1.0, 1.0, -1.0, 1.0], dtype=d)), {})),
    ("soft_margin-none", lambda d: ((_rand((4, 5), 0, d), torch.tensor([1.0, -1.0, 1.0, -1.0, 1.0], dtype=d)),
                                    {"reduction": "none"})),
    ("multilabel_soft", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d, 0, 1).round()),
                                   {"weight": _rand((5,), 2, d, 0.1, 2)})),
    ("multilabel_soft-none", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d, 0, 1).round()),
                                        {"reduction": "none"})),
    ("multi_margin", lambda d: ((_rand((5, 4), 0, d), _classes((5,), 4, 1)), {})),
    ("multi_margin-p2-weight-none", lambda d: ((_rand((5, 4), 0, d), _classes((5,), 4, 1)),
                                               {"p": 2, "margin": 0.5, "weight": _weight(4, d), "reduction": "none"})),
    ("multi_margin-unbatched", lambda d: ((_rand((4,), 0, d), torch.tensor(2)), {"reduction": "sum"})),
    ("multilabel_margin", lambda d: ((_rand((3, 4), 0, d), torch.tensor([[0, 3, -1, 0], [1, -1, 2, 2], [2, 1, 0, 3]])),
                                     {})),
    ("multilabel_margin-none", lambda d: ((_rand((3, 4), 0, d), torch.tensor([[3, -1, 0, 0], [-1, 1, 2, 2],
                                                                              [2, 1, 0, 3]])), {"reduction": "none"})),
    ("multilabel_margin-unbatched", lambda d: ((_rand((4,), 0, d), torch.tensor([1, 2, -1, 0])), {})),
    ("cosine", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d), torch.tensor([1, -1, 1, -1])), {"margin": 0.1})),
    ("cosine-unbatched-none", lambda d: ((_rand((5,), 0, d), _rand((5,), 1, d), torch.tensor(-1)),
                                         {"reduction": "none", "margin": -0.5})),
    ("triplet", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d), _rand((4, 5), 2, d)), {})),
    ("triplet-swap-p1-none", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d), _rand((4, 5), 2, d)),
                                        {"swap": True, "p": 1.0, "margin": 2.0, "reduction": "none"})),
    ("triplet_distance", lambda d: ((_rand((4, 5), 0, d), _rand((4, 5), 1, d), _rand((4, 5), 2, d)), {"swap": True})),
]
FN = {"ce": "cross_entropy", "nll": "nll_loss", "mse": "mse_loss", "l1": "l1_loss", "smooth_l1": "smooth_l1_loss",
      "huber": "huber_loss", "bce": "binary_cross_entropy", "bcel": "binary_cross_entropy_with_logits",
      "kl": "kl_div", "poisson": "poisson_nll_loss", "gaussian": "gaussian_nll_loss", "hinge": "hinge_embedding_loss",
      "ranking": "margin_ranking_loss", "soft_margin": "soft_margin_loss",
      "multilabel_soft": "multilabel_soft_margin_loss", "multi_margin": "multi_margin_loss",
      "multilabel_margin": "multilabel_margin_loss", "cosine": "cosine_embedding_loss",
      "triplet": "triplet_margin_loss", "triplet_distance": "triplet_margin_with_distance_loss"}
# Inputs PyTorch gives no gradient (its error "not differentiable with respect to argument 'target'").
NO_TARGET_GRAD = {"soft_margin_loss", "hinge_embedding_loss"}


def _fn(case):
    return FN[case.split("-")[0]]


def _to_tl(v):
    return from_torch(v) if isinstance(v, torch.Tensor) else v


def _call(lib_f, name, args, kwargs, to=lambda v: v):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(lib_f, name)(*[to(a) for a in args], **{k: to(v) for k, v in kwargs.items()})


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("case", [c[0] for c in CASES])
def test_forward_like_torch(case, dtype):
    args, kwargs = dict(CASES)[case](getattr(torch, dtype))
    try:
        expected = _call(F, _fn(case), args, kwargs)
    except Exception as e:  # dtypes PyTorch has no kernel for (multi_margin_loss in float16): the same error type
        with pytest.raises(type(e)):
            _call(TF, _fn(case), args, kwargs, _to_tl)
        return
    assert_same(_call(TF, _fn(case), args, kwargs, _to_tl), expected)


@pytest.mark.parametrize("case", [c[0] for c in CASES])
def test_gradients_like_torch(case):
    args, kwargs = dict(CASES)[case](torch.float64)
    diff = [a.is_floating_point() and not (i == 1 and _fn(case) in NO_TARGET_GRAD) for i, a in enumerate(args)]
    t_args = [a.clone().requires_grad_(d) for a, d in zip(args, diff)]
    l_args = [from_torch(a).requires_grad_(d) for a, d in zip(args, diff)]
    expected = _call(F, _fn(case), t_args, kwargs)
    actual = _call(TF, _fn(case), l_args, kwargs, _to_tl)
    g = _rand(tuple(expected.shape), 7)
    expected.backward(g)
    actual.backward(from_torch(g))
    for la, ta, d in zip(l_args, t_args, diff):
        if d:
            assert_same(la.grad, ta.grad)


@pytest.mark.parametrize("case", ["ce", "ce-kdim", "ce-probs", "mse", "smooth_l1", "huber", "nll-2d-none"])
def test_non_contiguous_inputs(case):
    args, kwargs = dict(CASES)[case](torch.float64)
    x = args[0]
    xt = x.transpose(0, -1).contiguous().transpose(0, -1) if x.dim() > 1 else x
    t_args = (xt,) + tuple(args[1:])
    l_args = (from_torch(x.transpose(0, -1).contiguous()).transpose(0, -1) if x.dim() > 1 else from_torch(x),) + \
        tuple(from_torch(a) for a in args[1:])
    assert_same(_call(TF, _fn(case), l_args, kwargs, _to_tl), _call(F, _fn(case), t_args, kwargs))


@pytest.mark.parametrize("case", ["ce", "ce-smooth", "ce-probs", "nll-2d-none", "mse", "mse-none", "smooth_l1",
                                  "smooth_l1-beta", "huber", "huber-delta", "bce", "bce-weight-none", "bcel",
                                  "bcel-weights", "kl", "poisson-full-none", "soft_margin", "soft_margin-none",
                                  "cosine", "triplet"])
def test_double_backward_like_torch(case):
    args, kwargs = dict(CASES)[case](torch.float64)
    n = {"mse_loss": 2, "smooth_l1_loss": 2, "huber_loss": 2, "binary_cross_entropy": 2,
         "binary_cross_entropy_with_logits": 2, "kl_div": 2, "poisson_nll_loss": 2, "cosine_embedding_loss": 2,
         "triplet_margin_loss": 3}.get(_fn(case), 1)
    t_args = [a.clone().requires_grad_(i < n) for i, a in enumerate(args)]
    l_args = [from_torch(a).requires_grad_(i < n) for i, a in enumerate(args)]
    results = []
    for lib, f_args, conv in ((torch, t_args, lambda v: v), (tl, l_args, _to_tl)):
        f = F if lib is torch else TF
        out = _call(f, _fn(case), f_args, kwargs, conv)
        g = conv(_rand(tuple(out.shape), 3)).requires_grad_()
        grads = lib.autograd.grad(out, f_args[:n], g, create_graph=True)
        total = sum((gr * conv(_rand(tuple(gr.shape), 4 + i))).sum() for i, gr in enumerate(grads))
        results.append(lib.autograd.grad(total, list(f_args[:n]) + [g], allow_unused=True))
    for mine, theirs in zip(results[1], results[0]):
        assert (mine is None) == (theirs is None)
        if theirs is not None:
            assert_same(mine, theirs)


def test_legacy_arguments_warn_as_torch():
    x, t = _rand((3, 4), 0), _classes((3,), 4, 1)
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        TF.cross_entropy(from_torch(x), from_torch(t), size_average=False)
    with pytest.warns(UserWarning, match="elementwise_mean"):
        TF.nll_loss(from_torch(x), from_torch(t), reduction="elementwise_mean")
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        TF.cross_entropy(from_torch(x), from_torch(t), reduction="avg")


def test_size_mismatch_warns_as_torch():
    x, t = from_torch(_rand((3, 4), 0)), from_torch(_rand((4,), 1))
    for name in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"):
        with pytest.warns(UserWarning, match="Using a target size"):
            getattr(TF, name)(x, t)


def _raises_like_torch(f_torch, f_tl, match=None):
    with pytest.raises(Exception) as expected:
        f_torch()
    with pytest.raises(type(expected.value), match=match) as actual:
        f_tl()
    return actual


@pytest.mark.parametrize("target", [[0, 5, 1], [0, -1, 1], [0, 4, 1]])
@pytest.mark.parametrize("name", ["cross_entropy", "nll_loss"])
def test_target_out_of_range_raises(name, target):
    x = _rand((3, 4), 0)
    t = torch.tensor(target)
    _raises_like_torch(lambda: getattr(F, name)(x, t), lambda: getattr(TF, name)(from_torch(x), from_torch(t)),
                       match=f"Target {[v for v in target if v not in range(4)][0]} is out of bounds")
    x4, t4 = _rand((1, 4, 1, 3), 0), torch.tensor([[target]])
    _raises_like_torch(lambda: getattr(F, name)(x4, t4), lambda: getattr(TF, name)(from_torch(x4), from_torch(t4)),
                       match="out of bounds")
    x1 = _rand((4,), 0)
    _raises_like_torch(lambda: getattr(F, name)(x1, t[1]), lambda: getattr(TF, name)(from_torch(x1), from_torch(t[1])),
                       match="out of bounds")


BAD = [
    ("batch", lambda f, lib: f.cross_entropy(lib.zeros(3, 4), lib.zeros(2, dtype=lib.int64))),
    ("target-shape", lambda f, lib: f.cross_entropy(lib.zeros(3, 4, 5), lib.zeros(3, 4, dtype=lib.int64))),
    ("target-dtype", lambda f, lib: f.nll_loss(lib.zeros(3, 4), lib.zeros(3, dtype=lib.int32))),
    ("float-target", lambda f, lib: f.nll_loss(lib.zeros(3, 4), lib.zeros(3))),
    ("weight-size", lambda f, lib: f.cross_entropy(lib.zeros(3, 4), lib.zeros(3, dtype=lib.int64), lib.ones(3))),
    ("weight-dtype", lambda f, lib: f.nll_loss(lib.zeros(3, 4), lib.zeros(3, dtype=lib.int64),
                                               lib.ones(4, dtype=lib.float64))),
    ("0-d", lambda f, lib: f.cross_entropy(lib.zeros(()), lib.zeros((), dtype=lib.int64))),
    ("int-input", lambda f, lib: f.cross_entropy(lib.zeros(3, 4, dtype=lib.int64), lib.zeros(3, dtype=lib.int64))),
    ("probs-int", lambda f, lib: f.cross_entropy(lib.zeros(3, 4), lib.zeros(3, 4, dtype=lib.int64))),
    ("probs-ignore", lambda f, lib: f.cross_entropy(lib.zeros(3, 4), lib.zeros(3, 4), ignore_index=1)),
    ("smoothing", lambda f, lib: f.cross_entropy(lib.zeros(3, 4), lib.zeros(3, dtype=lib.int64), label_smoothing=1.5)),
    ("nll-3d-target", lambda f, lib: f.nll_loss(lib.zeros(3, 4), lib.zeros(3, 2, dtype=lib.int64))),
    ("mse-shape", lambda f, lib: f.mse_loss(lib.zeros(3, 4), lib.zeros(5))),
    ("mse-int", lambda f, lib: f.mse_loss(lib.zeros(3, dtype=lib.int64), lib.zeros(3, dtype=lib.int64))),
    ("beta", lambda f, lib: f.smooth_l1_loss(lib.zeros(3), lib.zeros(3), beta=-1.0)),
    ("delta", lambda f, lib: f.huber_loss(lib.zeros(3), lib.zeros(3), delta=0.0)),
    ("weight-input", lambda f, lib: f.mse_loss(lib.zeros(3), lib.zeros(3), weight=lib.ones(2))),
    ("bce-range", lambda f, lib: f.binary_cross_entropy(lib.full((3,), 1.5), lib.zeros(3))),
    ("bce-nan", lambda f, lib: f.binary_cross_entropy(lib.full((3,), float("nan")), lib.zeros(3))),
    ("bce-size", lambda f, lib: f.binary_cross_entropy(lib.full((3,), 0.5), lib.zeros(4))),
    ("bcel-size", lambda f, lib: f.binary_cross_entropy_with_logits(lib.zeros(3), lib.zeros(4))),
    ("kl-int", lambda f, lib: f.kl_div(lib.zeros(3, dtype=lib.int64), lib.zeros(3, dtype=lib.int64))),
    ("gaussian-var", lambda f, lib: f.gaussian_nll_loss(lib.zeros(3, 2), lib.zeros(3, 2), lib.ones(2, 2))),
    ("gaussian-neg", lambda f, lib: f.gaussian_nll_loss(lib.zeros(3), lib.zeros(3), -1.0)),
    ("multi-margin-p", lambda f, lib: f.multi_margin_loss(lib.zeros(3, 4), lib.zeros(3, dtype=lib.int64), p=3)),
    ("multi-margin-target", lambda f, lib: f.multi_margin_loss(lib.zeros(3, 4), lib.tensor([0, 4, 1]))),
    ("multi-margin-size", lambda f, lib: f.multi_margin_loss(lib.zeros(3, 4), lib.tensor([0, 1]))),
    ("multilabel-size", lambda f, lib: f.multilabel_margin_loss(lib.zeros(3, 4), lib.zeros(3, 3, dtype=lib.int64))),
    ("cosine-dims", lambda f, lib: f.cosine_embedding_loss(lib.zeros(3, 4), lib.zeros(3, 4), lib.ones(3, 1))),
    ("cosine-2d", lambda f, lib: f.cosine_embedding_loss(lib.zeros(4), lib.zeros(4), lib.ones(3))),
    ("triplet-dims", lambda f, lib: f.triplet_margin_loss(lib.zeros(3, 4), lib.zeros(3, 4), lib.zeros(4))),
    ("triplet-margin", lambda f, lib: f.triplet_margin_loss(lib.zeros(3, 4), lib.zeros(3, 4), lib.zeros(3, 4),
                                                            margin=0.0)),
    ("ranking-dims", lambda f, lib: f.margin_ranking_loss(lib.zeros(3), lib.zeros(3), lib.zeros(3, 1))),
]


@pytest.mark.parametrize("case", [b[0] for b in BAD])
def test_errors_like_torch(case):
    call = dict(BAD)[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _raises_like_torch(lambda: call(F, torch), lambda: call(TF, tl))


def test_empty_batch_like_torch():
    for red in ("mean", "sum", "none"):
        x, t = torch.zeros(0, 4), torch.zeros(0, dtype=torch.int64)
        assert_same(TF.cross_entropy(from_torch(x), from_torch(t), reduction=red), F.cross_entropy(x, t, reduction=red))
        p = torch.zeros(0, 4)
        assert_same(TF.cross_entropy(from_torch(x), from_torch(p), reduction=red), F.cross_entropy(x, p, reduction=red))
        assert_same(TF.mse_loss(from_torch(p), from_torch(p), reduction=red), F.mse_loss(p, p, reduction=red))
    x5, t5 = torch.zeros(2, 3, 0, 2, 2), torch.zeros(2, 0, 2, 2, dtype=torch.int64)
    assert_same(TF.nll_loss(from_torch(x5), from_torch(t5), reduction="none"), F.nll_loss(x5, t5, reduction="none"))


def test_meta_shapes():
    x = tl.empty(5, 4, device="meta")
    t = tl.empty(5, dtype=tl.int64, device="meta")
    assert TF.cross_entropy(x, t).shape == ()
    assert TF.cross_entropy(x, t, reduction="none").shape == (5,)
    assert TF.nll_loss(tl.empty(2, 3, 4, 5, device="meta"), tl.empty(2, 4, 5, dtype=tl.int64, device="meta"),
                       reduction="none").shape == (2, 4, 5)
    assert TF.mse_loss(x, x, reduction="none").shape == (5, 4)
    assert TF.huber_loss(x, x).shape == ()
