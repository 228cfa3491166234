"""The fuzzer's driver: generates calls, runs them in a pool of worker processes, classifies each as
ok / expected exception / unexpected exception / crash / hang, and keeps one reproducer per finding."""
import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .generate import PRELUDE, generate
from .known import KNOWN
from .targets import load_targets
from .worker import asan_preloaded, cap_memory

ROOT = Path(__file__).resolve().parents[2]
# -P: the interpreter does not put its working directory (ROOT) first on sys.path, so the torchlite
# on PYTHONPATH is the one tested (tools/sanitize.sh puts its sanitized build there). Python >= 3.11.
SAFE_PATH = ["-P"] if sys.version_info >= (3, 11) else []
BAD = ("crash", "hang", "unexpected")
REPORTED = BAD + ("mismatch",)  # a mismatch with PyTorch (--compare-torch) is reported, not a failure


@dataclass
class Finding:
    kind: str      # crash, hang or unexpected
    target: str
    detail: str    # signal, or exception type and message
    source: str    # runnable reproducer
    call_id: str   # "seed:index"
    count: int = 1

    def report(self):
        return f"[{self.kind}] {self.target}: {self.detail} (call {self.call_id}, seen {self.count}x)\n" \
               + "\n".join("    " + line for line in self.source.splitlines())


@dataclass
class Summary:
    calls: int = 0
    classes: Counter = field(default_factory=Counter)
    findings: dict = field(default_factory=dict)
    avoided: int = 0
    seconds: float = 0.0

    def bad(self):
        return [f for f in self.findings.values() if f.kind in BAD]

    def mismatches(self):
        return [f for f in self.findings.values() if f.kind == "mismatch"]

    def text(self):
        lines = [f"{self.calls} calls in {self.seconds:.1f}s: " + ", ".join(f"{k} {v}" for k, v in sorted(
            self.classes.items())) + f"; {self.avoided} avoided as known bugs"]
        lines += [f.report() for f in self.bad() + self.mismatches()]
        return "\n".join(lines)


