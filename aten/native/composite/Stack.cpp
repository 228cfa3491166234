// stack: cat of the inputs, each unsqueezed at the new dimension. Its out= form is cat's out=, so it
// has cat's dtype rule (any dtype the inputs cast to safely, else TypeError), as in PyTorch.
#include <vector>

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
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const Tensor& t : tensors) parts.push_back(tl::unsqueeze(t, dim));
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
