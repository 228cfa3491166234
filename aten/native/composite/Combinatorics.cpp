// Tensors built by arranging the elements of others: block_diag, cartesian_prod, combinations and
// torch.vander (PyTorch's semantics, own composites; autograd comes from the ops they call).
#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/native/TypePromotion.h"
#include "generated/ops/_to_copy.h"
#include "generated/ops/block_diag.h"
#include "generated/ops/cartesian_prod.h"
#include "generated/ops/cat.h"
#include "generated/ops/combinations.h"
#include "generated/ops/cumprod.h"
#include "generated/ops/empty.h"
#include "generated/ops/expand.h"
#include "generated/ops/flatten.h"
#include "generated/ops/flip.h"
#include "generated/ops/index_select.h"
#include "generated/ops/meshgrid.h"
#include "generated/ops/mul.h"
#include "generated/ops/ones.h"
#include "generated/ops/reshape.h"
#include "generated/ops/stack.h"
#include "generated/ops/unsqueeze.h"
#include "generated/ops/vander.h"
#include "generated/ops/zeros.h"

namespace tl::native {

// Each input as a (rows, cols) block (0-d: 1x1, 1-D: one row) on the diagonal: every block row is
// [zeros | block | zeros], and the rows are concatenated. Blocks are cast to the promoted dtype.
Tensor block_diag_composite(TensorList tensors) {
  if (tensors.empty()) return empty(IntArrayRef{1, 0}, std::nullopt, std::nullopt);
  const ScalarType dtype = result_type(tensors);
  const Device device = tensors[0].device();
  std::vector<Tensor> blocks;
  int64_t total_cols = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    TL_CHECK(t.dim() <= 2, "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input ", i, " has ",
             t.dim(), " dimensions");
    TL_CHECK(t.device() == device, "torch.block_diag: input tensors must all be on the same device. Input 0 is on "
             "device ", device.str(), " and input ", i, " is on device ", t.device().str());
    Tensor b = t.dim() == 2 ? t : reshape(t, IntArrayRef{1, t.dim() == 1 ? t.size(0) : 1});
    blocks.push_back(b.scalar_type() == dtype ? b : _to_copy(b, dtype));
    total_cols += blocks.back().size(1);
  }
  std::vector<Tensor> rows;
  int64_t col = 0;
  for (const Tensor& b : blocks) {
    const int64_t r = b.size(0), c = b.size(1);
    std::vector<Tensor> parts;
    if (col > 0) parts.push_back(zeros(IntArrayRef{r, col}, dtype, device));
    parts.push_back(b);
    if (total_cols - col - c > 0) parts.push_back(zeros(IntArrayRef{r, total_cols - col - c}, dtype, device));
    rows.push_back(parts.size() == 1 ? b : cat(parts, 1));
    col += c;
  }
  return cat(rows, 0);
}

// Every tuple of one element from each 1-D input, the last input varying fastest: the flattened
// "ij" coordinate grids side by side. One input is returned as it is, as PyTorch.
Tensor cartesian_prod_composite(TensorList tensors) {
  for (const Tensor& t : tensors) TL_CHECK(t.dim() == 1, "Expect a 1D vector, but got shape ", t.sizes());
  if (tensors.size() == 1) return tensors[0];
  std::vector<Tensor> grids = meshgrid(tensors, "ij");
  for (Tensor& g : grids) g = flatten(g, 0, -1);
  return stack(grids, 1);
}

// The r-element combinations of a 1-D tensor (with repeats when with_replacement), in lexicographic
// order of the indices, as rows. PyTorch masks an n^r grid of indices; the same index lists are
// enumerated here directly (memory proportional to the result), then gathered with index_select.
namespace {
// C(n, k) (without overflow: a RuntimeError past int64), the number of rows of combinations.
int64_t binomial(int64_t n, int64_t k) {
  if (k < 0 || k > n) return 0;
  k = std::min(k, n - k);
  __int128 c = 1;
  for (int64_t i = 1; i <= k; ++i) {
    c = c * (n - k + i) / i;  // exact: c is C(n - k + i, i) after each step
    TL_CHECK(c <= std::numeric_limits<int64_t>::max(), "combinations: the result would have more than 2^63 rows");
  }
  return static_cast<int64_t>(c);
}
}  // namespace

