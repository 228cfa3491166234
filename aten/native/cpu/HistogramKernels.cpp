// Counting kernels: bincount (occurrences of small non-negative integers, optionally weighted),
// histc (a histogram of equal-width bins) and histogram (the same with its bin edges, weights and
// density; the edges may also be given).
//
// histc places an element with PyTorch's arithmetic, in the input's dtype:
//   bin = (int64)((x - lo) * bins / (hi - lo)), and x == hi goes to the last bin,
// where lo and hi are the range's ends converted to the input's dtype; for float16 and bfloat16
// each operation is rounded to that type, as c10::Half's operators do, so elements close to a bin
// edge land in PyTorch's bin.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/native/OutputUtils.h"
#include "aten/native/Resize.h"
#include "aten/native/cpu/Loops.h"
#include "generated/ops/_to_copy.h"
#include "generated/ops/aminmax.h"
#include "generated/ops/bincount.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/copy.h"
#include "generated/ops/histc.h"
#include "generated/ops/histogram.h"
#include "generated/ops/histogramdd.h"
#include "generated/ops/reshape.h"
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
  // Before reading the extremes: an empty input of another rank has none.
  TL_CHECK(self.dim() == 1, "bincount only supports 1-d non-negative integral inputs.");
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
    TL_CHECK(static_cast<int64_t>(hi) < std::numeric_limits<int64_t>::max(),
             "bincount: maximum value of input overflowed, it should be < ", std::numeric_limits<int64_t>::max(),
             " but got ", static_cast<int64_t>(hi));
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

// ------------------------------------------------------------------------------------ histogram

