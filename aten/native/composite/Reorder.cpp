// flatten, unflatten and movedim: views of self with its dimensions merged, split or moved, built
// from view/reshape/permute so autograd comes from those (ViewBackward0, PermuteBackward0), as in
// PyTorch.
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/ShapeUtils.h"
#include "generated/ops/alias.h"
#include "generated/ops/flatten.h"
#include "generated/ops/movedim.h"
#include "generated/ops/permute.h"
#include "generated/ops/reshape.h"
#include "generated/ops/unflatten.h"
#include "generated/ops/view.h"

namespace tl::native {

Tensor flatten_composite(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  const int64_t nd = self.dim();
  const int64_t start = maybe_wrap_dim(start_dim, nd, "flatten");
  const int64_t end = maybe_wrap_dim(end_dim, nd, "flatten");
  TL_CHECK(start <= end, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (nd == 0) return reshape(self, std::vector<int64_t>{1});
  if (start == end) return self;  // nothing to merge: self itself, as PyTorch
  DimVector shape;
  int64_t merged = 1;
  for (int64_t i = 0; i < nd; ++i) {
    if (i < start || i > end) shape.push_back(self.sizes()[i]);
    else merged *= self.sizes()[i];  // a factor of numel: cannot overflow
    if (i == end) shape.push_back(merged);
  }
  return reshape(self, shape);
}

// Splitting one dimension never needs a copy, so unflatten is always a view.
Tensor unflatten_composite(const Tensor& self, int64_t dim, IntArrayRef sizes) {
  TL_CHECK(!sizes.empty(), "unflatten: sizes must be non-empty");
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "unflatten");  // IndexError beyond [-1, 0] for 0-d
  TL_CHECK(self.dim() > 0, "unflatten: Dimension specified as ", dim, " but tensor has no dimensions");
  const int64_t size = self.sizes()[d];
  DimVector inner;
  if (std::find(sizes.begin(), sizes.end(), -1) != sizes.end()) {
    inner = infer_size(sizes, size, "unflatten");
  } else {
    int64_t product = 1;
    bool overflow = false;
    for (int64_t s : sizes) overflow |= __builtin_mul_overflow(product, s, &product);
    TL_CHECK(!overflow && product == size, "unflatten: Provided sizes ", sizes,
             " don't multiply up to the size of dim ", dim, " (", size, ") in the input tensor");
    inner = DimVector(sizes);
  }
  DimVector shape;
  for (int64_t i = 0; i < self.dim(); ++i) {
    if (i != d) {
      shape.push_back(self.sizes()[i]);
      continue;
    }
    for (int64_t s : inner) shape.push_back(s);
  }
  return view(self, shape);
}

Tensor movedim_composite(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  const char* op = "movedim";
  TL_CHECK(source.size() == destination.size(), op, ": Invalid source or destination dims: source (", source,
           " dims) should contain the same number of dims as destination (", destination, " dims)");
  const int64_t nd = self.dim();
  std::vector<int64_t> order(static_cast<size_t>(std::max<int64_t>(nd, 1)), -1);
  std::vector<bool> moved(order.size(), false);
  for (size_t i = 0; i < source.size(); ++i) {
    const int64_t src = maybe_wrap_dim(source[i], nd, op);
    const int64_t dst = maybe_wrap_dim(destination[i], nd, op);
    TL_CHECK(!moved[src], op, ": repeated dim in `source` (", source, ")");
    TL_CHECK(order[dst] < 0, op, ": repeated dim in `destination` (", destination, ")");
    moved[src] = true;
    order[dst] = src;
  }
  if (nd == 0) return alias(self);
  // The dims not moved fill the free positions in their order.
  int64_t next = 0;
  for (int64_t& o : order) {
    if (o >= 0) continue;
    while (moved[next]) ++next;
    o = next++;
  }
  return permute(self, order);
}

}  // namespace tl::native
