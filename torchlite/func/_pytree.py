"""Nested Python containers of tensors ("pytrees") as torch.func sees them: tuples, lists and
dicts are containers (walked in order, dicts by insertion order), everything else is a leaf."""


class TreeSpec:
    """The shape of a pytree: its container type, keys (for dicts) and children's specs; None for a leaf."""

    def __init__(self, kind, keys, children):
        self.kind, self.keys, self.children = kind, keys, children

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.kind is other.kind and self.keys == other.keys
                and self.children == other.children)

    def __repr__(self):
        parts = ", ".join("*" if c is None else repr(c) for c in self.children)
        return f"TreeSpec({self.kind.__name__}, {self.keys}, [{parts}])"


def _is_container(x):
    return type(x) in (tuple, list, dict)


def tree_flatten(tree):
    """(leaves, spec): the leaves in order and the structure to rebuild the tree from them."""
    if not _is_container(tree):
        return [tree], None
    if isinstance(tree, dict):
        keys, values = list(tree), list(tree.values())
    else:
        keys, values = None, list(tree)
    leaves, children = [], []
    for v in values:
        sub, spec = tree_flatten(v)
        leaves.extend(sub)
        children.append(spec)
    return leaves, TreeSpec(type(tree), keys, children)


def _count(spec):
    return 1 if spec is None else sum(_count(c) for c in spec.children)


def tree_unflatten(leaves, spec):
    """The tree of structure ``spec`` holding ``leaves`` in order."""
    leaves = list(leaves)
    if spec is None:
        return leaves[0]
    values, start = [], 0
    for c in spec.children:
        n = _count(c)
        values.append(tree_unflatten(leaves[start:start + n], c))
        start += n
    if spec.kind is dict:
        return dict(zip(spec.keys, values))
    return spec.kind(values)


def tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def broadcast_to_and_flatten(prefix, spec):
    """The leaves of ``prefix`` repeated over ``spec`` where ``prefix`` has a leaf for a whole
    subtree (in_dims=0 for a tuple argument); None where the structures are incompatible."""
    if spec is None:
        return None if _is_container(prefix) else [prefix]
    if not _is_container(prefix):
        return [prefix] * _count(spec)
    if type(prefix) is not spec.kind or len(prefix) != len(spec.children):
        return None
    if spec.kind is dict:
        if list(prefix) != spec.keys:
            return None
        items = list(prefix.values())
    else:
        items = list(prefix)
    out = []
    for p, c in zip(items, spec.children):
        sub = broadcast_to_and_flatten(p, c)
        if sub is None:
            return None
        out.extend(sub)
    return out
