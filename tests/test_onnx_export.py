"""torchlite.onnx.export: models exported, checked with onnx.checker (full_check) and run in onnxruntime
against torchlite's own outputs, with fixed and dynamic batch axes. onnx and onnxruntime are in the
`test` extra: they are imported here unconditionally, so a missing one fails the suite."""
import io
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch.onnx  # noqa: F401  (imported beside torchlite.onnx: test_namespaces compares the two packages' dirs)

import torchlite as tl
import torchlite.nn as nn
import torchlite.onnx
from torchlite.onnx import UnsupportedOperatorError

RTOL, ATOL = 1e-5, 1e-5


def _flat(v):
    if isinstance(v, tl.Tensor):
        return [v]
    return [t for x in v for t in _flat(x)]


def _run(proto, inputs, names=None):
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    names = names or [i.name for i in sess.get_inputs()]
    return sess.run(None, {n: x.numpy() for n, x in zip(names, inputs)})


def _check(model, args, **kwargs):
    """Exports, checks the model, and compares onnxruntime with torchlite on `args`."""
    f = io.BytesIO()
    proto = torchlite.onnx.export(model, args, f, **kwargs)
    onnx.checker.check_model(proto, full_check=True)
    loaded = onnx.load_from_string(f.getvalue())
    assert loaded == proto
    _compare(model, proto, args)
    return proto


def _compare(model, proto, args):
    with tl.no_grad():
        expected = _flat(model(*args))
    got = _run(proto, _flat(list(args)))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == tuple(e.shape)
        np.testing.assert_allclose(g, e.numpy(), rtol=RTOL, atol=ATOL)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(12, 32), nn.Linear(32, 16), nn.Linear(16, 5)

    def forward(self, x):
        x = tl.relu(self.fc1(x))
        x = nn.functional.gelu(self.fc2(x))
        return tl.softmax(self.fc3(x), dim=-1)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=1, padding="same", bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.pool = nn.MaxPool2d(2)
        self.avg = nn.AvgPool2d(2)
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(16 * 2 * 2, 10)

    def forward(self, x):
        x = self.pool(nn.functional.relu(self.bn1(self.conv1(x))))
        x = self.avg(nn.functional.relu(self.bn2(self.conv2(x))))
        return self.fc(self.flatten(x))


def _trained_bn(model, x):
    """Gives the batch norms non-trivial running statistics, then switches to eval."""
    model.train()
    with tl.no_grad():
        for _ in range(3):
            model(x * 2 + 1)
    return model.eval()


def test_mlp():
    tl.manual_seed(0)
    model = MLP().eval()
    x = tl.randn(4, 12)
    proto = _check(model, (x,))
    names = {i.name for i in proto.graph.initializer}
    assert {"fc1.weight", "fc1.bias", "fc3.weight"} <= names
    assert [i.name for i in proto.graph.input] == ["x"]
    assert proto.opset_import[0].version == torchlite.onnx.DEFAULT_OPSET


def test_mlp_dynamic_batch_named_io():
    tl.manual_seed(1)
    model = MLP().eval()
    proto = _check(model, (tl.randn(4, 12),), input_names=["features"], output_names=["probs"],
                   dynamic_axes={"features": {0: "batch"}, "probs": {0: "batch"}})
    dim = proto.graph.input[0].type.tensor_type.shape.dim
    assert dim[0].dim_param == "batch" and dim[1].dim_value == 12
    assert proto.graph.output[0].name == "probs"
    assert proto.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    _compare(model, proto, (tl.randn(9, 12),))
    _compare(model, proto, (tl.randn(1, 12),))


def test_cnn():
    tl.manual_seed(2)
    x = tl.randn(2, 3, 8, 8)
    model = _trained_bn(CNN(), x)
    _check(model, (x,))


def test_cnn_dynamic_batch_numbered_axes():
    tl.manual_seed(3)
    x = tl.randn(2, 3, 8, 8)
    model = _trained_bn(CNN(), x)
    with pytest.warns(UserWarning, match="Automatically generated names will be applied to each dynamic axes of "
                                         "input image"):
        proto = _check(model, (x,), input_names=["image"], dynamic_axes={"image": [0]})
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "image_dynamic_axes_1"
    _compare(model, proto, (tl.randn(5, 3, 8, 8),))


