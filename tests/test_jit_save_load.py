"""torchlite.jit.save / load: traced modules and functions round-trip through the zip archive
(aten/jit/Serialization.cpp) with their graphs, parameters, buffers and module tree, run in the
interpreter with the original's outputs and gradients, load in a fresh process that never saw the
Python class, and a corrupt or foreign archive raises RuntimeError (never a crash)."""
import io
import os
import random
import re
import subprocess
import sys
import textwrap
import warnings
import zipfile

import numpy as np
import pytest
import torch

import torchlite as tl
import torchlite.nn as nn
from torchlite._C import _jit

from conftest import to_torch


# ---- models ------------------------------------------------------------------------------

class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(tl.relu(self.fc1(x)))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8 * 4 * 4, 5)

    def forward(self, x):
        x = self.pool(tl.relu(self.bn(self.conv(x))))
        return self.fc(x.flatten(1))


class LSTMNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(5, 7, num_layers=2, batch_first=True)
        self.head = nn.Linear(7, 3)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        return self.head(out), (h, c)


def _encoder():
    return nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32, dropout=0.0, batch_first=True)


MODELS = {
    "mlp": (MLP, (3, 6)),
    "cnn": (CNN, (2, 3, 8, 8)),
    "lstm": (LSTMNet, (2, 4, 5)),
    "transformer": (_encoder, (2, 5, 16)),
}


def _make(name, seed=0):
    tl.manual_seed(seed)
    make, shape = MODELS[name]
    model = make().eval()
    x = tl.randn(*shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = tl.jit.trace(model, x)
    return model, traced, x


def _flat(out):
    if isinstance(out, tl.Tensor):
        return [out]
    return [t for o in out for t in _flat(o)]


def _assert_same(a, b):
    fa, fb = _flat(a), _flat(b)
    assert len(fa) == len(fb)
    for x, y in zip(fa, fb):
        assert x.shape == y.shape and x.dtype == y.dtype
        np.testing.assert_array_equal(x.detach().numpy(), y.detach().numpy())


def _roundtrip(m, **kw):
    buf = io.BytesIO()
    tl.jit.save(m, buf)
    buf.seek(0)
    return tl.jit.load(buf, **kw)


# ---- round trips ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(MODELS))
@pytest.mark.parametrize("via", ["path", "buffer"])
def test_roundtrip_same_outputs_and_tree(name, via, tmp_path):
    model, traced, x = _make(name)
    if via == "path":
        path = tmp_path / "m.pt"
        tl.jit.save(traced, path)
        loaded = tl.jit.load(str(path))
    else:
        loaded = _roundtrip(traced)
    assert isinstance(loaded, tl.jit.RecursiveScriptModule) and isinstance(loaded, tl.jit.ScriptModule)
    with tl.no_grad():
        _assert_same(loaded(x), model(x))
        x2 = tl.randn(*x.shape)
        _assert_same(loaded.forward(x2), traced(x2))
    # the module tree: names, values, flags, submodules as attributes
    assert [n for n, _ in loaded.named_parameters()] == [n for n, _ in model.named_parameters()]
    assert [n for n, _ in loaded.named_buffers()] == [n for n, _ in model.named_buffers()]
    sd, ref = loaded.state_dict(), model.state_dict()
    assert list(sd) == list(ref)
    for k in ref:
        np.testing.assert_array_equal(sd[k].numpy(), ref[k].numpy())
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in loaded.parameters())
    assert loaded.training is False
    for sub_name, sub in model.named_children():
        got = getattr(loaded, sub_name)
        assert isinstance(got, tl.jit.RecursiveScriptModule)
        assert got.original_name == type(sub).__name__
    assert loaded.original_name == type(model).__name__
    # the same graph (unnamed values are numbered anew, in order, as torch.jit's loaded graphs)
    assert _jit._graph_to_text(loaded.graph)[0] == _jit._graph_to_text(traced.graph)[0]
    assert loaded.code == traced.code and loaded.code.startswith("def forward(self,\n")
    loaded.train()
    assert loaded.training and all(m.training for m in loaded.modules())
    loaded.eval()
    assert not any(m.training for m in loaded.modules())


