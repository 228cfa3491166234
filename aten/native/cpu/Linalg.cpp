// mm and bmm. float32/float64 go to the BLAS (aten/native/cpu/Blas.h); other dtypes (float16,
// bfloat16, integers) and builds without a BLAS use a blocked loop that accumulates in float
// (16-bit floats) or 64-bit integers.
//
// Operands are handed to the BLAS in place when they are row-major or column-major (a transposed
// contiguous matrix becomes a transposed BLAS operand); other layouts (expanded, sliced with a
// step) are packed first. The output is written in place when it is row- or column-major and
// shares no memory with the inputs, else through a temporary.
//
// Threads: the BLAS runs single-threaded and tl::parallel_for splits the work: over batches when
// there are several small matrices, else over 16-row (or 16-column) blocks of each product.
//
// The lazy conjugate bit (docs/complex.md; mm and bmm are tagged `math_bits`): a conj operand whose
// memory the BLAS reads transposed (`a.mH`, `a.conj().T`) is passed with the conjugate-transpose op,
// as PyTorch's addmm passes 'c'; a conj operand read as stored is conjugated while it is packed (one
// copy, as PyTorch's resolve_conj). The negative bit is resolved first; an out= tensor with a bit
// receives the product through copy_, which writes through its bits.
#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "aten/autograd/GradMode.h"
#include "aten/core/Exception.h"
#include "aten/core/MathBits.h"
#include "aten/native/cpu/Vectorize.h"
#include "aten/core/Parallel.h"
#include "aten/core/Tensor.h"
#include "aten/native/Resize.h"
#include "aten/native/cpu/Blas.h"
#include "aten/native/cpu/BlasComplex.h"
#include "generated/ops/bmm.h"
#include "generated/ops/copy.h"
#include "generated/ops/mm.h"

namespace tl::native {

namespace {

// A batch of matrices: element (b, i, j) is at ptr[b * bs + i * rs + j * cs].
template <typename T>
struct Mats {
  T* ptr;
  int64_t bs, rs, cs;
  T* at(int64_t b, int64_t i, int64_t j) const { return ptr + b * bs + i * rs + j * cs; }
  Mats<const T> as_const() const { return {ptr, bs, rs, cs}; }
  Mats transposed() const { return {ptr, bs, cs, rs}; }  // the same memory seen as the transpose
};

// How a rows x cols matrix with strides (rs, cs) can be given to a row-major BLAS:
// {trans=false, ld} when rows are contiguous, {trans=true, ld} when columns are, nullopt otherwise.
// A matrix with both (a row or a column vector) gets the transposed one when prefer_trans.
struct BlasLayout {
  bool trans;
  int64_t ld;
};
std::optional<BlasLayout> blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool prefer_trans = false) {
  // Strides of size-1 dims are never used to address anything.
  const bool row_major = (cs == 1 || cols == 1) && (rows == 1 || rs >= std::max<int64_t>(cols, 1));
  const bool col_major = (rs == 1 || rows == 1) && (cols == 1 || cs >= std::max<int64_t>(rows, 1));
  if (col_major && (prefer_trans || !row_major)) return BlasLayout{true, cols == 1 ? std::max<int64_t>(rows, 1) : cs};
  if (row_major) return BlasLayout{false, rows == 1 ? std::max<int64_t>(cols, 1) : rs};
  return std::nullopt;
}

constexpr int64_t kRowBlock = 16;
constexpr int64_t kMinTaskMacs = int64_t(1) << 20;  // multiply-adds worth a parallel task

// ------------------------------------------------------------------------------ element helpers

template <typename T>
constexpr bool is_reduced_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
// Accumulation type: float for 16-bit floats, uint64 (wrap-around int64) for integers.
template <typename T>
using mm_acc_t = std::conditional_t<std::is_floating_point_v<opmath_t<T>>, opmath_t<T>, uint64_t>;

template <typename acc_t, typename T>
inline acc_t to_acc(T v) {
  if constexpr (std::is_same_v<acc_t, uint64_t>) return static_cast<uint64_t>(static_cast<int64_t>(v));
  else return static_cast<acc_t>(v);
}
template <typename T, typename acc_t>
inline T from_acc(acc_t v) {
  if constexpr (std::is_same_v<acc_t, uint64_t>) return static_cast<T>(static_cast<int64_t>(v));
  else if constexpr (is_reduced_v<T>) return T(static_cast<float>(v));
  else return static_cast<T>(v);
}

// Copies a batch of rows x cols matrices into a contiguous buffer of type D (conjugated when `conj`,
// for complex T: the conjugate bit resolved in the same pass).
template <typename D, typename T>
void pack(Mats<const T> src, int64_t batch, int64_t rows, int64_t cols, D* dst, bool conj = false) {
  const int64_t total_rows = batch * rows;
  parallel_for(0, total_rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(cols, 1)),
               [&](int64_t rb, int64_t re) {
                 for (int64_t r = rb; r < re; ++r) {
                   int64_t b = r / rows, i = r % rows;
                   const T* s = src.at(b, i, 0);
                   D* d = dst + r * cols;
                   if constexpr (is_complex_v<T>) {
                     if (conj) {
                       for (int64_t j = 0; j < cols; ++j) d[j] = std::conj(s[j * src.cs]);
                       continue;
                     }
                   }
                   for (int64_t j = 0; j < cols; ++j) d[j] = to_acc<D>(s[j * src.cs]);
                 }
               });
}

