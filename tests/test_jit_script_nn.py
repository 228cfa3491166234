"""torchlite.jit.script on every torchlite.nn Module class (tests/jit_nn_cases.py builds one of each): the
scripted module gives eager's outputs and PyTorch's (torch.nn's module with the same weights); the classes
PyTorch's script refuses are refused here too, or the difference is listed. The recurrent and attention
modules also: other arguments (states, masks, batch_first, unbatched inputs), gradients equal to eager's,
float64, save/load (in this process and in a fresh one), and their input errors."""
import inspect
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import torchlite as tl
from jit_nn_cases import CASES, NOT_LAYERS

# Modules whose forward draws random numbers in training mode: torchlite draws PyTorch's streams, so with
# both seeded alike the outputs still match.
RANDOM = {"Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
          "FractionalMaxPool2d", "FractionalMaxPool3d"}

# Classes torch.jit.script refuses in PyTorch 2.13, and why; torchlite's script refuses them too (a
# compile-time error, checked below) except where DIFFERENT says otherwise.
TORCH_REFUSES = {
    "AdaptiveLogSoftmaxWithLoss": "forward returns a NamedTuple (_ASMoutput), which script does not type",
    "DataParallel": "forward(*inputs, **kwargs)",
    "GaussianNLLLoss": "F.gaussian_nll_loss has a comprehension with an if (torchlite takes it: a run-time list)",
    "TripletMarginWithDistanceLoss": "its distance_function is a Python callable attribute (torch); "
                                     "F.triplet_margin_with_distance_loss takes keyword-only arguments (both)",
    "MaxUnpool1d": "torch's script fails an internal assert (isIntList) on output_size",
    "MaxUnpool2d": "torch's script fails an internal assert (isIntList) on output_size",
    "MaxUnpool3d": "torch's script fails an internal assert (isIntList) on output_size",
    "SyncBatchNorm": "its forward reads torch.distributed state that script cannot type",
}
# torchlite scripts these although PyTorch does not (compared with PyTorch's eager module instead).
DIFFERENT = {"MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "SyncBatchNorm", "GaussianNLLLoss"}
LAZY = {n for n in CASES if n.startswith("Lazy")}
# Eager torchlite's training-mode RReLU draws its slopes otherwise than PyTorch (eager and scripted agree).
EAGER_DRAWS_DIFFER = {"RReLU"}


def _tl(x):
    return tl.from_numpy(x.numpy().copy()) if isinstance(x, torch.Tensor) else x


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [out]


def _close(got, want, tol=1e-5):
    got, want = _flat(got), _flat(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if w is None:
            assert g is None
            continue
        w = w.detach().numpy() if isinstance(w, torch.Tensor) else w.detach().numpy()
        np.testing.assert_allclose(g.detach().numpy(), w, rtol=tol, atol=tol)


def _pair(name, train=True):
    """(torch module, torchlite module with the torch module's weights), both in train or eval mode."""
    build, _ = CASES[name]
    torch.manual_seed(0)
    tm = build(torch.nn)
    lm = build(tl.nn)
    sd = tm.state_dict()
    if sd:
        lm.load_state_dict({k: _tl(v) for k, v in sd.items()})
    return tm.train(train), lm.train(train)


def _inputs(name, seed=1):
    return CASES[name][1](torch.Generator().manual_seed(seed))


def test_every_module_class_has_a_case():
    classes = {n for n in dir(tl.nn) if inspect.isclass(getattr(tl.nn, n)) and issubclass(getattr(tl.nn, n), tl.nn.Module)}
    assert classes - set(CASES) - set(NOT_LAYERS) == set()
    assert set(CASES) <= classes and set(NOT_LAYERS) <= classes


SCRIPTABLE = sorted(set(CASES) - set(TORCH_REFUSES) - LAZY)
# Classes whose forward reads `training` (script compiles a graph per mode): run in both modes, the others in
# training mode only.
MODE_DEPENDENT = RANDOM | {"RReLU", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d",
                           "InstanceNorm3d", "MultiheadAttention", "RNN", "LSTM", "GRU", "TransformerEncoderLayer",
                           "TransformerDecoderLayer", "TransformerEncoder", "TransformerDecoder", "Transformer"}
MODES = [(n, True) for n in SCRIPTABLE] + [(n, False) for n in SCRIPTABLE if n in MODE_DEPENDENT]


@pytest.mark.parametrize("name,train", MODES, ids=[f"{'train' if t else 'eval'}-{n}" for n, t in MODES])
def test_scripted_module_equals_eager_and_torch(name, train):
    tm, lm = _pair(name, train)
    xs = _inputs(name)
    torch_scripted = torch.jit.script(tm)  # PyTorch scripts it too
    scripted = tl.jit.script(lm)
    args = [_tl(x) for x in xs]
    tl.manual_seed(3)
    got = scripted(*args)
    tl.manual_seed(3)
    eager = lm(*args)
    _close(got, eager, 1e-6)
    if train and name in EAGER_DRAWS_DIFFER:
        return
    torch.manual_seed(3)
    want = torch_scripted(*xs) if hasattr(torch_scripted, "forward") else tm(*xs)  # torch's GRU loses forward
    _close(got, want, 1e-5)


@pytest.mark.parametrize("name", sorted(TORCH_REFUSES))
def test_modules_torch_cannot_script(name):
    tm, lm = _pair(name)
    with pytest.raises(Exception):
        torch.jit.script(tm)
    if name in DIFFERENT:  # torchlite scripts it: compared with PyTorch's eager module
        xs = _inputs(name)
        _close(tl.jit.script(lm)(*[_tl(x) for x in xs]), tm(*xs))
    else:
        with pytest.raises((RuntimeError, tl.jit.frontend.NotSupportedError)):
            tl.jit.script(lm)


@pytest.mark.parametrize("name", sorted(LAZY))
def test_lazy_modules_script_after_their_first_forward(name):
    build, inputs = CASES[name]
    lm = build(tl.nn)
    tm = build(torch.nn)
    with pytest.raises(RuntimeError, match="has uninitialized parameters .* Did you forget to run a forward pass"):
        torch.jit.script(tm)
    with pytest.raises(RuntimeError, match="has uninitialized parameters .* Did you forget to run a forward pass"):
        tl.jit.script(lm)
    xs = [_tl(x) for x in inputs(torch.Generator().manual_seed(1))]
    lm(*xs)  # materializes the parameters; the module becomes its non-lazy class
    _close(tl.jit.script(lm)(*xs), lm(*xs), 1e-6)


# ---- recurrent layers ----------------------------------------------------------------------------------

def _rnn_pair(cls, **kw):
    torch.manual_seed(0)
    tm = getattr(torch.nn, cls)(4, 6, **kw)
    lm = getattr(tl.nn, cls)(4, 6, **kw)
    lm.load_state_dict({k: _tl(v) for k, v in tm.state_dict().items()})
    return tm, lm


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("kw", [{}, {"num_layers": 2, "bidirectional": True}, {"batch_first": True},
                                {"bias": False}], ids=["default", "2-layer-bidir", "batch_first", "no-bias"])
def test_recurrent_layers_with_states(cls, kw):
    tm, lm = _rnn_pair(cls, **kw)
    if cls == "RNN" and not kw:
        tm, lm = _rnn_pair(cls, nonlinearity="relu")
    s, ts = tl.jit.script(lm), tm  # torch scripts it too, but its scripted RNNs lose `forward`: its eager module
    torch.jit.script(tm)
    g = torch.Generator().manual_seed(2)
    x = torch.randn(5, 3, 4, generator=g)
    layers = (2 if kw.get("bidirectional") else 1) * kw.get("num_layers", 1)
    h = torch.randn(layers, 3, 6, generator=g)
    c = torch.randn(layers, 3, 6, generator=g)
    state = (h, c) if cls == "LSTM" else h
    lstate = (_tl(h), _tl(c)) if cls == "LSTM" else _tl(h)
    xb = x.transpose(0, 1).contiguous() if kw.get("batch_first") else x
    _close(s(_tl(xb)), ts(xb))
    _close(s(_tl(xb), lstate), ts(xb, state))
    # unbatched input and state
    state1 = (h[:, 0], c[:, 0]) if cls == "LSTM" else h[:, 0]
    lstate1 = (_tl(h[:, 0]), _tl(c[:, 0])) if cls == "LSTM" else _tl(h[:, 0])
    _close(s(_tl(x[:, 0])), ts(x[:, 0]))
    _close(s(_tl(x[:, 0]), lstate1), ts(x[:, 0], state1))


def test_lstm_with_projections_and_float64():
    tm, lm = _rnn_pair("LSTM", proj_size=3, num_layers=2)
    tm, lm = tm.double(), lm.double()
    x = torch.randn(4, 2, 4, dtype=torch.float64)
    _close(tl.jit.script(lm)(_tl(x)), tm(x), 1e-10)


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_with_and_without_state(cls):
    torch.manual_seed(0)
    tm, lm = getattr(torch.nn, cls)(4, 6), getattr(tl.nn, cls)(4, 6)
    lm.load_state_dict({k: _tl(v) for k, v in tm.state_dict().items()})
    s, ts = tl.jit.script(lm), torch.jit.script(tm)
    ts = ts if hasattr(ts, "forward") else tm
    x, h, c = torch.randn(3, 4), torch.randn(3, 6), torch.randn(3, 6)
    state, lstate = ((h, c), (_tl(h), _tl(c))) if cls == "LSTMCell" else (h, _tl(h))
    _close(s(_tl(x)), ts(x))
    _close(s(_tl(x), lstate), ts(x, state))
    _close(s(_tl(x[0])), ts(x[0]))  # unbatched


@pytest.mark.parametrize("cls", ["LSTM", "GRU"])
def test_recurrent_gradients_equal_eager(cls):
    _, lm = _rnn_pair(cls, num_layers=2)
    s = tl.jit.script(lm)
    x = tl.randn(5, 3, 4, requires_grad=True)
    out = s(x)
    (out[0].sum() + _flat(out[1])[0].pow(2).sum()).backward()
    got = [x.grad] + [p.grad for p in lm.parameters()]
    x.grad = None
    lm.zero_grad()
    out = lm(x)
    (out[0].sum() + _flat(out[1])[0].pow(2).sum()).backward()
    want = [x.grad] + [p.grad for p in lm.parameters()]
    _close(got, want, 1e-6)


def test_recurrent_input_errors_match_eager():
    _, lm = _rnn_pair("LSTM")
    s = tl.jit.script(lm)
    with pytest.raises(RuntimeError, match="ValueError: LSTM: Expected input to be 2D or 3D, got 4D"):
        s(tl.randn(2, 2, 2, 4))
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 4, got 5"):
        s(tl.randn(2, 3, 5))
    for f in (s, lm):  # the same message from the scripted module and from eager
        with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 3, 6\), got \[1, 2, 6\]"):
            f(tl.randn(2, 3, 4), (tl.zeros(1, 2, 6), tl.zeros(1, 3, 6)))


# ---- attention and transformers --------------------------------------------------------------------------

def _attn_pair(kind, **kw):
    torch.manual_seed(0)
    if kind == "MultiheadAttention":
        make = lambda nn: nn.MultiheadAttention(8, 2, **kw)  # noqa: E731
    elif kind == "TransformerEncoderLayer":
        make = lambda nn: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **kw)  # noqa: E731
    else:
        make = lambda nn: nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, **kw)  # noqa: E731
    tm, lm = make(torch.nn), make(tl.nn)
    lm.load_state_dict({k: _tl(v) for k, v in tm.state_dict().items()})
    return tm.eval(), lm.eval()


