"""torchlite.save / torchlite.load: round trips, files exchanged with PyTorch both ways, storage sharing,
the safe (weights_only) default, map_location, and the archive layout."""
import collections
import io
import os
import pathlib
import pickle
import zipfile

import numpy as np
import pytest
import torch

import torchlite as tl
from conftest import DTYPES, from_torch, make, to_torch

ALL_DTYPES = DTYPES + ["uint16", "uint32", "uint64"]


def _sample(dtype):
    if dtype.startswith("uint") and dtype != "uint8":
        return tl.tensor([0, 1, 2, 3, 2**15, 7, 9], dtype=getattr(tl, dtype))
    return from_torch(make((3, 4), dtype))


def _assert_same(a, b):
    assert type(a) is type(b) or (isinstance(a, tl.Tensor) and isinstance(b, tl.Tensor)), (type(a), type(b))
    assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape) and a.stride() == b.stride()
    assert a.requires_grad == b.requires_grad
    np.testing.assert_array_equal(a.detach().float().numpy() if a.dtype == tl.bfloat16 else a.detach().numpy(),
                                  b.detach().float().numpy() if b.dtype == tl.bfloat16 else b.detach().numpy())


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_round_trip_every_dtype(dtype, tmp_path):
    t = _sample(dtype)
    tl.save(t, tmp_path / "t.pt")
    _assert_same(tl.load(tmp_path / "t.pt"), t)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_torch_reads_torchlite_files(dtype, tmp_path):
    t = _sample(dtype)
    tl.save({"t": t, "view": t[1:]}, tmp_path / "t.pt")
    loaded = torch.load(tmp_path / "t.pt")  # PyTorch's weights_only default
    expected = t.numpy() if dtype != "bfloat16" else t.float().numpy()
    got = loaded["t"].numpy() if dtype != "bfloat16" else loaded["t"].float().numpy()
    np.testing.assert_array_equal(got, expected)
    assert str(loaded["t"].dtype) == "torch." + dtype
    assert loaded["view"].untyped_storage().data_ptr() == loaded["t"].untyped_storage().data_ptr()


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_torchlite_reads_torch_files(dtype, tmp_path):
    if dtype.startswith("uint") and dtype != "uint8":
        t = torch.tensor([0, 1, 2, 3, 2**15, 7, 9], dtype=getattr(torch, dtype))
    else:
        t = make((3, 4), dtype)
    torch.save({"t": t, "view": t.t()}, tmp_path / "t.pt")
    loaded = tl.load(tmp_path / "t.pt")
    expected = (tl.tensor(t.tolist(), dtype=getattr(tl, dtype)) if dtype.startswith("uint") and dtype != "uint8"
                else from_torch(t))
    _assert_same(loaded["t"], expected)
    assert loaded["view"].stride() == t.t().stride()
    assert loaded["view"].untyped_storage().data_ptr() == loaded["t"].untyped_storage().data_ptr()


def test_views_share_storage_after_a_round_trip():
    base = tl.arange(12.0)
    obj = [base, base[2:7], base.view(3, 4).t(), base.view(3, 4)[:, 1]]
    buf = io.BytesIO()
    tl.save(obj, buf)
    buf.seek(0)
    back = tl.load(buf)
    for original, loaded in zip(obj, back):
        _assert_same(loaded, original)
        assert loaded.storage_offset() == original.storage_offset()
    back[0][5] = -1.0
    assert back[1][3].item() == -1.0 and back[2][1, 1].item() == -1.0


def test_values_and_containers_round_trip():
    od = collections.OrderedDict(a=tl.ones(2), b=3)
    od._metadata = {"": {"version": 1}}
    obj = {"int": 3, "float": 2.5, "str": "x", "none": None, "bytes": b"\x00\xff", "tuple": (1, (2, 3)),
           "set": {1, 2}, "list": [tl.zeros(0, 3), tl.tensor(5.0)], "od": od, "dtype": tl.bfloat16,
           "size": tl.Size([2, 3]), "device": tl.device("cpu"), "complex": 1 + 2j, "inf": float("inf")}
    buf = io.BytesIO()
    tl.save(obj, buf)
    buf.seek(0)
    back = tl.load(buf)
    assert {k: v for k, v in back.items() if k not in ("list", "od")} == {
        k: v for k, v in obj.items() if k not in ("list", "od")}
    assert type(back["size"]) is tl.Size and type(back["od"]) is collections.OrderedDict
    assert back["od"]._metadata == {"": {"version": 1}}
    _assert_same(back["list"][0], obj["list"][0])
    _assert_same(back["list"][1], obj["list"][1])


def test_requires_grad_and_parameters():
    p = tl.nn.Parameter(tl.ones(3))
    q = tl.nn.Parameter(tl.ones(2), requires_grad=False)
    leaf = tl.ones(2, requires_grad=True)
    buf = io.BytesIO()
    tl.save([p, q, leaf], buf)
    buf.seek(0)
    bp, bq, bl = tl.load(buf)
    assert type(bp) is tl.nn.Parameter and bp.requires_grad
    assert type(bq) is tl.nn.Parameter and not bq.requires_grad
    assert bl.requires_grad and bl.is_leaf
    buf.seek(0)
    tp, tq, tleaf = torch.load(buf)
    assert isinstance(tp, torch.nn.Parameter) and tp.requires_grad and not tq.requires_grad and tleaf.requires_grad


