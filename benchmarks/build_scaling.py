"""How the build scales with the number of operators (issue 6 §2).

In a temporary copy of the repository (no build/), adds synthetic operators to the real
native_functions.yaml until it has --entries entries: unary pointwise ops (in-place and out=
variants, methods, a derivative formula), binary pointwise ops (some bound to Python operators)
and dim reductions, with their kernels in generated .cpp files. Then measures:

  1. codegen: `python -m codegen` over the big YAML (first run, writing everything);
  2. a clean build (`setup.py build_ext --inplace`, TORCHLITE_BUILD_JOBS=--jobs);
  3. adding one more op (YAML entry + its kernel in a new file): codegen, then the rebuild, with
     the translation units ninja recompiled (found in the build's .ninja_log, so nothing here
     knows the generator's file layout), their sizes in lines and compile times.

Goal: adding one op recompiles at most 3 small translation units plus its kernel file in
<= 15 s on 2 cores; codegen <= 2 s; a clean build of the real catalog <= 4 min.

    python benchmarks/build_scaling.py                 # ~400 entries
    python benchmarks/build_scaling.py --entries 0     # the real catalog only
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL_RECOMPILED_TUS = 3        # generated translation units, besides the new op's kernel file
GOAL_ADD_OP_SECONDS = 15.0
GOAL_CODEGEN_SECONDS = 2.0
GOAL_CLEAN_BUILD_SECONDS = 240.0
OPERATOR_DUNDERS = ["mod", "and", "or", "xor", "lshift"]  # Python operators torchlite leaves free

UNARY = """
- func: {name}(Tensor self) -> Tensor
  doc: Synthetic unary pointwise op for the build-scaling benchmark.
  variants: function, method
  inplace: true
  out: true
  dispatch: {{CPU, Meta: {name}_kernel}}
  tags: [pointwise]
  derivatives:
    self: mul(grad, result)
"""
BINARY = """
- func: {name}.Tensor(Tensor self, Tensor other) -> Tensor
  doc: Synthetic binary pointwise op for the build-scaling benchmark.
  variants: function, method
  inplace: true
  out: true{operators}
  dispatch: {{CPU, Meta: {name}_kernel}}
  tags: [pointwise]
  derivatives:
    self: mul(grad, other)
    other: mul(grad, self)
"""
REDUCTION = """
- func: {name}.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
  doc: Synthetic reduction for the build-scaling benchmark.
  variants: function, method
  out: true
  dispatch: {{CPU, Meta: {name}_kernel}}
  tags: [reduction]
  derivatives:
    self: sum_backward(grad, self.sizes(), dim, keepdim)
"""
# Kernels delegate to real ones: what matters here is the generated code around them.
KERNELS = {
    UNARY: ("void {name}_kernel(const Tensor& self, Tensor& out) {{ exp_kernel(self, out); }}", "exp"),
    BINARY: ("void {name}_kernel(const Tensor& self, const Tensor& other, Tensor& out) {{\n"
             "  mul_kernel(self, other, out);\n}}", "mul"),
    REDUCTION: ("void {name}_kernel(const Tensor& self, OptionalIntArrayRef dim, bool keepdim,\n"
                "    std::optional<ScalarType> dtype, Tensor& out) {{\n"
                "  sum_dim_kernel(self, dim, keepdim, dtype, out);\n}}", "sum"),
}
KERNELS_PER_FILE = 25


def run(cmd: list[str], cwd: Path, env: dict | None = None) -> tuple[float, float, str]:
    """Runs cmd; returns (wall seconds, CPU seconds of its children, output). Fails loudly."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout + proc.stderr


def copy_repo(dest: Path) -> None:
    """The working tree without build outputs (tracked and untracked files alike)."""
    shutil.copytree(ROOT, dest, ignore=shutil.ignore_patterns(
        ".git", "build", "*.so", "__pycache__", ".venv", "*.egg-info", ".pytest_cache"))


