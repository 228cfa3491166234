// _cross_entropy_fused_target_backward: the gradient of the fused cross_entropy with respect to class probabilities.
// PyTorch's composite, -sum(log_softmax(x) * ((1 - s) * p + s / C) * w) (/ rows for mean), differentiates the
// target, so a target that requires grad (distillation with a trained teacher, learned soft labels) gets
//   d loss / d p_c = -g * (1 - s) * w_c * log_softmax(x)_c   (g divided by the row count for mean),
// here in one pass from the forward's saved lse (log_softmax_c = (x_c - hi) - lo, hi + lo = lse, as the
// backward for self takes exp of it), without materializing log_softmax. Logits seen as (outer, C, inner).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/CrossEntropy.h"
#include "aten/native/DimEngine.h"  // cast_to
#include "aten/native/Losses.h"
#include "aten/native/cpu/Vectorize.h"  // TL_TARGET_CLONES
#include "generated/ops/_cross_entropy_fused_target_backward.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/empty.h"

namespace tl::native {

namespace {

// K-dim: one class of a run of n positions, k, hi, lo per position. (N, C): one row, k, hi, lo per row, w per class.
template <typename T>
TL_TARGET_CLONES void run_positions(const T* x, T* out, int64_t n, const T* k, const T* hi, const T* lo, T w) {
  for (int64_t j = 0; j < n; ++j) out[j] = (k[j] * w) * ((x[j] - hi[j]) - lo[j]);
}
template <typename T>
TL_TARGET_CLONES void run_classes(const T* x, T* out, int64_t n, T k, T hi, T lo, const T* w) {
  if (w) {
    for (int64_t c = 0; c < n; ++c) out[c] = (k * w[c]) * ((x[c] - hi) - lo);
  } else {
    for (int64_t c = 0; c < n; ++c) out[c] = k * ((x[c] - hi) - lo);
  }
}

// hi + lo = lse of row r. Beyond 2^23 the double lse = max + log_sum keeps log_sum to less than 2^-29 (the
// self backward's guard): such a row takes max and log_sum from x again, so (x - max) - log_sum is log_softmax's own
// rounding.
template <typename T>
void split_lse(double lse, const T* x, int64_t stride, int64_t classes, T* hi, T* lo) {
  if (__builtin_expect(!(std::abs(lse) > 8388608.0), 1)) {
    *hi = static_cast<T>(lse);
    *lo = static_cast<T>(lse - static_cast<double>(*hi));
    return;
  }
  T mx = -std::numeric_limits<T>::infinity();
  for (int64_t c = 0; c < classes; ++c) mx = x[c * stride] > mx ? x[c * stride] : mx;
  double sum = 0;
  for (int64_t c = 0; c < classes; ++c) sum += std::exp(static_cast<double>(x[c * stride] - mx));
  *hi = mx;
  *lo = static_cast<T>(std::log(sum));
}

}  // namespace

Tensor cross_entropy_fused_target_backward_kernel(const Tensor& grad_output, const Tensor& self_, const Tensor& target_,
                                                  const std::optional<Tensor>& weight, int64_t reduction,
                                                  double label_smoothing, const Tensor& lse_) {
  const char* op = "_cross_entropy_fused_target_backward";
  const CrossEntropyGeometry g = cross_entropy_geometry(self_, target_, weight, reduction, label_smoothing, op);
  TL_CHECK(g.prob, op, ": expected class probabilities (a floating target of the input's shape), got class indices");
  TL_CHECK(lse_.sizes() == IntArrayRef(g.row_shape) && lse_.dtype() == ScalarType::Float64, op,
           ": expected lse of shape ", IntArrayRef(g.row_shape), " and dtype float64, got ", lse_.sizes(), " ",
           scalar_type_name(lse_.dtype()));
  if (reduction == kReductionNone) {
    TL_CHECK(grad_output.sizes() == IntArrayRef(g.row_shape), op, ": expected grad_output of shape ",
             IntArrayRef(g.row_shape), ", got ", grad_output.sizes());
  } else {
    TL_CHECK(grad_output.numel() == 1, op, ": expected a single element grad_output, got ", grad_output.sizes());
  }
  const ScalarType st = self_.dtype();
  Tensor grad_target = empty(self_.sizes(), st, self_.device());
  if (self_.is_meta() || self_.numel() == 0) return grad_target;
  const Tensor self = contiguous(self_), lse = contiguous(lse_), go = contiguous(cast_to(grad_output, st));
  const Tensor w = weight && weight->defined() ? contiguous(*weight) : Tensor();
  const int64_t rows = g.outer * g.inner, C = g.classes, S = g.inner;
  auto body = [&](auto zero) {
    using T = decltype(zero);
    const T* x = self.data_ptr<T>();
    const T* wp = w.defined() ? w.data_ptr<T>() : nullptr;
    const T* gp = go.data_ptr<T>();
    const double* lp = lse.data_ptr<double>();
    T* out = grad_target.data_ptr<T>();
    // -(g / rows) for mean (PyTorch divides the sum by the row count), times (1 - s): the row's factor.
    const double divisor = reduction == kReductionMean ? static_cast<double>(rows) : 1.0;
    auto factor = [&](int64_t r) {
      const double gr = static_cast<double>(reduction == kReductionNone ? gp[r] : gp[0]);
      return static_cast<T>(-(gr / divisor) * (1.0 - label_smoothing));
    };
    if (S == 1) {
      parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, C)), [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          T hi, lo;
          split_lse(lp[r], x + r * C, 1, C, &hi, &lo);
          run_classes(x + r * C, out + r * C, C, factor(r), hi, lo, wp);
        }
      });
      return;
    }
    // K-dim: per-position factors and lse halves, then runs of S positions class by class (contiguous).
    std::vector<T> k(static_cast<size_t>(rows)), hi(static_cast<size_t>(rows)), lo(static_cast<size_t>(rows));
    parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, C)), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        k[static_cast<size_t>(r)] = factor(r);
        split_lse(lp[r], x + (r / S) * C * S + r % S, S, C, &hi[static_cast<size_t>(r)], &lo[static_cast<size_t>(r)]);
      }
    });
    parallel_for(0, g.outer * C, std::max<int64_t>(1, kGrainSize / S), [&](int64_t b, int64_t e) {
      for (int64_t oc = b; oc < e; ++oc) {
        const int64_t o = oc / C, c = oc % C;
        const size_t r0 = static_cast<size_t>(o * S);
        run_positions(x + oc * S, out + oc * S, S, k.data() + r0, hi.data() + r0, lo.data() + r0, wp ? wp[c] : T(1));
      }
    });
  };
  if (st == ScalarType::Float64) body(0.0);
  else body(0.0f);
  return grad_target;
}

}  // namespace tl::native