def test_code_is_torchscript_like_source():
    _, traced, _ = _make("mlp")
    assert _roundtrip(traced).code == (
        "def forward(self,\n    x: Tensor) -> Tensor:\n"
        "  fc1 = self.fc1\n  weight = fc1.weight\n  bias = fc1.bias\n"
        "  fc2 = self.fc2\n  weight_1 = fc2.weight\n  bias_1 = fc2.bias\n"
        "  _8 = torch.linear(x, weight, bias)\n  _9 = torch.relu(_8)\n  _10 = torch.linear(_9, weight_1, bias_1)\n"
        "  return _10\n")
    frozen = tl.jit.freeze(traced)
    assert "torch.linear(x, CONSTANTS.c0, CONSTANTS.c1)" in frozen.code
    f = tl.jit.trace(lambda x, y: ((x * y + 1).relu(), x.sum(0)), (tl.randn(2), tl.randn(2)))
    code = f.code
    # named after the function and without arguments equal to their defaults, as torch's
    assert code.startswith("def _lambda(x: Tensor,\n    y: Tensor) -> Tuple[Tensor, Tensor]:")
    assert "torch.add(_2, CONSTANTS.c0)" in code and "torch.sum(x, [0])" in code


def test_loaded_module_resaves_and_repr():
    model, traced, x = _make("mlp")
    loaded = _roundtrip(_roundtrip(traced))
    with tl.no_grad():
        _assert_same(loaded(x), model(x))
    assert repr(loaded).startswith("RecursiveScriptModule(\n  original_name=MLP\n")  # as torch prints it
    assert "(fc1): RecursiveScriptModule(original_name=Linear)" in repr(loaded)


def test_training_flags_of_submodules_kept():
    model, _, x = _make("cnn")
    model.train()
    model.bn.eval()
    traced = tl.jit.trace(model, x, check_trace=False)
    loaded = _roundtrip(traced)
    assert loaded.training and loaded.conv.training and not loaded.bn.training


def test_traced_function_roundtrip(tmp_path):
    def f(x, y):
        return (x * y + 1).relu(), x.sum(0)

    x, y = tl.randn(3, 4), tl.randn(3, 4)
    traced = tl.jit.trace(f, (x, y))
    path = tmp_path / "f.pt"
    tl.jit.save(traced, path)
    loaded = tl.jit.load(path)
    _assert_same(loaded(x, y), f(x, y))
    assert list(loaded.parameters()) == [] and loaded.original_name == "PlaceholderModule"
    assert len(loaded.graph.inputs()) == 2  # no %self


def test_extra_files_and_file_objects(tmp_path):
    _, traced, x = _make("mlp")
    path = tmp_path / "m.pt"
    with open(path, "wb") as f:
        tl.jit.save(traced, f, _extra_files={"meta.txt": "hello", "blob": b"\x00\x01"})
    extra = {"meta.txt": "", "blob": "", "absent": "keep"}
    with open(path, "rb") as f:
        loaded = tl.jit.load(f, _extra_files=extra)
    assert extra == {"meta.txt": b"hello", "blob": b"\x00\x01", "absent": "keep"}
    _assert_same(loaded(x), traced(x))
    # the archive is a plain stored zip, every record's data 64-byte aligned
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        assert {"archive/format", "archive/model", "archive/tensors", "archive/code/forward.graph"} <= set(names)
        assert all(info.compress_type == zipfile.ZIP_STORED for info in z.infolist())
    raw = path.read_bytes()
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            start = info.header_offset + 30 + len(info.filename.encode()) + \
                int.from_bytes(raw[info.header_offset + 28:info.header_offset + 30], "little")
            assert start % 64 == 0
            assert raw[start:start + info.file_size] == z.read(info.filename)


