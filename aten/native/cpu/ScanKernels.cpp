// Scans along one dimension (cumsum, cumprod, logcumsumexp, cummax, cummin) and flip, on the
// dim engine (aten/native/DimEngine.h): each kernel is its per-slice loop.
//
// Accumulation follows PyTorch's CPU kernels: float32 sums and products accumulate in double,
// 16-bit floats in float, integers in int64 (wrapping), so results match to the last bit in
// most cases.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <vector>

#include "aten/native/DimEngine.h"
#include "aten/native/TensorIterator.h"  // is_non_overlapping_and_dense
#include "aten/native/cpu/ComplexMath.h"
#include "aten/native/cpu/CumsumBlocked.h"
#include "aten/native/cpu/Loops.h"  // wrapping_add, wrapping_mul
#include "generated/ops/cummax.h"
#include "generated/ops/cummin.h"
#include "generated/ops/cumprod.h"
#include "generated/ops/cumsum.h"
#include "generated/ops/flip.h"
#include "generated/ops/logcumsumexp.h"

namespace tl::native {

namespace {

template <typename T>
using scan_acc_t = std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, double>, double,
                                      std::conditional_t<std::is_floating_point_v<opmath_t<T>>, float, int64_t>>;

// The dtype cumsum/cumprod compute and return: `dtype`, else out's (out= and in-place), else
// int64 for integer and bool inputs, else the input's.
ScalarType cum_result_dtype(const Tensor& self, std::optional<ScalarType> dtype, const Tensor& out, const char* op) {
  if (out.defined() && out.is_same(self)) {
    TL_CHECK(!dtype || *dtype == self.dtype(), op, ": Bad in-place call: input tensor dtype ",
             cpp_type_name(self.dtype()), " and output tensor dtype ", cpp_type_name(*dtype), " should match");
    return self.dtype();
  }
  if (out.defined()) {
    TL_CHECK(!dtype || *dtype == out.dtype(), op, ": Expected out tensor to have dtype ",
             cpp_type_name(*dtype), ", but got ", cpp_type_name(out.dtype()), " instead");
    return out.dtype();
  }
  if (dtype) return *dtype;
  return is_integral_type(self.dtype(), /*include_bool=*/true) ? ScalarType::Int64 : self.dtype();
}

// Scan of contiguous x into contiguous y along a dim that is not the last: rows of `inner`
// elements are folded into a row of accumulators, so the loop runs across columns and
// vectorizes (a per-slice walk would step down one column at a time). Each column is still
// accumulated in order, so results equal the per-slice loop's.
template <typename scalar_t, typename acc_t, typename Step>
void cum_rows(const scalar_t* x, scalar_t* y, int64_t outer, int64_t n, int64_t inner, acc_t init, Step step) {
  constexpr int64_t kBlock = 256;  // columns per task: the accumulators stay in L1
  const int64_t nblocks = (inner + kBlock - 1) / kBlock;
  parallel_for(0, outer * nblocks, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n * kBlock)),
               [&](int64_t b, int64_t e) {
                 acc_t acc[kBlock];
                 for (int64_t t = b; t < e; ++t) {
                   const int64_t o = t / nblocks, j0 = (t % nblocks) * kBlock;
                   const int64_t w = std::min(kBlock, inner - j0);
                   const int64_t base = o * n * inner + j0;
                   for (int64_t j = 0; j < w; ++j) acc[j] = init;
                   for (int64_t i = 0; i < n; ++i) {
                     const scalar_t* xr = x + base + i * inner;
                     scalar_t* yr = y + base + i * inner;
                     for (int64_t j = 0; j < w; ++j) {
                       acc[j] = step(acc[j], static_cast<acc_t>(xr[j]));
                       yr[j] = static_cast<scalar_t>(acc[j]);
                     }
                   }
                 }
               });
}

