// matmul with NumPy/PyTorch semantics, built from public ops (mm, bmm, reshape, expand,
// unsqueeze, squeeze) so autograd comes from them:
//   1-D @ 1-D  -> 0-d dot product         (dot: mm of [1,k] and [k,1], reshaped to [])
//   2-D @ 1-D  -> matrix-vector [n]        (mm with the vector as a column, squeezed)
//   1-D @ 2-D  -> vector-matrix [m]        (mm with the vector as a row, squeezed)
//   2-D @ 2-D  -> mm
//   N-D @ 1-D/2-D (N >= 3) -> folded into one mm over [prod(batch) * n, k]
//   otherwise  -> batch dims broadcast, both sides expanded and reshaped to 3-D, bmm, reshaped back;
//                 a 1-D operand gets a dim of size 1 that is removed from the result.
#include <algorithm>
#include <optional>
#include <sstream>
#include <string>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/ShapeUtils.h"
#include "generated/ops/bmm.h"
#include "generated/ops/dot.h"
#include "generated/ops/expand.h"
#include "generated/ops/matmul.h"
#include "generated/ops/mm.h"
#include "generated/ops/reshape.h"
#include "generated/ops/squeeze.h"
#include "generated/ops/unsqueeze.h"

namespace tl::native {

namespace {

// "2x3" for matrices and batches (PyTorch's spelling), "[3]" for vectors.
std::string shape_str(IntArrayRef s) {
  std::ostringstream os;
  if (s.size() == 1) {
    os << s;
  } else {
    for (size_t i = 0; i < s.size(); ++i) os << (i ? "x" : "") << s[i];
  }
  return os.str();
}

// The broadcast of two batch shapes, or nullopt when they do not broadcast.
std::optional<DimVector> try_broadcast(IntArrayRef a, IntArrayRef b) {
  const size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  for (size_t k = 0; k < n; ++k) {
    int64_t sa = k < a.size() ? a[a.size() - 1 - k] : 1, sb = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (sa != sb && sa != 1 && sb != 1) return std::nullopt;
    out[n - 1 - k] = sa == 1 ? sb : sa;
  }
  return out;
}

int64_t prod(IntArrayRef s) {
  int64_t p = 1;
  for (int64_t v : s) p *= v;
  return p;
}

}  // namespace

Tensor matmul_composite(const Tensor& self, const Tensor& other) {
  const int64_t dim1 = self.dim(), dim2 = other.dim();
  TL_CHECK(dim1 != 0 || dim2 != 0, "matmul: both arguments to matmul need to be at least 1D, but they are ", dim1,
           "D and ", dim2, "D");
  TL_CHECK(dim1 != 0 && dim2 != 0, "matmul: Input operand ", dim1 == 0 ? 0 : 1,
           " does not have enough dimensions (both arguments to matmul need to be at least 1D, but they are ",
           dim1, "D and ", dim2, "D)");
  const int64_t k1 = self.sizes()[dim1 - 1];
  const int64_t k2 = dim2 == 1 ? other.sizes()[0] : other.sizes()[dim2 - 2];
  TL_CHECK(k1 == k2, "matmul: mat1 and mat2 shapes cannot be multiplied (", shape_str(self.sizes()), " and ",
           shape_str(other.sizes()), ")");
  const int64_t k = k1;

  // dot, as PyTorch's matmul: two conj vectors give its conj view of the plain product.
  if (dim1 == 1 && dim2 == 1) return tl::dot(self, other);
  if (dim1 == 2 && dim2 == 1) return tl::squeeze(tl::mm(self, tl::unsqueeze(other, 1)), int64_t(1));
  if (dim1 == 1 && dim2 == 2) return tl::squeeze(tl::mm(tl::unsqueeze(self, 0), other), int64_t(0));
  if (dim1 == 2 && dim2 == 2) return tl::mm(self, other);

  if (dim1 >= 3 && dim2 <= 2) {
    // Fold the batch dims of self into the rows of one mm.
    IntArrayRef lead = self.sizes().slice(0, static_cast<size_t>(dim1 - 1));  // batch + [n]
    const int64_t rows = prod(lead);
    Tensor a = tl::reshape(self, DimVector{rows, k});
    DimVector out_shape(lead);
    if (dim2 == 1) {
      Tensor r = tl::mm(a, tl::unsqueeze(other, 1));  // [rows, 1]
      return tl::reshape(r, out_shape);
    }
    out_shape.push_back(other.sizes()[1]);
    return tl::reshape(tl::mm(a, other), out_shape);
  }

  // Batched: broadcast the batch dims, then one bmm.
  const int64_t n = dim1 > 1 ? self.sizes()[dim1 - 2] : 1;
  const int64_t m = dim2 > 1 ? other.sizes()[dim2 - 1] : 1;
  IntArrayRef batch1 = dim1 > 2 ? self.sizes().slice(0, static_cast<size_t>(dim1 - 2)) : IntArrayRef();
  IntArrayRef batch2 = dim2 > 2 ? other.sizes().slice(0, static_cast<size_t>(dim2 - 2)) : IntArrayRef();
  std::optional<DimVector> bcast = try_broadcast(batch1, batch2);
  TL_CHECK(bcast.has_value(), "matmul: mat1 and mat2 shapes cannot be multiplied (", shape_str(self.sizes()),
           " and ", shape_str(other.sizes()), "): batch dimensions ", batch1, " and ", batch2, " do not broadcast");
  const DimVector& batch = *bcast;
  const int64_t B = prod(batch);

  Tensor a = dim1 == 1 ? tl::unsqueeze(self, 0) : self;     // [..., n, k]
  Tensor b = dim2 == 1 ? tl::unsqueeze(other, 1) : other;   // [..., k, m]
  DimVector a_shape(batch), b_shape(batch);
  a_shape.push_back(n);
  a_shape.push_back(k);
  b_shape.push_back(k);
  b_shape.push_back(m);
  Tensor a3 = tl::reshape(tl::expand(a, a_shape), DimVector{B, n, k});
  Tensor b3 = tl::reshape(tl::expand(b, b_shape), DimVector{B, k, m});
  Tensor r = tl::bmm(a3, b3);  // [B, n, m]

  DimVector out_shape(batch);
  if (dim1 > 1) out_shape.push_back(n);
  if (dim2 > 1) out_shape.push_back(m);
  return tl::reshape(r, out_shape);
}

}  // namespace tl::native
