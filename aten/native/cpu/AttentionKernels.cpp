// Fused scaled dot-product attention (PyTorch's _scaled_dot_product_flash_attention_for_cpu and its
// backward), the flash-attention scheme on CPU.
//
// Forward: each task is one (batch, head, block of query rows). It streams key/value blocks,
// computing the block's scores with one GEMM, and keeps per row a running max and a running sum
// of exp(score - max) (the online softmax); the output accumulator is rescaled whenever the max
// grows. Memory is O(query block x key block) per thread, never an L x S matrix. It returns the
// output and each row's logsumexp, which is all the backward needs to rebuild the probabilities.
//
// Backward: each task is one (batch, key/value head), so the gradients of key and value are
// accumulated by one thread only (with grouped-query attention several query heads share them).
// Per query block and key block it recomputes P = exp(score - logsumexp) and forms
//   dV += P^T dO,  dS = P * (dO V^T - rowsum(dO * O)),  dQ += scale dS K,  dK += scale dS^T Q
// with four GEMMs. GEMMs are tl::blas::gemm (single-threaded); parallelism is tl::parallel_for
// over the tasks. float16/bfloat16 compute in float32; the logsumexp is float32 (float64 for
// float64 inputs), as PyTorch's.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "aten/core/Parallel.h"
#include "aten/native/DimEngine.h"
#include "aten/native/cpu/Blas.h"
#include "aten/native/cpu/Vectorize.h"
#include "generated/ops/_scaled_dot_product_flash_attention_for_cpu.h"
#include "generated/ops/_scaled_dot_product_flash_attention_for_cpu_backward.h"
#include "generated/ops/contiguous.h"
#include "generated/ops/expand.h"
#include "generated/ops/transpose.h"
#include "generated/ops/zeros.h"

namespace tl::native {

namespace {

constexpr const char* kOp = "_scaled_dot_product_flash_attention_for_cpu";
constexpr const char* kBackwardOp = "_scaled_dot_product_flash_attention_for_cpu_backward";
// Query rows per task and key rows per streamed block: a 64 x 512 float score block (128 KiB)
// stays in L2 beside the query and key blocks.
constexpr int64_t kQBlock = 64;
constexpr int64_t kKvBlock = 512;

// exp in float arithmetic for the float32 path (Cody-Waite reduction, degree-6 polynomial: about
// 2 ulp, the accuracy class of the exp PyTorch's kernel uses; vec::exp_f32 goes through double,
// at half the vector width). The clamp is done on the bit pattern, without `?:` on floats (see
// Vectorize.h: a float select becomes a branch and stops the loop vectorizing). x below -87.3
// (masked scores are -inf) gives exactly 0; NaN stays NaN.
TL_ALWAYS_INLINE float exp_attn(float x) {
  const int32_t xi = static_cast<int32_t>(vec::float_to_bits(x));
  const int32_t mag = xi & 0x7fffffff;
  const int32_t not_nan = -static_cast<int32_t>(mag <= 0x7f800000);
  const int32_t hi = -static_cast<int32_t>(xi > 0x42B16666) & not_nan;  // x > 88.7
  const int32_t lo = -static_cast<int32_t>(xi < 0) & -static_cast<int32_t>(mag > 0x42AE999A) & not_nan;  // x < -87.3
  int32_t ci = (xi & ~hi) | (0x42B16666 & hi);
  ci = (ci & ~lo) | (static_cast<int32_t>(0xC2AE999Au) & lo);
  const float xc = vec::bits_to_float(static_cast<uint32_t>(ci));
  const float kf = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;  // round to nearest: 1.5 * 2^23
  const float r = (xc - kf * 0.693359375f) + kf * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float y = p * r * r + r + 1.0f;
  const int32_t k = static_cast<int32_t>(kf);
  const float two_k = vec::bits_to_float(static_cast<uint32_t>(k + 127) << 23);
  return vec::bits_to_float(vec::float_to_bits(y * two_k) & ~static_cast<uint32_t>(lo));
}

template <typename T>
TL_ALWAYS_INLINE T vexp(T x) {
  if constexpr (std::is_same_v<T, double>) return vec::exp_f64(x);
  else return exp_attn(x);
}

// The largest of n values, with independent lanes so the loop vectorizes (`a > b ? a : b` is
// the max instruction); NaN is ignored here and then propagates through exp.
template <typename T>
TL_TARGET_CLONES T row_max(const T* x, int64_t n) {
  constexpr int64_t kLanes = 16;
  T acc[kLanes];
  for (int64_t j = 0; j < kLanes; ++j) acc[j] = -std::numeric_limits<T>::infinity();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t j = 0; j < kLanes; ++j) acc[j] = x[i + j] > acc[j] ? x[i + j] : acc[j];
  for (; i < n; ++i) acc[0] = x[i] > acc[0] ? x[i] : acc[0];
  for (int64_t j = 1; j < kLanes; ++j) acc[0] = acc[j] > acc[0] ? acc[j] : acc[0];
  return acc[0];
}

// The row loops of both passes, compiled per ISA (TL_TARGET_CLONES) so they run at the widest vectors.
// row[c] = exp(row[c] - shift); returns their sum.
template <typename T>
TL_TARGET_CLONES T exp_shifted_sum(T* row, int64_t n, T shift) {
  T sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int64_t c = 0; c < n; ++c) {
    row[c] = vexp<T>(row[c] - shift);
    sum += row[c];
  }
  return sum;
}