def test_tied_and_view_tensors_share_storage():
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Linear(4, 4, bias=False)
            self.out = nn.Linear(4, 4, bias=False)
            self.out.weight = self.emb.weight
            self.register_buffer("evens", tl.arange(8.0)[::2])  # a strided view of a longer storage

        def forward(self, x):
            return self.out(self.emb(x)) + self.evens

    tl.manual_seed(0)
    m = Tied().eval()
    x = tl.randn(2, 4)
    loaded = _roundtrip(tl.jit.trace(m, x))
    _assert_same(loaded(x), m(x))
    assert loaded.emb.weight.data_ptr() == loaded.out.weight.data_ptr()
    assert loaded.evens.stride() == (2,) and loaded.evens.tolist() == [0.0, 2.0, 4.0, 6.0]


def test_dtypes_of_buffers_and_constants():
    class Mixed(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("idx", tl.tensor([2, 0, 1]))
            self.register_buffer("mask", tl.tensor([True, False, True]))
            self.register_buffer("h", tl.ones(3, dtype=tl.float16))
            self.register_buffer("d", tl.full((3,), 0.1, dtype=tl.float64))

        def forward(self, x):
            y = x[:, self.idx] * self.h.float() + self.d.float()
            return tl.where(self.mask, y, tl.tensor(float("-inf"))) + 2.5

    m = Mixed().eval()
    x = tl.randn(2, 3)
    loaded = _roundtrip(tl.jit.trace(m, x))
    _assert_same(loaded(x), m(x))
    assert loaded.idx.dtype == tl.int64 and loaded.mask.dtype == tl.bool and loaded.h.dtype == tl.float16
    assert loaded.d.dtype == tl.float64


# ---- gradients and training ----------------------------------------------------------------

@pytest.mark.parametrize("name", ["mlp", "cnn", "lstm"])
def test_gradients_flow_to_loaded_parameters(name):
    model, traced, x = _make(name)  # traced in eval mode: batch_norm uses the running statistics
    loaded = _roundtrip(traced)
    _flat(model(x))[0].square().sum().backward()
    _flat(loaded(x))[0].square().sum().backward()
    for (n, p), (ln, lp) in zip(model.named_parameters(), loaded.named_parameters()):
        assert n == ln and lp.grad is not None, n
        np.testing.assert_allclose(lp.grad.numpy(), p.grad.numpy(), rtol=1e-6, atol=1e-7)


def test_training_a_loaded_module_lowers_the_loss():
    _, traced, _ = _make("mlp")
    loaded = _roundtrip(traced)
    tl.manual_seed(1)
    x = tl.randn(32, 6)
    target = x[:, :4] * 0.5 - x[:, 2:] * 0.25  # learnable
    opt = tl.optim.SGD(loaded.parameters(), lr=0.1)
    losses = []
    for _ in range(40):
        opt.zero_grad()
        loss = ((loaded(x) - target) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]
    # the in-place updates reach the graph (same tensors), and a replaced parameter too
    before = loaded(x)
    loaded.fc2.bias = nn.Parameter(loaded.fc2.bias.detach() + 1)
    np.testing.assert_allclose((loaded(x) - before).detach().numpy(), np.ones((32, 4)), rtol=1e-5)


def test_cpp_module_runs_without_the_python_wrapper(tmp_path):
    """What a C++ frontend does: load the file into the C++ Module tree and run its forward."""
    model, traced, x = _make("cnn")
    tl.jit.save(traced, tmp_path / "m.pt")
    cpp, extra = _jit._load_module_file(str(tmp_path / "m.pt"))
    assert extra == {} and cpp.type_name.endswith(".CNN") and not cpp.training
    assert [name for name, _ in cpp.submodules] == ["conv", "bn", "pool", "fc"]
    assert [name for name, _ in cpp.methods] == ["forward"]
    with tl.no_grad():
        _assert_same(cpp.run_method("forward", [x])[0], model(x))
    with pytest.raises(RuntimeError, match="has no method 'backward'"):
        cpp.run_method("backward", [x])


def test_saving_meta_or_generator_constants_raises():
    _, traced, _ = _make("mlp")
    meta = _roundtrip(traced, map_location="meta")
    with pytest.raises(RuntimeError, match="meta device"):
        tl.jit.save(meta, io.BytesIO())
    g = _jit.Graph()
    g.registerOutput(g.insertConstant(tl.Generator()))
    m = _jit.Module("__torch__.G", False)
    m.methods = [("forward", _jit.Method(g, False))]
    with pytest.raises(RuntimeError, match="Generator constant cannot be saved"):
        _jit._save_module(m)


# ---- map_location ----------------------------------------------------------------------------

@pytest.mark.parametrize("loc", ["cpu", tl.device("cpu"), None])
def test_map_location_cpu(loc):
    model, traced, x = _make("mlp")
    loaded = _roundtrip(traced, map_location=loc)
    _assert_same(loaded(x), model(x))


def test_map_location_meta():
    _, traced, x = _make("cnn")
    loaded = _roundtrip(traced, map_location="meta")
    assert all(p.is_meta for p in loaded.parameters()) and all(b.is_meta for b in loaded.buffers())
    out = loaded(x.to("meta"))
    assert out.is_meta and out.shape == (2, 5)
    loaded = _roundtrip(traced, map_location=tl.device("meta"))
    assert loaded.fc.weight.is_meta and loaded.fc.weight.shape == (5, 128)


def test_map_location_errors():
    _, traced, _ = _make("mlp")
    with pytest.raises(ValueError, match="map_location should be either None, string or torch.device"):
        _roundtrip(traced, map_location=3)
    with pytest.raises(RuntimeError):
        _roundtrip(traced, map_location="cuda")


# ---- fresh process -----------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(MODELS))
def test_load_in_a_fresh_process(name, tmp_path):
    model, traced, x = _make(name)
    tl.jit.save(traced, tmp_path / "model.pt")
    tl.save(x, tmp_path / "x.pt")
    script = textwrap.dedent(f"""
        import sys
        import torchlite as tl
        m = tl.jit.load({str(tmp_path / 'model.pt')!r})
        x = tl.load({str(tmp_path / 'x.pt')!r})
        with tl.no_grad():
            out = m(x)
        tl.save(out, {str(tmp_path / 'out.pt')!r})
        assert "torch" not in sys.modules and "test_jit_save_load" not in sys.modules
        assert not any(k.startswith("tests") for k in sys.modules)
        print(m.original_name)
    """)
    env = dict(os.environ)
    # only the checkout under test on the path (not this test's directory): the venv's fallback is another checkout
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.abspath(tl.__file__)))
    res = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    with tl.no_grad():
        _assert_same(tl.load(tmp_path / "out.pt"), model(x))


