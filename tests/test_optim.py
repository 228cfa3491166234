"""torchlite.optim against torch.optim: the same parameters, gradients and options give the same trajectory
(float32 and float64), the same state_dict layout, the same errors."""
import math

import numpy as np
import pytest
import torch

import torchlite as tl
from conftest import from_torch, to_torch

CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1, maximize=True)),
    ("Adam", dict()),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, amsgrad=True, maximize=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("AdamW", dict()),
    ("AdamW", dict(lr=0.01, amsgrad=True, weight_decay=0.5)),
    ("RMSprop", dict()),
    ("RMSprop", dict(lr=0.01, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, momentum=0.3, maximize=True)),
    ("Adagrad", dict()),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5, eps=1e-6)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1, maximize=True)),
    ("Adamax", dict()),
    ("Adamax", dict(lr=0.01, betas=(0.7, 0.8), weight_decay=0.1)),
    ("NAdam", dict()),
    ("NAdam", dict(lr=0.01, momentum_decay=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict()),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, betas=(0.5, 0.6))),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
]


def _params(lib, dtype, seed=0):
    rng = np.random.default_rng(seed)
    shapes = [(3, 4), (5,), ()]
    dt = getattr(lib, dtype)
    return [lib.tensor(rng.standard_normal(s).astype(dtype), dtype=dt).requires_grad_() for s in shapes]


def _loss(lib, params, k):
    # A loss whose gradient changes with the parameters and the step, so state matters.
    total = 0
    for i, p in enumerate(params):
        total = total + ((p - 0.1 * k) ** 2).sum() * (i + 1) + (p * (0.3 + 0.1 * i)).sin().sum()
    return total


def _run(lib, name, options, dtype, steps, groups=False):
    params = _params(lib, dtype)
    if groups:
        spec = [{"params": params[:2]}, {"params": params[2:], "lr": 0.003}]
    else:
        spec = params
    opt = getattr(lib.optim, name)(spec, **options)
    history = []
    for k in range(steps):
        opt.zero_grad()
        _loss(lib, params, k).backward()
        opt.step()
        history.append([p.detach().clone() for p in params])
    return opt, params, history


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,options", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_trajectory_matches_torch(name, options, dtype):
    _, _, ours = _run(tl, name, options, dtype, steps=12)
    _, _, theirs = _run(torch, name, options, dtype, steps=12)
    for step, (a, b) in enumerate(zip(ours, theirs)):
        for x, y in zip(a, b):
            np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=2e-6 if dtype == "float32" else 1e-13,
                                       atol=1e-7 if dtype == "float32" else 1e-15, err_msg=f"step {step}")


@pytest.mark.parametrize("name,options", CONFIGS[::3], ids=[n for n, _ in CONFIGS[::3]])
def test_state_dict_layout_matches_torch(name, options):
    ours, _, _ = _run(tl, name, options, "float32", steps=2, groups=True)
    theirs, _, _ = _run(torch, name, options, "float32", steps=2, groups=True)
    a, b = ours.state_dict(), theirs.state_dict()
    assert a["param_groups"] == b["param_groups"]
    assert a["state"].keys() == b["state"].keys()
    for index in a["state"]:
        assert list(a["state"][index]) == list(b["state"][index])
        for key, value in a["state"][index].items():
            other = b["state"][index][key]
            assert tuple(value.shape) == tuple(other.shape) and str(value.dtype) == str(other.dtype).replace(
                "torch.", "torchlite."), key
            np.testing.assert_allclose(value.numpy(), other.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name,options", [("Adam", dict(lr=0.01)), ("SGD", dict(lr=0.1, momentum=0.9)),
                                          ("Adagrad", dict(lr=0.1))])
def test_load_state_dict_resumes_the_trajectory(name, options):
    # 3 steps, save, load into a fresh optimizer over a copy of the parameters, 3 more: equals 6 straight steps.
    _, _, straight = _run(tl, name, options, "float64", steps=6)
    opt, params, _ = _run(tl, name, options, "float64", steps=3)
    saved = opt.state_dict()
    copies = [p.detach().clone().requires_grad_() for p in params]
    fresh = getattr(tl.optim, name)(copies, **options)
    fresh.load_state_dict(saved)
    for k in range(3, 6):
        fresh.zero_grad()
        _loss(tl, copies, k).backward()
        fresh.step()
    for x, y in zip(copies, straight[-1]):
        np.testing.assert_array_equal(x.detach().numpy(), y.numpy())


def test_load_state_dict_casts_state_to_the_parameter_dtype():
    p = tl.zeros(3, dtype=tl.float64, requires_grad=True)
    opt = tl.optim.Adam([p])
    p.grad = tl.ones(3, dtype=tl.float64)
    opt.step()
    sd = opt.state_dict()
    sd["state"][0]["exp_avg"] = sd["state"][0]["exp_avg"].float()
    q = tl.zeros(3, dtype=tl.float64, requires_grad=True)
    other = tl.optim.Adam([q])
    other.load_state_dict(sd)
    assert other.state[q]["exp_avg"].dtype == tl.float64
    assert other.state[q]["step"].dtype == tl.float32  # the step keeps its saved dtype


