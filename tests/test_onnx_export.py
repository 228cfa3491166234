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
    proto = _check(model, (x,), input_names=["seq"], dynamic_axes={"seq": {batch: "batch"}})
    other = tl.randn(5, 7, 6) if batch_first else tl.randn(7, 5, 6)
    _compare(model, proto, (other,))


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
        return tl.cumsum(x, 0)
    with pytest.raises(UnsupportedOperatorError, match=r"'aten::cumsum' to ONNX opset version 20 is not supported"):
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
            "import torchlite, torchlite.onnx\n"
            "try:\n    torchlite.onnx.export(lambda x: x + 1, (torchlite.ones(2),), None)\n"
            "except ImportError as e:\n    print('ImportError', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("ImportError torchlite.onnx.export needs the `onnx` package")
