"""Archives written and read record by record (aten/jit/ZipArchive.h): jit.save streams each record to the
file or file object (tensor bytes from their storages, the CRC computed per chunk and patched into the local
header, or computed first for a file object that cannot seek back), jit.load reads the directory, then each
record when needed (tensor data straight into the storage, CRC-checked on the way), from a path or any
seekable file object. Python's zipfile checks what is written; corrupt data still raises RuntimeError; a
subprocess checks that neither direction holds the archive in memory."""
import io
import json
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import torchlite as tl


def _model():
    tl.manual_seed(0)
    # 512 x 1024 float32 = 2 MiB: above the 1 MiB chunk, so its CRC is streamed and patched; the bias is small.
    m = tl.nn.Sequential(tl.nn.Linear(1024, 512), tl.nn.ReLU(), tl.nn.Linear(512, 3))
    with tl.no_grad():
        return tl.jit.trace(m, tl.ones(2, 1024))


def _same(a, b):
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


class _Unseekable(io.RawIOBase):
    """A write-only stream that cannot seek and writes at most 1000 bytes per call (as a pipe may)."""

    def __init__(self):
        self.data = bytearray()

    def writable(self):
        return True

    def write(self, b):
        n = min(len(b), 1000)
        self.data += bytes(b[:n])
        return n


def test_save_targets_agree_and_zipfile_checks_every_crc(tmp_path):
    m = _model()
    x = tl.randn(4, 1024)
    tl.jit.save(m, tmp_path / "a.pt")
    buf = io.BytesIO()
    tl.jit.save(m, buf)
    raw = _Unseekable()
    tl.jit.save(m, raw)
    on_disk = (tmp_path / "a.pt").read_bytes()
    # One format whatever the target: the same bytes from a path, a seekable and an unseekable file object.
    assert on_disk == buf.getvalue() == bytes(raw.data) == m.save_to_buffer()
    with zipfile.ZipFile(tmp_path / "a.pt") as z:
        assert z.testzip() is None  # every record's CRC-32 and sizes
        big = [i for i in z.infolist() if i.file_size > 2**20]
        assert big and all(i.header_offset >= 0 for i in big)
    for src in (tmp_path / "a.pt", io.BytesIO(on_disk)):
        _same(tl.jit.load(src)(x), m(x))


def test_load_from_a_file_object_at_an_offset(tmp_path):
    m = _model()
    x = tl.randn(2, 1024)
    data = m.save_to_buffer(_extra_files={"note.txt": "hello"})
    f = io.BytesIO(b"PREFIX" + data)
    f.seek(6)  # the archive starts where the object stands, as when reading it whole would
    extra = {"note.txt": ""}
    loaded = tl.jit.load(f, _extra_files=extra)
    assert extra["note.txt"] == b"hello"
    assert f.tell() == 6 + len(data)
    _same(loaded(x), m(x))
    with open(tmp_path / "m.pt", "wb") as out:
        out.write(data)
    with open(tmp_path / "m.pt", "rb") as fh:  # a real file object: seek + readinto
        _same(tl.jit.load(fh)(x), m(x))


class _ReadOnly(io.RawIOBase):
    def __init__(self, data):
        self._b = io.BytesIO(data)

    def readable(self):
        return True

    def read(self, n=-1):
        return self._b.read(n)


def test_unseekable_file_object_is_read_whole():
    m = _model()
    x = tl.randn(2, 1024)
    _same(tl.jit.load(_ReadOnly(m.save_to_buffer()))(x), m(x))


def _flip(data, pos):
    b = bytearray(data)
    b[pos] ^= 0x10
    return bytes(b)


def test_corrupt_tensor_data_raises_from_every_source(tmp_path):
    data = _model().save_to_buffer()
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        info = max(z.infolist(), key=lambda i: i.file_size)  # the 2 MiB weight
        local = info.header_offset
    start = local + 30 + int.from_bytes(data[local + 26:local + 28], "little") + \
        int.from_bytes(data[local + 28:local + 30], "little")
    for pos in (start, start + info.file_size // 2, start + info.file_size - 1):
        bad = _flip(data, pos)
        (tmp_path / "bad.pt").write_bytes(bad)
        for src in (tmp_path / "bad.pt", io.BytesIO(bad), _ReadOnly(bad)):
            with pytest.raises(RuntimeError, match="fails its CRC-32 check"):
                tl.jit.load(src)
        # map_location='meta' reads no tensor data, so it does not see the flip (shapes and dtypes only).
        assert tl.jit.load(tmp_path / "bad.pt", map_location="meta").state_dict()["0.weight"].is_meta
    for cut in (start + 10, len(data) - 5, len(data) // 2):
        (tmp_path / "cut.pt").write_bytes(data[:cut])
        for src in (tmp_path / "cut.pt", io.BytesIO(data[:cut])):
            with pytest.raises(RuntimeError):
                tl.jit.load(src)


_MEMORY_CHILD = r"""
import json, os, sys
import torchlite as tl
path = sys.argv[1]
def peak():  # VmHWM, the peak resident set since reset() (ru_maxrss cannot be reset)
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:"))
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
def reset():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
if sys.argv[2] == "save":
    with tl.no_grad():
        m = tl.jit.trace(tl.nn.Sequential(*[tl.nn.Linear(2048, 2048) for _ in range(6)]), tl.ones(1, 2048))
    reset()
    base = rss()
    tl.jit.save(m, path)
    with open(path + ".obj", "wb") as f:
        tl.jit.save(m, f)
    print(json.dumps({"extra": peak() - base}))
else:
    reset()
    base = rss()
    if sys.argv[2] == "load":
        m = tl.jit.load(path)
    else:
        with open(path + ".obj", "rb") as f:
            m = tl.jit.load(f)
    print(json.dumps({"extra": peak() - base}))
"""


def test_neither_save_nor_load_holds_the_archive(tmp_path):
    """A 96 MiB model: saving to a path and to a file object needs no memory beyond the model (the archive
    was built in memory before: +96 MiB and more); loading both needs the model once at a time, not the
    file's bytes beside it."""
    path = str(tmp_path / "big.pt")
    model_bytes = 6 * (2048 * 2048 + 2048) * 4
    out = {}
    for op in ("save", "load", "load_object"):
        r = subprocess.run([sys.executable, "-c", _MEMORY_CHILD, path, op], capture_output=True, text=True,
                           check=True)
        out[op] = json.loads(r.stdout.strip().splitlines()[-1])["extra"]
    assert os.path.getsize(path) > model_bytes
    assert out["save"] < 16 * 2**20, out
    assert model_bytes - 16 * 2**20 < out["load"] < model_bytes + 16 * 2**20, out
    assert model_bytes - 16 * 2**20 < out["load_object"] < model_bytes + 16 * 2**20, out
