"""Graph passes over torchlite's JIT IR, each one small function that edits a Graph in place
(copy it first with graph.copy() to compare before and after), as torch._C._jit_pass_*:

- dce.eliminate_dead_code(graph): nodes whose results are unused and that write nothing.
- cse.eliminate_common_subexpression(graph): a node equal to an earlier one reuses its outputs.
- constant_propagation.constant_propagation(graph): nodes whose inputs are all constants run once
  (in the interpreter) and become constants.
- constant_pooling.constant_pooling(graph): equal constants of a block become one.
- peephole.peephole(graph): local rewrites (t(t(x)), x + 0, x * 1, neg(neg(x)), no-op
  contiguous/view/to).
- freezing.freeze_module_attributes(graph, module, preserved_attrs): module parameters and buffers
  read by prim::GetAttr become constants (torch.jit.freeze's first step).
- freezing.fold_frozen_conv_bn(graph) / fold_frozen_linear_bn(graph): an eval-mode batch_norm after
  a conv or linear with constant weights is folded into them.
- fusion.fuse_elementwise(graph): chains/DAGs of pointwise nodes become prim::FusionGroup nodes,
  run in cache-sized blocks (aten/jit/FusionExecutor.h).
- loop_unrolling.unroll_loops(graph): prim::Loops with a constant trip count become copies of their body.
- alias.AliasDb(graph): what may alias what and which nodes write, from the YAML's (a)/(a!)
  annotations; the passes ask it before removing, merging or reordering anything.
"""
from torchlite.jit._passes.alias import AliasDb  # noqa: F401
from torchlite.jit._passes.constant_pooling import constant_pooling  # noqa: F401
from torchlite.jit._passes.constant_propagation import constant_propagation  # noqa: F401
from torchlite.jit._passes.cse import eliminate_common_subexpression  # noqa: F401
from torchlite.jit._passes.dce import eliminate_dead_code  # noqa: F401
from torchlite.jit._passes.freezing import (  # noqa: F401
    fold_frozen_conv_bn,
    fold_frozen_linear_bn,
    freeze_module_attributes,
)
from torchlite.jit._passes.fusion import fuse_elementwise  # noqa: F401
from torchlite.jit._passes.loop_unrolling import unroll_loops  # noqa: F401
from torchlite.jit._passes.peephole import peephole  # noqa: F401
