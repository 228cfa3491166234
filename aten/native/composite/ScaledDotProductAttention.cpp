// scaled_dot_product_attention: PyTorch's CPU choice between the fused kernel
// (_scaled_dot_product_flash_attention_for_cpu, AttentionKernels.cpp) and the math path, a
// composite of matmul and softmax whose gradient (twice differentiable) comes from those ops.
// The choice is PyTorch's, so results, gradients and double-backward behaviour match it case by
// case: the fused kernel takes 4-D floating inputs with unit last strides, equal head dims,
// nonempty sequences, no dropout and a 2-D/4-D mask that does not require grad.
#include <cmath>
#include <limits>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/DimEngine.h"
#include "generated/ops/_scaled_dot_product_flash_attention_for_cpu.h"
#include "generated/ops/add.h"
#include "generated/ops/all.h"
#include "generated/ops/eq.h"
#include "generated/ops/logical_not.h"
#include "generated/ops/masked_fill.h"
#include "generated/ops/matmul.h"
#include "generated/ops/mul.h"
#include "generated/ops/native_dropout.h"
#include "generated/ops/ones.h"
#include "generated/ops/repeat_interleave.h"
#include "generated/ops/scaled_dot_product_attention.h"
#include "generated/ops/softmax.h"
#include "generated/ops/transpose.h"
#include "generated/ops/tril.h"
#include "generated/ops/zeros.h"

namespace tl::native {

namespace {

constexpr const char* kOp = "scaled_dot_product_attention";
constexpr double kInf = std::numeric_limits<double>::infinity();

void validate(const Tensor& q, const Tensor& k, const Tensor& v, const std::optional<Tensor>& mask) {
  TL_CHECK(q.dtype() == k.dtype() && q.dtype() == v.dtype(), kOp,
           ": Expected query, key, and value to have the same dtype, but got query.dtype: ", cpp_type_name(q.dtype()),
           " key.dtype: ", cpp_type_name(k.dtype()), " and value.dtype: ", cpp_type_name(v.dtype()), " instead.");
  TL_CHECK(q.dim() >= 2 && k.dim() >= 2 && v.dim() >= 2, kOp,
           ": Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: ", q.dim(),
           " key.dim: ", k.dim(), " and value.dim: ", v.dim(), " instead.");
  if (mask) {
    const ScalarType mt = mask->scalar_type();
    TL_CHECK(mt == ScalarType::Bool || mt == ScalarType::Float32 || mt == q.scalar_type(), kOp,
             ": Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: ",
             cpp_type_name(mt), " and  query.dtype: ", cpp_type_name(q.scalar_type()), " instead.");
  }
}

// A bool mask (True takes part) as the additive one: 0 where True, -inf where False.
Tensor additive_mask(const Tensor& mask, ScalarType dtype) {
  if (mask.scalar_type() != ScalarType::Bool) return mask;
  return masked_fill(zeros(mask.sizes(), dtype, mask.device()), logical_not(mask), -kInf);
}

bool mask_fits_kernel(const Tensor& mask, const Tensor& q, const Tensor& k) {
  if (mask.requires_grad()) return false;
  const int64_t d = mask.dim();
  if (d != 2 && d != 4) return false;
  auto fits = [](int64_t size, int64_t want) { return size == want || size == 1; };
  if (!fits(mask.sizes()[d - 2], q.sizes()[2]) || !fits(mask.sizes()[d - 1], k.sizes()[2])) return false;
  return d == 2 || (fits(mask.sizes()[0], q.sizes()[0]) && fits(mask.sizes()[1], q.sizes()[1]));
}

bool use_fused_kernel(const Tensor& q, const Tensor& k, const Tensor& v, const std::optional<Tensor>& mask,
                      double dropout_p, bool enable_gqa) {
  if (dropout_p > 0.0 || q.dim() != 4 || k.dim() != 4 || v.dim() != 4 || !is_floating_type(q.scalar_type()))
    return false;
  if (k.sizes()[0] != q.sizes()[0] || v.sizes()[0] != q.sizes()[0]) return false;
  const int64_t h = q.sizes()[1], hk = k.sizes()[1], hv = v.sizes()[1];
  const bool same_heads = h == hk && h == hv;
  const bool grouped = enable_gqa && hk == hv && hk > 0 && h % hk == 0;
  const bool multi_query = hk == 1 && hv == 1;
  if (!same_heads && !grouped && !multi_query) return false;
  if (mask && !mask_fits_kernel(*mask, q, k)) return false;
  if (k.sizes()[3] != q.sizes()[3] || v.sizes()[3] != q.sizes()[3]) return false;
  if (q.sizes()[2] == 0 || k.sizes()[2] == 0) return false;
  return q.strides()[3] == 1 && k.strides()[3] == 1 && v.strides()[3] == 1;
}

// softmax over the last dim giving zeros for rows that are entirely -inf (PyTorch's
// _safe_softmax): those rows are zeroed before (so no NaN reaches the gradient) and after.
Tensor safe_softmax(const Tensor& scores) {
  const Tensor dead = all(eq(scores, -kInf), -1, /*keepdim=*/true);
  return masked_fill(softmax(masked_fill(scores, dead, 0), -1), dead, 0);
}

Tensor math_attention(const Tensor& query, Tensor key, Tensor value, std::optional<Tensor> mask, double dropout_p,
                      bool is_causal, std::optional<double> scale, bool enable_gqa) {
  if (enable_gqa && query.dim() >= 3 && key.dim() >= 3 && value.dim() >= 3) {
    const int64_t h = query.sizes()[query.dim() - 3], hk = key.sizes()[key.dim() - 3],
                  hv = value.sizes()[value.dim() - 3];
    TL_CHECK(hk > 0 && hv > 0 && h % hk == 0 && h % hv == 0, kOp,
             ": Number of heads in key and value must divide the number of heads in ");
    if (hk != h) key = repeat_interleave(key, h / hk, -3);
    if (hv != h) value = repeat_interleave(value, h / hv, -3);
  }
  // Scaled on both sides by sqrt(scale) before the product, as PyTorch's math path (for range).
  const double sc = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(query.sizes()[query.dim() - 1]));
  const double root = std::sqrt(std::abs(sc));
  if (is_causal) {
    TL_CHECK(!mask, kOp, ": Explicit attn_mask should not be set when is_causal=True");
    const int64_t L = query.sizes()[query.dim() - 2], S = key.sizes()[key.dim() - 2];
    mask = additive_mask(tril(ones({L, S}, ScalarType::Bool, query.device())), query.scalar_type());
  }
  Tensor attn = matmul(mul(query, sc < 0 ? -root : root), mul(transpose(key, -2, -1), root));
  if (mask) add_(attn, *mask);
  attn = safe_softmax(attn);
  if (dropout_p > 0.0) {
    TL_CHECK(dropout_p <= 1.0, kOp, ": dropout probability has to be between 0 and 1, but got ", dropout_p);
    attn = std::get<0>(native_dropout(attn, dropout_p, true));
  }
  return matmul(attn, value);
}

}  // namespace

