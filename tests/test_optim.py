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
    from torchlite.optim.optimizer import register_optimizer_step_pre_hook  # torch.optim has no `optimizer` name
    g = register_optimizer_step_pre_hook(lambda o, a, k: calls.append("global-pre"))
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


# ---- the fused steps (torchlite's default for SGD, Adam, AdamW, Adagrad) ----------------------------------
FUSED = [c for c in CONFIGS if c[0] in ("SGD", "Adam", "AdamW", "Adagrad")]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,options", FUSED, ids=[f"{n}-{i}" for i, (n, _) in enumerate(FUSED)])
def test_single_tensor_path_matches_torch(name, options, dtype):
    # foreach=False selects the op-by-op path: PyTorch's own sequence of tensor ops.
    options = dict(options, foreach=False)
    _, _, ours = _run(tl, name, options, dtype, steps=12)
    _, _, theirs = _run(torch, name, options, dtype, steps=12)
    for a, b in zip(ours, theirs):
        for x, y in zip(a, b):
            np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=2e-6 if dtype == "float32" else 1e-13,
                                       atol=1e-7 if dtype == "float32" else 1e-15)


def _steps_with_grads(name, options, dtype, shape=(6, 5), transpose=False, steps=8):
    rng = np.random.default_rng(3)
    base = tl.tensor(rng.standard_normal(shape).astype("float32")).to(getattr(tl, dtype))
    p = (base.t() if transpose else base).detach().requires_grad_()
    opt = getattr(tl.optim, name)([p], **options)
    for k in range(steps):
        g = tl.tensor(rng.standard_normal(tuple(p.shape)).astype("float32")).to(getattr(tl, dtype))
        p.grad = g
        opt.step()
    return p.detach().double().numpy(), opt


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("name,options", FUSED, ids=[f"{n}-{i}" for i, (n, _) in enumerate(FUSED)])
def test_fused_step_equals_the_op_by_op_step(name, options, dtype):
    # Same rule, same float operations in the same order (Half/BFloat16 rounded where a tensor is stored).
    fused, _ = _steps_with_grads(name, dict(options, fused=True), dtype)
    single, _ = _steps_with_grads(name, dict(options, foreach=False), dtype)
    tol = {"float32": 1e-6, "float64": 1e-14, "float16": 2e-3, "bfloat16": 1.6e-2}[dtype]
    np.testing.assert_allclose(fused, single, rtol=tol, atol=tol)


@pytest.mark.parametrize("name,options", FUSED[::2], ids=[n for n, _ in FUSED[::2]])
def test_fused_step_on_non_contiguous_parameters(name, options):
    fused, opt = _steps_with_grads(name, dict(options, fused=True), "float64", transpose=True)
    single, _ = _steps_with_grads(name, dict(options, foreach=False), "float64", transpose=True)
    np.testing.assert_allclose(fused, single, rtol=1e-14, atol=1e-15)
    p = opt.param_groups[0]["params"][0]
    assert not p.is_contiguous()  # updated in place, strides kept


def test_fused_adam_op_matches_torch_with_grad_scale_and_found_inf():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(7).astype("float32") for _ in range(4)]
    for found in (0.0, 1.0):
        results = []
        for lib in (tl, torch):
            p, g, m, v = (lib.tensor(a.copy()) for a in arrays)
            v = v.abs()
            step = lib.tensor(3.0)
            lib._fused_adam_([p], [g], [m], [v], [], [step], lr=0.1, beta1=0.9, beta2=0.99, weight_decay=0.1,
                             eps=1e-8, amsgrad=False, maximize=False, grad_scale=lib.tensor(4.0),
                             found_inf=lib.tensor(found))
            results.append([t.numpy() for t in (p, g, m, v)])
        for x, y in zip(*results):
            np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-7)


def test_fused_sgd_op_matches_torch():
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(9).astype("float64") for _ in range(3)]
    for first in (True, False):
        results = []
        for lib in (tl, torch):
            p, g, b = (lib.tensor(a.copy()) for a in arrays)
            lib._fused_sgd_([p], [g], [b], weight_decay=0.1, momentum=0.9, lr=0.2, dampening=0.1, nesterov=False,
                            maximize=True, is_first_step=first)
            results.append([t.numpy() for t in (p, g, b)])
        for x, y in zip(*results):
            np.testing.assert_allclose(x, y, rtol=1e-14)


@pytest.mark.parametrize("call,message", [
    (lambda: tl._fused_sgd_([tl.ones(3)], [], [], weight_decay=0.0, momentum=0.0, lr=0.1, dampening=0.0,
                            nesterov=False, maximize=False, is_first_step=False),
     "_fused_sgd_: expected grads to hold one tensor per parameter \\(1\\), got 0"),
    (lambda: tl._fused_sgd_([tl.ones(3)], [tl.ones(4)], [], weight_decay=0.0, momentum=0.0, lr=0.1,
                            dampening=0.0, nesterov=False, maximize=False, is_first_step=False),
     "_fused_sgd_: grads\\[0\\] has shape \\[4\\] but its parameter has shape \\[3\\]"),
    (lambda: tl._fused_adam_([tl.ones(3)], [tl.ones(3)], [tl.ones(3, dtype=tl.float64)], [tl.ones(3)], [],
                             [tl.tensor(1.0)], lr=0.1, beta1=0.9, beta2=0.9, weight_decay=0.0, eps=1e-8,
                             amsgrad=False, maximize=False),
     "_fused_adam_: exp_avgs\\[0\\] has dtype float64 but its parameter has dtype float32"),
    (lambda: tl._fused_adagrad_([tl.ones(3, dtype=tl.int64)], [tl.ones(3, dtype=tl.int64)],
                                [tl.ones(3, dtype=tl.int64)], [tl.tensor(1.0)], lr=0.1, lr_decay=0.0,
                                weight_decay=0.0, eps=1e-8, maximize=False),
     "_fused_adagrad_: expected floating-point parameters"),
    (lambda: tl._fused_adam_([tl.ones(3)], [tl.ones(3)], [tl.ones(3)], [tl.ones(3)], [], [tl.tensor(1.0)],
                             lr=0.1, beta1=0.9, beta2=0.9, weight_decay=0.0, eps=1e-8, amsgrad=True, maximize=False),
     "_fused_adam_: expected max_exp_avg_sqs to hold one tensor per parameter"),
])
def test_fused_op_errors(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()


def test_fused_and_foreach_together_are_refused():
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together."):
        tl.optim.Adam([tl.ones(1, requires_grad=True)], fused=True, foreach=True)


def test_fused_step_refuses_leaves_requiring_grad_outside_no_grad():
    p = tl.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        tl._fused_sgd_([p], [tl.ones(3)], [], weight_decay=0.0, momentum=0.0, lr=0.1, dampening=0.0, nesterov=False,
                       maximize=False, is_first_step=False)