template <typename T>
TL_TARGET_CLONES void scale_row(T* row, int64_t n, T factor) {
#pragma omp simd
  for (int64_t c = 0; c < n; ++c) row[c] *= factor;
}

template <typename T>
TL_TARGET_CLONES T dot_row(const T* a, const T* b, int64_t n) {
  T d = 0;
#pragma omp simd reduction(+ : d)
  for (int64_t c = 0; c < n; ++c) d += a[c] * b[c];
  return d;
}

// dS = P * (dP - d), in place of dP.
template <typename T>
TL_TARGET_CLONES void softmax_grad_row(const T* p, T* dp, int64_t n, T d) {
#pragma omp simd
  for (int64_t c = 0; c < n; ++c) dp[c] = p[c] * (dp[c] - d);
}

ScalarType acc_dtype(ScalarType st) { return st == ScalarType::Float64 ? ScalarType::Float64 : ScalarType::Float32; }

struct Sizes {
  int64_t B, H, Hk, L, S, E, Ev;
};

// PyTorch reads sizes up to dim `read` before checking the rank: fewer dims is its IndexError.
void check_rank(const Tensor& t, int64_t read, const char* op) {
  if (t.dim() > read) return;
  const int64_t d = std::max<int64_t>(t.dim(), 1);
  throw IndexError(str(op, ": Dimension out of range (expected to be in range of [", -d, ", ", d - 1, "], but got ",
                       t.dim() == 0 ? 0 : read, ")"));
}

// The mask is additive, of the query's dtype (or float32 for 16-bit queries), as PyTorch's kernel
// takes it; it is not differentiable, so one that requires grad is refused as PyTorch's autograd
// layer refuses it (scaled_dot_product_attention sends such masks to the math path).
void check_mask(const std::optional<Tensor>& mask, ScalarType query_dtype, const char* op) {
  if (!mask || !mask->defined()) return;
  const ScalarType mt = mask->scalar_type();
  TL_CHECK(mt == query_dtype || (mt == ScalarType::Float32 && acc_dtype(query_dtype) == ScalarType::Float32), op,
           ": Attention mask is the same data type as query");
  TL_CHECK(!mask->requires_grad(), op, ": The function '", kOp,
           "' is not differentiable with respect to argument 'attn_mask'. This input cannot have requires_grad True.");
}

