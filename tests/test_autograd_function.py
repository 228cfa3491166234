"""Custom autograd functions (torchlite.autograd.Function) against PyTorch's."""
import gc
import weakref

import numpy as np
import pytest
import torch

import torchlite as tl


def pair(shape, seed=0, requires_grad=True):
    a = np.random.default_rng(seed).standard_normal(shape)
    return (tl.tensor(a.tolist(), dtype=tl.float64, requires_grad=requires_grad),
            torch.tensor(a, requires_grad=requires_grad))


def np_of(t):
    return np.asarray(t.detach().tolist(), dtype=np.float64)


def assert_close(a, b, rtol=1e-7, atol=1e-10):
    assert a is not None and b is not None
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(np_of(a), b.detach().double().numpy(), rtol=rtol, atol=atol)


def functions(m):
    """The same custom Functions written for torchlite (m=tl) and torch (m=torch)."""
    F = m.autograd.Function

    class Exp(F):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    class MulScale(F):
        """x * y * k with a non-tensor argument, returning (tensor, int, tensor)."""

        @staticmethod
        def forward(ctx, x, k, y):
            ctx.save_for_backward(x, y)
            ctx.k = k
            return x * y * k, 7, x + y

        @staticmethod
        def backward(ctx, g1, g_int, g2):
            assert g_int is None
            x, y = ctx.saved_tensors
            return g1 * y * ctx.k + g2, None, g1 * x * ctx.k + g2

    class Cube(F):
        """Backward made of differentiable ops: works with create_graph."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x * x

    class AddOneInplace(F):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    class SortLike(F):
        """Two outputs, the second non-differentiable."""

        @staticmethod
        def forward(ctx, x):
            idx = (x > 0).to(m.int64)
            out = x * 2
            ctx.mark_non_differentiable(idx)
            return out, idx

        @staticmethod
        def backward(ctx, g, g_idx):
            return g * 2

    class NoneGrad(F):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return None, g

    class NoMaterialize(F):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 1, x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            ctx.seen = (g1 is None, g2 is None)
            out = m.zeros_like(g1 if g1 is not None else g2)
            if g1 is not None:
                out = out + g1
            if g2 is not None:
                out = out + 2 * g2
            return out

    class Materialize(F):
        @staticmethod
        def forward(ctx, x):
            return x * 1, x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            ctx.seen = (g1 is None, g2 is None)
            return g1 + 2 * g2

    class Identity(F):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return 3 * g

    class OnceSquare(F):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @m.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * g * x

    class WrongCount(F):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g

    class TooMany(F):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * 2, None, g

    class ExtraNones(F):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * 2, None, None

    class GradForNonTensor(F):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * 2, g

    class ReturnsStr(F):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return "a"

    class NeedsInputGrad(F):
        @staticmethod
        def forward(ctx, x, k, y):
            ctx.flags = ctx.needs_input_grad
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g, None, g

    class SetupCtx(F):
        @staticmethod
        def forward(x, y):
            return x * y

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y, g * x

    return {k: v for k, v in locals().items() if isinstance(v, type)}


TL = functions(tl)
TORCH = functions(torch)


def test_exp_matches_torch_and_grad_fn_name():
    x, xt = pair((3, 2))
    y, yt = TL["Exp"].apply(x), TORCH["Exp"].apply(xt)
    assert_close(y, yt)
    assert y.grad_fn.name() == yt.grad_fn.name() == "ExpBackward"
    assert type(y.grad_fn).__name__ == "ExpBackward"
    assert not y.is_leaf and y.requires_grad
    (y * y).sum().backward()
    (yt * yt).sum().backward()
    assert_close(x.grad, xt.grad)
    assert len(y.grad_fn.next_functions) == len(yt.grad_fn.next_functions) == 1
    assert y.grad_fn.next_functions[0][0].name() == "AccumulateGrad"


def test_non_tensor_args_and_outputs():
    x, xt = pair((4,), 1)
    y, yt = pair((4,), 2)
    a, n, b = TL["MulScale"].apply(x, 2.5, y)
    at, nt, bt = TORCH["MulScale"].apply(xt, 2.5, yt)
    assert n == nt == 7
    assert_close(a, at)
    assert_close(b, bt)
    ((a * 3).sum() + (b * b).sum()).backward()
    ((at * 3).sum() + (bt * bt).sum()).backward()
    assert_close(x.grad, xt.grad)
    assert_close(y.grad, yt.grad)


def test_needs_input_grad():
    x, xt = pair((2,))
    y, yt = pair((2,), requires_grad=False)
    out = TL["NeedsInputGrad"].apply(x, 3, y)
    out_t = TORCH["NeedsInputGrad"].apply(xt, 3, yt)
    assert out.grad_fn.flags == out_t.grad_fn.flags == (True, False, False)
    assert out.grad_fn.needs_input_grad == out_t.grad_fn.needs_input_grad


def test_no_input_requires_grad_records_nothing():
    x, xt = pair((2,), requires_grad=False)
    y, yt = TL["Exp"].apply(x), TORCH["Exp"].apply(xt)
    assert y.grad_fn is None and yt.grad_fn is None
    assert not y.requires_grad and not yt.requires_grad
    x2, _ = pair((2,))
    with tl.no_grad():
        assert TL["Exp"].apply(x2).grad_fn is None


def test_create_graph_double_backward():
    x, xt = pair((3,), 3)
    y, yt = TL["Cube"].apply(x), TORCH["Cube"].apply(xt)
    (g,) = tl.autograd.grad(y.sum(), x, create_graph=True)
    (gt,) = torch.autograd.grad(yt.sum(), xt, create_graph=True)
    assert_close(g, gt)
    assert g.requires_grad
    (gg,) = tl.autograd.grad(g.sum(), x)
    (ggt,) = torch.autograd.grad(gt.sum(), xt)
    assert_close(gg, ggt)


def test_saved_output_double_backward():
    x, xt = pair((3,), 4)
    y, yt = TL["Exp"].apply(x), TORCH["Exp"].apply(xt)
    (g,) = tl.autograd.grad(y.sum(), x, create_graph=True)
    (gt,) = torch.autograd.grad(yt.sum(), xt, create_graph=True)
    (gg,) = tl.autograd.grad(g.sum(), x)
    (ggt,) = torch.autograd.grad(gt.sum(), xt)
    assert_close(gg, ggt)


def test_mark_dirty_inplace():
    x, xt = pair((3,), 5)
    a, at = x * 2, xt * 2
    b, bt = TL["AddOneInplace"].apply(a), TORCH["AddOneInplace"].apply(at)
    assert b is a and bt is at
    assert b.grad_fn.name() == bt.grad_fn.name() == "AddOneInplaceBackward"
    assert a._version == at._version
    (b * b).sum().backward()
    (bt * bt).sum().backward()
    assert_close(x.grad, xt.grad)


def test_mark_dirty_on_view():
    x, xt = pair((2, 3), 6)
    a, at = x * 1, xt * 1
    TL["AddOneInplace"].apply(a[0])
    TORCH["AddOneInplace"].apply(at[0])
    assert type(a.grad_fn).__name__ == type(at.grad_fn).__name__ == "CopySlices"
    (a * a).sum().backward()
    (at * at).sum().backward()
    assert_close(x.grad, xt.grad)


def test_mark_dirty_leaf_raises():
    x, xt = pair((3,))
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        TORCH["AddOneInplace"].apply(xt)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        TL["AddOneInplace"].apply(x)


def test_mark_non_differentiable():
    x, xt = pair((4,), 7)
    out, idx = TL["SortLike"].apply(x)
    out_t, idx_t = TORCH["SortLike"].apply(xt)
    assert not idx.requires_grad and not idx_t.requires_grad
    assert out.requires_grad and out_t.requires_grad
    out.sum().backward()
    out_t.sum().backward()
    assert_close(x.grad, xt.grad)


def test_backward_returning_none():
    x, xt = pair((3,), 8)
    y, yt = pair((3,), 9)
    TL["NoneGrad"].apply(x, y).sum().backward()
    TORCH["NoneGrad"].apply(xt, yt).sum().backward()
    assert x.grad is None and xt.grad is None
    assert_close(y.grad, yt.grad)


@pytest.mark.parametrize("name", ["NoMaterialize", "Materialize"])
def test_materialize_grads(name):
    x, xt = pair((3,), 10)
    a, _ = TL[name].apply(x)
    at, _ = TORCH[name].apply(xt)
    a.sum().backward()
    at.sum().backward()
    assert a.grad_fn.seen == at.grad_fn.seen
    assert_close(x.grad, xt.grad)


def test_identity_returns_new_tensor():
    x, xt = pair((3,), 11)
    y, yt = TL["Identity"].apply(x), TORCH["Identity"].apply(xt)
    assert y is not x and yt is not xt
    assert y.grad_fn.name() == yt.grad_fn.name() == "IdentityBackward"
    y.sum().backward()
    yt.sum().backward()
    assert_close(x.grad, xt.grad)


def test_setup_context_style():
    x, xt = pair((3,), 12)
    y, yt = pair((3,), 13)
    TL["SetupCtx"].apply(x, y).sum().backward()
    TORCH["SetupCtx"].apply(xt, yt).sum().backward()
    assert_close(x.grad, xt.grad)
    assert_close(y.grad, yt.grad)


def test_once_differentiable():
    x, xt = pair((3,), 14)
    y, yt = TL["OnceSquare"].apply(x), TORCH["OnceSquare"].apply(xt)
    # the gradient flowing in requires grad, so the backward's result would be differentiable
    gy, gyt = tl.ones((), dtype=tl.float64, requires_grad=True), torch.ones((), dtype=torch.float64,
                                                                            requires_grad=True)
    (g,) = tl.autograd.grad(y.sum(), x, grad_outputs=gy, create_graph=True)
    (gt,) = torch.autograd.grad(yt.sum(), xt, grad_outputs=gyt, create_graph=True)
    assert_close(g, gt)
    assert g.requires_grad and gt.requires_grad
    with pytest.raises(RuntimeError, match="marked with @once_differentiable"):
        gt.sum().backward()
    with pytest.raises(RuntimeError, match="marked with @once_differentiable"):
        g.sum().backward()
    # without create_graph it is an ordinary backward
    x2, xt2 = pair((3,), 15)
    TL["OnceSquare"].apply(x2).sum().backward()
    TORCH["OnceSquare"].apply(xt2).sum().backward()
    assert_close(x2.grad, xt2.grad)


@pytest.mark.parametrize("name,match", [
    ("WrongCount", r"function WrongCountBackward returned an incorrect number of gradients \(expected 2, got 1\)"),
    ("TooMany", r"function TooManyBackward returned an incorrect number of gradients \(expected 2, got 3\)"),
    ("GradForNonTensor", r"returned a gradient different than None at position 2, but the corresponding "
                         r"forward input was not a Variable"),
    ("ReturnsStr", r"expected Variable or None \(got str\)"),
])
def test_bad_backward_results(name, match):
    args = {"WrongCount": 2, "ReturnsStr": 1}.get(name)
    x, xt = pair((2,))
    if args == 2:
        y, yt = TL[name].apply(x, x), TORCH[name].apply(xt, xt)
    elif args == 1:
        y, yt = TL[name].apply(x), TORCH[name].apply(xt)
    else:
        y, yt = TL[name].apply(x, 3.0), TORCH[name].apply(xt, 3.0)
    with pytest.raises(RuntimeError, match=match):
        yt.sum().backward()
    with pytest.raises(RuntimeError, match=match):
        y.sum().backward()


def test_extra_none_gradients_allowed():
    x, xt = pair((2,))
    TL["ExtraNones"].apply(x, 3.0).sum().backward()
    TORCH["ExtraNones"].apply(xt, 3.0).sum().backward()
    assert_close(x.grad, xt.grad)


def test_wrong_gradient_shape():
    F = tl.autograd.Function

    class Bad(F):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return tl.ones(5, dtype=tl.float64)

    class BadT(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return torch.ones(5, dtype=torch.float64)

    x, xt = pair((3,))
    with pytest.raises(RuntimeError, match="returned an invalid gradient at index 0"):
        BadT.apply(xt).sum().backward()
    with pytest.raises(RuntimeError, match="returned an invalid gradient at index 0"):
        Bad.apply(x).sum().backward()


def test_saved_tensor_modified_inplace():
    x, xt = pair((3,), 16)
    a, at = x * 1, xt * 1
    y, yt = TL["Cube"].apply(a), TORCH["Cube"].apply(at)
    a.mul_(2)
    at.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        yt.sum().backward()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_saved_tensors_freed_after_backward():
    x, xt = pair((3,), 17)
    y, yt = TL["Exp"].apply(x), TORCH["Exp"].apply(xt)
    y.sum().backward()
    yt.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        yt.grad_fn.saved_tensors
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.grad_fn.saved_tensors
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.sum().backward()


def test_retain_graph_runs_twice():
    x, xt = pair((3,), 18)
    y, yt = TL["Exp"].apply(x), TORCH["Exp"].apply(xt)
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    yt.sum().backward(retain_graph=True)
    yt.sum().backward()
    assert_close(x.grad, xt.grad)


def test_saved_bytes_and_no_cycle():
    x, _ = pair((1000,))
    y = TL["Exp"].apply(x)
    assert y.grad_fn.saved_bytes() == 8000
    assert tl.autograd.graph._saved_bytes(y) == 8000
    ref = weakref.ref(y.grad_fn)
    ctx_ref = weakref.ref(y.grad_fn.__class__)  # the class lives on; the node must not
    del ctx_ref
    node_alive = [weakref.ref(y)]
    del y
    gc.collect()
    assert node_alive[0]() is None
    assert ref() is None


def test_ctx_freed_with_graph():
    x, _ = pair((10,))
    y = TL["Exp"].apply(x)
    # The ctx is reachable through the node's attributes; keep only a weak reference to it.
    saved = y.grad_fn.saved_tensors
    assert len(saved) == 1
    del saved
    z = y * 2
    del y
    z.sum().backward()
    del z
    gc.collect()
    assert tl.autograd.graph._saved_bytes(x) == 0


def test_function_in_chain_with_ops():
    x, xt = pair((2, 3), 19)
    w, wt = pair((3,), 20)
    out = TL["Exp"].apply(x * w).sum(0)
    out_t = TORCH["Exp"].apply(xt * wt).sum(0)
    (out * out).sum().backward()
    (out_t * out_t).sum().backward()
    assert_close(x.grad, xt.grad)
    assert_close(w.grad, wt.grad)


def test_gradcheck_custom_function():
    x, _ = pair((3,), 21)
    assert tl.autograd.gradcheck(TL["Cube"].apply, (x,))
    assert tl.autograd.gradgradcheck(TL["Cube"].apply, (x,))
