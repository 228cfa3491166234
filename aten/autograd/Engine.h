// The backward engine: runs the graph of Nodes recorded by the forward pass.
//
// Execution is iterative (no recursion, so graphs of any depth work): dependencies are
// counted over the part of the graph reachable from the roots, gradients for each node are
// summed in an input buffer until all its producers ran, and ready nodes run latest-created
// first (sequence_nr). Each produced gradient is checked against the receiving node's
// input_metadata: reduced with sum_to when it was broadcast, cast to the expected dtype, and
// rejected when the shape is incompatible.
#pragma once
#include "aten/autograd/Node.h"

namespace tl::autograd {

// Computes the gradients of `roots` w.r.t. the graph leaves and accumulates them into
// their .grad (or only into `inputs`' .grad when given; non-leaf inputs then get .grad too).
// grad_roots[i] may be undefined for a root with one element (a gradient of ones is used).
// Without retain_graph the saved tensors of every node that ran are freed. With
// create_graph the backward pass is itself recorded (grad mode on), so .grad has history.
void backward(const variable_list& roots, const variable_list& grad_roots, bool retain_graph, bool create_graph,
              const variable_list& inputs = {});

// Returns the gradients of `outputs` w.r.t. `inputs` (one per input) without touching any
// .grad. An input the graph does not reach gives an undefined Tensor when allow_unused,
// and raises otherwise.
variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs,
                   bool retain_graph, bool create_graph, bool allow_unused);

}  // namespace tl::autograd
