"""Packed sequences (torchlite.nn.utils.rnn) and the recurrent modules over them, against PyTorch: what the
YAML samples cannot say (the Python layer's sorting and PackedSequence, random lengths, modules with their
own parameters, gradients of every parameter through packing, errors)."""
import numpy as np
import pytest
import torch
import torch.nn.utils.rnn as trnn

import torchlite as tl
import torchlite.nn.utils.rnn as lrnn


def tl_(t, requires_grad=False):
    x = tl.from_numpy(t.detach().numpy().copy())
    return x.requires_grad_() if requires_grad else x


def close(a, b, atol=1e-10):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=atol, rtol=0)


def same_packed(got, expected):
    assert isinstance(got, lrnn.PackedSequence)
    close(got.data, expected.data)
    assert got.batch_sizes.tolist() == expected.batch_sizes.tolist()
    for a, b in ((got.sorted_indices, expected.sorted_indices), (got.unsorted_indices, expected.unsorted_indices)):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.tolist() == b.tolist()


def random_lengths(g, batch, longest):
    lengths = torch.randint(1, longest + 1, (batch,), generator=g)
    lengths[int(torch.randint(0, batch, (1,), generator=g))] = longest
    return lengths


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pack_and_pad_round_trip_with_gradients(batch_first, enforce_sorted, seed):
    g = torch.Generator().manual_seed(seed)
    B, T = 5, 6
    lengths = random_lengths(g, B, T)
    if enforce_sorted:
        lengths = lengths.sort(descending=True).values
    x = torch.randn((B, T, 3) if batch_first else (T, B, 3), dtype=torch.float64, generator=g, requires_grad=True)
    lx = tl_(x, True)
    p = trnn.pack_padded_sequence(x, lengths, batch_first, enforce_sorted)
    lp = lrnn.pack_padded_sequence(lx, tl_(lengths), batch_first, enforce_sorted)
    same_packed(lp, p)
    out, out_len = trnn.pad_packed_sequence(p, batch_first, padding_value=-2.0, total_length=T + 2)
    lout, lout_len = lrnn.pad_packed_sequence(lp, batch_first, padding_value=-2.0, total_length=T + 2)
    close(lout, out)
    assert lout_len.tolist() == out_len.tolist() and lout_len.dtype == tl.int64
    w = torch.randn(out.shape, dtype=torch.float64, generator=g)
    (gx,) = torch.autograd.grad((out * w).sum(), x)
    (lgx,) = tl.autograd.grad((lout * tl_(w)).sum(), lx)
    close(lgx, gx)


def test_lengths_as_list_and_int32_tensor():
    x = torch.randn(4, 3, 2)
    for lengths in ([4, 2, 1], torch.tensor([4, 2, 1], dtype=torch.int32)):
        p = trnn.pack_padded_sequence(x, lengths)
        ll = lengths if isinstance(lengths, list) else tl_(lengths)
        same_packed(lrnn.pack_padded_sequence(tl_(x), ll), p)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence_and_its_gradient(batch_first, padding_side):
    g = torch.Generator().manual_seed(3)
    seqs = [torch.randn(n, 2, dtype=torch.float64, generator=g, requires_grad=True) for n in (3, 1, 4)]
    lseqs = [tl_(s, True) for s in seqs]
    out = trnn.pad_sequence(seqs, batch_first, 0.5, padding_side)
    lout = lrnn.pad_sequence(lseqs, batch_first, 0.5, padding_side)
    close(lout, out)
    w = torch.randn(out.shape, dtype=torch.float64, generator=g)
    for a, b in zip(tl.autograd.grad((lout * tl_(w)).sum(), lseqs), torch.autograd.grad((out * w).sum(), seqs)):
        close(a, b)


def test_pad_sequence_dtypes_and_errors():
    seqs = [torch.tensor([1, 2]), torch.tensor([3.5])]
    assert lrnn.pad_sequence([tl_(s) for s in seqs], padding_value=7.9).tolist() == \
        trnn.pad_sequence(seqs, padding_value=7.9).tolist()
    with pytest.raises(RuntimeError, match="empty list"):
        lrnn.pad_sequence([])
    with pytest.raises(RuntimeError, match="padding_side"):
        lrnn.pad_sequence([tl.ones(2)], padding_side="middle")
    with pytest.raises(RuntimeError, match="Expected iterable"):
        lrnn.pad_sequence(3)
    with pytest.raises(RuntimeError):
        lrnn.pad_sequence([tl.ones(2, 3), tl.ones(2, 4)])


