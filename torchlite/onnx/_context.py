"""The translation context: maps the traced graph's values to ONNX tensor names and Python constants,
and collects the ONNX nodes and initializers. Translations (generic 1:1 rows of the generated table,
or the handwritten functions of _translations/) read a node's arguments through a `Call`."""
from __future__ import annotations

import numpy as np

import torchlite as _tl
from torchlite.onnx.errors import OnnxExporterError, UnsupportedOperatorError

# torchlite dtype -> (ONNX TensorProto data type, NumPy dtype)
_DTYPES = {
    "float32": (1, np.float32), "uint8": (2, np.uint8), "int8": (3, np.int8), "int16": (5, np.int16),
    "int32": (6, np.int32), "int64": (7, np.int64), "bool": (9, np.bool_), "float16": (10, np.float16),
    "float64": (11, np.float64), "bfloat16": (16, None),
}
# Ranks for choosing the common dtype of a comparison's inputs (PyTorch's category order).
_RANK = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def dtype_name(dtype) -> str:
    return str(dtype).replace("torchlite.", "")


def onnx_dtype(dtype) -> int:
    return _DTYPES[dtype_name(dtype)][0]


class Dim:
    """A graph-dependent int: the ONNX name of an int64 tensor of shape [1] (a dynamic axis's size, or
    an expression of it), standing where the trace recorded a Python int."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"Dim({self.name})"


class Context:
    def __init__(self, opset: int, helper, numpy_helper):
        self.opset = opset
        self.helper, self.numpy_helper = helper, numpy_helper
        self.nodes = []
        self.initializers = []
        self.names: dict[int, str] = {}        # IR value -> ONNX tensor name
        self.py: dict[int, object] = {}         # IR value -> Python value (constants, lists, modules)
        self.tensor_info: dict[str, tuple] = {}  # ONNX name -> (dtype name, traced sizes) where known
        self.arrays: dict[str, np.ndarray] = {}  # initializer name -> its value (parameters and constants)
        self._counter = 0
        self._const_cache: dict[tuple, str] = {}

    # ---- names ---------------------------------------------------------------------------------
    def fresh(self, hint: str) -> str:
        self._counter += 1
        return f"{hint}_{self._counter}"

    def add(self, op_type: str, inputs, outputs: int | list[str] = 1, **attrs) -> list[str]:
        """Appends an ONNX node; returns its output names. An input may be '' (an absent optional)."""
        outs = [self.fresh(op_type) for _ in range(outputs)] if isinstance(outputs, int) else outputs
        self.nodes.append(self.helper.make_node(op_type, list(inputs), outs, name=self.fresh(f"/{op_type}"),
                                                **{k: v for k, v in attrs.items() if v is not None}))
        return outs

    def add1(self, op_type: str, inputs, **attrs) -> str:
        return self.add(op_type, inputs, 1, **attrs)[0]

    # ---- constants -----------------------------------------------------------------------------
    def initializer(self, name: str, array: np.ndarray) -> str:
        array = np.array(array, order="C", copy=True)  # (np.ascontiguousarray would make a 0-d array 1-d)
        self.initializers.append(self.numpy_helper.from_array(array, name))
        self.arrays[name] = array
        self.tensor_info[name] = (str(array.dtype) if array.dtype != np.bool_ else "bool", list(array.shape))
        return name

    def constant(self, array) -> str:
        """A constant tensor (shared between uses with the same value)."""
        array = np.asarray(array)
        key = (array.dtype.str, array.shape, array.tobytes())
        if key not in self._const_cache:
            self._const_cache[key] = self.initializer(self.fresh("const"), array)
        return self._const_cache[key]

    def ints(self, values) -> str:
        """An int64 1-D tensor from a list of ints and Dims (Concat of the pieces when any is a Dim)."""
        values = list(values)
        if all(isinstance(v, (int, np.integer)) for v in values):
            return self.constant(np.array(values, dtype=np.int64))
        pieces, run = [], []
        for v in values:
            if isinstance(v, Dim):
                if run:
                    pieces.append(self.constant(np.array(run, dtype=np.int64)))
                    run = []
                pieces.append(v.name)
            else:
                run.append(int(v))
        if run:
            pieces.append(self.constant(np.array(run, dtype=np.int64)))
        return self.add1("Concat", pieces, axis=0)

    def scalar(self, value, dtype) -> str:
        """A 0-d constant of a torchlite dtype."""
        return self.constant(np.array(value, dtype=_DTYPES[dtype_name(dtype)][1]))

    def cast(self, name: str, dtype, known=None) -> str:
        if known is not None and dtype_name(known) == dtype_name(dtype):
            return name
        return self.add1("Cast", [name], to=onnx_dtype(dtype))

    # ---- IR values -----------------------------------------------------------------------------
    def tensor_of(self, value) -> str:
        """The ONNX name of an IR value holding a tensor (a constant tensor becomes an initializer)."""
        key = value.unique()
        if key in self.names:
            return self.names[key]
        if key in self.py:
            v = self.py[key]
            if isinstance(v, _tl.Tensor):
                name = self.constant(v.detach().contiguous().numpy())
                self.names[key] = name
                return name
            raise OnnxExporterError(f"value %{value.debugName()} ({v!r}) is used as a tensor")
        raise OnnxExporterError(f"value %{value.debugName()} has no ONNX translation")

    def as_name(self, element) -> str:
        """An element of a recorded tensor list: an ONNX name, a folded tensor constant or an IR value."""
        if isinstance(element, str):
            return element
        if isinstance(element, _tl.Tensor):
            return self.constant(element.detach().contiguous().numpy())
        return self.tensor_of(element)

    def dtype_of(self, element):
        """The dtype name of a list element (see as_name), where known."""
        if isinstance(element, _tl.Tensor):
            return dtype_name(element.dtype)
        if isinstance(element, str):
            return self.tensor_info.get(element, (None,))[0]
        t = element.type()
        if t.isTensor() and t.dtype() is not None:
            return dtype_name(t.dtype())
        return self.tensor_info.get(self.names.get(element.unique()), (None,))[0]

    def is_python(self, value) -> bool:
        return value.unique() in self.py and not isinstance(self.py[value.unique()], _tl.Tensor)


class Call:
    """One aten:: node being translated: its arguments by schema name."""

    def __init__(self, ctx: Context, node, overload: str):
        self.ctx, self.node, self.overload = ctx, node, overload
        schema = node.fn_schema()
        self.args = {a.name: v for a, v in zip(schema.arguments, node.inputs())}
        self.types = {a.name: str(a.type) for a in schema.arguments}

    def unsupported(self, reason: str) -> UnsupportedOperatorError:
        return UnsupportedOperatorError(f"aten::{self.overload}", self.ctx.opset, reason)

    def has(self, name: str) -> bool:
        return name in self.args

    def is_none(self, name: str) -> bool:
        v = self.args[name]
        return v.unique() in self.ctx.py and self.ctx.py[v.unique()] is None

    def tensor(self, name: str) -> str | None:
        """The ONNX name of a tensor argument ('' for None, for ONNX's absent optional inputs)."""
        return "" if self.is_none(name) else self.ctx.tensor_of(self.args[name])

    def tensors(self, name: str) -> list[str]:
        """A Tensor[] argument's element names."""
        v = self.ctx.py.get(self.args[name].unique())
        if not isinstance(v, list):
            raise self.unsupported(f"`{name}` is not a list built in the graph")
        return [self.ctx.as_name(e) for e in v]

    def value(self, name: str):
        """A non-tensor argument's value (ints, floats, bools, lists, None; Dims for dynamic sizes)."""
        v = self.args[name]
        if v.unique() not in self.ctx.py:
            raise self.unsupported(f"argument `{name}` is computed in the graph; only constants are supported")
        return self.ctx.py[v.unique()]

    def number(self, name: str):
        """A Scalar argument as a Python number (a 0-d tensor constant is read)."""
        v = self.value(name)
        if isinstance(v, _tl.Tensor):
            if v.numel() != 1:
                raise self.unsupported(f"`{name}` is not a number")
            return v.item()
        return v

    def dtype(self, name: str):
        v = self.args[name]
        if v.unique() in self.ctx.py:
            c = self.ctx.py[v.unique()]
            if isinstance(c, _tl.Tensor):
                return dtype_name(c.dtype)
        t = v.type()
        if t.isTensor() and t.dtype() is not None:
            return dtype_name(t.dtype())
        info = self.ctx.tensor_info.get(self.ctx.names.get(v.unique()))
        return info[0] if info else None

    def rank(self, name: str) -> int:
        sizes = self.sizes(name)
        if sizes is None:
            raise self.unsupported(f"the rank of `{name}` is not known")
        return len(sizes)

    def sizes(self, name: str):
        v = self.args[name]
        if v.unique() in self.ctx.py and isinstance(self.ctx.py[v.unique()], _tl.Tensor):
            return list(self.ctx.py[v.unique()].shape)
        t = v.type()
        if t.isTensor() and t.sizes() is not None:
            return list(t.sizes())
        info = self.ctx.tensor_info.get(self.ctx.names.get(v.unique()))  # parameters: untyped GetAttr values
        return list(info[1]) if info else None

    def out_dtype(self, i: int = 0):
        t = self.node.outputs()[i].type()
        return dtype_name(t.dtype()) if t.isTensor() and t.dtype() is not None else None

    def out_sizes(self, i: int = 0):
        t = self.node.outputs()[i].type()
        return list(t.sizes()) if t.isTensor() and t.sizes() is not None else None

    def operand(self, name: str, dtype) -> str:
        """A Tensor or Scalar argument as an ONNX tensor of `dtype` (Scalars become constants)."""
        v = self.args[name]
        if self.ctx.is_python(v):
            return self.ctx.scalar(self.number(name), dtype)
        if v.unique() in self.ctx.py and self.ctx.py[v.unique()].dim() == 0:  # a recorded Python number
            return self.ctx.scalar(self.ctx.py[v.unique()].item(), dtype)
        return self.ctx.cast(self.ctx.tensor_of(v), dtype, self.dtype(name))

    def common_dtype(self, names) -> str:
        """The dtype operands are compared in: the widest of the tensor operands of positive rank, else of all."""
        dims = [n for n in names if not self.ctx.is_python(self.args[n]) and (self.sizes(n) or [])]
        candidates = [self.dtype(n) for n in (dims or names) if not self.ctx.is_python(self.args[n])]
        candidates = [c for c in candidates if c is not None] or ["float32"]
        return max(candidates, key=_RANK.index)