Sizes check_inputs(const Tensor& q, const Tensor& k, const Tensor& v, double dropout_p, bool backward,
                   const char* op) {
  TL_CHECK(dropout_p == 0.0, op, ": Currently do not support dropout > 0");
  for (const Tensor* t : {&q, &k, &v}) check_rank(*t, backward ? 3 : 2, op);
  TL_CHECK(q.dim() == 4 && k.dim() == 4 && v.dim() == 4, op, ": Accept only 4 dims inputs shape of {B, H, T, K}");
  TL_CHECK(k.sizes()[3] == q.sizes()[3] && v.sizes()[3] == q.sizes()[3], op, ": Q/K/V should have the same head size");
  TL_CHECK(q.dtype() == k.dtype() && q.dtype() == v.dtype(), op,
           ": Expected query, key, and value to have the same dtype, but got query.dtype: ", cpp_type_name(q.dtype()),
           " key.dtype: ", cpp_type_name(k.dtype()), " and value.dtype: ", cpp_type_name(v.dtype()), " instead.");
  TL_CHECK_AS(NotImplementedError, is_floating_type(q.dtype()), op, ": not implemented for '",
              scalar_type_name(q.dtype()), "'");
  const Sizes s{q.sizes()[0], q.sizes()[1], k.sizes()[1], q.sizes()[2], k.sizes()[2], q.sizes()[3], v.sizes()[3]};
  TL_CHECK(k.sizes()[0] == s.B && v.sizes()[0] == s.B, op, ": expected query, key and value to have the same batch size, got ",
           q.sizes(), ", ", k.sizes(), " and ", v.sizes());
  TL_CHECK(v.sizes()[1] == s.Hk && v.sizes()[2] == s.S && k.sizes()[3] == s.E, op,
           ": expected key (B, Hk, S, E) and value (B, Hk, S, Ev) to match query (B, H, L, E), got query ", q.sizes(),
           ", key ", k.sizes(), " and value ", v.sizes());
  TL_CHECK(s.Hk > 0 ? s.H % s.Hk == 0 : s.H == 0, op,
           ": Number of heads in key and value must divide the number of heads in query, got ", s.H, " and ", s.Hk);
  return s;
}

// A tensor whose rows GEMM can read in place: unit last stride and a row stride of at least a row.
Tensor gemm_ready(const Tensor& t, ScalarType dtype) {
  Tensor c = cast_to(t, dtype);
  const int64_t cols = c.sizes()[c.dim() - 1];
  if (c.strides()[c.dim() - 1] != 1 || c.strides()[c.dim() - 2] < std::max<int64_t>(cols, 1)) c = contiguous(c);
  return c;
}

// The additive mask in the accumulation dtype, broadcast to (B, H, L, S) (stride 0 where it repeats).
struct Mask {
  Tensor t;
  const void* data = nullptr;
  int64_t sb = 0, sh = 0, si = 0, sj = 0;
};

Mask make_mask(const std::optional<Tensor>& attn_mask, const Sizes& s, ScalarType acc, const char* op) {
  Mask m;
  if (!attn_mask || !attn_mask->defined()) return m;
  const Tensor& mask = *attn_mask;
  TL_CHECK(mask.dim() == 2 || mask.dim() == 4, op, ": expected attn_mask to be 2-D or 4-D, but got a ", mask.dim(),
           "-D tensor");
  m.t = expand(cast_to(mask, acc), {s.B, s.H, s.L, s.S});
  if (m.t.is_meta()) return m;
  m.data = m.t.data_ptr();
  m.sb = m.t.strides()[0], m.sh = m.t.strides()[1], m.si = m.t.strides()[2], m.sj = m.t.strides()[3];
  return m;
}

// Adds the mask and the causal limit (row i sees keys j <= i, top-left aligned) to an m x n block
// of scores whose first row is query row i0 and first column key row j0.
template <typename T>
void mask_block(T* sc, int64_t m, int64_t n, int64_t i0, int64_t j0, const Mask& mask, int64_t b, int64_t h,
                bool causal) {
  const T ninf = -std::numeric_limits<T>::infinity();
  for (int64_t r = 0; r < m; ++r) {
    T* row = sc + r * n;
    if (mask.data) {
      const T* mr = static_cast<const T*>(mask.data) + b * mask.sb + h * mask.sh + (i0 + r) * mask.si + j0 * mask.sj;
      const int64_t sj = mask.sj;
      if (sj == 1) {
#pragma omp simd
        for (int64_t c = 0; c < n; ++c) row[c] += mr[c];
      } else {
        for (int64_t c = 0; c < n; ++c) row[c] += mr[c * sj];
      }
    }
    if (causal)
      for (int64_t c = std::max<int64_t>(i0 + r + 1 - j0, 0); c < n; ++c) row[c] = ninf;
  }
}

// The keys query rows [i0, i0 + m) can see.
int64_t kv_limit(int64_t i0, int64_t m, int64_t S, bool causal) { return causal ? std::min(S, i0 + m) : S; }

