"""torchlite.jit: trace a function or module into an IR graph and run it without Python
(docs/jit.md). What exists so far: the IR (torchlite._C._jit: Graph, Node, Value, Block), the
YAML-driven boxed op registry, the C++ interpreter, `trace`, and the first passes
(torchlite.jit._passes), elementwise fusion (torchlite.jit.fuser, _passes.fusion). `script`,
save/load, the C++ frontend and ONNX export are later work."""
from torchlite.jit._fuser import fuser, last_executed_optimized_graph  # noqa: F401
from torchlite.jit._trace import (  # noqa: F401
    TopLevelTracedModule,
    TracedModule,
    TracerWarning,
    TracingCheckError,
    is_tracing,
    trace,
)

# torch.jit.__all__ lists trace but not the tracing classes, which it imports all the same.
__all__ = ["trace"]