Tensor combinations_composite(const Tensor& self, int64_t r, bool with_replacement) {
  TL_CHECK(self.dim() == 1, "Expect a 1D vector, but got shape ", self.sizes());
  TL_CHECK(r >= 0, "Expect a non-negative number, but got ", r);
  if (r == 0) return empty(IntArrayRef{0}, self.scalar_type(), self.device());
  const int64_t n = self.size(0);
  // Multisets of size r from n items are the r-subsets of n + r - 1.
  const int64_t count = with_replacement ? (n == 0 ? 0 : binomial(n + r - 1, r)) : binomial(n, r);
  if (count == 0) return empty(IntArrayRef{0, r}, self.scalar_type(), self.device());
  int64_t total = 0;
  TL_CHECK(!__builtin_mul_overflow(count, r, &total), "combinations: the result would have more than 2^63 elements");
  if (self.is_meta()) return empty(IntArrayRef{count, r}, self.scalar_type(), self.device());
  // The index buffer is allocated first, so a result too large fails here (out of memory), not after
  // enumerating it.
  Tensor index = empty(IntArrayRef{total}, ScalarType::Int64, self.device());
  int64_t* p = index.data_ptr<int64_t>();
  std::vector<int64_t> cur(static_cast<size_t>(r), 0);
  if (!with_replacement)
    for (int64_t k = 0; k < r; ++k) cur[static_cast<size_t>(k)] = k;
  // Odometer over non-decreasing (with replacement) or increasing index tuples, in lexicographic order.
  for (int64_t row = 0; row < count; ++row) {
    std::copy(cur.begin(), cur.end(), p + row * r);
    int64_t k = r - 1;
    // The last position that can still grow: its limit leaves room for the positions after it.
    while (k >= 0 && cur[static_cast<size_t>(k)] == (with_replacement ? n - 1 : n - r + k)) --k;
    if (k < 0) break;
    const int64_t v = cur[static_cast<size_t>(k)] + 1;
    for (int64_t j = k; j < r; ++j) cur[static_cast<size_t>(j)] = with_replacement ? v : v + (j - k);
  }
  return reshape(index_select(self, 0, index), IntArrayRef{count, r});
}

// Columns x^(N-1), ..., x^1, x^0 (or increasing powers) by repeated multiplication, the products
// PyTorch's cumprod forms, so that the gradient at x = 0 is finite (pow's would be 0 * inf) and the
// second derivative is right there too (cumprod's double backward is wrong at zeros: docs/catalog10.md).
// Integers and bool compute in int64 (PyTorch promotes with Long).
Tensor vander_composite(const Tensor& x, std::optional<int64_t> N, bool increasing) {
  TL_CHECK(x.dim() == 1, "x must be a one-dimensional tensor.");
  const int64_t n = N.value_or(x.size(0));
  TL_CHECK(n >= 0, "N must be non-negative.");
  // PyTorch forms the powers with cumprod, which has no complex32 loop.
  TL_CHECK_AS(NotImplementedError, x.scalar_type() != ScalarType::Complex32,
              "\"cumprod_out_cpu\" not implemented for 'ComplexHalf'");
  const ScalarType dtype = promote_types(x.scalar_type(), ScalarType::Int64);
  const Tensor xs = x.scalar_type() == dtype ? x : _to_copy(x, dtype);
  const int64_t m = x.size(0);
  // Empty results, Meta shapes and sizes too large to allocate are settled before the loop of n columns.
  if (n == 0 || x.is_meta()) return empty(IntArrayRef{m, n}, dtype, x.device());
  if (m == 0) return mul(expand(unsqueeze(xs, 1), IntArrayRef{0, n}), Scalar(0));  // empty, still on x's graph
  (void)empty(IntArrayRef{m, n}, dtype, x.device());  // out of memory here, not after n column products
  std::vector<Tensor> cols{ones(IntArrayRef{m}, dtype, x.device())};
  for (int64_t k = 1; k < n; ++k) cols.push_back(k == 1 ? xs : mul(cols.back(), xs));
  if (!increasing) std::reverse(cols.begin(), cols.end());
  return stack(cols, 1);
}

}  // namespace tl::native
