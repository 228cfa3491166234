"""torchlite.jit.trace: traced functions and modules record the ops they run, run them in the C++
interpreter, and give eager's outputs and gradients (checked against PyTorch)."""
import warnings

import numpy as np
import pytest
import torch

import torchlite as tl
import torchlite.nn as nn

from conftest import from_torch, to_torch


def _aten_kinds(graph):
    return [n.kind() for n in graph.nodes() if n.kind().startswith("aten::")]


def _copy_params(tl_module, torch_module):
    with torch.no_grad():
        for (name, p), (tname, tp) in zip(tl_module.state_dict().items(), torch_module.state_dict().items()):
            assert name == tname
            tp.copy_(to_torch(p))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(tl.relu(self.fc1(x)))


class TorchMLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 8)
        self.fc2 = torch.nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def test_traced_function_graph_matches_torch_jit():
    def f(x, y):
        z = x * y + 2
        return tl.tanh(z).sum(1) if isinstance(x, tl.Tensor) else torch.tanh(z).sum(1)

    x, y = torch.randn(3, 4), torch.randn(3, 4)
    traced = tl.jit.trace(f, (from_torch(x), from_torch(y)))
    reference = torch.jit.trace(f, (x, y))
    assert _aten_kinds(traced.graph) == _aten_kinds(reference.graph)
    text = str(traced.graph)
    assert text.startswith("graph(%x : Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu),\n"
                           "      %y : Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu)):\n")
    assert "aten::mul(%x, %y)" in text and "\n  return (%" in text
    x2, y2 = torch.randn(3, 4), torch.randn(3, 4)  # other values, same shapes
    np.testing.assert_allclose(traced(from_torch(x2), from_torch(y2)).numpy(), f(x2, y2).numpy(), rtol=1e-6)


def test_traced_mlp_outputs_and_gradients_equal_eager():
    tl.manual_seed(0)
    model, reference = MLP(), TorchMLP()
    _copy_params(model, reference)
    x = torch.randn(5, 4)
    traced = tl.jit.trace(model, from_torch(x))
    assert isinstance(traced, tl.jit.TopLevelTracedModule) and isinstance(traced, nn.Module)
    kinds = [n.kind() for n in traced.graph.nodes()]
    assert kinds.count("prim::GetAttr") == 6  # fc1, fc2 and their weight/bias
    assert _aten_kinds(traced.graph) == ["aten::linear", "aten::relu", "aten::linear"]
    assert str(traced.graph).startswith("graph(%self : __torch__.test_jit_trace.MLP,\n      %x : Float(5, 4")
    assert "%fc1 : __torch__.torchlite.nn.modules.linear.Linear = prim::GetAttr[name=\"fc1\"](%self)" in str(
        traced.graph)
    assert list(traced.parameters())[0] is model.fc1.weight
    x2 = torch.randn(5, 4)
    out = traced(from_torch(x2))
    out.pow(2).sum().backward()
    expected = reference(x2)
    expected.pow(2).sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-6)
    for (name, p), tp in zip(model.named_parameters(), reference.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)


def test_training_a_traced_module_updates_the_shared_parameters():
    tl.manual_seed(1)
    model = MLP()
    traced = tl.jit.trace(model, tl.randn(2, 4))
    opt = tl.optim.SGD(traced.parameters(), lr=0.1)
    x, target = tl.randn(8, 4), tl.randn(8, 3)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = ((traced(x) - target) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    np.testing.assert_allclose(traced(x).detach().numpy(), model(x).detach().numpy(), rtol=1e-6)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(4 * 4 * 4, 5)

    def forward(self, x):
        x = self.pool(tl.relu(self.bn(self.conv(x))))
        return self.fc(x.flatten(1))


class TorchCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(4)
        self.pool = torch.nn.MaxPool2d(2)
        self.fc = torch.nn.Linear(4 * 4 * 4, 5)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn(self.conv(x))))
        return self.fc(x.flatten(1))


