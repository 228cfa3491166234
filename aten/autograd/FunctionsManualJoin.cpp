#include "aten/autograd/FunctionsManualJoin.h"

#include "generated/ops/add.h"
#include "generated/ops/mul.h"
#include "generated/ops/narrow.h"
#include "generated/ops/stack.h"
#include "generated/ops/zeros.h"

namespace tl::autograd::generated {

std::vector<DimVector> list_sizes(TensorList tensors) {
  std::vector<DimVector> sizes;
  sizes.reserve(tensors.size());
  for (const Tensor& t : tensors) sizes.emplace_back(t.sizes());
  return sizes;
}

std::vector<ScalarType> list_scalar_types(TensorList tensors) {
  std::vector<ScalarType> types;
  types.reserve(tensors.size());
  for (const Tensor& t : tensors) types.push_back(t.dtype());
  return types;
}

std::vector<Tensor> cat_tensors_backward(const Tensor& grad, const std::vector<DimVector>& sizes,
                                         const std::vector<ScalarType>& dtypes, int64_t dim) {
  std::vector<Tensor> grads(sizes.size());
  if (!grad.defined()) return grads;
  dim = maybe_wrap_dim(dim, grad.dim());
  int64_t offset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const DimVector& s = sizes[i];
    if (s.size() == 1 && s[0] == 0) {  // skipped by cat's legacy rule
      grads[i] = tl::zeros(IntArrayRef(s), dtypes[i], grad.device());
      continue;
    }
    grads[i] = tl::narrow(grad, dim, offset, s[dim]);
    offset += s[dim];
  }
  return grads;
}

Tensor unbind_backward(const std::vector<Tensor>& grads, IntArrayRef self_sizes, ScalarType self_st, int64_t dim) {
  dim = maybe_wrap_dim(dim, static_cast<int64_t>(self_sizes.size()));
  DimVector slice_sizes(self_sizes);
  slice_sizes.erase(dim);
  std::vector<Tensor> filled(grads.size());
  for (size_t i = 0; i < grads.size(); ++i) {
    filled[i] = grads[i].defined() ? grads[i] : tl::zeros(IntArrayRef(slice_sizes), self_st);
  }
  return tl::stack(filled, dim);
}

}  // namespace tl::autograd::generated

namespace tl::autograd::generated {

Tensor add_defined(const Tensor& a, const Tensor& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return tl::add(a, b);
}

Tensor mul_defined(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined()) return Tensor();
  return tl::mul(a, b);
}

}  // namespace tl::autograd::generated