// ------------------------------------------------------------------------------ BLAS path

// Matrix-vector products (m == 1 or n == 1) through gemv: y = op(M) x, where M is the matrix
// operand as stored (row-major, leading dimension ld). Work is split across the stored rows of M,
// in a number of chunks fixed by the shape (so results do not depend on the thread count): the
// output rows when op is NoTrans; the reduction when op is Trans (partial sums added in order),
// so that every chunk streams a contiguous block of M.
// `conj_mat`: the matrix operand is conjugated (it is then read transposed: ConjTrans).
template <typename T>
void gemv_products(int64_t batch, int64_t m, int64_t n, int64_t k, Mats<const T> A, BlasLayout la,
                   Mats<const T> B, BlasLayout lb, Mats<T> C, bool conj_mat) {
  const T *mat, *x;
  int64_t mat_bs, ld, x_bs, incx, rows, cols, len, incy;
  bool trans;
  if (n == 1) {  // y[i] = sum_p A[i, p] * B[p, 0]
    mat = A.ptr, mat_bs = A.bs, ld = la.ld, trans = la.trans;
    rows = trans ? k : m, cols = trans ? m : k;
    x = B.ptr, x_bs = B.bs, incx = k > 1 ? B.rs : 1;
    len = m, incy = m > 1 ? C.rs : 1;
  } else {  // m == 1: y[j] = sum_p A[0, p] * B[p, j]
    mat = B.ptr, mat_bs = B.bs, ld = lb.ld, trans = !lb.trans;
    rows = trans ? k : n, cols = trans ? n : k;
    x = A.ptr, x_bs = A.bs, incx = k > 1 ? A.cs : 1;
    len = n, incy = n > 1 ? C.cs : 1;
  }
  // Zero-stride (expanded) operands were packed by the caller, so incx/incy are nonzero.
  const blas::Op op = !trans ? blas::Op::None : conj_mat ? blas::Op::ConjTrans : blas::Op::Trans;
  const int64_t work = rows * cols;
  if (batch > 1 && (batch >= 2 * get_num_threads() || work < 4 * kMinTaskMacs)) {
    parallel_for(0, batch, std::max<int64_t>(1, kMinTaskMacs / std::max<int64_t>(work, 1)), [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b)
        blas::gemv_op<T>(op, rows, cols, T(1), mat + b * mat_bs, ld, x + b * x_bs, incx, T(0), C.ptr + b * C.bs,
                         incy);
    });
    return;
  }
  const int64_t nchunks = std::clamp<int64_t>(work / (2 * kMinTaskMacs), 1, std::min<int64_t>(8, rows));
  std::vector<T> partial(trans && nchunks > 1 ? static_cast<size_t>(nchunks * len) : 0);
  for (int64_t b = 0; b < batch; ++b) {
    const T* mb = mat + b * mat_bs;
    const T* xb = x + b * x_bs;
    T* yb = C.ptr + b * C.bs;
    parallel_for(0, nchunks, 1, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        const int64_t r0 = rows * c / nchunks, r1 = rows * (c + 1) / nchunks;
        if (!trans) {
          blas::gemv_op<T>(op, r1 - r0, cols, T(1), mb + r0 * ld, ld, xb, incx, T(0), yb + r0 * incy, incy);
        } else if (nchunks == 1) {
          blas::gemv_op<T>(op, rows, cols, T(1), mb, ld, xb, incx, T(0), yb, incy);
        } else {
          blas::gemv_op<T>(op, r1 - r0, cols, T(1), mb + r0 * ld, ld, xb + r0 * incx, incx, T(0),
                           partial.data() + c * len, 1);
        }
      }
    });
    if (trans && nchunks > 1) {
      for (int64_t j = 0; j < len; ++j) {
        T acc = partial[static_cast<size_t>(j)];
        for (int64_t c = 1; c < nchunks; ++c) acc += partial[static_cast<size_t>(c * len + j)];
        yb[j * incy] = acc;
      }
    }
  }
}

