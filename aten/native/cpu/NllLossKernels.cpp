// nll_loss_forward / nll_loss_backward and their image forms nll_loss2d_*, as PyTorch's CPU kernels.
//
// Both shapes are one loop: `self` seen as (batch, classes, inner) and `target` as (batch, inner)
// (inner = H * W for the 2d ops, 1 otherwise). Every target is checked before anything is read
// through it, so an index out of range raises IndexError ("Target 5 is out of bounds.") and never
// reads outside `self`; the checks run serially, outside the parallel loops (no throwing across
// OpenMP). Sums accumulate in double; 16-bit floats are read into float32 and rounded once.
#include <cstdint>
#include <limits>
#include <tuple>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/DimEngine.h"
#include "aten/native/Losses.h"
#include "aten/native/TensorIterator.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/empty.h"
#include "generated/ops/nll_loss2d_backward.h"
#include "generated/ops/nll_loss2d_forward.h"
#include "generated/ops/nll_loss_backward.h"
#include "generated/ops/nll_loss_forward.h"
#include "generated/ops/zeros.h"

namespace tl::native {

namespace {

struct NllShape {
  int64_t batch, classes, inner;
  bool batched;  // (N, C) / (N, C, H, W) input; false for (C,) with a 0-d target
};

void check_target_and_weight(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                             int64_t classes, const char* op) {
  TL_CHECK(target.dtype() == ScalarType::Int64 || target.dtype() == ScalarType::UInt8, op,
           ": expected target dtype to be Long or Byte, but got ", scalar_type_name(target.dtype()));
  if (weight && weight->defined()) {
    TL_CHECK(weight->dim() == 1 && weight->numel() == classes, op,
             ": weight tensor should be defined either for all ", classes,
             " classes or no classes but got weight tensor of shape: ", weight->sizes());
    TL_CHECK(weight->dtype() == self.dtype(), op, ": expected scalar type ", scalar_type_name(self.dtype()),
             " but found ", scalar_type_name(weight->dtype()));
  }
  TL_CHECK_AS(NotImplementedError, is_floating_type(self.dtype()), op, ": not implemented for '",
              scalar_type_name(self.dtype()), "'");
}

NllShape nll_shape_1d(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, const char* op) {
  TL_CHECK(self.dim() > 0 && self.dim() <= 2, op, ": input tensor should be 1D or 2D");
  TL_CHECK(target.dim() <= 1, op, ": 0D or 1D target tensor expected, multi-target not supported");
  const bool no_batch_dim = self.dim() == 1 && target.dim() == 0;
  const int64_t batch = self.dim() == 1 ? 1 : self.size(0);
  TL_CHECK(no_batch_dim || batch == target.size(0), op, ": size mismatch (got input: ", self.sizes(),
           ", target: ", target.sizes(), ")");
  const int64_t classes = self.size(-1);
  check_target_and_weight(self, target, weight, classes, op);
  return {batch, classes, 1, self.dim() == 2};
}

NllShape nll_shape_2d(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, const char* op) {
  TL_CHECK(target.dim() == 3, op, ": only batches of spatial targets supported (3D tensors) but got targets of dimension: ",
           target.dim());
  TL_CHECK(self.dim() == 4, op, ": only batches of spatial inputs supported (4D tensors), but got input of dimension: ",
           self.dim());
  TL_CHECK(self.size(0) == target.size(0) && self.size(2) == target.size(1) && self.size(3) == target.size(2), op,
           ": size mismatch (got input: ", self.sizes(), " , target: ", target.sizes());
  check_target_and_weight(self, target, weight, self.size(1), op);
  return {self.size(0), self.size(1), self.size(2) * self.size(3), true};
}

// The target of sample i (0 <= i < batch * inner) as int64, after the bounds check of all of them.
template <typename index_t>
void check_targets(const index_t* t, int64_t n, int64_t classes, int64_t ignore_index) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = static_cast<int64_t>(t[i]);
    TL_CHECK_INDEX(c == ignore_index || (c >= 0 && c < classes), "Target ", c, " is out of bounds.");
  }
}