namespace {

// One piece of PyTorch's at::parallel_for over n elements with this grain: pieces (one per thread,
// at least `grain` elements each) and their length.
std::pair<int64_t, int64_t> torch_pieces(int64_t n, int64_t grain) {
  const int64_t pieces = n < grain ? 1 : std::min<int64_t>(get_num_threads(), (n + grain - 1) / grain);
  return {pieces, std::max<int64_t>(1, (n + pieces - 1) / pieces)};
}

// PyTorch's linspace(lo, hi, steps) in T: the first half counted up from lo, the rest down from hi.
// float and double are fused multiply-adds, as the compiler makes them in PyTorch's AVX2/AVX-512
// kernels; the 16-bit types round after each operation (c10::Half's operators).
template <typename T>
void linspace_edges(double lo_d, double hi_d, int64_t steps, T* out) {
  using Ar = TypedArith<T>;
  using A = typename Ar::A;
  constexpr bool kFused = std::is_same_v<T, float> || std::is_same_v<T, double>;
  const A lo = Ar::r(static_cast<A>(lo_d)), hi = Ar::r(static_cast<A>(hi_d));
  const A step = Ar::div(Ar::sub(hi, lo), Ar::r(static_cast<A>(steps - 1)));
  for (int64_t i = 0; i < steps; ++i) {
    const bool up = i < steps / 2;
    const A k = Ar::r(static_cast<A>(up ? i : steps - i - 1));
    A v;
    if constexpr (kFused) v = up ? std::fma(step, k, lo) : std::fma(-step, k, hi);
    else v = up ? Ar::r(lo + Ar::mul(step, k)) : Ar::r(hi - Ar::mul(step, k));
    out[i] = static_cast<T>(v);
  }
}

// PyTorch's linspace for an integer dtype (histogramdd's edges of an integer input, which only the
// edges op accepts): the ends converted to T (an end out of T's range is an error), the step and
// the values in double, truncated.
template <typename T>
void integer_linspace(double lo_d, double hi_d, int64_t steps, T* out) {
  for (double v : {lo_d, hi_d})
    TL_CHECK(v >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
                 v <= static_cast<double>(std::numeric_limits<T>::max()),
             "histogramdd: value cannot be converted to type ", scalar_type_name(CppTypeToScalarType<T>::value),
             " without overflow");
  const T lo = static_cast<T>(lo_d), hi = static_cast<T>(hi_d);
  const double step = (static_cast<double>(hi) - static_cast<double>(lo)) / static_cast<double>(steps - 1);
  for (int64_t i = 0; i < steps; ++i) {
    const double v = i < steps / 2 ? std::fma(step, static_cast<double>(i), static_cast<double>(lo))
                                   : std::fma(-step, static_cast<double>(steps - i - 1), static_cast<double>(hi));
    out[i] = static_cast<T>(v);
  }
}

// First edge index whose edge is above v in [b, e) (std::upper_bound, comparing as T does).
template <typename T, typename A>
int64_t upper_edge(const T* edges, int64_t b, int64_t e, A v) {
  while (b < e) {
    const int64_t mid = b + (e - b) / 2;
    if (!(v < static_cast<A>(edges[mid]))) b = mid + 1;
    else e = mid;
  }
  return b;
}

// The bins of a D-dimensional histogram: per dim its edges (contiguous, of T) and their number.
template <typename T>
struct Axes {
  std::vector<const T*> edges;
  std::vector<int64_t> ne;
  int64_t dims() const { return static_cast<int64_t>(ne.size()); }
};

// Adds each point's weight (1 without weights) into its bin, in T as PyTorch's threads do, with
// PyTorch's split into pieces. `in` holds M points of D coordinates (row-major). `linear`: the
// edges are linspaces, so a bin is interpolated and then corrected against its neighbours
// (PyTorch's local search); otherwise a binary search. A point outside the edges in any dim, or
// with a NaN coordinate, is skipped.
template <typename T>
void histogram_fill(const T* x, int64_t points, const T* pw, const Axes<T>& axes, bool linear, T* hist) {
  using Ar = TypedArith<T>;
  using A = typename Ar::A;
  const int64_t D = axes.dims();
  std::vector<int64_t> stride(static_cast<size_t>(D), 1);
  int64_t cells = 1;
  for (int64_t d = D - 1; d >= 0; --d) {
    stride[static_cast<size_t>(d)] = cells;
    cells *= axes.ne[static_cast<size_t>(d)] - 1;
  }
  std::vector<A> lo(static_cast<size_t>(D)), hi(lo), width(lo), nb(lo);
  for (int64_t d = 0; d < D; ++d) {
    const size_t k = static_cast<size_t>(d);
    lo[k] = static_cast<A>(axes.edges[k][0]);
    hi[k] = static_cast<A>(axes.edges[k][axes.ne[k] - 1]);
    width[k] = Ar::sub(hi[k], lo[k]);
    nb[k] = Ar::r(static_cast<A>(axes.ne[k] - 1));
  }
  const auto [pieces, piece] = torch_pieces(points, std::max<int64_t>(1, 200 / std::max<int64_t>(D, 1)));
  std::vector<std::vector<A>> local(static_cast<size_t>(pieces), std::vector<A>(static_cast<size_t>(cells), A(0)));
  parallel_for(0, pieces, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) {
      A* h = local[static_cast<size_t>(c)].data();
      for (int64_t i = c * piece, e = std::min(points, i + piece); i < e; ++i) {
        int64_t cell = 0;
        bool inside = true;
        for (int64_t d = 0; d < D && inside; ++d) {
          const size_t k = static_cast<size_t>(d);
          const A v = to_opmath(x[i * D + d]);
          if (!(v >= lo[k] && v <= hi[k])) {
            inside = false;
            break;
          }
          const T* edges = axes.edges[k];
          const int64_t ne = axes.ne[k], bins = ne - 1;
          int64_t pos;
          if (linear) {
            const A p = Ar::div(Ar::mul(Ar::sub(v, lo[k]), nb[k]), width[k]);
            const int64_t guess = p >= A(0) && p < static_cast<A>(bins) ? static_cast<int64_t>(p) : (p >= A(0) ? bins : 0);
            pos = upper_edge(edges, std::max<int64_t>(0, guess - 1), std::min<int64_t>(guess + 2, ne), v) - 1;
          } else {
            pos = upper_edge(edges, 0, ne, v) - 1;
          }
          cell += stride[k] * std::clamp<int64_t>(pos, 0, bins - 1);  // the last bin includes its right edge
        }
        if (inside) h[cell] = Ar::r(h[cell] + (pw ? to_opmath(pw[i]) : A(1)));
      }
    }
  });
  for (int64_t b = 0; b < cells; ++b) {
    A total = 0;
    for (const auto& h : local) total += h[static_cast<size_t>(b)];
    hist[b] = static_cast<T>(total);
  }
}

