// The CPU random generator: PyTorch's, so that a seed gives PyTorch's numbers bit for bit.
// The engine is the 32-bit Mersenne Twister MT19937 (Matsumoto & Nishimura), seeded with the
// low 32 bits of the seed by the standard init_genrand recurrence; `random64()` joins two draws
// (first << 32 | second). Besides the engine the generator caches the second normal sample of a
// Box-Muller pair (one for double, one for float), as PyTorch's does, and that cache is part of
// the state. Draws are sequential: a kernel holds `lock()` for its whole fill, so the numbers
// depend only on the seed and the order of calls (docs/random.md).
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace tl {

// The seed of a new Generator() (PyTorch's default_rng_seed_val).
constexpr uint64_t kDefaultRngSeed = 67280421310721ULL;

class MT19937 {
 public:
  static constexpr int kN = 624;
  explicit MT19937(uint64_t seed = 5489) { seed_with(seed); }

  uint32_t operator()() {
    if (--left_ == 0) twist();
    uint32_t y = state_[next_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
  }

  uint64_t seed() const { return seed_; }
  // The fields PyTorch's get_rng_state() exposes.
  int left() const { return left_; }
  uint32_t next() const { return next_; }
  const std::array<uint32_t, kN>& words() const { return state_; }
  // Restores exposed fields; false (nothing changed) when they cannot come from a real engine.
  bool restore(uint64_t seed, int left, bool seeded, uint64_t next, const std::array<uint32_t, kN>& words);

 private:
  void seed_with(uint64_t seed);
  void twist();

  uint64_t seed_ = 0;
  int left_ = 1;
  uint32_t next_ = 0;
  std::array<uint32_t, kN> state_{};
};

class CPUGenerator {
 public:
  explicit CPUGenerator(uint64_t seed = kDefaultRngSeed) : engine_(seed) {}

  // Held by a kernel for all of its draws (random(), random64() and the normal caches).
  [[nodiscard]] std::unique_lock<std::mutex> lock() const { return std::unique_lock<std::mutex>(mutex_); }
  uint32_t random() { return engine_(); }
  uint64_t random64() {
    uint64_t hi = engine_();
    return (hi << 32) | engine_();
  }
  std::optional<double> next_double_normal;  // the cached second sample of a double Box-Muller pair
  std::optional<float> next_float_normal;

  // Seeds the engine and empties the normal caches (locks).
  void manual_seed(uint64_t seed);
  uint64_t initial_seed() const;
  // PyTorch's CPUGeneratorImplState as bytes (5056), so states move between the libraries.
  std::vector<uint8_t> get_state() const;
  // Throws (RuntimeError naming the problem) on a wrong size or an impossible engine state.
  void set_state(const uint8_t* bytes, int64_t size);
  static constexpr int64_t kStateBytes = 5056;

 private:
  mutable std::mutex mutex_;
  MT19937 engine_;
};

// The process-wide generator, seeded non-deterministically at start as PyTorch's.
CPUGenerator& default_cpu_generator();

// A `Generator?` argument of an op: shared ownership of a generator (torchlite.Generator objects
// hold one; torchlite.default_generator holds the default generator without owning it).
using Generator = std::shared_ptr<CPUGenerator>;
// What a random kernel draws from: `gen` when given, else the default generator.
inline CPUGenerator& generator_or_default(const std::optional<Generator>& gen) {
  return gen && *gen ? **gen : default_cpu_generator();
}
// A seed from a non-deterministic source (what seed() uses).
uint64_t nondeterministic_seed();
// Seeds the global generator (torchlite.manual_seed).
void manual_seed(uint64_t seed);
// The seed the global generator was last seeded with.
uint64_t initial_seed();
// Seeds the global generator from a non-deterministic source and returns that seed (torchlite.seed).
uint64_t seed();

}  // namespace tl
