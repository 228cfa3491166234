"""The layer modules (torchlite.nn.Linear, Conv2d, BatchNorm2d, ...) against torch.nn: the same repr, the
same initial parameters for the same seed, the same state_dict keys, and — with torch's parameters loaded
— the same outputs, gradients and running statistics, in training and in eval mode."""
import warnings

import numpy as np
import pytest
import torch

import torchlite as tl

# (constructor call as text, input shapes (one per forward argument), an integer-target spec or None)
LAYERS = [
    ("Linear(5, 3)", [(4, 5)]),
    ("Linear(5, 3, bias=False)", [(2, 7, 5)]),
    ("Bilinear(3, 4, 2)", [(5, 3), (5, 4)]),
    ("Conv1d(3, 4, 3, stride=2, padding=1)", [(2, 3, 9)]),
    ("Conv2d(3, 8, 3, padding=1)", [(2, 3, 8, 8)]),
    ("Conv2d(4, 4, 3, padding='same', groups=4, bias=False)", [(2, 4, 6, 6)]),
    ("Conv2d(2, 4, (3, 2), padding=(1, 2), dilation=(2, 1), padding_mode='reflect')", [(1, 2, 7, 6)]),
    ("Conv2d(2, 2, 3, padding=1, padding_mode='circular')", [(2, 5, 5)]),
    ("Conv3d(2, 3, 2)", [(1, 2, 4, 4, 4)]),
    ("ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=1)", [(2, 3, 4, 4)]),
    ("ConvTranspose1d(4, 2, 3, groups=2)", [(2, 4, 5)]),
    ("MaxPool2d(3, stride=2, padding=1)", [(2, 3, 9, 9)]),
    ("MaxPool1d(2, ceil_mode=True)", [(2, 3, 7)]),
    ("AvgPool2d(2)", [(2, 3, 8, 8)]),
    ("AvgPool1d(3, stride=2, padding=1, count_include_pad=False)", [(2, 3, 9)]),
    ("AdaptiveAvgPool2d((1, 1))", [(2, 3, 7, 5)]),
    ("AdaptiveMaxPool2d(3)", [(2, 3, 7, 5)]),
    ("LPPool2d(2, 2)", [(2, 3, 6, 6)]),
    ("BatchNorm1d(4)", [(8, 4)]),
    ("BatchNorm2d(3)", [(4, 3, 5, 5)]),
    ("BatchNorm2d(3, momentum=None, affine=False)", [(4, 3, 5, 5)]),
    ("BatchNorm3d(2, track_running_stats=False)", [(2, 2, 3, 3, 3)]),
    ("InstanceNorm2d(3, affine=True)", [(2, 3, 5, 5)]),
    ("InstanceNorm1d(3, track_running_stats=True)", [(3, 6)]),
    ("LayerNorm(6)", [(3, 4, 6)]),
    ("LayerNorm([4, 6], elementwise_affine=False)", [(3, 4, 6)]),
    ("GroupNorm(2, 4)", [(3, 4, 5)]),
    ("RMSNorm(6)", [(3, 6)]),
    ("LocalResponseNorm(3)", [(2, 5, 4, 4)]),
    ("Dropout(0.3)", [(4, 5)]),
    ("Embedding(10, 3, padding_idx=0)", "embedding"),
    ("EmbeddingBag(10, 3, mode='sum')", "embedding_bag"),
    ("ZeroPad2d((1, 2, 0, 1))", [(2, 3, 4, 4)]),
    ("ReflectionPad1d(2)", [(2, 3, 5)]),
    ("ReplicationPad2d(1)", [(2, 3, 4, 4)]),
    ("ConstantPad1d(2, 3.5)", [(2, 3, 4)]),
    ("CircularPad2d(1)", [(2, 3, 4, 4)]),
    ("Upsample(scale_factor=2, mode='bilinear')", [(2, 3, 4, 4)]),
    ("Upsample(size=(5, 7), mode='nearest')", [(2, 3, 4, 4)]),
    ("PixelShuffle(2)", [(2, 8, 3, 3)]),
    ("PixelUnshuffle(2)", [(2, 2, 4, 4)]),
    ("ChannelShuffle(2)", [(2, 4, 3, 3)]),
    ("Unfold(2, stride=2)", [(2, 3, 4, 4)]),
    ("Fold((4, 4), 2, stride=2)", [(2, 12, 4)]),
    ("PairwiseDistance()", [(4, 5), (4, 5)]),
    ("CosineSimilarity(dim=1)", [(4, 5), (4, 5)]),
    ("Flatten()", [(2, 3, 4)]),
]


