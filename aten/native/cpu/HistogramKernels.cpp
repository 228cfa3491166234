// Counting kernels: bincount (occurrences of small non-negative integers, optionally weighted)
// and histc (a histogram of equal-width bins).
//
// histc places an element with PyTorch's arithmetic, in the input's dtype:
//   bin = (int64)((x - lo) * bins / (hi - lo)), and x == hi goes to the last bin,
// where lo and hi are the range's ends converted to the input's dtype; for float16 and bfloat16
// each operation is rounded to that type, as c10::Half's operators do, so elements close to a bin
// edge land in PyTorch's bin.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/native/OutputUtils.h"
#include "aten/native/cpu/Loops.h"
#include "generated/ops/_to_copy.h"
#include "generated/ops/aminmax.h"
#include "generated/ops/bincount.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/histc.h"
#include "generated/ops/zeros.h"

namespace tl::native {

namespace {

Tensor contiguous_of(const Tensor& t) { return t.is_contiguous() ? t : tl::contiguous(t); }

// ------------------------------------------------------------------------------------ bincount

template <typename I, typename W>
Tensor weighted_bincount(const I* x, int64_t n, int64_t bins, const Tensor& weights, ScalarType wt) {
  const Tensor w = contiguous_of(weights.dtype() == wt ? weights : tl::_to_copy(weights, wt));
  Tensor out = tl::zeros({bins}, wt, weights.device());
  W* o = out.data_ptr<W>();
  const W* pw = w.data_ptr<W>();
  for (int64_t i = 0; i < n; ++i) o[static_cast<int64_t>(x[i])] += pw[i];  // in order, as PyTorch
  return out;
}

}  // namespace

Tensor bincount_kernel(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  TL_CHECK_AS(NotImplementedError, is_integral_type(self.dtype(), false) && !is_barebones_unsigned_type(self.dtype()),
              "bincount: not implemented for dtype ", scalar_type_name(self.dtype()));
  TL_CHECK(minlength >= 0, "bincount: minlength should be >= 0");
  if (self.dim() == 1 && self.numel() == 0) return tl::zeros({minlength}, ScalarType::Int64, self.device());
  return TL_DISPATCH_SWITCH(self.dtype(), "bincount", TL_CASES_INTEGRAL([&] {
    const Tensor in = contiguous_of(self);
    const scalar_t* x = in.data_ptr<scalar_t>();
    const int64_t n = self.numel();
    scalar_t lo = x[0], hi = x[0];
    for (int64_t i = 1; i < n; ++i) {
      lo = std::min(lo, x[i]);
      hi = std::max(hi, x[i]);
    }
    TL_CHECK(self.dim() == 1 && lo >= 0, "bincount only supports 1-d non-negative integral inputs.");
    if (weights)
      TL_CHECK(weights->dim() == 1 && weights->numel() == n,
               "bincount: weights should be 1-d and have the same length as input");
    const int64_t bins = std::max<int64_t>(static_cast<int64_t>(hi) + 1, minlength);
    if (weights) {
      if (weights->dtype() == ScalarType::Float32)
        return weighted_bincount<scalar_t, float>(x, n, bins, *weights, ScalarType::Float32);
      return weighted_bincount<scalar_t, double>(x, n, bins, *weights, ScalarType::Float64);
    }
    Tensor out = tl::zeros({bins}, ScalarType::Int64, self.device());
    int64_t* o = out.data_ptr<int64_t>();
    for (int64_t i = 0; i < n; ++i) ++o[static_cast<int64_t>(x[i])];
    return out;
  }));
}

// ------------------------------------------------------------------------------------ histc

namespace {

// a - b, a * b, a / b as T computes them: 16-bit floats round after every operation.
template <typename T>
struct TypedArith {
  using A = opmath_t<T>;
  static A r(A v) { return static_cast<A>(static_cast<T>(v)); }
  static A sub(A a, A b) { return r(a - b); }
  static A mul(A a, A b) { return r(a * b); }
  static A div(A a, A b) { return r(a / b); }
};

// PyTorch's range rules: min == max takes the data's extremes; an empty range is widened by 1
// on each side; the ends must be finite and ordered.
std::pair<double, double> histc_range(const Tensor& self, const Scalar& min, const Scalar& max) {
  double lo = min.to_double(), hi = max.to_double();
  if (lo == hi && self.numel() > 0 && !self.is_meta()) {
    auto [mn, mx] = tl::aminmax(self);
    lo = tensor_item(mn).to_double();
    hi = tensor_item(mx).to_double();
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  TL_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histc: range of [", lo, ", ", hi, "] is not finite");
  TL_CHECK(lo < hi, "torch.histc: max must be larger than min");
  return {lo, hi};
}

// Counts in T, as PyTorch: each of its threads adds 1s into its own histogram of the input's dtype
// (so a bfloat16 bin stops growing at 256, a float16 one at 2048), and the thread histograms are
// summed at the end. The split is PyTorch's (one piece per thread, pieces of at least 200
// elements), so with the same thread count the saturated counts are PyTorch's too.
template <typename T>
void histc_counts(const Tensor& in, int64_t bins, double lo_d, double hi_d, T* out) {
  using Ar = TypedArith<T>;
  using A = typename Ar::A;
  const A lo = Ar::r(static_cast<A>(lo_d)), hi = Ar::r(static_cast<A>(hi_d));
  const A width = Ar::sub(hi, lo), nb = Ar::r(static_cast<A>(bins));
  const T* x = in.data_ptr<T>();
  const int64_t n = in.numel();
  constexpr int64_t kPiece = 200;
  const int64_t pieces = n < kPiece ? 1 : std::min<int64_t>(get_num_threads(), (n + kPiece - 1) / kPiece);
  const int64_t piece = std::max<int64_t>(1, (n + pieces - 1) / pieces);
  std::vector<std::vector<A>> local(static_cast<size_t>(pieces), std::vector<A>(static_cast<size_t>(bins), A(0)));
  parallel_for(0, pieces, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) {
      A* h = local[static_cast<size_t>(c)].data();
      for (int64_t i = c * piece, e = std::min(n, i + piece); i < e; ++i) {
        const A v = to_opmath(x[i]);
        if (!(v >= lo && v <= hi)) continue;  // outside the range, or NaN
        const A p = Ar::div(Ar::mul(Ar::sub(v, lo), nb), width);
        // A position that is not a finite int64 (an overflowing x - lo, or hi - lo rounding to 0 in
        // a 16-bit type) lands in bin 0 in PyTorch (its int64 conversion gives INT64_MIN, an offset
        // that wraps around to the first bin).
        int64_t pos = p >= A(0) && p < A(9.2e18) ? static_cast<int64_t>(p) : 0;
        if (pos >= bins) pos = bins - 1;  // the last bin includes hi
        h[pos] = Ar::r(h[pos] + A(1));
      }
    }
  });
  for (int64_t b = 0; b < bins; ++b) {
    A total = 0;
    for (const auto& h : local) total += h[static_cast<size_t>(b)];
    out[b] = static_cast<T>(total);
  }
}

}  // namespace

void histc_kernel(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max, Tensor& out) {
  if (out.defined())
    TL_CHECK(out.dtype() == self.dtype(), "torch.histc: input tensor and hist tensor should have the same "
             "dtype, but got input ", legacy_type_name(self.dtype()), " and hist ", legacy_type_name(out.dtype()));
  TL_CHECK(bins > 0, "torch.histc: bins must be > 0, but got ", bins);
  const int64_t shape[1] = {bins};
  prepare_output(out, {"histc", IntArrayRef(shape, 1), self.dtype(), self.device(), OutDtype::Exact});
  const auto [lo, hi] = histc_range(self, min, max);
  TL_CHECK_AS(NotImplementedError, is_floating_type(self.dtype()), "histc: not implemented for dtype ",
              scalar_type_name(self.dtype()));
  if (self.is_meta()) return;
  Tensor buf = output_buffer(out, self.dtype(), self);
  TL_DISPATCH_FLOAT(self.dtype(), "histc",
                    [&] { histc_counts<scalar_t>(contiguous_of(self), bins, lo, hi, buf.data_ptr<scalar_t>()); });
  commit_output(out, buf);
}

}  // namespace tl::native
