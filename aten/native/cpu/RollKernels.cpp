// roll and rot90: new tensors with the elements of self moved around. roll copies the blocks of
// self into their wrapped places (2 blocks per rolled dimension, all dims in one pass); rot90 is a
// flip and a transposition of its result, as PyTorch builds it (so the odd rotations come out
// transposed, with PyTorch's strides).
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "generated/ops/_clone_contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/flip.h"
#include "generated/ops/roll.h"
#include "generated/ops/rot90.h"

namespace tl::native {

Tensor roll_kernel(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  const char* op = "roll";
  TL_CHECK(!shifts.empty(), op, ": `shifts` required");
  const bool flat = dims.empty() && shifts.size() == 1;  // roll of the flattened tensor
  TL_CHECK(flat || shifts.size() == dims.size(), op, ": shifts and dimensions must align. shifts: ", shifts.size(),
           ", dims:", dims.size());
  const int64_t nd = self.dim();
  Tensor out = empty_tensor(self.sizes(), self.dtype(), self.device());
  if (self.numel() == 0) return out;  // dims are not checked then, as in PyTorch
  // Per dimension: the total shift, reduced into [0, size). Repeated dims add up.
  DimVector shift(static_cast<size_t>(flat ? 1 : nd), 0);
  if (!flat) {
    TL_CHECK_INDEX(nd > 0, op, ": Dimension specified as ", dims[0], " but tensor has no dimensions");
    for (size_t i = 0; i < dims.size(); ++i) {
      const int64_t d = maybe_wrap_dim(dims[i], nd, op);
      const int64_t n = self.sizes()[d];
      if (n > 0) shift[d] = ((shift[d] + shifts[i] % n) % n + n) % n;
    }
  }
  if (out.is_meta()) return out;
  // The flat roll: both tensors seen as 1-D (self through a contiguous copy unless it is one).
  Tensor src = self, dst = out;
  if (flat) {
    if (!self.is_contiguous()) src = tl::_clone_contiguous(self);
    const int64_t n = self.numel();
    src = make_view(src, {n}, {1}, src.storage_offset());
    dst = make_view(out, {n}, {1}, out.storage_offset());
    shift[0] = ((shifts[0] % n) + n) % n;
  }
  std::vector<int64_t> rolled;  // the dims with a nonzero shift
  for (int64_t d = 0; d < src.dim(); ++d)
    if (shift[d] != 0) rolled.push_back(d);
  if (rolled.empty()) {
    copy_kernel(dst, src, false);
    return out;
  }
  // Along a rolled dim of size n and shift s, dst[s:n] = src[0:n-s] and dst[0:s] = src[n-s:n]: each
  // bit of `block` picks one of the two halves for one rolled dim.
  const size_t k = rolled.size();
  for (uint64_t block = 0; block < (uint64_t(1) << k); ++block) {
    DimVector sizes(src.sizes());
    int64_t src_off = src.storage_offset(), dst_off = dst.storage_offset();
    for (size_t b = 0; b < k; ++b) {
      const int64_t d = rolled[b], n = src.sizes()[d], s = shift[d];
      if (block >> b & 1) {  // the tail of src to the head of dst
        sizes[d] = s;
        src_off += (n - s) * src.strides()[d];
      } else {  // the head of src to the tail of dst
        sizes[d] = n - s;
        dst_off += s * dst.strides()[d];
      }
    }
    copy_kernel(make_view(dst, sizes, dst.strides(), dst_off), make_view(src, sizes, src.strides(), src_off), false);
  }
  return out;
}

Tensor rot90_kernel(const Tensor& self, int64_t k, IntArrayRef dims) {
  const int64_t nd = self.dim();
  TL_CHECK(dims.size() == 2, "rot90: expected total rotation dims == 2, but got dims = ", dims.size());
  TL_CHECK(nd >= 2, "rot90: expected total dims >= 2, but got total dims = ", nd);
  const int64_t d0 = maybe_wrap_dim(dims[0], nd, "rot90");
  const int64_t d1 = maybe_wrap_dim(dims[1], nd, "rot90");
  TL_CHECK(d0 != d1, "rot90: expected rotation dims to be different, but got dim0 = ", dims[0], " and dim1 = ",
           dims[1]);
  const int64_t turns = ((k % 4) + 4) % 4;
  if (turns == 0) return tl::_clone_contiguous(self);
  if (turns == 2) return tl::flip(self, std::vector<int64_t>{d0, d1});
  Tensor out = tl::flip(self, std::vector<int64_t>{turns == 1 ? d1 : d0});
  DimVector sizes(out.sizes()), strides(out.strides());
  std::swap(sizes[d0], sizes[d1]);
  std::swap(strides[d0], strides[d1]);
  out.impl()->set_sizes_and_strides(sizes, strides, out.storage_offset());
  return out;
}

}  // namespace tl::native
