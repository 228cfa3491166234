"""`python -m codegen` regenerates generated/; `--check` only reports stale files (exit 1)."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from codegen import gen_cpp, gen_docs, gen_jit, gen_onnx, gen_python
from codegen.context import build_context
from codegen.loader import CodegenError, load_native_functions
from codegen.writer import sync, with_header

ROOT = Path(__file__).resolve().parent.parent


def render_all(yaml_path: Path) -> dict[str, str]:
    ctx = build_context(load_native_functions(yaml_path))
    files = {**gen_cpp.generate(ctx), **gen_python.generate(ctx), **gen_docs.generate(ctx),
             **gen_jit.generate(ctx), **gen_onnx.generate(ctx)}
    return {path: with_header(path, text) for path, text in files.items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m codegen", description=__doc__)
    p.add_argument("--yaml", type=Path, default=ROOT / "native_functions.yaml")
    p.add_argument("--out", type=Path, default=ROOT / "generated")
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 if generated/ is stale")
    p.add_argument("-q", "--quiet", action="store_true")
    args = p.parse_args(argv)
    start = time.perf_counter()
    try:
        files = render_all(args.yaml)
    except CodegenError as e:
        print(e, file=sys.stderr)
        return 2
    changed = sync(args.out, files, check=args.check)
    took = time.perf_counter() - start
    if args.check:
        if changed:
            print("generated/ is stale; run `python -m codegen`. Differing files:", file=sys.stderr)
            for c in changed:
                print(f"  generated/{c}", file=sys.stderr)
            return 1
        if not args.quiet:
            print(f"generated/ is up to date ({len(files)} files, {took:.2f}s)")
        return 0
    if not args.quiet:
        print(f"codegen: {len(files)} files, {len(changed)} written, {took:.2f}s")
        for c in changed:
            print(f"  generated/{c}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
