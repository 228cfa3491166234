// Intra-op parallelism on top of OpenMP.
//
//   tl::parallel_for(begin, end, grain_size, [&](int64_t b, int64_t e) { ... });
//
// splits [begin, end) into at most get_num_threads() contiguous chunks of at least
// grain_size elements and runs f on each chunk. It runs f(begin, end) serially on the calling
// thread (no thread start-up, no allocation) when the range is at most grain_size, when only
// one thread is allowed, or when called from inside a parallel region (no nested parallelism).
// An exception thrown by f in any chunk is rethrown on the calling thread (the first one wins;
// the other chunks still run to completion).
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>

namespace tl {

// Threads used by parallel_for (default: the number of cores, capped by OMP_NUM_THREADS).
int get_num_threads();
// Sets the number of threads for parallel_for; n must be >= 1.
void set_num_threads(int n);
// True on a thread that is running a chunk of a parallel_for (or any OpenMP parallel region).
inline bool in_parallel_region() { return omp_in_parallel(); }

// Grain size most elementwise kernels use: ranges smaller than this run on one thread.
constexpr int64_t kGrainSize = 32768;

template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain_size, const F& f) {
  if (begin >= end) return;
  const int64_t n = end - begin;
  grain_size = std::max<int64_t>(grain_size, 1);
  if (n <= grain_size || omp_in_parallel()) {
    f(begin, end);
    return;
  }
  const int64_t max_threads = get_num_threads();
  const int64_t nthreads = std::min<int64_t>(max_threads, (n + grain_size - 1) / grain_size);
  if (nthreads <= 1) {
    f(begin, end);
    return;
  }
  std::atomic<bool> failed{false};
  std::exception_ptr error;
#pragma omp parallel num_threads(static_cast<int>(nthreads))
  {
    const int64_t tid = omp_get_thread_num();
    const int64_t team = omp_get_num_threads();
    const int64_t chunk = (n + team - 1) / team;
    const int64_t b = begin + tid * chunk;
    if (b < end) {
      try {
        f(b, std::min(end, b + chunk));
      } catch (...) {
        if (!failed.exchange(true)) error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace tl
