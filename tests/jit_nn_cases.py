"""One typical instance of every torchlite.nn Module class, for tests/test_jit_script_nn.py: how to build it
(the same call on `torch.nn` and `torchlite.nn`, so the two can share weights) and inputs for its forward.

`CASES[name] = (build, inputs)`: `build(nn)` makes the module from either library's `nn`; `inputs(g)` makes
torch tensors from a seeded generator `g` (the test converts them for torchlite). Classes that are not
layers (abstract bases, containers without forward, wrappers) are in `NOT_LAYERS` with the reason."""
import torch


def _r(g, *shape):
    return torch.randn(*shape, generator=g)


def _p(g, *shape):
    return torch.rand(*shape, generator=g) * 0.9 + 0.05


def _long(g, high, *shape):
    return torch.randint(0, high, shape, generator=g)


def _sign(g, *shape):
    return torch.randint(0, 2, shape, generator=g).float() * 2 - 1


def _unpool_inputs(dims):
    def make(g):
        x = _r(g, *([1, 2] + [4] * dims))
        pool = [None, torch.nn.functional.max_pool1d, torch.nn.functional.max_pool2d,
                torch.nn.functional.max_pool3d][dims]
        out, idx = pool(x, 2, return_indices=True)
        return out, idx
    return make


def _ctc_inputs(g):
    log_probs = _r(g, 6, 2, 5).log_softmax(2)
    targets = torch.randint(1, 5, (2, 3), generator=g)
    return log_probs, targets, torch.tensor([6, 5]), torch.tensor([3, 2])


def _multilabel_margin_inputs(g):
    return _r(g, 3, 4), torch.tensor([[3, 0, -1, 1], [1, 2, 3, -1], [0, -1, 2, 1]])


def _x(*shape):
    return lambda g: (_r(g, *shape),)


def _xy(*shape):
    return lambda g: (_r(g, *shape), _r(g, *shape))


_ACTIVATIONS = ["CELU", "ELU", "GELU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "LeakyReLU",
                "LogSigmoid", "Mish", "ReLU", "ReLU6", "SELU", "SiLU", "Sigmoid", "Softplus", "Softshrink",
                "Softsign", "Tanh", "Tanhshrink"]