class LSTMNet(nn.Module):
    def __init__(self, layers, batch_first, bidirectional=False):
        super().__init__()
        self.lstm = nn.LSTM(6, 10, num_layers=layers, batch_first=batch_first, bidirectional=bidirectional)
        self.head = nn.Linear(10 * (2 if bidirectional else 1), 3)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        return self.head(out), h, c


@pytest.mark.parametrize("layers, batch_first, bidirectional", [(1, False, False), (2, True, False),
                                                                (2, False, True)])
def test_lstm(layers, batch_first, bidirectional):
    tl.manual_seed(4)
    model = LSTMNet(layers, batch_first, bidirectional).eval()
    x = tl.randn(3, 7, 6) if batch_first else tl.randn(7, 3, 6)
    batch = 0 if batch_first else 1
    static = _check(model, (x,))  # static: the initial state is folded into constants
    used = {i for n in static.graph.node for i in n.input}
    assert all(i.name in used for i in static.graph.initializer)  # the weights in PyTorch's gate order are gone
    proto = _check(model, (x,), input_names=["seq"], dynamic_axes={"seq": {batch: "batch"}})
    other = tl.randn(5, 7, 6) if batch_first else tl.randn(7, 5, 6)
    _compare(model, proto, (other,))


class Recurrent(nn.Module):
    def __init__(self, cls, **kwargs):
        super().__init__()
        self.rnn = cls(5, 7, **kwargs)

    def forward(self, x, h0):
        return self.rnn(x, h0)


@pytest.mark.parametrize("cls, kwargs", [
    (nn.GRU, dict(num_layers=2, batch_first=True)), (nn.GRU, dict(bidirectional=True)),
    (nn.RNN, dict(num_layers=2)), (nn.RNN, dict(nonlinearity="relu", bidirectional=True, batch_first=True)),
    (nn.GRU, dict(bias=False))])
def test_gru_and_rnn(cls, kwargs):
    tl.manual_seed(14)
    model = Recurrent(cls, **kwargs).eval()
    layers, dirs = kwargs.get("num_layers", 1), 2 if kwargs.get("bidirectional") else 1
    x = tl.randn(3, 6, 5) if kwargs.get("batch_first") else tl.randn(6, 3, 5)
    _check(model, (x, tl.randn(layers * dirs, 3, 7)))
    _check(model.rnn, (x,))  # the module's own zero initial state


class LSTMWithState(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 5, num_layers=2)

    def forward(self, x, h0, c0):
        out, (h, c) = self.lstm(x, (h0, c0))
        return out, h, c


def test_lstm_with_initial_state():
    tl.manual_seed(5)
    model = LSTMWithState().eval()
    _check(model, (tl.randn(6, 2, 4), tl.randn(2, 2, 5), tl.randn(2, 2, 5)))


def test_transformer_encoder_layer():
    tl.manual_seed(6)
    layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32, batch_first=True).eval()
    x = tl.randn(3, 5, 16)
    proto = _check(layer, (x,), input_names=["src"], output_names=["out"],
                   dynamic_axes={"src": {0: "batch"}, "out": {0: "batch"}})
    _compare(layer, proto, (tl.randn(7, 5, 16),))


def test_transformer_encoder_layer_gelu_norm_first_static():
    tl.manual_seed(7)
    layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, batch_first=True,
                                       activation="gelu", norm_first=True).eval()
    _check(layer, (tl.randn(2, 6, 8),))


def test_scaled_dot_product_attention_causal_and_mask():
    tl.manual_seed(8)
    q, k, v = tl.randn(2, 3, 4, 8), tl.randn(2, 3, 6, 8), tl.randn(2, 3, 6, 8)
    mask = tl.randn(4, 6) > -1

    def fn(q, k, v, mask):
        a = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        b = nn.functional.scaled_dot_product_attention(q, k[:, :, :4], v[:, :, :4], is_causal=True, scale=0.3)
        return a + b
    _check(fn, (q, k, v, mask))


