#include "aten/core/BlockCache.h"

#include <pthread.h>

#include <cstdlib>
#include <mutex>

namespace tl {
namespace {

constexpr size_t kSlots = 8;
constexpr size_t kMaxCachedBytes = size_t(64) << 20;

// Under AddressSanitizer a reused block would hide a use after free: the cache is off there.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kCacheEnabled = false;
#else
constexpr bool kCacheEnabled = true;
#endif

struct Slot {
  void* base = nullptr;
  size_t total = 0;
  unsigned long long age = 0;  // larger is more recent
};

struct Cache {
  std::mutex mutex;
  Slot slots[kSlots];
  size_t bytes = 0;
  unsigned long long clock = 0;
};

Cache& cache() {
  static Cache* c = [] {
    auto* fresh = new Cache();  // never destroyed: blocks may be freed during static destruction
    // A fork while another thread holds the lock would leave the child's copy locked forever.
    pthread_atfork([] { cache().mutex.lock(); }, [] { cache().mutex.unlock(); },
                   [] { cache().mutex.unlock(); });
    return fresh;
  }();
  return *c;
}

}  // namespace

bool block_cache_enabled() { return kCacheEnabled; }

void* block_cache_take(size_t total) {
  if (!kCacheEnabled || total > kBlockCacheMaxBlock) return nullptr;
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  Slot* best = nullptr;  // the most recently freed block of this size: its pages are the warmest
  for (Slot& s : c.slots) {
    if (s.base && s.total == total && (!best || s.age > best->age)) best = &s;
  }
  if (!best) return nullptr;
  void* base = best->base;
  c.bytes -= best->total;
  *best = Slot{};
  return base;
}

void block_cache_give(void* base, size_t total) {
  if (!kCacheEnabled || total > kBlockCacheMaxBlock) {
    std::free(base);
    return;
  }
  void* evicted[kSlots];
  size_t n_evicted = 0;
  {
    Cache& c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    // Make room: free the oldest blocks until the new one fits in a slot and in the byte budget.
    for (;;) {
      Slot* empty = nullptr;
      Slot* oldest = nullptr;
      for (Slot& s : c.slots) {
        if (!s.base) {
          if (!empty) empty = &s;
        } else if (!oldest || s.age < oldest->age) {
          oldest = &s;
        }
      }
      if (empty && c.bytes + total <= kMaxCachedBytes) {
        *empty = Slot{base, total, ++c.clock};
        c.bytes += total;
        break;
      }
      if (!oldest) {  // cannot happen (a block fits an empty cache), but never leak it
        std::free(base);
        break;
      }
      evicted[n_evicted++] = oldest->base;
      c.bytes -= oldest->total;
      *oldest = Slot{};
    }
  }
  for (size_t i = 0; i < n_evicted; ++i) std::free(evicted[i]);  // outside the lock
}

void block_cache_clear() {
  void* freed[kSlots];
  size_t n = 0;
  {
    Cache& c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    for (Slot& s : c.slots) {
      if (s.base) freed[n++] = s.base;
      s = Slot{};
    }
    c.bytes = 0;
  }
  for (size_t i = 0; i < n; ++i) std::free(freed[i]);
}

}  // namespace tl
