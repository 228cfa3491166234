// hsplit, vsplit, dsplit: NumPy's splits along dimension 1 (0 for 1-D), 0 and 2, as tensor_split
// views; the sections form requires equal pieces.
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "generated/ops/dsplit.h"
#include "generated/ops/hsplit.h"
#include "generated/ops/tensor_split.h"
#include "generated/ops/vsplit.h"

namespace tl::native {
namespace {

void check_dims(const Tensor& self, const char* op, int64_t min_dims) {
  TL_CHECK(self.dim() >= min_dims, "torch.", op, " requires a tensor with at least ", min_dims,
           " dimension, but got a tensor with ", self.dim(), " dimensions!");
}

std::vector<Tensor> sections_along(const Tensor& self, int64_t sections, const char* op, int64_t dim) {
  const int64_t size = self.sizes()[dim];
  TL_CHECK(sections != 0 && size % sections == 0, "torch.", op, " attempted to split along dimension ", dim,
           ", but the size of the dimension ", size, " is not divisible by the split_size ", sections, "!");
  return tensor_split(self, sections, dim);
}

}  // namespace

std::vector<Tensor> hsplit_int_composite(const Tensor& self, int64_t sections) {
  check_dims(self, "hsplit", 1);
  return sections_along(self, sections, "hsplit", self.dim() == 1 ? 0 : 1);
}

std::vector<Tensor> hsplit_array_composite(const Tensor& self, IntArrayRef indices) {
  check_dims(self, "hsplit", 1);
  return tensor_split(self, indices, self.dim() == 1 ? 0 : 1);
}

std::vector<Tensor> vsplit_int_composite(const Tensor& self, int64_t sections) {
  check_dims(self, "vsplit", 2);
  return sections_along(self, sections, "vsplit", 0);
}

std::vector<Tensor> vsplit_array_composite(const Tensor& self, IntArrayRef indices) {
  check_dims(self, "vsplit", 2);
  return tensor_split(self, indices, 0);
}

std::vector<Tensor> dsplit_int_composite(const Tensor& self, int64_t sections) {
  check_dims(self, "dsplit", 3);
  return sections_along(self, sections, "dsplit", 2);
}

std::vector<Tensor> dsplit_array_composite(const Tensor& self, IntArrayRef indices) {
  check_dims(self, "dsplit", 3);
  return tensor_split(self, indices, 2);
}

}  // namespace tl::native
