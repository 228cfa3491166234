#include "aten/jit/InstrProfile.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <unordered_map>

namespace tl::jit {
namespace {

std::atomic<bool> g_on{false};
std::mutex g_mutex;
std::unordered_map<std::string, InstrProfileEntry>& table() {
  static auto* t = new std::unordered_map<std::string, InstrProfileEntry>();
  return *t;
}

}  // namespace

void set_instruction_profiling(bool on) { g_on.store(on, std::memory_order_relaxed); }
bool instruction_profiling() { return g_on.load(std::memory_order_relaxed); }

void reset_instruction_profile() {
  std::lock_guard<std::mutex> lock(g_mutex);
  table().clear();
}

void record_instruction(const std::string& kind, double seconds) {
  std::lock_guard<std::mutex> lock(g_mutex);
  InstrProfileEntry& e = table()[kind];
  if (e.kind.empty()) e.kind = kind;
  ++e.count;
  e.seconds += seconds;
}

std::vector<InstrProfileEntry> instruction_profile() {
  std::vector<InstrProfileEntry> out;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (const auto& [k, e] : table()) out.push_back(e);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.seconds > b.seconds; });
  return out;
}

}  // namespace tl::jit