def test_elementwise_and_shape_ops():
    tl.manual_seed(9)

    def fn(x, y):
        a = (x * 2 - y / 3 + 1).abs().sqrt() + tl.exp(-x).clamp(max=2.0)
        b = tl.where(x > y, x, y) + tl.sigmoid(y).pow(2) - tl.tanh(x) * (x != y)
        c = tl.cat([a, b], dim=1).transpose(0, 1).reshape(-1, 2).permute(1, 0).unsqueeze(0)
        d = tl.stack(list(c.chunk(2, dim=1)), dim=0).sum(dim=-1, keepdim=True).mean()
        e = x.t().contiguous().view(3, 4)[1:, ::2].flatten()
        return c.squeeze(0), d, e.sub(y[0, :2].repeat(2), alpha=0.5), tl.log_softmax(x, 0)
    _check(fn, (tl.randn(4, 3), tl.randn(4, 3)))


class Bag(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)

    def forward(self, idx):
        return self.emb(idx).mean(dim=1)


def test_integer_inputs_and_embedding():
    tl.manual_seed(10)
    _check(Bag(), (tl.tensor([[1, 2, 3], [9, 0, 4]]),))


def test_unsupported_op_names_it():
    def fn(x):
        return tl.logcumsumexp(x, 0)
    with pytest.raises(UnsupportedOperatorError, match=r"'aten::logcumsumexp' to ONNX opset version 20 is not "
                                                       r"supported by torchlite.onnx: its entry in native_functions"):
        torchlite.onnx.export(fn, (tl.randn(3),), io.BytesIO())
    assert issubclass(UnsupportedOperatorError, torchlite.onnx.OnnxExporterError)
    assert issubclass(UnsupportedOperatorError, RuntimeError)


def test_unsupported_argument_form():
    def fn(x):
        return tl.nn.functional.dropout(x, 0.5, training=True)
    with pytest.raises(UnsupportedOperatorError, match=r"aten::dropout.*train=True"):
        torchlite.onnx.export(fn, (tl.randn(3),), io.BytesIO())


def test_file_path_and_file_object(tmp_path):
    tl.manual_seed(11)
    model = MLP().eval()
    x = tl.randn(2, 12)
    path = tmp_path / "mlp.onnx"
    torchlite.onnx.export(model, (x,), str(path))
    torchlite.onnx.export(model, x, path.with_suffix(".2.onnx"))  # a PathLike, args as one tensor
    buf = io.BytesIO()
    torchlite.onnx.export(model, (x,), buf)
    assert path.read_bytes() == buf.getvalue() == path.with_suffix(".2.onnx").read_bytes()
    _compare(model, onnx.load(str(path)), (x,))
    with open(tmp_path / "f.onnx", "wb") as fh:
        torchlite.onnx.export(model, (x,), fh)
    assert (tmp_path / "f.onnx").read_bytes() == buf.getvalue()


def test_export_params_false_makes_parameters_inputs():
    tl.manual_seed(12)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU()).eval()
    proto = torchlite.onnx.export(model, (tl.randn(2, 3),), None, export_params=False)
    assert len(proto.graph.initializer) == 0 or all(not i.name.startswith("0.") for i in proto.graph.initializer)
    assert [i.name for i in proto.graph.input] == ["input", "0.weight", "0.bias"]
    onnx.checker.check_model(proto, full_check=True)
    x = tl.randn(2, 3)
    got = _run(proto, [x, model[0].weight.detach(), model[0].bias.detach()])
    np.testing.assert_allclose(got[0], model(x).detach().numpy(), rtol=RTOL, atol=ATOL)


def test_opset_versions_and_defaults():
    import torch.onnx._constants as torch_constants
    # The default is the TorchScript exporter's in PyTorch 2.13.
    assert torchlite.onnx.DEFAULT_OPSET == torch_constants.ONNX_DEFAULT_OPSET
    tl.manual_seed(13)
    model = MLP().eval()
    for opset in range(torchlite.onnx.MIN_OPSET, torchlite.onnx.MAX_OPSET + 1):
        proto = _check(model, (tl.randn(2, 12),), opset_version=opset)
        assert proto.opset_import[0].version == opset
    for bad in (torchlite.onnx.MIN_OPSET - 1, torchlite.onnx.MAX_OPSET + 1):
        with pytest.raises(ValueError, match="Unsupported ONNX opset version"):
            torchlite.onnx.export(model, (tl.randn(2, 12),), None, opset_version=bad)


