// multi_margin_loss and multilabel_margin_loss (forward and backward), as PyTorch's CPU kernels.
//
// Inputs are (C,) / 0-d (one sample) or (N, C); each sample's loss is its hinge terms summed and divided
// by C. Targets are class indices (int64), checked before they are used as offsets, so a bad index
// raises instead of reading outside the input. Frames run in parallel only after every check passed.
#include <cstdint>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Scalar.h"
#include "aten/core/Tensor.h"
#include "aten/native/DimEngine.h"
#include "aten/native/Losses.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/empty.h"
#include "generated/ops/multi_margin_loss.h"
#include "generated/ops/multi_margin_loss_backward.h"
#include "generated/ops/multilabel_margin_loss_backward.h"
#include "generated/ops/multilabel_margin_loss_forward.h"
#include "generated/ops/zeros.h"

namespace tl::native {

namespace {

struct Frames {
  int64_t n, dim;
};

Frames frames_of(const Tensor& self, const char* op) {
  const int64_t nd = self.dim();
  TL_CHECK((nd == 2 && self.size(1) != 0) || (nd == 1 && self.size(0) != 0) || nd == 0, op,
           ": Expected non-empty vector or matrix with optional 0-dim batch size, but got: ", self.sizes());
  if (nd <= 1) return {1, nd == 0 ? 1 : self.size(0)};
  return {self.size(0), self.size(1)};
}

// float32 and float64 only, as PyTorch's CPU kernels (no float16 / bfloat16 instance).
void check_float_and_long(const Tensor& self, const Tensor& target, const char* op) {
  TL_CHECK_AS(NotImplementedError, self.dtype() == ScalarType::Float32 || self.dtype() == ScalarType::Float64, op,
              ": not implemented for '", scalar_type_name(self.dtype()), "'");
  TL_CHECK(target.dtype() == ScalarType::Int64, op, ": expected scalar type int64 but found ",
           scalar_type_name(target.dtype()));
}

void check_reduction(int64_t reduction, const char* op) {
  TL_CHECK(reduction >= kReductionNone && reduction <= kReductionSum, op,
           ": reduction must be 0 (none), 1 (mean) or 2 (sum), got ", reduction);
}

// Per-sample losses (`per_frame`, of n values) reduced into a new tensor of `dtype`.
template <typename scalar_t>
void store_reduced(const std::vector<double>& per_frame, int64_t reduction, bool none_per_frame, Tensor& out) {
  scalar_t* y = out.data_ptr<scalar_t>();
  if (none_per_frame) {
    for (size_t i = 0; i < per_frame.size(); ++i) y[i] = static_cast<scalar_t>(per_frame[i]);
    return;
  }
  double s = 0;
  for (double v : per_frame) s += v;
  if (reduction == kReductionMean) s /= static_cast<double>(per_frame.size());
  y[0] = static_cast<scalar_t>(s);
}

}  // namespace

// ---- multi_margin_loss: sum over i != y of weight[y] * max(0, margin - x[y] + x[i]) ** p, over C.

static Tensor multi_margin_loss_impl(const Tensor& self_, const Tensor& target_, const Scalar& p_, const Scalar& margin_,
                              const std::optional<Tensor>& weight, int64_t reduction, Tensor& out, const char* op) {
  check_reduction(reduction, op);
  const int64_t p = p_.to_long();
  TL_CHECK(p == 1 || p == 2, op, ": only p == 1 and p == 2 supported");
  const Frames f = frames_of(self_, op);
  TL_CHECK(target_.dim() <= 1 && target_.numel() == f.n, op, ": inconsistent target size, expected ", f.n,
           " but got ", target_.sizes());
  const bool has_weight = weight && weight->defined();
  if (has_weight) {
    TL_CHECK(weight->dim() <= 1 && weight->numel() == f.dim, op, ": inconsistent weight size, expected ", f.dim,
             " but got ", weight->sizes());
    TL_CHECK(weight->dtype() == self_.dtype(), op, ": expected scalar type ", scalar_type_name(self_.dtype()),
             " but found ", scalar_type_name(weight->dtype()));
  }
  check_float_and_long(self_, target_, op);
  const bool per_frame = reduction == kReductionNone && target_.dim() > 0;
  DimVector shape;
  if (per_frame) shape.push_back(f.n);
  prepare_output(out, shape, self_.dtype(), self_, OutDtype::Exact, op);
  if (self_.is_meta()) return out;
  const Tensor x = contiguous(self_), t = contiguous(target_);
  const Tensor w = has_weight ? contiguous(cast_to(*weight, self_.dtype())) : Tensor();
  const int64_t* tp = t.data_ptr<int64_t>();
  for (int64_t i = 0; i < f.n; ++i) TL_CHECK(tp[i] >= 0 && tp[i] < f.dim, op, ": target out of range");
  const double margin = margin_.to_double();
  TL_DISPATCH_FLOAT(self_.dtype(), op, [&] {
    const scalar_t* xp = x.data_ptr<scalar_t>();
    const scalar_t* wp = has_weight ? w.data_ptr<scalar_t>() : nullptr;
    std::vector<double> losses(f.n);
    parallel_for(0, f.n, std::max<int64_t>(1, kGrainSize / f.dim), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const scalar_t* row = xp + i * f.dim;
        const int64_t y = tp[i];
        const double xy = static_cast<double>(row[y]);
        double s = 0;
        for (int64_t d = 0; d < f.dim; ++d) {
          if (d == y) continue;
          const double z = margin - xy + static_cast<double>(row[d]);
          if (z > 0) s += (p == 1 ? z : z * z) * (wp ? static_cast<double>(wp[y]) : 1.0);
        }
        losses[i] = s / static_cast<double>(f.dim);
      }
    });
    store_reduced<scalar_t>(losses, reduction, per_frame, out);
  });
  return out;
}