#define TL_DISPATCH_TARGET(target, ...)                               \
  [&] {                                                               \
    if ((target).dtype() == ScalarType::UInt8) {                      \
      using index_t = uint8_t;                                        \
      return __VA_ARGS__();                                           \
    }                                                                 \
    using index_t = int64_t;                                          \
    return __VA_ARGS__();                                             \
  }()

std::tuple<Tensor, Tensor> nll_forward_impl(const Tensor& self_, const Tensor& target_, const std::optional<Tensor>& weight,
                                            int64_t reduction, int64_t ignore_index, const NllShape& g, const char* op) {
  const ScalarType st = self_.dtype();
  const bool per_sample = reduction == kReductionNone && g.batched;
  DimVector out_shape;
  if (per_sample) out_shape.assign(target_.sizes().begin(), target_.sizes().end());
  Tensor output = empty(out_shape, st, self_.device());
  Tensor total_weight = empty(IntArrayRef(), st, self_.device());
  if (self_.is_meta()) return {output, total_weight};
  const Tensor self = contiguous(self_), target = contiguous(target_);
  const Tensor w = weight && weight->defined() ? contiguous(*weight) : Tensor();
  const int64_t n = g.batch * g.inner, C = g.classes, S = g.inner;
  TL_DISPATCH_FLOAT(st, op, [&] {
    using acc_t = opmath_t<scalar_t>;
    TL_DISPATCH_TARGET(target, [&] {
      const index_t* t = target.data_ptr<index_t>();
      check_targets(t, n, C, ignore_index);
      const scalar_t* x = self.data_ptr<scalar_t>();
      const scalar_t* wp = w.defined() ? w.data_ptr<scalar_t>() : nullptr;
      auto weight_of = [&](int64_t c) { return wp ? static_cast<acc_t>(wp[c]) : acc_t(1); };
      auto at = [&](int64_t i, int64_t c) { return static_cast<acc_t>(x[((i / S) * C + c) * S + i % S]); };
      if (per_sample) {
        scalar_t* y = output.data_ptr<scalar_t>();
        parallel_for(0, n, kGrainSize / 4, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) {
            const int64_t c = static_cast<int64_t>(t[i]);
            y[i] = c == ignore_index ? scalar_t(0) : static_cast<scalar_t>(-weight_of(c) * at(i, c));
          }
        });
        total_weight.data_ptr<scalar_t>()[0] = scalar_t(0);
        return;
      }
      double loss = 0, total = 0;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t c = static_cast<int64_t>(t[i]);
        if (c == ignore_index) continue;
        const acc_t wc = weight_of(c);
        loss -= static_cast<double>(wc * at(i, c));
        total += static_cast<double>(wc);
      }
      // A mean over no counted sample is 0 / 0 = NaN, as PyTorch.
      if (reduction == kReductionMean) loss = total == 0 ? std::numeric_limits<double>::quiet_NaN() : loss / total;
      output.data_ptr<scalar_t>()[0] = static_cast<scalar_t>(loss);
      total_weight.data_ptr<scalar_t>()[0] = static_cast<scalar_t>(total);
    });
  });
  return {output, total_weight};
}

