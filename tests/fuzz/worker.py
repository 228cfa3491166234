"""A fuzz worker: runs calls sent as JSON lines on stdin, one at a time, in this process.

Before each call it writes `start <id>` and flushes, so when the process dies the parent knows which
call killed it; after it, `done <id> <class> <exception type> <message>` (one line, JSON). Its address
space is capped (a huge allocation fails instead of taking the machine) and torchlite runs one thread
unless told otherwise.
"""
import json
import os
import resource
import sys
import traceback

EXPECTED = (RuntimeError, TypeError, ValueError, IndexError, NotImplementedError, OverflowError, MemoryError)


# Messages of C++ standard-library exceptions that reached Python untranslated (as RuntimeError).
UNTRANSLATED = ("unknown C++ exception", "Python error indicator not set", "vector::", "basic_string", "std::",
                "_M_", "stoi", "stol", "bad_array_new_length", "bad_variant_access", "bad_optional_access",
                "map::at", "unordered_map")


def classify(exc):
    """'ok', 'expected' (a Python error PyTorch also uses for bad input) or 'unexpected' (another type,
    or a C++ standard-library exception that was never translated into a proper error)."""
    if exc is None:
        return "ok"
    if isinstance(exc, RuntimeError) and any(m in str(exc) for m in UNTRANSLATED):
        return "unexpected"
    return "expected" if isinstance(exc, EXPECTED) else "unexpected"


def asan_preloaded(env=None):
    """Whether processes with this environment run under AddressSanitizer (tools/sanitize.sh preloads it)."""
    return "libasan" in (os.environ if env is None else env).get("LD_PRELOAD", "")


def cap_memory():
    """Caps this process's address space (TORCHLITE_FUZZ_MEMORY_MB, default 1024): a call asking for
    gigabytes fails as it would on a full machine, quickly, instead of taking the machine. Not under
    AddressSanitizer, whose shadow memory needs terabytes of address space: there ASan's own
    per-allocation cap does this (runner.worker_env)."""
    if asan_preloaded():
        return
    limit = int(os.environ.get("TORCHLITE_FUZZ_MEMORY_MB", "1024")) << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def main():
    cap_memory()
    import torchlite
    torchlite.set_num_threads(int(os.environ.get("TORCHLITE_FUZZ_THREADS", "1")))
    from tests.fuzz.generate import PRELUDE
    prelude = compile(PRELUDE, "<prelude>", "exec")
    compare = os.environ.get("TORCHLITE_FUZZ_COMPARE") == "1"
    if compare:
        import torch
        torch.set_num_threads(1)
        from tests.fuzz import compare as cmp
        torch_prelude = compile(PRELUDE.replace("torchlite", "torch"), "<torch prelude>", "exec")
    # The protocol gets its own copy of stdout; whatever the calls print goes to stderr (discarded).
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    for line in sys.stdin:
        job = json.loads(line)
        out.write(f"start {job['id']}\n")
        out.flush()
        scope = {}
        exc = None
        try:
            exec(prelude, scope)  # noqa: S102 - the fuzzer's own generated code
            exec(compile(job["body"], f"<call {job['id']}>", "exec"), scope)  # noqa: S102
        except BaseException as e:  # noqa: BLE001 - classifying every exception is the point
            exc = e
        kind = classify(exc)
        if compare and kind in ("ok", "expected"):
            out.write(f"torch {job['id']}\n")  # a crash from here on is PyTorch's (INT64_MIN // -1 is one)
            out.flush()
            try:
                t_scope, t_exc = cmp.run_torch(job["body"], torch_prelude)
                differs = cmp.mismatch(scope, exc, t_scope, t_exc, job.get("values", True))
            except Exception as e:  # noqa: BLE001 - a comparison that fails is itself worth a look
                differs = f"comparing with PyTorch failed: {e!r}"
            if differs:
                kind, exc = "mismatch", RuntimeError(differs)
        detail = "" if exc is None else str(exc)[:400]
        where = "" if kind != "unexpected" else "".join(traceback.format_exception(exc)[-3:])[-600:]
        out.write("done " + json.dumps([job["id"], kind, type(exc).__name__ if exc else "", detail, where]) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