@pytest.mark.parametrize("training", [False, True])
def test_traced_cnn_equals_eager(training):
    model, reference = CNN(), TorchCNN()
    _copy_params(model, reference)
    model.train(training)
    reference.train(training)
    x = torch.randn(2, 3, 8, 8)
    traced = tl.jit.trace(model, from_torch(x), check_trace=False)
    reference(x)  # tracing ran the module once (in training mode, updating the running statistics)
    kinds = _aten_kinds(traced.graph)
    assert kinds[0] in ("aten::conv2d", "aten::convolution") and "aten::max_pool2d" in kinds
    x2 = torch.randn(2, 3, 8, 8, requires_grad=True)
    tx2 = from_torch(x2.detach()).requires_grad_()
    out = traced(tx2)
    expected = reference(x2)
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-4, atol=1e-5)
    out.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(tx2.grad.numpy(), x2.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(model.conv.weight.grad.numpy(), reference.conv.weight.grad.numpy(), rtol=1e-4,
                               atol=1e-4)
    if training:  # the running statistics are updated through the interpreter as well
        np.testing.assert_allclose(model.bn.running_mean.numpy(), reference.bn.running_mean.numpy(), rtol=1e-5,
                                   atol=1e-6)


def test_many_ops_tuple_output_and_in_place():
    def f(a, b):
        c = tl.cat([a, b], dim=0) if isinstance(a, tl.Tensor) else torch.cat([a, b], dim=0)
        d = c.transpose(0, 1).exp().clamp(max=3.0)
        d.mul_(0.5)
        m = d.max(dim=1)
        return d.mean(), m.values, m.indices, c[1:].sigmoid().softmax(-1)

    a, b = torch.randn(2, 3), torch.randn(1, 3)
    traced = tl.jit.trace(f, (from_torch(a), from_torch(b)))
    assert "aten::mul_" in _aten_kinds(traced.graph)
    assert "prim::TupleConstruct" in str(traced.graph)
    a2, b2 = torch.randn(2, 3), torch.randn(1, 3)
    got = traced(from_torch(a2), from_torch(b2))
    expected = f(a2, b2)
    assert isinstance(got, tuple) and len(got) == 4
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-6)


def test_meta_inputs_run_through_the_trace():
    traced = tl.jit.trace(lambda x: (x @ x.t()).relu(), tl.randn(3, 2))
    out = traced(tl.empty(3, 2, device="meta"))
    assert out.device.type == "meta" and tuple(out.shape) == (3, 3)
    # traced on meta tensors (the check compares shapes and dtypes only, as torch.testing does for meta)
    traced = tl.jit.trace(lambda x: x.exp() + 1, tl.empty(2, 3, device="meta"))
    assert "device=meta" in str(traced.graph)
    assert traced(tl.zeros(2, 3)).tolist() == [[2.0] * 3] * 2


