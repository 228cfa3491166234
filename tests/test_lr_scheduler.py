"""torchlite.optim.lr_scheduler against torch's: the same learning rates (and momenta) step by step, float for
float, the same state_dict keys, and a state_dict round trip that resumes the schedule."""
import pickle
import warnings

import pytest
import torch

import torchlite as tl

SCHEDULES = [
    ("StepLR", dict(step_size=3, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[2, 5, 5, 9], gamma=0.3)),
    ("ConstantLR", dict(factor=0.25, total_iters=4)),
    ("LinearLR", dict(start_factor=0.2, end_factor=0.9, total_iters=7)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("PolynomialLR", dict(total_iters=8, power=2.0)),
    ("CosineAnnealingLR", dict(T_max=5, eta_min=0.001)),
    ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2, eta_min=0.01)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=3, mode="triangular2")),
    ("CyclicLR", dict(base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=2, step_size_down=5, mode="exp_range",
                      gamma=0.9)),
    ("OneCycleLR", dict(max_lr=0.5, total_steps=25)),
    ("OneCycleLR", dict(max_lr=[0.5, 0.2], total_steps=25, three_phase=True, anneal_strategy="linear")),
    ("LambdaLR", dict(lr_lambda=lambda e: 0.95 ** e + 0.01 * e)),
    ("MultiplicativeLR", dict(lr_lambda=lambda e: 0.9 if e % 2 else 1.01)),
]


def _optimizer(lib, name):
    a = lib.zeros(2, requires_grad=True)
    b = lib.zeros(3, requires_grad=True)
    groups = [{"params": [a]}, {"params": [b], "lr": 0.05}]
    if name == "Adam":
        return lib.optim.Adam(groups, lr=0.1)
    return lib.optim.SGD(groups, lr=0.1, momentum=0.9)


def _trajectory(lib, kind, options, steps=24, optimizer="SGD"):
    opt = _optimizer(lib, optimizer)
    sched = getattr(lib.optim.lr_scheduler, kind)(opt, **options)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(steps):
            opt.step()
            sched.step()
            out.append((sched.get_last_lr(), [g.get("momentum", g.get("betas")) for g in opt.param_groups]))
    return out


@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
@pytest.mark.parametrize("kind,options", SCHEDULES, ids=[f"{k}-{i}" for i, (k, _) in enumerate(SCHEDULES)])
def test_schedule_matches_torch(kind, options, optimizer):
    assert _trajectory(tl, kind, options, optimizer=optimizer) == _trajectory(torch, kind, options,
                                                                               optimizer=optimizer)


@pytest.mark.parametrize("kind,options", [s for s in SCHEDULES if s[0] in ("StepLR", "MultiStepLR", "ConstantLR",
                                                                            "LinearLR", "ExponentialLR",
                                                                            "PolynomialLR", "CosineAnnealingLR")])
def test_step_with_epoch_uses_the_closed_form(kind, options):
    results = []
    for lib in (tl, torch):
        opt = _optimizer(lib, "SGD")
        sched = getattr(lib.optim.lr_scheduler, kind)(opt, **options)
        seq = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in (3, 7, 1, 12):
                sched.step(epoch)
                seq.append(sched.get_last_lr())
        results.append(seq)
    assert results[0] == results[1]


def test_sequential_and_chained_match_torch():
    out = []
    for lib in (tl, torch):
        S = lib.optim.lr_scheduler
        opt = _optimizer(lib, "SGD")
        seq = S.SequentialLR(opt, [S.LinearLR(opt, start_factor=0.1, total_iters=3),
                                   S.CosineAnnealingLR(opt, T_max=6)], milestones=[3])
        opt2 = _optimizer(lib, "SGD")
        chain = S.ChainedScheduler([S.ExponentialLR(opt2, gamma=0.9), S.StepLR(opt2, step_size=2, gamma=0.5)])
        trace = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(12):
                opt.step(), opt2.step()
                seq.step(), chain.step()
                trace.append((seq.get_last_lr(), chain.get_last_lr()))
        out.append(trace)
    assert out[0] == out[1]


def test_reduce_on_plateau_matches_torch():
    metrics = [1.0, 0.9, 0.95, 0.96, 0.97, 0.89, 0.9, 0.91, 0.92, 0.93, 0.94, 0.5, 0.6, 0.7, 0.8, 0.9]
    out = []
    for lib in (tl, torch):
        opt = _optimizer(lib, "SGD")
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=2, factor=0.5, cooldown=1, min_lr=[0.01, 0.02])
        trace = []
        for m in metrics:
            sched.step(m)
            trace.append(sched.get_last_lr())
        out.append(trace)
    assert out[0] == out[1]


@pytest.mark.parametrize("kind,options", [s for s in SCHEDULES if s[0] not in ("LambdaLR", "MultiplicativeLR")],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_state_dict_keys_match_torch_and_resume(kind, options):
    ours = _optimizer(tl, "SGD")
    theirs = _optimizer(torch, "SGD")
    a = getattr(tl.optim.lr_scheduler, kind)(ours, **options)
    b = getattr(torch.optim.lr_scheduler, kind)(theirs, **options)
    assert sorted(a.state_dict()) == sorted(b.state_dict())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(4):
            ours.step(), a.step()
        saved = pickle.loads(pickle.dumps(a.state_dict()))
        expected = []
        for _ in range(5):
            ours.step(), a.step()
            expected.append(a.get_last_lr())
        fresh_opt = _optimizer(tl, "SGD")
        fresh = getattr(tl.optim.lr_scheduler, kind)(fresh_opt, **options)
        fresh.load_state_dict(saved)
        for g, lr in zip(fresh_opt.param_groups, saved["_last_lr"]):
            g["lr"] = lr
        got = []
        for _ in range(5):
            fresh_opt.step(), fresh.step()
            got.append(fresh.get_last_lr())
    assert got == expected


def test_scheduler_step_before_optimizer_step_warns():
    opt = _optimizer(tl, "SGD")
    sched = tl.optim.lr_scheduler.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()


@pytest.mark.parametrize("make,error,message", [
    (lambda o: tl.optim.lr_scheduler.StepLR("x", 2), TypeError, "str is not an Optimizer"),
    (lambda o: tl.optim.lr_scheduler.ConstantLR(o, factor=2.0), ValueError, "between 0 and 1"),
    (lambda o: tl.optim.lr_scheduler.LambdaLR(o, [lambda e: 1.0]), ValueError, "Expected 2 lr_lambdas, but got 1"),
    (lambda o: tl.optim.lr_scheduler.OneCycleLR(o, max_lr=0.1), ValueError, "You must define either total_steps"),
    (lambda o: tl.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=0), ValueError,
     "Expected positive integer T_0, but got 0"),
    (lambda o: tl.optim.lr_scheduler.ReduceLROnPlateau(o, factor=1.0), ValueError, "Factor should be < 1.0."),
    (lambda o: tl.optim.lr_scheduler.StepLR(o, 2, last_epoch=3), KeyError, "initial_lr"),
    (lambda o: tl.optim.lr_scheduler.CyclicLR(tl.optim.Adagrad([tl.zeros(1, requires_grad=True)]), 0.1, 1.0),
     ValueError, "optimizer must support momentum or beta1"),
])
def test_errors(make, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        make(_optimizer(tl, "SGD"))


def test_onecycle_too_many_steps():
    opt = _optimizer(tl, "SGD")
    sched = tl.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=2)
    opt.step()
    sched.step()
    sched.step()
    with pytest.raises(ValueError, match="Tried to step 3 times. The specified number of total steps is 2"):
        sched.step()