class Worker:
    """One worker process and the thread reading its protocol lines."""

    def __init__(self, env):
        self.env = env
        self._start()

    def _start(self):
        self.proc = subprocess.Popen([sys.executable, *SAFE_PATH, "-m", "tests.fuzz.worker"], cwd=ROOT, env=self.env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, bufsize=1, start_new_session=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.proc, self.lines), daemon=True).start()
        self.fresh = True

    @staticmethod
    def _read(proc, lines):
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    def _restart(self):
        self.close()
        self._start()

    def close(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def _died(self):
        rc = self.proc.wait()
        name = signal.Signals(-rc).name if rc < 0 and -rc in signal.Signals._value2member_map_ else f"exit {rc}"
        self._restart()
        return "crash", name

    def run(self, call_id, body, timeout, values=True):
        """(class, detail) of one call."""
        try:
            self.proc.stdin.write(json.dumps({"id": call_id, "body": body, "values": values}) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return self._died()
        # The first call also waits for the worker to import torchlite. With --compare-torch a "torch" line
        # says PyTorch is running the call: a crash or hang after it is PyTorch's, reported as a mismatch.
        in_torch = False
        for wait in (120 if self.fresh else timeout, timeout, timeout):
            try:
                line = self.lines.get(timeout=wait)
            except queue.Empty:
                self._restart()
                return ("mismatch", f"PyTorch hangs: no answer in {wait}s") if in_torch else \
                    ("hang", f"no answer in {wait}s")
            if line is None:
                kind, detail = self._died()
                return ("mismatch", f"PyTorch crashes: {detail}") if in_torch else (kind, detail)
            in_torch = line.startswith("torch ")
            if line.startswith("done "):
                break
        self.fresh = False
        _, kind, exc_type, message, where = json.loads(line[5:])
        if kind == "ok":
            return "ok", ""
        detail = f"{exc_type}: {message}"
        return kind, detail + (f"\n{where}" if kind == "unexpected" else "")


def worker_env(env=None):
    """The environment of worker and reproducer processes: `env` (default: this process's) with ROOT
    on PYTHONPATH after the paths already there (tests.fuzz is importable; a torchlite put first, such
    as the sanitized build, stays first), and under AddressSanitizer the memory cap as its options."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH", ""), str(ROOT)) if p)
    if asan_preloaded(env):
        # ASan reserves terabytes of address space for its shadow memory, so the workers cannot cap
        # theirs (cap_memory); ASan caps each allocation instead, and a refused one returns null
        # (torchlite's out-of-memory error) rather than aborting.
        mb = env.get("TORCHLITE_FUZZ_MEMORY_MB", "1024")
        env["ASAN_OPTIONS"] = ":".join(o for o in (env.get("ASAN_OPTIONS", ""), "allocator_may_return_null=1",
                                                   f"max_allocation_size_mb={mb}") if o)
    return env


def _dedup_key(kind, target, detail):
    first = detail.splitlines()[0] if detail else ""
    # Messages differ by the numbers in them; one bug is one finding.
    return kind, target, "".join("#" if c.isdigit() else c for c in first)[:80]


def draw(targets, seed, index, avoid_known=True):
    """Call number `index` of a run with `seed`, or None when every try hit a known bug. Targets are
    taken in turn, so that a short run reaches every op and variant."""
    target = targets[index % len(targets)]
    rng = random.Random(f"{seed}:{index}")
    for _ in range(20):
        call = generate(target, rng)
        if not avoid_known or not any(k.avoid(call) for k in KNOWN):
            return call
    return None


def _values_defined(fn):
    """False for ops whose values are not comparable: random ones, and uninitialised ones (samples marked
    `# check: shape`)."""
    return "random" not in fn.tags and not any("check: shape" in s for s in (fn.functional or fn).samples)


def run(calls=1000, seed=0, workers=2, timeout=10.0, avoid_known=True, ops=None, time_limit=None,
        progress=None, env=None, compare_torch=False):
    """Fuzzes `calls` calls (or until `time_limit` seconds) and returns the Summary. With compare_torch,
    each call also runs with PyTorch, and disagreements are counted as 'mismatch' findings."""
    targets = load_targets()
    if ops:
        targets = [t for t in targets if any(o == t.fn.schema.name.base or o == str(t.fn.schema.name) for o in ops)]
    assert targets, "no op matches"
    env = worker_env(env)
    # One BLAS thread: its per-thread buffers would otherwise eat the workers' capped address space.
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    if compare_torch:
        env["TORCHLITE_FUZZ_COMPARE"] = "1"
        env.setdefault("TORCHLITE_FUZZ_MEMORY_MB", "6144")  # PyTorch maps far more address space
    summary = Summary()
    lock = threading.Lock()
    counter = iter(range(calls))
    start = time.monotonic()

    def work():
        worker = Worker(env)
        try:
            while True:
                with lock:
                    index = next(counter, None)
                if index is None or (time_limit and time.monotonic() - start > time_limit):
                    return
                call = draw(targets, seed, index, avoid_known)
                if call is None:
                    with lock:
                        summary.avoided += 1
                    continue
                kind, detail = worker.run(f"{seed}:{index}", call.body(), timeout, _values_defined(call.target.fn))
                new = kind in REPORTED and _dedup_key(kind, str(call.target), detail) not in summary.findings
                source = minimize(call, kind, detail, timeout) if new and kind in ("crash", "hang") else call.source()
                with lock:
                    summary.calls += 1
                    summary.classes[kind] += 1
                    if kind in REPORTED:
                        key = _dedup_key(kind, str(call.target), detail)
                        if key in summary.findings:
                            summary.findings[key].count += 1
                        else:
                            summary.findings[key] = Finding(kind, str(call.target), detail, source,
                                                            f"{seed}:{index}")
                    if progress and summary.calls % progress == 0:
                        print(f"... {summary.calls} calls, {dict(summary.classes)}", file=sys.stderr, flush=True)
        finally:
            worker.close()

    threads = [threading.Thread(target=work) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    summary.seconds = time.monotonic() - start
    return summary


def minimize(call, kind, detail, timeout):
    """The shortest of the call's shorter reproducers that still crashes with the same signal (or hangs),
    run in a fresh interpreter; the full source when none does."""
    for source in call.shorter_sources():
        got, got_detail = reproduce(source, timeout=timeout * 2)
        if got == kind and (kind != "crash" or got_detail == detail):
            return source
    return call.source()


def reproduce(source, timeout=60):
    """Runs a reproducer in a fresh interpreter: ('crash', signal) / ('hang', '') / ('exit', code)."""
    try:
        proc = subprocess.run([sys.executable, *SAFE_PATH, "-c", source], cwd=ROOT, env=worker_env(), timeout=timeout,
                              capture_output=True, text=True, preexec_fn=cap_memory)
    except subprocess.TimeoutExpired:
        return "hang", ""
    if proc.returncode < 0:
        return "crash", signal.Signals(-proc.returncode).name
    return "exit", str(proc.returncode)


__all__ = ["run", "draw", "reproduce", "worker_env", "Summary", "Finding", "PRELUDE"]