Tensor nll_backward_impl(const Tensor& grad_output, const Tensor& self_, const Tensor& target_,
                         const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                         const Tensor& total_weight, const NllShape& g, const char* op) {
  const ScalarType st = self_.dtype();
  const bool per_sample = reduction == kReductionNone && g.batched;
  TL_CHECK(total_weight.numel() == 1, op, ": expected total_weight to be a single element tensor, got: ",
           total_weight.sizes(), " (", total_weight.numel(), " elements)");
  TL_CHECK(per_sample || total_weight.dtype() == st, op, ": expected scalar type ", scalar_type_name(st), " but found ",
           scalar_type_name(total_weight.dtype()));
  if (per_sample) {
    TL_CHECK(grad_output.sizes() == target_.sizes(), op, ": expected grad_output of shape ", target_.sizes(),
             " (the target's), but got: ", grad_output.sizes());
  } else {
    TL_CHECK(grad_output.numel() == 1, op, ": Expected a single element grad_output tensor, but got: ",
             grad_output.sizes());
  }
  if (self_.is_meta()) return empty(self_.sizes(), st, self_.device());
  Tensor grad_input = zeros(self_.sizes(), st, self_.device());
  const Tensor target = contiguous(target_);
  const Tensor go = contiguous(cast_to(grad_output, st));
  const Tensor w = weight && weight->defined() ? contiguous(*weight) : Tensor();
  const int64_t n = g.batch * g.inner, C = g.classes, S = g.inner;
  TL_DISPATCH_FLOAT(st, op, [&] {
    using acc_t = opmath_t<scalar_t>;
    TL_DISPATCH_TARGET(target, [&] {
      const index_t* t = target.data_ptr<index_t>();
      check_targets(t, n, C, ignore_index);
      const scalar_t* gp = go.data_ptr<scalar_t>();
      const scalar_t* wp = w.defined() ? w.data_ptr<scalar_t>() : nullptr;
      scalar_t* gi = grad_input.data_ptr<scalar_t>();
      acc_t scale = acc_t(-1);
      if (reduction == kReductionMean)
        scale /= static_cast<acc_t>(cast_to(total_weight, ScalarType::Float64).data_ptr<double>()[0]);
      parallel_for(0, n, kGrainSize / 4, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          const int64_t c = static_cast<int64_t>(t[i]);
          if (c == ignore_index) continue;
          const acc_t gv = static_cast<acc_t>(gp[per_sample ? i : 0]) * scale;
          gi[((i / S) * C + c) * S + i % S] = static_cast<scalar_t>(wp ? static_cast<acc_t>(wp[c]) * gv : gv);
        }
      });
    });
  });
  return grad_input;
}

}  // namespace

std::tuple<Tensor, Tensor> nll_loss_forward_kernel(const Tensor& self, const Tensor& target,
                                                   const std::optional<Tensor>& weight, int64_t reduction,
                                                   int64_t ignore_index) {
  const char* op = "nll_loss_forward";
  return nll_forward_impl(self, target, weight, reduction, ignore_index, nll_shape_1d(self, target, weight, op), op);
}

std::tuple<Tensor, Tensor> nll_loss2d_forward_kernel(const Tensor& self, const Tensor& target,
                                                     const std::optional<Tensor>& weight, int64_t reduction,
                                                     int64_t ignore_index) {
  const char* op = "nll_loss2d_forward";
  return nll_forward_impl(self, target, weight, reduction, ignore_index, nll_shape_2d(self, target, weight, op), op);
}

Tensor nll_loss_backward_kernel(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                                const Tensor& total_weight) {
  const char* op = "nll_loss_backward";
  return nll_backward_impl(grad_output, self, target, weight, reduction, ignore_index, total_weight,
                           nll_shape_1d(self, target, weight, op), op);
}

Tensor nll_loss2d_backward_kernel(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                  const std::optional<Tensor>& weight, int64_t reduction, int64_t ignore_index,
                                  const Tensor& total_weight) {
  const char* op = "nll_loss2d_backward";
  // PyTorch's grad_input is empty_like(self), which keeps a dense self's permuted layout, and its kernel
  // refuses that.
  TL_CHECK(self.is_contiguous() || !is_non_overlapping_and_dense(self), op, ": grad_input must be contiguous");
  return nll_backward_impl(grad_output, self, target, weight, reduction, ignore_index, total_weight,
                           nll_shape_2d(self, target, weight, op), op);
}

}  // namespace tl::native
