"""A loaded module's attributes holding TorchScript class instances (`self.acc = Acc(3)`, `Optional[Acc]`, lists,
tuples and dicts of them), as torch.jit.load's module gives them to Python: reading `loaded.acc` converts the
interpreter's Object into a new instance of the class (a copy: changing it changes nothing in the module) when this
process scripted the class; in a process that never did, Python gets the module's own Object (torch fails an
internal assert there). Assigning `loaded.acc = Acc(1)` converts the instance (or takes an Object of the class);
another value raises torch's "Could not cast attribute 'acc' to type __torch__.Acc". The module keeps these
values in its `_jit_objects` table (not its __dict__, so that reads come through the conversion);
_module_state.attribute_store finds them there for the calls that read and assign them."""
from __future__ import annotations

from torchlite.jit import _archive_signature as _sig


def holds_objects(ir_type) -> bool:
    """Whether the attribute's values are kept here: instances of TorchScript classes, and dicts (the interpreter's
    form is a list of alternating keys and values; reading gives a dict, as torch's loaded module)."""
    return _sig._has(_sig.tree(ir_type, {}), ("obj", "dict"))


def to_python(ir_type, value):
    return _sig.from_graph(value, _sig.tree(ir_type, {}))


def from_python(name, ir_type, value):
    node = _sig.tree(ir_type, {})
    if not _sig.matches(value, node):
        raise RuntimeError(f"Could not cast attribute '{name}' to type {_sig.type_str(node)}: a value of type "
                           f"'{type(value).__name__}' does not fit it")
    return _sig.to_graph(value, node)