def test_load_state_dict_errors():
    a, b = tl.zeros(2, requires_grad=True), tl.zeros(2, requires_grad=True)
    opt = tl.optim.SGD([a, b], lr=0.1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict({"state": {}, "param_groups": []})
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt.load_state_dict(tl.optim.SGD([a], lr=0.1).state_dict())


def test_zero_grad():
    p = tl.ones(2, requires_grad=True)
    opt = tl.optim.SGD([p], lr=0.1)
    (p * 3).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert p.grad is not None and p.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert p.grad is None


def test_params_without_grad_are_skipped_and_closure_is_evaluated():
    p, q = tl.ones(2, requires_grad=True), tl.ones(2, requires_grad=True)
    opt = tl.optim.SGD([p, q], lr=0.5)

    def closure():
        opt.zero_grad()
        loss = (p * 2).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert loss.item() == 4.0
    assert p.tolist() == [0.0, 0.0] and q.tolist() == [1.0, 1.0]


def test_param_groups_and_named_parameters():
    a, b = tl.ones(2, requires_grad=True), tl.ones(3, requires_grad=True)
    opt = tl.optim.Adam([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    opt.add_param_group({"params": [tl.ones(1, requires_grad=True)], "betas": (0.5, 0.5)})
    assert opt.param_groups[2]["betas"] == (0.5, 0.5) and opt.param_groups[2]["lr"] == 0.1
    named = tl.optim.SGD([("w", a), ("v", b)], lr=0.1)
    assert named.param_groups[0]["param_names"] == ["w", "v"]
    assert named.state_dict()["param_groups"][0]["param_names"] == ["w", "v"]


@pytest.mark.parametrize("make,message,error", [
    (lambda p: tl.optim.SGD(p, lr=-1), "Invalid learning rate: -1", ValueError),
    (lambda p: tl.optim.SGD(p, lr=0.1, momentum=-1), "Invalid momentum value: -1", ValueError),
    (lambda p: tl.optim.SGD(p, lr=0.1, nesterov=True), "Nesterov momentum requires a momentum and zero dampening",
     ValueError),
    (lambda p: tl.optim.Adam(p, betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0", ValueError),
    (lambda p: tl.optim.Adam(p, eps=-1.0), "Invalid epsilon value: -1.0", ValueError),
    (lambda p: tl.optim.Adam(p, weight_decay=-1.0), "Invalid weight_decay value: -1.0", ValueError),
    (lambda p: tl.optim.Adadelta(p, rho=1.5), "Invalid rho value: 1.5", ValueError),
    (lambda p: tl.optim.SGD(p[0], lr=0.1), "should be an iterable of Tensors or dicts, but got "
     "torch.FloatTensor", TypeError),
    (lambda p: tl.optim.SGD([], lr=0.1), "optimizer got an empty parameter list", ValueError),
    (lambda p: tl.optim.SGD([{"params": set(p)}], lr=0.1), "organized in ordered collections", TypeError),
    (lambda p: tl.optim.SGD([p[0], 1.0], lr=0.1), "optimizer can only optimize Tensors, but one of the params is "
     "float", TypeError),
    (lambda p: tl.optim.SGD([p[0] * 2], lr=0.1), "can't optimize a non-leaf Tensor", ValueError),
    (lambda p: tl.optim.SGD([{"params": p[:1]}, {"params": p[:1]}], lr=0.1),
     "some parameters appear in more than one parameter group", ValueError),
])
def test_errors_match_torch(make, message, error):
    ours = [tl.ones(2, requires_grad=True)]
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        make(ours)


def test_step_hooks_run_in_order():
    p = tl.ones(2, requires_grad=True)
    opt = tl.optim.SGD([p], lr=0.1)
    calls = []
    h1 = opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    h2 = opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
    g = tl.optim.optimizer.register_optimizer_step_pre_hook(lambda o, a, k: calls.append("global-pre"))
    p.grad = tl.ones(2)
    opt.step()
    assert calls == ["global-pre", "pre", "post"]
    for h in (h1, h2, g):
        h.remove()
    opt.step()
    assert calls == ["global-pre", "pre", "post"]


def test_repr_matches_torch():
    ours = tl.optim.SGD([tl.ones(1, requires_grad=True)], lr=0.1, momentum=0.9)
    theirs = torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=0.1, momentum=0.9)
    assert repr(ours) == repr(theirs)


def test_step_runs_without_recording_autograd():
    p = tl.ones(2, requires_grad=True)
    opt = tl.optim.Adam([p], lr=0.1)
    p.grad = tl.ones(2)
    opt.step()
    assert p.grad_fn is None and p.requires_grad and p.is_leaf
