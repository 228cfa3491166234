// The interpreter's instruction profile: how many instructions of each kind ran and their own time
// (a prim::If's or prim::Loop's time excludes its blocks' instructions), while profiling is on. Off
// by default: run_graph reads the switch once per call and then runs the unprofiled loop.
// From Python: torchlite._C._jit._jit_set_instruction_profiling(True), _jit_instruction_profile().
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tl::jit {

struct InstrProfileEntry {
  std::string kind;  // the node kind ("aten::view", "prim::dim", "prim::If", ...)
  uint64_t count = 0;
  double seconds = 0;  // exclusive
};

void set_instruction_profiling(bool on);
bool instruction_profiling();
void reset_instruction_profile();
std::vector<InstrProfileEntry> instruction_profile();  // most time first
void record_instruction(const std::string& kind, double seconds);

}  // namespace tl::jit