@pytest.mark.parametrize("kw", [{}, {"batch_first": True}, {"add_bias_kv": True, "add_zero_attn": True},
                                {"kdim": 5, "vdim": 3}, {"bias": False}],
                         ids=["default", "batch_first", "bias_kv-zero_attn", "kdim-vdim", "no-bias"])
def test_multihead_attention_arguments(kw):
    tm, lm = _attn_pair("MultiheadAttention", **kw)
    s, ts = tl.jit.script(lm), tm  # (torch's script refuses bias=False: it reads in_proj_bias.dtype)
    g = torch.Generator().manual_seed(4)
    bf = kw.get("batch_first", False)
    q = torch.randn(*((2, 3, 8) if bf else (3, 2, 8)), generator=g)
    k = torch.randn(*((2, 4, kw.get("kdim", 8)) if bf else (4, 2, kw.get("kdim", 8))), generator=g)
    v = torch.randn(*((2, 4, kw.get("vdim", 8)) if bf else (4, 2, kw.get("vdim", 8))), generator=g)
    _close(s(_tl(q), _tl(k), _tl(v)), ts(q, k, v))
    pad = torch.tensor([[False, False, True, False], [False, True, False, False]])
    mask = torch.randn(3, 4, generator=g)
    _close(s(_tl(q), _tl(k), _tl(v), key_padding_mask=_tl(pad), attn_mask=_tl(mask), need_weights=True,
             average_attn_weights=False),
           ts(q, k, v, key_padding_mask=pad, attn_mask=mask, need_weights=True, average_attn_weights=False))
    _close(s(_tl(q), _tl(k), _tl(v), None, False), ts(q, k, v, None, False))
    if "kdim" not in kw:  # self-attention: one tensor for query, key and value
        _close(s(_tl(q), _tl(q), _tl(q)), ts(q, q, q))
        _close(s(_tl(q[:, 0] if not bf else q[0]), _tl(q[:, 0] if not bf else q[0]), _tl(q[:, 0] if not bf else q[0])),
               ts(q[:, 0] if not bf else q[0], q[:, 0] if not bf else q[0], q[:, 0] if not bf else q[0]))