template <typename T>
void flash_forward(const Tensor& q, const Tensor& k, const Tensor& v, const Mask& mask, bool causal, T scale,
                   const Sizes& s, T* out, T* lse) {
  const T* qd = q.data_ptr<T>();
  const T* kd = k.data_ptr<T>();
  const T* vd = v.data_ptr<T>();
  const int64_t qs[3] = {q.strides()[0], q.strides()[1], q.strides()[2]};
  const int64_t ks[3] = {k.strides()[0], k.strides()[1], k.strides()[2]};
  const int64_t vs[3] = {v.strides()[0], v.strides()[1], v.strides()[2]};
  const int64_t nq = (s.L + kQBlock - 1) / kQBlock, group = s.H / s.Hk;
  const int64_t kvb = std::min(kKvBlock, s.S);
  const T ninf = -std::numeric_limits<T>::infinity();
  parallel_for(0, s.B * s.H * nq, 1, [&](int64_t begin, int64_t end) {
    std::vector<T> sc(kQBlock * kvb), acc(kQBlock * s.Ev), rmax(kQBlock), rsum(kQBlock);
    for (int64_t t = begin; t < end; ++t) {
      const int64_t b = t / (s.H * nq), h = (t / nq) % s.H, i0 = (t % nq) * kQBlock, hk = h / group;
      const int64_t m = std::min(kQBlock, s.L - i0), kv_end = kv_limit(i0, m, s.S, causal);
      const T* qb = qd + b * qs[0] + h * qs[1] + i0 * qs[2];
      const T* kb = kd + b * ks[0] + hk * ks[1];
      const T* vb = vd + b * vs[0] + hk * vs[1];
      std::fill(rmax.begin(), rmax.end(), ninf);
      std::fill(rsum.begin(), rsum.end(), T(0));
      std::fill(acc.begin(), acc.end(), T(0));
      for (int64_t j0 = 0; j0 < kv_end; j0 += kvb) {
        const int64_t n = std::min(kvb, kv_end - j0);
        if (s.E > 0) blas::gemm<T>(false, true, m, n, s.E, scale, qb, qs[2], kb + j0 * ks[2], ks[2], T(0), sc.data(), n);
        else std::fill(sc.begin(), sc.begin() + m * n, T(0));
        mask_block(sc.data(), m, n, i0, j0, mask, b, h, causal);
        for (int64_t r = 0; r < m; ++r) {
          T* row = sc.data() + r * n;
          const T mx = row_max(row, n);
          const T new_max = std::max(rmax[r], mx);
          if (new_max == ninf) {  // every key so far masked: nothing to add
            std::fill(row, row + n, T(0));
            continue;
          }
          const T sum = exp_shifted_sum(row, n, new_max);
          const T corr = vexp<T>(rmax[r] - new_max);  // exp(-inf) = 0 on the first block
          rsum[r] = rsum[r] * corr + sum;
          rmax[r] = new_max;
          if (corr != T(1)) scale_row(acc.data() + r * s.Ev, s.Ev, corr);
        }
        if (s.Ev > 0) blas::gemm<T>(false, false, m, s.Ev, n, T(1), sc.data(), n, vb + j0 * vs[2], vs[2], T(1), acc.data(), s.Ev);
      }
      T* ob = out + ((b * s.H + h) * s.L + i0) * s.Ev;
      for (int64_t r = 0; r < m; ++r) {
        // A fully masked row gives zeros and a logsumexp of 0, as PyTorch's kernel.
        const T inv = rsum[r] > T(0) ? T(1) / rsum[r] : T(0);
        for (int64_t c = 0; c < s.Ev; ++c) ob[r * s.Ev + c] = acc[r * s.Ev + c] * inv;
        lse[(b * s.L + i0 + r) * s.H + h] = rsum[r] > T(0) ? rmax[r] + std::log(rsum[r]) : T(0);
      }
    }
  });
}