# ---- errors --------------------------------------------------------------------------------------

def test_saving_a_plain_module_raises_as_torch():
    with pytest.raises(AttributeError) as tl_err:
        tl.jit.save(nn.Linear(2, 2), io.BytesIO())
    with pytest.raises(AttributeError) as pt_err:
        torch.jit.save(torch.nn.Linear(2, 2), io.BytesIO())
    assert str(tl_err.value) == str(pt_err.value)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        tl.jit.load(tmp_path / "nope.pt")
    with pytest.raises(ValueError, match="is a directory"):
        tl.jit.load(tmp_path)


@pytest.mark.parametrize("name", list(MODELS))
def test_submodules_have_their_own_graphs(name):
    """As torch.jit traces every submodule into its own graph: a loaded module's submodules can be
    called, each on inputs like those it got in the trace."""
    model, traced, x = _make(name)
    loaded = _roundtrip(traced)
    seen = {}

    def keeper(path):
        def hook(module, inputs, output):
            seen.setdefault(path, (inputs, output))
        return hook

    handles = [sub.register_forward_hook(keeper(path)) for path, sub in model.named_modules() if path]
    with tl.no_grad():
        model(x)
    for h in handles:
        h.remove()
    called = 0
    for path, (inputs, out) in seen.items():
        sub = loaded.get_submodule(path)
        if isinstance(out, tuple) and any(o is None for o in out):
            continue  # attention called with need_weights=False: its own graph has the default, True
        assert "forward" in sub._methods, path
        with tl.no_grad():
            _assert_same(sub(*inputs), out)
        called += 1
    assert called >= 2


