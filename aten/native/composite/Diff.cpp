// diff: n-th forward differences along a dim, as PyTorch's composite: `prepend` and `append` are
// joined first (cat, with its type promotion), then each order subtracts neighbouring narrowed
// views (logical_xor for bool), so autograd comes from narrow and sub. diff.out is PyTorch's own
// out= path: the last order goes through sub's (logical_xor's) out=, whose dtype rule it takes.
#include <algorithm>
#include <optional>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/native/Resize.h"
#include "generated/ops/copy.h"
#include "generated/ops/cat.h"
#include "generated/ops/clone.h"
#include "generated/ops/diff.h"
#include "generated/ops/logical_xor.h"
#include "generated/ops/narrow.h"
#include "generated/ops/sub.h"

namespace tl::native {
namespace {

void check_joinable(const Tensor& self, const std::optional<Tensor>& other, int64_t dim) {
  if (!other) return;
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "diff");
  TL_CHECK(other->dim() == self.dim(), "diff expects prepend or append to be the same dimension as input");
  for (int64_t i = 0; i < other->dim(); ++i) {
    if (i == d) continue;
    TL_CHECK(other->sizes()[i] == self.sizes()[i], "diff expects the shape of tensor to prepend or append to match "
             "that of input except along the differencing dimension; input.size(", i, ") = ", self.sizes()[i],
             ", but got tensor.size(", i, ") = ", other->sizes()[i]);
  }
}

// The input joined with prepend and append along dim (self itself without them).
Tensor joined(const Tensor& self, int64_t dim, const std::optional<Tensor>& prepend,
              const std::optional<Tensor>& append) {
  if (!prepend && !append) return self;
  std::vector<Tensor> parts;
  if (prepend) parts.push_back(*prepend);
  parts.push_back(self);
  if (append) parts.push_back(*append);
  return tl::cat(parts, dim);
}

void check_diff_args(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
                     const std::optional<Tensor>& append) {
  TL_CHECK(self.dim() >= 1, "diff expects input to be at least one-dimensional");
  TL_CHECK(n >= 0, "diff: order must be non-negative but got ", n);
  check_joinable(self, prepend, dim);
  check_joinable(self, append, dim);
}

}  // namespace

Tensor diff_composite(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
                      const std::optional<Tensor>& append) {
  check_diff_args(self, n, dim, prepend, append);
  if (n == 0) return tl::clone(self);  // PyTorch ignores prepend and append here
  Tensor x = joined(self, dim, prepend, append);
  const int64_t d = maybe_wrap_dim(dim, x.dim(), "diff");
  const bool is_bool = x.dtype() == ScalarType::Bool;
  const int64_t steps = std::min(n, x.sizes()[d]);  // more steps than elements leave an empty result
  int64_t len = x.sizes()[d] - 1;
  for (int64_t i = 0; i < steps; ++i, --len) {
    const Tensor hi = tl::narrow(x, d, 1, len), lo = tl::narrow(x, d, 0, len);
    x = is_bool ? tl::logical_xor(hi, lo) : tl::sub(hi, lo);
  }
  return x;
}

const Tensor& diff_out_composite(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
                                 const std::optional<Tensor>& append, const Tensor& out) {
  check_diff_args(self, n, dim, prepend, append);
  if (n == 0) {
    TL_CHECK(out.dtype() == self.dtype(), "diff: expected scalar_type ", legacy_type_name(self.dtype()),
             " but found ", legacy_type_name(out.dtype()));
    resize_output(out, self.sizes(), "diff");
    return tl::copy_(out, self);
  }
  const Tensor x = joined(self, dim, prepend, append);
  const int64_t d = maybe_wrap_dim(dim, x.dim(), "diff");
  n = std::min(n, x.sizes()[d]);
  const int64_t len = x.sizes()[d] - n;
  const Tensor prev = n > 1 ? diff_composite(x, n - 1, d, std::nullopt, std::nullopt) : x;
  // An empty dim leaves n = 0 here: narrow(prev, d, 1, 0) raises IndexError, as in PyTorch.
  const Tensor hi = tl::narrow(prev, d, 1, len), lo = tl::narrow(prev, d, 0, len);
  if (x.dtype() != ScalarType::Bool)  // sub's own check, named for diff
    TL_CHECK(can_cast(x.dtype(), out.dtype()), "diff: result type ", legacy_type_name(x.dtype()),
             " can't be cast to the desired output type ", legacy_type_name(out.dtype()));
  return x.dtype() == ScalarType::Bool ? tl::logical_xor_out(out, hi, lo) : tl::sub_out(out, hi, lo);
}

}  // namespace tl::native
