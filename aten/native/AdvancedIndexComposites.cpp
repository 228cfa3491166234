#include "aten/native/AdvancedIndexComposites.h"

#include "aten/native/ShapeUtils.h"
#include "aten/native/TypePromotion.h"
#include "generated/ops/expand.h"
#include "generated/ops/gather.h"
#include "generated/ops/nonzero.h"
#include "generated/ops/reshape.h"
#include "generated/ops/select.h"
#include "generated/ops/view.h"
#include "generated/ops/where.h"

namespace tl::native {

std::vector<Tensor> nonzero_as_tuple(const Tensor& condition) {
  const Tensor nz = nonzero(condition.dim() == 0 ? reshape(condition, {1}) : condition);
  std::vector<Tensor> out;
  for (int64_t d = 0; d < nz.sizes()[1]; ++d) out.push_back(select(nz, 1, d));
  return out;
}

Tensor where_scalars(const Tensor& condition, const Scalar& a, const Scalar& b) {
  const ScalarType t = result_type(a, b);
  return where(condition, scalar_to_tensor(a, t, condition.device()), scalar_to_tensor(b, t, condition.device()));
}

Tensor take_along_dim_impl(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  const char* op = "torch.take_along_dim()";
  TL_CHECK(indices.dtype() == ScalarType::Int64, op, ": dtype of indices should be Long but got ",
           legacy_type_name(indices.dtype()));
  if (!dim) return gather(view(self, {-1}), 0, view(indices, {-1}));  // view: as PyTorch, refuses a strided self
  TL_CHECK(self.dim() == indices.dim(), op, ": input and indices should have the same number of dimensions, but got ",
           self.dim(), " dimensions for input, and ", indices.dim(), " dimensions for indices");
  const int64_t d = maybe_wrap_dim(*dim, self.dim(), op);
  if (self.dim() == 0) return gather(self, d, indices);
  DimVector self_sizes(self.sizes()), index_sizes(indices.sizes());
  self_sizes[d] = indices.sizes()[d];
  index_sizes[d] = self.sizes()[d];
  return gather(expand(self, broadcast_shapes(index_sizes, self.sizes())), d,
                expand(indices, broadcast_shapes(self_sizes, indices.sizes())));
}

}  // namespace tl::native
