#include "aten/core/Parallel.h"

#include <atomic>

#include "aten/core/Exception.h"

namespace tl {
namespace {
// 0 = not initialised yet.
std::atomic<int> g_num_threads{0};
}  // namespace

int get_num_threads() {
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
