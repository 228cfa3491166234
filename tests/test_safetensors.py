"""torchlite.utils.safetensors against the safetensors package (its PyTorch API): files written by either
load in the other with the same names, dtypes, shapes and values."""
import numpy as np
import pytest
import safetensors.torch as st
import torch

import torchlite as tl
from torchlite.utils import safetensors as tst
from conftest import DTYPES, from_torch, make

ALL = DTYPES  # the reference (safetensors 0.4's PyTorch API) has no uint16/32/64; they are tested on their own


def _pair(dtype, shape):
    if dtype.startswith("uint") and dtype != "uint8":
        values = np.arange(int(np.prod(shape))).reshape(shape).tolist()
        return tl.tensor(values, dtype=getattr(tl, dtype)), torch.tensor(values, dtype=getattr(torch, dtype))
    t = make(shape, dtype)
    return from_torch(t), t


def _np(t):
    return t.float().numpy() if "bfloat16" in str(t.dtype) else t.numpy()


@pytest.mark.parametrize("dtype", ALL)
def test_both_directions(dtype, tmp_path):
    ours, theirs = {}, {}
    for i, shape in enumerate([(3, 4), (0, 2), (), (5,)]):
        a, b = _pair(dtype, shape)
        ours[f"t{i}"], theirs[f"t{i}"] = a, b
    tst.save_file(ours, tmp_path / "ours.safetensors", metadata={"format": "pt"})
    st.save_file(theirs, tmp_path / "theirs.safetensors", metadata={"format": "pt"})
    from_ours = st.load_file(tmp_path / "ours.safetensors")
    from_theirs = tst.load_file(tmp_path / "theirs.safetensors")
    for name in ours:
        np.testing.assert_array_equal(_np(from_ours[name]), _np(theirs[name]))
        np.testing.assert_array_equal(_np(from_theirs[name]), _np(ours[name]))
        assert str(from_theirs[name].dtype).split(".")[-1] == dtype
        assert tuple(from_theirs[name].shape) == tuple(theirs[name].shape)
    # The same bytes as the reference writer.
    assert (tmp_path / "ours.safetensors").read_bytes() == (tmp_path / "theirs.safetensors").read_bytes()


def test_non_contiguous_and_views_are_written_by_value():
    base = tl.arange(12.0).view(3, 4)
    data = tst.save({"t": base.t().contiguous(), "row": base[1].clone()})
    back = tst.load(data)
    assert back["t"].tolist() == base.t().tolist() and back["row"].tolist() == base[1].tolist()
    assert st.load(data)["t"].tolist() == base.t().tolist()


def test_shared_memory_is_refused():
    base = tl.arange(4.0)
    with pytest.raises(RuntimeError, match="Some tensors share memory"):
        tst.save({"a": base, "b": base[1:]})


@pytest.mark.parametrize("data,message", [
    (b"\x01", "shorter than its 8-byte header"),
    ((100).to_bytes(8, "little") + b"{}", "runs past the end"),
    ((8).to_bytes(8, "little") + b"not json", "not valid JSON"),
    ((56).to_bytes(8, "little") + b'{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,8]}}'.ljust(56) + bytes(8),
     "do not match"),
])
def test_bad_files(data, message):
    with pytest.raises(ValueError, match=message):
        tst.load(data)


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64"])
def test_wide_unsigned_round_trip(dtype):
    t = tl.tensor([[0, 1, 2**15], [7, 8, 9]], dtype=getattr(tl, dtype))
    back = tst.load(tst.save({"t": t}))["t"]
    assert back.dtype == t.dtype and back.tolist() == t.tolist()
