// hstack, vstack (row_stack), dstack, column_stack and atleast_1d/2d/3d: cat of the inputs made
// at least 1-, 2- or 3-D. Their out= forms are cat's out=, so they share its dtype rules.
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "generated/ops/atleast_1d.h"
#include "generated/ops/atleast_2d.h"
#include "generated/ops/atleast_3d.h"
#include "generated/ops/cat.h"
#include "generated/ops/column_stack.h"
#include "generated/ops/dstack.h"
#include "generated/ops/hstack.h"
#include "generated/ops/reshape.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/vstack.h"

namespace tl::native {

Tensor atleast_1d_composite(const Tensor& self) {
  return self.dim() == 0 ? reshape(self, std::vector<int64_t>{1}) : self;
}

Tensor atleast_2d_composite(const Tensor& self) {
  if (self.dim() == 0) return reshape(self, std::vector<int64_t>{1, 1});
  return self.dim() == 1 ? unsqueeze(self, 0) : self;
}

Tensor atleast_3d_composite(const Tensor& self) {
  switch (self.dim()) {
    case 0: return reshape(self, std::vector<int64_t>{1, 1, 1});
    case 1: return unsqueeze(unsqueeze(self, 0), -1);
    case 2: return unsqueeze(self, -1);
    default: return self;
  }
}

namespace {

template <Tensor (*F)(const Tensor&)>
std::vector<Tensor> each(TensorList tensors) {
  std::vector<Tensor> result;
  result.reserve(tensors.size());
  for (const Tensor& t : tensors) result.push_back(F(t));
  return result;
}

void check_nonempty(TensorList tensors, const char* op) {
  TL_CHECK(!tensors.empty(), op, " expects a non-empty TensorList");
}

// hstack joins 1-D pieces end to end, others side by side.
int64_t hstack_dim(const std::vector<Tensor>& parts) { return parts[0].dim() == 1 ? 0 : 1; }

std::vector<Tensor> as_columns(TensorList tensors) {
  std::vector<Tensor> result;
  result.reserve(tensors.size());
  for (const Tensor& t : tensors)
    result.push_back(t.dim() <= 1 ? reshape(t, std::vector<int64_t>{t.numel(), 1}) : t);
  return result;
}

}  // namespace

std::vector<Tensor> atleast_1d_sequence_composite(TensorList tensors) { return each<atleast_1d>(tensors); }
std::vector<Tensor> atleast_2d_sequence_composite(TensorList tensors) { return each<atleast_2d>(tensors); }
std::vector<Tensor> atleast_3d_sequence_composite(TensorList tensors) { return each<atleast_3d>(tensors); }

Tensor hstack_composite(TensorList tensors) {
  check_nonempty(tensors, "hstack");
  std::vector<Tensor> parts = each<atleast_1d>(tensors);
  return cat(parts, hstack_dim(parts));
}

const Tensor& hstack_out_composite(TensorList tensors, const Tensor& out) {
  check_nonempty(tensors, "hstack");
  std::vector<Tensor> parts = each<atleast_1d>(tensors);
  return cat_out(out, parts, hstack_dim(parts));
}

Tensor vstack_composite(TensorList tensors) {
  check_nonempty(tensors, "vstack");
  return cat(each<atleast_2d>(tensors), 0);
}

const Tensor& vstack_out_composite(TensorList tensors, const Tensor& out) {
  check_nonempty(tensors, "vstack");
  return cat_out(out, each<atleast_2d>(tensors), 0);
}

Tensor dstack_composite(TensorList tensors) {
  check_nonempty(tensors, "dstack");
  return cat(each<atleast_3d>(tensors), 2);
}

const Tensor& dstack_out_composite(TensorList tensors, const Tensor& out) {
  check_nonempty(tensors, "dstack");
  return cat_out(out, each<atleast_3d>(tensors), 2);
}

Tensor column_stack_composite(TensorList tensors) {
  check_nonempty(tensors, "column_stack");
  return cat(as_columns(tensors), 1);
}

const Tensor& column_stack_out_composite(TensorList tensors, const Tensor& out) {
  check_nonempty(tensors, "column_stack");
  return cat_out(out, as_columns(tensors), 1);
}

}  // namespace tl::native
