"""Module attributes that compiled code assigns (prim::SetAttr), kept in step between the Python
module and the module object the interpreter reads.

The Python module holds the values (`m.count` reads them, `m.count = 5` sets them, save writes them);
the interpreter reads and writes an Object built from the module. So a call of a graph that reads or
assigns such attributes first copies their Python values into the Object, and afterwards (also when
the graph raised, as Python's state would show an assignment made before an error) copies back what
the graph may have assigned: the attributes, and the buffers and parameters a prim::SetAttr names. Modules without
such attributes pay nothing.

Concurrent calls (Python threads): torch's interpreter reads and writes the attributes on the module object
itself, so with Python callers four threads of 200 `self.count += 1` calls end at 800 in torch 2.13. A call
here copies the state in, runs with the GIL released, and copies it out, so two calls overlapping would lose
each other's updates; a call of a module with such state therefore holds the module's lock (`StateSync.lock`,
a re-entrant lock shared by the module's compiled modes) from the push to the pull: calls of one stateful
module run one at a time, modules without state run concurrently as before."""
from __future__ import annotations

import threading


def setattr_targets(graph):
    """{(submodule path, name)} written by the graph's prim::SetAttr nodes, whose object is reached from
    %self by prim::GetAttr (the only way script reaches a module)."""
    inputs = graph.inputs()
    if not inputs:
        return set()
    paths = {inputs[0].unique(): ()}
    out = set()
    for node in graph.allNodes():
        kind = node.kind()
        if kind == "prim::GetAttr" and node.input().unique() in paths:
            paths[node.output().unique()] = paths[node.input().unique()] + (node.s("name"),)
        elif kind == "prim::SetAttr" and node.inputsAt(0).unique() in paths:
            out.add((paths[node.inputsAt(0).unique()], node.s("name")))
    return out


def attribute_store(owner, name):
    """The dict holding `owner`'s attribute `name`: its __dict__, or for a loaded module's attribute holding
    TorchScript class instances, its `_jit_objects` (read through a conversion: _loaded_objects.py)."""
    objects = owner.__dict__.get("_jit_objects")
    return objects if objects and name in objects else owner.__dict__


def _owner(root, path):
    m = root
    for p in path:
        m = m._modules[p]
    return m


class StateSync:
    """The attributes one compiled module's graphs read or assign. `attributes`: [(path, name, is_float)] or
    [(path, name, is_float, dict_type)] (held in the owner's __dict__, or see attribute_store; dict_type: the
    static type of an attribute holding dicts, which go in as the interpreter's form and come back as dicts);
    `graphs`: the compiled graphs, whose prim::SetAttr targets that are buffers are read back too. `immutable`:
    {(path, name)} of attributes whose values cannot change in place (numbers, strings): those no prim::SetAttr
    writes are not read back (an attribute set from Python that compiled code only reads: _read_attributes.py)."""

    def __init__(self, root, attributes, graphs, immutable=frozenset(), lock=None):
        self.lock = lock if lock is not None else threading.RLock()  # held by a call from push to pull
        self.attributes = [(attribute_store(_owner(root, a[0]), a[1]), a[0], a[1], a[2]) for a in attributes]
        self.dict_types = {(a[0], a[1]): a[3] for a in attributes if len(a) > 3 and a[3] is not None}
        known = {(a[0], a[1]) for a in attributes}
        written = set()
        for g in graphs:
            written |= setattr_targets(g)
        self.pulled = [a for a in self.attributes if (a[1], a[2]) not in immutable or (a[1], a[2]) in written]
        self.buffers = []
        for path, name in sorted(written - known):
            try:
                owner = _owner(root, path)
            except KeyError:  # a field of a TorchScript class instance held by an attribute: the object holds it
                continue
            if name in owner._buffers:
                self.buffers.append((owner, path, name, owner._buffers))
            elif name in owner._parameters:  # as torch 2.13: the slot stays a parameter's, holding what was assigned
                self.buffers.append((owner, path, name, owner._parameters))

    def __bool__(self):
        return bool(self.attributes or self.buffers)

    @staticmethod
    def _object_at(obj, path, cache):
        sub = cache.get(path)
        if sub is None:
            sub = obj
            for p in path:
                sub = sub.getattr(p)
            cache[path] = sub
        return sub

    def push(self, obj):
        """Copies the attributes' Python values into the module object; returns the sub-objects found."""
        found = {}
        dict_types = self.dict_types
        for store, path, name, is_float in self.attributes:
            v = store[name]
            if is_float and type(v) is int:
                v = float(v)
            elif dict_types and (path, name) in dict_types:
                from torchlite.jit._script import _to_input
                v = _to_input(v, dict_types[(path, name)])
            self._object_at(obj, path, found).setattr(name, v)
        return found

    def pull(self, obj, found, slots=None):
        """Copies what the graph may have assigned back into the Python modules. `slots`: the cached
        object's (dicts, names, tensors) columns, updated for a replaced buffer so the cache stays valid."""
        dict_types = self.dict_types
        for store, path, name, _ in self.pulled:
            v = self._object_at(obj, path, found).getattr(name)
            if dict_types and (path, name) in dict_types:
                from torchlite.jit._script import _from_output
                v = _from_output(v, dict_types[(path, name)])
            store[name] = v
        for owner, path, name, table in self.buffers:
            t = self._object_at(obj, path, found).getattr(name)
            if table.get(name) is t:
                continue
            table[name] = t
            if slots is not None:
                dicts, names, tensors = slots
                for i, (d, n) in enumerate(zip(dicts, names)):
                    if d is table and n == name:
                        tensors[i] = t


def run_with_state(sync, obj, slots, run):
    """run() (a graph call on `obj`) with the attributes pushed before and pulled after, under the module's lock."""
    with sync.lock:
        found = sync.push(obj)
        try:
            return run()
        finally:
            sync.pull(obj, found, slots)
