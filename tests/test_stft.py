"""torchlite.stft / istft (and the Tensor methods) against torch's: values for real and complex signals, 1-D and
batched, float32/float64, every pad mode, windows shorter than n_fft, align_to_window, normalized/onesided,
real-view output; istft round trips and values (length, center, complex output); gradients through the input
and the window (first and second order); warnings and error messages."""
import warnings

import numpy as np
import pytest
import torch

import torchlite as tl

RNG = np.random.default_rng(7)


def signal(*shape, dtype="float64"):
    a = RNG.standard_normal(shape)
    if "complex" in dtype:
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype)


def both(a):
    return tl.tensor(a), torch.tensor(a)


def close(got, want):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    single = got.dtype in (tl.float32, tl.complex64)
    tol = 2e-5 if single else 1e-11
    w = want.detach().numpy()
    scale = max(1.0, float(np.abs(w).max())) if w.size else 1.0
    np.testing.assert_allclose(got.detach().numpy(), w, rtol=tol, atol=tol * scale)


def windows(kind, length, dtype):
    if kind is None:
        return None, None
    if kind == "hann":
        w = np.hanning(length + 1)[:-1]
    elif kind == "complex":
        w = np.hanning(length + 1)[:-1] * np.exp(0.3j * np.arange(length))
    else:
        w = np.random.default_rng(length).uniform(0.5, 1.5, length)  # the same for both libraries
    w = w.astype(dtype if kind != "complex" else ("complex64" if dtype == "float32" else "complex128"))
    return both(w)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


CONFIGS = [
    dict(n_fft=16),
    dict(n_fft=16, hop_length=3, win_length=10, window="hann"),
    dict(n_fft=15, center=False, window="rand"),
    dict(n_fft=16, pad_mode="constant", normalized=True, onesided=False, window="hann"),
    dict(n_fft=16, pad_mode="replicate", window="hann"),
    dict(n_fft=16, pad_mode="circular", hop_length=5),
    dict(n_fft=17, win_length=7, center=False, align_to_window=True, window="hann"),
    dict(n_fft=16, win_length=8, center=False, align_to_window=True),
    dict(n_fft=16, win_length=9, center=False, align_to_window=False, window="rand"),
    dict(n_fft=8, hop_length=8, window="complex"),
    dict(n_fft=100, hop_length=1),
]


def call_stft(lib, x, cfg, dtype, **extra):
    cfg = dict(cfg)
    kind = cfg.pop("window", None)
    w = windows(kind, cfg.get("win_length", cfg["n_fft"]), dtype)[0 if lib is tl else 1]
    return lib.stft(x, window=w, **cfg, **extra)


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("shape", [(100,), (3, 100)])
def test_stft_values(cfg, dtype, shape):
    rdtype = {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)
    ours, theirs = both(signal(*shape, dtype=dtype))
    got = call_stft(tl, ours, cfg, rdtype, return_complex=True)
    want = call_stft(torch, theirs, cfg, rdtype, return_complex=True)
    close(got, want)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_stft_real_view_output_method_and_non_contiguous(dtype):
    a = signal(200, 3, dtype=dtype)
    ours, theirs = both(a)
    ours, theirs = ours.t()[:, ::2], theirs.t()[:, ::2]  # (3, 100), strided both ways
    assert not ours.is_contiguous()
    w = np.hamming(20).astype(dtype)
    got = ours.stft(20, hop_length=7, window=tl.tensor(w), return_complex=False)
    want = theirs.stft(20, hop_length=7, window=torch.tensor(w), return_complex=False)
    close(got, want)
    got = tl.stft(ours, n_fft=20, window=tl.tensor(w), onesided=False, return_complex=True)
    close(got, torch.stft(theirs, n_fft=20, window=torch.tensor(w), onesided=False, return_complex=True))


def test_stft_window_dtype_promotes():
    ours, theirs = both(signal(64, dtype="float32"))
    w = np.hanning(16)
    close(tl.stft(ours, 16, window=tl.tensor(w), return_complex=True),
          torch.stft(theirs, 16, window=torch.tensor(w), return_complex=True))


ISTFT_CONFIGS = [
    dict(n_fft=16, window="hann"),
    dict(n_fft=16, hop_length=3, win_length=10, window="hann"),
    dict(n_fft=15, hop_length=5, window="rand", center=False),
    dict(n_fft=16, window="hann", normalized=True),
    dict(n_fft=16, window="hann", onesided=False),
    dict(n_fft=16, window="hann", length=90),
    dict(n_fft=16, window="hann", length=130),
    dict(n_fft=16, hop_length=16),
]


def call_istft(lib, spec, cfg, dtype, **extra):
    cfg = dict(cfg)
    kind = cfg.pop("window", None)
    w = windows(kind, cfg.get("win_length", cfg["n_fft"]), dtype)[0 if lib is tl else 1]
    return lib.istft(spec, window=w, **cfg, **extra)


