// Diagonals: the diagonal view, its backward and copy, diag_embed and eye. Everything here
// is a strided view of a diagonal (one stride: the sum of two dims' strides) plus fill_/copy_ on
// it, so the kernels need no dtype dispatch of their own and serve CPU and Meta alike.
#include <algorithm>
#include <cstdlib>

#include "aten/core/Exception.h"
#include "aten/core/Tensor.h"
#include "aten/native/FactoryOptions.h"
#include "aten/native/OutputUtils.h"
#include "generated/ops/copy.h"
#include "generated/ops/diag_embed.h"
#include "generated/ops/diagonal.h"
#include "generated/ops/diagonal_backward.h"
#include "generated/ops/eye.h"
#include "generated/ops/fill.h"
#include "generated/ops/diagonal_copy.h"

namespace tl::native {

namespace {

// PyTorch's geometry of diagonal(offset, dim1, dim2): dims dim1 and dim2 are removed and the
// diagonal is appended last, with the stride of one step along both. An offset beyond the matrix
// gives an empty diagonal at the tensor's own offset.
Tensor diagonal_view(const Tensor& self, int64_t offset, int64_t dim1_arg, int64_t dim2_arg) {
  const int64_t nd = self.dim();
  const int64_t dim1 = maybe_wrap_dim(dim1_arg, nd, "diagonal");
  const int64_t dim2 = maybe_wrap_dim(dim2_arg, nd, "diagonal");
  TL_CHECK(dim1 != dim2, "diagonal dimensions cannot be identical ", dim1_arg, ", ", dim2_arg);
  const int64_t rows = self.sizes()[dim1], cols = self.sizes()[dim2];
  // Computed in __int128: offsets near INT64_MAX must give an empty diagonal, not wrap around.
  const __int128 len = offset >= 0 ? std::min<__int128>(rows, static_cast<__int128>(cols) - offset)
                                   : std::min<__int128>(static_cast<__int128>(rows) + offset, cols);
  const int64_t diag_size = len > 0 ? static_cast<int64_t>(len) : 0;
  int64_t storage_offset = self.storage_offset();
  if (diag_size > 0) {
    storage_offset += offset >= 0 ? offset * self.strides()[dim2] : -offset * self.strides()[dim1];
  }
  DimVector sizes, strides;
  for (int64_t d = 0; d < nd; ++d) {
    if (d == dim1 || d == dim2) continue;
    sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d]);
  }
  sizes.push_back(diag_size);
  // The sum wraps as PyTorch's does (strides near INT64_MAX, e.g. a [0, 2^63 - 1] tensor's: no signed
  // overflow); a diagonal with elements cannot have such strides unless the sum really overflows.
  int64_t diag_stride = 0;
  const bool wrapped = __builtin_add_overflow(self.strides()[dim1], self.strides()[dim2], &diag_stride);
  TL_CHECK(!wrapped || diag_size == 0, "diagonal: the stride of the diagonal (", self.strides()[dim1], " + ",
           self.strides()[dim2], ") overflows int64");
  strides.push_back(diag_stride);
  return make_view(self, sizes, strides, storage_offset);
}

// A fresh tensor of zeros (a plain fill, not an in-place op: no version bump to report).
Tensor zeros_tensor(IntArrayRef sizes, ScalarType dtype, Device device) {
  Tensor t = empty_tensor(sizes, dtype, device);
  fill_kernel(t, 0);
  return t;
}

// Sizes of diag_embed(self, offset, dim1, dim2): self's last dim becomes two dims of length
// |offset| + n at positions dim1 and dim2 of the result.
DimVector diag_embed_sizes(const Tensor& self, int64_t offset, int64_t& dim1, int64_t& dim2) {
  const int64_t nd = self.dim() + 1;
  const int64_t d1 = maybe_wrap_dim(dim1, nd, "diag_embed");
  const int64_t d2 = maybe_wrap_dim(dim2, nd, "diag_embed");
  TL_CHECK(d1 != d2, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  const int64_t n = self.size(-1);
  int64_t len = 0;
  TL_CHECK(offset != INT64_MIN && !__builtin_add_overflow(std::abs(offset), n, &len),
           "diag_embed: offset ", offset, " is too large");
  DimVector sizes(self.sizes());
  sizes.resize(sizes.size() - 1);
  sizes.insert(std::min(d1, d2), len);
  sizes.insert(std::max(d1, d2), len);
  dim1 = d1;
  dim2 = d2;
  return sizes;
}

}  // namespace