// density: each bin divided by the total, then by its width in each dim (in T, as PyTorch's div_).
template <typename T>
void to_density(T* hist, const Axes<T>& axes) {
  using Ar = TypedArith<T>;
  using A = typename Ar::A;
  int64_t cells = 1;
  for (int64_t n : axes.ne) cells *= n - 1;
  A total = 0;
  for (int64_t b = 0; b < cells; ++b) total += static_cast<A>(hist[b]);
  total = Ar::r(total);
  for (int64_t b = 0; b < cells; ++b) hist[b] = static_cast<T>(Ar::div(static_cast<A>(hist[b]), total));
  int64_t inner = cells;
  for (int64_t d = 0; d < axes.dims(); ++d) {
    const size_t k = static_cast<size_t>(d);
    const int64_t bins = axes.ne[k] - 1;
    inner /= bins;
    for (int64_t b = 0; b < cells; ++b) {
      const int64_t p = b / inner % bins;
      const A len = Ar::sub(static_cast<A>(axes.edges[k][p + 1]), static_cast<A>(axes.edges[k][p]));
      hist[b] = static_cast<T>(Ar::div(static_cast<A>(hist[b]), len));
    }
  }
}

// PyTorch's checks of the out tensors (hist and bin_edges of the input's dtype) and the bin count.
void check_histogram_outs(const Tensor& self, const Tensor& hist, const Tensor& bin_edges, int64_t bins) {
  if (hist.defined())
    TL_CHECK(hist.dtype() == self.dtype(), "torch.histogram: input tensor and hist tensor should have the same "
             "dtype, but got input ", legacy_type_name(self.dtype()), " and hist ", legacy_type_name(hist.dtype()));
  if (bin_edges.defined())
    TL_CHECK(bin_edges.dtype() == self.dtype(), "torch.histogram: input tensor and bin_edges tensor should have the "
             "same dtype, but got input ", legacy_type_name(self.dtype()), " and bin_edges ",
             legacy_type_name(bin_edges.dtype()), " for dimension 0");
  TL_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
}

// PyTorch's checks of the weights: self's dtype and one per element.
void check_histogram_weight(const Tensor& self, const std::optional<Tensor>& weight) {
  if (weight) {
    TL_CHECK(weight->dtype() == self.dtype(), "torch.histogram: if weight tensor is provided, input tensor and weight "
             "tensor should have the same dtype, but got input(", legacy_type_name(self.dtype()), "), and weight(",
             legacy_type_name(weight->dtype()), ")");
    TL_CHECK(weight->numel() == self.numel(), "torch.histogram: if weight tensor is provided it should have the same "
             "shape as the input tensor excluding its innermost dimension, but got input with shape [",
             self.numel(), ", 1] and weight with shape [", weight->numel(), "]");
  }
}

// PyTorch's checks of the edges and the weights (self seen as a column of numel() values).
void check_histogram_inputs(const Tensor& self, const Tensor& edges, const std::optional<Tensor>& weight) {
  TL_CHECK(self.dtype() == edges.dtype(), "torch.histogram: input tensor and bins tensors should have the same "
           "dtype, but got input with dtype ", legacy_type_name(self.dtype()), " and bins for dimension 0 with dtype ",
           legacy_type_name(edges.dtype()));
  TL_CHECK(edges.dim() == 1, "torch.histogram: bins tensor should have one dimension, but got ", edges.dim(),
           " dimensions in the bins tensor for dimension 0");
  TL_CHECK(edges.numel() > 0, "torch.histogram: bins tensor should have at least 1 element, but got ", edges.numel(),
           " elements in the bins tensor for dimension 0");
  check_histogram_weight(self, weight);
}

// bins + 1 edges: a count of INT64_MAX bins has no edge count (PyTorch's size computation overflows there).
int64_t edge_count(int64_t bins, const char* op) {
  TL_CHECK(bins < std::numeric_limits<int64_t>::max(), op, ": ", bins, " bins: the number of bin edges overflows int64");
  return bins + 1;
}

