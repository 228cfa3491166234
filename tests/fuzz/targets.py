"""What the fuzzer can call: one Target per YAML overload and Python spelling of it."""
from dataclasses import dataclass
from pathlib import Path

from codegen.loader import load_native_functions
from codegen.model import NativeFunction, SchemaKind

YAML = Path(__file__).resolve().parents[2] / "native_functions.yaml"


@dataclass(frozen=True)
class Target:
    fn: NativeFunction
    variant: str  # "function", "method", "inplace" (x.op_()) or "out" (op(..., out=))

    @property
    def name(self):
        return self.fn.schema.name.name

    def __str__(self):
        return f"{self.fn.schema.name}:{self.variant}"


def _has_tensor_self(fn):
    args = fn.schema.arguments
    return bool(args) and str(args[0].type) == "Tensor" and not args[0].kwarg_only


def load_targets(path=YAML):
    targets = []
    for fn in load_native_functions(path).functions:
        kind = fn.derived_kind or fn.schema.kind()
        # `python_binding: internal`: a function of torchlite._C._internal only, never a method
        methods = "method" in fn.variants and not fn.python_binding
        if kind == SchemaKind.out:
            targets.append(Target(fn, "out"))
        elif kind == SchemaKind.inplace and _has_tensor_self(fn):
            if methods:  # not F.elu_ (torchlite._C._nn.elu_, a function only)
                targets.append(Target(fn, "inplace"))
            if "function" in fn.variants:
                targets.append(Target(fn, "function"))
        else:
            if "function" in fn.variants:
                targets.append(Target(fn, "function"))
            if methods and _has_tensor_self(fn):
                targets.append(Target(fn, "method"))
    return targets
