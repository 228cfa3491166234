// The innermost-dim gather engine (GatherLastDim.h): one loop per ISA, picked at run time.
#include "aten/native/cpu/GatherLastDim.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TL_GATHER_X86 1
#endif

namespace tl::native {

namespace {

constexpr int64_t kStep = 16;  // elements per vector step; at most a few prefetches per step
// Rows of x up to this size are prefetched (they stay in L1/L2 while their row is gathered);
// longer rows are read where the indices fall.
constexpr int64_t kPrefetchRowBytes = 16 * 1024;

enum class Isa { Generic, Avx2, Avx512 };

// The widest loop this CPU runs. TORCHLITE_GATHER_ISA=avx2 or =generic (read once) lowers it, so
// that the tests run every loop on an AVX-512 machine (tests/test_gather_last_dim.py).
Isa pick_isa() {
  Isa isa = Isa::Generic;
#ifdef TL_GATHER_X86
  if (__builtin_cpu_supports("avx512f")) isa = Isa::Avx512;
  else if (__builtin_cpu_supports("avx2")) isa = Isa::Avx2;
#endif
  if (const char* want = std::getenv("TORCHLITE_GATHER_ISA")) {
    if (std::strcmp(want, "generic") == 0) isa = Isa::Generic;
    else if (std::strcmp(want, "avx2") == 0 && isa == Isa::Avx512) isa = Isa::Avx2;
  }
  return isa;
}

Isa best_isa() {
  static const Isa isa = pick_isa();
  return isa;
}

// The next row of x, prefetched a few lines per step of the current row, the rest after it.
struct NextRow {
  const char* p = nullptr;
  const char* end = nullptr;
  int64_t per_step = 0;
  void step() {
    for (int64_t k = 0; k < per_step && p < end; ++k, p += 64) __builtin_prefetch(p);
  }
  void rest() {
    for (; p < end; p += 64) __builtin_prefetch(p);
  }
};

// One element, clamped; `bad` collects whether the index was out of range.
template <size_t S>
inline void gather_one(char* y, const char* x, uint64_t v, uint64_t last, uint64_t& bad) {
  bad |= static_cast<uint64_t>(v > last);
  std::memcpy(y, x + (v < last ? v : last) * S, S);
}

template <size_t S>
bool segment_generic(char* y, const char* x, const int64_t* ix, int64_t len, uint64_t last, NextRow& pf) {
  uint64_t bad = 0;
  int64_t i = 0;
  for (; i + kStep <= len; i += kStep) {
    pf.step();
    for (int64_t k = i; k < i + kStep; ++k) gather_one<S>(y + k * S, x, static_cast<uint64_t>(ix[k]), last, bad);
  }
  for (; i < len; ++i) gather_one<S>(y + i * S, x, static_cast<uint64_t>(ix[i]), last, bad);
  pf.rest();
  return bad == 0;
}

#ifdef TL_GATHER_X86
// GCC 12 warns inside its own intrinsics (min_epu64, i64gather), whose unused lanes start from
// deliberately undefined registers.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// 4-byte elements: 8 int64 indices give 8 elements (vpgatherqd); 8-byte: vpgatherqq.
template <size_t S>
__attribute__((target("avx512f"))) bool segment_avx512(char* y, const char* x, const int64_t* ix, int64_t len,
                                                       uint64_t last, NextRow& pf) {
  const __m512i lim = _mm512_set1_epi64(static_cast<int64_t>(last));
  __mmask8 badv = 0;
  int64_t i = 0;
  for (; i + kStep <= len; i += kStep) {
    pf.step();
    __m512i a = _mm512_loadu_si512(ix + i), b = _mm512_loadu_si512(ix + i + 8);
    badv |= _mm512_cmpgt_epu64_mask(a, lim) | _mm512_cmpgt_epu64_mask(b, lim);
    a = _mm512_min_epu64(a, lim);
    b = _mm512_min_epu64(b, lim);
    if constexpr (S == 4) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i * 4), _mm512_i64gather_epi32(a, x, 4));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + (i + 8) * 4), _mm512_i64gather_epi32(b, x, 4));
    } else {
      _mm512_storeu_si512(y + i * 8, _mm512_i64gather_epi64(a, x, 8));
      _mm512_storeu_si512(y + (i + 8) * 8, _mm512_i64gather_epi64(b, x, 8));
    }
  }
  uint64_t bad = badv;
  for (; i < len; ++i) gather_one<S>(y + i * S, x, static_cast<uint64_t>(ix[i]), last, bad);
  pf.rest();
  return bad == 0;
}
#pragma GCC diagnostic pop

