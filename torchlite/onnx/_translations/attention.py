"""scaled_dot_product_attention, written out: softmax(q k^T * scale + mask) v."""
from __future__ import annotations

import math

import numpy as np

from torchlite.onnx._translations import translation


@translation("scaled_dot_product_attention")
def scaled_dot_product_attention(ctx, call):
    if call.value("dropout_p") and ctx.training == 2:
        raise call.unsupported("dropout_p > 0 in training mode")
    if call.value("enable_gqa"):
        raise call.unsupported("enable_gqa=True")
    dtype = call.out_dtype()
    q, k, v = call.tensor("query"), call.tensor("key"), call.tensor("value")
    q_sizes, k_sizes = call.sizes("query"), call.sizes("key")
    scale = call.value("scale")
    scale = 1.0 / math.sqrt(q_sizes[-1]) if scale is None else scale
    rank = len(k_sizes)
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    scores = ctx.add1("MatMul", [q, ctx.add1("Transpose", [k], perm=perm)])
    scores = ctx.add1("Mul", [scores, ctx.scalar(scale, dtype)])
    if call.value("is_causal"):
        length, source = q_sizes[-2], k_sizes[-2]
        causal = np.where(np.tril(np.ones((length, source), dtype=bool)), 0, -np.inf).astype(np.dtype(dtype))
        scores = ctx.add1("Add", [scores, ctx.constant(causal)])
    if not call.is_none("attn_mask"):
        mask = call.tensor("attn_mask")
        if call.dtype("attn_mask") == "bool":
            mask = ctx.add1("Where", [mask, ctx.scalar(0.0, dtype), ctx.scalar(-np.inf, dtype)])
        else:
            mask = ctx.cast(mask, dtype, call.dtype("attn_mask"))
        scores = ctx.add1("Add", [scores, mask])
    probs = ctx.add1("Softmax", [scores], axis=-1)
    return [ctx.add1("MatMul", [probs, v])]
