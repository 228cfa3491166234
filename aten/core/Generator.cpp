#include "aten/core/Generator.h"

#include <chrono>
#include <cstring>
#include <random>

#include "aten/core/Exception.h"

namespace tl {

// ---- MT19937

void MT19937::seed_with(uint64_t seed) {
  seed_ = seed;
  state_[0] = static_cast<uint32_t>(seed);
  for (int j = 1; j < kN; ++j) state_[j] = 1812433253u * (state_[j - 1] ^ (state_[j - 1] >> 30)) + j;
  left_ = 1;  // the first draw twists
  next_ = 0;
}

void MT19937::twist() {
  constexpr int kM = 397;
  auto mix = [](uint32_t u, uint32_t v) {
    return (((u & 0x80000000u) | (v & 0x7fffffffu)) >> 1) ^ ((v & 1u) ? 0x9908b0dfu : 0u);
  };
  for (int k = 0; k < kN - kM; ++k) state_[k] = state_[k + kM] ^ mix(state_[k], state_[k + 1]);
  for (int k = kN - kM; k < kN - 1; ++k) state_[k] = state_[k + kM - kN] ^ mix(state_[k], state_[k + 1]);
  state_[kN - 1] = state_[kM - 1] ^ mix(state_[kN - 1], state_[0]);
  left_ = kN;
  next_ = 0;
}

bool MT19937::restore(uint64_t seed, int left, bool seeded, uint64_t next, const std::array<uint32_t, kN>& words) {
  if (!seeded || left <= 0 || left > kN || next > static_cast<uint64_t>(kN)) return false;
  seed_ = seed;
  left_ = left;
  next_ = static_cast<uint32_t>(next);
  state_ = words;
  return true;
}

// ---- CPUGenerator

void CPUGenerator::manual_seed(uint64_t seed) {
  auto guard = lock();
  engine_ = MT19937(seed);
  next_double_normal.reset();
  next_float_normal.reset();
}

uint64_t CPUGenerator::initial_seed() const {
  auto guard = lock();
  return engine_.seed();
}

namespace {

// PyTorch's CPUGeneratorImplState, field by field (x86-64 layout): the legacy TH generator
// (seed, left, seeded, next, the 624 words widened to 64 bits, the double normal cache in
// normal_y with its flag) followed by the float normal cache and its flag.
struct StateLayout {
  static constexpr size_t seed = 0, left = 8, seeded = 12, next = 16, words = 24;
  static constexpr size_t normal_x = words + 8 * MT19937::kN, normal_y = normal_x + 8, normal_rho = normal_y + 8;
  static constexpr size_t normal_valid = normal_rho + 8, float_normal = normal_valid + 4;
  static constexpr size_t float_normal_valid = float_normal + 4;
};
static_assert(StateLayout::float_normal_valid + 1 <= CPUGenerator::kStateBytes);

template <typename T>
void put(std::vector<uint8_t>& b, size_t at, T v) { std::memcpy(b.data() + at, &v, sizeof(T)); }
template <typename T>
T get(const uint8_t* b, size_t at) {
  T v;
  std::memcpy(&v, b + at, sizeof(T));
  return v;
}

}  // namespace

std::vector<uint8_t> CPUGenerator::get_state() const {
  auto guard = lock();
  std::vector<uint8_t> b(kStateBytes, 0);
  put<uint64_t>(b, StateLayout::seed, engine_.seed());
  put<int32_t>(b, StateLayout::left, engine_.left());
  put<int32_t>(b, StateLayout::seeded, 1);
  put<uint64_t>(b, StateLayout::next, engine_.next());
  for (int i = 0; i < MT19937::kN; ++i) put<uint64_t>(b, StateLayout::words + 8 * i, engine_.words()[i]);
  if (next_double_normal) {
    put<int32_t>(b, StateLayout::normal_valid, 1);
    put<double>(b, StateLayout::normal_y, *next_double_normal);
  }
  if (next_float_normal) {
    b[StateLayout::float_normal_valid] = 1;
    put<float>(b, StateLayout::float_normal, *next_float_normal);
  }
  return b;
}

void CPUGenerator::set_state(const uint8_t* b, int64_t size) {
  TL_CHECK(size == kStateBytes, "Expected a CPUGeneratorImplState of size ", kStateBytes,
           " but found the input RNG state size to be ", size);
  std::array<uint32_t, MT19937::kN> words;
  for (int i = 0; i < MT19937::kN; ++i) words[i] = static_cast<uint32_t>(get<uint64_t>(b, StateLayout::words + 8 * i));
  auto guard = lock();
  MT19937 engine;
  TL_CHECK(engine.restore(get<uint64_t>(b, StateLayout::seed), get<int32_t>(b, StateLayout::left),
                          get<int32_t>(b, StateLayout::seeded) != 0, get<uint64_t>(b, StateLayout::next), words),
           "Invalid mt19937 state");
  engine_ = engine;
  next_double_normal = get<int32_t>(b, StateLayout::normal_valid)
                           ? std::optional<double>(get<double>(b, StateLayout::normal_y)) : std::nullopt;
  next_float_normal = b[StateLayout::float_normal_valid]
                          ? std::optional<float>(get<float>(b, StateLayout::float_normal)) : std::nullopt;
}

// ---- the default generator

uint64_t nondeterministic_seed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd() ^
         static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
}

CPUGenerator& default_cpu_generator() {
  static CPUGenerator gen(nondeterministic_seed());
  return gen;
}

void manual_seed(uint64_t s) { default_cpu_generator().manual_seed(s); }
uint64_t initial_seed() { return default_cpu_generator().initial_seed(); }

uint64_t seed() {
  uint64_t s = nondeterministic_seed();
  default_cpu_generator().manual_seed(s);
  return s;
}

}  // namespace tl