template <typename T>
void flash_backward(const Tensor& go, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& o,
                    const Tensor& lse, const Mask& mask, bool causal, T scale, const Sizes& s, T* gq, T* gk, T* gv) {
  const T* god = go.data_ptr<T>();
  const T* qd = q.data_ptr<T>();
  const T* kd = k.data_ptr<T>();
  const T* vd = v.data_ptr<T>();
  const T* od = o.data_ptr<T>();  // contiguous (B, H, L, Ev)
  const T* ld = lse.data_ptr<T>();  // contiguous (B, H, L)
  const int64_t gs[3] = {go.strides()[0], go.strides()[1], go.strides()[2]};
  const int64_t qs[3] = {q.strides()[0], q.strides()[1], q.strides()[2]};
  const int64_t ks[3] = {k.strides()[0], k.strides()[1], k.strides()[2]};
  const int64_t vs[3] = {v.strides()[0], v.strides()[1], v.strides()[2]};
  const int64_t group = s.H / s.Hk, kvb = std::min(kKvBlock, s.S);
  parallel_for(0, s.B * s.Hk, 1, [&](int64_t begin, int64_t end) {
    std::vector<T> p(kQBlock * kvb), dp(kQBlock * kvb), dq(kQBlock * s.E), dsum(kQBlock);
    for (int64_t t = begin; t < end; ++t) {
      const int64_t b = t / s.Hk, hk = t % s.Hk;
      const T* kb = kd + b * ks[0] + hk * ks[1];
      const T* vb = vd + b * vs[0] + hk * vs[1];
      T* gkb = gk + (b * s.Hk + hk) * s.S * s.E;  // contiguous outputs, zeroed by the caller
      T* gvb = gv + (b * s.Hk + hk) * s.S * s.Ev;
      for (int64_t h = hk * group; h < (hk + 1) * group; ++h) {
        for (int64_t i0 = 0; i0 < s.L; i0 += kQBlock) {
          const int64_t m = std::min(kQBlock, s.L - i0), kv_end = kv_limit(i0, m, s.S, causal);
          const T* qb = qd + b * qs[0] + h * qs[1] + i0 * qs[2];
          const T* gob = god + b * gs[0] + h * gs[1] + i0 * gs[2];
          const T* ob = od + ((b * s.H + h) * s.L + i0) * s.Ev;
          const T* lb = ld + (b * s.H + h) * s.L + i0;
          for (int64_t r = 0; r < m; ++r) dsum[r] = dot_row(gob + r * gs[2], ob + r * s.Ev, s.Ev);
          std::fill(dq.begin(), dq.end(), T(0));
          for (int64_t j0 = 0; j0 < kv_end; j0 += kvb) {
            const int64_t n = std::min(kvb, kv_end - j0);
            if (s.E > 0) blas::gemm<T>(false, true, m, n, s.E, scale, qb, qs[2], kb + j0 * ks[2], ks[2], T(0), p.data(), n);
            else std::fill(p.begin(), p.begin() + m * n, T(0));
            mask_block(p.data(), m, n, i0, j0, mask, b, h, causal);
            for (int64_t r = 0; r < m; ++r) exp_shifted_sum(p.data() + r * n, n, lb[r]);
            if (s.Ev > 0) {
              blas::gemm<T>(true, false, n, s.Ev, m, T(1), p.data(), n, gob, gs[2], T(1), gvb + j0 * s.Ev, s.Ev);
              blas::gemm<T>(false, true, m, n, s.Ev, T(1), gob, gs[2], vb + j0 * vs[2], vs[2], T(0), dp.data(), n);
            } else {
              std::fill(dp.begin(), dp.begin() + m * n, T(0));
            }
            for (int64_t r = 0; r < m; ++r) softmax_grad_row(p.data() + r * n, dp.data() + r * n, n, dsum[r]);
            if (s.E > 0) {
              blas::gemm<T>(false, false, m, s.E, n, scale, dp.data(), n, kb + j0 * ks[2], ks[2], T(1), dq.data(), s.E);
              blas::gemm<T>(true, false, n, s.E, m, scale, dp.data(), n, qb, qs[2], T(1), gkb + j0 * s.E, s.E);
            }
          }
          std::copy(dq.begin(), dq.begin() + m * s.E, gq + ((b * s.H + h) * s.L + i0) * s.E);
        }
      }
    }
  });
}

double softmax_scale(std::optional<double> scale, int64_t E) {
  return scale ? *scale : 1.0 / std::sqrt(static_cast<double>(E));
}

}  // namespace

