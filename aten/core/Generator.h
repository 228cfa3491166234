// The global CPU random generator: Philox4x32-10, a counter-based generator. Its state is a
// 64-bit seed (the key) and a 64-bit offset (how many 128-bit blocks were drawn so far).
// A kernel reserves the blocks it needs under the mutex, then computes block `offset + i`
// from its position alone, so results depend only on the seed and the call sequence, never on
// the number of threads.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

namespace tl {

// PyTorch's default seed, used until manual_seed is called.
constexpr uint64_t kDefaultRngSeed = 67280421310721ULL;

// One Philox4x32-10 block: 4 uniformly distributed 32-bit words for (key, counter).
inline std::array<uint32_t, 4> philox4x32(uint64_t key, uint64_t counter_lo, uint64_t counter_hi = 0) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u, kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  uint32_t c0 = static_cast<uint32_t>(counter_lo), c1 = static_cast<uint32_t>(counter_lo >> 32);
  uint32_t c2 = static_cast<uint32_t>(counter_hi), c3 = static_cast<uint32_t>(counter_hi >> 32);
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = static_cast<uint64_t>(kM0) * c0;
    uint64_t p1 = static_cast<uint64_t>(kM1) * c2;
    uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    uint32_t n1 = static_cast<uint32_t>(p1);
    uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    uint32_t n3 = static_cast<uint32_t>(p0);
    c0 = n0; c1 = n1; c2 = n2; c3 = n3;
    k0 += kW0;
    k1 += kW1;
  }
  return {c0, c1, c2, c3};
}

class CPUGenerator {
 public:
  explicit CPUGenerator(uint64_t seed = kDefaultRngSeed) : seed_(seed) {}

  // Sets the seed and restarts the stream (offset 0).
  void manual_seed(uint64_t seed) {
    std::lock_guard<std::mutex> lock(mutex_);
    seed_ = seed;
    offset_ = 0;
  }
  uint64_t initial_seed() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return seed_;
  }
  // Reserves `blocks` consecutive Philox blocks; returns (seed, first block index).
  std::pair<uint64_t, uint64_t> reserve(uint64_t blocks) {
    std::lock_guard<std::mutex> lock(mutex_);
    uint64_t start = offset_;
    offset_ += blocks;
    return {seed_, start};
  }
  // The whole state, for get_rng_state/set_rng_state.
  std::pair<uint64_t, uint64_t> state() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return {seed_, offset_};
  }
  void set_state(uint64_t seed, uint64_t offset) {
    std::lock_guard<std::mutex> lock(mutex_);
    seed_ = seed;
    offset_ = offset;
  }

 private:
  mutable std::mutex mutex_;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

// The process-wide generator used by rand/randn.
CPUGenerator& default_cpu_generator();

// A `Generator?` argument of an op: shared ownership of a generator (torchlite.Generator objects
// hold one; torchlite.default_generator holds the default generator without owning it).
using Generator = std::shared_ptr<CPUGenerator>;
// What a random kernel draws from: `gen` when given, else the default generator.
inline CPUGenerator& generator_or_default(const std::optional<Generator>& gen) {
  return gen && *gen ? **gen : default_cpu_generator();
}
// A seed from a non-deterministic source (what seed() uses), a non-negative int64.
uint64_t nondeterministic_seed();
// Seeds the global generator (torchlite.manual_seed).
void manual_seed(uint64_t seed);
// The seed the global generator was last seeded with (kDefaultRngSeed at start).
uint64_t initial_seed();
// Seeds the global generator from a non-deterministic source and returns that seed (torchlite.seed).
uint64_t seed();

}  // namespace tl