// cumsum / cumprod of complex elements, accumulated in complex<double> as PyTorch's CPU scans do
// (its acc_type of complex<float> is complex<double>); the product is the schoolbook formula.
template <bool is_sum>
void complex_scan(const Tensor& in, Tensor& out, int64_t dim, const char* op) {
  TL_DISPATCH_COMPLEX(out.dtype(), op, [&] {
    using acc_t = std::complex<double>;
    dim_apply({out}, {in}, dim, {}, [&](const DimSlice* s) {
      scalar_t* y = s[0].as<scalar_t>();
      const scalar_t* x = s[1].as<scalar_t>();
      acc_t acc = is_sum ? acc_t(0, 0) : acc_t(1, 0);
      for (int64_t i = 0; i < s[1].size; ++i) {
        const scalar_t v = x[i * s[1].stride];
        const acc_t a(v.real(), v.imag());
        acc = is_sum ? acc + a : cmath::mul(acc, a);
        y[i * s[0].stride] = scalar_t(static_cast<typename scalar_t::value_type>(acc.real()),
                                      static_cast<typename scalar_t::value_type>(acc.imag()));
      }
    });
  });
}

// Shared body of cumsum and cumprod: `step(acc, x)` folds one element into the accumulator.
// `is_sum`: cumsum, whose long float32 slices take the blocked scan (CumsumBlocked.h).
template <bool is_sum = false, typename Step>
void cum_op(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, Tensor& out, const char* op,
            double init, Step step) {
  maybe_wrap_dim(dim, self.dim(), op);
  const ScalarType st = cum_result_dtype(self, dtype, out, op);
  if (out.defined() && out.is_same(self)) check_no_internal_overlap(out, op);
  prepare_output(out, self.sizes(), st, self, OutDtype::Any, op);
  // PyTorch's scan loops have no bool instance; 0-d and empty inputs never reach them.
  TL_CHECK_AS(NotImplementedError, st != ScalarType::Bool || self.dim() == 0 || self.numel() == 0, op,
              ": not implemented for 'Bool'");
  if (self.is_meta()) return;
  const Tensor in = cast_to(self, st);
  const int64_t d = self.dim() == 0 ? 0 : maybe_wrap_dim(dim, self.dim(), op);
  int64_t inner = 1;
  for (int64_t i = d + 1; i < self.dim(); ++i) inner *= self.sizes()[i];
  const bool rows = inner >= 16 && in.is_contiguous() && out.is_contiguous();
  if (is_complex_type(st)) return complex_scan<is_sum>(in, out, dim, op);
  TL_DISPATCH_ALL(st, op, [&] {
    using acc_t = scan_acc_t<scalar_t>;
    if (rows) {
      const int64_t n = self.sizes()[d];
      cum_rows(in.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), self.numel() / std::max<int64_t>(1, n * inner), n,
               inner, static_cast<acc_t>(init), step);
      return;
    }
    dim_apply({out}, {in}, dim, {}, [&](const DimSlice* s) {
      scalar_t* y = s[0].as<scalar_t>();
      const scalar_t* x = s[1].as<scalar_t>();
      if constexpr (is_sum && std::is_same_v<scalar_t, float>) {
        if (s[0].stride == 1 && s[1].stride == 1 && s[1].size >= kCumsumBlockedMin)
          // (the casts only name the types: this branch runs for float alone)
          return cumsum_blocked(reinterpret_cast<const float*>(x), reinterpret_cast<float*>(y), s[1].size);
      }
      acc_t acc = static_cast<acc_t>(init);
      for (int64_t i = 0; i < s[1].size; ++i) {
        acc = step(acc, static_cast<acc_t>(x[i * s[1].stride]));
        y[i * s[0].stride] = static_cast<scalar_t>(acc);
      }
    });
  });
}

// log(exp(a) + exp(b)) without overflow; infinities of the same sign give themselves.
template <typename T>
inline T log_add_exp(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  const T hi = std::max(a, b), lo = std::min(a, b);
  if (std::isinf(lo) && lo == hi) return hi;  // both -inf, or both +inf
  return hi + std::log1p(std::exp(lo - hi));
}

