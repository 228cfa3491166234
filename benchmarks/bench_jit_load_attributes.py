"""A loaded scripted module's call (format version 6: attributes and training flags read at run time) and jit.save's
time, torchlite beside torch in one process: a 3-block Conv-BN-Dropout CNN in eval mode, 1 thread, CPU time per call
(medians of 31 rounds of 200 calls). Run from a checkout's root (docs/jit.md, "Every attribute of a scripted module").
"""
import io
import statistics
import time

import torch
import torchlite as tl
torch.set_num_threads(1); tl.set_num_threads(1)

def make(lib):
    class Block(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = lib.nn.Conv2d(8, 8, 3, padding=1); self.bn = lib.nn.BatchNorm2d(8); self.drop = lib.nn.Dropout(0.1)
            self.scale = 0.5; self.use_res = True
        def forward(self, x):
            y = self.drop(lib.relu(self.bn(self.conv(x))))
            if self.use_res:
                y = y + x * self.scale
            return y
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = lib.nn.Sequential(Block(), Block(), Block())
            self.fc = lib.nn.Linear(8, 4)
        def forward(self, x):
            return self.fc(self.blocks(x).mean((2, 3)))
    return Net().eval()

def cpu_per_call(f, x, n=200, repeat=31):
    for _ in range(20): f(x)
    out = []
    for _ in range(repeat):
        t = time.process_time()
        for _ in range(n): f(x)
        out.append((time.process_time() - t) / n * 1e6)
    return statistics.median(out)

def main():
    res = {}
    for lib in (torch, tl):
        m = lib.jit.script(make(lib))
        t = time.process_time(); b = io.BytesIO(); lib.jit.save(m, b); save = time.process_time() - t
        t = time.process_time(); b2 = io.BytesIO(); lib.jit.save(m, b2); save2 = time.process_time() - t
        b.seek(0); l = lib.jit.load(b); l.eval()
        x = lib.randn(1, 8, 8, 8)
        with lib.no_grad():
            res[lib.__name__] = (cpu_per_call(l, x), cpu_per_call(m, x), save * 1e3, save2 * 1e3)
    print("lib: loaded call us, scripted call us, first save ms, second save ms")
    for k, v in res.items(): print(k, ["%.1f" % a for a in v])
    print("loaded call torchlite/torch: %.2f" % (res["torchlite"][0] / res["torch"][0]))


if __name__ == "__main__":
    main()
