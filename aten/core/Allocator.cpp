#include "aten/core/Allocator.h"

#include <atomic>
#include <cstdlib>
#include <new>

#include "aten/core/Exception.h"

namespace tl {
namespace {

constexpr size_t kAlignment = 64;  // a cache line; also enough for AVX-512 loads
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
    size_t total = kAlignment + ((nbytes + kAlignment - 1) / kAlignment) * kAlignment;
    void* base = std::aligned_alloc(kAlignment, total);
    if (!base) {
      throw RuntimeError(str("DefaultCPUAllocator: can't allocate memory: you tried to allocate ", nbytes,
                             " bytes"));
    }
    reinterpret_cast<CpuBlock*>(base)->nbytes = nbytes;
    g_cpu_bytes.fetch_add(nbytes, std::memory_order_relaxed);
    return DataPtr(static_cast<char*>(base) + kAlignment, base, &cpu_free);
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
