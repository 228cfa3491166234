"""Attention in torch.nn.functional: ``scaled_dot_product_attention`` (the YAML op, bound in
``torchlite._C._nn`` as PyTorch binds it) and ``multi_head_attention_forward``, PyTorch's Python
composite: input projections (packed or separate weights), bias_k/bias_v, add_zero_attn,
key_padding_mask merged into attn_mask, then either explicit weights (need_weights) or
scaled_dot_product_attention, and the output projection. Shapes, defaults and messages are PyTorch's.
"""
from __future__ import annotations

import math
import warnings

import torchlite as _tl
from torchlite._C import _nn

__all__ = ["multi_head_attention_forward", "scaled_dot_product_attention"]

scaled_dot_product_attention = _nn.scaled_dot_product_attention


def _linear(x, weight, bias=None):
    """x @ weight^T + bias. Uses the `linear` op where this build has it, else matmul and add."""
    op = getattr(_nn, "linear", None)
    if op is not None:
        return op(x, weight, bias)
    y = _tl.matmul(x, weight.t())
    return y if bias is None else y + bias


def _pad_last(t, value=0):
    """`t` with one more column at the end of its last dim, filled with `value` (PyTorch's pad(t, (0, 1)))."""
    col = _tl.zeros(tuple(t.shape[:-1]) + (1,), dtype=t.dtype)
    if value:
        col = col + value
    return _tl.cat([t, col], -1)


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask as an additive float one of `target_type` (-inf where True); float masks pass through."""
    if mask is None:
        return None
    if mask.dtype != _tl.bool and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=3)
    if not mask.is_floating_point():
        mask = _tl.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether the inputs are batched (3-D query) or not (2-D), checking the other shapes as PyTorch."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D"
                                 f" but found {key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D"
                                 f" but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                                 f" but found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D"
                                 f" but found {key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D"
                                 f" but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                                     f" but found {attn_mask.dim()}-D tensor instead")
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {tuple(attn_mask.shape)}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor")


def _in_projection_packed(q, k, v, w, b=None):
    """q, k, v projected by the rows of the packed (3E, E) weight; one product when q, k, v are one tensor."""
    E = q.shape[-1]
    if k is v and q is k:
        proj = _linear(q, w, b)  # (..., 3E): split as (3, E), each part made contiguous as PyTorch does
        proj = proj.unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return proj[0], proj[1], proj[2]
    if k is v:
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        kv = _linear(k, w_kv, b_kv).unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return _linear(q, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return _linear(q, w_q, b_q), _linear(k, w_k, b_k), _linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    """q, k, v projected by their own weights, checking the shapes as PyTorch."""
    Eq, Ek, Ev = q.shape[-1], k.shape[-1], v.shape[-1]
    for name, w, shape in (("query", w_q, (Eq, Eq)), ("key", w_k, (Eq, Ek)), ("value", w_v, (Eq, Ev))):
        if tuple(w.shape) != shape:
            raise AssertionError(f"expecting {name} weights shape of {shape}, but got {tuple(w.shape)}")
    for name, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        if b is not None and tuple(b.shape) != (Eq,):
            raise AssertionError(f"expecting {name} bias shape of {(Eq,)}, but got {tuple(b.shape)}")
    return _linear(q, w_q, b_q), _linear(k, w_k, b_k), _linear(v, w_v, b_v)


def multi_head_attention_forward(query, key, value, embed_dim_to_check: int, num_heads: int, in_proj_weight,
                                 in_proj_bias, bias_k, bias_v, add_zero_attn: bool, dropout_p: float,
                                 out_proj_weight, out_proj_bias, training: bool = True, key_padding_mask=None,
                                 need_weights: bool = True, attn_mask=None, use_separate_proj_weight: bool = False,
                                 q_proj_weight=None, k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights: bool = True, is_causal: bool = False):
    """Multi-head attention of query (L, N, E) over key/value (S, N, E) (unbatched: no N); returns
    (output (L, N, E), attention weights (N, L, S) averaged over heads, per head, or None)."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:  # run batched with N = 1, squeezed at the end
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)

    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       None if attn_mask is None else attn_mask.dtype, "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # scaled_dot_product_attention applies the causal mask itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False  # the merged mask is no longer causal

    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {tuple(key.shape[:2])} do not match value's "
                                 f"{tuple(value.shape[:2])}")
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}")

    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)

    if attn_mask is not None:  # as (1 or N * heads, L, S)
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {_tl.Size(attn_mask.shape)}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {_tl.Size(attn_mask.shape)}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:  # one more key/value position, shared by the batch
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _tl.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _tl.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    # (len, N, E) -> (N * heads, len, head_dim)
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_k.size(0) != bsz * num_heads:
            raise AssertionError(f"expecting static_k.size(0) of {bsz * num_heads}, but got {static_k.size(0)}")
        if static_k.size(2) != head_dim:
            raise AssertionError(f"expecting static_k.size(2) of {head_dim}, but got {static_k.size(2)}")
        k = static_k
    if static_v is None:
        v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_v.size(0) != bsz * num_heads:
            raise AssertionError(f"expecting static_v.size(0) of {bsz * num_heads}, but got {static_v.size(0)}")
        if static_v.size(2) != head_dim:
            raise AssertionError(f"expecting static_v.size(2) of {head_dim}, but got {static_v.size(2)}")
        v = static_v

    if add_zero_attn:  # one more all-zero key/value position
        zeros = _tl.zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype)
        k = _tl.cat([k, zeros], 1)
        v = _tl.cat([v, _tl.zeros((bsz * num_heads, 1, head_dim), dtype=v.dtype)], 1)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)

    src_len = k.size(1)
    if key_padding_mask is not None:  # merged into attn_mask, per (batch, head)
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = (key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
                            .reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:
        E = q.shape[-1]
        q_scaled = q * math.sqrt(1.0 / float(E))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            weights = _tl.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = _tl.bmm(q_scaled, k.transpose(-2, -1))
        weights = _tl.softmax(weights, -1)
        if dropout_p > 0.0:
            weights = _tl.native_dropout(weights, dropout_p, True)[0]
        out = _tl.bmm(weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = _linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights

    if attn_mask is not None:  # (1, L, S) -> (1, 1, L, S); (N * heads, L, S) -> (N, heads, L, S)
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = _linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)
    if not is_batched:
        out = out.squeeze(1)
    return out, None
