"""The handwritten translations: ops whose ONNX form is not one operator over the op's own inputs.
Each is registered under the name YAML entries give in `onnx: {function: NAME}`; the op names
themselves live only in native_functions.yaml."""
from __future__ import annotations

TRANSLATIONS: dict = {}


def translation(name: str):
    """Registers fn(ctx, call) -> list of ONNX output names (one per output of the node)."""
    def register(fn):
        if name in TRANSLATIONS:
            raise AssertionError(f"two ONNX translations named {name}")
        TRANSLATIONS[name] = fn
        return fn
    return register


def load_all() -> dict:
    from torchlite.onnx._translations import arithmetic, attention, nn, reductions, rnn, shape  # noqa: F401
    return TRANSLATIONS
