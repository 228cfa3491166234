"""The switches that make traced callables run a fused copy of their graph, as torch.jit's: CPU
fusion is off by default (torch._C._jit_can_fuse_on_cpu() is False in PyTorch too); `fuser("fuser1")`
(or "fuser0": torchlite has one fuser, torchlite.jit._passes.fusion) turns it on for a block,
`fuser("none")` off. A traced function or module keeps `.graph` as traced; when fusion is on, its
call runs `graph_for(...)`: a copy with `fuse_elementwise` applied, made once per graph."""
from __future__ import annotations

import contextlib
import threading

from torchlite._C import _jit
from torchlite.jit._passes.fusion import fuse_elementwise

_last = threading.local()


@contextlib.contextmanager
def fuser(name):
    """Context manager selecting the fuser: "fuser0"/"fuser1" (torch's legacy fuser / NNC; here
    both mean torchlite's elementwise fuser) turn CPU fusion on, "none" turns it off."""
    old_cpu = _jit._jit_can_fuse_on_cpu()
    old_texpr = _jit._jit_texpr_fuser_enabled()
    if name in ("fuser0", "fuser1"):
        _jit._jit_override_can_fuse_on_cpu(True)
        _jit._jit_set_texpr_fuser_enabled(True)
    elif name == "none":
        _jit._jit_override_can_fuse_on_cpu(False)
        _jit._jit_set_texpr_fuser_enabled(False)
    elif name in ("fuser2", "fuser3"):
        raise RuntimeError(f"torchlite.jit.fuser: {name} ({'nvFuser' if name == 'fuser2' else 'oneDNN Graph'}) "
                           "is not available; torchlite has one CPU fuser ('fuser0' / 'fuser1')")
    else:
        raise Exception(f"unrecognized fuser option (name: {name})")  # PyTorch's exact type and message
    try:
        yield
    finally:
        _jit._jit_override_can_fuse_on_cpu(old_cpu)
        _jit._jit_set_texpr_fuser_enabled(old_texpr)


def optimized_graph(owner):
    """The graph `owner` (a traced callable) runs: its fused copy when fusion is on, made once per
    graph object and kept in owner.__dict__; else its graph."""
    graph = owner.__dict__["graph"]
    if not _jit._jit_fusion_active():
        return graph
    cached = owner.__dict__.get("_fused_graph")
    if cached is None or cached[0] is not graph:
        fused = graph.copy()
        fuse_elementwise(fused)
        cached = (graph, fused)
        owner.__dict__["_fused_graph"] = cached
    return cached[1]


def record_executed(graph):
    _last.graph = graph


def last_executed_optimized_graph():
    """The graph the last traced call on this thread ran (fused when fusion was on), or None."""
    return getattr(_last, "graph", None)
