"""Exceptions of torchlite.onnx, as torch.onnx.errors."""


class OnnxExporterError(RuntimeError):
    """An error raised by the ONNX exporter."""


class UnsupportedOperatorError(OnnxExporterError):
    """An op of the traced graph has no ONNX translation (no `onnx:` key on its YAML entry), or its
    arguments take a form the translation does not handle."""

    def __init__(self, name: str, version: int, reason: str | None = None):
        self.name, self.version = name, version
        msg = f"Exporting the operator '{name}' to ONNX opset version {version} is not supported"
        msg += f": {reason}." if reason else (
            " by torchlite.onnx: its entry in native_functions.yaml has no `onnx:` mapping (docs/onnx.md).")
        super().__init__(msg)
