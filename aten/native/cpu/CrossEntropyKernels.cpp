// _cross_entropy_fused and _cross_entropy_fused_backward: cross_entropy as one kernel each way, never
// materializing log_softmax. On 4096 x 32000 logits the composite (log_softmax, nll_loss and their
// backward ops) wrote three 524 MB intermediates, and the first touch of their pages cost more than the
// arithmetic; here the forward writes one float per row and the backward only grad_input.
//
// self is seen as (outer, C, inner); a row is the C logits of one (outer, inner) position (stride inner).
// Forward, per row: max and log_sum = log(sum(exp(x - max))), as log_softmax computes them (the loss terms
// use -log_softmax = log_sum - (x - max), rounded as PyTorch rounds it), and lse = max + log_sum, saved in
// float64 whatever the input's dtype: rounded to float32, lse would be off by up to |lse| * 2^-24, and the
// gradient with it (4e-6 relative for logits of scale 30, 1.6e-5 at 1000, against PyTorch's 2e-7 and 1e-9).
// Backward, one pass per row: grad_input = g * (Q * exp((x - hi) - lo) - q), hi + lo = lse (hi the float
// nearest lse: x - hi is exact for the classes that matter, those near the max), where
//   class index t:   q_c = (1 - s) * w_t * [c == t] + s / C * w_c,  Q = (1 - s) * w_t + s / C * sum(w)
//   probabilities p: q_c = w_c * ((1 - s) * p_c + s / C),           Q = sum_c q_c
// (w = 1 without weight, s the label smoothing; an ignored row is all 0) and g the row's output gradient,
// divided for mean by the sum of w_t over the rows not ignored (class indices) or by the row count.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/CrossEntropy.h"
#include "aten/native/DimEngine.h"
#include "aten/native/Losses.h"
#include "aten/native/cpu/CrossEntropyColumns.h"
#include "aten/native/cpu/CrossEntropyFewClasses.h"
#include "aten/native/cpu/CrossEntropyProbRowsVec.h"  // the probability / smoothing rows without AVX-512
#include "aten/native/cpu/CrossEntropyRowsF64.h"      // the float64 rows
#include "aten/native/cpu/CrossEntropyRowsAvx512.h"
#include "aten/native/cpu/CrossEntropyRowsVec.h"
#include "aten/native/cpu/SoftmaxRowsAvx512.h"  // the forward's max / log-sum and weighted-sum rows (no stores)
#include "aten/native/cpu/SoftmaxRowsVec.h"     // the same max / log-sum row without AVX-512
#include "aten/native/cpu/StreamStore.h"         // stream_fence
#include "aten/native/cpu/Vectorize.h"           // TL_TARGET_CLONES
#include "generated/ops/_cross_entropy_fused.h"
#include "generated/ops/_cross_entropy_fused_backward.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/empty.h"