def kernel_file(entries: list[tuple[str, str]]) -> str:
    """A .cpp defining the kernels of (template, name) pairs, as a handwritten kernel file would."""
    headers = sorted({f'#include "generated/ops/{KERNELS[t][1]}.h"' for t, _ in entries}
                     | {f'#include "generated/ops/{name}.h"' for _, name in entries})
    bodies = "\n\n".join(KERNELS[t][0].format(name=name) for t, name in entries)
    return ("// Synthetic kernels for benchmarks/build_scaling.py.\n" + "\n".join(headers)
            + "\n\nnamespace tl::native {\n\n" + bodies + "\n\n}  // namespace tl::native\n")


def synthesize(repo: Path, total_entries: int) -> int:
    """Appends synthetic entries up to total_entries; writes their kernels. Returns how many."""
    yaml_path = repo / "native_functions.yaml"
    text = yaml_path.read_text()
    count = max(0, total_entries - len(re.findall(r"^- func:", text, re.M)))
    plan = []
    for i in range(count):
        kind = i % 8
        template = REDUCTION if kind == 7 else BINARY if kind in (5, 6) else UNARY
        plan.append((template, f"synth{i}"))
    chunks = []
    operators_left = list(OPERATOR_DUNDERS)
    for template, name in plan:
        operators = ""
        if template is BINARY and operators_left:
            d = operators_left.pop()
            operators = f"\n  python_operators: [__{d}__, __r{d}__, __i{d}__]"
        chunks.append(template.format(name=name, operators=operators))
    yaml_path.write_text(text.rstrip("\n") + "\n" + "".join(chunks))
    out_dir = repo / "aten" / "native" / "synthetic"
    out_dir.mkdir(parents=True, exist_ok=True)
    for start in range(0, len(plan), KERNELS_PER_FILE):
        (out_dir / f"Synthetic{start // KERNELS_PER_FILE}.cpp").write_text(
            kernel_file(plan[start:start + KERNELS_PER_FILE]))
    return count


def add_one_op(repo: Path) -> Path:
    """A new unary pointwise op with its kernel in a file of its own; returns the kernel file."""
    yaml_path = repo / "native_functions.yaml"
    yaml_path.write_text(yaml_path.read_text().rstrip("\n") + "\n" + UNARY.format(name="added_op"))
    kernel = repo / "aten" / "native" / "AddedOp.cpp"
    kernel.write_text(kernel_file([(UNARY, "added_op")]))
    return kernel


def ninja_log(build_dir: Path) -> list[tuple[int, int, str]]:
    """(start ms, end ms, output) of every line of ninja's log."""
    path = build_dir / ".ninja_log"
    rows = []
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            continue
        start, end, _, output, _ = line.split("\t")
        rows.append((int(start), int(end), output))
    return rows


def find_build_dir(repo: Path) -> Path:
    logs = list((repo / "build").rglob(".ninja_log"))
    if len(logs) != 1:
        sys.exit(f"expected one ninja build under {repo / 'build'}, found {logs}")
    return logs[0].parent


def source_of(obj: str, build_dir: Path, repo: Path) -> Path:
    """build/…/obj/aten/x.o -> aten/x.cpp (the layout ninja_build.py gives objects)."""
    rel = Path(obj).resolve().relative_to(build_dir / "obj")
    return repo / rel.with_suffix(".cpp")