def _inputs(lib, spec, seed=0):
    rng = np.random.default_rng(seed)
    if spec == "embedding":
        return [lib.tensor(rng.integers(0, 10, (3, 4)))]
    if spec == "embedding_bag":
        return [lib.tensor(rng.integers(0, 10, (8,))), lib.tensor([0, 3, 3, 6])]
    return [lib.tensor(rng.standard_normal(s).astype("float32")).requires_grad_() for s in spec]


def _build(lib, text, seed=0):
    lib.manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return eval("lib.nn." + text, {"lib": lib})


@pytest.mark.parametrize("text,spec", LAYERS, ids=[t for t, _ in LAYERS])
def test_repr_and_state_dict_keys_match_torch(text, spec):
    ours, theirs = _build(tl, text), _build(torch, text)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())


@pytest.mark.parametrize("text,spec", LAYERS, ids=[t for t, _ in LAYERS])
def test_default_initialisation_equals_torch_for_the_same_seed(text, spec):
    ours, theirs = _build(tl, text, seed=7), _build(torch, text, seed=7)
    for (name, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)


def _load_torch_params(ours, theirs):
    ours.load_state_dict({k: tl.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("text,spec", [l for l in LAYERS if not l[0].startswith("Dropout")],
                         ids=[t for t, _ in LAYERS if not t.startswith("Dropout")])
def test_forward_and_gradients_match_torch(text, spec, training):
    theirs = _build(torch, text, seed=3)
    ours = _build(tl, text, seed=3)
    _load_torch_params(ours, theirs)
    ours.train(training)
    theirs.train(training)
    xs, ts = _inputs(tl, spec), _inputs(torch, spec)
    y, z = ours(*xs), theirs(*ts)
    np.testing.assert_allclose(y.detach().numpy(), z.detach().numpy(), rtol=1e-4, atol=1e-5)
    if z.requires_grad:
        z.square().sum().backward()
        y.square().sum().backward()
        for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-4, err_msg=name)
        for a, b in zip(xs, ts):
            if b.grad is not None:
                np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4, atol=1e-4)
    for (name, a), (_, b) in zip(ours.named_buffers(), theirs.named_buffers()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)


def test_batchnorm_running_statistics_over_steps():
    ours, theirs = _build(tl, "BatchNorm2d(3, momentum=None)"), _build(torch, "BatchNorm2d(3, momentum=None)")
    for seed in range(4):
        ours(_inputs(tl, [(4, 3, 2, 2)], seed)[0])
        theirs(_inputs(torch, [(4, 3, 2, 2)], seed)[0])
    for (name, a), (_, b) in zip(ours.named_buffers(), theirs.named_buffers()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, err_msg=name)
    assert ours.num_batches_tracked.item() == 4


@pytest.mark.parametrize("text,spec", [
    ("ConvTranspose2d(3, 2, 3, stride=2, padding=1)", [(2, 3, 4, 4)]),
])
def test_conv_transpose_output_size(text, spec):
    ours, theirs = _build(tl, text), _build(torch, text)
    _load_torch_params(ours, theirs)
    y = ours(_inputs(tl, spec)[0], output_size=[8, 8])
    z = theirs(_inputs(torch, spec)[0], output_size=[8, 8])
    np.testing.assert_allclose(y.detach().numpy(), z.detach().numpy(), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="requested an output size of"):
        ours(_inputs(tl, spec)[0], output_size=[20, 20])


