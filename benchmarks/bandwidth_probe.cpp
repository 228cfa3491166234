// This machine's memory bandwidth for one thread, to judge whether a kernel is bandwidth-bound
// (bench_catalog2.md: gather along the last dim). Timed as the thread's CPU time, so that load from
// other processes on the shared machine (time slicing) does not count; buffers are far larger than
// the 32 MB L3.
//
//     g++ -O2 -std=c++17 benchmarks/bandwidth_probe.cpp -o /tmp/bandwidth_probe && /tmp/bandwidth_probe
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

static double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main() {
  const int64_t n = int64_t(64) << 20;  // 512 MB of int64, 256 MB of float
  auto* a = static_cast<int64_t*>(std::aligned_alloc(64, n * 8));
  auto* b = static_cast<float*>(std::aligned_alloc(64, n * 4));
  for (int64_t i = 0; i < n; ++i) a[i] = i & 1023;
  std::memset(b, 0, n * 4);
  double read = 1e9, narrow = 1e9;
  volatile int64_t sink = 0;
  for (int rep = 0; rep < 9; ++rep) {
    double t = cpu_seconds();
    int64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;  // four sums: the loads, not the adds, set the pace
    for (int64_t i = 0; i < n; i += 4) s0 += a[i], s1 += a[i + 1], s2 += a[i + 2], s3 += a[i + 3];
    sink = s0 + s1 + s2 + s3;
    read = std::min(read, cpu_seconds() - t);
    t = cpu_seconds();
    for (int64_t i = 0; i < n; ++i) b[i] = static_cast<float>(a[i]);  // gather's traffic: 8 B in, 4 B out
    narrow = std::min(narrow, cpu_seconds() - t);
  }
  std::printf("one thread: read %.1f GB/s; read 8 B + write 4 B per element %.1f GB/s (%.1f GB/s counting the "
              "write's read-for-ownership)\n", n * 8 / read / 1e9, n * 12 / narrow / 1e9, n * 16 / narrow / 1e9);
  (void)sink;
  std::free(a);
  std::free(b);
}