// cummax / cummin: the running extreme and the index where it was last reached. A NaN wins over
// everything and is kept (later NaNs move the index), as in PyTorch.
template <bool Max>
void cum_extreme(const Tensor& self, int64_t dim, Tensor& values, Tensor& indices, const char* op) {
  check_out_pair(values, indices, op);
  // PyTorch checks out's index dtype before the dim.
  TL_CHECK(!indices.defined() || indices.dtype() == ScalarType::Int64, op, ": expected scalar_type Long but found ",
           scalar_type_name(indices.dtype()));
  maybe_wrap_dim(dim, self.dim(), op);
  prepare_output(values, self.sizes(), self.dtype(), self, OutDtype::Exact, op);
  prepare_output(indices, self.sizes(), ScalarType::Int64, self, OutDtype::Exact, op);
  if (self.is_meta()) return;
  TL_DISPATCH_ALL(self.dtype(), op, [&] {
    dim_apply({values, indices}, {self}, dim, {}, [&](const DimSlice* s) {
      scalar_t* v = s[0].as<scalar_t>();
      int64_t* ix = s[1].as<int64_t>();
      const scalar_t* x = s[2].as<scalar_t>();
      const int64_t n = s[2].size;
      if (n == 0) return;
      auto best = static_cast<opmath_t<scalar_t>>(x[0]);
      int64_t at = 0;
      for (int64_t i = 0; i < n; ++i) {
        const auto cur = static_cast<opmath_t<scalar_t>>(x[i * s[2].stride]);
        bool take;
        if constexpr (std::is_floating_point_v<opmath_t<scalar_t>>)
          take = std::isnan(cur) || (!std::isnan(best) && (Max ? cur >= best : cur <= best));
        else
          take = Max ? cur >= best : cur <= best;
        if (take) {
          best = cur;
          at = i;
        }
        v[i * s[0].stride] = static_cast<scalar_t>(best);
        ix[i * s[1].stride] = at;
      }
    });
  });
}

}  // namespace

void cumsum_kernel(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, Tensor& out) {
  // Integers wrap on overflow as in PyTorch (two's complement, without C++'s signed-overflow UB).
  cum_op<true>(self, dim, dtype, out, "cumsum", 0.0, [](auto acc, auto x) { return wrapping_add(acc, x); });
}

void cumprod_kernel(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, Tensor& out) {
  cum_op(self, dim, dtype, out, "cumprod", 1.0, [](auto acc, auto x) { return wrapping_mul(acc, x); });
}

void logcumsumexp_kernel(const Tensor& self, int64_t dim, Tensor& out) {
  const char* op = "logcumsumexp";
  maybe_wrap_dim(dim, self.dim(), op);
  TL_CHECK_AS(NotImplementedError,
              is_floating_type(self.dtype()) || (is_complex_type(self.dtype()) && self.dtype() != ScalarType::Complex32),
              op, ": not implemented for dtype ", scalar_type_name(self.dtype()));
  prepare_output(out, self.sizes(), self.dtype(), self, OutDtype::Exact, op);  // PyTorch: same dtype only
  if (self.is_meta()) return;
  const Tensor& in = self;
  if (is_complex_type(self.dtype())) {
    // Accumulated in complex<double> from -inf + 0i, each element folded in by PyTorch's complex
    // log-add-exp helper (element first: it decides which NaN propagates).
    TL_DISPATCH_COMPLEX(out.dtype(), op, [&] {
      dim_apply({out}, {in}, dim, {}, [&](const DimSlice* s) {
        scalar_t* y = s[0].as<scalar_t>();
        const scalar_t* x = s[1].as<scalar_t>();
        std::complex<double> acc(-std::numeric_limits<double>::infinity(), 0.0);
        for (int64_t i = 0; i < s[1].size; ++i) {
          acc = cmath::logaddexp(std::complex<double>(x[i * s[1].stride]), acc);
          y[i * s[0].stride] = static_cast<scalar_t>(acc);
        }
      });
    });
    return;
  }
  TL_DISPATCH_FLOAT(out.dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    dim_apply({out}, {in}, dim, {}, [&](const DimSlice* s) {
      scalar_t* y = s[0].as<scalar_t>();
      const scalar_t* x = s[1].as<scalar_t>();
      acc_t acc = -std::numeric_limits<acc_t>::infinity();
      for (int64_t i = 0; i < s[1].size; ++i) {
        acc = log_add_exp(acc, static_cast<acc_t>(x[i * s[1].stride]));
        y[i * s[0].stride] = static_cast<scalar_t>(acc);
      }
    });
  });
}

void cummax_kernel(const Tensor& self, int64_t dim, Tensor& values, Tensor& indices) {
  cum_extreme<true>(self, dim, values, indices, "cummax");
}

void cummin_kernel(const Tensor& self, int64_t dim, Tensor& values, Tensor& indices) {
  cum_extreme<false>(self, dim, values, indices, "cummin");
}

