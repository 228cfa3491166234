// softmax, log_softmax and their backward kernels, on the dim engine (aten/native/DimEngine.h).
//
// The engine hands every kernel contiguous slices (copying strided ones through a scratch
// buffer), so the per-slice loops below vectorize (exp_float_lanes/exp_f64, compiled per ISA) for
// the last dim and for dim 0 alike. 16-bit floats compute in float and round once.
// GCC (12) left the exp loops below scalar on AVX2 (the x86-64-v3 clones): jump threading gave the exp's clamp
// branches (ExpFloatLanes.h) paths of constant x, whose folded 2^k products over- or underflow, so under the default
// -ftrapping-math the branches could not become selects ("control flow in loop"; the AVX-512 clones vectorized with
// masks). No code here reads the floating-point exception flags; the results are bit for bit the same (softmax
// 4096x1024 on AVX2: 17.5 -> 4.9 ms on one thread).
#pragma GCC optimize("no-trapping-math")
#include <cmath>
#include <limits>

#include "aten/native/DimEngine.h"
#include "aten/native/cpu/ExpFloatLanes.h"
#include "aten/native/cpu/SoftmaxBackwardRowsAvx2.h"
#include "aten/native/cpu/SoftmaxRowsAvx512.h"
#include "aten/native/cpu/SoftmaxRowsVec.h"
#include "aten/native/cpu/StreamStore.h"  // stream_fence
#include "aten/native/cpu/Vectorize.h"
#include "generated/ops/_log_softmax_backward_data.h"
#include "generated/ops/_softmax_backward_data.h"
#include "generated/ops/log_softmax.h"
#include "generated/ops/softmax.h"

namespace tl::native {

namespace {

template <typename T>
constexpr bool is_reduced_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <typename T>
TL_ALWAYS_INLINE T vexp(T x) {
  if constexpr (std::is_same_v<T, double>) return vec::exp_f64(x);
  else return vec::exp_float_lanes(x);  // ExpFloatLanes.h: float lanes, as PyTorch's softmax
}

template <typename T>
TL_ALWAYS_INLINE opmath_t<T> ld(const T* p, int64_t i) { return static_cast<opmath_t<T>>(p[i]); }

// Sums and maxima over a slice keep kLanes independent accumulators, so the loops vectorize
// without reassociating float additions behind the compiler's back (no -ffast-math). The
// elementwise loops carry `omp simd` (as Loops.h does): y is never a shifted view of x, only x
// itself at worst, element for element, which vector code handles.
constexpr int64_t kLanes = 16;

template <typename acc_t, typename F>
TL_ALWAYS_INLINE acc_t lane_sum(int64_t n, const F& f) {
  acc_t acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t j = 0; j < kLanes; ++j) acc[j] += f(i + j);
  acc_t tail = 0;
  for (; i < n; ++i) tail += f(i);
  for (int64_t w = kLanes / 2; w >= 1; w /= 2)
    for (int64_t j = 0; j < w; ++j) acc[j] += acc[j + w];
  return acc[0] + tail;
}

// The largest value, ignoring NaN (a NaN then makes every exp NaN, so the slice's result is NaN
// as in PyTorch). `v > m ? v : m` is exactly the max instruction, so this vectorizes.
template <typename T>
TL_ALWAYS_INLINE opmath_t<T> slice_max(const T* x, int64_t n) {
  using acc_t = opmath_t<T>;
  acc_t acc[kLanes];
  for (int64_t j = 0; j < kLanes; ++j) acc[j] = -std::numeric_limits<acc_t>::infinity();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t j = 0; j < kLanes; ++j) {
      const acc_t v = ld(x, i + j);
      acc[j] = v > acc[j] ? v : acc[j];
    }
  for (; i < n; ++i) {
    const acc_t v = ld(x, i);
    acc[0] = v > acc[0] ? v : acc[0];
  }
  acc_t m = acc[0];
  for (int64_t j = 1; j < kLanes; ++j) m = acc[j] > m ? acc[j] : m;
  return m;
}

