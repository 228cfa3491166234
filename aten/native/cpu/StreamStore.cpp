// Non-temporal copies (StreamStore.h): one loop per ISA, picked once at run time.
#include "aten/native/cpu/StreamStore.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TL_STREAM_X86 1
#endif

namespace tl::native {
namespace {

// The last-level cache one core can use: a constant, because sysconf reports the whole host's L3 in a
// virtual machine (320 MiB on the 2-core EPYC VM this was measured on, whose cores share one 32 MiB L3).
constexpr int64_t kLastLevelCacheBytes = int64_t(32) << 20;

bool streaming_enabled() {
  const char* v = std::getenv("TORCHLITE_STREAM_STORES");
  return !(v && std::strcmp(v, "0") == 0);
}

#ifdef TL_STREAM_X86
enum class Isa { Sse2, Avx512 };

Isa pick_isa() { return __builtin_cpu_supports("avx512f") ? Isa::Avx512 : Isa::Sse2; }

__attribute__((target("avx512f"))) void copy_avx512(char* d, const char* s, int64_t n) {
  int64_t i = 0;
  for (; i + 256 <= n; i += 256) {
    const __m512i a = _mm512_loadu_si512(s + i), b = _mm512_loadu_si512(s + i + 64);
    const __m512i c = _mm512_loadu_si512(s + i + 128), e = _mm512_loadu_si512(s + i + 192);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(d + i), a);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(d + i + 64), b);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(d + i + 128), c);
    _mm512_stream_si512(reinterpret_cast<__m512i*>(d + i + 192), e);
  }
  for (; i + 64 <= n; i += 64) _mm512_stream_si512(reinterpret_cast<__m512i*>(d + i), _mm512_loadu_si512(s + i));
  if (i < n) std::memcpy(d + i, s + i, static_cast<size_t>(n - i));
}

void copy_sse2(char* d, const char* s, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + i), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i)));
  if (i < n) std::memcpy(d + i, s + i, static_cast<size_t>(n - i));
}
#endif

}  // namespace

bool stream_output(int64_t bytes) {
  static const bool enabled = streaming_enabled();
  return enabled && bytes >= kLastLevelCacheBytes;
}

void stream_copy(void* dst, const void* src, int64_t bytes) {
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
#ifdef TL_STREAM_X86
  static const Isa isa = pick_isa();
  const int64_t align = isa == Isa::Avx512 ? 64 : 16;
  // Ordinary stores up to the first aligned address of dst.
  const int64_t head = std::min<int64_t>(bytes, (align - static_cast<int64_t>(reinterpret_cast<uintptr_t>(d) % align)) % align);
  if (head) std::memcpy(d, s, static_cast<size_t>(head));
  if (isa == Isa::Avx512) copy_avx512(d + head, s + head, bytes - head);
  else copy_sse2(d + head, s + head, bytes - head);
#else
  std::memcpy(d, s, static_cast<size_t>(bytes));
#endif
}

void stream_fence() {
#ifdef TL_STREAM_X86
  _mm_sfence();
#endif
}

}  // namespace tl::native