def test_training_mode_is_restored_and_verbose(capsys):
    model = MLP()
    model.train()
    torchlite.onnx.export(model, (tl.randn(2, 12),), None, verbose=True)
    assert model.training
    assert "Gemm" in capsys.readouterr().out
    assert not torchlite.onnx.is_in_onnx_export()


def test_torchlite_imports_without_onnx():
    code = ("import sys; sys.modules['onnx'] = None\n"
            "import torchlite\n"
            "assert 'torchlite.onnx' not in sys.modules and torchlite.onnx.export\n"  # lazy, as torch.onnx
            "try:\n    torchlite.onnx.export(lambda x: x + 1, (torchlite.ones(2),), None)\n"
            "except ImportError as e:\n    print('ImportError', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("ImportError torchlite.onnx.export needs the `onnx` package")


# ---- the translations, op family by op family --------------------------------------------------------

class Convs(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(4, 6, 3, stride=2, padding=1, dilation=1)
        self.c2 = nn.Conv2d(4, 8, 3, padding=2, dilation=2, groups=2)
        self.c3 = nn.Conv3d(2, 3, (1, 2, 2), bias=False)
        self.t2 = nn.ConvTranspose2d(8, 3, 3, stride=2, padding=1, output_padding=1)
        self.bn = nn.BatchNorm1d(6, affine=False)
        self.ln = nn.LayerNorm([8, 6], elementwise_affine=False)

    def forward(self, x1, x2, x3):
        a = self.bn(self.c1(x1))
        b = self.c2(x2)
        c = self.t2(b)
        d = self.c3(x3)
        return a, self.ln(b), nn.functional.adaptive_avg_pool2d(c, (4, 2)), d, nn.functional.max_pool1d(a, 2, 1, 1)


def test_convolutions_norms_pools():
    tl.manual_seed(20)
    x1, x2, x3 = tl.randn(2, 4, 9), tl.randn(2, 4, 8, 6), tl.randn(1, 2, 3, 4, 4)
    model = Convs().train()
    with tl.no_grad():
        for _ in range(3):
            model(x1 * 2 + 1, x2, x3)
    _check(model.eval(), (x1, x2, x3))


def test_pooling_options():
    def fn(x):
        a = nn.functional.avg_pool2d(x, 3, 2, 1, count_include_pad=False)
        b = nn.functional.avg_pool2d(x, 2, ceil_mode=True)
        c = nn.functional.max_pool2d(x, 3, 2, 1, dilation=1, ceil_mode=True)
        return a, b, c, nn.functional.adaptive_avg_pool2d(x, 1), nn.functional.avg_pool1d(x[0], 3)
    _check(fn, (tl.randn(2, 3, 7, 7),))


@pytest.mark.parametrize("opset", [17, 20])
def test_activations(opset):
    def fn(x):
        F = nn.functional
        return (F.gelu(x, approximate="tanh"), F.gelu(x), F.silu(x), F.mish(x), F.softplus(x, beta=2, threshold=1),
                F.leaky_relu(x, 0.2), F.elu(x, 0.7), F.hardtanh(x, -0.5, 0.5), F.hardsigmoid(x), F.hardswish(x),
                F.logsigmoid(x), F.selu(x), F.celu(x, 1.5), F.relu6(x * 4),
                tl.rsqrt(x.abs() + 1), tl.clamp(x, min=-0.3), tl.clamp(x, tl.zeros(3) - 0.1, tl.ones(3) * 0.2))
    _check(fn, (tl.randn(4, 3),), opset_version=opset)


def test_inplace_ops_export_as_their_functional():
    tl.manual_seed(21)
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(inplace=True), nn.LeakyReLU(0.1, inplace=True),
                          nn.Dropout(0.3, inplace=True)).eval()
    _check(model, (tl.randn(3, 4),))


def test_shape_ops_and_lists():
    def fn(x, m):
        parts = tl.split(x, [1, 3], dim=1)
        pieces = x.unbind(0)
        y = tl.masked_fill(x, m, -1.0) + tl.tril(x) - tl.triu(x, 1)
        z = x.unsqueeze(1).expand(-1, 2, -1).flatten(0, 1).unflatten(0, (2, 3))
        w = tl.addmm(tl.ones(4), x, x.t() @ x) + tl.baddbmm(x.unsqueeze(0), x.unsqueeze(0), tl.eye(4).unsqueeze(0),
                                                               beta=0.5, alpha=2)[0]
        return (parts[1], pieces[2], y, z, w, x.amax(1), x.to(tl.float64), x.to(m), (x > 0).sum(dim=0),
                x.narrow(1, 1, 2), x.squeeze(), x[:, None].squeeze(1), tl.stack([x, y], dim=-1))
    _check(fn, (tl.randn(3, 4), tl.randn(3, 4) > 0))


def test_integer_and_comparison_dtypes():
    def fn(a, b):
        return a + b, a * 2, a // 1 if False else a - 1, a == b, a < 3, a != b, (a > b) & (a < 5), a / b, tl.where(a > 0, a, 0)
    a = tl.tensor([[1, 5, -2], [4, 0, 7]])
    b = tl.tensor([[2, 2, 2], [3, 1, 1]])
    _check(fn, (a, b))


def test_multihead_attention_with_masks():
    tl.manual_seed(22)
    mha = nn.MultiheadAttention(8, 2, batch_first=True).eval()

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = mha

        def forward(self, q, kv, pad, mask):
            fused = self.mha(q, kv, kv, key_padding_mask=pad, need_weights=False)[0]
            out, weights = self.mha(q, kv, kv, attn_mask=mask)  # the unfused path, averaged weights
            return fused, out, weights
    pad = tl.tensor([[False, False, True, False, True], [False, False, False, False, False]])
    mask = tl.randn(3, 5)
    proto = _check(Net(), (tl.randn(2, 3, 8), tl.randn(2, 5, 8), pad, mask), input_names=["q", "kv", "pad", "mask"],
                   dynamic_axes={"q": {0: "b"}, "kv": {0: "b"}, "pad": {0: "b"}})
    _compare(Net(), proto, (tl.randn(4, 3, 8), tl.randn(4, 5, 8), pad.repeat(2, 1), mask))


def test_transformer_encoder_stack_dynamic_batch_and_sequence():
    tl.manual_seed(23)
    layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, batch_first=True)
    encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).eval()

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = encoder

        def forward(self, x):
            return self.encoder(x)
    net = Net().eval()
    proto = _check(net, (tl.randn(3, 5, 8),), input_names=["x"], dynamic_axes={"x": {0: "batch", 1: "seq"}})
    for shape in ((4, 5, 8), (3, 9, 8), (1, 2, 8)):
        _compare(net, proto, (tl.randn(*shape),))


