// A small cache of freed large CPU blocks, so that an op run in a loop gets back the block its last
// output lived in instead of mapping fresh pages. glibc's heap does the same for PyTorch below its
// 32 MiB mmap threshold: without this, a 10 MB output costs a page fault per 2 MiB huge page (or per
// 4 KiB page without them) and the zeroing of every page on each call, twice the op itself for
// `isreal` of 10M floats. Blocks above the limit go back to the system as before.
#pragma once
#include <cstddef>

namespace tl {

// Largest block (bytes including its alignment header) kept after it is freed.
constexpr size_t kBlockCacheMaxBlock = size_t(34) << 20;

// A cached block of exactly `total` bytes (as from aligned_alloc), or null.
void* block_cache_take(size_t total);
// Keeps `base` (`total` bytes) for reuse, or frees it when the cache is off or the block too large.
// The cache holds at most 64 MiB; older blocks are freed first.
void block_cache_give(void* base, size_t total);
// False in the sanitizer build, where every block goes straight back to the system.
bool block_cache_enabled();
// Frees every cached block (tests; memory pressure).
void block_cache_clear();

}  // namespace tl