void prepare_histogram_outs(const Tensor& self, int64_t bins, Tensor& hist, Tensor& bin_edges) {
  const int64_t hist_shape[1] = {bins}, edge_shape[1] = {edge_count(bins, "torch.histogram")};
  prepare_output(hist, {"histogram", IntArrayRef(hist_shape, 1), self.dtype(), self.device(), OutDtype::Exact});
  prepare_output(bin_edges, {"histogram", IntArrayRef(edge_shape, 1), self.dtype(), self.device(), OutDtype::Exact});
}

void check_histogram_dtype(const Tensor& self) {
  TL_CHECK_AS(NotImplementedError, is_floating_type(self.dtype()), "histogram: not implemented for dtype ",
              scalar_type_name(self.dtype()));
}

// Fills hist (and density) from the points of self (its last dim holds the coordinates; a 1-D
// histogram has one) and the contiguous edges of each dim, into the out (via a buffer).
void histogram_compute(const Tensor& self, int64_t dims, const std::optional<Tensor>& weight, bool density,
                       const std::vector<Tensor>& edges, bool linear, Tensor& hist) {
  Tensor buf = output_buffer(hist, self.dtype(), self);
  TL_DISPATCH_FLOAT(self.dtype(), "histogram", [&] {
    Axes<scalar_t> axes;
    for (const Tensor& e : edges) {
      axes.edges.push_back(e.data_ptr<scalar_t>());
      axes.ne.push_back(e.numel());
    }
    const Tensor in = contiguous_of(self);
    const Tensor w = weight ? contiguous_of(*weight) : Tensor();
    histogram_fill<scalar_t>(in.data_ptr<scalar_t>(), dims == 0 ? 0 : self.numel() / dims,
                             weight ? w.data_ptr<scalar_t>() : nullptr, axes, linear, buf.data_ptr<scalar_t>());
    if (density) to_density<scalar_t>(buf.data_ptr<scalar_t>(), axes);
  });
  commit_output(hist, buf);
}

}  // namespace

void histogram_bins_tensor_kernel(const Tensor& self, const Tensor& bins, const std::optional<Tensor>& weight,
                                  bool density, Tensor& hist, Tensor& bin_edges) {
  check_histogram_inputs(self, bins, weight);
  check_histogram_outs(self, hist, bin_edges, bins.numel() - 1);
  prepare_histogram_outs(self, bins.numel() - 1, hist, bin_edges);
  check_histogram_dtype(self);
  if (self.is_meta()) return;
  tl::copy_(bin_edges, bins);
  histogram_compute(self, 1, weight, density, {contiguous_of(bins)}, /*linear=*/false, hist);
}

void histogram_bin_ct_kernel(const Tensor& self, int64_t bins, std::optional<ArrayRef<double>> range,
                             const std::optional<Tensor>& weight, bool density, Tensor& hist, Tensor& bin_edges) {
  check_histogram_outs(self, hist, bin_edges, bins);
  prepare_histogram_outs(self, bins, hist, bin_edges);
  // The outer edges: `range`, else the data's extremes ([0, 1] when empty), widened by 1/2 on each
  // side when equal.
  double lo = 0, hi = 1;
  if (range) {
    TL_CHECK(range->size() == 2, "torch.histogram: for a 1-dimensional histogram range should have 2 elements, "
             "but got ", range->size());
    lo = (*range)[0];
    hi = (*range)[1];
  } else if (self.numel() > 0 && !self.is_meta()) {
    TL_CHECK_AS(NotImplementedError, self.dtype() == ScalarType::Float32 || self.dtype() == ScalarType::Float64,
                "histogram: not implemented for dtype ", scalar_type_name(self.dtype()), " without a range");
    auto [mn, mx] = tl::aminmax(self);
    lo = tensor_item(mn).to_double();
    hi = tensor_item(mx).to_double();
  }
  TL_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histogram: dimension 0's range [", lo, ", ", hi,
           "] is not finite");
  TL_CHECK(lo <= hi, "torch.histogram: min should not exceed max, but got min ", lo, " max ", hi, " for dimension 0");
  if (lo == hi) {
    lo -= 0.5;
    hi += 0.5;
  }
  // PyTorch's order: its linspace refuses bool, then the weights are checked, then the dtype.
  TL_CHECK_AS(NotImplementedError, self.dtype() != ScalarType::Bool, "histogram: not implemented for dtype bool");
  check_histogram_weight(self, weight);
  check_histogram_dtype(self);
  if (self.is_meta()) return;
  Tensor edges = empty_tensor({bins + 1}, self.dtype(), self.device());
  TL_DISPATCH_FLOAT(self.dtype(), "histogram",
                    [&] { linspace_edges<scalar_t>(lo, hi, bins + 1, edges.data_ptr<scalar_t>()); });
  histogram_compute(self, 1, weight, density, {edges}, /*linear=*/true, hist);
  tl::copy_(bin_edges, edges);
}

