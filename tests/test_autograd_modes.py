"""inference_mode, anomaly detection, the top-level grad-mode names, the Tensor autograd API
(.data, detach_, requires_grad_, hooks, grad setter), graph memory, and bad input to backward:
all against PyTorch."""
import gc
import threading
import warnings
import weakref

import numpy as np
import pytest
import torch

import torchlite as tl


def pair(shape, seed=0, requires_grad=True):
    a = np.random.default_rng(seed).standard_normal(shape)
    return (tl.tensor(a.tolist(), dtype=tl.float32, requires_grad=requires_grad),
            torch.tensor(a, dtype=torch.float32, requires_grad=requires_grad))


def both_raise(fn_tl, fn_torch, exc, match):
    """fn_torch raises `exc` matching `match` (checks the oracle), and so does fn_tl."""
    with pytest.raises(exc, match=match):
        fn_torch()
    with pytest.raises(exc, match=match):
        fn_tl()


# ---- top-level names --------------------------------------------------------------------

@pytest.mark.parametrize("name", ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
                                  "inference_mode", "is_inference_mode_enabled"])
def test_top_level_exports(name):
    assert hasattr(torch, name)
    # the state queries are torch's top-level names only (torch.autograd has no is_grad_enabled)
    assert hasattr(tl.autograd, name) == hasattr(torch.autograd, name)
    if hasattr(torch.autograd, name):
        assert getattr(tl, name) is getattr(tl.autograd, name)


# ---- inference mode -------------------------------------------------------------------------

@pytest.mark.parametrize("m", [tl, torch])
def test_inference_mode_context(m):
    x = m.ones(2, requires_grad=True)
    assert not m.is_inference_mode_enabled()
    with m.inference_mode():
        assert m.is_inference_mode_enabled()
        assert not m.is_grad_enabled()
        y = x * 2
        with m.inference_mode(False):
            assert not m.is_inference_mode_enabled()
    assert not m.is_inference_mode_enabled() and m.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None
    assert y.is_inference() and not x.is_inference()


@pytest.mark.parametrize("m", [tl, torch])
def test_inference_mode_decorator(m):
    @m.inference_mode()
    def f(x):
        return x * 2, m.is_inference_mode_enabled()

    @m.inference_mode
    def g(x):
        return x * 2

    x = m.ones(2, requires_grad=True)
    y, flag = f(x)
    assert flag and not y.requires_grad
    assert not g(x).requires_grad
    assert not m.is_inference_mode_enabled()


def test_inference_mode_thread_local():
    seen = []
    with tl.inference_mode():
        t = threading.Thread(target=lambda: seen.append((tl.is_inference_mode_enabled(), tl.is_grad_enabled())))
        t.start()
        t.join()
    assert seen == [(False, True)]


def test_inference_tensor_cannot_be_saved():
    with tl.inference_mode():
        t = tl.ones(2)
    with torch.inference_mode():
        tt = torch.ones(2)
    a, at = pair((2,))
    both_raise(lambda: a * t, lambda: at * tt, RuntimeError, "Inference tensors cannot be saved for backward")
    # not saved: fine in both
    assert (a + t).requires_grad and (at + tt).requires_grad


def test_inference_tensor_requires_grad_and_inplace():
    with tl.inference_mode():
        t = tl.ones(2)
    with torch.inference_mode():
        tt = torch.ones(2)
    both_raise(lambda: t.requires_grad_(), lambda: tt.requires_grad_(), RuntimeError,
               "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed")
    a, at = pair((2,))
    both_raise(lambda: t.add_(a), lambda: tt.add_(at), RuntimeError,
               "Inplace update to inference tensor outside InferenceMode is not allowed")
    with tl.inference_mode():
        t.add_(1)  # inside inference mode it is fine
    assert t.tolist() == [2.0, 2.0]


def test_inference_view_of_normal_tensor_is_not_inference():
    x, xt = tl.ones(3), torch.ones(3)
    with tl.inference_mode():
        v = x[0:2]
    with torch.inference_mode():
        vt = xt[0:2]
    assert v.is_inference() == vt.is_inference()


# ---- anomaly mode ---------------------------------------------------------------------------

@pytest.mark.parametrize("m", [tl, torch])
def test_detect_anomaly_flags(m):
    assert not m.is_anomaly_enabled()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with m.autograd.detect_anomaly():
            assert m.is_anomaly_enabled()
            assert m.is_anomaly_check_nan_enabled()
        with m.autograd.detect_anomaly(check_nan=False):
            assert not m.is_anomaly_check_nan_enabled()
    assert not m.is_anomaly_enabled()
    m.autograd.set_detect_anomaly(True)
    assert m.is_anomaly_enabled()
    m.autograd.set_detect_anomaly(False)
    assert not m.is_anomaly_enabled()
    with m.autograd.set_detect_anomaly(True):
        assert m.is_anomaly_enabled()
    assert not m.is_anomaly_enabled()