void multi_margin_loss_kernel(const Tensor& self, const Tensor& target, const Scalar& p, const Scalar& margin,
                              const std::optional<Tensor>& weight, int64_t reduction, Tensor& out) {
  multi_margin_loss_impl(self, target, p, margin, weight, reduction, out, "multi_margin_loss");
}

Tensor multi_margin_loss_backward_kernel(const Tensor& grad_output, const Tensor& self_, const Tensor& target_,
                                         const Scalar& p_, const Scalar& margin_, const std::optional<Tensor>& weight,
                                         int64_t reduction) {
  const char* op = "multi_margin_loss_backward";
  check_reduction(reduction, op);
  const int64_t p = p_.to_long();
  TL_CHECK(p == 1 || p == 2, op, ": only p == 1 and p == 2 supported");
  const Frames f = frames_of(self_, op);
  TL_CHECK(target_.dim() <= 1 && target_.numel() == f.n, op, ": inconsistent target size, expected ", f.n,
           " but got ", target_.sizes());
  const bool has_weight = weight && weight->defined();
  if (has_weight) {
    TL_CHECK(weight->dim() <= 1 && weight->numel() == f.dim, op, ": inconsistent weight size, expected ", f.dim,
             " but got ", weight->sizes());
    TL_CHECK(weight->dtype() == self_.dtype(), op, ": expected scalar type ", scalar_type_name(self_.dtype()),
             " but found ", scalar_type_name(weight->dtype()));
  }
  check_float_and_long(self_, target_, op);
  const bool per_frame = reduction == kReductionNone && grad_output.dim() > 0;
  TL_CHECK(per_frame ? grad_output.numel() == f.n : grad_output.numel() == 1, op,
           ": grad_output has the wrong size ", grad_output.sizes());
  if (self_.is_meta()) return empty(self_.sizes(), self_.dtype(), self_.device());
  Tensor grad_input = zeros(self_.sizes(), self_.dtype(), self_.device());
  const Tensor x = contiguous(self_), t = contiguous(target_);
  const Tensor go = contiguous(cast_to(grad_output, ScalarType::Float64));
  const Tensor w = has_weight ? contiguous(cast_to(*weight, self_.dtype())) : Tensor();
  const int64_t* tp = t.data_ptr<int64_t>();
  for (int64_t i = 0; i < f.n; ++i) TL_CHECK(tp[i] >= 0 && tp[i] < f.dim, op, ": target out of range");
  const double margin = margin_.to_double();
  const double g = reduction == kReductionMean ? 1.0 / static_cast<double>(f.n * f.dim) : 1.0 / static_cast<double>(f.dim);
  TL_DISPATCH_FLOAT(self_.dtype(), op, [&] {
    const scalar_t* xp = x.data_ptr<scalar_t>();
    const scalar_t* wp = has_weight ? w.data_ptr<scalar_t>() : nullptr;
    const double* gp = go.data_ptr<double>();
    scalar_t* gi = grad_input.data_ptr<scalar_t>();
    parallel_for(0, f.n, std::max<int64_t>(1, kGrainSize / f.dim), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const scalar_t* row = xp + i * f.dim;
        scalar_t* grow = gi + i * f.dim;
        const int64_t y = tp[i];
        const double xy = static_cast<double>(row[y]);
        const double scale = g * gp[per_frame ? i : 0];
        double gy = 0;
        for (int64_t d = 0; d < f.dim; ++d) {
          if (d == y) continue;
          const double z = margin - xy + static_cast<double>(row[d]);
          if (z <= 0) continue;
          double h = (p == 1 ? 1.0 : 2.0 * z) * scale;
          if (wp) h *= static_cast<double>(wp[y]);
          grow[d] = static_cast<scalar_t>(h);
          gy -= h;
        }
        grow[y] = static_cast<scalar_t>(gy);
      }
    });
  });
  return grad_input;
}

