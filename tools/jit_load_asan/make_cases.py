"""Writes torchlite.jit archives for tools/jit_load_asan/run.sh: a valid MLP, CNN and LSTM archive
each, a scripted module that assigns attributes and has argument defaults (the `attributes` and
`args` of the model record, prim::SetAttr), one that returns a NamedTuple and uses a TorchScript class
(format version 3's named tuple types, prim::CreateObject), one with Enum arguments and results (format
version 4's `enums` entries), one of format version 5 (an object attribute, dicts, Enum paths), one of
format version 6 (every attribute read at run time, `constants`, the training flags, prim::Enter), and mutated copies (token and number edits
of the text records with valid CRCs, bit flips, truncations); and each model written with every size
and offset in zip64 form, with bit flips in its central directory and zip64 end records and cuts.
Usage: python make_cases.py OUT_DIR [COUNT per model]."""
import enum
import io
import random
import re
import sys
import zipfile
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
import torchlite as tl  # noqa: E402
from test_jit_save_load import _make, _rezip  # noqa: E402


class Stateful(tl.nn.Module):
    """Assigns an int, a float of a submodule and a buffer; defaults for all but x."""

    def __init__(self):
        super().__init__()
        self.count = 0
        self.lin = tl.nn.Linear(5, 5)
        self.lin.scale = 0.5
        self.register_buffer("total", tl.zeros(()))

    def forward(self, x, scale: float = 2.0, mask: Optional[tl.Tensor] = None):
        self.count += 1
        self.total = self.total + x.sum()
        self.lin.scale = self.lin.scale * scale
        y = self.lin(x) * scale + self.count
        if mask is not None:
            y = y * mask
        return y


class Stats(NamedTuple):
    mean: tl.Tensor
    n: int


class Acc:
    def __init__(self, x: tl.Tensor):
        self.total = x
        self.n = 1

    def add(self, y: tl.Tensor) -> None:
        self.total = self.total + y
        self.n += 1


tl.jit.script(Acc)


class Typed(tl.nn.Module):
    """A NamedTuple result and a TorchScript class instance inside."""

    def forward(self, x, steps: int = 3) -> Stats:
        acc = Acc(x)
        for _ in range(steps):
            acc.add(x * 0.5)
        return Stats(acc.total / acc.n, acc.n)


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Mode(enum.Enum):
    FAST = "fast"
    SLOW = "slow"


class Enums(tl.nn.Module):
    """Enum arguments with defaults, an Enum in a returned tuple (the `enums` of the model record)."""

    def forward(self, x, c: Color = Color.RED, m: Mode = Mode.FAST) -> Tuple[tl.Tensor, Color]:
        if c == Color.RED and m == Mode.FAST:
            return x * c.value, Color.GREEN
        return x, c


class Version5(tl.nn.Module):
    """Format version 5: a class instance held by an attribute (an `object` constant, the `classes` record with its
    methods), a dict type and Enum places inside containers."""

    def __init__(self):
        super().__init__()
        self.acc = Acc(tl.ones(2))

    def forward(self, x, d: Dict[str, List[Color]]) -> Tuple[tl.Tensor, Dict[str, List[Color]]]:
        self.acc.add(x)
        d["seen"] = [Color.GREEN]
        return self.acc.total * self.acc.n, d


class Scale:
    def __init__(self, k: float):
        self.k = k

    def __enter__(self) -> float:
        return self.k

    def __exit__(self, a: Any, b: Any, c: Any) -> None:
        self.k = 0.0


tl.jit.script(Scale)


class Version6(tl.nn.Module):
    """Format version 6: every attribute read at run time (numbers, strings, lists, dicts, tuples, NoneType, a plain
    tensor, the training flags of batch_norm and dropout), `constants`, and a `with` (prim::Enter / prim::Exit)."""
    __constants__ = ["k"]

    def __init__(self):
        super().__init__()
        self.k = 2
        self.scale = 0.5
        self.flag = True
        self.name = "a"
        self.lst = [1, 2]
        self.d = {"a": 1.0}
        self.tup = (1, 2.0)
        self.none = None
        self.t = tl.ones(5)
        self.bn = tl.nn.BatchNorm1d(4)
        self.drop = tl.nn.Dropout(0.25)

    def forward(self, x):
        y = self.drop(self.bn(x)) * self.scale + self.k + len(self.lst) + self.d["a"] + self.tup[1] + self.t
        if self.flag and self.name == "a" and self.training:
            y = y + 1
        with Scale(2.0) as s:
            y = y * s
        return y


def _archive(name):
    if name == "v6":
        return tl.jit.script(Version6())
    if name == "v5":
        return tl.jit.script(Version5())
    if name == "enums":
        return tl.jit.script(Enums())
    if name == "stateful":
        return tl.jit.script(Stateful())
    if name == "typed":
        return tl.jit.script(Typed())
    return _make(name)[1]


def _zip64_cases(out, name, module, rng, count):
    from torchlite._C import _jit
    old = _jit._set_zip64_threshold(0)
    try:
        buf = io.BytesIO()
        tl.jit.save(module, buf)
    finally:
        _jit._set_zip64_threshold(old)
    data = buf.getvalue()
    (out / f"{name}_z64_ok.pt").write_bytes(data)
    tail = data.rindex(b"PK\x01\x02", 0, data.rindex(b"PK\x06\x06"))  # the last directory entry onwards
    for i in range(count):
        flipped = bytearray(data)
        flipped[rng.randrange(tail, len(data))] ^= 1 << rng.randrange(8)
        (out / f"{name}_z64flip{i}.pt").write_bytes(bytes(flipped))
        (out / f"{name}_z64cut{i}.pt").write_bytes(data[:rng.randrange(tail, len(data))])


def main(out, count):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(0)
    for name in ["mlp", "cnn", "lstm", "stateful", "typed", "enums", "v5", "v6"]:
        buf = io.BytesIO()
        module = _archive(name)
        _zip64_cases(out, name, module, rng, count // 5)
        tl.jit.save(module, buf)
        data = buf.getvalue()
        (out / f"{name}_ok.pt").write_bytes(data)
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            records = {k: z.read(k) for k in z.namelist()}
        texts = [k for k in records if k.endswith((".graph", "model", "tensors", "classes"))]
        for i in range(count):
            record = rng.choice(texts)
            tokens = re.split(rb"(\s+)", records[record])
            words = list(range(0, len(tokens), 2))
            for _ in range(rng.randrange(1, 4)):
                j = rng.choice(words)
                if tokens[j].lstrip(b"-").isdigit() and rng.random() < 0.7:  # counts, ids, sizes, strides
                    tokens[j] = str(int(tokens[j]) + rng.choice([-2, -1, 1, 2, 100, -100, 2**31, 2**62])).encode()
                else:
                    tokens[j] = tokens[rng.choice(words)]
            blob = b"".join(tokens)
            (out / f"{name}_mut{i}.pt").write_bytes(_rezip(data, lambda r: {**r, record: blob}))
        for i in range(count // 10):
            flipped = bytearray(data)
            flipped[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            (out / f"{name}_flip{i}.pt").write_bytes(bytes(flipped))
            (out / f"{name}_cut{i}.pt").write_bytes(data[:rng.randrange(len(data))])


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1000)
