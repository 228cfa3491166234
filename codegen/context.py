"""Facts derived once from the parsed YAML and shared by every emitter."""
from __future__ import annotations

import zlib
from dataclasses import dataclass, field

from codegen.model import NativeFunction, NativeFunctionsFile


def shard_of(name: str, num_shards: int) -> int:
    """Stable across runs and machines (unlike hash()), so an op stays in its shard."""
    return zlib.crc32(name.encode()) % num_shards


@dataclass
class OpGroup:
    """All overloads (derived variants included) that share a base name, e.g. add, add_, add.out."""
    base: str
    functions: list[NativeFunction] = field(default_factory=list)


@dataclass
class Context:
    file: NativeFunctionsFile
    groups: list[OpGroup]                 # sorted by base name
    out_kernel_sources: frozenset[str]    # str(schema.name) of entries whose kernels take `Tensor& out`

    def uses_out_kernel(self, f: NativeFunction) -> bool:
        src = f.functional or f
        return str(src.schema.name) in self.out_kernel_sources


def build_context(file: NativeFunctionsFile) -> Context:
    groups: dict[str, OpGroup] = {}
    for f in file.functions:
        base = f.schema.name.base
        groups.setdefault(base, OpGroup(base)).functions.append(f)
    sources = frozenset(str(f.functional.schema.name) for f in file.functions if f.functional is not None)
    return Context(file, [groups[k] for k in sorted(groups)], sources)