// ---- multilabel_margin_loss: each sample's targets are class indices up to the first negative one;
// the loss sums max(0, 1 - (x[j] - x[i])) over target classes j and non-target classes i, over C.

namespace {

Frames multilabel_frames(const Tensor& self, const Tensor& target, const char* op) {
  const Frames f = frames_of(self, op);
  if (self.dim() <= 1) {
    TL_CHECK(target.dim() <= 1 && target.numel() == f.dim, op, ": inconsistent target size: ", target.sizes(),
             " for input of size: ", self.sizes());
  } else {
    TL_CHECK(target.dim() == 2 && target.size(0) == f.n && target.size(1) == f.dim, op,
             ": inconsistent target size: ", target.sizes(), " for input of size: ", self.sizes());
  }
  check_float_and_long(self, target, op);
  return f;
}

// The number of leading valid targets of each frame (up to the first negative), after checking that
// they index a class.
std::vector<int64_t> target_counts(const int64_t* tp, const Frames& f, const char* op) {
  std::vector<int64_t> counts(f.n);
  for (int64_t i = 0; i < f.n; ++i) {
    int64_t k = 0;
    for (; k < f.dim && tp[i * f.dim + k] >= 0; ++k)
      TL_CHECK_INDEX(tp[i * f.dim + k] < f.dim, op, ": target index ", tp[i * f.dim + k], " is out of bounds for ",
                     f.dim, " classes");
    counts[i] = k;
  }
  return counts;
}

}  // namespace

std::tuple<Tensor, Tensor> multilabel_margin_loss_forward_kernel(const Tensor& self_, const Tensor& target_,
                                                                 int64_t reduction) {
  const char* op = "multilabel_margin_loss_forward";
  check_reduction(reduction, op);
  const Frames f = multilabel_frames(self_, target_, op);
  const bool per_frame = reduction == kReductionNone && target_.dim() > 1;
  DimVector shape;
  if (per_frame) shape.push_back(f.n);
  Tensor output = empty(shape, self_.dtype(), self_.device());
  Tensor is_target = zeros(target_.sizes(), self_.dtype(), self_.device());
  if (self_.is_meta()) return {output, is_target};
  const Tensor x = contiguous(self_), t = contiguous(target_);
  const int64_t* tp = t.data_ptr<int64_t>();
  const std::vector<int64_t> counts = target_counts(tp, f, op);
  TL_DISPATCH_FLOAT(self_.dtype(), op, [&] {
    const scalar_t* xp = x.data_ptr<scalar_t>();
    scalar_t* isp = is_target.data_ptr<scalar_t>();
    std::vector<double> losses(f.n);
    parallel_for(0, f.n, std::max<int64_t>(1, kGrainSize / (f.dim * f.dim)), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const scalar_t* row = xp + i * f.dim;
        const int64_t* trow = tp + i * f.dim;
        scalar_t* is_row = isp + i * f.dim;
        for (int64_t k = 0; k < counts[i]; ++k) is_row[trow[k]] = scalar_t(1);
        double s = 0;
        for (int64_t k = 0; k < counts[i]; ++k) {
          const double xj = static_cast<double>(row[trow[k]]);
          for (int64_t d = 0; d < f.dim; ++d) {
            if (is_row[d] != scalar_t(0)) continue;
            const double z = 1.0 - xj + static_cast<double>(row[d]);
            if (z > 0) s += z;
          }
        }
        losses[i] = s / static_cast<double>(f.dim);
      }
    });
    store_reduced<scalar_t>(losses, reduction, per_frame, output);
  });
  return {output, is_target};
}

