// Runs a prim::FusionGroup (torchlite/jit/_passes/fusion.py makes them): a node whose `Subgraph`
// attribute is a graph of pointwise ops (YAML tag `pointwise`) whose results all have one shape.
//
// The group's iteration space (the shape of its outputs) is cut into blocks of a few thousand
// elements; each thread takes a run of blocks and, for each block, runs every op of the subgraph,
// in order, through its boxed op (the same kernel, hence the same rounding, as eager code) on
// 1-D block tensors: views of the inputs where their memory follows the iteration order, copies
// gathered into per-thread buffers otherwise (broadcast or permuted inputs), 0-d tensors and
// numbers as they are (so type promotion sees what eager sees). Intermediates live in cache; each
// output block is copied once into the output. So each input is read from memory once and each
// output written once, where eager code writes and reads back every intermediate.
//
// Dtypes, shapes and output strides come from running the subgraph once on meta tensors (eager's
// rules, op by op), once per signature of the inputs (dtypes, sizes, strides, ...): the plan is kept
// on the subgraph (the type guard cache) and reused by later calls with inputs of that signature. Cases the blocked run does not take go to the node-by-node run of the
// subgraph (the interpreter), with eager's results, errors and autograd history: grad mode on
// with an input that requires grad, a non-CPU input, no dimensioned input, an op whose result
// does not have the group's shape, fewer elements than `min_numel`, or a meta run that fails.
#pragma once
#include <cstdint>

#include "aten/jit/IR.h"

namespace tl::jit {

// Runs a prim::FusionGroup node on its inputs' values; returns its outputs' values.
std::vector<IValue> run_fusion_group(const Node& node, Stack inputs);

// Process-wide settings (torchlite._C._jit._jit_set_fusion_* and the fuser switches of torch.jit).
struct FusionSettings {
  // torch.jit's switches: the traced callables fuse when both are on (off on CPU by default, as torch).
  static bool can_fuse_on_cpu();
  static void set_can_fuse_on_cpu(bool on);
  static bool texpr_fuser_enabled();
  static void set_texpr_fuser_enabled(bool on);
  // Elements per block (each op of a group runs on blocks of this many elements).
  static int64_t block_size();
  static void set_block_size(int64_t n);
  // How a group recorded as one autograd node gets the intermediates its backward needs: false (the
  // default) records each block's graph in the forward (the ops save what their formulas read, as
  // eager's); true saves only the inputs and runs each block's forward again in the backward (as a
  // checkpoint: less memory, more time; docs/jit.md, "Fusion", has the measurements).
  static bool backward_recomputes();
  static void set_backward_recomputes(bool on);
  // Groups with fewer elements run node by node (no blocked run: nothing to save).
  static int64_t min_numel();
  static void set_min_numel(int64_t n);
};

// How many group runs took the blocked path and how many ran node by node (tests check which).
struct FusionStats {
  int64_t fused = 0;
  int64_t fallback = 0;
  int64_t planned = 0;  // meta runs made (once per subgraph and input signature: the type guard cache)
};
FusionStats fusion_stats();
void reset_fusion_stats();

}  // namespace tl::jit