def test_keep_initializers_as_inputs():
    model = nn.Linear(3, 2).eval()
    proto = torchlite.onnx.export(model, (tl.randn(1, 3),), None, keep_initializers_as_inputs=True)
    assert [i.name for i in proto.graph.input] == ["input", "weight", "bias"]
    assert {i.name for i in proto.graph.initializer} == {"weight", "bias"}
    onnx.checker.check_model(proto, full_check=True)


def test_dynamic_axis_with_size_dependent_control_flow_raises():
    def fn(x):
        return x * 2 if x.shape[0] < 4 else x * 3
    with pytest.raises(torchlite.onnx.OnnxExporterError, match="changes with dynamic axis 'n'"):
        torchlite.onnx.export(fn, (tl.randn(3, 2),), None, input_names=["x"], dynamic_axes={"x": {0: "n"}})


def test_bad_arguments():
    with pytest.raises(TypeError, match="unexpected keyword argument 'strict'"):
        torchlite.onnx.export(nn.Linear(2, 2), (tl.randn(1, 2),), None, strict=True)
    with pytest.raises(ValueError, match="dynamic shapes through parameter dynamic_axes"):
        torchlite.onnx.export(nn.Linear(2, 2), (tl.randn(1, 2),), None, dynamic_shapes={"input": {0: "b"}})
    # torch's dynamo-only options are accepted and ignored, as its TorchScript path does.
    torchlite.onnx.export(nn.Linear(2, 2), (tl.randn(1, 2),), None, external_data=False, optimize=False, report=False)
    with pytest.raises(torchlite.onnx.OnnxExporterError, match="dynamo=False"):
        torchlite.onnx.export(nn.Linear(2, 2), (tl.randn(1, 2),), None, dynamo=True)
    with pytest.raises(ValueError, match="input_names"):
        torchlite.onnx.export(nn.Linear(2, 2), (tl.randn(1, 2),), None, input_names=["a", "b"])