// C = A * B for float/double/complex. A: m x k, B: k x n, C: m x n with rows or columns contiguous.
// ca / cb: A / B hold the conjugates of their values (complex only).
template <typename T>
void gemm_blas(int64_t batch, int64_t m, int64_t n, int64_t k, Mats<const T> A, bool ca, Mats<const T> B, bool cb,
               Mats<T> C) {
  auto lc = blas_layout(m, n, C.rs, C.cs);
  TL_CHECK(lc.has_value(), "mm: internal error: output layout not supported by BLAS");
  if (lc->trans) {
    // C has contiguous columns: compute C^T = B^T A^T, whose rows are contiguous.
    gemm_blas<T>(batch, n, m, k, B.transposed(), cb, A.transposed(), ca, C.transposed());
    return;
  }
  const int64_t ldc = lc->ld;
  // Which operand the BLAS reads as a matrix, and whether the op it applies to it is a transpose:
  // only such an operand can carry a conjugation (ConjTrans). gemm: both, op = trans of the layout;
  // gemv (m or n is 1): A when n == 1 (op = A's trans), else B (op = not B's trans); the other is x.
  const bool gemv = m == 1 || n == 1;
  const bool a_is_matrix = !gemv || n == 1, b_is_matrix = !gemv || n != 1;
  const bool b_op_is_trans_layout = !gemv;  // gemv with B as the matrix transposes a row-major B
  std::vector<T> abuf, bbuf;
  auto la = blas_layout(m, k, A.rs, A.cs, /*prefer_trans=*/ca);
  if (!la || (ca && !(a_is_matrix && la->trans))) {
    abuf.resize(static_cast<size_t>(batch * m * k));
    pack<T>(A, batch, m, k, abuf.data(), ca);
    A = {abuf.data(), m * k, k, 1};
    la = BlasLayout{false, k};
    ca = false;
  }
  auto lb = blas_layout(k, n, B.rs, B.cs, /*prefer_trans=*/cb && b_op_is_trans_layout);
  if (!lb || (cb && !(b_is_matrix && lb->trans == b_op_is_trans_layout))) {
    bbuf.resize(static_cast<size_t>(batch * k * n));
    pack<T>(B, batch, k, n, bbuf.data(), cb);
    B = {bbuf.data(), k * n, n, 1};
    lb = BlasLayout{false, n};
    cb = false;
  }
  const int64_t macs = m * n * k;
  const int64_t nthreads = get_num_threads();
  if (gemv) {
    gemv_products<T>(batch, m, n, k, A, *la, B, *lb, C, n == 1 ? ca : cb);
    return;
  }
  const blas::Op op_a = !la->trans ? blas::Op::None : ca ? blas::Op::ConjTrans : blas::Op::Trans;
  const blas::Op op_b = !lb->trans ? blas::Op::None : cb ? blas::Op::ConjTrans : blas::Op::Trans;
  auto one = [&](int64_t b, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
    // Rows [r0, r1) x columns [c0, c1) of product b (A's row r0 / B's column c0 start there
    // in either storage order).
    const T* a = A.ptr + b * A.bs + r0 * A.rs;
    const T* bp = B.ptr + b * B.bs + c0 * B.cs;
    T* c = C.ptr + b * C.bs + r0 * C.rs + c0 * C.cs;
    blas::gemm_op<T>(op_a, op_b, r1 - r0, c1 - c0, k, T(1), a, la->ld, bp, lb->ld, T(0), c, ldc);
  };
  if (batch > 1 && (batch >= 2 * nthreads || macs < 8 * kMinTaskMacs)) {
    // Many products: one task per matrix.
    parallel_for(0, batch, std::max<int64_t>(1, kMinTaskMacs / std::max<int64_t>(macs, 1)),
                 [&](int64_t b0, int64_t b1) {
                   for (int64_t b = b0; b < b1; ++b) one(b, 0, m, 0, n);
                 });
    return;
  }
  // Few large products: split the longer side of each into blocks of 16.
  const bool split_rows = m >= n;
  const int64_t len = split_rows ? m : n;
  const int64_t blocks = (len + kRowBlock - 1) / kRowBlock;
  const int64_t macs_per_block = std::max<int64_t>(1, macs / blocks);
  const int64_t grain = std::max<int64_t>(1, kMinTaskMacs / macs_per_block);
  for (int64_t b = 0; b < batch; ++b) {
    parallel_for(0, blocks, grain, [&](int64_t s0, int64_t s1) {
      int64_t lo = s0 * kRowBlock, hi = std::min(len, s1 * kRowBlock);
      if (split_rows) one(b, lo, hi, 0, n);
      else one(b, 0, m, lo, hi);
    });
  }
}