def test_detect_anomaly_nan_names_node_and_forward_stack():
    for m in (torch, tl):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        z = m.tensor([0.0, 1.0])
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with m.autograd.detect_anomaly():
                y = x / z                       # DivBackward0: grad_x = g / z = inf, grad ok
                out = (y * 0).sum()            # MulBackward0: grad_y = g * 0 = 0 -> 0 / 0 = nan in DivBackward0
                with pytest.raises(RuntimeError, match="Function 'DivBackward0' returned nan values in its 0th "
                                                       "output."):
                    out.backward()
        msgs = [str(x.message) for x in w]
        assert any("Traceback of forward call that caused the error" in s and "y = x / z" in s for s in msgs), msgs


def test_anomaly_off_nan_passes_silently():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    z = tl.tensor([0.0, 1.0])
    ((x / z) * 0).sum().backward()
    assert np.isnan(x.grad.tolist()[0])


def test_anomaly_records_traceback_metadata():
    x = tl.ones(2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with tl.autograd.detect_anomaly():
            y = x * 2
    assert "traceback_" in y.grad_fn.metadata
    assert any("y = x * 2" in line for line in y.grad_fn.metadata["traceback_"])
    assert "traceback_" not in (x * 3).grad_fn.metadata


def test_anomaly_custom_function_error_warns():
    class Boom(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")

    x = tl.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with tl.autograd.detect_anomaly():
            y = Boom.apply(x)  # marker: Boom.apply
            with pytest.raises(ValueError, match="boom"):
                y.sum().backward()
    assert any("Error detected in BoomBackward" in str(m.message) and "Boom.apply(x)" in str(m.message) for m in w)


# ---- Tensor API -------------------------------------------------------------------------------

def test_data_getter_new_version_counter():
    for m in (tl, torch):
        x = m.ones(3, requires_grad=True)
        d = x.data
        assert not d.requires_grad and d.is_leaf
        v = x._version
        d.add_(1)
        assert x._version == v  # .data has its own version counter
        assert x.tolist() == [2.0, 2.0, 2.0]


def test_data_setter():
    for m in (tl, torch):
        x = m.ones(3, requires_grad=True)
        x.data = m.zeros(5)
        assert x.shape == (5,) and x.requires_grad
        assert x.tolist() == [0.0] * 5


def test_detach_():
    for m in (tl, torch):
        x = m.ones(3, requires_grad=True)
        y = x * 2
        assert y.detach_() is y
        assert y.is_leaf and not y.requires_grad and y.grad_fn is None
        v = (x * 2)[0:2]
        with pytest.raises(RuntimeError, match="Can't detach views in-place. Use detach\\(\\) instead"):
            v.detach_()


def test_requires_grad_on_non_leaf():
    x, xt = pair((2,))
    y, yt = x * 2, xt * 2
    both_raise(lambda: y.requires_grad_(False), lambda: yt.requires_grad_(False), RuntimeError,
               "you can only change requires_grad flags of leaf variables")
    y.requires_grad_(True)
    yt.requires_grad_(True)
    both_raise(lambda: setattr(tl.ones(2, dtype=tl.int64), "requires_grad", True),
               lambda: setattr(torch.ones(2, dtype=torch.int64), "requires_grad", True), RuntimeError,
               "only Tensors of floating point")


def test_hook_changing_size_names_hook():
    def my_hook(g):
        return g.new_ones(3) if hasattr(g, "new_ones") else None

    for leaf in (True, False):
        x, xt = pair((2,))
        a, at = (x, xt) if leaf else (x * 1, xt * 1)
        a.register_hook(my_hook)
        at.register_hook(my_hook)
        both_raise(lambda: (a * 2).sum().backward(), lambda: (at * 2).sum().backward(), RuntimeError,
                   "hook 'my_hook' has changed the size of value")


def test_hook_changing_dtype():
    x, xt = pair((2,))
    x.register_hook(lambda g: g.double())
    xt.register_hook(lambda g: g.double())
    both_raise(lambda: (x * 2).sum().backward(), lambda: (xt * 2).sum().backward(), RuntimeError,
               "hook '<lambda>' has changed the type of value")


def test_grad_setter_checks():
    x, xt = pair((2,))
    both_raise(lambda: setattr(x, "grad", tl.ones(3)), lambda: setattr(xt, "grad", torch.ones(3)), RuntimeError,
               "assigned grad has data of a different size|attempting to assign a gradient of size")
    both_raise(lambda: setattr(x, "grad", tl.ones(2, dtype=tl.float64)),
               lambda: setattr(xt, "grad", torch.ones(2, dtype=torch.float64)), RuntimeError,
               "assigned grad has data of a different type|attempting to assign a gradient with dtype")
    x.grad = tl.ones(2)
    xt.grad = torch.ones(2)
    assert x.grad.tolist() == xt.grad.tolist()


# ---- bad input to backward -------------------------------------------------------------------

def test_backward_on_tensor_without_grad():
    both_raise(lambda: tl.ones(2).sum().backward(), lambda: torch.ones(2).sum().backward(), RuntimeError,
               "does not require grad and does not have a grad_fn")


def test_backward_non_scalar_without_gradient():
    x, xt = pair((3,))
    both_raise(lambda: (x * 2).backward(), lambda: (xt * 2).backward(), RuntimeError,
               "grad can be implicitly created only for scalar outputs")


def test_backward_gradient_wrong_shape():
    x, xt = pair((3,))
    both_raise(lambda: (x * 2).backward(tl.ones(4)), lambda: (xt * 2).backward(torch.ones(4)), RuntimeError,
               r"Mismatch in shape: grad_output\[0\] has a shape of .*4.* and output\[0\] has a shape of .*3")


@pytest.mark.parametrize("dtype", ["float64", "int64", "bool"])
def test_backward_gradient_other_dtype(dtype):
    # PyTorch accepts a gradient of another dtype (even integer or bool) and casts it to the
    # output's dtype; so does torchlite.
    x, xt = pair((3,))
    (x * 2).backward(tl.ones(3, dtype=getattr(tl, dtype)))
    (xt * 2).backward(torch.ones(3, dtype=getattr(torch, dtype)))
    assert x.grad.dtype == tl.float32 and xt.grad.dtype == torch.float32
    assert x.grad.tolist() == xt.grad.tolist()


def test_second_backward_through_freed_graph():
    x, xt = pair((3,))
    y, yt = (x * x).sum(), (xt * xt).sum()
    y.backward()
    yt.backward()
    both_raise(y.backward, yt.backward, RuntimeError,
               "Trying to backward through the graph a second time.*retain_graph=True")


def test_grad_of_unrelated_input():
    x, xt = pair((3,))
    z, zt = pair((3,), 1)
    both_raise(lambda: tl.autograd.grad((x * 2).sum(), z), lambda: torch.autograd.grad((xt * 2).sum(), zt),
               RuntimeError, "appears to not have been used in the graph")


# ---- memory ---------------------------------------------------------------------------------

def test_graph_saved_bytes():
    x = tl.ones(1000, requires_grad=True)     # float32: 4000 bytes
    w = tl.ones(1000, requires_grad=True)
    y = x * w                                  # MulBackward0 saves x and w: 8000
    z = y.exp()                                # ExpBackward0 saves its result: 4000
    out = z.sum()                              # SumBackward0 keeps sizes only
    assert y.grad_fn.saved_bytes() == 8000
    assert z.grad_fn.saved_bytes() == 4000
    assert out.grad_fn.saved_bytes() == 0
    assert tl.autograd.graph._saved_bytes(out) == 12000
    assert tl.autograd.graph._saved_bytes(out.grad_fn) == 12000
    assert tl.autograd.graph._graph_size(out) == 5  # Sum, Exp, Mul, 2 x AccumulateGrad
    assert tl.autograd.graph._saved_bytes(x) == 0
    out.backward()
    assert tl.autograd.graph._saved_bytes(out) == 0


def test_memory_flat_over_training_steps():
    alloc = tl._C._cpu_allocated_bytes
    w = tl.randn(8, 4, requires_grad=True)
    b = tl.zeros(4, requires_grad=True)
    x = tl.randn(16, 8)
    target = tl.randn(16, 4)
    node_refs = []

    class Scale(tl.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t * 2

        @staticmethod
        def backward(ctx, g):
            (t,) = ctx.saved_tensors
            return g * 2

    def step(i):
        out = Scale.apply((x.matmul(w) + b).relu())
        loss = ((out - target) ** 2).mean()
        if i % 1000 == 0:
            node_refs.append(weakref.ref(loss.grad_fn))
        loss.backward()
        with tl.no_grad():
            w.sub_(w.grad * 0.01)
            b.sub_(b.grad * 0.01)
        w.grad = None
        b.grad = None

    for i in range(100):
        step(i)
    gc.collect()
    start = alloc()
    for i in range(10000):
        step(i)
    gc.collect()
    assert alloc() - start <= 0
    assert all(r() is None for r in node_refs)  # no graph node outlives its step