@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_sequence_unpack_sequence_unpad_sequence(enforce_sorted):
    g = torch.Generator().manual_seed(4)
    lens = (5, 3, 3, 1) if enforce_sorted else (2, 5, 1, 3)
    seqs = [torch.randn(n, 3, generator=g) for n in lens]
    p = trnn.pack_sequence(seqs, enforce_sorted)
    lp = lrnn.pack_sequence([tl_(s) for s in seqs], enforce_sorted)
    same_packed(lp, p)
    for a, b in zip(lrnn.unpack_sequence(lp), trnn.unpack_sequence(p)):
        close(a, b)
    padded = trnn.pad_sequence(seqs)
    lpadded = tl_(padded)
    for a, b in zip(lrnn.unpad_sequence(lpadded, tl.tensor(list(lens))), trnn.unpad_sequence(padded, torch.tensor(lens))):
        close(a, b)
    assert lpadded.shape == padded.shape  # both transposed in place, as PyTorch's


def test_invert_permutation_and_packed_sequence_methods():
    perm = torch.tensor([2, 0, 3, 1])
    assert lrnn.invert_permutation(tl_(perm)).tolist() == trnn.invert_permutation(perm).tolist()
    assert lrnn.invert_permutation(None) is None
    lp = lrnn.pack_sequence([tl.ones(1, 2), tl.ones(3, 2)], enforce_sorted=False)
    assert lp._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    d = lp.double()
    assert d.data.dtype == tl.float64 and d.batch_sizes.dtype == tl.int64
    assert d.sorted_indices.tolist() == [1, 0] and d.unsorted_indices.tolist() == [1, 0]
    assert lp.to(tl.float32) is lp and lp.cpu() is lp
    assert lp.long().data.dtype == tl.int64 and lp.half().data.dtype == tl.float16 and lp.byte().data.dtype == tl.uint8
    assert lp.is_cuda is False and lp.is_pinned() is False
    again = lrnn.PackedSequence(lp.data, lp.batch_sizes, lp.sorted_indices)
    assert again.unsorted_indices.tolist() == [1, 0]
    pair = lrnn.PackedSequence((lp.data, lp.batch_sizes))
    assert pair.sorted_indices is None and pair.batch_sizes is lp.batch_sizes
    data, batch_sizes, sorted_indices, unsorted_indices = lp  # a tuple, as PyTorch's
    assert batch_sizes.tolist() == [2, 1, 1]


def test_pack_errors_as_torch():
    x = tl.ones(3, 2)
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        lrnn.pack_padded_sequence(x, [2, 3])
    with pytest.raises(RuntimeError, match="greater than 0"):
        lrnn.pack_padded_sequence(x, [3, 0])
    with pytest.raises(RuntimeError, match="batch_size"):
        lrnn.pack_padded_sequence(x, [3, 3, 3])
    with pytest.raises(RuntimeError, match="empty"):
        lrnn.pack_padded_sequence(tl.ones(0, 2), [1, 1])
    with pytest.raises(RuntimeError, match="exceeds"):  # PyTorch reads past the input here
        lrnn.pack_padded_sequence(x, [4, 3])
    with pytest.raises(RuntimeError, match="1D CPU int64"):
        tl._pack_padded_sequence(x, tl.tensor([3, 1], dtype=tl.int32), False)
    lp = lrnn.pack_sequence([tl.ones(3), tl.ones(2)])
    with pytest.raises(ValueError, match="total_length"):
        lrnn.pad_packed_sequence(lp, total_length=2)
    with pytest.raises(RuntimeError, match="sum to"):
        tl._pad_packed_sequence(lp.data, tl.tensor([2, 2, 2]), False, 0.0, 0)


# ---- the recurrent modules over packed sequences

def modules(kind, I, H, layers, bidirectional, batch_first, proj=0):
    torch.manual_seed(0)
    cls = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU, "rnn_tanh": torch.nn.RNN, "rnn_relu": torch.nn.RNN}[kind]
    lcls = {"lstm": tl.nn.LSTM, "gru": tl.nn.GRU, "rnn_tanh": tl.nn.RNN, "rnn_relu": tl.nn.RNN}[kind]
    kw = {"nonlinearity": kind[4:]} if kind.startswith("rnn_") else {}
    if proj:
        kw["proj_size"] = proj
    m = cls(I, H, layers, batch_first=batch_first, bidirectional=bidirectional, **kw).double()
    lm = lcls(I, H, layers, batch_first=batch_first, bidirectional=bidirectional, dtype=tl.float64, **kw)
    lm.load_state_dict({k: tl_(v) for k, v in m.state_dict().items()})
    return m, lm


