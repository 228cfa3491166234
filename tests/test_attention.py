"""scaled_dot_product_attention and multi_head_attention_forward against PyTorch: what the YAML samples
cannot say (sizes spanning several kernel blocks, float masks on the fused kernel, fully masked rows,
dropout statistics, double backward of the fused path, F's signatures, errors, meta)."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF


def tl_(t, requires_grad=False):
    if t is None:
        return None
    x = tl.from_numpy(t.detach().float().numpy().copy() if t.dtype == torch.bfloat16 else t.detach().numpy().copy())
    if t.dtype == torch.bfloat16:
        x = x.to(tl.bfloat16)
    return x.requires_grad_() if requires_grad else x


def np_(t):
    return t.detach().float().numpy() if str(t.dtype).endswith("bfloat16") else t.detach().numpy()


def both(*shapes, dtype=torch.float64, seed=0):
    g = torch.Generator().manual_seed(seed)
    ts = [torch.randn(*s, dtype=dtype, generator=g) for s in shapes]
    return ts, [tl_(t) for t in ts]


def sdpa_both(q, k, v, tol, **kw):
    """Forward and gradients of q, k, v in both libraries; asserts they agree."""
    tq, tk, tv = [t.clone().requires_grad_() for t in (q, k, v)]
    lq, lk, lv = [tl_(t, True) for t in (q, k, v)]
    lkw = {a: tl_(b) if isinstance(b, torch.Tensor) else b for a, b in kw.items()}
    y = F.scaled_dot_product_attention(tq, tk, tv, **kw)
    yl = TF.scaled_dot_product_attention(lq, lk, lv, **lkw)
    np.testing.assert_allclose(np_(yl), np_(y), atol=tol, rtol=tol)
    g = torch.randn(y.shape, dtype=y.dtype, generator=torch.Generator().manual_seed(5))
    grads = torch.autograd.grad(y, (tq, tk, tv), g)
    lgrads = tl.autograd.grad(yl, (lq, lk, lv), tl_(g))
    for a, b in zip(lgrads, grads):
        np.testing.assert_allclose(np_(a), np_(b), atol=tol, rtol=tol)
    return yl


def test_binding_like_torch():
    assert TF.scaled_dot_product_attention is tl._C._nn.scaled_dot_product_attention
    assert hasattr(tl, "scaled_dot_product_attention") == hasattr(torch, "scaled_dot_product_attention")
    assert hasattr(tl, "_scaled_dot_product_flash_attention_for_cpu")
    assert callable(TF.multi_head_attention_forward)


@pytest.mark.parametrize("L,S,kw", [
    (70, 600, {}),                          # two key blocks, a partial query block
    (600, 600, {"is_causal": True}),        # causal across blocks
    (5, 700, {"is_causal": True}),          # top-left aligned: short query
    (700, 5, {"is_causal": True}),
    (130, 520, {"scale": 0.05}),
])
def test_fused_kernel_blocks(L, S, kw):
    (q, k, v), _ = both((2, 2, L, 16), (2, 2, S, 16), (2, 2, S, 16))
    y = sdpa_both(q, k, v, 1e-10, **kw)
    assert y.grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"


@pytest.mark.parametrize("mask_shape", [(9, 11), (9, 1), (1, 11), (2, 1, 9, 11), (1, 3, 1, 11), (2, 3, 9, 11)])
def test_float_mask_on_fused_kernel(mask_shape):
    (q, k, v, m), _ = both((2, 3, 9, 8), (2, 3, 11, 8), (2, 3, 11, 8), mask_shape)
    sdpa_both(q, k, v, 1e-10, attn_mask=m)


def test_bool_mask_and_fully_masked_rows_give_zeros():
    (q, k, v), _ = both((1, 2, 4, 8), (1, 2, 6, 8), (1, 2, 6, 8))
    m = torch.rand(4, 6, generator=torch.Generator().manual_seed(1)) > 0.4
    m[1] = False
    y = sdpa_both(q, k, v, 1e-10, attn_mask=m)
    assert np.all(np_(y)[:, :, 1] == 0)
    # The math path (3-D) gives zeros too, with finite gradients.
    y = sdpa_both(q[0], k[0], v[0], 1e-10, attn_mask=m)
    assert np.all(np_(y)[:, 1] == 0)


def test_gqa_and_mqa():
    (q, k, v), _ = both((2, 6, 7, 8), (2, 2, 9, 8), (2, 2, 9, 8))
    sdpa_both(q, k, v, 1e-10, enable_gqa=True)
    sdpa_both(q, k, v, 1e-10, enable_gqa=True, is_causal=True)
    (q, k, v), _ = both((2, 4, 7, 8), (2, 1, 9, 8), (2, 1, 9, 8))
    sdpa_both(q, k, v, 1e-10)


def test_math_path_cases():
    (q, k, v), _ = both((3, 7, 8), (3, 9, 8), (3, 9, 5))
    sdpa_both(q, k, v, 1e-10, scale=-0.3)
    (q, k, v), _ = both((2, 3, 7, 8), (1, 3, 9, 8), (1, 3, 9, 5))   # broadcast batch, Ev != E
    sdpa_both(q, k, v, 1e-10)
    (q, k, v), _ = both((2, 4, 1, 7, 8), (2, 4, 1, 9, 8), (2, 4, 1, 9, 8))  # 5-D
    sdpa_both(q, k, v, 1e-10, is_causal=True)


@pytest.mark.parametrize("dtype,tol", [(torch.float32, 2e-5), (torch.bfloat16, 3e-2), (torch.float16, 3e-3)])
def test_reduced_dtypes(dtype, tol):
    (q, k, v), _ = both((2, 2, 70, 16), (2, 2, 80, 16), (2, 2, 80, 16), dtype=dtype)
    y = sdpa_both(q, k, v, tol, is_causal=True)
    assert str(y.dtype).endswith(str(dtype).split(".")[-1])
    m = torch.randn(70, 80)  # a float32 mask beside 16-bit inputs, as PyTorch allows
    sdpa_both(q, k, v, tol, attn_mask=m.to(dtype) if dtype == torch.float32 else m)


def test_logsumexp_like_torch():
    (q, k, v), (lq, lk, lv) = both((2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 4))
    o, lse = torch._scaled_dot_product_flash_attention_for_cpu(q, k, v, is_causal=True)
    lo, llse = tl._scaled_dot_product_flash_attention_for_cpu(lq, lk, lv, is_causal=True)
    np.testing.assert_allclose(np_(llse), np_(lse), atol=1e-12)
    assert tuple(llse.stride()) == tuple(lse.stride()) and llse.dtype == tl.float64


def test_double_backward_like_torch():
    (q, k, v), _ = both((1, 2, 4, 3), (1, 2, 5, 3), (1, 2, 5, 3))
    lq = tl_(q, True)
    y = TF.scaled_dot_product_attention(lq, tl_(k), tl_(v))
    (g,) = tl.autograd.grad(y.sum(), lq, create_graph=True)
    with pytest.raises(RuntimeError, match="derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward "
                                           "is not implemented"):
        g.sum().backward()
    # The math path (3-D inputs) is twice differentiable, as PyTorch's.
    xs = [tl_(t[0], True) for t in (q, k, v)]
    assert tl.autograd.gradgradcheck(lambda a, b, c: TF.scaled_dot_product_attention(a, b, c, is_causal=True), xs)


def test_dropout_statistics_and_determinism():
    q = tl.zeros(2, 4, 64, 8, dtype=tl.float64)  # uniform weights 1/S
    v = tl.ones(2, 4, 256, 8, dtype=tl.float64)
    k = tl.zeros(2, 4, 256, 8, dtype=tl.float64)
    tl.manual_seed(3)
    a = TF.scaled_dot_product_attention(q, k, v, dropout_p=0.25)
    tl.manual_seed(3)
    b = TF.scaled_dot_product_attention(q, k, v, dropout_p=0.25)
    assert np.array_equal(a.numpy(), b.numpy())
    # each output is (kept count / S) / (1 - p): mean 1, std sqrt(p / ((1-p) S))
    x = a.numpy()[..., 0]
    assert abs(x.mean() - 1) < 0.01
    assert abs(x.std() - np.sqrt(0.25 / 0.75 / 256)) < 0.01
    c = TF.scaled_dot_product_attention(q, k, v, dropout_p=1.0)
    assert np.all(c.numpy() == 0)


def test_errors_like_torch():
    x = tl.zeros(1, 2, 3, 4)
    with pytest.raises(RuntimeError, match="scaled_dot_product_attention: Expected query, key, and value to have "
                                           "the same dtype"):
        TF.scaled_dot_product_attention(x, x.double(), x)
    with pytest.raises(RuntimeError, match="at least 2 dimensional"):
        TF.scaled_dot_product_attention(tl.zeros(4), tl.zeros(4), tl.zeros(4))
    with pytest.raises(RuntimeError, match="attn_mask dtype to be bool or float"):
        TF.scaled_dot_product_attention(x, x, x, attn_mask=tl.zeros(3, 3, dtype=tl.int64))
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
        TF.scaled_dot_product_attention(x[0], x[0], x[0], attn_mask=tl.ones(3, 3, dtype=tl.bool), is_causal=True)
    with pytest.raises(RuntimeError, match="Number of heads in key and value must divide"):
        TF.scaled_dot_product_attention(tl.zeros(1, 4, 3, 4), tl.zeros(1, 3, 3, 4), tl.zeros(1, 3, 3, 4),
                                        enable_gqa=True)
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1"):
        TF.scaled_dot_product_attention(x, x, x, dropout_p=1.5)
    with pytest.raises(RuntimeError, match="Currently do not support dropout > 0"):
        tl._scaled_dot_product_flash_attention_for_cpu(x, x, x, 0.5)
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'attn_mask'"):
        tl._scaled_dot_product_flash_attention_for_cpu(x.requires_grad_(), x, x, attn_mask=tl.zeros(3, 3).requires_grad_())


def test_meta_shapes():
    q = tl.empty(2, 3, 5, 4, device="meta")
    k = tl.empty(2, 3, 7, 4, device="meta")
    assert tuple(TF.scaled_dot_product_attention(q, k, k).shape) == (2, 3, 5, 4)
    o, lse = tl._scaled_dot_product_flash_attention_for_cpu(q, k, k, attn_mask=tl.empty(5, 7, device="meta"))
    assert tuple(o.shape) == (2, 3, 5, 4) and tuple(lse.shape) == (2, 3, 5)


# ---------------------------------------------------------------- multi_head_attention_forward

E, H, L, S, N = 8, 2, 5, 6, 3


def mha_both(batched=True, self_attn=False, separate=False, bias_kv=False, zero_attn=False, kpm=None, am=None,
             need_weights=True, average=True, causal=False, training=False, dropout_p=0.0):
    g = torch.Generator().manual_seed(0)
    r = lambda *s: torch.randn(*s, dtype=torch.float64, generator=g)  # noqa: E731
    lead = (N,) if batched else ()
    q = r(L, *lead, E)
    k = q if self_attn else r(S, *lead, E)
    v = k if not separate else r(*k.shape)
    W, b, Wo, bo = r(3 * E, E), r(3 * E), r(E, E), r(E)
    bk, bv = (r(1, 1, E), r(1, 1, E)) if bias_kv else (None, None)
    wq, wk, wv = (r(E, E), r(E, E), r(E, E)) if separate else (None, None, None)
    kw = dict(training=training, key_padding_mask=kpm, need_weights=need_weights, attn_mask=am,
              use_separate_proj_weight=separate, q_proj_weight=wq, k_proj_weight=wk, v_proj_weight=wv,
              average_attn_weights=average, is_causal=causal)
    leaves_t = [t.requires_grad_() for t in (q, W, b, Wo, bo)]
    out_t = F.multi_head_attention_forward(q, k, v, E, H, W, b, bk, bv, zero_attn, dropout_p, Wo, bo, **kw)
    ql = tl_(q, True)
    kl = ql if k is q else tl_(k)
    vl = kl if v is k else tl_(v)
    Wl, bl, Wol, bol = [tl_(t, True) for t in (W, b, Wo, bo)]
    lkw = {a: tl_(x) if isinstance(x, torch.Tensor) else x for a, x in kw.items()}
    out_l = TF.multi_head_attention_forward(ql, kl, vl, E, H, Wl, bl, tl_(bk), tl_(bv), zero_attn, dropout_p, Wol, bol,
                                            **lkw)
    for a, b_ in zip(out_l, out_t):
        assert (a is None) == (b_ is None)
        if a is not None:
            np.testing.assert_allclose(np_(a), np_(b_), atol=1e-10, equal_nan=True)
    gt = torch.autograd.grad(out_t[0].sum(), leaves_t, allow_unused=True)
    gl = tl.autograd.grad(out_l[0].sum(), [ql, Wl, bl, Wol, bol], allow_unused=True)
    for a, b_ in zip(gl, gt):
        assert (a is None) == (b_ is None)
        if a is not None:
            np.testing.assert_allclose(np_(a), np_(b_), atol=1e-9, equal_nan=True)


@pytest.mark.parametrize("case", [
    {}, {"self_attn": True}, {"separate": True}, {"batched": False}, {"bias_kv": True, "zero_attn": True},
    {"need_weights": False}, {"average": False}, {"self_attn": True, "need_weights": False},
    {"kpm": torch.tensor([[False] * 5 + [True]] * N)},
    {"kpm": torch.tensor([[False] * 5 + [True]] * N), "need_weights": False, "bias_kv": True},
    {"am": torch.randn(L, S, dtype=torch.float64), "need_weights": False},
    {"am": torch.ones(L, S, dtype=torch.bool).tril(), "need_weights": False, "causal": True},
    {"am": torch.randn(N * H, L, S, dtype=torch.float64), "average": False, "zero_attn": True},
])
def test_mha_like_torch(case):
    mha_both(**case)


def test_mha_errors_like_torch():
    x = tl.zeros(L, N, E)
    w = tl.zeros(3 * E, E)
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 6, but got 8"):
        TF.multi_head_attention_forward(x, x, x, 6, H, w, None, None, None, False, 0.0, tl.zeros(E, E), None)
    with pytest.raises(AssertionError, match="not divisible by num_heads"):
        TF.multi_head_attention_forward(x, x, x, E, 3, w, None, None, None, False, 0.0, tl.zeros(E, E), None)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        TF.multi_head_attention_forward(x, x, x, E, H, w, None, None, None, False, 0.0, tl.zeros(E, E), None,
                                        is_causal=True)
    with pytest.raises(AssertionError, match="query should be unbatched 2D or batched 3D tensor"):
        TF.multi_head_attention_forward(tl.zeros(E), x, x, E, H, w, None, None, None, False, 0.0, tl.zeros(E, E), None)