std::tuple<Tensor, Tensor> _scaled_dot_product_flash_attention_for_cpu_kernel(
    const Tensor& query, const Tensor& key, const Tensor& value, double dropout_p, bool is_causal,
    const std::optional<Tensor>& attn_mask, std::optional<double> scale) {
  const Sizes s = check_inputs(query, key, value, dropout_p, false, kOp);
  check_mask(attn_mask, query.scalar_type(), kOp);
  const ScalarType st = query.scalar_type(), acc = acc_dtype(st);
  // logsumexp is laid out (B, L, H) and returned transposed, as PyTorch's.
  Tensor lse = empty_tensor({s.B, s.L, s.H}, acc, query.device());
  Tensor out = empty_tensor({s.B, s.H, s.L, s.Ev}, acc, query.device());
  if (!query.is_meta() && lse.numel() > 0) {  // with nothing to compute the mask is not read
    const Mask mask = make_mask(attn_mask, s, acc, kOp);
    const Tensor q = gemm_ready(query, acc), k = gemm_ready(key, acc), v = gemm_ready(value, acc);
    TL_DISPATCH_SWITCH(acc, kOp, TL_DISPATCH_CASE(Float32, float, [&] {
      flash_forward<float>(q, k, v, mask, is_causal, static_cast<float>(softmax_scale(scale, s.E)), s,
                           out.data_ptr<float>(), lse.data_ptr<float>());
    }) TL_DISPATCH_CASE(Float64, double, [&] {
      flash_forward<double>(q, k, v, mask, is_causal, softmax_scale(scale, s.E), s, out.data_ptr<double>(),
                            lse.data_ptr<double>());
    }));
  }
  return {st == acc ? out : cast_to(out, st), transpose(lse, 1, 2)};
}

std::tuple<Tensor, Tensor, Tensor> _scaled_dot_product_flash_attention_for_cpu_backward_kernel(
    const Tensor& grad_out, const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& out,
    const Tensor& logsumexp, double dropout_p, bool is_causal, const std::optional<Tensor>& attn_mask,
    std::optional<double> scale) {
  const Sizes s = check_inputs(query, key, value, dropout_p, true, kBackwardOp);
  TL_CHECK(grad_out.sizes() == IntArrayRef({s.B, s.H, s.L, s.Ev}) && out.sizes() == grad_out.sizes(), kBackwardOp,
           ": expected grad_out and out of shape ", IntArrayRef({s.B, s.H, s.L, s.Ev}), ", got ", grad_out.sizes(),
           " and ", out.sizes());
  TL_CHECK(logsumexp.sizes() == IntArrayRef({s.B, s.H, s.L}), kBackwardOp, ": expected logsumexp of shape ",
           IntArrayRef({s.B, s.H, s.L}), ", got ", logsumexp.sizes());
  const ScalarType st = query.scalar_type(), acc = acc_dtype(st);
  // PyTorch reads these buffers with fixed types: the logsumexp in the accumulation dtype.
  for (const auto& [t, want] : {std::pair{&grad_out, st}, std::pair{&out, st}, std::pair{&logsumexp, acc}})
    TL_CHECK(t->scalar_type() == want, kBackwardOp, ": expected scalar type ", legacy_type_name(want), " but found ",
             legacy_type_name(t->scalar_type()));
  Tensor gq = empty_tensor(query.sizes(), acc, query.device());
  Tensor gk = zeros(key.sizes(), acc, key.device());
  Tensor gv = zeros(value.sizes(), acc, value.device());
  if (!query.is_meta() && s.B * s.H * s.L > 0) {
    const Mask mask = make_mask(attn_mask, s, acc, kBackwardOp);
    const Tensor go = gemm_ready(grad_out, acc), q = gemm_ready(query, acc), k = gemm_ready(key, acc),
                 v = gemm_ready(value, acc), o = contiguous(cast_to(out, acc)), l = contiguous(cast_to(logsumexp, acc));
    TL_DISPATCH_SWITCH(acc, kBackwardOp, TL_DISPATCH_CASE(Float32, float, [&] {
      flash_backward<float>(go, q, k, v, o, l, mask, is_causal, static_cast<float>(softmax_scale(scale, s.E)), s,
                            gq.data_ptr<float>(), gk.data_ptr<float>(), gv.data_ptr<float>());
    }) TL_DISPATCH_CASE(Float64, double, [&] {
      flash_backward<double>(go, q, k, v, o, l, mask, is_causal, softmax_scale(scale, s.E), s, gq.data_ptr<double>(),
                             gk.data_ptr<double>(), gv.data_ptr<double>());
    }));
  }
  if (st == acc) return {gq, gk, gv};
  return {cast_to(gq, st), cast_to(gk, st), cast_to(gv, st)};
}

}  // namespace tl::native
