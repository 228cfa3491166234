"""lstm.input / gru.input / rnn_tanh.input / rnn_relu.input: one ONNX LSTM / GRU / RNN per layer (both
directions in one), PyTorch's gate blocks reordered to ONNX's."""
from __future__ import annotations

import numpy as np

from torchlite.onnx._translations import translation

# Position in PyTorch's stacked weights of each of ONNX's gate blocks. LSTM: PyTorch i, f, g, o; ONNX i, o, f, c.
# GRU: PyTorch r, z, n; ONNX z, r, h (with linear_before_reset=1, PyTorch's formulation of n).
_GATES = {"LSTM": (0, 3, 1, 2), "GRU": (1, 0, 2), "RNN": (0,)}


def _reorder(ctx, name, hidden, order):
    """The gate blocks of a weight (G*H, X) or bias (G*H) in ONNX's order, with a leading direction dim."""
    array = ctx.arrays.get(name)
    if array is not None:  # a parameter: reordered here, the original initializer is dropped
        blocks = np.split(array, len(order), axis=0)
        return ctx.constant(np.concatenate([blocks[i] for i in order], axis=0)[None])
    if len(order) > 1:
        parts = ctx.add("Split", [name, ctx.ints([hidden] * len(order))], len(order), axis=0)
        name = ctx.add1("Concat", [parts[i] for i in order], axis=0)
    return ctx.add1("Unsqueeze", [name, ctx.ints([0])])


def _recurrent(ctx, call, op, attrs):
    if call.value("train") and call.value("dropout") and call.value("num_layers") > 1:
        raise call.unsupported("dropout between layers in training mode")
    layers, bidirectional = call.value("num_layers"), call.value("bidirectional")
    has_biases, batch_first = call.value("has_biases"), call.value("batch_first")
    dirs = 2 if bidirectional else 1
    order = _GATES[op]
    params = call.tensors("params")
    per = 4 if has_biases else 2
    if len(params) != layers * dirs * per:
        raise call.unsupported("projections (proj_size > 0)")
    if call.rank("input") == 2:
        raise call.unsupported("an unbatched input")
    states = call.tensors("hx") if op == "LSTM" else [call.tensor("hx")]
    hidden = call.out_sizes(1)[-1]
    x = call.tensor("input")
    if batch_first:
        x = ctx.add1("Transpose", [x], perm=[1, 0, 2])
    finals = [[] for _ in states]
    for layer in range(layers):
        ws, rs, bs = [], [], []
        for d in range(dirs):
            p = params[(layer * dirs + d) * per:(layer * dirs + d + 1) * per]
            ws.append(_reorder(ctx, p[0], hidden, order))
            rs.append(_reorder(ctx, p[1], hidden, order))
            if has_biases:  # ONNX's B is [Wb, Rb]
                bs.append(ctx.add1("Concat", [_reorder(ctx, p[2], hidden, order),
                                              _reorder(ctx, p[3], hidden, order)], axis=1))
        w = ws[0] if dirs == 1 else ctx.add1("Concat", ws, axis=0)
        r = rs[0] if dirs == 1 else ctx.add1("Concat", rs, axis=0)
        b = "" if not has_biases else bs[0] if dirs == 1 else ctx.add1("Concat", bs, axis=0)
        start, end, axis0 = ctx.ints([layer * dirs]), ctx.ints([(layer + 1) * dirs]), ctx.ints([0])
        initial = [ctx.add1("Slice", [s, start, end, axis0]) for s in states]
        outs = ctx.add(op, [x, w, r, b, ""] + initial, 1 + len(states), hidden_size=hidden,
                       direction="bidirectional" if bidirectional else "forward", **attrs)
        # Y is (T, directions, N, H): PyTorch's layer output is (T, N, directions * H).
        y = ctx.add1("Transpose", [outs[0]], perm=[0, 2, 1, 3])
        x = ctx.add1("Reshape", [y, ctx.ints([0, 0, -1])])
        for final, out in zip(finals, outs[1:]):
            final.append(out)
    output = ctx.add1("Transpose", [x], perm=[1, 0, 2]) if batch_first else x
    return [output] + [f[0] if layers == 1 else ctx.add1("Concat", f, axis=0) for f in finals]


@translation("lstm")
def lstm(ctx, call):
    return _recurrent(ctx, call, "LSTM", {})


@translation("gru")
def gru(ctx, call):
    return _recurrent(ctx, call, "GRU", {"linear_before_reset": 1})


@translation("rnn")
def rnn(ctx, call):
    """rnn_tanh / rnn_relu: ONNX RNN with that activation (one per direction)."""
    activation = "Relu" if call.overload.startswith("rnn_relu") else "Tanh"
    dirs = 2 if call.value("bidirectional") else 1
    return _recurrent(ctx, call, "RNN", {"activations": [activation] * dirs})
