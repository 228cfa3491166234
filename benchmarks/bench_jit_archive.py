"""Saving and loading a 400 MB traced model: peak memory and time, torchlite.jit beside torch.jit.

    python benchmarks/bench_jit_archive.py [--mb 400] [--rounds 3] [--dir /tmp]

The model is a Sequential of Linear layers (float32 weights, 400 MB in all by default), traced. Each
measurement runs in its own subprocess, so its peak resident memory (ru_maxrss) is its own:

- save: the subprocess builds and traces the model, notes its resident set (the model held), saves,
  and reports ru_maxrss minus that: the memory the save itself needed beyond the model;
- load: a fresh subprocess notes ru_maxrss after importing the libraries, loads, runs forward once,
  and reports the growth: the loaded model plus whatever the reader held at its peak.

Four ways per library row: torchlite's streaming path (a path: records written from the storages and
read into them), torchlite's buffer path (`save_to_buffer` written to the file, and `_load_module` of
the whole file's bytes: the archive in memory, which is what jit.save/load did before the archives
were streamed), and torch.jit.save / torch.jit.load. Rounds alternate the four; medians of time and
of memory. The file is in the page cache when loaded (each save just wrote it), for every library
alike. The machine is shared with other sessions: times swing, memory does not.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CHILD = r'''
import json, os, resource, sys, time, warnings
warnings.simplefilter("ignore")
lib_name, op, path, mb = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
if lib_name == "torch":
    import torch as lib
else:
    import torchlite as lib
lib.set_num_threads(1)
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
width = 4096
layers = max(1, round(mb * 2**20 / (4 * (width * width + width))))
x = lib.ones(1, width)
if op.startswith("save"):
    with lib.no_grad():
        model = lib.nn.Sequential(*[lib.nn.Linear(width, width) for _ in range(layers)])
        traced = lib.jit.trace(model, x)
    base = max(rss(), peak())  # the model held (and what building it peaked at)
    t0 = time.perf_counter()
    if op == "save":
        lib.jit.save(traced, path)
    else:  # the buffer path: the whole archive in memory, then written
        with open(path, "wb") as f:
            f.write(traced.save_to_buffer())
    dt = time.perf_counter() - t0
    extra = peak() - base
else:
    base = peak()
    t0 = time.perf_counter()
    if op == "load":
        m = lib.jit.load(path)
    else:  # the buffer path: the whole file read, then parsed
        from torchlite.jit._script_module import RecursiveScriptModule
        with open(path, "rb") as f:
            data = f.read()
        m = RecursiveScriptModule(lib._C._jit._load_module(data, None, path)[0])
        del data
    dt = time.perf_counter() - t0
    with lib.no_grad():
        m(x)
    extra = peak() - base
print(json.dumps({"seconds": dt, "extra_bytes": extra, "model_bytes": layers * 4 * (width * width + width),
                  "file_bytes": os.path.getsize(path)}))
'''


def run(lib, op, path, mb):
    out = subprocess.run([sys.executable, "-c", CHILD, lib, op, path, str(mb)], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dir", default=None)
    args = ap.parse_args()
    d = tempfile.mkdtemp(dir=args.dir)
    ways = [("torchlite, streamed (path)", "torchlite", "save", "load"),
            ("torchlite, whole archive in memory (before)", "torchlite", "save_buffer", "load_buffer"),
            ("torch.jit", "torch", "save", "load")]
    results = {w[0]: {"save": [], "load": []} for w in ways}
    info = None
    for _ in range(args.rounds):
        for name, lib, save_op, load_op in ways:
            path = os.path.join(d, f"{lib}.pt")
            s = run(lib, save_op, path, args.mb)
            l = run(lib, load_op, path, args.mb)
            os.remove(path)
            results[name]["save"].append(s)
            results[name]["load"].append(l)
            info = info or s
    mib = 2**20
    print(f"model: {info['model_bytes'] / mib:.0f} MiB of float32 weights; file {info['file_bytes'] / mib:.0f} MiB; "
          f"{args.rounds} rounds, medians; load average {os.getloadavg()[0]:.1f}")
    print(f"| {'':44s} | save s | save peak above the model, MiB | load s | load peak growth, MiB |")
    print(f"|{'-' * 46}|--------|--------------------------------|--------|-----------------------|")
    for name, *_ in ways:
        r = results[name]
        med = lambda xs, k: statistics.median(x[k] for x in xs)
        print(f"| {name:44s} | {med(r['save'], 'seconds'):6.2f} | {med(r['save'], 'extra_bytes') / mib:30.0f} | "
              f"{med(r['load'], 'seconds'):6.2f} | {med(r['load'], 'extra_bytes') / mib:21.0f} |")
    os.rmdir(d)
    return 0


if __name__ == "__main__":
    sys.exit(main())