CASES = {name: (lambda nn, name=name: getattr(nn, name)(), _x(3, 4)) for name in _ACTIVATIONS}
CASES.update({
    "GLU": (lambda nn: nn.GLU(), _x(3, 4)),
    "PReLU": (lambda nn: nn.PReLU(3), _x(2, 3, 4)),
    "RReLU": (lambda nn: nn.RReLU().eval(), _x(3, 4)),
    "Threshold": (lambda nn: nn.Threshold(0.1, 20.0), _x(3, 4)),
    "Softmax": (lambda nn: nn.Softmax(dim=1), _x(3, 4)),
    "Softmin": (lambda nn: nn.Softmin(dim=-1), _x(3, 4)),
    "LogSoftmax": (lambda nn: nn.LogSoftmax(dim=1), _x(3, 4)),
    "Softmax2d": (lambda nn: nn.Softmax2d(), _x(2, 3, 2, 2)),
    "MultiheadAttention": (lambda nn: nn.MultiheadAttention(8, 2), lambda g: (_r(g, 3, 2, 8),) * 3),
    "AdaptiveAvgPool1d": (lambda nn: nn.AdaptiveAvgPool1d(3), _x(2, 4, 8)),
    "AdaptiveAvgPool2d": (lambda nn: nn.AdaptiveAvgPool2d((3, 2)), _x(2, 4, 8, 7)),
    "AdaptiveAvgPool3d": (lambda nn: nn.AdaptiveAvgPool3d(2), _x(1, 2, 4, 4, 5)),
    "AdaptiveMaxPool1d": (lambda nn: nn.AdaptiveMaxPool1d(3), _x(2, 4, 8)),
    "AdaptiveMaxPool2d": (lambda nn: nn.AdaptiveMaxPool2d((3, 2)), _x(2, 4, 8, 7)),
    "AdaptiveMaxPool3d": (lambda nn: nn.AdaptiveMaxPool3d(2), _x(1, 2, 4, 4, 5)),
    "AdaptiveLogSoftmaxWithLoss": (lambda nn: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 8]),
                                   lambda g: (_r(g, 5, 8), _long(g, 10, 5))),
    "AvgPool1d": (lambda nn: nn.AvgPool1d(2), _x(2, 3, 8)),
    "AvgPool2d": (lambda nn: nn.AvgPool2d(3, stride=2, padding=1), _x(2, 3, 8, 8)),
    "AvgPool3d": (lambda nn: nn.AvgPool3d(2), _x(1, 2, 4, 4, 4)),
    "MaxPool1d": (lambda nn: nn.MaxPool1d(2), _x(2, 3, 8)),
    "MaxPool2d": (lambda nn: nn.MaxPool2d(3, stride=2, padding=1), _x(2, 3, 8, 8)),
    "MaxPool3d": (lambda nn: nn.MaxPool3d(2), _x(1, 2, 4, 4, 4)),
    "LPPool1d": (lambda nn: nn.LPPool1d(2, 2), lambda g: (_p(g, 2, 3, 8),)),
    "LPPool2d": (lambda nn: nn.LPPool2d(2, 2), lambda g: (_p(g, 2, 3, 4, 4),)),
    "LPPool3d": (lambda nn: nn.LPPool3d(2, 2), lambda g: (_p(g, 1, 2, 4, 4, 4),)),
    "MaxUnpool1d": (lambda nn: nn.MaxUnpool1d(2), _unpool_inputs(1)),
    "MaxUnpool2d": (lambda nn: nn.MaxUnpool2d(2), _unpool_inputs(2)),
    "MaxUnpool3d": (lambda nn: nn.MaxUnpool3d(2), _unpool_inputs(3)),
    "FractionalMaxPool2d": (lambda nn: nn.FractionalMaxPool2d(2, output_size=3), _x(1, 2, 6, 6)),
    "FractionalMaxPool3d": (lambda nn: nn.FractionalMaxPool3d(2, output_size=3), _x(1, 2, 6, 6, 6)),
    "BatchNorm1d": (lambda nn: nn.BatchNorm1d(4), _x(3, 4, 5)),
    "BatchNorm2d": (lambda nn: nn.BatchNorm2d(4), _x(3, 4, 2, 2)),
    "BatchNorm3d": (lambda nn: nn.BatchNorm3d(4), _x(2, 4, 2, 2, 2)),
    "InstanceNorm1d": (lambda nn: nn.InstanceNorm1d(4, affine=True), _x(2, 4, 5)),
    "InstanceNorm2d": (lambda nn: nn.InstanceNorm2d(4), _x(2, 4, 3, 3)),
    "InstanceNorm3d": (lambda nn: nn.InstanceNorm3d(4, track_running_stats=True), _x(2, 4, 2, 3, 2)),
    "GroupNorm": (lambda nn: nn.GroupNorm(2, 4), _x(2, 4, 3)),
    "LayerNorm": (lambda nn: nn.LayerNorm(5), _x(2, 3, 5)),
    "RMSNorm": (lambda nn: nn.RMSNorm([3, 5]), _x(2, 3, 5)),
    "LocalResponseNorm": (lambda nn: nn.LocalResponseNorm(2), _x(2, 4, 3, 3)),
    "Linear": (lambda nn: nn.Linear(4, 3), _x(2, 4)),
    "Bilinear": (lambda nn: nn.Bilinear(3, 4, 5), lambda g: (_r(g, 2, 3), _r(g, 2, 4))),
    "Identity": (lambda nn: nn.Identity(), _x(2, 3)),
    "Flatten": (lambda nn: nn.Flatten(), _x(2, 3, 4)),
    "Unflatten": (lambda nn: nn.Unflatten(1, (2, 3)), _x(2, 6, 4)),
    "Conv1d": (lambda nn: nn.Conv1d(2, 3, 3, padding=1, padding_mode="circular"), _x(2, 2, 8)),
    "Conv2d": (lambda nn: nn.Conv2d(2, 3, 3, stride=2), _x(2, 2, 7, 7)),
    "Conv3d": (lambda nn: nn.Conv3d(2, 3, 2, padding="same"), _x(1, 2, 4, 4, 4)),
    "ConvTranspose1d": (lambda nn: nn.ConvTranspose1d(2, 3, 3, stride=2), _x(2, 2, 5)),
    "ConvTranspose2d": (lambda nn: nn.ConvTranspose2d(2, 3, 3, stride=2, output_padding=1), _x(1, 2, 4, 4)),
    "ConvTranspose3d": (lambda nn: nn.ConvTranspose3d(2, 3, 2, stride=2), _x(1, 2, 2, 3, 2)),
    "Dropout": (lambda nn: nn.Dropout(0.3), _x(4, 5)),
    "Dropout1d": (lambda nn: nn.Dropout1d(0.3), _x(2, 4, 5)),
    "Dropout2d": (lambda nn: nn.Dropout2d(0.3), _x(2, 4, 3, 3)),
    "Dropout3d": (lambda nn: nn.Dropout3d(0.3), _x(2, 4, 2, 2, 2)),
    "AlphaDropout": (lambda nn: nn.AlphaDropout(0.3), _x(4, 5)),
    "FeatureAlphaDropout": (lambda nn: nn.FeatureAlphaDropout(0.3), _x(2, 4, 3, 3)),
    "Embedding": (lambda nn: nn.Embedding(10, 4, padding_idx=0), lambda g: (_long(g, 10, 2, 3),)),
    "EmbeddingBag": (lambda nn: nn.EmbeddingBag(10, 4, mode="mean"), lambda g: (_long(g, 10, 2, 3),)),
    "ChannelShuffle": (lambda nn: nn.ChannelShuffle(2), _x(1, 4, 3, 3)),
    "PixelShuffle": (lambda nn: nn.PixelShuffle(2), _x(1, 8, 2, 3)),
    "PixelUnshuffle": (lambda nn: nn.PixelUnshuffle(2), _x(1, 2, 4, 6)),
    "Upsample": (lambda nn: nn.Upsample(scale_factor=2, mode="bilinear"), _x(1, 2, 3, 3)),
    "UpsamplingNearest2d": (lambda nn: nn.UpsamplingNearest2d(size=(5, 4)), _x(1, 2, 3, 3)),
    "UpsamplingBilinear2d": (lambda nn: nn.UpsamplingBilinear2d(scale_factor=2), _x(1, 2, 3, 3)),
    "Fold": (lambda nn: nn.Fold(output_size=(4, 5), kernel_size=2), _x(1, 12, 12)),
    "Unfold": (lambda nn: nn.Unfold(kernel_size=2, padding=1), _x(1, 2, 4, 4)),
    "CosineSimilarity": (lambda nn: nn.CosineSimilarity(dim=1), _xy(4, 5)),
    "PairwiseDistance": (lambda nn: nn.PairwiseDistance(p=3.0), _xy(4, 5)),
    "RNN": (lambda nn: nn.RNN(4, 6, num_layers=2), _x(5, 3, 4)),
    "LSTM": (lambda nn: nn.LSTM(4, 6, num_layers=2), _x(5, 3, 4)),
    "GRU": (lambda nn: nn.GRU(4, 6, num_layers=2), _x(5, 3, 4)),
    "RNNCell": (lambda nn: nn.RNNCell(4, 6), _x(3, 4)),
    "LSTMCell": (lambda nn: nn.LSTMCell(4, 6), _x(3, 4)),
    "GRUCell": (lambda nn: nn.GRUCell(4, 6), _x(3, 4)),
    "TransformerEncoderLayer": (lambda nn: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), _x(5, 2, 8)),
    "TransformerDecoderLayer": (lambda nn: nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0),
                                lambda g: (_r(g, 4, 2, 8), _r(g, 5, 2, 8))),
    "TransformerEncoder": (lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2,
                                                            enable_nested_tensor=False), _x(5, 2, 8)),
    "TransformerDecoder": (lambda nn: nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2),
                           lambda g: (_r(g, 4, 2, 8), _r(g, 5, 2, 8))),
    "Transformer": (lambda nn: nn.Transformer(8, 2, 1, 1, 16, dropout=0.0),
                    lambda g: (_r(g, 5, 2, 8), _r(g, 4, 2, 8))),
    "Sequential": (lambda nn: nn.Sequential(nn.Linear(4, 3), nn.ReLU()), _x(2, 4)),
    "L1Loss": (lambda nn: nn.L1Loss(), _xy(3, 4)),
    "MSELoss": (lambda nn: nn.MSELoss(reduction="sum"), _xy(3, 4)),
    "HuberLoss": (lambda nn: nn.HuberLoss(delta=0.5), _xy(3, 4)),
    "SmoothL1Loss": (lambda nn: nn.SmoothL1Loss(beta=0.5), _xy(3, 4)),
    "SoftMarginLoss": (lambda nn: nn.SoftMarginLoss(), lambda g: (_r(g, 3, 4), _sign(g, 3, 4))),
    "BCELoss": (lambda nn: nn.BCELoss(), lambda g: (_p(g, 3, 4), _p(g, 3, 4))),
    "BCEWithLogitsLoss": (lambda nn: nn.BCEWithLogitsLoss(), lambda g: (_r(g, 3, 4), _p(g, 3, 4))),
    "KLDivLoss": (lambda nn: nn.KLDivLoss(reduction="batchmean"), lambda g: (_r(g, 3, 4).log_softmax(1),
                                                                              _r(g, 3, 4).softmax(1))),
    "PoissonNLLLoss": (lambda nn: nn.PoissonNLLLoss(), lambda g: (_r(g, 3, 4), _p(g, 3, 4) * 3)),
    "GaussianNLLLoss": (lambda nn: nn.GaussianNLLLoss(), lambda g: (_r(g, 3, 4), _r(g, 3, 4), _p(g, 3, 4))),
    "NLLLoss": (lambda nn: nn.NLLLoss(), lambda g: (_r(g, 4, 5).log_softmax(1), _long(g, 5, 4))),
    "NLLLoss2d": (lambda nn: nn.NLLLoss2d(), lambda g: (_r(g, 2, 5, 3, 3).log_softmax(1), _long(g, 5, 2, 3, 3))),
    "CrossEntropyLoss": (lambda nn: nn.CrossEntropyLoss(label_smoothing=0.1), lambda g: (_r(g, 4, 5),
                                                                                          _long(g, 5, 4))),
    "CTCLoss": (lambda nn: nn.CTCLoss(), _ctc_inputs),
    "HingeEmbeddingLoss": (lambda nn: nn.HingeEmbeddingLoss(), lambda g: (_r(g, 3, 4), _sign(g, 3, 4))),
    "CosineEmbeddingLoss": (lambda nn: nn.CosineEmbeddingLoss(0.1), lambda g: (_r(g, 4, 5), _r(g, 4, 5),
                                                                                _sign(g, 4))),
    "MarginRankingLoss": (lambda nn: nn.MarginRankingLoss(0.2), lambda g: (_r(g, 6), _r(g, 6), _sign(g, 6))),
    "MultiLabelMarginLoss": (lambda nn: nn.MultiLabelMarginLoss(), _multilabel_margin_inputs),
    "MultiLabelSoftMarginLoss": (lambda nn: nn.MultiLabelSoftMarginLoss(),
                                 lambda g: (_r(g, 3, 4), _long(g, 2, 3, 4).float())),
    "MultiMarginLoss": (lambda nn: nn.MultiMarginLoss(p=2), lambda g: (_r(g, 3, 4), _long(g, 4, 3))),
    "TripletMarginLoss": (lambda nn: nn.TripletMarginLoss(margin=0.5), lambda g: (_r(g, 3, 4), _r(g, 3, 4),
                                                                                   _r(g, 3, 4))),
    "TripletMarginWithDistanceLoss": (lambda nn: nn.TripletMarginWithDistanceLoss(),
                                      lambda g: (_r(g, 3, 4), _r(g, 3, 4), _r(g, 3, 4))),
    "LazyLinear": (lambda nn: nn.LazyLinear(3), _x(2, 4)),
    "LazyConv1d": (lambda nn: nn.LazyConv1d(3, 2), _x(1, 2, 5)),
    "LazyConv2d": (lambda nn: nn.LazyConv2d(3, 2), _x(1, 2, 5, 5)),
    "LazyConv3d": (lambda nn: nn.LazyConv3d(3, 2), _x(1, 2, 3, 3, 3)),
    "LazyConvTranspose1d": (lambda nn: nn.LazyConvTranspose1d(3, 2), _x(1, 2, 5)),
    "LazyConvTranspose2d": (lambda nn: nn.LazyConvTranspose2d(3, 2), _x(1, 2, 5, 5)),
    "LazyConvTranspose3d": (lambda nn: nn.LazyConvTranspose3d(3, 2), _x(1, 2, 3, 3, 3)),
    "LazyBatchNorm1d": (lambda nn: nn.LazyBatchNorm1d(), _x(3, 4, 5)),
    "LazyBatchNorm2d": (lambda nn: nn.LazyBatchNorm2d(), _x(3, 4, 2, 2)),
    "LazyBatchNorm3d": (lambda nn: nn.LazyBatchNorm3d(), _x(2, 4, 2, 2, 2)),
    "LazyInstanceNorm1d": (lambda nn: nn.LazyInstanceNorm1d(), _x(2, 4, 5)),
    "LazyInstanceNorm2d": (lambda nn: nn.LazyInstanceNorm2d(), _x(2, 4, 3, 3)),
    "LazyInstanceNorm3d": (lambda nn: nn.LazyInstanceNorm3d(), _x(2, 4, 2, 3, 2)),
    "SyncBatchNorm": (lambda nn: nn.SyncBatchNorm(4), _x(3, 4, 5)),
    "DataParallel": (lambda nn: nn.DataParallel(nn.Linear(4, 3)), _x(2, 4)),
})
for _d, _shape in ((1, (1, 2, 5)), (2, (1, 2, 4, 5)), (3, (1, 2, 3, 4, 3))):
    CASES.update({
        f"ConstantPad{_d}d": (lambda nn, d=_d: getattr(nn, f"ConstantPad{d}d")(2, 1.5), _x(*_shape)),
        f"ZeroPad{_d}d": (lambda nn, d=_d: getattr(nn, f"ZeroPad{d}d")(1), _x(*_shape)),
        f"ReflectionPad{_d}d": (lambda nn, d=_d: getattr(nn, f"ReflectionPad{d}d")(1), _x(*_shape)),
        f"ReplicationPad{_d}d": (lambda nn, d=_d: getattr(nn, f"ReplicationPad{d}d")(2), _x(*_shape)),
        f"CircularPad{_d}d": (lambda nn, d=_d: getattr(nn, f"CircularPad{d}d")(1), _x(*_shape)),
    })

NOT_LAYERS = {
    "Module": "the base class (forward raises NotImplementedError)",
    "Container": "deprecated container without forward",
    "ModuleList": "a container without forward (scripted through the modules that index it)",
    "ModuleDict": "a container without forward (scripted through the modules that index it)",
    "ParameterList": "a container without forward",
    "ParameterDict": "a container without forward",
    "RNNBase": "the base class of RNN/LSTM/GRU (its forward is the subclasses')",
    "RNNCellBase": "the base class of the cells",
}