// ------------------------------------------------------------------------------ fallback loop

// r[j] += a * b[j]: the inner loop of the fallback. Compiled for AVX-512, AVX2 and baseline x86-64
// and picked at load time (the build itself targets baseline x86-64).
TL_TARGET_CLONES void axpy(float* __restrict r, const float* __restrict b, float a, int64_t n) {
  for (int64_t j = 0; j < n; ++j) r[j] += a * b[j];
}
TL_TARGET_CLONES void axpy(double* __restrict r, const double* __restrict b, double a, int64_t n) {
  for (int64_t j = 0; j < n; ++j) r[j] += a * b[j];
}
TL_TARGET_CLONES void axpy(uint64_t* __restrict r, const uint64_t* __restrict b, uint64_t a, int64_t n) {
  for (int64_t j = 0; j < n; ++j) r[j] += a * b[j];
}

// C = A * B for any numeric dtype: both operands are packed (converted to the accumulation
// type), then each output row accumulates sum_p A[i, p] * B[p, :] over blocks of columns.
template <typename T>
void gemm_loop(int64_t batch, int64_t m, int64_t n, int64_t k, Mats<const T> A, Mats<const T> B, Mats<T> C) {
  using acc_t = mm_acc_t<T>;
  std::vector<acc_t> a(static_cast<size_t>(batch * m * k)), b(static_cast<size_t>(batch * k * n));
  pack<acc_t>(A, batch, m, k, a.data());
  pack<acc_t>(B, batch, k, n, b.data());
  constexpr int64_t kColBlock = 512;
  constexpr int64_t kDepthBlock = 256;
  const int64_t macs_per_row = std::max<int64_t>(1, n * k);
  parallel_for(0, batch * m, std::max<int64_t>(1, kMinTaskMacs / macs_per_row), [&](int64_t r0, int64_t r1) {
    acc_t row[kColBlock];
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t bi = r / m, i = r % m;
      const acc_t* arow = a.data() + r * k;
      const acc_t* bmat = b.data() + bi * k * n;
      for (int64_t j0 = 0; j0 < n; j0 += kColBlock) {
        const int64_t nj = std::min(kColBlock, n - j0);
        std::fill(row, row + nj, acc_t(0));
        for (int64_t p0 = 0; p0 < k; p0 += kDepthBlock) {
          const int64_t p1 = std::min(k, p0 + kDepthBlock);
          for (int64_t p = p0; p < p1; ++p) axpy(row, bmat + p * n + j0, arow[p], nj);
        }
        for (int64_t j = 0; j < nj; ++j) *C.at(bi, i, j0 + j) = from_acc<T>(row[j]);
      }
    }
  });
}

// ca / cb: the operands' conjugate bits (complex only; always false for other types).
template <typename T>
void gemm_any(int64_t batch, int64_t m, int64_t n, int64_t k, Mats<const T> A, bool ca, Mats<const T> B, bool cb,
              Mats<T> C) {
  if constexpr ((std::is_same_v<T, float> || std::is_same_v<T, double> || is_complex_v<T>) && blas::kAvailable) {
    gemm_blas<T>(batch, m, n, k, A, ca, B, cb, C);  // complex: cgemm / zgemm
  } else if constexpr (is_reduced_v<T> && blas::kAvailable) {
    // float16/bfloat16: widen to float32 (exact), multiply with sgemm (float32 accumulation), round
    // once to T: the same result class as the loop, several times faster.
    std::vector<float> a(static_cast<size_t>(batch * m * k)), b(static_cast<size_t>(batch * k * n));
    std::vector<float> c(static_cast<size_t>(batch * m * n));
    pack<float>(A, batch, m, k, a.data());
    pack<float>(B, batch, k, n, b.data());
    gemm_blas<float>(batch, m, n, k, Mats<const float>{a.data(), m * k, k, 1}, false,
                     Mats<const float>{b.data(), k * n, n, 1}, false, Mats<float>{c.data(), m * n, n, 1});
    parallel_for(0, batch * m, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n, 1)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t j = 0; j < n; ++j) *C.at(r / m, r % m, j) = T(c[static_cast<size_t>(r * n + j)]);
    });
  } else {
    gemm_loop<T>(batch, m, n, k, A, B, C);
  }
}

