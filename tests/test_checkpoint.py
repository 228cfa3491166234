"""torchlite.utils.checkpoint against the plain (not checkpointed) run and against torch: both
variants give the same outputs and gradients, recompute the forward in backward, replay the RNG
state (dropout), accept what PyTorch accepts and refuse what it refuses. Also the saved-tensor
hooks they build on (torchlite.autograd.graph)."""
import warnings

import pytest
import torch

import torchlite as tl
from tests.conftest import assert_same, from_torch
from torchlite.autograd.graph import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks
from torchlite.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential


def _model(lib, seed=0):
    lib.manual_seed(seed)
    return lib.nn.Sequential(lib.nn.Linear(5, 8), lib.nn.Tanh(), lib.nn.Dropout(0.3), lib.nn.Linear(8, 8),
                             lib.nn.GELU(), lib.nn.Linear(8, 3))


def _copy_weights(ours, theirs):
    ours.load_state_dict({k: from_torch(v) for k, v in theirs.state_dict().items()})


class Counting:
    def __init__(self, fn):
        self.fn, self.calls = fn, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.fn(*args, **kwargs)


@pytest.mark.parametrize("use_reentrant", [False, True])
@pytest.mark.parametrize("preserve", [True, False])
def test_gradients_equal_the_plain_run_and_forward_is_recomputed(use_reentrant, preserve):
    model = _model(tl)
    x = tl.randn(4, 5, requires_grad=True)
    tl.manual_seed(7)
    plain = model(x)
    plain.pow(2).sum().backward()
    expected = [x.grad.clone()] + [p.grad.clone() for p in model.parameters()]
    x.grad = None
    model.zero_grad()

    f = Counting(model)
    tl.manual_seed(7)
    out = checkpoint(f, x, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    assert f.calls == 1
    assert tl.equal(out, plain)
    tl.manual_seed(123)  # the stream moved on: only preserve_rng_state gives back the forward's mask
    out.pow(2).sum().backward()
    assert f.calls == 2
    got = [x.grad] + [p.grad for p in model.parameters()]
    same = all(tl.allclose(a, b, atol=1e-6) for a, b in zip(got, expected))
    assert same == preserve


def test_matches_torch_checkpoint():
    theirs = _model(torch)
    ours = _model(tl)
    _copy_weights(ours, theirs)
    ours.eval()
    theirs.eval()
    x_t = torch.randn(3, 5, requires_grad=True)
    x = from_torch(x_t.detach()).requires_grad_()
    for reentrant in (False, True):
        out_t = torch.utils.checkpoint.checkpoint(theirs, x_t, use_reentrant=reentrant)
        out = checkpoint(ours, x, use_reentrant=reentrant)
        assert_same(out.detach(), out_t.detach(), atol=1e-6, rtol=1e-5)
        out_t.sum().backward()
        out.sum().backward()
        assert_same(x.grad, x_t.grad, atol=1e-6, rtol=1e-5)
        for p, p_t in zip(ours.parameters(), theirs.parameters()):
            assert_same(p.grad, p_t.grad, atol=1e-6, rtol=1e-5)


def test_non_reentrant_works_with_autograd_grad_kwargs_and_captured_tensors():
    w = tl.randn(3, 3, requires_grad=True)
    x = tl.randn(2, 3, requires_grad=True)

    def f(a, *, scale):
        return (a @ w).sin() * scale

    def loss(run):
        return run(f, x, scale=2.5).exp().sum()

    expected = tl.autograd.grad(loss(lambda fn, *a, **k: fn(*a, **k)), (x, w))
    got = tl.autograd.grad(loss(lambda fn, *a, **k: checkpoint(fn, *a, use_reentrant=False, **k)), (x, w))
    for a, b in zip(got, expected):
        assert tl.allclose(a, b, atol=1e-6)


def test_non_reentrant_double_backward_and_retain_graph():
    x = tl.randn(4, dtype=tl.float64, requires_grad=True)
    f = Counting(lambda a: a.pow(3).sin())
    out = checkpoint(f, x, use_reentrant=False).sum()
    (g,) = tl.autograd.grad(out, x, create_graph=True)
    (g2,) = tl.autograd.grad(g.sum(), x)
    x_t = torch.tensor(x.detach().numpy(), requires_grad=True)
    (gt,) = torch.autograd.grad(x_t.pow(3).sin().sum(), x_t, create_graph=True)
    (g2t,) = torch.autograd.grad(gt.sum(), x_t)
    assert_same(g.detach(), gt.detach())
    assert_same(g2, g2t)
    out = checkpoint(f, x, use_reentrant=False).sum()
    (a,) = tl.autograd.grad(out, x, retain_graph=True)
    (b,) = tl.autograd.grad(out, x)
    assert tl.equal(a, b)


def test_non_tensor_and_multiple_outputs():
    x = tl.randn(3, requires_grad=True)
    y = tl.randn(3, requires_grad=True)
    for reentrant in (False, True):
        a, b, tag = checkpoint(lambda p, q, k: (p * q, (p + q).exp(), k), x, y, "keep", use_reentrant=reentrant)
        assert tag == "keep"
        (a.sum() + b.sum()).backward()
        assert tl.allclose(x.grad, y + (x + y).exp()) and tl.allclose(y.grad, x + (x + y).exp())
        x.grad = y.grad = None


def test_checkpoint_sequential_matches_plain_and_torch():
    theirs = _model(torch).eval()
    ours = _model(tl).eval()
    _copy_weights(ours, theirs)
    x_t = torch.randn(4, 5, requires_grad=True)
    x = from_torch(x_t.detach()).requires_grad_()
    for reentrant in (False, True):
        for segments in (1, 2, 3):
            out_t = torch.utils.checkpoint.checkpoint_sequential(theirs, segments, x_t, use_reentrant=reentrant)
            out = checkpoint_sequential(ours, segments, x, use_reentrant=reentrant)
            assert_same(out.detach(), out_t.detach(), atol=1e-6, rtol=1e-5)
            out.sum().backward()
            out_t.sum().backward()
            assert_same(x.grad, x_t.grad, atol=1e-5, rtol=1e-5)
            x.grad, x_t.grad = None, None


def test_use_reentrant_must_be_given_and_argument_errors():
    x = tl.randn(2, requires_grad=True)
    with pytest.warns(UserWarning, match="torch.utils.checkpoint: the use_reentrant parameter should be passed "
                                         "explicitly. Starting in PyTorch 2.9"):
        checkpoint(lambda a: a * 2, x)
    with pytest.warns(UserWarning, match="checkpoint_sequential: the use_reentrant parameter should be passed"):
        checkpoint_sequential([lambda a: a * 2], 1, x)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: k"):
        checkpoint(lambda a, k: a, x, k=1, use_reentrant=True)
    with pytest.raises(ValueError, match="Passing `context_fn` or `debug` is only supported when use_reentrant=False"):
        checkpoint(lambda a: a, x, use_reentrant=True, debug=True)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: k"):
        checkpoint_sequential([lambda a: a], 1, x, use_reentrant=False, k=1)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True. Gradients will be None"):
        checkpoint(lambda a: a * 2, tl.randn(2), use_reentrant=True)


def test_no_warning_when_use_reentrant_is_given():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpoint(lambda a: a * 2, tl.randn(2, requires_grad=True), use_reentrant=False)


def test_recomputation_that_saves_other_tensors_raises_checkpoint_error():
    x = tl.randn(3, requires_grad=True)
    state = {"first": True}

    def f(a):
        if state.pop("first", False):
            return a.exp()
        return (a * a).exp()          # the recomputation saves more tensors

    out = checkpoint(f, x, use_reentrant=False)
    with pytest.raises(CheckpointError, match="torch.utils.checkpoint"):
        out.sum().backward()


def test_non_reentrant_keeps_fewer_bytes():
    x = tl.randn(64, 64, requires_grad=True)

    def f(a):
        for _ in range(4):
            a = a.exp().sin()
        return a

    plain = f(x)
    ck = checkpoint(f, x, use_reentrant=False)
    assert tl.autograd.graph._saved_bytes(ck) < tl.autograd.graph._saved_bytes(plain)


def test_saved_tensors_hooks_pack_unpack_like_torch():
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        log = []

        def pack(t):
            log.append("pack")
            return t.detach() * 2      # a wrong value on purpose: unpack halves it

        def unpack(t):
            log.append("unpack")
            return t / 2

        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = (x.exp() * x).sum()
        y.backward()
        return log, x.grad

    log, g = run(tl)
    log_t, g_t = run(torch)
    assert log == log_t
    assert_same(g, g_t)


def test_saved_tensors_hooks_nesting_errors_and_save_on_cpu():
    x = tl.randn(3, requires_grad=True)
    outer, inner = [], []
    with saved_tensors_hooks(lambda t: outer.append(1) or t.detach(), lambda t: t):
        with saved_tensors_hooks(lambda t: inner.append(1) or t.detach(), lambda t: t):
            y = x.sin()
        z = x.cos()
    assert len(inner) == 1 and len(outer) == 1
    (y + z).sum().backward()
    assert tl.allclose(x.grad, x.cos() - x.sin())
    with saved_tensors_hooks(lambda t: t.detach(), lambda t: "not a tensor"):
        y = x.exp()
    with pytest.raises(TypeError, match="Output of saved tensor unpack_hook expected to be a Tensor but got result "
                                        "of type str"):
        y.sum().backward()
    with disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with save_on_cpu():
        y = x.pow(2)
    x.grad = None
    y.sum().backward()
    assert tl.allclose(x.grad, 2 * x)


def test_reentrant_refuses_autograd_grad_and_backward_inputs():
    x = tl.randn(3, requires_grad=True)
    message = "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad()"
    with pytest.raises(RuntimeError, match=message.replace("(", "\\(").replace(")", "\\)")):
        tl.autograd.grad(checkpoint(lambda a: a.sin(), x, use_reentrant=True).sum(), x)
    with pytest.raises(RuntimeError, match="passing an `inputs` parameter to .backward"):
        checkpoint(lambda a: a.sin(), x, use_reentrant=True).sum().backward(inputs=[x])
    checkpoint(lambda a: a.sin(), x, use_reentrant=True).sum().backward()
    assert tl.allclose(x.grad, x.cos())
    assert tl.autograd._is_checkpoint_valid()


def test_pack_hook_sees_the_saved_tensor_with_its_history_like_torch():
    def run(lib):
        a = lib.ones(3, requires_grad=True)
        x = a * 2
        seen = []

        def pack(t):
            seen.append((t is x, t is a, t.requires_grad, type(t.grad_fn).__name__ if t.grad_fn else None))
            return t.detach()

        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            lib.sin(x)
            a.exp()
        return seen

    assert run(tl) == run(torch)


def test_non_reentrant_context_fn_inputs_without_grad_and_no_grad_mode():
    import contextlib
    entered = []

    @contextlib.contextmanager
    def ctx(tag):
        entered.append(tag)
        yield

    lin = tl.nn.Linear(3, 2)
    x = tl.randn(4, 3)                       # the input needs no gradient; the parameters do
    out = checkpoint(lin, x, use_reentrant=False, context_fn=lambda: (ctx("forward"), ctx("recompute")))
    assert entered == ["forward"]
    out.pow(2).sum().backward()
    assert entered == ["forward", "recompute"]
    expected = tl.autograd.grad(lin(x).pow(2).sum(), lin.weight)[0]
    assert tl.allclose(lin.weight.grad, expected, atol=1e-6)
    f = Counting(lin)
    with tl.no_grad():
        y = checkpoint(f, x, use_reentrant=False)
    assert f.calls == 1 and not y.requires_grad