// One contiguous slice: y = softmax(x) or log_softmax(x). A slice of -inf, or one holding +inf
// or NaN, gives NaN (inf - inf), as in PyTorch.
template <typename T, bool Log>
TL_TARGET_CLONES void softmax_slice(const T* x, T* y, int64_t n) {
  using acc_t = opmath_t<T>;
  if (n == 0) return;
  const acc_t mx = slice_max(x, n);
  if constexpr (!Log && !is_reduced_v<T>) {
    // Keep exp(x - max) in y while summing it (kLanes accumulators, so the store-and-accumulate
    // loop vectorizes), then scale: one exp per element.
    acc_t acc[kLanes] = {};
    int64_t i0 = 0;
    for (; i0 + kLanes <= n; i0 += kLanes) {
#pragma omp simd
      for (int64_t j = 0; j < kLanes; ++j) {
        const acc_t e = vexp<acc_t>(ld(x, i0 + j) - mx);
        y[i0 + j] = static_cast<T>(e);
        acc[j] += e;
      }
    }
    acc_t tail = 0;
    for (; i0 < n; ++i0) {
      const acc_t e = vexp<acc_t>(ld(x, i0) - mx);
      y[i0] = static_cast<T>(e);
      tail += e;
    }
    for (int64_t w = kLanes / 2; w >= 1; w /= 2)
      for (int64_t j = 0; j < w; ++j) acc[j] += acc[j + w];
    const acc_t sum = acc[0] + tail;
    const acc_t inv = acc_t(1) / sum;
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(static_cast<acc_t>(y[i]) * inv);
  } else {
    const acc_t sum = lane_sum<acc_t>(n, [&](int64_t i) { return vexp<acc_t>(ld(x, i) - mx); });
    if constexpr (Log) {
      const acc_t log_sum = std::log(sum);  // (x - max) - log_sum keeps precision for huge x
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>((ld(x, i) - mx) - log_sum);
    } else {
      const acc_t inv = acc_t(1) / sum;
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(vexp<acc_t>(ld(x, i) - mx) * inv);
    }
  }
}

// Softmax over a dim that is not the last, of contiguous x: a chunk of up to kColsMax neighbouring columns is
// processed row by row, each column with its own max and sum, so the loops run across columns and vectorize. Every
// column's arithmetic is the same whatever the chunk (no lane crosses columns), so results do not depend on it.
// Chunks are as wide as the rows (up to 4 KiB of floats), so that each pass reads memory in long sequential runs:
// 16-column chunks (one cache line per row, 4 KiB apart for 4096x1024 over dim 0) left the prefetchers idle and
// the lines in a handful of cache sets, and softmax 4096x1024 over dim 0 took 0.8-0.95x PyTorch's time (AVX2, one
// thread) where whole rows take ~0.3x (h/smx11g). They are narrowed (to no less than kCols) only to give every
// thread a chunk.
constexpr int64_t kCols = 16, kColsMax = 1024;

inline int64_t col_chunk(int64_t inner, int64_t outer) {
  int64_t nb = (inner + kColsMax - 1) / kColsMax;
  const int64_t threads = get_num_threads();
  if (outer * nb < threads) nb = std::min((threads + outer - 1) / outer, inner / kCols);
  const int64_t w = (inner + nb - 1) / nb;
  return std::min(kColsMax, (w + kCols - 1) / kCols * kCols);  // chunks start on 64-byte steps
}

