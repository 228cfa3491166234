"""Opset versions torchlite.onnx targets."""

# As torch.onnx's TorchScript-based exporter in PyTorch 2.13 (torch.onnx._constants.ONNX_DEFAULT_OPSET).
DEFAULT_OPSET = 20
# 17 is the first opset with LayerNormalization; 20 the last the TorchScript exporter supports.
MIN_OPSET = 17
MAX_OPSET = 20