template <size_t S>
__attribute__((target("avx2"))) bool segment_avx2(char* y, const char* x, const int64_t* ix, int64_t len,
                                                  uint64_t last, NextRow& pf) {
  // Unsigned 64-bit compare as a signed one of the values with their top bit flipped.
  const __m256i sign = _mm256_set1_epi64x(INT64_MIN);
  const __m256i lim = _mm256_set1_epi64x(static_cast<int64_t>(last));
  const __m256i lim_flipped = _mm256_xor_si256(lim, sign);
  __m256i badv = _mm256_setzero_si256();
  int64_t i = 0;
  for (; i + kStep <= len; i += kStep) {
    pf.step();
    for (int64_t k = i; k < i + kStep; k += 4) {
      __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ix + k));
      const __m256i over = _mm256_cmpgt_epi64(_mm256_xor_si256(v, sign), lim_flipped);
      badv = _mm256_or_si256(badv, over);
      v = _mm256_blendv_epi8(v, lim, over);
      if constexpr (S == 4)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(y + k * 4),
                         _mm256_i64gather_epi32(reinterpret_cast<const int*>(x), v, 4));
      else
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + k * 8),
                            _mm256_i64gather_epi64(reinterpret_cast<const long long*>(x), v, 8));
    }
  }
  uint64_t bad = !_mm256_testz_si256(badv, badv);
  for (; i < len; ++i) gather_one<S>(y + i * S, x, static_cast<uint64_t>(ix[i]), last, bad);
  pf.rest();
  return bad == 0;
}
#endif

template <size_t S, Isa I>
bool gather_rows(char* y, const char* x, const int64_t* ix, int64_t n, int64_t xs, int64_t bound, int64_t begin,
                 int64_t end) {
  const uint64_t last = static_cast<uint64_t>(bound - 1);
  const int64_t row_bytes = bound * static_cast<int64_t>(S), lines = (row_bytes + 63) / 64;
  // Worth it when the row is cache-sized and its lines are each touched at least once on average.
  const bool prefetch = xs != 0 && row_bytes <= kPrefetchRowBytes && lines <= n;
  for (int64_t k = begin; k < end;) {
    const int64_t r = k / n, len = std::min(n - (k - r * n), end - k);
    const char* xr = x + r * xs * static_cast<int64_t>(S);
    NextRow pf;
    if (prefetch && k + len < end) {
      pf.p = xr + xs * static_cast<int64_t>(S);
      pf.end = pf.p + row_bytes;
      pf.per_step = std::max<int64_t>(1, (lines * kStep + len - 1) / std::max<int64_t>(len, 1));
    }
    bool ok;
#ifdef TL_GATHER_X86
    if constexpr (I == Isa::Avx512) ok = segment_avx512<S>(y + k * S, xr, ix + k, len, last, pf);
    else if constexpr (I == Isa::Avx2) ok = segment_avx2<S>(y + k * S, xr, ix + k, len, last, pf);
    else
#endif
      ok = segment_generic<S>(y + k * S, xr, ix + k, len, last, pf);
    if (!ok) return false;
    k += len;
  }
  return true;
}

}  // namespace

template <size_t kSize>
bool gather_last_dim(void* y, const void* x, const int64_t* ix, int64_t n, int64_t x_row_stride, int64_t bound,
                     int64_t begin, int64_t end) {
  if (begin >= end) return true;
  if (bound <= 0 || n <= 0) return false;  // no valid index (n <= 0 cannot have elements)
  char* yc = static_cast<char*>(y);
  const char* xc = static_cast<const char*>(x);
  if constexpr (kSize == 4 || kSize == 8) {
    switch (best_isa()) {
      case Isa::Avx512: return gather_rows<kSize, Isa::Avx512>(yc, xc, ix, n, x_row_stride, bound, begin, end);
      case Isa::Avx2: return gather_rows<kSize, Isa::Avx2>(yc, xc, ix, n, x_row_stride, bound, begin, end);
      default: break;
    }
  }
  return gather_rows<kSize, Isa::Generic>(yc, xc, ix, n, x_row_stride, bound, begin, end);
}

template bool gather_last_dim<1>(void*, const void*, const int64_t*, int64_t, int64_t, int64_t, int64_t, int64_t);
template bool gather_last_dim<2>(void*, const void*, const int64_t*, int64_t, int64_t, int64_t, int64_t, int64_t);
template bool gather_last_dim<4>(void*, const void*, const int64_t*, int64_t, int64_t, int64_t, int64_t, int64_t);
template bool gather_last_dim<8>(void*, const void*, const int64_t*, int64_t, int64_t, int64_t, int64_t, int64_t);

}  // namespace tl::native