// Writes zeros into a batch of m x n matrices (k == 0).
template <typename T>
void fill_zero(int64_t batch, int64_t m, int64_t n, Mats<T> C) {
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) *C.at(b, i, j) = T(0);
}

// Copies a contiguous tensor's bytes into `dst` (same shape and dtype, any strides; 3-D at most).
void copy_into(const Tensor& src, const Tensor& dst) {
  const size_t isz = src.itemsize();
  const char* s = static_cast<const char*>(src.data_ptr());
  char* d = static_cast<char*>(dst.data_ptr());
  int64_t nd = dst.dim();
  int64_t sz[3] = {1, 1, 1}, st[3] = {0, 0, 0};
  for (int64_t i = 0; i < nd; ++i) {
    sz[3 - nd + i] = dst.sizes()[i];
    st[3 - nd + i] = dst.strides()[i];
  }
  int64_t e = 0;
  for (int64_t x = 0; x < sz[0]; ++x)
    for (int64_t y = 0; y < sz[1]; ++y)
      for (int64_t z = 0; z < sz[2]; ++z, ++e)
        std::memcpy(d + (x * st[0] + y * st[1] + z * st[2]) * static_cast<int64_t>(isz),
                    s + e * static_cast<int64_t>(isz), isz);
}

// An operand as the product reads it: a conj-only tensor is its memory (`conj` set: the BLAS or the
// pack conjugates it); one with the negative bit is resolved (a new tensor with its values).
Tensor product_operand(const Tensor& t, bool& conj) {
  const uint8_t bits = t.math_bits();
  conj = bits == TensorImpl::kConjBit;
  if (bits == 0) return t;
  if (conj) return math_bits::physical(t);
  autograd::NoGradGuard no_grad;  // below autograd: resolving records nothing
  return math_bits::resolved(t);
}

// Shared by mm (batch = 1, 2-D tensors) and bmm (3-D tensors). Checks are done by the callers.
void matmul_into(const Tensor& self_arg, const Tensor& mat2_arg, Tensor& out, IntArrayRef out_shape,
                 const char* op) {
  const ScalarType st = self_arg.dtype();
  if (out.defined()) {
    TL_CHECK(out.device().type == self_arg.device().type, op, ": expected out on device ", self_arg.device().str(),
             ", but got ", out.device().str());
    TL_CHECK(out.dtype() == st, op, ": Expected out tensor to have dtype ", scalar_type_name(st), ", but got ",
             scalar_type_name(out.dtype()), " instead");
    if (out.math_bits() != 0) {
      // An out= tensor with a bit (a conj/neg view): the product is written through copy_.
      Tensor product;
      matmul_into(self_arg, mat2_arg, product, out_shape, op);
      resize_output(out, out_shape, op);
      autograd::NoGradGuard no_grad;
      tl::copy_(out, product, false);
      return;
    }
  }
  // mm(a, b, out=a): resizing `out` must not change the `a` being read.
  bool conj_a = false, conj_b = false;
  const Tensor self = product_operand(input_unaffected_by_resize(self_arg, out), conj_a);
  const Tensor mat2 = product_operand(input_unaffected_by_resize(mat2_arg, out), conj_b);
  if (!out.defined()) {
    out = empty_tensor(out_shape, st, self.device());
  } else {
    resize_output(out, out_shape, op);
  }
  if (self.is_meta() || out.numel() == 0) return;

  const bool batched = self.dim() == 3;
  const int64_t batch = batched ? self.sizes()[0] : 1;
  const int64_t m = self.sizes()[batched ? 1 : 0], k = self.sizes()[batched ? 2 : 1];
  const int64_t n = mat2.sizes()[batched ? 2 : 1];
  auto geom = [&](const Tensor& t) {
    return batched ? std::array<int64_t, 3>{t.strides()[0], t.strides()[1], t.strides()[2]}
                   : std::array<int64_t, 3>{0, t.strides()[0], t.strides()[1]};
  };
  // Write into `out` directly when the BLAS/loop can address it and it cannot overlap an input.
  auto og = geom(out);
  bool direct = out.storage() != self.storage() && out.storage() != mat2.storage() &&
                blas_layout(m, n, og[1], og[2]).has_value() && (batch == 1 || og[0] != 0);
  Tensor res = direct ? out : empty_tensor(out_shape, st, self.device());
  auto ag = geom(self), bg = geom(mat2), cg = geom(res);

  auto run = [&](auto zero) {
    using scalar_t = decltype(zero);
    Mats<const scalar_t> A{self.data_ptr<scalar_t>(), ag[0], ag[1], ag[2]};
    Mats<const scalar_t> B{mat2.data_ptr<scalar_t>(), bg[0], bg[1], bg[2]};
    Mats<scalar_t> C{res.data_ptr<scalar_t>(), cg[0], cg[1], cg[2]};
    if (k == 0) {
      fill_zero<scalar_t>(batch, m, n, C);
    } else {
      gemm_any<scalar_t>(batch, m, n, k, A, conj_a, B, conj_b, C);
    }
  };
  if (is_complex_type(st)) {
    TL_CHECK_AS(NotImplementedError, blas::kAvailable, op, ": complex products need a BLAS (cgemm/zgemm)");
    TL_DISPATCH_COMPLEX(st, op, [&] { run(scalar_t{}); });
  } else {
    TL_DISPATCH_NUMERIC(st, op, [&] { run(scalar_t{}); });
  }
  if (!direct) copy_into(res, out);
}