@pytest.mark.parametrize("cfg", ISTFT_CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch", [(), (2,)])
def test_istft_values_and_round_trip(cfg, dtype, batch):
    a = signal(*batch, 120, dtype=dtype)
    stft_cfg = {k: v for k, v in cfg.items() if k not in ("length",)}
    theirs_spec = call_stft(torch, torch.tensor(a), stft_cfg, dtype, return_complex=True)
    ours_spec = tl.tensor(theirs_spec.numpy())
    got = call_istft(tl, ours_spec, cfg, dtype)
    want = call_istft(torch, theirs_spec, cfg, dtype)
    close(got, want)
    if "length" not in cfg and cfg.get("center", True):
        n = got.shape[-1]
        np.testing.assert_allclose(got.numpy(), a[..., :n], atol=1e-4 if dtype == "float32" else 1e-10)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_istft_complex_output_round_trip(dtype):
    a = signal(2, 80, dtype=dtype)
    rd = "float32" if dtype == "complex64" else "float64"
    w = np.hanning(17)[:-1].astype(rd)
    theirs = torch.stft(torch.tensor(a), 16, window=torch.tensor(w), return_complex=True)
    got = tl.istft(tl.tensor(theirs.numpy()), 16, window=tl.tensor(w), return_complex=True, length=80)
    want = torch.istft(theirs, 16, window=torch.tensor(w), return_complex=True, length=80)
    close(got, want)
    np.testing.assert_allclose(got.numpy(), a, atol=1e-4 if rd == "float32" else 1e-10)
    # a full spectrum to a real signal (onesided=False: the half is used) and the method form
    spec = tl.tensor(theirs.numpy())
    close(spec.istft(16, window=tl.tensor(w), onesided=False),
          theirs.istft(16, window=torch.tensor(w), onesided=False))


def grads(lib, x_np, w_np, fn):
    x = lib.tensor(x_np, requires_grad=True)
    w = lib.tensor(w_np, requires_grad=True)
    out = fn(lib, x, w)
    real = lib.view_as_real(out) if out.is_complex() else out
    weights = lib.tensor(np.linspace(-1.0, 1.0, real.numel()).reshape(tuple(real.shape)))
    (real * weights).sum().backward()
    return out, x.grad, w.grad


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("center", [True, False])
def test_stft_gradients(dtype, center):
    x_np = signal(2, 40, dtype=dtype)
    w_np = RNG.uniform(0.5, 1.5, 10)

    def fn(lib, x, w):
        return lib.stft(x, 16, hop_length=5, win_length=10, window=w, center=center, return_complex=True)

    for got, want in zip(grads(tl, x_np, w_np, fn), grads(torch, x_np, w_np, fn)):
        close(got, want)


@pytest.mark.parametrize("return_complex", [False, True])
def test_istft_gradients(return_complex):
    spec = torch.stft(torch.tensor(signal(2, 60)), 16, window=torch.hann_window(16, dtype=torch.float64),
                      return_complex=True, onesided=not return_complex)
    w_np = np.hanning(18)[1:-1]

    def fn(lib, s, w):
        return lib.istft(s, 16, hop_length=4, window=w, return_complex=return_complex, length=58)

    for got, want in zip(grads(tl, spec.numpy(), w_np, fn), grads(torch, spec.numpy(), w_np, fn)):
        close(got, want)


def test_stft_double_backward():
    x_np = signal(50)
    w_np = RNG.uniform(0.5, 1.5, 16)
    results = []
    for lib in (tl, torch):
        x = lib.tensor(x_np, requires_grad=True)
        w = lib.tensor(w_np, requires_grad=True)
        loss = lib.stft(x, 16, window=w, return_complex=True).abs().pow(2).sum()
        (gx,) = lib.autograd.grad(loss, x, create_graph=True)
        (gx * gx).sum().backward()
        results.append((gx, w.grad))
    for got, want in zip(*results):
        close(got, want)


def test_warnings():
    x = tl.randn(64)
    tl._stft._warned.clear()
    with pytest.warns(UserWarning, match="A window was not provided. A rectangular window will be applied,"):
        tl.stft(x, 16, return_complex=True)
    with pytest.warns(UserWarning, match="stft with return_complex=False is deprecated"):
        tl.stft(x, 16, window=tl.ones(16), return_complex=False)
    spec = tl.stft(x, 16, window=tl.ones(16), return_complex=True)
    with pytest.warns(UserWarning, match="Please provide the same window used by stft"):
        tl.istft(spec, 16)
    with pytest.warns(UserWarning, match="The length of signal is shorter than the length parameter"):
        tl.istft(spec, 16, window=tl.ones(16), length=100)


X = signal(100, dtype="float32")
SPEC = torch.stft(torch.tensor(X), 16, window=torch.hann_window(16), return_complex=True).numpy()
ERRORS = [
    ("stft", lambda m, x, s: m.stft(x, 16), "stft requires the return_complex parameter be given for real inputs"),
    ("stft", lambda m, x, s: m.stft(x.to(m.int32), 16, return_complex=True),
     r"stft\(torch.IntTensor\[116\], n_fft=16, hop_length=4, win_length=16, window=None, normalized=0, "
     r"onesided=None, return_complex=1, align_to_window=None\) : expected a tensor of floating point or complex"),
    ("stft", lambda m, x, s: m.stft(x.to(m.float16), 16, return_complex=True),
     "MKL FFT doesn't support tensors of type: Half"),
    ("stft", lambda m, x, s: m.stft(x.reshape(2, 5, 10), 4, return_complex=True),
     r"stft\(torch.FloatTensor\[2, 5, 14\].*: expected a 1D or 2D tensor"),
    ("stft", lambda m, x, s: m.stft(x, 200, center=False, win_length=10, return_complex=True),
     r"expected 0 < n_fft < 100, but got n_fft=10"),
    ("stft", lambda m, x, s: m.stft(x, 0, return_complex=True), r"expected 0 < n_fft < 100, but got n_fft=0"),
    ("stft", lambda m, x, s: m.stft(x, 16, hop_length=0, return_complex=True), "expected hop_length > 0"),
    ("stft", lambda m, x, s: m.stft(x, 16, win_length=20, return_complex=True),
     "expected 0 < win_length <= n_fft, but got win_length=20"),
    ("stft", lambda m, x, s: m.stft(x, 16, window=m.ones(15), return_complex=True),
     r"window=torch.FloatTensor\{\[15\]\}.*expected a 1D window tensor of size equal to win_length=16, but got "
     r"window with size \[15\]"),
    ("stft", lambda m, x, s: m.stft(x, 16, window=m.ones(16, dtype=m.complex64), onesided=True,
                                    return_complex=True), "Cannot have onesided output if window or input is complex"),
    ("stft", lambda m, x, s: m.stft(x, 16, align_to_window=True, return_complex=True),
     "stft align_to_window should only be set when center = false"),
    ("stft", lambda m, x, s: m.stft(x[:5], 16, return_complex=True), "Padding size should be less than"),
    ("istft", lambda m, x, s: m.istft(m.view_as_real(s), 16), "istft requires a complex-valued input tensor"),
    ("istft", lambda m, x, s: m.istft(s, 16, window=m.hann_window(16), center=False),
     r"istft\(CPUComplexFloatType\[9, 26\], n_fft=16, hop_length=4, win_length=16, window=torch.FloatTensor\{\[16\]\}"
     r", center=0, normalized=0, onesided=None, length=None, return_complex=0\) window overlap add min"),
    ("istft", lambda m, x, s: m.istft(s, 16, window=m.zeros(16)), "window overlap add min"),
    ("istft", lambda m, x, s: m.istft(s, 16, window=m.ones(16), return_complex=True),
     "Cannot have onesided output if window or input is complex"),
    ("istft", lambda m, x, s: m.istft(s, 16, window=m.ones(16), onesided=False),
     "to match n_fft when onesided=False, but got 9"),
    ("istft", lambda m, x, s: m.istft(s, 15, window=m.ones(15)), r"to match n_fft / 2 \+ 1 when onesided=True, but got 9"),
    ("istft", lambda m, x, s: m.istft(s[None, None], 16), "expected a tensor with 3 or 4 dimensions, but got 5"),
    ("istft", lambda m, x, s: m.istft(s, 16, hop_length=0), "expected 0 < hop_length <= win_length"),
    ("istft", lambda m, x, s: m.istft(s, 16, hop_length=20), "expected 0 < hop_length <= win_length"),
    ("istft", lambda m, x, s: m.istft(s, 16, win_length=20), "expected 0 < win_length <= n_fft"),
    ("istft", lambda m, x, s: m.istft(s, 16, window=m.ones(15)), "Invalid window shape"),
    ("istft", lambda m, x, s: m.istft(s, 16, window=m.ones(16, dtype=m.complex64)),
     "Complex windows are incompatible with return_complex=False"),
    ("istft", lambda m, x, s: m.istft(s[:, :0], 16), "input tensor cannot be empty"),
]


@pytest.mark.parametrize("case", range(len(ERRORS)), ids=lambda i: f"{ERRORS[i][0]}-{i}")
def test_errors_like_torch(case):
    _, call, pattern = ERRORS[case]
    for m in (torch, tl):
        with pytest.raises(RuntimeError, match=pattern):
            call(m, m.tensor(X), m.tensor(SPEC))


def test_istft_one_dim_input_is_an_index_error():
    for m in (torch, tl):
        with pytest.raises(IndexError, match=r"expected to be in range of \[-2, 1\], but got -3"):
            m.istft(m.tensor(SPEC[0]), 16)
