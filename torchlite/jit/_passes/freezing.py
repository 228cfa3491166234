"""Passes of freezing (torch.jit.freeze): module attributes become constants, and an eval-mode
batch_norm after a convolution or linear layer is folded into that layer's weight and bias.

- freeze_module_attributes(graph, module, preserved_attrs): each prim::GetAttr chain from %self
  that reaches a parameter or buffer is replaced by a constant holding a copy of the tensor
  (`%self.fc1.weight`), unless the attribute (or a submodule above it) is preserved or a node of
  the graph may write it (alias analysis: a mutated attribute stays an attribute).
- fold_frozen_conv_bn(graph) / fold_frozen_linear_bn(graph): `batch_norm(conv(x, W, b), gamma,
  beta, mean, var, training=False, ...)` with every parameter constant becomes `conv(x, W', b')`
  with W' = W * gamma / sqrt(var + eps) (per output channel) and b' = (b - mean) * that scale + beta.
  The results differ from the unfolded graph by rounding only (torch's optimize_numerics)."""
from __future__ import annotations

import torchlite as _tl
from torchlite._C import _jit
from torchlite.jit._passes.alias import AliasDb

_CONVS = ("aten::conv1d", "aten::conv2d", "aten::conv3d")


def _is_preserved(path, preserved) -> bool:
    parts = path.split(".")
    return any(".".join(parts[:i]) in preserved for i in range(1, len(parts) + 1))


def attribute_paths(graph, module):
    """{GetAttr output unique(): (owner object, dotted path)} for the chains from %self."""
    inputs = graph.inputs()
    if not inputs or not str(inputs[0].type()).startswith("__torch__"):
        return {}
    owners = {inputs[0].unique(): (module, "")}
    out = {}
    for node in graph.allNodes():
        if node.kind() != "prim::GetAttr" or node.input().unique() not in owners:
            continue
        obj, path = owners[node.input().unique()]
        name = node.s("name")
        full = f"{path}.{name}" if path else name
        sub = obj._modules.get(name) if name in obj._modules else None
        if sub is not None:
            owners[node.output().unique()] = (sub, full)
        out[node.output().unique()] = (obj, full)
    return out


def freeze_module_attributes(graph, module, preserved_attrs=()) -> int:
    """Replaces reads of `module`'s parameters and buffers (and of a loaded module's plain attributes and
    training flags) by constants; returns how many."""
    preserved = set(preserved_attrs or ())
    folded = _fold_plain_attributes(graph, module, preserved)
    paths = attribute_paths(graph, module)
    db = AliasDb(graph)
    for node in graph.allNodes():
        if node.kind() != "prim::GetAttr" or node.output().unique() not in paths:
            continue
        obj, full = paths[node.output().unique()]
        name = node.s("name")
        if name not in obj._parameters and name not in obj._buffers:
            continue
        if _is_preserved(full, preserved) or db.has_writers(node.output()):
            continue
        tensor = obj._parameters.get(name) if name in obj._parameters else obj._buffers.get(name)
        if tensor is None:
            continue
        with _tl.no_grad():
            value = tensor.detach().clone()
        graph.setInsertPoint(node)
        const = graph.insertConstant(value)
        const.setType(_jit.Type.of(value)).setDebugName("self." + full)
        node.output().replaceAllUsesWith(const)
        folded += 1
    graph.setInsertPoint(graph.return_node())
    return folded


def _fold_plain_attributes(graph, module, preserved) -> int:
    """Folds a loaded module's plain attributes and training flags (version 6 graphs read them), then the branches
    that decided (eval-mode code no longer writes a batch_norm's num_batches_tracked, which alias analysis would
    take for a write of every tensor attribute); returns how many reads were folded."""
    paths = attribute_paths(graph, module)
    written = {n.s("name") for n in graph.allNodes() if n.kind() == "prim::SetAttr"}
    folded = 0
    for node in graph.allNodes():
        if node.kind() == "prim::GetAttr" and node.output().unique() in paths:
            obj, full = paths[node.output().unique()]
            name = node.s("name")
            if name not in obj._parameters and name not in obj._buffers and name not in obj._modules and \
                    not _is_preserved(full, preserved):
                folded += _fold_plain(graph, node, obj, name, written)
    graph.setInsertPoint(graph.return_node())
    if folded:
        from torchlite.jit._passes.constant_propagation import constant_propagation
        from torchlite.jit._passes.dce import eliminate_dead_code
        from torchlite.jit._passes.if_simplification import simplify_ifs
        for _ in range(5):
            if not (constant_propagation(graph, tensors=False, prims=True) + simplify_ifs(graph) +
                    eliminate_dead_code(graph)):
                break
    return folded