// Whether PyTorch's CPU flip gets by without its per-dtype loop, which has no complex32 or uint16/32/64
// instance: when nothing is flipped (no flipped dim of size > 1 and nonzero stride, or at most one
// element: a copy), or when the innermost dim of its TensorIterator is contiguous in the input and
// not flipped (whole rows copied with memcpy). That innermost dim is the output's: empty_like keeps a
// dense input's strides, else orders dims by stride as infer_dense_strides does (insertion sort from
// the last dim, a stride-0 dim never moving past another); size-1 dims drop out.
bool flip_copies_rows(const Tensor& self, uint64_t mask) {
  const int64_t nd = self.dim();
  IntArrayRef sz = self.sizes(), st = self.strides();
  bool any = false;
  for (int64_t i = 0; i < nd; ++i) any |= (mask >> i & 1) && sz[i] > 1 && st[i] != 0;
  if (!any || self.numel() <= 1) return true;
  std::vector<int64_t> perm(nd);  // innermost first
  for (int64_t i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
  if (is_non_overlapping_and_dense(self)) {
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) { return st[a] < st[b]; });
  } else {
    const auto should_swap = [&](int64_t d0, int64_t d1) {
      if (st[d0] == 0 || st[d1] == 0) return 0;
      if (st[d0] != st[d1]) return st[d0] < st[d1] ? -1 : 1;
      return sz[d0] > sz[d1] ? 1 : 0;
    };
    for (int64_t i = 1; i < nd; ++i) {
      int64_t d1 = i;
      for (int64_t d0 = i - 1; d0 >= 0; --d0) {
        const int c = should_swap(perm[d0], perm[d1]);
        if (c > 0) {
          std::swap(perm[d0], perm[d1]);
          d1 = d0;
        } else if (c < 0) {
          break;
        }
      }
    }
  }
  for (int64_t d : perm)
    if (sz[d] > 1) return !(mask >> d & 1) && st[d] == 1;
  return true;
}

// flip: a new tensor reading each flipped dim backwards. Written as a walk over the output with the
// source pointer stepping by negated strides (any number of dims, any input layout).
Tensor flip_kernel(const Tensor& self, IntArrayRef dims) {
  const char* op = "flip";
  Tensor out;
  const int64_t nd = self.dim();
  uint64_t mask = 0;
  for (int64_t d : dims) {
    const int64_t w = maybe_wrap_dim(d, nd, op);
    TL_CHECK(!(mask >> w & 1), op, ": dims has duplicates, original flip dims size=", dims.size(),
             ", but unique flip dims size=", __builtin_popcountll(mask | (uint64_t(1) << w)));
    mask |= uint64_t(1) << w;
  }
  prepare_output(out, self.sizes(), self.dtype(), self, OutDtype::Exact, op);
  if (self.is_meta() || self.numel() == 0) return out;
  if ((self.dtype() == ScalarType::Complex32 || is_barebones_unsigned_type(self.dtype())) &&
      !flip_copies_rows(self, mask)) {
    TL_CHECK_AS(NotImplementedError, self.dtype() != ScalarType::Complex32,
                "\"flip_cpu\" not implemented for 'ComplexHalf'");
    throw NotImplementedError(str(op, ": not implemented for dtype ", scalar_type_name(self.dtype())));
  }
  const int64_t isz = static_cast<int64_t>(self.itemsize());
  const char* src0 = static_cast<const char*>(self.data_ptr());
  std::vector<int64_t> stride(nd);  // bytes, negated for flipped dims
  for (int64_t i = 0; i < nd; ++i) {
    stride[i] = self.strides()[i] * isz;
    if (mask >> i & 1) {
      src0 += (self.sizes()[i] - 1) * stride[i];
      stride[i] = -stride[i];
    }
  }
  char* dst = static_cast<char*>(out.data_ptr());
  const int64_t n = self.numel();
  parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
    std::vector<int64_t> idx(nd);
    const char* src = src0;
    int64_t rem = b;
    for (int64_t d = nd - 1; d >= 0; --d) {
      idx[d] = rem % self.sizes()[d];
      rem /= self.sizes()[d];
      src += idx[d] * stride[d];
    }
    for (int64_t i = b; i < e; ++i) {
      std::memcpy(dst + i * isz, src, isz);
      for (int64_t d = nd - 1; d >= 0; --d) {
        src += stride[d];
        if (++idx[d] < self.sizes()[d]) break;
        src -= idx[d] * stride[d];
        idx[d] = 0;
      }
    }
  });
  return out;
}

}  // namespace tl::native