def test_calling_a_submodule_without_a_graph_raises():
    class Unused(nn.Module):
        def __init__(self):
            super().__init__()
            self.used, self.unused = nn.Linear(2, 2), nn.Linear(2, 2)

        def forward(self, x):
            return self.used(x)

    x = tl.randn(1, 2)
    loaded = _roundtrip(tl.jit.trace(Unused(), x))
    _assert_same(loaded.used(x), loaded(x))
    # (torch 2.13's message and type)
    with pytest.raises(AttributeError, match="'RecursiveScriptModule' object has no attribute 'forward'"):
        loaded.unused(x)


def _archive_bytes(name="mlp"):
    _, traced, x = _make(name)
    buf = io.BytesIO()
    tl.jit.save(traced, buf)
    return buf.getvalue(), x


def _rezip(data, edit):
    """The archive with its records passed through edit({name: bytes}) (CRCs recomputed)."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        records = {n: z.read(n) for n in z.namelist()}
    records = edit(records)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for n, b in records.items():
            z.writestr(n, b)
    return out.getvalue()


def _resub(record, pattern, repl):
    def edit(records):
        text = records["archive/" + record]
        new = re.sub(pattern, repl, text, count=1)
        assert new != text, pattern
        records["archive/" + record] = new
        return records
    return edit


def _load_bytes(b):
    return tl.jit.load(io.BytesIO(b))


def _replace(record, old, new, count=1):
    def edit(records):
        text = records["archive/" + record]
        assert old in text, (old, text[:400])
        records["archive/" + record] = text.replace(old, new, count)
        return records
    return edit


def test_foreign_archives_raise(tmp_path):
    with pytest.raises(RuntimeError, match="torch.save / torchlite.save checkpoint"):
        buf = io.BytesIO()
        tl.save({"w": tl.ones(2)}, buf)
        _load_bytes(buf.getvalue())
    with pytest.raises(RuntimeError, match="torch.save / torchlite.save checkpoint"):
        buf = io.BytesIO()
        torch.save({"w": torch.ones(2)}, buf)
        _load_bytes(buf.getvalue())
    with pytest.raises(RuntimeError, match="TorchScript archive written by PyTorch"):
        buf = io.BytesIO()
        torch.jit.save(torch.jit.trace(torch.nn.Linear(2, 2), torch.randn(1, 2)), buf)
        _load_bytes(buf.getvalue())
    with pytest.raises(RuntimeError, match="not a torchlite.jit archive"):
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as z:
            z.writestr("stuff/readme.txt", "hello")
        _load_bytes(out.getvalue())
    with pytest.raises(RuntimeError, match="not a torchlite.jit archive"):
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("stuff/readme.txt", "hello" * 100)
        _load_bytes(out.getvalue())
    with pytest.raises(RuntimeError, match="record format is compressed"):
        data, _ = _archive_bytes()
        out = io.BytesIO()
        with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
            for name in src.namelist():
                z.writestr(name, src.read(name))
        _load_bytes(out.getvalue())
    for junk in (b"", b"PK", os.urandom(10), os.urandom(5000)):
        with pytest.raises(RuntimeError, match="jit.load"):
            _load_bytes(junk)


BAD_EDITS = {
    "unknown op": (_replace("code/forward.graph", b'"aten::relu" "relu"', b'"aten::nosuchop" "nosuchop"'),
                   "unknown operator aten::nosuchop"),
    "op kind and overload disagree": (_replace("code/forward.graph", b'"aten::relu" "relu"', b'"aten::relu" "tanh"'),
                                      "unknown operator"),
    "unknown prim": (_replace("code/forward.graph", b'"prim::GetAttr"', b'"prim::PythonOp"'), "unknown node kind"),
    "value out of range": (_resub("code/forward.graph", rb"return 1 \d+", b"return 1 999"), "value 999 is used"),
    "negative value": (_resub("code/forward.graph", rb"return 1 \d+", b"return 1 -1"), "value -1 is used"),
    "use before definition": (_resub("code/forward.graph", rb'"aten::relu" "relu" in 1 \d+', b'"aten::relu" "relu" in 1 10'),
                              "value 10 is used"),
    "wrong input count": (_resub("code/forward.graph", rb'"aten::relu" "relu" in 1 (\d+)',
                                 rb'"aten::relu" "relu" in 2 \1 \1'), "takes 1 inputs"),
    "repeated value name": (_replace("code/forward.graph", b'"weight.1" Tensor', b'"weight" Tensor'),
                            "value name 'weight' is repeated"),
    "empty view off its storage": (_resub("tensors", rb'float32 "0" 0 2 (\d+) (\d+)', rb'float32 "0" 99999 2 0 \2'),
                                   "lies outside its storage"),
    "non-utf8 name": (_replace("model", b'"fc2"', b'"fc\\xff"'), "not valid UTF-8"),
    "tensor index": (_replace("model", b'"weight" 0', b'"weight" 77'), "not in the tensor table"),
    "view outside storage": (_replace("tensors", b'"0" 0 ', b'"0" 1000000 '), "lies outside its storage"),
    "missing storage": (_replace("tensors", b'"0" 0 ', b'"99" 0 '), "missing storage record"),
    "bad dtype": (_replace("tensors", b"float32", b"float99"), "unknown dtype"),
    "missing graph": (lambda r: {k: v for k, v in r.items() if not k.endswith(".graph")}, "missing record"),
    "missing tensors": (lambda r: {k: v for k, v in r.items() if not k.endswith("/tensors")}, "no record 'tensors'"),
    "repeated name": (_replace("model", b'"fc2"', b'"fc1"'), "repeated attribute name"),
    "dotted name": (_replace("model", b'"fc2"', b'"a.b"'), "bad or repeated attribute name"),
    "version": (_replace("version", b"6", b"9"), "archive version"),
    "format": (_replace("format", b"torchlite.jit", b"other"), "unknown 'format' record"),
    "trailing data": (lambda r: {**r, "archive/model": r["archive/model"] + b" junk"}, "unexpected data"),
    "unterminated string": (_replace("model", b'"__torch__', b'__torch__'), "expected a quoted string"),
    "deep nesting": (_replace("code/forward.graph", b"TensorT", b"List " * 5000 + b"TensorT"), "nested too deeply"),
    "huge count": (_replace("code/forward.graph", b"nodes ", b"nodes 99999999999"), "bad count"),
}


@pytest.mark.parametrize("case", list(BAD_EDITS))
def test_corrupt_graph_and_records_raise(case):
    data, _ = _archive_bytes()
    edit, message = BAD_EDITS[case]
    with pytest.raises(RuntimeError, match=message):
        _load_bytes(_rezip(data, edit))


def test_truncated_and_flipped_archives_raise():
    data, _ = _archive_bytes()
    rng = random.Random(0)
    cuts = sorted({len(data) - 1, len(data) - 22, len(data) // 2, 1, 30, *(rng.randrange(len(data)) for _ in range(40))})
    for cut in cuts:
        with pytest.raises(RuntimeError, match="jit.load"):
            _load_bytes(data[:cut])
    for _ in range(200):
        pos = rng.randrange(len(data))
        corrupt = bytearray(data)
        corrupt[pos] ^= 1 << rng.randrange(8)
        try:
            _load_bytes(bytes(corrupt))
        except RuntimeError as e:
            assert "jit.load" in str(e)
        # a flip in ignored bytes (padding, timestamps, the 'made by' version) may load fine


@pytest.mark.parametrize("seed, record", [(0, "code/forward.graph"), (1, "model"), (2, "tensors")])
def test_mutated_records_never_crash(seed, record):
    """Random token edits of a text record (with valid CRCs): loading raises RuntimeError or
    succeeds; a loaded module then runs or raises a Python exception."""
    data, x = _archive_bytes("cnn")
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        text = z.read("archive/" + record).decode()
    tokens = text.split(" ")
    rng = random.Random(seed)
    choices = ["0", "1", "2", "-1", "7", "99", "1000000000000", '"x"', '"weight"', "end", "node", "int", "Tensor",
               "List", "float32", "int8", '"aten::add"', '"add.Tensor"', '"prim::If"', "blocks", "", '"']
    loaded = 0
    for _ in range(200):
        mutated = list(tokens)
        for _ in range(rng.randrange(1, 3)):
            mutated[rng.randrange(len(mutated))] = rng.choice(choices)
        blob = " ".join(mutated).encode()
        try:
            m = _load_bytes(_rezip(data, lambda r: {**r, "archive/" + record: blob}))
        except RuntimeError as e:
            assert "jit.load" in str(e)
            continue
        loaded += 1
        try:
            with tl.no_grad():
                m(x)
        except (RuntimeError, TypeError, ValueError, IndexError):
            pass
    assert loaded < 200


# ---- the graph text --------------------------------------------------------------------------

def test_graph_text_roundtrip_with_blocks_and_every_constant_kind():
    g = _jit.Graph()
    x = g.addInput("x")
    n = g.addInput("n")
    n.setType(_jit.Type.parse("int"))
    flag = g.addInput("flag")
    flag.setType(_jit.Type.parse("bool"))
    consts = [1, -2**63, 2.5, float("inf"), float("nan"), -0.0, True, None, 'qu"o\\te\n\tü', tl.float16,
              tl.device("cpu"), [1, 2, 3], (1, "a"), [2.5, -1.0], tl.tensor([[1.0, 2.0]]), tl.tensor(3)]
    for c in consts:
        g.insertConstant(c)
    if_node = g.insertNode(g.create("prim::If", [flag], 1))
    then, other = if_node.addBlock(), if_node.addBlock()
    g.setInsertPoint(then.returnNode())
    then.registerOutput(g.insertNode(g.create("aten::relu", [x])).output())
    g.setInsertPoint(other.returnNode())
    other.registerOutput(g.insertNode(g.create("aten::neg", [x])).output())
    g.setInsertPoint(g.return_node())
    loop = g.insertNode(g.create("prim::Loop", [n, g.insertConstant(True), if_node.output()], 1))
    body = loop.addBlock()
    body.addInputToBlock("i").setType(_jit.Type.parse("int"))
    acc = body.addInputToBlock("acc")
    g.setInsertPoint(body.returnNode())
    body.registerOutput(g.insertConstant(True))
    body.registerOutput(g.insertNode(g.create("aten::mul", [acc, g.insertConstant(2)])).output())
    g.setInsertPoint(g.return_node())
    g.registerOutput(loop.output())
    g.lint()

    text, tensors = _jit._graph_to_text(g)
    assert len(tensors) == 2
    g2 = _jit._graph_from_text(text, tensors)
    assert str(g2) == str(g)
    assert _jit._graph_to_text(g2)[0] == text
    for value, f in ((tl.randn(3), True), (-tl.ones(3), False)):
        _assert_same(_jit.run_graph(g2, [value, 3, f]), _jit.run_graph(g, [value, 3, f]))
    read = {str(i): v for i, v in enumerate(n.output().toIValue() for n in g2.nodes() if n.kind() == "prim::Constant")}
    assert read["0"] == 1 and read["1"] == -2**63 and read["3"] == float("inf") and read["4"] != read["4"]
    assert str(read["5"]) == "-0.0" and read["8"] == 'qu"o\\te\n\tü' and read["9"] == tl.float16
    assert read["12"] == (1, "a") and read["14"].tolist() == [[1.0, 2.0]]


def test_graph_text_scoping_is_checked():
    """A value defined inside a block cannot be used after it."""
    g = _jit.Graph()
    x = g.addInput("x")
    if_node = g.insertNode(g.create("prim::If", [g.insertConstant(True)], 1))
    for _ in range(2):
        blk = if_node.addBlock()
        g.setInsertPoint(blk.returnNode())
        blk.registerOutput(g.insertNode(g.create("aten::relu", [x])).output())
    g.setInsertPoint(g.return_node())
    g.registerOutput(if_node.output())
    text, tensors = _jit._graph_to_text(g)
    _jit._graph_from_text(text, tensors)
    # values: x 0, the constant 1, the If's output 2, its blocks' relus 3 and 4
    head, tail = text.rsplit("return 1 2", 1)
    bad = head + "return 1 3" + tail
    with pytest.raises(RuntimeError, match="is used where it is not defined"):
        _jit._graph_from_text(bad, tensors)


def test_outputs_match_torch_jit_save_load():
    """The same MLP in both libraries, each saved and loaded by its own jit: same outputs."""
    model, traced, x = _make("mlp")
    pt = torch.nn.Sequential()
    pt.fc1, pt.fc2 = torch.nn.Linear(6, 16), torch.nn.Linear(8 * 2, 4)
    with torch.no_grad():
        for name, p in model.state_dict().items():
            dict(pt.named_parameters())[name].copy_(to_torch(p))

    class PtMLP(torch.nn.Module):
        def __init__(self, seq):
            super().__init__()
            self.fc1, self.fc2 = seq.fc1, seq.fc2

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x)))

    buf = io.BytesIO()
    torch.jit.save(torch.jit.trace(PtMLP(pt), to_torch(x)), buf)
    buf.seek(0)
    pt_loaded = torch.jit.load(buf)
    np.testing.assert_allclose(_roundtrip(traced)(x).detach().numpy(), pt_loaded(to_torch(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_tracing_submodules_leaves_inputs_and_state_alone():
    class AddOne(nn.Module):
        def forward(self, x):
            return x.add_(1)

    tl.manual_seed(0)
    model = nn.Sequential(AddOne(), nn.Linear(3, 3), nn.BatchNorm1d(3), nn.Dropout(0.5)).train()
    x = tl.zeros(4, 3)
    tl.manual_seed(5)
    traced = tl.jit.trace(model, x, check_trace=False)
    after_trace = tl.rand(1)
    assert x.tolist() == [[1.0] * 3] * 4  # written once, by the module's own trace
    assert model[2].num_batches_tracked.item() == 1
    # the same model run once eagerly from the same state: same statistics and random stream
    tl.manual_seed(0)
    ref = nn.Sequential(AddOne(), nn.Linear(3, 3), nn.BatchNorm1d(3), nn.Dropout(0.5)).train()
    tl.manual_seed(5)
    ref(tl.zeros(4, 3))
    assert tl.rand(1).item() == after_trace.item()
    np.testing.assert_array_equal(model[2].running_mean.numpy(), ref[2].running_mean.numpy())
    assert "forward" in getattr(_roundtrip(traced), "1")._methods


def test_none_parameters_and_buffers_are_kept():
    class WithNones(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 2, bias=False)
            self.register_buffer("scale", None)

        def forward(self, x):
            return self.fc(x)

    m = WithNones().eval()
    x = tl.randn(4, 3)
    loaded = _roundtrip(tl.jit.trace(m, x))
    assert loaded.fc.bias is None and loaded.scale is None
    assert "bias" in loaded.fc._parameters and "scale" in loaded._buffers
    assert list(loaded.state_dict()) == ["fc.weight"]
    _assert_same(loaded(x), m(x))
