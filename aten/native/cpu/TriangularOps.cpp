// Triangles: tril/triu (functional, in-place, out=) over the last two dims of a batch of
// matrices, and tril_indices/triu_indices.
#include <algorithm>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/FactoryOptions.h"
#include "aten/native/OutputUtils.h"
#include "aten/native/cpu/Vectorize.h"
#include "generated/ops/tril.h"
#include "generated/ops/tril_indices.h"
#include "generated/ops/triu.h"
#include "generated/ops/triu_indices.h"

namespace tl::native {

namespace {

// Columns [lo, hi) of row r of the lower (upper) triangle of a row x col matrix: tril(k) keeps
// columns up to r + k, triu(k) from r + k on (in 128 bits: k near INT64_MAX must not wrap).
inline void triangle_cols(bool lower, int64_t r, int64_t col, int64_t offset, int64_t& lo, int64_t& hi) {
  const __int128 a = lower ? 0 : static_cast<__int128>(r) + offset;
  const __int128 b = lower ? static_cast<__int128>(r) + offset + 1 : col;
  lo = static_cast<int64_t>(std::clamp<__int128>(a, 0, col));
  hi = static_cast<int64_t>(std::clamp<__int128>(b, lo, col));
}

// One row of a matrix: element j of the source is kept when keep_lo <= j < keep_hi, the others
// become zero. `src == dst` with equal strides (in place) writes only the zeros.
template <typename T>
void triangle_row(T* dst, int64_t dst_stride, const T* src, int64_t src_stride, int64_t cols, int64_t keep_lo,
                  int64_t keep_hi, bool in_place) {
  for (int64_t j = 0; j < keep_lo; ++j) dst[j * dst_stride] = T{};
  if (!in_place) {
    for (int64_t j = keep_lo; j < keep_hi; ++j) dst[j * dst_stride] = src[j * src_stride];
  }
  for (int64_t j = keep_hi; j < cols; ++j) dst[j * dst_stride] = T{};
}

// Walks every row of every matrix of `src` (any strides, rows in parallel) and writes its
// triangle into `dst` (same sizes).
void apply_triangle(const Tensor& dst, const Tensor& src, bool lower, int64_t diagonal, const char* op) {
  const int64_t nd = src.dim();
  const int64_t rows = src.sizes()[nd - 2], cols = src.sizes()[nd - 1];
  const int64_t batch = rows == 0 ? 0 : src.numel() / (rows * std::max<int64_t>(cols, 1));
  if (rows == 0 || cols == 0 || batch == 0) return;
  const bool in_place = dst.is_same(src) ||
                        (dst.data_ptr() == src.data_ptr() && dst.strides() == src.strides());
  // Row offsets (in elements) of a flat row index, for both tensors.
  auto row_offset = [nd, rows](const Tensor& t, int64_t r) {
    int64_t i = r % rows, rest = r / rows, off = i * t.strides()[nd - 2];
    for (int64_t d = nd - 3; d >= 0; --d) {
      off += (rest % t.sizes()[d]) * t.strides()[d];
      rest /= t.sizes()[d];
    }
    return off;
  };
  TL_DISPATCH_EVERY_DTYPE(src.dtype(), op, [&] {  // (the unsigned ones are refused before)
    scalar_t* out = dst.data_ptr<scalar_t>();
    const scalar_t* in = src.data_ptr<scalar_t>();
    const int64_t ds = dst.strides()[nd - 1], ss = src.strides()[nd - 1];
    parallel_for(0, batch * rows, std::max<int64_t>(1, kGrainSize / cols), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        int64_t keep_lo, keep_hi;
        triangle_cols(lower, r % rows, cols, diagonal, keep_lo, keep_hi);
        triangle_row(out + row_offset(dst, r), ds, in + row_offset(src, r), ss, cols, keep_lo, keep_hi, in_place);
      }
    });
  });
}

void triangle_kernel(const Tensor& self, int64_t diagonal, Tensor& out, bool lower, const char* op) {
  TL_CHECK(self.dim() >= 2, op, ": input tensor must have at least 2 dimensions");
  if (!is_complex_type(self.dtype())) TL_DISPATCH_ALL(self.dtype(), op, [] {});  // no uint16/32/64, as in PyTorch
  // In place: tril_, or an out= that is self (the out= wrapper hands the kernel another handle on
  // self's memory and geometry), written directly, expanded dims included, as PyTorch does.
  const bool in_place = out.defined() && (out.is_same(self) || (out.storage() == self.storage() &&
                                                                out.storage_offset() == self.storage_offset() &&
                                                                out.sizes() == self.sizes() &&
                                                                out.strides() == self.strides()));
  prepare_output(out, {op, self.sizes(), self.dtype(), self.device(), OutDtype::Exact, &self});
  if (self.is_meta()) return;
  if (in_place) {
    apply_triangle(out, self, lower, diagonal, op);
    return;
  }
  // An out= tensor sharing memory with self (out=self.t()) is written through a temporary.
  Tensor buf = output_buffer(out, self.dtype(), self);
  apply_triangle(buf, self, lower, diagonal, op);
  commit_output(out, buf);
}