@pytest.mark.parametrize("kind", ["TransformerEncoderLayer", "TransformerDecoderLayer"])
@pytest.mark.parametrize("kw", [{}, {"norm_first": True, "activation": "gelu"}, {"batch_first": True}],
                         ids=["default", "norm_first-gelu", "batch_first"])
def test_transformer_layers_with_masks(kind, kw):
    tm, lm = _attn_pair(kind, **kw)
    s, ts = tl.jit.script(lm), torch.jit.script(tm)
    g = torch.Generator().manual_seed(5)
    bf = kw.get("batch_first", False)
    x = torch.randn(*((2, 5, 8) if bf else (5, 2, 8)), generator=g)
    mem = torch.randn(*((2, 4, 8) if bf else (4, 2, 8)), generator=g)
    causal = torch.nn.Transformer.generate_square_subsequent_mask(5)
    pad = torch.tensor([[False] * 4 + [True], [False] * 5])
    if kind == "TransformerEncoderLayer":
        _close(s(_tl(x)), ts(x))
        _close(s(_tl(x), _tl(causal), _tl(pad)), ts(x, causal, pad))
        _close(s(_tl(x), src_mask=_tl(causal), is_causal=True), ts(x, src_mask=causal, is_causal=True))
    else:
        _close(s(_tl(x), _tl(mem)), ts(x, mem))
        _close(s(_tl(x), _tl(mem), tgt_mask=_tl(causal), tgt_key_padding_mask=_tl(pad)),
               ts(x, mem, tgt_mask=causal, tgt_key_padding_mask=pad))


