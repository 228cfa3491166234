"""lstm.input: one ONNX LSTM per layer (both directions in one), gates reordered to ONNX's."""
from __future__ import annotations

import numpy as np

from torchlite.onnx._translations import translation

# PyTorch stacks the gates input, forget, cell, output; ONNX input, output, forget, cell.
_ONNX_GATE_ORDER = (0, 3, 1, 2)


def _reorder(ctx, name, hidden):
    """The gate blocks of a weight (4H, X) or bias (4H) in ONNX's order, with a leading direction dim."""
    array = ctx.arrays.get(name)
    if array is not None:
        blocks = np.split(array, 4, axis=0)
        return ctx.constant(np.concatenate([blocks[i] for i in _ONNX_GATE_ORDER], axis=0)[None])
    parts = ctx.add("Split", [name, ctx.ints([hidden] * 4)], 4, axis=0)
    joined = ctx.add1("Concat", [parts[i] for i in _ONNX_GATE_ORDER], axis=0)
    return ctx.add1("Unsqueeze", [joined, ctx.ints([0])])


@translation("lstm")
def lstm(ctx, call):
    if call.value("train") and call.value("dropout") and call.value("num_layers") > 1:
        raise call.unsupported("dropout between layers in training mode")
    layers, bidirectional = call.value("num_layers"), call.value("bidirectional")
    has_biases, batch_first = call.value("has_biases"), call.value("batch_first")
    dirs = 2 if bidirectional else 1
    params = call.tensors("params")
    per = 4 if has_biases else 2
    if len(params) != layers * dirs * per:
        raise call.unsupported("LSTM projections (proj_size > 0)")
    h0, c0 = call.tensors("hx")
    hidden = call.out_sizes(1)[-1]
    x = call.tensor("input")
    if call.rank("input") == 2:
        raise call.unsupported("an unbatched input")
    if batch_first:
        x = ctx.add1("Transpose", [x], perm=[1, 0, 2])
    hs, cs = [], []
    for layer in range(layers):
        ws, rs, bs = [], [], []
        for d in range(dirs):
            p = params[(layer * dirs + d) * per:(layer * dirs + d + 1) * per]
            ws.append(_reorder(ctx, p[0], hidden))
            rs.append(_reorder(ctx, p[1], hidden))
            if has_biases:
                bs.append(ctx.add1("Concat", [_reorder(ctx, p[2], hidden), _reorder(ctx, p[3], hidden)], axis=1))
        w = ws[0] if dirs == 1 else ctx.add1("Concat", ws, axis=0)
        r = rs[0] if dirs == 1 else ctx.add1("Concat", rs, axis=0)
        b = "" if not has_biases else bs[0] if dirs == 1 else ctx.add1("Concat", bs, axis=0)
        start, end = ctx.ints([layer * dirs]), ctx.ints([(layer + 1) * dirs])
        h_init = ctx.add1("Slice", [h0, start, end, ctx.ints([0])])
        c_init = ctx.add1("Slice", [c0, start, end, ctx.ints([0])])
        y, y_h, y_c = ctx.add("LSTM", [x, w, r, b, "", h_init, c_init], 3, hidden_size=hidden,
                              direction="bidirectional" if bidirectional else "forward")
        # Y is (T, directions, N, H): PyTorch's layer output is (T, N, directions * H).
        y = ctx.add1("Transpose", [y], perm=[0, 2, 1, 3])
        x = ctx.add1("Reshape", [y, ctx.ints([0, 0, -1])])
        hs.append(y_h)
        cs.append(y_c)
    out = ctx.add1("Transpose", [x], perm=[1, 0, 2]) if batch_first else x
    h_n = hs[0] if layers == 1 else ctx.add1("Concat", hs, axis=0)
    c_n = cs[0] if layers == 1 else ctx.add1("Concat", cs, axis=0)
    return [out, h_n, c_n]