namespace tl::native {

CrossEntropyGeometry cross_entropy_geometry(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                            int64_t reduction, double label_smoothing, const char* op) {
  TL_CHECK(self.dim() >= 1, op, ": expected an input of shape (C), (N, C) or (N, C, d1, ...), got a 0-d tensor");
  TL_CHECK(self.dtype() == ScalarType::Float32 || self.dtype() == ScalarType::Float64, op,
           ": expected a float32 or float64 input, got ", scalar_type_name(self.dtype()));
  TL_CHECK(reduction >= kReductionNone && reduction <= kReductionSum, op,
           ": reduction must be 0 (none), 1 (mean) or 2 (sum), got ", reduction);
  TL_CHECK(label_smoothing >= 0.0 && label_smoothing <= 1.0, op,
           ": label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
  CrossEntropyGeometry g;
  g.classes = self.size(self.dim() == 1 ? 0 : 1);
  if (self.dim() >= 2) {
    g.outer = self.size(0);
    g.row_shape.push_back(g.outer);
    for (int64_t d = 2; d < self.dim(); ++d) {
      g.row_shape.push_back(self.size(d));
      g.inner *= self.size(d);
    }
  }
  g.prob = is_floating_type(target.dtype());
  if (g.prob) {
    TL_CHECK(target.sizes() == self.sizes() && target.dtype() == self.dtype(), op,
             ": expected class probabilities of the input's shape ", self.sizes(), " and dtype ",
             scalar_type_name(self.dtype()), ", got ", target.sizes(), " ", scalar_type_name(target.dtype()));
  } else {
    TL_CHECK(target.dtype() == ScalarType::Int64, op, ": expected class indices of dtype Long, got ",
             scalar_type_name(target.dtype()));
    TL_CHECK(target.sizes() == IntArrayRef(g.row_shape), op, ": expected a target of shape ", IntArrayRef(g.row_shape),
             ", got ", target.sizes());
  }
  if (weight && weight->defined()) {
    TL_CHECK(weight->dim() == 1 && weight->numel() == g.classes && weight->dtype() == self.dtype(), op,
             ": expected a ", scalar_type_name(self.dtype()), " weight of ", g.classes, " elements, got ",
             weight->sizes(), " ", scalar_type_name(weight->dtype()));
  }
  return g;
}

namespace {

#define TL_CE_DISPATCH(dtype, ...)                    \
  [&] {                                               \
    if ((dtype) == ScalarType::Float64) {             \
      using scalar_t = double;                        \
      return __VA_ARGS__();                           \
    }                                                 \
    using scalar_t = float;                           \
    return __VA_ARGS__();                             \
  }()

// Whether every class index is in [0, classes) or ignore_index (a branch-free loop: it vectorizes).
TL_TARGET_CLONES bool targets_in_range(const int64_t* t, int64_t n, int64_t classes, int64_t ignore_index) {
  uint64_t bad = 0;
#pragma omp simd reduction(| : bad)
  for (int64_t i = 0; i < n; ++i)
    bad |= static_cast<uint64_t>(t[i] != ignore_index) &
           static_cast<uint64_t>(static_cast<uint64_t>(t[i]) >= static_cast<uint64_t>(classes));
  return bad == 0;
}

// Every class index is checked before anything is read through it (serially: no throwing in parallel loops); the
// scalar loop, which names the first bad index, runs only when the vector check found one.
void check_targets(const int64_t* t, int64_t n, int64_t classes, int64_t ignore_index) {
  if (targets_in_range(t, n, classes, ignore_index)) return;
  for (int64_t i = 0; i < n; ++i)
    TL_CHECK_INDEX(t[i] == ignore_index || (t[i] >= 0 && t[i] < classes), "Target ", t[i], " is out of bounds.");
}

// A row's max (returned) and log(sum(exp(x - max))), as log_softmax computes them; x[c * stride].
template <typename T>
T max_log_sum(const T* x, int64_t stride, int64_t n, T* log_sum) {
  if constexpr (std::is_same_v<T, float>) {
    if (stride == 1 && n > 0 && softmax_rows_avx512()) return max_log_sum_row_f32_avx512(x, n, log_sum);
    if (stride == 1 && n > 0 && softmax_rows_vec()) return max_log_sum_row_f32_vec(x, n, log_sum);
  } else {
    if (stride == 1 && n > 0 && softmax_rows_vec()) return max_log_sum_row_f64(x, n, log_sum);
  }
  T mx = -std::numeric_limits<T>::infinity();
  for (int64_t c = 0; c < n; ++c) mx = x[c * stride] > mx ? x[c * stride] : mx;
  double sum = 0;
  for (int64_t c = 0; c < n; ++c) sum += static_cast<double>(std::exp(x[c * stride] - mx));
  *log_sum = static_cast<T>(std::log(sum));
  return mx;
}

// A class-index gradient row by the AVX-512 kernel, where there is one for the dtype and CPU, or a vector row (float64
// rows; float32 on other CPUs) unless TORCHLITE_SOFTMAX_ISA=generic.
bool backward_row_avx512(const double* x, double* gi, int64_t n, double lse, double lse_lo, double a, double b,
                         const double* w, int64_t t, double at_target, bool) {
  if (!softmax_rows_vec()) return false;
  cross_entropy_grad_row_f64(x, gi, n, lse, lse_lo, a, b, w, t, at_target);
  return true;
}
bool backward_row_avx512(const float* x, float* gi, int64_t n, float lse, float lse_lo, float a, float b, const float* w,
                         int64_t t, float at_target, bool stream) {
  if (cross_entropy_rows_avx512()) {
    cross_entropy_grad_row_f32(x, gi, n, lse, lse_lo, a, b, w, t, at_target, stream);
    return true;
  }
  // Other CPUs: the vector-type row (no streaming stores), unless TORCHLITE_SOFTMAX_ISA=generic.
  if (!softmax_rows_vec()) return false;
  cross_entropy_grad_row_f32_vec(x, gi, n, lse, lse_lo, a, b, w, t, at_target);
  return true;
}

// sum_c q_c * (-log_softmax(x)_c), q_c = (w ? w_c : 1) * (p ? a * p_c + b : 1), by the AVX-512 row or (other CPUs)
// the vector-type row for a contiguous float32 row, the float64 row for float64, else (TORCHLITE_SOFTMAX_ISA=generic)
// nullopt.
std::optional<double> weighted_row_avx512(const double* x, const double* w, const double* p, int64_t n, double mx,
                                          double log_sum, double a, double b) {
  if (n <= 0 || !softmax_rows_vec()) return std::nullopt;
  return cross_entropy_weighted_row_f64(x, w, p, n, mx, log_sum, a, b);
}
std::optional<double> weighted_row_avx512(const float* x, const float* w, const float* p, int64_t n, float mx,
                                          float log_sum, double a, double b) {
  if (n <= 0) return std::nullopt;
  float q_sum;
  if (softmax_rows_avx512())
    return cross_entropy_weighted_row_f32_avx512(x, w, p, n, mx, log_sum, static_cast<float>(a), static_cast<float>(b),
                                                 &q_sum);
  if (!softmax_rows_vec()) return std::nullopt;
  return cross_entropy_weighted_row_f32_vec(x, w, p, n, mx, log_sum, static_cast<float>(a), static_cast<float>(b),
                                            &q_sum);
}

// A probability-target gradient row by the AVX-512 kernel or (other CPUs) the vector-type row for float32, the
// float64 row for float64 (unless TORCHLITE_SOFTMAX_ISA=generic).
bool prob_backward_row_avx512(const double* x, const double* p, const double* w, double* gi, int64_t n, double lse,
                              double lse_lo, double g, double a, double b, bool) {
  if (!softmax_rows_vec()) return false;
  cross_entropy_prob_grad_row_f64(x, p, w, gi, n, lse, lse_lo, g, a, b);
  return true;
}
bool prob_backward_row_avx512(const float* x, const float* p, const float* w, float* gi, int64_t n, float lse,
                              float lse_lo, float g, float a, float b, bool stream) {
  if (cross_entropy_rows_avx512()) {
    cross_entropy_prob_grad_row_f32(x, p, w, gi, n, lse, lse_lo, g, a, b, stream);
    return true;
  }
  if (!softmax_rows_vec()) return false;
  cross_entropy_prob_grad_row_f32_vec(x, p, w, gi, n, lse, lse_lo, g, a, b, stream);
  return true;
}

// Sum of v[0, n) in double in a fixed order whatever the thread count: 8 interleaved partial sums (a serial sum is
// one add's latency per element: 0.1 ms for 65536 positions, a third of a (16, 5, 64, 64) forward), then a tree.
template <typename F>
TL_ALWAYS_INLINE double fixed_order_sum(int64_t n, const F& v) {
  double acc[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) acc[k] += v(i + k);
  for (int k = 0; i < n; ++i, ++k) acc[k] += v(i);
  for (int h = 4; h >= 1; h /= 2)
    for (int k = 0; k < h; ++k) acc[k] += acc[k + h];
  return acc[0];
}

// The row counts of the mean: sum of w_t over rows not ignored (class indices, checked), or the row count.
template <typename T>
TL_TARGET_CLONES double mean_divisor(const CrossEntropyGeometry& g, const int64_t* t, const T* w, int64_t ignore_index) {
  const int64_t rows = g.outer * g.inner;
  if (g.prob) return static_cast<double>(rows);
  if (!w) {
    int64_t count = 0;
#pragma omp simd reduction(+ : count)
    for (int64_t r = 0; r < rows; ++r) count += t[r] != ignore_index;
    return static_cast<double>(count);
  }
  return fixed_order_sum(rows, [&](int64_t r) { return t[r] != ignore_index ? static_cast<double>(w[t[r]]) : 0.0; });
}

template <typename T>
double weight_sum(const T* w, int64_t classes) {
  if (!w) return static_cast<double>(classes);
  double s = 0;
  for (int64_t c = 0; c < classes; ++c) s += static_cast<double>(w[c]);
  return s;
}

// Rows per parallel chunk: about kGrainSize elements.
int64_t row_grain(int64_t classes) { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, classes)); }

// K-dim inputs (inner > 1) in blocks of neighbouring positions: f(o, i0, w, k) for outer index o and positions
// [i0, i0 + w), the blocks split between the threads. A block is as wide as fits 256 KiB (C runs of w elements,
// read three times: in L2), from 16 to kCeColumns positions: wide runs keep the hardware prefetchers streaming
// ((64, 100, 256) probabilities: 64-position blocks 1.16x PyTorch's time forward+backward, 256-position 0.57x).
// The blocks are numbered k = o * per + i0 / width (column_blocks: their count).
int64_t column_width(const CrossEntropyGeometry& g, int64_t elem_size) {
  const int64_t fit = (int64_t(256) << 10) / std::max<int64_t>(1, g.classes * elem_size) / 16 * 16;
  return std::clamp<int64_t>(fit, 16, kCeColumns);
}
int64_t column_blocks(const CrossEntropyGeometry& g, int64_t elem_size) {
  const int64_t width = column_width(g, elem_size);
  return g.outer * ((g.inner + width - 1) / width);
}

template <typename F>
void for_column_blocks(const CrossEntropyGeometry& g, int64_t elem_size, const F& f) {
  const int64_t width = column_width(g, elem_size);
  const int64_t per = (g.inner + width - 1) / width;
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, g.classes * width));
  parallel_for(0, g.outer * per, grain, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      const int64_t o = k / per, i0 = (k % per) * width;
      f(o, i0, std::min<int64_t>(width, g.inner - i0), k);
    }
  });
}