template <typename T, bool Log>
TL_TARGET_CLONES void softmax_cols(const T* x, T* y, int64_t n, int64_t inner, int64_t w) {
  using acc_t = opmath_t<T>;
  acc_t mx[kColsMax], sum[kColsMax];
  for (int64_t j = 0; j < w; ++j) mx[j] = -std::numeric_limits<acc_t>::infinity(), sum[j] = 0;
  for (int64_t i = 0; i < n; ++i) {
    const T* xr = x + i * inner;
#pragma omp simd
    for (int64_t j = 0; j < w; ++j) {
      const acc_t v = ld(xr, j);
      mx[j] = v > mx[j] ? v : mx[j];
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    const T* xr = x + i * inner;
    T* yr = y + i * inner;
#pragma omp simd
    for (int64_t j = 0; j < w; ++j) {
      const acc_t e = vexp<acc_t>(ld(xr, j) - mx[j]);
      if constexpr (!Log) yr[j] = static_cast<T>(e);
      sum[j] += e;
    }
  }
  acc_t f[kColsMax];
  for (int64_t j = 0; j < w; ++j) f[j] = Log ? std::log(sum[j]) : acc_t(1) / sum[j];
  for (int64_t i = 0; i < n; ++i) {
    const T* xr = x + i * inner;
    T* yr = y + i * inner;
#pragma omp simd
    for (int64_t j = 0; j < w; ++j) {
      if constexpr (Log) yr[j] = static_cast<T>((ld(xr, j) - mx[j]) - f[j]);
      else if constexpr (is_reduced_v<T>) yr[j] = static_cast<T>(vexp<acc_t>(ld(xr, j) - mx[j]) * f[j]);
      else yr[j] = static_cast<T>(static_cast<acc_t>(yr[j]) * f[j]);
    }
  }
}

// The backward over a dim that is not the last, of contiguous operands: as softmax_cols, a chunk of neighbouring
// columns (col_chunk) row by row, each column with its own sum, so the loops run across columns. (The dim engine's
// path copies 16 strided slices at a time through its buffer and back, 2-5x PyTorch's time.)
template <typename T, bool Log>
TL_TARGET_CLONES void softmax_backward_cols(const T* g, const T* y, T* gi, int64_t n, int64_t inner, int64_t w) {
  using acc_t = opmath_t<T>;
  acc_t sum[kColsMax];
  for (int64_t j = 0; j < w; ++j) sum[j] = 0;
  for (int64_t i = 0; i < n; ++i) {
    const T* gr = g + i * inner;
    const T* yr = y + i * inner;
#pragma omp simd
    for (int64_t j = 0; j < w; ++j) {
      if constexpr (Log) sum[j] += ld(gr, j);
      else sum[j] += ld(gr, j) * ld(yr, j);
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    const T* gr = g + i * inner;
    const T* yr = y + i * inner;
    T* gir = gi + i * inner;
#pragma omp simd
    for (int64_t j = 0; j < w; ++j) {
      if constexpr (Log) gir[j] = static_cast<T>(ld(gr, j) - vexp<acc_t>(ld(yr, j)) * sum[j]);
      else gir[j] = static_cast<T>(ld(yr, j) * (ld(gr, j) - sum[j]));
    }
  }
}

// gI = y * (g - sum(g * y))   (softmax)   or   gI = g - exp(y) * sum(g)   (log_softmax).
template <typename T, bool Log>
TL_TARGET_CLONES void softmax_backward_slice(const T* g, const T* y, T* gi, int64_t n) {
  using acc_t = opmath_t<T>;
  if constexpr (Log) {
    const acc_t sum = lane_sum<acc_t>(n, [&](int64_t i) { return ld(g, i); });
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) gi[i] = static_cast<T>(ld(g, i) - vexp<acc_t>(ld(y, i)) * sum);
  } else {
    const acc_t sum = lane_sum<acc_t>(n, [&](int64_t i) { return ld(g, i) * ld(y, i); });
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) gi[i] = static_cast<T>(ld(y, i) * (ld(g, i) - sum));
  }
}

// Rows [0, rows) of n elements split over threads as the dim engine splits slices, each thread's rows as one
// block [b, e); a thread that streamed its rows' output fences once after its block.
template <typename F>
void for_row_blocks(int64_t rows, int64_t n, int64_t cost_per_element, bool stream, const F& block) {
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n * cost_per_element)),
               [&](int64_t b, int64_t e) {
                 block(b, e);
                 if (stream) stream_fence();
               });
}