@pytest.mark.parametrize("text,error,message", [
    ("Conv2d(3, 4, 3, groups=2)", ValueError, "in_channels must be divisible by groups"),
    ("Conv2d(4, 3, 3, groups=2)", ValueError, "out_channels must be divisible by groups"),
    ("Conv2d(4, 4, 3, padding='full')", ValueError, "Invalid padding string 'full'"),
    ("Conv2d(4, 4, 3, stride=2, padding='same')", ValueError, "padding='same' is not supported for strided"),
    ("Conv2d(4, 4, 3, padding_mode='wrap')", ValueError, "padding_mode must be one of"),
    ("ConvTranspose2d(4, 4, 3, padding_mode='reflect')", ValueError, 'Only "zeros" padding mode is supported'),
    ("GroupNorm(3, 4)", ValueError, r"num_channels \(4\) must be divisible by num_groups \(3\)"),
    ("Dropout(1.5)", ValueError, "dropout probability has to be between 0 and 1, but got 1.5"),
    ("Embedding(5, 2, padding_idx=5)", AssertionError, "Padding_idx must be within num_embeddings"),
    ("MultiMarginLoss(p=3)", ValueError, "only p == 1 and p == 2 supported"),
    ("TripletMarginLoss(margin=0)", ValueError, "expected margin to be greater than 0"),
])
def test_constructor_errors_match_torch(text, error, message):
    for lib in (tl, torch):
        with pytest.raises(error, match=message):
            _build(lib, text)


def test_batchnorm_input_rank_errors():
    with pytest.raises(ValueError, match="expected 4D input \\(got 3D input\\)"):
        tl.nn.BatchNorm2d(3)(tl.ones(2, 3, 4))


LOSSES = [
    ("CrossEntropyLoss()", "class"), ("CrossEntropyLoss(label_smoothing=0.1, reduction='sum')", "class"),
    ("NLLLoss(ignore_index=1)", "class"), ("MSELoss()", "same"), ("L1Loss(reduction='none')", "same"),
    ("SmoothL1Loss(beta=0.5)", "same"), ("HuberLoss(delta=0.7)", "same"), ("BCELoss()", "prob"),
    ("BCEWithLogitsLoss()", "prob"), ("KLDivLoss(reduction='batchmean')", "prob"), ("SoftMarginLoss()", "sign"),
    ("MultiLabelSoftMarginLoss()", "prob"), ("MultiMarginLoss()", "class"), ("PoissonNLLLoss()", "same"),
    ("HingeEmbeddingLoss()", "sign"),
]


@pytest.mark.parametrize("text,kind", LOSSES, ids=[t for t, _ in LOSSES])
def test_loss_modules_match_torch(text, kind):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 5)).astype("float32")
    if kind == "class":
        t = rng.integers(0, 5, (4,))
    elif kind == "prob":
        x = 1 / (1 + np.exp(-x)) if text.startswith("BCELoss") else x
        t = rng.random((4, 5)).astype("float32")
    elif kind == "sign":
        t = np.sign(rng.standard_normal((4, 5))).astype("float32")
    else:
        t = rng.standard_normal((4, 5)).astype("float32")
    results = []
    for lib in (tl, torch):
        xi = lib.tensor(x).requires_grad_()
        loss = _build(lib, text)(xi, lib.tensor(t))
        loss.sum().backward()
        results.append((loss.detach().numpy(), xi.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-5, atol=1e-6)


def test_legacy_size_average_maps_to_reduction_with_a_warning():
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated, please use "
                                         "reduction='sum' instead."):
        loss = tl.nn.MSELoss(size_average=False)
    assert loss.reduction == "sum"


def test_lazy_linear_and_conv_materialize_like_torch():
    for text, shape in (("LazyLinear(3)", (2, 5)), ("LazyConv2d(4, 3)", (1, 2, 6, 6))):
        ours, theirs = _build(tl, text, seed=1), _build(torch, text, seed=1)
        ours(_inputs(tl, [shape])[0])
        theirs(_inputs(torch, [shape])[0])
        assert type(ours).__name__ == type(theirs).__name__ and repr(ours) == repr(theirs)