// The few-class path (CrossEntropyFewClasses.h): float32 K-dim logits, class indices (checked), 2 <= C <= 16.
// Each returns false, having done nothing, where the path does not apply.
bool use_few_classes(const CrossEntropyGeometry& g) {
  return !g.prob && g.inner > 1 && g.classes >= 2 && g.classes <= kCeFewMaxClasses;
}

bool few_classes_forward(const CrossEntropyGeometry&, const double*, const int64_t*, const double*, int64_t, double,
                         int64_t, double*, double*, double*) {
  return false;
}
// Writes the loss of each position to `out` (reduction none), else the reduced loss to *result.
bool few_classes_forward(const CrossEntropyGeometry& g, const float* x, const int64_t* t, const float* wp,
                         int64_t ignore_index, double smoothing, int64_t reduction, double* lse, float* out,
                         float* result) {
  if (!use_few_classes(g)) return false;
  const int64_t C = g.classes, S = g.inner;
  const CeFewArgs args{C, S, wp, ignore_index, smoothing};
  // Each block's loss terms are summed by the kernel, the blocks' sums after, in order: the same result on any
  // thread count.
  std::vector<double> block_loss(out ? 0 : static_cast<size_t>(column_blocks(g, sizeof(float))));
  for_column_blocks(g, sizeof(float), [&](int64_t o, int64_t i0, int64_t w, int64_t k) {
    const int64_t r0 = o * S + i0;
    const double sum =
        cross_entropy_few_forward(args, x + o * C * S + i0, w, t + r0, lse + r0, out ? out + r0 : nullptr);
    if (!out) block_loss[static_cast<size_t>(k)] = sum;
  });
  if (out) return true;
  double total = 0;
  for (double v : block_loss) total += v;
  if (reduction == kReductionMean) total /= mean_divisor(g, t, wp, ignore_index);
  *result = static_cast<float>(total);
  return true;
}