def test_data_dependent_control_flow_warns():
    def f(x):
        if x.sum() > 0:
            return x * 2
        return x * 3

    with pytest.warns(tl.jit.TracerWarning, match="Converting a tensor to a Python boolean might cause the trace"):
        traced = tl.jit.trace(f, tl.ones(3), check_trace=False)
    # the branch taken while tracing is baked in
    assert traced(-tl.ones(3)).tolist() == [-2.0, -2.0, -2.0]
    with pytest.warns(tl.jit.TracerWarning, match="Python number"):
        tl.jit.trace(lambda x: x * x.max().item(), tl.ones(2), check_trace=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert bool(tl.ones(1)) and tl.ones(1).item() == 1.0  # no warning outside tracing
    assert not tl.jit.is_tracing()


def test_check_trace_reports_a_mismatch():
    def f(x):
        return x * 2 if x.sum() > 0 else x * 3

    with pytest.warns(tl.jit.TracerWarning) as record:
        with pytest.raises(tl.jit.TracingCheckError, match="Graphs differed across invocations"):
            tl.jit.trace(f, tl.ones(3), check_inputs=[(-tl.ones(3),)])  # constants {2} and {3}
    assert any("Output nr 1. of the traced function does not match" in str(w.message) for w in record)

    def h(x):  # tensors made from Python data are constants, printed alike: compared by value
        return x * (tl.tensor([2.0, 2.0, 2.0]) if x.sum() > 0 else tl.tensor([3.0, 3.0, 3.0]))

    with pytest.warns(tl.jit.TracerWarning):
        with pytest.raises(tl.jit.TracingCheckError, match="Tensor-valued Constant nodes differed"):
            tl.jit.trace(h, tl.ones(3), check_inputs=[(-tl.ones(3),)])

    def g(x):
        return x.exp() if x.sum() > 0 else x.sin()

    with pytest.warns(tl.jit.TracerWarning):
        with pytest.raises(tl.jit.TracingCheckError, match="Graphs differed across invocations"):
            tl.jit.trace(g, tl.ones(3), check_inputs=[(-tl.ones(3),)])
    tl.jit.trace(g, tl.ones(3), check_inputs=[(tl.full((3,), 2.0),)])  # the same path: no error


def test_trace_errors():
    with pytest.raises(RuntimeError, match="Only tensors, lists, tuples of tensors"):
        tl.jit.trace(lambda x: 3, tl.ones(2))
    with pytest.raises(RuntimeError, match="cannot be traced"):
        tl.jit.trace(lambda x: x, (3,))
    w = tl.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Cannot insert a Tensor that requires grad as a constant"):
        tl.jit.trace(lambda x: x * w, tl.ones(2))
    assert not tl.jit.is_tracing()  # a failed trace leaves no tracing state
    traced = tl.jit.trace(lambda x: x + 1, tl.ones(2))
    with pytest.raises(RuntimeError, match="(?i)size"):
        traced(tl.ones(2)).add_(tl.ones(3))
    with pytest.raises(TypeError, match="expected 1 arguments but got 2"):
        traced(tl.ones(2), tl.ones(2))


def test_traced_module_reads_replaced_parameters():
    model = MLP()
    x = tl.randn(3, 4)
    traced = tl.jit.trace(model, x)
    traced(x)
    with tl.no_grad():
        model.fc2.weight.mul_(2)  # in place: the same tensor
    np.testing.assert_allclose(traced(x).detach().numpy(), model(x).detach().numpy(), rtol=1e-6)
    model.fc2.bias = nn.Parameter(tl.zeros(3))  # replaced: read anew
    np.testing.assert_allclose(traced(x).detach().numpy(), model(x).detach().numpy(), rtol=1e-6)


def test_printed_graph_is_torch_jits():
    def f(x, y):
        return (x * y + 1).relu()

    x, y = torch.randn(2, 3), torch.randn(2, 3)
    ours = str(tl.jit.trace(f, (from_torch(x), from_torch(y))).graph)
    theirs = str(torch.jit.trace(f, (x, y)).graph)
    theirs = "\n".join(line.split(" # ")[0] for line in theirs.splitlines()) + "\n"
    assert ours == theirs


def test_tracing_through_a_traced_module():
    inner = tl.jit.trace(MLP(), tl.randn(2, 4))

    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            return self.inner(x).tanh()

    model = Outer()
    outer = tl.jit.trace(model, tl.randn(2, 4))
    assert _aten_kinds(outer.graph) == ["aten::linear", "aten::relu", "aten::linear", "aten::tanh"]
    x = tl.randn(2, 4)
    np.testing.assert_allclose(outer(x).detach().numpy(), model(x).detach().numpy(), rtol=1e-6)
    # a function reading a module's parameters captures tensors that require grad: refused, as in PyTorch
    with pytest.raises(RuntimeError, match="Cannot insert a Tensor that requires grad"):
        tl.jit.trace(lambda x: inner(x), tl.randn(2, 4))


def test_traced_lstm_and_transformer_layer_equal_eager():
    tl.manual_seed(0)

    class LastHidden(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(4, 5, batch_first=True)

        def forward(self, x):
            return self.lstm(x)[0]

    for model, shape in ((LastHidden(), (2, 3, 4)),
                         (nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True).eval(), (2, 5, 8))):
        traced = tl.jit.trace(model, tl.randn(*shape))
        x = tl.randn(*shape)
        np.testing.assert_allclose(traced(x).detach().numpy(), model(x).detach().numpy(), rtol=1e-6, atol=1e-7)
    assert "aten::lstm" in _aten_kinds(tl.jit.trace(LastHidden(), tl.randn(2, 3, 4)).graph)