def test_transformer_with_masks_float64_and_gradients():
    torch.manual_seed(0)
    tm = torch.nn.Transformer(8, 2, 2, 1, 16, dropout=0.0).double()
    lm = tl.nn.Transformer(8, 2, 2, 1, 16, dropout=0.0).double()
    lm.load_state_dict({k: _tl(v) for k, v in tm.state_dict().items()})
    s = tl.jit.script(lm)
    src, tgt = torch.randn(5, 2, 8, dtype=torch.float64), torch.randn(4, 2, 8, dtype=torch.float64)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    _close(s(_tl(src), _tl(tgt), tgt_mask=_tl(mask)), tm(src, tgt, tgt_mask=mask), 1e-10)
    x = _tl(src).requires_grad_()
    s(x, _tl(tgt), tgt_mask=_tl(mask)).pow(2).sum().backward()
    got = [x.grad] + [p.grad for p in lm.parameters()]
    x.grad = None
    lm.zero_grad()
    lm(x, _tl(tgt), tgt_mask=_tl(mask)).pow(2).sum().backward()
    _close(got, [x.grad] + [p.grad for p in lm.parameters()], 1e-10)


def test_transformer_errors_match_eager():
    _, lm = _attn_pair("TransformerEncoderLayer")
    s = tl.jit.script(lm)
    with pytest.raises(RuntimeError, match="was expecting embedding dimension of 8, but got 6"):
        s(tl.randn(5, 2, 6))
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 8, but got 6"):
        lm(tl.randn(5, 2, 6))


# ---- resampling, transposed convolutions ----------------------------------------------------------------