def test_non_leaf_requiring_grad_is_refused():
    x = tl.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor"):
        tl.save(x, io.BytesIO())


def test_module_state_dict_round_trip_and_torch_checkpoint_into_module(tmp_path):
    class Net(tl.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = tl.nn.Parameter(tl.zeros(2, 3))
            self.register_buffer("count", tl.zeros((), dtype=tl.int64))

    class TorchNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(2, 3))
            self.register_buffer("count", torch.tensor(7))

    theirs = TorchNet()
    torch.save(theirs.state_dict(), tmp_path / "sd.pt")
    ours = Net()
    result = ours.load_state_dict(tl.load(tmp_path / "sd.pt"))
    assert not result.missing_keys and not result.unexpected_keys
    np.testing.assert_array_equal(ours.w.detach().numpy(), theirs.w.detach().numpy())
    assert ours.count.item() == 7
    tl.save(ours.state_dict(), tmp_path / "ours.pt")
    TorchNet().load_state_dict(torch.load(tmp_path / "ours.pt"))
    assert tl.load(tmp_path / "ours.pt")._metadata == ours.state_dict()._metadata


def test_optimizer_state_round_trip(tmp_path):
    p = tl.nn.Parameter(tl.ones(3))
    opt = tl.optim.Adam([p], lr=0.1)
    p.grad = tl.ones(3)
    opt.step()
    tl.save(opt.state_dict(), tmp_path / "opt.pt")
    other = tl.optim.Adam([tl.nn.Parameter(tl.ones(3))], lr=0.5)
    other.load_state_dict(tl.load(tmp_path / "opt.pt"))
    assert other.param_groups[0]["lr"] == 0.1
    assert other.state_dict()["state"][0]["step"].item() == 1.0
    torch_state = torch.load(tmp_path / "opt.pt")
    assert torch_state["param_groups"][0]["betas"] == (0.9, 0.999)


class Custom:
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, Custom) and other.value == self.value


class Exploit:
    def __reduce__(self):
        return (os.system, ("echo torchlite-pwned > /dev/null",))


def test_weights_only_refuses_other_globals_and_false_allows_them():
    buf = io.BytesIO()
    tl.save({"c": Custom(3), "t": tl.ones(1)}, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="(?s)Weights only load failed.*GLOBAL test_serialization.Custom"):
        tl.load(buf)
    buf.seek(0)
    assert tl.load(buf, weights_only=False)["c"] == Custom(3)


def test_weights_only_never_runs_code_from_the_file():
    buf = io.BytesIO()
    tl.save([Exploit()], buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL posix.system|GLOBAL os.system"):
        tl.load(buf)


def test_map_location():
    buf = io.BytesIO()
    tl.save(tl.arange(3), buf)
    for location in ("cpu", tl.device("cpu"), {"cpu": "cpu"}, lambda storage, loc: storage):
        buf.seek(0)
        assert tl.load(buf, map_location=location).tolist() == [0, 1, 2]
    buf.seek(0)
    with pytest.raises(RuntimeError, match="torchlite runs on the CPU only"):
        tl.load(buf, map_location="cuda:0")


def test_paths_and_file_objects(tmp_path):
    t = tl.arange(4)
    tl.save(t, str(tmp_path / "a.pt"))
    tl.save(t, pathlib.Path(tmp_path / "b.pt"))
    with open(tmp_path / "c.pt", "wb") as f:
        tl.save(t, f)
    for name in ("a.pt", "b.pt", "c.pt"):
        with open(tmp_path / name, "rb") as f:
            assert tl.load(f).tolist() == [0, 1, 2, 3]
        assert tl.load(str(tmp_path / name)).tolist() == [0, 1, 2, 3]


def test_archive_layout_matches_torch(tmp_path):
    tl.save({"a": tl.ones(3), "b": tl.zeros(5, dtype=tl.int32)}, tmp_path / "model.pt")
    torch.save({"a": torch.ones(3), "b": torch.zeros(5, dtype=torch.int32)}, tmp_path / "ref.pt")
    ours = zipfile.ZipFile(tmp_path / "model.pt")
    ref = zipfile.ZipFile(tmp_path / "ref.pt")
    strip = lambda z: sorted(n.split("/", 1)[1] for n in z.namelist())  # noqa: E731
    assert strip(ours) == strip(ref)
    assert all(n.startswith("model/") for n in ours.namelist())
    for name in ("version", "byteorder", ".format_version", ".storage_alignment"):
        assert ours.read("model/" + name) == ref.read("ref/" + name)
    raw = (tmp_path / "model.pt").read_bytes()
    for info in ours.infolist():
        assert info.compress_type == zipfile.ZIP_STORED
        if info.filename.startswith("model/data/"):
            name_len, extra_len = int.from_bytes(raw[info.header_offset + 26:info.header_offset + 28], "little"), \
                int.from_bytes(raw[info.header_offset + 28:info.header_offset + 30], "little")
            assert (info.header_offset + 30 + name_len + extra_len) % 64 == 0


def test_not_a_zip_checkpoint():
    with pytest.raises(RuntimeError, match="not a zip checkpoint"):
        tl.load(io.BytesIO(pickle.dumps([1, 2])))


def test_mmap_is_refused_honestly():
    buf = io.BytesIO()
    tl.save(tl.ones(1), buf)
    buf.seek(0)
    with pytest.raises(NotImplementedError, match="mmap=True is not supported yet"):
        tl.load(buf, mmap=True)
