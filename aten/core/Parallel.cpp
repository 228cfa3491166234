#include "aten/core/Parallel.h"

#include <pthread.h>

#include <atomic>

#include "aten/core/Exception.h"

namespace tl {
namespace {
// 0 = not initialised yet.
std::atomic<int> g_num_threads{0};

// GNU OpenMP's thread pool does not survive fork(): a child that enters a parallel region after its
// parent used one waits forever for threads that were not copied. A forked child (a DataLoader worker,
// multiprocessing with the fork start method) therefore runs every parallel_for on its calling thread.
std::atomic<bool> g_forked_child{false};
const int g_atfork_registered = pthread_atfork(nullptr, nullptr, [] { g_forked_child.store(true); });
}  // namespace

int get_num_threads() {
  if (g_forked_child.load(std::memory_order_relaxed)) return 1;
  int n = g_num_threads.load(std::memory_order_relaxed);
  if (n > 0) return n;
  n = std::max(1, omp_get_max_threads());
  g_num_threads.store(n, std::memory_order_relaxed);
  return n;
}

void set_num_threads(int n) {
  TL_CHECK_VALUE(n > 0, "set_num_threads: expected a positive number of threads, but got ", n);
  g_num_threads.store(n, std::memory_order_relaxed);
}

}  // namespace tl
