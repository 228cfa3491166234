// one_hot: zeros with a 1 scattered at each class index along a new last dim. A kernel entry (PyTorch
// has a composite) so that it is marked non-differentiable; the indices are checked first (int64,
// non-negative, below num_classes), so the scatter never writes outside the result.
#include <algorithm>
#include <vector>

#include "aten/core/Exception.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/one_hot.h"
#include "generated/ops/scatter.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/zeros.h"

namespace tl::native {

Tensor one_hot_kernel(const Tensor& self, int64_t num_classes) {
  TL_CHECK(self.dtype() == ScalarType::Int64,
           "one_hot: one_hot is only applicable to index tensor of type LongTensor.");
  DimVector shape(self.sizes());
  if (self.is_meta()) {
    TL_CHECK(num_classes != -1, "one_hot: cannot infer num_classes of a meta tensor; pass num_classes");
    shape.push_back(num_classes);
    return empty_tensor(shape, ScalarType::Int64, self.device());
  }
  if (self.numel() == 0) {
    TL_CHECK(num_classes > 0, "one_hot: Can not infer total number of classes from empty tensor.");
    shape.push_back(num_classes);
    return tl::zeros(shape, ScalarType::Int64, self.device());
  }
  const Tensor idx = tl::contiguous(self);
  const int64_t* p = idx.data_ptr<int64_t>();
  const auto [lo, hi] = std::minmax_element(p, p + idx.numel());
  TL_CHECK(*lo >= 0, "one_hot: Class values must be non-negative.");
  if (num_classes == -1) {
    TL_CHECK(*hi < INT64_MAX, "one_hot: the number of classes inferred from the largest class value (", *hi,
             ") + 1 does not fit in int64");
    num_classes = *hi + 1;
  } else {
    TL_CHECK(*hi < num_classes, "one_hot: Class values must be smaller than num_classes.");
  }
  shape.push_back(num_classes);
  Tensor out = tl::zeros(shape, ScalarType::Int64, self.device());
  tl::scatter_(out, -1, tl::unsqueeze(self, -1), Scalar(int64_t(1)));
  return out;
}

}  // namespace tl::native