def line_count(path: Path) -> int:
    with open(path, "rb") as fh:
        return sum(1 for _ in fh)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--entries", type=int, default=400, help="YAML entries in all (0: the real catalog only)")
    p.add_argument("--jobs", type=int, default=2, help="TORCHLITE_BUILD_JOBS (default 2)")
    p.add_argument("--keep", action="store_true", help="keep the temporary copy and print its path")
    args = p.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="torchlite-build-scaling-"))
    repo = tmp / "repo"
    copy_repo(repo)
    py = sys.executable
    env = {"TORCHLITE_BUILD_JOBS": str(args.jobs), "PYTHONDONTWRITEBYTECODE": "1"}
    build = [py, "setup.py", "-q", "build_ext", "--inplace"]
    try:
        added = synthesize(repo, args.entries)
        entries = len(re.findall(r"^- func:", (repo / "native_functions.yaml").read_text(), re.M))
        print(f"load average at start: {os.getloadavg()[0]:.1f} ({os.cpu_count()} CPUs); "
              f"{entries} YAML entries ({added} synthetic); copy in {repo}")

        codegen_s, _, _ = run([py, "-m", "codegen", "-q"], repo, env)
        gen_files = [f for f in (repo / "generated").rglob("*") if f.is_file()]
        gen_cpp = [f for f in gen_files if f.suffix == ".cpp"]
        print(f"codegen (writing everything): {codegen_s:.2f} s -> {len(gen_files)} files, "
              f"{len(gen_cpp)} .cpp, {sum(map(line_count, gen_cpp))} lines of .cpp")
        nocheck_s, _, _ = run([py, "-m", "codegen", "-q"], repo, env)
        print(f"codegen (nothing changed): {nocheck_s:.2f} s")

        clean_s, clean_cpu, _ = run(build, repo, env)
        build_dir = find_build_dir(repo)
        objects = len(list((build_dir / "obj").rglob("*.o")))
        print(f"clean build: {clean_s:.1f} s wall, {clean_cpu:.1f} CPU-s, {objects} translation units")

        nochange_s, _, _ = run(build, repo, env)
        print(f"no-change rebuild (setup.py build_ext --inplace): {nochange_s:.1f} s")

        kernel = add_one_op(repo)
        logged = len(ninja_log(build_dir))
        before_gen = time.time()
        add_gen_s, _, _ = run([py, "-m", "codegen", "-q"], repo, env)
        changed = [f for f in (repo / "generated").rglob("*") if f.is_file() and f.stat().st_mtime >= before_gen]
        add_build_s, add_cpu, _ = run(build, repo, env)  # runs codegen again (no change), then ninja
        rows = ninja_log(build_dir)[logged:]
        compiled = [(source_of(out, build_dir, repo), end - start) for start, end, out in rows if out.endswith(".o")]
        print(f"\nadding one op: codegen {add_gen_s:.2f} s ({len(changed)} generated files rewritten), "
              f"rebuild {add_build_s:.1f} s wall ({add_cpu:.1f} CPU-s), {len(compiled)} translation units:")
        for src, ms in sorted(compiled, key=lambda c: -c[1]):
            print(f"  {src.relative_to(repo)!s:45} {line_count(src):6} lines  {ms / 1000:6.1f} s")
        generated_tus = [s for s, _ in compiled if s != kernel]
        total_add = add_gen_s + add_build_s
        print(f"\nload average at end: {os.getloadavg()[0]:.1f}; wall times on a loaded machine are "
              "inflated (an idle machine's are about CPU-s / jobs)")
        print(f"\n  {'goal':62} {'measured':>9}   met")
        for what, value, goal, unit in [
            ("generated TUs recompiled after adding an op (<= 3)", len(generated_tus), GOAL_RECOMPILED_TUS, ""),
            ("adding an op: codegen + rebuild (<= 15 s)", total_add, GOAL_ADD_OP_SECONDS, " s"),
            ("codegen (<= 2 s)", codegen_s, GOAL_CODEGEN_SECONDS, " s"),
            (f"clean build, {entries} entries (<= 240 s for the real catalog)", clean_s,
             GOAL_CLEAN_BUILD_SECONDS, " s"),
        ]:
            shown = f"{value}" if isinstance(value, int) else f"{value:.1f}"
            print(f"  {what:62} {shown + unit:>9}   {'yes' if value <= goal else 'NO'}")
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
