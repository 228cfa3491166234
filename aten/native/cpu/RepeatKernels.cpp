// Tensor.repeat (tiling) and repeat_interleave(repeats) (the index list the other
// repeat_interleave overloads select with; composites in aten/native/composite/RepeatInterleave.cpp).
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/ScalarType.h"
#include "aten/core/Tensor.h"
#include "generated/ops/copy.h"
#include "generated/ops/repeat.h"
#include "generated/ops/repeat_interleave.h"

namespace tl::native {

// The output, viewed as [r0, s0, r1, s1, ...] (repeat count, input size per dimension), is the input
// broadcast along the r dims: one strided copy, whatever the number of dimensions.
Tensor repeat_kernel(const Tensor& self, IntArrayRef repeats) {
  const int64_t nd = self.dim();
  const int64_t nr = static_cast<int64_t>(repeats.size());
  TL_CHECK(nr >= nd, "repeat: Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                     "tensor");
  const int64_t lead = nr - nd;  // new leading dims, of input size 1
  DimVector target(nr);
  for (int64_t i = 0; i < nr; ++i) {
    const int64_t s = i < lead ? 1 : self.sizes()[i - lead];
    TL_CHECK(!__builtin_mul_overflow(s, repeats[i], &target[i]), "repeat: integer multiplication overflow for ",
             "repeats ", repeats, " of a tensor of shape ", self.sizes());
  }
  for (int64_t size : target) {
    TL_CHECK(size >= 0, "repeat: Trying to create tensor with negative dimension ", size, ": ", IntArrayRef(target));
  }
  compute_numel(target);  // overflow of the element count
  Tensor out = empty_tensor(target, self.dtype(), self.device());
  if (out.is_meta() || out.numel() == 0) return out;
  DimVector split_sizes, dst_strides, src_strides;
  for (int64_t i = 0; i < nr; ++i) {
    const int64_t s = i < lead ? 1 : self.sizes()[i - lead];
    const int64_t st = out.strides()[i];
    split_sizes.push_back(repeats[i]);
    split_sizes.push_back(s);
    dst_strides.push_back(st * s);
    dst_strides.push_back(st);
    src_strides.push_back(0);
    src_strides.push_back(i < lead ? 0 : self.strides()[i - lead]);
  }
  Tensor dst = make_view(out, split_sizes, dst_strides, 0);
  Tensor src = make_view(self, split_sizes, src_strides, self.storage_offset());
  copy_kernel(dst, src, false);
  return out;
}

namespace {

template <typename index_t>
Tensor repeated_indices(const Tensor& repeats, std::optional<int64_t> output_size) {
  const int64_t n = repeats.numel();
  const index_t* r = static_cast<const index_t*>(repeats.data_ptr());
  const int64_t stride = repeats.strides()[0];
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = static_cast<int64_t>(r[i * stride]);
    TL_CHECK(c >= 0, "repeat_interleave: repeats can not be negative");
    TL_CHECK(!__builtin_add_overflow(total, c, &total), "repeat_interleave: the sum of repeats overflows");
  }
  TL_CHECK(!output_size || *output_size == total, "repeat_interleave: allocated size does not match required size");
  Tensor out = empty_tensor({total}, repeats.dtype(), repeats.device());
  index_t* o = static_cast<index_t*>(out.data_ptr());
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = static_cast<int64_t>(r[i * stride]);
    for (int64_t k = 0; k < c; ++k) *o++ = static_cast<index_t>(i);
  }
  return out;
}

}  // namespace

Tensor repeat_interleave_kernel(const Tensor& repeats, std::optional<int64_t> output_size) {
  TL_CHECK(repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat");
  const ScalarType dt = repeats.dtype();
  TL_CHECK_AS(NotImplementedError, dt == ScalarType::Int32 || dt == ScalarType::Int64,
              "repeat_interleave: not implemented for dtype ", scalar_type_name(dt));
  if (repeats.is_meta()) {
    // The length is the sum of the values, which a meta tensor does not have: output_size gives it.
    TL_CHECK_AS(NotImplementedError, output_size.has_value(),
                "repeat_interleave: the output size depends on the data, which a meta tensor does not have; "
                "pass output_size");
    TL_CHECK(*output_size >= 0, "repeat_interleave: output_size must be non-negative, got ", *output_size);
    return empty_tensor({*output_size}, dt, repeats.device());
  }
  return dt == ScalarType::Int32 ? repeated_indices<int32_t>(repeats, output_size)
                                 : repeated_indices<int64_t>(repeats, output_size);
}

}  // namespace tl::native
