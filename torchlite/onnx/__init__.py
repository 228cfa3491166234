"""torchlite.onnx: export a model to ONNX as torch.onnx.export's TorchScript-based exporter does: trace it
(torchlite.jit.trace), simplify the graph with the JIT passes, translate each node to ONNX operators and
build the ModelProto with the `onnx` package (an optional dependency, imported by export only).

How each op translates is declared next to its YAML entry (`onnx:` in native_functions.yaml, compiled
into the generated table _ops_table.py); the mappings that are not 1:1 are the handwritten functions
of torchlite/onnx/_translations/ (docs/onnx.md)."""
from torchlite.onnx._constants import DEFAULT_OPSET, MAX_OPSET, MIN_OPSET  # noqa: F401
from torchlite.onnx.errors import OnnxExporterError, UnsupportedOperatorError  # noqa: F401
from torchlite.onnx._export import TrainingMode, export, is_in_onnx_export  # noqa: F401

__all__ = ["export", "is_in_onnx_export", "TrainingMode", "OnnxExporterError", "UnsupportedOperatorError"]