Tensor scaled_dot_product_attention_composite(const Tensor& query, const Tensor& key, const Tensor& value,
                                              const std::optional<Tensor>& attn_mask, double dropout_p,
                                              bool is_causal, std::optional<double> scale, bool enable_gqa) {
  validate(query, key, value, attn_mask);
  TL_CHECK(dropout_p >= 0.0, kOp, ": dropout probability has to be between 0 and 1, but got ", dropout_p);
  // PyTorch's math path multiplies complex operands and then refuses them in its softmax.
  TL_CHECK_AS(NotImplementedError, !is_complex_type(query.scalar_type()), kOp,
              ": softmax is not implemented for dtype ", scalar_type_name(query.scalar_type()));
  if (!is_floating_type(query.scalar_type())) {
    // PyTorch's math path scales integer inputs into float32 and then fails in the product with
    // value, except when there is nothing to compute: an empty result of the inputs' dtype.
    const ScalarType f = ScalarType::Float32;
    std::optional<Tensor> mask;
    if (attn_mask) mask = cast_to(additive_mask(*attn_mask, f), f);
    const Tensor r = math_attention(cast_to(query, f), cast_to(key, f), cast_to(value, f), mask, dropout_p, is_causal,
                                    scale, enable_gqa);
    TL_CHECK(r.numel() == 0, kOp, ": expected scalar type Float but found ", legacy_type_name(query.scalar_type()));
    return cast_to(r, query.scalar_type());
  }
  std::optional<Tensor> mask;
  if (attn_mask) mask = additive_mask(*attn_mask, query.scalar_type());
  if (use_fused_kernel(query, key, value, attn_mask, dropout_p, enable_gqa)) {
    // The kernel takes the mask in the query's dtype, or float32 beside 16-bit queries.
    const ScalarType qt = query.scalar_type();
    if (mask && mask->scalar_type() != qt &&
        !(mask->scalar_type() == ScalarType::Float32 && (qt == ScalarType::Float16 || qt == ScalarType::BFloat16)))
      mask = cast_to(*mask, qt);
    return std::get<0>(_scaled_dot_product_flash_attention_for_cpu(query, key, value, dropout_p, is_causal, mask, scale));
  }
  return math_attention(query, key, value, mask, dropout_p, is_causal, scale, enable_gqa);
}

}  // namespace tl::native
