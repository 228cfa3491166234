// stack: cat of the inputs, each unsqueezed at the new dimension. Its out= form is cat's out=, so it
// has cat's dtype rule (any dtype the inputs cast to safely, else TypeError), as in PyTorch.
#include <algorithm>
#include <vector>

#include "aten/autograd/GradMode.h"
#include "aten/core/Exception.h"
#include "aten/native/ShapeUtils.h"
#include "generated/ops/cat.h"
#include "generated/ops/stack.h"
#include "generated/ops/unsqueeze.h"

namespace tl::native {
namespace {

// The inputs unsqueezed at the new dimension, after stack's own checks; wraps `dim`.
std::vector<Tensor> unsqueezed_inputs(TensorList tensors, int64_t& dim) {
  TL_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  for (size_t i = 1; i < tensors.size(); ++i) {
    TL_CHECK(tensors[i].sizes() == tensors[0].sizes(), "stack expects each tensor to be equal size, but got ",
             tensors[0].sizes(), " at entry 0 and ", tensors[i].sizes(), " at entry ", i);
  }
  dim = maybe_wrap_dim(dim, tensors[0].dim() + 1, "stack");
  // Without autograd to record, the view kernel directly: a stack of many small tensors is mostly
  // these calls.
  const bool record = autograd::GradMode::is_enabled() &&
                      std::any_of(tensors.begin(), tensors.end(), [](const Tensor& t) { return t.requires_grad(); });
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const Tensor& t : tensors) parts.push_back(record ? tl::unsqueeze(t, dim) : unsqueeze_kernel(t, dim));
  return parts;
}

}  // namespace

Tensor stack_composite(TensorList tensors, int64_t dim) {
  std::vector<Tensor> parts = unsqueezed_inputs(tensors, dim);
  return tl::cat(parts, dim);
}

const Tensor& stack_out_composite(TensorList tensors, int64_t dim, const Tensor& out) {
  std::vector<Tensor> parts = unsqueezed_inputs(tensors, dim);
  return tl::cat_out(out, parts, dim);
}

}  // namespace tl::native
