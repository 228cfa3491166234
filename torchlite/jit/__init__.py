"""torchlite.jit: trace a function or module into an IR graph and run it without Python
(docs/jit.md). What exists so far: the IR (torchlite._C._jit: Graph, Node, Value, Block), the
YAML-driven boxed op registry, the C++ interpreter, `trace`, the first passes
(torchlite.jit._passes), elementwise fusion (torchlite.jit.fuser, _passes.fusion), `save` / `load`
(zip archives read and written in C++), `freeze` and `optimize_for_inference`, and `script` (a
Python subset compiled from source, torchlite.jit._script). The C++ frontend is later work; ONNX
export is torchlite.onnx (docs/onnx.md)."""
from typing import Final  # noqa: F401  (torch.jit.Final: a module attribute constant to script)

from torchlite.jit._fuser import fuser, last_executed_optimized_graph  # noqa: F401
from torchlite.jit._script_module import RecursiveScriptModule, ScriptModule  # noqa: F401
from torchlite.jit._trace import (  # noqa: F401
    TopLevelTracedModule,
    TracedModule,
    TracerWarning,
    TracingCheckError,
    is_tracing,
    trace,
    trace_module,
)
from torchlite.jit._serialization import load, save  # noqa: F401
from torchlite.jit._script import (  # noqa: F401
    ScriptFunction,
    annotate,
    export,
    ignore,
    is_scripting,
    script,
    script_method,
    unused,
)
from torchlite.jit import frontend  # noqa: F401
from torchlite.jit._compilation_unit import CompilationUnit  # noqa: F401
from torchlite.jit._freeze import freeze, optimize_for_inference, run_frozen_optimizations  # noqa: F401

# torch.jit.__all__ lists these; it imports the tracing and module classes all the same.
__all__ = ["script", "trace", "trace_module", "save", "load", "freeze", "optimize_for_inference", "ScriptModule", "ScriptFunction", "CompilationUnit",
           "annotate", "ignore", "export", "unused"]