bool few_classes_backward(const CrossEntropyGeometry&, const double*, double*, const int64_t*, const double*, int64_t,
                          double, const double*, double, double, const double*) {
  return false;
}
// g: the per-position output gradient (reduction none) or null; then every position's is g0 (scaled).
bool few_classes_backward(const CrossEntropyGeometry& g, const float* x, float* gi, const int64_t* t, const float* wp,
                          int64_t ignore_index, double smoothing, const float* gp, float scale, float g0,
                          const double* lse) {
  if (!use_few_classes(g)) return false;
  const int64_t C = g.classes, S = g.inner;
  const CeFewArgs args{C, S, wp, ignore_index, smoothing};
  for_column_blocks(g, sizeof(float), [&](int64_t o, int64_t i0, int64_t w, int64_t) {
    const int64_t r0 = o * S + i0;
    cross_entropy_few_backward(args, x + o * C * S + i0, gi + o * C * S + i0, w, t + r0, gp ? gp + r0 : nullptr,
                                   scale, g0, lse + r0);
  });
  return true;
}

}  // namespace

std::tuple<Tensor, Tensor> cross_entropy_fused_kernel(const Tensor& self_, const Tensor& target_,
                                                      const std::optional<Tensor>& weight, int64_t reduction,
                                                      int64_t ignore_index, double label_smoothing) {
  const char* op = "_cross_entropy_fused";
  const CrossEntropyGeometry g = cross_entropy_geometry(self_, target_, weight, reduction, label_smoothing, op);
  const ScalarType st = self_.dtype();
  Tensor output = empty(reduction == kReductionNone ? IntArrayRef(g.row_shape) : IntArrayRef(), st, self_.device());
  Tensor lse = empty(g.row_shape, ScalarType::Float64, self_.device());
  if (self_.is_meta()) return {output, lse};
  const Tensor self = contiguous(self_), target = contiguous(target_);
  const Tensor w = weight && weight->defined() ? contiguous(*weight) : Tensor();
  const int64_t rows = g.outer * g.inner, C = g.classes, S = g.inner;
  TL_CE_DISPATCH(st, [&] {
    using T = scalar_t;
    const T* x = self.data_ptr<T>();
    const T* wp = w.defined() ? w.data_ptr<T>() : nullptr;
    const int64_t* t = g.prob ? nullptr : target.data_ptr<int64_t>();
    const T* p = g.prob ? target.data_ptr<T>() : nullptr;
    if (t) check_targets(t, rows, C, ignore_index);
    const double s = label_smoothing, sc = C > 0 ? s / static_cast<double>(C) : 0.0;
    double* lp = lse.data_ptr<double>();
    T* out = reduction == kReductionNone ? output.data_ptr<T>() : nullptr;
    if (few_classes_forward(g, x, t, wp, ignore_index, s, reduction, lp, out, output.data_ptr<T>())) return;
    // The loss of each row (in double for mean/sum, summed after in a fixed order: the same result on any thread
    // count).
    std::vector<double> row_loss(reduction == kReductionNone ? 0 : static_cast<size_t>(rows));
    if (S > 1) {
      const CeColumnArgs<T> args{C, S, wp, ignore_index, s};
      for_column_blocks(g, sizeof(T), [&](int64_t o, int64_t i0, int64_t w, int64_t) {
        double loss[kCeColumns];
        const int64_t r0 = o * S + i0;
        cross_entropy_columns_forward(args, x + o * C * S + i0, w, t ? t + r0 : nullptr, p ? p + o * C * S + i0 : nullptr,
                                      lp + r0, out ? loss : row_loss.data() + r0);
        if (out)
          for (int64_t j = 0; j < w; ++j) out[r0 + j] = static_cast<T>(loss[j]);
      });
    } else {
    parallel_for(0, rows, row_grain(C), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const int64_t o = r / S, i = r % S;
        const T* xr = x + o * C * S + i;
        T log_sum;
        const T mx = max_log_sum(xr, S, C, &log_sum);
        lp[r] = static_cast<double>(mx) + static_cast<double>(log_sum);
        // -log_softmax of class c, as PyTorch's log_softmax rounds it.
        auto nlp = [&](int64_t c) { return log_sum - (xr[c * S] - mx); };
        double loss = 0;
        if (t) {
          const int64_t tc = t[r];
          if (tc != ignore_index) {
            const T a = wp ? wp[tc] : T(1);
            // nll_loss's term in the input dtype, then the smoothing term against the uniform distribution.
            loss = static_cast<double>(a * nlp(tc)) * (1.0 - s);
            if (s > 0) {
              std::optional<double> smooth;
              if (S == 1) smooth = weighted_row_avx512(xr, wp, static_cast<const T*>(nullptr), C, mx, log_sum, 1.0, 0.0);
              if (!smooth) {
                smooth = 0.0;
                for (int64_t c = 0; c < C; ++c) *smooth += static_cast<double>(wp ? wp[c] * nlp(c) : nlp(c));
              }
              loss += sc * *smooth;
            }
          }
        } else {
          const T* pr = p + o * C * S + i;
          std::optional<double> fast;
          if (S == 1) fast = weighted_row_avx512(xr, wp, pr, C, mx, log_sum, 1.0 - s, sc);
          if (fast) {
            loss = *fast;
          } else {
            for (int64_t c = 0; c < C; ++c) {
              const double q = static_cast<double>(pr[c * S]) * (1.0 - s) + sc;
              loss += (wp ? q * static_cast<double>(wp[c]) : q) * static_cast<double>(nlp(c));
            }
          }
        }
        if (out) out[r] = static_cast<T>(loss);
        else row_loss[static_cast<size_t>(r)] = loss;
      }
    });
    }
    if (out) return;
    double total = fixed_order_sum(rows, [&](int64_t r) { return row_loss[static_cast<size_t>(r)]; });
    if (reduction == kReductionMean) total /= mean_divisor(g, t, wp, ignore_index);
    output.data_ptr<T>()[0] = static_cast<T>(total);
  });
  return {output, lse};
}

