"""torchlite.jit.freeze and optimize_for_inference, as torch.jit's: a frozen module's parameters
and buffers are constants of its graph (so constant propagation precomputes what depends on them
alone), and the passes of torchlite.jit._passes then simplify the graph."""
from __future__ import annotations

import torchlite as _tl
from torchlite._C import _jit
from torchlite.jit import _passes
from torchlite.jit._script_module import RecursiveScriptModule, ScriptModule


def _kept_paths(graph, module):
    """Dotted paths of the attributes the frozen graph still reads."""
    return {path for _, path in _passes.freezing.attribute_paths(graph, module).values()}


def _attributes_by_path(tree, path=""):
    """{dotted path: [(name, Type, value)]} of a compiled-module tree's assigned attributes."""
    out = {path: tree.attributes}
    for name, sub in tree.submodules:
        out.update(_attributes_by_path(sub, f"{path}.{name}" if path else name))
    return out


def _pruned_tree(module, path, keep, preserved, attributes=None):
    """The compiled-module tree of `module` with only the attributes in `keep` or under a
    preserved path, each a copy (a frozen module does not share the original's tensors), and the
    attributes scripted code assigns (`attributes` by path: state, never folded)."""
    from torchlite.jit._trace import _module_type_name

    def wanted(name):
        full = f"{path}.{name}" if path else name
        return full in keep or _passes.freezing._is_preserved(full, preserved)

    def copy(t):
        with _tl.no_grad():
            return t.detach().clone().requires_grad_(t.requires_grad)

    m = _jit.Module(_module_type_name(module), False)
    m.parameters = [(n, copy(p)) for n, p in module._parameters.items() if p is not None and wanted(n)]
    m.buffers = [(n, copy(b)) for n, b in module._buffers.items() if b is not None and wanted(n)]
    m.attributes = [(n, t, copy(v) if isinstance(v, _tl.Tensor) else v) for n, t, v in (attributes or {}).get(path, [])]
    subs = []
    for name, sub in module._modules.items():
        full = f"{path}.{name}" if path else name
        if sub is not None and (wanted(name) or any(k.startswith(full + ".") for k in keep | preserved)):
            subs.append((name, _pruned_tree(sub, full, keep, preserved, attributes)))
    m.submodules = subs
    return m


def run_frozen_optimizations(mod, optimize_numerics=True, preserved_methods=None):
    """The passes freeze runs on a frozen module's graph, in place: constant propagation,
    peephole, constant pooling, common subexpressions and dead code until nothing changes; with optimize_numerics,
    batch_norm folded into a preceding conv or linear first."""
    graph = mod.graph
    if optimize_numerics:
        _passes.constant_propagation(graph)
        _passes.fold_frozen_conv_bn(graph)
        _passes.fold_frozen_linear_bn(graph)
    _optimize(graph)


def _optimize(graph):
    for _ in range(10):
        changed = _passes.constant_propagation(graph)
        changed += _passes.peephole(graph)
        changed += _passes.constant_pooling(graph)
        changed += _passes.eliminate_common_subexpression(graph)
        changed += _passes.eliminate_dead_code(graph)
        if not changed:
            break


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """A frozen copy of a compiled module in eval mode: its parameters and buffers (except
    `preserved_attrs` and those the graph writes) are constants of the graph, which is then
    optimized. The original module is unchanged."""
    if not isinstance(mod, ScriptModule):
        raise RuntimeError("Freezing expects a ScriptModule as input. Please use torch.jit.script or "
                           "torch.jit.trace to script your 'nn.Module'.")
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. Please call .eval() "
                           "on your module before freezing.")
    preserved = set(preserved_attrs or ())
    source = mod.__dict__.get("_traced_from", mod)
    whole = mod._cpp_module()  # assigned attributes and the methods' argument names and defaults
    saved = dict(whole.methods)
    # forward, and the methods named in preserved_attrs (as torch keeps them; the others are dropped)
    names = ["forward"] + sorted(n for n in preserved if n != "forward" and n in saved)
    graphs, kept = {}, set()
    for name in names:
        graph = mod.graph.copy() if name == "forward" else saved[name].graph.copy()
        saved_training, source.training = source.training, mod.training  # (a scripted module's copy: its root's
        try:                                                                 # flag is the scripted module's)
            _passes.freeze_module_attributes(graph, source, preserved)
        finally:
            source.training = saved_training
        _passes.eliminate_dead_code(graph)
        graphs[name] = graph
        kept |= _kept_paths(graph, source)
    tree = _pruned_tree(source, "", kept, preserved, _attributes_by_path(whole))
    methods = []
    for name, graph in graphs.items():
        m = saved.get(name)
        methods.append((name, _jit.Method(graph, True, m.arg_names, m.defaults) if m is not None
                        else _jit.Method(graph, True)))
        if m is not None:
            methods[-1][1].enums = m.enums
    tree.methods = methods
    tree.classes = whole.classes  # the TorchScript classes' methods (a loaded module's from its archive)
    frozen = RecursiveScriptModule(tree)
    frozen.__dict__["_frozen"] = True
    run_frozen_optimizations(frozen, optimize_numerics)
    for name in names[1:]:
        _optimize(frozen._methods[name].graph)
    return frozen


def optimize_for_inference(mod, other_methods=None):
    """Freezes `mod` (put in eval mode, as torch does) unless it is frozen already, then runs the
    inference pipeline of the passes that exist (batch_norm folding, constant propagation,
    peephole, CSE, DCE) and, when CPU fusion is on (torchlite.jit.fuser("fuser1"), as torch's fuser
    only fuses then), elementwise fusion, scripted graphs' unsized tensors included. Returns the
    optimized module."""
    if not isinstance(mod, ScriptModule):
        raise RuntimeError("optimize_for_inference expects a ScriptModule as input. Please use torch.jit.script or "
                           "torch.jit.trace to script your 'nn.Module'.")
    if other_methods is None:
        other_methods = []
    if not mod.__dict__.get("_frozen", False):
        mod = freeze(mod.eval(), preserved_attrs=other_methods)
    _passes.fold_frozen_conv_bn(mod.graph)
    _passes.fold_frozen_linear_bn(mod.graph)
    _optimize(mod.graph)
    if _jit._jit_fusion_active() and not mod.graph.findNode("prim::FusionGroup"):
        _passes.fuse_elementwise(mod.graph, require_shapes=False)
    return mod