@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
@pytest.mark.parametrize("layers,bidirectional,batch_first,enforce_sorted,with_hx", [
    (1, False, False, True, False), (2, True, True, False, True), (2, False, False, False, False),
    (1, True, True, True, True), (3, True, False, False, False)])
def test_modules_over_packed_sequences_like_torch(kind, layers, bidirectional, batch_first, enforce_sorted, with_hx):
    I, H, B, T = 4, 5, 4, 6
    m, lm = modules(kind, I, H, layers, bidirectional, batch_first)
    g = torch.Generator().manual_seed(layers * 10 + bidirectional)
    lengths = random_lengths(g, B, T)
    if enforce_sorted:
        lengths = lengths.sort(descending=True).values
    x = torch.randn((B, T, I) if batch_first else (T, B, I), dtype=torch.float64, generator=g, requires_grad=True)
    lx = tl_(x, True)
    D = 2 if bidirectional else 1
    hx = lhx = None
    if with_hx:
        h0 = torch.randn(layers * D, B, H, dtype=torch.float64, generator=g)
        c0 = torch.randn(layers * D, B, H, dtype=torch.float64, generator=g)
        hx = (h0, c0) if kind == "lstm" else h0
        lhx = (tl_(h0), tl_(c0)) if kind == "lstm" else tl_(h0)
    out, hn = m(trnn.pack_padded_sequence(x, lengths, batch_first, enforce_sorted), hx)
    lout, lhn = lm(lrnn.pack_padded_sequence(lx, tl_(lengths), batch_first, enforce_sorted), lhx)
    same_packed(lout, out)
    hn, lhn = (list(hn), list(lhn)) if kind == "lstm" else ([hn], [lhn])
    for a, b in zip(lhn, hn):
        close(a, b)
    # gradients of the padded input and of every parameter, through packing and unpacking
    padded, _ = trnn.pad_packed_sequence(out, batch_first)
    lpadded, _ = lrnn.pad_packed_sequence(lout, batch_first)
    ws = [torch.randn(t.shape, dtype=torch.float64, generator=g) for t in [padded] + hn]
    loss = sum((t * w).sum() for t, w in zip([padded] + hn, ws))
    lloss = sum((t * tl_(w)).sum() for t, w in zip([lpadded] + lhn, ws))
    names = [n for n, _ in m.named_parameters()]
    grads = torch.autograd.grad(loss, [x] + [p for _, p in m.named_parameters()])
    lparams = dict(lm.named_parameters())
    lgrads = tl.autograd.grad(lloss, [lx] + [lparams[n] for n in names])
    for name, a, b in zip(["input"] + names, lgrads, grads):
        close(a, b)


@pytest.mark.parametrize("bidirectional", [False, True])
def test_lstm_with_projections_over_packed_sequences(bidirectional):
    m, lm = modules("lstm", 3, 6, 2, bidirectional, True, proj=2)
    g = torch.Generator().manual_seed(7)
    x = torch.randn(3, 5, 3, dtype=torch.float64, generator=g, requires_grad=True)
    lx = tl_(x, True)
    lengths = [2, 5, 3]
    out, (h, c) = m(trnn.pack_padded_sequence(x, lengths, True, False))
    lout, (lh, lc) = lm(lrnn.pack_padded_sequence(lx, lengths, True, False))
    same_packed(lout, out)
    close(lh, h), close(lc, c)
    names = [n for n, _ in m.named_parameters()]
    grads = torch.autograd.grad(out.data.sum() + h.sum() + c.sum(), [x] + [p for _, p in m.named_parameters()])
    lparams = dict(lm.named_parameters())
    lgrads = tl.autograd.grad(lout.data.sum() + lh.sum() + lc.sum(), [lx] + [lparams[n] for n in names])
    for a, b in zip(lgrads, grads):
        close(a, b)


def test_packed_module_errors():
    lm = tl.nn.GRU(3, 4)
    lp = lrnn.pack_sequence([tl.ones(3, 3), tl.ones(2, 3)])
    with pytest.raises(RuntimeError, match="Expected hidden size"):
        lm(lp, tl.zeros(1, 3, 4))
    with pytest.raises(RuntimeError, match="input_size"):
        lm(lrnn.pack_sequence([tl.ones(3, 2), tl.ones(2, 2)]))
    with pytest.raises(RuntimeError, match="non-increasing"):
        tl.gru(tl.ones(5, 3), tl.tensor([2, 3]), tl.zeros(1, 3, 4), lm._flat_weights, True, 1, 0.0, False, False)
