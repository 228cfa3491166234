#include "aten/core/Generator.h"

#include <chrono>
#include <random>

namespace tl {

CPUGenerator& default_cpu_generator() {
  static CPUGenerator gen;
  return gen;
}

void manual_seed(uint64_t s) { default_cpu_generator().manual_seed(s); }
uint64_t initial_seed() { return default_cpu_generator().initial_seed(); }

uint64_t nondeterministic_seed() {
  std::random_device rd;
  uint64_t s = (static_cast<uint64_t>(rd()) << 32) ^ rd() ^
               static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  return s & ((uint64_t(1) << 63) - 1);  // keep it a non-negative Python int that fits int64
}

uint64_t seed() {
  uint64_t s = nondeterministic_seed();
  default_cpu_generator().manual_seed(s);
  return s;
}

}  // namespace tl
