// Non-temporal ("streaming") stores for the large outputs of memory-bound kernels (the normalization
// kernels). An ordinary store first reads the destination line into the cache (read-for-ownership);
// when the op's input and output together exceed the last-level cache, that read is pure extra
// traffic (a third of a normalize pass's). The kernels compute a piece of a row into a small buffer
// (L1) and stream_copy it out; stream_fence makes the stores visible before the thread's work ends.
#pragma once
#include <cstdint>

namespace tl::native {

// True when an op touching `bytes` of memory in one sweep should stream its output: `bytes` is at
// least the size of a last-level cache (32 MiB, StreamStore.cpp), so the output would not stay cached.
// TORCHLITE_STREAM_STORES=0 (read once) turns streaming off (tests and benchmarks compare both).
bool stream_output(int64_t bytes);

// Copies `bytes` from src to dst with non-temporal stores (the unaligned head and tail of dst with
// ordinary ones); a plain memcpy where the CPU has no such stores.
void stream_copy(void* dst, const void* src, int64_t bytes);

// Orders the calling thread's streamed stores before its later stores (an sfence).
void stream_fence();

// Elements per piece a kernel computes before streaming it (a 4 KiB float buffer).
constexpr int64_t kStreamPiece = 1024;

}  // namespace tl::native