def _fold_plain(graph, node, obj, name, written) -> int:
    """A loaded module's plain attribute or training flag (format version 6 graphs read them) read by `node`: a
    constant of its value, as torch's freezing folds attributes, unless a prim::SetAttr of the graph may write it
    (any attribute of that name) or its value is mutable (a list or dict)."""
    attrs = obj.__dict__.get("_jit_attributes")  # (None: a scripted module's copy, whose archive graphs read them)
    if name in written or (name != "training" and (name not in obj.__dict__ or attrs is not None and name not in attrs)):
        return 0  # (an attribute holding objects or dicts is kept out of __dict__: _loaded_objects.py)
    value = obj.training if name == "training" else obj.__dict__.get(name)
    if not (value is None or type(value) in (bool, int, float, str) or
            isinstance(value, tuple) and all(v is None or type(v) in (bool, int, float, str) for v in value)):
        return 0
    if type(value) is int and str(node.output().type()) == "float":  # (an int held by a float attribute)
        value = float(value)
    graph.setInsertPoint(node)
    const = graph.insertConstant(value)
    node.output().replaceAllUsesWith(const)
    return 1


def _const(value):
    return value.toIValue() if value.isConstant() else _NOT_CONST


_NOT_CONST = object()


# Script's shape reads (a module's `input.dim()` check) see the folded layer's output unchanged.
_SHAPE_QUERIES = ("prim::dim", "prim::size", "prim::size_dim", "prim::numel")


def _fold_bn(graph, producers, weight_shape, layer_ok=lambda layer: True) -> int:
    folded = 0
    for bn in graph.findAllNodes("aten::batch_norm"):
        layer = bn.inputsAt(0).node()
        other_uses = [u.user for u in bn.inputsAt(0).uses() if u.user.kind() not in _SHAPE_QUERIES]
        if layer.kind() not in producers or len(other_uses) != 1 or not layer_ok(layer):
            continue
        gamma, beta, mean, var, training, _, eps, _ = (_const(v) for v in bn.inputs()[1:])
        weight, bias = _const(layer.inputsAt(1)), _const(layer.inputsAt(2))
        if any(v is _NOT_CONST for v in (gamma, beta, mean, var, training, eps, weight, bias)):
            continue
        if training or mean is None or var is None or not isinstance(weight, _tl.Tensor):
            continue
        with _tl.no_grad():
            scale = _tl.rsqrt(var + eps)
            if gamma is not None:
                scale = scale * gamma
            new_weight = weight * scale.reshape(weight_shape(weight))
            new_bias = (bias if bias is not None else _tl.zeros_like(mean)) - mean
            new_bias = new_bias * scale + (beta if beta is not None else 0)
            new_weight, new_bias = new_weight.to(weight.dtype), new_bias.to(weight.dtype)
        graph.setInsertPoint(layer)
        for index, value in ((1, new_weight), (2, new_bias)):
            const = graph.insertConstant(value)
            const.setType(_jit.Type.of(value))
            layer.replaceInput(index, const)
        graph.setInsertPoint(graph.return_node())
        bn.output().replaceAllUsesWith(layer.output())
        bn.destroy()
        folded += 1
    return folded


def fold_frozen_conv_bn(graph) -> int:
    """Folds eval-mode batch_norm into the preceding conv1d/2d/3d with constant weights."""
    return _fold_bn(graph, _CONVS, lambda w: [-1] + [1] * (w.dim() - 1))


def fold_frozen_linear_bn(graph) -> int:
    """Folds eval-mode batch_norm (BatchNorm1d over features) into the preceding linear."""
    # only a 2-d output: BatchNorm1d normalizes dim 1, the linear's features only when there are two dims
    return _fold_bn(graph, ("aten::linear",), lambda w: [-1, 1],
                    lambda layer: len(layer.output().type().sizes() or ()) == 2)