Tensor multilabel_margin_loss_backward_kernel(const Tensor& grad_output, const Tensor& self_, const Tensor& target_,
                                              int64_t reduction, const Tensor& is_target_) {
  const char* op = "multilabel_margin_loss_backward";
  check_reduction(reduction, op);
  const Frames f = multilabel_frames(self_, target_, op);
  TL_CHECK(is_target_.sizes() == target_.sizes(), op, ": inconsistent is_target size: ", is_target_.sizes(),
           " for target of size: ", target_.sizes());
  TL_CHECK(is_target_.dtype() == self_.dtype(), op, ": expected scalar type ", scalar_type_name(self_.dtype()),
           " but found ", scalar_type_name(is_target_.dtype()));
  const bool per_frame = reduction == kReductionNone && grad_output.dim() > 0;
  TL_CHECK(per_frame ? grad_output.numel() == f.n : grad_output.numel() == 1, op,
           ": grad_output has the wrong size ", grad_output.sizes());
  if (self_.is_meta()) return empty(self_.sizes(), self_.dtype(), self_.device());
  Tensor grad_input = zeros(self_.sizes(), self_.dtype(), self_.device());
  const Tensor x = contiguous(self_), t = contiguous(target_);
  const Tensor is_t = contiguous(cast_to(is_target_, ScalarType::Float64));
  const Tensor go = contiguous(cast_to(grad_output, ScalarType::Float64));
  const int64_t* tp = t.data_ptr<int64_t>();
  const std::vector<int64_t> counts = target_counts(tp, f, op);
  const double g = reduction == kReductionMean ? 1.0 / static_cast<double>(f.n * f.dim) : 1.0 / static_cast<double>(f.dim);
  TL_DISPATCH_FLOAT(self_.dtype(), op, [&] {
    const scalar_t* xp = x.data_ptr<scalar_t>();
    const double* isp = is_t.data_ptr<double>();
    const double* gp = go.data_ptr<double>();
    scalar_t* gi = grad_input.data_ptr<scalar_t>();
    parallel_for(0, f.n, std::max<int64_t>(1, kGrainSize / (f.dim * f.dim)), [&](int64_t b, int64_t e) {
      std::vector<double> acc(f.dim);
      for (int64_t i = b; i < e; ++i) {
        const scalar_t* row = xp + i * f.dim;
        const int64_t* trow = tp + i * f.dim;
        const double* is_row = isp + i * f.dim;
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int64_t k = 0; k < counts[i]; ++k) {
          const int64_t j = trow[k];
          const double xj = static_cast<double>(row[j]);
          for (int64_t d = 0; d < f.dim; ++d) {
            if (is_row[d] != 0) continue;
            if (1.0 - xj + static_cast<double>(row[d]) > 0) {
              acc[j] -= g;
              acc[d] += g;
            }
          }
        }
        const double scale = gp[per_frame ? i : 0];
        for (int64_t d = 0; d < f.dim; ++d) gi[i * f.dim + d] = static_cast<scalar_t>(acc[d] * scale);
      }
    });
  });
  return grad_input;
}

}  // namespace tl::native