@pytest.mark.parametrize("kw,shape", [
    ({"scale_factor": 2, "mode": "nearest"}, (1, 2, 3)), ({"size": (5, 4), "mode": "nearest"}, (1, 2, 3, 3)),
    ({"scale_factor": (2, 1.5, 2), "mode": "nearest"}, (1, 1, 2, 2, 2)),
    ({"size": 7, "mode": "linear", "align_corners": True}, (1, 2, 4)),
    ({"scale_factor": 1.7, "mode": "bicubic"}, (1, 2, 4, 4)),
    ({"scale_factor": 2, "mode": "trilinear"}, (1, 1, 2, 3, 2)),
    ({"size": (2, 3), "mode": "area"}, (1, 2, 5, 6)),
    ({"scale_factor": 2.5, "mode": "nearest-exact", "recompute_scale_factor": True}, (1, 2, 3, 3)),
])
def test_upsample_modes(kw, shape):
    tm, lm = torch.nn.Upsample(**kw), tl.nn.Upsample(**kw)
    x = torch.randn(*shape)
    _close(tl.jit.script(lm)(_tl(x)), torch.jit.script(tm)(x))


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_conv_transpose_with_output_size(dims):
    torch.manual_seed(0)
    cls = f"ConvTranspose{dims}d"
    tm, lm = getattr(torch.nn, cls)(2, 3, 3, stride=2), getattr(tl.nn, cls)(2, 3, 3, stride=2)
    lm.load_state_dict({k: _tl(v) for k, v in tm.state_dict().items()})
    x = torch.randn(*([1, 2] + [3] * dims))
    size = [8] * dims
    _close(tl.jit.script(lm)(_tl(x), size), torch.jit.script(tm)(x, size))
    with pytest.raises(RuntimeError, match="requested an output size of"):
        tl.jit.script(lm)(_tl(x), [12] * dims)


# ---- saving and loading ----------------------------------------------------------------------------------

SAVED = ["LSTM", "GRU", "LSTMCell", "MultiheadAttention", "TransformerEncoder", "Transformer", "Upsample",
         "ConvTranspose2d", "LPPool2d", "EmbeddingBag"]


@pytest.mark.parametrize("name", SAVED)
def test_save_load_and_run(name, tmp_path):
    _, lm = _pair(name, train=False)
    args = _all_arguments(lm, [_tl(x) for x in _inputs(name)])
    path = str(tmp_path / "m.pt")
    tl.jit.save(tl.jit.script(lm), path)
    loaded = tl.jit.load(path)
    _close(loaded(*args), lm(*args), 1e-6)


def _all_arguments(module, args):
    """args followed by forward's defaults: an archive keeps no defaults (only Optional ones become None)."""
    bound = inspect.signature(module.forward).bind(*args)
    bound.apply_defaults()
    return list(bound.arguments.values())


def test_scripted_lstm_and_transformer_load_in_a_fresh_process(tmp_path):
    for name in ("LSTM", "TransformerDecoder"):
        _, lm = _pair(name, train=False)
        args = [_tl(x) for x in _inputs(name)]
        tl.jit.save(tl.jit.script(lm), str(tmp_path / f"{name}.pt"))
        for i, a in enumerate(args):
            np.save(tmp_path / f"{name}_in{i}.npy", a.numpy())
        # the decoder's other arguments: masks None, is_causal flags (the archive keeps no defaults)
        for i, o in enumerate(_flat(lm(*args))):
            np.save(tmp_path / f"{name}_out{i}.npy", o.detach().numpy())
    code = textwrap.dedent(f"""
        import glob, numpy as np, torchlite as tl
        for name in ("LSTM", "TransformerDecoder"):
            m = tl.jit.load(r"{tmp_path}/" + name + ".pt")
            ins = [tl.from_numpy(np.load(p)) for p in sorted(glob.glob(r"{tmp_path}/" + name + "_in*.npy"))]
            extra = [None, None, None, None, None, False] if name == "TransformerDecoder" else []
            out = m(*ins, *extra)
            flat = list(out) if isinstance(out, tuple) else [out]
            flat = [t for o in flat for t in (o if isinstance(o, tuple) else (o,))]
            for i, t in enumerate(flat):
                np.testing.assert_allclose(t.detach().numpy(), np.load(r"{tmp_path}/" + name + f"_out{{i}}.npy"), rtol=1e-6,
                                           atol=1e-6)
        print("ok")
    """)
    env = dict(os.environ)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"