void check_same_dtype(const Tensor& a, const Tensor& b, const char* op) {
  TL_CHECK(a.dtype() == b.dtype(), op, ": expected m1 and m2 to have the same dtype, but got: ",
           scalar_type_name(a.dtype()), " != ", scalar_type_name(b.dtype()));
  TL_CHECK_AS(NotImplementedError, a.dtype() != ScalarType::Bool, op, ": not implemented for dtype bool");
}

}  // namespace

void mm_kernel(const Tensor& self, const Tensor& mat2, Tensor& out) {
  TL_CHECK(self.dim() == 2, "mm: self must be a matrix, but got a ", self.dim(), "-D tensor");
  TL_CHECK(mat2.dim() == 2, "mm: mat2 must be a matrix, but got a ", mat2.dim(), "-D tensor");
  TL_CHECK(self.sizes()[1] == mat2.sizes()[0], "mm: mat1 and mat2 shapes cannot be multiplied (",
           self.sizes()[0], "x", self.sizes()[1], " and ", mat2.sizes()[0], "x", mat2.sizes()[1], ")");
  check_same_dtype(self, mat2, "mm");
  TL_CHECK(self.device().type == mat2.device().type, "mm: expected both matrices on the same device, but got ",
           self.device().str(), " and ", mat2.device().str());
  matmul_into(self, mat2, out, DimVector{self.sizes()[0], mat2.sizes()[1]}, "mm");
}

void bmm_kernel(const Tensor& self, const Tensor& mat2, Tensor& out) {
  TL_CHECK(self.dim() == 3, "bmm: batch1 must be a 3D tensor, but got a ", self.dim(), "-D tensor");
  TL_CHECK(mat2.dim() == 3, "bmm: batch2 must be a 3D tensor, but got a ", mat2.dim(), "-D tensor");
  TL_CHECK(self.sizes()[0] == mat2.sizes()[0], "bmm: batch1 and batch2 must have same number of batches, got ",
           self.sizes()[0], " and ", mat2.sizes()[0], " (shapes ", self.sizes(), " and ", mat2.sizes(), ")");
  TL_CHECK(self.sizes()[2] == mat2.sizes()[1], "bmm: Expected size for first two dimensions of batch2 tensor to be: [",
           self.sizes()[0], ", ", self.sizes()[2], "] but got: [", mat2.sizes()[0], ", ", mat2.sizes()[1],
           "]. (shapes ", self.sizes(), " and ", mat2.sizes(), " cannot be multiplied)");
  check_same_dtype(self, mat2, "bmm");
  TL_CHECK(self.device().type == mat2.device().type, "bmm: expected both tensors on the same device, but got ",
           self.device().str(), " and ", mat2.device().str());
  matmul_into(self, mat2, out, DimVector{self.sizes()[0], self.sizes()[1], mat2.sizes()[2]}, "bmm");
}

}  // namespace tl::native
