"""Facts derived once from the parsed YAML and shared by every emitter."""
from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field

from codegen.model import NativeFunction, NativeFunctionsFile, SchemaKind

# Generated .cpp files are sharded by op base name. The shard count is a power of two that grows
# with the number of base names so that a shard holds at most OPS_PER_SHARD of them on average. Each file's
# fixed cost, parsing the shared headers (~0.6 CPU-s), is as large as 16 ops' code, so fewer, larger shards
# build faster: 32 per shard instead of 16 compiled the dispatch and autograd shards of the 2026-12-06 catalog
# in 99 instead of 163 CPU-s (~128 CPU-s less per build variant over the four kinds), while a one-op rebuild
# still compiles one ~32-op shard per kind (~1.5 s each). It never drops below MIN_SHARDS. Because
# shard = crc32(base) % count, doubling the count splits every shard in two (an op in shard k moves to k or
# k + old count) and happens only when the catalog doubles, so ordinary additions never move other ops between files.
MIN_SHARDS = 16
OPS_PER_SHARD = 32


def shard_count(num_bases: int) -> int:
    n = MIN_SHARDS
    while num_bases > n * OPS_PER_SHARD:
        n *= 2
    return n


def shard_of(name: str, num_shards: int) -> int:
    """Stable across runs and machines (unlike hash()), so an op stays in its shard."""
    return zlib.crc32(name.encode()) % num_shards


@dataclass
class OpGroup:
    """All overloads (derived variants included) that share a base name, e.g. add, add_, add.out."""
    base: str
    functions: list[NativeFunction] = field(default_factory=list)


_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\s*\(")


@dataclass
class Context:
    file: NativeFunctionsFile
    groups: list[OpGroup]                 # sorted by base name
    out_kernel_sources: frozenset[str]    # str(schema.name) of entries whose kernels take `Tensor& out`
    callables: dict[str, str]             # C++ API function (add, add_, add_out) or kernel name -> base name
    num_shards: int

    def uses_out_kernel(self, f: NativeFunction) -> bool:
        src = f.functional or f
        return str(src.schema.name) in self.out_kernel_sources

    def shard(self, base: str) -> int:
        return shard_of(base, self.num_shards)

    def ops_called(self, code: str) -> set[str]:
        """Base names of the ops a piece of C++ (a formula, an `impl:` body) calls: every
        `name(` whose name is an op's C++ API function or one of its kernels."""
        return {self.callables[m] for m in _CALL.findall(code) if m in self.callables}


def build_context(file: NativeFunctionsFile) -> Context:
    groups: dict[str, OpGroup] = {}
    callables: dict[str, str] = {}
    for f in file.functions:
        base = f.schema.name.base
        groups.setdefault(base, OpGroup(base)).functions.append(f)
        s = f.schema
        callables[s.name.base + "_out" if s.kind() == SchemaKind.out else s.name.name] = base
        for _, kernel in f.dispatch:
            callables.setdefault(kernel, base)
    sources = frozenset(str(f.functional.schema.name) for f in file.functions if f.functional is not None)
    return Context(file, [groups[k] for k in sorted(groups)], sources, callables, shard_count(len(groups)))