template <typename F>
void for_rows(int64_t rows, int64_t n, int64_t cost_per_element, bool stream, const F& row) {
  for_row_blocks(rows, n, cost_per_element, stream, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) row(r);
  });
}

template <bool Log>
void softmax_impl(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, Tensor& out, const char* op) {
  maybe_wrap_dim(dim, self.dim(), op);
  const ScalarType st = dtype.value_or(self.dtype());
  // As in PyTorch, an empty input never reaches the typed loop, so any dtype passes.
  TL_CHECK_AS(NotImplementedError, is_floating_type(st) || self.numel() == 0, op, ": not implemented for '",
              scalar_type_name(st), "'");
  prepare_output(out, self.sizes(), st, self, OutDtype::Exact, op);
  if (self.is_meta()) return;
  const Tensor in = cast_to(self, st);
  if (self.numel() == 0) return;
  const int64_t d = self.dim() == 0 ? 0 : maybe_wrap_dim(dim, self.dim(), op);
  int64_t inner = 1;
  for (int64_t i = d + 1; i < self.dim(); ++i) inner *= self.sizes()[i];
  if (inner >= kCols && in.is_contiguous() && out.is_contiguous() && !(out.storage() == in.storage())) {
    const int64_t n = self.sizes()[d], outer = self.numel() / (n * inner);
    const int64_t cw = col_chunk(inner, outer), nblocks = (inner + cw - 1) / cw;
    TL_DISPATCH_FLOAT(st, op, [&] {
      const scalar_t* x = in.data_ptr<scalar_t>();
      scalar_t* y = out.data_ptr<scalar_t>();
      parallel_for(0, outer * nblocks, std::max<int64_t>(1, kGrainSize / (8 * n * cw)), [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) {
          const int64_t off = (t / nblocks) * n * inner + (t % nblocks) * cw;
          softmax_cols<scalar_t, Log>(x + off, y + off, n, inner, std::min(cw, inner - (t % nblocks) * cw));
        }
      });
    });
    return;
  }
  // float32 rows of a contiguous input and output (the last dim) on an AVX-512 CPU: the intrinsics rows (log_softmax
  // a thread's whole block of rows in one call, which takes the next row's max during a row's exps). y is written
  // with ordinary stores: streaming it (non-temporal stores, a third less traffic for 4096x1024) measured no faster
  // on one thread (the rows are compute bound; h/softmax11e: softmax +2%, log_softmax +4% with numpy's inputs) nor
  // on two (softmax 0.76 against 0.73 ms, log_softmax 0.78 against 0.75, fastest of 400 rounds), and ordinary
  // stores leave part of y in the L3 for its reader.
  if (st == ScalarType::Float32 && inner == 1 && softmax_rows_avx512() && in.is_contiguous() && out.is_contiguous()) {
    const int64_t n = self.dim() == 0 ? 1 : self.sizes()[d];
    const float* x = in.data_ptr<float>();
    float* y = out.data_ptr<float>();
    for_row_blocks(self.numel() / n, n, 8, false, [&](int64_t b, int64_t e) {
      if constexpr (Log) log_softmax_rows_f32_avx512(x + b * n, y + b * n, e - b, n);
      else
        for (int64_t r = b; r < e; ++r) softmax_row_f32_avx512(x + r * n, y + r * n, n);
    });
    return;
  }
  // The same rows on other CPUs, in GCC vector types (SoftmaxRowsVec.h; AVX2: 4096x1024 0.5x PyTorch's time where
  // the slice loops below took 0.85x). TORCHLITE_SOFTMAX_ISA=generic turns them off with the AVX-512 rows, so that the
  // tests reach the slice loops.
  if (st == ScalarType::Float32 && inner == 1 && softmax_rows_vec() && in.is_contiguous() && out.is_contiguous()) {
    const int64_t n = self.dim() == 0 ? 1 : self.sizes()[d];
    const float* x = in.data_ptr<float>();
    float* y = out.data_ptr<float>();
    for_row_blocks(self.numel() / n, n, 8, false, [&](int64_t b, int64_t e) {
      if constexpr (Log) log_softmax_rows_f32_vec(x + b * n, y + b * n, e - b, n);
      else softmax_rows_f32_vec(x + b * n, y + b * n, e - b, n);
    });
    return;
  }
  const bool avx512 = softmax_rows_avx512();
  TL_DISPATCH_FLOAT(st, op, [&] {
    dim_apply({out}, {in}, dim, {/*contiguous=*/true, /*cost_per_element=*/8}, [&](const DimSlice* s) {
      if constexpr (std::is_same_v<scalar_t, float>) {
        if (avx512) {  // a strided slice, copied through the engine's buffer
          if constexpr (Log) log_softmax_row_f32_avx512(s[1].as<float>(), s[0].as<float>(), s[1].size);
          else softmax_row_f32_avx512(s[1].as<float>(), s[0].as<float>(), s[1].size);
          return;
        }
      }
      softmax_slice<scalar_t, Log>(s[1].as<scalar_t>(), s[0].as<scalar_t>(), s[1].size);
    });
  });
}

