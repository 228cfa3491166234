#include "aten/core/Allocator.h"

#include <unistd.h>

#include <sys/mman.h>
#include <sys/sysinfo.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <new>

#include "aten/core/BlockCache.h"
#include "aten/core/Exception.h"

namespace tl {
namespace {

constexpr size_t kAlignment = 64;  // a cache line; also enough for AVX-512 loads
// Large blocks are aligned to 2 MiB and marked for transparent huge pages: first-touching a fresh
// 40 MB output then costs ~20x fewer page faults, which dominate a 10M-element pointwise op.
constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kHugeThreshold = size_t(4) << 20;
// ...but not blocks above 256 MiB: a 524 MB block needs 250 free huge pages at once, and on a busy machine
// (defrag=madvise) each fault then compacts memory synchronously: cross_entropy's 4096x32000 grad_input
// took 1.1-1.4 s of system time in 253 faults, against 0.25-0.3 s in 128,000 ordinary ones.
constexpr size_t kHugeAdviceMax = size_t(256) << 20;
std::atomic<size_t> g_cpu_bytes{0};

constexpr size_t kMaxBlock = size_t(1) << 62;  // keeps the rounding below from overflowing
thread_local const char* t_current_op = nullptr;

// Physical memory plus swap, in bytes (computed once).
size_t memory_limit() {
  static const size_t limit = [] {
    struct sysinfo info {};
    if (sysinfo(&info) != 0) return std::numeric_limits<size_t>::max();
    const unsigned __int128 total =
        (static_cast<unsigned __int128>(info.totalram) + info.totalswap) * info.mem_unit;
    return total > std::numeric_limits<size_t>::max() ? std::numeric_limits<size_t>::max()
                                                      : static_cast<size_t>(total);
  }();
  return limit;
}

// "8.0 TiB": one decimal in the largest binary unit below the value.
std::string human_bytes(size_t nbytes) {
  static const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(nbytes);
  int u = 0;
  while (v >= 1024.0 && u < 6) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

struct CpuBlock {
  size_t nbytes;
  size_t huge_total;  // a huge block's whole size (it may go to the block cache); 0 for small blocks
};

// The header before each block records its size so the deleter can keep the count.
void cpu_free(void* ctx) {
  auto* block = static_cast<CpuBlock*>(ctx);
  g_cpu_bytes.fetch_sub(block->nbytes, std::memory_order_relaxed);
  if (block->huge_total) {
    block_cache_give(block, block->huge_total);
  } else {
    std::free(block);
  }
}

struct CpuAllocator final : Allocator {
  DataPtr allocate(size_t nbytes) override {
    const bool huge = nbytes >= kHugeThreshold;
    const size_t align = huge ? kHugePage : kAlignment;
    // The header sits `align` bytes before the data so the data keeps the block's alignment.
    // A block larger than RAM + swap could only be backed by overcommitted pages, and touching
    // them would get the process killed: refuse it up front.
    if (nbytes > kMaxBlock || nbytes > memory_limit()) out_of_memory_error(nbytes);
    size_t total = align + ((nbytes + align - 1) / align) * align;
    // Small blocks come from plain malloc, aligned by hand: aligned_alloc splits and frees a larger
    // chunk under the arena lock on every call, a fifth of a 1-element op's time; malloc's
    // thread cache does not. malloc's 16-byte alignment leaves room for the header within `align`.
    static_assert(sizeof(CpuBlock) <= alignof(std::max_align_t));
    void* base = huge ? block_cache_take(total) : nullptr;
    const bool reused = base != nullptr;
    if (!base) base = huge ? std::aligned_alloc(align, total) : std::malloc(total);
    if (!base) out_of_memory_error(nbytes);
    char* data = static_cast<char*>(base) + align;
    if (!huge) {
      const auto first = reinterpret_cast<uintptr_t>(base) + sizeof(CpuBlock);
      data = reinterpret_cast<char*>((first + align - 1) & ~uintptr_t(align - 1));
    }
#ifdef MADV_HUGEPAGE
    if (huge && !reused && total <= kHugeAdviceMax) madvise(data, total - align, MADV_HUGEPAGE);
#endif
    *reinterpret_cast<CpuBlock*>(base) = CpuBlock{nbytes, huge ? total : 0};
    g_cpu_bytes.fetch_add(nbytes, std::memory_order_relaxed);
    return DataPtr(data, base, &cpu_free);
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

const char* current_op() { return t_current_op; }
void set_current_op(const char* op) { t_current_op = op; }

void out_of_memory_error(size_t nbytes) {
  // The op's schema name without its overload ("empty.memory_format" -> "empty").
  std::string op = t_current_op ? t_current_op : "DefaultCPUAllocator";
  op = op.substr(0, op.find('.'));
  throw RuntimeError(str(op, ": tried to allocate ", nbytes, " bytes (", human_bytes(nbytes), "): out of memory"));
}

void check_list_fits(uint64_t count, size_t element_bytes) {
  static const uint64_t physical = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                                   static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(count, static_cast<uint64_t>(element_bytes), &bytes) || bytes > physical) {
    out_of_memory_error(bytes ? static_cast<size_t>(bytes) : SIZE_MAX);
  }
}

}  // namespace tl
