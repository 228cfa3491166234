"""torchlite.autograd.functional against torch.autograd.functional: vjp, jvp, jacobian, hessian,
vhp and hvp on single and tuple inputs/outputs, with create_graph, strict, vectorize and both
jacobian strategies, and their argument errors."""
import pytest
import torch

import torchlite as tl
from tests.conftest import assert_same, from_torch


def _nested_same(ours, theirs):
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, tl.Tensor), type(ours)
        assert_same(ours.detach(), theirs.detach(), atol=1e-10, rtol=1e-7)
        return
    assert type(ours) is type(theirs) and type(ours) in (tuple, list), (type(ours), type(theirs))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        _nested_same(a, b)


def _inputs(shapes, seed=0):
    g = torch.Generator().manual_seed(seed)
    theirs = tuple(torch.rand(s, generator=g, dtype=torch.float64) + 0.5 for s in shapes)
    return tuple(from_torch(t) for t in theirs), theirs


# functions written once for both libraries (`lib` is torchlite or torch)
def f_single(lib):
    return lambda x: (x.exp() * x.sin()).sum(dim=-1)


def f_pair_to_pair(lib):
    return lambda x, y: (x * y.sum() + x.pow(2), (x.unsqueeze(1) * y).tanh())


def f_scalar(lib):
    return lambda x: (x.pow(3) * x.cos()).sum()


def f_scalar_pair(lib):
    return lambda x, y: (x.exp() * y.sum() + (x * x).sum() * y.prod()).sum()


CASES = [  # (function, input shapes, as tuple?)
    (f_single, [(3, 4)], False),
    (f_single, [(3, 4)], True),
    (f_pair_to_pair, [(3,), (2,)], True),
]
SCALAR_CASES = [(f_scalar, [(4,)], False), (f_scalar, [(2, 3)], True), (f_scalar_pair, [(3,), (2,)], True)]


def _call(fn_name, make_f, shapes, as_tuple, v_like=None, **kw):
    ours_in, theirs_in = _inputs(shapes)
    if not as_tuple:
        ours_in, theirs_in = ours_in[0], theirs_in[0]
    args_ours, args_theirs = [make_f(tl), ours_in], [make_f(torch), theirs_in]
    if v_like is not None:
        v_theirs = v_like(theirs_in, make_f(torch))
        v_ours = tuple(from_torch(v) for v in v_theirs) if isinstance(v_theirs, tuple) else from_torch(v_theirs)
        args_ours.append(v_ours)
        args_theirs.append(v_theirs)
    ours = getattr(tl.autograd.functional, fn_name)(*args_ours, **kw)
    theirs = getattr(torch.autograd.functional, fn_name)(*args_theirs, **kw)
    return ours, theirs


def _like_outputs(inputs, f):
    out = f(*inputs) if isinstance(inputs, tuple) else f(inputs)
    g = torch.Generator().manual_seed(1)
    if isinstance(out, tuple):
        return tuple(torch.randn(o.shape, generator=g, dtype=o.dtype) for o in out)
    return torch.randn(out.shape, generator=g, dtype=out.dtype)


def _like_inputs(inputs, f):
    g = torch.Generator().manual_seed(2)
    if isinstance(inputs, tuple):
        return tuple(torch.randn(i.shape, generator=g, dtype=i.dtype) for i in inputs)
    return torch.randn(inputs.shape, generator=g, dtype=inputs.dtype)


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("create_graph", [False, True])
def test_vjp(case, create_graph):
    f, shapes, as_tuple = CASES[case]
    ours, theirs = _call("vjp", f, shapes, as_tuple, _like_outputs, create_graph=create_graph)
    _nested_same(ours, theirs)
    if create_graph:  # differentiable: a second derivative through the result matches
        flat = ours[1] if isinstance(ours[1], tuple) else (ours[1],)
        assert all(t.requires_grad for t in flat)


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("create_graph", [False, True])
def test_jvp(case, create_graph):
    f, shapes, as_tuple = CASES[case]
    ours, theirs = _call("jvp", f, shapes, as_tuple, _like_inputs, create_graph=create_graph)
    _nested_same(ours, theirs)


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("vectorize", [False, True])
def test_jacobian(case, create_graph, vectorize):
    f, shapes, as_tuple = CASES[case]
    ours, theirs = _call("jacobian", f, shapes, as_tuple, create_graph=create_graph, vectorize=vectorize)
    _nested_same(ours, theirs)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_jacobian_forward_mode_strategy(case):
    f, shapes, as_tuple = CASES[case]
    ours, theirs = _call("jacobian", f, shapes, as_tuple, vectorize=True, strategy="forward-mode")
    _nested_same(ours, theirs)