template <bool Log>
void softmax_backward_impl(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype,
                           Tensor& out, const char* op) {
  maybe_wrap_dim(dim, grad_output.dim(), op);
  TL_CHECK(grad_output.sizes() == output.sizes(), op, ": grad_output and output must have the same shape, got ",
           grad_output.sizes(), " and ", output.sizes());
  const ScalarType st = grad_output.dtype();
  // PyTorch's CPU rule: the result has grad_output's dtype (the autograd engine casts it to the
  // input's), except that float grads of a half input give half, which its CPU loop then rejects.
  const ScalarType result_dtype =
      st == ScalarType::Float32 && input_dtype == ScalarType::Float16 ? ScalarType::Float16 : st;
  const bool empty = grad_output.numel() == 0;  // never reaches the typed loop: any dtype passes
  TL_CHECK_AS(NotImplementedError, is_floating_type(st) || empty, op, ": not implemented for '",
              scalar_type_name(st), "'");
  TL_CHECK(result_dtype == st || empty, op, ": expected scalar type ", scalar_type_name(st), " but found ",
           scalar_type_name(result_dtype));
  prepare_output(out, grad_output.sizes(), result_dtype, grad_output, OutDtype::Exact, op);
  if (grad_output.is_meta() || empty) return;
  const Tensor y = cast_to(output, st);
  // float32 rows of contiguous operands (the last dim) on an AVX-512 CPU: the intrinsics rows, gI streamed once
  // it and its two inputs (3x its size) overflow a 32 MiB L3: gI is then read back from memory anyway (by
  // whatever consumes it) and streaming skips reading its lines first.
  const int64_t d = grad_output.dim() == 0 ? 0 : maybe_wrap_dim(dim, grad_output.dim(), op);
  int64_t inner = 1;
  for (int64_t i = d + 1; i < grad_output.dim(); ++i) inner *= grad_output.sizes()[i];
  if (st == ScalarType::Float32 && inner == 1 && softmax_rows_avx512() && grad_output.is_contiguous() &&
      y.is_contiguous() && out.is_contiguous()) {
    const int64_t n = grad_output.dim() == 0 ? 1 : grad_output.sizes()[d];
    const bool stream = 3 * out.nbytes() > (size_t(24) << 20);
    const float* g = grad_output.data_ptr<float>();
    const float* yp = y.data_ptr<float>();
    float* gi = out.data_ptr<float>();
    for_rows(grad_output.numel() / n, n, 4, stream, [&](int64_t r) {
      if constexpr (Log) log_softmax_backward_row_f32_avx512(g + r * n, yp + r * n, gi + r * n, n, stream);
      else softmax_backward_row_f32_avx512(g + r * n, yp + r * n, gi + r * n, n, stream);
    });
    return;
  }
  // The same rows on AVX2 CPUs (SoftmaxBackwardRowsAvx2.h), gI streamed under the same rule: the slice loops below
  // do the same arithmetic but store gI with ordinary stores, 64 MB of traffic for 4096x1024 against 48 MB.
  if (st == ScalarType::Float32 && inner == 1 && softmax_backward_rows_avx2() && grad_output.is_contiguous() &&
      y.is_contiguous() && out.is_contiguous()) {
    const int64_t n = grad_output.dim() == 0 ? 1 : grad_output.sizes()[d];
    const bool stream = 3 * out.nbytes() > (size_t(24) << 20);
    const float* g = grad_output.data_ptr<float>();
    const float* yp = y.data_ptr<float>();
    float* gi = out.data_ptr<float>();
    for_row_blocks(grad_output.numel() / n, n, 4, stream, [&](int64_t b, int64_t e) {
      if constexpr (Log) log_softmax_backward_rows_f32_avx2(g + b * n, yp + b * n, gi + b * n, e - b, n, stream);
      else softmax_backward_rows_f32_avx2(g + b * n, yp + b * n, gi + b * n, e - b, n, stream);
    });
    return;
  }
  if (inner >= kCols && grad_output.is_contiguous() && y.is_contiguous() && out.is_contiguous()) {
    const int64_t n = grad_output.sizes()[d], outer = grad_output.numel() / (n * inner);
    const int64_t cw = col_chunk(inner, outer), nblocks = (inner + cw - 1) / cw;
    TL_DISPATCH_FLOAT(st, op, [&] {
      const scalar_t* g = grad_output.data_ptr<scalar_t>();
      const scalar_t* yp = y.data_ptr<scalar_t>();
      scalar_t* gi = out.data_ptr<scalar_t>();
      parallel_for(0, outer * nblocks, std::max<int64_t>(1, kGrainSize / (4 * n * cw)), [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t) {
          const int64_t off = (t / nblocks) * n * inner + (t % nblocks) * cw;
          softmax_backward_cols<scalar_t, Log>(g + off, yp + off, gi + off, n, inner,
                                               std::min(cw, inner - (t % nblocks) * cw));
        }
      });
    });
    return;
  }
  const bool avx512 = softmax_rows_avx512();
  TL_DISPATCH_FLOAT(st, op, [&] {
    dim_apply({out}, {grad_output, y}, dim, {true, 4}, [&](const DimSlice* s) {
      if constexpr (std::is_same_v<scalar_t, float>) {
        if (avx512) {  // a strided slice, copied through the engine's buffer
          if constexpr (Log)
            log_softmax_backward_row_f32_avx512(s[1].as<float>(), s[2].as<float>(), s[0].as<float>(), s[0].size, false);
          else softmax_backward_row_f32_avx512(s[1].as<float>(), s[2].as<float>(), s[0].as<float>(), s[0].size, false);
          return;
        }
      }
      softmax_backward_slice<scalar_t, Log>(s[1].as<scalar_t>(), s[2].as<scalar_t>(), s[0].as<scalar_t>(), s[0].size);
    });
  });
}

}  // namespace

void softmax_kernel(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, Tensor& out) {
  softmax_impl<false>(self, dim, dtype, out, "softmax");
}

void log_softmax_kernel(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, Tensor& out) {
  softmax_impl<true>(self, dim, dtype, out, "log_softmax");
}

Tensor softmax_backward_data_kernel(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                    ScalarType input_dtype) {
  Tensor out;
  softmax_backward_impl<false>(grad_output, output, dim, input_dtype, out, "_softmax_backward_data");
  return out;
}

Tensor log_softmax_backward_data_kernel(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                        ScalarType input_dtype) {
  Tensor out;
  softmax_backward_impl<true>(grad_output, output, dim, input_dtype, out, "_log_softmax_backward_data");
  return out;
}

}  // namespace tl::native
