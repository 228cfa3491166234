"""Calls every torch.nn.functional function (and the in-place and mode variants that matter) with complex64
arguments in PyTorch and in torchlite, and lists where torchlite refuses what PyTorch computes (GAP), computes
something else or raises another exception type (DIFF), or computes what PyTorch refuses (EXTRA).
Run `python tools/complex_nn_audit.py` (`-v` for every call, `--complex128` for complex128 arguments); tests/test_complex_nn_audit.py holds torchlite to
the result (no DIFF, no EXTRA, GAPs only the ones listed in docs/complex.md).

Each entry is (name, call): call(L, S) with L the library and S a namespace of complex64 (or complex128) tensors made by the
library from the same values (S.x4: 2x3x4x5, S.x3: 2x3x6, S.x2: 3x4, S.y2: 3x4 without zeros, S.m: 4x4, S.x5:
1x2x3x4x4, S.q/S.k/S.v: 2x3x4 attention operands, S.r2: a real 3x4, S.idx: int64 indices). Random calls
(dropout in training mode) are seeded with 0 in both libraries right before the call."""
from __future__ import annotations

import sys
import types

import numpy as np


def _c(rng, shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def _inputs(lib, dtype="complex64"):
    rng = np.random.default_rng(0)
    arrays = dict(x4=_c(rng, (2, 3, 4, 5)), x3=_c(rng, (2, 3, 6)), x2=_c(rng, (3, 4)), m=_c(rng, (4, 4)),
                  x5=_c(rng, (1, 2, 3, 4, 4)), q=_c(rng, (2, 3, 4)), k=_c(rng, (2, 5, 4)), v=_c(rng, (2, 5, 4)),
                  w3=_c(rng, (2, 3, 4)))
    arrays["y2"] = rng.uniform(0.5, 1.5, (3, 4)) * np.exp(1j * rng.uniform(-3, 3, (3, 4)))
    s = types.SimpleNamespace(**{k: lib.from_numpy(a.astype(dtype)) for k, a in arrays.items()})
    s.r2 = lib.from_numpy(rng.standard_normal((3, 4)).astype(np.float32))
    s.idx = lib.tensor([[0, 2, 1], [3, 0, 0]])
    s.target = lib.tensor([0, 3, 1])
    return s


def F(L):
    return L.nn.functional


# (name, call, random). `L` is the library under test; calls read as PyTorch code.
CALLS = [
    # padding, every mode
    ("pad constant", lambda L, S: F(L).pad(S.x4, (1, 2, 0, 1))),
    ("pad constant value", lambda L, S: F(L).pad(S.x3, (1, 1), value=2.0)),
    ("pad reflect 1d", lambda L, S: F(L).pad(S.x3, (2, 1), mode="reflect")),
    ("pad reflect 2d", lambda L, S: F(L).pad(S.x4, (1, 2, 2, 1), mode="reflect")),
    ("pad reflect 3d", lambda L, S: F(L).pad(S.x5, (1, 1, 1, 1, 1, 1), mode="reflect")),
    ("pad replicate 1d", lambda L, S: F(L).pad(S.x3, (2, 1), mode="replicate")),
    ("pad replicate 2d", lambda L, S: F(L).pad(S.x4, (1, 2, 2, 1), mode="replicate")),
    ("pad replicate 3d", lambda L, S: F(L).pad(S.x5, (1, 0, 1, 1, 0, 1), mode="replicate")),
    ("pad circular 1d", lambda L, S: F(L).pad(S.x3, (2, 1), mode="circular")),
    ("pad circular 2d", lambda L, S: F(L).pad(S.x4, (1, 2, 2, 1), mode="circular")),
    ("pad circular 3d", lambda L, S: F(L).pad(S.x5, (1, 1, 1, 1, 1, 1), mode="circular")),
    # resampling
    ("interpolate nearest", lambda L, S: F(L).interpolate(S.x4, scale_factor=2, mode="nearest")),
    ("interpolate nearest-exact", lambda L, S: F(L).interpolate(S.x4, size=(3, 7), mode="nearest-exact")),
    ("interpolate nearest 1d", lambda L, S: F(L).interpolate(S.x3, size=9)),
    ("interpolate nearest 3d", lambda L, S: F(L).interpolate(S.x5, scale_factor=2)),
    ("interpolate linear", lambda L, S: F(L).interpolate(S.x3, size=9, mode="linear")),
    ("interpolate bilinear", lambda L, S: F(L).interpolate(S.x4, size=(6, 7), mode="bilinear")),
    ("interpolate bilinear align", lambda L, S: F(L).interpolate(S.x4, size=(6, 7), mode="bilinear", align_corners=True)),
    ("interpolate bilinear antialias", lambda L, S: F(L).interpolate(S.x4, size=(2, 3), mode="bilinear", antialias=True)),
    ("interpolate bicubic", lambda L, S: F(L).interpolate(S.x4, size=(6, 7), mode="bicubic")),
    ("interpolate bicubic antialias", lambda L, S: F(L).interpolate(S.x4, size=(2, 3), mode="bicubic", antialias=True)),
    ("interpolate trilinear", lambda L, S: F(L).interpolate(S.x5, scale_factor=1.5, mode="trilinear")),
    ("interpolate area", lambda L, S: F(L).interpolate(S.x4, size=(2, 3), mode="area")),
    ("upsample", lambda L, S: F(L).upsample(S.x4, scale_factor=2)),
    ("upsample_nearest", lambda L, S: F(L).upsample_nearest(S.x4, scale_factor=2)),
    ("upsample_bilinear", lambda L, S: F(L).upsample_bilinear(S.x4, scale_factor=2)),
    ("grid_sample", lambda L, S: F(L).grid_sample(S.x4, L.zeros(2, 3, 3, 2), align_corners=False)),
    ("affine_grid", lambda L, S: F(L).affine_grid(S.x2[None, :2, :3], [1, 1, 3, 3], align_corners=False)),
    ("unfold", lambda L, S: F(L).unfold(S.x4, 2, padding=1, stride=2)),
    ("fold", lambda L, S: F(L).fold(S.x4.reshape(2, 4, 15)[:, :, :6], (3, 4), 2)),
    ("pixel_shuffle", lambda L, S: F(L).pixel_shuffle(S.x4.reshape(2, 12, 1, 5), 2)),
    ("pixel_unshuffle", lambda L, S: F(L).pixel_unshuffle(S.x4[:, :, :, :4], 2)),
    ("channel_shuffle", lambda L, S: F(L).channel_shuffle(S.x4.reshape(2, 6, 2, 5), 3)),
    ("one_hot", lambda L, S: F(L).one_hot(S.target)),
    # dropout family (training: seeded, same stream in both)
    ("dropout eval", lambda L, S: F(L).dropout(S.x2, 0.5, training=False)),
    ("dropout train", lambda L, S: F(L).dropout(S.x2, 0.5)),
    ("dropout inplace", lambda L, S: F(L).dropout(S.x2.clone(), 0.3, inplace=True)),
    ("dropout1d", lambda L, S: F(L).dropout1d(S.x3, 0.5)),
    ("dropout2d", lambda L, S: F(L).dropout2d(S.x4, 0.5)),
    ("dropout3d", lambda L, S: F(L).dropout3d(S.x5, 0.5)),
    ("alpha_dropout train", lambda L, S: F(L).alpha_dropout(S.x2, 0.5, training=True)),
    ("alpha_dropout eval", lambda L, S: F(L).alpha_dropout(S.x2, 0.5)),
    ("feature_alpha_dropout train", lambda L, S: F(L).feature_alpha_dropout(S.x4, 0.5, training=True)),
    ("feature_alpha_dropout eval", lambda L, S: F(L).feature_alpha_dropout(S.x4, 0.5)),
    # pooling
    ("avg_pool1d", lambda L, S: F(L).avg_pool1d(S.x3, 2)),
    ("avg_pool2d", lambda L, S: F(L).avg_pool2d(S.x4, 2, padding=1, count_include_pad=False)),
    ("avg_pool2d divisor", lambda L, S: F(L).avg_pool2d(S.x4, 2, ceil_mode=True, divisor_override=3)),
    ("avg_pool3d", lambda L, S: F(L).avg_pool3d(S.x5, 2)),
    ("adaptive_avg_pool1d", lambda L, S: F(L).adaptive_avg_pool1d(S.x3, 4)),
    ("adaptive_avg_pool2d", lambda L, S: F(L).adaptive_avg_pool2d(S.x4, (3, 2))),
    ("adaptive_avg_pool3d", lambda L, S: F(L).adaptive_avg_pool3d(S.x5, 2)),
    ("max_pool1d", lambda L, S: F(L).max_pool1d(S.x3, 2)),
    ("max_pool2d", lambda L, S: F(L).max_pool2d(S.x4, 2)),
    ("max_pool3d", lambda L, S: F(L).max_pool3d(S.x5, 2)),
    ("adaptive_max_pool1d", lambda L, S: F(L).adaptive_max_pool1d(S.x3, 2)),
    ("adaptive_max_pool2d", lambda L, S: F(L).adaptive_max_pool2d(S.x4, 2)),
    ("adaptive_max_pool3d", lambda L, S: F(L).adaptive_max_pool3d(S.x5, 2)),
    ("max_unpool1d", lambda L, S: F(L).max_unpool1d(S.x3, L.zeros(2, 3, 6, dtype=L.int64), 2)),
    ("max_unpool2d", lambda L, S: F(L).max_unpool2d(S.x4, L.zeros(2, 3, 4, 5, dtype=L.int64), 2)),
    ("max_unpool3d", lambda L, S: F(L).max_unpool3d(S.x5, L.zeros(1, 2, 3, 4, 4, dtype=L.int64), 2)),
    ("lp_pool1d", lambda L, S: F(L).lp_pool1d(S.x3, 2, 2)),
    ("lp_pool2d", lambda L, S: F(L).lp_pool2d(S.x4, 2, 2)),
    ("lp_pool3d", lambda L, S: F(L).lp_pool3d(S.x5, 2, 2)),
    ("fractional_max_pool2d", lambda L, S: F(L).fractional_max_pool2d(S.x4, 2, output_size=2)),
    ("fractional_max_pool3d", lambda L, S: F(L).fractional_max_pool3d(S.x5, 2, output_size=1)),
    # linear, embedding, attention
    ("linear", lambda L, S: F(L).linear(S.x2, S.m, S.m[0])),
    ("bilinear", lambda L, S: F(L).bilinear(S.x2[:, :3], S.y2, S.w3, S.m[0, :2])),
    ("embedding", lambda L, S: F(L).embedding(S.idx, S.m)),
    ("embedding padding_idx", lambda L, S: F(L).embedding(S.idx, S.m, padding_idx=0)),
    ("embedding max_norm", lambda L, S: F(L).embedding(S.idx, S.m.clone(), max_norm=1.0)),
    ("embedding_bag", lambda L, S: F(L).embedding_bag(S.idx, S.m, mode="sum")),
    ("embedding_bag mean", lambda L, S: F(L).embedding_bag(S.idx, S.m, mode="mean")),
    ("scaled_dot_product_attention", lambda L, S: F(L).scaled_dot_product_attention(S.q, S.k, S.v)),
    ("sdpa causal", lambda L, S: F(L).scaled_dot_product_attention(S.q, S.k, S.v, is_causal=True)),
    ("multi_head_attention_forward", lambda L, S: F(L).multi_head_attention_forward(
        S.q.transpose(0, 1), S.q.transpose(0, 1), S.q.transpose(0, 1), 4, 2, L.cat([S.m, S.m, S.m]), None, None, None,
        False, 0.0, S.m, None, need_weights=False)[0]),
    # normalization
    ("normalize", lambda L, S: F(L).normalize(S.x2)),
    ("normalize p1", lambda L, S: F(L).normalize(S.x2, p=1, dim=0)),
    ("layer_norm", lambda L, S: F(L).layer_norm(S.x2, (4,))),
    ("rms_norm", lambda L, S: F(L).rms_norm(S.x2, (4,))),
    ("group_norm", lambda L, S: F(L).group_norm(S.x4, 3)),
    ("batch_norm", lambda L, S: F(L).batch_norm(S.x4, None, None, training=True)),
    ("instance_norm", lambda L, S: F(L).instance_norm(S.x4)),
    ("local_response_norm", lambda L, S: F(L).local_response_norm(S.x4, 2)),
    # distances and similarity
    ("cosine_similarity", lambda L, S: F(L).cosine_similarity(S.x2, S.y2)),
    ("pairwise_distance", lambda L, S: F(L).pairwise_distance(S.x2, S.y2)),
    ("pdist", lambda L, S: F(L).pdist(S.x2)),
    # activations
    ("relu", lambda L, S: F(L).relu(S.x2)), ("relu6", lambda L, S: F(L).relu6(S.x2)),
    ("leaky_relu", lambda L, S: F(L).leaky_relu(S.x2)), ("elu", lambda L, S: F(L).elu(S.x2)),
    ("selu", lambda L, S: F(L).selu(S.x2)), ("celu", lambda L, S: F(L).celu(S.x2)),
    ("gelu", lambda L, S: F(L).gelu(S.x2)), ("gelu tanh", lambda L, S: F(L).gelu(S.x2, approximate="tanh")),
    ("silu", lambda L, S: F(L).silu(S.x2)), ("mish", lambda L, S: F(L).mish(S.x2)),
    ("softplus", lambda L, S: F(L).softplus(S.x2)), ("softsign", lambda L, S: F(L).softsign(S.x2)),
    ("softshrink", lambda L, S: F(L).softshrink(S.x2)), ("hardshrink", lambda L, S: F(L).hardshrink(S.x2)),
    ("tanhshrink", lambda L, S: F(L).tanhshrink(S.x2)), ("hardtanh", lambda L, S: F(L).hardtanh(S.x2)),
    ("hardsigmoid", lambda L, S: F(L).hardsigmoid(S.x2)), ("hardswish", lambda L, S: F(L).hardswish(S.x2)),
    ("logsigmoid", lambda L, S: F(L).logsigmoid(S.x2)), ("sigmoid", lambda L, S: F(L).sigmoid(S.x2)),
    ("tanh", lambda L, S: F(L).tanh(S.x2)), ("prelu", lambda L, S: F(L).prelu(S.x2, S.m[0, :1])),
    ("rrelu eval", lambda L, S: F(L).rrelu(S.x2)), ("rrelu train", lambda L, S: F(L).rrelu(S.x2, training=True)),
    ("glu", lambda L, S: F(L).glu(S.x2)), ("threshold", lambda L, S: F(L).threshold(S.x2, 0.5, 2.0)),
    ("softmax", lambda L, S: F(L).softmax(S.x2, 1)), ("log_softmax", lambda L, S: F(L).log_softmax(S.x2, 1)),
    ("softmin", lambda L, S: F(L).softmin(S.x2, 1)), ("gumbel_softmax", lambda L, S: F(L).gumbel_softmax(S.x2)),
    ("relu_", lambda L, S: F(L).relu_(S.x2.clone())), ("elu_", lambda L, S: F(L).elu_(S.x2.clone())),
    ("hardtanh_", lambda L, S: F(L).hardtanh_(S.x2.clone())), ("leaky_relu_", lambda L, S: F(L).leaky_relu_(S.x2.clone())),
    ("threshold_", lambda L, S: F(L).threshold_(S.x2.clone(), 0.5, 2.0)),
    ("selu_", lambda L, S: F(L).selu_(S.x2.clone())), ("celu_", lambda L, S: F(L).celu_(S.x2.clone())),
    ("rrelu_", lambda L, S: F(L).rrelu_(S.x2.clone())),
    ("tanh inplace module", lambda L, S: L.nn.Tanh()(S.x2)), ("sigmoid module", lambda L, S: L.nn.Sigmoid()(S.x2)),
    ("silu inplace", lambda L, S: F(L).silu(S.x2.clone(), inplace=True)),
    # losses
    ("mse_loss", lambda L, S: F(L).mse_loss(S.x2, S.y2)),
    ("mse_loss sum", lambda L, S: F(L).mse_loss(S.x2, S.y2, reduction="sum")),
    ("mse_loss none", lambda L, S: F(L).mse_loss(S.x2, S.y2, reduction="none")),
    ("l1_loss", lambda L, S: F(L).l1_loss(S.x2, S.y2)),
    ("l1_loss none", lambda L, S: F(L).l1_loss(S.x2, S.y2, reduction="none")),
    ("smooth_l1_loss", lambda L, S: F(L).smooth_l1_loss(S.x2, S.y2)),
    ("huber_loss", lambda L, S: F(L).huber_loss(S.x2, S.y2)),
    ("cross_entropy", lambda L, S: F(L).cross_entropy(S.x2, S.target)),
    ("cross_entropy probs", lambda L, S: F(L).cross_entropy(S.x2, S.y2)),
    ("nll_loss", lambda L, S: F(L).nll_loss(S.x2, S.target)),
    ("kl_div", lambda L, S: F(L).kl_div(S.x2, S.y2, reduction="batchmean")),
    ("binary_cross_entropy", lambda L, S: F(L).binary_cross_entropy(S.x2, S.y2)),
    ("binary_cross_entropy_with_logits", lambda L, S: F(L).binary_cross_entropy_with_logits(S.x2, S.y2)),
    ("poisson_nll_loss", lambda L, S: F(L).poisson_nll_loss(S.x2, S.y2)),
    ("gaussian_nll_loss", lambda L, S: F(L).gaussian_nll_loss(S.x2, S.y2, S.r2.abs() + 1)),
    ("hinge_embedding_loss", lambda L, S: F(L).hinge_embedding_loss(S.x2, S.y2)),
    ("margin_ranking_loss", lambda L, S: F(L).margin_ranking_loss(S.x2, S.y2, S.r2.sign())),
    ("soft_margin_loss", lambda L, S: F(L).soft_margin_loss(S.x2, S.y2)),
    ("multilabel_soft_margin_loss", lambda L, S: F(L).multilabel_soft_margin_loss(S.x2, S.y2)),
    ("multilabel_margin_loss", lambda L, S: F(L).multilabel_margin_loss(S.x2, S.idx[:1].expand(3, 3).clone().T[:, :1].repeat(1, 4))),
    ("multi_margin_loss", lambda L, S: F(L).multi_margin_loss(S.x2, S.target)),
    ("cosine_embedding_loss", lambda L, S: F(L).cosine_embedding_loss(S.x2, S.y2, S.r2[:, 0].sign())),
    ("triplet_margin_loss", lambda L, S: F(L).triplet_margin_loss(S.x2, S.y2, S.x2.flip(0))),
    ("triplet_margin_with_distance_loss", lambda L, S: F(L).triplet_margin_with_distance_loss(S.x2, S.y2, S.x2.flip(0))),
    ("ctc_loss", lambda L, S: F(L).ctc_loss(S.x3.permute(2, 0, 1), L.tensor([[1, 2], [1, 1]]), [6, 6], [2, 2])),
    # convolutions (complex kernels: three real convolutions, docs/complex.md)
    ("conv1d", lambda L, S: F(L).conv1d(S.x3, S.w3.reshape(2, 3, 4)[:, :, :3], padding=1)),
    ("conv2d", lambda L, S: F(L).conv2d(S.x4, S.x4[:2, :, :2, :2], S.m[0, :2], stride=2)),
    ("conv2d same", lambda L, S: F(L).conv2d(S.x4, S.x4[:2, :, :2, :2], padding="same")),
    ("conv3d", lambda L, S: F(L).conv3d(S.x5, S.x5[:, :, :2, :2, :2])),
    ("conv_transpose1d", lambda L, S: F(L).conv_transpose1d(S.x3, S.x4[0, :, :2, :2], stride=2)),
    ("conv_transpose2d", lambda L, S: F(L).conv_transpose2d(S.x4, S.x5[0, :, :, :2, :2].transpose(0, 1), S.m[0, :2])),
    ("conv_transpose3d", lambda L, S: F(L).conv_transpose3d(S.x5, S.x5[0, :, :2, :2, :2].unsqueeze(1))),
]

RANDOM = {"dropout train", "dropout inplace", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout train",
          "feature_alpha_dropout train", "rrelu train", "rrelu_", "gumbel_softmax", "fractional_max_pool2d",
          "fractional_max_pool3d"}


def _as_numpy(r):
    if isinstance(r, (tuple, list)):
        return [v for item in r for v in _as_numpy(item)]
    if hasattr(r, "numpy"):
        return [r.detach().resolve_conj().resolve_neg().numpy()]
    return [np.asarray(r)]


def _dtype_name(r):
    if isinstance(r, (tuple, list)):
        return [_dtype_name(v) for v in r]
    return str(getattr(r, "dtype", type(r).__name__)).split(".")[-1]


def _run(lib, name, call, dtype):
    import warnings
    S = _inputs(lib, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if name in RANDOM:
                lib.manual_seed(0)
            return call(lib, S), None
        except Exception as e:  # noqa: BLE001 - an audit records every refusal
            return None, e


def audit(calls=CALLS, dtype="complex64"):
    """[(name, status, detail)]: status OK (same values), BOTH_RAISE (same exception type), GAP, DIFF or EXTRA.
    `dtype`: the complex dtype of the tensor arguments (complex64 or complex128)."""
    import torch

    import torchlite
    rows = []
    for name, call in calls:
        (rt, et), (rl, el) = _run(torch, name, call, dtype), _run(torchlite, name, call, dtype)
        if et is not None and el is not None:
            status = "BOTH_RAISE" if type(et).__name__ == type(el).__name__ else "DIFF"
            detail = f"torch {type(et).__name__}: {str(et)[:90]} | torchlite {type(el).__name__}: {str(el)[:90]}"
        elif et is not None:
            status, detail = "EXTRA", f"torch {type(et).__name__}: {str(et)[:120]}"
        elif el is not None:
            status, detail = "GAP", f"torchlite {type(el).__name__}: {str(el)[:120]}"
        else:
            a, b = _as_numpy(rt), _as_numpy(rl)
            same = _dtype_name(rt) == _dtype_name(rl) and len(a) == len(b) and all(
                x.shape == y.shape and np.allclose(x, y, rtol=1e-4, atol=1e-5, equal_nan=True) for x, y in zip(a, b))
            status = "OK" if same else "DIFF"
            detail = "" if same else f"torch {_dtype_name(rt)} {[x.shape for x in a]} vs torchlite {_dtype_name(rl)} " \
                                     f"{[y.shape for y in b]}"
        rows.append((name, status, detail))
    return rows


def main(argv):
    rows = audit(dtype="complex128" if "--complex128" in argv else "complex64")
    verbose = "-v" in argv
    counts = {}
    for name, status, detail in rows:
        counts[status] = counts.get(status, 0) + 1
        if verbose or status in ("GAP", "DIFF", "EXTRA"):
            print(f"{status:10} {name:34} {detail}")
    print(f"{len(rows)} calls: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 1 if counts.get("DIFF") or counts.get("EXTRA") else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