// ------------------------------------------------------------------------------------ histogramdd

namespace {

void check_dd_input(const Tensor& self) {
  TL_CHECK(self.dim() >= 2, "torch.histogramdd: input tensor should have at least 2 dimensions");
}

// One weight per point: weight's shape is self's without its last dim (a 0-d weight counts as [1]).
void check_dd_weight(const Tensor& self, const std::optional<Tensor>& weight) {
  if (!weight) return;
  TL_CHECK(weight->dtype() == self.dtype(), "torch.histogramdd: if weight tensor is provided, input tensor and "
           "weight tensor should have the same dtype, but got input(", legacy_type_name(self.dtype()), "), and weight(",
           legacy_type_name(weight->dtype()), ")");
  DimVector expected, got;
  for (int64_t d = 0; d + 1 < self.dim(); ++d) expected.push_back(self.sizes()[d]);
  for (int64_t d = 0; d < weight->dim(); ++d) got.push_back(weight->sizes()[d]);
  if (got.empty()) got.push_back(1);
  TL_CHECK(expected == got, "torch.histogramdd: if weight tensor is provided it should have the same shape as the "
           "input tensor excluding its innermost dimension, but got input with shape ", self.sizes(),
           " and weight with shape ", weight->sizes());
}

// PyTorch's outer edges per coordinate: `range` pairs, else the data's extremes ([0, 1] when
// empty), widened by 1/2 on each side when equal.
std::vector<std::pair<double, double>> dd_outer_edges(const Tensor& self, std::optional<ArrayRef<double>> range) {
  const int64_t N = self.sizes().back();
  std::vector<std::pair<double, double>> out(static_cast<size_t>(N), {0.0, 1.0});
  if (range) {
    TL_CHECK(static_cast<int64_t>(range->size()) == 2 * N, "torch.histogramdd: for a ", N, "-dimensional histogram "
             "range should have ", 2 * N, " elements, but got ", range->size());
    for (int64_t d = 0; d < N; ++d) out[static_cast<size_t>(d)] = {(*range)[2 * d], (*range)[2 * d + 1]};
  } else if (self.numel() > 0 && !self.is_meta()) {
    TL_CHECK_AS(NotImplementedError, self.dtype() == ScalarType::Float32 || self.dtype() == ScalarType::Float64,
                "histogramdd: not implemented for dtype ", scalar_type_name(self.dtype()), " without a range");
    auto [mn, mx] = tl::aminmax(tl::reshape(self, {-1, N}), 0);
    const Tensor lo = tl::_to_copy(mn, ScalarType::Float64), hi = tl::_to_copy(mx, ScalarType::Float64);
    for (int64_t d = 0; d < N; ++d) out[static_cast<size_t>(d)] = {lo.data_ptr<double>()[d], hi.data_ptr<double>()[d]};
  }
  for (int64_t d = 0; d < N; ++d) {
    auto& [lo, hi] = out[static_cast<size_t>(d)];
    TL_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histogramdd: dimension ", d, "'s range [", lo, ", ", hi,
             "] is not finite");
    TL_CHECK(lo <= hi, "torch.histogramdd: min should not exceed max, but got min ", lo, " max ", hi,
             " for dimension ", d);
    if (lo == hi) {
      lo -= 0.5;
      hi += 0.5;
    }
  }
  return out;
}

}  // namespace