@pytest.mark.parametrize("case", range(len(SCALAR_CASES)))
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("vectorize", [False, True])
def test_hessian(case, create_graph, vectorize):
    f, shapes, as_tuple = SCALAR_CASES[case]
    ours, theirs = _call("hessian", f, shapes, as_tuple, create_graph=create_graph, vectorize=vectorize)
    _nested_same(ours, theirs)


@pytest.mark.parametrize("case", range(len(SCALAR_CASES)))
@pytest.mark.parametrize("fn_name", ["vhp", "hvp"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_vhp_hvp(case, fn_name, create_graph):
    f, shapes, as_tuple = SCALAR_CASES[case]
    ours, theirs = _call(fn_name, f, shapes, as_tuple, _like_inputs, create_graph=create_graph)
    _nested_same(ours, theirs)


def test_create_graph_results_differentiate_like_torch():
    x_t = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
    x = from_torch(x_t.detach()).requires_grad_()
    _, h_t = torch.autograd.functional.hvp(lambda a: (a.pow(4)).sum(), x_t, torch.ones(3, dtype=torch.float64),
                                           create_graph=True)
    _, h = tl.autograd.functional.hvp(lambda a: (a.pow(4)).sum(), x, tl.ones(3, dtype=tl.float64), create_graph=True)
    assert h.grad_fn is not None
    (g_t,) = torch.autograd.grad(h_t.sum(), x_t)
    (g,) = tl.autograd.grad(h.sum(), x)
    assert_same(g, g_t)
    j_t = torch.autograd.functional.jacobian(lambda a: a.sin() * a, x_t, create_graph=True)
    j = tl.autograd.functional.jacobian(lambda a: a.sin() * a, x, create_graph=True)
    assert_same(tl.autograd.grad(j.sum(), x)[0], torch.autograd.grad(j_t.sum(), x_t)[0])


def test_results_have_no_history_without_create_graph():
    x = tl.rand(3, dtype=tl.float64, requires_grad=True)
    out, res = tl.autograd.functional.vjp(lambda a: a * 2, x, tl.ones(3, dtype=tl.float64))
    assert not out.requires_grad and not res.requires_grad
    j = tl.autograd.functional.jacobian(lambda a: a * 2, x)
    assert not j.requires_grad


def test_unused_inputs_give_zeros_and_strict_raises():
    def f(lib):
        return lambda x, y: x * 2
    for fn_name, extra in [("vjp", _like_outputs), ("jacobian", None)]:
        ours, theirs = _call(fn_name, f, [(3,), (2,)], True, extra)
        _nested_same(ours, theirs)
    x, y = tl.rand(3), tl.rand(2)
    with pytest.raises(RuntimeError, match="The output of the user-provided function is independent of input 1. "
                                           "This is not allowed in strict mode."):
        tl.autograd.functional.vjp(lambda a, b: a * 2, (x, y), tl.ones(3), strict=True)
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function is independent of input 1"):
        tl.autograd.functional.jacobian(lambda a, b: a * 2, (x, y), strict=True)
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function does not require gradients"):
        tl.autograd.functional.jacobian(lambda a: tl.ones(2), x, strict=True)
    with pytest.raises(RuntimeError, match="`strict=True` and `vectorized=True` are not supported together"):
        tl.autograd.functional.jacobian(lambda a: a * 2, x, strict=True, vectorize=True)
    with pytest.raises(RuntimeError, match="While computing the hessian, found that the jacobian"):
        tl.autograd.functional.hessian(lambda a: (a * 2).sum(), x, strict=True)
    # the same function linear in x: hessian zeros when not strict, as torch
    _nested_same(tl.autograd.functional.hessian(lambda a: (a * 2).sum(), x),
                 torch.autograd.functional.hessian(lambda a: (a * 2).sum(), torch.tensor(x.numpy())))


def _both_raise(fn_name, args_ours, args_theirs, kw=None):
    kw = kw or {}
    with pytest.raises(Exception) as theirs:
        getattr(torch.autograd.functional, fn_name)(*args_theirs, **kw)
    with pytest.raises(type(theirs.value)) as ours:
        getattr(tl.autograd.functional, fn_name)(*args_ours, **kw)
    expected = str(theirs.value).replace("torch.", "torchlite.").replace("<class 'torchlite.", "<class '")
    got = str(ours.value).replace("<class 'torchlite.", "<class '")
    assert got == expected.replace("<class 'torch.", "<class '"), (got, str(theirs.value))


def test_argument_errors_match_torch():
    x_t = torch.rand(3)
    x = from_torch(x_t)
    two = lambda a: a * 2  # noqa: E731
    _both_raise("vjp", (two, [x]), (two, [x_t]))
    _both_raise("vjp", (two, (x, 3)), (two, (x_t, 3)))
    _both_raise("vjp", (two, x), (two, x_t))                                    # v needed: 3 outputs
    _both_raise("vjp", (two, x, tl.ones(4)), (two, x_t, torch.ones(4)))         # wrong size
    _both_raise("vjp", (two, x, (tl.ones(3), tl.ones(3))), (two, x_t, (torch.ones(3), torch.ones(3))))
    _both_raise("vjp", (lambda a: (a, a), x, (tl.ones(3),)), (lambda a: (a, a), x_t, (torch.ones(3),)))
    _both_raise("vjp", (lambda a: 3, x), (lambda a: 3, x_t))
    _both_raise("jvp", (two, x), (two, x_t))
    _both_raise("jvp", (two, (x, x), (tl.ones(3), tl.ones(2))), (two, (x_t, x_t), (torch.ones(3), torch.ones(2))))
    _both_raise("hvp", (two, x, tl.ones(3)), (two, x_t, torch.ones(3)))        # not a single element
    _both_raise("vhp", (lambda a: (a.sum(), a.sum()), x, tl.ones(3)),
                (lambda a: (a.sum(), a.sum()), x_t, torch.ones(3)))
    _both_raise("hessian", (two, x), (two, x_t))
    _both_raise("jacobian", (two, x), (two, x_t), {"strategy": "sideways"})
    _both_raise("jacobian", (two, x), (two, x_t), {"strategy": "forward-mode"})  # needs vectorize=True
    _both_raise("jacobian", (two, x), (two, x_t), {"strategy": "forward-mode", "create_graph": True})
    _both_raise("jacobian", (two, x), (two, x_t), {"strategy": "forward-mode", "vectorize": True, "strict": True})


def test_inputs_are_not_modified_and_grad_mode_is_kept():
    x = tl.rand(3, dtype=tl.float64)
    with tl.no_grad():
        out, res = tl.autograd.functional.vjp(lambda a: a.exp(), x, tl.ones(3, dtype=tl.float64))
    assert not x.requires_grad and not res.requires_grad
    assert tl.allclose(res, x.exp())
    assert tl.is_grad_enabled()


def test_function_capturing_its_input_sees_a_new_tensor():
    x = tl.rand(3, dtype=tl.float64, requires_grad=True)
    # x captured by the closure is a different tensor from the argument: its contribution is constant
    ours = tl.autograd.functional.jacobian(lambda a: a * x, x)
    x_t = torch.tensor(x.detach().numpy(), requires_grad=True)
    theirs = torch.autograd.functional.jacobian(lambda a: a * x_t, x_t)
    _nested_same(ours, theirs)


def test_strict_messages_match_torch():
    x_t, y_t = torch.rand(3, dtype=torch.float64), torch.rand(2, dtype=torch.float64)
    x, y = from_torch(x_t), from_torch(y_t)
    lin = lambda a, b: a * 2  # noqa: E731
    _both_raise("jvp", (lin, (x, y), (tl.ones_like(x), tl.ones_like(y))),
                (lin, (x_t, y_t), (torch.ones_like(x_t), torch.ones_like(y_t))), {"strict": True})
    quad = lambda a, b: (a * a).sum()  # noqa: E731
    for name in ("vhp", "hvp"):
        _both_raise(name, (quad, (x, y), (tl.ones_like(x), tl.ones_like(y))),
                    (quad, (x_t, y_t), (torch.ones_like(x_t), torch.ones_like(y_t))), {"strict": True})
    const = lambda a: tl.ones(2, dtype=a.dtype) if isinstance(a, tl.Tensor) else torch.ones(2, dtype=a.dtype)  # noqa
    _both_raise("vjp", (const, x, tl.ones(2, dtype=tl.float64)), (const, x_t, torch.ones(2, dtype=torch.float64)),
                {"strict": True})
    _both_raise("jacobian", (lambda a: a * 2, x), (lambda a: a * 2, x_t), {"strict": True, "create_graph": True})


@pytest.mark.parametrize("case", range(len(SCALAR_CASES)))
def test_hessian_forward_mode_outer_strategy(case):
    f, shapes, as_tuple = SCALAR_CASES[case]
    ours, theirs = _call("hessian", f, shapes, as_tuple, vectorize=True, outer_jacobian_strategy="forward-mode")
    _nested_same(ours, theirs)