Tensor cross_entropy_fused_backward_kernel(const Tensor& grad_output, const Tensor& self_, const Tensor& target_,
                                           const std::optional<Tensor>& weight, int64_t reduction,
                                           int64_t ignore_index, double label_smoothing, const Tensor& lse_) {
  const char* op = "_cross_entropy_fused_backward";
  const CrossEntropyGeometry g = cross_entropy_geometry(self_, target_, weight, reduction, label_smoothing, op);
  const ScalarType st = self_.dtype();
  TL_CHECK(lse_.sizes() == IntArrayRef(g.row_shape) && lse_.dtype() == ScalarType::Float64, op,
           ": expected lse of shape ", IntArrayRef(g.row_shape), " and dtype float64, got ", lse_.sizes(), " ",
           scalar_type_name(lse_.dtype()));
  if (reduction == kReductionNone) {
    TL_CHECK(grad_output.sizes() == IntArrayRef(g.row_shape), op, ": expected grad_output of shape ",
             IntArrayRef(g.row_shape), ", got ", grad_output.sizes());
  } else {
    TL_CHECK(grad_output.numel() == 1, op, ": expected a single element grad_output, got ", grad_output.sizes());
  }
  Tensor grad_input = empty(self_.sizes(), st, self_.device());
  if (self_.is_meta()) return grad_input;
  const Tensor self = contiguous(self_), target = contiguous(target_), lse = contiguous(lse_);
  const Tensor go = contiguous(cast_to(grad_output, st));
  const Tensor w = weight && weight->defined() ? contiguous(*weight) : Tensor();
  const int64_t rows = g.outer * g.inner, C = g.classes, S = g.inner;
  TL_CE_DISPATCH(st, [&] {
    using T = scalar_t;
    const T* x = self.data_ptr<T>();
    const T* wp = w.defined() ? w.data_ptr<T>() : nullptr;
    const int64_t* t = g.prob ? nullptr : target.data_ptr<int64_t>();
    const T* p = g.prob ? target.data_ptr<T>() : nullptr;
    if (t) check_targets(t, rows, C, ignore_index);
    const double* lp = lse.data_ptr<double>();
    const T* gp = go.data_ptr<T>();
    T* gi = grad_input.data_ptr<T>();
    const T s = static_cast<T>(label_smoothing), sc = C > 0 ? static_cast<T>(label_smoothing / C) : T(0);
    const T wsum = static_cast<T>(weight_sum(wp, C));
    // The mean's divisor, as nll_loss_backward divides the output gradient by total_weight.
    const T scale = reduction == kReductionMean ? static_cast<T>(1.0 / mean_divisor(g, t, wp, ignore_index)) : T(1);
    // A grad_input larger than the cache is written with non-temporal stores (no read of its lines first).
    const bool stream = S == 1 && 3 * grad_input.nbytes() > (size_t(24) << 20);
    if (few_classes_backward(g, x, gi, t, wp, ignore_index, label_smoothing, reduction == kReductionNone ? gp : nullptr,
                             scale, gp[0] * scale, lp))
      return;
    if (S > 1) {
      const CeColumnArgs<T> args{C, S, wp, ignore_index, label_smoothing};
      for_column_blocks(g, sizeof(T), [&](int64_t o, int64_t i0, int64_t w, int64_t) {
        T gv[kCeColumns];
        const int64_t r0 = o * S + i0;
        for (int64_t j = 0; j < w; ++j) gv[j] = (reduction == kReductionNone ? gp[r0 + j] : gp[0]) * scale;
        cross_entropy_columns_backward(args, x + o * C * S + i0, gi + o * C * S + i0, w, t ? t + r0 : nullptr,
                                       p ? p + o * C * S + i0 : nullptr, gv, lp + r0);
      });
      return;
    }
    // A thread's streamed rows are fenced once, after its last row (a fence per row stalls the next row's stores).
    parallel_for(0, rows, row_grain(C), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const int64_t o = r / S, i = r % S;
        const T* xr = x + o * C * S + i;
        T* gr = gi + o * C * S + i;
        const T gv = (reduction == kReductionNone ? gp[r] : gp[0]) * scale;
        T l = static_cast<T>(lp[r]), lo = static_cast<T>(lp[r] - static_cast<double>(l));
        // Beyond 2^23 the double lse = max + log_sum keeps log_sum to less than 2^-29 (at 1e30 none of it: equal
        // logits got exp(0) = 1 instead of 1 / C): such a row recomputes max and log_sum from x, as the forward did,
        // and exp((x - max) - log_sum) is log_softmax's own rounding. (A NaN lse keeps the plain path: NaN either way.)
        if (__builtin_expect(std::abs(lp[r]) > 8388608.0, 0)) l = max_log_sum(xr, S, C, &lo);
        if (t) {
          const int64_t tc = t[r];
          if (tc == ignore_index) {
            for (int64_t c = 0; c < C; ++c) gr[c * S] = T(0);
            continue;
          }
          const T a = wp ? wp[tc] : T(1);
          const T A = gv * ((1 - s) * a + sc * wsum), B = gv * sc, at = gv * (1 - s) * a;
          if (S == 1 && backward_row_avx512(xr, gr, C, l, lo, A, B, s > 0 ? wp : nullptr, tc, at, stream)) continue;
          for (int64_t c = 0; c < C; ++c) gr[c * S] = A * std::exp((xr[c * S] - l) - lo) - B * (wp ? wp[c] : T(1));
          gr[tc * S] -= at;
        } else {
          const T* pr = p + o * C * S + i;
          if (S == 1 && prob_backward_row_avx512(xr, pr, wp, gr, C, l, lo, gv, 1 - s, sc, stream)) continue;
          T Q = 0;
          for (int64_t c = 0; c < C; ++c) Q += (wp ? wp[c] : T(1)) * ((1 - s) * pr[c * S] + sc);
          for (int64_t c = 0; c < C; ++c)
            gr[c * S] = gv * (Q * std::exp((xr[c * S] - l) - lo) - (wp ? wp[c] : T(1)) * ((1 - s) * pr[c * S] + sc));
        }
      }
      if (stream) stream_fence();
    });
  });
  return grad_input;
}

