"""Zip64 in torchlite.jit archives (aten/jit/ZipArchive.cpp): sizes and offsets over 4 GiB go in zip64
extra fields and archives of 65,535 records or more end with the zip64 end record, as PKWARE's APPNOTE
4.5. Tested without 4 GiB of data: the writer's threshold is lowered so that every field of a small
archive is written as zip64 (and checked by Python's zipfile), zip64 archives written by Python's
zipfile are read, an archive of 70,000 records round-trips, and broken zip64 fields raise a clear
RuntimeError. Also: PyTorch's own TorchScript archives are refused saying what they are."""
import io
import struct
import zipfile

import pytest
import torch

import torchlite as tl
from torchlite._C import _jit


class MLP(tl.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = tl.nn.Linear(3, 4)
        self.fc2 = tl.nn.Linear(4, 2)

    def forward(self, x):
        return self.fc2(tl.relu(self.fc1(x)))


@pytest.fixture
def model():
    return tl.jit.script(MLP())


@pytest.fixture
def zip64_everywhere():
    old = _jit._set_zip64_threshold(0)
    yield
    _jit._set_zip64_threshold(old)


def _save(m, **kwargs):
    buf = io.BytesIO()
    tl.jit.save(m, buf, **kwargs)
    return buf.getvalue()


def _load(data, **kwargs):
    return tl.jit.load(io.BytesIO(data), **kwargs)


def _check_runs(loaded, m):
    x = tl.randn(5, 3)
    assert tl.equal(loaded(x), m(x))


def test_threshold_default_is_the_format_limit():
    old = _jit._set_zip64_threshold(2**32 - 1)
    assert old == 2**32 - 1
    _jit._set_zip64_threshold(old)


def test_small_archives_have_no_zip64_fields(model):
    data = _save(model)
    z = zipfile.ZipFile(io.BytesIO(data))
    assert all(i.extra == b"" for i in z.infolist())  # the central directory: no extra fields
    assert b"PK\x06\x06" not in data[-200:]  # no zip64 end record


def test_every_field_zip64(model, zip64_everywhere):
    data = _save(model, _extra_files={"notes.txt": "hello"})
    z = zipfile.ZipFile(io.BytesIO(data))
    assert z.testzip() is None  # Python's reader takes it and every CRC matches
    for info in z.infolist():
        ident, size = struct.unpack_from("<HH", info.extra)
        assert (ident, size) == (1, 24)  # sizes and offset, in the central directory
        local = data[info.header_offset:info.header_offset + 30]
        assert struct.unpack_from("<I", local, 18)[0] == 0xFFFFFFFF  # sizes in the local zip64 field
        name_len, extra_len = struct.unpack_from("<HH", local, 26)
        assert (info.header_offset + 30 + name_len + extra_len) % 64 == 0  # data still 64-byte aligned
    end = data.rindex(b"PK\x05\x06")
    assert data[end - 20:end - 16] == b"PK\x06\x07"  # the locator, then the end record
    assert struct.unpack_from("<HHII", data, end + 8) == (0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF)
    files = {"notes.txt": ""}
    loaded = _load(data, _extra_files=files)
    _check_runs(loaded, model)
    assert files["notes.txt"] in ("hello", b"hello")


def test_more_than_65535_records(model):
    extra = {f"f{i}": str(i) for i in range(70000)}
    data = _save(model, _extra_files=extra)
    z = zipfile.ZipFile(io.BytesIO(data))
    assert len(z.infolist()) > 70000
    end = data.rindex(b"PK\x05\x06")
    assert data[end - 20:end - 16] == b"PK\x06\x07"
    assert struct.unpack_from("<H", data, end + 10)[0] == 0xFFFF
    files = {"f0": "", "f65535": "", "f69999": ""}
    loaded = _load(data, _extra_files=files)
    assert [files[k] if isinstance(files[k], str) else files[k].decode() for k in files] == ["0", "65535", "69999"]
    _check_runs(loaded, model)


def test_reads_zip64_written_by_pythons_zipfile(model):
    original = zipfile.ZipFile(io.BytesIO(_save(model)))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as w:
        for info in original.infolist():
            with w.open(info.filename, "w", force_zip64=True) as f:  # zip64 local headers
                f.write(original.read(info.filename))
        for i in range(0xFFFF):  # enough records for zipfile's zip64 end record
            w.writestr(f"archive/extra/pad{i}", b"")
    data = out.getvalue()
    end = data.rindex(b"PK\x05\x06")
    assert data[end - 20:end - 16] == b"PK\x06\x07"
    _check_runs(_load(data), model)


def _zip64_archive(model):
    old = _jit._set_zip64_threshold(0)
    try:
        return bytearray(_save(model))
    finally:
        _jit._set_zip64_threshold(old)


def test_broken_zip64_fields_raise(model):
    data = _zip64_archive(model)
    end = data.rindex(b"PK\x05\x06")

    bad = bytearray(data)
    struct.pack_into("<Q", bad, end - 12, len(data) + 100)  # the locator points past the file
    with pytest.raises(RuntimeError, match="zip64 locator does not point at a zip64 end record"):
        _load(bytes(bad))

    bad = bytearray(data)
    bad[end - 20:end - 16] = b"XXXX"  # no locator, but the end record says zip64
    with pytest.raises(RuntimeError, match="marks zip64 values but there is no zip64 end record"):
        _load(bytes(bad))

    bad = bytearray(data)
    end64 = struct.unpack_from("<Q", bad, end - 12)[0]
    struct.pack_into("<Q", bad, end64 + 32, 2**40)  # an absurd record count
    with pytest.raises(RuntimeError, match="records cannot fit its central directory"):
        _load(bytes(bad))

    bad = bytearray(data)
    struct.pack_into("<Q", bad, end64 + 48, 2**62)  # the directory's offset past the end
    with pytest.raises(RuntimeError, match="runs past the end of the file"):
        _load(bytes(bad))

    bad = bytearray(data)
    central = struct.unpack_from("<Q", bad, end64 + 48)[0]
    name_len = struct.unpack_from("<H", bad, central + 28)[0]
    struct.pack_into("<H", bad, central + 46 + name_len, 0x9999)  # the zip64 field's id changed
    with pytest.raises(RuntimeError, match="no zip64 field"):
        _load(bytes(bad))

    bad = bytearray(data)
    struct.pack_into("<H", bad, central + 46 + name_len + 2, 8)  # the zip64 field too short for its values
    with pytest.raises(RuntimeError, match="zip64 field of record .* is too short"):
        _load(bytes(bad))

    bad = bytearray(data)
    struct.pack_into("<Q", bad, central + 46 + name_len + 4 + 16, 2**63)  # the local header offset, absurd
    with pytest.raises(RuntimeError, match="bad local header"):
        _load(bytes(bad))


def test_every_cut_and_bit_flip_of_the_zip64_tail_raises_or_loads(model):
    data = bytes(_zip64_archive(model))
    end = data.rindex(b"PK\x05\x06")
    tail = data.rindex(b"PK\x06\x06")
    for cut in range(tail - 10, len(data)):
        with pytest.raises(RuntimeError):
            _load(data[:cut])
    for pos in range(tail, end + 22):
        for bit in (0, 3, 7):
            bad = bytearray(data)
            bad[pos] ^= 1 << bit
            try:
                _check_runs(_load(bytes(bad)), model)
            except RuntimeError:
                pass


@pytest.mark.parametrize("how", ["trace", "script"])
def test_pytorch_torchscript_archive_is_named(tmp_path, how):
    m = torch.nn.Linear(2, 2)
    pm = torch.jit.trace(m, torch.randn(1, 2)) if how == "trace" else torch.jit.script(m)
    path = tmp_path / "model.pt"
    torch.jit.save(pm, str(path))
    msg = "is a TorchScript archive written by PyTorch's torch.jit.save; torchlite.jit.load reads only torchlite.jit"
    with pytest.raises(RuntimeError, match=msg) as err:
        tl.jit.load(str(path))
    assert str(path) in str(err.value)
    with pytest.raises(RuntimeError, match=msg):
        tl.jit.load(io.BytesIO(path.read_bytes()))
