"""torchlite.onnx.export beside torch.onnx.export(dynamo=False) in one run: export time of the test
models (MLP, CNN, LSTM, Transformer encoder layer), static and with a dynamic batch axis, and the
onnxruntime time of each exported model on the same input (the two files should run alike).

    python benchmarks/bench_onnx.py

Medians of alternating rounds (the machine is shared: figures swing between runs); ratios are
torchlite's time over PyTorch's. float32, 1 thread for the libraries and for onnxruntime.
"""
from __future__ import annotations

import io
import warnings

import onnxruntime as ort
import torch

import torchlite as tl
import torchlite.onnx

from _timing import median_times


def models(lib):
    nn = lib.nn
    lib.manual_seed(0)

    class CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.AvgPool2d(2),
                                      nn.Flatten(), nn.Linear(16 * 4 * 4, 10))

        def forward(self, x):
            return self.body(x)

    class LSTMNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(16, 32, num_layers=2, batch_first=True)

        def forward(self, x):
            return self.lstm(x)[0]

    return [
        ("MLP 64-64-10", nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10)).eval(), (8, 64)),
        ("CNN conv-bn-pool x2, 16x16", CNN().eval(), (8, 3, 16, 16)),
        ("LSTM 2 layers, 16->32, seq 20", LSTMNet().eval(), (8, 20, 16)),
        ("TransformerEncoderLayer d64 h4", nn.TransformerEncoderLayer(64, 4, 128, batch_first=True).eval(), (8, 10, 64)),
    ]


def export(lib, model, x, dynamic):
    f = io.BytesIO()
    kwargs = dict(input_names=["x"], output_names=["y"])
    if dynamic:
        kwargs["dynamic_axes"] = {"x": {0: "batch"}, "y": {0: "batch"}}
    if lib is torch:
        torch.onnx.export(model, (x,), f, dynamo=False, **kwargs)
    else:
        torchlite.onnx.export(model, (x,), f, **kwargs)
    return f.getvalue()


def session(data):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = opts.inter_op_num_threads = 1
    return ort.InferenceSession(data, opts, providers=["CPUExecutionProvider"])


def main() -> int:
    tl.set_num_threads(1)
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    rows = []
    for (name, t_model, shape), (_, p_model, _) in zip(models(tl), models(torch)):
        p_model.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in t_model.state_dict().items()})
        tx = tl.randn(*shape)
        px = torch.tensor(tx.numpy())
        for dynamic in (False, True):
            label = name + (", dynamic batch" if dynamic else "")
            try:
                export(torch, p_model, px, dynamic)
            except Exception as e:  # PyTorch's own exporter may fail on a model: say so, time torchlite alone
                print(f"{label}: torch.onnx.export(dynamo=False) fails: {type(e).__name__}: {str(e)[:120]}")
                t_ex = median_times([lambda: export(tl, t_model, tx, dynamic)], repeat=5)[0]
                ts = session(export(tl, t_model, tx, dynamic))
                t_run = median_times([lambda: ts.run(None, {"x": tx.numpy()})], number=20, repeat=7)[0]
                rows.append((label, t_ex, None, t_run, None))
                continue
            t_ex, p_ex = median_times([lambda: export(tl, t_model, tx, dynamic), lambda: export(torch, p_model, px, dynamic)],
                                      repeat=5)
            ts, ps = session(export(tl, t_model, tx, dynamic)), session(export(torch, p_model, px, dynamic))
            feed = {"x": tx.numpy()}
            t_run, p_run = median_times([lambda: ts.run(None, feed), lambda: ps.run(None, feed)], number=20, repeat=7)
            rows.append((label, t_ex, p_ex, t_run, p_run))
    print("| model | export tl (ms) | export torch (ms) | ratio | ORT run of tl's file (µs) | of torch's (µs) | ratio |")
    print("|---|---|---|---|---|---|---|")
    for name, t_ex, p_ex, t_run, p_run in rows:
        if p_ex is None:
            print(f"| {name} | {t_ex * 1e3:.1f} | fails | - | {t_run * 1e6:.0f} | - | - |")
            continue
        print(f"| {name} | {t_ex * 1e3:.1f} | {p_ex * 1e3:.1f} | {t_ex / p_ex:.2f}x | {t_run * 1e6:.0f} | "
              f"{p_run * 1e6:.0f} | {t_run / p_run:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