std::pair<Tensor, Tensor> cross_entropy_gradient_coefficients(const Tensor& self_, const Tensor& target_,
                                                              const std::optional<Tensor>& weight, int64_t reduction,
                                                              int64_t ignore_index, double label_smoothing) {
  const char* op = "_cross_entropy_fused_differentiable_backward";
  const CrossEntropyGeometry g = cross_entropy_geometry(self_, target_, weight, reduction, label_smoothing, op);
  const ScalarType st = self_.dtype();
  DimVector q_row_shape(self_.sizes());
  q_row_shape[self_.dim() == 1 ? 0 : 1] = 1;
  Tensor q = empty(self_.sizes(), st, self_.device()), Q = empty(q_row_shape, st, self_.device());
  const Tensor target = contiguous(target_);
  const Tensor w = weight && weight->defined() ? contiguous(*weight) : Tensor();
  const int64_t rows = g.outer * g.inner, C = g.classes, S = g.inner;
  TL_CE_DISPATCH(st, [&] {
    using T = scalar_t;
    const T* wp = w.defined() ? w.data_ptr<T>() : nullptr;
    const int64_t* t = g.prob ? nullptr : target.data_ptr<int64_t>();
    const T* p = g.prob ? target.data_ptr<T>() : nullptr;
    if (t) check_targets(t, rows, C, ignore_index);
    const T s = static_cast<T>(label_smoothing), sc = C > 0 ? static_cast<T>(label_smoothing / C) : T(0);
    const T scale = reduction == kReductionMean ? static_cast<T>(1.0 / mean_divisor(g, t, wp, ignore_index)) : T(1);
    T* qp = q.data_ptr<T>();
    T* Qp = Q.data_ptr<T>();
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t o = r / S, i = r % S;
      T* qr = qp + o * C * S + i;
      T sum = 0;
      if (t && t[r] == ignore_index) {
        for (int64_t c = 0; c < C; ++c) qr[c * S] = T(0);
      } else {
        for (int64_t c = 0; c < C; ++c) {
          const T wc = wp ? wp[c] : T(1);
          const T v = t ? wc * (sc + (c == t[r] ? 1 - s : T(0))) : wc * ((1 - s) * p[o * C * S + i + c * S] + sc);
          qr[c * S] = v * scale;
          sum += v;
        }
      }
      Qp[r] = sum * scale;
    }
  });
  return {q, Q};
}

}  // namespace tl::native