def test_a_small_convnet_trains_like_torch():
    def net(lib):
        nn = lib.nn
        lib.manual_seed(0)
        return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Flatten(), nn.Linear(4 * 4 * 4, 3))

    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 1, 8, 8)).astype("float32")
    y = rng.integers(0, 3, (8,))
    losses = []
    for lib in (tl, torch):
        model = net(lib)
        opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        trace = []
        for _ in range(5):
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(lib.tensor(x)), lib.tensor(y))
            loss.backward()
            opt.step()
            trace.append(loss.item())
        losses.append(trace)
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-4)


RECURRENT = [
    ("LSTM(5, 7)", (6, 3, 5)), ("LSTM(5, 7, num_layers=2, bidirectional=True, batch_first=True)", (3, 6, 5)),
    ("LSTM(5, 7, proj_size=3)", (6, 3, 5)), ("GRU(5, 7, num_layers=2)", (6, 3, 5)),
    ("RNN(5, 7, nonlinearity='relu')", (6, 3, 5)), ("RNN(5, 7)", (6, 5)),
]


@pytest.mark.parametrize("text,shape", RECURRENT, ids=[t for t, _ in RECURRENT])
def test_recurrent_layers_match_torch(text, shape):
    ours, theirs = _build(tl, text, seed=2), _build(torch, text, seed=2)
    assert repr(ours) == repr(theirs) and list(ours.state_dict()) == list(theirs.state_dict())
    for (name, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)
    x, y = _inputs(tl, [shape])[0], _inputs(torch, [shape])[0]
    out, hidden = ours(x)
    ref, ref_hidden = theirs(y)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-4, atol=1e-5)
    out.square().sum().backward()
    ref.square().sum().backward()
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-4, err_msg=name)


@pytest.mark.parametrize("text,shape", [("LSTMCell(5, 7)", (3, 5)), ("GRUCell(5, 7)", (3, 5)),
                                        ("RNNCell(5, 7, nonlinearity='relu')", (5,))])
def test_recurrent_cells_match_torch(text, shape):
    ours, theirs = _build(tl, text, seed=2), _build(torch, text, seed=2)
    assert repr(ours) == repr(theirs)
    a = ours(_inputs(tl, [shape])[0])
    b = theirs(_inputs(torch, [shape])[0])
    a, b = (a[0], b[0]) if isinstance(a, tuple) else (a, b)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("batch_first", [False, True])
def test_multihead_attention_and_transformer_match_torch(batch_first):
    text = f"MultiheadAttention(8, 2, batch_first={batch_first})"
    ours, theirs = _build(tl, text, seed=4), _build(torch, text, seed=4)
    for (name, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)
    x, y = _inputs(tl, [(5, 3, 8)])[0], _inputs(torch, [(5, 3, 8)])[0]
    seq = 3 if batch_first else 5  # inputs are (5, 3, 8): (batch, seq) or (seq, batch)
    mask_tl = tl.nn.Transformer.generate_square_subsequent_mask(seq)
    mask_t = torch.nn.Transformer.generate_square_subsequent_mask(seq)
    out, w = ours(x, x, x, attn_mask=mask_tl)
    ref, rw = theirs(y, y, y, attn_mask=mask_t)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(w.detach().numpy(), rw.detach().numpy(), rtol=1e-4, atol=1e-5)
    text = f"TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first={batch_first})"
    enc, ref_enc = _build(tl, text, seed=5), _build(torch, text, seed=5)
    _load_torch_params(enc, ref_enc)
    np.testing.assert_allclose(enc(x).detach().numpy(), ref_enc(y).detach().numpy(), rtol=1e-4, atol=1e-5)
    text = f"Transformer(8, 2, 2, 2, 16, dropout=0.0, batch_first={batch_first})"
    full, ref_full = _build(tl, text, seed=6), _build(torch, text, seed=6)
    assert list(full.state_dict()) == list(ref_full.state_dict())
    _load_torch_params(full, ref_full)
    full.eval(), ref_full.eval()
    with torch.no_grad():
        expected = ref_full(y, y, tgt_mask=mask_t).numpy()
    np.testing.assert_allclose(full(x, x, tgt_mask=mask_tl).detach().numpy(), expected, rtol=1e-4, atol=1e-5)