def test_reductions_scans_sorting():
    def fn(x, idx):
        values, indices = x.max(dim=1)
        mn = tl.min(x, 0, keepdim=True)
        top = tl.topk(x, 2, dim=1)
        srt = tl.sort(x, dim=0, descending=True)
        return (values, indices, mn.values, mn.indices, x.argmax(), x.argmin(1, keepdim=True), x.prod(1), x.prod(),
                tl.logsumexp(x, [0, 1]), tl.linalg.vector_norm(x, dim=1), tl.linalg.vector_norm(x, 1),
                tl.linalg.vector_norm(x, float("inf"), dim=0), tl.linalg.vector_norm(x, 3, dim=1, keepdim=True),
                x.norm(2, dim=1), tl.cumsum(x, 1), tl.cumsum(idx, 0), top.values, top.indices, srt.values,
                srt.indices, tl.gather(x, 1, idx.abs() % 4), x.index_select(0, idx[:, 0].abs() % 3),
                x[idx[:, 1].abs() % 3], x[:, tl.tensor([0, 3, 3])], x.flip(0, 1))
    x = tl.tensor([[0.5, -1.0, 2.0, 0.1], [1.5, 0.3, -0.7, 2.5], [-2.0, 0.8, 0.4, 1.1]])
    _check(fn, (x, tl.tensor([[1, 2, 0, 3], [0, -1, 2, 2], [3, 1, 1, 0]])))


def test_padding_upsampling_norms_misc():
    F = nn.functional

    def fn(x):
        return (F.pad(x, (1, 2)), F.pad(x, (1, 1, 2, 0), value=-3.0), F.pad(x, (2, 1, 1, 2), mode="reflect"),
                F.pad(x, (1, 1, 1, 1), mode="replicate"), F.pad(x, (1, 1, 2, 2), mode="circular"),
                F.interpolate(x, scale_factor=2, mode="nearest"), F.interpolate(x, size=(7, 5), mode="nearest"),
                F.interpolate(x, scale_factor=2, mode="bilinear"), F.interpolate(x, size=(9, 3), mode="bilinear",
                                                                                   align_corners=True),
                F.interpolate(x, size=(5, 7), mode="nearest-exact"), F.pixel_shuffle(x, 2),
                F.group_norm(x, 2, tl.arange(4.0), tl.ones(4) * 0.5), F.instance_norm(x), F.glu(x, 1),
                tl.einsum("nchw,c->nhw", x, tl.arange(4.0)), x.square(), tl.log1p(x.abs()), tl.expm1(x),
                tl.log2(x.abs() + 1), tl.exp2(x), tl.erfc(x), tl.special.erfc(x))
    _check(fn, (tl.randn(2, 4, 4, 6),))


def test_groupnorm_module_dynamic_batch():
    tl.manual_seed(30)
    model = nn.Sequential(nn.Conv2d(3, 6, 3), nn.GroupNorm(3, 6), nn.Upsample(scale_factor=2)).eval()
    proto = _check(model, (tl.randn(2, 3, 6, 6),), input_names=["x"], dynamic_axes={"x": {0: "n", 2: "h", 3: "w"}})
    _compare(model, proto, (tl.randn(5, 3, 9, 7),))


def test_list_outputs_and_constant_outputs():
    def fn(x):
        return x.chunk(2, dim=1), tl.ones(2, 3), list(x.unbind(0))
    _check(fn, (tl.randn(2, 4),))


def test_dynamic_axes_key_that_names_nothing_warns():
    with pytest.warns(UserWarning, match="Provided key y for dynamic axes is not a valid input/output name"):
        torchlite.onnx.export(nn.Linear(2, 2), (tl.randn(1, 2),), None, dynamic_axes={"input": {0: "b"}, "y": {0: "b"}})
    with pytest.raises(ValueError, match="axis index is expected to be an integer"):
        torchlite.onnx.export(nn.Linear(2, 2), (tl.randn(1, 2),), None, dynamic_axes={"input": ["0"]})
