#include "aten/core/Allocator.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "aten/core/Exception.h"

namespace tl {
namespace {

constexpr size_t kAlignment = 64;  // a cache line; also enough for AVX-512 loads
// Large blocks are aligned to 2 MiB and marked for transparent huge pages: first-touching a fresh
// 40 MB output then costs ~20x fewer page faults, which dominate a 10M-element pointwise op.
constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kHugeThreshold = size_t(4) << 20;
std::atomic<size_t> g_cpu_bytes{0};

struct CpuBlock {
  size_t nbytes;
};

// The header before each block records its size so the deleter can keep the count.
void cpu_free(void* ctx) {
  auto* base = static_cast<char*>(ctx);
  g_cpu_bytes.fetch_sub(reinterpret_cast<CpuBlock*>(base)->nbytes, std::memory_order_relaxed);
  std::free(base);
}

struct CpuAllocator final : Allocator {
  DataPtr allocate(size_t nbytes) override {
    const bool huge = nbytes >= kHugeThreshold;
    const size_t align = huge ? kHugePage : kAlignment;
    // The header sits `align` bytes before the data so the data keeps the block's alignment.
    size_t total = align + ((nbytes + align - 1) / align) * align;
    void* base = std::aligned_alloc(align, total);
    if (!base) {
      throw RuntimeError(str("DefaultCPUAllocator: can't allocate memory: you tried to allocate ", nbytes,
                             " bytes"));
    }
#ifdef MADV_HUGEPAGE
    if (huge) madvise(static_cast<char*>(base) + align, total - align, MADV_HUGEPAGE);
#endif
    reinterpret_cast<CpuBlock*>(base)->nbytes = nbytes;
    g_cpu_bytes.fetch_add(nbytes, std::memory_order_relaxed);
    return DataPtr(static_cast<char*>(base) + align, base, &cpu_free);
  }
};

// Meta tensors have no data: a null pointer with no deleter.
struct MetaAllocator final : Allocator {
  DataPtr allocate(size_t) override { return DataPtr(); }
};

CpuAllocator g_cpu_allocator;
MetaAllocator g_meta_allocator;
Allocator* g_allocators[kNumDeviceTypes] = {&g_cpu_allocator, &g_meta_allocator};

}  // namespace

Allocator* get_allocator(DeviceType type) { return g_allocators[static_cast<int>(type)]; }
void set_allocator(DeviceType type, Allocator* allocator) {
  TL_CHECK(allocator != nullptr, "set_allocator: allocator must not be null");
  g_allocators[static_cast<int>(type)] = allocator;
}
size_t cpu_allocated_bytes() { return g_cpu_bytes.load(std::memory_order_relaxed); }

}  // namespace tl
