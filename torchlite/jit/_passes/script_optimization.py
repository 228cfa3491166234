"""The passes script runs on each graph it compiles (torch.jit runs its own on a scripted graph at its
first call; torchlite at compile time, so the saved graph is the optimized one too):

1. dead-code elimination of what inlining left unused, constant pooling;
2. constant propagation of what does not give a tensor (script's pure prim ops included; the compiler
   folds constants while it compiles, this catches what the other passes expose);
3. If simplification (if_simplification.py): constant conditions, the structured form's
   `if c: raise ... else: <the rest>` flattened to `if c: raise` followed by the rest, outputs that are
   one value in both branches;
4. common-subexpression elimination (never across a grad-mode switch or a Python call), DCE,

2-4 again while constant propagation folds something (at most 4 rounds: a second round of CSE and If
simplification found nothing more on the nn modules, and each costs about a third of a compile). Each pass keeps what the graph computes,
the order of its effects and its errors (tests/test_jit_script_optimization.py compares every pass's
graph before and after, and the values)."""
from __future__ import annotations

import contextlib

from torchlite.jit._passes.constant_pooling import constant_pooling
from torchlite.jit._passes.constant_propagation import constant_propagation
from torchlite.jit._passes.cse import eliminate_common_subexpression
from torchlite.jit._passes.dce import eliminate_dead_code
from torchlite.jit._passes.if_simplification import simplify_ifs


_enabled = [True]


@contextlib.contextmanager
def disabled():
    """Script compiles without steps 2-4 inside this block (tests compare the graphs and their values)."""
    _enabled.append(False)
    try:
        yield
    finally:
        _enabled.pop()


def optimize_script_graph(graph, max_rounds=4) -> dict:
    """Runs the pipeline on `graph` in place; returns the changes each pass made, summed."""
    counts = {"dce": eliminate_dead_code(graph), "constant_pooling": constant_pooling(graph),
              "constant_propagation": 0, "simplify_ifs": 0, "cse": 0}
    if not _enabled[-1]:
        return counts
    for _ in range(max_rounds):
        round_ = {"constant_propagation": constant_propagation(graph, tensors=False, prims=True),
                  "simplify_ifs": simplify_ifs(graph), "cse": eliminate_common_subexpression(graph),
                  "dce": eliminate_dead_code(graph)}
        for k, v in round_.items():
            counts[k] += v
        if not round_["constant_propagation"]:
            break  # only a folded constant (an If's condition) gives the next round something new
    counts["constant_pooling"] += constant_pooling(graph)
    return counts