// ------------------------------------------------------------------------- tril/triu_indices


// The sum of clamp(r + a, 0, col) over r in [0, row).
__int128 clamped_sum(int64_t row, __int128 a, int64_t col) {
  const __int128 lo = std::max<__int128>(0, 1 - a);          // first r with r + a > 0
  const __int128 hi = std::min<__int128>(row, col - a);      // first r with r + a >= col
  __int128 sum = 0;
  if (lo < hi) sum += (lo + a + hi - 1 + a) * (hi - lo) / 2;  // the rising part
  const __int128 full = std::max<__int128>(0, col - a);       // rows from here on are full
  if (full < row) sum += (row - full) * col;
  return sum;
}

// One row's (row, column) pairs: rows[j] = r, cols[j] = lo + j for j < hi - lo.
template <typename I>
TL_TARGET_CLONES void fill_index_row(I* rows, I* cols, int64_t r, int64_t lo, int64_t hi) {
#pragma omp simd
  for (int64_t j = 0; j < hi - lo; ++j) {
    rows[j] = static_cast<I>(r);
    cols[j] = static_cast<I>(lo + j);
  }
}

Tensor triangle_indices(int64_t row, int64_t col, int64_t offset, std::optional<ScalarType> dtype,
                        std::optional<Device> device, std::optional<bool> pin_memory, bool lower, const char* op) {
  check_pin_memory(pin_memory);
  TL_CHECK(row >= 0, op, ": row must be non-negative, got ", row);
  TL_CHECK(col >= 0, op, ": col must be non-negative, got ", col);
  const ScalarType st = dtype.value_or(ScalarType::Int64);
  TL_CHECK_AS(NotImplementedError, st == ScalarType::Int64 || st == ScalarType::Int32, op,
              ": not implemented for dtype ", scalar_type_name(st));
  // The count in closed form (row may be huge while the result is empty): a lower row r keeps
  // clamp(r + offset + 1, 0, col) columns, an upper row col - clamp(r + offset, 0, col).
  const __int128 count = lower ? clamped_sum(row, static_cast<__int128>(offset) + 1, col)
                               : static_cast<__int128>(row) * col - clamped_sum(row, offset, col);
  TL_CHECK(count <= INT64_MAX, op, ": the result would have too many elements");
  const int64_t n = static_cast<int64_t>(count);
  Tensor result = empty_tensor(DimVector{2, n}, st, device.value_or(Device(DeviceType::CPU)));
  if (result.is_meta() || n == 0) return result;
  // One thread, as PyTorch fills it (the fill runs at memory speed; under load a second
  // thread costs more than it brings), each row's run as one vectorized loop.
  auto fill = [&](auto* data) {
    // The first row of a lower triangle that keeps anything is -offset.
    const int64_t first = lower ? static_cast<int64_t>(std::clamp<__int128>(-static_cast<__int128>(offset), 0, row)) : 0;
    const int64_t last = std::min<int64_t>(row, first + n);  // rows past `last` keep nothing
    int64_t k = 0;
    for (int64_t r = first, lo, hi; r < last && k < n; ++r) {
      triangle_cols(lower, r, col, offset, lo, hi);
      fill_index_row(data + k, data + n + k, r, lo, hi);
      k += hi - lo;
    }
  };
  if (st == ScalarType::Int64) fill(result.data_ptr<int64_t>());
  else fill(result.data_ptr<int32_t>());
  return result;
}

}  // namespace

void tril_kernel(const Tensor& self, int64_t diagonal, Tensor& out) { triangle_kernel(self, diagonal, out, true, "tril"); }

void triu_kernel(const Tensor& self, int64_t diagonal, Tensor& out) { triangle_kernel(self, diagonal, out, false, "triu"); }

Tensor tril_indices_kernel(int64_t row, int64_t col, int64_t offset, std::optional<ScalarType> dtype,
                           std::optional<Layout> /*strided only*/, std::optional<Device> device,
                           std::optional<bool> pin_memory) {
  return triangle_indices(row, col, offset, dtype, device, pin_memory, true, "tril_indices");
}

Tensor triu_indices_kernel(int64_t row, int64_t col, int64_t offset, std::optional<ScalarType> dtype,
                           std::optional<Layout> /*strided only*/, std::optional<Device> device,
                           std::optional<bool> pin_memory) {
  return triangle_indices(row, col, offset, dtype, device, pin_memory, false, "triu_indices");
}

}  // namespace tl::native