std::vector<Tensor> histogramdd_bin_edges_kernel(const Tensor& self, IntArrayRef bins,
                                                 std::optional<ArrayRef<double>> range,
                                                 const std::optional<Tensor>& weight, bool density) {
  check_dd_input(self);
  const int64_t N = self.sizes().back();
  TL_CHECK(static_cast<int64_t>(bins.size()) == N,
           "histogramdd: The size of bins must be equal to the innermost dimension of the input.");
  for (int64_t d = 0; d < N; ++d) {
    TL_CHECK(bins[d] > 0, "torch.histogram(): bins must be > 0, but got ", bins[d], " for dimension ", d);
    edge_count(bins[d], "histogramdd");
  }
  const auto ranges = dd_outer_edges(self, range);
  TL_CHECK_AS(NotImplementedError, self.dtype() != ScalarType::Bool, "histogramdd: not implemented for dtype bool");
  std::vector<Tensor> edges;
  for (int64_t d = 0; d < N; ++d) {
    edges.push_back(empty_tensor({bins[d] + 1}, self.dtype(), self.device()));
    if (self.is_meta()) continue;
    TL_DISPATCH_ALL(self.dtype(), "histogramdd", [&] {
      const auto [lo, hi] = ranges[static_cast<size_t>(d)];
      if constexpr (std::is_floating_point_v<opmath_t<scalar_t>>) {
        linspace_edges<scalar_t>(lo, hi, bins[d] + 1, edges.back().data_ptr<scalar_t>());
      } else if constexpr (std::is_same_v<scalar_t, bool>) {
        throw NotImplementedError("histogramdd: not implemented for dtype bool");
      } else {
        integer_linspace<scalar_t>(lo, hi, bins[d] + 1, edges.back().data_ptr<scalar_t>());
      }
    });
  }
  return edges;
}

Tensor histogramdd_from_bin_cts_kernel(const Tensor& self, IntArrayRef bins, std::optional<ArrayRef<double>> range,
                                       const std::optional<Tensor>& weight, bool density) {
  const std::vector<Tensor> edges = histogramdd_bin_edges_kernel(self, bins, range, weight, density);
  check_dd_weight(self, weight);
  check_histogram_dtype(self);
  Tensor hist = empty_tensor(bins, self.dtype(), self.device());
  if (self.is_meta()) return hist;
  histogram_compute(self, self.sizes().back(), weight, density, edges, /*linear=*/true, hist);
  return hist;
}

Tensor histogramdd_from_bin_tensors_kernel(const Tensor& self, TensorList bins, const std::optional<Tensor>& weight,
                                           bool density) {
  check_dd_input(self);
  const int64_t N = self.sizes().back();
  TL_CHECK(static_cast<int64_t>(bins.size()) == N, "torch.histogramdd: expected ", N, " sequences of bin edges for a ",
           N, "-dimensional histogram but got ", bins.size());
  DimVector shape;
  std::vector<Tensor> edges;
  for (int64_t d = 0; d < N; ++d) {
    const Tensor& b = bins[static_cast<size_t>(d)];
    TL_CHECK(b.dtype() == self.dtype(), "torch.histogramdd: input tensor and bins tensors should have the same dtype, "
             "but got input with dtype ", legacy_type_name(self.dtype()), " and bins for dimension ", d,
             " with dtype ", legacy_type_name(b.dtype()));
    TL_CHECK(b.dim() == 1, "torch.histogramdd: bins tensor should have one dimension, but got ", b.dim(),
             " dimensions in the bins tensor for dimension ", d);
    TL_CHECK(b.numel() > 0, "torch.histogramdd: bins tensor should have at least 1 element, but got ", b.numel(),
             " elements in the bins tensor for dimension ", d);
    shape.push_back(b.numel() - 1);
    edges.push_back(contiguous_of(b));
  }
  check_dd_weight(self, weight);
  for (int64_t d = 0; d < N; ++d)
    TL_CHECK(shape[d] > 0, "torch.histogram(): bins must be > 0, but got ", shape[d], " for dimension ", d);
  check_histogram_dtype(self);
  Tensor hist = empty_tensor(shape, self.dtype(), self.device());
  if (self.is_meta()) return hist;
  histogram_compute(self, N, weight, density, edges, /*linear=*/false, hist);
  return hist;
}

}  // namespace tl::native
