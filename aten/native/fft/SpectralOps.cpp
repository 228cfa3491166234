// The three DFT kernels torchlite.fft is built on (_fft_c2c, _fft_r2c, _fft_c2r), through
// oneMKL's DFTI (the `mkl` / `mkl-devel` wheels; build_support/fft.py). Any length, any number of
// transformed dims, batched over the others.
//
// Layout: the input is copied into a contiguous buffer with the batch dims first and the
// transformed dims last (in `dim` order), so one descriptor handles every batch element with
// plain row-major strides; the result is allocated with that memory layout under the input's
// dim order (its strides are a permutation of contiguous ones, as PyTorch's may be).
// Committed descriptors are cached (a commit precomputes twiddles: for one-off sizes it costs more
// than the transform).
#include <algorithm>
#include <cmath>
#include <complex>
#include <list>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "aten/core/Exception.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "generated/ops/copy.h"

#ifdef TL_FFT_MKL
#include "mkl_dfti.h"
#include "mkl_service.h"
#endif

namespace tl::native {

namespace {

enum class Kind { C2C, R2C, C2R };

struct Plan {
  DimVector perm;        // input dims: batch dims, then `dim`
  DimVector out_sizes;   // the result's sizes in the input's dim order
  int64_t batch = 1;
  DimVector signal;      // lengths of the transformed dims (real lengths for R2C/C2R)
};

int64_t wrap_dim(int64_t d, int64_t ndim, const char* op) {
  TL_CHECK_AS(IndexError, ndim > 0, "Dimension specified as ", d, " but tensor has no dimensions");
  TL_CHECK_AS(IndexError, d >= -ndim && d < ndim,
              "Dimension out of range (expected to be in range of [", -ndim, ", ", ndim - 1, "], but got ", d, ")");
  (void)op;
  return d < 0 ? d + ndim : d;
}

Plan make_plan(const Tensor& self, IntArrayRef dim, const char* op) {
  const int64_t nd = self.dim();
  TL_CHECK(!dim.empty(), op, ": expects at least one dim to transform");
  std::vector<bool> used(static_cast<size_t>(nd), false);
  Plan p;
  DimVector fft_dims;
  for (int64_t d : dim) {
    const int64_t w = wrap_dim(d, nd, op);
    TL_CHECK(!used[w], op, ": FFT dims must be unique");
    used[w] = true;
    fft_dims.push_back(w);
  }
  for (int64_t d = 0; d < nd; ++d) {
    if (!used[d]) {
      p.perm.push_back(d);
      p.batch *= self.sizes()[d];
    }
  }
  for (int64_t d : fft_dims) p.perm.push_back(d);
  p.out_sizes = DimVector(self.sizes());
  return p;
}

// 0: none, 1: 1/sqrt(n), 2: 1/n.
double norm_scale(int64_t normalization, const DimVector& signal) {
  double n = 1;
  for (int64_t s : signal) n *= static_cast<double>(s);
  TL_CHECK(normalization >= 0 && normalization <= 2, "invalid FFT normalization mode: ", normalization);
  if (normalization == 0 || n == 0) return 1.0;
  return normalization == 1 ? 1.0 / std::sqrt(n) : 1.0 / n;
}

#ifdef TL_FFT_MKL

void check_mkl(MKL_LONG status, const char* what) {
  TL_CHECK(status == 0 || DftiErrorClass(status, DFTI_NO_ERROR), "MKL FFT error (", what, "): ", DftiErrorMessage(status));
}

struct Descriptor {
  DFTI_DESCRIPTOR_HANDLE handle = nullptr;
  ~Descriptor() {
    if (handle) DftiFreeDescriptor(&handle);
  }
};

// What a descriptor is made of: precision, domain, lengths and batch.
using PlanKey = std::tuple<bool, bool, std::vector<int64_t>, int64_t>;

std::shared_ptr<Descriptor> get_descriptor(bool dbl, bool real, const DimVector& signal, int64_t batch) {
  static std::mutex mu;
  static std::list<std::pair<PlanKey, std::shared_ptr<Descriptor>>> cache;  // most recent first
  constexpr size_t kCacheSize = 32;
  PlanKey key{dbl, real, std::vector<int64_t>(signal.begin(), signal.end()), batch};
  {
    std::lock_guard<std::mutex> lock(mu);
    for (auto it = cache.begin(); it != cache.end(); ++it) {
      if (it->first == key) {
        cache.splice(cache.begin(), cache, it);
        return it->second;
      }
    }
  }
  static std::once_flag threading;
  // torchlite's kernels use GNU OpenMP: MKL must use the same runtime, not Intel's.
  std::call_once(threading, [] { MKL_Set_Threading_Layer(MKL_THREADING_GNU); });
  auto d = std::make_shared<Descriptor>();
  const auto prec = dbl ? DFTI_DOUBLE : DFTI_SINGLE;
  const auto domain = real ? DFTI_REAL : DFTI_COMPLEX;
  const MKL_LONG rank = static_cast<MKL_LONG>(signal.size());
  std::vector<MKL_LONG> lengths(signal.begin(), signal.end());
  MKL_LONG status = rank == 1 ? DftiCreateDescriptor(&d->handle, prec, domain, 1, lengths[0])
                              : DftiCreateDescriptor(&d->handle, prec, domain, rank, lengths.data());
  check_mkl(status, "create");
  check_mkl(DftiSetValue(d->handle, DFTI_PLACEMENT, DFTI_NOT_INPLACE), "placement");
  // Row-major strides of the real (forward) and complex (backward) domains; for real transforms
  // the complex side keeps n//2 + 1 values of the last dim (CCE format).
  std::vector<MKL_LONG> fwd(rank + 1, 0), bwd(rank + 1, 0);
  MKL_LONG fs = 1, bs = 1;
  for (MKL_LONG i = rank; i >= 1; --i) {
    fwd[i] = fs;
    bwd[i] = bs;
    fs *= lengths[i - 1];
    bs *= (real && i == rank) ? lengths[i - 1] / 2 + 1 : lengths[i - 1];
  }
  if (real) check_mkl(DftiSetValue(d->handle, DFTI_CONJUGATE_EVEN_STORAGE, DFTI_COMPLEX_COMPLEX), "storage");
  check_mkl(DftiSetValue(d->handle, DFTI_FWD_STRIDES, fwd.data()), "strides");
  check_mkl(DftiSetValue(d->handle, DFTI_BWD_STRIDES, bwd.data()), "strides");
  if (batch > 1) {
    check_mkl(DftiSetValue(d->handle, DFTI_NUMBER_OF_TRANSFORMS, static_cast<MKL_LONG>(batch)), "batch");
    check_mkl(DftiSetValue(d->handle, DFTI_FWD_DISTANCE, fs), "distance");
    check_mkl(DftiSetValue(d->handle, DFTI_BWD_DISTANCE, bs), "distance");
  }
  check_mkl(DftiCommitDescriptor(d->handle), "commit");
  std::lock_guard<std::mutex> lock(mu);
  cache.emplace_front(key, d);
  if (cache.size() > kCacheSize) cache.pop_back();
  return d;
}

void run(Kind kind, const Tensor& in, Tensor& out, const DimVector& signal, int64_t batch, double scale, bool forward) {
  const bool dbl = in.dtype() == ScalarType::Float64 || in.dtype() == ScalarType::Complex128;
  auto d = get_descriptor(dbl, kind != Kind::C2C, signal, batch);
  MKL_LONG status = forward ? DftiComputeForward(d->handle, in.data_ptr(), out.data_ptr())
                            : DftiComputeBackward(d->handle, in.data_ptr(), out.data_ptr());
  check_mkl(status, "compute");
  // The normalization as a pass of its own (the descriptor's scale settings take a value through
  // C varargs, whose float/double handling is easy to get wrong; the pass costs little next to the
  // transform).
  if (scale != 1.0) {
    const int64_t n = static_cast<int64_t>(out.nbytes() / (dbl ? sizeof(double) : sizeof(float)));
    if (dbl) {
      double* p = static_cast<double*>(out.data_ptr());
      parallel_for(0, n, 1 << 16, [&](int64_t b, int64_t e) { for (int64_t i = b; i < e; ++i) p[i] *= scale; });
    } else {
      float* p = static_cast<float*>(out.data_ptr());
      const float s = static_cast<float>(scale);
      parallel_for(0, n, 1 << 16, [&](int64_t b, int64_t e) { for (int64_t i = b; i < e; ++i) p[i] *= s; });
    }
  }
}

#else

[[noreturn]] void run(Kind, const Tensor&, Tensor&, const DimVector&, int64_t, double, bool) {
  throw RuntimeError("torchlite was built without an FFT library (build_support/fft.py: install mkl-devel)");
}

#endif

// A view of `t` with its dims in `perm` order (no autograd: kernels run below it).
Tensor permuted_view(const Tensor& t, const DimVector& perm) {
  DimVector sizes, strides;
  for (int64_t d : perm) {
    sizes.push_back(t.sizes()[d]);
    strides.push_back(t.strides()[d]);
  }
  return make_view(t, sizes, strides, t.storage_offset());
}

// Runs the transform on `self` laid out batch-first (plan.perm) into a result of `out_dtype` and
// sizes plan.out_sizes, whose memory is that layout, contiguous.
Tensor transform(Kind kind, const Tensor& self, const Plan& plan, ScalarType out_dtype, double scale, bool forward) {
  DimVector perm_sizes;
  for (int64_t d : plan.perm) perm_sizes.push_back(plan.out_sizes[d]);
  const DimVector perm_strides = contiguous_strides(perm_sizes);
  DimVector strides(plan.perm.size());
  for (size_t i = 0; i < plan.perm.size(); ++i) strides[plan.perm[i]] = perm_strides[i];
  Tensor out = empty_strided_tensor(plan.out_sizes, strides, out_dtype, self.device());
  if (self.is_meta() || out.numel() == 0) return out;
  // The input as one contiguous batch-first buffer: itself when it already is one, except for
  // complex-to-real transforms, which may use their input as scratch space (a fresh copy then).
  Tensor view = permuted_view(self, plan.perm);
  Tensor src = view;
  if (kind == Kind::C2R || !view.is_contiguous()) {
    src = empty_tensor(view.sizes(), self.dtype(), self.device());
    copy_kernel(src, view, false);
  }
  run(kind, src, out, plan.signal, plan.batch, scale, forward);
  return out;
}

void check_nonempty_signal(const Tensor& self, const Plan& p) {
  // PyTorch's CPU kernels refuse every empty input (MKL's or its reshape's RuntimeError); so does torchlite.
  TL_CHECK(self.numel() > 0, "FFT of an empty tensor (shape ", self.sizes(), ") is not supported");
  for (size_t i = p.perm.size() - p.signal.size(); i < p.perm.size(); ++i) {
    TL_CHECK(self.sizes()[p.perm[i]] > 0 || p.batch == 0, "Invalid number of data points (",
             self.sizes()[p.perm[i]], ") specified");
  }
}

}  // namespace

Tensor fft_c2c_kernel(const Tensor& self, IntArrayRef dim, int64_t normalization, bool forward) {
  TL_CHECK(is_complex_type(self.dtype()), "_fft_c2c: expects a complex input tensor, but got ",
           legacy_type_name(self.dtype()));
  // complex32: PyTorch's CPU FFT (MKL) refuses it, and the transforms below read complex64/complex128 only.
  TL_CHECK(self.dtype() != ScalarType::Complex32, "MKL FFT doesn't support tensors of type: Half");
  Plan p = make_plan(self, dim, "_fft_c2c");
  for (size_t i = p.perm.size() - dim.size(); i < p.perm.size(); ++i) p.signal.push_back(self.sizes()[p.perm[i]]);
  check_nonempty_signal(self, p);
  return transform(Kind::C2C, self, p, self.dtype(), norm_scale(normalization, p.signal), forward);
}

Tensor fft_r2c_kernel(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided) {
  const ScalarType t = self.dtype();
  TL_CHECK(t == ScalarType::Float32 || t == ScalarType::Float64, "_fft_r2c: Unsupported dtype ", legacy_type_name(t));
  Plan p = make_plan(self, dim, "_fft_r2c");
  for (size_t i = p.perm.size() - dim.size(); i < p.perm.size(); ++i) p.signal.push_back(self.sizes()[p.perm[i]]);
  check_nonempty_signal(self, p);
  const double scale = norm_scale(normalization, p.signal);
  if (!onesided) {
    // The full spectrum: the complex transform of the input with zero imaginary parts.
    Tensor z = empty_tensor(self.sizes(), to_complex_type(t), self.device());
    if (!self.is_meta() && self.numel() > 0) copy_kernel(z, self, false);
    return transform(Kind::C2C, z, p, z.dtype(), scale, /*forward=*/true);
  }
  const int64_t last = p.perm.back();
  p.out_sizes[last] = self.sizes()[last] / 2 + 1;
  return transform(Kind::R2C, self, p, to_complex_type(t), scale, /*forward=*/true);
}

Tensor fft_c2r_kernel(const Tensor& self, IntArrayRef dim, int64_t normalization, int64_t last_dim_size) {
  TL_CHECK(is_complex_type(self.dtype()), "_fft_c2r: expects a complex input tensor, but got ",
           legacy_type_name(self.dtype()));
  TL_CHECK(self.dtype() != ScalarType::Complex32, "MKL FFT doesn't support tensors of type: Half");
  TL_CHECK(last_dim_size >= 1, "Invalid number of data points (", last_dim_size, ") specified");
  Plan full = make_plan(self, dim, "_fft_c2r");
  const int64_t last = full.perm.back();
  TL_CHECK(self.sizes()[last] == last_dim_size / 2 + 1, "_fft_c2r: expected ", last_dim_size / 2 + 1,
           " values in the last transformed dim for an output of ", last_dim_size, ", got ", self.sizes()[last]);
  for (size_t i = full.perm.size() - dim.size(); i + 1 < full.perm.size(); ++i) {
    full.signal.push_back(self.sizes()[full.perm[i]]);
  }
  full.signal.push_back(last_dim_size);
  check_nonempty_signal(self, full);
  const double scale = norm_scale(normalization, full.signal);
  // Several dims: the inverse complex transform over all but the last, then the 1-D complex-to-real
  // one over the last (NumPy's and PyTorch's definition; a multi-dimensional c2r of input that is
  // not Hermitian-symmetric in the other dims would differ).
  Tensor in = self;
  if (dim.size() > 1) in = fft_c2c_kernel(self, IntArrayRef(dim.data(), dim.size() - 1), 0, /*forward=*/false);
  const int64_t last_only[1] = {last};
  Plan p = make_plan(in, IntArrayRef(last_only, 1), "_fft_c2r");
  p.signal.push_back(last_dim_size);
  p.out_sizes[last] = last_dim_size;
  return transform(Kind::C2R, in, p, to_real_type(self.dtype()), scale, /*forward=*/false);
}

}  // namespace tl::native