Tensor diagonal_kernel(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  return diagonal_view(self, offset, dim1, dim2);
}

Tensor diagonal_backward_kernel(const Tensor& grad_output, IntArrayRef input_sizes, int64_t offset, int64_t dim1,
                                int64_t dim2) {
  Tensor result = zeros_tensor(input_sizes, grad_output.dtype(), grad_output.device());
  Tensor diag = diagonal_view(result, offset, dim1, dim2);
  copy_kernel(diag, grad_output, false);  // raises PyTorch's shape error for a grad of the wrong shape
  return result;
}

Tensor diag_embed_kernel(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  DimVector sizes = diag_embed_sizes(self, offset, dim1, dim2);
  Tensor result = zeros_tensor(sizes, self.dtype(), self.device());
  copy_kernel(diagonal_view(result, offset, dim1, dim2), self, false);
  return result;
}

void diagonal_copy_kernel(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2, Tensor& out) {
  Tensor diag = diagonal_view(self, offset, dim1, dim2);
  if (out.defined() && !self.is_meta() && out.storage() == self.storage()) {
    // out= overlapping self: take the values before out is resized and written.
    Tensor copy = empty_tensor(diag.sizes(), diag.dtype(), diag.device());
    copy_kernel(copy, diag, false);
    diag = copy;
  }
  prepare_output(out, {"diagonal_copy", diag.sizes(), self.dtype(), self.device(), OutDtype::Exact});
  if (self.is_meta()) return;
  copy_kernel(out, diag, false);
}

// ---------------------------------------------------------------------------------------- eye

void eye_m_kernel(int64_t n, int64_t m, std::optional<ScalarType> dtype, std::optional<Layout> /*strided only*/,
                  std::optional<Device> device, std::optional<bool> pin_memory, Tensor& out) {
  check_pin_memory(pin_memory);
  TL_CHECK(n >= 0, "eye: n must be greater or equal to 0, got ", n);
  TL_CHECK(m >= 0, "eye: m must be greater or equal to 0, got ", m);
  if (out.defined()) {
    TL_CHECK(!dtype || *dtype == out.dtype(), "eye: dtype ", scalar_type_name(*dtype),
             " does not match dtype of out parameter (", scalar_type_name(out.dtype()), ")");
  }
  const ScalarType st = out.defined() ? out.dtype() : dtype.value_or(default_dtype());
  // PyTorch has no eye for uint16/32/64: refuse them before allocating anything.
  if (!is_complex_type(st)) TL_DISPATCH_ALL(st, "eye", [] {});  // complex: fill_ computes it too
  // PyTorch's CPU eye has no complex32 instance.
  TL_CHECK_AS(NotImplementedError, st != ScalarType::Complex32, "\"eye\" not implemented for 'ComplexHalf'");
  const Device dev = device.value_or(out.defined() ? out.device() : Device(DeviceType::CPU));
  prepare_output(out, {"eye", DimVector{n, m}, st, dev, OutDtype::Any});
  if (out.is_meta()) return;
  fill_kernel(out, 0);
  // The diagonal through out's own strides: an out= tensor keeps its layout, as in PyTorch.
  const Tensor diag = make_view(out, DimVector{std::min(n, m)}, DimVector{out.strides()[0] + out.strides()[1]},
                                out.storage_offset());
  fill_kernel(diag, 1);
}

void eye_kernel(int64_t n, std::optional<ScalarType> dtype, std::optional<Layout> layout, std::optional<Device> device,
                std::optional<bool> pin_memory, Tensor& out) {
  TL_CHECK(n >= 0, "eye: n must be greater or equal to 0, got ", n);
  eye_m_kernel(n, n, dtype, layout, device, pin_memory, out);
}

}  // namespace tl::native
